//! The vendors' checks of ptxr's GPU artefacts, shared by the tests that compile many kernels
//! (`gpu_validation.rs`, `real_compilers.rs`): NVIDIA's `ptxas` accepts the NVPTX output,
//! `spirv-val` accepts the SPIR-V for the OpenCL environment of its version, and the AMDGPU
//! code object's metadata (read by `llvm-readelf`) lists every kernel with its wave size and
//! segment sizes.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::diagnostic::Code;

use crate::{llvm_readelf, repository_root, validator};

/// The outcome of compiling one module for one target.
pub enum Compiled {
    Artefact(Vec<u8>),
    /// E0901: the messages of every unsupported construct.
    Unsupported(Vec<String>),
    /// Not a target's limit: the frontend rejects the file, or an internal error.
    Rejected(String),
}

/// Compiles `source` for `target` (`cpu`, `nvptx`, `amdgpu`, `spirv`) at -O2, with the target's
/// natural artefact.
pub fn compile(source: &str, target: &str) -> Compiled {
    let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: None, optimization: 2 };
    match compile_source(source, "kernel", &options) {
        Ok(artifact) => Compiled::Artefact(artifact.bytes),
        Err(Failure::Diagnostics(diagnostics))
            if diagnostics
                .iter()
                .any(|diagnostic| matches!(diagnostic.code, Code::Unsupported | Code::UndefinedFunction)) =>
        {
            Compiled::Unsupported(
                diagnostics
                    .iter()
                    .filter(|diagnostic| matches!(diagnostic.code, Code::Unsupported | Code::UndefinedFunction))
                    .map(|diagnostic| diagnostic.message.clone())
                    .collect(),
            )
        }
        Err(failure) => Compiled::Rejected(format!("{failure:?}")),
    }
}

/// The `.entry` names of a PTX module.
pub fn entry_names(ptx: &str) -> Vec<String> {
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
/// collectives); those modules get the universal rules of their SPIR-V version. So do modules
/// with 64-bit atomics (`atomicCAS` on doubles, `atom.add.u64`): OpenCL grants their
/// `Int64Atomics` capability through the `cl_khr_int64_base_atomics` device extension, which
/// OpenCL 2.2's environment in spirv-val does not know and refuses. A module that declared the
/// `Float16` capability would fail here: OpenCL grants it only through the `cl_khr_fp16` device
/// extension, and ptxr keeps `.f16` values as integers so as not to need it.
pub fn spirv_environment(binary: &[u8]) -> String {
    let word = |index: usize| {
        binary
            .get(index * 4..index * 4 + 4)
            .map_or(0, |bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    };
    let (major, minor) = ((word(1) >> 16) & 0xff, (word(1) >> 8) & 0xff);
    if (major, minor) <= (1, 2) && !declares_capability(binary, INT64_ATOMICS) {
        "opencl2.2".to_string()
    } else {
        format!("spv{major}.{minor}")
    }
}

/// SPIR-V's `Int64Atomics` capability (section 3.31 of the SPIR-V specification).
const INT64_ATOMICS: u32 = 12;

/// Whether a SPIR-V binary has `OpCapability capability`: capabilities come first after the
/// five-word header, each instruction's first word holding its word count (high half) and opcode
/// (low half, 17 for `OpCapability`).
fn declares_capability(binary: &[u8], capability: u32) -> bool {
    let words: Vec<u32> =
        binary.chunks_exact(4).map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])).collect();
    let mut index = 5;
    while let Some(&first) = words.get(index) {
        let (count, opcode) = ((first >> 16) as usize, first & 0xffff);
        if opcode == 17 && words.get(index + 1) == Some(&capability) {
            return true;
        }
        // Capabilities (17) and extensions (10) come first; the first other instruction ends them.
        if count == 0 || (opcode != 17 && opcode != 10) {
            return false;
        }
        index += count;
    }
    false
}

/// The process id and a number of this call: tests of one binary run on several threads, and
/// two of them may pass the same `name`, so a file named after the process alone could be
/// removed by one while the other's validator reads it.
fn unique_suffix() -> String {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}-{call}", std::process::id())
}

/// Runs `spirv-val --target-env environment` on `binary`, written to a temporary file named
/// after `name` (which keeps callers' files apart); `None` where spirv-val is not installed and
/// not required (see [`validator`]), else its verdict, with its output as the error.
pub fn spirv_val(binary: &[u8], environment: &str, name: &str) -> Option<Result<(), String>> {
    let spirv_val = validator(&["spirv-val"])?;
    let file = std::env::temp_dir().join(format!("ptxr-{name}-{}.spv", unique_suffix()));
    std::fs::write(&file, binary).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    let verdict = run(Command::new(spirv_val).args(["--target-env", environment]).arg(&file));
    let _ = std::fs::remove_file(&file);
    Some(verdict.map(|_| ()))
}

