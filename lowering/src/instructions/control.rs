//! `bra` (guarded branches are handled with the guard in `function.rs`) and `brx.idx`.

use ptxr_frontend::ir::{LabelId, Operand};
use ptxr_frontend::vocabulary::ScalarType;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

pub fn branch(lowering: &mut FunctionLowering<'_, '_>, target: LabelId) -> LoweringResult<()> {
    lowering.shared.builder.build_unconditional_branch(lowering.label_block(target))?;
    Ok(())
}

/// `brx.idx`: a `switch` on the index over the list. PTX leaves an index past the list
/// undefined; here it goes on with the next instruction, like a branch not taken, which every
/// target can express and which keeps the `switch` free of an `unreachable` default that LLVM
/// would exploit.
pub fn branch_indexed(
    lowering: &mut FunctionLowering<'_, '_>,
    index: &Operand,
    targets: &[LabelId],
) -> LoweringResult<()> {
    let index = lowering.read_int(index, ScalarType::U32)?;
    let fall_through = lowering.shared.context.append_basic_block(lowering.llvm_function, "brx.past_list");
    let cases: Vec<_> = targets
        .iter()
        .enumerate()
        .map(|(position, &label)| (index.get_type().const_int(position as u64, false), lowering.label_block(label)))
        .collect();
    lowering.shared.builder.build_switch(index, fall_through, &cases)?;
    lowering.shared.builder.position_at_end(fall_through);
    Ok(())
}
