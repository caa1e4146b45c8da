//! Kernels whose PTX uses forms newer than ISA 7.8, as real compilers write them
//! (`tests/fixtures/ptx/`, see its README): Hopper's DPX and packed 16-bit SIMD intrinsics
//! (`add.u16x2`, `max.s16x2`, `min.relu.s32`, ISA 8.0, from nvcc and clang at sm_90 and
//! sm_100, and the bit arithmetic nvcc writes for the same source at sm_80), Triton's online
//! softmax, whose row maxima are `max.f32` of three sources at sm_120 (ISA 8.8), and libcu++'s
//! `atomic_ref` under nvcc's `-G` at sm_90 (`isspacep.shared::cluster`). Each runs through
//! `ptxr run` on the CPU, and on SPIR-V through OpenCL when a device is there, against a Rust
//! model of its source.

use serde_json::{json, Value};

mod support;
use support::fixture_kernels::{run_cases, with_scratch, Case, Expected, Random};
use support::opencl_device_available;

fn buffers(names: &[&str]) -> Vec<Value> {
    names.iter().map(|name| json!({ "buffer": name })).collect()
}

/// The two 16-bit lanes of a word, low first.
fn lanes(word: u32) -> [u16; 2] {
    [word as u16, (word >> 16) as u16]
}

/// A word from `lane` applied to the lanes of the words `sources`, low lane first.
fn per_lane<const N: usize>(sources: [u32; N], lane: impl Fn([u16; N]) -> u16) -> u32 {
    let pick = |index: usize| lane(sources.map(|word| lanes(word)[index]));
    u32::from(pick(0)) | u32::from(pick(1)) << 16
}

/// `per_lane` on signed lanes.
fn per_signed_lane<const N: usize>(sources: [u32; N], lane: impl Fn([i16; N]) -> i16) -> u32 {
    per_lane(sources, |values| lane(values.map(|value| value as i16)) as u16)
}

/// The 24 outputs of `dpx_ops` for one thread, from CUDA's documentation of each intrinsic:
/// `__vimax3_s32(a, b, c)` is `max(a, b, c)` signed, `__viaddmax_s32(a, b, c)` is
/// `max(a + b, c)` with a wrapping sum, `_relu` clamps at 0, `__vibmax_s32(a, b, &p)` sets `p`
/// when `a >= b` (`__vibmin_u32` when `a <= b`), and the `16x2` forms do the same per lane.
fn dpx_model(a: u32, b: u32, c: u32) -> [u32; 24] {
    let (sa, sb, sc) = (a as i32, b as i32, c as i32);
    let sum = a.wrapping_add(b) as i32;
    let [a_low, a_high] = lanes(a).map(|lane| lane as i16);
    let [b_low, b_high] = lanes(b).map(|lane| lane as i16);
    let [ua_low, ua_high] = lanes(a);
    let [ub_low, ub_high] = lanes(b);
    [
        sa.max(sb).max(sc) as u32,
        a.min(b).min(c),
        sa.max(sb).max(0) as u32,
        sa.min(sb).min(sc).max(0) as u32,
        sum.max(sc) as u32,
        a.wrapping_add(b).min(c),
        sum.max(sc).max(0) as u32,
        (sa.max(sb) as u32).wrapping_add(u32::from(sa >= sb)),
        a.min(b).wrapping_add(u32::from(a <= b)),
        per_signed_lane([a, b, c], |[x, y, z]| x.max(y).max(z)),
        per_lane([a, b, c], |[x, y, z]| x.min(y).min(z)),
        per_signed_lane([a, b], |[x, y]| x.max(y).max(0)),
        per_signed_lane([a, b, c], |[x, y, z]| x.wrapping_add(y).max(z)),
        per_lane([a, b, c], |[x, y, z]| x.wrapping_add(y).min(z)),
        per_signed_lane([a, b, c], |[x, y, z]| x.wrapping_add(y).min(z).max(0)),
        per_signed_lane([a, b], |[x, y]| x.max(y))
            .wrapping_add(2 * u32::from(a_high >= b_high) + u32::from(a_low >= b_low)),
        per_lane([a, b], |[x, y]| x.min(y))
            .wrapping_add(2 * u32::from(ua_high <= ub_high) + u32::from(ua_low <= ub_low)),
        per_lane([a, b], |[x, y]| x.wrapping_sub(y)),
        per_lane([a, b], |[x, y]| x.wrapping_add(y)),
        per_signed_lane([a, b], |[x, y]| x.max(y)),
        per_lane([a, b], |[x, y]| x.min(y)),
        per_signed_lane([a, b], |[x, y]| x.saturating_sub(y)),
        per_lane([a, b], |[x, y]| x.saturating_add(y)),
        per_signed_lane([a], |[x]| x.wrapping_neg()) ^ per_signed_lane([b], |[y]| y.wrapping_abs()),
    ]
}

