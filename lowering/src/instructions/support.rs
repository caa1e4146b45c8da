//! Small helpers shared by the instruction families: intrinsic calls, PTX's `.ftz` and `.sat`.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FloatValue};
use inkwell::FloatPredicate;
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Calls an overloaded LLVM intrinsic such as `llvm.fma` on `overloads`.
pub fn intrinsic<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    name: &str,
    overloads: &[BasicTypeEnum<'ctx>],
    arguments: &[BasicMetadataValueEnum<'ctx>],
    span: Span,
) -> LoweringResult<BasicValueEnum<'ctx>> {
    let missing = || LoweringError::internal(format!("LLVM has no intrinsic {name}"), span);
    let intrinsic = inkwell::intrinsics::Intrinsic::find(name).ok_or_else(missing)?;
    let declaration = intrinsic.get_declaration(lowering.shared.module, overloads).ok_or_else(missing)?;
    let call = lowering.shared.builder.build_call(declaration, arguments, "")?;
    call.try_as_basic_value().basic().ok_or_else(missing)
}

/// The smallest normal magnitude of a float type, below which `.ftz` flushes to zero.
fn smallest_normal(ty: ScalarType) -> f64 {
    match ty {
        ScalarType::F64 => f64::MIN_POSITIVE,
        ScalarType::F16 => 6.103_515_625e-5,
        // bf16 has f32's exponent range.
        _ => f64::from(f32::MIN_POSITIVE),
    }
}

/// `.ftz`: a subnormal input or result becomes a zero of the same sign.
pub fn flush_subnormal<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
    ty: ScalarType,
    span: Span,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let float_type = value.get_type();
    let magnitude = intrinsic(lowering, "llvm.fabs", &[float_type.into()], &[value.into()], span)?.into_float_value();
    let is_subnormal =
        builder.build_float_compare(FloatPredicate::OLT, magnitude, float_type.const_float(smallest_normal(ty)), "")?;
    let signed_zero = intrinsic(
        lowering,
        "llvm.copysign",
        &[float_type.into()],
        &[float_type.const_zero().into(), value.into()],
        span,
    )?
    .into_float_value();
    Ok(builder.build_select(is_subnormal, signed_zero, value, "")?.into_float_value())
}

/// `.sat` on floats: clamps to [0.0, 1.0], with NaN becoming 0.0.
pub fn saturate_unit<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: FloatValue<'ctx>,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let float_type = value.get_type();
    let one = float_type.const_float(1.0);
    let below_one = builder.build_float_compare(FloatPredicate::OLT, value, one, "")?;
    let upper = builder.build_select(below_one, value, one, "")?.into_float_value();
    let positive = builder.build_float_compare(FloatPredicate::OGT, value, float_type.const_zero(), "")?;
    Ok(builder.build_select(positive, upper, float_type.const_zero(), "")?.into_float_value())
}
