//! Texture and surface instructions (ISA 7.8 sections 9.7.9 and 9.7.10): `tex`, `tld4`, `txq`,
//! `suld`, `sust`, `sured`, `suq`. Forms that are valid PTX but not lowered (multisample
//! textures, offsets, depth comparison, `.v2.f16x2` results) are accepted as
//! `Instruction::Unlowered`, which lowering reports as unsupported on every target.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    surface_element_type, Destination, Instruction, Operand, SurfaceBoundary, SurfaceReduction, TextureGeometry,
    TextureInstruction, TextureQuery,
};
use crate::span::Span;
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::ScalarType;

use super::{accept_unlowered, Context, Modifiers};

fn invalid<T>(context: &mut Context, span: Span, message: String, label: impl Into<String>) -> Option<T> {
    context.report(Diagnostic::error(Code::InvalidModifier, message).with_primary(span, label.into()));
    None
}

fn operand_error<T>(context: &mut Context, span: Span, message: String, label: &str) -> Option<T> {
    context.report(Diagnostic::error(Code::OperandKind, message).with_primary(span, label.to_string()));
    None
}

/// The `[a, {b,} c]` operand: the texture or surface handle, an optional sampler, and the
/// coordinate vector.
struct Lookup<'o> {
    handle: &'o ast::Operand,
    sampler: Option<&'o ast::Operand>,
    coordinates: &'o ast::Operand,
}

fn lookup<'o>(context: &mut Context, operand: &'o ast::Operand, opcode: &str, samplers: bool) -> Option<Lookup<'o>> {
    let expected = if samplers {
        "`[texture, {coordinates}]` or `[texture, sampler, {coordinates}]`"
    } else {
        "`[surface, {coordinates}]`"
    };
    let OperandKind::Bracketed(items) = &operand.kind else {
        return operand_error(context, operand.span, format!("`{opcode}` reads {expected}"), "not a texture lookup");
    };
    match items.as_slice() {
        [handle, coordinates] => Some(Lookup { handle, sampler: None, coordinates }),
        [handle, sampler, coordinates] if samplers => Some(Lookup { handle, sampler: Some(sampler), coordinates }),
        _ => operand_error(context, operand.span, format!("`{opcode}` reads {expected}"), "wrong number of elements"),
    }
}

/// A texture, sampler or surface handle: a `.u64` register holding an object, or the name of a
/// `.texref`, `.samplerref` or `.surfref` variable.
fn handle(context: &mut Context, operand: &ast::Operand) -> Option<Operand> {
    if !matches!(operand.kind, OperandKind::Name { .. }) {
        return operand_error(
            context,
            operand.span,
            "a texture, sampler or surface must be a `.u64` register or a `.texref`, `.samplerref` or `.surfref` name"
                .to_string(),
            "not a handle",
        );
    }
    context.source(operand, ScalarType::U64, SizeRule::Exact)
}

/// The coordinate vector: `count` elements of `ty`, except a layer index (first for arrays),
/// which is a `.u32` read from a 32-bit register of either type.
fn coordinates(
    context: &mut Context,
    operand: &ast::Operand,
    geometry: TextureGeometry,
    ty: ScalarType,
) -> Option<Vec<Operand>> {
    let count = geometry.coordinate_count();
    let OperandKind::Vector(items) = &operand.kind else {
        return operand_error(
            context,
            operand.span,
            format!("`{geometry}` coordinates are a vector of {count} elements"),
            "expected `{...}`",
        );
    };
    if items.len() as u32 != count {
        return operand_error(
            context,
            operand.span,
            format!(
                "`{geometry}` coordinates are a vector of {count} elements, but {} {} given",
                items.len(),
                if items.len() == 1 { "was" } else { "were" }
            ),
            "wrong number of coordinates",
        );
    }
    let mut result = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let element_type = if geometry.is_array() && index == 0 { ScalarType::B32 } else { ty };
        let rule = if element_type == ScalarType::B32 { SizeRule::AllowWider } else { SizeRule::Exact };
        result.push(context.source(item, element_type, rule)?);
    }
    Some(result)
}

