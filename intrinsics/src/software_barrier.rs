//! `bar.arrive a, b` and `bar.sync a, b` (a thread count) as software barriers in the block's
//! shared memory, for the GPU targets whose only hardware barrier takes the whole block
//! (AMDGPU's `s_barrier`, OpenCL's `barrier`). ISA 7.8 section 9.7.12.1.
//!
//! Each barrier number has `{count, generation}` in shared memory (AMDGPU's LDS, OpenCL's local
//! memory: address space 3 on both), zeroed at kernel entry by the block's first work-item
//! before a block barrier ([`reset_counted_barriers`]). Barriers count warps, as PTX says, so
//! the lanes of each arriving warp add 32 to the count between them (each lane adds its part,
//! [`BarrierPrimitives::arrival`], so that its earlier memory accesses are released by an
//! atomic of its own); the arrival whose add reaches `b` takes the count back down and bumps
//! the generation, and `bar.sync` polls until the generation moves on from the one it read
//! before arriving.
//!
//! The scheme is exact under the memory model (release on arrival, acquire on the arrival that
//! completes and after the wait), but the polling needs the arriving threads to run while the
//! waiting ones poll: the targets say when that can fail (`amdgpu_barrier.rs`,
//! `spirv_barrier.rs`).

use inkwell::module::Linkage;
use inkwell::values::{BasicValue, FunctionValue, GlobalValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::MemoryOrdering;

use crate::atomics::{order_access, read_modify_write, ReadModifyWrite};
use crate::{Site, Unsupported};

/// The block's shared memory on AMDGPU (LDS) and SPIR-V (Workgroup).
const SHARED_ADDRESS_SPACE: u16 = 3;
/// PTX's barrier numbers, 0 to 15.
pub const BARRIERS: u32 = 16;
/// Each barrier number's `{count, generation}`.
const COUNTED_BARRIERS: &str = "ptxr.barrier.counted";
/// The function that zeroes [`COUNTED_BARRIERS`] at kernel entry.
const RESET_FUNCTION: &str = "ptxr.barrier.reset";
/// The threads a warp's arrival counts for.
pub const WARP_SIZE: u64 = 32;

/// What a target gives the software barrier.
pub trait BarrierPrimitives<'ctx> {
    /// What this work-item adds to a barrier's count (i32): the lanes of a PTX warp that
    /// arrive together add up to 32.
    fn arrival(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported>;
    /// Whether this work-item is the block's first, thread (0, 0, 0) (i1).
    fn is_first_work_item(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported>;
    /// `bar.sync` of the whole block, ordering shared and global memory.
    fn block_barrier(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported>;
    /// What a polling work-item does between polls (a sleep, or nothing).
    fn pause(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported>;
    /// The target's calling convention for the module's own functions.
    fn calling_convention(&self) -> u32;
}

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("a software barrier ({error})") }
}

/// An internal array of `words` i32s in shared memory, made on first use.
pub fn shared_words<'ctx>(site: &Site<'_, 'ctx>, name: &str, words: u32) -> GlobalValue<'ctx> {
    if let Some(global) = site.module.get_global(name) {
        return global;
    }
    let array_type = site.context.i32_type().array_type(words);
    let global = site.module.add_global(array_type, Some(AddressSpace::from(SHARED_ADDRESS_SPACE)), name);
    // Shared memory cannot be initialised (the reset, or the reader, copes with what it holds).
    global.set_initializer(&array_type.get_undef());
    global.set_linkage(Linkage::Internal);
    global.set_alignment(8);
    global
}

/// The address of word `index` of `global`, an array of `words` i32s.
pub fn word<'ctx>(
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
pub fn barrier_index<'ctx>(site: &Site<'_, 'ctx>, number: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    site.builder
        .build_and(number, site.context.i32_type().const_int(u64::from(BARRIERS - 1), false), "")
        .map_err(failed)
}

/// An atomic i32 load at work-group scope.
pub fn load_atomic<'ctx>(
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

/// `bar.arrive a, b` (`wait` false) or `bar.sync a, b` (`wait` true) on the software barrier of
/// barrier number `a` (see the module's documentation).
pub fn counted<'ctx>(
    site: &Site<'_, 'ctx>,
    primitives: &dyn BarrierPrimitives<'ctx>,
    number: IntValue<'ctx>,
    expected: IntValue<'ctx>,
    wait: bool,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let state = shared_words(site, COUNTED_BARRIERS, 2 * BARRIERS);
    let index = barrier_index(site, number)?;
    let count_index = builder.build_int_mul(index, i32_type.const_int(2, false), "").map_err(failed)?;
    let generation_index = builder.build_int_add(count_index, i32_type.const_int(1, false), "").map_err(failed)?;
    let count = word(site, state, 2 * BARRIERS, count_index)?;
    let generation_pointer = word(site, state, 2 * BARRIERS, generation_index)?;

    // The generation this arrival belongs to, read before arriving: it cannot move on without
    // this warp's arrival.
    let generation = load_atomic(site, generation_pointer, MemoryOrdering::Relaxed, "barrier.generation")?;
    let contribution = primitives.arrival(site)?;
    // Release: this lane's accesses before `bar.arrive`/`bar.sync` happen before the barrier
    // completes; acquire: the last arriver sees every earlier arrival's.
    let old = read_modify_write(
        site,
        ReadModifyWrite::Add,
        count,
        contribution.into(),
        MemoryOrdering::AcquireRelease,
        "workgroup",
        4,
    )?
    .into_int_value();
    let new = builder.build_int_add(old, contribution, "").map_err(failed)?;
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
        let pause_block = context.append_basic_block(function, "barrier.pause");
        builder.build_conditional_branch(moved_on, passed, pause_block).map_err(failed)?;
        builder.position_at_end(pause_block);
        primitives.pause(site)?;
        builder.build_unconditional_branch(wait_block).map_err(failed)?;
        builder.position_at_end(passed);
        crate::atomics::fence(site, MemoryOrdering::Acquire, "workgroup")?;
    }
    Ok(())
}

