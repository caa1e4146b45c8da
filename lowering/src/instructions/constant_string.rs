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

use inkwell::values::IntValue;
use ptxr_intrinsics::StringConstant;

use crate::error::LoweringResult;
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
    let (variable, offset) = string_location(lowering, writers, value)?;
    text_at(lowering, variable, offset)
}

/// The variable and byte offset of the string constant that `value` addresses.
fn string_location(
    lowering: &FunctionLowering<'_, '_>,
    writers: &Writers<'_>,
    value: &Value,
) -> Option<(VariableId, i64)> {
    // nvcc and clang keep string literals in `.global`, numba (NVVM) in `.const`.
    let location = [StateSpace::Global, StateSpace::Const]
        .into_iter()
        .find_map(|space| traced_address(lowering, writers, value, space, MAXIMUM_DEPTH))?;
    text_at(lowering, location.0, location.1).map(|_| location)
}

/// The bytes up to the first NUL from byte `offset` of `variable`'s initializer, when it is
/// an initialized array without addresses in it and has that NUL.
fn text_at(lowering: &FunctionLowering<'_, '_>, variable: VariableId, offset: i64) -> Option<Vec<u8>> {
    let global = lowering.variable(variable);
    if !global.addresses().is_empty() {
        return None;
    }
    let bytes = global.initializer_bytes()?.get(usize::try_from(offset).ok()?..)?;
    let length = bytes.iter().position(|&byte| byte == 0)?;
    Some(bytes[..length].to_vec())
}

/// The string constants that `value` may address: one where its address traces to one, several
/// where the register holding it is written (through copies and `cvta`) by `selp`s choosing
/// among such addresses or by several `mov`s of them (nvcc's `-G` code after a `?:`, whose arms
/// each move their string into one register); `None` when some write is of anything else.
fn string_choices(
    lowering: &FunctionLowering<'_, '_>,
    writers: &Writers<'_>,
    value: &Value,
    depth: usize,
) -> Option<Vec<(VariableId, i64)>> {
    if let Some(location) = string_location(lowering, writers, value) {
        return Some(vec![location]);
    }
    let depth = depth.checked_sub(1)?;
    let Value::Register(register @ VariableId::Local(_)) = value else { return None };
    if lowering.variable(*register).state_space != StateSpace::Reg {
        return None;
    }
    let mut choices = Vec::new();
    // Each write, guarded or not: the register holds what one of them wrote.
    for definition in writers.by_variable.get(register)? {
        let sources: Vec<&Value> = match &definition.instruction {
            Instruction::Select { a, b, destination, .. } if destination.member.is_none() => vec![&a.value, &b.value],
            Instruction::Move { destination, source, .. } if destination.member.is_none() => vec![&source.value],
            Instruction::ConvertAddress {
                direction: AddressConversion::ToGeneric,
                state_space: StateSpace::Global | StateSpace::Const,
                destination,
                source,
                ..
            } if destination.member.is_none() => vec![&source.value],
            _ => return None,
        };
        for source in sources {
            for choice in string_choices(lowering, writers, source, depth)? {
                if !choices.contains(&choice) {
                    choices.push(choice);
                }
            }
        }
    }
    Some(choices).filter(|choices| !choices.is_empty())
}

/// The generic address of byte `offset` of `variable` (a `.global` or `.const` variable), as an
/// integer of the module's address size: a constant, so that it costs nothing where unused;
/// `None` where the target places the variable at an address that is not a constant.
fn generic_address<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    variable: VariableId,
    offset: i64,
    span: ptxr_frontend::Span,
) -> LoweringResult<Option<IntValue<'ctx>>> {
    let context = lowering.shared.context;
    let mut pointer = lowering.taken_address(variable, span)?;
    if !pointer.is_const() {
        return Ok(None);
    }
    let generic = lowering.address_space(StateSpace::Generic);
    if pointer.get_type().get_address_space() != generic {
        pointer = pointer.const_address_space_cast(context.ptr_type(generic));
    }
    let index = context.i64_type().const_int(offset as u64, true);
    // SAFETY: a byte inside the variable, where its initializer has a string.
    let pointer = unsafe { pointer.const_in_bounds_gep(context.i8_type(), &[index]) };
    Ok(Some(pointer.const_to_int(crate::types::integer_type(context, lowering.shared.ptx.address_size))))
}

