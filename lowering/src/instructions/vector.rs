//! Vector loads and stores (`ld.v4`, `st.v2`), element-wise `mov.vN`, and the packing and
//! unpacking forms of `mov` (ISA 7.8 sections 9.7.8.1, 9.7.8.8 and 9.7.8.9).

use inkwell::values::{BasicValue, BasicValueEnum, IntValue};
use ptxr_frontend::ir::{Address, Destination, Operand};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;
use crate::instructions::memory::{apply_access, Access};
use crate::types::{integer_type, llvm_type};

/// The alignment PTX guarantees for element `index` of a vector access: the whole vector is
/// aligned to its size, so an element is aligned to the largest power of two dividing its
/// offset, at most the vector's size.
fn element_alignment(ty: ScalarType, lanes: usize, index: usize) -> u32 {
    let vector_bytes = ty.bytes() * lanes as u32;
    let offset = ty.bytes() * index as u32;
    if offset == 0 {
        vector_bytes
    } else {
        vector_bytes.min(1 << offset.trailing_zeros())
    }
}

/// The pointer to element `index` of a vector access starting at `base`.
fn element_pointer<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    base: inkwell::values::PointerValue<'ctx>,
    ty: ScalarType,
    index: usize,
) -> LoweringResult<inkwell::values::PointerValue<'ctx>> {
    if index == 0 {
        return Ok(base);
    }
    let context = lowering.shared.context;
    let offset = context.i64_type().const_int(u64::from(ty.bytes()) * index as u64, false);
    // SAFETY: PTX addresses are plain byte offsets; LLVM is told nothing about bounds.
    Ok(unsafe { lowering.shared.builder.build_gep(context.i8_type(), base, &[offset], "") }?)
}

/// The integer type of a whole ordered vector access of 32 or 64 bits, which is made as one
/// atomic access (`None`: element by element). The ISA models a vector access as its elements'
/// accesses in an unspecified order (ISA 7.8 section 8.2.3), so one access of them all is one
/// of the allowed behaviours, and it is the one GPUs have: CUB's decoupled look-back publishes
/// a tile's status and value with one `st.relaxed.gpu.v2.u32` and reads them with one
/// `ld.relaxed.gpu.v2.u32`, so that a reader never sees a new status with an old value.
fn whole_access_type<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    ty: ScalarType,
    lanes: usize,
    access: Access,
) -> Option<(inkwell::types::IntType<'ctx>, ScalarType)> {
    let bits = ty.bits() * lanes as u32;
    let whole = match bits {
        32 => ScalarType::B32,
        64 => ScalarType::B64,
        _ => return None,
    };
    (access.ordered.is_some() && lanes > 1 && ty != ScalarType::Pred)
        .then(|| (crate::types::integer_type(lowering.shared.context, bits), whole))
}

pub fn load_vector(
    lowering: &mut FunctionLowering<'_, '_>,
    state_space: StateSpace,
    ty: ScalarType,
    access: Access,
    destinations: &[Option<Destination>],
    address: &Address,
) -> LoweringResult<()> {
    let base = lowering.address(address, state_space)?;
    let value_type = llvm_type(lowering.shared.context, ty);
    if let Some((whole_type, whole)) = whole_access_type(lowering, ty, destinations.len(), access) {
        let builder = lowering.shared.builder;
        let loaded = builder.build_load(whole_type, base, "")?;
        if let Some(instruction) = loaded.as_instruction_value() {
            let _ = instruction.set_alignment(whole.bytes());
            apply_access(lowering, instruction, whole, access, address.span)?;
        }
        let loaded = loaded.into_int_value();
        let element_type = integer_type(lowering.shared.context, ty.bits());
        let mut values = Vec::with_capacity(destinations.len());
        for index in 0..destinations.len() {
            let shift = whole_type.const_int(u64::from(ty.bits()) * index as u64, false);
            let element =
                builder.build_int_truncate(builder.build_right_shift(loaded, shift, false, "")?, element_type, "")?;
            values.push(builder.build_bit_cast(element, value_type, "")?);
        }
        for (destination, value) in destinations.iter().zip(values) {
            if let Some(destination) = destination {
                lowering.write(destination, value, ty)?;
            }
        }
        return Ok(());
    }
    // Every element is loaded before any is written: a destination may be the address register.
    let mut values = Vec::with_capacity(destinations.len());
    for (index, destination) in destinations.iter().enumerate() {
        if destination.is_none() && !access.volatile && access.ordered.is_none() {
            values.push(None);
            continue;
        }
        let pointer = element_pointer(lowering, base, ty, index)?;
        let value = lowering.shared.builder.build_load(value_type, pointer, "")?;
        if let Some(instruction) = value.as_instruction_value() {
            let _ = instruction.set_alignment(element_alignment(ty, destinations.len(), index));
            apply_access(lowering, instruction, ty, access, address.span)?;
        }
        values.push(Some(value));
    }
    for (destination, value) in destinations.iter().zip(values) {
        if let (Some(destination), Some(value)) = (destination, value) {
            lowering.write(destination, value, ty)?;
        }
    }
    Ok(())
}

