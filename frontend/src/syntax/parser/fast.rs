//! A fast path for the statements that make up almost all of real PTX: labels, instructions
//! whose operands are plain names, literals, simple addresses, vectors and call lists, register
//! and memory declarations without initializers, `.loc` and `.pragma`; and a loop over a whole
//! block of them.
//!
//! `block` is a hand-written chumsky `custom` parser tried before the combinator parser of a
//! block. It reads statements with the plain functions below (no combinator runs for them), hands
//! a statement they do not cover to the combinator parser of one statement, and gives up on the
//! whole block (consuming nothing, adding no expectation to error messages) at the first
//! statement that does not parse, so that the combinator parser, with its recovery, reads the
//! block again from its `{`. The functions build exactly the tree the combinator parser would and
//! give up on anything else: constant expressions, `var+imm`, initializers, syntax errors. Behaviour and error messages are therefore the same with or without the fast path; a
//! unit test checks that over the whole corpus and over broken copies of it.

use chumsky::input::InputRef;
use chumsky::prelude::*;

use super::{Extra, ParserError, ParserInput, PtxParser};
use crate::span::{Span, Spanned};

use super::tokens::unescape;
use crate::syntax::ast::{
    Block, DeclaredName, Guard, Instruction, Operand, OperandKind, SharedSlice, Statement, VariableDeclaration,
    WideInteger, Word,
};
use crate::syntax::lexer::TokenKind;
use crate::syntax::shared_slice::take_tail;
use crate::syntax::tokens::{Tag, Tokens};
use crate::vocabulary::{ScalarType, StateSpace};

pub(super) type Input<'t, 'p, 's> = InputRef<'t, 'p, ParserInput<'t, 's>, Extra<'t, 's>>;

/// The fast path gives up with this: an error that expects nothing, so that it adds nothing
/// to the combinator parser's errors at the same place.
pub(super) fn give_up<'s>(input: &mut Input<'_, '_, 's>) -> ParserError<'s> {
    let here = input.save();
    let found = input.peek();
    let before = input.cursor();
    input.skip();
    let span = input.span_since(&before);
    input.rewind(here);
    ParserError::expecting_nothing(found, span)
}

/// A cursor over the packed tokens. The fast path reads them through this rather than through
/// chumsky's `InputRef`, which decodes a token (its text sliced out of the source, with
/// character-boundary checks) each time it is peeked, two or three times per token here; this
/// compares tags and slices a token's text only where the tree keeps it.
pub(super) struct Reader<'t, 's> {
    pub(super) tokens: &'t Tokens<'s>,
    pub(super) at: usize,
}

impl<'s> Reader<'_, 's> {
    #[inline]
    pub(super) fn tag(&self) -> Option<Tag> {
        self.tokens.tag(self.at)
    }

    /// Consumes the current token and returns its span.
    #[inline]
    pub(super) fn take(&mut self) -> Span {
        let span = self.tokens.span(self.at).unwrap_or_default();
        self.at += 1;
        span
    }

    /// Consumes the current token if it is `tag`.
    #[inline]
    pub(super) fn eat(&mut self, tag: Tag) -> Option<Span> {
        if self.tag() == Some(tag) {
            Some(self.take())
        } else {
            None
        }
    }

    /// The text of the current identifier or dot name (without its dot).
    #[inline]
    pub(super) fn text(&self) -> &'s str {
        self.tokens.text(self.at)
    }

    /// The value of the current number.
    #[inline]
    pub(super) fn value(&self) -> u64 {
        self.tokens.value(self.at)
    }
}

/// Moves chumsky's cursor forward to the token at `to`, where the fast path has read to.
pub(super) fn advance(input: &mut Input<'_, '_, '_>, to: usize) {
    for _ in *input.cursor().inner()..to {
        input.skip();
    }
}

/// Inlined, as [`dot_name`] is: several run per statement, and as calls their prologues and
/// the moves of their results were a third of their cost.
#[inline(always)]
pub(super) fn identifier(reader: &mut Reader<'_, '_>) -> Option<Spanned<Word>> {
    let word = reader.tokens.identifier_word(reader.at)?;
    reader.at += 1;
    Some(word)
}

