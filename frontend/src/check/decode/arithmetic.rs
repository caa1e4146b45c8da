//! Integer, floating-point and logic instructions (ISA 7.8 sections 9.7.1, 9.7.3 and 9.7.7).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    FloatBinaryOperation, Instruction, IntegerBinaryOperation, IntegerLaneShape, IsaVersion, LogicOperation,
    LogicTablePredicate, MinimumMaximum, MultiplyMode, RoundingMode, ShiftOperation, UnaryOperation,
};
use crate::span::{Span, Spanned};
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarKind, ScalarType};

use super::comparison::{logic_operation, logic_spelling};
use super::modifiers::sketch_of;
use super::{accept_unlowered, Context, Modifiers};

/// Every name [`multiply_mode`] reads.
pub(super) const MULTIPLY_MODE_NAMES: [&str; 3] = ["lo", "hi", "wide"];
/// The sketches of the modes and of the float roundings, for `Modifiers::take_sketched`: most
/// arithmetic has neither.
const MULTIPLY_MODES: u64 = sketch_of(&MULTIPLY_MODE_NAMES);
pub(super) const ROUNDINGS: u64 = sketch_of(&RoundingMode::NAMES);

pub(super) fn multiply_mode(name: &str) -> Option<MultiplyMode> {
    Some(match name {
        "lo" => MultiplyMode::Low,
        "hi" => MultiplyMode::High,
        "wide" => MultiplyMode::Wide,
        _ => return None,
    })
}

fn float_rounding(name: &str) -> Option<RoundingMode> {
    RoundingMode::from_ptx(name).filter(|rounding| !rounding.is_integral())
}

