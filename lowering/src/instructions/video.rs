//! Scalar video instructions (ISA 7.8 section 9.7.15.1), following the ISA's pseudo-code:
//! each source part is selected and sign- or zero-extended, the operation runs on those
//! values without overflow (64-bit here; `vmad` carries 128), `.sat` clamps to the destination type (to the
//! selected part's width for the merge form), then comes the secondary operation with `c`
//! or the merge into `c`. The SIMD forms (section 9.7.17) do the same per half-word or byte
//! lane, in 32-bit arithmetic, which holds every lane's intermediate.

use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    Comparison, Operand, VideoInstruction, VideoOperation, VideoSecondaryOperation, VideoSelector,
    VideoSimdInstruction, VideoSimdOperation,
};
use ptxr_frontend::vocabulary::ScalarType;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// A source operand's selected part, extended to 64 bits by its type's signedness.
fn selected<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operand: &Operand,
    ty: ScalarType,
    selector: Option<VideoSelector>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let value = lowering.read_int(operand, ty)?;
    let part = match selector {
        None => value,
        Some(selector) => {
            let shifted = builder.build_right_shift(
                value,
                value.get_type().const_int(u64::from(selector.shift()), false),
                false,
                "",
            )?;
            builder.build_int_truncate(shifted, crate::types::integer_type(context, selector.bits()), "")?
        }
    };
    let i64_type = context.i64_type();
    Ok(if ty.is_signed() {
        builder.build_int_s_extend(part, i64_type, "")?
    } else {
        builder.build_int_z_extend(part, i64_type, "")?
    })
}

/// `vmad`: `(±(a * b) ± c + plus_one) >> shift`, saturated to 32 bits, following the ISA's
/// pseudo-code. Signedness: the product is signed when `a` or `b` is or when it is negated,
/// `c` has the product's signedness, and the final result is signed when the product is or
/// when `c` is negated; only `(u32 * u32) + u32` stays unsigned. The pseudo-code reads `c` as
/// `sext32(c)` whenever the final result is signed, so a negated `.u32` `c` of 2^31 or more
/// counts as the negative number its bits spell (`-c` is then positive): it computes
/// `~sext32(c) + 1`. The ISA computes in 128 bits and keeps the low 64 after the scale shift;
/// `-(a * b)` of two `.u32` values reaches -(2^32 - 1)^2, which no 64-bit integer holds, so
/// the sum is carried as a high and a low 64-bit word (SPIR-V has no `i128`): the product's
/// magnitude fits in a `u64`, its sign goes into the high word.
fn multiply_add<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    instruction: &VideoInstruction,
    plus_one: bool,
    shift: u8,
    negate_product: bool,
    negate_c: bool,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let i64_type = context.i64_type();
    let zero = i64_type.const_zero();
    let all_ones = i64_type.const_all_ones();
    let a = selected(lowering, &instruction.a, instruction.a_type, instruction.a_select)?;
    let b = selected(lowering, &instruction.b, instruction.b_type, instruction.b_select)?;
    let signed = instruction.a_type.is_signed() || instruction.b_type.is_signed() || negate_product || negate_c;
    let c = lowering.read_int(
        instruction
            .c
            .as_ref()
            .ok_or_else(|| crate::error::LoweringError::internal("`vmad` without `c`", instruction.destination.span))?,
        instruction.destination_type,
    )?;
    let select = |condition: IntValue<'ctx>, x: IntValue<'ctx>, y: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        Ok(builder.build_select(condition, x, y, "")?.into_int_value())
    };
    let is_negative = |value: IntValue<'ctx>| builder.build_int_compare(IntPredicate::SLT, value, zero, "");
    // Each source lies in [-2^31, 2^32), so its magnitude and the magnitudes' product fit.
    let magnitude = |value: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        select(is_negative(value)?, builder.build_int_neg(value, "")?, value)
    };
    let product = builder.build_int_mul(magnitude(a)?, magnitude(b)?, "")?;
    let mut product_negative = builder.build_xor(is_negative(a)?, is_negative(b)?, "")?;
    if negate_product {
        product_negative = builder.build_not(product_negative, "")?;
    }
    let nonzero = builder.build_int_compare(IntPredicate::NE, product, zero, "")?;
    let product_low = select(product_negative, builder.build_int_neg(product, "")?, product)?;
    let product_high = select(builder.build_and(product_negative, nonzero, "")?, all_ones, zero)?;
    // `c` (negated, plus one with `.po`) lies within 2^32 of zero: one sign-extended word.
    let mut addend = if signed {
        builder.build_int_s_extend(c, i64_type, "")?
    } else {
        builder.build_int_z_extend(c, i64_type, "")?
    };
    if negate_c {
        addend = builder.build_int_neg(addend, "")?;
    }
    if plus_one {
        addend = builder.build_int_add(addend, i64_type.const_int(1, false), "")?;
    }
    let low = builder.build_int_add(product_low, addend, "")?;
    let carry = builder.build_int_compare(IntPredicate::ULT, low, product_low, "")?;
    let high = builder.build_int_add(product_high, select(is_negative(addend)?, all_ones, zero)?, "")?;
    let high = builder.build_int_add(high, builder.build_int_z_extend(carry, i64_type, "")?, "")?;
    // The low 64 bits of the 128-bit sum shifted right (arithmetically) by the scale.
    let total = if shift == 0 {
        low
    } else {
        let shifted_low = builder.build_right_shift(low, i64_type.const_int(u64::from(shift), false), false, "")?;
        let shifted_high = builder.build_left_shift(high, i64_type.const_int(u64::from(64 - shift), false), "")?;
        builder.build_or(shifted_low, shifted_high, "")?
    };
    let result = if instruction.saturate {
        let (low, high, less, greater) = if signed {
            (i32::MIN as u64, i32::MAX as u64, IntPredicate::SLT, IntPredicate::SGT)
        } else {
            (0, u64::from(u32::MAX), IntPredicate::ULT, IntPredicate::UGT)
        };
        let (low, high) = (i64_type.const_int(low, signed), i64_type.const_int(high, false));
        let raised = select(builder.build_int_compare(less, total, low, "")?, low, total)?;
        select(builder.build_int_compare(greater, raised, high, "")?, high, raised)?
    } else {
        total
    };
    let result = builder.build_int_truncate(result, context.i32_type(), "")?;
    lowering.write(&instruction.destination, result.into(), instruction.destination_type)
}

