//! What to skip after a syntax error, and other parsers that pass over tokens without reading
//! them (DWARF sections, the bodies of directives ptxr does not model).

use chumsky::prelude::*;

use super::tokens::punct;
use super::{ParserError, PtxParser};
use crate::syntax::lexer::TokenKind;

/// `{ ... }` with balanced nested braces, contents ignored. A plain loop, since DWARF sections
/// hold thousands of tokens.
pub(super) fn balanced_braces<'t, 's: 't>() -> impl PtxParser<'t, 's, ()> {
    custom(|input| {
        let before = input.cursor();
        match input.peek() {
            Some(TokenKind::LeftBrace) => input.skip(),
            found => {
                let span = next_span(input);
                return Err(ParserError::expected_token(found, span, TokenKind::LeftBrace));
            }
        }
        let mut depth = 1usize;
        while let Some(kind) = input.next() {
            match kind {
                TokenKind::LeftBrace => depth += 1,
                TokenKind::RightBrace if depth == 1 => return Ok(()),
                TokenKind::RightBrace => depth -= 1,
                _ => {}
            }
        }
        let span = input.span_since(&before);
        Err(ParserError::expected_token(None, span, TokenKind::RightBrace))
    })
}

/// The span of the next token (empty at the end of the input), without consuming it.
fn next_span<'t, 's: 't>(
    input: &mut chumsky::input::InputRef<'t, '_, super::ParserInput<'t, 's>, super::Extra<'t, 's>>,
) -> crate::span::Span {
    let here = input.save();
    let start = input.cursor();
    input.skip();
    let span = input.span_since(&start);
    input.rewind(here);
    span
}

/// Everything up to and including the next `;`, not crossing a brace: the operands of
/// statement directives ptxr keeps no record of (`.callprototype`, `.branchtargets`).
pub(super) fn rest_of_statement<'t, 's: 't>() -> impl PtxParser<'t, 's, ()> {
    none_of([TokenKind::Semicolon, TokenKind::LeftBrace, TokenKind::RightBrace])
        .repeated()
        .then_ignore(punct(TokenKind::Semicolon))
}

/// After a statement fails: skips at least one token, through the next `;`, or up to the `}`
/// that closes the enclosing block (braces opened on the way, as in a broken vector operand,
/// are balanced). Fails, consuming nothing, at a `}` or at the end of the input, so that the
/// statement loop ends there.
pub(super) fn skip_statement<'t, 's: 't>() -> impl PtxParser<'t, 's, ()> {
    custom(|input| {
        let before = input.cursor();
        if matches!(input.peek(), None | Some(TokenKind::RightBrace)) {
            let span = input.span_since(&before);
            return Err(ParserError::expecting_nothing(None, span));
        }
        let mut depth = 0usize;
        while let Some(kind) = input.peek() {
            match kind {
                TokenKind::Semicolon => {
                    input.skip();
                    break;
                }
                TokenKind::LeftBrace => depth += 1,
                TokenKind::RightBrace if depth == 0 => break,
                TokenKind::RightBrace => depth -= 1,
                _ => {}
            }
            input.skip();
        }
        Ok(())
    })
}

/// Directives that begin a module-level item; skipping after an error stops in front of one.
fn starts_module_item(name: &str) -> bool {
    matches!(
        name,
        "version"
            | "target"
            | "address_size"
            | "file"
            | "section"
            | "pragma"
            | "alias"
            | "visible"
            | "extern"
            | "weak"
            | "common"
            | "entry"
            | "func"
            | "global"
            | "const"
            | "shared"
            | "local"
            | "tex"
            | "texref"
            | "samplerref"
            | "surfref"
            | "struct"
            | "union"
    )
}

/// Keywords that are followed by more of the same item (`.visible .entry`, `.global .texref`).
fn is_item_prefix(name: &str) -> bool {
    matches!(name, "visible" | "extern" | "weak" | "common" | "global" | "const" | "shared" | "local" | "tex")
}

/// After a module directive fails: skips at least one token, then up to the next module-level
/// directive, through a `;`, or through a balanced `{...}` (a function body). Fails only at the
/// end of the input.
pub(super) fn skip_directive<'t, 's: 't>() -> impl PtxParser<'t, 's, ()> {
    custom(|input| {
        let before = input.cursor();
        let Some(first) = input.next() else {
            let span = input.span_since(&before);
            return Err(ParserError::expecting_nothing(None, span));
        };
        let mut depth = match first {
            TokenKind::Semicolon | TokenKind::RightBrace => return Ok(()),
            TokenKind::LeftBrace => 1usize,
            _ => 0,
        };
        let mut after_prefix = matches!(first, TokenKind::DotName(name) if is_item_prefix(name));
        while let Some(kind) = input.peek() {
            match kind {
                TokenKind::DotName(name) if depth == 0 && !after_prefix && starts_module_item(name) => break,
                TokenKind::Semicolon if depth == 0 => {
                    input.skip();
                    break;
                }
                TokenKind::LeftBrace => depth += 1,
                TokenKind::RightBrace if depth <= 1 => {
                    input.skip();
                    break;
                }
                TokenKind::RightBrace => depth -= 1,
                _ => {}
            }
            after_prefix = matches!(kind, TokenKind::DotName(name) if is_item_prefix(name));
            input.skip();
        }
        Ok(())
    })
}
