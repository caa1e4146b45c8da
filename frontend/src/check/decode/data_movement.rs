//! `mov`, `ld`, `ldu`, `st`, `cvta` and `cvt` (ISA 7.8 sections 9.7.8 and 9.7.9).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{AddressConversion, Instruction, MemoryOrdering, MemoryScope, OrderedAccess, RoundingMode};
use crate::span::{Span, Spanned};
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarType, SpecialRegister, StateSpace};

use super::modifiers::sketch_of;
use super::{accept_unlowered, vector, vector_width, Context, Modifiers};

/// `.L2::64B`, `.L2::128B` and `.L2::256B` (section 9.7.8.8) widen the L2 fetch of a load from
/// global memory: ptxas 12.9 refuses them on `st` and `ldu` ('Illegal modifier '.L2::128B' for
/// instruction 'st'') and on loads from other state spaces ('State space incorrect for feature
/// 'cache prefetching''), while generic addresses may be global.
fn check_prefetch_size(context: &mut Context, modifiers: &mut Modifiers, state_space: StateSpace) -> Option<()> {
    let opcode = modifiers.opcode();
    let sizes = ["L2::64B", "L2::128B", "L2::256B"];
    let Some(size) = modifiers.take(|name| sizes.into_iter().find(|size| *size == name)) else {
        return Some(());
    };
    let label = if opcode != "ld" {
        format!("only `ld` prefetches, not `{opcode}`")
    } else if matches!(state_space, StateSpace::Global | StateSpace::Generic) {
        return Some(());
    } else {
        format!("only loads from `.global` or generic addresses prefetch, not from `{state_space}`")
    };
    context.report(
        Diagnostic::error(Code::InvalidModifier, format!("`.{}` is not defined here", size.node))
            .with_primary(size.span, label),
    );
    None
}

const CACHE_PRIORITIES: [&str; 6] = [
    "L1::evict_normal",
    "L1::evict_unchanged",
    "L1::evict_first",
    "L1::evict_last",
    "L1::no_allocate",
    "L2::cache_hint",
];
const LEVEL_TWO_PRIORITIES: [&str; 4] =
    ["L2::evict_normal", "L2::evict_unchanged", "L2::evict_first", "L2::evict_last"];

/// The L1 eviction priorities (`.L1::evict_*`, `.L1::no_allocate`) and `.L2::cache_hint` of
/// `ld`/`st` (sections 9.7.8.8, 9.7.8.9) are for `.global` and generic addresses only, and an
/// L1 priority replaces the cache operator: ptxas 12.9 refuses the priority beside `.ca` ...
/// `.wt` or `.volatile` ("Modifier '.evict_first' cannot be combined with modifier '.cs'") and on
/// other state spaces ("cannot be applied to '.shared' space"); `.nc` and an ordering may stay.
fn check_cache_priority(context: &mut Context, instruction: &ast::Instruction, state_space: StateSpace) -> Option<()> {
    let opcode = instruction.opcode.node.as_str();
    let mut priorities = instruction.modifiers.iter().filter(|modifier| {
        let name = modifier.node.as_str();
        name.starts_with("L1::") || name == "L2::cache_hint"
    });
    let Some(priority) = priorities.next() else { return Some(()) };
    if !matches!(state_space, StateSpace::Global | StateSpace::Generic) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`.{}` does not apply to `{state_space}`", priority.node))
                .with_primary(priority.span, format!("a cache priority on a `{state_space}` access"))
                .with_note(format!("`{opcode}` takes cache priorities on `.global` and generic addresses only")),
        );
        return None;
    }
    let Some(level_one) = instruction.modifiers.iter().find(|modifier| modifier.node.starts_with("L1::")) else {
        return Some(());
    };
    let operators = ["ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile"];
    let Some(operator) = instruction.modifiers.iter().find(|modifier| operators.contains(&modifier.node.as_str()))
    else {
        return Some(());
    };
    context.report(
        Diagnostic::error(
            Code::InvalidModifier,
            format!("`.{}` cannot be combined with `.{}`", level_one.node, operator.node),
        )
        .with_primary(level_one.span, "an L1 eviction priority")
        .with_secondary(operator.span, "a cache operator beside it")
        .with_note("an L1 eviction priority takes the place of the cache operator"),
    );
    None
}

