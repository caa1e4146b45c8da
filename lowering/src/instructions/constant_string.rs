//! String constants that a call's arguments address, found in the PTX itself: an address traced
//! back through the one instruction that writes each register or `.param` variable on the way
//! (`mov`, `cvta`, `st.param`, `add` of a constant) to the address of a `.global` byte array with an initializer, as
//! nvcc passes a string literal to `vprintf` (or a `.const` one, as numba does); and the string constants stored into `vprintf`'s
//! packed argument buffer (for `%s`). Targets whose printf needs strings at compile time
//! (OpenCL's) get them from here; tracing in the PTX works at every optimisation level, where
//! LLVM folds an address into a constant only when it optimises.

use std::collections::HashMap;

use ptxr_frontend::ir::{
    self, AddressBase, AddressConversion, CallOperand, GuardedInstruction, Instruction, IntegerBinaryOperation,
    OffsetValue, Statement, Value, VariableId,
};
use ptxr_frontend::syntax::ast::FunctionKind;
use ptxr_frontend::vocabulary::StateSpace;

use crate::function::FunctionLowering;

/// How many definitions deep a trace goes before giving up (a chain of copies, not a loop).
const MAXIMUM_DEPTH: usize = 16;

fn operand_value(argument: &CallOperand) -> Value {
    match argument {
        CallOperand::Variable { variable, .. } => Value::Register(*variable),
        CallOperand::Immediate(operand) => operand.value.clone(),
    }
}

/// The instructions of a function that write each of its variables, gathered in one pass so that
/// traces cost one scan of the function per call, not one per step.
pub struct Writers<'a> {
    by_variable: HashMap<VariableId, Vec<&'a GuardedInstruction>>,
}