/// `d` or `d|p`: the result vector and the optional residency predicate.
fn results(
    context: &mut Context,
    operand: &ast::Operand,
    ty: ScalarType,
) -> Option<(Vec<Destination>, Option<Destination>)> {
    let (vector, predicate) = match &operand.kind {
        OperandKind::PredicatePair(vector, predicate) => (vector.as_ref(), Some(predicate.as_ref())),
        _ => (operand, None),
    };
    let destinations = context.destination_list(vector, ty, 4, SizeRule::Exact, false)?;
    let destinations = destinations.into_iter().flatten().collect();
    let predicate = match predicate {
        Some(predicate) => Some(context.destination(predicate, ScalarType::Pred, SizeRule::Exact)?),
        None => None,
    };
    Some((destinations, predicate))
}

fn geometry(context: &mut Context, modifiers: &mut Modifiers) -> Option<TextureGeometry> {
    if let Some(geometry) = modifiers.take(TextureGeometry::from_ptx) {
        return Some(geometry.node);
    }
    let opcode = modifiers.opcode();
    invalid(
        context,
        modifiers.end_span(),
        format!("`{opcode}` needs a geometry"),
        "expected `.1d`, `.2d`, `.3d`, `.a1d` or `.a2d`",
    )
}

/// A surface's geometry: a texture's but cube maps.
fn surface_geometry(context: &mut Context, modifiers: &mut Modifiers) -> Option<TextureGeometry> {
    let Some(geometry) = modifiers.take(TextureGeometry::from_ptx) else {
        return geometry(context, modifiers);
    };
    if geometry.node.is_cube() {
        let opcode = modifiers.opcode();
        return invalid(
            context,
            geometry.span,
            format!("`{opcode}` has no `{}` geometry", geometry.node),
            "surfaces are `.1d`, `.2d`, `.3d`, `.a1d` or `.a2d`",
        );
    }
    Some(geometry.node)
}

/// Geometries, result types and operand forms that are valid PTX but that ptxr does not lower.
fn has_unlowered_texture_form(modifiers: &Modifiers, instruction: &ast::Instruction) -> bool {
    ["2dms", "a2dms", "f16x2", "v2"].iter().any(|name| modifiers.may_have(name))
        && instruction
            .modifiers
            .iter()
            .any(|modifier| matches!(modifier.node.as_str(), "2dms" | "a2dms" | "f16x2" | "v2"))
}

/// A `tex.grad` gradient: a vector of 1, 2 or 4 `.f32` elements (or one register), at least
/// one per dimension of `geometry`.
fn gradient(context: &mut Context, operand: &ast::Operand, geometry: TextureGeometry) -> Option<Vec<Operand>> {
    let items: Vec<&ast::Operand> = match &operand.kind {
        OperandKind::Vector(items) => items.iter().collect(),
        _ => vec![operand],
    };
    let needed = geometry.dimensions().max(1);
    if !matches!(items.len(), 1 | 2 | 4) || items.len() < needed {
        return operand_error(
            context,
            operand.span,
            format!("a `{geometry}` gradient is a vector of 1, 2 or 4 `.f32` elements, at least {needed}"),
            "wrong number of gradient elements",
        );
    }
    let mut result = Vec::with_capacity(items.len());
    for item in items {
        result.push(context.source(item, ScalarType::F32, SizeRule::Exact)?);
    }
    Some(result)
}

