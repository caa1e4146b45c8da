//! `cp.async.bulk.tensor` in tile mode (PTX ISA 8.0, "Tensor copy" and "Tiled mode"): a box of
//! a tensor in global memory, described by a tensor map (`tensor_map.rs`), copied to or from its
//! dense image in shared memory.
//!
//! On the targets without the tensor memory accelerator the copy is a loop over the box's
//! bytes, complete before the next instruction (`bulk_copy.rs` says why that is a valid
//! execution). The box has `ceil(box_dim[d] / element_stride[d])` elements along dimension `d`,
//! the first at the coordinates and each next one `element_stride[d]` further; its image in
//! shared memory is row-major with dimension 0 innermost, swizzled by the map's mode
//! (`shared_memory_swizzle.rs`). A load fills the elements outside the tensor (a coordinate
//! below zero or at or past `global_dim[d]`) with zeros, or with NaNs of the element type when
//! the map's fill mode asks for them (floating-point types only), and completes the whole
//! box's bytes on the mbarrier; a store writes only the elements inside the tensor.

use inkwell::values::{BasicMetadataValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{Address, BulkCopyDirection, GuardedInstruction, Operand};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

use super::bulk_copy::{as_integer, complete_transactions, native};
use super::shared_memory_swizzle::swizzled_offset;
use super::tensor_map;
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// log2 of the element size of each `.elemtype` code (0 `.u8` to 12 `.tf32.ftz`), two bits per
/// code: `.u8` 1 byte; `.u16`, `.f16`, `.bf16` 2; `.u32`, `.s32`, `.f32`, `.f32.ftz`, `.tf32`,
/// `.tf32.ftz` 4; `.u64`, `.s64`, `.f64` 8. The sub-byte codes of later ISAs read as bytes.
const ELEMENT_SIZE_LOG2: [u64; 13] = [0, 1, 2, 2, 3, 3, 1, 2, 2, 3, 1, 2, 2];
/// The floating-point `.elemtype` codes, `.f16` (6) to `.tf32.ftz` (12): the ones a NaN fill
/// applies to.
const FIRST_FLOAT_TYPE: u64 = 6;
const LAST_FLOAT_TYPE: u64 = 12;
/// `.fill_mode`'s code for NaN.
const FILL_NAN: u64 = 1;

const fn element_size_table() -> u64 {
    let mut table = 0;
    let mut code = 0;
    while code < ELEMENT_SIZE_LOG2.len() {
        table |= ELEMENT_SIZE_LOG2[code] << (2 * code);
        code += 1;
    }
    table
}

#[allow(clippy::too_many_arguments)]
pub fn copy<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    direction: BulkCopyDirection,
    dimensions: u32,
    shared: &Address,
    tensor_map: &Address,
    coordinates: &[Operand],
    mbarrier: Option<&Address>,
) -> LoweringResult<()> {
    let shared_pointer = lowering.address(shared, StateSpace::Shared)?;
    let map = lowering.address(tensor_map, StateSpace::Generic)?;
    let coordinates = coordinates
        .iter()
        .map(|coordinate| lowering.read_int(coordinate, ScalarType::S32))
        .collect::<LoweringResult<Vec<_>>>()?;
    let barrier = mbarrier.map(|address| lowering.address(address, StateSpace::Shared)).transpose()?;
    let load = direction == BulkCopyDirection::GlobalToShared;
    let list: Vec<String> = (0..dimensions).map(|index| format!("${}", index + 1)).collect();
    let list = list.join(", ");
    let last = dimensions + 1;
    let text = if load {
        format!(
            "cp.async.bulk.tensor.{dimensions}d.shared::cluster.global.tile.mbarrier::complete_tx::bytes \
             [${last}], [$0, {{{list}}}], [${}];",
            last + 1
        )
    } else {
        format!("cp.async.bulk.tensor.{dimensions}d.global.shared::cta.tile.bulk_group [$0, {{{list}}}], [${last}];")
    };
    let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = vec![as_integer(lowering, map)?.into()];
    arguments.extend(coordinates.iter().map(|coordinate| BasicMetadataValueEnum::from(*coordinate)));
    arguments.push(as_integer(lowering, shared_pointer)?.into());
    if let Some(barrier) = barrier {
        arguments.push(as_integer(lowering, barrier)?.into());
    }
    if native(lowering, guarded, &text, &arguments)? {
        return Ok(());
    }
    let bytes = box_loop(lowering, guarded, load, map, shared_pointer, &coordinates)?;
    if let Some(barrier) = barrier {
        let bytes = lowering.shared.builder.build_int_truncate(bytes, lowering.shared.context.i32_type(), "")?;
        complete_transactions(lowering, guarded, barrier, bytes)?;
    }
    Ok(())
}

