//! Constant expressions (ISA 7.8 section 4.5.4) as they appear in initializers, array sizes,
//! address offsets and immediate operands.
//!
//! C precedence, from loosest: `?:` (right-associative), `||`, `&&`, `|`, `^`, `&`, `==` `!=`,
//! `<` `>` `<=` `>=`, `<<` `>>`, `+` `-`, `*` `/` `%`, then the unary `+` `-` `~` `!` and the
//! casts `(.s64)` `(.u64)`. Subtrees made only of literals are folded as they are built, so `-1`
//! is the integer -1 and `(1 << 4) + 2` is 18; subtrees with symbols (`generic(arr) + 4`) stay
//! trees.
//!
//! Integers are folded as wide (`i128`) values with 64-bit casts; the spec's signed/unsigned
//! typing of literals (`U` suffixes, "usual arithmetic conversions") is not tracked, because the
//! lexer drops the suffix. Comparisons therefore compare mathematical values: `-1 < 1U` is 1.

use chumsky::prelude::*;

use super::error::Label;
use super::tokens::punct;
use super::{diagnostics, PtxParser};
use crate::diagnostic::{Code, Diagnostic};
use crate::span::{Span, Spanned};
use crate::syntax::ast::{BinaryOperator, Expression, UnaryOperator};
use crate::syntax::lexer::TokenKind;

/// Where an expression appears decides whether it may name symbols.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Symbols {
    /// Initializers: variable and function names stand for their addresses.
    Allowed,
    /// Operands, sizes and offsets: names are parsed elsewhere (registers, address bases).
    Forbidden,
}

pub(super) fn expression<'t, 's: 't>(symbols: Symbols) -> impl PtxParser<'t, 's, Spanned<Expression>> {
    recursive(move |expression| {
        let literal = select! {
            TokenKind::Integer(value) = extra => Spanned::new(Expression::Integer(value as i128), extra.span()),
            TokenKind::Float { bits, double } = extra => Spanned::new(Expression::Float { bits, double }, extra.span()),
        };
        let parenthesised = expression
            .clone()
            .delimited_by(punct(TokenKind::LeftParen), punct(TokenKind::RightParen))
            .map_with(|inner: Spanned<Expression>, extra| Spanned::new(inner.node, extra.span()));
        // `name`, `generic(name)`, `mask(...)` and other function-like forms.
        let arguments = expression
            .clone()
            .separated_by(punct(TokenKind::Comma))
            .collect::<Vec<_>>()
            .delimited_by(punct(TokenKind::LeftParen), punct(TokenKind::RightParen));
        let symbol = select! { TokenKind::Identifier(name) if symbols == Symbols::Allowed => name }
            .then(arguments.or_not())
            .map_with(|(name, arguments), extra| Spanned::new(symbol_expression(name, arguments), extra.span()));
        let primary = choice((literal, parenthesised, symbol)).labelled(Label::Expression);

        // `(.s64)` and `(.u64)` cast the operand that follows, like a unary operator.
        let cast = select! {
            TokenKind::DotName("s64") => Some(UnaryOperator::CastSigned),
            TokenKind::DotName("u64") => Some(UnaryOperator::CastUnsigned),
        }
        .delimited_by(punct(TokenKind::LeftParen), punct(TokenKind::RightParen))
        // A `(` here is already expected as the start of an expression; say it once.
        .labelled(Label::Hidden);
        let unary_operator = select! {
            TokenKind::Minus => Some(UnaryOperator::Negate),
            TokenKind::Tilde => Some(UnaryOperator::BitNot),
            TokenKind::Bang => Some(UnaryOperator::LogicalNot),
            TokenKind::Plus => None,
        }
        .or(cast)
        .map_with(|operator, extra| (operator, extra.span()));
        let unary =
            unary_operator.repeated().foldr(primary, |(operator, span): (Option<UnaryOperator>, Span), operand| {
                let span = span.to(operand.span);
                match operator {
                    Some(operator) => Spanned::new(fold_unary(operator, operand), span),
                    None => Spanned::new(operand.node, span),
                }
            });

        // All binary operators are read flat in one loop and arranged by precedence afterwards,
        // so a lone number costs one failed operator match instead of one per precedence level.
        // A failed `select!` adds no expectation, so "expected `+`, `-`, ..." does not crowd
        // every error that follows a number.
        let binary_operator = select! {
            TokenKind::Star => BinaryOperator::Multiply,
            TokenKind::Slash => BinaryOperator::Divide,
            TokenKind::Percent => BinaryOperator::Remainder,
            TokenKind::Plus => BinaryOperator::Add,
            TokenKind::Minus => BinaryOperator::Subtract,
            TokenKind::ShiftLeft => BinaryOperator::ShiftLeft,
            TokenKind::ShiftRight => BinaryOperator::ShiftRight,
            TokenKind::Ampersand => BinaryOperator::BitAnd,
            TokenKind::Caret => BinaryOperator::BitXor,
            TokenKind::Pipe => BinaryOperator::BitOr,
            TokenKind::Less => BinaryOperator::Less,
            TokenKind::Greater => BinaryOperator::Greater,
            TokenKind::LessEqual => BinaryOperator::LessEqual,
            TokenKind::GreaterEqual => BinaryOperator::GreaterEqual,
            TokenKind::EqualEqual => BinaryOperator::Equal,
            TokenKind::NotEqual => BinaryOperator::NotEqual,
            TokenKind::AndAnd => BinaryOperator::LogicalAnd,
            TokenKind::OrOr => BinaryOperator::LogicalOr,
        };
        let binary = unary
            .clone()
            .then(binary_operator.then(unary).repeated().collect::<Vec<_>>())
            .map_with(|(first, rest), extra| {
                if rest.len() > MAX_OPERATORS {
                    diagnostics(extra).push(
                        Diagnostic::error(Code::InvalidLiteral, "constant expression too long").with_primary(
                            first.span.to(rest[rest.len() - 1].1.span),
                            format!("more than {MAX_OPERATORS} operators"),
                        ),
                    );
                    return first;
                }
                arrange(first, rest)
            })
            .boxed();
        // `c ? a : b`, right-associative: the alternative is itself a whole expression.
        binary
            .then(
                punct(TokenKind::Question)
                    .ignore_then(expression.clone())
                    .then_ignore(punct(TokenKind::Colon))
                    .then(expression)
                    .or_not(),
            )
            .map(|(condition, branches)| match branches {
                None => condition,
                Some((if_true, if_false)) => {
                    let span = condition.span.to(if_false.span);
                    Spanned::new(fold_conditional(condition, if_true, if_false), span)
                }
            })
            .boxed()
    })
}