/// `.L2::evict_*` on `ld`/`st` (ISA 8.8) sets the L2 eviction priority of a 256-bit access only:
/// ptxas 12.9: "Instruction 'ld' requires '.v8.b32/.v4.b64' type with '.L2::evict_first' modifier".
fn check_level_two_priority(
    context: &mut Context,
    instruction: &ast::Instruction,
    ty: ScalarType,
    lanes: Option<u32>,
) -> Option<()> {
    let Some(priority) = instruction.modifiers.iter().find(|modifier| modifier.node.starts_with("L2::evict_")) else {
        return Some(());
    };
    if lanes.is_some_and(|lanes| lanes * ty.bits() == 256) {
        return Some(());
    }
    context.report(
        Diagnostic::error(
            Code::InvalidModifier,
            format!("`.{}` on `{}` needs a 256-bit access", priority.node, instruction.opcode.node),
        )
        .with_primary(priority.span, "an L2 eviction priority")
        .with_help("use `.v8` of a 32-bit type or `.v4` of a 64-bit type"),
    );
    None
}

/// Cache and eviction hints of `ld`/`st`: they never change a result, so they are dropped.
fn is_cache_hint(modifier: &str) -> bool {
    matches!(modifier, "ca" | "cg" | "cs" | "lu" | "cv" | "wb" | "wt" | "nc" | "weak")
        || modifier.starts_with("L1::")
        || modifier.starts_with("L2::")
}

pub fn mov(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let lanes = modifiers.take_sketched(vector::LANES, vector::lanes_of_modifier);
    let ty = modifiers.required_type(context)?;
    context.expect_operand_count(instruction, 2)?;
    let (destination, source) = (&instruction.operands[0], &instruction.operands[1]);
    if let Some(lanes) = lanes {
        // `mov.vN.type`: element by element.
        vector_width::check(context, "mov", None, &ty, lanes.node, lanes.span)?;
        let destinations = context.destination_list(destination, ty.node, lanes.node, SizeRule::Exact, false)?;
        let sources = context.source_list(source, ty.node, lanes.node, SizeRule::AllowWider)?;
        let destinations = destinations.into_iter().flatten().collect();
        return Some(Instruction::MoveVector { ty: ty.node, destinations, sources });
    }
    let packed_destination = packed_lanes(context, destination);
    let packed_source = packed_lanes(context, source);
    match (packed_destination, packed_source) {
        (None, None) => {
            // Section 5.2.2 lets only `ld`, `st` and `cvt` take wider registers: ptxas rejects
            // `mov.b32 %r1, %rd1`. Special registers are the exception: ISA 1.x compilers wrote
            // `mov.u16 %rh1, %ctaid.x` from when they were 16 bits wide, and ptxas still reads it.
            let rule = match &source.kind {
                OperandKind::Name { name, .. } if SpecialRegister::is_reserved_name(name) => SizeRule::AllowWider,
                _ => SizeRule::Exact,
            };
            let destination = context.destination(destination, ty.node, SizeRule::Exact)?;
            let source = context.source(source, ty.node, rule)?;
            Some(Instruction::Move { ty: ty.node, destination, source })
        }
        (None, Some(count)) => {
            let element = packed_element_type(context, &ty, count, source.span)?;
            let destination = context.destination(destination, ty.node, SizeRule::Exact)?;
            let sources = context.source_list(source, element, count, SizeRule::AllowWider)?;
            Some(Instruction::Pack { ty: ty.node, destination, sources })
        }
        (Some(count), None) => {
            let element = packed_element_type(context, &ty, count, destination.span)?;
            let destinations = context.destination_list(destination, element, count, SizeRule::AllowWider, true)?;
            let source = context.source(source, ty.node, SizeRule::AllowWider)?;
            Some(Instruction::Unpack { ty: ty.node, destinations, source })
        }
        (Some(_), Some(_)) => {
            context.report(
                Diagnostic::error(Code::OperandKind, "`mov` between two vectors needs a `.vN` modifier")
                    .with_primary(instruction.span, "both operands are vectors")
                    .with_help("write `mov.v2.type {..}, {..}` to copy element by element"),
            );
            None
        }
    }
}

/// How many elements an operand of a packing `mov` has: a `{..}` list or a whole `.vN` register.
fn packed_lanes(context: &mut Context, operand: &ast::Operand) -> Option<u32> {
    match &operand.kind {
        ast::OperandKind::Vector(items) => Some(items.len() as u32),
        _ => context.whole_vector_register(operand).map(|(_, lanes)| lanes),
    }
}

