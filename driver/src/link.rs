//! Linking AMDGPU objects into loadable code objects (`.hsaco`) with LLVM's `ld.lld`, from the
//! same LLVM installation that ptxr is built against.

use std::path::PathBuf;
use std::process::Command;

/// The `ld.lld` that belongs to the pinned LLVM: `$LLVM_SYS_221_PREFIX/bin/ld.lld` as set at
/// build time, else `ld.lld-22` on PATH.
pub fn linker_path() -> PathBuf {
    if let Some(prefix) = option_env!("LLVM_SYS_221_PREFIX") {
        let candidate = PathBuf::from(prefix).join("bin").join("ld.lld");
        if candidate.exists() {
            return candidate;
        }
    }
    PathBuf::from("ld.lld-22")
}

/// Links one relocatable AMDGPU object into a shared code object and returns its bytes.
pub fn link_code_object(object: &[u8]) -> Result<Vec<u8>, String> {
    let directory = tempfile::tempdir().map_err(|error| format!("cannot create a temporary directory: {error}"))?;
    let input = directory.path().join("kernel.o");
    let output = directory.path().join("kernel.hsaco");
    std::fs::write(&input, object).map_err(|error| format!("cannot write {}: {error}", input.display()))?;
    let linker = linker_path();
    let result =
        Command::new(&linker).arg("-shared").arg(&input).arg("-o").arg(&output).output().map_err(|error| {
            format!("cannot run {} (install lld-22 with scripts/setup.sh): {error}", linker.display())
        })?;
    if !result.status.success() {
        return Err(format!("{} failed: {}", linker.display(), String::from_utf8_lossy(&result.stderr).trim()));
    }
    std::fs::read(&output).map_err(|error| format!("cannot read {}: {error}", output.display()))
}
