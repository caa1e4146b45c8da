//! The vocabulary of `wgmma.mma_async` (PTX ISA 8.0, sm_90a; NVIDIA's PTX manual, section
//! "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"): the four warps of a warp group
//! compute D (64×N) = A (64×K) · B (K×N) + D, A from registers or shared memory, B from shared
//! memory, each matrix in shared memory described by a 64-bit matrix descriptor.

use std::fmt;

use super::{Destination, Operand};

/// The element types of `wgmma`'s operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpGroupElement {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
    B1,
    F32,
    S32,
}

impl WarpGroupElement {
    pub fn from_ptx(name: &str) -> Option<WarpGroupElement> {
        Some(match name {
            "f16" => WarpGroupElement::F16,
            "bf16" => WarpGroupElement::Bf16,
            "tf32" => WarpGroupElement::Tf32,
            "e4m3" => WarpGroupElement::E4m3,
            "e5m2" => WarpGroupElement::E5m2,
            "s8" => WarpGroupElement::S8,
            "u8" => WarpGroupElement::U8,
            "b1" => WarpGroupElement::B1,
            "f32" => WarpGroupElement::F32,
            "s32" => WarpGroupElement::S32,
            _ => return None,
        })
    }

    /// The element's size in bits.
    pub fn bits(self) -> u32 {
        match self {
            WarpGroupElement::F16 | WarpGroupElement::Bf16 => 16,
            WarpGroupElement::Tf32 | WarpGroupElement::F32 | WarpGroupElement::S32 => 32,
            WarpGroupElement::E4m3 | WarpGroupElement::E5m2 | WarpGroupElement::S8 | WarpGroupElement::U8 => 8,
            WarpGroupElement::B1 => 1,
        }
    }

    /// K of the shapes `.m64nNkK` for multiplicands of this type: every multiplicand row of one
    /// instruction is 32 bytes (256 bits for `.b1`).
    pub fn k(self) -> u32 {
        256 / self.bits()
    }
}

impl fmt::Display for WarpGroupElement {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            WarpGroupElement::F16 => ".f16",
            WarpGroupElement::Bf16 => ".bf16",
            WarpGroupElement::Tf32 => ".tf32",
            WarpGroupElement::E4m3 => ".e4m3",
            WarpGroupElement::E5m2 => ".e5m2",
            WarpGroupElement::S8 => ".s8",
            WarpGroupElement::U8 => ".u8",
            WarpGroupElement::B1 => ".b1",
            WarpGroupElement::F32 => ".f32",
            WarpGroupElement::S32 => ".s32",
        })
    }
}

/// One `wgmma.mma_async.sync.aligned.m64nNkK{.satfinite}.dtype.atype.btype` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpGroupMultiply {
    /// N, the width of B and D (M is 64, K is `a.k()`).
    pub n: u32,
    pub d: WarpGroupElement,
    pub a: WarpGroupElement,
    pub b: WarpGroupElement,
    /// `.satfinite` (integer forms): D saturates to the `.s32` range.
    pub saturate: bool,
}

impl WarpGroupMultiply {
    /// The registers of each thread's part of D: N/2 elements, two `.f16` to a `.b32`.
    pub fn d_registers(&self) -> u32 {
        if self.d == WarpGroupElement::F16 {
            self.n / 4
        } else {
            self.n / 2
        }
    }
}

/// Where A comes from: a matrix descriptor (`.u64`/`.b64`) or the thread's four `.b32` registers
/// of its warp's 16 rows.
#[derive(Clone, Debug, PartialEq)]
pub enum WarpGroupA {
    Descriptor(Operand),
    Registers(Box<[Operand]>),
}

/// `wgmma.mma_async` with its operands (`Instruction::WarpGroupMultiplyAccumulate`, boxed).
#[derive(Clone, Debug, PartialEq)]
pub struct WarpGroupMultiplyAccumulate {
    pub operation: WarpGroupMultiply,
    /// D's registers, written; `accumulator` is the same registers, read.
    pub destinations: Box<[Destination]>,
    pub accumulator: Box<[Operand]>,
    pub a: WarpGroupA,
    /// B's matrix descriptor.
    pub b: Operand,
    /// `scale-d`: a predicate or a 0/1 immediate; false makes D = A·B (the old D is ignored).
    pub scale_d: Operand,
    /// `imm-scale-a`/`imm-scale-b` of -1: A (B) is negated.
    pub negate_a: bool,
    pub negate_b: bool,
    /// `imm-trans-a`/`imm-trans-b` of 1: the matrix in shared memory is MN-major rather than
    /// K-major (only `.f16` and `.bf16` have these operands).
    pub transpose_a: bool,
    pub transpose_b: bool,
}
