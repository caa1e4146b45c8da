//! Kernels written the way library users write them, unlike the other fixtures
//! (`tests/fixtures/ptx/`, "Library primitives" in its README): CUB's block sorts and
//! reorderings, cooperative groups' small tiles, coalesced and labeled groups, `cuda::atomic_ref`
//! at every scope, `cp.async` pipelines, warp intrinsics and a register bitonic sort, Triton's
//! scans, sorts, atomics and float8 `tl.dot`, numba's atomics and shared scans. Each runs
//! through `ptxr run` on the CPU, and on SPIR-V through OpenCL when a device is there, against a
//! Rust model of its source.
//!
//! Inputs are integers, integer-valued floats or small multiples of powers of two, so every
//! result checked is exact whatever order a library or the hardware adds in.

use serde_json::{json, Value};

mod support;
use support::fixture_kernels::{f32_bits, run_cases, with_scratch, Case, Expected, Random};
use support::opencl_device_available;

fn i32_bits(values: impl IntoIterator<Item = i32>) -> Vec<u64> {
    values.into_iter().map(|value| u64::from(value as u32)).collect()
}

fn i64_bits(values: impl IntoIterator<Item = i64>) -> Vec<u64> {
    values.into_iter().map(|value| value as u64).collect()
}

fn f64_bits(values: impl IntoIterator<Item = f64>) -> Vec<u64> {
    values.into_iter().map(f64::to_bits).collect()
}

fn buffers(names: &[&str]) -> Vec<Value> {
    names.iter().map(|name| json!({ "buffer": name })).collect()
}

/// The numba array arguments of one 1-D array (meminfo, parent, nitems, itemsize, data, shape,
/// stride).
fn numba_array(buffer: &str, len: usize, item_size: usize) -> Vec<Value> {
    vec![
        json!({ "type": "u64", "value": 0 }),
        json!({ "type": "u64", "value": 0 }),
        json!({ "type": "u64", "value": len }),
        json!({ "type": "u64", "value": item_size }),
        json!({ "buffer": buffer }),
        json!({ "type": "u64", "value": len }),
        json!({ "type": "u64", "value": item_size }),
    ]
}

const CUB_SORTS: &[&str] =
    &["cub_block_sorts.nvcc.sm80.ptx", "cub_block_sorts.nvcc.sm100.ptx", "cub_block_sorts.clang.sm80.ptx"];
const CG_PARTITIONS: &[&str] =
    &["cg_partitions.nvcc.sm80.ptx", "cg_partitions.nvcc.sm90.ptx", "cg_partitions.clang.sm80.ptx"];
const ATOMIC_REF: &[&str] =
    &["atomic_ref_scopes.nvcc.sm80.ptx", "atomic_ref_scopes.nvcc.sm120.ptx", "atomic_ref_scopes.clang.sm80.ptx"];
const PIPELINES: &[&str] = &["pipeline_copies.nvcc.sm80.ptx", "pipeline_copies.nvcc.sm90.ptx"];
const WARP_CODE: &[&str] = &[
    "warp_register_sort.nvcc.sm80.ptx",
    "warp_register_sort.nvcc.sm89.ptx",
    "warp_register_sort.nvcc.sm80.debug.ptx",
    "warp_register_sort.clang.sm80.ptx",
];

/// `block_merge_sort`: each block's 512 keys sorted stably, values (their indices) carried.
fn block_merge_sort(random: &mut Random) -> Case {
    let blocks = 3;
    let keys: Vec<i32> = (0..blocks * 512).map(|_| random.integer(0, 299) as i32).collect();
    let mut pairs: Vec<(i32, i32)> = keys.iter().enumerate().map(|(index, &key)| (key, index as i32)).collect();
    for block in pairs.chunks_mut(512) {
        block.sort_by_key(|&(key, _)| key);
    }
    Case {
        files: CUB_SORTS,
        spec: json!({
            "kernel": "block_merge_sort", "grid": [blocks], "block": [128],
            "buffers": {
                "keys": { "type": "s32", "data": keys },
                "values": { "type": "s32", "data": (0..blocks * 512).collect::<Vec<i32>>() },
            },
            "args": buffers(&["keys", "values"]),
        }),
        expected: vec![
            ("keys", Expected::Bits(i32_bits(pairs.iter().map(|&(key, _)| key)))),
            ("values", Expected::Bits(i32_bits(pairs.iter().map(|&(_, value)| value)))),
        ],
    }
}

/// `warp_merge_sort`: logical warps of 16 threads sort 48 floats each.
fn warp_merge_sort(random: &mut Random) -> Case {
    let n = 2 * 4 * 48;
    let data: Vec<f32> = (0..n).map(|_| random.integer(-1000, 1000) as f32 / 4.0).collect();
    let mut sorted = data.clone();
    for tile in sorted.chunks_mut(48) {
        tile.sort_by(f32::total_cmp);
    }
    Case {
        files: CUB_SORTS,
        spec: json!({
            "kernel": "warp_merge_sort", "grid": [2], "block": [64],
            "buffers": { "data": { "type": "f32", "data": data } },
            "args": [{ "buffer": "data" }, { "type": "s32", "value": n }],
        }),
        expected: vec![("data", Expected::Bits(f32_bits(&sorted)))],
    }
}

