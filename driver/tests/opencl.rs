//! `ptxr run --target spirv`: kernels compiled to SPIR-V and run through an OpenCL runtime (in
//! CI, Intel's CPU runtime from scripts/setup-opencl.sh) print the same buffers as on ptxr's CPU
//! target, whose results the execution tests check against models of the ISA. Each kernel also
//! checks a few values computed here.
//!
//! Each launch is its own `ptxr` process, as users and the conformance scripts run it: Intel's
//! runtime carries its own LLVM, and several launches in one process that also uses LLVM 22
//! crash inside it (see docs/ARCHITECTURE.md, "Not done yet").

use std::path::Path;
use std::process::Command;

mod support;
use support::{
    assertfail_call, opencl_device_available, ptxr, repository_file, scratch, string_global, ASSERTFAIL_DECLARATION,
};

/// The result JSON without its timing line.
fn without_timing(stdout: &[u8]) -> String {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|line| !line.contains("\"elapsed_ms\""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A scratch directory holding `ptx` as `kernel.ptx` and `spec` as `spec.json`.
fn kernel_and_spec(ptx: &str, spec: &serde_json::Value) -> tempfile::TempDir {
    let directory = scratch();
    std::fs::write(directory.path().join("kernel.ptx"), ptx).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).unwrap_or_else(|error| panic!("{error}"));
    directory
}

/// Runs `kernel.ptx` with `spec.json` of `directory` on `target`: the launch fails with exit
/// code 1, no partial JSON on stdout, and `expected` in the message.
fn assert_launch_fails(directory: &Path, target: &str, expected: &str) {
    let output = ptxr(&["run", "kernel.ptx", "--launch", "spec.json", "--target", target], directory);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{target}: {stderr}");
    assert!(output.stdout.is_empty(), "{target}: no partial JSON on stdout");
    assert!(stderr.contains(expected), "{target}: {stderr}");
}

/// Runs `ptx` with `spec` on the CPU and on the OpenCL device; checks that both print the same
/// buffers and returns the OpenCL result.
fn same_on_both(ptx: &str, spec: &serde_json::Value) -> serde_json::Value {
    let directory = kernel_and_spec(ptx, spec);
    let run = |target: &str| {
        let output = ptxr(&["run", "kernel.ptx", "--launch", "spec.json", "--target", target], directory.path());
        assert!(output.status.success(), "{target}: {}\n{ptx}", String::from_utf8_lossy(&output.stderr));
        output
    };
    let (cpu, opencl) = (run("cpu"), run("spirv"));
    validate_spirv(directory.path(), ptx);
    let (cpu_text, opencl_text) = (without_timing(&cpu.stdout), without_timing(&opencl.stdout));
    if cpu_text != opencl_text {
        let cpu_json: serde_json::Value = serde_json::from_slice(&cpu.stdout).unwrap_or_default();
        let opencl_json: serde_json::Value = serde_json::from_slice(&opencl.stdout).unwrap_or_default();
        for (name, buffer) in cpu_json["buffers"].as_object().into_iter().flatten() {
            let (expected, actual) = (&buffer["bits"], &opencl_json["buffers"][name]["bits"]);
            let first = expected
                .as_array()
                .into_iter()
                .flatten()
                .zip(actual.as_array().into_iter().flatten())
                .position(|(a, b)| a != b);
            if let Some(index) = first {
                panic!("buffer `{name}` element {index}: OpenCL {} but CPU {}\n{ptx}", actual[index], expected[index]);
            }
        }
        panic!("the OpenCL and CPU outputs differ\n{ptx}");
    }
    serde_json::from_slice(&opencl.stdout).unwrap_or_else(|error| panic!("{error}"))
}

/// Compiles `kernel.ptx` in `directory` to SPIR-V and checks it with `spirv-val` for the
/// OpenCL environment of its version (OpenCL 2.2 for SPIR-V 1.2; spirv-val has no OpenCL
/// environment for 1.3, so the plain 1.3 rules there).
fn validate_spirv(directory: &Path, ptx: &str) {
    let output = ptxr(&["compile", "kernel.ptx", "--target", "spirv", "-o", "kernel.spv"], directory);
    assert!(output.status.success(), "compile: {}\n{ptx}", String::from_utf8_lossy(&output.stderr));
    let spirv = std::fs::read(directory.join("kernel.spv")).unwrap_or_else(|error| panic!("{error}"));
    let environment = if spirv.get(4..8) == Some(&[0, 3, 1, 0][..]) { "spv1.3" } else { "opencl2.2" };
    match Command::new("spirv-val").args(["--target-env", environment, "kernel.spv"]).current_dir(directory).output() {
        Ok(validation) => assert!(
            validation.status.success(),
            "spirv-val --target-env {environment}: {}\n{ptx}",
            String::from_utf8_lossy(&validation.stderr)
        ),
        Err(_) if std::env::var("PTXR_REQUIRE_VALIDATORS").is_ok_and(|value| value == "1") => {
            panic!("spirv-val is required (PTXR_REQUIRE_VALIDATORS=1)")
        }
        Err(_) => eprintln!("skipping spirv-val: not installed"),
    }
}

fn bits(result: &serde_json::Value, buffer: &str) -> Vec<u64> {
    result["buffers"][buffer]["bits"]
        .as_array()
        .unwrap_or_else(|| panic!("no buffer `{buffer}` in {result}"))
        .iter()
        .map(|bits| {
            u64::from_str_radix(bits.as_str().unwrap_or_default().trim_start_matches("0x"), 16).unwrap_or(u64::MAX)
        })
        .collect()
}

#[test]
fn the_examples_print_the_same_json_on_opencl_as_on_the_cpu() {
    if !opencl_device_available() {
        return;
    }
    for example in ["vector_add", "saxpy"] {
        let run = |target: &str| {
            let output = ptxr(
                &["run", &format!("{example}.ptx"), "--launch", &format!("{example}.launch.json"), "--target", target],
                &repository_file("examples"),
            );
            assert!(output.status.success(), "{example} on {target}: {}", String::from_utf8_lossy(&output.stderr));
            without_timing(&output.stdout)
        };
        assert!(run("spirv") == run("cpu"), "{example}: the OpenCL output differs from the CPU's");
    }
}

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

/// Declares %r and %rd registers, reads the global thread index into %r13, and loads
/// `input[i]` into %r1, with `&input[i]` in %rd5 and `&output[i]` in %rd4.
const THREAD_PROLOGUE: &str = r#"    .reg .b32 %r<16>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r10, %tid.x;
    mov.u32 %r11, %ctaid.x;
    mov.u32 %r12, %ntid.x;
    mad.lo.u32 %r13, %r11, %r12, %r10;
    mul.wide.u32 %rd3, %r13, 4;
    add.u64 %rd5, %rd1, %rd3;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r1, [%rd5];"#;

/// A kernel where each thread reads `input[i]` into %r1 (and %f1), runs `body`, which leaves its
/// result in %r2 (or %f2), and stores that to `output[i]`.
fn per_thread_kernel(body: &str, store: &str) -> String {
    format!(
        "{HEADER}.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n    .reg .f32 %f<8>;\n    \
         .reg .pred %p<4>;\n{THREAD_PROLOGUE}\n    mov.b32 %f1, %r1;\n{body}\n    {store}\n    ret;\n}}\n"
    )
}

fn spec(input: &[u32], output_len: usize, threads: u32) -> serde_json::Value {
    let input_bits: Vec<String> = input.iter().map(|value| format!("{value:#010x}")).collect();
    serde_json::json!({
        "grid": [threads / 64], "block": [64],
        "buffers": {
            "input": { "type": "u32", "bits": input_bits },
            "output": { "type": "u32", "len": output_len }
        },
        "args": [{ "buffer": "input" }, { "buffer": "output" }]
    })
}

/// Inputs with the edge values first, then a fixed pseudo-random sequence.
fn inputs(count: usize, edges: &[u32], keep: impl Fn(u32) -> bool) -> Vec<u32> {
    let mut values = edges.to_vec();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    while values.len() < count {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let value = (state >> 32) as u32;
        if keep(value) {
            values.push(value);
        }
    }
    values
}

#[test]
fn integer_results_agree_including_division_by_zero_and_shifts_past_the_width() {
    if !opencl_device_available() {
        return;
    }
    let input = inputs(256, &[0, 1, 2, 31, 32, 33, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff], |_| true);
    let cases = [
        "mul.hi.u32 %r2, %r1, 0x9e3779b9;",
        "mul.hi.s32 %r2, %r1, -7;",
        "mad.lo.u32 %r2, %r1, %r1, 12345;",
        // PTX defines division by zero (all ones for unsigned) and shifts past the width.
        "and.b32 %r3, %r1, 7;\n    div.u32 %r2, %r1, %r3;",
        "and.b32 %r3, %r1, 7;\n    rem.u32 %r2, %r1, %r3;",
        "and.b32 %r3, %r1, 63;\n    shl.b32 %r2, %r1, %r3;",
        "and.b32 %r3, %r1, 63;\n    shr.s32 %r2, %r1, %r3;",
        "popc.b32 %r2, %r1;",
        // OpBitReverse, through SPV_KHR_bit_instructions.
        "brev.b32 %r2, %r1;",
        "clz.b32 %r2, %r1;",
        "min.s32 %r2, %r1, -5;",
        "setp.lt.s32 %p1, %r1, 0;\n    selp.u32 %r2, 11, 22, %p1;",
    ];
    for case in cases {
        let kernel = per_thread_kernel(&format!("    {case}"), "st.global.u32 [%rd4], %r2;");
        let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
        if case.starts_with("popc") {
            assert_eq!(output[4], u64::from(input[4].count_ones()));
        }
        if case.contains("div.u32") {
            // input[0] is 0, so the divisor is 0: PTX gives all ones for unsigned division.
            assert_eq!(output[0], 0xffff_ffff);
        }
    }
}

/// LLVM's optimiser turns a swap of a few low bits into `llvm.bitreverse.i2`/`.i3`, which LLVM
/// 22's SPIR-V back end reverses as an `i8` (the bits land at the top); ptxr widens the reversal
/// itself (`intrinsics/src/spirv_bit_reverse.rs`). Triton's lane swizzles in its flash-attention
/// kernel are such swaps.
/// What a bit-swapping kernel must store for an input.
type BitModel = fn(u32) -> u32;

#[test]
fn swaps_of_low_bits_that_the_optimiser_makes_narrow_bit_reversals_keep_their_bits() {
    if !opencl_device_available() {
        return;
    }
    let input = inputs(256, &[0, 1, 2, 3, 4, 5, 6, 7, 0xffff_ffff], |_| true);
    let two_bits = "    shr.u32 %r3, %r1, 1;\n    and.b32 %r3, %r3, 1;\n    shl.b32 %r4, %r1, 1;\n    \
                    and.b32 %r4, %r4, 2;\n    or.b32 %r2, %r3, %r4;";
    let three_bits = "    shr.u32 %r3, %r1, 2;\n    and.b32 %r3, %r3, 1;\n    and.b32 %r4, %r1, 2;\n    \
                      shl.b32 %r5, %r1, 2;\n    and.b32 %r5, %r5, 4;\n    or.b32 %r2, %r3, %r4;\n    \
                      or.b32 %r2, %r2, %r5;";
    let models: [(&str, BitModel); 2] = [
        (two_bits, |value| (value >> 1 & 1) | (value << 1 & 2)),
        (three_bits, |value| (value >> 2 & 1) | (value & 2) | (value << 2 & 4)),
    ];
    for (body, model) in models {
        let kernel = per_thread_kernel(body, "st.global.u32 [%rd4], %r2;");
        let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
        for (index, &value) in input.iter().enumerate() {
            assert_eq!(output[index], u64::from(model(value)), "input {value:#x}\n{kernel}");
        }
    }
}

#[test]
fn float_results_agree_bit_for_bit() {
    if !opencl_device_available() {
        return;
    }
    let edges: Vec<u32> = [
        0.0f32,
        -0.0,
        1.0,
        -1.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1.0e-40,
        f32::MAX,
        3.0,
        0.1,
    ]
    .iter()
    .map(|value| value.to_bits())
    .collect();
    let input = inputs(256, &edges, |bits| f32::from_bits(bits).is_finite());
    let cases = [
        "add.rn.f32 %f2, %f1, 0f3F800000;",
        "mul.rn.f32 %f2, %f1, %f1;",
        "fma.rn.f32 %f2, %f1, %f1, 0fBF800000;",
        "div.rn.f32 %f2, 0f40490FDB, %f1;",
        // Not against zero: which zero max(-0.0, +0.0) gives is not pinned by the ISA text.
        "max.f32 %f2, %f1, 0f3F000000;",
        "cvt.rzi.s32.f32 %r3, %f1;\n    mov.b32 %f2, %r3;",
        "cvt.rn.f32.s32 %f2, %r1;",
        "abs.f32 %f2, %f1;",
    ];
    for case in cases {
        let kernel = per_thread_kernel(&format!("    {case}"), "st.global.f32 [%rd4], %f2;");
        let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
        if case.starts_with("mul.rn") {
            // 1.0 squared, and NaN stays NaN.
            assert_eq!(f32::from_bits(output[2] as u32), 1.0);
            assert!(f32::from_bits(output[6] as u32).is_nan());
        }
    }
}

#[test]
fn shared_memory_and_barriers_reverse_each_block() {
    if !opencl_device_available() {
        return;
    }
    let body = r#"
    .shared .align 4 .u32 tile[64];
    mul.wide.u32 %rd6, %r10, 4;
    mov.u64 %rd7, tile;
    add.u64 %rd8, %rd7, %rd6;
    st.shared.u32 [%rd8], %r1;
    bar.sync 0;
    sub.u32 %r6, 63, %r10;
    mul.wide.u32 %rd6, %r6, 4;
    add.u64 %rd8, %rd7, %rd6;
    ld.shared.u32 %r2, [%rd8];"#;
    let input: Vec<u32> = (0..256).map(|value| value * 3 + 1).collect();
    let kernel = per_thread_kernel(body, "st.global.u32 [%rd4], %r2;");
    let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
    for (index, &value) in output.iter().enumerate() {
        let block = index / 64;
        assert_eq!(value, u64::from(input[block * 64 + 63 - index % 64]), "thread {index}");
    }
}

#[test]
fn global_atomics_count_across_work_groups() {
    if !opencl_device_available() {
        return;
    }
    let body = r#"
    and.b32 %r3, %r1, 15;
    mul.wide.u32 %rd6, %r3, 4;
    add.u64 %rd7, %rd2, %rd6;
    atom.global.add.u32 %r2, [%rd7], 1;"#;
    let input = inputs(1024, &[], |_| true);
    let kernel = per_thread_kernel(body, "");
    let output = bits(&same_on_both(&kernel, &spec(&input, 16, 1024)), "output");
    for bin in 0..16u32 {
        let expected = input.iter().filter(|&&value| value & 15 == bin).count() as u64;
        assert_eq!(output[bin as usize], expected, "bin {bin}");
    }
}

#[test]
fn device_errors_name_the_devices_and_the_fix() {
    if !opencl_device_available() {
        return;
    }
    let examples = repository_file("examples");
    let output =
        ptxr(&["run", "saxpy.ptx", "--launch", "saxpy.launch.json", "--target", "spirv", "--device", "99"], &examples);
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "no partial JSON on stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no OpenCL device matches `99`") && stderr.contains("0: "), "{stderr}");

    let output = Command::new(env!("CARGO_BIN_EXE_ptxr"))
        .args(["run", "saxpy.ptx", "--launch", "saxpy.launch.json", "--target", "spirv"])
        .current_dir(&examples)
        .env("NO_COLOR", "1")
        .env("OCL_ICD_VENDORS", "/nonexistent-ptxr-test")
        .output()
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no OpenCL platform") && stderr.contains("setup-opencl.sh"), "{stderr}");
}

