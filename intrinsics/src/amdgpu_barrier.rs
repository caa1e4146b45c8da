//! PTX's barriers on AMDGPU (ISA 7.8 section 9.7.12.1). A work-group has one hardware barrier,
//! `s_barrier`, which waits for every wave of the group; that is `bar.sync` of the whole block.
//! The other forms are built on it or on counters in LDS:
//!
//! - `bar.red` of the whole block: each thread reads the barrier number's reduction counter,
//!   meets the others at a block barrier, adds its predicate (`.popc`, `.or`) or its negation
//!   (`.and`) atomically, meets them again and reads the counter once more. The difference is
//!   the reduction: every add of this `bar.red` falls between the two barriers, and every read
//!   outside them, so the counter never needs a reset (LDS starts undefined).
//! - `bar.arrive a, b` and `bar.sync a, b` (a thread count): the software barrier per barrier
//!   number of `software_barrier.rs`, in LDS, waiting with `s_sleep`. A work-group's waves are
//!   resident together, so waiting waves do not hold the others up.
//!
//! On wave64 processors (gfx9) two PTX warps share a wave: if they take different branches to
//! different counted barriers and the waiting one runs first, the wave waits for itself. Code
//! that gives the warps of one wave different roles at counted barriers needs a wave32
//! processor (gfx10 and later); docs/TARGETS.md says so.

use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{BarrierOperation, MemoryOrdering};

use crate::atomics::{fence, read_modify_write, ReadModifyWrite};
use crate::declare::{call_intrinsic, call_intrinsic_or_void};
use crate::software_barrier::{self, barrier_index, load_atomic, shared_words, word, BarrierPrimitives, BARRIERS};
use crate::{Barrier, Site, Unsupported};

/// Each barrier number's reduction counter (`bar.red`).
const REDUCTION_COUNTERS: &str = "ptxr.barrier.reductions";

/// What the software barrier needs of AMDGPU: waves, `s_sleep`, `s_barrier`.
struct Lds;

impl<'ctx> BarrierPrimitives<'ctx> for Lds {
    fn arrival(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        // The first active lane counts for the warp, the others add 0.
        let i32_type = site.context.i32_type();
        let leader = crate::amdgpu_warp::is_first_active_lane(site)?;
        let warp = i32_type.const_int(software_barrier::WARP_SIZE, false);
        site.builder
            .build_select(leader, warp, i32_type.const_zero(), "arrival")
            .map(|value| value.into_int_value())
            .map_err(failed)
    }

    fn is_first_work_item(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        let i32_type = site.context.i32_type();
        let mut any = i32_type.const_zero();
        for dimension in ["x", "y", "z"] {
            let id = call_intrinsic(site, &format!("llvm.amdgcn.workitem.id.{dimension}"), &[], &[])?;
            any = site.builder.build_or(any, id.into_int_value(), "").map_err(failed)?;
        }
        site.builder.build_int_compare(IntPredicate::EQ, any, i32_type.const_zero(), "first").map_err(failed)
    }

    fn block_barrier(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        block_barrier(site)
    }

    fn pause(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        call_intrinsic_or_void(site, "llvm.amdgcn.s.sleep", &[site.context.i32_type().const_int(1, false).into()])
            .map(|_| ())
    }

    fn calling_convention(&self) -> u32 {
        0
    }
}

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("a barrier on AMDGPU ({error})") }
}

/// Lowers one barrier; returns the reduction's result for `bar.red`.
pub fn barrier<'ctx>(site: &Site<'_, 'ctx>, barrier: &Barrier<'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
    match (barrier.operation, barrier.thread_count) {
        (BarrierOperation::Sync, None) => {
            block_barrier(site)?;
            Ok(None)
        }
        (BarrierOperation::Sync, Some(count)) => {
            software_barrier::counted(site, &Lds, barrier.barrier, count, true)?;
            Ok(None)
        }
        (BarrierOperation::Arrive, Some(count)) => {
            software_barrier::counted(site, &Lds, barrier.barrier, count, false)?;
            Ok(None)
        }
        (BarrierOperation::Arrive, None) => Err(Unsupported { what: "`bar.arrive` without a thread count".into() }),
        (_, Some(_)) => Err(Unsupported {
            what: "`bar.red` with a thread count (only the whole block's reduction is lowered)".into(),
        }),
        (operation, None) => reduction(site, operation, barrier.barrier, barrier.predicate).map(Some),
    }
}

/// `bar.sync` of the whole block: `s_barrier` only synchronises execution; the fences make the
/// block's shared and global writes before it visible to the block after it.
pub fn block_barrier(site: &Site<'_, '_>) -> Result<(), Unsupported> {
    fence(site, MemoryOrdering::Release, "workgroup")?;
    call_intrinsic_or_void(site, "llvm.amdgcn.s.barrier", &[])?;
    fence(site, MemoryOrdering::Acquire, "workgroup")?;
    Ok(())
}

/// `bar.red.popc`, `.and`, `.or` of the whole block, by the difference of a counter read before
/// and after two block barriers (see the module's documentation).
fn reduction<'ctx>(
    site: &Site<'_, 'ctx>,
    operation: BarrierOperation,
    number: IntValue<'ctx>,
    predicate: Option<IntValue<'ctx>>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let predicate = predicate.ok_or_else(|| Unsupported { what: "`bar.red` without its predicate".into() })?;
    let counters = shared_words(site, REDUCTION_COUNTERS, BARRIERS);
    let counter = word(site, counters, BARRIERS, barrier_index(site, number)?)?;
    let before = load_atomic(site, counter, MemoryOrdering::Relaxed, "reduction.before")?;
    block_barrier(site)?;
    // `.and` counts the threads whose predicate is false: none means all true.
    let counted = if operation == BarrierOperation::ReduceAnd {
        builder.build_not(predicate, "").map_err(failed)?
    } else {
        predicate
    };
    let contribution = builder.build_int_z_extend(counted, i32_type, "").map_err(failed)?;
    read_modify_write(
        site,
        ReadModifyWrite::Add,
        counter,
        contribution.into(),
        MemoryOrdering::Relaxed,
        "workgroup",
        4,
    )?;
    block_barrier(site)?;
    let after = load_atomic(site, counter, MemoryOrdering::Relaxed, "reduction.after")?;
    let total = builder.build_int_sub(after, before, "reduction").map_err(failed)?;
    match operation {
        BarrierOperation::ReducePopulationCount => Ok(total),
        BarrierOperation::ReduceAnd => {
            builder.build_int_compare(IntPredicate::EQ, total, i32_type.const_zero(), "").map_err(failed)
        }
        BarrierOperation::ReduceOr | BarrierOperation::Sync | BarrierOperation::Arrive => {
            builder.build_int_compare(IntPredicate::NE, total, i32_type.const_zero(), "").map_err(failed)
        }
    }
}

/// Zeroes every counted barrier at the start of `site.function`, a kernel, if the module has
/// counted barriers (`software_barrier::reset_counted_barriers`).
pub fn reset_counted_barriers(site: &Site<'_, '_>) -> Result<(), Unsupported> {
    software_barrier::reset_counted_barriers(site, &Lds)
}
