//! How far a PTX thread's `alloca` may take its stack on the CPU. Compiled code reads the
//! running thread's floor ([`ptxr_stack_floor`]: the lowest address an allocation may reach)
//! before each `alloca`, and stops the thread ([`ptxr_stack_overflow`]) instead of moving the
//! stack pointer past it, so a kernel that allocates more than its stack holds fails the launch
//! with a message rather than crashing the process with SIGSEGV.
//!
//! A worker thread's floor is set from its own stack when it starts ([`set_for_this_thread`]);
//! the cooperative scheduler sets each coroutine's before resuming it ([`set`]). A floor of 0
//! (code running outside ptxr's launcher) lets every allocation through.

use std::cell::Cell;

/// What stays free below the deepest allocation: the frames of the calls that follow it (the
/// kernel's own, the runtime's `printf`, the scheduler's switch to another thread).
pub const RESERVE_BYTES: usize = 64 << 10;

thread_local! {
    static FLOOR: Cell<u64> = const { Cell::new(0) };
}

/// Sets this OS thread's floor to `lowest_address` (the low end of the stack the compiled code
/// runs on) plus [`RESERVE_BYTES`]; returns the floor it replaces.
pub fn set(lowest_address: usize) -> u64 {
    let floor = lowest_address.saturating_add(RESERVE_BYTES) as u64;
    FLOOR.with(|current| current.replace(floor))
}

/// Gives back a floor that [`set`] returned.
pub fn restore(floor: u64) {
    FLOOR.with(|current| current.set(floor));
}

/// Sets the floor of the calling thread's own stack, as the C library reports it. Leaves it at
/// 0 (unchecked) where the library cannot say.
pub fn set_for_this_thread() {
    if let Some(lowest_address) = lowest_stack_address() {
        set(lowest_address);
    }
}

#[cfg(target_os = "linux")]
fn lowest_stack_address() -> Option<usize> {
    // SAFETY: `attributes` is initialised by `pthread_getattr_np` before it is read and
    // destroyed once; the out-pointers are live locals.
    unsafe {
        let mut attributes: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attributes) != 0 {
            return None;
        }
        let mut address: *mut libc::c_void = std::ptr::null_mut();
        let mut size: libc::size_t = 0;
        let found = libc::pthread_attr_getstack(&attributes, &mut address, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attributes);
        (found && !address.is_null()).then_some(address as usize)
    }
}

#[cfg(not(target_os = "linux"))]
fn lowest_stack_address() -> Option<usize> {
    None
}

/// The running thread's floor (see [`crate::abi::runtime_function::STACK_FLOOR`]).
pub extern "C" fn ptxr_stack_floor() -> u64 {
    FLOOR.with(Cell::get)
}

/// An `alloca` would have passed the floor (see [`crate::abi::runtime_function::STACK_OVERFLOW`]):
/// records the failure that stops the launch after this block, as `trap` does.
pub extern "C" fn ptxr_stack_overflow() {
    crate::cooperative::fail(format!(
        "a thread's `alloca` needed more stack than it has left: ptxr keeps {} KiB of each thread's stack free, and \
         a thread has {} KiB of stack in a kernel that waits (barriers, warp collectives), {} MiB otherwise",
        RESERVE_BYTES >> 10,
        crate::cooperative::THREAD_STACK_BYTES >> 10,
        crate::launch::DEFAULT_WORKER_STACK_BYTES >> 20,
    ));
}
