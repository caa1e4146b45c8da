//! Directed rounding (`.rz`, `.rm`, `.rp`) from round-to-nearest results. The target computes
//! the nearest-even result `r`; an exact error term says on which side of `r` the exact result
//! lies (TwoSum for sums, `fma(a, b, -r)` for products, the residual `a - r*b` for quotients and
//! `a - r*r` for square roots, all exact in IEEE arithmetic while nothing underflows), and `r`
//! steps one unit towards the requested direction when it lies on the wrong side. Where an
//! `.f64` error term could underflow (results near or in the subnormals), the operands are
//! first scaled by a power of two, exactly, so that the term keeps its sign (`product_side`,
//! `quotient_side`, `root_side`, `tiny_product`); `.f32` results are checked in `f64`, where
//! nothing of theirs underflows. An overflow
//! to infinity becomes the largest finite value where the mode rounds towards zero from it.
//! This gives correctly rounded results on every target without changing the floating-point
//! environment.

use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::RoundingMode;
use ptxr_frontend::Span;

use super::support::intrinsic;
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// The exact result relative to the nearest one: greater (`above`) or less (`below`); both
/// false when `nearest` is exact.
pub struct Side<'ctx> {
    pub above: IntValue<'ctx>,
    pub below: IntValue<'ctx>,
}

/// The side of an error term: the exact result is `nearest + error`.
pub fn side_of_error<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    error: FloatValue<'ctx>,
) -> LoweringResult<Side<'ctx>> {
    let builder = lowering.shared.builder;
    let zero = error.get_type().const_zero();
    Ok(Side {
        above: builder.build_float_compare(FloatPredicate::OGT, error, zero, "")?,
        below: builder.build_float_compare(FloatPredicate::OLT, error, zero, "")?,
    })
}

/// The side for a quotient `q ≈ a / divisor` from the residual `a - q * divisor`: the exact
/// quotient is above `q` when the residual has the divisor's sign. (Dividing the residual by the
/// divisor would underflow to zero for tiny quotients.)
pub fn side_of_residual<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    residual: FloatValue<'ctx>,
    divisor: FloatValue<'ctx>,
) -> LoweringResult<Side<'ctx>> {
    let builder = lowering.shared.builder;
    let residual_side = side_of_error(lowering, residual)?;
    let zero = divisor.get_type().const_zero();
    let divisor_positive = builder.build_float_compare(FloatPredicate::OGT, divisor, zero, "")?;
    let divisor_negative = builder.build_float_compare(FloatPredicate::OLT, divisor, zero, "")?;
    let above_positive = builder.build_and(residual_side.above, divisor_positive, "")?;
    let above_negative = builder.build_and(residual_side.below, divisor_negative, "")?;
    let below_positive = builder.build_and(residual_side.below, divisor_positive, "")?;
    let below_negative = builder.build_and(residual_side.above, divisor_negative, "")?;
    Ok(Side {
        above: builder.build_or(above_positive, above_negative, "")?,
        below: builder.build_or(below_positive, below_negative, "")?,
    })
}

/// Whether `|value| < 2^exponent` (false for NaN).
fn magnitude_below<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    exponent: i32,
) -> LoweringResult<IntValue<'ctx>> {
    let float_type = value.get_type();
    let magnitude =
        intrinsic(lowering, "llvm.fabs", &[float_type.into()], &[value.into()], Span::default())?.into_float_value();
    let bound = float_type.const_float(2f64.powi(exponent));
    Ok(lowering.shared.builder.build_float_compare(FloatPredicate::OLT, magnitude, bound, "")?)
}

/// `value * 2^exponent` where `condition` holds, `value` otherwise: exact while the product
/// stays finite and does not underflow, which the callers' bounds ensure.
fn scaled_when<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    condition: IntValue<'ctx>,
    exponent: i32,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let float_type = value.get_type();
    let factor = builder
        .build_select(condition, float_type.const_float(2f64.powi(exponent)), float_type.const_float(1.0), "")?
        .into_float_value();
    Ok(builder.build_float_mul(value, factor, "")?)
}

