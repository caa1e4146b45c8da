//! The PTX lexer: source text to a flat list of tokens, by a hand-written loop over bytes.
//!
//! Whitespace and comments are dropped. Tokens are stored packed in 12 bytes each ([`Tokens`]):
//! a tag, the start offset and the end offset (or, for numbers, an index into a side table of
//! decoded values), so a token list is about three times the size of the source rather than
//! eight. A token's text is recovered by slicing the source when it is read. Errors (a character no token can
//! start with, an unterminated string or comment, a malformed number) become diagnostics and
//! lexing goes on, so the parser still sees the rest of the file. The lexer never panics: every
//! span it makes lies on a character boundary of the source.

use std::fmt;

use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;

use super::nesting::Nesting;
use super::tokens::{Tag, TextKind, Tokens};

mod byte_runs;

/// One token and the bytes of source it was read from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Token<'src> {
    pub kind: TokenKind<'src>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TokenKind<'src> {
    /// `mov`, `%r1`, `$L__BB0_2`, `__cudart_x`, `%tid`, `WARP_SZ`, `sm_80`.
    Identifier(&'src str),
    /// A dot followed by a name, kept without the dot: `.reg` is `reg`, `.b32` is `b32`, `.x` is
    /// `x`. `::` segments belong to the name: `.L2::cache_hint` is `L2::cache_hint`.
    DotName(&'src str),
    /// An integer literal in any base, with its `U` suffix dropped. Negative numbers are a
    /// unary minus in front of one.
    Integer(u64),
    /// A float literal as IEEE bits: `0f3F800000` is single precision (`double` false); `0d...`
    /// and decimal literals such as `1.5` are double precision.
    Float {
        bits: u64,
        double: bool,
    },
    /// A string literal without its quotes, escapes left as written.
    String(&'src str),
    /// `_` on its own: the sink operand (and the anonymous parameter name of prototypes).
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
}

impl TokenKind<'_> {
    /// The fixed PTX spelling of a punctuation token; `None` for tokens that carry text or values.
    pub fn punctuation(&self) -> Option<&'static str> {
        Some(match self {
            TokenKind::Underscore => "_",
            TokenKind::Comma => ",",
            TokenKind::Semicolon => ";",
            TokenKind::Colon => ":",
            TokenKind::LeftBrace => "{",
            TokenKind::RightBrace => "}",
            TokenKind::LeftBracket => "[",
            TokenKind::RightBracket => "]",
            TokenKind::LeftParen => "(",
            TokenKind::RightParen => ")",
            TokenKind::Less => "<",
            TokenKind::Greater => ">",
            TokenKind::LessEqual => "<=",
            TokenKind::GreaterEqual => ">=",
            TokenKind::ShiftLeft => "<<",
            TokenKind::ShiftRight => ">>",
            TokenKind::EqualEqual => "==",
            TokenKind::NotEqual => "!=",
            TokenKind::AndAnd => "&&",
            TokenKind::OrOr => "||",
            TokenKind::At => "@",
            TokenKind::Bang => "!",
            TokenKind::Plus => "+",
            TokenKind::Minus => "-",
            TokenKind::Star => "*",
            TokenKind::Slash => "/",
            TokenKind::Percent => "%",
            TokenKind::Pipe => "|",
            TokenKind::Ampersand => "&",
            TokenKind::Caret => "^",
            TokenKind::Tilde => "~",
            TokenKind::Equals => "=",
            TokenKind::Question => "?",
            TokenKind::Identifier(_)
            | TokenKind::DotName(_)
            | TokenKind::Integer(_)
            | TokenKind::Float { .. }
            | TokenKind::String(_) => return None,
        })
    }
}

/// Prints the token in PTX spelling: `.reg`, `%r1`, `;`, `0f3F800000`, `"text"`.
impl fmt::Display for TokenKind<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenKind::Identifier(name) => formatter.write_str(name),
            TokenKind::DotName(name) => write!(formatter, ".{name}"),
            TokenKind::Integer(value) => write!(formatter, "{value}"),
            TokenKind::Float { bits, double: false } => write!(formatter, "0f{bits:08X}"),
            TokenKind::Float { bits, double: true } => write!(formatter, "0d{bits:016X}"),
            TokenKind::String(text) => write!(formatter, "\"{text}\""),
            punctuation => formatter.write_str(punctuation.punctuation().unwrap_or("?")),
        }
    }
}

/// Splits `source` into tokens. Never fails: problems become diagnostics and the lexer carries
/// on after them.
pub fn lex(source: &str) -> (Tokens<'_>, Vec<Diagnostic>) {
    let (tokens, diagnostics, _) = lex_piece(source, 0, usize::MAX, Tokens::with_capacity(source, 0));
    (tokens, diagnostics)
}

/// Lexes `source` from byte `start` up to the first module-level function at least `at_least`
/// bytes on (see [`Lexer::at_piece_boundary`]), or to the end. Returns where it stopped, the
/// start of that function's first token. The tokens go into `tokens`, emptied first: the
/// previous piece's list, so that its memory (megabytes, fresh pages for the kernel to clear
/// each time) is reused.
pub(super) fn lex_piece<'src>(
    source: &'src str,
    start: usize,
    at_least: usize,
    mut tokens: Tokens<'src>,
) -> (Tokens<'src>, Vec<Diagnostic>, usize) {
    let length = source.len().saturating_sub(start).min(at_least.saturating_mul(2));
    tokens.clear();
    // Real PTX averages about one token per five bytes (0.21 per byte over the corpus, 0.27 in
    // its densest file): one per four leaves room in nearly every file without holding much
    // more than the tokens need.
    tokens.reserve(length / 4 + 16);
    let mut lexer = Lexer {
        source,
        bytes: source.as_bytes(),
        position: start,
        tokens,
        diagnostics: Vec::new(),
        look_for_boundary_after: start.saturating_add(at_least),
    };
    lexer.run();
    (lexer.tokens, lexer.diagnostics, lexer.position)
}

