//! Name resolution with block scoping. Parameterized declarations (`%r<100>`) are kept as
//! ranges and a name such as `%r42` becomes a variable only when first used, so a function that
//! declares `%r<100000>` costs nothing for the registers it never touches.

use super::name_map::{short_key, NameMap};
use crate::ir::{Variable, VariableId};
use crate::span::Span;
use crate::syntax::ast::Word;

#[derive(Default)]
struct Frame {
    /// Names declared one at a time, and members of ranges numbered beyond
    /// [`DENSE_MEMBERS`]. Keyed by `Word`: most names fit inline, so an entry allocates no key.
    names: NameMap<Word, VariableId>,
    /// The parameterized declarations of this scope (`%r<12>`), in declaration order.
    ranges: Vec<Range>,
}

/// `%r<12>`: the prefix `%r`, 12 members, each like `template`.
struct Range {
    prefix: Word,
    /// `prefix` as a [`short_key`] (0 for a longer one), compared at every lookup instead of
    /// the text.
    prefix_key: u64,
    count: u32,
    template: Variable,
    /// The variable of each member used so far, by number (`NO_VARIABLE` for one not used
    /// yet), for the members below [`DENSE_MEMBERS`]. A register is looked up at every use:
    /// indexing by its number costs no hashing, and its first use no map entry.
    members: Vec<u32>,
    /// Whether a name declared alone before this range (`.reg .b32 %r5; .reg .b32 %r<10>;`)
    /// is also one of its members: that declaration keeps the name, so the frame's map must be
    /// asked first. Otherwise the map is only asked for what the range does not hold.
    names_first: bool,
}

/// Members numbered below this are found by index in `Range::members`, which grows to the
/// highest number used (4 bytes a member); higher numbers, rare, go through the frame's map,
/// so that one use of `%r4000000000` costs one entry, not gigabytes.
const DENSE_MEMBERS: u32 = 1 << 16;

/// The entries whose room the outermost scope's map keeps from one function to the next.
const KEPT_NAMES: usize = 256;

/// A member of `Range::members` that has no variable yet.
const NO_VARIABLE: u32 = u32::MAX;

/// The scopes of one function body, innermost last, above the module's globals.
pub struct Scopes<'module> {
    globals: &'module NameMap<String, VariableId>,
    frames: Vec<Frame>,
    resolved: ResolvedNames,
}

