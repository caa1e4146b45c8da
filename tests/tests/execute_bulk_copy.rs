//! The bulk copies and the tensor memory accelerator of PTX ISA 8.0 to 8.3 (sm_90):
//! `cp.async.bulk`, `cp.reduce.async.bulk`, `cp.async.bulk.tensor` in tile mode from 1 to 5 dimensions, tensor maps
//! built on the device (`tensormap.replace`, `tensormap.cp_fenceproxy`,
//! `fence.proxy.tensormap`), and `mbarrier` transaction counts, on the CPU and, when an OpenCL
//! platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL.
//!
//! Expected values come from [`TensorModel`], the manual's tile mode written here: the box has
//! `ceil(box_dim / element_stride)` elements along each dimension, starting at the coordinates
//! and `element_stride` apart; its image in shared memory is dense, dimension 0 innermost, with
//! each 128-byte row's 16-byte chunks swizzled (chunk `c` of row `r` goes to `c ^ (r mod 2^k)`,
//! `k` = 1, 2, 3 for the 32-, 64- and 128-byte modes); a load fills elements outside the tensor
//! with zeros or (`fill_mode` NaN, floating-point types) NaNs; a store writes only elements
//! inside. The GPU artefacts pass the vendors' checks (ptxas at sm_90, spirv-val, the AMDGPU
//! code object's metadata), with the prefetches (hints); `.im2col` is reported as unsupported on
//! every target.

