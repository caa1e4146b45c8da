//! Element types of launch-spec buffers and scalar arguments (`u32`, `f16`, ...): their sizes, and
//! the conversions between the spec's JSON forms (numbers, `"NaN"`/`"inf"`/`"-inf"`, hex bit
//! patterns) and the raw little-endian bytes the kernel sees.
//!
//! Every value travels as its bit pattern in a `u64`, zero-extended from the element's width, so
//! that NaN payloads, negative zero and 64-bit integers pass through unchanged.
//!
//! Output conventions (the contract leaves them open, so they are fixed here):
//! - integers print exactly as decimal integers: `u*`/`b*` types unsigned, `s*` types signed;
//! - floats print in the shortest form that reads back to the same bits, always with a `.` or an
//!   exponent so a float never looks like an integer: `2.0`, `0.1`, `-0.0`, `1e-45`,
//!   `3.4028235e38` (Rust's `{:?}` formatting of `f32`/`f64`; `f16`/`bf16` get their own shortest
//!   form, not that of the `f32` they widen to);
//! - every NaN prints as the string `"NaN"` and infinities as `"inf"`/`"-inf"`: JSON has no literal
//!   for them, and the `bits` output keeps payload and sign.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use half::{bf16, f16};

/// The element type of a buffer or a scalar argument, named as in PTX.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementType {
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    BF16,
    F32,
    F64,
}

/// How an element's bits are read as a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementKind {
    /// Untyped bits (`b*`): data may be given signed or unsigned, and prints unsigned.
    Bits,
    Unsigned,
    Signed,
    Float,
}

/// A value that does not fit its element type; the caller adds which buffer and index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueError {
    message: String,
}

impl ValueError {
    pub(crate) fn new(message: impl Into<String>) -> ValueError {
        ValueError { message: message.into() }
    }
}

impl fmt::Display for ValueError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.message)
    }
}

impl std::error::Error for ValueError {}

impl ElementType {
    pub const ALL: [ElementType; 16] = [
        ElementType::B8,
        ElementType::B16,
        ElementType::B32,
        ElementType::B64,
        ElementType::U8,
        ElementType::U16,
        ElementType::U32,
        ElementType::U64,
        ElementType::S8,
        ElementType::S16,
        ElementType::S32,
        ElementType::S64,
        ElementType::F16,
        ElementType::BF16,
        ElementType::F32,
        ElementType::F64,
    ];

    /// The type named `name` as written in a spec (`"u32"`), if there is one.
    pub fn from_name(name: &str) -> Option<ElementType> {
        ElementType::ALL.into_iter().find(|element| element.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            ElementType::B8 => "b8",
            ElementType::B16 => "b16",
            ElementType::B32 => "b32",
            ElementType::B64 => "b64",
            ElementType::U8 => "u8",
            ElementType::U16 => "u16",
            ElementType::U32 => "u32",
            ElementType::U64 => "u64",
            ElementType::S8 => "s8",
            ElementType::S16 => "s16",
            ElementType::S32 => "s32",
            ElementType::S64 => "s64",
            ElementType::F16 => "f16",
            ElementType::BF16 => "bf16",
            ElementType::F32 => "f32",
            ElementType::F64 => "f64",
        }
    }

    pub fn size_bytes(self) -> usize {
        match self {
            ElementType::B8 | ElementType::U8 | ElementType::S8 => 1,
            ElementType::B16 | ElementType::U16 | ElementType::S16 | ElementType::F16 | ElementType::BF16 => 2,
            ElementType::B32 | ElementType::U32 | ElementType::S32 | ElementType::F32 => 4,
            ElementType::B64 | ElementType::U64 | ElementType::S64 | ElementType::F64 => 8,
        }
    }

    pub fn bit_width(self) -> u32 {
        self.size_bytes() as u32 * 8
    }

