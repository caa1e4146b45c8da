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

    pub fn from_ptx(name: &str) -> Option<ScalarType> {
        Some(match name {
            "b8" => ScalarType::B8,
            "b16" => ScalarType::B16,
            "b32" => ScalarType::B32,
            "b64" => ScalarType::B64,
            "b128" => ScalarType::B128,
            "u8" => ScalarType::U8,
            "u16" => ScalarType::U16,
            "u32" => ScalarType::U32,
            "u64" => ScalarType::U64,
            "s8" => ScalarType::S8,
            "s16" => ScalarType::S16,
            "s32" => ScalarType::S32,
            "s64" => ScalarType::S64,
            "f16" => ScalarType::F16,
            "f16x2" => ScalarType::F16x2,
            "bf16" => ScalarType::Bf16,
            "bf16x2" => ScalarType::Bf16x2,
            "f32" => ScalarType::F32,
            "f64" => ScalarType::F64,
            "pred" => ScalarType::Pred,
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
