//! `cp.async.bulk` and `cp.async.bulk.tensor` (PTX ISA 8.0, sm_90): bulk copies between global
//! and shared memory, tensor tiles through a tensor map, and their bulk async-groups.
//!
//! Decoded: the tile mode in 1 to 5 dimensions, the non-tensor copies, `commit_group` and
//! `wait_group{.read}`; `.L2::cache_hint`'s policy operand is read and dropped, as ptxr drops
//! every cache hint. Accepted and reported as unsupported by lowering: `.im2col`,
//! `.multicast::cluster` (needs clusters), `cp.reduce.async.bulk` and `cp.async.bulk.prefetch`.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Address, AtomicOperation, BulkCopyDirection, Instruction};
use crate::span::Spanned;
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

/// `cp.async.bulk...`: `instruction`'s opcode is `cp` and its modifiers include `bulk`.
pub fn decode(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let names: Vec<&str> = instruction.modifiers.iter().map(|modifier| modifier.node.as_str()).collect();
    let reduction = names.first() == Some(&"reduce");
    let unlowered = names.iter().any(|name| {
        matches!(*name, "multicast::cluster")
            || name.starts_with("im2col")
            || (reduction && matches!(*name, "tensor" | "noftz" | "f16" | "bf16"))
    });
    if unlowered {
        return accept_unlowered(context, modifiers, instruction);
    }
    if let ["reduce", "async", "bulk", rest @ ..] = names.as_slice() {
        let result = reduce(context, instruction, rest);
        if result.is_some() {
            modifiers.drop_all(|_| true);
        }
        return result;
    }
    if names.first() != Some(&"async") || names.get(1) != Some(&"bulk") {
        return accept_unlowered(context, modifiers, instruction);
    }
    let operands = &instruction.operands;
    let rest = &names[2..];
    let result = match rest {
        ["commit_group"] => {
            context.expect_operand_count(instruction, 0)?;
            Some(Instruction::BulkCopyCommit)
        }
        ["wait_group"] | ["wait_group", "read"] => {
            context.expect_operand_count(instruction, 1)?;
            let OperandKind::Integer(value) = operands[0].kind else {
                context.report(
                    Diagnostic::error(Code::OperandKind, "`cp.async.bulk.wait_group` takes an integer constant")
                        .with_primary(operands[0].span, "not a constant"),
                );
                return None;
            };
            let Ok(pending) = u32::try_from(value.get()) else {
                context.report(
                    Diagnostic::error(
                        Code::OperandKind,
                        "the group count of `cp.async.bulk.wait_group` is out of range",
                    )
                    .with_primary(operands[0].span, "not a 32-bit count"),
                );
                return None;
            };
            Some(Instruction::BulkCopyWait { pending, read: rest.len() == 2 })
        }
        ["prefetch", "tensor", dimensions, ..] => tensor_prefetch(context, instruction, dimensions, &rest[3..]),
        ["prefetch", ..] => prefetch(context, instruction, &rest[1..]),
        ["tensor", dimensions, ..] => tensor(context, instruction, dimensions, &rest[2..]),
        _ => plain(context, instruction, rest),
    };
    if result.is_some() {
        modifiers.drop_all(|_| true);
    }
    result
}

/// Where a cache hint's policy operand is: `.L2::cache_hint` adds one `.b64` operand at the end.
fn split_cache_hint<'n>(
    context: &mut Context,
    instruction: &ast::Instruction,
    modifiers: &'n [&'n str],
) -> Option<(&'n [&'n str], usize)> {
    match modifiers.split_last() {
        Some((&"L2::cache_hint", rest)) => {
            let Some(policy) = instruction.operands.last() else {
                context.expect_operand_count(instruction, 1)?;
                return None;
            };
            context.source(policy, ScalarType::B64, SizeRule::Exact)?;
            Some((rest, 1))
        }
        _ => Some((modifiers, 0)),
    }
}