    pub fn kind(self) -> ElementKind {
        match self {
            ElementType::B8 | ElementType::B16 | ElementType::B32 | ElementType::B64 => ElementKind::Bits,
            ElementType::U8 | ElementType::U16 | ElementType::U32 | ElementType::U64 => ElementKind::Unsigned,
            ElementType::S8 | ElementType::S16 | ElementType::S32 | ElementType::S64 => ElementKind::Signed,
            ElementType::F16 | ElementType::BF16 | ElementType::F32 | ElementType::F64 => ElementKind::Float,
        }
    }

    /// All bits of the element set: the largest bit pattern it holds.
    pub fn bit_mask(self) -> u64 {
        u64::MAX >> (64 - self.bit_width())
    }

    /// The bit pattern of a JSON number literal (`3`, `-1`, `0.5`, `1e-3`), rounded to nearest for
    /// float types. Integer types take integers in their range (`b*`: signed or unsigned range),
    /// also written as integral floats like `1e3`. A finite float literal that rounds to infinity
    /// is an error, since it is almost surely a mistake; infinity is written `"inf"`.
    pub fn parse_number(self, literal: &str) -> Result<u64, ValueError> {
        // Rust's parsers also take "inf", "NaN" or a leading '+', which JSON numbers never are.
        let is_json_number = literal.starts_with(|c: char| c == '-' || c.is_ascii_digit())
            && literal.chars().all(|c| c.is_ascii_digit() || "-+.eE".contains(c));
        if !is_json_number {
            return Err(ValueError::new(format!("`{literal}` is not a number")));
        }
        if self.kind() == ElementKind::Float {
            return self.parse_float(literal);
        }
        let value = match literal.parse::<i128>() {
            Ok(value) => value,
            Err(_) => {
                let float: f64 =
                    literal.parse().map_err(|_| ValueError::new(format!("`{literal}` is not a number")))?;
                if float.is_finite() && float.fract() != 0.0 {
                    return Err(ValueError::new(format!("{literal} is not an integer, as {} needs", self.name())));
                }
                // Integral and below 2^100, `as` converts exactly; anything larger is out of
                // every range below.
                if float.is_finite() && float.abs() < 1e30 {
                    float as i128
                } else {
                    i128::MAX
                }
            }
        };
        let (low, high) = self.integer_range();
        if value < low || value > high {
            return Err(ValueError::new(format!("{literal} is out of range for {} ({low} to {high})", self.name())));
        }
        // Two's complement of negative values, cut to the element's width.
        Ok(value as u64 & self.bit_mask())
    }

    /// The smallest and largest integer that data of this (integer) type may give.
    fn integer_range(self) -> (i128, i128) {
        let width = self.bit_width();
        match self.kind() {
            ElementKind::Unsigned => (0, (1i128 << width) - 1),
            ElementKind::Signed => (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1),
            ElementKind::Bits | ElementKind::Float => (-(1i128 << (width - 1)), (1i128 << width) - 1),
        }
    }

    fn parse_float(self, literal: &str) -> Result<u64, ValueError> {
        let not_a_number = || ValueError::new(format!("`{literal}` is not a number"));
        // Each literal is rounded once, straight into the element type where Rust can (f32,
        // f64); f16 and bf16 go through f64, the same path as `write_value` checks its output on.
        let (bits, infinite) = match self {
            ElementType::F32 => {
                let value: f32 = literal.parse().map_err(|_| not_a_number())?;
                (u64::from(value.to_bits()), value.is_infinite())
            }
            ElementType::F64 => {
                let value: f64 = literal.parse().map_err(|_| not_a_number())?;
                (value.to_bits(), value.is_infinite())
            }
            ElementType::F16 => {
                let value = f16::from_f64(literal.parse().map_err(|_| not_a_number())?);
                (u64::from(value.to_bits()), value.is_infinite())
            }
            _ => {
                let value = bf16::from_f64(literal.parse().map_err(|_| not_a_number())?);
                (u64::from(value.to_bits()), value.is_infinite())
            }
        };
        if infinite {
            return Err(ValueError::new(format!(
                "{literal} is out of range for {} (it rounds to infinity; write \"inf\" if meant)",
                self.name()
            )));
        }
        Ok(bits)
    }

