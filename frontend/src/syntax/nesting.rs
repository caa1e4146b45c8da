//! `Nesting`: how deeply the tokens read so far nest, counted by the lexer as it pushes them.
//!
//! Real PTX nests braces, brackets and parentheses a few levels and writes a unary operator or
//! two in a row; the recursive parts of the parser and of the tree would overflow the stack on
//! thousands. So the parser reads the tokens only up to the first one that nests deeper than
//! [`MAX_NESTING`] (or ends a longer run of unary operators) and reports the rest. That token was
//! found by a pass of its own over the token list, 6% of the parser's instructions; counted by
//! the lexer, in the loop that pushes the tokens, it costs nothing for names, numbers, `,` and
//! `;` (nearly all of the tokens): the brackets and unary operators have byte classes of their
//! own in that loop, whose arms call [`Nesting::open`], [`Nesting::close`] or [`Nesting::unary`].
//! The brace depth kept here also tells the lexer where a piece of a large file may end.

use super::tokens::Tag;

/// How deeply braces, brackets, parentheses and unary operators may nest.
pub(super) const MAX_NESTING: usize = 256;

#[derive(Clone, Copy, Debug)]
pub(super) struct Nesting {
    depth: usize,
    /// The depth of braces alone: where a piece of a large file may end (at depth 0).
    braces: usize,
    /// The length of the run of unary operators that ends at `last_unary`.
    unary_run: usize,
    /// The index of the last unary operator; a run goes on only right after it, so that the
    /// tokens between runs (names and numbers, most of all tokens) need not be counted at all.
    last_unary: usize,
    /// The index of the first token that nested too deeply.
    first_too_deep: Option<usize>,
}

impl Default for Nesting {
    fn default() -> Nesting {
        Nesting { depth: 0, braces: 0, unary_run: 0, last_unary: usize::MAX, first_too_deep: None }
    }
}

impl Nesting {
    /// The token at `index`, by its tag. Names, dot names and numbers change nothing here, and
    /// neither do `,` and `;`, so the lexer's loop does not call this for them; the punctuation
    /// that does count, it sends straight to [`Nesting::open`], [`Nesting::close`] or
    /// [`Nesting::unary`].
    #[inline(always)]
    pub(super) fn token(&mut self, tag: Tag, index: usize) {
        match tag {
            Tag::LeftBrace | Tag::LeftBracket | Tag::LeftParen => self.open(tag, index),
            Tag::RightBrace | Tag::RightBracket | Tag::RightParen => self.close(tag),
            Tag::Minus | Tag::Plus | Tag::Tilde | Tag::Bang => self.unary(index),
            _ => {}
        }
    }

    /// `{`, `[` or `(` (by `tag`) at `index`.
    #[inline(always)]
    pub(super) fn open(&mut self, tag: Tag, index: usize) {
        self.depth += 1;
        self.braces += usize::from(tag == Tag::LeftBrace);
        if self.depth > MAX_NESTING {
            self.too_deep_at(index);
        }
    }

    /// `}`, `]` or `)` (by `tag`).
    #[inline(always)]
    pub(super) fn close(&mut self, tag: Tag) {
        self.depth = self.depth.saturating_sub(1);
        self.braces = self.braces.saturating_sub(usize::from(tag == Tag::RightBrace));
    }

    /// A token that may be a unary operator (`-`, `+`, `~`, `!`) at `index`.
    #[inline(always)]
    pub(super) fn unary(&mut self, index: usize) {
        self.unary_run = if self.last_unary.wrapping_add(1) == index { self.unary_run + 1 } else { 1 };
        self.last_unary = index;
        if self.unary_run > MAX_NESTING {
            self.too_deep_at(index);
        }
    }

    /// How many braces are open after the tokens counted so far.
    pub(super) fn brace_depth(&self) -> usize {
        self.braces
    }

    #[cold]
    fn too_deep_at(&mut self, index: usize) {
        self.first_too_deep.get_or_insert(index);
    }

    /// The index of the first token that nested deeper than [`MAX_NESTING`].
    pub(super) fn first_too_deep(&self) -> Option<usize> {
        self.first_too_deep
    }

    /// The first token that nests too deeply, counted after the fact over a whole list of tags
    /// in the plain way (a run of unary operators broken by any other token): what the lexer's
    /// count must agree with.
    #[cfg(test)]
    pub(super) fn of_tags(mut tags: impl Iterator<Item = Tag>) -> Option<usize> {
        let (mut depth, mut unary_run) = (0usize, 0usize);
        tags.position(|tag| {
            match tag {
                Tag::LeftBrace | Tag::LeftBracket | Tag::LeftParen => depth += 1,
                Tag::RightBrace | Tag::RightBracket | Tag::RightParen => depth = depth.saturating_sub(1),
                _ => {}
            }
            let unary = matches!(tag, Tag::Minus | Tag::Plus | Tag::Tilde | Tag::Bang);
            unary_run = if unary { unary_run + 1 } else { 0 };
            depth > MAX_NESTING || unary_run > MAX_NESTING
        })
    }
}
