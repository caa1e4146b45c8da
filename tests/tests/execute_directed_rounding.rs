//! Execution of directed rounding (`.rz`, `.rm`, `.rp`) in `fma`/`mad` and `cvt` on the CPU
//! (ISA 7.8 sections 9.7.3.5, 9.7.3.6 and 9.7.8.21) against an exact model: every operand is
//! an integer times a power of two, the exact result is computed in `i128` and rounded to the
//! destination's precision in the requested direction here. Random operands keep the exact
//! result inside `i128` and the normal range; edge cases (zeros and their signs, infinities,
//! NaN, overflow) are checked against IEEE 754's rules directly. `.f64` `mul`, `div`, `rcp`,
//! `sqrt` and `fma` whose results lie near or in the subnormals are compared with the exact
//! result in integers (see the section at the end).

use ptxr_tests::{run_ok, Buffer, Launch, Random};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Zero,
    Down,
    Up,
}

const MODES: [(Mode, &str); 3] = [(Mode::Zero, "rz"), (Mode::Down, "rm"), (Mode::Up, "rp")];

/// A finite float as `(mantissa, exponent)` with `value = mantissa * 2^exponent`.
fn decompose(value: f64) -> (i128, i32) {
    if value == 0.0 {
        return (0, 0);
    }
    let bits = value.to_bits();
    let exponent_field = ((bits >> 52) & 0x7ff) as i32;
    let fraction = i128::from(bits & 0x000f_ffff_ffff_ffff);
    let (mut mantissa, mut exponent) =
        if exponent_field == 0 { (fraction, -1074) } else { (fraction | (1 << 52), exponent_field - 1075) };
    // Without trailing zeros, so that products of f32 values stay 48 bits wide.
    let zeros = mantissa.trailing_zeros();
    mantissa >>= zeros;
    exponent += zeros as i32;
    (if value < 0.0 { -mantissa } else { mantissa }, exponent)
}

/// `mantissa * 2^exponent` rounded to `precision` significant bits in `mode` (the result is
/// assumed to be in the destination's normal range), as an `f64`.
fn round_exact(mantissa: i128, exponent: i32, precision: u32, mode: Mode) -> f64 {
    if mantissa == 0 {
        return 0.0;
    }
    let negative = mantissa < 0;
    let magnitude = mantissa.unsigned_abs();
    let length = 128 - magnitude.leading_zeros();
    let (mut kept, shift) = if length > precision {
        let shift = length - precision;
        let kept = magnitude >> shift;
        let inexact = magnitude & ((1u128 << shift) - 1) != 0;
        let away = inexact && matches!((mode, negative), (Mode::Up, false) | (Mode::Down, true));
        (kept + u128::from(away), shift as i32)
    } else {
        (magnitude, 0)
    };
    // Scale in two steps so that no intermediate power of two overflows.
    let mut value = 0.0;
    let mut scale = exponent + shift;
    while kept != 0 {
        let chunk = (kept & 0xffff_ffff) as f64;
        value += chunk * 2f64.powi(scale);
        kept >>= 32;
        scale += 32;
    }
    if negative {
        -value
    } else {
        value
    }
}

/// `a * b + c` exactly, rounded.
fn fused_model(a: f64, b: f64, c: f64, precision: u32, mode: Mode) -> f64 {
    let (ma, ea) = decompose(a);
    let (mb, eb) = decompose(b);
    let (mc, ec) = decompose(c);
    let (product, product_exponent) = (ma * mb, ea + eb);
    if mc == 0 {
        return round_exact(product, product_exponent, precision, mode);
    }
    if product == 0 {
        return round_exact(mc, ec, precision, mode);
    }
    let low = product_exponent.min(ec);
    let sum = (product << (product_exponent - low)) + (mc << (ec - low));
    round_exact(sum, low, precision, mode)
}

