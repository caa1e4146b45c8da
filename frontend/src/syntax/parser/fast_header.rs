//! A fast path for module-level directives: `.version`, `.target`, `.address_size`, variable
//! declarations without initializers, and function headers (`.entry`/`.func` with linkage,
//! return and parameter lists and tuning attributes), whose bodies go to the block parser.
//!
//! Like the statement fast path (`fast`), it is a hand-written chumsky `custom` parser tried
//! before the combinator parsers of a directive. It builds exactly the tree they would and gives
//! up (consuming nothing, adding no expectation to error messages) on anything else: opaque
//! parameter types, `.pragma` attributes, initializers, numbers too large for their place,
//! syntax errors, and a body that does not parse. The combinator parsers then read the directive
//! again with their error messages and recovery. The combinator parser spent most of a function
//! header's time on the bookkeeping of alternatives that fail (each directive's keyword, each
//! optional attribute); here each token is looked at once.

use chumsky::prelude::*;

use super::fast::{
    advance, declaration, give_up, identifier as word, integer_u32, read_block, reader_at, BlockLists, Input, Reader,
    SlowStatement,
};
use super::PtxParser;
use crate::span::{Span, Spanned};
use crate::syntax::ast::{
    Block, Directive, Function, FunctionAttribute, FunctionKind, Linkage, Parameter, PointerAttribute, Statement, Word,
};
use crate::syntax::tokens::Tag;
use crate::vocabulary::{ScalarType, StateSpace};

/// An identifier's text and span, as an owned string (the `.target` list keeps these).
fn identifier(reader: &mut Reader<'_, '_>) -> Option<Spanned<String>> {
    if reader.tag()? != Tag::Identifier {
        return None;
    }
    let text = reader.text().to_string();
    Some(Spanned::new(text, reader.take()))
}

/// `.align N`, if the current token is `.align`.
fn align(reader: &mut Reader<'_, '_>) -> Option<Option<u32>> {
    if reader.tag() != Some(Tag::DotName) || reader.text() != "align" {
        return Some(None);
    }
    reader.take();
    Some(Some(integer_u32(reader)?.0))
}

/// `.param .u64 .ptr .global .align 8 name`, `.param .align 16 .b8 name[16]`, `.reg .v4 .u16 x`.
fn parameter(reader: &mut Reader<'_, '_>) -> Option<Parameter> {
    if reader.tag()? != Tag::DotName {
        return None;
    }
    let state_space = match reader.text() {
        "param" => StateSpace::Param,
        "reg" => StateSpace::Reg,
        _ => return None,
    };
    let state_space = Spanned::new(state_space, reader.take());
    // `.align` and `.vN` before the type, in any order; the last of each counts.
    let (mut prefix_align, mut vector) = (None, None);
    let ty = loop {
        if reader.tag()? != Tag::DotName {
            return None;
        }
        let attribute = reader.text();
        match attribute {
            "align" => prefix_align = align(reader)?,
            "v2" | "v3" | "v4" | "v8" => {
                reader.take();
                vector = Some(u32::from(attribute.as_bytes()[1] - b'0'));
            }
            // Opaque handle types (`.texref`) are the combinator path's.
            _ => break Spanned::new(ScalarType::from_ptx(attribute)?, reader.take()),
        }
    };
    let pointer = if reader.tag() == Some(Tag::DotName) && reader.text() == "ptr" {
        reader.take();
        let space = if reader.tag() == Some(Tag::DotName) {
            match reader.text() {
                "global" => Some(StateSpace::Global),
                "shared" => Some(StateSpace::Shared),
                "const" => Some(StateSpace::Const),
                "local" => Some(StateSpace::Local),
                _ => None,
            }
        } else {
            None
        };
        if space.is_some() {
            reader.take();
        }
        Some(PointerAttribute { state_space: space, align: align(reader)? })
    } else {
        None
    };
    let late_align = align(reader)?;
    let name = match reader.tag()? {
        Tag::Identifier => word(reader)?,
        Tag::Underscore => Spanned::new(Word::new("_"), reader.take()),
        _ => return None,
    };
    let mut end = name.span;
    let array = match reader.eat(Tag::LeftBracket) {
        Some(_) => {
            let (size, _) = integer_u32(reader)?;
            end = reader.eat(Tag::RightBracket)?;
            Some(size)
        }
        None => None,
    };
    let align = prefix_align.or(late_align);
    let span = state_space.span.to(end);
    Some(Parameter { state_space, ty, vector, align, pointer, name, array, span })
}