use ptxr_tests::opencl::{self, Device};
use ptxr_tests::vendor_checks::{compile, Compiled, Validators};
use ptxr_tests::{Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

fn devices() -> Vec<Device> {
    let mut devices = vec![Device::Cpu];
    if opencl::available() {
        devices.push(Device::OpenCl);
    }
    devices
}

/// A tensor map's fields, as `tensormap.replace` writes them.
#[derive(Clone, Debug)]
struct TensorModel {
    /// The `.elemtype` code and its size in bytes.
    element_type: u32,
    element_size: usize,
    global_dims: Vec<u64>,
    /// Byte strides of dimensions 1 and up (dimension 0's is the element size).
    global_strides: Vec<u64>,
    box_dims: Vec<u64>,
    element_strides: Vec<u64>,
    /// 0 none, 1 32-byte, 2 64-byte, 3 128-byte.
    swizzle: u32,
    /// 0 zeros, 1 NaNs.
    fill: u32,
}

impl TensorModel {
    fn rank(&self) -> usize {
        self.global_dims.len()
    }

    fn counts(&self) -> Vec<u64> {
        self.box_dims.iter().zip(&self.element_strides).map(|(extent, step)| extent.div_ceil(*step)).collect()
    }

    fn box_bytes(&self) -> usize {
        self.counts().iter().product::<u64>() as usize * self.element_size
    }

    /// Where the byte at `offset` of the dense box image lies in shared memory.
    fn placed(&self, offset: usize) -> usize {
        let rows_in_pattern = match self.swizzle {
            1 => 2,
            2 => 4,
            3 => 8,
            _ => 1,
        };
        let row = offset / 128;
        let chunk = (offset % 128) / 16;
        offset - chunk * 16 + (chunk ^ (row % rows_in_pattern)) * 16
    }

    /// Each box element in order: its dense index and, when inside the tensor, its byte
    /// offset in the tensor.
    fn elements(&self, coordinates: &[i64]) -> Vec<(usize, Option<u64>)> {
        let counts = self.counts();
        let total: u64 = counts.iter().product();
        (0..total)
            .map(|index| {
                let mut rest = index;
                let mut offset = 0u64;
                let mut inside = true;
                for dimension in 0..self.rank() {
                    let position = rest % counts[dimension];
                    rest /= counts[dimension];
                    let coordinate = coordinates[dimension] + (position * self.element_strides[dimension]) as i64;
                    inside &= coordinate >= 0 && (coordinate as u64) < self.global_dims[dimension];
                    let stride =
                        if dimension == 0 { self.element_size as u64 } else { self.global_strides[dimension - 1] };
                    offset = offset.wrapping_add((coordinate as u64).wrapping_mul(stride));
                }
                (index as usize, inside.then_some(offset))
            })
            .collect()
    }

    /// The shared-memory image a load of the box at `coordinates` writes.
    fn load(&self, tensor: &[u8], coordinates: &[i64]) -> Vec<u8> {
        let size = self.element_size;
        let is_float = (6..=12).contains(&self.element_type);
        let mut image = vec![0u8; self.box_bytes()];
        for (index, offset) in self.elements(coordinates) {
            for byte in 0..size {
                let value = match offset {
                    Some(offset) => tensor[offset as usize + byte],
                    // A NaN: 0x7f in the top byte, 0xff below it.
                    None if self.fill == 1 && is_float => {
                        if byte == size - 1 {
                            0x7f
                        } else {
                            0xff
                        }
                    }
                    None => 0,
                };
                image[self.placed(index * size + byte)] = value;
            }
        }
        image
    }

    /// The tensor after a store of `image` to the box at `coordinates`.
    fn store(&self, tensor: &[u8], image: &[u8], coordinates: &[i64]) -> Vec<u8> {
        let size = self.element_size;
        let mut result = tensor.to_vec();
        for (index, offset) in self.elements(coordinates) {
            if let Some(offset) = offset {
                for byte in 0..size {
                    result[offset as usize + byte] = image[self.placed(index * size + byte)];
                }
            }
        }
        result
    }

    /// The tensor's size in bytes: past its last element.
    fn tensor_bytes(&self) -> usize {
        let mut last = self.element_size as u64;
        for dimension in 0..self.rank() {
            let stride = if dimension == 0 { self.element_size as u64 } else { self.global_strides[dimension - 1] };
            last += (self.global_dims[dimension] - 1) * stride;
        }
        last as usize
    }
}

/// PTX that builds the map in shared memory with `tensormap.replace` (ptxas: only on sm_90a,
/// not sm_90), publishes it to the
/// `maps` buffer and then runs `body` with the map's generic address in `%rd4`, the
/// coordinates in `%r10`.. and the box image in `image` (`image_bytes`, 1024-byte aligned).
fn kernel(model: &TensorModel, name: &str, body: &str, image_bytes: usize) -> String {
    let rank = model.rank();
    let mut replace = String::new();
    let field = |replace: &mut String, name: &str, ordinal: usize, register: &str| {
        replace.push_str(&format!(
            "    tensormap.replace.tile.{name}.shared::cta.b1024.{} [map], {ordinal}, {register};\n",
            if name == "global_stride" { "b64" } else { "b32" }
        ));
    };
    // params: global_dim[5], box_dim[5], element_stride[5], global_stride[4], coordinates[5].
    for dimension in 0..rank {
        for (slot, name) in [(0, "global_dim"), (5, "box_dim"), (10, "element_stride")] {
            replace.push_str(&format!(
                "    ld.u64 %rd10, [%rd2+{}];\n    cvt.u32.u64 %r1, %rd10;\n",
                8 * (slot + dimension)
            ));
            field(&mut replace, name, dimension, "%r1");
        }
        if dimension > 0 {
            replace.push_str(&format!("    ld.u64 %rd10, [%rd2+{}];\n", 8 * (15 + dimension - 1)));
            field(&mut replace, "global_stride", dimension - 1, "%rd10");
        }
        replace.push_str(&format!(
            "    ld.u64 %rd10, [%rd2+{}];\n    cvt.u32.u64 %r{}, %rd10;\n",
            8 * (19 + dimension),
            10 + dimension
        ));
    }
    let zero: String = (0..32).map(|word| format!("    st.shared.u32 [map+{}], 0;\n", 4 * word)).collect();
    format!(
        r#".version 8.3
.target sm_90a
.address_size 64

.visible .entry {name}(.param .u64 tensor, .param .u64 params, .param .u64 image_out, .param .u64 maps)
{{
    .reg .u32 %r<40>;
    .reg .u64 %rd<40>;
    .reg .pred %p<8>;
    .shared .align 128 .b8 map[128];
    .shared .align 1024 .b8 image[{image_bytes}];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [tensor];
    ld.param.u64 %rd2, [params];
    ld.param.u64 %rd3, [image_out];
    ld.param.u64 %rd4, [maps];
{zero}    tensormap.replace.tile.global_address.shared::cta.b1024.b64 [map], %rd1;
    tensormap.replace.tile.rank.shared::cta.b1024.b32 [map], {rank_less_one};
    tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [map], {element_type};
    tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [map], {swizzle};
    tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [map], {fill};
{replace}    tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd4], [map], 128;
    fence.proxy.tensormap::generic.acquire.gpu [%rd4], 128;
{body}    ret;
}}
"#,
        rank_less_one = rank - 1,
        element_type = model.element_type,
        swizzle = model.swizzle,
        fill = model.fill,
    )
}