    /// The bit pattern of a string in place of a number: `"NaN"` (the canonical quiet NaN),
    /// `"inf"`, `"-inf"` (also `"+inf"`, `"infinity"`, any case), for float types only.
    pub fn parse_special(self, text: &str) -> Result<u64, ValueError> {
        let lower = text.to_ascii_lowercase();
        let special = match lower.as_str() {
            "nan" => Some(f64::NAN),
            "inf" | "+inf" | "infinity" | "+infinity" => Some(f64::INFINITY),
            "-inf" | "-infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        };
        let Some(value) = special else {
            return Err(ValueError::new(format!(
                "\"{text}\" is not a number (the only strings taken are \"NaN\", \"inf\" and \
                 \"-inf\")"
            )));
        };
        if self.kind() != ElementKind::Float {
            return Err(ValueError::new(format!("\"{text}\" is only for float types, not {}", self.name())));
        }
        Ok(match self {
            ElementType::F16 => u64::from(f16::from_f64(value).to_bits()),
            ElementType::BF16 => u64::from(bf16::from_f64(value).to_bits()),
            ElementType::F32 => u64::from((value as f32).to_bits()),
            _ => value.to_bits(),
        })
    }

    /// The bit pattern written as hex, with or without `0x`: `"0x3f800000"`, `"3c00"`. Leading
    /// zeros are allowed; set bits above the element's width are not.
    pub fn parse_bits(self, text: &str) -> Result<u64, ValueError> {
        let digits = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")).unwrap_or(text);
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(ValueError::new(format!("\"{text}\" is not a hex bit pattern like \"0x3f800000\"")));
        }
        let significant = digits.trim_start_matches('0');
        let bits = if significant.len() > 16 {
            None
        } else if significant.is_empty() {
            Some(0)
        } else {
            u64::from_str_radix(significant, 16).ok()
        };
        match bits {
            Some(bits) if bits <= self.bit_mask() => Ok(bits),
            _ => Err(ValueError::new(format!(
                "\"{text}\" does not fit in the {} bits of {}",
                self.bit_width(),
                self.name()
            ))),
        }
    }

    /// Reads one element from the first `size_bytes()` bytes of `bytes` (little-endian).
    pub fn read_bits(self, bytes: &[u8]) -> u64 {
        let size = self.size_bytes();
        let mut wide = [0u8; 8];
        wide[..size].copy_from_slice(&bytes[..size]);
        u64::from_le_bytes(wide)
    }

    /// Writes one element into the first `size_bytes()` bytes of `bytes` (little-endian).
    pub fn write_bits(self, bits: u64, bytes: &mut [u8]) {
        let size = self.size_bytes();
        bytes[..size].copy_from_slice(&bits.to_le_bytes()[..size]);
    }

    /// Appends the element as a JSON value: an exact integer, a shortest round-trip float, or one
    /// of the strings `"NaN"`, `"inf"`, `"-inf"` (see the module documentation).
    pub fn write_value(self, bits: u64, out: &mut String) {
        let bits = bits & self.bit_mask();
        // Writing to a String cannot fail.
        let _ = match self.kind() {
            ElementKind::Bits | ElementKind::Unsigned => write!(out, "{bits}"),
            ElementKind::Signed => {
                let unused = 64 - self.bit_width();
                write!(out, "{}", ((bits << unused) as i64) >> unused)
            }
            ElementKind::Float => {
                let value = self.float_value(bits);
                if value.is_nan() {
                    out.write_str("\"NaN\"")
                } else if value.is_infinite() {
                    out.write_str(if value < 0.0 { "\"-inf\"" } else { "\"inf\"" })
                } else {
                    match self {
                        ElementType::F32 => write!(out, "{:?}", value as f32),
                        ElementType::F64 => write!(out, "{value:?}"),
                        _ => write!(out, "{:?}", self.shortest_half(bits, value)),
                    }
                }
            }
        };
    }

