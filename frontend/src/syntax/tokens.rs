//! The lexer's output: a list of tokens packed into 12 bytes each.
//!
//! A [`Token`] as the parser reads it is 32 bytes (its kind may hold a `&str`). Stored that way,
//! the token list of a large module is eight times the size of its source, and it lives beside
//! the syntax tree being built. So tokens are stored as a tag, a start offset and a second word:
//! the end offset, or for numbers an index into a side table that holds the end and the
//! decoded value. Text is recovered by slicing the source when a token is read.

use crate::span::{Span, Spanned};

use super::lexer::{Token, TokenKind};
use super::word::Word;

/// A number's end offset and value, for the few tokens whose payload is not their text.
#[derive(Clone, Copy, Debug)]
struct Number {
    end: u32,
    value: u64,
}

/// One stored token: 12 bytes.
#[derive(Clone, Copy, Debug)]
struct PackedToken {
    start: u32,
    /// The end offset, or for [`Tag::Integer`] and the float tags the index of its [`Number`].
    end_or_number: u32,
    tag: Tag,
}

/// Declares [`Tag`] with one variant per punctuation token besides those that carry data, and
/// the conversions between tags and punctuation kinds, so the two lists cannot drift apart.
macro_rules! tags {
    ($($punctuation:ident),* $(,)?) => {
        /// What a stored token is; for punctuation, the whole token. The parser's hand-written
        /// fast path compares tags, so that it decodes a token's text only where it keeps it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u8)]
        pub(in crate::syntax) enum Tag {
            Identifier,
            DotName,
            Integer,
            SingleFloat,
            DoubleFloat,
            /// A string with its closing quote.
            String,
            /// A string that runs to the end of its line: its text has no closing quote to drop.
            UnterminatedString,
            $($punctuation,)*
        }

        impl Tag {
            /// The tag of a punctuation token; `None` for tokens that carry text or values.
            /// Exhaustive, so a punctuation kind added to [`TokenKind`] but not here fails to
            /// compile rather than being stored as `?`.
            fn of_punctuation(kind: TokenKind<'_>) -> Option<Tag> {
                match kind {
                    $(TokenKind::$punctuation => Some(Tag::$punctuation),)*
                    TokenKind::Identifier(_)
                    | TokenKind::DotName(_)
                    | TokenKind::Integer(_)
                    | TokenKind::Float { .. }
                    | TokenKind::String(_) => None,
                }
            }

            /// The token of a punctuation tag; `None` for tags of tokens that carry data.
            fn punctuation(self) -> Option<TokenKind<'static>> {
                match self {
                    $(Tag::$punctuation => Some(TokenKind::$punctuation),)*
                    _ => None,
                }
            }
        }
    };
}

tags!(
    Underscore,
    Comma,
    Semicolon,
    Colon,
    LeftBrace,
    RightBrace,
    LeftBracket,
    RightBracket,
    LeftParen,
    RightParen,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    ShiftLeft,
    ShiftRight,
    EqualEqual,
    NotEqual,
    AndAnd,
    OrOr,
    At,
    Bang,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Pipe,
    Ampersand,
    Caret,
    Tilde,
    Equals,
    Question,
);

/// The tokens that carry their text, for [`Tokens::push_text`].
#[derive(Clone, Copy, Debug)]
pub(super) enum TextKind {
    /// The whole span.
    Identifier,
    /// The span without its leading dot.
    DotName,
    /// The span without its quotes.
    String,
}

/// The tokens of one source text, in order.
#[derive(Clone, Debug)]
pub struct Tokens<'src> {
    source: &'src str,
    packed: Vec<PackedToken>,
    numbers: Vec<Number>,
    /// The index of the first token that nests too deeply, as the lexer counted it.
    first_too_deep: Option<usize>,
}

