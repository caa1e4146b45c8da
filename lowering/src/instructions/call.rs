//! `call`, `trap` and `nanosleep` (ISA 7.8 sections 9.7.12.6, 9.7.12.9 and 9.7.12.12). A call
//! passes the caller's hidden parameters (the CPU's block context and thread index) through,
//! then each argument as a value of the callee's parameter type: a variable's bytes, whatever
//! its declared type (PTX passes `.param` byte arrays and registers alike by value), or an
//! immediate converted to the parameter's type. Results come back as the callee's return value
//! (a struct when there are several) and are stored into the result variables.

use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use ptxr_frontend::ir::{CallOperand, FunctionId, GuardedInstruction, Operand};
use ptxr_frontend::vocabulary::ScalarType;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;
use crate::module::parameter_type;

fn unsupported(lowering: &FunctionLowering<'_, '_>, guarded: &GuardedInstruction, what: &str) -> LoweringError {
    LoweringError::unsupported(&format!("`{}` ({what})", guarded.spelling), lowering.target_name(), guarded.span)
}

pub fn call<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    callee: FunctionId,
    results: &[CallOperand],
    arguments: &[CallOperand],
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let callee = lowering.shared.ptx.function(callee);
    let llvm_callee = lowering
        .shared
        .module
        .get_function(&callee.name)
        .ok_or_else(|| LoweringError::internal(format!("`{}` was not declared", callee.name), guarded.span))?;
    let hidden = lowering.shared.target.hidden_parameter_types(context).len() as u32;
    let mut values: Vec<BasicMetadataValueEnum<'ctx>> = Vec::new();
    for index in 0..hidden {
        let value = lowering
            .llvm_function
            .get_nth_param(index)
            .ok_or_else(|| LoweringError::internal("a hidden parameter is missing", guarded.span))?;
        values.push(value.into());
    }
    for (argument, &parameter) in arguments.iter().zip(&callee.parameters) {
        let parameter = callee.variable(parameter);
        let parameter_type = parameter_type(context, parameter);
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
        values.push(value.into());
    }
    if lowering.shared.shared_window_parameter.is_some() {
        // The callee reaches the caller's block's shared memory through the same window.
        let window = lowering
            .shared_window_base()
            .ok_or_else(|| LoweringError::internal("no shared window to pass on", guarded.span))?;
        values.push(window.into());
    }
    let call = builder.build_call(llvm_callee, &values, "")?;
    call.set_call_convention(llvm_callee.get_call_conventions());
    let returned = call.try_as_basic_value().basic();
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

/// An immediate argument as a value of the parameter's type.
fn immediate<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operand: &Operand,
    ty: ScalarType,
) -> LoweringResult<BasicValueEnum<'ctx>> {
    lowering.read(operand, ty)
}

/// `trap`: the target stops the kernel; then the function returns, as after `exit`.
pub fn trap(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction) -> LoweringResult<()> {
    lowering
        .shared
        .target
        .trap(&lowering.site())
        .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span))?;
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