/// The element type of `mov.bN` packing or unpacking `count` elements (ISA 7.8 section 9.7.8.1):
/// `.b16`, `.b32`, `.b64` or `.b128` split into 2 or 4 equal parts of 8 bits or more.
fn packed_element_type(
    context: &mut Context,
    ty: &crate::span::Spanned<ScalarType>,
    count: u32,
    span: crate::span::Span,
) -> Option<ScalarType> {
    let element = match (ty.node, count) {
        (ScalarType::B16 | ScalarType::B32 | ScalarType::B64 | ScalarType::B128, 2 | 4) => {
            bit_type(ty.node.bits() / count)
        }
        _ => None,
    };
    if element.is_none() {
        context.report(
            Diagnostic::error(
                Code::OperandKind,
                format!("`mov.{}` cannot pack or unpack {count} elements", ty.node.as_ptx().trim_start_matches('.')),
            )
            .with_primary(span, format!("{count} elements"))
            .with_note("packing `mov` takes `.b16`, `.b32`, `.b64` or `.b128` and 2 or 4 elements of at least 8 bits"),
        );
    }
    element
}

fn bit_type(bits: u32) -> Option<ScalarType> {
    Some(match bits {
        8 => ScalarType::B8,
        16 => ScalarType::B16,
        32 => ScalarType::B32,
        64 => ScalarType::B64,
        _ => return None,
    })
}

/// The state space of `ld`/`st`: `.param` in a kernel, `.global`..., or generic when absent.
fn memory_space(context: &mut Context, modifiers: &mut Modifiers) -> Option<StateSpace> {
    let Some(space) = modifiers.state_space() else { return Some(StateSpace::Generic) };
    match space.node {
        StateSpace::Global | StateSpace::Shared | StateSpace::Local | StateSpace::Const | StateSpace::Param => {
            Some(space.node)
        }
        other => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` cannot load or store {other}", modifiers.opcode()),
                )
                .with_primary(space.span, "not a memory state space"),
            );
            None
        }
    }
}

/// Memory-consistency qualifiers: `.volatile`, or `.relaxed`/`.acquire` (loads) or `.release`
/// (stores) with a scope (`.gpu` when none is written), which make an atomic access. `.weak` is
/// the default; `.mmio` is volatile as well.
fn memory_order(
    context: &mut Context,
    modifiers: &mut Modifiers,
    is_load: bool,
) -> Option<(bool, Option<OrderedAccess>)> {
    let mut volatile = modifiers.flag("volatile");
    volatile |= modifiers.flag("mmio");
    const ORDERINGS: u64 = sketch_of(&MemoryOrdering::NAMES);
    const SCOPES: u64 = sketch_of(&MemoryScope::NAMES);
    let ordering = modifiers.take_sketched(ORDERINGS, MemoryOrdering::from_ptx);
    let scope = modifiers.take_sketched(SCOPES, MemoryScope::from_ptx);
    if let (true, Some(ordering)) = (volatile, &ordering) {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`{}.volatile` cannot also take a memory ordering", modifiers.opcode()),
            )
            .with_primary(ordering.span, "an ordering beside `.volatile`")
            .with_note("section 8.4: `.volatile` already means `.relaxed.sys` for ordinary memory"),
        );
        return None;
    }
    let Some(ordering) = ordering else {
        if let Some(scope) = scope {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("a scope on `{}` needs `.relaxed`, `.acquire` or `.release`", modifiers.opcode()),
                )
                .with_primary(scope.span, "scope without an ordering"),
            );
            return None;
        }
        return Some((volatile, None));
    };
    let allowed = match ordering.node {
        MemoryOrdering::Relaxed => true,
        MemoryOrdering::Acquire => is_load,
        MemoryOrdering::Release => !is_load,
        MemoryOrdering::AcquireRelease | MemoryOrdering::SequentiallyConsistent => false,
    };
    if !allowed {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{}` does not take this ordering", modifiers.opcode()))
                .with_primary(ordering.span, "invalid ordering")
                .with_note("loads are `.relaxed` or `.acquire`; stores are `.relaxed` or `.release`"),
        );
        return None;
    }
    let Some(scope) = scope else {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`{}` with a memory ordering needs a scope", modifiers.opcode()),
            )
            .with_primary(ordering.span, "an ordering without `.cta`, `.cluster`, `.gpu` or `.sys`")
            .with_note("section 9.7.8.8: `ld.relaxed.scope`, `ld.acquire.scope`, `st.release.scope`"),
        );
        return None;
    };
    Some((volatile, Some(OrderedAccess { ordering: ordering.node, scope: scope.node })))
}

