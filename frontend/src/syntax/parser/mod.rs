//! The PTX parser: tokens to the syntax tree, written with chumsky over the lexer's token slice.
//!
//! Parsing never fails. A statement that does not parse is reported and skipped up to its `;`
//! (or the `}` that closes its block), and a module directive that does not parse is skipped up
//! to the next directive, so one run reports every error of a file and still returns the rest.
//!
//! One file per concept: `tokens` (single-token parsers), `expression` (constant expressions),
//! `operand`, `declaration` (variables and their initializers), `statement` (function bodies),
//! `fast` (a hand-written fast path for plain statements, checked against the combinator
//! parser), `fast_header` (the same for function headers and common module directives), `fast_module`
//! (the module loop for well-formed files, without chumsky), `function` (headers, parameters,
//! attributes), `directive` (module level),
//! `recovery` (what to skip after an error) and `error` (the syntax error type and its
//! conversion to diagnostics).

mod declaration;
mod directive;
mod error;
mod expression;
mod fast;
mod fast_header;
mod fast_module;
mod function;
mod operand;
mod recovery;
mod statement;
mod tokens;

#[cfg(test)]
mod tests;

mod input;

use chumsky::inspector::TruncateState;
use chumsky::prelude::*;

use super::ast;
use super::lexer::{self, lex};
use super::nesting::MAX_NESTING;
use super::tokens::Tokens;
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;

/// The parser's input: the lexer's packed tokens, decoded one at a time as chumsky reads them.
type ParserInput<'t, 's> = input::TokenInput<'t, 's>;

/// Syntax errors as chumsky builds them; `error` turns them into diagnostics.
type ParserError<'s> = error::SyntaxError<'s>;

/// Besides syntax errors, parsers push diagnostics that are not about the shape of the text
/// (a constant expression that divides by zero, a number too large for its place) into the
/// state. The state is truncated when chumsky backtracks, so abandoned attempts leave nothing.
type Extra<'t, 's> = extra::Full<ParserError<'s>, TruncateState<Diagnostic>, ()>;

/// Every parser in this module: a chumsky parser over [`ParserInput`] with [`Extra`].
trait PtxParser<'t, 's: 't, O>: Parser<'t, ParserInput<'t, 's>, O, Extra<'t, 's>> + Clone {}

impl<'t, 's: 't, O, P> PtxParser<'t, 's, O> for P where P: Parser<'t, ParserInput<'t, 's>, O, Extra<'t, 's>> + Clone {}

/// Lets chumsky build our spans directly, so every node's span is a [`Span`] of byte offsets.
impl chumsky::span::Span for Span {
    type Context = ();
    type Offset = usize;

    fn new(_context: (), range: std::ops::Range<usize>) -> Span {
        // chumsky makes an inverted range for an empty match right after a token (the next
        // token's start to the previous token's end); clamp it to an empty span.
        Span::new(range.start, range.end.max(range.start))
    }

    fn context(&self) {}

    fn start(&self) -> usize {
        self.start as usize
    }

    fn end(&self) -> usize {
        self.end as usize
    }
}

/// The `extra` argument of `map_with` closures.
type MapExtra<'t, 'b, 's> = chumsky::input::MapExtra<'t, 'b, ParserInput<'t, 's>, Extra<'t, 's>>;

/// The list that non-syntax diagnostics found while parsing go to.
fn diagnostics<'a, 't, 's>(extra: &'a mut MapExtra<'t, '_, 's>) -> &'a mut Vec<Diagnostic> {
    &mut extra.state().0
}

/// A list that keeps the `Some` items it is given: for statement and directive parsers that
/// return `None` for what leaves nothing in the tree (recovered errors, unmodelled directives).
struct Present<T>(Vec<T>);

impl<T> Default for Present<T> {
    fn default() -> Present<T> {
        Present(Vec::new())
    }
}

impl<T> chumsky::container::Container<Option<T>> for Present<T> {
    fn push(&mut self, item: Option<T>) {
        if let Some(item) = item {
            self.0.push(item);
        }
    }
}

