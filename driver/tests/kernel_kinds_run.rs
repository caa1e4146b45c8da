//! Kinds of CUDA kernels beyond the first fixtures (`tests/fixtures/ptx/`, see its README), as
//! nvcc 13.5 (sm_80, and sm_75 or sm_90 where named; `-G`, `--use_fast_math`, `-rdc=true`)
//! and clang 22 with CUDA 13.5's headers write them: tensor cores through `nvcuda::wmma`,
//! `cuda_fp16.h`/`cuda_bf16.h` pairs, the device heap, CSR sparse matrix-vector products,
//! n-body with `rsqrtf`, merge path and a block merge sort, segmented reductions, fast-math
//! intrinsics, 64- and 128-bit integer arithmetic and bit intrinsics, `__syncthreads_count`,
//! and relocatable device code calling through a table of function pointers. Each runs through
//! `ptxr run` on the CPU, and on SPIR-V through OpenCL when a device is there, against a Rust
//! model of its source. `printf` and a failing `assert` have tests of their own below.

use serde_json::json;

mod support;
use support::fixture_kernels::{f32_bits, fixture, run_cases, Case, Expected, Random};
use support::{opencl_device_available, ptxr};

fn u32_bits(values: impl IntoIterator<Item = u32>) -> Vec<u64> {
    values.into_iter().map(u64::from).collect()
}

fn i32_bits(values: impl IntoIterator<Item = i32>) -> Vec<u64> {
    values.into_iter().map(|value| u64::from(value as u32)).collect()
}

fn i64_bits(values: impl IntoIterator<Item = i64>) -> Vec<u64> {
    values.into_iter().map(|value| value as u64).collect()
}

fn f16_bits(value: f32) -> u16 {
    half::f16::from_f32(value).to_bits()
}

fn f16_value(bits: u16) -> f32 {
    half::f16::from_bits(bits).to_f32()
}

/// `f32` rounded to bfloat16, to nearest even (every input here is finite).
fn bf16_bits(value: f32) -> u16 {
    half::bf16::from_f32(value).to_bits()
}

/// The product of two `f32`s rounded toward zero (`__fmul_rz`): exact in `f64`, then the
/// nearest `f32` stepped back toward zero when it is farther from zero.
fn multiply_toward_zero(a: f32, b: f32) -> f32 {
    let exact = f64::from(a) * f64::from(b);
    let nearest = exact as f32;
    if f64::from(nearest).abs() > exact.abs() {
        f32::from_bits(nearest.to_bits() - 1)
    } else {
        nearest
    }
}

/// `wmma_gemm` (f32 accumulators, A row-major, B column-major) and `wmma_gemm_f16` (f16
/// accumulators, A column-major, B row-major, `2 * c + 1` on the fragment, stored
/// column-major). Small integers: every sum is exact in either accumulator.
fn wmma(random: &mut Random) -> Vec<Case> {
    const FILES: &[&str] = &[
        "wmma_gemm.nvcc.sm80.ptx",
        "wmma_gemm.nvcc.sm90.ptx",
        "wmma_gemm.nvcc.sm80.debug.ptx",
        "wmma_gemm.clang.sm80.ptx",
    ];
    let (m, n, k) = (32usize, 48usize, 64usize);
    let a: Vec<f32> = (0..m * k).map(|_| random.integer(-3, 3) as f32).collect();
    // Column-major: element (row, column) of B at b[column * k + row].
    let b: Vec<f32> = (0..k * n).map(|_| random.integer(-3, 3) as f32).collect();
    let c: Vec<f32> = (0..m * n).map(|_| random.integer(-100, 100) as f32).collect();
    let mut product = c.clone();
    for row in 0..m {
        for column in 0..n {
            product[row * n + column] += (0..k).map(|step| a[row * k + step] * b[column * k + step]).sum::<f32>();
        }
    }
    let warps = m / 16 * (n / 16);
    let gemm = Case {
        files: FILES,
        spec: json!({
            "kernel": "wmma_gemm", "grid": [warps * 32 / 64], "block": [64],
            "buffers": {
                "a": { "type": "u16", "data": a.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>() },
                "b": { "type": "u16", "data": b.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>() },
                "c": { "type": "f32", "data": c },
            },
            "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "c" }, { "type": "s32", "value": m },
                     { "type": "s32", "value": n }, { "type": "s32", "value": k }],
        }),
        expected: vec![("c", Expected::Bits(f32_bits(&product)))],
    };
    let k = 32usize;
    // A column-major 16 x k: (row, step) at a[step * 16 + row]; B row-major k x 16.
    let a: Vec<f32> = (0..16 * k).map(|_| random.integer(-2, 2) as f32).collect();
    let b: Vec<f32> = (0..k * 16).map(|_| random.integer(-2, 2) as f32).collect();
    let mut stored = vec![0u64; 256];
    for row in 0..16 {
        for column in 0..16 {
            let sum: f32 = (0..k).map(|step| a[step * 16 + row] * b[step * 16 + column]).sum();
            stored[column * 16 + row] = u64::from(f16_bits(2.0 * sum + 1.0));
        }
    }
    let gemm_f16 = Case {
        files: FILES,
        spec: json!({
            "kernel": "wmma_gemm_f16", "grid": [1], "block": [32],
            "buffers": {
                "a": { "type": "u16", "data": a.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>() },
                "b": { "type": "u16", "data": b.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>() },
                "c": { "type": "u16", "len": 256 },
            },
            "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "c" }, { "type": "s32", "value": k }],
        }),
        expected: vec![("c", Expected::Bits(stored))],
    };
    vec![gemm, gemm_f16]
}

