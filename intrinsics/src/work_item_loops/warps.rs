//! Warp chains: regions that end at a warp collective, run one warp at a time.
//!
//! A region whose paths all reach one wait point, where that wait is a shuffle, vote,
//! `activemask` or `bar.warp.sync` of whole warps with constant operands (a *per-warp* wait),
//! needs nothing from the other warps to go on. So from such a region the region function can
//! run, for each warp of 32 lanes in turn: the region's loop over the warp's lanes, the
//! collective's completion for that warp, the next region's loop over the same lanes, and so on
//! until a region ends at a wait that is not per-warp (or at the thread's end). The values
//! handed from region to region then belong to 32 lanes only: the step runs on a private copy
//! of the warp's state (an alloca of 32 threads' state), each lane loop has 32 iterations and
//! is vectorised 32 wide, and a shuffle becomes one `shufflevector` of the 32 deposited values.
//! After inlining and unrolling, LLVM keeps the copy in registers: for a warp-shuffle
//! reduction the deposits and reloads of the block-wide loops disappear.
//!
//! The copy is taken from the block's state before the chain (unless the chain starts the
//! kernel, when there is nothing yet) and written back after it (unless the warp's threads have
//! returned), so that block-wide loops, the runtime and the completions after the chain see the
//! state as if the chain had run block-wide. A kernel where an alloca's address escapes (a
//! `.local` array, a vector register, the matrix fragment buffer) keeps the block-wide loops: a
//! pointer into the copy could outlive it. The chain runs when `ntid.x` is a multiple of 32, so
//! that each warp is one run of `x` with `y` and `z` fixed; other blocks take the block-wide
//! loops.

use inkwell::basic_block::BasicBlock;
use inkwell::values::{AsValueRef, FunctionValue, IntValue, PointerValue};
use inkwell::IntPredicate;
use llvm_sys::core::*;
use llvm_sys::debuginfo::{LLVMMetadataReplaceAllUsesWith, LLVMTemporaryMDNode};
use ptxr_runtime::abi::{warp_collective, work_item_state};

use super::step::RegionShape;
use super::Completion;
use crate::cpu::llvm_error;
use crate::{Site, Unsupported};

/// Lanes of a warp.
pub(super) const WARP_LANES: u64 = 32;

/// The largest copy of a warp's state that a chain keeps on the worker's stack (whose threads
/// have the 2 MiB of Rust's default); kernels with more state per thread keep the block-wide
/// loops.
pub(super) const COPY_BYTES_LIMIT: u64 = 64 * 1024;

impl Completion {
    /// Whether the wait completes within each warp alone (see the module documentation).
    pub(super) fn per_warp(self) -> bool {
        matches!(self, Completion::Shuffle { .. } | Completion::Vote(_) | Completion::Same(_))
    }
}

/// Where a chain's warps go once each has run it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ChainEnd {
    /// The chain's last region ends at this wait point (or `DONE`), which is not per-warp.
    Exit(u32),
    /// The chain stops before this region, which has no single exit (or is already in the
    /// chain): it runs block-wide.
    Region(u32),
}

/// A chain of regions from `regions[0]`: each ends at a per-warp wait whose region is the
/// next, but the last, which ends as `end` says.
#[derive(Clone, Debug)]
pub(super) struct Chain {
    pub(super) regions: Vec<u32>,
    pub(super) end: ChainEnd,
}

/// The per-warp wait point that region `region` always ends at, if it has one.
fn per_warp_exit(exits: &[Option<u32>], completions: &[Completion], region: u32) -> Option<u32> {
    exits[region as usize]
        .filter(|&exit| exit != work_item_state::DONE)
        .filter(|&exit| completions[exit as usize - 1].per_warp())
}

/// The chains to build, one per region that ends at a per-warp wait and is not itself where
/// such a wait of another region leads (those are reached in that region's chain).
pub(super) fn chains(exits: &[Option<u32>], completions: &[Completion]) -> Vec<Chain> {
    let continued: Vec<u32> =
        (0..exits.len() as u32).filter_map(|region| per_warp_exit(exits, completions, region)).collect();
    let mut result = Vec::new();
    for start in 0..exits.len() as u32 {
        if per_warp_exit(exits, completions, start).is_none() || continued.contains(&start) {
            continue;
        }
        let mut regions = vec![start];
        let end = loop {
            let last = *regions.last().unwrap_or(&start);
            let Some(next) = per_warp_exit(exits, completions, last) else {
                break ChainEnd::Exit(exits[last as usize].unwrap_or(work_item_state::DONE));
            };
            if exits[next as usize].is_none() || regions.contains(&next) {
                break ChainEnd::Region(next);
            }
            regions.push(next);
        };
        result.push(Chain { regions, end });
    }
    result
}

