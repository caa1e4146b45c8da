//! Warnings about how a module will behave on the processor it is compiled for: the module is
//! valid PTX and lowers, but some of its code can misbehave there. They travel with the
//! artefact (`pipeline::Compiled`), so a warning never fails a compilation.

use inkwell::targets::TargetMachine;
use ptxr_frontend::{ir, Code, Diagnostic};
use ptxr_intrinsics::Target;

use crate::module::{first_counted_barrier, first_mbarrier_wait};

/// Every warning for `ptx` (checked from `source`) compiled by `machine` for `target`.
pub fn target_warnings(
    ptx: &ir::Module,
    source: &str,
    target: &dyn Target,
    machine: &TargetMachine,
) -> Vec<Diagnostic> {
    let processor = machine.get_cpu().to_string_lossy().into_owned();
    let features = machine.get_feature_string().to_string_lossy().into_owned();
    let mut warnings = Vec::new();
    if let Some(barrier) = first_counted_barrier(ptx) {
        if target.counted_barriers_may_hang(&processor, &features) {
            warnings.push(counted_barriers_may_hang(barrier, source, &processor));
        }
        if target.polling_waits_may_hang() {
            warnings.push(counted_barriers_without_forward_progress(barrier, source));
        }
    }
    if let Some(wait) = first_mbarrier_wait(ptx) {
        if target.mbarrier_waits_may_hang() {
            warnings.push(mbarrier_waits_may_hang(wait, source, &processor));
        }
        if target.polling_waits_may_hang() {
            warnings.push(mbarrier_waits_without_forward_progress(wait, source));
        }
    }
    warnings
}

/// W0902, at the module's first counted barrier: the warning is about the module, once.
fn counted_barriers_may_hang(barrier: &ir::GuardedInstruction, source: &str, processor: &str) -> Diagnostic {
    Diagnostic::warning(Code::CountedBarriersOnWave64, format!("counted barriers may hang on wave64 ({processor})"))
        .with_primary(
            barrier.span,
            format!("`{}` is a software barrier on {processor}", ir::instruction_spelling(source, barrier.spelling)),
        )
        .with_note(format!(
            "{processor} runs waves of 64 lanes, each holding two PTX warps; if the two warps of a wave \
             go to different counted barriers (`bar.arrive`, `bar.sync a, b`), the wave waits in one \
             warp's barrier while the other warp can never arrive"
        ))
        .with_help(
            "compile for a wave32 processor (gfx10 or later, such as `--arch gfx1100`), or keep both \
             warps of each wave (warps 2k and 2k+1) on the same barrier",
        )
}

/// W0903, at the module's first `mbarrier` wait, once.
fn mbarrier_waits_may_hang(wait: &ir::GuardedInstruction, source: &str, processor: &str) -> Diagnostic {
    Diagnostic::warning(
        Code::MbarrierWaitsInWaves,
        format!("mbarrier waits may hang on {processor} when threads of one wave wait for each other"),
    )
    .with_primary(
        wait.span,
        format!("`{}` polls the object on {processor}", ir::instruction_spelling(source, wait.spelling)),
    )
    .with_note(
        "a wave runs one side of a divergent branch at a time: a thread that waits for an arrival \
         that a thread of its own wave (a PTX warp, or two on wave64) makes later in divergent code \
         keeps polling, while PTX's independent thread scheduling would run the arrival",
    )
    .with_help(
        "arrive before waiting in every thread, or let the waiting and arriving threads belong to different warps",
    )
}

/// W0904, at the module's first counted barrier, once, where work-items of a group need not
/// let each other run (SPIR-V).
fn counted_barriers_without_forward_progress(barrier: &ir::GuardedInstruction, source: &str) -> Diagnostic {
    Diagnostic::warning(Code::WaitsWithoutForwardProgress, "counted barriers of part of the block may hang on SPIR-V")
        .with_primary(
            barrier.span,
            format!(
                "`{}` uses a software barrier in a module with `bar.arrive`, or where its count is not the block's",
                ir::instruction_spelling(source, barrier.spelling)
            ),
        )
        .with_note(
            "`bar.sync a, b` of part of the block (any counted `bar.sync` in a module with `bar.arrive`) \
         polls a counter in shared memory until `b` threads have arrived; OpenCL promises no forward \
         progress between the work-items of a work-group, and Intel's CPU runtime runs them one after \
         another between barriers, so there it ends only when every other arrival comes from a \
         work-item with a lower id",
        )
        .with_help(
            "give the barrier the block's thread count, or let the arriving (`bar.arrive`) warps have \
         lower thread ids than the one waiting thread",
        )
}

/// W0904, at the module's first `mbarrier` wait, once, where work-items of a group need not
/// let each other run (SPIR-V).
fn mbarrier_waits_without_forward_progress(wait: &ir::GuardedInstruction, source: &str) -> Diagnostic {
    Diagnostic::warning(
        Code::WaitsWithoutForwardProgress,
        "mbarrier waits may hang on SPIR-V when a work-item loops until others arrive",
    )
    .with_primary(
        wait.span,
        format!(
            "`{}` polls the object, which lets no other work-item run",
            ir::instruction_spelling(source, wait.spelling)
        ),
    )
    .with_note(
        "OpenCL promises no forward progress between the work-items of a work-group: Intel's CPU \
         runtime runs them one after another between barriers, so a loop on a failed test ends \
         only when every arrival it waits for comes from a work-item with a lower id",
    )
    .with_help(
        "arrive, then meet at `bar.sync`, then test: a test after a barrier that the arrivals \
         precede needs no loop",
    )
}