fn invalid_type(context: &mut Context, opcode: &str, ty: &Spanned<ScalarType>, expected: &str) {
    context.report(
        Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` does not take type `{}`", ty.node))
            .with_primary(ty.span, format!("expected {expected}")),
    );
}

/// A modifier the instruction's opcode and type do not take, naming where it belongs.
fn refuse_modifier(context: &mut Context, span: Span, name: &str, instruction: &str, allowed: &str) {
    context.report(
        Diagnostic::error(Code::InvalidModifier, format!("`.{name}` is not defined for {instruction}"))
            .with_primary(span, format!("`.{name}` is for {allowed}")),
    );
}

/// The destination type of a `.wide` product, reported when `ty` has no double-width type.
fn wide_destination(context: &mut Context, opcode: &str, ty: &Spanned<ScalarType>) -> Option<ScalarType> {
    let wide = ty.node.double_width_integer();
    if wide.is_none() {
        invalid_type(context, opcode, ty, "a 16- or 32-bit type for `.wide`");
    }
    wide
}

fn is_integer(ty: ScalarType) -> bool {
    matches!(ty.kind(), ScalarKind::Signed | ScalarKind::Unsigned)
}

pub fn binary(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    if matches!(opcode, "add" | "sub") && modifiers.flag("cc") {
        return super::extended::add_subtract(context, modifiers, instruction, true);
    }
    // `div.approx.f32` and `div.full.f32` promise results within 2 ulp; the correctly rounded
    // quotient is within that bound on every target.
    let approximate_division = opcode == "div" && (modifiers.flag("approx") || modifiers.flag("full"));
    let relu = modifiers.take_flag("relu");
    let propagate_nan = modifiers.take_flag("NaN");
    let xorsign = modifiers.take_flag("xorsign");
    let absolute = modifiers.take_flag("abs");
    let mode = modifiers.take_sketched(MULTIPLY_MODES, multiply_mode);
    let rounding = modifiers.take_sketched(ROUNDINGS, float_rounding);
    let flush = modifiers.take_flag("ftz");
    let saturation = modifiers.take_flag("sat");
    // The first modifier that packed integers and integer `.relu` do not take.
    let lane_refused = [&flush, &saturation, &propagate_nan, &xorsign, &absolute]
        .iter()
        .filter_map(|modifier| modifier.as_ref().map(|modifier| modifier.span))
        .chain(mode.as_ref().map(|mode| mode.span))
        .chain(rounding.as_ref().map(|rounding| rounding.span))
        .min_by_key(|span| span.start);
    if let Some(packed) = take_packed_integer_shape(modifiers) {
        return integer_lanes(context, instruction, opcode, packed, relu, lane_refused);
    }
    let ty = modifiers.required_type(context)?;
    // `min` and `max` of `.f32` also take three sources (ISA 8.8, sm_100 and later; Triton
    // writes them for Blackwell): `d = max(max(a, b), c)`.
    let three_sources =
        matches!(opcode, "min" | "max") && ty.node == ScalarType::F32 && instruction.operands.len() == 4;
    context.expect_operand_count(instruction, if three_sources { 4 } else { 3 })?;
    if let Some(relu) = relu {
        // ptxas 12.9 takes `.relu` on `min`/`max` of `.s32` (and `.s16x2`, and the half types
        // decoded in half.rs) only: 'Illegal modifier '.relu' for instruction 'max' with type
        // '.u32'', and 'Unexpected instruction types' for `.f32`/`.f64`.
        if !(matches!(opcode, "min" | "max") && ty.node == ScalarType::S32) {
            refuse_modifier(context, relu.span, "relu", &format!("`{opcode}{}`", ty.node), "`min` and `max` on `.s32`");
            return None;
        }
        if let Some(flush) = flush {
            refuse_modifier(context, flush.span, "ftz", &format!("`{opcode}{}`", ty.node), "`.f32`");
            return None;
        }
        let shape = Spanned::new(IntegerLaneShape::S32, ty.span);
        return integer_lanes(context, instruction, opcode, shape, Some(relu), lane_refused);
    }
    // `.ftz` flushes single-precision subnormals: ptxas refuses it on integer and `.f64`
    // arithmetic ('Illegal modifier '.ftz' for instruction 'add''); the half types are in half.rs.
    if let Some(flush) = &flush {
        if ty.node != ScalarType::F32 {
            refuse_modifier(context, flush.span, "ftz", &format!("`{opcode}{}`", ty.node), "`.f32`");
            return None;
        }
    }
    // Floating-point `.sat` clamps `add`, `sub` and `mul` of `.f32` to [0, 1]; ptxas refuses it
    // on `.f64` and on `min`, `max` and `div` ('Illegal modifier '.sat' for instruction 'div'').
    if let Some(saturation) = &saturation {
        if !(is_integer(ty.node) || ty.node == ScalarType::F32 && matches!(opcode, "add" | "sub" | "mul")) {
            refuse_modifier(
                context,
                saturation.span,
                "sat",
                &format!("`{opcode}{}`", ty.node),
                "`add`, `sub` and `mul` on `.f32`",
            );
            return None;
        }
    }
    let flush_subnormals = flush.is_some();
    let saturate = saturation.is_some();
    let min_max_modifiers = [&propagate_nan, &xorsign, &absolute];
    if let Some(modifier) = min_max_modifiers.iter().find_map(|modifier| modifier.as_ref()) {
        if !(matches!(opcode, "min" | "max") && ty.node == ScalarType::F32) {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "`.NaN` and `.xorsign.abs` are for `min` and `max` on `.f32`")
                    .with_primary(modifier.span, "unexpected modifier"),
            );
            return None;
        }
        if three_sources && absolute.is_some() {
            // The ISA's three-source form takes `.abs` without `.xorsign`; its sign rule for three
            // sources is not in the specification ptxr follows, so it is refused rather than guessed.
            context.report(
                Diagnostic::error(
                    Code::Unsupported,
                    format!("unsupported: `{opcode}.abs.f32` with three sources on every target"),
                )
                .with_primary(modifier.span, "`.abs` is supported with two sources (`.xorsign.abs`)"),
            );
            return None;
        }
        if xorsign.is_some() != absolute.is_some() {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "`.xorsign` and `.abs` come together")
                    .with_primary(modifier.span, "write `.xorsign.abs`"),
            );
            return None;
        }
    }
    let min_max = MinimumMaximum { propagate_nan: propagate_nan.is_some(), xorsign_absolute: xorsign.is_some() };
    if is_integer(ty.node) {
        let operation = match (opcode, mode.as_ref().map(|mode| mode.node)) {
            (_, Some(_)) if opcode != "mul" => {
                let span = mode.as_ref().map_or(instruction.opcode.span, |mode| mode.span);
                context.report(
                    Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` has no `.lo`/`.hi`/`.wide` form"))
                        .with_primary(span, "unexpected modifier"),
                );
                return None;
            }
            ("add", None) => IntegerBinaryOperation::Add,
            ("sub", None) => IntegerBinaryOperation::Subtract,
            ("mul", Some(mode)) => IntegerBinaryOperation::Multiply(mode),
            ("mul", None) => {
                context.report(
                    Diagnostic::error(Code::InvalidModifier, "integer `mul` needs `.lo`, `.hi` or `.wide`")
                        .with_primary(modifiers.end_span(), "expected `.lo`, `.hi` or `.wide`"),
                );
                return None;
            }
            ("min", None) => IntegerBinaryOperation::Minimum,
            ("max", None) => IntegerBinaryOperation::Maximum,
            ("div", None) => IntegerBinaryOperation::Divide,
            ("rem", None) => IntegerBinaryOperation::Remainder,
            _ => return None,
        };
        if ty.node.bits() < 16 {
            invalid_type(context, opcode, &ty, "a 16-, 32- or 64-bit integer type");
            return None;
        }
        if let Some(rounding) = rounding {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "integer arithmetic has no rounding modifier")
                    .with_primary(rounding.span, "only for floating-point types"),
            );
            return None;
        }
        if saturate && !(ty.node == ScalarType::S32 && matches!(opcode, "add" | "sub")) {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "`.sat` is only defined for `add.s32` and `sub.s32`")
                    .with_primary(ty.span, "saturation needs `.s32`"),
            );
            return None;
        }
        let destination_type = if mode.map(|mode| mode.node) == Some(MultiplyMode::Wide) {
            wide_destination(context, opcode, &ty)?
        } else {
            ty.node
        };
        let destination = context.destination(&instruction.operands[0], destination_type, SizeRule::Exact)?;
        let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
        let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
        return Some(Instruction::IntegerBinary { operation, ty: ty.node, saturate, destination, a, b });
    }
    if !matches!(ty.node, ScalarType::F32 | ScalarType::F64 | ScalarType::F16 | ScalarType::Bf16) {
        if matches!(ty.node, ScalarType::F16x2 | ScalarType::Bf16x2) {
            return accept_unlowered(context, modifiers, instruction);
        }
        invalid_type(context, opcode, &ty, "an integer or floating-point type");
        return None;
    }
    if let Some(mode) = mode {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "floating-point `mul` has no `.lo`/`.hi`/`.wide`")
                .with_primary(mode.span, "only for integer types"),
        );
        return None;
    }
    let operation = match opcode {
        "add" => FloatBinaryOperation::Add,
        "sub" => FloatBinaryOperation::Subtract,
        "mul" => FloatBinaryOperation::Multiply,
        "div" => FloatBinaryOperation::Divide,
        "min" => FloatBinaryOperation::Minimum(min_max),
        "max" => FloatBinaryOperation::Maximum(min_max),
        _ => {
            invalid_type(context, opcode, &ty, "an integer type");
            return None;
        }
    };
    if approximate_division {
        if ty.node != ScalarType::F32 || rounding.is_some() {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    "`div.approx` and `div.full` are `.f32` only, without a rounding",
                )
                .with_primary(ty.span, "expected `.f32`"),
            );
            return None;
        }
    } else if operation == FloatBinaryOperation::Divide && rounding.is_none() {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`div{}` needs a rounding modifier", ty.node))
                .with_primary(modifiers.end_span(), "expected `.rn`, `.rz`, `.rm`, `.rp`, `.approx` or `.full`"),
        );
        return None;
    }
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    let c = match three_sources {
        true => Some(context.source(&instruction.operands[3], ty.node, SizeRule::Exact)?),
        false => None,
    };
    Some(Instruction::FloatBinary {
        operation,
        ty: ty.node,
        rounding: rounding.map(|rounding| rounding.node),
        flush_subnormals,
        saturate,
        destination,
        a,
        b,
        c,
    })
}

