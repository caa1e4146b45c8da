//! `wgmma` (PTX ISA 8.0, sm_90a), on every target without `wgmma` of its own (NVPTX at sm_90a
//! writes the instructions themselves, `native_warp_group_matrix.rs`), from warp shuffles and
//! shared-memory loads.
//!
//! Facts and their sources: the matrix descriptor's fields (NVIDIA's PTX manual, "Matrix
//! Descriptor Format", and CUTLASS `cute/arch/mma_sm90_desc.hpp`: start address bits 0–13,
//! leading byte offset 16–29, stride byte offset 32–45, each a byte count shifted right by 4;
//! base offset 49–51; swizzling mode 62–63, 0 none, 1 128-byte, 2 64-byte, 3 32-byte); the
//! canonical layouts (the manual's "Canonical Layouts" table, the same as CUTLASS
//! `mma_sm90_desc.hpp`'s `make_gmma_desc` comment), in bytes with `s` the element size and
//! `R` the swizzled row width (16 with no swizzle):
//!
//! * K-major, element (mn, k): `start + (mn mod 8)·R + (mn / 8)·SBO + (k·s mod R) + (k·s / R)·LBO`
//!   (with no swizzle the two 16-byte chunks of the 32-byte row are LBO apart);
//! * MN-major: `start + (mn·s mod R) + (mn·s / R)·X + (k mod 8)·R + (k / 8)·Y`, X = SBO and
//!   Y = LBO with no swizzle, X = LBO and Y = SBO when swizzled;
//!
//! then the swizzle of `shared_memory_swizzle.rs`. The base offset is not applied: the manual
//! needs it only for a pattern that does not start on its 256/512/1024-byte boundary, where the
//! swizzle of the whole address used here already follows the address.
//!
//! Register fragments (the manual's figures for `wgmma .m64nNk16/k8/k32` D and A, and CUTLASS
//! `mma_traits_sm90_gmma.hpp`'s `CLayout_64xN`): warp `w` of the warp group (the thread's
//! linear index / 32, mod 4) holds rows `16w` to `16w + 15`; with `g = lane / 4` and
//! `t = lane mod 4`, D's element `i` is row `16w + g + 8·((i / 2) mod 2)`, column
//! `8·(i / 4) + 2t + i mod 2` (`.f16` D: two elements to a register, the first low); A's
//! register `r`, element `j` (of `p = 32 / bits` to a register) is row `16w + g + 8·(r mod 2)`,
//! column `p·t + j + 4p·(r / 2)`, the layout of `mma`'s A at `.m16n8k*`.
//!
//! Each thread computes its own D elements: its two rows of A (from shared memory through the
//! descriptor, or from its warp's registers by 16 index shuffles) and its N/4 columns of B
//! from shared memory. Arithmetic is the dense `mma`'s (`matrix_by_shuffles.rs`): elements
//! widened exactly to `double` (`.e4m3`/`.e5m2` too), products added to D's old element (or 0
//! when `scale-d` is false) in order of k, one rounding to D's type; integers exact, with
//! `.satfinite` clamping.
//!
//! Asynchrony: each `wgmma.mma_async` is executed at its issue. That is one valid execution of
//! the asynchronous semantics (the program may not touch D's registers or the operands' shared
//! memory before `wgmma.wait_group` says the operation is done), so `wgmma.commit_group` and
//! `wgmma.wait_group` have nothing left to wait for. `wgmma.fence` orders the thread's earlier
//! memory accesses before the async proxy's reads; as those reads are the thread's own loads
//! here, a CTA-scope acquire-release fence is all it needs.

use inkwell::values::{FloatValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    GuardedInstruction, MatrixElement, MatrixLayout, MatrixMultiply, MatrixShape, MemoryOrdering, MemoryScope,
    WarpGroupA, WarpGroupElement, WarpGroupMultiplyAccumulate,
};
use ptxr_frontend::vocabulary::{Dimension, ScalarType, SpecialRegister, StateSpace};

