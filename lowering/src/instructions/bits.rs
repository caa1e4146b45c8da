//! Bit-field, permutation, funnel-shift and small-integer instructions: `bfe`, `bfi`, `bfind`,
//! `fns`, `bmsk`, `szext`, `prmt`, `shf`, `mul24`, `mad24`, `sad`, `dp4a`, `dp2a` and
//! `cvt.pack` (ISA 7.8 sections 9.7.1, 9.7.7.3, 9.7.8.7 and 9.7.8.19).
//!
//! Each follows the ISA's pseudo-code, with every shift amount kept below the width so that no
//! LLVM result is poison, and with plain shifts and masks rather than intrinsics that some
//! backends lack (`llvm.fshl`, `llvm.bitreverse`, 128-bit arithmetic on SPIR-V).

use inkwell::types::IntType;
use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{Destination, DotProductLanes, Operand, PermuteMode};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::support::intrinsic;
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// A small builder vocabulary over one integer type, so the pseudo-code reads as pseudo-code.
struct Bits<'a, 'ctx> {
    builder: &'a inkwell::builder::Builder<'ctx>,
}

impl<'ctx> Bits<'_, 'ctx> {
    fn and(&self, x: IntValue<'ctx>, y: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_and(x, y, "")?)
    }
    fn or(&self, x: IntValue<'ctx>, y: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_or(x, y, "")?)
    }
    fn not(&self, x: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_not(x, "")?)
    }
    fn add(&self, x: IntValue<'ctx>, y: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_int_add(x, y, "")?)
    }
    fn sub(&self, x: IntValue<'ctx>, y: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_int_sub(x, y, "")?)
    }
    fn mul(&self, x: IntValue<'ctx>, y: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_int_mul(x, y, "")?)
    }
    fn shl(&self, x: IntValue<'ctx>, amount: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_left_shift(x, amount, "")?)
    }
    fn lshr(&self, x: IntValue<'ctx>, amount: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_right_shift(x, amount, false, "")?)
    }
    fn ashr(&self, x: IntValue<'ctx>, amount: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_right_shift(x, amount, true, "")?)
    }
    fn compare(&self, predicate: IntPredicate, x: IntValue<'ctx>, y: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_int_compare(predicate, x, y, "")?)
    }
    fn select(
        &self,
        condition: IntValue<'ctx>,
        then: IntValue<'ctx>,
        otherwise: IntValue<'ctx>,
    ) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_select(condition, then, otherwise, "")?.into_int_value())
    }
    fn minimum_unsigned(&self, x: IntValue<'ctx>, y: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        self.select(self.compare(IntPredicate::ULT, x, y)?, x, y)
    }
    fn extend(&self, x: IntValue<'ctx>, to: IntType<'ctx>, signed: bool) -> LoweringResult<IntValue<'ctx>> {
        Ok(if signed {
            self.builder.build_int_s_extend(x, to, "")?
        } else {
            self.builder.build_int_z_extend(x, to, "")?
        })
    }
    fn truncate(&self, x: IntValue<'ctx>, to: IntType<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        Ok(self.builder.build_int_truncate(x, to, "")?)
    }
    /// `x` clamped into `[low, high]`, signed or unsigned.
    fn clamp(
        &self,
        x: IntValue<'ctx>,
        low: IntValue<'ctx>,
        high: IntValue<'ctx>,
        signed: bool,
    ) -> LoweringResult<IntValue<'ctx>> {
        let (less, greater) =
            if signed { (IntPredicate::SLT, IntPredicate::SGT) } else { (IntPredicate::ULT, IntPredicate::UGT) };
        let raised = self.select(self.compare(less, x, low)?, low, x)?;
        self.select(self.compare(greater, raised, high)?, high, raised)
    }
    /// `(1 << width) - 1` for `width` in `0..=bits`, without an out-of-range shift.
    fn low_mask(&self, width: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        let int_type = width.get_type();
        let bits = int_type.const_int(u64::from(int_type.get_bit_width()), false);
        let full = self.compare(IntPredicate::UGE, width, bits)?;
        let safe_width = self.select(full, int_type.const_zero(), width)?;
        let mask = self.sub(self.shl(int_type.const_int(1, false), safe_width)?, int_type.const_int(1, false))?;
        self.select(full, int_type.const_all_ones(), mask)
    }

    fn truncate_or_same(&self, x: IntValue<'ctx>, to: IntType<'ctx>) -> LoweringResult<IntValue<'ctx>> {
        if x.get_type().get_bit_width() == to.get_bit_width() {
            Ok(x)
        } else {
            self.truncate(x, to)
        }
    }

    fn population_count(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        x: IntValue<'ctx>,
        span: Span,
    ) -> LoweringResult<IntValue<'ctx>> {
        Ok(intrinsic(lowering, "llvm.ctpop", &[x.get_type().into()], &[x.into()], span)?.into_int_value())
    }
}

