//! PTX written by real compilers checks without a single diagnostic and compiles for every
//! target, with each GPU artefact accepted by the vendor's validator (`vendor_checks`): the
//! fixtures of `tests/fixtures/ptx/` (clang 22 from CUDA and OpenCL C, nvcc 13.5, Triton 3.9,
//! numba-cuda 0.30) and, when the shared folder is beside the checkout, every file of
//! `../shared/corpus`. What a target really cannot do is listed below, file by file, with its
//! reason: any other E0901, any rejection, and any validator complaint fails the test.
//! `driver/tests/real_compilers_run.rs` runs the fixtures' kernels.

use std::path::{Path, PathBuf};

use ptxr_frontend::check_source;
use ptxr_tests::repository_root;
use ptxr_tests::vendor_checks::{compile, shared_folder, Compiled, Validators};

const TARGETS: [&str; 4] = ["cpu", "nvptx", "amdgpu", "spirv"];

/// A file that a target reports unsupported, the construct every E0901 message must name, and
/// why the target cannot do it.
struct Unsupported {
    file: &'static str,
    target: &'static str,
    constructs: &'static [&'static str],
    reason: &'static str,
}

const OPENCL_BUILTIN: &[&str] = &["_Z13get_global_idj"];
const OPENCL_BUILTIN_REASON: &str = "clang's OpenCL C output without libclc declares `get_global_id` \
    without a body; a linked AMDGPU code object has nothing to resolve it against (E0902)";
const EXPECTED_UNSUPPORTED: &[Unsupported] = &[Unsupported {
    file: "corpus/clang/vecadd_cl.sm80.ptx",
    target: "amdgpu",
    constructs: OPENCL_BUILTIN,
    reason: OPENCL_BUILTIN_REASON,
}];

/// The `.ptx` files of a folder, sorted.
fn ptx_files(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "ptx"))
        .collect();
    files.sort();
    files
}

fn fixtures() -> Vec<PathBuf> {
    let files = ptx_files(&repository_root().join("tests/fixtures/ptx"));
    assert!(files.len() >= 30, "expected the real-compiler fixtures, found {files:?}");
    files
}

/// Every file of `../shared/corpus`, or nothing (with a message) when the folder is absent.
fn corpus() -> Vec<PathBuf> {
    let Some(shared) = shared_folder() else {
        eprintln!("skipping the shared corpus: no shared/corpus beside the repository or its parents");
        return Vec::new();
    };
    ["clang", "nvcc", "triton", "numba"]
        .iter()
        .flat_map(|compiler| ptx_files(&shared.join("corpus").join(compiler)))
        .collect()
}

/// The file's name as `EXPECTED_UNSUPPORTED` spells it: `corpus/COMPILER/FILE` or `FILE`.
fn short_name(path: &Path) -> String {
    let file = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    match path.parent().and_then(Path::parent) {
        Some(grandparent) if grandparent.ends_with("corpus") => {
            let compiler = path.parent().and_then(Path::file_name).unwrap_or_default().to_string_lossy();
            format!("corpus/{compiler}/{file}")
        }
        _ => file,
    }
}

#[test]
fn every_fixture_checks_without_a_diagnostic() {
    let mut problems = Vec::new();
    for path in fixtures() {
        let source = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let (module, diagnostics) = check_source(&source);
        if module.is_none() || !diagnostics.is_empty() {
            let messages: Vec<String> = diagnostics.iter().map(|diagnostic| diagnostic.message.clone()).collect();
            problems.push(format!("{}: {}", short_name(&path), messages.join("; ")));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Compiles one file for every target and validates each artefact; returns the problems and
/// counts what compiled.
fn compile_everywhere(
    path: &Path,
    validators: Option<&Validators>,
    scratch: &Path,
    compiled: &mut [usize; 4],
) -> Vec<String> {
    let name = short_name(path);
    let source = std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut problems = Vec::new();
    for (index, target) in TARGETS.iter().enumerate() {
        let expected = EXPECTED_UNSUPPORTED.iter().find(|entry| entry.file == name && entry.target == *target);
        match compile(&source, target) {
            Compiled::Artefact(artefact) => {
                compiled[index] += 1;
                if let Some(entry) = expected {
                    eprintln!("note: {name} now compiles for {target} (listed as unsupported: {})", entry.reason);
                }
                let scratch_name = name.replace('/', "_");
                if let Some(validators) = validators {
                    if let Err(message) = validators.check(target, &scratch_name, &source, &artefact, scratch) {
                        problems.push(format!(
                            "{name} on {target}: {}",
                            message.lines().take(6).collect::<Vec<_>>().join(" | ")
                        ));
                    }
                }
            }
            Compiled::Unsupported(messages) => match expected {
                None => problems.push(format!("{name} on {target}: unexpectedly unsupported: {}", messages.join("; "))),
                Some(entry) => {
                    for message in messages {
                        let named = entry.constructs.iter().any(|construct| message.contains(construct));
                        // E0901 names the target; E0902 (an unlinked function) does not.
                        let located =
                            message.ends_with(&format!("on {target}")) || message.contains("has no definition");
                        if !named || !located {
                            problems.push(format!("{name} on {target}: an E0901 outside the listed reason: {message}"));
                        }
                    }
                }
            },
            Compiled::Rejected(message) => problems.push(format!("{name} on {target}: rejected: {message:.400}")),
        }
    }
    problems
}

#[test]
fn real_compiler_ptx_compiles_for_every_target_and_passes_the_validators() {
    let validators = Validators::find();
    let scratch = std::env::temp_dir().join(format!("ptxr-real-compilers-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let files: Vec<PathBuf> = fixtures().into_iter().chain(corpus()).collect();
    let mut compiled = [0usize; 4];
    let problems: Vec<String> =
        files.iter().flat_map(|path| compile_everywhere(path, validators.as_ref(), &scratch, &mut compiled)).collect();
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "{} files: compiled for cpu {}, nvptx {}, amdgpu {}, spirv {}{}",
        files.len(),
        compiled[0],
        compiled[1],
        compiled[2],
        compiled[3],
        if validators.is_some() { ", every GPU artefact validated" } else { " (validators missing: not validated)" }
    );
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
