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

use inkwell::builder::Builder;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::types::PointerType;
use inkwell::values::{AsValueRef, BasicValueEnum, InstructionOpcode, InstructionValue, IntValue, PointerValue};

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
        for cast in casts {
            rewrite_cast(&builder, cast)?;
        }
        function = current.get_next_function();
    }
    Ok(())
}

/// Replaces one `inttoptr` by a GEP chain when its operand splits into base and offsets.
fn rewrite_cast<'ctx>(builder: &Builder<'ctx>, cast: InstructionValue<'ctx>) -> Result<(), String> {
    let Some(BasicValueEnum::IntValue(address)) = value_operand(cast, 0) else {
        return Ok(());
    };
    if address.get_type().get_bit_width() != 64 || base_and_offset(address).is_none() {
        return Ok(());
    }
    let pointer_type = match cast.get_type() {
        inkwell::types::AnyTypeEnum::PointerType(pointer_type) => pointer_type,
        _ => return Ok(()),
    };
    builder.position_before(&cast);
    let pointer = pointer_of(builder, pointer_type, address)?;
    // SAFETY: both are values of the same pointer type in the same function; the new pointer
    // is computed before `cast`, from values that dominate it.
    unsafe {
        llvm_sys::core::LLVMReplaceAllUsesWith(cast.as_value_ref(), pointer.as_value_ref());
    }
    cast.erase_from_basic_block();
    Ok(())
}

/// `address` as a pointer: a GEP of `offset` bytes from the pointer of its base where it is
/// `add base, offset` (either order), else `inttoptr address`.
fn pointer_of<'ctx>(
    builder: &Builder<'ctx>,
    pointer_type: PointerType<'ctx>,
    address: IntValue<'ctx>,
) -> Result<PointerValue<'ctx>, String> {
    match base_and_offset(address) {
        Some((base, offset)) => {
            let base = pointer_of(builder, pointer_type, base)?;
            let byte = address.get_type().get_context().i8_type();
            // SAFETY: a byte GEP without `inbounds` is defined for any offset: it is the
            // wrapping sum of the address and the offset.
            unsafe { builder.build_gep(byte, base, &[offset], "") }.map_err(|error| error.to_string())
        }
        None => builder.build_int_to_ptr(address, pointer_type, "").map_err(|error| error.to_string()),
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
