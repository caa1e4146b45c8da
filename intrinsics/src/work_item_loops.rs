//! CPU threads that wait, as compiled loops over the block's threads between waits.
//!
//! PoCL's and CuPBoP's work-item loops, for kernels whose barriers and warp collectives all sit
//! in the kernel body. The body `NAME.thread` becomes a *step function*
//! `NAME.step(region, context, x, y, z, thread, threads, state, params...) -> next`:
//!
//! - each wait (a call of `ptxr_barrier` or `ptxr_warp_collective`) ends its block: the thread
//!   deposits the call's operands in the exchange fields of the per-thread state
//!   (`ptxr_runtime::abi::work_item_state`) and returns the wait point's number k (from 1);
//!   what follows the wait starts region k, which first reads the wait's result from the state;
//! - `ret` returns `DONE`; the entry switches on `region` to the body's start (0) or to the
//!   continuation of wait point k;
//! - values that live across a wait move from their allocas to the per-thread state, struct of
//!   arrays (slot s of thread t at `state + offset_s * threads + t * size_s`), so the loops
//!   read them contiguously: allocas whose address escapes (`.local` arrays, the matrix
//!   fragment buffer, vector registers), and every other alloca live at the entry of a region
//!   other than 0 (a backward liveness dataflow over blocks). The rest stay private allocas,
//!   which LLVM promotes to registers once the step is inlined. SSA values used outside their
//!   block (and phis) are demoted to allocas first, so that no value crosses a region entry.
//!
//! `NAME.regions(params, context, state, current, selected, region)` runs one region for the
//! block's threads: for every region a loop nest over z, y, x with the region a constant, so
//! that after inlining each loop holds that region's code alone and LLVM's loop vectoriser
//! sees a plain loop; and one loop, for the runtime's general path, over the threads whose
//! `selected` entry is set. The block entry `NAME(params, context)` hands `NAME.regions` and the
//! bytes of state per thread to `ptxr_run_work_item_block`, which completes each wait between
//! regions (`ptxr_runtime::cooperative::work_items`).
//!
//! The rewrite works on the LLVM C API, as `resumable.rs` does: moving blocks to another
//! function, splitting them and demoting values need calls inkwell does not wrap.

use std::collections::{HashMap, HashSet};
use std::ffi::CString;

use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABIAlignmentOfType, LLVMABISizeOfType, LLVMGetModuleDataLayout};
use llvm_sys::LLVMOpcode;
use ptxr_frontend::ir::ShuffleMode;
use ptxr_frontend::vocabulary::Dimension;
use ptxr_runtime::abi::{
    barrier_operation, block_context_field, runtime_function, warp_collective, work_item_state, WaitPoint,
};

use crate::declare::call_function;
use crate::resumable::{blocks, callee_name, instructions};
use crate::{KernelParameters, Site, Unsupported};

/// What [`build`] did with a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkItemForm {
    /// The body never waits: the caller builds the plain loop nest.
    Independent,
    /// The kernel's block entry now runs work-item loops.
    Loops,
    /// The body waits in a way the loops do not handle (`bar.arrive`, a barrier with a thread
    /// count, `indirectbr`, a dynamic alloca, or too much code to copy per region); nothing was
    /// changed and the caller uses coroutines.
    Unsuitable,
}

/// Above this many instructions times regions, the copies of the body (one per region before
/// LLVM prunes each to its region) would cost more compile time than coroutines.
const COPIED_INSTRUCTIONS_LIMIT: usize = 2_000_000;

#[derive(Clone, Copy, PartialEq, Eq)]
enum WaitKind {
    Barrier,
    WarpCollective,
}

/// How the region function completes a wait that every thread of the block has reached at
/// the same wait point, without returning to the runtime.
#[derive(Clone, Copy, Debug)]
enum Completion {
    /// The runtime completes it (the operands are not constants, or the collective is one the
    /// loops do not compute: `match`, `redux`, `mma`, `ldmatrix`).
    Runtime,
    /// `bar.sync` on a constant barrier: nothing to compute.
    Nothing,
    /// `bar.red` on a constant barrier: the reduction over the deposited predicates.
    BarrierReduction(u32),
    /// `shfl` of whole warps with constant lane and clamp operands.
    Shuffle { mode: ShuffleMode, b: u64, c: u64 },
    /// `vote` of whole warps.
    Vote(u32),
    /// The same result for every lane (`activemask`, `bar.warp.sync` of whole warps).
    Same(u64),
}

/// The [`Completion`] of wait `call`.
///
/// # Safety
///
/// `call` is a wait call of kind `kind`.
unsafe fn completion(call: LLVMValueRef, kind: WaitKind) -> Completion {
    // SAFETY: per the contract.
    unsafe {
        let constant = |index: u32| {
            let value = LLVMGetOperand(call, index);
            (!LLVMIsAConstantInt(value).is_null()).then(|| LLVMConstIntGetZExtValue(value))
        };
        match kind {
            WaitKind::Barrier => match (constant(0), constant(1)) {
                (Some(operation), Some(_)) if operation == u64::from(barrier_operation::SYNC) => Completion::Nothing,
                (Some(operation), Some(_)) => Completion::BarrierReduction(operation as u32),
                _ => Completion::Runtime,
            },
            WaitKind::WarpCollective => {
                let (Some(collective), Some(mask)) = (constant(0), constant(1)) else { return Completion::Runtime };
                if mask != u64::from(u32::MAX) && mask != 0 {
                    return Completion::Runtime;
                }
                let mode = match collective as u32 {
                    warp_collective::SHUFFLE_UP => ShuffleMode::Up,
                    warp_collective::SHUFFLE_DOWN => ShuffleMode::Down,
                    warp_collective::SHUFFLE_BUTTERFLY => ShuffleMode::Butterfly,
                    warp_collective::SHUFFLE_INDEX => ShuffleMode::Index,
                    warp_collective::VOTE_ALL
                    | warp_collective::VOTE_ANY
                    | warp_collective::VOTE_UNIFORM
                    | warp_collective::VOTE_BALLOT => return Completion::Vote(collective as u32),
                    warp_collective::ACTIVE_MASK => return Completion::Same(u64::from(u32::MAX)),
                    warp_collective::SYNC => return Completion::Same(0),
                    _ => return Completion::Runtime,
                };
                match (constant(3), constant(4)) {
                    (Some(b), Some(c)) => Completion::Shuffle { mode, b, c },
                    _ => Completion::Runtime,
                }
            }
        }
    }
}

fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("an LLVM builder operation ({error})") }
}

