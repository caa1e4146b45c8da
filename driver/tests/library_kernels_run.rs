//! Library-style kernels (`tests/fixtures/ptx/`, see its README): CUB's block and warp
//! primitives (reduce, scan with a prefix callback, radix sort of keys and of pairs, histogram,
//! load and store transposes), cooperative groups' tiled partitions, a single-pass scan with
//! decoupled look-back between blocks, a 2-D stencil with a shared
//! halo, a padded transpose, warp intrinsics on partial masks and double atomics built from
//! `atomicCAS`, as nvcc 13.5 writes them for sm_80 and sm_90 (and with `--use_fast_math`) and
//! clang 22 (with CUDA 13.5's headers for CUB) for sm_80. Each runs through `ptxr run` on the CPU, and on SPIR-V through OpenCL when
//! a device is there, against a Rust model of its source.
//!
//! Inputs are integers (or integer-valued floats), so every result is exact whatever order the
//! library reduces in.

use serde_json::json;

mod support;
use support::fixture_kernels::{f32_bits, run_cases, Case, Expected, Random};
use support::opencl_device_available;

fn u32_bits(values: impl IntoIterator<Item = u32>) -> Vec<u64> {
    values.into_iter().map(u64::from).collect()
}

fn i32_bits(values: impl IntoIterator<Item = i32>) -> Vec<u64> {
    values.into_iter().map(|value| u64::from(value as u32)).collect()
}

fn f64_bits(values: impl IntoIterator<Item = f64>) -> Vec<u64> {
    values.into_iter().map(f64::to_bits).collect()
}

/// The fixtures of `kernel`: from nvcc for sm_80 and sm_90, from clang (with CUDA's headers)
/// for sm_80.
/// With `debug`, also nvcc's `-G` build for sm_80.
macro_rules! every_compiler {
    ($kernel:literal) => {
        &[concat!($kernel, ".nvcc.sm80.ptx"), concat!($kernel, ".nvcc.sm90.ptx"), concat!($kernel, ".clang.sm80.ptx")]
    };
    ($kernel:literal, debug) => {
        &[
            concat!($kernel, ".nvcc.sm80.ptx"),
            concat!($kernel, ".nvcc.sm90.ptx"),
            concat!($kernel, ".clang.sm80.ptx"),
            concat!($kernel, ".nvcc.sm80.debug.ptx"),
        ]
    };
}

/// `cub_block_reduce`: sum and maximum of each block of 128.
fn cub_block_reduce(random: &mut Random) -> Case {
    let blocks = 6;
    let input: Vec<i32> = (0..blocks * 128).map(|_| random.integer(-100_000, 100_000) as i32).collect();
    let sums = input.chunks(128).map(|block| block.iter().fold(0i32, |sum, &value| sum.wrapping_add(value)));
    let maxima = input.chunks(128).map(|block| block.iter().copied().max().unwrap_or(i32::MIN));
    Case {
        files: every_compiler!("cub_block_reduce_scan"),
        spec: json!({
            "kernel": "cub_block_reduce", "grid": [blocks], "block": [128],
            "buffers": {
                "in": { "type": "s32", "data": input },
                "sums": { "type": "s32", "len": blocks }, "maxima": { "type": "s32", "len": blocks },
            },
            "args": [{ "buffer": "in" }, { "buffer": "sums" }, { "buffer": "maxima" }],
        }),
        expected: vec![("sums", Expected::Bits(i32_bits(sums))), ("maxima", Expected::Bits(i32_bits(maxima)))],
    }
}

/// `cub_block_reduce_raking`: the sum of the first `valid` of each block's 96 doubles.
fn cub_block_reduce_raking(random: &mut Random) -> Case {
    let (blocks, valid) = (4, 70);
    let input: Vec<f64> = (0..blocks * 96).map(|_| random.integer(-1 << 30, 1 << 30) as f64).collect();
    let sums = input.chunks(96).map(|block| block[..valid].iter().sum::<f64>());
    Case {
        files: every_compiler!("cub_block_reduce_scan"),
        spec: json!({
            "kernel": "cub_block_reduce_raking", "grid": [blocks], "block": [96],
            "buffers": { "in": { "type": "f64", "data": input }, "sums": { "type": "f64", "len": blocks } },
            "args": [{ "buffer": "in" }, { "buffer": "sums" }, { "type": "s32", "value": valid }],
        }),
        expected: vec![("sums", Expected::Bits(f64_bits(sums)))],
    }
}