/// Section 9.7.8.8 and 9.7.8.9: loads take the cache operators `.ca`, `.cg`, `.cs`, `.lu`, `.cv`
/// (and `.nc` for `ld.global`), stores `.wb`, `.cg`, `.cs`, `.wt`; ptxas rejects the others
/// ("Illegal modifier"). `.volatile` applies to `.global`, `.shared` and generic addresses only
/// (ptxas: "'.volatile' cannot be applied to '.local' space").
fn check_cache_operator_and_volatile(
    context: &mut Context,
    modifiers: &Modifiers,
    instruction: &ast::Instruction,
    state_space: StateSpace,
    is_load: bool,
) -> Option<()> {
    let wrong: &[&str] = if is_load { &["wb", "wt"] } else { &["ca", "lu", "cv", "nc"] };
    // Nearly every load and store has neither a wrong cache operator nor `.volatile`: the
    // modifiers' sketch says so without comparing each modifier with each name.
    if !wrong.iter().any(|name| modifiers.may_have(name)) && !modifiers.may_have("volatile") {
        return Some(());
    }
    let opcode = instruction.opcode.node.as_str();
    if let Some(modifier) = instruction.modifiers.iter().find(|modifier| wrong.contains(&modifier.node.as_str())) {
        let allowed = if is_load { "`.ca`, `.cg`, `.cs`, `.lu` and `.cv`" } else { "`.wb`, `.cg`, `.cs` and `.wt`" };
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`{opcode}` does not take the cache operator `.{}`", modifier.node),
            )
            .with_primary(modifier.span, "not a cache operator of this instruction")
            .with_note(format!("section 9.7.8.8, 9.7.8.9: `{opcode}` takes {allowed}")),
        );
        return None;
    }
    let volatile = instruction.modifiers.iter().find(|modifier| modifier.node == "volatile");
    if let Some(volatile) = volatile {
        if !matches!(state_space, StateSpace::Global | StateSpace::Shared | StateSpace::Generic) {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`.volatile` does not apply to `{state_space}`"))
                    .with_primary(volatile.span, format!("`.volatile` on a `{state_space}` access"))
                    .with_note("`.volatile` orders accesses to `.global` and `.shared` memory, and generic ones"),
            );
            return None;
        }
    }
    Some(())
}

/// With `.L2::cache_hint`, a third operand holds a `createpolicy` result; ptxr checks it and
/// drops the hint.
fn cache_policy(context: &mut Context, instruction: &ast::Instruction, cache_hint: bool) -> Option<()> {
    context.expect_operand_count(instruction, if cache_hint { 3 } else { 2 })?;
    if cache_hint {
        context.source(&instruction.operands[2], ScalarType::B64, SizeRule::Exact)?;
    }
    Some(())
}

pub fn load(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let state_space = memory_space(context, modifiers)?;
    check_cache_operator_and_volatile(context, modifiers, instruction, state_space, true)?;
    let (volatile, ordered) = memory_order(context, modifiers, true)?;
    check_prefetch_size(context, modifiers, state_space)?;
    // Nearly every load and store has no priority: the modifiers' sketch says so.
    if CACHE_PRIORITIES.iter().any(|name| modifiers.may_have(name)) {
        check_cache_priority(context, instruction, state_space)?;
    }
    let cache_hint = modifiers.flag("L2::cache_hint");
    modifiers.drop_all(is_cache_hint);
    let lanes = modifiers.take_sketched(vector::LANES, vector::lanes_of_modifier);
    let ty = modifiers.required_type(context)?;
    if LEVEL_TWO_PRIORITIES.iter().any(|name| modifiers.may_have(name)) {
        check_level_two_priority(context, instruction, ty.node, lanes.as_ref().map(|lanes| lanes.node))?;
    }
    memory_access_type(context, modifiers.opcode(), &ty)?;
    cache_policy(context, instruction, cache_hint)?;
    if let Some(lanes) = lanes {
        // `ldu` has no 256-bit form.
        let memory = (modifiers.opcode() == "ld").then_some(state_space);
        vector_width::check(context, modifiers.opcode(), memory, &ty, lanes.node, lanes.span)?;
        let destinations =
            context.destination_list(&instruction.operands[0], ty.node, lanes.node, SizeRule::AllowWider, true)?;
        let address = context.address(&instruction.operands[1])?;
        context.check_address_space(&address, state_space, modifiers.opcode())?;
        return Some(Instruction::LoadVector { state_space, ty: ty.node, volatile, ordered, destinations, address });
    }
    let destination = context.destination(scalar_of(&instruction.operands[0]), ty.node, SizeRule::AllowWider)?;
    let address = context.address(&instruction.operands[1])?;
    context.check_address_space(&address, state_space, modifiers.opcode())?;
    Some(Instruction::Load { state_space, ty: ty.node, volatile, ordered, destination, address })
}

