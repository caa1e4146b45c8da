//! Module-level items of the checked module: directives, variables and functions.

use crate::span::Span;
use crate::syntax::ast::{FunctionKind, Linkage, Word};
use crate::vocabulary::{OpaqueType, ScalarType, StateSpace};

use super::GuardedInstruction;

/// Index of a variable in its function's `variables` (or the module's `globals`, see
/// `VariableId::Global`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum VariableId {
    /// A module-scope variable: an index into `Module::globals`.
    Global(u32),
    /// A variable of the current function (register, parameter, local or shared variable).
    Local(u32),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LabelId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub u32);

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub version: IsaVersion,
    /// The `sm_NN` number of `.target` (`sm_90a` is 90 with `architecture_specific`).
    pub sm: Option<u32>,
    pub target_names: Vec<String>,
    /// 32 or 64: the size of addresses and of generic pointers.
    pub address_size: u32,
    pub globals: Vec<Variable>,
    pub functions: Vec<Function>,
}

impl Module {
    /// The kernels (`.entry` with a body) in source order.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|function| function.kind == FunctionKind::Entry && function.body.is_some())
    }

    pub fn function(&self, id: FunctionId) -> &Function {
        &self.functions[id.0 as usize]
    }
}

/// `.version major.minor`
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct IsaVersion {
    pub major: u32,
    pub minor: u32,
}

impl std::fmt::Display for IsaVersion {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}.{}", self.major, self.minor)
    }
}

/// A declared name: a register, parameter or variable in some state space.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// As written; a `Word`, so that the first use of each of a function's registers (the
    /// checker creates a register's variable then) allocates nothing for its name.
    pub name: Word,
    pub state_space: StateSpace,
    pub ty: ScalarType,
    /// `.v2`/`.v4` variables hold that many elements of `ty`.
    pub vector: Option<u32>,
    /// Total element count of an array variable (dimensions multiplied); `Some(0)` for an
    /// unsized `.extern` array such as dynamic shared memory.
    pub array_length: Option<u64>,
    pub align: Option<u32>,
    pub linkage: Option<Linkage>,
    /// The handle type of a module-scope `.tex` variable (`.texref`, `.samplerref`,
    /// `.surfref`; ISA 1.x's `.tex` variables are textures); `None` for every other variable.
    pub opaque: Option<OpaqueType>,
    /// Boxed: nearly every variable is a register, which has none, and a function's registers
    /// are most of the checked module's variables (two inline `Vec`s made each 40 bytes larger).
    pub initializer: Option<Box<Initializer>>,
    pub span: Span,
}

/// The initial value of a `.global` or `.const` variable (ISA 7.8 section 5.4.4).
#[derive(Clone, Debug, PartialEq)]
pub struct Initializer {
    /// Raw bytes of the initializer, little-endian; the bytes of stored addresses are zeros.
    pub bytes: Vec<u8>,
    /// The addresses that the initializer stores (`.global .u64 p = x;`), in byte order.
    pub addresses: Vec<AddressInitializer>,
}

/// An address stored by an initializer (ISA 7.8 section 5.4.4): `bytes` bytes at `offset` into
/// the variable hold the address of `target` plus `addend`, in `target`'s state space, or
/// generic for `generic(target)`.
#[derive(Clone, Debug, PartialEq)]
pub struct AddressInitializer {
    pub offset: u64,
    pub bytes: u32,
    pub target: AddressTarget,
    pub addend: i64,
    pub generic: bool,
    pub span: Span,
}

/// What a stored address points to: a variable, or a function (nvcc's tables of device
/// function pointers with `-rdc=true`: `.global .u64 table[2] = {f, g};`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum AddressTarget {
    Variable(VariableId),
    Function(FunctionId),
}

impl Variable {
    /// The initializer's bytes (stored addresses as zeros); `None` without an initializer.
    pub fn initializer_bytes(&self) -> Option<&[u8]> {
        self.initializer.as_deref().map(|initializer| initializer.bytes.as_slice())
    }

    /// The addresses that the initializer stores, in byte order (none without one).
    pub fn addresses(&self) -> &[AddressInitializer] {
        self.initializer.as_deref().map_or(&[], |initializer| initializer.addresses.as_slice())
    }

    /// Size in bytes of one element (vector elements included).
    pub fn element_bytes(&self) -> u64 {
        u64::from(self.ty.bytes()) * u64::from(self.vector.unwrap_or(1))
    }

    /// Size in bytes of the whole variable.
    pub fn size_bytes(&self) -> u64 {
        self.element_bytes() * self.array_length.unwrap_or(1).max(1)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub kind: FunctionKind,
    pub linkage: Option<Linkage>,
    /// Indices into `variables` of the parameters, in order.
    pub parameters: Vec<u32>,
    /// Indices into `variables` of the return parameters of a `.func`.
    pub return_parameters: Vec<u32>,
    /// Every variable of the function: parameters, registers, `.local` and `.shared` variables,
    /// from all nested scopes (scoping has been resolved).
    pub variables: Vec<Variable>,
    pub labels: Vec<Label>,
    /// `None` for a declaration without a body.
    pub body: Option<Vec<Statement>>,
    /// Whether the body reads `%laneid`, `%warpid`, `%nwarpid` or a `%lanemask_*` (`wmma.load`
    /// and `wmma.store` read `%laneid`): registers
    /// that, like the warp collectives, need the target to know which threads form a warp.
    pub reads_warp_registers: bool,
    /// The newest PTX ISA version among the special registers the body reads, where newer than
    /// 7.0 (`SpecialRegister::isa_version`).
    pub special_register_isa: Option<(u32, u32)>,
    /// Every special register the body reads as an operand, for the targets that must pass
    /// some of them to the kernel (SPIR-V's launch arguments).
    pub special_registers: std::collections::BTreeSet<crate::vocabulary::SpecialRegister>,
    pub span: Span,
}

impl Function {
    pub fn variable(&self, index: u32) -> &Variable {
        &self.variables[index as usize]
    }

    pub fn parameter_variables(&self) -> impl Iterator<Item = &Variable> {
        self.parameters.iter().map(|&index| self.variable(index))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// As written (a `Word`: most labels are short, so they take no allocation).
    pub name: Word,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
// Nearly every statement is an instruction, so boxing the large variant would only add an
// allocation per instruction.
#[allow(clippy::large_enum_variant)]
pub enum Statement {
    Label(LabelId),
    Instruction(GuardedInstruction),
}
