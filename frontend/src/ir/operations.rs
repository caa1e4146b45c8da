//! The closed enums that instructions' modifiers become when they are checked: the operation,
//! mode, rounding, comparison or lane shape that an [`super::Instruction`] variant carries.

use std::fmt;

use crate::vocabulary::ScalarType;

use super::{Destination, Operand, ShuffleMode};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressConversion {
    /// `cvta.space`: a space address to a generic address.
    ToGeneric,
    /// `cvta.to.space`: a generic address to a space address.
    FromGeneric,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultiplyMode {
    /// The low half of the double-width product.
    Low,
    /// The high half of the double-width product.
    High,
    /// The whole double-width product (destination twice as wide).
    Wide,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerBinaryOperation {
    Add,
    Subtract,
    Multiply(MultiplyMode),
    Minimum,
    Maximum,
    Divide,
    Remainder,
}

/// The lanes of an [`Instruction::IntegerLanes`]: the lane type and how many fill the 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntegerLaneShape {
    /// `.s32`: one lane (only with `.relu`).
    S32,
    /// `.u16x2`.
    U16x2,
    /// `.s16x2`.
    S16x2,
}

impl IntegerLaneShape {
    pub fn from_ptx(name: &str) -> Option<IntegerLaneShape> {
        Some(match name {
            "u16x2" => IntegerLaneShape::U16x2,
            "s16x2" => IntegerLaneShape::S16x2,
            _ => return None,
        })
    }

    /// How many lanes, and the bits of each.
    pub fn lanes(self) -> (u32, u32) {
        match self {
            IntegerLaneShape::S32 => (1, 32),
            IntegerLaneShape::U16x2 | IntegerLaneShape::S16x2 => (2, 16),
        }
    }

    pub fn is_signed(self) -> bool {
        matches!(self, IntegerLaneShape::S32 | IntegerLaneShape::S16x2)
    }
}

impl std::fmt::Display for IntegerLaneShape {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            IntegerLaneShape::S32 => ".s32",
            IntegerLaneShape::U16x2 => ".u16x2",
            IntegerLaneShape::S16x2 => ".s16x2",
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatBinaryOperation {
    Add,
    Subtract,
    Multiply,
    Divide,
    Minimum(MinimumMaximum),
    Maximum(MinimumMaximum),
}

/// The operations on `.f32x2` pairs (ISA 8.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackedSingleOperation {
    Add,
    Subtract,
    Multiply,
    FusedMultiplyAdd,
}

/// The half-precision binary operations (ISA 7.8 sections 9.7.4.1 to 9.7.4.8).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfBinaryOperation {
    Add,
    Subtract,
    Multiply,
    Minimum(MinimumMaximum),
    Maximum(MinimumMaximum),
}

/// What `testp` tests (ISA 7.8 section 9.7.3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatProperty {
    /// Neither infinite nor NaN.
    Finite,
    Infinite,
    /// Not NaN.
    Number,
    NotANumber,
    /// Finite and not subnormal: the spec counts both zeros as normal.
    Normal,
    Subnormal,
}

impl FloatProperty {
    pub fn from_ptx(name: &str) -> Option<FloatProperty> {
        Some(match name {
            "finite" => FloatProperty::Finite,
            "infinite" => FloatProperty::Infinite,
            "number" => FloatProperty::Number,
            "notanumber" => FloatProperty::NotANumber,
            "normal" => FloatProperty::Normal,
            "subnormal" => FloatProperty::Subnormal,
            _ => return None,
        })
    }
}

/// The modifiers of `min` and `max` on `.f32` and the half-precision types.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MinimumMaximum {
    /// `.NaN`: a NaN operand makes the result NaN instead of being ignored.
    pub propagate_nan: bool,
    /// `.xorsign.abs`: compare magnitudes; the result's sign is the XOR of the operands' signs.
    pub xorsign_absolute: bool,
}