/// `(parameter, parameter)`, if the current token is `(`.
fn parameter_list(reader: &mut Reader<'_, '_>) -> Option<Option<Vec<Parameter>>> {
    if reader.eat(Tag::LeftParen).is_none() {
        return Some(None);
    }
    let mut parameters = Vec::new();
    if reader.eat(Tag::RightParen).is_some() {
        return Some(Some(parameters));
    }
    loop {
        parameters.push(parameter(reader)?);
        match reader.tag()? {
            Tag::Comma => {
                reader.take();
            }
            Tag::RightParen => {
                reader.take();
                return Some(Some(parameters));
            }
            _ => return None,
        }
    }
}

/// The performance-tuning and cluster directives a function header may carry; the same list
/// as the combinator parser's.
fn is_attribute(name: &str) -> bool {
    super::function::ATTRIBUTES.contains(&name)
}

/// `.maxntid 256, 1, 1`, `.noreturn`, if the current token is one of them.
fn attribute(reader: &mut Reader<'_, '_>) -> Option<Option<FunctionAttribute>> {
    if reader.tag() != Some(Tag::DotName) || !is_attribute(reader.text()) {
        return Some(None);
    }
    let name = Spanned::new(reader.text().to_string(), reader.take());
    let mut end = name.span;
    let mut values = Vec::new();
    if reader.tag() == Some(Tag::Integer) {
        loop {
            values.push(reader.value());
            end = reader.take();
            if reader.eat(Tag::Comma).is_none() {
                break;
            }
            if reader.tag()? != Tag::Integer {
                return None;
            }
        }
    }
    let span = name.span.to(end);
    Some(Some(FunctionAttribute { name, values, span }))
}

/// The reader's result for one directive.
enum Read {
    /// A whole directive, read up to `reader.at`.
    Directive(Directive),
    /// A function header (its tree without the body, the body's first token at `reader.at`).
    Header(Function),
}

/// `[linkage] .entry|.func [(returns)] name [(parameters)] attributes*`, up to its `{` or `;`.
fn function_header(reader: &mut Reader<'_, '_>, linkage: Option<Spanned<Linkage>>, start: Span) -> Option<Function> {
    let kind = match reader.text() {
        "entry" => FunctionKind::Entry,
        _ => FunctionKind::Func,
    };
    reader.take();
    let return_parameters = parameter_list(reader)?;
    let name = word(reader)?;
    let parameters = parameter_list(reader)?;
    let mut attributes = Vec::new();
    while let Some(attribute) = attribute(reader)? {
        attributes.push(attribute);
    }
    Some(Function {
        linkage,
        kind,
        name,
        return_parameters: return_parameters.unwrap_or_default(),
        parameters: parameters.unwrap_or_default(),
        attributes,
        body: None,
        span: start,
    })
}