/// Runs `body` (reading `%a`, `%b`, `%c`, writing `%d`, all of `.{ty}`) once per row.
fn run_rows(ty: &str, body: &str, rows: &[[u64; 3]]) -> Vec<u64> {
    let bytes = if ty == "f64" { 8 } else { 4 };
    let ptx = format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
         .reg .{ty} %a, %b, %c, %d;\n.reg .u64 %rd<6>;\n.reg .u32 %thread;\n\
         ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %thread, %tid.x;\n\
         mul.wide.u32 %rd3, %thread, {};\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %thread, {bytes};\nadd.u64 %rd5, %rd2, %rd3;\n\
         ld.global.{ty} %a, [%rd4];\nld.global.{ty} %b, [%rd4+{bytes}];\nld.global.{ty} %c, [%rd4+{}];\n{body}\n\
         st.global.{ty} [%rd5], %d;\nret;\n}}\n",
        3 * bytes,
        2 * bytes
    );
    let element = if ty == "f64" { "b64" } else { "b32" };
    let flat: Vec<u64> = rows.iter().flatten().copied().collect();
    let result = run_ok(
        &ptx,
        &Launch::threads(rows.len() as u32),
        &[Buffer::new(element, flat), Buffer::zeroed(element, rows.len())],
    );
    result[1].clone()
}

/// A random value `±m * 2^e` with a full `bits`-bit mantissa and `e` in `exponents`.
fn random_float(random: &mut Random, bits: u32, exponents: std::ops::Range<i32>) -> f64 {
    let mantissa = (random.next_u64() >> (64 - bits)) | (1 << (bits - 1));
    let span = (exponents.end - exponents.start) as u64;
    let exponent = exponents.start + (random.next_u64() % span) as i32 - bits as i32 + 1;
    let value = mantissa as f64 * 2f64.powi(exponent);
    if random.next_u32() & 1 == 1 {
        -value
    } else {
        value
    }
}

#[test]
fn fma_f32_in_each_direction_matches_the_exact_model() {
    let mut random = Random::new(61);
    let mut operands: Vec<[f32; 3]> = Vec::new();
    for index in 0..192 {
        let a = random_float(&mut random, 24, -20..20) as f32;
        let b = random_float(&mut random, 24, -20..20) as f32;
        let product = f64::from(a) * f64::from(b);
        let c = match index % 3 {
            // Near cancellation: minus the product rounded, so the result is the tiny rest.
            0 => -(product as f32),
            1 => random_float(&mut random, 24, -40..40) as f32,
            _ => (product * 2f64.powi((random.next_u32() % 30) as i32 - 15)) as f32,
        };
        operands.push([a, b, c]);
    }
    let rows: Vec<[u64; 3]> = operands.iter().map(|row| row.map(|value| u64::from(value.to_bits()))).collect();
    for (mode, name) in MODES {
        for opcode in ["fma", "mad"] {
            let output = run_rows("f32", &format!("{opcode}.{name}.f32 %d, %a, %b, %c;"), &rows);
            for (row, &bits) in operands.iter().zip(&output) {
                let [a, b, c] = row.map(f64::from);
                let expected = fused_model(a, b, c, 24, mode) as f32;
                assert_eq!(
                    bits as u32,
                    expected.to_bits(),
                    "{opcode}.{name}.f32 {a:e} * {b:e} + {c:e}: got {:e}, expected {expected:e}",
                    f32::from_bits(bits as u32)
                );
            }
        }
    }
}

