//! Cooperative blocks whose threads are LLVM switched-resume coroutines.
//!
//! When a kernel's barriers and warp collectives all sit in the kernel body itself (none in a
//! called `.func`), the compiler turns the body into an LLVM coroutine: every barrier or
//! collective records what the thread waits for and suspends, and LLVM keeps only the values
//! live across that point in a small frame. A suspended thread is then a frame in this
//! worker's arena, not a stack: resuming it is one indirect call, with no stack switch and no
//! 256 KiB stack per thread (see [`super::scheduler`] for the stackful scheme that remains for
//! kernels whose functions wait).
//!
//! The scheduler runs warp by warp: a warp's lanes run until they all wait, its collectives
//! complete at once, and the warp goes on while its frames are still in the cache. Barriers
//! complete once every warp has reached them.

use std::alloc::{self, Layout};
use std::cell::{Cell, RefCell};
use std::ptr;

use super::block::{arrive, record_wait, Block, ReusedAllocation, Wait, BARRIERS, CURRENT_BLOCK, WARP_SIZE};
use super::scheduler::fail;
use crate::abi::{barrier_operation, BlockContext, ResumeFunction, ThreadEntry};

/// The smallest alignment of a frame: a cache line, so that no two threads share one.
const FRAME_ALIGNMENT: usize = 64;

/// One worker's memory for the frames of its current block. Every thread of a kernel has a
/// frame of the same size, so the first request reserves room for the whole block and frames
/// never move while the block runs.
struct FrameArena {
    frames: ReusedAllocation,
    used: usize,
    /// Threads of the current block, for the first request's reservation.
    threads: usize,
    /// Frames that did not fit (a request larger than the first), freed with the block.
    overflow: Vec<(*mut u8, Layout)>,
}

impl FrameArena {
    fn begin_block(&mut self, threads: usize) {
        self.used = 0;
        self.threads = threads;
        self.release_overflow();
    }

    fn allocate(&mut self, size: usize, align: usize) -> *mut u8 {
        let align = align.max(FRAME_ALIGNMENT);
        let stride = size.next_multiple_of(align);
        if self.used == 0 {
            let needed = stride.saturating_mul(self.threads.max(1));
            if self.frames.reserve(needed.max(align), align).is_null() {
                return ptr::null_mut();
            }
        }
        let start = self.used.next_multiple_of(align);
        if let Some((base, layout)) = self.frames.current() {
            if start + stride <= layout.size() && layout.align() >= align {
                self.used = start + stride;
                // SAFETY: `start + stride` lies inside the allocation.
                return unsafe { base.add(start) };
            }
        }
        let Ok(layout) = Layout::from_size_align(stride.max(align), align) else { return ptr::null_mut() };
        // SAFETY: the layout has a non-zero size.
        let frame = unsafe { alloc::alloc(layout) };
        if !frame.is_null() {
            self.overflow.push((frame, layout));
        }
        frame
    }

    fn release_overflow(&mut self) {
        for (frame, layout) in self.overflow.drain(..) {
            // SAFETY: allocated in `allocate` with this layout.
            unsafe { alloc::dealloc(frame, layout) };
        }
    }
}

impl Drop for FrameArena {
    fn drop(&mut self) {
        self.release_overflow();
    }
}

thread_local! {
    static FRAMES: RefCell<FrameArena> = const {
        RefCell::new(FrameArena { frames: ReusedAllocation::new(), used: 0, threads: 0, overflow: Vec::new() })
    };
}