fn unexpected_form(context: &mut Context, instruction: &ast::Instruction) -> Option<Instruction> {
    let end = instruction.modifiers.last().map_or(instruction.opcode.span, |modifier| modifier.span);
    context.report(
        Diagnostic::error(Code::InvalidModifier, "not a form of `cp.async.bulk`")
            .with_primary(instruction.opcode.span.to(end), "unexpected modifiers")
            .with_note(
                "expected `.shared::cluster.global.mbarrier::complete_tx::bytes`, \
                 `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes` or `.global.shared::cta.bulk_group`",
            ),
    );
    None
}

/// The direction that the two state spaces and the completion mechanism name.
fn direction(spaces: &[&str]) -> Option<BulkCopyDirection> {
    Some(match spaces {
        ["shared::cluster" | "shared::cta", "global", "mbarrier::complete_tx::bytes"] => {
            BulkCopyDirection::GlobalToShared
        }
        ["global", "shared::cta", "bulk_group"] => BulkCopyDirection::SharedToGlobal,
        ["shared::cluster", "shared::cta", "mbarrier::complete_tx::bytes"] => BulkCopyDirection::SharedToShared,
        _ => return None,
    })
}

/// `cp.async.bulk.dst.src.completion{.L2::cache_hint} [d], [a], size{, [mbar]}{, policy}`.
fn plain(context: &mut Context, instruction: &ast::Instruction, rest: &[&str]) -> Option<Instruction> {
    let (rest, hint) = split_cache_hint(context, instruction, rest)?;
    let Some(direction) = direction(rest) else { return unexpected_form(context, instruction) };
    let with_mbarrier = direction != BulkCopyDirection::SharedToGlobal;
    let (destination, source, size, mbarrier) =
        copy_operands(context, instruction, direction, with_mbarrier, hint, "cp.async.bulk")?;
    Some(Instruction::BulkCopy { direction, destination, source, size, mbarrier })
}

/// `[d], [a], size{, [mbar]}` of a bulk copy or reduction in `direction`, after checking the
/// operand count (`hint` more for a cache policy).
#[allow(clippy::type_complexity)]
fn copy_operands(
    context: &mut Context,
    instruction: &ast::Instruction,
    direction: BulkCopyDirection,
    with_mbarrier: bool,
    hint: usize,
    name: &str,
) -> Option<(Address, Address, crate::ir::Operand, Option<Box<Address>>)> {
    let operands = &instruction.operands;
    context.expect_operand_count(instruction, 3 + usize::from(with_mbarrier) + hint)?;
    let (destination_space, source_space) = spaces(direction);
    let destination = context.address(&operands[0])?;
    context.check_address_space(&destination, destination_space, name)?;
    let source = context.address(&operands[1])?;
    context.check_address_space(&source, source_space, name)?;
    let size = context.source(&operands[2], ScalarType::U32, SizeRule::Exact)?;
    let mbarrier = if with_mbarrier { Some(Box::new(mbarrier_address(context, &operands[3])?)) } else { None };
    Some((destination, source, size, mbarrier))
}

/// The state spaces of the destination and the source.
fn spaces(direction: BulkCopyDirection) -> (StateSpace, StateSpace) {
    match direction {
        BulkCopyDirection::GlobalToShared => (StateSpace::Shared, StateSpace::Global),
        BulkCopyDirection::SharedToGlobal => (StateSpace::Global, StateSpace::Shared),
        BulkCopyDirection::SharedToShared => (StateSpace::Shared, StateSpace::Shared),
    }
}

fn mbarrier_address(context: &mut Context, operand: &ast::Operand) -> Option<Address> {
    let address = context.address(operand)?;
    context.check_address_space(&address, StateSpace::Shared, "cp.async.bulk")?;
    Some(address)
}

