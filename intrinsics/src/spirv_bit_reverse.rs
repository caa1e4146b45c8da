//! A rewrite of the optimised module before SPIR-V code generation: `llvm.bitreverse` on an
//! integer narrower than a SPIR-V integer type (`i2`, `i7`, ...) becomes a reversal of the next
//! 8-, 16-, 32- or 64-bit width shifted down.
//!
//! LLVM's optimiser forms such calls from shift-and-mask sequences (Triton's lane swizzles
//! `(x >> 1 & 1) | (x << 1 & 2)` become `llvm.bitreverse.i2`), and LLVM 22's SPIR-V back end
//! widens the operand to `i8` and emits `OpBitReverse` on the `i8`: the reversed bits land in
//! bits 6 and 7 instead of 0 and 1, and the `zext` after it reads 0. Reversing the widened value
//! and shifting it right by the difference of the widths gives the narrow reversal.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// Rewrites every call of `llvm.bitreverse.iN` in `module` whose `N` is not 8, 16, 32 or 64.
pub fn widen_narrow_bit_reversals(module: &inkwell::module::Module<'_>) {
    let module = module.as_mut_ptr();
    // SAFETY: the module is alive for this call; the walk collects the calls first and then
    // replaces each one, so no list is changed while it is walked.
    unsafe {
        let context = LLVMGetModuleContext(module);
        let builder = LLVMCreateBuilderInContext(context);
        let calls = narrow_bit_reversal_calls(module);
        let mut declarations: Vec<LLVMValueRef> = calls.iter().map(|&call| LLVMGetCalledValue(call)).collect();
        declarations.sort_unstable();
        declarations.dedup();
        for call in calls {
            rewrite(module, builder, call);
        }
        LLVMDisposeBuilder(builder);
        // The narrow declarations, now unused, would still be emitted.
        for declaration in declarations {
            if !LLVMGetFirstUse(declaration).is_null() || LLVMIsAFunction(declaration).is_null() {
                continue;
            }
            LLVMDeleteFunction(declaration);
        }
    }
}

/// The width a SPIR-V integer of at least `bits` bits has.
fn widened(bits: u32) -> u32 {
    bits.next_power_of_two().max(8)
}

/// The calls of a narrow `llvm.bitreverse` (scalar operands only: the optimiser forms these from
/// scalar code).
///
/// SAFETY: `module` is valid.
unsafe fn narrow_bit_reversal_calls(module: LLVMModuleRef) -> Vec<LLVMValueRef> {
    unsafe {
        let mut calls = Vec::new();
        let mut function = LLVMGetFirstFunction(module);
        while !function.is_null() {
            let mut length = 0usize;
            let name = LLVMGetValueName2(function, &mut length);
            let name = std::slice::from_raw_parts(name.cast::<u8>(), length);
            let return_type = LLVMGetReturnType(LLVMGlobalGetValueType(function));
            let narrow = name.starts_with(b"llvm.bitreverse.i")
                && LLVMGetTypeKind(return_type) == llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
                && widened(LLVMGetIntTypeWidth(return_type)) != LLVMGetIntTypeWidth(return_type);
            if narrow {
                let mut user = LLVMGetFirstUse(function);
                while !user.is_null() {
                    let call = LLVMGetUser(user);
                    if LLVMGetInstructionOpcode(call) == LLVMOpcode::LLVMCall && LLVMGetCalledValue(call) == function {
                        calls.push(call);
                    }
                    user = LLVMGetNextUse(user);
                }
            }
            function = LLVMGetNextFunction(function);
        }
        calls
    }
}

/// Replaces `call` (of `llvm.bitreverse.iN`) by `lshr(bitreverse.iW(x), W - N)` on a `W`-bit
/// `x` whose low `N` bits are the operand's: the operand's `trunc` source itself where it is one
/// (the back end also mistranslates arithmetic on the narrow type, so none is added), else its
/// `zext`. A `zext` of the result takes the wide value directly (its high bits are 0).
///
/// SAFETY: `module` and `builder` are valid and of one context; `call` is a call in `module` of a
/// narrow `llvm.bitreverse`.
unsafe fn rewrite(module: LLVMModuleRef, builder: LLVMBuilderRef, call: LLVMValueRef) {
    unsafe {
        let context = LLVMGetModuleContext(module);
        let narrow_type = LLVMTypeOf(call);
        let narrow_bits = LLVMGetIntTypeWidth(narrow_type);
        let wide_bits = widened(narrow_bits);
        let wide_type = LLVMIntTypeInContext(context, wide_bits);
        let name = std::ffi::CString::new(format!("llvm.bitreverse.i{wide_bits}")).unwrap_or_default();
        let mut parameter = wide_type;
        let function_type = LLVMFunctionType(wide_type, &mut parameter, 1, 0);
        let declared = LLVMGetNamedFunction(module, name.as_ptr());
        let function =
            if declared.is_null() { LLVMAddFunction(module, name.as_ptr(), function_type) } else { declared };
        LLVMPositionBuilderBefore(builder, call);
        let empty = c"".as_ptr();
        let operand = LLVMGetOperand(call, 0);
        let is_trunc =
            !LLVMIsAInstruction(operand).is_null() && LLVMGetInstructionOpcode(operand) == LLVMOpcode::LLVMTrunc;
        let narrow_source = if is_trunc { LLVMGetOperand(operand, 0) } else { operand };
        // Zero-extends or truncates, whichever the widths ask.
        let mut source = LLVMBuildIntCast2(builder, narrow_source, wide_type, 0, empty);
        let reversed = LLVMBuildCall2(builder, function_type, function, &mut source, 1, empty);
        let shift = LLVMConstInt(wide_type, u64::from(wide_bits - narrow_bits), 0);
        let shifted = LLVMBuildLShr(builder, reversed, shift, empty);
        // The result's zero extensions read the wide value; any other user gets it truncated.
        let mut extensions = Vec::new();
        let mut user = LLVMGetFirstUse(call);
        while !user.is_null() {
            let instruction = LLVMGetUser(user);
            if LLVMGetInstructionOpcode(instruction) == LLVMOpcode::LLVMZExt {
                extensions.push(instruction);
            }
            user = LLVMGetNextUse(user);
        }
        for extension in extensions {
            LLVMPositionBuilderBefore(builder, extension);
            let target_type = LLVMTypeOf(extension);
            let target_bits = LLVMGetIntTypeWidth(target_type);
            let replacement = match target_bits.cmp(&wide_bits) {
                std::cmp::Ordering::Greater => LLVMBuildZExt(builder, shifted, target_type, empty),
                std::cmp::Ordering::Less => LLVMBuildTrunc(builder, shifted, target_type, empty),
                std::cmp::Ordering::Equal => shifted,
            };
            LLVMReplaceAllUsesWith(extension, replacement);
            LLVMInstructionEraseFromParent(extension);
        }
        if LLVMGetFirstUse(call).is_null() {
            LLVMInstructionEraseFromParent(call);
        } else {
            LLVMPositionBuilderBefore(builder, call);
            let narrow = LLVMBuildTrunc(builder, shifted, narrow_type, empty);
            LLVMReplaceAllUsesWith(call, narrow);
            LLVMInstructionEraseFromParent(call);
        }
        if !LLVMIsAInstruction(operand).is_null() && LLVMGetFirstUse(operand).is_null() {
            LLVMInstructionEraseFromParent(operand);
        }
    }
}
