//! `trap` and `__assertfail` on SPIR-V. OpenCL kernels cannot abort, so a stopping work-item
//! raises a program-scope flag (`ptxr.trapped`, a CrossWorkgroup `uint`, set to how it stopped)
//! and returns, as `trap` leaves the function on the CPU. The module also gets a kernel, [`TRAP_STATUS_KERNEL`], that copies the
//! flag into a buffer, so that the host can ask after the grid whether any work-item trapped and
//! fail the launch as the CPU runtime does.
//!
//! [`TRAP_STATUS_KERNEL`]: ptxr_runtime::abi::opencl::TRAP_STATUS_KERNEL

use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::values::{BasicValue, GlobalValue};
use inkwell::AddressSpace;
use ptxr_frontend::ir::MemoryOrdering;
use ptxr_runtime::abi::opencl::TRAP_STATUS_KERNEL;

use crate::atomics::order_access;
use crate::{Site, Unsupported};

/// LLVM's `spir_kernel` calling convention.
const SPIR_KERNEL: u32 = 76;
/// SPIR-V's CrossWorkgroup storage class (OpenCL `global`).
const CROSS_WORKGROUP: u16 = 1;
/// The flag's name; the dot keeps it apart from every PTX identifier.
const FLAG: &str = "ptxr.trapped";

fn failed(error: inkwell::builder::BuilderError) -> Unsupported {
    Unsupported { what: format!("`trap` ({error})") }
}

/// Raises the flag in the function of `site` with `reason` (`STOPPED_BY_TRAP` or
/// `STOPPED_BY_ASSERTION`); the caller then returns.
pub fn stop(site: &Site<'_, '_>, reason: u32) -> Result<(), Unsupported> {
    let flag = flag(site.context, site.module)?;
    let i32_type = site.context.i32_type();
    let value = i32_type.const_int(u64::from(reason), false);
    let store = site.builder.build_store(flag.as_pointer_value(), value).map_err(failed)?;
    store.set_alignment(4).map_err(|error| Unsupported { what: format!("`trap` ({error})") })?;
    // Work-items may trap together: an atomic store keeps that free of data races.
    order_access(site, store, MemoryOrdering::Relaxed, "device");
    Ok(())
}

/// The flag, and with it the status kernel, made before the module's functions when it can
/// trap (`Target::prepare_for_traps`), or else on its first `trap`.
pub fn flag<'ctx>(context: &'ctx Context, module: &Module<'ctx>) -> Result<GlobalValue<'ctx>, Unsupported> {
    if let Some(flag) = module.get_global(FLAG) {
        return Ok(flag);
    }
    let i32_type = context.i32_type();
    let global_space = AddressSpace::from(CROSS_WORKGROUP);
    let flag = module.add_global(i32_type, Some(global_space), FLAG);
    flag.set_initializer(&i32_type.const_zero());
    flag.set_linkage(Linkage::Internal);
    flag.set_alignment(4);

    // kernel void ptxr.trap_status(global uint *status) { *status = ptxr.trapped; }
    let pointer_type = context.ptr_type(global_space);
    let kernel = module.add_function(
        TRAP_STATUS_KERNEL,
        context.void_type().fn_type(&[pointer_type.into()], false),
        Some(Linkage::External),
    );
    kernel.set_call_conventions(SPIR_KERNEL);
    let builder = context.create_builder();
    builder.position_at_end(context.append_basic_block(kernel, "entry"));
    let status = kernel.get_first_param().ok_or_else(|| Unsupported { what: "`trap`'s status kernel".into() })?;
    let load = builder.build_load(i32_type, flag.as_pointer_value(), "trapped").map_err(failed)?;
    if let Some(instruction) = load.as_instruction_value() {
        instruction.set_alignment(4).map_err(|error| Unsupported { what: format!("`trap` ({error})") })?;
    }
    builder.build_store(status.into_pointer_value(), load).map_err(failed)?;
    builder.build_return(None).map_err(failed)?;
    Ok(flag)
}
