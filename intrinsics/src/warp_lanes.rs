//! Warp collectives on GPU targets, built from three per-lane primitives that each target gives
//! in its own way ([`LanePrimitives`]): the lane's index in its warp, a ballot of the active
//! lanes, and reading another lane's value. `shfl` (source lane and range from
//! [`crate::collective::shuffle_source`]), `vote`, `match` (one read per lane) and `activemask`
//! follow from those the same way on every such target; `redux` and `bar.warp.sync` stay with
//! the targets, which have better instructions for them, but a `redux` over any subset of the
//! warp can be read lane by lane here ([`reduce_lane_by_lane`]).
//!
//! Member masks name the lanes that execute the instruction together, which on a GPU are the
//! active lanes: the lanes taking part are the active ones within the mask.

use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{ReduxOperation, VoteMode};

use crate::collective::shuffle_source;
use crate::{CollectiveResult, Site, Unsupported, WarpCollective};

/// What a target provides for 32-lane warps.
pub trait LanePrimitives<'ctx> {
    /// This work-item's lane in its warp (i32, 0 to 31).
    fn lane(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported>;
    /// The warp's lanes (bit i for lane i, an i32) where `predicate` (i1) holds, among the
    /// active ones.
    fn ballot(&self, site: &Site<'_, 'ctx>, predicate: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported>;
    /// The value (i32 or i64) that warp lane `lane` (i32) holds.
    fn read_lane(
        &self,
        site: &Site<'_, 'ctx>,
        value: IntValue<'ctx>,
        lane: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported>;
}

fn failed(what: &'static str) -> impl Fn(inkwell::builder::BuilderError) -> Unsupported {
    move |error| Unsupported { what: format!("{what} ({error})") }
}

/// The lanes taking part: the active ones, within the member mask if given.
fn members<'ctx>(
    site: &Site<'_, 'ctx>,
    lanes: &dyn LanePrimitives<'ctx>,
    mask: Option<IntValue<'ctx>>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let active = lanes.ballot(site, site.context.bool_type().const_int(1, false))?;
    match mask {
        Some(mask) => site.builder.build_and(active, mask, "members").map_err(failed("a member mask")),
        None => Ok(active),
    }
}

/// The member lanes whose `value` equals this lane's, through one read per lane.
fn matching_lanes<'ctx>(
    site: &Site<'_, 'ctx>,
    lanes: &dyn LanePrimitives<'ctx>,
    value: IntValue<'ctx>,
    members: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let mut matching = i32_type.const_zero();
    for lane in 0..32u64 {
        let other = lanes.read_lane(site, value, i32_type.const_int(lane, false))?;
        let same = builder.build_int_compare(IntPredicate::EQ, other, value, "").map_err(failed("match"))?;
        let bit = builder.build_int_z_extend(same, i32_type, "").map_err(failed("match"))?;
        let bit = builder.build_left_shift(bit, i32_type.const_int(lane, false), "").map_err(failed("match"))?;
        matching = builder.build_or(matching, bit, "").map_err(failed("match"))?;
    }
    builder.build_and(matching, members, "match").map_err(failed("match"))
}

