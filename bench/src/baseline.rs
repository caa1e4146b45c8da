//! Hand-written Rust versions of the benchmark kernels, split over `worker_count()` threads the
//! way the runtime splits blocks: contiguous ranges of the output per thread.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::worker_count;

/// Runs `work(start, chunk)` over `output` cut into one contiguous chunk per worker, where
/// `start` is the chunk's first index and chunks are whole multiples of `granule` elements.
fn parallel_chunks<T: Send>(output: &mut [T], granule: usize, work: impl Fn(usize, &mut [T]) + Sync) {
    let granules = output.len().div_ceil(granule);
    let per_worker = granules.div_ceil(worker_count()).max(1) * granule;
    std::thread::scope(|scope| {
        for (index, chunk) in output.chunks_mut(per_worker).enumerate() {
            let work = &work;
            scope.spawn(move || work(index * per_worker, chunk));
        }
    });
}

pub fn vector_add(a: &[f32], b: &[f32], c: &mut [f32]) {
    parallel_chunks(c, 1, |start, chunk| {
        for (offset, value) in chunk.iter_mut().enumerate() {
            *value = a[start + offset] + b[start + offset];
        }
    });
}

/// `y = a * x + y` with one fused multiply-add per element, as the kernel's `fma.rn.f32`.
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    parallel_chunks(y, 1, |start, chunk| {
        for (offset, value) in chunk.iter_mut().enumerate() {
            *value = a.mul_add(x[start + offset], *value);
        }
    });
}

/// Wrapping sum of each `block_items`-element slice.
pub fn block_sums(input: &[u32], block_items: usize, sums: &mut [u32]) {
    parallel_chunks(sums, 1, |start, chunk| {
        for (offset, sum) in chunk.iter_mut().enumerate() {
            let block = start + offset;
            let slice = &input[block * block_items..(block + 1) * block_items];
            *sum = slice.iter().fold(0u32, |total, &value| total.wrapping_add(value));
        }
    });
}

/// `c = a * b` for `n x n` row-major matrices, tiled like the kernel: for each `TILE`-row band
/// of `c` and each `TILE x TILE` tile of `a` and `b`, the tile's terms are added to every element
/// with one fused multiply-add each, k increasing.
pub fn matmul_tiled(a: &[f32], b: &[f32], c: &mut [f32], n: usize) {
    const TILE: usize = 16;
    parallel_chunks(c, TILE * n, |start, rows| {
        for (band_index, band) in rows.chunks_mut(TILE * n).enumerate() {
            let first_row = start / n + band_index * TILE;
            for tile_column in (0..n).step_by(TILE) {
                let mut sums = [[0.0f32; TILE]; TILE];
                for base in (0..n).step_by(TILE) {
                    for (row_offset, row_sums) in sums.iter_mut().enumerate() {
                        let row = first_row + row_offset;
                        for k in 0..TILE {
                            let left = a[row * n + base + k];
                            let right = &b[(base + k) * n + tile_column..(base + k) * n + tile_column + TILE];
                            for (sum, &value) in row_sums.iter_mut().zip(right) {
                                *sum = left.mul_add(value, *sum);
                            }
                        }
                    }
                }
                for (row_offset, row_sums) in sums.iter().enumerate() {
                    let row = row_offset * n + tile_column;
                    band[row..row + TILE].copy_from_slice(row_sums);
                }
            }
        }
    });
}

/// One global atomic increment per byte, as the kernel does.
pub fn histogram(input: &[u8], bins: &[AtomicU32]) {
    let per_worker = input.len().div_ceil(worker_count()).max(1);
    std::thread::scope(|scope| {
        for chunk in input.chunks(per_worker) {
            scope.spawn(move || {
                for &byte in chunk {
                    bins[usize::from(byte)].fetch_add(1, Ordering::Relaxed);
                }
            });
        }
    });
}
