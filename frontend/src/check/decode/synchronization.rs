//! `atom`, `red`, `membar`/`fence`, `bar`/`barrier` and the warp collectives `shfl`, `vote`,
//! `match`, `redux`, `activemask` and `bar.warp.sync` (ISA 7.8 sections 9.7.12 and 9.7.13).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{
    AtomicOperation, BarrierOperation, Destination, Instruction, MemoryOrdering, MemoryScope, Operand, ProxyKind,
    ReduxOperation, ShuffleInstruction, ShuffleMode, VoteMode,
};
use crate::span::Spanned;
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarKind, ScalarType, StateSpace};

use super::comparison::predicate_operand;
use super::{accept_unlowered, vector, Context, Modifiers};

/// Cache and eviction hints never change what an instruction computes.
fn is_cache_hint(name: &str) -> bool {
    name.starts_with("L1::") || name.starts_with("L2::") || name == "level::cache_hint"
}

fn invalid_type(context: &mut Context, opcode: &str, ty: Spanned<ScalarType>, expected: &str) -> Option<Instruction> {
    context.report(
        Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` is not defined on `{}`", ty.node))
            .with_primary(ty.span, format!("expected {expected}")),
    );
    None
}

/// The types each atomic operation accepts (ISA 7.8 section 9.7.12.3).
fn atomic_type_is_valid(operation: AtomicOperation, ty: ScalarType) -> bool {
    use ScalarType::*;
    match operation {
        AtomicOperation::And | AtomicOperation::Or | AtomicOperation::Xor => matches!(ty, B32 | B64),
        AtomicOperation::CompareAndSwap => matches!(ty, B16 | B32 | B64 | B128),
        AtomicOperation::Exchange => matches!(ty, B32 | B64 | B128),
        AtomicOperation::Add => matches!(ty, U32 | S32 | U64 | F32 | F64 | F16 | F16x2 | Bf16 | Bf16x2),
        AtomicOperation::Increment | AtomicOperation::Decrement => matches!(ty, U32),
        AtomicOperation::Minimum | AtomicOperation::Maximum => matches!(ty, U32 | S32 | U64 | S64),
    }
}

/// The operation and type of a scalar `atom`/`red` (ISA 7.8 section 9.7.12.5), and `.noftz` on
/// the half types' `.add` (ptxas 12.9: "'.noftz' modifier required for instruction 'atom' with
/// type '.f16'").
fn check_atomic_type(
    context: &mut Context,
    opcode: &str,
    instruction: &ast::Instruction,
    operation: Spanned<AtomicOperation>,
    ty: Spanned<ScalarType>,
    no_flush: bool,
) -> Option<()> {
    let spelling = instruction
        .modifiers
        .iter()
        .find(|modifier| modifier.span == operation.span)
        .map_or("", |modifier| modifier.node.as_str());
    if !atomic_type_is_valid(operation.node, ty.node) {
        invalid_type(context, &format!("{opcode}.{spelling}"), ty, "a type this operation accepts");
        return None;
    }
    if !no_flush && matches!(ty.node, ScalarType::F16 | ScalarType::F16x2 | ScalarType::Bf16 | ScalarType::Bf16x2) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{opcode}.{spelling}` on `{}` needs `.noftz`", ty.node))
                .with_primary(ty.span, "a half-precision type")
                .with_help(format!("write `{opcode}.{spelling}.noftz{}`", ty.node)),
        );
        return None;
    }
    Some(())
}

/// `atom`/`red` on `.shared::cluster`, accepted without decoding: the operation and type of a
/// scalar form are checked as for the other state spaces.
fn check_cluster_atomic(context: &mut Context, opcode: &str, instruction: &ast::Instruction) -> Option<()> {
    let modifiers = &instruction.modifiers;
    if modifiers.iter().any(|modifier| vector::lanes_of_modifier(&modifier.node).is_some()) {
        return Some(());
    }
    let operation = modifiers.iter().find_map(|modifier| {
        AtomicOperation::from_ptx(&modifier.node).map(|operation| Spanned::new(operation, modifier.span))
    });
    let ty = modifiers
        .iter()
        .find_map(|modifier| ScalarType::from_ptx(&modifier.node).map(|ty| Spanned::new(ty, modifier.span)));
    let (Some(operation), Some(ty)) = (operation, ty) else { return Some(()) };
    let no_flush = modifiers.iter().any(|modifier| modifier.node == "noftz");
    check_atomic_type(context, opcode, instruction, operation, ty, no_flush)
}

