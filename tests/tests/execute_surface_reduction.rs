//! `sured` (ISA 7.8 section 9.7.10.3) on the CPU and on SPIR-V through OpenCL: many threads
//! reduce onto few surface elements at once, and the surface afterwards must equal a model
//! that folds every thread's value into each element's initial value (the operations commute,
//! so the order the threads ran in does not matter). `sured.b` addresses byte `x` like
//! `sust.b`; `sured.p` addresses texel `x` and reduces its first channel as `.s32` on a
//! signed-integer surface and as `.u32` otherwise. The boundary modes are those of `sust`.

use ptxr_runtime::texture::{AddressMode, ChannelType, FilterMode, Mipmaps, ReadMode, TextureDescriptor};
use ptxr_tests::vendor_checks::{compile, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

fn descriptor_words(descriptor: &TextureDescriptor) -> Vec<u64> {
    // SAFETY: `TextureDescriptor` is `#[repr(C)]`, plain integers with no padding.
    let bytes: &[u8] = unsafe {
        std::slice::from_raw_parts(
            (descriptor as *const TextureDescriptor).cast::<u8>(),
            std::mem::size_of::<TextureDescriptor>(),
        )
    };
    bytes.chunks(4).map(|word| u64::from(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))).collect()
}

fn surface(width: u32, height: u32, channels: u32, channel_type: ChannelType) -> TextureDescriptor {
    let row_pitch = u64::from(width * channels * channel_type.bytes());
    TextureDescriptor {
        data: 0,
        width,
        height,
        depth: 1,
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

/// A kernel whose thread `%r1` runs `body` with `%rd1` the surface (its data pointer just set
/// to `%rd2`), `%rd6` its 64-bit input, `%r2` the input's low half and `%r3` its slot (`%r1`
/// modulo 4).
fn kernel(body: &str) -> String {
    format!(
        r#".version 8.1
.target sm_80
.address_size 64
.visible .entry reduce(.param .u64 surface, .param .u64 texels, .param .u64 inputs)
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [surface];
    ld.param.u64 %rd2, [texels];
    ld.param.u64 %rd3, [inputs];
    st.global.u64 [%rd1], %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd5, %r1, 8;
    add.u64 %rd5, %rd3, %rd5;
    ld.global.u64 %rd6, [%rd5];
    cvt.u32.u64 %r2, %rd6;
    and.b32 %r3, %r1, 3;
{body}
    ret;
}}
"#
    )
}

/// Runs `body` in `threads` threads over `texels`; gives each device's texel bytes after it.
fn run(body: &str, descriptor: &TextureDescriptor, texels: &[u8], inputs: &[u64]) -> Vec<(&'static str, Vec<u8>)> {
    let buffers = [
        Buffer::new("u32", descriptor_words(descriptor)),
        Buffer::new("u8", texels.iter().map(|&byte| u64::from(byte)).collect()),
        Buffer::new("u64", inputs.to_vec()),
    ];
    let launch = Launch::threads(inputs.len() as u32);
    opencl::run_everywhere(&kernel(body), &launch, &buffers, OPENCL_CHILD)
        .into_iter()
        .map(|(device, mut result)| (device, result.swap_remove(1).iter().map(|&byte| byte as u8).collect()))
        .collect()
}

/// Values over the whole 64-bit range, signs and magnitudes mixed (a 64-bit LCG's high bits).
fn values(count: usize, seed: u64) -> Vec<u64> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let value = state ^ (state >> 29);
            // Some small ones too, so that sums and minima are not all dominated by the large.
            if value % 5 == 0 {
                value % 1000
            } else {
                value
            }
        })
        .collect()
}

#[derive(Clone, Copy, Debug)]
enum Operation {
    Add,
    Min,
    Max,
    And,
    Or,
}

impl Operation {
    fn name(self) -> &'static str {
        match self {
            Operation::Add => "add",
            Operation::Min => "min",
            Operation::Max => "max",
            Operation::And => "and",
            Operation::Or => "or",
        }
    }

    /// The operation on `bits`-bit values (`signed` for `.s32`/`.s64`), as u128 arithmetic.
    fn apply(self, old: u64, value: u64, bits: u32, signed: bool) -> u64 {
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let (old, value) = (old & mask, value & mask);
        let as_signed = |x: u64| -> i128 {
            let shift = 128 - bits;
            (i128::from(x) << shift) >> shift
        };
        let result = match self {
            Operation::Add => ((u128::from(old) + u128::from(value)) & u128::from(mask)) as u64,
            Operation::And => old & value,
            Operation::Or => old | value,
            Operation::Min if signed => {
                if as_signed(value) < as_signed(old) {
                    value
                } else {
                    old
                }
            }
            Operation::Max if signed => {
                if as_signed(value) > as_signed(old) {
                    value
                } else {
                    old
                }
            }
            Operation::Min => old.min(value),
            Operation::Max => old.max(value),
        };
        result & mask
    }
}