/// The waits of `function` in block order, or `None` when the loops cannot express them.
///
/// # Safety
///
/// `function` is a defined function.
unsafe fn waits_of(function: LLVMValueRef) -> Option<Vec<(LLVMValueRef, WaitKind)>> {
    let mut waits = Vec::new();
    let mut instruction_count: usize = 0;
    let entry = blocks(function).first().copied();
    for block in blocks(function) {
        for instruction in instructions(block) {
            instruction_count += 1;
            // SAFETY: `instruction` is an instruction of `function`.
            unsafe {
                match LLVMGetInstructionOpcode(instruction) {
                    LLVMOpcode::LLVMIndirectBr | LLVMOpcode::LLVMCallBr | LLVMOpcode::LLVMInvoke => return None,
                    LLVMOpcode::LLVMAlloca => {
                        let count = LLVMGetOperand(instruction, 0);
                        if Some(block) != entry || LLVMIsAConstantInt(count).is_null() {
                            return None;
                        }
                    }
                    LLVMOpcode::LLVMCall => {
                        let Some(name) = callee_name(instruction) else { continue };
                        if name == runtime_function::WARP_COLLECTIVE {
                            waits.push((instruction, WaitKind::WarpCollective));
                        } else if name == runtime_function::BARRIER {
                            let operation = LLVMGetOperand(instruction, 0);
                            let thread_count = LLVMGetOperand(instruction, 2);
                            let constant = |value: LLVMValueRef| {
                                (!LLVMIsAConstantInt(value).is_null()).then(|| LLVMConstIntGetZExtValue(value))
                            };
                            let arrives = constant(operation)
                                .is_none_or(|operation| operation == u64::from(barrier_operation::ARRIVE));
                            if arrives || constant(thread_count) != Some(0) {
                                return None;
                            }
                            waits.push((instruction, WaitKind::Barrier));
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    if instruction_count.saturating_mul(waits.len() + 2) > COPIED_INSTRUCTIONS_LIMIT {
        return None;
    }
    Some(waits)
}

/// Builds the work-item loops of kernel `name`, whose body is `site.function` (see the module
/// documentation).
pub fn build<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    parameters: &KernelParameters<'ctx>,
) -> Result<WorkItemForm, Unsupported> {
    let body = site.function;
    // SAFETY: `body` is the kernel's defined body.
    let Some(waits) = (unsafe { waits_of(body.as_value_ref()) }) else { return Ok(WorkItemForm::Unsuitable) };
    if waits.is_empty() {
        return Ok(WorkItemForm::Independent);
    }
    // SAFETY: the waits are calls of `body`.
    let completions: Vec<Completion> = waits.iter().map(|&(call, kind)| unsafe { completion(call, kind) }).collect();
    let context = site.context;
    let i32_type = context.i32_type();
    let pointer_type = context.ptr_type(AddressSpace::default());
    let mut step_parameters: Vec<BasicMetadataTypeEnum<'ctx>> = vec![
        i32_type.into(),
        pointer_type.into(),
        i32_type.into(),
        i32_type.into(),
        i32_type.into(),
        i32_type.into(),
        i32_type.into(),
        pointer_type.into(),
    ];
    step_parameters.extend(parameters.types.iter().map(|&parameter_type| BasicMetadataTypeEnum::from(parameter_type)));
    let step = site.module.add_function(
        &format!("{name}.step"),
        i32_type.fn_type(&step_parameters, false),
        Some(Linkage::Internal),
    );
    let always_inline = inkwell::attributes::Attribute::get_named_enum_kind_id("alwaysinline");
    step.add_attribute(AttributeLoc::Function, context.create_enum_attribute(always_inline, 0));
    // SAFETY: `body` and `step` belong to the module; the rewrite keeps every block terminated.
    let layout =
        unsafe { rewrite(site.module.as_mut_ptr(), body.as_value_ref(), step.as_value_ref(), &waits, &completions) };
    region_function(site, name, parameters, step, &layout.exits, &completions)?;
    block_entry(site, name, &layout)?;
    Ok(WorkItemForm::Loops)
}

/// Offsets of the step function's parameters.
mod step_parameter {
    pub const REGION: u32 = 0;
    pub const CONTEXT: u32 = 1;
    pub const THREAD: u32 = 5;
    pub const THREADS: u32 = 6;
    pub const STATE: u32 = 7;
    /// The first PTX parameter.
    pub const PTX: u32 = 8;
}

/// The address of field or slot `offset` (bytes per thread before it) of the current thread,
/// `size` bytes per thread: `state + offset * threads + thread * size`.
///
/// # Safety
///
/// The builder is positioned in `step`.
unsafe fn state_address(builder: LLVMBuilderRef, step: LLVMValueRef, offset: u64, size: u64) -> LLVMValueRef {
    // SAFETY: per the contract.
    unsafe {
        let context = LLVMGetTypeContext(LLVMTypeOf(step));
        let i8 = LLVMInt8TypeInContext(context);
        let i64 = LLVMInt64TypeInContext(context);
        let threads = LLVMBuildZExt(builder, LLVMGetParam(step, step_parameter::THREADS), i64, c"".as_ptr());
        let thread = LLVMBuildZExt(builder, LLVMGetParam(step, step_parameter::THREAD), i64, c"".as_ptr());
        let base = LLVMBuildNUWMul(builder, threads, LLVMConstInt(i64, offset, 0), c"".as_ptr());
        let within = LLVMBuildNUWMul(builder, thread, LLVMConstInt(i64, size, 0), c"".as_ptr());
        let offset = LLVMBuildNUWAdd(builder, base, within, c"".as_ptr());
        let mut indices = [offset];
        LLVMBuildInBoundsGEP2(
            builder,
            i8,
            LLVMGetParam(step, step_parameter::STATE),
            indices.as_mut_ptr(),
            1,
            c"thread.state".as_ptr(),
        )
    }
}

/// Positions the builder before `instruction`, or at the end of its block when it has none
/// after it.
///
/// # Safety
///
/// `instruction` is an instruction in a block.
unsafe fn position_after(builder: LLVMBuilderRef, instruction: LLVMValueRef) {
    // SAFETY: per the contract.
    unsafe {
        let next = LLVMGetNextInstruction(instruction);
        if next.is_null() {
            LLVMPositionBuilderAtEnd(builder, LLVMGetInstructionParent(instruction));
        } else {
            LLVMPositionBuilderBefore(builder, next);
        }
    }
}

/// The users of `value`, each once.
///
/// # Safety
///
/// `value` is a value.
unsafe fn users(value: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut result = Vec::new();
    // SAFETY: walking a value's use list.
    unsafe {
        let mut using = LLVMGetFirstUse(value);
        while !using.is_null() {
            let user = LLVMGetUser(using);
            if !result.contains(&user) {
                result.push(user);
            }
            using = LLVMGetNextUse(using);
        }
    }
    result
}

/// Replaces `old` by `new` among `user`'s operands.
///
/// # Safety
///
/// `user` uses `old`; `new` has its type.
unsafe fn replace_operand(user: LLVMValueRef, old: LLVMValueRef, new: LLVMValueRef) {
    // SAFETY: per the contract.
    unsafe {
        for index in 0..LLVMGetNumOperands(user) as u32 {
            if LLVMGetOperand(user, index) == old {
                LLVMSetOperand(user, index, new);
            }
        }
    }
}

/// What the rewrite leaves for the region function and the block entry.
struct StateLayout {
    /// Bytes of per-thread state.
    bytes_per_thread: u64,
    /// Bytes of state for the whole block, after every thread's ([`uniform_address`]).
    bytes_per_block: u64,
    /// The wait points' constant operands, indexed by wait point (entry 0 unused).
    wait_points: Vec<WaitPoint>,
    /// For each region, the one wait point (or `DONE`) that all its paths reach, if there is
    /// one: its loop then needs no `current` per thread.
    exits: Vec<Option<u32>>,
}

/// The rewrite of [`build`]: moves `body`'s blocks into `step` and turns it into the step
/// function. Returns the bytes of state per thread and the number of regions.
///
/// # Safety
///
/// `body` is a defined function of `module` with the hidden CPU parameters, `step` the empty
/// step function of the same kernel, `waits` the waits of `body`.
unsafe fn rewrite(
    module: LLVMModuleRef,
    body: LLVMValueRef,
    step: LLVMValueRef,
    waits: &[(LLVMValueRef, WaitKind)],
    completions: &[Completion],
) -> StateLayout {
    // SAFETY: per the contract; see the comments on each step.
    unsafe {
        let context = LLVMGetModuleContext(module);
        let builder = LLVMCreateBuilderInContext(context);
        let i32 = LLVMInt32TypeInContext(context);
        let i64 = LLVMInt64TypeInContext(context);
        let data_layout = LLVMGetModuleDataLayout(module);

        // The body's blocks move into the step, after its own entry; its parameters become the
        // step's (context and %tid first, the PTX parameters after the step's own).
        let step_entry = LLVMAppendBasicBlockInContext(context, step, c"step.entry".as_ptr());
        let mut last = step_entry;
        for block in blocks(body) {
            LLVMMoveBasicBlockAfter(block, last);
            last = block;
        }
        for index in 0..LLVMCountParams(body) {
            let new_index = if index < 4 { index + step_parameter::CONTEXT } else { index - 4 + step_parameter::PTX };
            let (old, new) = (LLVMGetParam(body, index), LLVMGetParam(step, new_index));
            let mut length = 0;
            let name = LLVMGetValueName2(old, &mut length);
            LLVMSetValueName2(new, name, length);
            LLVMReplaceAllUsesWith(old, new);
        }
        LLVMDeleteFunction(body);
        let body_blocks = blocks(step)[1..].to_vec();
        let start = body_blocks[0];

        // Allocas go to the step's entry, which every region passes through.
        for &block in &body_blocks {
            for instruction in instructions(block) {
                if LLVMGetInstructionOpcode(instruction) == LLVMOpcode::LLVMAlloca {
                    LLVMInstructionRemoveFromParent(instruction);
                    LLVMPositionBuilderAtEnd(builder, step_entry);
                    LLVMInsertIntoBuilder(builder, instruction);
                }
            }
        }
        let new_alloca = |value_type: LLVMTypeRef, name: &std::ffi::CStr| {
            LLVMPositionBuilderAtEnd(builder, step_entry);
            LLVMBuildAlloca(builder, value_type, name.as_ptr())
        };

        // Phis become loads of an alloca that each predecessor stores to.
        for &block in &body_blocks {
            let phis: Vec<LLVMValueRef> = instructions(block)
                .into_iter()
                .take_while(|&instruction| LLVMGetInstructionOpcode(instruction) == LLVMOpcode::LLVMPHI)
                .collect();
            let Some(&last_phi) = phis.last() else { continue };
            let mut loads = Vec::new();
            for &phi in &phis {
                let slot = new_alloca(LLVMTypeOf(phi), c"phi");
                for index in 0..LLVMCountIncoming(phi) {
                    let predecessor = LLVMGetIncomingBlock(phi, index);
                    LLVMPositionBuilderBefore(builder, LLVMGetBasicBlockTerminator(predecessor));
                    LLVMBuildStore(builder, LLVMGetIncomingValue(phi, index), slot);
                }
                loads.push((phi, slot));
            }
            position_after(builder, last_phi);
            for (phi, slot) in loads {
                let value = LLVMBuildLoad2(builder, LLVMTypeOf(phi), slot, c"".as_ptr());
                LLVMReplaceAllUsesWith(phi, value);
                LLVMInstructionEraseFromParent(phi);
            }
        }

        // Addresses of state that only the step's own loads and stores reach (see
        // `mark_private_state`).
        let mut private_addresses = HashSet::new();
        // Entry 0 stands for region 0, which no thread waits at.
        let mut wait_points = vec![WaitPoint::default()];

        // Each wait ends its block: deposit the operands, return the wait point. What followed
        // it starts the wait point's region, with the result read from the state.
        let mut region_starts = Vec::new();
        for (index, &(call, kind)) in waits.iter().enumerate() {
            let region = index as u64 + 1;
            let block = LLVMGetInstructionParent(call);
            let name = CString::new(format!("region.{region}")).unwrap_or_default();
            let resume = LLVMAppendBasicBlockInContext(context, step, name.as_ptr());
            LLVMMoveBasicBlockAfter(resume, block);
            LLVMPositionBuilderAtEnd(builder, resume);
            while !LLVMGetNextInstruction(call).is_null() {
                let instruction = LLVMGetNextInstruction(call);
                LLVMInstructionRemoveFromParent(instruction);
                LLVMInsertIntoBuilder(builder, instruction);
            }
            region_starts.push(resume);

            LLVMPositionBuilderBefore(builder, call);
            let operand = |index: u32| LLVMGetOperand(call, index);
            let (kind_value, mask, a, b, c) = match kind {
                WaitKind::Barrier => {
                    // (operation, barrier, thread count, predicate)
                    let kind_value = LLVMBuildAdd(
                        builder,
                        operand(0),
                        LLVMConstInt(i32, u64::from(work_item_state::BARRIER_KIND), 0),
                        c"".as_ptr(),
                    );
                    let predicate = LLVMBuildZExt(builder, operand(3), i64, c"".as_ptr());
                    (kind_value, operand(1), predicate, operand(2), LLVMConstInt(i32, 0, 0))
                }
                // (kind, member mask, a, b, c)
                WaitKind::WarpCollective => (operand(0), operand(1), operand(2), operand(3), operand(4)),
            };
            // Operands that are constants go to the wait point's table instead of the state,
            // except the `a` that a completion in the region function reads.
            let reads_a = matches!(
                completions[index],
                Completion::Shuffle { .. } | Completion::Vote(_) | Completion::BarrierReduction(_)
            );
            let mut point = WaitPoint::default();
            for (value, offset, size, flag) in [
                (kind_value, work_item_state::KIND, 4, work_item_state::CONSTANT_KIND),
                (mask, work_item_state::MASK, 4, work_item_state::CONSTANT_MASK),
                (a, work_item_state::A, 8, work_item_state::CONSTANT_A),
                (b, work_item_state::B, 4, work_item_state::CONSTANT_B),
                (c, work_item_state::C, 4, work_item_state::CONSTANT_C),
            ] {
                let kept = flag == work_item_state::CONSTANT_A && reads_a;
                if !LLVMIsAConstantInt(value).is_null() && !kept {
                    let constant = LLVMConstIntGetZExtValue(value);
                    match flag {
                        work_item_state::CONSTANT_KIND => point.kind = constant as u32,
                        work_item_state::CONSTANT_MASK => point.mask = constant as u32,
                        work_item_state::CONSTANT_A => point.a = constant,
                        work_item_state::CONSTANT_B => point.b = constant as u32,
                        _ => point.c = constant as u32,
                    }
                    point.constant |= flag;
                    continue;
                }
                let address = state_address(builder, step, offset, size);
                private_addresses.insert(address);
                LLVMBuildStore(builder, value, address);
            }
            wait_points.push(point);
            LLVMBuildRet(builder, LLVMConstInt(i32, region, 0));

            match LLVMGetFirstInstruction(resume) {
                first if !first.is_null() => LLVMPositionBuilderBefore(builder, first),
                _ => LLVMPositionBuilderAtEnd(builder, resume),
            }
            let address = state_address(builder, step, work_item_state::RESULT, 8);
            private_addresses.insert(address);
            let mut result = LLVMBuildLoad2(builder, i64, address, c"wait.result".as_ptr());
            let call_type = LLVMTypeOf(call);
            if call_type != i64 {
                result = LLVMBuildTrunc(builder, result, call_type, c"".as_ptr());
            }
            LLVMReplaceAllUsesWith(call, result);
            LLVMInstructionEraseFromParent(call);
        }

        // `ret` ends the thread.
        let done = LLVMConstInt(i32, u64::from(work_item_state::DONE), 0);
        for block in blocks(step) {
            let terminator = LLVMGetBasicBlockTerminator(block);
            if !terminator.is_null()
                && LLVMGetInstructionOpcode(terminator) == LLVMOpcode::LLVMRet
                && LLVMGetNumOperands(terminator) == 0
            {
                LLVMPositionBuilderBefore(builder, terminator);
                LLVMBuildRet(builder, done);
                LLVMInstructionEraseFromParent(terminator);
            }
        }

        // Values used outside their block go through allocas, so that none crosses a region
        // entry; the allocas that do not live across a wait are promoted back by LLVM.
        for block in blocks(step).into_iter().skip(1) {
            for instruction in instructions(block) {
                let value_type = LLVMTypeOf(instruction);
                if LLVMGetTypeKind(value_type) == llvm_sys::LLVMTypeKind::LLVMVoidTypeKind {
                    continue;
                }
                let outside: Vec<LLVMValueRef> =
                    users(instruction).into_iter().filter(|&user| LLVMGetInstructionParent(user) != block).collect();
                if outside.is_empty() {
                    continue;
                }
                let slot = new_alloca(value_type, c"demoted");
                position_after(builder, instruction);
                LLVMBuildStore(builder, instruction, slot);
                for user in outside {
                    LLVMPositionBuilderBefore(builder, user);
                    let value = LLVMBuildLoad2(builder, value_type, slot, c"".as_ptr());
                    replace_operand(user, instruction, value);
                }
            }
        }

        // The entry: to the body's start or to a wait point's continuation.
        let regions = waits.len() as u32 + 1;
        let finished = LLVMAppendBasicBlockInContext(context, step, c"step.done".as_ptr());
        LLVMPositionBuilderAtEnd(builder, finished);
        LLVMBuildRet(builder, done);
        LLVMPositionBuilderAtEnd(builder, step_entry);
        let switch = LLVMBuildSwitch(builder, LLVMGetParam(step, step_parameter::REGION), finished, regions);
        LLVMAddCase(switch, LLVMConstInt(i32, 0, 0), start);
        for (index, &resume) in region_starts.iter().enumerate() {
            LLVMAddCase(switch, LLVMConstInt(i32, index as u64 + 1, 0), resume);
        }

        let (bytes_per_thread, bytes_per_block) =
            move_to_state(builder, step, step_entry, &region_starts, data_layout, &mut private_addresses);
        mark_private_state(context, step, &private_addresses);
        LLVMDisposeBuilder(builder);
        let exits =
            std::iter::once(start).chain(region_starts.iter().copied()).map(|block| single_exit(block)).collect();
        StateLayout { bytes_per_thread, bytes_per_block, wait_points, exits }
    }
}

/// Moves the allocas that must survive a wait into the per-thread state; returns the bytes of
/// state per thread.
///
/// # Safety
///
/// `step` is the step function being built, `entry` its entry block holding every alloca,
/// `region_starts` the continuations of its waits.
unsafe fn move_to_state(
    builder: LLVMBuilderRef,
    step: LLVMValueRef,
    entry: LLVMBasicBlockRef,
    region_starts: &[LLVMBasicBlockRef],
    data_layout: llvm_sys::target::LLVMTargetDataRef,
    private_addresses: &mut HashSet<LLVMValueRef>,
) -> (u64, u64) {
    // SAFETY: per the contract.
    unsafe {
        let allocas: Vec<LLVMValueRef> = instructions(entry)
            .into_iter()
            .filter(|&instruction| LLVMGetInstructionOpcode(instruction) == LLVMOpcode::LLVMAlloca)
            .collect();
        let index_of: HashMap<LLVMValueRef, usize> =
            allocas.iter().enumerate().map(|(index, &alloca)| (alloca, index)).collect();
        let size_of = |value_type: LLVMTypeRef| LLVMABISizeOfType(data_layout, value_type);

        // An alloca used other than as the address of a load or store escapes: it goes to the
        // state whatever its liveness (the runtime may read it at the wait, as the matrix
        // collectives do).
        let mut escapes = vec![false; allocas.len()];
        for (index, &alloca) in allocas.iter().enumerate() {
            for user in users(alloca) {
                let plain = match LLVMGetInstructionOpcode(user) {
                    LLVMOpcode::LLVMLoad => true,
                    LLVMOpcode::LLVMStore => LLVMGetOperand(user, 0) != alloca,
                    _ => false,
                };
                escapes[index] |= !plain;
            }
        }
        let mut to_state = escapes.clone();

        // Liveness per block over the allocas (a bit each): live_in = gen ∪ (live_out ∖ kill).
        let function_blocks = blocks(step);
        let block_index: HashMap<LLVMBasicBlockRef, usize> =
            function_blocks.iter().enumerate().map(|(index, &block)| (block, index)).collect();
        let words = allocas.len().div_ceil(64).max(1);
        let mut generated = vec![vec![0u64; words]; function_blocks.len()];
        let mut killed = vec![vec![0u64; words]; function_blocks.len()];
        let mut successors = vec![Vec::new(); function_blocks.len()];
        for (position, &block) in function_blocks.iter().enumerate() {
            for instruction in instructions(block) {
                let (address, kills) = match LLVMGetInstructionOpcode(instruction) {
                    LLVMOpcode::LLVMLoad => (LLVMGetOperand(instruction, 0), false),
                    LLVMOpcode::LLVMStore => (LLVMGetOperand(instruction, 1), true),
                    _ => continue,
                };
                let Some(&index) = index_of.get(&address) else { continue };
                let (word, bit) = (index / 64, 1u64 << (index % 64));
                if kills {
                    let stored = size_of(LLVMTypeOf(LLVMGetOperand(instruction, 0)));
                    if stored >= size_of(LLVMGetAllocatedType(allocas[index])) {
                        killed[position][word] |= bit;
                    }
                } else if killed[position][word] & bit == 0 {
                    generated[position][word] |= bit;
                }
            }
            let terminator = LLVMGetBasicBlockTerminator(block);
            if !terminator.is_null() {
                for successor in 0..LLVMGetNumSuccessors(terminator) {
                    if let Some(&target) = block_index.get(&LLVMGetSuccessor(terminator, successor)) {
                        successors[position].push(target);
                    }
                }
            }
        }
        let mut live_in = generated.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for position in (0..function_blocks.len()).rev() {
                for word in 0..words {
                    let live_out = successors[position].iter().fold(0u64, |live, &next| live | live_in[next][word]);
                    let new = generated[position][word] | (live_out & !killed[position][word]);
                    if new != live_in[position][word] {
                        live_in[position][word] = new;
                        changed = true;
                    }
                }
            }
        }
        for resume in region_starts {
            let live = &live_in[block_index[resume]];
            for (index, flag) in to_state.iter_mut().enumerate() {
                *flag |= live[index / 64] & (1 << (index % 64)) != 0;
            }
        }

        // Slots, the most aligned first, after the exchange fields.
        let mut chosen: Vec<(LLVMValueRef, u64, u64, bool)> = allocas
            .iter()
            .zip(&to_state)
            .zip(&escapes)
            .filter(|((_, &flag), _)| flag)
            .map(|((&alloca, _), &escaping)| {
                let allocated = LLVMGetAllocatedType(alloca);
                let count = LLVMConstIntGetZExtValue(LLVMGetOperand(alloca, 0)).max(1);
                let align = u64::from(LLVMGetAlignment(alloca).max(LLVMABIAlignmentOfType(data_layout, allocated)));
                let size = (size_of(allocated) * count).next_multiple_of(align).max(align);
                (alloca, size, align, !escaping)
            })
            .collect();
        chosen.sort_by_key(|&(_, _, align, _)| std::cmp::Reverse(align));
        // A slot stored once with a value that every thread computes alike (from the kernel's
        // parameters and the block's context) is kept once per block, not per thread.
        let mut uniform = Uniformity { step, memo: HashMap::new() };
        let (uniform_slots, chosen): (Vec<_>, Vec<_>) =
            chosen.into_iter().partition(|&(alloca, _, _, private)| private && uniform.single_store(alloca));
        let mut offset = work_item_state::SLOTS;
        for (alloca, size, align, private) in chosen {
            offset = offset.next_multiple_of(align);
            for user in users(alloca) {
                LLVMPositionBuilderBefore(builder, user);
                let address = state_address(builder, step, offset, size);
                if private {
                    private_addresses.insert(address);
                }
                replace_operand(user, alloca, address);
            }
            LLVMInstructionEraseFromParent(alloca);
            offset += size;
        }
        let bytes_per_thread = offset.next_multiple_of(8);
        let mut block_offset: u64 = 0;
        for (alloca, size, align, _) in uniform_slots {
            block_offset = block_offset.next_multiple_of(align.max(8));
            for user in users(alloca) {
                LLVMPositionBuilderBefore(builder, user);
                let address = uniform_address(builder, step, bytes_per_thread, block_offset);
                private_addresses.insert(address);
                replace_operand(user, alloca, address);
            }
            LLVMInstructionEraseFromParent(alloca);
            block_offset += size;
        }
        (bytes_per_thread, block_offset.next_multiple_of(8))
    }
}

/// The address of byte `offset` of the block's own state, after every thread's
/// (`bytes_per_thread` each, 8-byte aligned): `state + bytes_per_thread * threads + offset`.
///
/// # Safety
///
/// The builder is positioned in `step`.
unsafe fn uniform_address(
    builder: LLVMBuilderRef,
    step: LLVMValueRef,
    bytes_per_thread: u64,
    offset: u64,
) -> LLVMValueRef {
    // SAFETY: per the contract.
    unsafe {
        let context = LLVMGetTypeContext(LLVMTypeOf(step));
        let i8 = LLVMInt8TypeInContext(context);
        let i64 = LLVMInt64TypeInContext(context);
        let threads = LLVMBuildZExt(builder, LLVMGetParam(step, step_parameter::THREADS), i64, c"".as_ptr());
        let base = LLVMBuildNUWMul(builder, threads, LLVMConstInt(i64, bytes_per_thread, 0), c"".as_ptr());
        let offset = LLVMBuildNUWAdd(builder, base, LLVMConstInt(i64, offset, 0), c"".as_ptr());
        let mut indices = [offset];
        LLVMBuildInBoundsGEP2(
            builder,
            i8,
            LLVMGetParam(step, step_parameter::STATE),
            indices.as_mut_ptr(),
            1,
            c"block.state".as_ptr(),
        )
    }
}

/// Which values of the step every thread of a block computes alike: constants, the block's
/// parameters (context, PTX parameters), loads from the context, pure operations on such
/// values, and loads of allocas stored once with such a value.
struct Uniformity {
    step: LLVMValueRef,
    /// Known answers; `false` also while a value is being decided, which breaks cycles.
    memo: HashMap<LLVMValueRef, bool>,
}

impl Uniformity {
    /// Whether `alloca` has exactly one store, of a uniform value, and otherwise only loads.
    ///
    /// # Safety
    ///
    /// `alloca` is an alloca of the step.
    unsafe fn single_store(&mut self, alloca: LLVMValueRef) -> bool {
        // SAFETY: per the contract.
        unsafe {
            if let Some(&known) = self.memo.get(&alloca) {
                return known;
            }
            self.memo.insert(alloca, false);
            let mut stored = None;
            for user in users(alloca) {
                match LLVMGetInstructionOpcode(user) {
                    LLVMOpcode::LLVMLoad => {}
                    LLVMOpcode::LLVMStore if stored.is_none() && LLVMGetOperand(user, 1) == alloca => {
                        stored = Some(LLVMGetOperand(user, 0));
                    }
                    _ => return false,
                }
            }
            let result = stored.is_some_and(|value| self.value(value));
            self.memo.insert(alloca, result);
            result
        }
    }

    /// Whether every thread computes `value` alike.
    ///
    /// # Safety
    ///
    /// `value` is a value of the step.
    unsafe fn value(&mut self, value: LLVMValueRef) -> bool {
        // SAFETY: per the contract.
        unsafe {
            if !LLVMIsAConstant(value).is_null() {
                return true;
            }
            if !LLVMIsAArgument(value).is_null() {
                let thread_dependent = [2, 3, 4, step_parameter::THREAD];
                return !thread_dependent.iter().any(|&index| LLVMGetParam(self.step, index) == value);
            }
            if LLVMIsAInstruction(value).is_null() {
                return false;
            }
            if let Some(&known) = self.memo.get(&value) {
                return known;
            }
            self.memo.insert(value, false);
            let result = match LLVMGetInstructionOpcode(value) {
                LLVMOpcode::LLVMLoad => {
                    let address = LLVMGetOperand(value, 0);
                    if !LLVMIsAAllocaInst(address).is_null() {
                        self.single_store(address)
                    } else {
                        self.context_address(address)
                    }
                }
                LLVMOpcode::LLVMAdd
                | LLVMOpcode::LLVMSub
                | LLVMOpcode::LLVMMul
                | LLVMOpcode::LLVMShl
                | LLVMOpcode::LLVMLShr
                | LLVMOpcode::LLVMAShr
                | LLVMOpcode::LLVMAnd
                | LLVMOpcode::LLVMOr
                | LLVMOpcode::LLVMXor
                | LLVMOpcode::LLVMTrunc
                | LLVMOpcode::LLVMZExt
                | LLVMOpcode::LLVMSExt
                | LLVMOpcode::LLVMPtrToInt
                | LLVMOpcode::LLVMIntToPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMICmp
                | LLVMOpcode::LLVMSelect
                | LLVMOpcode::LLVMFreeze => {
                    (0..LLVMGetNumOperands(value) as u32).all(|index| self.value(LLVMGetOperand(value, index)))
                }
                _ => false,
            };
            self.memo.insert(value, result);
            result
        }
    }

    /// Whether `address` points into the block's context (which no thread writes).
    ///
    /// # Safety
    ///
    /// `address` is a value of the step.
    unsafe fn context_address(&mut self, address: LLVMValueRef) -> bool {
        // SAFETY: per the contract.
        unsafe {
            if address == LLVMGetParam(self.step, step_parameter::CONTEXT) {
                return true;
            }
            if !LLVMIsAGetElementPtrInst(address).is_null() {
                let base = LLVMGetOperand(address, 0);
                return self.context_address(base)
                    && (1..LLVMGetNumOperands(address) as u32).all(|index| self.value(LLVMGetOperand(address, index)));
            }
            false
        }
    }
}

/// The value of every `ret` reachable from `start`, when they all return the same constant.
///
/// # Safety
///
/// `start` is a block of the step function, whose `ret`s all return constants.
unsafe fn single_exit(start: LLVMBasicBlockRef) -> Option<u32> {
    // SAFETY: per the contract.
    unsafe {
        let mut seen = HashSet::from([start]);
        let mut pending = vec![start];
        let mut exit = None;
        while let Some(block) = pending.pop() {
            let terminator = LLVMGetBasicBlockTerminator(block);
            if terminator.is_null() {
                return None;
            }
            if LLVMGetInstructionOpcode(terminator) == LLVMOpcode::LLVMRet {
                let value = LLVMGetOperand(terminator, 0);
                if LLVMIsAConstantInt(value).is_null() {
                    return None;
                }
                let value = LLVMConstIntGetZExtValue(value) as u32;
                if exit.is_some_and(|exit| exit != value) {
                    return None;
                }
                exit = Some(value);
            }
            for index in 0..LLVMGetNumSuccessors(terminator) {
                let next = LLVMGetSuccessor(terminator, index);
                if seen.insert(next) {
                    pending.push(next);
                }
            }
        }
        exit
    }
}

/// Tells LLVM that the step's exchange fields and register slots (`private`: state that no
/// pointer of the kernel can reach, since their addresses never escape) are apart from every
/// other memory access: scoped `noalias` metadata, so that the loops over the threads need no
/// run-time overlap checks between the state and the kernel's memory, which LLVM cannot build
/// for addresses that PTX computes as integers.
///
/// # Safety
///
/// `step` is the step function, `private` addresses computed in it.
unsafe fn mark_private_state(context: LLVMContextRef, step: LLVMValueRef, private: &HashSet<LLVMValueRef>) {
    // SAFETY: per the contract.
    unsafe {
        let mut length = 0;
        let name = LLVMGetValueName2(step, &mut length);
        let name = String::from_utf8_lossy(std::slice::from_raw_parts(name.cast::<u8>(), length)).into_owned();
        let string = |text: &str| LLVMMDStringInContext2(context, text.as_ptr().cast(), text.len());
        let mut domain_operands = [string(&format!("{name}.state"))];
        let domain = LLVMMDNodeInContext2(context, domain_operands.as_mut_ptr(), 1);
        let mut scope_operands = [string(&format!("{name}.state.private")), domain];
        let scope = LLVMMDNodeInContext2(context, scope_operands.as_mut_ptr(), 2);
        let mut list_operands = [scope];
        let list = LLVMMetadataAsValue(context, LLVMMDNodeInContext2(context, list_operands.as_mut_ptr(), 1));
        let alias_scope = LLVMGetMDKindIDInContext(context, c"alias.scope".as_ptr(), "alias.scope".len() as u32);
        let noalias = LLVMGetMDKindIDInContext(context, c"noalias".as_ptr(), "noalias".len() as u32);
        for block in blocks(step) {
            for instruction in instructions(block) {
                let address = match LLVMGetInstructionOpcode(instruction) {
                    LLVMOpcode::LLVMLoad => LLVMGetOperand(instruction, 0),
                    LLVMOpcode::LLVMStore => LLVMGetOperand(instruction, 1),
                    LLVMOpcode::LLVMCall | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => {
                        std::ptr::null_mut()
                    }
                    _ => continue,
                };
                let kind = if private.contains(&address) { alias_scope } else { noalias };
                LLVMSetMetadata(instruction, kind, list);
            }
        }
    }
}

/// `NAME.regions(params, context, state, current, selected, region)` (see the module
/// documentation).
fn region_function<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    parameters: &KernelParameters<'ctx>,
    step: FunctionValue<'ctx>,
    exits: &[Option<u32>],
    completions: &[Completion],
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let i8_type = context.i8_type();
    let pointer_type = context.ptr_type(AddressSpace::default());
    let function_type = context.void_type().fn_type(
        &[
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            i32_type.into(),
        ],
        false,
    );
    let function = site.module.add_function(&format!("{name}.regions"), function_type, Some(Linkage::Internal));
    let noalias = inkwell::attributes::Attribute::get_named_enum_kind_id("noalias");
    // The parameter array, the context, `current` and `selected` belong to the runtime: kernel
    // stores never reach them.
    for index in [0, 1, 3, 4] {
        function.add_attribute(AttributeLoc::Param(index), context.create_enum_attribute(noalias, 0));
    }
    let dereferenceable = inkwell::attributes::Attribute::get_named_enum_kind_id("dereferenceable");
    let context_bytes = std::mem::size_of::<ptxr_runtime::abi::BlockContext>() as u64;
    function.add_attribute(AttributeLoc::Param(1), context.create_enum_attribute(dereferenceable, context_bytes));
    let parameter = |index: u32| function.get_nth_param(index).ok_or_else(|| llvm_error("regions"));
    let parameter_array = parameter(0)?.into_pointer_value();
    let context_pointer = parameter(1)?.into_pointer_value();
    let state = parameter(2)?.into_pointer_value();
    let current = parameter(3)?.into_pointer_value();
    let selected = parameter(4)?.into_pointer_value();
    let region = parameter(5)?.into_int_value();
    parameter_array.set_name("params");
    context_pointer.set_name("context");
    state.set_name("state");
    current.set_name("current");
    selected.set_name("selected");
    region.set_name("region");

    let entry = context.append_basic_block(function, "entry");
    builder.position_at_end(entry);
    let region_site = Site { context, module: site.module, builder, function };
    let values = crate::cpu::load_kernel_parameters(&region_site, parameter_array, parameters)?;
    let sizes = [Dimension::X, Dimension::Y, Dimension::Z].map(|dimension| {
        crate::cpu::context_dimension(&region_site, context_pointer, block_context_field::NTID, dimension)
    });
    let [size_x, size_y, size_z] = sizes;
    let sizes = [size_x?, size_y?, size_z?];
    let threads = builder.build_int_mul(sizes[0], sizes[1], "").map_err(llvm_error)?;
    let threads = builder.build_int_mul(threads, sizes[2], "threads").map_err(llvm_error)?;
    let done = context.append_basic_block(function, "done");
    let general = context.append_basic_block(function, "selected");
    let all = context.append_basic_block(function, "all");
    let is_general = builder.build_is_not_null(selected, "").map_err(llvm_error)?;
    builder.build_conditional_branch(is_general, general, all).map_err(llvm_error)?;

    let call_step = |region: IntValue<'ctx>, thread: [IntValue<'ctx>; 3], linear: IntValue<'ctx>, record: bool| {
        let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = vec![
            region.into(),
            context_pointer.into(),
            thread[0].into(),
            thread[1].into(),
            thread[2].into(),
            linear.into(),
            threads.into(),
            state.into(),
        ];
        arguments.extend(values.iter().copied());
        let next = builder
            .build_call(step, &arguments, "next")
            .map_err(llvm_error)?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| llvm_error("step result"))?;
        if record {
            // SAFETY: `linear` is below the block's thread count, `current`'s length.
            let slot = unsafe { builder.build_in_bounds_gep(i32_type, current, &[linear], "") }.map_err(llvm_error)?;
            builder.build_store(slot, next).map_err(llvm_error)?;
        }
        Ok::<(), Unsupported>(())
    };

    // Every thread: one loop nest per region, the region a constant. After each, when every
    // thread waits at the same wait point and the wait completes here, its region follows.
    let dispatch = context.append_basic_block(function, "dispatch");
    builder.position_at_end(all);
    // A region whose paths all reach the same wait point records no `current` per thread: its
    // loop goes to `exit.r`, which completes that wait or fills `current` for the runtime.
    let mut cases = Vec::new();
    let mut single_exits = Vec::new();
    for (index, exit) in exits.iter().enumerate() {
        let block = context.append_basic_block(function, &format!("region.{index}"));
        cases.push((i32_type.const_int(index as u64, false), block));
        builder.position_at_end(block);
        let constant = i32_type.const_int(index as u64, false);
        let after = match exit {
            Some(exit) => {
                let after = context.append_basic_block(function, &format!("exit.{index}"));
                single_exits.push((after, *exit));
                after
            }
            None => dispatch,
        };
        thread_loops(site, function, sizes, after, |thread, linear| {
            call_step(constant, thread, linear, exit.is_none())
        })?;
    }
    builder.position_at_end(all);
    builder.build_switch(region, done, &cases).map_err(llvm_error)?;
    let fields = StateFields { state, threads };
    let completing = complete_in_loops(site, function, &fields, current, done, dispatch, &cases, completions)?;
    let mut fills: HashMap<u32, inkwell::basic_block::BasicBlock<'ctx>> = HashMap::new();
    for (after, exit) in single_exits {
        builder.position_at_end(after);
        let fill = match fills.get(&exit) {
            Some(&fill) => fill,
            None => {
                // Every thread stopped at `exit`, as the runtime must read.
                let fill = context.append_basic_block(function, &format!("record.{exit}"));
                builder.position_at_end(fill);
                let value = i32_type.const_int(u64::from(exit), false);
                counted_loop(site, function, threads, "record", |thread| {
                    // SAFETY: `thread` is below the thread count, `current`'s length.
                    let slot =
                        unsafe { builder.build_in_bounds_gep(i32_type, current, &[thread], "") }.map_err(llvm_error)?;
                    builder.build_store(slot, value).map_err(llvm_error)?;
                    Ok(())
                })?;
                builder.build_unconditional_branch(done).map_err(llvm_error)?;
                fills.insert(exit, fill);
                builder.position_at_end(after);
                fill
            }
        };
        let completion = completing.get(&exit).copied();
        let needs_whole_warps = exit != work_item_state::DONE
            && matches!(
                completions[exit as usize - 1],
                Completion::Shuffle { .. } | Completion::Vote(_) | Completion::Same(_)
            );
        match completion {
            Some(target) if needs_whole_warps => {
                let lanes = builder.build_and(threads, i32_type.const_int(31, false), "").map_err(llvm_error)?;
                let whole = builder
                    .build_int_compare(IntPredicate::EQ, lanes, i32_type.const_zero(), "")
                    .map_err(llvm_error)?;
                builder.build_conditional_branch(whole, target, fill).map_err(llvm_error)?;
            }
            Some(target) => {
                builder.build_unconditional_branch(target).map_err(llvm_error)?;
            }
            None => {
                builder.build_unconditional_branch(fill).map_err(llvm_error)?;
            }
        }
    }

    // The selected threads: one loop, the region a variable.
    builder.position_at_end(general);
    let loop_block = context.append_basic_block(function, "selected.thread");
    let run = context.append_basic_block(function, "selected.run");
    let next_block = context.append_basic_block(function, "selected.next");
    builder.build_unconditional_branch(loop_block).map_err(llvm_error)?;
    builder.position_at_end(loop_block);
    let linear = builder.build_phi(i32_type, "thread").map_err(llvm_error)?;
    let linear_value = linear.as_basic_value().into_int_value();
    // SAFETY: `linear` is below the block's thread count, `selected`'s length.
    let flag_address =
        unsafe { builder.build_in_bounds_gep(i8_type, selected, &[linear_value], "") }.map_err(llvm_error)?;
    let flag = builder.build_load(i8_type, flag_address, "").map_err(llvm_error)?.into_int_value();
    let chosen = builder.build_int_compare(IntPredicate::NE, flag, i8_type.const_zero(), "").map_err(llvm_error)?;
    builder.build_conditional_branch(chosen, run, next_block).map_err(llvm_error)?;
    builder.position_at_end(run);
    let x = builder.build_int_unsigned_rem(linear_value, sizes[0], "tid.x").map_err(llvm_error)?;
    let rest = builder.build_int_unsigned_div(linear_value, sizes[0], "").map_err(llvm_error)?;
    let y = builder.build_int_unsigned_rem(rest, sizes[1], "tid.y").map_err(llvm_error)?;
    let z = builder.build_int_unsigned_div(rest, sizes[1], "tid.z").map_err(llvm_error)?;
    call_step(region, [x, y, z], linear_value, true)?;
    builder.build_unconditional_branch(next_block).map_err(llvm_error)?;
    builder.position_at_end(next_block);
    let following = builder.build_int_add(linear_value, i32_type.const_int(1, false), "").map_err(llvm_error)?;
    let more = builder.build_int_compare(IntPredicate::ULT, following, threads, "").map_err(llvm_error)?;
    builder.build_conditional_branch(more, loop_block, done).map_err(llvm_error)?;
    linear.add_incoming(&[(&i32_type.const_zero(), general), (&following, next_block)]);

    builder.position_at_end(done);
    builder.build_return(None).map_err(llvm_error)?;
    Ok(())
}

