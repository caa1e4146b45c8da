//! Half-precision arithmetic and comparison on `.f16`, `.f16x2`, `.bf16`, `.bf16x2` (ISA 7.8
//! sections 9.7.4 and 9.7.6), and the `cvt` forms that produce or read half-precision and 8-bit
//! float values (section 9.7.8.18).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    Comparison, HalfBinaryOperation, HalfSaturation, HalfUnaryOperation, Instruction, MinimumMaximum, PackedFormat,
    RoundingMode,
};
use crate::span::{Span, Spanned};
use crate::syntax::ast::Word;
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::ScalarType;

use super::comparison::{logic_operation, predicate_operand};
use super::{Context, Modifiers};

const HALF_TYPES: [&str; 4] = ["f16", "f16x2", "bf16", "bf16x2"];

fn is_half_type(ty: ScalarType) -> bool {
    matches!(ty, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2)
}

fn is_brain_float(ty: ScalarType) -> bool {
    matches!(ty, ScalarType::Bf16 | ScalarType::Bf16x2)
}

/// Whether `instruction` is an arithmetic or `setp` instruction on a half-precision type, which
/// this module decodes instead of the general float decoders.
pub fn is_half_precision(instruction: &ast::Instruction) -> bool {
    matches!(instruction.opcode.node.as_str(), "add" | "sub" | "mul" | "fma" | "neg" | "abs" | "min" | "max" | "setp")
        && instruction.modifiers.iter().any(|modifier| HALF_TYPES.contains(&modifier.node.as_str()))
}

fn invalid(context: &mut Context, span: Span, message: String, label: &str) {
    context.report(Diagnostic::error(Code::InvalidModifier, message).with_primary(span, label.to_string()));
}

/// Reports a modifier that the instruction's type or opcode does not take.
fn refuse(context: &mut Context, modifier: &Option<Spanned<()>>, name: &str, what: &str) -> Option<()> {
    match modifier {
        Some(modifier) => {
            invalid(context, modifier.span, format!("`.{name}` is not defined for {what}"), "unexpected modifier");
            None
        }
        None => Some(()),
    }
}

pub fn decode(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    match modifiers.opcode() {
        "setp" => setp(context, modifiers, instruction),
        "neg" | "abs" => unary(context, modifiers, instruction),
        "fma" => fused_multiply_add(context, modifiers, instruction),
        _ => binary(context, modifiers, instruction),
    }
}

/// The instruction type, which must be one of the four half types.
fn half_type(context: &mut Context, modifiers: &mut Modifiers) -> Option<ScalarType> {
    let ty = modifiers.required_type(context)?;
    if !is_half_type(ty.node) {
        invalid(
            context,
            ty.span,
            format!("`{}` does not mix `{}` with half-precision types", modifiers.opcode(), ty.node),
            "expected `.f16`, `.f16x2`, `.bf16` or `.bf16x2`",
        );
        return None;
    }
    Some(ty.node)
}

/// `.ftz`, which only `.f16` and `.f16x2` take.
fn flush_flag(context: &mut Context, modifiers: &mut Modifiers, ty: ScalarType) -> Option<bool> {
    let flush = modifiers.take_flag("ftz");
    if is_brain_float(ty) {
        refuse(context, &flush, "ftz", "`.bf16` and `.bf16x2`")?;
        return Some(false);
    }
    Some(flush.is_some())
}

/// `.rn`, the only rounding of half-precision arithmetic; `required` for `fma`.
fn nearest_rounding(context: &mut Context, modifiers: &mut Modifiers, required: bool) -> Option<()> {
    match modifiers.take(RoundingMode::from_ptx) {
        Some(rounding) if rounding.node != RoundingMode::NearestEven => {
            invalid(
                context,
                rounding.span,
                format!("half-precision `{}` only rounds with `.rn`", modifiers.opcode()),
                "expected `.rn`",
            );
            None
        }
        Some(_) => Some(()),
        None if required => {
            invalid(
                context,
                modifiers.end_span(),
                format!("`{}` needs a rounding modifier", modifiers.opcode()),
                "expected `.rn`",
            );
            None
        }
        None => Some(()),
    }
}