/// Cuts the tokens at the first place that nests deeper than [`MAX_NESTING`] (where the lexer
/// found it), and says so.
fn limit_nesting(tokens: &mut Tokens<'_>) -> Option<Diagnostic> {
    let too_deep = tokens.first_too_deep()?;
    let span = tokens.span(too_deep).unwrap_or_default();
    tokens.truncate(too_deep);
    Some(
        Diagnostic::error(Code::SyntaxError, "nesting too deep")
            .with_primary(span, format!("more than {MAX_NESTING} levels of nesting"))
            .with_note("the rest of the file is not parsed"),
    )
}

/// Sources larger than this are lexed and parsed in pieces of about this size.
const PIECE_SIZE: usize = 1 << 20;

/// Parses a whole PTX file. Never fails: returns what it could build and every diagnostic of
/// the lexer and parser, in source order.
pub fn parse(source: &str) -> (ast::Module, Vec<Diagnostic>) {
    if source.len() > PIECE_SIZE {
        if let Some(module) = parse_in_pieces(source, PIECE_SIZE) {
            return (module, Vec::new());
        }
    }
    let (mut tokens, diagnostics) = lex(source);
    parse_tokens(source, &mut tokens, diagnostics)
}

/// Parses a large file a piece at a time, each piece ending where a module-level function
/// begins, so that only one piece's tokens exist at once beside the growing tree (the tokens of
/// a whole file are three times its size). Returns `None` at the first diagnostic: the file is
/// then parsed whole, so that error messages and recovery are those of a single parse.
fn parse_in_pieces(source: &str, piece_size: usize) -> Option<ast::Module> {
    let mut directives = Vec::new();
    let mut start = 0;
    let mut tokens = Tokens::with_capacity(source, 0);
    while start < source.len() {
        let (piece_tokens, diagnostics, end) = lexer::lex_piece(source, start, piece_size, tokens);
        tokens = piece_tokens;
        if !diagnostics.is_empty() || end <= start {
            return None;
        }
        let (piece, diagnostics) = parse_tokens(source, &mut tokens, diagnostics);
        if !diagnostics.is_empty() {
            return None;
        }
        directives.extend(piece.directives);
        start = end;
    }
    directives.shrink_to_fit();
    Some(ast::Module { directives })
}

/// Parses the tokens of a whole file or of one piece of it, after the lexer's `diagnostics`.
fn parse_tokens(
    source: &str,
    tokens: &mut Tokens<'_>,
    mut diagnostics: Vec<Diagnostic>,
) -> (ast::Module, Vec<Diagnostic>) {
    if let Some(too_deep) = limit_nesting(tokens) {
        diagnostics.push(too_deep);
    }
    // Errors at the end of the input point at the last token.
    let end_of_input = tokens.last().map(|token| token.span).unwrap_or_default();
    // The hand-written loop reads what it can; chumsky's module parser reads the rest, if any.
    let (mut directives, stopped) = fast_module::read_module(source, tokens, end_of_input);
    let mut errors = Vec::new();
    if stopped < tokens.len() {
        let input = input::TokenInput::starting_at(tokens, end_of_input, stopped);
        let mut state = TruncateState(Vec::new());
        let (module, module_errors) =
            directive::module(source).parse_with_state(input, &mut state).into_output_errors();
        diagnostics.extend(state.0);
        match module {
            Some(module) => directives.extend(module.directives),
            // As a parse by chumsky alone would have returned: no module.
            None => directives.clear(),
        }
        errors = module_errors;
    }
    // A comment or string that runs to the end of the file swallows everything after it, so
    // "unexpected end of input" is only its echo: the lexer's diagnostic says what happened.
    // (A block comment that did so starts after the last token; a string ends at its line.)
    let swallowed_end = diagnostics.iter().any(|diagnostic| {
        diagnostic.code == Code::Unterminated
            && diagnostic.primary_span().is_some_and(|span| span.start >= end_of_input.end)
    });
    let errors = errors.into_iter().filter(|error| !(swallowed_end && error.at_end_of_input()));
    diagnostics.extend(errors.map(|error| error::to_diagnostic(error, end_of_input, source, tokens)));
    diagnostics.sort_by_key(|diagnostic| diagnostic.primary_span().map(|span| (span.start, span.end)));
    diagnostics.dedup();
    (ast::Module { directives }, diagnostics)
}