impl<'module> Scopes<'module> {
    /// The scopes of a function that declares about `registers` registers (which sizes the
    /// cache of resolved names).
    pub fn new(globals: &'module NameMap<String, VariableId>, registers: usize) -> Scopes<'module> {
        Scopes { globals, frames: vec![Frame::default()], resolved: ResolvedNames::new(registers) }
    }

    /// Empties the scopes for the next function, which declares about `registers` registers.
    /// One `Scopes` serves every function of a module: its outermost map and the cache of
    /// resolved names keep their room, rather than growing from empty (the map) and being
    /// filled slot by slot (the cache) in each function.
    pub fn start_function(&mut self, registers: usize) {
        self.frames.truncate(1);
        let outermost = &mut self.frames[0];
        outermost.names.clear();
        // `declare_range` walks the map's table, empty or not: a huge function's room is not
        // kept for the small ones after it.
        outermost.names.shrink_to(KEPT_NAMES);
        outermost.ranges.clear();
        self.resolved.start_function(registers);
    }

    pub fn enter(&mut self) {
        self.frames.push(Frame::default());
        self.resolved.forget();
    }

    pub fn leave(&mut self) {
        self.frames.pop();
        self.resolved.forget();
    }

    /// Declares `variable` in the innermost scope and returns its id, or the id of the earlier
    /// declaration of that name in the same scope as the error.
    pub fn declare(&mut self, variable: Variable, variables: &mut Vec<Variable>) -> Result<VariableId, VariableId> {
        if let Some(existing) = self.find_in_innermost(&variable.name, variables) {
            return Err(existing);
        }
        let id = VariableId::Local(variables.len() as u32);
        let frame = self.frames.last_mut().expect("a scope is always open");
        frame.names.insert(variable.name.clone(), id);
        variables.push(variable);
        // The new name may hide one of an outer scope, or a range member, found before.
        self.resolved.forget();
        Ok(id)
    }

    /// Declares `prefix0` to `prefix{count-1}` lazily. An earlier range with the same prefix in
    /// this scope is an error, holding that declaration's span.
    pub fn declare_range(&mut self, template: Variable, count: u32) -> Result<(), Span> {
        let frame = self.frames.last_mut().expect("a scope is always open");
        if let Some(earlier) = frame.ranges.iter().find(|range| range.prefix == template.name) {
            return Err(earlier.template.span);
        }
        // Compilers declare about as many registers as they use: the table is filled for them up
        // front, so that a first use finds its slot without growing it. Capped so that a huge
        // declaration of unused registers costs nothing.
        let members = vec![NO_VARIABLE; count.min(4096) as usize];
        let range_prefix = template.name.as_str();
        // Most names of the scope (a function's parameters, long) do not start with the prefix:
        // that is tested first, as it costs less than splitting them.
        let names_first = frame.names.keys().any(|name| {
            name.as_str().starts_with(range_prefix)
                && split_numbered_name(name).is_some_and(|(prefix, number)| prefix == range_prefix && number < count)
        });
        let (prefix, prefix_key) = (template.name.clone(), short_key(&template.name).unwrap_or(0));
        frame.ranges.push(Range { prefix, prefix_key, count, template, members, names_first });
        self.resolved.forget();
        Ok(())
    }

    /// Finds a name from the innermost scope outwards, then among the globals.
    #[inline]
    pub fn lookup<Name: ScopedName + ?Sized>(
        &mut self,
        name: &Name,
        variables: &mut Vec<Variable>,
    ) -> Option<VariableId> {
        let Some(key) = short_key(name.text()) else { return self.resolve(name, variables) };
        if let Some(id) = self.resolved.get(key) {
            return Some(id);
        }
        let id = self.resolve(name, variables)?;
        self.resolved.insert(key, id);
        Some(id)
    }

    /// [`Scopes::lookup`] without the cache: the scopes' own search.
    #[inline(never)]
    fn resolve<Name: ScopedName + ?Sized>(&mut self, name: &Name, variables: &mut Vec<Variable>) -> Option<VariableId> {
        let numbered = NumberedName::split(name.text());
        for depth in (0..self.frames.len()).rev() {
            if let Some(id) = self.find_at(depth, name, numbered, variables) {
                return Some(id);
            }
        }
        self.globals.get(name.text()).copied()
    }

    fn find_in_innermost(&mut self, name: &Word, variables: &mut Vec<Variable>) -> Option<VariableId> {
        let depth = self.frames.len() - 1;
        // A scope without ranges (a function's, while its parameters are declared) holds only
        // names: the name is not split, which costs most for the long names of parameters.
        if self.frames[depth].ranges.is_empty() {
            return self.frames[depth].names.get(name.as_str()).copied();
        }
        self.find_at(depth, name, NumberedName::split(name), variables)
    }

    /// Finds `name` (split as `numbered`) in the scope at `depth`.
    fn find_at<Name: ScopedName + ?Sized>(
        &mut self,
        depth: usize,
        name: &Name,
        numbered: Option<NumberedName>,
        variables: &mut Vec<Variable>,
    ) -> Option<VariableId> {
        let frame = &mut self.frames[depth];
        let numbered = numbered.and_then(|numbered| {
            let index = frame.ranges.iter().position(|range| numbered.is_in(range))?;
            Some((index, numbered.number))
        });
        // The common case: a member of a range (`%r42`), found by its number.
        if let Some((index, number)) = numbered {
            let range = &mut frame.ranges[index];
            if number < DENSE_MEMBERS && !range.names_first {
                return Some(range.member(number, name, variables));
            }
        }
        if let Some(id) = frame.names.get(name.text()) {
            return Some(*id);
        }
        let (index, number) = numbered?;
        let range = &mut frame.ranges[index];
        if number < DENSE_MEMBERS {
            return Some(range.member(number, name, variables));
        }
        let id = VariableId::Local(variables.len() as u32);
        variables.push(numbered_variable(&range.template, name.to_word()));
        frame.names.insert(name.to_word(), id);
        Some(id)
    }
}

/// A name to look up: a `&str`, or a `Word` of the syntax tree, which a register's first use
/// copies as it is (a short word is 24 bytes moved) rather than building a new one from its
/// text (a call to `memcpy` for a length not known in advance).
pub trait ScopedName {
    fn text(&self) -> &str;
    fn to_word(&self) -> Word;
}

impl ScopedName for str {
    #[inline]
    fn text(&self) -> &str {
        self
    }

    #[inline]
    fn to_word(&self) -> Word {
        Word::new(self)
    }
}

impl ScopedName for Word {
    #[inline]
    fn text(&self) -> &str {
        self.as_str()
    }

