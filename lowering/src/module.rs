//! Lowering a whole checked module: globals, function declarations, then bodies.

use std::collections::HashMap;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage as LlvmLinkage, Module};
use inkwell::targets::TargetMachine;
use inkwell::types::{AnyType, BasicMetadataTypeEnum, BasicType};
use inkwell::values::{FunctionValue, GlobalValue};
use ptxr_frontend::diagnostic::has_errors;
use ptxr_frontend::ir::{self, VariableId};
use ptxr_frontend::syntax::ast::{FunctionKind, Linkage};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};
use ptxr_frontend::Diagnostic;
use ptxr_intrinsics::Target;

use crate::error::LoweringError;
use crate::function::FunctionLowering;

/// What the function lowerings share: the LLVM module and the module-level symbols.
pub struct ModuleContext<'a, 'ctx> {
    pub context: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub builder: &'a Builder<'ctx>,
    pub target: &'a dyn Target,
    pub ptx: &'a ir::Module,
    /// The PTX text that `ptx` was checked from, where diagnostics read instructions' spellings.
    pub source: &'a str,
    pub globals: HashMap<u32, GlobalValue<'ctx>>,
    pub functions: Vec<FunctionValue<'ctx>>,
    /// Offsets of `.shared` variables, for targets whose shared memory is a window.
    pub shared_layout: ir::SharedLayout,
    /// Whether any function of the module uses barriers or warp collectives. Calls are not
    /// followed, so every kernel of such a module is built cooperative.
    pub cooperative: bool,
    /// The type of the trailing parameter that carries the block's shared window into every
    /// function, where the target passes it that way and the module has shared memory.
    pub shared_window_parameter: Option<BasicMetadataTypeEnum<'ctx>>,
    /// The type of the parameter that carries the target's launch arguments into every
    /// function (after the PTX parameters and a `.func`'s stop flag, before the shared
    /// window), where the module needs them (`takes_launch_arguments`).
    pub launch_arguments_parameter: Option<inkwell::types::VectorType<'ctx>>,
    /// Whether kernels keep their parameters in one frame and record where in the launch
    /// arguments (`Target::record_kernel_parameter_window`), for `isspacep`.
    pub kernel_parameter_window: bool,
    /// For each function, whether calling it may stop the thread (`may_stop`).
    pub may_stop: Vec<bool>,
    /// The type of the parameter that carries the address of the thread's stop flag into every
    /// `.func` (after the PTX parameters, before the shared window), where the target needs the
    /// flag (`Target::needs_stop_flag`) and some `.func` may stop the thread.
    pub stop_flag_parameter: Option<BasicMetadataTypeEnum<'ctx>>,
    /// Where the target carves `alloca`s out of a private array (`StackBound::PrivateArray`)
    /// and the module uses the stack instructions: the array's size. The kernel's stop flag is
    /// then a record of three `i64`s, the flag in the first and the private stack (its stack
    /// pointer and its floor) in the others, so that `.func`s find the stack beside the flag.
    pub private_stack_bytes: Option<u64>,
    /// Whether a `.func` (not only kernels) uses barriers or warp collectives.
    pub collectives_in_functions: bool,
    /// Whether any function uses `bar.arrive` or a barrier with a thread count.
    pub counted_barriers: bool,
    /// Whether any function uses `bar.arrive`.
    pub barrier_arrivals: bool,
    /// Whether the target has `wgmma` of its own on the processor compiled for
    /// (`Target::native_warp_group_matrix`).
    pub native_warp_group_matrix: bool,
}

impl<'ctx> ModuleContext<'_, 'ctx> {
    /// The LLVM type of a register or value of `ty` on this target (`types::value_type`).
    pub fn value_type(&self, ty: ScalarType) -> inkwell::types::BasicTypeEnum<'ctx> {
        crate::types::value_type(self.context, ty, self.target.wide_values())
    }

    /// Whether 128-bit values are held as two `i64` halves here.
    pub fn wide_values_in_halves(&self) -> bool {
        self.target.wide_values() == ptxr_intrinsics::WideValues::Halves
    }
}

