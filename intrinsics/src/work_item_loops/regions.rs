//! The region function and the block entry of a work-item kernel: loops over the block's
//! threads per region, and the completion of common waits in loops (see the parent module).

use std::collections::HashMap;

use inkwell::attributes::AttributeLoc;
use inkwell::module::Linkage;
use inkwell::values::{AsValueRef, BasicMetadataValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use llvm_sys::core::*;
use ptxr_frontend::vocabulary::Dimension;
use ptxr_runtime::abi::{barrier_operation, block_context_field, runtime_function, warp_collective, work_item_state};

use super::step::StateLayout;
use super::{warps, Completion};
use crate::cpu::llvm_error;
use crate::declare::call_function;
use crate::{KernelParameters, Site, Unsupported};

/// `NAME.regions(params, context, state, current, selected, region)` (see the module
/// documentation).
pub(super) fn region_function<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    parameters: &KernelParameters<'ctx>,
    step: FunctionValue<'ctx>,
    layout: &StateLayout,
    completions: &[Completion],
    warp_chains: bool,
) -> Result<(), Unsupported> {
    let exits = &layout.exits;
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let i8_type = context.i8_type();
    let pointer_type = context.ptr_type(AddressSpace::default());
    let function_type = context.void_type().fn_type(
        &[
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            i32_type.into(),
        ],
        false,
    );
    let function = site.module.add_function(&format!("{name}.regions"), function_type, Some(Linkage::Internal));
    let noalias = inkwell::attributes::Attribute::get_named_enum_kind_id("noalias");
    // The parameter array, the context, `current` and `selected` belong to the runtime: kernel
    // stores never reach them.
    for index in [0, 1, 3, 4] {
        function.add_attribute(AttributeLoc::Param(index), context.create_enum_attribute(noalias, 0));
    }
    let dereferenceable = inkwell::attributes::Attribute::get_named_enum_kind_id("dereferenceable");
    let context_bytes = std::mem::size_of::<ptxr_runtime::abi::BlockContext>() as u64;
    function.add_attribute(AttributeLoc::Param(1), context.create_enum_attribute(dereferenceable, context_bytes));
    let parameter = |index: u32| function.get_nth_param(index).ok_or_else(|| llvm_error("regions"));
    let parameter_array = parameter(0)?.into_pointer_value();
    let context_pointer = parameter(1)?.into_pointer_value();
    let state = parameter(2)?.into_pointer_value();
    let current = parameter(3)?.into_pointer_value();
    let selected = parameter(4)?.into_pointer_value();
    let region = parameter(5)?.into_int_value();
    parameter_array.set_name("params");
    context_pointer.set_name("context");
    state.set_name("state");
    current.set_name("current");
    selected.set_name("selected");
    region.set_name("region");

    let entry = context.append_basic_block(function, "entry");
    builder.position_at_end(entry);
    let region_site = Site { context, module: site.module, builder, function, launch_arguments: None };
    let values = crate::cpu::load_kernel_parameters(&region_site, parameter_array, parameters)?;
    let sizes = [Dimension::X, Dimension::Y, Dimension::Z].map(|dimension| {
        crate::cpu::context_dimension(&region_site, context_pointer, block_context_field::NTID, dimension)
    });
    let [size_x, size_y, size_z] = sizes;
    let sizes = [size_x?, size_y?, size_z?];
    let threads = builder.build_int_mul(sizes[0], sizes[1], "").map_err(llvm_error)?;
    let threads = builder.build_int_mul(threads, sizes[2], "threads").map_err(llvm_error)?;
    let done = context.append_basic_block(function, "done");
    let general = context.append_basic_block(function, "selected");
    let all = context.append_basic_block(function, "all");
    let is_general = builder.build_is_not_null(selected, "").map_err(llvm_error)?;
    builder.build_conditional_branch(is_general, general, all).map_err(llvm_error)?;

    let call_step_on = |region: IntValue<'ctx>,
                        thread: [IntValue<'ctx>; 3],
                        linear: IntValue<'ctx>,
                        record: bool,
                        state: PointerValue<'ctx>,
                        threads: IntValue<'ctx>| {
        let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = vec![
            region.into(),
            context_pointer.into(),
            thread[0].into(),
            thread[1].into(),
            thread[2].into(),
            linear.into(),
            threads.into(),
            state.into(),
        ];
        arguments.extend(values.iter().copied());
        let next = builder
            .build_call(step, &arguments, "next")
            .map_err(llvm_error)?
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| llvm_error("step result"))?;
        if record {
            // SAFETY: `linear` is below the block's thread count, `current`'s length.
            let slot = unsafe { builder.build_in_bounds_gep(i32_type, current, &[linear], "") }.map_err(llvm_error)?;
            builder.build_store(slot, next).map_err(llvm_error)?;
        }
        Ok::<(), Unsupported>(())
    };
    let call_step = |region: IntValue<'ctx>, thread: [IntValue<'ctx>; 3], linear: IntValue<'ctx>, record: bool| {
        call_step_on(region, thread, linear, record, state, threads)
    };
    // The regions that start a warp chain, and the copy of a warp's state they run on (in the
    // entry, before its branch).
    let entry_branch = entry.get_terminator().ok_or_else(|| llvm_error("regions"))?;
    builder.position_before(&entry_branch);
    let bytes = layout.bytes_per_thread * warps::WARP_LANES + layout.bytes_per_block;
    let chains = if warp_chains && layout.relocatable && bytes <= warps::COPY_BYTES_LIMIT {
        warps::chains(exits, completions)
    } else {
        Vec::new()
    };
    let buffer = if chains.is_empty() {
        None
    } else {
        let buffer = builder.build_alloca(i8_type.array_type(bytes.max(1) as u32), "warp.state").map_err(llvm_error)?;
        // SAFETY: `buffer` is an alloca.
        unsafe { LLVMSetAlignment(buffer.as_value_ref(), 64) };
        Some(buffer)
    };
    let whole_warp_rows = {
        let lanes = builder.build_and(sizes[0], i32_type.const_int(31, false), "").map_err(llvm_error)?;
        builder
            .build_int_compare(IntPredicate::EQ, lanes, i32_type.const_zero(), "whole_warp_rows")
            .map_err(llvm_error)?
    };

    // Every thread: one loop nest per region, the region a constant. After each, when every
    // thread waits at the same wait point and the wait completes here, its region follows.
    let dispatch = context.append_basic_block(function, "dispatch");
    builder.position_at_end(all);
    // A region whose paths all reach the same wait point records no `current` per thread: its
    // loop goes to `exit.r`, which completes that wait or fills `current` for the runtime.
    let mut cases = Vec::new();
    let mut single_exits = Vec::new();
    let mut exit_blocks = Vec::new();
    let mut chain_blocks = Vec::new();
    for (index, exit) in exits.iter().enumerate() {
        let block = context.append_basic_block(function, &format!("region.{index}"));
        cases.push((i32_type.const_int(index as u64, false), block));
        builder.position_at_end(block);
        if let Some(chain) = chains.iter().find(|chain| chain.regions[0] == index as u32) {
            let warps = context.append_basic_block(function, &format!("warps.{index}"));
            let loops = context.append_basic_block(function, &format!("threads.{index}"));
            builder.build_conditional_branch(whole_warp_rows, warps, loops).map_err(llvm_error)?;
            chain_blocks.push((chain, warps));
            builder.position_at_end(loops);
        }
        let constant = i32_type.const_int(index as u64, false);
        let after = match exit {
            Some(exit) => {
                let after = context.append_basic_block(function, &format!("exit.{index}"));
                single_exits.push((after, *exit));
                exit_blocks.push(Some(after));
                after
            }
            None => {
                exit_blocks.push(None);
                dispatch
            }
        };
        thread_loops(site, function, sizes, after, |thread, linear| {
            call_step(constant, thread, linear, exit.is_none())
        })?;
    }
    builder.position_at_end(all);
    builder.build_switch(region, done, &cases).map_err(llvm_error)?;
    if let Some(buffer) = buffer {
        let mut fields: Vec<(u64, u64)> = vec![
            (work_item_state::RESULT, 8),
            (work_item_state::A, 8),
            (work_item_state::KIND, 4),
            (work_item_state::MASK, 4),
            (work_item_state::B, 4),
            (work_item_state::C, 4),
        ];
        fields.extend(layout.slots.iter().copied());
        let chain_site = warps::ChainSite {
            site: &region_site,
            function,
            state,
            threads,
            sizes,
            buffer,
            bytes_per_thread: layout.bytes_per_thread,
            bytes_per_block: layout.bytes_per_block,
            fields,
        };
        let lane_step = |region: u32,
                         thread: [IntValue<'ctx>; 3],
                         lane: IntValue<'ctx>,
                         state: PointerValue<'ctx>,
                         lanes: IntValue<'ctx>| {
            call_step_on(i32_type.const_int(u64::from(region), false), thread, lane, false, state, lanes)
        };
        for (chain, block) in chain_blocks {
            let after = match chain.end {
                warps::ChainEnd::Exit(_) => {
                    let last = *chain.regions.last().ok_or_else(|| llvm_error("warp chain"))?;
                    exit_blocks[last as usize].ok_or_else(|| llvm_error("warp chain exit"))?
                }
                warps::ChainEnd::Region(next) => cases[next as usize].1,
            };
            builder.position_at_end(block);
            chain_site.build(chain, completions, exits, &layout.shapes, after, &lane_step)?;
        }
    }
    let fields = StateFields { state, threads };
    let completing = complete_in_loops(site, function, &fields, current, done, dispatch, &cases, completions)?;
    let mut fills: HashMap<u32, inkwell::basic_block::BasicBlock<'ctx>> = HashMap::new();
    for (after, exit) in single_exits {
        builder.position_at_end(after);
        let fill = match fills.get(&exit) {
            Some(&fill) => fill,
            None => {
                // Every thread stopped at `exit`, as the runtime must read.
                let fill = context.append_basic_block(function, &format!("record.{exit}"));
                builder.position_at_end(fill);
                let value = i32_type.const_int(u64::from(exit), false);
                counted_loop(site, function, threads, "record", |thread| {
                    // SAFETY: `thread` is below the thread count, `current`'s length.
                    let slot =
                        unsafe { builder.build_in_bounds_gep(i32_type, current, &[thread], "") }.map_err(llvm_error)?;
                    builder.build_store(slot, value).map_err(llvm_error)?;
                    Ok(())
                })?;
                builder.build_unconditional_branch(done).map_err(llvm_error)?;
                fills.insert(exit, fill);
                builder.position_at_end(after);
                fill
            }
        };
        let completion = completing.get(&exit).copied();
        let needs_whole_warps = exit != work_item_state::DONE
            && matches!(
                completions[exit as usize - 1],
                Completion::Shuffle { .. } | Completion::Vote(_) | Completion::Same(_)
            );
        match completion {
            Some(target) if needs_whole_warps => {
                let lanes = builder.build_and(threads, i32_type.const_int(31, false), "").map_err(llvm_error)?;
                let whole = builder
                    .build_int_compare(IntPredicate::EQ, lanes, i32_type.const_zero(), "")
                    .map_err(llvm_error)?;
                builder.build_conditional_branch(whole, target, fill).map_err(llvm_error)?;
            }
            Some(target) => {
                builder.build_unconditional_branch(target).map_err(llvm_error)?;
            }
            None => {
                builder.build_unconditional_branch(fill).map_err(llvm_error)?;
            }
        }
    }

    // The selected threads: one loop, the region a variable.
    builder.position_at_end(general);
    let loop_block = context.append_basic_block(function, "selected.thread");
    let run = context.append_basic_block(function, "selected.run");
    let next_block = context.append_basic_block(function, "selected.next");
    builder.build_unconditional_branch(loop_block).map_err(llvm_error)?;
    builder.position_at_end(loop_block);
    let linear = builder.build_phi(i32_type, "thread").map_err(llvm_error)?;
    let linear_value = linear.as_basic_value().into_int_value();
    // SAFETY: `linear` is below the block's thread count, `selected`'s length.
    let flag_address =
        unsafe { builder.build_in_bounds_gep(i8_type, selected, &[linear_value], "") }.map_err(llvm_error)?;
    let flag = builder.build_load(i8_type, flag_address, "").map_err(llvm_error)?.into_int_value();
    let chosen = builder.build_int_compare(IntPredicate::NE, flag, i8_type.const_zero(), "").map_err(llvm_error)?;
    builder.build_conditional_branch(chosen, run, next_block).map_err(llvm_error)?;
    builder.position_at_end(run);
    let x = builder.build_int_unsigned_rem(linear_value, sizes[0], "tid.x").map_err(llvm_error)?;
    let rest = builder.build_int_unsigned_div(linear_value, sizes[0], "").map_err(llvm_error)?;
    let y = builder.build_int_unsigned_rem(rest, sizes[1], "tid.y").map_err(llvm_error)?;
    let z = builder.build_int_unsigned_div(rest, sizes[1], "tid.z").map_err(llvm_error)?;
    call_step(region, [x, y, z], linear_value, true)?;
    builder.build_unconditional_branch(next_block).map_err(llvm_error)?;
    builder.position_at_end(next_block);
    let following = builder.build_int_add(linear_value, i32_type.const_int(1, false), "").map_err(llvm_error)?;
    let more = builder.build_int_compare(IntPredicate::ULT, following, threads, "").map_err(llvm_error)?;
    builder.build_conditional_branch(more, loop_block, done).map_err(llvm_error)?;
    linear.add_incoming(&[(&i32_type.const_zero(), general), (&following, next_block)]);

    builder.position_at_end(done);
    builder.build_return(None).map_err(llvm_error)?;
    Ok(())
}

