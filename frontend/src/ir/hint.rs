//! Instructions that change no value a program reads: they talk to a debugger, a profiler, the
//! L2 cache or the launcher of dependent grids, and each target lowers them as far as it can.

use super::Address;

/// `brkpt`, `pmevent`, `discard`, `applypriority` and `griddepcontrol`.
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// `brkpt`: suspends execution for an attached debugger.
    Breakpoint,
    /// `pmevent a` and `pmevent.mask a`: raises the performance-monitor events in `mask` (one bit
    /// per event 0..15; `pmevent a` is the mask `1 << a`).
    PerformanceEvents { mask: u16 },
    /// `discard.global.L2 [a], 128`: the 128 bytes at `a` leave the L2 cache without being
    /// written back, so their contents become undefined; keeping them is one of the allowed
    /// outcomes.
    DiscardL2 { address: Address },
    /// `applypriority.global.L2::evict_normal [a], 128`: the eviction priority of the 128 bytes
    /// at `a` in the L2 cache.
    ApplyPriorityL2 { address: Address },
    /// `griddepcontrol.launch_dependents`: the grids that depend on this one may be scheduled.
    LaunchDependents,
    /// `griddepcontrol.wait`: waits for the prerequisite grids and their memory operations.
    WaitForPrerequisiteGrids,
}
