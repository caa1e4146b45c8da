//! `bra`, `ret` and `exit` (ISA 7.8 section 9.7.12).

use crate::ir::Instruction;
use crate::syntax::ast;

use super::{Context, Modifiers};

pub fn branch(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    // `.uni` promises that the branch is not divergent; it does not change what runs.
    modifiers.flag("uni");
    context.expect_operand_count(instruction, 1)?;
    let target = context.label(&instruction.operands[0])?;
    Some(Instruction::Branch { target })
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