/// The block's state arrays as the region function sees them.
struct StateFields<'ctx> {
    state: PointerValue<'ctx>,
    threads: IntValue<'ctx>,
}

impl<'ctx> StateFields<'ctx> {
    /// The address of exchange field `offset` (`size` bytes per thread) of thread `thread`.
    fn address(
        &self,
        site: &Site<'_, 'ctx>,
        offset: u64,
        size: u64,
        thread: IntValue<'ctx>,
    ) -> Result<PointerValue<'ctx>, Unsupported> {
        let builder = site.builder;
        let i64_type = site.context.i64_type();
        let threads = builder.build_int_z_extend(self.threads, i64_type, "").map_err(llvm_error)?;
        let thread = builder.build_int_z_extend(thread, i64_type, "").map_err(llvm_error)?;
        let base = builder.build_int_nuw_mul(threads, i64_type.const_int(offset, false), "").map_err(llvm_error)?;
        let within = builder.build_int_nuw_mul(thread, i64_type.const_int(size, false), "").map_err(llvm_error)?;
        let offset = builder.build_int_nuw_add(base, within, "").map_err(llvm_error)?;
        // SAFETY: the field lies inside the block's state.
        unsafe { builder.build_in_bounds_gep(site.context.i8_type(), self.state, &[offset], "field") }
            .map_err(llvm_error)
    }
}