/// Assembles `ptx` with NVIDIA's `ptxas -arch=arch` into a temporary folder named after `name`
/// (which keeps callers' files apart); `None` where ptxas is not installed and not required
/// (see [`crate::ptxas`]), else its verdict, with its output as the error.
pub fn ptxas_accepts(ptx: &[u8], arch: &str, name: &str) -> Option<Result<(), String>> {
    let ptxas = crate::ptxas()?;
    let directory = std::env::temp_dir().join(format!("ptxr-{name}-{}", unique_suffix()));
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{}: {error}", directory.display()));
    let file = directory.join("kernel.ptx");
    std::fs::write(&file, ptx).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
    let verdict =
        run(Command::new(ptxas).arg(format!("-arch={arch}")).arg("-o").arg(directory.join("kernel.cubin")).arg(&file));
    let _ = std::fs::remove_dir_all(&directory);
    Some(verdict.map(|_| ()))
}

/// Runs a validator; its output on success, or its output as the error.
pub fn run(command: &mut Command) -> Result<String, String> {
    let output = command.output().map_err(|error| error.to_string())?;
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if output.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

/// The notes of an AMDGPU code object (`llvm-readelf --notes`), whose metadata lists each kernel;
/// `None` where llvm-readelf is not installed and not required. `name` keeps each caller's
/// temporary file apart.
pub fn code_object_notes(code_object: &[u8], name: &str) -> Option<String> {
    read_code_object(code_object, "--notes", name)
}

/// What `llvm-readelf` with `option` (`--notes`, `--symbols`, ...) prints for an AMDGPU code
/// object, as [`code_object_notes`]; panics when llvm-readelf fails.
pub fn read_code_object(code_object: &[u8], option: &str, name: &str) -> Option<String> {
    let readelf = llvm_readelf()?;
    let file = std::env::temp_dir().join(format!("ptxr-{name}-{}.hsaco", unique_suffix()));
    std::fs::write(&file, code_object).unwrap_or_else(|error| panic!("{error}"));
    let output = run(Command::new(readelf).arg(option).arg(&file));
    let _ = std::fs::remove_file(&file);
    Some(output.unwrap_or_else(|error| panic!("{name}: {error}")))
}

/// The three validators.
pub struct Validators {
    pub ptxas: PathBuf,
    pub spirv_val: PathBuf,
    pub readelf: PathBuf,
}

impl Validators {
    /// All three, or `None` (with a message) when one is missing and not required
    /// (`PTXR_REQUIRE_VALIDATORS=1` makes a missing one a failure).
    pub fn find() -> Option<Validators> {
        let ptxas = crate::ptxas()?;
        let spirv_val = validator(&["spirv-val"])?;
        let readelf = llvm_readelf()?;
        Some(Validators { ptxas, spirv_val, readelf })
    }

    /// Checks one artefact of `source` for `target` (`nvptx`, `spirv`, `amdgpu`; nothing to
    /// check for `cpu`), writing files named after `name` into `scratch`.
    pub fn check(&self, target: &str, name: &str, source: &str, artefact: &[u8], scratch: &Path) -> Result<(), String> {
        let write = |extension: &str| {
            let file = scratch.join(format!("{name}.{target}.{extension}"));
            std::fs::write(&file, artefact).map(|()| file).map_err(|error| error.to_string())
        };
        match target {
            "nvptx" => {
                let file = write("ptx")?;
                let architecture = ptx_target(&String::from_utf8_lossy(artefact));
                // Compile-only: a module may call `.extern` functions that another object defines.
                run(Command::new(&self.ptxas)
                    .arg(format!("-arch={architecture}"))
                    .arg("--compile-only")
                    .arg("-o")
                    .arg(scratch.join(format!("{name}.cubin")))
                    .arg(&file))
                .map(|_| ())
                .map_err(|message| format!("ptxas: {message}"))
            }
            "spirv" => {
                let file = write("spv")?;
                let environment = spirv_environment(artefact);
                run(Command::new(&self.spirv_val).args(["--target-env", &environment]).arg(&file))
                    .map(|_| ())
                    .map_err(|message| format!("spirv-val {environment}: {message}"))
            }
            "amdgpu" => {
                let file = write("hsaco")?;
                let notes = run(Command::new(&self.readelf).arg("--notes").arg(&file))
                    .map_err(|message| format!("llvm-readelf: {message}"))?;
                for kernel in entry_names(source) {
                    if !notes.contains(&format!(".name:           {kernel}\n")) {
                        return Err(format!("kernel {kernel} is missing from the metadata"));
                    }
                }
                for field in [".wavefront_size:", ".group_segment_fixed_size:", ".private_segment_fixed_size:"] {
                    if !notes.contains(field) {
                        return Err(format!("no {field} in the metadata"));
                    }
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// The shared folder (`shared/` with the corpus and the conformance kernels) beside the
/// repository or beside one of its parent folders (a worktree); `None` when it is absent.
pub fn shared_folder() -> Option<PathBuf> {
    repository_root()
        .ancestors()
        .skip(1)
        .map(|folder| folder.join("shared"))
        .find(|shared| shared.join("corpus").is_dir())
}