/// `cp.async.bulk.tensor.Nd.dst.src{.tile}.completion{.L2::cache_hint}`: a load `[d], [map,
/// {c...}], [mbar]` or a store `[map, {c...}], [a]`.
fn tensor(
    context: &mut Context,
    instruction: &ast::Instruction,
    dimensions: &str,
    rest: &[&str],
) -> Option<Instruction> {
    let Some(dimensions) = dimension_count(dimensions) else { return unexpected_form(context, instruction) };
    let (rest, hint) = split_cache_hint(context, instruction, rest)?;
    // `.tile` is the default load mode; it sits between the spaces and the completion.
    let spaces_and_completion: Vec<&str> = rest.iter().copied().filter(|name| *name != "tile").collect();
    let Some(direction) = direction(&spaces_and_completion) else { return unexpected_form(context, instruction) };
    if direction == BulkCopyDirection::SharedToShared {
        return unexpected_form(context, instruction);
    }
    let operands = &instruction.operands;
    let load = direction == BulkCopyDirection::GlobalToShared;
    context.expect_operand_count(instruction, 2 + usize::from(load) + hint)?;
    let (map_operand, shared_operand) = if load { (&operands[1], &operands[0]) } else { (&operands[0], &operands[1]) };
    let (tensor_map, coordinates) = tensor_coordinates(context, map_operand, dimensions)?;
    let shared = context.address(shared_operand)?;
    context.check_address_space(&shared, StateSpace::Shared, "cp.async.bulk.tensor")?;
    let mbarrier = if load { Some(Box::new(mbarrier_address(context, &operands[2])?)) } else { None };
    Some(Instruction::BulkTensorCopy { direction, dimensions, shared, tensor_map, coordinates, mbarrier })
}

/// `[map, {c0, ..., cN-1}]`: the tensor map's generic address and `dimensions` `.s32`
/// coordinates.
fn tensor_coordinates(
    context: &mut Context,
    operand: &ast::Operand,
    dimensions: u32,
) -> Option<(Address, Vec<crate::ir::Operand>)> {
    let complain = |context: &mut Context, message: String| {
        context.report(
            Diagnostic::error(Code::OperandKind, "expected `[tensorMap, {coordinates}]`")
                .with_primary(operand.span, message),
        );
    };
    let OperandKind::Bracketed(parts) = &operand.kind else {
        complain(context, "not a tensor map with coordinates".into());
        return None;
    };
    let [map, coordinates] = parts.as_slice() else {
        complain(context, "expected a tensor map and a vector of coordinates".into());
        return None;
    };
    let map_address = match &map.kind {
        OperandKind::Name { name, member: None } => ast::Operand {
            kind: OperandKind::Address { base: Some(Spanned { node: name.clone(), span: map.span }), offset: 0 },
            span: map.span,
        },
        _ => {
            complain(context, "the tensor map is a register or a variable".into());
            return None;
        }
    };
    let tensor_map = context.address(&map_address)?;
    let OperandKind::Vector(coordinates) = &coordinates.kind else {
        complain(context, "the coordinates are a vector `{c0, c1, ...}`".into());
        return None;
    };
    if coordinates.len() != dimensions as usize {
        complain(context, format!("a {dimensions}d copy takes {dimensions} coordinates, not {}", coordinates.len()));
        return None;
    }
    let coordinates = coordinates
        .iter()
        .map(|coordinate| context.source(coordinate, ScalarType::S32, SizeRule::Exact))
        .collect::<Option<Vec<_>>>()?;
    Some((tensor_map, coordinates))
}