fn operands<const N: usize>(
    context: &mut Context,
    instruction: &ast::Instruction,
    ty: ScalarType,
) -> Option<(crate::ir::Destination, [crate::ir::Operand; N])> {
    context.expect_operand_count(instruction, N + 1)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let mut sources = Vec::with_capacity(N);
    for operand in &instruction.operands[1..] {
        sources.push(context.source(operand, ty, SizeRule::Exact)?);
    }
    Some((destination, sources.try_into().ok()?))
}

fn binary(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let minimum_or_maximum = matches!(opcode, "min" | "max");
    let propagate_nan = modifiers.take_flag("NaN");
    let xorsign = modifiers.take_flag("xorsign");
    let absolute = modifiers.take_flag("abs");
    let saturate = modifiers.take_flag("sat");
    let relu = modifiers.take_flag("relu");
    if !minimum_or_maximum {
        nearest_rounding(context, modifiers, false)?;
    }
    let ty = half_type(context, modifiers)?;
    let flush_subnormals = flush_flag(context, modifiers, ty)?;
    refuse(context, &relu, "relu", &format!("`{opcode}`"))?;
    let operation = if minimum_or_maximum {
        refuse(context, &saturate, "sat", &format!("`{opcode}`"))?;
        if xorsign.is_some() != absolute.is_some() {
            let span = xorsign.or(absolute).map_or(instruction.opcode.span, |modifier| modifier.span);
            invalid(context, span, "`.xorsign` and `.abs` come together".to_string(), "write `.xorsign.abs`");
            return None;
        }
        let modifiers = MinimumMaximum { propagate_nan: propagate_nan.is_some(), xorsign_absolute: xorsign.is_some() };
        if opcode == "min" {
            HalfBinaryOperation::Minimum(modifiers)
        } else {
            HalfBinaryOperation::Maximum(modifiers)
        }
    } else {
        let what = format!("`{opcode}`");
        refuse(context, &propagate_nan, "NaN", &what)?;
        refuse(context, &xorsign, "xorsign", &what)?;
        refuse(context, &absolute, "abs", &what)?;
        if is_brain_float(ty) {
            refuse(context, &saturate, "sat", "`.bf16` and `.bf16x2`")?;
        }
        match opcode {
            "add" => HalfBinaryOperation::Add,
            "sub" => HalfBinaryOperation::Subtract,
            _ => HalfBinaryOperation::Multiply,
        }
    };
    let saturation = if saturate.is_some() { HalfSaturation::Unit } else { HalfSaturation::None };
    let (destination, [a, b]) = operands::<2>(context, instruction, ty)?;
    Some(Instruction::HalfBinary { operation, ty, flush_subnormals, saturation, destination, a, b })
}

fn fused_multiply_add(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    // `.oob` (PTX 8.1: out-of-bounds operands read as zero) is valid but not lowered yet.
    if modifiers.flag("oob") {
        return super::accept_unlowered(context, modifiers, instruction);
    }
    let saturate = modifiers.take_flag("sat");
    let relu = modifiers.take_flag("relu");
    let rounding = fused_rounding(context, modifiers)?;
    let ty = half_type(context, modifiers)?;
    // ptxas 12.9 takes `.rz`, `.rm` and `.rp` on `.bf16` and `.bf16x2` (sm_80, as `.rn`), and
    // refuses them on `.f16` ('Illegal rounding modifier for instruction 'fma'').
    if rounding.node != RoundingMode::NearestEven && !is_brain_float(ty) {
        invalid(
            context,
            rounding.span,
            format!("`fma{}` is for `.bf16` and `.bf16x2`", rounding.node),
            "`.f16` and `.f16x2` round with `.rn`",
        );
        return None;
    }
    let flush_subnormals = flush_flag(context, modifiers, ty)?;
    if is_brain_float(ty) {
        refuse(context, &saturate, "sat", "`.bf16` and `.bf16x2`")?;
    }
    let saturation = match (saturate, relu) {
        (Some(_), Some(relu)) => {
            invalid(context, relu.span, "`.sat` and `.relu` exclude each other".to_string(), "choose one");
            return None;
        }
        (Some(_), None) => HalfSaturation::Unit,
        (None, Some(_)) => HalfSaturation::Relu,
        (None, None) => HalfSaturation::None,
    };
    let (destination, [a, b, c]) = operands::<3>(context, instruction, ty)?;
    Some(Instruction::HalfFusedMultiplyAdd {
        ty,
        rounding: rounding.node,
        flush_subnormals,
        saturation,
        destination,
        a,
        b,
        c,
    })
}