/// `dpx_ops` on words with edge lanes (0, ±1, the 16- and 32-bit extremes) a fifth of the time.
fn dpx_ops(random: &mut Random) -> Case {
    const EDGES: [u32; 9] =
        [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x7fff_7fff, 0x8000_8000, 0x0001_8000, 0xffff_0001];
    let n = 200;
    let mut word = || {
        if random.integer(0, 4) == 0 {
            EDGES[random.integer(0, EDGES.len() as i64 - 1) as usize]
        } else {
            random.next_u32()
        }
    };
    let (a, b, c): (Vec<u32>, Vec<u32>, Vec<u32>) = (0..n).map(|_| (word(), word(), word())).fold(
        (Vec::new(), Vec::new(), Vec::new()),
        |(mut a, mut b, mut c), (x, y, z)| {
            a.push(x);
            b.push(y);
            c.push(z);
            (a, b, c)
        },
    );
    let expected: Vec<u64> = (0..n).flat_map(|index| dpx_model(a[index], b[index], c[index])).map(u64::from).collect();
    Case {
        files: &[
            "dpx_simd.nvcc.sm80.ptx",
            "dpx_simd.nvcc.sm90.ptx",
            "dpx_simd.nvcc.sm100.ptx",
            "dpx_simd.clang.sm90.ptx",
        ],
        spec: json!({
            "kernel": "dpx_ops", "grid": [4], "block": [64],
            "buffers": {
                "a": { "type": "u32", "data": a }, "b": { "type": "u32", "data": b },
                "c": { "type": "u32", "data": c }, "out": { "type": "u32", "len": 24 * n },
            },
            "args": [
                { "buffer": "a" }, { "buffer": "b" }, { "buffer": "c" }, { "buffer": "out" },
                { "type": "s32", "value": n },
            ],
        }),
        expected: vec![("out", Expected::Bits(expected))],
    }
}

/// Triton's `online_softmax_kernel`: each row's softmax over 200 columns in tiles of 64, the
/// running maximum rescaling the running sum. Triton's `exp` is `ex2.approx`, so the model
/// (in `f64`) is met within a tolerance.
fn online_softmax(random: &mut Random) -> Case {
    let (rows, columns) = (6usize, 200usize);
    let x: Vec<f32> = (0..rows * columns).map(|_| random.integer(-64, 64) as f32 / 16.0).collect();
    let mut softmax = Vec::with_capacity(x.len());
    for row in x.chunks(columns) {
        let maximum = row.iter().fold(f64::NEG_INFINITY, |maximum, &value| maximum.max(f64::from(value)));
        let total: f64 = row.iter().map(|&value| (f64::from(value) - maximum).exp()).sum();
        softmax.extend(row.iter().map(|&value| ((f64::from(value) - maximum).exp() / total) as f32));
    }
    Case {
        files: &["triton_online_softmax.sm80.ptx", "triton_online_softmax.sm120.ptx"],
        spec: json!({
            "grid": [rows], "block": [64], "shared_bytes": 8,
            "buffers": { "x": { "type": "f32", "data": x }, "out": { "type": "f32", "len": rows * columns } },
            "args": with_scratch({
                let mut args = buffers(&["x", "out"]);
                args.push(json!({ "type": "s32", "value": columns }));
                args
            }),
        }),
        expected: vec![("out", Expected::F32Near(softmax, 2e-5))],
    }
}

/// Triton's `int8_dot_kernel`: a 32 x 32 product of `s8` matrices accumulated in `s32`
/// (`mma.m16n8k32.s32.s8.s8.s32` at sm_80), exact.
fn int8_dot(random: &mut Random) -> Case {
    let size = 32usize;
    let a = random.integers(size * size, -128, 127);
    let b = random.integers(size * size, -128, 127);
    let c: Vec<u64> = (0..size * size)
        .map(|i| (0..size).map(|k| a[i / size * size + k] * b[k * size + i % size]).sum::<i64>() as i32 as u32)
        .map(u64::from)
        .collect();
    Case {
        files: &["triton_int8_dot.sm80.ptx"],
        spec: json!({
            "grid": [1], "block": [128], "shared_bytes": 4096,
            "buffers": {
                "a": { "type": "s8", "data": a }, "b": { "type": "s8", "data": b },
                "c": { "type": "s32", "len": size * size },
            },
            "args": with_scratch(buffers(&["a", "b", "c"])),
        }),
        expected: vec![("c", Expected::Bits(c))],
    }
}

/// `block_sum_by_atomic_ref`: each block sums its grid-stride share of the values through a
/// `cuda::atomic_ref` on a `__shared__` total, then adds it to the global total.
fn block_sum_by_atomic_ref(random: &mut Random) -> Case {
    let n = 1000;
    let values = random.integers(n, -1000, 1000);
    let total = values.iter().sum::<i64>() as i32 as u32;
    Case {
        files: &["atomic_ref_debug.nvcc.sm90.debug.ptx"],
        spec: json!({
            "kernel": "block_sum_by_atomic_ref", "grid": [3], "block": [128],
            "buffers": { "values": { "type": "s32", "data": values }, "totals": { "type": "s32", "len": 1 } },
            "args": [{ "buffer": "values" }, { "buffer": "totals" }, { "type": "s32", "value": n }],
        }),
        expected: vec![("totals", Expected::Bits(vec![u64::from(total)]))],
    }
}

fn cases() -> Vec<Case> {
    let mut random = Random(0x5eed_0880);
    vec![dpx_ops(&mut random), online_softmax(&mut random), int8_dot(&mut random), block_sum_by_atomic_ref(&mut random)]
}

#[test]
fn newer_forms_match_their_models_on_the_cpu() {
    let (runs, problems) = run_cases(cases(), "cpu", &[]);
    assert!(runs >= 8, "expected every fixture of every case, ran {runs}");
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn newer_forms_match_their_models_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    let (runs, problems) = run_cases(cases(), "spirv", &[]);
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}