/// `for index < count { body(index) }` from the builder's block (`count` at least 1); the builder
/// ends in the block after the loop.
pub(super) fn counted_loop<'ctx>(
    site: &Site<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    count: IntValue<'ctx>,
    name: &str,
    mut body: impl FnMut(IntValue<'ctx>) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let start = builder.get_insert_block().ok_or_else(|| llvm_error("loop"))?;
    let header = context.append_basic_block(function, name);
    let after = context.append_basic_block(function, &format!("{name}.end"));
    builder.build_unconditional_branch(header).map_err(llvm_error)?;
    builder.position_at_end(header);
    let index = builder.build_phi(i32_type, name).map_err(llvm_error)?;
    let index_value = index.as_basic_value().into_int_value();
    body(index_value)?;
    let latch = builder.get_insert_block().ok_or_else(|| llvm_error("loop"))?;
    let next = builder.build_int_nuw_add(index_value, i32_type.const_int(1, false), "").map_err(llvm_error)?;
    let more = builder.build_int_compare(IntPredicate::ULT, next, count, "").map_err(llvm_error)?;
    builder.build_conditional_branch(more, header, after).map_err(llvm_error)?;
    index.add_incoming(&[(&i32_type.const_zero(), start), (&next, latch)]);
    builder.position_at_end(after);
    Ok(())
}

