//! `atom.add.noftz` and `red.add.noftz` on `.f16`, `.bf16`, `.f16x2` and `.bf16x2` (ISA 7.8
//! section 9.7.12.5) as a loop of 32-bit compare-and-swaps on the aligned word that holds the
//! value, for targets without 16-bit or packed float atomics (SPIR-V for OpenCL: its float
//! atomic add covers 32 and 64 bits, and OpenCL has no 16-bit atomics at all).
//!
//! Each lane is added as the other half-precision instructions add (widened exactly to
//! `double`, rounded once to nearest even, subnormals kept, as `.noftz` asks), and the other
//! half of the word is written back as it was read. The ISA lets a packed atomic be done as two
//! 16-bit ones; one 32-bit swap of both lanes is one of the orders it allows.

use inkwell::values::{BasicValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{MemoryOrdering, RoundingMode};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;
use ptxr_intrinsics::atomics;

use super::{Emit, Format};
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Adds `value` (the type's bits: `i16` for a scalar, `i32` for a pair) to the half-precision
/// value or pair at `pointer` atomically; returns the old bits. The builder is left after the
/// loop.
#[allow(clippy::too_many_arguments)]
pub fn add_by_compare_and_swap<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    pointer: PointerValue<'ctx>,
    value: IntValue<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    span: Span,
) -> LoweringResult<IntValue<'ctx>> {
    let emit = Emit { lowering, span };
    let builder = emit.builder();
    let context = emit.context();
    let (i16_type, i32_type, i64_type) = (context.i16_type(), context.i32_type(), context.i64_type());
    let format = Format::of(ty);
    let packed = matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2);
    // A scalar lies in the low or the high half of its aligned word (the ISA asks 2-byte
    // alignment); the word is reached by stepping back from the pointer, keeping its provenance.
    let (word_pointer, shift) = if packed {
        (pointer, i32_type.const_zero())
    } else {
        let address = builder.build_ptr_to_int(pointer, i64_type, "")?;
        let byte_offset = builder.build_and(address, i64_type.const_int(2, false), "")?;
        let back = builder.build_int_neg(byte_offset, "")?;
        // SAFETY (for LLVM): stepping back by 0 or 2 bytes stays inside the aligned word.
        let word = unsafe { builder.build_gep(context.i8_type(), pointer, &[back], "")? };
        let shift = builder.build_int_truncate(
            builder.build_left_shift(byte_offset, i64_type.const_int(3, false), "")?,
            i32_type,
            "",
        )?;
        (word, shift)
    };
    let site = lowering.site();
    let unsupported = |error: ptxr_intrinsics::Unsupported| {
        LoweringError::unsupported(&format!("`atom.add.{ty}` ({})", error.what), lowering.target_name(), span)
    };
    let initial = builder.build_load(i32_type, word_pointer, "")?;
    if let Some(load) = initial.as_instruction_value() {
        load.set_alignment(4).map_err(|error| LoweringError::internal(error, span))?;
        atomics::order_access(&site, load, MemoryOrdering::Relaxed, scope);
    }
    let entry = builder.get_insert_block().ok_or_else(|| LoweringError::internal("an unpositioned builder", span))?;
    let retry = context.append_basic_block(site.function, "half.atomic.retry");
    let done = context.append_basic_block(site.function, "half.atomic.done");
    builder.build_unconditional_branch(retry)?;
    builder.position_at_end(retry);
    let old = builder.build_phi(i32_type, "half.atomic.old")?;
    let old_word = old.as_basic_value().into_int_value();
    let add_lane = |lane: IntValue<'ctx>, addend: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        let sum = builder.build_float_add(emit.widen(lane, format)?, emit.widen(addend, format)?, "")?;
        emit.narrow(sum, format, RoundingMode::NearestEven)
    };
    let lane_at = |word: IntValue<'ctx>, shift: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        Ok(builder.build_int_truncate(builder.build_right_shift(word, shift, false, "")?, i16_type, "")?)
    };
    let widened_at = |lane: IntValue<'ctx>, shift: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        Ok(builder.build_left_shift(builder.build_int_z_extend(lane, i32_type, "")?, shift, "")?)
    };
    let new_word = if packed {
        let sixteen = i32_type.const_int(16, false);
        let low = add_lane(lane_at(old_word, i32_type.const_zero())?, lane_at(value, i32_type.const_zero())?)?;
        let high = add_lane(lane_at(old_word, sixteen)?, lane_at(value, sixteen)?)?;
        builder.build_or(widened_at(low, i32_type.const_zero())?, widened_at(high, sixteen)?, "")?
    } else {
        let sum = add_lane(lane_at(old_word, shift)?, value)?;
        let kept_mask =
            builder.build_not(builder.build_left_shift(i32_type.const_int(0xffff, false), shift, "")?, "")?;
        let kept = builder.build_and(old_word, kept_mask, "")?;
        builder.build_or(kept, widened_at(sum, shift)?, "")?
    };
    let seen = atomics::compare_and_swap(&site, word_pointer, old_word.into(), new_word.into(), ordering, scope, 4)
        .map_err(unsupported)?
        .into_int_value();
    let swapped = builder.build_int_compare(IntPredicate::EQ, seen, old_word, "")?;
    let retry_end = builder.get_insert_block().unwrap_or(retry);
    builder.build_conditional_branch(swapped, done, retry)?;
    old.add_incoming(&[(&initial, entry), (&seen, retry_end)]);
    builder.position_at_end(done);
    if packed {
        Ok(old_word)
    } else {
        lane_at(old_word, shift)
    }
}
