//! Textures and surfaces (ISA 7.8 sections 9.7.9 and 9.7.10) on the CPU and on SPIR-V through
//! OpenCL, against a model written here from the CUDA C++ Programming Guide's appendix "Texture
//! Fetching": nearest-point sampling reads texel `floor(x)`; linear filtering blends texels
//! `floor(x - 0.5)` and the next with the fraction of `x - 0.5` kept in 9-bit fixed point
//! (8 fractional bits); normalized coordinates are scaled by the size; wrap, clamp, mirror and
//! border address modes (wrap and mirror only with normalized coordinates, clamp otherwise);
//! `cudaReadModeNormalizedFloat` divides 8- and 16-bit integers by their largest value.
//!
//! A texture handle is the address of a ptxr texture descriptor (`ptxr_runtime::texture`). The
//! tests build descriptors on the host; the kernel stores the texel buffer's address into
//! its descriptor (every thread the same value) before sampling, since the host does not know
//! the buffer's device address.

use ptxr_runtime::texture::{
    AddressMode, ChannelType, FilterMode, Mipmaps, ReadMode, TextureDescriptor, TEXTURE_DESCRIPTOR_BYTES,
};
use ptxr_tests::vendor_checks::{compile, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const DESCRIPTOR_WORDS: usize = TEXTURE_DESCRIPTOR_BYTES as usize / 4;

fn descriptor_words(descriptor: &TextureDescriptor) -> Vec<u64> {
    let fields = [
        descriptor.data as u32,
        (descriptor.data >> 32) as u32,
        descriptor.width,
        descriptor.height,
        descriptor.depth,
        descriptor.layers,
        descriptor.row_pitch as u32,
        (descriptor.row_pitch >> 32) as u32,
        descriptor.slice_pitch as u32,
        (descriptor.slice_pitch >> 32) as u32,
        descriptor.channels,
        descriptor.channel_type,
        descriptor.read_mode,
        descriptor.filter_mode,
        descriptor.address_modes[0],
        descriptor.address_modes[1],
        descriptor.address_modes[2],
        descriptor.normalized_coordinates,
        descriptor.border[0],
        descriptor.border[1],
        descriptor.border[2],
        descriptor.border[3],
        descriptor.cube,
        descriptor.reserved,
        descriptor.mipmaps.levels,
        descriptor.mipmaps.filter_mode,
        descriptor.mipmaps.level_bias,
        descriptor.mipmaps.min_level_clamp,
        descriptor.mipmaps.max_level_clamp,
        descriptor.mipmaps.reserved,
    ];
    let offsets = descriptor.mipmaps.level_offsets.iter().flat_map(|&offset| [offset as u32, (offset >> 32) as u32]);
    let words: Vec<u64> = fields.into_iter().chain(offsets).map(u64::from).collect();
    assert_eq!(words.len(), DESCRIPTOR_WORDS);
    words
}

/// A 2D texture's texels and format, for the model.
struct Image {
    width: usize,
    height: usize,
    channels: usize,
    channel_type: ChannelType,
    /// Each channel's stored value as an integer (float channels: their bits).
    texels: Vec<i64>,
}

impl Image {
    fn bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        for &value in &self.texels {
            let size = self.channel_type.bytes() as usize;
            bytes.extend_from_slice(&value.to_le_bytes()[..size]);
        }
        bytes
    }

    fn row_pitch(&self) -> u64 {
        (self.width * self.channels * self.channel_type.bytes() as usize) as u64
    }

    /// Channel `channel` of texel (x, y) as a float under `read_mode`.
    fn channel_float(&self, x: usize, y: usize, channel: usize, read_mode: ReadMode) -> f32 {
        if channel >= self.channels {
            return if channel == 3 { 1.0 } else { 0.0 };
        }
        let value = self.texels[(y * self.width + x) * self.channels + channel];
        let normalized = read_mode == ReadMode::NormalizedFloat;
        match self.channel_type {
            ChannelType::F32 => f32::from_bits(value as u32),
            ChannelType::F16 => half::f16::from_bits(value as u16).to_f32(),
            ChannelType::U8 if normalized => value as f32 / 255.0,
            ChannelType::U16 if normalized => value as f32 / 65535.0,
            ChannelType::S8 if normalized => (value as f32 / 127.0).max(-1.0),
            ChannelType::S16 if normalized => (value as f32 / 32767.0).max(-1.0),
            _ => value as f32,
        }
    }
}

/// Texel index `index` of a dimension of `size` texels under `mode` (already clamp for
/// unnormalized wrap and mirror); `None` outside in border mode.
fn address(index: i64, size: i64, mode: AddressMode) -> Option<usize> {
    let index = match mode {
        AddressMode::Wrap => index.rem_euclid(size),
        AddressMode::Mirror => {
            let folded = index.rem_euclid(2 * size);
            if folded < size {
                folded
            } else {
                2 * size - 1 - folded
            }
        }
        AddressMode::Clamp => index.clamp(0, size - 1),
        AddressMode::Border => {
            if !(0..size).contains(&index) {
                return None;
            }
            index
        }
    };
    Some(index as usize)
}

/// A sampler's settings for the model and the descriptor.
#[derive(Clone, Copy, Debug)]
struct Sampler {
    filter: FilterMode,
    mode: AddressMode,
    normalized: bool,
    read_mode: ReadMode,
}

const BORDER: [f32; 4] = [0.25, -2.0, 7.5, 0.125];

/// The lower texel and the quantized weight of the upper one for coordinate `x`.
fn axis(x: f32, size: usize, sampler: &Sampler) -> (i64, f32) {
    let mut x = if sampler.normalized { x * size as f32 } else { x };
    let linear = sampler.filter == FilterMode::Linear;
    if linear {
        x -= 0.5;
    }
    let floor = x.floor();
    // Rust's `as` saturates like `llvm.fptosi.sat`: NaN is 0.
    let lower = i64::from(floor as i32);
    let fraction = x - floor;
    let weight = (fraction * 256.0).round_ties_even() / 256.0;
    let weight = if linear && !weight.is_nan() { weight } else { 0.0 };
    (lower, weight)
}