impl<'a> Writers<'a> {
    pub fn of(function: &'a ir::Function) -> Writers<'a> {
        let mut by_variable: HashMap<VariableId, Vec<&'a GuardedInstruction>> = HashMap::new();
        for statement in function.body.iter().flatten() {
            let Statement::Instruction(guarded) = statement else { continue };
            for variable in written_variables(&guarded.instruction) {
                by_variable.entry(variable).or_default().push(guarded);
            }
        }
        Writers { by_variable }
    }
}

/// The bytes, up to (not including) the terminating NUL, of the string `argument` addresses;
/// `None` when the address is not traceable to an initialized `.global` or `.const` array.
pub fn traced_string(
    lowering: &FunctionLowering<'_, '_>,
    writers: &Writers<'_>,
    argument: &CallOperand,
) -> Option<Vec<u8>> {
    string_at(lowering, writers, &operand_value(argument))
}

fn string_at(lowering: &FunctionLowering<'_, '_>, writers: &Writers<'_>, value: &Value) -> Option<Vec<u8>> {
    // nvcc and clang keep string literals in `.global`, numba (NVVM) in `.const`.
    let (variable, offset) = [StateSpace::Global, StateSpace::Const]
        .into_iter()
        .find_map(|space| traced_address(lowering, writers, value, space, MAXIMUM_DEPTH))?;
    let global = lowering.variable(variable);
    if !global.addresses().is_empty() {
        return None;
    }
    let bytes = global.initializer_bytes()?.get(usize::try_from(offset).ok()?..)?;
    let length = bytes.iter().position(|&byte| byte == 0)?;
    Some(bytes[..length].to_vec())
}

/// The string constants stored into the `.local` buffer that `buffer` addresses, by byte
/// offset from that address: each offset that exactly one unguarded store in the function writes, with an address
/// traced to a string constant. Empty when some store to `.local` or generic memory has an
/// address that cannot be traced (it might write into the buffer), unless it is a generic store
/// at an address computed from the launch alone (`launch_derived`).
pub fn traced_buffer_strings(
    lowering: &FunctionLowering<'_, '_>,
    writers: &Writers<'_>,
    buffer: &CallOperand,
) -> Vec<(u64, Vec<u8>)> {
    let Some((buffer, buffer_offset)) =
        traced_address(lowering, writers, &operand_value(buffer), StateSpace::Local, MAXIMUM_DEPTH)
    else {
        return Vec::new();
    };
    let Some(body) = lowering.function.body.as_ref() else { return Vec::new() };
    let mut stores: Vec<(i64, Option<&Value>)> = Vec::new();
    for statement in body {
        let Statement::Instruction(guarded) = statement else { continue };
        let (state_space, address, source) = match &guarded.instruction {
            Instruction::Store { state_space, address, source, .. } => (*state_space, address, Some(&source.value)),
            Instruction::StoreVector { state_space, address, .. } => (*state_space, address, None),
            _ => continue,
        };
        if !matches!(state_space, StateSpace::Local | StateSpace::Generic) {
            continue;
        }
        let base = match &address.base {
            AddressBase::Variable(variable) => Some((*variable, 0)),
            AddressBase::Register(register) => {
                traced_address(lowering, writers, &Value::Register(*register), StateSpace::Local, MAXIMUM_DEPTH)
            }
            _ => None,
        };
        let Some((variable, base_offset)) = base else {
            // numba's store of its result through an array's data pointer.
            let register = match &address.base {
                AddressBase::Register(register) if state_space == StateSpace::Generic => Value::Register(*register),
                _ => return Vec::new(),
            };
            let mut budget = LAUNCH_DERIVED_BUDGET;
            if launch_derived(lowering, writers, &register, MAXIMUM_DEPTH, &mut budget) {
                continue;
            }
            return Vec::new();
        };
        if variable != buffer {
            continue;
        }
        let Some(offset) = base_offset.checked_add(address.offset).and_then(|offset| offset.checked_sub(buffer_offset))
        else {
            return Vec::new();
        };
        stores.push((offset, source.filter(|_| guarded.guard.is_none())));
    }
    // NVVM (numba) zeroes the whole buffer first and then stores each argument: a store of zero
    // before another store to its offset is that initialisation, not a second value. (A `%s`
    // of the null pointer would print `(null)` in CUDA; such a slot stays unsupported unless the
    // zero is overwritten.)
    let zero = |source: Option<&Value>| match source {
        Some(Value::Integer(value)) => value.get() == 0,
        // `mov.u64 %rd11, 0; st.local.u64 [%rd1], %rd11;`
        Some(Value::Register(register @ VariableId::Local(_))) => matches!(
            only_definition(writers, *register, StateSpace::Local),
            Some(Value::Integer(value)) if value.get() == 0
        ),
        _ => false,
    };
    let stores: Vec<(i64, Option<&Value>)> = stores
        .iter()
        .enumerate()
        .filter(|&(index, &(offset, source))| {
            !(zero(source) && stores[index + 1..].iter().any(|&(later, value)| later == offset && value.is_some()))
        })
        .map(|(_, &store)| store)
        .collect();
    let mut strings = Vec::new();
    for &(offset, source) in &stores {
        if stores.iter().filter(|(other, _)| *other == offset).count() != 1 {
            continue;
        }
        if let (Ok(offset), Some(text)) =
            (u64::try_from(offset), source.and_then(|value| string_at(lowering, writers, value)))
        {
            strings.push((offset, text));
        }
    }
    strings
}

/// How many values `launch_derived` looks at for one address before giving up.
const LAUNCH_DERIVED_BUDGET: usize = 64;

/// Whether `value` is computed from the launch alone: immediates, special registers, a kernel's
/// parameters (`ld.param`), and integer arithmetic and conversions of such values, through
/// registers written once, unguarded. None is an address of the thread's `.local` memory, which
/// did not exist when the kernel was launched, so a store there cannot reach a `vprintf` buffer.
fn launch_derived(
    lowering: &FunctionLowering<'_, '_>,
    writers: &Writers<'_>,
    value: &Value,
    depth: usize,
    budget: &mut usize,
) -> bool {
    let (Some(depth), Some(left)) = (depth.checked_sub(1), budget.checked_sub(1)) else { return false };
    *budget = left;
    let register = match value {
        Value::Integer(_) | Value::WideInteger(_) | Value::SpecialRegister(_) => return true,
        Value::Register(register @ VariableId::Local(_)) => *register,
        _ => return false,
    };
    let Some([definition]) = writers.by_variable.get(&register).map(Vec::as_slice) else { return false };
    if definition.guard.is_some() {
        return false;
    }
    let operands: Vec<&ir::Operand> = match &definition.instruction {
        Instruction::Load { state_space: StateSpace::Param, address, .. } => {
            let kernel = lowering.function.kind == FunctionKind::Entry;
            return kernel
                && matches!(address.base, AddressBase::Variable(VariableId::Local(index))
                    if lowering.function.parameters.contains(&index));
        }
        Instruction::Move { source, .. } | Instruction::Convert { source, .. } => vec![source],
        Instruction::IntegerBinary { a, b, .. } | Instruction::Logic { a, b, .. } | Instruction::Shift { a, b, .. } => {
            vec![a, b]
        }
        Instruction::IntegerMultiplyAdd { a, b, c, .. } => vec![a, b, c],
        _ => return false,
    };
    operands.into_iter().all(|operand| launch_derived(lowering, writers, &operand.value, depth, budget))
}

/// The variable of `state_space` and byte offset that `value` is the address of (in that state
/// space or generic).
fn traced_address(
    lowering: &FunctionLowering<'_, '_>,
    writers: &Writers<'_>,
    value: &Value,
    state_space: StateSpace,
    depth: usize,
) -> Option<(VariableId, i64)> {
    let depth = depth.checked_sub(1)?;
    match value {
        Value::AddressOf(variable) if lowering.variable(*variable).state_space == state_space => Some((*variable, 0)),
        Value::Offset(offset) => {
            let (variable, base_offset) = traced_address(lowering, writers, &offset.base, state_space, depth)?;
            Some((variable, base_offset.checked_add(offset.offset)?))
        }
        Value::Register(register @ VariableId::Local(_)) => {
            let source = only_definition(writers, *register, state_space)?;
            traced_address(lowering, writers, &source, state_space, depth)
        }
        _ => None,
    }
}

/// The value that the one unguarded instruction writing `register` (a register or a `.param`
/// variable of the function) copies into it, when it is a copy of an address (`cvta` from
/// `state_space`); `None` when several instructions write it or the one that does computes
/// something else.
fn only_definition(writers: &Writers<'_>, register: VariableId, state_space: StateSpace) -> Option<Value> {
    let [definition] = writers.by_variable.get(&register)?.as_slice() else { return None };
    if definition.guard.is_some() {
        return None;
    }
    match &definition.instruction {
        Instruction::Move { destination, source, .. } if destination.member.is_none() => Some(source.value.clone()),
        Instruction::ConvertAddress {
            direction: AddressConversion::ToGeneric,
            state_space: converted,
            destination,
            source,
            ..
        } if *converted == state_space && destination.member.is_none() => Some(source.value.clone()),
        Instruction::Store { state_space: StateSpace::Param, address, source, .. } if address.offset == 0 => {
            Some(source.value.clone())
        }
        // nvcc's `add.u64 %rd3, %SP, 16` into its stack frame.
        Instruction::IntegerBinary {
            operation: IntegerBinaryOperation::Add,
            saturate: false,
            ty,
            destination,
            a,
            b,
        } if ty.bytes() >= 4 && destination.member.is_none() => {
            let (base, offset) = match (&a.value, &b.value) {
                (base, Value::Integer(offset)) | (Value::Integer(offset), base) => (base, *offset),
                _ => return None,
            };
            Some(Value::Offset(Box::new(OffsetValue { base: base.clone(), offset: i64::try_from(offset.get()).ok()? })))
        }
        _ => None,
    }
}

/// The variables `instruction` may write: its destinations, and the variable a store addresses
/// directly (`st.param [argument], %rd1` writes the `.param` variable `argument`).
fn written_variables(instruction: &Instruction) -> Vec<VariableId> {
    let mut written: Vec<VariableId> =
        instruction.destinations().iter().map(|destination| destination.register).collect();
    if let Instruction::Store { address, .. } | Instruction::StoreVector { address, .. } = instruction {
        if let AddressBase::Variable(variable) = address.base {
            written.push(variable);
        }
    }
    written
}
