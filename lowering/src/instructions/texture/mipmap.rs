//! Mipmaps (`tex.level`, `tex.grad`): which level or pair of levels a level of detail reads,
//! the level of detail of `tex.grad`'s gradients, and the descriptor viewed at one level. The fields are those of CUDA's `cudaTextureDesc`
//! (`mipmapFilterMode`, `mipmapLevelBias`, `minMipmapLevelClamp`, `maxMipmapLevelClamp`); the
//! Programming Guide names them without giving the arithmetic, so ptxr's choices, documented in
//! docs/TARGETS.md, are: the level of detail plus the bias, clamped to the two clamps, then to
//! [0, levels - 1]; point mipmap filtering reads level `floor(lod + 0.5)`, linear reads levels
//! `floor(lod)` and the next (the last level at most) and blends them with weight
//! `lod - floor(lod)` in full `f32`; NaN counts as level 0. `tex.grad`'s level of detail is
//! OpenGL's (4.6, section 8.14.1, without anisotropy): `log2(max(|dPdx|, |dPdy|))`, each
//! gradient's length taken in texels of level 0 (normalized gradients scaled by the size).

use inkwell::values::{FloatValue, IntValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::Operand;
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_runtime::texture::{FilterMode, TextureField, MAX_MIPMAP_LEVELS};

use crate::error::LoweringResult;
use crate::function::FunctionLowering;
use crate::instructions::support::intrinsic;

use super::descriptor::{Descriptor, LevelFields};

/// The levels a lookup reads: `lower` alone, or blended with `upper` by `weight`.
pub struct LevelChoice<'ctx> {
    /// `i32` level indices.
    pub lower: IntValue<'ctx>,
    pub upper: IntValue<'ctx>,
    /// The weight of `upper`: 0 under point mipmap filtering.
    pub weight: FloatValue<'ctx>,
}

/// The levels that level of detail `lod` reads.
pub fn choose<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    lod: FloatValue<'ctx>,
    span: ptxr_frontend::Span,
) -> LoweringResult<LevelChoice<'ctx>> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let f32_type = context.f32_type();
    let i32_type = context.i32_type();
    let float_field = |field| -> LoweringResult<FloatValue<'ctx>> {
        let bits = descriptor.base_field(lowering, field)?;
        Ok(builder.build_bit_cast(bits, f32_type, "")?.into_float_value())
    };
    let minimum = |a: FloatValue<'ctx>, b: FloatValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
        Ok(intrinsic(lowering, "llvm.minnum", &[f32_type.into()], &[a.into(), b.into()], span)?.into_float_value())
    };
    let maximum = |a: FloatValue<'ctx>, b: FloatValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
        Ok(intrinsic(lowering, "llvm.maxnum", &[f32_type.into()], &[a.into(), b.into()], span)?.into_float_value())
    };
    // The last level: `levels - 1`, with 0 (no mipmaps) read as 1 and at most 16 levels.
    let levels = descriptor.base_field(lowering, TextureField::Levels)?;
    let levels = unsigned_clamp(lowering, levels, 1, MAX_MIPMAP_LEVELS as u64)?;
    let last = builder.build_int_sub(levels, i32_type.const_int(1, false), "")?;
    let last_float = builder.build_unsigned_int_to_float(last, f32_type, "")?;

    let biased = builder.build_float_add(lod, float_field(TextureField::LevelBias)?, "")?;
    let clamped = maximum(biased, float_field(TextureField::MinLevelClamp)?)?;
    let clamped = minimum(clamped, float_field(TextureField::MaxLevelClamp)?)?;
    // maxnum(NaN, 0) is 0.
    let clamped = maximum(clamped, f32_type.const_zero())?;
    let clamped = minimum(clamped, last_float)?;

    let floor = |value: FloatValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
        Ok(intrinsic(lowering, "llvm.floor", &[f32_type.into()], &[value.into()], span)?.into_float_value())
    };
    let down = floor(clamped)?;
    let nearest = floor(builder.build_float_add(clamped, f32_type.const_float(0.5), "")?)?;
    let filter = descriptor.base_field(lowering, TextureField::MipmapFilterMode)?;
    let linear = builder.build_int_compare(
        IntPredicate::EQ,
        filter,
        i32_type.const_int(FilterMode::Linear as u64, false),
        "",
    )?;
    let lower = builder.build_select(linear, down, nearest, "")?.into_float_value();
    let lower = builder.build_float_to_unsigned_int(lower, i32_type, "")?;
    // `clamped` is at most `last`, so `lower` is too.
    let lower = unsigned_minimum(lowering, lower, last)?;
    let next = builder.build_int_add(lower, i32_type.const_int(1, false), "")?;
    let upper = unsigned_minimum(lowering, next, last)?;
    let fraction = builder.build_float_sub(clamped, down, "")?;
    let weight = builder.build_select(linear, fraction, f32_type.const_zero(), "")?.into_float_value();
    Ok(LevelChoice { lower, upper, weight })
}