/// `tex.2d.v4.f32.f32` of `image` at (x, y), by the Programming Guide's formulas.
fn model_2d(image: &Image, sampler: &Sampler, x: f32, y: f32) -> [f32; 4] {
    let mode = match sampler.mode {
        AddressMode::Wrap | AddressMode::Mirror if !sampler.normalized => AddressMode::Clamp,
        mode => mode,
    };
    let (i, alpha) = axis(x, image.width, sampler);
    let (j, beta) = axis(y, image.height, sampler);
    let texel = |di: i64, dj: i64, channel: usize| -> f32 {
        match (address(i + di, image.width as i64, mode), address(j + dj, image.height as i64, mode)) {
            (Some(x), Some(y)) => image.channel_float(x, y, channel, sampler.read_mode),
            _ => BORDER[channel],
        }
    };
    let mut result = [0.0; 4];
    for (channel, value) in result.iter_mut().enumerate() {
        *value = if sampler.filter == FilterMode::Linear {
            // Summed in the lowering's order: corner 0 (lower, lower), then x first.
            let corners = [
                ((0, 0), (1.0 - alpha) * (1.0 - beta)),
                ((1, 0), alpha * (1.0 - beta)),
                ((0, 1), (1.0 - alpha) * beta),
                ((1, 1), alpha * beta),
            ];
            let mut sum = 0.0f32;
            for (index, ((di, dj), weight)) in corners.iter().enumerate() {
                let weighted = texel(*di, *dj, channel) * weight;
                sum = if index == 0 { weighted } else { sum + weighted };
            }
            sum
        } else {
            texel(0, 0, channel)
        };
    }
    result
}

fn images() -> Vec<Image> {
    vec![
        Image {
            width: 4,
            height: 3,
            channels: 1,
            channel_type: ChannelType::F32,
            texels: (0..12).map(|index| i64::from((index as f32 * 1.5 - 4.0).to_bits())).collect(),
        },
        Image {
            width: 3,
            height: 2,
            channels: 4,
            channel_type: ChannelType::U8,
            texels: (0..24).map(|index| (index * 37 + 11) % 256).collect(),
        },
        Image {
            width: 2,
            height: 2,
            channels: 2,
            channel_type: ChannelType::S16,
            texels: vec![-32768, 32767, 100, -100, 0, 5000, -20000, 1],
        },
        Image {
            width: 3,
            height: 1,
            channels: 1,
            channel_type: ChannelType::F16,
            texels: [1.0f32, -2.5, 65504.0]
                .iter()
                .map(|value| i64::from(half::f16::from_f32(*value).to_bits()))
                .collect(),
        },
    ]
}

/// Coordinates: texel centres and edges, between texels, far outside, -0.0, NaN and
/// infinities (each read as unnormalized and as normalized coordinates).
fn coordinates() -> Vec<(f32, f32)> {
    vec![
        (0.5, 0.5),
        (1.5, 2.5),
        (0.0, 0.0),
        (-0.0, -0.0),
        (1.0, 1.0),
        (2.25, 0.75),
        (3.9, 2.1),
        (4.0, 3.0),
        (-0.3, 1.7),
        (-5.2, 9.6),
        (0.1, 0.9),
        (0.37, 0.51),
        (1.25, -0.75),
        (f32::NAN, 0.5),
        (f32::INFINITY, f32::NEG_INFINITY),
        (0.998, 0.002),
    ]
}

const SAMPLE_KERNEL: &str = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry sample(.param .u64 descriptors, .param .u64 texels, .param .u64 coordinates, .param .u64 out)
{
    .reg .u32 %r<6>;
    .reg .u64 %rd<12>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [descriptors];
    ld.param.u64 %rd2, [texels];
    ld.param.u64 %rd3, [coordinates];
    ld.param.u64 %rd4, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r1, %r2, %r3, %r1;
    div.u32 %r4, %r1, COORDINATES;
    rem.u32 %r5, %r1, COORDINATES;
    mul.wide.u32 %rd5, %r4, DESCRIPTOR_BYTES;
    add.u64 %rd5, %rd1, %rd5;
    st.global.u64 [%rd5], %rd2;
    mul.wide.u32 %rd6, %r5, 8;
    add.u64 %rd6, %rd3, %rd6;
    ld.global.f32 %f5, [%rd6];
    ld.global.f32 %f6, [%rd6+4];
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd5, {%f5, %f6}];
    mul.wide.u32 %rd7, %r1, 16;
    add.u64 %rd7, %rd4, %rd7;
    st.global.v4.f32 [%rd7], {%f1, %f2, %f3, %f4};
    ret;
}
"#;

fn samplers() -> Vec<Sampler> {
    let mut samplers = Vec::new();
    for filter in [FilterMode::Point, FilterMode::Linear] {
        for mode in [AddressMode::Wrap, AddressMode::Clamp, AddressMode::Mirror, AddressMode::Border] {
            for normalized in [false, true] {
                for read_mode in [ReadMode::ElementType, ReadMode::NormalizedFloat] {
                    samplers.push(Sampler { filter, mode, normalized, read_mode });
                }
            }
        }
    }
    samplers
}