/// `adjacent_and_flags`: left differences and head and tail flags of runs, per block of 256.
fn adjacent_and_flags(random: &mut Random) -> Case {
    let input: Vec<i32> = (0..512).map(|_| random.integer(0, 3) as i32).collect();
    let (mut difference, mut heads, mut tails) = (Vec::new(), Vec::new(), Vec::new());
    for block in input.chunks(256) {
        for (index, &value) in block.iter().enumerate() {
            difference.push(if index == 0 { value } else { value - block[index - 1] });
            heads.push(i32::from(index == 0 || value != block[index - 1]));
            tails.push(i32::from(index == 255 || value != block[index + 1]));
        }
    }
    Case {
        files: CUB_SORTS,
        spec: json!({
            "kernel": "adjacent_and_flags", "grid": [2], "block": [128],
            "buffers": {
                "in": { "type": "s32", "data": input }, "diff": { "type": "s32", "len": 512 },
                "heads": { "type": "s32", "len": 512 }, "tails": { "type": "s32", "len": 512 },
            },
            "args": buffers(&["in", "diff", "heads", "tails"]),
        }),
        expected: vec![
            ("diff", Expected::Bits(i32_bits(difference))),
            ("heads", Expected::Bits(i32_bits(heads))),
            ("tails", Expected::Bits(i32_bits(tails))),
        ],
    }
}

/// `radix_pairs_desc`: u64 keys sorted descending with their values, stable in the order CUB
/// ranks the striped input (thread `i % 64`, item `i / 64`).
fn radix_pairs_descending(random: &mut Random) -> Case {
    let mut keys: Vec<u64> = (0..512).map(|_| random.next_u64() >> 1).collect();
    for index in (0..512).step_by(7) {
        keys[index] = keys[3];
    }
    let values: Vec<f32> = (0..512).map(|index| index as f32).collect();
    let (mut sorted_keys, mut sorted_values) = (Vec::new(), Vec::new());
    for block in 0..2 {
        let mut order: Vec<usize> = (0..256).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(keys[block * 256 + i]), (i % 64) * 4 + i / 64));
        sorted_keys.extend(order.iter().map(|&i| keys[block * 256 + i]));
        sorted_values.extend(order.iter().map(|&i| values[block * 256 + i]));
    }
    Case {
        files: CUB_SORTS,
        spec: json!({
            "kernel": "radix_pairs_desc", "grid": [2], "block": [64],
            "buffers": { "keys": { "type": "u64", "data": keys }, "values": { "type": "f32", "data": values } },
            "args": buffers(&["keys", "values"]),
        }),
        expected: vec![("keys", Expected::Bits(sorted_keys)), ("values", Expected::Bits(f32_bits(&sorted_values)))],
    }
}

/// `cg_small_tiles`: sums of tiles of 4, XORs of 8, minima of 16, scans of 8, lane 5 of 16.
fn cg_small_tiles(random: &mut Random) -> Case {
    let input: Vec<i32> = (0..256).map(|_| random.integer(-1000, 1000) as i32).collect();
    let sums = input.chunks(4).map(|tile| tile.iter().sum::<i32>());
    let xors = input.chunks(8).map(|tile| tile.iter().fold(0, |xor, &value| xor ^ value));
    let minima = input.chunks(16).map(|tile| tile.iter().copied().min().unwrap_or(i32::MAX));
    let scans = input.chunks(8).flat_map(|tile| {
        tile.iter()
            .scan(0, |sum, &value| {
                *sum += value;
                Some(*sum)
            })
            .collect::<Vec<_>>()
    });
    let broadcast = input.chunks(16).flat_map(|tile| [tile[5]; 16]);
    Case {
        files: CG_PARTITIONS,
        spec: json!({
            "kernel": "cg_small_tiles", "grid": [2], "block": [128],
            "buffers": {
                "in": { "type": "s32", "data": input }, "sum4": { "type": "s32", "len": 64 },
                "xor8": { "type": "s32", "len": 32 }, "min16": { "type": "s32", "len": 16 },
                "scan8": { "type": "s32", "len": 256 }, "bcast16": { "type": "s32", "len": 256 },
            },
            "args": buffers(&["in", "sum4", "xor8", "min16", "scan8", "bcast16"]),
        }),
        expected: vec![
            ("sum4", Expected::Bits(i32_bits(sums))),
            ("xor8", Expected::Bits(i32_bits(xors))),
            ("min16", Expected::Bits(i32_bits(minima))),
            ("scan8", Expected::Bits(i32_bits(scans))),
            ("bcast16", Expected::Bits(i32_bits(broadcast))),
        ],
    }
}

/// `cg_coalesced`: among each warp's threads with odd values, rank, count and exclusive sum.
fn cg_coalesced(random: &mut Random) -> Case {
    let input: Vec<i32> = (0..256).map(|_| random.integer(-1000, 1000) as i32).collect();
    let (mut rank, mut size, mut prefix) = (vec![-1; 256], vec![-1; 256], vec![-1; 256]);
    for warp in 0..8 {
        let odd: Vec<usize> = (warp * 32..warp * 32 + 32).filter(|&i| input[i] & 1 != 0).collect();
        let mut sum = 0;
        for (position, &i) in odd.iter().enumerate() {
            (rank[i], size[i], prefix[i]) = (position as i32, odd.len() as i32, sum);
            sum += input[i];
        }
    }
    Case {
        files: CG_PARTITIONS,
        spec: json!({
            "kernel": "cg_coalesced", "grid": [2], "block": [128],
            "buffers": {
                "in": { "type": "s32", "data": input }, "rank": { "type": "s32", "len": 256 },
                "size": { "type": "s32", "len": 256 }, "prefix": { "type": "s32", "len": 256 },
            },
            "args": buffers(&["in", "rank", "size", "prefix"]),
        }),
        expected: vec![
            ("rank", Expected::Bits(i32_bits(rank))),
            ("size", Expected::Bits(i32_bits(size))),
            ("prefix", Expected::Bits(i32_bits(prefix))),
        ],
    }
}

