//! Kernels whose threads never wait but loop, run *iteration-major*: every loop iteration of
//! every thread of the block before the next iteration of any.
//!
//! A kernel without waits is otherwise the plain loop nest over the block's threads, each
//! thread's whole body one iteration. When the body is itself a loop, as in the grid-stride
//! loops that nvcc and clang emit (`for (i = global id; i < n; i += grid size)`), thread t
//! runs all of its iterations, touching addresses a whole grid apart, before thread t + 1
//! touches the neighbouring ones: one cache line is fetched, evicted and fetched again by each
//! of the 16 threads that share it, across as many pages as the loop has iterations. A GPU
//! runs the iterations the other way round, a warp at a time, on neighbouring addresses.
//!
//! Threads that never wait may interleave in any order (their accesses to one address are
//! races, or atomics whose result no order changes), so the loops may run in rounds instead:
//! here each retreating edge of the body (a loop's back edge) gets a *yield*, a `bar.sync`
//! that no PTX wrote, and the kernel is built as work-item loops (the parent module). A yield
//! completes as soon as every thread that has not exited has reached one, which is always the
//! case after a pass over the threads, so yields never deadlock; one pass runs one iteration of
//! every thread, and while all threads agree (the usual case: a grid-stride loop's trip count
//! differs by at most one between threads) the region function goes from round to round
//! without returning to the runtime. Thread t's own accesses stay in its program order.
//!
//! `PTXR_CPU_THREAD_ORDER=thread-major` (read by `crate::cpu`) keeps the plain loop nest, so
//! that tests can compare both orders.

use std::collections::HashSet;

use inkwell::values::AsValueRef;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use ptxr_runtime::abi::{barrier_operation, runtime_function};

use super::round_loops::{round_loops, RetreatingEdge};
use super::{build, waits_of, WorkItemForm, COPIED_INSTRUCTIONS_LIMIT};
use crate::cpu::llvm_error;
use crate::declare::call_function;
use crate::resumable::{blocks, instructions};
use crate::{KernelParameters, Site, Unsupported};

/// The barrier that yields use. The kernel itself never waits, so no barrier of its own can
/// meet them.
const YIELD_BARRIER: u64 = 0;

/// Builds kernel `name`, whose body `site.function` never waits, as work-item loops with a yield
/// on every loop's back edge. Returns [`WorkItemForm::Loops`] when it did;
/// [`WorkItemForm::Independent`] when the body has no loop (or loops this does not take: a
/// loop header with phis, a body too large to copy per round), leaving it unchanged for the
/// plain loop nest.
pub fn build_iteration_major<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    parameters: &KernelParameters<'ctx>,
) -> Result<WorkItemForm, Unsupported> {
    let body = site.function.as_value_ref();
    // SAFETY: `body` is the kernel's defined body.
    match unsafe { waits_of(body) } {
        Some((waits, _)) if waits.is_empty() => {}
        // Waits (the caller's mistake) or control flow the loops cannot express.
        _ => return Ok(WorkItemForm::Independent),
    }
    // SAFETY: as above.
    let edges = unsafe { round_loops(body) };
    if edges.is_empty() {
        return Ok(WorkItemForm::Independent);
    }
    let instruction_count: usize = blocks(body).into_iter().map(|block| instructions(block).len()).sum();
    let headers: HashSet<LLVMBasicBlockRef> = edges.iter().map(|edge| edge.header).collect();
    // SAFETY: the headers are blocks of `body`.
    let header_phis = headers.iter().any(|&header| unsafe { starts_with_phi(header) });
    // Lowering keeps registers in allocas, so its headers have no phis; one that had would need
    // its incoming blocks renamed to the yield's.
    if header_phis || instruction_count.saturating_mul(edges.len() + 2) > COPIED_INSTRUCTIONS_LIMIT {
        return Ok(WorkItemForm::Independent);
    }
    let mut yields = Vec::with_capacity(edges.len());
    for edge in &edges {
        yields.push(insert_yield(site, edge)?);
    }
    match build(site, name, parameters)? {
        WorkItemForm::Loops => Ok(WorkItemForm::Loops),
        WorkItemForm::Unsuitable | WorkItemForm::Independent => {
            // Not expected after the checks above; the body goes back to what it was.
            for (edge, yield_block) in edges.iter().zip(yields) {
                // SAFETY: the yield block was inserted on this edge and nothing else uses it.
                unsafe {
                    LLVMSetSuccessor(LLVMGetBasicBlockTerminator(edge.latch), edge.successor, edge.header);
                    LLVMDeleteBasicBlock(yield_block);
                }
            }
            Ok(WorkItemForm::Independent)
        }
    }
}

/// Whether `block` begins with a phi.
///
/// # Safety
///
/// `block` is a basic block.
unsafe fn starts_with_phi(block: LLVMBasicBlockRef) -> bool {
    // SAFETY: per the contract.
    unsafe {
        let first = LLVMGetFirstInstruction(block);
        !first.is_null() && LLVMGetInstructionOpcode(first) == LLVMOpcode::LLVMPHI
    }
}

/// Splits `edge` with a block that yields (`bar.sync` on [`YIELD_BARRIER`]) and goes on to the
/// header; returns that block.
fn insert_yield(site: &Site<'_, '_>, edge: &RetreatingEdge) -> Result<LLVMBasicBlockRef, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    // SAFETY: the latch and header are blocks of the body; the new block is terminated below.
    let yield_block = unsafe {
        let block = LLVMInsertBasicBlockInContext(context.raw(), edge.header, c"yield".as_ptr());
        LLVMSetSuccessor(LLVMGetBasicBlockTerminator(edge.latch), edge.successor, block);
        block
    };
    // SAFETY: `yield_block` is an empty block of the body.
    builder.position_at_end(
        unsafe { inkwell::basic_block::BasicBlock::new(yield_block) }.ok_or_else(|| llvm_error("yield"))?,
    );
    let arguments = [
        i32_type.const_int(u64::from(barrier_operation::SYNC), false).into(),
        i32_type.const_int(YIELD_BARRIER, false).into(),
        i32_type.const_zero().into(),
        i32_type.const_zero().into(),
    ];
    let function_type = i32_type.fn_type(&[i32_type.into(); 4], false);
    call_function(site, runtime_function::BARRIER, function_type, &arguments)?;
    // SAFETY: the header is a block of the body.
    let header = unsafe { inkwell::basic_block::BasicBlock::new(edge.header) }.ok_or_else(|| llvm_error("yield"))?;
    builder.build_unconditional_branch(header).map_err(llvm_error)?;
    Ok(yield_block)
}
