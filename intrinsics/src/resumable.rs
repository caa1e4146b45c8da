//! CPU threads that wait as LLVM switched-resume coroutines.
//!
//! A kernel whose threads meet at barriers or warp collectives cannot run its threads one
//! after another. When every such meeting point is in the kernel body (no called `.func`
//! waits), the body becomes an LLVM coroutine instead of running on a stack of its own:
//!
//! - at the top, `llvm.coro.id` and `llvm.coro.begin` on a frame that the runtime hands out
//!   (`ptxr_resumable_frame`, sized by `llvm.coro.size`), and the frame is registered with the
//!   runtime (`ptxr_resumable_started`);
//! - each call of `ptxr_barrier` (other than `bar.arrive`), `ptxr_warp_collective` or
//!   `ptxr_mbarrier_wait` becomes a call that records the wait (`ptxr_resumable_barrier` /
//!   `ptxr_resumable_warp_collective` / `ptxr_resumable_mbarrier_wait`)
//!   followed by `llvm.coro.suspend`; after resuming, `ptxr_resumable_result` gives what the
//!   call would have returned;
//! - `ret` becomes the final suspension.
//!
//! LLVM's coroutine passes (part of every optimisation level) then split the body into a ramp
//! and a resume function and keep only the values live across a suspension in the frame. The
//! runtime's scheduler (`ptxr_runtime::cooperative::resumable`) resumes each frame through
//! `ptxr.resume_thread`, a helper compiled here around `llvm.coro.resume`.
//!
//! The rewrite works on the LLVM C API directly: inkwell has no token values, and splitting a
//! block and retargeting branches need calls it does not wrap.

use std::ffi::CString;

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use ptxr_runtime::abi::{barrier_operation, runtime_function};

use crate::Unsupported;

/// What [`make_resumable`] did with a kernel body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadForm {
    /// The body never waits: its threads can run one after another.
    Independent,
    /// The body is now a presplit coroutine.
    Resumable,
    /// The body has control flow the rewrite does not handle (`indirectbr`); it keeps the
    /// stackful scheme.
    Stackful,
}

/// The name of the module's helper that resumes a thread's frame.
pub const RESUME_HELPER: &str = "ptxr.resume_thread";

/// A call at which a thread waits for others: a suspension here, a wait point of the
/// work-item loops.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitKind {
    Barrier,
    WarpCollective,
}