/// `cg_labeled`: each warp partitioned by `value % 3` (C's remainder): group size and sum.
fn cg_labeled(random: &mut Random) -> Case {
    let input: Vec<i32> = (0..256).map(|_| random.integer(-1000, 1000) as i32).collect();
    let (mut size, mut sum) = (Vec::new(), Vec::new());
    for (i, &value) in input.iter().enumerate() {
        let warp = i / 32 * 32;
        let group: Vec<i32> = input[warp..warp + 32].iter().copied().filter(|other| other % 3 == value % 3).collect();
        size.push(group.len() as i32);
        sum.push(group.iter().sum::<i32>());
    }
    Case {
        files: CG_PARTITIONS,
        spec: json!({
            "kernel": "cg_labeled", "grid": [2], "block": [128],
            "buffers": {
                "in": { "type": "s32", "data": input }, "size": { "type": "s32", "len": 256 },
                "sum": { "type": "s32", "len": 256 },
            },
            "args": buffers(&["in", "size", "sum"]),
        }),
        expected: vec![("size", Expected::Bits(i32_bits(size))), ("sum", Expected::Bits(i32_bits(sum)))],
    }
}

/// `atomic_ref_scopes`: counts, sums, a maximum, ORed bits and stores through `atomic_ref` at
/// every scope (the compare-and-swap winner, which the order decides, is not checked).
fn atomic_ref_scopes() -> Case {
    let (blocks, threads) = (3usize, 64usize);
    let n = blocks * threads;
    let mut counters = vec![n as i32, (0..n as i32).sum(), n as i32 - 1];
    counters.extend((0..n as i32).map(|i| 2 * i));
    let bits = (0..n).fold(0u64, |bits, i| bits | 1 << (i % 64));
    let shifted = (0..n as u64).fold(0u64, |sum, i| sum.wrapping_add(i << 33));
    Case {
        files: ATOMIC_REF,
        spec: json!({
            "kernel": "atomic_ref_scopes", "grid": [blocks], "block": [threads],
            "buffers": {
                "counters": { "type": "s32", "len": 3 + n }, "wide": { "type": "u64", "len": 2 },
                "fsum": { "type": "f32", "len": 1 }, "dsum": { "type": "f64", "len": blocks },
                "flags": { "type": "s32", "len": 3 },
            },
            "args": buffers(&["counters", "wide", "fsum", "dsum", "flags"]),
        }),
        expected: vec![
            ("counters", Expected::Bits(i32_bits(counters))),
            ("wide", Expected::Bits(vec![bits, shifted])),
            ("fsum", Expected::Bits(f32_bits(&[n as f32 * 0.5]))),
            ("dsum", Expected::Bits(f64_bits(vec![threads as f64 * 0.25; blocks]))),
        ],
    }
}

/// `double_and_aggregated`: double sums at three scopes, a double maximum, and a
/// warp-aggregated count that fills the first `positives` slots.
fn double_and_aggregated(random: &mut Random) -> Case {
    let n = 192;
    let input: Vec<f64> = (0..n).map(|_| random.integer(-50, 50) as f64 / 4.0).collect();
    let total: f64 = input.iter().sum();
    let positives = input.iter().filter(|&&value| value > 0.0).count();
    let maximum = input.iter().copied().fold(f64::MIN, f64::max);
    Case {
        files: ATOMIC_REF,
        spec: json!({
            "kernel": "double_and_aggregated", "grid": [3], "block": [64],
            "buffers": {
                "in": { "type": "f64", "data": input }, "sum": { "type": "f64", "len": 3 },
                "maximum": { "type": "f64", "data": [-1e300] }, "count": { "type": "s32", "len": 1 },
                "slots": { "type": "s32", "len": n },
            },
            "args": buffers(&["in", "sum", "maximum", "count", "slots"]),
        }),
        expected: vec![
            ("sum", Expected::Bits(f64_bits([total, 2.0 * total, n as f64]))),
            ("maximum", Expected::Bits(f64_bits([maximum]))),
            ("count", Expected::Bits(vec![positives as u64])),
            ("slots", Expected::Bits(i32_bits((0..n).map(|i| i32::from(i < positives))))),
        ],
    }
}

