//! Cube maps (`tex.cube`, `tex.acube`; ISA 7.8 section 9.7.9.3) on the CPU and on SPIR-V
//! through OpenCL, against a model written here from the CUDA C++ Programming Guide, section
//! "Cubemap Textures": the coordinate of largest magnitude `m` picks the face, and the face is
//! read at ((s/m + 1)/2, (t/m + 1)/2) with s and t from the Guide's table (face 0, x ≥ 0:
//! s = -z, t = -y; face 1: z, -y; face 2, y ≥ 0: x, z; face 3: x, -z; face 4, z ≥ 0: x, -y;
//! face 5: -x, -y). Filtering is that of the Guide's "Texture Fetching" appendix. Where the
//! Guide's strict conditions name no face (ties), ptxr's documented choice is z over y over x;
//! a face is read as a clamped texture whatever the address modes (no seamless filtering), so
//! linear filtering at an edge blends only that face's texels.

use ptxr_runtime::texture::{
    AddressMode, ChannelType, FilterMode, Mipmaps, ReadMode, TextureDescriptor, TEXTURE_DESCRIPTOR_BYTES,
};
use ptxr_tests::vendor_checks::{compile, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

fn descriptor_words(descriptor: &TextureDescriptor) -> Vec<u64> {
    descriptor
        .to_bytes()
        .chunks(4)
        .map(|word| u64::from(u32::from_le_bytes([word[0], word[1], word[2], word[3]])))
        .collect()
}

/// The face, s, t and m of a direction, by the Guide's table; ties go to z, then y.
fn face_of(x: f32, y: f32, z: f32) -> (u32, f32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if ax > ay && ax > az {
        if x >= 0.0 {
            (0, -z, -y, ax)
        } else {
            (1, z, -y, ax)
        }
    } else if ay > az {
        if y >= 0.0 {
            (2, x, z, ay)
        } else {
            (3, x, -z, ay)
        }
    } else if z >= 0.0 {
        (4, x, -y, az)
    } else {
        (5, -x, -y, az)
    }
}

/// The lower texel and the quantized weight of the upper one at face coordinate `u` (in [0, 1]).
fn axis(u: f32, size: usize, linear: bool) -> (i64, f32) {
    let mut x = u * size as f32;
    if linear {
        x -= 0.5;
    }
    let floor = x.floor();
    // Rust's `as` saturates like `llvm.fptosi.sat`: NaN is 0.
    let lower = i64::from(floor as i32);
    let weight = ((x - floor) * 256.0).round_ties_even() / 256.0;
    let weight = if linear && !weight.is_nan() { weight } else { 0.0 };
    (lower, weight)
}

/// A cube map array of `cubes` cubes of `size`² one-channel f32 texels; texel (i, j) of layer
/// `l` holds `value(l, i, j)`.
fn value(layer: usize, i: usize, j: usize) -> f32 {
    (layer * 100 + j * 10 + i) as f32 * 0.5 - 7.0
}

/// `tex.acube.v4.f32.f32` of cube `cube` (clamped to the last) at direction (x, y, z).
fn model(size: usize, cubes: usize, linear: bool, cube: u32, (x, y, z): (f32, f32, f32)) -> f32 {
    let (face, s, t, m) = face_of(x, y, z);
    let layer = (cube as usize).min(cubes - 1) * 6 + face as usize;
    let u = (s / m + 1.0) * 0.5;
    let v = (t / m + 1.0) * 0.5;
    let (i, alpha) = axis(u, size, linear);
    let (j, beta) = axis(v, size, linear);
    let texel = |di: i64, dj: i64| {
        let clamp = |index: i64| index.clamp(0, size as i64 - 1) as usize;
        value(layer, clamp(i + di), clamp(j + dj))
    };
    if !linear {
        return texel(0, 0);
    }
    // Summed in the lowering's order: corner (lower, lower) first, x fastest.
    let corners = [
        ((0, 0), (1.0 - alpha) * (1.0 - beta)),
        ((1, 0), alpha * (1.0 - beta)),
        ((0, 1), (1.0 - alpha) * beta),
        ((1, 1), alpha * beta),
    ];
    let mut sum = 0.0f32;
    for (index, ((di, dj), weight)) in corners.iter().enumerate() {
        let weighted = texel(*di, *dj) * weight;
        sum = if index == 0 { weighted } else { sum + weighted };
    }
    sum
}

/// Face centres, ties between two and three axes, signed zeros, edges and corners, a zero
/// direction, NaN, and a few directions in between.
fn directions() -> Vec<(f32, f32, f32)> {
    let mut directions = vec![
        (1.0, 0.0, 0.0),
        (-2.0, 0.0, 0.0),
        (0.0, 3.0, 0.0),
        (0.0, -0.5, 0.0),
        (0.0, 0.0, 1.0),
        (0.0, 0.0, -1.0),
        (1.0, 1.0, 0.0),
        (-1.0, 1.0, 0.0),
        (1.0, -1.0, 0.0),
        (1.0, 0.0, 1.0),
        (-1.0, 0.0, -1.0),
        (0.0, 1.0, 1.0),
        (0.0, -1.0, -1.0),
        (1.0, 1.0, 1.0),
        (-1.0, -1.0, -1.0),
        (-0.0, 0.0, 0.0),
        (0.0, 0.0, -0.0),
        (-0.0, -0.0, -0.0),
        (-0.0, 0.25, -0.0),
        (0.75, -0.0, 0.0),
        (1.0, 0.999, 0.2),
        (1.0, -0.999, -0.999),
        (-0.3, 1.0, 0.98),
        (0.5, -0.6, 1.0),
        (-1.0, 0.99, -0.99),
        (0.2, 0.3, -1.0),
        (0.61, -0.44, 0.13),
        (-7.5, 2.5, 6.0),
        (f32::NAN, 1.0, 0.0),
        (1.0, 1e-30, -1e-30),
    ];
    // Texel centres and edges of face 0 (x = 1) for the 3x3 faces: s = -z, t = -y.
    for &(s, t) in &[(-1.0f32 / 3.0, 0.0f32), (1.0 / 3.0, -1.0 / 3.0), (0.9, 0.1), (-0.05, 0.95)] {
        directions.push((1.0, -t, -s));
    }
    directions
}

const CUBE_KERNEL: &str = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry cubes(.param .u64 descriptors, .param .u64 texels, .param .u64 directions, .param .u64 out)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .reg .f32 %f<16>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [descriptors];
    ld.param.u64 %rd2, [texels];
    ld.param.u64 %rd3, [directions];
    ld.param.u64 %rd4, [out];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mul.wide.u32 %rd5, %r2, DESCRIPTOR_BYTES;
    add.u64 %rd5, %rd1, %rd5;
    st.global.u64 [%rd5], %rd2;
    mul.wide.u32 %rd6, %r1, 16;
    add.u64 %rd6, %rd3, %rd6;
    ld.global.u32 %r3, [%rd6];
    ld.global.f32 %f1, [%rd6+4];
    ld.global.f32 %f2, [%rd6+8];
    ld.global.f32 %f3, [%rd6+12];
    tex.acube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd5, {%r3, %f1, %f2, %f3}];
    tex.cube.v4.f32.f32 {%f8, %f9, %f10, %f11}|%p1, [%rd5, {%f1, %f2, %f3, %f3}];
    selp.u32 %r4, 1, 0, %p1;
    tex.acube.v4.u32.f32 {%r5, %r6, %r7, %r8}, [%rd5, {%r3, %f1, %f2, %f3}];
    mov.u32 %r9, %ntid.x;
    mad.lo.u32 %r10, %r2, %r9, %r1;
    mul.wide.u32 %rd7, %r10, 32;
    add.u64 %rd7, %rd4, %rd7;
    st.global.v4.f32 [%rd7], {%f4, %f5, %f6, %f7};
    st.global.v4.f32 [%rd7+16], {%f8, %f9, %f10, %f11};
    st.global.u32 [%rd7+12], %r4;
    st.global.u32 [%rd7+28], %r5;
    ret;
}
"#;

