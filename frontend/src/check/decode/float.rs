//! Floating-point functions of one operand, and `copysign` (ISA 7.8 sections 9.7.3.2 and
//! 9.7.3.13 to 9.7.3.22): `sin`, `cos`, `lg2`, `ex2` and `tanh` exist only as `.approx.f32`
//! (and `tanh`, `ex2` on the half types of sections 9.7.4.9 and 9.7.4.10);
//! `rcp` and `sqrt` take `.approx` (`.f32`, and `rcp.approx.ftz.f64`) or an IEEE rounding
//! (`.rn .rz .rm .rp`, `.f32` and `.f64`); `rsqrt` is `.approx` on `.f32` and `.f64`.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{FloatPrecision, FloatUnaryOperation, HalfUnaryOperation, Instruction, RoundingMode};
use crate::span::Spanned;
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

fn operation(opcode: &str) -> Option<FloatUnaryOperation> {
    Some(match opcode {
        "sin" => FloatUnaryOperation::Sine,
        "cos" => FloatUnaryOperation::Cosine,
        "lg2" => FloatUnaryOperation::Log2,
        "ex2" => FloatUnaryOperation::Exp2,
        "tanh" => FloatUnaryOperation::Tanh,
        "rcp" => FloatUnaryOperation::Reciprocal,
        "sqrt" => FloatUnaryOperation::SquareRoot,
        "rsqrt" => FloatUnaryOperation::ReciprocalSquareRoot,
        _ => return None,
    })
}

fn float_rounding(name: &str) -> Option<RoundingMode> {
    RoundingMode::from_ptx(name).filter(|rounding| !rounding.is_integral())
}