/// `half2_ops`: f16 pair fma, max, min and a bf16 pair fma, from quarters in [-8, 8] (exact in
/// f16; the bf16 fma rounds once), and `half_exp_convert`: `h2exp` within f16's precision,
/// truncation and rounding of an f16 to int, and f32 to bf16.
fn half_intrinsics(random: &mut Random) -> Vec<Case> {
    const FILES: &[&str] = &[
        "half_intrinsics.nvcc.sm80.ptx",
        "half_intrinsics.nvcc.sm90.ptx",
        "half_intrinsics.clang.sm80.ptx",
        "half_intrinsics.clang.sm80.O0.ptx",
    ];
    let n = 300usize;
    let quarter = |random: &mut Random| random.integer(-32, 32) as f32 / 4.0;
    let pairs = |random: &mut Random| -> Vec<f32> { (0..2 * n).map(|_| quarter(random)).collect() };
    let (a, b, c) = (pairs(random), pairs(random), pairs(random));
    let mut out = Vec::new();
    for i in 0..n {
        let lanes = [2 * i, 2 * i + 1];
        out.extend(lanes.map(|lane| f16_value(f16_bits(a[lane] * b[lane] + c[lane]))));
        out.extend(lanes.map(|lane| a[lane].max(b[lane])));
        out.extend(lanes.map(|lane| a[lane].min(b[lane])));
        out.extend(lanes.map(|lane| half::bf16::from_bits(bf16_bits(a[lane] * b[lane] + c[lane])).to_f32()));
    }
    let halves = |values: &[f32]| values.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>();
    let ops = Case {
        files: FILES,
        spec: json!({
            "kernel": "half2_ops", "grid": [n.div_ceil(128)], "block": [128],
            "buffers": {
                "a": { "type": "u16", "data": halves(&a) }, "b": { "type": "u16", "data": halves(&b) },
                "c": { "type": "u16", "data": halves(&c) }, "out": { "type": "f32", "len": 8 * n },
            },
            "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "c" }, { "buffer": "out" },
                     { "type": "s32", "value": n }],
        }),
        expected: vec![("out", Expected::Bits(f32_bits(&out)))],
    };
    // Multiples of 1/64 in [-4, 4]: v * 8 is exact in f16, v * 3 in f32.
    let input: Vec<f32> = (0..n).map(|_| random.integer(-256, 256) as f32 / 64.0).collect();
    let exps: Vec<f32> = input.iter().flat_map(|&v| [v.exp(), (-v).exp()]).collect();
    let ints = input.iter().map(|&v| {
        let h = v * 8.0;
        h.trunc() as i32 + (-h).round_ties_even() as i32
    });
    let bf16 = input.iter().map(|&v| u64::from(bf16_bits(v * 3.0)));
    let convert = Case {
        files: FILES,
        spec: json!({
            "kernel": "half_exp_convert", "grid": [n.div_ceil(128)], "block": [128],
            "buffers": {
                "in": { "type": "f32", "data": input }, "exps": { "type": "f32", "len": 2 * n },
                "ints": { "type": "s32", "len": n }, "bf16": { "type": "u16", "len": n },
            },
            "args": [{ "buffer": "in" }, { "buffer": "exps" }, { "buffer": "ints" }, { "buffer": "bf16" },
                     { "type": "s32", "value": n }],
        }),
        expected: vec![
            ("exps", Expected::F32Near(exps, 2e-3)),
            ("ints", Expected::Bits(i32_bits(ints))),
            ("bf16", Expected::Bits(bf16.collect())),
        ],
    };
    vec![ops, convert]
}

const DEVICE_RUNTIME: &[&str] = &[
    "device_runtime.nvcc.sm80.ptx",
    "device_runtime.nvcc.sm80.debug.ptx",
    "device_runtime.clang.sm80.ptx",
    "device_runtime.clang.sm80.O0.ptx",
];