/// Filters, address modes and coordinate normalization; the address modes and the flag must
/// not change a cube map lookup.
fn samplers() -> Vec<(FilterMode, AddressMode, bool)> {
    let mut samplers = Vec::new();
    for filter in [FilterMode::Point, FilterMode::Linear] {
        for (mode, normalized) in [(AddressMode::Clamp, false), (AddressMode::Wrap, true), (AddressMode::Border, false)]
        {
            samplers.push((filter, mode, normalized));
        }
    }
    samplers
}

#[test]
fn tex_cube_and_acube_match_the_programming_guides_faces_and_filtering() {
    let (size, cubes) = (3usize, 2usize);
    let layers = 6 * cubes;
    let texels: Vec<u64> = (0..layers)
        .flat_map(|layer| (0..size).flat_map(move |j| (0..size).map(move |i| value(layer, i, j))))
        .flat_map(|value| value.to_bits().to_le_bytes())
        .map(u64::from)
        .collect();
    let samplers = samplers();
    let descriptors: Vec<u64> = samplers
        .iter()
        .flat_map(|&(filter, mode, normalized)| {
            let row_pitch = 4 * size as u64;
            descriptor_words(&TextureDescriptor {
                data: 0,
                width: size as u32,
                height: size as u32,
                depth: 1,
                layers: layers as u32,
                row_pitch,
                slice_pitch: row_pitch * size as u64,
                channels: 1,
                channel_type: ChannelType::F32 as u32,
                read_mode: ReadMode::ElementType as u32,
                filter_mode: filter as u32,
                address_modes: [mode as u32; 3],
                normalized_coordinates: u32::from(normalized),
                border: [9.0f32.to_bits(); 4],
                cube: 1,
                reserved: 0,
                mipmaps: Mipmaps::NONE,
            })
        })
        .collect();
    let directions = directions();
    // Cube indices 0, 1 and 5 (past the last cube: clamped to cube 1).
    let cube_indices = [0u32, 1, 5];
    let inputs: Vec<u64> = directions
        .iter()
        .enumerate()
        .flat_map(|(index, (x, y, z))| {
            [u64::from(cube_indices[index % 3]), u64::from(x.to_bits()), u64::from(y.to_bits()), u64::from(z.to_bits())]
        })
        .collect();
    let ptx = CUBE_KERNEL.replace("DESCRIPTOR_BYTES", &TEXTURE_DESCRIPTOR_BYTES.to_string());
    let threads = samplers.len() * directions.len();
    let buffers = [
        Buffer::new("u32", descriptors),
        Buffer::new("u8", texels),
        Buffer::new("u32", inputs),
        Buffer::zeroed("u32", 8 * threads),
    ];
    let launch =
        Launch { grid: [samplers.len() as u32, 1, 1], block: [directions.len() as u32, 1, 1], ..Launch::default() };
    for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
        let out = &result[3];
        for (index, &(filter, mode, normalized)) in samplers.iter().enumerate() {
            let linear = filter == FilterMode::Linear;
            for (point, &direction) in directions.iter().enumerate() {
                let thread = index * directions.len() + point;
                let word = |slot: usize| out[8 * thread + slot] as u32;
                let cube = cube_indices[point % 3];
                let context = format!("{device}: {filter:?} {mode:?} normalized {normalized}, direction {direction:?}");
                let layered = model(size, cubes, linear, cube, direction);
                let got = f32::from_bits(word(0));
                assert!(
                    got.to_bits() == layered.to_bits() || (got.is_nan() && layered.is_nan()),
                    "{context}, cube {cube}: tex.acube gives {got}, the model {layered} (face {:?})",
                    face_of(direction.0, direction.1, direction.2)
                );
                assert_eq!(word(1), 0, "{context}: the missing green channel");
                assert_eq!(word(2), 0, "{context}: the missing blue channel");
                let plain = model(size, cubes, linear, 0, direction);
                let got = f32::from_bits(word(4));
                assert!(
                    got.to_bits() == plain.to_bits() || (got.is_nan() && plain.is_nan()),
                    "{context}: tex.cube gives {got}, the model {plain} (face {:?})",
                    face_of(direction.0, direction.1, direction.2)
                );
                assert_eq!(word(5), 0, "{context}: tex.cube's missing green channel");
                assert_eq!(word(6), 0, "{context}: tex.cube's missing blue channel");
                assert_eq!(word(3), 1, "{context}: the residency predicate");
                // Integer results are unfiltered: the nearest texel, a 32-bit channel read as
                // an integer being its bits.
                let nearest = model(size, cubes, false, cube, direction);
                assert_eq!(word(7), nearest.to_bits(), "{context}: tex.acube.v4.u32.f32");
            }
        }
    }
}