/// Lowers a checked module for one target: the LLVM module and the warnings about it on that
/// target (`warnings.rs`), or every diagnostic (errors, then those warnings). Every unsupported
/// construct in every function is reported, not only the first.
pub fn lower<'ctx>(
    context: &'ctx Context,
    ptx: &ir::Module,
    source: &str,
    target: &dyn Target,
    machine: &TargetMachine,
    module_name: &str,
) -> Result<(Module<'ctx>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let module = context.create_module(module_name);
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    target.configure_module(context, &module, &machine.get_cpu().to_string_lossy());
    let builder = context.create_builder();
    let shared_layout = ir::SharedLayout::of(ptx);
    let shared_window_parameter = if target.shared_variables_in_window() && !shared_layout.is_empty() {
        target.shared_window_parameter_type(context)
    } else {
        None
    };
    let launch_arguments_parameter =
        takes_launch_arguments(ptx, target).then(|| target.launch_arguments_type(context)).flatten();
    let may_stop = may_stop(ptx, target);
    let a_function_may_stop =
        ptx.functions.iter().zip(&may_stop).any(|(function, &stops)| stops && function.kind == FunctionKind::Func);
    let stop_flag_parameter = (target.needs_stop_flag() && a_function_may_stop)
        .then(|| context.ptr_type(target.address_space(StateSpace::Local)).into());
    let mut shared = ModuleContext {
        context,
        module: &module,
        builder: &builder,
        target,
        ptx,
        source,
        globals: HashMap::new(),
        functions: Vec::new(),
        shared_layout,
        cooperative: uses_collectives(ptx),
        shared_window_parameter,
        launch_arguments_parameter,
        kernel_parameter_window: launch_arguments_parameter.is_some() && records_kernel_parameter_window(ptx, target),
        may_stop,
        stop_flag_parameter,
        private_stack_bytes: match target.stack_bound() {
            ptxr_intrinsics::StackBound::PrivateArray(bytes)
                if instructions(ptx.functions.iter()).any(|instruction| {
                    matches!(
                        instruction.instruction,
                        ir::Instruction::StackAllocate { .. }
                            | ir::Instruction::StackSave { .. }
                            | ir::Instruction::StackRestore { .. }
                    )
                }) =>
            {
                Some(bytes)
            }
            _ => None,
        },
        collectives_in_functions: functions_use_collectives(ptx),
        counted_barriers: first_counted_barrier(ptx).is_some(),
        barrier_arrivals: has_barrier_arrivals(ptx),
        native_warp_group_matrix: target.native_warp_group_matrix(&machine.get_cpu().to_string_lossy()),
    };
    let mut diagnostics = Vec::new();
    for (index, variable) in ptx.globals.iter().enumerate() {
        if variable.state_space == StateSpace::Shared && target.shared_variables_in_window() {
            // Reached through the block's window (`FunctionLowering::storage`), not a symbol.
            continue;
        }
        match declare_global(&shared, variable, &variable.name) {
            Ok(global) => {
                shared.globals.insert(index as u32, global);
            }
            Err(error) => diagnostics.push(error.diagnostic),
        }
    }
    if !diagnostics.is_empty() {
        // Functions would only report the same variables again, as missing storage.
        return Err(diagnostics);
    }
    if may_trap(ptx, target) {
        if let Err(unsupported) = target.prepare_for_traps(context, &module) {
            return Err(vec![
                LoweringError::internal(
                    format!("preparing for `trap`: {}", unsupported.what),
                    ptxr_frontend::Span::default(),
                )
                .diagnostic,
            ]);
        }
    }
    let registers: std::collections::BTreeSet<_> =
        ptx.functions.iter().flat_map(|function| function.special_registers.iter().copied()).collect();
    if let Err(unsupported) = target.prepare_for_special_registers(context, &module, &registers) {
        return Err(vec![
            LoweringError::internal(
                format!("preparing for the special registers: {}", unsupported.what),
                ptxr_frontend::Span::default(),
            )
            .diagnostic,
        ]);
    }
    let gaps = crate::processor_gaps::processor_gaps(ptx, source, target, machine);
    if !gaps.is_empty() {
        return Err(gaps);
    }
    for function in &ptx.functions {
        let declared = declare_function(&shared, function);
        shared.functions.push(declared);
    }
    // After the functions, whose addresses initializers may store too.
    for (index, variable) in ptx.globals.iter().enumerate() {
        if let Some(global) = shared.globals.get(&(index as u32)) {
            if let Err(error) = initialize_addresses(&shared, variable, *global) {
                diagnostics.push(error.diagnostic);
            }
        }
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    for (index, function) in ptx.functions.iter().enumerate() {
        if function.body.is_none() {
            continue;
        }
        let llvm_function = shared.functions[index];
        let lowering = FunctionLowering::new(&shared, index as u32, function, llvm_function);
        diagnostics.extend(lowering.lower());
    }
    diagnostics.extend(crate::warnings::target_warnings(ptx, source, target, machine));
    if has_errors(&diagnostics) {
        return Err(diagnostics);
    }
    Ok((module, diagnostics))
}

/// The LLVM global of a `.global`, `.const` or `.shared` variable, named `name` (module-scope
/// variables keep their PTX name; those declared in a function are prefixed with it).
pub fn declare_global<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    variable: &ir::Variable,
    name: &str,
) -> Result<GlobalValue<'ctx>, LoweringError> {
    let target_name = shared.target.kind().name();
    match variable.state_space {
        StateSpace::Global | StateSpace::Const => {}
        StateSpace::Tex => return declare_texture_reference(shared, variable, name),
        StateSpace::Shared => shared
            .target
            .supports_shared_variables()
            .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, target_name, variable.span))?,
        other => {
            return Err(LoweringError::unsupported(
                &format!("module-scope {other} variables"),
                target_name,
                variable.span,
            ));
        }
    }
    let context = shared.context;
    if variable.array_length == Some(0) {
        // An unsized `.extern .shared` array: the launch's dynamic shared memory, an external
        // zero-length global that the back end places after the static shared variables
        // (targets with a shared window place it themselves and never get here).
        let dynamic_shared = variable.state_space == StateSpace::Shared && variable.linkage == Some(Linkage::Extern);
        if !dynamic_shared {
            return Err(LoweringError::unsupported("unsized arrays", target_name, variable.span));
        }
        let storage_type = context.i8_type().array_type(0);
        let global =
            shared.module.add_global(storage_type, Some(shared.target.address_space(StateSpace::Shared)), name);
        global.set_alignment(variable.align.unwrap_or(variable.ty.bytes()).max(1));
        global.set_linkage(LlvmLinkage::External);
        return Ok(global);
    }
    let size = variable.size_bytes();
    let storage_type = if variable.addresses().is_empty() {
        context.i8_type().array_type(size as u32).as_basic_type_enum()
    } else {
        address_initializer_type(shared, variable)?.as_basic_type_enum()
    };
    let address_space = shared.target.address_space(variable.state_space);
    let global = shared.module.add_global(storage_type, Some(address_space), name);
    global.set_alignment(variable.align.unwrap_or(variable.ty.bytes()).max(1));
    let is_extern = variable.linkage == Some(Linkage::Extern);
    if is_extern {
        global.set_linkage(LlvmLinkage::External);
    } else {
        let bytes = variable.initializer_bytes().map_or_else(|| vec![0; size as usize], <[u8]>::to_vec);
        let values: Vec<_> = bytes.iter().map(|byte| context.i8_type().const_int(u64::from(*byte), false)).collect();
        if variable.state_space == StateSpace::Shared {
            // Shared memory starts undefined on every launch; it cannot carry an initializer.
            global.set_initializer(&context.i8_type().array_type(size as u32).get_undef());
        } else if !variable.addresses().is_empty() {
            // Set by `initialize_addresses` once every variable it points to is declared.
        } else {
            global.set_initializer(&context.i8_type().const_array(&values));
        }
        global.set_linkage(match variable.linkage {
            Some(Linkage::Visible) | Some(Linkage::Common) => LlvmLinkage::External,
            Some(Linkage::Weak) => LlvmLinkage::WeakAny,
            _ => LlvmLinkage::Internal,
        });
    }
    if variable.state_space == StateSpace::Const {
        global.set_constant(true);
    }
    Ok(global)
}

