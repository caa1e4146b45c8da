//! `ptxr compile FILE.ptx --target T [--arch A] [--emit K] [-O N] [-o OUT]`.

use std::io::Write;
use std::path::PathBuf;

use ptxr_intrinsics::TargetKind;
use ptxr_lowering::Emit;

use super::{or_exit, read_source, report_failure};
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
    let source = or_exit(read_source(&arguments.input), format)?;
    let target = or_exit(describe(&arguments.target, arguments.arch.as_deref(), false), format)?;
    let emit = arguments.emit.map(|kind| match kind {
        EmitKind::Llvm => Emit::LlvmIr,
        EmitKind::Bc => Emit::Bitcode,
        EmitKind::Asm => Emit::Assembly,
        EmitKind::Obj => Emit::Object,
    });
    let options = CompileOptions { target: target.clone(), emit, optimization: arguments.optimization.level };
    let module_name =
        arguments.input.file_name().map_or_else(|| "module".to_string(), |name| name.to_string_lossy().into_owned());
    let artifact = compile_source(&source, &module_name, &options)
        .map_err(|failure| report_failure(&failure, &file_name, &source, format))?;
    print_diagnostics(&artifact.warnings, &file_name, &source, format);
    let output = arguments.output.clone().unwrap_or_else(|| {
        let mut path = PathBuf::from(arguments.input.file_name().unwrap_or_default());
        path.set_extension(extension(target.kind, arguments.emit));
        path
    });
    if output.as_os_str() == "-" {
        // `-o -`: the artefact on stdout, written only once it is complete.
        let mut stdout = std::io::stdout().lock();
        return or_exit(
            stdout
                .write_all(&artifact.bytes)
                .and_then(|()| stdout.flush())
                .map_err(|error| format!("cannot write to stdout: {error}")),
            format,
        );
    }
    or_exit(write_atomically(&output, &artifact.bytes), format)
}