/// `cub_block_scan`: per block, the exclusive sum of its segment over three tiles of 512 (the
/// prefix callback carries the total), and each tile's own inclusive max-scan.
fn cub_block_scan(random: &mut Random) -> Case {
    let (blocks, segment) = (3, 1536);
    let input: Vec<u32> = (0..blocks * segment).map(|_| random.next_u32()).collect();
    let mut exclusive = Vec::new();
    for block in input.chunks(segment) {
        let mut total = 0u32;
        for &value in block {
            exclusive.push(total);
            total = total.wrapping_add(value);
        }
    }
    let mut inclusive = Vec::new();
    for tile in input.chunks(512) {
        let mut maximum = 0u32;
        for &value in tile {
            maximum = maximum.max(value);
            inclusive.push(maximum);
        }
    }
    Case {
        files: every_compiler!("cub_block_reduce_scan"),
        spec: json!({
            "kernel": "cub_block_scan", "grid": [blocks], "block": [128],
            "buffers": {
                "in": { "type": "u32", "data": input },
                "exclusive": { "type": "u32", "len": blocks * segment },
                "inclusive": { "type": "u32", "len": blocks * segment },
            },
            "args": [{ "buffer": "in" }, { "buffer": "exclusive" }, { "buffer": "inclusive" },
                     { "type": "s32", "value": segment }],
        }),
        expected: vec![
            ("exclusive", Expected::Bits(u32_bits(exclusive))),
            ("inclusive", Expected::Bits(u32_bits(inclusive))),
        ],
    }
}

/// `cub_block_scan_raking`: inclusive sums of each block of 64 and the block totals.
fn cub_block_scan_raking(random: &mut Random) -> Case {
    let blocks = 5;
    let input: Vec<i32> = (0..blocks * 64).map(|_| random.next_u32() as i32).collect();
    let mut inclusive = Vec::new();
    let mut totals = Vec::new();
    for block in input.chunks(64) {
        let mut sum = 0i32;
        for &value in block {
            sum = sum.wrapping_add(value);
            inclusive.push(sum);
        }
        totals.push(sum);
    }
    Case {
        files: every_compiler!("cub_block_reduce_scan"),
        spec: json!({
            "kernel": "cub_block_scan_raking", "grid": [blocks], "block": [64],
            "buffers": {
                "in": { "type": "s32", "data": input },
                "inclusive": { "type": "s32", "len": blocks * 64 }, "totals": { "type": "s32", "len": blocks },
            },
            "args": [{ "buffer": "in" }, { "buffer": "inclusive" }, { "buffer": "totals" }],
        }),
        expected: vec![
            ("inclusive", Expected::Bits(i32_bits(inclusive))),
            ("totals", Expected::Bits(i32_bits(totals))),
        ],
    }
}

/// `cub_radix_sort_keys`: each block's 512 keys sorted.
fn cub_radix_sort_keys(random: &mut Random) -> Case {
    let blocks = 4;
    // Full-width keys, and some repeated small ones.
    let keys: Vec<u32> = (0..blocks * 512)
        .map(|index| if index % 3 == 0 { random.next_u32() % 40 } else { random.next_u32() })
        .collect();
    let mut sorted = keys.clone();
    for block in sorted.chunks_mut(512) {
        block.sort_unstable();
    }
    Case {
        files: every_compiler!("cub_radix_sort"),
        spec: json!({
            "kernel": "cub_radix_sort_keys", "grid": [blocks], "block": [128],
            "buffers": { "keys": { "type": "u32", "data": keys } },
            "args": [{ "buffer": "keys" }],
        }),
        expected: vec![("keys", Expected::Bits(u32_bits(sorted)))],
    }
}