/// Runs the step for one lane: (region, tid, thread, state, threads).
pub(super) type StepCall<'a, 'ctx> = dyn Fn(u32, [IntValue<'ctx>; 3], IntValue<'ctx>, PointerValue<'ctx>, IntValue<'ctx>) -> Result<(), Unsupported>
    + 'a;

/// What a chain needs of the region function.
pub(super) struct ChainSite<'a, 'ctx> {
    pub(super) site: &'a Site<'a, 'ctx>,
    pub(super) function: FunctionValue<'ctx>,
    /// The block's state and its thread count.
    pub(super) state: PointerValue<'ctx>,
    pub(super) threads: IntValue<'ctx>,
    /// `ntid`.
    pub(super) sizes: [IntValue<'ctx>; 3],
    /// The warp's private copy of the state (`bytes_per_thread * 32 + bytes_per_block`).
    pub(super) buffer: PointerValue<'ctx>,
    pub(super) bytes_per_thread: u64,
    pub(super) bytes_per_block: u64,
    /// Every per-thread field and slot, as (offset, bytes per thread).
    pub(super) fields: Vec<(u64, u64)>,
}

impl<'ctx> ChainSite<'_, 'ctx> {
    /// Builds `chain` from the builder's block: loops over the warps, then a branch to `after`.
    /// `call_step(region, tid, lane, state, threads)` runs the step for one lane.
    pub(super) fn build(
        &self,
        chain: &Chain,
        completions: &[Completion],
        exits: &[Option<u32>],
        shapes: &[RegionShape],
        after: BasicBlock<'ctx>,
        call_step: &StepCall<'_, 'ctx>,
    ) -> Result<(), Unsupported> {
        let site = self.site;
        let builder = site.builder;
        let i32_type = site.context.i32_type();
        let lanes = i32_type.const_int(WARP_LANES, false);
        let five = i32_type.const_int(5, false);
        let copy_in = chain.regions[0] != 0;
        let copy_out = chain.end != ChainEnd::Exit(work_item_state::DONE);
        let warp_columns = builder.build_right_shift(self.sizes[0], five, false, "warp_columns").map_err(llvm_error)?;
        let sizes = [warp_columns, self.sizes[1], self.sizes[2]];
        super::regions::thread_loops(site, self.function, sizes, after, |[column, y, z], warp| {
            let first = builder.build_left_shift(warp, five, "first_lane").map_err(llvm_error)?;
            let x = builder.build_left_shift(column, five, "warp.x").map_err(llvm_error)?;
            self.copy(first, copy_in, true)?;
            for &region in &chain.regions {
                lane_loop(site, self.function, shapes[region as usize], |lane| {
                    let lane_x = builder.build_or(x, lane, "tid.x").map_err(llvm_error)?;
                    call_step(region, [lane_x, y, z], lane, self.buffer, lanes)
                })?;
                if let Some(exit) = per_warp_exit(exits, completions, region) {
                    self.complete(completions[exit as usize - 1])?;
                }
            }
            self.copy(first, copy_out, false)
        })
    }

    /// Copies the warp whose first thread is `first` between the block's state and the copy
    /// (`inward`: into the copy): its per-thread fields when `per_thread`, and the block's own
    /// state in any case (small, and read by every warp).
    fn copy(&self, first: IntValue<'ctx>, per_thread: bool, inward: bool) -> Result<(), Unsupported> {
        let site = self.site;
        let builder = site.builder;
        let i8_type = site.context.i8_type();
        let i64_type = site.context.i64_type();
        let threads = builder.build_int_z_extend(self.threads, i64_type, "").map_err(llvm_error)?;
        let first = builder.build_int_z_extend(first, i64_type, "").map_err(llvm_error)?;
        let constant = |value: u64| i64_type.const_int(value, false);
        let mut pieces = Vec::new();
        if per_thread {
            for &(offset, size) in &self.fields {
                let base = builder.build_int_nuw_mul(threads, constant(offset), "").map_err(llvm_error)?;
                let within = builder.build_int_nuw_mul(first, constant(size), "").map_err(llvm_error)?;
                let block_offset = builder.build_int_nuw_add(base, within, "").map_err(llvm_error)?;
                pieces.push((block_offset, offset * WARP_LANES, size * WARP_LANES));
            }
        }
        if self.bytes_per_block > 0 {
            let block_offset =
                builder.build_int_nuw_mul(threads, constant(self.bytes_per_thread), "").map_err(llvm_error)?;
            pieces.push((block_offset, self.bytes_per_thread * WARP_LANES, self.bytes_per_block));
        }
        for (block_offset, buffer_offset, bytes) in pieces {
            // SAFETY: both ranges lie inside their state.
            let (block, copy) = unsafe {
                (
                    builder.build_in_bounds_gep(i8_type, self.state, &[block_offset], "").map_err(llvm_error)?,
                    builder
                        .build_in_bounds_gep(i8_type, self.buffer, &[constant(buffer_offset)], "")
                        .map_err(llvm_error)?,
                )
            };
            let (to, from) = if inward { (copy, block) } else { (block, copy) };
            builder.build_memcpy(to, 4, from, 4, constant(bytes)).map_err(llvm_error)?;
        }
        Ok(())
    }

    /// Completes a per-warp wait over the copy's 32 deposits: the `a` field in, the result
    /// field out, both as `<32 x i64>`.
    fn complete(&self, completion: Completion) -> Result<(), Unsupported> {
        let site = self.site;
        let builder = site.builder;
        let context = site.context;
        let i32_type = context.i32_type();
        let i64_type = context.i64_type();
        let vector_type = i64_type.vec_type(WARP_LANES as u32);
        let field = |offset: u64| {
            // SAFETY: the field's 32 lanes lie inside the copy.
            unsafe {
                builder.build_in_bounds_gep(
                    context.i8_type(),
                    self.buffer,
                    &[i64_type.const_int(offset * WARP_LANES, false)],
                    "",
                )
            }
            .map_err(llvm_error)
        };
        let load_a = || -> Result<inkwell::values::VectorValue<'ctx>, Unsupported> {
            let load = builder.build_load(vector_type, field(work_item_state::A)?, "a").map_err(llvm_error)?;
            set_alignment(load.as_value_ref(), 8);
            Ok(load.into_vector_value())
        };
        let splat = |value: IntValue<'ctx>| -> Result<inkwell::values::VectorValue<'ctx>, Unsupported> {
            let single = builder
                .build_insert_element(vector_type.get_undef(), value, i32_type.const_zero(), "")
                .map_err(llvm_error)?;
            let zeros = i32_type.vec_type(WARP_LANES as u32).const_zero();
            builder.build_shuffle_vector(single, vector_type.get_undef(), zeros, "").map_err(llvm_error)
        };
        let result = match completion {
            Completion::Shuffle { mode, b, c } => {
                let mut sources = Vec::new();
                let mut predicates = Vec::new();
                for lane in 0..WARP_LANES {
                    // Constant operands: the builder folds the source lane to a constant.
                    let (source, in_range) = crate::collective::shuffle_source(
                        site,
                        mode,
                        i32_type.const_int(lane, false),
                        i32_type.const_int(b, false),
                        i32_type.const_int(c, false),
                    )?;
                    let (Some(source), Some(in_range)) =
                        (source.get_zero_extended_constant(), in_range.get_zero_extended_constant())
                    else {
                        return Err(llvm_error("a constant shuffle's source lane"));
                    };
                    sources.push(i32_type.const_int(source, false));
                    predicates.push(i64_type.const_int(in_range << 32, false));
                }
                let values = builder
                    .build_and(load_a()?, splat(i64_type.const_int(u64::from(u32::MAX), false))?, "")
                    .map_err(llvm_error)?;
                let mask = inkwell::types::VectorType::const_vector(&sources);
                let moved = builder
                    .build_shuffle_vector(values, vector_type.get_undef(), mask, "shuffled")
                    .map_err(llvm_error)?;
                let predicates = inkwell::types::VectorType::const_vector(&predicates);
                builder.build_or(moved, predicates, "").map_err(llvm_error)?
            }
            Completion::Vote(kind) => {
                let set = builder
                    .build_int_compare(IntPredicate::NE, load_a()?, vector_type.const_zero(), "")
                    .map_err(llvm_error)?;
                let bits = builder.build_bit_cast(set, i32_type, "ballot").map_err(llvm_error)?.into_int_value();
                let truth = |predicate: IntPredicate, than: IntValue<'ctx>| {
                    builder.build_int_compare(predicate, bits, than, "").map_err(llvm_error)
                };
                let (all, zero) = (i32_type.const_all_ones(), i32_type.const_zero());
                let vote = match kind {
                    warp_collective::VOTE_ALL => truth(IntPredicate::EQ, all)?,
                    warp_collective::VOTE_ANY => truth(IntPredicate::NE, zero)?,
                    warp_collective::VOTE_UNIFORM => {
                        let none = truth(IntPredicate::EQ, zero)?;
                        let every = truth(IntPredicate::EQ, all)?;
                        builder.build_or(none, every, "").map_err(llvm_error)?
                    }
                    _ => bits,
                };
                splat(builder.build_int_z_extend(vote, i64_type, "vote").map_err(llvm_error)?)?
            }
            Completion::Same(value) => splat(i64_type.const_int(value, false))?,
            Completion::Runtime | Completion::Nothing | Completion::BarrierReduction(_) => {
                return Err(llvm_error("a warp chain over a wait that is not per-warp"));
            }
        };
        let store = builder.build_store(field(work_item_state::RESULT)?, result).map_err(llvm_error)?;
        set_alignment(store.as_value_ref(), 8);
        Ok(())
    }
}

