//! Cooperative launches (`"cooperative": true` in the launch spec): cooperative groups'
//! `this_grid().sync()` compiled by nvcc and clang (`tests/fixtures/ptx/grid_sync.*.ptx`, source
//! `src/grid_sync.cu`) runs on the CPU against a model, and the launches that cannot work say why:
//! the same kernel launched plainly (it traps, as on CUDA), a grid beyond the cooperative limit,
//! and `--target spirv`.

use serde_json::{json, Value};

mod support;
use support::fixture_kernels::{bits_of, fixture, run, Random};
use support::{ptxr, scratch};

const GRID_SYNC: &[&str] = &["grid_sync.nvcc.sm80.ptx", "grid_sync.clang.sm80.ptx"];

/// The spec of `grid_mirror` over `input`, on a grid of `grid` blocks of `block` threads.
fn grid_mirror_spec(input: &[i32], grid: [u32; 3], block: [u32; 3], cooperative: bool) -> Value {
    let n = input.len();
    json!({
        "kernel": "grid_mirror", "grid": grid, "block": block, "cooperative": cooperative,
        "buffers": {
            "in": { "type": "s32", "data": input },
            "stage": { "type": "s32", "len": n },
            "out": { "type": "s32", "len": n },
        },
        "args": [{ "buffer": "in" }, { "buffer": "stage" }, { "buffer": "out" }],
    })
}

/// The source's three phases over the whole grid, each finished before the next begins (what
/// the grid barrier guarantees): `stage` then `out` as the kernel leaves them.
fn grid_mirror_model(input: &[i32], block_x: usize) -> (Vec<i32>, Vec<i32>) {
    let n = input.len();
    let first: Vec<i32> = input.iter().map(|&value| value.wrapping_mul(3).wrapping_add(1)).collect();
    let second: Vec<i32> = (0..n).map(|i| first[n - 1 - i].wrapping_add(i as i32)).collect();
    let out = (0..n).map(|i| second[(i + block_x) % n]).collect();
    (second, out)
}

fn s32_bits(values: &[i32]) -> Vec<u64> {
    values.iter().map(|&value| u64::from(value as u32)).collect()
}

#[test]
fn grid_sync_kernels_match_the_model_on_a_cooperative_launch() {
    // 12 blocks on a 3-D grid: more blocks than this machine has cores, so without every block
    // resident at once the first grid.sync() would never complete; each block's second phase
    // reads what blocks at the far end of the grid wrote in the first.
    let (grid, block) = ([3, 2, 2], [32, 2, 1]);
    let n = 12 * 64;
    let mut random = Random(0x5eed_c00b);
    let input: Vec<i32> = (0..n).map(|_| random.integer(-100_000, 100_000) as i32).collect();
    let (stage, out) = grid_mirror_model(&input, 32);
    for file in GRID_SYNC {
        let result = run(file, &grid_mirror_spec(&input, grid, block, true), "cpu")
            .unwrap_or_else(|error| panic!("{file}: {error}"));
        assert_eq!(bits_of(&result, "stage"), s32_bits(&stage), "{file}: stage");
        assert_eq!(bits_of(&result, "out"), s32_bits(&out), "{file}: out");
    }
}

#[test]
fn grid_sync_works_for_one_block_and_for_many_small_ones() {
    // One block (block 0 alone flips the barrier's top bit) and 40 blocks of one warp.
    for (grid, block) in [([1, 1, 1], [128, 1, 1]), ([40, 1, 1], [32, 1, 1])] {
        let n = (grid[0] * block[0]) as usize;
        let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - 300).collect();
        let (stage, out) = grid_mirror_model(&input, block[0] as usize);
        for file in GRID_SYNC {
            let result = run(file, &grid_mirror_spec(&input, grid, block, true), "cpu")
                .unwrap_or_else(|error| panic!("{file} on {grid:?}: {error}"));
            assert_eq!(bits_of(&result, "stage"), s32_bits(&stage), "{file} on {grid:?}: stage");
            assert_eq!(bits_of(&result, "out"), s32_bits(&out), "{file} on {grid:?}: out");
        }
    }
}

/// Runs `file` with `spec` on `target` and returns the exit status's success, stdout, stderr.
fn run_raw(file: &str, spec: &Value, target: &str) -> (bool, String, String) {
    let directory = scratch();
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).expect("the spec written");
    let path = fixture(file);
    let output = ptxr(&["run", &path.to_string_lossy(), "--launch", "spec.json", "--target", target], directory.path());
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn a_plain_launch_of_a_grid_sync_kernel_traps_and_says_to_launch_it_cooperatively() {
    let input: Vec<i32> = (0..128).collect();
    for file in GRID_SYNC {
        let (succeeded, stdout, stderr) = run_raw(file, &grid_mirror_spec(&input, [2, 1, 1], [64, 1, 1], false), "cpu");
        assert!(!succeeded, "{file}: a plain launch ran: {stdout}");
        assert!(stdout.is_empty(), "{file}: output of a failed launch: {stdout}");
        assert!(stderr.contains("executed `trap`"), "{file}: {stderr}");
        assert!(stderr.contains("\"cooperative\": true"), "{file}: {stderr}");
    }
}

