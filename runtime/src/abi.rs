//! The binary interface between a kernel compiled for the host CPU and this runtime.
//!
//! The compiler turns each PTX `.entry` into a *block entry*: a C-ABI function that runs every
//! thread of one thread block. The runtime calls it once per block of the grid, possibly from
//! several OS threads at once (different blocks), so compiled code must not keep per-launch state
//! outside the context, the parameters and the memory they point at.
//!
//! ```text
//! void entry(const uint8_t *const *params, const BlockContext *context);
//! ```
//!
//! - `params[i]` points at the bytes of kernel parameter `i` in `.param` order, like CUDA's
//!   `kernelParams`: little-endian, each in its own 16-byte aligned storage, all of them inside
//!   the context's `.param` window (`BlockContext::parameter_window`). A pointer parameter
//!   holds the buffer's host address (8 bytes; 4 bytes for `.address_size 32` kernels, whose
//!   buffers the runtime places below 4 GiB so that the zero-extended value is the address).
//! - `context` describes the block (see [`BlockContext`]); it lives until the entry returns.

/// One per block launch; read by the compiled block entry. Field order is the ABI: the compiler
/// builds an LLVM struct `{ [3 x i32], [3 x i32], [3 x i32], i32, ptr, i32, ptr, ptr, i64, i64, i32,
/// i32, i64 }` with the same layout.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct BlockContext {
    /// Field 0: this block's index in the grid (`%ctaid`).
    pub ctaid: [u32; 3],
    /// Field 1: grid size in blocks (`%nctaid`).
    pub nctaid: [u32; 3],
    /// Field 2: block size in threads (`%ntid`).
    pub ntid: [u32; 3],
    /// Field 3: bytes of dynamic shared memory (the launch's `shared_bytes`).
    pub dynamic_shared_bytes: u32,
    /// Field 4: this block's shared memory window: the static `.shared` variables at the
    /// compiler's layout (`ptxr_frontend::ir::SharedLayout`), then the dynamic shared memory
    /// (`.extern .shared` arrays) from offset `static_shared_bytes`. 256-byte aligned,
    /// zero-filled at the start of each block, never null (a valid address even for 0 bytes).
    pub shared: *mut u8,
    /// Field 5: bytes of static shared memory before the dynamic part.
    pub static_shared_bytes: u32,
    /// Field 6: the entry's `params` array, so that any thread can take a kernel parameter's
    /// address (`mov`/`cvta.param`): `parameters[i]` is where parameter i's bytes lie.
    pub parameters: *const *const u8,
    /// Field 7: the launch's `.param` window: every parameter's bytes lie in
    /// `[parameter_window, parameter_window + parameter_window_bytes)`, which `isspacep.param`
    /// tests in any function. Shared by every block, read-only, like CUDA's kernel parameters
    /// (ISA 7.8 section 5.1.6.1).
    pub parameter_window: *const u8,
    /// Field 8: the size of that window in bytes.
    pub parameter_window_bytes: u64,
    /// Field 9: the launch's `%gridid` (ISA 7.8 section 10.10): a process-wide launch counter,
    /// distinct for every launch of this process and never 0.
    pub grid_id: u64,
    /// Field 10: `%smid` (section 10.8): the index of the worker (OS thread) running this block,
    /// below `sm_count`. A block runs on one worker from start to end.
    pub sm_id: u32,
    /// Field 11: `%nsmid` (section 10.9): the number of workers of this launch.
    pub sm_count: u32,
    /// Field 12: the address of the cooperative launch's grid-barrier workspace
    /// ([`crate::grid_workspace`]), which the kernel reads as `%envreg1` (bits 32..64) and
    /// `%envreg2` (bits 0..32); 0 for a launch that is not cooperative, as in CUDA.
    pub grid_workspace: u64,
}

/// Field indices of [`BlockContext`] in the LLVM struct, for the compiler's GEPs.
pub mod block_context_field {
    pub const CTAID: u32 = 0;
    pub const NCTAID: u32 = 1;
    pub const NTID: u32 = 2;
    pub const DYNAMIC_SHARED_BYTES: u32 = 3;
    pub const SHARED: u32 = 4;
    pub const STATIC_SHARED_BYTES: u32 = 5;
    pub const PARAMETERS: u32 = 6;
    pub const PARAMETER_WINDOW: u32 = 7;
    pub const PARAMETER_WINDOW_BYTES: u32 = 8;
    pub const GRID_ID: u32 = 9;
    pub const SM_ID: u32 = 10;
    pub const SM_COUNT: u32 = 11;
    pub const GRID_WORKSPACE: u32 = 12;
}