#[test]
fn fma_f64_in_each_direction_matches_the_exact_model() {
    let mut random = Random::new(67);
    let mut operands: Vec<[f64; 3]> = Vec::new();
    for index in 0..192 {
        let a = random_float(&mut random, 53, -60..60);
        let b = random_float(&mut random, 53, -60..60);
        let (_, product_exponent) = decompose(a * b);
        let c = match index % 3 {
            0 => -(a * b),
            _ => {
                let exponent = product_exponent + 52 + (random.next_u32() % 20) as i32 - 10;
                random_float(&mut random, 53, exponent..exponent + 1)
            }
        };
        operands.push([a, b, c]);
    }
    let rows: Vec<[u64; 3]> = operands.iter().map(|row| row.map(f64::to_bits)).collect();
    for (mode, name) in MODES {
        let output = run_rows("f64", &format!("fma.{name}.f64 %d, %a, %b, %c;"), &rows);
        for (&[a, b, c], &bits) in operands.iter().zip(&output) {
            let expected = fused_model(a, b, c, 53, mode);
            assert_eq!(
                bits,
                expected.to_bits(),
                "fma.{name}.f64 {a:e} * {b:e} + {c:e}: got {:e}, expected {expected:e}",
                f64::from_bits(bits)
            );
        }
    }
}

#[test]
fn directed_sums_follow_ieee_for_zeros_infinities_nan_and_overflow() {
    let max = f32::MAX;
    // (a, b, c, [rz, rm, rp]) of fma.
    let cases: [([f32; 3], [f32; 3]); 8] = [
        // An exact cancellation is +0, but -0 when rounding down.
        ([1.0, 1.0, -1.0], [0.0, -0.0, 0.0]),
        ([0.0, 5.0, 0.0], [0.0, 0.0, 0.0]),
        ([-0.0, 5.0, -0.0], [-0.0, -0.0, -0.0]),
        ([-0.0, 5.0, 0.0], [0.0, -0.0, 0.0]),
        ([f32::INFINITY, 1.0, 1.0], [f32::INFINITY; 3]),
        // Overflow: only the direction away from zero reaches infinity.
        ([max, 2.0, 0.0], [max, max, f32::INFINITY]),
        ([max, -2.0, 0.0], [-max, f32::NEG_INFINITY, -max]),
        ([f32::INFINITY, 0.0, 1.0], [f32::NAN; 3]),
    ];
    let rows: Vec<[u64; 3]> = cases.iter().map(|(row, _)| row.map(|value| u64::from(value.to_bits()))).collect();
    for (position, (_, name)) in MODES.iter().enumerate() {
        let output = run_rows("f32", &format!("fma.{name}.f32 %d, %a, %b, %c;"), &rows);
        for ((operands, expected), &bits) in cases.iter().zip(&output) {
            let result = f32::from_bits(bits as u32);
            let wanted = expected[position];
            let same = if wanted.is_nan() { result.is_nan() } else { result.to_bits() == wanted.to_bits() };
            assert!(same, "fma.{name}.f32 {operands:?}: got {result:?}, expected {wanted:?}");
        }
        // add and sub sign an exact zero the same way.
        let output = run_rows(
            "f32",
            &format!("add.{name}.f32 %d, %a, %c;\nsub.{name}.f32 %b, %a, %a;\nadd.f32 %d, %d, %b;"),
            &[[u64::from(3.5f32.to_bits()), 0, u64::from((-3.5f32).to_bits())]],
        );
        let expected = if *name == "rm" { -0.0f32 } else { 0.0 };
        assert_eq!(output[0] as u32, expected.to_bits(), "add.{name} and sub.{name} of x and -x");
    }
}

