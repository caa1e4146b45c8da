//! Rewrites the CPU target's integer addresses as offsets from a base pointer, before LLVM's
//! optimisation pipeline, so that the loop vectoriser can bound a thread loop's accesses.
//!
//! PTX addresses are integers: `cvta.to.global`, `mul.wide` and `add.s64` compute them, and
//! lowering turns the register into a pointer with `inttoptr` at the load or store. LLVM's
//! scalar evolution does not look through `inttoptr`, so for the plain thread loop of
//! vector_add (`ld.global [%rd]` with `%rd = param + 4 * (ctaid * ntid + tid)`) the loop
//! vectoriser reports "cannot identify array bounds" and neither vectorises nor builds its
//! run-time overlap checks.
//!
//! `inttoptr (add base, offset)`, where `offset` is built from narrower integers and constants
//! alone, becomes `getelementptr i8, (inttoptr base), offset`. Without `inbounds` the GEP adds
//! in wrapping 64-bit arithmetic, as `add` did, so the address is the same bits. The pointer is
//! based on what `base` was based on; `offset` contributes no pointer to it, because a value
//! that passed through fewer than 64 bits cannot hold a host address. `base` is loop-invariant
//! for a kernel pointer parameter, and the pointer becomes `base + {start, +, step}`: a
//! recurrence that scalar evolution bounds. PTX that reached one allocation from another's
//! address through a difference of fewer than 64 bits would now be read as an access to the
//! first; CUDA C++ leaves such arithmetic undefined. 32-bit addresses (`.address_size 32`, and
//! every add narrower than 64 bits) are left alone: their `add` wraps at 2^32, a GEP would not.

use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::types::PointerType;
use inkwell::values::{
    AsValueRef, BasicValue, BasicValueEnum, InstructionOpcode, InstructionValue, IntValue, PhiValue, PointerValue,
};

/// How deep `is_offset` looks into an offset's expression before it gives up (and keeps the
/// `inttoptr`); PTX's index arithmetic is a handful of instructions deep.
const OFFSET_DEPTH: u32 = 8;

/// Promotes registers to SSA values (`sroa`, which the standard pipeline runs first anyway), so
/// that the address arithmetic is visible, then rewrites every function's integer addresses.
/// Does nothing at -O0, where no loop is vectorised.
pub(crate) fn rewrite_integer_addresses(
    module: &Module<'_>,
    machine: &TargetMachine,
    optimization: u8,
) -> Result<(), String> {
    if optimization == 0 {
        return Ok(());
    }
    module
        .run_passes("function(sroa)", machine, inkwell::passes::PassBuilderOptions::create())
        .map_err(|message| message.to_string())?;
    let builder = module.get_context().create_builder();
    let mut function = module.get_first_function();
    while let Some(current) = function {
        let casts: Vec<InstructionValue<'_>> = current
            .get_basic_block_iter()
            .flat_map(|block| block.get_instructions())
            .filter(|instruction| instruction.get_opcode() == InstructionOpcode::IntToPtr)
            .collect();
        let mut pointer_phis = HashMap::new();
        for cast in casts {
            rewrite_cast(&builder, &mut pointer_phis, cast)?;
        }
        function = current.get_next_function();
    }
    Ok(())
}

/// Replaces one `inttoptr` by a GEP chain when its operand splits into base and offsets.
fn rewrite_cast<'ctx>(
    builder: &Builder<'ctx>,
    pointer_phis: &mut PointerPhis<'ctx>,
    cast: InstructionValue<'ctx>,
) -> Result<(), String> {
    let Some(BasicValueEnum::IntValue(address)) = value_operand(cast, 0) else {
        return Ok(());
    };
    if address.get_type().get_bit_width() != 64 || (base_and_offset(address).is_none() && recurrence(address).is_none())
    {
        return Ok(());
    }
    let pointer_type = match cast.get_type() {
        inkwell::types::AnyTypeEnum::PointerType(pointer_type) => pointer_type,
        _ => return Ok(()),
    };
    let pointer = pointer_of(builder, pointer_phis, pointer_type, address, cast)?;
    // SAFETY: both are values of the same pointer type in the same function; the new pointer
    // is computed before `cast`, from values that dominate it.
    unsafe {
        llvm_sys::core::LLVMReplaceAllUsesWith(cast.as_value_ref(), pointer.as_value_ref());
    }
    cast.erase_from_basic_block();
    Ok(())
}

