//! PTX's 32-lane warps on AMD waves of 32 (gfx10 and later, wave32) or 64 (gfx9, where each
//! wave holds two warps).
//!
//! A block's work-items fill waves in linear-id order, as CUDA fills warps, so the work-item
//! in lane `w` of a wave (`w` from `llvm.amdgcn.mbcnt.lo/hi`) is PTX lane `w & 31` of the
//! warp that starts at wave lane `w & 32`. Every collective works on that half: ballots
//! (`llvm.amdgcn.ballot.i64`, zero-extended on wave32) are shifted down by the warp's start,
//! and lane reads (`llvm.amdgcn.ds.bpermute`, which addresses the whole wave) add it. On
//! wave32 the start is always 0 and the same code serves.
//!
//! `shfl`, `vote`, `match` and `activemask` come from these primitives through the shared
//! lowering of `warp_lanes.rs`; `redux` reads every lane of the warp in turn (32 reads), since
//! AMD has no instruction for it across a 32-lane half of a wave.

use inkwell::values::{BasicMetadataValueEnum, IntValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::MemoryOrdering;

use crate::atomics::fence;
use crate::declare::{call_intrinsic, call_intrinsic_or_void};
use crate::warp_lanes::{reduce_lane_by_lane, LanePrimitives};
use crate::{CollectiveResult, Site, Unsupported, WarpCollective};

/// Whether `processor` (`gfx90a`, `gfx1100`, `gfx9-generic`, ...) runs waves of 64 with LLVM's
/// target `features`: every processor before gfx10 does (GCN and CDNA, generations 6 to 9);
/// gfx10 and later run wave32 unless `+wavefrontsize64` asks otherwise. Generations from 10 on
/// are the only names whose number starts with 1 (there is no gfx1xx).
pub(crate) fn is_wave64(processor: &str, features: &str) -> bool {
    let asks_wave64 = features.split(',').any(|feature| feature.trim() == "+wavefrontsize64");
    let before_gfx10 = processor
        .strip_prefix("gfx")
        .and_then(|number| number.chars().next())
        .is_some_and(|first| first.is_ascii_digit() && first != '1');
    before_gfx10 || asks_wave64
}

/// Whether `processor` predates `ds_bpermute` (gfx8): the GCN generations 6 and 7 (`gfx600`
/// to `gfx705`), where `read_lane` cannot be selected.
pub(crate) fn lacks_lane_permute(processor: &str) -> bool {
    processor
        .strip_prefix("gfx")
        .is_some_and(|number| number.len() == 3 && (number.starts_with('6') || number.starts_with('7')))
}

fn failed(what: &str) -> impl Fn(inkwell::builder::BuilderError) -> Unsupported + '_ {
    move |error| Unsupported { what: format!("{what} on AMD waves ({error})") }
}

/// This work-item's lane in its wave (0 to 31, or 0 to 63 on wave64).
fn wave_lane<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let all = i32_type.const_all_ones();
    let low = call_intrinsic(site, "llvm.amdgcn.mbcnt.lo", &[], &[all.into(), i32_type.const_zero().into()])?;
    Ok(call_intrinsic(site, "llvm.amdgcn.mbcnt.hi", &[], &[all.into(), low.into()])?.into_int_value())
}

/// `%laneid`: the lane in the 32-lane warp.
pub fn lane_id<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let lane = wave_lane(site)?;
    site.builder.build_and(lane, site.context.i32_type().const_int(31, false), "laneid").map_err(failed("%laneid"))
}

/// The wave lane where this work-item's warp starts: 0, or 32 for the upper warp of a wave64.
fn warp_start<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let lane = wave_lane(site)?;
    site.builder.build_and(lane, site.context.i32_type().const_int(32, false), "warp.start").map_err(failed("a warp"))
}

/// The warp's lanes (bit i for lane i) where `predicate` (i1) holds, among the active ones.
fn ballot<'ctx>(
    site: &Site<'_, 'ctx>,
    predicate: IntValue<'ctx>,
    start: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i64_type = site.context.i64_type();
    let wave = call_intrinsic(site, "llvm.amdgcn.ballot", &[i64_type.into()], &[predicate.into()])?.into_int_value();
    let start = builder.build_int_z_extend(start, i64_type, "").map_err(failed("a ballot"))?;
    let warp = builder.build_right_shift(wave, start, false, "").map_err(failed("a ballot"))?;
    builder.build_int_truncate(warp, site.context.i32_type(), "ballot").map_err(failed("a ballot"))
}

/// Whether this work-item is the first active lane of its warp, as an i1 (counted barriers
/// let one lane arrive for the warp).
pub fn is_first_active_lane<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let active = ballot(site, site.context.bool_type().const_int(1, false), warp_start(site)?)?;
    let zero_is_poison = site.context.bool_type().const_zero();
    let first = call_intrinsic(site, "llvm.cttz", &[i32_type.into()], &[active.into(), zero_is_poison.into()])?
        .into_int_value();
    builder.build_int_compare(IntPredicate::EQ, first, lane_id(site)?, "warp.leader").map_err(failed("a warp leader"))
}

