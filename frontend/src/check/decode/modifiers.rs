//! The dotted modifiers of one instruction, taken one kind at a time by the family decoders.
//! Whatever is left at the end was not understood and is reported.

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::RoundingMode;
use crate::span::{Span, Spanned};
use crate::syntax::ast::Word;
use crate::vocabulary::{ScalarType, StateSpace};

use super::Context;

pub struct Modifiers<'a> {
    /// Every modifier as written, so that a leftover can be compared with the ones taken.
    all: &'a [Spanned<Word>],
    /// The [`sketch`] bits of every modifier, OR-ed: a decoder asks for a dozen flags that are
    /// mostly absent, and a flag whose bit is not here is absent without a look at the text.
    sketch: u64,
    remaining: Remaining,
    opcode: &'a Spanned<Word>,
}

/// One of 64 bits for a modifier, from its length and first byte: equal names have equal bits.
#[inline]
const fn sketch(name: &str) -> u64 {
    sketch_of_length(name, name.len())
}

/// The sketch of a name that starts like `name` and is `length` bytes long.
#[inline]
const fn sketch_of_length(name: &str, length: usize) -> u64 {
    let first = match name.as_bytes() {
        [first, ..] => *first as u32,
        [] => 0,
    };
    1 << ((first * 7 + length as u32) % 64)
}

/// The [`sketch`] bits of every name in `names`, OR-ed: for the `Modifiers::take_sketched`
/// of a reader that understands those names only.
pub const fn sketch_of(names: &[&str]) -> u64 {
    sketch_of_suffixed(names, "")
}

/// [`sketch_of`] the names with `suffix` after each (`shared::cta`).
pub const fn sketch_of_suffixed(names: &[&str], suffix: &str) -> u64 {
    let (mut bits, mut index) = (0, 0);
    while index < names.len() {
        bits |= sketch_of_length(names[index], names[index].len() + suffix.len());
        index += 1;
    }
    bits
}

/// Which of the modifiers nobody has taken yet, by index: a bit each, inline for up to 64 (an
/// instruction has a handful), so that decoding an instruction allocates nothing for them.
enum Remaining {
    Few(u64),
    Many(Vec<bool>),
}

impl Remaining {
    fn all(count: usize) -> Remaining {
        match count {
            64 => Remaining::Few(u64::MAX),
            _ if count < 64 => Remaining::Few((1 << count) - 1),
            _ => Remaining::Many(vec![true; count]),
        }
    }

    fn contains(&self, index: usize) -> bool {
        match self {
            Remaining::Few(bits) => index < 64 && bits & (1 << index) != 0,
            Remaining::Many(flags) => flags.get(index).copied().unwrap_or(false),
        }
    }

    fn remove(&mut self, index: usize) {
        match self {
            Remaining::Few(bits) => *bits &= !(1u64.checked_shl(index as u32).unwrap_or(0)),
            Remaining::Many(flags) => {
                if let Some(flag) = flags.get_mut(index) {
                    *flag = false;
                }
            }
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Remaining::Few(bits) => *bits == 0,
            Remaining::Many(flags) => !flags.contains(&true),
        }
    }
}

