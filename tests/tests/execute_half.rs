//! Execution of half-precision arithmetic, comparisons and conversions on the CPU (ISA 7.8
//! sections 9.7.4, 9.7.6 and 9.7.8.18). The expected bits come from a model written here:
//! operands are decoded into exact integers times powers of two, the arithmetic is exact
//! (`u128`), and one rounding function rounds to any of the formats (f16, bf16, e4m3, e5m2) in
//! any rounding mode. The `half` crate decodes values for comparisons and checks the model's
//! rounding against its own conversions.

use half::{bf16, f16};
use ptxr_tests::{run_ok, Buffer, Launch, Random};

const CANONICAL_NAN: u16 = 0x7fff;

// ---------------------------------------------------------------------------------------------
// The model.

/// An exact finite value: (-1)^negative × magnitude × 2^exponent.
#[derive(Clone, Copy, Debug)]
struct Exact {
    negative: bool,
    magnitude: u128,
    exponent: i32,
}

/// A binary floating-point format: precision (with the implicit bit), exponent bits, and
/// whether it has infinities (E4M3 has none and saturates under `.satfinite`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Format {
    precision: u32,
    exponent_bits: u32,
}

const F16: Format = Format { precision: 11, exponent_bits: 5 };
const BF16: Format = Format { precision: 8, exponent_bits: 8 };
const F32: Format = Format { precision: 24, exponent_bits: 8 };
const F64: Format = Format { precision: 53, exponent_bits: 11 };
const E4M3: Format = Format { precision: 4, exponent_bits: 4 };
const E5M2: Format = Format { precision: 3, exponent_bits: 5 };

#[derive(Clone, Copy, Debug, PartialEq)]
enum Rounding {
    Nearest,
    Zero,
    Down,
    Up,
}

/// What a bit pattern holds.
#[derive(Clone, Copy, Debug)]
enum Decoded {
    Finite(Exact),
    Infinite(bool),
    NotANumber,
}

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exponent_bits - 1)) - 1
    }

    fn mantissa_bits(self) -> u32 {
        self.precision - 1
    }

    fn sign_bit(self) -> u64 {
        1 << (self.exponent_bits + self.mantissa_bits())
    }

    fn infinity(self) -> u64 {
        ((1 << self.exponent_bits) - 1) << self.mantissa_bits()
    }

    fn decode(self, bits: u64) -> Decoded {
        let negative = bits & self.sign_bit() != 0;
        let field = (bits >> self.mantissa_bits()) & ((1 << self.exponent_bits) - 1);
        let mantissa = bits & ((1 << self.mantissa_bits()) - 1);
        if self == E4M3 && field == 15 && mantissa == 7 {
            return Decoded::NotANumber;
        }
        if self != E4M3 && field == (1 << self.exponent_bits) - 1 {
            return if mantissa == 0 { Decoded::Infinite(negative) } else { Decoded::NotANumber };
        }
        let shift = self.bias() - 1 + self.mantissa_bits() as i32;
        if field == 0 {
            Decoded::Finite(Exact { negative, magnitude: u128::from(mantissa), exponent: -shift })
        } else {
            let magnitude = u128::from(mantissa | (1 << self.mantissa_bits()));
            Decoded::Finite(Exact { negative, magnitude, exponent: field as i32 - 1 - shift })
        }
    }

    /// Rounds an exact value once. Overflow gives infinity, or the largest finite value where
    /// the rounding never goes past it (and always for E4M3, which has no infinity).
    fn round(self, value: Exact, rounding: Rounding) -> u64 {
        let sign = if value.negative { self.sign_bit() } else { 0 };
        if value.magnitude == 0 {
            return sign;
        }
        let top = 127 - value.magnitude.leading_zeros() as i32 + value.exponent;
        let minimum_exponent = 1 - self.bias();
        let quantum = top.max(minimum_exponent) - self.mantissa_bits() as i32;
        let shift = quantum - value.exponent;
        let (mut units, remainder, half) = if shift <= 0 {
            (value.magnitude << (-shift) as u32, 0u128, 1u128)
        } else if shift >= 127 {
            (0, value.magnitude, 1u128 << 126)
        } else {
            (value.magnitude >> shift, value.magnitude & ((1u128 << shift) - 1), 1u128 << (shift - 1))
        };
        // With shift >= 127 the remainder stands for something far below half a unit.
        let (above_half, exactly_half) =
            if shift >= 127 { (false, false) } else { (remainder > half, remainder == half) };
        let inexact = remainder != 0;
        let round_up = match rounding {
            Rounding::Nearest => above_half || (exactly_half && units & 1 == 1),
            Rounding::Zero => false,
            Rounding::Down => inexact && value.negative,
            Rounding::Up => inexact && !value.negative,
        };
        units += u128::from(round_up);
        let mut exponent_field = (quantum + self.mantissa_bits() as i32 + self.bias()) as i64;
        if units >> self.precision != 0 {
            units >>= 1;
            exponent_field += 1;
        }
        if units >> self.mantissa_bits() == 0 {
            exponent_field = 0;
        }
        let largest_finite = if self == E4M3 { 0x7e } else { self.infinity() - 1 };
        let encoded = ((exponent_field as u128) << self.mantissa_bits()) | (units & ((1 << self.mantissa_bits()) - 1));
        let overflows = encoded > u128::from(largest_finite);
        if overflows {
            let to_infinity = match rounding {
                Rounding::Nearest => true,
                Rounding::Zero => false,
                Rounding::Down => value.negative,
                Rounding::Up => !value.negative,
            };
            return sign | if to_infinity && self != E4M3 { self.infinity() } else { largest_finite };
        }
        sign | encoded as u64
    }
}

fn add(a: Exact, b: Exact) -> Exact {
    if a.magnitude == 0 && b.magnitude == 0 {
        return Exact { negative: a.negative && b.negative, magnitude: 0, exponent: 0 };
    }
    if a.magnitude == 0 {
        return b;
    }
    if b.magnitude == 0 {
        return a;
    }
    let (large, small) = if a.exponent >= b.exponent { (a, b) } else { (b, a) };
    // Keep at most 80 bits of alignment; a smaller addend then only acts as a sticky bit below
    // every rounding position of the formats here.
    let small = if large.exponent - small.exponent > 80 {
        Exact { magnitude: 1, exponent: large.exponent - 80, ..small }
    } else {
        small
    };
    let large_magnitude = large.magnitude << (large.exponent - small.exponent) as u32;
    let exponent = small.exponent;
    let (negative, magnitude) = if large.negative == small.negative {
        (large.negative, large_magnitude + small.magnitude)
    } else if large_magnitude >= small.magnitude {
        (large.negative, large_magnitude - small.magnitude)
    } else {
        (small.negative, small.magnitude - large_magnitude)
    };
    // An exact cancellation is +0 when rounding to nearest.
    Exact { negative: negative && magnitude != 0, magnitude, exponent }
}

fn multiply(a: Exact, b: Exact) -> Exact {
    Exact {
        negative: a.negative != b.negative,
        magnitude: a.magnitude * b.magnitude,
        exponent: a.exponent + b.exponent,
    }
}

fn negate(a: Exact) -> Exact {
    Exact { negative: !a.negative, ..a }
}

