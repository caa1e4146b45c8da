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
//! regions (`ptxr_runtime::cooperative::work_items`). Regions that end at a collective of whole
//! warps with constant operands run as warp chains instead, one warp at a time on a copy of its
//! state (`warps.rs`).
//!
//! The rewrite works on the LLVM C API, as `resumable.rs` does: moving blocks to another
//! function, splitting them and demoting values need calls inkwell does not wrap.

use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::AsValueRef;
use inkwell::AddressSpace;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use ptxr_frontend::ir::ShuffleMode;
use ptxr_runtime::abi::{barrier_operation, warp_collective};

use crate::resumable::{blocks, instructions, is_mbarrier_wait, wait_call, WaitKind};
use crate::{KernelParameters, Site, Unsupported};

mod iteration_major;
mod regions;
mod round_loops;
mod step;
mod warps;

pub use iteration_major::build_iteration_major;

use regions::{block_entry, region_function};
use step::rewrite;

/// What [`build`] did with a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkItemForm {
    /// The body never waits: the caller builds the plain loop nest.
    Independent,
    /// The kernel's block entry now runs work-item loops.
    Loops,
    /// The body waits in a way the loops do not handle (`bar.arrive`, a barrier with a thread
    /// count, an `mbarrier` wait, `indirectbr`, a dynamic alloca, or too much code to copy per
    /// region); nothing was changed and the caller uses coroutines.
    Unsuitable,
}

/// Above this many instructions times regions, the copies of the body (one per region before
/// LLVM prunes each to its region) would cost more compile time than coroutines: a body of 90
/// barriers 30 instructions apart, somewhat above the limit, took some 4 seconds at -O3
/// against 0.2 with coroutines.
const COPIED_INSTRUCTIONS_LIMIT: usize = 1_000_000;

/// How the region function completes a wait that every thread of the block has reached at
/// the same wait point, without returning to the runtime.
#[derive(Clone, Copy, Debug)]
pub(super) enum Completion {
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

/// The waits of `function` in block order and its instruction count, or `None` when the loops
/// cannot express them.
///
/// # Safety
///
/// `function` is a defined function.
unsafe fn waits_of(function: LLVMValueRef) -> Option<(Vec<(LLVMValueRef, WaitKind)>, usize)> {
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
                    // `mbarrier` waits complete on memory, not at a wait point all threads
                    // reach: coroutines only.
                    LLVMOpcode::LLVMCall if is_mbarrier_wait(instruction) => return None,
                    LLVMOpcode::LLVMCall => match wait_call(instruction) {
                        Some(WaitKind::WarpCollective) => waits.push((instruction, WaitKind::WarpCollective)),
                        Some(WaitKind::Barrier) => {
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
                        None => {}
                    },
                    _ => {}
                }
            }
        }
    }
    if instruction_count.saturating_mul(waits.len() + 2) > COPIED_INSTRUCTIONS_LIMIT {
        return None;
    }
    Some((waits, instruction_count))
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
    let Some((waits, instruction_count)) = (unsafe { waits_of(body.as_value_ref()) }) else {
        return Ok(WorkItemForm::Unsuitable);
    };
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
    // A warp chain copies its regions once more.
    let warp_chains = instruction_count.saturating_mul(2 * waits.len() + 2) <= COPIED_INSTRUCTIONS_LIMIT;
    region_function(site, name, parameters, step, &layout, &completions, warp_chains)?;
    block_entry(site, name, &layout)?;
    Ok(WorkItemForm::Loops)
}