/// The compiled entry that runs every thread of one block. `params[i]` points at the bytes of
/// kernel parameter i (like CUDA's kernelParams).
pub type BlockEntry = unsafe extern "C" fn(params: *const *const u8, context: *const BlockContext);

// The layout the compiler's LLVM struct gets on every 64-bit target: three arrays and an i32 need
// no padding between them, the pointer is 8-aligned at offset 40, and the fields after the
// second i32 start at the next multiple of 8.
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(std::mem::offset_of!(BlockContext, ctaid) == 0);
    assert!(std::mem::offset_of!(BlockContext, nctaid) == 12);
    assert!(std::mem::offset_of!(BlockContext, ntid) == 24);
    assert!(std::mem::offset_of!(BlockContext, dynamic_shared_bytes) == 36);
    assert!(std::mem::offset_of!(BlockContext, shared) == 40);
    assert!(std::mem::offset_of!(BlockContext, static_shared_bytes) == 48);
    assert!(std::mem::offset_of!(BlockContext, parameters) == 56);
    assert!(std::mem::offset_of!(BlockContext, parameter_window) == 64);
    assert!(std::mem::offset_of!(BlockContext, parameter_window_bytes) == 72);
    assert!(std::mem::offset_of!(BlockContext, grid_id) == 80);
    assert!(std::mem::offset_of!(BlockContext, sm_id) == 88);
    assert!(std::mem::offset_of!(BlockContext, sm_count) == 92);
    assert!(std::mem::offset_of!(BlockContext, grid_workspace) == 96);
    assert!(std::mem::size_of::<BlockContext>() == 104);
};

