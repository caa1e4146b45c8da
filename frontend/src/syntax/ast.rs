//! The syntax tree: what the parser read, with a span on every node, before any checking.
//!
//! Instructions are kept in a generic form (opcode, dotted modifiers, operands) so that every
//! instruction PTX has, including ones ptxr cannot lower yet, parses; the semantic pass decodes
//! them into typed instructions. Names are kept as written (`%r1`, `$L__BB0_2`, `saxpy_param_0`).

use crate::span::{Span, Spanned};
pub use crate::syntax::shared_slice::SharedSlice;
pub use crate::syntax::word::Word;
use crate::vocabulary::{OpaqueType, ScalarType, StateSpace};

/// A whole `.ptx` file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    pub directives: Vec<Directive>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Directive {
    /// `.version 7.8`
    Version { major: u32, minor: u32, span: Span },
    /// `.target sm_80, texmode_independent, debug`
    Target { targets: Vec<Spanned<String>>, span: Span },
    /// `.address_size 64`
    AddressSize { bits: u32, span: Span },
    /// `.file 1 "kernel.cu"` (timestamps and sizes are accepted and dropped).
    File { index: u32, path: String, span: Span },
    /// A module-scope variable: `.global .align 4 .b8 table[16] = {...};`
    Variable(VariableDeclaration),
    /// `.entry` or `.func`, declared or defined.
    Function(Function),
    /// A `.section` block (DWARF data and the like), kept as its name and raw text.
    Section { name: String, span: Span },
    /// `.pragma "nounroll";` at module scope.
    Pragma { text: String, span: Span },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `.entry`: a kernel.
    Entry,
    /// `.func`: a device function.
    Func,
}

/// `.maxntid 256, 1, 1` and the other performance-tuning directives of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionAttribute {
    /// The directive without its dot: `maxntid`, `reqntid`, `minnctapersm`, `maxnreg`, `noreturn`, ...
    pub name: Spanned<String>,
    pub values: Vec<u64>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub linkage: Option<Spanned<Linkage>>,
    pub kind: FunctionKind,
    pub name: Spanned<Word>,
    /// `.func (.param .b32 retval) name (...)`: the return parameters.
    pub return_parameters: Vec<Parameter>,
    pub parameters: Vec<Parameter>,
    pub attributes: Vec<FunctionAttribute>,
    /// `None` for a declaration (`.extern .func f(...);`).
    pub body: Option<Block>,
    pub span: Span,
}

/// One kernel or function parameter: `.param .u64 .ptr .global .align 8 name` or `.reg .b32 x`.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    pub state_space: Spanned<StateSpace>,
    pub ty: Spanned<ScalarType>,
    /// `.v2`/`.v4`: a vector parameter (`.reg .v4 .u16 input`).
    pub vector: Option<u32>,
    /// `.align N`
    pub align: Option<u32>,
    /// `.ptr` with its optional state space (`.ptr .global`).
    pub pointer: Option<PointerAttribute>,
    pub name: Spanned<Word>,
    /// `name[16]`: the element count of an array parameter (`.param .b8 agg[16]`).
    pub array: Option<u32>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PointerAttribute {
    pub state_space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// `{ ... }`: a function body or a nested scope.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub statements: Vec<Statement>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `.reg .b32 %r<10>;`, `.shared .align 4 .b8 buffer[256];`, `.local ...`
    Declaration(VariableDeclaration),
    /// `$L__BB0_2:` (a `Word`: labels are short, so most take no allocation).
    Label(Spanned<Word>),
    Instruction(Instruction),
    /// A nested `{ ... }` scope.
    Block(Block),
    /// `.loc 1 12 5` (kept for debug information).
    Location {
        file: u32,
        line: u32,
        column: u32,
        span: Span,
    },
    /// `.branchtargets L1, L2;` after its label (`targets: .branchtargets L1, L2;`): the
    /// list that `brx.idx` indexes.
    BranchTargets {
        labels: Vec<Spanned<Word>>,
        span: Span,
    },
    /// `.pragma "nounroll";`
    Pragma {
        text: String,
        span: Span,
    },
}