/// `cub_radix_sort_pairs`: each block's 256 pairs sorted by signed key, descending, equal keys
/// keeping their order (the values are the original positions, so stability shows).
fn cub_radix_sort_pairs(random: &mut Random) -> Case {
    let blocks = 3;
    let keys: Vec<i32> = (0..blocks * 256)
        .map(|index| if index % 2 == 0 { random.integer(-20, 20) as i32 } else { random.next_u32() as i32 })
        .collect();
    let values: Vec<u32> = (0..blocks as u32 * 256).collect();
    let mut sorted_keys = Vec::new();
    let mut sorted_values = Vec::new();
    for (block_keys, block_values) in keys.chunks(256).zip(values.chunks(256)) {
        let mut pairs: Vec<(i32, u32)> = block_keys.iter().copied().zip(block_values.iter().copied()).collect();
        pairs.sort_by_key(|pair| std::cmp::Reverse(pair.0));
        sorted_keys.extend(pairs.iter().map(|pair| pair.0));
        sorted_values.extend(pairs.iter().map(|pair| pair.1));
    }
    Case {
        files: every_compiler!("cub_radix_sort"),
        spec: json!({
            "kernel": "cub_radix_sort_pairs", "grid": [blocks], "block": [64],
            "buffers": { "keys": { "type": "s32", "data": keys }, "values": { "type": "u32", "data": values } },
            "args": [{ "buffer": "keys" }, { "buffer": "values" }],
        }),
        expected: vec![
            ("keys", Expected::Bits(i32_bits(sorted_keys))),
            ("values", Expected::Bits(u32_bits(sorted_values))),
        ],
    }
}

/// `cub_histogram_sort` and `cub_histogram_atomic`: the counts of 5 x 512 bytes, skewed so that
/// some bins are hot and some empty.
fn cub_histograms(random: &mut Random) -> Vec<Case> {
    let blocks = 5;
    let samples: Vec<u8> = (0..blocks * 512)
        .map(|_| match random.integer(0, 3) {
            0 => 7,
            1 => random.integer(0, 15) as u8,
            _ => random.next_u32() as u8,
        })
        .collect();
    let mut counts = vec![0u32; 256];
    for &sample in &samples {
        counts[usize::from(sample)] += 1;
    }
    ["cub_histogram_sort", "cub_histogram_atomic"]
        .into_iter()
        .map(|kernel| Case {
            files: every_compiler!("cub_histogram_load_store"),
            spec: json!({
                "kernel": kernel, "grid": [blocks], "block": [128],
                "buffers": { "samples": { "type": "u8", "data": samples }, "histogram": { "type": "u32", "len": 256 } },
                "args": [{ "buffer": "samples" }, { "buffer": "histogram" }],
            }),
            expected: vec![("histogram", Expected::Bits(u32_bits(counts.clone())))],
        })
        .collect()
}

/// `cub_load_store`: running sums within each group of 4 (one thread's blocked items), for the
/// first `valid` elements; three full tiles of 256 (vectorised loads) and a partial one.
fn cub_load_store(random: &mut Random) -> Case {
    let (blocks, valid) = (4usize, 900usize);
    let input: Vec<f32> = (0..valid).map(|_| random.integer(-1000, 1000) as f32).collect();
    let mut output = vec![0f32; blocks * 256];
    for (index, slot) in output.iter_mut().enumerate().take(valid) {
        *slot = input[index / 4 * 4..=index].iter().sum();
    }
    Case {
        files: every_compiler!("cub_histogram_load_store"),
        spec: json!({
            "kernel": "cub_load_store", "grid": [blocks], "block": [64],
            "buffers": { "in": { "type": "f32", "data": input }, "out": { "type": "f32", "len": blocks * 256 } },
            "args": [{ "buffer": "in" }, { "buffer": "out" }, { "type": "s32", "value": valid }],
        }),
        expected: vec![("out", Expected::Bits(f32_bits(&output)))],
    }
}

/// `cub_warp_reduce`: sums per warp, maxima per 16 lanes, and the sum of the first `valid` lanes
/// of each 8.
fn cub_warp_reduce(random: &mut Random) -> Case {
    let (blocks, valid) = (3, 5);
    let input: Vec<i32> = (0..blocks * 128).map(|_| random.integer(-1 << 24, 1 << 24) as i32).collect();
    let sums = input.chunks(32).map(|warp| warp.iter().sum::<i32>());
    let maxima = input.chunks(16).map(|lanes| lanes.iter().copied().max().unwrap_or(i32::MIN));
    let partial = input.chunks(8).map(|lanes| lanes[..valid].iter().sum::<i32>());
    Case {
        files: every_compiler!("cub_warp"),
        spec: json!({
            "kernel": "cub_warp_reduce", "grid": [blocks], "block": [128],
            "buffers": {
                "in": { "type": "s32", "data": input },
                "sums": { "type": "s32", "len": blocks * 4 },
                "maxima": { "type": "s32", "len": blocks * 8 },
                "partial": { "type": "s32", "len": blocks * 16 },
            },
            "args": [{ "buffer": "in" }, { "buffer": "sums" }, { "buffer": "maxima" }, { "buffer": "partial" },
                     { "type": "s32", "value": valid }],
        }),
        expected: vec![
            ("sums", Expected::Bits(i32_bits(sums))),
            ("maxima", Expected::Bits(i32_bits(maxima))),
            ("partial", Expected::Bits(i32_bits(partial))),
        ],
    }
}