/// Runtime functions that compiled kernels call, by the names they are declared with. The JIT
/// binds them to [`crate::cooperative::runtime_symbols`]; objects for the host leave them to
/// the linker.
pub mod runtime_function {
    /// `void (const uint8_t *const *params, const BlockContext *context, ThreadEntry entry)`:
    /// runs every thread of the block as a coroutine (see [`crate::cooperative`]).
    pub const RUN_COOPERATIVE_BLOCK: &str = "ptxr_run_cooperative_block";
    /// `u32 (u32 operation, u32 barrier, u32 thread_count, u32 predicate)`: a block barrier
    /// ([`super::barrier_operation`]); `thread_count` 0 means the whole block. Returns the
    /// reduction's result.
    pub const BARRIER: &str = "ptxr_barrier";
    /// `u64 (u32 kind, u32 member_mask, u64 a, u32 b, u32 c)`: a warp collective
    /// ([`super::warp_collective`]). Returns the value in bits 0..32 and the predicate in bit 32.
    /// A member mask of 0 (the forms without `.sync`) means the lanes that wait there together.
    pub const WARP_COLLECTIVE: &str = "ptxr_warp_collective";
    /// `void ()`: the thread executed `trap`; the launch fails once the block is done.
    pub const TRAP: &str = "ptxr_trap";
    /// `u64 ()`: the lowest address the running thread's `alloca`s may reach (0: unchecked).
    pub const STACK_FLOOR: &str = "ptxr_stack_floor";
    /// `void ()`: an `alloca` would have passed [`STACK_FLOOR`]; the launch fails once the
    /// block is done, as after [`TRAP`].
    pub const STACK_OVERFLOW: &str = "ptxr_stack_overflow";
    /// `void (u32 nanoseconds)`: `nanosleep`, at most a millisecond.
    pub const SLEEP: &str = "ptxr_nanosleep";
    /// `u64 ()`: `%globaltimer`, nanoseconds since the Unix epoch.
    pub const GLOBAL_TIMER: &str = "ptxr_global_timer";
    /// `u32 ()`: whether the block has stopped (`trap` or a failed assertion). Checked after
    /// calls of functions that may stop it, so that their callers leave too; the block's other
    /// threads also leave at such a check once the launch has failed, as a trap ends the grid.
    pub const STOPPED: &str = "ptxr_stopped";
    /// `void ()`: `exit` inside a `.func`. The thread is marked as leaving: [`STOPPED`] is then
    /// true for it, so its callers leave, up to the kernel body, which takes the mark with
    /// [`THREAD_EXITED`] and ends the thread.
    pub const EXIT_THREAD: &str = "ptxr_exit_thread";
    /// `u32 ()`: in a kernel body after a call that may exit: whether the thread exited inside
    /// it. Clears the mark, so that the worker's next thread starts unmarked.
    pub const THREAD_EXITED: &str = "ptxr_thread_exited";
    /// `i32 (u64 format, u64 arguments, u32 pointer_bytes)`: `vprintf`; `pointer_bytes` (4 or 8)
    /// is the size of `%s` and `%p` arguments. Returns the number of arguments read.
    pub const PRINTF: &str = "ptxr_vprintf";
    /// `u64 (u64 bytes, u32 pointer_bytes)`: `malloc` on the launch's device heap; returns 0
    /// when no block fits. With 4-byte pointers the heap lies below 4 GiB.
    pub const MALLOC: &str = "ptxr_malloc";
    /// `void (u64 address)`: `free`.
    pub const FREE: &str = "ptxr_free";
    /// `u32 (u64 address)`: 1 when `address` lies in one of the launch's buffers or its device
    /// heap (`isspacep.global`; the module's `.global` variables are checked by the caller).
    pub const IS_GLOBAL_ADDRESS: &str = "ptxr_is_global_address";
    /// `void (u64 message, u64 file, u32 line, u64 function, u32 x, u32 y, u32 z)`:
    /// `__assertfail` from thread `(x, y, z)`; the launch fails once the block is done.
    pub const ASSERT_FAIL: &str = "ptxr_assertfail";
    /// `void (const uint8_t *const *params, const BlockContext *context, ThreadEntry entry,
    /// ResumeFunction resume)`: runs every thread of the block as an LLVM switched-resume
    /// coroutine (see [`crate::cooperative::resumable`]): `entry` starts a thread, which runs
    /// to its first suspension; `resume(frame)` continues it.
    pub const RUN_RESUMABLE_BLOCK: &str = "ptxr_run_resumable_block";
    /// `ptr (u64 size, u32 align)`: memory for a thread's coroutine frame, valid while the
    /// block runs.
    pub const RESUMABLE_FRAME: &str = "ptxr_resumable_frame";
    /// `void (ptr frame)`: the running thread's coroutine has begun with this frame.
    pub const RESUMABLE_STARTED: &str = "ptxr_resumable_started";
    /// `void (u32 operation, u32 barrier, u32 thread_count, u32 predicate)`: as [`BARRIER`],
    /// but only records the wait; the coroutine suspends after the call.
    pub const RESUMABLE_BARRIER: &str = "ptxr_resumable_barrier";
    /// `void (u32 kind, u32 member_mask, u64 a, u32 b, u32 c)`: as [`WARP_COLLECTIVE`], but
    /// only records the wait; the coroutine suspends after the call.
    pub const RESUMABLE_WARP_COLLECTIVE: &str = "ptxr_resumable_warp_collective";
    /// `u32 (u64 address, u32 phase, u32 mask)`: `mbarrier.try_wait` and `mbarrier.test_wait`
    /// on the object at `address` ([`super::mbarrier_object`]): the thread waits until the
    /// current phase `p` of the object has `p & mask != phase & mask`; a `mask` of 0 only gives
    /// way to the block's other threads once. The caller then tests the object itself; the
    /// result is 0.
    pub const MBARRIER_WAIT: &str = "ptxr_mbarrier_wait";
    /// `void (u64 address, u32 phase, u32 mask)`: as [`MBARRIER_WAIT`], but only records the
    /// wait; the coroutine suspends after the call.
    pub const RESUMABLE_MBARRIER_WAIT: &str = "ptxr_resumable_mbarrier_wait";
    /// `u64 ()`: after resuming, what the barrier or collective gave the thread (as
    /// [`BARRIER`] and [`WARP_COLLECTIVE`] return it).
    pub const RESUMABLE_RESULT: &str = "ptxr_resumable_result";
    /// `void (const uint8_t *const *params, const BlockContext *context, RegionFunction
    /// regions, u64 bytes_per_thread, u64 bytes_per_block, const WaitPoint *wait_points)`: runs
    /// every thread of the block as compiled loops over the threads between waits (see
    /// [`crate::cooperative::work_items`] and [`super::work_item_state`]); `wait_points[k]`
    /// describes wait point k (entry 0 is unused).
    pub const RUN_WORK_ITEM_BLOCK: &str = "ptxr_run_work_item_block";
}

