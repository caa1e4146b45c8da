//! Syntax errors: what chumsky reports while parsing, and how it becomes a diagnostic
//! ("unexpected `]`" at the offending token, labelled "expected one of `,`, `;`").
//!
//! chumsky builds an error each time an alternative fails, also on the way to a successful
//! parse, so the error type is on the hot path. `SyntaxError` is chumsky's `Rich` error cut
//! down to what the diagnostics use and made small enough to copy freely: the found token,
//! the span, and the expectations as a bit set over punctuation, labels and keywords.

use chumsky::error::LabelError;
use chumsky::util::MaybeRef;
use chumsky::DefaultExpected;

use super::ParserInput;
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::syntax::lexer::TokenKind;
use crate::syntax::tokens::Tokens;

/// The names parsers give to classes of tokens, for "expected ..." labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Label {
    /// An expectation that only adds noise to messages (binary operators after every number,
    /// members after every name); it is left out of them.
    Hidden,
    Address,
    Directive,
    Expression,
    FunctionAttribute,
    FunctionBody,
    FunctionName,
    Initializer,
    Integer,
    Linkage,
    Name,
    Opcode,
    Operand,
    ParameterName,
    Predicate,
    SectionName,
    StateSpace,
    Statement,
    String,
    Target,
    Type,
    VariableName,
    VectorWidth,
    VersionNumber,
}

impl Label {
    const ALL: [Label; 24] = [
        Label::Hidden,
        Label::Address,
        Label::Directive,
        Label::Expression,
        Label::FunctionAttribute,
        Label::FunctionBody,
        Label::FunctionName,
        Label::Initializer,
        Label::Integer,
        Label::Linkage,
        Label::Name,
        Label::Opcode,
        Label::Operand,
        Label::ParameterName,
        Label::Predicate,
        Label::SectionName,
        Label::StateSpace,
        Label::Statement,
        Label::String,
        Label::Target,
        Label::Type,
        Label::VariableName,
        Label::VectorWidth,
        Label::VersionNumber,
    ];

    fn name(self) -> &'static str {
        match self {
            Label::Hidden => "",
            Label::Address => "address",
            Label::Directive => "directive",
            Label::Expression => "expression",
            Label::FunctionAttribute => "function attribute",
            Label::FunctionBody => "function body",
            Label::FunctionName => "function name",
            Label::Initializer => "initializer",
            Label::Integer => "integer",
            Label::Linkage => "linkage",
            Label::Name => "name",
            Label::Opcode => "opcode",
            Label::Operand => "operand",
            Label::ParameterName => "parameter name",
            Label::Predicate => "predicate",
            Label::SectionName => "section name",
            Label::StateSpace => "state space",
            Label::Statement => "statement",
            Label::String => "string",
            Label::Target => "target",
            Label::Type => "type",
            Label::VariableName => "variable name",
            Label::VectorWidth => "vector width",
            Label::VersionNumber => "version number",
        }
    }
}

/// Keywords that parsers match exactly (with `just`), each with a bit of its own.
const KEYWORDS: [&str; 17] = [
    "version",
    "target",
    "address_size",
    "file",
    "section",
    "pragma",
    "loc",
    "callprototype",
    "branchtargets",
    "calltargets",
    "align",
    "ptr",
    "entry",
    "func",
    "function_name",
    "inlined_at",
    "alias",
];

/// Bit layout of the expectation set.
const PUNCTUATION_BITS: u32 = 0;
const END_OF_INPUT_BIT: u32 = 40;
const LABEL_BITS: u32 = 41;
const KEYWORD_BITS: u32 = 72;
const IDENTIFIER_KEYWORD_BITS: u32 = 100;

