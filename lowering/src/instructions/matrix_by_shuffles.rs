//! `mma.sync` and `ldmatrix.sync` (ISA 7.8 sections 9.7.13.4.14 and 9.7.13.4.15) built from
//! warp shuffles, for targets with PTX's 32-lane warps but no instructions for its fragments
//! (AMDGPU and SPIR-V: `Target::matrix_lowering` is `Shuffles`). No lane waits for the others
//! in a runtime: each fetches, by index shuffles of 32-bit registers (`Target::warp_collective`,
//! `shfl.sync.idx` with every lane taking part), the elements it needs from the lanes that hold
//! them, and computes its own results.
//!
//! Fragment layouts are the manual's, as `runtime/src/cooperative/matrix.rs` states them. With
//! `g = lane / 4` and `t = lane % 4`, a lane's D elements of every shape but `.m8n8k4` lie in
//! rows `g` (and `g + 8` when M = 16) and columns `2t` and `2t + 1`; A's row `r` is held by lanes
//! `4·(r mod 8)` to `4·(r mod 8) + 3`, B's column `n` by lanes `4n` to `4n + 3`, and C's element
//! `i` has the position of D's, so it needs no shuffle. Each lane shuffles in its rows of A and
//! columns of B whole: 32 shuffles for `.m16n8k16` or `.m16n8k32`; on `.b1` it keeps them as
//! 32-bit words and counts the bits of their XOR or AND (`single_bits`). `.m8n8k4` on `.f16`, four
//! 8×8×4 products of quad pairs, fetches each element by its position in the quad pair's
//! tables; where the register to read depends on the lane, every candidate register is
//! shuffled and the lane selects its own.
//!
//! `.f64` (`.m8n8k4`, `.m16n8k4`, `.m16n8k8`, `.m16n8k16`) has one element to a register in the
//! same layout: lane `4g + t` holds A's register `r` at `(g + 8·(r mod 2), t + 4·(r / 2))`
//! (`(g, t)` in `.m8n8k4`), B's register `r` at `(t + 4r, g)`, and C's and D's element `i` at
//! `(g + 8·(i / 2), 2t + i mod 2)`. The lane shuffles in A's rows `g` (and `g + 8`) from lanes
//! `4g` to `4g + 3` and B's columns `2t` and `2t + 1` from lanes `8t` to `8t + 7`, each `.f64`
//! as its two 32-bit halves (24 shuffles for `.m8n8k4`, 128 for `.m16n8k16`), and adds the K
//! products to C's element in order of k with fused multiply-adds, as the CPU runtime does.
//!
//! Arithmetic is the CPU runtime's (`runtime/src/cooperative/matrix.rs`), so that results agree
//! bit for bit: `.f16`, `.bf16` and `.tf32` elements (`.tf32` without its 13 low mantissa bits)
//! are widened exactly to `double`, and their products, exact there (at most 2×11 significant
//! bits), are added to C's element one after another in order of k, from 0 to K - 1, in
//! `double`; the sum is rounded once to D's type (nearest even). Integer elements are summed
//! exactly in 64 bits in the same order, and D wraps to 32 bits, or saturates to the `.s32`
//! range with `.satfinite`. One difference remains: a NaN `.f16` D (only from infinite or NaN
//! inputs) is the canonical `0x7fff` here, as `cvt` gives it, where the CPU's runtime keeps the
//! `half` crate's quiet NaN.
//!
//! `ldmatrix`: lanes `8i` to `8i + 7` give the addresses of rows 0 to 7 of matrix `i`. Lane `l`
//! receives elements `(l / 4, 2·(l mod 4))` and the next column of each matrix: one 32-bit load
//! from the row address it shuffles in from lane `8i + l / 4`, or with `.trans` two 16-bit loads
//! from the rows of lanes `8i + 2·(l mod 4)` and the next. The warp first meets at a warp barrier
//! (`bar.warp.sync`), as lanes meet at the CPU's collective, so the rows that other lanes
//! stored before the instruction are visible to the loads.
//!
//! `stmatrix` is the mirror image, and every target uses this form of it (on the CPU and NVPTX
//! each shuffle is the target's `shfl.sync.idx`): lane `l` stores its own elements, one 32-bit
//! store of register `i` at byte `4·(l mod 4)` of the row that lane `8i + l / 4` gives, or with
//! `.trans` its two 16-bit halves at byte `2·(l / 4)` of the rows of lanes `8i + 2·(l mod 4)` and
//! the next. Each row is written once, by the four (or eight) lanes that hold its elements.

use std::collections::hash_map::Entry;
use std::collections::HashMap;

use inkwell::types::BasicType;
use inkwell::values::{BasicValue, BasicValueEnum, FloatValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    Address, BitOperation, Destination, GuardedInstruction, MatrixElement, MatrixLayout, MatrixMultiply, MatrixShape,
    Operand, RoundingMode, ShuffleMode,
};
use ptxr_frontend::vocabulary::{ScalarType, SpecialRegister, StateSpace};
use ptxr_intrinsics::{Unsupported, WarpCollective};

