//! `ptxr compile FILE --target T [--arch A] [--emit K] [-O N] [-o OUT]`. FILE is PTX text or a
//! CUDA binary; for a binary, the best PTX of each module is compiled into its own file.

use std::io::Write;
use std::path::{Path, PathBuf};

use ptxr_intrinsics::TargetKind;
use ptxr_lowering::Emit;

use super::binary::{chosen_ptx, entry_label, note_choice, output_name, read_cuda_binary, read_input, stem, Input};
use super::{or_exit, report_failure};
use crate::cli::{CompileArgs, EmitKind};
use crate::output::write_atomically;
use crate::pipeline::{compile_source, CompileOptions};
use crate::report::{print_diagnostics, ErrorFormat};
use crate::target::describe;

/// The file extension of what is emitted.
fn extension(kind: TargetKind, emit: Option<EmitKind>) -> &'static str {
    match (emit, kind) {
        (Some(EmitKind::Llvm), _) => "ll",
        (Some(EmitKind::Bc), _) => "bc",
        (Some(EmitKind::Asm), TargetKind::Nvptx) | (None, TargetKind::Nvptx) => "ptx",
        (Some(EmitKind::Asm), TargetKind::Spirv) => "spvasm",
        (Some(EmitKind::Asm), _) => "s",
        (Some(EmitKind::Obj), TargetKind::Spirv) | (None, TargetKind::Spirv) => "spv",
        (None, TargetKind::Amdgpu) => "hsaco",
        (Some(EmitKind::Obj), _) | (None, TargetKind::Cpu) => "o",
    }
}

pub fn compile(arguments: &CompileArgs, format: ErrorFormat) -> i32 {
    compile_or_exit_code(arguments, format).map_or_else(|code| code, |()| 0)
}

fn compile_or_exit_code(arguments: &CompileArgs, format: ErrorFormat) -> Result<(), i32> {
    let file_name = arguments.input.display().to_string();
    let input = or_exit(read_input(&arguments.input), format)?;
    let target = or_exit(describe(&arguments.target, arguments.arch.as_deref(), false), format)?;
    let emit = arguments.emit.map(|kind| match kind {
        EmitKind::Llvm => Emit::LlvmIr,
        EmitKind::Bc => Emit::Bitcode,
        EmitKind::Asm => Emit::Assembly,
        EmitKind::Obj => Emit::Object,
    });
    let extension = extension(target.kind, arguments.emit);
    let options = CompileOptions { target, emit, optimization: arguments.optimization.level };
    match input {
        Input::Ptx(source) => compile_ptx(arguments, &source, &file_name, extension, &options, format),
        Input::Binary(bytes) => compile_binary(arguments, &bytes, &file_name, extension, &options, format),
    }
}

fn compile_ptx(
    arguments: &CompileArgs,
    source: &str,
    file_name: &str,
    extension: &str,
    options: &CompileOptions,
    format: ErrorFormat,
) -> Result<(), i32> {
    let module_name =
        arguments.input.file_name().map_or_else(|| "module".to_string(), |name| name.to_string_lossy().into_owned());
    let artifact = compile_source(source, &module_name, options)
        .map_err(|failure| report_failure(&failure, file_name, source, format))?;
    print_diagnostics(&artifact.warnings, file_name, source, format);
    let output = arguments.output.clone().unwrap_or_else(|| {
        let mut path = PathBuf::from(arguments.input.file_name().unwrap_or_default());
        path.set_extension(extension);
        path
    });
    write_output(&output, &artifact.bytes, format)
}

/// Compiles the chosen PTX of every module of a CUDA binary into `DIR/STEM.MODULE.sm_NN.TARGET.EXT`
/// (`-o DIR`, by default the current directory), saying which PTX each module used. Every
/// module is compiled even when one fails; the exit code says whether all succeeded.
fn compile_binary(
    arguments: &CompileArgs,
    bytes: &[u8],
    file_name: &str,
    extension: &str,
    options: &CompileOptions,
    format: ErrorFormat,
) -> Result<(), i32> {
    let binary = read_cuda_binary(bytes, file_name, format)?;
    let chosen = chosen_ptx(&binary, file_name, format)?;
    let to_stdout = arguments.output.as_deref().is_some_and(|output| output.as_os_str() == "-");
    if to_stdout && chosen.len() != 1 {
        let message = format!("`-o -` writes one artefact, but {file_name} has PTX in {} fat binaries", chosen.len());
        return or_exit(Err(message), format);
    }
    let directory = arguments.output.clone().unwrap_or_else(|| PathBuf::from("."));
    if !to_stdout {
        or_exit(
            std::fs::create_dir_all(&directory)
                .map_err(|error| format!("cannot create the output directory {}: {error}", directory.display())),
            format,
        )?;
    }
    let stem = stem(&arguments.input);
    let mut failed = false;
    for (module, entry, text) in chosen {
        note_choice(file_name, module, entry, format);
        let label = entry_label(file_name, module, entry);
        let module_name = output_name(&stem, module, entry, "ptx");
        match compile_source(text, &module_name, options) {
            Err(failure) => {
                report_failure(&failure, &label, text, format);
                failed = true;
            }
            Ok(artifact) => {
                print_diagnostics(&artifact.warnings, &label, text, format);
                let output = if to_stdout {
                    PathBuf::from("-")
                } else {
                    // The target in the name keeps NVPTX output apart from the PTX `extract` writes.
                    let target = options.target.kind.name();
                    directory.join(output_name(&stem, module, entry, &format!("{target}.{extension}")))
                };
                failed |= write_output(&output, &artifact.bytes, format).is_err();
            }
        }
    }
    if failed {
        Err(1)
    } else {
        Ok(())
    }
}

/// Writes an artefact atomically, or to stdout for `-`.
fn write_output(output: &Path, bytes: &[u8], format: ErrorFormat) -> Result<(), i32> {
    if output.as_os_str() == "-" {
        // `-o -`: the artefact on stdout, written only once it is complete.
        let mut stdout = std::io::stdout().lock();
        return or_exit(
            stdout
                .write_all(bytes)
                .and_then(|()| stdout.flush())
                .map_err(|error| format!("cannot write to stdout: {error}")),
            format,
        );
    }
    or_exit(write_atomically(output, bytes), format)
}
