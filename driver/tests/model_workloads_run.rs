//! Triton 3.9 and numba-cuda 0.30 kernels of typical model workloads
//! (`tests/fixtures/ptx/src/triton_workloads.py`, `src/numba_workloads.py`) run through
//! `ptxr run` on the CPU and on SPIR-V through OpenCL, against Rust models of their sources:
//! layer norm, softmax with masked rows and columns, matrix products pipelined through
//! `cp.async` (f16 and int8 `mma`), flash attention, Philox dropout, atomic and scan reductions,
//! f16/bf16/int8 element types; numba's shared-memory matrix product, atomics, local arrays,
//! `syncthreads_count` and warp shuffles.
//!
//! Integer and exactly representable inputs make most results exact whatever order the compiler
//! chose; where a kernel uses approximate instructions (`ex2.approx`, `rsqrt.approx`) or rounds
//! to f16 on the way, the tolerance is derived beside the case. Each launch is its own `ptxr`
//! process, as in `real_compilers_run.rs`.

use std::path::PathBuf;

use serde_json::{json, Value};

mod support;
use support::fixture_kernels::{buffer, f32_bits, hex, s32, with_scratch, Random};
use support::{opencl_device_available, ptxr, repository_file};

fn fixture(name: &str) -> PathBuf {
    repository_file("tests/fixtures/ptx").join(name)
}

/// What a buffer must hold after the grid.
enum Expected {
    /// Exactly these element bit patterns.
    Bits(Vec<u64>),
    /// `f32` values, each within `tolerance * max(|value|, 1)`.
    F32Close(Vec<f64>, f64),
}

/// One kernel launch: its fixture, launch spec and the model's buffers.
struct Case {
    file: &'static str,
    spec: Value,
    expected: Vec<(&'static str, Expected)>,
}

/// Runs `file` with `spec` on `target` and returns the result JSON.
fn run(file: &str, spec: &Value, target: &str) -> Result<Value, String> {
    let directory = tempfile::tempdir().map_err(|error| error.to_string())?;
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).map_err(|error| error.to_string())?;
    let path = fixture(file);
    let path = path.to_string_lossy();
    let output = ptxr(&["run", path.as_ref(), "--launch", "spec.json", "--target", target], directory.path());
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("{error}: {}", String::from_utf8_lossy(&output.stdout)))
}

fn bits_of(result: &Value, buffer: &str) -> Vec<u64> {
    result["buffers"][buffer]["bits"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|bits| u64::from_str_radix(bits.as_str().unwrap_or_default().trim_start_matches("0x"), 16).unwrap_or(0))
        .collect()
}

