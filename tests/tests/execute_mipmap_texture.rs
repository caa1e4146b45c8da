//! Mipmapped textures (`tex.level`, `txq.num_mipmap_levels`; ISA 7.8 section 9.7.9.3) on the CPU
//! and on SPIR-V through OpenCL, against a model written here. Within a level, sampling is the
//! CUDA C++ Programming Guide's "Texture Fetching" (normalized coordinates scaled by the
//! level's size, linear weights in 9-bit fixed point). Between levels, ptxr's documented choice
//! (docs/TARGETS.md; the Guide names `mipmapFilterMode`, `mipmapLevelBias`,
//! `minMipmapLevelClamp` and `maxMipmapLevelClamp` without the arithmetic): the level of detail
//! plus the bias, clamped to the two clamps and then to [0, levels - 1]; point mipmap filtering
//! reads level `floor(lod + 0.5)`, linear blends `floor(lod)` and the next level by the fraction.
//! `tex.grad`'s level of detail is OpenGL's `log2(max(|dPdx|, |dPdy|))`, lengths in texels.

use ptxr_runtime::texture::{
    AddressMode, ChannelType, FilterMode, Mipmaps, ReadMode, TextureDescriptor, TEXTURE_DESCRIPTOR_BYTES,
};
use ptxr_tests::{opencl, Buffer, Launch};

const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const WIDTH: usize = 8;
const HEIGHT: usize = 4;
const LEVELS: usize = 4;

/// Texel (x, y) of `level`: distinct in every level, so a wrong level shows.
fn texel(level: usize, x: usize, y: usize) -> f32 {
    1000.0 * level as f32 + 10.0 * y as f32 + x as f32 + 0.25
}

fn level_size(level: usize) -> (usize, usize) {
    ((WIDTH >> level).max(1), (HEIGHT >> level).max(1))
}

/// The levels one after another, each tightly packed, and each level's offset in bytes.
fn levels() -> (Vec<f32>, Vec<u64>) {
    let mut texels = Vec::new();
    let mut offsets = Vec::new();
    for level in 0..LEVELS {
        offsets.push(4 * texels.len() as u64);
        let (width, height) = level_size(level);
        for y in 0..height {
            for x in 0..width {
                texels.push(texel(level, x, y));
            }
        }
    }
    (texels, offsets)
}

#[derive(Clone, Copy, Debug)]
struct Sampler {
    filter: FilterMode,
    mipmap_filter: FilterMode,
    bias: f32,
    min_clamp: f32,
    max_clamp: f32,
}

fn samplers() -> Vec<Sampler> {
    let mut samplers = Vec::new();
    for filter in [FilterMode::Point, FilterMode::Linear] {
        for mipmap_filter in [FilterMode::Point, FilterMode::Linear] {
            for (bias, min_clamp, max_clamp) in [(0.0, 0.0, 3.0), (0.5, 0.0, 3.0), (0.0, 1.0, 2.0), (-0.75, 0.5, 10.0)]
            {
                samplers.push(Sampler { filter, mipmap_filter, bias, min_clamp, max_clamp });
            }
        }
    }
    samplers
}

/// One level sampled at normalized (u, v) with clamp addressing.
fn sample_level(level: usize, filter: FilterMode, u: f32, v: f32) -> f32 {
    let (width, height) = level_size(level);
    let read =
        |x: i64, y: i64| texel(level, x.clamp(0, width as i64 - 1) as usize, y.clamp(0, height as i64 - 1) as usize);
    let (x, y) = (u * width as f32, v * height as f32);
    if filter == FilterMode::Point {
        return read(x.floor() as i64, y.floor() as i64);
    }
    let axis = |coordinate: f32| {
        let shifted = coordinate - 0.5;
        let floor = shifted.floor();
        (floor as i64, ((shifted - floor) * 256.0).round_ties_even() / 256.0)
    };
    let ((i, alpha), (j, beta)) = (axis(x), axis(y));
    let mut sum = 0.0f32;
    for corner in 0..4 {
        let (upper_x, upper_y) = (corner & 1 == 1, corner & 2 == 2);
        let weight = 1.0 * if upper_x { alpha } else { 1.0 - alpha } * if upper_y { beta } else { 1.0 - beta };
        let weighted = read(i + i64::from(upper_x), j + i64::from(upper_y)) * weight;
        sum = if corner == 0 { weighted } else { sum + weighted };
    }
    sum
}

