//! Triton 3.9 and numba-cuda 0.30 kernels of language features
//! (`tests/fixtures/ptx/src/triton_features.py`, `src/numba_features.py`) run through
//! `ptxr run` on the CPU and on SPIR-V through OpenCL, against Rust models of their sources:
//! libdevice math in f32 and f64, `tl.sort`/`tl.histogram`, `tl.argmax`/`argmin` and maxima
//! over NaN, int64 indices, fp8 conversions, tensor descriptors copied by TMA at sm_90, 8- and
//! 16-warp reductions, a 2-D grid, float atomics and `atomic_cas`, `tl.dot` at sm_75 and sm_70; numba's `print`, xoroshiro128+,
//! constant arrays, device functions on a 2-D grid, complex numbers, compare-and-swap and
//! wrapping inc/dec atomics, block votes and Python's integer division.
//!
//! Integer and exactly representable inputs make most results exact; where a kernel uses
//! libdevice or approximate instructions, the tolerance is derived beside the case. Each
//! launch is its own `ptxr` process.

use std::path::PathBuf;

use serde_json::{json, Value};

mod support;
use support::fixture_kernels::{buffer, f32_bits, hex, s32, with_scratch, Random};
use support::{opencl_device_available, ptxr, repository_file};

fn fixture(name: &str) -> PathBuf {
    repository_file("tests/fixtures/ptx").join(name)
}

/// A check of a buffer that no single list of values describes.
type Predicate = Box<dyn Fn(&[u64]) -> Result<(), String>>;

/// What a buffer must hold after the grid.
enum Expected {
    /// Exactly these element bit patterns.
    Bits(Vec<u64>),
    /// `f32` values, each `(value, tolerance)` within `tolerance * max(|value|, 1)`; a NaN
    /// value wants any NaN.
    F32Close(Vec<(f64, f64)>),
    /// The same for `f64` elements.
    F64Close(Vec<(f64, f64)>),
    /// Whatever the predicate accepts (a race with several right answers).
    Satisfies(Predicate),
}

/// One kernel launch: its fixture, launch spec, the model's buffers and the lines it prints.
struct Case {
    file: &'static str,
    spec: Value,
    expected: Vec<(&'static str, Expected)>,
    printed: Vec<String>,
}

impl Case {
    fn new(file: &'static str, spec: Value, expected: Vec<(&'static str, Expected)>) -> Case {
        Case { file, spec, expected, printed: Vec::new() }
    }
}

/// Runs `file` with `spec` on `target`: the text the kernel printed and the result JSON.
fn run(file: &str, spec: &Value, target: &str) -> Result<(String, Value), String> {
    let directory = tempfile::tempdir().map_err(|error| error.to_string())?;
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).map_err(|error| error.to_string())?;
    let path = fixture(file);
    let path = path.to_string_lossy();
    let output = ptxr(&["run", path.as_ref(), "--launch", "spec.json", "--target", target], directory.path());
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    // Printed text comes before the JSON, which starts a line with `{`.
    let start = if stdout.starts_with('{') { 0 } else { stdout.find("\n{").map_or(0, |index| index + 1) };
    let result = serde_json::from_str(&stdout[start..]).map_err(|error| format!("{error}: {stdout}"))?;
    Ok((stdout[..start].to_string(), result))
}

fn bits_of(result: &Value, buffer: &str) -> Vec<u64> {
    result["buffers"][buffer]["bits"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|bits| u64::from_str_radix(bits.as_str().unwrap_or_default().trim_start_matches("0x"), 16).unwrap_or(0))
        .collect()
}

fn close(got: f64, want: f64, tolerance: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    (got - want).abs() <= tolerance * want.abs().max(1.0)
}