/// Warp collectives on OpenCL sub-groups of 32 give the CPU target's results (whose runtime the
/// synchronisation execution tests check against a model of the ISA).
#[test]
fn warp_collectives_on_sub_groups_agree_with_the_cpu() {
    if !opencl_device_available() {
        return;
    }
    let input = inputs(256, &[], |_| true).iter().map(|value| value % 7).collect::<Vec<_>>();
    let cases = [
        "shfl.sync.down.b32 %r2|%p1, %r1, 3, 0x1f, 0xffffffff;\n    selp.u32 %r3, 0x80000000, 0, %p1;\n    or.b32 %r2, %r2, %r3;",
        "shfl.sync.up.b32 %r2|%p1, %r1, 5, 0x800, 0xffffffff;\n    selp.u32 %r3, 0x80000000, 0, %p1;\n    or.b32 %r2, %r2, %r3;",
        "shfl.sync.bfly.b32 %r2, %r1, 9, 0x1f, 0xffffffff;",
        "shfl.sync.idx.b32 %r2|%p1, %r1, %r1, 0x181f, 0xffffffff;\n    selp.u32 %r3, 0x80000000, 0, %p1;\n    or.b32 %r2, %r2, %r3;",
        "setp.gt.u32 %p1, %r1, 3;\n    vote.sync.ballot.b32 %r2, %p1, 0xffffffff;",
        "setp.gt.u32 %p1, %r1, 0;\n    vote.sync.all.pred %p2, %p1, 0xffffffff;\n    selp.u32 %r2, 1, 0, %p2;",
        "setp.eq.u32 %p1, %r1, 6;\n    vote.sync.any.pred %p2, %p1, 0xffffffff;\n    selp.u32 %r2, 1, 0, %p2;",
        "match.any.sync.b32 %r2, %r1, 0xffffffff;",
        "redux.sync.add.u32 %r2, %r1, 0xffffffff;",
        "redux.sync.max.s32 %r2, %r1, 0xffffffff;",
        "redux.sync.xor.b32 %r2, %r1, 0xffffffff;",
        "activemask.b32 %r2;",
        // Warp special registers alone make the module SPIR-V 1.3, as collectives do.
        "mov.u32 %r2, %laneid;",
        "mov.u32 %r2, %lanemask_lt;",
    ];
    for case in cases {
        let kernel = per_thread_kernel(&format!("    {case}"), "st.global.u32 [%rd4], %r2;");
        let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
        if case.starts_with("redux.sync.add") {
            let first_warp: u64 = input[..32].iter().map(|&value| u64::from(value)).sum();
            assert_eq!(output[0], first_warp);
        }
        if case.contains("%laneid") {
            assert!(output.iter().enumerate().all(|(thread, &lane)| lane == (thread % 32) as u64), "{output:?}");
        }
        if case.contains("%lanemask_lt") {
            let below = |thread: usize| (1u64 << (thread % 32)) - 1;
            assert!(output.iter().enumerate().all(|(thread, &mask)| mask == below(thread)), "{output:?}");
        }
    }
}

