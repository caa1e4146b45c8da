//! `cvt` to `.tf32` (ISA 7.8 section 9.7.8.18). TensorFloat-32 keeps `.f32`'s sign and 8-bit
//! exponent and 10 of its 23 fraction bits; like NVIDIA's hardware, the result is the `.f32`
//! bit pattern with the 13 low bits cleared, which `mma` on `.tf32` reads. The rounding works on
//! the bits as a sign and a magnitude: adding half a unit of the kept bits to the magnitude and
//! truncating rounds to nearest with ties away from zero (`.rna`); adding one less when the
//! kept last bit is even makes ties go to even (`.rn`); truncating alone is `.rz`. A carry out
//! of the fraction steps the exponent, so the largest values round to infinity, and subnormals
//! round like any other magnitude. NaN becomes the canonical NaN `0x7fffffff`, as the ISA says
//! for `.relu`; `.relu` also makes negative results (and -0.0) +0.0.

use inkwell::IntPredicate;
use ptxr_frontend::ir::{Destination, Operand, Tf32Rounding};
use ptxr_frontend::vocabulary::ScalarType;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// The 13 fraction bits that `.tf32` drops.
const DROPPED_BITS: u64 = 0x1fff;
const CANONICAL_NAN: u64 = 0x7fff_ffff;
const INFINITY: u64 = 0x7f80_0000;

pub fn convert<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    rounding: Tf32Rounding,
    relu: bool,
    destination: &Destination,
    a: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let constant = |value: u64| i32_type.const_int(value, false);
    let value = lowering.read(a, ScalarType::F32)?.into_float_value();
    let bits = builder.build_bit_cast(value, i32_type, "")?.into_int_value();
    let increment = match rounding {
        Tf32Rounding::NearestAway => constant(DROPPED_BITS / 2 + 1),
        Tf32Rounding::NearestEven => {
            let kept_last_bit =
                builder.build_and(builder.build_right_shift(bits, constant(13), false, "")?, constant(1), "")?;
            builder.build_int_add(constant(DROPPED_BITS / 2), kept_last_bit, "")?
        }
        Tf32Rounding::Zero => constant(0),
    };
    let rounded =
        builder.build_and(builder.build_int_add(bits, increment, "")?, constant(!DROPPED_BITS & 0xffff_ffff), "")?;
    let mut result = rounded;
    if relu {
        let negative = builder.build_int_compare(IntPredicate::SLT, bits, constant(0), "")?;
        result = builder.build_select(negative, constant(0), result, "")?.into_int_value();
    }
    let magnitude = builder.build_and(bits, constant(0x7fff_ffff), "")?;
    let is_nan = builder.build_int_compare(IntPredicate::UGT, magnitude, constant(INFINITY), "")?;
    let result = builder.build_select(is_nan, constant(CANONICAL_NAN), result, "")?;
    lowering.write(destination, result, ScalarType::B32)
}
