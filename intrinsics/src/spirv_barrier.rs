//! `bar.arrive a, b` and `bar.sync a, b` of part of the block on SPIR-V: the software barrier of
//! `software_barrier.rs` in OpenCL local memory (a Workgroup variable), with work-group atomics.
//! Each work-item adds one for itself, and lane 0 of a PTX warp (32 consecutive threads in
//! PTX's linear order) adds the lanes that a partial last warp lacks, so that every warp counts
//! 32. No sub-group operation is needed: Intel's CPU runtime refuses `sub_group_ballot` in
//! divergent code that it runs work-item by work-item, which is where barriers of part of the
//! block are. (A warp with exited threads counts fewer than 32 here.) A counted `bar.sync` whose count is the block's stays OpenCL's `barrier` (lowering
//! checks the count at run time, `Target::counted_barriers_of_the_whole_block_are_block_barriers`),
//! except in modules with `bar.arrive`, whose arrivals only the software barrier counts.
//!
//! A waiting work-item polls the generation without pausing (OpenCL has no sleep). OpenCL
//! promises no forward progress between the work-items of a group: Intel's CPU runtime runs
//! them one after another between barriers, so a `bar.sync` ends only when every arrival it
//! needs comes from work-items that run before the first waiting one (lower ids: producer warps
//! that `bar.arrive` below the consumers that `bar.sync`), or from its own sub-group. Lowering
//! warns about this (W0904); docs/TARGETS.md has the measurements.

use inkwell::values::IntValue;
use inkwell::IntPredicate;

use ptxr_frontend::vocabulary::{Dimension, SpecialRegister};

use crate::software_barrier::{self, BarrierPrimitives};
use crate::{Site, Target, Unsupported};

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("a counted barrier on SPIR-V ({error})") }
}

/// What the software barrier needs of OpenCL: sub-groups, work-item ids and `barrier`.
pub struct LocalMemory<'t> {
    pub target: &'t crate::spirv::Spirv,
}

impl<'ctx> BarrierPrimitives<'ctx> for LocalMemory<'_> {
    fn arrival(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        let builder = site.builder;
        let i32_type = site.context.i32_type();
        let mut linear = i32_type.const_zero();
        let mut block_threads = i32_type.const_int(1, false);
        for dimension in [Dimension::Z, Dimension::Y, Dimension::X] {
            let id = self.target.special_register(site, SpecialRegister::ThreadId(dimension))?;
            let extent = self.target.special_register(site, SpecialRegister::ThreadCount(dimension))?;
            linear = builder.build_int_mul(linear, extent, "").map_err(failed)?;
            linear = builder.build_int_add(linear, id, "").map_err(failed)?;
            block_threads = builder.build_int_mul(block_threads, extent, "").map_err(failed)?;
        }
        let warp_size = i32_type.const_int(software_barrier::WARP_SIZE, false);
        let lane = builder.build_int_unsigned_rem(linear, warp_size, "lane").map_err(failed)?;
        let warp_start = builder.build_int_sub(linear, lane, "").map_err(failed)?;
        let after_start = builder.build_int_sub(block_threads, warp_start, "").map_err(failed)?;
        let full = builder.build_int_compare(IntPredicate::UGE, after_start, warp_size, "").map_err(failed)?;
        let lanes = builder.build_select(full, warp_size, after_start, "warp.lanes").map_err(failed)?.into_int_value();
        let missing = builder.build_int_sub(warp_size, lanes, "").map_err(failed)?;
        let first = builder.build_int_compare(IntPredicate::EQ, lane, i32_type.const_zero(), "").map_err(failed)?;
        let extra = builder.build_select(first, missing, i32_type.const_zero(), "").map_err(failed)?.into_int_value();
        builder.build_int_add(extra, i32_type.const_int(1, false), "arrival").map_err(failed)
    }

    fn is_first_work_item(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        let i32_type = site.context.i32_type();
        let mut any = i32_type.const_zero();
        for dimension in 0..3 {
            let id = self.target.local_id(site, dimension)?;
            any = site.builder.build_or(any, id, "").map_err(failed)?;
        }
        site.builder.build_int_compare(IntPredicate::EQ, any, i32_type.const_zero(), "first").map_err(failed)
    }

    fn block_barrier(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        self.target.work_group_barrier(site)
    }

    fn pause(&self, _site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        Ok(())
    }

    fn calling_convention(&self) -> u32 {
        crate::spirv::SPIR_FUNC
    }
}

/// `bar.arrive a, b` (`wait` false) or `bar.sync a, b` (`wait` true) on the software barrier.
pub fn counted<'ctx>(
    site: &Site<'_, 'ctx>,
    target: &crate::spirv::Spirv,
    number: IntValue<'ctx>,
    count: IntValue<'ctx>,
    wait: bool,
) -> Result<(), Unsupported> {
    software_barrier::counted(site, &LocalMemory { target }, number, count, wait)
}

/// Zeroes the software barriers at the start of `site.function`, a kernel.
pub fn reset_counted_barriers(site: &Site<'_, '_>, target: &crate::spirv::Spirv) -> Result<(), Unsupported> {
    software_barrier::reset_counted_barriers(site, &LocalMemory { target })
}