pub fn video<'ctx>(lowering: &mut FunctionLowering<'_, 'ctx>, instruction: &VideoInstruction) -> LoweringResult<()> {
    if let VideoOperation::MultiplyAdd { plus_one, shift, negate_product, negate_c } = instruction.operation {
        return multiply_add(lowering, instruction, plus_one, shift, negate_product, negate_c);
    }
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let i64_type = context.i64_type();
    let i32_type = context.i32_type();
    let a = selected(lowering, &instruction.a, instruction.a_type, instruction.a_select)?;
    let b = selected(lowering, &instruction.b, instruction.b_type, instruction.b_select)?;
    let select = |condition: IntValue<'ctx>, x: IntValue<'ctx>, y: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        Ok(builder.build_select(condition, x, y, "")?.into_int_value())
    };
    let compare =
        |predicate, x, y| -> LoweringResult<IntValue<'ctx>> { Ok(builder.build_int_compare(predicate, x, y, "")?) };
    let shift_amount = |wrap: bool| -> LoweringResult<IntValue<'ctx>> {
        Ok(if wrap {
            builder.build_and(b, i64_type.const_int(31, false), "")?
        } else {
            let thirty_two = i64_type.const_int(32, false);
            select(compare(IntPredicate::ULT, b, thirty_two)?, b, thirty_two)?
        })
    };
    // Saturating a left shift needs to know whether bits were lost: then the result is the
    // extreme of `a`'s sign, which the clamp below turns into the type's limit.
    let mut result = match instruction.operation {
        VideoOperation::Add => builder.build_int_add(a, b, "")?,
        VideoOperation::Subtract => builder.build_int_sub(a, b, "")?,
        VideoOperation::AbsoluteDifference => {
            let difference = builder.build_int_sub(a, b, "")?;
            let negated = builder.build_int_neg(difference, "")?;
            select(compare(IntPredicate::SLT, difference, i64_type.const_zero())?, negated, difference)?
        }
        VideoOperation::Minimum => select(compare(IntPredicate::SLT, a, b)?, a, b)?,
        VideoOperation::Maximum => select(compare(IntPredicate::SGT, a, b)?, a, b)?,
        VideoOperation::ShiftLeft { wrap } => {
            let amount = shift_amount(wrap)?;
            let shifted = builder.build_left_shift(a, amount, "")?;
            let back = builder.build_right_shift(shifted, amount, true, "")?;
            let lost = compare(IntPredicate::NE, back, a)?;
            let negative = compare(IntPredicate::SLT, a, i64_type.const_zero())?;
            let extreme = select(
                negative,
                i64_type.const_int(i64::MIN as u64, false),
                i64_type.const_int(i64::MAX as u64, false),
            )?;
            if instruction.saturate {
                select(lost, extreme, shifted)?
            } else {
                shifted
            }
        }
        VideoOperation::ShiftRight { wrap } => {
            // `a` is already extended by its type, so an arithmetic shift is right for both.
            let amount = shift_amount(wrap)?;
            builder.build_right_shift(a, amount, true, "")?
        }
        VideoOperation::Set(comparison) => {
            builder.build_int_z_extend(compare(signed_predicate(comparison), a, b)?, i64_type, "")?
        }
        VideoOperation::MultiplyAdd { .. } => {
            let span = instruction.destination.span;
            return Err(crate::error::LoweringError::internal("`vmad` in the generic video lowering", span));
        }
    };
    let signed_destination = instruction.destination_type.is_signed();
    if instruction.saturate {
        let bits = instruction.destination_select.map_or(32, VideoSelector::bits);
        let (low, high): (i64, i64) =
            if signed_destination { (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) } else { (0, (1 << bits) - 1) };
        let low = i64_type.const_int(low as u64, true);
        let high = i64_type.const_int(high as u64, false);
        result = select(compare(IntPredicate::SLT, result, low)?, low, result)?;
        result = select(compare(IntPredicate::SGT, result, high)?, high, result)?;
    }
    let mut result = builder.build_int_truncate(result, i32_type, "")?;
    if let Some(c) = &instruction.c {
        let c = lowering.read_int(c, instruction.destination_type)?;
        result = match (instruction.secondary, instruction.destination_select) {
            (Some(VideoSecondaryOperation::Add), _) => builder.build_int_add(result, c, "")?,
            (Some(secondary), _) => {
                // The ISA names this step `optSecondaryOp` without spelling it out; the result
                // and `c` are compared in the destination type's signedness, as `.sat` clamps.
                let predicate = match (secondary == VideoSecondaryOperation::Minimum, signed_destination) {
                    (true, true) => IntPredicate::SLT,
                    (true, false) => IntPredicate::ULT,
                    (false, true) => IntPredicate::SGT,
                    (false, false) => IntPredicate::UGT,
                };
                select(compare(predicate, result, c)?, result, c)?
            }
            (None, Some(selector)) => {
                let shift = i32_type.const_int(u64::from(selector.shift()), false);
                let part_mask = i32_type.const_int((1u64 << selector.bits()) - 1, false);
                let place = builder.build_left_shift(part_mask, shift, "")?;
                let kept = builder.build_and(c, builder.build_not(place, "")?, "")?;
                let part = builder.build_left_shift(builder.build_and(result, part_mask, "")?, shift, "")?;
                builder.build_or(kept, part, "")?
            }
            (None, None) => result,
        };
    }
    lowering.write(&instruction.destination, result.into(), instruction.destination_type)
}

