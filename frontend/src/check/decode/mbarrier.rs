//! `mbarrier.init`, `.inval`, `.arrive`, `.arrive_drop`, `.test_wait`, `.try_wait` and
//! `.pending_count` (ISA 7.8 section 9.7.12.13).
//!
//! ISA 8.0 added the ordering and scope qualifiers `.release`/`.acquire` and `.cta`, which
//! spell out what the 7.8 forms already do, and `.relaxed` (8.6), which asks for less: all are
//! accepted as the 7.8 forms. The transaction counts of ISA 8.0 (`mbarrier.arrive.expect_tx`,
//! `mbarrier.expect_tx`, `mbarrier.complete_tx`) are decoded for an object of the CTA;
//! `.cluster` and `.shared::cluster` need clusters: accepted and reported as unsupported by
//! lowering.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Address, AddressBase, Instruction, MbarrierWait};
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarType, StateSpace};

use super::{accept_unlowered, Context, Modifiers};

/// Forms that need clusters (ISA 8.0 and later).
fn is_cluster_form(name: &str) -> bool {
    matches!(name, "cluster" | "shared::cluster")
}

pub fn mbarrier(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    if instruction.modifiers.iter().any(|modifier| is_cluster_form(&modifier.node)) {
        return accept_unlowered(context, modifiers, instruction);
    }
    let Some(operation) = modifiers.take(|name| {
        matches!(
            name,
            "init"
                | "inval"
                | "arrive"
                | "arrive_drop"
                | "test_wait"
                | "try_wait"
                | "pending_count"
                | "expect_tx"
                | "complete_tx"
        )
        .then(|| name.to_string())
    }) else {
        context.report(Diagnostic::error(Code::InvalidModifier, "`mbarrier` needs an operation").with_primary(
            modifiers.end_span(),
            "expected `.init`, `.inval`, `.arrive`, `.arrive_drop`, `.test_wait`, `.try_wait` or `.pending_count`",
        ));
        return None;
    };
    // The ISA 8.0 spellings of what every form does: release on arrival, acquire on a test
    // that sees the phase complete, within the CTA.
    let ordering = modifiers.take(|name| matches!(name, "release" | "acquire" | "relaxed").then_some(()));
    let scope = modifiers.take_flag("cta");
    if ordering.is_some() != scope.is_some() {
        let (span, message) = match (ordering, scope) {
            (Some(ordering), _) => (ordering.span, "an ordering needs a scope"),
            (_, Some(scope)) => (scope.span, "a scope needs an ordering"),
            _ => (modifiers.end_span(), "an ordering needs a scope"),
        };
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`mbarrier`: {message}"))
                .with_primary(span, "expected both, such as `.release.cta` or `.acquire.cta`")
                .with_note("ISA 8.0 adds `.sem.scope` to `mbarrier` as a pair"),
        );
        return None;
    }
    let state_space = object_state_space(context, modifiers)?;
    // `.expect_tx` after `arrive` or `arrive_drop`: the arrival carries a transaction count.
    let expect_transactions = modifiers.take_flag("expect_tx");
    let no_complete = modifiers.flag("noComplete");
    let parity = modifiers.flag("parity");
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::B64 {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`mbarrier` is not defined on `{}`", ty.node))
                .with_primary(ty.span, "expected `.b64`"),
        );
        return None;
    }
    let misplaced = |context: &mut Context, name: &str| {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`mbarrier.{}` does not take `.{name}`", operation.node),
            )
            .with_primary(operation.span, "this operation")
            .with_note("section 9.7.12.13: `.noComplete` belongs to `arrive` and `arrive_drop` with a count, `.parity` to `test_wait` and `try_wait`"),
        );
    };
    let operands = &instruction.operands;
    let waits = matches!(operation.node.as_str(), "test_wait" | "try_wait");
    let arrives = matches!(operation.node.as_str(), "arrive" | "arrive_drop");
    if no_complete && !arrives {
        misplaced(context, "noComplete");
        return None;
    }
    if parity && !waits {
        misplaced(context, "parity");
        return None;
    }
    if expect_transactions.is_some() && (!arrives || no_complete) {
        misplaced(context, "expect_tx");
        return None;
    }
    match operation.node.as_str() {
        "expect_tx" | "complete_tx" => {
            context.expect_operand_count(instruction, 2)?;
            let address = object_address(context, &operands[0], state_space)?;
            let count = context.source(&operands[1], ScalarType::U32, SizeRule::Exact)?;
            Some(Instruction::MbarrierTransaction {
                complete: operation.node == "complete_tx",
                state_space,
                address,
                count,
            })
        }
        "arrive" | "arrive_drop" if expect_transactions.is_some() => {
            // `state, [a], txCount`: one arrival, after `txCount` more pending transactions.
            context.expect_operand_count(instruction, 3)?;
            let destination = if matches!(operands[0].kind, OperandKind::Sink) {
                None
            } else {
                Some(context.destination(&operands[0], ScalarType::B64, SizeRule::Exact)?)
            };
            let address = object_address(context, &operands[1], state_space)?;
            let transaction_count = Some(Box::new(context.source(&operands[2], ScalarType::U32, SizeRule::Exact)?));
            Some(Instruction::MbarrierArrive {
                drop: operation.node == "arrive_drop",
                no_complete,
                state_space,
                destination,
                address,
                count: None,
                transaction_count,
            })
        }
        "init" => {
            context.expect_operand_count(instruction, 2)?;
            let address = object_address(context, &operands[0], state_space)?;
            let count = context.source(&operands[1], ScalarType::U32, SizeRule::Exact)?;
            Some(Instruction::MbarrierInit { state_space, address, count })
        }
        "inval" => {
            context.expect_operand_count(instruction, 1)?;
            let address = object_address(context, &operands[0], state_space)?;
            Some(Instruction::MbarrierInvalidate { state_space, address })
        }
        "arrive" | "arrive_drop" => {
            if no_complete {
                context.expect_operand_count(instruction, 3)?;
            } else if operands.len() != 3 {
                context.expect_operand_count(instruction, 2)?;
            }
            let destination = if matches!(operands[0].kind, OperandKind::Sink) {
                None
            } else {
                Some(context.destination(&operands[0], ScalarType::B64, SizeRule::Exact)?)
            };
            let address = object_address(context, &operands[1], state_space)?;
            let count = match operands.get(2) {
                Some(count) => Some(context.source(count, ScalarType::U32, SizeRule::Exact)?),
                None => None,
            };
            Some(Instruction::MbarrierArrive {
                drop: operation.node == "arrive_drop",
                no_complete,
                state_space,
                destination,
                address,
                count,
                transaction_count: None,
            })
        }
        "test_wait" | "try_wait" => {
            let wait = if operation.node == "try_wait" { MbarrierWait::Try } else { MbarrierWait::Test };
            if wait == MbarrierWait::Try && operands.len() == 4 {
                // The suspend-time hint.
            } else {
                context.expect_operand_count(instruction, 3)?;
            }
            let destination = context.destination(&operands[0], ScalarType::Pred, SizeRule::Exact)?;
            let address = object_address(context, &operands[1], state_space)?;
            let phase_type = if parity { ScalarType::U32 } else { ScalarType::B64 };
            let phase = context.source(&operands[2], phase_type, SizeRule::Exact)?;
            let suspend_time_hint = match operands.get(3) {
                Some(hint) => Some(context.source(hint, ScalarType::U32, SizeRule::Exact)?),
                None => None,
            };
            Some(Instruction::MbarrierTestWait {
                wait,
                parity,
                state_space,
                destination,
                address,
                phase,
                suspend_time_hint,
            })
        }
        _ => {
            // `pending_count` reads a state, not the object.
            if state_space != StateSpace::Generic {
                context.report(
                    Diagnostic::error(Code::InvalidModifier, "`mbarrier.pending_count` takes no state space")
                        .with_primary(operation.span, "it reads a state register, not the object")
                        .with_note("section 9.7.12.13.13: `mbarrier.pending_count.b64 count, state;`"),
                );
                return None;
            }
            context.expect_operand_count(instruction, 2)?;
            let destination = context.destination(&operands[0], ScalarType::U32, SizeRule::Exact)?;
            let state = context.source(&operands[1], ScalarType::B64, SizeRule::Exact)?;
            Some(Instruction::MbarrierPendingCount { destination, state })
        }
    }
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [a]` (section 9.7.12.13.10).
pub fn copy_async_arrive(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    if !(modifiers.flag("async") && modifiers.flag("mbarrier") && modifiers.flag("arrive")) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, "expected `cp.async.mbarrier.arrive`")
                .with_primary(modifiers.end_span(), "section 9.7.12.13.10"),
        );
        return None;
    }
    let increment = !modifiers.flag("noinc");
    let state_space = object_state_space(context, modifiers)?;
    let ty = modifiers.required_type(context)?;
    if ty.node != ScalarType::B64 {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`cp.async.mbarrier.arrive` is not defined on `{}`", ty.node),
            )
            .with_primary(ty.span, "expected `.b64`"),
        );
        return None;
    }
    context.expect_operand_count(instruction, 1)?;
    // Unlike `mbarrier`'s, ptxas 12.9 accepts a variable of another state space in the generic
    // form (the section makes an address outside the shared window undefined behaviour).
    let address = context.address(&instruction.operands[0])?;
    context.check_address_space(&address, state_space, "cp.async.mbarrier.arrive")?;
    Some(Instruction::CopyAsyncMbarrierArrive { increment, state_space, address })
}

/// The object's state space: `.shared` (or `.shared::cta`), or generic when none is given.
fn object_state_space(context: &mut Context, modifiers: &mut Modifiers) -> Option<StateSpace> {
    match modifiers.state_space() {
        Some(space) if space.node == StateSpace::Shared => Some(StateSpace::Shared),
        Some(space) => {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("an mbarrier object is not in `{}`", space.node))
                    .with_primary(space.span, "expected `.shared`, `.shared::cta` or no state space (generic)")
                    .with_note("section 9.7.12.13: mbarrier objects live in shared memory"),
            );
            None
        }
        None => Some(StateSpace::Generic),
    }
}

/// The object's address `[a]`, in `.shared` or generic memory. A variable named in the address
/// must be `.shared` in either form (ptxas: "Illegal state space for address operand"); a
/// register may hold any generic address.
fn object_address(context: &mut Context, operand: &ast::Operand, state_space: StateSpace) -> Option<Address> {
    let address = context.address(operand)?;
    context.check_address_space(&address, state_space, "mbarrier")?;
    if let AddressBase::Variable(id) = address.base {
        let variable = context.variable(id);
        if variable.state_space != StateSpace::Shared {
            let (name, space, declared) = (variable.name.clone(), variable.state_space, variable.span);
            context.report(
                Diagnostic::error(
                    Code::OperandKind,
                    format!("an mbarrier object cannot be `{name}`, a `{space}` variable"),
                )
                .with_primary(address.span, format!("an address in `{space}`"))
                .with_secondary(declared, format!("`{name}` declared in `{space}` here"))
                .with_note("section 9.7.12.13: an mbarrier object lives in `.shared` memory"),
            );
            return None;
        }
    }
    Some(address)
}