/// The block's state arrays as the region function sees them.
struct StateFields<'ctx> {
    state: PointerValue<'ctx>,
    threads: IntValue<'ctx>,
}

impl<'ctx> StateFields<'ctx> {
    /// The address of exchange field `offset` (`size` bytes per thread) of thread `thread`.
    fn address(
        &self,
        site: &Site<'_, 'ctx>,
        offset: u64,
        size: u64,
        thread: IntValue<'ctx>,
    ) -> Result<PointerValue<'ctx>, Unsupported> {
        let builder = site.builder;
        let i64_type = site.context.i64_type();
        let threads = builder.build_int_z_extend(self.threads, i64_type, "").map_err(llvm_error)?;
        let thread = builder.build_int_z_extend(thread, i64_type, "").map_err(llvm_error)?;
        let base = builder.build_int_nuw_mul(threads, i64_type.const_int(offset, false), "").map_err(llvm_error)?;
        let within = builder.build_int_nuw_mul(thread, i64_type.const_int(size, false), "").map_err(llvm_error)?;
        let offset = builder.build_int_nuw_add(base, within, "").map_err(llvm_error)?;
        // SAFETY: the field lies inside the block's state.
        unsafe { builder.build_in_bounds_gep(site.context.i8_type(), self.state, &[offset], "field") }
            .map_err(llvm_error)
    }
}

