//! The SPIR-V launch arguments: a by-value `ulong8` kernel argument through which the OpenCL
//! host tells a kernel what OpenCL itself does not: its launch's identifier (`%gridid`), the
//! size of its dynamic shared memory (`%dynamic_smem_size`, `%total_smem_size`, and where the
//! `__local` window ends for `isspacep.shared`), and how its device clock relates to
//! nanoseconds (`%globaltimer`). An OpenCL kernel knows none of them: no builtin names an
//! enqueue, a `__local` argument's size stays with the host, and `clock_read_device` counts
//! at a rate OpenCL does not report, which the host measures with the module's
//! [`CLOCK_CALIBRATION_KERNEL`]. For `isspacep`, it also tells where the launch's buffers lie,
//! and a kernel writes into it where it placed its own parameters before passing it on. The layout is `ptxr_runtime::abi::opencl::launch_arguments`;
//! docs/TARGETS.md has the ABI for host code.

use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::VectorType;
use inkwell::values::{IntValue, PointerValue, VectorValue};
use inkwell::AddressSpace;
use ptxr_frontend::vocabulary::SpecialRegister;
use ptxr_runtime::abi::opencl::launch_arguments as lanes;
use ptxr_runtime::abi::opencl::CLOCK_CALIBRATION_KERNEL;

use crate::{LaunchArgumentNeed, Site, Unsupported};

/// LLVM's `spir_kernel` calling convention.
const SPIR_KERNEL: u32 = 76;
/// SPIR-V's CrossWorkgroup address space, OpenCL's `global`.
const CROSS_WORKGROUP: u16 = 1;
/// SPIR-V's Generic address space.
const GENERIC: u16 = 4;

/// `ulong8`: one 64-bit lane per `lanes` constant.
pub(crate) fn vector_type(context: &Context) -> VectorType<'_> {
    context.i64_type().vec_type(lanes::LANES)
}

/// Whether lowering `need` on SPIR-V reads the launch arguments.
pub(crate) fn needed_for(need: LaunchArgumentNeed) -> bool {
    match need {
        LaunchArgumentNeed::Register(register) => matches!(
            register,
            SpecialRegister::GridId
                | SpecialRegister::DynamicSharedSize
                | SpecialRegister::TotalSharedSize
                | SpecialRegister::AggregateSharedSize
                | SpecialRegister::GlobalTimer
                | SpecialRegister::GlobalTimerLow
                | SpecialRegister::GlobalTimerHigh
        ),
        LaunchArgumentNeed::DynamicSharedWindowEnd
        | LaunchArgumentNeed::LaunchBuffers
        | LaunchArgumentNeed::KernelParameterWindow => true,
    }
}

fn failed(what: &str) -> impl Fn(inkwell::builder::BuilderError) -> Unsupported + '_ {
    move |error| Unsupported { what: format!("{what} ({error})") }
}

/// Lane `lane` of the function's launch arguments, as an `i64`.
fn lane<'ctx>(site: &Site<'_, 'ctx>, lane: u32, what: &str) -> Result<IntValue<'ctx>, Unsupported> {
    let arguments = site
        .launch_arguments
        .ok_or_else(|| Unsupported { what: format!("{what} (the function did not receive the launch arguments)") })?;
    let index = site.context.i32_type().const_int(u64::from(lane), false);
    Ok(site.builder.build_extract_element(arguments.value, index, "").map_err(failed(what))?.into_int_value())
}

/// `%gridid`, which the host numbers per launch.
pub(crate) fn grid_id<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    lane(site, lanes::GRID_ID, "special register %gridid")
}

/// The launch's dynamic shared bytes, as an `i64`.
fn dynamic_shared_bytes_wide<'ctx>(site: &Site<'_, 'ctx>, what: &str) -> Result<IntValue<'ctx>, Unsupported> {
    lane(site, lanes::DYNAMIC_SHARED_BYTES, what)
}

/// `%dynamic_smem_size`: the launch's dynamic shared bytes (a 32-bit register; CUDA sizes
/// shared memory in 32 bits).
pub(crate) fn dynamic_shared_size<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let what = "special register %dynamic_smem_size";
    let bytes = dynamic_shared_bytes_wide(site, what)?;
    site.builder.build_int_truncate(bytes, site.context.i32_type(), "dynamic_smem_size").map_err(failed(what))
}

/// `%total_smem_size` (ISA 7.8 section 10.30: static plus dynamic shared memory): the static
/// bytes as the window holds them (rounded up to where the dynamic part begins, as the CPU
/// target counts them) plus the launch's dynamic bytes.
pub(crate) fn total_shared_size<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let what = "special register %total_smem_size";
    let static_bytes = site.launch_arguments.map_or(0, |arguments| arguments.static_shared_bytes);
    let i32_type = site.context.i32_type();
    let dynamic = dynamic_shared_size(site)?;
    site.builder
        .build_int_add(i32_type.const_int(static_bytes, false), dynamic, "total_smem_size")
        .map_err(failed(what))
}

/// The bytes of the whole shared window, static and dynamic, as an `i64` (`isspacep.shared`).
pub(crate) fn window_bytes<'ctx>(site: &Site<'_, 'ctx>, static_bytes: u64) -> Result<IntValue<'ctx>, Unsupported> {
    let what = "`isspacep.shared` with dynamic shared memory";
    let dynamic = dynamic_shared_bytes_wide(site, what)?;
    site.builder
        .build_int_add(site.context.i64_type().const_int(static_bytes, false), dynamic, "shared_window_bytes")
        .map_err(failed(what))
}

