//! Blocks whose threads must meet: kernels with barriers, warp collectives or `mbarrier` waits.
//!
//! The compiler builds such a kernel's block entry as a call to
//! [`ptxr_run_cooperative_block`] with the kernel's per-thread entry. Every thread of the block
//! becomes a stackful coroutine on the worker's OS thread (never one OS thread per PTX thread).
//! A thread runs until it reaches a barrier or a warp collective, where the runtime function
//! records what it waits for and suspends it. When every thread is waiting (or has exited), the
//! scheduler completes what can complete: warp collectives whose member lanes have all arrived
//! (their results computed by [`warp::resolve_into`], or by [`matrix`] for `mma` and
//! `ldmatrix`), then barriers that enough threads reached, and resumes those threads. Nothing completing while threads still wait is a deadlock, which
//! stops the launch with a message instead of hanging.
//!
//! Three schemes run the threads: compiled loops over the threads between waits
//! ([`work_items`]) when every barrier and collective is in the kernel body (the default),
//! LLVM coroutines ([`resumable`]) for such kernels when the loops cannot be built (`bar.arrive`,
//! barriers with a thread count) or are not wanted (`PTXR_CPU_WAITS=coroutines`), and stackful
//! coroutines ([`scheduler`]) when a called function waits too. All three share the block
//! state and its completion rules ([`block`]).

mod block;
pub mod matrix;
pub mod resumable;
mod scheduler;
pub mod warp;
pub mod work_items;

pub use resumable::{
    ptxr_resumable_barrier, ptxr_resumable_frame, ptxr_resumable_mbarrier_wait, ptxr_resumable_result,
    ptxr_resumable_started, ptxr_resumable_warp_collective, ptxr_run_resumable_block,
};
pub(crate) use scheduler::{fail, THREAD_STACK_BYTES};
pub use scheduler::{
    ptxr_barrier, ptxr_exit_thread, ptxr_global_timer, ptxr_mbarrier_wait, ptxr_nanosleep, ptxr_run_cooperative_block,
    ptxr_stopped, ptxr_thread_exited, ptxr_trap, ptxr_warp_collective, take_block_failure,
};
pub use work_items::ptxr_run_work_item_block;

use crate::abi::runtime_function;
use crate::device_library::{ptxr_assertfail, ptxr_free, ptxr_is_global_address, ptxr_malloc, ptxr_vprintf};

/// The runtime functions that compiled kernels may call, with their addresses, for the JIT.
pub fn runtime_symbols() -> Vec<(&'static str, usize)> {
    vec![
        (runtime_function::STOPPED, ptxr_stopped as *const () as usize),
        (runtime_function::EXIT_THREAD, ptxr_exit_thread as *const () as usize),
        (runtime_function::THREAD_EXITED, ptxr_thread_exited as *const () as usize),
        (runtime_function::PRINTF, ptxr_vprintf as *const () as usize),
        (runtime_function::MALLOC, ptxr_malloc as *const () as usize),
        (runtime_function::FREE, ptxr_free as *const () as usize),
        (runtime_function::IS_GLOBAL_ADDRESS, ptxr_is_global_address as *const () as usize),
        (runtime_function::ASSERT_FAIL, ptxr_assertfail as *const () as usize),
        (runtime_function::RUN_COOPERATIVE_BLOCK, ptxr_run_cooperative_block as *const () as usize),
        (runtime_function::BARRIER, ptxr_barrier as *const () as usize),
        (runtime_function::WARP_COLLECTIVE, ptxr_warp_collective as *const () as usize),
        (runtime_function::TRAP, ptxr_trap as *const () as usize),
        (runtime_function::SLEEP, ptxr_nanosleep as *const () as usize),
        (runtime_function::STACK_FLOOR, crate::stack_floor::ptxr_stack_floor as *const () as usize),
        (runtime_function::STACK_OVERFLOW, crate::stack_floor::ptxr_stack_overflow as *const () as usize),
        (runtime_function::GLOBAL_TIMER, ptxr_global_timer as *const () as usize),
        (runtime_function::RUN_RESUMABLE_BLOCK, ptxr_run_resumable_block as *const () as usize),
        (runtime_function::RESUMABLE_FRAME, ptxr_resumable_frame as *const () as usize),
        (runtime_function::RESUMABLE_STARTED, ptxr_resumable_started as *const () as usize),
        (runtime_function::RESUMABLE_BARRIER, ptxr_resumable_barrier as *const () as usize),
        (runtime_function::RESUMABLE_WARP_COLLECTIVE, ptxr_resumable_warp_collective as *const () as usize),
        (runtime_function::MBARRIER_WAIT, ptxr_mbarrier_wait as *const () as usize),
        (runtime_function::RESUMABLE_MBARRIER_WAIT, ptxr_resumable_mbarrier_wait as *const () as usize),
        (runtime_function::RESUMABLE_RESULT, ptxr_resumable_result as *const () as usize),
        (runtime_function::RUN_WORK_ITEM_BLOCK, ptxr_run_work_item_block as *const () as usize),
    ]
}
