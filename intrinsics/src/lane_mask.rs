//! `%lanemask_eq/lt/le/gt/ge` from the lane id, the same on every target that has `%laneid`:
//! `eq` is `1 << lane`, `lt` the bits below it, `le` both, `gt` and `ge` their complements.

use inkwell::values::IntValue;
use ptxr_frontend::vocabulary::LaneRelation;

use crate::{Site, Unsupported};

pub fn from_lane<'ctx>(
    site: &Site<'_, 'ctx>,
    relation: LaneRelation,
    lane: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("a lane mask ({error})") };
    let i32_type = site.context.i32_type();
    let lane = builder.build_and(lane, i32_type.const_int(31, false), "").map_err(failed)?;
    let equal = builder.build_left_shift(i32_type.const_int(1, false), lane, "lanemask.eq").map_err(failed)?;
    let less = builder.build_int_sub(equal, i32_type.const_int(1, false), "lanemask.lt").map_err(failed)?;
    let less_or_equal = builder.build_or(less, equal, "lanemask.le").map_err(failed)?;
    Ok(match relation {
        LaneRelation::Equal => equal,
        LaneRelation::Less => less,
        LaneRelation::LessOrEqual => less_or_equal,
        LaneRelation::Greater => builder.build_not(less_or_equal, "lanemask.gt").map_err(failed)?,
        LaneRelation::GreaterOrEqual => builder.build_not(less, "lanemask.ge").map_err(failed)?,
    })
}
