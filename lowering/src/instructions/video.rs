//! Scalar video instructions (ISA 7.8 section 9.7.15.1), following the ISA's pseudo-code:
//! each source part is selected and sign- or zero-extended, the operation runs on those
//! values without overflow (64-bit here), `.sat` clamps to the destination type (to the
//! selected part's width for the merge form), then comes the secondary operation with `c`
//! or the merge into `c`.

use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    Comparison, Operand, VideoInstruction, VideoOperation, VideoSecondaryOperation, VideoSelector,
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

pub fn video<'ctx>(lowering: &mut FunctionLowering<'_, 'ctx>, instruction: &VideoInstruction) -> LoweringResult<()> {
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
            let predicate = match comparison {
                Comparison::Equal => IntPredicate::EQ,
                Comparison::NotEqual => IntPredicate::NE,
                Comparison::Less => IntPredicate::SLT,
                Comparison::LessOrEqual => IntPredicate::SLE,
                Comparison::Greater => IntPredicate::SGT,
                // The decoder accepts only the six integer comparisons.
                _ => IntPredicate::SGE,
            };
            builder.build_int_z_extend(compare(predicate, a, b)?, i64_type, "")?
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
