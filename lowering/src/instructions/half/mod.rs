//! Half-precision arithmetic, comparison and conversion (ISA 7.8 sections 9.7.4, 9.7.6 and
//! 9.7.8.18) on `.f16`, `.bf16`, their packed pairs and the 8-bit floats.
//!
//! Every lane is handled as its 16 bits: operands are widened exactly to `double`, computed
//! there, and rounded back once. Nothing uses LLVM's `bfloat` type, which the SPIR-V backend
//! rejects, nor its `half` type, which would need SPIR-V's Float16 capability (OpenCL only has
//! it with `cl_khr_fp16`): binary16 lanes are widened and narrowed with integer operations.
//! Packed pairs are two scalar lanes (low half first) rather than `<2 x half>`.
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
//!
//! This file holds the lanes and their rounding; `arithmetic.rs` (with `approximate.rs` for
//! `tanh.approx` and `ex2.approx`), `comparison.rs`,
//! `conversion.rs` and `atomic_add.rs` (float `atom.add` as a compare-and-swap loop) the
//! instructions.
mod approximate;
mod arithmetic;
mod atomic_add;
mod comparison;
mod conversion;

pub use arithmetic::{binary, fused_multiply_add, unary};
pub use atomic_add::{add_by_compare_and_swap, update_by_compare_and_swap, LaneUpdate};
pub use comparison::{compare_lanes, packed_set_predicate, set};
pub use conversion::{convert, float8_convert, pack_convert};

use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::{Destination, HalfSaturation, Operand, RoundingMode, Value};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::support::intrinsic;
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
        match format {
            Format::Half => self.widen_half(bits),
            Format::Brain => {
                let wide = builder.build_int_z_extend(bits, context.i32_type(), "")?;
                let shifted = builder.build_left_shift(wide, self.i32(16), "")?;
                let narrow = self.bits_float(shifted, context.f32_type())?;
                Ok(builder.build_float_ext(narrow, context.f64_type(), "")?)
            }
        }
    }

    /// An IEEE binary16 lane as a `double`, built from the bits with integer operations (LLVM's
    /// `half` would need SPIR-V's Float16 capability): a normal number or an infinity or NaN
    /// (payload kept) moves its exponent to `double`'s bias and its fraction to the top of
    /// `double`'s; a subnormal is its fraction times 2^-24, exact in `double`.
    fn widen_half(&self, bits: IntValue<'ctx>) -> LoweringResult<FloatValue<'ctx>> {
        let builder = self.builder();
        let context = self.context();
        let wide = builder.build_int_z_extend(bits, context.i64_type(), "")?;
        let sign = builder.build_left_shift(self.and(wide, self.i64(SIGN))?, self.i64(48), "")?;
        let exponent = self.and(builder.build_right_shift(wide, self.i64(10), false, "")?, self.i64(0x1f))?;
        let fraction = self.and(wide, self.i64(0x3ff))?;
        let shifted_fraction = builder.build_left_shift(fraction, self.i64(42), "")?;
        let special = self.compare(IntPredicate::EQ, exponent, self.i64(0x1f))?;
        let wide_exponent = self.select_int(special, self.i64(0x7ff), self.add(exponent, self.i64(1023 - 15))?)?;
        let normal = self.or(builder.build_left_shift(wide_exponent, self.i64(52), "")?, shifted_fraction)?;
        let subnormal = builder.build_float_mul(
            builder.build_unsigned_int_to_float(fraction, context.f64_type(), "")?,
            self.f64(f64::powi(2.0, -24)),
            "",
        )?;
        let subnormal = self.float_bits(subnormal)?;
        let is_subnormal = self.compare(IntPredicate::EQ, exponent, self.i64(0))?;
        let magnitude = self.select_int(is_subnormal, subnormal, normal)?;
        self.bits_float(self.or(magnitude, sign)?, context.f64_type())
    }

    /// `float` bits (rounded to odd from the exact value, so at least two bits more precise than
    /// the result) rounded to the nearest IEEE binary16, ties to even, with integer operations:
    /// normal results shift the rebiased bits right by 13 with a rounding bias, and a carry
    /// into the exponent makes 65520 and above infinity; subnormal results shift the significand
    /// right by as much as the exponent lies below half's normal range.
    fn float_bits_to_half(&self, float: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        let builder = self.builder();
        let context = self.context();
        let sign = self.and(builder.build_right_shift(float, self.i32(16), false, "")?, self.i32(SIGN))?;
        let magnitude = self.and(float, self.i32(0x7fff_ffff))?;
        // Normal: exponent 113..142 of `float` is 1..30 of half (bias 127 against 15).
        let rebiased = builder.build_int_sub(magnitude, self.i32(112 << 23), "")?;
        let lowest_kept = self.and(builder.build_right_shift(rebiased, self.i32(13), false, "")?, self.i32(1))?;
        let bias = self.add(self.i32(0xfff), lowest_kept)?;
        let normal = builder.build_right_shift(self.add(rebiased, bias)?, self.i32(13), false, "")?;
        let overflows = self.compare(IntPredicate::UGT, normal, self.i32(Format::Half.infinity()))?;
        let normal = self.select_int(overflows, self.i32(Format::Half.infinity()), normal)?;
        // Subnormal: the value in units of 2^-24 is the significand shifted right by 126 - exponent
        // (at least 14; past 31 everything is below half a unit).
        let exponent = builder.build_right_shift(magnitude, self.i32(23), false, "")?;
        let significand = self.or(self.and(magnitude, self.i32(0x7f_ffff))?, self.i32(0x80_0000))?;
        let shift = builder.build_int_sub(self.i32(126), exponent, "")?;
        let too_far = self.compare(IntPredicate::UGT, shift, self.i32(31))?;
        let shift = self.select_int(too_far, self.i32(31), shift)?;
        let kept = builder.build_right_shift(significand, shift, false, "")?;
        let unit = builder.build_left_shift(self.i32(1), shift, "")?;
        let dropped = self.and(significand, builder.build_int_sub(unit, self.i32(1), "")?)?;
        let halfway = builder.build_right_shift(unit, self.i32(1), false, "")?;
        let above = self.compare(IntPredicate::UGT, dropped, halfway)?;
        let tie = self.compare(IntPredicate::EQ, dropped, halfway)?;
        let odd = self.compare(IntPredicate::NE, self.and(kept, self.i32(1))?, self.i32(0))?;
        let round_up = self.or(above, self.and(tie, odd)?)?;
        let subnormal = self.add(kept, builder.build_int_z_extend(round_up, context.i32_type(), "")?)?;
        let is_subnormal = self.compare(IntPredicate::ULT, magnitude, self.i32(113 << 23))?;
        let half = self.or(self.select_int(is_subnormal, subnormal, normal)?, sign)?;
        Ok(builder.build_int_truncate(half, context.i16_type(), "")?)
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
                let bits = self.float_rounded_to_odd(value)?;
                self.float_bits_to_half(bits)?
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
    finish_rounded_lane(emit, value, format, RoundingMode::NearestEven, flush, saturation)
}

/// [`finish_lane`] with the rounding `rounding`.
fn finish_rounded_lane<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    value: FloatValue<'ctx>,
    format: Format,
    rounding: RoundingMode,
    flush: bool,
    saturation: HalfSaturation,
) -> LoweringResult<IntValue<'ctx>> {
    let mut bits = emit.narrow(value, format, rounding)?;
    if flush {
        bits = emit.flush_bits(bits)?;
    }
    emit.saturation(bits, format, saturation)
}

