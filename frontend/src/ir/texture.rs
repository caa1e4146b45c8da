//! Texture and surface instructions (ISA 7.8 sections 9.7.9 and 9.7.10): `tex`, `tld4`, `txq`,
//! `suld`, `sust`, `sured` and `suq`. They are boxed inside `Instruction::Texture`: rare, and their
//! coordinate and result vectors inline would make every checked instruction larger.

use std::fmt;

use crate::vocabulary::ScalarType;

use super::{Destination, Operand};

/// The shape of the texture or surface an instruction reads (`.geom`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureGeometry {
    OneD,
    TwoD,
    ThreeD,
    /// `.a1d`: an array of 1D layers; the coordinate vector starts with the layer.
    ArrayOneD,
    /// `.a2d`: an array of 2D layers.
    ArrayTwoD,
    /// `.cube`: six square faces, addressed by a direction (x, y, z).
    Cube,
    /// `.acube`: an array of cube maps; the coordinate vector starts with the cube.
    ArrayCube,
}

impl TextureGeometry {
    pub fn from_ptx(name: &str) -> Option<TextureGeometry> {
        Some(match name {
            "1d" => TextureGeometry::OneD,
            "2d" => TextureGeometry::TwoD,
            "3d" => TextureGeometry::ThreeD,
            "a1d" => TextureGeometry::ArrayOneD,
            "a2d" => TextureGeometry::ArrayTwoD,
            "cube" => TextureGeometry::Cube,
            "acube" => TextureGeometry::ArrayCube,
            _ => return None,
        })
    }

    /// How many coordinates address a texel within one layer (a cube map's direction has
    /// three).
    pub fn dimensions(self) -> usize {
        match self {
            TextureGeometry::OneD | TextureGeometry::ArrayOneD => 1,
            TextureGeometry::TwoD | TextureGeometry::ArrayTwoD => 2,
            TextureGeometry::ThreeD | TextureGeometry::Cube | TextureGeometry::ArrayCube => 3,
        }
    }

    pub fn is_array(self) -> bool {
        matches!(self, TextureGeometry::ArrayOneD | TextureGeometry::ArrayTwoD | TextureGeometry::ArrayCube)
    }

    pub fn is_cube(self) -> bool {
        matches!(self, TextureGeometry::Cube | TextureGeometry::ArrayCube)
    }

    /// The elements of the coordinate vector as PTX writes it: the layer first for arrays, and
    /// a fourth, ignored element for `.3d`, `.a2d` and `.cube` (vectors have 1, 2 or 4 elements).
    pub fn coordinate_count(self) -> u32 {
        match self {
            TextureGeometry::OneD => 1,
            TextureGeometry::TwoD | TextureGeometry::ArrayOneD => 2,
            TextureGeometry::ThreeD
            | TextureGeometry::ArrayTwoD
            | TextureGeometry::Cube
            | TextureGeometry::ArrayCube => 4,
        }
    }
}

impl fmt::Display for TextureGeometry {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            TextureGeometry::OneD => ".1d",
            TextureGeometry::TwoD => ".2d",
            TextureGeometry::ThreeD => ".3d",
            TextureGeometry::ArrayOneD => ".a1d",
            TextureGeometry::ArrayTwoD => ".a2d",
            TextureGeometry::Cube => ".cube",
            TextureGeometry::ArrayCube => ".acube",
        })
    }
}

/// What `txq` and `suq` report (ISA 7.8 tables 32 and 33).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureQuery {
    Width,
    Height,
    Depth,
    ChannelDataType,
    ChannelOrder,
    NormalizedCoordinates,
    ArraySize,
    MipmapLevels,
    Samples,
    ForceUnnormalizedCoordinates,
    FilterMode,
    /// `.addr_mode_0` to `.addr_mode_2`: the address mode of one dimension.
    AddressMode(u8),
    /// `suq.memory_layout`: 1 for a linear (pitch) layout, which every ptxr surface has.
    MemoryLayout,
}

