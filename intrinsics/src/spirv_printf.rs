//! CUDA's `vprintf` on SPIR-V: OpenCL's `printf` (the OpenCL.std extended instruction, which
//! LLVM's SPIR-V backend emits for a variadic call of `printf` whose format is in the constant
//! address space). The format and the arguments come from `printf_arguments.rs`, and `%s`
//! strings are written into the format (`printf_strings.rs`), both shared with AMDGPU; this
//! module places the format and makes the call.

use inkwell::values::{BasicMetadataValueEnum, IntValue, PointerValue};
use inkwell::AddressSpace;

use crate::printf_arguments::{call_printf, constant_global, prepare};
use crate::{DeviceFunctionCall, Site, Unsupported};

/// LLVM's `spir_func` calling convention.
const SPIR_FUNC: u32 = 75;
/// OpenCL's constant (UniformConstant) and generic address spaces on `spirv64`.
const CONSTANT_ADDRESS_SPACE: u16 = 2;
const GENERIC_ADDRESS_SPACE: u16 = 4;

/// `text` and a NUL as a constant-address-space global; the result points at its first byte.
fn constant_string<'ctx>(site: &Site<'_, 'ctx>, text: &[u8], name: &str) -> PointerValue<'ctx> {
    let context = site.context;
    // The OpenCL.std printf instruction wants its format as a pointer to 8-bit integers, while
    // LLVM's SPIR-V backend types a global's address by the global's type (`[N x i8]`) and LLVM
    // folds a zero-offset `i8` GEP back into the global. So the text starts one byte into its
    // global and is passed as that `i8` GEP, which stays.
    let padded: Vec<u8> = std::iter::once(0).chain(text.iter().copied()).collect();
    let global = constant_global(site, &padded, AddressSpace::from(CONSTANT_ADDRESS_SPACE), name);
    let one = context.i64_type().const_int(1, false);
    // SAFETY: byte 1 of a global of at least two bytes.
    unsafe { global.as_pointer_value().const_in_bounds_gep(context.i8_type(), &[one]) }
}

/// Lowers one `vprintf` call to OpenCL's `printf`; the result is CUDA's, an `i32`.
pub fn call<'ctx>(site: &Site<'_, 'ctx>, call: &DeviceFunctionCall<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let generic = AddressSpace::from(GENERIC_ADDRESS_SPACE);
    let prepared = prepare(site, call, generic)?;
    // OpenCL says 0 on success; Intel's CPU runtime returns the number of characters printed,
    // as C does. Either way only a negative status is a failure (`vprintf_result`).
    let print = |text: &[u8], arguments: Vec<BasicMetadataValueEnum<'ctx>>| {
        let mut values = vec![constant_string(site, text, "printf_format").into()];
        values.extend(arguments);
        call_printf(site, AddressSpace::from(CONSTANT_ADDRESS_SPACE), &values, SPIR_FUNC)
    };
    crate::printf_strings::lower(site, &prepared, generic, &print)
}
