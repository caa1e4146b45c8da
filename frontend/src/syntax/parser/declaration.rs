//! Variable declarations (ISA 7.8 section 5.3), at module scope and in function bodies:
//! `.reg .b32 %r<12>, %x;`, `.global .align 4 .b8 table[4][8] = {...};`,
//! `.extern .shared .align 16 .b8 dynamic[];`, and the texture, sampler and surface handles
//! (`.texref`, `.samplerref`, `.surfref`), which are kept as 64-bit `.tex` variables.
//!
//! ISA 1.x forms: the banked constant space `.const[0]` (only bank 0 exists there, and it is
//! plain `.const`), and untyped texture declarations `.tex tex_a;` and `.tex[2] tex_b;` bound
//! to a hardware texture id, which are kept as 64-bit `.tex` handles like `.texref`.

use chumsky::prelude::*;

use super::error::Label;
use super::expression::{evaluate, expression, Symbols, Value};
use super::tokens::{
    align, identifier, integer_u32, keyword, punct, scalar_type, state_space, vector_width, VARIABLE_SPACES,
};
use super::{diagnostics, PtxParser};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Spanned;
use crate::syntax::ast::{DeclaredName, Initializer, VariableDeclaration, Word};
use crate::syntax::lexer::TokenKind;
use crate::vocabulary::{OpaqueType, ScalarType, StateSpace};

/// `.align N` and `.vN` in front of the type, in either order.
#[derive(Clone, Copy)]
enum Attribute {
    Align(u32),
    Vector(u32),
}

fn attributes<'t, 's: 't>() -> impl PtxParser<'t, 's, (Option<u32>, Option<u32>)> {
    choice((align().map(Attribute::Align), vector_width().map(Attribute::Vector))).repeated().collect::<Vec<_>>().map(
        |attributes| {
            let (mut align, mut vector) = (None, None);
            for attribute in attributes {
                match attribute {
                    Attribute::Align(value) => align = Some(value),
                    Attribute::Vector(value) => vector = Some(value),
                }
            }
            (align, vector)
        },
    )
}

/// `{ 1, 2, { 3, 4 } }` or one constant expression (which may name variables).
pub(super) fn initializer<'t, 's: 't>() -> impl PtxParser<'t, 's, Initializer> {
    recursive(|initializer| {
        let list = initializer
            .separated_by(punct(TokenKind::Comma))
            .allow_trailing()
            .collect::<Vec<_>>()
            .delimited_by(punct(TokenKind::LeftBrace), punct(TokenKind::RightBrace))
            .map_with(|items, extra| Initializer::List(items, extra.span()));
        choice((list, expression(Symbols::Allowed).map(Initializer::Expression))).labelled(Label::Initializer).boxed()
    })
}

/// One array dimension: `[16]`, `[4*4]` or `[]`.
fn dimension<'t, 's: 't>() -> impl PtxParser<'t, 's, Option<u32>> {
    expression(Symbols::Forbidden)
        .map_with(|size, extra| match evaluate(&size.node) {
            Ok(Value::Integer(value)) if (0..=i128::from(u32::MAX)).contains(&value) => value as u32,
            _ => {
                diagnostics(extra).push(
                    Diagnostic::error(Code::InvalidDeclaration, "invalid array size")
                        .with_primary(size.span, "an array size must be a non-negative 32-bit integer constant"),
                );
                0
            }
        })
        .or_not()
        .delimited_by(punct(TokenKind::LeftBracket), punct(TokenKind::RightBracket))
}

/// `name`, `%r<12>`, `table[4][8] = {...}`.
fn declared_name<'t, 's: 't>(dimension: impl PtxParser<'t, 's, Option<u32>>) -> impl PtxParser<'t, 's, DeclaredName> {
    let name = select! { TokenKind::Identifier(name) = extra => Spanned::new(Word::new(name), extra.span()) }
        .labelled(Label::VariableName);
    let range = integer_u32("a register count").delimited_by(punct(TokenKind::Less), punct(TokenKind::Greater));
    name.then(range.or_not())
        .then(dimension.repeated().collect::<Vec<_>>())
        .then(punct(TokenKind::Equals).ignore_then(initializer()).or_not())
        .map_with(|(((name, range), array_dimensions), initializer), extra| DeclaredName {
            name,
            range,
            array_dimensions,
            initializer,
            span: extra.span(),
        })
}

/// The opaque handle types; each declares a 64-bit `.tex` variable (or parameter).
pub(super) fn opaque_type<'t, 's: 't>() -> impl PtxParser<'t, 's, (Spanned<ScalarType>, OpaqueType)> {
    select! {
        TokenKind::DotName("texref") = extra => (Spanned::new(ScalarType::B64, extra.span()), OpaqueType::Texture),
        TokenKind::DotName("samplerref") = extra => (Spanned::new(ScalarType::B64, extra.span()), OpaqueType::Sampler),
        TokenKind::DotName("surfref") = extra => (Spanned::new(ScalarType::B64, extra.span()), OpaqueType::Surface),
    }
    .labelled(Label::Type)
}

