//! `atom`, `red`, `membar`/`fence`, barriers and warp collectives (ISA 7.8 sections 9.7.12 and
//! 9.7.13). Atomics are LLVM atomics with the target's sync scope; barriers and collectives go
//! to the target, which knows how its threads meet.

use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    Address, AtomicOperation, BarrierOperation, Destination, GuardedInstruction, MemoryOrdering, MemoryScope, Operand,
    ProxyKind, ReduxOperation, ShuffleMode, VoteMode,
};
use ptxr_frontend::vocabulary::{Dimension, ScalarKind, ScalarType, SpecialRegister, StateSpace};
use ptxr_intrinsics::atomics::{self, ReadModifyWrite, WideUpdate};
use ptxr_intrinsics::{Barrier, CollectiveResult, StopReason, Unsupported, WarpCollective};

use super::{half, word_atomic};
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;
use crate::types::llvm_type;

fn unsupported(
    lowering: &FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
) -> impl Fn(Unsupported) -> LoweringError {
    let target = lowering.target_name();
    let span = guarded.span;
    let spelling = lowering.spelling(guarded);
    move |unsupported: Unsupported| {
        LoweringError::unsupported(&format!("`{spelling}` ({})", unsupported.what), target, span)
    }
}

/// The LLVM type an atomic works on: half-precision floats as `half`/`bfloat` (registers hold
/// their bits), packed pairs as `<2 x half>`/`<2 x bfloat>`.
fn atomic_value_type<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
) -> inkwell::types::BasicTypeEnum<'ctx> {
    let context = lowering.shared.context;
    match ty {
        ScalarType::F16 => context.f16_type().into(),
        ScalarType::F16x2 => context.f16_type().vec_type(2).into(),
        ScalarType::Bf16x2 => context.bf16_type().vec_type(2).into(),
        ScalarType::Bf16 => context.bf16_type().into(),
        _ => llvm_type(context, ty),
    }
}