/// Below this magnitude an `f64` result's error terms may underflow: the exact product of two
/// `f64` values whose rounded product is at least `2^-968` has no bit below `2^-1074`, so
/// `fma(a, b, -p)` is exact above it.
const UNDERFLOW_RISK_EXPONENT: i32 = -968;

/// The side of the exact `a * b` from its nearest `nearest`: the sign of `fma(a, b, -nearest)`.
/// When `nearest` is below `2^-968` that error can underflow (to a zero that hides its sign),
/// so `a` and `b` are scaled by `2^537` each and `nearest` by `2^1074` first, all exactly (a
/// product that small has both factors below `2^106`, or one of them zero): the scaled error is
/// a nonzero multiple of `2^-1074` unless the product is exact, so its rounding keeps its sign.
pub fn product_side<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    nearest: FloatValue<'ctx>,
    span: Span,
) -> LoweringResult<Side<'ctx>> {
    let builder = lowering.shared.builder;
    let tiny = magnitude_below(lowering, nearest, UNDERFLOW_RISK_EXPONENT)?;
    let a = scaled_by_2_537_when(lowering, a, tiny)?;
    let b = scaled_by_2_537_when(lowering, b, tiny)?;
    let nearest = scaled_by_2_1074_when(lowering, nearest, tiny)?;
    side_of_error(lowering, fused(lowering, a, b, builder.build_float_neg(nearest, "")?, span)?)
}

/// The side of the exact `dividend / divisor` from its nearest `quotient`, by the residual
/// `dividend - quotient * divisor` (`side_of_residual`). For a quotient below `2^-968` the
/// residual can underflow, so `dividend` and `quotient` are scaled by `2^600` first, exactly
/// (such a dividend is below `2^56`); the scaled residual's bits then all lie above `2^-1074`.
pub fn quotient_side<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    dividend: FloatValue<'ctx>,
    divisor: FloatValue<'ctx>,
    quotient: FloatValue<'ctx>,
    span: Span,
) -> LoweringResult<Side<'ctx>> {
    let builder = lowering.shared.builder;
    let tiny = magnitude_below(lowering, quotient, UNDERFLOW_RISK_EXPONENT)?;
    let dividend = scaled_when(lowering, dividend, tiny, 600)?;
    let quotient = scaled_when(lowering, quotient, tiny, 600)?;
    let residual = fused(lowering, builder.build_float_neg(quotient, "")?, divisor, dividend, span)?;
    side_of_residual(lowering, residual, divisor)
}

/// The side of the exact `sqrt(value)` from its nearest `root`: the sign of `value - root²`.
/// Below `2^-900` (subnormal inputs among them) that residual can underflow, so `value` is
/// scaled by `2^1200` and `root` by `2^600` first, exactly.
pub fn root_side<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    root: FloatValue<'ctx>,
    span: Span,
) -> LoweringResult<Side<'ctx>> {
    let builder = lowering.shared.builder;
    let tiny = magnitude_below(lowering, value, -900)?;
    let value = scaled_when(lowering, scaled_when(lowering, value, tiny, 600)?, tiny, 600)?;
    let root = scaled_when(lowering, root, tiny, 600)?;
    side_of_error(lowering, fused(lowering, builder.build_float_neg(root, "")?, root, value, span)?)
}

/// For `.f64` `fma` whose product `a * b` rounds below `2^-968`: how to find the side of the
/// exact `a * b + c`. An addend of at least `2^-900` (and finite) dominates: the nearest result
/// is `c` itself and the exact one lies on the product's side of it (`dominated` gives that
/// side). A smaller addend lets everything be scaled by `2^1074` exactly (`a` and `b` by `2^537`
/// each), after which ErrFma's terms no longer underflow; `scale` says whether to.
pub struct TinyProduct<'ctx> {
    pub scale: IntValue<'ctx>,
    pub addend_dominates: IntValue<'ctx>,
    pub dominated: Side<'ctx>,
}

