//! `wgmma` where the target has it (`Target::native_warp_group_matrix`: NVPTX at sm_90a): the
//! operands read and handed to `Target::warp_group_collective`, which writes the instruction
//! itself, so that it runs asynchronously on the tensor cores as the program asked; D's
//! registers are written back from what the target returns. Elsewhere `warp_group_matrix.rs`
//! computes each `wgmma.mma_async` at its issue.
//!
//! The hardware writes D asynchronously, but LLVM sees D's registers written at the
//! `wgmma.mma_async` and could move a computation on them above the program's
//! `wgmma.wait_group` (or the writes that start an accumulator below its `wgmma.fence`), since
//! nothing ties those values to the calls. So the fence and the wait pass every accumulator
//! register of the function through an empty inline PTX statement with tied operands, placed
//! before the fence and after the wait, as CUTLASS's `warpgroup_fence_operand` and Triton's
//! waits do: what writes them stays before it, what reads them after.

use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use ptxr_frontend::ir::{
    Destination, GuardedInstruction, Instruction, Statement, WarpGroupA, WarpGroupElement, WarpGroupMultiplyAccumulate,
};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_intrinsics::{WarpGroupCollective, WarpGroupOperands, WarpGroupSource};

use super::matrix::unsupported;
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// `wgmma.fence`, `wgmma.commit_group` or `wgmma.wait_group`, with the accumulators pinned
/// before a fence and after a wait (see the header).
pub fn synchronize<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    synchronization: &WarpGroupCollective<'ctx>,
) -> LoweringResult<()> {
    if matches!(synchronization, WarpGroupCollective::Fence) {
        pin_accumulators(lowering)?;
    }
    collective(lowering, guarded, synchronization)?;
    if matches!(synchronization, WarpGroupCollective::Wait { .. }) {
        pin_accumulators(lowering)?;
    }
    Ok(())
}

/// D's register type of `operation`: `.f32`, `.s32`, or `.b32` pairs of `.f16`.
fn d_register(operation: &ptxr_frontend::ir::WarpGroupMultiply) -> ScalarType {
    match operation.d {
        WarpGroupElement::F16 => ScalarType::B32,
        WarpGroupElement::S32 => ScalarType::S32,
        _ => ScalarType::F32,
    }
}

/// Every register that a `wgmma.mma_async` of the function accumulates in, once each.
fn accumulators(lowering: &FunctionLowering<'_, '_>) -> Vec<Destination> {
    let mut registers: Vec<Destination> = Vec::new();
    let statements = lowering.function.body.as_deref().unwrap_or_default();
    for statement in statements {
        let Statement::Instruction(instruction) = statement else { continue };
        let Instruction::WarpGroupMultiplyAccumulate(multiply) = &instruction.instruction else { continue };
        for destination in multiply.destinations.iter() {
            let known = registers
                .iter()
                .any(|known| known.register == destination.register && known.member == destination.member);
            if !known {
                registers.push(*destination);
            }
        }
    }
    registers
}

/// Passes the function's accumulator registers through an empty side-effecting inline PTX
/// statement that reads and writes each one (see the header).
fn pin_accumulators(lowering: &FunctionLowering<'_, '_>) -> LoweringResult<()> {
    let registers = accumulators(lowering);
    if registers.is_empty() {
        return Ok(());
    }
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let mut values: Vec<BasicValueEnum<'_>> = Vec::with_capacity(registers.len());
    for destination in &registers {
        let ty = lowering.shared.value_type(lowering.variable(destination.register).ty);
        let pointer =
            lowering.register_pointer(destination.register, destination.member.map(u32::from), destination.span)?;
        values.push(builder.build_load(ty, pointer, "")?);
    }
    let letter = |value: &BasicValueEnum<'_>| if value.is_float_value() { "f" } else { "r" };
    let mut constraints: Vec<String> = values.iter().map(|value| format!("={}", letter(value))).collect();
    constraints.extend((0..values.len()).map(|index| index.to_string()));
    let types: Vec<BasicTypeEnum<'_>> = values.iter().map(|value| value.get_type()).collect();
    let parameters: Vec<BasicMetadataTypeEnum<'_>> = types.iter().map(|ty| (*ty).into()).collect();
    let function_type = context.struct_type(&types, false).fn_type(&parameters, false);
    let assembly = context.create_inline_asm(
        function_type,
        "// wgmma accumulators".to_string(),
        constraints.join(","),
        true,
        false,
        None,
        false,
    );
    let arguments: Vec<BasicMetadataValueEnum<'_>> = values.iter().map(|value| (*value).into()).collect();
    let call = builder.build_indirect_call(function_type, assembly, &arguments, "pinned")?;
    let Some(BasicValueEnum::StructValue(pinned)) = call.try_as_basic_value().basic() else {
        return Ok(());
    };
    for (index, destination) in registers.iter().enumerate() {
        let value = builder.build_extract_value(pinned, index as u32, "")?;
        let pointer =
            lowering.register_pointer(destination.register, destination.member.map(u32::from), destination.span)?;
        builder.build_store(pointer, value)?;
    }
    Ok(())
}

/// Hands `collective` to the target; gives D's registers for a `wgmma.mma_async`.
pub fn collective<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    collective: &WarpGroupCollective<'ctx>,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    lowering.shared.target.warp_group_collective(&lowering.site(), collective).map_err(unsupported(lowering, guarded))
}

pub fn multiply_accumulate(
    lowering: &FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    instruction: &WarpGroupMultiplyAccumulate,
) -> LoweringResult<()> {
    let register = d_register(&instruction.operation);
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
