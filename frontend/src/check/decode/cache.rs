//! `createpolicy`, `prefetch`, `prefetchu` and `cp.async` (ISA 7.8 sections 9.7.8.9-9.7.8.11 and
//! 9.7.8.22-9.7.8.25): cache hints and asynchronous copies.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Instruction, Value};
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarKind, ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

/// `createpolicy.fractional.L2::primary{.L2::secondary}.b64 d{, fraction}`,
/// `createpolicy.range.L2::primary{.L2::secondary}.b64 d, [a], primary_size, total_size` and
/// `createpolicy.cvt.L2.b64 d, access_property`.
pub fn create_policy(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let Some(form) = modifiers.take(|name| matches!(name, "fractional" | "range" | "cvt").then(|| name.to_string()))
    else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`createpolicy` needs `.fractional`, `.range` or `.cvt`")
                .with_primary(modifiers.end_span(), "missing policy form"),
        );
        return None;
    };
    modifiers.drop_all(|name| {
        matches!(name, "L2" | "L2::evict_last" | "L2::evict_normal" | "L2::evict_first" | "L2::evict_unchanged")
    });
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::B64 {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`createpolicy` takes `.b64`, not `{}`", ty.node))
                .with_primary(ty.span, "a cache policy is 64 bits"),
        );
        return None;
    }
    let operands = &instruction.operands;
    match form.node.as_str() {
        "fractional" if operands.len() == 1 => {}
        "fractional" => {
            context.expect_operand_count(instruction, 2)?;
            let fraction = context.source(&operands[1], ScalarType::F32, SizeRule::Exact)?;
            let in_range = match fraction.value {
                Value::Float { bits, double } => {
                    let value = if double { f64::from_bits(bits) } else { f64::from(f32::from_bits(bits as u32)) };
                    value > 0.0 && value <= 1.0
                }
                _ => false,
            };
            if !in_range {
                context.report(
                    Diagnostic::error(Code::OperandKind, "the fraction of `createpolicy` must be a constant in (0, 1]")
                        .with_primary(operands[1].span, "not a fraction"),
                );
                return None;
            }
        }
        "range" => {
            context.expect_operand_count(instruction, 4)?;
            context.address(&operands[1])?;
            context.source(&operands[2], ScalarType::U32, SizeRule::Exact)?;
            context.source(&operands[3], ScalarType::U32, SizeRule::Exact)?;
        }
        _ => {
            context.expect_operand_count(instruction, 2)?;
            context.source(&operands[1], ScalarType::B64, SizeRule::Exact)?;
        }
    }
    let destination = context.destination(&operands[0], ScalarType::B64, SizeRule::Exact)?;
    Some(Instruction::CreatePolicy { destination })
}

/// `prefetch{.global, .local}.L1/.L2/.L2::evict_last/.L2::evict_normal [a]` and `prefetchu.L1 [a]`.
pub fn prefetch(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    if instruction.modifiers.iter().any(|modifier| modifier.node == "tensormap") {
        return accept_unlowered(context, modifiers, instruction);
    }
    let state_space = match modifiers.state_space() {
        None => StateSpace::Generic,
        Some(space) if matches!(space.node, StateSpace::Global | StateSpace::Local) => space.node,
        Some(space) => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` cannot prefetch {}", modifiers.opcode(), space.node),
                )
                .with_primary(space.span, "expected `.global` or `.local`"),
            );
            return None;
        }
    };
    let level =
        modifiers.take(|name| matches!(name, "L1" | "L2" | "L2::evict_last" | "L2::evict_normal").then_some(()));
    if level.is_none() {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{}` needs a cache level", modifiers.opcode()))
                .with_primary(modifiers.end_span(), "expected `.L1` or `.L2`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 1)?;
    let address = context.address(&instruction.operands[0])?;
    context.check_address_space(&address, state_space, modifiers.opcode())?;
    Some(Instruction::Prefetch { state_space, address })
}

/// `cp.async.ca/.cg.shared{::cta}.global{.L2::cache_hint}{.L2::64B/128B/256B} [d], [a], size{, src_size |
/// , ignore_src}{, policy}`, the group instructions and `cp.async.mbarrier.arrive`. Bulk and tensor
/// copies are `bulk_copy.rs`'s.
pub fn copy(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let bulk = instruction.modifiers.iter().any(|modifier| {
        matches!(modifier.node.as_str(), "bulk" | "tensor" | "mbarrier") || modifier.node.starts_with("mbarrier")
    });
    let arrive = instruction.modifiers.iter().any(|modifier| modifier.node == "arrive");
    if arrive && !instruction.modifiers.iter().any(|modifier| matches!(modifier.node.as_str(), "bulk" | "tensor")) {
        return super::mbarrier::copy_async_arrive(context, modifiers, instruction);
    }
    if instruction.modifiers.iter().any(|modifier| modifier.node == "bulk") {
        return super::bulk_copy::decode(context, modifiers, instruction);
    }
    if !modifiers.flag("async") || bulk {
        return accept_unlowered(context, modifiers, instruction);
    }
    if modifiers.flag("commit_group") || modifiers.flag("wait_all") {
        context.expect_operand_count(instruction, 0)?;
        return Some(Instruction::CopyAsyncGroup);
    }
    if modifiers.flag("wait_group") {
        context.expect_operand_count(instruction, 1)?;
        if !matches!(instruction.operands[0].kind, OperandKind::Integer(value) if value.get() >= 0) {
            context.report(
                Diagnostic::error(Code::OperandKind, "`cp.async.wait_group` takes an integer constant")
                    .with_primary(instruction.operands[0].span, "not a constant"),
            );
            return None;
        }
        return Some(Instruction::CopyAsyncGroup);
    }
    let cache = modifiers.take(|name| matches!(name, "ca" | "cg").then(|| name.to_string()));
    let destination_space = modifiers.state_space();
    let source_space = modifiers.state_space();
    let cache_hint = modifiers.flag("L2::cache_hint");
    modifiers.drop_all(|name| matches!(name, "L2::64B" | "L2::128B" | "L2::256B"));
    let spaces_ok = matches!(
        (destination_space.as_ref().map(|space| space.node), source_space.as_ref().map(|space| space.node)),
        (Some(StateSpace::Shared), Some(StateSpace::Global))
    );
    let Some(cache) = cache.filter(|_| spaces_ok) else {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                "`cp.async` is `cp.async.ca.shared.global` or `cp.async.cg.shared.global`",
            )
            .with_primary(instruction.opcode.span.to(modifiers.end_span()), "unexpected form"),
        );
        return None;
    };
    let operands = &instruction.operands;
    let fixed = 3;
    let optional = operands.len().saturating_sub(fixed + usize::from(cache_hint));
    if operands.len() < fixed + usize::from(cache_hint) || optional > 1 {
        let count = fixed + usize::from(cache_hint);
        context.expect_operand_count(instruction, if operands.len() < count { count } else { count + 1 })?;
    }
    let destination = context.address(&operands[0])?;
    let source = context.address(&operands[1])?;
    let copy_size = match operands[2].kind {
        OperandKind::Integer(size) if matches!(size.get(), 4 | 8 | 16) => size.get() as u32,
        _ => {
            context.report(
                Diagnostic::error(Code::OperandKind, "the copy size of `cp.async` is 4, 8 or 16")
                    .with_primary(operands[2].span, "not 4, 8 or 16"),
            );
            return None;
        }
    };
    if cache.node == "cg" && copy_size != 16 {
        context.report(
            Diagnostic::error(Code::OperandKind, "`cp.async.cg` copies 16 bytes")
                .with_primary(operands[2].span, "not 16"),
        );
        return None;
    }
    let (mut source_size, mut ignore_source) = (None, None);
    if optional == 1 {
        let operand = &operands[3];
        if is_predicate(context, operand) {
            ignore_source = Some(context.source(operand, ScalarType::Pred, SizeRule::Exact)?);
        } else {
            source_size = Some(context.source(operand, ScalarType::U32, SizeRule::Exact)?);
        }
    }
    if cache_hint {
        context.source(&operands[operands.len() - 1], ScalarType::B64, SizeRule::Exact)?;
    }
    Some(Instruction::CopyAsync {
        destination,
        source,
        copy_size,
        source_size: source_size.map(Box::new),
        ignore_source: ignore_source.map(Box::new),
    })
}

