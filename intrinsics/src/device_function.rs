//! CUDA's device library as PTX calls it: `.extern .func`s named `vprintf`, `malloc`, `free`
//! and `__assertfail` (ptx-abi.md section 4.3). Lowering recognises a call of such a
//! declaration and hands its operands to [`crate::Target::device_function`]; on NVPTX the
//! declaration is called as written (the CUDA driver provides it), the CPU calls ptxr's runtime,
//! SPIR-V and AMDGPU print through OpenCL-style printf and stop the thread, and allocate from
//! a heap the module brings (`device_heap.rs`); what a target cannot do it reports.

use inkwell::values::IntValue;

/// Which function of the device library, by its PTX name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceFunction {
    Printf,
    Malloc,
    Free,
    AssertFail,
}

impl DeviceFunction {
    /// The function that an `.extern .func` named `name` with `arguments` parameters and
    /// `results` return parameters is, if it has the shape ptx-abi.md gives it.
    pub fn from_declaration(name: &str, arguments: usize, results: usize) -> Option<DeviceFunction> {
        match (name, arguments, results) {
            ("vprintf", 2, 1) => Some(DeviceFunction::Printf),
            ("malloc", 1, 1) => Some(DeviceFunction::Malloc),
            ("free", 1, 0) => Some(DeviceFunction::Free),
            ("__assertfail", 5, 0) => Some(DeviceFunction::AssertFail),
            _ => None,
        }
    }

    /// The PTX name.
    pub fn name(self) -> &'static str {
        match self {
            DeviceFunction::Printf => "vprintf",
            DeviceFunction::Malloc => "malloc",
            DeviceFunction::Free => "free",
            DeviceFunction::AssertFail => "__assertfail",
        }
    }

    /// Whether the call stops the thread, as `trap` does.
    pub fn stops_thread(self) -> bool {
        self == DeviceFunction::AssertFail
    }
}

/// One call: the function and its arguments as integers in the declaration's order, addresses
/// being generic addresses of `pointer_bits` bits (the module's address size).
pub struct DeviceFunctionCall<'ctx> {
    pub function: DeviceFunction,
    pub arguments: Vec<IntValue<'ctx>>,
    pub pointer_bits: u32,
    /// For `vprintf`: the format string's bytes (without the NUL) when lowering could trace the
    /// format argument to a `.global` array's initializer, for targets whose printf needs the
    /// format at compile time.
    pub format: Option<Vec<u8>>,
    /// For `vprintf`: the string constants that the function stores into the argument buffer,
    /// by byte offset, where lowering could trace that slot's one store to them (for `%s`): one
    /// string, or several where the address stored is chosen at run time among constants
    /// (`selp`).
    pub argument_strings: Vec<(u64, Vec<StringConstant<'ctx>>)>,
    /// For `vprintf`: string constants of the module that a `%s` argument lowering could not
    /// trace may address (a bounded number, `%s` of any other address being printed from memory).
    pub module_strings: Vec<StringConstant<'ctx>>,
    /// For `__assertfail`: the string constant (without its NUL) that each argument addresses,
    /// by argument index, where lowering could trace it, for targets that print the message
    /// with a printf that needs its strings at compile time.
    pub strings: Vec<Option<Vec<u8>>>,
}

/// A string constant of the module: its generic address, as an integer of the module's address
/// size, and its bytes without the NUL.
#[derive(Clone, Debug)]
pub struct StringConstant<'ctx> {
    pub address: IntValue<'ctx>,
    pub text: Vec<u8>,
}

/// How the target lowered a call.
pub enum DeviceFunctionLowering<'ctx> {
    /// Call the `.extern .func` declaration itself: the target's own library defines it.
    CallDeclaration,
    /// Lowered in place; the result (for `vprintf` and `malloc`), as an integer.
    Lowered(Option<IntValue<'ctx>>),
}