/// The pointer phi made for each integer phi that advances an address in a loop, so that
/// every use of the recurrence shares one.
type PointerPhis<'ctx> = HashMap<IntValue<'ctx>, PointerValue<'ctx>>;

/// `address` as a pointer, built before `at`: a GEP of `offset` bytes from the
/// pointer of its base where it is `add base, offset` (either order), the pointer phi of a
/// recurrence, else `inttoptr address`.
fn pointer_of<'ctx>(
    builder: &Builder<'ctx>,
    pointer_phis: &mut PointerPhis<'ctx>,
    pointer_type: PointerType<'ctx>,
    address: IntValue<'ctx>,
    at: InstructionValue<'ctx>,
) -> Result<PointerValue<'ctx>, String> {
    if let Some((base, offset)) = base_and_offset(address) {
        let base = pointer_of(builder, pointer_phis, pointer_type, base, at)?;
        return byte_offset(builder, base, offset, at);
    }
    if let Some(phi) = recurrence(address) {
        return pointer_phi(builder, pointer_phis, pointer_type, address, phi);
    }
    builder.position_before(&at);
    builder.build_int_to_ptr(address, pointer_type, "").map_err(|error| error.to_string())
}

/// `base + offset` as a byte GEP, built before `at`.
fn byte_offset<'ctx>(
    builder: &Builder<'ctx>,
    base: PointerValue<'ctx>,
    offset: IntValue<'ctx>,
    at: InstructionValue<'ctx>,
) -> Result<PointerValue<'ctx>, String> {
    builder.position_before(&at);
    let byte = offset.get_type().get_context().i8_type();
    // SAFETY: a byte GEP without `inbounds` is defined for any offset: it is the wrapping sum
    // of the address and the offset.
    unsafe { builder.build_gep(byte, base, &[offset], "") }.map_err(|error| error.to_string())
}

