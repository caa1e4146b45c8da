//! AMDGPU (`amdgcn-amd-amdhsa`, code object v5). Thread and block indices come from the
//! `llvm.amdgcn.workitem.id.*`/`workgroup.id.*` intrinsics; block and grid sizes come from the
//! implicit kernel arguments, whose v5 layout starts with `hidden_block_count_{x,y,z}` (u32 at
//! offsets 0, 4, 8) and `hidden_group_size_{x,y,z}` (u16 at offsets 12, 14, 16).

use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::module::{FlagBehavior, Module};
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicValue, IntValue};
use inkwell::AddressSpace;
use ptxr_frontend::ir::{MemoryOrdering, MemoryScope};
use ptxr_frontend::vocabulary::{Dimension, SpecialRegister, StateSpace};

use crate::declare::{call_intrinsic, to_i32};
use crate::{
    Barrier, CollectiveResult, KernelParameters, Site, Target, TargetKind, TextureLowering, Unsupported, WarpCollective,
};

/// LLVM's `amdgpu_kernel` calling convention.
const AMDGPU_KERNEL: u32 = 91;
/// The code object version that the implicit-argument offsets above belong to.
const CODE_OBJECT_VERSION: u64 = 500;
/// The version for the `-generic` processors, which LLVM builds only from code object v6 on:
/// v6 is v5 with the generic processor's version in the ELF flags, the same implicit
/// arguments at the same offsets (LLVM's AMDGPUUsage, "Code Object V6 Metadata").
const GENERIC_CODE_OBJECT_VERSION: u64 = 600;
const BLOCK_COUNT_OFFSET: u64 = 0;
const GROUP_SIZE_OFFSET: u64 = 12;
/// `hidden_dynamic_lds_size` (code object v5): the dispatch's dynamic LDS bytes, a u32.
const DYNAMIC_LDS_SIZE_OFFSET: u64 = 120;

pub struct Amdgpu;

fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("an LLVM builder operation ({error})") }
}

impl Amdgpu {
    /// Loads an implicit kernel argument of `bits` width at `offset` bytes.
    fn implicit_argument<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        offset: u64,
        bits: u32,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let base = call_intrinsic(site, "llvm.amdgcn.implicitarg.ptr", &[], &[])?.into_pointer_value();
        let i8_type = site.context.i8_type();
        let offset = site.context.i64_type().const_int(offset, false);
        // SAFETY: the offsets are inside the implicit-argument block of code object v5.
        let address = unsafe { site.builder.build_in_bounds_gep(i8_type, base, &[offset], "") }.map_err(llvm_error)?;
        let value_type = if bits == 16 { site.context.i16_type() } else { site.context.i32_type() };
        let loaded = site.builder.build_load(value_type, address, "").map_err(llvm_error)?;
        if let Some(instruction) = loaded.as_instruction_value() {
            let _ = instruction.set_alignment(bits / 8);
        }
        to_i32(site, loaded.into_int_value())
    }
}

/// The kernel's explicit arguments in the kernarg segment, `[kernarg.segment.ptr,
/// implicitarg.ptr)`, as flat pointers: the hidden arguments follow the explicit ones there
/// (code object v5), so any function finds where the kernel's parameters end.
fn kernel_argument_window<'ctx>(
    site: &Site<'_, 'ctx>,
) -> Result<(inkwell::values::PointerValue<'ctx>, inkwell::values::PointerValue<'ctx>), Unsupported> {
    Ok((flat_pointer(site, "llvm.amdgcn.kernarg.segment.ptr")?, flat_pointer(site, "llvm.amdgcn.implicitarg.ptr")?))
}

/// The constant-space pointer that intrinsic `name` returns, as a flat pointer.
fn flat_pointer<'ctx>(site: &Site<'_, 'ctx>, name: &str) -> Result<inkwell::values::PointerValue<'ctx>, Unsupported> {
    let pointer = call_intrinsic(site, name, &[], &[])?.into_pointer_value();
    let flat = site.context.ptr_type(AddressSpace::default());
    site.builder.build_address_space_cast(pointer, flat, "").map_err(llvm_error)
}

/// Where LLVM places explicit kernel argument `position` in the kernarg segment: each argument
/// at the next multiple of its type's ABI alignment after the one before (LLVM's
/// `AMDGPUSubtarget::getExplicitKernArgSize`; ptxr passes no `byref` arguments).
fn kernel_argument_offset(site: &Site<'_, '_>, position: u32) -> Result<u64, Unsupported> {
    let layout = site.module.get_data_layout();
    let target_data = inkwell::targets::TargetData::create(&layout.as_str().to_string_lossy());
    let types = site.function.get_type().get_param_types();
    let missing = || Unsupported { what: format!("kernel argument {position}") };
    let mut offset = 0u64;
    for (index, ty) in types.iter().enumerate().take(position as usize + 1) {
        let ty = inkwell::types::BasicTypeEnum::try_from(*ty).map_err(|()| missing())?;
        let align = u64::from(target_data.get_abi_alignment(&ty)).max(1);
        offset = offset.div_ceil(align) * align;
        if index == position as usize {
            return Ok(offset);
        }
        offset += target_data.get_abi_size(&ty);
    }
    Err(missing())
}