/// Every sampler over one image: one thread per (sampler, coordinate).
fn check_image(image: &Image) {
    let samplers = samplers();
    let coordinates = coordinates();
    let descriptors: Vec<u64> = samplers
        .iter()
        .flat_map(|sampler| {
            descriptor_words(&TextureDescriptor {
                data: 0,
                width: image.width as u32,
                height: image.height as u32,
                depth: 1,
                layers: 0,
                row_pitch: image.row_pitch(),
                slice_pitch: image.row_pitch() * image.height as u64,
                channels: image.channels as u32,
                channel_type: image.channel_type as u32,
                read_mode: sampler.read_mode as u32,
                filter_mode: sampler.filter as u32,
                address_modes: [sampler.mode as u32; 3],
                normalized_coordinates: u32::from(sampler.normalized),
                border: BORDER.map(f32::to_bits),
                cube: 0,
                reserved: 0,
                mipmaps: Mipmaps::NONE,
            })
        })
        .collect();
    let threads = samplers.len() * coordinates.len();
    let points: Vec<u64> =
        coordinates.iter().flat_map(|(x, y)| [u64::from(x.to_bits()), u64::from(y.to_bits())]).collect();
    let ptx = SAMPLE_KERNEL
        .replace("COORDINATES", &coordinates.len().to_string())
        .replace("DESCRIPTOR_BYTES", &TEXTURE_DESCRIPTOR_BYTES.to_string());
    let buffers = [
        Buffer::new("u32", descriptors),
        Buffer::new("u8", image.bytes().iter().map(|&byte| u64::from(byte)).collect()),
        Buffer::new("f32", points),
        Buffer::zeroed("f32", 4 * threads),
    ];
    let launch =
        Launch { grid: [samplers.len() as u32, 1, 1], block: [coordinates.len() as u32, 1, 1], ..Launch::default() };
    for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
        for (index, sampler) in samplers.iter().enumerate() {
            for (point, (x, y)) in coordinates.iter().enumerate() {
                let thread = index * coordinates.len() + point;
                let expected = model_2d(image, sampler, *x, *y);
                for channel in 0..4 {
                    let got = f32::from_bits(result[3][4 * thread + channel] as u32);
                    let want = expected[channel];
                    let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                    assert!(
                        same,
                        "{device}: {:?} {}x{} at ({x}, {y}) with {sampler:?}: channel {channel} is {got}, the model says {want}",
                        image.channel_type, image.width, image.height
                    );
                }
            }
        }
    }
}

#[test]
fn tex_2d_matches_the_programming_guides_filtering_for_every_sampler() {
    for image in images() {
        check_image(&image);
    }
}

/// A kernel whose thread `%r1` (of the grid) runs `body` with `%rd1` the descriptor (whose
/// data pointer it has just set to `%rd2`, the texels), `%rd3` the inputs and `%rd4` the
/// outputs.
fn kernel(body: &str) -> String {
    format!(
        r#".version 7.8
.target sm_80
.address_size 64
.visible .entry textured(.param .u64 descriptor, .param .u64 texels, .param .u64 inputs, .param .u64 out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    .reg .f32 %f<16>;
    ld.param.u64 %rd1, [descriptor];
    ld.param.u64 %rd2, [texels];
    ld.param.u64 %rd3, [inputs];
    ld.param.u64 %rd4, [out];
    st.global.u64 [%rd1], %rd2;
    mov.u32 %r1, %tid.x;
{body}
    ret;
}}
"#
    )
}

fn bytes_of(values: &[i64], bytes: usize) -> Vec<u64> {
    values.iter().flat_map(|value| value.to_le_bytes()[..bytes].to_vec()).map(u64::from).collect()
}

fn plain_descriptor(
    width: u32,
    height: u32,
    depth: u32,
    channels: u32,
    channel_type: ChannelType,
) -> TextureDescriptor {
    let row_pitch = u64::from(width * channels * channel_type.bytes());
    TextureDescriptor {
        data: 0,
        width,
        height,
        depth,
        layers: 0,
        row_pitch,
        slice_pitch: row_pitch * u64::from(height),
        channels,
        channel_type: channel_type as u32,
        read_mode: ReadMode::ElementType as u32,
        filter_mode: FilterMode::Point as u32,
        address_modes: [AddressMode::Clamp as u32; 3],
        normalized_coordinates: 0,
        border: [0; 4],
        cube: 0,
        reserved: 0,
        mipmaps: Mipmaps::NONE,
    }
}

/// Runs `body` for `threads` threads on every device; gives each device's output words.
fn run_body(
    body: &str,
    descriptor: &TextureDescriptor,
    texels: Vec<u64>,
    inputs: Vec<u64>,
    outputs: usize,
    threads: u32,
) -> Vec<(&'static str, Vec<u64>)> {
    let buffers = [
        Buffer::new("u32", descriptor_words(descriptor)),
        Buffer::new("u8", texels),
        Buffer::new("u32", inputs),
        Buffer::zeroed("u32", outputs),
    ];
    opencl::run_everywhere(&kernel(body), &Launch::threads(threads), &buffers, OPENCL_CHILD)
        .into_iter()
        .map(|(device, mut result)| (device, result.swap_remove(3)))
        .collect()
}

const INTEGER_FETCH: &str = r#"    mul.wide.u32 %rd5, %r1, 4;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.s32 %r2, [%rd5];
    tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}|%p1, [%rd1, {%r2}];
    selp.u32 %r7, 1, 0, %p1;
    mul.wide.u32 %rd6, %r1, 20;
    add.u64 %rd6, %rd4, %rd6;
    st.global.v4.u32 [%rd6], {%r3, %r4, %r5, %r6};
    st.global.u32 [%rd6+16], %r7;"#;

#[test]
fn tex_1d_with_integer_coordinates_reads_texels_as_integers_with_clamp_and_border() {
    let values: Vec<i64> = vec![-128, -1, 0, 77, 127];
    let indices: Vec<i32> = vec![-3, -1, 0, 1, 2, 3, 4, 5, 9, i32::MIN, i32::MAX];
    for mode in [AddressMode::Clamp, AddressMode::Border, AddressMode::Wrap] {
        let mut descriptor = plain_descriptor(5, 1, 1, 1, ChannelType::S8);
        descriptor.address_modes = [mode as u32; 3];
        descriptor.border = [11, 22, 33, 44];
        let inputs = indices.iter().map(|&index| u64::from(index as u32)).collect();
        let threads = indices.len() as u32;
        for (device, out) in
            run_body(INTEGER_FETCH, &descriptor, bytes_of(&values, 1), inputs, 5 * indices.len(), threads)
        {
            for (thread, &index) in indices.iter().enumerate() {
                // Integer coordinates are unnormalized: wrap reads as clamp.
                let effective = if mode == AddressMode::Wrap { AddressMode::Clamp } else { mode };
                let expected: [u32; 4] = match address(i64::from(index), 5, effective) {
                    Some(x) => [values[x] as i32 as u32, 0, 0, 1],
                    None => [11, 22, 33, 44],
                };
                let got: Vec<u32> = out[5 * thread..5 * thread + 4].iter().map(|&word| word as u32).collect();
                assert_eq!(got, expected, "{device}: {mode:?} at {index}");
                assert_eq!(out[5 * thread + 4], 1, "{device}: the residency predicate");
            }
        }
    }
}

