//! chumsky's syntax errors as diagnostics: "unexpected `]`" at the offending token, labelled
//! with what was expected there, in PTX spelling.

use chumsky::error::{RichPattern, RichReason};

use super::ParserError;
use crate::diagnostic::{Code, Diagnostic};
use crate::span::Span;
use crate::syntax::lexer::TokenKind;

/// How many expectations a label lists before it gives up and says "...".
const MOST_EXPECTATIONS: usize = 6;

/// Converts one chumsky error. `end_of_input` is the last token's span, where errors found at
/// the end of the input point.
pub(super) fn to_diagnostic(error: ParserError<'_, '_>, end_of_input: Span) -> Diagnostic {
    let span = *error.span();
    let context = error.contexts().next().and_then(|(pattern, _)| match pattern {
        RichPattern::Label(label) if !label.is_empty() => Some(label.to_string()),
        _ => None,
    });
    match error.into_reason() {
        RichReason::ExpectedFound { expected, found } => {
            let (message, span) = match found.as_deref() {
                Some(token) => (format!("unexpected {}", describe(token)), span),
                None => ("unexpected end of input".to_string(), end_of_input),
            };
            let message = match context {
                Some(context) => format!("{message} in {context}"),
                None => message,
            };
            Diagnostic::error(Code::SyntaxError, message).with_primary(span, expectation_label(&expected))
        }
        RichReason::Custom(message) => Diagnostic::error(Code::SyntaxError, message.clone()).with_primary(span, message),
    }
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

/// "expected `;`", "expected `,` or `;`", "expected one of `,`, `;`, operand".
fn expectation_label(expected: &[RichPattern<'_, TokenKind<'_>>]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        .filter_map(|pattern| match pattern {
            RichPattern::Token(token) => Some(format!("`{}`", &**token)),
            // Empty labels mark expectations that only add noise (binary operators, members).
            RichPattern::Label(label) if label.is_empty() => None,
            RichPattern::Label(label) => Some(label.to_string()),
            RichPattern::Identifier(identifier) => Some(format!("`{identifier}`")),
            RichPattern::EndOfInput => Some("end of input".to_string()),
            RichPattern::Any => Some("any token".to_string()),
            _ => None,
        })
        .collect();
    names.sort();
    names.dedup();
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