/// `redux.sync` whose member mask is part of the warp while the rest of the warp reduces under
/// its own mask, as cooperative groups' `cg::reduce` on tiles of 16 and 8 does (`0xffff <<
/// (laneid & 16)`): each tile gets its own result, not the whole sub-group's.
#[test]
fn redux_on_part_of_a_warp_reduces_only_its_members() {
    if !opencl_device_available() {
        return;
    }
    let input = inputs(256, &[0x8000_0000, 0x7fff_ffff, 0xffff_ffff], |_| true);
    // (instruction, tile width, model of one tile)
    type TileModel = fn(&[u32]) -> u32;
    let cases: [(&str, usize, TileModel); 3] = [
        ("redux.sync.add.u32", 16, |tile| tile.iter().fold(0u32, |sum, &value| sum.wrapping_add(value))),
        ("redux.sync.max.s32", 16, |tile| tile.iter().map(|&value| value as i32).max().unwrap_or(i32::MIN) as u32),
        ("redux.sync.min.u32", 8, |tile| tile.iter().copied().min().unwrap_or(u32::MAX)),
    ];
    for (instruction, width, model) in cases {
        let body = format!(
            "    mov.u32 %r3, %laneid;\n    and.b32 %r3, %r3, {};\n    mov.u32 %r4, {};\n    shl.b32 %r4, %r4, %r3;\n    \
             {instruction} %r2, %r1, %r4;",
            32 - width,
            (1u64 << width) - 1
        );
        let kernel = per_thread_kernel(&body, "st.global.u32 [%rd4], %r2;");
        let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
        for (thread, &value) in output.iter().enumerate() {
            let tile = &input[thread / width * width..][..width];
            assert_eq!(value, u64::from(model(tile)), "{instruction} on tiles of {width}, thread {thread}");
        }
    }
}

