//! From coordinates to texels (CUDA C++ Programming Guide, appendix "Texture Fetching"):
//! normalized coordinates are scaled by the size; nearest-point sampling reads texel
//! `floor(x)`; linear filtering reads `floor(x - 0.5)` and the next texel, weighted by the
//! fraction of `x - 0.5` in 9-bit fixed point with 8 fractional bits. Each texel index then goes
//! through the dimension's address mode: wrap and mirror (normalized coordinates only; clamp
//! otherwise, as CUDA does), clamp, or border (outside the texture, the border colour).

use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_runtime::texture::{AddressMode, TextureField};

use crate::error::LoweringResult;
use crate::function::FunctionLowering;
use crate::instructions::support::intrinsic;

use super::descriptor::Descriptor;

/// One dimension of a lookup: the lower texel index, the linear-filter weight of the upper
/// one (0 for nearest-point sampling), the size and the address mode.
#[derive(Clone, Copy)]
pub struct Axis<'ctx> {
    pub lower: IntValue<'ctx>,
    pub weight: FloatValue<'ctx>,
    pub size: IntValue<'ctx>,
    pub mode: IntValue<'ctx>,
}

/// The size field of dimension `dimension`.
pub fn size_field(dimension: usize) -> TextureField {
    match dimension {
        0 => TextureField::Width,
        1 => TextureField::Height,
        _ => TextureField::Depth,
    }
}

/// The axis of a float coordinate. `linear` (an `i1`) chooses linear filtering.
pub fn float_axis<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    dimension: usize,
    coordinate: FloatValue<'ctx>,
    linear: IntValue<'ctx>,
    span: ptxr_frontend::Span,
) -> LoweringResult<Axis<'ctx>> {
    let builder = lowering.shared.builder;
    let f32_type = lowering.shared.context.f32_type();
    let size = descriptor.wide_field(lowering, size_field(dimension))?;
    let normalized = is_set(lowering, descriptor.field(lowering, TextureField::NormalizedCoordinates)?)?;
    let size_float = builder.build_unsigned_int_to_float(size, f32_type, "")?;
    let scaled = builder.build_float_mul(coordinate, size_float, "")?;
    let x = builder.build_select(normalized, scaled, coordinate, "")?.into_float_value();
    let mode = effective_mode(lowering, descriptor, dimension, normalized)?;
    texel_axis(lowering, x, size, mode, linear, span)
}

/// The axis of `x`, a coordinate in texels (already scaled by the size where it was
/// normalized), in a dimension of `size` texels under address mode `mode`.
pub fn texel_axis<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    x: FloatValue<'ctx>,
    size: IntValue<'ctx>,
    mode: IntValue<'ctx>,
    linear: IntValue<'ctx>,
    span: ptxr_frontend::Span,
) -> LoweringResult<Axis<'ctx>> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let f32_type = context.f32_type();
    let shifted = builder.build_float_sub(x, f32_type.const_float(0.5), "")?;
    let x = builder.build_select(linear, shifted, x, "")?.into_float_value();
    let floor = intrinsic(lowering, "llvm.floor", &[f32_type.into()], &[x.into()], span)?.into_float_value();
    // Saturating: NaN reads texel 0 and infinities the last representable index, which the
    // address mode then brings inside.
    let lower =
        intrinsic(lowering, "llvm.fptosi.sat", &[context.i32_type().into(), f32_type.into()], &[floor.into()], span)?
            .into_int_value();
    let lower = builder.build_int_s_extend(lower, context.i64_type(), "")?;
    let fraction = builder.build_float_sub(x, floor, "")?;
    let scaled = builder.build_float_mul(fraction, f32_type.const_float(256.0), "")?;
    let fixed = intrinsic(lowering, "llvm.rint", &[f32_type.into()], &[scaled.into()], span)?.into_float_value();
    let quantized = builder.build_float_div(fixed, f32_type.const_float(256.0), "")?;
    let finite = builder.build_float_compare(FloatPredicate::ORD, quantized, quantized, "")?;
    let weight = builder.build_select(finite, quantized, f32_type.const_zero(), "")?.into_float_value();
    let weight = builder.build_select(linear, weight, f32_type.const_zero(), "")?.into_float_value();
    Ok(Axis { lower, weight, size, mode })
}

