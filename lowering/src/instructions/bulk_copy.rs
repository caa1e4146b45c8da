//! `cp.async.bulk`, `cp.reduce.async.bulk` and their bulk async-groups (PTX ISA 8.0,
//! "cp.async.bulk", "cp.reduce.async.bulk"), and what the bulk
//! copies, the tensor copies (`tensor_copy.rs`) and the tensor-map instructions
//! (`tensor_map.rs`) share.
//!
//! NVPTX keeps each instruction as inline PTX (`Target::native_bulk_copy`). The other targets
//! complete the copy before the next instruction, which is a valid execution of an
//! asynchronous copy: PTX promises nothing about when it happens between its issue and its
//! completion mechanism, so completing at issue is one schedule the program must already
//! accept. A copy into shared memory then completes its bytes on the mbarrier (`complete_tx`)
//! at once, and `cp.async.bulk.wait_group` finds every group complete: it is only the ordering
//! that its waiting gives, which the copies' plain loads and stores in program order already
//! have on the issuing thread.

use inkwell::values::{BasicMetadataValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    Address, AtomicOperation, BulkCopyDirection, GuardedInstruction, MemoryOrdering, MemoryScope, Operand,
};
use ptxr_frontend::vocabulary::{ScalarKind, ScalarType, StateSpace};
use ptxr_intrinsics::atomics::ReadModifyWrite;
use ptxr_intrinsics::mbarrier::Mbarrier;
use ptxr_intrinsics::Unsupported;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Hands `text` to the target as its own instruction; false when lowering must perform it.
pub fn native<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    text: &str,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> LoweringResult<bool> {
    let target = lowering.target_name();
    let span = guarded.span;
    let spelling = lowering.spelling(guarded);
    lowering.shared.target.native_bulk_copy(&lowering.site(), text, arguments).map_err(|unsupported: Unsupported| {
        LoweringError::unsupported(&format!("`{spelling}` ({})", unsupported.what), target, span)
    })
}

/// A pointer as the integer that inline PTX takes for an address in the pointer's state space.
pub fn as_integer<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    Ok(lowering.shared.builder.build_ptr_to_int(pointer, lowering.shared.context.i64_type(), "")?)
}

/// Copies `size` (i64) bytes from `from` to `to`, a byte at a time (the pointers may be in any
/// state spaces, and need no alignment).
pub fn copy_bytes<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    to: PointerValue<'ctx>,
    from: PointerValue<'ctx>,
    size: IntValue<'ctx>,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    for_each_index(lowering, size, "bulk.copy", |current| {
        // SAFETY: offsets below the copy's size, which the program promises are inside both.
        let (source, destination) = unsafe {
            (
                builder.build_gep(context.i8_type(), from, &[current], "")?,
                builder.build_gep(context.i8_type(), to, &[current], "")?,
            )
        };
        let byte = builder.build_load(context.i8_type(), source, "")?;
        builder.build_store(destination, byte)?;
        Ok(())
    })
}

/// Runs `body` for each index (i64) from 0 below `count` (i64), in a loop of blocks named after
/// `name`; `body` may add blocks of its own, and the builder is left after the loop.
fn for_each_index<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    count: IntValue<'ctx>,
    name: &str,
    body: impl FnOnce(IntValue<'ctx>) -> LoweringResult<()>,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let i64_type = context.i64_type();
    let entry =
        builder.get_insert_block().ok_or_else(|| LoweringError::internal("no insertion block", Default::default()))?;
    let header = context.append_basic_block(lowering.llvm_function, name);
    let first = context.append_basic_block(lowering.llvm_function, &format!("{name}.body"));
    let done = context.append_basic_block(lowering.llvm_function, &format!("{name}.done"));
    builder.build_unconditional_branch(header)?;
    builder.position_at_end(header);
    let index = builder.build_phi(i64_type, &format!("{name}.index"))?;
    let current = index.as_basic_value().into_int_value();
    let more = builder.build_int_compare(IntPredicate::ULT, current, count, "")?;
    builder.build_conditional_branch(more, first, done)?;
    builder.position_at_end(first);
    body(current)?;
    let next = builder.build_int_add(current, i64_type.const_int(1, false), "")?;
    let last = builder.get_insert_block().unwrap_or(first);
    builder.build_unconditional_branch(header)?;
    index.add_incoming(&[(&i64_type.const_zero(), entry), (&next, last)]);
    builder.position_at_end(done);
    Ok(())
}