/// The problems of one run against the model (empty when it matches).
fn compare(result: &Value, expected: &[(&str, Expected)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (buffer, want) in expected {
        let actual = bits_of(result, buffer);
        let length = match want {
            Expected::Bits(bits) => bits.len(),
            Expected::F32Close(values) | Expected::F64Close(values) => values.len(),
            Expected::Satisfies(_) => actual.len(),
        };
        if actual.len() != length {
            problems.push(format!("`{buffer}` has {} elements, expected {length}", actual.len()));
            continue;
        }
        let wrong = match want {
            Expected::Bits(bits) => (0..length)
                .find(|&index| actual[index] != bits[index])
                .map(|index| format!("`{buffer}`[{index}] is {:#x}, the model says {:#x}", actual[index], bits[index])),
            Expected::F32Close(values) => (0..length)
                .map(|index| (index, f64::from(f32::from_bits(actual[index] as u32)), values[index]))
                .find(|&(_, got, (want, tolerance))| !close(got, want, tolerance))
                .map(|(index, got, (want, _))| format!("`{buffer}`[{index}] is {got}, the model says {want}")),
            Expected::F64Close(values) => (0..length)
                .map(|index| (index, f64::from_bits(actual[index]), values[index]))
                .find(|&(_, got, (want, tolerance))| !close(got, want, tolerance))
                .map(|(index, got, (want, _))| format!("`{buffer}`[{index}] is {got:e}, the model says {want:e}")),
            Expected::Satisfies(predicate) => predicate(&actual).err().map(|problem| format!("`{buffer}`: {problem}")),
        };
        problems.extend(wrong);
    }
    problems
}

/// One function of a math kernel's model.
type Function = fn(f64) -> f64;

fn i32_bits(values: &[i64]) -> Vec<u64> {
    values.iter().map(|&value| u64::from(value as i32 as u32)).collect()
}

fn i64_bits(values: &[i64]) -> Vec<u64> {
    values.iter().map(|&value| value as u64).collect()
}

/// erf by its everywhere-positive series erf(t) = 2/sqrt(pi) e^(-t^2) sum 2^n t^(2n+1) /
/// (1 3 5 ... (2n+1)): no cancellation, so a few ulp of f64 for the |t| <= 2 used here.
fn erf(t: f64) -> f64 {
    let mut term = t;
    let mut sum = t;
    for n in 1..200 {
        term *= 2.0 * t * t / f64::from(2 * n + 1);
        sum += term;
        if term.abs() < sum.abs() * 1e-18 {
            break;
        }
    }
    2.0 / std::f64::consts::PI.sqrt() * (-t * t).exp() * sum
}

/// Ten functions of x in (0, 4]; Triton's `tl.exp`, `tl.log` and `tl.rsqrt` are the approximate
/// `ex2.approx`, `lg2.approx` and `rsqrt.approx` (within 2^-22 relative, or absolute for lg2),
/// libdevice's f32 functions within 4 ulp, and each adds an f32 rounding or two of its argument
/// or result: 2e-6 of max(|value|, 1) covers them all (a fifth of that would too).
fn triton_math(file: &'static str) -> Case {
    let n = 200usize;
    let x: Vec<f32> = (0..n).map(|k| (1 + (k * 37) % 128) as f32 / 32.0).collect();
    let functions: [Function; 10] = [
        |x| (x - 2.0).exp(),
        |x| x.exp2(),
        |x| x.ln(),
        |x| erf(x - 2.0),
        |x| 1.0 / x.sqrt(),
        |x| (x - 2.0).tanh(),
        |x| x.powf(1.5),
        |x| 0.5 * x * (1.0 + erf(x * std::f64::consts::FRAC_1_SQRT_2)),
        |x| x / (1.0 + (-x).exp()),
        |x| (x - 2.0).atan2(x),
    ];
    let out: Vec<(f64, f64)> =
        functions.iter().flat_map(|function| x.iter().map(|&x| (function(f64::from(x)), 2e-6))).collect();
    Case::new(
        file,
        json!({
            "grid": [n.div_ceil(128)], "block": [128],
            "buffers": { "x": { "type": "f32", "data": x }, "out": { "type": "f32", "len": 10 * n } },
            "args": with_scratch(vec![buffer("x"), buffer("out"), s32(n as i64)]),
        }),
        vec![("out", Expected::F32Close(out))],
    )
}

fn sort_histogram(random: &mut Random, file: &'static str) -> Case {
    let (rows, block, bins) = (3usize, 32usize, 16usize);
    let x = random.integers(rows * block, 0, bins as i64 - 1);
    let (mut ascending, mut descending, mut histogram) = (Vec::new(), Vec::new(), Vec::new());
    for row in x.chunks(block) {
        let mut sorted = row.to_vec();
        sorted.sort_unstable();
        ascending.extend(sorted.iter().copied());
        descending.extend(sorted.iter().rev().copied());
        histogram.extend((0..bins as i64).map(|bin| row.iter().filter(|&&value| value == bin).count() as i64));
    }
    Case::new(
        file,
        json!({
            "grid": [rows], "block": [32], "shared_bytes": 128,
            "buffers": {
                "x": { "type": "s32", "data": x }, "sorted": { "type": "s32", "len": rows * block },
                "descending": { "type": "s32", "len": rows * block },
                "histogram": { "type": "s32", "len": rows * bins },
            },
            "args": with_scratch(vec![buffer("x"), buffer("sorted"), buffer("descending"), buffer("histogram")]),
        }),
        vec![
            ("sorted", Expected::Bits(i32_bits(&ascending))),
            ("descending", Expected::Bits(i32_bits(&descending))),
            ("histogram", Expected::Bits(i32_bits(&histogram))),
        ],
    )
}

/// Rows 0 and 1 have ties (their maximum and minimum several times; row 1 is one value): argmax
/// and argmin give the first index. Rows 2 and 3 hold NaNs, where the order of Triton's
/// reduction tree decides the indices (no model): `tl.max` (maxnum) ignores the NaNs, the
/// reduction of `tl.maximum` with `PropagateNan.ALL` gives NaN.
fn argmax_nan(random: &mut Random) -> Case {
    let block = 128usize;
    let mut x: Vec<f32> = random.integers(4 * block, -100, 100).into_iter().map(|value| value as f32 / 4.0).collect();
    for index in [3, 50, 90] {
        x[index] = 30.0;
    }
    for index in [7, 8, 127] {
        x[index] = -30.0;
    }
    x[block..2 * block].fill(1.5);
    for index in [2 * block + 5, 2 * block + 100, 3 * block] {
        x[index] = f32::NAN;
    }
    let rows: Vec<&[f32]> = x.chunks(block).collect();
    let first = |row: &[f32], better: fn(f32, f32) -> bool| {
        (1..row.len()).fold(0usize, |best, index| if better(row[index], row[best]) { index } else { best }) as u64
    };
    let argmax: Vec<u64> = rows[..2].iter().map(|row| first(row, |a, b| a > b)).collect();
    let argmin: Vec<u64> = rows[..2].iter().map(|row| first(row, |a, b| a < b)).collect();
    let maxima: Vec<f32> =
        rows.iter().map(|row| row.iter().copied().filter(|value| !value.is_nan()).fold(f32::MIN, f32::max)).collect();
    let nan_maxima: Vec<(f64, f64)> =
        maxima.iter().enumerate().map(|(row, &max)| (if row < 2 { f64::from(max) } else { f64::NAN }, 0.0)).collect();
    let first_two = move |want: Vec<u64>| -> Expected {
        Expected::Satisfies(Box::new(move |actual: &[u64]| {
            if actual.len() == 4 && actual[..2] == want[..] {
                Ok(())
            } else {
                Err(format!("rows 0 and 1 are {:?}, the model says {want:?}", actual.get(..2)))
            }
        }))
    };
    let x_bits = hex(&f32_bits(&x), 8);
    Case::new(
        "triton_argmax_nan.sm80.ptx",
        json!({
            "grid": [4], "block": [128], "shared_bytes": 32,
            "buffers": {
                "x": { "type": "f32", "bits": x_bits }, "argmax": { "type": "s32", "len": 4 },
                "argmin": { "type": "s32", "len": 4 }, "max": { "type": "f32", "len": 4 },
                "nan_max": { "type": "f32", "len": 4 },
            },
            "args": with_scratch(vec![buffer("x"), buffer("argmax"), buffer("argmin"), buffer("max"),
                                      buffer("nan_max")]),
        }),
        vec![
            ("argmax", first_two(argmax)),
            ("argmin", first_two(argmin)),
            ("max", Expected::Bits(f32_bits(&maxima))),
            ("nan_max", Expected::F32Close(nan_maxima)),
        ],
    )
}

fn gather_int64(random: &mut Random) -> Case {
    let (n, entries, stride) = (300usize, 50usize, 3_000_000_019i64);
    let index = random.integers(n, -5, entries as i64 - 1);
    let table = random.integers(entries, -1_000_000, 1_000_000);
    let mut out: Vec<i64> = index.iter().map(|&index| if index >= 0 { table[index as usize] } else { -1 }).collect();
    out.extend(index.iter().map(|&index| if index >= 0 { index * stride } else { -(index * stride) }));
    Case::new(
        "triton_gather_int64.sm80.ptx",
        json!({
            "grid": [n.div_ceil(128)], "block": [128],
            "buffers": {
                "index": { "type": "s64", "data": index }, "table": { "type": "s32", "data": table },
                "out": { "type": "s64", "len": 2 * n },
            },
            "args": with_scratch(vec![buffer("index"), buffer("table"), buffer("out"), s32(n as i64),
                                      json!({ "type": "s64", "value": stride })]),
        }),
        vec![("out", Expected::Bits(i64_bits(&out)))],
    )
}

/// Triton's `philox(seed, c0, c1, 0, 0)` (`triton/language/random.py`): ten Philox-4x32 rounds
/// with key (low, high word of the 64-bit seed).
fn philox(seed: u64, c0: u32, c1: u32) -> [u32; 4] {
    let (mut c, mut k0, mut k1) = ([c0, c1, 0u32, 0u32], seed as u32, (seed >> 32) as u32);
    let high = |a: u32, b: u32| ((u64::from(a) * u64::from(b)) >> 32) as u32;
    for _ in 0..10 {
        let (previous0, previous2) = (c[0], c[2]);
        c = [
            high(0xCD9E_8D57, previous2) ^ c[1] ^ k0,
            0xCD9E_8D57u32.wrapping_mul(previous2),
            high(0xD251_1F53, previous0) ^ c[3] ^ k1,
            0xD251_1F53u32.wrapping_mul(previous0),
        ];
        k0 = k0.wrapping_add(0x9E37_79B9);
        k1 = k1.wrapping_add(0xBB67_AE85);
    }
    c
}

/// `tl.randint4x(seed, offset)` with a seed above 2^32 and int64 offsets that cross 2^32: the
/// counter is (offset low, offset high, 0, 0).
fn randint4x() -> Case {
    let (n, seed, base) = (300usize, 0x1234_5678_9abc_def1u64, (3i64 << 32) - 100);
    let words: Vec<i64> = (0..n as i64)
        .flat_map(|index| {
            let offset = (base + index) as u64;
            philox(seed, offset as u32, (offset >> 32) as u32).map(|word| i64::from(word as i32))
        })
        .collect();
    Case::new(
        "triton_randint4x.sm80.ptx",
        json!({
            "grid": [n.div_ceil(128)], "block": [64],
            "buffers": { "out": { "type": "s32", "len": 4 * n } },
            "args": with_scratch(vec![buffer("out"), json!({ "type": "s64", "value": seed as i64 }),
                                      json!({ "type": "s64", "value": base }), s32(n as i64)]),
        }),
        vec![("out", Expected::Bits(i32_bits(&words)))],
    )
}

/// `tl.inline_asm_elementwise`: `shf.l.wrap.b32` rotates left by the shift's low five bits,
/// and `prmt.b32 d, a, 0, 0x0123` reverses the four int8 elements Triton packs per register
/// (elements 4i to 4i + 3, element 4i in the low byte).
fn inline_asm(random: &mut Random) -> Case {
    let n = 200usize;
    let x = random.integers(n, i64::from(i32::MIN), i64::from(i32::MAX));
    let shift = random.integers(n, 0, 64);
    let bytes = random.integers(n, -128, 127);
    let rotated: Vec<i64> =
        x.iter().zip(&shift).map(|(&x, &shift)| i64::from((x as u32).rotate_left(shift as u32 & 31) as i32)).collect();
    let reversed: Vec<u64> =
        bytes.chunks(4).flat_map(|group| group.iter().rev().map(|&byte| u64::from(byte as u8))).collect();
    Case::new(
        "triton_inline_asm.sm80.ptx",
        json!({
            "grid": [n.div_ceil(256)], "block": [64],
            "buffers": {
                "x": { "type": "s32", "data": x }, "shift": { "type": "s32", "data": shift },
                "rotated": { "type": "s32", "len": n }, "bytes": { "type": "s8", "data": bytes },
            },
            "args": with_scratch(vec![buffer("x"), buffer("shift"), buffer("rotated"), buffer("bytes"), s32(n as i64)]),
        }),
        vec![("rotated", Expected::Bits(i32_bits(&rotated))), ("bytes", Expected::Bits(reversed))],
    )
}

/// An 8-bit float (OCP FP8) with `exponent_bits` and `mantissa_bits`, its largest finite value
/// `largest`: x rounded to nearest even, saturated to +-largest (`.satfinite`); the byte and
/// the value it stands for.
fn float8(x: f32, exponent_bits: u32, mantissa_bits: u32, largest: f64) -> (u8, f64) {
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
    let magnitude = f64::from(x).abs();
    let smallest_exponent = 1 - bias;
    let exponent = if magnitude > 0.0 { (magnitude.log2().floor() as i32).max(smallest_exponent) } else { 0 };
    let exponent = exponent.max(smallest_exponent);
    let quantum = 2f64.powi(exponent - mantissa_bits as i32);
    let rounded = ((magnitude / quantum).round_ties_even() * quantum).min(largest);
    let signed = if sign != 0 { -rounded } else { rounded };
    if rounded == 0.0 {
        return (sign, signed);
    }
    let exponent = (rounded.log2().floor() as i32).max(smallest_exponent);
    let steps = (rounded / 2f64.powi(exponent - mantissa_bits as i32)) as u32;
    let byte = if rounded < 2f64.powi(smallest_exponent) {
        steps
    } else {
        (((exponent + bias) as u32) << mantissa_bits) | (steps - (1 << mantissa_bits))
    };
    (sign | byte as u8, signed)
}

/// `cvt.rn.satfinite.e4m3x2.f32` and `.e5m2x2` of values from the subnormals of both formats
/// past e5m2's largest (57344), and e4m3 back to f32 (through f16, exactly).
fn fp8(random: &mut Random) -> Case {
    let n = 300usize;
    let x: Vec<f32> = (0..n)
        .map(|_| {
            let mantissa = random.integer(1, 2047) as f32;
            let sign = if random.integer(0, 1) == 0 { 1.0 } else { -1.0 };
            sign * mantissa * 2f32.powi(random.integer(-24, 6) as i32)
        })
        .collect();
    let e4m3: Vec<(u8, f64)> = x.iter().map(|&value| float8(value, 4, 3, 448.0)).collect();
    let e5m2: Vec<u64> = x.iter().map(|&value| u64::from(float8(value, 5, 2, 57344.0).0)).collect();
    let back: Vec<f32> = e4m3.iter().map(|&(_, value)| value as f32).collect();
    Case::new(
        "triton_fp8.sm90.ptx",
        json!({
            "grid": [n.div_ceil(128)], "block": [128],
            "buffers": {
                "x": { "type": "f32", "bits": hex(&f32_bits(&x), 8) }, "e4m3": { "type": "u8", "len": n },
                "e5m2": { "type": "u8", "len": n }, "back": { "type": "f32", "len": n },
            },
            "args": with_scratch(vec![buffer("x"), buffer("e4m3"), buffer("e5m2"), buffer("back"), s32(n as i64)]),
        }),
        vec![
            ("e4m3", Expected::Bits(e4m3.iter().map(|&(byte, _)| u64::from(byte)).collect())),
            ("e5m2", Expected::Bits(e5m2)),
            ("back", Expected::Bits(f32_bits(&back))),
        ],
    )
}

/// `tma_copy_kernel`: `out = 2 * x` through tensor descriptors that Triton builds on the device
/// at sm_90 (`tensormap.replace` into shared memory, `tensormap.cp_fenceproxy` into the global
/// scratch buffer, 256 bytes per program), a TMA load of a 16×32 box completing on an
/// `mbarrier` with `expect_tx`, and a TMA store. The map swizzles by 128 bytes and the kernel
/// unswizzles with the same formula, so this checks the round trip; `execute_bulk_copy.rs`
/// checks each placement. Rows past `M` are outside the tensor (filled with zeros on the load,
/// not stored); columns from 32 on are outside every box, and stay zero.
fn tma_copy(random: &mut Random) -> Case {
    let (rows, columns, box_rows, box_columns) = (40usize, 40usize, 16usize, 32usize);
    let x: Vec<f32> = (0..rows * columns).map(|_| random.integer(-1000, 1000) as f32 * 0.5).collect();
    let out: Vec<f32> =
        (0..rows * columns).map(|index| if index % columns < box_columns { 2.0 * x[index] } else { 0.0 }).collect();
    let programs = rows.div_ceil(box_rows);
    Case::new(
        "triton_tma_copy.sm90.ptx",
        json!({
            "grid": [programs], "block": [128], "shared_bytes": 3072,
            "buffers": {
                "x": { "type": "f32", "data": x }, "out": { "type": "f32", "len": rows * columns },
                "descriptors": { "type": "u8", "len": programs * 256 },
            },
            "args": [buffer("x"), buffer("out"), s32(rows as i64), s32(columns as i64), buffer("descriptors"),
                     { "type": "u64", "value": 0 }],
        }),
        vec![("out", Expected::Bits(f32_bits(&out)))],
    )
}

fn wide_row_sum(random: &mut Random, file: &'static str, block: usize, warps: usize) -> Case {
    let rows = 2usize;
    let x = random.integers(rows * block, i64::from(i32::MIN), i64::from(i32::MAX));
    let sums: Vec<i64> = x
        .chunks(block)
        .map(|row| i64::from(row.iter().fold(0i32, |sum, &value| sum.wrapping_add(value as i32))))
        .collect();
    let maxima: Vec<i64> = x.chunks(block).map(|row| row.iter().copied().max().unwrap_or_default()).collect();
    Case::new(
        file,
        json!({
            "grid": [rows], "block": [warps * 32], "shared_bytes": warps * 4,
            "buffers": {
                "x": { "type": "s32", "data": x }, "sum": { "type": "s32", "len": rows },
                "max": { "type": "s32", "len": rows },
            },
            "args": with_scratch(vec![buffer("x"), buffer("sum"), buffer("max")]),
        }),
        vec![("sum", Expected::Bits(i32_bits(&sums))), ("max", Expected::Bits(i32_bits(&maxima)))],
    )
}

fn grid_2d(random: &mut Random) -> Case {
    let (rows, columns) = (40usize, 70usize);
    let x = random.integers(rows * columns, -1_000_000, 1_000_000);
    let transposed: Vec<i64> = (0..columns)
        .flat_map(|column| (0..rows).map(move |row| (row, column)))
        .map(|(r, c)| x[r * columns + c])
        .collect();
    Case::new(
        "triton_grid_2d.sm80.ptx",
        json!({
            "grid": [rows.div_ceil(16), columns.div_ceil(32)], "block": [128], "shared_bytes": 2048,
            "buffers": { "x": { "type": "s32", "data": x }, "out": { "type": "s32", "len": rows * columns } },
            "args": with_scratch(vec![buffer("x"), buffer("out"), s32(rows as i64), s32(columns as i64)]),
        }),
        vec![("out", Expected::Bits(i32_bits(&transposed)))],
    )
}

/// Triton's float `atomic_max`/`atomic_min` (integer atomics on the bits, signed for one sign
/// and unsigned for the other) from -inf and +inf; one `atomic_cas` per program on a lock, so
/// exactly one program swaps 0 for 1; a scalar `atomic_add` is one per program.
fn float_atomics(random: &mut Random, file: &'static str) -> Case {
    let (n, programs) = (300usize, 3usize);
    let x: Vec<f32> = random.integers(n, -4000, 4000).into_iter().map(|value| value as f32 / 8.0).collect();
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let min = x.iter().copied().fold(f32::INFINITY, f32::min);
    Case::new(
        file,
        json!({
            "grid": [programs], "block": [128], "shared_bytes": 4,
            "buffers": {
                "x": { "type": "f32", "data": x },
                "max": { "type": "f32", "bits": [format!("{:#010x}", f32::NEG_INFINITY.to_bits())] },
                "min": { "type": "f32", "bits": [format!("{:#010x}", f32::INFINITY.to_bits())] },
                "lock": { "type": "s32", "data": [0] }, "count": { "type": "s32", "data": [0, 0] },
            },
            "args": with_scratch(vec![buffer("x"), buffer("max"), buffer("min"), buffer("lock"), buffer("count"),
                                      s32(n as i64)]),
        }),
        vec![
            ("max", Expected::Bits(f32_bits(&[max]))),
            ("min", Expected::Bits(f32_bits(&[min]))),
            ("lock", Expected::Bits(vec![1])),
            ("count", Expected::Bits(vec![1, programs as u64])),
        ],
    )
}

/// The binary16 bits of a small integer.
fn f16_bits(value: i64) -> u64 {
    let half = half::f16::from_f32(value as f32);
    assert_eq!(half.to_f32(), value as f32);
    u64::from(half.to_bits())
}

/// `tl.dot` of f16 integers (exact in f32) where Triton 3.9 has no `mma` (sm_75, sm_70): FMAs.
fn small_matmul(random: &mut Random, file: &'static str) -> Case {
    let (m, n, k) = (16usize, 16usize, 48usize);
    let a = random.integers(m * k, -3, 3);
    let b = random.integers(k * n, -3, 3);
    let c: Vec<f32> = (0..m * n)
        .map(|index| (0..k).map(|inner| a[index / n * k + inner] * b[inner * n + index % n]).sum::<i64>() as f32)
        .collect();
    let halves = |values: &[i64]| hex(&values.iter().map(|&value| f16_bits(value)).collect::<Vec<_>>(), 4);
    Case::new(
        file,
        json!({
            "grid": [1], "block": [32], "shared_bytes": 1024,
            "buffers": {
                "a": { "type": "f16", "bits": halves(&a) }, "b": { "type": "f16", "bits": halves(&b) },
                "c": { "type": "f32", "len": m * n },
            },
            "args": with_scratch(vec![buffer("a"), buffer("b"), buffer("c"), s32(k as i64)]),
        }),
        vec![("c", Expected::Bits(f32_bits(&c)))],
    )
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

fn numba_arrays(arrays: &[(&str, &[usize], usize)]) -> Value {
    Value::Array(arrays.iter().flat_map(|&(name, shape, item_size)| numba_array(name, shape, item_size)).collect())
}

/// libdevice's f32 functions (`__nv_expf`, `erff`, `powf`, `atan2f`, `tanhf`, `log1pf`) are
/// within 4 ulp (2^-21 relative): 1e-6 of max(|value|, 1). `sqrt` rounds correctly and `fma`
/// once, exactly as the f64 model rounded to f32 (x*x - 1 is exact in f64): no tolerance.
fn numba_math() -> Case {
    let n = 200usize;
    let x: Vec<f32> = (0..n).map(|k| (1 + (k * 37) % 200) as f32 / 50.0).collect();
    let functions: [(Function, f64); 8] = [
        (|x| (x - 2.0).exp(), 1e-6),
        (|x| erf(x - 2.0), 1e-6),
        (|x| x.powf(1.5), 1e-6),
        (|x| (x - 2.0).atan2(x), 1e-6),
        (|x| (x - 2.0).tanh(), 1e-6),
        (|x| x.ln_1p(), 1e-6),
        (|x| f64::from(x.sqrt() as f32), 0.0),
        (|x| f64::from(x.mul_add(x, -1.0) as f32), 0.0),
    ];
    let out: Vec<(f64, f64)> = functions
        .iter()
        .flat_map(|&(function, tolerance)| x.iter().map(move |&x| (function(f64::from(x)), tolerance)))
        .collect();
    Case::new(
        "numba_math.sm80.ptx",
        json!({
            "grid": [n.div_ceil(64)], "block": [64],
            "buffers": { "x": { "type": "f32", "data": x }, "out": { "type": "f32", "len": 8 * n } },
            "args": numba_arrays(&[("x", &[n], 4), ("out", &[8, n], 4)]),
        }),
        vec![("out", Expected::F32Close(out))],
    )
}

/// libdevice's f64 `exp`, `erf`, `pow` and `atan2` are within 2 ulp (the erf model a few more):
/// 2e-15 of max(|value|, 1). v / 3 + sqrt(v) rounds three times; fma once, as the model.
fn numba_float64_math() -> Case {
    let n = 150usize;
    let x: Vec<f64> = (0..n).map(|k| (1 + (k * 37) % 150) as f64 / 37.5).collect();
    let functions: [(Function, f64); 6] = [
        (|x| (x - 2.0).exp(), 2e-15),
        (|x| erf(x - 2.0), 2e-15),
        (|x| x.powf(1.5), 2e-15),
        (|x| (x - 2.0).atan2(x), 2e-15),
        (|x| x / 3.0 + x.sqrt(), 1e-15),
        (|x| x.mul_add(x, -1.0), 0.0),
    ];
    let out: Vec<(f64, f64)> =
        functions.iter().flat_map(|&(function, tolerance)| x.iter().map(move |&x| (function(x), tolerance))).collect();
    Case::new(
        "numba_float64_math.sm80.ptx",
        json!({
            "grid": [n.div_ceil(64)], "block": [64],
            "buffers": { "x": { "type": "f64", "data": x }, "out": { "type": "f64", "len": 6 * n } },
            "args": numba_arrays(&[("x", &[n], 8), ("out", &[6, n], 8)]),
        }),
        vec![("out", Expected::F64Close(out))],
    )
}

/// `print("thread", i, "value", x[i])`: numba's `%s %lld %s %lld\n` with its strings in `.const`.
fn numba_print() -> Case {
    let n = 6usize;
    let x: Vec<i64> = vec![7, -3, 0, 2_000_000_000, -1, 42];
    let mut case = Case::new(
        "numba_print.sm80.ptx",
        json!({
            "grid": [1], "block": [8],
            "buffers": { "x": { "type": "s32", "data": x }, "out": { "type": "s32", "len": n } },
            "args": numba_arrays(&[("x", &[n], 4), ("out", &[n], 4)]),
        }),
        vec![("out", Expected::Bits(i32_bits(&x.iter().map(|value| value * 2).collect::<Vec<_>>())))],
    );
    case.printed = x.iter().enumerate().map(|(index, value)| format!("thread {index} value {value}")).collect();
    case
}

/// `tl.device_print("x", x)` (`pid (%u, %u, %u) idx (%2u) x: %i`, its argument buffer at a
/// 32-bit `.local` address) and `tl.device_assert(x >= 0)`, which holds here; out = 2x.
fn triton_print_assert(x: Vec<i64>) -> Case {
    let n = x.len();
    let mut case = Case::new(
        "triton_print_assert.sm80.ptx",
        json!({
            "grid": [n / 32], "block": [32],
            "buffers": { "x": { "type": "s32", "data": x }, "out": { "type": "s32", "len": n } },
            "args": with_scratch(vec![buffer("x"), buffer("out")]),
        }),
        vec![("out", Expected::Bits(i32_bits(&x.iter().map(|value| value * 2).collect::<Vec<_>>())))],
    );
    case.printed = x
        .iter()
        .enumerate()
        .map(|(index, value)| format!("pid ({}, 0, 0) idx ({:2}) x: {value}", index / 32, index % 32))
        .collect();
    case
}

/// numba.cuda.random's xoroshiro128+ (`xoroshiro128p_next`, then the top 53 bits as a double
/// in [0, 1) rounded to f32); each thread's state (two u64 words) advances once.
fn numba_random(random: &mut Random) -> Case {
    let n = 100usize;
    let states: Vec<u64> = (0..2 * n).map(|_| random.next_u64()).collect();
    let mut after = states.clone();
    let mut out = Vec::new();
    for state in after.chunks_mut(2) {
        let (s0, mut s1) = (state[0], state[1]);
        let result = s0.wrapping_add(s1);
        s1 ^= s0;
        state[0] = s0.rotate_left(55) ^ s1 ^ (s1 << 14);
        state[1] = s1.rotate_left(36);
        out.push(((result >> 11) as f64 * (1.0 / (1u64 << 53) as f64)) as f32);
    }
    Case::new(
        "numba_random.sm80.ptx",
        json!({
            "grid": [n.div_ceil(64)], "block": [64],
            "buffers": { "states": { "type": "u64", "bits": hex(&states, 16) }, "out": { "type": "f32", "len": n } },
            "args": numba_arrays(&[("states", &[n], 16), ("out", &[n], 4)]),
        }),
        vec![("out", Expected::Bits(f32_bits(&out))), ("states", Expected::Bits(after))],
    )
}

/// The coefficients of `COEFFICIENTS` in numba_features.py, in a `cuda.const` array.
const COEFFICIENTS: [i64; 8] = [3, -1, 4, 1, -5, 9, -2, 6];

fn numba_const_array(random: &mut Random) -> Case {
    let n = 150usize;
    let x = random.integers(n, -4, 4);
    let out: Vec<i64> =
        x.iter().map(|&x| COEFFICIENTS.iter().enumerate().map(|(k, c)| c * x.pow(k as u32)).sum()).collect();
    Case::new(
        "numba_const_array.sm80.ptx",
        json!({
            "grid": [n.div_ceil(64)], "block": [64],
            "buffers": { "x": { "type": "s32", "data": x }, "out": { "type": "s32", "len": n } },
            "args": numba_arrays(&[("x", &[n], 4), ("out", &[n], 4)]),
        }),
        vec![("out", Expected::Bits(i32_bits(&out)))],
    )
}

fn numba_grid_2d(random: &mut Random) -> Case {
    let (rows, columns) = (20usize, 45usize);
    let x = random.integers(rows * columns, -30, 30);
    let out: Vec<i64> = (0..rows * columns)
        .map(|index| (x[index] * x[index]).clamp(4, 400) + (index / columns * 1000 + index % columns) as i64)
        .collect();
    Case::new(
        "numba_grid_2d.sm80.ptx",
        json!({
            "grid": [columns.div_ceil(16), rows.div_ceil(8)], "block": [16, 8],
            "buffers": { "x": { "type": "s32", "data": x }, "out": { "type": "s32", "len": rows * columns } },
            "args": numba_arrays(&[("x", &[rows, columns], 4), ("out", &[rows, columns], 4)]),
        }),
        vec![("out", Expected::Bits(i32_bits(&out)))],
    )
}

/// complex64 a * b + conj(a) of small integers (exact), and |b|^2 through numba's `abs` (a
/// hypot of 2 ulp or less) squared: 1e-6 relative.
fn numba_complex(random: &mut Random) -> Case {
    let n = 100usize;
    let a = random.integers(2 * n, -20, 20);
    let b = random.integers(2 * n, -20, 20);
    let mut out = Vec::new();
    for index in 0..n {
        let (ar, ai, br, bi) = (a[2 * index], a[2 * index + 1], b[2 * index], b[2 * index + 1]);
        out.push(((ar * br - ai * bi + ar) as f64, 0.0));
        out.push(((ar * bi + ai * br - ai) as f64, 0.0));
        out.push(((br * br + bi * bi) as f64, 1e-6));
        out.push((0.0, 0.0));
    }
    Case::new(
        "numba_complex.sm80.ptx",
        json!({
            "grid": [n.div_ceil(64)], "block": [64],
            "buffers": {
                "a": { "type": "f32", "data": a }, "b": { "type": "f32", "data": b },
                "out": { "type": "f32", "len": 4 * n },
            },
            "args": numba_arrays(&[("a", &[n], 8), ("b", &[n], 8), ("out", &[2 * n], 8)]),
        }),
        vec![("out", Expected::F32Close(out))],
    )
}

/// Each of 16 slots ends with the index of some thread whose value falls in it (the first to
/// swap -1, whichever that was), or -1; the CAS ticket loop counts every thread; `atom.inc` and
/// `atom.dec` with limit 9 wrap: 203 increments from 0 leave 3, 203 decrements leave 7.
fn numba_atomic_cas_inc_dec(random: &mut Random) -> Case {
    let (n, slots) = (203usize, 16usize);
    let values = random.integers(n, 0, 1000);
    let owners = values.clone();
    let slots_check: Predicate = Box::new(move |actual: &[u64]| {
        for (slot, &bits) in actual.iter().enumerate() {
            let owner = bits as u32 as i32;
            let claimants: Vec<usize> =
                (0..owners.len()).filter(|&index| owners[index] as usize % slots == slot).collect();
            let right = if claimants.is_empty() { owner == -1 } else { claimants.contains(&(owner as usize)) };
            if !right {
                return Err(format!("slot {slot} holds {owner}, not one of the threads {claimants:?}"));
            }
        }
        Ok(())
    });
    Case::new(
        "numba_atomic_cas_inc_dec.sm80.ptx",
        json!({
            "grid": [n.div_ceil(64)], "block": [64],
            "buffers": {
                "values": { "type": "s32", "data": values }, "counters": { "type": "u32", "data": [0, 0, 0] },
                "slots": { "type": "s32", "data": vec![-1; slots] },
            },
            "args": numba_arrays(&[("values", &[n], 4), ("counters", &[3], 4), ("slots", &[slots], 4)]),
        }),
        vec![("counters", Expected::Bits(vec![n as u64, 3, 7])), ("slots", Expected::Satisfies(slots_check))],
    )
}

fn numba_block_votes(random: &mut Random) -> Case {
    let (blocks, threads) = (3usize, 64usize);
    let mut values = random.integers(threads, 1, 100);
    values.extend(random.integers(threads, -5, 5));
    values.extend(random.integers(threads, -100, 0));
    let mut out = Vec::new();
    for block in values.chunks(threads) {
        let positive = block.iter().filter(|&&value| value > 0).count() as i64;
        out.extend([positive, i64::from(positive == threads as i64), i64::from(positive > 0)]);
    }
    Case::new(
        "numba_block_votes.sm80.ptx",
        json!({
            "grid": [blocks], "block": [threads],
            "buffers": { "values": { "type": "s32", "data": values }, "out": { "type": "s32", "len": 3 * blocks } },
            "args": numba_arrays(&[("values", &[blocks * threads], 4), ("out", &[3 * blocks], 4)]),
        }),
        vec![("out", Expected::Bits(i32_bits(&out)))],
    )
}

/// Python's `//` and `%`: the quotient rounded toward minus infinity, the remainder with the
/// divisor's sign; on int64 and on the values truncated to int32.
fn numba_python_division(random: &mut Random) -> Case {
    let n = 200usize;
    let a: Vec<i64> = (0..n)
        .map(|index| {
            if index % 2 == 0 {
                random.integer(-1_000_000_000_000, 1_000_000_000_000)
            } else {
                random.integer(-50, 50)
            }
        })
        .collect();
    let b: Vec<i64> = (0..n)
        .map(|_| if random.integer(0, 1) == 0 { random.integer(1, 1000) } else { random.integer(-1000, -1) })
        .collect();
    let floor = |a: i64, b: i64| (a.div_euclid(b), a.rem_euclid(b));
    let python = |a: i64, b: i64| {
        let (quotient, remainder) = floor(a, b);
        // Euclid's remainder is never negative; Python's takes the divisor's sign.
        if remainder != 0 && b < 0 {
            (quotient - 1, remainder + b)
        } else {
            (quotient, remainder)
        }
    };
    let (quotient, remainder): (Vec<i64>, Vec<i64>) = a.iter().zip(&b).map(|(&a, &b)| python(a, b)).unzip();
    let narrow: Vec<i64> = a
        .iter()
        .zip(&b)
        .flat_map(|(&a, &b)| {
            let (quotient, remainder) = python(i64::from(a as i32), i64::from(b as i32));
            [quotient, remainder]
        })
        .collect();
    Case::new(
        "numba_python_division.sm80.ptx",
        json!({
            "grid": [n.div_ceil(64)], "block": [64],
            "buffers": {
                "a": { "type": "s64", "data": a }, "b": { "type": "s64", "data": b },
                "quotient": { "type": "s64", "len": n }, "remainder": { "type": "s64", "len": n },
                "narrow": { "type": "s32", "len": 2 * n },
            },
            "args": numba_arrays(&[("a", &[n], 8), ("b", &[n], 8), ("quotient", &[n], 8), ("remainder", &[n], 8),
                                   ("narrow", &[2 * n], 4)]),
        }),
        vec![
            ("quotient", Expected::Bits(i64_bits(&quotient))),
            ("remainder", Expected::Bits(i64_bits(&remainder))),
            ("narrow", Expected::Bits(i32_bits(&narrow))),
        ],
    )
}

fn cases() -> Vec<Case> {
    let mut random = Random(0x5eed_0015);
    vec![
        triton_math("triton_math.sm80.ptx"),
        triton_math("triton_math.sm90.ptx"),
        sort_histogram(&mut random, "triton_sort_histogram.sm80.ptx"),
        sort_histogram(&mut random, "triton_sort_histogram.sm90.ptx"),
        argmax_nan(&mut random),
        gather_int64(&mut random),
        randint4x(),
        inline_asm(&mut random),
        fp8(&mut random),
        tma_copy(&mut random),
        wide_row_sum(&mut random, "triton_row_sum_warps8.sm80.ptx", 1024, 8),
        wide_row_sum(&mut random, "triton_row_sum_warps8.sm90.ptx", 1024, 8),
        wide_row_sum(&mut random, "triton_row_sum_warps16.sm80.ptx", 2048, 16),
        grid_2d(&mut random),
        float_atomics(&mut random, "triton_float_atomics.sm80.ptx"),
        float_atomics(&mut random, "triton_float_atomics.sm90.ptx"),
        small_matmul(&mut random, "triton_small_matmul.sm75.ptx"),
        small_matmul(&mut random, "triton_small_matmul.sm70.ptx"),
        triton_print_assert(random.integers(64, 0, 1_000_000)),
        numba_math(),
        numba_float64_math(),
        numba_print(),
        numba_random(&mut random),
        numba_const_array(&mut random),
        numba_grid_2d(&mut random),
        numba_complex(&mut random),
        numba_atomic_cas_inc_dec(&mut random),
        numba_block_votes(&mut random),
        numba_python_division(&mut random),
    ]
}

/// Runs every case on `target`; returns the number of runs and the problems.
fn run_all(target: &str) -> (usize, Vec<String>) {
    let mut runs = 0;
    let mut problems = Vec::new();
    for case in cases() {
        runs += 1;
        match run(case.file, &case.spec, target) {
            Err(message) => problems.push(format!("{} on {target}: failed: {message:.600}", case.file)),
            Ok((printed, result)) => {
                problems.extend(
                    compare(&result, &case.expected)
                        .into_iter()
                        .map(|problem| format!("{} on {target}: {problem}", case.file)),
                );
                let mut lines: Vec<&str> = printed.lines().collect();
                lines.sort_unstable();
                let mut want: Vec<&str> = case.printed.iter().map(String::as_str).collect();
                want.sort_unstable();
                if lines != want {
                    problems.push(format!("{} on {target}: printed {lines:?}, the model says {want:?}", case.file));
                }
            }
        }
    }
    (runs, problems)
}

#[test]
fn language_feature_kernels_match_their_models_on_the_cpu() {
    let (runs, problems) = run_all("cpu");
    assert_eq!(runs, 29);
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn language_feature_kernels_match_their_models_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    let (runs, problems) = run_all("spirv");
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

/// A negative value fails `tl.device_assert`: the launch fails, on the CPU with CUDA's message
/// (Triton's text and the thread), on OpenCL without it (it stays on the device).
#[test]
fn a_failed_device_assert_fails_the_launch() {
    let mut x: Vec<i64> = (0..64).collect();
    x[40] = -5;
    let case = triton_print_assert(x);
    let mut targets = vec![("cpu", "Assertion `x is negative` failed")];
    if opencl_device_available() {
        targets.push(("spirv", "failed an assertion"));
    }
    for (target, message) in targets {
        match run(case.file, &case.spec, target) {
            Ok(_) => panic!("{target}: the launch succeeded"),
            Err(stderr) => assert!(stderr.contains(message), "{target}: {stderr}"),
        }
    }
}

/// The fp8 model against values the formats define (OCP FP8: e4m3's largest finite value 448,
/// e5m2's 57344, the smallest subnormals 2^-9 and 2^-16), so that the kernel's check rests on
/// a right model.
#[test]
fn the_float8_model_rounds_as_the_formats_define() {
    assert_eq!(float8(448.0, 4, 3, 448.0), (0x7e, 448.0));
    assert_eq!(float8(1e6, 4, 3, 448.0), (0x7e, 448.0));
    assert_eq!(float8(-1.0, 4, 3, 448.0), (0xb8, -1.0));
    assert_eq!(float8(2f32.powi(-9), 4, 3, 448.0), (0x01, 2f64.powi(-9)));
    // Halfway between 1 and 1.125: to even (1).
    assert_eq!(float8(1.0625, 4, 3, 448.0), (0x38, 1.0));
    assert_eq!(float8(57344.0, 5, 2, 57344.0), (0x7b, 57344.0));
    assert_eq!(float8(2f32.powi(-16), 5, 2, 57344.0), (0x01, 2f64.powi(-16)));
    assert_eq!(float8(1.5, 5, 2, 57344.0), (0x3e, 1.5));
    assert!((erf(1.0) - 0.842_700_792_949_714_9).abs() < 1e-15);
}
