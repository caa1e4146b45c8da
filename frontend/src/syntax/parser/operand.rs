//! Instruction operands (ISA 7.8 chapter 6): names with an optional member, immediates and
//! constant expressions, addresses, vectors, call lists, negated predicates, predicate pairs
//! and the sink `_`.

use chumsky::prelude::*;

use super::error::Label;
use super::expression::{evaluate, expression, Symbols, Value};
use super::tokens::punct;
use super::{diagnostics, PtxParser};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::{Span, Spanned};
use crate::syntax::ast::{Expression, Operand, OperandKind, UnaryOperator, WideInteger, Word};
use crate::syntax::lexer::TokenKind;

/// A constant expression parser, built once per grammar and shared.
type Expr<'t, 's> = chumsky::Boxed<'t, 't, super::ParserInput<'t, 's>, Spanned<Expression>, super::Extra<'t, 's>>;

/// `%r1`, `%tid.x`, `$L__BB0_2`, `WARP_SZ`.
fn name<'t, 's: 't>() -> impl PtxParser<'t, 's, Operand> {
    // A failed `select!` adds no expectation, so members and the like stay out of messages.
    let member = select! { TokenKind::DotName(member) => member };
    select! { TokenKind::Identifier(name) => name }.then(member.or_not()).map_with(|(name, member), extra| Operand {
        kind: OperandKind::Name { name: Word::new(name), member: member.map(Word::new) },
        span: extra.span(),
    })
}

/// An immediate: a literal or a constant expression of literals, reduced to its value.
fn constant<'t, 's: 't>(expression: Expr<'t, 's>) -> impl PtxParser<'t, 's, Operand> {
    expression.map_with(|expression, extra| {
        let kind = match evaluate(&expression.node) {
            Ok(Value::Integer(value)) => OperandKind::Integer(WideInteger::new(value)),
            Ok(Value::Float { bits, double }) => OperandKind::Float { bits, double },
            Err(reason) => {
                diagnostics(extra).push(invalid_constant(expression.span, reason));
                OperandKind::Integer(WideInteger::new(0))
            }
        };
        Operand { kind, span: expression.span }
    })
}

fn invalid_constant(span: Span, reason: &str) -> Diagnostic {
    Diagnostic::error(Code::InvalidLiteral, "invalid constant expression").with_primary(span, reason)
}

fn sink<'t, 's: 't>() -> impl PtxParser<'t, 's, Operand> {
    punct(TokenKind::Underscore).map_with(|_, extra| Operand { kind: OperandKind::Sink, span: extra.span() })
}

/// What may stand inside `{...}` and `(...)`: a name, an immediate or the sink.
fn element<'t, 's: 't>(expression: Expr<'t, 's>) -> impl PtxParser<'t, 's, Operand> {
    choice((name(), constant(expression), sink())).labelled(Label::Operand)
}

/// `{%r1, %r2, _, %r4}`.
fn vector<'t, 's: 't>(element: impl PtxParser<'t, 's, Operand>) -> impl PtxParser<'t, 's, Operand> {
    element
        .separated_by(punct(TokenKind::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(punct(TokenKind::LeftBrace), punct(TokenKind::RightBrace))
        .map_with(|elements, extra| Operand { kind: OperandKind::Vector(elements), span: extra.span() })
}

/// `(%r1, %r2)`: the argument and return lists of `call`. Only taken when a `,`, `;` or `)`
/// follows, so that a parenthesised constant expression like `(1 << 4) + 2` stays one.
fn list<'t, 's: 't>(element: impl PtxParser<'t, 's, Operand>) -> impl PtxParser<'t, 's, Operand> {
    element
        .separated_by(punct(TokenKind::Comma))
        .collect::<Vec<_>>()
        .delimited_by(punct(TokenKind::LeftParen), punct(TokenKind::RightParen))
        .map_with(|elements, extra| Operand { kind: OperandKind::List(elements), span: extra.span() })
        .then_ignore(
            select! { TokenKind::Comma => (), TokenKind::Semicolon => (), TokenKind::RightParen => () }.rewind(),
        )
}

