//! Bit-field, permutation, funnel-shift and small-integer arithmetic instructions: `bfe`, `bfi`,
//! `bfind`, `fns`, `bmsk`, `szext`, `mul24`, `mad24`, `sad`, `dp4a`, `dp2a` (ISA 7.8 section
//! 9.7.1), `shf` (9.7.7.3), `prmt` (9.7.8.7) and `cvt.pack` (9.7.8.19).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{BitFieldInsertInstruction, DotProductLanes, Instruction, PermuteMode};
use crate::span::Spanned;
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

/// The instruction type, reported unless it is one of `allowed`.
fn type_among(
    context: &mut Context,
    modifiers: &mut Modifiers,
    allowed: &[ScalarType],
    expected: &str,
) -> Option<Spanned<ScalarType>> {
    let ty = modifiers.required_type(context)?;
    if !allowed.contains(&ty.node) {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`{}` does not take type `{}`", modifiers.opcode(), ty.node),
            )
            .with_primary(ty.span, format!("expected {expected}")),
        );
        return None;
    }
    Some(ty)
}

/// One of two spellings of a required mode (`.wrap`/`.clamp`, `.l`/`.r`, `.lo`/`.hi`): `true`
/// for the second.
fn required_choice(context: &mut Context, modifiers: &mut Modifiers, first: &str, second: &str) -> Option<bool> {
    match (modifiers.flag(first), modifiers.flag(second)) {
        (true, false) => Some(false),
        (false, true) => Some(true),
        _ => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` needs one of `.{first}` or `.{second}`", modifiers.opcode()),
                )
                .with_primary(modifiers.end_span(), format!("expected `.{first}` or `.{second}`")),
            );
            None
        }
    }
}

const WORD_INTEGERS: &[ScalarType] = &[ScalarType::U32, ScalarType::S32, ScalarType::U64, ScalarType::S64];

pub fn bit_field_extract(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let ty = type_among(context, modifiers, WORD_INTEGERS, "`.u32`, `.s32`, `.u64` or `.s64`")?.node;
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let source = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    let position = context.source(&instruction.operands[2], ScalarType::U32, SizeRule::Exact)?;
    let length = context.source(&instruction.operands[3], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::BitFieldExtract { ty, destination, source, position, length })
}

pub fn bit_field_insert(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let ty = type_among(context, modifiers, &[ScalarType::B32, ScalarType::B64], "`.b32` or `.b64`")?.node;
    context.expect_operand_count(instruction, 5)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let field = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    let base = context.source(&instruction.operands[2], ty, SizeRule::Exact)?;
    let position = context.source(&instruction.operands[3], ScalarType::U32, SizeRule::Exact)?;
    let length = context.source(&instruction.operands[4], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::BitFieldInsert(Box::new(BitFieldInsertInstruction {
        ty,
        destination,
        field,
        base,
        position,
        length,
    })))
}

pub fn find_most_significant_bit(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let shift_amount = modifiers.flag("shiftamt");
    let ty = type_among(context, modifiers, WORD_INTEGERS, "`.u32`, `.s32`, `.u64` or `.s64`")?.node;
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::U32, SizeRule::Exact)?;
    let source = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    Some(Instruction::FindMostSignificantBit { ty, shift_amount, destination, source })
}

pub fn find_nth_set_bit(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    type_among(context, modifiers, &[ScalarType::B32], "`.b32`")?;
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let mask = context.source(&instruction.operands[1], ScalarType::B32, SizeRule::Exact)?;
    let base = context.source(&instruction.operands[2], ScalarType::U32, SizeRule::Exact)?;
    let offset = context.source(&instruction.operands[3], ScalarType::S32, SizeRule::Exact)?;
    Some(Instruction::FindNthSetBit { destination, mask, base, offset })
}

pub fn bit_mask(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let wrap = required_choice(context, modifiers, "clamp", "wrap")?;
    type_among(context, modifiers, &[ScalarType::B32], "`.b32`")?;
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let position = context.source(&instruction.operands[1], ScalarType::U32, SizeRule::Exact)?;
    let width = context.source(&instruction.operands[2], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::BitMask { wrap, destination, position, width })
}

pub fn sign_or_zero_extend(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let wrap = required_choice(context, modifiers, "clamp", "wrap")?;
    let ty = type_among(context, modifiers, &[ScalarType::U32, ScalarType::S32], "`.u32` or `.s32`")?.node;
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let source = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    let width = context.source(&instruction.operands[2], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::SignOrZeroExtend { ty, wrap, destination, source, width })
}

pub fn permute(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let mode = modifiers.take(PermuteMode::from_ptx).map_or(PermuteMode::Default, |mode| mode.node);
    type_among(context, modifiers, &[ScalarType::B32], "`.b32`")?;
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ScalarType::B32, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ScalarType::B32, SizeRule::Exact)?;
    let selector = context.source(&instruction.operands[3], ScalarType::B32, SizeRule::Exact)?;
    Some(Instruction::Permute { mode, destination, a, b, selector })
}

pub fn funnel_shift(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let left = !required_choice(context, modifiers, "l", "r")?;
    let wrap = required_choice(context, modifiers, "clamp", "wrap")?;
    type_among(context, modifiers, &[ScalarType::B32], "`.b32`")?;
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ScalarType::B32, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ScalarType::B32, SizeRule::Exact)?;
    let amount = context.source(&instruction.operands[3], ScalarType::U32, SizeRule::Exact)?;
    Some(Instruction::FunnelShift { left, wrap, destination, a, b, amount })
}

/// `mul24.mode.type d, a, b` and `mad24.mode{.sat}.type d, a, b, c`.
pub fn multiply_24(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let with_addend = modifiers.opcode() == "mad24";
    let high = required_choice(context, modifiers, "lo", "hi")?;
    let saturate = with_addend && modifiers.flag("sat");
    let ty = type_among(context, modifiers, &[ScalarType::U32, ScalarType::S32], "`.u32` or `.s32`")?;
    if saturate && !(high && ty.node == ScalarType::S32) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`.sat` is only defined for `mad24.hi.sat.s32`")
                .with_primary(ty.span, "saturation needs `.hi` and `.s32`"),
        );
        return None;
    }
    let ty = ty.node;
    context.expect_operand_count(instruction, if with_addend { 4 } else { 3 })?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty, SizeRule::Exact)?;
    let addend = if with_addend { Some(context.source(&instruction.operands[3], ty, SizeRule::Exact)?) } else { None };
    Some(Instruction::Multiply24 { high, ty, saturate, destination, a, b, addend })
}

pub fn sum_of_absolute_differences(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let allowed =
        [ScalarType::U16, ScalarType::S16, ScalarType::U32, ScalarType::S32, ScalarType::U64, ScalarType::S64];
    let ty = type_among(context, modifiers, &allowed, "a 16-, 32- or 64-bit integer type")?.node;
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], ty, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ty, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ty, SizeRule::Exact)?;
    let c = context.source(&instruction.operands[3], ty, SizeRule::Exact)?;
    Some(Instruction::SumOfAbsoluteDifferences { ty, destination, a, b, c })
}

/// `dp4a.atype.btype d, a, b, c` and `dp2a.mode.atype.btype d, a, b, c`.
pub fn dot_product(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let lanes = if modifiers.opcode() == "dp4a" {
        DotProductLanes::Four
    } else if required_choice(context, modifiers, "lo", "hi")? {
        DotProductLanes::TwoHigh
    } else {
        DotProductLanes::TwoLow
    };
    let integers = [ScalarType::U32, ScalarType::S32];
    let a_type = type_among(context, modifiers, &integers, "`.u32` or `.s32`")?.node;
    let b_type = type_among(context, modifiers, &integers, "`.u32` or `.s32`")?.node;
    // The accumulator and the result are unsigned only when both inputs are.
    let accumulator_type =
        if a_type == ScalarType::U32 && b_type == ScalarType::U32 { ScalarType::U32 } else { ScalarType::S32 };
    context.expect_operand_count(instruction, 4)?;
    let destination = context.destination(&instruction.operands[0], accumulator_type, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], a_type, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], b_type, SizeRule::Exact)?;
    let c = context.source(&instruction.operands[3], accumulator_type, SizeRule::Exact)?;
    Some(Instruction::DotProduct {
        lanes,
        a_signed: a_type == ScalarType::S32,
        b_signed: b_type == ScalarType::S32,
        destination,
        a,
        b,
        c,
    })
}

/// `cvt.pack.sat.convertType.s32.b32 d, a, b, c` (8-bit types) and
/// `cvt.pack.sat.convertType.s32 d, a, b` (16-bit types).
pub fn convert_pack(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    modifiers.flag("pack");
    if !modifiers.flag("sat") {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`cvt.pack` needs `.sat`")
                .with_primary(modifiers.end_span(), "expected `.sat`"),
        );
        return None;
    }
    // The 4- and 2-bit destination types have no `ScalarType`: they are read here by name.
    let sub_byte = modifiers.take(|name| match name {
        "u4" => Some((4, false)),
        "s4" => Some((4, true)),
        "u2" => Some((2, false)),
        "s2" => Some((2, true)),
        _ => None,
    });
    let (bits, signed) = match sub_byte {
        Some(sub_byte) => sub_byte.node,
        None => {
            let narrow = [ScalarType::U8, ScalarType::S8, ScalarType::U16, ScalarType::S16];
            let expected = "`.u8`, `.s8`, `.u16`, `.s16`, `.u4`, `.s4`, `.u2` or `.s2`";
            let destination_type = type_among(context, modifiers, &narrow, expected)?.node;
            (destination_type.bits(), destination_type.is_signed())
        }
    };
    type_among(context, modifiers, &[ScalarType::S32], "`.s32` sources")?;
    let with_c = bits < 16;
    if with_c {
        type_among(context, modifiers, &[ScalarType::B32], "`.b32` for `c`")?;
    }
    context.expect_operand_count(instruction, if with_c { 4 } else { 3 })?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let a = context.source(&instruction.operands[1], ScalarType::S32, SizeRule::Exact)?;
    let b = context.source(&instruction.operands[2], ScalarType::S32, SizeRule::Exact)?;
    let c =
        if with_c { Some(context.source(&instruction.operands[3], ScalarType::B32, SizeRule::Exact)?) } else { None };
    Some(Instruction::ConvertPack { bits, signed, destination, a, b, c: c.map(Box::new) })
}
