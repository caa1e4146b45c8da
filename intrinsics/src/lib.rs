//! The per-target layer that lowering calls. Each target is one module behind the `Target`
//! trait: its address spaces, kernel calling convention, special registers and module set-up.
//! Nothing outside this crate asks which target it is compiling for; `for_kind` is the one
//! table that maps a target kind to its implementation.

pub mod address_ranges;
mod amdgpu;
mod amdgpu_barrier;
mod amdgpu_hardware_id;
mod amdgpu_mbarrier;
mod amdgpu_printf;
mod amdgpu_sleep;
mod amdgpu_warp;
pub mod atomics;
mod cluster_of_one;
mod collective;
pub mod compare_and_swap_loop;
mod cpu;
mod cpu_addresses;
mod cpu_device_library;
mod cpu_mbarrier;
mod declare;
mod device_function;
mod device_heap;
mod fixed_special_register;
mod global_timer;
mod lane_mask;
pub mod mbarrier;
mod module_instructions;
mod nvptx;
mod nvptx_hint;
mod nvptx_inline_ptx;
mod nvptx_matrix;
mod nvptx_mbarrier;
mod nvptx_texture_reference;
mod nvptx_warp_group_matrix;
mod nvptx_warp_matrix;
mod printf_arguments;
mod printf_strings;
mod resumable;
mod site;
mod software_barrier;
mod spirv;
mod spirv_atomic_addresses;
mod spirv_atomic_loads_stores;
mod spirv_barrier;
mod spirv_bit_reverse;
pub mod spirv_clock;
mod spirv_launch_arguments;
mod spirv_mbarrier;
mod spirv_printf;
mod spirv_state_spaces;
mod spirv_subgroup;
mod spirv_trap;
mod warp_lanes;
mod wide_atomic_lock;
mod work_item_loops;

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::targets::TargetMachine;
use inkwell::types::{BasicMetadataTypeEnum, VectorType};
use inkwell::values::{BasicValueEnum, FunctionValue, IntValue, PointerValue, VectorValue};
use inkwell::AddressSpace;
use ptxr_frontend::ir::{MemoryOrdering, MemoryScope, ProxyKind};
use ptxr_frontend::vocabulary::{SpecialRegister, StateSpace};

pub use cluster_of_one::ClusterQuery;
pub use collective::{
    Barrier, CollectiveResult, MatrixCollective, MatrixLowering, WarpCollective, WarpGroupCollective,
    WarpGroupOperands, WarpGroupSource, WarpMatrixCollective,
};
pub use declare::mark_convergent;
pub use device_function::{DeviceFunction, DeviceFunctionCall, DeviceFunctionLowering, StringConstant};
pub use site::{LaunchArguments, Site};

/// The four families of machines that ptxr compiles for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TargetKind {
    /// The host (or another CPU triple): objects, and kernels run by ptxr's runtime.
    Cpu,
    Nvptx,
    Amdgpu,
    Spirv,
}

impl TargetKind {
    /// The short name users type after `--target` and that diagnostics print.
    pub fn name(self) -> &'static str {
        match self {
            TargetKind::Cpu => "cpu",
            TargetKind::Nvptx => "nvptx",
            TargetKind::Amdgpu => "amdgpu",
            TargetKind::Spirv => "spirv",
        }
    }
}

/// A construct that a target cannot express; lowering turns it into an "unsupported" diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported {
    /// What is unsupported, in PTX terms (`%laneid`, `.shared variables`).
    pub what: String,
}

/// How a target expresses `tex`, `tld4`, `txq`, `suld`, `sust` and `suq`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextureLowering {
    /// Code that lowering generates reads and writes ptxr texture descriptors in global memory.
    Software,
    /// The instruction itself, as inline PTX, on texture and surface objects.
    InlinePtx,
}

/// A kernel's PTX parameters as lowering sees them: one LLVM value type per parameter.
pub struct KernelParameters<'ctx> {
    pub types: Vec<inkwell::types::BasicTypeEnum<'ctx>>,
    /// Whether the kernel (or a function in its module) uses barriers or warp collectives, so
    /// that its threads cannot simply run one after another.
    pub cooperative: bool,
    /// Whether a `.func` of the module (not only kernel bodies) uses barriers or warp
    /// collectives: a thread may then wait inside a call, which needs a stack of its own.
    pub collectives_in_functions: bool,
    /// Whether a function of the module uses `bar.arrive` or a barrier with a thread count,
    /// which targets without such barriers build from counters that the kernel initialises.
    pub counted_barriers: bool,
}