/// A linear lookup just inside a face's edge blends only that face's edge texels, however
/// close the neighbouring face's texels are: with face 0 all 1.0 and every other face 0.0,
/// every direction whose major axis is +x reads exactly 1.0.
#[test]
fn linear_filtering_does_not_cross_a_face_edge() {
    let size = 4usize;
    let texels: Vec<u64> = (0..6)
        .flat_map(|face| (0..size * size).map(move |_| if face == 0 { 1.0f32 } else { 0.0 }))
        .flat_map(|value| value.to_bits().to_le_bytes())
        .map(u64::from)
        .collect();
    let row_pitch = 4 * size as u64;
    let descriptor = TextureDescriptor {
        data: 0,
        width: size as u32,
        height: size as u32,
        depth: 1,
        layers: 6,
        row_pitch,
        slice_pitch: row_pitch * size as u64,
        channels: 1,
        channel_type: ChannelType::F32 as u32,
        read_mode: ReadMode::ElementType as u32,
        filter_mode: FilterMode::Linear as u32,
        address_modes: [AddressMode::Wrap as u32; 3],
        normalized_coordinates: 1,
        border: [0; 4],
        cube: 1,
        reserved: 0,
        mipmaps: Mipmaps::NONE,
    };
    let directions = [(1.0f32, 0.999f32, 0.999f32), (1.0, -0.9999, 0.0), (1.0, 0.0, -0.99999), (1.0, 0.999, -0.999)];
    let inputs: Vec<u64> = directions
        .iter()
        .flat_map(|(x, y, z)| [0, u64::from(x.to_bits()), u64::from(y.to_bits()), u64::from(z.to_bits())])
        .collect();
    let ptx = CUBE_KERNEL.replace("DESCRIPTOR_BYTES", &TEXTURE_DESCRIPTOR_BYTES.to_string());
    let buffers = [
        Buffer::new("u32", descriptor_words(&descriptor)),
        Buffer::new("u8", texels),
        Buffer::new("u32", inputs),
        Buffer::zeroed("u32", 8 * directions.len()),
    ];
    for (device, result) in
        opencl::run_everywhere(&ptx, &Launch::threads(directions.len() as u32), &buffers, OPENCL_CHILD)
    {
        for (thread, direction) in directions.iter().enumerate() {
            assert_eq!(f32::from_bits(result[3][8 * thread] as u32), 1.0, "{device}: tex.acube at {direction:?}");
            assert_eq!(f32::from_bits(result[3][8 * thread + 4] as u32), 1.0, "{device}: tex.cube at {direction:?}");
        }
    }
}

