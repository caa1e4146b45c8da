//! `add`, `sub`, `mul` and `fma` on `.f32x2` (ISA 8.6): each `.b64` operand holds two `.f32`
//! lanes, bits 0 to 31 the first. Each lane is computed as the `.f32` instruction with the same
//! rounding and `.ftz` (`float.rs`), and the two results are packed back into one `.b64`.

use inkwell::values::{FloatValue, IntValue};
use ptxr_frontend::ir::{
    Destination, FloatBinaryOperation, GuardedInstruction, Operand, PackedSingleOperation, RoundingMode,
};
use ptxr_frontend::vocabulary::ScalarType;

use super::directed;
use super::float::{directed_binary, fused_directed};
use super::support::flush_subnormal;
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

#[allow(clippy::too_many_arguments)]
pub fn arithmetic<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: PackedSingleOperation,
    rounding: RoundingMode,
    flush_subnormals: bool,
    destination: &Destination,
    [a, b]: [&Operand; 2],
    c: Option<&Operand>,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let i32_type = lowering.shared.context.i32_type();
    let i64_type = lowering.shared.context.i64_type();
    let f32_type = lowering.shared.context.f32_type();
    let directed = directed::is_directed(Some(rounding));
    // The two lanes of each source, flushed first under `.ftz` as the `.f32` instructions do.
    let lanes = |operand: &Operand| -> LoweringResult<[FloatValue<'ctx>; 2]> {
        let bits = lowering.read(operand, ScalarType::B64)?.into_int_value();
        let high = builder.build_right_shift(bits, i64_type.const_int(32, false), false, "")?;
        let lane = |word: IntValue<'ctx>| -> LoweringResult<FloatValue<'ctx>> {
            let word = builder.build_int_truncate(word, i32_type, "")?;
            let value = builder.build_bit_cast(word, f32_type, "")?.into_float_value();
            if flush_subnormals {
                flush_subnormal(lowering, value, ScalarType::F32, operand.span)
            } else {
                Ok(value)
            }
        };
        Ok([lane(bits)?, lane(high)?])
    };
    let a = lanes(a)?;
    let b = lanes(b)?;
    let c = match c {
        Some(c) => Some(lanes(c)?),
        None => None,
    };
    let mut packed = i64_type.const_zero();
    for lane in 0..2 {
        let (x, y) = (a[lane], b[lane]);
        let mut result = match (operation, c) {
            (PackedSingleOperation::FusedMultiplyAdd, Some(c)) if directed => {
                fused_directed(lowering, x, y, c[lane], rounding, guarded.span)?
            }
            (PackedSingleOperation::FusedMultiplyAdd, Some(c)) => {
                directed::fused(lowering, x, y, c[lane], guarded.span)?
            }
            // The checker gives `fma` its addend, so `fma` never comes here.
            (PackedSingleOperation::Add | PackedSingleOperation::Subtract | PackedSingleOperation::Multiply, _)
            | (PackedSingleOperation::FusedMultiplyAdd, None) => {
                let subtract = operation == PackedSingleOperation::Subtract;
                let binary = match operation {
                    PackedSingleOperation::Add => FloatBinaryOperation::Add,
                    PackedSingleOperation::Subtract => FloatBinaryOperation::Subtract,
                    PackedSingleOperation::Multiply | PackedSingleOperation::FusedMultiplyAdd => {
                        FloatBinaryOperation::Multiply
                    }
                };
                if directed {
                    directed_binary(lowering, guarded, binary, x, y, rounding)?
                } else if binary == FloatBinaryOperation::Multiply {
                    builder.build_float_mul(x, y, "")?
                } else if subtract {
                    builder.build_float_sub(x, y, "")?
                } else {
                    builder.build_float_add(x, y, "")?
                }
            }
        };
        if flush_subnormals {
            result = flush_subnormal(lowering, result, ScalarType::F32, destination.span)?;
        }
        let word = builder.build_bit_cast(result, i32_type, "")?.into_int_value();
        let word = builder.build_int_z_extend(word, i64_type, "")?;
        let word = builder.build_left_shift(word, i64_type.const_int(32 * lane as u64, false), "")?;
        packed = builder.build_or(packed, word, "")?;
    }
    lowering.write(destination, packed.into(), ScalarType::B64)
}