/// The per-thread state of a block whose threads run as work-item loops
/// ([`runtime_function::RUN_WORK_ITEM_BLOCK`]): struct of arrays, so that field `f` of thread `t`
/// lies at `state + OFFSET_f * threads + t * SIZE_f` and a loop over the threads reads each field
/// contiguously. The exchange fields below come first; the compiler's slots for values that
/// live across a wait follow from [`SLOTS`] (64-byte aligned base). After every thread's state,
/// `bytes_per_block` bytes hold the values that every thread of the block computes alike.
pub mod work_item_state {
    /// `u64`: what the completed barrier or collective gave the thread (as
    /// [`super::runtime_function::BARRIER`] and [`super::runtime_function::WARP_COLLECTIVE`]
    /// return it).
    pub const RESULT: u64 = 0;
    /// `u64`: the collective's `a` operand; a barrier's predicate.
    pub const A: u64 = 8;
    /// `u32`: a warp collective's kind ([`super::warp_collective`]), or [`BARRIER_KIND`] plus
    /// the barrier operation ([`super::barrier_operation`]).
    pub const KIND: u64 = 16;
    /// `u32`: the collective's member mask; a barrier's number.
    pub const MASK: u64 = 20;
    /// `u32`: the collective's `b` operand.
    pub const B: u64 = 24;
    /// `u32`: the collective's `c` operand.
    pub const C: u64 = 28;
    /// Where the compiler's slots begin (bytes per thread before them).
    pub const SLOTS: u64 = 32;
    /// Added to a barrier operation in [`KIND`].
    pub const BARRIER_KIND: u32 = 0x100;
    /// The region a thread reports once it has returned: it takes part in nothing more.
    pub const DONE: u32 = u32::MAX;

    /// Bits of [`super::WaitPoint::constant`]: the operand is the same for every thread, kept in
    /// the wait point rather than in the state (which the thread then does not write).
    pub const CONSTANT_KIND: u32 = 1;
    pub const CONSTANT_MASK: u32 = 2;
    pub const CONSTANT_A: u32 = 4;
    pub const CONSTANT_B: u32 = 8;
    pub const CONSTANT_C: u32 = 16;
}

/// One wait point of a work-item kernel, compiled as a constant table: the exchange fields
/// ([`work_item_state`]) whose values the compiler knows, flagged in `constant`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct WaitPoint {
    pub a: u64,
    pub kind: u32,
    pub mask: u32,
    pub b: u32,
    pub c: u32,
    pub constant: u32,
    pub reserved: u32,
}

/// What SPIR-V modules give an OpenCL host beside their kernels.
pub mod opencl {
    /// `kernel void (global uint *status)`, present in modules that can `trap` or call
    /// `__assertfail`: one work-item stores into `status` how the program's kernels stopped
    /// since it was built ([`STOPPED_BY_TRAP`], [`STOPPED_BY_ASSERTION`],
    /// [`STOPPED_BY_CALL_OF_NO_FUNCTION`], [`STOPPED_BY_COUNTED_BARRIER_OF_PART_OF_THE_BLOCK`],
    /// [`STOPPED_BY_STACK_OVERFLOW`], or 0 when none did).
    /// OpenCL kernels cannot abort, so a stopping work-item raises a program-scope flag and
    /// returns, and the host asks this kernel after the grid.
    pub const TRAP_STATUS_KERNEL: &str = "ptxr.trap_status";
    /// A work-item executed `trap`.
    pub const STOPPED_BY_TRAP: u32 = 1;
    /// A work-item called `__assertfail` (a failed `assert`); its message stays on the device.
    pub const STOPPED_BY_ASSERTION: u32 = 2;
    /// A work-item made an indirect call whose function identifier (SPIR-V's function
    /// addresses are the function's index in the module plus one) names no function of the
    /// call's type.
    pub const STOPPED_BY_CALL_OF_NO_FUNCTION: u32 = 3;
    /// A work-item reached a counted barrier (`bar.sync a, b`, `bar.red` with a count) whose
    /// count is not its work-group's size: OpenCL's barrier can only take the whole group.
    pub const STOPPED_BY_COUNTED_BARRIER_OF_PART_OF_THE_BLOCK: u32 = 4;
    /// A work-item's `alloca` would have taken it past its share of the stack,
    /// [`STACK_BYTES_PER_WORK_ITEM`].
    pub const STOPPED_BY_STACK_OVERFLOW: u32 = 5;
    /// How many bytes a work-item's `alloca`s may take: the private array that ptxr's SPIR-V
    /// carves them from (`StackBound::PrivateArray` in ptxr-intrinsics).
    pub const STACK_BYTES_PER_WORK_ITEM: u64 = 256 << 10;

