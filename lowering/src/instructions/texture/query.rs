//! `txq` and `suq`: fields of the descriptor. Channel data type is the descriptor's
//! `ChannelType` code and channel order its channel count (ptxr's codes, not CUDA's driver
//! enumerations); the mipmap levels are the descriptor's count (0 read as 1); there is no
//! multisampling, so the sample count is 1, and the memory layout is 1 (linear).
//! `txq.level`'s sizes are level `lod`'s, `max(1, size >> lod)`, with `lod` read unsigned and
//! taken as at most 31 (a negative or too large level gives 1), whatever the level count. The array size of a cube map is its count of cubes.

use ptxr_frontend::ir::{Destination, Operand, TextureQuery};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_runtime::texture::TextureField;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

use super::descriptor::Descriptor;

pub fn query<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    query: TextureQuery,
    destination: &Destination,
    handle: &Operand,
    level: Option<&Operand>,
) -> LoweringResult<()> {
    let descriptor = Descriptor::of(lowering, handle)?;
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let field = |field| descriptor.field(lowering, field);
    let value = match query {
        TextureQuery::Width => field(TextureField::Width)?,
        TextureQuery::Height => field(TextureField::Height)?,
        TextureQuery::Depth => field(TextureField::Depth)?,
        TextureQuery::ChannelDataType => field(TextureField::ChannelType)?,
        TextureQuery::ChannelOrder => field(TextureField::Channels)?,
        TextureQuery::NormalizedCoordinates => field(TextureField::NormalizedCoordinates)?,
        TextureQuery::ArraySize => {
            // A cube map array counts cubes, six layers each.
            let layers = field(TextureField::Layers)?;
            let cube = field(TextureField::Cube)?;
            let is_cube = builder.build_int_compare(inkwell::IntPredicate::NE, cube, i32_type.const_zero(), "")?;
            let cubes = builder.build_int_unsigned_div(layers, i32_type.const_int(6, false), "")?;
            builder.build_select(is_cube, cubes, layers, "")?.into_int_value()
        }
        TextureQuery::MipmapLevels => {
            let levels = field(TextureField::Levels)?;
            let one = i32_type.const_int(1, false);
            let some = builder.build_int_compare(inkwell::IntPredicate::UGT, levels, one, "")?;
            builder.build_select(some, levels, one, "")?.into_int_value()
        }
        TextureQuery::Samples | TextureQuery::MemoryLayout => i32_type.const_int(1, false),
        TextureQuery::ForceUnnormalizedCoordinates => {
            let normalized = field(TextureField::NormalizedCoordinates)?;
            let unnormalized =
                builder.build_int_compare(inkwell::IntPredicate::EQ, normalized, i32_type.const_zero(), "")?;
            builder.build_int_z_extend(unnormalized, i32_type, "")?
        }
        TextureQuery::FilterMode => field(TextureField::FilterMode)?,
        TextureQuery::AddressMode(dimension) => field(TextureField::AddressMode(dimension))?,
    };
    let value = match level {
        Some(level) => {
            let level = lowering.read_int(level, ScalarType::U32)?;
            let most = i32_type.const_int(31, false);
            let below = builder.build_int_compare(inkwell::IntPredicate::ULT, level, most, "")?;
            let level = builder.build_select(below, level, most, "")?.into_int_value();
            let size = builder.build_right_shift(value, level, false, "")?;
            let one = i32_type.const_int(1, false);
            let positive = builder.build_int_compare(inkwell::IntPredicate::UGT, size, one, "")?;
            builder.build_select(positive, size, one, "")?.into_int_value()
        }
        None => value,
    };
    lowering.write(destination, value.into(), ScalarType::B32)
}
