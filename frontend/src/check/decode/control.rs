//! `bra`, `brx.idx`, `ret` and `exit` (ISA 7.8 sections 9.7.11 and 9.7.12).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::Instruction;
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

pub fn branch(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    // `.uni` promises that the branch is not divergent; it does not change what runs.
    modifiers.flag("uni");
    context.expect_operand_count(instruction, 1)?;
    let target = context.label(&instruction.operands[0])?;
    Some(Instruction::Branch { target })
}

/// `brx.idx{.uni} index, tlist`: `tlist` is a label naming a `.branchtargets` list.
pub fn branch_indexed(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    if !modifiers.flag("idx") {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`brx` needs `.idx`")
                .with_primary(modifiers.end_span(), "expected `.idx`"),
        );
        return None;
    }
    modifiers.flag("uni");
    context.expect_operand_count(instruction, 2)?;
    let index = context.source(&instruction.operands[0], ScalarType::U32, SizeRule::Exact)?;
    let list = context.label(&instruction.operands[1])?;
    let Some(names) = context.branch_targets.get(&list).cloned() else {
        context.report(
            Diagnostic::error(Code::OperandKind, "`brx.idx` branches through a `.branchtargets` list")
                .with_primary(instruction.operands[1].span, "this label does not name a `.branchtargets` list"),
        );
        return None;
    };
    let mut targets = Vec::with_capacity(names.len());
    for name in &names {
        match context.labels.get(name.node.as_str()) {
            Some(label) => targets.push(*label),
            None => context.report(
                Diagnostic::error(
                    Code::UndefinedLabel,
                    format!("label `{}` is not defined in this function", name.node),
                )
                .with_primary(name.span, "unknown label in this `.branchtargets` list"),
            ),
        }
    }
    (targets.len() == names.len()).then_some(Instruction::BranchIndexed { index, targets })
}

pub fn return_(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    modifiers.flag("uni");
    context.expect_operand_count(instruction, 0)?;
    Some(Instruction::Return)
}

pub fn exit(context: &mut Context, _modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    context.expect_operand_count(instruction, 0)?;
    Some(Instruction::Exit)
}