    /// The launch arguments: what OpenCL does not tell a kernel about its launch, passed by the
    /// host as one by-value `ulong8` kernel argument after the PTX parameters (and before the
    /// `__local` shared window, where the kernel takes one). Every kernel of a module that reads
    /// `%gridid`, `%dynamic_smem_size`, `%total_smem_size` or `%globaltimer` (`_lo`, `_hi`), or
    /// tests `isspacep.shared` in a module with dynamic shared memory, or `isspacep.global`,
    /// `.local` or `.param` anywhere, takes it; other kernels do not.
    pub mod launch_arguments {
        /// Lanes of the vector.
        pub const LANES: u32 = 8;
        /// `%gridid`: an identifier of the launch, distinct between the launches of a process.
        pub const GRID_ID: u32 = 0;
        /// `%dynamic_smem_size`: the bytes of dynamic shared memory the launch gives each block,
        /// after the static `.shared` variables in the `__local` window.
        pub const DYNAMIC_SHARED_BYTES: u32 = 1;
        /// `%globaltimer`'s origin: nanoseconds since the Unix epoch at which the device clock
        /// (`clock_read_device`) read [`TIMER_ORIGIN_CLOCK`].
        pub const TIMER_ORIGIN_NANOSECONDS: u32 = 2;
        /// The device clock's count at [`TIMER_ORIGIN_NANOSECONDS`].
        pub const TIMER_ORIGIN_CLOCK: u32 = 3;
        /// The bits of an IEEE double: nanoseconds per device clock tick. `%globaltimer` is the
        /// origin's nanoseconds plus the ticks since the origin's count times this.
        pub const NANOSECONDS_PER_CLOCK_TICK: u32 = 4;
        /// The address of a table of the launch's buffers, for `isspacep.global` and `.local`:
        /// `ulong` words in global memory, the count `n`, then `n` pairs of a range's first
        /// address and the address one past its last byte. 0 for none.
        pub const LAUNCH_BUFFERS: u32 = 5;
        /// Where the kernel placed its own copies of its parameters, as a generic address, and
        /// their bytes: the host passes 0 in both, and the kernel fills them in before it reads
        /// them and passes them on to the functions it calls (`isspacep.param`).
        pub const PARAMETER_WINDOW_START: u32 = 6;
        pub const PARAMETER_WINDOW_BYTES: u32 = 7;
    }

    /// `kernel void (global ulong *clock)`, present in modules that read `%globaltimer`: one
    /// work-item stores `clock_read_device()` into `clock`, for the host to relate the device
    /// clock to its own ([`launch_arguments::NANOSECONDS_PER_CLOCK_TICK`]).
    pub const CLOCK_CALIBRATION_KERNEL: &str = "ptxr.clock_calibration";
}

/// The 64-bit `mbarrier` object (ISA 7.8 section 9.7.12.13), which PTX leaves opaque: the
/// pending arrivals of the current phase in bits 0..21, the expected arrivals of each phase in
/// bits 21..42, the pending transactions of the current phase (ISA 8.0's tx-count, a signed
/// 21-bit count: `complete_tx` may come before `expect_tx`) in bits 42..63, and the phase's
/// parity in bit 63. Counts lie in [1, 2^20 - 1] and tx-counts in [-(2^20 - 1), 2^20 - 1]; 21
/// bits leave room for the count that an arrival subtracts. A phase completes when both its
/// pending arrivals and its pending transactions are zero. One bit of phase is enough: a state
/// tested by `test_wait`/`try_wait` comes from the current phase or the one before it (section
/// 9.7.12.13.11), and `.parity` names only the parity. The state that `mbarrier.arrive`
/// returns is the object before the arrival.
pub mod mbarrier_object {
    pub const COUNT_BITS: u32 = 21;
    pub const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
    pub const EXPECTED_SHIFT: u32 = COUNT_BITS;
    pub const TRANSACTION_SHIFT: u32 = 2 * COUNT_BITS;
    pub const PHASE_SHIFT: u32 = 3 * COUNT_BITS;
    /// The phase number's bits, after shifting right by [`PHASE_SHIFT`].
    pub const PHASE_MASK: u32 = (1 << (64 - PHASE_SHIFT)) - 1;