    /// The element's value as an `f64` (exact for every float type); for float types only.
    fn float_value(self, bits: u64) -> f64 {
        match self {
            ElementType::F16 => f16::from_bits(bits as u16).to_f64(),
            ElementType::BF16 => bf16::from_bits(bits as u16).to_f64(),
            ElementType::F32 => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        }
    }

    /// The `f64` with the fewest significant digits that `parse_float` turns back into the
    /// finite f16/bf16 `bits`: widening to f32 and printing that would give digits the 16-bit
    /// type does not have (f16 0.1 would print as 0.099975586).
    fn shortest_half(self, bits: u64, value: f64) -> f64 {
        for precision in 0..17 {
            let candidate: f64 = match format!("{value:.precision$e}").parse() {
                Ok(candidate) => candidate,
                Err(_) => continue,
            };
            let round_trip = match self {
                ElementType::F16 => u64::from(f16::from_f64(candidate).to_bits()),
                _ => u64::from(bf16::from_f64(candidate).to_bits()),
            };
            if round_trip == bits {
                return candidate;
            }
        }
        // Unreachable in practice: with 17 digits the candidate is `value` itself, which is exact.
        value
    }

    /// Appends the bit pattern as `0x` and lower-case hex, zero-padded to the element's width.
    pub fn write_hex(self, bits: u64, out: &mut String) {
        let digits = self.size_bytes() * 2;
        let _ = write!(out, "0x{:0digits$x}", bits & self.bit_mask());
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name())
    }
}

impl FromStr for ElementType {
    type Err = ValueError;

