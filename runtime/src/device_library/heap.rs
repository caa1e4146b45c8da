//! The device heap of `malloc` and `free` (ptx-abi.md section 4.3): one region per launch,
//! shared by every thread of the grid and kept across runs of the same launch (allocations
//! outlive the kernel that made them, as on a CUDA context). Its size is CUDA's default
//! `cudaLimitMallocHeapSize`, 8 MiB; `malloc` returns null when no block fits, as CUDA's does.
//!
//! Blocks are 16-byte aligned (CUDA guarantees that alignment) and found first-fit in a map of
//! free ranges, which `free` coalesces with its neighbours. One mutex guards it: device
//! allocation is rare next to the arithmetic around it.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use crate::buffer::{AlignedBuffer, Placement};

/// CUDA's default heap size.
pub const HEAP_BYTES: usize = 8 << 20;
/// The alignment of every block.
const BLOCK_ALIGNMENT: usize = 16;

#[derive(Default)]
pub struct DeviceHeap {
    state: Mutex<HeapState>,
}

#[derive(Default)]
struct HeapState {
    /// Reserved on the first `malloc`, below 4 GiB when the kernel's pointers are 32 bits.
    region: Option<AlignedBuffer>,
    /// Free ranges: offset to length.
    free: BTreeMap<usize, usize>,
    /// Allocated blocks: offset to length.
    allocated: HashMap<usize, usize>,
}

impl DeviceHeap {
    /// The address of a new block of `bytes` bytes, or 0 when none fits (or `bytes` is 0).
    pub fn allocate(&self, bytes: u64, placement: Placement) -> u64 {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(length) = usize::try_from(bytes)
            .ok()
            .filter(|&bytes| bytes > 0 && bytes <= HEAP_BYTES)
            .map(|bytes| bytes.next_multiple_of(BLOCK_ALIGNMENT))
        else {
            return 0;
        };
        if state.region.is_none() {
            let Some(region) = AlignedBuffer::zeroed(HEAP_BYTES, placement) else { return 0 };
            state.region = Some(region);
            state.free.insert(0, HEAP_BYTES);
        }
        let Some((&offset, &free_length)) = state.free.iter().find(|(_, &free_length)| free_length >= length) else {
            return 0;
        };
        state.free.remove(&offset);
        if free_length > length {
            state.free.insert(offset + length, free_length - length);
        }
        state.allocated.insert(offset, length);
        state.region.as_ref().map_or(0, |region| region.address() + offset as u64)
    }

    /// Frees the block at `address`; null, and addresses that `allocate` did not return (a
    /// kernel's mistake, undefined in CUDA), do nothing.
    pub fn free(&self, address: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(base) = state.region.as_ref().map(AlignedBuffer::address) else { return };
        let Some(offset) = address.checked_sub(base).and_then(|offset| usize::try_from(offset).ok()) else { return };
        let Some(length) = state.allocated.remove(&offset) else { return };
        let mut start = offset;
        let mut end = offset + length;
        if let Some(after) = state.free.remove(&end) {
            end += after;
        }
        if let Some((&before, &before_length)) = state.free.range(..offset).next_back() {
            if before + before_length == offset {
                state.free.remove(&before);
                start = before;
            }
        }
        state.free.insert(start, end - start);
    }

    /// The bytes allocated now, for tests.
    /// Whether `address` lies in the heap's region (allocated or not).
    pub fn contains(&self, address: u64) -> bool {
        let state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.region.as_ref().is_some_and(|region| {
            address.checked_sub(region.address()).is_some_and(|offset| offset < region.len() as u64)
        })
    }

    pub fn allocated_bytes(&self) -> usize {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).allocated.values().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_aligned_disjoint_and_reused_after_free() {
        let heap = DeviceHeap::default();
        let a = heap.allocate(1, Placement::Anywhere);
        let b = heap.allocate(100, Placement::Anywhere);
        let c = heap.allocate(16, Placement::Anywhere);
        assert!(a != 0 && b != 0 && c != 0);
        assert_eq!([a % 16, b % 16, c % 16], [0, 0, 0]);
        assert!(a + 16 <= b && b + 112 <= c);
        heap.free(b);
        heap.free(a);
        // The two freed neighbours merged: 128 bytes fit where they were.
        assert_eq!(heap.allocate(128, Placement::Anywhere), a);
        heap.free(c);
        heap.free(a);
        assert_eq!(heap.allocated_bytes(), 0);
        assert_eq!(heap.allocate(HEAP_BYTES as u64, Placement::Anywhere), a);
    }

    #[test]
    fn exhaustion_zero_and_foreign_pointers() {
        let heap = DeviceHeap::default();
        assert_eq!(heap.allocate(0, Placement::Anywhere), 0);
        assert_eq!(heap.allocate(HEAP_BYTES as u64 + 1, Placement::Anywhere), 0);
        let whole = heap.allocate(HEAP_BYTES as u64, Placement::Anywhere);
        assert_ne!(whole, 0);
        assert_eq!(heap.allocate(16, Placement::Anywhere), 0);
        heap.free(0);
        heap.free(whole + 8);
        assert_eq!(heap.allocated_bytes(), HEAP_BYTES);
    }

    #[test]
    fn random_allocations_and_frees_never_overlap_and_free_everything() {
        // A property test against a model of the live blocks: random sizes, frees in random
        // order, every live block disjoint from the others and inside the heap.
        let heap = DeviceHeap::default();
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut live: Vec<(u64, u64)> = Vec::new();
        for _ in 0..4000 {
            if live.is_empty() || next() % 3 != 0 {
                let size = 1 + next() % 4096;
                let address = heap.allocate(size, Placement::Anywhere);
                if address == 0 {
                    continue;
                }
                assert_eq!(address % 16, 0);
                for &(start, length) in &live {
                    assert!(address + size <= start || start + length <= address, "overlap");
                }
                live.push((address, size));
            } else {
                let index = (next() % live.len() as u64) as usize;
                heap.free(live.swap_remove(index).0);
            }
        }
        for (address, _) in live.drain(..) {
            heap.free(address);
        }
        assert_eq!(heap.allocated_bytes(), 0);
        // Everything coalesced back: the whole heap is one block again.
        assert_ne!(heap.allocate(HEAP_BYTES as u64, Placement::Anywhere), 0);
    }
}