impl TextureQuery {
    pub fn from_ptx(name: &str) -> Option<TextureQuery> {
        Some(match name {
            "width" => TextureQuery::Width,
            "height" => TextureQuery::Height,
            "depth" => TextureQuery::Depth,
            "channel_data_type" => TextureQuery::ChannelDataType,
            "channel_order" => TextureQuery::ChannelOrder,
            "normalized_coords" => TextureQuery::NormalizedCoordinates,
            "array_size" => TextureQuery::ArraySize,
            "num_mipmap_levels" => TextureQuery::MipmapLevels,
            "num_samples" => TextureQuery::Samples,
            "force_unnormalized_coords" => TextureQuery::ForceUnnormalizedCoordinates,
            "filter_mode" => TextureQuery::FilterMode,
            "addr_mode_0" => TextureQuery::AddressMode(0),
            "addr_mode_1" => TextureQuery::AddressMode(1),
            "addr_mode_2" => TextureQuery::AddressMode(2),
            "memory_layout" => TextureQuery::MemoryLayout,
            _ => return None,
        })
    }

    /// Whether `suq` may ask it (table 33); `txq` asks every query but `.memory_layout`.
    pub fn is_surface_query(self) -> bool {
        matches!(
            self,
            TextureQuery::Width
                | TextureQuery::Height
                | TextureQuery::Depth
                | TextureQuery::ChannelDataType
                | TextureQuery::ChannelOrder
                | TextureQuery::ArraySize
                | TextureQuery::MemoryLayout
        )
    }
}

/// What a surface access does with coordinates outside the surface (`.clamp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceBoundary {
    /// `.trap` (the default): the kernel traps.
    Trap,
    /// `.clamp`: the nearest element inside the surface is accessed.
    Clamp,
    /// `.zero`: a load gives zero and a store does nothing.
    Zero,
}

/// A texture or surface instruction. The `handle` is a `.u64` register holding a texture or
/// surface object, or a `.texref`/`.surfref` variable (its address, `Value::AddressOf`).
#[derive(Clone, Debug, PartialEq)]
pub enum TextureInstruction {
    /// `tex{.base,.level,.grad}.geom.v4.dtype.ctype d{|p}, [a, {b,} c]{, lod}{, dPdx, dPdy}`: four channels of
    /// the texture at `coordinates`, filtered by the texture's sampler.
    Sample {
        geometry: TextureGeometry,
        /// `.f32`, `.s32` or `.u32`.
        result: ScalarType,
        /// `.f32` or `.s32`.
        coordinate: ScalarType,
        destinations: Vec<Destination>,
        predicate: Option<Destination>,
        handle: Operand,
        /// The independent-mode sampler `b`.
        sampler: Option<Operand>,
        /// The coordinate vector as written (layer first for arrays, padding included).
        coordinates: Vec<Operand>,
        /// `.level`'s level of detail; `.base` and plain `tex` read level 0.
        level: Option<Operand>,
        /// `.grad`'s `dPdx` and `dPdy`, as written (1, 2 or 4 elements each).
        gradients: Option<[Vec<Operand>; 2]>,
    },
    /// `tld4.comp.2d.v4.dtype.f32 d{|p}, [a, {b,} c]`: component `component` (`.r` is 0) of
    /// the four texels that bilinear filtering at `coordinates` would weigh.
    Gather {
        component: u8,
        /// `.2d`, `.a2d`, `.cube` or `.acube`.
        geometry: TextureGeometry,
        result: ScalarType,
        destinations: Vec<Destination>,
        predicate: Option<Destination>,
        handle: Operand,
        sampler: Option<Operand>,
        coordinates: Vec<Operand>,
    },
    /// `txq.query.b32 d, [a]`, and `txq.level.query.b32 d, [a], lod` (`level`: a size of
    /// mipmap level `lod`).
    QueryTexture { query: TextureQuery, destination: Destination, handle: Operand, level: Option<Operand> },
    /// `suld.b.geom.vec.dtype.clamp d, [a, b]`: `lanes` elements of `bits` bits at byte
    /// offset `b.x` of the row the other coordinates choose.
    SurfaceLoad {
        geometry: TextureGeometry,
        bits: u32,
        lanes: u32,
        boundary: SurfaceBoundary,
        destinations: Vec<Destination>,
        handle: Operand,
        coordinates: Vec<Operand>,
    },
    /// `sust.b.geom.vec.ctype.clamp [a, b], c` and (`formatted`) `sust.p.geom.vec.b32.clamp`,
    /// whose elements are channel values converted to the surface's format at element `b.x`.
    SurfaceStore {
        geometry: TextureGeometry,
        formatted: bool,
        bits: u32,
        lanes: u32,
        boundary: SurfaceBoundary,
        handle: Operand,
        coordinates: Vec<Operand>,
        sources: Vec<Operand>,
    },
    /// `sured.b.op.geom.ctype.clamp [a, b], c` and (`formatted`) `sured.p.op.geom.b32.clamp`:
    /// an atomic `operation` of `source` into the element at byte `b.x` (`.b`) or into texel
    /// `b.x`'s first channel (`.p`). `ty` is the element's type (`.b32` for `.p`).
    SurfaceReduce {
        geometry: TextureGeometry,
        formatted: bool,
        operation: SurfaceReduction,
        ty: ScalarType,
        boundary: SurfaceBoundary,
        handle: Operand,
        coordinates: Vec<Operand>,
        source: Operand,
    },
    /// `suq.query.b32 d, [a]`.
    QuerySurface { query: TextureQuery, destination: Destination, handle: Operand },
}

