//! CUDA's device library on the CPU: the `.extern .func`s `vprintf`, `malloc`, `free` and
//! `__assertfail` that nvcc and clang emit (ptx-abi.md section 4.3). The compiler turns calls of
//! them into calls of the runtime functions below ([`crate::abi::runtime_function`]).
//!
//! What they share within one launch ([`LaunchServices`]: the printf output and the heap) is
//! reached through a thread-local pointer that each worker sets while it runs blocks, so that
//! launches running at the same time in one process stay apart and the block ABI needs no
//! extra field. Outside a launch (a kernel object linked into another program) `vprintf` prints
//! nothing and `malloc` returns null.

pub mod heap;
pub mod printf;

use std::cell::Cell;
use std::io::Write;
use std::ptr;
use std::sync::{Arc, Mutex, PoisonError};

use crate::buffer::Placement;
use heap::DeviceHeap;

/// Where `vprintf` output goes: each call's text is written whole, under the lock, so lines
/// from different threads never interleave.
pub type PrintfOutput = Arc<Mutex<dyn Write + Send>>;

/// What the device functions of one launch share.
#[derive(Default)]
pub struct LaunchServices {
    pub printf_output: Option<PrintfOutput>,
    pub heap: DeviceHeap,
    /// The launch's buffers, `[start, end)`: its global memory besides the heap and the
    /// module's own `.global` variables (which the compiled code checks itself).
    pub buffer_ranges: Vec<(u64, u64)>,
}

thread_local! {
    static SERVICES: Cell<*const LaunchServices> = const { Cell::new(ptr::null()) };
}

/// Runs `work` (a worker's blocks) with `services` as the launch's services on this thread.
pub(crate) fn with_services<R>(services: &LaunchServices, work: impl FnOnce() -> R) -> R {
    let previous = SERVICES.with(|current| current.replace(services));
    let result = work();
    SERVICES.with(|current| current.set(previous));
    result
}

fn services() -> Option<&'static LaunchServices> {
    let pointer = SERVICES.with(Cell::get);
    // SAFETY: `with_services` keeps the pointer set only while the borrowed services live, and
    // compiled code calls these functions only from inside the blocks it runs.
    unsafe { pointer.as_ref() }
}

/// `vprintf` (see [`crate::abi::runtime_function::PRINTF`]).
///
/// # Safety
///
/// `format` is null or a NUL-terminated string, and `arguments` holds what it asks for.
pub unsafe extern "C" fn ptxr_vprintf(format: u64, arguments: u64, pointer_bytes: u32) -> i32 {
    if format == 0 {
        return -1;
    }
    // SAFETY: forwarded from the caller.
    let format_text = unsafe { printf::read_c_string(format, usize::MAX) };
    // SAFETY: as above.
    let mut source = unsafe { printf::PackedArguments::new(arguments as usize as *const u8) };
    let pointer_bytes = if pointer_bytes == 4 { 4 } else { 8 };
    let (text, count) = printf::format(&format_text, &mut source, pointer_bytes);
    if let Some(output) = services().and_then(|services| services.printf_output.as_ref()) {
        let mut output = output.lock().unwrap_or_else(PoisonError::into_inner);
        // A closed output (`ptxr run | head`) is the reader's choice, not the kernel's failure.
        // Flushing is the owner's business: `ptxr run` buffers and flushes after the grid.
        let _ = output.write_all(&text);
    }
    count
}

/// `malloc` (see [`crate::abi::runtime_function::MALLOC`]).
pub extern "C" fn ptxr_malloc(bytes: u64, pointer_bytes: u32) -> u64 {
    let placement = if pointer_bytes == 4 { Placement::Below4GiB } else { Placement::Anywhere };
    services().map_or(0, |services| services.heap.allocate(bytes, placement))
}

/// `free` (see [`crate::abi::runtime_function::FREE`]).
pub extern "C" fn ptxr_free(address: u64) {
    if let Some(services) = services() {
        services.heap.free(address);
    }
}

/// `isspacep.global` (see [`crate::abi::runtime_function::IS_GLOBAL_ADDRESS`]): 1 when
/// `address` lies in one of the launch's buffers or in its device heap, 0 otherwise (and
/// outside a launch).
pub extern "C" fn ptxr_is_global_address(address: u64) -> u32 {
    services().map_or(0, |services| {
        let in_buffer = services.buffer_ranges.iter().any(|&(start, end)| (start..end).contains(&address));
        u32::from(in_buffer || services.heap.contains(address))
    })
}

/// The longest string of an assertion that is read.
const ASSERTION_STRING_LIMIT: usize = 4096;

/// `__assertfail` (see [`crate::abi::runtime_function::ASSERT_FAIL`]): records the failure,
/// worded as CUDA words it, that stops the launch; the compiled code then leaves the thread.
///
/// # Safety
///
/// `message`, `file` and `function` are null or NUL-terminated strings.
pub unsafe extern "C" fn ptxr_assertfail(message: u64, file: u64, line: u32, function: u64, x: u32, y: u32, z: u32) {
    // SAFETY: forwarded from the caller.
    let text = |address| unsafe {
        String::from_utf8_lossy(&printf::read_c_string(address, ASSERTION_STRING_LIMIT)).into_owned()
    };
    crate::cooperative::fail(format!(
        "thread ({x}, {y}, {z}): {}:{line}: {}: Assertion `{}` failed.",
        text(file),
        text(function),
        text(message)
    ));
}
