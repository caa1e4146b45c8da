//! `setp` and `set` on the half types, and `set` on every type (ISA 7.8 sections 9.7.5.1 and
//! 9.7.6).

use inkwell::values::IntValue;
use ptxr_frontend::ir::{Comparison, Destination, LogicOperation, Operand};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::super::comparison::{combine, float_predicate, int_predicate};
use super::super::support::flush_subnormal;
use super::{read_flushed, write_lanes, Emit, Format};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// Each lane's comparison of `a` with `b` (low lane first) on a half type.
pub fn compare_lanes<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    comparison: Comparison,
    ty: ScalarType,
    flush: bool,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let emit = Emit { lowering, span: a.span };
    let format = Format::of(ty);
    let a_lanes = read_flushed(&emit, a, ty, flush && format == Format::Half)?;
    let b_lanes = read_flushed(&emit, b, ty, flush && format == Format::Half)?;
    a_lanes
        .into_iter()
        .zip(b_lanes)
        .map(|(a, b)| {
            let (a, b) = (emit.widen(a, format)?, emit.widen(b, format)?);
            emit.compare_float(float_predicate(comparison), a, b)
        })
        .collect()
}

/// Combines each lane's comparison with `{!}c` when the instruction has a boolean operation.
fn combine_lanes<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    lanes: Vec<IntValue<'ctx>>,
    combine_with: Option<&(LogicOperation, Operand, bool)>,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let Some((operation, predicate, negated)) = combine_with else {
        return Ok(lanes);
    };
    let mut c = lowering.read_int(predicate, ScalarType::Pred)?;
    if *negated {
        c = lowering.shared.builder.build_not(c, "")?;
    }
    lanes.into_iter().map(|lane| combine(lowering, *operation, lane, c)).collect()
}

/// `setp.cmp[.bool].f16x2 p|q, a, b[, c]`
#[allow(clippy::too_many_arguments)]
pub fn packed_set_predicate<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    comparison: Comparison,
    ty: ScalarType,
    flush: bool,
    low: &Destination,
    high: Option<&Destination>,
    a: &Operand,
    b: &Operand,
    combine_with: Option<&(LogicOperation, Operand, bool)>,
) -> LoweringResult<()> {
    let lanes = compare_lanes(lowering, comparison, ty, flush, a, b)?;
    let lanes = combine_lanes(lowering, lanes, combine_with)?;
    lowering.write(low, lanes[0].into(), ScalarType::Pred)?;
    if let Some(high) = high {
        lowering.write(high, lanes[1].into(), ScalarType::Pred)?;
    }
    Ok(())
}

/// `set.cmp[.bool].dtype.stype d, a, b[, c]`
#[allow(clippy::too_many_arguments)]
pub fn set<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    comparison: Comparison,
    destination_type: ScalarType,
    source_type: ScalarType,
    flush: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    combine_with: Option<&(LogicOperation, Operand, bool)>,
    span: Span,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let lanes = match source_type {
        ScalarType::F16 | ScalarType::Bf16 | ScalarType::F16x2 | ScalarType::Bf16x2 => {
            compare_lanes(lowering, comparison, source_type, flush, a, b)?
        }
        ScalarType::F32 | ScalarType::F64 => {
            let mut left = lowering.read(a, source_type)?.into_float_value();
            let mut right = lowering.read(b, source_type)?.into_float_value();
            if flush {
                left = flush_subnormal(lowering, left, source_type, a.span)?;
                right = flush_subnormal(lowering, right, source_type, b.span)?;
            }
            vec![builder.build_float_compare(float_predicate(comparison), left, right, "")?]
        }
        _ => {
            let (left, right) = (lowering.read_int(a, source_type)?, lowering.read_int(b, source_type)?);
            vec![builder.build_int_compare(int_predicate(comparison, source_type.is_signed()), left, right, "")?]
        }
    };
    let lanes = combine_lanes(lowering, lanes, combine_with)?;
    let emit = Emit { lowering, span };
    if lanes.len() == 2 {
        // Packed sources: each half is 1.0 (packed float destinations) or 0xffff.
        let truth = match destination_type {
            ScalarType::F16x2 => Format::Half.one(),
            ScalarType::Bf16x2 => Format::Brain.one(),
            _ => 0xffff,
        };
        let values = lanes
            .iter()
            .map(|lane| emit.select_int(*lane, emit.i16(truth), emit.i16(0)))
            .collect::<LoweringResult<Vec<_>>>()?;
        return write_lanes(&emit, destination, &values);
    }
    let (truth, bit_type) = match destination_type {
        ScalarType::F32 => (0x3f80_0000, ScalarType::B32),
        ScalarType::F16 => (Format::Half.one(), ScalarType::B16),
        ScalarType::Bf16 => (Format::Brain.one(), ScalarType::B16),
        ScalarType::U16 | ScalarType::S16 => (0xffff, ScalarType::B16),
        _ => (0xffff_ffff, ScalarType::B32),
    };
    let int_type = crate::types::integer_type(emit.context(), bit_type.bits());
    let value = emit.select_int(lanes[0], int_type.const_int(truth, false), int_type.const_zero())?;
    lowering.write(destination, value.into(), bit_type)
}
