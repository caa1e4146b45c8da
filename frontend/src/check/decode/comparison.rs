//! `setp` and `selp` (ISA 7.8 section 9.7.5), and `testp` (section 9.7.3.1), which also yields a
//! predicate.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Comparison, FloatProperty, Instruction, LogicOperation, Operand, Value};
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarKind, ScalarType};

use super::{accept_unlowered, Context, Modifiers};

/// Every name [`logic_operation`] reads, and their sketch for `Modifiers::take_sketched`: most
/// comparisons combine with no predicate.
pub(super) const LOGIC_NAMES: [&str; 3] = ["and", "or", "xor"];
pub(super) const LOGIC_OPERATIONS: u64 = super::modifiers::sketch_of(&LOGIC_NAMES);

pub(super) fn logic_operation(name: &str) -> Option<LogicOperation> {
    Some(match name {
        "and" => LogicOperation::And,
        "or" => LogicOperation::Or,
        "xor" => LogicOperation::Xor,
        _ => return None,
    })
}

/// The modifier [`logic_operation`] reads as `operation`, without its dot.
pub(super) fn logic_spelling(operation: LogicOperation) -> &'static str {
    match operation {
        LogicOperation::And => "and",
        LogicOperation::Or => "or",
        LogicOperation::Xor => "xor",
    }
}

/// `testp.property.type p, a` with `.type` `.f32` or `.f64`.
pub fn testp(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let Some(property) = modifiers.take(FloatProperty::from_ptx) else {
        context.report(Diagnostic::error(Code::InvalidModifier, "`testp` needs a property").with_primary(
            modifiers.end_span(),
            "expected `.finite`, `.infinite`, `.number`, `.notanumber`, `.normal` or `.subnormal`",
        ));
        return None;
    };
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::F32 | ScalarType::F64) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`testp` does not take type `{}`", ty.node))
                .with_primary(ty.span, "expected `.f32` or `.f64`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::Pred, SizeRule::Exact)?;
    let source = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    Some(Instruction::TestProperty { property: property.node, ty: ty.node, destination, source })
}

pub fn setp(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let Some(comparison) = modifiers.take(Comparison::from_ptx) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`setp` needs a comparison")
                .with_primary(modifiers.end_span(), "expected `.eq`, `.ne`, `.lt`, `.le`, `.gt`, `.ge`, ..."),
        );
        return None;
    };
    let combine_operation = modifiers.take_sketched(LOGIC_OPERATIONS, logic_operation);
    let flush = modifiers.take_flag("ftz");
    let ty = modifiers.required_type(context)?;
    if matches!(ty.node, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2) {
        return accept_unlowered(context, modifiers, instruction);
    }
    // `.ftz` flushes `.f32` subnormals: ptxas 12.9 refuses it on integer and `.f64` comparisons
    // ('Illegal modifier '.ftz' for instruction 'setp'').
    if let Some(flush) = &flush {
        if ty.node != ScalarType::F32 {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`setp` has no `.ftz` on `{}`", ty.node))
                    .with_primary(flush.span, "`.ftz` is for `.f32`"),
            );
            return None;
        }
    }
    let flush_subnormals = flush.is_some();
    // `.lo`, `.ls`, `.hi` and `.hs` are the unsigned orderings: ptxas 12.9 refuses them on
    // signed types ('Mismatch between instruction type and comparison qualifier').
    if ty.node.kind() == ScalarKind::Signed && comparison.node.is_integer_only() {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("unsigned comparison on `{}`", ty.node))
                .with_primary(comparison.span, "`.lo`, `.ls`, `.hi` and `.hs` compare unsigned integers")
                .with_help("use `.lt`, `.le`, `.gt` or `.ge` on signed integers"),
        );
        return None;
    }
    let float = ty.node.is_float();
    if ty.node.kind() == ScalarKind::Pred || ty.node.bits() < 16 || (float && comparison.node.is_integer_only()) {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`setp{}` is not defined on `{}`", comparison_spelling(instruction), ty.node),
            )
            .with_primary(ty.span, "invalid type for this comparison"),
        );
        return None;
    }
    if !float && comparison.node.is_float_only() {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "this comparison is only defined for floating-point types")
                .with_primary(comparison.span, format!("not valid with `{}`", ty.node)),
        );
        return None;
    }
    if !float
        && ty.node.kind() == ScalarKind::Bit
        && !matches!(comparison.node, Comparison::Equal | Comparison::NotEqual)
    {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "bit types compare only with `.eq` and `.ne`")
                .with_primary(comparison.span, format!("ordering is undefined on `{}`", ty.node))
                .with_help("use a `.u` or `.s` type to order integers"),
        );
        return None;
    }
    let expected = if combine_operation.is_some() { 4 } else { 3 };
    context.expect_operand_count(instruction, expected)?;
    let (destination, complement) = match &instruction.operands[0].kind {
        OperandKind::PredicatePair(first, second) => {
            let destination = context.destination(first, ScalarType::Pred, SizeRule::Exact)?;
            let complement = if matches!(second.kind, OperandKind::Sink) {
                None
            } else {
                Some(context.destination(second, ScalarType::Pred, SizeRule::Exact)?)
            };
            (destination, complement)
        }
        _ => (context.destination(&instruction.operands[0], ScalarType::Pred, SizeRule::Exact)?, None),
    };
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    let combine = match combine_operation {
        None => None,
        Some(operation) => {
            let (predicate, negated) = predicate_operand(context, &instruction.operands[3])?;
            Some((operation.node, predicate, negated))
        }
    };
    Some(Instruction::SetPredicate {
        comparison: comparison.node,
        ty: ty.node,
        flush_subnormals,
        destination,
        complement,
        a,
        b,
        combine: combine.map(Box::new),
    })
}