/// The `sured.b` forms: every operation with every type ptxas 12.9 accepts.
const BYTE_FORMS: [(Operation, &str); 13] = [
    (Operation::Add, "u32"),
    (Operation::Add, "s32"),
    (Operation::Add, "u64"),
    (Operation::Min, "u32"),
    (Operation::Min, "s32"),
    (Operation::Min, "u64"),
    (Operation::Min, "s64"),
    (Operation::Max, "u32"),
    (Operation::Max, "s32"),
    (Operation::Max, "u64"),
    (Operation::Max, "s64"),
    (Operation::And, "b32"),
    (Operation::Or, "b32"),
];

const THREADS: usize = 96;

#[test]
fn sured_b_from_many_threads_onto_four_elements_matches_the_model_for_every_operation_and_type() {
    // A 1D surface of 8-byte texels (two u32 channels); form k reduces into texels 4k to
    // 4k + 3, thread t into texel 4k + t % 4, at byte x = 8 (4k + t % 4).
    let texel_count = 4 * BYTE_FORMS.len();
    let descriptor = surface(texel_count as u32, 1, 2, ChannelType::U32);
    let initial = values(texel_count, 7);
    let texels: Vec<u8> = initial.iter().flat_map(|value| value.to_le_bytes()).collect();
    let inputs = values(THREADS, 11);
    let mut body = String::from("    shl.b32 %r3, %r3, 3;\n");
    for (form, (operation, ty)) in BYTE_FORMS.iter().enumerate() {
        let source = if ty.ends_with("64") { "%rd6" } else { "%r2" };
        body.push_str(&format!(
            "    add.u32 %r4, %r3, {};\n    sured.b.{}.1d.{ty}.trap [%rd1, {{%r4}}], {source};\n",
            form * 32,
            operation.name()
        ));
    }
    let mut expected = initial.clone();
    for (form, (operation, ty)) in BYTE_FORMS.iter().enumerate() {
        let bits = if ty.ends_with("64") { 64 } else { 32 };
        for (thread, &value) in inputs.iter().enumerate() {
            let texel = &mut expected[4 * form + thread % 4];
            let result = operation.apply(*texel, value, bits, ty.starts_with('s'));
            // A 32-bit reduction leaves the texel's upper half alone.
            *texel = if bits == 64 { result } else { (*texel & !0xffff_ffff) | result };
        }
    }
    for (device, bytes) in run(&body, &descriptor, &texels, &inputs) {
        for (form, (operation, ty)) in BYTE_FORMS.iter().enumerate() {
            for slot in 0..4 {
                let texel = 4 * form + slot;
                let got = u64::from_le_bytes(bytes[8 * texel..8 * texel + 8].try_into().expect("8 bytes"));
                assert_eq!(
                    got,
                    expected[texel],
                    "{device}: sured.b.{}.1d.{ty} into texel {slot} (initially {:#x})",
                    operation.name(),
                    initial[texel]
                );
            }
        }
    }
}

#[test]
fn sured_p_reduces_the_first_channel_as_the_surface_format_is_signed_or_not() {
    // A 4x5 surface: row k takes operation k, thread t texel (t % 4, k).
    let operations = [Operation::Add, Operation::Min, Operation::Max, Operation::And, Operation::Or];
    let mut body = String::new();
    for (row, operation) in operations.iter().enumerate() {
        body.push_str(&format!(
            "    mov.u32 %r5, {row};\n    sured.p.{}.2d.b32.trap [%rd1, {{%r3, %r5}}], %r2;\n",
            operation.name()
        ));
    }
    let inputs = values(THREADS, 3);
    for channel_type in [ChannelType::U32, ChannelType::S32] {
        let descriptor = surface(4, operations.len() as u32, 1, channel_type);
        let initial: Vec<u64> = values(4 * operations.len(), 5).iter().map(|value| value & 0xffff_ffff).collect();
        let texels: Vec<u8> = initial.iter().flat_map(|&value| (value as u32).to_le_bytes()).collect();
        let mut expected = initial.clone();
        for (row, operation) in operations.iter().enumerate() {
            for (thread, &value) in inputs.iter().enumerate() {
                let texel = &mut expected[4 * row + thread % 4];
                *texel = operation.apply(*texel, value, 32, channel_type == ChannelType::S32);
            }
        }
        for (device, bytes) in run(&body, &descriptor, &texels, &inputs) {
            let got: Vec<u64> =
                bytes.chunks(4).map(|word| u64::from(u32::from_le_bytes(word.try_into().expect("4 bytes")))).collect();
            assert_eq!(got, expected, "{device}: sured.p on a {channel_type:?} surface");
        }
    }
    // A 16-bit format has no 32-bit channel to reduce: the surface is left as it was.
    let descriptor = surface(4, operations.len() as u32, 1, ChannelType::F16);
    let texels: Vec<u8> = (0..8 * operations.len() as u8).collect();
    for (device, bytes) in run(&body, &descriptor, &texels, &inputs) {
        assert_eq!(bytes, texels, "{device}: sured.p on an f16 surface");
    }
}

