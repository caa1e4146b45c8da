//! CUDA's `vprintf` on SPIR-V: OpenCL's `printf` (the OpenCL.std extended instruction, which
//! LLVM's SPIR-V backend emits for a variadic call of `printf` whose format is in the constant
//! address space). OpenCL needs the format at compile time and the arguments as values, where
//! CUDA passes a format address and a packed buffer; so the format must be one that lowering
//! traced to a `.global` string constant (`DeviceFunctionCall::format`). Parsing it decides what
//! each conversion reads from the buffer, by C's default argument promotions as nvcc packs them
//! (ptx-abi.md section 4.3): `%d %i %u %x %X %o %c` an `int` (a 64-bit integer with `l`, `ll`,
//! `j`, `z` or `t`), every floating conversion a `double`, `%p` and `%s` an address of the
//! module's width, each aligned to its own size. The format is copied into the constant address
//! space with the 64-bit length modifiers spelled `l`, the only one OpenCL C has.
//!
//! OpenCL's `%s` takes only a string constant, where CUDA's buffer holds a run-time address: a
//! `%s` works when lowering traced the one store of that buffer slot to a `.global` string
//! (`DeviceFunctionCall::argument_strings`), which is copied into the constant address space
//! too. Other `%s` arguments, `*` widths and precisions, `%n` and `L` are reported.
//!
//! The result: CUDA's `vprintf` returns the number of arguments read; OpenCL's `printf` returns
//! 0 on success and -1 on failure (Intel's CPU runtime returns the count of characters printed,
//! as C's does), so a negative status stays -1 and any other becomes the argument count.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};

use crate::{function_or_declare, DeviceFunctionCall, Site, Unsupported};

/// LLVM's `spir_func` calling convention.
const SPIR_FUNC: u32 = 75;
/// OpenCL's constant (UniformConstant) and generic address spaces on `spirv64`.
const CONSTANT_ADDRESS_SPACE: u16 = 2;
const GENERIC_ADDRESS_SPACE: u16 = 4;

/// What one conversion reads from the argument buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Argument {
    Int,
    Long,
    Double,
    /// `%p`: an address of the module's width.
    Pointer,
    /// `%s`: an address of the module's width, of a string constant.
    String,
}

impl Argument {
    fn bytes(self, pointer_bits: u32) -> u64 {
        match self {
            Argument::Int => 4,
            Argument::Long | Argument::Double => 8,
            Argument::Pointer | Argument::String => u64::from(pointer_bits / 8),
        }
    }
}

/// A format string made ready for OpenCL: the text to print and the arguments it reads.
#[derive(Debug, PartialEq, Eq)]
struct OpenClFormat {
    text: Vec<u8>,
    arguments: Vec<Argument>,
}

fn unsupported(what: &str) -> Unsupported {
    Unsupported { what: format!("`vprintf` with {what}") }
}

/// Parses CUDA's format into OpenCL's, or says which conversion OpenCL cannot take.
fn parse(format: &[u8]) -> Result<OpenClFormat, Unsupported> {
    let mut text = Vec::with_capacity(format.len());
    let mut arguments = Vec::new();
    let mut position = 0;
    while position < format.len() {
        let byte = format[position];
        position += 1;
        text.push(byte);
        if byte != b'%' {
            continue;
        }
        while let Some(&flag @ (b'-' | b'+' | b' ' | b'#' | b'0')) = format.get(position) {
            text.push(flag);
            position += 1;
        }
        let digits = |position: &mut usize, text: &mut Vec<u8>| {
            while let Some(&digit @ b'0'..=b'9') = format.get(*position) {
                text.push(digit);
                *position += 1;
            }
        };
        if format.get(position) == Some(&b'*') {
            return Err(unsupported("a `*` field width (OpenCL's printf has none)"));
        }
        digits(&mut position, &mut text);
        if format.get(position) == Some(&b'.') {
            text.push(b'.');
            position += 1;
            if format.get(position) == Some(&b'*') {
                return Err(unsupported("a `*` precision (OpenCL's printf has none)"));
            }
            digits(&mut position, &mut text);
        }
        let length_start = position;
        while let Some(b'h' | b'l' | b'j' | b'z' | b't' | b'L') = format.get(position) {
            position += 1;
        }
        let length = &format[length_start..position];
        let Some(&conversion) = format.get(position) else {
            return Err(unsupported("an incomplete conversion at the end of its format"));
        };
        position += 1;
        let wide = matches!(length, b"l" | b"ll" | b"j" | b"z" | b"t");
        let argument = match conversion {
            b'%' if length.is_empty() => None,
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' if wide => Some(Argument::Long),
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' if matches!(length, b"" | b"h" | b"hh") => {
                Some(Argument::Int)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' if length.is_empty() || length == b"l" => {
                Some(Argument::Double)
            }
            b'p' if length.is_empty() => Some(Argument::Pointer),
            b's' if length.is_empty() => Some(Argument::String),
            _ => {
                let spelling = String::from_utf8_lossy(&format[length_start..position]);
                return Err(unsupported(&format!("the conversion `%{spelling}`")));
            }
        };
        match argument {
            // OpenCL C's only 64-bit integer length is `l`; `%lf` is `%f`.
            Some(Argument::Long) => text.push(b'l'),
            Some(Argument::Int) => text.extend_from_slice(length),
            _ => {}
        }
        text.push(conversion);
        arguments.extend(argument);
    }
    Ok(OpenClFormat { text, arguments })
}

fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("`vprintf` (an LLVM builder operation failed: {error})") }
}

/// The byte offset of argument `position` in the packed buffer.
fn offset_of(arguments: &[Argument], position: usize, pointer_bits: u32) -> u64 {
    let mut offset = 0;
    for (index, argument) in arguments.iter().enumerate() {
        let bytes = argument.bytes(pointer_bits);
        offset = u64::next_multiple_of(offset, bytes);
        if index == position {
            break;
        }
        offset += bytes;
    }
    offset
}

/// The traced string constant that `%s` argument `position` reads.
fn string_argument<'a>(call: &'a DeviceFunctionCall<'_>, arguments: &[Argument], position: usize) -> Option<&'a [u8]> {
    let offset = offset_of(arguments, position, call.pointer_bits);
    call.argument_strings.iter().find(|(at, _)| *at == offset).map(|(_, text)| text.as_slice())
}

/// `text` and a NUL as a constant-address-space global; the result points at its first byte.
fn constant_string<'ctx>(site: &Site<'_, 'ctx>, text: &[u8], name: &str) -> PointerValue<'ctx> {
    let context = site.context;
    // The OpenCL.std printf instruction wants its format as a pointer to 8-bit integers, while
    // LLVM's SPIR-V backend types a global's address by the global's type (`[N x i8]`) and LLVM
    // folds a zero-offset `i8` GEP back into the global. So the text starts one byte into its
    // global and is passed as that `i8` GEP, which stays.
    let padded: Vec<u8> = std::iter::once(0).chain(text.iter().copied()).collect();
    let bytes = context.const_string(&padded, true);
    let global = site.module.add_global(bytes.get_type(), Some(AddressSpace::from(CONSTANT_ADDRESS_SPACE)), name);
    global.set_initializer(&bytes);
    global.set_constant(true);
    global.set_linkage(inkwell::module::Linkage::Private);
    global.set_unnamed_addr(true);
    let one = context.i64_type().const_int(1, false);
    // SAFETY: byte 1 of a global of at least two bytes.
    unsafe { global.as_pointer_value().const_in_bounds_gep(context.i8_type(), &[one]) }
}

