//! `cvt` (ISA 7.8 section 9.7.8.21): integer widths and signedness, float widths, and the
//! conversions between them. Float-to-integer conversions saturate and map NaN to 0, as PTX
//! specifies, through LLVM's `fpto[su]i.sat`.
//! Directed rounding (`.rz`, `.rm`, `.rp`) of `.f64` to `.f32` and of integers to `.f32`/`.f64`
//! steps the nearest result by one unit where the exact value lies on the other side
//! (`directed.rs`).

use inkwell::values::{BasicValueEnum, FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::{Destination, GuardedInstruction, Operand, RoundingMode};
use ptxr_frontend::vocabulary::ScalarType;

use super::directed;
use super::support::{flush_subnormal, intrinsic, saturate_unit};
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;
use crate::types::llvm_type;

/// The intrinsic that rounds a float to an integral value in the given mode.
fn integral_rounding_intrinsic(rounding: RoundingMode) -> &'static str {
    match rounding {
        RoundingMode::NearestEven | RoundingMode::NearestEvenIntegral => "llvm.roundeven",
        RoundingMode::TowardZero | RoundingMode::TowardZeroIntegral => "llvm.trunc",
        RoundingMode::TowardNegative | RoundingMode::TowardNegativeIntegral => "llvm.floor",
        RoundingMode::TowardPositive | RoundingMode::TowardPositiveIntegral => "llvm.ceil",
    }
}

#[allow(clippy::too_many_arguments)]
pub fn convert<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    destination_type: ScalarType,
    source_type: ScalarType,
    rounding: Option<RoundingMode>,
    flush_subnormals: bool,
    saturate: bool,
    destination: &Destination,
    source: &Operand,
) -> LoweringResult<()> {
    let span = guarded.span;
    let unsupported =
        || LoweringError::unsupported(&format!("`{}`", lowering.spelling(guarded)), lowering.target_name(), span);
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let destination_llvm = llvm_type(context, destination_type);
    let result: BasicValueEnum<'ctx> = match (source_type.is_float(), destination_type.is_float()) {
        (false, false) => {
            let value = lowering.read_int(source, source_type)?;
            if saturate {
                saturate_integer(lowering, value, source_type, destination_type)?.into()
            } else {
                lowering.resize(value.into(), source_type, destination_type)?
            }
        }
        (true, true) => {
            let mut value: FloatValue<'ctx> = lowering.read(source, source_type)?.into_float_value();
            if flush_subnormals {
                value = flush_subnormal(lowering, value, source_type, span)?;
            }
            let target_float = destination_llvm.into_float_type();
            let mut result = if destination_type.bits() > source_type.bits() {
                builder.build_float_ext(value, target_float, "")?
            } else if destination_type.bits() < source_type.bits() {
                let nearest = builder.build_float_trunc(value, target_float, "")?;
                match rounding {
                    None | Some(RoundingMode::NearestEven) => nearest,
                    Some(mode) if directed::is_directed(Some(mode)) && source_type == ScalarType::F64 => {
                        // `value - nearest` is exact: they lie within a factor of two of each
                        // other, or `nearest` is zero (or infinite, where the sign still holds).
                        let wide_nearest = builder.build_float_ext(nearest, value.get_type(), "")?;
                        let side =
                            directed::side_of_error(lowering, builder.build_float_sub(value, wide_nearest, "")?)?;
                        let finite = directed::all_finite(lowering, &[value])?;
                        directed::round(lowering, nearest, &side, finite, mode)?
                    }
                    Some(_) => return Err(unsupported()),
                }
            } else if destination_type == source_type {
                match rounding {
                    Some(rounding) if rounding.is_integral() => intrinsic(
                        lowering,
                        integral_rounding_intrinsic(rounding),
                        &[value.get_type().into()],
                        &[value.into()],
                        span,
                    )?
                    .into_float_value(),
                    None => value,
                    Some(_) => return Err(unsupported()),
                }
            } else {
                // f16 <-> bf16: through f32, which holds both exactly.
                let wide = builder.build_float_ext(value, context.f32_type(), "")?;
                builder.build_float_trunc(wide, target_float, "")?
            };
            if flush_subnormals {
                result = flush_subnormal(lowering, result, destination_type, span)?;
            }
            if saturate {
                result = saturate_unit(lowering, result)?;
            }
            result.into()
        }
        (true, false) => {
            let mut value = lowering.read(source, source_type)?.into_float_value();
            if flush_subnormals {
                value = flush_subnormal(lowering, value, source_type, span)?;
            }
            let rounding = rounding.unwrap_or(RoundingMode::TowardZeroIntegral);
            let rounded = intrinsic(
                lowering,
                integral_rounding_intrinsic(rounding),
                &[value.get_type().into()],
                &[value.into()],
                span,
            )?;
            let int_type = crate::types::integer_type(context, destination_type.bits());
            saturating_float_to_integer(lowering, rounded.into_float_value(), int_type, destination_type.is_signed())?
                .into()
        }
        (false, true) => {
            let directed =
                directed::is_directed(rounding) && matches!(destination_type, ScalarType::F32 | ScalarType::F64);
            if !directed && !matches!(rounding, None | Some(RoundingMode::NearestEven)) {
                return Err(unsupported());
            }
            let value = lowering.read_int(source, source_type)?;
            let float_type = destination_llvm.into_float_type();
            let mut result = if source_type.is_signed() {
                builder.build_signed_int_to_float(value, float_type, "")?
            } else {
                builder.build_unsigned_int_to_float(value, float_type, "")?
            };
            if let (true, Some(mode)) = (directed, rounding) {
                result = integer_to_float_directed(lowering, value, source_type.is_signed(), result, mode)?;
            }
            if saturate {
                result = saturate_unit(lowering, result)?;
            }
            result.into()
        }
    };
    lowering.write(destination, result, destination_type)
}

