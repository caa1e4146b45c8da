//! PTX warps as OpenCL sub-groups of 32 work-items on SPIR-V (1.3 or newer, where the
//! `GroupNonUniform*` instructions exist). Kernels of modules that use warp collectives ask for
//! sub-groups of exactly 32 (`intel_reqd_sub_group_size`, which becomes the `SubgroupSize`
//! execution mode), so that a sub-group is a PTX warp: work-items are grouped by linear local id,
//! as CUDA groups threads into warps.
//!
//! Every collective is built from the OpenCL sub-group builtins (by their Itanium-mangled names,
//! which LLVM's SPIR-V back end turns into SPIR-V instructions): the lane id, `sub_group_ballot`
//! and `sub_group_shuffle` are the primitives from which `warp_lanes.rs` builds `shfl`, `vote`,
//! `match` and `activemask`; `redux` is the non-uniform reduction when its member mask holds
//! every active work-item, and otherwise reads lane by lane (`warp_lanes::reduce_lane_by_lane`).

use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue, IntValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::ReduxOperation;

use crate::warp_lanes::{reduce_lane_by_lane, LanePrimitives};
use crate::{function_or_declare, CollectiveResult, Site, Unsupported, WarpCollective};

/// LLVM's `spir_func` calling convention.
const SPIR_FUNC: u32 = 75;
/// `CLK_LOCAL_MEM_FENCE` of OpenCL C.
const LOCAL_MEMORY_FENCE: u64 = 0x1;

/// Whether the module's SPIR-V version (from its triple, `spirv64v1.3-...`) has the
/// sub-group instructions: 1.3 and newer; a triple without a version means LLVM's newest.
pub fn available(site: &Site<'_, '_>) -> bool {
    let triple = site.module.get_triple();
    let triple = triple.as_str().to_string_lossy();
    let architecture = triple.split('-').next().unwrap_or_default();
    let version = architecture.trim_start_matches("spirv64").trim_start_matches("spirv32").trim_start_matches('v');
    match version.split_once('.') {
        None => version.is_empty(),
        Some((major, minor)) => (major.parse::<u32>().unwrap_or(0), minor.parse::<u32>().unwrap_or(0)) >= (1, 3),
    }
}

/// The message for a module whose SPIR-V version has no sub-groups.
pub fn needs_newer_version(what: &str) -> Unsupported {
    Unsupported {
        what: format!(
            "{what} (sub-group operations need SPIR-V 1.3: compile for spirv64v1.3-unknown-unknown, which `--target \
             spirv` chooses for modules with warp collectives)"
        ),
    }
}

fn failed(name: &str) -> impl Fn(inkwell::builder::BuilderError) -> Unsupported + '_ {
    move |error| Unsupported { what: format!("a call to {name} ({error})") }
}

/// Calls the OpenCL builtin `name` (declared on first use) and returns its result.
fn builtin<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    result: BasicTypeEnum<'ctx>,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    let parameter_types: Vec<BasicMetadataTypeEnum<'ctx>> = arguments
        .iter()
        .map(|argument| match argument {
            BasicMetadataValueEnum::IntValue(value) => value.get_type().into(),
            BasicMetadataValueEnum::VectorValue(value) => value.get_type().into(),
            _ => site.context.i32_type().into(),
        })
        .collect();
    let function: FunctionValue<'ctx> =
        function_or_declare(site.module, name, || result.fn_type(&parameter_types, false));
    function.set_call_conventions(SPIR_FUNC);
    // Sub-group functions are reached by the whole sub-group together.
    crate::declare::mark_convergent(function);
    let call = site.builder.build_call(function, arguments, "").map_err(failed(name))?;
    call.set_call_convention(SPIR_FUNC);
    call.try_as_basic_value().basic().ok_or_else(|| Unsupported { what: format!("the result of {name}") })
}

fn u32_builtin<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<IntValue<'ctx>, Unsupported> {
    Ok(builtin(site, name, site.context.i32_type().into(), arguments)?.into_int_value())
}