/// [`lex`] without [`Lexer::run`]'s fast paths: every token read by [`Lexer::lex_one`]. The
/// tests check that the two agree.
#[cfg(test)]
pub(in crate::syntax) fn lex_one_at_a_time(source: &str) -> (Tokens<'_>, Vec<Diagnostic>) {
    let mut lexer = Lexer {
        source,
        bytes: source.as_bytes(),
        position: 0,
        tokens: Tokens::with_capacity(source, 0),
        diagnostics: Vec::new(),
        look_for_boundary_after: usize::MAX,
    };
    while let Some(&byte) = lexer.bytes.get(lexer.position) {
        if !lexer.lex_one(byte) {
            lexer.invalid_run(byte);
        }
    }
    (lexer.tokens, lexer.diagnostics)
}

struct Lexer<'src> {
    source: &'src str,
    bytes: &'src [u8],
    position: usize,
    tokens: Tokens<'src>,
    diagnostics: Vec<Diagnostic>,
    /// Where [`lex_piece`] starts looking for the end of its piece.
    look_for_boundary_after: usize,
}

/// Bytes that may continue an identifier: `[a-zA-Z0-9_$]`. A table lookup: names are most of
/// the source, and this test runs on each of their bytes.
#[inline]
fn is_identifier_continue(byte: u8) -> bool {
    IDENTIFIER_CONTINUE[usize::from(byte)]
}

/// [`is_identifier_continue`] for each byte value.
static IDENTIFIER_CONTINUE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let value = byte as u8;
        table[byte] = value.is_ascii_alphanumeric() || value == b'_' || value == b'$';
        byte += 1;
    }
    table
};

/// What a byte that starts a token means to [`Lexer::run`]'s loop.
#[derive(Clone, Copy)]
#[repr(u8)]
enum ByteClass {
    /// A letter: a name, whatever follows.
    NameStart,
    /// `%`, `$` or `_`: a name if a name's byte follows.
    Sigil,
    /// `.`: a dot name if a letter follows.
    Dot,
    /// A punctuation token of this one byte, whatever follows (`,` but not `<`, which may
    /// begin `<<`), that does not change the nesting count: its tag is in [`PUNCTUATION_TAG`].
    Punctuation,
    /// `{`, `[` or `(`: one-byte punctuation that [`Nesting::open`] counts.
    Open,
    /// `}`, `]` or `)`: one-byte punctuation that [`Nesting::close`] counts.
    Close,
    /// `+`, `-` or `~`: one-byte punctuation that [`Nesting::unary`] counts.
    Unary,
    Digit,
    /// Anything else (whitespace included, which the loop skips before it looks at a class):
    /// [`Lexer::lex_one`] reads it.
    Other,
}

/// The one-byte punctuation tokens that begin no longer token.
const ONE_BYTE_PUNCTUATION: [(u8, Tag); 16] = [
    (b',', Tag::Comma),
    (b';', Tag::Semicolon),
    (b':', Tag::Colon),
    (b'{', Tag::LeftBrace),
    (b'}', Tag::RightBrace),
    (b'[', Tag::LeftBracket),
    (b']', Tag::RightBracket),
    (b'(', Tag::LeftParen),
    (b')', Tag::RightParen),
    (b'@', Tag::At),
    (b'+', Tag::Plus),
    (b'-', Tag::Minus),
    (b'*', Tag::Star),
    (b'^', Tag::Caret),
    (b'~', Tag::Tilde),
    (b'?', Tag::Question),
];

/// [`ByteClass`] of each byte value.
static BYTE_CLASS: [ByteClass; 256] = {
    let mut table = [ByteClass::Other; 256];
    let mut byte = 0;
    while byte < 256 {
        let value = byte as u8;
        table[byte] = if value.is_ascii_alphabetic() {
            ByteClass::NameStart
        } else if value.is_ascii_digit() {
            ByteClass::Digit
        } else if value == b'%' || value == b'$' || value == b'_' {
            ByteClass::Sigil
        } else if value == b'.' {
            ByteClass::Dot
        } else {
            ByteClass::Other
        };
        byte += 1;
    }
    let mut index = 0;
    while index < ONE_BYTE_PUNCTUATION.len() {
        let (byte, tag) = ONE_BYTE_PUNCTUATION[index];
        table[byte as usize] = match tag {
            Tag::LeftBrace | Tag::LeftBracket | Tag::LeftParen => ByteClass::Open,
            Tag::RightBrace | Tag::RightBracket | Tag::RightParen => ByteClass::Close,
            Tag::Plus | Tag::Minus | Tag::Tilde => ByteClass::Unary,
            _ => ByteClass::Punctuation,
        };
        index += 1;
    }
    table
};

/// The tag of each [`ByteClass::Punctuation`] byte (`Question` for the others, never read).
static PUNCTUATION_TAG: [Tag; 256] = {
    let mut table = [Tag::Question; 256];
    let mut index = 0;
    while index < ONE_BYTE_PUNCTUATION.len() {
        table[ONE_BYTE_PUNCTUATION[index].0 as usize] = ONE_BYTE_PUNCTUATION[index].1;
        index += 1;
    }
    table
};