/// `heap_scratch`: each thread's sum of `i * j` over its own `malloc`ed array; `checked_divide`
/// with no zero divisor.
fn device_heap_and_assert(random: &mut Random) -> Vec<Case> {
    let (threads, n) = (256usize, 20i32);
    let sums = (0..threads as i32).map(|i| {
        let length = n + i % 7;
        (0..length).fold(0i32, |sum, j| sum.wrapping_add(i.wrapping_mul(j)))
    });
    let heap = Case {
        files: DEVICE_RUNTIME,
        spec: json!({
            "kernel": "heap_scratch", "grid": [threads / 64], "block": [64],
            "buffers": { "out": { "type": "s32", "len": threads } },
            "args": [{ "buffer": "out" }, { "type": "s32", "value": n }],
        }),
        expected: vec![("out", Expected::Bits(i32_bits(sums)))],
    };
    let count = 200usize;
    let numerators: Vec<i32> = (0..count).map(|_| random.next_u32() as i32 / 2).collect();
    let divisors: Vec<i32> = (0..count)
        .map(|_| random.integer(-1000, 1000) as i32)
        .map(|value| if value == 0 { 7 } else { value })
        .collect();
    let quotients = numerators.iter().zip(&divisors).map(|(&numerator, &divisor)| numerator / divisor);
    let divide = Case {
        files: DEVICE_RUNTIME,
        spec: divide_spec(&numerators, &divisors),
        expected: vec![("out", Expected::Bits(i32_bits(quotients)))],
    };
    vec![heap, divide]
}

fn divide_spec(numerators: &[i32], divisors: &[i32]) -> serde_json::Value {
    let count = numerators.len();
    json!({
        "kernel": "checked_divide", "grid": [count.div_ceil(64)], "block": [64],
        "buffers": {
            "numerator": { "type": "s32", "data": numerators }, "divisor": { "type": "s32", "data": divisors },
            "out": { "type": "s32", "len": count },
        },
        "args": [{ "buffer": "numerator" }, { "buffer": "divisor" }, { "buffer": "out" },
                 { "type": "s32", "value": count }],
    })
}

/// `spmv_csr_scalar` and `spmv_csr_vector`: 100 rows of 0 to 70 entries (the vector kernel's
/// warps loop over rows longer than 32), small integers.
fn spmv(random: &mut Random) -> Vec<Case> {
    let (rows, columns) = (100usize, 64usize);
    let mut offsets = vec![0i32];
    for row in 0..rows {
        let length = if row % 10 == 3 { 0 } else { random.integer(1, 70) as i32 };
        offsets.push(offsets[row] + length);
    }
    let entries = offsets[rows] as usize;
    let column_of: Vec<i32> = (0..entries).map(|_| random.integer(0, columns as i64 - 1) as i32).collect();
    let values: Vec<f32> = (0..entries).map(|_| random.integer(-8, 8) as f32).collect();
    let x: Vec<f32> = (0..columns).map(|_| random.integer(-8, 8) as f32).collect();
    let y: Vec<f32> = (0..rows)
        .map(|row| {
            // From +0.0 as the kernels start (Rust's `sum` of nothing is -0.0).
            (offsets[row] as usize..offsets[row + 1] as usize)
                .fold(0.0, |sum, j| sum + values[j] * x[column_of[j] as usize])
        })
        .collect();
    [("spmv_csr_scalar", rows.div_ceil(64)), ("spmv_csr_vector", rows * 32 / 128)]
        .into_iter()
        .map(|(kernel, blocks)| Case {
            files: &[
                "spmv_csr.nvcc.sm80.ptx",
                "spmv_csr.nvcc.sm75.ptx",
                "spmv_csr.clang.sm80.ptx",
                "spmv_csr.clang.sm80.O0.ptx",
            ],
            spec: json!({
                "kernel": kernel, "grid": [blocks], "block": [if kernel == "spmv_csr_scalar" { 64 } else { 128 }],
                "buffers": {
                    "offsets": { "type": "s32", "data": offsets }, "columns": { "type": "s32", "data": column_of },
                    "values": { "type": "f32", "data": values }, "x": { "type": "f32", "data": x },
                    "y": { "type": "f32", "len": rows },
                },
                "args": [{ "buffer": "offsets" }, { "buffer": "columns" }, { "buffer": "values" }, { "buffer": "x" },
                         { "buffer": "y" }, { "type": "s32", "value": rows }],
            }),
            expected: vec![("y", Expected::Bits(f32_bits(&y)))],
        })
        .collect()
}

