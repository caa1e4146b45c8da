//! `min`/`max` of ISA 8.0 on 16-bit lanes and with `.relu` (section 9.7.1.10/11):
//! `min{.relu}.s16x2`, `min.u16x2`, `min.relu.s32`, and the same of `max`. ptxas 12.9 takes
//! `.relu` on `.s32` and `.s16x2` only ('Illegal modifier '.relu' for instruction 'max' with
//! type '.u16x2''); the version and target (ISA 8.0, sm_90) are gated in `gating/`.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::Instruction;
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

/// Whether `instruction` (a `min` or `max`) is one of the forms this module decodes.
pub fn is_lane_form(instruction: &ast::Instruction) -> bool {
    let has = |name: &str| instruction.modifiers.iter().any(|modifier| modifier.node == name);
    has("s16x2") || has("u16x2") || (has("relu") && has("s32"))
}

pub fn minimum_maximum(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let maximum = modifiers.opcode() == "max";
    let relu = modifiers.take_flag("relu");
    let (lanes, signed, spelling) = modifiers
        .take(|name| match name {
            "s16x2" => Some((2, true, "s16x2")),
            "u16x2" => Some((2, false, "u16x2")),
            "s32" => Some((1, true, "s32")),
            _ => None,
        })?
        .node;
    if let (Some(relu), false) = (&relu, signed) {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`.relu` is not defined for `{}.{spelling}`", modifiers.opcode()),
            )
            .with_primary(relu.span, "`.relu` is for `.s32` and `.s16x2`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ScalarType::B32, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ScalarType::B32, SizeRule::Exact)?;
    Some(Instruction::IntegerLanesMinimumMaximum { maximum, lanes, signed, relu: relu.is_some(), destination, a, b })
}