fn coordinate_list(rank: usize) -> String {
    (0..rank).map(|dimension| format!("%r{}", 10 + dimension)).collect::<Vec<_>>().join(", ")
}

/// Copies the image's `bytes` to `image_out`, a word at a time.
fn dump_image(bytes: usize) -> String {
    (0..bytes / 4)
        .map(|word| format!("    ld.shared.u32 %r30, [image+{0}];\n    st.u32 [%rd3+{0}], %r30;\n", 4 * word))
        .collect()
}

/// Loads the image from `image_out` into shared memory.
fn fill_image(bytes: usize) -> String {
    (0..bytes / 4)
        .map(|word| format!("    ld.u32 %r30, [%rd3+{0}];\n    st.shared.u32 [image+{0}], %r30;\n", 4 * word))
        .collect()
}

fn load_kernel(model: &TensorModel) -> String {
    let rank = model.rank();
    let bytes = model.box_bytes();
    let body = format!(
        r#"    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], {bytes};
    cp.async.bulk.tensor.{rank}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [image], [%rd4, {{{coordinates}}}], [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
{dump}"#,
        coordinates = coordinate_list(rank),
        dump = dump_image(bytes),
    );
    kernel(model, "tensor_load", &body, bytes.next_multiple_of(1024))
}

fn store_kernel(model: &TensorModel) -> String {
    let rank = model.rank();
    let bytes = model.box_bytes();
    let body = format!(
        r#"{fill}    fence.proxy.async.shared::cta;
    cp.async.bulk.tensor.{rank}d.global.shared::cta.bulk_group [%rd4, {{{coordinates}}}], [image];
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
"#,
        fill = fill_image(bytes),
        coordinates = coordinate_list(rank),
    );
    kernel(model, "tensor_store", &body, bytes.next_multiple_of(1024))
}

fn parameters(model: &TensorModel, coordinates: &[i64]) -> Buffer {
    let mut slots = vec![0u64; 24];
    for dimension in 0..model.rank() {
        slots[dimension] = model.global_dims[dimension];
        slots[5 + dimension] = model.box_dims[dimension];
        slots[10 + dimension] = model.element_strides[dimension];
        if dimension > 0 {
            slots[15 + dimension - 1] = model.global_strides[dimension - 1];
        }
        slots[19 + dimension] = coordinates[dimension] as u32 as u64;
    }
    Buffer::u64s(&slots)
}

fn bytes_buffer(bytes: &[u8]) -> Buffer {
    Buffer::new("u8", bytes.iter().map(|&byte| u64::from(byte)).collect())
}

fn buffer_bytes(bits: &[u64]) -> Vec<u8> {
    bits.iter().map(|&bits| bits as u8).collect()
}

/// Runs a load and a store of the box at `coordinates` on every device and compares both with
/// the model.
fn check(what: &str, model: &TensorModel, coordinates: &[i64], random: &mut Random) {
    let tensor: Vec<u8> = (0..model.tensor_bytes()).map(|_| random.next_u32() as u8).collect();
    let bytes = model.box_bytes();
    let image: Vec<u8> = (0..bytes).map(|_| random.next_u32() as u8).collect();
    let launch = Launch::threads(1);
    let expected_image = model.load(&tensor, coordinates);
    let expected_tensor = model.store(&tensor, &image, coordinates);
    for device in devices() {
        let buffers = [
            bytes_buffer(&tensor),
            parameters(model, coordinates),
            bytes_buffer(&vec![0; bytes]),
            bytes_buffer(&[0; 128]),
        ];
        let loaded = opencl::run_ok_on(device, &load_kernel(model), &launch, &buffers, OPENCL_CHILD);
        assert!(buffer_bytes(&loaded[2]) == expected_image, "{what}: load on {device:?} differs from the model");
        let buffers =
            [bytes_buffer(&tensor), parameters(model, coordinates), bytes_buffer(&image), bytes_buffer(&[0; 128])];
        let stored = opencl::run_ok_on(device, &store_kernel(model), &launch, &buffers, OPENCL_CHILD);
        assert!(buffer_bytes(&stored[0]) == expected_tensor, "{what}: store on {device:?} differs from the model");
    }
}

/// An `f32` tensor of `dims` elements with packed rows (`pad` extra elements per row).
fn f32_tensor(dims: &[u64], pad: u64, box_dims: &[u64], element_strides: &[u64]) -> TensorModel {
    let mut strides = Vec::new();
    let mut stride = (dims[0] + pad) * 4;
    for extent in &dims[1..] {
        strides.push(stride);
        stride *= extent;
    }
    TensorModel {
        element_type: 7,
        element_size: 4,
        global_dims: dims.to_vec(),
        global_strides: strides,
        box_dims: box_dims.to_vec(),
        element_strides: element_strides.to_vec(),
        swizzle: 0,
        fill: 0,
    }
}

#[test]
fn boxes_at_every_corner_fill_outside_the_tensor_and_store_only_inside() {
    let mut random = Random::new(0x7a11);
    let model = f32_tensor(&[20, 12], 3, &[8, 4], &[1, 1]);
    for coordinates in [[4, 3], [-3, -2], [16, -1], [-5, 10], [17, 10], [-8, 0], [0, 12]] {
        check(&format!("2d box at {coordinates:?}"), &model, &coordinates, &mut random);
    }
    let nan_fill = TensorModel { fill: 1, ..model.clone() };
    check("NaN fill", &nan_fill, &[15, -2], &mut random);
    // A NaN fill asks for NaNs of floating-point types only: `.u32` is filled with zeros.
    let integers = TensorModel { element_type: 2, ..nan_fill };
    check("NaN fill of an integer type", &integers, &[15, -2], &mut random);
}

#[test]
fn element_strides_skip_elements_of_the_tensor() {
    let mut random = Random::new(0x57e9);
    let model = f32_tensor(&[30, 9], 0, &[12, 5], &[3, 2]);
    check("element strides 3 and 2", &model, &[2, 1], &mut random);
    check("element strides past the end", &model, &[25, 6], &mut random);
}

#[test]
fn one_to_five_dimensions_and_every_element_size() {
    let mut random = Random::new(0xd135);
    check("1d", &f32_tensor(&[50], 0, &[16], &[1]), &[40], &mut random);
    check("3d", &f32_tensor(&[9, 5, 4], 1, &[4, 3, 2], &[1, 1, 1]), &[7, 3, -1], &mut random);
    check("4d", &f32_tensor(&[6, 4, 3, 3], 0, &[4, 2, 2, 2], &[1, 1, 2, 1]), &[3, -1, 1, 2], &mut random);
    check("5d", &f32_tensor(&[5, 3, 3, 2, 3], 2, &[4, 2, 2, 2, 2], &[1, 1, 1, 1, 1]), &[2, 2, -1, 1, 2], &mut random);
    let bytes = TensorModel {
        element_type: 0,
        element_size: 1,
        global_strides: vec![40],
        ..f32_tensor(&[37, 6], 0, &[16, 4], &[1, 1])
    };
    check("u8", &bytes, &[30, 3], &mut random);
    let halves = TensorModel {
        element_type: 6,
        element_size: 2,
        global_strides: vec![48],
        fill: 1,
        ..f32_tensor(&[21, 6], 0, &[8, 4], &[1, 1])
    };
    check("f16 with NaN fill", &halves, &[17, -1], &mut random);
    let doubles = TensorModel {
        element_type: 9,
        element_size: 8,
        global_strides: vec![80],
        fill: 1,
        ..f32_tensor(&[9, 6], 0, &[4, 4], &[1, 1])
    };
    check("f64 with NaN fill", &doubles, &[7, 3], &mut random);
}

#[test]
fn each_swizzle_mode_places_the_chunks_of_each_row() {
    let mut random = Random::new(0x5a1e);
    // The box's rows are as wide as the swizzle's span: 8, 16 and 32 `f32`s.
    for (swizzle, width) in [(1, 8), (2, 16), (3, 32)] {
        let model = TensorModel { swizzle, ..f32_tensor(&[70, 20], 0, &[width, 12], &[1, 1]) };
        check(&format!("swizzle mode {swizzle}"), &model, &[5, 3], &mut random);
        check(&format!("swizzle mode {swizzle} at a corner"), &model, &[70 - width as i64 / 2, 15], &mut random);
    }
}

/// `cp.async.bulk` between global and shared memory and within shared memory, and the
/// transaction counts: the phase completes only once the arrivals and every byte expected
/// have arrived, whichever comes first.
#[test]
fn bulk_copies_complete_their_bytes_on_the_mbarrier() {
    let source = r#".version 8.0
.target sm_90
.address_size 64

.visible .entry bulk(.param .u64 input, .param .u64 output, .param .u64 flags)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<20>;
    .reg .pred %p<8>;
    .shared .align 128 .b8 first[256];
    .shared .align 128 .b8 second[256];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd3, [flags];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mbarrier.init.shared::cta.b64 [bar], 1;
    // 256 bytes expected, in two copies of 128.
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [bar], 256;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [first], [%rd1], 128, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %p1, [bar], 0;
    selp.u32 %r1, 1, 0, %p1;
    st.u32 [%rd3], %r1;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [first+128], [%rd1+128], 128, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %p2, [bar], 0;
    selp.u32 %r2, 1, 0, %p2;
    st.u32 [%rd3+4], %r2;
    // Phase 1: the bytes come before the arrival that expects them.
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [second], [first], 256, [bar];
    mbarrier.test_wait.parity.shared::cta.b64 %p3, [bar], 1;
    selp.u32 %r3, 1, 0, %p3;
    st.u32 [%rd3+8], %r3;
    mbarrier.expect_tx.shared::cta.b64 [bar], 16;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd6, [bar], 240;
    mbarrier.test_wait.parity.shared::cta.b64 %p4, [bar], 1;
    selp.u32 %r4, 1, 0, %p4;
    st.u32 [%rd3+12], %r4;
    // Phase 2: an arrival, then bytes completed by `complete_tx`.
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd7, [bar], 32;
    mbarrier.complete_tx.shared::cta.b64 [bar], 16;
    mbarrier.test_wait.parity.shared::cta.b64 %p5, [bar], 0;
    selp.u32 %r5, 1, 0, %p5;
    st.u32 [%rd3+16], %r5;
    mbarrier.complete_tx.shared::cta.b64 [bar], 16;
    mbarrier.test_wait.parity.shared::cta.b64 %p6, [bar], 0;
    selp.u32 %r6, 1, 0, %p6;
    st.u32 [%rd3+20], %r6;
    fence.proxy.async.shared::cta;
    cp.async.bulk.global.shared::cta.bulk_group [%rd2], [second], 256;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
    ret;
}
"#;
    let mut random = Random::new(0xb01c);
    let input: Vec<u8> = (0..256).map(|_| random.next_u32() as u8).collect();
    for device in devices() {
        let buffers = [bytes_buffer(&input), bytes_buffer(&[0; 256]), Buffer::u32s(&[7; 6])];
        let results = opencl::run_ok_on(device, source, &Launch::threads(1), &buffers, OPENCL_CHILD);
        assert_eq!(buffer_bytes(&results[1]), input, "{device:?}: the bytes through both copies");
        // Incomplete after half the bytes, complete after all; incomplete with bytes but no
        // arrival; complete once both; incomplete with half the bytes, complete with the rest.
        assert_eq!(results[2], [0, 1, 0, 1, 0, 1], "{device:?}: when each phase completed");
    }
}