    #[inline]
    fn to_word(&self) -> Word {
        self.clone()
    }
}

/// The names that [`Scopes::lookup`] has resolved since the scopes last changed, by their
/// [`short_key`] (registers are short names): a register is used a few times, and after its
/// first use each use costs a multiply and one comparison instead of splitting `%r42` and
/// searching the scopes' ranges. A cache of one entry per slot, a later name taking the slot
/// of an earlier one; a declaration, or entering or leaving a block, forgets every entry at
/// once by starting a new generation.
struct ResolvedNames {
    /// A power of two of slots.
    slots: Vec<ResolvedName>,
    /// The generation of the entries that are still valid; slots of an older one are empty.
    generation: u32,
    /// 64 minus the number of bits that index `slots`.
    shift: u32,
}

#[derive(Clone, Copy)]
struct ResolvedName {
    key: u64,
    generation: u32,
    id: VariableId,
}

impl ResolvedNames {
    /// Room for about `registers` names without many collisions.
    fn new(registers: usize) -> ResolvedNames {
        let slots = Self::slots_for(registers);
        ResolvedNames { slots: vec![Self::EMPTY; slots], generation: 1, shift: 64 - slots.trailing_zeros() }
    }

    const EMPTY: ResolvedName = ResolvedName { key: 0, generation: 0, id: VariableId::Local(0) };

    fn slots_for(registers: usize) -> usize {
        (registers * 2).clamp(64, 1 << 14).next_power_of_two()
    }

    /// Empties the cache for a function of about `registers` registers, growing it if it is
    /// too small for them; a larger one, left by an earlier function, is kept as it is.
    fn start_function(&mut self, registers: usize) {
        let slots = Self::slots_for(registers);
        if slots > self.slots.len() {
            *self = ResolvedNames::new(registers);
        } else {
            self.forget();
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        // FxHash's multiplier spreads the name's bytes into the high bits, which index.
        (key.wrapping_mul(0x51_7c_c1_b7_27_22_0a_95) >> self.shift) as usize
    }

    #[inline]
    fn get(&self, key: u64) -> Option<VariableId> {
        let entry = self.slots.get(self.slot(key))?;
        (entry.key == key && entry.generation == self.generation).then_some(entry.id)
    }

    #[inline]
    fn insert(&mut self, key: u64, id: VariableId) {
        let (slot, generation) = (self.slot(key), self.generation);
        if let Some(entry) = self.slots.get_mut(slot) {
            *entry = ResolvedName { key, generation, id };
        }
    }

    /// Empties the cache: O(1), by a new generation, unless the generation counter wraps.
    fn forget(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.iter_mut().for_each(|entry| entry.generation = 0);
            self.generation = 1;
        }
    }
}

impl Range {
    /// The variable of member `number` (below [`DENSE_MEMBERS`]), called `name`, created at
    /// its first use.
    #[inline]
    fn member<Name: ScopedName + ?Sized>(
        &mut self,
        number: u32,
        name: &Name,
        variables: &mut Vec<Variable>,
    ) -> VariableId {
        match self.members.get(number as usize) {
            Some(&index) if index != NO_VARIABLE => VariableId::Local(index),
            _ => self.first_use(number, name, variables),
        }
    }

    /// [`Range::member`] for a member without a variable yet.
    #[inline(never)]
    fn first_use<Name: ScopedName + ?Sized>(
        &mut self,
        number: u32,
        name: &Name,
        variables: &mut Vec<Variable>,
    ) -> VariableId {
        let slot = number as usize;
        if slot >= self.members.len() {
            self.members.resize(slot + 1, NO_VARIABLE);
        }
        self.members[slot] = variables.len() as u32;
        variables.push(numbered_variable(&self.template, name.to_word()));
        VariableId::Local(self.members[slot])
    }
}

/// The member `name` of a range declared like `template`: built field by field, because
/// `..template.clone()` would copy the template's name only to drop it. Inlined, so that it is
/// built where it is pushed rather than copied there.
#[inline(always)]
fn numbered_variable(template: &Variable, name: Word) -> Variable {
    Variable {
        name,
        state_space: template.state_space,
        ty: template.ty,
        vector: template.vector,
        array_length: template.array_length,
        align: template.align,
        linkage: template.linkage,
        opaque: template.opaque,
        initializer: template.initializer.clone(),
        span: template.span,
    }
}

/// A name split as a member of a range would be: `%r42` is the prefix `%r` and the number 42.
#[derive(Clone, Copy)]
struct NumberedName<'name> {
    prefix: &'name str,
    /// `prefix` as a [`short_key`], 0 for a longer one (no key is 0: it holds the length).
    prefix_key: u64,
    number: u32,
}

