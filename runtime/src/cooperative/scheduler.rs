//! The coroutine scheduler of one cooperative block, and the runtime functions that compiled
//! threads call to wait in it.

use std::cell::{Cell, RefCell};

use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::block::{arrive, Block, Lane, Wait, BARRIERS, CURRENT_BLOCK};
use crate::abi::{barrier_operation, BlockContext, ThreadEntry};

/// Each PTX thread's stack: its registers live in the compiled code's frames there. Address
/// space is reserved, and pages are touched only as deep as the kernel goes.
pub(crate) const THREAD_STACK_BYTES: usize = 256 << 10;

thread_local! {
    /// Set by `exit` inside a function until the kernel body takes it (`ptxr_thread_exited`).
    static THREAD_EXITING: Cell<bool> = const { Cell::new(false) };
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
    let mut block = Block::new(count);
    let block_pointer: *mut Block = &mut block;
    let mut coroutines = Vec::with_capacity(count);
    // The low end of each thread's stack, for its `alloca`s (`stack_floor`).
    let mut floors = Vec::with_capacity(count);
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
        floors.push(stack.limit().get());
        let x = (index % size_x as usize) as u32;
        let y = (index / size_x as usize % size_y as usize) as u32;
        let z = (index / (size_x as usize * size_y as usize)) as u32;
        // SAFETY: `lanes` is never resized while the coroutines live, so the pointer stays valid.
        let lane: *mut Lane = unsafe { (*block_pointer).lanes.as_mut_ptr().add(index) };
        coroutines.push(Coroutine::with_stack(stack, move |yielder: &Yielder<(), ()>, ()| {
            // SAFETY: the lane outlives its coroutine; the entry's contract is the caller's.
            unsafe {
                (*lane).handle = (yielder as *const Yielder<(), ()>).cast();
                entry(params, context, x, y, z);
            }
        }));
    }

    let previous = CURRENT_BLOCK.with(|current| current.replace(block_pointer));
    let worker_floor = crate::stack_floor::ptxr_stack_floor();
    // SAFETY: only this thread touches the block; coroutines run one at a time and access it
    // through the same pointer while the scheduler is suspended in `resume`.
    unsafe { schedule(block_pointer, &mut coroutines, &floors) };
    crate::stack_floor::restore(worker_floor);
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
/// Each thread runs with its own stack's floor, `floors[index]`, for its `alloca`s.
unsafe fn schedule(block: *mut Block, coroutines: &mut [Coroutine<(), (), (), DefaultStack>], floors: &[usize]) {
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
            crate::stack_floor::set(floors[index]);
            if let CoroutineResult::Return(()) = coroutine.resume(()) {
                // SAFETY: as above.
                unsafe { (&mut (*block).lanes)[index].wait = Wait::Exited };
            }
        }
        // SAFETY: every coroutine is suspended now; the scheduler owns the block.
        let block = unsafe { &mut *block };
        if block.all_exited() {
            return;
        }
        if block.complete_warp_collectives() || block.complete_barriers() || block.complete_mbarrier_waits() {
            continue;
        }
        fail(block.deadlock_message());
        return;
    }
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
        let yielder = (*lane).handle.cast::<Yielder<(), ()>>();
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
        arrive(barrier);
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

/// `mbarrier.try_wait` and `mbarrier.test_wait` (see
/// [`crate::abi::runtime_function::MBARRIER_WAIT`]).
///
/// # Safety
///
/// Called by compiled kernel code inside [`ptxr_run_cooperative_block`], with the address of
/// an object it has just read.
pub unsafe extern "C" fn ptxr_mbarrier_wait(address: u64, phase: u32, mask: u32) -> u32 {
    // SAFETY: forwarded from the caller.
    unsafe { wait(Wait::Mbarrier { address, phase, mask }) as u32 }
}

/// `trap` (see [`crate::abi::runtime_function::TRAP`]): records the failure that stops the
/// launch after this block. The compiled code then leaves the thread (or function), as `exit`
/// does; the block's other threads finish, and no further block starts.
pub extern "C" fn ptxr_trap() {
    fail("the kernel executed `trap`".to_string());
}

/// Whether the block running on this thread has stopped, or the running PTX thread is leaving
/// after `exit` in a function (see [`crate::abi::runtime_function::STOPPED`]).
pub extern "C" fn ptxr_stopped() -> u32 {
    let failed = BLOCK_FAILURE.with(|failure| failure.borrow().is_some());
    u32::from(failed || THREAD_EXITING.with(Cell::get))
}

/// `exit` inside a function (see [`crate::abi::runtime_function::EXIT_THREAD`]). Between this
/// call and the kernel body's [`ptxr_thread_exited`] the thread only returns through its
/// callers, never waits, so no other PTX thread of this worker runs in between and one mark per
/// worker is enough.
pub extern "C" fn ptxr_exit_thread() {
    THREAD_EXITING.with(|exiting| exiting.set(true));
}

/// Whether the running PTX thread exited inside the function it just called, clearing the mark
/// (see [`crate::abi::runtime_function::THREAD_EXITED`]).
pub extern "C" fn ptxr_thread_exited() -> u32 {
    u32::from(THREAD_EXITING.with(|exiting| exiting.replace(false)))
}

/// `%globaltimer` (see [`crate::abi::runtime_function::GLOBAL_TIMER`]): the host's clock in
/// nanoseconds, which runs on while threads wait, as the GPU's timer does.
pub extern "C" fn ptxr_global_timer() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX))
}

/// `nanosleep` (see [`crate::abi::runtime_function::SLEEP`]): PTX bounds the delay by a
/// millisecond, and so does this.
pub extern "C" fn ptxr_nanosleep(nanoseconds: u32) {
    std::thread::sleep(std::time::Duration::from_nanos(u64::from(nanoseconds.min(1_000_000))));
}