/// The name of the function that `call` calls directly, if any.
///
/// # Safety
///
/// `call` is a call instruction.
pub(crate) unsafe fn callee_name(call: LLVMValueRef) -> Option<String> {
    // SAFETY: per the contract; a direct callee is a function with a name.
    unsafe {
        let callee = LLVMGetCalledValue(call);
        if callee.is_null() || LLVMIsAFunction(callee).is_null() {
            return None;
        }
        let mut length = 0;
        let name = LLVMGetValueName2(callee, &mut length);
        let bytes = std::slice::from_raw_parts(name.cast::<u8>(), length);
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The wait that `call` is by its callee (`ptxr_barrier` or `ptxr_warp_collective`), whatever
/// its operands.
///
/// # Safety
///
/// `call` is a call instruction.
pub(crate) unsafe fn wait_call(call: LLVMValueRef) -> Option<WaitKind> {
    // SAFETY: per the contract.
    match unsafe { callee_name(call) }?.as_str() {
        runtime_function::WARP_COLLECTIVE => Some(WaitKind::WarpCollective),
        runtime_function::BARRIER => Some(WaitKind::Barrier),
        _ => None,
    }
}

/// Whether `call` is an `mbarrier` wait (`ptxr_mbarrier_wait`), which only coroutines
/// express: the work-item loops leave kernels with such waits to them.
///
/// # Safety
///
/// `call` is a call instruction.
pub(crate) unsafe fn is_mbarrier_wait(call: LLVMValueRef) -> bool {
    // SAFETY: per the contract.
    unsafe { callee_name(call) }.is_some_and(|name| name == runtime_function::MBARRIER_WAIT)
}

/// Where a thread suspends: a barrier or warp collective, or an `mbarrier` wait.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Suspension {
    Wait(WaitKind),
    Mbarrier,
}

/// The suspension that `instruction` is, if it is one.
///
/// # Safety
///
/// `instruction` is an instruction.
unsafe fn suspension(instruction: LLVMValueRef) -> Option<Suspension> {
    // SAFETY: per the contract.
    unsafe {
        if LLVMGetInstructionOpcode(instruction) != LLVMOpcode::LLVMCall {
            return None;
        }
        if is_mbarrier_wait(instruction) {
            return Some(Suspension::Mbarrier);
        }
        let kind = wait_call(instruction)?;
        // `bar.arrive` counts and goes on: it stays a plain call.
        let operation = LLVMGetOperand(instruction, 0);
        let arrives = kind == WaitKind::Barrier
            && !LLVMIsAConstantInt(operation).is_null()
            && LLVMConstIntGetZExtValue(operation) == u64::from(barrier_operation::ARRIVE);
        (!arrives).then_some(Suspension::Wait(kind))
    }
}

pub(crate) fn blocks(function: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut result = Vec::new();
    // SAFETY: walking a function's block list.
    unsafe {
        let mut block = LLVMGetFirstBasicBlock(function);
        while !block.is_null() {
            result.push(block);
            block = LLVMGetNextBasicBlock(block);
        }
    }
    result
}

pub(crate) fn instructions(block: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut result = Vec::new();
    // SAFETY: walking a block's instruction list.
    unsafe {
        let mut instruction = LLVMGetFirstInstruction(block);
        while !instruction.is_null() {
            result.push(instruction);
            instruction = LLVMGetNextInstruction(instruction);
        }
    }
    result
}

/// Declares (once) and calls the intrinsic `name`, overloaded on `overloads`.
///
/// # Safety
///
/// The builder is positioned in a function of `module`; the arguments fit the intrinsic.
unsafe fn call_intrinsic(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    name: &str,
    overloads: &mut [LLVMTypeRef],
    arguments: &mut [LLVMValueRef],
) -> Result<LLVMValueRef, Unsupported> {
    // SAFETY: per the contract.
    unsafe {
        let id = LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len());
        if id == 0 {
            return Err(Unsupported { what: format!("the LLVM intrinsic {name}") });
        }
        let context = LLVMGetModuleContext(module);
        let declaration = LLVMGetIntrinsicDeclaration(module, id, overloads.as_mut_ptr(), overloads.len());
        let function_type = LLVMIntrinsicGetType(context, id, overloads.as_mut_ptr(), overloads.len());
        Ok(LLVMBuildCall2(
            builder,
            function_type,
            declaration,
            arguments.as_mut_ptr(),
            arguments.len() as u32,
            c"".as_ptr(),
        ))
    }
}

/// Declares (once) and calls the runtime function `name`.
///
/// # Safety
///
/// The builder is positioned in a function of `module`; the arguments fit `function_type`.
unsafe fn call_runtime(
    module: LLVMModuleRef,
    builder: LLVMBuilderRef,
    name: &str,
    function_type: LLVMTypeRef,
    arguments: &mut [LLVMValueRef],
) -> LLVMValueRef {
    let c_name = CString::new(name).unwrap_or_default();
    // SAFETY: per the contract.
    unsafe {
        let mut function = LLVMGetNamedFunction(module, c_name.as_ptr());
        if function.is_null() {
            function = LLVMAddFunction(module, c_name.as_ptr(), function_type);
        }
        LLVMBuildCall2(builder, function_type, function, arguments.as_mut_ptr(), arguments.len() as u32, c"".as_ptr())
    }
}

/// Makes every branch to `old` go to `new` instead (`new` now holds `old`'s first part).
///
/// # Safety
///
/// Both blocks belong to `function`.
unsafe fn retarget_branches(function: LLVMValueRef, old: LLVMBasicBlockRef, new: LLVMBasicBlockRef) {
    for block in blocks(function) {
        // SAFETY: per the contract; terminators' successors are blocks of the function.
        unsafe {
            let terminator = LLVMGetBasicBlockTerminator(block);
            if terminator.is_null() {
                continue;
            }
            for index in 0..LLVMGetNumSuccessors(terminator) {
                if LLVMGetSuccessor(terminator, index) == old {
                    LLVMSetSuccessor(terminator, index, new);
                }
            }
        }
    }
}

