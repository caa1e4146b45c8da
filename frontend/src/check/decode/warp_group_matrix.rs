//! `wgmma` (PTX ISA 8.0, sm_90a; NVIDIA's PTX manual, "Asynchronous Warpgroup Level Matrix
//! Multiply-Accumulate Instructions"): `wgmma.fence`, `wgmma.commit_group`,
//! `wgmma.wait_group N` and the dense `wgmma.mma_async`. The forms checked here are the
//! manual's: `.m64nNk16` on `.f16`/`.bf16` (D `.f16` or `.f32`, `.bf16` only `.f32`), `.m64nNk8`
//! on `.tf32` (D `.f32`), `.m64nNk32` on `.e4m3`/`.e5m2` (D `.f16`/`.f32`) and on `.s8`/`.u8`
//! (D `.s32`, optional `.satfinite`), N a multiple of 8 from 8 to 256 (integers: 8, 16, 24,
//! then multiples of 16 to 256). The operands are
//!
//! ```text
//! d, a-desc | a, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b   (.f16, .bf16)
//! d, a-desc | a, b-desc, scale-d, imm-scale-a, imm-scale-b                           (.tf32, fp8)
//! d, a-desc | a, b-desc, scale-d                                                     (integers)
//! ```
//!
//! where A from registers has no `imm-trans-a`. `.b1` and the sparse `wgmma.mma_async.sp` are
//! accepted and reported as unsupported by lowering.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Instruction, WarpGroupA, WarpGroupElement, WarpGroupMultiply, WarpGroupMultiplyAccumulate};
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::matrix::{invalid, sync_aligned};
use super::{accept_unlowered, Context, Modifiers};

/// `wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group` and `wgmma.mma_async`.
pub fn wgmma(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if modifiers.flag("fence") {
        sync_aligned(context, modifiers)?;
        context.expect_operand_count(instruction, 0)?;
        return Some(Instruction::WarpGroupFence);
    }
    if modifiers.flag("commit_group") {
        sync_aligned(context, modifiers)?;
        context.expect_operand_count(instruction, 0)?;
        return Some(Instruction::WarpGroupCommit);
    }
    if modifiers.flag("wait_group") {
        sync_aligned(context, modifiers)?;
        context.expect_operand_count(instruction, 1)?;
        let operand = &instruction.operands[0];
        return match operand.kind {
            ast::OperandKind::Integer(value) if (0..=i128::from(u32::MAX)).contains(&value.get()) => {
                Some(Instruction::WarpGroupWait { pending: value.get() as u32 })
            }
            _ => {
                context.report(
                    Diagnostic::error(Code::OperandKind, "`wgmma.wait_group` takes an integer constant")
                        .with_primary(operand.span, "expected the number of groups that may stay pending"),
                );
                None
            }
        };
    }
    if modifiers.flag("mma_async") {
        if instruction.modifiers.iter().any(|modifier| modifier.node == "sp") {
            return accept_unlowered(context, modifiers, instruction);
        }
        return multiply_accumulate(context, modifiers, instruction);
    }
    invalid(
        context,
        modifiers.end_span(),
        "`wgmma` needs `.mma_async`, `.fence`, `.commit_group` or `.wait_group`".to_string(),
        "expected one of them",
    )
}

/// N of `.m64nNkK` when the shape is written that way.
fn shape(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("m64n")?;
    let (n, k) = rest.split_once('k')?;
    Some((n.parse().ok()?, k.parse().ok()?))
}

/// Whether the manual lists `.m64nNk..` for multiplicands of type `a`.
fn valid_n(a: WarpGroupElement, n: u32) -> bool {
    let integer = matches!(a, WarpGroupElement::S8 | WarpGroupElement::U8 | WarpGroupElement::B1);
    if integer {
        matches!(n, 8 | 16 | 24) || (n % 16 == 0 && (32..=256).contains(&n))
    } else {
        n % 8 == 0 && (8..=256).contains(&n)
    }
}

/// Whether `d` is a D type of multiplicands `a` and `b`.
fn valid_types(d: WarpGroupElement, a: WarpGroupElement, b: WarpGroupElement, saturate: bool) -> bool {
    use WarpGroupElement::*;
    let float = !saturate;
    match (a, b) {
        (F16, F16) => matches!(d, F16 | F32) && float,
        (Bf16, Bf16) | (Tf32, Tf32) => d == F32 && float,
        (E4m3 | E5m2, E4m3 | E5m2) => matches!(d, F16 | F32) && float,
        (S8 | U8, S8 | U8) => d == S32,
        (B1, B1) => d == S32 && float,
        _ => false,
    }
}

