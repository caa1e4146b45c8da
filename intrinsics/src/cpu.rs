//! The CPU target: kernels run inside ptxr's runtime (see `ptxr_runtime::abi`).
//!
//! Every lowered function takes the block's `BlockContext` pointer and the thread's `%tid`
//! components as hidden leading parameters. A kernel body becomes `NAME.thread`, inlined into
//! the entry `NAME(params, context)` that loops over the block's threads, so that a kernel
//! without barriers is a plain loop nest that LLVM can optimise and vectorise.

use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, StructType};
use inkwell::values::{BasicMetadataValueEnum, FunctionValue, IntValue, PointerValue};
use inkwell::{AddressSpace, IntPredicate};
use ptxr_frontend::ir::{
    BarrierOperation, BitOperation, MatrixElement, MatrixLayout, MatrixMultiply, MatrixShape, MemoryScope,
    ReduxOperation, ShuffleMode, VoteMode,
};
use ptxr_frontend::vocabulary::{Dimension, SpecialRegister, StateSpace};
use ptxr_runtime::abi::{barrier_operation, block_context_field, matrix_operation, runtime_function, warp_collective};

use crate::declare::{call_function, call_intrinsic, to_i32};
use crate::resumable::{make_resumable, resume_helper, ThreadForm};
use crate::work_item_loops::{self, WorkItemForm};
use crate::{
    Barrier, CollectiveResult, KernelParameters, MatrixCollective, Site, Target, TargetKind, TextureLowering,
    Unsupported, WarpCollective,
};

/// Index of the context pointer among the hidden parameters; `%tid.x/y/z` follow it.
const CONTEXT_PARAMETER: u32 = 0;
pub(crate) const THREAD_ID_PARAMETER: u32 = 1;
/// PTX's warp size, which the runtime keeps on every target.
const WARP_SIZE: u64 = 32;

pub struct Cpu;

/// How the threads of a kernel that waits run, when every wait is in the kernel body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WaitsScheme {
    /// Compiled loops over the threads between waits (`work_item_loops/`), the default.
    Loops,
    /// LLVM coroutines (`resumable.rs`).
    Coroutines,
}

/// The scheme chosen by `PTXR_CPU_WAITS` (`loops` or `coroutines`; loops when unset or
/// anything else), so that tests can run the waiting kernels under both.
fn waits_scheme() -> WaitsScheme {
    match std::env::var("PTXR_CPU_WAITS") {
        Ok(value) if value == "coroutines" => WaitsScheme::Coroutines,
        _ => WaitsScheme::Loops,
    }
}

/// The order in which the threads of a kernel that never waits run the loops of its body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ThreadOrder {
    /// Each round runs one iteration of every thread (`work_item_loops::build_iteration_major`),
    /// the default.
    IterationMajor,
    /// Each thread runs its whole body before the next starts: the plain loop nest.
    ThreadMajor,
}

/// The order chosen by `PTXR_CPU_THREAD_ORDER` (`iteration-major` or `thread-major`;
/// iteration-major when unset or anything else), so that tests can run kernels in both.
fn thread_order() -> ThreadOrder {
    match std::env::var("PTXR_CPU_THREAD_ORDER") {
        Ok(value) if value == "thread-major" => ThreadOrder::ThreadMajor,
        _ => ThreadOrder::IterationMajor,
    }
}

pub(crate) fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("an LLVM builder operation ({error})") }
}

/// The LLVM layout of `ptxr_runtime::abi::BlockContext`.
fn block_context_type(context: &Context) -> StructType<'_> {
    let dimensions = context.i32_type().array_type(3);
    context.struct_type(
        &[
            dimensions.into(),
            dimensions.into(),
            dimensions.into(),
            context.i32_type().into(),
            context.ptr_type(AddressSpace::default()).into(),
            context.i32_type().into(),
            context.ptr_type(AddressSpace::default()).into(),
            context.ptr_type(AddressSpace::default()).into(),
            context.i64_type().into(),
            context.i64_type().into(),
            context.i32_type().into(),
            context.i32_type().into(),
            context.i64_type().into(),
        ],
        false,
    )
}

/// Loads `field[dimension]` of the block context.
pub(crate) fn context_dimension<'ctx>(
    site: &Site<'_, 'ctx>,
    context_pointer: PointerValue<'ctx>,
    field: u32,
    dimension: Dimension,
) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let indices = [
        i32_type.const_zero(),
        i32_type.const_int(u64::from(field), false),
        i32_type.const_int(u64::from(dimension.index()), false),
    ];
    // SAFETY: the indices stay inside BlockContext's [3 x i32] fields.
    let address =
        unsafe { site.builder.build_in_bounds_gep(block_context_type(site.context), context_pointer, &indices, "") }
            .map_err(llvm_error)?;
    let name = match field {
        block_context_field::CTAID => "ctaid",
        block_context_field::NCTAID => "nctaid",
        _ => "ntid",
    };
    Ok(site.builder.build_load(i32_type, address, &format!("{name}.{dimension}")).map_err(llvm_error)?.into_int_value())
}

/// `isspacep.global` on the host, where global memory is what the launch allocated (its buffers
/// and the device heap, which the runtime knows) and the module's own `.global` variables (the
/// non-constant LLVM globals: `.const` variables are constant, and `.shared` ones live in the
/// block's window, not in globals). Anything else (a thread's `.local` variables, the shared
/// window, `.const` data, kernel parameters, any other host address) is not global.
fn is_global_address<'ctx>(site: &Site<'_, 'ctx>, address: PointerValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i64_type = site.context.i64_type();
    let address_bits = builder.build_ptr_to_int(address, i64_type, "").map_err(llvm_error)?;
    let mut in_variable = site.context.bool_type().const_zero();
    for global in site.module.get_globals() {
        let name = global.get_name().to_string_lossy();
        if global.is_constant() || name.starts_with("llvm.") || name.starts_with("ptxr") {
            continue;
        }
        let bytes = global
            .get_value_type()
            .size_of()
            .ok_or_else(|| Unsupported { what: format!("`isspacep.global` beside the unsized variable `{name}`") })?;
        let start = builder.build_ptr_to_int(global.as_pointer_value(), i64_type, "").map_err(llvm_error)?;
        let offset = builder.build_int_sub(address_bits, start, "").map_err(llvm_error)?;
        let inside = builder.build_int_compare(inkwell::IntPredicate::ULT, offset, bytes, "").map_err(llvm_error)?;
        in_variable = builder.build_or(in_variable, inside, "").map_err(llvm_error)?;
    }
    let function_type = site.context.i32_type().fn_type(&[i64_type.into()], false);
    let in_launch = call_function(site, runtime_function::IS_GLOBAL_ADDRESS, function_type, &[address_bits.into()])?
        .ok_or_else(|| Unsupported { what: format!("{} returned nothing", runtime_function::IS_GLOBAL_ADDRESS) })?
        .into_int_value();
    let in_launch = builder
        .build_int_compare(inkwell::IntPredicate::NE, in_launch, site.context.i32_type().const_zero(), "")
        .map_err(llvm_error)?;
    builder.build_or(in_variable, in_launch, "").map_err(llvm_error)
}