fn is_predicate(context: &mut Context, operand: &ast::Operand) -> bool {
    let OperandKind::Name { name, member: None } = &operand.kind else { return false };
    match context.scopes.lookup(name, &mut context.variables) {
        Some(id) => context.variable(id).ty.kind() == ScalarKind::Pred,
        None => false,
    }
}

/// `isspacep.space p, a` (ISA 7.8 section 9.7.8.17) with `.const`, `.global`, `.local`,
/// `.shared{::cta}`, `.shared::cluster` or `.param{::entry}`.
pub fn is_space(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    // nvcc writes `isspacep.shared::cluster` for libcu++'s atomics at sm_90 and later under -G.
    let shared_cluster = modifiers.flag("shared::cluster");
    modifiers.drop_all(|name| name == "param::entry");
    let has_entry_parameter = instruction.modifiers.iter().any(|modifier| modifier.node == "param::entry");
    let state_space = match modifiers.state_space() {
        None if shared_cluster => StateSpace::Shared,
        Some(space)
            if matches!(
                space.node,
                StateSpace::Const | StateSpace::Global | StateSpace::Local | StateSpace::Shared | StateSpace::Param
            ) =>
        {
            space.node
        }
        None if has_entry_parameter => StateSpace::Param,
        other => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    "`isspacep` needs `.const`, `.global`, `.local`, `.shared` or `.param`",
                )
                .with_primary(other.map_or(modifiers.end_span(), |space| space.span), "expected a state space"),
            );
            return None;
        }
    };
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::Pred, SizeRule::Exact)?;
    let address_type = address_operand_type(context, &instruction.operands[1]);
    let address = context.source(&instruction.operands[1], address_type, SizeRule::Exact)?;
    Some(Instruction::IsSpace { state_space, shared_cluster, destination, address, address_type })
}

/// The module's address type, or `.u32` for a 32-bit register: ptxas 12.9 takes one in a 64-bit
/// module too, and assembles it to the 32-bit form of its address-space query (`QSPC` without
/// `.E`): the register is the address with the upper 32 bits zero, however it is typed.
fn address_operand_type(context: &mut Context, operand: &ast::Operand) -> ScalarType {
    if is_32_bit_register(context, operand) {
        ScalarType::U32
    } else {
        context.address_type()
    }
}

fn is_32_bit_register(context: &mut Context, operand: &ast::Operand) -> bool {
    let OperandKind::Name { name, member: None } = &operand.kind else { return false };
    match context.scopes.lookup(name, &mut context.variables) {
        Some(id) => {
            let ty = context.variable(id).ty;
            ty.bits() == 32 && matches!(ty.kind(), ScalarKind::Signed | ScalarKind::Unsigned | ScalarKind::Bit)
        }
        None => false,
    }
}