/// `cp.reduce.async.bulk` into global memory (each reduction of the 32- and 64-bit types)
/// and into shared memory on an mbarrier: each destination element becomes `op(destination,
/// source)`, `.inc`/`.dec` wrapping as `atom.inc`/`atom.dec` do.
const REDUCTIONS: &str = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry reduce(.param .u64 target, .param .u64 source, .param .u64 target64, .param .u64 source64)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<8>;
    .reg .pred %p<2>;
    .shared .align 128 .b8 tile[128];
    .shared .align 128 .b8 tile64[64];
    .shared .align 128 .b8 local_target[32];
    .shared .align 8 .b64 bar;
    ld.param.u64 %rd1, [target];
    ld.param.u64 %rd2, [source];
    ld.param.u64 %rd3, [target64];
    ld.param.u64 %rd4, [source64];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    cvta.to.global.u64 %rd3, %rd3;
    cvta.to.global.u64 %rd4, %rd4;
    mbarrier.init.shared::cta.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 192;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd2], 128, [bar];
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile64], [%rd4], 64, [bar];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 0;
    @!%p1 bra WAIT;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [tile], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s32 [%rd1+16], [tile+16], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u32 [%rd1+32], [tile+32], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.and.b32 [%rd1+48], [tile+48], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.or.b32 [%rd1+64], [tile+64], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.xor.b32 [%rd1+80], [tile+80], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.inc.u32 [%rd1+96], [tile+96], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.dec.u32 [%rd1+112], [tile+112], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1+128], [tile], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u64 [%rd3], [tile64], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.min.s64 [%rd3+16], [tile64+16], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.max.u64 [%rd3+32], [tile64+32], 16;
    cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f64 [%rd3+48], [tile64+48], 16;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group 0;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [local_target], [%rd1+144], 32, [bar];
    cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [local_target], [tile], 32, [bar];