/// How `cvt` rounds to `.tf32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tf32Rounding {
    /// `.rna`: to nearest, ties away from zero.
    NearestAway,
    /// `.rn`: to nearest, ties to even.
    NearestEven,
    /// `.rz`: towards zero.
    Zero,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfUnaryOperation {
    Negate,
    Absolute,
    /// `tanh.approx` (section 9.7.4.9).
    ApproximateTanh,
    /// `ex2.approx` (section 9.7.4.10): `.ftz` is required on `.bf16` and `.bf16x2`, refused on
    /// `.f16` and `.f16x2`.
    ApproximateExp2,
}

/// How a half-precision result is clamped: `.sat` to [0.0, 1.0], `.relu` to [0.0, inf).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfSaturation {
    None,
    Unit,
    Relu,
}

/// The packed destination (or source) formats of `cvt`: two lanes in one register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackedFormat {
    F16x2,
    Bf16x2,
    /// Two 8-bit floats with 4 exponent and 3 mantissa bits, no infinity (OCP FP8 E4M3).
    E4m3x2,
    /// Two 8-bit floats with 5 exponent and 2 mantissa bits (OCP FP8 E5M2).
    E5m2x2,
    /// Two 4-bit floats with 2 exponent bits (bias 1) and 1 mantissa bit, no infinity or NaN,
    /// largest 6.0 (OCP Microscaling Formats v1.0, FP4 E2M1), in one byte.
    E2m1x2,
    /// Two 6-bit floats with 2 exponent bits (bias 1) and 3 mantissa bits, no infinity or NaN,
    /// largest 7.5 (OCP MX v1.0, FP6 E2M3), each in the low 6 bits of a byte.
    E2m3x2,
    /// Two 6-bit floats with 3 exponent bits (bias 3) and 2 mantissa bits, no infinity or NaN,
    /// largest 28.0 (OCP MX v1.0, FP6 E3M2), each in the low 6 bits of a byte.
    E3m2x2,
    /// Two 8-bit scales: an exponent only, bias 127, `0xff` NaN, no zero (OCP MX v1.0, E8M0).
    Ue8m0x2,
}

impl PackedFormat {
    pub fn from_ptx(name: &str) -> Option<PackedFormat> {
        Some(match name {
            "f16x2" => PackedFormat::F16x2,
            "bf16x2" => PackedFormat::Bf16x2,
            "e4m3x2" => PackedFormat::E4m3x2,
            "e5m2x2" => PackedFormat::E5m2x2,
            "e2m1x2" => PackedFormat::E2m1x2,
            "e2m3x2" => PackedFormat::E2m3x2,
            "e3m2x2" => PackedFormat::E3m2x2,
            "ue8m0x2" => PackedFormat::Ue8m0x2,
            _ => return None,
        })
    }

    pub fn is_float8(self) -> bool {
        matches!(self, PackedFormat::E4m3x2 | PackedFormat::E5m2x2)
    }

    /// The 8-, 6- and 4-bit floats: converted one lane at a time, always to nearest.
    pub fn is_narrow_float(self) -> bool {
        matches!(
            self,
            PackedFormat::E4m3x2
                | PackedFormat::E5m2x2
                | PackedFormat::E2m1x2
                | PackedFormat::E2m3x2
                | PackedFormat::E3m2x2
        )
    }

    /// The register type two narrow floats are packed in: `.b8` for 4-bit floats, else `.b16`
    /// (a 6-bit float takes a byte, its top two bits zero).
    pub fn narrow_pair_type(self) -> ScalarType {
        if self == PackedFormat::E2m1x2 {
            ScalarType::B8
        } else {
            ScalarType::B16
        }
    }
}

impl fmt::Display for PackedFormat {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            PackedFormat::F16x2 => ".f16x2",
            PackedFormat::Bf16x2 => ".bf16x2",
            PackedFormat::E4m3x2 => ".e4m3x2",
            PackedFormat::E5m2x2 => ".e5m2x2",
            PackedFormat::E2m1x2 => ".e2m1x2",
            PackedFormat::E2m3x2 => ".e2m3x2",
            PackedFormat::E3m2x2 => ".e3m2x2",
            PackedFormat::Ue8m0x2 => ".ue8m0x2",
        })
    }
}

/// One-operand floating-point functions (ISA 7.8 sections 9.7.3.13 to 9.7.3.22).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatUnaryOperation {
    Sine,
    Cosine,
    Log2,
    Exp2,
    Tanh,
    Reciprocal,
    SquareRoot,
    ReciprocalSquareRoot,
}

