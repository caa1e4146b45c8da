//! Lowering a whole checked module: globals, function declarations, then bodies.

use std::collections::HashMap;

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage as LlvmLinkage, Module};
use inkwell::targets::TargetMachine;
use inkwell::types::{BasicMetadataTypeEnum, BasicType};
use inkwell::values::{FunctionValue, GlobalValue};
use ptxr_frontend::ir::{self, VariableId};
use ptxr_frontend::syntax::ast::{FunctionKind, Linkage};
use ptxr_frontend::vocabulary::StateSpace;
use ptxr_frontend::Diagnostic;
use ptxr_intrinsics::Target;

use crate::error::LoweringError;
use crate::function::FunctionLowering;
use crate::types::llvm_type;

/// What the function lowerings share: the LLVM module and the module-level symbols.
pub struct ModuleContext<'a, 'ctx> {
    pub context: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub builder: &'a Builder<'ctx>,
    pub target: &'a dyn Target,
    pub ptx: &'a ir::Module,
    pub globals: HashMap<u32, GlobalValue<'ctx>>,
    pub functions: Vec<FunctionValue<'ctx>>,
    /// Offsets of `.shared` variables, for targets whose shared memory is a window.
    pub shared_layout: ir::SharedLayout,
    /// Whether any function of the module uses barriers or warp collectives. Calls are not
    /// followed, so every kernel of such a module is built cooperative.
    pub cooperative: bool,
}

