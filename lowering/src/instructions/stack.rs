//! `alloca`, `stacksave`, `stackrestore`: LLVM's dynamic `alloca` and `llvm.stacksave` /
//! `llvm.stackrestore` in the data layout's address space of allocas, converted to and from the
//! target's `.local` address space, since PTX's `alloca` returns a `.local` address for
//! `ld.local`/`st.local` (on NVPTX, where allocas are generic pointers, that is `cvta.to.local`).
//! Targets whose back end cannot move the stack pointer say so through `Target::dynamic_stack`.

use inkwell::types::BasicTypeEnum;
use inkwell::values::PointerValue;
use inkwell::values::{BasicMetadataValueEnum, InstructionValue};
use inkwell::AddressSpace;
use ptxr_frontend::ir::{Destination, GuardedInstruction, Operand};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

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
                guarded.spelling,
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