/// `tex{.base,.level,.grad}.geom.v4.dtype.ctype d{|p}, [a, {b,} c]{, lod}{, dPdx, dPdy}`.
pub fn tex(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if has_unlowered_texture_form(modifiers, instruction) {
        return accept_unlowered(context, modifiers, instruction);
    }
    let level = modifiers.flag("level");
    let grad = !level && modifiers.flag("grad");
    modifiers.flag("base");
    let geometry = geometry(context, modifiers)?;
    if !modifiers.flag("v4") {
        return invalid(context, modifiers.end_span(), "`tex` needs `.v4`".to_string(), "expected `.v4`");
    }
    let coordinate_types: &[ScalarType] =
        if geometry.is_cube() { &[ScalarType::F32] } else { &[ScalarType::F32, ScalarType::S32, ScalarType::U32] };
    let opcode = if geometry.is_cube() { format!("tex{geometry}") } else { "tex".to_string() };
    let result_types = [ScalarType::F32, ScalarType::S32, ScalarType::U32, ScalarType::F16];
    let (result, coordinate) = types(context, modifiers, &opcode, &result_types, coordinate_types)?;
    let operand_count = 2 + usize::from(level) + 2 * usize::from(grad);
    if instruction.operands.len() > operand_count {
        // Offsets (`e`) and depth comparison values (`f`).
        return accept_unlowered(context, modifiers, instruction);
    }
    context.expect_operand_count(instruction, operand_count)?;
    let (destinations, predicate) = results(context, &instruction.operands[0], result)?;
    let lookup = lookup(context, &instruction.operands[1], "tex", true)?;
    let handle = handle(context, lookup.handle)?;
    let sampler = match lookup.sampler {
        Some(sampler) => Some(self::handle(context, sampler)?),
        None => None,
    };
    let coordinates = coordinates(context, lookup.coordinates, geometry, coordinate)?;
    let level =
        if level { Some(context.source(&instruction.operands[2], ScalarType::F32, SizeRule::Exact)?) } else { None };
    let gradients = if grad {
        let x = gradient(context, &instruction.operands[2], geometry)?;
        let y = gradient(context, &instruction.operands[3], geometry)?;
        Some([x, y])
    } else {
        None
    };
    Some(Instruction::Texture(Box::new(TextureInstruction::Sample {
        geometry,
        result,
        coordinate,
        destinations,
        predicate,
        handle,
        sampler,
        coordinates,
        level,
        gradients,
    })))
}

/// The `.dtype.ctype` pair of `tex` and `tld4`.
fn types(
    context: &mut Context,
    modifiers: &mut Modifiers,
    opcode: &str,
    result_types: &[ScalarType],
    coordinate_types: &[ScalarType],
) -> Option<(ScalarType, ScalarType)> {
    let result = modifiers.scalar_type();
    let coordinate = modifiers.scalar_type();
    let (Some(result), Some(coordinate)) = (result, coordinate) else {
        return invalid(
            context,
            modifiers.end_span(),
            format!("`{opcode}` needs a result type and a coordinate type"),
            "expected `.f32.f32`, `.s32.f32`, `.u32.s32`...",
        );
    };
    if !result_types.contains(&result.node) {
        let names: Vec<String> = result_types.iter().map(|ty| format!("`{ty}`")).collect();
        return invalid(
            context,
            result.span,
            format!("`{opcode}` returns {}", names.join(", ")),
            format!("`{}` is not a texture result type", result.node),
        );
    }
    if !coordinate_types.contains(&coordinate.node) || coordinate.node == ScalarType::U32 {
        let allowed = if coordinate_types.contains(&ScalarType::S32) { "`.s32` or `.f32`" } else { "`.f32`" };
        return invalid(
            context,
            coordinate.span,
            format!("`{opcode}` coordinates are {allowed}"),
            format!("`{}` is not a coordinate type", coordinate.node),
        );
    }
    Some((result.node, coordinate.node))
}

