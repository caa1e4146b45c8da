//! `cvt` to `.tf32` (ISA 7.8 section 9.7.8.18): `cvt.rna.tf32.f32 d, a` (ISA 7.0, sm_80) and
//! `cvt.rn{.relu}.tf32.f32`, `cvt.rz{.relu}.tf32.f32` (ISA 7.8, sm_90). The destination is a
//! `.b32` register, the source an `.f32`.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Instruction, Tf32Rounding};
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

fn rounding(name: &str) -> Option<Tf32Rounding> {
    Some(match name {
        "rna" => Tf32Rounding::NearestAway,
        "rn" => Tf32Rounding::NearestEven,
        "rz" => Tf32Rounding::Zero,
        _ => return None,
    })
}

pub fn cvt(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let tf32 = modifiers.take_flag("tf32")?;
    let Some(rounding) = modifiers.take(rounding) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`cvt` to `.tf32` needs a rounding")
                .with_primary(tf32.span, "expected `.rna`, `.rn` or `.rz` before `.tf32`"),
        );
        return None;
    };
    let relu = modifiers.take_flag("relu");
    if let (Some(relu), Tf32Rounding::NearestAway) = (&relu, rounding.node) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`.relu` cannot be combined with `.rna`")
                .with_primary(relu.span, "`.relu` goes with `.rn` or `.rz`"),
        );
        return None;
    }
    let source_type = modifiers.required_type(context)?;
    if source_type.node != ScalarType::F32 {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`cvt` to `.tf32` does not convert `{}`", source_type.node),
            )
            .with_primary(source_type.span, "expected `.f32`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ScalarType::F32, SizeRule::Exact)?;
    Some(Instruction::ConvertToTf32 { rounding: rounding.node, relu: relu.is_some(), destination, a })
}