/// The rounding of half-precision `fma`, which it needs: `.rn`, or `.rz`, `.rm`, `.rp`.
fn fused_rounding(context: &mut Context, modifiers: &mut Modifiers) -> Option<Spanned<RoundingMode>> {
    match modifiers.take(RoundingMode::from_ptx) {
        Some(rounding) if rounding.node.is_integral() => {
            invalid(
                context,
                rounding.span,
                "half-precision `fma` rounds with `.rn`, `.rz`, `.rm` or `.rp`".to_string(),
                "expected a floating-point rounding",
            );
            None
        }
        Some(rounding) => Some(rounding),
        None => {
            invalid(context, modifiers.end_span(), "`fma` needs a rounding modifier".to_string(), "expected `.rn`");
            None
        }
    }
}

fn unary(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let operation = if modifiers.opcode() == "neg" { HalfUnaryOperation::Negate } else { HalfUnaryOperation::Absolute };
    let ty = half_type(context, modifiers)?;
    let flush_subnormals = flush_flag(context, modifiers, ty)?;
    let (destination, [a]) = operands::<1>(context, instruction, ty)?;
    Some(Instruction::HalfUnary { operation, ty, flush_subnormals, destination, a })
}

/// A floating-point comparison (`lo`, `ls`, `hi`, `hs` are integer-only).
pub(super) fn float_comparison(
    context: &mut Context,
    modifiers: &mut Modifiers,
    opcode: &str,
) -> Option<Spanned<Comparison>> {
    let Some(comparison) = modifiers.take(Comparison::from_ptx) else {
        invalid(
            context,
            modifiers.end_span(),
            format!("`{opcode}` needs a comparison"),
            "expected `.eq`, `.ne`, `.lt`, `.le`, `.gt`, `.ge`, ...",
        );
        return None;
    };
    Some(comparison)
}

fn setp(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let comparison = float_comparison(context, modifiers, "setp")?;
    let combine_operation = modifiers.take_sketched(super::comparison::LOGIC_OPERATIONS, logic_operation);
    let ty = half_type(context, modifiers)?;
    let flush_subnormals = flush_flag(context, modifiers, ty)?;
    if comparison.node.is_integer_only() {
        invalid(
            context,
            comparison.span,
            format!("this comparison is not defined on `{ty}`"),
            "unsigned comparisons are for integers",
        );
        return None;
    }
    context.expect_operand_count(instruction, if combine_operation.is_some() { 4 } else { 3 })?;
    let a = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty, SizeRule::Exact)?;
    let combine = match combine_operation {
        None => None,
        Some(operation) => {
            let (predicate, negated) = predicate_operand(context, &instruction.operands[3])?;
            Some((operation.node, predicate, negated))
        }
    };
    let first_and_second = match &instruction.operands[0].kind {
        OperandKind::PredicatePair(first, second) => {
            let first = context.destination(first, ScalarType::Pred, SizeRule::Exact)?;
            let second = if matches!(second.kind, OperandKind::Sink) {
                None
            } else {
                Some(context.destination(second, ScalarType::Pred, SizeRule::Exact)?)
            };
            (first, second)
        }
        _ => (context.destination(&instruction.operands[0], ScalarType::Pred, SizeRule::Exact)?, None),
    };
    let comparison = comparison.node;
    if matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2) {
        // ptxas 12.9 also takes one predicate, `p` of `p|_`: it assembles `setp.lt.f16x2 p, a,
        // b` to the `HSETP2` of `p|q` with the low lanes (`.H0_H0`) only.
        let (low, high) = first_and_second;
        let combine = combine.map(Box::new);
        return Some(Instruction::PackedSetPredicate { comparison, ty, flush_subnormals, low, high, a, b, combine });
    }
    let (destination, complement) = first_and_second;
    // ptxas 12.9 takes `p|_` on `.f16`/`.bf16` but no second predicate ('Predicate output not
    // allowed for instruction 'setp'').
    if complement.is_some() {
        invalid(
            context,
            instruction.operands[0].span,
            format!("`setp{ty}` writes one predicate"),
            "write `p` (or `p|_`)",
        );
        return None;
    }
    let combine = combine.map(Box::new);
    Some(Instruction::SetPredicate { comparison, ty, flush_subnormals, destination, complement, a, b, combine })
}