/// Zeroes every counted barrier at the start of `site.function`, a kernel: the first work-item
/// clears them, then the block meets at its barrier. It is a call of one internal function,
/// placed after the entry block's allocas, so that they stay in the entry block.
pub fn reset_counted_barriers<'ctx>(
    site: &Site<'_, 'ctx>,
    primitives: &dyn BarrierPrimitives<'ctx>,
) -> Result<(), Unsupported> {
    let context = site.context;
    let reset = match site.module.get_function(RESET_FUNCTION) {
        Some(reset) => reset,
        None => reset_function(site, primitives)?,
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
    let call = builder.build_call(reset, &[], "").map_err(failed)?;
    call.set_call_convention(primitives.calling_convention());
    Ok(())
}

fn reset_function<'ctx>(
    site: &Site<'_, 'ctx>,
    primitives: &dyn BarrierPrimitives<'ctx>,
) -> Result<FunctionValue<'ctx>, Unsupported> {
    let context = site.context;
    let reset =
        site.module.add_function(RESET_FUNCTION, context.void_type().fn_type(&[], false), Some(Linkage::Internal));
    reset.set_call_conventions(primitives.calling_convention());
    // It holds the block's barrier: the optimiser must keep its calls where they are.
    crate::declare::mark_convergent(reset);
    let builder = context.create_builder();
    let inner = Site { context, module: site.module, builder: &builder, function: reset, launch_arguments: None };
    let entry = context.append_basic_block(reset, "entry");
    let clear = context.append_basic_block(reset, "clear");
    let meet = context.append_basic_block(reset, "meet");
    builder.position_at_end(entry);
    let first = primitives.is_first_work_item(&inner)?;
    builder.build_conditional_branch(first, clear, meet).map_err(failed)?;
    builder.position_at_end(clear);
    let state = shared_words(&inner, COUNTED_BARRIERS, 2 * BARRIERS);
    let array_type = context.i32_type().array_type(2 * BARRIERS);
    let store = builder.build_store(state.as_pointer_value(), array_type.const_zero()).map_err(failed)?;
    store.set_alignment(8).map_err(|error| Unsupported { what: format!("a barrier store ({error})") })?;
    builder.build_unconditional_branch(meet).map_err(failed)?;
    builder.position_at_end(meet);
    primitives.block_barrier(&inner)?;
    builder.build_return(None).map_err(failed)?;
    Ok(reset)
}
