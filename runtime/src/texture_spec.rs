//! The launch spec's `textures`: each a texture or surface over one of the spec's buffers,
//! passed to a kernel parameter as the address of its ptxr texture descriptor
//! (`{ "texture": NAME }`, a PTX texture or surface object). The fields and their defaults:
//!
//! ```json
//! "textures": {
//!   "image": { "buffer": "pixels", "width": 4, "height": 3, "depth": 1, "layers": 0,
//!              "channels": 1, "format": "f32", "read": "element", "filter": "point",
//!              "address": ["clamp", "clamp", "clamp"], "normalized": false,
//!              "border": [0, 0, 0, 0], "row_pitch": 16, "slice_pitch": 48, "cube": false,
//!              "levels": 1, "mipmap_filter": "point", "level_bias": 0,
//!              "min_level": 0, "max_level": LEVELS - 1 }
//! }
//! ```
//!
//! With `"texref": NAME`, the launch also copies the descriptor into the module's `.texref` or
//! `.surfref` variable NAME before the grid (on the CPU).
//!
//! `format` is one of `u8 s8 u16 s16 u32 s32 f16 f32`; `read` is `element` or
//! `normalized_float`; `filter` is `point` or `linear`; each `address` mode is `wrap`, `clamp`,
//! `mirror` or `border` (one name applies to every dimension); `border` gives each result
//! channel's value outside the texture in border mode (floats for float results); the pitches
//! default to tightly packed rows and slices (or layers). `"cube": true` makes a cube map for
//! `tex.cube`/`tex.acube`: square faces (`height` defaults to `width`), `layers` 6 × the cubes
//! (default 6), each cube's faces in the order +x, -x, +y, -y, +z, -z.
//!
//! `"levels": N` (1 to 16) makes a mipmapped texture for `tex.level`: the buffer holds the N
//! levels one after another, level 0 first with the pitches above, then each level `l` of
//! `max(1, size >> l)` texels per dimension, tightly packed (`TextureDescriptor::pack_levels`).
//! The data of each level is given, not generated. `mipmap_filter`, `level_bias`, `min_level`
//! and `max_level` are the Programming Guide's `mipmapFilterMode`, `mipmapLevelBias`,
//! `minMipmapLevelClamp` and `maxMipmapLevelClamp`.

use serde::Deserialize;

use crate::error::RuntimeError;
use crate::texture::{
    channel_type_of, AddressMode, ChannelType, FilterMode, Mipmaps, ReadMode, TextureDescriptor, MAX_MIPMAP_LEVELS,
};

