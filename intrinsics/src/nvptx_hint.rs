//! NVPTX's `brkpt`, `pmevent`, `discard`, `applypriority` and `griddepcontrol`: the PTX
//! instruction itself as inline assembly, so the GPU's debugger, profiler, L2 cache and
//! dependent-launch machinery see what the source asked for.

use inkwell::values::{BasicMetadataValueEnum, PointerValue};
use ptxr_frontend::ir::Hint;

use crate::site::Site;
use crate::Unsupported;

pub fn hint<'ctx>(site: &Site<'_, 'ctx>, hint: &Hint, line: Option<PointerValue<'ctx>>) -> Result<(), Unsupported> {
    let text = match hint {
        Hint::Breakpoint => "brkpt;".to_string(),
        Hint::PerformanceEvents { mask } => format!("pmevent.mask {mask};"),
        // The generic forms: `line` is a generic pointer.
        Hint::DiscardL2 { .. } => "discard.L2 [$0], 128;".to_string(),
        Hint::ApplyPriorityL2 { .. } => "applypriority.L2::evict_normal [$0], 128;".to_string(),
        Hint::LaunchDependents => "griddepcontrol.launch_dependents;".to_string(),
        Hint::WaitForPrerequisiteGrids => "griddepcontrol.wait;".to_string(),
    };
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("`{text}` ({error})") };
    let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = Vec::new();
    if let Some(line) = line {
        arguments.push(site.builder.build_ptr_to_int(line, site.context.i64_type(), "").map_err(failed)?.into());
    }
    let parameter_types: Vec<_> = arguments.iter().map(|_| site.context.i64_type().into()).collect();
    let constraints = if arguments.is_empty() { "~{memory}" } else { "l,~{memory}" };
    let function_type = site.context.void_type().fn_type(&parameter_types, false);
    let assembly =
        site.context.create_inline_asm(function_type, text.clone(), constraints.to_string(), true, false, None, false);
    site.builder.build_indirect_call(function_type, assembly, &arguments, "").map_err(failed)?;
    Ok(())
}
