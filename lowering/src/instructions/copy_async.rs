//! `cp.async` (ISA 7.8 section 9.7.8.22): ptxr completes the copy before the next instruction on
//! every target, which is a correct schedule of an asynchronous copy: `cp.async.wait_group` and
//! `cp.async.wait_all` then have nothing left to wait for.

use inkwell::values::IntValue;
use inkwell::IntPredicate;
use ptxr_frontend::ir::{Address, Operand};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// Copies `copy_size` bytes from global to shared memory; bytes at and after the source size
/// (all of them when `ignore_source` is true) are zeros, and are not read.
pub fn copy(
    lowering: &mut FunctionLowering<'_, '_>,
    destination: &Address,
    source: &Address,
    copy_size: u32,
    source_size: Option<&Operand>,
    ignore_source: Option<&Operand>,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let destination_pointer = lowering.address(destination, StateSpace::Shared)?;
    let source_pointer = lowering.address(source, StateSpace::Global)?;
    let i32_type = context.i32_type();
    let mut readable: IntValue = match source_size {
        Some(size) => lowering.read_int(size, ScalarType::U32)?,
        None => i32_type.const_int(u64::from(copy_size), false),
    };
    if let Some(ignore) = ignore_source {
        let ignore = lowering.read_int(ignore, ScalarType::Pred)?;
        readable = builder.build_select(ignore, i32_type.const_zero(), readable, "")?.into_int_value();
    }
    let byte = context.i8_type();
    for index in 0..copy_size {
        let offset = context.i64_type().const_int(u64::from(index), false);
        // SAFETY: byte offsets inside the copied block; LLVM is told nothing about bounds.
        let (from, to) = unsafe {
            (
                builder.build_gep(byte, source_pointer, &[offset], "")?,
                builder.build_gep(byte, destination_pointer, &[offset], "")?,
            )
        };
        let in_source =
            builder.build_int_compare(IntPredicate::ULT, i32_type.const_int(u64::from(index), false), readable, "")?;
        // Bytes past the source size may lie outside the source allocation: read them only
        // behind a branch.
        let read_block = context.append_basic_block(lowering.llvm_function, "copy_byte");
        let join_block = context.append_basic_block(lowering.llvm_function, "copy_byte_done");
        let entry_block = builder.get_insert_block().ok_or_else(|| {
            crate::error::LoweringError::internal("no insertion block for cp.async", destination.span)
        })?;
        builder.build_conditional_branch(in_source, read_block, join_block)?;
        builder.position_at_end(read_block);
        let value = builder.build_load(byte, from, "")?.into_int_value();
        builder.build_unconditional_branch(join_block)?;
        builder.position_at_end(join_block);
        let phi = builder.build_phi(byte, "")?;
        phi.add_incoming(&[(&value, read_block), (&byte.const_zero(), entry_block)]);
        builder.build_store(to, phi.as_basic_value())?;
    }
    Ok(())
}