/// `cub_warp_scan`: inclusive and exclusive sums per warp, its aggregate, and the exclusive
/// minimum-scan per 16 lanes (lane 0 of each 16 left at zero).
fn cub_warp_scan(random: &mut Random) -> Case {
    let blocks = 3;
    let input: Vec<u32> = (0..blocks * 64).map(|_| random.next_u32()).collect();
    let (mut inclusive, mut exclusive, mut aggregates, mut minima) = (vec![], vec![], vec![], vec![]);
    for warp in input.chunks(32) {
        let mut sum = 0u32;
        for &value in warp {
            exclusive.push(sum);
            sum = sum.wrapping_add(value);
            inclusive.push(sum);
        }
        aggregates.push(sum);
    }
    for lanes in input.chunks(16) {
        minima.push(0);
        for lane in 1..16 {
            minima.push(lanes[..lane].iter().copied().min().unwrap_or(u32::MAX));
        }
    }
    Case {
        files: every_compiler!("cub_warp"),
        spec: json!({
            "kernel": "cub_warp_scan", "grid": [blocks], "block": [64],
            "buffers": {
                "in": { "type": "u32", "data": input },
                "inclusive": { "type": "u32", "len": blocks * 64 },
                "exclusive": { "type": "u32", "len": blocks * 64 },
                "aggregates": { "type": "u32", "len": blocks * 2 },
                "minima": { "type": "u32", "len": blocks * 64 },
            },
            "args": [{ "buffer": "in" }, { "buffer": "inclusive" }, { "buffer": "exclusive" },
                     { "buffer": "aggregates" }, { "buffer": "minima" }],
        }),
        expected: vec![
            ("inclusive", Expected::Bits(u32_bits(inclusive))),
            ("exclusive", Expected::Bits(u32_bits(exclusive))),
            ("aggregates", Expected::Bits(u32_bits(aggregates))),
            ("minima", Expected::Bits(u32_bits(minima))),
        ],
    }
}

/// `cg_tile_reduce`: sums and maxima per tile of 16, block sums through tiles of 32.
fn cg_tile_reduce(random: &mut Random) -> Case {
    let blocks = 4;
    let input: Vec<i32> = (0..blocks * 128).map(|_| random.integer(-1 << 20, 1 << 20) as i32).collect();
    let sums = input.chunks(16).map(|tile| tile.iter().sum::<i32>());
    let maxima = input.chunks(16).map(|tile| tile.iter().copied().max().unwrap_or(i32::MIN));
    let block_sums = input.chunks(128).map(|block| block.iter().sum::<i32>());
    Case {
        files: every_compiler!("cg_tile_reduce", debug),
        spec: json!({
            "kernel": "cg_tile_reduce", "grid": [blocks], "block": [128],
            "buffers": {
                "in": { "type": "s32", "data": input },
                "tile_sums": { "type": "s32", "len": blocks * 8 },
                "tile_maxima": { "type": "s32", "len": blocks * 8 },
                "block_sums": { "type": "s32", "len": blocks },
            },
            "args": [{ "buffer": "in" }, { "buffer": "tile_sums" }, { "buffer": "tile_maxima" },
                     { "buffer": "block_sums" }],
        }),
        expected: vec![
            ("tile_sums", Expected::Bits(i32_bits(sums))),
            ("tile_maxima", Expected::Bits(i32_bits(maxima))),
            ("block_sums", Expected::Bits(i32_bits(block_sums))),
        ],
    }
}

