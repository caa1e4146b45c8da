//! Function bodies: blocks of statements (ISA 7.8 section 4.3). A statement is a label, an
//! instruction with its optional guard, a declaration, a nested block, or a statement-level
//! directive (`.loc`, `.pragma`, `.branchtargets` with its labels, and `.callprototype`/
//! `.calltargets`, whose operands are skipped). A statement that does not parse is reported and skipped.

use chumsky::prelude::*;

use super::declaration::{aggregate_definition, variable_declaration};
use super::error::Label;
use super::fast::{fast_block, fast_statement};
use super::operand::operand;
use super::recovery::{rest_of_statement, skip_statement};
use super::tokens::{identifier, integer, keyword, pragma_text, punct};
use super::{Present, PtxParser};
use crate::span::Spanned;
use crate::syntax::ast::{Block, Guard, Instruction, Operand, OperandKind, Statement, Word};
use crate::syntax::lexer::TokenKind;

/// `{ statement* }`, with recovery inside.
///
/// The hand-written block loop (`fast::fast_block`) reads it first; when a statement does not
/// parse, it gives up and the combinator parser below reads the block again, with recovery.
///
/// A block left open at the end of the input is reported and kept, not failed: a failed block
/// would be skipped statement by statement and its nested blocks parsed again, so `{` repeated
/// n times without a `}` took 2^n steps.
pub(super) fn block<'t, 's: 't>() -> impl PtxParser<'t, 's, Block> {
    recursive(|block| {
        let nested = block.map(|block| Some(Statement::Block(block)));
        let close = punct(TokenKind::RightBrace).recover_with(via_parser(end().to(TokenKind::RightBrace)));
        let combinator_block = statement(nested.clone())
            .recover_with(via_parser(skip_statement().map(|()| None)))
            .repeated()
            .collect::<Present<Statement>>()
            .delimited_by(punct(TokenKind::LeftBrace), close)
            .map_with(|statements, extra| {
                // The list grew by doubling; giving back the unused tail (in place) keeps the tree
                // a quarter smaller.
                let mut statements = statements.0;
                statements.shrink_to_fit();
                Block { statements, span: extra.span() }
            });
        choice((fast_block(statement(nested).boxed()), combinator_block))
    })
    .boxed()
}

/// `.`-modifiers after an opcode, without their dots.
fn modifiers<'t, 's: 't>() -> impl PtxParser<'t, 's, Vec<Spanned<Word>>> {
    select! { TokenKind::DotName(modifier) = extra => Spanned::new(Word::new(modifier), extra.span()) }
        .repeated()
        .collect::<Vec<_>>()
}

/// What follows an opcode: modifiers, operands and the `;`.
fn instruction_tail<'t, 's: 't>() -> impl PtxParser<'t, 's, (Vec<Spanned<Word>>, Vec<Operand>)> {
    modifiers()
        .then(operand().separated_by(punct(TokenKind::Comma)).collect::<Vec<_>>())
        .then_ignore(punct(TokenKind::Semicolon))
}

fn instruction(
    guard: Option<Guard>,
    opcode: Spanned<String>,
    modifiers: Vec<Spanned<Word>>,
    mut operands: Vec<Operand>,
    span: crate::span::Span,
) -> Instruction {
    // Outside `call`, `(5)` is a parenthesised immediate, not an argument list.
    if opcode.node != "call" {
        for operand in &mut operands {
            if let OperandKind::List(elements) = &mut operand.kind {
                if let [element] = elements.as_mut_slice() {
                    if matches!(element.kind, OperandKind::Integer(_) | OperandKind::Float { .. }) {
                        operand.kind = std::mem::replace(&mut element.kind, OperandKind::Sink);
                    }
                }
            }
        }
    }
    let opcode = Spanned::new(Word::from(opcode.node), opcode.span);
    Instruction { guard: guard.map(Box::new), opcode, modifiers: modifiers.into(), operands: operands.into(), span }
}