/// A `.texref`, `.samplerref` or `.surfref` variable: a ptxr texture descriptor in global
/// memory (`ptxr_runtime::texture`), zeroed until the host binds a texture to it by name; the
/// variable's address is the handle that `tex`, `txq`, `suld`... read. Where textures are PTX's
/// own (`TextureLowering::InlinePtx`), the target's own variable instead.
fn declare_texture_reference<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    variable: &ir::Variable,
    name: &str,
) -> Result<GlobalValue<'ctx>, LoweringError> {
    if shared.target.textures() != ptxr_intrinsics::TextureLowering::Software {
        return declare_native_texture_reference(shared, variable, name);
    }
    let count = variable.array_length.unwrap_or(1).max(1) as u32;
    let storage_type = shared.context.i8_type().array_type(ptxr_runtime::texture::TEXTURE_DESCRIPTOR_BYTES * count);
    let global = shared.module.add_global(storage_type, Some(shared.target.address_space(StateSpace::Global)), name);
    global.set_alignment(8);
    match variable.linkage {
        Some(Linkage::Extern) => global.set_linkage(LlvmLinkage::External),
        linkage => {
            global.set_initializer(&storage_type.const_zero());
            // Kept visible, so that the host can find the variable by its PTX name and bind a
            // texture to it.
            let weak = linkage == Some(Linkage::Weak);
            global.set_linkage(if weak { LlvmLinkage::WeakAny } else { LlvmLinkage::External });
        }
    }
    Ok(global)
}

/// A `.texref` or `.surfref` variable that the target declares as its own (NVPTX's
/// `.global .texref NAME;`), under its PTX name and linkage; texture instructions name it.
fn declare_native_texture_reference<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    variable: &ir::Variable,
    name: &str,
) -> Result<GlobalValue<'ctx>, LoweringError> {
    let target_name = shared.target.kind().name();
    let opaque = variable.opaque.unwrap_or(ptxr_frontend::vocabulary::OpaqueType::Texture);
    if variable.array_length.is_some() {
        return Err(LoweringError::unsupported(&format!("arrays of `{opaque}` variables"), target_name, variable.span));
    }
    let handle_type = shared.context.i64_type();
    let global = shared.module.add_global(handle_type, Some(shared.target.address_space(StateSpace::Global)), name);
    global.set_alignment(8);
    global.set_externally_initialized(true);
    match variable.linkage {
        Some(Linkage::Extern) => global.set_linkage(LlvmLinkage::External),
        linkage => {
            global.set_initializer(&handle_type.const_zero());
            global.set_linkage(match linkage {
                Some(Linkage::Weak) => LlvmLinkage::WeakAny,
                // Visible, as on the other targets, so that the host finds it by its PTX name.
                _ => LlvmLinkage::External,
            });
        }
    }
    shared
        .target
        .declare_texture_reference(shared.context, shared.module, global, opaque)
        .map_err(|unsupported| LoweringError::unsupported(&unsupported.what, target_name, variable.span))?;
    Ok(global)
}

/// The pieces of an initializer that stores addresses: the bytes between addresses, and each
/// address as a pointer of its own width.
enum InitializerPiece<'v> {
    Bytes(std::ops::Range<usize>),
    Address(&'v ir::AddressInitializer),
}

fn initializer_pieces(variable: &ir::Variable) -> Vec<InitializerPiece<'_>> {
    let mut pieces = Vec::new();
    let mut position = 0;
    for address in variable.addresses() {
        let start = address.offset as usize;
        if start > position {
            pieces.push(InitializerPiece::Bytes(position..start));
        }
        pieces.push(InitializerPiece::Address(address));
        position = start + address.bytes as usize;
    }
    let size = variable.size_bytes() as usize;
    if size > position {
        pieces.push(InitializerPiece::Bytes(position..size));
    }
    pieces
}

/// The LLVM address space of a stored address: the target variable's own, or generic.
fn stored_address_space(
    shared: &ModuleContext<'_, '_>,
    address: &ir::AddressInitializer,
) -> Result<inkwell::AddressSpace, LoweringError> {
    let target_name = shared.target.kind().name();
    let target = match address.target {
        ir::AddressTarget::Variable(variable) => variable,
        ir::AddressTarget::Function(function) => {
            // Functions live in address space 0 on every target that takes their addresses
            // (SPIR-V stores identifiers instead: `identifier_address`).
            lowered_in_place(shared, function, address.span)?;
            return checked_address_width(shared, inkwell::AddressSpace::default(), address);
        }
    };
    let VariableId::Global(index) = target else {
        return Err(LoweringError::unsupported(
            "addresses of function variables in initializers",
            target_name,
            address.span,
        ));
    };
    let pointee = &shared.ptx.globals[index as usize];
    if !matches!(pointee.state_space, StateSpace::Global | StateSpace::Const) {
        return Err(LoweringError::unsupported(
            &format!("addresses of {} variables in initializers", pointee.state_space),
            target_name,
            address.span,
        ));
    }
    let space = if address.generic { StateSpace::Generic } else { pointee.state_space };
    checked_address_width(shared, shared.target.address_space(space), address)
}

/// `address_space`, when its pointers are as wide as the stored address.
fn checked_address_width(
    shared: &ModuleContext<'_, '_>,
    address_space: inkwell::AddressSpace,
    address: &ir::AddressInitializer,
) -> Result<inkwell::AddressSpace, LoweringError> {
    let target_name = shared.target.kind().name();
    let layout = shared.module.get_data_layout();
    let target_data = inkwell::targets::TargetData::create(&layout.as_str().to_string_lossy());
    let pointer_bytes = target_data.get_pointer_byte_size(Some(address_space));
    if pointer_bytes != address.bytes {
        return Err(LoweringError::unsupported(
            &format!("a {}-bit address stored in {} bits", pointer_bytes * 8, address.bytes * 8),
            target_name,
            address.span,
        ));
    }
    Ok(address_space)
}

/// An error for the device-library functions whose calls are lowered in place (`vprintf`,
/// `malloc`, ...): there is no function to point at.
fn lowered_in_place(
    shared: &ModuleContext<'_, '_>,
    function: ir::FunctionId,
    span: ptxr_frontend::Span,
) -> Result<(), LoweringError> {
    let declaration = shared.ptx.function(function);
    let name = &declaration.name;
    let in_place = ptxr_intrinsics::DeviceFunction::from_declaration(
        name,
        declaration.parameters.len(),
        declaration.return_parameters.len(),
    )
    .is_some();
    if declaration.body.is_none() && in_place {
        return Err(LoweringError::unsupported(&format!("the address of `{name}`"), shared.target.kind().name(), span));
    }
    Ok(())
}

