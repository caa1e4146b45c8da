//! The LLVM half of the pipeline behind two calls, so that callers never hold LLVM types:
//! `compile` (lower, verify, optimise, emit) and `with_jit` (the same, compiled into memory).
//! Both return lowering's warnings beside their result.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::OptimizationLevel;
use ptxr_frontend::{ir, Diagnostic};

use crate::codegen::{emit, optimize, verify, Emit, JitModule};
use crate::machine::{target_machine, MachineOptions, TargetDescription};

#[derive(Clone, Debug)]
pub struct PipelineOptions {
    pub target: TargetDescription,
    /// 0 to 3, as `-O0` to `-O3`.
    pub optimization: u8,
    /// The LLVM module's name (the input file's name).
    pub module_name: String,
}

/// The emitted bytes and the warnings about the module on its target (`warnings.rs`).
#[derive(Debug)]
pub struct Compiled {
    pub bytes: Vec<u8>,
    pub warnings: Vec<Diagnostic>,
}

#[derive(Debug)]
pub enum PipelineError {
    /// Problems with the input on this target (unsupported constructs).
    Diagnostics(Vec<Diagnostic>),
    /// LLVM failed: a verifier or code-generation error, which is a bug in ptxr.
    Llvm(String),
}

fn optimization_level(level: u8) -> OptimizationLevel {
    match level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    }
}

/// Lowers and verifies; the optimisation pipeline has run on the result. Also returns
/// lowering's warnings.
fn build<'ctx>(
    context: &'ctx Context,
    module: &ir::Module,
    source: &str,
    options: &PipelineOptions,
) -> Result<(Module<'ctx>, TargetMachine, Vec<Diagnostic>), PipelineError> {
    let machine_options =
        MachineOptions { optimization: optimization_level(options.optimization), position_independent: true };
    let machine = target_machine(&options.target, machine_options).map_err(PipelineError::Llvm)?;
    let target = ptxr_intrinsics::for_kind(options.target.kind);
    let (llvm_module, warnings) =
        crate::module::lower(context, module, source, target.as_ref(), &machine, &options.module_name)
            .map_err(PipelineError::Diagnostics)?;
    if crate::module::wide_atomic_isa(module).is_some() {
        crate::machine::pin_processor_for_wide_atomics(&llvm_module, &options.target, &machine);
    }
    verify(&llvm_module)
        .map_err(|message| PipelineError::Llvm(format!("the LLVM verifier rejected the lowered module: {message}")))?;
    target.before_optimization(&llvm_module, &machine, options.optimization).map_err(PipelineError::Llvm)?;
    verify(&llvm_module).map_err(|message| {
        PipelineError::Llvm(format!("the LLVM verifier rejected the module prepared for optimisation: {message}"))
    })?;
    optimize(&llvm_module, &machine, options.optimization).map_err(PipelineError::Llvm)?;
    if let Some(gap) = crate::processor_gaps::unresolved_generic_accesses(&llvm_module, target.as_ref(), &machine) {
        return Err(PipelineError::Diagnostics(vec![gap]));
    }
    target.prepare_for_code_generation(&llvm_module).map_err(|unsupported| {
        PipelineError::Llvm(format!("preparing the optimised module for code generation: {}", unsupported.what))
    })?;
    verify(&llvm_module).map_err(|message| {
        PipelineError::Llvm(format!("the LLVM verifier rejected the optimised module: {message}"))
    })?;
    Ok((llvm_module, machine, warnings))
}

/// Compiles a checked module (checked from `source`, which diagnostics quote) and returns the
/// emitted bytes with lowering's warnings.
pub fn compile(
    module: &ir::Module,
    source: &str,
    options: &PipelineOptions,
    output: Emit,
) -> Result<Compiled, PipelineError> {
    let context = Context::create();
    let (llvm_module, machine, warnings) = build(&context, module, source, options)?;
    let bytes = emit(&llvm_module, &machine, output, options.optimization).map_err(PipelineError::Llvm)?;
    Ok(Compiled { bytes, warnings })
}

/// Compiles a checked module (checked from `source`) for the host into memory and calls `use_module` with a function
/// that looks up compiled symbols by name. The code lives until `use_module` returns. The module
/// must define every function it declares (`program.rs`): nothing is linked into it. Returns
/// what `use_module` returned and lowering's warnings.
pub fn with_jit<R>(
    module: &ir::Module,
    source: &str,
    options: &PipelineOptions,
    use_module: impl FnOnce(&dyn Fn(&str) -> Result<usize, String>) -> R,
) -> Result<(R, Vec<Diagnostic>), PipelineError> {
    let undefined = crate::program::undefined_functions(module);
    if !undefined.is_empty() {
        return Err(PipelineError::Diagnostics(undefined));
    }
    let context = Context::create();
    let (llvm_module, _machine, warnings) = build(&context, module, source, options)?;
    let jit =
        JitModule::new(llvm_module, options.optimization, module.address_size == 32).map_err(PipelineError::Llvm)?;
    Ok((use_module(&|name| jit.function_address(name)), warnings))
}