/// The most binary operators one expression may have; a longer one would make a tree too deep
/// to walk recursively.
const MAX_OPERATORS: usize = 1024;

/// Binding strength of each binary operator: higher binds tighter.
fn precedence(operator: BinaryOperator) -> u8 {
    match operator {
        BinaryOperator::Multiply | BinaryOperator::Divide | BinaryOperator::Remainder => 10,
        BinaryOperator::Add | BinaryOperator::Subtract => 9,
        BinaryOperator::ShiftLeft | BinaryOperator::ShiftRight => 8,
        BinaryOperator::Less | BinaryOperator::Greater | BinaryOperator::LessEqual | BinaryOperator::GreaterEqual => 7,
        BinaryOperator::Equal | BinaryOperator::NotEqual => 6,
        BinaryOperator::BitAnd => 5,
        BinaryOperator::BitXor => 4,
        BinaryOperator::BitOr => 3,
        BinaryOperator::LogicalAnd => 2,
        BinaryOperator::LogicalOr => 1,
    }
}

/// Builds the tree of `first (operator operand)*` with left-associative operators by
/// precedence (operator-precedence parsing with two stacks).
fn arrange(first: Spanned<Expression>, rest: Vec<(BinaryOperator, Spanned<Expression>)>) -> Spanned<Expression> {
    if rest.is_empty() {
        return first;
    }
    let mut operands = vec![first];
    let mut operators: Vec<BinaryOperator> = Vec::new();
    let reduce = |operands: &mut Vec<Spanned<Expression>>, operator: BinaryOperator| {
        if let (Some(right), Some(left)) = (operands.pop(), operands.pop()) {
            let span = left.span.to(right.span);
            operands.push(Spanned::new(fold_binary(operator, left, right), span));
        }
    };
    for (operator, operand) in rest {
        while let Some(&top) = operators.last() {
            if precedence(top) < precedence(operator) {
                break;
            }
            operators.pop();
            reduce(&mut operands, top);
        }
        operators.push(operator);
        operands.push(operand);
    }
    while let Some(operator) = operators.pop() {
        reduce(&mut operands, operator);
    }
    // Each reduction turns two operands into one, so exactly one is left.
    operands.pop().unwrap_or_else(|| Spanned::new(Expression::Integer(0), Span::default()))
}