use super::half::{float8_to_double, round_to_half, widen_to_double};
use super::matrix::{fragment_register, fragment_words, unsupported, write_words};
use super::support::intrinsic;
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// One operand element, exactly: a `double` for the floating-point types, an `i64` for the
/// integers.
#[derive(Clone, Copy)]
pub(super) enum Number<'ctx> {
    Float(FloatValue<'ctx>),
    Integer(IntValue<'ctx>),
}

/// The lane's view of its warp while it lowers one instruction.
pub(super) struct Warp<'l, 'a, 'ctx> {
    lowering: &'l FunctionLowering<'a, 'ctx>,
    pub(super) guarded: &'l GuardedInstruction,
    /// This lane's index in its warp (an `i32`).
    pub(super) lane: IntValue<'ctx>,
}

impl<'l, 'a, 'ctx> Warp<'l, 'a, 'ctx> {
    pub(super) fn new(
        lowering: &'l FunctionLowering<'a, 'ctx>,
        guarded: &'l GuardedInstruction,
    ) -> LoweringResult<Self> {
        let lane = lowering
            .shared
            .target
            .special_register(&lowering.site(), SpecialRegister::LaneId)
            .map_err(unsupported(lowering, guarded))?;
        Ok(Warp { lowering, guarded, lane })
    }

    pub(super) fn builder(&self) -> &'a inkwell::builder::Builder<'ctx> {
        self.lowering.shared.builder
    }

