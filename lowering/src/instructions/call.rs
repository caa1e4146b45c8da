//! `call`, `trap` and `nanosleep` (ISA 7.8 sections 9.7.12.6, 9.7.12.9 and 9.7.12.12). A call
//! passes the caller's hidden parameters (the CPU's block context and thread index) through,
//! then each argument as a value of the callee's parameter type: a variable's bytes, whatever
//! its declared type (PTX passes `.param` byte arrays and registers alike by value), or an
//! immediate converted to the parameter's type. Results come back as the callee's return value
//! (a struct when there are several) and are stored into the result variables.
//!
//! A call of a bodiless declaration of CUDA's device library (`vprintf`, `malloc`, `free`,
//! `__assertfail`) goes to the target's `device_function`. Where stopping a thread returns to
//! its caller, a call of a function that may stop it (`may_stop` in `module.rs`) is followed by
//! a check that leaves the caller too, so that `trap` or `exit` in a `.func` ends the thread
//! however deep the call. The CPU's runtime keeps the thread's state for that check; on the
//! targets that need it (`Target::needs_stop_flag`: AMDGPU, SPIR-V) lowering keeps a per-thread
//! flag instead, an `i32` alloca in each kernel whose address every `.func` receives after its
//! PTX parameters: stopping in a `.func` sets it, and each caller returns when it is set.

use inkwell::types::{BasicType, FunctionType};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};
use ptxr_frontend::ir::{self, CallOperand, FunctionId, GuardedInstruction, Operand};
use ptxr_frontend::syntax::ast::FunctionKind;
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_intrinsics::{DeviceFunction, DeviceFunctionCall, DeviceFunctionLowering, FunctionAddresses, StopReason};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;
use crate::module::parameter_type;

fn unsupported(lowering: &FunctionLowering<'_, '_>, guarded: &GuardedInstruction, what: &str) -> LoweringError {
    LoweringError::unsupported(
        &format!("`{}` ({what})", lowering.spelling(guarded)),
        lowering.target_name(),
        guarded.span,
    )
}

pub fn call<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    callee_id: FunctionId,
    results: &[CallOperand],
    arguments: &[CallOperand],
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let callee = lowering.shared.ptx.function(callee_id);
    let llvm_callee = lowering
        .shared
        .module
        .get_function(&callee.name)
        .ok_or_else(|| LoweringError::internal(format!("`{}` was not declared", callee.name), guarded.span))?;
    let device_function = callee
        .body
        .is_none()
        .then(|| {
            DeviceFunction::from_declaration(&callee.name, callee.parameters.len(), callee.return_parameters.len())
        })
        .flatten();
    if let Some(function) = device_function {
        if device_call(lowering, guarded, function, callee, results, arguments)? {
            return Ok(());
        }
    }
    let mut values = hidden_arguments(lowering, guarded)?;
    values.extend(argument_values(lowering, guarded, callee, arguments)?.into_iter().map(BasicMetadataValueEnum::from));
    values.extend(stop_flag_argument(lowering, guarded)?);
    values.extend(launch_arguments_argument(lowering, guarded)?);
    values.extend(shared_window_argument(lowering, guarded)?);
    let call = builder.build_call(llvm_callee, &values, "")?;
    call.set_call_convention(llvm_callee.get_call_conventions());
    let returned = call.try_as_basic_value().basic();
    store_results(lowering, results, returned)?;
    if lowering.shared.may_stop[callee_id.0 as usize] {
        leave_if_stopped(lowering, guarded)?;
    }
    Ok(())
}

