//! `mma.sync` and `ldmatrix.sync` (ISA 7.8 sections 9.7.13.4.14 and 9.7.13.4.15) on the CPU
//! and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL, where
//! they are built from sub-group shuffles: the same kernels against the same models. Each lane
//! loads its fragments from an input buffer, the warp multiplies, and each lane stores its D
//! fragment. The test spreads whole matrices over the lanes with the manual's fragment tables
//! and computes the expected D with plain loops: exact integers; for floats, the products
//! (exact in `f64`) added to C in order of k in `f64` and rounded once to D's type, which is
//! the order ptxr documents for every target (`runtime/src/cooperative/matrix.rs`), with the
//! `half` crate for `.f16`/`.bf16` bits; `.f64` takes `f64` fused multiply-adds.
use half::{bf16, f16};
use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::Code;
use ptxr_tests::lane_kernel::{per_lane_kernel, register_list};
use ptxr_tests::opencl::Device;
use ptxr_tests::{opencl, Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

fn run_on(device: Device, ptx: &str, launch: &Launch<'_>, buffers: &[Buffer]) -> Vec<Vec<u64>> {
    opencl::run_ok_on(device, ptx, launch, buffers, OPENCL_CHILD)
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    F16,
    Bf16,
    Tf32,
    F32,
    S8,
    U8,
    S32,
    S4,
    U4,
    /// One bit: a product is the XOR (`.xor.popc`) or AND (`.and.popc`) of two bits.
    B1,
    /// The 8-bit floats (ISA 8.4, sm_89): four exponent bits (bias 7) and three mantissa bits,
    /// no infinities; five exponent bits (bias 15) and two mantissa bits.
    E4m3,
    E5m2,
}

/// The value of an 8-bit float with `exponent_bits` and `mantissa_bits` (bias 2^(e-1) - 1),
/// subnormals included; `None` for the encodings that are not finite numbers (E4M3's
/// S.1111.111, E5M2's whole top exponent).
fn float8_value(byte: u8, exponent_bits: u32, mantissa_bits: u32) -> Option<f64> {
    let top = (1u32 << exponent_bits) - 1;
    let exponent = (u32::from(byte) >> mantissa_bits) & top;
    let mantissa = u32::from(byte) & ((1 << mantissa_bits) - 1);
    let not_finite = if mantissa_bits == 3 { exponent == top && mantissa == 7 } else { exponent == top };
    if not_finite {
        return None;
    }
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let fraction = f64::from(mantissa) / f64::from(1u32 << mantissa_bits);
    let magnitude = if exponent == 0 {
        fraction * 2f64.powi(1 - bias)
    } else {
        (1.0 + fraction) * 2f64.powi(exponent as i32 - bias)
    };
    Some(if byte & 0x80 != 0 { -magnitude } else { magnitude })
}

impl Kind {
    fn per_register(self) -> usize {
        match self {
            Kind::F16 | Kind::Bf16 => 2,
            Kind::S8 | Kind::U8 | Kind::E4m3 | Kind::E5m2 => 4,
            Kind::S4 | Kind::U4 => 8,
            Kind::B1 => 32,
            Kind::Tf32 | Kind::F32 | Kind::S32 => 1,
        }
    }

    fn bits(self) -> u32 {
        32 / self.per_register() as u32
    }

    /// The bits of `value`, which is exact in this type; `.tf32` gets `noise` in the 13 low
    /// mantissa bits, which `mma` ignores.
    fn encode(self, value: f64, noise: u32) -> u32 {
        match self {
            Kind::F16 => u32::from(f16::from_f64(value).to_bits()),
            Kind::Bf16 => u32::from(bf16::from_f64(value).to_bits()),
            Kind::Tf32 => (value as f32).to_bits() | (noise & 0x1fff),
            Kind::F32 => (value as f32).to_bits(),
            Kind::S8 | Kind::U8 => value as i64 as u8 as u32,
            // `pack` keeps the low 4 bits (two's complement for `.s4`) or the one bit.
            Kind::S4 | Kind::U4 | Kind::B1 => value as i64 as u32,
            Kind::S32 => value as i64 as i32 as u32,
            // The one encoding of the value (zero's positive one), found among all 256.
            Kind::E4m3 | Kind::E5m2 => {
                let (exponent_bits, mantissa_bits) = if self == Kind::E4m3 { (4, 3) } else { (5, 2) };
                (0..=255u8)
                    .find(|&byte| float8_value(byte, exponent_bits, mantissa_bits) == Some(value))
                    .map(u32::from)
                    .unwrap_or_else(|| panic!("{value} is not an 8-bit float"))
            }
        }
    }

    fn random(self, random: &mut Random) -> f64 {
        let raw = random.next_u64();
        (match self {
            Kind::F16 | Kind::Bf16 | Kind::Tf32 | Kind::F32 | Kind::E4m3 => (raw % 21) as i64 - 10,
            // Every integer up to 8, and the even ones to 16, are E5M2 values.
            Kind::E5m2 => 2 * ((raw % 17) as i64 - 8),
            Kind::S8 => (raw % 256) as i64 - 128,
            Kind::U8 => (raw % 256) as i64,
            Kind::S32 => (raw % 200_001) as i64 - 100_000,
            Kind::S4 => (raw % 16) as i64 - 8,
            Kind::U4 => (raw % 16) as i64,
            Kind::B1 => (raw % 2) as i64,
        }) as f64
    }

    /// A random finite value of a float type from random bits, with exponents within 2^±20 of
    /// one (2^-10 to 2^3 for `.f16`), so that sums of products round (their order shows only in
    /// rare cases, which `Values::OrderProbe` builds).
    fn random_bits(self, random: &mut Random) -> f64 {
        let raw = random.next_u64();
        let sign = if raw & 1 == 0 { 1.0 } else { -1.0 };
        let exponent = ((raw >> 1) % 41) as i32 - 20;
        match self {
            Kind::F16 => {
                // Small enough that `.f16` sums of 16 products stay finite.
                let exponent = ((raw >> 1) % 14) as i32 - 10;
                let mantissa = 1.0 + ((raw >> 8) % 1024) as f64 / 1024.0;
                sign * mantissa * 2f64.powi(exponent)
            }
            Kind::Bf16 => sign * (1.0 + ((raw >> 8) % 128) as f64 / 128.0) * 2f64.powi(exponent),
            Kind::Tf32 => sign * (1.0 + ((raw >> 8) % 1024) as f64 / 1024.0) * 2f64.powi(exponent),
            Kind::F32 => sign * (1.0 + ((raw >> 8) % (1 << 23)) as f64 / f64::from(1 << 23)) * 2f64.powi(exponent),
            // Any finite encoding, subnormals and the largest values included.
            Kind::E4m3 | Kind::E5m2 => {
                let (exponent_bits, mantissa_bits) = if self == Kind::E4m3 { (4, 3) } else { (5, 2) };
                float8_value(raw as u8, exponent_bits, mantissa_bits).unwrap_or(0.0)
            }
            _ => self.random(random),
        }
    }
}

struct Form {
    spelling: &'static str,
    shape: (usize, usize, usize),
    d: Kind,
    a: Kind,
    b: Kind,
    c: Kind,
    saturate: bool,
    /// C's elements just inside the s32 range, so that the sums leave it.
    c_near_limits: bool,
    values: Values,
}

/// What the matrices hold.
#[derive(Clone, Copy, PartialEq)]
enum Values {
    /// Random small integers (floats too): every sum is exact.
    SmallIntegers,
    /// Floats from random bits: sums round.
    RandomBits,
    /// Every row of A and column of B is (2^-27, 2^-27, 2^-27, 1, 2^-12, 0, ...) and C is 0, so
    /// that D is 1 + 2^-24 + 3·2^-54, which `f64` cannot hold: added in order of k, the three
    /// small products first make it 1 + 2^-52 and then 1 + 2^-24 + 2^-52, rounded up to
    /// 1 + 2^-23 in `f32`; in any order that adds them after 1, they vanish and the tie rounds
    /// to 1.
    OrderProbe,
}

/// The order probe's element k of a row of A or column of B.
fn order_probe(k: usize) -> f64 {
    match k {
        0..=2 => 2f64.powi(-27),
        3 => 1.0,
        4 => 2f64.powi(-12),
        _ => 0.0,
    }
}

/// The manual's tables: row and column of element `i` of `lane`'s A, B and C/D fragments.
fn a_table(form: &Form, lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    match (form.shape, form.a) {
        ((16, 8, 16), Kind::F16 | Kind::Bf16) => (
            if matches!(i, 0 | 1 | 4 | 5) { group } else { group + 8 },
            thread * 2 + (i & 1) + if i < 4 { 0 } else { 8 },
        ),
        ((16, 8, 8), Kind::Tf32) => {
            (if i % 2 == 0 { group } else { group + 8 }, if i < 2 { thread } else { thread + 4 })
        }
        ((16, 8, 8), Kind::F16 | Kind::Bf16) => (if i < 2 { group } else { group + 8 }, thread * 2 + (i & 1)),
        ((16, 8, 4), Kind::Tf32) => (if i == 0 { group } else { group + 8 }, thread),
        ((8, 8, 16), Kind::S8 | Kind::U8) => (group, thread * 4 + i),
        ((16, 8, 16), Kind::S8 | Kind::U8 | Kind::E4m3 | Kind::E5m2) => {
            (if i < 4 { group } else { group + 8 }, thread * 4 + (i & 3))
        }
        ((16, 8, 32), Kind::S8 | Kind::U8 | Kind::E4m3 | Kind::E5m2) => {
            let row = if i < 4 || (8..12).contains(&i) { group } else { group + 8 };
            (row, thread * 4 + (i & 3) + if i < 8 { 0 } else { 16 })
        }
        // `.s4`/`.u4`: eight elements to a register.
        ((8, 8, 32), Kind::S4 | Kind::U4) => (group, thread * 8 + i),
        ((16, 8, 32), Kind::S4 | Kind::U4) => (if i < 8 { group } else { group + 8 }, thread * 8 + (i & 7)),
        ((16, 8, 64), Kind::S4 | Kind::U4) => {
            let row = if i < 8 || (16..24).contains(&i) { group } else { group + 8 };
            (row, thread * 8 + (i & 7) + if i < 16 { 0 } else { 32 })
        }
        // `.b1`: 32 elements to a register.
        ((8, 8, 128), Kind::B1) => (group, thread * 32 + i),
        ((16, 8, 128), Kind::B1) => (if i < 32 { group } else { group + 8 }, thread * 32 + (i & 31)),
        ((16, 8, 256), Kind::B1) => {
            let row = if i < 32 || (64..96).contains(&i) { group } else { group + 8 };
            (row, thread * 32 + (i & 31) + if i < 64 { 0 } else { 128 })
        }
        _ => unreachable!("no table for {}", form.spelling),
    }
}

fn b_table(form: &Form, lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    let row = match (form.shape, form.b) {
        ((16, 8, 16), Kind::F16 | Kind::Bf16) => thread * 2 + (i & 1) + if i < 2 { 0 } else { 8 },
        ((16, 8, 8), Kind::Tf32) => thread + 4 * i,
        ((16, 8, 32), Kind::S8 | Kind::U8 | Kind::E4m3 | Kind::E5m2) => {
            thread * 4 + (i & 3) + if i < 4 { 0 } else { 16 }
        }
        ((16, 8, 8), Kind::F16 | Kind::Bf16) => thread * 2 + i,
        ((16, 8, 4), Kind::Tf32) => thread,
        ((8, 8, 16) | (16, 8, 16), Kind::S8 | Kind::U8 | Kind::E4m3 | Kind::E5m2) => thread * 4 + i,
        ((8, 8, 32) | (16, 8, 32), Kind::S4 | Kind::U4) => thread * 8 + i,
        ((16, 8, 64), Kind::S4 | Kind::U4) => thread * 8 + (i & 7) + if i < 8 { 0 } else { 32 },
        ((8, 8, 128) | (16, 8, 128), Kind::B1) => thread * 32 + i,
        ((16, 8, 256), Kind::B1) => thread * 32 + (i & 31) + if i < 32 { 0 } else { 128 },
        _ => unreachable!("no table for {}", form.spelling),
    };
    (row, group)
}

fn accumulator_table(lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    (if i < 2 { group } else { group + 8 }, thread * 2 + (i & 1))
}

fn pack(registers: &mut [u32], kind: Kind, i: usize, bits: u32) {
    let mask = if kind.bits() == 32 { u32::MAX } else { (1 << kind.bits()) - 1 };
    registers[i / kind.per_register()] |= (bits & mask) << ((i % kind.per_register()) as u32 * kind.bits());
}

/// A kernel in which each thread loads `a + b + c` words, runs `form`, and stores `d` words.
fn kernel(form: &Form, counts: [usize; 4]) -> String {
    let [a, b, c, d] = counts;
    let instruction = format!(
        "{} {{{}}}, {{{}}}, {{{}}}, {{{}}};",
        form.spelling,
        register_list("d", d),
        register_list("a", a),
        register_list("b", b),
        register_list("c", c)
    );
    let ptx = per_lane_kernel(&[("a", a), ("b", b), ("c", c)], d, &instruction);
    if matches!(form.a, Kind::E4m3 | Kind::E5m2) {
        // The 8-bit float forms are ISA 8.4 and 8.7, for sm_89.
        ptx.replacen(".version 7.8\n.target sm_80", ".version 8.7\n.target sm_89", 1)
    } else {
        ptx
    }
}

/// D's bits for one element: `c` plus the products in order, exactly for integers, in `f64`
/// (where each product is exact) for floats, then wrapped, saturated or rounded to D's type.
fn expected_d(form: &Form, c: f64, products: impl Iterator<Item = (f64, f64)>) -> u32 {
    if form.d == Kind::S32 {
        // `.b1`: the bits' AND (`.and.popc`, also their product) or XOR (`.xor.popc`), so that
        // the sum is C plus the population count of the row's and column's combined bits.
        let xor = form.a == Kind::B1 && form.spelling.contains(".xor.popc");
        let product = |a: f64, b: f64| if xor { (a as i128) ^ (b as i128) } else { a as i128 * b as i128 };
        let exact = products.fold(c as i128, |sum, (a, b)| sum + product(a, b));
        return if form.saturate {
            exact.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32 as u32
        } else {
            exact as i32 as u32
        };
    }
    let sum = products.fold(c, |sum, (a, b)| sum + a * b);
    match form.d {
        Kind::F16 => u32::from(f16::from_f64(sum).to_bits()),
        _ => (sum as f32).to_bits(),
    }
}

/// Runs `form` on `warps` warps, each with its own random matrices, and checks every lane's D.
fn check(form: &Form, warps: usize, seed: u64) {
    check_on(Device::Cpu, form, warps, seed);
}

fn check_on(device: Device, form: &Form, warps: usize, seed: u64) {
    let (m, n, k) = form.shape;
    let counts = [
        m * k / 32 / form.a.per_register(),
        k * n / 32 / form.b.per_register(),
        m * n / 32 / form.c.per_register(),
        m * n / 32 / form.d.per_register(),
    ];
    let [a_count, b_count, c_count, d_count] = counts;
    let mut random = Random::new(seed);
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..warps {
        let value = |kind: Kind, random: &mut Random| match form.values {
            Values::SmallIntegers => kind.random(random),
            Values::RandomBits => kind.random_bits(random),
            Values::OrderProbe => 0.0,
        };
        let mut a: Vec<Vec<f64>> = (0..m).map(|_| (0..k).map(|_| value(form.a, &mut random)).collect()).collect();
        let mut b: Vec<Vec<f64>> = (0..k).map(|_| (0..n).map(|_| value(form.b, &mut random)).collect()).collect();
        if form.values == Values::OrderProbe {
            a.iter_mut().for_each(|row| row.iter_mut().enumerate().for_each(|(x, value)| *value = order_probe(x)));
            b.iter_mut().enumerate().for_each(|(x, row)| row.fill(order_probe(x)));
        }
        let c_value = |random: &mut Random| match (form.c_near_limits, random.next_u64() % 2) {
            (false, _) => value(form.c, random),
            (true, 0) => f64::from(i32::MAX - 1000),
            (true, _) => f64::from(i32::MIN + 1000),
        };
        let c: Vec<Vec<f64>> = (0..m).map(|_| (0..n).map(|_| c_value(&mut random)).collect()).collect();
        for lane in 0..32 {
            let mut registers = vec![0u32; a_count + b_count + c_count];
            for i in 0..m * k / 32 {
                let (row, column) = a_table(form, lane, i);
                let noise = random.next_u32();
                pack(&mut registers[..a_count], form.a, i, form.a.encode(a[row][column], noise));
            }
            for i in 0..k * n / 32 {
                let (row, column) = b_table(form, lane, i);
                let noise = random.next_u32();
                pack(&mut registers[a_count..a_count + b_count], form.b, i, form.b.encode(b[row][column], noise));
            }
            for i in 0..m * n / 32 {
                let (row, column) = accumulator_table(lane, i);
                pack(&mut registers[a_count + b_count..], form.c, i, form.c.encode(c[row][column], 0));
            }
            input.extend(registers);
            let mut d = vec![0u32; d_count];
            for i in 0..m * n / 32 {
                let (row, column) = accumulator_table(lane, i);
                let bits = expected_d(form, c[row][column], (0..k).map(|x| (a[row][x], b[x][column])));
                pack(&mut d, form.d, i, bits);
            }
            expected.extend(d);
        }
    }
    let ptx = kernel(form, counts);
    let threads = 32 * warps as u32;
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", expected.len())];
    let output = run_on(device, &ptx, &Launch::threads(threads), &buffers);
    for (index, (&got, &want)) in output[1].iter().zip(&expected).enumerate() {
        let (thread, register) = (index / d_count, index % d_count);
        assert_eq!(got, u64::from(want), "{}: thread {thread} d{register}", form.spelling);
    }
}

#[test]
fn mma_m16n8k16_f16_inputs_with_f32_accumulators() {
    let form = Form {
        spelling: "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
        shape: (16, 8, 16),
        d: Kind::F32,
        a: Kind::F16,
        b: Kind::F16,
        c: Kind::F32,
        saturate: false,
        c_near_limits: false,
        values: Values::SmallIntegers,
    };
    check(&form, 2, 1);
}

#[test]
fn mma_m16n8k16_f16_accumulators_and_bf16_inputs() {
    let f16_accumulators = Form {
        spelling: "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
        shape: (16, 8, 16),
        d: Kind::F16,
        a: Kind::F16,
        b: Kind::F16,
        c: Kind::F16,
        saturate: false,
        c_near_limits: false,
        values: Values::SmallIntegers,
    };
    check(&f16_accumulators, 1, 2);
    let bf16_inputs = Form {
        spelling: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        shape: (16, 8, 16),
        d: Kind::F32,
        a: Kind::Bf16,
        b: Kind::Bf16,
        c: Kind::F32,
        saturate: false,
        c_near_limits: false,
        values: Values::SmallIntegers,
    };
    check(&bf16_inputs, 1, 3);
}

#[test]
fn mma_m16n8k8_tf32() {
    let form = Form {
        spelling: "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        shape: (16, 8, 8),
        d: Kind::F32,
        a: Kind::Tf32,
        b: Kind::Tf32,
        c: Kind::F32,
        saturate: false,
        c_near_limits: false,
        values: Values::SmallIntegers,
    };
    check(&form, 1, 4);
}

#[test]
fn mma_m16n8k32_eight_bit_integers_wrap_or_saturate() {
    let signed = Form {
        spelling: "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32",
        shape: (16, 8, 32),
        d: Kind::S32,
        a: Kind::S8,
        b: Kind::S8,
        c: Kind::S32,
        saturate: false,
        c_near_limits: false,
        values: Values::SmallIntegers,
    };
    check(&signed, 2, 5);
    let mixed = Form {
        spelling: "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
        a: Kind::U8,
        saturate: true,
        ..signed
    };
    check(&mixed, 1, 6);
}

/// Every sub-byte shape: `.s4`/`.u4` (mixed signedness too) wrapping and with `.satfinite` near
/// the `.s32` limits, and `.b1` with `.xor.popc` and `.and.popc`.
fn sub_byte_families() -> Vec<(Form, usize, u64)> {
    use Kind::{B1, S32, S4, U4};
    let near_limits = |form: Form, saturate: bool| Form { c_near_limits: true, saturate, ..form };
    vec![
        (family("mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32", (8, 8, 32), S32, S4, S4, S32), 2, 41),
        (family("mma.sync.aligned.m8n8k32.row.col.s32.u4.s4.s32", (8, 8, 32), S32, U4, S4, S32), 1, 42),
        (
            near_limits(
                family("mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.u4.s32", (8, 8, 32), S32, U4, U4, S32),
                true,
            ),
            1,
            43,
        ),
        (family("mma.sync.aligned.m16n8k32.row.col.s32.s4.u4.s32", (16, 8, 32), S32, S4, U4, S32), 1, 44),
        (
            near_limits(
                family("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s4.s4.s32", (16, 8, 32), S32, S4, S4, S32),
                true,
            ),
            1,
            45,
        ),
        (family("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", (16, 8, 64), S32, S4, S4, S32), 2, 46),
        (
            near_limits(
                family("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32", (16, 8, 64), S32, U4, U4, S32),
                true,
            ),
            1,
            47,
        ),
        (
            near_limits(
                family("mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32", (16, 8, 64), S32, U4, U4, S32),
                false,
            ),
            1,
            48,
        ),
        (family("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc", (8, 8, 128), S32, B1, B1, S32), 2, 49),
        (family("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc", (8, 8, 128), S32, B1, B1, S32), 1, 50),
        (family("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.xor.popc", (16, 8, 128), S32, B1, B1, S32), 1, 51),
        (family("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc", (16, 8, 128), S32, B1, B1, S32), 1, 52),
        (family("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc", (16, 8, 256), S32, B1, B1, S32), 1, 53),
        (family("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc", (16, 8, 256), S32, B1, B1, S32), 2, 54),
    ]
}

#[test]
fn mma_sub_byte_integers_and_single_bits() {
    for (form, warps, seed) in sub_byte_families() {
        check(&form, warps, seed);
    }
}

#[test]
fn spirv_mma_sub_byte_integers_and_single_bits() {
    if opencl::available() {
        for (form, warps, seed) in sub_byte_families() {
            check_on(Device::OpenCl, &form, warps, seed);
        }
    }
}

/// Every sub-byte form compiles for every GPU target, each artefact passing its vendor's check,
/// and on NVPTX for the oldest architecture the ISA names for it (sm_75 for `.m8n8k32` and
/// `.m8n8k128` with `.xor.popc`, sm_80 for the `.m16n8` shapes and `.and.popc`), which ptxas
/// assembles; just below that it is E0302.
#[test]
fn mma_sub_byte_forms_compile_for_the_gpus() {
    let Some(validators) = ptxr_tests::vendor_checks::Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-mma-sub-byte-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    for (index, (form, _, _)) in sub_byte_families().into_iter().enumerate() {
        let (m, n, k) = form.shape;
        let counts = [
            m * k / 32 / form.a.per_register(),
            k * n / 32 / form.b.per_register(),
            m * n / 32 / form.c.per_register(),
            m * n / 32 / form.d.per_register(),
        ];
        let source = kernel(&form, counts);
        for target in ["nvptx", "spirv", "amdgpu"] {
            let ptxr_tests::vendor_checks::Compiled::Artefact(artefact) =
                ptxr_tests::vendor_checks::compile(&source, target)
            else {
                panic!("{} does not compile for {target}", form.spelling)
            };
            let name = format!("mma-sub-byte{index}");
            if let Err(message) = validators.check(target, &name, &source, &artefact, &scratch) {
                panic!("{} on {target}: {message}", form.spelling);
            }
        }
        let oldest = if m == 8 && !form.spelling.contains(".and.popc") { 75 } else { 80 };
        let for_arch = |arch: u32| {
            let target =
                describe("nvptx", Some(&format!("sm_{arch}")), false).unwrap_or_else(|error| panic!("{error}"));
            compile_source(&source, "kernel", &CompileOptions { target, emit: None, optimization: 2 })
        };
        let oldest_ptx =
            for_arch(oldest).unwrap_or_else(|failure| panic!("{} on sm_{oldest}: {failure:?}", form.spelling));
        let text = String::from_utf8_lossy(&oldest_ptx.bytes);
        assert!(text.contains("mma.sync.aligned"), "{} on sm_{oldest}:\n{text}", form.spelling);
        if let Some(verdict) = ptxr_tests::vendor_checks::ptxas_accepts(
            &oldest_ptx.bytes,
            &format!("sm_{oldest}"),
            &format!("mma-sub-byte-oldest{index}"),
        ) {
            verdict.unwrap_or_else(|message| panic!("{} on sm_{oldest}: ptxas: {message}", form.spelling));
        }
        let below = if oldest == 75 { 72 } else { 75 };
        match for_arch(below) {
            Err(Failure::Diagnostics(diagnostics)) => assert!(
                diagnostics.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget),
                "{} on sm_{below}: {diagnostics:?}",
                form.spelling
            ),
            other => panic!("{} on sm_{below}: {:?}", form.spelling, other.map(|_| ())),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The 8-bit float forms compile for every GPU target, each artefact passing its vendor's
/// check; NVPTX's for sm_89 names the form and ptxas assembles it, and on sm_86 it is E0302.
#[test]
fn mma_float8_forms_compile_for_the_gpus() {
    let Some(validators) = ptxr_tests::vendor_checks::Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-mma-float8-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let float8 = every_family().into_iter().filter(|(form, _, _)| matches!(form.a, Kind::E4m3 | Kind::E5m2));
    for (index, (form, _, _)) in float8.enumerate() {
        let (m, n, k) = form.shape;
        let counts = [
            m * k / 32 / form.a.per_register(),
            k * n / 32 / form.b.per_register(),
            m * n / 32 / form.c.per_register(),
            m * n / 32 / form.d.per_register(),
        ];
        let source = kernel(&form, counts);
        for target in ["nvptx", "spirv", "amdgpu"] {
            let ptxr_tests::vendor_checks::Compiled::Artefact(artefact) =
                ptxr_tests::vendor_checks::compile(&source, target)
            else {
                panic!("{} does not compile for {target}", form.spelling)
            };
            if let Err(message) = validators.check(target, &format!("mma-float8-{index}"), &source, &artefact, &scratch)
            {
                panic!("{} on {target}: {message}", form.spelling);
            }
        }
        let for_arch = |arch: &str| {
            let target = describe("nvptx", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
            compile_source(&source, "kernel", &CompileOptions { target, emit: None, optimization: 2 })
        };
        let ptx = for_arch("sm_89").unwrap_or_else(|failure| panic!("{} on sm_89: {failure:?}", form.spelling));
        let text = String::from_utf8_lossy(&ptx.bytes);
        assert!(text.contains(form.spelling), "{} on sm_89:\n{text}", form.spelling);
        match for_arch("sm_86") {
            Err(Failure::Diagnostics(diagnostics)) => assert!(
                diagnostics.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget),
                "{} on sm_86: {diagnostics:?}",
                form.spelling
            ),
            other => panic!("{} on sm_86: {:?}", form.spelling, other.map(|_| ())),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

fn family(spelling: &'static str, shape: (usize, usize, usize), d: Kind, a: Kind, b: Kind, c: Kind) -> Form {
    Form { spelling, shape, d, a, b, c, saturate: false, c_near_limits: false, values: Values::SmallIntegers }
}

/// One form of every shape and type family that ptxr computes, with the number of warps and
/// the seed to run it with: small integer values (exact sums), random float bits (rounded
/// sums, whose order shows), and 32-bit wrapping and saturation.
fn every_family() -> Vec<(Form, usize, u64)> {
    use Kind::{Bf16, E4m3, E5m2, Tf32, F16, F32, S32, S8, U8};
    let rounding = |form: Form| Form { values: Values::RandomBits, ..form };
    let near_limits = |form: Form, saturate: bool| Form { c_near_limits: true, saturate, ..form };
    vec![
        (family("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", (16, 8, 16), F32, F16, F16, F32), 2, 1),
        (rounding(family("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", (16, 8, 16), F32, F16, F16, F32)), 1, 21),
        (rounding(family("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", (16, 8, 16), F16, F16, F16, F16)), 1, 22),
        (
            rounding(family("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", (16, 8, 16), F32, Bf16, Bf16, F32)),
            1,
            23,
        ),
        (rounding(family("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", (16, 8, 8), F32, F16, F16, F32)), 1, 24),
        (rounding(family("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", (16, 8, 8), F16, F16, F16, F16)), 1, 25),
        (
            rounding(family("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", (16, 8, 8), F32, Bf16, Bf16, F32)),
            1,
            26,
        ),
        (
            rounding(family("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", (16, 8, 4), F32, Tf32, Tf32, F32)),
            1,
            27,
        ),
        (
            rounding(family("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", (16, 8, 8), F32, Tf32, Tf32, F32)),
            2,
            28,
        ),
        (family("mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", (8, 8, 16), S32, S8, U8, S32), 1, 29),
        (
            near_limits(
                family("mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.u8.s32", (8, 8, 16), S32, U8, U8, S32),
                true,
            ),
            1,
            30,
        ),
        (family("mma.sync.aligned.m16n8k16.row.col.s32.u8.s8.s32", (16, 8, 16), S32, U8, S8, S32), 1, 31),
        (
            near_limits(
                family("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32", (16, 8, 16), S32, S8, S8, S32),
                false,
            ),
            1,
            32,
        ),
        (family("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", (16, 8, 32), S32, S8, S8, S32), 2, 5),
        (
            near_limits(
                family("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32", (16, 8, 32), S32, U8, U8, S32),
                true,
            ),
            1,
            33,
        ),
        (
            near_limits(
                family("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", (16, 8, 32), S32, S8, U8, S32),
                false,
            ),
            1,
            34,
        ),
        // The 8-bit floats: exact sums, and any finite encodings (subnormals, the largest) summed
        // into `.f32`; mixed formats; ISA 8.7's `.m16n8k16` and `.f16` accumulators.
        (family("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", (16, 8, 32), F32, E4m3, E4m3, F32), 1, 35),
        (
            rounding(family("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", (16, 8, 32), F32, E4m3, E5m2, F32)),
            2,
            36,
        ),
        (
            rounding(family("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32", (16, 8, 32), F32, E5m2, E5m2, F32)),
            1,
            37,
        ),
        (family("mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16", (16, 8, 16), F16, E4m3, E4m3, F16), 1, 38),
        (family("mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16", (16, 8, 32), F16, E5m2, E4m3, F16), 1, 39),
        (
            rounding(family("mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e4m3.f32", (16, 8, 16), F32, E5m2, E4m3, F32)),
            1,
            40,
        ),
    ]
}

#[test]
fn mma_every_shape_and_type_family() {
    for (form, warps, seed) in every_family() {
        check(&form, warps, seed);
    }
}

/// The documented order of accumulation (C, then the products in order of k, in `f64`) decides
/// D's last bit; see [`Values::OrderProbe`].
fn sums_in_order_of_k(device: Device) {
    let form = Form {
        values: Values::OrderProbe,
        ..family(
            "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
            (16, 8, 8),
            Kind::F32,
            Kind::Bf16,
            Kind::Bf16,
            Kind::F32,
        )
    };
    let d = expected_d(&form, 0.0, (0..8).map(|k| (order_probe(k), order_probe(k))));
    assert_eq!(d, (1.0f32 + f32::EPSILON).to_bits(), "the model adds in order of k");
    check_on(device, &form, 1, 0);
}

#[test]
fn mma_sums_in_order_of_k() {
    sums_in_order_of_k(Device::Cpu);
}

#[test]
fn spirv_mma_sums_in_order_of_k() {
    if opencl::available() {
        sums_in_order_of_k(Device::OpenCl);
    }
}

/// `.m8n8k4`'s tables (the manual's section on `mma.m8n8k4` with `.f16`): each quad pair, lanes
/// `4q..4q+3` and `16+4q..16+4q+3`, computes its own 8×8×4 product.
fn m8n8k4_table(operand: char, kind: Kind, row_major: bool, lane: usize, i: usize) -> (usize, usize) {
    let high = if lane < 16 { 0 } else { 4 };
    match (operand, row_major, kind) {
        ('a', true, _) => (lane % 4 + high, i),
        ('a', false, _) => (i % 4 + high, lane % 4),
        ('b', true, _) => (lane % 4, i + high),
        ('b', false, _) => (i, lane % 4 + high),
        (_, _, Kind::F16) => (lane % 4 + high, i),
        _ => ((lane & 1) + (i & 2) + high, (i & 4) + (lane & 2) + (i & 1)),
    }
}

fn check_m8n8k4(device: Device, spelling: &'static str, a_row: bool, b_row: bool, d: Kind, c: Kind, seed: u64) {
    let form = Form {
        spelling,
        shape: (8, 8, 4),
        d,
        a: Kind::F16,
        b: Kind::F16,
        c,
        saturate: false,
        c_near_limits: false,
        values: Values::RandomBits,
    };
    let counts = [2, 2, 8 / c.per_register(), 8 / d.per_register()];
    let mut random = Random::new(seed);
    let products: Vec<_> = (0..4)
        .map(|_| {
            let mut value = |kind: Kind| kind.random_bits(&mut random);
            let a: Vec<Vec<f64>> = (0..8).map(|_| (0..4).map(|_| value(Kind::F16)).collect()).collect();
            let b: Vec<Vec<f64>> = (0..4).map(|_| (0..8).map(|_| value(Kind::F16)).collect()).collect();
            let c_matrix: Vec<Vec<f64>> = (0..8).map(|_| (0..8).map(|_| value(c)).collect()).collect();
            (a, b, c_matrix)
        })
        .collect();
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for lane in 0..32 {
        let (a, b, c_matrix) = &products[(lane % 16) / 4];
        let mut registers = vec![0u32; 4 + counts[2]];
        for i in 0..4 {
            let (row, column) = m8n8k4_table('a', Kind::F16, a_row, lane, i);
            pack(&mut registers[..2], Kind::F16, i, Kind::F16.encode(a[row][column], 0));
            let (row, column) = m8n8k4_table('b', Kind::F16, b_row, lane, i);
            pack(&mut registers[2..4], Kind::F16, i, Kind::F16.encode(b[row][column], 0));
        }
        let mut d_registers = vec![0u32; counts[3]];
        for i in 0..8 {
            let (row, column) = m8n8k4_table('c', c, true, lane, i);
            pack(&mut registers[4..], c, i, c.encode(c_matrix[row][column], 0));
            let (row, column) = m8n8k4_table('d', d, true, lane, i);
            let bits = expected_d(&form, c_matrix[row][column], (0..4).map(|x| (a[row][x], b[x][column])));
            pack(&mut d_registers, d, i, bits);
        }
        input.extend(registers);
        expected.extend(d_registers);
    }
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", expected.len())];
    let output = run_on(device, &kernel(&form, counts), &Launch::threads(32), &buffers);
    for (index, (&got, &want)) in output[1].iter().zip(&expected).enumerate() {
        assert_eq!(got, u64::from(want), "{spelling}: thread {} d{}", index / counts[3], index % counts[3]);
    }
}

fn m8n8k4_in_every_layout(device: Device) {
    check_m8n8k4(device, "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", true, false, Kind::F32, Kind::F32, 8);
    check_m8n8k4(device, "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16", false, true, Kind::F16, Kind::F16, 9);
    check_m8n8k4(device, "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f16", true, true, Kind::F32, Kind::F16, 10);
    check_m8n8k4(device, "mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f32", false, false, Kind::F32, Kind::F32, 11);
}

#[test]
fn mma_m8n8k4_quad_pairs_in_every_layout() {
    m8n8k4_in_every_layout(Device::Cpu);
}

/// `ldmatrix` from shared memory: lane `l` stores row `l` (eight `.b16`) of four 8×8 matrices,
/// then every lane gives the address of that row: a shared one, or a generic one for the forms
/// without `.shared`.
/// `.m8n8k4` on `.f64`, by the manual's table: lane `l` holds A's element (`l / 4`, `l % 4`),
/// B's (`l % 4`, `l / 4`), and C's and D's (`l / 4`, `2·(l % 4) + i`) for `i` in 0 and 1.
fn check_m8n8k4_f64(device: Device, a: &[[f64; 4]; 8], b: &[[f64; 8]; 4], c: &[[f64; 8]; 8], expected: &[[f64; 8]; 8]) {
    let mut input = Vec::new();
    for lane in 0..32 {
        let (group, thread) = (lane / 4, lane % 4);
        input.extend([a[group][thread], b[thread][group], c[group][2 * thread], c[group][2 * thread + 1]]);
    }
    let ptx = ".version 7.8\n.target sm_80\n.address_size 64\n\
        .visible .entry test(.param .u64 input, .param .u64 output)\n{\n\
        .reg .f64 %fd<7>;\n.reg .b64 %rd<6>;\n.reg .b32 %lane;\n\
        ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %lane, %laneid;\n\
        mul.wide.u32 %rd3, %lane, 32;\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %lane, 16;\nadd.u64 %rd5, %rd2, %rd3;\n\
        ld.global.f64 %fd1, [%rd4];\nld.global.f64 %fd2, [%rd4+8];\nld.global.f64 %fd3, [%rd4+16];\nld.global.f64 %fd4, [%rd4+24];\n\
        mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4};\n\
        st.global.f64 [%rd5], %fd5;\nst.global.f64 [%rd5+8], %fd6;\nret;\n}\n";
    let result = run_on(device, ptx, &Launch::threads(32), &[Buffer::f64s(&input), Buffer::zeroed("f64", 64)]);
    for lane in 0..32 {
        let (group, thread) = (lane / 4, lane % 4);
        for i in 0..2 {
            let got = f64::from_bits(result[1][2 * lane + i]);
            let want = expected[group][2 * thread + i];
            assert_eq!(got.to_bits(), want.to_bits(), "lane {lane} element {i}: got {got:e}, expected {want:e}");
        }
    }
}

fn m8n8k4_f64_multiplies_the_warps_fragments(device: Device) {
    let mut random = Random::new(81);
    // Small integers: every order of summation gives the exact result.
    let mut integer = || ((random.next_u64() % 41) as i64 - 20) as f64;
    let a: [[f64; 4]; 8] = std::array::from_fn(|_| std::array::from_fn(|_| integer()));
    let b: [[f64; 8]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| integer()));
    let c: [[f64; 8]; 8] = std::array::from_fn(|_| std::array::from_fn(|_| integer()));
    let exact: [[f64; 8]; 8] = std::array::from_fn(|row| {
        std::array::from_fn(|column| c[row][column] + (0..4).map(|k| a[row][k] * b[k][column]).sum::<f64>())
    });
    check_m8n8k4_f64(device, &a, &b, &c, &exact);
    // Random magnitudes: ptxr adds the products to C in order of k, each by a fused
    // multiply-add (PTX leaves the rounding between products to the hardware).
    let mut value = || {
        let mantissa = (random.next_u64() >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
        let exponent = (random.next_u64() % 40) as i32 - 20;
        let sign = if random.next_u64() & 1 == 1 { -1.0 } else { 1.0 };
        sign * mantissa * 2f64.powi(exponent)
    };
    let a: [[f64; 4]; 8] = std::array::from_fn(|_| std::array::from_fn(|_| value()));
    let b: [[f64; 8]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| value()));
    let c: [[f64; 8]; 8] = std::array::from_fn(|_| std::array::from_fn(|_| value()));
    let fused: [[f64; 8]; 8] = std::array::from_fn(|row| {
        std::array::from_fn(|column| (0..4).fold(c[row][column], |sum, k| a[row][k].mul_add(b[k][column], sum)))
    });
    check_m8n8k4_f64(device, &a, &b, &c, &fused);
}

#[test]
fn mma_m8n8k4_f64_multiplies_the_warps_fragments() {
    m8n8k4_f64_multiplies_the_warps_fragments(Device::Cpu);
}

/// Built from sub-group shuffles and `fma` on SPIR-V: the same bits as the model (and the CPU).
#[test]
fn spirv_mma_m8n8k4_f64_multiplies_the_warps_fragments() {
    if opencl::available() {
        m8n8k4_f64_multiplies_the_warps_fragments(Device::OpenCl);
    }
}

/// The manual's `.f64` tables for `.m16n8k4`, `.m16n8k8` and `.m16n8k16` ("Matrix Fragments for
/// mma.m16n8kK" with `.f64`): row and column of A's element `i` in `lane`'s fragment.
fn f64_a_table(k: usize, lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    match k {
        4 => (if i == 0 { group } else { group + 8 }, thread),
        8 => (if i % 2 == 0 { group } else { group + 8 }, if i < 2 { thread } else { thread + 4 }),
        _ => {
            let column = if i % 2 == 0 { i * 2 + thread } else { i * 2 - 2 + thread };
            (if i % 2 == 0 { group } else { group + 8 }, column)
        }
    }
}

/// B's element `i` (`.f64`, M = 16): row `threadID_in_group + 4·i`, column `groupID`.
fn f64_b_table(lane: usize, i: usize) -> (usize, usize) {
    (lane % 4 + 4 * i, lane / 4)
}

/// `.m16n8k4`, `.m16n8k8` or `.m16n8k16` on `.f64` (ISA 7.8, sm_90): each lane loads its
/// fragments from the input by the manual's tables, the warp multiplies, and each lane's D must
/// be C's element plus the K products added in order of k by fused multiply-adds.
fn check_m16n8_f64(device: Device, k: usize, a: &[Vec<f64>], b: &[Vec<f64>], c: &[[f64; 8]; 16]) {
    let (a_count, b_count) = (16 * k / 32, k * 8 / 32);
    let words = a_count + b_count + 4;
    let mut input = Vec::new();
    for lane in 0..32 {
        input.extend((0..a_count).map(|i| f64_a_table(k, lane, i)).map(|(row, column)| a[row][column]));
        input.extend((0..b_count).map(|i| f64_b_table(lane, i)).map(|(row, column)| b[row][column]));
        input.extend((0..4).map(|i| accumulator_table(lane, i)).map(|(row, column)| c[row][column]));
    }
    let list = |first: usize, count: usize| (first..first + count).map(|i| format!("%fd{i}")).collect::<Vec<_>>();
    let loads = (0..words).map(|i| format!("ld.global.f64 %fd{i}, [%rd4+{}];\n", 8 * i)).collect::<String>();
    let stores = (0..4).map(|i| format!("st.global.f64 [%rd5+{}], %fd{};\n", 8 * i, words + i)).collect::<String>();
    let ptx = format!(
        ".version 7.8\n.target sm_90\n.address_size 64\n\
         .visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
         .reg .f64 %fd<{registers}>;\n.reg .b64 %rd<6>;\n.reg .b32 %lane;\n\
         ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %lane, %laneid;\n\
         mul.wide.u32 %rd3, %lane, {stride};\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %lane, 32;\nadd.u64 %rd5, %rd2, %rd3;\n\
         {loads}mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64 {{{d}}}, {{{a}}}, {{{b}}}, {{{c}}};\n{stores}ret;\n}}\n",
        registers = words + 4,
        stride = 8 * words,
        d = list(words, 4).join(", "),
        a = list(0, a_count).join(", "),
        b = list(a_count, b_count).join(", "),
        c = list(a_count + b_count, 4).join(", "),
    );
    let result = run_on(device, &ptx, &Launch::threads(32), &[Buffer::f64s(&input), Buffer::zeroed("f64", 128)]);
    for lane in 0..32 {
        for i in 0..4 {
            let (row, column) = accumulator_table(lane, i);
            let want = (0..k).fold(c[row][column], |sum, x| a[row][x].mul_add(b[x][column], sum));
            let got = f64::from_bits(result[1][4 * lane + i]);
            assert_eq!(got.to_bits(), want.to_bits(), "m16n8k{k} lane {lane} d{i}: got {got:e}, expected {want:e}");
        }
    }
}

fn m16n8_f64_shapes(device: Device) {
    let mut random = Random::new(1681);
    for k in [4, 8, 16] {
        // Small integers (every order of summation gives the exact sum), then random magnitudes,
        // where the order of the fused multiply-adds decides the last bits.
        for integers in [true, false] {
            let mut value = || {
                if integers {
                    ((random.next_u64() % 41) as i64 - 20) as f64
                } else {
                    let mantissa = (random.next_u64() >> 11) as f64 / (1u64 << 53) as f64 + 0.5;
                    let exponent = (random.next_u64() % 40) as i32 - 20;
                    let sign = if random.next_u64() & 1 == 1 { -1.0 } else { 1.0 };
                    sign * mantissa * 2f64.powi(exponent)
                }
            };
            let a: Vec<Vec<f64>> = (0..16).map(|_| (0..k).map(|_| value()).collect()).collect();
            let b: Vec<Vec<f64>> = (0..k).map(|_| (0..8).map(|_| value()).collect()).collect();
            let c: [[f64; 8]; 16] = std::array::from_fn(|_| std::array::from_fn(|_| value()));
            check_m16n8_f64(device, k, &a, &b, &c);
        }
    }
}

#[test]
fn mma_m16n8_f64_shapes_multiply_the_warps_fragments() {
    m16n8_f64_shapes(Device::Cpu);
}

#[test]
fn spirv_mma_m16n8_f64_shapes_multiply_the_warps_fragments() {
    if opencl::available() {
        m16n8_f64_shapes(Device::OpenCl);
    }
}

/// The `.f64` `.m16n8` shapes compile for every GPU target, each artefact passing its vendor's
/// check; on NVPTX for sm_90, which ptxas assembles, and just below it (sm_89) they are E0302.
#[test]
fn mma_m16n8_f64_shapes_compile_for_the_gpus() {
    let Some(validators) = ptxr_tests::vendor_checks::Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-mma-f64-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    for k in [4usize, 8, 16] {
        let (a, b) = (16 * k / 32, k * 8 / 32);
        let list = |first: usize, count: usize| {
            (first..first + count).map(|i| format!("%fd{i}")).collect::<Vec<_>>().join(", ")
        };
        let source = format!(
            ".version 7.8\n.target sm_90\n.address_size 64\n\
             .visible .entry test(.param .u64 output)\n{{\n.reg .f64 %fd<20>;\n.reg .b64 %rd<2>;\n\
             mma.sync.aligned.m16n8k{k}.row.col.f64.f64.f64.f64 {{{d}}}, {{{a}}}, {{{b}}}, {{{c}}};\n\
             ld.param.u64 %rd1, [output];\nst.global.f64 [%rd1], %fd16;\nst.global.f64 [%rd1+8], %fd19;\nret;\n}}\n",
            d = list(16, 4),
            a = list(0, a),
            b = list(8, b),
            c = list(12, 4),
        );
        for target in ["nvptx", "spirv", "amdgpu"] {
            let ptxr_tests::vendor_checks::Compiled::Artefact(artefact) =
                ptxr_tests::vendor_checks::compile(&source, target)
            else {
                panic!("m16n8k{k} .f64 does not compile for {target}")
            };
            if let Err(message) = validators.check(target, &format!("mma-f64-k{k}"), &source, &artefact, &scratch) {
                panic!("m16n8k{k} .f64 on {target}: {message}");
            }
        }
        let for_arch = |arch: u32| {
            let target =
                describe("nvptx", Some(&format!("sm_{arch}")), false).unwrap_or_else(|error| panic!("{error}"));
            compile_source(&source, "kernel", &CompileOptions { target, emit: None, optimization: 2 })
        };
        let ptx = for_arch(90).unwrap_or_else(|failure| panic!("m16n8k{k} .f64 on sm_90: {failure:?}"));
        let text = String::from_utf8_lossy(&ptx.bytes);
        assert!(text.contains(&format!("mma.sync.aligned.m16n8k{k}.row.col.f64")), "sm_90:\n{text}");
        if let Some(verdict) = ptxr_tests::vendor_checks::ptxas_accepts(&ptx.bytes, "sm_90", &format!("mma-f64-{k}")) {
            verdict.unwrap_or_else(|message| panic!("m16n8k{k} .f64 on sm_90: ptxas: {message}"));
        }
        match for_arch(89) {
            Err(Failure::Diagnostics(diagnostics)) => assert!(
                diagnostics.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget),
                "m16n8k{k} .f64 on sm_89: {diagnostics:?}"
            ),
            other => panic!("m16n8k{k} .f64 on sm_89: {:?}", other.map(|_| ())),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

fn ldmatrix_kernel(spelling: &str, matrices: usize) -> String {
    let list = (0..matrices).map(|i| format!("%d{i}")).collect::<Vec<_>>().join(", ");
    let stores = (0..matrices).map(|i| format!("    st.global.b32 [%rd6+{}], %d{i};\n", 4 * i)).collect::<String>();
    format!(
        ".version 7.8
.target sm_80
.address_size 64
.shared .align 16 .b8 rows[512];
.visible .entry test(.param .u64 input, .param .u64 output)
{{
    .reg .b32 %d<{matrices}>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<11>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.v2.b64 {{%rd5, %rd7}}, [%rd4];
    mov.u32 %r2, rows;
    mad.lo.u32 %r3, %r1, 16, %r2;
    st.shared.v2.b64 [%r3], {{%rd5, %rd7}};
    cvt.u64.u32 %rd9, %r3;
    cvta.shared.u64 %rd10, %rd9;
    {spelling} {{{list}}}, [{address}];
    mul.wide.u32 %rd3, %r1, {out_stride};
    add.u64 %rd6, %rd2, %rd3;
{stores}    ret;
}}
",
        out_stride = 4 * matrices,
        address = if spelling.contains(".shared") { "%r3" } else { "%rd10" },
    )
}

fn ldmatrix_forms(device: Device) {
    // Matrix i, row r, column c holds 1000·i + 10·r + c + 7.
    let element = |i: usize, r: usize, c: usize| (1000 * i + 10 * r + c + 7) as u32;
    let mut input = Vec::new();
    for lane in 0..32 {
        for pair in 0..4 {
            input.push(element(lane / 8, lane % 8, 2 * pair) | element(lane / 8, lane % 8, 2 * pair + 1) << 16);
        }
    }
    for (spelling, matrices, transpose) in [
        ("ldmatrix.sync.aligned.m8n8.x1.shared.b16", 1, false),
        ("ldmatrix.sync.aligned.m8n8.x2.b16", 2, false),
        ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 4, true),
        ("ldmatrix.sync.aligned.m8n8.x1.trans.b16", 1, true),
        ("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", 2, true),
        ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 4, false),
    ] {
        let ptx = ldmatrix_kernel(spelling, matrices);
        let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", 32 * matrices)];
        let output = run_on(device, &ptx, &Launch::threads(32), &buffers);
        for lane in 0..32 {
            // The manual: lane l receives row l/4, columns 2·(l mod 4) and the next.
            let (row, column) = (lane / 4, 2 * (lane % 4));
            for i in 0..matrices {
                let expected = if transpose {
                    element(i, column, row) | element(i, column + 1, row) << 16
                } else {
                    element(i, row, column) | element(i, row, column + 1) << 16
                };
                assert_eq!(output[1][lane * matrices + i], u64::from(expected), "{spelling}: lane {lane} d{i}");
            }
        }
    }
}

#[test]
fn ldmatrix_distributes_rows_and_transposes() {
    ldmatrix_forms(Device::Cpu);
}

#[test]
fn spirv_mma_every_shape_and_type_family() {
    if opencl::available() {
        for (form, warps, seed) in every_family() {
            check_on(Device::OpenCl, &form, warps, seed);
        }
    }
}

#[test]
fn spirv_mma_m8n8k4_quad_pairs_in_every_layout() {
    if opencl::available() {
        m8n8k4_in_every_layout(Device::OpenCl);
    }
}

#[test]
fn spirv_ldmatrix_distributes_rows_and_transposes() {
    if opencl::available() {
        ldmatrix_forms(Device::OpenCl);
    }
}

#[test]
fn forms_outside_the_spec_are_errors() {
    let mixed = "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4}";
    let no_layouts = "mma.sync.aligned.m16n8k16.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8}";
    let wrong_count = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r5, %r6}, {%f5, %f6, %f7, %f8}";
    let ldmatrix_type = "ldmatrix.sync.aligned.m8n8.x1.shared.b32 {%r1}, [%rd1]";
    let b1_without_operation = "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}";
    let operation_on_nibbles =
        "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32.xor.popc {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}";
    let satfinite_on_bits =
        "mma.sync.aligned.m8n8k128.row.col.satfinite.s32.b1.b1.s32.and.popc {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}";
    // `mma.sp`: the spec's "Sparse matrix storage" limits the selector to 0 to 3 where one lane of
    // four holds the metadata, 0 or 1 for a pair, 0 where all four do; it is a constant; A has
    // half the dense form's registers; `.m16n8k16` keeps C's type in D; `.satfinite` is for
    // integers; the layouts are `.row.col`.
    let sparse_selector_of_one_lane = "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 4";
    let sparse_selector_of_a_pair = "mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r5, %r6}, {%r1, %r2, %r3, %r4}, %r7, 2";
    let sparse_selector_of_all = "mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, %r7, 1";
    let sparse_selector_register = "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, %r6";
    let sparse_dense_a = "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0";
    let sparse_mixed = "mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r1, %r2}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0";
    let sparse_satfinite_on_floats = "mma.sp.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0";
    let sparse_column_a = "mma.sp.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0";
    let sparse_without_selector = "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5";
    for body in [
        mixed,
        no_layouts,
        wrong_count,
        ldmatrix_type,
        b1_without_operation,
        operation_on_nibbles,
        satfinite_on_bits,
        sparse_selector_of_one_lane,
        sparse_selector_of_a_pair,
        sparse_selector_of_all,
        sparse_selector_register,
        sparse_dense_a,
        sparse_mixed,
        sparse_satfinite_on_floats,
        sparse_column_a,
        sparse_without_selector,
    ] {
        let source = format!(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry test()\n{{\n    .reg .b32 %r<9>;\n    .reg .f32 %f<9>;\n    .reg .b64 %rd<2>;\n    {body};\n    ret;\n}}\n"
        );
        let options =
            CompileOptions { target: describe("cpu", None, false).expect("cpu"), emit: None, optimization: 0 };
        match compile_source(&source, "matrix", &options) {
            Err(Failure::Diagnostics(diagnostics)) => {
                assert!(
                    diagnostics.iter().all(|diagnostic| diagnostic.code != Code::Unsupported),
                    "{body}: {diagnostics:?}"
                )
            }
            Err(Failure::Message(message)) => panic!("{body}: {message}"),
            Ok(_) => panic!("{body} compiled"),
        }
    }
}

/// Compiles `body` in a kernel for `target` and returns the unsupported diagnostics' messages.
fn unsupported_messages(body: &str, target: &str) -> Vec<String> {
    let source = format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry test(.param .u64 output)\n{{\n    .reg .b32 %r<9>;\n    .reg .f32 %f<9>;\n    .reg .f64 %fd<5>;\n{body}\n    ret;\n}}\n"
    );
    let description = describe(target, None, false).expect("a known target");
    let options = CompileOptions { target: description, emit: None, optimization: 0 };
    match compile_source(&source, "matrix", &options) {
        Err(Failure::Diagnostics(diagnostics)) => diagnostics
            .iter()
            .map(|diagnostic| {
                assert_eq!(diagnostic.code, Code::Unsupported, "{}", diagnostic.message);
                diagnostic.message.clone()
            })
            .collect(),
        Err(Failure::Message(message)) => panic!("{message}"),
        Ok(_) => Vec::new(),
    }
}

/// The `.kind::` forms (ISA 8.7 and later; Triton's `tl.dot_scaled` at sm_120a writes this one)
/// are reported as unsupported on every target, naming the instruction, instead of being misread
/// as a dense `mma` with too many types (E0202).
#[test]
fn block_scaled_kind_forms_are_reported_as_unsupported_on_every_target() {
    let body = "    mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0 \
                {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f1, %f2, %f3, %f4}, %r7, {0, 0}, %r8, {0, 0};";
    for target in ["cpu", "nvptx", "amdgpu", "spirv"] {
        let messages = unsupported_messages(body, target);
        assert_eq!(messages.len(), 1, "{target}: {messages:?}");
        assert!(
            messages[0].contains("kind::mxf4nvf4.block_scale") && messages[0].ends_with(&format!("on {target}")),
            "{target}: {}",
            messages[0]
        );
    }
}

#[test]
fn forms_without_a_computation_are_reported_as_unsupported() {
    let f64_form = "    mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2};";
    for target in ["cpu", "nvptx", "amdgpu", "spirv"] {
        assert!(unsupported_messages(f64_form, target).is_empty(), "{target} computes m8n8k4 on .f64");
    }
    let m16n8k16 = "    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, {%f5, %f6, %f7, %f8};";
    assert!(unsupported_messages(m16n8k16, "cpu").is_empty(), "the CPU computes m16n8k16");
    assert!(unsupported_messages(m16n8k16, "nvptx").is_empty(), "NVPTX has the mma intrinsics");
    // Every `mma.sp` family of ISA 7.8, at the largest selector its form allows: NVPTX has them
    // all (`llvm.nvvm.mma.sp.*`); the other targets rebuild the dense A of every one
    // (`lowering/src/instructions/sparse_matrix.rs`).
    let sparse_forms = [
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 3;",
        "mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r1, %r2}, %r5, 1;",
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r5, 1;",
        "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 3;",
        "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f5, %f6, %f7, %f8}, %r5, 1;",
        "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r5, %r6}, {%r1, %r2, %r3, %r4}, %r7, 1;",
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, %r7, 0;",
        "mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.u4.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2}, {%r5, %r6}, {%r1, %r2, %r3, %r4}, %r7, 1;",
        "mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32 {%r1, %r2, %r3, %r4}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%r1, %r2, %r3, %r4}, %r7, 0;",
    ];
    for sparse in sparse_forms {
        for target in ["cpu", "nvptx", "amdgpu", "spirv"] {
            let messages = unsupported_messages(&format!("    {sparse}"), target);
            assert!(messages.is_empty(), "{sparse} on {target}: {messages:?}");
        }
    }
    for target in ["amdgpu", "spirv"] {
        assert!(unsupported_messages(m16n8k16, target).is_empty(), "{target} builds mma from shuffles");
    }
}

/// A `.func` that runs `ldmatrix` waits inside a call, which the stackful scheduler runs; its
/// fragment buffer lives in the function's own frame. A guard skips nothing here but exercises
/// the branch around the instruction.
#[test]
fn ldmatrix_in_a_called_function_under_a_guard() {
    ldmatrix_in_a_function(Device::Cpu);
}

#[test]
fn spirv_ldmatrix_in_a_called_function_under_a_guard() {
    if opencl::available() {
        ldmatrix_in_a_function(Device::OpenCl);
    }
}

fn ldmatrix_in_a_function(device: Device) {
    let ptx = ".version 7.8
.target sm_80
.address_size 64
.shared .align 16 .b8 rows[512];
.func (.reg .b32 result) load_first(.reg .b64 row)
{
    .reg .pred %p;
    .reg .b32 %d<2>;
    setp.eq.u64 %p, row, 0;
    @!%p ldmatrix.sync.aligned.m8n8.x1.b16 {%d0}, [row];
    mov.b32 result, %d0;
    ret;
}
.visible .entry test(.param .u64 input, .param .u64 output)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<9>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.v2.b64 {%rd5, %rd6}, [%rd4];
    mov.u64 %rd7, rows;
    add.u64 %rd7, %rd7, %rd3;
    st.shared.v2.b64 [%rd7], {%rd5, %rd6};
    cvta.shared.u64 %rd8, %rd7;
    call (%r2), load_first, (%rd8);
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    st.global.b32 [%rd4], %r2;
    ret;
}
";
    // Row r (given by lane r) holds r·100 + c in column c.
    let mut input = Vec::new();
    for lane in 0..32u32 {
        for pair in 0..4 {
            input.push((lane * 100 + 2 * pair) | (lane * 100 + 2 * pair + 1) << 16);
        }
    }
    let output = run_on(device, ptx, &Launch::threads(32), &[Buffer::u32s(&input), Buffer::zeroed("u32", 32)]);
    for lane in 0..32u32 {
        let (row, column) = (lane / 4, 2 * (lane % 4));
        let expected = (row * 100 + column) | (row * 100 + column + 1) << 16;
        assert_eq!(output[1][lane as usize], u64::from(expected), "lane {lane}");
    }
}