pub fn tiny_product<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    c: FloatValue<'ctx>,
) -> LoweringResult<TinyProduct<'ctx>> {
    let builder = lowering.shared.builder;
    let product = builder.build_float_mul(a, b, "")?;
    let tiny = magnitude_below(lowering, product, UNDERFLOW_RISK_EXPONENT)?;
    let small_addend = magnitude_below(lowering, c, -900)?;
    let finite_addend = all_finite(lowering, &[c])?;
    let large_addend = builder.build_and(builder.build_not(small_addend, "")?, finite_addend, "")?;
    let zero = a.get_type().const_zero();
    let nonzero = builder.build_and(
        builder.build_float_compare(FloatPredicate::ONE, a, zero, "")?,
        builder.build_float_compare(FloatPredicate::ONE, b, zero, "")?,
        "",
    )?;
    // The product's sign from the factors' signs: the rounded product may be a zero.
    let a_negative = sign_bit(lowering, a)?;
    let b_negative = sign_bit(lowering, b)?;
    let negative = builder.build_xor(a_negative, b_negative, "")?;
    Ok(TinyProduct {
        scale: builder.build_and(tiny, small_addend, "")?,
        addend_dominates: builder.build_and(tiny, large_addend, "")?,
        dominated: Side {
            above: builder.build_and(nonzero, builder.build_not(negative, "")?, "")?,
            below: builder.build_and(nonzero, negative, "")?,
        },
    })
}

/// `value * 2^1074` where `condition` holds (in two exact steps of `2^537`).
pub fn scaled_by_2_1074_when<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    condition: IntValue<'ctx>,
) -> LoweringResult<FloatValue<'ctx>> {
    scaled_when(lowering, scaled_when(lowering, value, condition, 537)?, condition, 537)
}

/// `value * 2^537` where `condition` holds.
pub fn scaled_by_2_537_when<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    condition: IntValue<'ctx>,
) -> LoweringResult<FloatValue<'ctx>> {
    scaled_when(lowering, value, condition, 537)
}

/// `side` where `condition` holds, `otherwise` elsewhere.
pub fn select_side<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    condition: IntValue<'ctx>,
    side: &Side<'ctx>,
    otherwise: &Side<'ctx>,
) -> LoweringResult<Side<'ctx>> {
    let builder = lowering.shared.builder;
    Ok(Side {
        above: builder.build_select(condition, side.above, otherwise.above, "")?.into_int_value(),
        below: builder.build_select(condition, side.below, otherwise.below, "")?.into_int_value(),
    })
}

/// Whether `value`'s sign bit is set.
fn sign_bit<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let bits_type = if value.get_type().get_bit_width() == 64 { context.i64_type() } else { context.i32_type() };
    let bits = builder.build_bit_cast(value, bits_type, "")?.into_int_value();
    Ok(builder.build_int_compare(IntPredicate::SLT, bits, bits_type.const_zero(), "")?)
}

/// TwoSum's error of `sum = a + b`.
pub fn sum_error<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    sum: FloatValue<'ctx>,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let b_virtual = builder.build_float_sub(sum, a, "")?;
    let a_virtual = builder.build_float_sub(sum, b_virtual, "")?;
    let b_round_off = builder.build_float_sub(b, b_virtual, "")?;
    let a_round_off = builder.build_float_sub(a, a_virtual, "")?;
    Ok(builder.build_float_add(a_round_off, b_round_off, "")?)
}

/// `fma(a, b, c)`.
pub fn fused<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: FloatValue<'ctx>,
    b: FloatValue<'ctx>,
    c: FloatValue<'ctx>,
    span: Span,
) -> LoweringResult<FloatValue<'ctx>> {
    let ty = a.get_type();
    Ok(intrinsic(lowering, "llvm.fma", &[ty.into()], &[a.into(), b.into(), c.into()], span)?.into_float_value())
}