/// `call (results), %target, (arguments), prototype`: the callee's LLVM type is built from the
/// variables passed (hidden parameters first, as every lowered function takes them), which the
/// PTX calling sequence makes the callee's own parameter types.
pub fn call_indirect<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    target: &Operand,
    results: &[CallOperand],
    arguments: &[CallOperand],
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let mut parameter_types = lowering.shared.target.hidden_parameter_types(context);
    let mut values = hidden_arguments(lowering, guarded)?;
    for argument in arguments {
        let CallOperand::Variable { variable, span } = argument else {
            return Err(unsupported(lowering, guarded, "an immediate argument of an indirect call"));
        };
        let variable_type = parameter_type(lowering.shared, lowering.variable(*variable));
        parameter_types.push(variable_type.into());
        values.push(builder.build_load(variable_type, lowering.storage(*variable, *span)?, "")?.into());
    }
    parameter_types.extend(lowering.shared.stop_flag_parameter);
    values.extend(stop_flag_argument(lowering, guarded)?);
    parameter_types.extend(lowering.shared.launch_arguments_parameter.map(inkwell::types::BasicMetadataTypeEnum::from));
    values.extend(launch_arguments_argument(lowering, guarded)?);
    if let Some(window_type) = lowering.shared.shared_window_parameter {
        parameter_types.push(window_type);
    }
    values.extend(shared_window_argument(lowering, guarded)?);
    let mut result_types = Vec::new();
    for result in results {
        let CallOperand::Variable { variable, .. } = result else {
            return Err(LoweringError::internal("a call result that is not a variable", result.span()));
        };
        result_types.push(parameter_type(lowering.shared, lowering.variable(*variable)));
    }
    let function_type = match result_types.as_slice() {
        [] => context.void_type().fn_type(&parameter_types, false),
        [single] => single.fn_type(&parameter_types, false),
        many => context.struct_type(many, false).fn_type(&parameter_types, false),
    };
    let address_type = if lowering.shared.ptx.address_size == 32 { ScalarType::U32 } else { ScalarType::U64 };
    let address = lowering.read_int(target, address_type)?;
    match lowering.shared.target.function_addresses() {
        FunctionAddresses::Pointers => {
            let pointer = builder.build_int_to_ptr(address, context.ptr_type(inkwell::AddressSpace::default()), "")?;
            let call = builder.build_indirect_call(function_type, pointer, &values, "")?;
            call.set_call_convention(lowering.shared.target.function_calling_convention());
            store_results(lowering, results, call.try_as_basic_value().basic())?;
        }
        FunctionAddresses::Identifiers => {
            call_by_identifier(lowering, guarded, function_type, address, &values, results)?;
        }
    }
    if lowering.shared.may_stop.iter().any(|&stops| stops) {
        leave_if_stopped(lowering, guarded)?;
    }
    Ok(())
}

/// An indirect call where function addresses are identifiers (the function's index plus one,
/// `FunctionAddresses::Identifiers`): a `switch` on `identifier` with a direct call of each
/// function of the module whose LLVM type is the call's, and, for any other value, the
/// target's stop for `StopReason::CallOfNoFunction` (with its own message), after which the
/// caller leaves as after `trap`.
fn call_by_identifier<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    function_type: FunctionType<'ctx>,
    identifier: IntValue<'ctx>,
    arguments: &[BasicMetadataValueEnum<'ctx>],
    results: &[CallOperand],
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let ptx = lowering.shared.ptx;
    let candidates: Vec<(u64, FunctionValue<'ctx>)> = ptx
        .functions
        .iter()
        .enumerate()
        .filter(|(_, function)| function.kind == FunctionKind::Func && !lowered_in_place(function))
        .filter_map(|(index, function)| {
            let llvm_function = lowering.shared.module.get_function(&function.name)?;
            (llvm_function.get_type() == function_type).then_some((index as u64 + 1, llvm_function))
        })
        .collect();
    let no_function = context.append_basic_block(lowering.llvm_function, "call.no_function");
    let after = context.append_basic_block(lowering.llvm_function, "call.done");
    let cases: Vec<_> = candidates
        .iter()
        .map(|(identifier_value, function)| {
            let block = context
                .append_basic_block(lowering.llvm_function, &format!("call.{}", function.get_name().to_string_lossy()));
            (identifier.get_type().const_int(*identifier_value, false), block)
        })
        .collect();
    builder.build_switch(identifier, no_function, &cases)?;
    for ((_, function), (_, block)) in candidates.iter().zip(&cases) {
        builder.position_at_end(*block);
        let call = builder.build_call(*function, arguments, "")?;
        call.set_call_convention(function.get_call_conventions());
        store_results(lowering, results, call.try_as_basic_value().basic())?;
        builder.build_unconditional_branch(after)?;
    }
    builder.position_at_end(no_function);
    stop_for(lowering, guarded, StopReason::CallOfNoFunction)?;
    builder.position_at_end(after);
    Ok(())
}

/// Stops the thread for `reason` (`Target::stop_for`) and leaves the function, as `trap` does.
pub(super) fn stop_for(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    reason: StopReason,
) -> LoweringResult<()> {
    lowering
        .shared
        .target
        .stop_for(&lowering.site(), reason)
        .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span))?;
    mark_stopped(lowering)?;
    lowering.build_return()
}

