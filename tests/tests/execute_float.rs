//! Execution of the floating-point functions and directed rounding on the CPU (ISA 7.8 section
//! 9.7.3): `.rz`/`.rm`/`.rp` on `add`, `sub`, `mul`, `div`, `rcp`, `sqrt` against a model that
//! computes the exact `f32` result in `f64` (exact for sums of nearby exponents and for
//! products; for quotients and square roots the `f64` result never lies on an `f32` value
//! unless the exact one does) and rounds it in the mode; the `.approx` functions against `f64`
//! references within the ISA's stated error bounds, with special values exact; `copysign`;
//! `testp` on edge and random bit patterns against Rust's classification with the spec's rule
//! for zeros; `min`/`max` on `.f32` with `.NaN` and `.xorsign.abs` against a model of the spec.

use ptxr_tests::{run_ok, Buffer, Launch, Random};

/// Each thread reads `a` (and `b`) from the input rows, runs `body` on `%a`, `%b` into `%d`, and
/// stores `%d`. `ty` is `f32` or `f64`.
/// The module targets sm_86, the first with `min`/`max.xorsign.abs` (ISA 7.8 section 9.7.3.11).
fn run(ty: &'static str, body: &str, rows: &[(u64, u64)]) -> Vec<u64> {
    let bytes = if ty == "f64" { 8 } else { 4 };
    let ptx = format!(
        ".version 7.8\n.target sm_86\n.address_size 64\n.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
         .reg .{ty} %a, %b, %d;\n.reg .u64 %rd<6>;\n.reg .u32 %thread;\n\
         ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %thread, %tid.x;\n\
         mul.wide.u32 %rd3, %thread, {};\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %thread, {bytes};\nadd.u64 %rd5, %rd2, %rd3;\n\
         ld.global.{ty} %a, [%rd4];\nld.global.{ty} %b, [%rd4+{bytes}];\n{body}\nst.global.{ty} [%rd5], %d;\nret;\n}}\n",
        2 * bytes
    );
    let flat: Vec<u64> = rows.iter().flat_map(|&(a, b)| [a, b]).collect();
    let element = if ty == "f64" { "b64" } else { "b32" };
    let result = run_ok(
        &ptx,
        &Launch::threads(rows.len() as u32),
        &[Buffer::new(element, flat), Buffer::zeroed(element, rows.len())],
    );
    result[1].clone()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Zero,
    Down,
    Up,
}

fn next_up(value: f32) -> f32 {
    if value.is_nan() || value == f32::INFINITY {
        return value;
    }
    if value == 0.0 {
        return f32::from_bits(1);
    }
    let bits = value.to_bits();
    f32::from_bits(if value > 0.0 { bits + 1 } else { bits - 1 })
}

fn next_down(value: f32) -> f32 {
    -next_up(-value)
}

/// The exact value `exact` (an `f64` holding it exactly, or as argued above) rounded to `f32`
/// in `mode`: the nearest `f32`, moved one step when it lies on the wrong side.
fn round_to_f32(exact: f64, mode: Mode) -> f32 {
    if exact.is_nan() {
        return f32::NAN;
    }
    let nearest = exact as f32;
    let nearest = if nearest.is_infinite() && exact.is_finite() {
        // Past the largest finite f32: the directed modes stop at it unless they round away.
        match (mode, exact > 0.0) {
            (Mode::Up, true) | (Mode::Down, false) => nearest,
            _ => f32::MAX.copysign(nearest),
        }
    } else {
        nearest
    };
    if nearest.is_infinite() || f64::from(nearest) == exact {
        return nearest;
    }
    let above = f64::from(nearest) > exact;
    match mode {
        Mode::Up if !above => next_up(nearest),
        Mode::Down if above => next_down(nearest),
        Mode::Zero if above && exact > 0.0 => next_down(nearest),
        Mode::Zero if !above && exact < 0.0 => next_up(nearest),
        _ => nearest,
    }
}

/// Random finite f32 values with exponents within a factor of 2^20 of 1, and edge values.
fn operands(random: &mut Random, count: usize) -> Vec<(f32, f32)> {
    let edges = [0.0, -0.0, 1.0, 3.0, 0.1, -7.5, f32::MAX, -f32::MAX, 1.0e-30];
    let mut value = || {
        let bits = random.next_u32();
        let mantissa = bits & 0x007f_ffff;
        let exponent = 127 - 20 + (bits >> 23) % 40;
        let sign = bits & 0x8000_0000;
        f32::from_bits(sign | (exponent << 23) | mantissa)
    };
    let mut pairs: Vec<(f32, f32)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
    while pairs.len() < count {
        pairs.push((value(), value()));
    }
    pairs
}