/// A checked texture of the spec: its descriptor (without its data address, which the launch
/// fills in) and the buffer holding its texels.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureSpec {
    pub name: String,
    pub buffer: String,
    pub descriptor: TextureDescriptor,
    /// The module's `.texref` or `.surfref` variable that the launch binds the texture to
    /// (`"texref": NAME`), besides passing it to `{ "texture": NAME }` arguments.
    pub reference: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum RawAddressModes {
    One(String),
    Each(Vec<String>),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTexture {
    buffer: String,
    width: u32,
    #[serde(default)]
    height: Option<u32>,
    #[serde(default)]
    depth: Option<u32>,
    #[serde(default)]
    layers: Option<u32>,
    #[serde(default)]
    channels: Option<u32>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    read: Option<String>,
    #[serde(default)]
    filter: Option<String>,
    #[serde(default)]
    address: Option<RawAddressModes>,
    #[serde(default)]
    normalized: Option<bool>,
    #[serde(default)]
    border: Option<Vec<f64>>,
    #[serde(default)]
    row_pitch: Option<u64>,
    #[serde(default)]
    slice_pitch: Option<u64>,
    #[serde(default)]
    texref: Option<String>,
    #[serde(default)]
    cube: Option<bool>,
    #[serde(default)]
    levels: Option<u32>,
    #[serde(default)]
    mipmap_filter: Option<String>,
    #[serde(default)]
    level_bias: Option<f32>,
    #[serde(default)]
    min_level: Option<f32>,
    #[serde(default)]
    max_level: Option<f32>,
}

fn channel_type(name: &str) -> Option<ChannelType> {
    Some(match name {
        "u8" => ChannelType::U8,
        "s8" => ChannelType::S8,
        "u16" => ChannelType::U16,
        "s16" => ChannelType::S16,
        "u32" => ChannelType::U32,
        "s32" => ChannelType::S32,
        "f16" => ChannelType::F16,
        "f32" => ChannelType::F32,
        _ => return None,
    })
}

fn address_mode(name: &str) -> Option<AddressMode> {
    Some(match name {
        "wrap" => AddressMode::Wrap,
        "clamp" => AddressMode::Clamp,
        "mirror" => AddressMode::Mirror,
        "border" => AddressMode::Border,
        _ => return None,
    })
}

impl RawTexture {
    pub(crate) fn validate(
        self,
        name: String,
        buffers: &[crate::spec::BufferSpec],
    ) -> Result<TextureSpec, RuntimeError> {
        let fail = |message: String| RuntimeError::field("textures", format!("texture `{name}`: {message}"));
        if !buffers.iter().any(|buffer| buffer.name == self.buffer) {
            return Err(fail(format!("no buffer named `{}`", self.buffer)));
        }
        let format = self.format.as_deref().unwrap_or("f32");
        let channel_type = channel_type(format)
            .ok_or_else(|| fail(format!("`format` is `{format}`, not one of u8 s8 u16 s16 u32 s32 f16 f32")))?;
        let channels = self.channels.unwrap_or(1);
        if !matches!(channels, 1 | 2 | 4) {
            return Err(fail(format!("`channels` is {channels}, not 1, 2 or 4")));
        }
        let read_mode = match self.read.as_deref().unwrap_or("element") {
            "element" => ReadMode::ElementType,
            "normalized_float" => ReadMode::NormalizedFloat,
            other => return Err(fail(format!("`read` is `{other}`, not `element` or `normalized_float`"))),
        };
        let filter = |name: &str, value: Option<&str>| match value.unwrap_or("point") {
            "point" => Ok(FilterMode::Point),
            "linear" => Ok(FilterMode::Linear),
            other => Err(fail(format!("`{name}` is `{other}`, not `point` or `linear`"))),
        };
        let filter_mode = filter("filter", self.filter.as_deref())?;
        let mipmap_filter_mode = filter("mipmap_filter", self.mipmap_filter.as_deref())?;
        let levels = self.levels.unwrap_or(1);
        if !(1..=MAX_MIPMAP_LEVELS as u32).contains(&levels) {
            return Err(fail(format!("`levels` is {levels}, not 1 to {MAX_MIPMAP_LEVELS}")));
        }
        let names = match self.address {
            None => vec!["clamp".to_string()],
            Some(RawAddressModes::One(name)) => vec![name],
            Some(RawAddressModes::Each(names)) if (1..=3).contains(&names.len()) => names,
            Some(RawAddressModes::Each(_)) => return Err(fail("`address` has 1 to 3 modes".into())),
        };
        let mut address_modes = [AddressMode::Clamp as u32; 3];
        for (dimension, mode) in address_modes.iter_mut().enumerate() {
            let name = names.get(dimension).or(names.last()).map_or("clamp", String::as_str);
            *mode = address_mode(name)
                .ok_or_else(|| fail(format!("address mode `{name}` is not wrap, clamp, mirror or border")))?
                as u32;
        }
        let border_values = self.border.unwrap_or_default();
        if border_values.len() > 4 {
            return Err(fail("`border` has at most 4 channels".into()));
        }
        let float_results =
            matches!(channel_type, ChannelType::F16 | ChannelType::F32) || read_mode == ReadMode::NormalizedFloat;
        let mut border = [0u32; 4];
        for (channel, value) in border_values.iter().enumerate() {
            border[channel] = if float_results { (*value as f32).to_bits() } else { *value as i64 as u32 };
        }
        let cube = self.cube.unwrap_or(false);
        let height = self.height.unwrap_or(if cube { self.width } else { 1 });
        let depth = self.depth.unwrap_or(1);
        let layers = self.layers.unwrap_or(if cube { 6 } else { 0 });
        if cube && (height != self.width || depth != 1 || layers == 0 || layers % 6 != 0) {
            return Err(fail(format!(
                "a cube map has square faces (`height` = `width`), `depth` 1 and `layers` a multiple of 6 (6 × the cubes), not {}x{height}x{depth} with {layers} layers",
                self.width
            )));
        }
        let row_pitch = self.row_pitch.unwrap_or(u64::from(self.width) * u64::from(channels * channel_type.bytes()));
        let slice_pitch = self.slice_pitch.unwrap_or(row_pitch * u64::from(height));
        let mut descriptor = TextureDescriptor {
            data: 0,
            width: self.width,
            height,
            depth,
            layers,
            row_pitch,
            slice_pitch,
            channels,
            channel_type: channel_type as u32,
            read_mode: read_mode as u32,
            filter_mode: filter_mode as u32,
            address_modes,
            normalized_coordinates: u32::from(self.normalized.unwrap_or(false)),
            border,
            cube: u32::from(cube),
            reserved: 0,
            mipmaps: Mipmaps {
                filter_mode: mipmap_filter_mode as u32,
                level_bias: self.level_bias.unwrap_or(0.0).to_bits(),
                min_level_clamp: self.min_level.unwrap_or(0.0).to_bits(),
                max_level_clamp: self.max_level.unwrap_or((levels - 1) as f32).to_bits(),
                ..Mipmaps::NONE
            },
        };
        descriptor.pack_levels(levels);
        Ok(TextureSpec { name, buffer: self.buffer, descriptor, reference: self.texref })
    }

    /// The bytes the texture's addressing can reach, for checking against its buffer.
    pub(crate) fn reach(descriptor: &TextureDescriptor) -> u64 {
        if descriptor.mipmaps.levels > 1 {
            let mut levels = *descriptor;
            return levels.pack_levels(descriptor.mipmaps.levels);
        }
        let texel =
            u64::from(descriptor.channels) * u64::from(ChannelType::bytes(channel_type_of(descriptor.channel_type)));
        let planes = u64::from(descriptor.depth.max(1)).max(u64::from(descriptor.layers.max(1)));
        (planes - 1) * descriptor.slice_pitch
            + u64::from(descriptor.height.max(1) - 1) * descriptor.row_pitch
            + u64::from(descriptor.width) * texel
    }
}

impl TextureDescriptor {
    /// The descriptor's bytes, as the kernel reads them.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(crate::texture::TEXTURE_DESCRIPTOR_BYTES as usize);
        bytes.extend(self.data.to_le_bytes());
        for word in [self.width, self.height, self.depth, self.layers] {
            bytes.extend(word.to_le_bytes());
        }
        bytes.extend(self.row_pitch.to_le_bytes());
        bytes.extend(self.slice_pitch.to_le_bytes());
        for word in [self.channels, self.channel_type, self.read_mode, self.filter_mode] {
            bytes.extend(word.to_le_bytes());
        }
        for word in self.address_modes {
            bytes.extend(word.to_le_bytes());
        }
        bytes.extend(self.normalized_coordinates.to_le_bytes());
        for word in self.border {
            bytes.extend(word.to_le_bytes());
        }
        bytes.extend(self.cube.to_le_bytes());
        bytes.extend(self.reserved.to_le_bytes());
        let mipmaps = &self.mipmaps;
        for word in [
            mipmaps.levels,
            mipmaps.filter_mode,
            mipmaps.level_bias,
            mipmaps.min_level_clamp,
            mipmaps.max_level_clamp,
            mipmaps.reserved,
        ] {
            bytes.extend(word.to_le_bytes());
        }
        for offset in mipmaps.level_offsets {
            bytes.extend(offset.to_le_bytes());
        }
        bytes
    }
}

