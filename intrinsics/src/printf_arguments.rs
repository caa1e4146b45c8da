//! CUDA's `vprintf` for the targets whose printf is OpenCL's (SPIR-V, `spirv_printf.rs`; AMDGPU,
//! `amdgpu_printf.rs`): a variadic `printf` that takes its format at compile time and its
//! arguments as values, where CUDA passes a format address and a packed buffer. So the format
//! must be one that lowering traced to a `.global` or `.const` string constant
//! (`DeviceFunctionCall::format`). Parsing it decides what each conversion reads from the
//! buffer, by C's default argument promotions as nvcc packs them (ptx-abi.md section 4.3):
//! `%d %i %u %x %X %o %c` an `int` (a 64-bit integer with `l`, `ll`, `j`, `z` or `t`), every
//! floating conversion a `double`, `%p` and `%s` an address of the module's width, each aligned
//! to its own size. The format is rewritten with the 64-bit length modifiers spelled `l`, the
//! only one OpenCL C has.
//!
//! OpenCL's `%s` takes only a string constant, where CUDA's buffer holds a run-time address: a
//! `%s` whose buffer slot lowering traced to one `.global` or `.const` string
//! (`DeviceFunctionCall::argument_strings`) is written into the format; any other is read from
//! the buffer and printed by `printf_strings.rs`. `*` widths and precisions, `%n` and `L` are
//! reported.
//!
//! The result: CUDA's `vprintf` returns the number of arguments read; OpenCL's `printf` returns
//! 0 on success and -1 on failure (Intel's CPU runtime returns the count of characters printed,
//! as C's does), so a negative status stays -1 and any other becomes the argument count.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValue, IntValue};
use inkwell::{AddressSpace, IntPredicate};

use crate::{DeviceFunctionCall, Site, StringConstant, Unsupported};

/// What one conversion reads from the argument buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argument {
    Int,
    Long,
    Double,
    /// `%p`: an address of the module's width.
    Pointer,
    /// `%s`: an address of the module's width, of a string constant.
    String,
}

impl Argument {
    pub fn bytes(self, pointer_bits: u32) -> u64 {
        match self {
            Argument::Int => 4,
            Argument::Long | Argument::Double => 8,
            Argument::Pointer | Argument::String => u64::from(pointer_bits / 8),
        }
    }
}

/// A format string made ready for OpenCL: the text to print and the arguments it reads.
#[derive(Debug, PartialEq, Eq)]
pub struct OpenClFormat {
    pub text: Vec<u8>,
    pub arguments: Vec<Argument>,
    /// Where each argument's conversion (from `%` to its letter) is in `text`.
    pub conversions: Vec<std::ops::Range<usize>>,
}

pub fn unsupported(what: &str) -> Unsupported {
    Unsupported { what: format!("`vprintf` with {what}") }
}

/// Parses CUDA's format into OpenCL's, or says which conversion OpenCL cannot take.
pub fn parse(format: &[u8]) -> Result<OpenClFormat, Unsupported> {
    let mut text = Vec::with_capacity(format.len());
    let mut arguments = Vec::new();
    let mut conversions = Vec::new();
    let mut position = 0;
    while position < format.len() {
        let byte = format[position];
        position += 1;
        let conversion_start = text.len();
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
        if argument.is_some() {
            conversions.push(conversion_start..text.len());
        }
        arguments.extend(argument);
    }
    Ok(OpenClFormat { text, arguments, conversions })
}

pub fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
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

/// The traced string constants that `%s` argument `position` may read.
fn string_argument<'a, 'ctx>(
    call: &'a DeviceFunctionCall<'ctx>,
    arguments: &[Argument],
    position: usize,
) -> Option<&'a [StringConstant<'ctx>]> {
    let offset = offset_of(arguments, position, call.pointer_bits);
    call.argument_strings.iter().find(|(at, _)| *at == offset).map(|(_, strings)| strings.as_slice())
}

/// `text` with every `%` doubled, to stand in a format as itself.
pub fn escape_percent(text: &[u8]) -> Vec<u8> {
    text.iter().flat_map(|&byte| if byte == b'%' { vec![b'%', b'%'] } else { vec![byte] }).collect()
}

