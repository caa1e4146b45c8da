//! `cvt` to and from `.f16` and `.bf16`, packing into `.f16x2`, `.bf16x2` and the 8-bit float
//! pairs, and unpacking those (ISA 7.8 section 9.7.8.18).

use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::{Destination, HalfSaturation, Operand, PackedFormat, RoundingMode};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::super::support::{flush_subnormal, intrinsic, saturate_unit};
use super::{pack, read_lanes, write_lanes, Emit, Format, CANONICAL_NAN};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

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
            // Float to integer: rounded above (in `f64`, see `source_as_double`), then clamped
            // into range with NaN becoming 0.
            let int_type = crate::types::integer_type(context, destination_type.bits());
            let result = super::super::conversion::saturating_float_to_integer(
                lowering,
                value,
                int_type,
                destination_type.is_signed(),
            )?;
            lowering.write(destination, result.into(), destination_type)
        }
    }
}

/// A narrow float format's layout (OCP 8-bit floats v1.0; OCP Microscaling Formats v1.0 for the
/// 6- and 4-bit ones).
struct NarrowFloat {
    /// All bits, sign included: 8, 6 or 4.
    width: u64,
    mantissa_bits: u64,
    bias: i64,
    /// The largest finite value and its encoding.
    largest: f64,
    largest_bits: u64,
    /// What `.satfinite` makes of NaN: E4M3's and E5M2's NaN `0x7f`; the formats without NaN
    /// give their positive largest value (PTX ISA 8.6+, `cvt`'s `.satfinite`).
    nan_bits: u64,
}

fn narrow_float(format: PackedFormat) -> NarrowFloat {
    let (width, mantissa_bits, bias, largest, largest_bits, nan_bits) = match format {
        PackedFormat::E5m2x2 => (8, 2, 15, 57344.0, 0x7b, 0x7f),
        PackedFormat::E2m1x2 => (4, 1, 1, 6.0, 0x7, 0x7),
        PackedFormat::E2m3x2 => (6, 3, 1, 7.5, 0x1f, 0x1f),
        PackedFormat::E3m2x2 => (6, 2, 3, 28.0, 0x1f, 0x1f),
        _ => (8, 3, 7, 448.0, 0x7e, 0x7f),
    };
    NarrowFloat { width, mantissa_bits, bias, largest, largest_bits, nan_bits }
}

/// Rounds an exact `double` to an 8-, 6- or 4-bit float (in the low bits of an `i8`), to nearest
/// even with `.satfinite`: out-of-range values and infinities become the largest finite value
/// of their sign, NaN the format's `nan_bits`.
fn encode_float8<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    value: FloatValue<'ctx>,
    format: PackedFormat,
    relu: bool,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = emit.builder();
    let context = emit.context();
    let NarrowFloat { width, mantissa_bits, bias, largest, largest_bits, nan_bits } = narrow_float(format);
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
    // Below the overflow (selected away after) there are at most 2^(mantissa_bits + 1) units,
    // so units clamped to that and converted plainly are exact; NaN (selected away too) fails
    // the comparison and becomes the bound. Not `llvm.fptoui.sat`: Intel's OpenCL CPU runtime
    // vectorizes it 32 lanes wide into a call of `convert_ulong32_sat`, which its library lacks
    // (Triton's `tl.dot` on float8 then fails to build).
    let bound = emit.f64((1u64 << (mantissa_bits + 1)) as f64);
    let within = emit.compare_float(FloatPredicate::OLT, units, bound)?;
    let units = emit.select_float(within, units, bound)?;
    let units = builder.build_float_to_unsigned_int(units, context.i64_type(), "")?;
    // (exponent + bias - 1) << mantissa_bits + units: a carry out of the mantissa bumps the
    // exponent, and subnormals (exponent at its minimum, units below 2^mantissa_bits) come out
    // with a zero exponent field.
    let exponent_field = builder.build_int_add(exponent, emit.i64((bias - 1) as u64), "")?;
    let encoded = emit.add(builder.build_left_shift(exponent_field, emit.i64(mantissa_bits), "")?, units)?;
    let overflow = emit.compare_float(FloatPredicate::OGT, rounded, context.f64_type().const_float(largest))?;
    let encoded = emit.select_int(overflow, emit.i64(largest_bits), encoded)?;
    let signed = emit.or(encoded, emit.i64(1 << (width - 1)))?;
    let mut result = emit.select_int(negative, signed, encoded)?;
    if relu {
        result = emit.select_int(negative, emit.i64(0), result)?;
    }
    let is_nan = emit.compare_float(FloatPredicate::UNO, value, value)?;
    let result = emit.select_int(is_nan, emit.i64(nan_bits), result)?;
    Ok(builder.build_int_truncate(result, context.i8_type(), "")?)
}

