//! SPIR-V code generation, one module per process at most in LLVM 22.
//!
//! LLVM 22's SPIR-V back end keeps its module analysis in a static object
//! (`SPIRVModuleAnalysis::MAI`, llvm/llvm-project#160613, fixed after 22): the second module
//! emitted in one process can reuse result ids and come out invalid ("Id 2 is defined more than
//! once"). ptxr therefore emits the first SPIR-V module of a process in the process, and every
//! later one (a CUDA binary's modules, a library user's or test's successive compiles) through
//! LLVM's `llc` in a child process, which starts with that state clean. The child gets the
//! optimised module as bitcode and the same triple, optimisation level and SPIR-V extensions.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};

use inkwell::module::Module;
use inkwell::targets::{FileType, TargetMachine};

/// Whether this process's one in-process SPIR-V emission has happened.
static EMITTED_IN_PROCESS: AtomicBool = AtomicBool::new(false);

/// The SPIR-V extensions that the back end may use (see `machine.rs`).
pub(crate) const EXTENSIONS: &str = "+SPV_KHR_bit_instructions,+SPV_EXT_shader_atomic_float_add";

/// The LLVM major version that ptxr builds with, from `llvm-version.txt`.
fn llvm_major() -> &'static str {
    include_str!("../../llvm-version.txt").trim()
}

/// LLVM's `llc` of ptxr's LLVM version.
fn llc() -> Result<std::path::PathBuf, String> {
    let major = llvm_major();
    let installed = std::path::PathBuf::from(format!("/usr/lib/llvm-{major}/bin/llc"));
    if installed.exists() {
        return Ok(installed);
    }
    let versioned = format!("llc-{major}");
    if Command::new(&versioned).arg("--version").output().is_ok_and(|output| output.status.success()) {
        return Ok(versioned.into());
    }
    Err(format!(
        "a second SPIR-V module in one process needs LLVM {major}'s `llc` (LLVM {major}'s SPIR-V back end emits one \
         module per process correctly: llvm/llvm-project#160613), and neither /usr/lib/llvm-{major}/bin/llc nor \
         llc-{major} was found; install the llvm-{major} package (scripts/setup.sh does)"
    ))
}

/// Emits `module` (already optimised) as a SPIR-V binary or assembly.
pub fn emit(
    module: &Module<'_>,
    machine: &TargetMachine,
    file_type: FileType,
    optimization: u8,
) -> Result<Vec<u8>, String> {
    emit_with_placeholders(module, machine, file_type, optimization).map(|bytes| rename_imports(&bytes))
}

/// Gives the functions that lowering imports under placeholder names their real names in the
/// emitted binary or text: the names that LLVM's back end would have turned into instructions
/// the validator refuses (`ptxr_intrinsics::spirv_clock`). Both names have one length, so the
/// binary's words stay as they are.
fn rename_imports(bytes: &[u8]) -> Vec<u8> {
    use ptxr_intrinsics::spirv_clock::{BUILTIN, PLACEHOLDER};
    let (placeholder, builtin) = (PLACEHOLDER.as_bytes(), BUILTIN.as_bytes());
    let mut renamed = Vec::with_capacity(bytes.len());
    let mut rest = bytes;
    while let Some(position) = rest.windows(placeholder.len()).position(|window| window == placeholder) {
        renamed.extend_from_slice(&rest[..position]);
        renamed.extend_from_slice(builtin);
        rest = &rest[position + placeholder.len()..];
    }
    renamed.extend_from_slice(rest);
    renamed
}

/// [`emit`], before the renaming.
fn emit_with_placeholders(
    module: &Module<'_>,
    machine: &TargetMachine,
    file_type: FileType,
    optimization: u8,
) -> Result<Vec<u8>, String> {
    if !EMITTED_IN_PROCESS.swap(true, Ordering::SeqCst) {
        return machine
            .write_to_memory_buffer(module, file_type)
            .map(|buffer| buffer.as_slice().to_vec())
            .map_err(|message| message.to_string());
    }
    let triple = machine.get_triple();
    let bitcode = module.write_bitcode_to_memory();
    let mut child = Command::new(llc()?)
        .arg(format!("-mtriple={}", triple.as_str().to_string_lossy()))
        .arg(format!("-O{}", optimization.min(3)))
        .arg(if file_type == FileType::Object { "-filetype=obj" } else { "-filetype=asm" })
        .arg(format!("-spirv-ext={EXTENSIONS}"))
        .args(["-o", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start llc for SPIR-V code generation: {error}"))?;
    // The child reads all of its input before it writes, so writing first cannot deadlock.
    let written = child.stdin.take().map(|mut stdin| stdin.write_all(bitcode.as_slice()));
    let output = child.wait_with_output().map_err(|error| format!("llc for SPIR-V code generation: {error}"))?;
    if let Some(Err(error)) = written {
        return Err(format!("cannot hand the module to llc: {error}"));
    }
    if !output.status.success() {
        return Err(format!(
            "LLVM's SPIR-V code generation (llc) failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(output.stdout)
}
