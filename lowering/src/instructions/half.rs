//! Half-precision arithmetic, comparison and conversion (ISA 7.8 sections 9.7.4, 9.7.6 and
//! 9.7.8.18) on `.f16`, `.bf16`, their packed pairs and the 8-bit floats.
//!
//! Every lane is handled as its 16 bits: operands are widened exactly to `double`, computed
//! there, and rounded back once. Nothing uses LLVM's `bfloat` type, which the SPIR-V backend
//! rejects, and packed pairs are two scalar lanes (low half first) rather than `<2 x half>`.
//! Rounding is exact on every target:
//! - `add`, `sub` and `mul` of two 11- or 8-bit significands are exact in `double` or rounded
//!   there with more than twice the precision plus two bits, so the second rounding is the only
//!   one that shows;
//! - `fma` computes the sum's rounding error (TwoSum) and rounds the `double` to odd, which a
//!   later rounding to a format at least two bits narrower cannot misround;
//! - `bfloat16` goes from `double` to `float` by rounding to odd, then to 16 bits by integer
//!   round-to-nearest-even on the `float`'s bits;
//! - directed roundings take the nearest value and step one unit towards the right side when it
//!   lies on the wrong one.
//!
//! NaN results are the canonical NaN `0x7fff`, as on NVIDIA GPUs.

use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::{
    Comparison, Destination, HalfBinaryOperation, HalfSaturation, HalfUnaryOperation, LogicOperation, MinimumMaximum,
    Operand, PackedFormat, RoundingMode, Value,
};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::comparison::{combine, float_predicate, int_predicate};
use super::support::{flush_subnormal, intrinsic, saturate_unit};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// The two 16-bit float formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    /// IEEE binary16 (`.f16`).
    Half,
    /// bfloat16 (`.bf16`): `float`'s upper 16 bits.
    Brain,
}

const CANONICAL_NAN: u64 = 0x7fff;
const SIGN: u64 = 0x8000;

impl Format {
    fn of(ty: ScalarType) -> Format {
        match ty {
            ScalarType::Bf16 | ScalarType::Bf16x2 => Format::Brain,
            _ => Format::Half,
        }
    }

    fn one(self) -> u64 {
        match self {
            Format::Half => 0x3c00,
            Format::Brain => 0x3f80,
        }
    }

    fn infinity(self) -> u64 {
        match self {
            Format::Half => 0x7c00,
            Format::Brain => 0x7f80,
        }
    }

    fn largest_finite(self) -> u64 {
        self.infinity() - 1
    }
}

fn lane_count(ty: ScalarType) -> usize {
    if matches!(ty, ScalarType::F16x2 | ScalarType::Bf16x2) {
        2
    } else {
        1
    }
}

/// Small constructors and bit tests over one builder.
struct Emit<'l, 'a, 'ctx> {
    lowering: &'l FunctionLowering<'a, 'ctx>,
    span: Span,
}