pub fn store(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let state_space = memory_space(context, modifiers)?;
    check_cache_operator_and_volatile(context, modifiers, instruction, state_space, false)?;
    let (volatile, ordered) = memory_order(context, modifiers, false)?;
    check_prefetch_size(context, modifiers, state_space)?;
    // Nearly every load and store has no priority: the modifiers' sketch says so.
    if CACHE_PRIORITIES.iter().any(|name| modifiers.may_have(name)) {
        check_cache_priority(context, instruction, state_space)?;
    }
    let cache_hint = modifiers.flag("L2::cache_hint");
    modifiers.drop_all(is_cache_hint);
    let lanes = modifiers.take_sketched(vector::LANES, vector::lanes_of_modifier);
    let ty = modifiers.required_type(context)?;
    if LEVEL_TWO_PRIORITIES.iter().any(|name| modifiers.may_have(name)) {
        check_level_two_priority(context, instruction, ty.node, lanes.as_ref().map(|lanes| lanes.node))?;
    }
    memory_access_type(context, "st", &ty)?;
    cache_policy(context, instruction, cache_hint)?;
    if state_space == StateSpace::Const {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`st` cannot write the `.const` state space")
                .with_primary(instruction.opcode.span, "constant memory is read-only"),
        );
        return None;
    }
    let address = context.address(&instruction.operands[0])?;
    context.check_address_space(&address, state_space, modifiers.opcode())?;
    if let Some(lanes) = lanes {
        vector_width::check(context, "st", Some(state_space), &ty, lanes.node, lanes.span)?;
        let sources = context.source_list(&instruction.operands[1], ty.node, lanes.node, SizeRule::AllowWider)?;
        return Some(Instruction::StoreVector { state_space, ty: ty.node, volatile, ordered, address, sources });
    }
    let source = context.source(scalar_of(&instruction.operands[1]), ty.node, SizeRule::AllowWider)?;
    Some(Instruction::Store { state_space, ty: ty.node, volatile, ordered, address, source })
}