/// Reads one directive, or its header for a function; `None` for anything the combinator
/// parsers must read.
fn directive(reader: &mut Reader<'_, '_>, source: &str) -> Option<Read> {
    if reader.tag()? != Tag::DotName {
        return None;
    }
    let start = reader.tokens.span(reader.at)?;
    let linkage = match reader.text() {
        "version" => {
            reader.take();
            if reader.tag()? != Tag::DoubleFloat {
                return None;
            }
            let number = reader.take();
            let (major, minor) = super::directive::version_numbers(source.get(number.range())?)?;
            return Some(Read::Directive(Directive::Version { major, minor, span: start.to(number) }));
        }
        "target" => {
            reader.take();
            let mut targets = vec![identifier(reader)?];
            while reader.eat(Tag::Comma).is_some() {
                targets.push(identifier(reader)?);
            }
            let span = start.to(targets.last()?.span);
            return Some(Read::Directive(Directive::Target { targets, span }));
        }
        "address_size" => {
            reader.take();
            let (bits, end) = integer_u32(reader)?;
            return Some(Read::Directive(Directive::AddressSize { bits, span: start.to(end) }));
        }
        "visible" => Some(Linkage::Visible),
        "extern" => Some(Linkage::Extern),
        "weak" => Some(Linkage::Weak),
        "common" => Some(Linkage::Common),
        _ => None,
    };
    let linkage = linkage.map(|linkage| Spanned::new(linkage, reader.take()));
    if reader.tag()? != Tag::DotName {
        return None;
    }
    match reader.text() {
        "entry" | "func" => Some(Read::Header(function_header(reader, linkage, start)?)),
        space => match declaration(reader, space)? {
            Statement::Declaration(mut variable) => {
                variable.linkage = linkage;
                variable.span = start.to(variable.span);
                Some(Read::Directive(Directive::Variable(variable)))
            }
            _ => None,
        },
    }
}

/// One directive read whole, a function's body with [`read_block`] and `slow`: for the
/// hand-written module loop (`fast_module`). `None` for anything the combinator parsers must
/// read, with the reader left anywhere.
pub(super) fn read_directive(
    reader: &mut Reader<'_, '_>,
    source: &str,
    slow: &mut impl SlowStatement,
    lists: &mut BlockLists,
) -> Option<Directive> {
    let start = reader.tokens.span(reader.at)?;
    let mut function = match directive(reader, source)? {
        Read::Directive(directive) => {
            count_read();
            return Some(directive);
        }
        Read::Header(function) => function,
    };
    // The function's span ends where chumsky's would: at the end of its last token.
    let end = match reader.tag()? {
        Tag::Semicolon => reader.take(),
        Tag::LeftBrace => {
            let body = read_block(reader, slow, lists)?;
            let end = body.span;
            function.body = Some(body);
            end
        }
        _ => return None,
    };
    function.span = start.to(end);
    count_read();
    Some(Directive::Function(function))
}

#[cfg(test)]
thread_local! {
    /// How many directives this path has read: lets the tests see that it is taken.
    pub(super) static READ: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts a directive read, for the tests.
fn count_read() {
    #[cfg(test)]
    READ.with(|read| read.set(read.get() + 1));
}

/// The fast path as a parser: one directive, or a failure that consumes nothing. `block` is
/// the parser of a function body.
pub(super) fn fast_directive<'t, 's: 't>(
    source: &'s str,
    block: impl PtxParser<'t, 's, Block>,
) -> impl PtxParser<'t, 's, Option<Directive>> {
    custom(move |input: &mut Input<'t, '_, 's>| {
        #[cfg(test)]
        if !super::fast::ENABLED.with(std::cell::Cell::get) {
            return Err(give_up(input));
        }
        let before = input.save();
        let start = input.cursor();
        let mut reader = reader_at(input);
        let read = match directive(&mut reader, source) {
            Some(read) => read,
            None => return Err(give_up(input)),
        };
        let mut function = match read {
            Read::Directive(directive) => {
                advance(input, reader.at);
                count_read();
                return Ok(Some(directive));
            }
            Read::Header(function) => function,
        };
        match reader.tag() {
            Some(Tag::Semicolon) => advance(input, reader.at + 1),
            Some(Tag::LeftBrace) => {
                advance(input, reader.at);
                match input.parse(&block) {
                    Ok(body) => function.body = Some(body),
                    Err(_) => {
                        input.rewind(before);
                        return Err(give_up(input));
                    }
                }
            }
            _ => return Err(give_up(input)),
        }
        function.span = input.span_since(&start);
        count_read();
        Ok(Some(Directive::Function(function)))
    })
}
