//! The shared-memory swizzling modes of `wgmma`'s matrix descriptors (NVIDIA's PTX manual,
//! "Shared Memory Matrix Layout", swizzling modes and canonical layouts; CUTLASS's
//! `cute/arch/mma_sm90_desc.hpp` and `mma_traits_sm90_gmma.hpp` state the same): in the 32-, 64-
//! and 128-byte modes, the 16-byte chunk of a row is XORed with the row's index within the
//! repeating pattern of 2, 4 or 8 rows of 128 bytes (`Swizzle<1,4,3>`, `<2,4,3>`, `<3,4,3>` on
//! byte addresses: address bits 7 and up, masked, XORed into bits 4 and up). The pattern
//! repeats every 256, 512 or 1024 bytes, the boundaries the manual names for a base offset of
//! 0; the swizzle is applied to the whole shared-memory address, so a descriptor whose start
//! address moves along a swizzled row (the next K step) reads the same pattern.

use inkwell::values::IntValue;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// The descriptor's swizzling mode (bits 62–63): 0 none, 1 128-byte, 2 64-byte, 3 32-byte.
/// The mask of row bits (address bits 7 and up) that each mode XORs into the chunk bits.
pub fn row_mask<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, mode: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    // 0 → 0, 1 → 7, 2 → 3, 3 → 1: (16 >> mode) - 1 for modes 1 to 3.
    let shifted = builder.build_right_shift(i32_type.const_int(16, false), mode, false, "")?;
    let mask = builder.build_int_sub(shifted, i32_type.const_int(1, false), "")?;
    let none = builder.build_int_compare(inkwell::IntPredicate::EQ, mode, i32_type.const_zero(), "")?;
    Ok(builder.build_select(none, i32_type.const_zero(), mask, "")?.into_int_value())
}

/// The byte width of a swizzled row (the pattern's row): 128, 64 or 32; 16 (one chunk) with no
/// swizzle, where rows of a core matrix are 16 bytes apart.
pub fn row_bytes<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, mask: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    // (mask + 1) · 16: 16, 32, 64, 128.
    let rows = builder.build_int_add(mask, i32_type.const_int(1, false), "")?;
    Ok(builder.build_left_shift(rows, i32_type.const_int(4, false), "")?)
}

/// `address` (an `i32` shared-memory byte address) with its chunk bits 4.. XORed with its row
/// bits 7.., masked by `mask` ([`row_mask`]).
pub fn swizzle<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    address: IntValue<'ctx>,
    mask: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let row = builder.build_right_shift(address, i32_type.const_int(7, false), false, "")?;
    let row = builder.build_and(row, mask, "")?;
    let chunk = builder.build_left_shift(row, i32_type.const_int(4, false), "")?;
    Ok(builder.build_xor(address, chunk, "")?)
}