fn bits<'a, 'ctx>(lowering: &'a FunctionLowering<'_, 'ctx>) -> Bits<'a, 'ctx> {
    Bits { builder: lowering.shared.builder }
}

/// An `i32` operand (position, length, selector) widened or narrowed to `int_type`.
fn to_type<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    value: IntValue<'ctx>,
    int_type: IntType<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    Ok(lowering.shared.builder.build_int_cast_sign_flag(value, int_type, false, "")?)
}

/// `bfe`: `pos = b & 0xff`, `len = c & 0xff`; bit `i` of `d` is `a[pos + i]` while `i < len`
/// and `pos + i` is in range, else the sign bit `a[min(pos + len - 1, msb)]` (0 for unsigned
/// types and for `len == 0`).
pub fn bit_field_extract<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    destination: &Destination,
    source: &Operand,
    position: &Operand,
    length: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let value = lowering.read_int(source, ty)?;
    let int_type = value.get_type();
    let byte = int_type.const_int(0xff, false);
    let position = ops.and(to_type(lowering, lowering.read_int(position, ScalarType::U32)?, int_type)?, byte)?;
    let length = ops.and(to_type(lowering, lowering.read_int(length, ScalarType::U32)?, int_type)?, byte)?;
    let width = int_type.const_int(u64::from(int_type.get_bit_width()), false);
    let zero = int_type.const_zero();
    let one = int_type.const_int(1, false);
    let position_past_end = ops.compare(IntPredicate::UGE, position, width)?;
    let safe_position = ops.select(position_past_end, zero, position)?;
    let shifted = ops.lshr(value, safe_position)?;
    let field_length = ops.minimum_unsigned(length, ops.sub(width, safe_position)?)?;
    let mask = ops.low_mask(field_length)?;
    let field = ops.and(shifted, mask)?;
    let result = if ty.is_signed() {
        // The field's top bit, bit `field_length - 1` of `shifted`, fills the rest.
        let top = ops.select(ops.compare(IntPredicate::EQ, field_length, zero)?, zero, ops.sub(field_length, one)?)?;
        let sign = ops.and(ops.lshr(shifted, top)?, one)?;
        let fill = ops.select(ops.compare(IntPredicate::EQ, sign, one)?, ops.not(mask)?, zero)?;
        let in_range = ops.or(field, fill)?;
        // Past the end every bit is the source's sign bit.
        let all_sign = ops.ashr(value, ops.sub(width, one)?)?;
        ops.select(position_past_end, all_sign, in_range)?
    } else {
        ops.select(position_past_end, zero, field)?
    };
    let result = ops.select(ops.compare(IntPredicate::EQ, length, zero)?, zero, result)?;
    lowering.write(destination, result.into(), ty)
}