/// Takes the packed integer type (`.u16x2`, `.s16x2`; ISA 8.0) if the instruction has one: it is
/// no [`ScalarType`], as no register or memory operand has it.
fn take_packed_integer_shape(modifiers: &mut Modifiers) -> Option<Spanned<IntegerLaneShape>> {
    ["u16x2", "s16x2"].into_iter().find_map(|name| {
        let flag = modifiers.take_flag(name)?;
        Some(Spanned::new(IntegerLaneShape::from_ptx(name)?, flag.span))
    })
}

/// `add`, `min`, `max` on `.u16x2`/`.s16x2`, and `min.relu`/`max.relu` on `.s32` and `.s16x2`
/// (NVIDIA's ISA 8.0 notes of sections 9.7.1.1 and 9.7.1.10): no other modifier, `.relu` only on
/// the signed `min` and `max`. ptxas 12.9 takes no `sub` on the packed types (nvcc adds the
/// negated lanes instead) and packed sources only in 32-bit integer registers: 'Arguments
/// mismatch' for an immediate or a `.f32` register.
fn integer_lanes(
    context: &mut Context,
    instruction: &ast::Instruction,
    opcode: &str,
    shape: Spanned<IntegerLaneShape>,
    relu: Option<Spanned<()>>,
    refused: Option<Span>,
) -> Option<Instruction> {
    let operation = match opcode {
        "add" if shape.node != IntegerLaneShape::S32 => IntegerBinaryOperation::Add,
        "min" => IntegerBinaryOperation::Minimum,
        "max" => IntegerBinaryOperation::Maximum,
        _ => {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` does not take type `{}`", shape.node))
                    .with_primary(shape.span, "packed 16-bit integers are for `add`, `min` and `max`"),
            );
            return None;
        }
    };
    if let Some(span) = refused {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{opcode}{}` takes no such modifier", shape.node))
                .with_primary(span, "unexpected modifier"),
        );
        return None;
    }
    if let Some(relu) = &relu {
        if !(matches!(operation, IntegerBinaryOperation::Minimum | IntegerBinaryOperation::Maximum)
            && shape.node.is_signed())
        {
            let allowed = "`min` and `max` on `.s32` and `.s16x2`";
            refuse_modifier(context, relu.span, "relu", &format!("`{opcode}{}`", shape.node), allowed);
            return None;
        }
    }
    context.expect_operand_count(instruction, 3)?;
    if shape.node != IntegerLaneShape::S32 {
        if let Some(source) =
            instruction.operands[1..].iter().find(|operand| !matches!(operand.kind, OperandKind::Name { .. }))
        {
            context.report(
                Diagnostic::error(Code::OperandKind, format!("`{opcode}{}` takes registers only", shape.node))
                    .with_primary(source.span, "expected a 32-bit integer register"),
            );
            return None;
        }
    }
    let register_type = if shape.node == IntegerLaneShape::S32 { ScalarType::S32 } else { ScalarType::U32 };
    let destination = context.destination(&instruction.operands[0], register_type, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], register_type, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], register_type, SizeRule::Exact)?;
    Some(Instruction::IntegerLanes { operation, lanes: shape.node, relu: relu.is_some(), destination, a, b })
}

