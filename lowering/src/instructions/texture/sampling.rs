//! `tex` and `tld4`: texels read through the addressing of `addressing.rs` and, for float
//! results, weighed by linear filtering (Programming Guide, "Texture Fetching": the weights of
//! the 2, 4 or 8 texels are products of `alpha` or `1 - alpha` per dimension).

use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::{Destination, Operand, TextureGeometry};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_runtime::texture::{FilterMode, TextureField};

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

use super::addressing::{float_axis, integer_axis, resolve, Axis};
use super::descriptor::Descriptor;
use super::texels::Format;

/// The layer an array lookup reads: the first coordinate, clamped to the last layer.
pub fn layer_offset<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    layer: Option<IntValue<'ctx>>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i64_type = lowering.shared.context.i64_type();
    let Some(layer) = layer else { return Ok(i64_type.const_zero()) };
    let layers = descriptor.wide_field(lowering, TextureField::Layers)?;
    let layer = builder.build_int_z_extend(layer, i64_type, "")?;
    let one = i64_type.const_int(1, false);
    let has_layers = builder.build_int_compare(IntPredicate::UGT, layers, one, "")?;
    let last = builder.build_select(has_layers, builder.build_int_sub(layers, one, "")?, i64_type.const_zero(), "")?;
    let below = builder.build_int_compare(IntPredicate::ULT, layer, last.into_int_value(), "")?;
    let layer = builder.build_select(below, layer, last.into_int_value(), "")?.into_int_value();
    let pitch = descriptor.field(lowering, TextureField::SlicePitch)?;
    Ok(builder.build_int_mul(layer, pitch, "")?)
}

/// The byte strides of the dimensions: a texel, a row, a slice.
fn strides<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    format: &Format<'ctx>,
) -> LoweringResult<[IntValue<'ctx>; 3]> {
    Ok([
        format.texel_bytes,
        descriptor.field(lowering, TextureField::RowPitch)?,
        descriptor.field(lowering, TextureField::SlicePitch)?,
    ])
}

/// One texel of a lookup: where it is and whether it is inside (border mode).
struct Texel<'ctx> {
    pointer: PointerValue<'ctx>,
    inside: IntValue<'ctx>,
}

fn texel<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    strides: &[IntValue<'ctx>; 3],
    base: IntValue<'ctx>,
    axes: &[Axis<'ctx>],
    indices: &[IntValue<'ctx>],
) -> LoweringResult<Texel<'ctx>> {
    let builder = lowering.shared.builder;
    let mut offset = base;
    let mut inside = lowering.shared.context.bool_type().const_all_ones();
    for (dimension, (axis, index)) in axes.iter().zip(indices).enumerate() {
        let (resolved, is_inside) = resolve(lowering, axis, *index)?;
        offset = builder.build_int_add(offset, builder.build_int_mul(resolved, strides[dimension], "")?, "")?;
        inside = builder.build_and(inside, is_inside, "")?;
    }
    Ok(Texel { pointer: descriptor.data_at(lowering, offset)?, inside })
}

/// The four channels of a texel as `result` values, the border colour outside.
fn channels<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    format: &Format<'ctx>,
    texel: &Texel<'ctx>,
    result: ScalarType,
    only: Option<u32>,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let builder = lowering.shared.builder;
    let f32_type = lowering.shared.context.f32_type();
    let mut values = Vec::with_capacity(4);
    for channel in 0..4u32 {
        if only.is_some_and(|only| only != channel) {
            continue;
        }
        let border = descriptor.field(lowering, TextureField::Border(channel as u8))?;
        let value: BasicValueEnum<'ctx> = if result == ScalarType::F32 {
            let border = builder.build_bit_cast(border, f32_type, "")?;
            let value = format.read_float(lowering, texel.pointer, channel)?;
            builder.build_select(texel.inside, value.into(), border, "")?
        } else {
            let value = format.read_integer(lowering, texel.pointer, channel)?;
            builder.build_select(texel.inside, value, border, "")?
        };
        values.push(value);
    }
    Ok(values)
}

