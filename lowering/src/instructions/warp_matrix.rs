//! `wmma.load`, `wmma.store` and `wmma.mma` (ISA 7.8 section 9.7.13.3). On targets with `wmma`
//! instructions of their own (`Target::native_warp_matrix`: NVPTX) each is the target's.
//! Elsewhere the fragments are those of the `mma` tiles that compute the shape (the frontend's
//! `decode/warp_matrix.rs` describes the tiling): `wmma.mma` is one `mma` per tile, all computed
//! before any of D's registers is written (D may overlap A, B or C), and in `wmma.load` and
//! `wmma.store` each lane reads or writes its own elements: element `(row, column)` of a
//! register depends only on the lane's group `g = lane / 4` and its index in the group
//! `t = lane % 4`, as `runtime/src/cooperative/matrix.rs` lays out `mma`'s fragments. The
//! stride, in elements, is the distance between rows (`.row`) or columns (`.col`); without one
//! it is the matrix's own width or height.

use inkwell::types::IntType;
use inkwell::values::{BasicValue, BasicValueEnum, IntValue, PointerValue};
use ptxr_frontend::ir::{Address, Destination, GuardedInstruction, MatrixLayout, Operand, RoundingMode};
use ptxr_frontend::ir::{WarpMatrixFragment, WarpMatrixMultiply, WarpMatrixShape, WarpMatrixTiling};
use ptxr_frontend::vocabulary::{ScalarType, SpecialRegister};
use ptxr_intrinsics::WarpMatrixCollective;

use super::matrix::fragment_register;
use crate::error::LoweringResult;
use crate::function::FunctionLowering;

/// A row or column index as `group·g + thread·t + constant`.
#[derive(Clone, Copy)]
struct Index {
    group: u64,
    thread: u64,
    constant: u64,
}

impl Index {
    fn group(constant: u64) -> Index {
        Index { group: 1, thread: 0, constant }
    }

    fn thread(times: u64, constant: u64) -> Index {
        Index { group: 0, thread: times, constant }
    }
}

/// The shape as its tiles see it: `.m8n32k16` is the transposed `.m32n8k16`, whose A is B's
/// matrix transposed (and the reverse); a `.row` matrix's transpose is the same memory read
/// `.col`.
struct Canonical {
    /// The tile operand the fragment is made of.
    operand: WarpMatrixFragment,
    layout: MatrixLayout,
    /// The tiling with `TransposedRows` read as `Rows`.
    tiling: WarpMatrixTiling,
    /// (rows, columns) of the operand's matrix, transposed where the tiling is.
    dimensions: (u64, u64),
}

fn canonical(shape: &WarpMatrixShape) -> Canonical {
    let geometry = shape.geometry;
    let (rows, columns) = geometry.fragment_dimensions(shape.fragment);
    let operand = geometry.tile_operand(shape.fragment);
    match geometry.tiling() {
        WarpMatrixTiling::TransposedRows => Canonical {
            operand,
            layout: match shape.layout {
                MatrixLayout::Row => MatrixLayout::Column,
                MatrixLayout::Column => MatrixLayout::Row,
            },
            tiling: WarpMatrixTiling::Rows,
            dimensions: (u64::from(columns), u64::from(rows)),
        },
        tiling => {
            Canonical { operand, layout: shape.layout, tiling, dimensions: (u64::from(rows), u64::from(columns)) }
        }
    }
}

/// Elements of `bits` bits per register (one per `.f64` register).
fn per_register(bits: u32) -> u64 {
    u64::from((32 / bits).max(1))
}

