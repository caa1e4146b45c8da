//! Cooperative blocks whose threads run as compiled loops over the block between waits.
//!
//! When every barrier and warp collective of a kernel sits in its body, the compiler cuts the
//! body at each of them into *regions* (region 0 from the start, region k from the
//! continuation of wait point k) and builds `NAME.regions`, which runs one region for every
//! selected thread of the block in a loop that LLVM can vectorise (see
//! `ptxr_intrinsics`' `work_item_loops/` and [`crate::abi::work_item_state`]). A thread that
//! reaches a wait deposits its operands in the block's state arrays and reports the wait
//! point; this scheduler completes the wait for the whole block and runs the next region.
//!
//! The common case, every thread at the same barrier or full-warp collective, is completed
//! here directly over the state arrays, and the next region runs for every thread at once.
//! Anything else (divergent waits, exited threads, partial member masks, `match`, `redux`,
//! `mma`, `ldmatrix`) goes through the same [`Block`] completion rules as the coroutine
//! schemes; nothing completing is the same deadlock error.

use std::cell::RefCell;
use std::ptr;

use super::block::{barrier_result, Block, ReusedAllocation, Wait, BARRIERS, WARP_SIZE};
use super::scheduler::fail;
use super::warp::{pack, shuffle_source, vote};
use crate::abi::work_item_state as field;
use crate::abi::{barrier_operation, warp_collective, BlockContext, RegionFunction, WaitPoint};

/// The alignment of the state arrays' base: a cache line.
const STATE_ALIGNMENT: usize = 64;

/// One worker's memory for the blocks it runs: the state arrays (reserved for the largest block
/// so far and reused) and the scheduler's per-thread vectors.
struct WorkerState {
    state: ReusedAllocation,
    current: Vec<u32>,
    selected: Vec<u8>,
    ready: Vec<bool>,
}

thread_local! {
    static WORKER: RefCell<WorkerState> = const {
        RefCell::new(WorkerState {
            state: ReusedAllocation::new(),
            current: Vec::new(),
            selected: Vec::new(),
            ready: Vec::new(),
        })
    };
}

/// The exchange fields of a block's state arrays (see [`crate::abi::work_item_state`]), with
/// the wait points' constant operands.
struct Exchange {
    state: *mut u8,
    threads: usize,
    wait_points: *const WaitPoint,
}

impl Exchange {
    /// The `u32` field at `offset` of every thread.
    ///
    /// # Safety
    ///
    /// No thread of the block runs while the slice lives.
    unsafe fn words(&self, offset: u64) -> &[u32] {
        // SAFETY: the field lies inside the reserved state and is 4-byte aligned (the base is
        // 64-byte aligned and `offset * threads` a multiple of 4).
        unsafe {
            std::slice::from_raw_parts(self.state.add(offset as usize * self.threads).cast::<u32>(), self.threads)
        }
    }

    /// The `u64` field at `offset` of every thread.
    ///
    /// # Safety
    ///
    /// As for [`Exchange::words`].
    #[allow(
        clippy::mut_from_ref,
        reason = "the state is the block's raw memory, not the view's; callers keep the fields they borrow apart"
    )]
    unsafe fn doubles(&self, offset: u64) -> &mut [u64] {
        // SAFETY: as in `words`, 8-byte aligned.
        unsafe {
            std::slice::from_raw_parts_mut(self.state.add(offset as usize * self.threads).cast::<u64>(), self.threads)
        }
    }

    /// Wait point `point`'s constants.
    ///
    /// # Safety
    ///
    /// `point` is a wait point of the kernel.
    unsafe fn point(&self, point: u32) -> WaitPoint {
        // SAFETY: the table has an entry for every wait point.
        unsafe { *self.wait_points.add(point as usize) }
    }

    /// The `u32` field at `offset` of thread `thread`, or `constant` when the wait point's
    /// `constants` flag it (`flag`) as the same for every thread.
    ///
    /// # Safety
    ///
    /// As for [`Exchange::words`].
    unsafe fn word(&self, constants: &WaitPoint, flag: u32, constant: u32, offset: u64, thread: usize) -> u32 {
        if constants.constant & flag != 0 {
            constant
        } else {
            // SAFETY: per the contract.
            unsafe { self.words(offset)[thread] }
        }
    }

    /// What thread `thread`, at wait point `point`, waits for.
    ///
    /// # Safety
    ///
    /// As for [`Exchange::words`]; the thread has deposited its wait at `point`.
    unsafe fn wait(&self, thread: usize, point: u32) -> Wait {
        // SAFETY: per the contract.
        unsafe {
            let constants = self.point(point);
            let word = |flag: u32, constant: u32, offset: u64| self.word(&constants, flag, constant, offset, thread);
            let kind = word(field::CONSTANT_KIND, constants.kind, field::KIND);
            let mask = word(field::CONSTANT_MASK, constants.mask, field::MASK);
            let a =
                if constants.constant & field::CONSTANT_A != 0 { constants.a } else { self.doubles(field::A)[thread] };
            let b = word(field::CONSTANT_B, constants.b, field::B);
            let c = word(field::CONSTANT_C, constants.c, field::C);
            if kind >= field::BARRIER_KIND {
                let barrier = mask % BARRIERS as u32;
                Wait::Barrier { barrier, operation: kind - field::BARRIER_KIND, thread_count: b, predicate: a != 0 }
            } else {
                Wait::Warp { collective: kind, member_mask: mask, a, b, c }
            }
        }
    }
}