/// The corners of the filter footprint: for each, the index per axis and its weight.
fn corners<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    axes: &[Axis<'ctx>],
    filtered: bool,
) -> LoweringResult<Vec<(Vec<IntValue<'ctx>>, inkwell::values::FloatValue<'ctx>)>> {
    let builder = lowering.shared.builder;
    let f32_type = lowering.shared.context.f32_type();
    let one = axes[0].lower.get_type().const_int(1, false);
    let count = if filtered { 1 << axes.len() } else { 1 };
    let mut result = Vec::with_capacity(count);
    for corner in 0..count {
        let mut indices = Vec::with_capacity(axes.len());
        let mut weight = f32_type.const_float(1.0);
        for (dimension, axis) in axes.iter().enumerate() {
            let upper = corner >> dimension & 1 == 1;
            let index = if upper { builder.build_int_add(axis.lower, one, "")? } else { axis.lower };
            let factor = if upper {
                axis.weight
            } else {
                builder.build_float_sub(f32_type.const_float(1.0), axis.weight, "")?
            };
            weight = builder.build_float_mul(weight, factor, "")?;
            indices.push(index);
        }
        result.push((indices, weight));
    }
    Ok(result)
}

fn write_results<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    destinations: &[Destination],
    predicate: Option<&Destination>,
    values: &[BasicValueEnum<'ctx>],
    result: ScalarType,
) -> LoweringResult<()> {
    for (destination, value) in destinations.iter().zip(values) {
        lowering.write(destination, *value, result)?;
    }
    if let Some(predicate) = predicate {
        // Every texel of a software texture is resident.
        let yes = lowering.shared.context.bool_type().const_all_ones();
        lowering.write(predicate, yes.into(), ScalarType::Pred)?;
    }
    Ok(())
}

/// Where `tex.level` and `tex.grad` take their level of detail from.
pub enum Detail<'a> {
    Level(&'a Operand),
    /// `dPdx` and `dPdy`.
    Gradients(&'a [Vec<Operand>; 2]),
}

/// `tex.geom.v4.dtype.ctype d{|p}, [a, c]`, and with `.level` or `.grad` (`detail`) on a
/// mipmapped texture, the level or blend of two levels that `mipmap::choose` picks.
#[allow(clippy::too_many_arguments)]
pub fn sample<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    geometry: TextureGeometry,
    result: ScalarType,
    coordinate: ScalarType,
    destinations: &[Destination],
    predicate: Option<&Destination>,
    handle: &Operand,
    coordinates: &[Operand],
    detail: Option<Detail<'_>>,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    // `.f16` results are the `.f32` ones rounded to nearest even (as `cvt.rn.f16.f32`).
    let written = result;
    let result = if written == ScalarType::F16 { ScalarType::F32 } else { written };
    let descriptor = Descriptor::of(lowering, handle)?;
    let format = Format::of(lowering, &descriptor)?;
    // Linear filtering applies to float results of float coordinates only.
    let filtered = result == ScalarType::F32 && coordinate == ScalarType::F32;
    let linear = if filtered {
        let filter = descriptor.field(lowering, TextureField::FilterMode)?;
        builder.build_int_compare(
            IntPredicate::EQ,
            filter,
            context.i32_type().const_int(FilterMode::Linear as u64, false),
            "",
        )?
    } else {
        context.bool_type().const_zero()
    };
    let lookup = Lookup { geometry, result, coordinate, coordinates, filtered, linear };
    let (lod, span) = match detail {
        None => {
            let values = sample_level(lowering, &descriptor, &format, &lookup)?;
            return write_sampled(lowering, destinations, predicate, &values, written);
        }
        Some(Detail::Level(level)) => (lowering.read(level, ScalarType::F32)?.into_float_value(), level.span),
        Some(Detail::Gradients(gradients)) => {
            let span = gradients[0].first().map_or(handle.span, |operand| operand.span);
            (super::mipmap::gradient_level(lowering, &descriptor, geometry.dimensions(), gradients, span)?, span)
        }
    };
    let choice = super::mipmap::choose(lowering, &descriptor, lod, span)?;
    let lower = super::mipmap::at_level(lowering, &descriptor, format.texel_bytes, choice.lower)?;
    let lower_values = sample_level(lowering, &lower, &format, &lookup)?;
    // Integer results read the nearer level only: there is nothing to blend them with.
    if !filtered {
        return write_sampled(lowering, destinations, predicate, &lower_values, written);
    }
    let upper = super::mipmap::at_level(lowering, &descriptor, format.texel_bytes, choice.upper)?;
    let upper_values = sample_level(lowering, &upper, &format, &lookup)?;
    let f32_type = context.f32_type();
    let lower_weight = builder.build_float_sub(f32_type.const_float(1.0), choice.weight, "")?;
    let blended = builder.build_float_compare(FloatPredicate::ONE, choice.weight, f32_type.const_zero(), "")?;
    let mut values = Vec::with_capacity(4);
    for (low, high) in lower_values.iter().zip(&upper_values) {
        let low = low.into_float_value();
        let high = high.into_float_value();
        let blend = builder.build_float_add(
            builder.build_float_mul(low, lower_weight, "")?,
            builder.build_float_mul(high, choice.weight, "")?,
            "",
        )?;
        // A weight of 0 (point mipmap filtering) reads the lower level exactly, even where the
        // upper one holds an infinity or NaN.
        values.push(builder.build_select(blended, blend, low, "")?);
    }
    write_sampled(lowering, destinations, predicate, &values, written)
}