/// `pipeline_sum`: two-stage `cuda::pipeline` copies of five tiles of 128, each thread summing
/// twice its element of every tile.
fn pipeline_sum(random: &mut Random) -> Case {
    let tiles = 5;
    let input: Vec<f32> = (0..2 * tiles * 128).map(|_| random.integer(-100, 100) as f32).collect();
    let out: Vec<f32> = (0..256)
        .map(|i| {
            let (block, thread) = (i / 128, i % 128);
            (0..tiles).map(|tile| input[(block * tiles + tile) * 128 + thread] * 2.0).sum()
        })
        .collect();
    Case {
        files: PIPELINES,
        spec: json!({
            "kernel": "pipeline_sum", "grid": [2], "block": [128],
            "buffers": { "in": { "type": "f32", "data": input }, "out": { "type": "f32", "len": 256 } },
            "args": [{ "buffer": "in" }, { "buffer": "out" }, { "type": "s32", "value": tiles }],
        }),
        expected: vec![("out", Expected::Bits(f32_bits(&out)))],
    }
}

/// `cg_memcpy_async` (each block's 256 reversed) and `barrier_memcpy_async` (rotated by one,
/// plus one).
fn async_copies(random: &mut Random) -> Vec<Case> {
    let input: Vec<i32> = (0..768).map(|_| random.integer(-1_000_000, 1_000_000) as i32).collect();
    let reversed = input.chunks(256).flat_map(|block| block.iter().rev().copied().collect::<Vec<_>>());
    let rotated = input.chunks(256).flat_map(|block| (0..256).map(|i| block[(i + 1) % 256] + 1).collect::<Vec<_>>());
    let case = |kernel: &str, expected: Vec<u64>| Case {
        files: PIPELINES,
        spec: json!({
            "kernel": kernel, "grid": [3], "block": [256],
            "buffers": { "in": { "type": "s32", "data": input }, "out": { "type": "s32", "len": 768 } },
            "args": buffers(&["in", "out"]),
        }),
        expected: vec![("out", Expected::Bits(expected))],
    };
    vec![case("cg_memcpy_async", i32_bits(reversed)), case("barrier_memcpy_async", i32_bits(rotated))]
}

/// `warp_reduces`: each warp's `redux.sync` results, `match.any` of `value % 7`, and
/// `match.all` of the top bit (the whole mask in every warp here: the top bits are chosen so).
fn warp_reduces(random: &mut Random) -> Case {
    let mut input: Vec<u32> = (0..128).map(|_| random.next_u32()).collect();
    input.iter_mut().take(64).skip(32).for_each(|value| *value |= 0x8000_0000);
    input.iter_mut().skip(64).for_each(|value| *value &= 0x7fff_ffff);
    input[0] |= 0x8000_0000;
    for value in input.iter_mut().take(32).skip(1) {
        *value |= 0x8000_0000;
    }
    let (mut out, mut matches, mut all) = (Vec::new(), Vec::new(), Vec::new());
    for warp in input.chunks(32) {
        let reduced = [
            warp.iter().fold(0u32, |sum, &value| sum.wrapping_add(value)),
            warp.iter().copied().min().unwrap_or(0),
            warp.iter().map(|&value| value as i32).max().unwrap_or(0) as u32,
            warp.iter().fold(u32::MAX, |and, &value| and & value),
            warp.iter().fold(0, |or, &value| or | value),
            warp.iter().fold(0, |xor, &value| xor ^ value),
        ];
        for &value in warp {
            out.extend(reduced.map(u64::from));
            let mask = (0..32).filter(|&lane| warp[lane] % 7 == value % 7).fold(0u32, |mask, lane| mask | 1 << lane);
            matches.push(u64::from(mask));
            all.push(u64::from(u32::MAX));
        }
    }
    Case {
        files: WARP_CODE,
        spec: json!({
            "kernel": "warp_reduces", "grid": [2], "block": [64],
            "buffers": {
                "in": { "type": "u32", "data": input }, "out": { "type": "u32", "len": 128 * 6 },
                "matches": { "type": "u32", "len": 128 }, "all": { "type": "s32", "len": 128 },
            },
            "args": buffers(&["in", "out", "matches", "all"]),
        }),
        expected: vec![
            ("out", Expected::Bits(out)),
            ("matches", Expected::Bits(matches)),
            ("all", Expected::Bits(all)),
        ],
    }
}

/// `bitonic_shfl`: every warp's 32 keys sorted ascending in registers.
fn bitonic_shuffle(random: &mut Random) -> Case {
    let keys: Vec<i32> = (0..256).map(|_| random.integer(-1_000_000, 1_000_000) as i32).collect();
    let mut sorted = keys.clone();
    sorted.chunks_mut(32).for_each(<[i32]>::sort_unstable);
    Case {
        files: WARP_CODE,
        spec: json!({
            "kernel": "bitonic_shfl", "grid": [2], "block": [128],
            "buffers": { "keys": { "type": "s32", "data": keys } },
            "args": buffers(&["keys"]),
        }),
        expected: vec![("keys", Expected::Bits(i32_bits(sorted)))],
    }
}

/// `scan_u64`: inclusive scans (wrapping) of each block's 256 64-bit keys; the last block
/// partial.
fn scan_u64(random: &mut Random) -> Case {
    let n = 1000;
    let input: Vec<u64> = (0..n).map(|_| random.next_u64() >> 10).collect();
    let scans = input.chunks(256).flat_map(|block| {
        block
            .iter()
            .scan(0u64, |sum, &value| {
                *sum += value;
                Some(*sum as i64)
            })
            .collect::<Vec<_>>()
    });
    Case {
        files: WARP_CODE,
        spec: json!({
            "kernel": "scan_u64", "grid": [4], "block": [256],
            "buffers": { "in": { "type": "u64", "data": input }, "out": { "type": "u64", "len": n } },
            "args": [{ "buffer": "in" }, { "buffer": "out" }, { "type": "s32", "value": n }],
        }),
        expected: vec![("out", Expected::Bits(i64_bits(scans)))],
    }
}

