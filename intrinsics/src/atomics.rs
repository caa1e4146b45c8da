//! Atomic read-modify-write, compare-and-swap and fences with an LLVM `syncscope`, which
//! inkwell's builder cannot set (and whose `atomicrmw` accepts only integers). Built through the
//! LLVM C API on the site's builder.

use std::ffi::CString;

use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum, PointerValue};
use inkwell::IntPredicate;
use llvm_sys::core::{
    LLVMBuildAtomicCmpXchgSyncScope, LLVMBuildAtomicRMWSyncScope, LLVMBuildExtractValue, LLVMBuildFenceSyncScope,
    LLVMGetSyncScopeID, LLVMSetAlignment, LLVMSetAtomicSyncScopeID, LLVMSetOrdering,
};
use llvm_sys::prelude::LLVMValueRef;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp};
use ptxr_frontend::ir::MemoryOrdering;

use crate::compare_and_swap_loop::{CompareAndSwapLoop, LoopNames};
use crate::{Site, Unsupported};

/// The read-modify-write operations, as LLVM names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadModifyWrite {
    Exchange,
    Add,
    FloatAdd,
    And,
    Or,
    Xor,
    SignedMinimum,
    SignedMaximum,
    UnsignedMinimum,
    UnsignedMaximum,
    /// `(old >= b) ? 0 : old + 1`: PTX's `atom.inc`.
    IncrementWrap,
    /// `(old == 0 || old > b) ? b : old - 1`: PTX's `atom.dec`.
    DecrementWrap,
}

fn llvm_operation(operation: ReadModifyWrite) -> LLVMAtomicRMWBinOp {
    match operation {
        ReadModifyWrite::Exchange => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpXchg,
        ReadModifyWrite::Add => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAdd,
        ReadModifyWrite::FloatAdd => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
        ReadModifyWrite::And => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpAnd,
        ReadModifyWrite::Or => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpOr,
        ReadModifyWrite::Xor => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpXor,
        ReadModifyWrite::SignedMinimum => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpMin,
        ReadModifyWrite::SignedMaximum => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpMax,
        ReadModifyWrite::UnsignedMinimum => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpUMin,
        ReadModifyWrite::UnsignedMaximum => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpUMax,
        ReadModifyWrite::IncrementWrap => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpUIncWrap,
        ReadModifyWrite::DecrementWrap => LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpUDecWrap,
    }
}

/// LLVM's ordering for a PTX one. PTX's `.sc` fence is LLVM's `seq_cst`.
pub fn llvm_ordering(ordering: MemoryOrdering) -> LLVMAtomicOrdering {
    match ordering {
        MemoryOrdering::Relaxed => LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
        MemoryOrdering::Acquire => LLVMAtomicOrdering::LLVMAtomicOrderingAcquire,
        MemoryOrdering::Release => LLVMAtomicOrdering::LLVMAtomicOrderingRelease,
        MemoryOrdering::AcquireRelease => LLVMAtomicOrdering::LLVMAtomicOrderingAcquireRelease,
        MemoryOrdering::SequentiallyConsistent => LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
    }
}

/// The ordering a failed compare-and-swap load may have: no release part.
fn failure_ordering(ordering: MemoryOrdering) -> LLVMAtomicOrdering {
    match ordering {
        MemoryOrdering::Relaxed | MemoryOrdering::Release => LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
        MemoryOrdering::Acquire | MemoryOrdering::AcquireRelease => LLVMAtomicOrdering::LLVMAtomicOrderingAcquire,
        MemoryOrdering::SequentiallyConsistent => LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
    }
}

fn scope_id(site: &Site<'_, '_>, scope: &str) -> u32 {
    // SAFETY: the context is alive and the name is a valid buffer of that length.
    unsafe { LLVMGetSyncScopeID(site.context.raw(), scope.as_ptr().cast(), scope.len()) }
}

fn checked(value: LLVMValueRef, what: &str) -> Result<BasicValueEnum<'_>, Unsupported> {
    if value.is_null() {
        return Err(Unsupported { what: format!("an atomic {what} here") });
    }
    // SAFETY: a non-null instruction that the builder just created, of a first-class type.
    Ok(unsafe { BasicValueEnum::new(value) })
}