#[allow(clippy::too_many_arguments)]
pub fn atomic<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: AtomicOperation,
    ty: ScalarType,
    state_space: StateSpace,
    ordering: MemoryOrdering,
    scope: MemoryScope,
    destination: Option<&Destination>,
    address: &Address,
    value: &Operand,
    swap: Option<&Operand>,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let site = lowering.site();
    let failed = unsupported(lowering, guarded);
    let pointer = lowering.address(address, state_space)?;
    let scope_name = lowering.shared.target.sync_scope(scope);
    if ty == ScalarType::B128 {
        // The PTX ISA manual, "atom" (ISA 8.3, sm_90): ".b128 type is supported only for .exch
        // and .cas operations", on a 16-byte aligned address.
        let replacement = lowering.read(swap.unwrap_or(value), ty)?;
        let update = if operation == AtomicOperation::CompareAndSwap {
            WideUpdate::CompareAndSwap { expected: lowering.read(value, ty)?, replacement }
        } else if operation == AtomicOperation::Exchange {
            WideUpdate::Exchange { replacement }
        } else {
            return Err(LoweringError::internal("a 128-bit atomic other than `.cas` and `.exch`", guarded.span));
        };
        let old = lowering.shared.target.wide_atomic(&site, pointer, update, ordering, scope_name).map_err(&failed)?;
        if let Some(destination) = destination {
            lowering.write(destination, old, ty)?;
        }
        return Ok(());
    }
    let value_type = atomic_value_type(lowering, ty);
    let float = ty.is_float();
    let signed = ty.kind() == ScalarKind::Signed;
    let old = if operation == AtomicOperation::CompareAndSwap
        && ty.bytes() == 2
        && lowering.shared.target.sixteen_bit_atomics_by_word()
    {
        let swap = swap.ok_or_else(|| LoweringError::internal("`atom.cas` without its new value", guarded.span))?;
        let expected = lowering.read(value, ty)?.into_int_value();
        let replacement = lowering.read(swap, ty)?.into_int_value();
        let what = format!("`{}`", lowering.spelling(guarded));
        word_atomic::update_by_compare_and_swap(
            lowering,
            pointer,
            16,
            ordering,
            scope_name,
            guarded.span,
            &what,
            |old| {
                let matches = builder.build_int_compare(inkwell::IntPredicate::EQ, old, expected, "")?;
                Ok(builder.build_select(matches, replacement, old, "")?.into_int_value())
            },
        )?
        .into()
    } else if operation == AtomicOperation::CompareAndSwap {
        let operand = builder.build_bit_cast(lowering.read(value, ty)?, value_type, "")?;
        let swap = swap.ok_or_else(|| LoweringError::internal("`atom.cas` without its new value", guarded.span))?;
        let replacement = builder.build_bit_cast(lowering.read(swap, ty)?, value_type, "")?;
        atomics::compare_and_swap(&site, pointer, operand, replacement, ordering, scope_name, ty.bytes())
            .map_err(&failed)?
    } else {
        let operation = match operation {
            AtomicOperation::And => ReadModifyWrite::And,
            AtomicOperation::Or => ReadModifyWrite::Or,
            AtomicOperation::Xor => ReadModifyWrite::Xor,
            AtomicOperation::Exchange => ReadModifyWrite::Exchange,
            AtomicOperation::Add if float => ReadModifyWrite::FloatAdd,
            AtomicOperation::Add => ReadModifyWrite::Add,
            AtomicOperation::Increment => ReadModifyWrite::IncrementWrap,
            AtomicOperation::Decrement => ReadModifyWrite::DecrementWrap,
            AtomicOperation::Minimum if signed => ReadModifyWrite::SignedMinimum,
            AtomicOperation::Minimum => ReadModifyWrite::UnsignedMinimum,
            AtomicOperation::Maximum if signed => ReadModifyWrite::SignedMaximum,
            AtomicOperation::Maximum => ReadModifyWrite::UnsignedMaximum,
            AtomicOperation::CompareAndSwap => unreachable_compare_and_swap()?,
        };
        lowering.shared.target.supports_atomic(operation, ty).map_err(&failed)?;
        let by_compare_and_swap = lowering.shared.target.atomic_by_compare_and_swap(operation, ty);
        if by_compare_and_swap && operation == ReadModifyWrite::FloatAdd {
            // 16-bit and packed floats: a loop on the 32-bit word, with the lanes' bits as
            // integers (no `half` value is built, which SPIR-V would need Float16 for).
            let bits = lowering.read(value, ty)?.into_int_value();
            half::add_by_compare_and_swap(lowering, ty, pointer, bits, ordering, scope_name, guarded.span)?.into()
        } else if by_compare_and_swap {
            let operand = builder.build_bit_cast(lowering.read(value, ty)?, value_type, "")?;
            atomics::read_modify_write_by_compare_and_swap(
                &site,
                operation,
                pointer,
                operand,
                ordering,
                scope_name,
                ty.bytes(),
            )
            .map_err(&failed)?
        } else {
            let operand = builder.build_bit_cast(lowering.read(value, ty)?, value_type, "")?;
            atomics::read_modify_write(&site, operation, pointer, operand, ordering, scope_name, ty.bytes())
                .map_err(&failed)?
        }
    };
    if let Some(destination) = destination {
        let result = builder.build_bit_cast(old, llvm_type(lowering.shared.context, ty), "")?;
        lowering.write(destination, result, ty)?;
    }
    Ok(())
}

/// `CompareAndSwap` is handled before the operation table; this keeps the match exhaustive
/// without a panic.
fn unreachable_compare_and_swap() -> LoweringResult<ReadModifyWrite> {
    Err(LoweringError::internal(
        "`atom.cas` reached the read-modify-write table",
        ptxr_frontend::Span { start: 0, end: 0 },
    ))
}

pub fn fence(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    ordering: MemoryOrdering,
    scope: MemoryScope,
) -> LoweringResult<()> {
    let scope_name = lowering.shared.target.sync_scope(scope);
    atomics::fence(&lowering.site(), ordering, scope_name).map_err(unsupported(lowering, guarded))
}