/// The LLVM function whose address an initializer stores (declared by then).
fn function_pointer<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    function: ir::FunctionId,
    span: ptxr_frontend::Span,
) -> Result<inkwell::values::PointerValue<'ctx>, LoweringError> {
    lowered_in_place(shared, function, span)?;
    let name = &shared.ptx.function(function).name;
    let callee = shared
        .functions
        .get(function.0 as usize)
        .ok_or_else(|| LoweringError::internal(format!("`{name}` was not declared"), span))?;
    Ok(callee.as_global_value().as_pointer_value())
}

/// Whether the target calls through function identifiers (`FunctionAddresses::Identifiers`),
/// so that a stored function address is the function's index plus one, an integer.
fn identifier_address(shared: &ModuleContext<'_, '_>, address: &ir::AddressInitializer) -> Option<u64> {
    match address.target {
        ir::AddressTarget::Function(function)
            if shared.target.function_addresses() == ptxr_intrinsics::FunctionAddresses::Identifiers =>
        {
            Some(u64::from(function.0) + 1)
        }
        _ => None,
    }
}

/// A packed struct: byte arrays between the stored addresses, pointers for the addresses.
fn address_initializer_type<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    variable: &ir::Variable,
) -> Result<inkwell::types::StructType<'ctx>, LoweringError> {
    let context = shared.context;
    let mut fields = Vec::new();
    for piece in initializer_pieces(variable) {
        fields.push(match piece {
            InitializerPiece::Bytes(range) => context.i8_type().array_type(range.len() as u32).as_basic_type_enum(),
            InitializerPiece::Address(address) if identifier_address(shared, address).is_some() => {
                crate::types::integer_type(context, address.bytes * 8).into()
            }
            InitializerPiece::Address(address) => context.ptr_type(stored_address_space(shared, address)?).into(),
        });
    }
    Ok(context.struct_type(&fields, true))
}

/// Sets the initializer of a variable that stores addresses, once the variables it points to
/// are declared: each address is a constant expression (the target's symbol, offset, and cast
/// to the generic space for `generic()`), resolved by the linker or the JIT's relocations.
pub fn initialize_addresses<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    variable: &ir::Variable,
    global: GlobalValue<'ctx>,
) -> Result<(), LoweringError> {
    if variable.addresses().is_empty() || variable.linkage == Some(Linkage::Extern) {
        return Ok(());
    }
    let context = shared.context;
    let bytes = variable.initializer_bytes().map(<[u8]>::to_vec).unwrap_or_default();
    let mut values = Vec::new();
    for piece in initializer_pieces(variable) {
        values.push(match piece {
            InitializerPiece::Bytes(range) => {
                let constants: Vec<_> = range
                    .map(|index| context.i8_type().const_int(u64::from(bytes.get(index).copied().unwrap_or(0)), false))
                    .collect();
                context.i8_type().const_array(&constants).into()
            }
            InitializerPiece::Address(address) if identifier_address(shared, address).is_some() => {
                let identifier = identifier_address(shared, address).unwrap_or_default();
                let identifier = identifier.wrapping_add(address.addend as u64);
                crate::types::integer_type(context, address.bytes * 8).const_int(identifier, false).into()
            }
            InitializerPiece::Address(address) => {
                let address_space = stored_address_space(shared, address)?;
                let target = match address.target {
                    ir::AddressTarget::Function(function) => function_pointer(shared, function, address.span)?,
                    ir::AddressTarget::Variable(variable) => global_pointer(shared, variable).ok_or_else(|| {
                        LoweringError::internal("an initializer points to an undeclared variable", address.span)
                    })?,
                };
                let offset = context.i64_type().const_int(address.addend as u64, true);
                // SAFETY: a byte offset from the symbol, as PTX's `name+offset` means.
                let target = if address.addend == 0 {
                    target
                } else {
                    unsafe { target.const_gep(context.i8_type(), &[offset]) }
                };
                let pointer = if target.get_type().get_address_space() == address_space {
                    target
                } else {
                    target.const_address_space_cast(context.ptr_type(address_space))
                };
                pointer.into()
            }
        });
    }
    global.set_initializer(&context.const_struct(&values, true));
    Ok(())
}

/// The LLVM signature of a PTX function: hidden target parameters, then the PTX parameters by
/// value, then (`.func`s only) the address of the thread's stop flag where lowering keeps one,
/// then the shared window where the target passes it as a parameter; `.func` return
/// parameters become the return value.
fn declare_function<'ctx>(shared: &ModuleContext<'_, 'ctx>, function: &ir::Function) -> FunctionValue<'ctx> {
    let context = shared.context;
    let mut parameter_types: Vec<BasicMetadataTypeEnum<'ctx>> = shared.target.hidden_parameter_types(context);
    for variable in function.parameter_variables() {
        if aggregate_by_reference(shared, function, variable) {
            parameter_types.push(context.ptr_type(inkwell::AddressSpace::default()).into());
        } else {
            parameter_types.push(parameter_type(shared, variable).into());
        }
    }
    if function.kind == FunctionKind::Func {
        parameter_types.extend(shared.stop_flag_parameter);
    }
    parameter_types.extend(shared.launch_arguments_parameter.map(BasicMetadataTypeEnum::from));
    parameter_types.extend(shared.shared_window_parameter);
    let return_types: Vec<_> =
        function.return_parameters.iter().map(|&index| parameter_type(shared, function.variable(index))).collect();
    let function_type = match return_types.as_slice() {
        [] => context.void_type().fn_type(&parameter_types, false),
        [single] => single.fn_type(&parameter_types, false),
        many => context.struct_type(many, false).fn_type(&parameter_types, false),
    };
    let linkage = match (function.kind, function.linkage, function.body.is_some()) {
        (_, _, false) => LlvmLinkage::External,
        (FunctionKind::Entry, _, true) => LlvmLinkage::External,
        (FunctionKind::Func, _, true) if !shared.target.functions_visible_outside_the_module() => LlvmLinkage::Internal,
        (FunctionKind::Func, Some(Linkage::Visible), true) => LlvmLinkage::External,
        (FunctionKind::Func, Some(Linkage::Weak), true) => LlvmLinkage::WeakAny,
        (FunctionKind::Func, _, true) => LlvmLinkage::Internal,
    };
    let llvm_function = shared.module.add_function(&function.name, function_type, Some(linkage));
    if function.kind == FunctionKind::Func {
        llvm_function.set_call_conventions(shared.target.function_calling_convention());
    }
    if function.kind == FunctionKind::Func && shared.target.functions_are_convergent() {
        ptxr_intrinsics::mark_convergent(llvm_function);
    }
    let hidden = shared.target.hidden_parameter_types(context).len();
    for (position, variable) in function.parameter_variables().enumerate() {
        if let Some(parameter) = llvm_function.get_nth_param((hidden + position) as u32) {
            parameter.set_name(&variable.name);
        }
        if aggregate_by_reference(shared, function, variable) {
            let location = AttributeLoc::Param((hidden + position) as u32);
            // A struct around the bytes, as clang declares an OpenCL C struct argument: Intel's
            // OpenCL runtime sizes a `byval` array argument wrongly (CL_INVALID_ARG_SIZE).
            let bytes = context.struct_type(&[parameter_type(shared, variable)], false).as_any_type_enum();
            llvm_function.add_attribute(
                location,
                context.create_type_attribute(Attribute::get_named_enum_kind_id("byval"), bytes),
            );
            let align = variable.align.unwrap_or(variable.ty.bytes()).max(1);
            llvm_function.add_attribute(
                location,
                context.create_enum_attribute(Attribute::get_named_enum_kind_id("align"), u64::from(align)),
            );
        }
    }
    if function.kind == FunctionKind::Func && shared.stop_flag_parameter.is_some() {
        let position = hidden + function.parameters.len();
        if let Some(flag) = llvm_function.get_nth_param(position as u32) {
            flag.set_name("thread.stopped");
        }
    }
    if let Some(arguments) = launch_arguments_position(shared, function).and_then(|at| llvm_function.get_nth_param(at))
    {
        arguments.set_name("launch.arguments");
    }
    if shared.shared_window_parameter.is_some() {
        if let Some(window) = llvm_function.get_last_param() {
            window.set_name("shared.window");
        }
    }
    llvm_function
}