/// Why lowering's own code stops a kernel (`Target::stop_for`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// An indirect call's function identifier names no function of the call's type
    /// ([`FunctionAddresses::Identifiers`]).
    CallOfNoFunction,
    /// A counted `bar.red`'s thread count is not the block's, where counted reductions can only
    /// be the whole block's (`Target::counted_barriers_of_the_whole_block_are_block_barriers`).
    CountedBarrierOfPartOfTheBlock,
    /// An `alloca` would take the thread's stack past its bound ([`StackBound`]).
    StackOverflow,
}

/// How lowering bounds the stack that a thread's `alloca`s take, so that a thread allocating
/// more than its stack holds stops with a message ([`StopReason::StackOverflow`]) instead of
/// overwriting what lies below its stack or crashing the process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackBound {
    /// The hardware or its driver bounds it (NVPTX, AMDGPU).
    Unchecked,
    /// Each `alloca` compares the stack pointer with the running thread's floor, the lowest
    /// address allocations may reach (`Target::stack_floor`).
    Floor,
    /// Lowering carves each thread's `alloca`s out of an array of this many bytes in the
    /// thread's private memory, with a stack pointer of its own (`stacksave` reads it,
    /// `stackrestore` sets it, a `.func` gives back what it allocated when it returns), which
    /// `.func`s reach beside the stop flag. For back ends that cannot move the stack pointer,
    /// or whose runtime says nothing of the stack's size.
    PrivateArray(u64),
}

/// How a target holds a 128-bit value (a `.b128` register, the operands of `atom.cas.b128`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideValues {
    /// An LLVM `i128`.
    Integer,
    /// An LLVM `<2 x i64>`, the low half in element 0 (the bytes' order in memory on the
    /// little-endian targets), for targets without 128-bit integers; no `i128` is ever formed.
    Halves,
}

/// Where ptxr placed the memory of some state spaces, for `isspacep` by address ranges
/// (`Target::is_in_state_space`).
pub struct PlacedMemory<'ctx> {
    /// The block's shared window on a target that passes one to every function
    /// (`Target::shared_window_parameter_type`); `None` in a module without `.shared` variables.
    pub shared_window: Option<SharedWindow<'ctx>>,
    /// Every `.const` variable of the module (module scope and in functions), filled in only
    /// for `isspacep.const`, `.global` and `.local`.
    pub constants: Vec<address_ranges::AddressRange<'ctx>>,
    /// Every `.global` variable of the module (module scope and in functions), filled in only
    /// for `isspacep.global` and `.local`.
    pub globals: Vec<address_ranges::AddressRange<'ctx>>,
    /// Whether the module calls `malloc`, whose blocks are global memory: on targets whose
    /// module brings its own heap (`device_heap.rs`), the heap is then one more global range.
    pub device_heap: bool,
}

/// The block's shared window as a function receives it (`Target::shared_window_parameter_type`).
pub struct SharedWindow<'ctx> {
    /// The window's first byte, in the shared address space.
    pub base: PointerValue<'ctx>,
    /// The bytes of the static `.shared` variables (rounded up to 16).
    pub static_bytes: u64,
    /// Whether the module has dynamic shared memory (unsized `.extern .shared` arrays), which
    /// the launch sizes after the static part.
    pub has_dynamic: bool,
}

/// What lowering may read from the launch arguments (`Target::needs_launch_arguments`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchArgumentNeed {
    /// Reading a special register.
    Register(SpecialRegister),
    /// `isspacep.shared` in a module with dynamic shared memory, which must know where the
    /// launch's dynamic part ends.
    DynamicSharedWindowEnd,
    /// `isspacep.global` and `.local`, which must know where the launch's buffers lie.
    LaunchBuffers,
    /// `isspacep.param`, `.global` and `.local`, which must know where the kernel placed its
    /// parameters (`Target::record_kernel_parameter_window`).
    KernelParameterWindow,
}

/// What lowering makes of a function's address (`mov.u64 %rd, function`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionAddresses {
    /// The function's machine address, called through by an indirect call.
    Pointers,
    /// The function's index in the module plus one (so that 0 stays null), for targets whose
    /// code cannot call through a pointer (SPIR-V: OpenCL lacks SPV_INTEL_function_pointers). An
    /// indirect call is a `switch` over the module's functions of the call's LLVM type, which is
    /// exact for programs that only store, move, compare and call function addresses.
    Identifiers,
}

