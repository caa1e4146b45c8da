//! The instructions of an LLVM module, listed once before a rewrite changes them, for the
//! rewrites that run just before code generation (`spirv_atomic_loads_stores.rs`,
//! `spirv_atomic_addresses.rs`): a list taken up front stays valid while the rewrite inserts
//! instructions before the one it looks at, replaces it, or erases it.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// Every instruction of every function of `module`, in order.
///
/// SAFETY: `module` is valid, and the instructions are used only while they are in it.
pub(crate) unsafe fn module_instructions(module: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut instructions = Vec::new();
    unsafe {
        let mut function = LLVMGetFirstFunction(module);
        while !function.is_null() {
            let mut block = LLVMGetFirstBasicBlock(function);
            while !block.is_null() {
                let mut instruction = LLVMGetFirstInstruction(block);
                while !instruction.is_null() {
                    instructions.push(instruction);
                    instruction = LLVMGetNextInstruction(instruction);
                }
                block = LLVMGetNextBasicBlock(block);
            }
            function = LLVMGetNextFunction(function);
        }
    }
    instructions
}