/// From `dispatch` (every thread has run its region): when every thread stopped at the same
/// wait point and that wait's [`Completion`] is not the runtime's, computes its results into
/// the state and goes on with its region (`regions[k]`); otherwise returns to the runtime
/// (`done`). Returns the block that completes each wait point that completes here.
#[allow(clippy::too_many_arguments)]
fn complete_in_loops<'ctx>(
    site: &Site<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    fields: &StateFields<'ctx>,
    current: PointerValue<'ctx>,
    done: inkwell::basic_block::BasicBlock<'ctx>,
    dispatch: inkwell::basic_block::BasicBlock<'ctx>,
    regions: &[(IntValue<'ctx>, inkwell::basic_block::BasicBlock<'ctx>)],
    completions: &[Completion],
) -> Result<HashMap<u32, inkwell::basic_block::BasicBlock<'ctx>>, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let threads = fields.threads;
    // The counters' allocas go to the entry, outside the loops.
    let entry = function.get_first_basic_block().ok_or_else(|| llvm_error("regions"))?;
    match entry.get_first_instruction() {
        Some(first) => builder.position_before(&first),
        None => builder.position_at_end(entry),
    }
    let difference = builder.build_alloca(i32_type, "difference").map_err(llvm_error)?;
    let count = builder.build_alloca(i32_type, "true_count").map_err(llvm_error)?;
    let ballot = builder.build_alloca(i32_type, "ballot").map_err(llvm_error)?;
    builder.position_at_end(dispatch);
    let first = builder.build_load(i32_type, current, "first").map_err(llvm_error)?.into_int_value();
    // Whether every thread is at `first`: an or of differences, which vectorises.
    builder.build_store(difference, i32_type.const_zero()).map_err(llvm_error)?;
    counted_loop(site, function, threads, "same", |thread| {
        // SAFETY: `thread` is below the thread count, `current`'s length.
        let address = unsafe { builder.build_in_bounds_gep(i32_type, current, &[thread], "") }.map_err(llvm_error)?;
        let value = builder.build_load(i32_type, address, "").map_err(llvm_error)?.into_int_value();
        let different = builder.build_xor(value, first, "").map_err(llvm_error)?;
        let so_far = builder.build_load(i32_type, difference, "").map_err(llvm_error)?.into_int_value();
        let so_far = builder.build_or(so_far, different, "").map_err(llvm_error)?;
        builder.build_store(difference, so_far).map_err(llvm_error)?;
        Ok(())
    })?;
    let total = builder.build_load(i32_type, difference, "").map_err(llvm_error)?.into_int_value();
    let same = builder.build_int_compare(IntPredicate::EQ, total, i32_type.const_zero(), "").map_err(llvm_error)?;
    let choose = context.append_basic_block(function, "choose");
    builder.build_conditional_branch(same, choose, done).map_err(llvm_error)?;

    builder.position_at_end(choose);
    let mut cases = Vec::new();
    let mut completing = HashMap::new();
    // In the entry, so that it dominates the completions reached from `exit.r` blocks too.
    let whole_warps = {
        let terminator = entry.get_terminator().ok_or_else(|| llvm_error("regions"))?;
        builder.position_before(&terminator);
        let lanes = builder.build_and(threads, i32_type.const_int(31, false), "").map_err(llvm_error)?;
        let whole = builder
            .build_int_compare(IntPredicate::EQ, lanes, i32_type.const_zero(), "whole_warps")
            .map_err(llvm_error)?;
        builder.position_at_end(choose);
        whole
    };
    let result_field = |thread: IntValue<'ctx>| fields.address(site, work_item_state::RESULT, 8, thread);
    let a_field = |thread: IntValue<'ctx>| fields.address(site, work_item_state::A, 8, thread);
    // The `a` and result fields never overlap: said to LLVM, so that a shuffle's loop, which
    // reads `a` at lanes it computes, needs no overlap check (which it could not build).
    let (a_scope, a_kind, other_kind) = {
        let raw = context.raw();
        // SAFETY: metadata of this context.
        unsafe {
            let name = format!("{}.a", function.get_name().to_string_lossy());
            let string = |text: &str| LLVMMDStringInContext2(raw, text.as_ptr().cast(), text.len());
            let mut domain_operands = [string(&format!("{name}.domain"))];
            let domain = LLVMMDNodeInContext2(raw, domain_operands.as_mut_ptr(), 1);
            let mut scope_operands = [string(&name), domain];
            let mut list = [LLVMMDNodeInContext2(raw, scope_operands.as_mut_ptr(), 2)];
            let list = LLVMMetadataAsValue(raw, LLVMMDNodeInContext2(raw, list.as_mut_ptr(), 1));
            let alias_scope = LLVMGetMDKindIDInContext(raw, c"alias.scope".as_ptr(), "alias.scope".len() as u32);
            let noalias = LLVMGetMDKindIDInContext(raw, c"noalias".as_ptr(), "noalias".len() as u32);
            (list, alias_scope, noalias)
        }
    };
    let load_a = |thread: IntValue<'ctx>| -> Result<IntValue<'ctx>, Unsupported> {
        let value = builder.build_load(i64_type, a_field(thread)?, "a").map_err(llvm_error)?;
        // SAFETY: `value` is a load instruction; the list is metadata of its context.
        unsafe { LLVMSetMetadata(value.as_value_ref(), a_kind, a_scope) };
        Ok(value.into_int_value())
    };
    let store_result = |thread: IntValue<'ctx>, value: IntValue<'ctx>| -> Result<(), Unsupported> {
        let store = builder.build_store(result_field(thread)?, value).map_err(llvm_error)?;
        // SAFETY: `store` is a store instruction; the list is metadata of its context.
        unsafe { LLVMSetMetadata(store.as_value_ref(), other_kind, a_scope) };
        Ok(())
    };
    let fill =
        |value: IntValue<'ctx>| counted_loop(site, function, threads, "fill", |thread| store_result(thread, value));
    for (index, completion) in completions.iter().enumerate() {
        let (region_constant, region_block) = regions[index + 1];
        let block = match completion {
            Completion::Runtime => continue,
            Completion::Nothing => region_block,
            _ => context.append_basic_block(function, &format!("complete.{}", index + 1)),
        };
        cases.push((region_constant, block));
        completing.insert(index as u32 + 1, block);
        if matches!(completion, Completion::Nothing) {
            continue;
        }
        builder.position_at_end(block);
        match *completion {
            Completion::Runtime | Completion::Nothing => {}
            Completion::BarrierReduction(operation) => {
                builder.build_store(count, i32_type.const_zero()).map_err(llvm_error)?;
                counted_loop(site, function, threads, "predicates", |thread| {
                    let predicate = load_a(thread)?;
                    let set = builder
                        .build_int_compare(IntPredicate::NE, predicate, i64_type.const_zero(), "")
                        .map_err(llvm_error)?;
                    let set = builder.build_int_z_extend(set, i32_type, "").map_err(llvm_error)?;
                    let so_far = builder.build_load(i32_type, count, "").map_err(llvm_error)?.into_int_value();
                    let so_far = builder.build_int_add(so_far, set, "").map_err(llvm_error)?;
                    builder.build_store(count, so_far).map_err(llvm_error)?;
                    Ok(())
                })?;
                let count = builder.build_load(i32_type, count, "").map_err(llvm_error)?.into_int_value();
                let result = match operation {
                    barrier_operation::REDUCE_POPULATION_COUNT => count,
                    barrier_operation::REDUCE_AND => {
                        builder.build_int_compare(IntPredicate::EQ, count, threads, "").map_err(llvm_error)?
                    }
                    _ => builder
                        .build_int_compare(IntPredicate::NE, count, i32_type.const_zero(), "")
                        .map_err(llvm_error)?,
                };
                fill(builder.build_int_z_extend(result, i64_type, "").map_err(llvm_error)?)?;
            }
            Completion::Shuffle { mode, b, c } => {
                let body = context.append_basic_block(function, &format!("shuffle.{}", index + 1));
                builder.build_conditional_branch(whole_warps, body, done).map_err(llvm_error)?;
                builder.position_at_end(body);
                // One iteration per warp with its 32 lanes written out: the source lanes are
                // constants, so LLVM reads them as contiguous runs instead of gathering.
                let warps = builder
                    .build_right_shift(threads, i32_type.const_int(5, false), false, "warps")
                    .map_err(llvm_error)?;
                counted_loop(site, function, warps, "shuffle", |warp| {
                    let first_lane =
                        builder.build_left_shift(warp, i32_type.const_int(5, false), "").map_err(llvm_error)?;
                    for lane in 0..32u64 {
                        let (source, in_range) = crate::collective::shuffle_source(
                            site,
                            mode,
                            i32_type.const_int(lane, false),
                            i32_type.const_int(b, false),
                            i32_type.const_int(c, false),
                        )?;
                        let source = builder.build_or(first_lane, source, "source").map_err(llvm_error)?;
                        let value = load_a(source)?;
                        let value = builder
                            .build_and(value, i64_type.const_int(u64::from(u32::MAX), false), "")
                            .map_err(llvm_error)?;
                        let predicate = builder.build_int_z_extend(in_range, i64_type, "").map_err(llvm_error)?;
                        let predicate = builder
                            .build_left_shift(predicate, i64_type.const_int(32, false), "")
                            .map_err(llvm_error)?;
                        let packed = builder.build_or(value, predicate, "").map_err(llvm_error)?;
                        let thread =
                            builder.build_or(first_lane, i32_type.const_int(lane, false), "").map_err(llvm_error)?;
                        store_result(thread, packed)?;
                    }
                    Ok(())
                })?;
            }
            Completion::Vote(kind) => {
                let body = context.append_basic_block(function, &format!("vote.{}", index + 1));
                builder.build_conditional_branch(whole_warps, body, done).map_err(llvm_error)?;
                builder.position_at_end(body);
                let warps = builder
                    .build_right_shift(threads, i32_type.const_int(5, false), false, "warps")
                    .map_err(llvm_error)?;
                counted_loop(site, function, warps, "warp", |warp| {
                    let first_lane =
                        builder.build_left_shift(warp, i32_type.const_int(5, false), "").map_err(llvm_error)?;
                    builder.build_store(ballot, i32_type.const_zero()).map_err(llvm_error)?;
                    counted_loop(site, function, i32_type.const_int(32, false), "ballot", |lane| {
                        let thread = builder.build_or(first_lane, lane, "").map_err(llvm_error)?;
                        let predicate = load_a(thread)?;
                        let set = builder
                            .build_int_compare(IntPredicate::NE, predicate, i64_type.const_zero(), "")
                            .map_err(llvm_error)?;
                        let bit = builder.build_int_z_extend(set, i32_type, "").map_err(llvm_error)?;
                        let bit = builder.build_left_shift(bit, lane, "").map_err(llvm_error)?;
                        let so_far = builder.build_load(i32_type, ballot, "").map_err(llvm_error)?.into_int_value();
                        let so_far = builder.build_or(so_far, bit, "").map_err(llvm_error)?;
                        builder.build_store(ballot, so_far).map_err(llvm_error)?;
                        Ok(())
                    })?;
                    let bits = builder.build_load(i32_type, ballot, "").map_err(llvm_error)?.into_int_value();
                    let all = i32_type.const_all_ones();
                    let zero = i32_type.const_zero();
                    let truth = |predicate: IntPredicate, than: IntValue<'ctx>| {
                        builder.build_int_compare(predicate, bits, than, "").map_err(llvm_error)
                    };
                    let result = match kind {
                        warp_collective::VOTE_ALL => truth(IntPredicate::EQ, all)?,
                        warp_collective::VOTE_ANY => truth(IntPredicate::NE, zero)?,
                        warp_collective::VOTE_UNIFORM => {
                            let none = truth(IntPredicate::EQ, zero)?;
                            let every = truth(IntPredicate::EQ, all)?;
                            builder.build_or(none, every, "").map_err(llvm_error)?
                        }
                        _ => bits,
                    };
                    let result = builder.build_int_z_extend(result, i64_type, "vote").map_err(llvm_error)?;
                    counted_loop(site, function, i32_type.const_int(32, false), "vote.fill", |lane| {
                        let thread = builder.build_or(first_lane, lane, "").map_err(llvm_error)?;
                        store_result(thread, result)
                    })
                })?;
            }
            Completion::Same(value) => {
                let body = context.append_basic_block(function, &format!("same.{}", index + 1));
                builder.build_conditional_branch(whole_warps, body, done).map_err(llvm_error)?;
                builder.position_at_end(body);
                fill(i64_type.const_int(value, false))?;
            }
        }
        builder.build_unconditional_branch(region_block).map_err(llvm_error)?;
    }
    builder.position_at_end(choose);
    builder.build_switch(first, done, &cases).map_err(llvm_error)?;
    Ok(completing)
}

