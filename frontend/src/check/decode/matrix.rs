//! The warp-level matrix instructions `mma` and `ldmatrix` (ISA 7.8 sections 9.7.13.4.14 and
//! 9.7.13.4.15). Every form of the spec's tables decodes, and the 8-bit float forms of ISA 8.4
//! and 8.7 (`.e4m3`/`.e5m2` A and B on sm_89, which Triton's `tl.dot` on float8 writes); every dense `mma` form becomes a typed
//! instruction; `mma.sp` is accepted and reported as unsupported by lowering.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{BitOperation, Instruction, MatrixElement, MatrixLayout, MatrixMultiply, MatrixShape};
use crate::span::Spanned;
use crate::syntax::ast;
use crate::vocabulary::{ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

pub(super) fn invalid<T>(context: &mut Context, span: crate::span::Span, message: String, label: &str) -> Option<T> {
    context.report(Diagnostic::error(Code::InvalidModifier, message).with_primary(span, label.to_string()));
    None
}

/// `.sync.aligned`, the shape and the layouts of A and B, which `mma` and `mma.sp` spell in
/// that order; reports what is missing, naming `opcode`.
pub(super) fn shape_and_layouts(
    context: &mut Context,
    modifiers: &mut Modifiers,
    opcode: &str,
) -> Option<(Spanned<MatrixShape>, Spanned<MatrixLayout>, Spanned<MatrixLayout>)> {
    sync_aligned(context, modifiers)?;
    let Some(shape) = modifiers.take(MatrixShape::from_ptx) else {
        return invalid(
            context,
            modifiers.end_span(),
            format!("`{opcode}` needs a shape"),
            "expected a shape such as `.m16n8k16`",
        );
    };
    let a_layout = modifiers.take(MatrixLayout::from_ptx);
    let b_layout = modifiers.take(MatrixLayout::from_ptx);
    let (Some(a_layout), Some(b_layout)) = (a_layout, b_layout) else {
        return invalid(
            context,
            modifiers.end_span(),
            format!("`{opcode}` needs the layouts of A and B"),
            "expected `.row.col`",
        );
    };
    Some((shape, a_layout, b_layout))
}

/// Requires `.sync` and `.aligned`, which every warp-level matrix instruction spells out.
pub(super) fn sync_aligned(context: &mut Context, modifiers: &mut Modifiers) -> Option<()> {
    for name in ["sync", "aligned"] {
        if !modifiers.flag(name) {
            let opcode = modifiers.opcode();
            invalid::<()>(
                context,
                modifiers.end_span(),
                format!("`{opcode}` needs `.sync.aligned`"),
                "expected `.{name}`",
            );
            return None;
        }
    }
    Some(())
}

/// How an `mma` form of the spec is handled.
enum Form {
    /// Typed and lowered where a target can.
    Lowered,
    /// Not a form of the spec.
    Invalid,
}

/// The spec's `mma` forms (ISA 7.8 section 9.7.13.4.14), `.row.col` aside.
fn form(operation: &MatrixMultiply) -> Form {
    use MatrixElement::{Bf16, E4m3, E5m2, Tf32, B1, F16, F32, F64, S32, S4, S8, U4, U8};
    use MatrixShape::*;
    let MatrixMultiply { shape, d, a, b, c, saturate, .. } = *operation;
    // `.m16n8k8` and `.m16n8k16` keep C's type in D; `.m8n8k4` may also widen `.f16` C to `.f32` D.
    let same_accumulator = matches!(d, F16 | F32) && d == c;
    let widening_accumulator = same_accumulator || (d, c) == (F32, F16);
    let integer = matches!((a, b), (S8 | U8, S8 | U8)) && d == S32 && c == S32;
    let nibbles = matches!((a, b), (S4 | U4, S4 | U4)) && d == S32 && c == S32;
    let float_only = !saturate;
    match (shape, a, b) {
        (M16n8k8 | M16n8k16, F16, F16) if same_accumulator && float_only => Form::Lowered,
        (M16n8k8 | M16n8k16, Bf16, Bf16) if d == F32 && c == F32 && float_only => Form::Lowered,
        // ISA 8.4 (sm_89): `.m16n8k32` into `.f32`; ISA 8.7 adds `.m16n8k16` and `.f16` C and D.
        (M16n8k16 | M16n8k32, E4m3 | E5m2, E4m3 | E5m2) if same_accumulator && float_only => Form::Lowered,
        (M16n8k4 | M16n8k8, Tf32, Tf32) if d == F32 && c == F32 && float_only => Form::Lowered,
        (M8n8k16 | M16n8k16 | M16n8k32, _, _) if integer => Form::Lowered,
        (M8n8k4, F16, F16) if widening_accumulator && float_only => Form::Lowered,
        (M8n8k4, F64, F64) if d == F64 && c == F64 && float_only => Form::Lowered,
        (M16n8k4 | M16n8k8 | M16n8k16, F64, F64) if d == F64 && c == F64 && float_only => Form::Lowered,
        (M8n8k32 | M16n8k32 | M16n8k64, _, _) if nibbles => Form::Lowered,
        (M8n8k128 | M16n8k128 | M16n8k256, B1, B1) if d == S32 && c == S32 && float_only => Form::Lowered,
        _ => Form::Invalid,
    }
}

/// The register type of one lane's fragment of an operand of `element`s: narrow elements are
/// packed into `.b32` registers.
pub(super) fn fragment_register(element: MatrixElement) -> ScalarType {
    match element {
        MatrixElement::F32 => ScalarType::F32,
        MatrixElement::S32 => ScalarType::S32,
        MatrixElement::F64 => ScalarType::F64,
        _ => ScalarType::B32,
    }
}

/// `mma.sync.aligned.shape.alayout.blayout{.satfinite}.dtype.atype.btype.ctype d, a, b, c`, and
/// on `.b1` `mma.sync.aligned.shape.row.col.s32.b1.b1.s32.bitOp.popc d, a, b, c`.
pub fn mma(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if instruction.modifiers.iter().any(|modifier| modifier.node == "sp" || modifier.node.starts_with("sp::")) {
        return super::sparse_matrix::mma_sparse(context, modifiers, instruction);
    }
    // The `.kind::` forms (ISA 8.7 and later, sm_120a: `kind::f8f6f4`, `kind::mxf4nvf4` with
    // `.block_scale` and its scale operands, which Triton writes for `tl.dot_scaled`) have
    // other types and operands than the spec's: accepted, and reported as unsupported by every
    // target, rather than misread as a dense form with the wrong number of types.
    if instruction.modifiers.iter().any(|modifier| modifier.node.starts_with("kind::")) {
        return accept_unlowered(context, modifiers, instruction);
    }
    // `.b1`'s `.xor.popc` and `.and.popc`, read here and checked with the types.
    let bit_operation = modifiers.take(|name| match name {
        "xor" => Some(BitOperation::Xor),
        "and" => Some(BitOperation::And),
        _ => None,
    });
    let popc = modifiers.take_flag("popc");
    let (shape, a_layout, b_layout) = shape_and_layouts(context, modifiers, "mma")?;
    let saturate = modifiers.flag("satfinite");
    let mut types = Vec::with_capacity(4);
    while let Some(element) = modifiers.take(MatrixElement::from_ptx) {
        types.push(element);
    }
    let [d, a, b, c] = &types[..] else {
        let span = types.first().map_or(modifiers.end_span(), |first| first.span);
        return invalid(
            context,
            span,
            format!("`mma` takes four types (`.dtype.atype.btype.ctype`), but {} were given", types.len()),
            "expected four types",
        );
    };
    let operation = MatrixMultiply {
        shape: shape.node,
        a_layout: a_layout.node,
        b_layout: b_layout.node,
        d: d.node,
        a: a.node,
        b: b.node,
        c: c.node,
        saturate,
        bit_operation: bit_operation.as_ref().map(|operation| operation.node),
    };
    let single_bit = a.node == MatrixElement::B1;
    if single_bit != (bit_operation.is_some() && popc.is_some()) {
        let span = bit_operation.as_ref().map_or(a.span, |operation| operation.span);
        let message = if single_bit {
            "`mma` on `.b1` needs `.xor.popc` or `.and.popc`"
        } else {
            "only `mma` on `.b1` takes `.xor.popc` or `.and.popc`"
        };
        return invalid(context, span, message.to_string(), "expected `.xor.popc` or `.and.popc` with `.b1`");
    }
    // Only `.m8n8k4` on `.f16` takes other layouts than `.row.col`.
    let layouts_valid = (shape.node == MatrixShape::M8n8k4 && a.node != MatrixElement::F64)
        || (a_layout.node == MatrixLayout::Row && b_layout.node == MatrixLayout::Column);
    match form(&operation) {
        Form::Invalid => {
            let spelling = format!("{}{}{}{}{}", shape.node, d.node, a.node, b.node, c.node);
            let satfinite = if saturate { " with `.satfinite`" } else { "" };
            return invalid(
                context,
                shape.span.to(c.span),
                format!("`mma` has no form `{spelling}`{satfinite}"),
                "not a form of `mma`",
            );
        }
        Form::Lowered if !layouts_valid => {
            let span = a_layout.span.to(b_layout.span);
            return invalid(context, span, format!("`mma{}` needs `.row.col`", shape.node), "expected `.row.col`");
        }
        Form::Lowered => {}
    }
    context.expect_operand_count(instruction, 4)?;
    let operands = &instruction.operands;
    let destinations = context.destination_list(
        &operands[0],
        fragment_register(operation.d),
        operation.d_registers(),
        SizeRule::Exact,
        false,
    );
    let a = context.source_list(&operands[1], fragment_register(operation.a), operation.a_registers(), SizeRule::Exact);
    let b = context.source_list(&operands[2], fragment_register(operation.b), operation.b_registers(), SizeRule::Exact);
    let c = context.source_list(&operands[3], fragment_register(operation.c), operation.c_registers(), SizeRule::Exact);
    let destinations = destinations?.into_iter().collect::<Option<Vec<_>>>()?;
    Some(Instruction::MatrixMultiplyAccumulate {
        operation,
        destinations: destinations.into_boxed_slice(),
        a: a?.into_boxed_slice(),
        b: b?.into_boxed_slice(),
        c: c?.into_boxed_slice(),
        sparse: None,
    })
}

/// The modifiers that `ldmatrix` and `stmatrix` share: `.m8n8`, the number of matrices, `.trans`,
/// the state space and `.b16`; returns the number of matrices, whether they are transposed and
/// the state space.
fn matrix_transfer(context: &mut Context, modifiers: &mut Modifiers, opcode: &str) -> Option<(u32, bool, StateSpace)> {
    sync_aligned(context, modifiers)?;
    if !modifiers.flag("m8n8") {
        return invalid(context, modifiers.end_span(), format!("`{opcode}` needs `.m8n8`"), "expected `.m8n8`");
    }
    let Some(matrices) = modifiers.take(|name| match name {
        "x1" => Some(1),
        "x2" => Some(2),
        "x4" => Some(4),
        _ => None,
    }) else {
        return invalid(
            context,
            modifiers.end_span(),
            format!("`{opcode}` needs the number of matrices"),
            "expected `.x1`, `.x2` or `.x4`",
        );
    };
    let transpose = modifiers.flag("trans");
    let state_space = match modifiers.state_space() {
        None => StateSpace::Generic,
        Some(space) if space.node == StateSpace::Shared => StateSpace::Shared,
        Some(space) => {
            let verb = if opcode == "ldmatrix" { "read" } else { "write" };
            return invalid(
                context,
                space.span,
                format!("`{opcode}` cannot {verb} {}", space.node),
                "expected `.shared`",
            );
        }
    };
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::B16 {
        return invalid(context, ty.span, format!("`{opcode}` is not defined on `{}`", ty.node), "expected `.b16`");
    }
    Some((matrices.node, transpose, state_space))
}

/// `ldmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 d, [a]`
pub fn ldmatrix(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let (matrices, transpose, state_space) = matrix_transfer(context, modifiers, "ldmatrix")?;
    context.expect_operand_count(instruction, 2)?;
    let target = &instruction.operands[0];
    let destinations = if matrices == 1 && matches!(target.kind, ast::OperandKind::Name { .. }) {
        // One matrix may be written to a plain register as well as to `{d}`.
        context.destination(target, ScalarType::B32, SizeRule::Exact).map(|destination| vec![Some(destination)])
    } else {
        context.destination_list(target, ScalarType::B32, matrices, SizeRule::Exact, false)
    };
    let address = context.address(&instruction.operands[1])?;
    let destinations = destinations?.into_iter().collect::<Option<Vec<_>>>()?;
    Some(Instruction::LoadMatrix { matrices, transpose, state_space, destinations, address })
}

/// `stmatrix.sync.aligned.m8n8.num{.trans}{.shared{::cta}}.b16 [p], r` (ISA 7.8, sm_90). The
/// `.m16n8` shape with `.b8` elements (ISA 8.6, sm_100) is accepted and reported as unsupported.
pub fn stmatrix(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    if instruction.modifiers.iter().any(|modifier| modifier.node == "m16n8") {
        return accept_unlowered(context, modifiers, instruction);
    }
    let (matrices, transpose, state_space) = matrix_transfer(context, modifiers, "stmatrix")?;
    context.expect_operand_count(instruction, 2)?;
    let address = context.address(&instruction.operands[0]);
    // Unlike `ldmatrix`'s destination, one matrix's source is `{r}` too, as ptxas requires.
    let sources = context.source_list(&instruction.operands[1], ScalarType::B32, matrices, SizeRule::Exact);
    Some(Instruction::StoreMatrix { matrices, transpose, state_space, address: address?, sources: sources? })
}
