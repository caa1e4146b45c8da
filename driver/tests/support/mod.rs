//! What the CLI tests share: running the built `ptxr`, finding repository files, and whether an
//! OpenCL device is there. Each test file uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod fixture_kernels;

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

#[path = "../../../tests/src/ptx_text.rs"]
mod ptx_text;
// Each test file uses part of the support module.
#[allow(unused_imports)]
pub use ptx_text::{assertfail_call, printf_kernel, string_global, ASSERTFAIL_DECLARATION};

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