const LAYERED_FETCH: &str = r#"    mul.wide.u32 %rd5, %r1, 12;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.u32 %r2, [%rd5];
    ld.global.f32 %f1, [%rd5+4];
    ld.global.f32 %f2, [%rd5+8];
    tex.a2d.v4.u32.f32 {%r3, %r4, %r5, %r6}, [%rd1, {%r2, %f1, %f2, %f2}];
    mul.wide.u32 %rd6, %r1, 4;
    add.u64 %rd6, %rd4, %rd6;
    st.global.u32 [%rd6], %r3;"#;

#[test]
fn tex_a2d_selects_the_layer_clamped_to_the_last() {
    // 3 layers of 2x2 u16 texels: layer l, texel (x, y) holds 1000 l + 10 y + x + 60000.
    let texel = |layer: i64, x: i64, y: i64| 60000 + 1000 * layer + 10 * y + x;
    let values: Vec<i64> =
        (0..3).flat_map(|layer| (0..2).flat_map(move |y| (0..2).map(move |x| texel(layer, x, y)))).collect();
    let mut descriptor = plain_descriptor(2, 2, 1, 1, ChannelType::U16);
    descriptor.layers = 3;
    let cases: Vec<(u32, f32, f32)> =
        vec![(0, 0.5, 0.5), (1, 1.5, 0.2), (2, 0.9, 1.9), (3, 1.0, 1.0), (u32::MAX, 5.0, -1.0)];
    let inputs = cases
        .iter()
        .flat_map(|(layer, x, y)| [u64::from(*layer), u64::from(x.to_bits()), u64::from(y.to_bits())])
        .collect();
    for (device, out) in
        run_body(LAYERED_FETCH, &descriptor, bytes_of(&values, 2), inputs, cases.len(), cases.len() as u32)
    {
        for (thread, (layer, x, y)) in cases.iter().enumerate() {
            let layer = i64::from((*layer).min(2));
            let x = (x.floor() as i64).clamp(0, 1);
            let y = (y.floor() as i64).clamp(0, 1);
            assert_eq!(out[thread] as i64, texel(layer, x, y), "{device}: case {thread}");
        }
    }
}

const TRILINEAR_FETCH: &str = r#"    mul.wide.u32 %rd5, %r1, 12;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd5+4];
    ld.global.f32 %f3, [%rd5+8];
    tex.3d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2, %f3, %f3}];
    mul.wide.u32 %rd6, %r1, 4;
    add.u64 %rd6, %rd4, %rd6;
    st.global.f32 [%rd6], %f4;"#;

#[test]
fn tex_3d_filters_trilinearly() {
    let value = |x: i64, y: i64, z: i64| (x * 3 + y * 5 + z * 11) as f32 * 0.75 - 2.0;
    let values: Vec<i64> = (0..2)
        .flat_map(|z| (0..2).flat_map(move |y| (0..2).map(move |x| i64::from(value(x, y, z).to_bits()))))
        .collect();
    let mut descriptor = plain_descriptor(2, 2, 2, 1, ChannelType::F32);
    descriptor.filter_mode = FilterMode::Linear as u32;
    let cases: Vec<[f32; 3]> =
        vec![[0.5, 0.5, 0.5], [1.0, 1.0, 1.0], [0.7, 1.3, 0.9], [1.9, 0.1, 1.6], [-1.0, 3.0, 0.75]];
    let inputs = cases.iter().flat_map(|point| point.map(|coordinate| u64::from(coordinate.to_bits()))).collect();
    for (device, out) in
        run_body(TRILINEAR_FETCH, &descriptor, bytes_of(&values, 4), inputs, cases.len(), cases.len() as u32)
    {
        for (thread, point) in cases.iter().enumerate() {
            let axes: Vec<(i64, f32)> = point
                .iter()
                .map(|&coordinate| {
                    let x = coordinate - 0.5;
                    let floor = x.floor();
                    (floor as i64, ((x - floor) * 256.0).round_ties_even() / 256.0)
                })
                .collect();
            let mut sum = 0.0f32;
            for corner in 0..8 {
                let mut weight = 1.0f32;
                let mut index = [0i64; 3];
                for (dimension, (lower, alpha)) in axes.iter().enumerate() {
                    let upper = corner >> dimension & 1 == 1;
                    index[dimension] = (lower + i64::from(upper)).clamp(0, 1);
                    weight *= if upper { *alpha } else { 1.0 - alpha };
                }
                let weighted = value(index[0], index[1], index[2]) * weight;
                sum = if corner == 0 { weighted } else { sum + weighted };
            }
            assert_eq!(f32::from_bits(out[thread] as u32).to_bits(), sum.to_bits(), "{device}: at {point:?}");
        }
    }
}

const GATHER_AND_QUERY: &str = r#"    ld.global.f32 %f1, [%rd3];
    ld.global.f32 %f2, [%rd3+4];
    tld4.g.2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%f1, %f2}];
    st.global.v4.f32 [%rd4], {%f4, %f5, %f6, %f7};
    txq.width.b32 %r2, [%rd1];
    txq.height.b32 %r3, [%rd1];
    txq.depth.b32 %r4, [%rd1];
    txq.channel_data_type.b32 %r5, [%rd1];
    st.global.v4.u32 [%rd4+16], {%r2, %r3, %r4, %r5};
    txq.channel_order.b32 %r2, [%rd1];
    txq.normalized_coords.b32 %r3, [%rd1];
    txq.filter_mode.b32 %r4, [%rd1];
    txq.addr_mode_1.b32 %r5, [%rd1];
    st.global.v4.u32 [%rd4+32], {%r2, %r3, %r4, %r5};
    txq.array_size.b32 %r2, [%rd1];
    txq.num_mipmap_levels.b32 %r3, [%rd1];
    txq.force_unnormalized_coords.b32 %r4, [%rd1];
    suq.width.b32 %r5, [%rd1];
    st.global.v4.u32 [%rd4+48], {%r2, %r3, %r4, %r5};"#;