pub fn multiply_add(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    if opcode == "mad" && modifiers.flag("cc") {
        return super::extended::multiply_add(context, modifiers, instruction, true);
    }
    // `fma.relu` and `fma.oob` exist for the half types only, decoded in half.rs: ptxas 12.9
    // refuses them on `.f32` and on every `mad` ('Illegal modifier '.relu' for instruction 'mad'').
    let relu_or_oob = modifiers
        .take_flag("relu")
        .map(|modifier| (modifier, "relu"))
        .or_else(|| modifiers.take_flag("oob").map(|modifier| (modifier, "oob")));
    if let Some((modifier, name)) = relu_or_oob {
        refuse_modifier(
            context,
            modifier.span,
            name,
            &format!("`{opcode}` of this type"),
            "`fma` on `.f16`, `.bf16`, `.f16x2` and `.bf16x2`",
        );
        return None;
    }
    let mode = modifiers.take_sketched(MULTIPLY_MODES, multiply_mode);
    let rounding = modifiers.take_sketched(ROUNDINGS, float_rounding);
    let flush_subnormals = modifiers.flag("ftz");
    let saturate = modifiers.flag("sat");
    let ty = modifiers.required_type(context)?;
    context.expect_operand_count(instruction, 4)?;
    if is_integer(ty.node) && opcode == "mad" {
        let Some(mode) = mode else {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "integer `mad` needs `.lo`, `.hi` or `.wide`")
                    .with_primary(modifiers.end_span(), "expected `.lo`, `.hi` or `.wide`"),
            );
            return None;
        };
        if saturate && !(ty.node == ScalarType::S32 && mode.node == MultiplyMode::High) {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "`.sat` is only defined for `mad.hi.sat.s32`")
                    .with_primary(mode.span, "saturation needs `.hi` and `.s32`"),
            );
            return None;
        }
        let wide_type = match mode.node {
            MultiplyMode::Wide => wide_destination(context, opcode, &ty)?,
            _ => ty.node,
        };
        let destination = context.destination(&instruction.operands[0], wide_type, SizeRule::Exact)?;
        let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
        let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
        let c = context.source(&instruction.operands[3], wide_type, SizeRule::Exact)?;
        return Some(Instruction::IntegerMultiplyAdd { mode: mode.node, ty: ty.node, saturate, destination, a, b, c });
    }
    // `mad` has no half-precision form (section 9.7.4 defines only `fma` there); ptxas 12.9:
    // 'Unexpected instruction types specified for 'mad''.
    let half = matches!(ty.node, ScalarType::F16 | ScalarType::Bf16 | ScalarType::F16x2 | ScalarType::Bf16x2);
    if opcode == "mad" && half {
        invalid_type(context, opcode, &ty, "`.f32` or `.f64` (half types have `fma`)");
        return None;
    }
    if !matches!(ty.node, ScalarType::F32 | ScalarType::F64 | ScalarType::F16 | ScalarType::Bf16) {
        if matches!(ty.node, ScalarType::F16x2 | ScalarType::Bf16x2) {
            return accept_unlowered(context, modifiers, instruction);
        }
        invalid_type(context, opcode, &ty, "a floating-point type");
        return None;
    }
    // Section 9.7.3.7: `mad.f32` without rounding is the sm_1x form, `mad.rnd.f32` the sm_20
    // one and `mad.f64` always rounds. ptxas reads the old form for sm_20 and later up to ISA
    // 3.1 (with a warning) and rejects it from ISA 3.2 ("Rounding modifier required").
    let old_unrounded_mad = opcode == "mad"
        && ty.node == ScalarType::F32
        && (context.sm.is_none_or(|sm| sm < 20) || context.version < IsaVersion { major: 3, minor: 2 });
    let rounding = match rounding {
        Some(rounding) => rounding.node,
        // A multiply then an add, which ptxas fuses for sm_20 and later: `fma.rn`.
        None if old_unrounded_mad => RoundingMode::NearestEven,
        None => {
            let note = if opcode == "mad" && ty.node == ScalarType::F32 {
                "section 9.7.3.7: `mad.f32` without rounding is for sm_1x targets (ptxas accepts it up to PTX ISA 3.1)"
            } else {
                "section 9.7.3.6, 9.7.3.7: there is no default rounding"
            };
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`{opcode}{}` needs a rounding modifier", ty.node))
                    .with_primary(modifiers.end_span(), "expected `.rn`, `.rz`, `.rm` or `.rp`")
                    .with_note(note),
            );
            return None;
        }
    };
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    let c = context.source(&instruction.operands[3], ty.node, SizeRule::Exact)?;
    Some(Instruction::FusedMultiplyAdd { ty: ty.node, rounding, flush_subnormals, saturate, destination, a, b, c })
}

