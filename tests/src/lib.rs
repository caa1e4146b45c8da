//! Workspace-level tests of ptxr: snapshots of the LLVM IR of each example on each target,
//! execution of the examples on the CPU with values computed by the tests themselves, external
//! validators on the GPU targets' output, and the generated coverage table. The tests live in
//! `tests/tests/`; this library holds what they share.

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Reads a file of the repository as text.
pub fn read_repository_file(relative: &str) -> String {
    let path = repository_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// An external validator (spirv-val, llvm-readelf, ptxas). `None` when it is not installed and
/// the run does not require validators; CI sets `PTXR_REQUIRE_VALIDATORS=1` so that a missing
/// tool fails instead of skipping.
pub fn validator(candidates: &[&str]) -> Option<PathBuf> {
    for candidate in candidates {
        let path = PathBuf::from(candidate);
        if path.is_absolute() && path.exists() {
            return Some(path);
        }
        if !path.is_absolute() {
            if let Ok(output) = std::process::Command::new("which").arg(candidate).output() {
                if output.status.success() {
                    return Some(PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()));
                }
            }
        }
    }
    if std::env::var("PTXR_REQUIRE_VALIDATORS").is_ok_and(|value| value == "1") {
        panic!("validator {candidates:?} is required (PTXR_REQUIRE_VALIDATORS=1) but not installed; run scripts/setup.sh");
    }
    eprintln!("skipping: validator {candidates:?} is not installed");
    None
}