impl<'a, 'ctx> Emit<'_, 'a, 'ctx> {
    fn builder(&self) -> &'a inkwell::builder::Builder<'ctx> {
        self.lowering.shared.builder
    }

    fn context(&self) -> &'ctx inkwell::context::Context {
        self.lowering.shared.context
    }

    fn i16(&self, value: u64) -> IntValue<'ctx> {
        self.context().i16_type().const_int(value, false)
    }

    fn i32(&self, value: u64) -> IntValue<'ctx> {
        self.context().i32_type().const_int(value, false)
    }

    fn i64(&self, value: u64) -> IntValue<'ctx> {
        self.context().i64_type().const_int(value, false)
    }

    fn f64(&self, value: f64) -> FloatValue<'ctx> {
        self.context().f64_type().const_float(value)
    }

    fn select_int(
        &self,
        condition: IntValue<'ctx>,
        yes: IntValue<'ctx>,
        no: IntValue<'ctx>,
    ) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_select(condition, yes, no, "")?.into_int_value())
    }

    fn select_float(
        &self,
        condition: IntValue<'ctx>,
        yes: FloatValue<'ctx>,
        no: FloatValue<'ctx>,
    ) -> LoweringResult<FloatValue<'ctx>> {
        Ok(self.builder().build_select(condition, yes, no, "")?.into_float_value())
    }

    fn compare(&self, predicate: IntPredicate, a: IntValue<'ctx>, b: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_int_compare(predicate, a, b, "")?)
    }

    fn compare_float(
        &self,
        predicate: FloatPredicate,
        a: FloatValue<'ctx>,
        b: FloatValue<'ctx>,
    ) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_float_compare(predicate, a, b, "")?)
    }

    fn and(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_and(a, b, "")?)
    }

    fn or(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_or(a, b, "")?)
    }

    fn add(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_int_add(a, b, "")?)
    }

    fn absolute(&self, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
        Ok(intrinsic(self.lowering, "llvm.fabs", &[value.get_type().into()], &[value.into()], self.span)?
            .into_float_value())
    }

    fn unary_intrinsic(&self, name: &str, value: FloatValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
        Ok(intrinsic(self.lowering, name, &[value.get_type().into()], &[value.into()], self.span)?.into_float_value())
    }

    fn float_bits(&self, value: FloatValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        let int_type = crate::types::integer_type(self.context(), value.get_type().get_bit_width());
        Ok(self.builder().build_bit_cast(value, int_type, "")?.into_int_value())
    }

    fn bits_float(
        &self,
        bits: IntValue<'ctx>,
        float_type: inkwell::types::FloatType<'ctx>,
    ) -> LoweringResult<FloatValue<'ctx>> {
        Ok(self.builder().build_bit_cast(bits, float_type, "")?.into_float_value())
    }

    /// `2^exponent` as a `double`, for an `i64` exponent inside the normal range.
    fn power_of_two(&self, exponent: IntValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
        let biased = self.add(exponent, self.i64(1023))?;
        let bits = self.builder().build_left_shift(biased, self.i64(52), "")?;
        self.bits_float(bits, self.context().f64_type())
    }

    fn is_nan_bits(&self, bits: IntValue<'ctx>, format: Format) -> LoweringResult<IntValue<'ctx>> {
        let magnitude = self.and(bits, self.i16(0x7fff))?;
        self.compare(IntPredicate::UGT, magnitude, self.i16(format.infinity()))
    }

    fn sign_set(&self, bits: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        let sign = self.and(bits, self.i16(SIGN))?;
        self.compare(IntPredicate::NE, sign, self.i16(0))
    }

    /// A lane's value, exactly, as a `double`.
    fn widen(&self, bits: IntValue<'ctx>, format: Format) -> LoweringResult<FloatValue<'ctx>> {
        let builder = self.builder();
        let context = self.context();
        let narrow = match format {
            Format::Half => self.bits_float(bits, context.f16_type())?,
            Format::Brain => {
                let wide = builder.build_int_z_extend(bits, context.i32_type(), "")?;
                let shifted = builder.build_left_shift(wide, self.i32(16), "")?;
                self.bits_float(shifted, context.f32_type())?
            }
        };
        Ok(builder.build_float_ext(narrow, context.f64_type(), "")?)
    }

    /// `.ftz` on a `.f16` lane: a subnormal becomes a zero of the same sign.
    fn flush_bits(&self, bits: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        let exponent = self.and(bits, self.i16(0x7c00))?;
        let subnormal = self.compare(IntPredicate::EQ, exponent, self.i16(0))?;
        let signed_zero = self.and(bits, self.i16(SIGN))?;
        self.select_int(subnormal, signed_zero, bits)
    }

    /// `float` bits rounded to odd from a `double`: exact values stay, inexact ones take the
    /// neighbour whose last bit is 1, so a later rounding to bfloat16 rounds only once.
    fn float_rounded_to_odd(&self, value: FloatValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        let builder = self.builder();
        let context = self.context();
        let nearest = builder.build_float_trunc(value, context.f32_type(), "")?;
        let back = builder.build_float_ext(nearest, context.f64_type(), "")?;
        let bits = self.float_bits(nearest)?;
        let inexact = self.compare_float(FloatPredicate::ONE, back, value)?;
        let even = self.compare(IntPredicate::EQ, self.and(bits, self.i32(1))?, self.i32(0))?;
        let outward = self.compare_float(FloatPredicate::OGT, self.absolute(value)?, self.absolute(back)?)?;
        let step = self.select_int(outward, self.i32(1), self.i32(u64::from(u32::MAX)))?;
        let stepped = self.add(bits, step)?;
        let adjust = self.and(inexact, even)?;
        self.select_int(adjust, stepped, bits)
    }

    /// Rounds `value` (exact, or already rounded to odd with at least two more bits) to the
    /// format, NaN becoming the canonical NaN.
    fn narrow(
        &self,
        value: FloatValue<'ctx>,
        format: Format,
        rounding: RoundingMode,
    ) -> LoweringResult<IntValue<'ctx>> {
        let builder = self.builder();
        let context = self.context();
        let nearest = match format {
            Format::Half => {
                let half = builder.build_float_trunc(value, context.f16_type(), "")?;
                self.float_bits(half)?
            }
            Format::Brain => {
                let bits = self.float_rounded_to_odd(value)?;
                let lowest_kept = builder.build_right_shift(bits, self.i32(16), false, "")?;
                let lowest_kept = self.and(lowest_kept, self.i32(1))?;
                let bias = self.add(self.i32(0x7fff), lowest_kept)?;
                let rounded = builder.build_right_shift(self.add(bits, bias)?, self.i32(16), false, "")?;
                builder.build_int_truncate(rounded, context.i16_type(), "")?
            }
        };
        let rounded = match rounding {
            RoundingMode::NearestEven | RoundingMode::NearestEvenIntegral => nearest,
            RoundingMode::TowardZero | RoundingMode::TowardZeroIntegral => {
                let back = self.widen(nearest, format)?;
                let outward = self.compare_float(FloatPredicate::OGT, self.absolute(back)?, self.absolute(value)?)?;
                let inward = builder.build_int_sub(nearest, self.i16(1), "")?;
                self.select_int(outward, inward, nearest)?
            }
            RoundingMode::TowardNegative | RoundingMode::TowardNegativeIntegral => {
                let back = self.widen(nearest, format)?;
                let above = self.compare_float(FloatPredicate::OGT, back, value)?;
                let down = self.step(nearest, false)?;
                self.select_int(above, down, nearest)?
            }
            RoundingMode::TowardPositive | RoundingMode::TowardPositiveIntegral => {
                let back = self.widen(nearest, format)?;
                let below = self.compare_float(FloatPredicate::OLT, back, value)?;
                let up = self.step(nearest, true)?;
                self.select_int(below, up, nearest)?
            }
        };
        let is_nan = self.compare_float(FloatPredicate::UNO, value, value)?;
        self.select_int(is_nan, self.i16(CANONICAL_NAN), rounded)
    }

    /// The next representable lane value up (`upward`) or down from `bits`.
    fn step(&self, bits: IntValue<'ctx>, upward: bool) -> LoweringResult<IntValue<'ctx>> {
        let builder = self.builder();
        let magnitude = self.and(bits, self.i16(0x7fff))?;
        let zero = self.compare(IntPredicate::EQ, magnitude, self.i16(0))?;
        let negative = self.sign_set(bits)?;
        let grows = if upward { builder.build_not(negative, "")? } else { negative };
        let larger = self.add(bits, self.i16(1))?;
        let smaller = builder.build_int_sub(bits, self.i16(1), "")?;
        let stepped = self.select_int(grows, larger, smaller)?;
        let smallest = self.i16(if upward { 1 } else { SIGN | 1 });
        self.select_int(zero, smallest, stepped)
    }

    /// `.sat`: NaN and negative results become +0.0, results above 1.0 become 1.0.
    fn saturate_bits(&self, bits: IntValue<'ctx>, format: Format) -> LoweringResult<IntValue<'ctx>> {
        let nan_or_negative = self.or(self.is_nan_bits(bits, format)?, self.sign_set(bits)?)?;
        let above_one = self.compare(IntPredicate::UGT, bits, self.i16(format.one()))?;
        let clamped = self.select_int(above_one, self.i16(format.one()), bits)?;
        self.select_int(nan_or_negative, self.i16(0), clamped)
    }

    /// `.relu`: negative results (-0.0 included) become +0.0, NaN the canonical NaN.
    fn relu_bits(&self, bits: IntValue<'ctx>, format: Format) -> LoweringResult<IntValue<'ctx>> {
        let positive = self.select_int(self.sign_set(bits)?, self.i16(0), bits)?;
        self.select_int(self.is_nan_bits(bits, format)?, self.i16(CANONICAL_NAN), positive)
    }

    /// `.satfinite`: infinities become the largest finite value of their sign.
    fn satfinite_bits(&self, bits: IntValue<'ctx>, format: Format) -> LoweringResult<IntValue<'ctx>> {
        let magnitude = self.and(bits, self.i16(0x7fff))?;
        let infinite = self.compare(IntPredicate::EQ, magnitude, self.i16(format.infinity()))?;
        let largest = self.or(self.and(bits, self.i16(SIGN))?, self.i16(format.largest_finite()))?;
        self.select_int(infinite, largest, bits)
    }

    fn saturation(
        &self,
        bits: IntValue<'ctx>,
        format: Format,
        saturation: HalfSaturation,
    ) -> LoweringResult<IntValue<'ctx>> {
        match saturation {
            HalfSaturation::None => Ok(bits),
            HalfSaturation::Unit => self.saturate_bits(bits, format),
            HalfSaturation::Relu => self.relu_bits(bits, format),
        }
    }
}

/// Reads an operand of a half type as its lanes' bits, low lane first.
fn read_lanes<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    operand: &Operand,
    ty: ScalarType,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let lowering = emit.lowering;
    let builder = emit.builder();
    if let (Value::Float { bits, double }, 1) = (&operand.value, lane_count(ty)) {
        // A floating-point immediate is a value, rounded to the instruction's format.
        let value = if *double { f64::from_bits(*bits) } else { f64::from(f32::from_bits(*bits as u32)) };
        return Ok(vec![emit.narrow(emit.f64(value), Format::of(ty), RoundingMode::NearestEven)?]);
    }
    if lane_count(ty) == 1 {
        return Ok(vec![lowering.read_int(operand, ScalarType::B16)?]);
    }
    let packed = lowering.read_int(operand, ScalarType::B32)?;
    let i16_type = emit.context().i16_type();
    let low = builder.build_int_truncate(packed, i16_type, "")?;
    let high = builder.build_right_shift(packed, emit.i32(16), false, "")?;
    let high = builder.build_int_truncate(high, i16_type, "")?;
    Ok(vec![low, high])
}

/// Packs 16-bit lanes (low first) into one value of width 16 × lanes.
fn pack<'ctx>(emit: &Emit<'_, '_, 'ctx>, lanes: &[IntValue<'ctx>], lane_bits: u32) -> LoweringResult<IntValue<'ctx>> {
    let builder = emit.builder();
    let wide_type = crate::types::integer_type(emit.context(), lane_bits * lanes.len() as u32);
    let mut packed = wide_type.const_zero();
    for (index, lane) in lanes.iter().enumerate() {
        let wide = builder.build_int_z_extend_or_bit_cast(*lane, wide_type, "")?;
        let shifted =
            builder.build_left_shift(wide, wide_type.const_int(u64::from(lane_bits) * index as u64, false), "")?;
        packed = emit.or(packed, shifted)?;
    }
    Ok(packed)
}

fn write_lanes<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    destination: &Destination,
    lanes: &[IntValue<'ctx>],
) -> LoweringResult<()> {
    let ty = if lanes.len() == 2 { ScalarType::B32 } else { ScalarType::B16 };
    let packed = pack(emit, lanes, 16)?;
    emit.lowering.write(destination, packed.into(), ty)
}

/// Reads the lanes of `operand`, flushed when `.ftz` asks for it.
fn read_flushed<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    operand: &Operand,
    ty: ScalarType,
    flush: bool,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let lanes = read_lanes(emit, operand, ty)?;
    if flush {
        lanes.into_iter().map(|lane| emit.flush_bits(lane)).collect()
    } else {
        Ok(lanes)
    }
}

/// Rounding, `.ftz` and saturation of one result lane computed in `double`.
fn finish_lane<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    value: FloatValue<'ctx>,
    format: Format,
    flush: bool,
    saturation: HalfSaturation,
) -> LoweringResult<IntValue<'ctx>> {
    let mut bits = emit.narrow(value, format, RoundingMode::NearestEven)?;
    if flush {
        bits = emit.flush_bits(bits)?;
    }
    emit.saturation(bits, format, saturation)
}

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
fn minimum_maximum<'ctx>(
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
        // The product of two 16-bit floats is exact in double; only the sum rounds.
        let product = builder.build_float_mul(a, b, "")?;
        let sum = builder.build_float_add(product, c, "")?;
        let odd = rounded_to_odd_sum(&emit, product, c, sum)?;
        results.push(finish_lane(&emit, odd, format, flush, saturation)?);
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
    let lanes = read_flushed(&emit, a, ty, flush)?;
    let results = lanes
        .into_iter()
        .map(|lane| match operation {
            HalfUnaryOperation::Negate => Ok(emit.builder().build_xor(lane, emit.i16(SIGN), "")?),
            HalfUnaryOperation::Absolute => emit.and(lane, emit.i16(0x7fff)),
        })
        .collect::<LoweringResult<Vec<_>>>()?;
    write_lanes(&emit, destination, &results)
}

