//! `alloca`, `stacksave`, `stackrestore`: LLVM's dynamic `alloca` and `llvm.stacksave` /
//! `llvm.stackrestore` in the data layout's address space of allocas, converted to and from the
//! target's `.local` address space, since PTX's `alloca` returns a `.local` address for
//! `ld.local`/`st.local` (on NVPTX, where allocas are generic pointers, that is `cvta.to.local`).
//! Targets whose back end cannot move the stack pointer say so through `Target::dynamic_stack`.
//!
//! Where the target bounds the stack (`Target::stack_bound`), no `alloca` takes a thread past
//! its bound: it stops the thread instead (`StopReason::StackOverflow`, which fails the launch).
//! With `StackBound::Floor` (the CPU) each `alloca` compares the room between the stack pointer
//! and the running thread's floor, which the runtime gives, with its size and alignment. With
//! `StackBound::PrivateArray` (SPIR-V) lowering keeps a stack of its own per thread
//! ([`PrivateStack`]): a private array that `alloca` takes from the top down.

use inkwell::types::BasicTypeEnum;
use inkwell::values::{BasicMetadataValueEnum, InstructionValue};
use inkwell::values::{IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::{self, Destination, GuardedInstruction, Operand};
use ptxr_frontend::syntax::ast::FunctionKind;
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};
use ptxr_frontend::Span;
use ptxr_intrinsics::{StackBound, StopReason};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// The address space of allocas: the data layout's `A<n>`, 0 without one (LLVM's rule).
fn alloca_address_space(lowering: &FunctionLowering<'_, '_>) -> AddressSpace {
    let layout = lowering.shared.module.get_data_layout();
    let layout = layout.as_str().to_string_lossy();
    let space = layout
        .split('-')
        .find_map(|part| part.strip_prefix('A').and_then(|number| number.parse::<u16>().ok()))
        .unwrap_or(0);
    AddressSpace::from(space)
}

/// `pointer`, an alloca-space pointer, as the integer `.local` address of type `ty`.
fn local_address<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    pointer: PointerValue<'ctx>,
    ty: ScalarType,
) -> LoweringResult<inkwell::values::IntValue<'ctx>> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let local = context.ptr_type(lowering.address_space(StateSpace::Local));
    let pointer =
        if pointer.get_type() == local { pointer } else { builder.build_address_space_cast(pointer, local, "")? };
    Ok(builder.build_ptr_to_int(pointer, crate::types::integer_type(context, ty.bits()), "")?)
}

/// Refuses where the target cannot, or where a `.u32` address would lose bits.
fn check(lowering: &FunctionLowering<'_, '_>, guarded: &GuardedInstruction, ty: ScalarType) -> LoweringResult<()> {
    let target_name = lowering.target_name();
    lowering
        .shared
        .target
        .dynamic_stack()
        .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, target_name, guarded.span))?;
    let address_bits = lowering.pointer_bits(lowering.address_space(StateSpace::Local));
    if ty.bits() < address_bits {
        return Err(LoweringError::unsupported(
            &format!(
                "`{}` with {}-bit stack addresses (they are {address_bits}-bit here)",
                lowering.spelling(guarded),
                ty.bits()
            ),
            target_name,
            guarded.span,
        ));
    }
    Ok(())
}

pub fn allocate<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    ty: ScalarType,
    destination: &Destination,
    size: &Operand,
    align: u32,
) -> LoweringResult<()> {
    check(lowering, guarded, ty)?;
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let size = lowering.read_int(size, ty)?;
    if let Some(stack) = lowering.private_stack() {
        let address = stack.allocate(lowering, guarded, size, align)?;
        let address =
            builder.build_int_truncate_or_bit_cast(address, crate::types::integer_type(context, ty.bits()), "")?;
        return lowering.write(destination, address.into(), ty);
    }
    stop_unless_it_fits(lowering, guarded, size, align)?;
    let pointer = builder.build_array_alloca(context.i8_type(), size, "dynamic")?;
    if let Some(instruction) = pointer.as_instruction() {
        set_alignment(instruction, align)?;
    }
    let address = local_address(lowering, pointer, ty)?;
    lowering.write(destination, address.into(), ty)
}

fn set_alignment(instruction: InstructionValue<'_>, align: u32) -> LoweringResult<()> {
    instruction.set_alignment(align).map_err(|error| LoweringError::internal(error.to_string(), Default::default()))
}

pub fn save<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    ty: ScalarType,
    destination: &Destination,
) -> LoweringResult<()> {
    check(lowering, guarded, ty)?;
    let context = lowering.shared.context;
    if let Some(stack) = lowering.private_stack() {
        let builder = lowering.shared.builder;
        let pointer = builder.build_load(context.i64_type(), stack.pointer, "stack.pointer")?.into_int_value();
        let address =
            builder.build_int_truncate_or_bit_cast(pointer, crate::types::integer_type(context, ty.bits()), "")?;
        return lowering.write(destination, address.into(), ty);
    }
    let pointer_type: BasicTypeEnum<'ctx> = context.ptr_type(alloca_address_space(lowering)).into();
    let pointer = super::support::intrinsic(lowering, "llvm.stacksave", &[pointer_type], &[], guarded.span)?;
    let address = local_address(lowering, pointer.into_pointer_value(), ty)?;
    lowering.write(destination, address.into(), ty)
}