impl<'src> Tokens<'src> {
    pub(super) fn with_capacity(source: &'src str, capacity: usize) -> Tokens<'src> {
        Tokens { source, packed: Vec::with_capacity(capacity), numbers: Vec::new(), first_too_deep: None }
    }

    /// Removes every token, keeping the memory.
    pub(super) fn clear(&mut self) {
        self.packed.clear();
        self.numbers.clear();
        self.first_too_deep = None;
    }

    /// Records where the tokens first nest too deeply ([`super::nesting::Nesting`]).
    pub(super) fn set_first_too_deep(&mut self, index: Option<usize>) {
        self.first_too_deep = index;
    }

    /// The index of the first token that nests deeper than the parser reads, if one does.
    pub(in crate::syntax) fn first_too_deep(&self) -> Option<usize> {
        self.first_too_deep.filter(|&index| index < self.packed.len())
    }

    /// Makes room for `additional` more tokens.
    pub(super) fn reserve(&mut self, additional: usize) {
        self.packed.reserve_exact(additional);
    }

    /// Appends a token. Its text, if it has any, must be the source at `span` (without the dot
    /// of a dot name, without the quotes of a string).
    pub(super) fn push(&mut self, kind: TokenKind<'src>, span: Span) {
        let (tag, end_or_number) = match kind {
            TokenKind::Identifier(_) => (Tag::Identifier, span.end),
            TokenKind::DotName(_) => (Tag::DotName, span.end),
            TokenKind::String(_) => (Tag::String, span.end),
            TokenKind::Integer(value) => (Tag::Integer, self.push_number(span, value)),
            TokenKind::Float { bits, double: false } => (Tag::SingleFloat, self.push_number(span, bits)),
            TokenKind::Float { bits, double: true } => (Tag::DoubleFloat, self.push_number(span, bits)),
            punctuation => (Tag::of_punctuation(punctuation).unwrap_or(Tag::Question), span.end),
        };
        self.packed.push(PackedToken { start: span.start, end_or_number, tag });
    }

    /// Appends a token whose text is the source at `span`: the lexer's path for names and
    /// strings, which need no `&str` built (and bounds checked) only to be packed.
    #[inline]
    pub(super) fn push_text(&mut self, kind: TextKind, span: Span) {
        let tag = match kind {
            TextKind::Identifier => Tag::Identifier,
            TextKind::DotName => Tag::DotName,
            TextKind::String => Tag::String,
        };
        self.packed.push(PackedToken { start: span.start, end_or_number: span.end, tag });
    }

    /// Appends a punctuation token (the lexer's path: the tag is known where the token is read).
    #[inline]
    pub(super) fn push_punctuation(&mut self, tag: Tag, span: Span) {
        self.packed.push(PackedToken { start: span.start, end_or_number: span.end, tag });
    }

    /// Appends a string token that has an opening quote but no closing one.
    pub(super) fn push_unterminated_string(&mut self, span: Span) {
        self.packed.push(PackedToken { start: span.start, end_or_number: span.end, tag: Tag::UnterminatedString });
    }

    /// Appends an integer token (the lexer's path for plain decimal integers).
    #[inline]
    pub(super) fn push_integer(&mut self, value: u64, span: Span) {
        let number = self.push_number(span, value);
        self.packed.push(PackedToken { start: span.start, end_or_number: number, tag: Tag::Integer });
    }

    #[inline]
    fn push_number(&mut self, span: Span, value: u64) -> u32 {
        self.numbers.push(Number { end: span.end, value });
        // Fewer numbers than source bytes, and sources are under 4 GiB.
        (self.numbers.len() - 1) as u32
    }

    pub fn len(&self) -> usize {
        self.packed.len()
    }

    pub fn is_empty(&self) -> bool {
        self.packed.is_empty()
    }

    /// The token at `index`, decoded.
    #[inline]
    pub fn get(&self, index: usize) -> Option<Token<'src>> {
        let packed = *self.packed.get(index)?;
        Some(self.decode(packed))
    }

