//! `add`, `sub`, `mul`, `fma`, `min`, `max`, `neg` and `abs` on the half types (ISA 7.8
//! section 9.7.4).

use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::{
    Destination, HalfBinaryOperation, HalfSaturation, HalfUnaryOperation, MinimumMaximum, Operand, RoundingMode,
};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::{
    approximate, finish_lane, finish_rounded_lane, read_flushed, write_lanes, Emit, Format, CANONICAL_NAN, SIGN,
};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

#[allow(clippy::too_many_arguments)]
pub fn binary<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: HalfBinaryOperation,
    ty: ScalarType,
    flush: bool,
    saturation: HalfSaturation,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let emit = Emit { lowering, span };
    let format = Format::of(ty);
    let a_lanes = read_flushed(&emit, a, ty, flush)?;
    let b_lanes = read_flushed(&emit, b, ty, flush)?;
    let mut results = Vec::with_capacity(a_lanes.len());
    for (a, b) in a_lanes.into_iter().zip(b_lanes) {
        let builder = emit.builder();
        let result = match operation {
            HalfBinaryOperation::Minimum(modifiers) => minimum_maximum(&emit, a, b, format, modifiers, true)?,
            HalfBinaryOperation::Maximum(modifiers) => minimum_maximum(&emit, a, b, format, modifiers, false)?,
            HalfBinaryOperation::Add | HalfBinaryOperation::Subtract | HalfBinaryOperation::Multiply => {
                let (a, b) = (emit.widen(a, format)?, emit.widen(b, format)?);
                let value = match operation {
                    HalfBinaryOperation::Add => builder.build_float_add(a, b, "")?,
                    HalfBinaryOperation::Subtract => builder.build_float_sub(a, b, "")?,
                    _ => builder.build_float_mul(a, b, "")?,
                };
                finish_lane(&emit, value, format, flush, saturation)?
            }
        };
        results.push(result);
    }
    write_lanes(&emit, destination, &results)
}

/// `min`/`max`: a NaN operand is ignored unless `.NaN` is given, two NaNs give NaN, and -0.0 is
/// below +0.0.
pub(super) fn minimum_maximum<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    mut a: IntValue<'ctx>,
    mut b: IntValue<'ctx>,
    format: Format,
    modifiers: MinimumMaximum,
    minimum: bool,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = emit.builder();
    let xor_sign = builder.build_and(builder.build_xor(a, b, "")?, emit.i16(SIGN), "")?;
    if modifiers.xorsign_absolute {
        a = emit.and(a, emit.i16(0x7fff))?;
        b = emit.and(b, emit.i16(0x7fff))?;
    }
    let (a_value, b_value) = (emit.widen(a, format)?, emit.widen(b, format)?);
    let a_nan = emit.is_nan_bits(a, format)?;
    let b_nan = emit.is_nan_bits(b, format)?;
    let equal = emit.compare_float(FloatPredicate::OEQ, a_value, b_value)?;
    let (strictly, a_wins_tie) = if minimum {
        (emit.compare_float(FloatPredicate::OLT, a_value, b_value)?, emit.sign_set(a)?)
    } else {
        (emit.compare_float(FloatPredicate::OGT, a_value, b_value)?, emit.sign_set(b)?)
    };
    let take_a = emit.or(strictly, emit.and(equal, a_wins_tie)?)?;
    let mut result = emit.select_int(take_a, a, b)?;
    result = emit.select_int(a_nan, b, result)?;
    result = emit.select_int(b_nan, a, result)?;
    let nan_result = if modifiers.propagate_nan { emit.or(a_nan, b_nan)? } else { emit.and(a_nan, b_nan)? };
    if modifiers.xorsign_absolute {
        let signed = emit.or(result, xor_sign)?;
        result = emit.select_int(nan_result, result, signed)?;
    }
    emit.select_int(nan_result, emit.i16(CANONICAL_NAN), result)
}