/// Whether `variable`, a parameter of `function`, comes as a `byval` pointer to its bytes
/// (`Target::kernel_aggregates_by_reference`): an array parameter of a kernel on such a target.
pub fn aggregate_by_reference(
    shared: &ModuleContext<'_, '_>,
    function: &ir::Function,
    variable: &ir::Variable,
) -> bool {
    function.kind == FunctionKind::Entry
        && (variable.array_length.is_some() || variable.vector.is_some())
        && shared.target.kernel_aggregates_by_reference()
}

/// The index of `function`'s launch arguments parameter among its LLVM parameters, where the
/// module passes them (`ModuleContext::launch_arguments_parameter`).
pub fn launch_arguments_position(shared: &ModuleContext<'_, '_>, function: &ir::Function) -> Option<u32> {
    shared.launch_arguments_parameter?;
    let hidden = shared.target.hidden_parameter_types(shared.context).len();
    let stop_flag = usize::from(function.kind == FunctionKind::Func && shared.stop_flag_parameter.is_some());
    u32::try_from(hidden + function.parameters.len() + stop_flag).ok()
}

/// Whether the functions of `ptx` take `target`'s launch arguments
/// (`Target::launch_arguments_type`): some function reads a special register that the target
/// takes from them, or tests a state space whose window the target learns from them
/// (`isspace_needs`). The decision is module-wide, as the shared window's, because calls pass
/// them on.
pub fn takes_launch_arguments(ptx: &ir::Module, target: &dyn Target) -> bool {
    use ptxr_intrinsics::LaunchArgumentNeed;
    let reads_register = ptx.functions.iter().any(|function| {
        function
            .special_registers
            .iter()
            .any(|&register| target.needs_launch_arguments(LaunchArgumentNeed::Register(register)))
    });
    let has_dynamic_shared = ir::SharedLayout::of(ptx).has_dynamic;
    let tests_a_window = instructions(ptx.functions.iter()).any(|instruction| match instruction.instruction {
        ir::Instruction::IsSpace { state_space, .. } => {
            isspace_needs(state_space, has_dynamic_shared).iter().any(|&need| target.needs_launch_arguments(need))
        }
        _ => false,
    });
    reads_register || tests_a_window
}

/// What `isspacep` of `state_space` may read from the launch arguments: where the launch's
/// dynamic shared memory ends (in a module that has some), where the launch's buffers lie
/// (`.global`, and `.local`, which is none of the others), and where the kernel placed its
/// parameters (`.param`, which lies inside `.global`, and `.local`).
fn isspace_needs(state_space: StateSpace, has_dynamic_shared: bool) -> Vec<ptxr_intrinsics::LaunchArgumentNeed> {
    use ptxr_intrinsics::LaunchArgumentNeed::{DynamicSharedWindowEnd, KernelParameterWindow, LaunchBuffers};
    let mut needs = match state_space {
        StateSpace::Global | StateSpace::Local => vec![LaunchBuffers, KernelParameterWindow],
        StateSpace::Param => vec![KernelParameterWindow],
        _ => Vec::new(),
    };
    if has_dynamic_shared && matches!(state_space, StateSpace::Shared | StateSpace::Local) {
        needs.push(DynamicSharedWindowEnd);
    }
    needs
}

/// Whether the kernels of `ptx` keep their parameters in one frame whose place they record in
/// the launch arguments for `isspacep` (`Target::record_kernel_parameter_window`).
fn records_kernel_parameter_window(ptx: &ir::Module, target: &dyn Target) -> bool {
    let needed = ptxr_intrinsics::LaunchArgumentNeed::KernelParameterWindow;
    target.needs_launch_arguments(needed)
        && instructions(ptx.functions.iter()).any(|instruction| match instruction.instruction {
            ir::Instruction::IsSpace { state_space, .. } => isspace_needs(state_space, false).contains(&needed),
            _ => false,
        })
}

/// Whether the module calls `malloc` (a declaration of CUDA's device-library function).
pub fn calls_malloc(ptx: &ir::Module) -> bool {
    ptx.functions.iter().any(|function| {
        function.body.is_none()
            && ptxr_intrinsics::DeviceFunction::from_declaration(
                &function.name,
                function.parameters.len(),
                function.return_parameters.len(),
            ) == Some(ptxr_intrinsics::DeviceFunction::Malloc)
    })
}

