//! Integer arithmetic, logic and shifts (ISA 7.8 sections 9.7.1 and 9.7.7), with PTX's results
//! where LLVM would leave them undefined: shifts past the width, division by zero, and
//! `INT_MIN / -1`.

use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    Destination, IntegerBinaryOperation, LogicOperation, LogicTablePredicate, MultiplyMode, Operand, ShiftOperation,
    UnaryOperation,
};
use ptxr_frontend::vocabulary::ScalarType;

use super::comparison::combine;
use super::support::{flush_subnormal, intrinsic};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// The double-width type of `ty`, for `.hi` and `.wide` products.
fn wide_type(ty: ScalarType) -> ScalarType {
    // The checker only accepts `.wide` on 16- and 32-bit integers.
    ty.double_width_integer().unwrap_or(ScalarType::B128)
}

/// `a * b` in double width, sign- or zero-extended by `ty`.
fn wide_product<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    a: IntValue<'ctx>,
    b: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let wide = crate::types::integer_type(lowering.shared.context, ty.bits() * 2);
    let (a, b) = if ty.is_signed() {
        (builder.build_int_s_extend(a, wide, "")?, builder.build_int_s_extend(b, wide, "")?)
    } else {
        (builder.build_int_z_extend(a, wide, "")?, builder.build_int_z_extend(b, wide, "")?)
    };
    Ok(builder.build_int_mul(a, b, "")?)
}

/// The high half of the double-width product. 64-bit operands go through 32-bit halves, so
/// that no target needs 128-bit arithmetic (the SPIR-V backend aborts on it).
pub(super) fn high_product<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    a: IntValue<'ctx>,
    b: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    if ty.bits() == 64 {
        return high_product_64(lowering, ty.is_signed(), a, b);
    }
    let product = wide_product(lowering, ty, a, b)?;
    let shift = product.get_type().const_int(u64::from(ty.bits()), false);
    let high = builder.build_right_shift(product, shift, false, "")?;
    Ok(builder.build_int_truncate(high, a.get_type(), "")?)
}

/// The high 64 bits of a 64 x 64-bit product, from four 32 x 32-bit partial products. The
/// signed result corrects the unsigned one: each negative operand subtracts the other operand.
fn high_product_64<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    signed: bool,
    a: IntValue<'ctx>,
    b: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i64_type = a.get_type();
    let thirty_two = i64_type.const_int(32, false);
    let low_mask = i64_type.const_int(0xffff_ffff, false);
    let a_low = builder.build_and(a, low_mask, "")?;
    let a_high = builder.build_right_shift(a, thirty_two, false, "")?;
    let b_low = builder.build_and(b, low_mask, "")?;
    let b_high = builder.build_right_shift(b, thirty_two, false, "")?;
    let low_low = builder.build_int_mul(a_low, b_low, "")?;
    let low_high = builder.build_int_mul(a_low, b_high, "")?;
    let high_low = builder.build_int_mul(a_high, b_low, "")?;
    let high_high = builder.build_int_mul(a_high, b_high, "")?;
    // The two cross products sum to at most 2^65: their own carry is worth 2^96, that is 2^32
    // in the high word. The carries are found by comparisons rather than with the textbook
    // column sums, which LLVM folds back into a 128-bit multiply that SPIR-V cannot hold.
    let cross = builder.build_int_add(low_high, high_low, "")?;
    let cross_carry = builder.build_int_compare(IntPredicate::ULT, cross, low_high, "")?;
    let cross_carry = builder.build_int_z_extend(cross_carry, i64_type, "")?;
    let low = builder.build_int_add(low_low, builder.build_left_shift(cross, thirty_two, "")?, "")?;
    let low_carry = builder.build_int_compare(IntPredicate::ULT, low, low_low, "")?;
    let low_carry = builder.build_int_z_extend(low_carry, i64_type, "")?;
    let mut high = builder.build_int_add(high_high, builder.build_right_shift(cross, thirty_two, false, "")?, "")?;
    high = builder.build_int_add(high, builder.build_left_shift(cross_carry, thirty_two, "")?, "")?;
    high = builder.build_int_add(high, low_carry, "")?;
    if signed {
        let zero = i64_type.const_zero();
        let a_negative = builder.build_int_compare(IntPredicate::SLT, a, zero, "")?;
        let b_negative = builder.build_int_compare(IntPredicate::SLT, b, zero, "")?;
        let b_correction = builder.build_select(a_negative, b, zero, "")?.into_int_value();
        let a_correction = builder.build_select(b_negative, a, zero, "")?.into_int_value();
        high = builder.build_int_sub(high, b_correction, "")?;
        high = builder.build_int_sub(high, a_correction, "")?;
    }
    Ok(high)
}