/// The problems of one run against the model (empty when it matches).
fn compare(result: &Value, expected: &[(&str, Expected)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (buffer, want) in expected {
        let actual = bits_of(result, buffer);
        let length = match want {
            Expected::Bits(bits) => bits.len(),
            Expected::F32Close(values, _) => values.len(),
        };
        if actual.len() != length {
            problems.push(format!("`{buffer}` has {} elements, expected {length}", actual.len()));
            continue;
        }
        let wrong = match want {
            Expected::Bits(bits) => (0..length)
                .find(|&index| actual[index] != bits[index])
                .map(|index| format!("`{buffer}`[{index}] is {:#x}, the model says {:#x}", actual[index], bits[index])),
            Expected::F32Close(values, tolerance) => (0..length)
                .map(|index| (index, f64::from(f32::from_bits(actual[index] as u32)), values[index]))
                // A NaN result fails too.
                .find(|&(_, got, want)| {
                    (got - want).abs().is_nan() || (got - want).abs() > tolerance * want.abs().max(1.0)
                })
                .map(|(index, got, want)| format!("`{buffer}`[{index}] is {got}, the model says {want}")),
        };
        problems.extend(wrong);
    }
    problems
}

fn i32_bits(values: &[i32]) -> Vec<u64> {
    values.iter().map(|&value| u64::from(value as u32)).collect()
}

/// The binary16 bits of an `f32` that binary16 holds exactly (the inputs are chosen so).
fn f16_bits(value: f32) -> u64 {
    let half = half::f16::from_f32(value);
    assert_eq!(half.to_f32(), value, "{value} is not exact in binary16");
    u64::from(half.to_bits())
}

/// The bfloat16 bits of an `f32` that bfloat16 holds exactly.
fn bf16_bits(value: f32) -> u64 {
    assert_eq!(value.to_bits() & 0xffff, 0, "{value} is not exact in bfloat16");
    u64::from(value.to_bits() >> 16)
}

fn f32_value(value: f32) -> Value {
    json!({ "type": "f32", "value": value })
}

/// One row-major matrix product of integer-valued matrices (exact in f32 and i32 here).
fn matrix_product(a: &[i64], b: &[i64], m: usize, n: usize, k: usize) -> Vec<i64> {
    let mut c = vec![0i64; m * n];
    for row in 0..m {
        for column in 0..n {
            c[row * n + column] = (0..k).map(|inner| a[row * k + inner] * b[inner * n + column]).sum();
        }
    }
    c
}

fn layer_norm(random: &mut Random) -> Case {
    let (rows, columns, epsilon) = (5usize, 200usize, 1e-5f32);
    // Multiples of 1/8 below 16: every partial sum is exact, so only the division by n_cols,
    // the squares, 1/sqrt and the final multiply-adds round.
    let x: Vec<f32> = random.integers(rows * columns, -128, 128).into_iter().map(|value| value as f32 / 8.0).collect();
    let w: Vec<f32> = random.integers(columns, -8, 8).into_iter().map(|value| value as f32 / 4.0).collect();
    let b: Vec<f32> = random.integers(columns, -8, 8).into_iter().map(|value| value as f32 / 2.0).collect();
    let mut y = Vec::new();
    let (mut means, mut rstds) = (Vec::new(), Vec::new());
    for row in x.chunks(columns) {
        let mean = row.iter().map(|&value| f64::from(value)).sum::<f64>() / columns as f64;
        let variance = row.iter().map(|&value| (f64::from(value) - mean).powi(2)).sum::<f64>() / columns as f64;
        let rstd = 1.0 / (variance + f64::from(epsilon)).sqrt();
        y.extend(
            row.iter()
                .enumerate()
                .map(|(column, &value)| (f64::from(value) - mean) * rstd * f64::from(w[column]) + f64::from(b[column])),
        );
        means.push(mean);
        rstds.push(rstd);
    }
    // A few dozen f32 roundings (2^-24 each) of values of the size of the result, and
    // sqrt/division at most 2 ulp: 2e-6 of the largest term; y's terms reach |centred*rstd*w| of
    // about 4, whence 1e-5 against max(|y|, 1).
    Case {
        file: "triton_layer_norm.sm80.ptx",
        spec: json!({
            "grid": [rows], "block": [128], "shared_bytes": 1024,
            "buffers": {
                "x": { "type": "f32", "data": x }, "y": { "type": "f32", "len": rows * columns },
                "w": { "type": "f32", "data": w }, "b": { "type": "f32", "data": b },
                "mean": { "type": "f32", "len": rows }, "rstd": { "type": "f32", "len": rows },
            },
            "args": with_scratch(vec![buffer("x"), buffer("y"), buffer("w"), buffer("b"), buffer("mean"),
                                      buffer("rstd"), s32(columns as i64), f32_value(epsilon)]),
        }),
        expected: vec![
            ("y", Expected::F32Close(y, 1e-5)),
            ("mean", Expected::F32Close(means, 1e-6)),
            ("rstd", Expected::F32Close(rstds, 1e-5)),
        ],
    }
}

fn softmax_tail(random: &mut Random) -> Case {
    // Four rows of 64 columns per program; 10 rows of 50 leave a partial last program and a
    // masked tail in every row.
    let (rows, columns) = (10usize, 50usize);
    let x: Vec<f32> = random.integers(rows * columns, -400, 400).into_iter().map(|value| value as f32 / 64.0).collect();
    let softmax: Vec<f64> = x
        .chunks(columns)
        .flat_map(|row| {
            let max = row.iter().fold(f64::NEG_INFINITY, |max, &value| max.max(f64::from(value)));
            let exps: Vec<f64> = row.iter().map(|&value| (f64::from(value) - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            exps.into_iter().map(move |value| value / total)
        })
        .collect();
    Case {
        file: "triton_softmax_tail.sm80.ptx",
        spec: json!({
            "grid": [rows.div_ceil(4)], "block": [128], "shared_bytes": 32,
            "buffers": { "out": { "type": "f32", "len": rows * columns }, "in": { "type": "f32", "data": x } },
            "args": with_scratch(vec![buffer("out"), buffer("in"), s32(rows as i64), s32(columns as i64)]),
        }),
        // ex2.approx.f32 is within 2^-22 relative; the sum of 50 and the division add a few
        // roundings of 2^-24. The values are at most 1, so this is a relative 1e-6 of the sum.
        expected: vec![("out", Expected::F32Close(softmax, 1e-6))],
    }
}

/// `tl.dot` on f16 with f32 accumulation, pipelined over `num_stages` shared buffers filled by
/// `cp.async`: M is masked (not a multiple of BM), N and K are multiples of 16 as the fixture
/// was specialised for.
fn pipelined_matmul(random: &mut Random, file: &'static str, shape: (usize, usize, usize), grid: [usize; 2]) -> Case {
    let (m, n, k) = shape;
    let a = random.integers(m * k, -3, 3);
    let b = random.integers(k * n, -3, 3);
    let c: Vec<f32> = matrix_product(&a, &b, m, n, k).into_iter().map(|value| value as f32).collect();
    let halves = |values: &[i64]| hex(&values.iter().map(|&value| f16_bits(value as f32)).collect::<Vec<_>>(), 4);
    // Triton's `metadata.shared`: three or four stages of A's and B's tiles.
    let shared_bytes = if file.contains("sm90") {
        24576
    } else if file.contains("stages3") {
        12288
    } else {
        9216
    };
    Case {
        file,
        spec: json!({
            "grid": grid, "block": [128], "shared_bytes": shared_bytes,
            "buffers": {
                "a": { "type": "f16", "bits": halves(&a) }, "b": { "type": "f16", "bits": halves(&b) },
                "c": { "type": "f32", "len": m * n },
            },
            "args": with_scratch(vec![buffer("a"), buffer("b"), buffer("c"), s32(m as i64), s32(n as i64),
                                      s32(k as i64)]),
        }),
        expected: vec![("c", Expected::Bits(f32_bits(&c)))],
    }
}

/// The `.e4m3` bits of a small integer, which `.e4m3` holds exactly (1 sign, 4 exponent bits of
/// bias 7, 3 mantissa bits), from the `f32`'s fields.
fn e4m3_bits(value: i64) -> u64 {
    if value == 0 {
        return 0;
    }
    let bits = (value as f32).to_bits();
    let sign = u64::from(bits >> 31) << 7;
    let exponent = u64::from((bits >> 23) & 0xff) - 127 + 7;
    assert_eq!(bits & 0xf_ffff, 0, "{value} is not exact in e4m3");
    sign | exponent << 3 | u64::from((bits >> 20) & 7)
}

/// Triton's sm_90 `tl.dot` (`wgmma.mma_async` on shared-memory descriptors, Triton's own
/// xor-swizzled stores filling shared memory): C (m x n) = A (m x k) B (k x n), one program.
fn warp_group_product(
    random: &mut Random,
    file: &'static str,
    element: &str,
    (m, n, k): (usize, usize, usize),
    shared_bytes: usize,
) -> Case {
    let a = random.integers(m * k, -3, 3);
    let b = random.integers(k * n, -3, 3);
    let c: Vec<f32> = matrix_product(&a, &b, m, n, k).into_iter().map(|value| value as f32).collect();
    let operand = |values: &[i64]| match element {
        "bf16" => {
            json!({ "type": "bf16", "bits": hex(&values.iter().map(|&v| bf16_bits(v as f32)).collect::<Vec<_>>(), 4) })
        }
        "f32" => json!({ "type": "f32", "data": values.iter().map(|&v| v as f32).collect::<Vec<_>>() }),
        _ => json!({ "type": "u8", "data": values.iter().map(|&v| e4m3_bits(v)).collect::<Vec<_>>() }),
    };
    Case {
        file,
        spec: json!({
            "grid": [1], "block": [128], "shared_bytes": shared_bytes,
            "buffers": { "a": operand(&a), "b": operand(&b), "c": { "type": "f32", "len": m * n } },
            "args": with_scratch(vec![buffer("a"), buffer("b"), buffer("c"), s32(k as i64)]),
        }),
        expected: vec![("c", Expected::Bits(f32_bits(&c)))],
    }
}

fn int8_matmul(random: &mut Random) -> Case {
    // 32 x 96 by 96 x 32 bytes: |sum| <= 96 * 128 * 128, far from the s32 saturation.
    let (m, n, k) = (32usize, 32usize, 96usize);
    let a = random.integers(m * k, -128, 127);
    let b = random.integers(k * n, -128, 127);
    let c: Vec<i32> = matrix_product(&a, &b, m, n, k).into_iter().map(|value| value as i32).collect();
    Case {
        file: "triton_int8_matmul.sm80.ptx",
        spec: json!({
            "grid": [1], "block": [128], "shared_bytes": 4096,
            "buffers": {
                "a": { "type": "s8", "data": a }, "b": { "type": "s8", "data": b },
                "c": { "type": "s32", "len": m * n },
            },
            "args": with_scratch(vec![buffer("a"), buffer("b"), buffer("c"), s32(k as i64)]),
        }),
        expected: vec![("c", Expected::Bits(i32_bits(&c)))],
    }
}

fn flash_attention(random: &mut Random) -> Case {
    let (sequence, dimension, scale) = (48usize, 16usize, 0.25f32);
    let eighths = |random: &mut Random, count| -> Vec<f32> {
        random.integers(count, -16, 16).into_iter().map(|value| value as f32 / 8.0).collect()
    };
    let q = eighths(random, sequence * dimension);
    let k = eighths(random, sequence * dimension);
    let v = eighths(random, sequence * dimension);
    let mut output = Vec::new();
    for row in 0..sequence {
        let scores: Vec<f64> = (0..sequence)
            .map(|key| {
                let dot: f64 =
                    (0..dimension).map(|d| f64::from(q[row * dimension + d]) * f64::from(k[key * dimension + d])).sum();
                dot * f64::from(scale)
            })
            .collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = scores.iter().map(|score| (score - max).exp()).collect();
        let total: f64 = weights.iter().sum();
        output.extend((0..dimension).map(|d| {
            weights.iter().enumerate().map(|(key, weight)| weight * f64::from(v[key * dimension + d])).sum::<f64>()
                / total
        }));
    }
    let halves = |values: &[f32]| hex(&values.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>(), 4);
    Case {
        file: "triton_flash_attention.sm80.ptx",
        spec: json!({
            "grid": [sequence / 16], "block": [32], "shared_bytes": 1536,
            "buffers": {
                "q": { "type": "f16", "bits": halves(&q) }, "k": { "type": "f16", "bits": halves(&k) },
                "v": { "type": "f16", "bits": halves(&v) }, "o": { "type": "f32", "len": sequence * dimension },
            },
            "args": with_scratch(vec![buffer("q"), buffer("k"), buffer("v"), buffer("o"), s32(sequence as i64),
                                      f32_value(scale)]),
        }),
        // The kernel rounds the softmax weights p to f16 (relative 2^-11) before the second
        // tl.dot, while the normaliser l sums them unrounded: the output, a weighted mean of
        // |v| <= 2, moves by at most 2^-11 * 2 ~ 1e-3; ex2.approx and the f32 sums add far less.
        expected: vec![("o", Expected::F32Close(output, 2e-3))],
    }
}

/// Triton's causal attention for Blackwell (`src/triton_blackwell_attention.py`): two heads of
/// 100 rows (a partial last block of 32), head size 32. Its PTX scales the accumulator with
/// `mul.f32x2` and takes row maxima with three-source `max.f32`.
fn causal_attention(random: &mut Random, file: &'static str) -> Case {
    let (heads, sequence, dimension) = (2usize, 100usize, 32usize);
    let scale = 1.0 / (dimension as f32).sqrt();
    let eighths = |random: &mut Random, count| -> Vec<f32> {
        random.integers(count, -12, 12).into_iter().map(|value| value as f32 / 8.0).collect()
    };
    let q = eighths(random, heads * sequence * dimension);
    let k = eighths(random, heads * sequence * dimension);
    let v = eighths(random, heads * sequence * dimension);
    let mut output = Vec::new();
    for head in 0..heads {
        let at = |matrix: &[f32], row: usize, d: usize| f64::from(matrix[(head * sequence + row) * dimension + d]);
        for row in 0..sequence {
            // Keys up to the query's own row only.
            let scores: Vec<f64> = (0..=row)
                .map(|key| (0..dimension).map(|d| at(&q, row, d) * at(&k, key, d)).sum::<f64>() * f64::from(scale))
                .collect();
            let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let weights: Vec<f64> = scores.iter().map(|score| (score - max).exp()).collect();
            let total: f64 = weights.iter().sum();
            output.extend(
                (0..dimension).map(|d| {
                    weights.iter().enumerate().map(|(key, weight)| weight * at(&v, key, d)).sum::<f64>() / total
                }),
            );
        }
    }
    let halves = |values: &[f32]| hex(&values.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>(), 4);
    Case {
        file,
        spec: json!({
            "grid": [sequence.div_ceil(32), heads], "block": [128], "shared_bytes": 6144,
            "buffers": {
                "q": { "type": "f16", "bits": halves(&q) }, "k": { "type": "f16", "bits": halves(&k) },
                "v": { "type": "f16", "bits": halves(&v) }, "o": { "type": "f32", "len": heads * sequence * dimension },
            },
            "args": with_scratch(vec![buffer("q"), buffer("k"), buffer("v"), buffer("o"), s32(sequence as i64),
                                      f32_value(scale)]),
        }),
        // As flash_attention: the weights rounded to f16 before the second tl.dot move the
        // output, a weighted mean of |v| <= 1.5, by at most 2^-11 * 1.5 ~ 1e-3.
        expected: vec![("o", Expected::F32Close(output, 2e-3))],
    }
}

/// Triton's `tl.rand(seed, offset)` (`triton/language/random.py`): ten Philox-4x32 rounds on
/// the counter (offset, 0, 0, 0) and key (seed, 0); the first word, as an i32 with negatives
/// folded onto `!x`, times 4.6566127342e-10 in f32.
fn triton_rand(seed: u32, offset: u32) -> f32 {
    let (mut c0, mut c1, mut c2, mut c3) = (offset, 0u32, 0u32, 0u32);
    let (mut k0, mut k1) = (seed, 0u32);
    for _ in 0..10 {
        let (previous0, previous2) = (c0, c2);
        let high = |a: u32, b: u32| ((u64::from(a) * u64::from(b)) >> 32) as u32;
        c0 = high(0xCD9E_8D57, previous2) ^ c1 ^ k0;
        c2 = high(0xD251_1F53, previous0) ^ c3 ^ k1;
        c1 = 0xCD9E_8D57u32.wrapping_mul(previous2);
        c3 = 0xD251_1F53u32.wrapping_mul(previous0);
        k0 = k0.wrapping_add(0x9E37_79B9);
        k1 = k1.wrapping_add(0xBB67_AE85);
    }
    let signed = c0 as i32;
    let folded = if signed < 0 { !signed } else { signed };
    folded as f32 * 4.656_612_7e-10_f32
}

fn dropout(random: &mut Random) -> Case {
    let (n, p, seed) = (700usize, 0.3f32, 1234u32);
    let x: Vec<f32> = random.integers(n, -1000, 1000).into_iter().map(|value| value as f32 / 4.0).collect();
    let kept = 1.0f32 - p;
    let out: Vec<f64> = (0..n)
        .map(|index| if triton_rand(seed, index as u32) >= p { f64::from(x[index] / kept) } else { 0.0 })
        .collect();
    let dropped = out.iter().filter(|&&value| value == 0.0).count();
    assert!((150..270).contains(&dropped), "the model drops {dropped} of {n}, not about 30%");
    Case {
        file: "triton_dropout.sm80.ptx",
        spec: json!({
            "grid": [n.div_ceil(256)], "block": [128],
            "buffers": { "x": { "type": "f32", "data": x }, "out": { "type": "f32", "len": n } },
            "args": with_scratch(vec![buffer("x"), buffer("out"), s32(n as i64), f32_value(p), s32(seed)]),
        }),
        // The draws and the comparison are exact f32 arithmetic; x / (1 - p) may be div.full.f32
        // (2 ulp) rather than a correctly rounded division.
        expected: vec![("out", Expected::F32Close(out, 2.5e-7))],
    }
}

fn atomic_sum(random: &mut Random) -> Case {
    let n = 1000usize;
    let x = random.integers(n, i64::from(i32::MIN), i64::from(i32::MAX));
    let total = x.iter().fold(0i32, |sum, &value| sum.wrapping_add(value as i32));
    Case {
        file: "triton_atomic_sum.sm80.ptx",
        spec: json!({
            "grid": [n.div_ceil(256)], "block": [128], "shared_bytes": 16,
            "buffers": { "x": { "type": "s32", "data": x }, "total": { "type": "s32", "len": 1 } },
            "args": with_scratch(vec![buffer("x"), buffer("total"), s32(n as i64)]),
        }),
        expected: vec![("total", Expected::Bits(i32_bits(&[total])))],
    }
}

fn scan(random: &mut Random) -> Case {
    let (rows, block) = (3usize, 128usize);
    let x = random.integers(rows * block, -100_000, 100_000);
    let (mut sums, mut maxima, mut products) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks(block) {
        let (mut sum, mut max, mut product) = (0i32, i32::MIN, 1i32);
        for &value in row {
            sum = sum.wrapping_add(value as i32);
            max = max.max(value as i32);
            product = product.wrapping_mul(value as i32);
            sums.push(sum);
            maxima.push(max);
            products.push(product);
        }
    }
    Case {
        file: "triton_scan.sm80.ptx",
        spec: json!({
            "grid": [rows], "block": [128], "shared_bytes": 32,
            "buffers": {
                "x": { "type": "s32", "data": x }, "sum": { "type": "s32", "len": rows * block },
                "max": { "type": "s32", "len": rows * block }, "product": { "type": "s32", "len": rows * block },
            },
            "args": with_scratch(vec![buffer("x"), buffer("sum"), buffer("max"), buffer("product")]),
        }),
        expected: vec![
            ("sum", Expected::Bits(i32_bits(&sums))),
            ("max", Expected::Bits(i32_bits(&maxima))),
            ("product", Expected::Bits(i32_bits(&products))),
        ],
    }
}

fn half_types(random: &mut Random) -> Case {
    let n = 300usize;
    // h = k/8 with |k| <= 32: h*h + h = (k^2 + 8k)/64 has at most 11 significant bits, exact in
    // f16 whether or not it is fused. bf16 integers below 64, times 3, stay within 8 bits.
    let h: Vec<f32> = random.integers(n, -32, 32).into_iter().map(|value| value as f32 / 8.0).collect();
    let bf: Vec<f32> = random.integers(n, -63, 63).into_iter().map(|value| value as f32).collect();
    let q = random.integers(n, -128, 127);
    let h_out: Vec<u64> = h.iter().map(|&value| f16_bits(value * value + value)).collect();
    let bf_out: Vec<u64> = bf.iter().map(|&value| bf16_bits(value * 3.0)).collect();
    let q_out: Vec<u64> = q.iter().map(|&value| u64::from((value * 3 + 1).clamp(-128, 127) as i8 as u8)).collect();
    let h_in: Vec<u64> = h.iter().map(|&value| f16_bits(value)).collect();
    let bf_in: Vec<u64> = bf.iter().map(|&value| bf16_bits(value)).collect();
    Case {
        file: "triton_half_types.sm80.ptx",
        spec: json!({
            "grid": [n.div_ceil(256)], "block": [128],
            "buffers": {
                "h": { "type": "f16", "bits": hex(&h_in, 4) }, "bf": { "type": "bf16", "bits": hex(&bf_in, 4) },
                "q": { "type": "s8", "data": q }, "h_out": { "type": "f16", "len": n },
                "bf_out": { "type": "bf16", "len": n }, "q_out": { "type": "s8", "len": n },
            },
            "args": with_scratch(vec![buffer("h"), buffer("bf"), buffer("q"), buffer("h_out"), buffer("bf_out"),
                                      buffer("q_out"), s32(n as i64)]),
        }),
        expected: vec![
            ("h_out", Expected::Bits(h_out)),
            ("bf_out", Expected::Bits(bf_out)),
            ("q_out", Expected::Bits(q_out)),
        ],
    }
}

/// numba's expansion of one array argument: meminfo, parent, nitems, itemsize, data, then the
/// shape and the strides (in bytes), one per dimension.
fn numba_array(name: &str, shape: &[usize], item_size: usize) -> Vec<Value> {
    let items: usize = shape.iter().product();
    let mut strides = vec![item_size; shape.len()];
    for dimension in (0..shape.len().saturating_sub(1)).rev() {
        strides[dimension] = strides[dimension + 1] * shape[dimension + 1];
    }
    let u64_value = |value: usize| json!({ "type": "u64", "value": value });
    let mut args = vec![u64_value(0), u64_value(0), u64_value(items), u64_value(item_size), buffer(name)];
    args.extend(shape.iter().map(|&extent| u64_value(extent)));
    args.extend(strides.into_iter().map(u64_value));
    args
}

fn numba_shared_matmul(random: &mut Random) -> Case {
    let size = 32usize;
    let a = random.integers(size * size, -8, 8);
    let b = random.integers(size * size, -8, 8);
    let c: Vec<f32> = matrix_product(&a, &b, size, size, size).into_iter().map(|value| value as f32).collect();
    let args: Vec<Value> = ["a", "b", "c"].iter().flat_map(|name| numba_array(name, &[size, size], 4)).collect();
    Case {
        file: "numba_shared_matmul.sm80.ptx",
        spec: json!({
            "grid": [size / 16, size / 16], "block": [16, 16],
            "buffers": {
                "a": { "type": "f32", "data": a }, "b": { "type": "f32", "data": b },
                "c": { "type": "f32", "len": size * size },
            },
            "args": args,
        }),
        expected: vec![("c", Expected::Bits(f32_bits(&c)))],
    }
}

fn numba_atomics(random: &mut Random) -> Case {
    let n = 500usize;
    let values = random.integers(n, -1_000_000, 1_000_000);
    let total = values.iter().fold(0i32, |sum, &value| sum.wrapping_add(value as i32));
    let max = values.iter().copied().max().unwrap_or_default() as i32;
    let min = values.iter().copied().min().unwrap_or_default() as i32;
    let mut args = numba_array("values", &[n], 4);
    args.extend(numba_array("stats", &[3], 4));
    Case {
        file: "numba_atomics.sm80.ptx",
        spec: json!({
            "grid": [n.div_ceil(128)], "block": [128],
            "buffers": {
                "values": { "type": "s32", "data": values },
                "stats": { "type": "s32", "data": [0, i32::MIN, i32::MAX] },
            },
            "args": args,
        }),
        expected: vec![("stats", Expected::Bits(i32_bits(&[total, max, min])))],
    }
}

fn numba_local_sort(random: &mut Random) -> Case {
    let threads = 128usize;
    // Repeated values, so that equal keys meet in the insertion sort.
    let values = random.integers(threads * 8, -20, 20);
    let mut sorted: Vec<i32> = values.iter().map(|&value| value as i32).collect();
    for chunk in sorted.chunks_mut(8) {
        chunk.sort_unstable();
    }
    let mut args = numba_array("values", &[threads * 8], 4);
    args.extend(numba_array("out", &[threads * 8], 4));
    Case {
        file: "numba_local_sort.sm80.ptx",
        spec: json!({
            "grid": [2], "block": [threads / 2],
            "buffers": { "values": { "type": "s32", "data": values }, "out": { "type": "s32", "len": threads * 8 } },
            "args": args,
        }),
        expected: vec![("out", Expected::Bits(i32_bits(&sorted)))],
    }
}

fn numba_vote_shuffle(random: &mut Random) -> Case {
    let (blocks, threads) = (3usize, 96usize);
    let n = blocks * threads;
    let values: Vec<i32> =
        random.integers(n, i64::from(i32::MIN), i64::from(i32::MAX)).into_iter().map(|value| value as i32).collect();
    let counts: Vec<i32> =
        values.chunks(threads).map(|block| block.iter().filter(|&&value| value & 1 != 0).count() as i32).collect();
    let mut sums = Vec::new();
    let mut neighbours = Vec::new();
    for warp in values.chunks(32) {
        // shfl.down: a lane whose source lane is past the warp's end gets its own value.
        let mut totals = warp.to_vec();
        for offset in [16usize, 8, 4, 2, 1] {
            totals = (0..32)
                .map(|lane| totals[lane].wrapping_add(totals[if lane + offset < 32 { lane + offset } else { lane }]))
                .collect();
        }
        sums.extend(totals);
        neighbours.extend((0..32).map(|lane| warp[(lane + 1) % 32] ^ warp[lane ^ 5]));
    }
    let args: Vec<Value> = [("values", n), ("counts", blocks), ("sums", n), ("neighbours", n)]
        .iter()
        .flat_map(|&(name, length)| numba_array(name, &[length], 4))
        .collect();
    Case {
        file: "numba_vote_shuffle.sm80.ptx",
        spec: json!({
            "grid": [blocks], "block": [threads],
            "buffers": {
                "values": { "type": "s32", "data": values }, "counts": { "type": "s32", "len": blocks },
                "sums": { "type": "s32", "len": n }, "neighbours": { "type": "s32", "len": n },
            },
            "args": args,
        }),
        expected: vec![
            ("counts", Expected::Bits(i32_bits(&counts))),
            ("sums", Expected::Bits(i32_bits(&sums))),
            ("neighbours", Expected::Bits(i32_bits(&neighbours))),
        ],
    }
}

fn cases() -> Vec<Case> {
    let mut random = Random(0x5eed_0003);
    vec![
        layer_norm(&mut random),
        softmax_tail(&mut random),
        pipelined_matmul(&mut random, "triton_matmul_stages3.sm80.ptx", (100, 64, 96), [2, 2]),
        pipelined_matmul(&mut random, "triton_matmul_stages4.sm80.ptx", (70, 128, 64), [3, 2]),
        pipelined_matmul(&mut random, "triton_matmul_stages3.sm90.ptx", (100, 128, 96), [2, 2]),
        warp_group_product(&mut random, "triton_wgmma_bf16_n128.sm90.ptx", "bf16", (64, 128, 128), 49152),
        warp_group_product(&mut random, "triton_wgmma_tf32_n32.sm90.ptx", "f32", (64, 32, 48), 12288),
        warp_group_product(&mut random, "triton_wgmma_e4m3_n64.sm90.ptx", "e4m3", (64, 64, 128), 16384),
        int8_matmul(&mut random),
        flash_attention(&mut random),
        causal_attention(&mut random, "triton_causal_attention.sm100.ptx"),
        causal_attention(&mut random, "triton_causal_attention.sm120.ptx"),
        dropout(&mut random),
        atomic_sum(&mut random),
        scan(&mut random),
        half_types(&mut random),
        numba_shared_matmul(&mut random),
        numba_atomics(&mut random),
        numba_local_sort(&mut random),
        numba_vote_shuffle(&mut random),
    ]
}

/// Triton's sm_90 matrix products, whose `wgmma` every thread computes from shuffles and
/// shared-memory loads: Intel's OpenCL CPU compiler takes many minutes on each (as on `wmma`),
/// so they run on the CPU only; `real_compilers.rs` compiles and validates their SPIR-V, and
/// `execute_warp_group_matrix.rs` runs a small `wgmma` through OpenCL.
fn uses_warp_group_matrices(file: &str) -> bool {
    file == "triton_matmul_stages3.sm90.ptx" || file.starts_with("triton_wgmma_") || is_blackwell_attention(file)
}

/// The Blackwell attention kernels take Intel's OpenCL compiler over ten minutes too (measured:
/// more than 600 s for sm_120 on this machine), so they also run on the CPU only; their SPIR-V is
/// compiled and validated by `real_compilers.rs`, and `execute_float.rs` runs `.f32x2` and
/// three-source `max` through OpenCL.
fn is_blackwell_attention(file: &str) -> bool {
    file.starts_with("triton_causal_attention.")
}

/// Runs every case on `target` (see `uses_warp_group_matrices`); returns the number of runs and
/// the problems.
fn run_all(target: &str) -> (usize, Vec<String>) {
    let mut runs = 0;
    let mut problems = Vec::new();
    for case in cases() {
        if target == "spirv" && uses_warp_group_matrices(case.file) {
            continue;
        }
        runs += 1;
        match run(case.file, &case.spec, target) {
            Err(message) => problems.push(format!("{} on {target}: failed: {message:.600}", case.file)),
            Ok(result) => problems.extend(
                compare(&result, &case.expected)
                    .into_iter()
                    .map(|problem| format!("{} on {target}: {problem}", case.file)),
            ),
        }
    }
    (runs, problems)
}

#[test]
fn model_workloads_match_their_models_on_the_cpu() {
    let (runs, problems) = run_all("cpu");
    assert_eq!(runs, 20);
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn model_workloads_match_their_models_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    let (runs, problems) = run_all("spirv");
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}