/// Whether calls of `function` are lowered in place (a declaration of CUDA's device library),
/// so that there is no LLVM function of its PTX signature to call.
fn lowered_in_place(function: &ir::Function) -> bool {
    function.body.is_none()
        && DeviceFunction::from_declaration(&function.name, function.parameters.len(), function.return_parameters.len())
            .is_some()
}

/// The caller's hidden parameters, passed through to the callee.
fn hidden_arguments<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
) -> LoweringResult<Vec<BasicMetadataValueEnum<'ctx>>> {
    let hidden = lowering.shared.target.hidden_parameter_types(lowering.shared.context).len() as u32;
    (0..hidden)
        .map(|index| {
            lowering
                .llvm_function
                .get_nth_param(index)
                .map(BasicMetadataValueEnum::from)
                .ok_or_else(|| LoweringError::internal("a hidden parameter is missing", guarded.span))
        })
        .collect()
}

/// The caller's launch arguments, passed on where the module has them, so that the callee
/// reads the same launch's registers.
fn launch_arguments_argument<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
) -> LoweringResult<Option<BasicMetadataValueEnum<'ctx>>> {
    if lowering.shared.launch_arguments_parameter.is_none() {
        return Ok(None);
    }
    let arguments = lowering
        .launch_arguments()
        .ok_or_else(|| LoweringError::internal("no launch arguments to pass on", guarded.span))?;
    Ok(Some(arguments.into()))
}

/// The caller's shared window, passed on where the target hands it to every function as a
/// trailing parameter (SPIR-V), so that the callee reaches the same block's shared memory.
fn shared_window_argument<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
) -> LoweringResult<Option<BasicMetadataValueEnum<'ctx>>> {
    if lowering.shared.shared_window_parameter.is_none() {
        return Ok(None);
    }
    let window = lowering
        .shared_window_base()
        .ok_or_else(|| LoweringError::internal("no shared window to pass on", guarded.span))?;
    Ok(Some(window.into()))
}

/// The address of the caller's stop flag, passed on where the module keeps one, so that the
/// callee (every `.func` takes it) sets the same thread's flag.
fn stop_flag_argument<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
) -> LoweringResult<Option<BasicMetadataValueEnum<'ctx>>> {
    if lowering.shared.stop_flag_parameter.is_none() {
        return Ok(None);
    }
    let flag = lowering.stop_flag().ok_or_else(|| LoweringError::internal("no stop flag to pass on", guarded.span))?;
    Ok(Some(flag.into()))
}

/// In a `.func` of a module that keeps a stop flag: sets it, so that every caller leaves after
/// the call (`leave_if_stopped`). A kernel body needs no mark: its return ends the thread.
pub(crate) fn mark_stopped(lowering: &FunctionLowering<'_, '_>) -> LoweringResult<()> {
    if lowering.function.kind == FunctionKind::Entry {
        return Ok(());
    }
    if let Some(flag) = lowering.stop_flag() {
        lowering.shared.builder.build_store(flag, lowering.shared.context.i32_type().const_int(1, false))?;
    }
    Ok(())
}