pub fn binary<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: IntegerBinaryOperation,
    ty: ScalarType,
    saturate: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let span = a.span.to(b.span);
    let (a, b) = (lowering.read_int(a, ty)?, lowering.read_int(b, ty)?);
    let signed = ty.is_signed();
    let result: IntValue<'ctx> = match operation {
        IntegerBinaryOperation::Add if saturate => {
            intrinsic(lowering, "llvm.sadd.sat", &[a.get_type().into()], &[a.into(), b.into()], span)?.into_int_value()
        }
        IntegerBinaryOperation::Subtract if saturate => {
            intrinsic(lowering, "llvm.ssub.sat", &[a.get_type().into()], &[a.into(), b.into()], span)?.into_int_value()
        }
        IntegerBinaryOperation::Add => builder.build_int_add(a, b, "")?,
        IntegerBinaryOperation::Subtract => builder.build_int_sub(a, b, "")?,
        IntegerBinaryOperation::Multiply(MultiplyMode::Low) => builder.build_int_mul(a, b, "")?,
        IntegerBinaryOperation::Multiply(MultiplyMode::High) => high_product(lowering, ty, a, b)?,
        IntegerBinaryOperation::Multiply(MultiplyMode::Wide) => {
            let product = wide_product(lowering, ty, a, b)?;
            return lowering.write(destination, product.into(), wide_type(ty));
        }
        IntegerBinaryOperation::Minimum | IntegerBinaryOperation::Maximum => {
            let predicate = match (operation == IntegerBinaryOperation::Minimum, signed) {
                (true, true) => IntPredicate::SLT,
                (true, false) => IntPredicate::ULT,
                (false, true) => IntPredicate::SGT,
                (false, false) => IntPredicate::UGT,
            };
            let pick_a = builder.build_int_compare(predicate, a, b, "")?;
            builder.build_select(pick_a, a, b, "")?.into_int_value()
        }
        IntegerBinaryOperation::Divide | IntegerBinaryOperation::Remainder => {
            divide(lowering, operation, signed, a, b)?
        }
    };
    lowering.write(destination, result.into(), ty)
}

/// `div` and `rem` without LLVM's undefined cases. PTX leaves division by zero unspecified;
/// ptxr gives what NVIDIA GPUs give: all ones for `div` and the dividend for `rem`.
/// `INT_MIN / -1` wraps to `INT_MIN` with remainder 0.
fn divide<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operation: IntegerBinaryOperation,
    signed: bool,
    a: IntValue<'ctx>,
    b: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let int_type = a.get_type();
    let zero = int_type.const_zero();
    let one = int_type.const_int(1, false);
    let all_ones = int_type.const_all_ones();
    let by_zero = builder.build_int_compare(IntPredicate::EQ, b, zero, "")?;
    let mut unsafe_divisor = by_zero;
    if signed {
        let bits = int_type.get_bit_width();
        let minimum = int_type.const_int(1u64 << (bits - 1), false);
        let a_is_minimum = builder.build_int_compare(IntPredicate::EQ, a, minimum, "")?;
        let b_is_minus_one = builder.build_int_compare(IntPredicate::EQ, b, all_ones, "")?;
        let overflow = builder.build_and(a_is_minimum, b_is_minus_one, "")?;
        unsafe_divisor = builder.build_or(by_zero, overflow, "")?;
    }
    // Dividing by one in the overflow case gives INT_MIN and remainder 0, PTX's answers.
    let divisor = builder.build_select(unsafe_divisor, one, b, "")?.into_int_value();
    let result = match (operation, signed) {
        (IntegerBinaryOperation::Divide, true) => builder.build_int_signed_div(a, divisor, "")?,
        (IntegerBinaryOperation::Divide, false) => builder.build_int_unsigned_div(a, divisor, "")?,
        (_, true) => builder.build_int_signed_rem(a, divisor, "")?,
        (_, false) => builder.build_int_unsigned_rem(a, divisor, "")?,
    };
    let when_zero = if operation == IntegerBinaryOperation::Divide { all_ones } else { a };
    Ok(builder.build_select(by_zero, when_zero, result, "")?.into_int_value())
}