/// `cp.reduce.async.bulk.dst.src.completion{.L2::cache_hint}.op.type [d], [a], size{, [mbar]}`:
/// `.global.shared::cta.bulk_group` or `.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`,
/// with `.and`/`.or`/`.xor` on `.b32`/`.b64`, `.add` on `.u32`/`.s32`/`.u64`/`.f32`/`.f64`,
/// `.inc`/`.dec` on `.u32`, `.min`/`.max` on `.u32`/`.s32`/`.u64`/`.s64`.
fn reduce(context: &mut Context, instruction: &ast::Instruction, rest: &[&str]) -> Option<Instruction> {
    let Some((type_name, rest)) = rest.split_last() else { return unexpected_form(context, instruction) };
    let Some((operation_name, rest)) = rest.split_last() else { return unexpected_form(context, instruction) };
    let (rest, hint) = split_cache_hint(context, instruction, rest)?;
    let Some(direction) = direction(rest).filter(|direction| *direction != BulkCopyDirection::GlobalToShared) else {
        return unexpected_form(context, instruction);
    };
    let (Some(operation), Some(ty)) = (AtomicOperation::from_ptx(operation_name), ScalarType::from_ptx(type_name))
    else {
        return unexpected_form(context, instruction);
    };
    use AtomicOperation as Op;
    use ScalarType as T;
    let valid = match operation {
        Op::And | Op::Or | Op::Xor => matches!(ty, T::B32 | T::B64),
        Op::Add => matches!(ty, T::U32 | T::S32 | T::U64 | T::F32 | T::F64),
        Op::Increment | Op::Decrement => ty == T::U32,
        Op::Minimum | Op::Maximum => matches!(ty, T::U32 | T::S32 | T::U64 | T::S64),
        Op::CompareAndSwap | Op::Exchange => false,
    };
    if !valid {
        let span = instruction.modifiers[instruction.modifiers.len() - 1].span;
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`cp.reduce.async.bulk` has no `.{operation_name}` on `.{type_name}`"),
            )
            .with_primary(span, "not a reduction of the bulk copy"),
        );
        return None;
    }
    let with_mbarrier = direction == BulkCopyDirection::SharedToShared;
    let (destination, source, size, mbarrier) =
        copy_operands(context, instruction, direction, with_mbarrier, hint, "cp.reduce.async.bulk")?;
    Some(Instruction::BulkReduce { direction, operation, ty, destination, source, size, mbarrier })
}

/// The dimension count of `1d` to `5d`.
fn dimension_count(name: &str) -> Option<u32> {
    Some(match name {
        "1d" => 1,
        "2d" => 2,
        "3d" => 3,
        "4d" => 4,
        "5d" => 5,
        _ => return None,
    })
}

/// `cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [a], size{, policy}`.
fn prefetch(context: &mut Context, instruction: &ast::Instruction, rest: &[&str]) -> Option<Instruction> {
    let (rest, hint) = split_cache_hint(context, instruction, rest)?;
    if rest != ["L2", "global"] {
        return unexpected_form(context, instruction);
    }
    context.expect_operand_count(instruction, 2 + hint)?;
    let address = context.address(&instruction.operands[0])?;
    context.check_address_space(&address, StateSpace::Global, "cp.async.bulk.prefetch")?;
    let size = context.source(&instruction.operands[1], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::BulkPrefetch { address, size })
}

/// `cp.async.bulk.prefetch.tensor.Nd.L2.global{.tile}{.L2::cache_hint} [map, {c...}]{, policy}`.
fn tensor_prefetch(
    context: &mut Context,
    instruction: &ast::Instruction,
    dimensions: &str,
    rest: &[&str],
) -> Option<Instruction> {
    let Some(dimensions) = dimension_count(dimensions) else { return unexpected_form(context, instruction) };
    let (rest, hint) = split_cache_hint(context, instruction, rest)?;
    if !matches!(rest, ["L2", "global"] | ["L2", "global", "tile"]) {
        return unexpected_form(context, instruction);
    }
    context.expect_operand_count(instruction, 1 + hint)?;
    let (tensor_map, coordinates) = tensor_coordinates(context, &instruction.operands[0], dimensions)?;
    Some(Instruction::BulkTensorPrefetch { dimensions, tensor_map, coordinates })
}
