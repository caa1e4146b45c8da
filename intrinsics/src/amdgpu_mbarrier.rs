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
use crate::mbarrier::{poll_try_wait, Mbarrier, ObjectInMemory};
use crate::{Site, Unsupported};

const OBJECT: ObjectInMemory<'static> = ObjectInMemory { scope: "workgroup" };

/// Polls of `try_wait` before it answers false.
const TRY_WAIT_POLLS: u64 = 64;

pub fn lower<'ctx>(site: &Site<'_, 'ctx>, operation: &Mbarrier<'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    let Mbarrier::TestWait { object, wait: MbarrierWait::Try, parity, phase, .. } = operation else {
        return OBJECT.lower(site, operation);
    };
    let sleep = |site: &Site<'_, 'ctx>| {
        call_intrinsic_or_void(site, "llvm.amdgcn.s.sleep", &[site.context.i32_type().const_int(1, false).into()])
            .map(|_| ())
    };
    poll_try_wait(&OBJECT, site, *object, *parity, *phase, TRY_WAIT_POLLS, &sleep).map(Some)
}