/// Row and column (in the canonical operand's matrix) of element `j` of fragment register
/// `register`: the register's tile and its place in the tile's `mma` fragment.
fn position(shape: &WarpMatrixShape, canonical: &Canonical, register: u64, j: u64) -> (Index, Index) {
    let geometry = shape.geometry;
    let per_tile = u64::from(geometry.tile_registers(shape.fragment, shape.element));
    let tiles = u64::from(geometry.tiles(shape.fragment));
    // `.f16` A and B repeat the registers the tiles use.
    let register = register % (per_tile * tiles);
    let (tile, q) = (register / per_tile, register % per_tile);
    let per = per_register(shape.element.bits());
    let m16 = geometry.tile_shape().dimensions().0 == 16;
    let (row, column) = match canonical.operand {
        // Row `g + 8·(q mod 2)` (M = 16) or `g`, column `t·per + j + 4·per·kb` with `kb = q / 2`
        // (M = 16) or `q`.
        WarpMatrixFragment::A => {
            let (row, k_block) = if m16 { (8 * (q % 2), q / 2) } else { (0, q) };
            (Index::group(row), Index::thread(per, j + 4 * per * k_block))
        }
        // Row `t·per + j + 4·per·q`, column `g`.
        WarpMatrixFragment::B => (Index::thread(per, j + 4 * per * q), Index::group(0)),
        // Element `i = q·per + j`: row `g + 8·(i / 2)`, column `2t + i mod 2`.
        WarpMatrixFragment::C => {
            let i = q * per + j;
            (Index::group(8 * (i / 2)), Index::thread(2, i % 2))
        }
    };
    match canonical.tiling {
        WarpMatrixTiling::Columns => (row, Index { constant: column.constant + 8 * tile, ..column }),
        _ => (Index { constant: row.constant + 16 * tile, ..row }, column),
    }
}

/// The lane's view of the matrix in memory.
struct Placement<'ctx> {
    base: PointerValue<'ctx>,
    stride: IntValue<'ctx>,
    group: IntValue<'ctx>,
    thread: IntValue<'ctx>,
    canonical: Canonical,
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
        let thread = builder.build_and(lane, i64_type.const_int(3, false), "")?;
        let canonical = canonical(shape);
        let stride = match stride {
            Some(stride) => builder.build_int_z_extend(lowering.read_int(stride, ScalarType::U32)?, i64_type, "")?,
            None => {
                let (rows, columns) = canonical.dimensions;
                let dense = if canonical.layout == MatrixLayout::Row { columns } else { rows };
                i64_type.const_int(dense, false)
            }
        };
        let base = lowering.address(address, shape.state_space)?;
        Ok(Placement { base, stride, group, thread, canonical })
    }

    fn index(&self, lowering: &FunctionLowering<'_, 'ctx>, index: Index) -> LoweringResult<IntValue<'ctx>> {
        let builder = lowering.shared.builder;
        let i64_type = lowering.shared.context.i64_type();
        let group = builder.build_int_mul(self.group, i64_type.const_int(index.group, false), "")?;
        let thread = builder.build_int_mul(self.thread, i64_type.const_int(index.thread, false), "")?;
        let sum = builder.build_int_add(group, thread, "")?;
        Ok(builder.build_int_add(sum, i64_type.const_int(index.constant, false), "")?)
    }

    /// The address of element `j` of fragment register `register`, an element of `bits` bits.
    fn element(
        &self,
        lowering: &FunctionLowering<'_, 'ctx>,
        shape: &WarpMatrixShape,
        register: u64,
        j: u64,
        element_type: IntType<'ctx>,
    ) -> LoweringResult<PointerValue<'ctx>> {
        let builder = lowering.shared.builder;
        let (row, column) = position(shape, &self.canonical, register, j);
        let (row, column) = (self.index(lowering, row)?, self.index(lowering, column)?);
        let (major, minor) = match self.canonical.layout {
            MatrixLayout::Row => (row, column),
            MatrixLayout::Column => (column, row),
        };
        let mut offset = builder.build_int_add(builder.build_int_mul(major, self.stride, "")?, minor, "")?;
        let bits = shape.element.bits();
        if bits < 8 {
            // A sub-byte register's elements lie together along k (A `.row`, B `.col`): the
            // 32-bit word from the first, the stride being a multiple of 32 bits.
            let per_word = lowering.shared.context.i64_type().const_int(u64::from((32 / bits).trailing_zeros()), false);
            offset = builder.build_right_shift(offset, per_word, false, "")?;
        }
        // SAFETY: PTX requires the matrix to lie in memory the kernel may access.
        Ok(unsafe { builder.build_gep(element_type, self.base, &[offset], "")? })
    }
}