/// `atom` and `red`: `atom.sem.scope.space.op.type d, [a], b{, c}{, policy}`.
pub fn atomic(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let reduction = modifiers.opcode() == "red";
    // Before anything that accepts a form without decoding it (`.shared::cluster`), so that no
    // `red.cas`/`red.exch` slips through.
    if reduction {
        if let Some(operation) = compare_and_swap_or_exchange(instruction) {
            return reduction_without_result(context, operation);
        }
    }
    if modifiers.flag("shared::cluster") {
        // Cluster shared memory is valid but not decoded yet.
        check_cluster_atomic(context, modifiers.opcode(), instruction)?;
        return accept_unlowered(context, modifiers, instruction);
    }
    if let Some(lanes) = modifiers.take(vector::lanes_of_modifier) {
        return vector_atomic(context, modifiers, instruction, lanes);
    }
    let ordering = modifiers.take(MemoryOrdering::from_ptx).map_or(MemoryOrdering::Relaxed, |ordering| ordering.node);
    let scope = modifiers.take(MemoryScope::from_ptx).map_or(MemoryScope::Gpu, |scope| scope.node);
    let state_space = match modifiers.state_space() {
        Some(space) if matches!(space.node, StateSpace::Global | StateSpace::Shared) => space.node,
        Some(space) => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` does not access `{}`", modifiers.opcode(), space.node),
                )
                .with_primary(space.span, "expected `.global`, `.shared` or no state space (generic)"),
            );
            return None;
        }
        None => StateSpace::Generic,
    };
    let Some(operation) = modifiers.take(AtomicOperation::from_ptx) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{}` needs an operation", modifiers.opcode()))
                .with_primary(
                    modifiers.end_span(),
                    "expected `.add`, `.cas`, `.exch`, `.min`, `.max`, `.inc`, `.dec`, `.and`, ...",
                ),
        );
        return None;
    };
    // `.noftz` keeps f16 subnormals, which is what ptxr does anyway.
    let no_flush = modifiers.flag("noftz");
    modifiers.drop_all(is_cache_hint);
    let ty = modifiers.required_type(context)?;
    check_atomic_type(context, modifiers.opcode(), instruction, operation.clone(), ty.clone(), no_flush)?;
    let compare_and_swap = operation.node == AtomicOperation::CompareAndSwap;
    let fixed = usize::from(!reduction) + 2 + usize::from(compare_and_swap);
    // A trailing cache policy operand is a hint.
    let count = instruction.operands.len();
    if count != fixed && count != fixed + 1 {
        context.expect_operand_count(instruction, fixed)?;
    }
    let mut operands = instruction.operands.iter();
    let destination =
        if reduction { None } else { Some(context.destination(operands.next()?, ty.node, SizeRule::Exact)?) };
    let address = context.address(operands.next()?)?;
    context.check_address_space(&address, state_space, modifiers.opcode())?;
    let value = context.source(operands.next()?, ty.node, SizeRule::Exact)?;
    let swap = if compare_and_swap { Some(context.source(operands.next()?, ty.node, SizeRule::Exact)?) } else { None };
    if let Some(policy) = operands.next() {
        context.source(policy, ScalarType::B64, SizeRule::Exact)?;
    }
    Some(Instruction::Atomic {
        operation: operation.node,
        ty: ty.node,
        state_space,
        ordering,
        scope,
        destination,
        address,
        value,
        swap: swap.map(Box::new),
    })
}

