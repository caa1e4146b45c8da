//! `wmma.load` and `wmma.store` on `.m16n16k16` and `.m32n8k16` (ISA 7.8 section 9.7.13.3). Each lane reads or
//! writes its own elements: the fragments are `mma.m16n8k16`'s (see the frontend's
//! `decode/warp_matrix.rs`, which turns `wmma.mma` into two such `mma`), so element `(row,
//! col)` of a register depends only on the lane's group `g = lane / 4` and its index in the
//! group `t = lane % 4`. The stride, in elements, is the distance between rows (`.row`) or
//! columns (`.col`); without one it is the matrix's own width or height.

use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use ptxr_frontend::ir::{Address, Destination, GuardedInstruction, MatrixElement, MatrixLayout, Operand};
use ptxr_frontend::ir::{WarpMatrixFragment, WarpMatrixGeometry, WarpMatrixShape};
use ptxr_frontend::vocabulary::{ScalarType, SpecialRegister};

use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// Where element `half` (0 for the low `.f16` of a `.b32`, or the whole `.f32`) of fragment
/// register `register` lies: `(row, column)` as `(g or 2t, offset)` pairs.
struct Position {
    /// Whether the row follows the group (`g + offset`) rather than the index (`2t + offset`).
    row_from_group: bool,
    row_offset: u64,
    column_offset: u64,
}

fn position(shape: &WarpMatrixShape, register: u64, half: u64) -> Position {
    if shape.geometry == WarpMatrixGeometry::M32n8k16 {
        return tall_position(shape, register, half);
    }
    match (shape.fragment, shape.element) {
        // `mma`'s A: rows `g` and `g + 8`, columns `2t` and `2t + 8`; registers 4 to 7 repeat 0 to 3.
        (WarpMatrixFragment::A, _) => Position {
            row_from_group: true,
            row_offset: 8 * (register & 1),
            column_offset: half + 8 * ((register & 3) >> 1),
        },
        // `mma`'s B of the left half, then of the right half (`k` rows `2t`, `2t + 8`; column `g`).
        (WarpMatrixFragment::B, _) => Position {
            row_from_group: false,
            row_offset: half + 8 * (register & 1),
            column_offset: 8 * ((register & 3) >> 1),
        },
        // `mma`'s `.f32` C of each half: four registers, rows `g` and `g + 8`, columns `2t`, `2t + 1`.
        (WarpMatrixFragment::C, MatrixElement::F32) => Position {
            row_from_group: true,
            row_offset: 8 * ((register & 3) >> 1),
            column_offset: (register & 1) + 8 * (register >> 2),
        },
        // `mma`'s `.f16` C of each half: two registers, rows `g` and `g + 8`.
        (WarpMatrixFragment::C, _) => {
            Position { row_from_group: true, row_offset: 8 * (register & 1), column_offset: half + 8 * (register >> 1) }
        }
    }
}

/// `.m32n8k16`: A and C/D are two `mma.m16n8k16` operands stacked (rows 16 to 31 in A's last
/// four registers and in C's second half), B is that `mma`'s B (registers 2 to 7 repeat 0 and 1).
fn tall_position(shape: &WarpMatrixShape, register: u64, half: u64) -> Position {
    match (shape.fragment, shape.element) {
        (WarpMatrixFragment::A, _) => Position {
            row_from_group: true,
            row_offset: 8 * (register & 1) + 16 * (register >> 2),
            column_offset: half + 8 * ((register & 3) >> 1),
        },
        (WarpMatrixFragment::B, _) => {
            Position { row_from_group: false, row_offset: half + 8 * (register & 1), column_offset: 0 }
        }
        (WarpMatrixFragment::C, MatrixElement::F32) => Position {
            row_from_group: true,
            row_offset: 8 * ((register & 3) >> 1) + 16 * (register >> 2),
            column_offset: register & 1,
        },
        (WarpMatrixFragment::C, _) => Position {
            row_from_group: true,
            row_offset: 8 * (register & 1) + 16 * (register >> 1),
            column_offset: half,
        },
    }
}

/// The distance between rows (`.row`) or columns (`.col`) of a matrix stored without gaps.
fn dense_stride(shape: &WarpMatrixShape) -> u64 {
    let (rows, columns) = match (shape.geometry, shape.fragment) {
        (WarpMatrixGeometry::M16n16k16, _) => (16, 16),
        (WarpMatrixGeometry::M32n8k16, WarpMatrixFragment::A) => (32, 16),
        (WarpMatrixGeometry::M32n8k16, WarpMatrixFragment::B) => (16, 8),
        (WarpMatrixGeometry::M32n8k16, WarpMatrixFragment::C) => (32, 8),
    };
    match shape.layout {
        MatrixLayout::Row => columns,
        MatrixLayout::Column => rows,
    }
}

/// The lane's view of the matrix in memory.
struct Placement<'ctx> {
    base: PointerValue<'ctx>,
    stride: IntValue<'ctx>,
    group: IntValue<'ctx>,
    index_twice: IntValue<'ctx>,
}

