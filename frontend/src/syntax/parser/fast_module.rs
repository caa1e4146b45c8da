//! The module loop for well-formed modules, without chumsky: each directive is read by the
//! header fast path (`fast_header`) and each body by the block loop (`fast`), with no
//! combinator around them.
//!
//! Inside chumsky's module loop, every directive cost the bookkeeping of a `repeated` with
//! recovery, a `choice`, a label and a `custom` parser around the hand-written paths, and moving
//! chumsky's cursor over each token they had read: some 4,000 instructions per function and a
//! few per token. Here the directives and statements the fast paths do not read go to the
//! combinator parser of one directive or one statement, run on its own from that token; a
//! directive or statement it reads without an error or a diagnostic is exactly what the module
//! parser would have built there, as both are the same parser at the same place. At the first
//! one that has an error (or a diagnostic), the loop stops and chumsky's module parser, with its
//! recovery, reads the file from that directive on, so that diagnostics are those of a parse
//! by chumsky alone: a directive's parse does not depend on the directives before it.

use chumsky::inspector::TruncateState;
use chumsky::prelude::*;

use std::cell::Cell;
use std::rc::Rc;

use super::fast::{give_up, BlockLists, Input, Reader};
use super::input::TokenInput;
use super::{diagnostics, Extra, ParserInput, PtxParser};
use crate::span::Span;
use crate::syntax::ast::Directive;
use crate::syntax::tokens::Tokens;

/// The index of the token chumsky's cursor is at.
fn position<'t, 's: 't>() -> impl PtxParser<'t, 's, usize> {
    custom(|input: &mut Input<'t, '_, 's>| Ok(*input.cursor().inner()))
}

/// A combinator parser run on its own from a given token, for one directive or statement.
///
/// chumsky's `parse` reads to the end of the input (and `lazy` reads the rest too, token by
/// token), so the parser is followed by one that always fails: what the parser built is taken
/// from `built` (with the index of the token after it), set only when no diagnostic had been
/// pushed, and the parse's only error must be that failure.
struct Standalone<P, O> {
    parser: P,
    built: Rc<Cell<Option<(O, usize)>>>,
}

fn standalone<'t, 's: 't, O: 't>(
    parser: impl PtxParser<'t, 's, O>,
) -> Standalone<impl Parser<'t, ParserInput<'t, 's>, ((), ()), Extra<'t, 's>>, O> {
    let built = Rc::new(Cell::new(None));
    let keep = Rc::clone(&built);
    let parser = parser
        .then(position())
        .map_with(move |built, extra| {
            if diagnostics(extra).is_empty() {
                keep.set(Some(built));
            }
        })
        // Not `ignored`, which would run the parser without building anything, nor `map_with`.
        .then(custom(|input: &mut Input<'t, '_, 's>| Err::<(), _>(give_up(input))));
    Standalone { parser, built }
}

impl<'t, 's: 't, P: Parser<'t, ParserInput<'t, 's>, ((), ()), Extra<'t, 's>>, O> Standalone<P, O> {
    /// What the parser reads from the token at `at`, and the index of the token after it; `None`
    /// when it reported anything or read nothing.
    fn parse_at(&self, tokens: &'t Tokens<'s>, end_of_input: Span, at: usize) -> Option<(O, usize)> {
        self.built.set(None);
        let mut state = TruncateState(Vec::new());
        let result = self.parser.parse_with_state(TokenInput::starting_at(tokens, end_of_input, at), &mut state);
        let built = self.built.take();
        if result.errors().count() != 1 {
            return None;
        }
        built.filter(|&(_, after)| after > at)
    }
}

/// The directives of a well-formed prefix of the tokens, and the index of the token where that
/// prefix ends: the start of the first directive that has an error, or the end of the tokens.
pub(super) fn read_module<'t, 's: 't>(
    source: &'s str,
    tokens: &'t Tokens<'s>,
    end_of_input: Span,
) -> (Vec<Directive>, usize) {
    let mut directives = Vec::new();
    #[cfg(test)]
    if !super::fast::ENABLED.with(std::cell::Cell::get) {
        return (directives, 0);
    }
    let one_directive = standalone(super::directive::directive(source));
    let one_statement = standalone(super::statement::single_statement());
    let mut slow = |at: usize| one_statement.parse_at(tokens, end_of_input, at);
    let mut lists = BlockLists::default();
    let mut reader = Reader { tokens, at: 0 };
    while reader.at < tokens.len() {
        let start = reader.at;
        if let Some(directive) = super::fast_header::read_directive(&mut reader, source, &mut slow, &mut lists) {
            directives.push(directive);
            continue;
        }
        match one_directive.parse_at(tokens, end_of_input, start) {
            Some((directive, after)) => {
                directives.extend(directive);
                reader.at = after;
            }
            None => return (directives, start),
        }
    }
    (directives, reader.at)
}
