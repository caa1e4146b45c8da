//! Runs whole launches (spec text to result JSON) with hand-written Rust block entries standing in
//! for compiled kernels, and checks the results against values computed here independently.

use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

use ptxr_runtime::{prepare, BlockContext, KernelSignature, LaunchSpec, ParamLayout, PreparedLaunch, RuntimeError};

fn signature(name: &str, params: &[(&str, u32)]) -> KernelSignature {
    KernelSignature {
        static_shared_bytes: 0,
        name: name.into(),
        params: params
            .iter()
            .map(|&(name, size_bytes)| ParamLayout { name: name.into(), size_bytes, align_bytes: size_bytes.min(16) })
            .collect(),
    }
}

fn prepared(text: &str, kernel: &KernelSignature) -> PreparedLaunch {
    let spec = LaunchSpec::from_json(text).unwrap_or_else(|error| panic!("spec: {error}"));
    prepare(&spec, Path::new("."), kernel).unwrap_or_else(|error| panic!("prepare: {error}"))
}

/// Reads kernel parameter `index` as a `T` (the runtime packs each one aligned for any scalar).
///
/// # Safety
///
/// `params` must be a launch's parameter array with at least `index + 1` entries, entry `index`
/// holding a `T`.
unsafe fn parameter<T: Copy>(params: *const *const u8, index: usize) -> T {
    unsafe { (*params.add(index)).cast::<T>().read() }
}

/// `out[i] = in[i] * 2` for `i < n`, one element per thread: params (u64 in, u64 out, u32 n).
unsafe extern "C" fn double_floats(params: *const *const u8, context: *const BlockContext) {
    let context = unsafe { &*context };
    let input = unsafe { parameter::<u64>(params, 0) } as *const f32;
    let output = unsafe { parameter::<u64>(params, 1) } as *mut f32;
    let count = unsafe { parameter::<u32>(params, 2) };
    for thread in 0..context.ntid[0] {
        let index = context.ctaid[0] * context.ntid[0] + thread;
        if index < count {
            unsafe { *output.add(index as usize) = *input.add(index as usize) * 2.0 };
        }
    }
}

#[test]
fn doubles_floats_over_several_blocks() {
    let count = 300u32;
    let inputs: Vec<f32> = (0..count).map(|index| index as f32 * 0.25 - 17.5).collect();
    let data: Vec<String> = inputs.iter().map(|value| format!("{value:?}")).collect();
    let text = format!(
        r#"{{"kernel": "double", "grid": [5], "block": [64, 1, 1],
            "buffers": {{"in": {{"type": "f32", "data": [{}]}}, "out": {{"type": "f32", "len": 320}}}},
            "args": [{{"buffer": "in"}}, {{"buffer": "out"}}, {{"type": "u32", "value": {count}}}]}}"#,
        data.join(", ")
    );
    let kernel = signature("double", &[("input", 8), ("output", 8), ("n", 4)]);
    let mut launch = prepared(&text, &kernel);
    launch.set_worker_threads(NonZeroUsize::new(3).expect("3 is not 0"));
    let report = unsafe { launch.run(double_floats) }.expect("runs");
    let output: Vec<f32> = report
        .buffer_bytes("out")
        .expect("out exists")
        .chunks_exact(4)
        .map(|bytes| f32::from_le_bytes(bytes.try_into().expect("4 bytes")))
        .collect();
    assert_eq!(output.len(), 320);
    for (index, value) in output.iter().enumerate() {
        let expected = if index < count as usize { inputs[index] * 2.0 } else { 0.0 };
        assert_eq!(value.to_bits(), expected.to_bits(), "out[{index}]");
    }

    let json: serde_json::Value = serde_json::from_str(&report.to_json(None).expect("no files")).expect("valid JSON");
    assert_eq!(json["kernel"], "double");
    let names: Vec<&String> = json["buffers"].as_object().expect("buffers object").keys().collect();
    assert_eq!(names, ["in", "out"]);
    let out_data = json["buffers"]["out"]["data"].as_array().expect("data array");
    assert_eq!(out_data[3].as_f64(), Some(f64::from(inputs[3] * 2.0)));
    assert_eq!(json["buffers"]["out"]["bits"][0], "0xc20c0000"); // -35.0
    assert!(json["elapsed_ms"].as_f64().is_some_and(|milliseconds| milliseconds >= 0.0));
}

