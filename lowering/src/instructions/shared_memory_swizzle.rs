//! The tensor memory accelerator's shared-memory swizzle (PTX ISA 8.0, "Tensor-map swizzling
//! modes"): a box row's 16-byte chunks trade places so that a warp reading a column of the box
//! touches every bank. With the 32-, 64- and 128-byte modes, chunk bits 4..5, 4..6 and 4..7 of
//! a byte offset are XORed with the same number of bits taken from bit 7 up, the offset's
//! position among 128-byte rows: chunk `c` of row `r` moves to chunk `c ^ (r mod 2^k)`, for
//! `k` 1, 2 and 3. The pattern repeats every 256, 512 and 1024 bytes.
//!
//! The hardware applies it to the shared-memory address, which PTX requires to be aligned to
//! the pattern's repeat; ptxr applies it to the offset from the box's start, which is the same
//! for such an address and does not depend on where a target places shared memory.

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::values::IntValue;

use crate::error::LoweringResult;

/// The tensor map's `.swizzle_mode` codes.
pub const NONE: u64 = 0;
pub const BYTES_32: u64 = 1;
pub const BYTES_64: u64 = 2;
pub const BYTES_128: u64 = 3;

/// The chunk bits that `mode` XORs, as a mask of the byte offset: the bits above them (from
/// bit 7) are shifted right by three onto them.
pub const fn chunk_mask(mode: u64) -> u64 {
    match mode {
        BYTES_32 => 0x10,
        BYTES_64 => 0x30,
        BYTES_128 => 0x70,
        _ => 0,
    }
}

/// `offset` (i64, from the box's start) where `mode` (an i32 swizzle code) places it. Codes
/// other than the three swizzles leave it as it is.
pub fn swizzled_offset<'ctx>(
    context: &'ctx Context,
    builder: &Builder<'ctx>,
    offset: IntValue<'ctx>,
    mode: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let i64_type = context.i64_type();
    let i32_type = context.i32_type();
    let mut mask = i64_type.const_int(chunk_mask(NONE), false);
    for code in [BYTES_32, BYTES_64, BYTES_128] {
        let is_code =
            builder.build_int_compare(inkwell::IntPredicate::EQ, mode, i32_type.const_int(code, false), "")?;
        mask = builder.build_select(is_code, i64_type.const_int(chunk_mask(code), false), mask, "")?.into_int_value();
    }
    let row_bits = builder.build_right_shift(offset, i64_type.const_int(3, false), false, "")?;
    let toggled = builder.build_and(row_bits, mask, "")?;
    Ok(builder.build_xor(offset, toggled, "swizzled")?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same placement as the section's pictures, computed the plain way: row `r` of 128
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
                assert_eq!(offset ^ ((offset >> 3) & chunk_mask(mode)), placed(offset, mode), "mode {mode}, {offset}");
            }
        }
    }
}