/// The levels a level of detail reads and the upper one's weight.
fn choose_levels(sampler: &Sampler, lod: f32) -> (usize, usize, f32) {
    let last = (LEVELS - 1) as f32;
    // f32::max and f32::min ignore a NaN operand, so a NaN level of detail ends at the min clamp.
    let lod = (lod + sampler.bias).max(sampler.min_clamp).min(sampler.max_clamp).max(0.0).min(last);
    if sampler.mipmap_filter == FilterMode::Point {
        let level = (lod + 0.5).floor().min(last) as usize;
        return (level, level, 0.0);
    }
    let lower = lod.floor();
    (lower as usize, (lower as usize + 1).min(LEVELS - 1), lod - lower)
}

fn model(sampler: &Sampler, u: f32, v: f32, lod: f32) -> f32 {
    let (lower, upper, weight) = choose_levels(sampler, lod);
    let low = sample_level(lower, sampler.filter, u, v);
    if weight == 0.0 {
        return low;
    }
    low * (1.0 - weight) + sample_level(upper, sampler.filter, u, v) * weight
}

fn cases() -> Vec<(f32, f32, f32)> {
    let mut cases = Vec::new();
    for (u, v) in [(0.3, 0.6), (0.93, 0.1), (0.55, 0.45)] {
        for lod in [-1.0, 0.0, 0.3, 0.5, 0.7, 1.0, 1.25, 1.5, 2.5, 2.9, 3.0, 3.7, 10.0, f32::NAN] {
            cases.push((u, v, lod));
        }
    }
    cases
}

/// Block `ctaid.x` samples with descriptor `ctaid.x` (whose data pointer it sets to the texels);
/// thread `tid.x` reads case (u, v, lod) and writes channel 0, `txq.num_mipmap_levels` and
/// `txq.level.width`/`.height` of level `tid.x - 2` (negative for the first two threads).
const LEVEL_KERNEL: &str = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry sample_levels(.param .u64 descriptors, .param .u64 texels, .param .u64 cases, .param .u64 out)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<12>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [descriptors];
    ld.param.u64 %rd2, [texels];
    ld.param.u64 %rd3, [cases];
    ld.param.u64 %rd4, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd5, %r2, DESCRIPTOR_BYTES;
    add.u64 %rd5, %rd1, %rd5;
    st.global.u64 [%rd5], %rd2;
    mul.wide.u32 %rd6, %r1, 12;
    add.u64 %rd6, %rd3, %rd6;
    ld.global.f32 %f5, [%rd6];
    ld.global.f32 %f6, [%rd6+4];
    ld.global.f32 %f7, [%rd6+8];
    tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd5, {%f5, %f6}], %f7;
    txq.num_mipmap_levels.b32 %r5, [%rd5];
    mov.b32 %r6, %f1;
    sub.s32 %r7, %r1, 2;
    txq.level.width.b32 %r2, [%rd5], %r7;
    txq.level.height.b32 %r3, [%rd5], %r7;
    mul.wide.u32 %rd7, %r4, 16;
    add.u64 %rd7, %rd4, %rd7;
    st.global.v4.u32 [%rd7], {%r6, %r5, %r2, %r3};
    ret;
}
"#;

fn descriptor(sampler: &Sampler, offsets: &[u64]) -> TextureDescriptor {
    let mut level_offsets = [0; 16];
    level_offsets[..offsets.len()].copy_from_slice(offsets);
    TextureDescriptor {
        data: 0,
        width: WIDTH as u32,
        height: HEIGHT as u32,
        depth: 1,
        layers: 0,
        row_pitch: 4 * WIDTH as u64,
        slice_pitch: 4 * (WIDTH * HEIGHT) as u64,
        channels: 1,
        channel_type: ChannelType::F32 as u32,
        read_mode: ReadMode::ElementType as u32,
        filter_mode: sampler.filter as u32,
        address_modes: [AddressMode::Clamp as u32; 3],
        normalized_coordinates: 1,
        border: [0; 4],
        cube: 0,
        reserved: 0,
        mipmaps: Mipmaps {
            levels: LEVELS as u32,
            filter_mode: sampler.mipmap_filter as u32,
            level_bias: sampler.bias.to_bits(),
            min_level_clamp: sampler.min_clamp.to_bits(),
            max_level_clamp: sampler.max_clamp.to_bits(),
            reserved: 0,
            level_offsets,
        },
    }
}