impl<'a> Modifiers<'a> {
    pub fn new(modifiers: &'a [Spanned<Word>], opcode: &'a Spanned<Word>) -> Modifiers<'a> {
        let sketch = modifiers.iter().fold(0, |bits, modifier| bits | sketch(&modifier.node));
        Modifiers { all: modifiers, sketch, remaining: Remaining::all(modifiers.len()), opcode }
    }

    /// The modifiers nobody has taken yet, in source order, with their indices.
    fn remaining(&self) -> impl Iterator<Item = (usize, &'a Spanned<Word>)> + '_ {
        self.all.iter().enumerate().filter(|(index, _)| self.remaining.contains(*index))
    }

    pub fn opcode(&self) -> &'a str {
        &self.opcode.node
    }

    /// Removes and returns the first modifier that `read` understands.
    pub fn take<T>(&mut self, read: impl Fn(&str) -> Option<T>) -> Option<Spanned<T>> {
        if let Remaining::Few(bits) = self.remaining {
            // Visits the modifiers not taken yet, lowest index first, by their bits: most
            // instructions have taken some already, and this skips them without testing each.
            let mut left = bits;
            while left != 0 {
                let index = left.trailing_zeros() as usize;
                left &= left - 1;
                let Some(modifier) = self.all.get(index) else { break };
                if let Some(value) = read(&modifier.node) {
                    self.remaining = Remaining::Few(bits & !(1 << index));
                    return Some(Spanned::new(value, modifier.span));
                }
            }
            return None;
        }
        let all = self.all;
        for (index, modifier) in all.iter().enumerate() {
            if !self.remaining.contains(index) {
                continue;
            }
            if let Some(value) = read(&modifier.node) {
                self.remaining.remove(index);
                return Some(Spanned::new(value, modifier.span));
            }
        }
        None
    }

    /// [`Modifiers::take`] for a reader that understands only names whose sketch bits are in
    /// `names` (a [`sketch_of`] them): with none of those bits among the modifiers', nothing
    /// is read. Loads and stores ask for an ordering and a scope that they seldom have.
    #[inline]
    pub fn take_sketched<T>(&mut self, names: u64, read: impl Fn(&str) -> Option<T>) -> Option<Spanned<T>> {
        if self.sketch & names == 0 {
            return None;
        }
        self.take(read)
    }

    /// Whether a modifier (taken or not) may be `name`: false when none is; true may be wrong.
    #[inline]
    pub fn may_have(&self, name: &str) -> bool {
        self.sketch & sketch(name) != 0
    }

    /// Removes `name` if present, returning where it was written. Inlined, so that the sketch
    /// of a literal name is a constant and an absent flag costs a test.
    #[inline]
    pub fn take_flag(&mut self, name: &str) -> Option<Spanned<()>> {
        if self.sketch & sketch(name) == 0 {
            return None;
        }
        self.take_present_flag(name)
    }

    /// [`Modifiers::take_flag`] once the sketch says `name` may be present.
    fn take_present_flag(&mut self, name: &str) -> Option<Spanned<()>> {
        let all = self.all;
        for (index, modifier) in all.iter().enumerate() {
            if self.remaining.contains(index) && modifier.node.as_str() == name {
                self.remaining.remove(index);
                return Some(Spanned::new((), modifier.span));
            }
        }
        None
    }

    /// Removes `name` if present.
    #[inline]
    pub fn flag(&mut self, name: &str) -> bool {
        self.take_flag(name).is_some()
    }

    /// Removes every modifier that `ignore` accepts: hints that do not change the result.
    pub fn drop_all(&mut self, ignore: impl Fn(&str) -> bool) {
        let all = self.all;
        for (index, modifier) in all.iter().enumerate() {
            if self.remaining.contains(index) && ignore(&modifier.node) {
                self.remaining.remove(index);
            }
        }
    }

    pub fn scalar_type(&mut self) -> Option<Spanned<ScalarType>> {
        self.take(ScalarType::from_ptx)
    }

    pub fn state_space(&mut self) -> Option<Spanned<StateSpace>> {
        const NAMES: u64 = sketch_of(&StateSpace::NAMES) | sketch_of_suffixed(&StateSpace::NAMES, "::cta");
        self.take_sketched(NAMES, |name| {
            // `.shared::cta` is `.shared`; `.shared::cluster` needs clusters, kept apart.
            let name = name.strip_suffix("::cta").unwrap_or(name);
            StateSpace::from_ptx(name)
        })
    }

    /// The instruction type, required: reports its absence.
    pub fn required_type(&mut self, context: &mut Context) -> Option<Spanned<ScalarType>> {
        let ty = self.scalar_type();
        if ty.is_none() {
            context.report(
                Diagnostic::error(Code::InvalidModifier, format!("`{}` needs a type", self.opcode.node))
                    .with_primary(self.end_span(), "expected a type such as `.u32` or `.f32`"),
            );
        }
        ty
    }

    /// Where a missing modifier would go: just after the opcode and its modifiers.
    pub fn end_span(&self) -> Span {
        let end = self.remaining().map(|(_, modifier)| modifier.span.end).max().unwrap_or(self.opcode.span.end);
        Span { start: end, end }
    }

    /// Reports every modifier nobody took. Returns `None` when there were any.
    pub fn finish(self, context: &mut Context) -> Option<()> {
        if self.remaining.is_empty() {
            return Some(());
        }
        for (_, modifier) in self.remaining() {
            context.report(self.leftover(modifier));
        }
        None
    }

    /// The diagnostic for a modifier nobody took: a repeated modifier and a second rounding
    /// mode are named as such, since the decoder did take the first one.
    fn leftover(&self, modifier: &Spanned<Word>) -> Diagnostic {
        let opcode = &self.opcode.node;
        let taken = || {
            self.all.iter().enumerate().filter(|(index, _)| !self.remaining.contains(*index)).map(|(_, other)| other)
        };
        if let Some(other) = taken().find(|other| other.node == modifier.node) {
            let (first, second) = if other.span.start < modifier.span.start {
                (other.span, modifier.span)
            } else {
                (modifier.span, other.span)
            };
            return Diagnostic::error(Code::InvalidModifier, format!("`.{}` is written twice", modifier.node))
                .with_primary(second, "repeated modifier")
                .with_secondary(first, "first written here");
        }
        if RoundingMode::from_ptx(&modifier.node).is_some() {
            let first = taken().find(|other| RoundingMode::from_ptx(&other.node).is_some());
            if let Some(first) = first {
                return Diagnostic::error(
                    Code::InvalidModifier,
                    format!("conflicting rounding modifiers `.{}` and `.{}`", first.node, modifier.node),
                )
                .with_primary(modifier.span, "second rounding modifier")
                .with_secondary(first.span, "rounding already chosen here")
                .with_help(format!("`{opcode}` takes one rounding modifier; keep the one you mean"));
            }
        }
        Diagnostic::error(Code::InvalidModifier, format!("`.{}` is not a modifier of `{opcode}` here", modifier.node))
            .with_primary(modifier.span, "unexpected modifier")
    }
}

