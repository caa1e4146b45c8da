//! `brkpt`, `pmevent{.mask}`, `discard.global.L2`, `applypriority.global.L2::evict_normal` and
//! `griddepcontrol` (ISA 7.8 sections 9.7.8.13, 9.7.8.14, 9.7.12.12 and the miscellaneous
//! instructions): none changes a value the kernel reads. `brkpt` suspends execution only for an
//! attached debugger, which `ptxr run` never is, so the kernel carries on; `pmevent` feeds a
//! profiler; `discard` leaves the line's data undefined, so keeping it is a permitted outcome;
//! `applypriority` is an L2 eviction priority; `griddepcontrol.wait` waits for prerequisite
//! grids, and a plain launch has none. The kernels run each of them, guarded and not, beside
//! arithmetic checked against a model, with and without a block barrier (work-item loops'
//! regions; coroutines under `PTXR_CPU_WAITS=coroutines`); NVPTX keeps each instruction (ptxas
//! accepts the output), AMDGPU and SPIR-V compile (spirv-val), and bad operands are diagnostics.

use ptxr_tests::vendor_checks::{compile, ptxas_accepts, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const THREADS: usize = 64;

/// `output[tid] = input[tid] * 3 + 1` around every hint; thread `tid` discards and reprioritises
/// line `tid` of `lines` (128 bytes each, 128-aligned as the spec asks), which nothing reads.
fn kernel(barrier: bool) -> String {
    let wait = if barrier { "    bar.sync 0;\n" } else { "" };
    format!(
        r#"
.version 7.8
.target sm_90
.address_size 64
.visible .entry hints(.param .u64 input, .param .u64 output, .param .u64 lines)
{{
    .reg .u32 %r<6>;
    .reg .u64 %rd<10>;
    .reg .pred %p<2>;
    griddepcontrol.wait;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd3, [lines];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    mul.wide.u32 %rd5, %r1, 128;
    add.u64 %rd6, %rd3, %rd5;
    setp.eq.u32 %p1, %r1, 0;
    brkpt;
    @%p1 brkpt;
    pmevent 7;
    @%p1 pmevent.mask 0xff00;
    applypriority.global.L2::evict_normal [%rd6], 128;
    discard.global.L2 [%rd6], 128;
    add.u64 %rd7, %rd1, %rd4;
    ld.global.u32 %r2, [%rd7];
{wait}    mul.lo.u32 %r3, %r2, 3;
    brkpt;
    add.u32 %r3, %r3, 1;
    griddepcontrol.launch_dependents;
    add.u64 %rd8, %rd2, %rd4;
    st.global.u32 [%rd8], %r3;
    ret;
}}
"#
    )
}

#[test]
fn hints_leave_every_value_as_the_model_computes_it() {
    let input: Vec<u32> = (0..THREADS as u32).map(|index| index.wrapping_mul(0x9e37_79b9) ^ 0x5a5a).collect();
    let expected: Vec<u64> = input.iter().map(|&value| u64::from(value.wrapping_mul(3).wrapping_add(1))).collect();
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", THREADS), Buffer::zeroed("u32", THREADS * 32)];
    for barrier in [false, true] {
        let ptx = kernel(barrier);
        for (device, result) in opencl::run_everywhere(&ptx, &Launch::threads(THREADS as u32), &buffers, OPENCL_CHILD) {
            assert_eq!(result[0], buffers[0].bits, "{device}, barrier {barrier}: the input");
            assert_eq!(result[1], expected, "{device}, barrier {barrier}: the output");
        }
    }
}

fn artefact(source: &str, target: &str) -> Vec<u8> {
    match compile(source, target) {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("{target}: unsupported: {messages:?}"),
        Compiled::Rejected(message) => panic!("{target}: rejected: {message}"),
    }
}

#[test]
fn nvptx_keeps_each_hint_and_ptxas_accepts_it() {
    let ptx = String::from_utf8(artefact(&kernel(true), "nvptx")).expect("NVPTX output is PTX text");
    for instruction in [
        "brkpt;",
        "pmevent.mask 128;",
        "pmevent.mask 65280;",
        "discard.L2 [",
        "applypriority.L2::evict_normal [",
        "griddepcontrol.wait;",
        "griddepcontrol.launch_dependents;",
    ] {
        assert!(ptx.contains(instruction), "`{instruction}` missing from\n{ptx}");
    }
    if let Some(verdict) = ptxas_accepts(ptx.as_bytes(), "sm_90", "hints") {
        verdict.unwrap_or_else(|error| panic!("ptxas: {error}\n{ptx}"));
    }
}

#[test]
fn amdgpu_and_spirv_compile_the_hints() {
    let source = kernel(true);
    assert!(!artefact(&source, "amdgpu").is_empty());
    let binary = artefact(&source, "spirv");
    if let Some(verdict) = spirv_val(&binary, &spirv_environment(&binary), "hints") {
        verdict.unwrap_or_else(|error| panic!("spirv-val: {error}"));
    }
}

#[test]
fn malformed_hints_are_diagnostics() {
    for (body, wanted) in [
        ("pmevent 16;", "event number in 0..15"),
        ("pmevent.mask 0x10000;", "16-bit mask"),
        ("pmevent %r1;", "event number in 0..15"),
        ("discard.global.L2 [%rd1], 64;", "size 128"),
        ("discard.global [%rd1], 128;", "needs `.L2`"),
        ("applypriority.global.L2::evict_normal [%rd1], 256;", "size 128"),
        ("griddepcontrol;", "`.launch_dependents` or `.wait`"),
        ("brkpt %r1;", "operand"),
    ] {
        let source = format!(
            ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n    .reg .u32 %r<2>;\n    .reg .u64 %rd<2>;\n    ld.param.u64 %rd1, [p];\n    mov.u32 %r1, 3;\n    {body}\n    ret;\n}}\n"
        );
        match compile(&source, "cpu") {
            Compiled::Rejected(message) => assert!(message.contains(wanted), "`{body}`: {message}"),
            _ => panic!("`{body}` was accepted"),
        }
    }
}