/// The operation of a `sured` (`.op`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SurfaceReduction {
    Add,
    Minimum,
    Maximum,
    And,
    Or,
}

impl SurfaceReduction {
    pub fn from_ptx(name: &str) -> Option<SurfaceReduction> {
        Some(match name {
            "add" => SurfaceReduction::Add,
            "min" => SurfaceReduction::Minimum,
            "max" => SurfaceReduction::Maximum,
            "and" => SurfaceReduction::And,
            "or" => SurfaceReduction::Or,
            _ => return None,
        })
    }

    /// The element types `sured.b` allows with this operation (ISA 7.8 section 9.7.10.3; the
    /// 64-bit `.min`/`.max` are ISA 8.1, as ptxas 12.9 says).
    pub fn byte_types(self) -> &'static [ScalarType] {
        match self {
            SurfaceReduction::Add => &[ScalarType::U32, ScalarType::S32, ScalarType::U64],
            SurfaceReduction::Minimum | SurfaceReduction::Maximum => {
                &[ScalarType::U32, ScalarType::S32, ScalarType::U64, ScalarType::S64]
            }
            SurfaceReduction::And | SurfaceReduction::Or => &[ScalarType::B32],
        }
    }
}

impl fmt::Display for SurfaceReduction {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            SurfaceReduction::Add => ".add",
            SurfaceReduction::Minimum => ".min",
            SurfaceReduction::Maximum => ".max",
            SurfaceReduction::And => ".and",
            SurfaceReduction::Or => ".or",
        })
    }
}

impl TextureInstruction {
    /// The registers the instruction writes.
    pub fn destinations(&self) -> Vec<Destination> {
        match self {
            TextureInstruction::Sample { destinations, predicate, .. }
            | TextureInstruction::Gather { destinations, predicate, .. } => {
                destinations.iter().copied().chain(*predicate).collect()
            }
            TextureInstruction::SurfaceLoad { destinations, .. } => destinations.clone(),
            TextureInstruction::QueryTexture { destination, .. }
            | TextureInstruction::QuerySurface { destination, .. } => vec![*destination],
            TextureInstruction::SurfaceStore { .. } | TextureInstruction::SurfaceReduce { .. } => Vec::new(),
        }
    }
}

/// The `.b8`/`.b16`/`.b32`/`.b64` type of a `suld.b`/`sust.b` element of `bits` bits.
pub fn surface_element_type(bits: u32) -> ScalarType {
    match bits {
        8 => ScalarType::B8,
        16 => ScalarType::B16,
        32 => ScalarType::B32,
        _ => ScalarType::B64,
    }
}
