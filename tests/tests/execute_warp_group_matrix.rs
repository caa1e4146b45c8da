//! `wgmma.mma_async` (ISA 8.0, sm_90a) on the CPU and, where OpenCL is set up, as SPIR-V through
//! OpenCL, against an exact model. The kernel (one warp group) copies a shared-memory image
//! that this test lays out into a 1024-byte-aligned `.shared` tile, adds the tile's address to
//! the matrix descriptors, runs one `wgmma.mma_async` and stores each thread's D registers.
//!
//! The model's facts, from NVIDIA's PTX manual (and CUTLASS's `mma_sm90_desc.hpp` and
//! `mma_traits_sm90_gmma.hpp`, which agree): the canonical layouts as CuTe layouts in units of
//! T = 16 bytes / element size, for `c` = 1 (no swizzle), 2, 4, 8 (32-, 64-, 128-byte swizzle):
//! K-major `((8,m),(T,2k)):((1T,SBO),(1,LBO))` with no swizzle and `((8,m),(T,2)):((cT,SBO),(1,T))`
//! swizzled; MN-major `((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))` with no swizzle and
//! `((T,c,m),(8,k)):((1,T,LBO),(cT,SBO))` swizzled; then `Swizzle<log2 c,4,3>` on byte
//! addresses. D's element `i` of thread `32w + 4g + t` is row `16w + g + 8·((i/2) mod 2)`,
//! column `8·(i/4) + 2t + i mod 2`; A's register `r`, element `j` (p to a register) is row
//! `16w + g + 8·(r mod 2)`, column `p·t + j + 4p·(r/2)`.

use ptxr_tests::{opencl, Buffer, Launch, Random};

const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// The bytes of the shared-memory image and where B starts in it.
const IMAGE_BYTES: usize = 16384;
const B_OFFSET: usize = 8192;

#[derive(Clone, Copy, PartialEq)]
enum Type {
    F16,
    Bf16,
    Tf32,
    E4m3,
    S8,
}

impl Type {
    fn bytes(self) -> usize {
        match self {
            Type::F16 | Type::Bf16 => 2,
            Type::Tf32 => 4,
            Type::E4m3 | Type::S8 => 1,
        }
    }

    fn k(self) -> usize {
        32 / self.bytes()
    }

    fn name(self) -> &'static str {
        match self {
            Type::F16 => "f16",
            Type::Bf16 => "bf16",
            Type::Tf32 => "tf32",
            Type::E4m3 => "e4m3",
            Type::S8 => "s8",
        }
    }

    /// The bits of a small integer `value`, which every type holds exactly.
    fn bits(self, value: i64) -> u32 {
        match self {
            Type::F16 => u32::from(half::f16::from_f64(value as f64).to_bits()),
            Type::Bf16 => u32::from(half::bf16::from_f64(value as f64).to_bits()),
            Type::Tf32 => (value as f32).to_bits(),
            Type::S8 => value as u8 as u32,
            Type::E4m3 => {
                if value == 0 {
                    return 0;
                }
                // 1 sign bit, 4 exponent bits of bias 7, 3 mantissa bits, from the f32's fields.
                let bits = (value as f32).to_bits();
                assert_eq!(bits & 0xf_ffff, 0);
                (bits >> 31) << 7 | (((bits >> 23) & 0xff) - 127 + 7) << 3 | ((bits >> 20) & 7)
            }
        }
    }
}

/// One matrix in shared memory: its major-ness, swizzle (`c` 16-byte chunks to a row: 1, 2, 4
/// or 8) and byte offsets.
#[derive(Clone, Copy)]
struct Placement {
    mn_major: bool,
    chunks: usize,
    leading: usize,
    stride: usize,
}

impl Placement {
    /// A layout of an `mn`-by-K matrix of `element`s with the offsets chosen so that nothing
    /// overlaps.
    fn new(mn_major: bool, chunks: usize, mn: usize, element: Type) -> Placement {
        let row = 16 * chunks;
        let (leading, stride) = match (mn_major, chunks) {
            // Core matrices of 8 rows of 16 bytes: the two K chunks, then the next 8 rows.
            (false, 1) => (128, 256),
            (false, _) => (0, 8 * row),
            // MN-major, no swizzle: 16-byte groups of MN at SBO, groups of 8 k after all of them.
            (true, 1) => (mn * element.bytes() / 16 * 128, 128),
            // Swizzled: 8 k-rows of a swizzle atom, the next 8 k at SBO, MN atoms after the K ones.
            (true, _) => (element.k() / 8 * 8 * row, 8 * row),
        };
        Placement { mn_major, chunks, leading, stride }
    }