/// `bfi`: `b` with bits `pos .. pos + len` (clipped at the width) replaced by the low bits of
/// `a`; `pos = c & 0xff`, `len = d & 0xff`.
pub fn bit_field_insert<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    destination: &Destination,
    field: &Operand,
    base: &Operand,
    position: &Operand,
    length: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let field = lowering.read_int(field, ty)?;
    let base = lowering.read_int(base, ty)?;
    let int_type = field.get_type();
    let byte = int_type.const_int(0xff, false);
    let position = ops.and(to_type(lowering, lowering.read_int(position, ScalarType::U32)?, int_type)?, byte)?;
    let length = ops.and(to_type(lowering, lowering.read_int(length, ScalarType::U32)?, int_type)?, byte)?;
    let width = int_type.const_int(u64::from(int_type.get_bit_width()), false);
    let zero = int_type.const_zero();
    let position_past_end = ops.compare(IntPredicate::UGE, position, width)?;
    let safe_position = ops.select(position_past_end, zero, position)?;
    let field_length = ops.minimum_unsigned(length, ops.sub(width, safe_position)?)?;
    let mask = ops.shl(ops.low_mask(field_length)?, safe_position)?;
    let inserted = ops.and(ops.shl(field, safe_position)?, mask)?;
    let merged = ops.or(ops.and(base, ops.not(mask)?)?, inserted)?;
    let result = ops.select(position_past_end, base, merged)?;
    lowering.write(destination, result.into(), ty)
}

/// `bfind`: the position of the most significant 1 (of the complement, for negative signed
/// values), `msb - position` with `.shiftamt`, and `0xffffffff` when there is none.
pub fn find_most_significant_bit<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    shift_amount: bool,
    destination: &Destination,
    source: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let mut value = lowering.read_int(source, ty)?;
    let int_type = value.get_type();
    if ty.is_signed() {
        let negative = ops.compare(IntPredicate::SLT, value, int_type.const_zero())?;
        value = ops.select(negative, ops.not(value)?, value)?;
    }
    let is_zero_poison = lowering.shared.context.bool_type().const_zero();
    let leading_zeros =
        intrinsic(lowering, "llvm.ctlz", &[int_type.into()], &[value.into(), is_zero_poison.into()], span)?
            .into_int_value();
    let u32_type = lowering.shared.context.i32_type();
    let leading_zeros = ops.truncate_or_same(leading_zeros, u32_type)?;
    let position = if shift_amount {
        leading_zeros
    } else {
        ops.sub(u32_type.const_int(u64::from(int_type.get_bit_width() - 1), false), leading_zeros)?
    };
    let none = ops.compare(IntPredicate::EQ, value, int_type.const_zero())?;
    let result = ops.select(none, u32_type.const_all_ones(), position)?;
    lowering.write(destination, result.into(), ScalarType::U32)
}

/// The position of the `rank`-th set bit (1-based, from bit 0) of a 32-bit `mask` that has at
/// least `rank` set bits: a binary search on population counts of ever smaller low parts.
fn nth_set_bit<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    mut mask: IntValue<'ctx>,
    mut rank: IntValue<'ctx>,
    span: Span,
) -> LoweringResult<IntValue<'ctx>> {
    let ops = bits(lowering);
    let int_type = mask.get_type();
    let mut position = int_type.const_zero();
    for width in [16u64, 8, 4, 2, 1] {
        let low = ops.and(mask, int_type.const_int((1 << width) - 1, false))?;
        let count = ops.population_count(lowering, low, span)?;
        let above = ops.compare(IntPredicate::ULT, count, rank)?;
        let width = int_type.const_int(width, false);
        rank = ops.select(above, ops.sub(rank, count)?, rank)?;
        mask = ops.select(above, ops.lshr(mask, width)?, mask)?;
        position = ops.select(above, ops.add(position, width)?, position)?;
    }
    Ok(position)
}