/// A decimal integer at `start` (a digit) that ends there: not octal, not a float, no suffix,
/// no other name byte after it, and within 64 bits. Its value and end; `None` for any other
/// number, which [`Lexer::lex_number`] reads (and reports, if it is malformed).
#[inline(always)]
fn plain_decimal(bytes: &[u8], start: usize) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    let mut end = start;
    while let Some(&byte) = bytes.get(end) {
        if !byte.is_ascii_digit() {
            if is_identifier_continue(byte) || byte == b'.' {
                return None;
            }
            break;
        }
        value = value.checked_mul(10)?.checked_add(u64::from(byte - b'0'))?;
        end += 1;
    }
    let octal = bytes.get(start) == Some(&b'0') && end - start > 1;
    (!octal).then_some((value, end))
}

/// PTX whitespace: space, tab, line feed, carriage return, vertical tab and form feed. A table
/// lookup, as [`is_identifier_continue`] is: it runs on every byte between tokens.
#[inline]
fn is_space(byte: u8) -> bool {
    SPACE[usize::from(byte)]
}

/// [`is_space`] for each byte value.
static SPACE: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        table[byte] = matches!(byte as u8, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C);
        byte += 1;
    }
    table
};

/// The offset of the first byte from `from` on that is not `wanted`, or the end of `bytes`.
#[inline(always)]
fn skip_while(bytes: &[u8], from: usize, wanted: impl Fn(u8) -> bool) -> usize {
    // A plain index loop: `Iterator::position` over the rest compiled to twice the
    // instructions per byte, and this loop runs on nearly every byte of the source.
    let mut at = from;
    while let Some(&byte) = bytes.get(at) {
        if !wanted(byte) {
            break;
        }
        at += 1;
    }
    at
}

/// Reads the dot names that follow a name directly (`mov.u32`, `ld.global.v4.f32`, `%tid.x`),
/// from `position`, the end of the name: pushed here, in a loop of their own, rather than one per
/// turn of [`Lexer::run`]'s loop, each through its whitespace skip and its dispatch on the byte
/// class. Stops before anything else, a dot name with `::` included (the general path reads it).
/// A dot name right after a name never starts a function, so no piece can end among these.
/// Returns the position after the last one.
#[inline(always)]
fn dot_names_after(bytes: &[u8], mut position: usize, tokens: &mut Tokens<'_>) -> usize {
    while bytes.get(position) == Some(&b'.') && bytes.get(position + 1).is_some_and(|&next| is_dot_name_start(next)) {
        let end = byte_runs::end_of_name(bytes, position + 2, is_identifier_continue);
        if bytes.get(end) == Some(&b':') {
            break;
        }
        tokens.push_text(TextKind::DotName, Span::new(position, end));
        position = end;
    }
    position
}

/// Reads the `,` or `;` that follows a name and its dot names directly (`%r1, %r2;`,
/// `ret;`), as a quarter of all tokens do: one predictable test here rather than a turn of
/// [`Lexer::run`]'s loop and its dispatch on the byte class. Neither changes the nesting count
/// nor ends a piece. Returns the position after it, or `position` where neither follows.
#[inline(always)]
fn separator_after(bytes: &[u8], position: usize, tokens: &mut Tokens<'_>) -> usize {
    let tag = match bytes.get(position) {
        Some(b',') => Tag::Comma,
        Some(b';') => Tag::Semicolon,
        _ => return position,
    };
    tokens.push_punctuation(tag, Span::new(position, position + 1));
    position + 1
}

/// Bytes that may start the name after a dot: `[a-zA-Z_$]`.
#[inline]
fn is_dot_name_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte == b'$'
}