/// A dot name as a word (without its dot), with the span of the whole token.
#[inline(always)]
fn dot_name(reader: &mut Reader<'_, '_>) -> Option<Spanned<Word>> {
    let word = reader.tokens.dot_name_word(reader.at)?;
    reader.at += 1;
    Some(word)
}

/// True for tokens that would continue a constant expression after a literal.
fn continues_expression(tag: Option<Tag>) -> bool {
    matches!(
        tag,
        Some(
            Tag::Plus
                | Tag::Minus
                | Tag::Star
                | Tag::Slash
                | Tag::Percent
                | Tag::ShiftLeft
                | Tag::ShiftRight
                | Tag::Ampersand
                | Tag::Caret
                | Tag::Pipe
                | Tag::Less
                | Tag::Greater
                | Tag::LessEqual
                | Tag::GreaterEqual
                | Tag::EqualEqual
                | Tag::NotEqual
                | Tag::AndAnd
                | Tag::OrOr
                | Tag::Question
        )
    )
}

/// `%r1`, `%tid.x`. Inlined, as [`operand`] is, into the statement loop: most operands are
/// names, and a call returned each 64-byte operand through memory once more.
#[inline(always)]
fn name(reader: &mut Reader<'_, '_>) -> Option<Operand> {
    let name = identifier(reader)?;
    let mut span = name.span;
    let member = dot_name(reader).map(|member| {
        span = span.to(member.span);
        member.node
    });
    Some(Operand { kind: OperandKind::Name { name: name.node, member }, span })
}

/// `5`, `-5`, `0f3F800000`, `-1.5`, not followed by more of an expression.
fn literal(reader: &mut Reader<'_, '_>) -> Option<Operand> {
    let minus = reader.eat(Tag::Minus);
    let (kind, span) = match reader.tag()? {
        Tag::Integer => {
            let value = reader.value() as i128;
            let value = if minus.is_some() { value.wrapping_neg() } else { value };
            (OperandKind::Integer(WideInteger::new(value)), reader.take())
        }
        tag @ (Tag::SingleFloat | Tag::DoubleFloat) => {
            let (bits, double) = (reader.value(), tag == Tag::DoubleFloat);
            let sign = if double { 1 << 63 } else { 1 << 31 };
            (OperandKind::Float { bits: if minus.is_some() { bits ^ sign } else { bits }, double }, reader.take())
        }
        _ => return None,
    };
    if continues_expression(reader.tag()) {
        return None;
    }
    let span = minus.map_or(span, |minus| minus.to(span));
    Some(Operand { kind, span })
}

/// The value of `5` or `-5`, not followed by more of an expression: what [`literal`] reads as
/// an integer operand, without building the operand (an address's offset is most of them).
#[inline(always)]
fn integer_literal(reader: &mut Reader<'_, '_>) -> Option<i128> {
    let minus = reader.eat(Tag::Minus);
    if reader.tag()? != Tag::Integer {
        return None;
    }
    let value = reader.value() as i128;
    reader.take();
    if continues_expression(reader.tag()) {
        return None;
    }
    Some(if minus.is_some() { value.wrapping_neg() } else { value })
}

/// An element of a vector: a name, a literal or the sink.
fn element(reader: &mut Reader<'_, '_>) -> Option<Operand> {
    match reader.tag()? {
        Tag::Identifier => name(reader),
        Tag::Underscore => Some(Operand { kind: OperandKind::Sink, span: reader.take() }),
        _ => literal(reader),
    }
}

/// `[%rd1]`, `[%rd1+4]`, `[%rd1+-4]`, `[%rd1-4]`, `[4]`.
fn address(reader: &mut Reader<'_, '_>) -> Option<Operand> {
    let open = reader.take();
    let base = match reader.tag()? {
        Tag::Identifier => Some(identifier(reader)?),
        _ => None,
    };
    let offset: i128 = match (&base, reader.tag()?) {
        (Some(_), Tag::RightBracket) => 0,
        (Some(_), Tag::Plus) => {
            reader.take();
            integer_literal(reader)?
        }
        (Some(_), Tag::Minus) => {
            reader.take();
            if reader.tag()? != Tag::Integer {
                return None;
            }
            let value = reader.value();
            reader.take();
            -(value as i128)
        }
        (None, _) => integer_literal(reader)?,
        _ => return None,
    };
    let close = reader.eat(Tag::RightBracket)?;
    // Offsets that need the combinator path's range handling go there.
    let offset = i64::try_from(offset).ok()?;
    Some(Operand { kind: OperandKind::Address { base, offset }, span: open.to(close) })
}