/// `fns`: from bit `base`, the `offset`-th set bit of `mask` counting up (`offset > 0`) or down
/// (`offset < 0`); for `offset == 0`, `base` itself if that bit is set. `0xffffffff` when there
/// is no such bit, and for `base` past bit 31 (the ISA's search loop never starts there).
pub fn find_nth_set_bit<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    destination: &Destination,
    mask: &Operand,
    base: &Operand,
    offset: &Operand,
    span: Span,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let mask = lowering.read_int(mask, ScalarType::B32)?;
    let base = lowering.read_int(base, ScalarType::U32)?;
    let offset = lowering.read_int(offset, ScalarType::S32)?;
    let int_type = mask.get_type();
    let zero = int_type.const_zero();
    let one = int_type.const_int(1, false);
    let all_ones = int_type.const_all_ones();
    let base_in_range = ops.compare(IntPredicate::ULT, base, int_type.const_int(32, false))?;
    let safe_base = ops.select(base_in_range, base, zero)?;
    let upward = ops.compare(IntPredicate::SGT, offset, zero)?;
    let downward = ops.compare(IntPredicate::SLT, offset, zero)?;
    // |offset| as an unsigned count (INT_MIN stays 2^31, larger than any population).
    let count = ops.select(downward, ops.sub(zero, offset)?, offset)?;
    let at_and_above = ops.shl(all_ones, safe_base)?;
    let at_and_below = ops.lshr(all_ones, ops.sub(int_type.const_int(31, false), safe_base)?)?;
    let only_base = ops.shl(one, safe_base)?;
    let window = ops.select(upward, at_and_above, ops.select(downward, at_and_below, only_base)?)?;
    let candidates = ops.and(mask, window)?;
    let total = ops.population_count(lowering, candidates, span)?;
    let count = ops.select(ops.or(upward, downward)?, count, one)?;
    let found = ops.and(base_in_range, ops.compare(IntPredicate::ULE, count, total)?)?;
    // Counting down from `base` is counting up to rank `total - count + 1`.
    let rank = ops.select(downward, ops.add(ops.sub(total, count)?, one)?, count)?;
    let safe_rank = ops.select(found, rank, one)?;
    let position = nth_set_bit(lowering, candidates, safe_rank, span)?;
    let result = ops.select(found, position, all_ones)?;
    lowering.write(destination, result.into(), ScalarType::B32)
}

/// `bmsk`: `b` one bits from bit `a`, per the ISA's pseudo-code: `a & 0x1f` and `b & 0x1f` are
/// used, `.clamp` gives 0 for `a >= 32` and stops at bit 31 for `b >= 32`, and a width of 0
/// gives 0.
pub fn bit_mask<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    wrap: bool,
    destination: &Destination,
    position: &Operand,
    width: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let position = lowering.read_int(position, ScalarType::U32)?;
    let width = lowering.read_int(width, ScalarType::U32)?;
    let int_type = position.get_type();
    let zero = int_type.const_zero();
    let all_ones = int_type.const_all_ones();
    let thirty_one = int_type.const_int(31, false);
    let thirty_two = int_type.const_int(32, false);
    let low_position = ops.and(position, thirty_one)?;
    let mut start_mask = ops.shl(all_ones, low_position)?;
    let low_width = ops.and(width, thirty_one)?;
    let end = ops.add(low_position, low_width)?;
    let mut overflow = ops.compare(IntPredicate::UGE, end, thirty_two)?;
    let safe_end = ops.select(overflow, zero, end)?;
    if !wrap {
        let position_overflow = ops.compare(IntPredicate::UGE, position, thirty_two)?;
        start_mask = ops.select(position_overflow, zero, start_mask)?;
        let width_overflow = ops.compare(IntPredicate::UGE, width, thirty_two)?;
        overflow = ops.or(overflow, ops.or(position_overflow, width_overflow)?)?;
    }
    let end_mask = ops.shl(all_ones, safe_end)?;
    let end_mask = ops.select(ops.compare(IntPredicate::EQ, low_width, zero)?, all_ones, end_mask)?;
    let end_mask = ops.select(overflow, zero, end_mask)?;
    let result = ops.and(start_mask, ops.not(end_mask)?)?;
    lowering.write(destination, result.into(), ScalarType::B32)
}

