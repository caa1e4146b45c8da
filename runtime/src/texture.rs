//! The ptxr texture descriptor: what a texture or surface handle points to on the software
//! targets (CPU, AMDGPU, SPIR-V). A PTX texture object (`.u64`), surface object, `.texref` or
//! `.surfref` is the global address of one of these; lowering reads its fields at the offsets
//! below (`TextureField::offset`), and the runtime and tests build it as this `#[repr(C)]`
//! struct, so the two never disagree. docs/TARGETS.md "Textures and surfaces" documents it.

use std::mem::offset_of;

/// One texture or surface: its texels and how `tex` samples them.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextureDescriptor {
    /// Global address of texel (0, 0, 0) of layer 0.
    pub data: u64,
    /// Texels per row; rows per slice (1 for 1D); slices (1 below 3D).
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// Layers of an array texture (`.a1d`, `.a2d`); 0 or 1 otherwise.
    pub layers: u32,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one 3D slice, or one array layer, to the next.
    pub slice_pitch: u64,
    /// Channels per texel: 1, 2 or 4 (R, RG, RGBA).
    pub channels: u32,
    /// A [`ChannelType`] code.
    pub channel_type: u32,
    /// A [`ReadMode`] code.
    pub read_mode: u32,
    /// A [`FilterMode`] code.
    pub filter_mode: u32,
    /// An [`AddressMode`] code per dimension (x, y, z).
    pub address_modes: [u32; 3],
    /// Non-zero: coordinates are normalized to [0, 1).
    pub normalized_coordinates: u32,
    /// The bits each result channel has outside the texture in [`AddressMode::Border`]: `f32`
    /// bits for float results, integers for `.s32`/`.u32` results.
    pub border: [u32; 4],
    /// Non-zero: a cube map (`.cube`, `.acube`): `layers` is 6 × the cubes, each cube's six
    /// square faces in the order +x, -x, +y, -y, +z, -z (the Programming Guide's face numbers).
    /// Appended after `border` so that the fields before it keep their offsets.
    pub cube: u32,
    /// Zero; keeps the size a multiple of the 8-byte alignment with no hidden padding.
    pub reserved: u32,
    /// The mipmap levels (`tex.level`, `tex.grad`, `txq.num_mipmap_levels`). Appended after
    /// `reserved` so that the fields before it keep their offsets.
    pub mipmaps: Mipmaps,
}

/// The most mipmap levels a descriptor holds: a 32768-texel base level has 16.
pub const MAX_MIPMAP_LEVELS: usize = 16;

/// A texture's mipmap levels and how `tex.level`/`tex.grad` choose between them (the CUDA C++
/// Programming Guide's `cudaTextureDesc` fields `mipmapFilterMode`, `mipmapLevelBias`,
/// `minMipmapLevelClamp` and `maxMipmapLevelClamp`). Level `l` is `max(1, size >> l)` texels
/// in each dimension (width, height, depth; layers and cube faces keep their count), its texels
/// start `level_offsets[l]` bytes after the descriptor's `data`, and its rows and slices are
/// tightly packed except level 0's, which keeps the descriptor's pitches.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mipmaps {
    /// The levels, level 0 included; 0 and 1 both mean a texture without mipmaps.
    pub levels: u32,
    /// A [`FilterMode`] code: the nearest level (point) or a blend of the two around the level
    /// of detail (linear).
    pub filter_mode: u32,
    /// `f32` bits: added to every level of detail before clamping.
    pub level_bias: u32,
    /// `f32` bits: the level of detail is clamped to [`min_level_clamp`, `max_level_clamp`],
    /// then to [0, `levels` - 1].
    pub min_level_clamp: u32,
    pub max_level_clamp: u32,
    /// Zero; keeps `level_offsets` 8-byte aligned with no hidden padding.
    pub reserved: u32,
    /// Bytes from `data` to each level's first texel (level 0: 0).
    pub level_offsets: [u64; MAX_MIPMAP_LEVELS],
}

impl Mipmaps {
    /// A texture without mipmaps: one level, no bias, clamps that let level 0 through.
    pub const NONE: Mipmaps = Mipmaps {
        levels: 1,
        filter_mode: FilterMode::Point as u32,
        level_bias: 0,
        min_level_clamp: 0,
        max_level_clamp: 0,
        reserved: 0,
        level_offsets: [0; MAX_MIPMAP_LEVELS],
    };
}