#[test]
fn tld4_gathers_the_bilinear_footprint_and_txq_reads_the_descriptor() {
    // 3x2 RGBA u8, read as normalized floats; the green channel of texel (x, y) is 40 y + 10 x.
    let values: Vec<i64> = (0..2).flat_map(|y| (0..3).flat_map(move |x| [x, 40 * y + 10 * x, 200, 255])).collect();
    let mut descriptor = plain_descriptor(3, 2, 1, 4, ChannelType::U8);
    descriptor.read_mode = ReadMode::NormalizedFloat as u32;
    descriptor.filter_mode = FilterMode::Linear as u32;
    descriptor.address_modes = [AddressMode::Clamp as u32, AddressMode::Border as u32, AddressMode::Wrap as u32];
    descriptor.normalized_coordinates = 1;
    descriptor.layers = 7;
    let (x, y) = (0.5f32, 0.5f32);
    let inputs = vec![u64::from(x.to_bits()), u64::from(y.to_bits())];
    for (device, out) in run_body(GATHER_AND_QUERY, &descriptor, bytes_of(&values, 1), inputs, 16, 1) {
        // x = 0.5 * 3 - 0.5 = 1.0: i = 1; y = 0.5 * 2 - 0.5 = 0.5: j = 0.
        let green = |x: i64, y: i64| (40 * y + 10 * x) as f32 / 255.0;
        let expected = [green(1, 1), green(2, 1), green(2, 0), green(1, 0)];
        let got: Vec<f32> = out[..4].iter().map(|&word| f32::from_bits(word as u32)).collect();
        assert_eq!(got, expected, "{device}: tld4.g");
        let queries: Vec<u32> = out[4..16].iter().map(|&word| word as u32).collect();
        let expected_queries =
            [3, 2, 1, ChannelType::U8 as u32, 4, 1, FilterMode::Linear as u32, AddressMode::Border as u32, 7, 1, 0, 3];
        assert_eq!(queries, expected_queries, "{device}: txq");
    }
}

/// Thread `%r1` reads its case's byte offset `x` and row `y`, loads with each boundary mode,
/// stores its index + 100 with `.zero` and with `.clamp` to (x, y) + 0x1000 and (x, y) after
/// that; the surface is 4x3 `u32` texels.
const SURFACE_ACCESS: &str = r#"    mul.wide.u32 %rd5, %r1, 8;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.s32 %r2, [%rd5];
    ld.global.s32 %r3, [%rd5+4];
    suld.b.2d.b32.clamp %r4, [%rd1, {%r2, %r3}];
    suld.b.2d.b32.zero %r5, [%rd1, {%r2, %r3}];
    suld.b.2d.v2.b16.zero {%r6, %r7}, [%rd1, {%r2, %r3}];
    mul.wide.u32 %rd6, %r1, 16;
    add.u64 %rd6, %rd4, %rd6;
    st.global.v4.u32 [%rd6], {%r4, %r5, %r6, %r7};"#;

#[test]
fn suld_clamps_or_reads_zero_outside_the_surface() {
    let texel = |x: i64, y: i64| 0x0101_0000 * (y + 1) + 0x0000_0100 * x + 0x0000_0011;
    let values: Vec<i64> = (0..3).flat_map(|y| (0..4).map(move |x| texel(x, y))).collect();
    let descriptor = plain_descriptor(4, 3, 1, 1, ChannelType::U32);
    let cases: Vec<(i32, i32)> = vec![(0, 0), (4, 1), (12, 2), (13, 0), (16, 0), (-4, 1), (8, 3), (8, -1), (2, 1)];
    let inputs = cases.iter().flat_map(|(x, y)| [u64::from(*x as u32), u64::from(*y as u32)]).collect();
    let bytes: Vec<u8> = values.iter().flat_map(|value| (*value as u32).to_le_bytes()).collect();
    let texels = bytes.iter().map(|&byte| u64::from(byte)).collect();
    for (device, out) in run_body(SURFACE_ACCESS, &descriptor, texels, inputs, 4 * cases.len(), cases.len() as u32) {
        for (thread, &(x, y)) in cases.iter().enumerate() {
            let read = |x: i64, y: i64, size: i64| -> u64 {
                let start = (y * 16 + x) as usize;
                bytes[start..start + size as usize].iter().rev().fold(0u64, |value, &byte| value << 8 | u64::from(byte))
            };
            let (x, y) = (i64::from(x), i64::from(y));
            let inside = (0..=12).contains(&x) && (0..3).contains(&y);
            let clamped = read(x.clamp(0, 12), y.clamp(0, 2), 4);
            let zero = if inside { read(x, y, 4) } else { 0 };
            let halves = if inside { [read(x, y, 2), read(x + 2, y, 2)] } else { [0, 0] };
            let got = &out[4 * thread..4 * thread + 4];
            assert_eq!(got, [clamped, zero, halves[0], halves[1]], "{device}: suld at ({x}, {y})");
        }
    }
}

const SURFACE_STORES: &str = r#"    mul.wide.u32 %rd5, %r1, 8;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.s32 %r2, [%rd5];
    ld.global.s32 %r3, [%rd5+4];
    add.u32 %r4, %r1, 100;
    sust.b.2d.b32.zero [%rd1, {%r2, %r3}], %r4;"#;

