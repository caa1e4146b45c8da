//! The step function of a work-item kernel: the body cut at its waits, with the values that
//! live across a wait moved to the per-thread state (see the parent module).

use std::collections::{HashMap, HashSet};
use std::ffi::{CStr, CString};

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABIAlignmentOfType, LLVMABISizeOfType, LLVMGetModuleDataLayout};
use llvm_sys::LLVMOpcode;
use ptxr_runtime::abi::{work_item_state, WaitPoint};

use super::Completion;
use crate::resumable::{blocks, instructions, WaitKind};

/// Offsets of the step function's parameters.
pub(super) mod step_parameter {
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
        let i64 = LLVMInt64TypeInContext(context);
        let threads = LLVMBuildZExt(builder, LLVMGetParam(step, step_parameter::THREADS), i64, c"".as_ptr());
        let thread = LLVMBuildZExt(builder, LLVMGetParam(step, step_parameter::THREAD), i64, c"".as_ptr());
        let base = LLVMBuildNUWMul(builder, threads, LLVMConstInt(i64, offset, 0), c"".as_ptr());
        let within = LLVMBuildNUWMul(builder, thread, LLVMConstInt(i64, size, 0), c"".as_ptr());
        state_byte(builder, step, LLVMBuildNUWAdd(builder, base, within, c"".as_ptr()), c"thread.state")
    }
}