/// Records which block ran: `out[linear block index] = 1 + x + 10 y + 100 z` and counts runs in
/// `runs[linear]`; also checks `nctaid`/`ntid` against params (u64 out, u64 runs).
unsafe extern "C" fn record_blocks(params: *const *const u8, context: *const BlockContext) {
    let context = unsafe { &*context };
    let output = unsafe { parameter::<u64>(params, 0) } as *mut u32;
    let runs = unsafe { parameter::<u64>(params, 1) } as *const AtomicU32;
    let [x, y, z] = context.ctaid;
    let [grid_x, grid_y, _] = context.nctaid;
    let linear = (x + grid_x * (y + grid_y * z)) as usize;
    let shape_ok = context.nctaid == [3, 4, 5] && context.ntid == [2, 3, 4];
    let marker = if shape_ok { 1 + x + 10 * y + 100 * z } else { u32::MAX };
    unsafe {
        *output.add(linear) = marker;
        (*runs.add(linear)).fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn every_block_of_a_3d_grid_runs_once() {
    let kernel = signature("record", &[("out", 8), ("runs", 8)]);
    let mut launch = prepared(
        r#"{"grid": [3, 4, 5], "block": [2, 3, 4],
            "buffers": {"out": {"type": "u32", "len": 60}, "runs": {"type": "u32", "len": 60}},
            "args": [{"buffer": "out"}, {"buffer": "runs"}]}"#,
        &kernel,
    );
    let report = unsafe { launch.run(record_blocks) }.expect("runs");
    let words = |name: &str| -> Vec<u32> {
        report
            .buffer_bytes(name)
            .expect("buffer exists")
            .chunks_exact(4)
            .map(|bytes| u32::from_le_bytes(bytes.try_into().expect("4 bytes")))
            .collect()
    };
    let mut expected = Vec::new();
    for z in 0..5 {
        for y in 0..4 {
            for x in 0..3 {
                expected.push(1 + x + 10 * y + 100 * z);
            }
        }
    }
    assert_eq!(words("out"), expected);
    assert_eq!(words("runs"), vec![1; 60]);
}

/// Checks that the block's dynamic shared memory is 256-aligned, as large as the context says and
/// zero, then dirties it: `ok[block] = 1` when all held (params: u64 ok).
unsafe extern "C" fn check_shared_memory(params: *const *const u8, context: *const BlockContext) {
    let context = unsafe { &*context };
    let ok = unsafe { parameter::<u64>(params, 0) } as *mut u8;
    let bytes = context.dynamic_shared_bytes as usize;
    let shared = unsafe { std::slice::from_raw_parts_mut(context.shared, bytes) };
    let good = context.shared as usize % 256 == 0 && bytes == 1000 && shared.iter().all(|&byte| byte == 0);
    shared.fill(0xa5);
    unsafe { *ok.add(context.ctaid[0] as usize) = u8::from(good) };
}

#[test]
fn dynamic_shared_memory_is_aligned_and_zero_for_every_block() {
    let kernel = signature("shared", &[("ok", 8)]);
    let mut launch = prepared(
        r#"{"grid": 40, "block": 32, "shared_bytes": 1000,
            "buffers": {"ok": {"type": "u8", "len": 40}}, "args": [{"buffer": "ok"}]}"#,
        &kernel,
    );
    // Two workers for 40 blocks: each worker reuses its shared memory many times.
    launch.set_worker_threads(NonZeroUsize::new(2).expect("2 is not 0"));
    let report = unsafe { launch.run(check_shared_memory) }.expect("runs");
    assert_eq!(report.buffer_bytes("ok"), Some(&[1u8; 40][..]));
}

/// `counter[0] += 1` from the single thread of a single block (params: u64 counter).
unsafe extern "C" fn increment(params: *const *const u8, _context: *const BlockContext) {
    let counter = unsafe { parameter::<u64>(params, 0) } as *mut u64;
    unsafe { *counter += 1 };
}

#[test]
fn buffers_persist_across_runs_but_not_under_a_live_report() {
    let kernel = signature("increment", &[("counter", 8)]);
    let mut launch = prepared(
        r#"{"buffers": {"counter": {"type": "u64", "data": [41]}}, "args": [{"buffer": "counter"}]}"#,
        &kernel,
    );
    let report = unsafe { launch.run(increment) }.expect("runs");
    assert_eq!(report.buffer_bytes("counter"), Some(&42u64.to_le_bytes()[..]));
    assert!(matches!(unsafe { launch.run(increment) }, Err(RuntimeError::BuffersInUse)));
    drop(report);
    let report = unsafe { launch.run(increment) }.expect("runs again");
    assert_eq!(report.buffer_bytes("counter"), Some(&43u64.to_le_bytes()[..]));
    drop(report);
    assert_eq!(launch.buffer_bytes("counter"), Some(&43u64.to_le_bytes()[..]));
}

/// Copies `count` f32 bit patterns from in to out (params: u64 in, u64 out; count = ntid.x).
unsafe extern "C" fn copy_words(params: *const *const u8, context: *const BlockContext) {
    let context = unsafe { &*context };
    let input = unsafe { parameter::<u64>(params, 0) } as *const u32;
    let output = unsafe { parameter::<u64>(params, 1) } as *mut u32;
    for thread in 0..context.ntid[0] as usize {
        unsafe { *output.add(thread) = *input.add(thread) };
    }
}

#[test]
fn special_floats_keep_their_bits_through_a_launch() {
    let kernel = signature("copy", &[("input", 8), ("output", 8)]);
    let mut launch = prepared(
        r#"{"block": [5], "buffers": {
              "out": {"type": "f32", "len": 5},
              "in": {"type": "f32", "bits": ["0x7fc00001", "0xffc00000", "0x80000000", "0x7f800000", "3f800000"]}},
            "args": [{"buffer": "in"}, {"buffer": "out"}]}"#,
        &kernel,
    );
    let report = unsafe { launch.run(copy_words) }.expect("runs");
    let text = report.to_json(None).expect("no files");
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let out = &json["buffers"]["out"];
    assert_eq!(out["bits"], serde_json::json!(["0x7fc00001", "0xffc00000", "0x80000000", "0x7f800000", "0x3f800000"]));
    assert_eq!(out["data"], serde_json::json!(["NaN", "NaN", -0.0, "inf", 1.0]));
    // Output order is the spec's: "out" before "in".
    assert!(text.find("\"out\"") < text.find("\"in\""), "{text}");
}

#[test]
fn a_wrong_argument_count_stops_before_anything_runs() {
    let spec = LaunchSpec::from_json(r#"{"buffers": {"in": {"type": "u8", "len": 1}}, "args": [{"buffer": "in"}]}"#)
        .expect("valid spec");
    let kernel = signature("copy", &[("input", 8), ("output", 8)]);
    let message = prepare(&spec, Path::new("."), &kernel).map(|_| ()).expect_err("refused").to_string();
    assert_eq!(message, "kernel `copy` has 2 parameters but `args` gives 1");
}
