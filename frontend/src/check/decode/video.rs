//! Scalar video instructions (ISA 7.8 section 9.7.15.1): `vadd`, `vsub`, `vabsdiff`, `vmin`,
//! `vmax`, `vshl`, `vshr` and `vset`, whose operands may select a byte (`%r.b1`) or a half-word
//! (`%r.h0`). `vmad` and the SIMD forms (`vadd2`, `vadd4`, ...) are accepted but not decoded.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    Comparison, Instruction, Operand, VideoInstruction, VideoOperation, VideoSecondaryOperation, VideoSelector,
};
use crate::span::Spanned;
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

/// Whether `opcode` is a scalar video instruction that `scalar` decodes.
pub fn is_scalar_video(opcode: &str) -> bool {
    matches!(opcode, "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset")
}

/// Splits `%r.b1` into `%r` and its selector; other operands come back unchanged.
fn split_selector(context: &mut Context, operand: &ast::Operand) -> Option<(ast::Operand, Option<VideoSelector>)> {
    let OperandKind::Name { name, member: Some(member) } = &operand.kind else {
        return Some((operand.clone(), None));
    };
    let Some(selector) = VideoSelector::from_ptx(member) else {
        context.report(
            Diagnostic::error(Code::OperandKind, format!("`.{member}` is not a video operand selector"))
                .with_primary(operand.span, "expected `.b0`, `.b1`, `.b2`, `.b3`, `.h0` or `.h1`"),
        );
        return None;
    };
    let register = ast::Operand { kind: OperandKind::Name { name: name.clone(), member: None }, span: operand.span };
    Some((register, Some(selector)))
}

fn video_type(context: &mut Context, modifiers: &mut Modifiers) -> Option<Spanned<ScalarType>> {
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::U32 | ScalarType::S32) {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`{}` does not take type `{}`", modifiers.opcode(), ty.node),
            )
            .with_primary(ty.span, "expected `.u32` or `.s32`"),
        );
        return None;
    }
    Some(ty)
}

fn secondary_operation(name: &str) -> Option<VideoSecondaryOperation> {
    Some(match name {
        "add" => VideoSecondaryOperation::Add,
        "min" => VideoSecondaryOperation::Minimum,
        "max" => VideoSecondaryOperation::Maximum,
        _ => return None,
    })
}

fn video_comparison(name: &str) -> Option<Comparison> {
    Comparison::from_ptx(name).filter(|comparison| {
        matches!(
            comparison,
            Comparison::Equal
                | Comparison::NotEqual
                | Comparison::Less
                | Comparison::LessOrEqual
                | Comparison::Greater
                | Comparison::GreaterOrEqual
        )
    })
}

pub fn scalar(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let shift_wrap = if matches!(opcode, "vshl" | "vshr") {
        match (modifiers.flag("clamp"), modifiers.flag("wrap")) {
            (true, false) => Some(false),
            (false, true) => Some(true),
            _ => {
                context.report(
                    Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` needs one of `.clamp` or `.wrap`"))
                        .with_primary(modifiers.end_span(), "expected `.clamp` or `.wrap`"),
                );
                return None;
            }
        }
    } else {
        None
    };
    let operation = match (opcode, shift_wrap) {
        ("vadd", _) => VideoOperation::Add,
        ("vsub", _) => VideoOperation::Subtract,
        ("vabsdiff", _) => VideoOperation::AbsoluteDifference,
        ("vmin", _) => VideoOperation::Minimum,
        ("vmax", _) => VideoOperation::Maximum,
        ("vshl", Some(wrap)) => VideoOperation::ShiftLeft { wrap },
        ("vshr", Some(wrap)) => VideoOperation::ShiftRight { wrap },
        _ => {
            let Some(comparison) = modifiers.take(video_comparison) else {
                context.report(
                    Diagnostic::error(Code::InvalidModifier, "`vset` needs a comparison")
                        .with_primary(modifiers.end_span(), "expected `.eq`, `.ne`, `.lt`, `.le`, `.gt` or `.ge`"),
                );
                return None;
            };
            VideoOperation::Set(comparison.node)
        }
    };
    let is_set = matches!(operation, VideoOperation::Set(_));
    // `vset` has no destination type: its result is an unsigned 0 or 1.
    let destination_type = if is_set { ScalarType::U32 } else { video_type(context, modifiers)?.node };
    let a_type = video_type(context, modifiers)?.node;
    let b_type = video_type(context, modifiers)?;
    if shift_wrap.is_some() && b_type.node != ScalarType::U32 {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("the shift amount of `{opcode}` is `.u32`"))
                .with_primary(b_type.span, "expected `.u32`"),
        );
        return None;
    }
    let saturate = !is_set && modifiers.flag("sat");
    let secondary = modifiers.take(secondary_operation).map(|secondary| secondary.node);
    if instruction.operands.is_empty() {
        context.expect_operand_count(instruction, 3)?;
    }
    let (destination_operand, destination_select) = split_selector(context, &instruction.operands[0])?;
    let needs_c = secondary.is_some() || destination_select.is_some();
    if secondary.is_some() && destination_select.is_some() {
        context.report(
            Diagnostic::error(
                Code::OperandKind,
                format!("`{opcode}` cannot both merge into `d` and take a secondary operation"),
            )
            .with_primary(instruction.operands[0].span, "a destination selector merges with `c`")
            .with_help("drop the secondary operation or the destination selector"),
        );
        return None;
    }
    context.expect_operand_count(instruction, if needs_c { 4 } else { 3 })?;
    let destination = context.destination(&destination_operand, destination_type, SizeRule::Exact)?;
    let (a_operand, a_select) = split_selector(context, &instruction.operands[1])?;
    let (b_operand, b_select) = split_selector(context, &instruction.operands[2])?;
    let a = context.source(&a_operand, a_type, SizeRule::Exact)?;
    let b = context.source(&b_operand, b_type.node, SizeRule::Exact)?;
    let c: Option<Operand> =
        if needs_c { Some(context.source(&instruction.operands[3], destination_type, SizeRule::Exact)?) } else { None };
    Some(Instruction::Video(Box::new(VideoInstruction {
        operation,
        destination_type,
        a_type,
        b_type: b_type.node,
        saturate,
        destination,
        destination_select,
        a,
        a_select,
        b,
        b_select,
        secondary,
        c,
    })))
}
