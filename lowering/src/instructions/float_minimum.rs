//! `min` and `max` on `.f32` (ISA 7.8 sections 9.7.3.11 and 9.7.3.12), computed on the bits:
//! a NaN operand is ignored unless `.NaN` is given, two NaNs (or any NaN with `.NaN`) give the
//! canonical NaN `0x7fffffff`, -0.0 is below +0.0, and `.xorsign.abs` compares magnitudes and
//! gives the result the XOR of the operands' signs. LLVM's `minnum` leaves the sign of zero and
//! the NaN's bits open, so it cannot give PTX's results on every target.

use inkwell::values::FloatValue;
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::MinimumMaximum;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

const SIGN: u64 = 0x8000_0000;
const CANONICAL_NAN: u64 = 0x7fff_ffff;

pub fn minimum_maximum<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    modifiers: MinimumMaximum,
    minimum: bool,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let float_type = a.get_type();
    let constant = |value: u64| i32_type.const_int(value, false);
    let mut a_bits = builder.build_bit_cast(a, i32_type, "")?.into_int_value();
    let mut b_bits = builder.build_bit_cast(b, i32_type, "")?.into_int_value();
    let xor_sign = builder.build_and(builder.build_xor(a_bits, b_bits, "")?, constant(SIGN), "")?;
    if modifiers.xorsign_absolute {
        a_bits = builder.build_and(a_bits, constant(!SIGN & 0xffff_ffff), "")?;
        b_bits = builder.build_and(b_bits, constant(!SIGN & 0xffff_ffff), "")?;
    }
    let a = builder.build_bit_cast(a_bits, float_type, "")?.into_float_value();
    let b = builder.build_bit_cast(b_bits, float_type, "")?.into_float_value();
    let a_nan = builder.build_float_compare(FloatPredicate::UNO, a, a, "")?;
    let b_nan = builder.build_float_compare(FloatPredicate::UNO, b, b, "")?;
    let equal = builder.build_float_compare(FloatPredicate::OEQ, a, b, "")?;
    let sign_set = |bits| builder.build_int_compare(IntPredicate::SLT, bits, i32_type.const_zero(), "");
    // Between equal values (only +0.0 and -0.0 differ), `min` takes the negative one.
    let (strictly, a_wins_tie) = if minimum {
        (builder.build_float_compare(FloatPredicate::OLT, a, b, "")?, sign_set(a_bits)?)
    } else {
        (builder.build_float_compare(FloatPredicate::OGT, a, b, "")?, sign_set(b_bits)?)
    };
    let take_a = builder.build_or(strictly, builder.build_and(equal, a_wins_tie, "")?, "")?;
    let mut result = builder.build_select(take_a, a_bits, b_bits, "")?.into_int_value();
    result = builder.build_select(a_nan, b_bits, result, "")?.into_int_value();
    result = builder.build_select(b_nan, a_bits, result, "")?.into_int_value();
    let nan_result = if modifiers.propagate_nan {
        builder.build_or(a_nan, b_nan, "")?
    } else {
        builder.build_and(a_nan, b_nan, "")?
    };
    if modifiers.xorsign_absolute {
        result = builder.build_or(result, xor_sign, "")?;
    }
    result = builder.build_select(nan_result, constant(CANONICAL_NAN), result, "")?.into_int_value();
    Ok(builder.build_bit_cast(result, float_type, "")?.into_float_value())
}
