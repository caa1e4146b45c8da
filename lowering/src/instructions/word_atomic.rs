//! Atomics on 16-bit values (and on packed pairs, with a computed update) as a loop of 32-bit
//! compare-and-swaps on the aligned word that holds them, for targets without 16-bit atomics
//! (OpenCL has none: Intel's runtime fails to build SPIR-V with a 16-bit
//! OpAtomicCompareExchange) or without an instruction for the update (16-bit and packed float
//! adds).
//!
//! The loop reads the word, computes the new value of the part at the address from the old one,
//! writes the word back with the other half as it was read, and retries when another thread
//! changed the word in between. The ISA lets a packed atomic be done as two 16-bit ones; one
//! 32-bit swap of both lanes is one of the orders it allows.

use inkwell::values::{BasicValue, IntValue, PointerValue};
use ptxr_frontend::ir::MemoryOrdering;
use ptxr_frontend::Span;
use ptxr_intrinsics::atomics;
use ptxr_intrinsics::compare_and_swap_loop::{CompareAndSwapLoop, LoopNames};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Updates the 16-bit (`bits` 16) or 32-bit (`bits` 32) value at `pointer` atomically to
/// `update(old)`, `update` taking and giving an integer of that width; returns the old value.
/// `pointer` is aligned to the value's size. The builder is left after the loop.
#[allow(clippy::too_many_arguments)]
pub fn update_by_compare_and_swap<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    bits: u32,
    ordering: MemoryOrdering,
    scope: &str,
    span: Span,
    what: &str,
    update: impl Fn(IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let (i32_type, i64_type) = (context.i32_type(), context.i64_type());
    let value_type = if bits == 32 { i32_type } else { context.i16_type() };
    // A 16-bit value lies in the low or the high half of its aligned word; the word is reached
    // by stepping back from the pointer, which keeps its provenance.
    let (word_pointer, shift) = if bits == 32 {
        (pointer, i32_type.const_zero())
    } else {
        let address = builder.build_ptr_to_int(pointer, i64_type, "")?;
        let byte_offset = builder.build_and(address, i64_type.const_int(2, false), "")?;
        let back = builder.build_int_neg(byte_offset, "")?;
        // SAFETY (for LLVM): stepping back by 0 or 2 bytes stays inside the aligned word.
        let word = unsafe { builder.build_gep(context.i8_type(), pointer, &[back], "")? };
        let bit_offset = builder.build_left_shift(byte_offset, i64_type.const_int(3, false), "")?;
        (word, builder.build_int_truncate(bit_offset, i32_type, "")?)
    };
    let site = lowering.site();
    let initial = builder.build_load(i32_type, word_pointer, "")?;
    if let Some(load) = initial.as_instruction_value() {
        load.set_alignment(4).map_err(|error| LoweringError::internal(error, span))?;
        atomics::order_access(&site, load, MemoryOrdering::Relaxed, scope);
    }
    let names = LoopNames { retry: "word.atomic.retry", done: "word.atomic.done", old: "word.atomic.old" };
    let retry_loop = CompareAndSwapLoop::begin(&site, initial.into_int_value(), names)
        .map_err(|error| LoweringError::internal(error.what, span))?;
    let old_word = retry_loop.old;
    let part = |word: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        Ok(builder.build_int_truncate_or_bit_cast(
            builder.build_right_shift(word, shift, false, "")?,
            value_type,
            "",
        )?)
    };
    let new_part = update(part(old_word)?)?;
    let new_word = if bits == 32 {
        new_part
    } else {
        let placed = builder.build_left_shift(builder.build_int_z_extend(new_part, i32_type, "")?, shift, "")?;
        let part_mask = builder.build_left_shift(i32_type.const_int(0xffff, false), shift, "")?;
        let kept = builder.build_and(old_word, builder.build_not(part_mask, "")?, "")?;
        builder.build_or(kept, placed, "")?
    };
    retry_loop.finish(&site, word_pointer, new_word, ordering, scope, 4).map_err(|error| {
        LoweringError::unsupported(&format!("{what} ({})", error.what), lowering.target_name(), span)
    })?;
    part(old_word)
}