pub fn proxy_fence(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    proxy: ProxyKind,
) -> LoweringResult<()> {
    lowering.shared.target.proxy_fence(&lowering.site(), proxy).map_err(unsupported(lowering, guarded))
}

pub fn barrier<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: BarrierOperation,
    barrier: &Operand,
    thread_count: Option<&Operand>,
    destination: Option<&Destination>,
    predicate: Option<&(Operand, bool)>,
) -> LoweringResult<()> {
    let barrier_number = lowering.read_int(barrier, ScalarType::U32)?;
    let mut thread_count = thread_count.map(|count| lowering.read_int(count, ScalarType::U32)).transpose()?;
    let predicate = match predicate {
        Some((operand, negated)) => Some(read_predicate(lowering, operand, *negated)?),
        None => None,
    };
    let mut whole_block_check = None;
    if let Some(count) = thread_count {
        if lowering.shared.target.counted_barriers_of_the_whole_block_are_block_barriers() {
            if crate::module::is_reduction(operation) {
                stop_unless_the_whole_block(lowering, guarded, count)?;
                thread_count = None;
            } else if operation == BarrierOperation::Sync && !lowering.shared.barrier_arrivals {
                whole_block_check = Some(is_the_whole_block(lowering, guarded, count)?);
            }
        }
    }
    let result = match whole_block_check {
        None => {
            let description = Barrier { operation, barrier: barrier_number, thread_count, predicate };
            lowering.shared.target.barrier(&lowering.site(), &description).map_err(unsupported(lowering, guarded))?
        }
        Some(whole) => {
            // The block's barrier when the count is the block's, the target's software barrier
            // otherwise: PTX gives every thread at one barrier the same count, so the whole
            // block takes the same side.
            let builder = lowering.shared.builder;
            let context = lowering.shared.context;
            let block_side = context.append_basic_block(lowering.llvm_function, "barrier.whole_block");
            let part_side = context.append_basic_block(lowering.llvm_function, "barrier.part_of_the_block");
            let joined = context.append_basic_block(lowering.llvm_function, "barrier.passed");
            builder.build_conditional_branch(whole, block_side, part_side)?;
            for (side, count) in [(block_side, None), (part_side, thread_count)] {
                builder.position_at_end(side);
                let description = Barrier { operation, barrier: barrier_number, thread_count: count, predicate };
                lowering
                    .shared
                    .target
                    .barrier(&lowering.site(), &description)
                    .map_err(unsupported(lowering, guarded))?;
                builder.build_unconditional_branch(joined)?;
            }
            builder.position_at_end(joined);
            None
        }
    };
    if let (Some(destination), Some(result)) = (destination, result) {
        let ty = if operation == BarrierOperation::ReducePopulationCount { ScalarType::U32 } else { ScalarType::Pred };
        lowering.write(destination, result.into(), ty)?;
    }
    Ok(())
}

/// Whether `count` is the block's thread count (i1).
fn is_the_whole_block<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    count: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let mut block_threads = lowering.shared.context.i32_type().const_int(1, false);
    for dimension in [Dimension::X, Dimension::Y, Dimension::Z] {
        let extent = lowering
            .shared
            .target
            .special_register(&lowering.site(), SpecialRegister::ThreadCount(dimension))
            .map_err(unsupported(lowering, guarded))?;
        block_threads = builder.build_int_mul(block_threads, extent, "")?;
    }
    Ok(builder.build_int_compare(IntPredicate::EQ, count, block_threads, "barrier.whole_block")?)
}

/// Where counted reductions can only be the whole block's: goes on (to the barrier without a
/// count) when `count` is the block's thread count, and stops the thread otherwise. PTX requires
/// the count to be the same in every thread that reaches the barrier, so a block either passes
/// the barrier whole or stops whole, and no work-item waits for one that stopped.
fn stop_unless_the_whole_block<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    count: IntValue<'ctx>,
) -> LoweringResult<()> {
    let whole = is_the_whole_block(lowering, guarded, count)?;
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let part = context.append_basic_block(lowering.llvm_function, "barrier.part_of_the_block");
    let go_on = context.append_basic_block(lowering.llvm_function, "barrier.whole_block");
    builder.build_conditional_branch(whole, go_on, part)?;
    builder.position_at_end(part);
    super::call::stop_for(lowering, guarded, StopReason::CountedBarrierOfPartOfTheBlock)?;
    builder.position_at_end(go_on);
    Ok(())
}