/// Loads field `index` of the block context, as `ty`, in the current function.
fn context_field<'ctx>(
    site: &Site<'_, 'ctx>,
    index: u32,
    ty: inkwell::types::BasicTypeEnum<'ctx>,
) -> Result<inkwell::values::BasicValueEnum<'ctx>, Unsupported> {
    let context_pointer = context_parameter(site, site.function)?;
    let i32_type = site.context.i32_type();
    let indices = [i32_type.const_zero(), i32_type.const_int(u64::from(index), false)];
    // SAFETY: the indices name one of BlockContext's scalar fields.
    let pointer =
        unsafe { site.builder.build_in_bounds_gep(block_context_type(site.context), context_pointer, &indices, "") }
            .map_err(llvm_error)?;
    site.builder.build_load(ty, pointer, "").map_err(llvm_error)
}

/// Whether `address` lies in `[start, start + bytes)`, on 64-bit integers.
fn in_window<'ctx>(
    site: &Site<'_, 'ctx>,
    address: PointerValue<'ctx>,
    start: PointerValue<'ctx>,
    bytes: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i64_type = site.context.i64_type();
    let start = builder.build_ptr_to_int(start, i64_type, "").map_err(llvm_error)?;
    let address = builder.build_ptr_to_int(address, i64_type, "").map_err(llvm_error)?;
    let offset = builder.build_int_sub(address, start, "").map_err(llvm_error)?;
    builder.build_int_compare(inkwell::IntPredicate::ULT, offset, bytes, "").map_err(llvm_error)
}

/// `isspacep.shared` on the host: the block's window, `[base, base + static + dynamic bytes)`.
fn is_shared_address<'ctx>(site: &Site<'_, 'ctx>, address: PointerValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let i64_type = site.context.i64_type();
    let pointer_type = site.context.ptr_type(AddressSpace::default());
    let base = context_field(site, block_context_field::SHARED, pointer_type.into())?.into_pointer_value();
    let mut size = i64_type.const_zero();
    for index in [block_context_field::STATIC_SHARED_BYTES, block_context_field::DYNAMIC_SHARED_BYTES] {
        let bytes = context_field(site, index, site.context.i32_type().into())?.into_int_value();
        let bytes = builder.build_int_z_extend(bytes, i64_type, "").map_err(llvm_error)?;
        size = builder.build_int_add(size, bytes, "").map_err(llvm_error)?;
    }
    in_window(site, address, base, size)
}

/// `isspacep.param` on the host: the launch's `.param` window, which holds every kernel
/// parameter's bytes and is where a kernel parameter's address points
/// (`Cpu::kernel_parameter_address`), so that any function of any thread can recognise it.
fn is_parameter_address<'ctx>(
    site: &Site<'_, 'ctx>,
    address: PointerValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let pointer_type = site.context.ptr_type(AddressSpace::default());
    let window = context_field(site, block_context_field::PARAMETER_WINDOW, pointer_type.into())?;
    let bytes = context_field(site, block_context_field::PARAMETER_WINDOW_BYTES, site.context.i64_type().into())?;
    in_window(site, address, window.into_pointer_value(), bytes.into_int_value())
}

fn context_parameter<'ctx>(
    site: &Site<'_, 'ctx>,
    function: inkwell::values::FunctionValue<'ctx>,
) -> Result<PointerValue<'ctx>, Unsupported> {
    function.get_nth_param(CONTEXT_PARAMETER).map(|parameter| parameter.into_pointer_value()).ok_or_else(|| {
        Unsupported {
            what: format!("{} without its hidden context parameter", site.function.get_name().to_string_lossy()),
        }
    })
}

/// The thread's linear index in its block: `tid.x + ntid.x * (tid.y + ntid.y * tid.z)`.
fn linear_thread_index<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let context_pointer = context_parameter(site, site.function)?;
    let thread = |dimension: Dimension| -> Result<IntValue<'ctx>, Unsupported> {
        site.function
            .get_nth_param(THREAD_ID_PARAMETER + dimension.index())
            .map(|parameter| parameter.into_int_value())
            .ok_or_else(|| Unsupported { what: "a thread index parameter".to_string() })
    };
    let size_x = context_dimension(site, context_pointer, block_context_field::NTID, Dimension::X)?;
    let size_y = context_dimension(site, context_pointer, block_context_field::NTID, Dimension::Y)?;
    let builder = site.builder;
    let inner = builder.build_int_mul(size_y, thread(Dimension::Z)?, "").map_err(llvm_error)?;
    let inner = builder.build_int_add(thread(Dimension::Y)?, inner, "").map_err(llvm_error)?;
    let inner = builder.build_int_mul(size_x, inner, "").map_err(llvm_error)?;
    builder.build_int_add(thread(Dimension::X)?, inner, "thread.linear").map_err(llvm_error)
}

/// Loads the kernel's parameters: parameter i is at *params[i], as in CUDA's kernelParams.
pub(crate) fn load_kernel_parameters<'ctx>(
    site: &Site<'_, 'ctx>,
    parameter_array: PointerValue<'ctx>,
    parameters: &KernelParameters<'ctx>,
) -> Result<Vec<BasicMetadataValueEnum<'ctx>>, Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let pointer_type = context.ptr_type(AddressSpace::default());
    let mut values: Vec<BasicMetadataValueEnum<'ctx>> = Vec::new();
    for (index, parameter_type) in parameters.types.iter().enumerate() {
        let index_value = context.i64_type().const_int(index as u64, false);
        // SAFETY: the runtime passes one pointer per kernel parameter.
        let slot = unsafe { builder.build_in_bounds_gep(pointer_type, parameter_array, &[index_value], "") }
            .map_err(llvm_error)?;
        let pointer = builder.build_load(pointer_type, slot, "").map_err(llvm_error)?.into_pointer_value();
        let value = builder.build_load(*parameter_type, pointer, &format!("param{index}")).map_err(llvm_error)?;
        values.push(value.into());
    }
    Ok(values)
}

