//! `sin`, `cos`, `lg2`, `ex2`, `tanh`, `rcp`, `sqrt`, `rsqrt` and `copysign` (ISA 7.8 sections
//! 9.7.3.2 and 9.7.3.13 to 9.7.3.22). The `.approx` forms use LLVM's intrinsics with the `afn`
//! fast-math flag, so NVPTX emits PTX's own approximations and the other targets their libraries'
//! functions, which are at least as accurate as the ISA's bounds; `rcp` and `sqrt` in an IEEE
//! rounding are correctly rounded, the directed modes through `directed.rs`.

use inkwell::values::FloatValue;
use ptxr_frontend::ir::{Destination, FloatPrecision, FloatUnaryOperation, GuardedInstruction, Operand};
use ptxr_frontend::vocabulary::ScalarType;

use super::directed;
use super::float::{finish, read_float};
use super::support::intrinsic;
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Calls a one-operand float intrinsic, with `afn` when an approximation is allowed.
fn call<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    name: &str,
    value: FloatValue<'ctx>,
    approximate: bool,
) -> LoweringResult<FloatValue<'ctx>> {
    let result = intrinsic(lowering, name, &[value.get_type().into()], &[value.into()], guarded.span)?;
    if approximate {
        if let Some(instruction) = result.into_float_value().as_instruction() {
            allow_approximation(instruction);
        }
    }
    Ok(result.into_float_value())
}

/// Sets the `afn` fast-math flag on a call.
pub(super) fn allow_approximation(instruction: inkwell::values::InstructionValue<'_>) {
    use inkwell::values::AsValueRef;
    // SAFETY: `instruction` is a floating-point intrinsic call, which may carry fast-math flags.
    unsafe { llvm_sys::core::LLVMSetFastMathFlags(instruction.as_value_ref(), llvm_sys::LLVMFastMathApproxFunc) };
}

#[allow(clippy::too_many_arguments)]
pub fn unary<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: FloatUnaryOperation,
    ty: ScalarType,
    precision: FloatPrecision,
    flush_subnormals: bool,
    destination: &Destination,
    a: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let value = read_float(lowering, a, ty, flush_subnormals)?;
    let float_type = value.get_type();
    let one = float_type.const_float(1.0);
    let approximate = precision == FloatPrecision::Approximate;
    if approximate {
        let target = lowering.shared.target;
        let own = target.approximate_function(&lowering.site(), operation, flush_subnormals, value).map_err(
            |unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span),
        )?;
        if let Some(result) = own {
            return finish(lowering, result, ty, flush_subnormals, false, destination);
        }
    }
    let result = match operation {
        // Precise, not `afn`: OpenCL's native_sin (what SPIR-V gets with `afn`) is further from
        // NVIDIA's results than the library functions; NVPTX takes its own path above.
        FloatUnaryOperation::Sine => call(lowering, guarded, "llvm.sin", value, false)?,
        FloatUnaryOperation::Cosine => call(lowering, guarded, "llvm.cos", value, false)?,
        FloatUnaryOperation::Log2 => call(lowering, guarded, "llvm.log2", value, false)?,
        FloatUnaryOperation::Exp2 => call(lowering, guarded, "llvm.exp2", value, true)?,
        FloatUnaryOperation::Tanh => tanh(lowering, guarded, value)?,
        FloatUnaryOperation::Reciprocal => {
            let quotient = builder.build_float_div(one, value, "")?;
            match precision {
                FloatPrecision::Rounded(mode) if directed::is_directed(Some(mode)) => {
                    // The exact reciprocal exceeds `quotient` when 1 - quotient*a has a's sign; in
                    // f64 for f32, where the residual is exact and cannot underflow.
                    let (wide_value, wide_quotient) = widened(lowering, value, quotient)?;
                    let wide_one = wide_value.get_type().const_float(1.0);
                    let side = directed::quotient_side(lowering, wide_one, wide_value, wide_quotient, guarded.span)?;
                    let finite = directed::all_finite(lowering, &[value])?;
                    let finite = directed::and_nonzero(lowering, finite, value)?;
                    directed::round(lowering, quotient, &side, finite, mode)?
                }
                _ => quotient,
            }
        }
        FloatUnaryOperation::SquareRoot => {
            let root = call(lowering, guarded, "llvm.sqrt", value, false)?;
            match precision {
                FloatPrecision::Rounded(mode) if directed::is_directed(Some(mode)) => {
                    let (wide_value, wide_root) = widened(lowering, value, root)?;
                    let side = directed::root_side(lowering, wide_value, wide_root, guarded.span)?;
                    let finite = directed::all_finite(lowering, &[value])?;
                    directed::round(lowering, root, &side, finite, mode)?
                }
                _ => root,
            }
        }
        FloatUnaryOperation::ReciprocalSquareRoot => {
            let root = call(lowering, guarded, "llvm.sqrt", value, approximate)?;
            builder.build_float_div(one, root, "")?
        }
    };
    finish(lowering, result, ty, flush_subnormals, false, destination)
}

/// `value` and `result` as f64 when they are f32 (the residuals of f32 reciprocals and roots are
/// exact in f64), else unchanged.
fn widened<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    result: FloatValue<'ctx>,
) -> LoweringResult<(FloatValue<'ctx>, FloatValue<'ctx>)> {
    if value.get_type().get_bit_width() != 32 {
        return Ok((value, result));
    }
    let builder = lowering.shared.builder;
    let double = lowering.shared.context.f64_type();
    Ok((builder.build_float_ext(value, double, "")?, builder.build_float_ext(result, double, "")?))
}

/// `tanh(x) = 1 - 2 / (e^(2x) + 1)`, which is exact at the infinities (±1) and at ±0, and does
/// not depend on a `tanh` intrinsic that not every back end has.
fn tanh<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    value: FloatValue<'ctx>,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let float_type = value.get_type();
    let one = float_type.const_float(1.0);
    let two = float_type.const_float(2.0);
    // e^(2x) as 2^(2x * log2(e)).
    let scaled = builder.build_float_mul(value, float_type.const_float(2.0 * std::f64::consts::LOG2_E), "")?;
    let exponential = call(lowering, guarded, "llvm.exp2", scaled, true)?;
    let denominator = builder.build_float_add(exponential, one, "")?;
    let fraction = builder.build_float_div(two, denominator, "")?;
    let result = builder.build_float_sub(one, fraction, "")?;
    // Keep the sign of zero (tanh(-0) = -0), which 1 - 2/2 loses.
    let is_zero = builder.build_float_compare(inkwell::FloatPredicate::OEQ, value, float_type.const_zero(), "")?;
    Ok(builder.build_select(is_zero, value, result, "")?.into_float_value())
}

pub fn copysign<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    ty: ScalarType,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    let sign = lowering.read(a, ty)?;
    let magnitude = lowering.read(b, ty)?;
    let result =
        intrinsic(lowering, "llvm.copysign", &[magnitude.get_type()], &[magnitude.into(), sign.into()], guarded.span)?;
    lowering.write(destination, result, ty)
}