/// How a floating-point function's result is rounded: `.approx` (within the ISA's stated error)
/// or correctly rounded in an IEEE mode (`.rn`, `.rz`, `.rm`, `.rp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatPrecision {
    Approximate,
    Rounded(RoundingMode),
}

/// The predicate half of `lop3.BoolOp.b32 d|p, a, b, c, immLut, q`: `p = (d != 0) operation q`,
/// with `operation` `.and` or `.or`.
#[derive(Clone, Debug, PartialEq)]
pub struct LogicTablePredicate {
    pub operation: LogicOperation,
    pub destination: Destination,
    pub q: Operand,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogicOperation {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOperation {
    Not,
    LogicalNot,
    Negate,
    Absolute,
    PopulationCount,
    CountLeadingZeros,
    BitReverse,
}

/// Whether the carry-flag instruction adds or subtracts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryOperation {
    Add,
    Subtract,
}

/// `prmt` modes: the default picks each byte with a nibble of the selector; the others pick a
/// fixed pattern by the selector's two low bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PermuteMode {
    Default,
    ForwardFourExtract,
    BackwardFourExtract,
    ReplicateByte,
    EdgeClampLeft,
    EdgeClampRight,
    ReplicateHalf,
}

impl PermuteMode {
    pub fn from_ptx(name: &str) -> Option<PermuteMode> {
        Some(match name {
            "f4e" => PermuteMode::ForwardFourExtract,
            "b4e" => PermuteMode::BackwardFourExtract,
            "rc8" => PermuteMode::ReplicateByte,
            "ecl" => PermuteMode::EdgeClampLeft,
            "ecr" => PermuteMode::EdgeClampRight,
            "rc16" => PermuteMode::ReplicateHalf,
            _ => return None,
        })
    }
}

impl fmt::Display for PermuteMode {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            PermuteMode::Default => "",
            PermuteMode::ForwardFourExtract => ".f4e",
            PermuteMode::BackwardFourExtract => ".b4e",
            PermuteMode::ReplicateByte => ".rc8",
            PermuteMode::EdgeClampLeft => ".ecl",
            PermuteMode::EdgeClampRight => ".ecr",
            PermuteMode::ReplicateHalf => ".rc16",
        })
    }
}

/// Which products `dp4a`/`dp2a` sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotProductLanes {
    /// `dp4a`: four byte products.
    Four,
    /// `dp2a.lo`: two half-word by byte products with bytes 0 and 1 of `b`.
    TwoLow,
    /// `dp2a.hi`: the same with bytes 2 and 3 of `b`.
    TwoHigh,
}

/// `bfi.type f, a, b, c, d` (`Instruction::BitFieldInsert`).
#[derive(Clone, Debug, PartialEq)]
pub struct BitFieldInsertInstruction {
    pub ty: ScalarType,
    pub destination: Destination,
    pub field: Operand,
    pub base: Operand,
    pub position: Operand,
    pub length: Operand,
}

/// `shfl{.sync}.mode.b32 d{|p}, a, b, c{, membermask}` (`Instruction::Shuffle`).
#[derive(Clone, Debug, PartialEq)]
pub struct ShuffleInstruction {
    pub mode: ShuffleMode,
    pub destination: Destination,
    pub in_range: Option<Destination>,
    pub value: Operand,
    pub lane: Operand,
    pub clamp: Operand,
    pub member_mask: Option<Operand>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShiftOperation {
    Left,
    /// `shr` on `.bN`/`.uN`: zeros shift in.
    RightLogical,
    /// `shr` on `.sN`: the sign bit shifts in.
    RightArithmetic,
}

/// Rounding modifiers: `.rn .rz .rm .rp` for floats, `.rni .rzi .rmi .rpi` for rounding to an
/// integral value in `cvt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoundingMode {
    NearestEven,
    TowardZero,
    TowardNegative,
    TowardPositive,
    NearestEvenIntegral,
    TowardZeroIntegral,
    TowardNegativeIntegral,
    TowardPositiveIntegral,
}

