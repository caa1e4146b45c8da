//! Every kernel that ptxr compiles for a GPU target passes that vendor's checks: NVIDIA's
//! `ptxas` accepts the NVPTX output, `spirv-val` accepts the SPIR-V for the OpenCL environment
//! of its version, and the AMDGPU code object's metadata (read by `llvm-readelf`) lists every
//! kernel with its wave size and segment sizes.
//!
//! The kernels: the repository's PTX (examples, fixtures, benchmark kernels) and, when the
//! shared folder is beside the checkout, every execution test of `../shared/conformance`.
//! A kernel that a target reports as unsupported is skipped for that target (the coverage
//! table and the conformance runs account for those); every artefact that is produced is
//! checked.

use std::path::{Path, PathBuf};

use ptxr_tests::repository_root;
use ptxr_tests::vendor_checks::{compile, Compiled, Validators};

/// The PTX files to compile: the repository's, then the shared conformance kernels if present.
fn kernels() -> Vec<PathBuf> {
    let root = repository_root();
    let mut files = Vec::new();
    for folder in ["examples", "bench/kernels", "tests/fixtures/ptx", "../shared/conformance/zluda/ptx"] {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else { continue };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|extension| extension == "ptx"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// Compiles `path` for the three GPU targets and checks each artefact; returns the problems.
fn check(path: &Path, validators: &Validators, scratch: &Path) -> Vec<String> {
    let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let Ok(source) = std::fs::read_to_string(path) else { return vec![format!("{}: unreadable", path.display())] };
    let mut problems = Vec::new();
    for target in ["nvptx", "spirv", "amdgpu"] {
        match compile(&source, target) {
            Compiled::Artefact(artefact) => {
                if let Err(message) = validators.check(target, &name, &source, &artefact, scratch) {
                    problems.push(format!(
                        "{name} on {target}: {}",
                        message.lines().take(4).collect::<Vec<_>>().join(" | ")
                    ));
                }
            }
            Compiled::Unsupported(_) => {}
            Compiled::Rejected(message) => eprintln!("note: {name} is rejected before lowering: {message:.200}"),
        }
    }
    problems
}

#[test]
fn every_gpu_artefact_passes_the_vendors_checks() {
    let Some(validators) = Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-gpu-validation-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));

    let files = kernels();
    assert!(files.len() >= 8, "expected the repository's kernels, found {files:?}");
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get()).min(4);
    let problems: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(files.len().div_ceil(workers))
            .map(|chunk| {
                scope.spawn(|| chunk.iter().flat_map(|path| check(path, &validators, &scratch)).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap_or_else(|_| vec!["a worker panicked".to_string()]))
            .collect()
    });
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        problems.is_empty(),
        "{} of {} kernels failed a vendor check:\n{}",
        problems.len(),
        files.len(),
        problems.join("\n")
    );
}
