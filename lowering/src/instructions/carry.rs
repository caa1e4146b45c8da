//! Extended-precision arithmetic through the carry flag `CC.CF` (ISA 7.8 section 9.7.2).
//!
//! The flag lives in one `i1` alloca per function (`FunctionLowering::carry_flag`), so a carry
//! survives branches and guards. It holds what NVIDIA hardware holds: the carry out of the
//! addition, and for subtraction the carry out of `a + ~b + 1`, which is 1 when there was *no*
//! borrow. `subc` computes `a + ~b + CC.CF`, that is `a - b - borrow`. Within a chain of
//! subtractions this is the spec's borrow arithmetic; it also makes `addc` after `sub.cc` read
//! what the hardware reads.

use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{CarryOperation, Destination, Operand};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_frontend::Span;

use super::integer::high_product;
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// `x + y + carry_in` with its carry out.
fn add_with_carry<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    x: IntValue<'ctx>,
    y: IntValue<'ctx>,
    carry_in: IntValue<'ctx>,
) -> LoweringResult<(IntValue<'ctx>, IntValue<'ctx>)> {
    let builder = lowering.shared.builder;
    let partial = builder.build_int_add(x, y, "")?;
    let first_carry = builder.build_int_compare(IntPredicate::ULT, partial, x, "")?;
    let carry_in_wide = builder.build_int_z_extend(carry_in, x.get_type(), "")?;
    let sum = builder.build_int_add(partial, carry_in_wide, "")?;
    // Adding the incoming carry overflows only when `partial` was all ones.
    let second_carry = builder.build_int_compare(IntPredicate::ULT, sum, partial, "")?;
    Ok((sum, builder.build_or(first_carry, second_carry, "")?))
}

/// The incoming carry: the flag for `addc`/`subc`/`madc`, else 0 for additions and 1 for
/// subtractions (`a - b` is `a + ~b + 1`).
fn incoming_carry<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    carry_in: bool,
    default: bool,
    span: Span,
) -> LoweringResult<IntValue<'ctx>> {
    let bool_type = lowering.shared.context.bool_type();
    if carry_in {
        let flag = lowering.carry_flag(span)?;
        Ok(lowering.shared.builder.build_load(bool_type, flag, "carry_in")?.into_int_value())
    } else {
        Ok(bool_type.const_int(u64::from(default), false))
    }
}

fn store_carry<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, carry: IntValue<'ctx>, span: Span) -> LoweringResult<()> {
    let flag = lowering.carry_flag(span)?;
    lowering.shared.builder.build_store(flag, carry)?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn arithmetic<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    operation: CarryOperation,
    ty: ScalarType,
    carry_in: bool,
    carry_out: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let span = a.span.to(b.span);
    let (a, b) = (lowering.read_int(a, ty)?, lowering.read_int(b, ty)?);
    let (addend, default_carry) = match operation {
        CarryOperation::Add => (b, false),
        CarryOperation::Subtract => (builder.build_not(b, "")?, true),
    };
    let incoming = incoming_carry(lowering, carry_in, default_carry, span)?;
    let (result, carry) = add_with_carry(lowering, a, addend, incoming)?;
    if carry_out {
        store_carry(lowering, carry, span)?;
    }
    lowering.write(destination, result.into(), ty)
}

#[allow(clippy::too_many_arguments)]
pub fn multiply_add<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    high: bool,
    ty: ScalarType,
    carry_in: bool,
    carry_out: bool,
    destination: &Destination,
    a: &Operand,
    b: &Operand,
    c: &Operand,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let span = a.span.to(c.span);
    let (a, b, c) = (lowering.read_int(a, ty)?, lowering.read_int(b, ty)?, lowering.read_int(c, ty)?);
    let product = if high { high_product(lowering, ty, a, b)? } else { builder.build_int_mul(a, b, "")? };
    let incoming = incoming_carry(lowering, carry_in, false, span)?;
    let (result, carry) = add_with_carry(lowering, product, c, incoming)?;
    if carry_out {
        store_carry(lowering, carry, span)?;
    }
    lowering.write(destination, result.into(), ty)
}