/// A module with warp collectives is SPIR-V 1.3 (the first version with sub-group
/// instructions), valid for that version; an explicitly older version says what is needed.
#[test]
fn warp_collectives_choose_spirv_1_3_and_older_versions_say_so() {
    let directory = scratch();
    let kernel =
        per_thread_kernel("    shfl.sync.bfly.b32 %r2, %r1, 1, 0x1f, 0xffffffff;", "st.global.u32 [%rd4], %r2;");
    std::fs::write(directory.path().join("warp.ptx"), kernel).unwrap_or_else(|error| panic!("{error}"));
    let output = ptxr(&["compile", "warp.ptx", "--target", "spirv", "-o", "warp.spv"], directory.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let spirv = std::fs::read(directory.path().join("warp.spv")).unwrap_or_else(|error| panic!("{error}"));
    // The version word of the SPIR-V header: 0x00010300 for 1.3.
    assert_eq!(spirv.get(4..8), Some(&[0, 3, 1, 0][..]), "SPIR-V version");
    if let Ok(validation) =
        Command::new("spirv-val").args(["--target-env", "spv1.3", "warp.spv"]).current_dir(directory.path()).output()
    {
        assert!(validation.status.success(), "spirv-val: {}", String::from_utf8_lossy(&validation.stderr));
    } else if std::env::var("PTXR_REQUIRE_VALIDATORS").is_ok_and(|value| value == "1") {
        panic!("spirv-val is required (PTXR_REQUIRE_VALIDATORS=1)");
    }

    let output =
        ptxr(&["compile", "warp.ptx", "--target", "spirv64v1.1-unknown-unknown", "-o", "old.spv"], directory.path());
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("E0901") && stderr.contains("SPIR-V 1.3"), "{stderr}");
    assert!(!directory.path().join("old.spv").exists(), "no output after an error");
}

/// `atom.add.f32` through SPV_EXT_shader_atomic_float_add: every work-item adds 0.5 to one of
/// four counters, which stay exact in f32.
#[test]
fn float_atomic_add_counts_across_work_groups() {
    if !opencl_device_available() {
        return;
    }
    let body = r#"
    and.b32 %r3, %r1, 3;
    mul.wide.u32 %rd6, %r3, 4;
    add.u64 %rd7, %rd2, %rd6;
    atom.global.add.f32 %f2, [%rd7], 0f3F000000;"#;
    let input = inputs(512, &[], |_| true);
    let kernel = per_thread_kernel(body, "");
    let output = bits(&same_on_both(&kernel, &spec(&input, 4, 512)), "output");
    for counter in 0..4u32 {
        let expected = input.iter().filter(|&&value| value & 3 == counter).count() as f32 * 0.5;
        assert_eq!(f32::from_bits(output[counter as usize] as u32), expected, "counter {counter}");
    }
}

