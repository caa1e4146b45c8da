//! `%globaltimer_lo` and `%globaltimer_hi` (ISA 7.8 section 10.28): the low and high 32 bits of
//! the 64-bit nanosecond timer `%globaltimer`, which each target reads its own way; and
//! `%clock_hi` (section 10.23), the high 32 bits of `%clock64`, taken the same way.

use inkwell::values::IntValue;
use ptxr_frontend::vocabulary::SpecialRegister;

use crate::{Site, Unsupported};

/// The half of `timer` (i64) that `register` names, as an i32.
pub fn half<'ctx>(
    site: &Site<'_, 'ctx>,
    register: SpecialRegister,
    timer: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("{register} ({error})") };
    let bits = if matches!(register, SpecialRegister::GlobalTimerHigh | SpecialRegister::ClockHigh) {
        site.builder
            .build_right_shift(timer, site.context.i64_type().const_int(32, false), false, "")
            .map_err(failed)?
    } else {
        timer
    };
    site.builder.build_int_truncate(bits, site.context.i32_type(), "globaltimer.half").map_err(failed)
}
