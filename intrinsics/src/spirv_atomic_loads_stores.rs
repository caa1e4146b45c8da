//! A rewrite of the optimised module before SPIR-V code generation: every atomic load (PTX's
//! `ld.relaxed`/`ld.acquire`, libcu++'s `atomic_ref::load`) becomes an `atomicrmw or` of zero
//! and every atomic store (`st.relaxed`/`st.release`) an `atomicrmw xchg` whose result is
//! unused, each with the same ordering, scope, alignment and volatility.
//!
//! LLVM 22's SPIR-V back end writes `load atomic` and `store atomic` as a plain `OpLoad` and
//! `OpStore`, dropping the atomicity and the ordering. A spin on a flag that another work-group
//! publishes (a decoupled look-back scan waiting for its predecessor's status word) then reads
//! an ordinary variable in a loop without side effects, which the OpenCL compiler may assume
//! ends, and Intel's CPU runtime miscompiled the kernel around it (values of the work-item
//! that were live across the next barrier came back as garbage). `OpAtomicOr` and
//! `OpAtomicExchange` carry the ordering as memory semantics. Accesses of 8 and 16 bits, which
//! OpenCL has no atomics for, and of other types stay as they were.

use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp, LLVMOpcode, LLVMTypeKind};

use crate::Unsupported;

/// Rewrites every atomic load and store of 32 or 64 bits in `module` into a read-modify-write.
pub fn atomic_loads_and_stores_as_read_modify_writes(module: &Module<'_>) -> Result<(), Unsupported> {
    let module = module.as_mut_ptr();
    // SAFETY: the module is alive for this call; the instructions are listed before the walk,
    // which replaces and erases only the instruction it looks at.
    unsafe {
        let builder = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
        for instruction in crate::module_instructions::module_instructions(module) {
            rewrite(builder, instruction);
        }
        LLVMDisposeBuilder(builder);
    }
    Ok(())
}

/// The integer type of the same width as `ty` when it is a 32- or 64-bit integer or float.
///
/// SAFETY: `ty` is a valid type.
unsafe fn integer_of(ty: LLVMTypeRef) -> Option<LLVMTypeRef> {
    unsafe {
        let context = LLVMGetTypeContext(ty);
        match LLVMGetTypeKind(ty) {
            LLVMTypeKind::LLVMIntegerTypeKind => matches!(LLVMGetIntTypeWidth(ty), 32 | 64).then_some(ty),
            LLVMTypeKind::LLVMFloatTypeKind => Some(LLVMInt32TypeInContext(context)),
            LLVMTypeKind::LLVMDoubleTypeKind => Some(LLVMInt64TypeInContext(context)),
            _ => None,
        }
    }
}

/// Rewrites `instruction` when it is an atomic load or store that can be rewritten.
///
/// SAFETY: `builder` and `instruction` are valid and of one context.
unsafe fn rewrite(builder: LLVMBuilderRef, instruction: LLVMValueRef) {
    unsafe {
        let opcode = LLVMGetInstructionOpcode(instruction);
        if !matches!(opcode, LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore)
            || LLVMGetOrdering(instruction) == LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        {
            return;
        }
        let name = c"".as_ptr();
        let ordering = LLVMGetOrdering(instruction);
        let scope = LLVMGetAtomicSyncScopeID(instruction);
        let alignment = LLVMGetAlignment(instruction);
        let volatile = LLVMGetVolatile(instruction);
        LLVMPositionBuilderBefore(builder, instruction);
        let finish = |atomic: LLVMValueRef| {
            LLVMSetAtomicSyncScopeID(atomic, scope);
            LLVMSetAlignment(atomic, alignment);
            LLVMSetVolatile(atomic, volatile);
        };
        if opcode == LLVMOpcode::LLVMLoad {
            let value_type = LLVMTypeOf(instruction);
            let Some(integer) = integer_of(value_type) else { return };
            let pointer = LLVMGetOperand(instruction, 0);
            let zero = LLVMConstInt(integer, 0, 0);
            let atomic =
                LLVMBuildAtomicRMW(builder, LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpOr, pointer, zero, ordering, 0);
            finish(atomic);
            let value =
                if integer == value_type { atomic } else { LLVMBuildBitCast(builder, atomic, value_type, name) };
            LLVMReplaceAllUsesWith(instruction, value);
        } else {
            let value = LLVMGetOperand(instruction, 0);
            let pointer = LLVMGetOperand(instruction, 1);
            let value_type = LLVMTypeOf(value);
            let Some(integer) = integer_of(value_type) else { return };
            let value = if integer == value_type { value } else { LLVMBuildBitCast(builder, value, integer, name) };
            let atomic =
                LLVMBuildAtomicRMW(builder, LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpXchg, pointer, value, ordering, 0);
            finish(atomic);
        }
        LLVMInstructionEraseFromParent(instruction);
    }
}