/// `decoupled_lookback_scan`: the inclusive prefix sum of 5020 values over 10 tiles of 512 in
/// one pass, the last tile partial; the status words end with every tile's inclusive prefix.
fn decoupled_lookback_scan(random: &mut Random) -> Case {
    let (tiles, n) = (10usize, 5020usize);
    let input: Vec<u32> = (0..n).map(|_| random.next_u32()).collect();
    let mut sum = 0u32;
    let inclusive: Vec<u32> = input
        .iter()
        .map(|&value| {
            sum = sum.wrapping_add(value);
            sum
        })
        .collect();
    let status: Vec<u64> =
        (0..tiles).map(|tile| 2 << 32 | u64::from(inclusive[(tile * 512 + 511).min(n - 1)])).collect();
    Case {
        files: every_compiler!("decoupled_lookback_scan"),
        spec: json!({
            "kernel": "decoupled_lookback_scan", "grid": [tiles], "block": [128],
            "buffers": {
                "in": { "type": "u32", "data": input },
                "out": { "type": "u32", "len": n },
                "status": { "type": "u64", "len": tiles },
                "ticket": { "type": "u32", "len": 1 },
            },
            "args": [{ "buffer": "in" }, { "buffer": "out" }, { "buffer": "status" }, { "buffer": "ticket" },
                     { "type": "s32", "value": n }],
        }),
        expected: vec![
            ("out", Expected::Bits(u32_bits(inclusive))),
            ("status", Expected::Bits(status)),
            ("ticket", Expected::Bits(vec![tiles as u64])),
        ],
    }
}

/// `stencil_2d_halo`: 4 x centre minus the four neighbours, clamped at the edges, on a 40 x 27
/// grid that leaves the last tiles partial.
fn stencil_2d_halo(random: &mut Random) -> Case {
    let (width, height) = (40usize, 27usize);
    let input: Vec<f32> = (0..width * height).map(|_| random.integer(-100, 100) as f32).collect();
    let at = |x: usize, y: usize| input[y * width + x];
    let mut output = Vec::new();
    for y in 0..height {
        for x in 0..width {
            let north = at(x, y.saturating_sub(1));
            let south = at(x, (y + 1).min(height - 1));
            let west = at(x.saturating_sub(1), y);
            let east = at((x + 1).min(width - 1), y);
            output.push(4.0 * at(x, y) - north - south - west - east);
        }
    }
    Case {
        files: &[
            "stencil_2d_halo.nvcc.sm80.ptx",
            "stencil_2d_halo.nvcc.sm90.ptx",
            "stencil_2d_halo.nvcc.sm80.fastmath.ptx",
            "stencil_2d_halo.clang.sm80.ptx",
        ],
        spec: json!({
            "kernel": "stencil_2d_halo", "grid": [width.div_ceil(16), height.div_ceil(16)], "block": [16, 16],
            "buffers": { "in": { "type": "f32", "data": input }, "out": { "type": "f32", "len": width * height } },
            "args": [{ "buffer": "in" }, { "buffer": "out" }, { "type": "s32", "value": width },
                     { "type": "s32", "value": height }],
        }),
        expected: vec![("out", Expected::Bits(f32_bits(&output)))],
    }
}

/// `transpose_padded`: a 70 x 45 matrix transposed.
fn transpose_padded(random: &mut Random) -> Case {
    let (width, height) = (70usize, 45usize);
    let input: Vec<u32> = (0..width * height).map(|_| random.next_u32()).collect();
    let mut output = vec![0u32; width * height];
    for y in 0..height {
        for x in 0..width {
            output[x * height + y] = input[y * width + x];
        }
    }
    Case {
        files: &["transpose_padded.nvcc.sm80.ptx", "transpose_padded.nvcc.sm90.ptx", "transpose_padded.clang.sm80.ptx"],
        spec: json!({
            "kernel": "transpose_padded", "grid": [width.div_ceil(32), height.div_ceil(32)], "block": [32, 8],
            "buffers": { "in": { "type": "u32", "data": input }, "out": { "type": "u32", "len": width * height } },
            "args": [{ "buffer": "in" }, { "buffer": "out" }, { "type": "s32", "value": width },
                     { "type": "s32", "value": height }],
        }),
        expected: vec![("out", Expected::Bits(u32_bits(output)))],
    }
}