/// Runs every thread of the block described by `context` through the compiled `regions`.
///
/// # Safety
///
/// `params` and `context` are valid as for a block entry (see [`crate::abi`]); `regions` and
/// `wait_points` were compiled for the same kernel with `bytes_per_thread` bytes of state per
/// thread and `bytes_per_block` after them, as
/// [`crate::abi::runtime_function::RUN_WORK_ITEM_BLOCK`] describes.
pub unsafe extern "C" fn ptxr_run_work_item_block(
    params: *const *const u8,
    context: *const BlockContext,
    regions: RegionFunction,
    bytes_per_thread: u64,
    bytes_per_block: u64,
    wait_points: *const WaitPoint,
) {
    // SAFETY: the caller passes the live context of this block.
    let threads = unsafe { (*context).ntid }.iter().map(|&size| size as usize).product::<usize>();
    if threads == 0 {
        return;
    }
    let bytes = usize::try_from(bytes_per_thread)
        .ok()
        .and_then(|bytes| bytes.checked_mul(threads))
        .and_then(|bytes| bytes.checked_add(usize::try_from(bytes_per_block).ok()?));
    let taken = WORKER.with(|worker| {
        let mut worker = worker.borrow_mut();
        let state =
            bytes.map_or(ptr::null_mut(), |bytes| worker.state.reserve(bytes.max(STATE_ALIGNMENT), STATE_ALIGNMENT));
        let vectors = (
            std::mem::take(&mut worker.current),
            std::mem::take(&mut worker.selected),
            std::mem::take(&mut worker.ready),
        );
        (state, vectors)
    });
    let (state, (mut current, mut selected, mut ready)) = taken;
    if state.is_null() {
        fail(format!("cannot allocate {bytes_per_thread} bytes of thread state for each of {threads} threads"));
        return;
    }
    let exchange = Exchange { state, threads, wait_points };
    // SAFETY: per the contract; the vectors are this call's own.
    unsafe { run(params, context, regions, &exchange, &mut current, &mut selected, &mut ready) };
    WORKER.with(|worker| {
        let mut worker = worker.borrow_mut();
        worker.current = current;
        worker.selected = selected;
        worker.ready = ready;
    });
}

/// The scheduler of [`ptxr_run_work_item_block`].
///
/// # Safety
///
/// As for [`ptxr_run_work_item_block`]; `exchange` is the block's reserved state.
unsafe fn run(
    params: *const *const u8,
    context: *const BlockContext,
    regions: RegionFunction,
    exchange: &Exchange,
    current: &mut Vec<u32>,
    selected: &mut Vec<u8>,
    ready: &mut Vec<bool>,
) {
    let threads = exchange.threads;
    // Every pass of the compiled regions writes every thread's entry before this reads it, so
    // the entries of the worker's previous block need no clearing.
    current.resize(threads, 0);
    let mut block: Option<Block> = None;
    // SAFETY (every call of `regions` below): per the contract; `current` and `selected` hold
    // one entry per thread.
    unsafe { regions(params, context, exchange.state, current.as_mut_ptr(), ptr::null(), 0) };
    loop {
        // Every thread now waits or is done.
        let first = current[0];
        // An or of differences rather than `all`, which stops early and so does not vectorise:
        // this runs once per block and wait, and usually finds every thread alike.
        if current.iter().fold(0, |difference, &region| difference | (region ^ first)) == 0 {
            if first == field::DONE {
                break;
            }
            // SAFETY: no thread runs; every thread waits at `first`.
            if unsafe { complete_together(exchange, first) } {
                // SAFETY: as above.
                unsafe { regions(params, context, exchange.state, current.as_mut_ptr(), ptr::null(), first) };
                continue;
            }
        }
        // The general path's vectors are set up only when a block first needs it: most blocks
        // complete every wait in the compiled loops, and clearing them was a noticeable part of
        // a short block's time.
        let block = block.get_or_insert_with(|| {
            selected.clear();
            selected.resize(threads, 0);
            ready.clear();
            ready.resize(threads, false);
            Block::new(threads)
        });
        for (thread, lane) in block.lanes.iter_mut().enumerate() {
            // SAFETY: no thread runs; a thread that is not done has deposited its wait.
            let point = current[thread];
            lane.wait = if point == field::DONE { Wait::Exited } else { unsafe { exchange.wait(thread, point) } };
        }
        if !block.complete_warp_collectives() && !block.complete_barriers() {
            fail(block.deadlock_message());
            break;
        }
        // SAFETY: no thread runs.
        let results = unsafe { exchange.doubles(field::RESULT) };
        for (thread, lane) in block.lanes.iter().enumerate() {
            if lane.wait == Wait::Running {
                results[thread] = lane.result;
                ready[thread] = true;
            }
        }
        // Each region that released threads continue in runs for those threads alone.
        while let Some(leader) = ready.iter().position(|&ready| ready) {
            let region = current[leader];
            for thread in leader..threads {
                let chosen = ready[thread] && current[thread] == region;
                selected[thread] = u8::from(chosen);
                ready[thread] &= !chosen;
            }
            selected[..leader].fill(0);
            // SAFETY: as above.
            unsafe { regions(params, context, exchange.state, current.as_mut_ptr(), selected.as_ptr(), region) };
        }
    }
}