/// Whether the kernels of `ptx` compiled for `kind` take the launch arguments
/// (`takes_launch_arguments`), for the runtime that must pass them.
pub fn kernels_take_launch_arguments(ptx: &ir::Module, kind: ptxr_intrinsics::TargetKind) -> bool {
    takes_launch_arguments(ptx, ptxr_intrinsics::for_kind(kind).as_ref())
}

/// Parameters are passed by value; byte arrays (aggregates) as LLVM arrays.
pub fn parameter_type<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    variable: &ir::Variable,
) -> inkwell::types::BasicTypeEnum<'ctx> {
    let element = shared.value_type(variable.ty);
    // A `.vN` register is an array of its elements, so that members are addressed by index.
    let lanes = variable.vector.map(u64::from);
    match (variable.array_length, lanes) {
        (None, None) => element,
        (length, lanes) => element.array_type((length.unwrap_or(1) * lanes.unwrap_or(1)) as u32).into(),
    }
}

/// The storage of a module-scope variable, for `VariableId::Global`.
pub fn global_pointer<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    id: VariableId,
) -> Option<inkwell::values::PointerValue<'ctx>> {
    match id {
        VariableId::Global(index) => shared.globals.get(&index).map(|global| global.as_pointer_value()),
        VariableId::Local(_) => None,
    }
}

/// Whether any function of the module uses a warp collective (`shfl`, `vote`, `match`, `redux`,
/// `activemask`, `bar.warp.sync`, and `mma` and `ldmatrix`, which are built from shuffles there)
/// or reads a warp special register (`%laneid`, `%lanemask_lt`,
/// ...): on SPIR-V those need sub-groups, so SPIR-V 1.3.
pub fn uses_warps(ptx: &ir::Module) -> bool {
    if ptx.functions.iter().any(|function| function.reads_warp_registers) {
        return true;
    }
    instructions(ptx.functions.iter()).any(|instruction| {
        crate::instructions::is_cooperative(&instruction.instruction)
            && !matches!(
                instruction.instruction,
                ir::Instruction::Barrier { .. } | ir::Instruction::MbarrierTestWait { .. }
            )
    })
}

/// The instructions of the bodies among `functions`, in file order.
fn instructions<'m>(
    functions: impl Iterator<Item = &'m ir::Function>,
) -> impl Iterator<Item = &'m ir::GuardedInstruction> {
    functions.filter_map(|function| function.body.as_deref()).flatten().filter_map(|statement| match statement {
        ir::Statement::Instruction(instruction) => Some(instruction),
        ir::Statement::Label(_) => None,
    })
}

/// The PTX ISA version (major, minor) that the module's proxy fences need: 8.0 for
/// `fence.proxy.async`, 7.5 for `fence.proxy.alias`, `None` without them. LLVM's NVPTX back end
/// writes the oldest version that knows the architecture unless told otherwise, and cannot
/// select these fences below their version.
pub fn proxy_fence_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    instructions(ptx.functions.iter())
        .filter_map(|instruction| match &instruction.instruction {
            ir::Instruction::ProxyFence { proxy } => Some(if *proxy == ir::ProxyKind::Alias { (7, 5) } else { (8, 0) }),
            _ => None,
        })
        .max()
}

/// The PTX ISA that NVPTX output needs for the NVVM intrinsics of the module's instructions:
/// 6.5 for `ldmatrix` and `mma` (7.0 for `mma` on `.b1` with `.xor.popc`, 7.1 with `.and.popc`
/// and for `mma.sp`),
/// 6.3 for `nanosleep`, 6.2 for `activemask`, 6.0 for `shfl.sync`, `vote.sync`, `match.sync`,
/// `redux.sync`, `bar.warp.sync` and the ballot that `elect.sync` becomes, 7.1 for `tex` and
/// `tld4` with a residency predicate, 8.0 for the bulk copies and `mbarrier` transaction counts,
/// 8.3 for the tensor-map instructions; `None` without them.
/// The checker gates each to its `sm_` (`nanosleep` sm_70,
/// `ldmatrix` sm_75; the warp collectives from sm_30, `match` sm_70, `redux` sm_80), but LLVM
/// writes the oldest PTX version that knows the architecture (5.0 for sm_60, 6.0 for sm_70,
/// 6.1 for sm_72, 6.3 for sm_75) and cannot select the intrinsics below their version; the
/// driver raises it.
pub fn intrinsic_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    instructions(ptx.functions.iter())
        .filter_map(|instruction| match instruction.instruction {
            ir::Instruction::LoadMatrix { .. } => Some((6, 5)),
            // `mma`'s sm_70 and sm_75 shapes need 6.4 or 6.5 there, but `.m8n8k128` 7.0 (as
            // ptxas says); `.and.popc` 7.1 on sm_80.
            ir::Instruction::MatrixMultiplyAccumulate { operation, ref sparse, .. } => {
                Some(match operation.bit_operation {
                    _ if sparse.is_some() => (7, 1),
                    Some(ir::BitOperation::And) => (7, 1),
                    Some(ir::BitOperation::Xor) => (7, 0),
                    None => (6, 5),
                })
            }
            ir::Instruction::Sleep { .. } => Some((6, 3)),
            ir::Instruction::ActiveMask { .. } => Some((6, 2)),
            ir::Instruction::Shuffle { .. }
            | ir::Instruction::Vote { .. }
            | ir::Instruction::Match { .. }
            | ir::Instruction::Redux { .. }
            | ir::Instruction::WarpSync { .. }
            | ir::Instruction::Elect { .. } => Some((6, 0)),
            // Inline PTX (`Target::native_bulk_copy`, `nvptx_mbarrier.rs`): the bulk copies
            // and transaction counts are ISA 8.0, the tensor-map instructions 8.3.
            ir::Instruction::BulkCopy { .. }
            | ir::Instruction::BulkReduce { .. }
            | ir::Instruction::BulkPrefetch { .. }
            | ir::Instruction::BulkTensorPrefetch { .. }
            | ir::Instruction::BulkTensorCopy { .. }
            | ir::Instruction::BulkCopyCommit
            | ir::Instruction::BulkCopyWait { .. }
            | ir::Instruction::MbarrierTransaction { .. }
            | ir::Instruction::MbarrierArrive { transaction_count: Some(_), .. } => Some((8, 0)),
            ir::Instruction::TensorMapReplace { .. }
            | ir::Instruction::TensorMapCopyFenceProxy { .. }
            | ir::Instruction::TensorMapFence { .. } => Some((8, 3)),
            // `tex` and `tld4` with a residency predicate (`d|p`): 7.1, as ptxas says.
            ir::Instruction::Texture(ref texture) => match **texture {
                ir::TextureInstruction::Sample { predicate: Some(_), .. }
                | ir::TextureInstruction::Gather { predicate: Some(_), .. } => Some((7, 1)),
                // 64-bit `sured.b.min`/`.max`: 8.1, as ptxas says.
                ir::TextureInstruction::SurfaceReduce {
                    ty: ptxr_frontend::vocabulary::ScalarType::U64 | ptxr_frontend::vocabulary::ScalarType::S64,
                    operation,
                    ..
                } if operation != ir::SurfaceReduction::Add => Some((8, 1)),
                _ => None,
            },
            _ => None,
        })
        .max()
}