#[test]
fn cvt_f64_to_f32_in_each_direction_matches_the_exact_model() {
    let mut random = Random::new(71);
    let mut values: Vec<f64> = (0..160).map(|_| random_float(&mut random, 53, -100..100)).collect();
    // f32-representable values, ties and the largest finite values.
    values.extend([1.0, -0.0, 0.0, 1.0 + 2f64.powi(-24), -(1.0 + 2f64.powi(-24)), f64::from(f32::MAX)]);
    let edges = [f64::from(f32::MAX) * 1.5, -f64::from(f32::MAX) * 1.5, f64::INFINITY, f64::NAN];
    for (mode, name) in MODES {
        let rows: Vec<[u64; 3]> = values.iter().chain(&edges).map(|value| [value.to_bits(), 0, 0]).collect();
        let ptx_body = format!(".reg .f32 %narrow;\ncvt.{name}.f32.f64 %narrow, %a;\ncvt.f64.f32 %d, %narrow;");
        let output = run_rows("f64", &ptx_body, &rows);
        for (value, &bits) in values.iter().zip(&output) {
            let (mantissa, exponent) = decompose(*value);
            // A zero converts to itself, sign included.
            let expected = if *value == 0.0 { *value as f32 } else { round_exact(mantissa, exponent, 24, mode) as f32 };
            let result = f64::from_bits(bits) as f32;
            assert_eq!(result.to_bits(), expected.to_bits(), "cvt.{name}.f32.f64 {value:e}");
        }
        let results: Vec<f64> = output[values.len()..].iter().map(|&bits| f64::from_bits(bits)).collect();
        let max = f64::from(f32::MAX);
        let overflow = match mode {
            Mode::Zero => [max, -max],
            Mode::Down => [max, f64::NEG_INFINITY],
            Mode::Up => [f64::INFINITY, -max],
        };
        assert_eq!(results[..2], overflow, "cvt.{name}.f32.f64 past the largest f32");
        assert_eq!(results[2], f64::INFINITY);
        assert!(results[3].is_nan());
    }
}

#[test]
fn cvt_integers_to_floats_in_each_direction_matches_the_exact_model() {
    let mut random = Random::new(73);
    let mut values: Vec<u64> = random.u64_with_edges(120);
    values.extend((0..40).map(|_| random.next_u64() >> (random.next_u32() % 64)));
    let rows: Vec<[u64; 3]> = values.iter().map(|&value| [value, 0, 0]).collect();
    for (mode, name) in MODES {
        for (source, signed, bits) in [("s64", true, 64), ("u64", false, 64), ("s32", true, 32), ("u32", false, 32)] {
            for (destination, precision) in [("f32", 24), ("f64", 53)] {
                let body = format!(
                    ".reg .b64 %bits;\n.reg .{destination} %converted;\nmov.b64 %bits, %a;\n\
                     cvt.{name}.{destination}.{source} %converted, %bits;\n{}",
                    if destination == "f32" { "cvt.f64.f32 %d, %converted;" } else { "mov.f64 %d, %converted;" }
                );
                let output = run_rows("f64", &body, &rows);
                for (&value, &result) in values.iter().zip(&output) {
                    let exact: i128 = match (signed, bits) {
                        (true, 64) => i128::from(value as i64),
                        (false, 64) => i128::from(value),
                        (true, _) => i128::from(value as u32 as i32),
                        (false, _) => i128::from(value as u32),
                    };
                    let expected = round_exact(exact, 0, precision, mode);
                    assert_eq!(f64::from_bits(result), expected, "cvt.{name}.{destination}.{source} of {exact}");
                }
            }
        }
    }
}

// ---- `.f64` results near and in the subnormals ----------------------------------------------
//
// Here the model compares the exact result with the nearest `f64` (the host's IEEE arithmetic)
// in integers: every operand is `m * 2^e` with `m` below 2^53, so products of two mantissas fit
// in `u128`, and two such values are compared by their leading bits, then aligned. The
// directed result is the nearest one or its neighbour on the exact result's side.

use std::cmp::Ordering;

/// `(negative, magnitude, exponent)`: the value `±magnitude * 2^exponent`.
type Exact = (bool, u128, i32);

fn exact(value: f64) -> Exact {
    let (mantissa, exponent) = decompose(value);
    (value.is_sign_negative(), mantissa.unsigned_abs(), exponent)
}

