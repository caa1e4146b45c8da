//! `suld.b`, `sust.b`/`sust.p` and `sured.b`/`sured.p`: surface accesses at byte offset `x` (`.b`) or texel `x`
//! (`.p`) of the row and slice or layer the other coordinates choose, with PTX's boundary modes:
//! `.trap` traps, `.clamp` accesses the nearest place inside, `.zero` loads zero and drops
//! stores.

use inkwell::values::{BasicValue, BasicValueEnum, IntValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    surface_element_type, Destination, GuardedInstruction, MemoryOrdering, MemoryScope, Operand, SurfaceBoundary,
    SurfaceReduction, TextureGeometry,
};
use ptxr_frontend::vocabulary::{ScalarKind, ScalarType};
use ptxr_intrinsics::atomics::{self, ReadModifyWrite};
use ptxr_runtime::texture::{ChannelType, TextureField};

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

use super::addressing::size_field;
use super::descriptor::Descriptor;
use super::integer_type;
use super::sampling::layer_offset;
use super::texels::Format;

#[derive(Clone, Copy)]
pub struct Access {
    pub geometry: TextureGeometry,
    pub bits: u32,
    pub lanes: u32,
    pub boundary: SurfaceBoundary,
}

/// Where an access goes: its byte offset from the data (inside the surface whatever the
/// coordinates) and whether the coordinates were inside.
struct Place<'ctx> {
    offset: IntValue<'ctx>,
    inside: IntValue<'ctx>,
}

/// `x` counts bytes, or texels when `texel_x` (`sust.p`, whose access is one texel); `bytes`
/// is the size of a byte-addressed access.
fn place<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    descriptor: &Descriptor<'ctx>,
    format: &Format<'ctx>,
    geometry: TextureGeometry,
    coordinates: &[Operand],
    texel_x: bool,
    bytes: u64,
) -> LoweringResult<Place<'ctx>> {
    let builder = lowering.shared.builder;
    let i64_type = lowering.shared.context.i64_type();
    let zero = i64_type.const_zero();
    let one = i64_type.const_int(1, false);
    let array = geometry.is_array();
    let layer = if array { Some(lowering.read_int(&coordinates[0], ScalarType::U32)?) } else { None };
    let mut inside = lowering.shared.context.bool_type().const_all_ones();
    if let Some(layer) = layer {
        let layers = descriptor.wide_field(lowering, TextureField::Layers)?;
        let layer = builder.build_int_z_extend(layer, i64_type, "")?;
        inside = builder.build_and(inside, builder.build_int_compare(IntPredicate::ULT, layer, layers, "")?, "")?;
    }
    let mut offset = layer_offset(lowering, descriptor, layer)?;
    let strides = [
        i64_type.const_int(1, false),
        descriptor.field(lowering, TextureField::RowPitch)?,
        descriptor.field(lowering, TextureField::SlicePitch)?,
    ];
    for dimension in 0..geometry.dimensions() {
        let coordinate = lowering.read_int(&coordinates[dimension + usize::from(array)], ScalarType::S32)?;
        let mut value = builder.build_int_s_extend(coordinate, i64_type, "")?;
        let size = descriptor.wide_field(lowering, size_field(dimension))?;
        // The last place an access may start: the last byte offset that leaves room for the
        // access in the row (`x` of `.b`), or the last index.
        let last = if dimension == 0 {
            if texel_x {
                value = builder.build_int_mul(value, format.texel_bytes, "")?;
            }
            let row = builder.build_int_mul(size, format.texel_bytes, "")?;
            let access = if texel_x { format.texel_bytes } else { i64_type.const_int(bytes, false) };
            builder.build_int_sub(row, access, "")?
        } else {
            builder.build_int_sub(size, one, "")?
        };
        let at_least_zero = builder.build_int_compare(IntPredicate::SGE, value, zero, "")?;
        let at_most_last = builder.build_int_compare(IntPredicate::SLE, value, last, "")?;
        inside = builder.build_and(inside, builder.build_and(at_least_zero, at_most_last, "")?, "")?;
        let raised = builder.build_select(at_least_zero, value, zero, "")?.into_int_value();
        let below = builder.build_int_compare(IntPredicate::SLT, raised, last, "")?;
        let clamped = builder.build_select(below, raised, last, "")?.into_int_value();
        let stride = strides[dimension];
        offset = builder.build_int_add(offset, builder.build_int_mul(clamped, stride, "")?, "")?;
    }
    Ok(Place { offset, inside })
}

