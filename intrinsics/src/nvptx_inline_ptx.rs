//! NVPTX: a PTX instruction that changes memory but writes no register, written as inline
//! assembly. For the instructions that LLVM 22 has no intrinsic for, or whose intrinsics need
//! a newer PTX ISA than the module asks for (the bulk copies, the tensor-map instructions).

use inkwell::values::BasicMetadataValueEnum;

use crate::{Site, Unsupported};

/// Calls `text`, whose `$0`, `$1`, ... are `arguments` (integers: `.b16` `h`, `.b32` `r`,
/// `.b64` `l`), as a `void` inline-assembly statement that clobbers memory.
pub fn statement<'ctx>(
    site: &Site<'_, 'ctx>,
    text: &str,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<(), Unsupported> {
    let failed = |what: String| Unsupported { what: format!("`{text}` ({what})") };
    let mut constraints = Vec::new();
    let mut parameter_types = Vec::new();
    for argument in arguments {
        let BasicMetadataValueEnum::IntValue(value) = argument else {
            return Err(failed("a non-integer operand".into()));
        };
        constraints.push(match value.get_type().get_bit_width() {
            16 => "h",
            32 => "r",
            64 => "l",
            width => return Err(failed(format!("an operand of {width} bits"))),
        });
        parameter_types.push(value.get_type().into());
    }
    constraints.push("~{memory}");
    let function_type = site.context.void_type().fn_type(&parameter_types, false);
    let assembly = site.context.create_inline_asm(
        function_type,
        text.to_string(),
        constraints.join(","),
        true,
        false,
        None,
        false,
    );
    site.builder
        .build_indirect_call(function_type, assembly, arguments, "")
        .map_err(|error| failed(error.to_string()))?;
    Ok(())
}