/// The level of detail of gradients `dPdx` and `dPdy` (their first `dimensions` elements).
pub fn gradient_level<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    dimensions: usize,
    gradients: &[Vec<Operand>; 2],
    span: ptxr_frontend::Span,
) -> LoweringResult<FloatValue<'ctx>> {
    let builder = lowering.shared.builder;
    let f32_type = lowering.shared.context.f32_type();
    let normalized = descriptor.base_field(lowering, TextureField::NormalizedCoordinates)?;
    let normalized = builder.build_int_compare(IntPredicate::NE, normalized, normalized.get_type().const_zero(), "")?;
    let mut scales = Vec::with_capacity(dimensions);
    for dimension in 0..dimensions {
        let size = descriptor.base_field(lowering, super::addressing::size_field(dimension))?;
        let size = builder.build_unsigned_int_to_float(size, f32_type, "")?;
        scales.push(builder.build_select(normalized, size, f32_type.const_float(1.0), "")?.into_float_value());
    }
    let mut lengths = Vec::with_capacity(2);
    for gradient in gradients {
        let mut squares = f32_type.const_zero();
        for (element, scale) in gradient.iter().zip(&scales) {
            let value = lowering.read(element, ScalarType::F32)?.into_float_value();
            let texels = builder.build_float_mul(value, *scale, "")?;
            squares = builder.build_float_add(squares, builder.build_float_mul(texels, texels, "")?, "")?;
        }
        lengths.push(intrinsic(lowering, "llvm.sqrt", &[f32_type.into()], &[squares.into()], span)?.into_float_value());
    }
    let longest =
        intrinsic(lowering, "llvm.maxnum", &[f32_type.into()], &[lengths[0].into(), lengths[1].into()], span)?;
    Ok(intrinsic(lowering, "llvm.log2", &[f32_type.into()], &[longest.into()], span)?.into_float_value())
}

/// The descriptor read at `level` (an `i32` in [0, levels - 1]): each size `max(1, size >>
/// level)`, level 0's pitches or, above it, tightly packed ones, and the texels at the level's
/// offset from `data`.
pub fn at_level<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    texel_bytes: IntValue<'ctx>,
    level: IntValue<'ctx>,
) -> LoweringResult<Descriptor<'ctx>> {
    let builder = lowering.shared.builder;
    let i64_type = lowering.shared.context.i64_type();
    let size = |field| -> LoweringResult<IntValue<'ctx>> {
        let size = descriptor.base_field(lowering, field)?;
        let shifted = builder.build_right_shift(size, level, false, "")?;
        unsigned_clamp(lowering, shifted, 1, u64::from(u32::MAX))
    };
    let width = size(TextureField::Width)?;
    let height = size(TextureField::Height)?;
    let depth = size(TextureField::Depth)?;
    let is_base = builder.build_int_compare(IntPredicate::EQ, level, level.get_type().const_zero(), "")?;
    let packed_row = builder.build_int_mul(builder.build_int_z_extend(width, i64_type, "")?, texel_bytes, "")?;
    let row_pitch = builder
        .build_select(is_base, descriptor.base_field(lowering, TextureField::RowPitch)?, packed_row, "")?
        .into_int_value();
    let packed_slice = builder.build_int_mul(row_pitch, builder.build_int_z_extend(height, i64_type, "")?, "")?;
    let slice_pitch = builder
        .build_select(is_base, descriptor.base_field(lowering, TextureField::SlicePitch)?, packed_slice, "")?
        .into_int_value();
    let index = builder.build_int_z_extend(level, i64_type, "")?;
    let offset = descriptor.array_element(lowering, TextureField::LevelOffsets, index)?;
    let data = builder.build_int_add(descriptor.base_field(lowering, TextureField::Data)?, offset, "")?;
    Ok(descriptor.with_level(LevelFields { width, height, depth, row_pitch, slice_pitch, data }))
}

fn unsigned_minimum<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    a: IntValue<'ctx>,
    b: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let below = builder.build_int_compare(IntPredicate::ULT, a, b, "")?;
    Ok(builder.build_select(below, a, b, "")?.into_int_value())
}

/// `value` clamped to [`low`, `high`], unsigned.
fn unsigned_clamp<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: IntValue<'ctx>,
    low: u64,
    high: u64,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let ty = value.get_type();
    let low = ty.const_int(low, false);
    let above = builder.build_int_compare(IntPredicate::UGT, value, low, "")?;
    let value = builder.build_select(above, value, low, "")?.into_int_value();
    unsigned_minimum(lowering, value, ty.const_int(high, false))
}