/// Each lane's comparison of `a` with `b` (low lane first) on a half type.
pub fn compare_lanes<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    comparison: Comparison,
    ty: ScalarType,
    flush: bool,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let emit = Emit { lowering, span: a.span };
    let format = Format::of(ty);
    let a_lanes = read_flushed(&emit, a, ty, flush && format == Format::Half)?;
    let b_lanes = read_flushed(&emit, b, ty, flush && format == Format::Half)?;
    a_lanes
        .into_iter()
        .zip(b_lanes)
        .map(|(a, b)| {
            let (a, b) = (emit.widen(a, format)?, emit.widen(b, format)?);
            emit.compare_float(float_predicate(comparison), a, b)
        })
        .collect()
}

/// Combines each lane's comparison with `{!}c` when the instruction has a boolean operation.
fn combine_lanes<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    lanes: Vec<IntValue<'ctx>>,
    combine_with: Option<&(LogicOperation, Operand, bool)>,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let Some((operation, predicate, negated)) = combine_with else {
        return Ok(lanes);
    };
    let mut c = lowering.read_int(predicate, ScalarType::Pred)?;
    if *negated {
        c = lowering.shared.builder.build_not(c, "")?;
    }
    lanes.into_iter().map(|lane| combine(lowering, *operation, lane, c)).collect()
}