/// The next representable value above `value` (`-0` and `+0` go to the smallest subnormal;
/// infinities and NaN stay).
fn next_up<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let float_type = value.get_type();
    let context = lowering.shared.context;
    let bits_type = if float_type.get_bit_width() == 64 { context.i64_type() } else { context.i32_type() };
    let bits = builder.build_bit_cast(value, bits_type, "")?.into_int_value();
    let one = bits_type.const_int(1, false);
    let is_zero = builder.build_float_compare(FloatPredicate::OEQ, value, float_type.const_zero(), "")?;
    let is_negative = builder.build_int_compare(IntPredicate::SLT, bits, bits_type.const_zero(), "")?;
    let incremented = builder.build_int_add(bits, one, "")?;
    let decremented = builder.build_int_sub(bits, one, "")?;
    let stepped = builder.build_select(is_negative, decremented, incremented, "")?.into_int_value();
    let stepped = builder.build_select(is_zero, one, stepped, "")?.into_int_value();
    let stepped = builder.build_bit_cast(stepped, float_type, "")?.into_float_value();
    // +inf and NaN stay; -inf steps to -max, which the bit decrement gives.
    let positive_infinity = float_type.const_float(f64::INFINITY);
    let stays = builder.build_float_compare(FloatPredicate::UEQ, value, positive_infinity, "")?;
    Ok(builder.build_select(stays, value, stepped, "")?.into_float_value())
}

fn next_down<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let negated = builder.build_float_neg(value, "")?;
    let up = next_up(lowering, negated)?;
    Ok(builder.build_float_neg(up, "")?)
}

/// `nearest` rounded in `mode` instead, given the side of the exact result. `finite_inputs`
/// tells an overflow (infinite `nearest` from finite inputs) from an infinite operand.
pub fn round<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    nearest: FloatValue<'ctx>,
    side: &Side<'ctx>,
    finite_inputs: IntValue<'ctx>,
    mode: RoundingMode,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let float_type = nearest.get_type();
    let zero = float_type.const_zero();
    let positive = builder.build_float_compare(FloatPredicate::OGT, nearest, zero, "")?;
    let negative = builder.build_float_compare(FloatPredicate::OLT, nearest, zero, "")?;
    let (step_up, step_down) = match mode {
        RoundingMode::TowardPositive | RoundingMode::TowardPositiveIntegral => {
            (side.above, lowering.shared.context.bool_type().const_zero())
        }
        RoundingMode::TowardNegative | RoundingMode::TowardNegativeIntegral => {
            (lowering.shared.context.bool_type().const_zero(), side.below)
        }
        RoundingMode::TowardZero | RoundingMode::TowardZeroIntegral => {
            (builder.build_and(negative, side.above, "")?, builder.build_and(positive, side.below, "")?)
        }
        RoundingMode::NearestEven | RoundingMode::NearestEvenIntegral => return Ok(nearest),
    };
    let up = next_up(lowering, nearest)?;
    let down = next_down(lowering, nearest)?;
    let result = builder.build_select(step_up, up, nearest, "")?.into_float_value();
    let result = builder.build_select(step_down, down, result, "")?.into_float_value();
    // Overflow: round-to-nearest gave an infinity that a directed mode may not reach.
    let magnitude =
        intrinsic(lowering, "llvm.fabs", &[float_type.into()], &[nearest.into()], Span::default())?.into_float_value();
    let infinite =
        builder.build_float_compare(FloatPredicate::OEQ, magnitude, float_type.const_float(f64::INFINITY), "")?;
    let overflowed = builder.build_and(infinite, finite_inputs, "")?;
    let keeps_infinity = match mode {
        RoundingMode::TowardPositive | RoundingMode::TowardPositiveIntegral => positive,
        RoundingMode::TowardNegative | RoundingMode::TowardNegativeIntegral => negative,
        _ => lowering.shared.context.bool_type().const_zero(),
    };
    let to_largest = builder.build_and(overflowed, builder.build_not(keeps_infinity, "")?, "")?;
    let largest = if float_type.get_bit_width() == 64 { f64::MAX } else { f64::from(f32::MAX) };
    let largest = float_type.const_float(largest);
    let signed_largest =
        intrinsic(lowering, "llvm.copysign", &[float_type.into()], &[largest.into(), nearest.into()], Span::default())?
            .into_float_value();
    Ok(builder.build_select(to_largest, signed_largest, result, "")?.into_float_value())
}

