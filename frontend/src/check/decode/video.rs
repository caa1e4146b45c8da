//! Scalar video instructions (ISA 7.8 section 9.7.15.1): `vadd`, `vsub`, `vabsdiff`, `vmin`,
//! `vmax`, `vshl`, `vshr` and `vset`, whose operands may select a byte (`%r.b1`) or a half-word
//! (`%r.h0`), and the SIMD video instructions (section 9.7.17): `vadd2`, `vsub2`, `vavrg2`,
//! `vabsdiff2`, `vmin2`, `vmax2`, `vset2` and their four-lane forms, whose operands select lanes
//! (`%r.h10`, `%r.b7654`). `vmad` is accepted but not decoded.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    Comparison, Instruction, Operand, VideoInstruction, VideoOperation, VideoSecondaryOperation, VideoSelector,
    VideoSimdInstruction, VideoSimdOperation,
};
use crate::span::Spanned;
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

/// Whether `opcode` is a scalar video instruction that `scalar` decodes.
pub fn is_scalar_video(opcode: &str) -> bool {
    matches!(opcode, "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vshl" | "vshr" | "vset" | "vmad")
}

/// Whether `opcode` is a SIMD video instruction that `simd` decodes.
pub fn is_simd_video(opcode: &str) -> bool {
    simd_operation(opcode).is_some()
}

/// Whether the instruction's operands may carry video selectors (`%r.b1`, `%r.h10`).
pub fn reads_selectors(opcode: &str) -> bool {
    is_scalar_video(opcode) || is_simd_video(opcode)
}

/// The operation and lane count of a SIMD opcode (`vset` gets its comparison later).
fn simd_operation(opcode: &str) -> Option<(Option<VideoSimdOperation>, u8)> {
    let (name, lanes) = match opcode.as_bytes().last() {
        Some(b'2') => (&opcode[..opcode.len() - 1], 2),
        Some(b'4') => (&opcode[..opcode.len() - 1], 4),
        _ => return None,
    };
    let operation = match name {
        "vadd" => Some(VideoSimdOperation::Add),
        "vsub" => Some(VideoSimdOperation::Subtract),
        "vavrg" => Some(VideoSimdOperation::Average),
        "vabsdiff" => Some(VideoSimdOperation::AbsoluteDifference),
        "vmin" => Some(VideoSimdOperation::Minimum),
        "vmax" => Some(VideoSimdOperation::Maximum),
        "vset" => None,
        _ => return None,
    };
    Some((operation, lanes))
}

/// The lane digits of a SIMD selector or mask: `h10` for two lanes, `b3210` for four, lane 0
/// last. `None` when the letter or a digit does not fit.
fn lane_digits(member: &str, lanes: u8, limit: u8) -> Option<Vec<u8>> {
    let letter = if lanes == 2 { 'h' } else { 'b' };
    let digits = member.strip_prefix(letter)?;
    let digits: Option<Vec<u8>> = digits
        .chars()
        .rev()
        .map(|digit| digit.to_digit(10).map(|digit| digit as u8).filter(|&digit| digit < limit))
        .collect();
    digits.filter(|digits| !digits.is_empty())
}

/// Splits `%r.h10` into `%r` and its lane selection (each lane's source lane in `{b, a}`).
fn split_lane_selector(
    context: &mut Context,
    operand: &ast::Operand,
    lanes: u8,
    default: [u8; 4],
) -> Option<(ast::Operand, [u8; 4])> {
    let OperandKind::Name { name, member: Some(member) } = &operand.kind else {
        return Some((operand.clone(), default));
    };
    let digits = lane_digits(member, lanes, 2 * lanes).filter(|digits| digits.len() == usize::from(lanes));
    let Some(digits) = digits else {
        let example = if lanes == 2 { "`.h10`, `.h32`, `.h02`..." } else { "`.b3210`, `.b7654`, `.b0000`..." };
        context.report(
            Diagnostic::error(Code::OperandKind, format!("`.{member}` is not a {lanes}-lane video selector"))
                .with_primary(operand.span, format!("expected {example}")),
        );
        return None;
    };
    let mut select = [0; 4];
    select[..digits.len()].copy_from_slice(&digits);
    let register = ast::Operand { kind: OperandKind::Name { name: name.clone(), member: None }, span: operand.span };
    Some((register, select))
}