/// `setp.cmp[.bool].f16x2 p|q, a, b[, c]`
#[allow(clippy::too_many_arguments)]
pub fn packed_set_predicate<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    comparison: Comparison,
    ty: ScalarType,
    flush: bool,
    low: &Destination,
    high: Option<&Destination>,
    a: &Operand,
    b: &Operand,
    combine_with: Option<&(LogicOperation, Operand, bool)>,
) -> LoweringResult<()> {
    let lanes = compare_lanes(lowering, comparison, ty, flush, a, b)?;
    let lanes = combine_lanes(lowering, lanes, combine_with)?;
    lowering.write(low, lanes[0].into(), ScalarType::Pred)?;
    if let Some(high) = high {
        lowering.write(high, lanes[1].into(), ScalarType::Pred)?;
    }
    Ok(())
}

/// `set.cmp[.bool].dtype.stype d, a, b[, c]`
#[allow(clippy::too_many_arguments)]
pub fn set<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    comparison: Comparison,
    destination_type: ScalarType,
    source_type: ScalarType,
    flush: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    combine_with: Option<&(LogicOperation, Operand, bool)>,
    span: Span,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let lanes = match source_type {
        ScalarType::F16 | ScalarType::Bf16 | ScalarType::F16x2 | ScalarType::Bf16x2 => {
            compare_lanes(lowering, comparison, source_type, flush, a, b)?
        }
        ScalarType::F32 | ScalarType::F64 => {
            let mut left = lowering.read(a, source_type)?.into_float_value();
            let mut right = lowering.read(b, source_type)?.into_float_value();
            if flush {
                left = flush_subnormal(lowering, left, source_type, a.span)?;
                right = flush_subnormal(lowering, right, source_type, b.span)?;
            }
            vec![builder.build_float_compare(float_predicate(comparison), left, right, "")?]
        }
        _ => {
            let (left, right) = (lowering.read_int(a, source_type)?, lowering.read_int(b, source_type)?);
            vec![builder.build_int_compare(int_predicate(comparison, source_type.is_signed()), left, right, "")?]
        }
    };
    let lanes = combine_lanes(lowering, lanes, combine_with)?;
    let emit = Emit { lowering, span };
    if lanes.len() == 2 {
        // Packed sources: each half is 1.0 (packed float destinations) or 0xffff.
        let truth = match destination_type {
            ScalarType::F16x2 => Format::Half.one(),
            ScalarType::Bf16x2 => Format::Brain.one(),
            _ => 0xffff,
        };
        let values = lanes
            .iter()
            .map(|lane| emit.select_int(*lane, emit.i16(truth), emit.i16(0)))
            .collect::<LoweringResult<Vec<_>>>()?;
        return write_lanes(&emit, destination, &values);
    }
    let (truth, bit_type) = match destination_type {
        ScalarType::F32 => (0x3f80_0000, ScalarType::B32),
        ScalarType::F16 => (Format::Half.one(), ScalarType::B16),
        ScalarType::Bf16 => (Format::Brain.one(), ScalarType::B16),
        ScalarType::U16 | ScalarType::S16 => (0xffff, ScalarType::B16),
        _ => (0xffff_ffff, ScalarType::B32),
    };
    let int_type = crate::types::integer_type(emit.context(), bit_type.bits());
    let value = emit.select_int(lanes[0], int_type.const_int(truth, false), int_type.const_zero())?;
    lowering.write(destination, value.into(), bit_type)
}