/// An integer converted to a float in a directed mode, from the nearest float `nearest`: the
/// integer is compared exactly with `nearest` turned back into an integer (every float this
/// large is an integer). Only a `nearest` of 2^63 (signed) or 2^64 (unsigned) does not fit;
/// it lies above every source value.
fn integer_to_float_directed<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: inkwell::values::IntValue<'ctx>,
    signed: bool,
    nearest: FloatValue<'ctx>,
    mode: RoundingMode,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let int_type = value.get_type();
    let bits = int_type.get_bit_width();
    let limit = if signed { 2f64.powi(bits as i32 - 1) } else { 2f64.powi(bits as i32) };
    let float_type = nearest.get_type();
    let too_large = builder.build_float_compare(FloatPredicate::OGE, nearest, float_type.const_float(limit), "")?;
    let back = saturating_float_to_integer(lowering, nearest, int_type, signed)?;
    let (greater, less) =
        if signed { (IntPredicate::SGT, IntPredicate::SLT) } else { (IntPredicate::UGT, IntPredicate::ULT) };
    let above = builder.build_int_compare(greater, value, back, "")?;
    let above = builder.build_and(above, builder.build_not(too_large, "")?, "")?;
    let below = builder.build_int_compare(less, value, back, "")?;
    let below = builder.build_or(below, too_large, "")?;
    let all_finite = lowering.shared.context.bool_type().const_int(1, false);
    directed::round(lowering, nearest, &directed::Side { above, below }, all_finite, mode)
}

