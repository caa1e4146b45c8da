//! PTX fundamental types (ISA 7.8 section 5.2.1), plus the packed half types and `.pred`.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    Bf16,
    Bf16x2,
    F32,
    F64,
    Pred,
}

/// How the bits of a type are interpreted; instructions check operand types by kind and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    Bit,
    Unsigned,
    Signed,
    Float,
    Pred,
}

impl ScalarType {
    /// Every type, each at the index of its discriminant (`ScalarType::B8 as usize` is 0).
    pub const ALL: [ScalarType; 20] = [
        ScalarType::B8,
        ScalarType::B16,
        ScalarType::B32,
        ScalarType::B64,
        ScalarType::B128,
        ScalarType::U8,
        ScalarType::U16,
        ScalarType::U32,
        ScalarType::U64,
        ScalarType::S8,
        ScalarType::S16,
        ScalarType::S32,
        ScalarType::S64,
        ScalarType::F16,
        ScalarType::F16x2,
        ScalarType::Bf16,
        ScalarType::Bf16x2,
        ScalarType::F32,
        ScalarType::F64,
        ScalarType::Pred,
    ];

    /// Reads a type modifier without its dot. Matched byte by byte: decoders ask this of
    /// every modifier until one is a type, and a `match` on the text compared it with each
    /// name of its length in turn, calling `memcmp` for each.
    pub fn from_ptx(name: &str) -> Option<ScalarType> {
        Some(match name.as_bytes() {
            [b'b', b'8'] => ScalarType::B8,
            [b'b', b'1', b'6'] => ScalarType::B16,
            [b'b', b'3', b'2'] => ScalarType::B32,
            [b'b', b'6', b'4'] => ScalarType::B64,
            [b'b', b'1', b'2', b'8'] => ScalarType::B128,
            [b'u', b'8'] => ScalarType::U8,
            [b'u', b'1', b'6'] => ScalarType::U16,
            [b'u', b'3', b'2'] => ScalarType::U32,
            [b'u', b'6', b'4'] => ScalarType::U64,
            [b's', b'8'] => ScalarType::S8,
            [b's', b'1', b'6'] => ScalarType::S16,
            [b's', b'3', b'2'] => ScalarType::S32,
            [b's', b'6', b'4'] => ScalarType::S64,
            [b'f', b'1', b'6'] => ScalarType::F16,
            [b'f', b'1', b'6', b'x', b'2'] => ScalarType::F16x2,
            [b'b', b'f', b'1', b'6'] => ScalarType::Bf16,
            [b'b', b'f', b'1', b'6', b'x', b'2'] => ScalarType::Bf16x2,
            [b'f', b'3', b'2'] => ScalarType::F32,
            [b'f', b'6', b'4'] => ScalarType::F64,
            [b'p', b'r', b'e', b'd'] => ScalarType::Pred,
            _ => return None,
        })
    }

    pub fn as_ptx(self) -> &'static str {
        match self {
            ScalarType::B8 => ".b8",
            ScalarType::B16 => ".b16",
            ScalarType::B32 => ".b32",
            ScalarType::B64 => ".b64",
            ScalarType::B128 => ".b128",
            ScalarType::U8 => ".u8",
            ScalarType::U16 => ".u16",
            ScalarType::U32 => ".u32",
            ScalarType::U64 => ".u64",
            ScalarType::S8 => ".s8",
            ScalarType::S16 => ".s16",
            ScalarType::S32 => ".s32",
            ScalarType::S64 => ".s64",
            ScalarType::F16 => ".f16",
            ScalarType::F16x2 => ".f16x2",
            ScalarType::Bf16 => ".bf16",
            ScalarType::Bf16x2 => ".bf16x2",
            ScalarType::F32 => ".f32",
            ScalarType::F64 => ".f64",
            ScalarType::Pred => ".pred",
        }
    }

    /// Size in bits; `.pred` counts as 1.
    pub const fn bits(self) -> u32 {
        match self {
            ScalarType::Pred => 1,
            ScalarType::B8 | ScalarType::U8 | ScalarType::S8 => 8,
            ScalarType::B16 | ScalarType::U16 | ScalarType::S16 | ScalarType::F16 | ScalarType::Bf16 => 16,
            ScalarType::B32
            | ScalarType::U32
            | ScalarType::S32
            | ScalarType::F32
            | ScalarType::F16x2
            | ScalarType::Bf16x2 => 32,
            ScalarType::B64 | ScalarType::U64 | ScalarType::S64 | ScalarType::F64 => 64,
            ScalarType::B128 => 128,
        }
    }

    /// Size in bytes as stored in memory; `.pred` has no memory form and reports 1.
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub const fn kind(self) -> ScalarKind {
        match self {
            ScalarType::B8 | ScalarType::B16 | ScalarType::B32 | ScalarType::B64 | ScalarType::B128 => ScalarKind::Bit,
            ScalarType::U8 | ScalarType::U16 | ScalarType::U32 | ScalarType::U64 => ScalarKind::Unsigned,
            ScalarType::S8 | ScalarType::S16 | ScalarType::S32 | ScalarType::S64 => ScalarKind::Signed,
            ScalarType::F16
            | ScalarType::F16x2
            | ScalarType::Bf16
            | ScalarType::Bf16x2
            | ScalarType::F32
            | ScalarType::F64 => ScalarKind::Float,
            ScalarType::Pred => ScalarKind::Pred,
        }
    }

    pub fn is_float(self) -> bool {
        self.kind() == ScalarKind::Float
    }

    pub fn is_signed(self) -> bool {
        self.kind() == ScalarKind::Signed
    }

    /// The unsigned integer type of the given size in bits, if PTX has one.
    pub fn unsigned_of_bits(bits: u32) -> Option<ScalarType> {
        Some(match bits {
            8 => ScalarType::U8,
            16 => ScalarType::U16,
            32 => ScalarType::U32,
            64 => ScalarType::U64,
            _ => return None,
        })
    }

    /// The integer type twice as wide with the same signedness: the destination of `.wide`
    /// products. `None` for 64-bit and non-integer types.
    pub fn double_width_integer(self) -> Option<ScalarType> {
        match self.kind() {
            ScalarKind::Signed => ScalarType::signed_of_bits(self.bits() * 2),
            ScalarKind::Unsigned => ScalarType::unsigned_of_bits(self.bits() * 2),
            _ => None,
        }
    }

    /// The signed integer type of the given size in bits, if PTX has one.
    pub fn signed_of_bits(bits: u32) -> Option<ScalarType> {
        Some(match bits {
            8 => ScalarType::S8,
            16 => ScalarType::S16,
            32 => ScalarType::S32,
            64 => ScalarType::S64,
            _ => return None,
        })
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_ptx())
    }
}

#[cfg(test)]
mod tests {
    use super::ScalarType;

    #[test]
    fn every_type_reads_back_from_its_spelling() {
        for ty in ScalarType::ALL {
            let spelled = ty.as_ptx();
            assert_eq!(ScalarType::from_ptx(spelled.strip_prefix('.').unwrap_or(spelled)), Some(ty), "{spelled}");
        }
        for name in ["", "b", "b9", "b1", "u128", "s128", "f8", "bf16x4", "pred2", "pre", "f16x", "B32", "global"] {
            assert_eq!(ScalarType::from_ptx(name), None, "{name}");
        }
    }
}
