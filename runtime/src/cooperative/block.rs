//! The state of one cooperative block that both thread schemes share: what each thread waits
//! for, and the completion of warp collectives and barriers once enough threads wait there.
//!
//! Completion runs between rounds of the scheduler, once per suspension of every thread, so it
//! allocates nothing and stays linear in the block's size.

use std::alloc::{self, Layout};
use std::cell::Cell;
use std::ptr;

use super::matrix;
use super::warp::{self, Deposit};
use crate::abi::{barrier_operation, mbarrier_object, warp_collective};

pub(super) const WARP_SIZE: usize = 32;
/// `bar` numbers 0 to 15.
pub(super) const BARRIERS: usize = 16;
/// Rounds in a row in which only `mbarrier.test_wait` yields complete and no object they test
/// changes before the block counts as deadlocked: threads spinning on a phase that nobody will
/// complete. A loop that tests a fixed number of times before arriving itself stays far below.
const STALLED_MBARRIER_ROUNDS: u32 = 100_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Wait {
    Running,
    Barrier {
        barrier: u32,
        operation: u32,
        thread_count: u32,
        predicate: bool,
    },
    Warp {
        collective: u32,
        member_mask: u32,
        a: u64,
        b: u32,
        c: u32,
    },
    /// `mbarrier.try_wait` until the object's phase `p` has `p & mask != phase & mask`, or, with
    /// a `mask` of 0, `mbarrier.test_wait` giving way to the other threads once.
    Mbarrier {
        address: u64,
        phase: u32,
        mask: u32,
    },
    Exited,
}

pub(super) struct Lane {
    pub(super) wait: Wait,
    /// What the collective or barrier gave this thread, read when it resumes.
    pub(super) result: u64,
    /// The scheme's handle on the suspended thread: its stackful coroutine's yielder, or its
    /// LLVM coroutine frame. Null until the thread first runs.
    pub(super) handle: *const (),
}

pub(super) struct Block {
    pub(super) lanes: Vec<Lane>,
    /// The lane that is running now.
    pub(super) current: usize,
    /// `bar.arrive` arrivals counted towards each barrier's next completion.
    pub(super) arrivals: [u32; BARRIERS],
    /// What the `mbarrier` waits saw last round (the lanes, the objects they test, their
    /// contents), and for how many rounds in a row it stayed so.
    mbarrier_fingerprint: u64,
    stalled_mbarrier_rounds: u32,
}

thread_local! {
    /// The block this worker thread is running, for the runtime functions its threads call.
    pub(super) static CURRENT_BLOCK: Cell<*mut Block> = const { Cell::new(ptr::null_mut()) };
}

impl Block {
    pub(super) fn new(count: usize) -> Block {
        Block {
            lanes: (0..count).map(|_| Lane { wait: Wait::Running, result: 0, handle: ptr::null() }).collect(),
            current: 0,
            arrivals: [0; BARRIERS],
            mbarrier_fingerprint: 0,
            stalled_mbarrier_rounds: 0,
        }
    }

    pub(super) fn all_exited(&self) -> bool {
        self.lanes.iter().all(|lane| lane.wait == Wait::Exited)
    }

    /// Completes every warp collective of warp `warp` whose member lanes have all arrived.
    pub(super) fn complete_warp(&mut self, warp: usize) -> bool {
        let warp_start = warp * WARP_SIZE;
        let warp_end = (warp_start + WARP_SIZE).min(self.lanes.len());
        let mut completed = false;
        for leader in warp_start..warp_end {
            let Wait::Warp { collective, member_mask, .. } = self.lanes[leader].wait else { continue };
            let waiting_with = |lane: &Lane| matches!(lane.wait, Wait::Warp { collective: other, member_mask: other_mask, .. } if other == collective && other_mask == member_mask);
            let mut group = [0usize; WARP_SIZE];
            let mut members = 0;
            if member_mask == 0 || collective == warp_collective::ACTIVE_MASK {
                // Without a member mask, the lanes that arrived together are the active ones.
                for index in warp_start..warp_end {
                    if waiting_with(&self.lanes[index]) {
                        group[members] = index;
                        members += 1;
                    }
                }
            } else {
                let mut ready = true;
                for index in warp_start..warp_end {
                    if member_mask & (1 << (index - warp_start)) == 0 || self.lanes[index].wait == Wait::Exited {
                        continue;
                    }
                    ready &= waiting_with(&self.lanes[index]);
                    group[members] = index;
                    members += 1;
                }
                if !ready {
                    continue;
                }
            }
            let group = &group[..members];
            let mut deposits = [Deposit { lane: 0, a: 0, b: 0, c: 0 }; WARP_SIZE];
            for (deposit, &index) in deposits.iter_mut().zip(group) {
                let lane = (index - warp_start) as u32;
                *deposit = match self.lanes[index].wait {
                    Wait::Warp { a, b, c, .. } => Deposit { lane, a, b, c },
                    _ => Deposit { lane, a: 0, b: 0, c: 0 },
                };
            }
            let mut results = [0u64; WARP_SIZE];
            // SAFETY: for the matrix collectives the compiled kernel deposits the address of the
            // lane's fragment buffer, which stays valid while the lane is suspended here.
            if !unsafe { matrix::complete(collective, &deposits[..members]) } {
                warp::resolve_into(collective, &deposits[..members], &mut results[..members]);
            }
            for (&index, &result) in group.iter().zip(&results) {
                self.lanes[index].result = result;
                self.lanes[index].wait = Wait::Running;
            }
            completed = true;
        }
        completed
    }

