//! Module-level directives (ISA 7.8 chapter 11): `.version`, `.target`, `.address_size`,
//! `.file`, `.section`, `.pragma`, and the functions and variables with their linkage. A
//! directive that does not parse is reported and skipped up to the next one.

use chumsky::prelude::*;

use super::declaration::{aggregate_definition, variable_declaration};
use super::error::Label;
use super::fast_header::fast_directive;
use super::function::function;
use super::recovery::{balanced_braces, skip_directive};
use super::statement::block;
use super::tokens::{identifier, integer, integer_u32, keyword, pragma_text, punct, string, unescape};
use super::{diagnostics, Present, PtxParser};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Spanned;
use crate::syntax::ast::{Directive, Linkage, Module};
use crate::syntax::lexer::TokenKind;

/// The whole file: directives until the end of the input.
pub(super) fn module<'t, 's: 't>(source: &'s str) -> impl PtxParser<'t, 's, Module> {
    directive(source)
        .recover_with(via_parser(skip_directive().map(|()| None)))
        .repeated()
        .collect::<Present<Directive>>()
        .map(|directives| Module { directives: directives.0 })
}

fn linkage<'t, 's: 't>() -> impl PtxParser<'t, 's, Spanned<Linkage>> {
    select! {
        TokenKind::DotName("visible") = extra => Spanned::new(Linkage::Visible, extra.span()),
        TokenKind::DotName("extern") = extra => Spanned::new(Linkage::Extern, extra.span()),
        TokenKind::DotName("weak") = extra => Spanned::new(Linkage::Weak, extra.span()),
        TokenKind::DotName("common") = extra => Spanned::new(Linkage::Common, extra.span()),
    }
    .labelled(Label::Linkage)
}

/// One module-level directive; `None` for one that leaves nothing in the tree.
pub(super) fn directive<'t, 's: 't>(source: &'s str) -> impl PtxParser<'t, 's, Option<Directive>> {
    // `.version 7.8`: the lexer reads `7.8` as a float; the numbers come from its text, so
    // that `7.10` is minor version 10.
    let version = keyword("version")
        .ignore_then(
            select! { TokenKind::Float { double: true, .. } = extra => extra.span() }.labelled(Label::VersionNumber),
        )
        .map_with(move |number_span, extra| {
            let text = source.get(number_span.range()).unwrap_or("");
            let (major, minor) = version_numbers(text).unwrap_or_else(|| {
                diagnostics(extra).push(
                    Diagnostic::error(Code::InvalidDirective, "invalid PTX version")
                        .with_primary(number_span, "expected MAJOR.MINOR, such as `7.8`"),
                );
                (0, 0)
            });
            Some(Directive::Version { major, minor, span: extra.span() })
        });

    let target = keyword("target")
        .ignore_then(
            identifier().labelled(Label::Target).separated_by(punct(TokenKind::Comma)).at_least(1).collect::<Vec<_>>(),
        )
        .map_with(|targets, extra| Some(Directive::Target { targets, span: extra.span() }));

    let address_size = keyword("address_size")
        .ignore_then(integer_u32("an address size"))
        .map_with(|bits, extra| Some(Directive::AddressSize { bits, span: extra.span() }));

    // `.file 1 "kernel.cu", 1700000000, 1234`: timestamp and size are dropped.
    let file = keyword("file")
        .ignore_then(integer_u32("a file index"))
        .then(string())
        .then_ignore(punct(TokenKind::Comma).ignore_then(integer()).repeated())
        .map_with(|(index, path), extra| Some(Directive::File { index, path: unescape(path), span: extra.span() }));

    let section_name = select! {
        TokenKind::DotName(_) = extra => extra.span(),
        TokenKind::Identifier(_) = extra => extra.span(),
    }
    .labelled(Label::SectionName);
    let section = keyword("section").ignore_then(section_name).then_ignore(balanced_braces()).map_with(
        move |name_span, extra| {
            let name = source.get(name_span.range()).unwrap_or("").to_string();
            Some(Directive::Section { name, span: extra.span() })
        },
    );

    let pragma = pragma_text().map_with(|text, extra| Some(Directive::Pragma { text, span: extra.span() }));

    let item = linkage()
        .or_not()
        .then(choice((function().map(Directive::Function), variable_declaration().map(Directive::Variable))))
        .map_with(|(linkage, mut item), extra| {
            match &mut item {
                Directive::Function(function) => {
                    function.linkage = linkage;
                    function.span = extra.span();
                }
                Directive::Variable(variable) => {
                    variable.linkage = linkage;
                    variable.span = extra.span();
                }
                _ => {}
            }
            Some(item)
        });

    // `.alias alias, target;` (PTX 6.3): accepted, not modelled.
    let alias = keyword("alias")
        .ignore_then(identifier())
        .then_ignore(punct(TokenKind::Comma))
        .then_ignore(identifier())
        .then_ignore(punct(TokenKind::Semicolon))
        .to(None);

    let aggregate = aggregate_definition();

    // The hand-written reader of the common directives first; it gives up on anything unusual.
    let fast = fast_directive(source, block());

    choice((fast, version, target, address_size, file, section, pragma, alias, aggregate, item))
        .labelled(Label::Directive)
        .boxed()
}

/// Reads the text of a `.version` number (`7.8`, `8.10`) as major and minor.
pub(super) fn version_numbers(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}
