//! What the CLI tests share: running the built `ptxr`, finding repository files, and whether an
//! OpenCL device is there. Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the built `ptxr` with `arguments` in `directory`, without colour.
pub fn ptxr(arguments: &[&str], directory: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ptxr"))
        .args(arguments)
        .current_dir(directory)
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|error| panic!("cannot run ptxr: {error}"))
}

/// A temporary directory for one test's files, removed when dropped.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"))
}

/// A path relative to the repository root.
pub fn repository_file(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
}

/// A NUL-terminated string as a `.global` byte array, as nvcc writes string literals.
pub fn string_global(name: &str, text: &str) -> String {
    let bytes: Vec<String> = text.bytes().chain([0]).map(|byte| byte.to_string()).collect();
    format!(".global .align 1 .b8 {name}[{}] = {{{}}};\n", bytes.len(), bytes.join(", "))
}

/// The `.extern` declaration of CUDA's `__assertfail`, as nvcc writes it.
pub const ASSERTFAIL_DECLARATION: &str = ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param \
                                          .b32 line, .param .b64 function, .param .b64 char_size);\n";

/// A call of `__assertfail` in its own scope, as nvcc writes it, with the `.global` strings
/// `message`, `file` and `function` (see [`string_global`]) and source line `line`.
pub fn assertfail_call(line: u32) -> String {
    format!(
        "{{
    .reg .b64 %a<4>;
    cvta.global.u64 %a1, message;
    cvta.global.u64 %a2, file;
    cvta.global.u64 %a3, function;
    .param .b64 param0;
    st.param.b64 [param0], %a1;
    .param .b64 param1;
    st.param.b64 [param1], %a2;
    .param .b32 param2;
    st.param.b32 [param2], {line};
    .param .b64 param3;
    st.param.b64 [param3], %a3;
    .param .b64 param4;
    st.param.b64 [param4], 1;
    call.uni __assertfail, (param0, param1, param2, param3, param4);
    }}"
    )
}

/// Whether an OpenCL device is there. Without one the OpenCL runs are skipped, unless every
/// validator is required (`PTXR_REQUIRE_VALIDATORS=1`, as scripts/test.sh sets after installing
/// a platform).
pub fn opencl_device_available() -> bool {
    let output = ptxr(&["devices"], Path::new("."));
    let listing = String::from_utf8_lossy(&output.stdout);
    if output.status.success() && listing.lines().any(|line| line.starts_with("0: ") && !line.contains("unusable")) {
        return true;
    }
    let why = format!("no usable OpenCL device: {}{}", listing.trim(), String::from_utf8_lossy(&output.stderr).trim());
    if std::env::var("PTXR_REQUIRE_VALIDATORS").is_ok_and(|value| value == "1") {
        panic!("an OpenCL device is required (PTXR_REQUIRE_VALIDATORS=1): {why}");
    }
    eprintln!("skipping the OpenCL runs: {why}");
    false
}