    pub(super) fn i32(&self, value: u64) -> IntValue<'ctx> {
        self.lowering.shared.context.i32_type().const_int(value, false)
    }

    pub(super) fn and(&self, value: IntValue<'ctx>, mask: u64) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_and(value, value.get_type().const_int(mask, false), "")?)
    }

    pub(super) fn or(&self, a: IntValue<'ctx>, b: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_or(a, b, "")?)
    }

    pub(super) fn shift_left(&self, value: IntValue<'ctx>, bits: u64) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_left_shift(value, value.get_type().const_int(bits, false), "")?)
    }

    pub(super) fn shift_right(&self, value: IntValue<'ctx>, bits: u64) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder().build_right_shift(value, value.get_type().const_int(bits, false), false, "")?)
    }

    /// The value (an `i32`) that `value` holds in warp lane `source` (an `i32`).
    pub(super) fn shuffle(&self, value: IntValue<'ctx>, source: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        // `shfl.sync.idx` with c = 0x1f: the source lane itself, every lane a member.
        let collective = WarpCollective::Shuffle {
            mode: ShuffleMode::Index,
            value,
            lane: source,
            clamp: self.i32(0x1f),
            member_mask: Some(self.i32(u64::from(u32::MAX))),
        };
        let result = self
            .lowering
            .shared
            .target
            .warp_collective(&self.lowering.site(), &collective)
            .map_err(unsupported(self.lowering, self.guarded))?;
        result.value.ok_or_else(|| LoweringError::internal("a shuffle without a result", self.guarded.span))
    }

    /// Element `index` (an `i32`) of register `register` (an `i32`) of `words`, a fragment of
    /// `element`s, as lane `source` holds it. A register index known here costs one shuffle; one
    /// that depends on the lane, one per register.
    fn fetch(
        &self,
        words: &[IntValue<'ctx>],
        element: MatrixElement,
        source: IntValue<'ctx>,
        register: IntValue<'ctx>,
        index: IntValue<'ctx>,
    ) -> LoweringResult<Number<'ctx>> {
        let word = match register.get_zero_extended_constant() {
            Some(register) => self.shuffle(self.word(words, register as usize)?, source)?,
            None => {
                let mut word = self.shuffle(self.word(words, 0)?, source)?;
                for (candidate, value) in words.iter().enumerate().skip(1) {
                    let shuffled = self.shuffle(*value, source)?;
                    let chosen =
                        self.builder().build_int_compare(IntPredicate::EQ, register, self.i32(candidate as u64), "")?;
                    word = self.builder().build_select(chosen, shuffled, word, "")?.into_int_value();
                }
                word
            }
        };
        self.element(word, element, index)
    }

    pub(super) fn word(&self, words: &[IntValue<'ctx>], register: usize) -> LoweringResult<IntValue<'ctx>> {
        words.get(register).copied().ok_or_else(|| {
            LoweringError::internal(format!("register {register} of a fragment of {}", words.len()), self.guarded.span)
        })
    }

    /// Element `index` (an `i32`) of a register's 32 bits `word`, exactly.
    pub(super) fn element(
        &self,
        word: IntValue<'ctx>,
        element: MatrixElement,
        index: IntValue<'ctx>,
    ) -> LoweringResult<Number<'ctx>> {
        let builder = self.builder();
        let context = self.lowering.shared.context;
        let shift = builder.build_int_mul(index, self.i32(u64::from(element.bits())), "")?;
        let bits = builder.build_right_shift(word, shift, false, "")?;
        let span = self.guarded.span;
        let single = |bits: IntValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
            let single = builder.build_bit_cast(bits, context.f32_type(), "")?.into_float_value();
            Ok(builder.build_float_ext(single, context.f64_type(), "")?)
        };
        Ok(match element {
            MatrixElement::F16 | MatrixElement::Bf16 => {
                let half = builder.build_int_truncate(bits, context.i16_type(), "")?;
                Number::Float(widen_to_double(self.lowering, half, element == MatrixElement::Bf16, span)?)
            }
            MatrixElement::Tf32 => Number::Float(single(self.and(bits, 0xffff_e000)?)?),
            MatrixElement::F32 => Number::Float(single(bits)?),
            MatrixElement::S8 | MatrixElement::U8 => {
                let byte = builder.build_int_truncate(bits, context.i8_type(), "")?;
                Number::Integer(if element == MatrixElement::S8 {
                    builder.build_int_s_extend(byte, context.i64_type(), "")?
                } else {
                    builder.build_int_z_extend(byte, context.i64_type(), "")?
                })
            }
            MatrixElement::E4m3 | MatrixElement::E5m2 => {
                let byte = builder.build_int_truncate(bits, context.i8_type(), "")?;
                Number::Float(float8_to_double(self.lowering, byte, element == MatrixElement::E5m2, span)?)
            }
            MatrixElement::S32 => Number::Integer(builder.build_int_s_extend(bits, context.i64_type(), "")?),
            // The low nibble, sign-extended from its bit 3 by shifting it to the top and back.
            MatrixElement::S4 => {
                let top = builder.build_left_shift(bits, self.i32(28), "")?;
                let nibble = builder.build_right_shift(top, self.i32(28), true, "")?;
                Number::Integer(builder.build_int_s_extend(nibble, context.i64_type(), "")?)
            }
            MatrixElement::U4 => {
                Number::Integer(builder.build_int_z_extend(self.and(bits, 0xf)?, context.i64_type(), "")?)
            }
            MatrixElement::B1 => {
                Number::Integer(builder.build_int_z_extend(self.and(bits, 1)?, context.i64_type(), "")?)
            }
            MatrixElement::F64 => {
                return Err(LoweringError::internal(format!("an `mma` element of type {element}"), span))
            }
        })
    }

    /// D's element (its bits in the low end of an `i32`): C's element plus the products, added
    /// in order, then rounded, wrapped or saturated to D's type.
    pub(super) fn accumulate(
        &self,
        operation: &MatrixMultiply,
        c: Number<'ctx>,
        products: &[(Number<'ctx>, Number<'ctx>)],
    ) -> LoweringResult<IntValue<'ctx>> {
        let builder = self.builder();
        let context = self.lowering.shared.context;
        let mixed =
            || LoweringError::internal("an `mma` mixing integer and floating-point elements", self.guarded.span);
        match c {
            Number::Integer(mut sum) => {
                for (a, b) in products {
                    let (Number::Integer(a), Number::Integer(b)) = (a, b) else { return Err(mixed()) };
                    // `.b1`: the bits' XOR (`.xor.popc`) or AND (`.and.popc`, the product).
                    let product = if operation.bit_operation == Some(BitOperation::Xor) {
                        builder.build_xor(*a, *b, "")?
                    } else {
                        builder.build_int_mul(*a, *b, "")?
                    };
                    sum = builder.build_int_add(sum, product, "")?;
                }
                if operation.saturate {
                    let i64_type = context.i64_type();
                    let (low, high) =
                        (i64_type.const_int(i32::MIN as u64, true), i64_type.const_int(i32::MAX as u64, false));
                    let below = builder.build_int_compare(IntPredicate::SLT, sum, low, "")?;
                    sum = builder.build_select(below, low, sum, "")?.into_int_value();
                    let above = builder.build_int_compare(IntPredicate::SGT, sum, high, "")?;
                    sum = builder.build_select(above, high, sum, "")?.into_int_value();
                }
                Ok(builder.build_int_truncate(sum, context.i32_type(), "")?)
            }
            Number::Float(mut sum) => {
                for (a, b) in products {
                    let (Number::Float(a), Number::Float(b)) = (a, b) else { return Err(mixed()) };
                    // The product is exact, so only the sum rounds, whether or not LLVM fuses them.
                    sum = builder.build_float_add(sum, builder.build_float_mul(*a, *b, "")?, "")?;
                }
                if operation.d == MatrixElement::F16 {
                    let half = round_to_half(self.lowering, sum, self.guarded.span)?;
                    Ok(builder.build_int_z_extend(half, context.i32_type(), "")?)
                } else {
                    let single = builder.build_float_trunc(sum, context.f32_type(), "")?;
                    Ok(builder.build_bit_cast(single, context.i32_type(), "")?.into_int_value())
                }
            }
        }
    }

    /// D's registers from its elements, in order, several narrow ones to a register (the first
    /// in the low bits).
    pub(super) fn pack(
        &self,
        elements: &[IntValue<'ctx>],
        element: MatrixElement,
    ) -> LoweringResult<Vec<IntValue<'ctx>>> {
        let per_register = (32 / element.bits()) as usize;
        elements
            .chunks(per_register)
            .map(|chunk| {
                let mut word = self.i32(0);
                for (index, value) in chunk.iter().enumerate() {
                    word = self.or(word, self.shift_left(*value, u64::from(element.bits()) * index as u64)?)?;
                }
                Ok(word)
            })
            .collect()
    }
}

/// Whether this lowering computes `operation`: the forms the CPU's runtime computes.
fn computed(operation: &MatrixMultiply) -> bool {
    let shape = match operation.shape {
        MatrixShape::M8n8k16
        | MatrixShape::M16n8k4
        | MatrixShape::M16n8k8
        | MatrixShape::M16n8k16
        | MatrixShape::M16n8k32 => true,
        MatrixShape::M8n8k4 => matches!(operation.a, MatrixElement::F16 | MatrixElement::F64),
        // The sub-byte shapes.
        MatrixShape::M8n8k32 | MatrixShape::M16n8k64 => matches!(operation.a, MatrixElement::S4 | MatrixElement::U4),
        MatrixShape::M8n8k128 | MatrixShape::M16n8k128 | MatrixShape::M16n8k256 => operation.a == MatrixElement::B1,
    };
    // `.f64` only in `.m8n8k4`, `.m16n8k4`, `.m16n8k8` and `.m16n8k16`, where the decoder allows
    // it only with every operand `.f64`.
    let element = |element: MatrixElement| {
        element != MatrixElement::F64
            || matches!(
                operation.shape,
                MatrixShape::M8n8k4 | MatrixShape::M16n8k4 | MatrixShape::M16n8k8 | MatrixShape::M16n8k16
            )
    };
    shape && [operation.d, operation.a, operation.b, operation.c].into_iter().all(element)
}

