//! What a complete program needs that an object file does not: a definition of every function
//! it declares. ptxr's JIT-compiled host module (`ptxr run`), the AMDGPU code object that
//! `ptxr compile` links and the SPIR-V module that `ptxr run --target spirv` hands to OpenCL are
//! loaded as they are, with nothing linked in afterwards; PTX for NVPTX and the CPU's and
//! SPIR-V's object files may keep external declarations for a later link.
//!
//! Without this check, an `.extern .func abs` run on the CPU would call whatever the host process
//! has under that name (the C library's `abs`).

use ptxr_frontend::diagnostic::{Code, Diagnostic};
use ptxr_frontend::ir;
use ptxr_frontend::syntax::ast::Linkage;
use ptxr_intrinsics::DeviceFunction;

/// An error for each function that `module` declares without a body and that is not one of
/// CUDA's device-library functions ptxr provides (`vprintf`, `malloc`, `free`, `__assertfail`
/// with their ptx-abi.md shapes).
pub fn undefined_functions(module: &ir::Module) -> Vec<Diagnostic> {
    module
        .functions
        .iter()
        .filter(|function| {
            function.body.is_none()
                && DeviceFunction::from_declaration(
                    &function.name,
                    function.parameters.len(),
                    function.return_parameters.len(),
                )
                .is_none()
        })
        .map(|function| {
            let linkage = if function.linkage == Some(Linkage::Extern) { ".extern " } else { "" };
            Diagnostic::error(
                Code::UndefinedFunction,
                format!(
                    "`{linkage}.func {}` has no definition in this module and is not a function ptxr provides",
                    function.name
                ),
            )
            .with_primary(function.span, "declared without a body")
            .with_note(
                "a kernel that ptxr runs, or an AMDGPU code object, must define every function it declares; \
                 ptxr provides only CUDA's `vprintf`, `malloc`, `free` and `__assertfail`",
            )
            .with_help("define the function in this module, or compile the module to an object file and link that")
        })
        .collect()
}