WAIT2:
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [bar], 1;
    @!%p1 bra WAIT2;
    ld.shared.u32 %r1, [local_target];
    st.global.u32 [%rd1+144], %r1;
    ret;
}
"#;

#[test]
fn bulk_reductions_update_each_element() {
    let mut random = Random::new(0x4ed0);
    let small = |random: &mut Random| random.next_u32() % 10;
    let float_bits = |random: &mut Random| (random.next_u32() % 2000) as f32 - 1000.0;
    let mut source: Vec<u32> = (0..32).map(|_| random.next_u32()).collect();
    let mut target: Vec<u32> = (0..44).map(|_| random.next_u32()).collect();
    for index in 0..4 {
        // `.add.f32` reads words 0..4 of the source as floats: integers, so every sum is exact.
        source[index] = float_bits(&mut random).to_bits();
        target[32 + index] = float_bits(&mut random).to_bits();
    }
    for index in 24..32 {
        source[index] = small(&mut random);
        target[index] = small(&mut random);
    }
    let mut source64: Vec<u64> = (0..8).map(|_| random.next_u64()).collect();
    let mut target64: Vec<u64> = (0..8).map(|_| random.next_u64()).collect();
    for index in 6..8 {
        source64[index] = f64::from(float_bits(&mut random)).to_bits();
        target64[index] = f64::from(float_bits(&mut random)).to_bits();
    }
    let mut expected = target.clone();
    for index in 0..4 {
        let (word, min, max) = (index, 4 + index, 8 + index);
        expected[word] = target[word].wrapping_add(source[word]);
        expected[min] = (target[min] as i32).min(source[min] as i32) as u32;
        expected[max] = target[max].max(source[max]);
        expected[12 + index] = target[12 + index] & source[12 + index];
        expected[16 + index] = target[16 + index] | source[16 + index];
        expected[20 + index] = target[20 + index] ^ source[20 + index];
        let (old, bound) = (target[24 + index], source[24 + index]);
        expected[24 + index] = if old >= bound { 0 } else { old + 1 };
        let (old, bound) = (target[28 + index], source[28 + index]);
        expected[28 + index] = if old == 0 || old > bound { bound } else { old - 1 };
        let sum = f32::from_bits(target[32 + index]) + f32::from_bits(source[index]);
        expected[32 + index] = sum.to_bits();
    }
    // Into shared memory: word 0 of the copy of words 36.. plus source word 0, stored back.
    expected[36] = target[36].wrapping_add(source[0]);
    let mut expected64 = target64.clone();
    for index in 0..2 {
        expected64[index] = target64[index].wrapping_add(source64[index]);
        expected64[2 + index] = (target64[2 + index] as i64).min(source64[2 + index] as i64) as u64;
        expected64[4 + index] = target64[4 + index].max(source64[4 + index]);
        let sum = f64::from_bits(target64[6 + index]) + f64::from_bits(source64[6 + index]);
        expected64[6 + index] = sum.to_bits();
    }
    for device in devices() {
        let buffers = [Buffer::u32s(&target), Buffer::u32s(&source), Buffer::u64s(&target64), Buffer::u64s(&source64)];
        let results = opencl::run_ok_on(device, REDUCTIONS, &Launch::threads(1), &buffers, OPENCL_CHILD);
        let words: Vec<u64> = expected.iter().map(|&word| u64::from(word)).collect();
        assert_eq!(results[0], words, "{device:?}: the 32-bit reductions");
        assert_eq!(results[2], expected64, "{device:?}: the 64-bit reductions");
    }
}