/// This work-item's lane: `get_sub_group_local_id()`.
pub fn lane_id<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    u32_builtin(site, "_Z22get_sub_group_local_idv", &[])
}

/// This work-item's warp in the block: `get_sub_group_id()`.
pub fn warp_id<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    u32_builtin(site, "_Z16get_sub_group_idv", &[])
}

/// The warps of the block: `get_num_sub_groups()`.
pub fn warp_count<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    u32_builtin(site, "_Z18get_num_sub_groupsv", &[])
}

/// The lanes (bit i for lane i) where `predicate` (i1) holds, among the active ones.
fn ballot<'ctx>(site: &Site<'_, 'ctx>, predicate: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let as_int = site.builder.build_int_z_extend(predicate, i32_type, "").map_err(failed("zext"))?;
    let vector = builtin(site, "_Z16sub_group_balloti", i32_type.vec_type(4).into(), &[as_int.into()])?;
    let first = site
        .builder
        .build_extract_element(vector.into_vector_value(), i32_type.const_zero(), "ballot")
        .map_err(failed("ballot"))?;
    Ok(first.into_int_value())
}

/// `sub_group_shuffle(value, lane)` for 32- and 64-bit integers.
fn shuffle<'ctx>(
    site: &Site<'_, 'ctx>,
    value: IntValue<'ctx>,
    lane: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let name =
        if value.get_type().get_bit_width() == 64 { "_Z17sub_group_shufflemj" } else { "_Z17sub_group_shufflejj" };
    Ok(builtin(site, name, value.get_type().into(), &[value.into(), lane.into()])?.into_int_value())
}

/// A sub-group's primitives for the shared warp lowering.
struct SubGroup;

impl<'ctx> LanePrimitives<'ctx> for SubGroup {
    fn lane(&self, site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        lane_id(site)
    }

    fn ballot(&self, site: &Site<'_, 'ctx>, predicate: IntValue<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
        ballot(site, predicate)
    }

    fn read_lane(
        &self,
        site: &Site<'_, 'ctx>,
        value: IntValue<'ctx>,
        lane: IntValue<'ctx>,
    ) -> Result<IntValue<'ctx>, Unsupported> {
        shuffle(site, value, lane)
    }
}

/// Lowers one warp collective on sub-groups of 32: `redux` as the non-uniform sub-group
/// reductions, `bar.warp.sync` as `sub_group_barrier`, the rest from the sub-group primitives.
pub fn warp_collective<'ctx>(
    site: &Site<'_, 'ctx>,
    collective: &WarpCollective<'ctx>,
) -> Result<CollectiveResult<'ctx>, Unsupported> {
    match collective {
        WarpCollective::Redux { operation, signed, value, member_mask } => {
            let value = reduce(site, *operation, *signed, *value, *member_mask)?;
            Ok(CollectiveResult { value: Some(value), predicate: None })
        }
        WarpCollective::Sync { .. } => {
            let fence = site.context.i32_type().const_int(LOCAL_MEMORY_FENCE, false);
            builtin_void(site, "_Z17sub_group_barrierj", &[fence.into()])?;
            Ok(CollectiveResult { value: None, predicate: None })
        }
        _ => crate::warp_lanes::lower(site, &SubGroup, collective),
    }
}

