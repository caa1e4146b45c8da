//! Every kernel that ptxr compiles for a GPU target passes that vendor's checks: NVIDIA's
//! `ptxas` accepts the NVPTX output, `spirv-val` accepts the SPIR-V for the OpenCL environment
//! of its version, and the AMDGPU code object's metadata (read by `llvm-readelf`) lists every
//! kernel with its wave size and segment sizes.
//!
//! The kernels: the repository's PTX (examples, fixtures, benchmark kernels, the hand-written
//! kernels of `tests/fixtures/kernels`) and, when the
//! shared folder is beside the checkout, every execution test of `../shared/conformance`.
//! A kernel that a target reports as unsupported is skipped for that target (the coverage
//! table and the conformance runs account for those); every artefact that is produced is
//! checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::diagnostic::Code;
use ptxr_tests::{repository_root, validator};

/// The PTX files to compile: the repository's, then the shared conformance kernels if present.
fn kernels() -> Vec<PathBuf> {
    let root = repository_root();
    let mut files = Vec::new();
    for folder in
        ["examples", "bench/kernels", "tests/fixtures/ptx", "tests/fixtures/kernels", "../shared/conformance/zluda/ptx"]
    {
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

/// The `.entry` names of a PTX module.
fn entry_names(ptx: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (index, _) in ptx.match_indices(".entry") {
        let rest = ptx[index + ".entry".len()..].trim_start();
        let name: String = rest
            .chars()
            .take_while(|&character| character.is_ascii_alphanumeric() || "_$".contains(character))
            .collect();
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
}

enum Compiled {
    Artefact(Vec<u8>),
    Unsupported,
    /// Not a target's limit: the frontend rejects the file, which other tests cover.
    Rejected(String),
}

fn compile(source: &str, target: &str) -> Compiled {
    let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: None, optimization: 2 };
    match compile_source(source, "kernel", &options) {
        Ok(artifact) => Compiled::Artefact(artifact.bytes),
        Err(Failure::Diagnostics(diagnostics))
            if diagnostics.iter().any(|diagnostic| diagnostic.code == Code::Unsupported) =>
        {
            Compiled::Unsupported
        }
        Err(failure) => Compiled::Rejected(format!("{failure:?}")),
    }
}

/// The `.target` of a PTX text (ptxr's NVPTX output names the architecture it was built for).
fn ptx_target(ptx: &str) -> String {
    ptx.lines()
        .find_map(|line| line.trim().strip_prefix(".target"))
        .and_then(|rest| rest.trim().split(|character: char| character == ',' || character.is_whitespace()).next())
        .unwrap_or("sm_52")
        .to_string()
}

/// The `spirv-val` environment for a module: OpenCL 2.2 for SPIR-V 1.2 and older. spirv-tools
/// has no OpenCL environment for SPIR-V 1.3 (the sub-group version ptxr picks for warp
/// collectives); those modules get the universal rules of their SPIR-V version. A module that
/// declared the `Float16` capability would fail here: OpenCL grants it only through the
/// `cl_khr_fp16` device extension, and ptxr keeps `.f16` values as integers so as not to need it.
fn spirv_environment(binary: &[u8]) -> String {
    let word = |index: usize| {
        binary
            .get(index * 4..index * 4 + 4)
            .map_or(0, |bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    };
    let (major, minor) = ((word(1) >> 16) & 0xff, (word(1) >> 8) & 0xff);
    if (major, minor) <= (1, 2) {
        "opencl2.2".to_string()
    } else {
        format!("spv{major}.{minor}")
    }
}

fn run(command: &mut Command) -> Result<String, String> {
    let output = command.output().map_err(|error| error.to_string())?;
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if output.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

struct Validators {
    ptxas: PathBuf,
    spirv_val: PathBuf,
    readelf: PathBuf,
}

/// Compiles `path` for the three GPU targets and checks each artefact; returns the problems.
fn check(path: &Path, validators: &Validators, scratch: &Path) -> Vec<String> {
    let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let Ok(source) = std::fs::read_to_string(path) else { return vec![format!("{}: unreadable", path.display())] };
    let mut problems = Vec::new();
    let mut fail = |target: &str, message: String| {
        problems.push(format!("{name} on {target}: {}", message.lines().take(4).collect::<Vec<_>>().join(" | ")))
    };
    if let Compiled::Artefact(ptx) = compile(&source, "nvptx") {
        let file = scratch.join(format!("{name}.ptx"));
        std::fs::write(&file, &ptx).unwrap_or_else(|error| panic!("{error}"));
        let architecture = ptx_target(&String::from_utf8_lossy(&ptx));
        // Compile-only: a module may call `.extern` functions that another object defines.
        let result = run(Command::new(&validators.ptxas)
            .arg(format!("-arch={architecture}"))
            .arg("--compile-only")
            .arg("-o")
            .arg(scratch.join(format!("{name}.cubin")))
            .arg(&file));
        if let Err(message) = result {
            fail("nvptx (ptxas)", message);
        }
    }
    if let Compiled::Artefact(binary) = compile(&source, "spirv") {
        let file = scratch.join(format!("{name}.spv"));
        std::fs::write(&file, &binary).unwrap_or_else(|error| panic!("{error}"));
        let environment = spirv_environment(&binary);
        if let Err(message) = run(Command::new(&validators.spirv_val).args(["--target-env", &environment]).arg(&file)) {
            fail(&format!("spirv (spirv-val {environment})"), message);
        }
    }
    match compile(&source, "amdgpu") {
        Compiled::Artefact(code_object) => {
            let file = scratch.join(format!("{name}.hsaco"));
            std::fs::write(&file, &code_object).unwrap_or_else(|error| panic!("{error}"));
            match run(Command::new(&validators.readelf).arg("--notes").arg(&file)) {
                Err(message) => fail("amdgpu (llvm-readelf)", message),
                Ok(notes) => {
                    for kernel in entry_names(&source) {
                        if !notes.contains(&format!(".name:           {kernel}\n")) {
                            fail("amdgpu", format!("kernel {kernel} is missing from the metadata"));
                        }
                    }
                    for field in [".wavefront_size:", ".group_segment_fixed_size:", ".private_segment_fixed_size:"] {
                        if !notes.contains(field) {
                            fail("amdgpu", format!("no {field} in the metadata"));
                        }
                    }
                }
            }
        }
        Compiled::Unsupported => {}
        Compiled::Rejected(message) => eprintln!("note: {name} is rejected before lowering: {message:.200}"),
    }
    problems
}

#[test]
fn every_gpu_artefact_passes_the_vendors_checks() {
    let cached_ptxas = repository_root().join(".cache/ptxas-cu12/nvidia/cuda_nvcc/bin/ptxas");
    let Some(ptxas) = validator(&[cached_ptxas.to_string_lossy().as_ref(), "ptxas"]) else { return };
    let Some(spirv_val) = validator(&["spirv-val"]) else { return };
    let Some(readelf) = validator(&["/usr/lib/llvm-22/bin/llvm-readelf", "llvm-readelf-22"]) else { return };
    let validators = Validators { ptxas, spirv_val, readelf };
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