/// Adds `noalias` to the given parameters of `function`.
fn mark_noalias<'ctx>(context: &'ctx Context, function: FunctionValue<'ctx>, parameters: &[u32]) {
    let noalias = inkwell::attributes::Attribute::get_named_enum_kind_id("noalias");
    for &index in parameters {
        function.add_attribute(AttributeLoc::Param(index), context.create_enum_attribute(noalias, 0));
    }
}

/// Tells LLVM that parameter `index` of `function` points at a whole `BlockContext`, so that
/// loads of its fields may be hoisted out of conditional code in the thread loop.
fn mark_block_context<'ctx>(context: &'ctx Context, function: FunctionValue<'ctx>, index: u32) {
    let bytes = std::mem::size_of::<ptxr_runtime::abi::BlockContext>() as u64;
    let dereferenceable = inkwell::attributes::Attribute::get_named_enum_kind_id("dereferenceable");
    function.add_attribute(AttributeLoc::Param(index), context.create_enum_attribute(dereferenceable, bytes));
}

/// A kernel whose threads meet at barriers or warp collectives: `NAME.thread_entry(params,
/// context, x, y, z)` runs one thread, and the block entry `NAME(params, context)` hands it to
/// the runtime, which runs the block's threads as coroutines (`ptxr_runtime::cooperative`):
/// LLVM coroutines resumed through `resume` when the body was made resumable, stackful ones
/// otherwise.
fn cooperative_entries<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    parameters: &KernelParameters<'ctx>,
    resume: Option<FunctionValue<'ctx>>,
) -> Result<(), Unsupported> {
    let context = site.context;
    let builder = site.builder;
    let pointer_type = context.ptr_type(AddressSpace::default());
    let i32_type = context.i32_type();
    let thread_type = context
        .void_type()
        .fn_type(&[pointer_type.into(), pointer_type.into(), i32_type.into(), i32_type.into(), i32_type.into()], false);
    let thread = site.module.add_function(&format!("{name}.thread_entry"), thread_type, Some(Linkage::Internal));
    builder.position_at_end(context.append_basic_block(thread, "entry"));
    let thread_site = Site { context, module: site.module, builder, function: thread, launch_arguments: None };
    let parameter = |index: u32| thread.get_nth_param(index).ok_or_else(|| llvm_error("thread entry"));
    let values = load_kernel_parameters(&thread_site, parameter(0)?.into_pointer_value(), parameters)?;
    let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> =
        vec![parameter(1)?.into(), parameter(2)?.into(), parameter(3)?.into(), parameter(4)?.into()];
    arguments.extend(values);
    builder.build_call(site.function, &arguments, "").map_err(llvm_error)?;
    builder.build_return(None).map_err(llvm_error)?;

    let entry_type = context.void_type().fn_type(&[pointer_type.into(), pointer_type.into()], false);
    let entry = site.module.add_function(name, entry_type, Some(Linkage::External));
    builder.position_at_end(context.append_basic_block(entry, "entry"));
    let entry_site = Site { context, module: site.module, builder, function: entry, launch_arguments: None };
    let entry_parameter = |index: u32| entry.get_nth_param(index).ok_or_else(|| llvm_error("entry"));
    let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = vec![
        entry_parameter(0)?.into(),
        entry_parameter(1)?.into(),
        thread.as_global_value().as_pointer_value().into(),
    ];
    let runner = match resume {
        Some(resume) => {
            arguments.push(resume.as_global_value().as_pointer_value().into());
            runtime_function::RUN_RESUMABLE_BLOCK
        }
        None => runtime_function::RUN_COOPERATIVE_BLOCK,
    };
    let argument_types = vec![pointer_type.into(); arguments.len()];
    let run_type = context.void_type().fn_type(&argument_types, false);
    call_function(&entry_site, runner, run_type, &arguments)?;
    builder.build_return(None).map_err(llvm_error)?;
    Ok(())
}

impl Target for Cpu {
    /// Texture descriptors in global memory, read by lowering's generated code.
    fn textures(&self) -> TextureLowering {
        TextureLowering::Software
    }

    fn functions_are_convergent(&self) -> bool {
        false
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Cpu
    }

    fn address_space(&self, _state_space: StateSpace) -> AddressSpace {
        // One flat address space: every PTX address is a host address.
        AddressSpace::default()
    }

    fn configure_module<'ctx>(&self, _context: &'ctx Context, _module: &Module<'ctx>, _processor: &str) {}

