//! `mma.sp` (ISA 7.8 section 9.7.13.5, "mma.sp with sparse matrix A"; ISA 7.1, sm_80): D = A·B + C
//! where A is 2:4 structured-sparse (1:2 on `.tf32`, pairs of 4:8 on `.s4`/`.u4`), passed as
//! its non-zero half, with the metadata register `e` naming each non-zero element's place in
//! its chunk and the constant sparsity selector `f` naming the lanes of each group of four whose
//! `e` counts. Every form is checked here (shape and types, operand registers, the selector's
//! range) and becomes `MatrixMultiplyAccumulate` with `sparse`; lowering
//! (`lowering/src/instructions/sparse_matrix.rs`) says which forms each target computes.
//! `mma.sp::ordered_metadata` (ISA 8.5) is accepted unchecked.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Instruction, MatrixElement, MatrixLayout, MatrixMultiply, MatrixShape, SparseMatrixA};
use crate::syntax::ast;

use super::matrix::{fragment_register, invalid, shape_and_layouts};
use super::{accept_unlowered, Context, Modifiers};

/// How many values the sparsity selector of a form may take (the spec's "Sparse matrix
/// storage"): 4 where one lane of each group of four holds the group's metadata (`.m16n8k16` on
/// `.f16`/`.bf16`, `.m16n8k8` on `.tf32`), 2 where a pair does (0: lanes 0 and 1, 1: lanes 2 and
/// 3), 1 where all four do. `None` for a form that `mma.sp` does not have.
fn selector_values(operation: &MatrixMultiply) -> Option<u32> {
    use MatrixElement::{Bf16, Tf32, F16, F32, S32, S4, S8, U4, U8};
    use MatrixShape::{M16n8k128, M16n8k16, M16n8k32, M16n8k64, M16n8k8};
    let MatrixMultiply { shape, d, a, b, c, saturate, .. } = *operation;
    let same_half_accumulator = matches!(d, F16 | F32) && d == c && !saturate;
    let single_accumulator = d == F32 && c == F32 && !saturate;
    let integer_accumulator = d == S32 && c == S32;
    match (shape, a, b) {
        (M16n8k16, F16, F16) if same_half_accumulator => Some(4),
        (M16n8k32, F16, F16) if same_half_accumulator => Some(2),
        (M16n8k16, Bf16, Bf16) if single_accumulator => Some(4),
        (M16n8k32, Bf16, Bf16) if single_accumulator => Some(2),
        (M16n8k8, Tf32, Tf32) if single_accumulator => Some(4),
        (M16n8k16, Tf32, Tf32) if single_accumulator => Some(2),
        (M16n8k32, S8 | U8, S8 | U8) if integer_accumulator => Some(2),
        (M16n8k64, S8 | U8, S8 | U8) if integer_accumulator => Some(1),
        (M16n8k64, S4 | U4, S4 | U4) if integer_accumulator => Some(2),
        (M16n8k128, S4 | U4, S4 | U4) if integer_accumulator => Some(1),
        _ => None,
    }
}

/// `mma.sp.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c, e, f`
pub fn mma_sparse(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    if !modifiers.flag("sp") {
        // `.sp::ordered_metadata` (ISA 8.5), beyond ISA 7.8.
        return accept_unlowered(context, modifiers, instruction);
    }
    let (shape, a_layout, b_layout) = shape_and_layouts(context, modifiers, "mma.sp")?;
    if (a_layout.node, b_layout.node) != (MatrixLayout::Row, MatrixLayout::Column) {
        return invalid(
            context,
            a_layout.span.to(b_layout.span),
            "`mma.sp` needs `.row.col`".to_string(),
            "expected `.row.col`",
        );
    }
    let saturate = modifiers.flag("satfinite");
    let mut types = Vec::with_capacity(4);
    while let Some(element) = modifiers.take(MatrixElement::from_ptx) {
        types.push(element);
    }
    let [d, a, b, c] = &types[..] else {
        let span = types.first().map_or(modifiers.end_span(), |first| first.span);
        let message = format!("`mma.sp` takes four types (`.dtype.atype.btype.ctype`), but {} were given", types.len());
        return invalid(context, span, message, "expected four types");
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
        bit_operation: None,
    };
    let Some(selectors) = selector_values(&operation) else {
        let spelling = format!("{}{}{}{}{}", shape.node, d.node, a.node, b.node, c.node);
        let satfinite = if saturate { " with `.satfinite`" } else { "" };
        let message = format!("`mma.sp` has no form `{spelling}`{satfinite}");
        return invalid(context, shape.span.to(c.span), message, "not a form of `mma.sp`");
    };
    context.expect_operand_count(instruction, 6)?;
    let operands = &instruction.operands;
    // A holds the non-zero half of its rows: half the registers of the dense form's A.
    let a_registers = operation.a_registers() / 2;
    let destinations = context.destination_list(
        &operands[0],
        fragment_register(operation.d),
        operation.d_registers(),
        SizeRule::Exact,
        false,
    );
    let a = context.source_list(&operands[1], fragment_register(operation.a), a_registers, SizeRule::Exact);
    let b = context.source_list(&operands[2], fragment_register(operation.b), operation.b_registers(), SizeRule::Exact);
    let c = context.source_list(&operands[3], fragment_register(operation.c), operation.c_registers(), SizeRule::Exact);
    let metadata = context.source(&operands[4], crate::vocabulary::ScalarType::B32, SizeRule::Exact);
    let selector = match operands[5].kind {
        ast::OperandKind::Integer(value) if (0..i128::from(selectors)).contains(&value.get()) => Some(value.get()),
        _ => {
            let allowed = match selectors {
                1 => "0".to_string(),
                count => format!("an integer constant from 0 to {}", count - 1),
            };
            let message = format!("the sparsity selector of `mma.sp{}` on `{}` is {allowed}", shape.node, operation.a);
            context.report(
                Diagnostic::error(Code::OperandKind, message)
                    .with_primary(operands[5].span, "not a valid sparsity selector"),
            );
            None
        }
    };
    let destinations = destinations?.into_iter().collect::<Option<Vec<_>>>();
    let (Some(destinations), Some(a), Some(b), Some(c), Some(metadata), Some(selector)) =
        (destinations, a, b, c, metadata, selector)
    else {
        return None;
    };
    let selector = u32::try_from(selector).ok()?;
    let sparse = Some(Box::new(SparseMatrixA { metadata, selector }));
    Some(Instruction::MatrixMultiplyAccumulate {
        operation,
        destinations: destinations.into_boxed_slice(),
        a: a.into_boxed_slice(),
        b: b.into_boxed_slice(),
        c: c.into_boxed_slice(),
        sparse,
    })
}