pub fn restore<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    ty: ScalarType,
    source: &Operand,
) -> LoweringResult<()> {
    check(lowering, guarded, ty)?;
    let context = lowering.shared.context;
    let pointer_type = context.ptr_type(alloca_address_space(lowering));
    let address = lowering.read_int(source, ty)?;
    let builder = lowering.shared.builder;
    if let Some(stack) = lowering.private_stack() {
        let pointer = builder.build_int_z_extend_or_bit_cast(address, context.i64_type(), "")?;
        builder.build_store(stack.pointer, pointer)?;
        return Ok(());
    }
    let local = context.ptr_type(lowering.address_space(StateSpace::Local));
    let pointer = builder.build_int_to_ptr(address, local, "")?;
    let pointer =
        if local == pointer_type { pointer } else { builder.build_address_space_cast(pointer, pointer_type, "")? };
    let missing = || LoweringError::internal("LLVM has no intrinsic llvm.stackrestore", guarded.span);
    let intrinsic = inkwell::intrinsics::Intrinsic::find("llvm.stackrestore").ok_or_else(missing)?;
    let declaration = intrinsic.get_declaration(lowering.shared.module, &[pointer_type.into()]).ok_or_else(missing)?;
    let arguments: [BasicMetadataValueEnum<'ctx>; 1] = [pointer.into()];
    lowering.shared.builder.build_call(declaration, &arguments, "")?;
    Ok(())
}

/// The stack pointer, as a 64-bit integer.
fn stack_pointer<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, span: Span) -> LoweringResult<IntValue<'ctx>> {
    let context = lowering.shared.context;
    let pointer_type: BasicTypeEnum<'ctx> = context.ptr_type(alloca_address_space(lowering)).into();
    let pointer = super::support::intrinsic(lowering, "llvm.stacksave", &[pointer_type], &[], span)?;
    Ok(lowering.shared.builder.build_ptr_to_int(pointer.into_pointer_value(), context.i64_type(), "stack.pointer")?)
}

/// `minuend - subtrahend`, or 0 where that would wrap.
fn saturating_difference<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    minuend: IntValue<'ctx>,
    subtrahend: IntValue<'ctx>,
) -> LoweringResult<IntValue<'ctx>> {
    let builder = lowering.shared.builder;
    let difference = builder.build_int_sub(minuend, subtrahend, "")?;
    let wraps = builder.build_int_compare(IntPredicate::ULT, minuend, subtrahend, "")?;
    let zero = minuend.get_type().const_zero();
    Ok(builder.build_select(wraps, zero, difference, "")?.into_int_value())
}

/// Where the target bounds the stack: leaves the thread (`StopReason::StackOverflow`) unless
/// `size` bytes at alignment `align` fit between the stack pointer and the thread's floor.
fn stop_unless_it_fits<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    size: IntValue<'ctx>,
    align: u32,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let i64_type = context.i64_type();
    let floor = match lowering.shared.target.stack_bound() {
        StackBound::Unchecked => return Ok(()),
        StackBound::Floor => {
            let floor = lowering.shared.target.stack_floor(&lowering.site()).map_err(|unsupported| {
                LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span)
            })?;
            builder.build_int_z_extend_or_bit_cast(floor, i64_type, "")?
        }
        StackBound::PrivateArray(_) => {
            return Err(LoweringError::internal("no private stack in this function", guarded.span))
        }
    };
    let size = builder.build_int_z_extend_or_bit_cast(size, i64_type, "")?;
    let room = saturating_difference(lowering, stack_pointer(lowering, guarded.span)?, floor)?;
    // The alignment may cost up to `align` bytes of padding.
    let room = saturating_difference(lowering, room, i64_type.const_int(u64::from(align), false))?;
    let fits = builder.build_int_compare(IntPredicate::ULE, size, room, "alloca.fits")?;
    stop_for_overflow_unless(lowering, guarded, fits)
}

/// Stops the thread for a stack overflow (and leaves the function) unless `fits`; the builder
/// is left where the allocation goes on.
fn stop_for_overflow_unless<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    fits: IntValue<'ctx>,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let overflow = context.append_basic_block(lowering.llvm_function, "alloca.overflow");
    let go_on = context.append_basic_block(lowering.llvm_function, "alloca.fits");
    builder.build_conditional_branch(fits, go_on, overflow)?;
    builder.position_at_end(overflow);
    super::call::stop_for(lowering, guarded, StopReason::StackOverflow)?;
    builder.position_at_end(go_on);
    Ok(())
}

/// A thread's own stack where the target keeps one (`StackBound::PrivateArray`): a private
/// array of the kernel, taken from the top down, whose stack pointer and floor (the array's
/// start) are two `i64` addresses in the thread's memory, the kernel's own or beside the stop
/// flag that every `.func` receives.
#[derive(Clone, Copy)]
pub(crate) struct PrivateStack<'ctx> {
    /// The stack pointer: the lowest address allocated so far, the array's end at first.
    pointer: PointerValue<'ctx>,
    /// The floor: the array's start.
    floor: PointerValue<'ctx>,
    /// In a `.func` that allocates, the stack pointer at its entry: each return gives back what
    /// it allocated, as a function's frame is popped.
    entry_pointer: Option<PointerValue<'ctx>>,
}

