//! `mapa` and `getctarank` (ISA 7.8 sections 9.7.8.20, 9.7.8.21): addresses of shared memory in
//! the other CTAs of a cluster, and the rank of the CTA an address belongs to.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::Instruction;
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

/// `.shared::cluster` and `.u32`/`.u64`, the modifiers both instructions take.
fn space_and_type(context: &mut Context, modifiers: &mut Modifiers) -> Option<(bool, ScalarType)> {
    let shared_cluster = modifiers.flag("shared::cluster");
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::U32 | ScalarType::U64) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{}` takes `.u32` or `.u64`", modifiers.opcode()))
                .with_primary(ty.span, format!("`{}` is not an address type", ty.node)),
        );
        return None;
    }
    Some((shared_cluster, ty.node))
}

/// `mapa{.shared::cluster}.type d, a, b`.
pub fn map_address(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let (shared_cluster, ty) = space_and_type(context, modifiers)?;
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let address = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    let rank = context.source(&instruction.operands[2], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::MapClusterAddress { shared_cluster, ty, destination, address, rank })
}

/// `getctarank{.shared::cluster}.type d, a`: `d` is 32 bits whatever `.type` (of `a`) is.
pub fn cta_rank(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let (shared_cluster, ty) = space_and_type(context, modifiers)?;
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::U32, SizeRule::Exact)?;
    let address = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    Some(Instruction::ClusterRank { shared_cluster, ty, destination, address })
}