/// D's registers of an `mma`, as `fragment_register(operation.d)` values, not yet written.
pub(super) fn multiply_accumulate_values<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    if !computed(operation) {
        return Err(unsupported(lowering, guarded)(Unsupported { what: "warp-level matrix instructions".into() }));
    }
    if operation.a == MatrixElement::F64 {
        let warp = Warp::new(lowering, guarded)?;
        return double_precision(&warp, operation.shape, a, b, c, RoundingMode::NearestEven);
    }
    let a = fragment_words(lowering, a, operation.a)?;
    multiply_accumulate_words(lowering, guarded, operation, &a, b, c)
}

/// D's registers of an `mma` whose A is given as its registers' 32 bits (`i32`s): the dense A
/// that `mma.sp` rebuilds (`sparse_matrix.rs`). Not for `.f64`.
pub(super) fn multiply_accumulate_words<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a: &[IntValue<'ctx>],
    b: &[Operand],
    c: &[Operand],
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    // `mma.sp` on 8-bit integers at `.m16n8k64` and 4-bit ones at `.m16n8k128` rebuilds a dense
    // A of a shape that the dense `mma` lacks; the row-by-column product takes any K.
    let rebuilt = match operation.shape {
        MatrixShape::M16n8k64 => matches!(operation.a, MatrixElement::S8 | MatrixElement::U8),
        MatrixShape::M16n8k128 => matches!(operation.a, MatrixElement::S4 | MatrixElement::U4),
        _ => false,
    };
    if !(computed(operation) || rebuilt) || operation.a == MatrixElement::F64 {
        return Err(unsupported(lowering, guarded)(Unsupported { what: "warp-level matrix instructions".into() }));
    }
    let warp = Warp::new(lowering, guarded)?;
    let b = fragment_words(lowering, b, operation.b)?;
    let c = fragment_words(lowering, c, operation.c)?;
    let d = if operation.shape == MatrixShape::M8n8k4 {
        quad_pairs(&warp, operation, a, &b, &c)?
    } else {
        row_by_column(&warp, operation, a, &b, &c)?
    };
    let wanted = crate::types::llvm_type(lowering.shared.context, fragment_register(operation.d));
    d.into_iter().map(|bits| Ok(lowering.shared.builder.build_bit_cast(bits, wanted, "")?)).collect()
}