#[test]
fn directed_rounding_of_arithmetic_matches_the_exact_model() {
    let mut random = Random::new(41);
    let pairs = operands(&mut random, 400);
    let rows: Vec<(u64, u64)> = pairs.iter().map(|&(a, b)| (u64::from(a.to_bits()), u64::from(b.to_bits()))).collect();
    for (suffix, mode) in [("rz", Mode::Zero), ("rm", Mode::Down), ("rp", Mode::Up)] {
        type Exact = fn(f64, f64) -> f64;
        let operations: [(&str, Exact); 5] = [
            ("add", |a, b| a + b),
            ("sub", |a, b| a - b),
            ("mul", |a, b| a * b),
            ("div", |a, b| a / b),
            ("rcp", |a, _| 1.0 / a),
        ];
        for (operation, exact) in operations {
            let body = if operation == "rcp" {
                format!("rcp.{suffix}.f32 %d, %a;")
            } else {
                format!("{operation}.{suffix}.f32 %d, %a, %b;")
            };
            let output = run("f32", &body, &rows);
            for (&(a, b), &bits) in pairs.iter().zip(&output) {
                let (a64, b64) = (f64::from(a), f64::from(b));
                // Sums are exact in f64 only while the exponents are close; skip the others.
                if matches!(operation, "add" | "sub")
                    && (a64 != 0.0 && b64 != 0.0)
                    && (a64 / b64).abs().log2().abs() > 28.0
                {
                    continue;
                }
                let mut expected = round_to_f32(exact(a64, b64), mode);
                // IEEE 754 section 6.3: an exact zero sum is -0 when rounding down, unless both
                // addends are +0 (f64 arithmetic, rounding to nearest, gave +0).
                let addend = if operation == "sub" { -b } else { b };
                if matches!(operation, "add" | "sub")
                    && mode == Mode::Down
                    && exact(a64, b64) == 0.0
                    && !(a.to_bits() == 0 && addend.to_bits() == 0)
                {
                    expected = -0.0;
                }
                let actual = f32::from_bits(bits as u32);
                assert!(
                    actual.to_bits() == expected.to_bits() || (actual.is_nan() && expected.is_nan()),
                    "{body} a={a:e} ({:#x}) b={b:e} ({:#x}): got {actual:e} ({:#x}), expected {expected:e} ({:#x})",
                    a.to_bits(),
                    b.to_bits(),
                    actual.to_bits(),
                    expected.to_bits()
                );
            }
        }
        let body = format!("sqrt.{suffix}.f32 %d, %a;");
        let output = run("f32", &body, &rows);
        for (&(a, _), &bits) in pairs.iter().zip(&output) {
            let expected = round_to_f32(f64::from(a).sqrt(), mode);
            let actual = f32::from_bits(bits as u32);
            assert!(
                actual.to_bits() == expected.to_bits() || (actual.is_nan() && expected.is_nan()),
                "{body} a={a:e}: got {actual:e}, expected {expected:e}"
            );
        }
    }
}

#[test]
fn directed_rounding_in_double_precision_at_known_cases() {
    // 1/3 in f64: the nearest double is below 1/3 (0x3FD5555555555555), so .rz and .rm keep it
    // and .rp takes the next one; -1/3 mirrors it.
    let third = (1.0f64 / 3.0).to_bits();
    let rows = [(3.0f64.to_bits(), 0), ((-3.0f64).to_bits(), 0), (2.0f64.to_bits(), 0)];
    let expected = [
        ("rz", [third, (-1.0f64 / 3.0).to_bits(), 0.5f64.to_bits()]),
        ("rm", [third, (-1.0f64 / 3.0).to_bits() + 1, 0.5f64.to_bits()]),
        ("rp", [third + 1, (-1.0f64 / 3.0).to_bits(), 0.5f64.to_bits()]),
    ];
    for (suffix, values) in expected {
        let output = run("f64", &format!("rcp.{suffix}.f64 %d, %a;"), &rows);
        assert_eq!(output, values, "rcp.{suffix}.f64");
    }
    // sqrt(2): the nearest double 0x3FF6A09E667F3BCD is above sqrt(2).
    let root = 2.0f64.sqrt().to_bits();
    let rows = [(2.0f64.to_bits(), 0)];
    for (suffix, value) in [("rz", root - 1), ("rm", root - 1), ("rp", root)] {
        assert_eq!(run("f64", &format!("sqrt.{suffix}.f64 %d, %a;"), &rows), [value], "sqrt.{suffix}.f64");
    }
    // Overflow: MAX + MAX is +inf rounded up, MAX rounded towards zero or down.
    let rows = [(f64::MAX.to_bits(), f64::MAX.to_bits())];
    assert_eq!(run("f64", "add.rp.f64 %d, %a, %b;", &rows), [f64::INFINITY.to_bits()]);
    assert_eq!(run("f64", "add.rz.f64 %d, %a, %b;", &rows), [f64::MAX.to_bits()]);
    assert_eq!(run("f64", "add.rm.f64 %d, %a, %b;", &rows), [f64::MAX.to_bits()]);
}

