//! NVPTX (`nvptx64-nvidia-cuda`): PTX state spaces are NVPTX's own address spaces and special
//! registers are the `llvm.nvvm.read.ptx.sreg.*` intrinsics, so this target is a near identity.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::types::BasicMetadataTypeEnum;
use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::AddressSpace;
use ptxr_frontend::vocabulary::{SpecialRegister, StateSpace};

use ptxr_frontend::ir::{BarrierOperation, MemoryScope, ProxyKind, ReduxOperation, ShuffleMode, VoteMode};

use crate::declare::{call_intrinsic, call_intrinsic_or_void};
use crate::{
    Barrier, CollectiveResult, KernelParameters, MatrixCollective, Site, Target, TargetKind, TextureLowering,
    Unsupported, WarpCollective,
};

/// LLVM's `ptx_kernel` calling convention.
const PTX_KERNEL: u32 = 71;

pub struct Nvptx;

/// A special register that LLVM has no usable intrinsic for, read by `mov` in inline PTX
/// (`%is_explicit_cluster`, a predicate, through `selp`, then truncated to i1).
fn read_by_inline_ptx<'ctx>(site: &Site<'_, 'ctx>, register: SpecialRegister) -> Result<IntValue<'ctx>, Unsupported> {
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("inline PTX ({error})") };
    let (value_type, text, constraint) = match register.bits() {
        64 => (site.context.i64_type(), format!("mov.u64 $0, {register};"), "=l"),
        32 => (site.context.i32_type(), format!("mov.u32 $0, {register};"), "=r"),
        _ => (
            site.context.i32_type(),
            format!("{{\n\t.reg .pred %p;\n\tmov.pred %p, {register};\n\tselp.u32 $0, 1, 0, %p;\n\t}}"),
            "=r",
        ),
    };
    let function_type = value_type.fn_type(&[], false);
    // Counters change between reads, so two reads must not merge; the others are constant.
    let volatile =
        matches!(register, SpecialRegister::PerformanceCounter(_) | SpecialRegister::PerformanceCounter64(_));
    let assembly =
        site.context.create_inline_asm(function_type, text, constraint.to_string(), volatile, false, None, false);
    let value = site
        .builder
        .build_indirect_call(function_type, assembly, &[], "")
        .map_err(failed)?
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| Unsupported { what: format!("special register {register} (inline PTX has no value)") })?
        .into_int_value();
    if register.is_predicate() {
        return site.builder.build_int_truncate(value, site.context.bool_type(), "").map_err(failed);
    }
    Ok(value)
}

/// `mapa` and `getctarank` as inline PTX: LLVM's `llvm.nvvm.mapa*` and `llvm.nvvm.getctarank*`
/// select only for sm_90 and abort otherwise, where ptxas reports the target instead.
fn cluster_address_by_inline_ptx<'ctx>(
    site: &Site<'_, 'ctx>,
    query: crate::ClusterQuery<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("inline PTX ({error})") };
    let space = |shared_cluster: bool| if shared_cluster { ".shared::cluster" } else { "" };
    let width = |address: IntValue<'ctx>| address.get_type().get_bit_width();
    let letter = |bits: u32| if bits == 64 { "l" } else { "r" };
    let i32_type = site.context.i32_type();
    let (result_type, text, constraints, arguments) = match query {
        crate::ClusterQuery::Map { shared_cluster, address, rank } => {
            let bits = width(address);
            let text = format!("mapa{}.u{bits} $0, $1, $2;", space(shared_cluster));
            let constraints = format!("={},{},r", letter(bits), letter(bits));
            (address.get_type(), text, constraints, vec![address.into(), rank.into()])
        }
        crate::ClusterQuery::Rank { shared_cluster, address } => {
            let bits = width(address);
            let text = format!("getctarank{}.u{bits} $0, $1;", space(shared_cluster));
            (i32_type, text, format!("=r,{}", letter(bits)), vec![address.into()])
        }
    };
    let parameter_types: Vec<inkwell::types::BasicMetadataTypeEnum<'ctx>> = arguments
        .iter()
        .map(|argument: &inkwell::values::BasicMetadataValueEnum<'ctx>| match argument {
            inkwell::values::BasicMetadataValueEnum::IntValue(value) => value.get_type().into(),
            _ => i32_type.into(),
        })
        .collect();
    let function_type = result_type.fn_type(&parameter_types, false);
    let assembly = site.context.create_inline_asm(function_type, text, constraints, false, false, None, false);
    let call = site.builder.build_indirect_call(function_type, assembly, &arguments, "").map_err(failed)?;
    call.try_as_basic_value()
        .basic()
        .map(|value| value.into_int_value())
        .ok_or_else(|| Unsupported { what: "inline PTX without a result".to_string() })
}