/// A cube map from the launch spec (`"cube": true`): `txq.array_size` counts cubes.
#[test]
fn a_cube_map_array_from_the_launch_spec_counts_cubes() {
    let ptx = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry sample(.param .u64 sky, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    .reg .f32 %f<8>;
    ld.param.u64 %rd1, [sky];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, 1;
    mov.f32 %f5, 0f00000000;
    mov.f32 %f6, 0fBF800000;
    tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %f5, %f6, %f5}];
    st.global.f32 [%rd2], %f1;
    txq.array_size.b32 %r2, [%rd1];
    st.global.u32 [%rd2+4], %r2;
    txq.height.b32 %r3, [%rd1];
    st.global.u32 [%rd2+8], %r3;
    ret;
}
"#;
    // Two cubes of 1x1 faces: layer l holds l.
    let spec = serde_json::json!({
        "buffers": { "faces": { "type": "f32", "data": (0..12).map(f64::from).collect::<Vec<_>>() },
                     "out": { "type": "u32", "len": 3 } },
        "textures": { "sky": { "buffer": "faces", "width": 1, "layers": 12, "cube": true } },
        "args": [ { "texture": "sky" }, { "buffer": "out" } ],
    })
    .to_string();
    let parsed = ptxr_runtime::LaunchSpec::from_json(&spec).expect("the spec is valid");
    let root = ptxr_tests::repository_root();
    let files = ptxr_driver::launch::LaunchFiles { spec_directory: &root, dump_directory: None, printf_output: None };
    let (json, _) = ptxr_driver::launch::launch(ptx, "cube.ptx", &parsed, &files, 2).expect("the launch runs");
    let output: serde_json::Value = serde_json::from_str(&json).expect("result JSON");
    let bits = &output["buffers"]["out"]["bits"];
    // (0, -1, 0) is face 3 (-y) of cube 1: layer 9.
    assert_eq!(bits[0], format!("0x{:08x}", 9.0f32.to_bits()), "{json}");
    assert_eq!(bits[1], "0x00000002", "{json}");
    assert_eq!(bits[2], "0x00000001", "{json}");
}

