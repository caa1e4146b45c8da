//! `testp` (ISA 7.8 section 9.7.3.1): a property of an `.f32` or `.f64` value, read from its
//! bits so that no target's floating-point mode (flushing subnormals) changes the answer.
//! `.normal` is true for finite values that are not subnormal, zeros included, as the spec says.

use inkwell::IntPredicate;
use ptxr_frontend::ir::{Destination, FloatProperty, Operand};
use ptxr_frontend::vocabulary::ScalarType;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

pub fn test_property<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    property: FloatProperty,
    ty: ScalarType,
    destination: &Destination,
    source: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let double = ty == ScalarType::F64;
    let bits_type = if double { lowering.shared.context.i64_type() } else { lowering.shared.context.i32_type() };
    let (magnitude_mask, infinity, smallest_normal) = if double {
        (0x7fff_ffff_ffff_ffff, 0x7ff0_0000_0000_0000, 0x0010_0000_0000_0000)
    } else {
        (0x7fff_ffff, 0x7f80_0000, 0x0080_0000)
    };
    let value = lowering.read(source, ty)?;
    let bits = builder.build_bit_cast(value, bits_type, "")?.into_int_value();
    let magnitude = builder.build_and(bits, bits_type.const_int(magnitude_mask, false), "")?;
    let infinity = bits_type.const_int(infinity, false);
    let compare = |predicate, bound| builder.build_int_compare(predicate, magnitude, bound, "");
    let result = match property {
        FloatProperty::Finite => compare(IntPredicate::ULT, infinity)?,
        FloatProperty::Infinite => compare(IntPredicate::EQ, infinity)?,
        FloatProperty::Number => compare(IntPredicate::ULE, infinity)?,
        FloatProperty::NotANumber => compare(IntPredicate::UGT, infinity)?,
        FloatProperty::Normal => {
            let finite = compare(IntPredicate::ULT, infinity)?;
            let subnormal = subnormal(lowering, magnitude, smallest_normal)?;
            builder.build_and(finite, builder.build_not(subnormal, "")?, "")?
        }
        FloatProperty::Subnormal => subnormal(lowering, magnitude, smallest_normal)?,
    };
    lowering.write(destination, result.into(), ScalarType::Pred)
}

/// Non-zero with a zero exponent field.
fn subnormal<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    magnitude: inkwell::values::IntValue<'ctx>,
    smallest_normal: u64,
) -> LoweringResult<inkwell::values::IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let bits_type = magnitude.get_type();
    let nonzero = builder.build_int_compare(IntPredicate::NE, magnitude, bits_type.const_zero(), "")?;
    let below_normal =
        builder.build_int_compare(IntPredicate::ULT, magnitude, bits_type.const_int(smallest_normal, false), "")?;
    Ok(builder.build_and(nonzero, below_normal, "")?)
}