    /// The kind of the token at `index`, decoded.
    #[inline(always)]
    pub fn kind(&self, index: usize) -> Option<TokenKind<'src>> {
        let packed = *self.packed.get(index)?;
        Some(self.decode_kind(packed))
    }

    /// The tag of the token at `index`, without decoding it.
    #[inline]
    pub(in crate::syntax) fn tag(&self, index: usize) -> Option<Tag> {
        self.packed.get(index).map(|packed| packed.tag)
    }

    /// The text of the identifier or dot name (without its dot) at `index`; empty for other
    /// tokens.
    #[inline]
    pub(in crate::syntax) fn text(&self, index: usize) -> &'src str {
        let Some(packed) = self.packed.get(index) else { return "" };
        let start = match packed.tag {
            Tag::Identifier => packed.start as usize,
            Tag::DotName => packed.start as usize + 1,
            _ => return "",
        };
        // Stored spans lie on character boundaries (the lexer's guarantee); `unwrap_or_default`
        // keeps a broken one from becoming a panic.
        self.source.get(start..packed.end_or_number as usize).unwrap_or_default()
    }

    /// The identifier at `index` as a word, with its span; `None` for any other token. The
    /// fast path's way to read a name: one look at the stored token, no `&str` sliced first.
    #[inline(always)]
    pub(in crate::syntax) fn identifier_word(&self, index: usize) -> Option<Spanned<Word>> {
        let packed = self.packed.get(index)?;
        if packed.tag != Tag::Identifier {
            return None;
        }
        let (start, end) = (packed.start, packed.end_or_number);
        Some(Spanned::new(Word::from_source(self.source, start as usize, end as usize), Span { start, end }))
    }

    /// The dot name at `index` without its dot, as a word, with the span of the whole token;
    /// `None` for any other token.
    #[inline(always)]
    pub(in crate::syntax) fn dot_name_word(&self, index: usize) -> Option<Spanned<Word>> {
        let packed = self.packed.get(index)?;
        if packed.tag != Tag::DotName {
            return None;
        }
        let (start, end) = (packed.start, packed.end_or_number);
        Some(Spanned::new(Word::from_source(self.source, start as usize + 1, end as usize), Span { start, end }))
    }

    /// The value of the integer (or the bits of the float) at `index`; 0 for other tokens.
    #[inline]
    pub(in crate::syntax) fn value(&self, index: usize) -> u64 {
        match self.packed.get(index) {
            Some(packed) if matches!(packed.tag, Tag::Integer | Tag::SingleFloat | Tag::DoubleFloat) => {
                self.numbers.get(packed.end_or_number as usize).map_or(0, |number| number.value)
            }
            _ => 0,
        }
    }

    /// The span of the token at `index`.
    #[inline]
    pub fn span(&self, index: usize) -> Option<Span> {
        let packed = *self.packed.get(index)?;
        Some(Span { start: packed.start, end: self.end(packed) })
    }

    pub fn last(&self) -> Option<Token<'src>> {
        self.len().checked_sub(1).and_then(|index| self.get(index))
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Token<'src>> + ExactSizeIterator + '_ {
        self.packed.iter().map(|packed| self.decode(*packed))
    }

    /// The index of the first token that starts at or after `offset`.
    pub fn first_starting_at(&self, offset: u32) -> usize {
        self.packed.partition_point(|packed| packed.start < offset)
    }

    /// Keeps the first `length` tokens.
    pub fn truncate(&mut self, length: usize) {
        self.packed.truncate(length);
    }

    #[inline]
    fn end(&self, packed: PackedToken) -> u32 {
        match packed.tag {
            Tag::Integer | Tag::SingleFloat | Tag::DoubleFloat => {
                self.numbers.get(packed.end_or_number as usize).map_or(packed.start, |number| number.end)
            }
            _ => packed.end_or_number,
        }
    }

    #[inline]
    fn decode(&self, packed: PackedToken) -> Token<'src> {
        Token { kind: self.decode_kind(packed), span: Span { start: packed.start, end: self.end(packed) } }
    }

    /// The kind alone: what the parser reads, many times per token when it backtracks. Always
    /// inlined, so that where the kind is dropped (chumsky skipping the tokens the fast path has
    /// read) none of it is computed.
    #[inline(always)]
    fn decode_kind(&self, packed: PackedToken) -> TokenKind<'src> {
        let (start, end) = (packed.start as usize, packed.end_or_number as usize);
        let value = || self.numbers.get(packed.end_or_number as usize).map_or(0, |number| number.value);
        // Every stored span lies on character boundaries (the lexer's guarantee), so the slices
        // below do not fail; `unwrap_or_default` keeps that from becoming a panic regardless.
        let text = |from: usize, to: usize| self.source.get(from..to).unwrap_or_default();
        match packed.tag {
            Tag::Identifier => TokenKind::Identifier(text(start, end)),
            Tag::DotName => TokenKind::DotName(text(start + 1, end)),
            Tag::String => TokenKind::String(text(start + 1, end.saturating_sub(1).max(start + 1))),
            Tag::UnterminatedString => TokenKind::String(text(start + 1, end.max(start + 1))),
            Tag::Integer => TokenKind::Integer(value()),
            Tag::SingleFloat => TokenKind::Float { bits: value(), double: false },
            Tag::DoubleFloat => TokenKind::Float { bits: value(), double: true },
            punctuation => punctuation.punctuation().unwrap_or(TokenKind::Question),
        }
    }

    /// The tags of the tokens, in order.
    #[cfg(test)]
    pub(in crate::syntax) fn tags(&self) -> impl Iterator<Item = Tag> + '_ {
        self.packed.iter().map(|packed| packed.tag)
    }

    /// The kinds of the punctuation tokens, `None` for the others, without decoding any text.
    pub fn punctuation_kinds(&self) -> impl Iterator<Item = Option<TokenKind<'static>>> + '_ {
        self.packed.iter().map(|packed| packed.tag.punctuation())
    }
}