// The groups of bits must not overlap, and all must fit in the `u128`.
const _: () = assert!(
    PUNCTUATION_BITS as usize + PUNCTUATION.len() <= END_OF_INPUT_BIT as usize
        && LABEL_BITS as usize + Label::ALL.len() <= KEYWORD_BITS as usize
        && KEYWORD_BITS as usize + KEYWORDS.len() <= IDENTIFIER_KEYWORD_BITS as usize
        && IDENTIFIER_KEYWORD_BITS as usize + KEYWORDS.len() <= 128
);

/// The bit of a punctuation token, in the order of `TokenKind`.
fn punctuation_index(kind: &TokenKind<'_>) -> Option<u32> {
    Some(match kind {
        TokenKind::Underscore => 0,
        TokenKind::Comma => 1,
        TokenKind::Semicolon => 2,
        TokenKind::Colon => 3,
        TokenKind::LeftBrace => 4,
        TokenKind::RightBrace => 5,
        TokenKind::LeftBracket => 6,
        TokenKind::RightBracket => 7,
        TokenKind::LeftParen => 8,
        TokenKind::RightParen => 9,
        TokenKind::Less => 10,
        TokenKind::Greater => 11,
        TokenKind::LessEqual => 12,
        TokenKind::GreaterEqual => 13,
        TokenKind::ShiftLeft => 14,
        TokenKind::ShiftRight => 15,
        TokenKind::EqualEqual => 16,
        TokenKind::NotEqual => 17,
        TokenKind::AndAnd => 18,
        TokenKind::OrOr => 19,
        TokenKind::At => 20,
        TokenKind::Bang => 21,
        TokenKind::Plus => 22,
        TokenKind::Minus => 23,
        TokenKind::Star => 24,
        TokenKind::Slash => 25,
        TokenKind::Percent => 26,
        TokenKind::Pipe => 27,
        TokenKind::Ampersand => 28,
        TokenKind::Caret => 29,
        TokenKind::Tilde => 30,
        TokenKind::Equals => 31,
        TokenKind::Question => 32,
        TokenKind::Identifier(_)
        | TokenKind::DotName(_)
        | TokenKind::Integer(_)
        | TokenKind::Float { .. }
        | TokenKind::String(_) => return None,
    })
}

const PUNCTUATION: [TokenKind<'static>; 33] = [
    TokenKind::Underscore,
    TokenKind::Comma,
    TokenKind::Semicolon,
    TokenKind::Colon,
    TokenKind::LeftBrace,
    TokenKind::RightBrace,
    TokenKind::LeftBracket,
    TokenKind::RightBracket,
    TokenKind::LeftParen,
    TokenKind::RightParen,
    TokenKind::Less,
    TokenKind::Greater,
    TokenKind::LessEqual,
    TokenKind::GreaterEqual,
    TokenKind::ShiftLeft,
    TokenKind::ShiftRight,
    TokenKind::EqualEqual,
    TokenKind::NotEqual,
    TokenKind::AndAnd,
    TokenKind::OrOr,
    TokenKind::At,
    TokenKind::Bang,
    TokenKind::Plus,
    TokenKind::Minus,
    TokenKind::Star,
    TokenKind::Slash,
    TokenKind::Percent,
    TokenKind::Pipe,
    TokenKind::Ampersand,
    TokenKind::Caret,
    TokenKind::Tilde,
    TokenKind::Equals,
    TokenKind::Question,
];

/// The bit that stands for an expected token, if it has one.
fn token_bit(kind: &TokenKind<'_>) -> Option<u32> {
    match kind {
        TokenKind::DotName(name) => {
            KEYWORDS.iter().position(|keyword| keyword == name).map(|index| KEYWORD_BITS + index as u32)
        }
        TokenKind::Identifier(name) => {
            KEYWORDS.iter().position(|keyword| keyword == name).map(|index| IDENTIFIER_KEYWORD_BITS + index as u32)
        }
        _ => punctuation_index(kind).map(|index| PUNCTUATION_BITS + index),
    }
}

