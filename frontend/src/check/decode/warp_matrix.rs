//! `wmma.load`, `wmma.store` and `wmma.mma` (ISA 7.8 section 9.7.13.3), every shape and type of
//! the spec. PTX leaves the distribution of a matrix over the warp's fragments unspecified, so
//! ptxr chooses the fragments of the `mma` instructions that compute the shape
//! ([`WarpMatrixGeometry::tiling`]): `.m16n16k16` (and `.tf32`'s `.m16n16k8`) is two `mma`
//! tiles side by side, one per 8-column half of D, sharing A; `.m32n8k16` two stacked, one per
//! 16-row half, sharing B; `.m8n32k16` is the transpose of `.m32n8k16` (Dᵀ = Bᵀ·Aᵀ + Cᵀ), so
//! A's fragment is the tiles' B of Aᵀ and B's their A of Bᵀ; `.m8n8k4` on `.f64`, `.m8n8k32`
//! on `.s4`/`.u4` and `.m8n8k128` on `.b1` are one `mma` of that shape. A fragment is its
//! tiles' `mma` fragments one after the other; `.f16` A and B have more registers (eight) than
//! their tiles use, and repeat them. `wmma.mma` then is one `mma` per tile and computes exactly
//! what they compute (lowering's `warp_matrix.rs`), except on NVPTX, whose own `wmma`
//! instructions take every form with the hardware's fragments.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    BitOperation, Instruction, MatrixElement, MatrixLayout, RoundingMode, WarpMatrixFragment, WarpMatrixGeometry,
    WarpMatrixMultiply, WarpMatrixShape,
};
use crate::syntax::ast;
use crate::vocabulary::{ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

fn invalid<T>(context: &mut Context, span: crate::span::Span, message: String, label: &str) -> Option<T> {
    context.report(Diagnostic::error(Code::InvalidModifier, message).with_primary(span, label.to_string()));
    None
}

/// The register type of a fragment of `element`s: narrow elements are packed into `.b32`.
fn register_type(element: MatrixElement) -> ScalarType {
    match element {
        MatrixElement::F32 => ScalarType::F32,
        MatrixElement::S32 => ScalarType::S32,
        MatrixElement::F64 => ScalarType::F64,
        _ => ScalarType::B32,
    }
}

/// Whether the spec defines `fragment` of `geometry` with `element`s (section 9.7.13.3's
/// `wmma.load` and `wmma.store` syntax).
fn defined(geometry: WarpMatrixGeometry, fragment: WarpMatrixFragment, element: MatrixElement) -> bool {
    use MatrixElement::*;
    use WarpMatrixGeometry::*;
    let multiplicand = fragment != WarpMatrixFragment::C;
    match geometry {
        M16n16k16 | M32n8k16 | M8n32k16 if multiplicand => matches!(element, F16 | Bf16 | S8 | U8),
        M16n16k16 | M32n8k16 | M8n32k16 => matches!(element, F16 | F32 | S32),
        M16n16k8 => element == if multiplicand { Tf32 } else { F32 },
        M8n8k4 => element == F64,
        M8n8k32 if multiplicand => matches!(element, S4 | U4),
        M8n8k128 if multiplicand => element == B1,
        M8n8k32 | M8n8k128 => element == S32,
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
            invalid::<()>(
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

fn geometry(context: &mut Context, modifiers: &mut Modifiers) -> Option<WarpMatrixGeometry> {
    let geometry = modifiers.take(WarpMatrixGeometry::from_ptx).map(|geometry| geometry.node);
    if geometry.is_none() {
        invalid::<()>(
            context,
            modifiers.end_span(),
            "`wmma` needs a shape".to_string(),
            "expected a shape such as `.m16n16k16`",
        );
    }
    geometry
}

fn unlowered(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Vec<Instruction>> {
    accept_unlowered(context, modifiers, instruction).map(|decoded| vec![decoded])
}

/// The sub-byte shapes take A `.row` and B `.col` only.
fn layout_allowed(geometry: WarpMatrixGeometry, fragment: WarpMatrixFragment, layout: MatrixLayout) -> bool {
    match (geometry, fragment) {
        (WarpMatrixGeometry::M8n8k32 | WarpMatrixGeometry::M8n8k128, WarpMatrixFragment::A) => {
            layout == MatrixLayout::Row
        }
        (WarpMatrixGeometry::M8n8k32 | WarpMatrixGeometry::M8n8k128, WarpMatrixFragment::B) => {
            layout == MatrixLayout::Column
        }
        _ => true,
    }
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
    let geometry = geometry(context, modifiers)?;
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
    let Some(element) = modifiers.take(MatrixElement::from_ptx) else {
        return invalid(context, modifiers.end_span(), "`wmma` needs a type".to_string(), "expected a type");
    };
    if !defined(geometry, fragment, element.node) {
        let matrix = if store { "D" } else { ["A", "B", "C"][fragment as usize] };
        return invalid(
            context,
            element.span,
            format!("`wmma{geometry}` has no {matrix} of {} elements", element.node),
            "not a type of this shape",
        );
    }
    if !layout_allowed(geometry, fragment, layout.node) {
        return invalid(
            context,
            layout.span,
            format!("`wmma{geometry}` needs A `.row` and B `.col`"),
            "not a layout of this shape",
        );
    }
    let element = element.node;
    if !matches!(instruction.operands.len(), 2 | 3) {
        context.expect_operand_count(instruction, 2)?;
    }
    let (register, count) = (register_type(element), geometry.registers(fragment, element));
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

/// The types of a `wmma.mma`, and whether the spec defines that form: `.dtype.ctype` on `.f16`
/// A and B, `.dtype.atype.btype.ctype` otherwise.
struct Types {
    d: MatrixElement,
    a: MatrixElement,
    b: MatrixElement,
    c: MatrixElement,
}

fn multiply_types(geometry: WarpMatrixGeometry, types: &[MatrixElement]) -> Option<Types> {
    use MatrixElement::*;
    use WarpMatrixGeometry::*;
    let standard = matches!(geometry, M16n16k16 | M32n8k16 | M8n32k16);
    match *types {
        [d @ (F16 | F32), c @ (F16 | F32)] if standard => Some(Types { d, a: F16, b: F16, c }),
        [S32, a @ (S8 | U8), b, S32] if standard && a == b => Some(Types { d: S32, a, b, c: S32 }),
        [F32, Bf16, Bf16, F32] if standard => Some(Types { d: F32, a: Bf16, b: Bf16, c: F32 }),
        [F32, Tf32, Tf32, F32] if geometry == M16n16k8 => Some(Types { d: F32, a: Tf32, b: Tf32, c: F32 }),
        [F64, F64, F64, F64] if geometry == M8n8k4 => Some(Types { d: F64, a: F64, b: F64, c: F64 }),
        [S32, a @ (S4 | U4), b, S32] if geometry == M8n8k32 && a == b => Some(Types { d: S32, a, b, c: S32 }),
        [S32, B1, B1, S32] if geometry == M8n8k128 => Some(Types { d: S32, a: B1, b: B1, c: S32 }),
        _ => None,
    }
}

/// `wmma.mma{.op.popc}.sync.aligned.alayout.blayout.shape{.rnd}.dtype{.atype.btype}.ctype{.satfinite}
/// d, a, b, c`.
fn multiply(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Vec<Instruction>> {
    // `.b1`'s `.xor.popc` and `.and.popc`, read here and checked with the types.
    let bit_operation = modifiers.take(|name| match name {
        "xor" => Some(BitOperation::Xor),
        "and" => Some(BitOperation::And),
        _ => None,
    });
    let popc = modifiers.take_flag("popc");
    sync_aligned(context, modifiers)?;
    // The layouts name how A and B were loaded; the fragments do not depend on them.
    let a_layout = modifiers.take(MatrixLayout::from_ptx);
    let b_layout = modifiers.take(MatrixLayout::from_ptx);
    let (Some(a_layout), Some(b_layout)) = (a_layout, b_layout) else {
        return invalid(
            context,
            modifiers.end_span(),
            "`wmma.mma` needs the layouts of A and B".to_string(),
            "expected such as `.row.col`",
        );
    };
    let geometry = geometry(context, modifiers)?;
    let rounding = modifiers.take(RoundingMode::from_ptx);
    let saturate = modifiers.take_flag("satfinite");
    let mut spelled = Vec::with_capacity(4);
    while let Some(element) = modifiers.take(MatrixElement::from_ptx) {
        spelled.push(element);
    }
    let elements = spelled.iter().map(|element| element.node).collect::<Vec<_>>();
    let type_span =
        spelled.first().map_or(modifiers.end_span(), |first| first.span.to(spelled[spelled.len() - 1].span));
    let Some(Types { d, a, b, c }) = multiply_types(geometry, &elements) else {
        let spelling = elements.iter().map(ToString::to_string).collect::<String>();
        return invalid(
            context,
            type_span,
            format!("`wmma.mma{geometry}` has no form `{spelling}`"),
            "not a form of `wmma.mma`",
        );
    };
    let integer = d == MatrixElement::S32;
    let single_bit = a == MatrixElement::B1;
    if single_bit != (bit_operation.is_some() && popc.is_some()) {
        let span = bit_operation.as_ref().map_or(type_span, |operation| operation.span);
        let message = if single_bit {
            "`wmma.mma` on `.b1` needs `.xor.popc` or `.and.popc`"
        } else {
            "only `wmma.mma` on `.b1` takes `.xor.popc` or `.and.popc`"
        };
        return invalid(context, span, message.to_string(), "expected `.xor.popc` or `.and.popc` with `.b1`");
    }
    if let Some(rounding) = &rounding {
        let float_rounding = matches!(
            rounding.node,
            RoundingMode::NearestEven
                | RoundingMode::TowardZero
                | RoundingMode::TowardNegative
                | RoundingMode::TowardPositive
        );
        if d != MatrixElement::F64 || !float_rounding {
            return invalid(
                context,
                rounding.span,
                "only `wmma.mma` on `.f64` takes a rounding modifier (`.rn`, `.rz`, `.rm`, `.rp`)".to_string(),
                "not a modifier of this form",
            );
        }
    }
    if let Some(saturate) = &saturate {
        if single_bit || d == MatrixElement::F64 || (!integer && a != MatrixElement::F16) {
            return invalid(
                context,
                saturate.span,
                format!("`wmma.mma` on `{a}` has no `.satfinite`"),
                "not a modifier of this form",
            );
        }
    }
    let sub_byte = matches!(geometry, WarpMatrixGeometry::M8n8k32 | WarpMatrixGeometry::M8n8k128);
    if sub_byte && (a_layout.node != MatrixLayout::Row || b_layout.node != MatrixLayout::Column) {
        let span = a_layout.span.to(b_layout.span);
        return invalid(context, span, format!("`wmma.mma{geometry}` needs `.row.col`"), "expected `.row.col`");
    }
    // `.satfinite` on floats is the form before ISA 6.5 (it clamps infinities), which no target
    // computes.
    if saturate.is_some() && !integer {
        return unlowered(context, modifiers, instruction);
    }
    context.expect_operand_count(instruction, 4)?;
    let operands = &instruction.operands;
    let fragment = |fragment, element| (register_type(element), geometry.registers(fragment, element));
    let (d_type, d_count) = fragment(WarpMatrixFragment::C, d);
    let (a_type, a_count) = fragment(WarpMatrixFragment::A, a);
    let (b_type, b_count) = fragment(WarpMatrixFragment::B, b);
    let (c_type, c_count) = fragment(WarpMatrixFragment::C, c);
    let destinations = context.destination_list(&operands[0], d_type, d_count, SizeRule::Exact, false);
    let a_list = context.source_list(&operands[1], a_type, a_count, SizeRule::Exact);
    let b_list = context.source_list(&operands[2], b_type, b_count, SizeRule::Exact);
    let c_list = context.source_list(&operands[3], c_type, c_count, SizeRule::Exact);
    let destinations = destinations?.into_iter().collect::<Option<Vec<_>>>()?;
    let operation = WarpMatrixMultiply {
        geometry,
        a_layout: a_layout.node,
        b_layout: b_layout.node,
        d,
        a,
        b,
        c,
        saturate: saturate.is_some(),
        rounding: rounding.map(|rounding| rounding.node),
        bit_operation: bit_operation.map(|operation| operation.node),
    };
    Some(vec![Instruction::WarpMatrixMultiplyAccumulate {
        operation,
        destinations: destinations.into_boxed_slice(),
        a: a_list?,
        b: b_list?,
        c: c_list?,
    }])
}