/// The address of byte `offset` (an `i64`) of the state.
///
/// # Safety
///
/// The builder is positioned in `step`.
unsafe fn state_byte(builder: LLVMBuilderRef, step: LLVMValueRef, offset: LLVMValueRef, name: &CStr) -> LLVMValueRef {
    // SAFETY: per the contract.
    unsafe {
        let i8 = LLVMInt8TypeInContext(LLVMGetTypeContext(LLVMTypeOf(step)));
        let mut indices = [offset];
        LLVMBuildInBoundsGEP2(
            builder,
            i8,
            LLVMGetParam(step, step_parameter::STATE),
            indices.as_mut_ptr(),
            1,
            name.as_ptr(),
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
pub(super) struct StateLayout {
    /// Bytes of per-thread state.
    pub(super) bytes_per_thread: u64,
    /// Bytes of state for the whole block, after every thread's ([`uniform_address`]).
    pub(super) bytes_per_block: u64,
    /// The wait points' constant operands, indexed by wait point (entry 0 unused).
    pub(super) wait_points: Vec<WaitPoint>,
    /// For each region, the one wait point (or `DONE`) that all its paths reach, if there is
    /// one: its loop then needs no `current` per thread.
    pub(super) exits: Vec<Option<u32>>,
    /// For each region, what LLVM can always do with a loop over it ([`RegionShape`]).
    pub(super) shapes: Vec<RegionShape>,
    /// The compiler's per-thread slots after the exchange fields, as (offset, bytes per thread).
    pub(super) slots: Vec<(u64, u64)>,
    /// Whether the step may run on a warp's private copy of the state: no alloca's address
    /// escapes, so no pointer into the state outlives the region that computed it.
    pub(super) relocatable: bool,
}

/// The rewrite of [`build`]: moves `body`'s blocks into `step` and turns it into the step
/// function. Returns the bytes of state per thread and the number of regions.
///
/// # Safety
///
/// `body` is a defined function of `module` with the hidden CPU parameters, `step` the empty
/// step function of the same kernel, `waits` the waits of `body`.
pub(super) unsafe fn rewrite(
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

        let all_starts: Vec<LLVMBasicBlockRef> = std::iter::once(start).chain(region_starts.iter().copied()).collect();
        let moved = move_to_state(builder, step, step_entry, &all_starts, data_layout, &mut private_addresses);
        mark_private_state(context, step, &private_addresses);
        LLVMDisposeBuilder(builder);
        let exits = all_starts.iter().map(|&block| single_exit(block)).collect();
        let shapes = all_starts.iter().map(|&block| region_shape(step, block)).collect();
        StateLayout {
            bytes_per_thread: moved.bytes_per_thread,
            bytes_per_block: moved.bytes_per_block,
            wait_points,
            exits,
            slots: moved.slots,
            shapes,
            relocatable: moved.relocatable,
        }
    }
}

/// What [`move_to_state`] made of the allocas.
struct MovedState {
    bytes_per_thread: u64,
    bytes_per_block: u64,
    /// See [`StateLayout::slots`].
    slots: Vec<(u64, u64)>,
    /// No alloca's address escapes (see [`StateLayout::relocatable`]).
    relocatable: bool,
}

/// Moves the allocas that must survive a wait into the per-thread state.
///
/// # Safety
///
/// `step` is the step function being built, `entry` its entry block holding every alloca,
/// `region_starts` the start of each region (the body's start, then the continuations of its
/// waits).
unsafe fn move_to_state(
    builder: LLVMBuilderRef,
    step: LLVMValueRef,
    entry: LLVMBasicBlockRef,
    region_starts: &[LLVMBasicBlockRef],
    data_layout: llvm_sys::target::LLVMTargetDataRef,
    private_addresses: &mut HashSet<LLVMValueRef>,
) -> MovedState {
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
        // Region 0 starts with nothing from an earlier region.
        for resume in &region_starts[1..] {
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
        let mut slots = Vec::new();
        for (alloca, size, align, private) in chosen {
            offset = offset.next_multiple_of(align);
            slots.push((offset, size));
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
        MovedState {
            bytes_per_thread,
            bytes_per_block: block_offset.next_multiple_of(8),
            slots,
            relocatable: !escapes.contains(&true),
        }
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
        let i64 = LLVMInt64TypeInContext(context);
        let threads = LLVMBuildZExt(builder, LLVMGetParam(step, step_parameter::THREADS), i64, c"".as_ptr());
        let base = LLVMBuildNUWMul(builder, threads, LLVMConstInt(i64, bytes_per_thread, 0), c"".as_ptr());
        let offset = LLVMBuildNUWAdd(builder, base, LLVMConstInt(i64, offset, 0), c"".as_ptr());
        state_byte(builder, step, offset, c"block.state")
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

/// How a warp chain may ask LLVM to transform its loop over a region's 32 lanes, from the
/// region's code (what is reachable from its start): hints that LLVM reports when it cannot
/// follow them, on stderr, so they are given only where it always can.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct RegionShape {
    /// One path of plain scalar operations (integers, floats, pointers; no calls, atomics,
    /// fences or volatile accesses) whose only stores are to the state and private allocas: a
    /// loop over it vectorises at any width, with no run-time overlap checks.
    pub(super) vectorisable: bool,
    /// No cycles, at most [`UNROLLED_INSTRUCTIONS_LIMIT`] instructions, and calls to LLVM
    /// intrinsics only: a loop of 32 iterations over it unrolls fully within LLVM's limit.
    pub(super) unrollable: bool,
}

/// The largest region whose lane loop a warp chain asks LLVM to unroll fully (32 copies).
const UNROLLED_INSTRUCTIONS_LIMIT: usize = 64;

/// The [`RegionShape`] of the region that starts at `start`.
///
/// # Safety
///
/// `start` is a block of the step function.
unsafe fn region_shape(step: LLVMValueRef, start: LLVMBasicBlockRef) -> RegionShape {
    use llvm_sys::LLVMTypeKind::*;
    // SAFETY: per the contract.
    unsafe {
        let state = LLVMGetParam(step, step_parameter::STATE);
        // The state, or a private alloca (which LLVM promotes to a register once the step is
        // inlined).
        let state_address = |address: LLVMValueRef| {
            !LLVMIsAAllocaInst(address).is_null()
                || (!LLVMIsAGetElementPtrInst(address).is_null() && LLVMGetOperand(address, 0) == state)
        };
        let mut shape = RegionShape { vectorisable: true, unrollable: true };
        let mut instruction_count = 0;
        // Depth-first, to find cycles: blocks on the current path are `open`.
        let mut open = HashSet::new();
        let mut finished = HashSet::new();
        let mut pending = vec![(start, false)];
        while let Some((block, leaving)) = pending.pop() {
            if leaving {
                open.remove(&block);
                finished.insert(block);
                continue;
            }
            if finished.contains(&block) {
                continue;
            }
            open.insert(block);
            pending.push((block, true));
            for instruction in instructions(block) {
                instruction_count += 1;
                let plain_type = matches!(
                    LLVMGetTypeKind(LLVMTypeOf(instruction)),
                    LLVMVoidTypeKind
                        | LLVMIntegerTypeKind
                        | LLVMFloatTypeKind
                        | LLVMDoubleTypeKind
                        | LLVMHalfTypeKind
                        | LLVMPointerTypeKind
                );
                shape.vectorisable &= plain_type;
                match LLVMGetInstructionOpcode(instruction) {
                    LLVMOpcode::LLVMCall => {
                        shape.vectorisable = false;
                        let callee = LLVMGetCalledValue(instruction);
                        let intrinsic = !LLVMIsAFunction(callee).is_null() && LLVMGetIntrinsicID(callee) != 0;
                        shape.unrollable &= intrinsic;
                    }
                    LLVMOpcode::LLVMAtomicRMW
                    | LLVMOpcode::LLVMAtomicCmpXchg
                    | LLVMOpcode::LLVMFence
                    | LLVMOpcode::LLVMSwitch
                    | LLVMOpcode::LLVMIndirectBr
                    | LLVMOpcode::LLVMUnreachable
                    | LLVMOpcode::LLVMPHI => shape.vectorisable = false,
                    LLVMOpcode::LLVMLoad => shape.vectorisable &= LLVMGetVolatile(instruction) == 0,
                    LLVMOpcode::LLVMStore => {
                        shape.vectorisable &=
                            LLVMGetVolatile(instruction) == 0 && state_address(LLVMGetOperand(instruction, 1));
                    }
                    LLVMOpcode::LLVMBr => shape.vectorisable &= LLVMIsConditional(instruction) == 0,
                    _ => {}
                }
            }
            let terminator = LLVMGetBasicBlockTerminator(block);
            if terminator.is_null() {
                return RegionShape::default();
            }
            for index in 0..LLVMGetNumSuccessors(terminator) {
                let next = LLVMGetSuccessor(terminator, index);
                if open.contains(&next) {
                    shape.unrollable = false;
                    shape.vectorisable = false;
                } else if !finished.contains(&next) {
                    pending.push((next, false));
                }
            }
        }
        shape.unrollable &= instruction_count <= UNROLLED_INSTRUCTIONS_LIMIT;
        shape
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