/// The PTX ISA that NVPTX output needs for `alloca`, `stacksave` and `stackrestore` (7.3), where
/// the module has any; the driver raises LLVM's default version to it.
pub fn dynamic_stack_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    instructions(ptx.functions.iter())
        .any(|instruction| {
            matches!(
                instruction.instruction,
                ir::Instruction::StackAllocate { .. }
                    | ir::Instruction::StackSave { .. }
                    | ir::Instruction::StackRestore { .. }
            )
        })
        .then_some((7, 3))
}

/// The PTX ISA that NVPTX output needs for `cvta.param` and `isspacep.param` (7.7), where the
/// module has either: NVPTX keeps a kernel's parameters in the `.param` space, converts their
/// addresses with `cvta.param` and asks `isspacep.param` as inline PTX, which ptxas refuses in
/// older versions. The driver raises LLVM's default version to it.
pub fn parameter_window_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    instructions(ptx.functions.iter())
        .any(|instruction| {
            matches!(
                instruction.instruction,
                ir::Instruction::ConvertAddress { state_space: StateSpace::Param, .. }
                    | ir::Instruction::IsSpace { state_space: StateSpace::Param, .. }
            )
        })
        .then_some((7, 7))
}

/// The newest PTX ISA version among the special registers the module reads (NVPTX reads
/// `%reserved_smem_offset_*` (7.6) and the cluster registers (7.8) by inline PTX).
pub fn special_register_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    ptx.functions.iter().filter_map(|function| function.special_register_isa).max()
}

/// The PTX ISA version that NVPTX's inline `discard.L2` and `applypriority.L2` need (7.4), if
/// the module has either.
pub fn cache_hint_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    instructions(ptx.functions.iter())
        .any(|instruction| {
            matches!(
                instruction.instruction,
                ir::Instruction::Hint(ir::Hint::DiscardL2 { .. } | ir::Hint::ApplyPriorityL2 { .. })
            )
        })
        .then_some((7, 4))
}

/// The PTX ISA that NVPTX output needs for `atom.cas.b128` and `atom.exch.b128` (8.3, the
/// version that introduced them): LLVM's NVPTX back end selects an `i128` `cmpxchg` or
/// `atomicrmw xchg` only at sm_90 with PTX ISA 8.3, and reports "unsupported cmpxchg" below.
pub fn wide_atomic_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    instructions(ptx.functions.iter())
        .any(|instruction| {
            matches!(
                instruction.instruction,
                ir::Instruction::Atomic { ty: ptxr_frontend::vocabulary::ScalarType::B128, .. }
            )
        })
        .then_some((8, 3))
}

/// The PTX ISA that NVPTX output needs for the module's `wmma` forms (section 9.7.13.3's PTX
/// ISA notes): 6.1 for `.m32n8k16` and `.m8n32k16`, 6.3 for the integer forms, 7.0 for
/// `.bf16`, `.tf32` and `.f64`, 7.1 for `.and.popc`; and for `mma` on 8-bit floats (section
/// 9.7.13.4.14's notes), 8.4 for `.m16n8k32` into `.f32`, 8.7 for the other forms; 8.4 for
/// `wgmma` on mixed `.s8`/`.u8`; the driver raises LLVM's default version to it.
pub fn warp_matrix_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    use ir::{MatrixElement, WarpMatrixGeometry};
    let needed = |geometry: WarpMatrixGeometry, element: MatrixElement| match element {
        MatrixElement::Bf16 | MatrixElement::Tf32 | MatrixElement::F64 => Some((7, 0)),
        MatrixElement::S8
        | MatrixElement::U8
        | MatrixElement::S4
        | MatrixElement::U4
        | MatrixElement::B1
        | MatrixElement::S32 => Some((6, 3)),
        MatrixElement::F16 | MatrixElement::F32 => {
            matches!(geometry, WarpMatrixGeometry::M32n8k16 | WarpMatrixGeometry::M8n32k16).then_some((6, 1))
        }
        // `wmma` has no 8-bit floats; `mma`'s are below.
        MatrixElement::E4m3 | MatrixElement::E5m2 => None,
    };
    let float8 = |operation: &ir::MatrixMultiply| {
        matches!(operation.a, MatrixElement::E4m3 | MatrixElement::E5m2).then_some(
            // ISA 8.4 has `.m16n8k32` into `.f32`; 8.7 added `.m16n8k16` and `.f16` C and D.
            if operation.shape == ir::MatrixShape::M16n8k32 && operation.d == MatrixElement::F32 {
                (8, 4)
            } else {
                (8, 7)
            },
        )
    };
    instructions(ptx.functions.iter())
        .filter_map(|instruction| match &instruction.instruction {
            ir::Instruction::WarpMatrixLoad { shape, .. } | ir::Instruction::WarpMatrixStore { shape, .. } => {
                needed(shape.geometry, shape.element)
            }
            ir::Instruction::WarpMatrixMultiplyAccumulate { operation, .. } => {
                let and = (operation.bit_operation == Some(ir::BitOperation::And)).then_some((7, 1));
                needed(operation.geometry, operation.a).max(needed(operation.geometry, operation.c)).max(and)
            }
            ir::Instruction::MatrixMultiplyAccumulate { operation, .. } => float8(operation),
            // Written as such at sm_90a (`native_warp_group_matrix.rs`); ptxas 12.9: "Feature
            // 'WGMMA with mixed integer types' requires PTX ISA .version 8.4".
            ir::Instruction::WarpGroupMultiplyAccumulate(multiply) => (multiply.operation.a != multiply.operation.b)
                .then_some((8, 4))
                .filter(|_| matches!(multiply.operation.a, ir::WarpGroupElement::S8 | ir::WarpGroupElement::U8)),
            _ => None,
        })
        .max()
}