/// A `cvt` source as a `double`: exact for floats and for integers up to 32 bits, and rounded to
/// odd at 32 significant bits for 64-bit integers (enough for any 16-bit destination).
fn source_as_double<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    source: &Operand,
    source_type: ScalarType,
    flush: bool,
) -> LoweringResult<FloatValue<'ctx>> {
    let lowering = emit.lowering;
    let builder = emit.builder();
    let context = emit.context();
    let f64_type = context.f64_type();
    match source_type {
        ScalarType::F16 | ScalarType::Bf16 => {
            let bits = read_lanes(emit, source, source_type)?[0];
            emit.widen(bits, Format::of(source_type))
        }
        ScalarType::F32 | ScalarType::F64 => {
            let mut value = lowering.read(source, source_type)?.into_float_value();
            if flush && source_type == ScalarType::F32 {
                value = flush_subnormal(lowering, value, source_type, source.span)?;
            }
            Ok(if source_type == ScalarType::F32 { builder.build_float_ext(value, f64_type, "")? } else { value })
        }
        _ if source_type.bits() <= 32 => {
            let value = lowering.read_int(source, source_type)?;
            Ok(if source_type.is_signed() {
                builder.build_signed_int_to_float(value, f64_type, "")?
            } else {
                builder.build_unsigned_int_to_float(value, f64_type, "")?
            })
        }
        _ => {
            let value = lowering.read_int(source, source_type)?;
            let i64_type = context.i64_type();
            let negative = if source_type.is_signed() {
                emit.compare(IntPredicate::SLT, value, i64_type.const_zero())?
            } else {
                context.bool_type().const_zero()
            };
            let negated = builder.build_int_neg(value, "")?;
            let magnitude = emit.select_int(negative, negated, value)?;
            let leading_zeros = intrinsic(
                lowering,
                "llvm.ctlz",
                &[i64_type.into()],
                &[magnitude.into(), context.bool_type().const_zero().into()],
                emit.span,
            )?
            .into_int_value();
            let wide = emit.compare(IntPredicate::ULT, leading_zeros, emit.i64(32))?;
            let shift = emit.select_int(wide, builder.build_int_sub(emit.i64(32), leading_zeros, "")?, emit.i64(0))?;
            let kept = builder.build_right_shift(magnitude, shift, false, "")?;
            let mask = builder.build_int_sub(builder.build_left_shift(emit.i64(1), shift, "")?, emit.i64(1), "")?;
            let lost = emit.compare(IntPredicate::NE, emit.and(magnitude, mask)?, emit.i64(0))?;
            let sticky = builder.build_int_z_extend(lost, i64_type, "")?;
            let kept = emit.or(kept, sticky)?;
            let scaled = builder.build_float_mul(
                builder.build_unsigned_int_to_float(kept, f64_type, "")?,
                emit.power_of_two(shift)?,
                "",
            )?;
            let negated = builder.build_float_neg(scaled, "")?;
            emit.select_float(negative, negated, scaled)
        }
    }
}