/// The flags, width and precision of a `%s` conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StringField {
    /// `-`: padded on the right.
    pub left: bool,
    pub width: usize,
    pub precision: Option<usize>,
}

impl StringField {
    /// Reads `conversion` (`%`, flags, width, precision, `s`).
    pub fn of(conversion: &[u8]) -> StringField {
        let inner = &conversion[1..conversion.len() - 1];
        let flags_end =
            inner.iter().position(|byte| !matches!(byte, b'-' | b'+' | b' ' | b'#' | b'0')).unwrap_or(inner.len());
        let left = inner[..flags_end].contains(&b'-');
        let number = |digits: &[u8]| {
            digits
                .iter()
                .take_while(|byte| byte.is_ascii_digit())
                .fold(0usize, |value, digit| value.saturating_mul(10).saturating_add(usize::from(digit - b'0')))
        };
        let width = number(&inner[flags_end..]);
        let precision = inner.iter().position(|&byte| byte == b'.').map(|dot| number(&inner[dot + 1..]));
        StringField { left, width, precision }
    }
}

/// `string` as the `%s` conversion `conversion` (`%`, flags, width, precision, `s`) prints it,
/// ready to stand in the format in its place.
pub fn format_string(conversion: &[u8], string: &[u8]) -> Vec<u8> {
    let StringField { left, width, precision } = StringField::of(conversion);
    let shown = &string[..precision.map_or(string.len(), |precision| precision.min(string.len()))];
    let padding = vec![b' '; width.saturating_sub(shown.len())];
    let text: Vec<u8> = if left { [shown, &padding].concat() } else { [&padding[..], shown].concat() };
    escape_percent(&text)
}

/// What a `%s` conversion prints.
pub enum StringArgument<'ctx> {
    /// The one string constant lowering traced.
    Constant(Vec<u8>),
    /// The address read from the buffer at run time, and the string constants it is compared
    /// with; `exact` when lowering traced it to one of them, otherwise it may be null or any
    /// other string in memory.
    RunTime { address: IntValue<'ctx>, choices: Vec<StringConstant<'ctx>>, exact: bool },
}

/// A `vprintf` call made ready for a target's OpenCL-style `printf`: the format's text, the
/// argument values read from CUDA's buffer, and what each `%s` prints.
pub struct PrintfCall<'ctx> {
    pub text: Vec<u8>,
    /// Where each argument's conversion (from `%` to its letter) is in `text`.
    pub conversions: Vec<std::ops::Range<usize>>,
    /// Each argument's value, or `None` for a `%s`.
    pub values: Vec<Option<BasicMetadataValueEnum<'ctx>>>,
    /// What each `%s` argument prints (`None` for the others).
    pub strings: Vec<Option<StringArgument<'ctx>>>,
}

impl PrintfCall<'_> {
    /// How many arguments the format reads from CUDA's buffer (what `vprintf` returns).
    pub fn count(&self) -> usize {
        self.values.len()
    }
}

/// Parses the traced format and reads every argument from the packed buffer. `generic` is the
/// address space of `%p` pointers and of the strings `%s` reads at run time. Nothing is built
/// when the call is unsupported.
pub fn prepare<'ctx>(
    site: &Site<'_, 'ctx>,
    call: &DeviceFunctionCall<'ctx>,
    generic: AddressSpace,
) -> Result<PrintfCall<'ctx>, Unsupported> {
    let format = call
        .format
        .as_deref()
        .ok_or_else(|| unsupported("a format string that is not a constant .global or .const array"))?;
    let OpenClFormat { text, arguments, conversions } = parse(format)?;
    let [_, buffer] = call.arguments[..] else {
        return Err(unsupported("other than a format and an argument buffer"));
    };
    let context = site.context;
    let builder = site.builder;
    let pointer = context.ptr_type(generic);
    let buffer = builder.build_int_to_ptr(buffer, pointer, "printf_arguments").map_err(llvm_error)?;
    let mut values = Vec::new();
    let mut strings = Vec::new();
    let mut offset = 0u64;
    for (position, argument) in arguments.iter().enumerate() {
        let bytes = argument.bytes(call.pointer_bits);
        offset = offset.next_multiple_of(bytes);
        let traced = string_argument(call, &arguments, position);
        if let (Argument::String, Some([constant])) = (argument, traced) {
            values.push(None);
            strings.push(Some(StringArgument::Constant(constant.text.clone())));
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
        match argument {
            Argument::Pointer => {
                let value = builder.build_int_to_ptr(load.into_int_value(), pointer, "").map_err(llvm_error)?;
                values.push(Some(value.into()));
                strings.push(None);
            }
            Argument::String => {
                let (choices, exact) = match traced {
                    Some(choices) => (choices.to_vec(), true),
                    None => (call.module_strings.clone(), false),
                };
                values.push(None);
                strings.push(Some(StringArgument::RunTime { address: load.into_int_value(), choices, exact }));
            }
            _ => {
                values.push(Some(load.into()));
                strings.push(None);
            }
        }
        offset += bytes;
    }
    Ok(PrintfCall { text, conversions, values, strings })
}