    /// The phase number of an object or state.
    pub const fn phase(object: u64) -> u32 {
        (object >> PHASE_SHIFT) as u32
    }
}

/// The `operation` argument of [`runtime_function::BARRIER`].
pub mod barrier_operation {
    pub const SYNC: u32 = 0;
    pub const ARRIVE: u32 = 1;
    pub const REDUCE_POPULATION_COUNT: u32 = 2;
    pub const REDUCE_AND: u32 = 3;
    pub const REDUCE_OR: u32 = 4;
}

/// The `kind` argument of [`runtime_function::WARP_COLLECTIVE`]. For shuffles `a` is the value,
/// `b` the lane or offset and `c` the clamp and segment mask; votes take the predicate in `a`;
/// `match` the value (zero-extended to 64 bits); `redux` the value.
pub mod warp_collective {
    pub const SHUFFLE_UP: u32 = 0;
    pub const SHUFFLE_DOWN: u32 = 1;
    pub const SHUFFLE_BUTTERFLY: u32 = 2;
    pub const SHUFFLE_INDEX: u32 = 3;
    pub const VOTE_ALL: u32 = 4;
    pub const VOTE_ANY: u32 = 5;
    pub const VOTE_UNIFORM: u32 = 6;
    pub const VOTE_BALLOT: u32 = 7;
    pub const MATCH_ANY: u32 = 8;
    pub const MATCH_ALL: u32 = 9;
    pub const REDUX_ADD: u32 = 10;
    pub const REDUX_SIGNED_MINIMUM: u32 = 11;
    pub const REDUX_UNSIGNED_MINIMUM: u32 = 12;
    pub const REDUX_SIGNED_MAXIMUM: u32 = 13;
    pub const REDUX_UNSIGNED_MAXIMUM: u32 = 14;
    pub const REDUX_AND: u32 = 15;
    pub const REDUX_OR: u32 = 16;
    pub const REDUX_XOR: u32 = 17;
    pub const ACTIVE_MASK: u32 = 18;
    pub const SYNC: u32 = 19;
    /// `mma.sync`: `a` is the address of the lane's fragment buffer ([`super::matrix_fragments`]),
    /// `b` the operation ([`super::matrix_operation`]). The runtime writes every lane's D
    /// fragment into its buffer before the lanes resume.
    pub const MATRIX_MULTIPLY_ACCUMULATE: u32 = 20;
    /// `ldmatrix.sync`: `a` is the address of the lane's fragment buffer, which holds the address
    /// of the row the lane gives; `b` is the number of matrices (1, 2 or 4), plus
    /// [`super::matrix_operation::TRANSPOSE`] for `.trans`. The runtime writes each lane's
    /// registers into its buffer.
    pub const LOAD_MATRIX: u32 = 21;
}

/// The buffer of 32-bit words through which a lane hands its fragments to a matrix collective:
/// the registers of each operand in the order PTX lists them, each at a fixed offset. The
/// compiler keeps one such buffer per function, 8-byte aligned.
pub mod matrix_fragments {
    /// `mma`: A's registers (at most 16 words: `.m16n8k16`'s eight `.f64`).
    pub const A: usize = 0;
    /// `mma`: B's registers (at most 8 words).
    pub const B: usize = 16;
    /// `mma`: C's registers (at most 8 words).
    pub const C: usize = 24;
    /// `mma`: where the runtime writes D's registers (at most 8 words).
    pub const D: usize = 32;
    /// `ldmatrix`: the 64-bit address of the lane's row (words 0 and 1, little-endian).
    pub const ROW_ADDRESS: usize = 0;
    /// `ldmatrix`: where the runtime writes the lane's registers, one per matrix.
    pub const LOADED: usize = 2;
    /// The buffer's size in words.
    pub const WORDS: usize = 40;
}