/// Dynamic shared memory (an unsized `.extern .shared` array after a static `.shared`
/// variable), 32-bit shared addresses (`mov.u32 %r, var`, `cvta.shared`) and a `.func` that
/// reads the caller's shared memory: on OpenCL the block's window is one `__local` argument
/// after the PTX parameters, sized by the launch's `shared_bytes`.
#[test]
fn dynamic_shared_memory_and_shared_addresses_reach_functions() {
    if !opencl_device_available() {
        return;
    }
    let kernel = format!(
        r#"{HEADER}
.extern .shared .align 16 .b32 dynamic[];

.func (.reg .u32 value) read_shared(.reg .u32 address)
{{
    ld.shared.u32 value, [address];
    ret;
}}

.visible .entry test(.param .u64 input, .param .u64 output)
{{
    .shared .align 4 .u32 flags[2];
    .reg .pred %p<2>;
{THREAD_PROLOGUE}
    mov.u32 %r3, dynamic;
    shl.b32 %r4, %r10, 2;
    add.u32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r1;
    setp.eq.u32 %p1, %r10, 0;
    @%p1 st.shared.u32 [flags+4], %r11;
    bar.sync 0;
    sub.u32 %r6, 63, %r10;
    shl.b32 %r6, %r6, 2;
    add.u32 %r7, %r3, %r6;
    call (%r2), read_shared, (%r7);
    mov.u64 %rd8, flags;
    cvta.shared.u64 %rd9, %rd8;
    ld.u32 %r14, [%rd9+4];
    shl.b32 %r14, %r14, 24;
    or.b32 %r2, %r2, %r14;
    st.global.u32 [%rd4], %r2;
    ret;
}}
"#
    );
    let input: Vec<u32> = (0..256).map(|value| value * 5 + 2).collect();
    let mut launch = spec(&input, 256, 256);
    launch["shared_bytes"] = serde_json::json!(256);
    let output = bits(&same_on_both(&kernel, &launch), "output");
    for (index, &value) in output.iter().enumerate() {
        let block = index / 64;
        let reversed = u64::from(input[block * 64 + 63 - index % 64]);
        assert_eq!(value, reversed | ((block as u64) << 24), "thread {index}");
    }
}

/// An `.address_size 32` kernel: its buffers lie below 4 GiB and reach it as 32-bit addresses
/// through fine-grained system SVM; its shared variable's address is a 32-bit offset.
#[test]
fn address_size_32_kernels_run_with_32_bit_buffer_addresses() {
    if !opencl_device_available() {
        return;
    }
    let kernel = r#".version 7.8
.target sm_80
.address_size 32
.visible .entry test(.param .u32 input, .param .u32 output)
{
    .shared .align 8 .u64 staging[64];
    .reg .b32 %r<16>;
    .reg .b64 %rd<4>;
    ld.param.u32 %r1, [input];
    ld.param.u32 %r2, [output];
    mov.u32 %r10, %tid.x;
    shl.b32 %r3, %r10, 3;
    add.u32 %r4, %r1, %r3;
    ld.global.u64 %rd1, [%r4];
    mov.u32 %r5, staging;
    add.u32 %r6, %r5, %r3;
    st.shared.u64 [%r6], %rd1;
    bar.sync 0;
    ld.shared.u64 %rd2, [staging];
    add.u64 %rd3, %rd1, %rd2;
    add.u32 %r7, %r2, %r3;
    st.global.u64 [%r7], %rd3;
    ret;
}
"#;
    let input: Vec<u64> = (0..64u64).map(|value| value * 0x1_0000_0001 + 7).collect();
    let input_bits: Vec<String> = input.iter().map(|value| format!("{value:#018x}")).collect();
    let launch = serde_json::json!({
        "grid": [1], "block": [64],
        "buffers": {
            "input": { "type": "u64", "bits": input_bits },
            "output": { "type": "u64", "len": 64 }
        },
        "args": [{ "buffer": "input" }, { "buffer": "output" }]
    });
    let output = bits(&same_on_both(kernel, &launch), "output");
    for (index, &value) in output.iter().enumerate() {
        assert_eq!(value, input[index].wrapping_add(input[0]), "thread {index}");
    }
}

/// `atom.inc` and `atom.dec` wrap at their bound (ISA 7.8 section 9.7.12.5), which SPIR-V's
/// increment and decrement do not: on SPIR-V they are compare-and-swap loops. Every work-item
/// increments one counter and decrements another (bound 9) and counts the old value it got in a
/// histogram, so the result does not depend on the order the work-items ran in. `nanosleep`
/// before them returns (its duration may be zero).
#[test]
fn wrapping_atomic_increment_and_decrement_count_across_work_groups() {
    if !opencl_device_available() {
        return;
    }
    let body = r#"
    nanosleep.u32 100;
    atom.global.inc.u32 %r3, [%rd2], 9;
    atom.global.dec.u32 %r4, [%rd2+4], 9;
    mul.wide.u32 %rd6, %r3, 4;
    add.u64 %rd7, %rd2, %rd6;
    atom.global.add.u32 %r5, [%rd7+8], 1;
    mul.wide.u32 %rd6, %r4, 4;
    add.u64 %rd7, %rd2, %rd6;
    atom.global.add.u32 %r5, [%rd7+48], 1;"#;
    let input = inputs(256, &[], |_| true);
    let kernel = per_thread_kernel(body, "");
    let output = bits(&same_on_both(&kernel, &spec(&input, 22, 256)), "output");
    // The model: the ISA's formulas applied 256 times in any order visit the same values.
    let (mut increment, mut decrement) = (0u32, 0u32);
    let mut expected = vec![0u64; 22];
    for _ in 0..256 {
        expected[2 + increment as usize] += 1;
        expected[12 + decrement as usize] += 1;
        increment = if increment >= 9 { 0 } else { increment + 1 };
        decrement = if decrement == 0 || decrement > 9 { 9 } else { decrement - 1 };
    }
    expected[0] = u64::from(increment);
    expected[1] = u64::from(decrement);
    assert_eq!(output, expected);
}

/// `bar.red.popc`, `.and` and `.or` over each block of 64 through OpenCL's work-group
/// functions, against the counts computed here.
#[test]
fn barrier_reductions_count_each_block() {
    if !opencl_device_available() {
        return;
    }
    let body = r#"
    and.b32 %r3, %r1, 3;
    setp.ne.u32 %p1, %r3, 0;
    bar.red.popc.u32 %r4, 0, %p1;
    bar.red.and.pred %p2, 0, %p1;
    bar.red.or.pred %p3, 0, !%p1;
    selp.u32 %r5, 0x10000, 0, %p2;
    selp.u32 %r6, 0x20000, 0, %p3;
    or.b32 %r2, %r4, %r5;
    or.b32 %r2, %r2, %r6;"#;
    // Block 1 has no multiple of 4, so its AND is true and its OR of the negation false.
    let input: Vec<u32> = (0..256u32).map(|index| if index / 64 == 1 { 1 } else { index * 7 % 13 }).collect();
    let kernel = per_thread_kernel(body, "st.global.u32 [%rd4], %r2;");
    let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
    for block in 0..4 {
        let values = &input[block * 64..block * 64 + 64];
        let count = values.iter().filter(|&&value| value & 3 != 0).count() as u64;
        let all = u64::from(count == 64) << 16;
        let any_negated = u64::from(count < 64) << 17;
        for thread in 0..64 {
            assert_eq!(output[block * 64 + thread], count | all | any_negated, "block {block} thread {thread}");
        }
    }
}