/// `bytes` as a private, unnamed-address constant global in `address_space`.
pub fn constant_global<'ctx>(
    site: &Site<'_, 'ctx>,
    bytes: &[u8],
    address_space: AddressSpace,
    name: &str,
) -> inkwell::values::GlobalValue<'ctx> {
    let bytes = site.context.const_string(bytes, true);
    let global = site.module.add_global(bytes.get_type(), Some(address_space), name);
    global.set_initializer(&bytes);
    global.set_constant(true);
    global.set_linkage(inkwell::module::Linkage::Private);
    global.set_unnamed_addr(true);
    global
}

/// Calls the variadic OpenCL `printf` (declared taking its format in `constant`) with `values`,
/// the format first, under `calling_convention`; returns its `i32` status.
pub fn call_printf<'ctx>(
    site: &Site<'_, 'ctx>,
    constant: AddressSpace,
    values: &[BasicMetadataValueEnum<'ctx>],
    calling_convention: u32,
) -> Result<IntValue<'ctx>, Unsupported> {
    let context = site.context;
    let i32_type = context.i32_type();
    let printf = crate::function_or_declare(site.module, "printf", || {
        i32_type.fn_type(&[context.ptr_type(constant).into()], true)
    });
    printf.set_call_conventions(calling_convention);
    let status = site.builder.build_call(printf, values, "").map_err(llvm_error)?;
    status.set_call_convention(calling_convention);
    Ok(status.try_as_basic_value().basic().ok_or_else(|| llvm_error("printf returned nothing"))?.into_int_value())
}

/// CUDA's result from OpenCL's `printf` status: -1 when it failed (negative), otherwise the
/// number of arguments (`count`).
pub fn vprintf_result<'ctx>(
    site: &Site<'_, 'ctx>,
    status: IntValue<'ctx>,
    count: usize,
) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let builder = site.builder;
    let failed = builder.build_int_compare(IntPredicate::SLT, status, i32_type.const_zero(), "").map_err(llvm_error)?;
    let count = i32_type.const_int(count as u64, false);
    builder
        .build_select(failed, i32_type.const_all_ones(), count, "")
        .map_err(llvm_error)
        .map(|value| value.into_int_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(format: &str) -> (String, Vec<Argument>) {
        let OpenClFormat { text, arguments, .. } =
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
    fn strings_written_into_the_format_keep_their_width_precision_and_percent_signs() {
        for (conversion, string, expected) in [
            ("%s", "word", "word"),
            ("%6s", "word", "  word"),
            ("%-6s", "word", "word  "),
            ("%.2s", "word", "wo"),
            ("%-5.3s", "word", "wor  "),
            ("%s", "100%", "100%%"),
            ("%3s", "", "   "),
        ] {
            let formatted = format_string(conversion.as_bytes(), string.as_bytes());
            assert_eq!(String::from_utf8_lossy(&formatted), expected, "{conversion} of {string:?}");
        }
    }

    #[test]
    fn string_fields_read_flags_width_and_precision() {
        for (conversion, left, width, precision) in [
            ("%s", false, 0, None),
            ("%-12s", true, 12, None),
            ("%0-3.7s", true, 3, Some(7)),
            ("%.s", false, 0, Some(0)),
            ("%8.0s", false, 8, Some(0)),
        ] {
            assert_eq!(StringField::of(conversion.as_bytes()), StringField { left, width, precision }, "{conversion}");
        }
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