impl NumberedName<'_> {
    fn split(name: &str) -> Option<NumberedName<'_>> {
        let (prefix, number) = split_numbered_name(name)?;
        Some(NumberedName { prefix, prefix_key: short_key(prefix).unwrap_or(0), number })
    }

    #[inline]
    fn is_in(&self, range: &Range) -> bool {
        let same_prefix = if self.prefix_key != 0 {
            self.prefix_key == range.prefix_key
        } else {
            range.prefix_key == 0 && self.prefix == range.prefix.as_str()
        };
        same_prefix && self.number < range.count
    }
}

/// `%r42` is `("%r", 42)`. Leading zeros (`%r07`) name no member of a range, nor does a number
/// beyond `u32`.
fn split_numbered_name(name: &str) -> Option<(&str, u32)> {
    // Every register's first use is split so. The digits are found first and then read
    // forwards, each a multiply-add: reading them from the end kept a scale beside the number
    // and checked the digit count at every step, twice the work.
    let bytes = name.as_bytes();
    let prefix_length = bytes.iter().rposition(|byte| !byte.is_ascii_digit()).map_or(0, |last| last + 1);
    let digits = &bytes[prefix_length..];
    // More than 10 digits is beyond `u32` (and would overflow the `u64` below at 20).
    if digits.is_empty() || digits.len() > 10 || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    let number = digits.iter().fold(0u64, |number, digit| number * 10 + u64::from(digit - b'0'));
    // The digits are ASCII, so the prefix ends on a character boundary.
    Some((&name[..prefix_length], u32::try_from(number).ok()?))
}

#[cfg(test)]
mod tests {
    use super::{split_numbered_name, Scopes, DENSE_MEMBERS};
    use crate::check::name_map::NameMap;
    use crate::ir::{Variable, VariableId};
    use crate::span::Span;
    use crate::syntax::ast::Word;
    use crate::vocabulary::{ScalarType, StateSpace};

    fn register(name: &str, at: u32) -> Variable {
        Variable {
            name: Word::new(name),
            state_space: StateSpace::Reg,
            ty: ScalarType::B32,
            vector: None,
            array_length: None,
            align: None,
            linkage: None,
            opaque: None,
            initializer: None,
            span: Span { start: at, end: at + 1 },
        }
    }

    #[test]
    fn range_members_become_variables_at_their_first_use() {
        let globals = NameMap::default();
        let mut scopes = Scopes::new(&globals, 0);
        let mut variables = Vec::new();
        // `%r5` declared alone before the range keeps its own variable.
        let alone = scopes.declare(register("%r5", 1), &mut variables);
        assert_eq!(alone, Ok(VariableId::Local(0)));
        assert_eq!(scopes.declare_range(register("%r", 2), u32::MAX), Ok(()));
        assert_eq!(scopes.declare_range(register("%rd", 3), 4), Ok(()));
        assert_eq!(scopes.declare_range(register("%a_long_prefix_", 4), 3), Ok(()));
        assert_eq!(scopes.declare_range(register("%r", 5), 1), Err(Span { start: 2, end: 3 }));
        let high = format!("%r{}", DENSE_MEMBERS + 7);
        let mut lookup = |name: &str| scopes.lookup(name, &mut variables);
        assert_eq!(lookup("%r5"), Some(VariableId::Local(0)));
        assert_eq!(lookup("%r7"), Some(VariableId::Local(1)));
        assert_eq!(lookup(&high), Some(VariableId::Local(2)));
        assert_eq!(lookup("%rd3"), Some(VariableId::Local(3)));
        assert_eq!(lookup("%a_long_prefix_2"), Some(VariableId::Local(4)));
        assert_eq!(lookup("%r7"), Some(VariableId::Local(1)));
        assert_eq!(lookup(&high), Some(VariableId::Local(2)));
        assert_eq!(lookup("%rd3"), Some(VariableId::Local(3)));
        assert_eq!(lookup("%a_long_prefix_2"), Some(VariableId::Local(4)));
        assert_eq!(lookup("%rd4"), None);
        assert_eq!(lookup("%a_long_prefix_3"), None);
        assert_eq!(lookup("%r07"), None);
        assert_eq!(lookup("%q1"), None);
        let names: Vec<&str> = variables.iter().map(|variable| variable.name.as_str()).collect();
        assert_eq!(names, ["%r5", "%r7", high.as_str(), "%rd3", "%a_long_prefix_2"]);
        // A nested scope's range hides the outer one; leaving it shows the outer one again.
        scopes.enter();
        assert_eq!(scopes.declare_range(register("%r", 6), 10), Ok(()));
        assert_eq!(scopes.lookup("%r7", &mut variables), Some(VariableId::Local(5)));
        assert_eq!(scopes.lookup("%rd3", &mut variables), Some(VariableId::Local(3)));
        scopes.leave();
        assert_eq!(scopes.lookup("%r7", &mut variables), Some(VariableId::Local(1)));
        // A name found before (and so remembered) is hidden by a later declaration in a nested
        // scope, and found again once that scope is left.
        scopes.enter();
        assert_eq!(scopes.lookup("%rd3", &mut variables), Some(VariableId::Local(3)));
        assert_eq!(scopes.declare(register("%rd3", 7), &mut variables), Ok(VariableId::Local(6)));
        assert_eq!(scopes.lookup("%rd3", &mut variables), Some(VariableId::Local(6)));
        scopes.leave();
        assert_eq!(scopes.lookup("%rd3", &mut variables), Some(VariableId::Local(3)));
    }