fn functions_use_collectives(ptx: &ir::Module) -> bool {
    any_collective(ptx.functions.iter().filter(|function| function.kind != FunctionKind::Entry))
}

/// The first `bar.arrive` or barrier with a thread count, in file order.
pub fn first_counted_barrier(ptx: &ir::Module) -> Option<&ir::GuardedInstruction> {
    instructions(ptx.functions.iter()).find(|instruction| {
        matches!(
            instruction.instruction,
            ir::Instruction::Barrier { operation: ir::BarrierOperation::Arrive, .. }
                | ir::Instruction::Barrier { thread_count: Some(_), .. }
        )
    })
}

/// Whether a barrier operation is one of `bar.red`'s.
pub fn is_reduction(operation: ir::BarrierOperation) -> bool {
    !matches!(operation, ir::BarrierOperation::Sync | ir::BarrierOperation::Arrive)
}

/// Whether any function uses `bar.arrive`.
fn has_barrier_arrivals(ptx: &ir::Module) -> bool {
    instructions(ptx.functions.iter()).any(|instruction| {
        matches!(instruction.instruction, ir::Instruction::Barrier { operation: ir::BarrierOperation::Arrive, .. })
    })
}

/// The first `mbarrier.test_wait` or `mbarrier.try_wait`, in file order.
pub fn first_mbarrier_wait(ptx: &ir::Module) -> Option<&ir::GuardedInstruction> {
    instructions(ptx.functions.iter())
        .find(|instruction| matches!(instruction.instruction, ir::Instruction::MbarrierTestWait { .. }))
}

/// The PTX ISA version (major, minor) that the module's `mbarrier` forms written as inline PTX
/// on NVPTX need beyond their architecture's oldest: 7.1 for `.parity`, which sm_80 (ISA 7.0)
/// has. `try_wait` and counted arrivals need sm_90, whose oldest version (7.8) has them.
pub fn mbarrier_isa(ptx: &ir::Module) -> Option<(u32, u32)> {
    instructions(ptx.functions.iter())
        .any(|instruction| matches!(instruction.instruction, ir::Instruction::MbarrierTestWait { parity: true, .. }))
        .then_some((7, 1))
}

fn uses_collectives(ptx: &ir::Module) -> bool {
    any_collective(ptx.functions.iter())
}

/// Whether a body among `functions` holds a barrier or a warp collective.
fn any_collective<'m>(functions: impl Iterator<Item = &'m ir::Function>) -> bool {
    instructions(functions).any(|instruction| crate::instructions::is_cooperative(&instruction.instruction))
}

/// Whether calling `function` stops the thread by itself: a declaration of one of CUDA's
/// device-library functions that stop it (`__assertfail`).
fn stops_on_call(function: &ir::Function) -> bool {
    function.body.is_none()
        && ptxr_intrinsics::DeviceFunction::from_declaration(
            &function.name,
            function.parameters.len(),
            function.return_parameters.len(),
        )
        .is_some_and(ptxr_intrinsics::DeviceFunction::stops_thread)
}

/// Whether `instruction` may stop the thread through a check that lowering adds on `target`:
/// an indirect call whose identifier names no function (`FunctionAddresses::Identifiers`), or a
/// counted `bar.red` whose count is not the block's
/// (`counted_barriers_of_the_whole_block_are_block_barriers`).
fn stops_by_lowering(instruction: &ir::Instruction, target: &dyn Target) -> bool {
    match instruction {
        ir::Instruction::CallIndirect { .. } => {
            target.function_addresses() == ptxr_intrinsics::FunctionAddresses::Identifiers
        }
        ir::Instruction::Barrier { operation, thread_count: Some(_), .. } => {
            is_reduction(*operation) && target.counted_barriers_of_the_whole_block_are_block_barriers()
        }
        ir::Instruction::StackAllocate { .. } => target.stack_bound() != ptxr_intrinsics::StackBound::Unchecked,
        // Not a stop, but a use of the private stack, which `.func`s reach beside the stop flag.
        ir::Instruction::StackSave { .. } | ir::Instruction::StackRestore { .. } => {
            matches!(target.stack_bound(), ptxr_intrinsics::StackBound::PrivateArray(_))
        }
        _ => false,
    }
}

/// Whether any function executes `trap`, calls `__assertfail`, or has an instruction that
/// lowering's checks may stop on `target` (`stops_by_lowering`).
fn may_trap(ptx: &ir::Module, target: &dyn Target) -> bool {
    instructions(ptx.functions.iter()).any(|instruction| match &instruction.instruction {
        ir::Instruction::Trap => true,
        ir::Instruction::Call { callee, .. } => stops_on_call(ptx.function(*callee)),
        other => stops_by_lowering(other, target),
    })
}

/// For each function, whether calling it may stop the thread: it executes `trap` or `exit`
/// (a `.func`'s `exit` ends the thread, not just the function), calls `__assertfail`, or calls
/// a function that may stop, or has an instruction that lowering's checks may stop on
/// `target` (`stops_by_lowering`; found by iterating to a fixed point).
fn may_stop(ptx: &ir::Module, target: &dyn Target) -> Vec<bool> {
    let mut may_stop: Vec<bool> = ptx.functions.iter().map(stops_on_call).collect();
    loop {
        let mut changed = false;
        for (index, function) in ptx.functions.iter().enumerate() {
            if may_stop[index] {
                continue;
            }
            let stops = function.body.iter().flatten().any(|statement| match statement {
                ir::Statement::Instruction(instruction) => match &instruction.instruction {
                    ir::Instruction::Trap => true,
                    ir::Instruction::Exit => function.kind != FunctionKind::Entry,
                    ir::Instruction::Call { callee, .. } => may_stop[callee.0 as usize],
                    // Any function whose address was taken may be the target.
                    ir::Instruction::CallIndirect { .. } => {
                        stops_by_lowering(&instruction.instruction, target) || may_stop.iter().any(|&stops| stops)
                    }
                    other => stops_by_lowering(other, target),
                },
                ir::Statement::Label(_) => false,
            });
            if stops {
                may_stop[index] = true;
                changed = true;
            }
        }
        if !changed {
            return may_stop;
        }
    }
}