fn symbol_expression(name: &str, arguments: Option<Vec<Spanned<Expression>>>) -> Expression {
    match arguments {
        None => Expression::Symbol(name.to_string()),
        Some(arguments) => {
            if let [Spanned { node: Expression::Symbol(symbol), .. }] = arguments.as_slice() {
                if name == "generic" {
                    return Expression::Generic(symbol.clone());
                }
            }
            Expression::Call { function: name.to_string(), arguments }
        }
    }
}

/// A constant value: what a folded expression reduces to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Value {
    Integer(i128),
    Float { bits: u64, double: bool },
}

impl Value {
    fn of(expression: &Expression) -> Option<Value> {
        match *expression {
            Expression::Integer(value) => Some(Value::Integer(value)),
            Expression::Float { bits, double } => Some(Value::Float { bits, double }),
            _ => None,
        }
    }

    fn into_expression(self) -> Expression {
        match self {
            Value::Integer(value) => Expression::Integer(value),
            Value::Float { bits, double } => Expression::Float { bits, double },
        }
    }

    fn as_f64(bits: u64, double: bool) -> f64 {
        if double {
            f64::from_bits(bits)
        } else {
            f64::from(f32::from_bits(bits as u32))
        }
    }
}

fn fold_unary(operator: UnaryOperator, operand: Spanned<Expression>) -> Expression {
    match Value::of(&operand.node).and_then(|value| apply_unary(operator, value).ok()) {
        Some(value) => value.into_expression(),
        None => Expression::Unary { operator, operand: Box::new(operand) },
    }
}

fn fold_binary(operator: BinaryOperator, left: Spanned<Expression>, right: Spanned<Expression>) -> Expression {
    let folded = match (Value::of(&left.node), Value::of(&right.node)) {
        (Some(left), Some(right)) => apply_binary(operator, left, right).ok(),
        _ => None,
    };
    match folded {
        Some(value) => value.into_expression(),
        None => Expression::Binary { operator, left: Box::new(left), right: Box::new(right) },
    }
}

fn fold_conditional(
    condition: Spanned<Expression>,
    if_true: Spanned<Expression>,
    if_false: Spanned<Expression>,
) -> Expression {
    match Value::of(&condition.node) {
        Some(Value::Integer(value)) if Value::of(&if_true.node).is_some() && Value::of(&if_false.node).is_some() => {
            if value != 0 {
                if_true.node
            } else {
                if_false.node
            }
        }
        _ => Expression::Conditional {
            condition: Box::new(condition),
            if_true: Box::new(if_true),
            if_false: Box::new(if_false),
        },
    }
}

/// `c ? a : b` on values: the condition must be an integer; the branches may be of any kind.
fn apply_conditional(condition: Value, if_true: Value, if_false: Value) -> Result<Value, &'static str> {
    match condition {
        Value::Integer(value) => Ok(if value != 0 { if_true } else { if_false }),
        Value::Float { .. } => Err("the condition of `?:` must be an integer"),
    }
}

fn apply_unary(operator: UnaryOperator, value: Value) -> Result<Value, &'static str> {
    Ok(match (operator, value) {
        (UnaryOperator::Negate, Value::Integer(value)) => Value::Integer(value.wrapping_neg()),
        (UnaryOperator::BitNot, Value::Integer(value)) => Value::Integer(!value),
        (UnaryOperator::LogicalNot, Value::Integer(value)) => Value::Integer(i128::from(value == 0)),
        (UnaryOperator::CastSigned, Value::Integer(value)) => Value::Integer(i128::from(value as i64)),
        (UnaryOperator::CastUnsigned, Value::Integer(value)) => Value::Integer(i128::from(value as u64)),
        // Negating a float flips its sign bit, whatever its width.
        (UnaryOperator::Negate, Value::Float { bits, double }) => {
            Value::Float { bits: bits ^ if double { 1 << 63 } else { 1 << 31 }, double }
        }
        (UnaryOperator::BitNot | UnaryOperator::LogicalNot, Value::Float { .. }) => {
            return Err("`~` and `!` apply to integers, not floats")
        }
        (UnaryOperator::CastSigned | UnaryOperator::CastUnsigned, Value::Float { .. }) => {
            return Err("`(.s64)` and `(.u64)` apply to integers, not floats")
        }
    })
}

