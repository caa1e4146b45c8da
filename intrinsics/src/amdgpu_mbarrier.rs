//! `mbarrier` on AMDGPU: the object is atomics at workgroup scope in LDS (or wherever a generic
//! address points), `test_wait` one acquiring load. `try_wait` polls the object a bounded
//! number of times, sleeping between polls, and answers false when the phase is still
//! incomplete, as PTX allows after a time limit: the program's own loop then tries again.
//!
//! Waiting works while the arrivals that a wait needs come from other waves, or from lanes of
//! the waiting wave that arrived before it waits. A lane that waits for an arrival that a lane
//! of its own wave makes later in divergent code never sees it: the wave runs one side of the
//! branch at a time, and PTX's independent thread scheduling has no AMD equivalent. Lowering
//! warns about this (W0903).

use inkwell::values::IntValue;
use ptxr_frontend::ir::MbarrierWait;

use crate::declare::call_intrinsic_or_void;
use crate::mbarrier::{Mbarrier, ObjectInMemory};
use crate::{Site, Unsupported};

const OBJECT: ObjectInMemory<'static> = ObjectInMemory { scope: "workgroup" };

/// Polls of `try_wait` before it answers false.
const TRY_WAIT_POLLS: u64 = 64;

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("`mbarrier.try_wait` ({error})") }
}

pub fn lower<'ctx>(site: &Site<'_, 'ctx>, operation: &Mbarrier<'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    let Mbarrier::TestWait { object, wait: MbarrierWait::Try, parity, phase, .. } = operation else {
        return OBJECT.lower(site, operation);
    };
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let entry = builder.get_insert_block().ok_or_else(|| Unsupported { what: "an unpositioned builder".into() })?;
    let poll = context.append_basic_block(site.function, "mbarrier.poll");
    let sleep = context.append_basic_block(site.function, "mbarrier.sleep");
    let done = context.append_basic_block(site.function, "mbarrier.polled");
    builder.build_unconditional_branch(poll).map_err(failed)?;
    builder.position_at_end(poll);
    let polls = builder.build_phi(i32_type, "mbarrier.polls").map_err(failed)?;
    let complete = OBJECT.is_complete(site, *object, *parity, *phase)?;
    let poll_end = builder.get_insert_block().unwrap_or(poll);
    builder.build_conditional_branch(complete, done, sleep).map_err(failed)?;
    builder.position_at_end(sleep);
    call_intrinsic_or_void(site, "llvm.amdgcn.s.sleep", &[i32_type.const_int(1, false).into()])?;
    let count = polls.as_basic_value().into_int_value();
    let next = builder.build_int_add(count, i32_type.const_int(1, false), "").map_err(failed)?;
    let more = builder
        .build_int_compare(inkwell::IntPredicate::ULT, next, i32_type.const_int(TRY_WAIT_POLLS, false), "")
        .map_err(failed)?;
    builder.build_conditional_branch(more, poll, done).map_err(failed)?;
    polls.add_incoming(&[(&i32_type.const_zero(), entry), (&next, sleep)]);
    builder.position_at_end(done);
    let result = builder.build_phi(context.bool_type(), "mbarrier.complete").map_err(failed)?;
    result.add_incoming(&[(&complete, poll_end), (&context.bool_type().const_zero(), sleep)]);
    Ok(Some(result.as_basic_value().into_int_value()))
}