/// Completes `bytes` (i32) of transactions on the mbarrier at `mbarrier` (in shared memory).
pub fn complete_transactions<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    mbarrier: PointerValue<'ctx>,
    bytes: IntValue<'ctx>,
) -> LoweringResult<()> {
    let operation =
        Mbarrier::Transaction { state_space: StateSpace::Shared, object: mbarrier, complete: true, count: bytes };
    let target = lowering.target_name();
    let span = guarded.span;
    let spelling = lowering.spelling(guarded);
    lowering.shared.target.mbarrier(&lowering.site(), &operation).map_err(|unsupported: Unsupported| {
        LoweringError::unsupported(&format!("`{spelling}` ({})", unsupported.what), target, span)
    })?;
    Ok(())
}

/// `cp.async.bulk.dst.src.completion [d], [a], size{, [mbar]}`.
pub fn copy<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    direction: BulkCopyDirection,
    destination: &Address,
    source: &Address,
    size: &Operand,
    mbarrier: Option<&Address>,
) -> LoweringResult<()> {
    let (destination_space, source_space, text) = match direction {
        BulkCopyDirection::GlobalToShared => (
            StateSpace::Shared,
            StateSpace::Global,
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];",
        ),
        BulkCopyDirection::SharedToShared => (
            StateSpace::Shared,
            StateSpace::Shared,
            "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [$0], [$1], $2, [$3];",
        ),
        BulkCopyDirection::SharedToGlobal => {
            (StateSpace::Global, StateSpace::Shared, "cp.async.bulk.global.shared::cta.bulk_group [$0], [$1], $2;")
        }
    };
    let to = lowering.address(destination, destination_space)?;
    let from = lowering.address(source, source_space)?;
    let bytes = lowering.read_int(size, ScalarType::U32)?;
    let barrier = mbarrier.map(|address| lowering.address(address, StateSpace::Shared)).transpose()?;
    let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> =
        vec![as_integer(lowering, to)?.into(), as_integer(lowering, from)?.into(), bytes.into()];
    if let Some(barrier) = barrier {
        arguments.push(as_integer(lowering, barrier)?.into());
    }
    if native(lowering, guarded, text, &arguments)? {
        return Ok(());
    }
    let size = lowering.shared.builder.build_int_z_extend(bytes, lowering.shared.context.i64_type(), "")?;
    copy_bytes(lowering, to, from, size)?;
    if let Some(barrier) = barrier {
        complete_transactions(lowering, guarded, barrier, bytes)?;
    }
    Ok(())
}

/// `cp.async.bulk.commit_group` and `cp.async.bulk.wait_group{.read} n`: every copy is
/// complete already (see the module's comment).
pub fn group<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    wait: Option<(u32, bool)>,
) -> LoweringResult<()> {
    let text = match wait {
        None => "cp.async.bulk.commit_group;".to_string(),
        Some((pending, read)) => format!("cp.async.bulk.wait_group{} {pending};", if read { ".read" } else { "" }),
    };
    native(lowering, guarded, &text, &[])?;
    Ok(())
}

/// PTX's name of a reduction.
fn reduction_name(operation: AtomicOperation) -> &'static str {
    match operation {
        AtomicOperation::And => "and",
        AtomicOperation::Or => "or",
        AtomicOperation::Xor => "xor",
        AtomicOperation::CompareAndSwap => "cas",
        AtomicOperation::Exchange => "exch",
        AtomicOperation::Add => "add",
        AtomicOperation::Increment => "inc",
        AtomicOperation::Decrement => "dec",
        AtomicOperation::Minimum => "min",
        AtomicOperation::Maximum => "max",
    }
}

