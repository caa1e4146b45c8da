//! An instruction's spelling (`ld.global.nc.b32`), read back from the source for diagnostics.
//!
//! The checked module keeps only the span of an instruction's opcode and modifiers
//! (`GuardedInstruction::spelling`): joining them into a string for every instruction cost the
//! checker a twentieth of its time, for the few instructions that a diagnostic ever names.

use crate::span::Span;

/// The opcode and modifiers that `span` covers in `source`, joined by their dots as the
/// checker saw them: the whitespace and comments that PTX allows between an opcode and its
/// `.`-modifiers (`ld /* x */ .global`) are left out. A span outside `source` (a module checked
/// from another text) gives an empty string rather than a panic.
pub fn instruction_spelling(source: &str, span: Span) -> String {
    let Some(text) = source.get(span.start as usize..span.end as usize) else { return String::new() };
    let mut spelling = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(character) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |end| &after[end..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |end| &after[end + 2..]);
        } else {
            if !character.is_whitespace() {
                spelling.push(character);
            }
            rest = &rest[character.len_utf8()..];
        }
    }
    spelling
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelling_of(source: &str, opcode: &str, last_modifier: &str) -> String {
        let start = source.find(opcode).expect("the opcode is in the source") as u32;
        let end = (source.rfind(last_modifier).expect("the modifier is in the source") + last_modifier.len()) as u32;
        instruction_spelling(source, Span { start, end })
    }

    #[test]
    fn a_plain_instruction_is_its_text() {
        assert_eq!(spelling_of("\tld.global.nc.b32 %r1, [%rd1];", "ld", ".b32"), "ld.global.nc.b32");
    }

    #[test]
    fn whitespace_and_comments_between_modifiers_are_left_out() {
        let source = "mad /* c */ .lo // line\n  .s32\t.sat %r1, %r2, %r3, %r4;";
        assert_eq!(spelling_of(source, "mad", ".sat"), "mad.lo.s32.sat");
    }

    #[test]
    fn a_span_outside_the_source_is_empty() {
        assert_eq!(instruction_spelling("ret;", Span { start: 2, end: 40 }), "");
    }
}