fn multiply_accumulate(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    sync_aligned(context, modifiers)?;
    let Some(written) = modifiers.take(shape) else {
        return invalid(
            context,
            modifiers.end_span(),
            "`wgmma.mma_async` needs a shape `.m64nNkK`".to_string(),
            "expected a shape such as `.m64n64k16`",
        );
    };
    let saturate = modifiers.flag("satfinite");
    let mut types = Vec::with_capacity(3);
    while let Some(element) = modifiers.take(WarpGroupElement::from_ptx) {
        types.push(element);
    }
    let [d, a, b] = &types[..] else {
        let span = types.first().map_or(modifiers.end_span(), |first| first.span);
        let message =
            format!("`wgmma.mma_async` takes three types (`.dtype.atype.btype`), but {} were given", types.len());
        return invalid(context, span, message, "expected three types");
    };
    let (n, k) = written.node;
    let operation = WarpGroupMultiply { n, d: d.node, a: a.node, b: b.node, saturate };
    if !valid_types(d.node, a.node, b.node, saturate) {
        let satfinite = if saturate { " with `.satfinite`" } else { "" };
        let message = format!("`wgmma.mma_async` has no form `{}{}{}`{satfinite}", d.node, a.node, b.node);
        return invalid(context, d.span.to(b.span), message, "not a form of `wgmma.mma_async`");
    }
    if k != a.node.k() || !valid_n(a.node, n) {
        let message = format!("`wgmma.mma_async` on `{}` has no shape `.m64n{n}k{k}`", a.node);
        let label = format!("expected `.m64nNk{}` with a valid N", a.node.k());
        return invalid(context, written.span, message, &label);
    }
    if a.node == WarpGroupElement::B1 {
        // `.b1` with `.and.popc`: decoded no further; lowering reports it.
        return accept_unlowered(context, modifiers, instruction);
    }
    let operands = &instruction.operands;
    let a_from_registers = matches!(operands.get(1).map(|operand| &operand.kind), Some(ast::OperandKind::Vector(_)));
    let transposable = matches!(a.node, WarpGroupElement::F16 | WarpGroupElement::Bf16);
    let immediates = match (transposable, a_from_registers) {
        (true, false) => 4,
        (true, true) => 3,
        (false, _) if matches!(a.node, WarpGroupElement::S8 | WarpGroupElement::U8) => 0,
        (false, _) => 2,
    };
    context.expect_operand_count(instruction, 4 + immediates)?;
    let d_register = if d.node == WarpGroupElement::F16 {
        ScalarType::B32
    } else if d.node == WarpGroupElement::S32 {
        ScalarType::S32
    } else {
        ScalarType::F32
    };
    let count = operation.d_registers();
    let destinations = context.destination_list(&operands[0], d_register, count, SizeRule::Exact, false);
    // The same registers, read; checked once, so a wrong count is reported once.
    let accumulator = match destinations {
        Some(_) => context.source_list(&operands[0], d_register, count, SizeRule::Exact),
        None => None,
    };
    let a_operand = if a_from_registers {
        context
            .source_list(&operands[1], ScalarType::B32, 4, SizeRule::Exact)
            .map(|registers| WarpGroupA::Registers(registers.into_boxed_slice()))
    } else {
        context.source(&operands[1], ScalarType::B64, SizeRule::Exact).map(WarpGroupA::Descriptor)
    };
    let b_operand = context.source(&operands[2], ScalarType::B64, SizeRule::Exact);
    let scale_d = context.source(&operands[3], ScalarType::Pred, SizeRule::Exact);
    let mut flags = [false; 4];
    for (index, operand) in operands[4..].iter().enumerate() {
        // imm-scale-a, imm-scale-b: 1 or -1; imm-trans-a, imm-trans-b: 0 or 1 (A from registers
        // has no imm-trans-a, so its third immediate is imm-trans-b).
        let which = if a_from_registers && index == 2 { 3 } else { index };
        let value = match operand.kind {
            ast::OperandKind::Integer(value) => Some(value.get()),
            _ => None,
        };
        let (allowed, flag) = if which < 2 {
            ("1 or -1", value.and_then(|value| [(1, false), (-1, true)].into_iter().find(|(v, _)| *v == value)))
        } else {
            ("0 or 1", value.and_then(|value| [(0, false), (1, true)].into_iter().find(|(v, _)| *v == value)))
        };
        match flag {
            Some((_, set)) => flags[which] = set,
            None => {
                let name = ["imm-scale-a", "imm-scale-b", "imm-trans-a", "imm-trans-b"][which];
                context.report(
                    Diagnostic::error(Code::OperandKind, format!("`{name}` of `wgmma.mma_async` is {allowed}"))
                        .with_primary(operand.span, format!("expected the constant {allowed}")),
                );
                return None;
            }
        }
    }
    let destinations = destinations?.into_iter().collect::<Option<Vec<_>>>()?;
    let [negate_a, negate_b, transpose_a, transpose_b] = flags;
    Some(Instruction::WarpGroupMultiplyAccumulate(Box::new(WarpGroupMultiplyAccumulate {
        operation,
        destinations: destinations.into_boxed_slice(),
        accumulator: accumulator?.into_boxed_slice(),
        a: a_operand?,
        b: b_operand?,
        scale_d: scale_d?,
        negate_a,
        negate_b,
        transpose_a,
        transpose_b,
    })))
}
