//! `nanosleep` on AMDGPU (ISA 7.8 section 9.7.18.2): PTX promises a delay of about `t`
//! nanoseconds, within [0, 2t], and at most a millisecond. `s_sleep` takes only an immediate
//! count of 64 shader clocks, whose length depends on the clock, so the delay is measured on the
//! GPU's constant-rate counter instead (`llvm.readsteadycounter`: `s_memrealtime`, or the
//! `MSG_RTN_GET_REALTIME` message from gfx11 on), which runs at 100 MHz on gfx9 and later: the
//! thread polls it until `t` has passed, sleeping `s_sleep 1` between polls while more than
//! [`SLEEP_THRESHOLD_TICKS`] remain, so that no sleep overshoots the end by more than a tick.

use inkwell::values::IntValue;
use inkwell::IntPredicate;

use crate::declare::{call_intrinsic, call_intrinsic_or_void};
use crate::{Site, Unsupported};

/// PTX's longest sleep.
const MAXIMUM_NANOSECONDS: u64 = 1_000_000;
/// Nanoseconds per tick of the 100 MHz counter.
const NANOSECONDS_PER_TICK: u64 = 10;
/// `s_sleep 1` lasts 64 shader clocks, under 160 ns at any clock above 400 MHz; closer to the
/// end than that, the thread polls without sleeping.
const SLEEP_THRESHOLD_TICKS: u64 = 16;

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("`nanosleep` ({error})") }
}

/// Waits `nanoseconds` (an i32, taken as unsigned and bounded by a millisecond).
pub fn sleep<'ctx>(site: &Site<'_, 'ctx>, nanoseconds: IntValue<'ctx>) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i64_type = context.i64_type();
    let wide = builder.build_int_z_extend(nanoseconds, i64_type, "").map_err(failed)?;
    let maximum = i64_type.const_int(MAXIMUM_NANOSECONDS, false);
    let within = builder.build_int_compare(IntPredicate::ULT, wide, maximum, "").map_err(failed)?;
    let bounded = builder.build_select(within, wide, maximum, "").map_err(failed)?.into_int_value();
    let ticks = builder
        .build_int_unsigned_div(bounded, i64_type.const_int(NANOSECONDS_PER_TICK, false), "sleep.ticks")
        .map_err(failed)?;
    let start = call_intrinsic(site, "llvm.readsteadycounter", &[], &[])?.into_int_value();

    let function = site.function;
    let poll = context.append_basic_block(function, "sleep.poll");
    let pause = context.append_basic_block(function, "sleep.pause");
    let done = context.append_basic_block(function, "sleep.done");
    builder.build_unconditional_branch(poll).map_err(failed)?;
    builder.position_at_end(poll);
    let now = call_intrinsic(site, "llvm.readsteadycounter", &[], &[])?.into_int_value();
    let elapsed = builder.build_int_sub(now, start, "sleep.elapsed").map_err(failed)?;
    let finished = builder.build_int_compare(IntPredicate::UGE, elapsed, ticks, "").map_err(failed)?;
    builder.build_conditional_branch(finished, done, pause).map_err(failed)?;
    builder.position_at_end(pause);
    let remaining = builder.build_int_sub(ticks, elapsed, "").map_err(failed)?;
    let threshold = i64_type.const_int(SLEEP_THRESHOLD_TICKS, false);
    let far = builder.build_int_compare(IntPredicate::UGE, remaining, threshold, "").map_err(failed)?;
    let sleep_block = context.append_basic_block(function, "sleep.sleep");
    builder.build_conditional_branch(far, sleep_block, poll).map_err(failed)?;
    builder.position_at_end(sleep_block);
    call_intrinsic_or_void(site, "llvm.amdgcn.s.sleep", &[context.i32_type().const_int(1, false).into()])?;
    builder.build_unconditional_branch(poll).map_err(failed)?;
    builder.position_at_end(done);
    Ok(())
}

/// `%globaltimer`: nanoseconds on the same constant-rate counter (i64), whose origin is the
/// GPU's, not the Unix epoch: PTX only promises a nanosecond timer.
pub fn nanoseconds<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let ticks = call_intrinsic(site, "llvm.readsteadycounter", &[], &[])?.into_int_value();
    let per_tick = site.context.i64_type().const_int(NANOSECONDS_PER_TICK, false);
    site.builder
        .build_int_mul(ticks, per_tick, "globaltimer")
        .map_err(|error| Unsupported { what: format!("`%globaltimer` ({error})") })
}