/// The address of the table of the launch's buffers, as an `i64` (0: none).
pub(crate) fn launch_buffers<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    lane(site, lanes::LAUNCH_BUFFERS, "`isspacep` of the launch's buffers")
}

/// Where the kernel placed its own copies of its parameters: their first byte as a generic
/// address and their bytes, both `i64`s.
pub(crate) fn kernel_parameter_window<'ctx>(
    site: &Site<'_, 'ctx>,
) -> Result<(IntValue<'ctx>, IntValue<'ctx>), Unsupported> {
    let what = "`isspacep` of the kernel's parameters";
    Ok((lane(site, lanes::PARAMETER_WINDOW_START, what)?, lane(site, lanes::PARAMETER_WINDOW_BYTES, what)?))
}

/// The kernel's launch arguments with its parameter window, `[start, start + bytes)` in
/// private memory, written into their lanes as a generic address and a size
/// (`Target::record_kernel_parameter_window`).
pub(crate) fn record_kernel_parameter_window<'ctx>(
    site: &Site<'_, 'ctx>,
    arguments: VectorValue<'ctx>,
    start: PointerValue<'ctx>,
    bytes: u64,
) -> Result<VectorValue<'ctx>, Unsupported> {
    let what = "the kernel's parameter window";
    let builder = site.builder;
    let i32_type = site.context.i32_type();
    let i64_type = site.context.i64_type();
    let generic = site.context.ptr_type(AddressSpace::from(GENERIC));
    let start = builder.build_address_space_cast(start, generic, "").map_err(failed(what))?;
    let start = builder.build_ptr_to_int(start, i64_type, "parameter_window").map_err(failed(what))?;
    let index = |lane: u32| i32_type.const_int(u64::from(lane), false);
    let arguments = builder
        .build_insert_element(arguments, start, index(lanes::PARAMETER_WINDOW_START), "")
        .map_err(failed(what))?;
    builder
        .build_insert_element(
            arguments,
            i64_type.const_int(bytes, false),
            index(lanes::PARAMETER_WINDOW_BYTES),
            "launch.arguments.kernel",
        )
        .map_err(failed(what))
}

/// `%globaltimer`: the origin's nanoseconds plus the device clock's ticks since the origin's
/// count times the nanoseconds per tick that the host measured, all from the launch arguments.
/// The tick difference is converted to a double (exact below 2^53 ticks, months of a GHz
/// clock), so the product keeps a fraction of a nanosecond; a clock behind the origin gives
/// a time before it rather than wrapping.
pub(crate) fn global_timer<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let what = "special register %globaltimer";
    let builder = site.builder;
    let i64_type = site.context.i64_type();
    let f64_type = site.context.f64_type();
    let origin = lane(site, lanes::TIMER_ORIGIN_NANOSECONDS, what)?;
    let origin_clock = lane(site, lanes::TIMER_ORIGIN_CLOCK, what)?;
    let rate_bits = lane(site, lanes::NANOSECONDS_PER_CLOCK_TICK, what)?;
    let clock = crate::spirv_clock::read(site)?;
    let ticks = builder.build_int_sub(clock, origin_clock, "ticks").map_err(failed(what))?;
    let ticks = builder.build_signed_int_to_float(ticks, f64_type, "").map_err(failed(what))?;
    let rate = builder.build_bit_cast(rate_bits, f64_type, "").map_err(failed(what))?.into_float_value();
    let elapsed = builder.build_float_mul(ticks, rate, "").map_err(failed(what))?;
    let elapsed = builder.build_float_to_signed_int(elapsed, i64_type, "elapsed").map_err(failed(what))?;
    builder.build_int_add(origin, elapsed, "globaltimer").map_err(failed(what))
}

/// Adds the module's [`CLOCK_CALIBRATION_KERNEL`], `kernel void (global ulong *clock)` storing
/// `clock_read_device()`, unless it has one. Made before the module's functions, as the trap
/// status kernel is (`spirv_trap.rs`).
pub(crate) fn add_clock_calibration_kernel<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
) -> Result<(), Unsupported> {
    if module.get_function(CLOCK_CALIBRATION_KERNEL).is_some() {
        return Ok(());
    }
    let what = "the clock calibration kernel";
    let pointer_type = context.ptr_type(AddressSpace::from(CROSS_WORKGROUP));
    let kernel = module.add_function(
        CLOCK_CALIBRATION_KERNEL,
        context.void_type().fn_type(&[pointer_type.into()], false),
        Some(Linkage::External),
    );
    kernel.set_call_conventions(SPIR_KERNEL);
    let builder = context.create_builder();
    builder.position_at_end(context.append_basic_block(kernel, "entry"));
    let site = Site { context, module, builder: &builder, function: kernel, launch_arguments: None };
    let clock = crate::spirv_clock::read(&site)?;
    let output = kernel.get_first_param().ok_or_else(|| Unsupported { what: what.into() })?;
    let store = builder.build_store(output.into_pointer_value(), clock).map_err(failed(what))?;
    store.set_alignment(8).map_err(|error| Unsupported { what: format!("{what} ({error})") })?;
    builder.build_return(None).map_err(failed(what))?;
    Ok(())
}
