//! `bra` (guarded branches are handled with the guard in `function.rs`).

use ptxr_frontend::ir::LabelId;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

pub fn branch(lowering: &mut FunctionLowering<'_, '_>, target: LabelId) -> LoweringResult<()> {
    lowering.shared.builder.build_unconditional_branch(lowering.label_block(target))?;
    Ok(())
}