/// The forms compile for every GPU target and pass the vendors' checks; the unsupported ones
/// are named.
#[test]
fn the_copies_compile_for_the_gpus_and_pass_the_vendor_checks() {
    let model = TensorModel { swizzle: 3, fill: 1, ..f32_tensor(&[64, 16], 0, &[32, 8], &[1, 1]) };
    let sources = [("tensor-load", load_kernel(&model)), ("tensor-store", store_kernel(&model))];
    let Some(validators) = Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-bulk-copy-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    for (name, source) in &sources {
        for target in ["nvptx", "spirv", "amdgpu"] {
            let Compiled::Artefact(artefact) = compile(source, target) else {
                panic!("{name} does not compile for {target}")
            };
            if let Err(message) = validators.check(target, name, source, &artefact, &scratch) {
                panic!("{name} on {target}: {message}");
            }
        }
    }
    let Compiled::Artefact(artefact) = compile(REDUCTIONS, "nvptx") else { panic!("the reductions do not compile") };
    if let Err(message) = validators.check("nvptx", "reductions", REDUCTIONS, &artefact, &scratch) {
        panic!("reductions on nvptx: {message}");
    }
    // The prefetches are hints: NVPTX keeps them, the other targets read their operands only.
    let prefetch = r#".version 8.0
.target sm_90
.address_size 64
.visible .entry prefetch(.param .u64 input, .param .u64 map)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [input];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u64 %rd3, [map];
    mov.u32 %r1, 3;
    cp.async.bulk.prefetch.L2.global [%rd2], 64;
    cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd3, {%r1, %r1}];
    cp.async.bulk.prefetch.tensor.1d.L2.global [%rd3, {%r1}];
    ret;
}
"#;
    for target in ["nvptx", "spirv", "amdgpu"] {
        let Compiled::Artefact(artefact) = compile(prefetch, target) else { panic!("the prefetches on {target}") };
        if let Err(message) = validators.check(target, "prefetch", prefetch, &artefact, &scratch) {
            panic!("prefetch on {target}: {message}");
        }
    }
    // A tensor copy in `.im2col` mode is reported by name.
    let im2col = prefetch
        .replace(
            "cp.async.bulk.prefetch.tensor.1d.L2.global [%rd3, {%r1}];",
            "cp.async.bulk.prefetch.tensor.3d.L2.global.im2col [%rd3, {%r1, %r1, %r1}], {%rs1};",
        )
        .replace(".reg .u64 %rd<4>;", ".reg .u64 %rd<4>;\n    .reg .u16 %rs<2>;");
    for target in ["cpu", "nvptx", "spirv", "amdgpu"] {
        match compile(&im2col, target) {
            Compiled::Unsupported(messages) => assert!(
                messages.iter().any(|message| message.contains("im2col") && message.ends_with(target)),
                "{target}: {messages:?}"
            ),
            _ => panic!("{target}: `.im2col` should be E0901"),
        }
    }
}