/// `tex`'s results as `written`: the `.f32` values rounded to `.f16` for `.f16` results.
fn write_sampled<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    destinations: &[Destination],
    predicate: Option<&Destination>,
    values: &[BasicValueEnum<'ctx>],
    written: ScalarType,
) -> LoweringResult<()> {
    if written != ScalarType::F16 {
        return write_results(lowering, destinations, predicate, values, written);
    }
    let builder = lowering.shared.builder;
    let f16_type = lowering.shared.context.f16_type();
    let halves = values
        .iter()
        .map(|value| Ok(builder.build_float_trunc(value.into_float_value(), f16_type, "")?.into()))
        .collect::<LoweringResult<Vec<BasicValueEnum<'ctx>>>>()?;
    write_results(lowering, destinations, predicate, &halves, written)
}

/// What one `tex` looks up, the same at every level.
struct Lookup<'a, 'ctx> {
    geometry: TextureGeometry,
    result: ScalarType,
    coordinate: ScalarType,
    coordinates: &'a [Operand],
    filtered: bool,
    linear: IntValue<'ctx>,
}

/// The four channels of `lookup` in the texels `descriptor` (possibly viewed at a level) reads.
fn sample_level<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    format: &Format<'ctx>,
    lookup: &Lookup<'_, 'ctx>,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let builder = lowering.shared.builder;
    let Lookup { geometry, result, coordinate, coordinates, filtered, linear } = *lookup;
    let strides = strides(lowering, descriptor, format)?;
    let array = geometry.is_array();
    let (base, axes) = if geometry.is_cube() {
        super::cube::face_lookup(lowering, descriptor, coordinates, array, linear)?
    } else {
        let layer = if array { Some(lowering.read_int(&coordinates[0], ScalarType::U32)?) } else { None };
        (
            layer_offset(lowering, descriptor, layer)?,
            plain_axes(lowering, descriptor, geometry, coordinate, coordinates, linear)?,
        )
    };
    let mut sums: Option<Vec<BasicValueEnum<'ctx>>> = None;
    let mut nearest = None;
    for (indices, weight) in corners(lowering, &axes, filtered)? {
        let texel = texel(lowering, descriptor, &strides, base, &axes, &indices)?;
        let values = channels(lowering, descriptor, format, &texel, result, None)?;
        if nearest.is_none() {
            nearest = Some(values.clone());
        }
        if filtered {
            let mut next = Vec::with_capacity(4);
            for (channel, value) in values.iter().enumerate() {
                let weighted = builder.build_float_mul(value.into_float_value(), weight, "")?;
                next.push(match &sums {
                    Some(sums) => builder.build_float_add(sums[channel].into_float_value(), weighted, "")?.into(),
                    None => weighted.into(),
                });
            }
            sums = Some(next);
        }
    }
    let nearest = nearest.unwrap_or_default();
    Ok(match sums {
        Some(sums) => sums
            .iter()
            .zip(&nearest)
            .map(|(sum, near)| builder.build_select(linear, *sum, *near, ""))
            .collect::<Result<Vec<_>, _>>()?,
        None => nearest,
    })
}