/// The first item inside `[...]`: a base name with an optional offset, or an offset alone.
enum AddressStart {
    Base { base: Spanned<String>, member: Option<String>, offset: Option<Spanned<Expression>>, span: Span },
    Offset(Spanned<Expression>),
}

/// `[%rd1]`, `[%rd1+4]`, `[%rd1+-4]`, `[%rd1-4]`, `[buffer]`, `[0x100]`; and `[tex, {x, y}]`
/// and other lists, which become `Bracketed`.
fn address<'t, 's: 't>(
    expression: Expr<'t, 's>,
    element: impl PtxParser<'t, 's, Operand>,
    vector: impl PtxParser<'t, 's, Operand>,
) -> impl PtxParser<'t, 's, Operand> {
    let offset_sign = select! { TokenKind::Plus => false, TokenKind::Minus => true };
    let base = select! { TokenKind::Identifier(name) = extra => Spanned::new(name.to_string(), extra.span()) }
        .then(select! { TokenKind::DotName(member) => member.to_string() }.or_not())
        .then(offset_sign.then(expression.clone()).or_not())
        .map_with(|((base, member), offset), extra| {
            let offset = offset.map(|(negative, offset)| signed_offset(negative, offset));
            AddressStart::Base { base, member, offset, span: extra.span() }
        });
    let start = choice((base, expression.map(AddressStart::Offset))).labelled(Label::Address);
    let item = choice((element, vector));
    start
        .then(punct(TokenKind::Comma).ignore_then(item).repeated().collect::<Vec<_>>())
        .delimited_by(punct(TokenKind::LeftBracket), punct(TokenKind::RightBracket))
        .map_with(|(start, rest), extra| {
            let span = extra.span();
            if rest.is_empty() {
                let (base, offset) = match start {
                    AddressStart::Base { base, offset, .. } => (Some(to_word(base)), offset),
                    AddressStart::Offset(offset) => (None, Some(offset)),
                };
                let offset = match offset {
                    None => 0,
                    Some(offset) => address_offset(&offset, diagnostics(extra)),
                };
                return Operand { kind: OperandKind::Address { base, offset }, span };
            }
            let first = match start {
                AddressStart::Base { base, member, offset: None, span } => Operand {
                    kind: OperandKind::Name { name: Word::from(base.node), member: member.map(Word::from) },
                    span,
                },
                AddressStart::Base { base, offset: Some(offset), span, .. } => Operand {
                    kind: OperandKind::Address {
                        base: Some(to_word(base)),
                        offset: address_offset(&offset, diagnostics(extra)),
                    },
                    span,
                },
                AddressStart::Offset(offset) => {
                    let span = offset.span;
                    let kind = match evaluate(&offset.node) {
                        Ok(Value::Integer(value)) => OperandKind::Integer(WideInteger::new(value)),
                        Ok(Value::Float { bits, double }) => OperandKind::Float { bits, double },
                        Err(reason) => {
                            diagnostics(extra).push(invalid_constant(span, reason));
                            OperandKind::Integer(WideInteger::new(0))
                        }
                    };
                    Operand { kind, span }
                }
            };
            let mut items = Vec::with_capacity(rest.len() + 1);
            items.push(first);
            items.extend(rest);
            Operand { kind: OperandKind::Bracketed(items), span }
        })
}

/// The offset after `+` or `-`.
fn signed_offset(negative: bool, offset: Spanned<Expression>) -> Spanned<Expression> {
    if !negative {
        return offset;
    }
    let span = offset.span;
    Spanned::new(Expression::Unary { operator: UnaryOperator::Negate, operand: Box::new(offset) }, span)
}