/// `{%r1, %r2, _}`.
fn vector(reader: &mut Reader<'_, '_>) -> Option<Operand> {
    let open = reader.take();
    let mut elements = Vec::with_capacity(4);
    loop {
        elements.push(element(reader)?);
        match reader.tag()? {
            Tag::Comma => {
                reader.take();
            }
            Tag::RightBrace => break,
            _ => return None,
        }
    }
    let close = reader.take();
    Some(Operand { kind: OperandKind::Vector(elements), span: open.to(close) })
}

/// `(%r1, %r2)`, `()`: the argument and return lists of `call`.
fn list(reader: &mut Reader<'_, '_>) -> Option<Operand> {
    let open = reader.take();
    let mut elements = Vec::new();
    if reader.tag()? != Tag::RightParen {
        loop {
            elements.push(element(reader)?);
            match reader.tag()? {
                Tag::Comma => {
                    reader.take();
                }
                Tag::RightParen => break,
                _ => return None,
            }
        }
    }
    let close = reader.take();
    // What else follows is a parenthesised constant expression's, the combinator path's.
    if !matches!(reader.tag()?, Tag::Comma | Tag::Semicolon | Tag::RightParen) {
        return None;
    }
    Some(Operand { kind: OperandKind::List(elements), span: open.to(close) })
}

/// `|%q` or `|_` after the first half of a predicate pair.
fn predicate_pair(reader: &mut Reader<'_, '_>, first: Operand) -> Option<Operand> {
    reader.take();
    let second = match reader.tag()? {
        Tag::Identifier => name(reader)?,
        Tag::Underscore => Operand { kind: OperandKind::Sink, span: reader.take() },
        _ => return None,
    };
    let span = first.span.to(second.span);
    Some(Operand { kind: OperandKind::PredicatePair(Box::new(first), Box::new(second)), span })
}

/// An operand; `(...)` lists only for `call` (`calls`), where elsewhere `(5)` is a parenthesised
/// immediate.
#[inline(always)]
fn operand(reader: &mut Reader<'_, '_>, calls: bool) -> Option<Operand> {
    match reader.tag()? {
        Tag::Identifier => {
            let first = name(reader)?;
            match reader.tag()? {
                Tag::Pipe => predicate_pair(reader, first),
                // `var+imm` goes through the combinator path.
                Tag::Plus | Tag::Minus => None,
                _ => Some(first),
            }
        }
        Tag::LeftBracket => address(reader),
        Tag::LeftBrace => vector(reader),
        Tag::LeftParen if calls => list(reader),
        Tag::Underscore => {
            let sink = Operand { kind: OperandKind::Sink, span: reader.take() };
            match reader.tag()? {
                Tag::Pipe => predicate_pair(reader, sink),
                _ => Some(sink),
            }
        }
        Tag::Bang => {
            let bang = reader.take();
            if reader.tag()? != Tag::Identifier {
                return None;
            }
            let negated = name(reader)?;
            let span = bang.to(negated.span);
            Some(Operand { kind: OperandKind::Not(Box::new(negated)), span })
        }
        _ => literal(reader),
    }
}

/// `u32` of an integer token; `None` (so the combinator path reports it) when it is too large.
pub(super) fn integer_u32(reader: &mut Reader<'_, '_>) -> Option<(u32, Span)> {
    if reader.tag()? != Tag::Integer {
        return None;
    }
    let value = u32::try_from(reader.value()).ok()?;
    Some((value, reader.take()))
}