#[cfg(test)]
mod tests {
    use crate::spec::{ArgumentSpec, LaunchSpec};
    use crate::texture::{AddressMode, ChannelType, FilterMode, ReadMode};

    fn error(text: &str) -> String {
        LaunchSpec::from_json(text).expect_err("the spec is refused").to_string()
    }

    #[test]
    fn a_texture_is_read_with_its_defaults_and_bound_to_an_argument() {
        let spec = LaunchSpec::from_json(
            r#"{ "buffers": { "pixels": { "type": "u8", "len": 96 } },
                 "textures": { "image": { "buffer": "pixels", "width": 4, "height": 3, "channels": 4,
                                          "format": "u16", "read": "normalized_float", "filter": "linear",
                                          "address": ["wrap", "border"], "normalized": true,
                                          "border": [0.5, 1] } },
                 "args": [ { "texture": "image" } ] }"#,
        )
        .expect("the spec is valid");
        assert_eq!(spec.args, [ArgumentSpec::Texture("image".into())]);
        let descriptor = spec.textures[0].descriptor;
        assert_eq!((descriptor.width, descriptor.height, descriptor.depth, descriptor.layers), (4, 3, 1, 0));
        assert_eq!((descriptor.row_pitch, descriptor.slice_pitch), (32, 96));
        assert_eq!(descriptor.channel_type, ChannelType::U16 as u32);
        assert_eq!(descriptor.read_mode, ReadMode::NormalizedFloat as u32);
        assert_eq!(descriptor.filter_mode, FilterMode::Linear as u32);
        // The last mode given applies to the dimensions after it.
        let modes = [AddressMode::Wrap as u32, AddressMode::Border as u32, AddressMode::Border as u32];
        assert_eq!(descriptor.address_modes, modes);
        assert_eq!(descriptor.border, [0.5f32.to_bits(), 1.0f32.to_bits(), 0, 0]);
        assert_eq!(descriptor.normalized_coordinates, 1);
        assert_eq!(descriptor.cube, 0);
    }

    #[test]
    fn a_cube_map_has_six_square_faces_per_cube() {
        let spec = LaunchSpec::from_json(
            r#"{ "buffers": { "faces": { "type": "f32", "len": 288 } },
                 "textures": { "sky": { "buffer": "faces", "width": 4, "cube": true },
                               "skies": { "buffer": "faces", "width": 2, "layers": 12, "cube": true } },
                 "args": [ { "texture": "sky" }, { "texture": "skies" } ] }"#,
        )
        .expect("the spec is valid");
        let sky = spec.textures.iter().find(|texture| texture.name == "sky").expect("sky").descriptor;
        assert_eq!((sky.width, sky.height, sky.layers, sky.cube), (4, 4, 6, 1));
        assert_eq!((sky.row_pitch, sky.slice_pitch), (16, 64));
        let skies = spec.textures.iter().find(|texture| texture.name == "skies").expect("skies").descriptor;
        assert_eq!((skies.width, skies.height, skies.layers, skies.cube), (2, 2, 12, 1));
        assert_eq!(skies.to_bytes()[88..96], [1, 0, 0, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn mipmap_levels_follow_level_0_in_the_buffer() {
        let spec = LaunchSpec::from_json(
            r#"{ "buffers": { "pixels": { "type": "f32", "len": 43 } },
                 "textures": { "image": { "buffer": "pixels", "width": 6, "height": 5, "levels": 3,
                                          "mipmap_filter": "linear", "level_bias": 0.5, "min_level": 0.25 } },
                 "args": [ { "texture": "image" } ] }"#,
        )
        .expect("the spec is valid");
        let mipmaps = spec.textures[0].descriptor.mipmaps;
        assert_eq!(mipmaps.levels, 3);
        assert_eq!(mipmaps.filter_mode, FilterMode::Linear as u32);
        assert_eq!((mipmaps.level_bias, mipmaps.min_level_clamp), (0.5f32.to_bits(), 0.25f32.to_bits()));
        // The last level by default.
        assert_eq!(mipmaps.max_level_clamp, 2.0f32.to_bits());
        // 6x5, then 3x2 and 1x1 texels of 4 bytes: 30 + 6 + 1 = 37 texels.
        assert_eq!(mipmaps.level_offsets[..4], [0, 120, 144, 0]);
        let bytes = spec.textures[0].descriptor.to_bytes();
        assert_eq!(bytes.len(), crate::texture::TEXTURE_DESCRIPTOR_BYTES as usize);
        assert_eq!(bytes[96..100], [3, 0, 0, 0]);
        assert_eq!(bytes[128..136], 120u64.to_le_bytes());
    }

    #[test]
    fn texture_mistakes_are_reported() {
        let with = |texture: &str, argument: &str| {
            error(&format!(
                r#"{{ "buffers": {{ "pixels": {{ "type": "f32", "len": 4 }} }},
                     "textures": {{ "image": {texture} }}, "args": [ {argument} ] }}"#
            ))
        };
        let image = r#"{ "buffer": "pixels", "width": 4 }"#;
        assert!(with(r#"{ "buffer": "nothing", "width": 4 }"#, "").contains("no buffer named `nothing`"));
        assert!(with(r#"{ "buffer": "pixels", "width": 4, "format": "f64" }"#, "").contains("`format` is `f64`"));
        assert!(with(r#"{ "buffer": "pixels", "width": 4, "channels": 3 }"#, "").contains("not 1, 2 or 4"));
        assert!(with(r#"{ "buffer": "pixels", "width": 4, "address": "repeat" }"#, "").contains("`repeat`"));
        assert!(with(image, r#"{ "texture": "other" }"#).contains("no texture named `other`"));
        assert!(with(r#"{ "buffer": "pixels", "width": 4, "height": 2, "cube": true }"#, "").contains("square faces"));
        assert!(with(r#"{ "buffer": "pixels", "width": 1, "layers": 7, "cube": true }"#, "").contains("7 layers"));
        assert!(with(r#"{ "buffer": "pixels", "width": 4, "levels": 17 }"#, "").contains("`levels` is 17"));
        assert!(with(r#"{ "buffer": "pixels", "width": 4, "mipmap_filter": "cubic" }"#, "").contains("`mipmap_filter`"));
        assert!(with(image, r#"{ "texture": "image", "buffer": "pixels" }"#).contains("only { \"texture\": NAME }"));
    }
}