/// What one memory access moves: its bits (a whole 32-bit register for the sub-byte types,
/// whose elements lie together in memory) and how many make a register.
fn unit(shape: &WarpMatrixShape) -> (u32, u64) {
    match shape.element.bits() {
        1 | 4 => (32, 1),
        bits => (bits, per_register(bits)),
    }
}

/// The integer types of one access and of one register (32 bits, or 64 for `.f64`).
fn types<'ctx>(lowering: &FunctionLowering<'_, 'ctx>, shape: &WarpMatrixShape) -> (IntType<'ctx>, IntType<'ctx>) {
    let context = lowering.shared.context;
    let integer = |bits: u32| match bits {
        8 => context.i8_type(),
        16 => context.i16_type(),
        32 => context.i32_type(),
        _ => context.i64_type(),
    };
    (integer(unit(shape).0), integer(shape.element.bits().max(32)))
}

pub fn load(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    shape: &WarpMatrixShape,
    destinations: &[Destination],
    address: &Address,
    stride: Option<&Operand>,
) -> LoweringResult<()> {
    let ty = fragment_register(shape.element);
    if lowering.shared.target.native_warp_matrix() {
        let address = lowering.address(address, shape.state_space)?;
        let stride = stride.map(|stride| lowering.read_int(stride, ScalarType::U32)).transpose()?;
        let values = native(lowering, guarded, &WarpMatrixCollective::Load { shape: *shape, address, stride })?;
        return write_all(lowering, guarded, destinations, values, ty);
    }
    let placement = Placement::new(lowering, guarded, shape, address, stride)?;
    let builder = lowering.shared.builder;
    let (element_type, register_type) = types(lowering, shape);
    let (bits, per) = unit(shape);
    let wanted = crate::types::llvm_type(lowering.shared.context, ty);
    for (register, destination) in destinations.iter().enumerate() {
        let mut packed = register_type.const_zero();
        for j in 0..per {
            let pointer = placement.element(lowering, shape, register as u64, j, element_type)?;
            let value = builder.build_load(element_type, pointer, "")?;
            set_alignment(value, bits.div_ceil(8));
            let wide = builder.build_int_z_extend_or_bit_cast(value.into_int_value(), register_type, "")?;
            let shift = register_type.const_int(u64::from(bits) * j, false);
            packed = builder.build_or(packed, builder.build_left_shift(wide, shift, "")?, "")?;
        }
        let value: BasicValueEnum<'_> = builder.build_bit_cast(packed, wanted, "")?;
        lowering.write(destination, value, ty)?;
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
    if lowering.shared.target.native_warp_matrix() {
        let address = lowering.address(address, shape.state_space)?;
        let stride = stride.map(|stride| lowering.read_int(stride, ScalarType::U32)).transpose()?;
        let registers = sources
            .iter()
            .map(|source| lowering.read(source, fragment_register(shape.element)))
            .collect::<Result<_, _>>()?;
        native(lowering, guarded, &WarpMatrixCollective::Store { shape: *shape, address, stride, registers })?;
        return Ok(());
    }
    let placement = Placement::new(lowering, guarded, shape, address, stride)?;
    let builder = lowering.shared.builder;
    let (element_type, register_type) = types(lowering, shape);
    let (bits, per) = unit(shape);
    for (register, source) in sources.iter().enumerate() {
        let value = lowering.read(source, fragment_register(shape.element))?;
        let packed = builder.build_bit_cast(value, register_type, "")?.into_int_value();
        for j in 0..per {
            let shift = register_type.const_int(u64::from(bits) * j, false);
            let shifted = builder.build_right_shift(packed, shift, false, "")?;
            let element = builder.build_int_truncate_or_bit_cast(shifted, element_type, "")?;
            let pointer = placement.element(lowering, shape, register as u64, j, element_type)?;
            let store = builder.build_store(pointer, element)?;
            let _ = store.set_alignment(bits.div_ceil(8));
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

/// The target's own `wmma` instruction.
fn native<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    collective: &WarpMatrixCollective<'ctx>,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    lowering
        .shared
        .target
        .warp_matrix_collective(&lowering.site(), collective)
        .map_err(super::matrix::unsupported(lowering, guarded))
}

/// Writes `values` (bit-cast to `ty`) to `destinations`, one each.
fn write_all<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    destinations: &[Destination],
    values: Vec<BasicValueEnum<'ctx>>,
    ty: ScalarType,
) -> LoweringResult<()> {
    if values.len() != destinations.len() {
        let message = format!("a `wmma` fragment of {} registers for {}", values.len(), destinations.len());
        return Err(crate::error::LoweringError::internal(message, guarded.span));
    }
    let wanted = crate::types::llvm_type(lowering.shared.context, ty);
    for (destination, value) in destinations.iter().zip(values) {
        let value = lowering.shared.builder.build_bit_cast(value, wanted, "")?;
        lowering.write(destination, value, ty)?;
    }
    Ok(())
}

/// `wmma.mma`: the target's own, or one `mma` per tile, D written once every tile is computed.
pub fn multiply_accumulate(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    operation: &WarpMatrixMultiply,
    destinations: &[Destination],
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
) -> LoweringResult<()> {
    let lowering = &*lowering;
    let d_type = fragment_register(operation.d);
    if lowering.shared.target.native_warp_matrix() {
        let read = |operands: &[Operand], element| {
            operands.iter().map(|operand| lowering.read(operand, fragment_register(element))).collect::<Result<_, _>>()
        };
        let (a, b, c) = (read(a, operation.a)?, read(b, operation.b)?, read(c, operation.c)?);
        let values =
            native(lowering, guarded, &WarpMatrixCollective::MultiplyAccumulate { operation: *operation, a, b, c })?;
        return write_all(lowering, guarded, destinations, values, d_type);
    }
    if let Some(rounding) = operation.rounding.filter(|rounding| *rounding != RoundingMode::NearestEven) {
        // One `.m8n8k4` tile, whose fused multiply-adds round in `rounding`.
        let d = super::matrix_by_shuffles::double_precision_directed(lowering, guarded, a, b, c, rounding)?;
        return write_all(lowering, guarded, destinations, d, d_type);
    }
    let geometry = operation.geometry;
    let tile = operation.tile();
    // A and B trade places in the transposed tiling.
    let (tile_a, tile_b) = match geometry.tile_operand(WarpMatrixFragment::A) {
        WarpMatrixFragment::A => ((a, WarpMatrixFragment::A, operation.a), (b, WarpMatrixFragment::B, operation.b)),
        _ => ((b, WarpMatrixFragment::B, operation.b), (a, WarpMatrixFragment::A, operation.a)),
    };
    // Tile `index`'s registers of one of the `wmma`'s fragments.
    fn part<'o>(
        geometry: ptxr_frontend::ir::WarpMatrixGeometry,
        (list, fragment, element): (&'o [Operand], WarpMatrixFragment, ptxr_frontend::ir::MatrixElement),
        index: usize,
        guarded: &GuardedInstruction,
    ) -> LoweringResult<&'o [Operand]> {
        let count = geometry.tile_registers(fragment, element) as usize;
        let first = if geometry.tiles(fragment) == 2 { index * count } else { 0 };
        list.get(first..first + count).ok_or_else(|| {
            crate::error::LoweringError::internal(
                format!("a `wmma` fragment of {} registers", list.len()),
                guarded.span,
            )
        })
    }
    let mut d = Vec::with_capacity(destinations.len());
    for index in 0..geometry.tiles(WarpMatrixFragment::C) as usize {
        let c = part(geometry, (c, WarpMatrixFragment::C, operation.c), index, guarded)?;
        let (a, b) = (part(geometry, tile_a, index, guarded)?, part(geometry, tile_b, index, guarded)?);
        d.extend(super::matrix::multiply_accumulate_values(lowering, guarded, &tile, a, b, c)?);
    }
    write_all(lowering, guarded, destinations, d, d_type)
}