/// The `cvt` forms this module decodes: any with a half, packed, 8-, 6- or 4-bit float type,
/// `.relu` or `.satfinite`, except those with `.tf32`, `.ue8m0` or stochastic rounding (later
/// PTX versions), which stay unsupported forms of `cvt`.
pub fn is_half_conversion(instruction: &ast::Instruction) -> bool {
    let names = || instruction.modifiers.iter().map(|modifier| modifier.node.as_str());
    let later_form = |name: &str| {
        matches!(name, "tf32" | "rs" | "rna")
            || (name.starts_with("ue") && name != "ue8m0x2")
            || (name.starts_with('e') && name.ends_with("x2") && PackedFormat::from_ptx(name).is_none())
    };
    // PTX 9.1 added 6- and 4-bit floats from `.f16x2`/`.bf16x2`; only `.f32` sources came before.
    let mut types =
        names().filter(|name| ScalarType::from_ptx(name).is_some() || PackedFormat::from_ptx(name).is_some());
    let later_narrow = match (types.next().and_then(PackedFormat::from_ptx), types.next()) {
        (Some(destination), Some(source)) => {
            // Only `cvt.rn.bf16x2.ue8m0x2` of the `.ue8m0x2` forms is decoded here.
            (destination.is_narrow_float() && !destination.is_float8() && source != "f32")
                || destination == PackedFormat::Ue8m0x2
        }
        _ => false,
    };
    !later_narrow
        && !names().any(later_form)
        && names().any(|name| {
            HALF_TYPES.contains(&name)
                || PackedFormat::from_ptx(name).is_some_and(PackedFormat::is_narrow_float)
                || matches!(name, "relu" | "satfinite")
        })
}