/// Runs a one-operand `.f32` function over `inputs`.
fn function(body: &str, inputs: &[f32]) -> Vec<f32> {
    let rows: Vec<(u64, u64)> = inputs.iter().map(|value| (u64::from(value.to_bits()), 0)).collect();
    run("f32", body, &rows).iter().map(|&bits| f32::from_bits(bits as u32)).collect()
}

#[test]
fn approximations_stay_within_the_isa_bounds() {
    let mut random = Random::new(8);
    let uniform = |random: &mut Random, low: f64, high: f64| {
        low + (high - low) * (f64::from(random.next_u32()) / f64::from(u32::MAX))
    };
    let angles: Vec<f32> =
        (0..256).map(|_| uniform(&mut random, -std::f64::consts::PI, std::f64::consts::PI) as f32).collect();
    // sin/cos.approx: absolute error at most 2^-20.9 in [-pi, pi].
    for (name, reference) in [("sin", f64::sin as fn(f64) -> f64), ("cos", f64::cos)] {
        for (&x, &y) in angles.iter().zip(&function(&format!("{name}.approx.f32 %d, %a;"), &angles)) {
            let error = (f64::from(y) - reference(f64::from(x))).abs();
            assert!(error <= 2f64.powf(-20.9), "{name}({x}) = {y}, error {error:e}");
        }
    }
    // lg2.approx: absolute error at most 2^-22.6 for x in [0.5, 2].
    let near_one: Vec<f32> = (0..256).map(|_| uniform(&mut random, 0.5, 2.0) as f32).collect();
    for (&x, &y) in near_one.iter().zip(&function("lg2.approx.f32 %d, %a;", &near_one)) {
        let error = (f64::from(y) - f64::from(x).log2()).abs();
        assert!(error <= 2f64.powf(-22.6), "lg2({x}) = {y}, error {error:e}");
    }
    // ex2.approx: relative error at most 2^-22.5 over the range.
    let exponents: Vec<f32> = (0..256).map(|_| uniform(&mut random, -100.0, 100.0) as f32).collect();
    for (&x, &y) in exponents.iter().zip(&function("ex2.approx.f32 %d, %a;", &exponents)) {
        let exact = f64::from(x).exp2();
        assert!(((f64::from(y) - exact) / exact).abs() <= 2f64.powf(-22.5), "ex2({x}) = {y}");
    }
    // tanh.approx: relative error at most 2^-11; rsqrt.approx 2^-22.9; rcp.approx and
    // sqrt.approx within their ulp bounds, here checked at 2^-22 relative.
    let spread: Vec<f32> = (0..256).map(|_| uniform(&mut random, -20.0, 20.0) as f32).collect();
    for (&x, &y) in spread.iter().zip(&function("tanh.approx.f32 %d, %a;", &spread)) {
        let exact = f64::from(x).tanh();
        assert!(
            (f64::from(y) - exact).abs() <= 2f64.powf(-11.0) * exact.abs().max(2f64.powf(-10.0)),
            "tanh({x}) = {y}"
        );
    }
    let positive: Vec<f32> = (0..256).map(|_| uniform(&mut random, 1.0e-3, 1.0e6) as f32).collect();
    type Reference = fn(f64) -> f64;
    let checks: [(&str, Reference, f64); 3] =
        [("rsqrt", |x| 1.0 / x.sqrt(), -22.9), ("rcp", |x| 1.0 / x, -22.0), ("sqrt", f64::sqrt, -22.0)];
    for (name, reference, bound) in checks {
        for (&x, &y) in positive.iter().zip(&function(&format!("{name}.approx.f32 %d, %a;"), &positive)) {
            let exact = reference(f64::from(x));
            assert!(((f64::from(y) - exact) / exact).abs() <= 2f64.powf(bound), "{name}({x}) = {y}");
        }
    }
}

