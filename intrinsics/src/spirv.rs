//! SPIR-V for the OpenCL environment (`spirv64`): OpenCL address spaces, and special registers
//! through the OpenCL work-item builtins (`get_local_id` and friends, by their Itanium-mangled
//! names), which LLVM's SPIR-V backend turns into SPIR-V `BuiltIn` variables.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::IntValue;
use inkwell::AddressSpace;
use ptxr_frontend::vocabulary::{SpecialRegister, StateSpace};

use crate::declare::to_i32;
use crate::spirv_subgroup;
use ptxr_frontend::ir::{BarrierOperation, MemoryScope};

use crate::atomics::ReadModifyWrite;
use crate::{
    function_or_declare, Barrier, CollectiveResult, KernelParameters, Site, Target, TargetKind, TextureLowering,
    Unsupported, WarpCollective,
};

/// `CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE` of OpenCL C.
const LOCAL_AND_GLOBAL_MEMORY_FENCE: u64 = 0x1 | 0x2;

/// LLVM's `spir_kernel` and `spir_func` calling conventions.
const SPIR_KERNEL: u32 = 76;
pub(crate) const SPIR_FUNC: u32 = 75;

/// Whether an OpenCL builtin is one that a whole work-group reaches together (`barrier`, the
/// `work_group_*` functions), which must be `convergent`.
fn is_collective(mangled_name: &str) -> bool {
    mangled_name == "_Z7barrierj" || mangled_name.contains("work_group_")
}

pub struct Spirv;

impl Spirv {
    /// Calls the OpenCL builtin `mangled_name` of type `function_type` (declared on first use).
    fn call_builtin<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        mangled_name: &str,
        function_type: inkwell::types::FunctionType<'ctx>,
        arguments: &[inkwell::values::BasicMetadataValueEnum<'ctx>],
    ) -> Result<Option<inkwell::values::BasicValueEnum<'ctx>>, Unsupported> {
        let builtin = function_or_declare(site.module, mangled_name, || function_type);
        builtin.set_call_conventions(SPIR_FUNC);
        if is_collective(mangled_name) {
            crate::declare::mark_convergent(builtin);
        }
        let call = site
            .builder
            .build_call(builtin, arguments, "")
            .map_err(|error| Unsupported { what: format!("a call to {mangled_name} ({error})") })?;
        call.set_call_convention(SPIR_FUNC);
        Ok(call.try_as_basic_value().basic())
    }

    /// `get_local_id(dimension)`, truncated to 32 bits.
    pub(crate) fn local_id<'ctx>(&self, site: &Site<'_, 'ctx>, dimension: u32) -> Result<IntValue<'ctx>, Unsupported> {
        self.work_item_builtin(site, "_Z12get_local_idj", dimension)
    }

    /// OpenCL's barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE): execution and both
    /// memories, as `bar.sync` orders shared and global accesses of the block.
    pub(crate) fn work_group_barrier(&self, site: &Site<'_, '_>) -> Result<(), Unsupported> {
        let i32_type = site.context.i32_type();
        let fence = i32_type.const_int(LOCAL_AND_GLOBAL_MEMORY_FENCE, false);
        self.call_builtin(
            site,
            "_Z7barrierj",
            site.context.void_type().fn_type(&[i32_type.into()], false),
            &[fence.into()],
        )?;
        Ok(())
    }

    /// Calls `size_t NAME(uint dimension)` and truncates the result to 32 bits.
    fn work_item_builtin<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        mangled_name: &str,
        dimension: u32,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let i32_type = site.context.i32_type();
        let function_type = site.context.i64_type().fn_type(&[i32_type.into()], false);
        let dimension = i32_type.const_int(u64::from(dimension), false);
        let value = self
            .call_builtin(site, mangled_name, function_type, &[dimension.into()])?
            .ok_or_else(|| Unsupported { what: mangled_name.to_string() })?;
        to_i32(site, value.into_int_value())
    }
}