/// `p * 2^ep` against `q * 2^eq`, both non-negative.
fn compare_magnitudes(p: u128, ep: i32, q: u128, eq: i32) -> Ordering {
    if p == 0 || q == 0 {
        return p.cmp(&q);
    }
    let top = |m: u128, e: i32| (128 - m.leading_zeros()) as i32 + e;
    match top(p, ep).cmp(&top(q, eq)) {
        Ordering::Equal if ep >= eq => (p << (ep - eq)).cmp(&q),
        Ordering::Equal => p.cmp(&(q << (eq - ep))),
        unequal => unequal,
    }
}

fn compare_exact((x_negative, x, ex): Exact, (y_negative, y, ey): Exact) -> Ordering {
    let x_negative = x_negative && x != 0;
    let y_negative = y_negative && y != 0;
    match (x_negative, y_negative) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => compare_magnitudes(x, ex, y, ey),
        (true, true) => compare_magnitudes(y, ey, x, ex),
    }
}

fn next_up(value: f64) -> f64 {
    if value == 0.0 {
        return f64::from_bits(1);
    }
    let bits = value.to_bits();
    f64::from_bits(if value > 0.0 { bits + 1 } else { bits - 1 })
}

fn next_down(value: f64) -> f64 {
    -next_up(-value)
}

/// The result in `mode` from the nearest one and where the exact result lies relative to it.
fn directed_from_nearest(nearest: f64, exact_against_nearest: Ordering, mode: Mode) -> f64 {
    match (mode, exact_against_nearest) {
        (Mode::Up, Ordering::Greater) => next_up(nearest),
        (Mode::Down, Ordering::Less) => next_down(nearest),
        (Mode::Zero, Ordering::Greater) if nearest < 0.0 => next_up(nearest),
        (Mode::Zero, Ordering::Less) if nearest > 0.0 => next_down(nearest),
        _ => nearest,
    }
}

fn product_model(a: f64, b: f64, mode: Mode) -> f64 {
    let ((a_negative, ma, ea), (b_negative, mb, eb)) = (exact(a), exact(b));
    let nearest = a * b;
    directed_from_nearest(nearest, compare_exact((a_negative != b_negative, ma * mb, ea + eb), exact(nearest)), mode)
}

/// `a / b` lies above `q` when `a` lies above `q * b` for a positive `b` (below for a negative).
fn quotient_model(a: f64, b: f64, mode: Mode) -> f64 {
    let nearest = a / b;
    let (q_negative, mq, eq) = exact(nearest);
    let (b_negative, mb, eb) = exact(b);
    let against = compare_exact(exact(a), (q_negative != b_negative, mq * mb, eq + eb));
    directed_from_nearest(nearest, if b_negative { against.reverse() } else { against }, mode)
}

fn root_model(x: f64, mode: Mode) -> f64 {
    let nearest = x.sqrt();
    let (_, mr, er) = exact(nearest);
    directed_from_nearest(nearest, compare_exact(exact(x), (false, mr * mr, 2 * er)), mode)
}

/// `a * b + c` against the nearest `r`: the sign of `a * b + (c - r)`, where `c - r` is a whole
/// number of `2^-1074` (the operands keep it inside `i128`).
fn fused_subnormal_model(a: f64, b: f64, c: f64, mode: Mode) -> f64 {
    let nearest = a.mul_add(b, c);
    let ((a_negative, ma, ea), (b_negative, mb, eb)) = (exact(a), exact(b));
    let units = |value: f64| -> i128 {
        if value == 0.0 {
            return 0;
        }
        let (mantissa, exponent) = decompose(value);
        // The value is a whole number of 2^-1074 units that must fit in an i128.
        let width = 128 - mantissa.unsigned_abs().leading_zeros() as i32;
        assert!((exponent >= -1074 && width + exponent + 1074 <= 126), "{value:e} outside the model's range");
        mantissa << (exponent + 1074)
    };
    let rest = if c == nearest { 0 } else { units(c) - units(nearest) };
    let product = (a_negative != b_negative, ma * mb, ea + eb);
    // a * b + rest > 0  ⟺  a * b > -rest.
    let against = compare_exact(product, (rest > 0, rest.unsigned_abs(), -1074));
    if nearest == 0.0 && against == Ordering::Equal {
        // An exact zero (IEEE 754 section 6.3): two zero addends of one sign keep it; any other
        // exact zero sum is +0, or -0 when rounding down.
        let product_negative = a_negative != b_negative;
        let both_zero = ma * mb == 0 && c == 0.0;
        return if both_zero && product_negative == c.is_sign_negative() {
            if product_negative {
                -0.0
            } else {
                0.0
            }
        } else if mode == Mode::Down {
            -0.0
        } else {
            0.0
        };
    }
    directed_from_nearest(nearest, against, mode)
}