/// `tld4.comp.geom.v4.dtype.f32 d{|p}, [a, {b,} c]` (`.2d`, `.a2d`, `.cube`, `.acube`).
pub fn tld4(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let component = modifiers.take(|name| ["r", "g", "b", "a"].iter().position(|&component| component == name));
    let Some(component) = component else {
        return invalid(
            context,
            modifiers.end_span(),
            "`tld4` needs a component".to_string(),
            "expected `.r`, `.g`, `.b` or `.a`",
        );
    };
    let geometry = geometry(context, modifiers)?;
    if !matches!(
        geometry,
        TextureGeometry::TwoD | TextureGeometry::ArrayTwoD | TextureGeometry::Cube | TextureGeometry::ArrayCube
    ) {
        return invalid(
            context,
            modifiers.end_span(),
            format!("`tld4` has no `{geometry}` geometry"),
            "expected `.2d`, `.a2d`, `.cube` or `.acube`",
        );
    }
    if !modifiers.flag("v4") {
        return invalid(context, modifiers.end_span(), "`tld4` needs `.v4`".to_string(), "expected `.v4`");
    }
    let result_types = [ScalarType::F32, ScalarType::S32, ScalarType::U32];
    let (result, _) = types(context, modifiers, "tld4", &result_types, &[ScalarType::F32])?;
    if instruction.operands.len() > 2 {
        return accept_unlowered(context, modifiers, instruction);
    }
    context.expect_operand_count(instruction, 2)?;
    let (destinations, predicate) = results(context, &instruction.operands[0], result)?;
    let lookup = lookup(context, &instruction.operands[1], "tld4", true)?;
    let handle = handle(context, lookup.handle)?;
    let sampler = match lookup.sampler {
        Some(sampler) => Some(self::handle(context, sampler)?),
        None => None,
    };
    let coordinates = coordinates(context, lookup.coordinates, geometry, ScalarType::F32)?;
    Some(Instruction::Texture(Box::new(TextureInstruction::Gather {
        component: component.node as u8,
        geometry,
        result,
        destinations,
        predicate,
        handle,
        sampler,
        coordinates,
    })))
}

/// `txq.query.b32 d, [a]`, `txq.level.query.b32 d, [a], lod` and `suq.query.b32 d, [a]`.
pub fn query(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let surface = modifiers.opcode() == "suq";
    let level = !surface && modifiers.flag("level");
    let opcode = modifiers.opcode();
    let Some(query) = modifiers.take(TextureQuery::from_ptx) else {
        return invalid(
            context,
            modifiers.end_span(),
            format!("`{opcode}` needs a query"),
            "expected `.width`, `.height`, `.depth`...",
        );
    };
    let allowed = if surface { query.node.is_surface_query() } else { query.node != TextureQuery::MemoryLayout };
    if !allowed {
        let (name, other) = if surface { ("surface", "txq") } else { ("texture", "suq") };
        return invalid(
            context,
            query.span,
            format!("`{opcode}` has no such {name} query"),
            format!("a query of `{other}`, not of `{opcode}`"),
        );
    }
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::B32 {
        return invalid(
            context,
            ty.span,
            format!("`{opcode}` has type `.b32`"),
            format!("`{}` is not `.b32`", ty.node),
        );
    }
    if level && !matches!(query.node, TextureQuery::Width | TextureQuery::Height | TextureQuery::Depth) {
        return invalid(
            context,
            query.span,
            "`txq.level` queries `.width`, `.height` or `.depth`".to_string(),
            "not a per-level query",
        );
    }
    context.expect_operand_count(instruction, 2 + usize::from(level))?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    let handle_operand = match &instruction.operands[1].kind {
        OperandKind::Address { base: Some(base), offset: 0 } => {
            ast::Operand { kind: OperandKind::Name { name: base.node.clone(), member: None }, span: base.span }
        }
        _ => {
            return operand_error(
                context,
                instruction.operands[1].span,
                format!("`{opcode}` reads `[handle]`"),
                "expected `[handle]`",
            )
        }
    };
    let handle = handle(context, &handle_operand)?;
    let query = query.node;
    let level = if level {
        Some(context.source(&instruction.operands[2], ScalarType::B32, SizeRule::AllowWider)?)
    } else {
        None
    };
    Some(Instruction::Texture(Box::new(if surface {
        TextureInstruction::QuerySurface { query, destination, handle }
    } else {
        TextureInstruction::QueryTexture { query, destination, handle, level }
    })))
}