    fn hidden_parameter_types<'ctx>(&self, context: &'ctx Context) -> Vec<BasicMetadataTypeEnum<'ctx>> {
        let i32_type = context.i32_type();
        vec![context.ptr_type(AddressSpace::default()).into(), i32_type.into(), i32_type.into(), i32_type.into()]
    }

    fn finish_kernel<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        parameters: &KernelParameters<'ctx>,
    ) -> Result<(), Unsupported> {
        let context = site.context;
        let body = site.function;
        let name = body.get_name().to_string_lossy().into_owned();
        body.as_global_value().set_name(&format!("{name}.thread"));
        body.set_linkage(Linkage::Internal);
        body.add_attribute(
            AttributeLoc::Function,
            context.create_enum_attribute(inkwell::attributes::Attribute::get_named_enum_kind_id("alwaysinline"), 0),
        );

        let pointer_type = context.ptr_type(AddressSpace::default());
        if parameters.cooperative && !parameters.collectives_in_functions && waits_scheme() == WaitsScheme::Loops {
            match work_item_loops::build(site, &name, parameters)? {
                WorkItemForm::Loops => return Ok(()),
                WorkItemForm::Unsuitable | WorkItemForm::Independent => {}
            }
        }
        if parameters.cooperative {
            let form = if parameters.collectives_in_functions {
                ThreadForm::Stackful
            } else {
                make_resumable(context, site.module, body)?
            };
            match form {
                ThreadForm::Resumable => {
                    let resume = resume_helper(context, site.module)?;
                    return cooperative_entries(site, &name, parameters, Some(resume));
                }
                ThreadForm::Stackful => return cooperative_entries(site, &name, parameters, None),
                // Nothing in this kernel waits: its threads run one after another.
                ThreadForm::Independent => {}
            }
        }
        // Threads that never wait: loops in the body run a round of iterations at a time.
        if !parameters.collectives_in_functions
            && thread_order() == ThreadOrder::IterationMajor
            && work_item_loops::build_iteration_major(site, &name, parameters)? == WorkItemForm::Loops
        {
            return Ok(());
        }
        let entry_type = context.void_type().fn_type(&[pointer_type.into(), pointer_type.into()], false);
        let entry = site.module.add_function(&name, entry_type, Some(Linkage::External));
        // The context and the parameter array belong to the runtime: kernel stores never reach
        // them, so their loads may leave the thread loop (and the loop may be vectorised).
        mark_noalias(context, entry, &[0, 1]);
        mark_noalias(context, body, &[0]);
        mark_block_context(context, entry, 1);
        mark_block_context(context, body, 0);
        let builder = site.builder;
        let start = context.append_basic_block(entry, "entry");
        builder.position_at_end(start);
        let entry_site = Site { context, module: site.module, builder, function: entry, launch_arguments: None };
        let parameter_array =
            entry.get_nth_param(0).map(|value| value.into_pointer_value()).ok_or_else(|| llvm_error("entry"))?;
        let context_pointer =
            entry.get_nth_param(1).map(|value| value.into_pointer_value()).ok_or_else(|| llvm_error("entry"))?;
        parameter_array.set_name("params");
        context_pointer.set_name("context");

        let values = load_kernel_parameters(&entry_site, parameter_array, parameters)?;
        let sizes = [Dimension::X, Dimension::Y, Dimension::Z]
            .map(|dimension| context_dimension(&entry_site, context_pointer, block_context_field::NTID, dimension));
        let [size_x, size_y, size_z] = sizes;
        let (size_x, size_y, size_z) = (size_x?, size_y?, size_z?);

        // for z in 0..ntid.z { for y in 0..ntid.y { for x in 0..ntid.x { NAME.thread(...) } } }
        let i32_type = context.i32_type();
        let loop_z = context.append_basic_block(entry, "thread.z");
        let loop_y = context.append_basic_block(entry, "thread.y");
        let loop_x = context.append_basic_block(entry, "thread.x");
        let next_y = context.append_basic_block(entry, "thread.y.next");
        let next_z = context.append_basic_block(entry, "thread.z.next");
        let done = context.append_basic_block(entry, "done");
        builder.build_unconditional_branch(loop_z).map_err(llvm_error)?;

        builder.position_at_end(loop_z);
        let z = builder.build_phi(i32_type, "tid.z").map_err(llvm_error)?;
        builder.build_unconditional_branch(loop_y).map_err(llvm_error)?;

        builder.position_at_end(loop_y);
        let y = builder.build_phi(i32_type, "tid.y").map_err(llvm_error)?;
        builder.build_unconditional_branch(loop_x).map_err(llvm_error)?;

        builder.position_at_end(loop_x);
        let x = builder.build_phi(i32_type, "tid.x").map_err(llvm_error)?;
        let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = vec![
            context_pointer.into(),
            x.as_basic_value().into(),
            y.as_basic_value().into(),
            z.as_basic_value().into(),
        ];
        arguments.extend(values);
        builder.build_call(body, &arguments, "").map_err(llvm_error)?;
        let one = i32_type.const_int(1, false);
        let x_next = builder.build_int_add(x.as_basic_value().into_int_value(), one, "").map_err(llvm_error)?;
        let x_more = builder.build_int_compare(IntPredicate::ULT, x_next, size_x, "").map_err(llvm_error)?;
        builder.build_conditional_branch(x_more, loop_x, next_y).map_err(llvm_error)?;

        builder.position_at_end(next_y);
        let y_next = builder.build_int_add(y.as_basic_value().into_int_value(), one, "").map_err(llvm_error)?;
        let y_more = builder.build_int_compare(IntPredicate::ULT, y_next, size_y, "").map_err(llvm_error)?;
        builder.build_conditional_branch(y_more, loop_y, next_z).map_err(llvm_error)?;

        builder.position_at_end(next_z);
        let z_next = builder.build_int_add(z.as_basic_value().into_int_value(), one, "").map_err(llvm_error)?;
        let z_more = builder.build_int_compare(IntPredicate::ULT, z_next, size_z, "").map_err(llvm_error)?;
        builder.build_conditional_branch(z_more, loop_z, done).map_err(llvm_error)?;

        builder.position_at_end(done);
        builder.build_return(None).map_err(llvm_error)?;

        let zero = i32_type.const_zero();
        z.add_incoming(&[(&zero, start), (&z_next, next_z)]);
        y.add_incoming(&[(&zero, loop_z), (&y_next, next_y)]);
        x.add_incoming(&[(&zero, loop_y), (&x_next, loop_x)]);
        Ok(())
    }

    fn before_optimization(
        &self,
        module: &Module<'_>,
        machine: &inkwell::targets::TargetMachine,
        optimization: u8,
    ) -> Result<(), String> {
        crate::cpu_addresses::rewrite_integer_addresses(module, machine, optimization)
    }

    fn kernel_parameter_addresses(&self) -> Option<StateSpace> {
        Some(StateSpace::Generic)
    }

    fn kernel_parameter_address<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        position: u32,
    ) -> Result<PointerValue<'ctx>, Unsupported> {
        // The runtime's copy, `params[position]`, in the launch's `.param` window: one for the
        // whole grid (ISA 7.8 section 5.1.6.1), not the thread's own copy of the value.
        let pointer_type = site.context.ptr_type(AddressSpace::default());
        let array = context_field(site, block_context_field::PARAMETERS, pointer_type.into())?.into_pointer_value();
        let index = site.context.i64_type().const_int(u64::from(position), false);
        // SAFETY: the runtime passes one pointer per kernel parameter.
        let slot =
            unsafe { site.builder.build_in_bounds_gep(pointer_type, array, &[index], "") }.map_err(llvm_error)?;
        let name = format!("param{position}.address");
        Ok(site.builder.build_load(pointer_type, slot, &name).map_err(llvm_error)?.into_pointer_value())
    }

    fn is_in_state_space<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        address: PointerValue<'ctx>,
        state_space: StateSpace,
        placed: &crate::PlacedMemory<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        match state_space {
            StateSpace::Global => {
                // The `.param` window lies inside the `.global` one (ISA 7.8 section 6.4.1.1),
                // so a kernel parameter's address is global too.
                let global = is_global_address(site, address)?;
                let parameter = is_parameter_address(site, address)?;
                site.builder.build_or(global, parameter, "").map_err(llvm_error)
            }
            // `.const` data is the module's `.const` variables, wherever the JIT put them.
            StateSpace::Const => crate::address_ranges::in_any(site, address, &placed.constants),
            StateSpace::Shared => is_shared_address(site, address),
            StateSpace::Param => is_parameter_address(site, address),
            StateSpace::Local => {
                // A generic address is global unless it falls in the `.const`, `.local` or
                // `.shared` window, and the `.param` window lies inside the `.global` one (ISA
                // 7.8 section 6.4.1.1). Of the addresses a program can come by, the thread's own
                // memory (its `.local` variables, a `.func`'s parameters, work-item-loop state,
                // coroutine frames and stacks) is what is in none of the others.
                let mut elsewhere = is_global_address(site, address)?;
                for inside in [
                    crate::address_ranges::in_any(site, address, &placed.constants)?,
                    is_shared_address(site, address)?,
                    is_parameter_address(site, address)?,
                ] {
                    elsewhere = site.builder.build_or(elsewhere, inside, "").map_err(llvm_error)?;
                }
                site.builder.build_not(elsewhere, "is.local").map_err(llvm_error)
            }
            other => Err(Unsupported { what: format!("`isspacep{other}`") }),
        }
    }

    fn variables_below_4gib_for_32_bit_addresses(&self) -> bool {
        // `ptxr run` gives the JIT a section allocator below 4 GiB for such modules
        // (`ptxr_runtime::low_memory`); an object file relies on its linker, which reports a
        // 32-bit relocation that does not fit.
        true
    }

    fn sync_scope(&self, _scope: MemoryScope) -> &'static str {
        // Blocks run in parallel on the host's cores: every scope needs host-wide atomicity.
        ""
    }

    fn mbarrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        operation: &crate::mbarrier::Mbarrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        crate::cpu_mbarrier::lower(site, operation)
    }

    fn atomic_by_compare_and_swap(
        &self,
        operation: crate::atomics::ReadModifyWrite,
        ty: ptxr_frontend::vocabulary::ScalarType,
    ) -> bool {
        use ptxr_frontend::vocabulary::ScalarType;
        // x86's `atomicrmw fadd bfloat` calls the compiler runtime's `__truncsfbf2`, which MCJIT
        // does not resolve (the kernel called address 0); the word-wide loop needs no runtime.
        operation == crate::atomics::ReadModifyWrite::FloatAdd && matches!(ty, ScalarType::Bf16 | ScalarType::Bf16x2)
    }

    fn barrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        barrier: &Barrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        let i32_type = site.context.i32_type();
        let operation = match barrier.operation {
            BarrierOperation::Sync => barrier_operation::SYNC,
            BarrierOperation::Arrive => barrier_operation::ARRIVE,
            BarrierOperation::ReducePopulationCount => barrier_operation::REDUCE_POPULATION_COUNT,
            BarrierOperation::ReduceAnd => barrier_operation::REDUCE_AND,
            BarrierOperation::ReduceOr => barrier_operation::REDUCE_OR,
        };
        let predicate = match barrier.predicate {
            Some(predicate) => site.builder.build_int_z_extend(predicate, i32_type, "").map_err(llvm_error)?,
            None => i32_type.const_zero(),
        };
        let arguments = [
            i32_type.const_int(u64::from(operation), false).into(),
            barrier.barrier.into(),
            barrier.thread_count.unwrap_or(i32_type.const_zero()).into(),
            predicate.into(),
        ];
        let function_type = i32_type.fn_type(&[i32_type.into(); 4], false);
        let result = call_function(site, runtime_function::BARRIER, function_type, &arguments)?
            .ok_or_else(|| llvm_error("barrier result"))?
            .into_int_value();
        Ok(match barrier.operation {
            BarrierOperation::Sync | BarrierOperation::Arrive => None,
            BarrierOperation::ReducePopulationCount => Some(result),
            BarrierOperation::ReduceAnd | BarrierOperation::ReduceOr => Some(
                site.builder
                    .build_int_compare(IntPredicate::NE, result, i32_type.const_zero(), "")
                    .map_err(llvm_error)?,
            ),
        })
    }

    fn approximate_function<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _function: ptxr_frontend::ir::FloatUnaryOperation,
        _flush_subnormals: bool,
        _value: inkwell::values::FloatValue<'ctx>,
    ) -> Result<Option<inkwell::values::FloatValue<'ctx>>, Unsupported> {
        // LLVM's generic intrinsics lower to the target's (or the host's) math functions.
        Ok(None)
    }

    fn device_function<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        call: &crate::DeviceFunctionCall<'ctx>,
    ) -> Result<crate::DeviceFunctionLowering<'ctx>, Unsupported> {
        crate::cpu_device_library::call(site, call)
    }

    fn trap<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        let function_type = site.context.void_type().fn_type(&[], false);
        call_function(site, runtime_function::TRAP, function_type, &[])?;
        Ok(())
    }

    fn stop_for<'ctx>(&self, site: &Site<'_, 'ctx>, reason: crate::StopReason) -> Result<(), Unsupported> {
        if reason == crate::StopReason::StackOverflow {
            let function_type = site.context.void_type().fn_type(&[], false);
            call_function(site, runtime_function::STACK_OVERFLOW, function_type, &[])?;
            return Ok(());
        }
        self.trap(site)
    }

    fn stack_bound(&self) -> crate::StackBound {
        crate::StackBound::Floor
    }

    fn stack_floor<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        let function_type = site.context.i64_type().fn_type(&[], false);
        Ok(call_function(site, runtime_function::STACK_FLOOR, function_type, &[])?
            .ok_or_else(|| llvm_error("the stack floor"))?
            .into_int_value())
    }

    fn stopped<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        crate::cpu_device_library::stopped(site).map(Some)
    }

    fn exit_thread<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        let function_type = site.context.void_type().fn_type(&[], false);
        call_function(site, runtime_function::EXIT_THREAD, function_type, &[])?;
        Ok(())
    }

    fn thread_exited<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        let i32_type = site.context.i32_type();
        let flag = call_function(site, runtime_function::THREAD_EXITED, i32_type.fn_type(&[], false), &[])?
            .ok_or_else(|| llvm_error("the exit mark"))?
            .into_int_value();
        site.builder
            .build_int_compare(IntPredicate::NE, flag, i32_type.const_zero(), "exited")
            .map_err(llvm_error)
            .map(Some)
    }

    fn sleep<'ctx>(&self, site: &Site<'_, 'ctx>, nanoseconds: IntValue<'ctx>) -> Result<(), Unsupported> {
        let i32_type = site.context.i32_type();
        let function_type = site.context.void_type().fn_type(&[i32_type.into()], false);
        call_function(site, runtime_function::SLEEP, function_type, &[nanoseconds.into()])?;
        Ok(())
    }

    fn warp_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &WarpCollective<'ctx>,
    ) -> Result<CollectiveResult<'ctx>, Unsupported> {
        let builder = site.builder;
        let i32_type = site.context.i32_type();
        let i64_type = site.context.i64_type();
        let zero = i32_type.const_zero();
        let widen =
            |value: IntValue<'ctx>| builder.build_int_z_extend_or_bit_cast(value, i64_type, "").map_err(llvm_error);
        let (kind, member_mask, a, b, c) = match collective {
            WarpCollective::Shuffle { mode, value, lane, clamp, member_mask } => {
                let kind = match mode {
                    ShuffleMode::Up => warp_collective::SHUFFLE_UP,
                    ShuffleMode::Down => warp_collective::SHUFFLE_DOWN,
                    ShuffleMode::Butterfly => warp_collective::SHUFFLE_BUTTERFLY,
                    ShuffleMode::Index => warp_collective::SHUFFLE_INDEX,
                };
                // 0 asks the runtime for the lanes that arrive together (the forms without `.sync`).
                (kind, member_mask.unwrap_or(zero), widen(*value)?, *lane, *clamp)
            }
            WarpCollective::Vote { mode, predicate, member_mask } => {
                let kind = match mode {
                    VoteMode::All => warp_collective::VOTE_ALL,
                    VoteMode::Any => warp_collective::VOTE_ANY,
                    VoteMode::Uniform => warp_collective::VOTE_UNIFORM,
                    VoteMode::Ballot => warp_collective::VOTE_BALLOT,
                };
                (kind, member_mask.unwrap_or(zero), widen(*predicate)?, zero, zero)
            }
            WarpCollective::Match { all, value, member_mask } => {
                let kind = if *all { warp_collective::MATCH_ALL } else { warp_collective::MATCH_ANY };
                (kind, *member_mask, widen(*value)?, zero, zero)
            }
            WarpCollective::Redux { operation, signed, value, member_mask } => {
                let kind = match (operation, signed) {
                    (ReduxOperation::Add, _) => warp_collective::REDUX_ADD,
                    (ReduxOperation::Minimum, true) => warp_collective::REDUX_SIGNED_MINIMUM,
                    (ReduxOperation::Minimum, false) => warp_collective::REDUX_UNSIGNED_MINIMUM,
                    (ReduxOperation::Maximum, true) => warp_collective::REDUX_SIGNED_MAXIMUM,
                    (ReduxOperation::Maximum, false) => warp_collective::REDUX_UNSIGNED_MAXIMUM,
                    (ReduxOperation::And, _) => warp_collective::REDUX_AND,
                    (ReduxOperation::Or, _) => warp_collective::REDUX_OR,
                    (ReduxOperation::Xor, _) => warp_collective::REDUX_XOR,
                };
                (kind, *member_mask, widen(*value)?, zero, zero)
            }
            WarpCollective::ActiveMask => (warp_collective::ACTIVE_MASK, zero, i64_type.const_zero(), zero, zero),
            WarpCollective::Sync { member_mask } => {
                (warp_collective::SYNC, *member_mask, i64_type.const_zero(), zero, zero)
            }
        };
        let function_type = i64_type
            .fn_type(&[i32_type.into(), i32_type.into(), i64_type.into(), i32_type.into(), i32_type.into()], false);
        let arguments =
            [i32_type.const_int(u64::from(kind), false).into(), member_mask.into(), a.into(), b.into(), c.into()];
        let packed = call_function(site, runtime_function::WARP_COLLECTIVE, function_type, &arguments)?
            .ok_or_else(|| llvm_error("collective result"))?
            .into_int_value();
        let value = builder.build_int_truncate(packed, i32_type, "").map_err(llvm_error)?;
        let shifted =
            builder.build_right_shift(packed, i64_type.const_int(32, false), false, "").map_err(llvm_error)?;
        let predicate = builder.build_int_truncate(shifted, site.context.bool_type(), "").map_err(llvm_error)?;
        Ok(match collective {
            WarpCollective::Shuffle { .. } | WarpCollective::Match { all: true, .. } => {
                CollectiveResult { value: Some(value), predicate: Some(predicate) }
            }
            WarpCollective::Vote { mode: VoteMode::All | VoteMode::Any | VoteMode::Uniform, .. } => {
                let truth = builder.build_int_compare(IntPredicate::NE, value, zero, "").map_err(llvm_error)?;
                CollectiveResult { value: Some(truth), predicate: None }
            }
            WarpCollective::Sync { .. } => CollectiveResult { value: None, predicate: None },
            _ => CollectiveResult { value: Some(value), predicate: None },
        })
    }

    fn matrix_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &MatrixCollective<'ctx>,
    ) -> Result<(), Unsupported> {
        let i32_type = site.context.i32_type();
        let i64_type = site.context.i64_type();
        let (kind, operation, fragments) = match collective {
            MatrixCollective::MultiplyAccumulate { operation, fragments } => {
                (warp_collective::MATRIX_MULTIPLY_ACCUMULATE, matrix_operation_code(operation)?, *fragments)
            }
            MatrixCollective::SparseMultiplyAccumulate { .. } => {
                // Lowering rebuilds the dense A by shuffles here (`native_sparse_matrix`).
                return Err(Unsupported { what: "`mma.sp` in the CPU's runtime".to_string() });
            }
            MatrixCollective::Load { matrices, transpose, row, fragments } => {
                // The runtime reads the row through its host address, kept in the buffer's first
                // two words (`matrix_fragments::ROW_ADDRESS`).
                let row_address = site.builder.build_ptr_to_int(*row, i64_type, "row_address").map_err(llvm_error)?;
                site.builder.build_store(*fragments, row_address).map_err(llvm_error)?;
                let transpose = if *transpose { matrix_operation::TRANSPOSE } else { 0 };
                (warp_collective::LOAD_MATRIX, matrices | transpose, *fragments)
            }
        };
        let address = site.builder.build_ptr_to_int(fragments, i64_type, "fragments").map_err(llvm_error)?;
        let function_type = i64_type
            .fn_type(&[i32_type.into(), i32_type.into(), i64_type.into(), i32_type.into(), i32_type.into()], false);
        // `.sync.aligned`: every lane of the warp takes part.
        let arguments = [
            i32_type.const_int(u64::from(kind), false).into(),
            i32_type.const_all_ones().into(),
            address.into(),
            i32_type.const_int(u64::from(operation), false).into(),
            i32_type.const_zero().into(),
        ];
        call_function(site, runtime_function::WARP_COLLECTIVE, function_type, &arguments)?;
        Ok(())
    }

    fn shared_variables_in_window(&self) -> bool {
        true
    }

    fn shared_window_base<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<PointerValue<'ctx>, Unsupported> {
        let context_pointer = context_parameter(site, site.function)?;
        let i32_type = site.context.i32_type();
        let indices = [i32_type.const_zero(), i32_type.const_int(u64::from(block_context_field::SHARED), false)];
        // SAFETY: the indices name BlockContext's shared-memory pointer field.
        let address = unsafe {
            site.builder.build_in_bounds_gep(block_context_type(site.context), context_pointer, &indices, "")
        }
        .map_err(llvm_error)?;
        let pointer_type = site.context.ptr_type(AddressSpace::default());
        Ok(site.builder.build_load(pointer_type, address, "shared.window").map_err(llvm_error)?.into_pointer_value())
    }

    fn cluster_address<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        query: crate::ClusterQuery<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        // ptxr launches no clusters here: each CTA is a cluster of one.
        crate::cluster_of_one::answer(site, query)
    }

    fn special_register<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        register: SpecialRegister,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let context_pointer = || context_parameter(site, site.function);
        match register {
            SpecialRegister::LaneMask(relation) => {
                let lane = self.special_register(site, SpecialRegister::LaneId).map_err(|unsupported| Unsupported {
                    what: format!("special register {register}, which needs %laneid ({})", unsupported.what),
                })?;
                crate::lane_mask::from_lane(site, relation, lane)
            }
            SpecialRegister::ThreadId(dimension) => site
                .function
                .get_nth_param(THREAD_ID_PARAMETER + dimension.index())
                .map(|parameter| parameter.into_int_value())
                .ok_or_else(|| Unsupported { what: "a thread index parameter".to_string() }),
            SpecialRegister::ThreadCount(dimension) => {
                context_dimension(site, context_pointer()?, block_context_field::NTID, dimension)
            }
            SpecialRegister::CtaId(dimension) => {
                context_dimension(site, context_pointer()?, block_context_field::CTAID, dimension)
            }
            SpecialRegister::CtaCount(dimension) => {
                context_dimension(site, context_pointer()?, block_context_field::NCTAID, dimension)
            }
            SpecialRegister::LaneId => {
                let linear = linear_thread_index(site)?;
                let mask = site.context.i32_type().const_int(WARP_SIZE - 1, false);
                site.builder.build_and(linear, mask, "laneid").map_err(llvm_error)
            }
            SpecialRegister::WarpId => {
                let linear = linear_thread_index(site)?;
                let shift = site.context.i32_type().const_int(WARP_SIZE.trailing_zeros().into(), false);
                site.builder.build_right_shift(linear, shift, false, "warpid").map_err(llvm_error)
            }
            SpecialRegister::WarpCount => {
                let pointer = context_pointer()?;
                let mut total = context_dimension(site, pointer, block_context_field::NTID, Dimension::X)?;
                for dimension in [Dimension::Y, Dimension::Z] {
                    let size = context_dimension(site, pointer, block_context_field::NTID, dimension)?;
                    total = site.builder.build_int_mul(total, size, "").map_err(llvm_error)?;
                }
                let rounded = site
                    .builder
                    .build_int_add(total, site.context.i32_type().const_int(WARP_SIZE - 1, false), "")
                    .map_err(llvm_error)?;
                let shift = site.context.i32_type().const_int(WARP_SIZE.trailing_zeros().into(), false);
                site.builder.build_right_shift(rounded, shift, false, "nwarpid").map_err(llvm_error)
            }
            SpecialRegister::Clock64 => Ok(call_intrinsic(site, "llvm.readcyclecounter", &[], &[])?.into_int_value()),
            SpecialRegister::GlobalTimer => {
                let timer_type = site.context.i64_type().fn_type(&[], false);
                call_function(site, runtime_function::GLOBAL_TIMER, timer_type, &[])?
                    .map(|value| value.into_int_value())
                    .ok_or_else(|| llvm_error("the global timer's value"))
            }
            SpecialRegister::GlobalTimerLow | SpecialRegister::GlobalTimerHigh => {
                crate::global_timer::half(site, register, self.special_register(site, SpecialRegister::GlobalTimer)?)
            }
            SpecialRegister::ClockHigh => {
                crate::global_timer::half(site, register, self.special_register(site, SpecialRegister::Clock64)?)
            }
            SpecialRegister::Clock => {
                let cycles = call_intrinsic(site, "llvm.readcyclecounter", &[], &[])?.into_int_value();
                to_i32(site, cycles)
            }
            // The runtime's worker threads play the multiprocessors (`BlockContext::sm_id`): a
            // block runs on one worker from start to end, and `%smid` < `%nsmid`.
            SpecialRegister::SmId => {
                Ok(context_field(site, block_context_field::SM_ID, site.context.i32_type().into())?.into_int_value())
            }
            SpecialRegister::SmCount => {
                Ok(context_field(site, block_context_field::SM_COUNT, site.context.i32_type().into())?.into_int_value())
            }
            SpecialRegister::GridId => {
                Ok(context_field(site, block_context_field::GRID_ID, site.context.i64_type().into())?.into_int_value())
            }
            SpecialRegister::DynamicSharedSize => {
                Ok(context_field(site, block_context_field::DYNAMIC_SHARED_BYTES, site.context.i32_type().into())?
                    .into_int_value())
            }
            // Static plus dynamic bytes exactly: the host allocates shared memory in bytes, so
            // its allocation unit (which rounds the total up on GPUs) is 1.
            // ptxr reserves no shared memory, so `%aggr_smem_size` is the total too.
            SpecialRegister::TotalSharedSize | SpecialRegister::AggregateSharedSize => {
                let i32_type = site.context.i32_type();
                let dynamic = context_field(site, block_context_field::DYNAMIC_SHARED_BYTES, i32_type.into())?;
                let fixed = context_field(site, block_context_field::STATIC_SHARED_BYTES, i32_type.into())?;
                site.builder
                    .build_int_add(fixed.into_int_value(), dynamic.into_int_value(), "total_smem_size")
                    .map_err(llvm_error)
            }
            // The cooperative launch's grid workspace (`ptxr_runtime::grid_workspace`), as CUDA's
            // driver passes it: `%envreg1` the high half of its address, `%envreg2` the low half.
            SpecialRegister::EnvironmentRegister(index @ (1 | 2)) => {
                let address = context_field(site, block_context_field::GRID_WORKSPACE, site.context.i64_type().into())?
                    .into_int_value();
                let half = if index == 1 {
                    site.builder
                        .build_right_shift(address, site.context.i64_type().const_int(32, false), false, "")
                        .map_err(llvm_error)?
                } else {
                    address
                };
                site.builder.build_int_truncate(half, site.context.i32_type(), "envreg").map_err(llvm_error)
            }
            SpecialRegister::EnvironmentRegister(_)
            | SpecialRegister::PerformanceCounter(_)
            | SpecialRegister::PerformanceCounter64(_)
            | SpecialRegister::ReservedSharedOffset(_)
            | SpecialRegister::ClusterId(_)
            | SpecialRegister::ClusterCount(_)
            | SpecialRegister::ClusterCtaId(_)
            | SpecialRegister::ClusterCtaCount(_)
            | SpecialRegister::ClusterCtaRank
            | SpecialRegister::ClusterCtaRankCount
            | SpecialRegister::IsExplicitCluster => {
                crate::fixed_special_register::value(site, register, |other| self.special_register(site, other))
            }
        }
    }
}