#[test]
fn sust_zero_drops_stores_outside_the_surface() {
    let descriptor = plain_descriptor(4, 3, 1, 1, ChannelType::U32);
    let cases: Vec<(i32, i32)> = vec![(0, 0), (4, 1), (12, 2), (13, 0), (16, 0), (-4, 1), (8, 3)];
    let inputs = cases.iter().flat_map(|(x, y)| [u64::from(*x as u32), u64::from(*y as u32)]).collect();
    let buffers = [
        Buffer::new("u32", descriptor_words(&descriptor)),
        Buffer::zeroed("u32", 12),
        Buffer::new("u32", inputs),
        Buffer::zeroed("u32", 1),
    ];
    let launch = Launch::threads(cases.len() as u32);
    for (device, result) in opencl::run_everywhere(&kernel(SURFACE_STORES), &launch, &buffers, OPENCL_CHILD) {
        let mut expected = [0u64; 12];
        for (thread, &(x, y)) in cases.iter().enumerate() {
            if (0..=12).contains(&x) && x % 4 == 0 && (0..3).contains(&y) {
                expected[(y * 4 + x / 4) as usize] = 100 + thread as u64;
            }
        }
        assert_eq!(result[1], expected, "{device}: the surface after the stores");
    }
}

#[test]
fn sust_p_converts_channels_to_the_surface_format() {
    // A 2x1 RGBA u8 surface in normalized-float mode and a 2x1 f16 one (one channel).
    let body = r#"    mov.f32 %f1, 0f3F000000;
    mov.f32 %f2, 0fBF800000;
    mov.f32 %f3, 0f40000000;
    mov.f32 %f4, 0f3E800000;
    mov.u32 %r2, 1;
    sust.p.1d.v4.b32.trap [%rd1, {%r2}], {%f1, %f2, %f3, %f4};"#;
    let mut descriptor = plain_descriptor(2, 1, 1, 4, ChannelType::U8);
    descriptor.read_mode = ReadMode::NormalizedFloat as u32;
    for (device, out) in run_body_texels(body, &descriptor, 8) {
        // 0.5 -> 128 (127.5 rounded to even), -1.0 -> 0, 2.0 -> 255, 0.25 -> 64 (63.75).
        assert_eq!(out, [0, 0, 0, 0, 128, 0, 255, 64], "{device}: u8 normalized");
    }
    let half_surface = plain_descriptor(2, 1, 1, 1, ChannelType::F16);
    for (device, out) in run_body_texels(body, &half_surface, 4) {
        let half = half::f16::from_f32(0.5).to_bits();
        assert_eq!(out, [0, 0, u64::from(half & 0xff), u64::from(half >> 8)], "{device}: f16");
    }
}

/// Runs `body` in one thread over zeroed texels; gives each device's texel bytes.
fn run_body_texels(body: &str, descriptor: &TextureDescriptor, texel_bytes: usize) -> Vec<(&'static str, Vec<u64>)> {
    let buffers = [
        Buffer::new("u32", descriptor_words(descriptor)),
        Buffer::zeroed("u8", texel_bytes),
        Buffer::zeroed("u32", 1),
        Buffer::zeroed("u32", 1),
    ];
    opencl::run_everywhere(&kernel(body), &Launch::threads(1), &buffers, OPENCL_CHILD)
        .into_iter()
        .map(|(device, mut result)| (device, result.swap_remove(1)))
        .collect()
}

#[test]
fn suld_trap_stops_the_kernel_outside_the_surface() {
    let body = r#"    mov.u32 %r2, 16;
    suld.b.1d.b32.trap %r3, [%rd1, {%r2}];
    st.global.u32 [%rd4], %r3;"#;
    let descriptor = plain_descriptor(4, 1, 1, 1, ChannelType::U32);
    let buffers = [
        Buffer::new("u32", descriptor_words(&descriptor)),
        Buffer::zeroed("u8", 16),
        Buffer::zeroed("u32", 1),
        Buffer::zeroed("u32", 1),
    ];
    let failure = ptxr_tests::run(&kernel(body), &Launch::threads(1), &buffers).expect_err("the kernel must trap");
    assert!(failure.contains("trap"), "{failure}");
    let inside = body.replace("mov.u32 %r2, 16", "mov.u32 %r2, 12");
    let result = ptxr_tests::run_ok(&kernel(&inside), &Launch::threads(1), &buffers);
    assert_eq!(result[3], [0], "the load inside the surface");
}

/// nvcc 13.5's PTX for a CUDA kernel that reads a `cudaTextureObject_t` with `tex2D<float>`
/// (linear filtering, normalized coordinates) and writes a `cudaSurfaceObject_t` with
/// `surf2Dwrite`, run from a launch spec whose `textures` bind the objects (LAUNCH_SPEC.md).
#[test]
fn nvcc_texture_and_surface_objects_run_from_a_launch_spec() {
    let ptx = ptxr_tests::read_repository_file("tests/fixtures/kernels/texture_blur_nvcc.ptx");
    let (width, height) = (6usize, 3usize);
    let pixels: Vec<f32> = (0..width * height).map(|index| (index * index % 7) as f32 * 0.5 - 1.0).collect();
    let spec = serde_json::json!({
        "grid": [2, 2],
        "block": [4, 2],
        "buffers": {
            "b0": { "type": "f32", "data": pixels },
            "b1": { "type": "f32", "len": width * height },
            "b2": { "type": "f32", "len": width * height },
        },
        "textures": {
            "image": { "buffer": "b0", "width": width, "height": height, "format": "f32",
                       "filter": "linear", "normalized": true, "address": "clamp" },
            "canvas": { "buffer": "b1", "width": width, "height": height, "format": "f32" },
        },
        "args": [
            { "texture": "image" }, { "texture": "canvas" },
            { "type": "s32", "value": width }, { "type": "s32", "value": height },
            { "buffer": "b2" },
        ],
    })
    .to_string();
    let image = Image {
        width,
        height,
        channels: 1,
        channel_type: ChannelType::F32,
        texels: pixels.iter().map(|value| i64::from(value.to_bits())).collect(),
    };
    let sampler = Sampler {
        filter: FilterMode::Linear,
        mode: AddressMode::Clamp,
        normalized: true,
        read_mode: ReadMode::ElementType,
    };
    let mut expected = vec![0u64; width * height];
    for y in 0..height {
        for x in 0..width {
            let u = (x as f32 + 0.5) / width as f32;
            let v = (y as f32 + 0.5) / height as f32;
            let centre = model_2d(&image, &sampler, u, v)[0];
            let right = model_2d(&image, &sampler, u + 0.5 / width as f32, v)[0];
            expected[y * width + x] = u64::from((0.5 * (centre + right)).to_bits());
        }
    }
    let parsed = ptxr_runtime::LaunchSpec::from_json(&spec).expect("the spec is valid");
    let root = ptxr_tests::repository_root();
    let files = ptxr_driver::launch::LaunchFiles { spec_directory: &root, dump_directory: None, printf_output: None };
    let (json, _) = ptxr_driver::launch::launch(&ptx, "blur.ptx", &parsed, &files, 2).expect("the launch runs");
    let mut results = vec![("cpu", ptxr_tests::buffers_from_json(&json, 3).expect("result JSON"))];
    if opencl::available() {
        let mut launches = opencl::run_spec_in_one_process(&ptx, &spec, 3, OPENCL_CHILD, 1).expect("the OpenCL launch");
        results.push(("spirv", launches.remove(0)));
    }
    for (device, buffers) in results {
        assert_eq!(buffers[2], expected, "{device}: the sums");
        assert_eq!(buffers[1], expected, "{device}: the surface");
    }
}

