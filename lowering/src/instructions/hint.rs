//! `brkpt`, `pmevent`, `discard`, `applypriority`, `griddepcontrol`: the target lowers each as
//! far as it has the machinery (see `Target::hint`); the address of `discard` and
//! `applypriority` is evaluated as a generic pointer.

use ptxr_frontend::ir::{GuardedInstruction, Hint};
use ptxr_frontend::vocabulary::StateSpace;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

pub fn hint(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction, hint: &Hint) -> LoweringResult<()> {
    let line = match hint {
        Hint::DiscardL2 { address } | Hint::ApplyPriorityL2 { address } => {
            Some(lowering.address(address, StateSpace::Generic)?)
        }
        _ => None,
    };
    lowering
        .shared
        .target
        .hint(&lowering.site(), hint, line)
        .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span))
}