/// NVPTX keeps `tex.cube`/`tex.acube` for texture objects (ptxas 12.9 assembles them), AMDGPU
/// compiles the software lookup, and its SPIR-V passes `spirv-val`.
#[test]
fn every_target_compiles_cube_maps() {
    let ptx = CUBE_KERNEL.replace("DESCRIPTOR_BYTES", &TEXTURE_DESCRIPTOR_BYTES.to_string());
    let artefact = |target: &str| match compile(&ptx, target) {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("{target}: unsupported: {messages:?}"),
        Compiled::Rejected(message) => panic!("{target}: rejected: {message}"),
    };
    let nvptx = String::from_utf8(artefact("nvptx")).expect("NVPTX output is PTX text");
    assert!(nvptx.contains("tex.acube.v4.f32.f32") && nvptx.contains("tex.cube.v4.f32.f32"), "{nvptx}");
    if let Some(verdict) = ptxr_tests::vendor_checks::ptxas_accepts(nvptx.as_bytes(), "sm_80", "cube") {
        verdict.unwrap_or_else(|error| panic!("ptxas: {error}\n{nvptx}"));
    }
    assert!(!artefact("amdgpu").is_empty());
    let binary = artefact("spirv");
    if let Some(Err(message)) = spirv_val(&binary, &spirv_environment(&binary), "cube") {
        panic!("spirv-val: {message}");
    }
}

