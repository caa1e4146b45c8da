//! `mov`, `ld`, `st` and `cvta`.

use inkwell::types::BasicType;
use inkwell::values::BasicValue;
use ptxr_frontend::ir::{Address, AddressConversion, Destination, Operand, OrderedAccess};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

use ptxr_intrinsics::address_ranges::AddressRange;

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

pub fn mov(
    lowering: &mut FunctionLowering<'_, '_>,
    ty: ScalarType,
    destination: &Destination,
    source: &Operand,
) -> LoweringResult<()> {
    let value = lowering.read(source, ty)?;
    lowering.write(destination, value, ty)
}

pub fn load(
    lowering: &mut FunctionLowering<'_, '_>,
    state_space: StateSpace,
    ty: ScalarType,
    access: Access,
    destination: &Destination,
    address: &Address,
) -> LoweringResult<()> {
    let pointer = lowering.address(address, state_space)?;
    let value_type = lowering.shared.value_type(ty);
    let value = lowering.shared.builder.build_load(value_type.as_basic_type_enum(), pointer, "")?;
    if let Some(instruction) = value.as_instruction_value() {
        // PTX requires natural alignment of every access.
        let _ = instruction.set_alignment(ty.bytes());
        apply_access(lowering, instruction, ty, access, address.span)?;
    }
    lowering.write(destination, value, ty)
}

pub fn store(
    lowering: &mut FunctionLowering<'_, '_>,
    state_space: StateSpace,
    ty: ScalarType,
    access: Access,
    address: &Address,
    source: &Operand,
) -> LoweringResult<()> {
    let pointer = lowering.address(address, state_space)?;
    let value = lowering.read(source, ty)?;
    let store = lowering.shared.builder.build_store(pointer, value)?;
    let _ = store.set_alignment(ty.bytes());
    apply_access(lowering, store, ty, access, address.span)
}

/// How a load or store touches memory: `.volatile`, and the ordering and scope of a strong
/// access.
#[derive(Clone, Copy)]
pub struct Access {
    pub volatile: bool,
    pub ordered: Option<OrderedAccess>,
}

/// Marks a load or store volatile, or atomic with the PTX ordering in the target's sync scope.
pub fn apply_access<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    instruction: inkwell::values::InstructionValue<'ctx>,
    ty: ScalarType,
    access: Access,
    span: ptxr_frontend::Span,
) -> LoweringResult<()> {
    let _ = instruction.set_volatile(access.volatile);
    let Some(ordered) = access.ordered else { return Ok(()) };
    if ty.bits() > 64 {
        return Err(crate::error::LoweringError::unsupported(
            &format!("ordered {}-bit loads and stores", ty.bits()),
            lowering.target_name(),
            span,
        ));
    }
    let scope = lowering.shared.target.sync_scope(ordered.scope);
    ptxr_intrinsics::atomics::order_access(&lowering.site(), instruction, ordered.ordering, scope);
    Ok(())
}

/// `cvta`: an address as an integer moves between a state space's window and the generic one.
pub fn convert_address<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    direction: AddressConversion,
    state_space: StateSpace,
    shared_cluster: bool,
    size_bits: u32,
    destination: &Destination,
    source: &Operand,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let ty = if size_bits == 64 { ScalarType::U64 } else { ScalarType::U32 };
    let integer = lowering.read_int(source, ty)?;
    if shared_cluster {
        let to_generic = direction == AddressConversion::ToGeneric;
        let converted =
            lowering.shared.target.convert_shared_cluster_address(&lowering.site(), to_generic, integer).map_err(
                |unsupported| {
                    crate::error::LoweringError::unsupported(&unsupported.what, lowering.target_name(), source.span)
                },
            )?;
        if let Some(converted) = converted {
            return lowering.write(destination, converted.into(), ty);
        }
        // Every CTA is a cluster of one: its `.shared::cluster` addresses are its `.shared` ones.
    }
    if let (StateSpace::Local, Some(origin)) = (state_space, lowering.local_window()) {
        // `.local` addresses are offsets into the function's window (`FunctionLowering::local_window`).
        let (local, generic) = (lowering.address_space(StateSpace::Local), lowering.address_space(StateSpace::Generic));
        let cast = |pointer: inkwell::values::PointerValue<'ctx>, space| {
            if pointer.get_type().get_address_space() == space {
                Ok(pointer)
            } else {
                builder.build_address_space_cast(pointer, context.ptr_type(space), "")
            }
        };
        let result = match direction {
            AddressConversion::ToGeneric => {
                let pointer = cast(lowering.in_local_window(integer, origin, source.span)?, generic)?;
                builder.build_ptr_to_int(pointer, integer.get_type(), "")?
            }
            AddressConversion::FromGeneric => {
                let pointer = cast(builder.build_int_to_ptr(integer, context.ptr_type(generic), "")?, local)?;
                let offset = lowering.local_window_offset(pointer, origin, source.span)?;
                builder.build_int_truncate_or_bit_cast(offset, integer.get_type(), "")?
            }
        };
        return lowering.write(destination, result.into(), ty);
    }
    // A `.param` address is a generic one in a kernel's `.param` window, or the address of the
    // function's own copy in the local space (`FunctionLowering::parameter_addresses`).
    let state_space = if state_space == StateSpace::Param { lowering.parameter_addresses() } else { state_space };
    let (from, to) = match direction {
        AddressConversion::ToGeneric => (state_space, StateSpace::Generic),
        AddressConversion::FromGeneric => (StateSpace::Generic, state_space),
    };
    if let (StateSpace::Shared, Some(base)) = (state_space, lowering.shared_window_base()) {
        // Generic addresses of shared memory are the window's generic addresses; shared-space
        // addresses are offsets from its base.
        let generic = lowering.address_space(StateSpace::Generic);
        let base = if base.get_type().get_address_space() == generic {
            base
        } else {
            builder.build_address_space_cast(base, context.ptr_type(generic), "")?
        };
        let base = builder.build_ptr_to_int(base, integer.get_type(), "")?;
        let result = match direction {
            AddressConversion::ToGeneric => builder.build_int_add(base, integer, "")?,
            AddressConversion::FromGeneric => builder.build_int_sub(integer, base, "")?,
        };
        return lowering.write(destination, result.into(), ty);
    }
    let (from_space, to_space) = (lowering.address_space(from), lowering.address_space(to));
    if from_space == to_space {
        return lowering.write(destination, integer.into(), ty);
    }
    let pointer = builder.build_int_to_ptr(integer, context.ptr_type(from_space), "")?;
    let cast = builder.build_address_space_cast(pointer, context.ptr_type(to_space), "")?;
    let result = builder.build_ptr_to_int(cast, crate::types::integer_type(context, size_bits), "")?;
    lowering.write(destination, result.into(), ty)
}