fn words(descriptor: &TextureDescriptor) -> Vec<u64> {
    descriptor
        .to_bytes()
        .chunks(4)
        .map(|word| u64::from(u32::from_le_bytes([word[0], word[1], word[2], word[3]])))
        .collect()
}

#[test]
fn tex_level_chooses_and_blends_levels_as_the_model_does() {
    let (texels, offsets) = levels();
    let samplers = samplers();
    let cases = cases();
    // The runtime's packing (used by launch specs) is the one built here.
    let mut packed = descriptor(&samplers[0], &[]);
    assert_eq!(packed.pack_levels(LEVELS as u32), 4 * texels.len() as u64);
    assert_eq!(packed.mipmaps.level_offsets[..LEVELS], offsets[..]);

    let descriptors: Vec<u64> = samplers.iter().flat_map(|sampler| words(&descriptor(sampler, &offsets))).collect();
    let inputs: Vec<u64> =
        cases.iter().flat_map(|&(u, v, lod)| [u, v, lod].map(|value| u64::from(value.to_bits()))).collect();
    let buffers = [
        Buffer::new("u32", descriptors),
        Buffer::new("f32", texels.iter().map(|value| u64::from(value.to_bits())).collect()),
        Buffer::new("f32", inputs),
        Buffer::zeroed("u32", 4 * samplers.len() * cases.len()),
    ];
    let ptx = LEVEL_KERNEL.replace("DESCRIPTOR_BYTES", &TEXTURE_DESCRIPTOR_BYTES.to_string());
    let launch = Launch { grid: [samplers.len() as u32, 1, 1], block: [cases.len() as u32, 1, 1], ..Launch::default() };
    for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
        for (index, sampler) in samplers.iter().enumerate() {
            for (case, &(u, v, lod)) in cases.iter().enumerate() {
                let thread = index * cases.len() + case;
                let got = f32::from_bits(result[3][4 * thread] as u32);
                let want = model(sampler, u, v, lod);
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "{device}: ({u}, {v}) at level of detail {lod} with {sampler:?}: {got}, the model says {want}"
                );
                assert_eq!(result[3][4 * thread + 1], LEVELS as u64, "{device}: txq.num_mipmap_levels");
                // A negative level reads as a huge unsigned one: size 1.
                let level = case as i64 - 2;
                let size = |size: u64| if !(0..=31).contains(&level) { 1 } else { (size >> level).max(1) };
                let sizes = [result[3][4 * thread + 2], result[3][4 * thread + 3]];
                assert_eq!(sizes, [size(WIDTH as u64), size(HEIGHT as u64)], "{device}: txq.level at level {level}");
            }
        }
    }
}

/// Block `ctaid.x` samples with descriptor `ctaid.x`; thread `tid.x` reads case (u, v, dPdx,
/// dPdy) and writes channel 0.
const GRADIENT_KERNEL: &str = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry sample_gradients(.param .u64 descriptors, .param .u64 texels, .param .u64 cases, .param .u64 out)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<12>;
    .reg .f32 %f<12>;
    ld.param.u64 %rd1, [descriptors];
    ld.param.u64 %rd2, [texels];
    ld.param.u64 %rd3, [cases];
    ld.param.u64 %rd4, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd5, %r2, DESCRIPTOR_BYTES;
    add.u64 %rd5, %rd1, %rd5;
    st.global.u64 [%rd5], %rd2;
    mul.wide.u32 %rd6, %r1, 24;
    add.u64 %rd6, %rd3, %rd6;
    ld.global.f32 %f5, [%rd6];
    ld.global.f32 %f6, [%rd6+4];
    ld.global.f32 %f7, [%rd6+8];
    ld.global.f32 %f8, [%rd6+12];
    ld.global.f32 %f9, [%rd6+16];
    ld.global.f32 %f10, [%rd6+20];
    tex.grad.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd5, {%f5, %f6}], {%f7, %f8}, {%f9, %f10};
    mul.wide.u32 %rd7, %r4, 4;
    add.u64 %rd7, %rd4, %rd7;
    st.global.f32 [%rd7], %f1;
    ret;
}
"#;

