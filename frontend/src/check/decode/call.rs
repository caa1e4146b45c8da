//! `call` (ISA 7.8 section 9.7.12.6, and the calling sequence of ptx-abi.md): direct calls of
//! `.func`s, with optional lists of results and arguments, and indirect calls through a register
//! with a `.callprototype` or `.calltargets` label after the arguments; `trap` and `nanosleep`.
//! That the lists of a direct call match the callee's parameters is checked once every function
//! is known (`check::calls`); an indirect call is trusted to match its target, as in PTX.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{CallOperand, Instruction};
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::ScalarType;

use super::{accept_unlowered, Context, Modifiers};

/// One result or argument: a variable's name or an immediate.
fn call_operand(context: &mut Context, operand: &ast::Operand, result: bool) -> Option<CallOperand> {
    match &operand.kind {
        OperandKind::Name { name, member: None } => {
            let variable = context.resolve(name, operand.span)?;
            Some(CallOperand::Variable { variable, span: operand.span })
        }
        OperandKind::Integer(_) | OperandKind::Float { .. } if !result => {
            let ty = if matches!(operand.kind, OperandKind::Float { double: true, .. }) {
                ScalarType::F64
            } else if matches!(operand.kind, OperandKind::Float { .. }) {
                ScalarType::F32
            } else {
                ScalarType::B64
            };
            Some(CallOperand::Immediate(context.source(operand, ty, SizeRule::AllowWider)?))
        }
        _ => {
            let what = if result { "a variable" } else { "a variable or an immediate" };
            context.report(
                Diagnostic::error(
                    Code::OperandKind,
                    format!("a call {} must be {what}", if result { "result" } else { "argument" }),
                )
                .with_primary(operand.span, format!("expected {what}")),
            );
            None
        }
    }
}

fn list(context: &mut Context, operand: &ast::Operand, result: bool) -> Option<Vec<CallOperand>> {
    let OperandKind::List(items) = &operand.kind else {
        context.report(
            Diagnostic::error(Code::OperandKind, "expected a parenthesised list")
                .with_primary(operand.span, "for example `(%r1, %r2)`"),
        );
        return None;
    };
    let operands: Vec<Option<CallOperand>> = items.iter().map(|item| call_operand(context, item, result)).collect();
    operands.into_iter().collect()
}

/// `call{.uni} {(results),} function{, (arguments)}{, prototype}`.
pub fn call(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    // `.uni` promises a non-divergent call; it does not change what runs.
    modifiers.flag("uni");
    let operands = &instruction.operands;
    let has_results = operands.first().is_some_and(|operand| matches!(operand.kind, OperandKind::List(_)));
    let callee_position = usize::from(has_results);
    let Some(callee) = operands.get(callee_position) else {
        context.report(
            Diagnostic::error(Code::OperandCount, "`call` needs the function to call")
                .with_primary(instruction.span, "expected `call (results), function, (arguments)`"),
        );
        return None;
    };
    let OperandKind::Name { name, member: None } = &callee.kind else {
        context.report(
            Diagnostic::error(Code::OperandKind, "the called function must be a name")
                .with_primary(callee.span, "expected a function"),
        );
        return None;
    };
    let Some(&function) = context.functions.get(name.as_str()) else {
        // A register holding a function's address: an indirect call through a prototype.
        if context.scopes.lookup(name, &mut context.variables).is_some() {
            return indirect_call(context, modifiers, instruction, has_results);
        }
        context.report(
            Diagnostic::error(Code::UndeclaredName, format!("`{name}` is not a declared function"))
                .with_primary(callee.span, "undeclared function")
                .with_help("declare it before the call, for example `.extern .func f (.param .b32 x);`"),
        );
        return None;
    };
    let rest = &operands[callee_position + 1..];
    if rest.len() > 1 {
        // `call (r), %fptr, (a), prototype` or a list after the prototype: not a direct call.
        return accept_unlowered(context, modifiers, instruction);
    }
    let results = if has_results { list(context, &operands[0], true)? } else { Vec::new() };
    let arguments = match rest.first() {
        Some(operand) => list(context, operand, false)?,
        None => Vec::new(),
    };
    Some(Instruction::Call { callee: function, results, arguments })
}

/// `call (results), %target, (arguments), prototype` (or a `.calltargets` label).
fn indirect_call(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
    has_results: bool,
) -> Option<Instruction> {
    let operands = &instruction.operands;
    let callee_position = usize::from(has_results);
    let rest = &operands[callee_position + 1..];
    let (arguments, prototype) = match rest {
        [arguments, prototype] => (Some(arguments), prototype),
        [prototype] => (None, prototype),
        _ => return accept_unlowered(context, modifiers, instruction),
    };
    if !matches!(prototype.kind, OperandKind::Name { member: None, .. }) {
        context.report(
            Diagnostic::error(Code::OperandKind, "an indirect call ends with its prototype's label")
                .with_primary(prototype.span, "expected a `.callprototype` or `.calltargets` label"),
        );
        return None;
    }
    let target = context.source(&operands[callee_position], context.address_type(), SizeRule::Exact)?;
    let results = if has_results { list(context, &operands[0], true)? } else { Vec::new() };
    let arguments = match arguments {
        Some(operand) => list(context, operand, false)?,
        None => Vec::new(),
    };
    Some(Instruction::CallIndirect { target, results, arguments })
}

/// `trap`.
pub fn trap(context: &mut Context, _modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    context.expect_operand_count(instruction, 0)?;
    Some(Instruction::Trap)
}

/// `nanosleep.u32 t`.
pub fn nanosleep(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::U32 {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`nanosleep` does not take type `{}`", ty.node))
                .with_primary(ty.span, "expected `.u32`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 1)?;
    let nanoseconds = context.source(&instruction.operands[0], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::Sleep { nanoseconds })
}