fn read_predicate<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operand: &Operand,
    negated: bool,
) -> LoweringResult<IntValue<'ctx>> {
    let value = lowering.read_int(operand, ScalarType::Pred)?;
    Ok(if negated { lowering.shared.builder.build_not(value, "")? } else { value })
}

/// The member mask of a collective with `.sync`, or `None` for the older forms.
fn member_mask<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    mask: Option<&Operand>,
) -> LoweringResult<Option<IntValue<'ctx>>> {
    mask.map(|mask| lowering.read_int(mask, ScalarType::B32)).transpose()
}

fn write_collective<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    result: &CollectiveResult<'ctx>,
    destination: Option<(&Destination, ScalarType)>,
    predicate: Option<&Destination>,
) -> LoweringResult<()> {
    if let Some((destination, ty)) = destination {
        let value =
            result.value.ok_or_else(|| LoweringError::internal("a collective without its value", guarded.span))?;
        lowering.write(destination, value.into(), ty)?;
    }
    if let Some(predicate) = predicate {
        let value = result
            .predicate
            .ok_or_else(|| LoweringError::internal("a collective without its predicate", guarded.span))?;
        lowering.write(predicate, value.into(), ScalarType::Pred)?;
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn shuffle<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    mode: ShuffleMode,
    destination: &Destination,
    in_range: Option<&Destination>,
    value: &Operand,
    lane: &Operand,
    clamp: &Operand,
    mask: Option<&Operand>,
) -> LoweringResult<()> {
    let collective = WarpCollective::Shuffle {
        mode,
        value: lowering.read_int(value, ScalarType::B32)?,
        lane: lowering.read_int(lane, ScalarType::B32)?,
        clamp: lowering.read_int(clamp, ScalarType::B32)?,
        member_mask: member_mask(lowering, mask)?,
    };
    let result = lowering
        .shared
        .target
        .warp_collective(&lowering.site(), &collective)
        .map_err(unsupported(lowering, guarded))?;
    write_collective(lowering, guarded, &result, Some((destination, ScalarType::B32)), in_range)
}

pub fn vote<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    mode: VoteMode,
    destination: &Destination,
    predicate: &Operand,
    negated: bool,
    mask: Option<&Operand>,
) -> LoweringResult<()> {
    let collective = WarpCollective::Vote {
        mode,
        predicate: read_predicate(lowering, predicate, negated)?,
        member_mask: member_mask(lowering, mask)?,
    };
    let result = lowering
        .shared
        .target
        .warp_collective(&lowering.site(), &collective)
        .map_err(unsupported(lowering, guarded))?;
    let ty = if mode == VoteMode::Ballot { ScalarType::B32 } else { ScalarType::Pred };
    write_collective(lowering, guarded, &result, Some((destination, ty)), None)
}

#[allow(clippy::too_many_arguments)]
pub fn match_<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    all: bool,
    ty: ScalarType,
    destination: &Destination,
    predicate: Option<&Destination>,
    value: &Operand,
    mask: &Operand,
) -> LoweringResult<()> {
    let collective = WarpCollective::Match {
        all,
        value: lowering.read_int(value, ty)?,
        member_mask: lowering.read_int(mask, ScalarType::B32)?,
    };
    let result = lowering
        .shared
        .target
        .warp_collective(&lowering.site(), &collective)
        .map_err(unsupported(lowering, guarded))?;
    write_collective(lowering, guarded, &result, Some((destination, ScalarType::B32)), predicate)
}