/// Every shape but `.m8n8k4`: the lane's rows of A and columns of B, then its D elements.
fn row_by_column<'ctx>(
    warp: &Warp<'_, '_, 'ctx>,
    operation: &MatrixMultiply,
    a: &[IntValue<'ctx>],
    b: &[IntValue<'ctx>],
    c: &[IntValue<'ctx>],
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    if operation.a == MatrixElement::B1 {
        return single_bits(warp, operation, a, b, c);
    }
    let (m, n, k) = operation.shape.dimensions();
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let per_a = (32 / operation.a.bits()) as usize;
    let per_b = (32 / operation.b.bits()) as usize;
    let per_c = (32 / operation.c.bits()) as usize;
    let missing = || LoweringError::internal("an `mma` element that no lane holds", warp.guarded.span);
    // A: register r, element j of lane 4g + t is row g + 8·(r mod 2) (M = 16) or g (M = 8),
    // column t·per + j + 4·per·kb with kb = r / 2 (M = 16) or r.
    let group_lanes = warp.and(warp.lane, 0x1c)?;
    let halves = m / 8;
    let mut rows = vec![vec![None; k]; halves];
    for (half, row) in rows.iter_mut().enumerate() {
        for k_block in 0..k / (4 * per_a) {
            let register = if m == 16 { 2 * k_block + half } else { k_block };
            for thread in 0..4 {
                let word = warp.shuffle(warp.word(a, register)?, warp.or(group_lanes, warp.i32(thread as u64))?)?;
                for j in 0..per_a {
                    row[thread * per_a + j + 4 * per_a * k_block] =
                        Some(warp.element(word, operation.a, warp.i32(j as u64))?);
                }
            }
        }
    }
    // B: register r, element j of lane 4g + t is row t·per + j + 4·per·r, column g. This lane's
    // columns 2t and 2t + 1 are held by lanes 8t to 8t + 3 and 8t + 4 to 8t + 7.
    let column_lanes = warp.shift_left(warp.and(warp.lane, 3)?, 3)?;
    let mut columns = vec![vec![None; k]; 2];
    for (which, column) in columns.iter_mut().enumerate() {
        for register in 0..k / (4 * per_b) {
            for thread in 0..4 {
                let source = warp.or(column_lanes, warp.i32((4 * which + thread) as u64))?;
                let word = warp.shuffle(warp.word(b, register)?, source)?;
                for j in 0..per_b {
                    column[thread * per_b + j + 4 * per_b * register] =
                        Some(warp.element(word, operation.b, warp.i32(j as u64))?);
                }
            }
        }
    }
    // D's element i (and C's) is row g + 8·(i / 2), column 2t + i mod 2.
    let mut elements = Vec::new();
    for i in 0..m * n / 32 {
        let accumulator = warp.element(warp.word(c, i / per_c)?, operation.c, warp.i32((i % per_c) as u64))?;
        let products = rows[i / 2]
            .iter()
            .zip(&columns[i % 2])
            .map(|(a, b)| Ok((a.ok_or_else(missing)?, b.ok_or_else(missing)?)))
            .collect::<LoweringResult<Vec<_>>>()?;
        elements.push(warp.accumulate(operation, accumulator, &products)?);
    }
    warp.pack(&elements, operation.d)
}

/// `.b1` (every shape but `.m8n8k4`): the lane shuffles in its rows of A and columns of B as
/// [`row_by_column`] does, but keeps them as 32-bit words (word `w` holds k = 32·w to
/// 32·w + 31), so that each D element is C's plus the population counts of the words' XOR or
/// AND, one `llvm.ctpop` per word rather than one addition per bit. The sum wraps to 32 bits,
/// as the exact sum truncated does (`.satfinite` is not a `.b1` form).
fn single_bits<'ctx>(
    warp: &Warp<'_, '_, 'ctx>,
    operation: &MatrixMultiply,
    a: &[IntValue<'ctx>],
    b: &[IntValue<'ctx>],
    c: &[IntValue<'ctx>],
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let (m, n, k) = operation.shape.dimensions();
    let (m, n, words) = (m as usize, n as usize, k as usize / 32);
    let builder = warp.builder();
    // A: register r of lane 4g + t holds row g + 8·(r mod 2) (M = 16) or g, word t + 4·kb.
    let group_lanes = warp.and(warp.lane, 0x1c)?;
    let mut rows = vec![vec![None; words]; m / 8];
    for (half, row) in rows.iter_mut().enumerate() {
        for k_block in 0..words / 4 {
            let register = if m == 16 { 2 * k_block + half } else { k_block };
            for thread in 0..4 {
                let source = warp.or(group_lanes, warp.i32(thread as u64))?;
                row[thread + 4 * k_block] = Some(warp.shuffle(warp.word(a, register)?, source)?);
            }
        }
    }
    // B: register r of lane 4g + t holds column g, word t + 4·r; this lane's columns 2t and
    // 2t + 1 are held by lanes 8t to 8t + 3 and 8t + 4 to 8t + 7.
    let column_lanes = warp.shift_left(warp.and(warp.lane, 3)?, 3)?;
    let mut columns = vec![vec![None; words]; 2];
    for (which, column) in columns.iter_mut().enumerate() {
        for register in 0..words / 4 {
            for thread in 0..4 {
                let source = warp.or(column_lanes, warp.i32((4 * which + thread) as u64))?;
                column[thread + 4 * register] = Some(warp.shuffle(warp.word(b, register)?, source)?);
            }
        }
    }
    let missing = || LoweringError::internal("an `mma` word that no lane holds", warp.guarded.span);
    let i32_type = warp.lowering.shared.context.i32_type();
    (0..m * n / 32)
        .map(|i| {
            let mut sum = warp.word(c, i)?;
            for (row, column) in rows[i / 2].iter().zip(&columns[i % 2]) {
                let (row, column) = (row.ok_or_else(missing)?, column.ok_or_else(missing)?);
                let bits = if operation.bit_operation == Some(BitOperation::Xor) {
                    builder.build_xor(row, column, "")?
                } else {
                    builder.build_and(row, column, "")?
                };
                let count = super::support::intrinsic(
                    warp.lowering,
                    "llvm.ctpop",
                    &[i32_type.into()],
                    &[bits.into()],
                    warp.guarded.span,
                )?
                .into_int_value();
                sum = builder.build_int_add(sum, count, "")?;
            }
            Ok(sum)
        })
        .collect()
}

/// `.m8n8k4` on `.f16`: quad pair `q` (lanes `4q..4q+3`, which hold rows or columns 0 to 3 of
/// its matrices, and `16+4q..16+4q+3`, which hold 4 to 7) computes its own 8×8×4 product. The
/// positions are those of `quad_pair_position` in `runtime/src/cooperative/matrix.rs`.
fn quad_pairs<'ctx>(
    warp: &Warp<'_, '_, 'ctx>,
    operation: &MatrixMultiply,
    a: &[IntValue<'ctx>],
    b: &[IntValue<'ctx>],
    c: &[IntValue<'ctx>],
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let lane = warp.lane;
    let quad = warp.and(lane, 12)?;
    // 4 in the upper half of the quad pair, whose rows (or columns) are 4 to 7.
    let high = warp.shift_right(warp.and(lane, 16)?, 2)?;
    // The lane of the quad pair whose `.f16` accumulator row (or A row in `.row`, B column in
    // `.col`) is `index` (0 to 7): thread index mod 4, in the half index / 4.
    let holder = |fixed: IntValue<'ctx>, index: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        warp.or(warp.or(quad, fixed)?, warp.shift_left(warp.and(index, 4)?, 2)?)
    };
    let f16_layout = |element: MatrixElement| element == MatrixElement::F16;
    // Row and column of D's (or C's) element i, and keys naming which A row and B column those
    // are among the lane's elements.
    let position = |element: MatrixElement, i: u64| -> LoweringResult<(IntValue<'ctx>, IntValue<'ctx>, u64, u64)> {
        if f16_layout(element) {
            Ok((warp.or(warp.and(lane, 3)?, high)?, warp.i32(i), 0, i))
        } else {
            let row = warp.or(warp.or(warp.and(lane, 1)?, warp.i32(i & 2))?, high)?;
            let column = warp.or(warp.i32(i & 5), warp.and(lane, 2)?)?;
            Ok((row, column, i & 2, i & 5))
        }
    };
    let element_a = |row: IntValue<'ctx>, x: u64| -> LoweringResult<Number<'ctx>> {
        match operation.a_layout {
            // Lane t + 4·half holds row t + high, elements 0 to 3 in order.
            MatrixLayout::Row => {
                warp.fetch(a, MatrixElement::F16, holder(warp.and(row, 3)?, row)?, warp.i32(x / 2), warp.i32(x % 2))
            }
            // Lane t holds column t, rows high to high + 3.
            MatrixLayout::Column => {
                let row_in_half = warp.and(row, 3)?;
                let source = holder(warp.i32(x), row)?;
                warp.fetch(a, MatrixElement::F16, source, warp.shift_right(row_in_half, 1)?, warp.and(row, 1)?)
            }
        }
    };
    let element_b = |x: u64, column: IntValue<'ctx>| -> LoweringResult<Number<'ctx>> {
        match operation.b_layout {
            // Lane t holds row t, columns high to high + 3.
            MatrixLayout::Row => {
                let column_in_half = warp.and(column, 3)?;
                let source = holder(warp.i32(x), column)?;
                warp.fetch(b, MatrixElement::F16, source, warp.shift_right(column_in_half, 1)?, warp.and(column, 1)?)
            }
            // Lane t + 4·half holds column t + high, rows 0 to 3 in order.
            MatrixLayout::Column => warp.fetch(
                b,
                MatrixElement::F16,
                holder(warp.and(column, 3)?, column)?,
                warp.i32(x / 2),
                warp.i32(x % 2),
            ),
        }
    };
    // C's element at (row, column) in C's own layout, for a C whose layout differs from D's.
    let element_c = |row: IntValue<'ctx>, column: IntValue<'ctx>| -> LoweringResult<Number<'ctx>> {
        if f16_layout(operation.c) {
            let source = holder(warp.and(row, 3)?, row)?;
            warp.fetch(c, operation.c, source, warp.shift_right(column, 1)?, warp.and(column, 1)?)
        } else {
            // Lane bits 0 and 1 are row bit 0 and column bit 1; register bits 1, 2 and 0 are row
            // bit 1 and column bits 2 and 0.
            let fixed = warp.or(warp.and(row, 1)?, warp.and(column, 2)?)?;
            let register = warp.or(warp.and(row, 2)?, warp.and(column, 5)?)?;
            warp.fetch(c, operation.c, holder(fixed, row)?, register, warp.i32(0))
        }
    };
    let per_c = u64::from(32 / operation.c.bits());
    let mut rows: HashMap<u64, Vec<Number<'ctx>>> = HashMap::new();
    let mut columns: HashMap<u64, Vec<Number<'ctx>>> = HashMap::new();
    let mut elements = Vec::new();
    for i in 0..8 {
        let (row, column, row_key, column_key) = position(operation.d, i)?;
        if let Entry::Vacant(vacant) = rows.entry(row_key) {
            vacant.insert((0..4).map(|x| element_a(row, x)).collect::<LoweringResult<Vec<_>>>()?);
        }
        if let Entry::Vacant(vacant) = columns.entry(column_key) {
            vacant.insert((0..4).map(|x| element_b(x, column)).collect::<LoweringResult<Vec<_>>>()?);
        }
        let accumulator = if f16_layout(operation.c) == f16_layout(operation.d) {
            warp.element(warp.word(c, (i / per_c) as usize)?, operation.c, warp.i32(i % per_c))?
        } else {
            element_c(row, column)?
        };
        let products: Vec<_> = rows[&row_key].iter().copied().zip(columns[&column_key].iter().copied()).collect();
        elements.push(warp.accumulate(operation, accumulator, &products)?);
    }
    warp.pack(&elements, operation.d)
}

/// `.f64` (see the module's documentation): D's elements `(g + 8·(i / 2), 2t + i mod 2)`, each
/// C's element plus `A(row, k)·B(k, column)` for k from 0 to K - 1 by `llvm.fma`, or by fused
/// multiply-adds rounded in `rounding` (`wmma.mma`'s `.rz`, `.rm`, `.rp`).
fn double_precision<'ctx>(
    warp: &Warp<'_, '_, 'ctx>,
    shape: MatrixShape,
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
    rounding: RoundingMode,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let lowering = warp.lowering;
    let builder = warp.builder();
    let context = lowering.shared.context;
    let (i32_type, i64_type, f64_type) = (context.i32_type(), context.i64_type(), context.f64_type());
    let span = warp.guarded.span;
    let (m, _, k) = shape.dimensions();
    let (m, k) = (m as usize, k as usize);
    let register = |operands: &[Operand], index: usize| -> LoweringResult<IntValue<'ctx>> {
        let operand = operands
            .get(index)
            .ok_or_else(|| LoweringError::internal(format!("register {index} of an `.f64` fragment"), span))?;
        let value = lowering.read(operand, ScalarType::F64)?;
        Ok(builder.build_bit_cast(value, i64_type, "")?.into_int_value())
    };
    // The `.f64` that `bits` (an `i64`) holds in lane `source`, shuffled as two 32-bit halves.
    let fetch = |bits: IntValue<'ctx>, source: IntValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
        let low = builder.build_int_truncate(bits, i32_type, "")?;
        let high = builder.build_int_truncate(warp.shift_right(bits, 32)?, i32_type, "")?;
        let low = builder.build_int_z_extend(warp.shuffle(low, source)?, i64_type, "")?;
        let high = builder.build_int_z_extend(warp.shuffle(high, source)?, i64_type, "")?;
        let joined = warp.or(warp.shift_left(high, 32)?, low)?;
        Ok(builder.build_bit_cast(joined, f64_type, "")?.into_float_value())
    };
    // A's register r of lane 4g + t is row g + 8·(r mod 2) (M = 16) or g, column t + 4·(r / 2)
    // (M = 16) or t + 4·r: row `g + 8·half`, element `x` comes from lane 4g + x mod 4.
    let group_lanes = warp.and(warp.lane, 0x1c)?;
    let mut rows = Vec::with_capacity(m / 8);
    for half in 0..m / 8 {
        let row = (0..k)
            .map(|x| {
                let index = if m == 16 { 2 * (x / 4) + half } else { x / 4 };
                fetch(register(a, index)?, warp.or(group_lanes, warp.i32((x % 4) as u64))?)
            })
            .collect::<LoweringResult<Vec<_>>>()?;
        rows.push(row);
    }
    // B's register r of lane 4g + t is row t + 4·r, column g: column 2t + j, element x comes
    // from lane 4·(2t + j) + x mod 4 = 8t + 4j + x mod 4, register x / 4.
    let column_lanes = warp.shift_left(warp.and(warp.lane, 3)?, 3)?;
    let mut columns = Vec::with_capacity(2);
    for j in 0..2 {
        let column = (0..k)
            .map(|x| fetch(register(b, x / 4)?, warp.or(column_lanes, warp.i32((4 * j + x % 4) as u64))?))
            .collect::<LoweringResult<Vec<_>>>()?;
        columns.push(column);
    }
    // C's and D's element i: row g + 8·(i / 2), column 2t + i mod 2.
    let mut d = Vec::with_capacity(m / 4);
    for i in 0..m / 4 {
        let accumulator = register(c, i)?;
        let mut sum = builder.build_bit_cast(accumulator, f64_type, "")?.into_float_value();
        for (a, b) in rows[i / 2].iter().zip(&columns[i % 2]) {
            sum = if rounding == RoundingMode::NearestEven {
                let arguments = [(*a).into(), (*b).into(), sum.into()];
                intrinsic(lowering, "llvm.fma", &[f64_type.into()], &arguments, span)?.into_float_value()
            } else {
                super::float::fused_directed(lowering, *a, *b, sum, rounding, span)?
            };
        }
        d.push(sum.into());
    }
    Ok(d)
}

pub fn load_matrix<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    matrices: u32,
    transpose: bool,
    state_space: StateSpace,
    destinations: &[Destination],
    address: &Address,
) -> LoweringResult<()> {
    let lowering = &*lowering;
    let warp = Warp::new(lowering, guarded)?;
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let (i16_type, i32_type) = (context.i16_type(), context.i32_type());
    let row = lowering.address(address, state_space)?;
    // The warp meets before reading what its lanes stored (see the module's documentation).
    let sync = WarpCollective::Sync { member_mask: warp.i32(u64::from(u32::MAX)) };
    lowering.shared.target.warp_collective(&lowering.site(), &sync).map_err(unsupported(lowering, guarded))?;
    let rows = RowAddresses::new(&warp, row)?;
    let row_of = |source, offset| rows.of(&warp, source, offset);
    // Elements are 16-bit: rows need not be more aligned than that to be read correctly.
    let load = |ty: inkwell::types::IntType<'ctx>, pointer: PointerValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        let value = builder.build_load(ty.as_basic_type_enum(), pointer, "")?;
        if let Some(instruction) = value.as_instruction_value() {
            instruction.set_alignment(2).map_err(|error| LoweringError::internal(error, guarded.span))?;
        }
        Ok(value.into_int_value())
    };
    let mut words = Vec::new();
    for matrix in 0..u64::from(matrices) {
        let word = if transpose {
            // Column 2·(l mod 4) of the transpose is row 2·(l mod 4); its element l / 4 is 2 bytes each.
            let (row_lane, offset) = rows.place(&warp, matrix, true)?;
            let low = load(i16_type, row_of(row_lane, offset)?)?;
            let high = load(i16_type, row_of(warp.or(row_lane, warp.i32(1))?, offset)?)?;
            let low = builder.build_int_z_extend(low, i32_type, "")?;
            let high = builder.build_int_z_extend(high, i32_type, "")?;
            warp.or(low, warp.shift_left(high, 16)?)?
        } else {
            // Row l / 4, columns 2·(l mod 4) and the next: 4 bytes from byte 4·(l mod 4).
            let (row_lane, offset) = rows.place(&warp, matrix, false)?;
            load(i32_type, row_of(row_lane, offset)?)?
        };
        words.push(word);
    }
    write_words(lowering, destinations, &words, ScalarType::B32)
}