/// `for index < count { body(index) }` from the builder's block (`count` at least 1); the builder
/// ends in the block after the loop.
fn counted_loop<'ctx>(
    site: &Site<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    count: IntValue<'ctx>,
    name: &str,
    mut body: impl FnMut(IntValue<'ctx>) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let start = builder.get_insert_block().ok_or_else(|| llvm_error("loop"))?;
    let header = context.append_basic_block(function, name);
    let after = context.append_basic_block(function, &format!("{name}.end"));
    builder.build_unconditional_branch(header).map_err(llvm_error)?;
    builder.position_at_end(header);
    let index = builder.build_phi(i32_type, name).map_err(llvm_error)?;
    let index_value = index.as_basic_value().into_int_value();
    body(index_value)?;
    let latch = builder.get_insert_block().ok_or_else(|| llvm_error("loop"))?;
    let next = builder.build_int_nuw_add(index_value, i32_type.const_int(1, false), "").map_err(llvm_error)?;
    let more = builder.build_int_compare(IntPredicate::ULT, next, count, "").map_err(llvm_error)?;
    builder.build_conditional_branch(more, header, after).map_err(llvm_error)?;
    index.add_incoming(&[(&i32_type.const_zero(), start), (&next, latch)]);
    builder.position_at_end(after);
    Ok(())
}

