//! CUDA's device library on the CPU: calls of `vprintf`, `malloc`, `free` and `__assertfail`
//! become calls of ptxr's runtime functions (`ptxr_runtime::device_library`), which format the
//! text, manage the launch's heap and record the failed assertion that stops the launch.

use inkwell::values::{BasicMetadataValueEnum, IntValue};
use inkwell::IntPredicate;
use ptxr_runtime::abi::runtime_function;

use crate::cpu::THREAD_ID_PARAMETER;
use crate::declare::call_function;
use crate::{DeviceFunction, DeviceFunctionCall, DeviceFunctionLowering, Site, Unsupported};

fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("an LLVM builder operation ({error})") }
}

/// An integer argument zero-extended (or truncated) to 64 bits: addresses and sizes of 32-bit
/// modules are unsigned.
fn to_u64<'ctx>(site: &Site<'_, 'ctx>, value: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let i64_type = site.context.i64_type();
    if value.get_type().get_bit_width() > 64 {
        site.builder.build_int_truncate(value, i64_type, "").map_err(llvm_error)
    } else {
        site.builder.build_int_z_extend_or_bit_cast(value, i64_type, "").map_err(llvm_error)
    }
}

pub fn call<'ctx>(
    site: &Site<'_, 'ctx>,
    call: &DeviceFunctionCall<'ctx>,
) -> Result<DeviceFunctionLowering<'ctx>, Unsupported> {
    let context = site.context;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let void_type = context.void_type();
    let pointer_bytes = i32_type.const_int(u64::from(call.pointer_bits / 8), false);
    let argument = |index: usize| -> Result<IntValue<'ctx>, Unsupported> {
        let value = call.arguments.get(index).copied().ok_or_else(|| Unsupported {
            what: format!("`{}` with fewer arguments than ptx-abi.md gives it", call.function.name()),
        })?;
        to_u64(site, value)
    };
    let returned = match call.function {
        DeviceFunction::Printf => {
            let function_type = i32_type.fn_type(&[i64_type.into(), i64_type.into(), i32_type.into()], false);
            let arguments = [argument(0)?.into(), argument(1)?.into(), pointer_bytes.into()];
            call_function(site, runtime_function::PRINTF, function_type, &arguments)?
        }
        DeviceFunction::Malloc => {
            let function_type = i64_type.fn_type(&[i64_type.into(), i32_type.into()], false);
            call_function(site, runtime_function::MALLOC, function_type, &[argument(0)?.into(), pointer_bytes.into()])?
        }
        DeviceFunction::Free => {
            let function_type = void_type.fn_type(&[i64_type.into()], false);
            call_function(site, runtime_function::FREE, function_type, &[argument(0)?.into()])?
        }
        DeviceFunction::AssertFail => {
            let line = argument(2)?;
            let line = site.builder.build_int_truncate(line, i32_type, "").map_err(llvm_error)?;
            let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> =
                vec![argument(0)?.into(), argument(1)?.into(), line.into(), argument(3)?.into()];
            for dimension in 0..3 {
                let thread = site
                    .function
                    .get_nth_param(THREAD_ID_PARAMETER + dimension)
                    .ok_or_else(|| Unsupported { what: "a thread index parameter".to_string() })?;
                arguments.push(thread.into());
            }
            let function_type = void_type.fn_type(
                &[
                    i64_type.into(),
                    i64_type.into(),
                    i32_type.into(),
                    i64_type.into(),
                    i32_type.into(),
                    i32_type.into(),
                    i32_type.into(),
                ],
                false,
            );
            call_function(site, runtime_function::ASSERT_FAIL, function_type, &arguments)?
        }
    };
    Ok(DeviceFunctionLowering::Lowered(returned.map(|value| value.into_int_value())))
}

/// Whether the block has stopped, after a call that may have stopped it.
pub fn stopped<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let function_type = i32_type.fn_type(&[], false);
    let flag = call_function(site, runtime_function::STOPPED, function_type, &[])?
        .ok_or_else(|| llvm_error("the stopped flag"))?
        .into_int_value();
    site.builder.build_int_compare(IntPredicate::NE, flag, i32_type.const_zero(), "stopped").map_err(llvm_error)
}