pub fn logic(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let operation = match modifiers.opcode() {
        "and" => LogicOperation::And,
        "or" => LogicOperation::Or,
        _ => LogicOperation::Xor,
    };
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node.kind(), ScalarKind::Bit | ScalarKind::Pred) || ty.node == ScalarType::B8 {
        invalid_type(context, modifiers.opcode(), &ty, "`.pred`, `.b16`, `.b32` or `.b64`");
        return None;
    }
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    Some(Instruction::Logic { operation, ty: ty.node, destination, a, b })
}

/// `lop3.b32 d, a, b, c, immLut` (ISA 7.8 section 9.7.7.6) and ISA 8.2's
/// `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` with `.BoolOp` `.and` or `.or`. The table must be an
/// integer constant in 0..=255, as ptxas requires.
pub fn logic_table(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let predicate_operation =
        modifiers.take(|name| logic_operation(name).filter(|operation| *operation != LogicOperation::Xor));
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::B32 {
        invalid_type(context, "lop3", &ty, "`.b32`");
        return None;
    }
    let operands = &instruction.operands;
    context.expect_operand_count(instruction, if predicate_operation.is_some() { 6 } else { 5 })?;
    let table = match operands[4].kind {
        OperandKind::Integer(value) if (0..=255).contains(&value.get()) => value.get() as u8,
        _ => {
            context.report(
                Diagnostic::error(Code::OperandKind, "the lookup table of `lop3` is an integer constant from 0 to 255")
                    .with_primary(operands[4].span, "not a constant from 0 to 255"),
            );
            return None;
        }
    };
    let (destination, predicate) = match (&operands[0].kind, predicate_operation) {
        (OperandKind::PredicatePair(value, predicate), Some(operation)) => {
            let destination = context.destination(value, ScalarType::B32, SizeRule::Exact)?;
            let predicate_destination = context.destination(predicate, ScalarType::Pred, SizeRule::Exact)?;
            let q = context.source(&operands[5], ScalarType::Pred, SizeRule::Exact)?;
            (
                destination,
                Some(LogicTablePredicate { operation: operation.node, destination: predicate_destination, q }),
            )
        }
        (_, Some(operation)) => {
            context.report(
                Diagnostic::error(
                    Code::OperandKind,
                    format!("`lop3.{}` writes a value and a predicate: `d|p`", logic_spelling(operation.node)),
                )
                .with_primary(operands[0].span, "expected `d|p`"),
            );
            return None;
        }
        (OperandKind::PredicatePair(..), None) => {
            context.report(
                Diagnostic::error(Code::OperandKind, "`lop3` without `.and` or `.or` writes no predicate")
                    .with_primary(operands[0].span, "expected one register"),
            );
            return None;
        }
        (_, None) => (context.destination(&operands[0], ScalarType::B32, SizeRule::Exact)?, None),
    };
    let a = context.source(&operands[1], ScalarType::B32, SizeRule::Exact)?;
    let b = context.source(&operands[2], ScalarType::B32, SizeRule::Exact)?;
    let c = context.source(&operands[3], ScalarType::B32, SizeRule::Exact)?;
    Some(Instruction::LogicTable { table, destination, a, b, c, predicate: predicate.map(Box::new) })
}