/// `createpolicy`: ptxr lowers `.L2::cache_hint` accesses without their hint, so no instruction
/// ever reads a policy's bits; every policy is the same opaque value, zero.
pub fn create_policy(lowering: &mut FunctionLowering<'_, '_>, destination: &Destination) -> LoweringResult<()> {
    let policy = lowering.shared.context.i64_type().const_zero();
    lowering.write(destination, policy.into(), ScalarType::B64)
}

/// `prefetch`: a hint with no effect on results; the address is still computed so that its
/// operands are checked the same way as a load's.
pub fn prefetch(
    lowering: &mut FunctionLowering<'_, '_>,
    state_space: StateSpace,
    address: &Address,
) -> LoweringResult<()> {
    lowering.address(address, state_space)?;
    Ok(())
}

/// `isspacep`: the target decides from the generic address.
pub fn is_space(
    lowering: &mut FunctionLowering<'_, '_>,
    state_space: StateSpace,
    shared_cluster: bool,
    destination: &Destination,
    address: &Operand,
    address_type: ScalarType,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let ty = if lowering.shared.ptx.address_size == 32 { ScalarType::U32 } else { ScalarType::U64 };
    let integer = lowering.read_int(address, address_type)?;
    // A 32-bit register in a 64-bit module holds the address with its upper half zero.
    let integer = lowering.shared.builder.build_int_z_extend_or_bit_cast(
        integer,
        crate::types::integer_type(context, ty.bits()),
        "",
    )?;
    let generic = lowering.address_space(StateSpace::Generic);
    let pointer = lowering.shared.builder.build_int_to_ptr(integer, context.ptr_type(generic), "")?;
    let shared_window = lowering.shared_window_base().map(|base| ptxr_intrinsics::SharedWindow {
        base,
        static_bytes: lowering.shared.shared_layout.static_bytes,
        has_dynamic: lowering.shared.shared_layout.has_dynamic,
    });
    // `.const` data tells `.const` apart, and apart from `.global` where they share memory;
    // `.global` data and the heap are global memory, and not local.
    let constants = if matches!(state_space, StateSpace::Const | StateSpace::Global | StateSpace::Local) {
        variable_ranges(lowering, StateSpace::Const)?
    } else {
        Vec::new()
    };
    let (globals, device_heap) = if matches!(state_space, StateSpace::Global | StateSpace::Local) {
        (variable_ranges(lowering, StateSpace::Global)?, crate::module::calls_malloc(lowering.shared.ptx))
    } else {
        (Vec::new(), false)
    };
    let placed = ptxr_intrinsics::PlacedMemory { shared_window, constants, globals, device_heap };
    let target = lowering.shared.target;
    let inside = if shared_cluster {
        target.is_in_cluster_shared_space(&lowering.site(), pointer, &placed)
    } else {
        target.is_in_state_space(&lowering.site(), pointer, state_space, &placed)
    }
    .map_err(|unsupported| {
        crate::error::LoweringError::unsupported(&unsupported.what, lowering.target_name(), destination.span)
    })?;
    lowering.write(destination, inside.into(), ScalarType::Pred)
}

/// Every `.const` or `.global` variable of the module (`state_space`) as an address range:
/// those at module scope, and those of every function (declared here when their function is
/// not lowered yet; its prologue then finds them, `function::module_wide_variable`).
fn variable_ranges<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    state_space: StateSpace,
) -> LoweringResult<Vec<AddressRange<'ctx>>> {
    let shared = lowering.shared;
    let i64_type = shared.context.i64_type();
    let mut ranges = Vec::new();
    for (index, variable) in shared.ptx.globals.iter().enumerate() {
        if variable.state_space != state_space {
            continue;
        }
        let global = shared.globals.get(&(index as u32)).ok_or_else(|| {
            crate::error::LoweringError::internal(format!("`{}` was not declared", variable.name), variable.span)
        })?;
        ranges.push(AddressRange {
            start: global.as_pointer_value(),
            bytes: i64_type.const_int(variable.size_bytes(), false),
        });
    }
    for function in &shared.ptx.functions {
        for variable in function.variables.iter().filter(|variable| variable.state_space == state_space) {
            let global = crate::function::module_wide_variable(shared, function, variable)?;
            ranges.push(AddressRange {
                start: global.as_pointer_value(),
                bytes: i64_type.const_int(variable.size_bytes(), false),
            });
        }
    }
    Ok(ranges)
}
