//! `%clock` and `%clock64` on SPIR-V: OpenCL's kernel clock, `clock_read_device()` of
//! `cl_khr_kernel_clock`, called as a function that the module imports.
//!
//! LLVM 22's SPIR-V back end turns a call of `clock_read_device` into OpReadClockKHR
//! (SPV_KHR_shader_clock), which the installed `spirv-val` (2023.1) refuses in OpenCL modules:
//! its grammar still has the ShaderClockKHR capability imply Shader (SPIRV-Headers decoupled
//! them in January 2023), and under Shader it requires structured control flow, which PTX loops
//! lowered for OpenCL lack. A call of an imported function needs only the Linkage capability,
//! and the OpenCL runtime's SPIR-V reader resolves `clock_read_device` as it resolves every
//! OpenCL builtin (Intel's CPU runtime reads its cycle counter there). So lowering calls
//! [`PLACEHOLDER`], a name of the same length that the back end does not know, and the emitted
//! module's strings are renamed to [`BUILTIN`] (`lowering/src/spirv_emission.rs`).

use inkwell::values::IntValue;

use crate::{function_or_declare, Site, Unsupported};

/// What lowering calls; the same length as [`BUILTIN`], so that renaming keeps SPIR-V's words.
pub const PLACEHOLDER: &str = "ptxr_clock_read_device";
/// `ulong clock_read_device(void)`, mangled as OpenCL C names it.
pub const BUILTIN: &str = "_Z17clock_read_devicev";
const _: () = assert!(PLACEHOLDER.len() == BUILTIN.len());

/// LLVM's `spir_func` calling convention.
const SPIR_FUNC: u32 = 75;

/// The device clock's 64 bits.
pub fn read<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let i64_type = site.context.i64_type();
    let function = function_or_declare(site.module, PLACEHOLDER, || i64_type.fn_type(&[], false));
    function.set_call_conventions(SPIR_FUNC);
    let call = site
        .builder
        .build_call(function, &[], "clock")
        .map_err(|error| Unsupported { what: format!("the kernel clock ({error})") })?;
    call.set_call_convention(SPIR_FUNC);
    call.try_as_basic_value()
        .basic()
        .map(|value| value.into_int_value())
        .ok_or_else(|| Unsupported { what: "the kernel clock".into() })
}