/// The value (i32 or i64) that warp lane `source` holds: `ds_bpermute` by the wave lane's byte
/// address, in 32-bit halves.
fn read_lane<'ctx>(
    site: &Site<'_, 'ctx>,
    value: IntValue<'ctx>,
    source: IntValue<'ctx>,
    start: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let wave_source = builder.build_int_add(start, source, "").map_err(failed("a lane read"))?;
    let address =
        builder.build_left_shift(wave_source, i32_type.const_int(2, false), "").map_err(failed("a lane read"))?;
    let permute = |half: IntValue<'ctx>| -> Result<IntValue<'ctx>, Unsupported> {
        let arguments: [BasicMetadataValueEnum<'ctx>; 2] = [address.into(), half.into()];
        Ok(call_intrinsic(site, "llvm.amdgcn.ds.bpermute", &[], &arguments)?.into_int_value())
    };
    if value.get_type().get_bit_width() != 64 {
        return permute(value);
    }
    let i64_type = site.context.i64_type();
    let low = builder.build_int_truncate(value, i32_type, "").map_err(failed("a lane read"))?;
    let high =
        builder.build_right_shift(value, i64_type.const_int(32, false), false, "").map_err(failed("a lane read"))?;
    let high = builder.build_int_truncate(high, i32_type, "").map_err(failed("a lane read"))?;
    let low = builder.build_int_z_extend(permute(low)?, i64_type, "").map_err(failed("a lane read"))?;
    let high = builder.build_int_z_extend(permute(high)?, i64_type, "").map_err(failed("a lane read"))?;
    let high = builder.build_left_shift(high, i64_type.const_int(32, false), "").map_err(failed("a lane read"))?;
    builder.build_or(high, low, "").map_err(failed("a lane read"))
}

/// A warp's primitives on its wave, for the shared warp lowering: `start` is the wave lane
/// where the warp begins.
struct WaveHalf<'ctx> {
    start: IntValue<'ctx>,
}

impl<'ctx> LanePrimitives<'ctx> for WaveHalf<'ctx> {
    fn lane(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        lane_id(site)
    }

    fn ballot(&self, site: &Site<'_, 'ctx>, predicate: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        ballot(site, predicate, self.start)
    }

    fn read_lane(
        &self,
        site: &Site<'_, 'ctx>,
        value: IntValue<'ctx>,
        lane: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        read_lane(site, value, lane, self.start)
    }
}

/// Lowers one warp collective on AMD waves: `redux` lane by lane, `bar.warp.sync` as a
/// wavefront fence and wave barrier, the rest from the wave's primitives.
pub fn warp_collective<'ctx>(
    site: &Site<'_, 'ctx>,
    collective: &WarpCollective<'ctx>,
) -> Result<CollectiveResult<'ctx>, Unsupported> {
    let wave = WaveHalf { start: warp_start(site)? };
    match collective {
        WarpCollective::Redux { operation, signed, value, member_mask } => {
            let active = ballot(site, site.context.bool_type().const_int(1, false), wave.start)?;
            let members = site.builder.build_and(active, *member_mask, "members").map_err(failed("a member mask"))?;
            let value = reduce_lane_by_lane(site, &wave, *operation, *signed, *value, members)?;
            Ok(CollectiveResult { value: Some(value), predicate: None })
        }
        WarpCollective::Sync { .. } => {
            // A wave runs its lanes together; the fence orders the warp's memory accesses
            // around the point, as `bar.warp.sync` does.
            fence(site, MemoryOrdering::AcquireRelease, "wavefront")?;
            call_intrinsic_or_void(site, "llvm.amdgcn.wave.barrier", &[])?;
            Ok(CollectiveResult { value: None, predicate: None })
        }
        _ => crate::warp_lanes::lower(site, &wave, collective),
    }
}

#[cfg(test)]
mod tests {
    use super::{is_wave64, lacks_lane_permute};

    #[test]
    fn gfx9_and_earlier_are_wave64_and_gfx10_on_are_wave32_unless_asked() {
        for processor in ["gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx9-generic"] {
            assert!(is_wave64(processor, ""), "{processor}");
        }
        for processor in ["gfx1010", "gfx1030", "gfx1100", "gfx1201", "gfx10-3-generic", "gfx11-generic"] {
            assert!(!is_wave64(processor, ""), "{processor}");
        }
        assert!(is_wave64("gfx1100", "+wavefrontsize64"));
        assert!(is_wave64("gfx1030", "+cumode,+wavefrontsize64"));
    }

    #[test]
    fn only_gfx6_and_gfx7_lack_the_lane_permute() {
        for processor in ["gfx600", "gfx602", "gfx700", "gfx705"] {
            assert!(lacks_lane_permute(processor), "{processor}");
        }
        for processor in
            ["gfx801", "gfx803", "gfx900", "gfx90a", "gfx1030", "gfx1100", "gfx9-generic", "gfx10-3-generic"]
        {
            assert!(!lacks_lane_permute(processor), "{processor}");
        }
    }
}