/// One statement on its own, nested blocks included: what the hand-written module loop
/// (`fast_module`) hands the statements that `fast` does not read.
pub(super) fn single_statement<'t, 's: 't>() -> impl PtxParser<'t, 's, Option<Statement>> {
    statement(block().map(|block| Some(Statement::Block(block))))
}

/// A statement, or `None` for a directive that leaves nothing in the tree.
fn statement<'t, 's: 't>(
    block: impl PtxParser<'t, 's, Option<Statement>>,
) -> impl PtxParser<'t, 's, Option<Statement>> {
    // `name:` is a label; `name ...;` an instruction.
    let opcode_or_label =
        select! { TokenKind::Identifier(name) = extra => Spanned::new(name.to_string(), extra.span()) };
    let label_or_instruction = opcode_or_label
        .then(choice((punct(TokenKind::Colon).to(None), instruction_tail().map(Some))))
        .map_with(|(name, tail), extra| {
            Some(match tail {
                None => Statement::Label(Spanned::new(Word::from(name.node), name.span)),
                Some((modifiers, operands)) => {
                    Statement::Instruction(instruction(None, name, modifiers, operands, extra.span()))
                }
            })
        });

    let guard = punct(TokenKind::At)
        .ignore_then(punct(TokenKind::Bang).or_not())
        .then(identifier().labelled(Label::Predicate))
        .map_with(|(bang, predicate): (_, Spanned<String>), extra| Guard {
            negated: bang.is_some(),
            predicate: Spanned::new(Word::from(predicate.node), predicate.span),
            span: extra.span(),
        });
    let guarded_instruction = guard.then(identifier().labelled(Label::Opcode)).then(instruction_tail()).map_with(
        |((guard, opcode), (modifiers, operands)), extra| {
            Some(Statement::Instruction(instruction(Some(guard), opcode, modifiers, operands, extra.span())))
        },
    );

    let declaration = variable_declaration().map(|declaration| Some(Statement::Declaration(declaration)));

    // `.loc file line column`, optionally followed by `, function_name NAME` and
    // `, inlined_at file line column`, which are accepted and dropped.
    let number = integer().map(|value| u32::try_from(value).unwrap_or(u32::MAX));
    let location_extra = punct(TokenKind::Comma).ignore_then(choice((
        just(TokenKind::Identifier("function_name")).ignore_then(identifier()).ignored(),
        just(TokenKind::Identifier("inlined_at")).ignore_then(integer()).then(integer()).then(integer()).ignored(),
    )));
    // The column may be left out (older PTX); it is 0 then.
    let location = keyword("loc")
        .ignore_then(number.clone())
        .then(number.clone())
        .then(number.or_not().map(Option::unwrap_or_default))
        .then_ignore(location_extra.repeated())
        .map_with(|((file, line), column), extra| Some(Statement::Location { file, line, column, span: extra.span() }));

    let pragma = pragma_text().map_with(|text, extra| Some(Statement::Pragma { text, span: extra.span() }));

    // `targets: .branchtargets L1, L2;`: the label before it is kept as a label, and the list
    // follows it as its own statement, for `brx.idx`.
    let branch_targets = keyword("branchtargets")
        .ignore_then(
            identifier()
                .map(|name: Spanned<String>| Spanned::new(Word::from(name.node), name.span))
                .separated_by(punct(TokenKind::Comma))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(punct(TokenKind::Semicolon))
        .map_with(|labels, extra| Some(Statement::BranchTargets { labels, span: extra.span() }));

    // `proto: .callprototype (...) _ (...);`, `targets: .calltargets f, g;`: the label before
    // them is kept as a label; their operands are not modelled.
    let unmodelled =
        choice((keyword("callprototype"), keyword("calltargets"))).ignore_then(rest_of_statement()).to(None);

    choice((
        fast_statement(),
        label_or_instruction,
        guarded_instruction,
        declaration,
        location,
        pragma,
        branch_targets,
        unmodelled,
        aggregate_definition(),
        block,
    ))
    .labelled(Label::Statement)
}