/// `.b`, `.geom`, `.vec`, `.b8`..`.b64` and `.trap`/`.clamp`/`.zero` of `suld` and `sust`,
/// with the cache operators dropped (they do not change the result).
fn surface_modifiers(
    context: &mut Context,
    modifiers: &mut Modifiers,
) -> Option<(bool, TextureGeometry, u32, u32, SurfaceBoundary)> {
    let opcode = modifiers.opcode();
    let formatted = modifiers.flag("p");
    if !formatted && !modifiers.flag("b") {
        return invalid(context, modifiers.end_span(), format!("`{opcode}` needs `.b` or `.p`"), "expected `.b`");
    }
    let geometry = surface_geometry(context, modifiers)?;
    modifiers.drop_all(|name| matches!(name, "ca" | "cg" | "cs" | "cv" | "wb" | "wt"));
    let lanes = if modifiers.flag("v2") {
        2
    } else if modifiers.flag("v4") {
        4
    } else {
        1
    };
    let ty = modifiers.required_type(context)?;
    let bits = match ty.node {
        ScalarType::B8 => 8,
        ScalarType::B16 => 16,
        ScalarType::B32 => 32,
        ScalarType::B64 => 64,
        other => {
            return invalid(
                context,
                ty.span,
                format!("`{opcode}` moves `.b8`, `.b16`, `.b32` or `.b64`"),
                format!("`{other}` is not one of them"),
            )
        }
    };
    if formatted && bits != 32 {
        return invalid(context, ty.span, format!("`{opcode}.p` stores `.b32` channels"), "expected `.b32`");
    }
    if lanes == 4 && bits == 64 {
        return invalid(context, ty.span, format!("`{opcode}` has no `.v4.b64` form"), "at most `.v2.b64`");
    }
    let boundary = modifiers
        .take(|name| match name {
            "trap" => Some(SurfaceBoundary::Trap),
            "clamp" => Some(SurfaceBoundary::Clamp),
            "zero" => Some(SurfaceBoundary::Zero),
            _ => None,
        })
        .map_or(SurfaceBoundary::Trap, |boundary| boundary.node);
    Some((formatted, geometry, bits, lanes, boundary))
}

/// `suld.b.geom{.cop}.vec.dtype.clamp d, [a, b]`.
pub fn suld(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let (formatted, geometry, bits, lanes, boundary) = surface_modifiers(context, modifiers)?;
    if formatted {
        return invalid(
            context,
            instruction.opcode.span,
            "`suld` has no `.p` form".to_string(),
            "`suld.b` reads raw bits",
        );
    }
    context.expect_operand_count(instruction, 2)?;
    let ty = surface_element_type(bits);
    // A single element may be written as a one-element vector (`{%r1}`, as nvcc does).
    let destinations = if lanes == 1 && !matches!(instruction.operands[0].kind, OperandKind::Vector(_)) {
        vec![context.destination(&instruction.operands[0], ty, SizeRule::AllowWider)?]
    } else {
        let list = context.destination_list(&instruction.operands[0], ty, lanes, SizeRule::AllowWider, false)?;
        list.into_iter().flatten().collect()
    };
    let lookup = lookup(context, &instruction.operands[1], "suld", false)?;
    let handle = handle(context, lookup.handle)?;
    let coordinates = coordinates(context, lookup.coordinates, geometry, ScalarType::B32)?;
    Some(Instruction::Texture(Box::new(TextureInstruction::SurfaceLoad {
        geometry,
        bits,
        lanes,
        boundary,
        destinations,
        handle,
        coordinates,
    })))
}