#[test]
fn approximations_give_the_isa_special_values() {
    let specials = [0.0f32, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -1.0];
    let cases: [(&str, [f32; 6]); 6] = [
        ("sin.approx.f32", [0.0, -0.0, f32::NAN, f32::NAN, f32::NAN, (-1.0f64).sin() as f32]),
        ("ex2.approx.f32", [1.0, 1.0, f32::INFINITY, 0.0, f32::NAN, 0.5]),
        ("lg2.approx.f32", [f32::NEG_INFINITY, f32::NEG_INFINITY, f32::INFINITY, f32::NAN, f32::NAN, f32::NAN]),
        ("tanh.approx.f32", [0.0, -0.0, 1.0, -1.0, f32::NAN, (-1.0f64).tanh() as f32]),
        ("rcp.approx.f32", [f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, f32::NAN, -1.0]),
        ("rsqrt.approx.f32", [f32::INFINITY, f32::NEG_INFINITY, 0.0, f32::NAN, f32::NAN, f32::NAN]),
    ];
    for (name, expected) in cases {
        let output = function(&format!("{name} %d, %a;"), &specials);
        for ((&x, &y), &want) in specials.iter().zip(&output).zip(&expected) {
            let close =
                if x == -1.0 && want.is_finite() { (y - want).abs() <= 2e-6 } else { y.to_bits() == want.to_bits() };
            assert!(close || (y.is_nan() && want.is_nan()), "{name}({x}) = {y}, expected {want}");
        }
    }
    // .ftz flushes a subnormal input: sqrt of the smallest subnormal is +0 (not 2^-74.5).
    let output = function("sqrt.rn.ftz.f32 %d, %a;", &[f32::from_bits(1), f32::from_bits(0x8000_0001)]);
    assert_eq!(output.iter().map(|value| value.to_bits()).collect::<Vec<_>>(), [0, 0x8000_0000]);
}

#[test]
fn copysign_takes_the_first_operands_sign_and_the_seconds_magnitude() {
    let rows = [(-0.0f32, f32::NAN), (1.0, -2.5), (-3.0, f32::INFINITY), (0.0, -0.0)]
        .map(|(a, b)| (u64::from(a.to_bits()), u64::from(b.to_bits())));
    let output = run("f32", "copysign.f32 %d, %a, %b;", &rows);
    let expected = [(-f32::NAN).to_bits(), 2.5f32.to_bits(), f32::NEG_INFINITY.to_bits(), 0.0f32.to_bits()];
    assert_eq!(output, expected.map(u64::from));
}

/// Bit patterns every classification must get right, then random ones (exponents spread over
/// the whole range so that subnormals, infinities and NaNs come up).
fn f32_edge_patterns(random: &mut Random, count: usize) -> Vec<u32> {
    let mut values = vec![
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x8080_0000,
        0x3f80_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7f80_0001,
        0x7fc0_0000,
        0xffff_ffff,
        0x7fff_ffff,
    ];
    while values.len() < count {
        let bits = random.next_u32();
        // Half the random values get an extreme exponent (0 or all ones).
        let bits = match bits % 4 {
            0 => bits & 0x807f_ffff,
            1 => bits | 0x7f80_0000,
            _ => bits,
        };
        values.push(bits);
    }
    values
}

fn f64_edge_patterns(random: &mut Random, count: usize) -> Vec<u64> {
    let mut values = vec![
        0,
        0x8000_0000_0000_0000,
        1,
        0x000f_ffff_ffff_ffff,
        0x0010_0000_0000_0000,
        0x7fef_ffff_ffff_ffff,
        0x7ff0_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0x7ff0_0000_0000_0001,
        0x7ff8_0000_0000_0000,
        0x3ff0_0000_0000_0000,
    ];
    while values.len() < count {
        let bits = random.next_u64();
        let bits = match bits % 4 {
            0 => bits & 0x800f_ffff_ffff_ffff,
            1 => bits | 0x7ff0_0000_0000_0000,
            _ => bits,
        };
        values.push(bits);
    }
    values
}

/// The spec's `testp` properties (ISA 7.8 section 9.7.3.1), where both zeros count as normal.
fn property_holds(property: &str, value: f64, subnormal: bool) -> bool {
    match property {
        "finite" => value.is_finite(),
        "infinite" => value.is_infinite(),
        "number" => !value.is_nan(),
        "notanumber" => value.is_nan(),
        "normal" => value.is_finite() && !subnormal,
        "subnormal" => subnormal,
        _ => unreachable!("{property}"),
    }
}

const PROPERTIES: [&str; 6] = ["finite", "infinite", "number", "notanumber", "normal", "subnormal"];

