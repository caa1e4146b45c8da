//! `tensormap.replace` and `tensormap.cp_fenceproxy` (PTX ISA 8.3, sm_90a... sm_90 and later),
//! and `fence.proxy.tensormap::generic`: a tensor map built in memory by the device, then made
//! visible to the tensor-map proxy that `cp.async.bulk.tensor` reads it through.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Instruction, MemoryScope, TensorMapField};
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

/// The size of a tensor map in bytes, the only one `tensormap.cp_fenceproxy` and
/// `fence.proxy.tensormap` take.
const TENSOR_MAP_BYTES: i128 = 128;

pub fn tensor_map(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let names: Vec<&str> = instruction.modifiers.iter().map(|modifier| modifier.node.as_str()).collect();
    let result = match names.as_slice() {
        ["replace", "tile", field, space, "b1024", ty] => replace(context, instruction, field, space, ty),
        ["replace", ..] => return accept_unlowered(context, modifiers, instruction),
        ["cp_fenceproxy", "global", "shared::cta", "tensormap::generic", "release", scope, "sync", "aligned"] => {
            copy_fence_proxy(context, instruction, scope)
        }
        _ => {
            let end = instruction.modifiers.last().map_or(instruction.opcode.span, |modifier| modifier.span);
            context.report(
                Diagnostic::error(Code::InvalidModifier, "not a form of `tensormap`")
                    .with_primary(instruction.opcode.span.to(end), "unexpected modifiers")
                    .with_note(
                        "expected `tensormap.replace.tile.field.space.b1024.type` or \
                         `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned`",
                    ),
            );
            None
        }
    };
    if result.is_some() {
        modifiers.drop_all(|_| true);
    }
    result
}

fn replace(
    context: &mut Context,
    instruction: &ast::Instruction,
    field: &str,
    space: &str,
    ty: &str,
) -> Option<Instruction> {
    let field_span = instruction.modifiers[2].span;
    let Some(field) = TensorMapField::from_ptx(field) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`tensormap.replace` has no field `.{field}`"))
                .with_primary(field_span, "not a tensor-map field"),
        );
        return None;
    };
    let state_space = match space {
        "global" => StateSpace::Global,
        "shared::cta" => StateSpace::Shared,
        _ => {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "a tensor map is replaced in `.global` or `.shared::cta`")
                    .with_primary(instruction.modifiers[3].span, "expected `.global` or `.shared::cta`"),
            );
            return None;
        }
    };
    let expected_type = if field.is_64_bit() { "b64" } else { "b32" };
    if ty != expected_type {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`.{field}` takes `.{expected_type}`"))
                .with_primary(instruction.modifiers[5].span, format!("expected `.{expected_type}`")),
        );
        return None;
    }
    let operands = &instruction.operands;
    context.expect_operand_count(instruction, if field.has_ordinal() { 3 } else { 2 })?;
    let address = context.address(&operands[0])?;
    context.check_address_space(&address, state_space, "tensormap.replace")?;
    let ordinal = if field.has_ordinal() {
        let operand = &operands[1];
        match operand.kind {
            OperandKind::Integer(value) if (0..i128::from(field.ordinals())).contains(&value.get()) => {
                Some(value.get() as u32)
            }
            _ => {
                context.report(
                    Diagnostic::error(
                        Code::OperandKind,
                        format!("the ordinal of `.{field}` is a constant below {}", field.ordinals()),
                    )
                    .with_primary(operand.span, "not a valid ordinal"),
                );
                return None;
            }
        }
    } else {
        None
    };
    let value_operand = operands.last()?;
    if field.takes_immediate() && !matches!(value_operand.kind, OperandKind::Integer(_)) {
        context.report(
            Diagnostic::error(Code::OperandKind, format!("the new value of `.{field}` is an integer constant"))
                .with_primary(value_operand.span, "not a constant"),
        );
        return None;
    }
    let value_type = if field.is_64_bit() { ScalarType::B64 } else { ScalarType::B32 };
    let value = context.source(value_operand, value_type, SizeRule::Exact)?;
    Some(Instruction::TensorMapReplace { field, state_space, address, ordinal, value })
}

fn copy_fence_proxy(context: &mut Context, instruction: &ast::Instruction, scope: &str) -> Option<Instruction> {
    let scope = scope_of(context, instruction, scope, 5)?;
    context.expect_operand_count(instruction, 3)?;
    let operands = &instruction.operands;
    let destination = context.address(&operands[0])?;
    context.check_address_space(&destination, StateSpace::Global, "tensormap.cp_fenceproxy")?;
    let source = context.address(&operands[1])?;
    context.check_address_space(&source, StateSpace::Shared, "tensormap.cp_fenceproxy")?;
    expect_size(context, &operands[2])?;
    Some(Instruction::TensorMapCopyFenceProxy { scope, destination, source })
}

fn scope_of(context: &mut Context, instruction: &ast::Instruction, scope: &str, index: usize) -> Option<MemoryScope> {
    match MemoryScope::from_ptx(scope) {
        Some(scope) if !matches!(instruction.modifiers[index].node.as_str(), "gl") => Some(scope),
        _ => {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`.{scope}` is not a scope"))
                    .with_primary(instruction.modifiers[index].span, "expected `.cta`, `.cluster`, `.gpu` or `.sys`"),
            );
            None
        }
    }
}

fn expect_size(context: &mut Context, operand: &ast::Operand) -> Option<()> {
    if matches!(operand.kind, OperandKind::Integer(value) if value.get() == TENSOR_MAP_BYTES) {
        return Some(());
    }
    context.report(
        Diagnostic::error(Code::OperandKind, "a tensor map is 128 bytes")
            .with_primary(operand.span, "expected the constant 128"),
    );
    None
}

/// `fence.proxy.tensormap::generic.release.scope` and
/// `fence.proxy.tensormap::generic.acquire.scope [a], 128`.
pub fn fence(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let names: Vec<&str> = instruction.modifiers.iter().map(|modifier| modifier.node.as_str()).collect();
    let ["proxy", "tensormap::generic", ordering @ ("release" | "acquire"), scope] = names.as_slice() else {
        return accept_unlowered(context, modifiers, instruction);
    };
    let scope = scope_of(context, instruction, scope, 3)?;
    let acquire = if *ordering == "acquire" {
        context.expect_operand_count(instruction, 2)?;
        let address = context.address(&instruction.operands[0])?;
        expect_size(context, &instruction.operands[1])?;
        Some(address)
    } else {
        context.expect_operand_count(instruction, 0)?;
        None
    };
    modifiers.drop_all(|_| true);
    Some(Instruction::TensorMapFence { scope, acquire })
}
