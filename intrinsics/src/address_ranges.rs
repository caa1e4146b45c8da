//! `isspacep` by address ranges that ptxr itself places: whether a generic address lies in one
//! of a list of ranges (the block's shared window, the module's `.const` variables), for
//! targets whose generic addresses carry no mark of their state space.

use inkwell::values::{IntValue, PointerValue};
use inkwell::IntPredicate;

use crate::{Site, Unsupported};

/// One range: its first byte (in any address space that casts to the generic one) and its size
/// in bytes, an `i64` known at compile time or, for a window the launch sizes, at run time.
#[derive(Clone, Copy)]
pub struct AddressRange<'ctx> {
    pub start: PointerValue<'ctx>,
    pub bytes: IntValue<'ctx>,
}

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("`isspacep` ({error})") }
}

/// Whether `address` (a generic pointer) lies in any of `ranges`, as an `i1`: for each range,
/// `address - start < bytes` unsigned, on the 64-bit integers of the generic addresses.
pub fn in_any<'ctx>(
    site: &Site<'_, 'ctx>,
    address: PointerValue<'ctx>,
    ranges: &[AddressRange<'ctx>],
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i64_type = site.context.i64_type();
    let generic = address.get_type();
    let address = builder.build_ptr_to_int(address, i64_type, "").map_err(failed)?;
    let mut inside = site.context.bool_type().const_zero();
    for range in ranges {
        let start = if range.start.get_type() == generic {
            range.start
        } else {
            builder.build_address_space_cast(range.start, generic, "").map_err(failed)?
        };
        let start = builder.build_ptr_to_int(start, i64_type, "").map_err(failed)?;
        let offset = builder.build_int_sub(address, start, "").map_err(failed)?;
        let in_range = builder.build_int_compare(IntPredicate::ULT, offset, range.bytes, "").map_err(failed)?;
        inside = builder.build_or(inside, in_range, "in.range").map_err(failed)?;
    }
    Ok(inside)
}