/// Each argument as a value of the callee's parameter type.
fn argument_values<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    callee: &ir::Function,
    arguments: &[CallOperand],
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let builder = lowering.shared.builder;
    let mut values = Vec::new();
    for (argument, &parameter) in arguments.iter().zip(&callee.parameters) {
        let parameter = callee.variable(parameter);
        let parameter_type = parameter_type(lowering.shared, parameter);
        let value: BasicValueEnum<'ctx> = match argument {
            CallOperand::Variable { variable, span } => {
                builder.build_load(parameter_type, lowering.storage(*variable, *span)?, "")?
            }
            CallOperand::Immediate(operand) => {
                if parameter_type.is_array_type() {
                    return Err(unsupported(lowering, guarded, "an immediate passed as an aggregate"));
                }
                immediate(lowering, operand, parameter.ty)?
            }
        };
        values.push(value);
    }
    Ok(values)
}

/// Stores a call's returned value into the result variables.
fn store_results<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    results: &[CallOperand],
    returned: Option<BasicValueEnum<'ctx>>,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    for (position, result) in results.iter().enumerate() {
        let CallOperand::Variable { variable, span } = result else {
            return Err(LoweringError::internal("a call result that is not a variable", result.span()));
        };
        let value = match returned {
            Some(BasicValueEnum::StructValue(structure)) if results.len() > 1 => {
                builder.build_extract_value(structure, position as u32, "")?
            }
            Some(value) => value,
            None => return Err(LoweringError::internal("a call result from a function without one", *span)),
        };
        builder.build_store(lowering.storage(*variable, *span)?, value)?;
    }
    Ok(())
}

/// A call of CUDA's device library through the target; `false` when the target calls the
/// declaration itself.
fn device_call<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    function: DeviceFunction,
    callee: &ir::Function,
    results: &[CallOperand],
    arguments: &[CallOperand],
) -> LoweringResult<bool> {
    let values = argument_values(lowering, guarded, callee, arguments)?;
    let mut integers = Vec::new();
    for value in values {
        let BasicValueEnum::IntValue(value) = value else {
            return Err(unsupported(lowering, guarded, "a device-library argument that is not an integer"));
        };
        integers.push(value);
    }
    let (format, argument_strings, module_strings, strings) = match (function, arguments) {
        (DeviceFunction::Printf, [format, buffer]) => {
            let writers = lowering.string_writers();
            (
                super::constant_string::traced_string(lowering, writers, format),
                super::constant_string::traced_buffer_strings(lowering, writers, buffer, guarded.span)?,
                super::constant_string::module_strings(lowering, guarded.span)?,
                Vec::new(),
            )
        }
        (DeviceFunction::AssertFail, _) => {
            let writers = lowering.string_writers();
            let strings = arguments
                .iter()
                .map(|argument| super::constant_string::traced_string(lowering, writers, argument))
                .collect();
            (None, Vec::new(), Vec::new(), strings)
        }
        _ => (None, Vec::new(), Vec::new(), Vec::new()),
    };
    let call = DeviceFunctionCall {
        function,
        arguments: integers,
        pointer_bits: lowering.shared.ptx.address_size,
        format,
        argument_strings,
        module_strings,
        strings,
    };
    let lowered =
        lowering.shared.target.device_function(&lowering.site(), &call).map_err(|unsupported| {
            LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span)
        })?;
    let DeviceFunctionLowering::Lowered(returned) = lowered else { return Ok(false) };
    let returned = match (returned, callee.return_parameters.first()) {
        (Some(value), Some(&index)) => {
            let return_type = parameter_type(lowering.shared, callee.variable(index));
            let builder = lowering.shared.builder;
            let converted = if return_type.is_int_type() {
                builder.build_int_cast_sign_flag(value, return_type.into_int_type(), false, "")?.into()
            } else {
                builder.build_bit_cast(value, return_type, "")?
            };
            Some(converted)
        }
        (returned, _) => returned.map(BasicValueEnum::from),
    };
    store_results(lowering, results, returned)?;
    if function.stops_thread() {
        mark_stopped(lowering)?;
        lowering.build_return()?;
    }
    Ok(true)
}