#[test]
fn testp_classifies_f32_and_f64_bit_patterns() {
    let mut random = Random::new(17);
    let singles = f32_edge_patterns(&mut random, 96);
    let doubles = f64_edge_patterns(&mut random, 96);
    for property in PROPERTIES {
        let body = format!(
            ".reg .pred %p;\n.reg .b32 %bits;\ntestp.{property}.f32 %p, %a;\nselp.b32 %bits, 1, 0, %p;\nmov.b32 %d, %bits;"
        );
        let rows: Vec<(u64, u64)> = singles.iter().map(|&bits| (u64::from(bits), 0)).collect();
        let output = run("f32", &body, &rows);
        for (&bits, &result) in singles.iter().zip(&output) {
            let value = f32::from_bits(bits);
            let expected = property_holds(property, f64::from(value), value.is_subnormal());
            assert_eq!(result == 1, expected, "testp.{property}.f32 of {bits:#010x}");
        }
        let body = format!(
            ".reg .pred %p;\n.reg .b64 %bits;\ntestp.{property}.f64 %p, %a;\nselp.b64 %bits, 1, 0, %p;\nmov.b64 %d, %bits;"
        );
        let rows: Vec<(u64, u64)> = doubles.iter().map(|&bits| (bits, 0)).collect();
        let output = run("f64", &body, &rows);
        for (&bits, &result) in doubles.iter().zip(&output) {
            let value = f64::from_bits(bits);
            assert_eq!(
                result == 1,
                property_holds(property, value, value.is_subnormal()),
                "testp.{property}.f64 of {bits:#018x}"
            );
        }
    }
}

/// PTX's `min`/`max` on `.f32` (ISA 7.8 sections 9.7.3.11 and 9.7.3.12): a NaN operand is
/// ignored unless `.NaN`, NaN results are the canonical `0x7fffffff`, -0.0 is below +0.0, and
/// `.xorsign.abs` compares magnitudes and gives the XOR of the signs.
fn minimum_maximum_model(a: u32, b: u32, minimum: bool, propagate_nan: bool, xorsign: bool) -> u32 {
    const CANONICAL_NAN: u32 = 0x7fff_ffff;
    let sign = (a ^ b) & 0x8000_0000;
    let (a, b) = if xorsign { (a & 0x7fff_ffff, b & 0x7fff_ffff) } else { (a, b) };
    let (x, y) = (f32::from_bits(a), f32::from_bits(b));
    let result = match (x.is_nan(), y.is_nan()) {
        (true, true) => return CANONICAL_NAN,
        (true, false) | (false, true) if propagate_nan => return CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        (false, false) if x == y => {
            // Only the zeros compare equal with different bits: min takes -0, max +0.
            let a_negative = a >> 31 == 1;
            if a_negative == minimum {
                a
            } else {
                b
            }
        }
        (false, false) => {
            if (x < y) == minimum {
                a
            } else {
                b
            }
        }
    };
    if xorsign {
        result | sign
    } else {
        result
    }
}

#[test]
fn min_and_max_f32_with_nan_and_xorsign_abs_match_the_model() {
    let mut random = Random::new(23);
    let patterns = f32_edge_patterns(&mut random, 40);
    // Every pair of edge patterns, then random pairs: a property test on the same model.
    let mut rows: Vec<(u64, u64)> = Vec::new();
    for &a in &patterns[..16] {
        for &b in &patterns[..16] {
            rows.push((u64::from(a), u64::from(b)));
        }
    }
    rows.extend((0..256).map(|_| {
        let pair = f32_edge_patterns(&mut random, 18);
        (u64::from(pair[16]), u64::from(pair[17]))
    }));
    for opcode in ["min", "max"] {
        for (modifiers, propagate_nan, xorsign) in
            [("", false, false), (".NaN", true, false), (".xorsign.abs", false, true), (".NaN.xorsign.abs", true, true)]
        {
            let body = format!("{opcode}{modifiers}.f32 %d, %a, %b;");
            let output = run("f32", &body, &rows);
            for (&(a, b), &result) in rows.iter().zip(&output) {
                let expected = minimum_maximum_model(a as u32, b as u32, opcode == "min", propagate_nan, xorsign);
                assert_eq!(result as u32, expected, "{opcode}{modifiers}.f32 {a:#010x}, {b:#010x}");
            }
        }
    }
}

/// PTX's `min`/`max` of three `.f32` sources (ISA 8.8): the least or greatest source that is not
/// a NaN, with -0.0 below +0.0; the canonical NaN when every source is a NaN, or, with `.NaN`,
/// when any is.
fn minimum_maximum_of_three_model(sources: [u32; 3], minimum: bool, propagate_nan: bool) -> u32 {
    const CANONICAL_NAN: u32 = 0x7fff_ffff;
    let numbers: Vec<u32> = sources.into_iter().filter(|&bits| !f32::from_bits(bits).is_nan()).collect();
    if numbers.is_empty() || propagate_nan && numbers.len() < 3 {
        return CANONICAL_NAN;
    }
    // Ordered by value, and -0.0 before +0.0 where the values tie.
    let key = |bits: u32| (f32::from_bits(bits), bits >> 31 == 0);
    let pick = |x: u32, y: u32| {
        let ordering = key(x).partial_cmp(&key(y)).unwrap_or(std::cmp::Ordering::Equal);
        if (ordering == std::cmp::Ordering::Less) == minimum {
            x
        } else {
            y
        }
    };
    numbers.into_iter().reduce(pick).unwrap_or(CANONICAL_NAN)
}