/// Lowers a checked module for one target. Every unsupported construct in every function is
/// reported, not only the first.
pub fn lower<'ctx>(
    context: &'ctx Context,
    ptx: &ir::Module,
    target: &dyn Target,
    machine: &TargetMachine,
    module_name: &str,
) -> Result<Module<'ctx>, Vec<Diagnostic>> {
    let module = context.create_module(module_name);
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    target.configure_module(context, &module);
    let builder = context.create_builder();
    let mut shared = ModuleContext {
        context,
        module: &module,
        builder: &builder,
        target,
        ptx,
        globals: HashMap::new(),
        functions: Vec::new(),
        shared_layout: ir::SharedLayout::of(ptx),
        cooperative: uses_collectives(ptx),
    };
    let mut diagnostics = Vec::new();
    for (index, variable) in ptx.globals.iter().enumerate() {
        if variable.state_space == StateSpace::Shared && target.shared_variables_in_window() {
            // Reached through the block's window (`FunctionLowering::storage`), not a symbol.
            continue;
        }
        match declare_global(&shared, variable) {
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
    for function in &ptx.functions {
        let declared = declare_function(&shared, function);
        shared.functions.push(declared);
    }
    for (index, function) in ptx.functions.iter().enumerate() {
        if function.body.is_none() {
            continue;
        }
        let llvm_function = shared.functions[index];
        let lowering = FunctionLowering::new(&shared, index as u32, function, llvm_function);
        diagnostics.extend(lowering.lower());
    }
    if !diagnostics.is_empty() {
        return Err(diagnostics);
    }
    Ok(module)
}

fn declare_global<'ctx>(
    shared: &ModuleContext<'_, 'ctx>,
    variable: &ir::Variable,
) -> Result<GlobalValue<'ctx>, LoweringError> {
    let target_name = shared.target.kind().name();
    match variable.state_space {
        StateSpace::Global | StateSpace::Const => {}
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
    if variable.array_length == Some(0) {
        return Err(LoweringError::unsupported("unsized arrays (dynamic shared memory)", target_name, variable.span));
    }
    let context = shared.context;
    let size = variable.size_bytes();
    let storage_type = context.i8_type().array_type(size as u32);
    let address_space = shared.target.address_space(variable.state_space);
    let global = shared.module.add_global(storage_type, Some(address_space), &variable.name);
    global.set_alignment(variable.align.unwrap_or(variable.ty.bytes()).max(1));
    let is_extern = variable.linkage == Some(Linkage::Extern);
    if is_extern {
        global.set_linkage(LlvmLinkage::External);
    } else {
        let bytes = variable.initializer.clone().unwrap_or_else(|| vec![0; size as usize]);
        let values: Vec<_> = bytes.iter().map(|byte| context.i8_type().const_int(u64::from(*byte), false)).collect();
        if variable.state_space == StateSpace::Shared {
            // Shared memory starts undefined on every launch; it cannot carry an initializer.
            global.set_initializer(&storage_type.get_undef());
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

/// The LLVM signature of a PTX function: hidden target parameters, then the PTX parameters by
/// value; `.func` return parameters become the return value.
fn declare_function<'ctx>(shared: &ModuleContext<'_, 'ctx>, function: &ir::Function) -> FunctionValue<'ctx> {
    let context = shared.context;
    let mut parameter_types: Vec<BasicMetadataTypeEnum<'ctx>> = shared.target.hidden_parameter_types(context);
    for variable in function.parameter_variables() {
        parameter_types.push(parameter_type(context, variable).into());
    }
    let return_types: Vec<_> =
        function.return_parameters.iter().map(|&index| parameter_type(context, function.variable(index))).collect();
    let function_type = match return_types.as_slice() {
        [] => context.void_type().fn_type(&parameter_types, false),
        [single] => single.fn_type(&parameter_types, false),
        many => context.struct_type(many, false).fn_type(&parameter_types, false),
    };
    let linkage = match (function.kind, function.linkage, function.body.is_some()) {
        (_, _, false) => LlvmLinkage::External,
        (FunctionKind::Entry, _, true) => LlvmLinkage::External,
        (FunctionKind::Func, Some(Linkage::Visible), true) => LlvmLinkage::External,
        (FunctionKind::Func, Some(Linkage::Weak), true) => LlvmLinkage::WeakAny,
        (FunctionKind::Func, _, true) => LlvmLinkage::Internal,
    };
    let llvm_function = shared.module.add_function(&function.name, function_type, Some(linkage));
    if function.kind == FunctionKind::Func {
        llvm_function.set_call_conventions(shared.target.function_calling_convention());
    }
    let hidden = shared.target.hidden_parameter_types(context).len();
    for (position, variable) in function.parameter_variables().enumerate() {
        if let Some(parameter) = llvm_function.get_nth_param((hidden + position) as u32) {
            parameter.set_name(&variable.name);
        }
    }
    llvm_function
}

/// Parameters are passed by value; byte arrays (aggregates) as LLVM arrays.
pub fn parameter_type<'ctx>(context: &'ctx Context, variable: &ir::Variable) -> inkwell::types::BasicTypeEnum<'ctx> {
    let element = llvm_type(context, variable.ty);
    match variable.array_length {
        Some(length) => element.array_type(length as u32).into(),
        None => element,
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

/// Whether any function body holds a barrier or a warp collective.
/// Whether any function of the module uses a warp collective (`shfl`, `vote`, `match`, `redux`,
/// `activemask`, `bar.warp.sync`): on SPIR-V those need sub-groups, so SPIR-V 1.3.
pub fn uses_warp_collectives(ptx: &ir::Module) -> bool {
    ptx.functions.iter().filter_map(|function| function.body.as_deref()).flatten().any(|statement| match statement {
        ir::Statement::Instruction(instruction) => {
            crate::instructions::is_cooperative(&instruction.instruction)
                && !matches!(instruction.instruction, ir::Instruction::Barrier { .. })
        }
        ir::Statement::Label(_) => false,
    })
}

fn uses_collectives(ptx: &ir::Module) -> bool {
    ptx.functions.iter().filter_map(|function| function.body.as_deref()).flatten().any(|statement| match statement {
        ir::Statement::Instruction(instruction) => crate::instructions::is_cooperative(&instruction.instruction),
        ir::Statement::Label(_) => false,
    })
}