/// The `.cas` or `.exch` modifier of an instruction, if it has one.
fn compare_and_swap_or_exchange(instruction: &ast::Instruction) -> Option<Spanned<AtomicOperation>> {
    instruction.modifiers.iter().find_map(|modifier| match modifier.node.as_str() {
        "cas" => Some(Spanned { node: AtomicOperation::CompareAndSwap, span: modifier.span }),
        "exch" => Some(Spanned { node: AtomicOperation::Exchange, span: modifier.span }),
        _ => None,
    })
}

/// `red.cas` and `red.exch`: the manual's `red` has only `.and`, `.or`, `.xor`, `.add`, `.inc`,
/// `.dec`, `.min` and `.max`; a compare-and-swap or an exchange is an `atom`, whose old value
/// may be left unread.
fn reduction_without_result(context: &mut Context, operation: Spanned<AtomicOperation>) -> Option<Instruction> {
    let name = if operation.node == AtomicOperation::Exchange { "exch" } else { "cas" };
    context.report(
        Diagnostic::error(Code::InvalidModifier, format!("`red` has no `.{name}` operation"))
            .with_primary(operation.span, "expected `.and`, `.or`, `.xor`, `.add`, `.inc`, `.dec`, `.min` or `.max`")
            .with_help(format!("use `atom.{name}`, which also returns the old value")),
    );
    None
}

/// Whether a vector atomic of `lanes` elements of `ty` is one of the forms of the PTX ISA
/// manual's "atom" and "red" sections (ISA 8.1, sm_90):
///
/// ```text
/// atom{.sem}{.scope}{.global}.add{.level::cache_hint}.vec_32_bit.f32 d, [a], b{, cache-policy};
/// atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_16_bit.half_word_type d, [a], b{, cache-policy};
/// atom{.sem}{.scope}{.global}.op.noftz{.level::cache_hint}.vec_32_bit.packed_type d, [a], b{, cache-policy};
/// .op = { .add, .min, .max }; .half_word_type = { .f16, .bf16 }; .packed_type = { .f16x2, .bf16x2 };
/// .vec_16_bit = { .v2, .v4, .v8 }; .vec_32_bit = { .v2, .v4 };
/// ```
fn vector_atomic_is_valid(operation: AtomicOperation, ty: ScalarType, lanes: u32) -> bool {
    let operation_fits = match ty {
        ScalarType::F32 => operation == AtomicOperation::Add,
        ScalarType::F16 | ScalarType::Bf16 | ScalarType::F16x2 | ScalarType::Bf16x2 => {
            matches!(operation, AtomicOperation::Add | AtomicOperation::Minimum | AtomicOperation::Maximum)
        }
        _ => false,
    };
    let lanes_fit = match ty {
        ScalarType::F16 | ScalarType::Bf16 => matches!(lanes, 2 | 4 | 8),
        _ => matches!(lanes, 2 | 4),
    };
    operation_fits && lanes_fit
}