/// `trap` on OpenCL: the trapping work-item raises the module's trap flag and returns, and the
/// launch then fails as on the CPU, with no JSON; when no work-item reaches the `trap`, the
/// results are the CPU's.
#[test]
fn trap_fails_the_launch_only_when_reached() {
    if !opencl_device_available() {
        return;
    }
    // Work-item `input[0]` traps; every other one stores its index at its place.
    let body = r#"
    ld.global.u32 %r3, [%rd1];
    setp.eq.u32 %p1, %r13, %r3;
    @%p1 trap;
    mov.u32 %r2, %r13;"#;
    let kernel = per_thread_kernel(body, "st.global.u32 [%rd4], %r2;");
    let output = bits(&same_on_both(&kernel, &spec(&[1000; 64], 64, 64)), "output");
    assert_eq!(output, (0..64).collect::<Vec<u64>>());

    let directory = kernel_and_spec(&kernel, &spec(&[5; 64], 64, 64));
    for target in ["cpu", "spirv"] {
        assert_launch_fails(directory.path(), target, "the kernel executed `trap`");
    }
}

/// Half precision on OpenCL: `.f16` lanes are handled as their bits, so the SPIR-V module needs
/// no Float16 capability (which OpenCL's environment allows only with `cl_khr_fp16`) and passes
/// `spirv-val` for OpenCL 2.2; the results are the CPU's, bit for bit.
#[test]
fn half_precision_needs_no_float16_capability() {
    if !opencl_device_available() {
        return;
    }
    let edges: Vec<u32> =
        [0.0f32, -0.0, 1.0, 65504.0, 65520.0, 6.0e-8, 2.9e-8, 6.1e-5, -3.0e-6, f32::NAN, f32::INFINITY]
            .iter()
            .map(|value| value.to_bits())
            .collect();
    let input = inputs(256, &edges, |bits| f32::from_bits(bits).abs() < 70000.0);
    let cases = [
        "cvt.rn.f16.f32 %h1, %f1;\n    cvt.f32.f16 %f2, %h1;",
        "cvt.rz.f16.f32 %h1, %f1;\n    cvt.f32.f16 %f2, %h1;",
        "cvt.rn.f16.f32 %h1, %f1;\n    mul.rn.f16 %h2, %h1, %h1;\n    add.f16 %h2, %h2, 0f3F800000;\n    cvt.f32.f16 %f2, %h2;",
        "cvt.rn.f16x2.f32 %r3, %f1, %f1;\n    fma.rn.f16x2 %r4, %r3, %r3, %r3;\n    mov.b32 %f2, %r4;",
        "cvt.rn.f16.f32 %h1, %f1;\n    setp.gt.f16 %p1, %h1, 0f3F800000;\n    selp.f32 %f2, 0f3F800000, 0f00000000, %p1;",
    ];
    for case in cases {
        let body = format!("    .reg .b16 %h<3>;\n    {case}");
        let kernel = per_thread_kernel(&body, "st.global.f32 [%rd4], %f2;");
        let output = bits(&same_on_both(&kernel, &spec(&input, 256, 256)), "output");
        if case.starts_with("cvt.rn.f16.f32 %h1, %f1;\n    cvt.f32") {
            // 1.0 and 65504 are exact; 65520 rounds to infinity, 2.9e-8 to zero.
            assert_eq!(f32::from_bits(output[2] as u32), 1.0);
            assert_eq!(f32::from_bits(output[3] as u32), 65504.0);
            assert_eq!(f32::from_bits(output[4] as u32), f32::INFINITY);
            assert_eq!(f32::from_bits(output[6] as u32), 0.0);
        }
    }
}

/// `__assertfail` on OpenCL stops the work-item like `trap` and fails the launch, saying that the
/// message stayed on the device; a kernel whose assertion holds gives the CPU's results.
#[test]
fn a_failed_assertion_fails_the_launch() {
    if !opencl_device_available() {
        return;
    }
    let strings = [
        string_global("message", "index != input"),
        string_global("file", "kernel.cu"),
        string_global("function", "void test()"),
    ]
    .concat();
    let body = format!(
        "
    ld.global.u32 %r3, [%rd1];
    setp.ne.u32 %p1, %r13, %r3;
    @%p1 bra FINE;
    {}
FINE:
    mov.u32 %r2, %r13;",
        assertfail_call(7)
    );
    let kernel = per_thread_kernel(&body, "st.global.u32 [%rd4], %r2;").replacen(
        ".visible .entry",
        &format!("{ASSERTFAIL_DECLARATION}{strings}.visible .entry"),
        1,
    );
    let output = bits(&same_on_both(&kernel, &spec(&[1000; 64], 64, 64)), "output");
    assert_eq!(output, (0..64).collect::<Vec<u64>>());

    let directory = kernel_and_spec(&kernel, &spec(&[9; 64], 64, 64));
    for (target, expected) in
        [("cpu", "Assertion `index != input` failed"), ("spirv", "failed an assertion (`__assertfail`")]
    {
        assert_launch_fails(directory.path(), target, expected);
    }
}