    #[test]
    fn names_sharing_a_cache_slot_keep_their_own_variables() {
        // Far more names than the smallest cache has slots: every slot is taken over many times.
        let globals = NameMap::default();
        let mut scopes = Scopes::new(&globals, 0);
        let mut variables = Vec::new();
        assert_eq!(scopes.declare_range(register("%r", 1), 5000), Ok(()));
        assert_eq!(scopes.declare_range(register("%rd", 2), 5000), Ok(()));
        let mut first = Vec::new();
        for number in 0..5000 {
            first.push(scopes.lookup(format!("%r{number}").as_str(), &mut variables));
            first.push(scopes.lookup(format!("%rd{number}").as_str(), &mut variables));
        }
        for number in (0..5000).rev() {
            assert_eq!(scopes.lookup(format!("%rd{number}").as_str(), &mut variables), first[2 * number + 1]);
            assert_eq!(scopes.lookup(format!("%r{number}").as_str(), &mut variables), first[2 * number]);
        }
        assert_eq!(variables.len(), 10000);
        assert!(variables.iter().enumerate().all(|(index, variable)| {
            let number = index / 2;
            let prefix = if index % 2 == 0 { "%r" } else { "%rd" };
            variable.name.as_str() == format!("{prefix}{number}")
        }));
    }

    #[test]
    fn a_new_function_sees_none_of_the_names_of_the_one_before() {
        let globals = NameMap::default();
        let mut scopes = Scopes::new(&globals, 0);
        let mut variables = Vec::new();
        assert_eq!(scopes.declare_range(register("%r", 1), 10), Ok(()));
        assert_eq!(scopes.declare(register("%p", 2), &mut variables), Ok(VariableId::Local(0)));
        assert_eq!(scopes.lookup("%r3", &mut variables), Some(VariableId::Local(1)));
        scopes.enter();
        assert_eq!(scopes.declare_range(register("%f", 3), 10), Ok(()));
        // Left open, as a body with an error might leave it: the next function starts afresh.
        scopes.start_function(5000);
        let mut variables = Vec::new();
        assert_eq!(scopes.lookup("%r3", &mut variables), None);
        assert_eq!(scopes.lookup("%p", &mut variables), None);
        assert_eq!(scopes.lookup("%f1", &mut variables), None);
        assert_eq!(scopes.declare_range(register("%r", 4), 2), Ok(()));
        assert_eq!(scopes.lookup("%r3", &mut variables), None);
        assert_eq!(scopes.lookup("%r1", &mut variables), Some(VariableId::Local(0)));
        assert_eq!(scopes.declare(register("%p", 5), &mut variables), Ok(VariableId::Local(1)));
        scopes.start_function(0);
        assert_eq!(scopes.lookup("%r1", &mut variables), None);
    }

    #[test]
    fn splits_numbered_names() {
        assert_eq!(split_numbered_name("%r42"), Some(("%r", 42)));
        assert_eq!(split_numbered_name("%rd0"), Some(("%rd", 0)));
        assert_eq!(split_numbered_name("%r07"), None);
        assert_eq!(split_numbered_name("%r"), None);
        assert_eq!(split_numbered_name("%r4294967295"), Some(("%r", u32::MAX)));
        assert_eq!(split_numbered_name("%r4294967296"), None);
        assert_eq!(split_numbered_name("7"), Some(("", 7)));
        assert_eq!(split_numbered_name("%r12345678901"), None);
        assert_eq!(split_numbered_name("%r0"), Some(("%r", 0)));
        assert_eq!(split_numbered_name("%r00"), None);
        assert_eq!(split_numbered_name("é12"), Some(("é", 12)));
    }
}