impl TextureDescriptor {
    /// The size of `level` along each dimension (width, height, depth).
    pub fn level_size(&self, level: usize) -> [u32; 3] {
        [self.width, self.height, self.depth].map(|size| (size >> level).max(1))
    }

    /// The planes (3D slices or layers) each level holds.
    fn planes(&self, level: usize) -> u64 {
        u64::from(self.level_size(level)[2]).max(u64::from(self.layers.max(1)))
    }

    /// The bytes of one texel.
    pub fn texel_bytes(&self) -> u64 {
        u64::from(self.channels) * u64::from(channel_type_of(self.channel_type).bytes())
    }

    /// Gives the texture `levels` mipmap levels stored one after another, level 0 at `data` with
    /// the descriptor's pitches and each further level tightly packed right after the previous
    /// one; returns the bytes all levels take. `levels` is clamped to 1..=16.
    pub fn pack_levels(&mut self, levels: u32) -> u64 {
        let levels = levels.clamp(1, MAX_MIPMAP_LEVELS as u32);
        self.mipmaps.levels = levels;
        let mut offset = self.planes(0) * self.slice_pitch;
        self.mipmaps.level_offsets = [0; MAX_MIPMAP_LEVELS];
        for level in 1..levels as usize {
            self.mipmaps.level_offsets[level] = offset;
            let [width, height, _] = self.level_size(level);
            offset += self.planes(level) * u64::from(width) * u64::from(height) * self.texel_bytes();
        }
        offset
    }
}

/// The [`ChannelType`] of a descriptor's code (f32 for an unknown code).
pub fn channel_type_of(code: u32) -> ChannelType {
    [
        ChannelType::U8,
        ChannelType::S8,
        ChannelType::U16,
        ChannelType::S16,
        ChannelType::U32,
        ChannelType::S32,
        ChannelType::F16,
        ChannelType::F32,
    ]
    .get(code as usize)
    .copied()
    .unwrap_or(ChannelType::F32)
}

/// The size of a descriptor, which a `.texref` or `.surfref` variable reserves.
pub const TEXTURE_DESCRIPTOR_BYTES: u32 = std::mem::size_of::<TextureDescriptor>() as u32;

/// The fields lowering reads, by offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureField {
    Data,
    Width,
    Height,
    Depth,
    Layers,
    RowPitch,
    SlicePitch,
    Channels,
    ChannelType,
    ReadMode,
    FilterMode,
    AddressMode(u8),
    NormalizedCoordinates,
    Border(u8),
    Cube,
    Levels,
    MipmapFilterMode,
    LevelBias,
    MinLevelClamp,
    MaxLevelClamp,
    /// The byte offset of a level's texels from `data`; lowering indexes the array itself.
    LevelOffsets,
}

impl TextureField {
    /// The field's byte offset in [`TextureDescriptor`].
    pub fn offset(self) -> u32 {
        (match self {
            TextureField::Data => offset_of!(TextureDescriptor, data),
            TextureField::Width => offset_of!(TextureDescriptor, width),
            TextureField::Height => offset_of!(TextureDescriptor, height),
            TextureField::Depth => offset_of!(TextureDescriptor, depth),
            TextureField::Layers => offset_of!(TextureDescriptor, layers),
            TextureField::RowPitch => offset_of!(TextureDescriptor, row_pitch),
            TextureField::SlicePitch => offset_of!(TextureDescriptor, slice_pitch),
            TextureField::Channels => offset_of!(TextureDescriptor, channels),
            TextureField::ChannelType => offset_of!(TextureDescriptor, channel_type),
            TextureField::ReadMode => offset_of!(TextureDescriptor, read_mode),
            TextureField::FilterMode => offset_of!(TextureDescriptor, filter_mode),
            TextureField::AddressMode(dimension) => {
                offset_of!(TextureDescriptor, address_modes) + 4 * usize::from(dimension)
            }
            TextureField::NormalizedCoordinates => offset_of!(TextureDescriptor, normalized_coordinates),
            TextureField::Border(channel) => offset_of!(TextureDescriptor, border) + 4 * usize::from(channel),
            TextureField::Cube => offset_of!(TextureDescriptor, cube),
            TextureField::Levels => offset_of!(TextureDescriptor, mipmaps) + offset_of!(Mipmaps, levels),
            TextureField::MipmapFilterMode => offset_of!(TextureDescriptor, mipmaps) + offset_of!(Mipmaps, filter_mode),
            TextureField::LevelBias => offset_of!(TextureDescriptor, mipmaps) + offset_of!(Mipmaps, level_bias),
            TextureField::MinLevelClamp => {
                offset_of!(TextureDescriptor, mipmaps) + offset_of!(Mipmaps, min_level_clamp)
            }
            TextureField::MaxLevelClamp => {
                offset_of!(TextureDescriptor, mipmaps) + offset_of!(Mipmaps, max_level_clamp)
            }
            TextureField::LevelOffsets => offset_of!(TextureDescriptor, mipmaps) + offset_of!(Mipmaps, level_offsets),
        }) as u32
    }

