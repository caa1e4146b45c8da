//! Parsers for single tokens: names, numbers, strings, keywords, punctuation, types and state
//! spaces. Each is labelled with what an error message should call it.

use chumsky::prelude::*;

use super::error::Label;
use super::{diagnostics, PtxParser};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::{Span, Spanned};
use crate::syntax::ast::Word;
use crate::syntax::lexer::TokenKind;
use crate::vocabulary::{ScalarType, StateSpace};

/// One punctuation token (or any exact token).
pub(super) fn punct<'t, 's: 't>(kind: TokenKind<'s>) -> impl PtxParser<'t, 's, TokenKind<'s>> {
    just(kind)
}

/// A directive or modifier keyword written with its dot, such as `.reg`; `name` is without it.
pub(super) fn keyword<'t, 's: 't>(name: &'static str) -> impl PtxParser<'t, 's, TokenKind<'s>> {
    just(TokenKind::DotName(name))
}

/// A name with its span, as an owned string.
pub(super) fn identifier<'t, 's: 't>() -> impl PtxParser<'t, 's, Spanned<String>> {
    select! { TokenKind::Identifier(name) = extra => Spanned::new(name.to_string(), extra.span()) }
        .labelled(Label::Name)
}

pub(super) fn integer<'t, 's: 't>() -> impl PtxParser<'t, 's, u64> {
    select! { TokenKind::Integer(value) => value }.labelled(Label::Integer)
}

/// A name with its span, as a [`Word`] (the tree's function, parameter and variable names).
pub(super) fn word<'t, 's: 't>() -> impl PtxParser<'t, 's, Spanned<Word>> {
    select! { TokenKind::Identifier(name) = extra => Spanned::new(Word::new(name), extra.span()) }.labelled(Label::Name)
}

/// An integer that must fit in 32 bits (alignments, counts, indices); a larger one is reported
/// and clamped.
pub(super) fn integer_u32<'t, 's: 't>(what: &'static str) -> impl PtxParser<'t, 's, u32> {
    select! { TokenKind::Integer(value) = extra => (value, extra.span()) }.labelled(Label::Integer).map_with(
        move |(value, span), extra| match u32::try_from(value) {
            Ok(value) => value,
            Err(_) => {
                report_too_large(diagnostics(extra), span, what);
                u32::MAX
            }
        },
    )
}

fn report_too_large(diagnostics: &mut Vec<Diagnostic>, span: Span, what: &str) {
    diagnostics.push(
        Diagnostic::error(Code::InvalidLiteral, format!("{what} does not fit in 32 bits"))
            .with_primary(span, "this number is too large"),
    );
}

pub(super) fn string<'t, 's: 't>() -> impl PtxParser<'t, 's, &'s str> {
    select! { TokenKind::String(text) => text }.labelled(Label::String)
}

/// A fundamental type such as `.b32` or `.pred`.
pub(super) fn scalar_type<'t, 's: 't>() -> impl PtxParser<'t, 's, Spanned<ScalarType>> {
    select! {
        TokenKind::DotName(name) = extra if ScalarType::from_ptx(name).is_some() =>
            Spanned::new(ScalarType::from_ptx(name).unwrap_or(ScalarType::B32), extra.span()),
    }
    .labelled(Label::Type)
}

/// A state space keyword among `allowed` (names without the dot).
pub(super) fn state_space<'t, 's: 't>(allowed: &'static [&'static str]) -> impl PtxParser<'t, 's, Spanned<StateSpace>> {
    select! {
        TokenKind::DotName(name) = extra if allowed.contains(&name) =>
            Spanned::new(StateSpace::from_ptx(name).unwrap_or(StateSpace::Global), extra.span()),
    }
    .labelled(Label::StateSpace)
}

/// The state spaces a variable can be declared in.
pub(super) const VARIABLE_SPACES: &[&str] = &["reg", "global", "const", "shared", "local", "param", "tex"];

/// `.align N`.
pub(super) fn align<'t, 's: 't>() -> impl PtxParser<'t, 's, u32> {
    keyword("align").ignore_then(integer_u32("an alignment"))
}

/// `.v2`, `.v3` (older PTX), `.v4`, `.v8`: a vector width.
pub(super) fn vector_width<'t, 's: 't>() -> impl PtxParser<'t, 's, u32> {
    select! {
        TokenKind::DotName("v2") => 2,
        TokenKind::DotName("v3") => 3,
        TokenKind::DotName("v4") => 4,
        TokenKind::DotName("v8") => 8,
    }
    .labelled(Label::VectorWidth)
}

/// The text of a string literal with `\"` and `\\` resolved.
pub(super) fn unescape(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut characters = text.chars();
    while let Some(character) = characters.next() {
        if character == '\\' {
            out.push(characters.next().unwrap_or('\\'));
        } else {
            out.push(character);
        }
    }
    out
}

/// `.pragma "a", "b";` at module or statement level: the strings, unescaped and joined by `, `.
pub(super) fn pragma_text<'t, 's: 't>() -> impl PtxParser<'t, 's, String> {
    keyword("pragma")
        .ignore_then(string().separated_by(punct(TokenKind::Comma)).at_least(1).collect::<Vec<_>>())
        .then_ignore(punct(TokenKind::Semicolon))
        .map(|texts| texts.into_iter().map(unescape).collect::<Vec<_>>().join(", "))
}
