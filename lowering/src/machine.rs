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

/// The CPU features with `cx16` added on x86-64, where LLVM's generic processor lacks it: with
/// it, `atom.cas.b128` and `atom.exch.b128` become `lock cmpxchg16b` instead of calls of
/// libatomic's `__atomic_*_16`, which neither the JIT nor a plain link provides. Every x86-64
/// processor since the first few of 2003-2005 has the instruction (x86-64-v2 requires it).
fn with_sixteen_byte_compare_and_swap(description: &TargetDescription, features: String) -> String {
    let x86_64 = description.triple.starts_with("x86_64");
    if description.kind != TargetKind::Cpu || !x86_64 || features.split(',').any(|feature| feature.ends_with("cx16")) {
        return features;
    }
    if features.is_empty() {
        "+cx16".to_string()
    } else {
        format!("{features},+cx16")
    }
}

/// Gives every function of an x86-64 CPU module the processor and features of `machine` (which
/// include `cx16`, see [`with_sixteen_byte_compare_and_swap`]) as attributes. `ptxr run`'s MCJIT
/// engine builds its own target machine for a generic processor, without `cx16`, and would
/// compile the module's 128-bit atomics to calls of libatomic, which it cannot resolve; a
/// function's attributes take precedence over the engine's machine. Only modules with 128-bit
/// atomics are marked, so that other JIT code is compiled as before.
pub fn pin_processor_for_wide_atomics(
    module: &inkwell::module::Module<'_>,
    description: &TargetDescription,
    machine: &TargetMachine,
) {
    if description.kind != TargetKind::Cpu || !description.triple.starts_with("x86_64") {
        return;
    }
    let context = module.get_context();
    let cpu = machine.get_cpu().to_string_lossy().into_owned();
    let features = machine.get_feature_string().to_string_lossy().into_owned();
    for function in module.get_functions().filter(|function| function.count_basic_blocks() > 0) {
        let location = inkwell::attributes::AttributeLoc::Function;
        function.add_attribute(location, context.create_string_attribute("target-cpu", &cpu));
        function.add_attribute(location, context.create_string_attribute("target-features", &features));
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
    let features = with_sixteen_byte_compare_and_swap(description, features);
    let relocation = if options.position_independent { RelocMode::PIC } else { RelocMode::Default };
    target
        .create_target_machine(&triple, &cpu, &features, options.optimization, relocation, CodeModel::Default)
        .ok_or_else(|| {
            format!("LLVM cannot create a target machine for `{}` with processor `{cpu}`", description.triple)
        })
}