fn artefact(source: &str, target: &str) -> Vec<u8> {
    match compile(source, target) {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("{target}: unsupported: {messages:?}"),
        Compiled::Rejected(message) => panic!("{target}: rejected: {message}"),
    }
}

/// NVPTX keeps PTX's texture and surface instructions (ptxas assembles them), on objects and on
/// `.texref`/`.surfref` variables, which it declares; AMDGPU compiles the software sampling, and
/// its SPIR-V passes `spirv-val`.
#[test]
fn every_target_compiles_textures_and_surfaces() {
    let objects = ptxr_tests::read_repository_file("tests/fixtures/kernels/texture_objects.ptx");
    let references = ptxr_tests::read_repository_file("tests/fixtures/kernels/textures_and_surfaces.ptx");
    let ptx = String::from_utf8(artefact(&objects, "nvptx")).expect("NVPTX output is PTX text");
    for instruction in [
        "tex.a2d.v4.f32.f32",
        "tld4.b.2d",
        "txq.addr_mode_2.b32",
        "suq.memory_layout.b32",
        "suld.b.3d.b8.zero",
        "sust.p.2d.v4.b32.trap",
    ] {
        assert!(ptx.contains(instruction), "no `{instruction}` in\n{ptx}");
    }
    let mixed = String::from_utf8(artefact(&references, "nvptx")).expect("NVPTX output is PTX text");
    for (source, ptx) in [("texture_objects", &ptx), ("textures_and_surfaces", &mixed)] {
        if let Some(verdict) = ptxr_tests::vendor_checks::ptxas_accepts(ptx.as_bytes(), "sm_80", source) {
            verdict.unwrap_or_else(|error| panic!("ptxas: {error}\n{ptx}"));
        }
    }
    for source in [&objects, &references] {
        assert!(!artefact(source, "amdgpu").is_empty());
        let binary = artefact(source, "spirv");
        if let Some(Err(message)) = spirv_val(&binary, &spirv_environment(&binary), "textures") {
            panic!("spirv-val: {message}\n{source}");
        }
    }
}

/// A `.texref` bound by name from the launch spec (`"texref"`, on the CPU): the kernel reads it
/// with `tex` and `txq` in unified mode.
#[test]
fn a_texref_is_bound_by_name_from_the_launch_spec() {
    let ptx = r#".version 7.8
.target sm_80
.address_size 64
.global .texref image;
.visible .entry sample(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [out];
    mov.f32 %f5, 0f3FC00000;
    mov.f32 %f6, 0f3F000000;
    tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [image, {%f5, %f6}];
    st.global.f32 [%rd1], %f1;
    txq.width.b32 %r1, [image];
    st.global.u32 [%rd1+4], %r1;
    ret;
}
"#;
    let spec = serde_json::json!({
        "buffers": { "pixels": { "type": "f32", "data": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] }, "out": { "type": "u32", "len": 2 } },
        "textures": { "image": { "buffer": "pixels", "width": 3, "height": 2, "filter": "linear", "texref": "image" } },
        "args": [ { "buffer": "out" } ],
    })
    .to_string();
    let parsed = ptxr_runtime::LaunchSpec::from_json(&spec).expect("the spec is valid");
    let root = ptxr_tests::repository_root();
    let files = ptxr_driver::launch::LaunchFiles { spec_directory: &root, dump_directory: None, printf_output: None };
    let (json, _) = ptxr_driver::launch::launch(ptx, "texref.ptx", &parsed, &files, 2).expect("the launch runs");
    let output: serde_json::Value = serde_json::from_str(&json).expect("result JSON");
    let bits = &output["buffers"]["out"]["bits"];
    // (1.5, 0.5) is the centre of texel (1, 0) under linear filtering: exactly 2.0.
    assert_eq!(bits[0], format!("0x{:08x}", 2.0f32.to_bits()), "{json}");
    assert_eq!(bits[1], "0x00000003", "{json}");
}

const LAYERED_SURFACE: &str = r#"    mul.wide.u32 %rd5, %r1, 12;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.u32 %r2, [%rd5];
    ld.global.s32 %r3, [%rd5+4];
    ld.global.s32 %r4, [%rd5+8];
    suld.b.a2d.b16.clamp %h1, [%rd1, {%r2, %r3, %r4, %r4}];
    suld.b.a2d.b16.zero %h2, [%rd1, {%r2, %r3, %r4, %r4}];
    cvt.u32.u16 %r5, %h1;
    cvt.u32.u16 %r6, %h2;
    mul.wide.u32 %rd6, %r1, 8;
    add.u64 %rd6, %rd4, %rd6;
    st.global.v2.u32 [%rd6], {%r5, %r6};"#;