impl<'a, 'src> IntoIterator for &'a Tokens<'src> {
    type Item = Token<'src>;
    type IntoIter = Box<dyn Iterator<Item = Token<'src>> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::lex;

    #[test]
    fn a_stored_token_is_12_bytes() {
        assert_eq!(std::mem::size_of::<PackedToken>(), 12);
    }

    /// Every kind of token reads back as the lexer made it, spans included.
    #[test]
    fn tokens_read_back_as_lexed() {
        let source = "ld.global.v4 %r1, [x+8]; 0x1F 18446744073709551615 0f3F800000 1.5 \"a\\\"b\" _ <<= != \"open\n}";
        let (tokens, _) = lex(source);
        let read: Vec<String> = tokens.iter().map(|token| format!("{} {:?}", token.kind, token.span.range())).collect();
        assert_eq!(
            read,
            [
                "ld 0..2",
                ".global 2..9",
                ".v4 9..12",
                "%r1 13..16",
                ", 16..17",
                "[ 18..19",
                "x 19..20",
                "+ 20..21",
                "8 21..22",
                "] 22..23",
                "; 23..24",
                "31 25..29",
                "18446744073709551615 30..50",
                "0f3F800000 51..61",
                "0d3FF8000000000000 62..65",
                "\"a\\\"b\" 66..72",
                "_ 73..74",
                "<< 75..77",
                "= 77..78",
                "!= 79..81",
                "\"open\" 82..87",
                "} 88..89",
            ]
        );
        assert_eq!(tokens.len(), read.len());
        assert_eq!(tokens.span(11), Some(Span::new(25, 29)));
        assert_eq!(tokens.first_starting_at(25), 11);
        assert_eq!(tokens.last().map(|token| token.kind), Some(TokenKind::RightBrace));
    }
}
