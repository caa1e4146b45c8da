//! Operands of checked instructions.

use crate::span::Span;
use crate::vocabulary::SpecialRegister;

use super::{FunctionId, VariableId};

/// A value an instruction reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A register (or a scalar variable read like a register).
    Register(VariableId),
    /// An integer immediate, kept wide; lowering truncates it to the instruction type.
    Integer(Immediate),
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
    /// `base+offset` written without brackets (`mov.u64 %rd1, table+8;`, `st.u64 [x], %rd2 + 1;`):
    /// the base's value (a register, or a variable's address) plus a constant.
    Offset {
        base: Box<Value>,
        offset: i64,
    },
}

/// A checked operand: its value and where it was written.
/// An integer immediate. PTX literals are 64 bits with an optional minus sign, so the value
/// needs 65; it is stored as an `i128` aligned to 8 bytes, since one aligned to 16 would make
/// every operand, and so every checked instruction, half again as large.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(C, packed(8))]
pub struct Immediate(i128);

impl Immediate {
    pub fn new(value: i128) -> Immediate {
        Immediate(value)
    }

    pub fn get(self) -> i128 {
        self.0
    }
}

/// Prints the number alone, as the `i128` did.
impl std::fmt::Debug for Immediate {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = self.0;
        std::fmt::Debug::fmt(&value, formatter)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub value: Value,
    pub span: Span,
}

/// A register that an instruction writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Destination {
    pub register: VariableId,
    /// The element written when the register is a vector (`%v.y` is 1).
    pub member: Option<u32>,
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