/// `cvt` where either type is `.f16` or `.bf16`.
#[allow(clippy::too_many_arguments)]
pub fn convert<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    destination_type: ScalarType,
    source_type: ScalarType,
    rounding: RoundingMode,
    flush: bool,
    saturation: HalfSaturation,
    satfinite: bool,
    destination: &Destination,
    source: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let emit = Emit { lowering, span };
    let builder = emit.builder();
    let context = emit.context();
    let mut value = source_as_double(&emit, source, source_type, flush)?;
    // Conversions to integers round to an integral value in the given mode whether it is
    // spelled `.rzi` or `.rz`.
    if rounding.is_integral() || !destination_type.is_float() {
        let name = match rounding {
            RoundingMode::TowardZero | RoundingMode::TowardZeroIntegral => "llvm.trunc",
            RoundingMode::TowardNegative | RoundingMode::TowardNegativeIntegral => "llvm.floor",
            RoundingMode::TowardPositive | RoundingMode::TowardPositiveIntegral => "llvm.ceil",
            RoundingMode::NearestEven | RoundingMode::NearestEvenIntegral => "llvm.roundeven",
        };
        value = emit.unary_intrinsic(name, value)?;
    }
    match destination_type {
        ScalarType::F16 | ScalarType::Bf16 => {
            let format = Format::of(destination_type);
            let mut bits = emit.narrow(value, format, rounding)?;
            if satfinite {
                bits = emit.satfinite_bits(bits, format)?;
            }
            bits = emit.saturation(bits, format, saturation)?;
            lowering.write(destination, bits.into(), ScalarType::B16)
        }
        ScalarType::F32 | ScalarType::F64 => {
            // A half source is exact in either type.
            let float_type = crate::types::llvm_type(context, destination_type).into_float_type();
            let mut result = if destination_type == ScalarType::F32 {
                builder.build_float_trunc(value, float_type, "")?
            } else {
                value
            };
            if flush && destination_type == ScalarType::F32 {
                result = flush_subnormal(lowering, result, destination_type, span)?;
            }
            if saturation == HalfSaturation::Unit {
                result = saturate_unit(lowering, result)?;
            }
            lowering.write(destination, result.into(), destination_type)
        }
        _ => {
            // Float to integer: rounded above, then clamped into range with NaN becoming 0.
            let name = if destination_type.is_signed() { "llvm.fptosi.sat" } else { "llvm.fptoui.sat" };
            let int_type = crate::types::integer_type(context, destination_type.bits());
            let result = intrinsic(lowering, name, &[int_type.into(), value.get_type().into()], &[value.into()], span)?;
            lowering.write(destination, result, destination_type)
        }
    }
}