/// `cvta{.to}.shared::cluster` as inline PTX: LLVM's NVPTX back end has no cast for it.
fn convert_shared_cluster_by_inline_ptx<'ctx>(
    site: &Site<'_, 'ctx>,
    to_generic: bool,
    address: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("inline PTX ({error})") };
    let bits = address.get_type().get_bit_width();
    let letter = if bits == 64 { "l" } else { "r" };
    let text = format!("cvta{}.shared::cluster.u{bits} $0, $1;", if to_generic { "" } else { ".to" });
    let function_type = address.get_type().fn_type(&[address.get_type().into()], false);
    let assembly =
        site.context.create_inline_asm(function_type, text, format!("={letter},{letter}"), false, false, None, false);
    let call = site.builder.build_indirect_call(function_type, assembly, &[address.into()], "").map_err(failed)?;
    call.try_as_basic_value()
        .basic()
        .map(|value| value.into_int_value())
        .ok_or_else(|| Unsupported { what: "inline PTX without a result".to_string() })
}

/// `isspacep.param` as inline PTX, on the generic address as a 64-bit integer.
fn is_in_parameter_space<'ctx>(
    site: &Site<'_, 'ctx>,
    address: inkwell::values::PointerValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    is_in_state_space_by_inline_ptx(site, address, ".param")
}

/// `isspacep{space}` as inline PTX (`space` is `.param` or `.shared::cluster`, which LLVM's
/// `llvm.nvvm.isspacep.*` lack), on the generic address as a 64-bit integer.
fn is_in_state_space_by_inline_ptx<'ctx>(
    site: &Site<'_, 'ctx>,
    address: inkwell::values::PointerValue<'ctx>,
    space: &str,
) -> Result<IntValue<'ctx>, Unsupported> {
    let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("inline PTX ({error})") };
    let i64_type = site.context.i64_type();
    let integer = site.builder.build_ptr_to_int(address, i64_type, "").map_err(failed)?;
    let i32_type = site.context.i32_type();
    let function_type = i32_type.fn_type(&[i64_type.into()], false);
    let text = format!("{{\n\t.reg .pred %is_in;\n\tisspacep{space} %is_in, $1;\n\tselp.u32 $0, 1, 0, %is_in;\n\t}}");
    let assembly = site.context.create_inline_asm(function_type, text, "=r,l".to_string(), false, false, None, false);
    let call = site.builder.build_indirect_call(function_type, assembly, &[integer.into()], "").map_err(failed)?;
    let answer = call
        .try_as_basic_value()
        .basic()
        .ok_or_else(|| Unsupported { what: "inline PTX without a result".to_string() })?
        .into_int_value();
    site.builder.build_int_compare(inkwell::IntPredicate::NE, answer, i32_type.const_zero(), "is.in").map_err(failed)
}

impl Target for Nvptx {
    /// PTX's own texture and surface instructions, which ptxas assembles for the texture units.
    fn textures(&self) -> TextureLowering {
        TextureLowering::InlinePtx
    }

