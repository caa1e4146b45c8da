//! Name resolution with block scoping. Parameterized declarations (`%r<100>`) are kept as
//! ranges and a name such as `%r42` becomes a variable only when first used, so a function that
//! declares `%r<100000>` costs nothing for the registers it never touches.

use super::name_map::NameMap;
use crate::ir::{Variable, VariableId};
use crate::span::Span;
use crate::syntax::ast::Word;

#[derive(Default)]
struct Frame {
    /// Keyed by `Word`: most names fit inline, so a first use allocates no key.
    names: NameMap<Word, VariableId>,
    /// `(prefix, count, template)`: `%r<12>` is `("%r", 12, the declaration's variable)`.
    ranges: Vec<(String, u32, Variable)>,
}

/// The scopes of one function body, innermost last, above the module's globals.
pub struct Scopes<'module> {
    globals: &'module NameMap<String, VariableId>,
    frames: Vec<Frame>,
}

impl<'module> Scopes<'module> {
    pub fn new(globals: &'module NameMap<String, VariableId>) -> Scopes<'module> {
        Scopes { globals, frames: vec![Frame::default()] }
    }

    pub fn enter(&mut self) {
        self.frames.push(Frame::default());
    }

    pub fn leave(&mut self) {
        self.frames.pop();
    }

    /// Declares `variable` in the innermost scope and returns its id, or the id of the earlier
    /// declaration of that name in the same scope as the error.
    pub fn declare(&mut self, variable: Variable, variables: &mut Vec<Variable>) -> Result<VariableId, VariableId> {
        if let Some(existing) = self.find_in_innermost(&variable.name, variables) {
            return Err(existing);
        }
        let id = VariableId::Local(variables.len() as u32);
        let frame = self.frames.last_mut().expect("a scope is always open");
        frame.names.insert(Word::new(&variable.name), id);
        variables.push(variable);
        Ok(id)
    }

    /// Declares `prefix0` to `prefix{count-1}` lazily. An earlier range with the same prefix in
    /// this scope is an error, holding that declaration's span.
    pub fn declare_range(&mut self, template: Variable, count: u32) -> Result<(), Span> {
        let frame = self.frames.last_mut().expect("a scope is always open");
        if let Some((_, _, earlier)) = frame.ranges.iter().find(|(prefix, _, _)| *prefix == template.name) {
            return Err(earlier.span);
        }
        frame.ranges.push((template.name.clone(), count, template));
        // Compilers declare about as many registers as they use: room for them up front saves
        // growing (and rehashing) the table as each is first used. Capped so that a huge
        // declaration of unused registers costs nothing.
        frame.names.reserve(count.min(4096) as usize);
        Ok(())
    }

    /// Finds a name from the innermost scope outwards, then among the globals.
    pub fn lookup(&mut self, name: &str, variables: &mut Vec<Variable>) -> Option<VariableId> {
        for depth in (0..self.frames.len()).rev() {
            if let Some(id) = self.find_at(depth, name, variables) {
                return Some(id);
            }
        }
        self.globals.get(name).copied()
    }

    fn find_in_innermost(&mut self, name: &str, variables: &mut Vec<Variable>) -> Option<VariableId> {
        let depth = self.frames.len() - 1;
        self.find_at(depth, name, variables)
    }

    fn find_at(&mut self, depth: usize, name: &str, variables: &mut Vec<Variable>) -> Option<VariableId> {
        let frame = &mut self.frames[depth];
        if let Some(id) = frame.names.get(name) {
            return Some(*id);
        }
        let (prefix, number) = split_numbered_name(name)?;
        let (_, _, template) =
            frame.ranges.iter().find(|(range_prefix, count, _)| range_prefix == prefix && number < *count)?;
        let id = VariableId::Local(variables.len() as u32);
        variables.push(numbered_variable(template, name));
        frame.names.insert(Word::new(name), id);
        Some(id)
    }
}

/// The member `name` of a range declared like `template`: built field by field, because
/// `..template.clone()` would copy the template's name only to drop it.
fn numbered_variable(template: &Variable, name: &str) -> Variable {
    Variable {
        name: name.to_string(),
        state_space: template.state_space,
        ty: template.ty,
        vector: template.vector,
        array_length: template.array_length,
        align: template.align,
        linkage: template.linkage,
        initializer: template.initializer.clone(),
        addresses: template.addresses.clone(),
        span: template.span,
    }
}

/// `%r42` is `("%r", 42)`. Leading zeros (`%r07`) name no member of a range.
fn split_numbered_name(name: &str) -> Option<(&str, u32)> {
    let digits_start = name.trim_end_matches(|character: char| character.is_ascii_digit()).len();
    let digits = &name[digits_start..];
    if digits.is_empty() || (digits.len() > 1 && digits.starts_with('0')) {
        return None;
    }
    Some((&name[..digits_start], digits.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::split_numbered_name;

    #[test]
    fn splits_numbered_names() {
        assert_eq!(split_numbered_name("%r42"), Some(("%r", 42)));
        assert_eq!(split_numbered_name("%rd0"), Some(("%rd", 0)));
        assert_eq!(split_numbered_name("%r07"), None);
        assert_eq!(split_numbered_name("%r"), None);
    }
}