    fn from_str(name: &str) -> Result<ElementType, ValueError> {
        ElementType::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = ElementType::ALL.iter().map(|element| element.name()).collect();
            ValueError::new(format!("unknown element type `{name}` (one of {})", names.join(" ")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value_text(element: ElementType, bits: u64) -> String {
        let mut out = String::new();
        element.write_value(bits, &mut out);
        out
    }

    fn hex_text(element: ElementType, bits: u64) -> String {
        let mut out = String::new();
        element.write_hex(bits, &mut out);
        out
    }

    #[test]
    fn names_and_sizes() {
        for element in ElementType::ALL {
            assert_eq!(element.name().parse::<ElementType>(), Ok(element));
            assert_eq!(element.to_string(), element.name());
            assert_eq!(u64::from(element.bit_width()), element.bit_mask().count_ones() as u64);
        }
        assert_eq!(ElementType::BF16.size_bytes(), 2);
        assert_eq!(ElementType::S64.size_bytes(), 8);
        let error = "i32".parse::<ElementType>().expect_err("i32 is not a PTX type");
        assert!(error.to_string().contains("unknown element type `i32`"), "{error}");
    }

    #[test]
    fn f16_one_is_0x3c00() {
        assert_eq!(ElementType::F16.parse_number("1"), Ok(0x3c00));
        assert_eq!(ElementType::F16.parse_number("1.0"), Ok(0x3c00));
        assert_eq!(u64::from(f16::from_f32(1.0).to_bits()), 0x3c00);
        assert_eq!(value_text(ElementType::F16, 0x3c00), "1.0");
        assert_eq!(hex_text(ElementType::F16, 0x3c00), "0x3c00");
        assert_eq!(ElementType::BF16.parse_number("1"), Ok(0x3f80));
    }

    #[test]
    fn half_precision_prints_its_own_shortest_digits() {
        let tenth = ElementType::F16.parse_number("0.1").expect("0.1 is an f16");
        assert_eq!(tenth, 0x2e66);
        assert_eq!(value_text(ElementType::F16, tenth), "0.1");
        assert_eq!(value_text(ElementType::F16, 0x7bff), "65500.0");
        assert_eq!(ElementType::F16.parse_number("65500"), Ok(0x7bff));
        assert_eq!(value_text(ElementType::BF16, 0x3dcd), "0.1");
    }

    #[test]
    fn every_half_value_round_trips() {
        for element in [ElementType::F16, ElementType::BF16] {
            for bits in 0..=u64::from(u16::MAX) {
                let text = value_text(element, bits);
                let parsed = if text.starts_with('"') {
                    element.parse_special(text.trim_matches('"'))
                } else {
                    element.parse_number(&text)
                };
                let parsed = parsed.expect("printed values parse");
                if text == "\"NaN\"" {
                    assert!(element.float_value(parsed).is_nan());
                } else {
                    assert_eq!(parsed, bits, "{element} {bits:#x} printed as {text}");
                }
            }
        }
    }

    #[test]
    fn sampled_f32_and_f64_values_round_trip() {
        // A fixed linear congruential sequence covers all exponents without a random crate.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..200_000 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            for (element, bits) in [(ElementType::F32, state >> 32), (ElementType::F64, state)] {
                let text = value_text(element, bits);
                if text.starts_with('"') {
                    continue;
                }
                assert!(text.contains(['.', 'e']), "{text} must not look like an integer");
                assert_eq!(element.parse_number(&text), Ok(bits), "{element} {text}");
            }
        }
    }

    #[test]
    fn nan_payload_and_negative_zero() {
        let payload = ElementType::F32.parse_bits("0x7fc00001").expect("valid bits");
        assert_eq!(payload, 0x7fc0_0001);
        assert_eq!(value_text(ElementType::F32, payload), "\"NaN\"");
        assert_eq!(hex_text(ElementType::F32, payload), "0x7fc00001");
        let negative_zero = ElementType::F32.parse_number("-0.0").expect("valid number");
        assert_eq!(negative_zero, 0x8000_0000);
        assert_eq!(value_text(ElementType::F32, negative_zero), "-0.0");
        assert_eq!(hex_text(ElementType::F32, negative_zero), "0x80000000");
        assert_eq!(ElementType::F32.parse_number("-0"), Ok(0x8000_0000));
    }

    #[test]
    fn special_strings() {
        assert_eq!(ElementType::F32.parse_special("NaN"), Ok(0x7fc0_0000));
        assert_eq!(ElementType::F64.parse_special("inf"), Ok(0x7ff0_0000_0000_0000));
        assert_eq!(ElementType::F16.parse_special("-inf"), Ok(0xfc00));
        assert_eq!(ElementType::BF16.parse_special("NaN"), Ok(0x7fc0));
        assert_eq!(value_text(ElementType::F64, 0xfff0_0000_0000_0000), "\"-inf\"");
        assert_eq!(value_text(ElementType::F16, 0x7c00), "\"inf\"");
        let error = ElementType::U32.parse_special("NaN").expect_err("not a float type");
        assert_eq!(error.to_string(), "\"NaN\" is only for float types, not u32");
        let error = ElementType::F32.parse_special("one").expect_err("not special");
        assert!(error.to_string().contains("\"one\" is not a number"), "{error}");
    }

    #[test]
    fn u64_and_s64_extremes_are_exact() {
        assert_eq!(ElementType::U64.parse_number("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(value_text(ElementType::U64, u64::MAX), "18446744073709551615");
        assert_eq!(hex_text(ElementType::U64, u64::MAX), "0xffffffffffffffff");
        assert_eq!(ElementType::S64.parse_number("-9223372036854775808"), Ok(0x8000_0000_0000_0000));
        assert_eq!(value_text(ElementType::S64, 0x8000_0000_0000_0000), "-9223372036854775808");
        assert_eq!(value_text(ElementType::S8, 0xff), "-1");
        assert_eq!(value_text(ElementType::B8, 0xff), "255");
        assert_eq!(ElementType::U64.parse_number("9007199254740993"), Ok(9_007_199_254_740_993));
    }

    #[test]
    fn integer_ranges() {
        assert_eq!(ElementType::U8.parse_number("255"), Ok(255));
        assert_eq!(
            ElementType::U8.parse_number("256").map_err(|error| error.to_string()),
            Err("256 is out of range for u8 (0 to 255)".to_owned())
        );
        assert_eq!(
            ElementType::U32.parse_number("-1").map_err(|error| error.to_string()),
            Err("-1 is out of range for u32 (0 to 4294967295)".to_owned())
        );
        assert_eq!(ElementType::S16.parse_number("-32768"), Ok(0x8000));
        assert!(ElementType::S16.parse_number("32768").is_err());
        assert_eq!(ElementType::B32.parse_number("-1"), Ok(0xffff_ffff));
        assert_eq!(ElementType::B32.parse_number("4294967295"), Ok(0xffff_ffff));
        assert_eq!(ElementType::U32.parse_number("1e3"), Ok(1000));
        assert_eq!(ElementType::U32.parse_number("7.0"), Ok(7));
        assert_eq!(
            ElementType::U32.parse_number("1.5").map_err(|error| error.to_string()),
            Err("1.5 is not an integer, as u32 needs".to_owned())
        );
        assert!(ElementType::U64.parse_number("18446744073709551616").is_err());
        assert!(ElementType::U64.parse_number("1e400").is_err());
        assert!(ElementType::S64.parse_number("-1e300").is_err());
        assert!(ElementType::U32.parse_number("inf").is_err());
        assert!(ElementType::F32.parse_number("+1").is_err());
    }

    #[test]
    fn float_overflow_is_an_error_but_underflow_rounds() {
        let error = ElementType::F32.parse_number("1e39").expect_err("overflows f32");
        assert!(error.to_string().starts_with("1e39 is out of range for f32"), "{error}");
        assert!(ElementType::F16.parse_number("70000").is_err());
        assert_eq!(ElementType::F32.parse_number("1e-60"), Ok(0));
        assert_eq!(ElementType::F32.parse_number("16777217"), Ok(0x4b80_0000));
    }

    #[test]
    fn hex_bits() {
        assert_eq!(ElementType::F32.parse_bits("0x3f800000"), Ok(0x3f80_0000));
        assert_eq!(ElementType::F32.parse_bits("3F800000"), Ok(0x3f80_0000));
        assert_eq!(ElementType::U8.parse_bits("0x00000001"), Ok(1));
        assert_eq!(ElementType::U8.parse_bits("0"), Ok(0));
        assert_eq!(
            ElementType::U8.parse_bits("0x1ff").map_err(|error| error.to_string()),
            Err("\"0x1ff\" does not fit in the 8 bits of u8".to_owned())
        );
        assert!(ElementType::U32.parse_bits("0x").is_err());
        assert!(ElementType::U32.parse_bits("+ff").is_err());
        assert!(ElementType::U64.parse_bits("0x10000000000000000").is_err());
        assert_eq!(hex_text(ElementType::U8, 5), "0x05");
        assert_eq!(hex_text(ElementType::B16, 0xabc), "0x0abc");
        assert_eq!(hex_text(ElementType::U64, 1), "0x0000000000000001");
    }

    #[test]
    fn float_output_forms() {
        assert_eq!(value_text(ElementType::F32, 0x4000_0000), "2.0");
        assert_eq!(value_text(ElementType::F64, 2.5f64.to_bits()), "2.5");
        assert_eq!(value_text(ElementType::F32, 1), "1e-45");
        assert_eq!(value_text(ElementType::F32, u64::from(f32::MAX.to_bits())), "3.4028235e38");
        assert_eq!(value_text(ElementType::F32, u64::from(0.1f32.to_bits())), "0.1");
    }

    #[test]
    fn little_endian_bytes() {
        let mut bytes = [0u8; 4];
        ElementType::U32.write_bits(0x0102_0304, &mut bytes);
        assert_eq!(bytes, [4, 3, 2, 1]);
        assert_eq!(ElementType::U32.read_bits(&bytes), 0x0102_0304);
        assert_eq!(ElementType::U16.read_bits(&bytes), 0x0304);
    }
}