/// `for z < ntid.z { for y < ntid.y { for x < ntid.x { body(tid, linear) } } }` from the
/// builder's block, then a branch to `after`. `linear` counts the threads in that order.
pub(super) fn thread_loops<'ctx>(
    site: &Site<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    sizes: [IntValue<'ctx>; 3],
    after: inkwell::basic_block::BasicBlock<'ctx>,
    mut body: impl FnMut([IntValue<'ctx>; 3], IntValue<'ctx>) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let one = i32_type.const_int(1, false);
    let zero = i32_type.const_zero();
    let start = builder.get_insert_block().ok_or_else(|| llvm_error("thread loops"))?;
    let loop_z = context.append_basic_block(function, "thread.z");
    let loop_y = context.append_basic_block(function, "thread.y");
    let loop_x = context.append_basic_block(function, "thread.x");
    let next_y = context.append_basic_block(function, "thread.y.next");
    let next_z = context.append_basic_block(function, "thread.z.next");
    builder.build_unconditional_branch(loop_z).map_err(llvm_error)?;

    builder.position_at_end(loop_z);
    let z = builder.build_phi(i32_type, "tid.z").map_err(llvm_error)?;
    let z_value = z.as_basic_value().into_int_value();
    let plane = builder.build_int_mul(z_value, sizes[1], "").map_err(llvm_error)?;
    builder.build_unconditional_branch(loop_y).map_err(llvm_error)?;

    builder.position_at_end(loop_y);
    let y = builder.build_phi(i32_type, "tid.y").map_err(llvm_error)?;
    let y_value = y.as_basic_value().into_int_value();
    let row = builder.build_int_add(plane, y_value, "").map_err(llvm_error)?;
    let row_start = builder.build_int_mul(row, sizes[0], "").map_err(llvm_error)?;
    builder.build_unconditional_branch(loop_x).map_err(llvm_error)?;

    builder.position_at_end(loop_x);
    let x = builder.build_phi(i32_type, "tid.x").map_err(llvm_error)?;
    let x_value = x.as_basic_value().into_int_value();
    let linear = builder.build_int_nuw_add(row_start, x_value, "thread").map_err(llvm_error)?;
    body([x_value, y_value, z_value], linear)?;
    let x_block = builder.get_insert_block().ok_or_else(|| llvm_error("thread loops"))?;
    let x_next = builder.build_int_nuw_add(x_value, one, "").map_err(llvm_error)?;
    let x_more = builder.build_int_compare(IntPredicate::ULT, x_next, sizes[0], "").map_err(llvm_error)?;
    builder.build_conditional_branch(x_more, loop_x, next_y).map_err(llvm_error)?;

    builder.position_at_end(next_y);
    let y_next = builder.build_int_nuw_add(y_value, one, "").map_err(llvm_error)?;
    let y_more = builder.build_int_compare(IntPredicate::ULT, y_next, sizes[1], "").map_err(llvm_error)?;
    builder.build_conditional_branch(y_more, loop_y, next_z).map_err(llvm_error)?;

    builder.position_at_end(next_z);
    let z_next = builder.build_int_nuw_add(z_value, one, "").map_err(llvm_error)?;
    let z_more = builder.build_int_compare(IntPredicate::ULT, z_next, sizes[2], "").map_err(llvm_error)?;
    builder.build_conditional_branch(z_more, loop_z, after).map_err(llvm_error)?;

    z.add_incoming(&[(&zero, start), (&z_next, next_z)]);
    y.add_incoming(&[(&zero, loop_z), (&y_next, next_y)]);
    x.add_incoming(&[(&zero, loop_y), (&x_next, x_block)]);
    Ok(())
}

/// The block entry `NAME(params, context)`: `ptxr_run_work_item_block(params, context,
/// NAME.regions, bytes_per_thread, bytes_per_block, NAME.wait_points)`.
pub(super) fn block_entry<'ctx>(site: &Site<'_, 'ctx>, name: &str, layout: &StateLayout) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let pointer_type = context.ptr_type(AddressSpace::default());
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let regions =
        site.module.get_function(&format!("{name}.regions")).ok_or_else(|| llvm_error("the region function"))?;
    // The wait points as `ptxr_runtime::abi::WaitPoint`s.
    let point_type = context.struct_type(
        &[
            i64_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
            i32_type.into(),
        ],
        false,
    );
    let points: Vec<_> = layout
        .wait_points
        .iter()
        .map(|point| {
            let word = |value: u32| i32_type.const_int(u64::from(value), false).into();
            point_type.const_named_struct(&[
                i64_type.const_int(point.a, false).into(),
                word(point.kind),
                word(point.mask),
                word(point.b),
                word(point.c),
                word(point.constant),
                word(0),
            ])
        })
        .collect();
    let table_type = point_type.array_type(points.len() as u32);
    let table = site.module.add_global(table_type, None, &format!("{name}.wait_points"));
    table.set_linkage(Linkage::Internal);
    table.set_constant(true);
    table.set_initializer(&point_type.const_array(&points));

    let entry_type = context.void_type().fn_type(&[pointer_type.into(), pointer_type.into()], false);
    let entry = site.module.add_function(name, entry_type, Some(Linkage::External));
    builder.position_at_end(context.append_basic_block(entry, "entry"));
    let entry_site = Site { context, module: site.module, builder, function: entry, launch_arguments: None };
    let parameter = |index: u32| -> Result<PointerValue<'ctx>, Unsupported> {
        entry.get_nth_param(index).map(|value| value.into_pointer_value()).ok_or_else(|| llvm_error("entry"))
    };
    let arguments: [BasicMetadataValueEnum<'ctx>; 6] = [
        parameter(0)?.into(),
        parameter(1)?.into(),
        regions.as_global_value().as_pointer_value().into(),
        i64_type.const_int(layout.bytes_per_thread, false).into(),
        i64_type.const_int(layout.bytes_per_block, false).into(),
        table.as_pointer_value().into(),
    ];
    let run_type = context.void_type().fn_type(
        &[
            pointer_type.into(),
            pointer_type.into(),
            pointer_type.into(),
            i64_type.into(),
            i64_type.into(),
            pointer_type.into(),
        ],
        false,
    );
    call_function(&entry_site, runtime_function::RUN_WORK_ITEM_BLOCK, run_type, &arguments)?;
    builder.build_return(None).map_err(llvm_error)?;
    Ok(())
}