/// `min`/`max{.NaN}{.ftz}.f32 d, a, b, c` (ISA 8.8, sm_100), which Triton writes for reductions
/// at sm_100 and later, against the model of all three sources at once.
#[test]
fn min_and_max_of_three_f32_sources_match_the_model() {
    let mut random = Random::new(88);
    let patterns = f32_edge_patterns(&mut random, 40);
    let mut rows: Vec<[u32; 3]> = Vec::new();
    for &a in &patterns[..10] {
        for &b in &patterns[..10] {
            for &c in &patterns[..6] {
                rows.push([a, b, c]);
            }
        }
    }
    rows.extend((0..256).map(|_| {
        let triple = f32_edge_patterns(&mut random, 19);
        [triple[16], triple[17], triple[18]]
    }));
    for opcode in ["min", "max"] {
        for (modifiers, propagate_nan) in [("", false), (".NaN", true)] {
            let ptx = format!(
                ".version 8.8\n.target sm_100\n.address_size 64\n.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
                 .reg .f32 %a, %b, %c, %d;\n.reg .u64 %rd<6>;\n.reg .u32 %thread;\n\
                 ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %thread, %tid.x;\n\
                 mul.wide.u32 %rd3, %thread, 12;\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %thread, 4;\nadd.u64 %rd5, %rd2, %rd3;\n\
                 ld.global.f32 %a, [%rd4];\nld.global.f32 %b, [%rd4+4];\nld.global.f32 %c, [%rd4+8];\n\
                 {opcode}{modifiers}.f32 %d, %a, %b, %c;\nst.global.f32 [%rd5], %d;\nret;\n}}\n"
            );
            let flat: Vec<u64> = rows.iter().flatten().map(|&bits| u64::from(bits)).collect();
            let output = run_ok(
                &ptx,
                &Launch::threads(rows.len() as u32),
                &[Buffer::new("b32", flat), Buffer::zeroed("b32", rows.len())],
            );
            for (sources, &result) in rows.iter().zip(&output[1]) {
                let expected = minimum_maximum_of_three_model(*sources, opcode == "min", propagate_nan);
                assert_eq!(result as u32, expected, "{opcode}{modifiers}.f32 of {sources:#010x?}");
            }
        }
    }
}

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    ptxr_tests::opencl::serve_child();
}

/// `min`/`max` `.f32` with three sources (ISA 8.8, sm_100; Triton 3.9 writes `max.f32 d, a, b, c`
/// in its sm_120 reductions): the two-source model applied to `a`, `b` and then `c`, on the CPU
/// and on SPIR-V through OpenCL. The triples hold NaNs, zeros of both signs and infinities in
/// every position, so a lowering that drops, reorders or mis-flushes a source disagrees.
#[test]
fn min_and_max_f32_with_three_sources_match_the_two_source_model() {
    let mut random = Random::new(29);
    let all = f32_edge_patterns(&mut random, 20);
    // +0, -0, both subnormal signs, 1.0, +inf, -inf, a signalling and a quiet NaN, and a random
    // pattern: 1000 triples, one block.
    let patterns: Vec<u32> = [0, 1, 2, 3, 7, 10, 11, 12, 13, 17].iter().map(|&index| all[index]).collect();
    let mut triples: Vec<[u64; 3]> = Vec::new();
    for &a in &patterns {
        for &b in &patterns {
            for &c in &patterns {
                triples.push([u64::from(a), u64::from(b), u64::from(c)]);
            }
        }
    }
    for opcode in ["min", "max"] {
        for (modifiers, propagate_nan) in [("", false), (".NaN", true), (".ftz.NaN", true)] {
            let ptx = format!(
                ".version 8.8\n.target sm_100\n.address_size 64\n\
                 .visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
                 .reg .f32 %a, %b, %c, %d;\n.reg .u64 %rd<6>;\n.reg .u32 %thread;\n\
                 ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %thread, %tid.x;\n\
                 mul.wide.u32 %rd3, %thread, 12;\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %thread, 4;\n\
                 add.u64 %rd5, %rd2, %rd3;\nld.global.f32 %a, [%rd4];\nld.global.f32 %b, [%rd4+4];\n\
                 ld.global.f32 %c, [%rd4+8];\n{opcode}{modifiers}.f32 %d, %a, %b, %c;\nst.global.f32 [%rd5], %d;\nret;\n}}\n"
            );
            let flat: Vec<u64> = triples.iter().flatten().copied().collect();
            let buffers = [Buffer::new("b32", flat), Buffer::zeroed("b32", triples.len())];
            let flush = |bits: u32| {
                if modifiers.contains("ftz") && f32::from_bits(bits).is_subnormal() {
                    bits & 0x8000_0000
                } else {
                    bits
                }
            };
            let minimum = opcode == "min";
            let expected: Vec<u64> = triples
                .iter()
                .map(|&[a, b, c]| {
                    let (a, b, c) = (flush(a as u32), flush(b as u32), flush(c as u32));
                    let first = minimum_maximum_model(a, b, minimum, propagate_nan, false);
                    u64::from(minimum_maximum_model(first, c, minimum, propagate_nan, false))
                })
                .collect();
            let launch = Launch::threads(triples.len() as u32);
            for (device, result) in ptxr_tests::opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
                for (index, (&got, &want)) in result[1].iter().zip(&expected).enumerate() {
                    let [a, b, c] = triples[index];
                    assert_eq!(got, want, "{device}: {opcode}{modifiers}.f32 of {a:#010x}, {b:#010x}, {c:#010x}");
                }
            }
        }
    }
}