/// `.reg .b32 %r<12>, %x;`, `.shared .align 4 .b8 buffer[256];`: a declaration in a plain state
/// space with a scalar type, names with an optional register range and integer array
/// dimensions, and no initializer.
pub(super) fn declaration(reader: &mut Reader<'_, '_>, space: &str) -> Option<Statement> {
    let state_space = match StateSpace::from_ptx(space)? {
        // `.tex` declarations (and `.sreg`, which is no declaration) are the combinator path's.
        StateSpace::Tex | StateSpace::SpecialReg => return None,
        state_space => state_space,
    };
    let state_space = Spanned::new(state_space, reader.take());
    let (mut align, mut vector) = (None, None);
    let ty = loop {
        if reader.tag()? != Tag::DotName {
            return None;
        }
        let attribute = reader.text();
        match attribute {
            "align" => {
                reader.take();
                align = Some(integer_u32(reader)?.0);
            }
            "v2" | "v3" | "v4" | "v8" => {
                reader.take();
                vector = Some(u32::from(attribute.as_bytes()[1] - b'0'));
            }
            _ => break Spanned::new(ScalarType::from_ptx(attribute)?, reader.take()),
        }
    };
    let mut names = Vec::with_capacity(1);
    let end = loop {
        if reader.tag()? != Tag::Identifier {
            return None;
        }
        let name = identifier(reader)?;
        let mut span = name.span;
        let range = match reader.eat(Tag::Less) {
            Some(_) => {
                let (count, _) = integer_u32(reader)?;
                span = span.to(reader.eat(Tag::Greater)?);
                Some(count)
            }
            None => None,
        };
        let mut array_dimensions = Vec::new();
        while reader.eat(Tag::LeftBracket).is_some() {
            let size = match reader.tag()? {
                Tag::RightBracket => None,
                _ => Some(integer_u32(reader)?.0),
            };
            array_dimensions.push(size);
            span = span.to(reader.eat(Tag::RightBracket)?);
        }
        names.push(DeclaredName { name, range, array_dimensions, initializer: None, span });
        match reader.tag()? {
            Tag::Comma => {
                reader.take();
            }
            Tag::Semicolon => break reader.take(),
            _ => return None,
        }
    };
    let span = state_space.span.to(end);
    Some(Statement::Declaration(VariableDeclaration {
        linkage: None,
        state_space,
        align,
        vector,
        ty,
        opaque: None,
        names,
        span,
    }))
}

/// `.loc 1 12 5` (the column may be left out), with its `, function_name NAME` and
/// `, inlined_at FILE LINE COLUMN` tails read and dropped.
fn location(reader: &mut Reader<'_, '_>) -> Option<Statement> {
    let start = reader.take();
    let number = |reader: &mut Reader<'_, '_>| {
        if reader.tag()? != Tag::Integer {
            return None;
        }
        let value = u32::try_from(reader.value()).unwrap_or(u32::MAX);
        Some((value, reader.take()))
    };
    let (file, _) = number(reader)?;
    let (line, mut end) = number(reader)?;
    let column = match number(reader) {
        Some((column, column_span)) => {
            end = column_span;
            column
        }
        None => 0,
    };
    while reader.eat(Tag::Comma).is_some() {
        if reader.tag()? != Tag::Identifier {
            return None;
        }
        let numbers = match reader.text() {
            "function_name" => 0,
            "inlined_at" => 3,
            _ => return None,
        };
        reader.take();
        if numbers == 0 {
            end = reader.eat(Tag::Identifier)?;
        }
        for _ in 0..numbers {
            end = reader.eat(Tag::Integer)?;
        }
    }
    Some(Statement::Location { file, line, column, span: start.to(end) })
}

/// `.pragma "nounroll";`: the strings, unescaped and joined by `, `, as the combinator path
/// keeps them.
fn pragma(reader: &mut Reader<'_, '_>) -> Option<Statement> {
    let start = reader.take();
    let mut texts = Vec::with_capacity(1);
    loop {
        let Some(TokenKind::String(text)) = reader.tokens.kind(reader.at) else { return None };
        reader.take();
        texts.push(unescape(text));
        match reader.tag()? {
            Tag::Comma => {
                reader.take();
            }
            Tag::Semicolon => break,
            _ => return None,
        }
    }
    let end = reader.take();
    Some(Statement::Pragma { text: texts.join(", "), span: start.to(end) })
}