/// The `b` argument of the matrix collectives. For `mma`: the shape in bits 0..4, then the
/// element types of D, A, B and C in four bits each from bit 4, `.satfinite` in bit 20, and the
/// layouts other than `.row.col` (`.m8n8k4` only) in bits 21 and 22.
pub mod matrix_operation {
    pub const SHAPE_M8N8K16: u32 = 0;
    pub const SHAPE_M16N8K4: u32 = 1;
    pub const SHAPE_M16N8K8: u32 = 2;
    pub const SHAPE_M16N8K16: u32 = 3;
    pub const SHAPE_M16N8K32: u32 = 4;
    /// `.m8n8k4`: on `.f16` four 8×8×4 products, one per group of eight lanes; on `.f64` one
    /// 8×8×4 product by the whole warp.
    pub const SHAPE_M8N8K4: u32 = 5;
    /// `.s4`/`.u4` (`wmma.m8n8k32`'s tile).
    pub const SHAPE_M8N8K32: u32 = 6;
    /// `.b1` (`wmma.m8n8k128`'s tile).
    pub const SHAPE_M8N8K128: u32 = 7;
    /// `.s4`/`.u4`.
    pub const SHAPE_M16N8K64: u32 = 8;
    /// `.b1`.
    pub const SHAPE_M16N8K128: u32 = 9;
    /// `.b1`.
    pub const SHAPE_M16N8K256: u32 = 10;

    pub const ELEMENT_F16: u32 = 0;
    pub const ELEMENT_BF16: u32 = 1;
    pub const ELEMENT_TF32: u32 = 2;
    pub const ELEMENT_F32: u32 = 3;
    pub const ELEMENT_S8: u32 = 4;
    pub const ELEMENT_U8: u32 = 5;
    pub const ELEMENT_S32: u32 = 6;
    /// `.f64`: each register takes two words of the buffer, low word first.
    pub const ELEMENT_F64: u32 = 7;
    pub const ELEMENT_S4: u32 = 8;
    pub const ELEMENT_U4: u32 = 9;
    pub const ELEMENT_B1: u32 = 10;
    /// The 8-bit floats of ISA 8.4 (four exponent bits, three mantissa bits, no infinity).
    pub const ELEMENT_E4M3: u32 = 11;
    /// The 8-bit floats with five exponent bits and two mantissa bits.
    pub const ELEMENT_E5M2: u32 = 12;

    pub const SATURATE: u32 = 1 << 20;
    /// A is `.col` (column-major).
    pub const A_COLUMN_MAJOR: u32 = 1 << 21;
    /// B is `.row` (row-major).
    pub const B_ROW_MAJOR: u32 = 1 << 22;
    /// `.b1` with `.and.popc` (products are `a & b`); without it, `.xor.popc` (`a ^ b`).
    pub const BIT_AND: u32 = 1 << 23;

    /// The code of one `mma` form.
    pub const fn encode(shape: u32, d: u32, a: u32, b: u32, c: u32, saturate: bool) -> u32 {
        shape | (d << 4) | (a << 8) | (b << 12) | (c << 16) | if saturate { SATURATE } else { 0 }
    }

    /// `ldmatrix`'s `.trans`, added to the number of matrices.
    pub const TRANSPOSE: u32 = 1 << 8;
}

/// Continues a suspended thread of a resumable block: `llvm.coro.resume` on its frame, compiled
/// into the kernel's module (the frame's resume function has LLVM's internal calling convention).
pub type ResumeFunction = unsafe extern "C" fn(frame: *mut u8);

/// The compiled loops of a work-item block: runs the code of region `region` (0: from the
/// kernel's start; k: from the continuation of wait point k) for every thread `t` whose
/// `selected[t]` is non-zero, or for every thread when `selected` is null, and stores in
/// `current[t]` the wait point where the thread stopped, or
/// [`work_item_state::DONE`].
pub type RegionFunction = unsafe extern "C" fn(
    params: *const *const u8,
    context: *const BlockContext,
    state: *mut u8,
    current: *mut u32,
    selected: *const u8,
    region: u32,
);

/// One thread of a cooperative block: `NAME.thread_entry` of a kernel that uses barriers or
/// warp collectives.
pub type ThreadEntry =
    unsafe extern "C" fn(params: *const *const u8, context: *const BlockContext, x: u32, y: u32, z: u32);