/// The runtime's code (`ptxr_runtime::abi::matrix_operation`) of an `mma` form.
fn matrix_operation_code(operation: &MatrixMultiply) -> Result<u32, Unsupported> {
    let unsupported = || Unsupported {
        what: format!(
            "`mma{}{}{}{}{}{}{}`",
            operation.shape, operation.a_layout, operation.b_layout, operation.d, operation.a, operation.b, operation.c
        ),
    };
    let shape = match operation.shape {
        MatrixShape::M8n8k16 => matrix_operation::SHAPE_M8N8K16,
        MatrixShape::M16n8k4 => matrix_operation::SHAPE_M16N8K4,
        MatrixShape::M16n8k8 => matrix_operation::SHAPE_M16N8K8,
        MatrixShape::M16n8k16 => matrix_operation::SHAPE_M16N8K16,
        MatrixShape::M16n8k32 => matrix_operation::SHAPE_M16N8K32,
        MatrixShape::M8n8k4 if matches!(operation.a, MatrixElement::F16 | MatrixElement::F64) => {
            matrix_operation::SHAPE_M8N8K4
        }
        MatrixShape::M8n8k32 => matrix_operation::SHAPE_M8N8K32,
        MatrixShape::M8n8k128 => matrix_operation::SHAPE_M8N8K128,
        MatrixShape::M16n8k64 => matrix_operation::SHAPE_M16N8K64,
        MatrixShape::M16n8k128 => matrix_operation::SHAPE_M16N8K128,
        MatrixShape::M16n8k256 => matrix_operation::SHAPE_M16N8K256,
        MatrixShape::M8n8k4 => return Err(unsupported()),
    };
    let element = |element: MatrixElement| match element {
        MatrixElement::F16 => Ok(matrix_operation::ELEMENT_F16),
        MatrixElement::Bf16 => Ok(matrix_operation::ELEMENT_BF16),
        MatrixElement::Tf32 => Ok(matrix_operation::ELEMENT_TF32),
        MatrixElement::F32 => Ok(matrix_operation::ELEMENT_F32),
        MatrixElement::S8 => Ok(matrix_operation::ELEMENT_S8),
        MatrixElement::U8 => Ok(matrix_operation::ELEMENT_U8),
        MatrixElement::S32 => Ok(matrix_operation::ELEMENT_S32),
        MatrixElement::F64 => Ok(matrix_operation::ELEMENT_F64),
        MatrixElement::S4 => Ok(matrix_operation::ELEMENT_S4),
        MatrixElement::U4 => Ok(matrix_operation::ELEMENT_U4),
        MatrixElement::B1 => Ok(matrix_operation::ELEMENT_B1),
        MatrixElement::E4m3 => Ok(matrix_operation::ELEMENT_E4M3),
        MatrixElement::E5m2 => Ok(matrix_operation::ELEMENT_E5M2),
    };
    let code = matrix_operation::encode(
        shape,
        element(operation.d)?,
        element(operation.a)?,
        element(operation.b)?,
        element(operation.c)?,
        operation.saturate,
    );
    let a_layout = if operation.a_layout == MatrixLayout::Column { matrix_operation::A_COLUMN_MAJOR } else { 0 };
    let b_layout = if operation.b_layout == MatrixLayout::Row { matrix_operation::B_ROW_MAJOR } else { 0 };
    let bit_and = if operation.bit_operation == Some(BitOperation::And) { matrix_operation::BIT_AND } else { 0 };
    Ok(code | a_layout | b_layout | bit_and)
}