/// A name of an opaque handle, with its initializer (`= { filter_mode = nearest }`) skipped.
fn opaque_name<'t, 's: 't>(dimension: impl PtxParser<'t, 's, Option<u32>>) -> impl PtxParser<'t, 's, DeclaredName> {
    let name = select! { TokenKind::Identifier(name) = extra => Spanned::new(Word::new(name), extra.span()) }
        .labelled(Label::VariableName);
    let ignored_initializer = punct(TokenKind::Equals).ignore_then(choice((
        super::recovery::balanced_braces(),
        any().filter(|kind: &TokenKind| !matches!(kind, TokenKind::Comma | TokenKind::Semicolon)).ignored(),
    )));
    name.then(dimension.repeated().collect::<Vec<_>>()).then_ignore(ignored_initializer.or_not()).map_with(
        |(name, array_dimensions), extra| DeclaredName {
            name,
            range: None,
            array_dimensions,
            initializer: None,
            span: extra.span(),
        },
    )
}

/// A declaration in one of the variable state spaces, up to and including its `;`. The
/// linkage is filled in by the caller at module scope.
pub(super) fn variable_declaration<'t, 's: 't>() -> impl PtxParser<'t, 's, VariableDeclaration> {
    let dimension = dimension().boxed();
    let names = declared_name(dimension.clone()).separated_by(punct(TokenKind::Comma)).at_least(1).collect::<Vec<_>>();
    let opaque_names =
        opaque_name(dimension.clone()).separated_by(punct(TokenKind::Comma)).at_least(1).collect::<Vec<_>>();
    // `.global .texref t;` and the plain `.texref t;` of older PTX.
    let opaque = state_space(VARIABLE_SPACES).or_not().then(attributes()).then(opaque_type()).then(opaque_names).map(
        |(((_, (align, _)), (ty, opaque)), names)| {
            let state_space = Spanned::new(StateSpace::Tex, ty.span);
            (state_space, align, None, ty, Some(opaque), names)
        },
    );
    // `.const[0]`: a constant bank. PTX 1.x has the one bank 0; other banks (PTX 2.x) are not
    // modelled, and are reported.
    let bank = integer_u32("a constant bank")
        .delimited_by(punct(TokenKind::LeftBracket), punct(TokenKind::RightBracket))
        .map_with(|bank, extra| Spanned::new(bank, extra.span()));
    let space = state_space(VARIABLE_SPACES).then(bank.or_not()).map_with(
        |(state_space, bank): (Spanned<StateSpace>, Option<Spanned<u32>>), extra| {
            if let Some(bank) = bank {
                if state_space.node != StateSpace::Const {
                    diagnostics(extra).push(
                        Diagnostic::error(Code::InvalidDeclaration, "only `.const` has banks")
                            .with_primary(bank.span, format!("`{}` takes no bank number", state_space.node)),
                    );
                } else if bank.node != 0 {
                    diagnostics(extra).push(
                        Diagnostic::error(
                            Code::Unsupported,
                            format!("unsupported: constant bank `.const[{}]`", bank.node),
                        )
                        .with_primary(bank.span, "only bank 0 (plain `.const`) is supported"),
                    );
                }
            }
            state_space
        },
    );
    // `.tex tex_a;` and `.tex[42] tex_e;` (PTX 1.x): a texture without a type, optionally bound
    // to a hardware texture id, which ptxr does not use.
    let texture_id =
        integer_u32("a texture id").delimited_by(punct(TokenKind::LeftBracket), punct(TokenKind::RightBracket));
    let untyped_texture = select! { TokenKind::DotName("tex") = extra => extra.span() }
        .then_ignore(texture_id.or_not())
        .then(opaque_name(dimension.clone()).separated_by(punct(TokenKind::Comma)).at_least(1).collect::<Vec<_>>())
        .map(|(span, names)| {
            let ty = Spanned::new(ScalarType::B64, span);
            (Spanned::new(StateSpace::Tex, span), None, None, ty, Some(OpaqueType::Texture), names)
        });
    let typed = space
        .then(attributes())
        .then(scalar_type())
        .then(names)
        .map(|(((state_space, (align, vector)), ty), names)| (state_space, align, vector, ty, None, names));
    choice((typed, opaque, untyped_texture)).then_ignore(punct(TokenKind::Semicolon)).map_with(
        |(state_space, align, vector, ty, opaque, names), extra| VariableDeclaration {
            linkage: None,
            state_space,
            align,
            vector,
            ty,
            opaque,
            names,
            span: extra.span(),
        },
    )
}

/// `.struct name { .s32 i; .f32 x; };` and `.union` (PTX 1.x aggregate types), at module scope or
/// in a body: read whole so that one clean "unsupported" error stands for the definition, which
/// leaves nothing in the tree.
pub(super) fn aggregate_definition<'t, 's: 't, T>() -> impl PtxParser<'t, 's, Option<T>> {
    choice((keyword("struct"), keyword("union")))
        .map_with(|kind, extra| (kind, extra.span()))
        .then(identifier())
        .then_ignore(super::recovery::balanced_braces())
        .then_ignore(punct(TokenKind::Semicolon).or_not())
        .map_with(|((kind, keyword_span), name), extra| {
            let keyword = if kind == TokenKind::DotName("union") { ".union" } else { ".struct" };
            diagnostics(extra).push(
                Diagnostic::error(Code::Unsupported, format!("unsupported: `{keyword}` types"))
                    .with_primary(keyword_span.to(name.span), format!("`{}` is not supported", name.node))
                    .with_note(
                        "structure and union types (PTX 1.x) are not modelled; declare the fields as separate variables",
                    ),
            );
            None
        })
}