/// Runs every thread of the block described by `context`: `entry` starts a thread (its
/// coroutine runs to its first suspension), `resume` continues a suspended one.
///
/// # Safety
///
/// `params` and `context` are valid as for a block entry (see [`crate::abi`]); `entry` and
/// `resume` were compiled for the same kernel as described in
/// [`crate::abi::runtime_function::RUN_RESUMABLE_BLOCK`].
pub unsafe extern "C" fn ptxr_run_resumable_block(
    params: *const *const u8,
    context: *const BlockContext,
    entry: ThreadEntry,
    resume: ResumeFunction,
) {
    // SAFETY: the caller passes the live context of this block.
    let ntid = unsafe { (*context).ntid }.map(|size| size as usize);
    let [size_x, size_y, _] = ntid;
    let count = ntid.iter().product::<usize>();
    FRAMES.with(|frames| frames.borrow_mut().begin_block(count));
    let mut block = Block::new(count);
    let block_pointer: *mut Block = &mut block;
    let previous = CURRENT_BLOCK.with(|current| current.replace(block_pointer));

    // Runs thread `index` until it waits or exits.
    let run = move |index: usize| {
        // SAFETY: only this worker touches the block; no reference into it is held while the
        // thread runs, and the thread's runtime calls reach it through `CURRENT_BLOCK`.
        unsafe {
            (*block_pointer).current = index;
            let handle = (&(*block_pointer).lanes)[index].handle;
            if handle.is_null() {
                let x = (index % size_x) as u32;
                let y = (index / size_x % size_y) as u32;
                let z = (index / (size_x * size_y)) as u32;
                entry(params, context, x, y, z);
            } else {
                resume(handle.cast_mut().cast());
            }
            let lane = &mut (&mut (*block_pointer).lanes)[index];
            // A thread that returned without recording a wait has reached its final suspension.
            if lane.wait == Wait::Running {
                lane.wait = Wait::Exited;
            }
        }
    };

    let warps = count.div_ceil(WARP_SIZE);
    loop {
        for warp in 0..warps {
            let lanes = warp * WARP_SIZE..((warp + 1) * WARP_SIZE).min(count);
            loop {
                for index in lanes.clone() {
                    // SAFETY: as in `run`; the block is not borrowed across the call.
                    if unsafe { (&(*block_pointer).lanes)[index].wait } == Wait::Running {
                        run(index);
                    }
                }
                // SAFETY: every thread of the warp is suspended or done.
                if !unsafe { (*block_pointer).complete_warp(warp) } {
                    break;
                }
            }
        }
        // SAFETY: every thread is suspended or done; the scheduler owns the block.
        let block = unsafe { &mut *block_pointer };
        if block.all_exited() {
            break;
        }
        // Every warp's collectives that could complete have (above), and nothing has changed
        // since: only a barrier or an mbarrier phase can release threads now.
        if !block.complete_barriers() && !block.complete_mbarrier_waits() {
            fail(block.deadlock_message());
            break;
        }
    }
    CURRENT_BLOCK.with(|current| current.set(previous));
}

/// The memory for a thread's coroutine frame (see
/// [`crate::abi::runtime_function::RESUMABLE_FRAME`]).
pub extern "C" fn ptxr_resumable_frame(size: u64, align: u32) -> *mut u8 {
    let frame = FRAMES.with(|frames| {
        frames.borrow_mut().allocate(usize::try_from(size).unwrap_or(usize::MAX), align.max(1) as usize)
    });
    if frame.is_null() {
        // The coroutine cannot start without its frame: abort rather than write through null.
        eprintln!("ptxr: cannot allocate a {size}-byte thread frame");
        std::process::abort();
    }
    frame
}

/// A thread's coroutine has begun with frame `handle` (see
/// [`crate::abi::runtime_function::RESUMABLE_STARTED`]).
pub extern "C" fn ptxr_resumable_started(handle: *mut u8) {
    let block = CURRENT_BLOCK.with(Cell::get);
    if !block.is_null() {
        // SAFETY: called by the running thread of this worker's block.
        unsafe {
            let current = (*block).current;
            (&mut (*block).lanes)[current].handle = handle.cast_const().cast();
        }
    }
}

/// A barrier of a resumable thread: records the wait; the thread then suspends (see
/// [`crate::abi::runtime_function::RESUMABLE_BARRIER`]).
pub extern "C" fn ptxr_resumable_barrier(operation: u32, barrier: u32, thread_count: u32, predicate: u32) {
    let barrier = barrier % BARRIERS as u32;
    if operation == barrier_operation::ARRIVE {
        arrive(barrier);
        return;
    }
    // SAFETY: called by the running thread of this worker's block.
    unsafe { record_wait(Wait::Barrier { barrier, operation, thread_count, predicate: predicate != 0 }) };
}

/// A warp collective of a resumable thread: records the wait; the thread then suspends (see
/// [`crate::abi::runtime_function::RESUMABLE_WARP_COLLECTIVE`]).
pub extern "C" fn ptxr_resumable_warp_collective(collective: u32, member_mask: u32, a: u64, b: u32, c: u32) {
    // SAFETY: called by the running thread of this worker's block.
    unsafe { record_wait(Wait::Warp { collective, member_mask, a, b, c }) };
}

/// An `mbarrier` wait of a resumable thread: records the wait; the thread then suspends (see
/// [`crate::abi::runtime_function::RESUMABLE_MBARRIER_WAIT`]).
pub extern "C" fn ptxr_resumable_mbarrier_wait(address: u64, phase: u32, mask: u32) {
    // SAFETY: called by the running thread of this worker's block.
    unsafe { record_wait(Wait::Mbarrier { address, phase, mask }) };
}

/// What the barrier or collective that the thread waited at gave it (see
/// [`crate::abi::runtime_function::RESUMABLE_RESULT`]).
pub extern "C" fn ptxr_resumable_result() -> u64 {
    let block = CURRENT_BLOCK.with(Cell::get);
    if block.is_null() {
        return 0;
    }
    // SAFETY: called by the running thread of this worker's block.
    unsafe { (&(*block).lanes)[(*block).current].result }
}