use super::matrix::{fragment_words, unsupported, write_words};
use super::matrix_by_shuffles::{Number, Warp};
use super::shared_memory_swizzle::{row_bytes, row_mask, swizzle};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;
use ptxr_intrinsics::WarpGroupCollective;

/// A matrix descriptor's fields, as `i32`s.
struct Descriptor<'ctx> {
    start: IntValue<'ctx>,
    leading: IntValue<'ctx>,
    stride: IntValue<'ctx>,
    /// `shared_memory_swizzle::row_mask` of the mode.
    mask: IntValue<'ctx>,
    /// The row width R: 16 with no swizzle, else 32, 64 or 128.
    row: IntValue<'ctx>,
    /// log2 of R: 4 plus the mask's bits (0, 1, 3 or 7).
    row_shift: IntValue<'ctx>,
    swizzled: IntValue<'ctx>,
}

struct Group<'w, 'l, 'a, 'ctx> {
    warp: &'w Warp<'l, 'a, 'ctx>,
    lowering: &'l FunctionLowering<'a, 'ctx>,
}

impl<'ctx> Group<'_, '_, '_, 'ctx> {
    fn i32(&self, value: u64) -> IntValue<'ctx> {
        self.warp.i32(value)
    }

    fn builder(&self) -> &inkwell::builder::Builder<'ctx> {
        self.lowering.shared.builder
    }

    fn descriptor(&self, value: IntValue<'ctx>) -> LoweringResult<Descriptor<'ctx>> {
        let builder = self.builder();
        let i64_type = self.lowering.shared.context.i64_type();
        let i32_type = self.lowering.shared.context.i32_type();
        let field = |shift: u64, bits: u64| -> LoweringResult<IntValue<'ctx>> {
            let shifted = builder.build_right_shift(value, i64_type.const_int(shift, false), false, "")?;
            let masked = builder.build_and(shifted, i64_type.const_int((1 << bits) - 1, false), "")?;
            Ok(builder.build_int_truncate(masked, i32_type, "")?)
        };
        let bytes = |encoded: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
            Ok(builder.build_left_shift(encoded, i32_type.const_int(4, false), "")?)
        };
        let mask = row_mask(self.lowering, field(62, 2)?)?;
        let swizzled = builder.build_int_compare(IntPredicate::NE, mask, i32_type.const_zero(), "")?;
        let mut row_shift = i32_type.const_int(4, false);
        for bit in 0..3 {
            let shifted = builder.build_right_shift(mask, i32_type.const_int(bit, false), false, "")?;
            let set = builder.build_and(shifted, i32_type.const_int(1, false), "")?;
            row_shift = builder.build_int_add(row_shift, set, "")?;
        }
        Ok(Descriptor {
            start: bytes(field(0, 14)?)?,
            leading: bytes(field(16, 14)?)?,
            stride: bytes(field(32, 14)?)?,
            mask,
            row: row_bytes(self.lowering, mask)?,
            row_shift,
            swizzled,
        })
    }

    /// The shared-memory address of element (mn, k) of the matrix `descriptor` describes.
    fn address(
        &self,
        descriptor: &Descriptor<'ctx>,
        mn: IntValue<'ctx>,
        k: u32,
        element_bytes: u32,
        mn_major: bool,
    ) -> LoweringResult<IntValue<'ctx>> {
        let builder = self.builder();
        let row_low = builder.build_int_sub(descriptor.row, self.i32(1), "")?;
        let row_shift = descriptor.row_shift;
        let mul = |a: IntValue<'ctx>, b: IntValue<'ctx>| builder.build_int_mul(a, b, "");
        let add = |a: IntValue<'ctx>, b: IntValue<'ctx>| builder.build_int_add(a, b, "");
        let offset = if mn_major {
            let bytes = mul(mn, self.i32(u64::from(element_bytes)))?;
            let within = builder.build_and(bytes, row_low, "")?;
            let rows = builder.build_right_shift(bytes, row_shift, false, "")?;
            let across = builder.build_select(descriptor.swizzled, descriptor.leading, descriptor.stride, "")?;
            let k_groups = builder.build_select(descriptor.swizzled, descriptor.stride, descriptor.leading, "")?;
            let k_rows = mul(self.i32(u64::from(k % 8)), descriptor.row)?;
            let k_blocks = mul(self.i32(u64::from(k / 8)), k_groups.into_int_value())?;
            add(add(within, mul(rows, across.into_int_value())?)?, add(k_rows, k_blocks)?)?
        } else {
            let byte = self.i32(u64::from(k * element_bytes));
            let within = builder.build_and(byte, row_low, "")?;
            let chunks = builder.build_right_shift(byte, row_shift, false, "")?;
            let row_in_core = mul(builder.build_and(mn, self.i32(7), "")?, descriptor.row)?;
            let core = mul(builder.build_right_shift(mn, self.i32(3), false, "")?, descriptor.stride)?;
            add(add(row_in_core, core)?, add(within, mul(chunks, descriptor.leading)?)?)?
        };
        swizzle(self.lowering, add(descriptor.start, offset)?, descriptor.mask)
    }

    /// The pointer at a shared-memory byte address (an `i32`).
    fn shared_pointer(&self, address: IntValue<'ctx>) -> LoweringResult<PointerValue<'ctx>> {
        let builder = self.builder();
        let context = self.lowering.shared.context;
        if self.lowering.shared_window_base().is_some() {
            let offset = builder.build_int_z_extend(address, context.i64_type(), "")?;
            return self.lowering.in_shared_window_at(offset, self.warp.guarded.span);
        }
        let space = self.lowering.shared.target.address_space(StateSpace::Shared);
        Ok(builder.build_int_to_ptr(address, context.ptr_type(space), "")?)
    }

    /// The element of type `element` at shared-memory `address`, exactly.
    fn load(&self, address: IntValue<'ctx>, element: WarpGroupElement) -> LoweringResult<Number<'ctx>> {
        let builder = self.builder();
        let context = self.lowering.shared.context;
        let ty = match element.bits() {
            8 => context.i8_type(),
            16 => context.i16_type(),
            _ => context.i32_type(),
        };
        let pointer = self.shared_pointer(address)?;
        let loaded = builder.build_load(ty, pointer, "")?.into_int_value();
        let word = builder.build_int_z_extend_or_bit_cast(loaded, context.i32_type(), "")?;
        self.element(word, element, 0)
    }

    /// Element `index` of a 32-bit word of `element`s, exactly.
    fn element(&self, word: IntValue<'ctx>, element: WarpGroupElement, index: u32) -> LoweringResult<Number<'ctx>> {
        let matrix = match element {
            WarpGroupElement::F16 => MatrixElement::F16,
            WarpGroupElement::Bf16 => MatrixElement::Bf16,
            WarpGroupElement::Tf32 => MatrixElement::Tf32,
            WarpGroupElement::F32 => MatrixElement::F32,
            WarpGroupElement::S8 => MatrixElement::S8,
            WarpGroupElement::U8 => MatrixElement::U8,
            WarpGroupElement::S32 => MatrixElement::S32,
            WarpGroupElement::B1 => MatrixElement::B1,
            WarpGroupElement::E4m3 | WarpGroupElement::E5m2 => {
                let shifted = self.builder().build_right_shift(word, self.i32(u64::from(8 * index)), false, "")?;
                return Ok(Number::Float(self.eight_bit_float(shifted, element == WarpGroupElement::E4m3)?));
            }
        };
        self.warp.element(word, matrix, self.i32(u64::from(index)))
    }

    /// The `.e4m3` or `.e5m2` in the low byte of `word`, exactly as a `double`: a sign, E
    /// exponent bits (bias 7 or 15) and M mantissa bits (3 or 2); exponent 0 is subnormal.
    /// `.e4m3` has no infinities, and only S.1111.111 is NaN; `.e5m2` has IEEE's.
    fn eight_bit_float(&self, word: IntValue<'ctx>, e4m3: bool) -> LoweringResult<FloatValue<'ctx>> {
        let builder = self.builder();
        let context = self.lowering.shared.context;
        let (mantissa_bits, exponent_mask, bias) = if e4m3 { (3, 0xf, 7) } else { (2, 0x1f, 15) };
        let mantissa = builder.build_and(word, self.i32((1 << mantissa_bits) - 1), "")?;
        let exponent = builder.build_and(
            builder.build_right_shift(word, self.i32(mantissa_bits), false, "")?,
            self.i32(exponent_mask),
            "",
        )?;
        let negative = builder.build_int_compare(
            IntPredicate::NE,
            builder.build_and(word, self.i32(0x80), "")?,
            self.i32(0),
            "",
        )?;
        let subnormal = builder.build_int_compare(IntPredicate::EQ, exponent, self.i32(0), "")?;
        // value = significand · 2^(max(e, 1) - bias - M), significand = M bits plus the hidden 1.
        let hidden = builder.build_or(mantissa, self.i32(1 << mantissa_bits), "")?;
        let significand = builder.build_select(subnormal, mantissa, hidden, "")?.into_int_value();
        let exponent_or_one = builder.build_select(subnormal, self.i32(1), exponent, "")?.into_int_value();
        let power = builder.build_int_add(exponent_or_one, self.i32(1023 - bias - mantissa_bits), "")?;
        let power = builder.build_left_shift(
            builder.build_int_z_extend(power, context.i64_type(), "")?,
            context.i64_type().const_int(52, false),
            "",
        )?;
        let scale = builder.build_bit_cast(power, context.f64_type(), "")?.into_float_value();
        let magnitude = builder.build_float_mul(
            builder.build_unsigned_int_to_float(significand, context.f64_type(), "")?,
            scale,
            "",
        )?;
        let infinity = context.f64_type().const_float(f64::INFINITY);
        let nan = context.f64_type().const_float(f64::NAN);
        let magnitude = if e4m3 {
            let all_ones = builder.build_int_compare(
                IntPredicate::EQ,
                builder.build_and(word, self.i32(0x7f), "")?,
                self.i32(0x7f),
                "",
            )?;
            builder.build_select(all_ones, nan, magnitude, "")?.into_float_value()
        } else {
            let top = builder.build_int_compare(IntPredicate::EQ, exponent, self.i32(0x1f), "")?;
            let zero_mantissa = builder.build_int_compare(IntPredicate::EQ, mantissa, self.i32(0), "")?;
            let special = builder.build_select(zero_mantissa, infinity, nan, "")?.into_float_value();
            builder.build_select(top, special, magnitude, "")?.into_float_value()
        };
        let negated = builder.build_float_neg(magnitude, "")?;
        Ok(builder.build_select(negative, negated, magnitude, "")?.into_float_value())
    }

    fn negate(&self, number: Number<'ctx>) -> LoweringResult<Number<'ctx>> {
        Ok(match number {
            Number::Float(value) => Number::Float(self.builder().build_float_neg(value, "")?),
            Number::Integer(value) => Number::Integer(self.builder().build_int_neg(value, "")?),
        })
    }
}

/// The thread's warp within its warp group (an `i32` from 0 to 3): its linear index in the CTA,
/// divided by 32, mod 4.
fn warp_in_group<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let read = |register: SpecialRegister| -> LoweringResult<IntValue<'ctx>> {
        let value = lowering
            .shared
            .target
            .special_register(&lowering.site(), register)
            .map_err(unsupported(lowering, guarded))?;
        Ok(builder.build_int_truncate_or_bit_cast(value, i32_type, "")?)
    };
    let (x, y, z) = (
        read(SpecialRegister::ThreadId(Dimension::X))?,
        read(SpecialRegister::ThreadId(Dimension::Y))?,
        read(SpecialRegister::ThreadId(Dimension::Z))?,
    );
    let (width, height) =
        (read(SpecialRegister::ThreadCount(Dimension::X))?, read(SpecialRegister::ThreadCount(Dimension::Y))?);
    let plane = builder.build_int_add(y, builder.build_int_mul(height, z, "")?, "")?;
    let linear = builder.build_int_add(x, builder.build_int_mul(width, plane, "")?, "")?;
    let warp = builder.build_right_shift(linear, i32_type.const_int(5, false), false, "")?;
    Ok(builder.build_and(warp, i32_type.const_int(3, false), "")?)
}

pub fn multiply_accumulate(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    instruction: &WarpGroupMultiplyAccumulate,
) -> LoweringResult<()> {
    if lowering.shared.native_warp_group_matrix {
        return super::native_warp_group_matrix::multiply_accumulate(lowering, guarded, instruction);
    }
    let operation = instruction.operation;
    let warp = Warp::new(lowering, guarded)?;
    let group = Group { warp: &warp, lowering };
    let builder = lowering.shared.builder;
    let n = operation.n;
    let k = operation.a.k();
    let a_bytes = operation.a.bits() / 8;
    let b_bytes = operation.b.bits() / 8;
    let lane = warp.lane;
    let g = warp.shift_right(lane, 2)?;
    let t = warp.and(lane, 3)?;
    let first_row = builder.build_int_add(warp.shift_left(warp_in_group(lowering, guarded)?, 4)?, g, "")?;
    let rows = [first_row, builder.build_int_add(first_row, warp.i32(8), "")?];

    // A: the thread's two rows, K elements each.
    let mut a_rows: Vec<Vec<Number>> = Vec::with_capacity(2);
    match &instruction.a {
        WarpGroupA::Descriptor(operand) => {
            let descriptor = group.descriptor(lowering.read_int(operand, ScalarType::B64)?)?;
            for row in rows {
                let elements = (0..k)
                    .map(|column| {
                        let address = group.address(&descriptor, row, column, a_bytes, instruction.transpose_a)?;
                        group.load(address, operation.a)
                    })
                    .collect::<LoweringResult<Vec<_>>>()?;
                a_rows.push(elements);
            }
        }
        WarpGroupA::Registers(registers) => {
            let words = fragment_words(lowering, registers, MatrixElement::S32)?;
            let per = 32 / operation.a.bits();
            let group_lanes = warp.and(lane, 0x1c)?;
            let mut elements = vec![vec![None; k as usize]; 2];
            for (register, word) in words.iter().enumerate() {
                let (half, block) = (register % 2, register as u32 / 2);
                for thread in 0..4u32 {
                    let source = warp.or(group_lanes, warp.i32(u64::from(thread)))?;
                    let shuffled = warp.shuffle(*word, source)?;
                    for j in 0..per {
                        elements[half][(per * thread + j + 4 * per * block) as usize] =
                            Some(group.element(shuffled, operation.a, j)?);
                    }
                }
            }
            for row in elements {
                a_rows.push(row.into_iter().map(|element| element.expect("every A element is held")).collect());
            }
        }
    }
    if instruction.negate_a {
        for row in &mut a_rows {
            for element in row.iter_mut() {
                *element = group.negate(*element)?;
            }
        }
    }

    // B: the thread's columns 8·block + 2t and the next, K elements each.
    let b_descriptor = group.descriptor(lowering.read_int(&instruction.b, ScalarType::B64)?)?;
    let first_column = warp.shift_left(t, 1)?;
    let mut b_columns = Vec::with_capacity((n / 4) as usize);
    for block in 0..n / 8 {
        for which in 0..2u64 {
            let column = builder.build_int_add(first_column, warp.i32(8 * u64::from(block) + which), "")?;
            let elements = (0..k)
                .map(|row| {
                    let address = group.address(&b_descriptor, column, row, b_bytes, instruction.transpose_b)?;
                    let element = group.load(address, operation.b)?;
                    if instruction.negate_b {
                        group.negate(element)
                    } else {
                        Ok(element)
                    }
                })
                .collect::<LoweringResult<Vec<_>>>()?;
            b_columns.push(elements);
        }
    }

    // D's old elements, or zero where `scale-d` is false.
    let d_element = match operation.d {
        WarpGroupElement::F16 => MatrixElement::F16,
        WarpGroupElement::S32 => MatrixElement::S32,
        _ => MatrixElement::F32,
    };
    let register_type = match d_element {
        MatrixElement::F32 => ScalarType::F32,
        MatrixElement::S32 => ScalarType::S32,
        _ => ScalarType::B32,
    };
    let old = fragment_words(lowering, &instruction.accumulator, d_element)?;
    let scale = lowering.read_int(&instruction.scale_d, ScalarType::Pred)?;
    let context = lowering.shared.context;
    let per_d = if d_element == MatrixElement::F16 { 2 } else { 1 };
    // Only `d`, `saturate` and `bit_operation` matter to the accumulation.
    let accumulation = MatrixMultiply {
        shape: MatrixShape::M16n8k16,
        a_layout: MatrixLayout::Row,
        b_layout: MatrixLayout::Column,
        d: d_element,
        a: d_element,
        b: d_element,
        c: d_element,
        saturate: operation.saturate,
        bit_operation: None,
    };
    let mut elements = Vec::with_capacity((n / 2) as usize);
    for i in 0..(n / 2) as usize {
        let word = warp.word(&old, i / per_d)?;
        let previous = warp.element(word, d_element, warp.i32((i % per_d) as u64))?;
        let accumulator = match previous {
            Number::Float(value) => Number::Float(
                builder.build_select(scale, value, context.f64_type().const_zero(), "")?.into_float_value(),
            ),
            Number::Integer(value) => Number::Integer(
                builder.build_select(scale, value, context.i64_type().const_zero(), "")?.into_int_value(),
            ),
        };
        let row = &a_rows[(i / 2) % 2];
        let column = &b_columns[2 * (i / 4) + i % 2];
        let products: Vec<_> = row.iter().copied().zip(column.iter().copied()).collect();
        elements.push(warp.accumulate(&accumulation, accumulator, &products)?);
    }
    let words = if d_element == MatrixElement::F16 { warp.pack(&elements, MatrixElement::F16)? } else { elements };
    write_words(lowering, &instruction.destinations, &words, register_type)
}

/// `wgmma.fence`: see the header (the target's own where it has `wgmma`).
pub fn fence(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction) -> LoweringResult<()> {
    if lowering.shared.native_warp_group_matrix {
        return super::native_warp_group_matrix::synchronize(lowering, guarded, &WarpGroupCollective::Fence);
    }
    super::synchronization::fence(lowering, guarded, MemoryOrdering::AcquireRelease, MemoryScope::Cta)
}

/// `wgmma.commit_group` (`pending` is `None`) and `wgmma.wait_group pending`: nothing to do
/// when each `wgmma.mma_async` is done at its issue (see the header), as no group is ever
/// pending; the target's own where it has `wgmma`.
pub fn commit_or_wait(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    pending: Option<u32>,
) -> LoweringResult<()> {
    if !lowering.shared.native_warp_group_matrix {
        return Ok(());
    }
    let collective = match pending {
        None => WarpGroupCollective::Commit,
        Some(pending) => WarpGroupCollective::Wait { pending },
    };
    super::native_warp_group_matrix::synchronize(lowering, guarded, &collective)
}