/// Everything lowering needs to know about one target.
pub trait Target {
    fn kind(&self) -> TargetKind;

    /// The LLVM address space of a PTX state space on this target.
    fn address_space(&self, state_space: StateSpace) -> AddressSpace;

    /// Module flags and metadata that every module for this target carries, for the target
    /// machine's `processor` (`gfx90a`, `sm_80`, a CPU name).
    fn configure_module<'ctx>(&self, context: &'ctx Context, module: &Module<'ctx>, processor: &str);

    /// Parameters that every lowered function takes before its PTX parameters (the CPU target
    /// passes its launch context and the thread's index this way).
    fn hidden_parameter_types<'ctx>(&self, context: &'ctx Context) -> Vec<BasicMetadataTypeEnum<'ctx>>;

    /// Turns a lowered kernel body into what this target launches: a calling convention and
    /// attributes on the GPUs, a block-running entry for the CPU runtime.
    fn finish_kernel<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        parameters: &KernelParameters<'ctx>,
    ) -> Result<(), Unsupported>;

    /// Rewrites the verified, lowered module just before LLVM's optimisation pipeline at
    /// `-O<optimization>` runs on it (the CPU turns integer addresses into pointer offsets that
    /// the loop vectoriser can bound, `cpu_addresses.rs`).
    fn before_optimization(
        &self,
        _module: &Module<'_>,
        _machine: &TargetMachine,
        _optimization: u8,
    ) -> Result<(), String> {
        Ok(())
    }

    /// Reads a special register inside the function of `site`, as a 32- or 64-bit integer.
    fn special_register<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        register: SpecialRegister,
    ) -> Result<IntValue<'ctx>, Unsupported>;

    /// `mapa` or `getctarank`: the address in another CTA of the cluster, or the rank of the CTA
    /// an address belongs to (`ClusterQuery`).
    fn cluster_address<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        query: ClusterQuery<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported>;

    /// `cvta.shared::cluster` (`to_generic`) or `cvta.to.shared::cluster` of `address`, where
    /// the target has clusters of more than one CTA; `None` where every CTA is a cluster of one,
    /// whose `.shared::cluster` addresses are its `.shared` addresses (`cluster_of_one.rs`).
    fn convert_shared_cluster_address<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _to_generic: bool,
        _address: IntValue<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        Ok(None)
    }

    /// How texture and surface instructions are expressed: in software over ptxr texture
    /// descriptors in global memory (`ptxr_runtime::texture`), or as PTX's own instructions.
    fn textures(&self) -> TextureLowering;

    /// On a target whose textures are [`TextureLowering::InlinePtx`]: makes `global`, a
    /// module-scope `.texref` or `.surfref` variable, the target's own, so that the output
    /// declares it under its name and the instructions can name it (inline PTX binds it as a
    /// symbol). Elsewhere such a variable is a ptxr texture descriptor that lowering declares.
    fn declare_texture_reference<'ctx>(
        &self,
        _context: &'ctx Context,
        _module: &Module<'ctx>,
        _global: inkwell::values::GlobalValue<'ctx>,
        opaque: ptxr_frontend::vocabulary::OpaqueType,
    ) -> Result<(), Unsupported> {
        Err(Unsupported { what: format!("module-scope `{opaque}` variables") })
    }

    /// Whether `.shared` variables can be placed in this target's shared memory at all.
    fn supports_shared_variables(&self) -> Result<(), Unsupported> {
        Ok(())
    }

    /// Whether a block's shared memory is one window reached through `shared_window_base`
    /// (the CPU runtime allocates it per block) instead of one LLVM global per variable in the
    /// shared address space (the GPUs). In a window, a shared-space address is the offset from
    /// the window's base, as it is on the GPUs, and variables sit at `ir::SharedLayout` offsets.
    fn shared_variables_in_window(&self) -> bool {
        false
    }

    /// The base of the current block's shared-memory window (see `shared_variables_in_window`),
    /// on targets that find it themselves rather than through `shared_window_parameter_type`.
    fn shared_window_base<'ctx>(&self, _site: &Site<'_, 'ctx>) -> Result<PointerValue<'ctx>, Unsupported> {
        Err(Unsupported { what: "a shared-memory window".to_string() })
    }

    /// The type of the trailing parameter through which every function of a module with shared
    /// memory receives the block's window, after its PTX parameters, on targets where the
    /// launch hands the window to the kernel as an argument (SPIR-V: OpenCL sizes a kernel's
    /// `__local` memory with `clSetKernelArg(index, size, NULL)`). `None` where
    /// `shared_window_base` finds the window.
    fn shared_window_parameter_type<'ctx>(&self, _context: &'ctx Context) -> Option<BasicMetadataTypeEnum<'ctx>> {
        None
    }

    /// The type of the kernel argument through which the launch tells a kernel what the target
    /// cannot read on the device (SPIR-V: `ptxr_runtime::abi::opencl::launch_arguments`), or
    /// `None`. Every function of a module that needs it (`needs_launch_arguments`) takes it
    /// after its PTX parameters (and a `.func`'s stop flag), before the shared window, and
    /// `Site::launch_arguments` holds it while the function is lowered.
    fn launch_arguments_type<'ctx>(&self, _context: &'ctx Context) -> Option<VectorType<'ctx>> {
        None
    }

    /// Whether lowering `need` reads the launch arguments (`launch_arguments_type`).
    fn needs_launch_arguments(&self, _need: LaunchArgumentNeed) -> bool {
        false
    }

    /// In a kernel whose module needs [`LaunchArgumentNeed::KernelParameterWindow`]: records
    /// in the launch arguments the kernel received that its own copies of its parameters lie
    /// in `[start, start + bytes)`, and returns the launch arguments that the kernel then reads
    /// and passes on to the functions it calls.
    fn record_kernel_parameter_window<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _arguments: VectorValue<'ctx>,
        _start: PointerValue<'ctx>,
        _bytes: u64,
    ) -> Result<VectorValue<'ctx>, Unsupported> {
        Err(Unsupported { what: "a kernel parameter window in the launch arguments".to_string() })
    }

    /// Where a kernel's parameters lie when the kernel takes their addresses, on targets whose
    /// launch keeps them in memory that every thread shares and any function can recognise as
    /// the `.param` window: the state space of those addresses (generic on the CPU, whose
    /// runtime keeps one parameter block per launch, and on AMDGPU, whose kernarg segment holds
    /// them; `.param` itself on NVPTX). In a kernel, the addresses of `.param` variables are then
    /// addresses in that window (ISA 7.8 section 5.1.6.1; only kernel parameters' addresses can
    /// be taken there). `None`, and in a `.func` always: addresses of the function's own copies,
    /// which PTX places in `.local` (section 5.1.6.4).
    fn kernel_parameter_addresses(&self) -> Option<StateSpace> {
        None
    }

    /// The address of a kernel's parameter `position` in the `.param` window, in the state
    /// space that `kernel_parameter_addresses` gives, in the kernel.
    fn kernel_parameter_address<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _position: u32,
    ) -> Result<PointerValue<'ctx>, Unsupported> {
        Err(Unsupported { what: "the address of a kernel parameter in the `.param` window".to_string() })
    }

    /// `isspacep`: whether a generic address lies in the window of `state_space` (`.global`,
    /// `.shared`, `.local`, `.const` or `.param`); an `i1`. `placed` is what lowering knows of
    /// where the module's memory lies, for targets that answer by address ranges.
    fn is_in_state_space<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        address: PointerValue<'ctx>,
        state_space: StateSpace,
        placed: &PlacedMemory<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported>;

    /// `isspacep.shared::cluster`: whether a generic address lies in the shared memory of any
    /// CTA of the cluster. ptxr launches clusters of one CTA (`cluster_of_one.rs`), so by
    /// default that is the CTA's own shared window, `isspacep.shared`.
    fn is_in_cluster_shared_space<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        address: PointerValue<'ctx>,
        placed: &PlacedMemory<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        self.is_in_state_space(site, address, StateSpace::Shared, placed)
    }

    /// How `.b128` registers and 128-bit values are held: an LLVM `i128` by default; two `i64`
    /// halves on targets without 128-bit integers (SPIR-V: LLVM writes `i128` only with an
    /// extension whose capability OpenCL's SPIR-V environment refuses).
    fn wide_values(&self) -> WideValues {
        WideValues::Integer
    }

    /// Whether the `.global` and `.const` variables of an `.address_size 32` module lie below
    /// 4 GiB, so that their addresses truncate to 32 bits without loss.
    fn variables_below_4gib_for_32_bit_addresses(&self) -> bool;

    /// The LLVM `syncscope` name of a PTX memory scope, for atomics and fences.
    fn sync_scope(&self, scope: MemoryScope) -> &'static str;

    /// Whether this target's backend can build an atomic read-modify-write on `ty` (LLVM's
    /// SPIR-V backend aborts the process on some instead of reporting them).
    fn supports_atomic(
        &self,
        _operation: atomics::ReadModifyWrite,
        _ty: ptxr_frontend::vocabulary::ScalarType,
    ) -> Result<(), Unsupported> {
        Ok(())
    }

    /// Whether `operation` on `ty` is built as a loop of compare-and-swaps because the back end
    /// has no instruction for it: `atomics::read_modify_write_by_compare_and_swap` for integers,
    /// a loop on the containing 32-bit word for 16-bit and packed float adds (lowering's
    /// `half::add_by_compare_and_swap`).
    fn atomic_by_compare_and_swap(
        &self,
        _operation: atomics::ReadModifyWrite,
        _ty: ptxr_frontend::vocabulary::ScalarType,
    ) -> bool {
        false
    }

    /// `atom.cas.b128` or `atom.exch.b128` on the 16-byte word at `pointer`; returns the value it
    /// held. By default LLVM's `i128` atomics, which the back end must select without a library
    /// call.
    fn wide_atomic<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        pointer: PointerValue<'ctx>,
        update: atomics::WideUpdate<'ctx>,
        ordering: MemoryOrdering,
        scope: &str,
    ) -> Result<BasicValueEnum<'ctx>, Unsupported> {
        atomics::wide_update(site, pointer, update, ordering, scope)
    }

    /// Whether 16-bit atomics (`atom.cas.b16`) are built as compare-and-swap loops on the
    /// containing 32-bit word, for back ends whose platform has no 16-bit atomics.
    fn sixteen_bit_atomics_by_word(&self) -> bool {
        false
    }

    /// A block-level barrier; returns the reduction's result for `bar.red` (i32 for `.popc`,
    /// i1 for `.and`/`.or`).
    fn barrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        barrier: &Barrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported>;

    /// An `mbarrier` instruction (ISA 7.8 section 9.7.12.13); returns its result as
    /// [`mbarrier::Mbarrier`] describes it.
    fn mbarrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        operation: &mbarrier::Mbarrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported>;

    /// The target's own approximation of a `.approx` function (`sin`, `cos`, `lg2`, `ex2`,
    /// `rsqrt`) of `value` (f32 or f64), flushing subnormals when `flush_subnormals`; `None` to use
    /// LLVM's generic intrinsic, which every target but NVPTX lowers itself.
    fn approximate_function<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        function: ptxr_frontend::ir::FloatUnaryOperation,
        flush_subnormals: bool,
        value: inkwell::values::FloatValue<'ctx>,
    ) -> Result<Option<inkwell::values::FloatValue<'ctx>>, Unsupported>;

    /// `min`/`max` on `.f32` (`.NaN` when `propagate_nan`) as the target's own instruction with
    /// PTX's rules (-0.0 below +0.0, canonical NaN results); `None` to compute them on the bits
    /// in lowering, as every target but NVPTX does.
    fn float_minimum_maximum<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _a: inkwell::values::FloatValue<'ctx>,
        _b: inkwell::values::FloatValue<'ctx>,
        _minimum: bool,
        _propagate_nan: bool,
    ) -> Result<Option<inkwell::values::FloatValue<'ctx>>, Unsupported> {
        Ok(None)
    }

    /// Called before any function is declared, for a module that can trap (`trap` or a call of
    /// `__assertfail`): module-level state that stopping needs is made here, ahead of the
    /// module's functions.
    fn prepare_for_traps<'ctx>(&self, _context: &'ctx Context, _module: &Module<'ctx>) -> Result<(), Unsupported> {
        Ok(())
    }

    /// Called before any function is declared, with every special register the module's
    /// functions read: module-level state that reading them needs is made here, ahead of the
    /// module's functions (SPIR-V's clock calibration kernel for `%globaltimer`).
    fn prepare_for_special_registers<'ctx>(
        &self,
        _context: &'ctx Context,
        _module: &Module<'ctx>,
        _registers: &std::collections::BTreeSet<SpecialRegister>,
    ) -> Result<(), Unsupported> {
        Ok(())
    }

    /// Called on the optimised module just before code generation: rewrites that work around
    /// the target's code generator and that LLVM's optimisation pipeline would undo if they ran
    /// earlier.
    fn prepare_for_code_generation(&self, _module: &Module<'_>) -> Result<(), Unsupported> {
        Ok(())
    }

    /// `trap`: stops the kernel with an error. Lowering leaves the function after it.
    fn trap<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported>;

    /// Whether the thread has been stopped (`trap` or a failed assertion) inside a function it
    /// called, as an `i1`, checked after calls of functions that may stop it; `None` where
    /// stopping never returns to the caller (the GPUs abort the kernel).
    fn stopped<'ctx>(&self, _site: &Site<'_, 'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        Ok(None)
    }

    /// `exit` inside a `.func`: marks the thread as leaving, so that [`Target::stopped`] is true
    /// for its callers (or, as on NVPTX, ends the thread); lowering then returns. By default the
    /// target does nothing and the function only returns.
    fn exit_thread<'ctx>(&self, _site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        Ok(())
    }

    /// Whether a thread that stops inside a `.func` (`exit`, or `trap` and `__assertfail` where
    /// they return) comes back to its callers with nothing of the target's own to tell them so.
    /// Lowering then keeps a per-thread stop flag: kernels allocate it, every `.func` receives
    /// its address, stopping sets it, and every call of a function that may stop tests it and
    /// returns, up to the kernel, where the thread ends (`lowering/src/instructions/call.rs`).
    fn needs_stop_flag(&self) -> bool {
        false
    }

    /// In a kernel body, after a call that may exit the thread: whether it did (an `i1`),
    /// taking the mark that [`Target::exit_thread`] left; `None` where nothing marks it.
    fn thread_exited<'ctx>(&self, _site: &Site<'_, 'ctx>) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        Ok(None)
    }

    /// What a function's address is, and so how an indirect call finds its callee.
    fn function_addresses(&self) -> FunctionAddresses {
        FunctionAddresses::Pointers
    }

    /// Stops the kernel with an error of ptxr's own lowering (`reason`), as `trap` does but with
    /// its own message where the target can give one. Lowering leaves the function after it.
    fn stop_for<'ctx>(&self, site: &Site<'_, 'ctx>, _reason: StopReason) -> Result<(), Unsupported> {
        self.trap(site)
    }

    /// Whether counted barriers (`bar.sync a, b`, `bar.red` with a count) whose count is the
    /// block's thread count should be the block's hardware barrier: lowering then checks the
    /// count at run time and lowers the barrier without it when it is the block's. Otherwise a
    /// `bar.red` stops ([`StopReason::CountedBarrierOfPartOfTheBlock`]) and a `bar.sync` keeps its
    /// count (the target's software barrier); in a module with `bar.arrive`, whose arrivals only
    /// the software barrier counts, every counted `bar.sync` keeps its count. SPIR-V: OpenCL's
    /// barrier is exact and needs no forward progress between work-items, while the software
    /// barrier does (W0904), and OpenCL's work-group reductions take every work-item.
    fn counted_barriers_of_the_whole_block_are_block_barriers(&self) -> bool {
        false
    }

    /// A call of CUDA's device library (see `device_function.rs`).
    fn device_function<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        call: &DeviceFunctionCall<'ctx>,
    ) -> Result<DeviceFunctionLowering<'ctx>, Unsupported>;

    /// Whether the back end moves the stack pointer at run time, for `alloca`, `stacksave` and
    /// `stackrestore`.
    fn dynamic_stack(&self) -> Result<(), Unsupported> {
        Ok(())
    }

    /// How the stack of a thread's `alloca`s is bounded ([`StackBound`]).
    fn stack_bound(&self) -> StackBound {
        StackBound::Unchecked
    }

    /// Where [`StackBound::PrivateArray`], for each kernel whose module uses the stack
    /// instructions, in its prologue: what the kernel needs for the private stack to work.
    fn prepare_private_stack<'ctx>(&self, _site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        Ok(())
    }

    /// Where [`StackBound::Floor`]: the lowest address the running thread's `alloca`s may
    /// reach, as an integer of the stack pointer's width.
    fn stack_floor<'ctx>(&self, _site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        Err(Unsupported { what: "a bound on the stack".into() })
    }

    /// `brkpt`, `pmevent`, `discard`, `applypriority`, `griddepcontrol` (`hint`), with the
    /// generic pointer of `discard`'s and `applypriority`'s line. None of them changes a value
    /// the program reads, so targets without a debugger, profiler, L2 controls or programmatic
    /// dependent launches lower them as nothing (docs/TARGETS.md says why each is exact).
    fn hint<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _hint: &ptxr_frontend::ir::Hint,
        _line: Option<PointerValue<'ctx>>,
    ) -> Result<(), Unsupported> {
        Ok(())
    }

    /// A bulk copy, tensor copy, bulk async-group or tensor-map instruction as the target's own
    /// instruction: `text` is its PTX with `$0`, `$1`, ... for `arguments` (integers: values,
    /// and addresses as integers of their state space). A target with the tensor memory
    /// accelerator writes it and returns true (NVPTX, as inline PTX); the others return false,
    /// and lowering performs the operation itself, synchronously.
    fn native_bulk_copy<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _text: &str,
        _arguments: &[inkwell::values::BasicMetadataValueEnum<'ctx>],
    ) -> Result<bool, Unsupported> {
        Ok(false)
    }

    /// `nanosleep`: suspends the thread for up to `nanoseconds` (i32), at most a millisecond.
    fn sleep<'ctx>(&self, site: &Site<'_, 'ctx>, nanoseconds: IntValue<'ctx>) -> Result<(), Unsupported>;

    /// A warp collective with PTX's 32-lane warps.
    fn warp_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &WarpCollective<'ctx>,
    ) -> Result<CollectiveResult<'ctx>, Unsupported>;

    /// How `mma.sync` and `ldmatrix.sync` are computed on this target: through
    /// [`Target::matrix_collective`], or by lowering from shuffles through
    /// [`Target::warp_collective`].
    fn matrix_lowering(&self) -> MatrixLowering {
        MatrixLowering::Collective
    }

    /// A warp collective over matrix fragments (`mma.sync`, `ldmatrix.sync`) on targets whose
    /// [`Target::matrix_lowering`] is `Collective`; the CPU's runtime and NVPTX's intrinsics
    /// compute them.
    fn matrix_collective<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _collective: &MatrixCollective<'ctx>,
    ) -> Result<(), Unsupported> {
        Err(Unsupported { what: "warp-level matrix instructions".to_string() })
    }

    /// Whether this target has `mma.sp` of its own ([`MatrixCollective::SparseMultiplyAccumulate`]);
    /// elsewhere lowering rebuilds the lane's dense A from the warp's non-zero elements and
    /// metadata by shuffles and computes the dense `mma`.
    fn native_sparse_matrix(&self) -> bool {
        false
    }

    /// Whether this target has `wmma` instructions of its own ([`Target::warp_matrix_collective`]);
    /// elsewhere lowering builds `wmma` from `mma` tiles and the lanes' own loads and stores.
    fn native_warp_matrix(&self) -> bool {
        false
    }

    /// Whether this target has `wgmma` instructions of its own on `processor` (`sm_90a`)
    /// ([`Target::warp_group_collective`]); elsewhere lowering computes `wgmma.mma_async` from
    /// warp shuffles and shared-memory loads at its issue.
    fn native_warp_group_matrix(&self, _processor: &str) -> bool {
        false
    }

    /// A `wgmma` instruction where [`Target::native_warp_group_matrix`] is true: D's registers
    /// after a `wgmma.mma_async` (none for the others).
    fn warp_group_collective<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _collective: &WarpGroupCollective<'ctx>,
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
        Err(Unsupported { what: "`wgmma` instructions of the target's own".to_string() })
    }

    /// A `wmma` instruction on a target whose [`Target::native_warp_matrix`] is true: the
    /// registers it writes (none for a store).
    fn warp_matrix_collective<'ctx>(
        &self,
        _site: &Site<'_, 'ctx>,
        _collective: &WarpMatrixCollective<'ctx>,
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
        Err(Unsupported { what: "`wmma` instructions of the target's own".to_string() })
    }

    /// The calling convention of device functions (`.func`) on this target.
    fn function_calling_convention(&self) -> u32 {
        0
    }

    /// A bidirectional proxy fence (`fence.proxy.alias`, `fence.proxy.async{.space}`). Where
    /// memory has one proxy, as on every target but NVPTX (no virtual aliases of a location;
    /// no async-proxy operation, `wgmma`, TMA or bulk copies, is lowered), ordering the
    /// thread's accesses is all it asks: an acquire-release fence at CTA scope, which is more.
    /// NVPTX emits PTX's own fence.
    fn proxy_fence<'ctx>(&self, site: &Site<'_, 'ctx>, _proxy: ProxyKind) -> Result<(), Unsupported> {
        crate::atomics::fence(site, MemoryOrdering::AcquireRelease, self.sync_scope(MemoryScope::Cta))
    }

    /// Whether `mbarrier` waits can hang when a thread waits for an arrival that a thread of
    /// its own wave makes later in divergent code: the GPUs without independent thread
    /// scheduling. Lowering then warns (W0903). Only AMDGPU says yes.
    fn mbarrier_waits_may_hang(&self) -> bool {
        false
    }

    /// Whether the work-items of a block may never let each other run while one of them polls
    /// memory for another's progress: OpenCL promises no forward progress within a work-group
    /// (Intel's CPU runtime runs work-items one after another between barriers), so `mbarrier`
    /// waits in a loop, and the software barriers where the target has them, can hang. Lowering
    /// then warns (W0904). Only SPIR-V says yes.
    fn polling_waits_may_hang(&self) -> bool {
        false
    }

    /// Whether every lowered `.func` is `convergent` (`declare::mark_convergent`), so that the
    /// optimiser keeps the calls of a function that may wait at a barrier where PTX has them
    /// (clang marks GPU functions so). The GPU targets say yes; the CPU's threads are coroutines
    /// that meet at barriers whatever path they took.
    fn functions_are_convergent(&self) -> bool {
        true
    }

    /// Whether a kernel takes its aggregate (byte array) parameters by reference, as a
    /// `byval` pointer to their bytes, rather than as LLVM array values. SPIR-V says yes:
    /// OpenCL passes a by-value struct kernel argument so (as clang lowers OpenCL C's), and
    /// Intel's OpenCL compiler crashes on an array-typed kernel argument.
    fn kernel_aggregates_by_reference(&self) -> bool {
        false
    }

    /// Whether a `.visible`/`.weak` `.func` keeps external linkage: false where the artefact is
    /// never linked with another module, so that such a function is the module's own.
    fn functions_visible_outside_the_module(&self) -> bool {
        true
    }

    /// Whether counted barriers (`bar.arrive`, `bar.sync a, b`) can hang on `processor` with
    /// LLVM's target `features`: where they are software barriers and two PTX warps share one
    /// hardware wave, warps of one wave sent to different counted barriers wait for each other
    /// forever. Lowering then warns (W0902). Only wave64 AMDGPU processors say yes.
    fn counted_barriers_may_hang(&self, _processor: &str, _features: &str) -> bool {
        false
    }

    /// Whether `processor` has no instruction that reads a register of another lane by a
    /// lane number computed at run time, which warp shuffles need. Lowering then reports the
    /// instructions built from them as E0901 before LLVM could fail to select them. Only AMD
    /// processors before gfx8 (no `ds_bpermute`) say yes.
    fn lacks_lane_permute(&self, _processor: &str) -> bool {
        false
    }

    /// Whether `processor` has no flat (generic) address space, so that generic accesses left
    /// after optimisation cannot be selected; the pipeline then reports them as E0901. Only
    /// AMD's gfx6 processors say yes.
    fn lacks_flat_addresses(&self, _processor: &str) -> bool {
        false
    }
}

/// The one table from target kind to implementation.
pub fn for_kind(kind: TargetKind) -> Box<dyn Target> {
    match kind {
        TargetKind::Cpu => Box::new(cpu::Cpu),
        TargetKind::Nvptx => Box::new(nvptx::Nvptx),
        TargetKind::Amdgpu => Box::new(amdgpu::Amdgpu),
        TargetKind::Spirv => Box::new(spirv::Spirv),
    }
}

/// Looks up or declares a function by name; intrinsics and runtime helpers are declared lazily.
pub fn function_or_declare<'ctx>(
    module: &Module<'ctx>,
    name: &str,
    make_type: impl FnOnce() -> inkwell::types::FunctionType<'ctx>,
) -> FunctionValue<'ctx> {
    module.get_function(name).unwrap_or_else(|| module.add_function(name, make_type(), None))
}