/// `vadd2`, `vset4` and the other SIMD video instructions.
pub fn simd(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let (operation, lanes) = simd_operation(opcode)?;
    let operation = match operation {
        Some(operation) => operation,
        None => {
            let Some(comparison) = modifiers.take(video_comparison) else {
                context.report(
                    Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` needs a comparison"))
                        .with_primary(modifiers.end_span(), "expected `.eq`, `.ne`, `.lt`, `.le`, `.gt` or `.ge`"),
                );
                return None;
            };
            VideoSimdOperation::Set(comparison.node)
        }
    };
    let is_set = matches!(operation, VideoSimdOperation::Set(_));
    let destination_signed = if is_set { false } else { video_type(context, modifiers)?.node.is_signed() };
    let a_signed = video_type(context, modifiers)?.node.is_signed();
    let b_signed = video_type(context, modifiers)?.node.is_signed();
    let saturate = !is_set && modifiers.flag("sat");
    let accumulate = modifiers.flag("add");
    if saturate && accumulate {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` cannot saturate and accumulate"))
                .with_primary(modifiers.end_span(), "`.sat` and `.add` exclude each other"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 4)?;
    let all_lanes = if lanes == 2 { 0b11 } else { 0b1111 };
    let (destination_operand, mask) = match &instruction.operands[0].kind {
        OperandKind::Name { name, member: Some(member) } => {
            let digits = lane_digits(member, lanes, lanes);
            let Some(digits) = digits else {
                let example = if lanes == 2 { "`.h0`, `.h1` or `.h10`" } else { "`.b0`, `.b10`, `.b3210`..." };
                context.report(
                    Diagnostic::error(Code::OperandKind, format!("`.{member}` is not a {lanes}-lane video mask"))
                        .with_primary(instruction.operands[0].span, format!("expected {example}")),
                );
                return None;
            };
            let register = ast::Operand {
                kind: OperandKind::Name { name: name.clone(), member: None },
                span: instruction.operands[0].span,
            };
            (register, digits.iter().fold(0u8, |mask, &lane| mask | (1 << lane)))
        }
        _ => (instruction.operands[0].clone(), all_lanes),
    };
    // `a` takes the low lanes of the pair `{b, a}` by default and `b` the high ones.
    let (a_default, b_default) = if lanes == 2 { ([0, 1, 0, 0], [2, 3, 0, 0]) } else { ([0, 1, 2, 3], [4, 5, 6, 7]) };
    let (a_operand, a_select) = split_lane_selector(context, &instruction.operands[1], lanes, a_default)?;
    let (b_operand, b_select) = split_lane_selector(context, &instruction.operands[2], lanes, b_default)?;
    let destination_type = if destination_signed { ScalarType::S32 } else { ScalarType::U32 };
    let destination = context.destination(&destination_operand, destination_type, SizeRule::Exact)?;
    let a_type = if a_signed { ScalarType::S32 } else { ScalarType::U32 };
    let b_type = if b_signed { ScalarType::S32 } else { ScalarType::U32 };
    let a = context.source(&a_operand, a_type, SizeRule::Exact)?;
    let b = context.source(&b_operand, b_type, SizeRule::Exact)?;
    let c = context.source(&instruction.operands[3], destination_type, SizeRule::Exact)?;
    Some(Instruction::VideoSimd(Box::new(VideoSimdInstruction {
        operation,
        lanes,
        destination_signed,
        a_signed,
        b_signed,
        saturate,
        accumulate,
        mask,
        a_select,
        b_select,
        destination,
        a,
        b,
        c,
    })))
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
        ("vmad", _) => {
            let plus_one = modifiers.flag("po");
            let shift = match (modifiers.flag("shr7"), modifiers.flag("shr15")) {
                (false, false) => 0,
                (true, false) => 7,
                (false, true) => 15,
                (true, true) => {
                    context.report(
                        Diagnostic::error(Code::InvalidModifier, "`vmad` takes one of `.shr7` or `.shr15`")
                            .with_primary(modifiers.end_span(), "two scales"),
                    );
                    return None;
                }
            };
            VideoOperation::MultiplyAdd { plus_one, shift, negate_product: false, negate_c: false }
        }
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
    let is_multiply_add = matches!(operation, VideoOperation::MultiplyAdd { .. });
    // `vmad` always reads `c` and has neither a secondary operation nor a merge.
    let secondary =
        if is_multiply_add { None } else { modifiers.take(secondary_operation).map(|secondary| secondary.node) };
    if instruction.operands.is_empty() {
        context.expect_operand_count(instruction, 3)?;
    }
    let (destination_operand, destination_select) = split_selector(context, &instruction.operands[0])?;
    if is_multiply_add && destination_select.is_some() {
        context.report(
            Diagnostic::error(Code::OperandKind, "`vmad` has no destination selector")
                .with_primary(instruction.operands[0].span, "write the whole register"),
        );
        return None;
    }
    let needs_c = is_multiply_add || secondary.is_some() || destination_select.is_some();
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
    // `vmad d, {-}a, {-}b, {-}c`: the sources may be negated, except with `.po`. The ISA
    // negates the product when exactly one of `a` and `b` is, and allows negating the product
    // or `c`, not both (ptxas: "Operand negation limited to either (source A xor source B) or
    // source C").
    let is_negated = |index: usize| matches!(instruction.operands[index].kind, OperandKind::Negate(_));
    let negated = instruction.operands[1..].iter().find(|operand| matches!(operand.kind, OperandKind::Negate(_)));
    let mut operation = operation;
    if let Some(negated) = negated {
        let diagnostic = match &mut operation {
            VideoOperation::MultiplyAdd { plus_one: false, negate_product, negate_c, .. } => {
                *negate_product = is_negated(1) != is_negated(2);
                *negate_c = is_negated(3);
                (*negate_product && *negate_c).then(|| {
                    Diagnostic::error(Code::OperandKind, "`vmad` negates either the product `a * b` or `c`, not both")
                        .with_primary(instruction.operands[3].span, "negated `c`")
                        .with_help("negate `c` alone, or exactly one of `a` and `b` alone")
                })
            }
            VideoOperation::MultiplyAdd { plus_one: true, .. } => Some(
                Diagnostic::error(Code::OperandKind, "`vmad.po` takes no negated operands")
                    .with_primary(negated.span, "negated source"),
            ),
            _ => Some(
                Diagnostic::error(Code::OperandKind, format!("`{opcode}` takes no negated operands"))
                    .with_primary(negated.span, "negated source"),
            ),
        };
        if let Some(diagnostic) = diagnostic {
            context.report(diagnostic);
            return None;
        }
    }
    let unnegated = |operand: &ast::Operand| match &operand.kind {
        OperandKind::Negate(inner) => (**inner).clone(),
        _ => operand.clone(),
    };
    let destination = context.destination(&destination_operand, destination_type, SizeRule::Exact)?;
    let (a_operand, a_select) = split_selector(context, &unnegated(&instruction.operands[1]))?;
    let (b_operand, b_select) = split_selector(context, &unnegated(&instruction.operands[2]))?;
    let a = context.source(&a_operand, a_type, SizeRule::Exact)?;
    let b = context.source(&b_operand, b_type.node, SizeRule::Exact)?;
    let c: Option<Operand> = if needs_c {
        Some(context.source(&unnegated(&instruction.operands[3]), destination_type, SizeRule::Exact)?)
    } else {
        None
    };
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