pub fn store_vector(
    lowering: &mut FunctionLowering<'_, '_>,
    state_space: StateSpace,
    ty: ScalarType,
    access: Access,
    address: &Address,
    sources: &[Operand],
) -> LoweringResult<()> {
    let base = lowering.address(address, state_space)?;
    if let Some((whole_type, whole)) = whole_access_type(lowering, ty, sources.len(), access) {
        let builder = lowering.shared.builder;
        let element_type = integer_type(lowering.shared.context, ty.bits());
        let mut packed = whole_type.const_zero();
        for (index, source) in sources.iter().enumerate() {
            let value = lowering.read(source, ty)?;
            let bits = builder.build_bit_cast(value, element_type, "")?.into_int_value();
            let widened = builder.build_int_z_extend_or_bit_cast(bits, whole_type, "")?;
            let shift = whole_type.const_int(u64::from(ty.bits()) * index as u64, false);
            packed = builder.build_or(packed, builder.build_left_shift(widened, shift, "")?, "")?;
        }
        let store = builder.build_store(base, packed)?;
        let _ = store.set_alignment(whole.bytes());
        return apply_access(lowering, store, whole, access, address.span);
    }
    for (index, source) in sources.iter().enumerate() {
        let value = lowering.read(source, ty)?;
        let pointer = element_pointer(lowering, base, ty, index)?;
        let store = lowering.shared.builder.build_store(pointer, value)?;
        let _ = store.set_alignment(element_alignment(ty, sources.len(), index));
        apply_access(lowering, store, ty, access, address.span)?;
    }
    Ok(())
}

/// `mov.vN`: all sources are read first, so `{a, b}, {b, a}` swaps.
pub fn move_vector(
    lowering: &mut FunctionLowering<'_, '_>,
    ty: ScalarType,
    destinations: &[Destination],
    sources: &[Operand],
) -> LoweringResult<()> {
    let values = sources.iter().map(|source| lowering.read(source, ty)).collect::<LoweringResult<Vec<_>>>()?;
    for (destination, value) in destinations.iter().zip(values) {
        lowering.write(destination, value, ty)?;
    }
    Ok(())
}

/// The bit type of one of `count` equal parts of `ty`.
fn element_type(ty: ScalarType, count: usize, span: ptxr_frontend::Span) -> LoweringResult<ScalarType> {
    match ty.bits() / count.max(1) as u32 {
        8 => Ok(ScalarType::B8),
        16 => Ok(ScalarType::B16),
        32 => Ok(ScalarType::B32),
        64 => Ok(ScalarType::B64),
        _ => Err(LoweringError::internal("a packed element that is not 8 to 64 bits", span)),
    }
}