#[allow(clippy::too_many_arguments)]
pub fn multiply_add<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    mode: MultiplyMode,
    ty: ScalarType,
    saturate: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    c: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let span = a.span.to(c.span);
    let (a, b) = (lowering.read_int(a, ty)?, lowering.read_int(b, ty)?);
    match mode {
        MultiplyMode::Low => {
            let c = lowering.read_int(c, ty)?;
            let product = builder.build_int_mul(a, b, "")?;
            lowering.write(destination, builder.build_int_add(product, c, "")?.into(), ty)
        }
        MultiplyMode::High => {
            let c = lowering.read_int(c, ty)?;
            let high = high_product(lowering, ty, a, b)?;
            let sum = if saturate {
                intrinsic(lowering, "llvm.sadd.sat", &[high.get_type().into()], &[high.into(), c.into()], span)?
                    .into_int_value()
            } else {
                builder.build_int_add(high, c, "")?
            };
            lowering.write(destination, sum.into(), ty)
        }
        MultiplyMode::Wide => {
            let wide = wide_type(ty);
            let c = lowering.read_int(c, wide)?;
            let product = wide_product(lowering, ty, a, b)?;
            lowering.write(destination, builder.build_int_add(product, c, "")?.into(), wide)
        }
    }
}

pub fn logic<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: LogicOperation,
    ty: ScalarType,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    let (a, b) = (lowering.read_int(a, ty)?, lowering.read_int(b, ty)?);
    let result = combine(lowering, operation, a, b)?;
    lowering.write(destination, result.into(), ty)
}

/// `lop3`: the table read as a function of three bits, expanded on `a`, then `b`, then `c`
/// (Shannon's expansion), so that each half that does not depend on a variable costs nothing
/// and constant halves fold away: `0x80` is `a & b & c`, `0xF0` is `a` itself.
pub fn logic_table<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    table: u8,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    c: &Operand,
    predicate: Option<&LogicTablePredicate>,
) -> LoweringResult<()> {
    let ty = ScalarType::B32;
    let variables = [lowering.read_int(a, ty)?, lowering.read_int(b, ty)?, lowering.read_int(c, ty)?];
    let result = table_function(lowering, u32::from(table), 8, &variables)?;
    lowering.write(destination, result.into(), ty)?;
    if let Some(LogicTablePredicate { operation, destination, q }) = predicate {
        let builder = lowering.shared.builder;
        let nonzero = builder.build_int_compare(IntPredicate::NE, result, result.get_type().const_zero(), "")?;
        let q = lowering.read_int(q, ScalarType::Pred)?;
        let combined = combine(lowering, *operation, nonzero, q)?;
        lowering.write(destination, combined.into(), ScalarType::Pred)?;
    }
    Ok(())
}

/// The bitwise function whose truth table is the low `entries` bits of `table`, over
/// `variables` (the first is the most significant index bit).
fn table_function<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    table: u32,
    entries: u32,
    variables: &[IntValue<'ctx>],
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let int_type = lowering.shared.context.i32_type();
    let all = (1u32 << entries) - 1;
    let table = table & all;
    let Some((&variable, rest)) = variables.split_first() else {
        return Ok(if table & 1 == 1 { int_type.const_all_ones() } else { int_type.const_zero() });
    };
    if table == 0 {
        return Ok(int_type.const_zero());
    }
    if table == all {
        return Ok(int_type.const_all_ones());
    }
    let half = entries / 2;
    let (when_clear, when_set) = (table & ((1 << half) - 1), table >> half);
    if when_clear == when_set {
        return table_function(lowering, when_clear, half, rest);
    }
    let set_part = table_function(lowering, when_set, half, rest)?;
    let clear_part = table_function(lowering, when_clear, half, rest)?;
    let inverse = builder.build_not(variable, "")?;
    Ok(builder.build_or(builder.build_and(variable, set_part, "")?, builder.build_and(inverse, clear_part, "")?, "")?)
}

