//! `mov`, `ld`, `ldu`, `st`, `cvta` and `cvt` (ISA 7.8 sections 9.7.8 and 9.7.9).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{AddressConversion, Instruction, RoundingMode};
use crate::syntax::ast;
use crate::vocabulary::{ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

/// Cache and eviction hints of `ld`/`st`: they never change a result, so they are dropped.
fn is_cache_hint(modifier: &str) -> bool {
    matches!(modifier, "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "nc" | "weak")
        || modifier.starts_with("L1::")
        || modifier.starts_with("L2::")
}

pub fn mov(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let ty = modifiers.required_type(context)?.node;
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let source = context.source(&instruction.operands[1], ty, SizeRule::AllowWider)?;
    Some(Instruction::Move { ty, destination, source })
}

/// The state space of `ld`/`st`: `.param` in a kernel, `.global`..., or generic when absent.
fn memory_space(context: &mut Context, modifiers: &mut Modifiers) -> Option<StateSpace> {
    let Some(space) = modifiers.state_space() else { return Some(StateSpace::Generic) };
    match space.node {
        StateSpace::Global | StateSpace::Shared | StateSpace::Local | StateSpace::Const | StateSpace::Param => {
            Some(space.node)
        }
        other => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` cannot load or store {other}", modifiers.opcode()),
                )
                .with_primary(space.span, "not a memory state space"),
            );
            None
        }
    }
}

/// Memory-consistency qualifiers: `.volatile`, or `.relaxed`/`.acquire`/`.release` with a scope.
/// On one address they all read or write the value itself; `volatile` is kept for lowering.
fn memory_order(modifiers: &mut Modifiers) -> bool {
    let volatile = modifiers.flag("volatile");
    let ordered = modifiers.flag("relaxed") | modifiers.flag("acquire") | modifiers.flag("release");
    modifiers.drop_all(|modifier| matches!(modifier, "cta" | "gpu" | "sys" | "cluster" | "mmio"));
    volatile || ordered
}

fn reject_vector(context: &mut Context, modifiers: &mut Modifiers) -> Option<()> {
    if let Some(vector) = modifiers.take(|name| matches!(name, "v2" | "v4" | "v8").then_some(())) {
        context.report(
            Diagnostic::error(Code::Unsupported, format!("unsupported: vector `{}`", modifiers.opcode()))
                .with_primary(vector.span, "vector loads and stores are not lowered yet"),
        );
        return None;
    }
    Some(())
}

pub fn load(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let state_space = memory_space(context, modifiers)?;
    let volatile = memory_order(modifiers);
    modifiers.drop_all(is_cache_hint);
    reject_vector(context, modifiers)?;
    let ty = modifiers.required_type(context)?.node;
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::AllowWider)?;
    let address = context.address(&instruction.operands[1])?;
    Some(Instruction::Load { state_space, ty, volatile, destination, address })
}

pub fn store(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let state_space = memory_space(context, modifiers)?;
    let volatile = memory_order(modifiers);
    modifiers.drop_all(is_cache_hint);
    reject_vector(context, modifiers)?;
    let ty = modifiers.required_type(context)?.node;
    context.expect_operand_count(instruction, 2)?;
    let address = context.address(&instruction.operands[0])?;
    let source = context.source(&instruction.operands[1], ty, SizeRule::AllowWider)?;
    if state_space == StateSpace::Const {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`st` cannot write the `.const` state space")
                .with_primary(instruction.opcode.span, "constant memory is read-only"),
        );
        return None;
    }
    Some(Instruction::Store { state_space, ty, volatile, address, source })
}

pub fn cvta(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let direction = if modifiers.flag("to") { AddressConversion::FromGeneric } else { AddressConversion::ToGeneric };
    let Some(space) = modifiers.state_space() else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`cvta` needs a state space")
                .with_primary(modifiers.end_span(), "expected `.global`, `.shared`, `.local`, `.const` or `.param`"),
        );
        return None;
    };
    if !matches!(
        space.node,
        StateSpace::Global | StateSpace::Shared | StateSpace::Local | StateSpace::Const | StateSpace::Param
    ) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`cvta` does not convert {} addresses", space.node))
                .with_primary(space.span, "not an addressable state space"),
        );
        return None;
    }
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::U32 | ScalarType::U64) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`cvta` takes `.u32` or `.u64`, not `{}`", ty.node))
                .with_primary(ty.span, "invalid size"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let source = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    Some(Instruction::ConvertAddress {
        direction,
        state_space: space.node,
        size_bits: ty.node.bits(),
        destination,
        source,
    })
}

pub fn cvt(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if instruction.modifiers.iter().any(|modifier| modifier.node == "pack") {
        return super::bit_manipulation::convert_pack(context, modifiers, instruction);
    }
    if super::half::is_half_conversion(instruction) {
        return super::half::cvt(context, modifiers, instruction);
    }
    // Packing conversions (`cvt.rn.f16x2.f32 d, a, b`), `.relu`, `.satfinite` and the 8-bit
    // float formats (`.e4m3x2`) are valid PTX that is not decoded yet.
    let packed_or_exotic = instruction.operands.len() != 2
        || instruction.modifiers.iter().any(|modifier| {
            matches!(modifier.node.as_str(), "relu" | "satfinite" | "f16x2" | "bf16x2" | "tf32" | "pack")
                || modifier.node.starts_with('e') && modifier.node.ends_with("x2")
                || modifier.node.starts_with("ue")
        });
    if packed_or_exotic {
        return accept_unlowered(context, modifiers, instruction);
    }
    let rounding = modifiers.take(RoundingMode::from_ptx);
    let flush_subnormals = modifiers.flag("ftz");
    let saturate = modifiers.flag("sat");
    let destination_type = modifiers.required_type(context)?.node;
    let source_type = modifiers.required_type(context)?.node;
    if destination_type == ScalarType::Pred || source_type == ScalarType::Pred {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`cvt` does not convert predicates")
                .with_primary(instruction.opcode.span, "use `selp` or `setp`"),
        );
        return None;
    }
    if let Some(rounding) = &rounding {
        let float_to_float = destination_type.is_float() && source_type.is_float();
        let integral_allowed = float_to_float || (source_type.is_float() && !destination_type.is_float());
        if rounding.node.is_integral() && !integral_allowed {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` rounds to an integral value and needs a float source", rounding.node),
                )
                .with_primary(rounding.span, "invalid rounding modifier here"),
            );
            return None;
        }
    }
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], destination_type, SizeRule::AllowWider)?;
    let source = context.source(&instruction.operands[1], source_type, SizeRule::AllowWider)?;
    Some(Instruction::Convert {
        destination_type,
        source_type,
        rounding: rounding.map(|rounding| rounding.node),
        flush_subnormals,
        saturate,
        destination,
        source,
    })
}