/// The axis of an integer coordinate: that texel, unfiltered.
pub fn integer_axis<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    dimension: usize,
    coordinate: IntValue<'ctx>,
) -> LoweringResult<Axis<'ctx>> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let size = descriptor.wide_field(lowering, size_field(dimension))?;
    let lower = builder.build_int_s_extend(coordinate, context.i64_type(), "")?;
    let unnormalized = context.bool_type().const_zero();
    let mode = effective_mode(lowering, descriptor, dimension, unnormalized)?;
    Ok(Axis { lower, weight: context.f32_type().const_zero(), size, mode })
}

fn is_set<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, flag: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
    Ok(lowering.shared.builder.build_int_compare(IntPredicate::NE, flag, flag.get_type().const_zero(), "")?)
}

/// The dimension's address mode, with wrap and mirror read as clamp for unnormalized
/// coordinates (the Programming Guide: they are supported for normalized coordinates only).
fn effective_mode<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    dimension: usize,
    normalized: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let mode = descriptor.field(lowering, TextureField::AddressMode(dimension as u8))?;
    let is_wrap =
        builder.build_int_compare(IntPredicate::EQ, mode, i32_type.const_int(AddressMode::Wrap as u64, false), "")?;
    let is_mirror =
        builder.build_int_compare(IntPredicate::EQ, mode, i32_type.const_int(AddressMode::Mirror as u64, false), "")?;
    let needs_normalized = builder.build_or(is_wrap, is_mirror, "")?;
    let unnormalized = builder.build_not(normalized, "")?;
    let to_clamp = builder.build_and(needs_normalized, unnormalized, "")?;
    Ok(builder.build_select(to_clamp, i32_type.const_int(AddressMode::Clamp as u64, false), mode, "")?.into_int_value())
}

/// Texel `index` of an axis through its address mode: the index to read (always inside the
/// texture) and whether it is inside at all (false only in border mode, where the border
/// colour replaces the texel).
pub fn resolve<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    axis: &Axis<'ctx>,
    index: IntValue<'ctx>,
) -> LoweringResult<(IntValue<'ctx>, IntValue<'ctx>)> {
    let builder = lowering.shared.builder;
    let i64_type = lowering.shared.context.i64_type();
    let i32_type = lowering.shared.context.i32_type();
    let one = i64_type.const_int(1, false);
    // An empty texture is read as one texel wide, so that no remainder divides by zero.
    let is_empty = builder.build_int_compare(IntPredicate::EQ, axis.size, i64_type.const_zero(), "")?;
    let size = builder.build_select(is_empty, one, axis.size, "")?.into_int_value();
    let last = builder.build_int_sub(size, one, "")?;
    let modulo = |value: IntValue<'ctx>, divisor: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        let remainder = builder.build_int_signed_rem(value, divisor, "")?;
        let positive = builder.build_int_add(remainder, divisor, "")?;
        Ok(builder.build_int_signed_rem(positive, divisor, "")?)
    };
    let wrapped = modulo(index, size)?;
    let period = builder.build_int_mul(size, i64_type.const_int(2, false), "")?;
    let in_period = modulo(index, period)?;
    let reflected = builder.build_int_sub(builder.build_int_sub(period, one, "")?, in_period, "")?;
    let first_half = builder.build_int_compare(IntPredicate::SLT, in_period, size, "")?;
    let mirrored = builder.build_select(first_half, in_period, reflected, "")?.into_int_value();
    let above_zero = builder.build_int_compare(IntPredicate::SGT, index, i64_type.const_zero(), "")?;
    let at_least_zero = builder.build_select(above_zero, index, i64_type.const_zero(), "")?.into_int_value();
    let below_last = builder.build_int_compare(IntPredicate::SLT, at_least_zero, last, "")?;
    let clamped = builder.build_select(below_last, at_least_zero, last, "")?.into_int_value();
    let inside = builder.build_int_compare(IntPredicate::EQ, clamped, index, "")?;
    let mode_is = |mode: AddressMode| {
        builder.build_int_compare(IntPredicate::EQ, axis.mode, i32_type.const_int(mode as u64, false), "")
    };
    let mut resolved = builder.build_select(mode_is(AddressMode::Wrap)?, wrapped, clamped, "")?.into_int_value();
    resolved = builder.build_select(mode_is(AddressMode::Mirror)?, mirrored, resolved, "")?.into_int_value();
    let is_border = mode_is(AddressMode::Border)?;
    let outside = builder.build_and(is_border, builder.build_not(inside, "")?, "")?;
    Ok((resolved, builder.build_not(outside, "")?))
}