/// `nbody_step`: 200 bodies (the last tile partial) at positive positions with speeds of 5 to
/// 10, so that no result is near zero; `rsqrtf` is an approximation, so within 1e-4.
fn nbody(random: &mut Random) -> Case {
    let (n, dt, softening) = (200usize, 0.001f32, 0.5f32);
    let bodies: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            let mut coordinate = || random.integer(4, 80) as f32 / 4.0;
            [coordinate(), coordinate(), coordinate(), random.integer(1, 4) as f32]
        })
        .collect();
    let velocities: Vec<[f32; 4]> = (0..n)
        .map(|_| {
            let mut speed = || random.integer(20, 40) as f32 / 4.0;
            [speed(), speed(), speed(), 0.0]
        })
        .collect();
    let (mut new_velocities, mut moved, mut potential) = (Vec::new(), Vec::new(), Vec::new());
    for (me, velocity) in bodies.iter().zip(&velocities) {
        let (mut acceleration, mut phi) = ([0f64; 3], 0f64);
        for other in &bodies {
            let d: Vec<f64> = (0..3).map(|axis| f64::from(other[axis]) - f64::from(me[axis])).collect();
            let inverse = 1.0 / (d.iter().map(|x| x * x).sum::<f64>() + f64::from(softening * softening)).sqrt();
            for axis in 0..3 {
                acceleration[axis] += f64::from(other[3]) * d[axis] * inverse.powi(3);
            }
            phi += f64::from(other[3]) * inverse;
        }
        let v: Vec<f64> = (0..3).map(|axis| f64::from(velocity[axis]) + acceleration[axis] * f64::from(dt)).collect();
        new_velocities.extend([v[0] as f32, v[1] as f32, v[2] as f32, velocity[3]]);
        moved.extend((0..3).map(|axis| (f64::from(me[axis]) + v[axis] * f64::from(dt)) as f32));
        moved.push(me[3]);
        potential.push(phi as f32);
    }
    Case {
        files: &["nbody.nvcc.sm80.ptx", "nbody.clang.sm80.ptx", "nbody.clang.sm80.O0.ptx"],
        spec: json!({
            "kernel": "nbody_step", "grid": [n.div_ceil(64)], "block": [64],
            "buffers": {
                "bodies": { "type": "f32", "data": bodies.concat() },
                "velocities": { "type": "f32", "data": velocities.concat() },
                "moved": { "type": "f32", "len": 4 * n }, "potential": { "type": "f32", "len": n },
            },
            "args": [{ "buffer": "bodies" }, { "buffer": "velocities" }, { "buffer": "moved" }, { "buffer": "potential" },
                     { "type": "s32", "value": n }, { "type": "f32", "value": dt },
                     { "type": "f32", "value": softening }],
        }),
        expected: vec![
            ("velocities", Expected::F32Near(new_velocities, 1e-4)),
            ("moved", Expected::F32Near(moved, 1e-4)),
            ("potential", Expected::F32Near(potential, 1e-4)),
        ],
    }
}

const MERGE_SORT: &[&str] = &[
    "merge_sort.nvcc.sm80.ptx",
    "merge_sort.nvcc.sm75.ptx",
    "merge_sort.nvcc.sm80.debug.ptx",
    "merge_sort.clang.sm80.ptx",
    "merge_sort.clang.sm80.O0.ptx",
];

/// `merge_path`: two sorted arrays of 1000 and 777 with repeats, merged four elements a thread;
/// `block_merge_sort`: four blocks of 256 keys sorted.
fn merge_sort(random: &mut Random) -> Vec<Case> {
    let mut sorted = |length: usize| {
        let mut values: Vec<i32> = (0..length).map(|_| random.integer(-500, 500) as i32).collect();
        values.sort_unstable();
        values
    };
    let (a, b) = (sorted(1000), sorted(777));
    let mut merged: Vec<i32> = a.iter().chain(&b).copied().collect();
    merged.sort_unstable();
    let merge = Case {
        files: MERGE_SORT,
        spec: json!({
            "kernel": "merge_path", "grid": [(a.len() + b.len()).div_ceil(4 * 128)], "block": [128],
            "buffers": {
                "a": { "type": "s32", "data": a }, "b": { "type": "s32", "data": b },
                "out": { "type": "s32", "len": merged.len() },
            },
            "args": [{ "buffer": "a" }, { "type": "s32", "value": a.len() }, { "buffer": "b" },
                     { "type": "s32", "value": b.len() }, { "buffer": "out" }],
        }),
        expected: vec![("out", Expected::Bits(i32_bits(merged)))],
    };
    let keys: Vec<i32> = (0..4 * 256)
        .map(|index| if index % 5 == 0 { random.integer(-3, 3) as i32 } else { random.next_u32() as i32 })
        .collect();
    let mut sorted_keys = keys.clone();
    for block in sorted_keys.chunks_mut(256) {
        block.sort_unstable();
    }
    let sort = Case {
        files: MERGE_SORT,
        spec: json!({
            "kernel": "block_merge_sort", "grid": [4], "block": [256],
            "buffers": { "keys": { "type": "s32", "data": keys } },
            "args": [{ "buffer": "keys" }],
        }),
        expected: vec![("keys", Expected::Bits(i32_bits(sorted_keys)))],
    };
    vec![merge, sort]
}

