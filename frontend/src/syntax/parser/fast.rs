//! A fast path for the statements that make up almost all of real PTX: labels, instructions
//! whose operands are plain names, literals, simple addresses and vectors, register and memory
//! declarations without initializers, and `.loc`; and a loop over a whole block of them.
//!
//! `block` is a hand-written chumsky `custom` parser tried before the combinator parser of a
//! block. It reads statements with the plain functions below (no combinator runs for them), hands
//! a statement they do not cover to the combinator parser of one statement, and gives up on the
//! whole block (consuming nothing, adding no expectation to error messages) at the first
//! statement that does not parse, so that the combinator parser, with its recovery, reads the
//! block again from its `{`. The functions build exactly the tree the combinator parser would and
//! give up on anything else: constant expressions, call lists, `var+imm`, initializers, syntax
//! errors. Behaviour and error messages are therefore the same with or without the fast path; a
//! unit test checks that over the whole corpus and over broken copies of it.

use chumsky::input::InputRef;
use chumsky::prelude::*;

use super::{Extra, ParserError, ParserInput, PtxParser};
use crate::span::{Span, Spanned};
use crate::syntax::ast::{
    Block, DeclaredName, Guard, Instruction, Operand, OperandKind, Statement, VariableDeclaration, Word,
};
use crate::syntax::lexer::TokenKind;
use crate::vocabulary::{ScalarType, StateSpace};

type Input<'t, 'p, 's> = InputRef<'t, 'p, ParserInput<'t, 's>, Extra<'t, 's>>;

/// The fast path gives up with this: an error that expects nothing, so that it adds nothing
/// to the combinator parser's errors at the same place.
fn give_up<'s>(input: &mut Input<'_, '_, 's>) -> ParserError<'s> {
    let here = input.save();
    let found = input.peek();
    let span = take(input);
    input.rewind(here);
    ParserError::expecting_nothing(found, span)
}

/// Consumes the next token and returns its span.
#[inline]
fn take(input: &mut Input<'_, '_, '_>) -> Span {
    let before = input.cursor();
    input.skip();
    input.span_since(&before)
}

/// Consumes the next token if it is `kind`.
#[inline]
fn eat(input: &mut Input<'_, '_, '_>, kind: TokenKind<'_>) -> Option<Span> {
    if input.peek() == Some(kind) {
        Some(take(input))
    } else {
        None
    }
}

fn identifier<'s>(input: &mut Input<'_, '_, 's>) -> Option<Spanned<Word>> {
    match input.peek() {
        Some(TokenKind::Identifier(name)) => Some(Spanned::new(Word::new(name), take(input))),
        _ => None,
    }
}

/// True for tokens that would continue a constant expression after a literal.
fn continues_expression(kind: Option<TokenKind<'_>>) -> bool {
    matches!(
        kind,
        Some(
            TokenKind::Plus
                | TokenKind::Minus
                | TokenKind::Star
                | TokenKind::Slash
                | TokenKind::Percent
                | TokenKind::ShiftLeft
                | TokenKind::ShiftRight
                | TokenKind::Ampersand
                | TokenKind::Caret
                | TokenKind::Pipe
                | TokenKind::Less
                | TokenKind::Greater
                | TokenKind::LessEqual
                | TokenKind::GreaterEqual
                | TokenKind::EqualEqual
                | TokenKind::NotEqual
                | TokenKind::AndAnd
                | TokenKind::OrOr
                | TokenKind::Question
        )
    )
}

/// `%r1`, `%tid.x`.
fn name(input: &mut Input<'_, '_, '_>) -> Option<Operand> {
    let name = identifier(input)?;
    let mut span = name.span;
    let member = match input.peek() {
        Some(TokenKind::DotName(member)) => {
            span = span.to(take(input));
            Some(Word::new(member))
        }
        _ => None,
    };
    Some(Operand { kind: OperandKind::Name { name: name.node, member }, span })
}

/// `5`, `-5`, `0f3F800000`, `-1.5`, not followed by more of an expression.
fn literal(input: &mut Input<'_, '_, '_>) -> Option<Operand> {
    let minus = eat(input, TokenKind::Minus);
    let (kind, span) = match input.peek() {
        Some(TokenKind::Integer(value)) => {
            let value = value as i128;
            (OperandKind::Integer(if minus.is_some() { value.wrapping_neg() } else { value }), take(input))
        }
        Some(TokenKind::Float { bits, double }) => {
            let sign = if double { 1 << 63 } else { 1 << 31 };
            (OperandKind::Float { bits: if minus.is_some() { bits ^ sign } else { bits }, double }, take(input))
        }
        _ => return None,
    };
    if continues_expression(input.peek()) {
        return None;
    }
    let span = minus.map_or(span, |minus| minus.to(span));
    Some(Operand { kind, span })
}