impl<'ctx> PrivateStack<'ctx> {
    /// In a function's prologue: the kernel makes the array (`bytes` long) and its pointers; a
    /// `.func` finds them beside the stop flag and, when it allocates, keeps its entry's pointer.
    pub(crate) fn prologue(lowering: &FunctionLowering<'_, 'ctx>, bytes: u64) -> LoweringResult<Self> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let i64_type = context.i64_type();
        let span = lowering.function.span;
        let pointers = match lowering.stop_flag() {
            // SAFETY: the record is three `i64`s (`ModuleContext::private_stack_bytes`).
            Some(record) => unsafe {
                builder.build_in_bounds_gep(i64_type, record, &[i64_type.const_int(1, false)], "")?
            },
            None if lowering.function.kind == FunctionKind::Entry => {
                builder.build_alloca(i64_type.array_type(2), "private_stack")?
            }
            None => return Err(LoweringError::internal("a `.func` without the private stack", span)),
        };
        // SAFETY: the second of two `i64`s.
        let floor = unsafe { builder.build_in_bounds_gep(i64_type, pointers, &[i64_type.const_int(1, false)], "")? };
        let mut stack = PrivateStack { pointer: pointers, floor, entry_pointer: None };
        if lowering.function.kind == FunctionKind::Entry {
            lowering
                .shared
                .target
                .prepare_private_stack(&lowering.site())
                .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, lowering.target_name(), span))?;
            let length =
                u32::try_from(bytes).map_err(|_| LoweringError::internal("a private stack over 4 GiB", span))?;
            let array = builder.build_alloca(context.i8_type().array_type(length), "thread.stack")?;
            if let Some(instruction) = array.as_instruction() {
                set_alignment(instruction, 16)?;
            }
            let start = builder.build_ptr_to_int(array, i64_type, "stack.floor")?;
            let end = builder.build_int_add(start, i64_type.const_int(bytes, false), "stack.end")?;
            builder.build_store(stack.floor, start)?;
            builder.build_store(stack.pointer, end)?;
        } else if allocates(lowering.function) {
            let entry_pointer = builder.build_alloca(i64_type, "stack.entry")?;
            let pointer = builder.build_load(i64_type, stack.pointer, "stack.pointer")?;
            builder.build_store(entry_pointer, pointer)?;
            stack.entry_pointer = Some(entry_pointer);
        }
        Ok(stack)
    }

    /// Before a `.func` returns: gives back what it allocated.
    pub(crate) fn give_back(&self, lowering: &FunctionLowering<'_, 'ctx>) -> LoweringResult<()> {
        if let Some(entry_pointer) = self.entry_pointer {
            let builder = lowering.shared.builder;
            let pointer = builder.build_load(lowering.shared.context.i64_type(), entry_pointer, "stack.entry")?;
            builder.build_store(self.pointer, pointer)?;
        }
        Ok(())
    }

    /// `size` bytes at alignment `align` below the stack pointer, as an `i64` address; stops the
    /// thread (and leaves the function) where they would reach below the floor.
    fn allocate(
        &self,
        lowering: &mut FunctionLowering<'_, 'ctx>,
        guarded: &GuardedInstruction,
        size: IntValue<'ctx>,
        align: u32,
    ) -> LoweringResult<IntValue<'ctx>> {
        let context = lowering.shared.context;
        let builder = lowering.shared.builder;
        let i64_type = context.i64_type();
        let size = builder.build_int_z_extend_or_bit_cast(size, i64_type, "")?;
        let pointer = builder.build_load(i64_type, self.pointer, "stack.pointer")?.into_int_value();
        let floor = builder.build_load(i64_type, self.floor, "stack.floor")?.into_int_value();
        let room = saturating_difference(lowering, pointer, floor)?;
        let below = builder.build_int_sub(pointer, size, "")?;
        let mask = i64_type.const_int(!(u64::from(align) - 1), false);
        let lowest = builder.build_and(below, mask, "alloca.address")?;
        // `size <= room` first: otherwise `below` has wrapped.
        let size_fits = builder.build_int_compare(IntPredicate::ULE, size, room, "")?;
        let above_floor = builder.build_int_compare(IntPredicate::UGE, lowest, floor, "")?;
        let fits = builder.build_and(size_fits, above_floor, "alloca.fits")?;
        stop_for_overflow_unless(lowering, guarded, fits)?;
        let builder = lowering.shared.builder;
        builder.build_store(self.pointer, lowest)?;
        Ok(lowest)
    }
}

/// Whether `function` has an `alloca`.
fn allocates(function: &ir::Function) -> bool {
    function.body.iter().flatten().any(|statement| {
        matches!(statement, ir::Statement::Instruction(instruction)
            if matches!(instruction.instruction, ir::Instruction::StackAllocate { .. }))
    })
}
