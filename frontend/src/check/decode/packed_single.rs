//! `add`, `sub`, `mul` and `fma` on `.f32x2` (ISA 8.6, sm_100): pairs of `.f32` in `.b64`
//! registers. Triton 3.9 writes them for sm_100 and sm_120 (its attention kernels scale the
//! accumulator two lanes at a time).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Instruction, PackedSingleOperation, RoundingMode};
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::arithmetic::ROUNDINGS;
use super::{Context, Modifiers};

/// Whether `instruction` is `add`, `sub`, `mul` or `fma` with the `.f32x2` type.
pub fn is_packed_single(instruction: &ast::Instruction) -> bool {
    instruction.modifiers.iter().any(|modifier| modifier.node == "f32x2")
}

pub fn decode(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let operation = match opcode {
        "add" => PackedSingleOperation::Add,
        "sub" => PackedSingleOperation::Subtract,
        "mul" => PackedSingleOperation::Multiply,
        _ => PackedSingleOperation::FusedMultiplyAdd,
    };
    modifiers.take_flag("f32x2");
    let rounding = modifiers
        .take_sketched(ROUNDINGS, |name| RoundingMode::from_ptx(name).filter(|rounding| !rounding.is_integral()));
    let flush_subnormals = modifiers.take_flag("ftz").is_some();
    // `fma` names its rounding (`fma.rnd{.ftz}.f32x2`); `add`, `sub` and `mul` round to nearest
    // without one, as on `.f32`.
    let rounding = match (rounding, operation) {
        (Some(rounding), _) => rounding.node,
        (None, PackedSingleOperation::FusedMultiplyAdd) => {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "`fma.f32x2` needs a rounding modifier")
                    .with_primary(modifiers.end_span(), "expected `.rn`, `.rz`, `.rm` or `.rp`"),
            );
            return None;
        }
        (None, _) => RoundingMode::NearestEven,
    };
    let fused = operation == PackedSingleOperation::FusedMultiplyAdd;
    context.expect_operand_count(instruction, if fused { 4 } else { 3 })?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B64, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ScalarType::B64, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ScalarType::B64, SizeRule::Exact)?;
    let c = match fused {
        true => Some(context.source(&instruction.operands[3], ScalarType::B64, SizeRule::Exact)?),
        false => None,
    };
    Some(Instruction::PackedSingle { operation, rounding, flush_subnormals, destination, a, b, c })
}