/// `cp.reduce.async.bulk.dst.src.completion.op.type [d], [a], size{, [mbar]}`: an atomic
/// read-modify-write of each destination element with the source's (relaxed, at the scope of
/// the destination's state space), as `red` would make it, then the bytes on the mbarrier.
#[allow(clippy::too_many_arguments)]
pub fn reduce<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    direction: BulkCopyDirection,
    operation: AtomicOperation,
    ty: ScalarType,
    destination: &Address,
    source: &Address,
    size: &Operand,
    mbarrier: Option<&Address>,
) -> LoweringResult<()> {
    let (destination_space, form, scope) = match direction {
        BulkCopyDirection::SharedToShared => {
            (StateSpace::Shared, "shared::cluster.shared::cta.mbarrier::complete_tx::bytes", MemoryScope::Cta)
        }
        _ => (StateSpace::Global, "global.shared::cta.bulk_group", MemoryScope::Gpu),
    };
    let to = lowering.address(destination, destination_space)?;
    let from = lowering.address(source, StateSpace::Shared)?;
    let bytes = lowering.read_int(size, ScalarType::U32)?;
    let barrier = mbarrier.map(|address| lowering.address(address, StateSpace::Shared)).transpose()?;
    let name = reduction_name(operation);
    let text = if barrier.is_some() {
        format!("cp.reduce.async.bulk.{form}.{name}{ty} [$0], [$1], $2, [$3];")
    } else {
        format!("cp.reduce.async.bulk.{form}.{name}{ty} [$0], [$1], $2;")
    };
    let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> =
        vec![as_integer(lowering, to)?.into(), as_integer(lowering, from)?.into(), bytes.into()];
    if let Some(barrier) = barrier {
        arguments.push(as_integer(lowering, barrier)?.into());
    }
    if native(lowering, guarded, &text, &arguments)? {
        return Ok(());
    }
    let signed = ty.kind() == ScalarKind::Signed;
    let read_modify_write = match operation {
        AtomicOperation::And => ReadModifyWrite::And,
        AtomicOperation::Or => ReadModifyWrite::Or,
        AtomicOperation::Xor => ReadModifyWrite::Xor,
        AtomicOperation::Add if ty.is_float() => ReadModifyWrite::FloatAdd,
        AtomicOperation::Add => ReadModifyWrite::Add,
        AtomicOperation::Increment => ReadModifyWrite::IncrementWrap,
        AtomicOperation::Decrement => ReadModifyWrite::DecrementWrap,
        AtomicOperation::Minimum if signed => ReadModifyWrite::SignedMinimum,
        AtomicOperation::Minimum => ReadModifyWrite::UnsignedMinimum,
        AtomicOperation::Maximum if signed => ReadModifyWrite::SignedMaximum,
        AtomicOperation::Maximum => ReadModifyWrite::UnsignedMaximum,
        AtomicOperation::CompareAndSwap | AtomicOperation::Exchange => {
            return Err(LoweringError::internal("a bulk reduction that the checker refuses", guarded.span));
        }
    };
    let target = lowering.target_name();
    let spelling = lowering.spelling(guarded);
    let span = guarded.span;
    let failed = |unsupported: Unsupported| {
        LoweringError::unsupported(&format!("`{spelling}` ({})", unsupported.what), target, span)
    };
    lowering.shared.target.supports_atomic(read_modify_write, ty).map_err(&failed)?;
    let by_compare_and_swap = lowering.shared.target.atomic_by_compare_and_swap(read_modify_write, ty);
    let scope_name = lowering.shared.target.sync_scope(scope);
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let i64_type = context.i64_type();
    let element_bytes = u64::from(ty.bytes());
    let value_type = crate::types::llvm_type(context, ty);
    let count = builder.build_int_unsigned_div(
        builder.build_int_z_extend(bytes, i64_type, "")?,
        i64_type.const_int(element_bytes, false),
        "bulk.elements",
    )?;
    for_each_index(lowering, count, "bulk.reduce", |current| {
        // SAFETY: elements below the copy's size, which the program promises are inside both.
        let (source_element, destination_element) = unsafe {
            (builder.build_gep(value_type, from, &[current], "")?, builder.build_gep(value_type, to, &[current], "")?)
        };
        let value = builder.build_load(value_type, source_element, "bulk.source")?;
        let site = lowering.site();
        let alignment = ty.bytes();
        if by_compare_and_swap {
            ptxr_intrinsics::atomics::read_modify_write_by_compare_and_swap(
                &site,
                read_modify_write,
                destination_element,
                value,
                MemoryOrdering::Relaxed,
                scope_name,
                alignment,
            )
            .map_err(&failed)?;
        } else {
            ptxr_intrinsics::atomics::read_modify_write(
                &site,
                read_modify_write,
                destination_element,
                value,
                MemoryOrdering::Relaxed,
                scope_name,
                alignment,
            )
            .map_err(&failed)?;
        }
        Ok(())
    })?;
    if let Some(barrier) = barrier {
        complete_transactions(lowering, guarded, barrier, bytes)?;
    }
    Ok(())
}

/// `cp.async.bulk.prefetch.L2.global [a], size`: NVPTX's own; a hint that changes no value,
/// so nothing elsewhere (the operands are still read).
pub fn prefetch<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    address: &Address,
    size: &Operand,
) -> LoweringResult<()> {
    let pointer = lowering.address(address, StateSpace::Global)?;
    let bytes = lowering.read_int(size, ScalarType::U32)?;
    let arguments = [as_integer(lowering, pointer)?.into(), bytes.into()];
    native(lowering, guarded, "cp.async.bulk.prefetch.L2.global [$0], $1;", &arguments)?;
    Ok(())
}
