//! The `ptxr` binary as users and scripts see it: exit codes, where output goes, and that a
//! failed compilation leaves nothing behind.

use std::path::Path;

mod support;
use support::{ptxr, repository_file, scratch};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n\n";

fn write(directory: &Path, name: &str, text: &str) -> String {
    std::fs::write(directory.join(name), text).unwrap_or_else(|error| panic!("{error}"));
    name.to_string()
}

#[test]
fn syntax_error_reports_file_line_column_and_expectation() {
    let directory = scratch();
    let input = write(
        directory.path(),
        "bad.ptx",
        &format!("{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r0, %r1 %r2;\n\tret;\n}}\n"),
    );
    let output = ptxr(&["compile", &input, "-o", "bad.o"], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("bad.ptx:8:19"), "no file:line:column in:\n{stderr}");
    assert!(stderr.contains("expected `,` or `;`"), "no expectation in:\n{stderr}");
    assert!(!directory.path().join("bad.o").exists(), "a failed compilation left an output file");
}

#[test]
fn unsupported_instruction_names_instruction_and_target() {
    let directory = scratch();
    let input = write(
        directory.path(),
        "surface.ptx",
        &format!(
            "{HEADER}.visible .entry k(.param .u64 surface)\n{{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\t\
             ld.param.u64 %rd1, [surface];\n\ttex.2dms.v4.s32.s32 {{%r1, %r1, %r1, %r1}}, [%rd1, {{%r1, %r1, %r1, %r1}}];\n\tret;\n}}\n"
        ),
    );
    // Multisample textures are not lowered for any target yet.
    std::fs::write(directory.path().join("surface.hsaco"), b"previous").unwrap_or_else(|error| panic!("{error}"));
    let output = ptxr(&["compile", &input, "--target", "amdgpu", "-o", "surface.hsaco"], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("unsupported: `tex.2dms.v4.s32.s32` on amdgpu"), "{stderr}");
    assert!(stderr.contains("surface.ptx:10:2"), "{stderr}");
    // The earlier file at -o is untouched: outputs are replaced only when complete.
    assert_eq!(std::fs::read(directory.path().join("surface.hsaco")).unwrap_or_default(), b"previous");
}