#[test]
fn sured_zero_drops_and_clamp_moves_reductions_outside_the_surface() {
    // A 4x2 u32 surface: `.zero` adds into row 0, `.clamp` into row 1; thread t adds 1 << t at
    // byte x (16 bytes a row, the last 4-byte element at 12).
    let cases: Vec<i32> = vec![0, 4, 12, 16, 20, -4, -400, 8, 12, i32::MAX, i32::MIN];
    let body = r#"    mov.u32 %r5, 0;
    mov.u32 %r6, 1;
    mov.u32 %r7, 1;
    shl.b32 %r7, %r7, %r1;
    sured.b.add.2d.u32.zero [%rd1, {%r2, %r5}], %r7;
    sured.b.add.2d.u32.clamp [%rd1, {%r2, %r6}], %r7;"#;
    let descriptor = surface(4, 2, 1, ChannelType::U32);
    let inputs: Vec<u64> = cases.iter().map(|&x| u64::from(x as u32)).collect();
    let mut expected = [0u32; 8];
    for (thread, &x) in cases.iter().enumerate() {
        if (0..=12).contains(&x) {
            expected[x as usize / 4] += 1 << thread;
        }
        expected[4 + x.clamp(0, 12) as usize / 4] += 1 << thread;
    }
    for (device, bytes) in run(body, &descriptor, &[0; 32], &inputs) {
        let got: Vec<u32> = bytes.chunks(4).map(|word| u32::from_le_bytes(word.try_into().expect("4 bytes"))).collect();
        assert_eq!(got, expected, "{device}: rows .zero and .clamp");
    }
}

#[test]
fn sured_trap_stops_the_kernel_outside_the_surface() {
    let descriptor = surface(4, 1, 1, ChannelType::U32);
    let buffers = |x: u64| {
        [Buffer::new("u32", descriptor_words(&descriptor)), Buffer::zeroed("u8", 16), Buffer::new("u64", vec![x])]
    };
    let body = "    sured.b.max.1d.u32.trap [%rd1, {%r2}], %r2;";
    let failure = ptxr_tests::run(&kernel(body), &Launch::threads(1), &buffers(16)).expect_err("the kernel must trap");
    assert!(failure.contains("trap"), "{failure}");
    let result = ptxr_tests::run_ok(&kernel(body), &Launch::threads(1), &buffers(12));
    assert_eq!(result[1], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0, 0, 0], "the reduction inside the surface");
}

/// NVPTX keeps `sured` (ptxas 12.9 assembles it, the 64-bit `.min` at PTX ISA 8.1), AMDGPU
/// compiles the atomics, and the SPIR-V passes `spirv-val`.
#[test]
fn every_target_compiles_sured() {
    let mut body = String::from("    mov.u32 %r5, 1;\n");
    for (operation, ty) in BYTE_FORMS {
        let source = if ty.ends_with("64") { "%rd6" } else { "%r2" };
        body.push_str(&format!("    sured.b.{}.2d.{ty}.clamp [%rd1, {{%r3, %r5}}], {source};\n", operation.name()));
    }
    body.push_str("    sured.p.max.3d.b32.zero [%rd1, {%r3, %r5, %r5, %r5}], %r2;\n");
    let ptx = kernel(&body);
    let artefact = |target: &str| match compile(&ptx, target) {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("{target}: unsupported: {messages:?}"),
        Compiled::Rejected(message) => panic!("{target}: rejected: {message}"),
    };
    let nvptx = String::from_utf8(artefact("nvptx")).expect("NVPTX output is PTX text");
    assert!(nvptx.contains("sured.b.min.2d.s64.clamp"), "{nvptx}");
    assert!(nvptx.contains("sured.p.max.3d.b32.zero"), "{nvptx}");
    if let Some(verdict) = ptxr_tests::vendor_checks::ptxas_accepts(nvptx.as_bytes(), "sm_80", "sured") {
        verdict.unwrap_or_else(|error| panic!("ptxas: {error}\n{nvptx}"));
    }
    assert!(!artefact("amdgpu").is_empty());
    let binary = artefact("spirv");
    if let Some(Err(message)) = spirv_val(&binary, &spirv_environment(&binary), "sured") {
        panic!("spirv-val: {message}");
    }
}
