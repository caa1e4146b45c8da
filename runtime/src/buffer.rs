//! Zero-filled, 256-byte aligned memory blocks: the "device" allocations of a launch (buffers and
//! dynamic shared memory). 256 bytes is what `cudaMalloc` guarantees, so kernels that assume it
//! (vector loads, alignment hints given to LLVM) work unchanged on the CPU.
//!
//! Each block is followed by a zeroed guard zone of [`GUARD_BYTES`]. On a GPU a kernel that
//! writes a little past its buffer lands in the allocator's slack or a neighbouring allocation;
//! on the host it would corrupt the heap of the process. The guard zone takes such writes, and
//! [`AlignedBuffer::guard_bytes_changed`] tells afterwards that they happened.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// The alignment of every block, in bytes.
pub const ALIGNMENT: usize = 256;

/// The bytes reserved, zeroed, after every block.
pub const GUARD_BYTES: usize = 4096;

/// Where a block must lie in the address space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Anywhere,
    /// Below 4 GiB, so that its address fits a 32-bit pointer parameter (`.address_size 32`
    /// kernels). Only some systems can do this (Linux and other Unix systems without a reserved
    /// low 4 GiB).
    Below4GiB,
}

/// An owned, zero-filled, [`ALIGNMENT`]-aligned block of `len` bytes, followed by
/// [`GUARD_BYTES`] more, so every block has its own valid address even for `len == 0`. Freed
/// on drop.
pub struct AlignedBuffer {
    pointer: NonNull<u8>,
    len: usize,
    origin: Origin,
}

/// How the memory was obtained, which decides how it is given back.
enum Origin {
    Heap(Layout),
    #[cfg(unix)]
    Mapped {
        reserved: usize,
    },
}

// SAFETY: the block is owned memory with no thread affinity; shared access only reads through
// `as_slice`, and writes need `&mut self` (or, for kernels, the launcher's exclusive access).
unsafe impl Send for AlignedBuffer {}
// SAFETY: see `Send`: `&AlignedBuffer` gives no way to write.
unsafe impl Sync for AlignedBuffer {}

impl AlignedBuffer {
    /// A zero-filled block of `len` bytes; `None` where the memory cannot be had.
    pub fn zeroed(len: usize, placement: Placement) -> Option<AlignedBuffer> {
        match placement {
            Placement::Anywhere => AlignedBuffer::zeroed_on_heap(len),
            Placement::Below4GiB => AlignedBuffer::zeroed_below_4gib(len),
        }
    }

    fn zeroed_on_heap(len: usize) -> Option<AlignedBuffer> {
        let layout = Layout::from_size_align(len.checked_add(GUARD_BYTES)?, ALIGNMENT).ok()?;
        // SAFETY: the layout has a non-zero size.
        let pointer = NonNull::new(unsafe { alloc::alloc_zeroed(layout) })?;
        Some(AlignedBuffer { pointer, len, origin: Origin::Heap(layout) })
    }

    #[cfg(unix)]
    fn zeroed_below_4gib(len: usize) -> Option<AlignedBuffer> {
        const LIMIT: usize = 1 << 32;
        let reserved = len.checked_add(GUARD_BYTES)?;
        if reserved >= LIMIT {
            return None;
        }
        #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_32BIT;
        #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        // Elsewhere than x86-64 Linux (no MAP_32BIT) the address is only a hint, which the kernel
        // follows when the range is free; the result is checked below either way.
        let hint = 0x1000_0000 as *mut libc::c_void;
        // SAFETY: an anonymous private mapping touches no existing memory (no MAP_FIXED).
        let address = unsafe { libc::mmap(hint, reserved, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) };
        if address == libc::MAP_FAILED {
            return None;
        }
        if address as usize + reserved > LIMIT {
            // SAFETY: `address` is the mapping of `reserved` bytes made just above.
            unsafe { libc::munmap(address, reserved) };
            return None;
        }
        // Anonymous mappings are zero-filled and page aligned, which is more than ALIGNMENT.
        let pointer = NonNull::new(address.cast::<u8>())?;
        Some(AlignedBuffer { pointer, len, origin: Origin::Mapped { reserved } })
    }

    #[cfg(not(unix))]
    fn zeroed_below_4gib(_len: usize) -> Option<AlignedBuffer> {
        None
    }