/// An element of a vector: a name, a literal or the sink.
fn element(input: &mut Input<'_, '_, '_>) -> Option<Operand> {
    match input.peek()? {
        TokenKind::Identifier(_) => name(input),
        TokenKind::Underscore => Some(Operand { kind: OperandKind::Sink, span: take(input) }),
        _ => literal(input),
    }
}

/// `[%rd1]`, `[%rd1+4]`, `[%rd1+-4]`, `[%rd1-4]`, `[4]`.
fn address(input: &mut Input<'_, '_, '_>) -> Option<Operand> {
    let open = take(input);
    let base = match input.peek()? {
        TokenKind::Identifier(_) => Some(identifier(input)?),
        _ => None,
    };
    let offset: i128 = match (&base, input.peek()?) {
        (Some(_), TokenKind::RightBracket) => 0,
        (Some(_), TokenKind::Plus) => {
            take(input);
            match literal(input)?.kind {
                OperandKind::Integer(value) => value,
                _ => return None,
            }
        }
        (Some(_), TokenKind::Minus) => {
            take(input);
            match input.peek()? {
                TokenKind::Integer(value) => {
                    take(input);
                    -(value as i128)
                }
                _ => return None,
            }
        }
        (None, _) => match literal(input)?.kind {
            OperandKind::Integer(value) => value,
            _ => return None,
        },
        _ => return None,
    };
    let close = eat(input, TokenKind::RightBracket)?;
    // Offsets that need the combinator path's range handling go there.
    let offset = i64::try_from(offset).ok()?;
    Some(Operand { kind: OperandKind::Address { base, offset }, span: open.to(close) })
}

/// `{%r1, %r2, _}`.
fn vector(input: &mut Input<'_, '_, '_>) -> Option<Operand> {
    let open = take(input);
    let mut elements = Vec::with_capacity(4);
    loop {
        elements.push(element(input)?);
        match input.peek()? {
            TokenKind::Comma => {
                take(input);
            }
            TokenKind::RightBrace => break,
            _ => return None,
        }
    }
    let close = take(input);
    Some(Operand { kind: OperandKind::Vector(elements), span: open.to(close) })
}

/// `|%q` or `|_` after the first half of a predicate pair.
fn predicate_pair(input: &mut Input<'_, '_, '_>, first: Operand) -> Option<Operand> {
    take(input);
    let second = match input.peek()? {
        TokenKind::Identifier(_) => name(input)?,
        TokenKind::Underscore => Operand { kind: OperandKind::Sink, span: take(input) },
        _ => return None,
    };
    let span = first.span.to(second.span);
    Some(Operand { kind: OperandKind::PredicatePair(Box::new(first), Box::new(second)), span })
}

fn operand(input: &mut Input<'_, '_, '_>) -> Option<Operand> {
    match input.peek()? {
        TokenKind::Identifier(_) => {
            let first = name(input)?;
            match input.peek()? {
                TokenKind::Pipe => predicate_pair(input, first),
                // `var+imm` goes through the combinator path.
                TokenKind::Plus | TokenKind::Minus => None,
                _ => Some(first),
            }
        }
        TokenKind::LeftBracket => address(input),
        TokenKind::LeftBrace => vector(input),
        TokenKind::Underscore => {
            let sink = Operand { kind: OperandKind::Sink, span: take(input) };
            match input.peek()? {
                TokenKind::Pipe => predicate_pair(input, sink),
                _ => Some(sink),
            }
        }
        TokenKind::Bang => {
            let bang = take(input);
            if !matches!(input.peek()?, TokenKind::Identifier(_)) {
                return None;
            }
            let negated = name(input)?;
            let span = bang.to(negated.span);
            Some(Operand { kind: OperandKind::Not(Box::new(negated)), span })
        }
        _ => literal(input),
    }
}

/// How many `.modifier` tokens come next. The tree holds millions of these small vectors, so
/// each is allocated once at its exact size rather than grown (which also left it twice as
/// large as needed half of the time).
fn count_modifiers(input: &mut Input<'_, '_, '_>) -> usize {
    let here = input.save();
    let mut count = 0;
    while let Some(TokenKind::DotName(_)) = input.peek() {
        input.skip();
        count += 1;
    }
    input.rewind(here);
    count
}