/// Turns `body` (a kernel's per-thread function) into a presplit coroutine when it waits at
/// barriers or warp collectives (see the module documentation).
pub fn make_resumable<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    body: FunctionValue<'ctx>,
) -> Result<ThreadForm, Unsupported> {
    let function = body.as_value_ref();
    // LLVM's coroutine frames hold only fixed-size allocas ("Coroutines cannot handle non static
    // allocas yet"); `alloca`, `stacksave` and `stackrestore` anywhere in the module (a `.func`
    // may be inlined into the body) keep each thread on a stack of its own.
    if module.get_functions().any(|function| unsafe { moves_the_stack_pointer(function.as_value_ref()) }) {
        return Ok(ThreadForm::Stackful);
    }
    let mut suspensions = Vec::new();
    for block in blocks(function) {
        for instruction in instructions(block) {
            // SAFETY: `instruction` is an instruction of the body.
            let opcode = unsafe { LLVMGetInstructionOpcode(instruction) };
            if matches!(opcode, LLVMOpcode::LLVMIndirectBr | LLVMOpcode::LLVMCallBr) {
                return Ok(ThreadForm::Stackful);
            }
            // SAFETY: as above.
            if let Some(kind) = unsafe { suspension(instruction) } {
                suspensions.push((instruction, kind));
            }
        }
    }
    if suspensions.is_empty() {
        return Ok(ThreadForm::Independent);
    }
    // SAFETY: every reference below belongs to `body`, its module and its context; each block
    // keeps a terminator once the rewrite of it is done.
    unsafe { rewrite(context.raw(), module.as_mut_ptr(), function, &suspensions)? };
    Ok(ThreadForm::Resumable)
}

/// Whether `function` allocates on the stack at run time: an alloca outside the entry block or
/// of a run-time count, or a call of `llvm.stacksave`/`llvm.stackrestore`.
///
/// # Safety
///
/// `function` is a function.
unsafe fn moves_the_stack_pointer(function: LLVMValueRef) -> bool {
    let all_blocks = blocks(function);
    let entry = all_blocks.first().copied();
    all_blocks.into_iter().any(|block| {
        instructions(block).into_iter().any(|instruction| {
            // SAFETY: `instruction` is an instruction of `function`.
            unsafe {
                match LLVMGetInstructionOpcode(instruction) {
                    LLVMOpcode::LLVMAlloca => {
                        Some(block) != entry || LLVMIsAConstantInt(LLVMGetOperand(instruction, 0)).is_null()
                    }
                    LLVMOpcode::LLVMCall => {
                        let callee = LLVMGetCalledValue(instruction);
                        let mut length = 0;
                        let name = LLVMGetValueName2(callee, &mut length);
                        let name = if name.is_null() {
                            &[][..]
                        } else {
                            std::slice::from_raw_parts(name.cast::<u8>(), length)
                        };
                        name.starts_with(b"llvm.stacksave") || name.starts_with(b"llvm.stackrestore")
                    }
                    _ => false,
                }
            }
        })
    })
}

