//! Floating-point arithmetic (ISA 7.8 section 9.7.3). Round-to-nearest-even is LLVM's default;
//! `.ftz` and `.sat` are applied explicitly so that every target gives PTX's results.

use inkwell::values::{BasicValueEnum, FloatValue};
use ptxr_frontend::ir::{Destination, FloatBinaryOperation, GuardedInstruction, MinimumMaximum, Operand, RoundingMode};
use ptxr_frontend::vocabulary::ScalarType;

use super::directed;
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
            &format!("`{}` (directed rounding)", lowering.spelling(guarded)),
            lowering.target_name(),
            guarded.span,
        )),
    }
}

pub(super) fn read_float<'ctx>(
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

pub(super) fn finish<'ctx>(
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
    [a, b]: [&Operand; 2],
    c: Option<&Operand>,
) -> LoweringResult<()> {
    let directed = directed::is_directed(rounding) && matches!(ty, ScalarType::F32 | ScalarType::F64);
    if !directed {
        require_nearest(lowering, guarded, rounding)?;
    }
    let builder = lowering.shared.builder;
    let a = read_float(lowering, a, ty, flush_subnormals)?;
    let b = read_float(lowering, b, ty, flush_subnormals)?;
    // Three sources (the checker gives `c` to `min`/`max` `.f32` only): the minimum or maximum
    // of the first two against the third. Both NaN rules compose so: without `.NaN` a NaN is
    // skipped unless all are NaN, with `.NaN` any NaN gives NaN; -0 < +0 holds at each step.
    if let (Some(c), FloatBinaryOperation::Minimum(modifiers) | FloatBinaryOperation::Maximum(modifiers)) =
        (c, operation)
    {
        let minimum = matches!(operation, FloatBinaryOperation::Minimum(_));
        let c = read_float(lowering, c, ty, flush_subnormals)?;
        let first = single_minimum_maximum(lowering, guarded, modifiers, minimum, a, b)?;
        let result = single_minimum_maximum(lowering, guarded, modifiers, minimum, first, c)?;
        return finish(lowering, result, ty, flush_subnormals, saturate, destination);
    }
    if let (true, Some(mode)) = (directed, rounding) {
        let result = directed_binary(lowering, guarded, operation, a, b, mode)?;
        return finish(lowering, result, ty, flush_subnormals, saturate, destination);
    }
    let result: FloatValue<'ctx> = match operation {
        FloatBinaryOperation::Add => builder.build_float_add(a, b, "")?,
        FloatBinaryOperation::Subtract => builder.build_float_sub(a, b, "")?,
        FloatBinaryOperation::Multiply => builder.build_float_mul(a, b, "")?,
        FloatBinaryOperation::Divide => builder.build_float_div(a, b, "")?,
        FloatBinaryOperation::Minimum(modifiers) | FloatBinaryOperation::Maximum(modifiers)
            if ty == ScalarType::F32 =>
        {
            let minimum = matches!(operation, FloatBinaryOperation::Minimum(_));
            single_minimum_maximum(lowering, guarded, modifiers, minimum, a, b)?
        }
        // `.f64` has no modifiers; a NaN operand gives the other, as minnum/maxnum do.
        FloatBinaryOperation::Minimum(_) | FloatBinaryOperation::Maximum(_) => {
            let name =
                if matches!(operation, FloatBinaryOperation::Minimum(_)) { "llvm.minnum" } else { "llvm.maxnum" };
            let value: BasicValueEnum<'ctx> =
                intrinsic(lowering, name, &[a.get_type().into()], &[a.into(), b.into()], guarded.span)?;
            value.into_float_value()
        }
    };
    finish(lowering, result, ty, flush_subnormals, saturate, destination)
}