/// How many operands come before the `;`: one more than the commas outside braces, 0 when the
/// `;` comes at once. A guess only (it stops early at anything odd), used for the capacity.
fn count_operands(input: &mut Input<'_, '_, '_>) -> usize {
    let here = input.save();
    let (mut commas, mut depth, mut any) = (0, 0usize, false);
    while let Some(kind) = input.peek() {
        match kind {
            TokenKind::Semicolon if depth == 0 => break,
            TokenKind::LeftBrace | TokenKind::LeftBracket | TokenKind::LeftParen => depth += 1,
            TokenKind::RightBrace | TokenKind::RightBracket | TokenKind::RightParen => {
                let Some(outer) = depth.checked_sub(1) else { break };
                depth = outer;
            }
            TokenKind::Comma if depth == 0 => commas += 1,
            TokenKind::Semicolon => break,
            _ => {}
        }
        any = true;
        input.skip();
    }
    input.rewind(here);
    if any {
        commas + 1
    } else {
        0
    }
}

/// `u32` of an integer token; `None` (so the combinator path reports it) when it is too large.
fn integer_u32(input: &mut Input<'_, '_, '_>) -> Option<(u32, Span)> {
    match input.peek()? {
        TokenKind::Integer(value) => {
            let value = u32::try_from(value).ok()?;
            Some((value, take(input)))
        }
        _ => None,
    }
}

/// `.reg .b32 %r<12>, %x;`, `.shared .align 4 .b8 buffer[256];`: a declaration in a plain state
/// space with a scalar type, names with an optional register range and integer array
/// dimensions, and no initializer.
fn declaration(input: &mut Input<'_, '_, '_>, space: &str) -> Option<Statement> {
    let state_space = match StateSpace::from_ptx(space)? {
        // `.tex` declarations (and `.sreg`, which is no declaration) are the combinator path's.
        StateSpace::Tex | StateSpace::SpecialReg => return None,
        state_space => state_space,
    };
    let state_space = Spanned::new(state_space, take(input));
    let (mut align, mut vector) = (None, None);
    let ty = loop {
        let TokenKind::DotName(attribute) = input.peek()? else { return None };
        match attribute {
            "align" => {
                take(input);
                align = Some(integer_u32(input)?.0);
            }
            "v2" | "v3" | "v4" | "v8" => {
                take(input);
                vector = Some(u32::from(attribute.as_bytes()[1] - b'0'));
            }
            _ => break Spanned::new(ScalarType::from_ptx(attribute)?, take(input)),
        }
    };
    let mut names = Vec::with_capacity(1);
    let end = loop {
        let name = match input.peek()? {
            TokenKind::Identifier(name) => Spanned::new(name.to_string(), take(input)),
            _ => return None,
        };
        let mut span = name.span;
        let range = match eat(input, TokenKind::Less) {
            Some(_) => {
                let (count, _) = integer_u32(input)?;
                span = span.to(eat(input, TokenKind::Greater)?);
                Some(count)
            }
            None => None,
        };
        let mut array_dimensions = Vec::new();
        while eat(input, TokenKind::LeftBracket).is_some() {
            let size = match input.peek()? {
                TokenKind::RightBracket => None,
                _ => Some(integer_u32(input)?.0),
            };
            array_dimensions.push(size);
            span = span.to(eat(input, TokenKind::RightBracket)?);
        }
        names.push(DeclaredName { name, range, array_dimensions, initializer: None, span });
        match input.peek()? {
            TokenKind::Comma => {
                take(input);
            }
            TokenKind::Semicolon => break take(input),
            _ => return None,
        }
    };
    let span = state_space.span.to(end);
    Some(Statement::Declaration(VariableDeclaration { linkage: None, state_space, align, vector, ty, names, span }))
}

/// `.loc 1 12 5` (the column may be left out), without the `function_name`/`inlined_at` tails.
fn location(input: &mut Input<'_, '_, '_>) -> Option<Statement> {
    let start = take(input);
    let number = |input: &mut Input<'_, '_, '_>| match input.peek()? {
        TokenKind::Integer(value) => Some((u32::try_from(value).unwrap_or(u32::MAX), take(input))),
        _ => None,
    };
    let (file, _) = number(input)?;
    let (line, mut end) = number(input)?;
    let column = match number(input) {
        Some((column, column_span)) => {
            end = column_span;
            column
        }
        None => 0,
    };
    if input.peek() == Some(TokenKind::Comma) {
        return None;
    }
    Some(Statement::Location { file, line, column, span: start.to(end) })
}