/// The signed LLVM predicate of a video comparison (values are already extended).
fn signed_predicate(comparison: Comparison) -> IntPredicate {
    match comparison {
        Comparison::Equal => IntPredicate::EQ,
        Comparison::NotEqual => IntPredicate::NE,
        Comparison::Less => IntPredicate::SLT,
        Comparison::LessOrEqual => IntPredicate::SLE,
        Comparison::Greater => IntPredicate::SGT,
        // The decoders accept only the six integer comparisons.
        _ => IntPredicate::SGE,
    }
}

pub fn video_simd<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    instruction: &VideoSimdInstruction,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let type_of = |signed: bool| if signed { ScalarType::S32 } else { ScalarType::U32 };
    let a = lowering.read_int(&instruction.a, type_of(instruction.a_signed))?;
    let b = lowering.read_int(&instruction.b, type_of(instruction.b_signed))?;
    let c = lowering.read_int(&instruction.c, type_of(instruction.destination_signed))?;
    let lane_bits = 32 / u32::from(instruction.lanes);
    let lane_type = crate::types::integer_type(context, lane_bits);
    let select = |condition: IntValue<'ctx>, x: IntValue<'ctx>, y: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        Ok(builder.build_select(condition, x, y, "")?.into_int_value())
    };
    let compare =
        |predicate, x, y| -> LoweringResult<IntValue<'ctx>> { Ok(builder.build_int_compare(predicate, x, y, "")?) };
    let extend = |value: IntValue<'ctx>, signed: bool| -> LoweringResult<IntValue<'ctx>> {
        Ok(if signed {
            builder.build_int_s_extend(value, i32_type, "")?
        } else {
            builder.build_int_z_extend(value, i32_type, "")?
        })
    };
    // Lane `index` of a 64-bit pair, extended to 32 bits.
    let pair_lane = |pair: IntValue<'ctx>, index: u8, signed: bool| -> LoweringResult<IntValue<'ctx>> {
        let shift = i64_type.const_int(u64::from(lane_bits) * u64::from(index), false);
        let lane = builder.build_int_truncate(builder.build_right_shift(pair, shift, false, "")?, lane_type, "")?;
        extend(lane, signed)
    };
    // Each pair holds `{b, a}`: the selectors index its lanes, `a`'s first.
    let pair_of = |low: IntValue<'ctx>, high: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        let low = builder.build_int_z_extend(low, i64_type, "")?;
        let high = builder.build_int_z_extend(high, i64_type, "")?;
        Ok(builder.build_or(builder.build_left_shift(high, i64_type.const_int(32, false), "")?, low, "")?)
    };
    let pair_unsigned = pair_of(a, b)?;
    let (low_limit, high_limit): (i64, i64) = if instruction.destination_signed {
        (-(1 << (lane_bits - 1)), (1 << (lane_bits - 1)) - 1)
    } else {
        (0, (1 << lane_bits) - 1)
    };
    let low_limit = i32_type.const_int(low_limit as u64, true);
    let high_limit = i32_type.const_int(high_limit as u64, false);
    let lane_mask = i32_type.const_int((1u64 << lane_bits) - 1, false);
    let mut result = if instruction.accumulate { c } else { i32_type.const_zero() };
    for lane in 0..instruction.lanes {
        let lane_index = usize::from(lane);
        let va = pair_lane(pair_unsigned, instruction.a_select[lane_index], instruction.a_signed)?;
        let vb = pair_lane(pair_unsigned, instruction.b_select[lane_index], instruction.b_signed)?;
        let mut value = match instruction.operation {
            VideoSimdOperation::Add => builder.build_int_add(va, vb, "")?,
            VideoSimdOperation::Subtract => builder.build_int_sub(va, vb, "")?,
            VideoSimdOperation::Average => {
                let sum = builder.build_int_add(va, vb, "")?;
                let non_negative = compare(IntPredicate::SGE, sum, i32_type.const_zero())?;
                let rounded = builder.build_int_add(sum, i32_type.const_int(1, false), "")?;
                let numerator = select(non_negative, rounded, sum)?;
                builder.build_right_shift(numerator, i32_type.const_int(1, false), true, "")?
            }
            VideoSimdOperation::AbsoluteDifference => {
                let difference = builder.build_int_sub(va, vb, "")?;
                let negated = builder.build_int_neg(difference, "")?;
                select(compare(IntPredicate::SLT, difference, i32_type.const_zero())?, negated, difference)?
            }
            VideoSimdOperation::Minimum => select(compare(IntPredicate::SLT, va, vb)?, va, vb)?,
            VideoSimdOperation::Maximum => select(compare(IntPredicate::SGT, va, vb)?, va, vb)?,
            VideoSimdOperation::Set(comparison) => {
                builder.build_int_z_extend(compare(signed_predicate(comparison), va, vb)?, i32_type, "")?
            }
        };
        if instruction.saturate {
            value = select(compare(IntPredicate::SLT, value, low_limit)?, low_limit, value)?;
            value = select(compare(IntPredicate::SGT, value, high_limit)?, high_limit, value)?;
        }
        let written = instruction.mask & (1 << lane) != 0;
        let shift = i32_type.const_int(u64::from(lane_bits) * u64::from(lane), false);
        if instruction.accumulate {
            if written {
                result = builder.build_int_add(result, value, "")?;
            }
        } else {
            // Lanes outside the mask keep `c`'s lane.
            let source = if written { value } else { builder.build_right_shift(c, shift, false, "")? };
            let placed = builder.build_left_shift(builder.build_and(source, lane_mask, "")?, shift, "")?;
            result = builder.build_or(result, placed, "")?;
        }
    }
    lowering.write(&instruction.destination, result.into(), type_of(instruction.destination_signed))
}