/// `sust.b.geom{.cop}.vec.ctype.clamp [a, b], c` and `sust.p.geom.vec.b32.clamp [a, b], c`.
pub fn sust(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let (formatted, geometry, bits, lanes, boundary) = surface_modifiers(context, modifiers)?;
    if formatted && geometry.is_array() {
        return invalid(
            context,
            instruction.opcode.span,
            "`sust.p` has no array geometries".to_string(),
            "use `.1d`, `.2d` or `.3d`",
        );
    }
    context.expect_operand_count(instruction, 2)?;
    let lookup = lookup(context, &instruction.operands[0], "sust", false)?;
    let handle = handle(context, lookup.handle)?;
    let coordinates = coordinates(context, lookup.coordinates, geometry, ScalarType::B32)?;
    let ty = surface_element_type(bits);
    let sources = if lanes == 1 && !matches!(instruction.operands[1].kind, OperandKind::Vector(_)) {
        vec![context.source(&instruction.operands[1], ty, SizeRule::AllowWider)?]
    } else {
        context.source_list(&instruction.operands[1], ty, lanes, SizeRule::AllowWider)?
    };
    Some(Instruction::Texture(Box::new(TextureInstruction::SurfaceStore {
        geometry,
        formatted,
        bits,
        lanes,
        boundary,
        handle,
        coordinates,
        sources,
    })))
}

/// `sured.b.op.geom.ctype.clamp [a, b], c` and `sured.p.op.geom.b32.clamp [a, b], c`
/// (`.1d`, `.2d`, `.3d`; ptxas has no array forms).
pub fn sured(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let formatted = modifiers.flag("p");
    if !formatted && !modifiers.flag("b") {
        return invalid(context, modifiers.end_span(), "`sured` needs `.b` or `.p`".to_string(), "expected `.b`");
    }
    let Some(operation) = modifiers.take(SurfaceReduction::from_ptx) else {
        return invalid(
            context,
            modifiers.end_span(),
            "`sured` needs an operation".to_string(),
            "expected `.add`, `.min`, `.max`, `.and` or `.or`",
        );
    };
    let geometry = surface_geometry(context, modifiers)?;
    if geometry.is_array() {
        return invalid(
            context,
            instruction.opcode.span,
            format!("`sured` has no `{geometry}` geometry"),
            "use `.1d`, `.2d` or `.3d`",
        );
    }
    let ty = modifiers.required_type(context)?;
    let allowed: &[ScalarType] = if formatted { &[ScalarType::B32] } else { operation.node.byte_types() };
    if !allowed.contains(&ty.node) {
        let names: Vec<String> = allowed.iter().map(|ty| format!("`{ty}`")).collect();
        let names = match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        let form = if formatted { "sured.p" } else { "sured.b" };
        return invalid(
            context,
            ty.span,
            format!("`{form}{}` reduces {names}", operation.node),
            format!("`{}` is not one of them", ty.node),
        );
    }
    let boundary = modifiers
        .take(|name| match name {
            "trap" => Some(SurfaceBoundary::Trap),
            "clamp" => Some(SurfaceBoundary::Clamp),
            "zero" => Some(SurfaceBoundary::Zero),
            _ => None,
        })
        .map_or(SurfaceBoundary::Trap, |boundary| boundary.node);
    context.expect_operand_count(instruction, 2)?;
    let lookup = lookup(context, &instruction.operands[0], "sured", false)?;
    let handle = handle(context, lookup.handle)?;
    let coordinates = coordinates(context, lookup.coordinates, geometry, ScalarType::B32)?;
    let source = context.source(&instruction.operands[1], ty.node, SizeRule::AllowWider)?;
    Some(Instruction::Texture(Box::new(TextureInstruction::SurfaceReduce {
        geometry,
        formatted,
        operation: operation.node,
        ty: ty.node,
        boundary,
        handle,
        coordinates,
        source,
    })))
}