/// The modifiers and operands of the instructions of the blocks being read (a nested block's
/// above its parent's), until each block moves its own into the buffers its instructions share.
#[derive(Default)]
struct Lists {
    modifiers: Vec<Spanned<Word>>,
    operands: Vec<Operand>,
    /// The statements read, nested blocks' above their parent's. An instruction's lists are
    /// [`SharedSlice::detached`] ranges of `modifiers` and `operands` until the block ends: built
    /// in place so, a statement is moved once less than as a pending form converted at the end.
    statements: Vec<Statement>,
}

/// Where a block's part of [`Lists`] begins.
#[derive(Clone, Copy)]
struct Marks {
    modifiers: usize,
    operands: usize,
    statements: usize,
}

impl Lists {
    fn marks_at_start(&self) -> Marks {
        Marks { modifiers: 0, operands: 0, statements: 0 }
    }

    fn marks(&self) -> Marks {
        Marks { modifiers: self.modifiers.len(), operands: self.operands.len(), statements: self.statements.len() }
    }

    /// Drops what was pushed since `marks`: a statement that the functions above gave up on.
    fn truncate(&mut self, marks: Marks) {
        self.modifiers.truncate(marks.modifiers);
        self.operands.truncate(marks.operands);
        self.statements.truncate(marks.statements);
    }

    /// The statements since `marks`, with the modifiers and operands of their instructions moved
    /// into one shared buffer of each (allocated at its exact size), all taken off the lists.
    fn finish(&mut self, marks: Marks) -> Vec<Statement> {
        let modifiers = take_tail(&mut self.modifiers, marks.modifiers);
        let operands = take_tail(&mut self.operands, marks.operands);
        for statement in &mut self.statements[marks.statements..] {
            if let Statement::Instruction(instruction) = statement {
                instruction.modifiers.attach(&modifiers, marks.modifiers);
                instruction.operands.attach(&operands, marks.operands);
            }
        }
        // One bulk copy into a list of the exact size, where extending a new list from a drain
        // moved the statements one at a time.
        self.statements.split_off(marks.statements)
    }
}

/// Reads one statement, pushing it onto `lists`; `None` (having pushed nothing it keeps) when
/// the statement is not one of the forms above.
fn statement(reader: &mut Reader<'_, '_>, lists: &mut Lists) -> Option<()> {
    if reader.tag()? == Tag::DotName {
        let statement = match reader.text() {
            "loc" => location(reader),
            "pragma" => pragma(reader),
            space => declaration(reader, space),
        }?;
        lists.statements.push(statement);
        return Some(());
    }
    let mut guard = None;
    if let Some(at) = reader.eat(Tag::At) {
        let negated = reader.eat(Tag::Bang).is_some();
        let predicate = identifier(reader)?;
        let span = at.to(predicate.span);
        guard = Some(Box::new(Guard { negated, predicate, span }));
    }
    let opcode = identifier(reader)?;
    if guard.is_none() && reader.eat(Tag::Colon).is_some() {
        lists.statements.push(Statement::Label(opcode));
        return Some(());
    }
    let calls = opcode.node == "call";
    let marks = lists.marks();
    while let Some(modifier) = dot_name(reader) {
        lists.modifiers.push(modifier);
    }
    let modifiers = marks.modifiers..lists.modifiers.len();
    let end = match reader.eat(Tag::Semicolon) {
        Some(end) => end,
        None => loop {
            let Some(operand) = operand(reader, calls) else {
                lists.truncate(marks);
                return None;
            };
            lists.operands.push(operand);
            match reader.tag() {
                Some(Tag::Comma) => {
                    reader.take();
                }
                Some(Tag::Semicolon) => break reader.take(),
                _ => {
                    lists.truncate(marks);
                    return None;
                }
            }
        },
    };
    let start = guard.as_ref().map_or(opcode.span, |guard| guard.span);
    let span = start.to(end);
    let operands = SharedSlice::detached(marks.operands..lists.operands.len());
    let modifiers = SharedSlice::detached(modifiers);
    lists.statements.push(Statement::Instruction(Instruction { guard, opcode, modifiers, operands, span }));
    Some(())
}