/// `vprintf` on OpenCL: each work-item prints two lines through OpenCL's printf, with every
/// argument kind of CUDA's packed buffer (`%d %u %x %f %lld %c`, a literal `%%`, and in a second
/// format a `%s` of a string constant); the text comes before the JSON on stdout at every optimisation
/// level, and `vprintf` returns the number of arguments it read, as on the CPU.
#[test]
fn printf_prints_through_opencl_before_the_json() {
    if !opencl_device_available() {
        return;
    }
    let first = "item %d: %u %x [%f] %lld %c 100%%\n";
    let second = "%llx%% done by %i, %s\n";
    let call = |format: &str, buffer: &str, status: &str| {
        format!(
            "{{\n.reg .b64 %f<3>;\nmov.u64 %f1, {format};\ncvta.global.u64 %f2, %f1;\n.param .b64 param0;\n\
             st.param.b64 [param0], %f2;\n.param .b64 param1;\nst.param.b64 [param1], {buffer};\n\
             .param .b32 retval0;\ncall.uni (retval0), vprintf, (param0, param1);\nld.param.b32 {status}, [retval0];\n}}\n"
        )
    };
    // Item i (of 8 in two blocks) prints -i as %d, %u and %x, i * 1.25 + 0.5, i << 40, 'A' + i;
    // then, from a second buffer 40 bytes into the same depot, addressed as nvcc does (`add` to
    // its stack pointers `%SP` and `%SPL`), ~i << 32 as %llx, i again and the
    // string constant `word` (a `%s`, which OpenCL takes only as a constant).
    let ptx = format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n\
         .extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 arguments);\n{}{}\
         .visible .entry test(.param .u64 output)\n{{\n\
         .local .align 8 .b8 depot[64];\n.reg .b32 %r<8>;\n.reg .b64 %rd<6>;\n.reg .b64 %buffer, %local, %second, %second_local, %SP, %SPL;\n.reg .f64 %fd1;\n\
         mov.u64 %local, depot;\ncvta.local.u64 %buffer, %local;\n\
         mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.u32 %r1, %r1, %r2, %r3;\n\
         neg.s32 %r2, %r1;\nst.local.u32 [%local], %r2;\nst.local.u32 [%local+4], %r2;\nst.local.u32 [%local+8], %r2;\n\
         cvt.rn.f64.u32 %fd1, %r1;\nfma.rn.f64 %fd1, %fd1, 0d3FF4000000000000, 0d3FE0000000000000;\nst.local.f64 [%local+16], %fd1;\n\
         cvt.u64.u32 %rd1, %r1;\nshl.b64 %rd2, %rd1, 40;\nst.local.u64 [%local+24], %rd2;\n\
         add.u32 %r4, %r1, 65;\nst.local.u32 [%local+32], %r4;\n{}\
         mov.u64 %SPL, depot;\ncvta.local.u64 %SP, %SPL;\nadd.u64 %second, %SP, 40;\nadd.u64 %second_local, %SPL, 40;\n\
         not.b64 %rd2, %rd1;\nshl.b64 %rd2, %rd2, 32;\nst.local.u64 [%second_local], %rd2;\nst.u32 [%second+8], %r1;\n\
         cvta.global.u64 %rd5, word;\nst.local.u64 [%second_local+16], %rd5;\n{}\
         add.u32 %r5, %r5, %r6;\n\
         ld.param.u64 %rd3, [output];\ncvta.to.global.u64 %rd3, %rd3;\nmul.wide.u32 %rd4, %r1, 4;\nadd.u64 %rd3, %rd3, %rd4;\n\
         st.global.u32 [%rd3], %r5;\nret;\n}}\n",
        string_global("first_format", first),
        string_global("second_format", second) + &string_global("word", "word"),
        call("first_format", "%buffer", "%r5"),
        call("second_format", "%second", "%r6"),
    );
    let mut expected: Vec<String> = (0..8u32)
        .flat_map(|index| {
            let negated = index.wrapping_neg();
            let double = f64::from(index) * 1.25 + 0.5;
            let wide = u64::from(index) << 40;
            let character = char::from(b'A' + index as u8);
            let complement = !u64::from(index) << 32;
            [
                format!("item {}: {negated} {negated:x} [{double:.6}] {wide} {character} 100%", negated as i32),
                format!("{complement:x}% done by {index}, word"),
            ]
        })
        .collect();
    expected.sort();

    let launch = serde_json::json!({
        "grid": [2], "block": [4],
        "buffers": { "output": { "type": "u32", "len": 8 } },
        "args": [{ "buffer": "output" }]
    });
    let directory = kernel_and_spec(&ptx, &launch);
    validate_spirv(directory.path(), &ptx);
    for level in ["-O0", "-O2"] {
        let output =
            ptxr(&["run", "kernel.ptx", "--launch", "spec.json", "--target", "spirv", level], directory.path());
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "{level}: {}\n{ptx}", String::from_utf8_lossy(&output.stderr));
        // Intel's runtime writes the text through C's stdout, which the launch flushes before
        // ptxr prints the JSON: all 16 lines come first.
        let json_start = stdout.find("{\n").unwrap_or_else(|| panic!("{level}: no JSON in {stdout}"));
        let mut printed: Vec<String> = stdout[..json_start].lines().map(str::to_string).collect();
        printed.sort();
        assert_eq!(printed, expected, "{level}");
        let result: serde_json::Value =
            serde_json::from_str(&stdout[json_start..]).unwrap_or_else(|error| panic!("{error}: {stdout}"));
        // Each work-item's two calls read 6 and 3 arguments.
        assert_eq!(bits(&result, "output"), vec![9; 8], "{level}");
    }
}