/// IEEE 754's sign of an exact zero sum: `+0` in every mode but `.rm`, where it is `-0` unless
/// both addends are `+0`; `side` tells an exact zero from a rounded one. Round-to-nearest gave `+0` for an exact cancellation, so under `.rm`
/// such a zero becomes `-0`. `addends` are the two values summed (the product's sign stands
/// for a product).
pub fn signed_zero_sum<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    result: FloatValue<'ctx>,
    side: &Side<'ctx>,
    addends: [FloatValue<'ctx>; 2],
    mode: RoundingMode,
) -> LoweringResult<FloatValue<'ctx>> {
    if mode != RoundingMode::TowardNegative {
        return Ok(result);
    }
    let builder = lowering.shared.builder;
    let float_type = result.get_type();
    let context = lowering.shared.context;
    let bits_type = if float_type.get_bit_width() == 64 { context.i64_type() } else { context.i32_type() };
    let positive_zero = |value: FloatValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        let bits = builder.build_bit_cast(value, bits_type, "")?.into_int_value();
        Ok(builder.build_int_compare(IntPredicate::EQ, bits, bits_type.const_zero(), "")?)
    };
    // Only an exact zero: a tiny sum that rounded to zero keeps the sign of its side.
    let zero = builder.build_float_compare(FloatPredicate::OEQ, result, float_type.const_zero(), "")?;
    let inexact = builder.build_or(side.above, side.below, "")?;
    let zero = builder.build_and(zero, builder.build_not(inexact, "")?, "")?;
    let both_positive_zero = builder.build_and(positive_zero(addends[0])?, positive_zero(addends[1])?, "")?;
    let negative = builder.build_and(zero, builder.build_not(both_positive_zero, "")?, "")?;
    let negative_zero = float_type.const_float(-0.0);
    Ok(builder.build_select(negative, negative_zero, result, "")?.into_float_value())
}

/// Whether every value is finite.
pub fn all_finite<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    values: &[FloatValue<'ctx>],
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let mut all = lowering.shared.context.bool_type().const_int(1, false);
    for &value in values {
        let float_type = value.get_type();
        let magnitude = intrinsic(lowering, "llvm.fabs", &[float_type.into()], &[value.into()], Span::default())?
            .into_float_value();
        let finite =
            builder.build_float_compare(FloatPredicate::OLT, magnitude, float_type.const_float(f64::INFINITY), "")?;
        all = builder.build_and(all, finite, "")?;
    }
    Ok(all)
}

/// Whether `divisor` is non-zero: a quotient by zero is exactly infinite, not an overflow.
pub fn and_nonzero<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    finite: IntValue<'ctx>,
    divisor: FloatValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let nonzero = builder.build_float_compare(FloatPredicate::ONE, divisor, divisor.get_type().const_zero(), "")?;
    Ok(builder.build_and(finite, nonzero, "")?)
}

/// Whether a rounding mode is one of the directed ones.
pub fn is_directed(mode: Option<RoundingMode>) -> bool {
    matches!(mode, Some(RoundingMode::TowardZero | RoundingMode::TowardNegative | RoundingMode::TowardPositive))
}