/// A syntax error: small and `Copy`-like, since chumsky moves one around for every failed
/// alternative. What was expected is a set of bits (tokens, labels, keywords).
#[derive(Clone, Debug)]
pub(super) struct SyntaxError<'s> {
    span: Span,
    /// `None` at the end of the input.
    found: Option<TokenKind<'s>>,
    expected: u128,
}

impl<'s> SyntaxError<'s> {
    fn new(found: Option<TokenKind<'s>>, span: Span) -> SyntaxError<'s> {
        SyntaxError { span, found, expected: 0 }
    }

    /// An error that only makes a custom parser fail and expects nothing: recovery discards
    /// it, and merged with other errors it adds nothing.
    /// True when the parser ran out of tokens here, rather than meeting a wrong one.
    pub(super) fn at_end_of_input(&self) -> bool {
        self.found.is_none()
    }

    pub(super) fn expecting_nothing(found: Option<TokenKind<'s>>, span: Span) -> SyntaxError<'s> {
        SyntaxError::new(found, span)
    }

    /// An error of a custom parser that wanted one particular token.
    pub(super) fn expected_token(found: Option<TokenKind<'s>>, span: Span, expected: TokenKind<'_>) -> SyntaxError<'s> {
        let mut error = SyntaxError::new(found, span);
        if let Some(bit) = token_bit(&expected) {
            error.expected |= 1 << bit;
        }
        error
    }

    #[inline]
    fn add_default(&mut self, expected: DefaultExpected<'_, TokenKind<'s>>) {
        match expected {
            DefaultExpected::Token(token) => {
                if let Some(bit) = token_bit(&token) {
                    self.expected |= 1 << bit;
                }
            }
            DefaultExpected::EndOfInput => self.expected |= 1 << END_OF_INPUT_BIT,
            // "anything" and "something else" say nothing worth printing.
            _ => {}
        }
    }

    #[inline]
    fn add_label(&mut self, label: Label) {
        if label != Label::Hidden {
            self.expected |= 1 << (LABEL_BITS + label as u32);
        }
    }

    /// What was expected, in PTX spelling, sorted.
    fn expected_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for (index, token) in PUNCTUATION.iter().enumerate() {
            if self.expected & (1 << (PUNCTUATION_BITS + index as u32)) != 0 {
                names.push(format!("`{token}`"));
            }
        }
        if self.expected & (1 << END_OF_INPUT_BIT) != 0 {
            names.push("end of input".to_string());
        }
        for label in Label::ALL {
            if label != Label::Hidden && self.expected & (1 << (LABEL_BITS + label as u32)) != 0 {
                names.push(label.name().to_string());
            }
        }
        for (index, keyword) in KEYWORDS.iter().enumerate() {
            if self.expected & (1 << (KEYWORD_BITS + index as u32)) != 0 {
                names.push(format!("`.{keyword}`"));
            }
            if self.expected & (1 << (IDENTIFIER_KEYWORD_BITS + index as u32)) != 0 {
                names.push(format!("`{keyword}`"));
            }
        }
        names.sort();
        names.dedup();
        names
    }
}

fn found_token<'s>(found: Option<MaybeRef<'_, TokenKind<'s>>>) -> Option<TokenKind<'s>> {
    found.map(|token| *token)
}

impl<'t, 's: 't> chumsky::error::Error<'t, ParserInput<'t, 's>> for SyntaxError<'s> {
    #[inline]
    fn merge(mut self, other: Self) -> Self {
        if self.span.start == self.span.end {
            self.span = other.span;
        }
        self.expected |= other.expected;
        self.found = self.found.or(other.found);
        self
    }
}