/// `warp_partial_masks`: blocks of 48 (a full warp and a warp of 16), eight words per thread.
fn warp_partial_masks(random: &mut Random) -> Case {
    let (blocks, threads) = (2usize, 48usize);
    let mut input: Vec<u32> = (0..blocks * threads).map(|_| random.next_u32()).collect();
    // A zero in one warp, for __any_sync and __all_sync.
    input[5] = 0;
    let mut output = Vec::new();
    for index in 0..blocks * threads {
        let thread = index % threads;
        let lane = thread % 32;
        let warp_start = index - lane;
        let warp_lanes = (threads - (thread - lane)).min(32);
        let warp = &input[warp_start..warp_start + warp_lanes];
        let ballot = |predicate: &dyn Fn(u32) -> bool| {
            warp.iter()
                .enumerate()
                .filter(|(_, &value)| predicate(value))
                .fold(0u32, |mask, (lane, _)| mask | 1 << lane)
        };
        let group = lane / 8 * 8;
        output.push(if warp_lanes == 32 { u32::MAX } else { (1u32 << warp_lanes) - 1 });
        output.push(if lane < 16 { warp[(lane + 3) % 16] } else { 0 });
        output.push(warp[group + 5]);
        output.push(warp[lane ^ 2]);
        output.push(warp[group..=lane].iter().fold(0u32, |sum, &value| sum.wrapping_add(value)));
        output.push(ballot(&|value| value & 1 == 1));
        output.push(warp[lane ^ 1].wrapping_mul(3));
        let all = warp.iter().all(|&value| value != 0);
        let any = warp.contains(&0);
        output.push(ballot(&|value| value > 0x8000_0000).count_ones() + (u32::from(all) << 8) + (u32::from(any) << 9));
    }
    Case {
        files: &[
            "warp_partial_masks.nvcc.sm80.ptx",
            "warp_partial_masks.nvcc.sm90.ptx",
            "warp_partial_masks.clang.sm80.ptx",
            "warp_partial_masks.nvcc.sm80.debug.ptx",
        ],
        spec: json!({
            "kernel": "warp_partial_masks", "grid": [blocks], "block": [threads],
            "buffers": { "in": { "type": "u32", "data": input }, "out": { "type": "u32", "len": blocks * threads * 8 } },
            "args": [{ "buffer": "in" }, { "buffer": "out" }],
        }),
        expected: vec![("out", Expected::Bits(u32_bits(output)))],
    }
}

/// `atomic_cas_double`: sums into four doubles and a maximum, all through `atomicCAS` loops.
fn atomic_cas_double(random: &mut Random) -> Case {
    let n = 1000usize;
    let input: Vec<f64> = (0..n).map(|_| random.integer(-1 << 40, 1 << 40) as f64).collect();
    let mut totals = [0f64; 4];
    for (index, &value) in input.iter().enumerate() {
        totals[index % 4] += value;
    }
    let maximum = input.iter().copied().fold(f64::MIN, f64::max);
    Case {
        files: &[
            "atomic_cas_double.nvcc.sm80.ptx",
            "atomic_cas_double.nvcc.sm90.ptx",
            "atomic_cas_double.clang.sm80.ptx",
        ],
        spec: json!({
            "kernel": "atomic_cas_double", "grid": [3], "block": [64],
            "buffers": {
                "in": { "type": "f64", "data": input },
                "totals": { "type": "f64", "len": 4 },
                "maximum": { "type": "f64", "data": [f64::MIN] },
            },
            "args": [{ "buffer": "in" }, { "buffer": "totals" }, { "buffer": "maximum" }, { "type": "s32", "value": n }],
        }),
        expected: vec![("totals", Expected::Bits(f64_bits(totals))), ("maximum", Expected::Bits(f64_bits([maximum])))],
    }
}