/// `segment_sums` (64-bit, a block per segment) and `segment_maxima` (a warp per segment) over
/// 40 segments of 0 to 400 values.
fn segmented_reduce(random: &mut Random) -> Vec<Case> {
    const FILES: &[&str] = &[
        "segmented_reduce.nvcc.sm80.ptx",
        "segmented_reduce.nvcc.sm80.debug.ptx",
        "segmented_reduce.clang.sm80.ptx",
        "segmented_reduce.clang.sm80.O0.ptx",
    ];
    let segments = 40usize;
    let mut offsets = vec![0i32];
    for segment in 0..segments {
        let length = if segment % 7 == 2 { 0 } else { random.integer(1, 400) as i32 };
        offsets.push(offsets[segment] + length);
    }
    let values: Vec<i32> = (0..offsets[segments]).map(|_| random.next_u32() as i32).collect();
    let segment = |index: usize| &values[offsets[index] as usize..offsets[index + 1] as usize];
    let sums = (0..segments).map(|index| segment(index).iter().map(|&value| i64::from(value)).sum::<i64>());
    let maxima = (0..segments).map(|index| segment(index).iter().copied().max().unwrap_or(i32::MIN));
    let buffers = json!({
        "values": { "type": "s32", "data": values }, "offsets": { "type": "s32", "data": offsets },
        "sums": { "type": "s64", "len": segments }, "maxima": { "type": "s32", "len": segments },
    });
    vec![
        Case {
            files: FILES,
            spec: json!({
                "kernel": "segment_sums", "grid": [segments], "block": [128], "buffers": buffers,
                "args": [{ "buffer": "values" }, { "buffer": "offsets" }, { "buffer": "sums" }],
            }),
            expected: vec![("sums", Expected::Bits(i64_bits(sums)))],
        },
        Case {
            files: FILES,
            spec: json!({
                "kernel": "segment_maxima", "grid": [segments * 32 / 64], "block": [64], "buffers": buffers,
                "args": [{ "buffer": "values" }, { "buffer": "offsets" }, { "buffer": "maxima" },
                         { "type": "s32", "value": segments }],
            }),
            expected: vec![("maxima", Expected::Bits(i32_bits(maxima)))],
        },
    ]
}

/// `fast_math` and `standard_math`, from nvcc (also `--use_fast_math`) and clang: the
/// approximations within 1e-4 of the real functions (arguments kept away from their zeros),
/// `__saturatef` and `__fmul_rz` exact.
fn fast_math(random: &mut Random) -> Vec<Case> {
    const FILES: &[&str] = &[
        "fast_math.nvcc.sm80.ptx",
        "fast_math.nvcc.sm80.fastmath.ptx",
        "fast_math.clang.sm80.ptx",
        "fast_math.clang.sm80.O0.ptx",
    ];
    let n = 256usize;
    let x: Vec<f32> = (0..n).map(|_| random.integer(100, 1500) as f32 / 1000.0 + 1.0 / 4096.0).collect();
    let y: Vec<f32> = (0..n).map(|_| random.integer(1500, 4000) as f32 / 1000.0 + 1.0 / 8192.0).collect();
    let mut approximate = Vec::new();
    let mut exact = Vec::new();
    let mut standard = Vec::new();
    for (&a, &b) in x.iter().zip(&y) {
        let (a64, b64) = (f64::from(a), f64::from(b));
        approximate
            .extend([a64.exp(), a64 / b64, a64.sin(), a64.cos(), b64.ln(), b64.powf(a64)].map(|value| value as f32));
        exact.extend([(a - 1.0).clamp(0.0, 1.0), (b * a).clamp(0.0, 1.0), multiply_toward_zero(a, b)]);
        standard.extend([a64.exp(), a64 / b64, a64.sin(), b64.ln()].map(|value| value as f32));
    }
    let args = |outputs: &[&str]| {
        let mut args = vec![json!({ "buffer": "x" }), json!({ "buffer": "y" })];
        args.extend(outputs.iter().map(|name| json!({ "buffer": name })));
        args.push(json!({ "type": "s32", "value": n }));
        args
    };
    vec![
        Case {
            files: FILES,
            spec: json!({
                "kernel": "fast_math", "grid": [n / 128], "block": [128],
                "buffers": {
                    "x": { "type": "f32", "data": x }, "y": { "type": "f32", "data": y },
                    "approximate": { "type": "f32", "len": 6 * n }, "exact": { "type": "f32", "len": 3 * n },
                },
                "args": args(&["approximate", "exact"]),
            }),
            expected: vec![
                ("approximate", Expected::F32Near(approximate, 1e-4)),
                ("exact", Expected::Bits(f32_bits(&exact))),
            ],
        },
        Case {
            files: FILES,
            spec: json!({
                "kernel": "standard_math", "grid": [n / 128], "block": [128],
                "buffers": {
                    "x": { "type": "f32", "data": x }, "y": { "type": "f32", "data": y },
                    "out": { "type": "f32", "len": 4 * n },
                },
                "args": args(&["out"]),
            }),
            expected: vec![("out", Expected::F32Near(standard, 1e-4))],
        },
    ]
}

