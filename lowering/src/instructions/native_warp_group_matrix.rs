//! `wgmma` where the target has it (`Target::native_warp_group_matrix`: NVPTX at sm_90a): the
//! operands read and handed to `Target::warp_group_collective`, which writes the instruction
//! itself, so that it runs asynchronously on the tensor cores as the program asked; D's
//! registers are written back from what the target returns. Elsewhere `warp_group_matrix.rs`
//! computes each `wgmma.mma_async` at its issue.

use ptxr_frontend::ir::{GuardedInstruction, WarpGroupA, WarpGroupElement, WarpGroupMultiplyAccumulate};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_intrinsics::{WarpGroupCollective, WarpGroupOperands, WarpGroupSource};

use super::matrix::unsupported;
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Hands `collective` to the target; gives D's registers for a `wgmma.mma_async`.
pub fn collective<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    collective: &WarpGroupCollective<'ctx>,
) -> LoweringResult<Vec<inkwell::values::BasicValueEnum<'ctx>>> {
    lowering.shared.target.warp_group_collective(&lowering.site(), collective).map_err(unsupported(lowering, guarded))
}

pub fn multiply_accumulate(
    lowering: &FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    instruction: &WarpGroupMultiplyAccumulate,
) -> LoweringResult<()> {
    // D's registers as the checker typed them: `.f32`, `.s32`, or `.b32` pairs of `.f16`.
    let register = match instruction.operation.d {
        WarpGroupElement::F16 => ScalarType::B32,
        WarpGroupElement::S32 => ScalarType::S32,
        _ => ScalarType::F32,
    };
    let accumulator = instruction
        .accumulator
        .iter()
        .map(|operand| lowering.read(operand, register))
        .collect::<LoweringResult<Vec<_>>>()?;
    let a = match &instruction.a {
        WarpGroupA::Descriptor(operand) => WarpGroupSource::Descriptor(lowering.read_int(operand, ScalarType::B64)?),
        WarpGroupA::Registers(registers) => WarpGroupSource::Registers(
            registers.iter().map(|operand| lowering.read_int(operand, ScalarType::B32)).collect::<Result<_, _>>()?,
        ),
    };
    let operands = WarpGroupOperands {
        operation: instruction.operation,
        accumulator,
        a,
        b: lowering.read_int(&instruction.b, ScalarType::B64)?,
        scale_d: lowering.read_int(&instruction.scale_d, ScalarType::Pred)?,
        negate_a: instruction.negate_a,
        negate_b: instruction.negate_b,
        transpose_a: instruction.transpose_a,
        transpose_b: instruction.transpose_b,
    };
    let values = collective(lowering, guarded, &WarpGroupCollective::MultiplyAccumulate(operands))?;
    if values.len() != instruction.destinations.len() {
        return Err(LoweringError::internal(
            format!("`wgmma.mma_async` gave {} of {} registers", values.len(), instruction.destinations.len()),
            guarded.span,
        ));
    }
    for (destination, value) in instruction.destinations.iter().zip(values) {
        lowering.write(destination, value, register)?;
    }
    Ok(())
}
