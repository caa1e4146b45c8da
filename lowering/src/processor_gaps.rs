//! Instructions that the processor a module is compiled for lacks, found before lowering so
//! that LLVM never meets an intrinsic it cannot select there (which would be an internal
//! error, E0999). Each is reported as E0901 at the instruction, naming the processor.
//!
//! Two cases today, both on AMDGPU. Processors before gfx8 have no `ds_bpermute`, the
//! cross-lane read that warp shuffles (and `match`, `redux`, `mma`, `ldmatrix`, `stmatrix`,
//! which are built from them) take: reported at each such instruction before lowering. The
//! gfx6 processors have no flat address space either: a PTX generic access that LLVM's
//! optimiser could not resolve to one state space cannot be selected there, which only the
//! optimised module shows, so [`unresolved_generic_accesses`] counts them after optimisation.

use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::values::InstructionOpcode;
use ptxr_frontend::{ir, Diagnostic};
use ptxr_intrinsics::Target;

use crate::error::LoweringError;

/// E0901 for every instruction of `ptx` (checked from `source`) that `machine`'s processor cannot express.
pub fn processor_gaps(ptx: &ir::Module, source: &str, target: &dyn Target, machine: &TargetMachine) -> Vec<Diagnostic> {
    let processor = machine.get_cpu().to_string_lossy().into_owned();
    if !target.lacks_lane_permute(&processor) {
        return Vec::new();
    }
    let target_name = format!("{} {processor}", target.kind().name());
    ptx.functions
        .iter()
        .filter_map(|function| function.body.as_deref())
        .flatten()
        .filter_map(|statement| match statement {
            ir::Statement::Instruction(instruction) if reads_other_lanes(&instruction.instruction) => Some(instruction),
            _ => None,
        })
        .map(|instruction| {
            let what = format!(
                "`{}` (it reads other lanes through `ds_bpermute`, which gfx8 introduced)",
                ir::instruction_spelling(source, instruction.spelling)
            );
            LoweringError::unsupported(&what, &target_name, instruction.span).diagnostic
        })
        .collect()
}

/// Whether `instruction` reads values of other lanes (not only their predicates, which a
/// ballot gives on every processor).
fn reads_other_lanes(instruction: &ir::Instruction) -> bool {
    matches!(
        instruction,
        ir::Instruction::Shuffle { .. }
            | ir::Instruction::Match { .. }
            | ir::Instruction::Redux { .. }
            | ir::Instruction::MatrixMultiplyAccumulate { .. }
            | ir::Instruction::LoadMatrix { .. }
            | ir::Instruction::StoreMatrix { .. }
    )
}

/// E0901 when `machine`'s processor has no flat address space and the optimised `module`
/// still loads, stores or updates memory through generic (flat, address space 0) pointers.
pub fn unresolved_generic_accesses(
    module: &Module<'_>,
    target: &dyn Target,
    machine: &TargetMachine,
) -> Option<Diagnostic> {
    let processor = machine.get_cpu().to_string_lossy().into_owned();
    if !target.lacks_flat_addresses(&processor) {
        return None;
    }
    let count = module
        .get_functions()
        .flat_map(|function| function.get_basic_block_iter())
        .flat_map(|block| block.get_instructions())
        .filter(|instruction| {
            let pointer_operand = match instruction.get_opcode() {
                InstructionOpcode::Load | InstructionOpcode::AtomicRMW | InstructionOpcode::AtomicCmpXchg => 0,
                InstructionOpcode::Store => 1,
                _ => return false,
            };
            instruction.get_operand(pointer_operand).and_then(|operand| operand.value()).is_some_and(|pointer| {
                pointer.is_pointer_value() && pointer.into_pointer_value().get_type().get_address_space() == 0.into()
            })
        })
        .count();
    (count > 0).then(|| {
        let accesses = if count == 1 { "1 access" } else { &format!("{count} accesses") };
        let what = format!("generic addressing ({accesses} of memory through generic pointers)");
        LoweringError::unsupported(
            &what,
            &format!("{} {processor}", target.kind().name()),
            ptxr_frontend::Span::default(),
        )
        .diagnostic
        .with_note(format!(
            "{processor} (GCN generation 6) has no flat address space; an access stays generic where the \
                 optimiser cannot tell which state space its address points into"
        ))
        .with_help(
            "address memory through `ld.global`/`st.global` (after `cvta.to.global`), or compile for gfx700 or later",
        )
    })
}