/// `wide_arith` (u128 and i128 products and sums, `__umul64hi`, `__mul64hi`, `__brevll`,
/// `__ffsll`, `__clzll`, `__popcll`) and `bit_intrinsics` (`__mul24`, `__umul24`,
/// `__byte_perm`, funnel shifts wrapping and clamped, `__brev`, `__ffs`, `__mulhi`, `__sad`).
fn int_arith(random: &mut Random) -> Vec<Case> {
    const FILES: &[&str] = &[
        "int_arith.nvcc.sm80.ptx",
        "int_arith.nvcc.sm75.ptx",
        "int_arith.clang.sm80.ptx",
        "int_arith.clang.sm80.O0.ptx",
    ];
    let n = 100usize;
    let mut a: Vec<u64> = (0..n).map(|_| random.next_u64()).collect();
    let mut b: Vec<u64> = (0..n).map(|_| random.next_u64() >> random.integer(0, 63)).collect();
    (a[3], b[4], a[5], b[5]) = (0, 0, u64::MAX, u64::MAX);
    let mut wide = Vec::new();
    for (&x, &y) in a.iter().zip(&b) {
        let product = u128::from(x) * u128::from(y);
        let sum = product.wrapping_add(u128::from(y) << 64 | u128::from(x));
        let signed = i128::from(x as i64) * i128::from(y as i64);
        let ffs = if y == 0 { 0 } else { u64::from(y.trailing_zeros() + 1) };
        wide.extend([
            product as u64,
            (product >> 64) as u64,
            sum as u64,
            (sum >> 64) as u64,
            (signed >> 64) as u64,
            (product >> 64) as u64 ^ (signed >> 64) as u64,
            x.reverse_bits(),
            ffs | u64::from(x.leading_zeros()) << 8 | u64::from((x ^ y).count_ones()) << 16,
        ]);
    }
    let x: Vec<u32> = (0..n).map(|_| random.next_u32()).collect();
    let y: Vec<u32> = (0..n).map(|_| random.next_u32()).collect();
    let mut bits = Vec::new();
    for (i, (&x, &y)) in x.iter().zip(&y).enumerate() {
        let i = i as u32;
        let sign_extend_24 = |value: u32| ((value << 8) as i32 >> 8) as i64;
        let selector = 0x5140 + (i & 0x2222);
        let bytes = u64::from(y) << 32 | u64::from(x);
        let permuted = (0..4).fold(0u32, |result, lane| {
            let byte = (bytes >> (8 * ((selector >> (4 * lane)) & 7))) as u8;
            result | u32::from(byte) << (8 * lane)
        });
        let funnel = u64::from(y) << 32 | u64::from(x);
        let left = |shift: u32| (funnel << shift >> 32) as u32;
        let right = |shift: u32| (funnel >> shift) as u32;
        let ffs = if y == 0 { 0 } else { y.trailing_zeros() + 1 };
        let signed_high = ((i64::from(x as i32) * i64::from(y as i32)) >> 32) as u32;
        let unsigned_high = ((u64::from(x) * u64::from(y)) >> 32) as u32;
        let sad = (i64::from(x as i32) - i64::from(y as i32)).unsigned_abs() as u32;
        bits.extend([
            (sign_extend_24(x) * sign_extend_24(y)) as u32,
            ((u64::from(x & 0xff_ffff) * u64::from(y & 0xff_ffff)) as u32),
            permuted,
            left(i & 31),
            right(i & 31) ^ left(i.min(32)),
            x.reverse_bits().wrapping_add(ffs),
            signed_high ^ unsigned_high,
            sad.wrapping_add(7).wrapping_add(x.abs_diff(y).wrapping_add(3)),
        ]);
    }
    vec![
        Case {
            files: FILES,
            spec: json!({
                "kernel": "wide_arith", "grid": [n.div_ceil(64)], "block": [64],
                "buffers": {
                    "a": { "type": "u64", "data": a }, "b": { "type": "u64", "data": b },
                    "out": { "type": "u64", "len": 8 * n },
                },
                "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "out" }, { "type": "s32", "value": n }],
            }),
            expected: vec![("out", Expected::Bits(wide))],
        },
        Case {
            files: FILES,
            spec: json!({
                "kernel": "bit_intrinsics", "grid": [n.div_ceil(64)], "block": [64],
                "buffers": {
                    "a": { "type": "u32", "data": x }, "b": { "type": "u32", "data": y },
                    "out": { "type": "u32", "len": 8 * n },
                },
                "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "out" }, { "type": "s32", "value": n }],
            }),
            expected: vec![("out", Expected::Bits(u32_bits(bits)))],
        },
    ]
}