    /// The byte offset of element (mn, k), from the CuTe layouts of the header, swizzled.
    fn offset(&self, mn: usize, k: usize, element: Type) -> usize {
        let s = element.bytes();
        let t = 16 / s;
        let c = self.chunks;
        let elements = match (self.mn_major, c) {
            (false, 1) => (mn % 8) * t + (mn / 8) * self.stride / s + k % t + (k / t) * self.leading / s,
            (false, _) => (mn % 8) * c * t + (mn / 8) * self.stride / s + k % t + (k / t) * t,
            (true, 1) => mn % t + (mn / t) * self.stride / s + (k % 8) * t + (k / 8) * self.leading / s,
            (true, _) => {
                mn % t
                    + (mn / t % c) * t
                    + (mn / (c * t)) * self.leading / s
                    + (k % 8) * c * t
                    + (k / 8) * self.stride / s
            }
        };
        let byte = elements * s;
        byte ^ (((byte >> 7) & (c - 1)) << 4)
    }

    /// The descriptor without its start address's tile part: `start` is the byte offset in
    /// the tile.
    fn descriptor(&self, start: usize) -> u64 {
        let mode: u64 = match self.chunks {
            1 => 0,
            8 => 1,
            4 => 2,
            _ => 3,
        };
        (start as u64 >> 4) | (self.leading as u64 >> 4) << 16 | (self.stride as u64 >> 4) << 32 | mode << 62
    }
}

struct Case {
    n: usize,
    element: Type,
    /// D's type: `f32`, `f16` or `s32`.
    d: &'static str,
    /// A's placement, or `None` for A from registers.
    a: Option<Placement>,
    b: Placement,
    scale_d: bool,
    negate_a: bool,
    negate_b: bool,
    saturate: bool,
}

fn kernel(case: &Case, d_registers: usize) -> String {
    let element = case.element.name();
    let d_type = if case.d == "f16" { "b32" } else { case.d };
    let d_list = (0..d_registers).map(|i| format!("%d{i}")).collect::<Vec<_>>().join(",");
    let loads_d =
        (0..d_registers).map(|i| format!("    ld.global.{d_type} %d{i}, [%rd20+{}];\n", 4 * i)).collect::<String>();
    let stores_d =
        (0..d_registers).map(|i| format!("    st.global.{d_type} [%rd21+{}], %d{i};\n", 4 * i)).collect::<String>();
    let scale = |negate: bool| if negate { "-1" } else { "1" };
    let (a_operand, trans_a) = match case.a {
        Some(a) => ("%rd10".to_string(), format!(", {}", u8::from(a.mn_major))),
        None => ("{%a0,%a1,%a2,%a3}".to_string(), String::new()),
    };
    let immediates = match case.element {
        Type::F16 | Type::Bf16 => {
            format!(", {}, {}{trans_a}, {}", scale(case.negate_a), scale(case.negate_b), u8::from(case.b.mn_major))
        }
        Type::Tf32 | Type::E4m3 => format!(", {}, {}", scale(case.negate_a), scale(case.negate_b)),
        Type::S8 => String::new(),
    };
    let satfinite = if case.saturate { ".satfinite" } else { "" };
    let types = match case.element {
        Type::S8 => format!(".{}.s8.s8", case.d),
        _ => format!(".{}.{element}.{element}", case.d),
    };
    let instruction = format!(
        "wgmma.mma_async.sync.aligned.m64n{}k{}{satfinite}{types} {{{d_list}}}, {a_operand}, %rd11, %p1{immediates};",
        case.n,
        case.element.k()
    );
    format!(
        ".version 8.0
.target sm_90a
.address_size 64
.shared .align 1024 .b8 tile[{IMAGE_BYTES}];
.visible .entry test(.param .u64 image, .param .u64 descriptors, .param .u64 a_registers, .param .u64 c,
    .param .u64 out, .param .u64 flags)
{{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b32 %a<4>;
    .reg .{d_type} %d<{d_registers}>;
    .reg .b64 %rd<30>;
    ld.param.u64 %rd1, [image];
    ld.param.u64 %rd2, [descriptors];
    ld.param.u64 %rd3, [a_registers];
    ld.param.u64 %rd4, [c];
    ld.param.u64 %rd5, [out];
    ld.param.u64 %rd6, [flags];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, tile;
    mov.u32 %r3, %r1;
COPY:
    mul.wide.u32 %rd7, %r3, 4;
    add.u64 %rd8, %rd1, %rd7;
    ld.global.b32 %r4, [%rd8];
    shl.b32 %r5, %r3, 2;
    add.u32 %r6, %r2, %r5;
    st.shared.b32 [%r6], %r4;
    add.u32 %r3, %r3, 128;
    setp.lt.u32 %p2, %r3, {words};
    @%p2 bra COPY;
    bar.sync 0;
    shr.u32 %r7, %r2, 4;
    cvt.u64.u32 %rd9, %r7;
    ld.global.u64 %rd10, [%rd2];
    add.u64 %rd10, %rd10, %rd9;
    ld.global.u64 %rd11, [%rd2+8];
    add.u64 %rd11, %rd11, %rd9;
    mul.wide.u32 %rd12, %r1, 16;
    add.u64 %rd13, %rd3, %rd12;
    ld.global.v4.b32 {{%a0,%a1,%a2,%a3}}, [%rd13];
    mul.wide.u32 %rd14, %r1, {row_bytes};
    add.u64 %rd20, %rd4, %rd14;
    add.u64 %rd21, %rd5, %rd14;
{loads_d}    ld.global.u32 %r8, [%rd6];
    setp.ne.u32 %p1, %r8, 0;
    wgmma.fence.sync.aligned;
    {instruction}
    wgmma.commit_group.sync.aligned;
    wgmma.wait_group.sync.aligned 0;
{stores_d}    ret;
}}
",
        words = IMAGE_BYTES / 4,
        row_bytes = 4 * d_registers,
    )
}