/// The vector forms of `atom` and `red` (see [`vector_atomic_is_valid`]).
fn vector_atomic(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
    lanes: Spanned<u32>,
) -> Option<Instruction> {
    let reduction = modifiers.opcode() == "red";
    let ordering = modifiers.take(MemoryOrdering::from_ptx).map_or(MemoryOrdering::Relaxed, |ordering| ordering.node);
    let scope = modifiers.take(MemoryScope::from_ptx).map_or(MemoryScope::Gpu, |scope| scope.node);
    let state_space = match modifiers.state_space() {
        Some(space) if space.node == StateSpace::Global => space.node,
        Some(space) => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("vector `{}` does not access `{}`", modifiers.opcode(), space.node),
                )
                .with_primary(space.span, "expected `.global` or no state space (generic)"),
            );
            return None;
        }
        None => StateSpace::Generic,
    };
    let Some(operation) = modifiers.take(AtomicOperation::from_ptx) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{}` needs an operation", modifiers.opcode()))
                .with_primary(modifiers.end_span(), "expected `.add`, `.min` or `.max`"),
        );
        return None;
    };
    modifiers.flag("noftz");
    modifiers.drop_all(is_cache_hint);
    let ty = modifiers.required_type(context)?;
    if !vector_atomic_is_valid(operation.node, ty.node, lanes.node) {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("vector `{}` is not defined with `.v{}` on `{}` for this operation", modifiers.opcode(), lanes.node, ty.node),
            )
            .with_primary(ty.span, "not a vector atomic form")
            .with_note("vector atomics: `.add` on `.v2`/`.v4` of `.f32`; `.add`/`.min`/`.max` on `.v2`/`.v4`/`.v8` of `.f16`/`.bf16` and on `.v2`/`.v4` of `.f16x2`/`.bf16x2`"),
        );
        return None;
    }
    let fixed = usize::from(!reduction) + 2;
    let count = instruction.operands.len();
    if count != fixed && count != fixed + 1 {
        context.expect_operand_count(instruction, fixed)?;
    }
    let mut operands = instruction.operands.iter();
    let destinations = if reduction {
        None
    } else {
        let list = context.destination_list(operands.next()?, ty.node, lanes.node, SizeRule::Exact, false)?;
        Some(list.into_iter().collect::<Option<Vec<_>>>()?)
    };
    let address = context.address(operands.next()?)?;
    context.check_address_space(&address, state_space, modifiers.opcode())?;
    let values = context.source_list(operands.next()?, ty.node, lanes.node, SizeRule::Exact)?;
    if let Some(policy) = operands.next() {
        context.source(policy, ScalarType::B64, SizeRule::Exact)?;
    }
    Some(Instruction::VectorAtomic {
        operation: operation.node,
        ty: ty.node,
        state_space,
        ordering,
        scope,
        destinations,
        address,
        values,
    })
}

/// `membar.cta/.gl/.sys`, `fence.sc/.acq_rel.scope`, and the bidirectional proxy fences
/// `fence.proxy.alias`, `membar.proxy.alias` and `fence.proxy.async{.global, .shared::cta,
/// .shared::cluster}`; `fence.proxy.tensormap::generic` is `tensor_map.rs`'s; the other
/// unidirectional proxy fences and `fence.mbarrier_init` are not decoded yet.
pub fn fence(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if let Some(proxy) = bidirectional_proxy(instruction) {
        modifiers.drop_all(|_| true);
        context.expect_operand_count(instruction, 0)?;
        return Some(Instruction::ProxyFence { proxy });
    }
    if modifiers.opcode() == "fence"
        && instruction.modifiers.iter().any(|modifier| modifier.node == "tensormap::generic")
    {
        return super::tensor_map::fence(context, modifiers, instruction);
    }
    if modifiers.opcode() == "fence"
        && instruction
            .modifiers
            .iter()
            .any(|modifier| modifier.node.starts_with("proxy") || modifier.node.starts_with("mbarrier"))
    {
        return accept_unlowered(context, modifiers, instruction);
    }
    if modifiers.flag("proxy") {
        return accept_unlowered(context, modifiers, instruction);
    }
    let ordering =
        modifiers.take(MemoryOrdering::from_ptx).map_or(MemoryOrdering::AcquireRelease, |ordering| ordering.node);
    let Some(scope) = modifiers.take(MemoryScope::from_ptx) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{}` needs a scope", modifiers.opcode()))
                .with_primary(modifiers.end_span(), "expected `.cta`, `.gpu` (`.gl`) or `.sys`"),
        );
        return None;
    };
    // Section 9.7.12.4: `membar.level` with `.level = { .cta, .gl, .sys }`, `fence.scope` with
    // `.scope = { .cta, .cluster, .gpu, .sys }` (ptxas: "Illegal modifier '.gpu' for 'membar'").
    let spelled = instruction.modifiers.iter().find(|modifier| modifier.span == scope.span);
    let membar = modifiers.opcode() == "membar";
    if let Some(spelled) = spelled {
        let wrong = if membar { matches!(spelled.node.as_str(), "gpu" | "cluster") } else { spelled.node == "gl" };
        if wrong {
            let expected = if membar { "`.cta`, `.gl` or `.sys`" } else { "`.cta`, `.cluster`, `.gpu` or `.sys`" };
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("`{}` does not take `.{}`", modifiers.opcode(), spelled.node),
                )
                .with_primary(spelled.span, format!("expected {expected}"))
                .with_note("section 9.7.12.4: `membar` has the levels `.cta`, `.gl`, `.sys`; `fence` the scopes `.cta`, `.cluster`, `.gpu`, `.sys`"),
            );
            return None;
        }
    }
    context.expect_operand_count(instruction, 0)?;
    Some(Instruction::Fence { ordering, scope: scope.node })
}

/// The proxy of a bidirectional proxy fence: exactly `.proxy.alias`, `.proxy.async`, or
/// `.proxy.async` with one state space.
fn bidirectional_proxy(instruction: &ast::Instruction) -> Option<ProxyKind> {
    let names: Vec<&str> = instruction.modifiers.iter().map(|modifier| modifier.node.as_str()).collect();
    Some(match names.as_slice() {
        ["proxy", "alias"] => ProxyKind::Alias,
        ["proxy", "async"] if instruction.opcode.node.as_str() == "fence" => ProxyKind::Async,
        ["proxy", "async", "global"] if instruction.opcode.node.as_str() == "fence" => ProxyKind::AsyncGlobal,
        ["proxy", "async", "shared::cta"] if instruction.opcode.node.as_str() == "fence" => ProxyKind::AsyncSharedCta,
        ["proxy", "async", "shared::cluster"] if instruction.opcode.node.as_str() == "fence" => {
            ProxyKind::AsyncSharedCluster
        }
        _ => return None,
    })
}

/// `bar{.cta}.sync|arrive|red`, `barrier{.cta}.sync|arrive|red{.aligned}`, ISA 1.x `bar.sync`,
/// and `bar.warp.sync`.
pub fn barrier(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    if modifiers.flag("warp") {
        if !modifiers.flag("sync") {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "`bar.warp` needs `.sync`")
                    .with_primary(modifiers.end_span(), "expected `.sync`"),
            );
            return None;
        }
        context.expect_operand_count(instruction, 1)?;
        let member_mask = context.source(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
        return Some(Instruction::WarpSync { member_mask });
    }
    if instruction.modifiers.iter().any(|modifier| modifier.node == "cluster") {
        // `barrier.cluster.arrive`/`.wait` (section 9.7.12.3) take no barrier number; valid
        // PTX that needs clusters, which lowering reports as unsupported.
        return accept_unlowered(context, modifiers, instruction);
    }
    // `.cta` is the only scope; `.aligned` promises that all threads execute the same barrier.
    // Only `barrier` spells it: `bar` is always aligned, and ptxas rejects `bar.sync.aligned`
    // ("Illegal modifier"), which is left over here and reported as E0202.
    modifiers.flag("cta");
    if modifiers.opcode() == "barrier" {
        modifiers.flag("aligned");
    }
    let operation = if modifiers.flag("arrive") {
        BarrierOperation::Arrive
    } else if modifiers.flag("red") {
        if modifiers.flag("popc") {
            BarrierOperation::ReducePopulationCount
        } else if modifiers.flag("and") {
            BarrierOperation::ReduceAnd
        } else if modifiers.flag("or") {
            BarrierOperation::ReduceOr
        } else {
            context.report(
                Diagnostic::error(Code::InvalidModifier, "`bar.red` needs an operation")
                    .with_primary(modifiers.end_span(), "expected `.popc`, `.and` or `.or`"),
            );
            return None;
        }
    } else {
        // `bar.sync`, and `bar` alone in ISA 1.x.
        modifiers.flag("sync");
        BarrierOperation::Sync
    };
    let result_type = match operation {
        BarrierOperation::ReducePopulationCount => Some(ScalarType::U32),
        BarrierOperation::ReduceAnd | BarrierOperation::ReduceOr => Some(ScalarType::Pred),
        BarrierOperation::Sync | BarrierOperation::Arrive => None,
    };
    if let Some(expected) = result_type {
        let ty = modifiers.required_type(context)?;
        if ty.node != expected {
            return invalid_type(context, "bar.red", ty, &format!("`{expected}`"));
        }
    }
    let operands = &instruction.operands;
    let (destination, rest) = match result_type {
        Some(ty) => {
            let Some(first) = operands.first() else {
                context.expect_operand_count(instruction, 3)?;
                return None;
            };
            (Some(context.destination(first, ty, SizeRule::Exact)?), &operands[1..])
        }
        None => (None, &operands[..]),
    };
    let (rest, predicate) = if result_type.is_some() {
        let Some((last, rest)) = rest.split_last() else {
            context.expect_operand_count(instruction, 3)?;
            return None;
        };
        (rest, Some(predicate_operand(context, last)?))
    } else {
        (rest, None)
    };
    let counts = if operation == BarrierOperation::Arrive { 2..=2 } else { 1..=2 };
    if !counts.contains(&rest.len()) {
        let expected =
            operands.len() - rest.len() + if rest.len() > *counts.end() { *counts.end() } else { *counts.start() };
        context.expect_operand_count(instruction, expected)?;
    }
    let barrier = context.source(&rest[0], ScalarType::U32, SizeRule::Exact)?;
    let thread_count = match rest.get(1) {
        Some(operand) => Some(context.source(operand, ScalarType::U32, SizeRule::Exact)?),
        None => None,
    };
    check_barrier_immediates(context, &barrier, thread_count.as_ref())?;
    Some(Instruction::Barrier { operation, barrier, thread_count, destination, predicate: predicate.map(Box::new) })
}

/// Section 9.7.12.1: "operands a, b, and d have type .u32; ... the barrier number a is in the
/// range 0 to 15", and "b ... must be a multiple of the warp size". Immediates are checked
/// here (ptxas rejects them too); register values are the program's responsibility.
fn check_barrier_immediates(context: &mut Context, barrier: &Operand, thread_count: Option<&Operand>) -> Option<()> {
    if let Some(number) = barrier.value.as_integer() {
        if !(0..=15).contains(&number) {
            context.report(
                Diagnostic::error(Code::OperandType, format!("barrier number {number} is out of range"))
                    .with_primary(barrier.span, "expected a barrier number from 0 to 15")
                    .with_note("section 9.7.12.1: each CTA has 16 barriers, numbered 0 to 15"),
            );
            return None;
        }
    }
    if let Some((count, span)) = thread_count.and_then(|operand| Some((operand.value.as_integer()?, operand.span))) {
        if count < 0 || count % 32 != 0 {
            context.report(
                Diagnostic::error(
                    Code::OperandType,
                    format!("a barrier's thread count must be a multiple of 32, not {count}"),
                )
                .with_primary(span, "not a multiple of the warp size")
                .with_note("section 9.7.12.1: the thread count `b` is a multiple of the warp size"),
            );
            return None;
        }
    }
    Some(())
}

/// `d` or `d|p` destinations of `shfl` and `match.all`.
fn destination_with_predicate(
    context: &mut Context,
    operand: &ast::Operand,
    ty: ScalarType,
) -> Option<(Destination, Option<Destination>)> {
    match &operand.kind {
        OperandKind::PredicatePair(value, predicate) => {
            let destination = context.destination(value, ty, SizeRule::Exact)?;
            let predicate = if matches!(predicate.kind, OperandKind::Sink) {
                None
            } else {
                Some(context.destination(predicate, ScalarType::Pred, SizeRule::Exact)?)
            };
            Some((destination, predicate))
        }
        _ => Some((context.destination(operand, ty, SizeRule::Exact)?, None)),
    }
}

/// `shfl.mode.b32 d{|p}, a, b, c` (before ISA 6.0) and `shfl.sync.mode.b32 d{|p}, a, b, c, m`.
pub fn shuffle(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let synchronizing = modifiers.flag("sync");
    let Some(mode) = modifiers.take(ShuffleMode::from_ptx) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`shfl` needs a mode")
                .with_primary(modifiers.end_span(), "expected `.up`, `.down`, `.bfly` or `.idx`"),
        );
        return None;
    };
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::B32 {
        return invalid_type(context, "shfl", ty, "`.b32`");
    }
    context.expect_operand_count(instruction, if synchronizing { 5 } else { 4 })?;
    let operands = &instruction.operands;
    let (destination, in_range) = destination_with_predicate(context, &operands[0], ScalarType::B32)?;
    let value = context.source(&operands[1], ScalarType::B32, SizeRule::Exact)?;
    let lane = context.source(&operands[2], ScalarType::B32, SizeRule::Exact)?;
    let clamp = context.source(&operands[3], ScalarType::B32, SizeRule::Exact)?;
    let member_mask =
        if synchronizing { Some(context.source(&operands[4], ScalarType::B32, SizeRule::Exact)?) } else { None };
    Some(Instruction::Shuffle(Box::new(ShuffleInstruction {
        mode: mode.node,
        destination,
        in_range,
        value,
        lane,
        clamp,
        member_mask,
    })))
}

/// `vote{.sync}.all|any|uni.pred d, {!}a{, m}` and `vote{.sync}.ballot.b32 d, {!}a{, m}`.
pub fn vote(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let synchronizing = modifiers.flag("sync");
    let Some(mode) = modifiers.take(VoteMode::from_ptx) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`vote` needs a mode")
                .with_primary(modifiers.end_span(), "expected `.all`, `.any`, `.uni` or `.ballot`"),
        );
        return None;
    };
    let ty = modifiers.required_type(context)?;
    let expected = if mode.node == VoteMode::Ballot { ScalarType::B32 } else { ScalarType::Pred };
    if ty.node != expected {
        return invalid_type(context, "vote", ty, &format!("`{expected}`"));
    }
    context.expect_operand_count(instruction, if synchronizing { 3 } else { 2 })?;
    let destination = context.destination(&instruction.operands[0], expected, SizeRule::Exact)?;
    let (predicate, negated) = predicate_operand(context, &instruction.operands[1])?;
    let member_mask = if synchronizing {
        Some(context.source(&instruction.operands[2], ScalarType::B32, SizeRule::Exact)?)
    } else {
        None
    };
    Some(Instruction::Vote { mode: mode.node, destination, predicate, negated, member_mask })
}

/// `match.any.sync.type d, a, m` and `match.all.sync.type d{|p}, a, m` on `.b32`/`.b64`.
pub fn match_(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let all = if modifiers.flag("all") {
        true
    } else if modifiers.flag("any") {
        false
    } else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`match` needs a mode")
                .with_primary(modifiers.end_span(), "expected `.any` or `.all`"),
        );
        return None;
    };
    if !modifiers.flag("sync") {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`match` needs `.sync`")
                .with_primary(modifiers.end_span(), "expected `.sync`"),
        );
        return None;
    }
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::B32 | ScalarType::B64) {
        return invalid_type(context, "match", ty, "`.b32` or `.b64`");
    }
    context.expect_operand_count(instruction, 3)?;
    let (destination, predicate) = destination_with_predicate(context, &instruction.operands[0], ScalarType::B32)?;
    if predicate.is_some() && !all {
        context.report(
            Diagnostic::error(Code::OperandKind, "`match.any` has no predicate result")
                .with_primary(instruction.operands[0].span, "only `match.all` writes `d|p`"),
        );
        return None;
    }
    let value = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let member_mask = context.source(&instruction.operands[2], ScalarType::B32, SizeRule::Exact)?;
    Some(Instruction::Match { all, ty: ty.node, destination, predicate, value, member_mask })
}

/// `redux.sync.op.type d, a, m`: add/min/max on `.u32`/`.s32`, and/or/xor on `.b32`.
pub fn redux(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if !modifiers.flag("sync") {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`redux` needs `.sync`")
                .with_primary(modifiers.end_span(), "expected `.sync`"),
        );
        return None;
    }
    let Some(operation) = modifiers.take(ReduxOperation::from_ptx) else {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`redux.sync` needs an operation")
                .with_primary(modifiers.end_span(), "expected `.add`, `.min`, `.max`, `.and`, `.or` or `.xor`"),
        );
        return None;
    };
    if let Some(float) = instruction.modifiers.iter().find(|modifier| modifier.node == "f32") {
        // ISA 8.6 gives `.f32` only to `.min` and `.max` (ptxas 12.9: "Incorrect type '.f32' for
        // operation '.add' in instruction 'redux'").
        let name = match operation.node {
            ReduxOperation::Minimum | ReduxOperation::Maximum => None,
            ReduxOperation::Add => Some("add"),
            ReduxOperation::And => Some("and"),
            ReduxOperation::Or => Some("or"),
            ReduxOperation::Xor => Some("xor"),
        };
        if let Some(name) = name {
            let opcode = format!("redux.sync.{name}");
            let ty = Spanned::new(ScalarType::F32, float.span);
            let expected = if name == "add" { "`.u32` or `.s32`" } else { "`.b32`" };
            return invalid_type(context, &opcode, ty, &format!("{expected} (`.f32` is for `.min` and `.max`)"));
        }
        // The sm_100 floating-point forms are valid but not decoded yet.
        return accept_unlowered(context, modifiers, instruction);
    }
    let ty = modifiers.required_type(context)?;
    let bitwise = matches!(operation.node, ReduxOperation::And | ReduxOperation::Or | ReduxOperation::Xor);
    let valid = if bitwise { ty.node == ScalarType::B32 } else { matches!(ty.node, ScalarType::U32 | ScalarType::S32) };
    if !valid {
        return invalid_type(context, "redux.sync", ty, if bitwise { "`.b32`" } else { "`.u32` or `.s32`" });
    }
    context.expect_operand_count(instruction, 3)?;
    let destination = context.destination(&instruction.operands[0], ty.node, SizeRule::Exact)?;
    let value = context.source(&instruction.operands[1], ty.node, SizeRule::Exact)?;
    let member_mask = context.source(&instruction.operands[2], ScalarType::B32, SizeRule::Exact)?;
    Some(Instruction::Redux { operation: operation.node, ty: ty.node, destination, value, member_mask })
}

/// `elect.sync d|p, membermask` (ISA 8.0); `d` may be the `_` sink.
pub fn elect(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    if !modifiers.flag("sync") {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "`elect` needs `.sync`")
                .with_primary(modifiers.end_span(), "expected `.sync`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 2)?;
    let OperandKind::PredicatePair(value, predicate) = &instruction.operands[0].kind else {
        context.report(
            Diagnostic::error(Code::OperandKind, "`elect.sync` writes a lane id and a predicate")
                .with_primary(instruction.operands[0].span, "expected `d|p`"),
        );
        return None;
    };
    let destination = if matches!(value.kind, OperandKind::Sink) {
        None
    } else {
        Some(context.destination(value, ScalarType::B32, SizeRule::Exact)?)
    };
    let predicate = context.destination(predicate, ScalarType::Pred, SizeRule::Exact)?;
    let member_mask = context.source(&instruction.operands[1], ScalarType::B32, SizeRule::Exact)?;
    Some(Instruction::Elect { destination, predicate, member_mask })
}

/// `activemask.b32 d`
pub fn active_mask(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let ty = modifiers.required_type(context)?;
    if ty.node.kind() != ScalarKind::Bit || ty.node.bits() != 32 {
        return invalid_type(context, "activemask", ty, "`.b32`");
    }
    context.expect_operand_count(instruction, 1)?;
    let destination = context.destination(&instruction.operands[0], ScalarType::B32, SizeRule::Exact)?;
    Some(Instruction::ActiveMask { destination })
}
