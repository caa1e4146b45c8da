//! The video instructions of the checked module (ISA 7.8 section 9.7.15): the scalar forms
//! (`vadd` ... `vset`) and the SIMD forms on halves and bytes (`vadd2` ... `vset4`), boxed in
//! `Instruction::Video` and `Instruction::VideoSimd`.

use crate::vocabulary::ScalarType;

use super::{Comparison, Destination, Operand};

/// One scalar video instruction (ISA 7.8 section 9.7.15.1).
#[derive(Clone, Debug, PartialEq)]
pub struct VideoInstruction {
    pub operation: VideoOperation,
    /// `.dtype`, `.atype`, `.btype`: `.u32` or `.s32` (`vset` has no `.dtype`: its result is
    /// an unsigned 0 or 1).
    pub destination_type: ScalarType,
    pub a_type: ScalarType,
    pub b_type: ScalarType,
    pub saturate: bool,
    pub destination: Destination,
    /// `d.dsel`: the part of `c` that the result replaces (the merge form).
    pub destination_select: Option<VideoSelector>,
    pub a: Operand,
    pub a_select: Option<VideoSelector>,
    pub b: Operand,
    pub b_select: Option<VideoSelector>,
    /// `.add`, `.min`, `.max` with `c`.
    pub secondary: Option<VideoSecondaryOperation>,
    /// The third operand, for the secondary operation or the merge.
    pub c: Option<Operand>,
}

/// One SIMD video instruction (ISA 7.8 section 9.7.17).
#[derive(Clone, Debug, PartialEq)]
pub struct VideoSimdInstruction {
    pub operation: VideoSimdOperation,
    /// 2 (half-words) or 4 (bytes).
    pub lanes: u8,
    /// `.dtype`, `.atype`, `.btype` are `.s32` (signed) or `.u32`; `vset2`/`vset4` have no
    /// destination type.
    pub destination_signed: bool,
    pub a_signed: bool,
    pub b_signed: bool,
    pub saturate: bool,
    /// `.add`: the selected lanes' results are added to `c`; otherwise they are merged into `c`.
    pub accumulate: bool,
    /// Bit `i` set: lane `i` of the result is written (or added).
    pub mask: u8,
    /// For each lane, which lane of the pair `{b, a}` feeds `a`'s side (`.h10`, `.b3210`...).
    pub a_select: [u8; 4],
    pub b_select: [u8; 4],
    pub destination: Destination,
    pub a: Operand,
    pub b: Operand,
    pub c: Operand,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoSimdOperation {
    Add,
    Subtract,
    /// `vavrg`: `(a + b + 1) >> 1` for a non-negative sum, `(a + b) >> 1` otherwise.
    Average,
    AbsoluteDifference,
    Minimum,
    Maximum,
    Set(Comparison),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoOperation {
    Add,
    Subtract,
    AbsoluteDifference,
    Minimum,
    Maximum,
    /// `vshl`/`vshr` with `.wrap` (amount modulo 32) or `.clamp` (amount at most 32).
    ShiftLeft {
        wrap: bool,
    },
    ShiftRight {
        wrap: bool,
    },
    /// `vset.cmp`: 1 when the comparison holds, else 0.
    Set(Comparison),
    /// `vmad{.po}{.shr7/.shr15}`: `±(a * b) ± c` (plus one with `.po`), shifted right by
    /// `shift`. `negate_product` is `-a` xor `-b`; the ISA allows it or `negate_c`, not both,
    /// and neither with `.po`.
    MultiplyAdd {
        plus_one: bool,
        shift: u8,
        negate_product: bool,
        negate_c: bool,
    },
}

/// `.b0`..`.b3` (a byte) or `.h0`/`.h1` (a half-word) of a 32-bit video operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoSelector {
    Byte(u8),
    Half(u8),
}

impl VideoSelector {
    pub fn from_ptx(name: &str) -> Option<VideoSelector> {
        Some(match name {
            "b0" => VideoSelector::Byte(0),
            "b1" => VideoSelector::Byte(1),
            "b2" => VideoSelector::Byte(2),
            "b3" => VideoSelector::Byte(3),
            "h0" => VideoSelector::Half(0),
            "h1" => VideoSelector::Half(1),
            _ => return None,
        })
    }

    /// The selected part's width in bits.
    pub fn bits(self) -> u32 {
        match self {
            VideoSelector::Byte(_) => 8,
            VideoSelector::Half(_) => 16,
        }
    }

    /// The selected part's lowest bit.
    pub fn shift(self) -> u32 {
        match self {
            VideoSelector::Byte(index) => 8 * u32::from(index),
            VideoSelector::Half(index) => 16 * u32::from(index),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VideoSecondaryOperation {
    Add,
    Minimum,
    Maximum,
}
