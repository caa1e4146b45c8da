//! Kernels and functions (ISA 7.8 sections 11.1-11.4): `.entry name (params) attributes body`
//! and `.func (returns) name (params) attributes body`, where a `;` in place of the body makes
//! a declaration.

use chumsky::prelude::*;

use super::declaration::opaque_type;
use super::error::Label;
use super::statement::block;
use super::tokens::{
    align, integer, integer_u32, keyword, punct, scalar_type, state_space, string, vector_width, word,
};
use super::PtxParser;
use crate::span::Spanned;
use crate::syntax::ast::{Function, FunctionAttribute, FunctionKind, Parameter, PointerAttribute, Word};
use crate::syntax::lexer::TokenKind;
use crate::vocabulary::StateSpace;

/// `.ptr [.global|.shared|.const|.local] [.align N]` after a parameter's type.
fn pointer<'t, 's: 't>() -> impl PtxParser<'t, 's, PointerAttribute> {
    keyword("ptr")
        .ignore_then(state_space(&["global", "shared", "const", "local"]).or_not())
        .then(align().or_not())
        .map(|(state_space, align)| PointerAttribute { state_space: state_space.map(|space| space.node), align })
}

/// `.param .u64 .ptr .global .align 8 name`, `.param .align 16 .b8 name[16]`, `.reg .b32 x`,
/// `.reg .v4 .u16 input`.
fn parameter<'t, 's: 't>() -> impl PtxParser<'t, 's, Parameter> {
    #[derive(Clone, Copy)]
    enum Prefix {
        Align(u32),
        Vector(u32),
    }
    let prefix =
        choice((align().map(Prefix::Align), vector_width().map(Prefix::Vector))).repeated().collect::<Vec<_>>();
    let name =
        choice((word(), punct(TokenKind::Underscore).map_with(|_, extra| Spanned::new(Word::new("_"), extra.span()))))
            .labelled(Label::ParameterName);
    let array =
        integer_u32("an array size").delimited_by(punct(TokenKind::LeftBracket), punct(TokenKind::RightBracket));
    // `.param .texref t` and the other opaque handles: 64-bit parameters in `.tex`, as their
    // variables are.
    let ty = choice((scalar_type().map(|ty| (ty, false)), opaque_type().map(|(ty, _)| (ty, true))));
    state_space(&["param", "reg"])
        .then(prefix)
        .then(ty)
        .then(pointer().or_not())
        .then(align().or_not())
        .then(name)
        .then(array.or_not())
        .map_with(|((((((state_space, prefix), (ty, opaque)), pointer), late_align), name), array), extra| {
            let state_space = if opaque { Spanned::new(StateSpace::Tex, ty.span) } else { state_space };
            let (mut align, mut vector) = (late_align, None);
            for item in prefix {
                match item {
                    Prefix::Align(value) => align = Some(value),
                    Prefix::Vector(value) => vector = Some(value),
                }
            }
            Parameter { state_space, ty, vector, align, pointer, name, array, span: extra.span() }
        })
}

fn parameter_list<'t, 's: 't>() -> impl PtxParser<'t, 's, Vec<Parameter>> {
    parameter()
        .separated_by(punct(TokenKind::Comma))
        .collect::<Vec<_>>()
        .delimited_by(punct(TokenKind::LeftParen), punct(TokenKind::RightParen))
}

/// The performance-tuning and cluster directives that may follow a function header.
pub(super) const ATTRIBUTES: &[&str] = &[
    "maxntid",
    "reqntid",
    "minnctapersm",
    "maxnctapersm",
    "maxnreg",
    "noreturn",
    "explicitcluster",
    "reqnctapercluster",
    "maxclusterrank",
    "blocksareclusters",
    "abi_preserve",
    "abi_preserve_control",
];

/// `.maxntid 256, 1, 1`, `.noreturn`, and `.pragma "..." ;` (kept by name only).
fn attribute<'t, 's: 't>() -> impl PtxParser<'t, 's, FunctionAttribute> {
    let name = select! {
        TokenKind::DotName(name) = extra if ATTRIBUTES.contains(&name) => Spanned::new(name.to_string(), extra.span()),
    }
    .labelled(Label::FunctionAttribute);
    let tuning = name
        .then(integer().separated_by(punct(TokenKind::Comma)).collect::<Vec<_>>())
        .map_with(|(name, values), extra| FunctionAttribute { name, values, span: extra.span() });
    let pragma = keyword("pragma")
        .map_with(|_, extra| Spanned::new("pragma".to_string(), extra.span()))
        .then_ignore(string().separated_by(punct(TokenKind::Comma)).at_least(1))
        .then_ignore(punct(TokenKind::Semicolon))
        .map_with(|name, extra| FunctionAttribute { name, values: Vec::new(), span: extra.span() });
    choice((tuning, pragma))
}

/// A function or kernel; the caller fills in the linkage.
pub(super) fn function<'t, 's: 't>() -> impl PtxParser<'t, 's, Function> {
    let kind = select! {
        TokenKind::DotName("entry") => FunctionKind::Entry,
        TokenKind::DotName("func") => FunctionKind::Func,
    };
    let body = choice((block().map(Some), punct(TokenKind::Semicolon).to(None))).labelled(Label::FunctionBody);
    kind.then(parameter_list().or_not())
        .then(word().labelled(Label::FunctionName))
        .then(parameter_list().or_not())
        .then(attribute().repeated().collect::<Vec<_>>())
        .then(body)
        .map_with(|(((((kind, returns), name), parameters), attributes), body), extra| Function {
            linkage: None,
            kind,
            name,
            return_parameters: returns.unwrap_or_default(),
            parameters: parameters.unwrap_or_default(),
            attributes,
            body,
            span: extra.span(),
        })
        .boxed()
}