/// nvcc 13.5's PTX for a CUDA kernel that reads a layered cube map with
/// `texCubemapLayered<float>` (`tex.acube`) and counts the values' bins in a surface with an
/// inline `sured.b.add` (CUDA C++ has no surface atomics), run from a launch spec whose
/// `textures` bind the objects (`"cube": true`).
#[test]
fn nvcc_cube_map_and_surface_reduction_run_from_a_launch_spec() {
    let ptx = ptxr_tests::read_repository_file("tests/fixtures/kernels/cube_sky_nvcc.ptx");
    let (size, cubes) = (2usize, 2usize);
    // Layer l, texel (i, j) holds 4l + 2j + i.
    let faces: Vec<f32> = (0..6 * cubes * size * size).map(|index| index as f32).collect();
    let count = 24usize;
    let mut directions = Vec::with_capacity(4 * count);
    for index in 0..count {
        let angle = index as f32 * 0.9;
        let (x, y, z) =
            (angle.cos() * (1.0 + index as f32 % 3.0), (angle * 1.7).sin() * 2.0, (angle * 0.6).cos() - 0.3);
        directions.extend([x, y, z, (index % 2) as f32]);
    }
    let spec = serde_json::json!({
        "grid": [2],
        "block": [16],
        "buffers": {
            "b0": { "type": "f32", "data": faces },
            "b1": { "type": "u32", "len": 4 },
            "b2": { "type": "f32", "data": directions },
            "b3": { "type": "f32", "len": count },
        },
        "textures": {
            "cubes": { "buffer": "b0", "width": size, "layers": 6 * cubes, "cube": true },
            "histogram": { "buffer": "b1", "width": 4, "format": "u32" },
        },
        "args": [
            { "texture": "cubes" }, { "texture": "histogram" },
            { "buffer": "b2" }, { "buffer": "b3" }, { "type": "s32", "value": count },
        ],
    })
    .to_string();
    let texel = |layer: usize, i: usize, j: usize| (4 * layer + 2 * j + i) as f32;
    let mut values = Vec::with_capacity(count);
    let mut histogram = vec![0u64; 4];
    for index in 0..count {
        let (x, y, z, cube) =
            (directions[4 * index], directions[4 * index + 1], directions[4 * index + 2], directions[4 * index + 3]);
        let (face, s, t, m) = face_of(x, y, z);
        let layer = cube as usize * 6 + face as usize;
        let (i, _) = axis((s / m + 1.0) * 0.5, size, false);
        let (j, _) = axis((t / m + 1.0) * 0.5, size, false);
        let value = texel(layer, i.clamp(0, 1) as usize, j.clamp(0, 1) as usize);
        values.push(u64::from(value.to_bits()));
        histogram[value as usize & 3] += 1;
    }
    let parsed = ptxr_runtime::LaunchSpec::from_json(&spec).expect("the spec is valid");
    let root = ptxr_tests::repository_root();
    let files = ptxr_driver::launch::LaunchFiles { spec_directory: &root, dump_directory: None, printf_output: None };
    let (json, _) = ptxr_driver::launch::launch(&ptx, "sky.ptx", &parsed, &files, 2).expect("the launch runs");
    let mut results = vec![("cpu", ptxr_tests::buffers_from_json(&json, 4).expect("result JSON"))];
    if opencl::available() {
        let mut launches = opencl::run_spec_in_one_process(&ptx, &spec, 4, OPENCL_CHILD, 1).expect("the OpenCL launch");
        results.push(("spirv", launches.remove(0)));
    }
    for (device, buffers) in results {
        assert_eq!(buffers[3], values, "{device}: the cube map's values");
        assert_eq!(buffers[1], histogram, "{device}: the histogram the surface reduction counted");
    }
}

/// `tld4.r.acube` and `tld4.r.cube` of each direction: the four texels of the bilinear
/// footprint on the face `tex.cube` filters, clamped at its edges, in `textureGather`'s order
/// (i, j+1), (i+1, j+1), (i+1, j), (i, j).
const GATHER_KERNEL: &str = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry gathers(.param .u64 descriptor, .param .u64 texels, .param .u64 directions, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<12>;
    ld.param.u64 %rd1, [descriptor];
    ld.param.u64 %rd2, [texels];
    ld.param.u64 %rd3, [directions];
    ld.param.u64 %rd4, [out];
    st.global.u64 [%rd1], %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd6, %r1, 16;
    add.u64 %rd6, %rd3, %rd6;
    ld.global.u32 %r3, [%rd6];
    ld.global.f32 %f1, [%rd6+4];
    ld.global.f32 %f2, [%rd6+8];
    ld.global.f32 %f3, [%rd6+12];
    tld4.r.acube.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd1, {%r3, %f1, %f2, %f3}];
    tld4.r.cube.v4.f32.f32 {%f8, %f9, %f10, %f11}, [%rd1, {%f1, %f2, %f3, %f3}];
    mul.wide.u32 %rd7, %r1, 32;
    add.u64 %rd7, %rd4, %rd7;
    st.global.v4.f32 [%rd7], {%f4, %f5, %f6, %f7};
    st.global.v4.f32 [%rd7+16], {%f8, %f9, %f10, %f11};
    ret;
}
"#;

