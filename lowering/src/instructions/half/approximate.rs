//! `tanh.approx` and `ex2.approx` on the half types (ISA 7.8 sections 9.7.4.9 and 9.7.4.10).
//!
//! A lane's value is exact in `float`, so each function is computed there (with `afn`, as the
//! `.f32` forms are, so NVPTX gets PTX's own `ex2.approx.f32`) and rounded once to the lane's
//! format by the caller. NVIDIA documents the half forms' errors as at most 2^-10.987 (`tanh`,
//! `.f16`) and 2^-9.9 (`ex2`, `.f16`) relative, and far less precision for `.bf16`; a `float`
//! result within a few units in its last place stays far inside them after that rounding.

use inkwell::values::FloatValue;
use inkwell::FloatPredicate;

use super::Emit;
use crate::error::LoweringResult;
use crate::instructions::float_function::allow_approximation;
use crate::instructions::support::intrinsic;

/// Calls `llvm.exp2.f32` with `afn`.
fn exp2_float<'ctx>(emit: &Emit<'_, '_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
    let result = intrinsic(emit.lowering, "llvm.exp2", &[value.get_type().into()], &[value.into()], emit.span)?;
    let result = result.into_float_value();
    if let Some(instruction) = result.as_instruction() {
        allow_approximation(instruction);
    }
    Ok(result)
}

/// `value` (a `double` holding a half lane) as `float`, exactly.
fn to_float<'ctx>(emit: &Emit<'_, '_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
    Ok(emit.builder().build_float_trunc(value, emit.context().f32_type(), "")?)
}

fn to_double<'ctx>(emit: &Emit<'_, '_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
    Ok(emit.builder().build_float_ext(value, emit.context().f64_type(), "")?)
}

/// 2^x of a half lane, as a `double` for the caller to round.
pub(super) fn exp2<'ctx>(emit: &Emit<'_, '_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
    let result = exp2_float(emit, to_float(emit, value)?)?;
    to_double(emit, result)
}

/// Below this magnitude tanh(x) is x - x^3/3 to within 2^-21 relative (the next term is
/// 2x^5/15), and the exponential form below would lose bits to cancellation.
const SMALL: f64 = 0.031_25;

/// tanh(x) of a half lane, as a `double` for the caller to round: `x (1 - x^2/3)` for small
/// magnitudes (which keeps ±0 and the subnormals), `1 - 2 / (2^(2x log2 e) + 1)` elsewhere,
/// which gives ±1 at the infinities and NaN for NaN.
pub(super) fn tanh<'ctx>(emit: &Emit<'_, '_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
    let builder = emit.builder();
    let x = to_float(emit, value)?;
    let float_type = x.get_type();
    let one = float_type.const_float(1.0);
    let scaled = builder.build_float_mul(x, float_type.const_float(2.0 * std::f64::consts::LOG2_E), "")?;
    let exponential = exp2_float(emit, scaled)?;
    let denominator = builder.build_float_add(exponential, one, "")?;
    let fraction = builder.build_float_div(float_type.const_float(2.0), denominator, "")?;
    let large = builder.build_float_sub(one, fraction, "")?;
    let square = builder.build_float_mul(x, x, "")?;
    // x * (1 - x^2/3) rather than x - x^3/3, which would turn -0.0 into +0.0.
    let square_third = builder.build_float_div(square, float_type.const_float(3.0), "")?;
    let small = builder.build_float_mul(x, builder.build_float_sub(one, square_third, "")?, "")?;
    let is_small =
        builder.build_float_compare(FloatPredicate::OLT, square, float_type.const_float(SMALL * SMALL), "")?;
    let result = builder.build_select(is_small, small, large, "")?.into_float_value();
    to_double(emit, result)
}