/// `spmv_warp_row`: y = A·x, one warp per CSR row, eighths times integers (exact).
fn spmv_warp_row(random: &mut Random) -> Case {
    let rows = 37;
    let mut row_start = vec![0i32];
    for _ in 0..rows {
        row_start.push(row_start[row_start.len() - 1] + random.integer(0, 79) as i32);
    }
    let nonzeros = row_start[rows] as usize;
    let columns: Vec<i32> = (0..nonzeros).map(|_| random.integer(0, 49) as i32).collect();
    let values: Vec<f64> = (0..nonzeros).map(|_| random.integer(-8, 7) as f64 / 8.0).collect();
    let x: Vec<f64> = (0..50).map(|_| random.integer(-8, 7) as f64).collect();
    let y = (0..rows).map(|row| {
        (row_start[row] as usize..row_start[row + 1] as usize).map(|j| values[j] * x[columns[j] as usize]).sum::<f64>()
    });
    Case {
        files: WARP_CODE,
        spec: json!({
            "kernel": "spmv_warp_row", "grid": [(rows * 32).div_ceil(128)], "block": [128],
            "buffers": {
                "row_start": { "type": "s32", "data": row_start }, "columns": { "type": "s32", "data": columns },
                "values": { "type": "f64", "data": values }, "x": { "type": "f64", "data": x },
                "y": { "type": "f64", "len": rows },
            },
            "args": [
                { "type": "s32", "value": rows }, { "buffer": "row_start" }, { "buffer": "columns" },
                { "buffer": "values" }, { "buffer": "x" }, { "buffer": "y" },
            ],
        }),
        expected: vec![("y", Expected::Bits(f64_bits(y)))],
    }
}

/// `stencil3d`: the 7-point Laplacian (6·centre minus the neighbours) of the interior, blocks
/// of 16×8 marching in z.
fn stencil_3d(random: &mut Random) -> Case {
    let (nx, ny, nz) = (37usize, 19usize, 6usize);
    let input: Vec<f32> = (0..nx * ny * nz).map(|_| random.integer(-4, 3) as f32).collect();
    let at = |x: usize, y: usize, z: usize| input[(z * ny + y) * nx + x];
    let mut out = vec![0f32; nx * ny * nz];
    for z in 1..nz - 1 {
        for y in 1..ny - 1 {
            for x in 1..nx - 1 {
                out[(z * ny + y) * nx + x] = 6.0 * at(x, y, z)
                    - at(x - 1, y, z)
                    - at(x + 1, y, z)
                    - at(x, y - 1, z)
                    - at(x, y + 1, z)
                    - at(x, y, z - 1)
                    - at(x, y, z + 1);
            }
        }
    }
    Case {
        files: WARP_CODE,
        spec: json!({
            "kernel": "stencil3d", "grid": [3, 3], "block": [16, 8],
            "buffers": { "in": { "type": "f32", "data": input }, "out": { "type": "f32", "len": nx * ny * nz } },
            "args": [
                { "buffer": "in" }, { "buffer": "out" },
                { "type": "s32", "value": nx }, { "type": "s32", "value": ny }, { "type": "s32", "value": nz },
            ],
        }),
        expected: vec![("out", Expected::Bits(f32_bits(&out)))],
    }
}

/// Triton's `scans_kernel` on one 8×32 tile: row cumsums, reversed column cumsums, the linear
/// recurrence x = a·x + b along rows (an `associative_scan` of pairs), row cumprods; the
/// factors are ±1, ±½ and 2, so every value is exact.
fn triton_scans(random: &mut Random) -> Case {
    let (rows, columns) = (8usize, 32usize);
    let factors = [1.0f32, -1.0, 2.0, 0.5, -0.5];
    let a: Vec<f32> = (0..rows * columns).map(|_| factors[random.integer(0, 4) as usize]).collect();
    let b: Vec<f32> = (0..rows * columns).map(|_| random.integer(-8, 8) as f32).collect();
    let (mut cumulative, mut reversed, mut linear, mut product) =
        (vec![0f32; 256], vec![0f32; 256], vec![0f32; 256], vec![0f32; 256]);
    for row in 0..rows {
        let (mut sum, mut x, mut running) = (0.0, 0.0, 1.0);
        for column in 0..columns {
            let i = row * columns + column;
            sum += b[i];
            x = if column == 0 { b[i] } else { a[i] * x + b[i] };
            running *= a[i];
            (cumulative[i], linear[i], product[i]) = (sum, x, running);
        }
    }
    for column in 0..columns {
        let mut sum = 0.0;
        for row in (0..rows).rev() {
            sum += b[row * columns + column];
            reversed[row * columns + column] = sum;
        }
    }
    Case {
        files: &["triton_scans.sm80.ptx", "triton_scans.sm90.ptx"],
        spec: json!({
            "grid": [1], "block": [128], "shared_bytes": 512,
            "buffers": {
                "a": { "type": "f32", "data": a }, "b": { "type": "f32", "data": b },
                "cum": { "type": "f32", "len": 256 }, "rev": { "type": "f32", "len": 256 },
                "lin": { "type": "f32", "len": 256 }, "prod": { "type": "f32", "len": 256 },
            },
            "args": with_scratch(buffers(&["a", "b", "cum", "rev", "lin", "prod"])),
        }),
        expected: vec![
            ("cum", Expected::Bits(f32_bits(&cumulative))),
            ("rev", Expected::Bits(f32_bits(&reversed))),
            ("lin", Expected::Bits(f32_bits(&linear))),
            ("prod", Expected::Bits(f32_bits(&product))),
        ],
    }
}

