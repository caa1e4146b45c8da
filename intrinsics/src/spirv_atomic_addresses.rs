//! A rewrite of the optimised module before SPIR-V code generation: the address of every atomic
//! read-modify-write and compare-and-swap becomes an instruction instead of a constant
//! expression.
//!
//! LLVM 22's SPIR-V back end miscompiles an `atomicrmw` or `cmpxchg` whose pointer operand is a
//! constant-expression `getelementptr` (a PTX atomic at a constant offset into a variable,
//! `atom.global.add.u32 %r, [state+76], 1`, which the optimiser folds to
//! `getelementptr (i8, ptr addrspace(1) @state, i64 76)`), when the atomic is outside the
//! entry block and the code generator's optimisation level is above 0: its pointer-type
//! inference gives the constant expression the atomic's value type (`i32`, or `cmpxchg`'s
//! `{ i32, i1 }`) as element type, and the `OpInBoundsPtrAccessChain` it emits then counts the
//! byte offset in units of that type (76 * 4 or 76 * 8 bytes), out of bounds. Offsets that are
//! multiples of the element size are as wrong, and a typed `getelementptr` or an
//! `inttoptr (add (ptrtoint ..))` is first canonicalised to the byte form. Loads and stores get
//! the right address, and so does an atomic on a `getelementptr` instruction: that is the form
//! built here, just before the atomic (the code generator runs no constant folding that would
//! turn it back into a constant expression).

use inkwell::module::Module;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::ptr::null_mut;

use crate::Unsupported;

/// Rewrites the pointer operand of every `atomicrmw` and `cmpxchg` of `module` that is a
/// constant expression into instructions computing the same address.
pub fn materialize_atomic_addresses(module: &Module<'_>) -> Result<(), Unsupported> {
    let module = module.as_mut_ptr();
    // SAFETY: the module is alive for this call; the walk only inserts instructions before the
    // one it looks at and replaces operands.
    unsafe {
        let builder = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
        let result = rewrite_functions(module, builder);
        LLVMDisposeBuilder(builder);
        result
    }
}

/// SAFETY: `module` and `builder` are valid and of one context.
unsafe fn rewrite_functions(module: LLVMModuleRef, builder: LLVMBuilderRef) -> Result<(), Unsupported> {
    unsafe {
        for instruction in crate::module_instructions::module_instructions(module) {
            if let Some(pointer_operand) = atomic_pointer_operand(instruction) {
                let pointer = LLVMGetOperand(instruction, pointer_operand);
                if !LLVMIsAConstantExpr(pointer).is_null() {
                    LLVMPositionBuilderBefore(builder, instruction);
                    let materialized = materialize(builder, pointer)?;
                    LLVMSetOperand(instruction, pointer_operand, materialized);
                }
            }
        }
        Ok(())
    }
}

/// The index of the pointer operand of an `atomicrmw` or `cmpxchg`, the atomics that the back
/// end miscompiles (loads and stores, atomic or not, come out right).
///
/// SAFETY: `instruction` is a valid instruction.
unsafe fn atomic_pointer_operand(instruction: LLVMValueRef) -> Option<u32> {
    unsafe {
        match LLVMGetInstructionOpcode(instruction) {
            LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => Some(0),
            _ => None,
        }
    }
}

/// Builds `constant` as instructions at the builder's position: each constant expression among
/// its operands (a `getelementptr` on an `addrspacecast`, an `inttoptr` of an `add`) becomes an
/// instruction too, so that no constant expression that computes an address is left.
///
/// SAFETY: `builder` is positioned in a function; `constant` is a valid constant.
unsafe fn materialize(builder: LLVMBuilderRef, constant: LLVMValueRef) -> Result<LLVMValueRef, Unsupported> {
    unsafe {
        if LLVMIsAConstantExpr(constant).is_null() {
            return Ok(constant);
        }
        let opcode = LLVMGetConstOpcode(constant);
        let operand_count = u32::try_from(LLVMGetNumOperands(constant)).unwrap_or(0);
        let mut operands = Vec::with_capacity(operand_count as usize);
        for index in 0..operand_count {
            operands.push(materialize(builder, LLVMGetOperand(constant, index))?);
        }
        let name = c"".as_ptr();
        // LLVM's builder folds an instruction whose operands are all constants back into a constant
        // expression, so the first operand is built from a placeholder and set afterwards. (A
        // `getelementptr`'s indices stay constants: a structure's field index must be one.)
        let first = *operands.first().ok_or_else(|| unexpected(opcode))?;
        let placeholder = LLVMBuildFreeze(builder, first, name);
        operands[0] = placeholder;
        let built = match opcode {
            LLVMOpcode::LLVMGetElementPtr => {
                let source_type = LLVMGetGEPSourceElementType(constant);
                let indices = &mut operands[1..];
                let count = u32::try_from(indices.len()).map_err(|_| unexpected(opcode))?;
                let gep = LLVMBuildGEP2(builder, source_type, placeholder, indices.as_mut_ptr(), count, name);
                LLVMGEPSetNoWrapFlags(gep, LLVMGEPGetNoWrapFlags(constant));
                gep
            }
            LLVMOpcode::LLVMAddrSpaceCast
            | LLVMOpcode::LLVMBitCast
            | LLVMOpcode::LLVMIntToPtr
            | LLVMOpcode::LLVMPtrToInt
            | LLVMOpcode::LLVMTrunc => LLVMBuildCast(builder, opcode, placeholder, LLVMTypeOf(constant), name),
            LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub | LLVMOpcode::LLVMXor | LLVMOpcode::LLVMMul => match operands[..]
            {
                [left, right] => LLVMBuildBinOp(builder, opcode, left, right, name),
                _ => null_mut(),
            },
            // Other constant expressions compute no address that an atomic could be given.
            _ => null_mut(),
        };
        if built.is_null() || LLVMIsAInstruction(built).is_null() {
            LLVMInstructionEraseFromParent(placeholder);
            return match opcode {
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMAddrSpaceCast
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMIntToPtr
                | LLVMOpcode::LLVMPtrToInt
                | LLVMOpcode::LLVMTrunc
                | LLVMOpcode::LLVMAdd
                | LLVMOpcode::LLVMSub
                | LLVMOpcode::LLVMXor
                | LLVMOpcode::LLVMMul => Err(unexpected(opcode)),
                _ => Ok(constant),
            };
        }
        LLVMSetOperand(built, 0, first);
        LLVMInstructionEraseFromParent(placeholder);
        Ok(built)
    }
}

fn unexpected(opcode: LLVMOpcode) -> Unsupported {
    Unsupported { what: format!("an atomic's address computed by a constant expression ({opcode:?})") }
}