/// The loop over the box's bytes; returns the box's size in bytes (i64).
fn box_loop<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    load: bool,
    map: PointerValue<'ctx>,
    shared: PointerValue<'ctx>,
    coordinates: &[IntValue<'ctx>],
) -> LoweringResult<IntValue<'ctx>> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let i8_type = context.i8_type();
    let i32_type = context.i32_type();
    let i64_type = context.i64_type();
    let constant = |value: u64| i64_type.const_int(value, false);
    let field = |offset: u64, wide: bool| -> LoweringResult<IntValue<'ctx>> {
        // SAFETY: offsets inside the 128-byte map.
        let slot = unsafe { builder.build_gep(i8_type, map, &[constant(offset)], "")? };
        let ty = if wide { i64_type } else { i32_type };
        let value = builder.build_load(ty, slot, "tensormap.field")?.into_int_value();
        if wide {
            Ok(value)
        } else {
            Ok(builder.build_int_z_extend(value, i64_type, "")?)
        }
    };
    let element_type = field(tensor_map::ELEMENT_TYPE, false)?;
    let code = builder.build_select(
        builder.build_int_compare(IntPredicate::ULT, element_type, constant(ELEMENT_SIZE_LOG2.len() as u64), "")?,
        element_type,
        constant(0),
        "",
    )?;
    let shift = builder.build_left_shift(code.into_int_value(), constant(1), "")?;
    let table = builder.build_right_shift(constant(element_size_table()), shift, false, "")?;
    let size_log2 = builder.build_and(table, constant(3), "element.size.log2")?;
    let size = builder.build_left_shift(constant(1), size_log2, "element.size")?;
    let is_float = builder.build_and(
        builder.build_int_compare(IntPredicate::UGE, element_type, constant(FIRST_FLOAT_TYPE), "")?,
        builder.build_int_compare(IntPredicate::ULE, element_type, constant(LAST_FLOAT_TYPE), "")?,
        "",
    )?;
    let fill_mode = field(tensor_map::FILL_MODE, false)?;
    let nan_fill = builder.build_and(
        is_float,
        builder.build_int_compare(IntPredicate::EQ, fill_mode, constant(FILL_NAN), "")?,
        "fill.nan",
    )?;
    let swizzle_mode = builder.build_int_truncate(field(tensor_map::SWIZZLE_MODE, false)?, i32_type, "")?;
    let global_address = field(tensor_map::GLOBAL_ADDRESS, true)?;
    let global_space = lowering.shared.target.address_space(StateSpace::Global);
    let global = builder.build_int_to_ptr(global_address, context.ptr_type(global_space), "tensor")?;

    struct Dimension<'ctx> {
        start: IntValue<'ctx>,
        count: IntValue<'ctx>,
        step: IntValue<'ctx>,
        extent: IntValue<'ctx>,
        stride: IntValue<'ctx>,
    }
    let mut dimensions = Vec::new();
    let mut total = constant(1);
    for (index, coordinate) in coordinates.iter().enumerate() {
        let index = index as u64;
        let box_extent = field(tensor_map::BOX_DIMENSIONS + 4 * index, false)?;
        let element_stride = field(tensor_map::ELEMENT_STRIDES + 4 * index, false)?;
        // An element stride of 0 (an all-zero map) is one.
        let is_zero = builder.build_int_compare(IntPredicate::EQ, element_stride, constant(0), "")?;
        let step = builder.build_select(is_zero, constant(1), element_stride, "")?.into_int_value();
        let rounded_up = builder.build_int_add(box_extent, builder.build_int_sub(step, constant(1), "")?, "")?;
        let count = builder.build_int_unsigned_div(rounded_up, step, "box.count")?;
        let extent = field(tensor_map::GLOBAL_DIMENSIONS + 4 * index, false)?;
        let stride = if index == 0 { size } else { field(tensor_map::GLOBAL_STRIDES + 8 * (index - 1), true)? };
        let start = builder.build_int_s_extend(*coordinate, i64_type, "")?;
        total = builder.build_int_mul(total, count, "")?;
        dimensions.push(Dimension { start, count, step, extent, stride });
    }
    let total_bytes = builder.build_left_shift(total, size_log2, "box.bytes")?;

    let function = lowering.llvm_function;
    let entry = builder
        .get_insert_block()
        .ok_or_else(|| LoweringError::internal("no insertion block for a tensor copy", guarded.span))?;
    let header = context.append_basic_block(function, "tensor.copy");
    let body = context.append_basic_block(function, "tensor.copy.byte");
    let inside = context.append_basic_block(function, "tensor.copy.inside");
    let next_block = context.append_basic_block(function, "tensor.copy.next");
    let done = context.append_basic_block(function, "tensor.copied");
    builder.build_unconditional_branch(header)?;
    builder.position_at_end(header);
    let index = builder.build_phi(i64_type, "tensor.byte")?;
    let byte_index = index.as_basic_value().into_int_value();
    let more = builder.build_int_compare(IntPredicate::ULT, byte_index, total_bytes, "")?;
    builder.build_conditional_branch(more, body, done)?;

    builder.position_at_end(body);
    let element = builder.build_right_shift(byte_index, size_log2, false, "")?;
    let byte_in_element = builder.build_and(byte_index, builder.build_int_sub(size, constant(1), "")?, "")?;
    let mut remaining = element;
    let mut in_bounds = context.bool_type().const_all_ones();
    let mut offset = byte_in_element;
    for dimension in &dimensions {
        let position = builder.build_int_unsigned_rem(remaining, dimension.count, "")?;
        remaining = builder.build_int_unsigned_div(remaining, dimension.count, "")?;
        let coordinate =
            builder.build_int_add(dimension.start, builder.build_int_mul(position, dimension.step, "")?, "")?;
        let above = builder.build_int_compare(IntPredicate::SGE, coordinate, constant(0), "")?;
        let below = builder.build_int_compare(IntPredicate::SLT, coordinate, dimension.extent, "")?;
        in_bounds = builder.build_and(in_bounds, builder.build_and(above, below, "")?, "")?;
        offset = builder.build_int_add(offset, builder.build_int_mul(coordinate, dimension.stride, "")?, "")?;
    }
    let shared_offset = swizzled_offset(context, builder, byte_index, swizzle_mode)?;
    // SAFETY: inside the box's image, which the program promises fits its buffer.
    let shared_byte = unsafe { builder.build_gep(i8_type, shared, &[shared_offset], "")? };
    if load {
        // An element outside the tensor is its fill: zero bytes, or a NaN's (0x7f in the top
        // byte, 0xff below: 0x7fffffff for `.f32`).
        let top = builder.build_int_compare(
            IntPredicate::EQ,
            byte_in_element,
            builder.build_int_sub(size, constant(1), "")?,
            "",
        )?;
        let nan_byte = builder.build_select(top, i8_type.const_int(0x7f, false), i8_type.const_int(0xff, false), "")?;
        let fill = builder.build_select(nan_fill, nan_byte.into_int_value(), i8_type.const_zero(), "fill")?;
        builder.build_store(shared_byte, fill)?;
    }
    builder.build_conditional_branch(in_bounds, inside, next_block)?;

    builder.position_at_end(inside);
    // SAFETY: an element inside the tensor.
    let global_byte = unsafe { builder.build_gep(i8_type, global, &[offset], "")? };
    if load {
        let value = builder.build_load(i8_type, global_byte, "")?;
        builder.build_store(shared_byte, value)?;
    } else {
        let value = builder.build_load(i8_type, shared_byte, "")?;
        builder.build_store(global_byte, value)?;
    }
    builder.build_unconditional_branch(next_block)?;

    builder.position_at_end(next_block);
    let next = builder.build_int_add(byte_index, constant(1), "")?;
    builder.build_unconditional_branch(header)?;
    index.add_incoming(&[(&constant(0), entry), (&next, next_block)]);
    builder.position_at_end(done);
    Ok(total_bytes)
}

/// `cp.async.bulk.prefetch.tensor.Nd.L2.global [map, {c...}]`: NVPTX's own; a hint that
/// changes no value, so nothing elsewhere.
pub fn prefetch<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    dimensions: u32,
    tensor_map: &Address,
    coordinates: &[Operand],
) -> LoweringResult<()> {
    let map = lowering.address(tensor_map, StateSpace::Generic)?;
    let mut arguments: Vec<BasicMetadataValueEnum<'ctx>> = vec![as_integer(lowering, map)?.into()];
    for coordinate in coordinates {
        arguments.push(lowering.read_int(coordinate, ScalarType::S32)?.into());
    }
    let list: Vec<String> = (1..=dimensions).map(|index| format!("${index}")).collect();
    let text = format!("cp.async.bulk.prefetch.tensor.{dimensions}d.L2.global.tile [$0, {{{}}}];", list.join(", "));
    native(lowering, guarded, &text, &arguments)?;
    Ok(())
}