/// `atomicrmw` with the given scope; returns the old value. `alignment` is the access size.
pub fn read_modify_write<'ctx>(
    site: &Site<'_, 'ctx>,
    operation: ReadModifyWrite,
    pointer: PointerValue<'ctx>,
    value: BasicValueEnum<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    alignment: u32,
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    // SAFETY: builder, pointer and value belong to the site's context; the builder is positioned.
    let instruction = unsafe {
        LLVMBuildAtomicRMWSyncScope(
            site.builder.as_mut_ptr(),
            llvm_operation(operation),
            pointer.as_value_ref(),
            value.as_value_ref(),
            llvm_ordering(ordering),
            scope_id(site, scope),
        )
    };
    if !instruction.is_null() {
        // SAFETY: an atomicrmw instruction just built.
        unsafe { LLVMSetAlignment(instruction, alignment) };
    }
    checked(instruction, "read-modify-write")
}

/// An atomic read-modify-write of an integer as a loop of compare-and-swaps, for back ends
/// without an instruction for `operation` (SPIR-V has no wrapping increment or decrement):
/// read the old value, compute the new one, and swap it in if the memory still holds the old
/// value, else try again with what it holds. Returns the old value; the builder is left in the
/// block after the loop.
pub fn read_modify_write_by_compare_and_swap<'ctx>(
    site: &Site<'_, 'ctx>,
    operation: ReadModifyWrite,
    pointer: PointerValue<'ctx>,
    value: BasicValueEnum<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    alignment: u32,
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("an atomic loop ({error})") };
    let builder = site.builder;
    let BasicValueEnum::IntValue(bound) = value else {
        return Err(Unsupported { what: format!("{operation:?} on a non-integer as a compare-and-swap loop") });
    };
    let int_type = bound.get_type();
    let initial = builder.build_load(int_type, pointer, "").map_err(failed)?;
    if let Some(load) = initial.as_instruction_value() {
        load.set_alignment(alignment).map_err(|error| Unsupported { what: format!("an atomic load ({error})") })?;
        order_access(site, load, MemoryOrdering::Relaxed, scope);
    }
    let names = LoopNames { retry: "atomic.retry", done: "atomic.done", old: "atomic.old" };
    let retry_loop = CompareAndSwapLoop::begin(site, initial.into_int_value(), names)?;
    let old_value = retry_loop.old;
    let one = int_type.const_int(1, false);
    let replacement = match operation {
        ReadModifyWrite::IncrementWrap => {
            // (old >= b) ? 0 : old + 1
            let wraps = builder.build_int_compare(IntPredicate::UGE, old_value, bound, "").map_err(failed)?;
            let next = builder.build_int_add(old_value, one, "").map_err(failed)?;
            builder.build_select(wraps, int_type.const_zero(), next, "").map_err(failed)?.into_int_value()
        }
        ReadModifyWrite::DecrementWrap => {
            // (old == 0 || old > b) ? b : old - 1
            let zero =
                builder.build_int_compare(IntPredicate::EQ, old_value, int_type.const_zero(), "").map_err(failed)?;
            let above = builder.build_int_compare(IntPredicate::UGT, old_value, bound, "").map_err(failed)?;
            let wraps = builder.build_or(zero, above, "").map_err(failed)?;
            let previous = builder.build_int_sub(old_value, one, "").map_err(failed)?;
            builder.build_select(wraps, bound, previous, "").map_err(failed)?.into_int_value()
        }
        other => return Err(Unsupported { what: format!("{other:?} as a compare-and-swap loop") }),
    };
    Ok(retry_loop.finish(site, pointer, replacement, ordering, scope, alignment)?.into())
}