/// The length in bytes of the UTF-8 character that starts with `byte`.
fn char_width(byte: u8) -> usize {
    match byte {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

impl<'src> Lexer<'src> {
    #[inline]
    fn peek_at(&self, offset: usize) -> u8 {
        self.bytes.get(self.position + offset).copied().unwrap_or(0)
    }

    #[inline]
    fn push(&mut self, kind: TokenKind<'src>, start: usize) {
        self.tokens.push(kind, Span::new(start, self.position));
    }

    /// The loop over the source. The forms that make up nearly all of real PTX (whitespace,
    /// names, dot names, one-byte punctuation, decimal integers) are read here, by a byte-class
    /// table, without a call; everything else goes through [`Lexer::lex_one`].
    ///
    /// The token list and the position are locals of the loop, handed back to the lexer around
    /// the calls that need them: as fields behind `&mut self`, the list's length and capacity and
    /// the position were loaded from memory and stored back at every token.
    fn run(&mut self) {
        let bytes = self.bytes;
        let look_for_boundary_after = self.look_for_boundary_after;
        let mut tokens = std::mem::replace(&mut self.tokens, Tokens::with_capacity(self.source, 0));
        let mut position = self.position;
        // Counted here rather than in a pass of its own over the list; names and numbers change
        // nothing in it.
        let mut nesting = Nesting::default();
        loop {
            let start = skip_while(bytes, position, is_space);
            position = start;
            let Some(&byte) = bytes.get(start) else { break };
            match BYTE_CLASS[usize::from(byte)] {
                ByteClass::NameStart => {
                    position = byte_runs::end_of_name(bytes, start + 1, is_identifier_continue);
                    tokens.push_text(TextKind::Identifier, Span::new(start, position));
                    position = dot_names_after(bytes, position, &mut tokens);
                    position = separator_after(bytes, position, &mut tokens);
                }
                // `%r1`, `$L__BB0_2`, `__cudart_x`: a sigil with a name after it.
                ByteClass::Sigil if bytes.get(start + 1).is_some_and(|&next| is_identifier_continue(next)) => {
                    position = byte_runs::end_of_name(bytes, start + 2, is_identifier_continue);
                    tokens.push_text(TextKind::Identifier, Span::new(start, position));
                    position = dot_names_after(bytes, position, &mut tokens);
                    position = separator_after(bytes, position, &mut tokens);
                }
                // `.u32`, `.global`; `.shared::cta` goes through `lex_one`.
                ByteClass::Dot if bytes.get(start + 1).is_some_and(|&next| is_dot_name_start(next)) => {
                    let end = byte_runs::end_of_name(bytes, start + 2, is_identifier_continue);
                    if bytes.get(end) == Some(&b':') {
                        (tokens, position) = self.lex_other_with(tokens, start, byte, &mut nesting);
                    } else {
                        position = end;
                        tokens.push_text(TextKind::DotName, Span::new(start, end));
                    }
                    // Only a dot name (`.entry`, `.func`, ...) may start a function, so only
                    // here, and after `lex_other_with`, may a piece end.
                    if position >= look_for_boundary_after {
                        let at_boundary;
                        (tokens, position, at_boundary) = self.end_piece_if_at_boundary(tokens, position, &nesting);
                        if at_boundary {
                            break;
                        }
                    }
                }
                ByteClass::Punctuation => {
                    position = start + 1;
                    tokens.push_punctuation(PUNCTUATION_TAG[usize::from(byte)], Span::new(start, position));
                }
                ByteClass::Open => {
                    position = start + 1;
                    let tag = PUNCTUATION_TAG[usize::from(byte)];
                    nesting.open(tag, tokens.len());
                    tokens.push_punctuation(tag, Span::new(start, position));
                }
                ByteClass::Close => {
                    position = start + 1;
                    let tag = PUNCTUATION_TAG[usize::from(byte)];
                    nesting.close(tag);
                    tokens.push_punctuation(tag, Span::new(start, position));
                }
                ByteClass::Unary => {
                    position = start + 1;
                    nesting.unary(tokens.len());
                    tokens.push_punctuation(PUNCTUATION_TAG[usize::from(byte)], Span::new(start, position));
                }
                ByteClass::Digit => match plain_decimal(bytes, start) {
                    Some((value, end)) => {
                        position = end;
                        tokens.push_integer(value, Span::new(start, end));
                    }
                    None => (tokens, position) = self.lex_other_with(tokens, start, byte, &mut nesting),
                },
                // `//` comments (a line in eight of nvcc's output) are skipped here: through
                // `lex_other_with`, handing the token list over and back, each cost about 200
                // instructions.
                ByteClass::Other if byte == b'/' && bytes.get(start + 1) == Some(&b'/') => {
                    position = byte_runs::find_line_feed(bytes, start + 2).map_or(bytes.len(), |feed| feed + 1);
                }
                ByteClass::Sigil | ByteClass::Dot | ByteClass::Other => {
                    (tokens, position) = self.lex_other_with(tokens, start, byte, &mut nesting);
                    if position >= look_for_boundary_after {
                        let at_boundary;
                        (tokens, position, at_boundary) = self.end_piece_if_at_boundary(tokens, position, &nesting);
                        if at_boundary {
                            break;
                        }
                    }
                }
            }
        }
        tokens.set_first_too_deep(nesting.first_too_deep());
        self.tokens = tokens;
        self.position = position;
    }

    /// [`Lexer::lex_other`] at `position`, with the loop's token list handed to the lexer and
    /// back, and the tokens it pushed counted by `nesting`: the list and the position after it.
    #[inline(never)]
    fn lex_other_with(
        &mut self,
        tokens: Tokens<'src>,
        position: usize,
        byte: u8,
        nesting: &mut Nesting,
    ) -> (Tokens<'src>, usize) {
        let before = tokens.len();
        self.tokens = tokens;
        self.position = position;
        self.lex_other(byte);
        for index in before..self.tokens.len() {
            if let Some(tag) = self.tokens.tag(index) {
                nesting.token(tag, index);
            }
        }
        (std::mem::replace(&mut self.tokens, Tokens::with_capacity(self.source, 0)), self.position)
    }

    /// Whatever [`Lexer::run`] does not read itself: through [`Lexer::lex_one`], with a run of
    /// invalid characters reported as one.
    #[inline(always)]
    fn lex_other(&mut self, byte: u8) {
        if !self.lex_one(byte) {
            self.invalid_run(byte);
        }
    }

    /// Groups a run of invalid characters, starting with `byte` at the current position, into
    /// one diagnostic, reported once the next thing (a token, whitespace or a comment) has been
    /// read. Kept out of [`Lexer::run`]'s loop, so that valid text pays nothing for it.
    #[cold]
    #[inline(never)]
    fn invalid_run(&mut self, byte: u8) {
        let start = self.position;
        self.position = (start + char_width(byte)).min(self.bytes.len());
        while let Some(&next) = self.bytes.get(self.position) {
            let next_start = self.position;
            if self.lex_one(next) {
                self.report_invalid(start, next_start);
                return;
            }
            self.position = (next_start + char_width(next)).min(self.bytes.len());
        }
        self.report_invalid(start, self.bytes.len());
    }

    /// [`Lexer::at_piece_boundary`] with the loop's token list and position handed to the lexer
    /// and back: the list, the position after it and whether the piece ends there.
    #[inline(never)]
    fn end_piece_if_at_boundary(
        &mut self,
        tokens: Tokens<'src>,
        position: usize,
        nesting: &Nesting,
    ) -> (Tokens<'src>, usize, bool) {
        self.tokens = tokens;
        self.position = position;
        let at_boundary = self.at_piece_boundary(nesting.brace_depth());
        let tokens = std::mem::replace(&mut self.tokens, Tokens::with_capacity(self.source, 0));
        (tokens, self.position, at_boundary)
    }

    /// True when the last token starts a module-level function (`.visible`, `.weak`, `.extern`,
    /// `.entry` or `.func` at brace depth 0, right after a `}` or `;`): then that token is taken
    /// back and the piece ends before it. A piece so cut holds whole directives, so parsing it
    /// alone reads what parsing the whole file would. `braces` is the brace depth after the
    /// last token, as the loop's [`Nesting`] counted it.
    fn at_piece_boundary(&mut self, braces: usize) -> bool {
        let count = self.tokens.len();
        let Some(last) = count.checked_sub(1).and_then(|index| self.tokens.kind(index)) else { return false };
        let starts_function = matches!(last, TokenKind::DotName("visible" | "weak" | "extern" | "entry" | "func"));
        let after_directive = count
            .checked_sub(2)
            .and_then(|index| self.tokens.tag(index))
            .is_some_and(|previous| matches!(previous, Tag::RightBrace | Tag::Semicolon));
        if braces == 0 && starts_function && after_directive {
            self.position = self.tokens.span(count - 1).map_or(self.position, |span| span.start as usize);
            self.tokens.truncate(count - 1);
            return true;
        }
        false
    }

    /// Lexes one token, or skips whitespace or a comment. Returns false (having consumed
    /// nothing) when `byte` cannot start anything.
    #[inline(never)]
    fn lex_one(&mut self, byte: u8) -> bool {
        let start = self.position;
        match byte {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => {
                self.position += 1;
                while self.position < self.bytes.len()
                    && matches!(self.bytes[self.position], b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)
                {
                    self.position += 1;
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' => {
                self.position += 1;
                self.skip_identifier_continue();
                self.tokens.push_text(TextKind::Identifier, Span::new(start, self.position));
            }
            b'_' | b'$' | b'%' => {
                if is_identifier_continue(self.peek_at(1)) {
                    self.position += 1;
                    self.skip_identifier_continue();
                    self.tokens.push_text(TextKind::Identifier, Span::new(start, self.position));
                } else {
                    let tag = match byte {
                        b'_' => Tag::Underscore,
                        b'%' => Tag::Percent,
                        _ => return false,
                    };
                    self.punctuation(tag, 1);
                }
            }
            b'.' => {
                let next = self.peek_at(1);
                if is_dot_name_start(next) || (next.is_ascii_digit() && self.digits_then_name()) {
                    self.position += 1;
                    self.skip_identifier_continue();
                    // `::` segments (`.shared::cta`, `.L2::256B`) are part of the name.
                    while self.peek_at(0) == b':' && self.peek_at(1) == b':' && is_identifier_continue(self.peek_at(2))
                    {
                        self.position += 2;
                        self.skip_identifier_continue();
                    }
                    self.tokens.push_text(TextKind::DotName, Span::new(start, self.position));
                } else if next.is_ascii_digit() {
                    self.lex_decimal_float(start);
                } else {
                    return false;
                }
            }
            b'0'..=b'9' => self.lex_number(),
            b'"' => self.lex_string(),
            b'/' => match self.peek_at(1) {
                b'/' => {
                    self.position += 2;
                    match memchr_newline(&self.bytes[self.position..]) {
                        Some(offset) => self.position += offset + 1,
                        None => self.position = self.bytes.len(),
                    }
                }
                b'*' => self.skip_block_comment(),
                _ => self.punctuation(Tag::Slash, 1),
            },
            b',' => self.punctuation(Tag::Comma, 1),
            b';' => self.punctuation(Tag::Semicolon, 1),
            b':' => self.punctuation(Tag::Colon, 1),
            b'{' => self.punctuation(Tag::LeftBrace, 1),
            b'}' => self.punctuation(Tag::RightBrace, 1),
            b'[' => self.punctuation(Tag::LeftBracket, 1),
            b']' => self.punctuation(Tag::RightBracket, 1),
            b'(' => self.punctuation(Tag::LeftParen, 1),
            b')' => self.punctuation(Tag::RightParen, 1),
            b'<' => match self.peek_at(1) {
                b'<' => self.punctuation(Tag::ShiftLeft, 2),
                b'=' => self.punctuation(Tag::LessEqual, 2),
                _ => self.punctuation(Tag::Less, 1),
            },
            b'>' => match self.peek_at(1) {
                b'>' => self.punctuation(Tag::ShiftRight, 2),
                b'=' => self.punctuation(Tag::GreaterEqual, 2),
                _ => self.punctuation(Tag::Greater, 1),
            },
            b'=' => match self.peek_at(1) {
                b'=' => self.punctuation(Tag::EqualEqual, 2),
                _ => self.punctuation(Tag::Equals, 1),
            },
            b'!' => match self.peek_at(1) {
                b'=' => self.punctuation(Tag::NotEqual, 2),
                _ => self.punctuation(Tag::Bang, 1),
            },
            b'&' => match self.peek_at(1) {
                b'&' => self.punctuation(Tag::AndAnd, 2),
                _ => self.punctuation(Tag::Ampersand, 1),
            },
            b'|' => match self.peek_at(1) {
                b'|' => self.punctuation(Tag::OrOr, 2),
                _ => self.punctuation(Tag::Pipe, 1),
            },
            b'@' => self.punctuation(Tag::At, 1),
            b'+' => self.punctuation(Tag::Plus, 1),
            b'-' => self.punctuation(Tag::Minus, 1),
            b'*' => self.punctuation(Tag::Star, 1),
            b'^' => self.punctuation(Tag::Caret, 1),
            b'~' => self.punctuation(Tag::Tilde, 1),
            b'?' => self.punctuation(Tag::Question, 1),
            _ => return false,
        }
        true
    }

    /// At a dot followed by digits: true when a name follows the digits, as in the texture
    /// geometries `.1d`, `.2d`, `.3d`, `.2dms`, and false for a float such as `.5` or `.5e3`.
    fn digits_then_name(&self) -> bool {
        let mut offset = 1;
        while self.peek_at(offset).is_ascii_digit() {
            offset += 1;
        }
        let after = self.peek_at(offset);
        let exponent = matches!(after, b'e' | b'E')
            && (self.peek_at(offset + 1).is_ascii_digit()
                || (matches!(self.peek_at(offset + 1), b'+' | b'-') && self.peek_at(offset + 2).is_ascii_digit()));
        is_dot_name_start(after) && !exponent
    }

    /// A punctuation token of `width` bytes, stored by its tag (no `TokenKind` to map).
    #[inline]
    fn punctuation(&mut self, tag: Tag, width: usize) {
        let start = self.position;
        self.position += width;
        self.tokens.push_punctuation(tag, Span::new(start, self.position));
    }

    #[inline]
    fn skip_identifier_continue(&mut self) {
        self.position = skip_while(self.bytes, self.position, is_identifier_continue);
    }

    fn report_invalid(&mut self, start: usize, end: usize) {
        let text = &self.source[start..end];
        let shown: String = text.chars().take(8).flat_map(char::escape_debug).collect();
        let (message, label) = if text.chars().nth(1).is_some() {
            (format!("invalid characters `{shown}`"), "these characters cannot start a PTX token")
        } else {
            (format!("invalid character `{shown}`"), "this character cannot start a PTX token")
        };
        self.diagnostics
            .push(Diagnostic::error(Code::InvalidCharacter, message).with_primary(Span::new(start, end), label));
    }

    fn skip_block_comment(&mut self) {
        let start = self.position;
        self.position += 2;
        while self.position < self.bytes.len() {
            if self.bytes[self.position] == b'*' && self.peek_at(1) == b'/' {
                self.position += 2;
                return;
            }
            self.position += 1;
        }
        self.diagnostics.push(
            Diagnostic::error(Code::Unterminated, "unterminated block comment")
                .with_primary(Span::new(start, start + 2), "this comment is never closed with `*/`"),
        );
    }

    /// A string literal ends at its closing quote; one that reaches the end of the line is
    /// unterminated and ends there.
    fn lex_string(&mut self) {
        let start = self.position;
        self.position += 1;
        while self.position < self.bytes.len() {
            match self.bytes[self.position] {
                b'"' => {
                    self.position += 1;
                    self.tokens.push_text(TextKind::String, Span::new(start, self.position));
                    return;
                }
                b'\\' if matches!(self.peek_at(1), b'"' | b'\\') => self.position += 2,
                b'\n' => break,
                _ => self.position += 1,
            }
        }
        // Strip a carriage return so the span stays on this line.
        let mut end = self.position;
        if end > start + 1 && self.bytes[end - 1] == b'\r' {
            end -= 1;
        }
        self.diagnostics.push(
            Diagnostic::error(Code::Unterminated, "unterminated string")
                .with_primary(Span::new(start, end), "this string has no closing `\"`"),
        );
        self.tokens.push_unterminated_string(Span::new(start, end));
    }

    fn invalid_literal(&mut self, start: usize, message: impl Into<String>, label: &str) {
        self.diagnostics.push(
            Diagnostic::error(Code::InvalidLiteral, message).with_primary(Span::new(start, self.position), label),
        );
    }

    /// Numbers: `0x1F`, `0b101`, `017`, `42`, `42U`, `0f3F800000`, `0d3FF0000000000000`, `1.5`,
    /// `1e-3`. A malformed number still yields one token (valued 0) so parsing goes on.
    fn lex_number(&mut self) {
        let start = self.position;
        let first = self.bytes[start];
        let second = self.peek_at(1);
        if first == b'0' && matches!(second, b'x' | b'X' | b'b' | b'B' | b'f' | b'F' | b'd' | b'D') {
            self.position += 2;
            self.skip_identifier_continue();
            let digits = &self.source[start + 2..self.position];
            let kind = match second {
                b'x' | b'X' => self.integer_digits(start, digits, 16),
                b'b' | b'B' => self.integer_digits(start, digits, 2),
                b'f' | b'F' => self.hex_float(start, digits, 8),
                _ => self.hex_float(start, digits, 16),
            };
            self.push(kind, start);
            return;
        }
        while self.position < self.bytes.len() && self.bytes[self.position].is_ascii_digit() {
            self.position += 1;
        }
        let after = self.peek_at(0);
        let is_fraction = after == b'.' && !is_dot_name_start(self.peek_at(1));
        let is_exponent = matches!(after, b'e' | b'E')
            && (self.peek_at(1).is_ascii_digit()
                || (matches!(self.peek_at(1), b'+' | b'-') && self.peek_at(2).is_ascii_digit()));
        if is_fraction || is_exponent {
            self.lex_decimal_float(start);
            return;
        }
        self.skip_identifier_continue();
        let text = &self.source[start..self.position];
        let body = text.strip_suffix(['U', 'u']).unwrap_or(text);
        let (digits, radix) = if body.len() > 1 && first == b'0' { (&text[1..], 8) } else { (text, 10) };
        let kind = self.integer_digits(start, digits, radix);
        self.push(kind, start);
    }

    /// Reads the digits of an integer (with an optional `U` suffix) in `radix`.
    fn integer_digits(&mut self, start: usize, digits: &str, radix: u32) -> TokenKind<'src> {
        let digits = digits.strip_suffix(['U', 'u']).unwrap_or(digits);
        if digits.is_empty() {
            self.invalid_literal(start, "integer literal has no digits", "digits expected after the prefix");
            return TokenKind::Integer(0);
        }
        let mut value: u64 = 0;
        for byte in digits.bytes() {
            let digit = match (byte as char).to_digit(radix) {
                Some(digit) => digit,
                None => {
                    let base = match radix {
                        2 => "binary",
                        8 => "octal",
                        16 => "hexadecimal",
                        _ => "decimal",
                    };
                    let shown: String = (byte as char).escape_debug().collect();
                    self.invalid_literal(
                        start,
                        format!("invalid digit `{shown}` in {base} literal"),
                        "malformed integer literal",
                    );
                    return TokenKind::Integer(0);
                }
            };
            match value.checked_mul(radix as u64).and_then(|value| value.checked_add(digit as u64)) {
                Some(next) => value = next,
                None => {
                    self.invalid_literal(
                        start,
                        "integer literal does not fit in 64 bits",
                        "PTX integer constants are 64-bit",
                    );
                    return TokenKind::Integer(0);
                }
            }
        }
        TokenKind::Integer(value)
    }

    /// `0f` + 8 hex digits or `0d` + 16 hex digits: float bits written out.
    fn hex_float(&mut self, start: usize, digits: &str, count: usize) -> TokenKind<'src> {
        let double = count == 16;
        let valid = digits.len() == count && digits.bytes().all(|byte| byte.is_ascii_hexdigit());
        match u64::from_str_radix(digits, 16) {
            Ok(bits) if valid => TokenKind::Float { bits, double },
            _ => {
                let (prefix, precision) = if double { ("0d", "double") } else { ("0f", "single") };
                self.invalid_literal(
                    start,
                    format!("`{prefix}` float literal needs exactly {count} hexadecimal digits"),
                    format!("malformed {precision}-precision float literal").as_str(),
                );
                TokenKind::Float { bits: 0, double }
            }
        }
    }

    /// A decimal float: digits, an optional fraction and an optional exponent, from `start`
    /// (which may be the dot of `.5`).
    fn lex_decimal_float(&mut self, start: usize) {
        self.position = start;
        while self.peek_at(0).is_ascii_digit() {
            self.position += 1;
        }
        if self.peek_at(0) == b'.' {
            self.position += 1;
            while self.peek_at(0).is_ascii_digit() {
                self.position += 1;
            }
        }
        if matches!(self.peek_at(0), b'e' | b'E') {
            let sign = usize::from(matches!(self.peek_at(1), b'+' | b'-'));
            if self.peek_at(1 + sign).is_ascii_digit() {
                self.position += 1 + sign;
                while self.peek_at(0).is_ascii_digit() {
                    self.position += 1;
                }
            }
        }
        let number_end = self.position;
        self.skip_identifier_continue();
        let kind = if self.position != number_end {
            self.invalid_literal(start, "malformed float literal", "unexpected characters after the number");
            TokenKind::Float { bits: 0, double: true }
        } else {
            match self.source[start..number_end].parse::<f64>() {
                Ok(value) => TokenKind::Float { bits: value.to_bits(), double: true },
                Err(_) => {
                    self.invalid_literal(start, "malformed float literal", "not a decimal number");
                    TokenKind::Float { bits: 0, double: true }
                }
            }
        };
        self.push(kind, start);
    }
}

/// The offset of the first `\n` in `bytes`.
#[inline]
fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&byte| byte == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<TokenKind<'_>> {
        let (tokens, diagnostics) = lex(source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        tokens.iter().map(|token| token.kind).collect()
    }

    #[test]
    fn identifiers_and_dot_names() {
        use TokenKind::*;
        assert_eq!(
            kinds("ld.global.L2::cache_hint.v4.f16x2 %r1, $L__BB0_2, __cudart_x, _, %tid.x;"),
            vec![
                Identifier("ld"),
                DotName("global"),
                DotName("L2::cache_hint"),
                DotName("v4"),
                DotName("f16x2"),
                Identifier("%r1"),
                Comma,
                Identifier("$L__BB0_2"),
                Comma,
                Identifier("__cudart_x"),
                Comma,
                Underscore,
                Comma,
                Identifier("%tid"),
                DotName("x"),
                Semicolon,
            ]
        );
        assert_eq!(
            kinds(".mbarrier::complete_tx::bytes .L2::256B"),
            vec![DotName("mbarrier::complete_tx::bytes"), DotName("L2::256B")]
        );
        assert_eq!(kinds(".reg.v4.u16"), vec![DotName("reg"), DotName("v4"), DotName("u16")]);
        assert_eq!(
            kinds("tex.2d.v4 .3d .2dms"),
            vec![Identifier("tex"), DotName("2d"), DotName("v4"), DotName("3d"), DotName("2dms")]
        );
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        assert_eq!(
            kinds("42 42U 0x1F 0X1fU 017 0b101 0 0U"),
            vec![Integer(42), Integer(42), Integer(31), Integer(31), Integer(15), Integer(5), Integer(0), Integer(0)]
        );
        assert_eq!(
            kinds("0f3F800000 0d3FF0000000000000"),
            vec![Float { bits: 0x3F80_0000, double: false }, Float { bits: 0x3FF0_0000_0000_0000, double: true }]
        );
        assert_eq!(
            kinds("1.5 .5 1e3 2.5E-1 7.8"),
            vec![
                Float { bits: 1.5f64.to_bits(), double: true },
                Float { bits: 0.5f64.to_bits(), double: true },
                Float { bits: 1000f64.to_bits(), double: true },
                Float { bits: 0.25f64.to_bits(), double: true },
                Float { bits: 7.8f64.to_bits(), double: true },
            ]
        );
        assert_eq!(kinds("18446744073709551615"), vec![Integer(u64::MAX)]);
    }

    /// Line comments, which the main loop skips itself: to the end of the line, or of the input
    /// when no newline follows; a lone `/` stays a slash.
    #[test]
    fn line_comments_end_at_the_line_or_the_input() {
        use TokenKind::*;
        assert_eq!(kinds("%r1 // no newline after this"), vec![Identifier("%r1")]);
        assert_eq!(kinds("a // x\n/ b //"), vec![Identifier("a"), Slash, Identifier("b")]);
        assert_eq!(kinds("//\n//\n{"), vec![LeftBrace]);
    }

    #[test]
    fn punctuation_and_comments() {
        use TokenKind::*;
        assert_eq!(
            kinds("%p|%q // comment\n /* block \n comment */ << >> <= >= == != && || @!{}[]()<>+-*/%^~=?:"),
            vec![
                Identifier("%p"),
                Pipe,
                Identifier("%q"),
                ShiftLeft,
                ShiftRight,
                LessEqual,
                GreaterEqual,
                EqualEqual,
                NotEqual,
                AndAnd,
                OrOr,
                At,
                Bang,
                LeftBrace,
                RightBrace,
                LeftBracket,
                RightBracket,
                LeftParen,
                RightParen,
                Less,
                Greater,
                Plus,
                Minus,
                Star,
                Slash,
                Percent,
                Caret,
                Tilde,
                Equals,
                Question,
                Colon,
            ]
        );
        assert_eq!(kinds(r#".pragma "nounroll";"#), vec![DotName("pragma"), String("nounroll"), Semicolon]);
    }

    #[test]
    fn spans_are_byte_offsets() {
        let (tokens, _) = lex("  mov.u32 %r1;");
        let spans: Vec<_> = tokens.iter().map(|token| token.span.range()).collect();
        assert_eq!(spans, vec![2..5, 5..9, 10..13, 13..14]);
    }

    #[test]
    fn errors_are_reported_and_lexing_continues() {
        let (tokens, diagnostics) = lex("mov é€ # %r1; 0x; 0f12; 99999999999999999999 0b102 \"open\n/* never closed");
        let codes: Vec<_> = diagnostics.iter().map(|diagnostic| diagnostic.code).collect();
        assert_eq!(
            codes,
            vec![
                Code::InvalidCharacter,
                Code::InvalidCharacter,
                Code::InvalidLiteral,
                Code::InvalidLiteral,
                Code::InvalidLiteral,
                Code::InvalidLiteral,
                Code::Unterminated,
                Code::Unterminated,
            ]
        );
        // `é€` is one run of invalid characters; its span covers both characters.
        assert_eq!(diagnostics[0].primary_span(), Some(Span::new(4, 9)));
        assert!(tokens.iter().any(|token| token.kind == TokenKind::Identifier("%r1")));
        assert!(diagnostics.iter().all(|diagnostic| diagnostic.primary_span().is_some()));
    }

    /// Names of every length up to 20 (read eight bytes at a time, then a byte at a time in the
    /// last eight of the input), after every kind of start, ending at the end of the input,
    /// before a multi-byte character, before punctuation or whitespace: the main loop ends them
    /// where the byte-at-a-time reference does.
    #[test]
    fn names_of_every_length_end_where_the_byte_loop_ends_them() {
        for length in 1..=20 {
            let name: String = "abcXYZ_$09".chars().cycle().take(length).collect();
            for prefix in ["", "%", ".", "\t"] {
                for suffix in ["", "\u{e9}", ";", ",", ", x", " x", "\u{20ac}12345678", ".u32", ".u32;"] {
                    let source = format!("{prefix}{name}{suffix}");
                    let (fast, fast_diagnostics) = lex(&source);
                    let (reference, reference_diagnostics) = lex_one_at_a_time(&source);
                    assert_eq!(fast.iter().collect::<Vec<_>>(), reference.iter().collect::<Vec<_>>(), "{source:?}");
                    assert_eq!(fast_diagnostics, reference_diagnostics, "{source:?}");
                    let name_end = prefix.len() + length;
                    assert_eq!(fast.span(0).map(|span| span.end as usize), Some(name_end), "{source:?}");
                }
            }
        }
    }

    /// With `at_least` 1, a piece ends before every dot name that may start a module-level
    /// function, at brace depth 0, right after `}` or `;`: not inside braces, not after another
    /// token, and also where the dot name is read by the general path (`.weak:`). The pieces'
    /// tokens, one after another, are the whole file's.
    #[test]
    fn pieces_end_before_module_level_functions() {
        let source = "a;\n.visible .entry k() {\n{ .func }\n ret;\n}\n.func f() { }\n.weak:x\n.extern y;";
        let (whole, _) = lex(source);
        let (mut starts, mut read) = (Vec::new(), Vec::new());
        let (mut start, mut tokens) = (0, Tokens::with_capacity(source, 0));
        while start < source.len() {
            let (piece, diagnostics, end) = lex_piece(source, start, 1, tokens);
            assert!(diagnostics.is_empty() && end > start, "{diagnostics:?} at {start}");
            read.extend(piece.iter());
            (start, tokens) = (end, piece);
            starts.push(start);
        }
        let offset = |text: &str| source.find(text).unwrap_or(usize::MAX);
        assert_eq!(starts, [offset(".visible"), offset(".func f"), offset(".weak"), source.len()]);
        assert_eq!(read, whole.iter().collect::<Vec<_>>());
    }

    #[test]
    fn never_panics_on_odd_input() {
        for source in ["", ".", "0x", "0f", "\"", "/*", "/", "%", "$", "_", "1e", "1.", "1.e5", "\u{0}", "é", "0d1"] {
            let (tokens, diagnostics) = lex(source);
            for span in tokens.iter().map(|token| token.span).chain(diagnostics.iter().flat_map(|d| d.primary_span())) {
                assert!(source.is_char_boundary(span.start as usize) && source.is_char_boundary(span.end as usize));
                assert!(span.start <= span.end);
            }
        }
    }
}