/// `ld`, `ldu` and `st` move bits and integers: their `.type` (ISA 7.8 sections 9.7.8.8 to
/// 9.7.8.11) lists `.b`, `.u` and `.s` types and `.f32`/`.f64` only. ptxas 12.9 refuses the
/// half-precision types there ("Unexpected instruction types specified for 'ld'"); their bits
/// move as `.b16` (`.b32` for a pair).
fn memory_access_type(context: &mut Context, opcode: &str, ty: &Spanned<ScalarType>) -> Option<()> {
    let bits = match ty.node {
        ScalarType::F16 | ScalarType::Bf16 => "b16",
        ScalarType::F16x2 | ScalarType::Bf16x2 => "b32",
        _ => return Some(()),
    };
    context.report(
        Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` does not take type `{}`", ty.node))
            .with_primary(ty.span, "expected a `.b`, `.u` or `.s` type, `.f32` or `.f64`")
            .with_help(format!("move the value's bits as `.{bits}`")),
    );
    None
}

/// Triton writes scalar loads and stores with a one-element list, `ld.global.b32 { %r1 }, [a];`,
/// which ptxas reads as the plain register.
fn scalar_of(operand: &ast::Operand) -> &ast::Operand {
    match &operand.kind {
        ast::OperandKind::Vector(items) if items.len() == 1 => &items[0],
        _ => operand,
    }
}

pub fn cvta(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let direction = if modifiers.flag("to") { AddressConversion::FromGeneric } else { AddressConversion::ToGeneric };
    let shared_cluster = modifiers.take_flag("shared::cluster");
    let space = match &shared_cluster {
        Some(modifier) => Some(Spanned { node: StateSpace::Shared, span: modifier.span }),
        None => modifiers.state_space(),
    };
    let Some(space) = space else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`cvta` needs a state space")
                .with_primary(modifiers.end_span(), "expected `.global`, `.shared`, `.local`, `.const` or `.param`"),
        );
        return None;
    };
    if !matches!(
        space.node,
        StateSpace::Global | StateSpace::Shared | StateSpace::Local | StateSpace::Const | StateSpace::Param
    ) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`cvta` does not convert {} addresses", space.node))
                .with_primary(space.span, "not an addressable state space"),
        );
        return None;
    }
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::U32 | ScalarType::U64) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`cvta` takes `.u32` or `.u64`, not `{}`", ty.node))
                .with_primary(ty.span, "invalid size"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let source = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    if direction == AddressConversion::ToGeneric && shared_cluster.is_none() {
        // `cvta.shared` of a `.global` variable's address: ptxas reports a state space mismatch.
        context.check_value_space(&source, space.node, "cvta")?;
    }
    Some(Instruction::ConvertAddress {
        direction,
        state_space: space.node,
        shared_cluster: shared_cluster.is_some(),
        size_bits: ty.node.bits(),
        destination,
        source,
    })
}

pub fn cvt(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    // The decoders' own diagnostics come first; the modifier rules then catch what they let by.
    let decoded = decode_cvt(context, modifiers, instruction)?;
    if !super::conversion_modifiers::check(context, instruction) {
        return None;
    }
    Some(decoded)
}

fn decode_cvt(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if instruction.modifiers.iter().any(|modifier| modifier.node == "pack") {
        return super::bit_manipulation::convert_pack(context, modifiers, instruction);
    }
    if instruction.modifiers.iter().any(|modifier| modifier.node == "tf32") {
        return super::tf32::cvt(context, modifiers, instruction);
    }
    if super::half::is_half_conversion(instruction) {
        return super::half::cvt(context, modifiers, instruction);
    }
    // Packing conversions (`cvt.rn.f16x2.f32 d, a, b`), `.relu`, `.satfinite` and the 8-bit
    // float formats (`.e4m3x2`) are valid PTX that is not decoded yet.
    let packed_or_exotic = instruction.operands.len() != 2
        || instruction.modifiers.iter().any(|modifier| {
            matches!(modifier.node.as_str(), "relu" | "satfinite" | "f16x2" | "bf16x2" | "tf32" | "pack")
                || modifier.node.starts_with('e') && modifier.node.ends_with("x2")
                || modifier.node.starts_with("ue")
        });
    if packed_or_exotic {
        return accept_unlowered(context, modifiers, instruction);
    }
    let rounding = modifiers.take(RoundingMode::from_ptx);
    let flush_subnormals = modifiers.flag("ftz");
    let saturate = modifiers.flag("sat");
    let destination_type = modifiers.required_type(context)?.node;
    let source_type = modifiers.required_type(context)?.node;
    if destination_type == ScalarType::Pred || source_type == ScalarType::Pred {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`cvt` does not convert predicates")
                .with_primary(instruction.opcode.span, "use `selp` or `setp`"),
        );
        return None;
    }
    if let Some(rounding) = &rounding {
        let float_to_float = destination_type.is_float() && source_type.is_float();
        let integral_allowed = float_to_float || (source_type.is_float() && !destination_type.is_float());
        if !rounding.node.is_integral() && source_type.is_float() && !destination_type.is_float() {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("a float-to-integer `cvt` rounds to an integer, not with `{}`", rounding.node),
                )
                .with_primary(rounding.span, "invalid rounding modifier here")
                .with_help("use `.rni`, `.rzi`, `.rmi` or `.rpi` (section 9.7.8.18)"),
            );
            return None;
        }
        let narrowing = float_to_float && destination_type.bits() < source_type.bits();
        if rounding.node.is_integral() && narrowing {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` rounds to an integral value, which a narrowing conversion cannot keep", rounding.node),
                )
                .with_primary(rounding.span, "invalid rounding modifier here")
                .with_help("integral rounding is for float-to-integer and same-size float conversions; use `.rn`, `.rz`, `.rm` or `.rp`"),
            );
            return None;
        }
        if rounding.node.is_integral() && !integral_allowed {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` rounds to an integral value and needs a float source", rounding.node),
                )
                .with_primary(rounding.span, "invalid rounding modifier here"),
            );
            return None;
        }
        check_exact_float_rounding(context, rounding, destination_type, source_type)?;
    } else {
        report_missing_rounding(context, instruction, destination_type, source_type)?;
    }
    context.expect_operand_count(instruction, 2)?;
    let destination = context.destination(&instruction.operands[0], destination_type, SizeRule::AllowWider)?;
    let source = context.source(&instruction.operands[1], source_type, SizeRule::AllowWider)?;
    Some(Instruction::Convert {
        destination_type,
        source_type,
        rounding: rounding.map(|rounding| rounding.node),
        flush_subnormals,
        saturate,
        destination,
        source,
    })
}

/// Section 9.7.8.18: "floating-point rounding is illegal in all other instances" than the
/// conversions that lose precision: a float converted to its own type takes only an integral
/// rounding (`.rni`...), and one widened to a larger IEEE type takes none (ptxas: "Illegal
/// rounding modifier for instruction 'cvt'"). ptxas accepts `cvt.rn.f32.bf16`, so `.bf16`
/// sources are left alone.
pub(super) fn check_exact_float_rounding(
    context: &mut Context,
    rounding: &Spanned<RoundingMode>,
    destination_type: ScalarType,
    source_type: ScalarType,
) -> Option<()> {
    if !destination_type.is_float() || !source_type.is_float() || source_type == ScalarType::Bf16 {
        return Some(());
    }
    let (message, help) = if destination_type == source_type && !rounding.node.is_integral() {
        (
            format!("`cvt{destination_type}{source_type}` cannot round with `{}`", rounding.node),
            "leave it out, or round to an integral value with `.rni`, `.rzi`, `.rmi` or `.rpi`",
        )
    } else if destination_type.bits() > source_type.bits() {
        (
            format!("`cvt{destination_type}{source_type}` widens exactly and takes no rounding modifier"),
            "leave the rounding modifier out",
        )
    } else {
        return Some(());
    };
    context.report(
        Diagnostic::error(Code::InvalidModifier, message)
            .with_primary(rounding.span, "invalid rounding modifier here")
            .with_note("section 9.7.8.18: floating-point rounding is only for conversions that lose precision")
            .with_help(help),
    );
    None
}

/// Section 9.7.8.18: a rounding modifier is required for every float-to-integer conversion
/// (an integer rounding, `.rni`, `.rzi`, `.rmi` or `.rpi`), every integer-to-float conversion
/// and every float-to-float conversion to a narrower type (a float rounding, `.rn`, `.rz`,
/// `.rm` or `.rp`). Returns `None` after reporting its absence.
fn report_missing_rounding(
    context: &mut Context,
    instruction: &ast::Instruction,
    destination_type: ScalarType,
    source_type: ScalarType,
) -> Option<()> {
    const FLOAT_ROUNDING: &str = "`.rn`, `.rz`, `.rm` or `.rp`";
    let (kind, choices, example) = match (source_type.is_float(), destination_type.is_float()) {
        (true, false) => ("a float-to-integer", "`.rni`, `.rzi`, `.rmi` or `.rpi`", ".rzi"),
        (false, true) => ("an integer-to-float", FLOAT_ROUNDING, ".rn"),
        (true, true) if destination_type.bits() < source_type.bits() => ("a narrowing float", FLOAT_ROUNDING, ".rn"),
        _ => return Some(()),
    };
    context.report(
        Diagnostic::error(
            Code::InvalidModifier,
            format!("`cvt{destination_type}{source_type}` needs a rounding modifier"),
        )
        .with_primary(
            Span {
                start: instruction.opcode.span.start,
                end: instruction.modifiers.last().map_or(instruction.opcode.span.end, |modifier| modifier.span.end),
            },
            format!("{kind} conversion must say how it rounds"),
        )
        .with_help(format!("add one of {choices}, for example `cvt{example}{destination_type}{source_type}`")),
    );
    None
}
