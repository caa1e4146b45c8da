//! `brkpt`, `pmevent{.mask}`, `discard.global.L2`, `applypriority.global.L2::evict_normal` and
//! `griddepcontrol`: instructions that change no value the program reads (`ir::Hint`).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Hint, Instruction, Value};
use crate::syntax::ast;
use crate::vocabulary::{ScalarType, StateSpace};

use super::{Context, Modifiers};

/// `brkpt`.
pub fn breakpoint(
    context: &mut Context,
    _modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    context.expect_operand_count(instruction, 0)?;
    Some(Instruction::Hint(Hint::Breakpoint))
}

/// `pmevent a` (event `a` in 0..15) and `pmevent.mask a` (a 16-bit mask of events).
pub fn performance_event(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let is_mask = modifiers.take_flag("mask").is_some();
    context.expect_operand_count(instruction, 1)?;
    let operand = context.source(&instruction.operands[0], ScalarType::U32, SizeRule::Exact)?;
    let value = operand.value.as_integer();
    let mask = match value {
        Some(mask) if is_mask && (0..=0xffff).contains(&mask) => mask as u16,
        Some(event) if !is_mask && (0..16).contains(&event) => 1 << event,
        _ => {
            let expected = if is_mask { "a constant 16-bit mask" } else { "a constant event number in 0..15" };
            context.report(
                Diagnostic::error(Code::OperandKind, format!("`{}` takes {expected}", modifiers.opcode()))
                    .with_primary(instruction.operands[0].span, "not in range"),
            );
            return None;
        }
    };
    Some(Instruction::Hint(Hint::PerformanceEvents { mask }))
}

/// `discard{.global}.L2 [a], 128` and `applypriority{.global}.L2::evict_normal [a], 128`.
pub fn l2_cache(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let discard = modifiers.opcode() == "discard";
    if let Some(space) = modifiers.state_space() {
        if space.node != StateSpace::Global {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`{}` works on .global only", modifiers.opcode()))
                    .with_primary(space.span, "expected `.global`"),
            );
            return None;
        }
    }
    let level = if discard { "L2" } else { "L2::evict_normal" };
    if modifiers.take_flag(level).is_none() {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{}` needs `.{level}`", modifiers.opcode()))
                .with_primary(modifiers.end_span(), format!("expected `.{level}`")),
        );
        return None;
    }
    context.expect_operand_count(instruction, 2)?;
    let address = context.address(&instruction.operands[0])?;
    context.check_address_space(&address, StateSpace::Global, modifiers.opcode())?;
    let size = context.source(&instruction.operands[1], ScalarType::U32, SizeRule::Exact)?;
    if !matches!(size.value, Value::Integer(immediate) if immediate.get() == 128) {
        context.report(
            Diagnostic::error(Code::OperandKind, format!("`{}` takes the size 128", modifiers.opcode()))
                .with_primary(instruction.operands[1].span, "expected 128"),
        );
        return None;
    }
    Some(Instruction::Hint(if discard { Hint::DiscardL2 { address } } else { Hint::ApplyPriorityL2 { address } }))
}

/// `griddepcontrol.launch_dependents` and `griddepcontrol.wait`.
pub fn grid_dependency(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let hint = if modifiers.take_flag("launch_dependents").is_some() {
        Hint::LaunchDependents
    } else if modifiers.take_flag("wait").is_some() {
        Hint::WaitForPrerequisiteGrids
    } else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`griddepcontrol` needs `.launch_dependents` or `.wait`")
                .with_primary(modifiers.end_span(), "expected an action"),
        );
        return None;
    };
    context.expect_operand_count(instruction, 0)?;
    Some(Instruction::Hint(hint))
}
