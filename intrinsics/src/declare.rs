//! Helpers shared by the target modules: calling LLVM intrinsics and external builtins by name.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};

use crate::{Site, Unsupported};

/// Calls the overload-free LLVM intrinsic `name` and returns its integer result.
pub fn call_intrinsic<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    overloads: &[BasicTypeEnum<'ctx>],
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    let unsupported = || Unsupported { what: format!("the LLVM intrinsic {name}") };
    let intrinsic = inkwell::intrinsics::Intrinsic::find(name).ok_or_else(unsupported)?;
    let declaration = intrinsic.get_declaration(site.module, overloads).ok_or_else(unsupported)?;
    let call = site.builder.build_call(declaration, arguments, "").map_err(|_| unsupported())?;
    call.try_as_basic_value().basic().ok_or_else(unsupported)
}

/// Zero-extends or truncates an integer to 32 bits, the width of most special registers.
pub fn to_i32<'ctx>(site: &Site<'_, 'ctx>, value: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let width = value.get_type().get_bit_width();
    let converted = if width > 32 {
        site.builder.build_int_truncate(value, i32_type, "")
    } else if width < 32 {
        site.builder.build_int_z_extend(value, i32_type, "")
    } else {
        return Ok(value);
    };
    converted.map_err(|error| Unsupported { what: format!("an integer conversion ({error})") })
}

/// Calls the overload-free LLVM intrinsic `name`; returns its integer result, if it has one.
pub fn call_intrinsic_or_void<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    let unsupported = || Unsupported { what: format!("the LLVM intrinsic {name}") };
    let intrinsic = inkwell::intrinsics::Intrinsic::find(name).ok_or_else(unsupported)?;
    let declaration = intrinsic.get_declaration(site.module, &[]).ok_or_else(unsupported)?;
    let call = site.builder.build_call(declaration, arguments, "").map_err(|_| unsupported())?;
    Ok(call.try_as_basic_value().basic().map(|value| value.into_int_value()))
}

/// Calls the external function `name` (a runtime helper or an OpenCL builtin), declaring it
/// with `function_type` on first use; returns its result, if it has one.
pub fn call_function<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    function_type: inkwell::types::FunctionType<'ctx>,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<Option<BasicValueEnum<'ctx>>, Unsupported> {
    let function = crate::function_or_declare(site.module, name, || function_type);
    let call = site
        .builder
        .build_call(function, arguments, "")
        .map_err(|error| Unsupported { what: format!("a call to {name} ({error})") })?;
    Ok(call.try_as_basic_value().basic())
}

/// Marks `function` `convergent`: every thread that takes part must reach the same call, so
/// LLVM may not duplicate its calls into several branches (jump threading did that to OpenCL's
/// `barrier` after an `if (tid < stride)`, and Intel's runtime, which matches barriers by
/// program point, then left the block's reduction at zero) nor make them depend on more
/// conditions. Barriers, work-group and sub-group collectives, and on the targets that say so
/// every lowered function (a `.func` may wait inside), as clang marks GPU code.
pub fn mark_convergent(function: FunctionValue<'_>) {
    let context = function.get_type().get_context();
    let kind = Attribute::get_named_enum_kind_id("convergent");
    function.add_attribute(AttributeLoc::Function, context.create_enum_attribute(kind, 0));
}