impl Target for Amdgpu {
    /// Texture descriptors in global memory, read by lowering's generated code.
    fn textures(&self) -> TextureLowering {
        TextureLowering::Software
    }

    fn functions_visible_outside_the_module(&self) -> bool {
        // A code object is linked alone (`driver/src/link.rs`). An external `.func` that uses
        // a `.shared` variable (clang's OpenCL C output: each kernel calls its body as
        // `__clang_ocl_kern_imp_NAME`) kept a copy that LLVM's LDS lowering could attribute to
        // no kernel: the back end warned "local memory global used by non-kernel function" and
        // made that copy trap.
        false
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Amdgpu
    }

    fn mbarrier_waits_may_hang(&self) -> bool {
        // A wave runs one side of a divergent branch at a time (`amdgpu_mbarrier.rs`).
        true
    }

    fn counted_barriers_may_hang(&self, processor: &str, features: &str) -> bool {
        // Counted barriers are software barriers in LDS (`amdgpu_barrier.rs`): on wave64 a wave
        // whose two warps go to different ones spins in one half's wait.
        crate::amdgpu_warp::is_wave64(processor, features)
    }

    fn before_optimization(
        &self,
        module: &Module<'_>,
        machine: &inkwell::targets::TargetMachine,
        _optimization: u8,
    ) -> Result<(), String> {
        crate::amdgpu_hardware_id::define(module, &machine.get_cpu().to_string_lossy())
    }

    fn lacks_lane_permute(&self, processor: &str) -> bool {
        crate::amdgpu_warp::lacks_lane_permute(processor)
    }

    fn lacks_flat_addresses(&self, processor: &str) -> bool {
        // GCN generation 6 (gfx600 to gfx602); flat instructions came with gfx7.
        processor.strip_prefix("gfx").is_some_and(|number| number.len() == 3 && number.starts_with('6'))
    }

    fn address_space(&self, state_space: StateSpace) -> AddressSpace {
        let number: u16 = match state_space {
            StateSpace::Global => 1,
            StateSpace::Shared => 3,
            StateSpace::Const => 4,
            StateSpace::Local | StateSpace::Param => 5,
            StateSpace::Generic | StateSpace::Reg | StateSpace::SpecialReg | StateSpace::Tex => 0,
        };
        AddressSpace::from(number)
    }

