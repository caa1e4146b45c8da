//! Vector operands (ISA 7.8 section 5.4.2 and 6.4.2): `{a, b, c, d}` lists, whole `.vN`
//! registers standing for their elements, and the members `%v.x`..`%v.w` (`.r`..`.a`).

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Destination, Operand, Value, VariableId};
use crate::span::Span;
use crate::syntax::ast::{self, OperandKind};
use crate::vocabulary::{ScalarType, StateSpace};

use super::Context;

/// The element index of a vector member name.
pub fn member_index(member: &str) -> Option<u32> {
    match member {
        "x" | "r" => Some(0),
        "y" | "g" => Some(1),
        "z" | "b" => Some(2),
        "w" | "a" => Some(3),
        _ => None,
    }
}

/// The number of elements of a `.vN` modifier.
/// Every name [`lanes_of_modifier`] reads, and their sketch for `Modifiers::take_sketched`:
/// most loads, stores and moves are scalar.
pub const LANE_NAMES: [&str; 3] = ["v2", "v4", "v8"];
pub const LANES: u64 = super::modifiers::sketch_of(&LANE_NAMES);

pub fn lanes_of_modifier(modifier: &str) -> Option<u32> {
    match modifier {
        "v2" => Some(2),
        "v4" => Some(4),
        "v8" => Some(8),
        _ => None,
    }
}

impl Context<'_, '_> {
    /// The vector register an operand names as a whole (`%v`, not `%v.x`), without reporting
    /// anything when it is something else.
    pub fn whole_vector_register(&mut self, operand: &ast::Operand) -> Option<(VariableId, u32)> {
        let OperandKind::Name { name, member: None } = &operand.kind else { return None };
        let id = self.scopes.lookup(name, &mut self.variables)?;
        let variable = self.variable(id);
        match (variable.state_space, variable.vector) {
            (StateSpace::Reg, Some(lanes)) => Some((id, lanes)),
            _ => None,
        }
    }

    /// The `count` destinations of a vector instruction: a `{d0, d1, ...}` list (where `_`
    /// discards its element when `sinks` allows it) or a `.vN` register with `count` elements.
    pub fn destination_list(
        &mut self,
        operand: &ast::Operand,
        ty: ScalarType,
        count: u32,
        rule: SizeRule,
        sinks: bool,
    ) -> Option<Vec<Option<Destination>>> {
        if let Some((register, lanes)) = self.whole_vector_register(operand) {
            self.expect_lanes(operand.span, lanes, count)?;
            self.check_register(register, operand.span, ty, rule, "destination", true)?;
            return Some(
                (0..count)
                    .map(|index| Some(Destination { register, member: u8::try_from(index).ok(), span: operand.span }))
                    .collect(),
            );
        }
        let items = self.vector_items(operand, count)?;
        let mut destinations = Vec::with_capacity(items.len());
        let mut failed = false;
        for item in items {
            if matches!(item.kind, OperandKind::Sink) {
                if !sinks {
                    self.report(
                        Diagnostic::error(Code::OperandKind, "`_` cannot stand for an element here")
                            .with_primary(item.span, "sink not allowed"),
                    );
                    failed = true;
                }
                destinations.push(None);
                continue;
            }
            match self.destination(item, ty, rule) {
                Some(destination) => destinations.push(Some(destination)),
                None => failed = true,
            }
        }
        (!failed).then_some(destinations)
    }

    /// The `count` sources of a vector instruction: a `{a0, a1, ...}` list of registers and
    /// immediates, or a `.vN` register with `count` elements.
    pub fn source_list(
        &mut self,
        operand: &ast::Operand,
        ty: ScalarType,
        count: u32,
        rule: SizeRule,
    ) -> Option<Vec<Operand>> {
        if let Some((register, lanes)) = self.whole_vector_register(operand) {
            self.expect_lanes(operand.span, lanes, count)?;
            self.check_register(register, operand.span, ty, rule, "source", true)?;
            return Some(
                (0..count)
                    .map(|index| Operand { value: Value::Member { register, index }, span: operand.span })
                    .collect(),
            );
        }
        let items = self.vector_items(operand, count)?;
        let mut sources = Vec::with_capacity(items.len());
        let mut failed = false;
        for item in items {
            match self.source(item, ty, rule) {
                Some(source) => sources.push(source),
                None => failed = true,
            }
        }
        (!failed).then_some(sources)
    }

    fn vector_items<'o>(&mut self, operand: &'o ast::Operand, count: u32) -> Option<&'o [ast::Operand]> {
        let OperandKind::Vector(items) = &operand.kind else {
            self.report(
                Diagnostic::error(Code::OperandKind, format!("expected a vector of {count} elements"))
                    .with_primary(operand.span, "not a vector operand")
                    .with_help("write the elements in braces, such as `{%r1, %r2}`, or name a `.vN` register"),
            );
            return None;
        };
        self.expect_lanes(operand.span, items.len() as u32, count)?;
        Some(items)
    }

    fn expect_lanes(&mut self, span: Span, given: u32, count: u32) -> Option<()> {
        if given == count {
            return Some(());
        }
        self.report(
            Diagnostic::error(Code::OperandCount, format!("expected a vector of {count} elements, found {given}"))
                .with_primary(span, format!("{given} elements"))
                .with_note("the vector operand must have as many elements as the `.vN` modifier or packed type says"),
        );
        None
    }
}
