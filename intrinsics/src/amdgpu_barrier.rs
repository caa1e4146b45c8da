//! PTX's barriers on AMDGPU (ISA 7.8 section 9.7.12.1). A work-group has one hardware barrier,
//! `s_barrier`, which waits for every wave of the group; that is `bar.sync` of the whole block.
//! The other forms are built on it or on counters in LDS:
//!
//! - `bar.red` of the whole block: each thread reads the barrier number's reduction counter,
//!   meets the others at a block barrier, adds its predicate (`.popc`, `.or`) or its negation
//!   (`.and`) atomically, meets them again and reads the counter once more. The difference is
//!   the reduction: every add of this `bar.red` falls between the two barriers, and every read
//!   outside them, so the counter never needs a reset (LDS starts undefined).
//! - `bar.arrive a, b` and `bar.sync a, b` (a thread count): a software barrier per barrier
//!   number, `{count, generation}` in LDS, zeroed at kernel entry by the first work-item before
//!   a block barrier (`reset_counted_barriers`). Barriers work per warp, as PTX says, so each
//!   arriving warp adds 32 to the count (its first active lane; the other lanes add 0, so that
//!   each lane's earlier memory accesses are released by an atomic of its own); the warp whose
//!   add reaches `b` takes the count back down and bumps the generation, and `bar.sync` waits
//!   (`s_sleep`) until the generation moves on from the one it read before arriving. A work-
//!   group's waves are resident together, so waiting waves do not hold the others up.
//!
//! On wave64 processors (gfx9) two PTX warps share a wave: if they take different branches to
//! different counted barriers and the waiting one runs first, the wave waits for itself. Code
//! that gives the warps of one wave different roles at counted barriers needs a wave32
//! processor (gfx10 and later); docs/TARGETS.md says so.

use inkwell::module::Linkage;
use inkwell::values::{BasicValue, GlobalValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::{BarrierOperation, MemoryOrdering};

use crate::atomics::{fence, order_access, read_modify_write, ReadModifyWrite};
use crate::declare::{call_intrinsic, call_intrinsic_or_void};
use crate::{Barrier, Site, Unsupported};

/// LDS (the shared state space).
const LDS: u16 = 3;
/// PTX's barrier numbers, 0 to 15.
const BARRIERS: u32 = 16;
/// Each barrier number's reduction counter (`bar.red`).
const REDUCTION_COUNTERS: &str = "ptxr.barrier.reductions";
/// Each barrier number's `{count, generation}` (counted barriers and `bar.arrive`).
const COUNTED_BARRIERS: &str = "ptxr.barrier.counted";
/// The function that zeroes [`COUNTED_BARRIERS`] at kernel entry.
const RESET_FUNCTION: &str = "ptxr.barrier.reset";
/// The threads a warp's arrival counts for.
const WARP_SIZE: u64 = 32;

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
            counted(site, barrier.barrier, count, true)?;
            Ok(None)
        }
        (BarrierOperation::Arrive, Some(count)) => {
            counted(site, barrier.barrier, count, false)?;
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

/// An internal LDS array of `words` i32s, made on first use.
fn lds_words<'ctx>(site: &Site<'_, 'ctx>, name: &str, words: u32) -> GlobalValue<'ctx> {
    if let Some(global) = site.module.get_global(name) {
        return global;
    }
    let array_type = site.context.i32_type().array_type(words);
    let global = site.module.add_global(array_type, Some(AddressSpace::from(LDS)), name);
    // LDS cannot be initialised (the reset or the differences cope with whatever it holds).
    global.set_initializer(&array_type.get_undef());
    global.set_linkage(Linkage::Internal);
    global.set_alignment(8);
    global
}

/// The address of word `index` of `global`.
fn word<'ctx>(
    site: &Site<'_, 'ctx>,
    global: GlobalValue<'ctx>,
    words: u32,
    index: IntValue<'ctx>,
) -> Result<PointerValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let array_type = i32_type.array_type(words);
    // SAFETY: `index` is masked to the array by the callers.
    unsafe {
        site.builder.build_in_bounds_gep(array_type, global.as_pointer_value(), &[i32_type.const_zero(), index], "")
    }
    .map_err(failed)
}