    /// Completes every warp collective whose member lanes have all arrived.
    pub(super) fn complete_warp_collectives(&mut self) -> bool {
        let mut completed = false;
        for warp in 0..self.lanes.len().div_ceil(WARP_SIZE) {
            completed |= self.complete_warp(warp);
        }
        completed
    }

    /// Completes every barrier that enough threads have reached: the number given to `bar`, or
    /// every thread of the block that has not exited.
    pub(super) fn complete_barriers(&mut self) -> bool {
        let mut waiting = [0u32; BARRIERS];
        let mut true_counts = [0u64; BARRIERS];
        let mut thread_counts = [None::<u32>; BARRIERS];
        let mut alive = 0u32;
        for lane in &self.lanes {
            match lane.wait {
                Wait::Exited => continue,
                Wait::Barrier { barrier, thread_count, predicate, .. } => {
                    let barrier = barrier as usize;
                    waiting[barrier] += 1;
                    true_counts[barrier] += u64::from(predicate);
                    // The first waiting thread's count stands for the barrier, as before.
                    thread_counts[barrier].get_or_insert(thread_count);
                }
                _ => {}
            }
            alive += 1;
        }
        let mut released = [false; BARRIERS];
        for barrier in 0..BARRIERS {
            let Some(thread_count) = thread_counts[barrier] else { continue };
            let expected = if thread_count == 0 { alive } else { thread_count.min(alive.max(1)) };
            let arrived = waiting[barrier] + self.arrivals[barrier];
            if arrived < expected {
                continue;
            }
            self.arrivals[barrier] = arrived.saturating_sub(expected).min(self.arrivals[barrier]);
            released[barrier] = true;
        }
        if !released.contains(&true) {
            return false;
        }
        for lane in &mut self.lanes {
            let Wait::Barrier { barrier, operation, .. } = lane.wait else { continue };
            let barrier = barrier as usize;
            if !released[barrier] {
                continue;
            }
            lane.result = barrier_result(operation, true_counts[barrier], u64::from(waiting[barrier]));
            lane.wait = Wait::Running;
        }
        true
    }

    /// Completes every `mbarrier` wait whose phase has completed and every yield of
    /// `mbarrier.test_wait`; false when none completes, or when only yields have completed for
    /// [`STALLED_MBARRIER_ROUNDS`] rounds with nothing they test changing (a spin that can
    /// never end).
    pub(super) fn complete_mbarrier_waits(&mut self) -> bool {
        let mut fingerprint = 0xcbf2_9ce4_8422_2325_u64;
        let mut waited = false;
        let mut completed_blocking = false;
        let mut yielded = false;
        for (index, lane) in self.lanes.iter_mut().enumerate() {
            let Wait::Mbarrier { address, phase, mask } = lane.wait else { continue };
            waited = true;
            // SAFETY: the compiled code tested the object at this address just before waiting.
            let object = unsafe { read_object(address) };
            for word in [index as u64, address, object] {
                fingerprint = (fingerprint ^ word).wrapping_mul(0x0100_0000_01b3);
            }
            if mask == 0 {
                yielded = true;
            } else if mbarrier_object::phase(object) & mask == phase & mask {
                continue;
            } else {
                completed_blocking = true;
            }
            lane.result = 0;
            lane.wait = Wait::Running;
        }
        if !waited {
            return false;
        }
        if completed_blocking || fingerprint != self.mbarrier_fingerprint {
            self.mbarrier_fingerprint = fingerprint;
            self.stalled_mbarrier_rounds = 0;
        } else {
            self.stalled_mbarrier_rounds += 1;
        }
        (completed_blocking || yielded) && self.stalled_mbarrier_rounds < STALLED_MBARRIER_ROUNDS
    }