/// `cmpxchg` with the given scope; returns the old value.
pub fn compare_and_swap<'ctx>(
    site: &Site<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    expected: BasicValueEnum<'ctx>,
    replacement: BasicValueEnum<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
    alignment: u32,
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    let name = CString::default();
    // SAFETY: as for `read_modify_write`; index 0 of cmpxchg's result is the old value.
    let old = unsafe {
        let instruction = LLVMBuildAtomicCmpXchgSyncScope(
            site.builder.as_mut_ptr(),
            pointer.as_value_ref(),
            expected.as_value_ref(),
            replacement.as_value_ref(),
            llvm_ordering(ordering),
            failure_ordering(ordering),
            scope_id(site, scope),
        );
        if instruction.is_null() {
            return Err(Unsupported { what: "an atomic compare-and-swap here".to_string() });
        }
        LLVMSetAlignment(instruction, alignment);
        LLVMBuildExtractValue(site.builder.as_mut_ptr(), instruction, 0, name.as_ptr())
    };
    checked(old, "compare-and-swap")
}

/// What `atom.cas.b128` or `atom.exch.b128` writes into its 16-byte word; the values are of
/// the target's [`crate::WideValues`] type (`i128` or `<2 x i64>`).
#[derive(Clone, Copy, Debug)]
pub enum WideUpdate<'ctx> {
    /// `atom.exch.b128`: the new value, whatever the memory held.
    Exchange { replacement: BasicValueEnum<'ctx> },
    /// `atom.cas.b128`: `replacement` where the memory held `expected`.
    CompareAndSwap { expected: BasicValueEnum<'ctx>, replacement: BasicValueEnum<'ctx> },
}

impl<'ctx> WideUpdate<'ctx> {
    /// The value written where the update takes place.
    pub fn replacement(&self) -> BasicValueEnum<'ctx> {
        match *self {
            WideUpdate::Exchange { replacement } | WideUpdate::CompareAndSwap { replacement, .. } => replacement,
        }
    }
}

/// `atom.cas.b128` and `atom.exch.b128` as LLVM's `i128` `cmpxchg` and `atomicrmw xchg`, for
/// back ends that select them without a library call (x86-64 with `cx16`: `lock cmpxchg16b`;
/// AArch64: `casp` or an `ldxp`/`stxp` loop; NVPTX at sm_90 with PTX ISA 8.3: `atom.*.b128`).
/// The PTX ISA manual's "atom" section requires the address to be aligned to 16 bytes.
pub fn wide_update<'ctx>(
    site: &Site<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    update: WideUpdate<'ctx>,
    ordering: MemoryOrdering,
    scope: &str,
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    match update {
        WideUpdate::Exchange { replacement } => {
            read_modify_write(site, ReadModifyWrite::Exchange, pointer, replacement, ordering, scope, 16)
        }
        WideUpdate::CompareAndSwap { expected, replacement } => {
            compare_and_swap(site, pointer, expected, replacement, ordering, scope, 16)
        }
    }
}

/// `fence` with the given ordering and scope.
pub fn fence(site: &Site<'_, '_>, ordering: MemoryOrdering, scope: &str) -> Result<(), Unsupported> {
    let name = CString::default();
    // A relaxed fence is not a fence in LLVM; PTX has none (`membar` is acq_rel at least).
    let ordering = if ordering == MemoryOrdering::Relaxed { MemoryOrdering::AcquireRelease } else { ordering };
    // SAFETY: the builder is positioned in a function of the site's context.
    let instruction = unsafe {
        LLVMBuildFenceSyncScope(
            site.builder.as_mut_ptr(),
            llvm_ordering(ordering),
            scope_id(site, scope),
            name.as_ptr(),
        )
    };
    if instruction.is_null() {
        return Err(Unsupported { what: "a fence here".to_string() });
    }
    Ok(())
}

/// Makes a load or store that the builder just created atomic, with an ordering and a scope:
/// PTX's `ld.relaxed`/`ld.acquire` and `st.relaxed`/`st.release`.
pub fn order_access(
    site: &Site<'_, '_>,
    access: inkwell::values::InstructionValue<'_>,
    ordering: MemoryOrdering,
    scope: &str,
) {
    let id = scope_id(site, scope);
    // SAFETY: `access` is a live load or store instruction of a first-class, non-aggregate type.
    unsafe {
        LLVMSetOrdering(access.as_value_ref(), llvm_ordering(ordering));
        LLVMSetAtomicSyncScopeID(access.as_value_ref(), id);
    }
}
