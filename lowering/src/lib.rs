//! ptxr's lowering: a checked PTX module (`ptxr_frontend::ir`) to an LLVM module through
//! inkwell, for one target described by `intrinsics::Target`; then optimisation, verification,
//! code generation and in-process JIT compilation of that module.
//!
//! Lowering keeps every PTX register in an `alloca` named after it and lets LLVM's `mem2reg`
//! build SSA form, so the IR reads like the PTX it came from.

mod codegen;
mod error;
mod fatal;
mod function;
mod instructions;
mod machine;
mod module;
mod pipeline;
mod processor_gaps;
mod program;
mod spirv_emission;
mod types;
mod values;
mod warnings;

pub use codegen::{emit, optimize, verify, Emit, JitModule};
pub use error::{LoweringError, LoweringResult};
pub use fatal::install_fatal_error_handler;
pub use inkwell::context::Context;
pub use machine::{initialize_targets, target_machine, MachineOptions, OptimizationLevel, TargetDescription};
pub use module::{
    cache_hint_isa, dynamic_stack_isa, intrinsic_isa, kernels_take_launch_arguments, lower, mbarrier_isa,
    parameter_window_isa, proxy_fence_isa, special_register_isa, uses_warps, warp_matrix_isa, wide_atomic_isa,
};
pub use pipeline::{compile, with_jit, Compiled, PipelineError, PipelineOptions};
pub use program::undefined_functions;
