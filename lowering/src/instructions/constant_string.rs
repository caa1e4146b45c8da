//! The text of a string constant that a call argument addresses, found in the PTX itself: the
//! argument's value traced back through the one instruction that writes each register or
//! `.param` variable on the way (`mov`, `cvta.global`, `st.param`) to the address of a `.global`
//! byte array with an initializer, as nvcc passes a string literal to `vprintf`. Targets whose
//! printf needs the format at compile time (OpenCL's) get it from here; tracing in the PTX works
//! at every optimisation level, where LLVM folds the address into a constant only when it runs.

use ptxr_frontend::ir::{self, AddressBase, AddressConversion, CallOperand, Instruction, Statement, Value, VariableId};
use ptxr_frontend::vocabulary::StateSpace;

use crate::function::FunctionLowering;

/// How many definitions deep a trace goes before giving up (a chain of copies, not a loop).
const MAXIMUM_DEPTH: usize = 16;

/// The bytes, up to (not including) the terminating NUL, of the string `argument` addresses;
/// `None` when the address is not traceable to an initialized `.global` array.
pub fn traced_string(lowering: &FunctionLowering<'_, '_>, argument: &CallOperand) -> Option<Vec<u8>> {
    let value = match argument {
        CallOperand::Variable { variable, .. } => Value::Register(*variable),
        CallOperand::Immediate(operand) => operand.value.clone(),
    };
    let (variable, offset) = traced_address(lowering, &value, MAXIMUM_DEPTH)?;
    let global = lowering.variable(variable);
    if global.state_space != StateSpace::Global || !global.addresses.is_empty() {
        return None;
    }
    let bytes = global.initializer.as_ref()?.get(usize::try_from(offset).ok()?..)?;
    let length = bytes.iter().position(|&byte| byte == 0)?;
    Some(bytes[..length].to_vec())
}

/// The module variable and byte offset that `value` is the (global or generic) address of.
fn traced_address(lowering: &FunctionLowering<'_, '_>, value: &Value, depth: usize) -> Option<(VariableId, i64)> {
    let depth = depth.checked_sub(1)?;
    match value {
        Value::AddressOf(variable @ VariableId::Global(_)) => Some((*variable, 0)),
        Value::Offset { base, offset } => {
            let (variable, base_offset) = traced_address(lowering, base, depth)?;
            Some((variable, base_offset.checked_add(*offset)?))
        }
        Value::Register(register @ VariableId::Local(_)) => {
            let source = only_definition(lowering.function, *register)?;
            traced_address(lowering, source, depth)
        }
        _ => None,
    }
}

/// The value that the one unguarded instruction writing `register` (a register or a `.param`
/// variable of the function) copies into it, when it is a copy of an address; `None` when
/// several instructions write it or the one that does computes something else.
fn only_definition(function: &ir::Function, register: VariableId) -> Option<&Value> {
    let mut definitions = function.body.as_ref()?.iter().filter_map(|statement| match statement {
        Statement::Instruction(guarded) if writes(&guarded.instruction, register) => Some(guarded),
        _ => None,
    });
    let definition = definitions.next()?;
    if definitions.next().is_some() || definition.guard.is_some() {
        return None;
    }
    match &definition.instruction {
        Instruction::Move { destination, source, .. } if destination.member.is_none() => Some(&source.value),
        Instruction::ConvertAddress {
            direction: AddressConversion::ToGeneric,
            state_space: StateSpace::Global,
            destination,
            source,
            ..
        } if destination.member.is_none() => Some(&source.value),
        Instruction::Store { state_space: StateSpace::Param, address, source, .. } if address.offset == 0 => {
            Some(&source.value)
        }
        _ => None,
    }
}

/// Whether `instruction` may write `variable`. Stores and call results are told apart by their
/// fields; every other instruction writes through `Destination`s, which its debug form spells
/// `register: Local(n)` (as does a read of a vector member, which only makes the trace give up
/// more often): listing every variant's destinations here would repeat the checker's decoding.
fn writes(instruction: &Instruction, variable: VariableId) -> bool {
    match instruction {
        Instruction::Store { address, .. } | Instruction::StoreVector { address, .. } => {
            address.base == AddressBase::Variable(variable)
        }
        Instruction::Call { results, .. } | Instruction::CallIndirect { results, .. } => results
            .iter()
            .any(|result| matches!(result, CallOperand::Variable { variable: written, .. } if *written == variable)),
        other => format!("{other:?}").contains(&format!("register: {variable:?}")),
    }
}