/// One lane's result from its `a`, `b` and `c`.
type LaneModel = fn(f32, f32, f32) -> f32;

/// `add`, `sub`, `mul` and `fma` on `.f32x2` (ISA 8.6, sm_100; Triton 3.9 scales its sm_100 and
/// sm_120 attention accumulators with `mul.f32x2`): each lane of the `.b64` result is the `.f32`
/// operation on that lane, bits 0 to 31 the first, on the CPU and on SPIR-V through OpenCL.
/// The lanes hold different values (a lowering that mixes or swaps them disagrees), `.ftz`
/// meets subnormal inputs and results, and `.rz` products are checked against the exact `f64`
/// product rounded toward zero.
#[test]
fn f32x2_arithmetic_computes_each_lane_as_f32() {
    let mut random = Random::new(31);
    // Finite values of moderate exponents, with subnormals, zeros of both signs and infinities.
    let mut values: Vec<f32> = vec![0.0, -0.0, 1.0e-39, -3.0e-40, f32::INFINITY, -1.5, 3.25, 1.0e-20];
    while values.len() < 64 {
        let mantissa = (random.next_u32() >> 8) as f32 / (1 << 24) as f32 + 1.0;
        let exponent = (random.next_u32() % 40) as i32 - 20;
        let sign = if random.next_u32() % 2 == 0 { 1.0 } else { -1.0 };
        values.push(sign * mantissa * 2f32.powi(exponent));
    }
    let pick = |random: &mut Random| values[(random.next_u32() % 64) as usize];
    let triples: Vec<[[f32; 2]; 3]> =
        (0..256).map(|_| [0, 1, 2].map(|_| [pick(&mut random), pick(&mut random)])).collect();
    let flush = |value: f32| if value.is_subnormal() { 0.0f32.copysign(value) } else { value };
    let cases: [(&str, LaneModel, bool); 5] = [
        ("add.f32x2 %d, %a, %b;", |a, b, _| a + b, false),
        ("sub.rn.ftz.f32x2 %d, %a, %b;", |a, b, _| a - b, true),
        ("mul.rz.f32x2 %d, %a, %b;", |a, b, _| round_to_f32(f64::from(a) * f64::from(b), Mode::Zero), false),
        ("fma.rn.f32x2 %d, %a, %b, %c;", f32::mul_add, false),
        ("fma.rn.ftz.f32x2 %d, %a, %b, %c;", f32::mul_add, true),
    ];
    let pack = |[low, high]: [f32; 2]| u64::from(low.to_bits()) | u64::from(high.to_bits()) << 32;
    for (instruction, model, ftz) in cases {
        let ptx = format!(
            ".version 8.6\n.target sm_100\n.address_size 64\n\
             .visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
             .reg .b64 %a, %b, %c, %d;\n.reg .u64 %rd<6>;\n.reg .u32 %thread;\n\
             ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %thread, %tid.x;\n\
             mul.wide.u32 %rd3, %thread, 24;\nadd.u64 %rd4, %rd1, %rd3;\nmul.wide.u32 %rd3, %thread, 8;\n\
             add.u64 %rd5, %rd2, %rd3;\nld.global.b64 %a, [%rd4];\nld.global.b64 %b, [%rd4+8];\n\
             ld.global.b64 %c, [%rd4+16];\n{instruction}\nst.global.b64 [%rd5], %d;\nret;\n}}\n"
        );
        let flat: Vec<u64> = triples.iter().flat_map(|triple| triple.map(pack)).collect();
        let buffers = [Buffer::new("b64", flat), Buffer::zeroed("b64", triples.len())];
        let expected: Vec<u64> = triples
            .iter()
            .map(|&[a, b, c]| {
                pack([0, 1].map(|lane| {
                    let input = |value: f32| if ftz { flush(value) } else { value };
                    let result = model(input(a[lane]), input(b[lane]), input(c[lane]));
                    if ftz {
                        flush(result)
                    } else {
                        result
                    }
                }))
            })
            .collect();
        let launch = Launch::threads(triples.len() as u32);
        for (device, result) in ptxr_tests::opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
            for (index, (&got, &want)) in result[1].iter().zip(&expected).enumerate() {
                // NaN results (inf - inf, 0 * inf) compare as NaN in both lanes, whatever payload.
                let same = |got: u64, want: u64| {
                    let (got, want) = (f32::from_bits(got as u32), f32::from_bits(want as u32));
                    got.to_bits() == want.to_bits() || got.is_nan() && want.is_nan()
                };
                assert!(
                    same(got, want) && same(got >> 32, want >> 32),
                    "{device}: {instruction} of {:?}: {got:#018x}, the model says {want:#018x}",
                    triples[index]
                );
            }
        }
    }
}