/// `szext`: the low `b` bits of `a` (`b & 0x1f` with `.wrap`; all of `a` for `b >= 32` with
/// `.clamp`), sign-extended for `.s32` and zero-extended for `.u32`.
pub fn sign_or_zero_extend<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    wrap: bool,
    destination: &Destination,
    source: &Operand,
    width: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let value = lowering.read_int(source, ty)?;
    let width = lowering.read_int(width, ScalarType::U32)?;
    let int_type = value.get_type();
    let zero = int_type.const_zero();
    let one = int_type.const_int(1, false);
    let thirty_one = int_type.const_int(31, false);
    let low_width = ops.and(width, thirty_one)?;
    let too_large = if wrap {
        int_type.get_context().bool_type().const_zero()
    } else {
        ops.compare(IntPredicate::UGE, width, int_type.const_int(32, false))?
    };
    let upper = ops.select(too_large, zero, ops.shl(int_type.const_all_ones(), low_width)?)?;
    let kept = ops.and(value, ops.not(upper)?)?;
    let result = if ty.is_signed() {
        let sign_position = ops.and(ops.sub(low_width, one)?, thirty_one)?;
        let sign = ops.and(ops.lshr(value, sign_position)?, one)?;
        let has_sign =
            ops.and(ops.compare(IntPredicate::EQ, sign, one)?, ops.compare(IntPredicate::NE, low_width, zero)?)?;
        ops.or(kept, ops.select(has_sign, upper, zero)?)?
    } else {
        kept
    };
    lowering.write(destination, result.into(), ty)
}

/// The byte each mode picks for result bytes 0 to 3 (low nibble first), per value of the
/// selector's two low bits: ISA 7.8 section 9.7.8.7's table.
fn permute_table(mode: PermuteMode) -> Option<[u16; 4]> {
    Some(match mode {
        PermuteMode::Default => return None,
        PermuteMode::ForwardFourExtract => [0x3210, 0x4321, 0x5432, 0x6543],
        PermuteMode::BackwardFourExtract => [0x5670, 0x6701, 0x7012, 0x0123],
        PermuteMode::ReplicateByte => [0x0000, 0x1111, 0x2222, 0x3333],
        PermuteMode::EdgeClampLeft => [0x3210, 0x3211, 0x3222, 0x3333],
        PermuteMode::EdgeClampRight => [0x0000, 0x1110, 0x2210, 0x3210],
        PermuteMode::ReplicateHalf => [0x1010, 0x3232, 0x1010, 0x3232],
    })
}

/// `prmt`: byte `i` of `d` is byte `n & 7` of the 8-byte value `{b, a}`, where `n` is nibble `i`
/// of the selector; in the default mode a nibble with bit 3 set replicates that byte's sign
/// bit instead. The other modes pick a nibble pattern from a table by the selector's low bits.
pub fn permute<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    mode: PermuteMode,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    selector: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let a = lowering.read_int(a, ScalarType::B32)?;
    let b = lowering.read_int(b, ScalarType::B32)?;
    let selector = lowering.read_int(selector, ScalarType::B32)?;
    let i32_type = a.get_type();
    let i64_type = lowering.shared.context.i64_type();
    let thirty_two = i64_type.const_int(32, false);
    let pair = ops.or(ops.shl(ops.extend(b, i64_type, false)?, thirty_two)?, ops.extend(a, i64_type, false)?)?;
    let (nibbles, sign_replication) = match permute_table(mode) {
        None => (selector, true),
        Some(table) => {
            let packed = table
                .iter()
                .enumerate()
                .fold(0u64, |packed, (index, &nibbles)| packed | (u64::from(nibbles) << (16 * index)));
            let row = ops.shl(
                ops.extend(ops.and(selector, i32_type.const_int(3, false))?, i64_type, false)?,
                i64_type.const_int(4, false),
            )?;
            let nibbles = ops.lshr(i64_type.const_int(packed, false), row)?;
            (ops.truncate(nibbles, i32_type)?, false)
        }
    };
    let mut result = i32_type.const_zero();
    for index in 0..4u64 {
        let nibble = ops.lshr(nibbles, i32_type.const_int(4 * index, false))?;
        let byte_index = ops.and(nibble, i32_type.const_int(7, false))?;
        let bit_offset = ops.shl(ops.extend(byte_index, i64_type, false)?, i64_type.const_int(3, false))?;
        let mut byte =
            ops.and(ops.truncate(ops.lshr(pair, bit_offset)?, i32_type)?, i32_type.const_int(0xff, false))?;
        if sign_replication {
            let replicate =
                ops.compare(IntPredicate::NE, ops.and(nibble, i32_type.const_int(8, false))?, i32_type.const_zero())?;
            let negative = ops.compare(IntPredicate::UGE, byte, i32_type.const_int(0x80, false))?;
            let sign_byte = ops.select(negative, i32_type.const_int(0xff, false), i32_type.const_zero())?;
            byte = ops.select(replicate, sign_byte, byte)?;
        }
        result = ops.or(result, ops.shl(byte, i32_type.const_int(8 * index, false))?)?;
    }
    lowering.write(destination, result.into(), ScalarType::B32)
}