/// Runs `case` with random inputs and checks every thread's D registers against the model.
fn check(case: &Case, seed: u64) {
    let mut random = Random::new(seed);
    let k = case.element.k();
    let n = case.n;
    let mut small = |low: i64, high: i64| low + i64::from(random.next_u32() % (high - low + 1) as u32);
    let (low, high) = if case.element == Type::S8 { (-128, 127) } else { (-3, 3) };
    let a: Vec<i64> = (0..64 * k).map(|_| small(low, high)).collect();
    let b: Vec<i64> = (0..k * n).map(|_| small(low, high)).collect();
    let d_registers = if case.d == "f16" { n / 4 } else { n / 2 };
    let c_values: Vec<i64> = (0..128 * n / 2)
        .map(|_| if case.saturate { i64::from(i32::MAX) - small(0, 3) } else { small(-50, 50) })
        .collect();

    let mut image = vec![0u8; IMAGE_BYTES];
    let mut place = |offset: usize, bits: u32| {
        for byte in 0..case.element.bytes() {
            image[offset + byte] = (bits >> (8 * byte)) as u8;
        }
    };
    if let Some(placement) = case.a {
        for row in 0..64 {
            for column in 0..k {
                place(placement.offset(row, column, case.element), case.element.bits(a[row * k + column]));
            }
        }
    }
    for row in 0..k {
        for column in 0..n {
            place(B_OFFSET + case.b.offset(column, row, case.element), case.element.bits(b[row * n + column]));
        }
    }
    let descriptors = vec![case.a.map_or(0, |a| a.descriptor(0)), case.b.descriptor(B_OFFSET)];

    // A's registers and C's, per thread.
    let per = 4 / case.element.bytes();
    let mut a_registers = vec![0u32; 128 * 4];
    let mut c_words = vec![0u32; 128 * d_registers];
    for thread in 0..128 {
        let (w, g, t) = (thread / 32, thread % 32 / 4, thread % 4);
        for r in 0..4 {
            for j in 0..per {
                let (row, column) = (16 * w + g + 8 * (r % 2), per * t + j + 4 * per * (r / 2));
                let bits = case.element.bits(a[row * k + column]) & (u32::MAX >> (32 - 8 * case.element.bytes()));
                a_registers[4 * thread + r] |= bits << (8 * case.element.bytes() * j);
            }
        }
        for i in 0..n / 2 {
            let value = c_values[thread * n / 2 + i];
            match case.d {
                "f32" => c_words[thread * d_registers + i] = (value as f32).to_bits(),
                "s32" => c_words[thread * d_registers + i] = value as i32 as u32,
                _ => {
                    c_words[thread * d_registers + i / 2] |=
                        (half::f16::from_f64(value as f64).to_bits() as u32) << (16 * (i % 2))
                }
            }
        }
    }

    let image_words: Vec<u32> =
        image.chunks(4).map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]])).collect();
    let buffers = [
        Buffer::u32s(&image_words),
        Buffer::new("u64", descriptors),
        Buffer::u32s(&a_registers),
        Buffer::u32s(&c_words),
        Buffer::zeroed("u32", 128 * d_registers),
        Buffer::u32s(&[u32::from(case.scale_d)]),
    ];
    let ptx = kernel(case, d_registers);
    let launch = Launch::threads(128);
    let sign = |negate: bool| if negate { -1 } else { 1 };
    // Intel's OpenCL CPU compiler takes minutes on the wider products (every thread computes its
    // accumulators from shuffles and shared loads, unrolled), so those run on the CPU only.
    let runs = if n <= 32 {
        opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD)
    } else {
        vec![("cpu", ptxr_tests::run_ok(&ptx, &launch, &buffers))]
    };
    for (device, result) in runs {
        let out = &result[4];
        for thread in 0..128 {
            let (w, g, t) = (thread / 32, thread % 32 / 4, thread % 4);
            for i in 0..n / 2 {
                let (row, column) = (16 * w + g + 8 * (i / 2 % 2), 8 * (i / 4) + 2 * t + i % 2);
                let product: i64 = (0..k)
                    .map(|inner| sign(case.negate_a) * a[row * k + inner] * sign(case.negate_b) * b[inner * n + column])
                    .sum();
                let old = if case.scale_d { c_values[thread * n / 2 + i] } else { 0 };
                let exact = old + product;
                let (expected, got) = match case.d {
                    "f32" => (u64::from((exact as f32).to_bits()), out[thread * d_registers + i]),
                    "s32" => {
                        let value =
                            if case.saturate { exact.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) } else { exact };
                        (u64::from(value as i32 as u32), out[thread * d_registers + i])
                    }
                    _ => (
                        u64::from(half::f16::from_f64(exact as f64).to_bits()),
                        out[thread * d_registers + i / 2] >> (16 * (i % 2)) & 0xffff,
                    ),
                };
                assert_eq!(
                    got, expected,
                    "{device}: thread {thread}, D element {i} (row {row}, column {column})\n{ptx}"
                );
            }
        }
    }
}