/// An 8-, 6- or 4-bit float's value (the low bits of `byte`) as a `double` (exact; NaN for the
/// NaN encodings).
pub(super) fn decode_float8<'ctx>(
    emit: &Emit<'_, '_, 'ctx>,
    byte: IntValue<'ctx>,
    format: PackedFormat,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = emit.builder();
    let context = emit.context();
    let NarrowFloat { width, mantissa_bits, bias, .. } = narrow_float(format);
    let byte = builder.build_int_z_extend(byte, context.i64_type(), "")?;
    let exponent_mask = (1u64 << (width - 1 - mantissa_bits)) - 1;
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
        PackedFormat::E4m3x2 => {
            // E4M3 has no infinity; only S.1111.111 is NaN.
            let nan = emit.compare(IntPredicate::EQ, emit.and(byte, emit.i64(0x7f))?, emit.i64(0x7f))?;
            emit.select_float(nan, emit.f64(f64::NAN), magnitude)?
        }
        // The 6- and 4-bit floats have neither infinity nor NaN.
        _ => magnitude,
    };
    let negative = emit.compare(IntPredicate::NE, emit.and(byte, emit.i64(1 << (width - 1)))?, emit.i64(0))?;
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
            _ => encode_float8(&emit, value, format, relu)?,
        };
        lanes.push(lane);
    }
    if format.is_narrow_float() {
        // Two 4-bit floats share a byte; 8- and 6-bit floats take a byte each.
        let lane_bits = if format == PackedFormat::E2m1x2 { 4 } else { 8 };
        let packed = pack(&emit, &lanes, lane_bits)?;
        let packed = emit.builder().build_int_truncate_or_bit_cast(
            packed,
            crate::types::integer_type(emit.context(), 2 * lane_bits),
            "",
        )?;
        lowering.write(destination, packed.into(), format.narrow_pair_type())
    } else {
        write_lanes(&emit, destination, &lanes)
    }
}

/// `cvt.rn.satfinite[.relu].f8x2type.f16x2 d, a` and `cvt.rn[.relu].f16x2.f8x2type d, a`.
#[allow(clippy::too_many_arguments)]
pub fn float8_convert<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    format: PackedFormat,
    wide: PackedFormat,
    to_float8: bool,
    relu: bool,
    destination: &Destination,
    source: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let emit = Emit { lowering, span };
    let builder = emit.builder();
    if to_float8 {
        // Each 16-bit lane widens to `float` exactly, so the one rounding is to the 8-bit format.
        let (ty, lane_format) = if wide == PackedFormat::Bf16x2 {
            (ScalarType::Bf16x2, Format::Brain)
        } else {
            (ScalarType::F16x2, Format::Half)
        };
        let lanes = read_lanes(&emit, source, ty)?;
        let bytes = lanes
            .into_iter()
            .map(|lane| encode_float8(&emit, emit.widen(lane, lane_format)?, format, relu))
            .collect::<LoweringResult<Vec<_>>>()?;
        let packed = pack(&emit, &bytes, 8)?;
        return lowering.write(destination, packed.into(), ScalarType::B16);
    }
    if format == PackedFormat::Ue8m0x2 {
        return scales_to_brain(&emit, destination, source);
    }
    // The two lanes: bytes of a `.b16`, or (4-bit floats) nibbles of a `.b8`.
    let i8_type = emit.context().i8_type();
    let (low, high) = if format == PackedFormat::E2m1x2 {
        let packed = lowering.read_int(source, ScalarType::B8)?;
        let packed = builder.build_int_truncate_or_bit_cast(packed, i8_type, "")?;
        let low = builder.build_and(packed, i8_type.const_int(0xf, false), "")?;
        (low, builder.build_right_shift(packed, i8_type.const_int(4, false), false, "")?)
    } else {
        let packed = lowering.read_int(source, ScalarType::B16)?;
        let low = builder.build_int_truncate(packed, i8_type, "")?;
        (low, builder.build_int_truncate(builder.build_right_shift(packed, emit.i16(8), false, "")?, i8_type, "")?)
    };
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

/// `cvt.rn.bf16x2.ue8m0x2 d, a`: each scale 2^(e - 127) as `.bf16`, which has the same exponent
/// field and bias, so exactly: `e << 7`, except 2^-127 (`e` = 0), a subnormal `.bf16` (`0x0040`),
/// and the NaN scale `0xff`, the canonical NaN.
fn scales_to_brain<'ctx>(emit: &Emit<'_, '_, 'ctx>, destination: &Destination, source: &Operand) -> LoweringResult<()> {
    let builder = emit.builder();
    let packed = emit.lowering.read_int(source, ScalarType::B16)?;
    let mut lanes = Vec::with_capacity(2);
    for shift in [0, 8] {
        let scale = emit.and(builder.build_right_shift(packed, emit.i16(shift), false, "")?, emit.i16(0xff))?;
        let normal = builder.build_left_shift(scale, emit.i16(7), "")?;
        let smallest = emit.compare(IntPredicate::EQ, scale, emit.i16(0))?;
        let nan = emit.compare(IntPredicate::EQ, scale, emit.i16(0xff))?;
        let lane = emit.select_int(smallest, emit.i16(0x0040), normal)?;
        lanes.push(emit.select_int(nan, emit.i16(CANONICAL_NAN), lane)?);
    }
    write_lanes(emit, destination, &lanes)
}
