//! Floating-point arithmetic (ISA 7.8 section 9.7.3). Round-to-nearest-even is LLVM's default;
//! `.ftz` and `.sat` are applied explicitly so that every target gives PTX's results.

use inkwell::values::{BasicValueEnum, FloatValue};
use ptxr_frontend::ir::{Destination, FloatBinaryOperation, GuardedInstruction, Operand, RoundingMode};
use ptxr_frontend::vocabulary::ScalarType;

use super::support::{flush_subnormal, intrinsic, saturate_unit};
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Directed rounding needs constrained intrinsics or exact software sequences; until then it is
/// reported rather than silently rounded to nearest.
fn require_nearest(
    lowering: &FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    rounding: Option<RoundingMode>,
) -> LoweringResult<()> {
    match rounding {
        None | Some(RoundingMode::NearestEven) => Ok(()),
        Some(_) => Err(LoweringError::unsupported(
            &format!("`{}` (directed rounding)", guarded.spelling),
            lowering.target_name(),
            guarded.span,
        )),
    }
}

fn read_float<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operand: &Operand,
    ty: ScalarType,
    flush: bool,
) -> LoweringResult<FloatValue<'ctx>> {
    let value = lowering.read(operand, ty)?.into_float_value();
    if flush {
        flush_subnormal(lowering, value, ty, operand.span)
    } else {
        Ok(value)
    }
}

fn finish<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    mut result: FloatValue<'ctx>,
    ty: ScalarType,
    flush: bool,
    saturate: bool,
    destination: &Destination,
) -> LoweringResult<()> {
    if flush {
        result = flush_subnormal(lowering, result, ty, destination.span)?;
    }
    if saturate {
        result = saturate_unit(lowering, result)?;
    }
    lowering.write(destination, result.into(), ty)
}

#[allow(clippy::too_many_arguments)]
pub fn binary<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: FloatBinaryOperation,
    ty: ScalarType,
    rounding: Option<RoundingMode>,
    flush_subnormals: bool,
    saturate: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    require_nearest(lowering, guarded, rounding)?;
    let builder = lowering.shared.builder;
    let a = read_float(lowering, a, ty, flush_subnormals)?;
    let b = read_float(lowering, b, ty, flush_subnormals)?;
    let result: FloatValue<'ctx> = match operation {
        FloatBinaryOperation::Add => builder.build_float_add(a, b, "")?,
        FloatBinaryOperation::Subtract => builder.build_float_sub(a, b, "")?,
        FloatBinaryOperation::Multiply => builder.build_float_mul(a, b, "")?,
        FloatBinaryOperation::Divide => builder.build_float_div(a, b, "")?,
        // PTX's min/max return the non-NaN operand when one is NaN, as minnum/maxnum do.
        FloatBinaryOperation::Minimum | FloatBinaryOperation::Maximum => {
            let name = if operation == FloatBinaryOperation::Minimum { "llvm.minnum" } else { "llvm.maxnum" };
            let value: BasicValueEnum<'ctx> =
                intrinsic(lowering, name, &[a.get_type().into()], &[a.into(), b.into()], guarded.span)?;
            value.into_float_value()
        }
    };
    finish(lowering, result, ty, flush_subnormals, saturate, destination)
}

#[allow(clippy::too_many_arguments)]
pub fn fused_multiply_add<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    ty: ScalarType,
    rounding: RoundingMode,
    flush_subnormals: bool,
    saturate: bool,
    destination: &Destination,
    operands: [&Operand; 3],
) -> LoweringResult<()> {
    require_nearest(lowering, guarded, Some(rounding))?;
    let [a, b, c] = operands;
    let a = read_float(lowering, a, ty, flush_subnormals)?;
    let b = read_float(lowering, b, ty, flush_subnormals)?;
    let c = read_float(lowering, c, ty, flush_subnormals)?;
    let result =
        intrinsic(lowering, "llvm.fma", &[a.get_type().into()], &[a.into(), b.into(), c.into()], guarded.span)?;
    finish(lowering, result.into_float_value(), ty, flush_subnormals, saturate, destination)
}