/// Lowers one `vprintf` call to OpenCL's `printf`; the result is CUDA's, an `i32`.
pub fn call<'ctx>(site: &Site<'_, 'ctx>, call: &DeviceFunctionCall<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let format =
        call.format.as_deref().ok_or_else(|| unsupported("a format string that is not a constant .global array"))?;
    let OpenClFormat { text, arguments } = parse(format)?;
    let [_, buffer] = call.arguments[..] else {
        return Err(unsupported("other than a format and an argument buffer"));
    };
    let context = site.context;
    let builder = site.builder;
    let constant = AddressSpace::from(CONSTANT_ADDRESS_SPACE);
    // Checked before any code is built, so that an unsupported call leaves nothing behind.
    for (position, _) in arguments.iter().enumerate().filter(|(_, argument)| **argument == Argument::String) {
        if string_argument(call, &arguments, position).is_none() {
            return Err(unsupported(
                "`%s` of an argument that is not a string constant stored once (OpenCL's printf takes only constants)",
            ));
        }
    }
    let generic = context.ptr_type(AddressSpace::from(GENERIC_ADDRESS_SPACE));

    // The OpenCL.std printf instruction wants its format as a pointer to 8-bit integers, while
    // LLVM's SPIR-V backend types a global's address by the global's type (`[N x i8]`) and LLVM
    // folds a zero-offset `i8` GEP back into the global. So the format starts one byte into
    // its global and is passed as that `i8` GEP, which stays.
    let format = constant_string(site, &text, "printf_format");
    let mut values: Vec<BasicMetadataValueEnum<'ctx>> = vec![format.into()];
    let buffer = builder.build_int_to_ptr(buffer, generic, "printf_arguments").map_err(llvm_error)?;
    let mut offset = 0u64;
    for (position, argument) in arguments.iter().enumerate() {
        let bytes = argument.bytes(call.pointer_bits);
        offset = offset.next_multiple_of(bytes);
        if *argument == Argument::String {
            let text = string_argument(call, &arguments, position)
                .ok_or_else(|| unsupported("`%s` of an argument that is not a string constant"))?;
            values.push(constant_string(site, text, "printf_string").into());
            offset += bytes;
            continue;
        }
        let ty: BasicTypeEnum<'ctx> = match argument {
            Argument::Int => context.i32_type().into(),
            Argument::Long => context.i64_type().into(),
            Argument::Double => context.f64_type().into(),
            Argument::Pointer | Argument::String if call.pointer_bits == 32 => context.i32_type().into(),
            Argument::Pointer | Argument::String => context.i64_type().into(),
        };
        let index = context.i64_type().const_int(offset, false);
        // SAFETY: an in-bounds byte offset into the buffer the format describes; a buffer
        // shorter than its format is the kernel's bug, as in C.
        let address =
            unsafe { builder.build_in_bounds_gep(context.i8_type(), buffer, &[index], "") }.map_err(llvm_error)?;
        let load = builder.build_load(ty, address, "").map_err(llvm_error)?;
        if let Some(instruction) = load.as_instruction_value() {
            instruction.set_alignment(bytes as u32).map_err(llvm_error)?;
        }
        let value = match argument {
            Argument::Pointer => {
                builder.build_int_to_ptr(load.into_int_value(), generic, "").map_err(llvm_error)?.into()
            }
            _ => load.into(),
        };
        values.push(value);
        offset += bytes;
    }

    let i32_type = context.i32_type();
    let printf =
        function_or_declare(site.module, "printf", || i32_type.fn_type(&[context.ptr_type(constant).into()], true));
    printf.set_call_conventions(SPIR_FUNC);
    let status = builder.build_call(printf, &values, "").map_err(llvm_error)?;
    status.set_call_convention(SPIR_FUNC);
    let status =
        status.try_as_basic_value().basic().ok_or_else(|| llvm_error("printf returned nothing"))?.into_int_value();
    // OpenCL says 0 on success; Intel's CPU runtime returns the number of characters printed,
    // as C does. Either way only a negative status is a failure.
    let failed = builder.build_int_compare(IntPredicate::SLT, status, i32_type.const_zero(), "").map_err(llvm_error)?;
    let count = i32_type.const_int(arguments.len() as u64, false);
    builder
        .build_select(failed, i32_type.const_all_ones(), count, "")
        .map_err(llvm_error)
        .map(|value| value.into_int_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(format: &str) -> (String, Vec<Argument>) {
        let OpenClFormat { text, arguments } =
            parse(format.as_bytes()).unwrap_or_else(|error| panic!("{format}: {}", error.what));
        (String::from_utf8_lossy(&text).into_owned(), arguments)
    }

    #[test]
    fn conversions_read_promoted_arguments_and_64_bit_lengths_become_l() {
        use Argument::*;
        assert_eq!(
            parsed("%d %5u %#x %-8.3f %lld %llx %zu %c %% %hhd %p %lf %-6s\n"),
            (
                "%d %5u %#x %-8.3f %ld %lx %lu %c %% %hhd %p %f %-6s\n".to_string(),
                vec![Int, Int, Int, Double, Long, Long, Long, Int, Int, Pointer, Double, String]
            )
        );
        assert_eq!(parsed("no conversions"), ("no conversions".to_string(), vec![]));
    }

    #[test]
    fn conversions_opencl_lacks_are_named() {
        for (format, named) in [
            ("%*d", "`*` field width"),
            ("%.*f", "`*` precision"),
            ("%n", "`%n`"),
            ("%Lf", "`%Lf`"),
            ("%ls", "`%ls`"),
            ("100%", "incomplete"),
        ] {
            let Err(error) = parse(format.as_bytes()) else { panic!("{format} was accepted") };
            assert!(error.what.contains(named), "{format}: {}", error.what);
        }
    }
}
