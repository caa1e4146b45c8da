//! `mma.sync` and `ldmatrix.sync` (ISA 7.8 sections 9.7.13.4.14 and 9.7.13.4.15). On targets
//! whose `matrix_lowering` is `Collective`, the lane stores its fragments into the function's
//! fragment buffer, the target's matrix collective makes the warp meet and computes, and the
//! lane reads its result back from the buffer; on the others, `matrix_by_shuffles.rs` builds
//! the results from warp shuffles.

use inkwell::values::IntValue;
use inkwell::values::{BasicValueEnum, PointerValue};
use ptxr_frontend::ir::{
    Address, Destination, GuardedInstruction, MatrixElement, MatrixMultiply, Operand, SparseMatrixA,
};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};
use ptxr_intrinsics::{MatrixCollective, MatrixLowering, Unsupported};
use ptxr_runtime::abi::matrix_fragments as slot;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// The register type of a fragment of `element`s, as the frontend checked it.
pub(super) fn fragment_register(element: MatrixElement) -> ScalarType {
    match element {
        MatrixElement::F32 => ScalarType::F32,
        MatrixElement::S32 => ScalarType::S32,
        MatrixElement::F64 => ScalarType::F64,
        _ => ScalarType::B32,
    }
}

/// The integer type of `words` buffer words.
fn bits_type<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, words: usize) -> inkwell::types::IntType<'ctx> {
    let context = lowering.shared.context;
    if words == 2 {
        context.i64_type()
    } else {
        context.i32_type()
    }
}

/// The buffer words one register of `ty` takes: two for `.f64`, low word first.
fn words_per_register(ty: ScalarType) -> usize {
    (ty.bits() as usize).div_ceil(32)
}

/// A pointer to word `index` of the buffer.
fn word<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    buffer: PointerValue<'ctx>,
    index: usize,
) -> LoweringResult<PointerValue<'ctx>> {
    let i32_type = lowering.shared.context.i32_type();
    let offset = i32_type.const_int(index as u64, false);
    // SAFETY: every index is below `slot::WORDS`, the buffer's length.
    Ok(unsafe { lowering.shared.builder.build_in_bounds_gep(i32_type, buffer, &[offset], "") }?)
}

/// The 32 bits (an `i32`) of each register of a fragment of `element`s.
pub(super) fn fragment_words<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    registers: &[Operand],
    element: MatrixElement,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let i32_type = lowering.shared.context.i32_type();
    registers
        .iter()
        .map(|register| {
            let value = lowering.read(register, fragment_register(element))?;
            Ok(lowering.shared.builder.build_bit_cast(value, i32_type, "")?.into_int_value())
        })
        .collect()
}

/// Writes each 32-bit word (an `i32`) to its destination, as `ty`.
pub(super) fn write_words<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    destinations: &[Destination],
    words: &[IntValue<'ctx>],
    ty: ScalarType,
) -> LoweringResult<()> {
    let wanted = crate::types::llvm_type(lowering.shared.context, ty);
    for (destination, bits) in destinations.iter().zip(words) {
        let value: BasicValueEnum<'ctx> = lowering.shared.builder.build_bit_cast(*bits, wanted, "")?;
        lowering.write(destination, value, ty)?;
    }
    Ok(())
}

fn store_fragment<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    buffer: PointerValue<'ctx>,
    offset: usize,
    registers: &[Operand],
    element: MatrixElement,
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let ty = fragment_register(element);
    let words = words_per_register(ty);
    let bits_type = bits_type(lowering, words);
    for (index, register) in registers.iter().enumerate() {
        let value = lowering.read(register, ty)?;
        let bits = builder.build_bit_cast(value, bits_type, "")?;
        builder.build_store(word(lowering, buffer, offset + words * index)?, bits)?;
    }
    Ok(())
}

/// `count` registers of `ty` from the buffer, from word `offset`.
fn read_fragment<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    buffer: PointerValue<'ctx>,
    offset: usize,
    count: usize,
    ty: ScalarType,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let builder = lowering.shared.builder;
    let words = words_per_register(ty);
    let bits_type = bits_type(lowering, words);
    let wanted = crate::types::llvm_type(lowering.shared.context, ty);
    (0..count)
        .map(|index| {
            let bits = builder.build_load(bits_type, word(lowering, buffer, offset + words * index)?, "")?;
            Ok(builder.build_bit_cast(bits, wanted, "")?)
        })
        .collect()
}

/// Writes the buffer's registers from word `offset` to each destination, as `ty`.
fn load_fragment<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    buffer: PointerValue<'ctx>,
    offset: usize,
    destinations: &[Destination],
    ty: ScalarType,
) -> LoweringResult<()> {
    let values = read_fragment(lowering, buffer, offset, destinations.len(), ty)?;
    for (destination, value) in destinations.iter().zip(values) {
        lowering.write(destination, value, ty)?;
    }
    Ok(())
}

fn collective<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    collective: &MatrixCollective<'ctx>,
) -> LoweringResult<()> {
    lowering.shared.target.matrix_collective(&lowering.site(), collective).map_err(unsupported(lowering, guarded))
}

/// The error for a matrix instruction that the target cannot lower, naming the instruction and
/// the reason.
pub(super) fn unsupported<'g>(
    lowering: &FunctionLowering<'_, '_>,
    guarded: &'g GuardedInstruction,
) -> impl Fn(Unsupported) -> LoweringError + 'g {
    let target = lowering.target_name();
    let spelling = lowering.spelling(guarded);
    move |unsupported: Unsupported| {
        LoweringError::unsupported(&format!("`{spelling}` ({})", unsupported.what), target, guarded.span)
    }
}