    /// Whether the field is 64 bits wide (the others are 32).
    pub fn is_wide(self) -> bool {
        matches!(
            self,
            TextureField::Data | TextureField::RowPitch | TextureField::SlicePitch | TextureField::LevelOffsets
        )
    }
}

/// How each channel is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ChannelType {
    U8 = 0,
    S8 = 1,
    U16 = 2,
    S16 = 3,
    U32 = 4,
    S32 = 5,
    F16 = 6,
    F32 = 7,
}

impl ChannelType {
    pub fn bytes(self) -> u32 {
        match self {
            ChannelType::U8 | ChannelType::S8 => 1,
            ChannelType::U16 | ChannelType::S16 | ChannelType::F16 => 2,
            ChannelType::U32 | ChannelType::S32 | ChannelType::F32 => 4,
        }
    }
}

/// `cudaReadModeElementType` (0) returns channels as stored; `cudaReadModeNormalizedFloat` (1)
/// returns 8- and 16-bit integer channels as floats in [0, 1] (unsigned) or [-1, 1] (signed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ReadMode {
    ElementType = 0,
    NormalizedFloat = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum FilterMode {
    /// The texel the coordinate falls in.
    Point = 0,
    /// Linear interpolation of the 2, 4 or 8 nearest texels, with 8-bit fractional weights.
    Linear = 1,
}

/// What a coordinate outside the texture reads (CUDA's `cudaTextureAddressMode` codes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum AddressMode {
    Wrap = 0,
    Clamp = 1,
    Mirror = 2,
    Border = 3,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_is_the_documented_one() {
        assert_eq!(TEXTURE_DESCRIPTOR_BYTES, 248);
        assert_eq!(TextureField::Data.offset(), 0);
        assert_eq!(TextureField::Width.offset(), 8);
        assert_eq!(TextureField::RowPitch.offset(), 24);
        assert_eq!(TextureField::SlicePitch.offset(), 32);
        assert_eq!(TextureField::Channels.offset(), 40);
        assert_eq!(TextureField::AddressMode(2).offset(), 64);
        assert_eq!(TextureField::NormalizedCoordinates.offset(), 68);
        assert_eq!(TextureField::Border(3).offset(), 84);
        assert_eq!(TextureField::Cube.offset(), 88);
        assert_eq!(TextureField::Levels.offset(), 96);
        assert_eq!(TextureField::MipmapFilterMode.offset(), 100);
        assert_eq!(TextureField::LevelBias.offset(), 104);
        assert_eq!(TextureField::MinLevelClamp.offset(), 108);
        assert_eq!(TextureField::MaxLevelClamp.offset(), 112);
        assert_eq!(TextureField::LevelOffsets.offset(), 120);
    }

    #[test]
    fn levels_are_packed_one_after_another() {
        let mut descriptor = TextureDescriptor {
            width: 5,
            height: 3,
            depth: 1,
            row_pitch: 24,
            slice_pitch: 72,
            channels: 2,
            channel_type: ChannelType::U16 as u32,
            ..TextureDescriptor::default()
        };
        // Level 0 keeps its padded pitch (72 bytes); then 2x1 and 1x1 texels of 4 bytes.
        assert_eq!(descriptor.pack_levels(3), 72 + 8 + 4);
        assert_eq!(descriptor.mipmaps.levels, 3);
        assert_eq!(descriptor.mipmaps.level_offsets[..4], [0, 72, 80, 0]);
        assert_eq!(descriptor.level_size(2), [1, 1, 1]);
    }
}
