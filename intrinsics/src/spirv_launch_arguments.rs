//! The SPIR-V launch arguments: a by-value `ulong2` kernel argument through which the OpenCL
//! host tells a kernel what OpenCL itself does not, its launch's identifier (`%gridid`) and the
//! size of its dynamic shared memory (`%dynamic_smem_size`, `%total_smem_size`, and where the
//! `__local` window ends for `isspacep.shared`). An OpenCL kernel knows neither: no builtin
//! names an enqueue, and a `__local` argument's size stays with the host. The layout is
//! `ptxr_runtime::abi::opencl::launch_arguments`; docs/TARGETS.md has the ABI for host code.

use inkwell::context::Context;
use inkwell::types::VectorType;
use inkwell::values::IntValue;
use ptxr_frontend::vocabulary::SpecialRegister;
use ptxr_runtime::abi::opencl::launch_arguments as lanes;

use crate::{LaunchArgumentNeed, Site, Unsupported};

/// `ulong2`: one 64-bit lane per `lanes` constant.
pub(crate) fn vector_type(context: &Context) -> VectorType<'_> {
    context.i64_type().vec_type(lanes::LANES)
}

/// Whether lowering `need` on SPIR-V reads the launch arguments.
pub(crate) fn needed_for(need: LaunchArgumentNeed) -> bool {
    match need {
        LaunchArgumentNeed::Register(register) => matches!(
            register,
            SpecialRegister::GridId | SpecialRegister::DynamicSharedSize | SpecialRegister::TotalSharedSize
        ),
        LaunchArgumentNeed::DynamicSharedWindowEnd => true,
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

/// `%total_smem_size` (ISA 7.8 section 10.31: static plus dynamic shared memory): the static
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
