//! Extended-precision integer arithmetic (ISA 7.8 section 9.7.2): `add.cc`, `addc`, `sub.cc`,
//! `subc`, `mad.cc`, `madc`, which pass a carry through the condition code `CC.CF`.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{CarryOperation, Instruction};
use crate::span::Spanned;
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

/// The carry instructions take `.u32 .s32 .u64 .s64`.
fn carry_type(context: &mut Context, modifiers: &mut Modifiers) -> Option<Spanned<ScalarType>> {
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::U32 | ScalarType::S32 | ScalarType::U64 | ScalarType::S64) {
        let opcode = modifiers.opcode();
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`{opcode}` with a carry does not take type `{}`", ty.node),
            )
            .with_primary(ty.span, "expected `.u32`, `.s32`, `.u64` or `.s64`"),
        );
        return None;
    }
    Some(ty)
}

/// `add.cc`, `sub.cc` (`carry_out` already taken by the caller), `addc{.cc}`, `subc{.cc}`.
pub fn add_subtract(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
    cc_taken: bool,
) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let carry_in = matches!(opcode, "addc" | "subc");
    let carry_out = cc_taken || modifiers.flag("cc");
    let operation = if matches!(opcode, "add" | "addc") { CarryOperation::Add } else { CarryOperation::Subtract };
    let ty = carry_type(context, modifiers)?;
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    Some(Instruction::CarryArithmetic { operation, ty: ty.node, carry_in, carry_out, destination, a, b })
}

/// `mad.lo.cc`, `mad.hi.cc` (`.cc` already taken by the caller), `madc.lo{.cc}`, `madc.hi{.cc}`.
pub fn multiply_add(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
    cc_taken: bool,
) -> Option<Instruction> {
    let carry_in = modifiers.opcode() == "madc";
    let carry_out = cc_taken || modifiers.flag("cc");
    let high = match (modifiers.flag("lo"), modifiers.flag("hi")) {
        (true, false) => false,
        (false, true) => true,
        _ => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` needs one of `.lo` or `.hi`", modifiers.opcode()),
                )
                .with_primary(modifiers.end_span(), "expected `.lo` or `.hi`"),
            );
            return None;
        }
    };
    let ty = carry_type(context, modifiers)?;
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    let c = context.source(&instruction.operands[3], ty.node, SizeRule::Exact)?;
    Some(Instruction::CarryMultiplyAdd { high, ty: ty.node, carry_in, carry_out, destination, a, b, c })
}