fn comparison_spelling(instruction: &ast::Instruction) -> String {
    instruction.modifiers.iter().take(1).map(|modifier| format!(".{}", modifier.node)).collect()
}

/// A predicate source, possibly negated (`!%p`).
pub(super) fn predicate_operand(context: &mut Context, operand: &ast::Operand) -> Option<(Operand, bool)> {
    match &operand.kind {
        OperandKind::Not(inner) => Some((context.source(inner, ScalarType::Pred, SizeRule::Exact)?, true)),
        _ => {
            let source = context.source(operand, ScalarType::Pred, SizeRule::Exact)?;
            if !matches!(source.value, Value::Register(_))
                && !matches!(source.value, Value::Integer(value) if matches!(value.get(), 0 | 1))
            {
                context.report(
                    Diagnostic::error(Code::OperandKind, "expected a predicate register")
                        .with_primary(operand.span, "not a predicate"),
                );
                return None;
            }
            Some((source, false))
        }
    }
}

pub fn selp(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let ty = modifiers.required_type(context)?;
    // Section 9.7.5.3: 16- to 64-bit integer and bit types, `.f32` and `.f64`; ptxas 12.9 also
    // refuses the half types ('Unexpected instruction types specified for 'selp''), which
    // select as `.b16` or `.b32`.
    let half = ty.node.kind() == ScalarKind::Float && !matches!(ty.node, ScalarType::F32 | ScalarType::F64);
    if half || ty.node.kind() == ScalarKind::Pred || ty.node.bits() < 16 || ty.node.bits() > 64 {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`selp` does not take type `{}`", ty.node))
                .with_primary(ty.span, "expected a 16-, 32- or 64-bit integer or bit type, `.f32` or `.f64`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    let (predicate, negated) = predicate_operand(context, &instruction.operands[3])?;
    if negated {
        context.report(
            Diagnostic::error(Code::OperandKind, "`selp` does not negate its predicate")
                .with_primary(instruction.operands[3].span, "swap the two values instead"),
        );
        return None;
    }
    Some(Instruction::Select { ty: ty.node, destination, a, b, predicate })
}

/// `slct.dtype.s32 d, a, b, c` and `slct{.ftz}.dtype.f32 d, a, b, c` (ISA 7.8 section 9.7.5.4):
/// `dtype` is any 16-, 32- or 64-bit type but the half-precision ones.
pub fn slct(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let flush_subnormals = modifiers.flag("ftz");
    let ty = modifiers.required_type(context)?;
    let condition_type = modifiers.required_type(context)?;
    let valid_type = matches!(ty.node.kind(), ScalarKind::Bit | ScalarKind::Unsigned | ScalarKind::Signed)
        && matches!(ty.node.bits(), 16 | 32 | 64)
        || matches!(ty.node, ScalarType::F32 | ScalarType::F64);
    if !valid_type {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`slct` does not take type `{}`", ty.node))
                .with_primary(ty.span, "expected a 16-, 32- or 64-bit integer or bit type, `.f32` or `.f64`"),
        );
        return None;
    }
    if !matches!(condition_type.node, ScalarType::S32 | ScalarType::F32) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`slct` does not compare type `{}`", condition_type.node))
                .with_primary(condition_type.span, "expected `.s32` or `.f32`"),
        );
        return None;
    }
    if flush_subnormals && condition_type.node != ScalarType::F32 {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`.ftz` applies only to `slct` on `.f32`")
                .with_primary(condition_type.span, "not `.f32`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    let c = context.source(&instruction.operands[3], condition_type.node, SizeRule::Exact)?;
    Some(Instruction::SelectBySign {
        ty: ty.node,
        condition_type: condition_type.node,
        flush_subnormals,
        destination,
        a,
        b,
        c,
    })
}

/// `set.cmp[.bool][.ftz].dtype.stype d, a, b[, {!}c]` (ISA 7.8 sections 9.7.5.1 and 9.7.6.1).
pub fn set(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let comparison = super::half::float_comparison(context, modifiers, "set")?;
    let combine_operation = modifiers.take_sketched(LOGIC_OPERATIONS, logic_operation);
    let flush = modifiers.take_flag("ftz");
    let destination_type = modifiers.required_type(context)?;
    let source_type = modifiers.required_type(context)?;
    // `.ftz` flushes `.f32` and `.f16` subnormals: ptxas 12.9 refuses it on integer, `.f64` and
    // `.bf16` sources ('Illegal modifier '.ftz' for instruction 'set'').
    if let Some(flush) = &flush {
        if !matches!(source_type.node, ScalarType::F32 | ScalarType::F16 | ScalarType::F16x2) {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`set` has no `.ftz` on `{}`", source_type.node))
                    .with_primary(flush.span, "`.ftz` is for `.f32`, `.f16` and `.f16x2`"),
            );
            return None;
        }
    }
    let flush_subnormals = flush.is_some();
    // `.lo`, `.ls`, `.hi` and `.hs` are the unsigned orderings: ptxas 12.9 refuses them on
    // signed sources ('Mismatch between instruction type and comparison qualifier').
    if source_type.node.kind() == ScalarKind::Signed && comparison.node.is_integer_only() {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("unsigned comparison on `{}`", source_type.node))
                .with_primary(comparison.span, "`.lo`, `.ls`, `.hi` and `.hs` compare unsigned integers")
                .with_help("use `.lt`, `.le`, `.gt` or `.ge` on signed integers"),
        );
        return None;
    }
    let packed = |ty: ScalarType| matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2);
    let destination_valid = if packed(source_type.node) {
        destination_type.node == source_type.node || matches!(destination_type.node, ScalarType::U32 | ScalarType::S32)
    } else {
        // 16-bit integer results exist only for half sources, `.f32` results only for others.
        let half_source = matches!(source_type.node, ScalarType::F16 | ScalarType::Bf16);
        match destination_type.node {
            ScalarType::U32 | ScalarType::S32 | ScalarType::F16 | ScalarType::Bf16 => true,
            ScalarType::U16 | ScalarType::S16 => half_source,
            ScalarType::F32 => !half_source,
            _ => false,
        }
    };
    if !destination_valid {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`set` does not write `{}` from `{}`", destination_type.node, source_type.node),
            )
            .with_primary(destination_type.span, "invalid destination type")
            .with_help(match source_type.node {
                ScalarType::F16x2 | ScalarType::Bf16x2 => "packed sources write `.u32`, `.s32` or their own type",
                ScalarType::F16 | ScalarType::Bf16 => "expected `.u16`, `.s16`, `.u32`, `.s32`, `.f16` or `.bf16`",
                _ => "expected `.u32`, `.s32`, `.f32`, `.f16` or `.bf16`",
            }),
        );
        return None;
    }
    let source = source_type.node;
    let float = source.is_float();
    let source_valid = source != ScalarType::Pred
        && source.bits() >= 16
        && source.bits() <= 64
        && !(float && comparison.node.is_integer_only())
        && (float || !comparison.node.is_float_only())
        && (source.kind() != ScalarKind::Bit || matches!(comparison.node, Comparison::Equal | Comparison::NotEqual));
    if !source_valid {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`set{}` is not defined on `{}`", comparison_spelling(instruction), source),
            )
            .with_primary(source_type.span, "invalid type for this comparison"),
        );
        return None;
    }
    context.expect_operand_count(instruction, if combine_operation.is_some() { 4 } else { 3 })?;
    let destination = context.destination(&instruction.operands[0], destination_type.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], source, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], source, SizeRule::Exact)?;
    let combine = match combine_operation {
        None => None,
        Some(operation) => {
            let (predicate, negated) = predicate_operand(context, &instruction.operands[3])?;
            Some((operation.node, predicate, negated))
        }
    };
    Some(Instruction::Set {
        comparison: comparison.node,
        destination_type: destination_type.node,
        source_type: source,
        flush_subnormals,
        destination,
        a,
        b,
        combine: combine.map(Box::new),
    })
}