impl<'ctx> Placement<'ctx> {
    fn new(
        lowering: &FunctionLowering<'_, 'ctx>,
        guarded: &GuardedInstruction,
        shape: &WarpMatrixShape,
        address: &Address,
        stride: Option<&Operand>,
    ) -> LoweringResult<Self> {
        let builder = lowering.shared.builder;
        let i64_type = lowering.shared.context.i64_type();
        let lane = lowering
            .shared
            .target
            .special_register(&lowering.site(), SpecialRegister::LaneId)
            .map_err(super::matrix::unsupported(lowering, guarded))?;
        let lane = builder.build_int_z_extend(lane, i64_type, "")?;
        let group = builder.build_right_shift(lane, i64_type.const_int(2, false), false, "")?;
        let index = builder.build_and(lane, i64_type.const_int(3, false), "")?;
        let index_twice = builder.build_left_shift(index, i64_type.const_int(1, false), "")?;
        let stride = match stride {
            Some(stride) => builder.build_int_z_extend(lowering.read_int(stride, ScalarType::U32)?, i64_type, "")?,
            None => i64_type.const_int(dense_stride(shape), false),
        };
        let base = lowering.address(address, shape.state_space)?;
        Ok(Placement { base, stride, group, index_twice })
    }

    /// The address of element `half` of fragment register `register`.
    fn element(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        shape: &WarpMatrixShape,
        register: u64,
        half: u64,
    ) -> LoweringResult<PointerValue<'ctx>> {
        let builder = lowering.shared.builder;
        let context = lowering.shared.context;
        let i64_type = context.i64_type();
        let position = position(shape, register, half);
        let (row_base, column_base) =
            if position.row_from_group { (self.group, self.index_twice) } else { (self.index_twice, self.group) };
        let row = builder.build_int_add(row_base, i64_type.const_int(position.row_offset, false), "")?;
        let column = builder.build_int_add(column_base, i64_type.const_int(position.column_offset, false), "")?;
        let (major, minor) = match shape.layout {
            MatrixLayout::Row => (row, column),
            MatrixLayout::Column => (column, row),
        };
        let offset = builder.build_int_add(builder.build_int_mul(major, self.stride, "")?, minor, "")?;
        let element_type = match shape.element {
            MatrixElement::F32 => context.f32_type(),
            _ => context.f16_type(),
        };
        // SAFETY: PTX requires the matrix to lie in memory the kernel may access.
        Ok(unsafe { builder.build_gep(element_type, self.base, &[offset], "")? })
    }
}

pub fn load(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    shape: &WarpMatrixShape,
    destinations: &[Destination],
    address: &Address,
    stride: Option<&Operand>,
) -> LoweringResult<()> {
    let placement = Placement::new(lowering, guarded, shape, address, stride)?;
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    for (register, destination) in destinations.iter().enumerate() {
        let register = register as u64;
        if shape.element == MatrixElement::F32 {
            let value = builder.build_load(context.f32_type(), placement.element(lowering, shape, register, 0)?, "")?;
            set_alignment(value, 4);
            lowering.write(destination, value, ScalarType::F32)?;
            continue;
        }
        let mut packed = context.i32_type().const_zero();
        for half in 0..2 {
            let pointer = placement.element(lowering, shape, register, half)?;
            let value = builder.build_load(context.i16_type(), pointer, "")?;
            set_alignment(value, 2);
            let wide = builder.build_int_z_extend(value.into_int_value(), context.i32_type(), "")?;
            let shifted = builder.build_left_shift(wide, context.i32_type().const_int(16 * half, false), "")?;
            packed = builder.build_or(packed, shifted, "")?;
        }
        lowering.write(destination, packed.into(), ScalarType::B32)?;
    }
    Ok(())
}

pub fn store(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    shape: &WarpMatrixShape,
    address: &Address,
    sources: &[Operand],
    stride: Option<&Operand>,
) -> LoweringResult<()> {
    let placement = Placement::new(lowering, guarded, shape, address, stride)?;
    let builder = lowering.shared.builder;
    let context = lowering.shared.context;
    for (register, source) in sources.iter().enumerate() {
        let register = register as u64;
        if shape.element == MatrixElement::F32 {
            let value = lowering.read(source, ScalarType::F32)?;
            let store = builder.build_store(placement.element(lowering, shape, register, 0)?, value)?;
            let _ = store.set_alignment(4);
            continue;
        }
        let packed = lowering.read_int(source, ScalarType::B32)?;
        for half in 0..2 {
            let shifted =
                builder.build_right_shift(packed, context.i32_type().const_int(16 * half, false), false, "")?;
            let value = builder.build_int_truncate(shifted, context.i16_type(), "")?;
            let store = builder.build_store(placement.element(lowering, shape, register, half)?, value)?;
            let _ = store.set_alignment(2);
        }
    }
    Ok(())
}

/// PTX requires natural alignment of every element.
fn set_alignment(value: BasicValueEnum<'_>, bytes: u32) {
    if let Some(instruction) = value.as_instruction_value() {
        let _ = instruction.set_alignment(bytes);
    }
}
