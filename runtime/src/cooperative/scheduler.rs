//! The coroutine scheduler of one cooperative block, and the runtime functions that compiled
//! threads call to wait in it.

use std::cell::{Cell, RefCell};
use std::ptr;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::warp::{self, Deposit};
use crate::abi::{barrier_operation, warp_collective, BlockContext, ThreadEntry};

/// Each PTX thread's stack: its registers live in the compiled code's frames there. Address
/// space is reserved, and pages are touched only as deep as the kernel goes.
const THREAD_STACK_BYTES: usize = 256 << 10;
const WARP_SIZE: usize = 32;
/// `bar` numbers 0 to 15.
const BARRIERS: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    Running,
    Barrier { barrier: u32, operation: u32, thread_count: u32, predicate: bool },
    Warp { collective: u32, member_mask: u32, a: u64, b: u32, c: u32 },
    Exited,
}

struct Lane {
    wait: Wait,
    /// What the collective or barrier gave this thread, read when it resumes.
    result: u64,
    yielder: *const Yielder<(), ()>,
}

struct Block {
    lanes: Vec<Lane>,
    /// The lane that is running now.
    current: usize,
    /// `bar.arrive` arrivals counted towards each barrier's next completion.
    arrivals: [u32; BARRIERS],
}

thread_local! {
    /// The block this worker thread is running, for the runtime functions its threads call.
    static CURRENT_BLOCK: Cell<*mut Block> = const { Cell::new(ptr::null_mut()) };
    /// Coroutine stacks kept for the worker's next blocks.
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
    /// Why the last block stopped early; taken by the launcher after each block.
    static BLOCK_FAILURE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The failure of the block that just ran on this thread, if it stopped early.
pub fn take_block_failure() -> Option<String> {
    BLOCK_FAILURE.with(|failure| failure.borrow_mut().take())
}

pub(crate) fn fail(message: String) {
    BLOCK_FAILURE.with(|failure| {
        failure.borrow_mut().get_or_insert(message);
    });
}

/// Runs every thread of the block described by `context` as a coroutine calling `entry`.
///
/// # Safety
///
/// `params` and `context` are valid as for a block entry (see [`crate::abi`]), and `entry` is
/// the thread entry compiled for the same kernel.
pub unsafe extern "C" fn ptxr_run_cooperative_block(
    params: *const *const u8,
    context: *const BlockContext,
    entry: ThreadEntry,
) {
    // SAFETY: the caller passes the live context of this block.
    let [size_x, size_y, size_z] = unsafe { (*context).ntid };
    let count = size_x as usize * size_y as usize * size_z as usize;
    let mut block = Block {
        lanes: (0..count).map(|_| Lane { wait: Wait::Running, result: 0, yielder: ptr::null() }).collect(),
        current: 0,
        arrivals: [0; BARRIERS],
    };
    let block_pointer: *mut Block = &mut block;
    let mut coroutines = Vec::with_capacity(count);
    for index in 0..count {
        let stack = match STACKS
            .with(|stacks| stacks.borrow_mut().pop())
            .map_or_else(|| DefaultStack::new(THREAD_STACK_BYTES), Ok)
        {
            Ok(stack) => stack,
            Err(error) => {
                fail(format!("cannot allocate the stack of thread {index} of a block: {error}"));
                return;
            }
        };
        let x = (index % size_x as usize) as u32;
        let y = (index / size_x as usize % size_y as usize) as u32;
        let z = (index / (size_x as usize * size_y as usize)) as u32;
        // SAFETY: `lanes` is never resized while the coroutines live, so the pointer stays valid.
        let lane: *mut Lane = unsafe { (*block_pointer).lanes.as_mut_ptr().add(index) };
        coroutines.push(Coroutine::with_stack(stack, move |yielder: &Yielder<(), ()>, ()| {
            // SAFETY: the lane outlives its coroutine; the entry's contract is the caller's.
            unsafe {
                (*lane).yielder = yielder;
                entry(params, context, x, y, z);
            }
        }));
    }

    let previous = CURRENT_BLOCK.with(|current| current.replace(block_pointer));
    // SAFETY: only this thread touches the block; coroutines run one at a time and access it
    // through the same pointer while the scheduler is suspended in `resume`.
    unsafe { schedule(block_pointer, &mut coroutines) };
    CURRENT_BLOCK.with(|current| current.set(previous));

    for mut coroutine in coroutines {
        if !coroutine.done() {
            // SAFETY: a thread stopped at a barrier or collective holds nothing that needs
            // dropping: its frames are compiled PTX and the runtime function's plain values.
            unsafe { coroutine.force_reset() };
        }
        let stack = coroutine.into_stack();
        STACKS.with(|stacks| stacks.borrow_mut().push(stack));
    }
}

/// Runs threads until all have exited, completing barriers and collectives between rounds.
unsafe fn schedule(block: *mut Block, coroutines: &mut [Coroutine<(), (), (), DefaultStack>]) {
    loop {
        for (index, coroutine) in coroutines.iter_mut().enumerate() {
            // SAFETY: see `ptxr_run_cooperative_block`; no reference into the block is held
            // across `resume`.
            unsafe {
                if (&(*block).lanes)[index].wait != Wait::Running {
                    continue;
                }
                (*block).current = index;
            }
            if let CoroutineResult::Return(()) = coroutine.resume(()) {
                // SAFETY: as above.
                unsafe { (&mut (*block).lanes)[index].wait = Wait::Exited };
            }
        }
        // SAFETY: every coroutine is suspended now; the scheduler owns the block.
        let block = unsafe { &mut *block };
        if block.lanes.iter().all(|lane| lane.wait == Wait::Exited) {
            return;
        }
        if complete_warp_collectives(block) || complete_barriers(block) {
            continue;
        }
        fail(deadlock_message(block));
        return;
    }
}

/// Completes every warp collective whose member lanes have all arrived.
fn complete_warp_collectives(block: &mut Block) -> bool {
    let mut completed = false;
    for warp_start in (0..block.lanes.len()).step_by(WARP_SIZE) {
        let warp_end = (warp_start + WARP_SIZE).min(block.lanes.len());
        for leader in warp_start..warp_end {
            let Wait::Warp { collective, member_mask, .. } = block.lanes[leader].wait else { continue };
            let waiting_with = |lane: &Lane| matches!(lane.wait, Wait::Warp { collective: other, member_mask: other_mask, .. } if other == collective && other_mask == member_mask);
            let group: Vec<usize> = if member_mask == 0 || collective == warp_collective::ACTIVE_MASK {
                // Without a member mask, the lanes that arrived together are the active ones.
                (warp_start..warp_end).filter(|&index| waiting_with(&block.lanes[index])).collect()
            } else {
                let members: Vec<usize> = (warp_start..warp_end)
                    .filter(|&index| {
                        member_mask & (1 << (index - warp_start)) != 0 && block.lanes[index].wait != Wait::Exited
                    })
                    .collect();
                if !members.iter().all(|&index| waiting_with(&block.lanes[index])) {
                    continue;
                }
                members
            };
            let deposits: Vec<Deposit> = group
                .iter()
                .map(|&index| match block.lanes[index].wait {
                    Wait::Warp { a, b, c, .. } => Deposit { lane: (index - warp_start) as u32, a, b, c },
                    _ => Deposit { lane: (index - warp_start) as u32, a: 0, b: 0, c: 0 },
                })
                .collect();
            for (&index, result) in group.iter().zip(warp::resolve(collective, &deposits)) {
                block.lanes[index].result = result;
                block.lanes[index].wait = Wait::Running;
            }
            completed = true;
        }
    }
    completed
}

/// Completes every barrier that enough threads have reached: the number given to `bar`, or
/// every thread of the block that has not exited.
fn complete_barriers(block: &mut Block) -> bool {
    let mut completed = false;
    let alive = block.lanes.iter().filter(|lane| lane.wait != Wait::Exited).count() as u32;
    for barrier in 0..BARRIERS as u32 {
        let waiting: Vec<usize> = (0..block.lanes.len())
            .filter(
                |&index| matches!(block.lanes[index].wait, Wait::Barrier { barrier: other, .. } if other == barrier),
            )
            .collect();
        let Some(&first) = waiting.first() else { continue };
        let Wait::Barrier { thread_count, .. } = block.lanes[first].wait else { continue };
        let expected = if thread_count == 0 { alive } else { thread_count.min(alive.max(1)) };
        let arrived = waiting.len() as u32 + block.arrivals[barrier as usize];
        if arrived < expected {
            continue;
        }
        let predicates =
            || waiting.iter().map(|&index| matches!(block.lanes[index].wait, Wait::Barrier { predicate: true, .. }));
        let true_count = predicates().filter(|&predicate| predicate).count() as u64;
        for &index in &waiting {
            let Wait::Barrier { operation, .. } = block.lanes[index].wait else { continue };
            block.lanes[index].result = match operation {
                barrier_operation::REDUCE_POPULATION_COUNT => true_count,
                barrier_operation::REDUCE_AND => u64::from(true_count == waiting.len() as u64),
                barrier_operation::REDUCE_OR => u64::from(true_count > 0),
                _ => 0,
            };
        }
        for &index in &waiting {
            block.lanes[index].wait = Wait::Running;
        }
        block.arrivals[barrier as usize] = arrived.saturating_sub(expected).min(block.arrivals[barrier as usize]);
        completed = true;
    }
    completed
}

fn deadlock_message(block: &Block) -> String {
    let barrier_waits = block.lanes.iter().filter(|lane| matches!(lane.wait, Wait::Barrier { .. })).count();
    let warp_waits = block.lanes.iter().filter(|lane| matches!(lane.wait, Wait::Warp { .. })).count();
    let exited = block.lanes.iter().filter(|lane| lane.wait == Wait::Exited).count();
    format!(
        "deadlock in a block of {} threads: {barrier_waits} wait at barriers and {warp_waits} at warp collectives that can \
         never complete ({exited} have exited)",
        block.lanes.len()
    )
}

/// Suspends the running thread until the scheduler completes what it waits for.
///
/// # Safety
///
/// Called from a thread of the block running on this worker.
unsafe fn wait(wait: Wait) -> u64 {
    let block = CURRENT_BLOCK.with(Cell::get);
    if block.is_null() {
        // Not inside a cooperative block (a kernel object linked into another host program):
        // a lone thread meets nobody.
        return 0;
    }
    // SAFETY: the scheduler is suspended in `resume` while this thread runs.
    unsafe {
        let lane = (*block).lanes.as_mut_ptr().add((*block).current);
        (*lane).wait = wait;
        let yielder = (*lane).yielder;
        (*yielder).suspend(());
        (*lane).result
    }
}

/// A block barrier (see [`crate::abi::runtime_function::BARRIER`]).
///
/// # Safety
///
/// Called by compiled kernel code inside [`ptxr_run_cooperative_block`].
pub unsafe extern "C" fn ptxr_barrier(operation: u32, barrier: u32, thread_count: u32, predicate: u32) -> u32 {
    let barrier = barrier % BARRIERS as u32;
    if operation == barrier_operation::ARRIVE {
        let block = CURRENT_BLOCK.with(Cell::get);
        if !block.is_null() {
            // SAFETY: as in `wait`.
            unsafe { (*block).arrivals[barrier as usize] += 1 };
        }
        return 0;
    }
    // SAFETY: forwarded from the caller.
    unsafe { wait(Wait::Barrier { barrier, operation, thread_count, predicate: predicate != 0 }) as u32 }
}

/// A warp collective (see [`crate::abi::runtime_function::WARP_COLLECTIVE`]).
///
/// # Safety
///
/// Called by compiled kernel code inside [`ptxr_run_cooperative_block`].
pub unsafe extern "C" fn ptxr_warp_collective(collective: u32, member_mask: u32, a: u64, b: u32, c: u32) -> u64 {
    // SAFETY: forwarded from the caller.
    unsafe { wait(Wait::Warp { collective, member_mask, a, b, c }) }
}

/// `trap` (see [`crate::abi::runtime_function::TRAP`]): records the failure that stops the
/// launch after this block. The compiled code then leaves the thread (or function), as `exit`
/// does; the block's other threads finish, and no further block starts.
pub extern "C" fn ptxr_trap() {
    fail("the kernel executed `trap`".to_string());
}

/// Whether the block running on this thread has stopped (see
/// [`crate::abi::runtime_function::STOPPED`]).
pub extern "C" fn ptxr_stopped() -> u32 {
    BLOCK_FAILURE.with(|failure| u32::from(failure.borrow().is_some()))
}

/// `nanosleep` (see [`crate::abi::runtime_function::SLEEP`]): PTX bounds the delay by a
/// millisecond, and so does this.
pub extern "C" fn ptxr_nanosleep(nanoseconds: u32) {
    std::thread::sleep(std::time::Duration::from_nanos(u64::from(nanoseconds.min(1_000_000))));
}