    pub(super) fn deadlock_message(&self) -> String {
        let barrier_waits = self.lanes.iter().filter(|lane| matches!(lane.wait, Wait::Barrier { .. })).count();
        let warp_waits = self.lanes.iter().filter(|lane| matches!(lane.wait, Wait::Warp { .. })).count();
        let mbarrier_waits = self.lanes.iter().filter(|lane| matches!(lane.wait, Wait::Mbarrier { .. })).count();
        let exited = self.lanes.iter().filter(|lane| lane.wait == Wait::Exited).count();
        format!(
            "deadlock in a block of {} threads: {barrier_waits} wait at barriers, {warp_waits} at warp collectives \
             and {mbarrier_waits} on mbarrier phases that can never complete ({exited} have exited)",
            self.lanes.len()
        )
    }
}

/// What barrier `operation` gives each of the `waiting` threads it releases, `true_count` of
/// which gave a true predicate: the reduction of `bar.red`, 0 for `bar.sync`.
pub(super) fn barrier_result(operation: u32, true_count: u64, waiting: u64) -> u64 {
    match operation {
        barrier_operation::REDUCE_POPULATION_COUNT => true_count,
        barrier_operation::REDUCE_AND => u64::from(true_count == waiting),
        barrier_operation::REDUCE_OR => u64::from(true_count > 0),
        _ => 0,
    }
}

/// The 64-bit `mbarrier` object at `address`.
///
/// # Safety
///
/// `address` is readable for 8 bytes.
unsafe fn read_object(address: u64) -> u64 {
    let pointer = address as *mut u64;
    if pointer.is_aligned() {
        // SAFETY: per the contract; compiled code accesses the object with atomics.
        unsafe { std::sync::atomic::AtomicU64::from_ptr(pointer).load(std::sync::atomic::Ordering::Acquire) }
    } else {
        // SAFETY: per the contract (a misaligned object is undefined in PTX; it is still read).
        unsafe { pointer.read_unaligned() }
    }
}

/// Records what the running thread of this worker's block waits for; false outside a block.
///
/// # Safety
///
/// Called from a thread of the block running on this worker, while the scheduler is suspended.
pub(super) unsafe fn record_wait(wait: Wait) -> bool {
    let block = CURRENT_BLOCK.with(Cell::get);
    if block.is_null() {
        return false;
    }
    // SAFETY: the scheduler does not touch the block while one of its threads runs.
    unsafe {
        let current = (*block).current;
        (&mut (*block).lanes)[current].wait = wait;
    }
    true
}

/// `bar.arrive`: counts towards the barrier's next completion without waiting.
pub(super) fn arrive(barrier: u32) {
    let block = CURRENT_BLOCK.with(Cell::get);
    if !block.is_null() {
        // SAFETY: as in `record_wait`.
        unsafe { (*block).arrivals[barrier as usize % BARRIERS] += 1 };
    }
}

/// One worker's allocation that its blocks reuse (the work-item state arrays, the coroutine
/// frames): it grows when a block needs more and is freed with the worker.
pub(super) struct ReusedAllocation {
    base: *mut u8,
    layout: Option<Layout>,
}

impl ReusedAllocation {
    pub(super) const fn new() -> ReusedAllocation {
        ReusedAllocation { base: ptr::null_mut(), layout: None }
    }

    /// At least `bytes` (non-zero) aligned to `align`, reusing the allocation when it is large
    /// and aligned enough; null when the allocation fails.
    pub(super) fn reserve(&mut self, bytes: usize, align: usize) -> *mut u8 {
        if self.layout.is_some_and(|layout| layout.size() >= bytes && layout.align() >= align) {
            return self.base;
        }
        self.release();
        let Ok(layout) = Layout::from_size_align(bytes, align) else { return ptr::null_mut() };
        // SAFETY: the layout has a non-zero size.
        self.base = unsafe { alloc::alloc(layout) };
        if !self.base.is_null() {
            self.layout = Some(layout);
        }
        self.base
    }

    /// The allocation and its layout, if there is one.
    pub(super) fn current(&self) -> Option<(*mut u8, Layout)> {
        self.layout.map(|layout| (self.base, layout))
    }

    fn release(&mut self) {
        if let Some(layout) = self.layout.take() {
            // SAFETY: allocated in `reserve` with this layout.
            unsafe { alloc::dealloc(self.base, layout) };
            self.base = ptr::null_mut();
        }
    }
}

impl Drop for ReusedAllocation {
    fn drop(&mut self) {
        self.release();
    }
}