/// `tld4.comp.geom.v4.dtype.f32 d{|p}, [a, c]`: channel `component` of the bilinear
/// footprint's texels, in the order of OpenGL's `textureGather` that CUDA's `tex2Dgather`
/// follows: (i, j+1), (i+1, j+1), (i+1, j), (i, j). `.a2d` reads the layer the first coordinate
/// names; `.cube`/`.acube` the footprint on the face `tex.cube` would filter, clamped at its
/// edges as there.
#[allow(clippy::too_many_arguments)]
pub fn gather<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    component: u8,
    geometry: TextureGeometry,
    result: ScalarType,
    destinations: &[Destination],
    predicate: Option<&Destination>,
    handle: &Operand,
    coordinates: &[Operand],
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let descriptor = Descriptor::of(lowering, handle)?;
    let format = Format::of(lowering, &descriptor)?;
    let strides = strides(lowering, &descriptor, &format)?;
    let linear = context.bool_type().const_all_ones();
    let (base, axes) = if geometry.is_cube() {
        super::cube::face_lookup(lowering, &descriptor, coordinates, geometry.is_array(), linear)?
    } else {
        let layer = if geometry.is_array() { Some(lowering.read_int(&coordinates[0], ScalarType::U32)?) } else { None };
        let base = layer_offset(lowering, &descriptor, layer)?;
        (base, plain_axes(lowering, &descriptor, geometry, ScalarType::F32, coordinates, linear)?)
    };
    let one = context.i64_type().const_int(1, false);
    let builder = lowering.shared.builder;
    let (i, j) = (axes[0].lower, axes[1].lower);
    let (i1, j1) = (builder.build_int_add(i, one, "")?, builder.build_int_add(j, one, "")?);
    let mut values = Vec::with_capacity(4);
    for indices in [[i, j1], [i1, j1], [i1, j], [i, j]] {
        let texel = texel(lowering, &descriptor, &strides, base, &axes, &indices)?;
        values.extend(channels(lowering, &descriptor, &format, &texel, result, Some(u32::from(component)))?);
    }
    write_results(lowering, destinations, predicate, &values, result)
}

/// The axes of a lookup that is not a cube map: one per dimension, from float or integer
/// coordinates (after the layer for arrays).
fn plain_axes<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    geometry: TextureGeometry,
    coordinate: ScalarType,
    coordinates: &[Operand],
    linear: IntValue<'ctx>,
) -> LoweringResult<Vec<Axis<'ctx>>> {
    let array = geometry.is_array();
    let mut axes = Vec::with_capacity(geometry.dimensions());
    for dimension in 0..geometry.dimensions() {
        let operand = &coordinates[dimension + usize::from(array)];
        axes.push(if coordinate == ScalarType::F32 {
            let value = lowering.read(operand, ScalarType::F32)?.into_float_value();
            float_axis(lowering, descriptor, dimension, value, linear, operand.span)?
        } else {
            let value = lowering.read_int(operand, ScalarType::S32)?;
            integer_axis(lowering, descriptor, dimension, value)?
        });
    }
    Ok(axes)
}
