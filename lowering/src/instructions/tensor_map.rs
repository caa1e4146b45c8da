//! Tensor maps (PTX ISA 8.3, "Tensor-map"): `tensormap.replace`, `tensormap.cp_fenceproxy` and
//! `fence.proxy.tensormap::generic`.
//!
//! PTX leaves the 128-byte map opaque. NVPTX keeps the instructions (the GPU's own format); on
//! the other targets the map is ptxr's own layout below, written by `tensormap.replace` and
//! read by `cp.async.bulk.tensor` (`tensor_copy.rs`), each field holding the value
//! `tensormap.replace` writes (PTX's encodings), so that an all-zero map is the defaults: no
//! interleave, no swizzle, zero fill, and element strides of one (0 is read as 1).
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..8 | `global_address` |
//! | 8..12 | `rank` (dimensions less one) |
//! | 12..16 | `elemtype` |
//! | 16..20 | `interleave_layout` |
//! | 20..24 | `swizzle_mode` |
//! | 24..28 | `fill_mode` |
//! | 28..32 | `swizzle_atomicity` |
//! | 32..52 | `global_dim[0..5]` |
//! | 52..72 | `box_dim[0..5]` |
//! | 72..92 | `element_stride[0..5]` |
//! | 92..96 | unused |
//! | 96..128 | `global_stride[0..4]`, the byte strides of dimensions 1 to 4 |

use ptxr_frontend::ir::{Address, GuardedInstruction, MemoryOrdering, MemoryScope, Operand, TensorMapField};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

use super::bulk_copy::{as_integer, copy_bytes, native};
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

pub const BYTES: u64 = 128;
pub const GLOBAL_ADDRESS: u64 = 0;
pub const RANK: u64 = 8;
pub const ELEMENT_TYPE: u64 = 12;
pub const INTERLEAVE_LAYOUT: u64 = 16;
pub const SWIZZLE_MODE: u64 = 20;
pub const FILL_MODE: u64 = 24;
pub const SWIZZLE_ATOMICITY: u64 = 28;
pub const GLOBAL_DIMENSIONS: u64 = 32;
pub const BOX_DIMENSIONS: u64 = 52;
pub const ELEMENT_STRIDES: u64 = 72;
pub const GLOBAL_STRIDES: u64 = 96;

/// The byte offset of `field` (its entry `ordinal` for the per-dimension fields).
pub fn field_offset(field: TensorMapField, ordinal: u32) -> u64 {
    let ordinal = u64::from(ordinal);
    match field {
        TensorMapField::GlobalAddress => GLOBAL_ADDRESS,
        TensorMapField::Rank => RANK,
        TensorMapField::ElementType => ELEMENT_TYPE,
        TensorMapField::InterleaveLayout => INTERLEAVE_LAYOUT,
        TensorMapField::SwizzleMode => SWIZZLE_MODE,
        TensorMapField::FillMode => FILL_MODE,
        TensorMapField::SwizzleAtomicity => SWIZZLE_ATOMICITY,
        TensorMapField::GlobalDimension => GLOBAL_DIMENSIONS + 4 * ordinal,
        TensorMapField::BoxDimension => BOX_DIMENSIONS + 4 * ordinal,
        TensorMapField::ElementStride => ELEMENT_STRIDES + 4 * ordinal,
        TensorMapField::GlobalStride => GLOBAL_STRIDES + 8 * ordinal,
    }
}

/// `tensormap.replace.tile.field.space.b1024.bN [a]{, ordinal}, value`.
pub fn replace<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    field: TensorMapField,
    state_space: StateSpace,
    address: &Address,
    ordinal: Option<u32>,
    value: &Operand,
) -> LoweringResult<()> {
    let ty = if field.is_64_bit() { ScalarType::B64 } else { ScalarType::B32 };
    let map = lowering.address(address, state_space)?;
    let new_value = lowering.read_int(value, ty)?;
    let space = if state_space == StateSpace::Shared { "shared::cta" } else { "global" };
    let ordinal_text = ordinal.map_or(String::new(), |ordinal| format!(" {ordinal},"));
    // The enumerated fields take an immediate (ptxas: "Integer constant expression expected"),
    // which the checker requires.
    let (value_text, arguments) = match new_value.get_zero_extended_constant() {
        Some(constant) if field.takes_immediate() => (constant.to_string(), vec![as_integer(lowering, map)?.into()]),
        _ => ("$1".to_string(), vec![as_integer(lowering, map)?.into(), new_value.into()]),
    };
    let text = format!("tensormap.replace.tile.{field}.{space}.b1024.b{} [$0],{ordinal_text} {value_text};", ty.bits());
    if native(lowering, guarded, &text, &arguments)? {
        return Ok(());
    }
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let offset = context.i64_type().const_int(field_offset(field, ordinal.unwrap_or(0)), false);
    // SAFETY: an offset inside the 128-byte map.
    let slot = unsafe { builder.build_gep(context.i8_type(), map, &[offset], "tensormap.field")? };
    let store = builder.build_store(slot, new_value)?;
    store.set_alignment(if field.is_64_bit() { 8 } else { 4 }).map_err(|error| {
        crate::error::LoweringError::internal(format!("a tensor-map store ({error})"), guarded.span)
    })?;
    Ok(())
}

/// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
/// [d], [a], 128`: the copy, then the release fence. Without a separate tensor-map proxy, the
/// fence is an ordinary release fence at `scope`.
pub fn copy_fence_proxy<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    scope: MemoryScope,
    destination: &Address,
    source: &Address,
) -> LoweringResult<()> {
    let to = lowering.address(destination, StateSpace::Global)?;
    let from = lowering.address(source, StateSpace::Shared)?;
    let text = format!(
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release{scope}.sync.aligned [$0], [$1], 128;"
    );
    let arguments = [as_integer(lowering, to)?.into(), as_integer(lowering, from)?.into()];
    if native(lowering, guarded, &text, &arguments)? {
        return Ok(());
    }
    let size = lowering.shared.context.i64_type().const_int(BYTES, false);
    copy_bytes(lowering, to, from, size)?;
    super::synchronization::fence(lowering, guarded, MemoryOrdering::Release, scope)
}

/// `fence.proxy.tensormap::generic.release.scope` and `.acquire.scope [a], 128`: an ordinary
/// fence of that ordering at `scope` where the tensor-map proxy is the generic one.
pub fn fence<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    scope: MemoryScope,
    acquire: Option<&Address>,
) -> LoweringResult<()> {
    let (text, arguments) = match acquire {
        Some(address) => {
            let map = lowering.address(address, StateSpace::Generic)?;
            (
                format!("fence.proxy.tensormap::generic.acquire{scope} [$0], 128;"),
                vec![as_integer(lowering, map)?.into()],
            )
        }
        None => (format!("fence.proxy.tensormap::generic.release{scope};"), Vec::new()),
    };
    if native(lowering, guarded, &text, &arguments)? {
        return Ok(());
    }
    let ordering = if acquire.is_some() { MemoryOrdering::Acquire } else { MemoryOrdering::Release };
    super::synchronization::fence(lowering, guarded, ordering, scope)
}