impl Target for Spirv {
    /// Texture descriptors in global memory, read by lowering's generated code.
    fn textures(&self) -> TextureLowering {
        TextureLowering::Software
    }

    fn kernel_aggregates_by_reference(&self) -> bool {
        true
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Spirv
    }

    fn address_space(&self, state_space: StateSpace) -> AddressSpace {
        // Function 0, CrossWorkgroup 1, UniformConstant 2, Workgroup 3, Generic 4. `.const`
        // variables are CrossWorkgroup (read-only) globals: OpenCL's constant space cannot be
        // cast to or from the generic one, which `cvta.const` and generic loads of `.const`
        // data need, while CrossWorkgroup can.
        let number: u16 = match state_space {
            StateSpace::Global | StateSpace::Const => 1,
            StateSpace::Shared => 3,
            StateSpace::Generic => 4,
            StateSpace::Local | StateSpace::Param | StateSpace::Reg | StateSpace::SpecialReg | StateSpace::Tex => 0,
        };
        AddressSpace::from(number)
    }

    fn configure_module<'ctx>(&self, _context: &'ctx Context, _module: &Module<'ctx>, _processor: &str) {}

    fn hidden_parameter_types<'ctx>(&self, _context: &'ctx Context) -> Vec<BasicMetadataTypeEnum<'ctx>> {
        Vec::new()
    }

    fn finish_kernel<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        parameters: &KernelParameters<'ctx>,
    ) -> Result<(), Unsupported> {
        site.function.set_call_conventions(SPIR_KERNEL);
        if parameters.counted_barriers {
            crate::spirv_barrier::reset_counted_barriers(site, self)?;
        }
        // Where there are sub-groups, they are PTX's warps of 32, for collectives and %laneid alike.
        if spirv_subgroup::available(site) {
            spirv_subgroup::require_warp_size(site, site.function);
        }
        Ok(())
    }

    fn is_in_state_space<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        address: inkwell::values::PointerValue<'ctx>,
        state_space: StateSpace,
        placed: &crate::PlacedMemory<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        // By the ranges of what ptxr placed or the launch told it (`spirv_state_spaces.rs`).
        crate::spirv_state_spaces::is_in_state_space(site, address, state_space, placed, self)
    }

    fn variables_below_4gib_for_32_bit_addresses(&self) -> bool {
        false
    }

    fn wide_values(&self) -> crate::WideValues {
        // LLVM writes `i128` only with SPV_ALTERA_arbitrary_precision_integers, whose capability
        // `spirv-val --target-env opencl2.2` refuses.
        crate::WideValues::Halves
    }

    fn sync_scope(&self, scope: MemoryScope) -> &'static str {
        match scope {
            MemoryScope::Cta => "workgroup",
            MemoryScope::Cluster | MemoryScope::Gpu | MemoryScope::System => "device",
        }
    }

    fn shared_variables_in_window(&self) -> bool {
        // OpenCL sizes local memory only through kernel arguments (`clSetKernelArg(.., size,
        // NULL)`), so the launch's dynamic shared memory cannot be a global; one window holding
        // the static variables and then the dynamic part, as on the CPU, also makes shared
        // addresses 32-bit offsets, as PTX has them.
        true
    }

    fn shared_window_parameter_type<'ctx>(&self, context: &'ctx Context) -> Option<BasicMetadataTypeEnum<'ctx>> {
        Some(context.ptr_type(self.address_space(StateSpace::Shared)).into())
    }

    fn prepare_for_special_registers<'ctx>(
        &self,
        context: &'ctx Context,
        module: &Module<'ctx>,
        registers: &std::collections::BTreeSet<SpecialRegister>,
    ) -> Result<(), Unsupported> {
        let reads_timer = registers.iter().any(|register| {
            matches!(
                register,
                SpecialRegister::GlobalTimer | SpecialRegister::GlobalTimerLow | SpecialRegister::GlobalTimerHigh
            )
        });
        if reads_timer {
            crate::spirv_launch_arguments::add_clock_calibration_kernel(context, module)?;
        }
        Ok(())
    }

    fn launch_arguments_type<'ctx>(&self, context: &'ctx Context) -> Option<inkwell::types::VectorType<'ctx>> {
        Some(crate::spirv_launch_arguments::vector_type(context))
    }

    fn needs_launch_arguments(&self, need: crate::LaunchArgumentNeed) -> bool {
        crate::spirv_launch_arguments::needed_for(need)
    }

    fn record_kernel_parameter_window<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        arguments: inkwell::values::VectorValue<'ctx>,
        start: inkwell::values::PointerValue<'ctx>,
        bytes: u64,
    ) -> Result<inkwell::values::VectorValue<'ctx>, Unsupported> {
        crate::spirv_launch_arguments::record_kernel_parameter_window(site, arguments, start, bytes)
    }

    fn atomic_by_compare_and_swap(
        &self,
        operation: ReadModifyWrite,
        ty: ptxr_frontend::vocabulary::ScalarType,
    ) -> bool {
        use ptxr_frontend::vocabulary::ScalarType;
        match operation {
            // SPIR-V has OpAtomicIIncrement/IDecrement, which do not wrap at a bound.
            ReadModifyWrite::IncrementWrap | ReadModifyWrite::DecrementWrap => true,
            // SPV_EXT_shader_atomic_float_add covers f32 and f64; packed and 16-bit floats need
            // extensions (SPV_NV_shader_atomic_fp16_vector, SPV_KHR_bfloat16) OpenCL lacks, and
            // OpenCL has no 16-bit atomics: they are swapped in as part of a 32-bit word.
            ReadModifyWrite::FloatAdd => !matches!(ty, ScalarType::F32 | ScalarType::F64),
            _ => false,
        }
    }

    fn wide_atomic<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        pointer: inkwell::values::PointerValue<'ctx>,
        update: crate::atomics::WideUpdate<'ctx>,
        ordering: ptxr_frontend::ir::MemoryOrdering,
        _scope: &str,
    ) -> Result<inkwell::values::BasicValueEnum<'ctx>, Unsupported> {
        // OpenCL has no 16-byte atomic: a lock word in global memory, which work-items of every
        // work-group may share (the table is indexed by address), so it is taken and given back
        // at device scope whatever the instruction's scope; no inline assembly in OpenCL's
        // SPIR-V, so the loop's exit test goes through a volatile slot.
        let placement = crate::wide_atomic_lock::LockPlacement {
            table_space: self.address_space(StateSpace::Global),
            generic_space: self.address_space(StateSpace::Generic),
            exit_test: crate::wide_atomic_lock::ExitTest::VolatileSlot,
        };
        let device = self.sync_scope(MemoryScope::Gpu);
        crate::wide_atomic_lock::update_under_lock(site, pointer, update, ordering, device, placement)
    }

    fn sixteen_bit_atomics_by_word(&self) -> bool {
        // OpenCL has no 16-bit atomics: Intel's runtime fails to build a module with a 16-bit
        // OpAtomicCompareExchange (no `atomic_compare_exchange_strong_explicit` on `short`).
        true
    }

    fn mbarrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        operation: &crate::mbarrier::Mbarrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        crate::spirv_mbarrier::lower(site, operation)
    }

    fn barrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        barrier: &Barrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        match (barrier.operation, barrier.thread_count) {
            (BarrierOperation::Arrive, None) => {
                return Err(Unsupported { what: "`bar.arrive` without a thread count".into() });
            }
            (BarrierOperation::Arrive, Some(count)) => {
                crate::spirv_barrier::counted(site, self, barrier.barrier, count, false)?;
                return Ok(None);
            }
            (BarrierOperation::Sync, Some(count)) => {
                crate::spirv_barrier::counted(site, self, barrier.barrier, count, true)?;
                return Ok(None);
            }
            (_, Some(_)) => {
                // Lowering checks a reduction's count against the block's before it gets here
                // and passes none.
                return Err(Unsupported {
                    what: "`bar.red` with a thread count of part of the block (OpenCL's work-group reductions take every work-item)".into(),
                });
            }
            (_, None) => {}
        }
        self.work_group_barrier(site)?;
        let i32_type = site.context.i32_type();
        // `bar.red` is that barrier, then a reduction over the work-group: OpenCL 2.0's
        // work-group functions (SPIR-V OpGroupAll, OpGroupAny, OpGroupIAdd at Workgroup scope),
        // which every work-item of the group reaches together, as PTX requires of `bar.red`.
        let (name, result_type) = match barrier.operation {
            BarrierOperation::Sync | BarrierOperation::Arrive => return Ok(None),
            BarrierOperation::ReduceAnd => ("_Z14work_group_alli", Some(site.context.bool_type())),
            BarrierOperation::ReduceOr => ("_Z14work_group_anyi", Some(site.context.bool_type())),
            BarrierOperation::ReducePopulationCount => ("_Z21work_group_reduce_addj", None),
        };
        let predicate =
            barrier.predicate.ok_or_else(|| Unsupported { what: "`bar.red` without its predicate".to_string() })?;
        let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("{name} ({error})") };
        let argument = site.builder.build_int_z_extend(predicate, i32_type, "").map_err(failed)?;
        let reduced = self
            .call_builtin(site, name, i32_type.fn_type(&[i32_type.into()], false), &[argument.into()])?
            .ok_or_else(|| Unsupported { what: format!("the result of {name}") })?
            .into_int_value();
        Ok(Some(match result_type {
            // work_group_all/any give a non-zero int for true.
            Some(_) => site
                .builder
                .build_int_compare(inkwell::IntPredicate::NE, reduced, i32_type.const_zero(), "")
                .map_err(failed)?,
            None => reduced,
        }))
    }

    fn approximate_function<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        function: ptxr_frontend::ir::FloatUnaryOperation,
        _flush_subnormals: bool,
        value: inkwell::values::FloatValue<'ctx>,
    ) -> Result<Option<inkwell::values::FloatValue<'ctx>>, Unsupported> {
        use ptxr_frontend::ir::FloatUnaryOperation as Function;
        // OpenCL's single-precision sin, cos, log2 and exp2 may be 3 or 4 ulp off (Intel's
        // sin(pi/2) is 0x3f7fffff); the double-precision ones rounded to float are what NVIDIA's
        // approximations give on the values that matter (exact results stay exact).
        let name = match function {
            Function::Sine => "llvm.sin",
            Function::Cosine => "llvm.cos",
            Function::Log2 => "llvm.log2",
            Function::Exp2 => "llvm.exp2",
            _ => return Ok(None),
        };
        if value.get_type().get_bit_width() != 32 {
            return Ok(None);
        }
        let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("{name} ({error})") };
        let double = site.context.f64_type();
        let wide = site.builder.build_float_ext(value, double, "").map_err(failed)?;
        let result = crate::declare::call_intrinsic(site, name, &[double.into()], &[wide.into()])?.into_float_value();
        Ok(Some(site.builder.build_float_trunc(result, value.get_type(), "").map_err(failed)?))
    }

    fn device_function<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        call: &crate::DeviceFunctionCall<'ctx>,
    ) -> Result<crate::DeviceFunctionLowering<'ctx>, Unsupported> {
        if call.function == crate::DeviceFunction::AssertFail {
            // Stops the work-item as `trap` does; the message's strings stay on the device.
            crate::spirv_trap::stop(site, ptxr_runtime::abi::opencl::STOPPED_BY_ASSERTION)?;
            return Ok(crate::DeviceFunctionLowering::Lowered(None));
        }
        if call.function == crate::DeviceFunction::Printf {
            return crate::spirv_printf::call(site, call)
                .map(|count| crate::DeviceFunctionLowering::Lowered(Some(count)));
        }
        // OpenCL has no device heap: the module brings its own.
        crate::device_heap::call(site, call, self)
    }

    fn function_addresses(&self) -> crate::FunctionAddresses {
        // Calls through pointers need SPV_INTEL_function_pointers, which OpenCL runtimes lack
        // and whose LLVM 22 output spirv-val rejects (a use of each function before its
        // definition).
        crate::FunctionAddresses::Identifiers
    }

    fn stop_for<'ctx>(&self, site: &Site<'_, 'ctx>, reason: crate::StopReason) -> Result<(), Unsupported> {
        use ptxr_runtime::abi::opencl;
        let flag = match reason {
            crate::StopReason::CallOfNoFunction => opencl::STOPPED_BY_CALL_OF_NO_FUNCTION,
            crate::StopReason::CountedBarrierOfPartOfTheBlock => {
                opencl::STOPPED_BY_COUNTED_BARRIER_OF_PART_OF_THE_BLOCK
            }
            crate::StopReason::StackOverflow => opencl::STOPPED_BY_STACK_OVERFLOW,
        };
        crate::spirv_trap::stop(site, flag)
    }

    fn polling_waits_may_hang(&self) -> bool {
        true
    }

    fn counted_barriers_of_the_whole_block_are_block_barriers(&self) -> bool {
        true
    }

    fn prepare_for_traps<'ctx>(
        &self,
        context: &'ctx inkwell::context::Context,
        module: &inkwell::module::Module<'ctx>,
    ) -> Result<(), Unsupported> {
        // The status kernel first: LLVM 22's SPIR-V back end stops with "printf uses a format
        // string not in constant address space" when it follows a kernel that calls `printf`.
        crate::spirv_trap::flag(context, module).map(|_| ())
    }

    fn prepare_for_code_generation(&self, module: &Module<'_>) -> Result<(), Unsupported> {
        // LLVM 22's back end drops the atomicity of atomic loads and stores, mistranslates
        // atomics on constant-expression addresses (the rewritten loads and stores among them),
        // and reversals of integers narrower than 8 bits.
        crate::spirv_atomic_loads_stores::atomic_loads_and_stores_as_read_modify_writes(module)?;
        crate::spirv_bit_reverse::widen_narrow_bit_reversals(module);
        crate::spirv_atomic_addresses::materialize_atomic_addresses(module)
    }

    fn dynamic_stack(&self) -> Result<(), Unsupported> {
        // Lowering's own stack in a private array (`stack_bound`): a run-time-sized LLVM
        // alloca would need SPV_INTEL_variable_length_array, and Intel's CPU runtime gives
        // such arrays no memory of their own after a barrier, nor frees them between work-items.
        Ok(())
    }

    fn prepare_private_stack<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        // Intel's OpenCL CPU compiler runs a kernel's work-items as lanes of vectors, and there
        // the private stack comes out wrong (allocations that fit are reported as overflowing,
        // a vectorised miscompilation of its integer addresses); with sub-groups of one
        // work-item it runs each alone. Warps need sub-groups of 32.
        if spirv_subgroup::available(site) {
            return Err(Unsupported {
                what: "`alloca`, `stacksave` and `stackrestore` in a module with sub-groups of 32 (warp collectives or warp registers): Intel's OpenCL CPU compiler miscompiles the private stack they need in vectorised work-items".into(),
            });
        }
        spirv_subgroup::require_sub_group_size(site, site.function, 1);
        Ok(())
    }

    fn stack_bound(&self) -> crate::StackBound {
        // OpenCL says nothing of a work-item's stack: each gets a private array of fixed size.
        crate::StackBound::PrivateArray(ptxr_runtime::abi::opencl::STACK_BYTES_PER_WORK_ITEM)
    }

    fn trap<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        crate::spirv_trap::stop(site, ptxr_runtime::abi::opencl::STOPPED_BY_TRAP)
    }

    fn needs_stop_flag(&self) -> bool {
        // OpenCL has no way to end a work-item from a function: `exit`, `trap` and
        // `__assertfail` return from it.
        true
    }

    fn sleep<'ctx>(&self, _site: &Site<'_, 'ctx>, _nanoseconds: IntValue<'ctx>) -> Result<(), Unsupported> {
        // OpenCL has neither a sleep nor a clock to wait on. The ISA guarantees only a duration
        // in [0, 2t] (section 9.7.18.2, `nanosleep`), so not sleeping at all is a valid sleep;
        // code that sleeps to back off in a spin loop still makes progress.
        Ok(())
    }

    fn matrix_lowering(&self) -> crate::MatrixLowering {
        // No instructions for PTX's fragments, but shuffles over 32-lane warps.
        crate::MatrixLowering::Shuffles
    }

    fn warp_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &WarpCollective<'ctx>,
    ) -> Result<CollectiveResult<'ctx>, Unsupported> {
        if !spirv_subgroup::available(site) {
            return Err(spirv_subgroup::needs_newer_version("warp collectives"));
        }
        spirv_subgroup::warp_collective(site, collective)
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
        match register {
            SpecialRegister::LaneMask(relation) => {
                let lane = self.special_register(site, SpecialRegister::LaneId).map_err(|unsupported| Unsupported {
                    what: format!("special register {register}, which needs %laneid ({})", unsupported.what),
                })?;
                crate::lane_mask::from_lane(site, relation, lane)
            }
            SpecialRegister::ThreadId(dimension) => {
                self.work_item_builtin(site, "_Z12get_local_idj", dimension.index())
            }
            SpecialRegister::ThreadCount(dimension) => {
                self.work_item_builtin(site, "_Z14get_local_sizej", dimension.index())
            }
            SpecialRegister::CtaId(dimension) => self.work_item_builtin(site, "_Z12get_group_idj", dimension.index()),
            SpecialRegister::CtaCount(dimension) => {
                self.work_item_builtin(site, "_Z14get_num_groupsj", dimension.index())
            }
            SpecialRegister::LaneId | SpecialRegister::WarpId | SpecialRegister::WarpCount
                if !spirv_subgroup::available(site) =>
            {
                Err(spirv_subgroup::needs_newer_version(&format!("special register {register}")))
            }
            SpecialRegister::LaneId => spirv_subgroup::lane_id(site),
            SpecialRegister::WarpId => spirv_subgroup::warp_id(site),
            SpecialRegister::WarpCount => spirv_subgroup::warp_count(site),
            // The device clock in nanoseconds, as the host calibrated it (`spirv_launch_arguments.rs`).
            SpecialRegister::GlobalTimer => crate::spirv_launch_arguments::global_timer(site),
            SpecialRegister::GlobalTimerLow | SpecialRegister::GlobalTimerHigh => {
                crate::global_timer::half(site, register, crate::spirv_launch_arguments::global_timer(site)?)
            }
            // OpenCL's device clock (`spirv_clock.rs` says why as an imported call).
            SpecialRegister::Clock64 => crate::spirv_clock::read(site),
            SpecialRegister::ClockHigh => crate::global_timer::half(site, register, crate::spirv_clock::read(site)?),
            SpecialRegister::Clock => {
                let clock = crate::spirv_clock::read(site)?;
                site.builder
                    .build_int_truncate(clock, site.context.i32_type(), "clock")
                    .map_err(|error| Unsupported { what: format!("special register {register} ({error})") })
            }
            // OpenCL names no compute unit to a work-group: ptxr presents one multiprocessor,
            // which keeps the ISA's invariant %smid < %nsmid.
            SpecialRegister::SmId => Ok(site.context.i32_type().const_zero()),
            SpecialRegister::SmCount => Ok(site.context.i32_type().const_int(1, false)),
            // What OpenCL does not tell a kernel, the host passes (`spirv_launch_arguments.rs`).
            SpecialRegister::GridId => crate::spirv_launch_arguments::grid_id(site),
            SpecialRegister::DynamicSharedSize => crate::spirv_launch_arguments::dynamic_shared_size(site),
            // ptxr reserves no shared memory, so the aggregate is the total.
            SpecialRegister::TotalSharedSize | SpecialRegister::AggregateSharedSize => {
                crate::spirv_launch_arguments::total_shared_size(site)
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

    fn function_calling_convention(&self) -> u32 {
        SPIR_FUNC
    }
}
