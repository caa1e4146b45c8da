//! `setp`, `selp` and `slct` (ISA 7.8 section 9.7.5).

use inkwell::values::IntValue;
use inkwell::{FloatPredicate, IntPredicate};
use ptxr_frontend::ir::{Comparison, Destination, LogicOperation, Operand};
use ptxr_frontend::vocabulary::ScalarType;

use super::support::flush_subnormal;
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

pub(super) fn float_predicate(comparison: Comparison) -> FloatPredicate {
    match comparison {
        Comparison::Equal => FloatPredicate::OEQ,
        Comparison::NotEqual => FloatPredicate::ONE,
        Comparison::Less | Comparison::LowerUnsigned => FloatPredicate::OLT,
        Comparison::LessOrEqual | Comparison::LowerOrSameUnsigned => FloatPredicate::OLE,
        Comparison::Greater | Comparison::HigherUnsigned => FloatPredicate::OGT,
        Comparison::GreaterOrEqual | Comparison::HigherOrSameUnsigned => FloatPredicate::OGE,
        Comparison::EqualUnordered => FloatPredicate::UEQ,
        Comparison::NotEqualUnordered => FloatPredicate::UNE,
        Comparison::LessUnordered => FloatPredicate::ULT,
        Comparison::LessOrEqualUnordered => FloatPredicate::ULE,
        Comparison::GreaterUnordered => FloatPredicate::UGT,
        Comparison::GreaterOrEqualUnordered => FloatPredicate::UGE,
        Comparison::Numbers => FloatPredicate::ORD,
        Comparison::NotANumber => FloatPredicate::UNO,
    }
}

pub(super) fn int_predicate(comparison: Comparison, signed: bool) -> IntPredicate {
    match (comparison, signed) {
        (Comparison::Equal, _) => IntPredicate::EQ,
        (Comparison::NotEqual, _) => IntPredicate::NE,
        (Comparison::Less, true) => IntPredicate::SLT,
        (Comparison::LessOrEqual, true) => IntPredicate::SLE,
        (Comparison::Greater, true) => IntPredicate::SGT,
        (Comparison::GreaterOrEqual, true) => IntPredicate::SGE,
        (Comparison::Less | Comparison::LowerUnsigned, _) => IntPredicate::ULT,
        (Comparison::LessOrEqual | Comparison::LowerOrSameUnsigned, _) => IntPredicate::ULE,
        (Comparison::Greater | Comparison::HigherUnsigned, _) => IntPredicate::UGT,
        (Comparison::GreaterOrEqual | Comparison::HigherOrSameUnsigned, _) => IntPredicate::UGE,
        // Float-only comparisons never reach integer types (the checker rejects them).
        (_, _) => IntPredicate::EQ,
    }
}

pub(super) fn combine<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operation: LogicOperation,
    a: IntValue<'ctx>,
    b: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    Ok(match operation {
        LogicOperation::And => builder.build_and(a, b, "")?,
        LogicOperation::Or => builder.build_or(a, b, "")?,
        LogicOperation::Xor => builder.build_xor(a, b, "")?,
    })
}

/// `p = (a cmp b) op c` and, with `p|q`, `q = !(a cmp b) op c`.
#[allow(clippy::too_many_arguments)]
pub fn set_predicate<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    comparison: Comparison,
    ty: ScalarType,
    flush_subnormals: bool,
    destination: &Destination,
    complement: Option<&Destination>,
    a: &Operand,
    b: &Operand,
    combine_with: Option<&(LogicOperation, Operand, bool)>,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let compared = if matches!(ty, ScalarType::F16 | ScalarType::Bf16) {
        // Half-precision values compare exactly after widening, without LLVM's bfloat type.
        super::half::compare_lanes(lowering, comparison, ty, flush_subnormals, a, b)?[0]
    } else if ty.is_float() {
        let mut left = lowering.read(a, ty)?.into_float_value();
        let mut right = lowering.read(b, ty)?.into_float_value();
        if flush_subnormals {
            left = flush_subnormal(lowering, left, ty, a.span)?;
            right = flush_subnormal(lowering, right, ty, b.span)?;
        }
        builder.build_float_compare(float_predicate(comparison), left, right, "")?
    } else {
        let (left, right) = (lowering.read_int(a, ty)?, lowering.read_int(b, ty)?);
        builder.build_int_compare(int_predicate(comparison, ty.is_signed()), left, right, "")?
    };
    let inverse = builder.build_not(compared, "")?;
    let (result, complement_result) = match combine_with {
        None => (compared, inverse),
        Some((operation, predicate, negated)) => {
            let mut c = lowering.read_int(predicate, ScalarType::Pred)?;
            if *negated {
                c = builder.build_not(c, "")?;
            }
            (combine(lowering, *operation, compared, c)?, combine(lowering, *operation, inverse, c)?)
        }
    };
    lowering.write(destination, result.into(), ScalarType::Pred)?;
    if let Some(complement) = complement {
        lowering.write(complement, complement_result.into(), ScalarType::Pred)?;
    }
    Ok(())
}

pub fn select<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    predicate: &Operand,
) -> LoweringResult<()> {
    let condition = lowering.read_int(predicate, ScalarType::Pred)?;
    let (a, b) = (lowering.read(a, ty)?, lowering.read(b, ty)?);
    let result = lowering.shared.builder.build_select(condition, a, b, "")?;
    lowering.write(destination, result, ty)
}

/// `slct`: `c >= 0 ? a : b`. On `.f32`, `-0.0 >= 0` holds and a NaN `c` selects `b` (the
/// comparison is false); `.ftz` flushes a subnormal `c` to a zero of its sign first, so a
/// negative subnormal then selects `a`.
#[allow(clippy::too_many_arguments)]
pub fn select_by_sign<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    condition_type: ScalarType,
    flush_subnormals: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    c: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let not_negative = if condition_type.is_float() {
        let mut value = lowering.read(c, condition_type)?.into_float_value();
        if flush_subnormals {
            value = flush_subnormal(lowering, value, condition_type, c.span)?;
        }
        builder.build_float_compare(FloatPredicate::OGE, value, value.get_type().const_zero(), "")?
    } else {
        let value = lowering.read_int(c, condition_type)?;
        builder.build_int_compare(IntPredicate::SGE, value, value.get_type().const_zero(), "")?
    };
    let (a, b) = (lowering.read(a, ty)?, lowering.read(b, ty)?);
    let result = builder.build_select(not_negative, a, b, "")?;
    lowering.write(destination, result, ty)
}
