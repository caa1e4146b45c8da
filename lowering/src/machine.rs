//! LLVM target machines for each target kind, and the one-time initialisation of LLVM's targets
//! (inkwell has no SPIR-V feature, so that target is initialised through its C entry points).

use std::sync::Once;

use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine, TargetTriple};
use ptxr_intrinsics::TargetKind;

pub use inkwell::OptimizationLevel;

extern "C" {
    fn LLVMInitializeSPIRVTargetInfo();
    fn LLVMInitializeSPIRVTarget();
    fn LLVMInitializeSPIRVTargetMC();
    fn LLVMInitializeSPIRVAsmPrinter();
}

/// What to compile for: the kind, the LLVM triple, and the processor (`sm_80`, `gfx90a`, or a
/// CPU name such as `native`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetDescription {
    pub kind: TargetKind,
    pub triple: String,
    pub cpu: String,
    pub features: String,
}

#[derive(Clone, Copy, Debug)]
pub struct MachineOptions {
    pub optimization: OptimizationLevel,
    /// Position-independent code (shared objects, JIT); the CPU object default.
    pub position_independent: bool,
}

static INITIALIZE: Once = Once::new();

/// Initialises every LLVM target ptxr uses; cheap after the first call.
pub fn initialize_targets() {
    INITIALIZE.call_once(|| {
        let config = InitializationConfig::default();
        LlvmTarget::initialize_x86(&config);
        LlvmTarget::initialize_aarch64(&config);
        LlvmTarget::initialize_riscv(&config);
        LlvmTarget::initialize_arm(&config);
        LlvmTarget::initialize_power_pc(&config);
        LlvmTarget::initialize_system_z(&config);
        LlvmTarget::initialize_loongarch(&config);
        LlvmTarget::initialize_webassembly(&config);
        LlvmTarget::initialize_nvptx(&config);
        LlvmTarget::initialize_amd_gpu(&config);
        // SAFETY: LLVM's target initialisers take no arguments and may run once per process;
        // `Once` guarantees that.
        unsafe {
            LLVMInitializeSPIRVTargetInfo();
            LLVMInitializeSPIRVTarget();
            LLVMInitializeSPIRVTargetMC();
            LLVMInitializeSPIRVAsmPrinter();
        }
        enable_spirv_extensions();
    });
}

/// SPIR-V extensions that the SPIR-V back end may use when a module needs them (it adds the
/// `OpExtension` only then). SPV_KHR_bit_instructions gives `OpBitReverse` and friends: without
/// it, LLVM's optimiser turns shift-and-mask sequences such as `brev`'s back into
/// `llvm.bitreverse`, which the back end then cannot emit. OpenCL runtimes advertise it as
/// `cl_khr_extended_bit_ops`. SPV_EXT_shader_atomic_float_add gives `atom.add.f32/.f64`
/// (`cl_ext_float_atomics`).
fn enable_spirv_extensions() {
    // Leaked once: LLVM may keep pointers into its command-line arguments.
    let option =
        std::ffi::CString::new(format!("-spirv-ext={}", crate::spirv_emission::EXTENSIONS)).unwrap_or_default();
    let option: &'static std::ffi::CStr = Box::leak(option.into_boxed_c_str());
    let arguments = [c"ptxr".as_ptr(), option.as_ptr()];
    // SAFETY: two NUL-terminated strings that live for the rest of the process (LLVM may keep
    // pointers into them), parsed once, before any compilation.
    unsafe {
        llvm_sys::support::LLVMParseCommandLineOptions(arguments.len() as i32, arguments.as_ptr(), std::ptr::null());
    }
}

/// Creates the LLVM target machine for a target description.
pub fn target_machine(description: &TargetDescription, options: MachineOptions) -> Result<TargetMachine, String> {
    initialize_targets();
    let triple = TargetTriple::create(&description.triple);
    let target = LlvmTarget::from_triple(&triple)
        .map_err(|error| format!("LLVM has no target for `{}`: {error}", description.triple))?;
    let (cpu, features) = if description.kind == TargetKind::Cpu && description.cpu == "native" {
        (TargetMachine::get_host_cpu_name().to_string(), TargetMachine::get_host_cpu_features().to_string())
    } else {
        (description.cpu.clone(), description.features.clone())
    };
    let relocation = if options.position_independent { RelocMode::PIC } else { RelocMode::Default };
    target
        .create_target_machine(&triple, &cpu, &features, options.optimization, relocation, CodeModel::Default)
        .ok_or_else(|| {
            format!("LLVM cannot create a target machine for `{}` with processor `{cpu}`", description.triple)
        })
}
