//! CUB's device-wide inclusive sum (`cub::DeviceScan::InclusiveSum`, nvcc 13.5 and CCCL 3.3,
//! `tests/fixtures/ptx/cub_device_scan.nvcc.sm80.ptx`) run end to end as CUB's host code runs it:
//! the tile-state init kernel, then the single-pass decoupled look-back scan kernel, as two
//! `ptxr run` invocations chained through `--dump-dir` and a `file` buffer. Both kernels take
//! CUB's tile state by value (`.param .align 8 .b8 ..._param[16]`, a pointer to the tile
//! descriptors and padding), passed with the launch spec's aggregate arguments. The result is
//! checked against prefix sums computed here, on the CPU and, where an OpenCL device is found,
//! on SPIR-V.

use std::path::Path;

use serde_json::{json, Value};

mod support;
use support::fixture_kernels::{fixture, Random};
use support::{opencl_device_available, ptxr, scratch};

const FIXTURE: &str = "cub_device_scan.nvcc.sm80.ptx";
/// CUB's policy for `unsigned` on sm_80: 320 threads of 12 items, and 32 padding tile
/// descriptors (`TILE_STATUS_PADDING`) before the first tile's.
const SCAN_THREADS: usize = 320;
const TILE_ITEMS: usize = 3840;
const INIT_THREADS: usize = 128;
const TILE_PADDING: usize = 32;

/// The `.entry` of the fixture whose mangled name contains `part`.
fn kernel_named(part: &str) -> String {
    let text = std::fs::read_to_string(fixture(FIXTURE)).expect("the fixture is there");
    text.lines()
        .filter_map(|line| line.strip_prefix(".visible .entry "))
        .map(|rest| rest.trim_end_matches('(').to_owned())
        .find(|name| name.contains(part))
        .unwrap_or_else(|| panic!("no kernel named like {part} in {FIXTURE}"))
}

/// Runs the fixture with `spec` (written to `directory`), its buffers dumped into `dump`.
fn run(directory: &Path, spec: &Value, dump: &str, target: &str) -> Result<Value, String> {
    let name = format!("{dump}.json");
    std::fs::write(directory.join(&name), spec.to_string()).expect("the spec is written");
    let path = fixture(FIXTURE);
    let path = path.to_string_lossy();
    let output = ptxr(&["run", path.as_ref(), "--launch", &name, "--dump-dir", dump, "--target", target], directory);
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("{error}: {}", String::from_utf8_lossy(&output.stdout)))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]])).collect()
}

/// Scans `count` random words on `target` and compares with the model.
fn inclusive_sum(count: usize, target: &str) {
    let directory = scratch();
    let directory = directory.path();
    let mut random = Random(0x5ca7_0000 + count as u64);
    let input: Vec<u32> = (0..count).map(|_| random.next_u32()).collect();
    let bytes: Vec<u8> = input.iter().flat_map(|value| value.to_le_bytes()).collect();
    std::fs::write(directory.join("input.bin"), bytes).expect("the input is written");
    let tiles = count.div_ceil(TILE_ITEMS);

    // The tile state: a pointer to the descriptors (status and value words), padded to 16 bytes.
    let tile_state = json!({ "fields": [{ "buffer": "tiles" }] });
    let init = json!({
        "kernel": kernel_named("DeviceScanInitKernel"),
        "grid": [tiles.div_ceil(INIT_THREADS)],
        "block": [INIT_THREADS],
        "buffers": { "tiles": { "type": "u64", "len": TILE_PADDING + tiles } },
        "args": [tile_state, { "type": "s32", "value": tiles }],
    });
    run(directory, &init, "init", target).unwrap_or_else(|error| panic!("the init kernel on {target}: {error}"));

    let scan = json!({
        "kernel": kernel_named("DeviceScanKernel"),
        "grid": [tiles],
        "block": [SCAN_THREADS],
        "buffers": {
            "input": { "type": "u32", "file": "input.bin" },
            "output": { "type": "u32", "len": count },
            "tiles": { "type": "u64", "file": "init/tiles.bin" },
        },
        "args": [
            { "buffer": "input" },
            { "buffer": "output" },
            tile_state,
            { "type": "u32", "value": 0 },
            // cuda::std::plus<> and cub::NullType: empty structs, one byte each.
            { "bytes": ["0x00"] },
            { "bytes": [0] },
            { "type": "u32", "value": count },
            { "type": "u32", "value": 0 },
        ],
    });
    run(directory, &scan, "scan", target).unwrap_or_else(|error| panic!("the scan kernel on {target}: {error}"));

    let output = words(&std::fs::read(directory.join("scan/output.bin")).expect("the output was dumped"));
    let expected: Vec<u32> = input
        .iter()
        .scan(0u32, |sum, &value| {
            *sum = sum.wrapping_add(value);
            Some(*sum)
        })
        .collect();
    assert_eq!(output.len(), count);
    if let Some(first) = (0..count).find(|&index| output[index] != expected[index]) {
        panic!("on {target}, output[{first}] is {:#x}, the model's {:#x}", output[first], expected[first]);
    }
    // Every tile but the last published its inclusive prefix, for the tiles after it to look
    // back on: CUB's SCAN_TILE_INCLUSIVE (101, after OOB 0, INVALID 99 and PARTIAL 100) in the
    // low word, the prefix through its last item in the high word. (The last tile publishes
    // nothing when it is also the first, and a partial one's aggregate counts the copies of its
    // first item that CUB's partial load pads it with; nothing reads either.)
    let descriptors = words(&std::fs::read(directory.join("scan/tiles.bin")).expect("the tiles were dumped"));
    for tile in 0..tiles - 1 {
        let descriptor = &descriptors[2 * (TILE_PADDING + tile)..][..2];
        let last_item = TILE_ITEMS * (tile + 1) - 1;
        assert_eq!(descriptor, [101, expected[last_item]], "on {target}, tile {tile}'s descriptor");
    }
}

#[test]
fn cub_device_inclusive_sum_matches_the_model_on_the_cpu() {
    // Three tiles, the last partial, so that tiles look back over published prefixes; and one.
    inclusive_sum(2 * TILE_ITEMS + 1000, "cpu");
    inclusive_sum(100, "cpu");
}

#[test]
fn a_tile_state_of_the_wrong_size_is_refused_before_launch() {
    let directory = scratch();
    let spec = json!({
        "kernel": kernel_named("DeviceScanInitKernel"),
        "buffers": { "tiles": { "type": "u64", "len": 33 } },
        "args": [{ "bytes": [0, 0, 0, 0, 0, 0, 0, 0] }, { "type": "s32", "value": 1 }],
    });
    let error = run(directory.path(), &spec, "init", "cpu").expect_err("an 8-byte tile state is refused");
    assert!(error.contains("is 16 bytes but 8 bytes were given"), "{error}");
    assert!(!directory.path().join("init").exists(), "nothing is dumped");
}

#[test]
fn cub_device_inclusive_sum_matches_the_model_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    // The tile state reaches the kernel as a `byval` struct argument whose pointer field the
    // runner moves to the tiles' SVM copy.
    inclusive_sum(2 * TILE_ITEMS + 1000, "spirv");
}