/// `redux.sync` over the active lanes within `member_mask`. When the mask holds every active
/// lane, that is the sub-group's non-uniform reduction; otherwise (cooperative groups' tiles of
/// 16, each reducing under its own half-warp mask while the other half does the same) the
/// reduction reads lane by lane. Every lane taking part has the same mask, so the branch between
/// the two is uniform over them.
fn reduce<'ctx>(
    site: &Site<'_, 'ctx>,
    operation: ReduxOperation,
    signed: bool,
    value: IntValue<'ctx>,
    member_mask: IntValue<'ctx>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let builder = site.builder;
    let context = site.context;
    let active = ballot(site, context.bool_type().const_int(1, false))?;
    let members = builder.build_and(active, member_mask, "members").map_err(failed("redux"))?;
    let whole = builder.build_int_compare(IntPredicate::EQ, members, active, "").map_err(failed("redux"))?;
    let start = builder.get_insert_block().ok_or_else(|| Unsupported { what: "redux outside a block".to_string() })?;
    let sub_group = context.insert_basic_block_after(start, "redux.sub_group");
    let lane_by_lane = context.insert_basic_block_after(sub_group, "redux.lanes");
    let join = context.insert_basic_block_after(lane_by_lane, "redux.join");
    builder.build_conditional_branch(whole, sub_group, lane_by_lane).map_err(failed("redux"))?;

    builder.position_at_end(sub_group);
    let name = match (operation, signed) {
        (ReduxOperation::Add, _) => "_Z32sub_group_non_uniform_reduce_addj",
        (ReduxOperation::Minimum, true) => "_Z32sub_group_non_uniform_reduce_mini",
        (ReduxOperation::Minimum, false) => "_Z32sub_group_non_uniform_reduce_minj",
        (ReduxOperation::Maximum, true) => "_Z32sub_group_non_uniform_reduce_maxi",
        (ReduxOperation::Maximum, false) => "_Z32sub_group_non_uniform_reduce_maxj",
        (ReduxOperation::And, _) => "_Z32sub_group_non_uniform_reduce_andj",
        (ReduxOperation::Or, _) => "_Z31sub_group_non_uniform_reduce_orj",
        (ReduxOperation::Xor, _) => "_Z32sub_group_non_uniform_reduce_xorj",
    };
    let whole_result = u32_builtin(site, name, &[value.into()])?;
    let sub_group_end = builder.get_insert_block().unwrap_or(sub_group);
    builder.build_unconditional_branch(join).map_err(failed("redux"))?;

    builder.position_at_end(lane_by_lane);
    let lanes_result = reduce_lane_by_lane(site, &SubGroup, operation, signed, value, members)?;
    let lanes_end = builder.get_insert_block().unwrap_or(lane_by_lane);
    builder.build_unconditional_branch(join).map_err(failed("redux"))?;

    builder.position_at_end(join);
    let result = builder.build_phi(context.i32_type(), "redux").map_err(failed("redux"))?;
    result.add_incoming(&[(&whole_result, sub_group_end), (&lanes_result, lanes_end)]);
    Ok(result.as_basic_value().into_int_value())
}

fn builtin_void<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<(), Unsupported> {
    let i32_type = site.context.i32_type();
    let function =
        function_or_declare(site.module, name, || site.context.void_type().fn_type(&[i32_type.into()], false));
    function.set_call_conventions(SPIR_FUNC);
    let call = site.builder.build_call(function, arguments, "").map_err(failed(name))?;
    call.set_call_convention(SPIR_FUNC);
    Ok(())
}

/// Asks for sub-groups of 32 for `kernel`: the `intel_reqd_sub_group_size` metadata, which the
/// SPIR-V back end emits as the `SubgroupSize` execution mode.
pub fn require_warp_size(site: &Site<'_, '_>, kernel: FunctionValue<'_>) {
    require_sub_group_size(site, kernel, 32)
}

/// Asks for sub-groups of `work_items` for `kernel` (see [`require_warp_size`]).
pub fn require_sub_group_size(site: &Site<'_, '_>, kernel: FunctionValue<'_>, work_items: u64) {
    use inkwell::values::AsValueRef;
    let context = site.context;
    let size = context.i32_type().const_int(work_items, false);
    let kind = context.get_kind_id("intel_reqd_sub_group_size");
    // inkwell's function metadata takes a metadata-as-value node, which is not what
    // `LLVMGlobalSetMetadata` expects, so the node is built through the C API.
    // SAFETY: every reference comes from live inkwell objects of this context.
    unsafe {
        let mut operands = [llvm_sys::core::LLVMValueAsMetadata(size.as_value_ref())];
        let node = llvm_sys::core::LLVMMDNodeInContext2(context.raw(), operands.as_mut_ptr(), operands.len());
        llvm_sys::core::LLVMGlobalSetMetadata(kernel.as_value_ref(), kind, node);
    }
}