/// `.trap`: outside, the thread traps (the kernel stops, as `trap` does); `.zero` stores: the
/// store is skipped. Returns with the builder where the access goes on.
fn branch_on_boundary<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    boundary: SurfaceBoundary,
    inside: IntValue<'ctx>,
    is_store: bool,
) -> LoweringResult<Option<inkwell::basic_block::BasicBlock<'ctx>>> {
    let context = lowering.shared.context;
    let builder = lowering.shared.builder;
    let function = lowering.llvm_function;
    match boundary {
        SurfaceBoundary::Clamp => Ok(None),
        SurfaceBoundary::Zero if !is_store => Ok(None),
        SurfaceBoundary::Zero => {
            let access = context.append_basic_block(function, "surface.store");
            let after = context.append_basic_block(function, "surface.after");
            builder.build_conditional_branch(inside, access, after)?;
            builder.position_at_end(access);
            Ok(Some(after))
        }
        SurfaceBoundary::Trap => {
            let access = context.append_basic_block(function, "surface.inside");
            let outside = context.append_basic_block(function, "surface.outside");
            builder.build_conditional_branch(inside, access, outside)?;
            builder.position_at_end(outside);
            lowering.shared.target.trap(&lowering.site()).map_err(|unsupported| {
                LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span)
            })?;
            crate::instructions::call::mark_stopped(lowering)?;
            lowering.build_return()?;
            builder.position_at_end(access);
            Ok(None)
        }
    }
}

/// `suld.b.geom.vec.dtype.clamp d, [a, b]`.
#[allow(clippy::too_many_arguments)]
pub fn load<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    geometry: TextureGeometry,
    bits: u32,
    lanes: u32,
    boundary: SurfaceBoundary,
    destinations: &[Destination],
    handle: &Operand,
    coordinates: &[Operand],
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let descriptor = Descriptor::of(lowering, handle)?;
    let format = Format::of(lowering, &descriptor)?;
    let bytes = u64::from(bits / 8);
    let place = place(lowering, &descriptor, &format, geometry, coordinates, false, bytes * u64::from(lanes))?;
    branch_on_boundary(lowering, guarded, boundary, place.inside, false)?;
    let builder = lowering.shared.builder;
    let element = integer_type(context, bits);
    for (lane, destination) in destinations.iter().enumerate() {
        let offset =
            builder.build_int_add(place.offset, context.i64_type().const_int(bytes * lane as u64, false), "")?;
        let pointer = descriptor.data_at(lowering, offset)?;
        let load = builder.build_load(element, pointer, "")?;
        if let Some(instruction) = load.as_instruction_value() {
            let _ = instruction.set_alignment(1);
        }
        let mut value = load.into_int_value();
        if boundary == SurfaceBoundary::Zero {
            value = builder.build_select(place.inside, value, element.const_zero(), "")?.into_int_value();
        }
        lowering.write(destination, value.into(), surface_element_type(bits))?;
    }
    Ok(())
}

/// `sust.b.geom.vec.ctype.clamp [a, b], c`.
pub fn store<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    access: Access,
    handle: &Operand,
    coordinates: &[Operand],
    sources: &[Operand],
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let descriptor = Descriptor::of(lowering, handle)?;
    let format = Format::of(lowering, &descriptor)?;
    let bytes = u64::from(access.bits / 8);
    let ty = surface_element_type(access.bits);
    // The values are read before any branch, as the instruction reads its operands.
    let values: Vec<IntValue<'ctx>> =
        sources.iter().map(|source| lowering.read_int(source, ty)).collect::<LoweringResult<_>>()?;
    let place =
        place(lowering, &descriptor, &format, access.geometry, coordinates, false, bytes * u64::from(access.lanes))?;
    let after = branch_on_boundary(lowering, guarded, access.boundary, place.inside, true)?;
    let builder = lowering.shared.builder;
    for (lane, value) in values.iter().enumerate() {
        let offset =
            builder.build_int_add(place.offset, context.i64_type().const_int(bytes * lane as u64, false), "")?;
        let pointer = descriptor.data_at(lowering, offset)?;
        let store = builder.build_store(pointer, BasicValueEnum::from(*value))?;
        let _ = store.set_alignment(1);
    }
    if let Some(after) = after {
        builder.build_unconditional_branch(after)?;
        builder.position_at_end(after);
    }
    Ok(())
}

/// `sust.p.geom.vec.b32.clamp [a, b], c`: channel values converted to the surface's format;
/// lanes beyond the surface's channels are ignored.
pub fn store_formatted<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    access: Access,
    handle: &Operand,
    coordinates: &[Operand],
    sources: &[Operand],
) -> LoweringResult<()> {
    let descriptor = Descriptor::of(lowering, handle)?;
    let format = Format::of(lowering, &descriptor)?;
    let values: Vec<IntValue<'ctx>> =
        sources.iter().map(|source| lowering.read_int(source, ScalarType::B32)).collect::<LoweringResult<_>>()?;
    let place = place(lowering, &descriptor, &format, access.geometry, coordinates, true, 0)?;
    let after = branch_on_boundary(lowering, guarded, access.boundary, place.inside, true)?;
    let pointer = descriptor.data_at(lowering, place.offset)?;
    for (channel, value) in values.iter().enumerate() {
        format.write(lowering, pointer, channel as u32, *value)?;
    }
    if let Some(after) = after {
        let builder = lowering.shared.builder;
        builder.build_unconditional_branch(after)?;
        builder.position_at_end(after);
    }
    Ok(())
}