/// A `.f16` (`brain` false) or `.bf16` value's 16 bits (an `i16`), exactly, as a `double`: the
/// elements of `mma`'s half-precision operands.
pub fn widen_to_double<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    bits: IntValue<'ctx>,
    brain: bool,
    span: Span,
) -> LoweringResult<FloatValue<'ctx>> {
    let emit = Emit { lowering, span };
    emit.widen(bits, if brain { Format::Brain } else { Format::Half })
}

/// An 8-bit float's 8 bits (an `i8`; `.e5m2` when `five_exponent_bits`, else `.e4m3`),
/// exactly, as a `double`: the elements of `mma`'s 8-bit float operands.
pub fn float8_to_double<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    byte: IntValue<'ctx>,
    five_exponent_bits: bool,
    span: Span,
) -> LoweringResult<FloatValue<'ctx>> {
    let emit = Emit { lowering, span };
    use ptxr_frontend::ir::PackedFormat;
    let format = if five_exponent_bits { PackedFormat::E5m2x2 } else { PackedFormat::E4m3x2 };
    conversion::decode_float8(&emit, byte, format)
}

/// A `double` rounded to the nearest `.f16`, ties to even, as 16 bits (an `i16`); NaN becomes
/// the canonical NaN. `mma`'s `.f16` accumulators are rounded this way, once, from their sums.
pub fn round_to_half<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    span: Span,
) -> LoweringResult<IntValue<'ctx>> {
    let emit = Emit { lowering, span };
    emit.narrow(value, Format::Half, RoundingMode::NearestEven)
}