/// Completes the wait that every thread of the block has reached at the same wait point, when
/// it is a barrier on one number or a shuffle, vote, `activemask` or `bar.warp.sync` of whole
/// warps; false (nothing done) otherwise.
///
/// # Safety
///
/// No thread of the block runs; every thread has deposited its wait at `point`.
unsafe fn complete_together(exchange: &Exchange, point: u32) -> bool {
    // SAFETY: per the contract.
    let constants = unsafe { exchange.point(point) };
    // The kind and mask, when every thread gave the same.
    let uniform = |flag: u32, constant: u32, offset: u64| {
        if constants.constant & flag != 0 {
            return Some(constant);
        }
        // SAFETY: per the contract.
        let values = unsafe { exchange.words(offset) };
        values.iter().all(|&value| value == values[0]).then_some(values[0])
    };
    let (Some(kind), Some(mask)) = (
        uniform(field::CONSTANT_KIND, constants.kind, field::KIND),
        uniform(field::CONSTANT_MASK, constants.mask, field::MASK),
    ) else {
        return false;
    };
    // The operands that the completions below read are never constant: the compiler keeps them
    // in the state for every wait that needs them (a barrier reduction's predicate, a shuffle's
    // or vote's value); `b` and `c` may be.
    let a_constant = constants.constant & field::CONSTANT_A != 0;
    // SAFETY: per the contract; `a` and `results` are different fields.
    let (a, results) = unsafe { (exchange.doubles(field::A), exchange.doubles(field::RESULT)) };
    if kind >= field::BARRIER_KIND {
        let operation = kind - field::BARRIER_KIND;
        if operation == barrier_operation::SYNC {
            return true;
        }
        if a_constant {
            return false;
        }
        let true_count = a.iter().filter(|&&predicate| predicate != 0).count() as u64;
        results.fill(barrier_result(operation, true_count, a.len() as u64));
        return true;
    }
    if a_constant && kind != warp_collective::ACTIVE_MASK && kind != warp_collective::SYNC {
        return false;
    }
    // Whole warps with every lane a member: without a mask, the lanes that arrive together.
    if exchange.threads % WARP_SIZE != 0 || (mask != u32::MAX && mask != 0) {
        return false;
    }
    match kind {
        warp_collective::SHUFFLE_UP
        | warp_collective::SHUFFLE_DOWN
        | warp_collective::SHUFFLE_BUTTERFLY
        | warp_collective::SHUFFLE_INDEX => {
            // SAFETY: per the contract.
            let operand = |flag: u32, constant: u32, offset: u64, thread: usize| unsafe {
                exchange.word(&constants, flag, constant, offset, thread)
            };
            for warp in 0..exchange.threads / WARP_SIZE {
                let start = warp * WARP_SIZE;
                let values = &a[start..start + WARP_SIZE];
                for lane in 0..WARP_SIZE {
                    let b = operand(field::CONSTANT_B, constants.b, field::B, start + lane);
                    let c = operand(field::CONSTANT_C, constants.c, field::C, start + lane);
                    let (source, in_range) = shuffle_source(kind, lane as u32, b, c);
                    results[start + lane] = pack(values[source as usize & 31] as u32, in_range);
                }
            }
        }
        warp_collective::VOTE_ALL
        | warp_collective::VOTE_ANY
        | warp_collective::VOTE_UNIFORM
        | warp_collective::VOTE_BALLOT => {
            for warp in 0..exchange.threads / WARP_SIZE {
                let start = warp * WARP_SIZE;
                let ballot =
                    (0..WARP_SIZE).fold(0u32, |ballot, lane| ballot | (u32::from(a[start + lane] != 0) << lane));
                results[start..start + WARP_SIZE].fill(pack(vote(kind, ballot, u32::MAX), false));
            }
        }
        warp_collective::ACTIVE_MASK => results.fill(pack(u32::MAX, false)),
        warp_collective::SYNC => results.fill(0),
        _ => return false,
    }
    true
}