/// Sets a load's or store's alignment (the copy's fields are 8-byte aligned, not 256).
fn set_alignment(instruction: llvm_sys::prelude::LLVMValueRef, bytes: u32) {
    // SAFETY: `instruction` is a load or a store.
    unsafe { LLVMSetAlignment(instruction, bytes) };
}

/// `for lane < 32 { body(lane) }` from the builder's block, with what LLVM may do with it
/// (`shape`); the builder ends after it.
fn lane_loop<'ctx>(
    site: &Site<'_, 'ctx>,
    function: FunctionValue<'ctx>,
    shape: RegionShape,
    mut body: impl FnMut(IntValue<'ctx>) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let i32_type = context.i32_type();
    let start = builder.get_insert_block().ok_or_else(|| llvm_error("lane loop"))?;
    let header = context.append_basic_block(function, "lane");
    let after = context.append_basic_block(function, "lane.end");
    builder.build_unconditional_branch(header).map_err(llvm_error)?;
    builder.position_at_end(header);
    let index = builder.build_phi(i32_type, "lane").map_err(llvm_error)?;
    let lane = index.as_basic_value().into_int_value();
    body(lane)?;
    let latch = builder.get_insert_block().ok_or_else(|| llvm_error("lane loop"))?;
    let next = builder.build_int_nuw_add(lane, i32_type.const_int(1, false), "").map_err(llvm_error)?;
    let more = builder
        .build_int_compare(IntPredicate::ULT, next, i32_type.const_int(WARP_LANES, false), "")
        .map_err(llvm_error)?;
    let branch = builder.build_conditional_branch(more, header, after).map_err(llvm_error)?;
    index.add_incoming(&[(&i32_type.const_zero(), start), (&next, latch)]);
    // Vectorised 32 wide, a loop of 32 iterations becomes one vector iteration; unrolled fully,
    // 32 copies. Either way every access to the warp's copy of the state has a constant offset,
    // and LLVM keeps the copy in registers. A loop that can take neither hint gets none, and
    // LLVM treats it as any loop.
    let hint = if shape.vectorisable {
        Some(("llvm.loop.vectorize.width", Some(WARP_LANES)))
    } else if shape.unrollable {
        Some(("llvm.loop.unroll.full", None))
    } else {
        None
    };
    if let Some((name, value)) = hint {
        // SAFETY: metadata of this context on the loop's latch branch; the loop identifier
        // refers to itself, as LLVM's loop metadata must.
        unsafe {
            let raw = context.raw();
            let mut operands = vec![LLVMMDStringInContext2(raw, name.as_ptr().cast(), name.len())];
            if let Some(value) = value {
                operands.push(LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(raw), value, 0)));
            }
            let hint = LLVMMDNodeInContext2(raw, operands.as_mut_ptr(), operands.len());
            let placeholder = LLVMTemporaryMDNode(raw, std::ptr::null_mut(), 0);
            let mut operands = [placeholder, hint];
            let identifier = LLVMMDNodeInContext2(raw, operands.as_mut_ptr(), 2);
            LLVMMetadataReplaceAllUsesWith(placeholder, identifier);
            let kind = LLVMGetMDKindIDInContext(raw, c"llvm.loop".as_ptr(), "llvm.loop".len() as u32);
            LLVMSetMetadata(branch.as_value_ref(), kind, LLVMMetadataAsValue(raw, identifier));
        }
    }
    builder.position_at_end(after);
    Ok(())
}