impl RoundingMode {
    /// Every name [`RoundingMode::from_ptx`] reads.
    pub const NAMES: [&'static str; 8] = ["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"];

    pub fn from_ptx(name: &str) -> Option<RoundingMode> {
        Some(match name {
            "rn" => RoundingMode::NearestEven,
            "rz" => RoundingMode::TowardZero,
            "rm" => RoundingMode::TowardNegative,
            "rp" => RoundingMode::TowardPositive,
            "rni" => RoundingMode::NearestEvenIntegral,
            "rzi" => RoundingMode::TowardZeroIntegral,
            "rmi" => RoundingMode::TowardNegativeIntegral,
            "rpi" => RoundingMode::TowardPositiveIntegral,
            _ => return None,
        })
    }

    pub fn is_integral(self) -> bool {
        matches!(
            self,
            RoundingMode::NearestEvenIntegral
                | RoundingMode::TowardZeroIntegral
                | RoundingMode::TowardNegativeIntegral
                | RoundingMode::TowardPositiveIntegral
        )
    }
}

impl fmt::Display for RoundingMode {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            RoundingMode::NearestEven => ".rn",
            RoundingMode::TowardZero => ".rz",
            RoundingMode::TowardNegative => ".rm",
            RoundingMode::TowardPositive => ".rp",
            RoundingMode::NearestEvenIntegral => ".rni",
            RoundingMode::TowardZeroIntegral => ".rzi",
            RoundingMode::TowardNegativeIntegral => ".rmi",
            RoundingMode::TowardPositiveIntegral => ".rpi",
        })
    }
}

/// `setp` comparisons (ISA 7.8 section 9.7.5): integer ones, and for floats the ordered forms
/// (false when either side is NaN) and the `u` forms (true when either side is NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    /// `lo`/`ls`/`hi`/`hs`: unsigned comparisons whatever the type says.
    LowerUnsigned,
    LowerOrSameUnsigned,
    HigherUnsigned,
    HigherOrSameUnsigned,
    EqualUnordered,
    NotEqualUnordered,
    LessUnordered,
    LessOrEqualUnordered,
    GreaterUnordered,
    GreaterOrEqualUnordered,
    /// `num`: neither side is NaN.
    Numbers,
    /// `nan`: either side is NaN.
    NotANumber,
}

impl Comparison {
    pub fn from_ptx(name: &str) -> Option<Comparison> {
        Some(match name {
            "eq" => Comparison::Equal,
            "ne" => Comparison::NotEqual,
            "lt" => Comparison::Less,
            "le" => Comparison::LessOrEqual,
            "gt" => Comparison::Greater,
            "ge" => Comparison::GreaterOrEqual,
            "lo" => Comparison::LowerUnsigned,
            "ls" => Comparison::LowerOrSameUnsigned,
            "hi" => Comparison::HigherUnsigned,
            "hs" => Comparison::HigherOrSameUnsigned,
            "equ" => Comparison::EqualUnordered,
            "neu" => Comparison::NotEqualUnordered,
            "ltu" => Comparison::LessUnordered,
            "leu" => Comparison::LessOrEqualUnordered,
            "gtu" => Comparison::GreaterUnordered,
            "geu" => Comparison::GreaterOrEqualUnordered,
            "num" => Comparison::Numbers,
            "nan" => Comparison::NotANumber,
            _ => return None,
        })
    }

    /// Whether the comparison is only defined on floating-point types.
    pub fn is_float_only(self) -> bool {
        matches!(
            self,
            Comparison::EqualUnordered
                | Comparison::NotEqualUnordered
                | Comparison::LessUnordered
                | Comparison::LessOrEqualUnordered
                | Comparison::GreaterUnordered
                | Comparison::GreaterOrEqualUnordered
                | Comparison::Numbers
                | Comparison::NotANumber
        )
    }

    /// Whether the comparison is only defined on integer types.
    pub fn is_integer_only(self) -> bool {
        matches!(
            self,
            Comparison::LowerUnsigned
                | Comparison::LowerOrSameUnsigned
                | Comparison::HigherUnsigned
                | Comparison::HigherOrSameUnsigned
        )
    }
}