/// `sured.b.op.geom.ctype.clamp [a, b], c` and `sured.p.op.geom.b32.clamp [a, b], c`: an
/// atomic read-modify-write of the element `sust.b` would store at byte `x` (`.b`), or of the
/// first channel of texel `x` (`.p`), with the boundary modes of a store. `.p` reduces a
/// surface whose channels are 32 bits wide, as signed integers when they are `.s32` and as
/// unsigned ones otherwise (the spec: UINT or SINT formats); on a narrower format it does
/// nothing.
#[allow(clippy::too_many_arguments)]
pub fn reduce<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    geometry: TextureGeometry,
    formatted: bool,
    operation: SurfaceReduction,
    ty: ScalarType,
    boundary: SurfaceBoundary,
    handle: &Operand,
    coordinates: &[Operand],
    source: &Operand,
) -> LoweringResult<()> {
    let context = lowering.shared.context;
    let descriptor = Descriptor::of(lowering, handle)?;
    let format = Format::of(lowering, &descriptor)?;
    let value = lowering.read_int(source, ty)?;
    let place = place(lowering, &descriptor, &format, geometry, coordinates, formatted, u64::from(ty.bytes()))?;
    let after = branch_on_boundary(lowering, guarded, boundary, place.inside, true)?;
    let builder = lowering.shared.builder;
    let pointer = descriptor.data_at(lowering, place.offset)?;
    let function = lowering.llvm_function;
    let done = context.append_basic_block(function, "surface.reduced");
    // Each arm: the condition that chooses it (`None`: always) and its operation.
    let signed_operation = |signed: bool| match operation {
        SurfaceReduction::Add => ReadModifyWrite::Add,
        SurfaceReduction::And => ReadModifyWrite::And,
        SurfaceReduction::Or => ReadModifyWrite::Or,
        SurfaceReduction::Minimum if signed => ReadModifyWrite::SignedMinimum,
        SurfaceReduction::Minimum => ReadModifyWrite::UnsignedMinimum,
        SurfaceReduction::Maximum if signed => ReadModifyWrite::SignedMaximum,
        SurfaceReduction::Maximum => ReadModifyWrite::UnsignedMaximum,
    };
    if formatted {
        let i32_type = context.i32_type();
        let wide =
            builder.build_int_compare(IntPredicate::EQ, format.channel_bytes, i32_type.const_int(4, false), "")?;
        let signed = format.is(lowering, ChannelType::S32)?;
        let signed_block = context.append_basic_block(function, "surface.reduce.signed");
        let unsigned_block = context.append_basic_block(function, "surface.reduce.unsigned");
        let choose = context.append_basic_block(function, "surface.reduce.format");
        builder.build_conditional_branch(wide, choose, done)?;
        builder.position_at_end(choose);
        builder.build_conditional_branch(signed, signed_block, unsigned_block)?;
        for (block, is_signed) in [(signed_block, true), (unsigned_block, false)] {
            builder.position_at_end(block);
            let signed_type = if is_signed { ScalarType::S32 } else { ScalarType::U32 };
            atomic(lowering, guarded, signed_operation(is_signed), signed_type, pointer, value)?;
            lowering.shared.builder.build_unconditional_branch(done)?;
        }
    } else {
        atomic(lowering, guarded, signed_operation(ty.kind() == ScalarKind::Signed), ty, pointer, value)?;
        builder.build_unconditional_branch(done)?;
    }
    let builder = lowering.shared.builder;
    builder.position_at_end(done);
    if let Some(after) = after {
        builder.build_unconditional_branch(after)?;
        builder.position_at_end(after);
    }
    Ok(())
}

/// One relaxed, device-scope atomic of `ty` at `pointer` (a compare-and-swap loop where the
/// target has no instruction for it).
fn atomic<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: ReadModifyWrite,
    ty: ScalarType,
    pointer: inkwell::values::PointerValue<'ctx>,
    value: IntValue<'ctx>,
) -> LoweringResult<()> {
    let target = lowering.shared.target;
    let failed = |unsupported: ptxr_intrinsics::Unsupported| {
        LoweringError::unsupported(&unsupported.what, lowering.target_name(), guarded.span)
    };
    target.supports_atomic(operation, ty).map_err(failed)?;
    let site = lowering.site();
    let scope = target.sync_scope(MemoryScope::Gpu);
    let ordering = MemoryOrdering::Relaxed;
    if target.atomic_by_compare_and_swap(operation, ty) {
        atomics::read_modify_write_by_compare_and_swap(
            &site,
            operation,
            pointer,
            value.into(),
            ordering,
            scope,
            ty.bytes(),
        )
        .map_err(failed)?;
    } else {
        atomics::read_modify_write(&site, operation, pointer, value.into(), ordering, scope, ty.bytes())
            .map_err(failed)?;
    }
    Ok(())
}
