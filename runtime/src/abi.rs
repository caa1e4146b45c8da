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
//!   `kernelParams`: little-endian, each in its own 16-byte aligned storage. A pointer parameter
//!   holds the buffer's host address (8 bytes; 4 bytes for `.address_size 32` kernels, whose
//!   buffers the runtime places below 4 GiB so that the zero-extended value is the address).
//! - `context` describes the block (see [`BlockContext`]); it lives until the entry returns.

/// One per block launch; read by the compiled block entry. Field order is the ABI: the compiler
/// builds an LLVM struct `{ [3 x i32], [3 x i32], [3 x i32], i32, ptr, i32 }` with the same layout.
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
}

/// Field indices of [`BlockContext`] in the LLVM struct, for the compiler's GEPs.
pub mod block_context_field {
    pub const CTAID: u32 = 0;
    pub const NCTAID: u32 = 1;
    pub const NTID: u32 = 2;
    pub const DYNAMIC_SHARED_BYTES: u32 = 3;
    pub const SHARED: u32 = 4;
    pub const STATIC_SHARED_BYTES: u32 = 5;
}

/// The compiled entry that runs every thread of one block. `params[i]` points at the bytes of
/// kernel parameter i (like CUDA's kernelParams).
pub type BlockEntry = unsafe extern "C" fn(params: *const *const u8, context: *const BlockContext);

// The layout the compiler's LLVM struct gets on every 64-bit target: three arrays and an i32 need
// no padding between them, and the pointer is 8-aligned at offset 40.
#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(std::mem::offset_of!(BlockContext, ctaid) == 0);
    assert!(std::mem::offset_of!(BlockContext, nctaid) == 12);
    assert!(std::mem::offset_of!(BlockContext, ntid) == 24);
    assert!(std::mem::offset_of!(BlockContext, dynamic_shared_bytes) == 36);
    assert!(std::mem::offset_of!(BlockContext, shared) == 40);
    assert!(std::mem::offset_of!(BlockContext, static_shared_bytes) == 48);
    assert!(std::mem::size_of::<BlockContext>() == 56);
};