fn apply_binary(operator: BinaryOperator, left: Value, right: Value) -> Result<Value, &'static str> {
    match (left, right) {
        (Value::Integer(left), Value::Integer(right)) => Ok(Value::Integer(match operator {
            BinaryOperator::Add => left.wrapping_add(right),
            BinaryOperator::Subtract => left.wrapping_sub(right),
            BinaryOperator::Multiply => left.wrapping_mul(right),
            BinaryOperator::Divide => left.checked_div(right).ok_or("division by zero in a constant expression")?,
            BinaryOperator::Remainder => left.checked_rem(right).ok_or("division by zero in a constant expression")?,
            BinaryOperator::ShiftLeft => match u32::try_from(right) {
                Ok(amount) if amount < 128 => left.wrapping_shl(amount),
                _ => 0,
            },
            BinaryOperator::ShiftRight => match u32::try_from(right) {
                Ok(amount) if amount < 128 => left >> amount,
                _ if left < 0 => -1,
                _ => 0,
            },
            BinaryOperator::BitAnd => left & right,
            BinaryOperator::BitOr => left | right,
            BinaryOperator::BitXor => left ^ right,
            BinaryOperator::Less => i128::from(left < right),
            BinaryOperator::Greater => i128::from(left > right),
            BinaryOperator::LessEqual => i128::from(left <= right),
            BinaryOperator::GreaterEqual => i128::from(left >= right),
            BinaryOperator::Equal => i128::from(left == right),
            BinaryOperator::NotEqual => i128::from(left != right),
            BinaryOperator::LogicalAnd => i128::from(left != 0 && right != 0),
            BinaryOperator::LogicalOr => i128::from(left != 0 || right != 0),
        })),
        (Value::Float { bits: left, double: left_double }, Value::Float { bits: right, double: right_double }) => {
            let (left, right) = (Value::as_f64(left, left_double), Value::as_f64(right, right_double));
            // Comparisons of floats give signed integers 0 or 1, as in C.
            let comparison = |result: bool| Ok(Value::Integer(i128::from(result)));
            let value = match operator {
                BinaryOperator::Add => left + right,
                BinaryOperator::Subtract => left - right,
                BinaryOperator::Multiply => left * right,
                BinaryOperator::Divide => left / right,
                BinaryOperator::Less => return comparison(left < right),
                BinaryOperator::Greater => return comparison(left > right),
                BinaryOperator::LessEqual => return comparison(left <= right),
                BinaryOperator::GreaterEqual => return comparison(left >= right),
                BinaryOperator::Equal => return comparison(left == right),
                BinaryOperator::NotEqual => return comparison(left != right),
                _ => return Err("this operator applies to integers, not floats"),
            };
            Ok(Value::Float { bits: value.to_bits(), double: true })
        }
        _ => Err("a constant expression cannot mix integers and floats"),
    }
}

/// Reduces an expression without symbols to its value, or says why it cannot.
pub(super) fn evaluate(expression: &Expression) -> Result<Value, &'static str> {
    match expression {
        Expression::Integer(value) => Ok(Value::Integer(*value)),
        Expression::Float { bits, double } => Ok(Value::Float { bits: *bits, double: *double }),
        Expression::Unary { operator, operand } => apply_unary(*operator, evaluate(&operand.node)?),
        Expression::Binary { operator, left, right } => {
            apply_binary(*operator, evaluate(&left.node)?, evaluate(&right.node)?)
        }
        Expression::Conditional { condition, if_true, if_false } => {
            apply_conditional(evaluate(&condition.node)?, evaluate(&if_true.node)?, evaluate(&if_false.node)?)
        }
        Expression::Symbol(_) | Expression::Generic(_) | Expression::Call { .. } => {
            Err("a name cannot appear in this constant expression")
        }
    }
}