impl<'t, 's: 't> LabelError<'t, ParserInput<'t, 's>, DefaultExpected<'t, TokenKind<'s>>> for SyntaxError<'s> {
    #[inline]
    fn expected_found<E: IntoIterator<Item = DefaultExpected<'t, TokenKind<'s>>>>(
        expected: E,
        found: Option<MaybeRef<'t, TokenKind<'s>>>,
        span: Span,
    ) -> Self {
        let mut error = SyntaxError::new(found_token(found), span);
        for expected in expected {
            error.add_default(expected);
        }
        error
    }

    #[inline]
    fn merge_expected_found<E: IntoIterator<Item = DefaultExpected<'t, TokenKind<'s>>>>(
        mut self,
        expected: E,
        found: Option<MaybeRef<'t, TokenKind<'s>>>,
        _span: Span,
    ) -> Self {
        for expected in expected {
            self.add_default(expected);
        }
        if self.found.is_none() {
            self.found = found_token(found);
        }
        self
    }

    #[inline]
    fn replace_expected_found<E: IntoIterator<Item = DefaultExpected<'t, TokenKind<'s>>>>(
        mut self,
        expected: E,
        found: Option<MaybeRef<'t, TokenKind<'s>>>,
        span: Span,
    ) -> Self {
        self.span = span;
        self.found = found_token(found);
        self.expected = 0;
        for expected in expected {
            self.add_default(expected);
        }
        self
    }
}

impl<'t, 's: 't> LabelError<'t, ParserInput<'t, 's>, Label> for SyntaxError<'s> {
    #[inline]
    fn expected_found<E: IntoIterator<Item = Label>>(
        expected: E,
        found: Option<MaybeRef<'t, TokenKind<'s>>>,
        span: Span,
    ) -> Self {
        let mut error = SyntaxError::new(found_token(found), span);
        for label in expected {
            error.add_label(label);
        }
        error
    }

    #[inline]
    fn label_with(&mut self, label: Label) {
        self.expected = 0;
        self.add_label(label);
    }
}

/// Converts one error. `end_of_input` is the last token's span, where errors found at the end
/// of the input point.
pub(super) fn to_diagnostic(
    error: SyntaxError<'_>,
    end_of_input: Span,
    source: &str,
    tokens: &Tokens<'_>,
) -> Diagnostic {
    let (message, span) = match error.found {
        Some(token) => (format!("unexpected {}", describe(&token)), error.span),
        None => ("unexpected end of input".to_string(), end_of_input),
    };
    let mut diagnostic =
        Diagnostic::error(Code::SyntaxError, message).with_primary(span, expectation_label(error.expected_names()));
    // The commonest slip: a statement on a new line where the last one wanted its `;`.
    let semicolon = token_bit(&TokenKind::Semicolon).map_or(0, |bit| 1u128 << bit);
    if error.found.is_some() && error.expected & semicolon != 0 {
        let index = tokens.first_starting_at(span.start);
        if let Some(previous) = index.checked_sub(1).and_then(|index| tokens.get(index)) {
            let between = source.get(previous.span.end as usize..span.start as usize).unwrap_or("");
            if between.contains('\n') {
                diagnostic = diagnostic
                    .with_secondary(previous.span, "the statement before may need a `;` here")
                    .with_help("end each statement with `;`");
            }
        }
    }
    diagnostic
}

/// A found token as a message names it.
fn describe(token: &TokenKind<'_>) -> String {
    match token {
        TokenKind::String(_) => "string".to_string(),
        TokenKind::Integer(_) => format!("integer `{token}`"),
        TokenKind::Float { .. } => "float literal".to_string(),
        _ => format!("`{token}`"),
    }
}

/// How many expectations a label lists before it says "...".
const MOST_EXPECTATIONS: usize = 6;

/// "expected `;`", "expected `,` or `;`", "expected one of `,`, `;`, operand".
fn expectation_label(names: Vec<String>) -> String {
    match names.as_slice() {
        [] => "not expected here".to_string(),
        [one] => format!("expected {one}"),
        [first, second] => format!("expected {first} or {second}"),
        _ if names.len() > MOST_EXPECTATIONS => {
            format!("expected one of {}, ...", names[..MOST_EXPECTATIONS].join(", "))
        }
        _ => format!("expected one of {}", names.join(", ")),
    }
}