    fn declare_texture_reference<'ctx>(
        &self,
        context: &'ctx Context,
        module: &Module<'ctx>,
        global: inkwell::values::GlobalValue<'ctx>,
        opaque: ptxr_frontend::vocabulary::OpaqueType,
    ) -> Result<(), Unsupported> {
        crate::nvptx_texture_reference::declare_texture_reference(context, module, global, opaque)
    }

    fn kind(&self) -> TargetKind {
        TargetKind::Nvptx
    }

    fn address_space(&self, state_space: StateSpace) -> AddressSpace {
        let number: u16 = match state_space {
            StateSpace::Global => 1,
            StateSpace::Shared => 3,
            StateSpace::Const => 4,
            StateSpace::Local => 5,
            StateSpace::Param => 101,
            StateSpace::Generic | StateSpace::Reg | StateSpace::SpecialReg | StateSpace::Tex => 0,
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
        _parameters: &KernelParameters<'ctx>,
    ) -> Result<(), Unsupported> {
        site.function.set_call_conventions(PTX_KERNEL);
        Ok(())
    }

    fn kernel_parameter_addresses(&self) -> Option<StateSpace> {
        // A kernel's parameters stay in the `.param` space, where `mov` of a parameter's name
        // gives its address and `cvta.param` (an `addrspacecast` from 101, PTX ISA 7.7) the
        // generic one.
        Some(StateSpace::Param)
    }

    fn kernel_parameter_address<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        position: u32,
    ) -> Result<inkwell::values::PointerValue<'ctx>, Unsupported> {
        // LLVM names a kernel's parameters `KERNEL_param_N` in the PTX it writes and has no
        // intrinsic for their addresses: `mov` of that name, as inline PTX.
        let kernel = site.function.get_name().to_string_lossy().into_owned();
        let plain = kernel.chars().all(|character| character.is_ascii_alphanumeric() || "_$".contains(character));
        if !plain || kernel.starts_with('$') {
            return Err(Unsupported {
                what: format!("the address of a parameter of kernel `{kernel}`, whose name LLVM writes differently"),
            });
        }
        let pointer_type = site.context.ptr_type(self.address_space(StateSpace::Param));
        let layout = site.module.get_data_layout();
        let target_data = inkwell::targets::TargetData::create(&layout.as_str().to_string_lossy());
        let bits = target_data.get_pointer_byte_size(Some(self.address_space(StateSpace::Param))) * 8;
        let (integer_type, constraint) =
            if bits == 32 { (site.context.i32_type(), "=r") } else { (site.context.i64_type(), "=l") };
        let function_type = integer_type.fn_type(&[], false);
        let text = format!("mov.b{bits} $0, {kernel}_param_{position};");
        let assembly =
            site.context.create_inline_asm(function_type, text, constraint.to_string(), false, false, None, false);
        let failed = |error: inkwell::builder::BuilderError| Unsupported { what: format!("inline PTX ({error})") };
        let call = site.builder.build_indirect_call(function_type, assembly, &[], "").map_err(failed)?;
        let address = call
            .try_as_basic_value()
            .basic()
            .ok_or_else(|| Unsupported { what: "inline PTX without a result".to_string() })?
            .into_int_value();
        site.builder.build_int_to_ptr(address, pointer_type, &format!("param{position}.address")).map_err(failed)
    }

    fn is_in_state_space<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        address: inkwell::values::PointerValue<'ctx>,
        state_space: StateSpace,
        _placed: &crate::PlacedMemory<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let name = match state_space {
            StateSpace::Global => "llvm.nvvm.isspacep.global",
            StateSpace::Shared => "llvm.nvvm.isspacep.shared",
            StateSpace::Local => "llvm.nvvm.isspacep.local",
            StateSpace::Const => "llvm.nvvm.isspacep.const",
            // LLVM has no `llvm.nvvm.isspacep.param`: PTX's own instruction (ISA 7.7, sm_70; the
            // driver asks the back end for PTX 7.7 where the architecture's default is older).
            StateSpace::Param => return is_in_parameter_space(site, address),
            other => return Err(Unsupported { what: format!("`isspacep{other}`") }),
        };
        Ok(call_intrinsic(site, name, &[], &[address.into()])?.into_int_value())
    }

    fn is_in_cluster_shared_space<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        address: inkwell::values::PointerValue<'ctx>,
        _placed: &crate::PlacedMemory<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        // PTX's own instruction: on a GPU the program may run in clusters of several CTAs.
        is_in_state_space_by_inline_ptx(site, address, ".shared::cluster")
    }

    fn variables_below_4gib_for_32_bit_addresses(&self) -> bool {
        false
    }

    fn proxy_fence<'ctx>(&self, site: &Site<'_, 'ctx>, proxy: ProxyKind) -> Result<(), Unsupported> {
        // PTX's own fence: the async proxy's is not an ordinary one on NVIDIA's hardware.
        let name = match proxy {
            ProxyKind::Alias => "llvm.nvvm.fence.proxy.alias",
            ProxyKind::Async => "llvm.nvvm.fence.proxy.async",
            ProxyKind::AsyncGlobal => "llvm.nvvm.fence.proxy.async.global",
            ProxyKind::AsyncSharedCta => "llvm.nvvm.fence.proxy.async.shared_cta",
            ProxyKind::AsyncSharedCluster => "llvm.nvvm.fence.proxy.async.shared_cluster",
        };
        call_intrinsic_or_void(site, name, &[])?;
        Ok(())
    }

    fn sync_scope(&self, scope: MemoryScope) -> &'static str {
        match scope {
            MemoryScope::Cta => "block",
            MemoryScope::Cluster => "cluster",
            MemoryScope::Gpu => "device",
            MemoryScope::System => "",
        }
    }

    fn mbarrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        operation: &crate::mbarrier::Mbarrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        crate::nvptx_mbarrier::lower(site, operation)
    }

    fn barrier<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        barrier: &Barrier<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        let operation = match barrier.operation {
            BarrierOperation::Sync => "sync",
            BarrierOperation::Arrive => "arrive",
            BarrierOperation::ReducePopulationCount => "red.popc",
            BarrierOperation::ReduceAnd => "red.and",
            BarrierOperation::ReduceOr => "red.or",
        };
        let count_suffix = if barrier.thread_count.is_some() { "count" } else { "all" };
        let name = format!("llvm.nvvm.barrier.cta.{operation}.aligned.{count_suffix}");
        let mut arguments = vec![barrier.barrier.into()];
        if let Some(count) = barrier.thread_count {
            arguments.push(count.into());
        }
        if let Some(predicate) = barrier.predicate {
            arguments.push(predicate.into());
        }
        let result = call_intrinsic_or_void(site, &name, &arguments)?;
        Ok(if barrier.predicate.is_some() { result } else { None })
    }

    fn approximate_function<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        function: ptxr_frontend::ir::FloatUnaryOperation,
        flush_subnormals: bool,
        value: inkwell::values::FloatValue<'ctx>,
    ) -> Result<Option<inkwell::values::FloatValue<'ctx>>, Unsupported> {
        use ptxr_frontend::ir::FloatUnaryOperation as Function;
        // PTX's own `.approx` instructions, which LLVM's generic intrinsics do not always reach
        // (`llvm.log2` has no NVPTX lowering).
        let double = value.get_type().get_bit_width() == 64;
        let ftz = if flush_subnormals { ".ftz" } else { "" };
        let name = match (function, double) {
            (Function::Sine, false) => format!("llvm.nvvm.sin.approx{ftz}.f"),
            (Function::Cosine, false) => format!("llvm.nvvm.cos.approx{ftz}.f"),
            (Function::Log2, false) => format!("llvm.nvvm.lg2.approx{ftz}.f"),
            (Function::ReciprocalSquareRoot, false) => format!("llvm.nvvm.rsqrt.approx{ftz}.f"),
            (Function::ReciprocalSquareRoot, true) => format!("llvm.nvvm.rsqrt.approx{ftz}.d"),
            _ => return Ok(None),
        };
        Ok(Some(call_intrinsic(site, &name, &[], &[value.into()])?.into_float_value()))
    }

    fn float_minimum_maximum<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        a: inkwell::values::FloatValue<'ctx>,
        b: inkwell::values::FloatValue<'ctx>,
        minimum: bool,
        propagate_nan: bool,
    ) -> Result<Option<inkwell::values::FloatValue<'ctx>>, Unsupported> {
        // PTX's own `min.f32`/`min.NaN.f32` (`.xorsign.abs` needs sm_86, which the target may not
        // be, so lowering computes it).
        let name = match (minimum, propagate_nan) {
            (true, false) => "llvm.nvvm.fmin.f",
            (true, true) => "llvm.nvvm.fmin.nan.f",
            (false, false) => "llvm.nvvm.fmax.f",
            (false, true) => "llvm.nvvm.fmax.nan.f",
        };
        Ok(Some(call_intrinsic(site, name, &[], &[a.into(), b.into()])?.into_float_value()))
    }

    fn device_function<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        call: &crate::DeviceFunctionCall<'ctx>,
    ) -> Result<crate::DeviceFunctionLowering<'ctx>, Unsupported> {
        // The CUDA driver links its own definitions of these functions.
        let _ = (site, call);
        Ok(crate::DeviceFunctionLowering::CallDeclaration)
    }

    fn trap<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        call_intrinsic_or_void(site, "llvm.trap", &[])?;
        Ok(())
    }

    fn exit_thread<'ctx>(&self, site: &Site<'_, 'ctx>) -> Result<(), Unsupported> {
        // PTX's own `exit`: the thread ends here, so there is no mark for callers to check.
        call_intrinsic_or_void(site, "llvm.nvvm.exit", &[])?;
        Ok(())
    }

    fn native_bulk_copy<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        text: &str,
        arguments: &[inkwell::values::BasicMetadataValueEnum<'ctx>],
    ) -> Result<bool, Unsupported> {
        crate::nvptx_inline_ptx::statement(site, text, arguments).map(|()| true)
    }

    fn hint<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        hint: &ptxr_frontend::ir::Hint,
        line: Option<inkwell::values::PointerValue<'ctx>>,
    ) -> Result<(), Unsupported> {
        crate::nvptx_hint::hint(site, hint, line)
    }

    fn sleep<'ctx>(&self, site: &Site<'_, 'ctx>, nanoseconds: IntValue<'ctx>) -> Result<(), Unsupported> {
        call_intrinsic_or_void(site, "llvm.nvvm.nanosleep", &[nanoseconds.into()])?;
        Ok(())
    }

    fn matrix_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &MatrixCollective<'ctx>,
    ) -> Result<(), Unsupported> {
        crate::nvptx_matrix::matrix_collective(site, collective)
    }

    fn native_sparse_matrix(&self) -> bool {
        true
    }

    fn native_warp_matrix(&self) -> bool {
        true
    }

    /// `wgmma` exists on sm_90a alone (its `a` marks features that later processors lack).
    fn native_warp_group_matrix(&self, processor: &str) -> bool {
        processor == "sm_90a"
    }

    fn warp_group_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &crate::WarpGroupCollective<'ctx>,
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
        crate::nvptx_warp_group_matrix::warp_group_collective(site, collective)
    }

    fn warp_matrix_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &crate::WarpMatrixCollective<'ctx>,
    ) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
        crate::nvptx_warp_matrix::warp_matrix_collective(site, collective)
    }

    fn warp_collective<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        collective: &WarpCollective<'ctx>,
    ) -> Result<CollectiveResult<'ctx>, Unsupported> {
        let pair = |value: inkwell::values::BasicValueEnum<'ctx>| -> Result<CollectiveResult<'ctx>, Unsupported> {
            let structure = value.into_struct_value();
            let extract = |index| {
                site.builder
                    .build_extract_value(structure, index, "")
                    .map(|value| value.into_int_value())
                    .map_err(|error| Unsupported { what: format!("an extract ({error})") })
            };
            Ok(CollectiveResult { value: Some(extract(0)?), predicate: Some(extract(1)?) })
        };
        // The forms without `.sync` ran on converged warps: every lane takes part.
        let all_lanes = site.context.i32_type().const_all_ones();
        let single = |value: inkwell::values::BasicValueEnum<'ctx>| CollectiveResult {
            value: Some(value.into_int_value()),
            predicate: None,
        };
        match collective {
            WarpCollective::Shuffle { mode, value, lane, clamp, member_mask } => {
                let mode = match mode {
                    ShuffleMode::Up => "up",
                    ShuffleMode::Down => "down",
                    ShuffleMode::Butterfly => "bfly",
                    ShuffleMode::Index => "idx",
                };
                let name = format!("llvm.nvvm.shfl.sync.{mode}.i32p");
                let member_mask = member_mask.unwrap_or(all_lanes);
                pair(call_intrinsic(
                    site,
                    &name,
                    &[],
                    &[member_mask.into(), (*value).into(), (*lane).into(), (*clamp).into()],
                )?)
            }
            WarpCollective::Vote { mode, predicate, member_mask } => {
                let mode = match mode {
                    VoteMode::All => "all",
                    VoteMode::Any => "any",
                    VoteMode::Uniform => "uni",
                    VoteMode::Ballot => "ballot",
                };
                let name = format!("llvm.nvvm.vote.{mode}.sync");
                Ok(single(call_intrinsic(
                    site,
                    &name,
                    &[],
                    &[member_mask.unwrap_or(all_lanes).into(), (*predicate).into()],
                )?))
            }
            WarpCollective::Match { all, value, member_mask } => {
                let width = value.get_type().get_bit_width();
                let arguments = [(*member_mask).into(), (*value).into()];
                if *all {
                    pair(call_intrinsic(site, &format!("llvm.nvvm.match.all.sync.i{width}p"), &[], &arguments)?)
                } else {
                    Ok(single(call_intrinsic(site, &format!("llvm.nvvm.match.any.sync.i{width}"), &[], &arguments)?))
                }
            }
            WarpCollective::Redux { operation, signed, value, member_mask } => {
                let operation = match (operation, signed) {
                    (ReduxOperation::Add, _) => "add",
                    (ReduxOperation::Minimum, true) => "min",
                    (ReduxOperation::Minimum, false) => "umin",
                    (ReduxOperation::Maximum, true) => "max",
                    (ReduxOperation::Maximum, false) => "umax",
                    (ReduxOperation::And, _) => "and",
                    (ReduxOperation::Or, _) => "or",
                    (ReduxOperation::Xor, _) => "xor",
                };
                let name = format!("llvm.nvvm.redux.sync.{operation}");
                Ok(single(call_intrinsic(site, &name, &[], &[(*value).into(), (*member_mask).into()])?))
            }
            WarpCollective::ActiveMask => Ok(single(call_intrinsic(site, "llvm.nvvm.activemask", &[], &[])?)),
            WarpCollective::Sync { member_mask } => {
                call_intrinsic_or_void(site, "llvm.nvvm.bar.warp.sync", &[(*member_mask).into()])?;
                Ok(CollectiveResult { value: None, predicate: None })
            }
        }
    }

    fn cluster_address<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        query: crate::ClusterQuery<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        cluster_address_by_inline_ptx(site, query)
    }

    fn convert_shared_cluster_address<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        to_generic: bool,
        address: IntValue<'ctx>,
    ) -> Result<Option<IntValue<'ctx>>, Unsupported> {
        convert_shared_cluster_by_inline_ptx(site, to_generic, address).map(Some)
    }

    fn special_register<'ctx>(
        &self,
        site: &Site<'_, 'ctx>,
        register: SpecialRegister,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        let name = match register {
            SpecialRegister::LaneMask(relation) => format!("llvm.nvvm.read.ptx.sreg.lanemask.{relation}"),
            SpecialRegister::ThreadId(dimension) => format!("llvm.nvvm.read.ptx.sreg.tid.{dimension}"),
            SpecialRegister::ThreadCount(dimension) => format!("llvm.nvvm.read.ptx.sreg.ntid.{dimension}"),
            SpecialRegister::CtaId(dimension) => format!("llvm.nvvm.read.ptx.sreg.ctaid.{dimension}"),
            SpecialRegister::CtaCount(dimension) => format!("llvm.nvvm.read.ptx.sreg.nctaid.{dimension}"),
            SpecialRegister::LaneId => "llvm.nvvm.read.ptx.sreg.laneid".to_string(),
            SpecialRegister::WarpId => "llvm.nvvm.read.ptx.sreg.warpid".to_string(),
            SpecialRegister::WarpCount => "llvm.nvvm.read.ptx.sreg.nwarpid".to_string(),
            SpecialRegister::Clock => "llvm.nvvm.read.ptx.sreg.clock".to_string(),
            SpecialRegister::Clock64 => "llvm.nvvm.read.ptx.sreg.clock64".to_string(),
            SpecialRegister::GlobalTimer => "llvm.nvvm.read.ptx.sreg.globaltimer".to_string(),
            SpecialRegister::GlobalTimerLow => "llvm.nvvm.read.ptx.sreg.globaltimer.lo".to_string(),
            SpecialRegister::GlobalTimerHigh => {
                let timer = self.special_register(site, SpecialRegister::GlobalTimer)?;
                return crate::global_timer::half(site, register, timer);
            }
            SpecialRegister::ClockHigh => {
                let clock = self.special_register(site, SpecialRegister::Clock64)?;
                return crate::global_timer::half(site, register, clock);
            }
            SpecialRegister::SmId => "llvm.nvvm.read.ptx.sreg.smid".to_string(),
            SpecialRegister::SmCount => "llvm.nvvm.read.ptx.sreg.nsmid".to_string(),
            SpecialRegister::DynamicSharedSize => "llvm.nvvm.read.ptx.sreg.dynamic_smem_size".to_string(),
            SpecialRegister::TotalSharedSize => "llvm.nvvm.read.ptx.sreg.total_smem_size".to_string(),
            SpecialRegister::EnvironmentRegister(index) => format!("llvm.nvvm.read.ptx.sreg.envreg{index}"),
            SpecialRegister::PerformanceCounter(index) if index < 4 => format!("llvm.nvvm.read.ptx.sreg.pm{index}"),
            // LLVM has no intrinsics for these (its `gridid` is 32 bits, PTX's 64 since ISA 3.0;
            // those of clusters select only for sm_90 and PTX 7.8, aborting otherwise): a `mov`
            // in inline PTX, which ptxas checks against the target instead.
            SpecialRegister::GridId
            | SpecialRegister::PerformanceCounter(_)
            | SpecialRegister::PerformanceCounter64(_)
            | SpecialRegister::ReservedSharedOffset(_)
            | SpecialRegister::ClusterId(_)
            | SpecialRegister::ClusterCount(_)
            | SpecialRegister::ClusterCtaId(_)
            | SpecialRegister::ClusterCtaCount(_)
            | SpecialRegister::ClusterCtaRank
            | SpecialRegister::ClusterCtaRankCount
            | SpecialRegister::IsExplicitCluster
            | SpecialRegister::AggregateSharedSize => return read_by_inline_ptx(site, register),
        };
        Ok(call_intrinsic(site, &name, &[], &[])?.into_int_value())
    }
}