/// A declaration of one or more names in one state space with one type.
#[derive(Clone, Debug, PartialEq)]
pub struct VariableDeclaration {
    pub linkage: Option<Spanned<Linkage>>,
    pub state_space: Spanned<StateSpace>,
    pub align: Option<u32>,
    /// `.v2`/`.v4`: a vector variable.
    pub vector: Option<u32>,
    pub ty: Spanned<ScalarType>,
    /// `.texref`, `.samplerref`, `.surfref` (or ISA 1.x's `.tex`): the handle type of a `.tex`
    /// variable, whose `ty` is then `.b64`.
    pub opaque: Option<OpaqueType>,
    pub names: Vec<DeclaredName>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredName {
    pub name: Spanned<Word>,
    /// `%r<10>`: declares `%r0` to `%r9`.
    pub range: Option<u32>,
    /// `buffer[4][8]`; `None` for an unsized dimension (`.extern .shared .b8 dyn[];`).
    pub array_dimensions: Vec<Option<u32>>,
    pub initializer: Option<Initializer>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// A constant expression or an address.
    Expression(Spanned<Expression>),
    /// `{ a, b, { c, d } }`
    List(Vec<Initializer>, Span),
}

/// Constant expressions as they appear in initializers and address offsets.
#[derive(Clone, Debug, PartialEq)]
pub enum Expression {
    Integer(i128),
    /// A float literal kept as its IEEE bits and width (`0f3F800000` is 32-bit, `0d...` and
    /// decimal literals are 64-bit).
    Float {
        bits: u64,
        double: bool,
    },
    /// A variable or function name: its address.
    Symbol(String),
    /// `generic(name)`
    Generic(String),
    /// `mask(name)` (and similar function-like forms), kept by name.
    Call {
        function: String,
        arguments: Vec<Spanned<Expression>>,
    },
    Unary {
        operator: UnaryOperator,
        operand: Box<Spanned<Expression>>,
    },
    Binary {
        operator: BinaryOperator,
        left: Box<Spanned<Expression>>,
        right: Box<Spanned<Expression>>,
    },
    /// `condition ? if_true : if_false`
    Conditional {
        condition: Box<Spanned<Expression>>,
        if_true: Box<Spanned<Expression>>,
        if_false: Box<Spanned<Expression>>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOperator {
    Negate,
    BitNot,
    LogicalNot,
    /// `(.s64)`: the value as a signed 64-bit integer.
    CastSigned,
    /// `(.u64)`: the value as an unsigned 64-bit integer.
    CastUnsigned,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOperator {
    Add,
    Subtract,
    Multiply,
    Divide,
    Remainder,
    ShiftLeft,
    ShiftRight,
    BitAnd,
    BitOr,
    BitXor,
    Less,
    Greater,
    LessEqual,
    GreaterEqual,
    Equal,
    NotEqual,
    LogicalAnd,
    LogicalOr,
}

/// `@%p` or `@!%p` in front of an instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Guard {
    pub negated: bool,
    pub predicate: Spanned<Word>,
    pub span: Span,
}

/// One instruction in generic form: `@%p1 ld.global.nc.b32 %r8, [%rd6+4];` has the guard,
/// the opcode `ld`, the modifiers `global`, `nc`, `b32` (without dots) and two operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    /// Boxed: most instructions have none, and inline it would make every statement of the tree
    /// 40 bytes larger.
    pub guard: Option<Box<Guard>>,
    pub opcode: Spanned<Word>,
    /// Read as slices; the parser's fast path keeps the lists of a block in one buffer.
    pub modifiers: SharedSlice<Spanned<Word>>,
    pub operands: SharedSlice<Operand>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub kind: OperandKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum OperandKind {
    /// A register, variable, label, function or special register name, with an optional member
    /// (`%tid.x` is `%tid` with member `x`; `%v1.y` a vector component).
    Name { name: Word, member: Option<Word> },
    /// An integer literal (any base, with optional `U` suffix) or a constant expression of them.
    Integer(WideInteger),
    /// A float literal: `0f3F800000` (32-bit), `0d3FF0000000000000` or `1.5` (64-bit).
    Float { bits: u64, double: bool },
    /// `[base]`, `[base+offset]`, `[offset]`: a memory address.
    Address { base: Option<Spanned<Word>>, offset: i64 },
    /// `{%r1, %r2}`: a vector operand.
    Vector(Vec<Operand>),
    /// `(%r1, %r2)`: the argument or return list of `call`.
    List(Vec<Operand>),
    /// `[tex, {x, y}]` and other bracketed lists that are not a single address.
    Bracketed(Vec<Operand>),
    /// `!%p`: a negated predicate operand.
    Not(Box<Operand>),
    /// `-%r1`: a negated source (`vmad`'s `{-}a`, `{-}b` and `{-}c`).
    Negate(Box<Operand>),
    /// `%p|%q`: the two predicate destinations of `setp`.
    PredicatePair(Box<Operand>, Box<Operand>),
    /// `_`: the sink operand.
    Sink,
}

/// The value of an integer operand: the 128 bits that constant expressions fold to, kept as two
/// 64-bit halves. An `i128` field is aligned to 16 bytes, which made every operand of the tree
/// 64 bytes rather than 48.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct WideInteger {
    low: u64,
    high: u64,
}

impl WideInteger {
    pub const fn new(value: i128) -> WideInteger {
        WideInteger { low: value as u64, high: (value >> 64) as u64 }
    }

    pub const fn get(self) -> i128 {
        ((self.high as i128) << 64) | self.low as i128
    }
}

impl From<i128> for WideInteger {
    fn from(value: i128) -> WideInteger {
        WideInteger::new(value)
    }
}

/// Printed as the number, as the `i128` it replaces was.
impl std::fmt::Debug for WideInteger {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.get(), formatter)
    }
}

impl std::fmt::Display for WideInteger {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.get(), formatter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_integers_read_back_and_keep_operands_small() {
        for value in [0, 1, -1, 255, i128::from(u64::MAX), -i128::from(u64::MAX), i128::MAX, i128::MIN] {
            assert_eq!(WideInteger::new(value).get(), value);
            assert_eq!(format!("{:?}", WideInteger::new(value)), format!("{value:?}"));
        }
        assert_eq!(std::mem::size_of::<Operand>(), 48);
    }
}