fn value_of(format: Format, bits: u64) -> f64 {
    match format.decode(bits) {
        Decoded::Finite(exact) => {
            let magnitude = exact.magnitude as f64 * 2f64.powi(exact.exponent);
            if exact.negative {
                -magnitude
            } else {
                magnitude
            }
        }
        Decoded::Infinite(negative) => {
            if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Decoded::NotANumber => f64::NAN,
    }
}

/// The result of an operation whose operands are not all finite, from f64's IEEE rules (the
/// result is infinite or NaN there, or the finite operand of an infinite-free case).
fn special_result(format: Format, value: f64) -> u64 {
    if value.is_nan() {
        u64::from(CANONICAL_NAN)
    } else if value.is_infinite() {
        format.infinity() | if value < 0.0 { format.sign_bit() } else { 0 }
    } else {
        unreachable!("special results are infinite or NaN")
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Operation {
    Add,
    Subtract,
    Multiply,
    FusedMultiplyAdd,
}

fn arithmetic(format: Format, operation: Operation, operands: [u16; 3]) -> u16 {
    let decoded = operands.map(|bits| format.decode(u64::from(bits)));
    let used = if operation == Operation::FusedMultiplyAdd { 3 } else { 2 };
    let finite: Vec<Exact> = decoded[..used]
        .iter()
        .filter_map(|value| if let Decoded::Finite(exact) = value { Some(*exact) } else { None })
        .collect();
    if finite.len() < used {
        let [a, b, c] = operands.map(|bits| value_of(format, u64::from(bits)));
        let value = match operation {
            Operation::Add => a + b,
            Operation::Subtract => a - b,
            Operation::Multiply => a * b,
            Operation::FusedMultiplyAdd => a.mul_add(b, c),
        };
        return special_result(format, value) as u16;
    }
    let exact = match operation {
        Operation::Add => add(finite[0], finite[1]),
        Operation::Subtract => add(finite[0], negate(finite[1])),
        Operation::Multiply => multiply(finite[0], finite[1]),
        Operation::FusedMultiplyAdd => add(multiply(finite[0], finite[1]), finite[2]),
    };
    format.round(exact, Rounding::Nearest) as u16
}

fn is_nan(format: Format, bits: u16) -> bool {
    matches!(format.decode(u64::from(bits)), Decoded::NotANumber)
}

fn is_negative(bits: u16) -> bool {
    bits & 0x8000 != 0
}

fn flush(bits: u16) -> u16 {
    if bits & 0x7c00 == 0 {
        bits & 0x8000
    } else {
        bits
    }
}

fn saturate(format: Format, bits: u16) -> u16 {
    let one = format.round(Exact { negative: false, magnitude: 1, exponent: 0 }, Rounding::Nearest) as u16;
    if is_nan(format, bits) || is_negative(bits) {
        0
    } else if value_of(format, u64::from(bits)) > 1.0 {
        one
    } else {
        bits
    }
}

fn relu(format: Format, bits: u16) -> u16 {
    if is_nan(format, bits) {
        CANONICAL_NAN
    } else if is_negative(bits) {
        0
    } else {
        bits
    }
}

/// `min`/`max` with `.NaN` and `.xorsign.abs` (ISA 7.8 sections 9.7.4.7 and 9.7.4.8).
fn minimum_maximum(format: Format, minimum: bool, propagate_nan: bool, xorsign: bool, a: u16, b: u16) -> u16 {
    let sign = (a ^ b) & 0x8000;
    let (a, b) = if xorsign { (a & 0x7fff, b & 0x7fff) } else { (a, b) };
    let (a_nan, b_nan) = (is_nan(format, a), is_nan(format, b));
    if (a_nan && b_nan) || (propagate_nan && (a_nan || b_nan)) {
        return CANONICAL_NAN;
    }
    let result = if a_nan {
        b
    } else if b_nan {
        a
    } else {
        let (x, y) = (value_of(format, u64::from(a)), value_of(format, u64::from(b)));
        // -0.0 is below +0.0.
        let a_below_b = x < y || (x == y && is_negative(a) && !is_negative(b));
        let b_below_a = y < x || (x == y && is_negative(b) && !is_negative(a));
        match (minimum, a_below_b, b_below_a) {
            (true, _, true) | (false, true, _) => b,
            _ => a,
        }
    };
    if xorsign {
        (result & 0x7fff) | sign
    } else {
        result
    }
}

// ---------------------------------------------------------------------------------------------
// Kernels.

const HEADER: &str = ".version 7.8\n.target sm_90\n.address_size 64\n";

/// A kernel over four `.u32` buffers `a`, `b`, `c`, `d`: `%rd1`..`%rd4` hold the addresses of
/// this thread's elements.
fn kernel(body: &str) -> String {
    format!(
        "{HEADER}.visible .entry test(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{{\n\
         .reg .b32 %r<10>;\n.reg .b16 %h<10>;\n.reg .u64 %rd<12>;\n.reg .pred %p<4>;\n.reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n\
         ld.param.u64 %rd5, [pa];\nld.param.u64 %rd6, [pb];\nld.param.u64 %rd7, [pc];\nld.param.u64 %rd8, [pd];\n\
         mov.u32 %r7, %tid.x;\nmov.u32 %r8, %ctaid.x;\nmov.u32 %r9, %ntid.x;\nmad.lo.u32 %r7, %r8, %r9, %r7;\n\
         mul.wide.u32 %rd9, %r7, 4;\nadd.u64 %rd1, %rd5, %rd9;\nadd.u64 %rd2, %rd6, %rd9;\nadd.u64 %rd3, %rd7, %rd9;\n\
         add.u64 %rd4, %rd8, %rd9;\n{body}\nret;\n}}\n"
    )
}

/// Runs `body` over the elements of `a`, `b`, `c` and returns `d`.
fn run_elements(body: &str, a: &[u32], b: &[u32], c: &[u32]) -> Vec<u32> {
    run_module(&kernel(body), a, b, c)
}

/// `run_elements` under ISA 8.6 and sm_100a, which the 6- and 4-bit float conversions need.
fn run_elements_on_sm_100a(body: &str, a: &[u32], b: &[u32], c: &[u32]) -> Vec<u32> {
    let module = kernel(body).replacen(HEADER, ".version 8.6\n.target sm_100a\n.address_size 64\n", 1);
    run_module(&module, a, b, c)
}

fn run_module(module: &str, a: &[u32], b: &[u32], c: &[u32]) -> Vec<u32> {
    let count = a.len();
    let threads = count.min(256) as u32;
    assert_eq!(count % threads as usize, 0, "whole blocks");
    let launch = Launch { grid: [count as u32 / threads, 1, 1], block: [threads, 1, 1], ..Launch::default() };
    let buffers = [Buffer::u32s(a), Buffer::u32s(b), Buffer::u32s(c), Buffer::zeroed("u32", count)];
    run_ok(module, &launch, &buffers)[3].iter().map(|&bits| bits as u32).collect()
}

/// `OP %r4, %r1, %r2[, %r3]` on packed registers.
fn packed_body(instruction: &str, sources: usize) -> String {
    let operands = ["%r1", "%r2", "%r3"][..sources].join(", ");
    format!(
        "ld.global.b32 %r1, [%rd1];\nld.global.b32 %r2, [%rd2];\nld.global.b32 %r3, [%rd3];\n\
         {instruction} %r4, {operands};\nst.global.b32 [%rd4], %r4;"
    )
}

/// `OP %h4, %h1, %h2[, %h3]` on the low halves.
fn scalar_body(instruction: &str, sources: usize) -> String {
    let operands = ["%h1", "%h2", "%h3"][..sources].join(", ");
    format!(
        "ld.global.b16 %h1, [%rd1];\nld.global.b16 %h2, [%rd2];\nld.global.b16 %h3, [%rd3];\n\
         {instruction} %h4, {operands};\nst.global.b16 [%rd4], %h4;"
    )
}

fn lanes(packed: u32) -> [u16; 2] {
    [packed as u16, (packed >> 16) as u16]
}

fn packed(low: u16, high: u16) -> u32 {
    u32::from(low) | (u32::from(high) << 16)
}

/// Edge values of a 16-bit format: zeros, the smallest subnormals and normals, one, the
/// largest finite values, infinities and NaNs.
fn edges(format: Format) -> Vec<u16> {
    let infinity = format.infinity() as u16;
    let smallest_normal = 1 << format.mantissa_bits();
    let one = format.round(Exact { negative: false, magnitude: 1, exponent: 0 }, Rounding::Nearest) as u16;
    let positive = [
        0,
        1,
        2,
        smallest_normal - 1,
        smallest_normal,
        one,
        one + 1,
        one - 1,
        infinity - 1,
        infinity,
        infinity + 1,
        0x7fff,
    ];
    positive.iter().flat_map(|&bits| [bits, bits | 0x8000]).collect()
}

/// Random lanes biased towards nearby exponents (so that sums round interestingly), with edges.
fn random_lanes(random: &mut Random, format: Format, count: usize) -> Vec<u16> {
    let mut values = edges(format);
    while values.len() < count {
        let bits = random.next_u32() as u16;
        let value = match random.next_u32() % 4 {
            // Exponents near one's, where sums and products of the lanes stay in range.
            0 | 1 => {
                let one = format.round(Exact { negative: false, magnitude: 1, exponent: 0 }, Rounding::Nearest) as u16;
                let span = 6u16 << format.mantissa_bits();
                (one - span / 2 + bits % span) | (bits & 0x8000)
            }
            _ => bits,
        };
        values.push(value);
    }
    values.truncate(count);
    values
}

/// Pairs of lane values packed into `.b32` inputs.
fn packed_inputs(random: &mut Random, format: Format, count: usize) -> Vec<u32> {
    let low = random_lanes(random, format, count);
    let mut high = random_lanes(random, format, count);
    high.reverse();
    low.iter().zip(&high).map(|(&low, &high)| packed(low, high)).collect()
}

fn check_lanes(
    name: &str,
    inputs: [&[u32]; 3],
    output: &[u32],
    model: impl Fn(u16, u16, u16) -> u16,
    packed_lanes: bool,
) {
    for index in 0..output.len() {
        let [a, b, c] = inputs.map(|input| lanes(input[index]));
        let lane_count = if packed_lanes { 2 } else { 1 };
        for lane in 0..lane_count {
            let expected = model(a[lane], b[lane], c[lane]);
            let got = lanes(output[index])[lane];
            assert_eq!(
                got, expected,
                "{name} lane {lane}: a={:#06x} b={:#06x} c={:#06x}: got {got:#06x}, expected {expected:#06x}",
                a[lane], b[lane], c[lane]
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests.

#[test]
fn the_rounding_model_agrees_with_the_half_crate() {
    let mut random = Random::new(1);
    for _ in 0..20_000 {
        // Doubles from 2^-140 to 2^20 with random significands, both signs.
        let significand = 1.0 + (random.next_u64() >> 12) as f64 / 2f64.powi(52);
        let exponent = (random.next_u32() % 160) as i32 - 140;
        let sign = if random.next_u32() % 2 == 0 { 1.0 } else { -1.0 };
        let value = sign * significand * 2f64.powi(exponent);
        let Decoded::Finite(exact) = F64.decode(value.to_bits()) else { continue };
        assert_eq!(F16.round(exact, Rounding::Nearest) as u16, f16::from_f64(value).to_bits(), "f16 of {value:e}");
        assert_eq!(BF16.round(exact, Rounding::Nearest) as u16, bf16::from_f64(value).to_bits(), "bf16 of {value:e}");
    }
}

#[test]
fn packed_add_sub_mul_round_each_lane_once() {
    let mut random = Random::new(2);
    for (format, suffix) in [(F16, "f16x2"), (BF16, "bf16x2")] {
        let a = packed_inputs(&mut random, format, 2048);
        let b = packed_inputs(&mut random, format, 2048);
        for (opcode, operation) in
            [("add.rn", Operation::Add), ("sub", Operation::Subtract), ("mul.rn", Operation::Multiply)]
        {
            let instruction = format!("{opcode}.{suffix}");
            let output = run_elements(&packed_body(&instruction, 2), &a, &b, &a);
            check_lanes(&instruction, [&a, &b, &a], &output, |a, b, _| arithmetic(format, operation, [a, b, 0]), true);
        }
    }
}

#[test]
fn scalar_arithmetic_with_ftz_and_sat() {
    let mut random = Random::new(3);
    let a = packed_inputs(&mut random, F16, 1024);
    let b = packed_inputs(&mut random, F16, 1024);
    let output = run_elements(&scalar_body("add.ftz.sat.f16", 2), &a, &b, &a);
    check_lanes(
        "add.ftz.sat.f16",
        [&a, &b, &a],
        &output,
        |a, b, _| saturate(F16, flush(arithmetic(F16, Operation::Add, [flush(a), flush(b), 0]))),
        false,
    );
    let output = run_elements(&scalar_body("mul.bf16", 2), &a, &b, &a);
    check_lanes("mul.bf16", [&a, &b, &a], &output, |a, b, _| arithmetic(BF16, Operation::Multiply, [a, b, 0]), false);
    let output = run_elements(&scalar_body("sub.ftz.f16", 2), &a, &b, &a);
    check_lanes(
        "sub.ftz.f16",
        [&a, &b, &a],
        &output,
        |a, b, _| flush(arithmetic(F16, Operation::Subtract, [flush(a), flush(b), 0])),
        false,
    );
}

/// Cases where rounding the f32 (or even f64) sum misrounds: the product is exactly halfway
/// between two results and `c` is far smaller, so only a single rounding gets the direction.
fn fused_multiply_add_hard_cases(format: Format) -> Vec<[u16; 3]> {
    let one = format.round(Exact { negative: false, magnitude: 1, exponent: 0 }, Rounding::Nearest) as u16;
    let mut cases = Vec::new();
    // (1 + 2^-m)(1 + 2^-1) lands on halfway points for some m; tiny c of both signs.
    for a_low in 1..8u16 {
        for b_low in [1u16 << (format.mantissa_bits() - 1), 3, 1] {
            for c in [1u16, 0x8001, 0x0400, 0x8400, 0x0080, 0x8080, 0] {
                cases.push([one + a_low, one + b_low, c]);
                cases.push([(one + a_low) | 0x8000, one + b_low, c]);
            }
        }
    }
    cases
}

#[test]
fn packed_fused_multiply_add_rounds_once() {
    let mut random = Random::new(4);
    for (format, suffix) in [(F16, "f16x2"), (BF16, "bf16x2")] {
        let mut a = packed_inputs(&mut random, format, 2048);
        let mut b = packed_inputs(&mut random, format, 2048);
        let mut c = packed_inputs(&mut random, format, 2048);
        for (index, [x, y, z]) in fused_multiply_add_hard_cases(format).into_iter().enumerate().take(1024) {
            a[index] = packed(x, y);
            b[index] = packed(y, x);
            c[index] = packed(z, z ^ 0x8000);
        }
        for (modifiers, finish) in
            [("rn", (|_: Format, bits: u16| bits) as fn(Format, u16) -> u16), ("rn.relu", relu), ("rn.sat", saturate)]
        {
            if format == BF16 && modifiers == "rn.sat" {
                continue;
            }
            let instruction = format!("fma.{modifiers}.{suffix}");
            let output = run_elements(&packed_body(&instruction, 3), &a, &b, &c);
            check_lanes(
                &instruction,
                [&a, &b, &c],
                &output,
                |a, b, c| finish(format, arithmetic(format, Operation::FusedMultiplyAdd, [a, b, c])),
                true,
            );
        }
    }
}

/// `fma.rz`, `.rm` and `.rp` on `.bf16` and `.bf16x2` (ptxas 12.9 takes them at sm_80): the
/// exact `a * b + c` rounded once in the mode; the hard cases sit just off halfway points and
/// tiny `c` decides the direction, so rounding the `f32` or `f64` sum first would fail.
#[test]
fn brain_float_fused_multiply_add_in_directed_modes() {
    let mut random = Random::new(5);
    let mut a = packed_inputs(&mut random, BF16, 1024);
    let mut b = packed_inputs(&mut random, BF16, 1024);
    let mut c = packed_inputs(&mut random, BF16, 1024);
    for (index, [x, y, z]) in fused_multiply_add_hard_cases(BF16).into_iter().enumerate().take(512) {
        a[index] = packed(x, y);
        b[index] = packed(y, x);
        c[index] = packed(z, z ^ 0x8000);
    }
    for (mode, rounding) in [("rz", Rounding::Zero), ("rm", Rounding::Down), ("rp", Rounding::Up)] {
        let model = |x: u16, y: u16, z: u16| fused_multiply_add_rounded(BF16, rounding, [x, y, z]);
        for relu_too in [false, true] {
            let modifiers = if relu_too { format!("{mode}.relu") } else { mode.to_string() };
            let instruction = format!("fma.{modifiers}.bf16x2");
            let output = run_elements(&packed_body(&instruction, 3), &a, &b, &c);
            let finish = |bits: u16| if relu_too { relu(BF16, bits) } else { bits };
            check_lanes(&instruction, [&a, &b, &c], &output, |x, y, z| finish(model(x, y, z)), true);
        }
        let instruction = format!("fma.{mode}.bf16");
        let output = run_elements(&scalar_body(&instruction, 3), &a, &b, &c);
        let low_halves: Vec<u32> = output.iter().map(|&word| word & 0xffff).collect();
        check_lanes(&instruction, [&a, &b, &c], &low_halves, model, false);
    }
}

/// `a * b + c` of one format rounded once by `rounding`; infinities and NaNs as IEEE has them.
fn fused_multiply_add_rounded(format: Format, rounding: Rounding, operands: [u16; 3]) -> u16 {
    let decoded = operands.map(|bits| format.decode(u64::from(bits)));
    let finite: Vec<Exact> = decoded
        .iter()
        .filter_map(|value| if let Decoded::Finite(exact) = value { Some(*exact) } else { None })
        .collect();
    if finite.len() < 3 {
        let [a, b, c] = operands.map(|bits| value_of(format, u64::from(bits)));
        return special_result(format, a.mul_add(b, c)) as u16;
    }
    let product = multiply(finite[0], finite[1]);
    let mut exact = add(product, finite[2]);
    if exact.magnitude == 0 && rounding == Rounding::Down {
        // IEEE 754 (6.3): a zero sum is -0 when rounding down, unless both addends are +0.
        let positive_zero = |value: Exact| value.magnitude == 0 && !value.negative;
        exact.negative = !(positive_zero(product) && positive_zero(finite[2]));
    }
    format.round(exact, rounding) as u16
}

#[test]
fn minimum_and_maximum_with_nan_and_xorsign() {
    let mut random = Random::new(5);
    for (format, suffix) in [(F16, "f16x2"), (BF16, "bf16x2")] {
        let a = packed_inputs(&mut random, format, 1024);
        let mut b = packed_inputs(&mut random, format, 1024);
        // Equal magnitudes and signed zeros against each other.
        for index in 0..128 {
            let [low, high] = lanes(a[index]);
            b[index] = packed(low ^ 0x8000, if index % 2 == 0 { high } else { 0x8000 });
        }
        for opcode in ["min", "max"] {
            for (modifiers, propagate_nan, xorsign) in [
                ("", false, false),
                (".NaN", true, false),
                (".xorsign.abs", false, true),
                (".NaN.xorsign.abs", true, true),
            ] {
                let instruction = format!("{opcode}{modifiers}.{suffix}");
                let output = run_elements(&packed_body(&instruction, 2), &a, &b, &a);
                check_lanes(
                    &instruction,
                    [&a, &b, &a],
                    &output,
                    |a, b, _| minimum_maximum(format, opcode == "min", propagate_nan, xorsign, a, b),
                    true,
                );
            }
        }
    }
}

#[test]
fn negate_and_absolute_over_every_f16() {
    let inputs: Vec<u32> = (0..32768u32).map(|index| packed(index as u16, (index as u16) | 0x8000)).collect();
    for (instruction, model) in [
        ("neg.f16x2", (|bits: u16| bits ^ 0x8000) as fn(u16) -> u16),
        ("abs.f16x2", |bits| bits & 0x7fff),
        ("neg.ftz.f16x2", |bits| flush(bits) ^ 0x8000),
        ("abs.ftz.f16x2", |bits| flush(bits) & 0x7fff),
        ("neg.bf16x2", |bits| bits ^ 0x8000),
    ] {
        let output = run_elements(&packed_body(instruction, 1), &inputs, &inputs, &inputs);
        check_lanes(instruction, [&inputs, &inputs, &inputs], &output, |a, _, _| model(a), true);
    }
}

const COMPARISONS: [&str; 14] =
    ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"];

fn compare(comparison: &str, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match comparison {
        "eq" => a == b,
        "ne" => !unordered && a != b,
        "lt" => a < b,
        "le" => a <= b,
        "gt" => a > b,
        "ge" => a >= b,
        "equ" => unordered || a == b,
        "neu" => unordered || a != b,
        "ltu" => unordered || a < b,
        "leu" => unordered || a <= b,
        "gtu" => unordered || a > b,
        "geu" => unordered || a >= b,
        "num" => !unordered,
        _ => unordered,
    }
}

fn half_value(format: Format, bits: u16) -> f64 {
    if format == F16 {
        f16::from_bits(bits).to_f64()
    } else {
        bf16::from_bits(bits).to_f64()
    }
}

#[test]
fn set_and_setp_compare_each_lane() {
    let mut random = Random::new(6);
    for (format, suffix) in [(F16, "f16x2"), (BF16, "bf16x2")] {
        let a = packed_inputs(&mut random, format, 256);
        let mut b = packed_inputs(&mut random, format, 256);
        b[..64].copy_from_slice(&a[..64]);
        // c's low bit is the predicate combined by the boolean forms.
        let c: Vec<u32> = (0..256).map(|_| random.next_u32() & 1).collect();
        let one = if format == F16 { 0x3c00 } else { 0x3f80 };
        for comparison in COMPARISONS {
            let holds = |a: u16, b: u16| compare(comparison, half_value(format, a), half_value(format, b));
            let instruction = format!("set.{comparison}.u32.{suffix}");
            let output = run_elements(&packed_body(&instruction, 2), &a, &b, &c);
            check_lanes(&instruction, [&a, &b, &c], &output, |a, b, _| if holds(a, b) { 0xffff } else { 0 }, true);
            let instruction = format!("set.{comparison}.{suffix}.{suffix}");
            let output = run_elements(&packed_body(&instruction, 2), &a, &b, &c);
            check_lanes(&instruction, [&a, &b, &c], &output, |a, b, _| if holds(a, b) { one } else { 0 }, true);
            // setp p|q with .xor against c, written back as two bits.
            let body = format!(
                "ld.global.b32 %r1, [%rd1];\nld.global.b32 %r2, [%rd2];\nld.global.b32 %r3, [%rd3];\n\
                 setp.ne.b32 %p3, %r3, 0;\nsetp.{comparison}.xor.{suffix} %p1|%p2, %r1, %r2, %p3;\n\
                 selp.b32 %r4, 1, 0, %p1;\nselp.b32 %r5, 2, 0, %p2;\nor.b32 %r4, %r4, %r5;\nst.global.b32 [%rd4], %r4;"
            );
            let output = run_elements(&body, &a, &b, &c);
            for index in 0..a.len() {
                let ([a_low, a_high], [b_low, b_high]) = (lanes(a[index]), lanes(b[index]));
                let predicate = c[index] == 1;
                let expected =
                    u32::from(holds(a_low, b_low) != predicate) | u32::from(holds(a_high, b_high) != predicate) << 1;
                assert_eq!(
                    output[index], expected,
                    "setp.{comparison}.xor.{suffix} {:#010x} {:#010x}",
                    a[index], b[index]
                );
            }
            // Scalar: set.cmp.u32 and set.cmp.u16 on the low lanes (all ones of each width).
            let scalar = if format == F16 { "f16" } else { "bf16" };
            let body = format!(
                "ld.global.b16 %h1, [%rd1];\nld.global.b16 %h2, [%rd2];\nset.{comparison}.u32.{scalar} %r4, %h1, %h2;\n\
                 set.{comparison}.u16.{scalar} %h5, %h1, %h2;\ncvt.u32.u16 %r5, %h5;\nxor.b32 %r4, %r4, %r5;\n\
                 st.global.b32 [%rd4], %r4;"
            );
            let output = run_elements(&body, &a, &b, &c);
            for index in 0..a.len() {
                let expected = if holds(lanes(a[index])[0], lanes(b[index])[0]) { 0xffff_0000 } else { 0 };
                assert_eq!(output[index], expected, "set.{comparison}.{scalar} {:#010x} {:#010x}", a[index], b[index]);
            }
        }
    }
}

fn float_exact(bits: u32) -> Option<Exact> {
    match F32.decode(u64::from(bits)) {
        Decoded::Finite(exact) => Some(exact),
        _ => None,
    }
}

/// `cvt` of an f32 to a 16-bit format in one rounding mode, with `.relu` and `.satfinite`.
fn convert_float(format: Format, bits: u32, rounding: Rounding, relu_applies: bool, satfinite: bool) -> u16 {
    let value = f32::from_bits(bits);
    let mut result = match float_exact(bits) {
        Some(exact) => format.round(exact, rounding) as u16,
        None if value.is_nan() => CANONICAL_NAN,
        None => (format.infinity() | if value < 0.0 { format.sign_bit() } else { 0 }) as u16,
    };
    if satfinite && result & 0x7fff == format.infinity() as u16 {
        result = (result & 0x8000) | (format.infinity() as u16 - 1);
    }
    if relu_applies {
        result = relu(format, result);
    }
    result
}

fn random_floats(random: &mut Random, count: usize) -> Vec<u32> {
    let edges = [
        0u32,
        0x8000_0000,
        1,
        0x8000_0001,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x7f80_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x477f_e000,
        0x477f_f000,
        0x477f_efff,
        0x3380_0000,
        0x3300_0000,
        0x3300_0001,
        0x7f7f_ffff,
        0x3f80_8000,
        0x3f81_8000,
        0x0080_0000,
        0x43e0_0000,
        0x43f0_0000,
        0x4760_0000,
        0x4770_0000,
    ];
    let mut values: Vec<u32> = edges.to_vec();
    while values.len() < count {
        let bits = random.next_u32();
        // Mostly exponents where the 16- and 8-bit formats are finite.
        let value = if random.next_u32() % 4 != 0 { (bits & 0x87ff_ffff) | 0x3800_0000 } else { bits };
        values.push(value);
    }
    values.truncate(count);
    values
}

#[test]
fn packing_conversions_from_f32() {
    let mut random = Random::new(7);
    let a = random_floats(&mut random, 2048);
    let mut b = random_floats(&mut random, 2048);
    b.reverse();
    for (format, suffix) in [(F16, "f16x2"), (BF16, "bf16x2")] {
        for (modifiers, rounding, relu_applies, satfinite) in [
            ("rn", Rounding::Nearest, false, false),
            ("rz", Rounding::Zero, false, false),
            ("rn.relu", Rounding::Nearest, true, false),
            ("rn.satfinite", Rounding::Nearest, false, true),
            ("rz.relu.satfinite", Rounding::Zero, true, true),
        ] {
            let instruction = format!("cvt.{modifiers}.{suffix}.f32");
            let body = format!(
                "ld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd2];\n{instruction} %r4, %f1, %f2;\nst.global.b32 [%rd4], %r4;"
            );
            let output = run_elements(&body, &a, &b, &a);
            for index in 0..a.len() {
                let high = convert_float(format, a[index], rounding, relu_applies, satfinite);
                let low = convert_float(format, b[index], rounding, relu_applies, satfinite);
                assert_eq!(output[index], packed(low, high), "{instruction} {:#010x} {:#010x}", a[index], b[index]);
            }
        }
    }
}

#[test]
fn scalar_conversions_in_every_rounding_mode() {
    let mut random = Random::new(8);
    let a = random_floats(&mut random, 2048);
    for (format, name) in [(F16, "f16"), (BF16, "bf16")] {
        for (modifier, rounding) in
            [("rn", Rounding::Nearest), ("rz", Rounding::Zero), ("rm", Rounding::Down), ("rp", Rounding::Up)]
        {
            let instruction = format!("cvt.{modifier}.{name}.f32");
            let body = format!("ld.global.f32 %f1, [%rd1];\n{instruction} %h4, %f1;\nst.global.b16 [%rd4], %h4;");
            let output = run_elements(&body, &a, &a, &a);
            for (index, &bits) in a.iter().enumerate() {
                let expected = convert_float(format, bits, rounding, false, false);
                assert_eq!(output[index] as u16, expected, "{instruction} {bits:#010x}");
            }
        }
        // Back to f32, exactly, for every 16-bit pattern.
        let inputs: Vec<u32> = (0..65536u32).collect();
        let body = format!("ld.global.b16 %h1, [%rd1];\ncvt.f32.{name} %f1, %h1;\nst.global.f32 [%rd4], %f1;");
        let output = run_elements(&body, &inputs, &inputs, &inputs);
        for (index, &bits) in inputs.iter().enumerate() {
            let value = half_value(format, bits as u16) as f32;
            if value.is_nan() {
                assert!(f32::from_bits(output[index]).is_nan(), "cvt.f32.{name} {bits:#06x}");
            } else {
                assert_eq!(output[index], value.to_bits(), "cvt.f32.{name} {bits:#06x}");
            }
        }
    }
}

#[test]
fn integer_conversions_to_and_from_half() {
    let mut random = Random::new(9);
    let values = random.u32_with_edges(1024);
    for (format, name) in [(F16, "f16"), (BF16, "bf16")] {
        for (source, signed) in [("s32", true), ("u32", false)] {
            let instruction = format!("cvt.rn.{name}.{source}");
            let body = format!("ld.global.u32 %r1, [%rd1];\n{instruction} %h4, %r1;\nst.global.b16 [%rd4], %h4;");
            let output = run_elements(&body, &values, &values, &values);
            for (index, &value) in values.iter().enumerate() {
                let (negative, magnitude) =
                    if signed { ((value as i32) < 0, (value as i32).unsigned_abs()) } else { (false, value) };
                let exact = Exact { negative, magnitude: u128::from(magnitude), exponent: 0 };
                assert_eq!(
                    output[index] as u16,
                    format.round(exact, Rounding::Nearest) as u16,
                    "{instruction} {value:#x}"
                );
            }
        }
        // 64-bit sources: the high word in a, the low word in b.
        let high = random.u32_with_edges(1024);
        for (source, signed, rounding, modifier) in [
            ("s64", true, Rounding::Nearest, "rn"),
            ("u64", false, Rounding::Nearest, "rn"),
            ("s64", true, Rounding::Zero, "rz"),
            ("u64", false, Rounding::Up, "rp"),
        ] {
            let instruction = format!("cvt.{modifier}.{name}.{source}");
            let body = format!(
                "ld.global.u32 %r1, [%rd1];\nld.global.u32 %r2, [%rd2];\ncvt.u64.u32 %rd10, %r1;\ncvt.u64.u32 %rd11, %r2;\n\
                 shl.b64 %rd10, %rd10, 32;\nor.b64 %rd10, %rd10, %rd11;\n{instruction} %h4, %rd10;\nst.global.b16 [%rd4], %h4;"
            );
            let output = run_elements(&body, &high, &values, &values);
            for index in 0..values.len() {
                let value = (u64::from(high[index]) << 32) | u64::from(values[index]);
                let (negative, magnitude) =
                    if signed { ((value as i64) < 0, (value as i64).unsigned_abs()) } else { (false, value) };
                let exact = Exact { negative, magnitude: u128::from(magnitude), exponent: 0 };
                assert_eq!(output[index] as u16, format.round(exact, rounding) as u16, "{instruction} {value:#x}");
            }
        }
        // Back to integers in each integral rounding, clamped into range, NaN to 0.
        let inputs: Vec<u32> = (0..65536u32).collect();
        // ptxas 12.9 wants the rounding ('Rounding modifier required for instruction 'cvt'').
        for (modifier, destination) in [("rni.", "s32"), ("rmi.", "u32"), ("rpi.", "s32"), ("rzi.", "s32")] {
            let instruction = format!("cvt.{modifier}{destination}.{name}");
            let body = format!("ld.global.b16 %h1, [%rd1];\n{instruction} %r4, %h1;\nst.global.b32 [%rd4], %r4;");
            let output = run_elements(&body, &inputs, &inputs, &inputs);
            for (index, &bits) in inputs.iter().enumerate() {
                let value = half_value(format, bits as u16);
                let integral = match modifier {
                    "rni." => value.round_ties_even(),
                    "rmi." => value.floor(),
                    "rpi." => value.ceil(),
                    _ => value.trunc(),
                };
                let expected = if value.is_nan() {
                    0
                } else if destination == "u32" {
                    integral.clamp(0.0, f64::from(u32::MAX)) as u32
                } else {
                    integral.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32 as u32
                };
                assert_eq!(output[index], expected, "{instruction} {bits:#06x}");
            }
        }
    }
}

/// `.satfinite` rounding of an f32 to an 8-bit float: NaN is 0x7f, out-of-range values keep
/// their sign at the largest finite value.
fn to_float8(format: Format, bits: u32, relu_applies: bool) -> u8 {
    let value = f32::from_bits(bits);
    let largest = if format == E4M3 { 0x7e } else { 0x7b };
    let result = if value.is_nan() {
        return 0x7f;
    } else if value.is_infinite() {
        largest
    } else {
        let exact = float_exact(bits).unwrap_or(Exact { negative: false, magnitude: 0, exponent: 0 });
        let rounded = format.round(Exact { negative: false, ..exact }, Rounding::Nearest);
        if rounded >= format.infinity() && format == E5M2 {
            largest
        } else {
            rounded.min(largest)
        }
    } as u8;
    if value.is_sign_negative() {
        if relu_applies {
            0
        } else {
            result | 0x80
        }
    } else {
        result
    }
}

#[test]
fn float8_conversions_round_saturate_and_unpack() {
    let mut random = Random::new(10);
    let mut a = random_floats(&mut random, 2048);
    let mut b = random_floats(&mut random, 2048);
    b.reverse();
    // Values around the formats' ranges and halfway points.
    for (index, value) in
        [448.0f32, 464.0, 480.0, 57344.0, 61440.0, 0.001953125, 0.0009765625, 3.0 / 2048.0, 1.0625].iter().enumerate()
    {
        a[index] = value.to_bits();
        b[index] = (-value).to_bits();
    }
    for (format, name) in [(E4M3, "e4m3x2"), (E5M2, "e5m2x2")] {
        for (modifiers, relu_applies) in [("rn.satfinite", false), ("rn.satfinite.relu", true)] {
            let instruction = format!("cvt.{modifiers}.{name}.f32");
            let body = format!(
                "ld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd2];\n{instruction} %h4, %f1, %f2;\nst.global.b16 [%rd4], %h4;"
            );
            let output = run_elements(&body, &a, &b, &a);
            for index in 0..a.len() {
                let expected = u32::from(to_float8(format, b[index], relu_applies))
                    | u32::from(to_float8(format, a[index], relu_applies)) << 8;
                assert_eq!(output[index], expected, "{instruction} {:#010x} {:#010x}", a[index], b[index]);
            }
        }
        // Every byte, unpacked to f16 (exact) in both positions.
        let inputs: Vec<u32> = (0..256u32).map(|byte| byte | ((255 - byte) << 8)).collect();
        let instruction = format!("cvt.rn.f16x2.{name}");
        let body = format!("ld.global.b16 %h1, [%rd1];\n{instruction} %r4, %h1;\nst.global.b32 [%rd4], %r4;");
        let output = run_elements(&body, &inputs, &inputs, &inputs);
        let unpack = |byte: u32| match format.decode(u64::from(byte)) {
            Decoded::Finite(exact) => F16.round(exact, Rounding::Nearest) as u16,
            Decoded::Infinite(negative) => 0x7c00 | if negative { 0x8000 } else { 0 },
            Decoded::NotANumber => CANONICAL_NAN,
        };
        for (index, &input) in inputs.iter().enumerate() {
            let expected = packed(unpack(input & 0xff), unpack(input >> 8));
            assert_eq!(output[index], expected, "{instruction} {input:#06x}");
        }
        // And back from f16x2: every f16 value in the low lane.
        let halves: Vec<u32> = (0..65536u32).map(|bits| bits | 0x3c00_0000).collect();
        let instruction = format!("cvt.rn.satfinite.{name}.f16x2");
        let body = format!("ld.global.b32 %r1, [%rd1];\n{instruction} %h4, %r1;\nst.global.b16 [%rd4], %h4;");
        let output = run_elements(&body, &halves, &halves, &halves);
        for (index, &input) in halves.iter().enumerate() {
            let as_float = |bits: u16| (f16::from_bits(bits).to_f32()).to_bits();
            let expected = u32::from(to_float8(format, as_float(input as u16), false))
                | u32::from(to_float8(format, as_float((input >> 16) as u16), false)) << 8;
            assert_eq!(output[index], expected, "{instruction} {input:#010x}");
        }
        // And from bf16x2 (PTX 9.x; nvcc 13.5 writes it for `__nv_fp8x2_e5m2(__nv_bfloat162)` at
        // sm_100a): every bf16 value in the low lane, with and without `.relu`.
        let brains: Vec<u32> = (0..65536u32).map(|bits| bits | 0xc0a0_0000).collect();
        for (modifiers, relu_applies) in [("rn.satfinite", false), ("rn.satfinite.relu", true)] {
            let instruction = format!("cvt.{modifiers}.{name}.bf16x2");
            let body = format!("ld.global.b32 %r1, [%rd1];\n{instruction} %h4, %r1;\nst.global.b16 [%rd4], %h4;");
            let output = run_elements(&body, &brains, &brains, &brains);
            for (index, &input) in brains.iter().enumerate() {
                // A bf16 value is the upper half of the `float` with the same value.
                let as_float = |bits: u32| (bits & 0xffff) << 16;
                let expected = u32::from(to_float8(format, as_float(input), relu_applies))
                    | u32::from(to_float8(format, as_float(input >> 16), relu_applies)) << 8;
                assert_eq!(output[index], expected, "{instruction} {input:#010x}");
            }
        }
    }
}

#[test]
fn typed_half_registers_hold_their_bits() {
    // `.f16` and `.f16x2` registers filled by bit loads and `mov`, read by half arithmetic.
    let body = "\
        .reg .f16 %fh<4>;\n.reg .f16x2 %fx<3>;\n\
        ld.global.b16 %fh1, [%rd1];\nld.global.b16 %fh2, [%rd2];\nmov.b16 %fh3, %fh2;\n\
        add.f16 %fh3, %fh1, %fh3;\nld.global.b32 %fx1, [%rd3];\nmov.b32 %fx2, %fx1;\nneg.f16x2 %fx2, %fx2;\n\
        mov.b32 %r4, %fx2;\nst.global.b32 [%rd4], %r4;\nst.global.b16 [%rd4], %fh3;";
    let mut random = Random::new(11);
    let a = packed_inputs(&mut random, F16, 256);
    let b = packed_inputs(&mut random, F16, 256);
    let c = packed_inputs(&mut random, F16, 256);
    let output = run_elements(body, &a, &b, &c);
    for index in 0..a.len() {
        let sum = arithmetic(F16, Operation::Add, [lanes(a[index])[0], lanes(b[index])[0], 0]);
        let expected = packed(sum, lanes(c[index])[1] ^ 0x8000);
        assert_eq!(output[index], expected, "{:#010x} {:#010x} {:#010x}", a[index], b[index], c[index]);
    }
}

#[test]
fn set_on_integer_and_float_sources() {
    // set.lt.u32.s32, set.gtu.f32.f32 (1.0f) and set.ne.and.s32.u32 with a predicate.
    let body = "\
        ld.global.u32 %r1, [%rd1];\nld.global.u32 %r2, [%rd2];\nld.global.u32 %r3, [%rd3];\n\
        set.lt.u32.s32 %r4, %r1, %r2;\nmov.b32 %f1, %r1;\nmov.b32 %f2, %r2;\nset.gtu.f32.f32 %r5, %f1, %f2;\n\
        setp.ne.u32 %p1, %r3, 0;\nset.ne.and.s32.u32 %r6, %r1, %r2, !%p1;\n\
        and.b32 %r4, %r4, 0xff;\nand.b32 %r6, %r6, 0xff00;\nor.b32 %r4, %r4, %r6;\nxor.b32 %r4, %r4, %r5;\n\
        st.global.b32 [%rd4], %r4;";
    let mut random = Random::new(12);
    let a = random.u32_with_edges(512);
    let mut b = random.u32_with_edges(512);
    b.reverse();
    b[..32].copy_from_slice(&a[..32]);
    let c: Vec<u32> = (0..512).map(|_| random.next_u32() & 1).collect();
    // Some NaNs and signed zeros among the floats.
    let mut a = a;
    a[40] = 0x7fc0_0000;
    a[41] = 0x8000_0000;
    b[41] = 0;
    let output = run_elements(body, &a, &b, &c);
    for index in 0..a.len() {
        let (x, y) = (a[index], b[index]);
        let less = if (x as i32) < (y as i32) { 0xff } else { 0 };
        let (fx, fy) = (f32::from_bits(x), f32::from_bits(y));
        let greater_unordered = if fx.is_nan() || fy.is_nan() || fx > fy { 0x3f80_0000 } else { 0 };
        let not_equal_and = if x != y && c[index] == 0 { 0xff00 } else { 0 };
        assert_eq!(output[index], (less | not_equal_and) ^ greater_unordered, "{x:#x} {y:#x} {}", c[index]);
    }
}

/// Whether `got` is `exact` rounded to `format` to nearest or one of that value's two neighbours:
/// the `.approx` functions promise a relative error of about one unit in the last place
/// (2^-10.987 for `tanh.approx.f16`, 2^-9.9 for `ex2.approx.f16` in NVIDIA's manual), and NaN
/// results are the canonical NaN.
fn within_one_unit(format: Format, got: u16, exact: f64) -> bool {
    let Decoded::Finite(exact_value) = F64.decode(exact.to_bits()) else {
        return if exact.is_nan() {
            got == CANONICAL_NAN
        } else {
            u64::from(got) == format.infinity() | if exact < 0.0 { format.sign_bit() } else { 0 }
        };
    };
    let nearest = format.round(exact_value, Rounding::Nearest) as u16;
    // Neighbours by magnitude (sign-magnitude bits): one below, one above.
    let magnitude = nearest & 0x7fff;
    let sign = nearest & 0x8000;
    let below = if magnitude == 0 { nearest } else { sign | (magnitude - 1) };
    let above = sign | (magnitude + 1);
    got == nearest || got == below || got == above
}

/// Flushes a subnormal `.bf16` lane to zero of its sign (`.ftz`).
fn flush_brain(bits: u16) -> u16 {
    if bits & 0x7f80 == 0 {
        bits & 0x8000
    } else {
        bits
    }
}

#[test]
fn approximate_tanh_and_exp2_on_half_types() {
    let mut random = Random::new(13);
    for (format, scalar, packed_type) in [(F16, "f16", "f16x2"), (BF16, "bf16", "bf16x2")] {
        let brain = format == BF16;
        let a = packed_inputs(&mut random, format, 2048);
        let exp2 = if brain { "ex2.approx.ftz" } else { "ex2.approx" };
        for (opcode, function) in [("tanh.approx", f64::tanh as fn(f64) -> f64), (exp2, f64::exp2)] {
            let is_exp2 = opcode.starts_with("ex2");
            for (instruction, lane_count) in [(format!("{opcode}.{packed_type}"), 2), (format!("{opcode}.{scalar}"), 1)]
            {
                let body = if lane_count == 2 { packed_body(&instruction, 1) } else { scalar_body(&instruction, 1) };
                let output = run_elements(&body, &a, &a, &a);
                for (index, &packed_output) in output.iter().enumerate() {
                    for lane in 0..lane_count {
                        let input = lanes(a[index])[lane];
                        let got = lanes(packed_output)[lane];
                        // `.ftz` (the `.bf16` `ex2`): subnormal inputs count as zero, and a
                        // subnormal result is flushed.
                        let (input, got_checked) =
                            if brain && is_exp2 { (flush_brain(input), got) } else { (input, got) };
                        let exact = function(value_of(format, u64::from(input)));
                        let accepted = if brain && is_exp2 {
                            let nearest = match F64.decode(exact.to_bits()) {
                                Decoded::Finite(value) => format.round(value, Rounding::Nearest) as u16,
                                _ => 0xffff,
                            };
                            // Results near the subnormal range are flushed to +0.
                            within_one_unit(format, got_checked, exact)
                                || (got_checked == 0 && (nearest & 0x7f80 == 0 || nearest == 0x0080))
                        } else {
                            within_one_unit(format, got_checked, exact)
                        };
                        assert!(
                            accepted,
                            "{instruction} lane {lane} of {:#06x}: got {got:#06x}, exact {exact:e}",
                            lanes(a[index])[lane]
                        );
                        if brain && is_exp2 {
                            assert!(
                                got & 0x7fff == 0 || got & 0x7f80 != 0,
                                "{instruction}: subnormal result {got:#06x} not flushed"
                            );
                            assert!(got != 0 || exact < 2f64.powi(-125), "{instruction} of {input:#06x}: got 0");
                        }
                    }
                }
            }
        }
        // Exact points: tanh(±0) = ±0, tanh(±inf) = ±1, 2^0 = 1, 2^-inf = +0, 2^inf = inf.
        let infinity = format.infinity() as u16;
        let one = format.round(Exact { negative: false, magnitude: 1, exponent: 0 }, Rounding::Nearest) as u16;
        let specials = [0u16, 0x8000, infinity, infinity | 0x8000];
        let a: Vec<u32> = specials.iter().map(|&bits| packed(bits, bits)).collect();
        let tanh = run_elements(&packed_body(&format!("tanh.approx.{packed_type}"), 1), &a, &a, &a);
        let exp2 = run_elements(&packed_body(&format!("{exp2}.{packed_type}"), 1), &a, &a, &a);
        let expected_tanh = [0, 0x8000, one, one | 0x8000];
        let expected_exp2 = [one, one, infinity, 0];
        for index in 0..specials.len() {
            assert_eq!(lanes(tanh[index]), [expected_tanh[index]; 2], "tanh of {:#06x}", specials[index]);
            assert_eq!(lanes(exp2[index]), [expected_exp2[index]; 2], "ex2 of {:#06x}", specials[index]);
        }
    }
}

/// A 6- or 4-bit float of OCP Microscaling Formats v1.0 (no infinity, no NaN): its layout.
struct MicroFloat {
    name: &'static str,
    width: u32,
    mantissa_bits: u32,
    bias: i32,
}

const MICRO_FLOATS: [MicroFloat; 3] = [
    MicroFloat { name: "e2m1x2", width: 4, mantissa_bits: 1, bias: 1 },
    MicroFloat { name: "e2m3x2", width: 6, mantissa_bits: 3, bias: 1 },
    MicroFloat { name: "e3m2x2", width: 6, mantissa_bits: 2, bias: 3 },
];

impl MicroFloat {
    /// The value of a non-negative encoding, exactly (every one is a small dyadic rational).
    fn value(&self, code: u32) -> f64 {
        let exponent = (code >> self.mantissa_bits) as i32;
        let mantissa = f64::from(code & ((1 << self.mantissa_bits) - 1));
        let (significand, exponent) = if exponent == 0 {
            (mantissa, 1 - self.bias)
        } else {
            (mantissa + f64::from(1u32 << self.mantissa_bits), exponent - self.bias)
        };
        significand * 2f64.powi(exponent - self.mantissa_bits as i32)
    }

    fn sign_bit(&self) -> u32 {
        1 << (self.width - 1)
    }

    fn largest_code(&self) -> u32 {
        self.sign_bit() - 1
    }

    /// `cvt.rn.satfinite[.relu]` of one `float`: the nearest value by search over all encodings
    /// (ties to the even encoding), which also clamps what lies past the largest value; NaN gives
    /// the positive largest value, as the PTX ISA's `.satfinite` says for formats without NaN.
    fn round(&self, bits: u32, relu: bool) -> u32 {
        let value = f32::from_bits(bits);
        if value.is_nan() {
            return self.largest_code();
        }
        let negative = value.is_sign_negative();
        if negative && relu {
            return 0;
        }
        let magnitude = f64::from(value.abs());
        if magnitude > self.value(self.largest_code()) {
            // `.satfinite` (infinities too, which the distance search cannot rank).
            let largest = self.largest_code();
            return if negative { largest | self.sign_bit() } else { largest };
        }
        let mut best = 0;
        for code in 1..=self.largest_code() {
            let distance = (self.value(code) - magnitude).abs();
            let best_distance = (self.value(best) - magnitude).abs();
            if distance < best_distance || (distance == best_distance && code % 2 == 0) {
                best = code;
            }
        }
        if negative {
            best | self.sign_bit()
        } else {
            best
        }
    }

    /// Each value, each halfway point and their neighbouring `float`s, both signs, plus
    /// infinities, NaNs and values far out of range.
    fn interesting_inputs(&self) -> Vec<u32> {
        let mut values = vec![f32::INFINITY, f32::NAN, 1e30, 1e-30, f32::MIN_POSITIVE, 0.0];
        for code in 0..=self.largest_code() {
            let here = self.value(code);
            let next = if code < self.largest_code() { self.value(code + 1) } else { 2.0 * here };
            for point in [here, (here + next) / 2.0] {
                values.push(point as f32);
            }
        }
        let mut inputs = Vec::new();
        for value in values {
            for bits in [value.to_bits().wrapping_sub(1), value.to_bits(), value.to_bits() + 1] {
                inputs.push(bits);
                inputs.push(bits ^ 0x8000_0000);
            }
        }
        inputs.push(0xffc0_1234);
        inputs
    }
}

/// Pads to whole blocks of 256 with copies of the first input.
fn whole_blocks(mut values: Vec<u32>) -> Vec<u32> {
    let first = values[0];
    values.resize(values.len().div_ceil(256) * 256, first);
    values
}

#[test]
fn micro_float_conversions_round_saturate_and_unpack() {
    let mut random = Random::new(12);
    for format in &MICRO_FLOATS {
        let interesting = format.interesting_inputs();
        let mut a = random_floats(&mut random, 256);
        a.extend(&interesting);
        let a = whole_blocks(a);
        // The second source runs through the same values shifted, so each pairs with others.
        let mut b = a.clone();
        b.rotate_left(7);
        let name = format.name;
        let (register, pair_bits) = if format.width == 4 { ("%c", 4) } else { ("%h", 8) };
        let store = if format.width == 4 { "st.global.b8" } else { "st.global.b16" };
        for (modifiers, relu) in [("rn.satfinite", false), ("rn.satfinite.relu", true)] {
            let instruction = format!("cvt.{modifiers}.{name}.f32");
            let body = format!(
                ".reg .b8 %c<5>;\nld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd2];\n\
                 {instruction} {register}4, %f1, %f2;\n{store} [%rd4], {register}4;"
            );
            let output = run_elements_on_sm_100a(&body, &a, &b, &a);
            for index in 0..a.len() {
                // `a` goes to the upper lane, `b` to the lower.
                let expected = format.round(b[index], relu) | format.round(a[index], relu) << pair_bits;
                assert_eq!(output[index], expected, "{instruction} {:#010x} {:#010x}", a[index], b[index]);
            }
        }
        // Every encoding pair unpacked to f16 (exact), with the unused top bits of 6-bit lanes set
        // to show they are ignored.
        let lane_mask = (1u32 << format.width) - 1;
        let lane_count = 1u32 << format.width;
        let codes: Vec<u32> = (0..lane_count * lane_count)
            .map(|pair| {
                let (low, high) = (pair % lane_count, pair / lane_count);
                if format.width == 4 {
                    low | high << 4
                } else {
                    (low | 0xc0) | high << 8
                }
            })
            .collect();
        let codes = whole_blocks(codes);
        let (load, source) = if format.width == 4 { ("ld.global.b8 %c1", "%c1") } else { ("ld.global.b16 %h1", "%h1") };
        for (modifiers, relu) in [("rn", false), ("rn.relu", true)] {
            let instruction = format!("cvt.{modifiers}.f16x2.{name}");
            let body =
                format!(".reg .b8 %c<5>;\n{load}, [%rd1];\n{instruction} %r4, {source};\nst.global.b32 [%rd4], %r4;");
            let output = run_elements_on_sm_100a(&body, &codes, &codes, &codes);
            let unpack = |code: u32| {
                let code = code & lane_mask;
                let magnitude = format.value(code & (format.sign_bit() - 1));
                let negative = code & format.sign_bit() != 0;
                let bits = f16::from_f64(magnitude).to_bits();
                assert_eq!(f16::from_bits(bits).to_f64(), magnitude, "every {name} value is an f16");
                if !negative {
                    bits
                } else if relu {
                    0
                } else {
                    bits | 0x8000
                }
            };
            for (index, &input) in codes.iter().enumerate() {
                let (low, high) =
                    if format.width == 4 { (input & 0xf, input >> 4) } else { (input & 0xff, input >> 8) };
                let expected = packed(unpack(low), unpack(high));
                assert_eq!(output[index], expected, "{instruction} {input:#06x}");
            }
        }
    }
}

/// `cvt.rn.bf16x2.ue8m0x2`: every pair of scales, each 2^(e - 127) (OCP MX v1.0, E8M0), which
/// `bf16` holds exactly (2^-127 as a subnormal); `0xff` is NaN, the canonical `0x7fff`.
#[test]
fn scale_pairs_widen_to_bf16x2() {
    let scales: Vec<u32> = (0..65536u32).collect();
    let body = "ld.global.b16 %h1, [%rd1];\ncvt.rn.bf16x2.ue8m0x2 %r4, %h1;\nst.global.b32 [%rd4], %r4;";
    let output = run_elements_on_sm_100a(body, &scales, &scales, &scales);
    let widen = |scale: u32| {
        if scale == 0xff {
            return CANONICAL_NAN;
        }
        let value = 2f64.powi(scale as i32 - 127);
        let bits = bf16::from_f64(value).to_bits();
        assert_eq!(bf16::from_bits(bits).to_f64(), value, "2^({scale} - 127) is a bf16");
        bits
    };
    for (index, &input) in scales.iter().enumerate() {
        let expected = packed(widen(input & 0xff), widen(input >> 8));
        assert_eq!(output[index], expected, "cvt.rn.bf16x2.ue8m0x2 {input:#06x}");
    }
}