/// `atomics_mix`: every order-independent atomic over 256 signed values, warp sums and maxima
/// through `redux.sync`, and each lane's `match.any` mask of the values modulo 4.
fn atomics_mix(random: &mut Random) -> Case {
    let n = 256usize;
    let input: Vec<i32> = (0..n).map(|_| random.integer(-1 << 28, 1 << 28) as i32).collect();
    let counters = [
        input.iter().fold(0i32, |sum, &value| sum.wrapping_add(value)),
        input.iter().copied().fold(i32::MAX, i32::min),
        input.iter().copied().fold(i32::MIN, i32::max),
        input.iter().fold(-1i32, |all, &value| all & (value | 0x0ff0_0ff0)),
        input.iter().fold(0i32, |any, &value| any | (value & 0x00ff_00ff)),
        input.iter().fold(0i32, |bits, &value| bits ^ value),
        input.iter().map(|&value| value as u32).fold(u32::MAX, u32::min) as i32,
        input.iter().map(|&value| value as u32).fold(0, u32::max) as i32,
    ];
    // The initial values: -1 for `and` and the unsigned minimum, the extremes for min and max.
    let initial = [0i32, i32::MAX, i32::MIN, -1, 0, 0, -1, 0];
    // atomicInc(limit): old >= limit ? 0 : old + 1; atomicDec(limit): old == 0 || old > limit ?
    // limit : old - 1; the same function each time, so the order does not matter.
    let wraps = [
        (0..n).fold(0u32, |old, _| if old >= 100 { 0 } else { old + 1 }),
        (0..n).fold(0u32, |old, _| if old == 0 || old > 50 { 50 } else { old - 1 }),
    ];
    let sum: f64 = input.iter().map(|&value| f64::from(value)).sum();
    let wide_sum = input.iter().fold(0u64, |sum, &value| sum.wrapping_add(u64::from(value as u32)));
    let warps: Vec<i32> = input
        .chunks(32)
        .flat_map(|warp| {
            [warp.iter().fold(0i32, |sum, &value| sum.wrapping_add(value)), warp.iter().copied().max().unwrap_or(0)]
        })
        .collect();
    let matches = (0..n).map(|index| {
        let warp = &input[index / 32 * 32..][..32];
        warp.iter()
            .enumerate()
            .filter(|(_, &value)| value & 3 == input[index] & 3)
            .fold(0u32, |mask, (lane, _)| mask | 1 << lane)
    });
    Case {
        files: every_compiler!("atomics_mix", debug),
        spec: json!({
            "kernel": "atomics_mix", "grid": [n / 64], "block": [64],
            "buffers": {
                "in": { "type": "s32", "data": input },
                "counters": { "type": "s32", "data": initial },
                "wraps": { "type": "u32", "len": 2 },
                "sum": { "type": "f64", "len": 1 },
                "wide_sum": { "type": "u64", "len": 1 },
                "warps": { "type": "s32", "len": n / 16 },
                "matches": { "type": "u32", "len": n },
            },
            "args": [{ "buffer": "in" }, { "buffer": "counters" }, { "buffer": "wraps" }, { "buffer": "sum" },
                     { "buffer": "wide_sum" }, { "buffer": "warps" }, { "buffer": "matches" }],
        }),
        expected: vec![
            ("counters", Expected::Bits(i32_bits(counters))),
            ("wraps", Expected::Bits(u32_bits(wraps))),
            ("sum", Expected::Bits(f64_bits([sum]))),
            ("wide_sum", Expected::Bits(vec![wide_sum])),
            ("warps", Expected::Bits(i32_bits(warps))),
            ("matches", Expected::Bits(u32_bits(matches))),
        ],
    }
}

fn cases() -> Vec<Case> {
    let mut random = Random(0x11b5_0001);
    let mut cases = vec![
        cub_block_reduce(&mut random),
        cub_block_reduce_raking(&mut random),
        cub_block_scan(&mut random),
        cub_block_scan_raking(&mut random),
        cub_radix_sort_keys(&mut random),
        cub_radix_sort_pairs(&mut random),
    ];
    cases.extend(cub_histograms(&mut random));
    cases.extend([
        cub_load_store(&mut random),
        cub_warp_reduce(&mut random),
        cub_warp_scan(&mut random),
        cg_tile_reduce(&mut random),
        decoupled_lookback_scan(&mut random),
        stencil_2d_halo(&mut random),
        transpose_padded(&mut random),
        warp_partial_masks(&mut random),
        atomic_cas_double(&mut random),
        atomics_mix(&mut random),
    ]);
    cases
}

#[test]
fn library_kernels_match_their_models_on_the_cpu() {
    let (runs, problems) = run_cases(cases(), "cpu", &[]);
    assert!(runs >= 55, "expected every library fixture, ran {runs}");
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn library_kernels_match_their_models_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    let (runs, problems) = run_cases(cases(), "spirv", &[]);
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}
