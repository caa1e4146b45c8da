//! The grid-barrier workspace of a cooperative launch (`"cooperative": true` in the launch spec).
//!
//! CUDA's cooperative groups (`cg::this_grid().sync()`, headers `cooperative_groups/details/
//! driver_abi.h` and `sync.h`) read a workspace address that the driver gives a launch made with
//! `cudaLaunchCooperativeKernel`: `%envreg1` holds bits 32..64 and `%envreg2` bits 0..32 (nvcc
//! combines them with `bfi.b64 %rd, %envreg1, %envreg2, 32, 32`, clang with `shl` and `or`).
//! When the address is 0, as for any other launch, the kernel executes `trap`.
//!
//! The workspace is two 32-bit words, zero before the launch:
//!
//! - offset 0, `wsSize`: the workspace's size as the driver records it; the barrier code never
//!   reads it, and ptxr stores the size in bytes ([`WORKSPACE_BYTES`]).
//! - offset 4, `barrier`: the arrival counter. At each `grid.sync()` thread 0 of every block adds
//!   1, except block (0, 0, 0), which adds `0x80000000 - (blocks - 1)`, so that bit 31 flips
//!   exactly when the last block arrives; each block then spins (`ld.acquire.gpu`) until bit 31
//!   differs from what it read when it arrived. The counter thus serves any number of
//!   consecutive syncs without being reset, provided every block of the grid runs at the same
//!   time, which is why a cooperative launch gives each block its own worker thread.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::buffer::{AlignedBuffer, Placement};
use crate::error::RuntimeError;

/// Bytes of the workspace: `wsSize` and `barrier`, two `u32`s.
pub const WORKSPACE_BYTES: usize = 8;

/// Most blocks in one cooperative grid. CUDA's limit is the number of blocks that fit on the
/// device at once (`cudaErrorCooperativeLaunchTooLarge` beyond it); ptxr runs every block of a
/// cooperative grid on its own OS thread, so it bounds the threads instead.
pub const MAX_COOPERATIVE_BLOCKS: u64 = 1024;

/// Checks that a grid of `blocks` blocks can run cooperatively: all of them resident at once.
pub fn check_grid(blocks: u64) -> Result<(), RuntimeError> {
    if blocks > MAX_COOPERATIVE_BLOCKS {
        return Err(RuntimeError::field(
            "cooperative",
            format!(
                "a cooperative launch runs every block at once, at most {MAX_COOPERATIVE_BLOCKS} blocks, \
                 but the grid has {blocks} (CUDA's cudaErrorCooperativeLaunchTooLarge)"
            ),
        ));
    }
    Ok(())
}

/// The error of a cooperative launch on an OpenCL device: OpenCL guarantees no forward progress
/// between work-groups (a work-group may start only once others have finished), so a grid
/// barrier could wait forever.
pub fn unsupported_on_opencl() -> RuntimeError {
    RuntimeError::field(
        "cooperative",
        "unsupported: cooperative launch (grid-wide barrier) on spirv: OpenCL does not guarantee that \
         work-groups run at the same time, so one waiting for the others could wait forever; \
         run it with --target cpu",
    )
}

/// Lets every block waiting at a grid barrier pass, after a block has failed (`trap`): the failed
/// block never arrives, so the others would spin forever. Flipping the counter's bit 31 is what
/// the last arrival does; a block that then reaches another grid barrier waits again, so the
/// launch calls this until every worker has finished. What the released blocks compute does
/// not matter: the launch fails with the first block's failure.
///
/// # Safety
///
/// `workspace` is the address of a live workspace from [`allocate`].
pub unsafe fn release_waiters(workspace: *mut u8) {
    // SAFETY: the workspace is WORKSPACE_BYTES = 8 bytes of a 256-byte aligned allocation, so
    // the `barrier` word at offset 4 is an aligned u32, which kernels access only atomically
    // (`atom`, `ld.acquire`), as this does.
    let barrier = unsafe { AtomicU32::from_ptr(workspace.add(4).cast::<u32>()) };
    barrier.fetch_xor(0x8000_0000, Ordering::AcqRel);
}

/// A fresh workspace: `wsSize` set, the barrier counter 0.
pub fn allocate() -> Result<AlignedBuffer, RuntimeError> {
    let mut workspace = AlignedBuffer::zeroed(WORKSPACE_BYTES, Placement::Anywhere).ok_or_else(|| {
        RuntimeError::Launch { message: "cannot reserve the cooperative launch's grid workspace".to_string() }
    })?;
    // `WORKSPACE_BYTES` is 8: it fits the u32 `wsSize`.
    let size = (WORKSPACE_BYTES as u32).to_le_bytes();
    // SAFETY: the buffer has WORKSPACE_BYTES >= 4 bytes.
    unsafe { std::ptr::copy_nonoverlapping(size.as_ptr(), workspace.as_mut_ptr(), size.len()) };
    Ok(workspace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workspace_records_its_size_and_starts_with_a_zero_barrier() {
        let workspace = allocate().expect("an 8-byte workspace");
        assert_eq!(workspace.as_slice(), [8, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn grids_beyond_the_limit_are_refused_naming_it() {
        assert!(check_grid(MAX_COOPERATIVE_BLOCKS).is_ok());
        let message = check_grid(MAX_COOPERATIVE_BLOCKS + 1).expect_err("one block too many").to_string();
        assert!(message.contains("at most 1024 blocks"), "{message}");
        assert!(message.contains("1025"), "{message}");
    }
}