/// Writes past a buffer land in the zeroed guard zone that follows each SVM allocation, as on
/// the CPU, and are reported the same way (W0901) instead of corrupting the OpenCL runtime's
/// heap: eight work-items store their index at out[tid] into a buffer of four.
#[test]
fn writes_past_a_buffer_are_caught_by_its_guard_zone_on_opencl() {
    if !opencl_device_available() {
        return;
    }
    let directory = scratch();
    let kernel = ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry spill(.param .u64 out)\n{\n\
                  \t.reg .u32 %r<2>;\n\t.reg .u64 %rd<4>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\
                  \tmul.wide.u32 %rd2, %r1, 4;\n\tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}\n";
    let spec = r#"{ "grid": [1], "block": [8], "buffers": { "out": { "type": "u32", "len": 4 } }, "args": [{ "buffer": "out" }] }"#;
    std::fs::write(directory.path().join("spill.ptx"), kernel).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(directory.path().join("spec.json"), spec).unwrap_or_else(|error| panic!("{error}"));
    let output = ptxr(&["run", "spill.ptx", "--launch", "spec.json", "--target", "spirv"], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(json["buffers"]["out"]["data"], serde_json::json!([0, 1, 2, 3]));
    assert!(stderr.contains("W0901") && stderr.contains("4 byte(s) of the 4096-byte guard zone"), "{stderr}");
}

/// `leave(v)` exits the thread when `v` is odd, after setting its result to 5 (6 when it
/// returns); `outer(v, mark)` calls it and stores the result plus one at `mark`.
const EXITING_FUNCTIONS: &str = r#"
.func (.reg .b32 %out) leave(.reg .b32 %v)
{
    .reg .pred %odd;
    .reg .b32 %bit;
    mov.u32 %out, 5;
    and.b32 %bit, %v, 1;
    setp.ne.u32 %odd, %bit, 0;
    @%odd exit;
    mov.u32 %out, 6;
    ret;
}

.func outer(.reg .b32 %v, .reg .b64 %mark)
{
    .reg .b32 %got;
    call.uni (%got), leave, (%v);
    add.u32 %got, %got, 1;
    st.global.u32 [%mark], %got;
    ret;
}
"#;

/// `exit` two calls deep on OpenCL ends the work-item (ISA 7.8 section 9.7.12.10), not just the
/// function: neither `outer` nor the kernel stores anything after the call. OpenCL cannot end
/// a work-item from a function, so each caller tests the work-item's stop flag after the call.
#[test]
fn exit_inside_a_function_ends_the_work_item() {
    if !opencl_device_available() {
        return;
    }
    // Each work-item stores 1, calls `outer` with `&output[64 + i]` as its mark, then stores 2.
    let body = r#"
    mov.u32 %r2, 1;
    st.global.u32 [%rd4], %r2;
    add.u64 %rd6, %rd4, 256;
    call.uni outer, (%r1, %rd6);
    mov.u32 %r2, 2;"#;
    let kernel = per_thread_kernel(body, "st.global.u32 [%rd4], %r2;").replacen(
        ".visible .entry",
        &format!("{EXITING_FUNCTIONS}\n.visible .entry"),
        1,
    );
    let input = inputs(64, &[0, 1, 2, 3, u32::MAX], |_| true);
    let output = bits(&same_on_both(&kernel, &spec(&input, 128, 64)), "output");
    for (thread, &value) in input.iter().enumerate() {
        let exits = value % 2 == 1;
        let (final_value, mark) = if exits { (1, 0) } else { (2, 7) };
        assert_eq!(output[thread], final_value, "work-item {thread} (input {value:#x})");
        assert_eq!(output[64 + thread], mark, "mark of work-item {thread} (input {value:#x})");
    }
}

/// A module that prints and can trap: the trap status kernel comes first in the module, since
/// LLVM 22's SPIR-V back end fails ("printf uses a format string not in constant address
/// space") on a module where it follows a kernel that prints. Each work-item prints its index;
/// none traps (the input names no work-item), so the launch succeeds.
#[test]
fn a_module_that_prints_and_can_trap_runs() {
    if !opencl_device_available() {
        return;
    }
    let body = r#"
    .local .align 8 .b8 depot[8];
    .reg .b64 %buffer;
    .reg .b64 %format;
    st.local.u32 [depot], %r13;
    mov.u64 %buffer, depot;
    cvta.local.u64 %buffer, %buffer;
    cvta.global.u64 %format, index_format;
    {
    .param .b64 param0;
    st.param.b64 [param0], %format;
    .param .b64 param1;
    st.param.b64 [param1], %buffer;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r2, [retval0];
    }
    ld.global.u32 %r3, [%rd1];
    setp.eq.u32 %p1, %r13, %r3;
    @%p1 trap;"#;
    let declarations = format!(
        ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 \
         vprintf_param_1);\n{}",
        string_global("index_format", "work-item %u\n")
    );
    let kernel = per_thread_kernel(body, "st.global.u32 [%rd4], %r2;").replacen(
        ".visible .entry",
        &format!("{declarations}.visible .entry"),
        1,
    );
    let directory = kernel_and_spec(&kernel, &spec(&[1000; 64], 64, 64));
    validate_spirv(directory.path(), &kernel);
    let output = ptxr(&["run", "kernel.ptx", "--launch", "spec.json", "--target", "spirv"], directory.path());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}\n{kernel}", String::from_utf8_lossy(&output.stderr));
    let json_start = stdout.find("{\n").unwrap_or_else(|| panic!("no JSON in {stdout}"));
    let mut printed: Vec<String> = stdout[..json_start].lines().map(str::to_string).collect();
    printed.sort();
    let mut expected: Vec<String> = (0..64).map(|index| format!("work-item {index}")).collect();
    expected.sort();
    assert_eq!(printed, expected);
    let result: serde_json::Value =
        serde_json::from_str(&stdout[json_start..]).unwrap_or_else(|error| panic!("{error}: {stdout}"));
    // `vprintf` returns the number of arguments it read: one.
    assert_eq!(bits(&result, "output"), vec![1; 64]);
}

/// An `alloca` beyond what a thread's stack holds fails the launch with exit code 1, a message
/// and no JSON: on the CPU instead of a SIGSEGV of the whole process, on OpenCL beyond the
/// private stack that ptxr gives each work-item. An allocation that fits runs on both.
#[test]
fn alloca_past_the_stack_fails_the_launch() {
    let kernel = |bytes: u64| {
        format!(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 out)\n{{\n\t.reg .u64 %rd<4>;\n\tld.param.u64 %rd1, [out];\n\tmov.u64 %rd2, {bytes};\n\talloca.u64 %rd3, %rd2, 16;\n\tst.local.u32 [%rd3], 7;\n\tst.volatile.global.u64 [%rd1], %rd3;\n\tret;\n}}\n"
        )
    };
    let spec = serde_json::json!({
        "grid": [2], "block": [32],
        "buffers": {"out": {"type": "u64", "len": 1}},
        "args": [{"buffer": "out"}]
    });
    let directory = kernel_and_spec(&kernel(1 << 30), &spec);
    let fits = kernel_and_spec(&kernel(1 << 10), &spec);
    let targets: &[&str] = if opencl_device_available() { &["cpu", "spirv"] } else { &["cpu"] };
    for &target in targets {
        assert_launch_fails(directory.path(), target, "`alloca` needed more");
        let output = ptxr(&["run", "kernel.ptx", "--launch", "spec.json", "--target", target], fits.path());
        assert!(output.status.success(), "{target}: {}", String::from_utf8_lossy(&output.stderr));
    }
}