#[allow(clippy::too_many_arguments)]
pub fn multiply_accumulate(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    destinations: &[Destination],
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
    sparse: Option<&SparseMatrixA>,
) -> LoweringResult<()> {
    let d = match sparse {
        Some(sparse) => {
            super::sparse_matrix::multiply_accumulate_values(lowering, guarded, operation, a, b, c, sparse)?
        }
        None => multiply_accumulate_values(lowering, guarded, operation, a, b, c)?,
    };
    let ty = fragment_register(operation.d);
    for (destination, value) in destinations.iter().zip(d) {
        lowering.write(destination, value, ty)?;
    }
    Ok(())
}

/// D's registers of an `mma`, as `fragment_register(operation.d)` values, not yet written (a
/// `wmma.mma` writes those of all its tiles after computing them).
pub(super) fn multiply_accumulate_values<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    if lowering.shared.target.matrix_lowering() == MatrixLowering::Shuffles {
        return super::matrix_by_shuffles::multiply_accumulate_values(lowering, guarded, operation, a, b, c);
    }
    by_collective(lowering, guarded, operation, a.len(), b, c, |buffer| {
        store_fragment(lowering, buffer, slot::A, a, operation.a)
    })
}

/// D's registers of an `mma` whose A is given as its registers' 32 bits (`i32`s, not `.f64`):
/// the dense A that `mma.sp` rebuilds on targets without it (`sparse_matrix.rs`).
pub(super) fn multiply_accumulate_words<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a: &[IntValue<'ctx>],
    b: &[Operand],
    c: &[Operand],
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    if lowering.shared.target.matrix_lowering() == MatrixLowering::Shuffles {
        return super::matrix_by_shuffles::multiply_accumulate_words(lowering, guarded, operation, a, b, c);
    }
    by_collective(lowering, guarded, operation, a.len(), b, c, |buffer| {
        for (index, word) in a.iter().enumerate() {
            lowering.shared.builder.build_store(self::word(lowering, buffer, slot::A + index)?, *word)?;
        }
        Ok(())
    })
}

/// D's registers of a dense `mma` through `Target::matrix_collective`: B and C go into the
/// fragment buffer, `store_a` writes A's `a_registers` words there.
fn by_collective<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a_registers: usize,
    b: &[Operand],
    c: &[Operand],
    store_a: impl FnOnce(PointerValue<'ctx>) -> LoweringResult<()>,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let buffer = fragment_buffer(lowering, guarded, operation, a_registers, b, c)?;
    store_a(buffer)?;
    collective(lowering, guarded, &MatrixCollective::MultiplyAccumulate { operation: *operation, fragments: buffer })?;
    read_fragment(lowering, buffer, slot::D, operation.d_registers() as usize, fragment_register(operation.d))
}

/// D's registers of an `mma.sp` on a target with its own instruction
/// (`Target::native_sparse_matrix`): `a` is the lane's non-zero half of A.
#[allow(clippy::too_many_arguments)]
pub(super) fn sparse_multiply_accumulate_values<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
    metadata: IntValue<'ctx>,
    selector: u32,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let buffer = fragment_buffer(lowering, guarded, operation, a.len(), b, c)?;
    store_fragment(lowering, buffer, slot::A, a, operation.a)?;
    let sparse =
        MatrixCollective::SparseMultiplyAccumulate { operation: *operation, metadata, selector, fragments: buffer };
    collective(lowering, guarded, &sparse)?;
    read_fragment(lowering, buffer, slot::D, operation.d_registers() as usize, fragment_register(operation.d))
}

/// The function's fragment buffer with B's and C's registers stored, once it is known that
/// `a_registers` 32-bit registers of A and every other operand fit.
fn fragment_buffer<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a_registers: usize,
    b: &[Operand],
    c: &[Operand],
) -> LoweringResult<PointerValue<'ctx>> {
    let words = |element: MatrixElement, count: usize| count * words_per_register(fragment_register(element));
    let fits = words(operation.a, a_registers) <= slot::B - slot::A
        && words(operation.b, b.len()) <= slot::C - slot::B
        && words(operation.c, c.len()) <= slot::D - slot::C
        && words(operation.d, operation.d_registers() as usize) <= slot::WORDS - slot::D;
    if !fits {
        return Err(LoweringError::internal("an `mma` fragment larger than the buffer", guarded.span));
    }
    let buffer = lowering.matrix_fragments(guarded.span)?;
    store_fragment(lowering, buffer, slot::B, b, operation.b)?;
    store_fragment(lowering, buffer, slot::C, c, operation.c)?;
    Ok(buffer)
}

pub fn load_matrix(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    matrices: u32,
    transpose: bool,
    state_space: StateSpace,
    destinations: &[Destination],
    address: &Address,
) -> LoweringResult<()> {
    if lowering.shared.target.matrix_lowering() == MatrixLowering::Shuffles {
        return super::matrix_by_shuffles::load_matrix(
            lowering,
            guarded,
            matrices,
            transpose,
            state_space,
            destinations,
            address,
        );
    }
    let buffer = lowering.matrix_fragments(guarded.span)?;
    let row = lowering.address(address, state_space)?;
    collective(lowering, guarded, &MatrixCollective::Load { matrices, transpose, row, fragments: buffer })?;
    load_fragment(lowering, buffer, slot::LOADED, destinations, ScalarType::B32)
}