    /// The length asked for (the guard zone follows).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn as_ptr(&self) -> *const u8 {
        self.pointer.as_ptr()
    }

    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.pointer.as_ptr()
    }

    /// The address, as a kernel's pointer parameter takes it.
    pub fn address(&self) -> u64 {
        self.pointer.as_ptr() as usize as u64
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` bytes from `pointer` are owned, initialized (zeroed at the start) memory.
        unsafe { std::slice::from_raw_parts(self.pointer.as_ptr(), self.len) }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.pointer.as_ptr(), self.len) }
    }

    /// The block followed by its guard zone, for a device that ran the kernel on a copy and
    /// gives back what it wrote, past the end too.
    pub fn with_guard_zone_mut(&mut self) -> &mut [u8] {
        // SAFETY: the block and its guard zone are owned, initialized memory, and `&mut self`
        // makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.pointer.as_ptr(), self.len + GUARD_BYTES) }
    }

    /// Sets every byte of the block back to zero (the guard zone keeps what it caught).
    pub fn fill_zero(&mut self) {
        self.as_mut_slice().fill(0);
    }

    /// How many bytes of the guard zone after the block are no longer zero: writes past the
    /// end (writes of zero go unnoticed).
    pub fn guard_bytes_changed(&self) -> usize {
        // SAFETY: the guard zone is owned, initialized memory right after the block.
        let guard = unsafe { std::slice::from_raw_parts(self.pointer.as_ptr().add(self.len), GUARD_BYTES) };
        guard.iter().filter(|&&byte| byte != 0).count()
    }
}

impl Drop for AlignedBuffer {
    fn drop(&mut self) {
        match self.origin {
            // SAFETY: the block came from `alloc_zeroed` with this layout and is freed once.
            Origin::Heap(layout) => unsafe { alloc::dealloc(self.pointer.as_ptr(), layout) },
            #[cfg(unix)]
            Origin::Mapped { reserved } => {
                // SAFETY: the block is the mapping of `reserved` bytes made in
                // `zeroed_below_4gib`, unmapped once.
                unsafe { libc::munmap(self.pointer.as_ptr().cast(), reserved) };
            }
        }
    }
}

impl std::fmt::Debug for AlignedBuffer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("AlignedBuffer").field("address", &self.pointer).field("len", &self.len).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_zeroed_and_distinct() {
        let first = AlignedBuffer::zeroed(0, Placement::Anywhere).expect("one byte is available");
        let mut second = AlignedBuffer::zeroed(1000, Placement::Anywhere).expect("1000 bytes are available");
        assert!(first.is_empty());
        assert_ne!(first.address(), second.address());
        for buffer in [&first, &second] {
            assert_eq!(buffer.address() % ALIGNMENT as u64, 0);
            assert!(buffer.as_slice().iter().all(|&byte| byte == 0));
        }
        second.as_mut_slice()[999] = 7;
        assert_eq!(second.as_slice()[999], 7);
        second.fill_zero();
        assert_eq!(second.as_slice()[999], 0);
    }

    #[test]
    fn writes_past_the_end_land_in_the_guard_zone() {
        for placement in [Placement::Anywhere, Placement::Below4GiB] {
            let Some(mut buffer) = AlignedBuffer::zeroed(100, placement) else { continue };
            assert_eq!(buffer.guard_bytes_changed(), 0);
            buffer.as_mut_slice()[99] = 1;
            assert_eq!(buffer.guard_bytes_changed(), 0, "the last byte is the buffer's own");
            // SAFETY: bytes 100 to 100 + GUARD_BYTES belong to the block's guard zone.
            unsafe {
                buffer.as_mut_ptr().add(100).write(7);
                buffer.as_mut_ptr().add(100 + GUARD_BYTES - 1).write(9);
            }
            assert_eq!(buffer.guard_bytes_changed(), 2);
            buffer.fill_zero();
            assert_eq!(buffer.guard_bytes_changed(), 2, "what the guard caught stays until the block is freed");
        }
    }

    #[test]
    fn impossible_sizes_are_refused() {
        assert!(AlignedBuffer::zeroed(usize::MAX, Placement::Anywhere).is_none());
        assert!(AlignedBuffer::zeroed(usize::MAX, Placement::Below4GiB).is_none());
    }

    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn low_placement_fits_32_bits() {
        let mut buffer = AlignedBuffer::zeroed(4096, Placement::Below4GiB).expect("low memory is available");
        assert!(buffer.address() + 4096 <= 1 << 32);
        assert_eq!(buffer.address() % ALIGNMENT as u64, 0);
        assert!(buffer.as_slice().iter().all(|&byte| byte == 0));
        buffer.as_mut_slice()[4095] = 1;
    }
}