/// `min` (`minimum`) or `max` of two `.f32` values with its modifiers: the target's native form
/// where it has one, else the portable one of `float_minimum.rs`.
fn single_minimum_maximum<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    modifiers: MinimumMaximum,
    minimum: bool,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
) -> LoweringResult<FloatValue<'ctx>> {
    let native = if modifiers.xorsign_absolute {
        None
    } else {
        lowering.shared.target.float_minimum_maximum(&lowering.site(), a, b, minimum, modifiers.propagate_nan).map_err(
            |unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span),
        )?
    };
    match native {
        Some(value) => Ok(value),
        None => super::float_minimum::minimum_maximum(lowering, a, b, modifiers, minimum),
    }
}

/// `add`, `sub`, `mul`, `div` rounded `.rz`, `.rm` or `.rp` (see `directed.rs`). For `.f32` the
/// side of the exact result comes from `f64` arithmetic, where products and residuals of `f32`
/// values are exact and never underflow; for `.f64` from error-free transformations in `f64`.
pub(super) fn directed_binary<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: FloatBinaryOperation,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    mode: RoundingMode,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let span = guarded.span;
    let single = a.get_type().get_bit_width() == 32;
    let b = if operation == FloatBinaryOperation::Subtract { builder.build_float_neg(b, "")? } else { b };
    let nearest = match operation {
        FloatBinaryOperation::Add | FloatBinaryOperation::Subtract => builder.build_float_add(a, b, "")?,
        FloatBinaryOperation::Multiply => builder.build_float_mul(a, b, "")?,
        FloatBinaryOperation::Divide => builder.build_float_div(a, b, "")?,
        FloatBinaryOperation::Minimum(_) | FloatBinaryOperation::Maximum(_) => {
            return Err(LoweringError::unsupported(
                &format!("`{}` (a rounding on min/max)", lowering.spelling(guarded)),
                lowering.target_name(),
                span,
            ))
        }
    };
    let (wide_a, wide_b, wide_nearest) = if single {
        let double = lowering.shared.context.f64_type();
        (
            builder.build_float_ext(a, double, "")?,
            builder.build_float_ext(b, double, "")?,
            builder.build_float_ext(nearest, double, "")?,
        )
    } else {
        (a, b, nearest)
    };
    let side = match operation {
        FloatBinaryOperation::Divide => directed::quotient_side(lowering, wide_a, wide_b, wide_nearest, span)?,
        FloatBinaryOperation::Multiply if single => {
            // The f64 product of two f32 values is exact.
            let product = builder.build_float_mul(wide_a, wide_b, "")?;
            directed::side_of_error(lowering, builder.build_float_sub(product, wide_nearest, "")?)?
        }
        FloatBinaryOperation::Multiply => directed::product_side(lowering, a, b, nearest, span)?,
        _ => {
            // exact = sum + error (TwoSum), and sum - nearest is exact (they are close).
            let sum = builder.build_float_add(wide_a, wide_b, "")?;
            let error = directed::sum_error(lowering, wide_a, wide_b, sum)?;
            let difference = builder.build_float_sub(sum, wide_nearest, "")?;
            let zero = difference.get_type().const_zero();
            let exact_at_sum = builder.build_float_compare(inkwell::FloatPredicate::OEQ, difference, zero, "")?;
            let chosen = builder.build_select(exact_at_sum, error, difference, "")?.into_float_value();
            directed::side_of_error(lowering, chosen)?
        }
    };
    let mut finite = directed::all_finite(lowering, &[a, b])?;
    if operation == FloatBinaryOperation::Divide {
        finite = directed::and_nonzero(lowering, finite, b)?;
    }
    let result = directed::round(lowering, nearest, &side, finite, mode)?;
    if matches!(operation, FloatBinaryOperation::Add | FloatBinaryOperation::Subtract) {
        // `b` is already negated for a difference.
        return directed::signed_zero_sum(lowering, result, &side, [a, b], mode);
    }
    Ok(result)
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
    let directed = directed::is_directed(Some(rounding)) && matches!(ty, ScalarType::F32 | ScalarType::F64);
    if !directed {
        require_nearest(lowering, guarded, Some(rounding))?;
    }
    let [a, b, c] = operands;
    let a = read_float(lowering, a, ty, flush_subnormals)?;
    let b = read_float(lowering, b, ty, flush_subnormals)?;
    let c = read_float(lowering, c, ty, flush_subnormals)?;
    let result = if directed {
        fused_directed(lowering, a, b, c, rounding, guarded.span)?
    } else {
        directed::fused(lowering, a, b, c, guarded.span)?
    };
    finish(lowering, result, ty, flush_subnormals, saturate, destination)
}