/// The rows of the 8x8 matrices of an `ldmatrix` or `stmatrix`: lane `8·m + r` gives the
/// address of row `r` of matrix `m`, which every lane reads from it by shuffles, in two `i32`
/// halves.
struct RowAddresses<'ctx> {
    low: IntValue<'ctx>,
    high: IntValue<'ctx>,
    pointer_type: inkwell::types::PointerType<'ctx>,
}

impl<'ctx> RowAddresses<'ctx> {
    /// This lane's `row` address, split for the shuffles.
    fn new(warp: &Warp<'_, '_, 'ctx>, row: PointerValue<'ctx>) -> LoweringResult<Self> {
        let builder = warp.builder();
        let context = warp.lowering.shared.context;
        let (i32_type, i64_type) = (context.i32_type(), context.i64_type());
        let bits = builder.build_ptr_to_int(row, i64_type, "matrix.row")?;
        let low = builder.build_int_truncate(bits, i32_type, "")?;
        let high = builder.build_int_truncate(warp.shift_right(bits, 32)?, i32_type, "")?;
        Ok(RowAddresses { low, high, pointer_type: row.get_type() })
    }

    /// The address of the row that lane `source` gives, plus `offset` bytes (an `i64`).
    fn of(
        &self,
        warp: &Warp<'_, '_, 'ctx>,
        source: IntValue<'ctx>,
        offset: IntValue<'ctx>,
    ) -> LoweringResult<PointerValue<'ctx>> {
        let builder = warp.builder();
        let i64_type = warp.lowering.shared.context.i64_type();
        let low = builder.build_int_z_extend(warp.shuffle(self.low, source)?, i64_type, "")?;
        let high = builder.build_int_z_extend(warp.shuffle(self.high, source)?, i64_type, "")?;
        let address = warp.or(warp.shift_left(high, 32)?, low)?;
        let address = builder.build_int_add(address, offset, "")?;
        Ok(builder.build_int_to_ptr(address, self.pointer_type, "matrix.element")?)
    }

    /// Where this lane's two 16-bit elements of `matrix` lie: the lane giving their row, and
    /// the byte offset in it (an `i64`). Untransposed, row l / 4 from byte 4·(l mod 4), both
    /// elements together; transposed, element l / 4 (byte 2·(l / 4)) of row 2·(l mod 4), the
    /// second element in the next row.
    fn place(
        &self,
        warp: &Warp<'_, '_, 'ctx>,
        matrix: u64,
        transpose: bool,
    ) -> LoweringResult<(IntValue<'ctx>, IntValue<'ctx>)> {
        let first_lane = warp.i32(8 * matrix);
        let (row_lane, offset) = if transpose {
            (
                warp.or(first_lane, warp.shift_left(warp.and(warp.lane, 3)?, 1)?)?,
                warp.shift_left(warp.shift_right(warp.lane, 2)?, 1)?,
            )
        } else {
            (warp.or(first_lane, warp.shift_right(warp.lane, 2)?)?, warp.shift_left(warp.and(warp.lane, 3)?, 2)?)
        };
        let i64_type = warp.lowering.shared.context.i64_type();
        Ok((row_lane, warp.builder().build_int_z_extend(offset, i64_type, "")?))
    }
}