pub fn unary(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let flush_subnormals = modifiers.flag("ftz");
    let ty = modifiers.required_type(context)?;
    let operation = match opcode {
        "not" => UnaryOperation::Not,
        "cnot" => UnaryOperation::LogicalNot,
        "neg" => UnaryOperation::Negate,
        "abs" => UnaryOperation::Absolute,
        "popc" => UnaryOperation::PopulationCount,
        "clz" => UnaryOperation::CountLeadingZeros,
        _ => UnaryOperation::BitReverse,
    };
    let valid = match operation {
        UnaryOperation::Not => {
            matches!(ty.node.kind(), ScalarKind::Bit | ScalarKind::Pred) && ty.node.bits() >= 16
                || ty.node == ScalarType::Pred
        }
        UnaryOperation::LogicalNot => ty.node.kind() == ScalarKind::Bit && ty.node.bits() >= 16,
        UnaryOperation::Negate | UnaryOperation::Absolute => {
            matches!(ty.node, ScalarType::S16 | ScalarType::S32 | ScalarType::S64 | ScalarType::F32 | ScalarType::F64)
        }
        UnaryOperation::PopulationCount | UnaryOperation::CountLeadingZeros | UnaryOperation::BitReverse => {
            matches!(ty.node, ScalarType::B32 | ScalarType::B64)
        }
    };
    if !valid {
        if matches!(ty.node, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2) {
            return accept_unlowered(context, modifiers, instruction);
        }
        invalid_type(context, opcode, &ty, "a type this instruction defines");
        return None;
    }
    context.expect_operand_count(instruction, 2)?;
    // popc and clz write a .u32 count whatever the source width.
    let destination_type = match operation {
        UnaryOperation::PopulationCount | UnaryOperation::CountLeadingZeros => ScalarType::U32,
        _ => ty.node,
    };
    let destination = context.destination(&instruction.operands[0], destination_type, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    Some(Instruction::Unary { operation, ty: ty.node, flush_subnormals, destination, a })
}

pub fn shift(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let ty = modifiers.required_type(context)?;
    let operation = match (opcode, ty.node.kind()) {
        ("shl", ScalarKind::Bit) => ShiftOperation::Left,
        ("shr", ScalarKind::Bit | ScalarKind::Unsigned) => ShiftOperation::RightLogical,
        ("shr", ScalarKind::Signed) => ShiftOperation::RightArithmetic,
        _ => {
            let expected = if opcode == "shl" { "`.b16`, `.b32` or `.b64`" } else { "a bit, unsigned or signed type" };
            invalid_type(context, opcode, &ty, expected);
            return None;
        }
    };
    if ty.node.bits() < 16 {
        invalid_type(context, opcode, &ty, "a 16-, 32- or 64-bit type");
        return None;
    }
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    // The shift amount is always an unsigned 32-bit value.
    let b = context.source(&instruction.operands[2], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::Shift { operation, ty: ty.node, destination, a, b })
}