/// The pointer twin of an integer phi that advances an address (`add.s64 %rd, %rd, 4` in a
/// loop): a phi of pointers beside it, whose values entering the loop are the pointers of the
/// integer's and whose advanced values are GEPs from the twin itself, so that scalar evolution
/// sees a pointer recurrence. The integer phi stays for its other uses (comparisons).
fn pointer_phi<'ctx>(
    builder: &Builder<'ctx>,
    pointer_phis: &mut PointerPhis<'ctx>,
    pointer_type: PointerType<'ctx>,
    address: IntValue<'ctx>,
    phi: PhiValue<'ctx>,
) -> Result<PointerValue<'ctx>, String> {
    if let Some(pointer) = pointer_phis.get(&address) {
        return Ok(*pointer);
    }
    let header = phi.as_instruction();
    builder.position_before(&header);
    let twin = builder.build_phi(pointer_type, "").map_err(|error| error.to_string())?;
    let twin_pointer = twin.as_basic_value().into_pointer_value();
    // Registered before the incoming values are built: they may lead back to this phi.
    pointer_phis.insert(address, twin_pointer);
    let mut incoming: Vec<(PointerValue<'ctx>, BasicBlock<'ctx>)> = Vec::new();
    for index in 0..phi.count_incoming() {
        let Some((value, block)) = phi.get_incoming(index) else {
            return Err("a phi without its incoming value".to_string());
        };
        // A block that branches here twice must bring one value.
        if let Some((pointer, _)) = incoming.iter().find(|(_, earlier)| *earlier == block) {
            incoming.push((*pointer, block));
            continue;
        }
        let value = value.into_int_value();
        let pointer = match advance_of(value, address) {
            Some((add, offset)) => {
                // Right after the add, where the offset is defined.
                let next = add.get_next_instruction().ok_or("an add that ends its block")?;
                byte_offset(builder, twin_pointer, offset, next)?
            }
            None => {
                let end = block.get_terminator().ok_or("a block without a terminator")?;
                pointer_of(builder, pointer_phis, pointer_type, value, end)?
            }
        };
        incoming.push((pointer, block));
    }
    let pairs: Vec<(&dyn BasicValue<'ctx>, BasicBlock<'ctx>)> =
        incoming.iter().map(|(pointer, block)| (pointer as &dyn BasicValue<'ctx>, *block)).collect();
    twin.add_incoming(&pairs);
    Ok(twin_pointer)
}

/// `address` as the phi of a recurrence: an integer phi of 64 bits, one of whose incoming
/// values is itself advanced by an offset.
fn recurrence(address: IntValue<'_>) -> Option<PhiValue<'_>> {
    let instruction =
        address.as_instruction().filter(|instruction| instruction.get_opcode() == InstructionOpcode::Phi)?;
    if address.get_type().get_bit_width() != 64 {
        return None;
    }
    let phi = PhiValue::try_from(instruction).ok()?;
    (0..phi.count_incoming())
        .filter_map(|index| phi.get_incoming(index))
        .any(|(value, _)| value.is_int_value() && advance_of(value.into_int_value(), address).is_some())
        .then_some(phi)
}

/// `value` as `add phi, offset` (either order): the add and the offset.
fn advance_of<'ctx>(value: IntValue<'ctx>, phi: IntValue<'ctx>) -> Option<(InstructionValue<'ctx>, IntValue<'ctx>)> {
    let add = value.as_instruction().filter(|instruction| instruction.get_opcode() == InstructionOpcode::Add)?;
    let (Some(BasicValueEnum::IntValue(left)), Some(BasicValueEnum::IntValue(right))) =
        (value_operand(add, 0), value_operand(add, 1))
    else {
        return None;
    };
    if left == phi && is_offset(right, OFFSET_DEPTH) {
        Some((add, right))
    } else if right == phi && is_offset(left, OFFSET_DEPTH) {
        Some((add, left))
    } else {
        None
    }
}

/// Splits a 64-bit `add` into the operand that may carry an address and the one that cannot.
fn base_and_offset(address: IntValue<'_>) -> Option<(IntValue<'_>, IntValue<'_>)> {
    let add = address.as_instruction().filter(|instruction| instruction.get_opcode() == InstructionOpcode::Add)?;
    let (Some(BasicValueEnum::IntValue(left)), Some(BasicValueEnum::IntValue(right))) =
        (value_operand(add, 0), value_operand(add, 1))
    else {
        return None;
    };
    match (is_offset(left, OFFSET_DEPTH), is_offset(right, OFFSET_DEPTH)) {
        (false, true) => Some((left, right)),
        (true, false) => Some((right, left)),
        // Two offsets are no address to start from; two bases leave no way to tell which
        // one the address belongs to.
        _ => None,
    }
}

/// Whether `value` is built from constants and integers narrower than 64 bits alone, so that
/// it holds no host address.
fn is_offset(value: IntValue<'_>, depth: u32) -> bool {
    // A constant integer, not a constant expression: `ptrtoint (ptr @variable to i64)` is an
    // address.
    if value.is_constant_int() {
        return true;
    }
    let Some(instruction) = value.as_instruction() else {
        return false;
    };
    match instruction.get_opcode() {
        InstructionOpcode::SExt | InstructionOpcode::ZExt => {
            matches!(value_operand(instruction, 0), Some(BasicValueEnum::IntValue(source))
                if source.get_type().get_bit_width() < 64)
        }
        InstructionOpcode::Add
        | InstructionOpcode::Sub
        | InstructionOpcode::Mul
        | InstructionOpcode::Shl
        | InstructionOpcode::And
        | InstructionOpcode::Or
        | InstructionOpcode::Xor
            if depth > 0 =>
        {
            [0, 1].into_iter().all(|index| {
                matches!(value_operand(instruction, index), Some(BasicValueEnum::IntValue(operand))
                    if is_offset(operand, depth - 1))
            })
        }
        _ => false,
    }
}

fn value_operand<'ctx>(instruction: InstructionValue<'ctx>, index: u32) -> Option<BasicValueEnum<'ctx>> {
    instruction.get_operand(index).and_then(|operand| operand.value())
}