/// The barrier number, kept within 0 to 15 (larger ones are undefined in PTX).
fn barrier_index<'ctx>(site: &Site<'_, 'ctx>, number: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    site.builder
        .build_and(number, site.context.i32_type().const_int(u64::from(BARRIERS - 1), false), "")
        .map_err(failed)
}

/// An atomic load at work-group scope.
fn load_atomic<'ctx>(
    site: &Site<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    ordering: MemoryOrdering,
    name: &str,
) -> Result<IntValue<'ctx>, Unsupported> {
    let value = site.builder.build_load(site.context.i32_type(), pointer, name).map_err(failed)?;
    if let Some(instruction) = value.as_instruction_value() {
        instruction.set_alignment(4).map_err(|error| Unsupported { what: format!("a barrier load ({error})") })?;
        order_access(site, instruction, ordering, "workgroup");
    }
    Ok(value.into_int_value())
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
    let counters = lds_words(site, REDUCTION_COUNTERS, BARRIERS);
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

/// `bar.arrive a, b` (`wait` false) or `bar.sync a, b` (`wait` true) on the software barrier of
/// barrier number `a` (see the module's documentation).
fn counted<'ctx>(
    site: &Site<'_, 'ctx>,
    number: IntValue<'ctx>,
    expected: IntValue<'ctx>,
    wait: bool,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let state = lds_words(site, COUNTED_BARRIERS, 2 * BARRIERS);
    let index = barrier_index(site, number)?;
    let count_index = builder.build_int_mul(index, i32_type.const_int(2, false), "").map_err(failed)?;
    let generation_index = builder.build_int_add(count_index, i32_type.const_int(1, false), "").map_err(failed)?;
    let count = word(site, state, 2 * BARRIERS, count_index)?;
    let generation_pointer = word(site, state, 2 * BARRIERS, generation_index)?;

    // The generation this arrival belongs to, read before arriving: it cannot move on without
    // this warp's arrival.
    let generation = load_atomic(site, generation_pointer, MemoryOrdering::Relaxed, "barrier.generation")?;
    let leader = crate::amdgpu_warp::is_first_active_lane(site)?;
    let warp = i32_type.const_int(WARP_SIZE, false);
    let contribution = builder.build_select(leader, warp, i32_type.const_zero(), "arrival").map_err(failed)?;
    // Release: this lane's accesses before `bar.arrive`/`bar.sync` happen before the barrier
    // completes; acquire: the last arriver sees every earlier arrival's.
    let old = read_modify_write(
        site,
        ReadModifyWrite::Add,
        count,
        contribution,
        MemoryOrdering::AcquireRelease,
        "workgroup",
        4,
    )?
    .into_int_value();
    let new = builder.build_int_add(old, contribution.into_int_value(), "").map_err(failed)?;
    let was_short = builder.build_int_compare(IntPredicate::ULT, old, expected, "").map_err(failed)?;
    let reaches = builder.build_int_compare(IntPredicate::UGE, new, expected, "").map_err(failed)?;
    let completes = builder.build_and(was_short, reaches, "barrier.completes").map_err(failed)?;

    let function = site.function;
    let complete_block = context.append_basic_block(function, "barrier.complete");
    let after_complete = context.append_basic_block(function, "barrier.arrived");
    builder.build_conditional_branch(completes, complete_block, after_complete).map_err(failed)?;
    builder.position_at_end(complete_block);
    // Take back what this phase counted (not a plain store: nothing of the next phase is lost),
    // then open the next generation for the waiting threads.
    read_modify_write(
        site,
        ReadModifyWrite::Add,
        count,
        builder.build_int_neg(new, "").map_err(failed)?.into(),
        MemoryOrdering::Relaxed,
        "workgroup",
        4,
    )?;
    let next = builder.build_int_add(generation, i32_type.const_int(1, false), "").map_err(failed)?;
    let store = builder.build_store(generation_pointer, next).map_err(failed)?;
    store.set_alignment(4).map_err(|error| Unsupported { what: format!("a barrier store ({error})") })?;
    order_access(site, store, MemoryOrdering::Release, "workgroup");
    builder.build_unconditional_branch(after_complete).map_err(failed)?;
    builder.position_at_end(after_complete);

    if wait {
        let wait_block = context.append_basic_block(function, "barrier.wait");
        let passed = context.append_basic_block(function, "barrier.passed");
        builder.build_unconditional_branch(wait_block).map_err(failed)?;
        builder.position_at_end(wait_block);
        let current = load_atomic(site, generation_pointer, MemoryOrdering::Acquire, "barrier.current")?;
        let moved_on = builder.build_int_compare(IntPredicate::NE, current, generation, "").map_err(failed)?;
        let sleep_block = context.append_basic_block(function, "barrier.sleep");
        builder.build_conditional_branch(moved_on, passed, sleep_block).map_err(failed)?;
        builder.position_at_end(sleep_block);
        call_intrinsic_or_void(site, "llvm.amdgcn.s.sleep", &[i32_type.const_int(1, false).into()])?;
        builder.build_unconditional_branch(wait_block).map_err(failed)?;
        builder.position_at_end(passed);
        fence(site, MemoryOrdering::Acquire, "workgroup")?;
    }
    Ok(())
}

