//! Packed 16-bit integer arithmetic (`add`, `min`, `max` on `.u16x2`/`.s16x2`, ISA 8.0) and
//! integer `min.relu`/`max.relu` on `.s32` and `.s16x2`. The `.b32` operands are read as
//! `<2 x i16>` vectors, so each lane wraps or compares alone, exactly as the lanes of the
//! hardware's instruction; `.relu` is a signed maximum with 0 afterwards.

use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{Destination, IntegerBinaryOperation, IntegerLaneShape, Operand};
use ptxr_frontend::vocabulary::ScalarType;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// `d = a op b` lane by lane, then `max(d, 0)` per lane for `.relu`.
pub fn integer_lanes<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: IntegerBinaryOperation,
    shape: IntegerLaneShape,
    relu: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let register_type = if shape == IntegerLaneShape::S32 { ScalarType::S32 } else { ScalarType::U32 };
    let (lanes, lane_bits) = shape.lanes();
    let lane_type = crate::types::integer_type(context, lane_bits);
    let as_lanes = |value: IntValue<'ctx>| -> LoweringResult<BasicValueEnum<'ctx>> {
        Ok(if lanes == 1 { value.into() } else { builder.build_bit_cast(value, lane_type.vec_type(lanes), "")? })
    };
    let a = as_lanes(lowering.read_int(a, register_type)?)?;
    let b = as_lanes(lowering.read_int(b, register_type)?)?;
    let signed = shape.is_signed();
    let mut result = lane_operation(lowering, operation, signed, a, b)?;
    if relu {
        let zero =
            if lanes == 1 { lane_type.const_zero().into() } else { lane_type.vec_type(lanes).const_zero().into() };
        result = lane_operation(lowering, IntegerBinaryOperation::Maximum, true, result, zero)?;
    }
    let word = builder.build_bit_cast(result, context.i32_type(), "")?;
    lowering.write(destination, word, register_type)
}

/// One operation on integers or on vectors of them, every lane alone.
fn lane_operation<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operation: IntegerBinaryOperation,
    signed: bool,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
) -> LoweringResult<BasicValueEnum<'ctx>> {
    let builder = lowering.shared.builder;
    let predicate = match (operation, signed) {
        (IntegerBinaryOperation::Minimum, true) => IntPredicate::SLT,
        (IntegerBinaryOperation::Minimum, false) => IntPredicate::ULT,
        (IntegerBinaryOperation::Maximum, true) => IntPredicate::SGT,
        (IntegerBinaryOperation::Maximum, false) => IntPredicate::UGT,
        // `add`: the checker takes no other operation.
        (_, _) => {
            return Ok(match (a, b) {
                (BasicValueEnum::VectorValue(a), BasicValueEnum::VectorValue(b)) => {
                    builder.build_int_add(a, b, "")?.into()
                }
                (a, b) => builder.build_int_add(a.into_int_value(), b.into_int_value(), "")?.into(),
            });
        }
    };
    Ok(match (a, b) {
        (BasicValueEnum::VectorValue(a), BasicValueEnum::VectorValue(b)) => {
            let pick_a = builder.build_int_compare(predicate, a, b, "")?;
            builder.build_select(pick_a, a, b, "")?
        }
        (a, b) => {
            let (a, b) = (a.into_int_value(), b.into_int_value());
            let pick_a = builder.build_int_compare(predicate, a, b, "")?;
            builder.build_select(pick_a, a, b, "")?
        }
    })
}