/// An integral float converted to `int_type` as PTX's `cvt` to an integer does: NaN gives 0, and
/// values beyond the type's range its bounds. Spelled out with comparisons rather than
/// `llvm.fptosi.sat`/`llvm.fptoui.sat`: those become SPIR-V's saturated conversions, which
/// Intel's OpenCL CPU compiler vectorises 32 lanes wide into a `convert_long32_sat` that its
/// library lacks (the build fails: Triton's `x.to(tl.int64)` on a block of floats).
pub(super) fn saturating_float_to_integer<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    int_type: inkwell::types::IntType<'ctx>,
    signed: bool,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let bits = int_type.get_bit_width() as i32;
    let float_type = value.get_type();
    // The bounds as floats are powers of two, exact in every float type: below `lowest` (the
    // type's minimum, or 0) or at `past` (one past its maximum) the result saturates.
    let (lowest, past) = if signed { (-(2f64.powi(bits - 1)), 2f64.powi(bits - 1)) } else { (0.0, 2f64.powi(bits)) };
    let (minimum, maximum) = if signed {
        (int_type.const_int(1u64 << (bits - 1), false), int_type.const_int(u64::MAX >> (65 - bits), false))
    } else {
        (int_type.const_zero(), int_type.const_all_ones())
    };
    let in_range = builder.build_and(
        builder.build_float_compare(FloatPredicate::OGE, value, float_type.const_float(lowest), "")?,
        builder.build_float_compare(FloatPredicate::OLT, value, float_type.const_float(past), "")?,
        "",
    )?;
    // Clamped into range first, so that the conversion itself never overflows (poison in LLVM).
    let safe = builder.build_select(in_range, value, float_type.const_zero(), "")?.into_float_value();
    let converted = if signed {
        builder.build_float_to_signed_int(safe, int_type, "")?
    } else {
        builder.build_float_to_unsigned_int(safe, int_type, "")?
    };
    let high = builder.build_float_compare(FloatPredicate::OGE, value, float_type.const_float(past), "")?;
    let low = builder.build_float_compare(FloatPredicate::OLT, value, float_type.const_float(lowest), "")?;
    let saturated = builder.build_select(high, maximum, converted, "")?.into_int_value();
    // NaN fails every ordered comparison: it stays at the clamped 0.
    Ok(builder.build_select(low, minimum, saturated, "")?.into_int_value())
}

/// Integer-to-integer `cvt.sat`: clamps the source value into the destination type's range.
/// The comparisons stay in the source's width (a bound is only compared where it lies inside
/// the source's range), so no target needs wider integers than PTX's own.
fn saturate_integer<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: IntValue<'ctx>,
    source_type: ScalarType,
    destination_type: ScalarType,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let range = |ty: ScalarType| -> (i128, i128) {
        let bits = ty.bits();
        if ty.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        }
    };
    let (source_minimum, source_maximum) = range(source_type);
    let (minimum, maximum) = range(destination_type);
    let source_int_type = value.get_type();
    let signed = source_type.is_signed();
    let mut value = value;
    if minimum > source_minimum {
        // `minimum` lies in the source's range here, so it fits its width.
        let bound = source_int_type.const_int(minimum as u64, signed);
        let below =
            builder.build_int_compare(if signed { IntPredicate::SLT } else { IntPredicate::ULT }, value, bound, "")?;
        value = builder.build_select(below, bound, value, "")?.into_int_value();
    }
    if maximum < source_maximum {
        let bound = source_int_type.const_int(maximum as u64, false);
        let above =
            builder.build_int_compare(if signed { IntPredicate::SGT } else { IntPredicate::UGT }, value, bound, "")?;
        value = builder.build_select(above, bound, value, "")?.into_int_value();
    }
    let destination_int_type = crate::types::integer_type(lowering.shared.context, destination_type.bits());
    let source_bits = source_int_type.get_bit_width();
    Ok(match source_bits.cmp(&destination_type.bits()) {
        std::cmp::Ordering::Greater => builder.build_int_truncate(value, destination_int_type, "")?,
        std::cmp::Ordering::Less if signed => builder.build_int_s_extend(value, destination_int_type, "")?,
        std::cmp::Ordering::Less => builder.build_int_z_extend(value, destination_int_type, "")?,
        std::cmp::Ordering::Equal => value,
    })
}