/// A random `f64` whose bits are all random below an exponent field of 0: a subnormal.
fn random_subnormal(random: &mut Random) -> f64 {
    let fraction = random.next_u64() >> (12 + random.next_u32() % 52);
    let value = f64::from_bits(fraction.max(1));
    if random.next_u32() & 1 == 1 {
        -value
    } else {
        value
    }
}

/// Factor pairs whose products straddle the smallest normal (`2^-1022`), reach the smallest
/// subnormal and below, and are exact: the edges, then random ones.
fn tiny_product_factors(random: &mut Random) -> Vec<(f64, f64)> {
    let smallest_normal = f64::MIN_POSITIVE;
    let smallest_subnormal = f64::from_bits(1);
    let mut pairs = vec![
        (smallest_normal, 1.0 - f64::EPSILON),
        (smallest_normal, 1.0 + f64::EPSILON),
        (next_down(smallest_normal), 1.0 + f64::EPSILON),
        (-smallest_normal, 0.75),
        (smallest_subnormal, 0.5),
        (smallest_subnormal, 0.5 + f64::EPSILON),
        (smallest_subnormal, -0.5 - f64::EPSILON),
        (smallest_subnormal, 1.5),
        (smallest_subnormal, 0.25),
        (-smallest_subnormal, 0.999),
        (smallest_subnormal, 3.0),
        (0.0, smallest_subnormal),
        (-0.0, 1e-300),
        (2f64.powi(-600) * 1.1, 2f64.powi(-470) * 1.3),
    ];
    for index in 0..120 {
        let (a, b) = match index % 4 {
            0 => (random_float(random, 53, -540..-480), random_float(random, 53, -560..-500)),
            1 => (random_subnormal(random), random_float(random, 53, -30..30)),
            2 => (random_float(random, 53, -1022..-1000), random_float(random, 53, -40..2)),
            _ => (random_float(random, 53, -520..-500), random_float(random, 53, -525..-505)),
        };
        pairs.push((a, b));
    }
    pairs
}

fn check_rows(instruction: &str, rows: &[[f64; 3]], model: impl Fn([f64; 3], Mode) -> f64) {
    let bits: Vec<[u64; 3]> = rows.iter().map(|row| row.map(f64::to_bits)).collect();
    for (mode, name) in MODES {
        let output = run_rows("f64", &instruction.replace("{mode}", name), &bits);
        for (&row, &result) in rows.iter().zip(&output) {
            let expected = model(row, mode);
            assert_eq!(
                result,
                expected.to_bits(),
                "{} on {row:?}: got {:e}, expected {expected:e}",
                instruction.replace("{mode}", name),
                f64::from_bits(result)
            );
        }
    }
}