/// The rewrite of [`make_resumable`].
///
/// # Safety
///
/// `function` is a defined function of `module` in `context`; `suspensions` are its calls.
unsafe fn rewrite(
    context: LLVMContextRef,
    module: LLVMModuleRef,
    function: LLVMValueRef,
    suspensions: &[(LLVMValueRef, Suspension)],
) -> Result<(), Unsupported> {
    // SAFETY: per the contract; see the comments on each step.
    unsafe {
        let builder = LLVMCreateBuilderInContext(context);
        let i1 = LLVMInt1TypeInContext(context);
        let i8 = LLVMInt8TypeInContext(context);
        let i32 = LLVMInt32TypeInContext(context);
        let i64 = LLVMInt64TypeInContext(context);
        let pointer = LLVMPointerTypeInContext(context, 0);
        let void = LLVMVoidTypeInContext(context);
        let token_none = LLVMConstNull(LLVMTokenTypeInContext(context));
        let null = LLVMConstPointerNull(pointer);

        // The frame: after the entry block's allocas, which stay static.
        let entry = LLVMGetEntryBasicBlock(function);
        let first_other = instructions(entry)
            .into_iter()
            .find(|&instruction| LLVMGetInstructionOpcode(instruction) != LLVMOpcode::LLVMAlloca);
        match first_other {
            Some(instruction) => LLVMPositionBuilderBefore(builder, instruction),
            None => LLVMPositionBuilderAtEnd(builder, entry),
        }
        let id =
            call_intrinsic(module, builder, "llvm.coro.id", &mut [], &mut [LLVMConstInt(i32, 0, 0), null, null, null])?;
        let size = call_intrinsic(module, builder, "llvm.coro.size", &mut [i64], &mut [])?;
        let align = call_intrinsic(module, builder, "llvm.coro.align", &mut [i32], &mut [])?;
        let mut frame_parameters = [i64, i32];
        let frame_type = LLVMFunctionType(pointer, frame_parameters.as_mut_ptr(), 2, 0);
        let memory = call_runtime(module, builder, runtime_function::RESUMABLE_FRAME, frame_type, &mut [size, align]);
        let handle = call_intrinsic(module, builder, "llvm.coro.begin", &mut [], &mut [id, memory])?;
        let mut started_parameters = [pointer];
        let started_type = LLVMFunctionType(void, started_parameters.as_mut_ptr(), 1, 0);
        call_runtime(module, builder, runtime_function::RESUMABLE_STARTED, started_type, &mut [handle]);

        // The common exits: the final suspension (where `ret` went), the cleanup that a
        // destroy would run (the runtime frees frames with the block instead), and the return
        // to whoever started or resumed the thread.
        let final_block = LLVMAppendBasicBlockInContext(context, function, c"thread.final".as_ptr());
        let cleanup = LLVMAppendBasicBlockInContext(context, function, c"thread.cleanup".as_ptr());
        let leave = LLVMAppendBasicBlockInContext(context, function, c"thread.leave".as_ptr());
        let unreachable = LLVMAppendBasicBlockInContext(context, function, c"thread.resumed_after_end".as_ptr());
        for block in blocks(function) {
            let terminator = LLVMGetBasicBlockTerminator(block);
            if !terminator.is_null() && LLVMGetInstructionOpcode(terminator) == LLVMOpcode::LLVMRet {
                LLVMInstructionEraseFromParent(terminator);
                LLVMPositionBuilderAtEnd(builder, block);
                LLVMBuildBr(builder, final_block);
            }
        }
        LLVMPositionBuilderAtEnd(builder, final_block);
        let state =
            call_intrinsic(module, builder, "llvm.coro.suspend", &mut [], &mut [token_none, LLVMConstInt(i1, 1, 0)])?;
        let switch = LLVMBuildSwitch(builder, state, leave, 2);
        LLVMAddCase(switch, LLVMConstInt(i8, 0, 0), unreachable);
        LLVMAddCase(switch, LLVMConstInt(i8, 1, 0), cleanup);
        LLVMPositionBuilderAtEnd(builder, unreachable);
        LLVMBuildUnreachable(builder);
        LLVMPositionBuilderAtEnd(builder, cleanup);
        LLVMBuildBr(builder, leave);
        LLVMPositionBuilderAtEnd(builder, leave);
        call_intrinsic(module, builder, "llvm.coro.end", &mut [], &mut [handle, LLVMConstInt(i1, 0, 0), token_none])?;
        LLVMBuildRetVoid(builder);

        let mut barrier_parameters = [i32, i32, i32, i32];
        let barrier_type = LLVMFunctionType(void, barrier_parameters.as_mut_ptr(), 4, 0);
        let mut collective_parameters = [i32, i32, i64, i32, i32];
        let collective_type = LLVMFunctionType(void, collective_parameters.as_mut_ptr(), 5, 0);
        let result_type = LLVMFunctionType(i64, std::ptr::null_mut(), 0, 0);
        let mut mbarrier_parameters = [i64, i32, i32];
        let mbarrier_type = LLVMFunctionType(void, mbarrier_parameters.as_mut_ptr(), 3, 0);
        for &(call, kind) in suspensions {
            // Split the call's block before what follows the call: the head (phis, the code
            // before and the call) moves to a new block that every branch now reaches first.
            let rest = LLVMGetInstructionParent(call);
            let head = LLVMInsertBasicBlockInContext(context, rest, c"thread.wait".as_ptr());
            retarget_branches(function, rest, head);
            LLVMPositionBuilderAtEnd(builder, head);
            loop {
                let instruction = LLVMGetFirstInstruction(rest);
                LLVMInstructionRemoveFromParent(instruction);
                LLVMInsertIntoBuilder(builder, instruction);
                if instruction == call {
                    break;
                }
            }
            // Record the wait with the call's own operands, then suspend.
            let mut arguments: Vec<LLVMValueRef> =
                (0..LLVMGetNumArgOperands(call)).map(|index| LLVMGetOperand(call, index)).collect();
            let (name, record_type) = match kind {
                Suspension::Wait(WaitKind::Barrier) => (runtime_function::RESUMABLE_BARRIER, barrier_type),
                Suspension::Wait(WaitKind::WarpCollective) => {
                    (runtime_function::RESUMABLE_WARP_COLLECTIVE, collective_type)
                }
                Suspension::Mbarrier => (runtime_function::RESUMABLE_MBARRIER_WAIT, mbarrier_type),
            };
            call_runtime(module, builder, name, record_type, &mut arguments);
            let state = call_intrinsic(
                module,
                builder,
                "llvm.coro.suspend",
                &mut [],
                &mut [token_none, LLVMConstInt(i1, 0, 0)],
            )?;
            let switch = LLVMBuildSwitch(builder, state, leave, 2);
            LLVMAddCase(switch, LLVMConstInt(i8, 0, 0), rest);
            LLVMAddCase(switch, LLVMConstInt(i8, 1, 0), cleanup);

            // After resuming: the call's result, from the runtime.
            match LLVMGetFirstInstruction(rest) {
                first if !first.is_null() => LLVMPositionBuilderBefore(builder, first),
                _ => LLVMPositionBuilderAtEnd(builder, rest),
            }
            let mut no_arguments: [LLVMValueRef; 0] = [];
            let mut result =
                call_runtime(module, builder, runtime_function::RESUMABLE_RESULT, result_type, &mut no_arguments);
            let call_type = LLVMTypeOf(call);
            if call_type != i64 && LLVMGetTypeKind(call_type) == llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind {
                result = LLVMBuildTrunc(builder, result, call_type, c"".as_ptr());
            }
            LLVMReplaceAllUsesWith(call, result);
            LLVMInstructionEraseFromParent(call);
        }

        // A coroutine must not be inlined before LLVM splits it.
        let always_inline = LLVMGetEnumAttributeKindForName(c"alwaysinline".as_ptr(), "alwaysinline".len());
        LLVMRemoveEnumAttributeAtIndex(function, llvm_sys::LLVMAttributeFunctionIndex, always_inline);
        let presplit = LLVMGetEnumAttributeKindForName(c"presplitcoroutine".as_ptr(), "presplitcoroutine".len());
        let attribute = LLVMCreateEnumAttribute(context, presplit, 0);
        LLVMAddAttributeAtIndex(function, llvm_sys::LLVMAttributeFunctionIndex, attribute);
        LLVMDisposeBuilder(builder);
    }
    Ok(())
}

