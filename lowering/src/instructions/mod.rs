//! One file per instruction family; `lower` is the exhaustive dispatch over `Instruction`.

mod comparison;
mod control;
mod conversion;
mod float;
mod integer;
mod memory;
mod support;

use ptxr_frontend::ir::{GuardedInstruction, Instruction};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

pub fn lower(lowering: &mut FunctionLowering<'_, '_>, guarded: &GuardedInstruction) -> LoweringResult<()> {
    let span = guarded.span;
    match &guarded.instruction {
        Instruction::Move { ty, destination, source } => memory::mov(lowering, *ty, destination, source),
        Instruction::Load { state_space, ty, volatile, destination, address } => {
            memory::load(lowering, *state_space, *ty, *volatile, destination, address)
        }
        Instruction::Store { state_space, ty, volatile, address, source } => {
            memory::store(lowering, *state_space, *ty, *volatile, address, source)
        }
        Instruction::ConvertAddress { direction, state_space, size_bits, destination, source } => {
            memory::convert_address(lowering, *direction, *state_space, *size_bits, destination, source)
        }
        Instruction::IntegerBinary { operation, ty, saturate, destination, a, b } => {
            integer::binary(lowering, *operation, *ty, *saturate, destination, a, b)
        }
        Instruction::IntegerMultiplyAdd { mode, ty, saturate, destination, a, b, c } => {
            integer::multiply_add(lowering, *mode, *ty, *saturate, destination, a, b, c)
        }
        Instruction::FloatBinary { operation, ty, rounding, flush_subnormals, saturate, destination, a, b } => {
            float::binary(lowering, guarded, *operation, *ty, *rounding, *flush_subnormals, *saturate, destination, a, b)
        }
        Instruction::FusedMultiplyAdd { ty, rounding, flush_subnormals, saturate, destination, a, b, c } => {
            float::fused_multiply_add(lowering, guarded, *ty, *rounding, *flush_subnormals, *saturate, destination, [a, b, c])
        }
        Instruction::Logic { operation, ty, destination, a, b } => integer::logic(lowering, *operation, *ty, destination, a, b),
        Instruction::Unary { operation, ty, flush_subnormals, destination, a } => {
            integer::unary(lowering, *operation, *ty, *flush_subnormals, destination, a)
        }
        Instruction::Shift { operation, ty, destination, a, b } => integer::shift(lowering, *operation, *ty, destination, a, b),
        Instruction::SetPredicate { comparison, ty, flush_subnormals, destination, complement, a, b, combine } => {
            comparison::set_predicate(lowering, *comparison, *ty, *flush_subnormals, destination, complement.as_ref(), a, b, combine.as_ref())
        }
        Instruction::Select { ty, destination, a, b, predicate } => comparison::select(lowering, *ty, destination, a, b, predicate),
        Instruction::Convert { destination_type, source_type, rounding, flush_subnormals, saturate, destination, source } => {
            conversion::convert(lowering, guarded, *destination_type, *source_type, *rounding, *flush_subnormals, *saturate, destination, source)
        }
        Instruction::Branch { target } => control::branch(lowering, *target),
        Instruction::Return | Instruction::Exit => lowering.build_return(),
        Instruction::Unlowered => Err(LoweringError::unsupported(&format!("`{}`", guarded.spelling), lowering.target_name(), span)),
    }
}