#[test]
fn a_cooperative_grid_beyond_the_limit_is_refused_before_launch() {
    let input: Vec<i32> = (0..1025).collect();
    let (succeeded, stdout, stderr) =
        run_raw(GRID_SYNC[0], &grid_mirror_spec(&input, [1025, 1, 1], [1, 1, 1], true), "cpu");
    assert!(!succeeded && stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("cooperative: a cooperative launch runs every block at once, at most 1024 blocks"),
        "{stderr}"
    );
    assert!(stderr.contains("the grid has 1025"), "{stderr}");
    assert!(stderr.contains("cudaErrorCooperativeLaunchTooLarge"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn cooperative_launches_on_spirv_are_refused_naming_the_target() {
    // Refused before any device is looked for, so this holds without an OpenCL device.
    let input: Vec<i32> = (0..64).collect();
    let (succeeded, stdout, stderr) =
        run_raw(GRID_SYNC[0], &grid_mirror_spec(&input, [2, 1, 1], [32, 1, 1], true), "spirv");
    assert!(!succeeded && stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("unsupported: cooperative launch (grid-wide barrier) on spirv"), "{stderr}");
}

/// Stores `%envreg0..3` and, when `%envreg1:%envreg2` is not 0, the first word at that address
/// (the workspace's `wsSize`) and the word after it (the barrier counter).
const ENVIRONMENT_REGISTERS: &str = r#"
.version 7.8
.target sm_80
.address_size 64
.visible .entry environment(.param .u64 out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p;
    ld.param.u64 %rd1, [out];
    mov.u32 %r0, %envreg0;
    mov.u32 %r1, %envreg1;
    mov.u32 %r2, %envreg2;
    mov.u32 %r3, %envreg3;
    st.global.v4.u32 [%rd1], {%r0, %r1, %r2, %r3};
    mov.b64 %rd2, {%r2, %r1};
    setp.eq.u64 %p, %rd2, 0;
    @%p bra DONE;
    ld.global.u32 %r4, [%rd2];
    ld.global.u32 %r5, [%rd2+4];
    st.global.v2.u32 [%rd1+16], {%r4, %r5};
DONE:
    ret;
}
"#;

fn environment_registers(cooperative: bool) -> Vec<u64> {
    let directory = scratch();
    std::fs::write(directory.path().join("environment.ptx"), ENVIRONMENT_REGISTERS).expect("the kernel written");
    let spec = json!({
        "cooperative": cooperative,
        "buffers": { "out": { "type": "u32", "len": 6 } },
        "args": [{ "buffer": "out" }],
    });
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).expect("the spec written");
    let output = ptxr(&["run", "environment.ptx", "--launch", "spec.json"], directory.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    bits_of(&serde_json::from_slice(&output.stdout).expect("the result JSON"), "out")
}

#[test]
fn a_cooperative_launch_passes_its_zeroed_workspace_in_envreg1_and_envreg2() {
    let words = environment_registers(true);
    let address = (words[1] << 32) | words[2];
    assert_ne!(address, 0, "%envreg1:%envreg2 of a cooperative launch");
    assert_eq!(address % 8, 0, "the workspace {address:#x} is not 8-byte aligned");
    assert_eq!((words[0], words[3]), (0, 0), "only %envreg1 and %envreg2 are defined");
    // wsSize: the workspace's 8 bytes; the barrier counter starts at 0.
    assert_eq!(&words[4..], [8, 0]);
    // A plain launch defines no environment register, as CUDA's does not.
    assert_eq!(environment_registers(false), [0; 6]);
}

/// A grid barrier as cooperative groups builds it (one thread per block), where block 1 traps
/// before arriving: the other blocks wait for it at the barrier.
const TRAP_BEFORE_THE_GRID_BARRIER: &str = r#"
.version 7.8
.target sm_80
.address_size 64
.visible .entry trap_before_barrier(.param .u64 out)
{
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;
    mov.u32 %r1, %envreg1;
    mov.u32 %r2, %envreg2;
    mov.b64 %rd1, {%r2, %r1};
    add.u64 %rd2, %rd1, 4;
    mov.u32 %r3, %ctaid.x;
    setp.eq.u32 %p0, %r3, 1;
    @%p0 trap;
    mov.u32 %r4, %nctaid.x;
    sub.u32 %r5, -2147483647, %r4;
    setp.eq.u32 %p1, %r3, 0;
    selp.b32 %r6, %r5, 1, %p1;
    atom.add.release.gpu.u32 %r7, [%rd2], %r6;
WAIT:
    ld.acquire.gpu.u32 %r8, [%rd2];
    xor.b32 %r9, %r8, %r7;
    setp.gt.s32 %p2, %r9, -1;
    @%p2 bra WAIT;
    ld.param.u64 %rd3, [out];
    st.global.u32 [%rd3], %r3;
    ret;
}
"#;

#[test]
fn a_block_that_traps_while_others_wait_at_the_grid_barrier_fails_the_launch_without_a_hang() {
    let directory = scratch();
    std::fs::write(directory.path().join("trap.ptx"), TRAP_BEFORE_THE_GRID_BARRIER).expect("the kernel written");
    let spec = json!({
        "grid": 4, "cooperative": true,
        "buffers": { "out": { "type": "u32", "len": 1 } },
        "args": [{ "buffer": "out" }],
    });
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).expect("the spec written");
    let output = ptxr(&["run", "trap.ptx", "--launch", "spec.json"], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && output.stdout.is_empty(), "{stderr}");
    assert!(stderr.contains("block (1, 0, 0): the kernel executed `trap`"), "{stderr}");
}