/// The model of `tld4.r` on a cube map array of `cubes` cubes of `size`² texels.
fn gather_model(size: usize, cubes: usize, cube: u32, (x, y, z): (f32, f32, f32)) -> [f32; 4] {
    let (face, s, t, m) = face_of(x, y, z);
    let layer = (cube as usize).min(cubes - 1) * 6 + face as usize;
    let (i, _) = axis((s / m + 1.0) * 0.5, size, true);
    let (j, _) = axis((t / m + 1.0) * 0.5, size, true);
    let clamp = |index: i64| index.clamp(0, size as i64 - 1) as usize;
    let texel = |di: i64, dj: i64| value(layer, clamp(i + di), clamp(j + dj));
    [texel(0, 1), texel(1, 1), texel(1, 0), texel(0, 0)]
}

#[test]
fn tld4_on_cube_maps_gathers_the_footprint_on_the_face() {
    let (size, cubes) = (3usize, 2usize);
    let layers = 6 * cubes;
    let texels: Vec<u64> = (0..layers)
        .flat_map(|layer| (0..size).flat_map(move |j| (0..size).map(move |i| value(layer, i, j))))
        .flat_map(|value| value.to_bits().to_le_bytes())
        .map(u64::from)
        .collect();
    let row_pitch = 4 * size as u64;
    let descriptor = TextureDescriptor {
        data: 0,
        width: size as u32,
        height: size as u32,
        depth: 1,
        layers: layers as u32,
        row_pitch,
        slice_pitch: row_pitch * size as u64,
        channels: 1,
        channel_type: ChannelType::F32 as u32,
        read_mode: ReadMode::ElementType as u32,
        filter_mode: FilterMode::Point as u32,
        address_modes: [AddressMode::Clamp as u32; 3],
        normalized_coordinates: 0,
        border: [0; 4],
        cube: 1,
        reserved: 0,
        mipmaps: Mipmaps::NONE,
    };
    let directions = directions();
    let cube_indices = [1u32, 0, 7];
    let inputs: Vec<u64> = directions
        .iter()
        .enumerate()
        .flat_map(|(index, (x, y, z))| {
            [u64::from(cube_indices[index % 3]), u64::from(x.to_bits()), u64::from(y.to_bits()), u64::from(z.to_bits())]
        })
        .collect();
    let buffers = [
        Buffer::new("u32", descriptor_words(&descriptor)),
        Buffer::new("u8", texels),
        Buffer::new("u32", inputs),
        Buffer::zeroed("u32", 8 * directions.len()),
    ];
    let launch = Launch::threads(directions.len() as u32);
    for (device, result) in opencl::run_everywhere(GATHER_KERNEL, &launch, &buffers, OPENCL_CHILD) {
        for (point, &direction) in directions.iter().enumerate() {
            let cube = cube_indices[point % 3];
            let words = |start: usize| -> Vec<u32> {
                result[3][8 * point + start..8 * point + start + 4].iter().map(|&word| word as u32).collect()
            };
            let bits = |values: [f32; 4]| values.map(f32::to_bits).to_vec();
            assert_eq!(
                words(0),
                bits(gather_model(size, cubes, cube, direction)),
                "{device}: tld4.r.acube of cube {cube} at {direction:?} (face {:?})",
                face_of(direction.0, direction.1, direction.2)
            );
            assert_eq!(
                words(4),
                bits(gather_model(size, cubes, 0, direction)),
                "{device}: tld4.r.cube at {direction:?}"
            );
        }
    }
}