/// `tex.grad`'s level of detail: the longer gradient's length in texels of level 0, as a level.
fn gradient_level(dx: [f32; 2], dy: [f32; 2]) -> f32 {
    let length = |gradient: [f32; 2]| {
        let (x, y) = (gradient[0] * WIDTH as f32, gradient[1] * HEIGHT as f32);
        (0.0 + x * x + y * y).sqrt()
    };
    length(dx).max(length(dy)).log2()
}

#[test]
fn tex_grad_takes_the_level_from_the_longer_gradient() {
    let (texels, offsets) = levels();
    let samplers = samplers();
    // Gradients in normalized coordinates; in texels: (2, 0) and (0, 1): level 1; (1, 0) and
    // (0, 4): level 2; (3, 4): log2 5 = 2.32; 2^1.6: 1.6; zero: level 0 (log2 0 is -inf); 100
    // normalized units: past the last level. The fractions stay away from the point mipmap
    // filter's rounding boundaries after each bias, where an ulp of `log2` could flip a level.
    let rho = 2f32.powf(1.6);
    let gradients: [([f32; 2], [f32; 2]); 7] = [
        ([0.25, 0.0], [0.0, 0.25]),
        ([0.125, 0.0], [0.0, 1.0]),
        ([0.375, 1.0], [0.0, 0.0]),
        ([rho / 8.0, 0.0], [0.0, 0.1]),
        ([0.0, 0.0], [0.0, 0.0]),
        ([100.0, 0.0], [0.0, 3.0]),
        ([0.0, -0.5], [-0.25, 0.0]),
    ];
    let mut cases = Vec::new();
    for (u, v) in [(0.3f32, 0.6f32), (0.55, 0.45)] {
        for (dx, dy) in gradients {
            cases.push((u, v, dx, dy));
        }
    }
    let descriptors: Vec<u64> = samplers.iter().flat_map(|sampler| words(&descriptor(sampler, &offsets))).collect();
    let inputs: Vec<u64> = cases
        .iter()
        .flat_map(|&(u, v, dx, dy)| [u, v, dx[0], dx[1], dy[0], dy[1]].map(|value| u64::from(value.to_bits())))
        .collect();
    let buffers = [
        Buffer::new("u32", descriptors),
        Buffer::new("f32", texels.iter().map(|value| u64::from(value.to_bits())).collect()),
        Buffer::new("f32", inputs),
        Buffer::zeroed("u32", samplers.len() * cases.len()),
    ];
    let ptx = GRADIENT_KERNEL.replace("DESCRIPTOR_BYTES", &TEXTURE_DESCRIPTOR_BYTES.to_string());
    let launch = Launch { grid: [samplers.len() as u32, 1, 1], block: [cases.len() as u32, 1, 1], ..Launch::default() };
    for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
        for (index, sampler) in samplers.iter().enumerate() {
            for (case, &(u, v, dx, dy)) in cases.iter().enumerate() {
                let got = f32::from_bits(result[3][index * cases.len() + case] as u32);
                let lod = gradient_level(dx, dy);
                let want = model(sampler, u, v, lod);
                // `log2` may differ from the host's by an ulp, which moves a linear mipmap blend
                // by far less than the distance between two levels' texels (1000).
                assert!(
                    (got - want).abs() <= 0.01,
                    "{device}: ({u}, {v}) with gradients {dx:?}, {dy:?} (level of detail {lod}) and {sampler:?}: {got}, the model says {want}"
                );
            }
        }
    }
}

#[test]
fn the_model_tells_levels_apart() {
    // A model that ignored the level would agree with this one nowhere above level 0.
    let sampler = Sampler {
        filter: FilterMode::Point,
        mipmap_filter: FilterMode::Point,
        bias: 0.0,
        min_clamp: 0.0,
        max_clamp: 3.0,
    };
    assert_eq!(model(&sampler, 0.3, 0.6, 0.0), texel(0, 2, 2));
    assert_eq!(model(&sampler, 0.3, 0.6, 0.6), texel(1, 1, 1));
    assert_eq!(model(&sampler, 0.3, 0.6, 9.0), texel(3, 0, 0));
}