#[test]
fn f64_products_quotients_and_roots_round_in_each_direction_into_the_subnormals() {
    let mut random = Random::new(71);
    let factors = tiny_product_factors(&mut random);
    let rows: Vec<[f64; 3]> = factors.iter().map(|&(a, b)| [a, b, 0.0]).collect();
    check_rows("mul.{mode}.f64 %d, %a, %b;", &rows, |[a, b, _], mode| product_model(a, b, mode));

    // Quotients: tiny dividends, huge divisors, and the reciprocals of values near 2^1023.
    let mut rows: Vec<[f64; 3]> = vec![
        [f64::MIN_POSITIVE, 1.0 + f64::EPSILON, 0.0],
        [f64::MIN_POSITIVE, 3.0, 0.0],
        [f64::from_bits(1), 3.0, 0.0],
        [f64::from_bits(3), 2.0, 0.0],
        [-f64::from_bits(5), 4.0, 0.0],
        [1.0, f64::MAX, 0.0],
        [-1.0, 2f64.powi(1023) * 1.5, 0.0],
        [0.0, 3.0, 0.0],
    ];
    for index in 0..120 {
        rows.push(match index % 3 {
            // Scaled down in a second step: 2^e alone underflows to 0 below 2^-1074.
            0 => {
                [random_float(&mut random, 53, -860..-800) * 2f64.powi(-200), random_float(&mut random, 53, 0..50), 0.0]
            }
            1 => [random_subnormal(&mut random), random_float(&mut random, 53, -3..40), 0.0],
            _ => [random_float(&mut random, 53, -30..30), random_float(&mut random, 53, 990..1024), 0.0],
        });
    }
    check_rows("div.{mode}.f64 %d, %a, %b;", &rows, |[a, b, _], mode| quotient_model(a, b, mode));
    let reciprocals: Vec<[f64; 3]> = rows
        .iter()
        .filter(|row| row[0].abs() == 1.0)
        .copied()
        .chain((0..60).map(|_| [random_float(&mut random, 53, 1015..1024), 0.0, 0.0]))
        .collect();
    check_rows("rcp.{mode}.f64 %d, %a;", &reciprocals, |[a, _, _], mode| quotient_model(1.0, a, mode));

    // Square roots of subnormals and of small normals.
    let mut roots: Vec<[f64; 3]> = vec![
        [f64::from_bits(1), 0.0, 0.0],
        [f64::from_bits(2), 0.0, 0.0],
        [f64::from_bits(4), 0.0, 0.0],
        [f64::MIN_POSITIVE, 0.0, 0.0],
        [next_down(f64::MIN_POSITIVE), 0.0, 0.0],
        [0.0, 0.0, 0.0],
    ];
    for index in 0..120 {
        let value = if index % 2 == 0 {
            random_subnormal(&mut random).abs()
        } else {
            random_float(&mut random, 53, -1022..-900).abs()
        };
        roots.push([value, 0.0, 0.0]);
    }
    check_rows("sqrt.{mode}.f64 %d, %a;", &roots, |[x, _, _], mode| root_model(x, mode));
}

#[test]
fn f64_fma_rounds_in_each_direction_into_the_subnormals() {
    let mut random = Random::new(73);
    let mut rows = Vec::new();
    for (index, (a, b)) in tiny_product_factors(&mut random).into_iter().enumerate() {
        let c = match index % 5 {
            0 => 0.0,
            // A small addend: the sum stays in the subnormals or just above.
            1 => random_subnormal(&mut random),
            2 => random_float(&mut random, 53, -1022..-1000),
            // Cancellation: what remains is the product's rounding error.
            3 => -(a * b),
            // A larger addend that the tiny product cannot move from itself.
            _ => random_float(&mut random, 53, -899..-800),
        };
        rows.push([a, b, c]);
    }
    // Products of ordinary size cancelling into the subnormals.
    for _ in 0..60 {
        let a = random_float(&mut random, 53, -520..-500);
        let b = random_float(&mut random, 53, -480..-470);
        let c = -(a * b) + random_subnormal(&mut random);
        rows.push([a, b, c]);
    }
    check_rows("fma.{mode}.f64 %d, %a, %b, %c;", &rows, |[a, b, c], mode| fused_subnormal_model(a, b, c, mode));
}