    fn configure_module<'ctx>(&self, context: &'ctx Context, module: &Module<'ctx>, processor: &str) {
        let version = if processor.ends_with("-generic") { GENERIC_CODE_OBJECT_VERSION } else { CODE_OBJECT_VERSION };
        let version = context.i32_type().const_int(version, false);
        module.add_basic_value_flag("amdhsa_code_object_version", FlagBehavior::Error, version);
    }

    fn hidden_parameter_types<'ctx>(&self, _context: &'ctx Context) -> Vec<BasicMetadataTypeEnum<'ctx>> {
        Vec::new()
    }

    fn finish_kernel<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        parameters: &KernelParameters<'ctx>,
    ) -> Result<(), Unsupported> {
        site.function.set_call_conventions(AMDGPU_KERNEL);
        if parameters.counted_barriers {
            crate::amdgpu_barrier::reset_counted_barriers(site)?;
        }
        // PTX allows blocks of up to 1024 threads; say so, or the backend assumes 256.
        let attribute = site.context.create_string_attribute("amdgpu-flat-work-group-size", "1,1024");
        site.function.add_attribute(AttributeLoc::Function, attribute);
        Ok(())
    }

    fn kernel_parameter_addresses(&self) -> Option<StateSpace> {
        // The kernel's arguments stay in the kernarg segment, constant memory that is global
        // memory to a flat address, which every work-item and every function reaches.
        Some(StateSpace::Generic)
    }

    fn kernel_parameter_address<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        position: u32,
    ) -> Result<inkwell::values::PointerValue<'ctx>, Unsupported> {
        let offset = kernel_argument_offset(site, position)?;
        let window = flat_pointer(site, "llvm.amdgcn.kernarg.segment.ptr")?;
        let offset = site.context.i64_type().const_int(offset, false);
        // SAFETY: the offset is the argument's own, inside the kernarg segment.
        unsafe { site.builder.build_in_bounds_gep(site.context.i8_type(), window, &[offset], "") }.map_err(llvm_error)
    }

    fn is_in_state_space<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        address: inkwell::values::PointerValue<'ctx>,
        state_space: StateSpace,
        placed: &crate::PlacedMemory<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let failed = |error: inkwell::builder::BuilderError| Unsupported {
            what: format!("an LLVM builder operation ({error})"),
        };
        let shared = || call_intrinsic(site, "llvm.amdgcn.is.shared", &[], &[address.into()]);
        let private = || call_intrinsic(site, "llvm.amdgcn.is.private", &[], &[address.into()]);
        // Constant memory is global memory on AMD GPUs, which no aperture tells apart: `.const`
        // is the module's `.const` variables, whose ranges lowering gives.
        let constant = || crate::address_ranges::in_any(site, address, &placed.constants);
        match state_space {
            StateSpace::Param => {
                // The kernel's explicit arguments, where its parameters' addresses point
                // (`kernel_parameter_address`).
                let (start, end) = kernel_argument_window(site)?;
                let i64_type = site.context.i64_type();
                let integer = |pointer: inkwell::values::PointerValue<'ctx>| {
                    site.builder.build_ptr_to_int(pointer, i64_type, "").map_err(failed)
                };
                let (start, end, address) = (integer(start)?, integer(end)?, integer(address)?);
                let bytes = site.builder.build_int_sub(end, start, "").map_err(failed)?;
                let offset = site.builder.build_int_sub(address, start, "").map_err(failed)?;
                site.builder.build_int_compare(inkwell::IntPredicate::ULT, offset, bytes, "is.param").map_err(failed)
            }
            StateSpace::Shared => Ok(shared()?.into_int_value()),
            StateSpace::Local => Ok(private()?.into_int_value()),
            StateSpace::Const => constant(),
            StateSpace::Global => {
                // A flat address is global memory unless its aperture is LDS or scratch, or it
                // lies in a `.const` variable.
                let builder = site.builder;
                let either =
                    builder.build_or(shared()?.into_int_value(), private()?.into_int_value(), "").map_err(failed)?;
                let other = builder.build_or(either, constant()?, "").map_err(failed)?;
                builder.build_not(other, "").map_err(failed)
            }
            other => Err(Unsupported { what: format!("`isspacep{other}`") }),
        }
    }

    fn variables_below_4gib_for_32_bit_addresses(&self) -> bool {
        false
    }

    fn wide_atomic<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        pointer: inkwell::values::PointerValue<'ctx>,
        update: crate::atomics::WideUpdate<'ctx>,
        ordering: MemoryOrdering,
        scope: &str,
    ) -> Result<inkwell::values::BasicValueEnum<'ctx>, Unsupported> {
        let placement = crate::wide_atomic_lock::LockPlacement {
            table_space: self.address_space(StateSpace::Global),
            generic_space: self.address_space(StateSpace::Generic),
            exit_test: crate::wide_atomic_lock::ExitTest::Assembly,
        };
        crate::wide_atomic_lock::update_under_lock(site, pointer, update, ordering, scope, placement)
    }

    fn sync_scope(&self, scope: MemoryScope) -> &'static str {
        match scope {
            MemoryScope::Cta => "workgroup",
            // A cluster has no AMD equivalent; the whole device is the next scope that covers it.
            MemoryScope::Cluster | MemoryScope::Gpu => "agent",
            MemoryScope::System => "",
        }
    }

    fn mbarrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        operation: &crate::mbarrier::Mbarrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        crate::amdgpu_mbarrier::lower(site, operation)
    }

    fn barrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        barrier: &Barrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        crate::amdgpu_barrier::barrier(site, barrier)
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
        match call.function {
            crate::DeviceFunction::Printf => {
                crate::amdgpu_printf::call(site, call).map(|count| crate::DeviceFunctionLowering::Lowered(Some(count)))
            }
            crate::DeviceFunction::AssertFail => {
                crate::amdgpu_printf::assert_fail(site, call)?;
                Ok(crate::DeviceFunctionLowering::Lowered(None))
            }
            // ROCm's own heap (the `hidden_heap_v1` implicit argument) is run by its device
            // library, whose structures are no documented interface: the module brings its own.
            crate::DeviceFunction::Malloc | crate::DeviceFunction::Free => crate::device_heap::call(site, call, self),
        }
    }

    fn trap<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        crate::declare::call_intrinsic_or_void(site, "llvm.trap", &[])?;
        Ok(())
    }

    fn needs_stop_flag(&self) -> bool {
        // Returning from a `.func` after `exit` leaves its callers running; `trap` aborts.
        true
    }

    fn sleep<'ctx>(&self, site: &Site<'_, 'ctx>, nanoseconds: IntValue<'ctx>) -> Result<(), Unsupported> {
        crate::amdgpu_sleep::sleep(site, nanoseconds)
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
        crate::amdgpu_warp::warp_collective(site, collective)
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
                Ok(call_intrinsic(site, &format!("llvm.amdgcn.workitem.id.{dimension}"), &[], &[])?.into_int_value())
            }
            SpecialRegister::CtaId(dimension) => {
                Ok(call_intrinsic(site, &format!("llvm.amdgcn.workgroup.id.{dimension}"), &[], &[])?.into_int_value())
            }
            SpecialRegister::ThreadCount(dimension) => {
                self.implicit_argument(site, GROUP_SIZE_OFFSET + 2 * u64::from(dimension.index()), 16)
            }
            SpecialRegister::CtaCount(dimension) => {
                self.implicit_argument(site, BLOCK_COUNT_OFFSET + 4 * u64::from(dimension.index()), 32)
            }
            SpecialRegister::Clock64 => Ok(call_intrinsic(site, "llvm.amdgcn.s.memtime", &[], &[])?.into_int_value()),
            SpecialRegister::GlobalTimer => crate::amdgpu_sleep::nanoseconds(site),
            SpecialRegister::GlobalTimerLow | SpecialRegister::GlobalTimerHigh => {
                crate::global_timer::half(site, register, self.special_register(site, SpecialRegister::GlobalTimer)?)
            }
            SpecialRegister::ClockHigh => {
                crate::global_timer::half(site, register, self.special_register(site, SpecialRegister::Clock64)?)
            }
            SpecialRegister::Clock => {
                let time = call_intrinsic(site, "llvm.amdgcn.s.memtime", &[], &[])?.into_int_value();
                to_i32(site, time)
            }
            SpecialRegister::LaneId => crate::amdgpu_warp::lane_id(site),
            // Warps of 32 by linear thread index, as work-items fill waves (`amdgpu_warp.rs`).
            SpecialRegister::WarpId => {
                let builder = site.builder;
                let read = |register| self.special_register(site, register);
                let [x, y, z] = [Dimension::X, Dimension::Y, Dimension::Z].map(SpecialRegister::ThreadId);
                let [size_x, size_y] = [Dimension::X, Dimension::Y].map(SpecialRegister::ThreadCount);
                let inner = builder.build_int_mul(read(size_y)?, read(z)?, "").map_err(llvm_error)?;
                let inner = builder.build_int_add(read(y)?, inner, "").map_err(llvm_error)?;
                let inner = builder.build_int_mul(read(size_x)?, inner, "").map_err(llvm_error)?;
                let linear = builder.build_int_add(read(x)?, inner, "thread.linear").map_err(llvm_error)?;
                let shift = site.context.i32_type().const_int(5, false);
                builder.build_right_shift(linear, shift, false, "warpid").map_err(llvm_error)
            }
            SpecialRegister::WarpCount => {
                let builder = site.builder;
                let mut total = self.special_register(site, SpecialRegister::ThreadCount(Dimension::X))?;
                for dimension in [Dimension::Y, Dimension::Z] {
                    let size = self.special_register(site, SpecialRegister::ThreadCount(dimension))?;
                    total = builder.build_int_mul(total, size, "").map_err(llvm_error)?;
                }
                let i32_type = site.context.i32_type();
                let rounded = builder.build_int_add(total, i32_type.const_int(31, false), "").map_err(llvm_error)?;
                builder.build_right_shift(rounded, i32_type.const_int(5, false), false, "nwarpid").map_err(llvm_error)
            }
            // From the hardware id registers of the processor, which only the target machine
            // knows: placeholders that `before_optimization` defines (`amdgpu_hardware_id.rs`).
            SpecialRegister::SmId => crate::amdgpu_hardware_id::sm_id(site),
            SpecialRegister::SmCount => crate::amdgpu_hardware_id::sm_count(site),
            // The dispatch packet's id, distinct for each dispatch on a queue.
            SpecialRegister::GridId => Ok(call_intrinsic(site, "llvm.amdgcn.dispatch.id", &[], &[])?.into_int_value()),
            SpecialRegister::DynamicSharedSize => self.implicit_argument(site, DYNAMIC_LDS_SIZE_OFFSET, 32),
            // ptxr reserves no shared memory, so the aggregate is the total.
            SpecialRegister::TotalSharedSize | SpecialRegister::AggregateSharedSize => {
                let fixed = call_intrinsic(site, "llvm.amdgcn.groupstaticsize", &[], &[])?.into_int_value();
                let dynamic = self.implicit_argument(site, DYNAMIC_LDS_SIZE_OFFSET, 32)?;
                site.builder.build_int_add(fixed, dynamic, "total_smem_size").map_err(llvm_error)
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