pub fn cvt(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let rounding = modifiers.take(RoundingMode::from_ptx);
    let relu = modifiers.take_flag("relu");
    let satfinite = modifiers.take_flag("satfinite");
    let saturate = modifiers.take_flag("sat");
    let flush = modifiers.take_flag("ftz");
    let packed = |name: &str| PackedFormat::from_ptx(name);
    // The types come last; the first is the destination's.
    let type_names: Vec<&Spanned<Word>> = instruction
        .modifiers
        .iter()
        .filter(|modifier| ScalarType::from_ptx(&modifier.node).is_some() || packed(&modifier.node).is_some())
        .collect();
    let [destination_name, source_name] = type_names.as_slice() else {
        invalid(
            context,
            modifiers.end_span(),
            "`cvt` needs a destination and a source type".to_string(),
            "expected two types such as `.f16.f32`",
        );
        return None;
    };
    let (destination_name, source_name) = (*destination_name, *source_name);
    modifiers.drop_all(|name| name == destination_name.node || name == source_name.node);
    let destination_packed = packed(&destination_name.node);
    let source_packed = packed(&source_name.node);
    let rounding_span = rounding.as_ref().map_or(instruction.opcode.span, |rounding| rounding.span);
    let rounding_node = rounding.as_ref().map(|rounding| rounding.node);
    // Every modifier is taken by now, so a missing one is shown after the last written.
    let end = instruction.modifiers.last().map_or(instruction.opcode.span.end, |modifier| modifier.span.end);
    let end_span = Span { start: end, end };
    // The 8-bit float conversions round to nearest, and saturate when they produce 8-bit floats.
    let float8_modifiers = |context: &mut Context, produces_float8: bool, description: &str| {
        if rounding_node != Some(RoundingMode::NearestEven) {
            invalid(context, rounding_span, format!("{description} needs `.rn`"), "expected `.rn`");
            return None;
        }
        if produces_float8 && satfinite.is_none() {
            invalid(context, end_span, format!("{description} needs `.satfinite`"), "expected `.satfinite`");
            return None;
        }
        Some(())
    };
    let no_sat = |context: &mut Context| refuse(context, &saturate, "sat", "this `cvt` form");
    let no_ftz = |context: &mut Context| refuse(context, &flush, "ftz", "this `cvt` form");
    let nearest_or_zero = |context: &mut Context| match rounding_node {
        Some(rounding @ (RoundingMode::NearestEven | RoundingMode::TowardZero)) => Some(rounding),
        _ => {
            invalid(
                context,
                rounding_span,
                "packing `cvt` needs `.rn` or `.rz`".to_string(),
                "expected `.rn` or `.rz`",
            );
            None
        }
    };
    match (destination_packed, source_packed) {
        // cvt.frnd2{.relu}{.satfinite}.packed.f32 d, a, b
        (Some(format), None) if !format.is_narrow_float() || source_name.node == "f32" => {
            if source_name.node != "f32" {
                invalid(
                    context,
                    source_name.span,
                    format!("`cvt{format}` packs two `.f32` values"),
                    "expected `.f32` (or `.f16x2` for 8-bit floats)",
                );
                return None;
            }
            no_sat(context)?;
            no_ftz(context)?;
            let rounding = if format.is_narrow_float() {
                float8_modifiers(context, true, &format!("`cvt{format}.f32`"))?;
                RoundingMode::NearestEven
            } else {
                nearest_or_zero(context)?
            };
            context.expect_operand_count(instruction, 3)?;
            let destination_type = if format.is_narrow_float() { format.narrow_pair_type() } else { ScalarType::B32 };
            let destination = context.destination(&instruction.operands[0], destination_type, SizeRule::Exact)?;
            let high = context.source(&instruction.operands[1], ScalarType::F32, SizeRule::Exact)?;
            let low = context.source(&instruction.operands[2], ScalarType::F32, SizeRule::Exact)?;
            Some(Instruction::PackConvert {
                format,
                rounding,
                relu: relu.is_some(),
                satfinite: satfinite.is_some(),
                destination,
                high,
                low,
            })
        }
        // cvt.rn.satfinite{.relu}.f8x2type.{f16x2,bf16x2} d, a and
        // cvt.rn{.relu}.f16x2.{f8x2type,f6x2type,f4x2type} d, a
        (Some(destination_format), Some(source_format))
            if (destination_format.is_float8()
                && matches!(source_format, PackedFormat::F16x2 | PackedFormat::Bf16x2))
                || (destination_format == PackedFormat::F16x2 && source_format.is_narrow_float()) =>
        {
            no_sat(context)?;
            no_ftz(context)?;
            let to_float8 = destination_format.is_float8();
            float8_modifiers(context, to_float8, &format!("`cvt{destination_format}{source_format}`"))?;
            if !to_float8 {
                refuse(context, &satfinite, "satfinite", "conversions from 8-bit floats")?;
            }
            context.expect_operand_count(instruction, 2)?;
            let (destination_type, source_type) = if to_float8 {
                (ScalarType::B16, ScalarType::B32)
            } else {
                (ScalarType::B32, source_format.narrow_pair_type())
            };
            let destination = context.destination(&instruction.operands[0], destination_type, SizeRule::Exact)?;
            let source = context.source(&instruction.operands[1], source_type, SizeRule::Exact)?;
            let (format, wide) =
                if to_float8 { (destination_format, source_format) } else { (source_format, destination_format) };
            Some(Instruction::Float8Convert { format, wide, to_float8, relu: relu.is_some(), destination, source })
        }
        // cvt.rn.bf16x2.ue8m0x2 d, a: each 8-bit scale widened (exactly) to `.bf16`.
        (Some(PackedFormat::Bf16x2), Some(PackedFormat::Ue8m0x2)) => {
            no_sat(context)?;
            no_ftz(context)?;
            refuse(context, &relu, "relu", "`cvt.rn.bf16x2.ue8m0x2`")?;
            refuse(context, &satfinite, "satfinite", "`cvt.rn.bf16x2.ue8m0x2`")?;
            if rounding_node != Some(RoundingMode::NearestEven) {
                invalid(context, rounding_span, "`cvt.bf16x2.ue8m0x2` needs `.rn`".to_string(), "expected `.rn`");
                return None;
            }
            context.expect_operand_count(instruction, 2)?;
            let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
            let source = context.source(&instruction.operands[1], ScalarType::B16, SizeRule::Exact)?;
            Some(Instruction::Float8Convert {
                format: PackedFormat::Ue8m0x2,
                wide: PackedFormat::Bf16x2,
                to_float8: false,
                relu: false,
                destination,
                source,
            })
        }
        (None, None) => {
            let destination_type = ScalarType::from_ptx(&destination_name.node)?;
            let source_type = ScalarType::from_ptx(&source_name.node)?;
            scalar_cvt(context, instruction, destination_type, source_type, rounding, flush, saturate, relu, satfinite)
        }
        _ => {
            invalid(
                context,
                source_name.span,
                format!("`cvt` does not convert `{}` to `{}`", source_name.node, destination_name.node),
                "unsupported pair of types",
            );
            None
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn scalar_cvt(
    context: &mut Context,
    instruction: &ast::Instruction,
    destination_type: ScalarType,
    source_type: ScalarType,
    rounding: Option<Spanned<RoundingMode>>,
    flush: Option<Spanned<()>>,
    saturate: Option<Spanned<()>>,
    relu: Option<Spanned<()>>,
    satfinite: Option<Spanned<()>>,
) -> Option<Instruction> {
    if destination_type == ScalarType::Pred || source_type == ScalarType::Pred {
        invalid(
            context,
            instruction.opcode.span,
            "`cvt` does not convert predicates".to_string(),
            "use `selp` or `setp`",
        );
        return None;
    }
    let half_destination = matches!(destination_type, ScalarType::F16 | ScalarType::Bf16);
    if !half_destination {
        refuse(context, &relu, "relu", "this destination type")?;
        refuse(context, &satfinite, "satfinite", "this destination type")?;
    }
    if saturate.is_some() && relu.is_some() {
        refuse(context, &relu, "relu", "`cvt.sat`")?;
    }
    let rounding = match rounding {
        Some(rounding) => {
            super::data_movement::check_exact_float_rounding(context, &rounding, destination_type, source_type)?;
            let allowed = if rounding.node.is_integral() {
                source_type.is_float() && (destination_type == source_type || !destination_type.is_float())
            } else {
                destination_type.is_float() || source_type.is_float()
            };
            if !allowed {
                invalid(
                    context,
                    rounding.span,
                    format!("`{}` is not a rounding of `cvt{}{}`", rounding.node, destination_type, source_type),
                    "invalid rounding modifier here",
                );
                return None;
            }
            rounding.node
        }
        // Float to integer truncates by default; other conversions round to nearest even.
        None if source_type.is_float() && !destination_type.is_float() => RoundingMode::TowardZeroIntegral,
        None => RoundingMode::NearestEven,
    };
    let saturation = match (saturate, relu) {
        (Some(_), _) => HalfSaturation::Unit,
        (None, Some(_)) => HalfSaturation::Relu,
        (None, None) => HalfSaturation::None,
    };
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], destination_type, SizeRule::AllowWider)?;
    let source = context.source(&instruction.operands[1], source_type, SizeRule::AllowWider)?;
    Some(Instruction::HalfConvert {
        destination_type,
        source_type,
        rounding,
        flush_subnormals: flush.is_some(),
        saturation,
        satfinite: satfinite.is_some(),
        destination,
        source,
    })
}