#[cfg(test)]
thread_local! {
    /// Lets the tests turn the fast path off, to compare its trees with the combinator parser's.
    pub(super) static ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// The combinator parser of one statement, for those the functions above do not cover: given
/// the index of the statement's first token, the statement (`None` for one that leaves nothing
/// in the tree) and the index of the token after it; `None` when it does not parse.
pub(super) trait SlowStatement {
    fn read(&mut self, at: usize) -> Option<(Option<Statement>, usize)>;
}

impl<F: FnMut(usize) -> Option<(Option<Statement>, usize)>> SlowStatement for F {
    fn read(&mut self, at: usize) -> Option<(Option<Statement>, usize)> {
        self(at)
    }
}

/// The statements of a block up to its `}` (nested blocks included), or `None` when one of them
/// does not parse. Statements the functions above do not cover go to `slow`. `reached` is the
/// token index of the last statement begun: after a failure, where it failed.
fn block(
    reader: &mut Reader<'_, '_>,
    slow: &mut impl SlowStatement,
    reached: &mut usize,
    lists: &mut Lists,
) -> Option<Block> {
    let open = reader.eat(Tag::LeftBrace)?;
    let marks = lists.marks();
    loop {
        *reached = reader.at;
        match reader.tag()? {
            Tag::RightBrace => break,
            Tag::LeftBrace => {
                let nested = block(reader, slow, reached, lists)?;
                lists.statements.push(Statement::Block(nested));
                continue;
            }
            _ => {}
        }
        let before = reader.at;
        if statement(reader, lists).is_some() {
            continue;
        }
        let (statement, after) = slow.read(before)?;
        lists.statements.extend(statement);
        reader.at = after;
    }
    let close = reader.take();
    Some(Block { statements: lists.finish(marks), span: open.to(close) })
}

/// The lists that [`read_block`] collects a block's parts in, kept from one block to the next
/// so that only the first grows them.
#[derive(Default)]
pub(super) struct BlockLists(Lists);

/// A block at the reader (which must be at its `{`), read with the functions above and `slow`;
/// `None` when a statement does not parse, with the reader left where it failed.
pub(super) fn read_block(
    reader: &mut Reader<'_, '_>,
    slow: &mut impl SlowStatement,
    lists: &mut BlockLists,
) -> Option<Block> {
    let mut reached = 0;
    let block = block(reader, slow, &mut reached, &mut lists.0);
    lists.0.truncate(lists.0.marks_at_start());
    block
}

/// A reader at chumsky's cursor.
pub(super) fn reader_at<'t, 's: 't>(input: &mut Input<'t, '_, 's>) -> Reader<'t, 's> {
    let here = input.cursor();
    let tokens = input.slice_from(&here..);
    Reader { tokens: tokens.tokens, at: tokens.start }
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
    let spare_lists = std::rc::Rc::new(std::cell::Cell::new(Lists::default()));
    custom(move |input: &mut Input<'t, '_, 's>| {
        #[cfg(test)]
        if !ENABLED.with(std::cell::Cell::get) {
            return Err(give_up(input));
        }
        let before = input.save();
        if *before.cursor().inner() < failed_at.get() {
            return Err(give_up(input));
        }
        let mut reader = reader_at(input);
        let mut reached = 0;
        // Kept from one function body to the next, so that the lists are grown only by the
        // first. Taken out while in use: a body read inside another's statement gets new ones.
        let mut lists = spare_lists.take();
        // chumsky's cursor is moved up to the statement first, and the reader on past it after.
        let mut slow = |at: usize| {
            advance(input, at);
            let statement = input.parse(&slow_statement).ok()?;
            Some((statement, *input.cursor().inner()))
        };
        let result = block(&mut reader, &mut slow, &mut reached, &mut lists);
        lists.truncate(lists.marks_at_start());
        spare_lists.set(lists);
        match result {
            Some(block) => {
                advance(input, reader.at);
                Ok(block)
            }
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
        let mut reader = reader_at(input);
        let mut lists = Lists::default();
        match statement(&mut reader, &mut lists) {
            Some(()) => {
                advance(input, reader.at);
                Ok(lists.finish(lists.marks_at_start()).pop())
            }
            None => Err(give_up(input)),
        }
    })
}
