//! `mbarrier` on SPIR-V (OpenCL): the object is the shared 64-bit object of
//! [`crate::mbarrier::ObjectInMemory`], updated with OpenCL atomics at work-group scope
//! (acquire-release arrivals, acquiring tests), in the `.shared` memory (OpenCL's local memory)
//! or wherever a generic address points. `test_wait` is one acquiring load; `try_wait` polls the
//! object a bounded number of times and then answers false, as PTX allows after a time limit.
//! OpenCL has no sleep, so the polls follow each other at once.
//!
//! Every test is exact. What OpenCL does not promise is forward progress between the
//! work-items of a group: a work-item that loops on a failed test until another one arrives
//! may never let that one run. Intel's CPU runtime runs a work-group's sub-groups one after
//! another between barriers, so such a loop ends only when the arrivals it waits for come from
//! sub-groups that run before it (lower ids) or from its own sub-group before the loop;
//! lowering warns about this (W0904) and docs/TARGETS.md has the measurements.

use inkwell::values::IntValue;
use ptxr_frontend::ir::MbarrierWait;

use crate::mbarrier::{poll_try_wait, Mbarrier, ObjectInMemory};
use crate::{Site, Unsupported};

const OBJECT: ObjectInMemory<'static> = ObjectInMemory { scope: "workgroup" };

/// Polls of `try_wait` before it answers false.
const TRY_WAIT_POLLS: u64 = 64;

pub fn lower<'ctx>(site: &Site<'_, 'ctx>, operation: &Mbarrier<'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    let Mbarrier::TestWait { object, wait: MbarrierWait::Try, parity, phase, .. } = operation else {
        return OBJECT.lower(site, operation);
    };
    let no_pause = |_: &Site<'_, 'ctx>| Ok(());
    poll_try_wait(&OBJECT, site, *object, *parity, *phase, TRY_WAIT_POLLS, &no_pause).map(Some)
}