/// From `dispatch` (every thread has run its region): when every thread stopped at the same
/// wait point and that wait's [`Completion`] is not the runtime's, computes its results into
/// the state and goes on with its region (`regions[k]`); otherwise returns to the runtime
/// (`done`). Returns the block that completes each wait point that completes here.
#[allow(clippy::too_many_arguments)]
fn complete_in_loops<'ctx>(
    site: &Site<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    fields: &StateFields<'ctx>,
    current: PointerValue<'ctx>,
    done: inkwell::basic_block::BasicBlock<'ctx>,
    dispatch: inkwell::basic_block::BasicBlock<'ctx>,
    regions: &[(IntValue<'ctx>, inkwell::basic_block::BasicBlock<'ctx>)],
    completions: &[Completion],
) -> Result<HashMap<u32, inkwell::basic_block::BasicBlock<'ctx>>, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let threads = fields.threads;
    // The counters' allocas go to the entry, outside the loops.
    let entry = function.get_first_basic_block().ok_or_else(|| llvm_error("regions"))?;
    match entry.get_first_instruction() {
        Some(first) => builder.position_before(&first),
        None => builder.position_at_end(entry),
    }
    let difference = builder.build_alloca(i32_type, "difference").map_err(llvm_error)?;
    let count = builder.build_alloca(i32_type, "true_count").map_err(llvm_error)?;
    let ballot = builder.build_alloca(i32_type, "ballot").map_err(llvm_error)?;
    builder.position_at_end(dispatch);
    let first = builder.build_load(i32_type, current, "first").map_err(llvm_error)?.into_int_value();
    // Whether every thread is at `first`: an or of differences, which vectorises.
    builder.build_store(difference, i32_type.const_zero()).map_err(llvm_error)?;
    counted_loop(site, function, threads, "same", |thread| {
        // SAFETY: `thread` is below the thread count, `current`'s length.
        let address = unsafe { builder.build_in_bounds_gep(i32_type, current, &[thread], "") }.map_err(llvm_error)?;
        let value = builder.build_load(i32_type, address, "").map_err(llvm_error)?.into_int_value();
        let different = builder.build_xor(value, first, "").map_err(llvm_error)?;
        let so_far = builder.build_load(i32_type, difference, "").map_err(llvm_error)?.into_int_value();
        let so_far = builder.build_or(so_far, different, "").map_err(llvm_error)?;
        builder.build_store(difference, so_far).map_err(llvm_error)?;
        Ok(())
    })?;
    let total = builder.build_load(i32_type, difference, "").map_err(llvm_error)?.into_int_value();
    let same = builder.build_int_compare(IntPredicate::EQ, total, i32_type.const_zero(), "").map_err(llvm_error)?;
    let choose = context.append_basic_block(function, "choose");
    builder.build_conditional_branch(same, choose, done).map_err(llvm_error)?;

    builder.position_at_end(choose);
    let mut cases = Vec::new();
    let mut completing = HashMap::new();
    // In the entry, so that it dominates the completions reached from `exit.r` blocks too.
    let whole_warps = {
        let terminator = entry.get_terminator().ok_or_else(|| llvm_error("regions"))?;
        builder.position_before(&terminator);
        let lanes = builder.build_and(threads, i32_type.const_int(31, false), "").map_err(llvm_error)?;
        let whole = builder
            .build_int_compare(IntPredicate::EQ, lanes, i32_type.const_zero(), "whole_warps")
            .map_err(llvm_error)?;
        builder.position_at_end(choose);
        whole
    };
    let result_field = |thread: IntValue<'ctx>| fields.address(site, work_item_state::RESULT, 8, thread);
    let a_field = |thread: IntValue<'ctx>| fields.address(site, work_item_state::A, 8, thread);
    // The `a` and result fields never overlap: said to LLVM, so that a shuffle's loop, which
    // reads `a` at lanes it computes, needs no overlap check (which it could not build).
    let (a_scope, a_kind, other_kind) = {
        let raw = context.raw();
        // SAFETY: metadata of this context.
        unsafe {
            let name = format!("{}.a", function.get_name().to_string_lossy());
            let string = |text: &str| LLVMMDStringInContext2(raw, text.as_ptr().cast(), text.len());
            let mut domain_operands = [string(&format!("{name}.domain"))];
            let domain = LLVMMDNodeInContext2(raw, domain_operands.as_mut_ptr(), 1);
            let mut scope_operands = [string(&name), domain];
            let mut list = [LLVMMDNodeInContext2(raw, scope_operands.as_mut_ptr(), 2)];
            let list = LLVMMetadataAsValue(raw, LLVMMDNodeInContext2(raw, list.as_mut_ptr(), 1));
            let alias_scope = LLVMGetMDKindIDInContext(raw, c"alias.scope".as_ptr(), "alias.scope".len() as u32);
            let noalias = LLVMGetMDKindIDInContext(raw, c"noalias".as_ptr(), "noalias".len() as u32);
            (list, alias_scope, noalias)
        }
    };
    let load_a = |thread: IntValue<'ctx>| -> Result<IntValue<'ctx>, Unsupported> {
        let value = builder.build_load(i64_type, a_field(thread)?, "a").map_err(llvm_error)?;
        // SAFETY: `value` is a load instruction; the list is metadata of its context.
        unsafe { LLVMSetMetadata(value.as_value_ref(), a_kind, a_scope) };
        Ok(value.into_int_value())
    };
    let store_result = |thread: IntValue<'ctx>, value: IntValue<'ctx>| -> Result<(), Unsupported> {
        let store = builder.build_store(result_field(thread)?, value).map_err(llvm_error)?;
        // SAFETY: `store` is a store instruction; the list is metadata of its context.
        unsafe { LLVMSetMetadata(store.as_value_ref(), other_kind, a_scope) };
        Ok(())
    };
    let fill =
        |value: IntValue<'ctx>| counted_loop(site, function, threads, "fill", |thread| store_result(thread, value));
    for (index, completion) in completions.iter().enumerate() {
        let (region_constant, region_block) = regions[index + 1];
        let block = match completion {
            Completion::Runtime => continue,
            Completion::Nothing => region_block,
            _ => context.append_basic_block(function, &format!("complete.{}", index + 1)),
        };
        cases.push((region_constant, block));
        completing.insert(index as u32 + 1, block);
        if matches!(completion, Completion::Nothing) {
            continue;
        }
        builder.position_at_end(block);
        match *completion {
            Completion::Runtime | Completion::Nothing => {}
            Completion::BarrierReduction(operation) => {
                builder.build_store(count, i32_type.const_zero()).map_err(llvm_error)?;
                counted_loop(site, function, threads, "predicates", |thread| {
                    let predicate = load_a(thread)?;
                    let set = builder
                        .build_int_compare(IntPredicate::NE, predicate, i64_type.const_zero(), "")
                        .map_err(llvm_error)?;
                    let set = builder.build_int_z_extend(set, i32_type, "").map_err(llvm_error)?;
                    let so_far = builder.build_load(i32_type, count, "").map_err(llvm_error)?.into_int_value();
                    let so_far = builder.build_int_add(so_far, set, "").map_err(llvm_error)?;
                    builder.build_store(count, so_far).map_err(llvm_error)?;
                    Ok(())
                })?;
                let count = builder.build_load(i32_type, count, "").map_err(llvm_error)?.into_int_value();
                let result = match operation {
                    barrier_operation::REDUCE_POPULATION_COUNT => count,
                    barrier_operation::REDUCE_AND => {
                        builder.build_int_compare(IntPredicate::EQ, count, threads, "").map_err(llvm_error)?
                    }
                    _ => builder
                        .build_int_compare(IntPredicate::NE, count, i32_type.const_zero(), "")
                        .map_err(llvm_error)?,
                };
                fill(builder.build_int_z_extend(result, i64_type, "").map_err(llvm_error)?)?;
            }
            Completion::Shuffle { mode, b, c } => {
                let body = context.append_basic_block(function, &format!("shuffle.{}", index + 1));
                builder.build_conditional_branch(whole_warps, body, done).map_err(llvm_error)?;
                builder.position_at_end(body);
                // One iteration per warp with its 32 lanes written out: the source lanes are
                // constants, so LLVM reads them as contiguous runs instead of gathering.
                let warps = builder
                    .build_right_shift(threads, i32_type.const_int(5, false), false, "warps")
                    .map_err(llvm_error)?;
                counted_loop(site, function, warps, "shuffle", |warp| {
                    let first_lane =
                        builder.build_left_shift(warp, i32_type.const_int(5, false), "").map_err(llvm_error)?;
                    for lane in 0..32u64 {
                        let (source, in_range) = crate::collective::shuffle_source(
                            site,
                            mode,
                            i32_type.const_int(lane, false),
                            i32_type.const_int(b, false),
                            i32_type.const_int(c, false),
                        )?;
                        let source = builder.build_or(first_lane, source, "source").map_err(llvm_error)?;
                        let value = load_a(source)?;
                        let value = builder
                            .build_and(value, i64_type.const_int(u64::from(u32::MAX), false), "")
                            .map_err(llvm_error)?;
                        let predicate = builder.build_int_z_extend(in_range, i64_type, "").map_err(llvm_error)?;
                        let predicate = builder
                            .build_left_shift(predicate, i64_type.const_int(32, false), "")
                            .map_err(llvm_error)?;
                        let packed = builder.build_or(value, predicate, "").map_err(llvm_error)?;
                        let thread =
                            builder.build_or(first_lane, i32_type.const_int(lane, false), "").map_err(llvm_error)?;
                        store_result(thread, packed)?;
                    }
                    Ok(())
                })?;
            }
            Completion::Vote(kind) => {
                let body = context.append_basic_block(function, &format!("vote.{}", index + 1));
                builder.build_conditional_branch(whole_warps, body, done).map_err(llvm_error)?;
                builder.position_at_end(body);
                let warps = builder
                    .build_right_shift(threads, i32_type.const_int(5, false), false, "warps")
                    .map_err(llvm_error)?;
                counted_loop(site, function, warps, "warp", |warp| {
                    let first_lane =
                        builder.build_left_shift(warp, i32_type.const_int(5, false), "").map_err(llvm_error)?;
                    builder.build_store(ballot, i32_type.const_zero()).map_err(llvm_error)?;
                    counted_loop(site, function, i32_type.const_int(32, false), "ballot", |lane| {
                        let thread = builder.build_or(first_lane, lane, "").map_err(llvm_error)?;
                        let predicate = load_a(thread)?;
                        let set = builder
                            .build_int_compare(IntPredicate::NE, predicate, i64_type.const_zero(), "")
                            .map_err(llvm_error)?;
                        let bit = builder.build_int_z_extend(set, i32_type, "").map_err(llvm_error)?;
                        let bit = builder.build_left_shift(bit, lane, "").map_err(llvm_error)?;
                        let so_far = builder.build_load(i32_type, ballot, "").map_err(llvm_error)?.into_int_value();
                        let so_far = builder.build_or(so_far, bit, "").map_err(llvm_error)?;
                        builder.build_store(ballot, so_far).map_err(llvm_error)?;
                        Ok(())
                    })?;
                    let bits = builder.build_load(i32_type, ballot, "").map_err(llvm_error)?.into_int_value();
                    let all = i32_type.const_all_ones();
                    let zero = i32_type.const_zero();
                    let truth = |predicate: IntPredicate, than: IntValue<'ctx>| {
                        builder.build_int_compare(predicate, bits, than, "").map_err(llvm_error)
                    };
                    let result = match kind {
                        warp_collective::VOTE_ALL => truth(IntPredicate::EQ, all)?,
                        warp_collective::VOTE_ANY => truth(IntPredicate::NE, zero)?,
                        warp_collective::VOTE_UNIFORM => {
                            let none = truth(IntPredicate::EQ, zero)?;
                            let every = truth(IntPredicate::EQ, all)?;
                            builder.build_or(none, every, "").map_err(llvm_error)?
                        }
                        _ => bits,
                    };
                    let result = builder.build_int_z_extend(result, i64_type, "vote").map_err(llvm_error)?;
                    counted_loop(site, function, i32_type.const_int(32, false), "vote.fill", |lane| {
                        let thread = builder.build_or(first_lane, lane, "").map_err(llvm_error)?;
                        store_result(thread, result)
                    })
                })?;
            }
            Completion::Same(value) => {
                let body = context.append_basic_block(function, &format!("same.{}", index + 1));
                builder.build_conditional_branch(whole_warps, body, done).map_err(llvm_error)?;
                builder.position_at_end(body);
                fill(i64_type.const_int(value, false))?;
            }
        }
        builder.build_unconditional_branch(region_block).map_err(llvm_error)?;
    }
    builder.position_at_end(choose);
    builder.build_switch(first, done, &cases).map_err(llvm_error)?;
    Ok(completing)
}