/// `cvt.rzi` from `.f32` to `.s64`, `.u32` and `.s8` in a kernel with a warp shuffle, whose
/// sub-groups of 32 lead Intel's OpenCL CPU compiler to vectorise 32 lanes wide: SPIR-V's
/// saturated conversions became a `convert_long32_sat` its library lacks and the build failed
/// (Triton's `x.to(tl.int64)`). NaN gives 0 and values beyond a type's range its bounds (ISA 7.8
/// section 9.7.8.21), on the CPU and through OpenCL.
#[test]
fn float_to_integer_conversions_saturate_in_a_warp_kernel() {
    let values: Vec<f32> = [
        0.0,
        -0.0,
        1.75,
        -1.75,
        127.9,
        128.0,
        -129.5,
        3.0e9,
        4.5e9,
        -2.0e9,
        9.3e18,
        -9.3e18,
        1.0e30,
        -1.0e30,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
    ]
    .into_iter()
    .cycle()
    .take(64)
    .collect();
    let ptx = ".version 7.8\n.target sm_80\n.address_size 64\n\
               .visible .entry test(.param .u64 input, .param .u64 output)\n{\n\
               .reg .f32 %x, %y;\n.reg .b64 %wide;\n.reg .b32 %word;\n.reg .b16 %narrow;\n.reg .u64 %rd<6>;\n.reg .u32 %thread;\n\
               ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %thread, %tid.x;\n\
               mul.wide.u32 %rd3, %thread, 4;\nadd.u64 %rd4, %rd1, %rd3;\nld.global.f32 %x, [%rd4];\n\
               shfl.sync.idx.b32 %y, %x, %thread, 31, -1;\n\
               mul.wide.u32 %rd3, %thread, 24;\nadd.u64 %rd5, %rd2, %rd3;\n\
               cvt.rzi.s64.f32 %wide, %y;\nst.global.b64 [%rd5], %wide;\n\
               cvt.rzi.u32.f32 %word, %y;\ncvt.u64.u32 %wide, %word;\nst.global.b64 [%rd5+8], %wide;\n\
               cvt.rzi.s8.f32 %narrow, %y;\ncvt.s64.s8 %wide, %narrow;\nst.global.b64 [%rd5+16], %wide;\nret;\n}\n";
    let saturate = |value: f32, low: f64, high: f64| -> i64 {
        if value.is_nan() {
            0
        } else {
            f64::from(value).trunc().clamp(low, high) as i64
        }
    };
    let expected: Vec<u64> = values
        .iter()
        .flat_map(|&value| {
            [
                saturate(value, i64::MIN as f64, i64::MAX as f64) as u64,
                saturate(value, 0.0, f64::from(u32::MAX)) as u64,
                saturate(value, -128.0, 127.0) as u64,
            ]
        })
        .collect();
    let input = Buffer::new("b32", values.iter().map(|value| u64::from(value.to_bits())).collect());
    let buffers = [input, Buffer::zeroed("b64", 3 * values.len())];
    let launch = Launch::threads(values.len() as u32);
    for (device, result) in ptxr_tests::opencl::run_everywhere(ptx, &launch, &buffers, OPENCL_CHILD) {
        for (index, (&got, &want)) in result[1].iter().zip(&expected).enumerate() {
            assert_eq!(got as i64, want as i64, "{device}: conversion {} of {}", index % 3, values[index / 3]);
        }
    }
}