/// Triton's `reduce_kernel`, three programs of 64: descending sort, the first index of the
/// maximum (a `tl.reduce` of pairs), an 8-bin histogram of the keys, the keys' sum times 3·10⁹
/// in int64, and the row reversed.
fn triton_sort_reduce(random: &mut Random) -> Case {
    let (programs, n) = (3usize, 64usize);
    let x: Vec<f32> = (0..programs * n).map(|_| random.integer(-50, 49) as f32 / 4.0).collect();
    let keys: Vec<i32> = (0..programs * n).map(|_| random.integer(0, 7) as i32).collect();
    let (mut sorted, mut argmax, mut histogram, mut sums, mut flipped) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for program in 0..programs {
        let row = &x[program * n..program * n + n];
        let mut descending = row.to_vec();
        descending.sort_by(|left, right| right.total_cmp(left));
        sorted.extend(descending);
        let maximum = row.iter().copied().fold(f32::MIN, f32::max);
        argmax.push(row.iter().position(|&value| value == maximum).unwrap_or(0) as i32);
        let row_keys = &keys[program * n..program * n + n];
        histogram.extend((0..8).map(|bin| row_keys.iter().filter(|&&key| key == bin).count() as i32));
        sums.push(row_keys.iter().map(|&key| i64::from(key) * 3_000_000_000).sum::<i64>());
        flipped.extend(row.iter().rev());
    }
    Case {
        files: &["triton_sort_reduce.sm80.ptx"],
        spec: json!({
            "grid": [programs], "block": [64], "shared_bytes": 256,
            "buffers": {
                "x": { "type": "f32", "data": x }, "keys": { "type": "s32", "data": keys },
                "sorted": { "type": "f32", "len": programs * n }, "argmax": { "type": "s32", "len": programs },
                "histogram": { "type": "s32", "len": programs * 8 }, "sums": { "type": "s64", "len": programs },
                "flipped": { "type": "f32", "len": programs * n },
            },
            "args": with_scratch(buffers(&["x", "keys", "sorted", "argmax", "histogram", "sums", "flipped"])),
        }),
        expected: vec![
            ("sorted", Expected::Bits(f32_bits(&sorted))),
            ("argmax", Expected::Bits(i32_bits(argmax))),
            ("histogram", Expected::Bits(i32_bits(histogram))),
            ("sums", Expected::Bits(i64_bits(sums))),
            ("flipped", Expected::Bits(f32_bits(&flipped))),
        ],
    }
}

/// Triton's `atomics_kernel`: sums, maxima and minima by `off % 4`, an AND and an XOR of every
/// value, a compare-and-swap per program, and exchanges.
fn triton_atomic_ops(random: &mut Random) -> Case {
    let (n, programs) = (300usize, 3usize);
    let x: Vec<i32> = (0..n).map(|_| random.integer(-(1 << 20), 1 << 20) as i32).collect();
    let by_lane = |lane: usize| x.iter().enumerate().filter(move |(i, _)| i % 4 == lane).map(|(_, &value)| value);
    let sums: Vec<i32> = (0..4).map(|lane| by_lane(lane).sum()).collect();
    let mut extremes: Vec<i32> = (0..4).map(|lane| by_lane(lane).max().unwrap_or(i32::MIN)).collect();
    extremes.extend((0..4).map(|lane| by_lane(lane).min().unwrap_or(i32::MAX)));
    extremes.push(x.iter().fold(-1, |and, &value| and & (value | 0x10000)));
    extremes.push(x.iter().fold(0, |xor, &value| xor ^ value));
    let mut swapped = vec![0i32; 16];
    (0..programs).for_each(|program| swapped[program] = program as i32 + 1);
    let initial: Vec<i32> = [i32::MIN; 4].into_iter().chain([i32::MAX; 4]).chain([-1, 0]).collect();
    Case {
        files: &["triton_atomic_ops.sm80.ptx"],
        spec: json!({
            "grid": [programs], "block": [128], "shared_bytes": 4,
            "buffers": {
                "x": { "type": "s32", "data": x }, "sums": { "type": "s32", "len": 4 },
                "extremes": { "type": "s32", "data": initial }, "swapped": { "type": "s32", "len": 16 },
                "exchanged": { "type": "s32", "len": n },
            },
            "args": with_scratch(
                [buffers(&["x", "sums", "extremes", "swapped", "exchanged"]), vec![json!({ "type": "s32", "value": n })]]
                    .concat()
            ),
        }),
        expected: vec![
            ("sums", Expected::Bits(i32_bits(sums))),
            ("extremes", Expected::Bits(i32_bits(extremes))),
            ("swapped", Expected::Bits(i32_bits(swapped))),
            ("exchanged", Expected::Bits(i32_bits(x.iter().map(|value| value * 2)))),
        ],
    }
}