/// `stmatrix` (see the module's documentation).
pub fn store_matrix<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    matrices: u32,
    transpose: bool,
    state_space: StateSpace,
    address: &Address,
    sources: &[Operand],
) -> LoweringResult<()> {
    let lowering = &*lowering;
    let warp = Warp::new(lowering, guarded)?;
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    let i16_type = context.i16_type();
    let row = lowering.address(address, state_space)?;
    let rows = RowAddresses::new(&warp, row)?;
    let row_of = |source, offset| rows.of(&warp, source, offset);
    // Elements are 16-bit: rows need not be more aligned than that.
    let store = |value: IntValue<'ctx>, pointer: PointerValue<'ctx>| -> LoweringResult<()> {
        let store = builder.build_store(pointer, value)?;
        store.set_alignment(2).map_err(|error| LoweringError::internal(error, guarded.span))?;
        Ok(())
    };
    if sources.len() != matrices as usize {
        return Err(LoweringError::internal("a `stmatrix` source per matrix", guarded.span));
    }
    for (matrix, source) in (0..u64::from(matrices)).zip(sources) {
        let word = lowering.read_int(source, ScalarType::B32)?;
        if transpose {
            // Element (l / 4, 2·(l mod 4) + h) is element l / 4 of row 2·(l mod 4) + h of the transpose.
            let (row_lane, offset) = rows.place(&warp, matrix, true)?;
            let low = builder.build_int_truncate(word, i16_type, "")?;
            let high = builder.build_int_truncate(warp.shift_right(word, 16)?, i16_type, "")?;
            store(low, row_of(row_lane, offset)?)?;
            store(high, row_of(warp.or(row_lane, warp.i32(1))?, offset)?)?;
        } else {
            // Row l / 4, columns 2·(l mod 4) and the next: 4 bytes at byte 4·(l mod 4).
            let (row_lane, offset) = rows.place(&warp, matrix, false)?;
            store(word, row_of(row_lane, offset)?)?;
        }
    }
    Ok(())
}

/// `wmma.mma.m8n8k4` on `.f64` with directed `rounding`, on every target without `wmma` of its
/// own (the CPU's runtime has no directed rounding): D's registers, not yet written.
pub(super) fn double_precision_directed<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
    rounding: RoundingMode,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    double_precision(&Warp::new(lowering, guarded)?, MatrixShape::M8n8k4, a, b, c, rounding)
}