/// NVPTX with an explicit `--arch` older than an instruction needs: E0302 before LLVM runs
/// (LLVM would fail to select the intrinsic), naming the instruction and the `sm_` it needs;
/// without `--arch` the module's `.target` is used and it compiles.
#[test]
fn an_explicit_architecture_too_old_for_an_instruction_is_reported() {
    let directory = scratch();
    let input = write(
        directory.path(),
        "redux.ptx",
        &format!(
            "{HEADER}.visible .entry k(.param .u64 out)\n{{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n\t\
             ld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tredux.sync.add.u32 %r2, %r1, 0xffffffff;\n\t\
             st.global.u32 [%rd1], %r2;\n\tret;\n}}\n"
        ),
    );
    let output =
        ptxr(&["compile", &input, "--target", "nvptx", "--arch", "sm_70", "-o", "redux.sm70.ptx"], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`redux.sync.add.u32` needs sm_80 or later, but the module is compiled for sm_70"),
        "{stderr}"
    );
    assert!(stderr.contains("redux.ptx:11:2"), "{stderr}");
    assert!(!stderr.contains("E0999"), "{stderr}");
    assert!(!directory.path().join("redux.sm70.ptx").exists());
    for arguments in [&["--arch", "sm_80"][..], &[]] {
        let mut command = vec!["compile", &input, "--target", "nvptx", "-o", "redux.ptx"];
        command.extend_from_slice(arguments);
        let output = ptxr(&command, directory.path());
        assert!(output.status.success(), "{arguments:?}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

/// The same for the warp matrix instructions, whose NVVM intrinsics exist only from their
/// shape's `sm_`: `mma.m16n8k16` needs sm_80 (PTX ISA 9.7.13.4's target notes), `ldmatrix` sm_75.
#[test]
fn matrix_instructions_are_reported_below_their_architecture() {
    let directory = scratch();
    let input = write(
        directory.path(),
        "mma.ptx",
        &format!(
            "{HEADER}.visible .entry k(.param .u64 out)\n{{\n\t.reg .b32 %r<8>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<2>;\n\t\
             ld.param.u64 %rd1, [out];\n\tmma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {{%f1,%f2,%f3,%f4}}, \
             {{%r1,%r2,%r3,%r4}}, {{%r5,%r6}}, {{%f5,%f6,%f7,%f8}};\n\tst.global.f32 [%rd1], %f1;\n\tret;\n}}\n"
        ),
    );
    for (arch, expected) in [
        ("sm_70", Some("needs sm_80 or later, but the module is compiled for sm_70")),
        ("sm_75", Some("sm_80")),
        ("sm_80", None),
    ] {
        let output =
            ptxr(&["compile", &input, "--target", "nvptx", "--arch", arch, "-o", "mma.out.ptx"], directory.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("E0999"), "{arch}: {stderr}");
        match expected {
            Some(text) => {
                assert_eq!(output.status.code(), Some(1), "{arch}: {stderr}");
                assert!(stderr.contains("E0302") && stderr.contains(text), "{arch}: {stderr}");
            }
            None => assert!(output.status.success(), "{arch}: {stderr}"),
        }
    }
}

#[test]
fn compile_writes_each_targets_natural_artefact() {
    let directory = scratch();
    let input = repository_file("examples/saxpy.ptx");
    let input = input.to_string_lossy();
    for (target, output_name, magic) in [
        ("cpu", "saxpy.o", &b"\x7fELF"[..]),
        ("nvptx", "saxpy.ptx", &b"//\n// Generated by LLVM NVPTX"[..]),
        ("amdgpu", "saxpy.hsaco", &b"\x7fELF"[..]),
        ("spirv", "saxpy.spv", &[0x03, 0x02, 0x23, 0x07][..]),
        ("x86_64-unknown-linux-gnu", "saxpy-x86.o", &b"\x7fELF"[..]),
        ("aarch64-unknown-linux-gnu", "saxpy-arm.o", &b"\x7fELF"[..]),
    ] {
        let output = ptxr(&["compile", &input, "--target", target, "-o", output_name], directory.path());
        assert!(output.status.success(), "{target}: {}", String::from_utf8_lossy(&output.stderr));
        let bytes = std::fs::read(directory.path().join(output_name)).unwrap_or_default();
        assert!(bytes.starts_with(magic), "{target}: {output_name} does not start with {magic:?}");
    }
    let output =
        ptxr(&["compile", &input, "--target", "nvptx", "--emit", "llvm", "-O0", "-o", "saxpy.ll"], directory.path());
    assert!(output.status.success());
    let ir = std::fs::read_to_string(directory.path().join("saxpy.ll")).unwrap_or_default();
    assert!(ir.contains("define ptx_kernel void @saxpy"), "{ir}");
}

#[test]
fn bad_target_and_arch_are_errors() {
    let directory = scratch();
    let input = repository_file("examples/saxpy.ptx");
    let input = input.to_string_lossy();
    let output = ptxr(&["compile", &input, "--target", "banana", "-o", "x.o"], directory.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown target `banana`"));
    let output = ptxr(&["compile", &input, "--target", "nvptx", "--arch", "gfx90a", "-o", "x.ptx"], directory.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid --arch `gfx90a` for nvptx"));
    assert!(!directory.path().join("x.o").exists() && !directory.path().join("x.ptx").exists());
}

#[test]
fn run_prints_the_launch_result_as_json() {
    let directory = scratch();
    let spec = write(
        directory.path(),
        "spec.json",
        r#"{ "grid": [2], "block": [3],
             "buffers": { "a": { "type": "f32", "data": [1, 2, 3, 4, 5] }, "b": { "type": "f32", "data": [10, 20, 30, 40, 50] },
                          "c": { "type": "f32", "len": 5 } },
             "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "c" }, { "type": "s32", "value": 5 }] }"#,
    );
    let input = repository_file("examples/vector_add.ptx");
    let output = ptxr(&["run", &input.to_string_lossy(), "--launch", &spec], directory.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(json["kernel"], "vector_add");
    assert_eq!(json["buffers"]["c"]["data"], serde_json::json!([11.0, 22.0, 33.0, 44.0, 55.0]));
    assert_eq!(json["buffers"]["c"]["bits"][0], "0x41300000");
    assert!(json["elapsed_ms"].as_f64().is_some_and(|milliseconds| milliseconds >= 0.0));
}

#[test]
fn run_errors_leave_stdout_empty() {
    let directory = scratch();
    let input = repository_file("examples/vector_add.ptx");
    let input = input.to_string_lossy();
    // One argument too few for vector_add(a, b, c, n).
    let spec = write(
        directory.path(),
        "short.json",
        r#"{ "grid": [1], "block": [1], "buffers": { "a": { "type": "f32", "len": 1 } }, "args": [{ "buffer": "a" }] }"#,
    );
    let output = ptxr(&["run", &input, "--launch", &spec], directory.path());
    assert_ne!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty(), "partial stdout: {}", String::from_utf8_lossy(&output.stdout));
    assert!(!output.stderr.is_empty());
    let spec = write(directory.path(), "broken.json", "{ \"grid\": [1,");
    let output = ptxr(&["run", &input, "--launch", &spec], directory.path());
    assert_ne!(output.status.code(), Some(0));
    assert!(output.stdout.is_empty());
    let spec = write(directory.path(), "other.json", r#"{ "kernel": "nope", "args": [] }"#);
    let output = ptxr(&["run", &input, "--launch", &spec], directory.path());
    assert_ne!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no kernel `nope`"));
}

#[test]
fn check_reports_json_diagnostics_for_tools() {
    let directory = scratch();
    let input = write(
        directory.path(),
        "bad.ptx",
        &format!("{HEADER}.visible .entry k()\n{{\n\tadd.s32 %r0, %r1, %r2;\n\tret;\n}}\n"),
    );
    let output = ptxr(&["check", &input, "--error-format", "json"], directory.path());
    assert_eq!(output.status.code(), Some(1));
    let first_line = String::from_utf8_lossy(&output.stderr).lines().next().unwrap_or_default().to_string();
    let diagnostic: serde_json::Value =
        serde_json::from_str(&first_line).unwrap_or_else(|error| panic!("{error}: {first_line}"));
    assert_eq!(diagnostic["code"], "E0101");
    assert_eq!(diagnostic["labels"][0]["line"], 7);
    let good = repository_file("examples/saxpy.ptx");
    let output = ptxr(&["check", &good.to_string_lossy()], directory.path());
    assert!(output.status.success() && output.stderr.is_empty());
}

#[test]
fn binary_garbage_is_a_clear_error() {
    let directory = scratch();
    std::fs::write(directory.path().join("garbage.ptx"), [0xff, 0xfe, 0x00, 0x41])
        .unwrap_or_else(|error| panic!("{error}"));
    let output = ptxr(&["compile", "garbage.ptx", "-o", "garbage.o"], directory.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not UTF-8"));
}

#[test]
fn a_trap_fails_the_run_with_a_message_and_no_json() {
    let directory = scratch();
    let kernel = write(
        directory.path(),
        "trap.ptx",
        &format!("{HEADER}.visible .entry k(.param .u64 out)\n{{\n\t.reg .u64 %rd1;\n\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], 7;\n\ttrap;\n}}\n"),
    );
    let spec = write(
        directory.path(),
        "spec.json",
        r#"{"grid": [2], "block": [4], "buffers": {"out": {"type": "u32", "len": 1}}, "args": [{"buffer": "out"}]}"#,
    );
    let output = ptxr(&["run", &kernel, "--launch", &spec], directory.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "no JSON after a trap: {}", String::from_utf8_lossy(&output.stdout));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("trap"), "{stderr}");
}

#[test]
fn output_dash_writes_the_artefact_to_stdout() {
    let directory = scratch();
    let input = repository_file("examples/vector_add.ptx");
    let output = ptxr(&["compile", &input.to_string_lossy(), "--target", "nvptx", "-o", "-"], directory.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains(".visible .entry vector_add"), "{text}");
    assert!(!directory.path().join("-").exists(), "no file named `-`");
}

#[test]
fn run_prints_printf_text_before_the_json_and_a_failed_assertion_on_stderr() {
    let directory = scratch();
    // Thread 0 prints "value 7\n" (format "value %d\n"); with `fail` set, it then asserts.
    let kernel = format!(
        "{HEADER}.extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 arguments);\n\
         .extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, .param .b64 function, .param .b64 char_size);\n\
         .global .align 1 .b8 text[10] = {{118, 97, 108, 117, 101, 32, 37, 100, 10, 0}};\n\
         .global .align 1 .b8 what[6] = {{102, 97, 108, 115, 101, 0}};\n\
         .visible .entry k(.param .u64 out, .param .u32 fail)\n{{\n\
         .local .align 4 .b8 depot[4];\n.reg .u64 %rd<4>;\n.reg .u32 %r<3>;\n.reg .pred %p1;\n\
         mov.u64 %rd1, depot;\nst.local.u32 [%rd1], 7;\ncvta.local.u64 %rd1, %rd1;\ncvta.global.u64 %rd2, text;\n\
         {{\n.param .b64 param0;\nst.param.b64 [param0], %rd2;\n.param .b64 param1;\nst.param.b64 [param1], %rd1;\n\
         .param .b32 retval0;\ncall.uni (retval0), vprintf, (param0, param1);\nld.param.b32 %r1, [retval0];\n}}\n\
         ld.param.u32 %r2, [fail];\nsetp.eq.u32 %p1, %r2, 0;\n@%p1 bra DONE;\ncvta.global.u64 %rd3, what;\n\
         {{\n.param .b64 m;\nst.param.b64 [m], %rd3;\n.param .b64 f;\nst.param.b64 [f], %rd3;\n.param .b32 l;\nst.param.b32 [l], 3;\n\
         .param .b64 n;\nst.param.b64 [n], %rd3;\n.param .b64 c;\nst.param.b64 [c], 1;\n\
         call.uni __assertfail, (m, f, l, n, c);\n}}\n\
         DONE:\nld.param.u64 %rd3, [out];\nst.global.u32 [%rd3], %r1;\nret;\n}}\n"
    );
    let kernel = write(directory.path(), "print.ptx", &kernel);
    for fail in [0, 1] {
        let spec = write(
            directory.path(),
            "spec.json",
            &format!(
                r#"{{"grid": [1], "block": [1], "buffers": {{"out": {{"type": "u32", "len": 1}}}}, "args": [{{"buffer": "out"}}, {{"type": "u32", "value": {fail}}}]}}"#
            ),
        );
        let output = ptxr(&["run", &kernel, "--launch", &spec], directory.path());
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // CUDA's printf output comes first, as the kernel ran.
        assert!(stdout.starts_with("value 7\n"), "stdout: {stdout}\nstderr: {stderr}");
        if fail == 0 {
            assert_eq!(output.status.code(), Some(0), "{stderr}");
            let json: serde_json::Value =
                serde_json::from_str(&stdout["value 7\n".len()..]).unwrap_or_else(|error| panic!("{error}: {stdout}"));
            // vprintf returned the number of arguments it read.
            assert_eq!(json["buffers"]["out"]["data"][0], 1, "{stdout}");
        } else {
            assert_eq!(output.status.code(), Some(1));
            assert_eq!(stdout, "value 7\n", "no JSON after a failed assertion");
            assert!(stderr.contains("false:3: false: Assertion `false` failed."), "{stderr}");
        }
    }
}

#[test]
fn writes_past_a_buffer_are_caught_by_its_guard_zone_and_reported() {
    // Eight threads each store their index at out[tid], but `out` holds four u32: threads 4 to
    // 7 write the 16 bytes after it. The guard counts bytes that are no longer zero: each of
    // the little-endian values 4 to 7 has one, so 4 bytes changed.
    let directory = scratch();
    let kernel = format!(
        "{HEADER}.visible .entry spill(.param .u64 out)\n{{\n\t.reg .u32 %r<2>;\n\t.reg .u64 %rd<4>;\n\
         \tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\
         \tadd.u64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r1;\n\tret;\n}}\n"
    );
    let input = write(directory.path(), "spill.ptx", &kernel);
    let spec = write(
        directory.path(),
        "spec.json",
        r#"{ "grid": [1], "block": [8], "buffers": { "out": { "type": "u32", "len": 4 } }, "args": [{ "buffer": "out" }] }"#,
    );
    let output = ptxr(&["run", &input, "--launch", &spec], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(json["buffers"]["out"]["data"], serde_json::json!([0, 1, 2, 3]));
    assert!(stderr.contains("W0901"), "{stderr}");
    assert!(stderr.contains("kernel `spill` wrote past the end of buffer `out`"), "{stderr}");
    assert!(stderr.contains("4 byte(s) of the 4096-byte guard zone"), "{stderr}");
}

/// On SPIR-V, `vprintf` becomes OpenCL's printf, which needs its format at compile time: a format
/// address loaded from memory and a format written by two instructions are each reported at the
/// call, naming the target, and no output file is written. The same kernel with the format
/// traced compiles, and so does one whose `%s` argument is no traced string constant (it is
/// printed from memory at run time, `intrinsics/src/printf_strings.rs`).
#[test]
fn printf_on_spirv_reports_formats_it_cannot_trace() {
    let directory = scratch();
    let kernel = |format_text: &str, format_address: &str| {
        let bytes: Vec<String> = format_text.bytes().chain([0]).map(|byte| byte.to_string()).collect();
        format!(
            "{HEADER}.extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 arguments);\n\
             .global .align 1 .b8 text[{}] = {{{}}};\n\
             .visible .entry k(.param .u64 out, .param .u64 where)\n{{\n\
             .local .align 8 .b8 depot[8];\n.reg .u64 %rd<4>;\n.reg .u32 %r1;\n.reg .pred %p1;\n\
             mov.u64 %rd1, depot;\nst.local.u32 [%rd1], 7;\ncvta.local.u64 %rd1, %rd1;\n{format_address}\n\
             {{\n.param .b64 param0;\nst.param.b64 [param0], %rd2;\n.param .b64 param1;\nst.param.b64 [param1], %rd1;\n\
             .param .b32 retval0;\ncall.uni (retval0), vprintf, (param0, param1);\nld.param.b32 %r1, [retval0];\n}}\n\
             ld.param.u64 %rd3, [out];\nst.global.u32 [%rd3], %r1;\nret;\n}}\n",
            bytes.len(),
            bytes.join(", ")
        )
    };
    let traced = "cvta.global.u64 %rd2, text;";
    let cases = [
        (
            kernel("value %d\n", "ld.param.u64 %rd2, [where];"),
            "unsupported: `vprintf` with a format string that is not a constant .global or .const array on spirv",
        ),
        (
            kernel("value %d\n", "cvta.global.u64 %rd2, text;\nsetp.eq.u64 %p1, %rd1, 0;\n@%p1 mov.u64 %rd2, 0;"),
            "unsupported: `vprintf` with a format string that is not a constant .global or .const array on spirv",
        ),
    ];
    for (ptx, message) in cases {
        let input = write(directory.path(), "print.ptx", &ptx);
        let output = ptxr(&["compile", &input, "--target", "spirv", "-o", "print.spv"], directory.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}\n{ptx}");
        assert!(stderr.contains(message), "{stderr}");
        let call_line = ptx.lines().position(|line| line.starts_with("call.uni")).map_or(0, |index| index + 1);
        assert!(stderr.contains(&format!("print.ptx:{call_line}:1")), "the call's line: {stderr}");
        assert!(!directory.path().join("print.spv").exists(), "no partial output");
    }
    for format in ["value %d\n", "name %s\n"] {
        let input = write(directory.path(), "print.ptx", &kernel(format, traced));
        let output = ptxr(&["compile", &input, "--target", "spirv", "-o", "print.spv"], directory.path());
        assert!(output.status.success(), "{format}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

/// `.extern .func abs` is not resolved against the host's `abs` (the C library's): a complete
/// program (a run, an AMDGPU code object) reports it, while the artefacts that a linker
/// completes (PTX for NVPTX, object files) keep the declaration.
#[test]
fn an_extern_function_without_a_definition_is_reported_where_nothing_links_it() {
    let directory = scratch();
    let kernel = "\n.visible .entry call_abs(.param .u64 data)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\
                  \tld.param.u64 %rd1, [data];\n\tld.global.u32 %r1, [%rd1];\n\t{\n\t.param .b32 x;\n\t.param .b32 result;\n\
                  \tst.param.b32 [x], %r1;\n\tcall.uni (result), abs, (x);\n\tld.param.b32 %r2, [result];\n\t}\n\
                  \tst.global.u32 [%rd1], %r2;\n\tret;\n}\n";
    let declaration = ".extern .func (.param .b32 result) abs(.param .b32 x);\n";
    let input = write(directory.path(), "abs.ptx", &format!("{HEADER}{declaration}{kernel}"));
    let spec = write(
        directory.path(),
        "abs.json",
        r#"{ "grid": [1], "block": [1], "buffers": { "d": { "type": "s32", "data": [-5] } }, "args": [{ "buffer": "d" }] }"#,
    );
    let output = ptxr(&["run", &input, "--launch", &spec], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(output.stdout.is_empty(), "the kernel ran: {}", String::from_utf8_lossy(&output.stdout));
    assert!(stderr.contains("E0902"), "{stderr}");
    assert!(
        stderr.contains("`.extern .func abs` has no definition in this module and is not a function ptxr provides"),
        "{stderr}"
    );
    assert!(stderr.contains("abs.ptx:5:1"), "not at the declaration: {stderr}");

    let output = ptxr(&["compile", "--target", "amdgpu", &input, "-o", "abs.hsaco"], directory.path());
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("E0902"));
    assert!(!directory.path().join("abs.hsaco").exists(), "a failed compilation left an output file");

    // Artefacts for a later link keep the declaration.
    for (target, extra, file) in [
        ("nvptx", None, "abs.ptx.out"),
        ("cpu", None, "abs.o"),
        ("amdgpu", Some("obj"), "abs.amdgpu.o"),
        ("spirv", None, "abs.spv"),
    ] {
        let mut arguments = vec!["compile", "--target", target, &input, "-o", file];
        if let Some(emit) = extra {
            arguments.extend(["--emit", emit]);
        }
        let output = ptxr(&arguments, directory.path());
        assert!(output.status.success(), "{target}: {}", String::from_utf8_lossy(&output.stderr));
    }
    let ptx = std::fs::read_to_string(directory.path().join("abs.ptx.out")).unwrap_or_default();
    assert!(ptx.contains(".extern .func"), "no external declaration in:\n{ptx}");

    // Defined in the module, the same call runs the module's function, not the host's.
    let definition = ".func (.param .b32 result) abs(.param .b32 x)\n{\n\t.reg .b32 %t<3>;\n\tld.param.b32 %t1, [x];\n\
                      \tadd.s32 %t2, %t1, 100;\n\tst.param.b32 [result], %t2;\n\tret;\n}\n";
    let input = write(directory.path(), "defined.ptx", &format!("{HEADER}{definition}{kernel}"));
    let output = ptxr(&["run", &input, "--launch", &spec], directory.path());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(json["buffers"]["d"]["data"], serde_json::json!([95]));
}

/// A producer/consumer split by warp at counted barriers (warp 0 arrives, warp 1 waits). On a
/// wave64 processor (gfx90a, the default) the two warps share one wave, which can wait for
/// itself: W0902 at the first counted barrier, and the compilation still succeeds. A wave32
/// processor (gfx1100) and the other targets get no warning.
#[test]
fn counted_barriers_warn_on_wave64_amdgpu_only() {
    let directory = scratch();
    let input = write(
        directory.path(),
        "producer.ptx",
        &format!(
            "{HEADER}.visible .entry k()\n{{\n\t.reg .b32 %r<2>;\n\t.reg .pred %p<2>;\n\t\
             mov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 32;\n\t@%p1 bra PRODUCE;\n\t\
             bar.sync 1, 64;\n\tret;\nPRODUCE:\n\tbar.arrive 1, 64;\n\tret;\n}}\n"
        ),
    );
    for arguments in [&[][..], &["--arch", "gfx942"]] {
        let mut command = vec!["compile", &input, "--target", "amdgpu", "-o", "producer.hsaco"];
        command.extend_from_slice(arguments);
        let output = ptxr(&command, directory.path());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{arguments:?}: {stderr}");
        assert!(stderr.contains("[W0902] Warning: counted barriers may hang on wave64"), "{arguments:?}: {stderr}");
        assert!(stderr.contains("producer.ptx:12:2"), "{arguments:?}: {stderr}");
        assert!(stderr.contains("wave32 processor"), "{arguments:?}: {stderr}");
        assert!(directory.path().join("producer.hsaco").exists());
    }
    let output = ptxr(
        &["compile", &input, "--target", "amdgpu", "--error-format", "json", "-o", "producer.hsaco"],
        directory.path(),
    );
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let diagnostic: serde_json::Value =
        serde_json::from_str(stderr.lines().next().unwrap_or_default()).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!((&diagnostic["code"], &diagnostic["severity"]), (&"W0902".into(), &"warning".into()));
    assert_eq!((&diagnostic["labels"][0]["line"], &diagnostic["labels"][0]["column"]), (&12.into(), &2.into()));
    for (target, arch, output_name) in
        [("amdgpu", Some("gfx1100"), "wave32.hsaco"), ("nvptx", None, "producer.s"), ("cpu", None, "producer.o")]
    {
        let mut command = vec!["compile", &input, "--target", target, "-o", output_name];
        command.extend(arch.iter().flat_map(|arch| ["--arch", *arch]));
        let output = ptxr(&command, directory.path());
        assert!(output.status.success(), "{target}: {}", String::from_utf8_lossy(&output.stderr));
        assert!(output.stderr.is_empty(), "{target}: {}", String::from_utf8_lossy(&output.stderr));
    }
}

/// The checker's warnings are printed when lowering then fails, as when it succeeds: W0003 for
/// the truncated immediate, then E0901 for the multisample texture, and exit code 1.
#[test]
fn warnings_before_a_lowering_error_are_printed_with_it() {
    let directory = scratch();
    let input = write(
        directory.path(),
        "both.ptx",
        &format!(
            "{HEADER}.visible .entry k(.param .u64 surface)\n{{\n\t.reg .b16 %h<2>;\n\t.reg .b32 %r<2>;\n\t\
             .reg .b64 %rd<2>;\n\tmov.b16 %h1, 70000;\n\tld.param.u64 %rd1, [surface];\n\t\
             tex.2dms.v4.s32.s32 {{%r1, %r1, %r1, %r1}}, [%rd1, {{%r1, %r1, %r1, %r1}}];\n\tret;\n}}\n"
        ),
    );
    let output = ptxr(&["compile", &input, "--target", "amdgpu", "-o", "both.hsaco"], directory.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let warning = stderr.find("[W0003]").unwrap_or_else(|| panic!("no W0003 in:\n{stderr}"));
    let error = stderr.find("[E0901]").unwrap_or_else(|| panic!("no E0901 in:\n{stderr}"));
    assert!(warning < error, "{stderr}");
    assert!(stderr.contains("both.ptx:10:15"), "{stderr}");
    assert!(!directory.path().join("both.hsaco").exists());
}