/// The 8-bit float formats: mantissa bits, exponent bias, largest finite encoding and value.
fn float8_parameters(format: PackedFormat) -> (u64, i64, u64, f64) {
    match format {
        PackedFormat::E5m2x2 => (2, 15, 0x7b, 57344.0),
        _ => (3, 7, 0x7e, 448.0),
    }
}

const FLOAT8_NAN: u64 = 0x7f;

/// Rounds an exact `double` to an 8-bit float, to nearest even with `.satfinite`: out-of-range
/// values and infinities become the largest finite value of their sign, NaN becomes `0x7f`.
fn encode_float8<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    value: FloatValue<'ctx>,
    format: PackedFormat,
    relu: bool,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = emit.builder();
    let context = emit.context();
    let (mantissa_bits, bias, largest_bits, largest) = float8_parameters(format);
    let bits = emit.float_bits(value)?;
    let negative = emit.compare(IntPredicate::SLT, bits, emit.i64(0))?;
    let magnitude = emit.absolute(value)?;
    // The binade of the value, clamped to the normal range (below it the quantum stays fixed).
    let biased = builder.build_right_shift(emit.float_bits(magnitude)?, emit.i64(52), false, "")?;
    let exponent = builder.build_int_sub(biased, emit.i64(1023), "")?;
    let minimum_exponent = emit.i64((1 - bias) as u64);
    let below = emit.compare(IntPredicate::SLT, exponent, minimum_exponent)?;
    let exponent = emit.select_int(below, minimum_exponent, exponent)?;
    let above = emit.compare(IntPredicate::SGT, exponent, emit.i64(30))?;
    let exponent = emit.select_int(above, emit.i64(30), exponent)?;
    let quantum = emit.power_of_two(builder.build_int_sub(exponent, emit.i64(mantissa_bits), "")?)?;
    let units = emit.unary_intrinsic("llvm.roundeven", builder.build_float_div(magnitude, quantum, "")?)?;
    let rounded = builder.build_float_mul(units, quantum, "")?;
    let units = intrinsic(
        emit.lowering,
        "llvm.fptoui.sat",
        &[context.i64_type().into(), context.f64_type().into()],
        &[units.into()],
        emit.span,
    )?
    .into_int_value();
    // (exponent + bias - 1) << mantissa_bits + units: a carry out of the mantissa bumps the
    // exponent, and subnormals (exponent at its minimum, units below 2^mantissa_bits) come out
    // with a zero exponent field.
    let exponent_field = builder.build_int_add(exponent, emit.i64((bias - 1) as u64), "")?;
    let encoded = emit.add(builder.build_left_shift(exponent_field, emit.i64(mantissa_bits), "")?, units)?;
    let overflow = emit.compare_float(FloatPredicate::OGT, rounded, context.f64_type().const_float(largest))?;
    let encoded = emit.select_int(overflow, emit.i64(largest_bits), encoded)?;
    let signed = emit.or(encoded, emit.i64(0x80))?;
    let mut result = emit.select_int(negative, signed, encoded)?;
    if relu {
        result = emit.select_int(negative, emit.i64(0), result)?;
    }
    let is_nan = emit.compare_float(FloatPredicate::UNO, value, value)?;
    let result = emit.select_int(is_nan, emit.i64(FLOAT8_NAN), result)?;
    Ok(builder.build_int_truncate(result, context.i8_type(), "")?)
}