/// `sin`, `cos`, `lg2`, `ex2`, `tanh`, `rcp`, `sqrt`, `rsqrt`.
pub fn unary(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let operation = operation(opcode)?;
    let approximate = modifiers.flag("approx");
    let rounding = modifiers.take_sketched(super::arithmetic::ROUNDINGS, float_rounding);
    let flush_subnormals = modifiers.flag("ftz");
    let ty = modifiers.required_type(context)?;
    context.expect_operand_count(instruction, 2)?;
    let precision = match (approximate, rounding) {
        (true, None) => FloatPrecision::Approximate,
        (false, Some(rounding))
            if matches!(operation, FloatUnaryOperation::Reciprocal | FloatUnaryOperation::SquareRoot) =>
        {
            FloatPrecision::Rounded(rounding.node)
        }
        (true, Some(rounding)) => {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` takes `.approx` or a rounding, not both"))
                    .with_primary(rounding.span, "remove this or `.approx`"),
            );
            return None;
        }
        (false, _) => {
            let (message, expected) =
                if matches!(operation, FloatUnaryOperation::Reciprocal | FloatUnaryOperation::SquareRoot) {
                    (
                        format!("`{opcode}` needs `.approx` or a rounding modifier"),
                        "expected `.approx`, `.rn`, `.rz`, `.rm` or `.rp`",
                    )
                } else {
                    (format!("`{opcode}` exists only as `{opcode}.approx`"), "expected `.approx`")
                };
            context
                .report(Diagnostic::error(Code::InvalidModifier, message).with_primary(modifiers.end_span(), expected));
            return None;
        }
    };
    if matches!(ty.node, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2) {
        return half_unary(context, instruction, operation, precision, flush_subnormals, ty);
    }
    let type_allowed = match (operation, precision, ty.node) {
        (_, _, ScalarType::F32) => true,
        (
            FloatUnaryOperation::Reciprocal | FloatUnaryOperation::SquareRoot,
            FloatPrecision::Rounded(_),
            ScalarType::F64,
        ) => true,
        // rcp.approx.ftz.f64 and rsqrt.approx{.ftz}.f64.
        (FloatUnaryOperation::Reciprocal, FloatPrecision::Approximate, ScalarType::F64) => flush_subnormals,
        (FloatUnaryOperation::ReciprocalSquareRoot, FloatPrecision::Approximate, ScalarType::F64) => true,
        _ => false,
    };
    if !type_allowed {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`{}` does not take type `{}`", instruction_form(opcode, precision, flush_subnormals), ty.node),
            )
            .with_primary(ty.span, allowed_types(operation, precision)),
        );
        return None;
    }
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    Some(Instruction::FloatUnary { operation, ty: ty.node, precision, flush_subnormals, destination, a })
}

/// `tanh.approx` and `ex2.approx` on the half types (sections 9.7.4.9 and 9.7.4.10): `.ftz` is
/// required with `.bf16`/`.bf16x2` for `ex2`, and refused otherwise.
fn half_unary(
    context: &mut Context,
    instruction: &ast::Instruction,
    operation: FloatUnaryOperation,
    precision: FloatPrecision,
    flush_subnormals: bool,
    ty: Spanned<ScalarType>,
) -> Option<Instruction> {
    let brain = matches!(ty.node, ScalarType::Bf16 | ScalarType::Bf16x2);
    let operation = match (operation, precision) {
        (FloatUnaryOperation::Tanh, FloatPrecision::Approximate) if !flush_subnormals => {
            HalfUnaryOperation::ApproximateTanh
        }
        (FloatUnaryOperation::Exp2, FloatPrecision::Approximate) if flush_subnormals == brain => {
            HalfUnaryOperation::ApproximateExp2
        }
        _ => {
            let opcode = instruction.opcode.node.as_str();
            let allowed = match operation {
                FloatUnaryOperation::Tanh => {
                    "`tanh.approx` takes `.f16`, `.f16x2`, `.bf16` and `.bf16x2`, without `.ftz`"
                }
                FloatUnaryOperation::Exp2 => {
                    "`ex2.approx` takes `.f16` and `.f16x2`; `ex2.approx.ftz` takes `.bf16` and `.bf16x2`"
                }
                _ => "expected `.f32`",
            };
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!(
                        "`{}` does not take type `{}`",
                        instruction_form(opcode, precision, flush_subnormals),
                        ty.node
                    ),
                )
                .with_primary(ty.span, allowed),
            );
            return None;
        }
    };
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    Some(Instruction::HalfUnary { operation, ty: ty.node, flush_subnormals, destination, a })
}

/// The instruction as far as its precision, for messages: `sin.approx`, `rcp.rn`.
fn instruction_form(opcode: &str, precision: FloatPrecision, flush_subnormals: bool) -> String {
    let precision = match precision {
        FloatPrecision::Approximate => ".approx".to_string(),
        FloatPrecision::Rounded(mode) => mode.to_string(),
    };
    let ftz = if flush_subnormals { ".ftz" } else { "" };
    format!("{opcode}{precision}{ftz}")
}

/// What the ISA allows, for the label of a wrong type.
fn allowed_types(operation: FloatUnaryOperation, precision: FloatPrecision) -> &'static str {
    match (operation, precision) {
        (FloatUnaryOperation::Reciprocal | FloatUnaryOperation::SquareRoot, FloatPrecision::Rounded(_)) => {
            "expected `.f32` or `.f64`"
        }
        (FloatUnaryOperation::Reciprocal, FloatPrecision::Approximate) => {
            "expected `.f32` (or `.f64` with `.ftz`: `rcp.approx.ftz.f64`)"
        }
        (FloatUnaryOperation::ReciprocalSquareRoot, _) => "expected `.f32` or `.f64`",
        _ => "expected `.f32`",
    }
}

/// `copysign.type d, a, b`: `b`'s magnitude with `a`'s sign, on `.f32` and `.f64`.
pub fn copysign(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::F32 | ScalarType::F64) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`copysign` does not take type `{}`", ty.node))
                .with_primary(ty.span, "expected `.f32` or `.f64`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty.node, SizeRule::Exact)?;
    Some(Instruction::CopySign { ty: ty.node, destination, a, b })
}
