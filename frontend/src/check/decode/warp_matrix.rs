//! `wmma.load`, `wmma.store` and `wmma.mma` (ISA 7.8 section 9.7.13.3) on `.m16n16k16` and
//! `.m32n8k16` with `.f16` A and B and `.f16` or `.f32` C and D. PTX leaves the distribution of a
//! matrix over the warp's fragments unspecified, so ptxr chooses the fragments of
//! `mma.m16n8k16` (section 9.7.13.4.8): on `.m16n16k16`, A's first four registers are that
//! `mma`'s A (the last four repeat them) and B's and C's/D's hold the two 8-column halves one
//! after the other; on `.m32n8k16`, A's and C's/D's hold the two 16-row halves and B's first two
//! registers are the `mma`'s B. `wmma.mma` then is two `mma.m16n8k16`, one per half of D, and
//! computes exactly what they compute. The other shapes and types are valid PTX that lowering
//! reports as unsupported.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    Destination, Instruction, MatrixElement, MatrixLayout, MatrixMultiply, MatrixShape, Operand, Value,
    WarpMatrixFragment, WarpMatrixGeometry, WarpMatrixShape,
};
use crate::syntax::ast;
use crate::vocabulary::{ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

fn invalid(context: &mut Context, span: crate::span::Span, message: String, label: &str) -> Option<Vec<Instruction>> {
    context.report(Diagnostic::error(Code::InvalidModifier, message).with_primary(span, label.to_string()));
    None
}

/// The shape, when ptxr computes it.
fn geometry(modifiers: &mut Modifiers) -> Option<WarpMatrixGeometry> {
    if modifiers.flag("m16n16k16") {
        Some(WarpMatrixGeometry::M16n16k16)
    } else if modifiers.flag("m32n8k16") {
        Some(WarpMatrixGeometry::M32n8k16)
    } else {
        None
    }
}

/// The registers of a fragment on `.m16n16k16` and `.m32n8k16`: `.f16` elements are packed two to a `.b32`.
fn registers(fragment: WarpMatrixFragment, element: MatrixElement) -> (ScalarType, u32) {
    match (fragment, element) {
        (WarpMatrixFragment::A | WarpMatrixFragment::B, _) => (ScalarType::B32, 8),
        (_, MatrixElement::F32) => (ScalarType::F32, 8),
        _ => (ScalarType::B32, 4),
    }
}

/// Decodes a `wmma` instruction into the instructions that compute it; `None` on errors
/// (already reported).
pub fn decode(context: &mut Context, instruction: &ast::Instruction) -> Option<Vec<Instruction>> {
    let mut modifiers = Modifiers::new(&instruction.modifiers, &instruction.opcode);
    let decoded = if modifiers.flag("mma") {
        multiply(context, &mut modifiers, instruction)
    } else if modifiers.flag("load") {
        access(context, &mut modifiers, instruction, false)
    } else if modifiers.flag("store") {
        access(context, &mut modifiers, instruction, true)
    } else {
        invalid(
            context,
            modifiers.end_span(),
            "`wmma` needs `.load`, `.store` or `.mma`".to_string(),
            "expected `.load`, `.store` or `.mma`",
        )
    };
    if decoded.is_some() {
        modifiers.finish(context)?;
    }
    decoded
}

fn sync_aligned(context: &mut Context, modifiers: &mut Modifiers) -> Option<()> {
    for name in ["sync", "aligned"] {
        if !modifiers.flag(name) {
            invalid(
                context,
                modifiers.end_span(),
                "`wmma` needs `.sync.aligned`".to_string(),
                &format!("expected `.{name}`"),
            );
            return None;
        }
    }
    Some(())
}

fn unlowered(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Vec<Instruction>> {
    accept_unlowered(context, modifiers, instruction).map(|decoded| vec![decoded])
}

/// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}` and
/// `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}`.
fn access(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
    store: bool,
) -> Option<Vec<Instruction>> {
    let fragment = if store {
        modifiers.take_flag("d").map(|_| WarpMatrixFragment::C)
    } else {
        modifiers
            .take(|name| match name {
                "a" => Some(WarpMatrixFragment::A),
                "b" => Some(WarpMatrixFragment::B),
                "c" => Some(WarpMatrixFragment::C),
                _ => None,
            })
            .map(|fragment| fragment.node)
    };
    let Some(fragment) = fragment else {
        let expected = if store { "expected `.d`" } else { "expected `.a`, `.b` or `.c`" };
        return invalid(context, modifiers.end_span(), "`wmma` needs the matrix it moves".to_string(), expected);
    };
    sync_aligned(context, modifiers)?;
    let Some(layout) = modifiers.take(MatrixLayout::from_ptx) else {
        return invalid(
            context,
            modifiers.end_span(),
            "`wmma` needs a layout".to_string(),
            "expected `.row` or `.col`",
        );
    };
    let Some(geometry) = geometry(modifiers) else {
        // `.m8n32k16`, `.m8n8k4`, ... and their other element types.
        return unlowered(context, modifiers, instruction);
    };
    let state_space = match modifiers.state_space() {
        None => StateSpace::Generic,
        Some(space) if matches!(space.node, StateSpace::Global | StateSpace::Shared) => space.node,
        Some(space) => {
            return invalid(
                context,
                space.span,
                format!("`wmma` cannot access {}", space.node),
                "expected `.global` or `.shared`",
            );
        }
    };
    let element = modifiers.take(MatrixElement::from_ptx);
    let element = match (fragment, element.map(|element| element.node)) {
        (WarpMatrixFragment::A | WarpMatrixFragment::B, Some(MatrixElement::F16)) => MatrixElement::F16,
        (WarpMatrixFragment::C, Some(element @ (MatrixElement::F16 | MatrixElement::F32))) => element,
        _ => return unlowered(context, modifiers, instruction),
    };
    if !matches!(instruction.operands.len(), 2 | 3) {
        context.expect_operand_count(instruction, 2)?;
    }
    let (register, count) = registers(fragment, element);
    let operands = &instruction.operands;
    let (fragment_operand, address_operand) =
        if store { (&operands[1], &operands[0]) } else { (&operands[0], &operands[1]) };
    let address = context.address(address_operand);
    let stride = match operands.get(2) {
        Some(stride) => Some(context.source(stride, ScalarType::U32, SizeRule::Exact)?),
        None => None,
    };
    let address = address?;
    let shape = WarpMatrixShape { geometry, fragment, layout: layout.node, element, state_space };
    // Each lane finds its elements from its `%laneid`.
    context.reads_warp_registers = true;
    if store {
        let sources = context.source_list(fragment_operand, register, count, SizeRule::Exact)?;
        Some(vec![Instruction::WarpMatrixStore { shape, address, sources, stride }])
    } else {
        let destinations = context.destination_list(fragment_operand, register, count, SizeRule::Exact, false)?;
        let destinations = destinations.into_iter().collect::<Option<Vec<_>>>()?;
        Some(vec![Instruction::WarpMatrixLoad { shape, destinations, address, stride }])
    }
}

/// Whether `operand` reads the register `written`.
fn reads(operand: &Operand, written: &Destination) -> bool {
    match operand.value {
        Value::Register(register) => register == written.register,
        Value::Member { register, index } => {
            register == written.register && written.member.is_none_or(|member| member == index)
        }
        _ => false,
    }
}

/// `wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c`: two `mma.m16n8k16`.
fn multiply(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Vec<Instruction>> {
    sync_aligned(context, modifiers)?;
    // The layouts name how A and B were loaded; the fragments do not depend on them.
    let a_layout = modifiers.take(MatrixLayout::from_ptx);
    let b_layout = modifiers.take(MatrixLayout::from_ptx);
    if a_layout.is_none() || b_layout.is_none() {
        return invalid(
            context,
            modifiers.end_span(),
            "`wmma.mma` needs the layouts of A and B".to_string(),
            "expected such as `.row.col`",
        );
    }
    let Some(geometry) = geometry(modifiers) else {
        return unlowered(context, modifiers, instruction);
    };
    let d = modifiers.take(MatrixElement::from_ptx).map(|element| element.node);
    let c = modifiers.take(MatrixElement::from_ptx).map(|element| element.node);
    let (Some(d @ (MatrixElement::F16 | MatrixElement::F32)), Some(c @ (MatrixElement::F16 | MatrixElement::F32))) =
        (d, c)
    else {
        return unlowered(context, modifiers, instruction);
    };
    if d != c || modifiers.flag("satfinite") {
        // `mma.m16n8k16` keeps C's type in D and has no `.satfinite` on floats.
        return unlowered(context, modifiers, instruction);
    }
    context.expect_operand_count(instruction, 4)?;
    let operands = &instruction.operands;
    let (d_register, d_count) = registers(WarpMatrixFragment::C, d);
    let destinations = context.destination_list(&operands[0], d_register, d_count, SizeRule::Exact, false);
    let a = context.source_list(&operands[1], ScalarType::B32, 8, SizeRule::Exact);
    let b = context.source_list(&operands[2], ScalarType::B32, 8, SizeRule::Exact);
    let c_list = context.source_list(&operands[3], d_register, d_count, SizeRule::Exact);
    let destinations = destinations?.into_iter().collect::<Option<Vec<_>>>()?;
    let (a, b, c_list) = (a?, b?, c_list?);
    let operation = MatrixMultiply {
        shape: MatrixShape::M16n8k16,
        a_layout: MatrixLayout::Row,
        b_layout: MatrixLayout::Column,
        d,
        a: MatrixElement::F16,
        b: MatrixElement::F16,
        c,
        saturate: false,
    };
    // D's and C's halves: the first 8 columns, then the last 8 (`.m16n16k16`: A's first four
    // registers and B's halves), or the first 16 rows, then the last 16 (`.m32n8k16`: A's
    // halves and B's first two registers).
    let half = d_count as usize / 2;
    let tall = geometry == WarpMatrixGeometry::M32n8k16;
    let a_half = |half: usize| if tall { 4 * half..4 * half + 4 } else { 0..4 };
    let b_half = |half: usize| if tall { 0..2 } else { 2 * half..2 * half + 2 };
    let read_later = a[a_half(1)].iter().chain(&b[b_half(1)]).chain(&c_list[half..]);
    if read_later.clone().any(|operand| destinations[..half].iter().any(|written| reads(operand, written))) {
        // The first `mma` would overwrite what the second reads; valid PTX that ptxr does not
        // split exactly, so lowering reports it as unsupported.
        context.resolve_names(&instruction.operands);
        return Some(vec![Instruction::Unlowered]);
    }
    Some(
        (0..2)
            .map(|column_half| Instruction::MatrixMultiplyAccumulate {
                operation,
                destinations: destinations[column_half * half..][..half].to_vec(),
                a: a[a_half(column_half)].to_vec(),
                b: b[b_half(column_half)].to_vec(),
                c: c_list[column_half * half..][..half].to_vec(),
            })
            .collect(),
    )
}