/// The module's `ptxr.resume_thread(frame)`: `llvm.coro.resume` as a C-ABI function that the
/// runtime can call (the frame's own resume function has LLVM's internal convention).
pub fn resume_helper<'ctx>(context: &'ctx Context, module: &Module<'ctx>) -> Result<FunctionValue<'ctx>, Unsupported> {
    if let Some(helper) = module.get_function(RESUME_HELPER) {
        return Ok(helper);
    }
    let pointer = context.ptr_type(inkwell::AddressSpace::default());
    let helper = module.add_function(
        RESUME_HELPER,
        context.void_type().fn_type(&[pointer.into()], false),
        Some(inkwell::module::Linkage::Internal),
    );
    let block = context.append_basic_block(helper, "entry");
    // SAFETY: the builder is positioned in the new helper, whose one parameter is the frame.
    unsafe {
        let builder = LLVMCreateBuilderInContext(context.raw());
        LLVMPositionBuilderAtEnd(builder, block.as_mut_ptr());
        let frame = LLVMGetParam(helper.as_value_ref(), 0);
        call_intrinsic(module.as_mut_ptr(), builder, "llvm.coro.resume", &mut [], &mut [frame])?;
        LLVMBuildRetVoid(builder);
        LLVMDisposeBuilder(builder);
    }
    Ok(helper)
}