/// After a call that may have stopped the thread: leaves this function too, where stopping
/// returns to the caller. A kernel body also takes the mark of an `exit` inside the call, so
/// that the thread ends there.
fn leave_if_stopped(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction) -> LoweringResult<()> {
    let unsupported = |lowering: &FunctionLowering<'_, '_>, unsupported: ptxr_intrinsics::Unsupported| {
        LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span)
    };
    let by_target = lowering.shared.target.stopped(&lowering.site()).map_err(|error| unsupported(lowering, error))?;
    let by_flag = match lowering.stop_flag() {
        Some(flag) => {
            let i32_type = lowering.shared.context.i32_type();
            let builder = lowering.shared.builder;
            let value = builder.build_load(i32_type, flag, "thread.stopped")?.into_int_value();
            Some(builder.build_int_compare(inkwell::IntPredicate::NE, value, i32_type.const_zero(), "stopped")?)
        }
        None => None,
    };
    let stopped = match (by_target, by_flag) {
        (Some(target), Some(flag)) => Some(lowering.shared.builder.build_or(target, flag, "stopped")?),
        (target, flag) => target.or(flag),
    };
    let Some(mut stopped) = stopped else { return Ok(()) };
    if lowering.function.kind == FunctionKind::Entry {
        let exited =
            lowering.shared.target.thread_exited(&lowering.site()).map_err(|error| unsupported(lowering, error))?;
        if let Some(exited) = exited {
            stopped = lowering.shared.builder.build_or(stopped, exited, "left")?;
        }
    }
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let leave = context.append_basic_block(lowering.llvm_function, "stopped");
    let continue_block = context.append_basic_block(lowering.llvm_function, "");
    builder.build_conditional_branch(stopped, leave, continue_block)?;
    builder.position_at_end(leave);
    lowering.build_return()?;
    builder.position_at_end(continue_block);
    Ok(())
}

/// An immediate argument as a value of the parameter's type.
fn immediate<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operand: &Operand,
    ty: ScalarType,
) -> LoweringResult<BasicValueEnum<'ctx>> {
    lowering.read(operand, ty)
}

/// `exit`: in a kernel body the thread returns; inside a `.func` the thread is marked as
/// leaving first (the stop flag where lowering keeps one, otherwise the target's own mark or
/// exit), so that every caller leaves after the call (`leave_if_stopped`).
pub fn exit(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction) -> LoweringResult<()> {
    if lowering.function.kind != FunctionKind::Entry {
        if lowering.stop_flag().is_some() {
            mark_stopped(lowering)?;
        } else {
            lowering.shared.target.exit_thread(&lowering.site()).map_err(|unsupported| {
                LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span)
            })?;
        }
    }
    lowering.build_return()
}

/// `trap`: the target stops the kernel; then the function returns, as after `exit`, with the
/// stop flag set where the target's `trap` returns.
pub fn trap(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction) -> LoweringResult<()> {
    lowering
        .shared
        .target
        .trap(&lowering.site())
        .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span))?;
    mark_stopped(lowering)?;
    lowering.build_return()
}

pub fn sleep<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    nanoseconds: &Operand,
) -> LoweringResult<()> {
    let nanoseconds = lowering.read_int(nanoseconds, ScalarType::U32)?;
    lowering
        .shared
        .target
        .sleep(&lowering.site(), nanoseconds)
        .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span))
}