fn case(n: usize, element: Type, d: &'static str, a: Option<Placement>, b: Placement) -> Case {
    Case { n, element, d, a, b, scale_d: true, negate_a: false, negate_b: false, saturate: false }
}

#[test]
fn f16_through_every_swizzle_mode_of_k_major_operands() {
    for (seed, chunks) in [1usize, 2, 4, 8].into_iter().enumerate() {
        let a = Placement::new(false, chunks, 64, Type::F16);
        let b = Placement::new(false, [8, 1, 2, 4][seed], 64, Type::F16);
        check(&case(64, Type::F16, "f32", Some(a), b), seed as u64 + 1);
    }
}

#[test]
fn f16_with_mn_major_operands_and_f16_accumulators() {
    for (seed, chunks) in [1usize, 2, 4, 8].into_iter().enumerate() {
        // B's N of 64 f16 is one 128-byte row; narrower swizzles take several MN atoms.
        let a = Placement::new(true, chunks, 64, Type::F16);
        let b = Placement::new(true, [4, 8, 1, 2][seed], 64, Type::F16);
        check(&case(64, Type::F16, "f32", Some(a), b), seed as u64 + 10);
    }
    let b = Placement::new(true, 8, 16, Type::F16);
    check(&case(16, Type::F16, "f16", Some(Placement::new(false, 8, 64, Type::F16)), b), 20);
}

#[test]
fn a_from_registers_negated_scales_and_a_cleared_accumulator() {
    let b = Placement::new(true, 2, 8, Type::Bf16);
    let mut bf16 = case(8, Type::Bf16, "f32", None, b);
    bf16.negate_a = true;
    check(&bf16, 30);
    let mut f16 = case(128, Type::F16, "f32", None, Placement::new(false, 4, 128, Type::F16));
    f16.negate_b = true;
    f16.scale_d = false;
    check(&f16, 31);
}

#[test]
fn tf32_e4m3_and_s8() {
    let mut tf32 = case(
        24,
        Type::Tf32,
        "f32",
        Some(Placement::new(false, 4, 64, Type::Tf32)),
        Placement::new(false, 1, 24, Type::Tf32),
    );
    tf32.negate_b = true;
    check(&tf32, 40);
    check(&case(32, Type::Tf32, "f32", None, Placement::new(false, 8, 32, Type::Tf32)), 41);
    let mut e4m3 = case(
        32,
        Type::E4m3,
        "f32",
        Some(Placement::new(false, 8, 64, Type::E4m3)),
        Placement::new(false, 2, 32, Type::E4m3),
    );
    e4m3.negate_a = true;
    check(&e4m3, 42);
    check(&case(16, Type::E4m3, "f16", None, Placement::new(false, 1, 16, Type::E4m3)), 43);
    check(
        &case(
            32,
            Type::S8,
            "s32",
            Some(Placement::new(false, 1, 64, Type::S8)),
            Placement::new(false, 8, 32, Type::S8),
        ),
        44,
    );
    let mut saturating = case(16, Type::S8, "s32", None, Placement::new(false, 4, 16, Type::S8));
    saturating.saturate = true;
    check(&saturating, 45);
}
