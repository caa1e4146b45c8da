//! Operands of checked instructions.

use crate::span::Span;
use crate::vocabulary::SpecialRegister;

use super::{FunctionId, VariableId};

/// A value an instruction reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A register (or a scalar variable read like a register).
    Register(VariableId),
    /// An integer immediate that fits 64 signed bits, as nearly all do; lowering truncates it to
    /// the instruction type. [`Value::integer`] chooses between this and `WideInteger`.
    Integer(Immediate),
    /// An integer immediate outside the `i64` range: a 64-bit literal with its top bit set
    /// (`0xffffffffffffffff`) or a constant expression folded wider. Boxed, so that the 128 bits
    /// it needs do not make every operand, and so every checked instruction, larger.
    WideInteger(Box<i128>),
    /// A float immediate as IEEE bits; `double` tells whether `bits` are f64 or f32 bits.
    Float {
        bits: u64,
        double: bool,
    },
    SpecialRegister(SpecialRegister),
    /// The address of a variable (`mov.u64 %rd1, buffer;`), in the variable's state space.
    AddressOf(VariableId),
    /// The address of a function (`mov.u64 %rd1, callee;`), for indirect calls.
    FunctionAddress(FunctionId),
    /// One element of a vector register: `%v.x` is index 0, `%v.w` index 3.
    Member {
        register: VariableId,
        index: u32,
    },
    /// `base+offset` written without brackets (`mov.u64 %rd1, table+8;`, `st.u64 [x], %rd2 + 1;`).
    /// Boxed: it is rare, and its two words inline would make every operand 8 bytes larger.
    Offset(Box<OffsetValue>),
}

impl Value {
    /// An integer immediate: inline when it fits `i64`, boxed otherwise.
    pub fn integer(value: i128) -> Value {
        match i64::try_from(value) {
            Ok(narrow) => Value::Integer(Immediate(narrow)),
            Err(_) => Value::WideInteger(Box::new(value)),
        }
    }

    /// The value of an integer immediate, whichever its width; `None` for other values.
    pub fn as_integer(&self) -> Option<i128> {
        match self {
            Value::Integer(immediate) => Some(immediate.get()),
            Value::WideInteger(value) => Some(**value),
            _ => None,
        }
    }
}

/// The value of `base+offset` (`Value::Offset`): the base's value (a register, or a variable's
/// address) plus a constant.
#[derive(Clone, Debug, PartialEq)]
pub struct OffsetValue {
    pub base: Value,
    pub offset: i64,
}

/// An integer immediate that fits `i64` (see `Value::WideInteger` for the others). PTX literals
/// are 64 bits with an optional minus sign, so a few need 65 bits or more; keeping those apart
/// makes a `Value` 16 bytes rather than 24.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Immediate(i64);

impl Immediate {
    pub fn get(self) -> i128 {
        i128::from(self.0)
    }
}

/// Prints the number alone, as the `i128` it replaced did.
impl std::fmt::Debug for Immediate {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, formatter)
    }
}

/// A checked operand: its value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub value: Value,
    pub span: Span,
}

/// A register that an instruction writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Destination {
    pub register: VariableId,
    /// The element written when the register is a vector (`%v.y` is 1); a byte, which keeps a
    /// destination 20 bytes.
    pub member: Option<u8>,
    pub span: Span,
}

/// A memory address: `[base+offset]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Address {
    pub base: AddressBase,
    pub offset: i64,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum AddressBase {
    /// A register holding an address in the instruction's state space.
    Register(VariableId),
    /// A variable of the instruction's state space: the address is the variable's own.
    Variable(VariableId),
    /// An absolute address `[imm]`.
    Absolute,
}