#[cfg(test)]
mod tests {
    use super::{sketch, sketch_of, Modifiers};
    use crate::check::decode::arithmetic::{multiply_mode, MULTIPLY_MODE_NAMES};
    use crate::check::decode::comparison::{logic_operation, LOGIC_NAMES};
    use crate::check::decode::vector::{lanes_of_modifier, LANE_NAMES};
    use crate::ir::{MemoryOrdering, MemoryScope, RoundingMode};
    use crate::span::{Span, Spanned};
    use crate::syntax::ast::Word;
    use crate::vocabulary::StateSpace;

    #[test]
    fn name_lists_are_what_their_readers_read() {
        // Each list's names are read, and name every value (the readers' `match`es have no
        // other arms but `_ => None`).
        let orderings: Vec<_> =
            MemoryOrdering::NAMES.iter().filter_map(|name| MemoryOrdering::from_ptx(name)).collect();
        assert_eq!(orderings.len(), MemoryOrdering::NAMES.len());
        let mut scopes: Vec<_> = MemoryScope::NAMES.iter().filter_map(|name| MemoryScope::from_ptx(name)).collect();
        assert_eq!(scopes.len(), MemoryScope::NAMES.len());
        scopes.dedup();
        assert_eq!(scopes.len(), 4, "`gpu` and `gl` are one scope");
        let spaces: Vec<_> = StateSpace::NAMES.iter().filter_map(|name| StateSpace::from_ptx(name)).collect();
        assert_eq!(spaces.len(), StateSpace::NAMES.len());
        assert_eq!(sketch_of(&["relaxed", "sc"]), sketch("relaxed") | sketch("sc"));
        let roundings: Vec<_> = RoundingMode::NAMES.iter().filter_map(|name| RoundingMode::from_ptx(name)).collect();
        assert_eq!(roundings.len(), RoundingMode::NAMES.len());
        assert!(MULTIPLY_MODE_NAMES.iter().all(|name| multiply_mode(name).is_some()));
        assert!(LANE_NAMES.iter().all(|name| lanes_of_modifier(name).is_some()));
        assert!(LOGIC_NAMES.iter().all(|name| logic_operation(name).is_some()));
    }

    #[test]
    fn sketched_takes_find_what_take_finds() {
        let names = ["global", "relaxed", "gpu", "L1::no_allocate", "u32"];
        let written: Vec<Spanned<Word>> = names.iter().zip(1..).map(|(name, at)| spanned(name, at)).collect();
        let opcode = spanned("ld", 0);
        let mut modifiers = Modifiers::new(&written, &opcode);
        assert_eq!(modifiers.state_space().map(|space| (space.node, space.span.start)), Some((StateSpace::Global, 1)));
        let ordering = modifiers.take_sketched(sketch_of(&MemoryOrdering::NAMES), MemoryOrdering::from_ptx);
        assert_eq!(ordering.map(|ordering| ordering.span.start), Some(2));
        let scope = modifiers.take_sketched(sketch_of(&MemoryScope::NAMES), MemoryScope::from_ptx);
        assert_eq!(scope.map(|scope| scope.node), Some(MemoryScope::Gpu));
        assert!(modifiers.take_sketched(sketch_of(&MemoryScope::NAMES), MemoryScope::from_ptx).is_none());
        // `.shared::cta` is read as `.shared`.
        let written = [spanned("shared::cta", 1), spanned("b64", 2)];
        let mut modifiers = Modifiers::new(&written, &opcode);
        assert_eq!(modifiers.state_space().map(|space| space.node), Some(StateSpace::Shared));
        assert!(modifiers.may_have("b64") && !modifiers.may_have("volatile"));
    }

    fn spanned(text: &str, at: u32) -> Spanned<Word> {
        Spanned::new(Word::new(text), Span { start: at, end: at + 1 })
    }

    #[test]
    fn flags_are_found_whatever_their_sketch() {
        let names = ["cc", "approx", "full", "relu", "NaN", "xorsign", "abs", "ftz", "sat", "f32", "L2::cache_hint"];
        let written: Vec<Spanned<Word>> = names.iter().zip(1..).map(|(name, at)| spanned(name, at)).collect();
        let opcode = spanned("add", 0);
        let mut modifiers = Modifiers::new(&written, &opcode);
        for (name, at) in names.iter().zip(1..) {
            assert_eq!(modifiers.take_flag(name).map(|flag| flag.span.start), Some(at), "{name}");
            assert!(modifiers.take_flag(name).is_none(), "{name} taken twice");
        }
        for absent in ["", "c", "ccc", "rn", "f64", "sync", "aligned"] {
            assert!(!modifiers.flag(absent), "{absent}");
        }
    }
}