/// `mov.bN d, {a, b, ...}`: the first element in the lowest bits.
pub fn pack(
    lowering: &mut FunctionLowering<'_, '_>,
    ty: ScalarType,
    destination: &Destination,
    sources: &[Operand],
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let element = element_type(ty, sources.len(), destination.span)?;
    if ty.bits() == 128 && lowering.shared.wide_values_in_halves() {
        return pack_halves(lowering, element, destination, sources);
    }
    let packed_type = integer_type(context, ty.bits());
    let mut packed: IntValue = packed_type.const_zero();
    for (index, source) in sources.iter().enumerate() {
        let value = lowering.read_int(source, element)?;
        let widened = builder.build_int_z_extend(value, packed_type, "")?;
        let shift = packed_type.const_int(u64::from(element.bits()) * index as u64, false);
        let shifted = builder.build_left_shift(widened, shift, "")?;
        packed = builder.build_or(packed, shifted, "")?;
    }
    lowering.write(destination, packed.as_basic_value_enum(), ty)
}

/// `mov.bN {d0, d1, ...}, a`: the lowest bits into the first destination.
pub fn unpack(
    lowering: &mut FunctionLowering<'_, '_>,
    ty: ScalarType,
    destinations: &[Option<Destination>],
    source: &Operand,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let element = element_type(ty, destinations.len(), source.span)?;
    if ty.bits() == 128 && lowering.shared.wide_values_in_halves() {
        return unpack_halves(lowering, element, destinations, source);
    }
    let packed = lowering.read_int(source, ty)?;
    let mut parts: Vec<BasicValueEnum> = Vec::with_capacity(destinations.len());
    for index in 0..destinations.len() {
        let shift = packed.get_type().const_int(u64::from(element.bits()) * index as u64, false);
        let shifted = builder.build_right_shift(packed, shift, false, "")?;
        parts.push(builder.build_int_truncate(shifted, integer_type(context, element.bits()), "")?.into());
    }
    for (destination, part) in destinations.iter().zip(parts) {
        if let Some(destination) = destination {
            lowering.write(destination, part, element)?;
        }
    }
    Ok(())
}

/// `mov.b128 d, {..}` where 128-bit values are two `i64` halves (`WideValues::Halves`): each
/// half packed from its share of the elements, the first element in the low half's lowest bits.
fn pack_halves(
    lowering: &mut FunctionLowering<'_, '_>,
    element: ScalarType,
    destination: &Destination,
    sources: &[Operand],
) -> LoweringResult<()> {
    let builder = lowering.shared.builder;
    let i64_type = lowering.shared.context.i64_type();
    let per_half = sources.len() / 2;
    let mut packed = [i64_type.const_zero(); 2];
    for (index, source) in sources.iter().enumerate() {
        let value = lowering.read_int(source, element)?;
        let widened = builder.build_int_z_extend_or_bit_cast(value, i64_type, "")?;
        let shift = i64_type.const_int(u64::from(element.bits()) * (index % per_half) as u64, false);
        let shifted = builder.build_left_shift(widened, shift, "")?;
        let half = &mut packed[index / per_half];
        *half = builder.build_or(*half, shifted, "")?;
    }
    let value = crate::values::halves(lowering, packed[0], packed[1])?;
    lowering.write(destination, value.into(), ScalarType::B128)
}

/// `mov.b128 {..}, a` where 128-bit values are two `i64` halves: the low half's lowest bits into
/// the first destination.
fn unpack_halves(
    lowering: &mut FunctionLowering<'_, '_>,
    element: ScalarType,
    destinations: &[Option<Destination>],
    source: &Operand,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let packed = lowering.read(source, ScalarType::B128)?.into_vector_value();
    let halves = crate::values::split_halves(lowering, packed)?;
    let per_half = destinations.len() / 2;
    let mut parts: Vec<BasicValueEnum> = Vec::with_capacity(destinations.len());
    for index in 0..destinations.len() {
        let half = halves[index / per_half];
        let shift = half.get_type().const_int(u64::from(element.bits()) * (index % per_half) as u64, false);
        let shifted = builder.build_right_shift(half, shift, false, "")?;
        parts.push(builder.build_int_truncate_or_bit_cast(shifted, integer_type(context, element.bits()), "")?.into());
    }
    for (destination, part) in destinations.iter().zip(parts) {
        if let Some(destination) = destination {
            lowering.write(destination, part, element)?;
        }
    }
    Ok(())
}
