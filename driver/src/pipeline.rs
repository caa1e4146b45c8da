//! The compilation pipeline as a library call: PTX text in, the target's artefact out, with
//! every diagnostic on the way. `ptxr compile`, `ptxr run` and the tests share it.

use ptxr_frontend::diagnostic::has_errors;
use ptxr_frontend::{ir, Diagnostic};
use ptxr_intrinsics::TargetKind;
use ptxr_lowering::{Emit, PipelineError, PipelineOptions, TargetDescription};

use crate::link;

#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub target: TargetDescription,
    /// `None`: the target's natural artefact (object, PTX text, SPIR-V binary, code object).
    pub emit: Option<Emit>,
    /// 0 to 3.
    pub optimization: u8,
}

/// What went wrong: diagnostics about the input, or a failure outside it (LLVM, the linker).
#[derive(Debug)]
pub enum Failure {
    Diagnostics(Vec<Diagnostic>),
    Message(String),
}

impl From<PipelineError> for Failure {
    fn from(error: PipelineError) -> Failure {
        match error {
            PipelineError::Diagnostics(diagnostics) => Failure::Diagnostics(diagnostics),
            PipelineError::Llvm(message) => Failure::Message(format!("internal compiler error: {message}")),
        }
    }
}

/// A compiled artefact and the warnings that came with it (the checker's, then lowering's).
pub struct Artifact {
    pub bytes: Vec<u8>,
    pub warnings: Vec<Diagnostic>,
}

/// Parses and checks PTX; the checked module and the warnings, or every diagnostic.
pub fn check(source: &str) -> Result<(ir::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let (module, diagnostics) = ptxr_frontend::check_source(source);
    match module {
        Some(module) if !has_errors(&diagnostics) => Ok((module, diagnostics)),
        _ => Err(diagnostics),
    }
}

pub fn pipeline_options(
    target: &TargetDescription,
    optimization: u8,
    module_name: &str,
) -> Result<PipelineOptions, Failure> {
    crate::target::validate_arch(target).map_err(Failure::Message)?;
    Ok(PipelineOptions { target: target.clone(), optimization, module_name: module_name.to_string() })
}

/// Parses and checks PTX for a compilation to `target`: for NVPTX with an explicit `--arch`
/// (`sm_NN`), an instruction that architecture lacks is an error here (E0302), before LLVM
/// could fail to select it.
pub fn check_for_target(
    source: &str,
    target: &TargetDescription,
) -> Result<(ir::Module, Vec<Diagnostic>), Vec<Diagnostic>> {
    let compile_sm = match target.kind {
        TargetKind::Nvptx => crate::target::sm_number(&target.cpu),
        TargetKind::Cpu | TargetKind::Amdgpu | TargetKind::Spirv => None,
    };
    let (module, diagnostics) = ptxr_frontend::check_source_for(source, compile_sm);
    match module {
        Some(module) if !has_errors(&diagnostics) => Ok((module, diagnostics)),
        _ => Err(diagnostics),
    }
}

/// A failure after checking, with the checker's `warnings` before its diagnostics, so that the
/// user sees them as when the compilation succeeds.
pub fn after_warnings(warnings: &[Diagnostic], failure: Failure) -> Failure {
    match failure {
        Failure::Diagnostics(diagnostics) => {
            Failure::Diagnostics(warnings.iter().cloned().chain(diagnostics).collect())
        }
        Failure::Message(message) => Failure::Message(message),
    }
}

/// The whole pipeline: PTX text to the bytes that `ptxr compile` writes.
pub fn compile_source(source: &str, module_name: &str, options: &CompileOptions) -> Result<Artifact, Failure> {
    let (module, mut warnings) = check_for_target(source, &options.target).map_err(Failure::Diagnostics)?;
    let target = crate::target::for_module(&options.target, &module);
    let pipeline = pipeline_options(&target, options.optimization, module_name)?;
    let natural = match options.target.kind {
        TargetKind::Nvptx => Emit::Assembly,
        TargetKind::Cpu | TargetKind::Amdgpu | TargetKind::Spirv => Emit::Object,
    };
    let links_code_object = options.emit.is_none() && options.target.kind == TargetKind::Amdgpu;
    if links_code_object {
        // The code object is loaded as it is: nothing else is linked into it.
        let undefined = ptxr_lowering::undefined_functions(&module);
        if !undefined.is_empty() {
            return Err(after_warnings(&warnings, Failure::Diagnostics(undefined)));
        }
    }
    let compiled = ptxr_lowering::compile(&module, source, &pipeline, options.emit.unwrap_or(natural))
        .map_err(|error| after_warnings(&warnings, error.into()))?;
    warnings.extend(compiled.warnings);
    let bytes = compiled.bytes;
    let bytes = if links_code_object { link::link_code_object(&bytes).map_err(Failure::Message)? } else { bytes };
    Ok(Artifact { bytes, warnings })
}