/// `locations` as string constants with their generic addresses.
fn string_constants<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    locations: &[(VariableId, i64)],
    span: ptxr_frontend::Span,
) -> LoweringResult<Vec<StringConstant<'ctx>>> {
    let mut constants = Vec::new();
    for &(variable, offset) in locations {
        let Some(text) = text_at(lowering, variable, offset) else { continue };
        let Some(address) = generic_address(lowering, variable, offset, span)? else { continue };
        constants.push(StringConstant { address, text });
    }
    Ok(constants)
}

/// How many of the module's string constants a `%s` whose argument lowering could not trace
/// is compared with at run time (each a `printf` call of its own).
const MODULE_STRING_LIMIT: usize = 15;

/// The module's string constants, for `%s` arguments that lowering could not trace: every
/// string (from the start or after a NUL) in the initializers of module-scope `.global` and
/// `.const` arrays, at most `MODULE_STRING_LIMIT` of them, in declaration order.
pub fn module_strings<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    span: ptxr_frontend::Span,
) -> LoweringResult<Vec<StringConstant<'ctx>>> {
    let mut locations = Vec::new();
    'variables: for (index, variable) in lowering.shared.ptx.globals.iter().enumerate() {
        if !matches!(variable.state_space, StateSpace::Global | StateSpace::Const) || !variable.addresses().is_empty() {
            continue;
        }
        let Some(bytes) = variable.initializer_bytes() else { continue };
        let mut start = 0;
        while let Some(length) = bytes[start..].iter().position(|&byte| byte == 0) {
            if locations.len() == MODULE_STRING_LIMIT {
                break 'variables;
            }
            locations.push((VariableId::Global(index as u32), start as i64));
            start += length + 1;
            if start >= bytes.len() || bytes[start] == 0 {
                // Trailing zeros fill the array; they are not strings of their own.
                break;
            }
        }
    }
    string_constants(lowering, &locations, span)
}

/// The string constants stored into the `.local` buffer that `buffer` addresses, by byte
/// offset from that address: each offset that exactly one unguarded store in the function writes, with an address
/// traced to a string constant. Empty when some store to `.local` or generic memory has an
/// address that cannot be traced (it might write into the buffer), unless it is a generic store
/// at an address computed from the launch alone (`launch_derived`).
pub fn traced_buffer_strings<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    writers: &Writers<'_>,
    buffer: &CallOperand,
    span: ptxr_frontend::Span,
) -> LoweringResult<Vec<(u64, Vec<StringConstant<'ctx>>)>> {
    let locations = traced_buffer_locations(lowering, writers, buffer);
    let mut strings = Vec::new();
    for (offset, choices) in locations {
        let constants = string_constants(lowering, &choices, span)?;
        // Every choice, or the slot is not traced: its address is compared with each choice's.
        if constants.len() == choices.len() {
            strings.push((offset, constants));
        }
    }
    Ok(strings)
}

/// Where `traced_buffer_strings`' strings are: by buffer offset, the locations of the strings
/// the slot's one store may write.
fn traced_buffer_locations(
    lowering: &FunctionLowering<'_, '_>,
    writers: &Writers<'_>,
    buffer: &CallOperand,
) -> Vec<(u64, Vec<(VariableId, i64)>)> {
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
        if let (Ok(offset), Some(choices)) =
            (u64::try_from(offset), source.and_then(|value| string_choices(lowering, writers, value, MAXIMUM_DEPTH)))
        {
            strings.push((offset, choices));
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