/// `shf.l`: the high word of `{b, a} << n`; `shf.r`: the low word of `{b, a} >> n`, with
/// `n = c & 0x1f` (`.wrap`) or `min(c, 32)` (`.clamp`). A 64-bit shift by at most 32 does it.
pub fn funnel_shift<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    left: bool,
    wrap: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    amount: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let a = lowering.read_int(a, ScalarType::B32)?;
    let b = lowering.read_int(b, ScalarType::B32)?;
    let amount = lowering.read_int(amount, ScalarType::U32)?;
    let i32_type = a.get_type();
    let i64_type = lowering.shared.context.i64_type();
    let amount = if wrap {
        ops.and(amount, i32_type.const_int(31, false))?
    } else {
        ops.minimum_unsigned(amount, i32_type.const_int(32, false))?
    };
    let amount = ops.extend(amount, i64_type, false)?;
    let thirty_two = i64_type.const_int(32, false);
    let pair = ops.or(ops.shl(ops.extend(b, i64_type, false)?, thirty_two)?, ops.extend(a, i64_type, false)?)?;
    let result = if left { ops.lshr(ops.shl(pair, amount)?, thirty_two)? } else { ops.lshr(pair, amount)? };
    lowering.write(destination, ops.truncate(result, i32_type)?.into(), ScalarType::B32)
}

/// `mul24`/`mad24`: the 48-bit product of the operands' low 24 bits (sign-extended from bit 23
/// for `.s32`); `.lo` keeps bits 0..31, `.hi` bits 16..47; `mad24` adds `c`, saturating for
/// `mad24.hi.sat.s32`.
#[allow(clippy::too_many_arguments)]
pub fn multiply_24<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    high: bool,
    ty: ScalarType,
    saturate: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    addend: Option<&Operand>,
    span: Span,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let signed = ty.is_signed();
    let a = lowering.read_int(a, ty)?;
    let b = lowering.read_int(b, ty)?;
    let i32_type = a.get_type();
    let i64_type = lowering.shared.context.i64_type();
    let low_24 = |value: IntValue<'ctx>| -> LoweringResult<IntValue<'ctx>> {
        let eight = i32_type.const_int(8, false);
        let value = if signed {
            ops.ashr(ops.shl(value, eight)?, eight)?
        } else {
            ops.and(value, i32_type.const_int(0x00ff_ffff, false))?
        };
        ops.extend(value, i64_type, signed)
    };
    let product = ops.mul(low_24(a)?, low_24(b)?)?;
    let kept = if high { ops.ashr(product, i64_type.const_int(16, false))? } else { product };
    let mut result = ops.truncate(kept, i32_type)?;
    if let Some(addend) = addend {
        let addend = lowering.read_int(addend, ty)?;
        result = if saturate {
            intrinsic(lowering, "llvm.sadd.sat", &[i32_type.into()], &[result.into(), addend.into()], span)?
                .into_int_value()
        } else {
            ops.add(result, addend)?
        };
    }
    lowering.write(destination, result.into(), ty)
}