/// `for z < ntid.z { for y < ntid.y { for x < ntid.x { body(tid, linear) } } }` from the
/// builder's block, then a branch to `after`. `linear` counts the threads in that order.
fn thread_loops<'ctx>(
    site: &Site<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    sizes: [IntValue<'ctx>; 3],
    after: inkwell::basic_block::BasicBlock<'ctx>,
    mut body: impl FnMut([IntValue<'ctx>; 3], IntValue<'ctx>) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let one = i32_type.const_int(1, false);
    let zero = i32_type.const_zero();
    let start = builder.get_insert_block().ok_or_else(|| llvm_error("thread loops"))?;
    let loop_z = context.append_basic_block(function, "thread.z");
    let loop_y = context.append_basic_block(function, "thread.y");
    let loop_x = context.append_basic_block(function, "thread.x");
    let next_y = context.append_basic_block(function, "thread.y.next");
    let next_z = context.append_basic_block(function, "thread.z.next");
    builder.build_unconditional_branch(loop_z).map_err(llvm_error)?;

    builder.position_at_end(loop_z);
    let z = builder.build_phi(i32_type, "tid.z").map_err(llvm_error)?;
    let z_value = z.as_basic_value().into_int_value();
    let plane = builder.build_int_mul(z_value, sizes[1], "").map_err(llvm_error)?;
    builder.build_unconditional_branch(loop_y).map_err(llvm_error)?;

    builder.position_at_end(loop_y);
    let y = builder.build_phi(i32_type, "tid.y").map_err(llvm_error)?;
    let y_value = y.as_basic_value().into_int_value();
    let row = builder.build_int_add(plane, y_value, "").map_err(llvm_error)?;
    let row_start = builder.build_int_mul(row, sizes[0], "").map_err(llvm_error)?;
    builder.build_unconditional_branch(loop_x).map_err(llvm_error)?;

    builder.position_at_end(loop_x);
    let x = builder.build_phi(i32_type, "tid.x").map_err(llvm_error)?;
    let x_value = x.as_basic_value().into_int_value();
    let linear = builder.build_int_nuw_add(row_start, x_value, "thread").map_err(llvm_error)?;
    body([x_value, y_value, z_value], linear)?;
    let x_block = builder.get_insert_block().ok_or_else(|| llvm_error("thread loops"))?;
    let x_next = builder.build_int_nuw_add(x_value, one, "").map_err(llvm_error)?;
    let x_more = builder.build_int_compare(IntPredicate::ULT, x_next, sizes[0], "").map_err(llvm_error)?;
    builder.build_conditional_branch(x_more, loop_x, next_y).map_err(llvm_error)?;

    builder.position_at_end(next_y);
    let y_next = builder.build_int_nuw_add(y_value, one, "").map_err(llvm_error)?;
    let y_more = builder.build_int_compare(IntPredicate::ULT, y_next, sizes[1], "").map_err(llvm_error)?;
    builder.build_conditional_branch(y_more, loop_y, next_z).map_err(llvm_error)?;

    builder.position_at_end(next_z);
    let z_next = builder.build_int_nuw_add(z_value, one, "").map_err(llvm_error)?;
    let z_more = builder.build_int_compare(IntPredicate::ULT, z_next, sizes[2], "").map_err(llvm_error)?;
    builder.build_conditional_branch(z_more, loop_z, after).map_err(llvm_error)?;

    z.add_incoming(&[(&zero, start), (&z_next, next_z)]);
    y.add_incoming(&[(&zero, loop_z), (&y_next, next_y)]);
    x.add_incoming(&[(&zero, loop_y), (&x_next, x_block)]);
    Ok(())
}

/// The block entry `NAME(params, context)`: `ptxr_run_work_item_block(params, context,
/// NAME.regions, bytes_per_thread, bytes_per_block, NAME.wait_points)`.
fn block_entry<'ctx>(site: &Site<'_, 'ctx>, name: &str, layout: &StateLayout) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let pointer_type = context.ptr_type(AddressSpace::default());
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let regions =
        site.module.get_function(&format!("{name}.regions")).ok_or_else(|| llvm_error("the region function"))?;
    // The wait points as `ptxr_runtime::abi::WaitPoint`s.
    let point_type = context.struct_type(
        &[
            i64_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
        ],
        false,
    );
    let points: Vec<_> = layout
        .wait_points
        .iter()
        .map(|point| {
            let word = |value: u32| i32_type.const_int(u64::from(value), false).into();
            point_type.const_named_struct(&[
                i64_type.const_int(point.a, false).into(),
                word(point.kind),
                word(point.mask),
                word(point.b),
                word(point.c),
                word(point.constant),
                word(0),
            ])
        })
        .collect();
    let table_type = point_type.array_type(points.len() as u32);
    let table = site.module.add_global(table_type, None, &format!("{name}.wait_points"));
    table.set_linkage(Linkage::Internal);
    table.set_constant(true);
    table.set_initializer(&point_type.const_array(&points));

    let entry_type = context.void_type().fn_type(&[pointer_type.into(), pointer_type.into()], false);
    let entry = site.module.add_function(name, entry_type, Some(Linkage::External));
    builder.position_at_end(context.append_basic_block(entry, "entry"));
    let entry_site = Site { context, module: site.module, builder, function: entry };
    let parameter = |index: u32| -> Result<PointerValue<'ctx>, Unsupported> {
        entry.get_nth_param(index).map(|value| value.into_pointer_value()).ok_or_else(|| llvm_error("entry"))
    };
    let arguments: [BasicMetadataValueEnum<'ctx>; 6] = [
        parameter(0)?.into(),
        parameter(1)?.into(),
        regions.as_global_value().as_pointer_value().into(),
        i64_type.const_int(layout.bytes_per_thread, false).into(),
        i64_type.const_int(layout.bytes_per_block, false).into(),
        table.as_pointer_value().into(),
    ];
    let run_type = context.void_type().fn_type(
        &[
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            i64_type.into(),
            i64_type.into(),
            pointer_type.into(),
        ],
        false,
    );
    call_function(&entry_site, runtime_function::RUN_WORK_ITEM_BLOCK, run_type, &arguments)?;
    builder.build_return(None).map_err(llvm_error)?;
    Ok(())
}