/// The value of an E4M3 byte (bias 7, no infinities; the inputs avoid NaN).
fn e4m3_value(byte: u8) -> f64 {
    let exponent = i32::from(byte >> 3 & 0xf);
    let mantissa = f64::from(byte & 7);
    let magnitude =
        if exponent == 0 { mantissa / 8.0 * 2f64.powi(-6) } else { (1.0 + mantissa / 8.0) * 2f64.powi(exponent - 7) };
    if byte & 0x80 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// Triton's `dot_kernel` on float8 (sm_89): 32×32 f16 A and B, converted to E4M3 (values that
/// E4M3 holds exactly), multiplied by `mma.m16n8k32.f32.e4m3.e4m3.f32` into f32.
fn triton_fp8_dot(random: &mut Random) -> Case {
    let size = 32usize;
    // Every finite E4M3 value up to 16 in magnitude, subnormals included.
    let representable: Vec<f64> = (0..=255u8).map(e4m3_value).filter(|value| value.abs() <= 16.0).collect();
    let mut pick = || representable[random.integer(0, representable.len() as i64 - 1) as usize];
    let a: Vec<f64> = (0..size * size).map(|_| pick()).collect();
    let b: Vec<f64> = (0..size * size).map(|_| pick()).collect();
    let c: Vec<f32> = (0..size * size)
        .map(|i| (0..size).map(|k| a[i / size * size + k] * b[k * size + i % size]).sum::<f64>() as f32)
        .collect();
    let halves = |values: &[f64]| values.iter().map(|&value| half::f16::from_f64(value).to_bits()).collect::<Vec<_>>();
    Case {
        files: &["triton_fp8_dot.sm89.ptx"],
        spec: json!({
            "grid": [1], "block": [128], "shared_bytes": 4096,
            "buffers": {
                "a": { "type": "u16", "data": halves(&a) }, "b": { "type": "u16", "data": halves(&b) },
                "c": { "type": "f32", "len": size * size },
            },
            "args": with_scratch(buffers(&["a", "b", "c"])),
        }),
        expected: vec![("c", Expected::Bits(f32_bits(&c)))],
    }
}

/// Triton's `mixed_dot_kernel` (sm_120a, PTX 9.4): A as E5M2 times B as E4M3
/// (`mma.m16n8k32.f32.e5m2.e4m3.f32`) plus the same product in bf16, so twice A·B; A's
/// integers up to 8 and B's quarters up to 4 are exact in both formats and every sum is exact.
fn triton_fp8_mixed_dot(random: &mut Random) -> Case {
    let size = 32usize;
    let a: Vec<f64> = (0..size * size).map(|_| random.integer(-8, 8) as f64).collect();
    let b: Vec<f64> = (0..size * size).map(|_| random.integer(-16, 16) as f64 / 4.0).collect();
    let c: Vec<f32> = (0..size * size)
        .map(|i| 2.0 * (0..size).map(|k| a[i / size * size + k] * b[k * size + i % size]).sum::<f64>() as f32)
        .collect();
    let halves = |values: &[f64]| values.iter().map(|&value| half::f16::from_f64(value).to_bits()).collect::<Vec<_>>();
    Case {
        files: &["triton_fp8_mixed_dot.sm120.ptx"],
        spec: json!({
            "grid": [1], "block": [128], "shared_bytes": 4096,
            "buffers": {
                "a": { "type": "u16", "data": halves(&a) }, "b": { "type": "u16", "data": halves(&b) },
                "c": { "type": "f32", "len": size * size },
            },
            "args": with_scratch(buffers(&["a", "b", "c"])),
        }),
        expected: vec![("c", Expected::Bits(f32_bits(&c)))],
    }
}

/// Triton's `join_split_kernel`: pairs swapped by `tl.split`/`tl.join`, and `tl.interleave` of
/// the halves back into the input.
fn triton_join_split(random: &mut Random) -> Case {
    let x: Vec<f32> = (0..64).map(|_| random.integer(-1000, 1000) as f32).collect();
    let mut out: Vec<f32> = x.chunks(2).flat_map(|pair| [pair[1], pair[0]]).collect();
    out.extend(&x);
    Case {
        files: &["triton_join_split.sm80.ptx"],
        spec: json!({
            "grid": [1], "block": [32],
            "buffers": {
                "x": { "type": "f32", "data": x }, "out": { "type": "f32", "len": 128 },
                "f64": { "type": "f64", "len": 64 },
            },
            "args": with_scratch(buffers(&["x", "out", "f64"])),
        }),
        expected: vec![("out", Expected::Bits(f32_bits(&out)))],
    }
}

/// numba's `atomics_local`: a per-thread `cuda.local.array` mix, and every `cuda.atomic`
/// operation on shared counters.
fn numba_atomics_local(random: &mut Random) -> Case {
    let n = 200usize;
    let x: Vec<i32> = (0..n).map(|_| random.integer(-1000, 999) as i32).collect();
    let out = x.iter().map(|&value| {
        let mut local = [0i64; 8];
        for j in 0..8 {
            // Python's modulo: the remainder takes the divisor's sign.
            local[(i64::from(value) + j).rem_euclid(8) as usize] += j * i64::from(value);
        }
        local.iter().enumerate().map(|(j, &entry)| entry * (j as i64 + 1)).sum::<i64>()
    });
    let counters = [
        x.iter().sum::<i32>(),
        x.iter().copied().max().unwrap_or(0),
        x.iter().copied().min().unwrap_or(0),
        x.iter().fold(-1, |and, &value| and & (value | 0xff00)),
        x.iter().fold(0, |or, &value| or | (value & 0xff)),
        x.iter().fold(0, |xor, &value| xor ^ value),
        7,
        7,
        -(n as i32),
    ];
    let floats =
        [x.iter().map(|&value| f64::from(value) * 0.5).sum::<f64>(), f64::from(counters[1]), f64::from(counters[2])];
    let mut args = numba_array("x", n, 4);
    args.extend(numba_array("out", n, 8));
    args.extend(numba_array("counters", 9, 4));
    args.extend(numba_array("floats", 3, 8));
    Case {
        files: &["numba_atomics_local.sm80.ptx"],
        spec: json!({
            "grid": [4], "block": [64],
            "buffers": {
                "x": { "type": "s32", "data": x }, "out": { "type": "s64", "len": n },
                "counters": { "type": "s32", "data": [0, i32::MIN, i32::MAX, -1, 0, 0, 0, 0, 0] },
                "floats": { "type": "f64", "data": [0.0, -1e300, 1e300] },
            },
            "args": args,
        }),
        expected: vec![
            ("out", Expected::Bits(i64_bits(out))),
            ("counters", Expected::Bits(i32_bits(counters))),
            ("floats", Expected::Bits(f64_bits(floats))),
        ],
    }
}

/// numba's `shared_scan`: per block of 64, the inclusive scan through a dynamic shared array,
/// the count of positive values, lane `t ^ 3`'s value, popc + clz + brev % 7, and the lane id,
/// as a 2-D int64 array of five columns.
fn numba_shared_scan(random: &mut Random) -> Case {
    let (blocks, threads) = (3usize, 64usize);
    let n = blocks * threads;
    let x: Vec<i32> = (0..n).map(|_| random.integer(-5, 5) as i32).collect();
    let mut out = Vec::new();
    for block in x.chunks(threads) {
        let positives = block.iter().filter(|&&value| value > 0).count() as i64;
        let mut sum = 0i64;
        for (thread, &value) in block.iter().enumerate() {
            sum += i64::from(value);
            let bits = (value as i64 as u64).count_ones() as i64
                + i64::from(value.leading_zeros())
                + i64::from((value as u32).reverse_bits() % 7);
            out.extend([sum, positives, i64::from(block[thread ^ 3]), bits, (thread % 32) as i64]);
        }
    }
    let mut args = numba_array("x", n, 4);
    args.extend([
        json!({ "type": "u64", "value": 0 }),
        json!({ "type": "u64", "value": 0 }),
        json!({ "type": "u64", "value": n * 5 }),
        json!({ "type": "u64", "value": 8 }),
        json!({ "buffer": "out" }),
        json!({ "type": "u64", "value": n }),
        json!({ "type": "u64", "value": 5 }),
        json!({ "type": "u64", "value": 40 }),
        json!({ "type": "u64", "value": 8 }),
    ]);
    Case {
        files: &["numba_shared_scan.sm80.ptx"],
        spec: json!({
            "grid": [blocks], "block": [threads], "shared_bytes": threads * 8,
            "buffers": { "x": { "type": "s32", "data": x }, "out": { "type": "s64", "len": n * 5 } },
            "args": args,
        }),
        expected: vec![("out", Expected::Bits(i64_bits(out)))],
    }
}

fn cases() -> Vec<Case> {
    let mut random = Random(0x5eed_0777);
    let mut cases = vec![
        block_merge_sort(&mut random),
        warp_merge_sort(&mut random),
        adjacent_and_flags(&mut random),
        radix_pairs_descending(&mut random),
        cg_small_tiles(&mut random),
        cg_coalesced(&mut random),
        cg_labeled(&mut random),
        atomic_ref_scopes(),
        double_and_aggregated(&mut random),
        pipeline_sum(&mut random),
    ];
    cases.extend(async_copies(&mut random));
    cases.extend([
        warp_reduces(&mut random),
        bitonic_shuffle(&mut random),
        scan_u64(&mut random),
        spmv_warp_row(&mut random),
        stencil_3d(&mut random),
        triton_scans(&mut random),
        triton_sort_reduce(&mut random),
        triton_atomic_ops(&mut random),
        triton_fp8_dot(&mut random),
        triton_fp8_mixed_dot(&mut random),
        triton_join_split(&mut random),
        numba_atomics_local(&mut random),
        numba_shared_scan(&mut random),
    ]);
    cases
}

/// `cuda::pipeline` and `cuda::barrier` wait on `mbarrier` objects by polling, which Intel's
/// OpenCL CPU runtime, running a work-group's work-items one after another, never ends
/// (lowering's W0904; docs/TARGETS.md).
const NOT_ON_SPIRV: &[&str] = PIPELINES;

#[test]
fn library_primitives_match_their_models_on_the_cpu() {
    let (runs, problems) = run_cases(cases(), "cpu", &[]);
    assert!(runs >= 62, "expected every fixture of every case, ran {runs}");
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn library_primitives_match_their_models_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    let (runs, problems) = run_cases(cases(), "spirv", NOT_ON_SPIRV);
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}
