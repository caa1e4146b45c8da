//! `atom.add.noftz` and `red.add.noftz` on `.f16`, `.bf16`, `.f16x2` and `.bf16x2` (ISA 7.8
//! section 9.7.12.5) as a loop of 32-bit compare-and-swaps on the aligned word that holds the
//! value (`word_atomic.rs`), for targets without 16-bit or packed float atomics (SPIR-V for
//! OpenCL: its float atomic add covers 32 and 64 bits, and OpenCL has no 16-bit atomics).
//!
//! Each lane is added as the other half-precision instructions add (widened exactly to
//! `double`, rounded once to nearest even, subnormals kept, as `.noftz` asks).
//!
//! The vector forms' `.min` and `.max` (ISA 8.1, no scalar form on these types) take the same
//! loop on every target, each lane as `min`/`max` on the type computes it (a NaN operand is
//! ignored, -0.0 is below +0.0).

use inkwell::values::{IntValue, PointerValue};
use ptxr_frontend::ir::{MemoryOrdering, MinimumMaximum, RoundingMode};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::arithmetic::minimum_maximum;
use super::{Emit, Format};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;
use crate::instructions::word_atomic;

/// What an atomic does to each half-precision lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneUpdate {
    Add,
    Minimum,
    Maximum,
}

/// Adds `value` (the type's bits: `i16` for a scalar, `i32` for a pair) to the half-precision
/// value or pair at `pointer` atomically; returns the old bits. The builder is left after the
/// loop.
pub fn add_by_compare_and_swap<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    pointer: PointerValue<'ctx>,
    value: IntValue<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    span: Span,
) -> LoweringResult<IntValue<'ctx>> {
    update_by_compare_and_swap(lowering, LaneUpdate::Add, ty, pointer, value, ordering, scope, span)
}

/// `update` of each lane of the half-precision value or pair at `pointer` with the lane of
/// `value`, atomically; returns the old bits. The builder is left after the loop.
#[allow(clippy::too_many_arguments)]
pub fn update_by_compare_and_swap<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    update: LaneUpdate,
    ty: ScalarType,
    pointer: PointerValue<'ctx>,
    value: IntValue<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    span: Span,
) -> LoweringResult<IntValue<'ctx>> {
    let emit = Emit { lowering, span };
    let builder = emit.builder();
    let format = Format::of(ty);
    let lanes: u32 = if matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2) { 2 } else { 1 };
    let int_type = value.get_type();
    let add = |old: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        let mut result = int_type.const_zero();
        for lane in 0..lanes {
            let shift = int_type.const_int(u64::from(16 * lane), false);
            let lane_of = |packed: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
                let shifted = builder.build_right_shift(packed, shift, false, "")?;
                Ok(builder.build_int_truncate_or_bit_cast(shifted, emit.context().i16_type(), "")?)
            };
            let rounded = match update {
                LaneUpdate::Add => {
                    let sum = builder.build_float_add(
                        emit.widen(lane_of(old)?, format)?,
                        emit.widen(lane_of(value)?, format)?,
                        "",
                    )?;
                    emit.narrow(sum, format, RoundingMode::NearestEven)?
                }
                LaneUpdate::Minimum | LaneUpdate::Maximum => minimum_maximum(
                    &emit,
                    lane_of(old)?,
                    lane_of(value)?,
                    format,
                    MinimumMaximum::default(),
                    update == LaneUpdate::Minimum,
                )?,
            };
            let placed =
                builder.build_left_shift(builder.build_int_z_extend_or_bit_cast(rounded, int_type, "")?, shift, "")?;
            result = builder.build_or(result, placed, "")?;
        }
        Ok(result)
    };
    word_atomic::update_by_compare_and_swap(
        lowering,
        pointer,
        16 * lanes,
        ordering,
        scope,
        span,
        &format!(
            "`atom.{}.{ty}`",
            match update {
                LaneUpdate::Add => "add",
                LaneUpdate::Minimum => "min",
                LaneUpdate::Maximum => "max",
            }
        ),
        add,
    )
}
