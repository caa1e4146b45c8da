//! `min`/`max` on `.s16x2`/`.u16x2` and with `.relu` (ISA 8.0): the 32-bit registers as a
//! `<2 x i16>` (lane 0 the low half) or one `i32`, compared and selected lane by lane, which every
//! target's back end lowers.

use inkwell::types::BasicTypeEnum;
use inkwell::values::BasicValueEnum;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{Destination, Operand};
use ptxr_frontend::vocabulary::ScalarType;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

#[allow(clippy::too_many_arguments)]
pub fn minimum_maximum<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    maximum: bool,
    lanes: u32,
    signed: bool,
    relu: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let lane_type: BasicTypeEnum<'ctx> =
        if lanes == 2 { context.i16_type().vec_type(2).into() } else { context.i32_type().into() };
    let read = |operand: &Operand| -> LoweringResult<BasicValueEnum<'ctx>> {
        let bits = lowering.read_int(operand, ScalarType::B32)?;
        Ok(builder.build_bit_cast(bits, lane_type, "")?)
    };
    let (a, b) = (read(a)?, read(b)?);
    let predicate = match (maximum, signed) {
        (false, true) => IntPredicate::SLT,
        (false, false) => IntPredicate::ULT,
        (true, true) => IntPredicate::SGT,
        (true, false) => IntPredicate::UGT,
    };
    let (a, b) = if lanes == 2 {
        (a.into_vector_value(), b.into_vector_value())
    } else {
        return write_scalar(lowering, predicate, relu, destination, a, b);
    };
    let pick_a = builder.build_int_compare(predicate, a, b, "")?;
    let mut result = builder.build_select(pick_a, a, b, "")?.into_vector_value();
    if relu {
        let zero = result.get_type().const_zero();
        let negative = builder.build_int_compare(IntPredicate::SLT, result, zero, "")?;
        result = builder.build_select(negative, zero, result, "")?.into_vector_value();
    }
    let bits = builder.build_bit_cast(result, context.i32_type(), "")?;
    lowering.write(destination, bits, ScalarType::B32)
}

fn write_scalar<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    predicate: IntPredicate,
    relu: bool,
    destination: &Destination,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let (a, b) = (a.into_int_value(), b.into_int_value());
    let pick_a = builder.build_int_compare(predicate, a, b, "")?;
    let mut result = builder.build_select(pick_a, a, b, "")?.into_int_value();
    if relu {
        let zero = result.get_type().const_zero();
        let negative = builder.build_int_compare(IntPredicate::SLT, result, zero, "")?;
        result = builder.build_select(negative, zero, result, "")?.into_int_value();
    }
    lowering.write(destination, result.into(), ScalarType::B32)
}