/// `block_vote`: per block of 256 (the last partial, padded with 2), the count of negatives,
/// whether all are even, whether any is zero.
fn block_vote(random: &mut Random) -> Case {
    let (n, block) = (1000usize, 256usize);
    let mut input: Vec<i32> = (0..n).map(|_| random.integer(-1000, 1000) as i32 | 1).collect();
    // Block 1 all even, block 2 with a zero, block 3 (partial) even and without negatives.
    for value in &mut input[256..512] {
        *value &= !1;
    }
    input[600] = 0;
    for value in &mut input[768..] {
        *value = (*value & !1).abs();
    }
    let blocks: Vec<Vec<i32>> = (0..n.div_ceil(block))
        .map(|index| (0..block).map(|t| *input.get(index * block + t).unwrap_or(&2)).collect())
        .collect();
    let counts = blocks.iter().map(|values| values.iter().filter(|&&value| value < 0).count() as u32);
    let all_even = blocks.iter().map(|values| u32::from(values.iter().all(|&value| value % 2 == 0)));
    let any_zero = blocks.iter().map(|values| u32::from(values.contains(&0)));
    Case {
        files: &[
            "block_vote.nvcc.sm80.ptx",
            "block_vote.nvcc.sm75.ptx",
            "block_vote.clang.sm80.ptx",
            "block_vote.clang.sm80.O0.ptx",
        ],
        spec: json!({
            "kernel": "block_vote", "grid": [blocks.len()], "block": [block],
            "buffers": {
                "in": { "type": "s32", "data": input }, "counts": { "type": "u32", "len": blocks.len() },
                "all_even": { "type": "u32", "len": blocks.len() }, "any_zero": { "type": "u32", "len": blocks.len() },
            },
            "args": [{ "buffer": "in" }, { "buffer": "counts" }, { "buffer": "all_even" }, { "buffer": "any_zero" },
                     { "type": "s32", "value": n }],
        }),
        expected: vec![
            ("counts", Expected::Bits(u32_bits(counts))),
            ("all_even", Expected::Bits(u32_bits(all_even))),
            ("any_zero", Expected::Bits(u32_bits(any_zero))),
        ],
    }
}

/// `rdc_calls` (`-rdc=true`, also with `-G`): template (`.weak`) clamps, a recursive
/// factorial, and calls through a `__device__` table of function pointers.
fn rdc_calls(random: &mut Random) -> Case {
    let n = 150usize;
    let input: Vec<i32> = (0..n).map(|_| random.integer(-1000, 1000) as i32).collect();
    let out = input.iter().flat_map(|&v| {
        let factorial = (1..=u64::from((v & 15) as u32)).product::<u64>() as i64;
        [
            i64::from(v.clamp(-50, 50)),
            (i64::from(v) * 1_000_000_007).clamp(-4_000_000_000_000, 4_000_000_000_000),
            factorial,
            i64::from(if v & 1 == 0 { 3 * v } else { -v }),
        ]
    });
    Case {
        files: &["rdc_calls.nvcc.sm80.rdc.ptx", "rdc_calls.nvcc.sm80.rdc.debug.ptx"],
        spec: json!({
            "kernel": "rdc_calls", "grid": [n.div_ceil(64)], "block": [64],
            "buffers": { "in": { "type": "s32", "data": input }, "out": { "type": "s64", "len": 4 * n } },
            "args": [{ "buffer": "in" }, { "buffer": "out" }, { "type": "s32", "value": n }],
        }),
        expected: vec![("out", Expected::Bits(i64_bits(out)))],
    }
}

/// Not run through OpenCL: the SPIR-V of each `wmma` kernel (its fragments built from
/// sub-group shuffles) is about 700 KB, and Intel's CPU runtime spends minutes in register
/// coalescing on it. `tests/tests/real_compilers.rs` still compiles and validates it.
const NOT_THROUGH_OPENCL: &[&str] = &[
    "wmma_gemm.nvcc.sm80.ptx",
    "wmma_gemm.nvcc.sm90.ptx",
    "wmma_gemm.nvcc.sm80.debug.ptx",
    "wmma_gemm.clang.sm80.ptx",
];