fn statement(input: &mut Input<'_, '_, '_>) -> Option<Statement> {
    match input.peek()? {
        TokenKind::DotName("loc") => return location(input),
        TokenKind::DotName(space) => return declaration(input, space),
        _ => {}
    }
    let mut guard = None;
    if let Some(at) = eat(input, TokenKind::At) {
        let negated = eat(input, TokenKind::Bang).is_some();
        let predicate = identifier(input)?;
        let span = at.to(predicate.span);
        guard = Some(Box::new(Guard { negated, predicate, span }));
    }
    let opcode = identifier(input)?;
    if guard.is_none() {
        if let Some(colon) = eat(input, TokenKind::Colon) {
            let _ = colon;
            return Some(Statement::Label(opcode));
        }
    }
    let mut modifiers = Vec::with_capacity(count_modifiers(input));
    while let Some(TokenKind::DotName(modifier)) = input.peek() {
        let span = take(input);
        modifiers.push(Spanned::new(Word::new(modifier), span));
    }
    let mut operands = Vec::with_capacity(count_operands(input));
    let end = match eat(input, TokenKind::Semicolon) {
        Some(end) => end,
        None => loop {
            operands.push(operand(input)?);
            match input.peek()? {
                TokenKind::Comma => {
                    take(input);
                }
                TokenKind::Semicolon => break take(input),
                _ => return None,
            }
        },
    };
    let start = guard.as_ref().map_or(opcode.span, |guard| guard.span);
    let span = start.to(end);
    Some(Statement::Instruction(Instruction { guard, opcode, modifiers, operands, span }))
}

#[cfg(test)]
thread_local! {
    /// Lets the tests turn the fast path off, to compare its trees with the combinator parser's.
    pub(super) static ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// The statements of a block up to its `}` (nested blocks included), or `None` when one of them
/// does not parse. `slow_statement` is the combinator parser of one statement, for those the
/// functions above do not cover. `reached` is the token index of the last statement begun: after
/// a failure, where it failed.
fn block<'t, 's: 't>(
    input: &mut Input<'t, '_, 's>,
    slow_statement: &impl PtxParser<'t, 's, Option<Statement>>,
    reached: &mut usize,
) -> Option<Block> {
    let open = eat(input, TokenKind::LeftBrace)?;
    let mut statements = Vec::new();
    loop {
        *reached = *input.cursor().inner();
        match input.peek()? {
            TokenKind::RightBrace => break,
            TokenKind::LeftBrace => {
                statements.push(Statement::Block(block(input, slow_statement, reached)?));
                continue;
            }
            _ => {}
        }
        let before = input.save();
        if let Some(statement) = statement(input) {
            statements.push(statement);
            continue;
        }
        input.rewind(before);
        statements.extend(input.parse(slow_statement).ok()?);
    }
    let close = take(input);
    // The combinator parser's list grows by doubling and is then shrunk; this is the same list.
    statements.shrink_to_fit();
    Some(Block { statements, span: open.to(close) })
}

/// The block loop as a parser: the block, or a failure that consumes nothing, after which the
/// combinator parser reads the block.
///
/// After a failure, the loop is not tried again on blocks that start before the token where it
/// failed: those are the blocks nested in the failed one, which the combinator parser now reads
/// one level at a time, and trying the loop at each level would read the rest of the failed
/// block again at each (quadratic time on unclosed blocks). Valid PTX never fails here.
pub(super) fn fast_block<'t, 's: 't>(
    slow_statement: impl PtxParser<'t, 's, Option<Statement>>,
) -> impl PtxParser<'t, 's, Block> {
    let failed_at = std::rc::Rc::new(std::cell::Cell::new(0usize));
    custom(move |input: &mut Input<'t, '_, 's>| {
        #[cfg(test)]
        if !ENABLED.with(std::cell::Cell::get) {
            return Err(give_up(input));
        }
        let before = input.save();
        if *before.cursor().inner() < failed_at.get() {
            return Err(give_up(input));
        }
        let mut reached = 0;
        match block(input, &slow_statement, &mut reached) {
            Some(block) => Ok(block),
            None => {
                failed_at.set(failed_at.get().max(reached));
                input.rewind(before);
                Err(give_up(input))
            }
        }
    })
}

/// The fast path as a parser: the statement, or a failure that consumes nothing.
pub(super) fn fast_statement<'t, 's: 't>() -> impl PtxParser<'t, 's, Option<Statement>> {
    custom(|input: &mut Input<'t, '_, 's>| {
        #[cfg(test)]
        if !ENABLED.with(std::cell::Cell::get) {
            return Err(give_up(input));
        }
        let before = input.save();
        match statement(input) {
            Some(statement) => Ok(Some(statement)),
            None => {
                input.rewind(before);
                Err(give_up(input))
            }
        }
    })
}