/// `fma(a, b, c)` rounded once in the directed `rounding` (`.f32` or `.f64` values).
pub(super) fn fused_directed<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    c: FloatValue<'ctx>,
    rounding: RoundingMode,
    span: ptxr_frontend::span::Span,
) -> LoweringResult<FloatValue<'ctx>> {
    let nearest = directed::fused(lowering, a, b, c, span)?;
    let side = fused_side(lowering, a, b, c, nearest, span)?;
    let finite = directed::all_finite(lowering, &[a, b, c])?;
    let rounded = directed::round(lowering, nearest, &side, finite, rounding)?;
    // The product's sign: a zero product of any magnitude signs like `a * b`.
    let product = lowering.shared.builder.build_float_mul(a, b, "")?;
    directed::signed_zero_sum(lowering, rounded, &side, [product, c], rounding)
}

/// The side of the exact `a * b + c` from its nearest `fma`. For `.f32` in `f64`: the product
/// is exact, TwoSum gives `a * b + c = sum + error` exactly, and `sum - nearest` is exact (they
/// lie within a factor of two, or `nearest` is zero), so `(sum - nearest) + error` has the sign
/// of the rounding error. For `.f64` Boldo and Muller's ErrFma: with `(high, low)` the exact
/// product, `c + low = α1 + α2` and `high + α1 = β1 + β2` (TwoSum), the error is exactly
/// `γ + α2` with `γ = (β1 - nearest) + β2`, so its rounded sum has the error's sign (exact
/// while nothing underflows; a product below `2^-968` is handled by `directed::tiny_product`).
fn fused_side<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    c: FloatValue<'ctx>,
    nearest: FloatValue<'ctx>,
    span: ptxr_frontend::Span,
) -> LoweringResult<directed::Side<'ctx>> {
    let builder = lowering.shared.builder;
    if a.get_type().get_bit_width() == 32 {
        let double = lowering.shared.context.f64_type();
        let widen = |value: FloatValue<'ctx>| builder.build_float_ext(value, double, "");
        let product = builder.build_float_mul(widen(a)?, widen(b)?, "")?;
        let addend = widen(c)?;
        let sum = builder.build_float_add(product, addend, "")?;
        let error = directed::sum_error(lowering, product, addend, sum)?;
        let difference = builder.build_float_sub(sum, widen(nearest)?, "")?;
        return directed::side_of_error(lowering, builder.build_float_add(difference, error, "")?);
    }
    let tiny = directed::tiny_product(lowering, a, b, c)?;
    let a = directed::scaled_by_2_537_when(lowering, a, tiny.scale)?;
    let b = directed::scaled_by_2_537_when(lowering, b, tiny.scale)?;
    let c = directed::scaled_by_2_1074_when(lowering, c, tiny.scale)?;
    let nearest = directed::scaled_by_2_1074_when(lowering, nearest, tiny.scale)?;
    let high = builder.build_float_mul(a, b, "")?;
    let low = directed::fused(lowering, a, b, builder.build_float_neg(high, "")?, span)?;
    let alpha_high = builder.build_float_add(c, low, "")?;
    let alpha_low = directed::sum_error(lowering, c, low, alpha_high)?;
    let beta_high = builder.build_float_add(high, alpha_high, "")?;
    let beta_low = directed::sum_error(lowering, high, alpha_high, beta_high)?;
    let gamma = builder.build_float_add(builder.build_float_sub(beta_high, nearest, "")?, beta_low, "")?;
    let side = directed::side_of_error(lowering, builder.build_float_add(gamma, alpha_low, "")?)?;
    directed::select_side(lowering, tiny.addend_dominates, &tiny.dominated, &side)
}