pub fn unary<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: UnaryOperation,
    ty: ScalarType,
    flush_subnormals: bool,
    destination: &Destination,
    a: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let span = a.span;
    if ty.is_float() {
        let mut value = lowering.read(a, ty)?.into_float_value();
        if flush_subnormals {
            value = flush_subnormal(lowering, value, ty, span)?;
        }
        let result: BasicValueEnum<'ctx> = match operation {
            UnaryOperation::Negate => builder.build_float_neg(value, "")?.into(),
            _ => intrinsic(lowering, "llvm.fabs", &[value.get_type().into()], &[value.into()], span)?,
        };
        return lowering.write(destination, result, ty);
    }
    let value = lowering.read_int(a, ty)?;
    let int_type = value.get_type();
    let (result, result_type): (IntValue<'ctx>, ScalarType) = match operation {
        UnaryOperation::Not => (builder.build_not(value, "")?, ty),
        UnaryOperation::LogicalNot => {
            let is_zero = builder.build_int_compare(IntPredicate::EQ, value, int_type.const_zero(), "")?;
            (builder.build_int_z_extend(is_zero, int_type, "")?, ty)
        }
        UnaryOperation::Negate => (builder.build_int_neg(value, "")?, ty),
        UnaryOperation::Absolute => {
            // abs(INT_MIN) is INT_MIN, as in PTX.
            let negative = builder.build_int_compare(IntPredicate::SLT, value, int_type.const_zero(), "")?;
            let negated = builder.build_int_neg(value, "")?;
            (builder.build_select(negative, negated, value, "")?.into_int_value(), ty)
        }
        UnaryOperation::PopulationCount => {
            let count = intrinsic(lowering, "llvm.ctpop", &[int_type.into()], &[value.into()], span)?.into_int_value();
            (count, ScalarType::U32)
        }
        UnaryOperation::CountLeadingZeros => {
            // clz of zero is the width, so the intrinsic's zero-is-poison flag is false.
            let is_zero_poison = lowering.shared.context.bool_type().const_zero();
            let count =
                intrinsic(lowering, "llvm.ctlz", &[int_type.into()], &[value.into(), is_zero_poison.into()], span)?
                    .into_int_value();
            (count, ScalarType::U32)
        }
        UnaryOperation::BitReverse => (bit_reverse(lowering, value)?, ty),
    };
    let result = if result_type != ty {
        let u32_type = lowering.shared.context.i32_type();
        builder.build_int_cast_sign_flag(result, u32_type, false, "")?
    } else {
        result
    };
    lowering.write(destination, result.into(), result_type)
}

/// `brev`: swaps ever smaller halves with shifts and masks. `llvm.bitreverse` would be
/// shorter, but the SPIR-V backend aborts on it.
fn bit_reverse<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, value: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let int_type = value.get_type();
    let bits = int_type.get_bit_width();
    let masks: [(u32, u64); 6] = [
        (1, 0x5555_5555_5555_5555),
        (2, 0x3333_3333_3333_3333),
        (4, 0x0f0f_0f0f_0f0f_0f0f),
        (8, 0x00ff_00ff_00ff_00ff),
        (16, 0x0000_ffff_0000_ffff),
        (32, 0x0000_0000_ffff_ffff),
    ];
    let mut result = value;
    for (distance, mask) in masks.into_iter().filter(|(distance, _)| *distance < bits) {
        let mask = int_type.const_int(mask, false);
        let distance = int_type.const_int(u64::from(distance), false);
        let low_moved_up = builder.build_left_shift(builder.build_and(result, mask, "")?, distance, "")?;
        let high_moved_down = builder.build_and(builder.build_right_shift(result, distance, false, "")?, mask, "")?;
        result = builder.build_or(low_moved_up, high_moved_down, "")?;
    }
    Ok(result)
}

/// Shifts take an unsigned 32-bit amount; amounts at or past the width give 0 for `shl` and
/// logical `shr`, and the sign fill for arithmetic `shr` (LLVM would give poison).
pub fn shift<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: ShiftOperation,
    ty: ScalarType,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let value = lowering.read_int(a, ty)?;
    let amount = lowering.read_int(b, ScalarType::U32)?;
    let int_type = value.get_type();
    let width = u64::from(int_type.get_bit_width());
    let u32_type = amount.get_type();
    let too_far = builder.build_int_compare(IntPredicate::UGE, amount, u32_type.const_int(width, false), "")?;
    let clamped_amount =
        builder.build_select(too_far, u32_type.const_int(width - 1, false), amount, "")?.into_int_value();
    let amount_in_type = builder.build_int_cast_sign_flag(clamped_amount, int_type, false, "")?;
    let result = match operation {
        ShiftOperation::Left => {
            let shifted = builder.build_left_shift(value, amount_in_type, "")?;
            builder.build_select(too_far, int_type.const_zero(), shifted, "")?.into_int_value()
        }
        ShiftOperation::RightLogical => {
            let shifted = builder.build_right_shift(value, amount_in_type, false, "")?;
            builder.build_select(too_far, int_type.const_zero(), shifted, "")?.into_int_value()
        }
        // Shifting by width - 1 already fills with the sign bit.
        ShiftOperation::RightArithmetic => builder.build_right_shift(value, amount_in_type, true, "")?,
    };
    lowering.write(destination, result.into(), ty)
}