/// `sad`: `c + (a < b ? b - a : a - b)`, wrapping.
pub fn sum_of_absolute_differences<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    c: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let (a, b, c) = (lowering.read_int(a, ty)?, lowering.read_int(b, ty)?, lowering.read_int(c, ty)?);
    let less = ops.compare(if ty.is_signed() { IntPredicate::SLT } else { IntPredicate::ULT }, a, b)?;
    let difference = ops.select(less, ops.sub(b, a)?, ops.sub(a, b)?)?;
    lowering.write(destination, ops.add(c, difference)?.into(), ty)
}

/// Part `index` (`part_bits` wide) of a 32-bit value, sign- or zero-extended to 32 bits.
fn extract_part<'ctx>(
    ops: &Bits<'_, 'ctx>,
    value: IntValue<'ctx>,
    part_bits: u32,
    index: u32,
    signed: bool,
) -> LoweringResult<IntValue<'ctx>> {
    let int_type = value.get_type();
    let above = int_type.const_int(u64::from(32 - part_bits * (index + 1)), false);
    let raised = ops.shl(value, above)?;
    let down = int_type.const_int(u64::from(32 - part_bits), false);
    if signed {
        ops.ashr(raised, down)
    } else {
        ops.lshr(raised, down)
    }
}

/// `dp4a`: `c` plus the four products of `a`'s and `b`'s bytes; `dp2a`: `c` plus the products
/// of `a`'s two half-words with bytes 0-1 (`.lo`) or 2-3 (`.hi`) of `b`. All 32-bit, wrapping.
#[allow(clippy::too_many_arguments)]
pub fn dot_product<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    lanes: DotProductLanes,
    a_signed: bool,
    b_signed: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    c: &Operand,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let accumulator_type = if a_signed || b_signed { ScalarType::S32 } else { ScalarType::U32 };
    let a = lowering.read_int(a, ScalarType::B32)?;
    let b = lowering.read_int(b, ScalarType::B32)?;
    let mut sum = lowering.read_int(c, accumulator_type)?;
    let (a_bits, count, b_first) = match lanes {
        DotProductLanes::Four => (8, 4, 0),
        DotProductLanes::TwoLow => (16, 2, 0),
        DotProductLanes::TwoHigh => (16, 2, 2),
    };
    for index in 0..count {
        let a_part = extract_part(&ops, a, a_bits, index, a_signed)?;
        let b_part = extract_part(&ops, b, 8, b_first + index, b_signed)?;
        sum = ops.add(sum, ops.mul(a_part, b_part)?)?;
    }
    lowering.write(destination, sum.into(), accumulator_type)
}

/// `cvt.pack.sat`: `a` and `b` clamped into the narrow type, `a`'s bits above `b`'s; for 8-bit
/// types the 16 packed bits sit below the low 16 bits of `c`.
pub fn convert_pack<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    size: u32,
    signed: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    c: Option<&Operand>,
) -> LoweringResult<()> {
    let ops = bits(lowering);
    let a = lowering.read_int(a, ScalarType::S32)?;
    let b = lowering.read_int(b, ScalarType::S32)?;
    let int_type = a.get_type();
    let (low, high): (i64, i64) =
        if signed { (-(1 << (size - 1)), (1 << (size - 1)) - 1) } else { (0, (1 << size) - 1) };
    let low = int_type.const_int(low as u64, true);
    let high = int_type.const_int(high as u64, false);
    let part_mask = int_type.const_int((1 << size) - 1, false);
    let a_part = ops.and(ops.clamp(a, low, high, true)?, part_mask)?;
    let b_part = ops.and(ops.clamp(b, low, high, true)?, part_mask)?;
    let mut packed = ops.or(ops.shl(a_part, int_type.const_int(u64::from(size), false))?, b_part)?;
    if let Some(c) = c {
        let c = lowering.read_int(c, ScalarType::B32)?;
        packed = ops.or(packed, ops.shl(c, int_type.const_int(u64::from(2 * size), false))?)?;
    }
    lowering.write(destination, packed.into(), ScalarType::B32)
}