#[test]
fn suld_on_a_layered_surface_checks_the_layer() {
    // 3 layers of 2x2 u16 texels: layer l, texel (x, y) holds 100 l + 10 y + x.
    let texel = |layer: i64, x: i64, y: i64| 100 * layer + 10 * y + x;
    let values: Vec<i64> =
        (0..3).flat_map(|layer| (0..2).flat_map(move |y| (0..2).map(move |x| texel(layer, x, y)))).collect();
    let mut descriptor = plain_descriptor(2, 2, 1, 1, ChannelType::U16);
    descriptor.layers = 3;
    // (layer, byte x, y)
    let cases: Vec<(u32, i32, i32)> =
        vec![(0, 0, 0), (1, 2, 1), (2, 2, 0), (3, 0, 1), (7, 2, 1), (1, 4, 0), (2, -2, 5)];
    let inputs =
        cases.iter().flat_map(|&(layer, x, y)| [u64::from(layer), u64::from(x as u32), u64::from(y as u32)]).collect();
    let body = LAYERED_SURFACE.replace("%h1", "%rs1").replace("%h2", "%rs2");
    let body = format!("    .reg .b16 %rs<3>;\n{body}");
    for (device, out) in run_body(&body, &descriptor, bytes_of(&values, 2), inputs, 2 * cases.len(), cases.len() as u32)
    {
        for (thread, &(layer, x, y)) in cases.iter().enumerate() {
            let (layer, x, y) = (i64::from(layer), i64::from(x), i64::from(y));
            let inside = layer < 3 && (0..=2).contains(&x) && (0..2).contains(&y);
            let clamped = texel(layer.min(2), x.clamp(0, 2) / 2, y.clamp(0, 1)) as u64;
            let zero = if inside { texel(layer, x / 2, y) as u64 } else { 0 };
            assert_eq!(out[2 * thread..2 * thread + 2], [clamped, zero], "{device}: layer {layer} at ({x}, {y})");
        }
    }
}

const LAYERED_GATHER: &str = r#"    ld.global.u32 %r2, [%rd3];
    ld.global.f32 %f1, [%rd3+4];
    ld.global.f32 %f2, [%rd3+8];
    tld4.a.a2d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r2, %f1, %f2, %f2}];
    st.global.v4.f32 [%rd4], {%f4, %f5, %f6, %f7};"#;

#[test]
fn tld4_on_a_layered_texture_gathers_from_the_named_layer() {
    // Three layers of 3x2 RGBA u8 texels, read as they are; the alpha of texel (x, y) of layer
    // l is 100 l + 10 y + x.
    let values: Vec<i64> = (0..3)
        .flat_map(|l| (0..2).flat_map(move |y| (0..3).flat_map(move |x| [0, 0, 0, 100 * l + 10 * y + x])))
        .collect();
    let mut descriptor = plain_descriptor(3, 2, 1, 4, ChannelType::U8);
    descriptor.layers = 3;
    // Layer 1 at (1.5, 1.0): x - 0.5 = 1 (i = 1), y - 0.5 = 0.5 (j = 0); layer 9 clamps to 2.
    for (layer, read) in [(1u32, 1i64), (9, 2)] {
        let inputs = vec![u64::from(layer), u64::from(1.5f32.to_bits()), u64::from(1.0f32.to_bits())];
        for (device, out) in run_body(LAYERED_GATHER, &descriptor, bytes_of(&values, 1), inputs, 4, 1) {
            let alpha = |x: i64, y: i64| (100 * read + 10 * y + x) as f32;
            let expected = [alpha(1, 1), alpha(2, 1), alpha(2, 0), alpha(1, 0)];
            let got: Vec<f32> = out.iter().map(|&word| f32::from_bits(word as u32)).collect();
            assert_eq!(got, expected, "{device}: tld4.a.a2d of layer {layer}");
        }
    }
}

const HALF_FETCH: &str = r#"    mul.wide.u32 %rd5, %r1, 8;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd5+4];
    .reg .f16 %h<4>;
    tex.2d.v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd1, {%f1, %f2}];
    mul.wide.u32 %rd6, %r1, 8;
    add.u64 %rd6, %rd4, %rd6;
    st.global.v4.b16 [%rd6], {%h0, %h1, %h2, %h3};"#;

#[test]
fn tex_with_f16_results_rounds_the_filtered_f32_values() {
    // 2x2 RGBA f32 texels whose linear blends need rounding to f16 (and one beyond its range).
    let image = Image {
        width: 2,
        height: 2,
        channels: 4,
        channel_type: ChannelType::F32,
        texels: [0.1f32, -3.3, 70000.0, 1.0, 2.7, 0.001, -1.0, 0.5, 1.0e-6, 1000.3, 3.0, -0.25, 0.7, 9.9, 1.5, 0.0]
            .iter()
            .map(|value| i64::from(value.to_bits()))
            .collect(),
    };
    let sampler = Sampler {
        filter: FilterMode::Linear,
        mode: AddressMode::Clamp,
        normalized: false,
        read_mode: ReadMode::ElementType,
    };
    let mut descriptor = plain_descriptor(2, 2, 1, 4, ChannelType::F32);
    descriptor.filter_mode = FilterMode::Linear as u32;
    let points = [(0.5f32, 0.5f32), (1.3, 0.9), (0.77, 1.61), (2.0, 2.0)];
    let inputs = points.iter().flat_map(|(x, y)| [u64::from(x.to_bits()), u64::from(y.to_bits())]).collect();
    for (device, out) in
        run_body(HALF_FETCH, &descriptor, image.bytes().into_iter().map(u64::from).collect(), inputs, 8, 4)
    {
        let halves: Vec<u16> = out.iter().flat_map(|&word| [word as u16, (word >> 16) as u16]).collect();
        for (thread, &(x, y)) in points.iter().enumerate() {
            let expected = model_2d(&image, &sampler, x, y).map(|value| half::f16::from_f32(value).to_bits());
            assert_eq!(halves[4 * thread..4 * thread + 4], expected, "{device}: tex.2d.v4.f16.f32 at ({x}, {y})");
        }
    }
}