/// An 8-bit float's value as a `double` (exact; NaN for the NaN encodings).
fn decode_float8<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    byte: IntValue<'ctx>,
    format: PackedFormat,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = emit.builder();
    let context = emit.context();
    let (mantissa_bits, bias, _, _) = float8_parameters(format);
    let byte = builder.build_int_z_extend(byte, context.i64_type(), "")?;
    let exponent_mask = (1u64 << (7 - mantissa_bits)) - 1;
    let exponent_field =
        emit.and(builder.build_right_shift(byte, emit.i64(mantissa_bits), false, "")?, emit.i64(exponent_mask))?;
    let mantissa = emit.and(byte, emit.i64((1 << mantissa_bits) - 1))?;
    let subnormal = emit.compare(IntPredicate::EQ, exponent_field, emit.i64(0))?;
    let implicit = emit.or(mantissa, emit.i64(1 << mantissa_bits))?;
    let significand = emit.select_int(subnormal, mantissa, implicit)?;
    let exponent = emit.select_int(subnormal, emit.i64(1), exponent_field)?;
    let scale = builder.build_int_sub(exponent, emit.i64((bias as u64) + mantissa_bits), "")?;
    let magnitude = builder.build_float_mul(
        builder.build_unsigned_int_to_float(significand, context.f64_type(), "")?,
        emit.power_of_two(scale)?,
        "",
    )?;
    let magnitude = match format {
        PackedFormat::E5m2x2 => {
            // E5M2 keeps IEEE's top exponent: infinity with a zero mantissa, NaN otherwise.
            let top = emit.compare(IntPredicate::EQ, exponent_field, emit.i64(exponent_mask))?;
            let nan_or_infinity = emit.select_float(
                emit.compare(IntPredicate::EQ, mantissa, emit.i64(0))?,
                emit.f64(f64::INFINITY),
                emit.f64(f64::NAN),
            )?;
            emit.select_float(top, nan_or_infinity, magnitude)?
        }
        _ => {
            // E4M3 has no infinity; only S.1111.111 is NaN.
            let nan = emit.compare(IntPredicate::EQ, emit.and(byte, emit.i64(0x7f))?, emit.i64(0x7f))?;
            emit.select_float(nan, emit.f64(f64::NAN), magnitude)?
        }
    };
    let negative = emit.compare(IntPredicate::NE, emit.and(byte, emit.i64(0x80))?, emit.i64(0))?;
    let negated = builder.build_float_neg(magnitude, "")?;
    emit.select_float(negative, negated, magnitude)
}

/// `cvt.frnd[.relu][.satfinite].packed.f32 d, a, b`: `a` into the high lane, `b` into the low.
#[allow(clippy::too_many_arguments)]
pub fn pack_convert<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    format: PackedFormat,
    rounding: RoundingMode,
    relu: bool,
    satfinite: bool,
    destination: &Destination,
    high: &Operand,
    low: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let emit = Emit { lowering, span };
    let mut lanes = Vec::with_capacity(2);
    for operand in [low, high] {
        let value = source_as_double(&emit, operand, ScalarType::F32, false)?;
        let lane = match format {
            PackedFormat::F16x2 | PackedFormat::Bf16x2 => {
                let lane_format = if format == PackedFormat::F16x2 { Format::Half } else { Format::Brain };
                let mut bits = emit.narrow(value, lane_format, rounding)?;
                if satfinite {
                    bits = emit.satfinite_bits(bits, lane_format)?;
                }
                if relu {
                    bits = emit.relu_bits(bits, lane_format)?;
                }
                bits
            }
            PackedFormat::E4m3x2 | PackedFormat::E5m2x2 => encode_float8(&emit, value, format, relu)?,
        };
        lanes.push(lane);
    }
    if format.is_float8() {
        let packed = pack(&emit, &lanes, 8)?;
        lowering.write(destination, packed.into(), ScalarType::B16)
    } else {
        write_lanes(&emit, destination, &lanes)
    }
}

/// `cvt.rn.satfinite[.relu].f8x2type.f16x2 d, a` and `cvt.rn[.relu].f16x2.f8x2type d, a`.
pub fn float8_convert<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    format: PackedFormat,
    to_float8: bool,
    relu: bool,
    destination: &Destination,
    source: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let emit = Emit { lowering, span };
    let builder = emit.builder();
    if to_float8 {
        let lanes = read_lanes(&emit, source, ScalarType::F16x2)?;
        let bytes = lanes
            .into_iter()
            .map(|lane| encode_float8(&emit, emit.widen(lane, Format::Half)?, format, relu))
            .collect::<LoweringResult<Vec<_>>>()?;
        let packed = pack(&emit, &bytes, 8)?;
        return lowering.write(destination, packed.into(), ScalarType::B16);
    }
    let packed = lowering.read_int(source, ScalarType::B16)?;
    let i8_type = emit.context().i8_type();
    let low = builder.build_int_truncate(packed, i8_type, "")?;
    let high = builder.build_int_truncate(builder.build_right_shift(packed, emit.i16(8), false, "")?, i8_type, "")?;
    let mut lanes = Vec::with_capacity(2);
    for byte in [low, high] {
        let mut bits = emit.narrow(decode_float8(&emit, byte, format)?, Format::Half, RoundingMode::NearestEven)?;
        if relu {
            bits = emit.relu_bits(bits, Format::Half)?;
        }
        lanes.push(bits);
    }
    write_lanes(&emit, destination, &lanes)
}