/// An address offset must be an integer that fits in 64 bits (as signed or unsigned).
fn address_offset(offset: &Spanned<Expression>, diagnostics: &mut Vec<Diagnostic>) -> i64 {
    match evaluate(&offset.node) {
        Ok(Value::Integer(value)) => match i64::try_from(value) {
            Ok(value) => value,
            Err(_) => match u64::try_from(value) {
                Ok(value) => value as i64,
                Err(_) => {
                    diagnostics.push(invalid_constant(offset.span, "this offset does not fit in 64 bits"));
                    0
                }
            },
        },
        Ok(Value::Float { .. }) => {
            diagnostics.push(invalid_constant(offset.span, "an address offset must be an integer"));
            0
        }
        Err(reason) => {
            diagnostics.push(invalid_constant(offset.span, reason));
            0
        }
    }
}

/// Any operand of an instruction.
pub(super) fn operand<'t, 's: 't>() -> impl PtxParser<'t, 's, Operand> {
    // Built once and shared (cloning a built parser is cheap).
    let expression = expression(Symbols::Forbidden).boxed();
    let element = element(expression.clone()).boxed();
    let vector = vector(element.clone()).boxed();
    enum Tail {
        Pair(Operand),
        Offset(bool, Spanned<Expression>),
    }
    // Either half of a predicate pair may be the sink: `%p|_`, `_|%p`.
    let second_predicate =
        select! { TokenKind::Pipe => () }.ignore_then(choice((name(), sink())).labelled(Label::Predicate));
    let pair = second_predicate.clone().map(Tail::Pair);
    let offset = select! { TokenKind::Plus => false, TokenKind::Minus => true }
        .then(expression.clone())
        .map(|(negative, offset)| Tail::Offset(negative, offset));
    // `%p`, the predicate pair `%p|%q` of `setp`, and `var+imm` (`mov.u64 %rd1, table+8;`,
    // `cvta.shared.u64 %rd1, buffer+16;`), which is an address without brackets.
    let name_or_pair = name().then(choice((pair, offset)).or_not()).map_with(|(first, tail), extra| match tail {
        None => first,
        Some(Tail::Pair(second)) => {
            Operand { kind: OperandKind::PredicatePair(Box::new(first), Box::new(second)), span: extra.span() }
        }
        Some(Tail::Offset(negative, offset)) => {
            let base = match first.kind {
                OperandKind::Name { name, .. } => Spanned::new(name, first.span),
                _ => Spanned::new(Word::new(""), first.span),
            };
            let offset = signed_offset(negative, offset);
            let offset = address_offset(&offset, diagnostics(extra));
            Operand { kind: OperandKind::Address { base: Some(base), offset }, span: extra.span() }
        }
    });
    let negated = punct(TokenKind::Bang)
        .ignore_then(name())
        .map_with(|operand, extra| Operand { kind: OperandKind::Not(Box::new(operand)), span: extra.span() });
    // `-%r1`: the negated sources `{-}a`, `{-}b`, `{-}c` of `vmad` (ISA 7.8 section 9.7.16.3).
    // After the constants, so that `-5` stays a number.
    let negative = punct(TokenKind::Minus)
        .ignore_then(name())
        .map_with(|operand, extra| Operand { kind: OperandKind::Negate(Box::new(operand)), span: extra.span() });
    // `{r1, r2, r3, r4}|p`: `tex` and `tld4` results with the predicate that says whether the
    // texels were resident.
    let vector_or_pair =
        vector.clone().then(second_predicate.clone().or_not()).map_with(|(first, second), extra| match second {
            None => first,
            Some(second) => {
                Operand { kind: OperandKind::PredicatePair(Box::new(first), Box::new(second)), span: extra.span() }
            }
        });
    choice((
        name_or_pair,
        address(expression.clone(), element.clone(), vector.clone()),
        list(element),
        constant(expression),
        vector_or_pair,
        negated,
        negative,
        sink().then(second_predicate.or_not()).map_with(|(sink, second), extra| match second {
            None => sink,
            Some(second) => {
                Operand { kind: OperandKind::PredicatePair(Box::new(sink), Box::new(second)), span: extra.span() }
            }
        }),
    ))
    .labelled(Label::Operand)
    .boxed()
}

fn to_word(name: Spanned<String>) -> Spanned<Word> {
    Spanned::new(Word::from(name.node), name.span)
}