/// Zeroes every counted barrier at the start of `site.function`, a kernel, if the module has
/// counted barriers: the first work-item clears them, then the block meets at `s_barrier`. It
/// is a call of one internal function, placed after the entry block's allocas, so that they
/// stay in the entry block.
pub fn reset_counted_barriers(site: &Site<'_, '_>) -> Result<(), Unsupported> {
    let context = site.context;
    let void_type = context.void_type();
    let reset = match site.module.get_function(RESET_FUNCTION) {
        Some(reset) => reset,
        None => {
            let reset =
                site.module.add_function(RESET_FUNCTION, void_type.fn_type(&[], false), Some(Linkage::Internal));
            let builder = context.create_builder();
            let inner = Site { context, module: site.module, builder: &builder, function: reset };
            let entry = context.append_basic_block(reset, "entry");
            let clear = context.append_basic_block(reset, "clear");
            let meet = context.append_basic_block(reset, "meet");
            builder.position_at_end(entry);
            let i32_type = context.i32_type();
            let mut any = i32_type.const_zero();
            for dimension in ["x", "y", "z"] {
                let id = call_intrinsic(&inner, &format!("llvm.amdgcn.workitem.id.{dimension}"), &[], &[])?;
                any = builder.build_or(any, id.into_int_value(), "").map_err(failed)?;
            }
            let first =
                builder.build_int_compare(IntPredicate::EQ, any, i32_type.const_zero(), "first").map_err(failed)?;
            builder.build_conditional_branch(first, clear, meet).map_err(failed)?;
            builder.position_at_end(clear);
            let state = lds_words(&inner, COUNTED_BARRIERS, 2 * BARRIERS);
            let array_type = i32_type.array_type(2 * BARRIERS);
            let store = builder.build_store(state.as_pointer_value(), array_type.const_zero()).map_err(failed)?;
            store.set_alignment(8).map_err(|error| Unsupported { what: format!("a barrier store ({error})") })?;
            builder.build_unconditional_branch(meet).map_err(failed)?;
            builder.position_at_end(meet);
            block_barrier(&inner)?;
            builder.build_return(None).map_err(failed)?;
            reset
        }
    };
    let entry =
        site.function.get_first_basic_block().ok_or_else(|| Unsupported { what: "a kernel without a body".into() })?;
    let mut position = entry.get_first_instruction();
    while let Some(instruction) = position {
        if instruction.get_opcode() != inkwell::values::InstructionOpcode::Alloca {
            break;
        }
        position = instruction.get_next_instruction();
    }
    let builder = context.create_builder();
    match position {
        Some(instruction) => builder.position_before(&instruction),
        None => builder.position_at_end(entry),
    }
    builder.build_call(reset, &[], "").map_err(failed)?;
    Ok(())
}