/// Lowers `shfl`, `vote`, `match` and `activemask` from the target's primitives. `redux` and
/// `bar.warp.sync` are the target's own; asked for them, this reports them unsupported.
pub fn lower<'ctx>(
    site: &Site<'_, 'ctx>,
    lanes: &dyn LanePrimitives<'ctx>,
    collective: &WarpCollective<'ctx>,
) -> Result<CollectiveResult<'ctx>, Unsupported> {
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let single = |value: IntValue<'ctx>| CollectiveResult { value: Some(value), predicate: None };
    let compare = |predicate: IntPredicate, left: IntValue<'ctx>, right: IntValue<'ctx>| {
        builder.build_int_compare(predicate, left, right, "").map_err(failed("a vote"))
    };
    match collective {
        WarpCollective::Shuffle { mode, value, lane, clamp, .. } => {
            let own_lane = lanes.lane(site)?;
            let (source, in_range) = shuffle_source(site, *mode, own_lane, *lane, *clamp)?;
            let result = lanes.read_lane(site, *value, source)?;
            Ok(CollectiveResult { value: Some(result), predicate: Some(in_range) })
        }
        WarpCollective::Vote { mode, predicate, member_mask } => {
            let members = members(site, lanes, *member_mask)?;
            let votes = lanes.ballot(site, *predicate)?;
            let votes = builder.build_and(votes, members, "votes").map_err(failed("a vote"))?;
            Ok(single(match mode {
                VoteMode::Ballot => votes,
                VoteMode::All => compare(IntPredicate::EQ, votes, members)?,
                VoteMode::Any => compare(IntPredicate::NE, votes, i32_type.const_zero())?,
                VoteMode::Uniform => {
                    let all = compare(IntPredicate::EQ, votes, members)?;
                    let none = compare(IntPredicate::EQ, votes, i32_type.const_zero())?;
                    builder.build_or(all, none, "uniform").map_err(failed("a vote"))?
                }
            }))
        }
        WarpCollective::Match { all, value, member_mask } => {
            let members = members(site, lanes, Some(*member_mask))?;
            let matching = matching_lanes(site, lanes, *value, members)?;
            if !*all {
                return Ok(single(matching));
            }
            let everyone = compare(IntPredicate::EQ, matching, members)?;
            let result = builder.build_select(everyone, members, i32_type.const_zero(), "").map_err(failed("match"))?;
            Ok(CollectiveResult { value: Some(result.into_int_value()), predicate: Some(everyone) })
        }
        WarpCollective::ActiveMask => Ok(single(members(site, lanes, None)?)),
        WarpCollective::Redux { .. } | WarpCollective::Sync { .. } => {
            Err(Unsupported { what: "`redux` and `bar.warp.sync` through the shared warp lowering".to_string() })
        }
    }
}

/// Whether warp lane `lane` (a constant) is in `members`, as an i1.
fn is_member<'ctx>(site: &Site<'_, 'ctx>, members: IntValue<'ctx>, lane: u64) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let bit = site.builder.build_and(members, i32_type.const_int(1 << lane, false), "").map_err(failed("a mask"))?;
    site.builder.build_int_compare(IntPredicate::NE, bit, i32_type.const_zero(), "").map_err(failed("a mask"))
}

/// `redux.sync` over the lanes of `members` (active lanes within the member mask), reading
/// every lane of the warp in turn (32 reads): for targets without a reduction over an
/// arbitrary subset of the warp, such as a tile of 16 that cooperative groups reduce with its
/// own mask while the other tile does the same.
pub fn reduce_lane_by_lane<'ctx>(
    site: &Site<'_, 'ctx>,
    lanes: &dyn LanePrimitives<'ctx>,
    operation: ReduxOperation,
    signed: bool,
    value: IntValue<'ctx>,
    members: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let identity: u64 = match (operation, signed) {
        (ReduxOperation::Minimum, true) => i32::MAX as u64,
        (ReduxOperation::Minimum, false) | (ReduxOperation::And, _) => u64::from(u32::MAX),
        (ReduxOperation::Maximum, true) => i32::MIN as u32 as u64,
        _ => 0,
    };
    let mut accumulator = i32_type.const_int(identity, false);
    for lane in 0..32u64 {
        let other = lanes.read_lane(site, value, i32_type.const_int(lane, false))?;
        let combined = match operation {
            ReduxOperation::Add => builder.build_int_add(accumulator, other, "").map_err(failed("redux"))?,
            ReduxOperation::And => builder.build_and(accumulator, other, "").map_err(failed("redux"))?,
            ReduxOperation::Or => builder.build_or(accumulator, other, "").map_err(failed("redux"))?,
            ReduxOperation::Xor => builder.build_xor(accumulator, other, "").map_err(failed("redux"))?,
            ReduxOperation::Minimum | ReduxOperation::Maximum => {
                let predicate = match (operation, signed) {
                    (ReduxOperation::Minimum, true) => IntPredicate::SLT,
                    (ReduxOperation::Minimum, false) => IntPredicate::ULT,
                    (_, true) => IntPredicate::SGT,
                    (_, false) => IntPredicate::UGT,
                };
                let better = builder.build_int_compare(predicate, other, accumulator, "").map_err(failed("redux"))?;
                builder.build_select(better, other, accumulator, "").map_err(failed("redux"))?.into_int_value()
            }
        };
        let member = is_member(site, members, lane)?;
        accumulator =
            builder.build_select(member, combined, accumulator, "redux").map_err(failed("redux"))?.into_int_value();
    }
    Ok(accumulator)
}