#[allow(clippy::too_many_arguments)]
pub fn fused_multiply_add<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    rounding: RoundingMode,
    flush: bool,
    saturation: HalfSaturation,
    destination: &Destination,
    operands: [&Operand; 3],
    span: Span,
) -> LoweringResult<()> {
    let emit = Emit { lowering, span };
    let format = Format::of(ty);
    let [a, b, c] = operands;
    let a_lanes = read_flushed(&emit, a, ty, flush)?;
    let b_lanes = read_flushed(&emit, b, ty, flush)?;
    let c_lanes = read_flushed(&emit, c, ty, flush)?;
    let mut results = Vec::with_capacity(a_lanes.len());
    for ((a, b), c) in a_lanes.into_iter().zip(b_lanes).zip(c_lanes) {
        let builder = emit.builder();
        let (a, b, c) = (emit.widen(a, format)?, emit.widen(b, format)?, emit.widen(c, format)?);
        // The product of two 16-bit floats is exact in double; only the sum rounds. Rounded to
        // odd, the double keeps enough of the exact sum for any rounding to 16 bits to agree
        // with rounding the exact sum (`.rn`, and the directed modes of `.bf16`).
        let product = builder.build_float_mul(a, b, "")?;
        let mut sum = builder.build_float_add(product, c, "")?;
        if rounding == RoundingMode::TowardNegative {
            // A zero sum here is exact (no sum of 16-bit floats underflows a double), and IEEE
            // makes it -0 under `.rm` unless both addends are +0: `-((-p) + (-c))` is that.
            let negated =
                builder.build_float_add(builder.build_float_neg(product, "")?, builder.build_float_neg(c, "")?, "")?;
            let rounded_down_zero = builder.build_float_neg(negated, "")?;
            let zero = emit.compare_float(FloatPredicate::OEQ, sum, emit.f64(0.0))?;
            sum = emit.select_float(zero, rounded_down_zero, sum)?;
        }
        let odd = rounded_to_odd_sum(&emit, product, c, sum)?;
        results.push(finish_rounded_lane(&emit, odd, format, rounding, flush, saturation)?);
    }
    write_lanes(&emit, destination, &results)
}

/// `sum = p + c` rounded to odd instead of to nearest: TwoSum gives the exact rounding error;
/// when it is not zero and the sum's last bit is even, the sum moves one unit towards it.
fn rounded_to_odd_sum<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    p: FloatValue<'ctx>,
    c: FloatValue<'ctx>,
    sum: FloatValue<'ctx>,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = emit.builder();
    let c_part = builder.build_float_sub(sum, p, "")?;
    let p_part = builder.build_float_sub(sum, c_part, "")?;
    let p_error = builder.build_float_sub(p, p_part, "")?;
    let c_error = builder.build_float_sub(c, c_part, "")?;
    let error = builder.build_float_add(p_error, c_error, "")?;
    let bits = emit.float_bits(sum)?;
    let inexact = emit.compare_float(FloatPredicate::ONE, error, emit.f64(0.0))?;
    let even = emit.compare(IntPredicate::EQ, emit.and(bits, emit.i64(1))?, emit.i64(0))?;
    let error_positive = emit.compare_float(FloatPredicate::OGT, error, emit.f64(0.0))?;
    let sum_positive = emit.compare_float(FloatPredicate::OGT, sum, emit.f64(0.0))?;
    let outward = builder.build_int_compare(IntPredicate::EQ, error_positive, sum_positive, "")?;
    let step = emit.select_int(outward, emit.i64(1), emit.i64(u64::MAX))?;
    let stepped = emit.bits_float(emit.add(bits, step)?, emit.context().f64_type())?;
    emit.select_float(emit.and(inexact, even)?, stepped, sum)
}

pub fn unary<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: HalfUnaryOperation,
    ty: ScalarType,
    flush: bool,
    destination: &Destination,
    a: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let emit = Emit { lowering, span };
    let format = Format::of(ty);
    let lanes = read_flushed(&emit, a, ty, flush)?;
    let results = lanes
        .into_iter()
        .map(|lane| match operation {
            HalfUnaryOperation::Negate => Ok(emit.builder().build_xor(lane, emit.i16(SIGN), "")?),
            HalfUnaryOperation::Absolute => emit.and(lane, emit.i16(0x7fff)),
            HalfUnaryOperation::ApproximateTanh => {
                let value = approximate::tanh(&emit, emit.widen(lane, format)?)?;
                finish_lane(&emit, value, format, flush, HalfSaturation::None)
            }
            HalfUnaryOperation::ApproximateExp2 => {
                let value = approximate::exp2(&emit, emit.widen(lane, format)?)?;
                finish_lane(&emit, value, format, flush, HalfSaturation::None)
            }
        })
        .collect::<LoweringResult<Vec<_>>>()?;
    write_lanes(&emit, destination, &results)
}