pub fn redux<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: ReduxOperation,
    ty: ScalarType,
    destination: &Destination,
    value: &Operand,
    mask: &Operand,
) -> LoweringResult<()> {
    let collective = WarpCollective::Redux {
        operation,
        signed: ty.kind() == ScalarKind::Signed,
        value: lowering.read_int(value, ty)?,
        member_mask: lowering.read_int(mask, ScalarType::B32)?,
    };
    let result = lowering
        .shared
        .target
        .warp_collective(&lowering.site(), &collective)
        .map_err(unsupported(lowering, guarded))?;
    write_collective(lowering, guarded, &result, Some((destination, ty)), None)
}

pub fn active_mask(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    destination: &Destination,
) -> LoweringResult<()> {
    let result = lowering
        .shared
        .target
        .warp_collective(&lowering.site(), &WarpCollective::ActiveMask)
        .map_err(unsupported(lowering, guarded))?;
    write_collective(lowering, guarded, &result, Some((destination, ScalarType::B32)), None)
}

/// `elect.sync d|p, membermask`: the leader is the lowest set bit of the ballot of every active
/// lane of `membermask`, so every target that has `vote.sync.ballot` has `elect.sync`.
pub fn elect<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    destination: Option<&Destination>,
    predicate: &Destination,
    mask: &Operand,
) -> LoweringResult<()> {
    let i32_type = lowering.shared.context.i32_type();
    let collective = WarpCollective::Vote {
        mode: VoteMode::Ballot,
        predicate: lowering.shared.context.bool_type().const_all_ones(),
        member_mask: Some(lowering.read_int(mask, ScalarType::B32)?),
    };
    let result = lowering
        .shared
        .target
        .warp_collective(&lowering.site(), &collective)
        .map_err(unsupported(lowering, guarded))?;
    let ballot = result.value.ok_or_else(|| LoweringError::internal("a ballot without its value", guarded.span))?;
    // Not poison on zero: a lane outside `membermask` is undefined behaviour, not a miscompile.
    let leader = super::support::intrinsic(
        lowering,
        "llvm.cttz",
        &[i32_type.into()],
        &[ballot.into(), lowering.shared.context.bool_type().const_zero().into()],
        guarded.span,
    )?
    .into_int_value();
    let lane = lowering
        .shared
        .target
        .special_register(&lowering.site(), SpecialRegister::LaneId)
        .map_err(unsupported(lowering, guarded))?;
    let is_leader = lowering.shared.builder.build_int_compare(IntPredicate::EQ, lane, leader, "elect.leader")?;
    if let Some(destination) = destination {
        lowering.write(destination, leader.into(), ScalarType::B32)?;
    }
    lowering.write(predicate, is_leader.into(), ScalarType::Pred)
}

pub fn warp_sync(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    mask: &Operand,
) -> LoweringResult<()> {
    let collective = WarpCollective::Sync { member_mask: lowering.read_int(mask, ScalarType::B32)? };
    lowering.shared.target.warp_collective(&lowering.site(), &collective).map_err(unsupported(lowering, guarded))?;
    Ok(())
}

/// Whether an instruction makes threads meet, so that a kernel using it cannot run its threads
/// one after another (an `mbarrier` wait waits for other threads' arrivals).
pub fn is_cooperative(instruction: &ptxr_frontend::ir::Instruction) -> bool {
    use ptxr_frontend::ir::Instruction;
    matches!(
        instruction,
        Instruction::Barrier { .. }
            | Instruction::Shuffle { .. }
            | Instruction::Vote { .. }
            | Instruction::Match { .. }
            | Instruction::Redux { .. }
            | Instruction::ActiveMask { .. }
            | Instruction::WarpSync { .. }
            | Instruction::Elect { .. }
            | Instruction::MatrixMultiplyAccumulate { .. }
            | Instruction::WarpMatrixMultiplyAccumulate { .. }
            | Instruction::WarpGroupMultiplyAccumulate(_)
            | Instruction::LoadMatrix { .. }
            | Instruction::StoreMatrix { .. }
            | Instruction::MbarrierTestWait { .. }
    )
}
