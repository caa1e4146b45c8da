//! The parser's input as chumsky sees it: the lexer's packed [`Tokens`], each decoded into a
//! [`TokenKind`] when chumsky reads it.
//!
//! A cursor is a token index. Spans follow chumsky's own mapped-slice input, which the parser
//! was written against: a range's span runs from the start of its first token to the end of the
//! last token read before the range's end (so an empty range right after a token is inverted,
//! which [`Span`]'s chumsky constructor clamps), and ranges at the end of the input point at the
//! end of the last token.

use std::ops::{Range, RangeFrom};

use chumsky::input::{ExactSizeInput, Input, SliceInput, ValueInput};

use crate::span::Span;
use crate::syntax::lexer::TokenKind;
use crate::syntax::tokens::Tokens;

/// A span from a byte range, through chumsky's constructor (which clamps inverted ranges).
fn chumsky_span(range: Range<usize>) -> Span {
    <Span as chumsky::span::Span>::new((), range)
}

#[derive(Clone, Copy)]
pub(in crate::syntax) struct TokenInput<'t, 's> {
    tokens: &'t Tokens<'s>,
    end_of_input: Span,
    /// The index of the first token read: the hand-written module loop (`fast_module`) hands
    /// chumsky the tokens from where it stopped.
    start: usize,
}

impl<'t, 's> TokenInput<'t, 's> {
    /// The tokens from the one at `start` on (the spans stay those of the whole file).
    /// `end_of_input` is where errors at the end of the input point: the last token's span.
    pub(in crate::syntax) fn starting_at(
        tokens: &'t Tokens<'s>,
        end_of_input: Span,
        start: usize,
    ) -> TokenInput<'t, 's> {
        TokenInput { tokens, end_of_input, start }
    }

    /// The start of the token at `index`, or the end of the input past the last token.
    fn start_at(&self, index: usize) -> usize {
        self.tokens.span(index).map_or(self.end_of_input.end, |span| span.start) as usize
    }
}

impl<'t, 's: 't> Input<'t> for TokenInput<'t, 's> {
    type Cursor = usize;
    type Span = Span;
    type Token = TokenKind<'s>;
    type MaybeToken = TokenKind<'s>;
    type Cache = Self;

    #[inline]
    fn begin(self) -> (usize, Self) {
        (self.start, self)
    }

    #[inline]
    fn cursor_location(cursor: &usize) -> usize {
        *cursor
    }

    #[inline(always)]
    unsafe fn next_maybe(this: &mut Self, cursor: &mut usize) -> Option<TokenKind<'s>> {
        let kind = this.tokens.kind(*cursor)?;
        *cursor += 1;
        Some(kind)
    }

    #[inline]
    unsafe fn span(this: &mut Self, range: Range<&usize>) -> Span {
        if *range.start >= this.tokens.len() {
            let end = this.end_of_input.end as usize;
            return chumsky_span(end..end);
        }
        let end = range
            .end
            .checked_sub(1)
            .and_then(|last| this.tokens.span(last))
            .map_or(this.end_of_input.end, |span| span.end);
        chumsky_span(this.start_at(*range.start)..end as usize)
    }
}

impl<'t, 's: 't> ExactSizeInput<'t> for TokenInput<'t, 's> {
    #[inline]
    unsafe fn span_from(this: &mut Self, range: RangeFrom<&usize>) -> Span {
        let end = this.end_of_input.end as usize;
        chumsky_span(this.start_at(*range.start).min(end)..end)
    }
}

impl<'t, 's: 't> ValueInput<'t> for TokenInput<'t, 's> {
    #[inline(always)]
    unsafe fn next(this: &mut Self, cursor: &mut usize) -> Option<TokenKind<'s>> {
        // SAFETY: the same contract as `next_maybe`, which this forwards to.
        unsafe { Self::next_maybe(this, cursor) }
    }
}

/// The tokens from a cursor on, as chumsky's slices of the input: how the hand-written fast path
/// (`fast.rs`) reaches the packed tokens from inside a chumsky parser, to read them directly.
#[derive(Clone, Copy)]
pub(in crate::syntax) struct TokensFrom<'t, 's> {
    pub(in crate::syntax) tokens: &'t Tokens<'s>,
    pub(in crate::syntax) start: usize,
}

impl<'t, 's: 't> SliceInput<'t> for TokenInput<'t, 's> {
    type Slice = TokensFrom<'t, 's>;

    #[inline]
    fn full_slice(this: &mut Self) -> TokensFrom<'t, 's> {
        TokensFrom { tokens: this.tokens, start: this.start }
    }

    #[inline]
    unsafe fn slice(this: &mut Self, range: Range<&usize>) -> TokensFrom<'t, 's> {
        TokensFrom { tokens: this.tokens, start: *range.start }
    }

    #[inline]
    unsafe fn slice_from(this: &mut Self, from: RangeFrom<&usize>) -> TokensFrom<'t, 's> {
        TokensFrom { tokens: this.tokens, start: *from.start }
    }
}
