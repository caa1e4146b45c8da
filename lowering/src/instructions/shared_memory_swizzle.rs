//! The shared-memory swizzle that the tensor memory accelerator (PTX ISA 8.0, "Tensor-map
//! swizzling modes") and `wgmma`'s matrix descriptors ("Shared Memory Matrix Layout",
//! swizzling modes; CUTLASS's `cute/arch/mma_sm90_desc.hpp` and `Swizzle<1,4,3>`, `<2,4,3>`,
//! `<3,4,3>` state the same) share: a 128-byte row's 16-byte chunks trade places so that a warp
//! reading a column touches every bank. In the 32-, 64- and 128-byte modes, chunk `c` of row
//! `r` moves to chunk `c ^ (r mod 2^k)`, for `k` 1, 2 and 3: the byte offset's bits 7.. (its
//! row), masked to `k` bits, are XORed into its bits 4.. (its chunk). The pattern repeats every
//! 256, 512 and 1024 bytes.
//!
//! The two encode the mode differently: a tensor map's `.swizzle_mode` is 0 none, 1 32-byte,
//! 2 64-byte, 3 128-byte; a matrix descriptor's bits 62–63 are 0 none, 1 128-byte, 2 64-byte,
//! 3 32-byte.
//!
//! The hardware applies the swizzle to the shared-memory address, which PTX requires to be
//! aligned to the pattern's repeat. The TMA lowering applies it to the offset from the box's
//! start, which is the same for such an address and does not depend on where a target places
//! shared memory; `wgmma` applies it to the whole address, so a descriptor whose start moves
//! along a swizzled row (the next K step) reads the same pattern (the descriptor's base-offset
//! field, for patterns that do not start on their boundary, is not modelled).

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::values::IntValue;
use inkwell::IntPredicate;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// The tensor map's `.swizzle_mode` codes.
pub const NONE: u64 = 0;
pub const BYTES_32: u64 = 1;
pub const BYTES_64: u64 = 2;
pub const BYTES_128: u64 = 3;

/// The row bits (of the offset shifted right by 7) that tensor-map `mode` XORs into the chunk
/// bits: `2^k - 1`.
pub const fn tensor_map_row_mask(mode: u64) -> u64 {
    match mode {
        BYTES_32 => 1,
        BYTES_64 => 3,
        BYTES_128 => 7,
        _ => 0,
    }
}

/// `value` with its chunk bits 4.. XORed with its row bits 7.. masked by `row_mask` (both of
/// the same integer type): the one formula both users share.
fn xor_row_into_chunk<'ctx>(
    builder: &Builder<'ctx>,
    value: IntValue<'ctx>,
    row_mask: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let int_type = value.get_type();
    let row = builder.build_right_shift(value, int_type.const_int(7, false), false, "")?;
    let row = builder.build_and(row, row_mask, "")?;
    let chunk = builder.build_left_shift(row, int_type.const_int(4, false), "")?;
    Ok(builder.build_xor(value, chunk, "swizzled")?)
}

/// `offset` (i64, from the box's start) where tensor-map `mode` (an i32 swizzle code) places
/// it. Codes other than the three swizzles leave it as it is.
pub fn swizzled_offset<'ctx>(
    context: &'ctx Context,
    builder: &Builder<'ctx>,
    offset: IntValue<'ctx>,
    mode: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let i64_type = context.i64_type();
    let i32_type = context.i32_type();
    let mut mask = i64_type.const_int(tensor_map_row_mask(NONE), false);
    for code in [BYTES_32, BYTES_64, BYTES_128] {
        let is_code = builder.build_int_compare(IntPredicate::EQ, mode, i32_type.const_int(code, false), "")?;
        mask = builder
            .build_select(is_code, i64_type.const_int(tensor_map_row_mask(code), false), mask, "")?
            .into_int_value();
    }
    xor_row_into_chunk(builder, offset, mask)
}

/// The row mask of a matrix descriptor's swizzling `mode` (bits 62–63, an `i32`): 0 → 0,
/// 1 (128-byte) → 7, 2 (64-byte) → 3, 3 (32-byte) → 1, that is `(16 >> mode) - 1` for 1 to 3.
pub fn row_mask<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, mode: IntValue<'ctx>) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let shifted = builder.build_right_shift(i32_type.const_int(16, false), mode, false, "")?;
    let mask = builder.build_int_sub(shifted, i32_type.const_int(1, false), "")?;
    let none = builder.build_int_compare(IntPredicate::EQ, mode, i32_type.const_zero(), "")?;
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

/// `address` (an `i32` shared-memory byte address) as a descriptor with row mask `mask`
/// ([`row_mask`]) reads it.
pub fn swizzle<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    address: IntValue<'ctx>,
    mask: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    xor_row_into_chunk(lowering.shared.builder, address, mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same placement as the manual's pictures, computed the plain way: row `r` of 128
    /// bytes, chunk `c` of 16 bytes.
    fn placed(offset: u64, mode: u64) -> u64 {
        let rows_in_pattern = match mode {
            BYTES_32 => 2,
            BYTES_64 => 4,
            BYTES_128 => 8,
            _ => 1,
        };
        let row = offset / 128;
        let chunk = (offset / 16) % 8;
        let new_chunk = chunk ^ (row % rows_in_pattern);
        offset - chunk * 16 + new_chunk * 16
    }

    #[test]
    fn the_masks_move_chunks_as_the_rows_say() {
        for mode in [NONE, BYTES_32, BYTES_64, BYTES_128] {
            for offset in 0..4096u64 {
                let swizzled = offset ^ (((offset >> 7) & tensor_map_row_mask(mode)) << 4);
                assert_eq!(swizzled, placed(offset, mode), "mode {mode}, {offset}");
            }
        }
    }

    #[test]
    fn descriptor_modes_name_the_same_patterns() {
        // Descriptor codes 1, 2, 3 are the 128-, 64- and 32-byte modes.
        for (descriptor, tensor_map) in [(0u64, NONE), (1, BYTES_128), (2, BYTES_64), (3, BYTES_32)] {
            let mask = if descriptor == 0 { 0 } else { (16 >> descriptor) - 1 };
            assert_eq!(mask, tensor_map_row_mask(tensor_map));
        }
    }
}