fn cases() -> Vec<Case> {
    let mut random = Random(0x4b1d_0001);
    let mut cases = wmma(&mut random);
    cases.extend(half_intrinsics(&mut random));
    cases.extend(device_heap_and_assert(&mut random));
    cases.extend(spmv(&mut random));
    cases.push(nbody(&mut random));
    cases.extend(merge_sort(&mut random));
    cases.extend(segmented_reduce(&mut random));
    cases.extend(fast_math(&mut random));
    cases.extend(int_arith(&mut random));
    cases.push(block_vote(&mut random));
    cases.push(rdc_calls(&mut random));
    cases
}

#[test]
fn kernel_kinds_match_their_models_on_the_cpu() {
    let (runs, problems) = run_cases(cases(), "cpu", &[]);
    assert!(runs >= 50, "expected every fixture of these kinds, ran {runs}");
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn kernel_kinds_match_their_models_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    let (runs, problems) = run_cases(cases(), "spirv", NOT_THROUGH_OPENCL);
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

/// Runs `print_rows` (`printf` of an int, a float with a precision and a string) or
/// `checked_divide` with `spec` on `target`: the exit code, stdout and stderr.
fn run_raw(file: &str, spec: &serde_json::Value, target: &str) -> (Option<i32>, String, String) {
    let directory = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let path = fixture(file);
    let output = ptxr(&["run", &path.to_string_lossy(), "--launch", "spec.json", "--target", target], directory.path());
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    (output.status.code(), text(&output.stdout), text(&output.stderr))
}

fn targets() -> Vec<&'static str> {
    if opencl_device_available() {
        vec!["cpu", "spirv"]
    } else {
        vec!["cpu"]
    }
}

#[test]
fn device_printf_prints_each_thread_line_before_the_json() {
    let rows = 6usize;
    let input: Vec<f32> = (0..rows).map(|row| row as f32 * 1.25 - 2.0).collect();
    let spec = json!({
        "kernel": "print_rows", "grid": [1], "block": [32],
        "buffers": { "in": { "type": "f32", "data": input }, "printed": { "type": "s32", "len": rows } },
        "args": [{ "buffer": "in" }, { "buffer": "printed" }, { "type": "s32", "value": rows }],
    });
    let mut expected: Vec<String> = (0..rows)
        .map(|row| format!("row {row} of block 0: {:.2} {}", input[row], if row % 2 == 1 { "odd" } else { "even" }))
        .collect();
    expected.sort();
    // On SPIR-V the string chosen at run time is one of two `printf` variants, each with its
    // string written into the format (`intrinsics/src/printf_strings.rs`).
    for target in targets() {
        for file in ["device_printf.nvcc.sm80.ptx", "device_printf.nvcc.sm80.debug.ptx", "device_printf.clang.sm80.ptx"]
        {
            let (code, stdout, stderr) = run_raw(file, &spec, target);
            assert_eq!(code, Some(0), "{file} on {target}: {stderr}");
            let json_start = stdout.find("{\n").or_else(|| stdout.find('{')).unwrap_or(stdout.len());
            let mut lines: Vec<String> = stdout[..json_start].lines().map(str::to_owned).collect();
            lines.sort();
            assert_eq!(lines, expected, "{file} on {target}: {stdout}");
            let result: serde_json::Value = serde_json::from_str(&stdout[json_start..])
                .unwrap_or_else(|error| panic!("{file} on {target}: {error}: {stdout}"));
            // CUDA's printf returns the number of arguments it read: four.
            let printed: Vec<i64> =
                (0..rows).map(|row| result["buffers"]["printed"]["data"][row].as_i64().unwrap_or(-1)).collect();
            assert!(printed.iter().all(|&count| count == 4), "{file} on {target}: printf returned {printed:?}");
        }
    }
}

#[test]
fn a_failed_device_assert_stops_the_run_with_its_message() {
    let numerators: Vec<i32> = (0..100).map(|value| value * 3 - 7).collect();
    let mut divisors: Vec<i32> = (0..100).map(|value| value % 9 + 1).collect();
    divisors[70] = 0;
    let spec = divide_spec(&numerators, &divisors);
    for target in targets() {
        for file in DEVICE_RUNTIME {
            let (code, stdout, stderr) = run_raw(file, &spec, target);
            assert_eq!(code, Some(1), "{file} on {target}: {stdout}\n{stderr}");
            assert!(!stdout.contains("\"buffers\""), "{file} on {target}: no results after a failed assert: {stdout}");
            let message = if target == "cpu" {
                "Assertion `divisor[i] != 0` failed"
            } else {
                "failed an assertion (`__assertfail`"
            };
            assert!(stderr.contains(message), "{file} on {target}: {stderr}");
        }
    }
}
