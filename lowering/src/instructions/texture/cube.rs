//! Cube maps (`tex.cube`, `tex.acube`), from the CUDA C++ Programming Guide, section "Cubemap
//! Textures": the direction (x, y, z) picks the face of its coordinate of largest magnitude
//! `m`, and the face is read at the normalized coordinates ((s/m + 1)/2, (t/m + 1)/2), with s
//! and t from the Guide's table:
//!
//! | major axis | sign | face | s | t |
//! | --- | --- | --- | --- | --- |
//! | x | x ≥ 0 | 0 | -z | -y |
//! | x | x < 0 | 1 | z | -y |
//! | y | y ≥ 0 | 2 | x | z |
//! | y | y < 0 | 3 | x | -z |
//! | z | z ≥ 0 | 4 | x | -y |
//! | z | z < 0 | 5 | -x | -y |
//!
//! The Guide's conditions are strict (|x| > |y| and |x| > |z| for x), so it names no face where
//! two magnitudes tie; ptxr then prefers z over y over x, as Direct3D does: x is major only
//! when strictly largest, y when strictly larger than z. `x ≥ 0` is a float comparison, so
//! -0.0 picks the positive face. The faces of cube `c` are layers 6c to 6c + 5; the cube index
//! is clamped to the last cube. Filtering does not cross faces: the face is read as a clamped
//! texture whatever the descriptor's address modes (CUDA's behaviour without seamless cube map
//! filtering), so a linear lookup at a face's edge blends only that face's edge texels.

use inkwell::values::{FloatValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::Operand;
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_runtime::texture::{AddressMode, TextureField};

use crate::error::LoweringResult;
use crate::function::FunctionLowering;
use crate::instructions::support::intrinsic;

use super::addressing::{texel_axis, Axis};
use super::descriptor::Descriptor;
use super::sampling::layer_offset;

/// The face a direction hits: its layer's byte offset and the two axes on it.
pub fn face_lookup<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    coordinates: &[Operand],
    array: bool,
    linear: IntValue<'ctx>,
) -> LoweringResult<(IntValue<'ctx>, Vec<Axis<'ctx>>)> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let f32_type = context.f32_type();
    let i64_type = context.i64_type();
    let direction = &coordinates[usize::from(array)..usize::from(array) + 3];
    let span = direction[0].span;
    let read = |operand: &Operand| -> LoweringResult<FloatValue<'ctx>> {
        Ok(lowering.read(operand, ScalarType::F32)?.into_float_value())
    };
    let (x, y, z) = (read(&direction[0])?, read(&direction[1])?, read(&direction[2])?);
    let magnitude = |value: FloatValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
        Ok(intrinsic(lowering, "llvm.fabs", &[f32_type.into()], &[value.into()], span)?.into_float_value())
    };
    let (ax, ay, az) = (magnitude(x)?, magnitude(y)?, magnitude(z)?);
    let greater = |a, b| builder.build_float_compare(FloatPredicate::OGT, a, b, "");
    let x_major = builder.build_and(greater(ax, ay)?, greater(ax, az)?, "")?;
    let y_major = builder.build_and(builder.build_not(x_major, "")?, greater(ay, az)?, "")?;
    let zero = f32_type.const_zero();
    let positive = |value| builder.build_float_compare(FloatPredicate::OGE, value, zero, "");
    let (x_positive, y_positive, z_positive) = (positive(x)?, positive(y)?, positive(z)?);
    let negate = |value| builder.build_float_neg(value, "");
    let (minus_x, minus_y, minus_z) = (negate(x)?, negate(y)?, negate(z)?);
    let choose = |condition, yes: FloatValue<'ctx>, no: FloatValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
        Ok(builder.build_select(condition, yes, no, "")?.into_float_value())
    };
    let by_axis = |on_x: FloatValue<'ctx>, on_y: FloatValue<'ctx>, on_z: FloatValue<'ctx>| {
        choose(x_major, on_x, choose(y_major, on_y, on_z)?)
    };
    let m = by_axis(ax, ay, az)?;
    let s = by_axis(choose(x_positive, minus_z, z)?, x, choose(z_positive, x, minus_x)?)?;
    let t = by_axis(minus_y, choose(y_positive, z, minus_z)?, minus_y)?;
    let pick = |condition, yes: u64, no: u64| -> LoweringResult<IntValue<'ctx>> {
        Ok(builder
            .build_select(condition, i64_type.const_int(yes, false), i64_type.const_int(no, false), "")?
            .into_int_value())
    };
    let (x_face, y_face, z_face) = (pick(x_positive, 0, 1)?, pick(y_positive, 2, 3)?, pick(z_positive, 4, 5)?);
    let face = builder.build_select(y_major, y_face, z_face, "")?.into_int_value();
    let face = builder.build_select(x_major, x_face, face, "")?.into_int_value();
    // The cube: the first coordinate of `.acube`, clamped to the last of layers / 6.
    let mut layer = face;
    if array {
        let cube = lowering.read_int(&coordinates[0], ScalarType::U32)?;
        let cube = builder.build_int_z_extend(cube, i64_type, "")?;
        let layers = descriptor.wide_field(lowering, TextureField::Layers)?;
        let cubes = builder.build_int_unsigned_div(layers, i64_type.const_int(6, false), "")?;
        let has_cubes = builder.build_int_compare(IntPredicate::UGT, cubes, i64_type.const_zero(), "")?;
        let last = builder.build_int_sub(cubes, i64_type.const_int(1, false), "")?;
        let last = builder.build_select(has_cubes, last, i64_type.const_zero(), "")?.into_int_value();
        let below = builder.build_int_compare(IntPredicate::ULT, cube, last, "")?;
        let cube = builder.build_select(below, cube, last, "")?.into_int_value();
        let first = builder.build_int_mul(cube, i64_type.const_int(6, false), "")?;
        layer = builder.build_int_add(first, face, "")?;
    }
    let layer = builder.build_int_truncate(layer, context.i32_type(), "")?;
    let base = layer_offset(lowering, descriptor, Some(layer))?;
    let size = descriptor.wide_field(lowering, TextureField::Width)?;
    let size_float = builder.build_unsigned_int_to_float(size, f32_type, "")?;
    let clamp = context.i32_type().const_int(AddressMode::Clamp as u64, false);
    let one = f32_type.const_float(1.0);
    let half = f32_type.const_float(0.5);
    let mut axes = Vec::with_capacity(2);
    for minor in [s, t] {
        let ratio = builder.build_float_div(minor, m, "")?;
        let normalized = builder.build_float_mul(builder.build_float_add(ratio, one, "")?, half, "")?;
        let texels = builder.build_float_mul(normalized, size_float, "")?;
        axes.push(texel_axis(lowering, texels, size, clamp, linear, span)?);
    }
    Ok((base, axes))
}
