//! `mma.sync`, `mma.sp.sync` and `ldmatrix.sync` on NVPTX: the `llvm.nvvm.mma.*`,
//! `llvm.nvvm.mma.sp.*` and `llvm.nvvm.ldmatrix.*` intrinsics, which the back end prints as the
//! same PTX instructions (`mma.sp` takes `e` and `f` after C). The operands come from
//! the lane's fragment buffer and the results go back there (`ptxr_runtime::abi::
//! matrix_fragments`); LLVM's scalar replacement turns the buffer back into registers.
//!
//! Intrinsic names: `.f16` inputs name D's and C's types (`llvm.nvvm.mma.m16n8k16.row.col.f32.f16`),
//! `.bf16` and `.tf32` their input type, 8-bit integers `.satfinite` and A's type, then B's when
//! it differs (`llvm.nvvm.mma.m16n8k32.row.col.satfinite.s8.u8`, and so on `.s4`/`.u4`), the
//! 8-bit floats all four (`llvm.nvvm.mma.m16n8k32.row.col.f32.e4m3.e5m2.f32`), `.b1`
//! its operation before the shape (`llvm.nvvm.mma.xor.popc.m8n8k128.row.col.b1`).

use inkwell::types::{BasicType, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, PointerValue};
use ptxr_frontend::ir::{BitOperation, MatrixElement, MatrixMultiply, MatrixShape};
use ptxr_runtime::abi::matrix_fragments as slot;

use crate::{MatrixCollective, Site, Unsupported};

fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("an LLVM builder operation ({error})") }
}

/// The intrinsic's name for one `mma` form (`sparse`: `mma.sp`, `llvm.nvvm.mma.sp.*`, named as
/// the dense form is).
fn intrinsic_name(operation: &MatrixMultiply, sparse: bool) -> String {
    let shape = operation.shape.to_string();
    let bit_operation = operation.bit_operation.map(|operation| operation.to_string()).unwrap_or_default();
    let sparse = if sparse { ".sp" } else { "" };
    let mut name = format!("llvm.nvvm.mma{sparse}{bit_operation}{shape}{}{}", operation.a_layout, operation.b_layout);
    match operation.a {
        MatrixElement::F16 => name += &format!("{}{}", operation.d, operation.c),
        MatrixElement::E4m3 | MatrixElement::E5m2 => {
            name += &format!("{}{}{}{}", operation.d, operation.a, operation.b, operation.c);
        }
        MatrixElement::S8 | MatrixElement::U8 | MatrixElement::S4 | MatrixElement::U4 => {
            if operation.saturate {
                name += ".satfinite";
            }
            name += &operation.a.to_string();
            if operation.b != operation.a {
                name += &operation.b.to_string();
            }
        }
        other => name += &other.to_string(),
    }
    name
}

/// The LLVM type of one register of a fragment of `element`s (32 bits, or `.f64`).
fn register_type<'ctx>(site: &Site<'_, 'ctx>, element: MatrixElement) -> BasicTypeEnum<'ctx> {
    match element {
        MatrixElement::F16 => site.context.f16_type().vec_type(2).as_basic_type_enum(),
        MatrixElement::F32 => site.context.f32_type().as_basic_type_enum(),
        MatrixElement::F64 => site.context.f64_type().as_basic_type_enum(),
        _ => site.context.i32_type().as_basic_type_enum(),
    }
}

/// The integer type of a register of `bits` bits, and the buffer words it takes (a `.f64`
/// register two, low word first).
fn register_bits<'ctx>(site: &Site<'_, 'ctx>, bits: u32) -> (inkwell::types::IntType<'ctx>, usize) {
    if bits == 64 {
        (site.context.i64_type(), 2)
    } else {
        (site.context.i32_type(), 1)
    }
}

fn word<'ctx>(
    site: &Site<'_, 'ctx>,
    buffer: PointerValue<'ctx>,
    index: usize,
) -> Result<PointerValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    // SAFETY: every index is below `slot::WORDS`, the buffer's length.
    unsafe { site.builder.build_in_bounds_gep(i32_type, buffer, &[i32_type.const_int(index as u64, false)], "") }
        .map_err(llvm_error)
}

/// Reads `count` registers of `element`s from the buffer, from word `offset`.
fn read_fragment<'ctx>(
    site: &Site<'_, 'ctx>,
    buffer: PointerValue<'ctx>,
    offset: usize,
    count: u32,
    element: MatrixElement,
    arguments: &mut Vec<BasicMetadataValueEnum<'ctx>>,
) -> Result<(), Unsupported> {
    let (bits_type, words) = register_bits(site, if element == MatrixElement::F64 { 64 } else { 32 });
    for index in 0..count as usize {
        let bits =
            site.builder.build_load(bits_type, word(site, buffer, offset + words * index)?, "").map_err(llvm_error)?;
        let value = site.builder.build_bit_cast(bits, register_type(site, element), "").map_err(llvm_error)?;
        arguments.push(value.into());
    }
    Ok(())
}

/// Stores the intrinsic's result (a struct of registers, or one register) from word `offset`.
fn write_result<'ctx>(
    site: &Site<'_, 'ctx>,
    buffer: PointerValue<'ctx>,
    offset: usize,
    result: BasicValueEnum<'ctx>,
) -> Result<(), Unsupported> {
    let registers: Vec<BasicValueEnum<'ctx>> = match result {
        BasicValueEnum::StructValue(structure) => (0..structure.get_type().count_fields())
            .map(|index| site.builder.build_extract_value(structure, index, "").map_err(llvm_error))
            .collect::<Result<_, _>>()?,
        single => vec![single],
    };
    for (index, register) in registers.into_iter().enumerate() {
        let width = match register {
            BasicValueEnum::FloatValue(value) if value.get_type() == site.context.f64_type() => 64,
            _ => 32,
        };
        let (bits_type, words) = register_bits(site, width);
        let bits = site.builder.build_bit_cast(register, bits_type, "").map_err(llvm_error)?;
        site.builder.build_store(word(site, buffer, offset + words * index)?, bits).map_err(llvm_error)?;
    }
    Ok(())
}

/// `mma.m8n8k128.xor.popc` as inline PTX: the ISA has it from sm_75, but LLVM selects its
/// intrinsic only from sm_80. A, B and C are the four 32-bit registers `a0`, `b0`, `c0`, `c1`.
fn xor_popc_m8n8k128<'ctx>(
    site: &Site<'_, 'ctx>,
    arguments: &[BasicMetadataValueEnum<'ctx>],
) -> Result<BasicValueEnum<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    let result_type = site.context.struct_type(&[i32_type.into(), i32_type.into()], false);
    let function_type = result_type.fn_type(&[i32_type.into(); 4], false);
    let text = "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {$0, $1}, {$2}, {$3}, {$4, $5};";
    let assembly = site.context.create_inline_asm(
        function_type,
        text.to_string(),
        "=r,=r,r,r,r,r".to_string(),
        false,
        false,
        None,
        false,
    );
    let call = site.builder.build_indirect_call(function_type, assembly, arguments, "").map_err(llvm_error)?;
    call.try_as_basic_value().basic().ok_or_else(|| Unsupported { what: "inline PTX without a result".to_string() })
}

pub fn matrix_collective<'ctx>(site: &Site<'_, 'ctx>, collective: &MatrixCollective<'ctx>) -> Result<(), Unsupported> {
    let (name, overloads, arguments, fragments, result_offset) = match collective {
        MatrixCollective::MultiplyAccumulate { operation, fragments } => {
            let mut arguments = Vec::new();
            read_fragment(site, *fragments, slot::A, operation.a_registers(), operation.a, &mut arguments)?;
            read_fragment(site, *fragments, slot::B, operation.b_registers(), operation.b, &mut arguments)?;
            read_fragment(site, *fragments, slot::C, operation.c_registers(), operation.c, &mut arguments)?;
            if operation.shape == MatrixShape::M8n8k128 && operation.bit_operation == Some(BitOperation::Xor) {
                let result = xor_popc_m8n8k128(site, &arguments)?;
                return write_result(site, *fragments, slot::D, result);
            }
            (intrinsic_name(operation, false), Vec::new(), arguments, *fragments, slot::D)
        }
        MatrixCollective::SparseMultiplyAccumulate { operation, metadata, selector, fragments } => {
            // A's non-zero half, then B and C as in `mma`, then `e` and the constant `f`.
            let mut arguments = Vec::new();
            read_fragment(site, *fragments, slot::A, operation.a_registers() / 2, operation.a, &mut arguments)?;
            read_fragment(site, *fragments, slot::B, operation.b_registers(), operation.b, &mut arguments)?;
            read_fragment(site, *fragments, slot::C, operation.c_registers(), operation.c, &mut arguments)?;
            arguments.push((*metadata).into());
            arguments.push(site.context.i32_type().const_int(u64::from(*selector), false).into());
            (intrinsic_name(operation, true), Vec::new(), arguments, *fragments, slot::D)
        }
        MatrixCollective::Load { matrices, transpose, row, fragments } => {
            let transpose = if *transpose { ".trans" } else { "" };
            let name = format!("llvm.nvvm.ldmatrix.sync.aligned.m8n8.x{matrices}{transpose}.b16");
            (name, vec![row.get_type().as_basic_type_enum()], vec![(*row).into()], *fragments, slot::LOADED)
        }
    };
    let unsupported = || Unsupported { what: format!("no LLVM intrinsic {name}") };
    let intrinsic = inkwell::intrinsics::Intrinsic::find(&name).ok_or_else(unsupported)?;
    let declaration = intrinsic.get_declaration(site.module, &overloads).ok_or_else(unsupported)?;
    let call = site.builder.build_call(declaration, &arguments, "").map_err(llvm_error)?;
    let result = call.try_as_basic_value().basic().ok_or_else(unsupported)?;
    write_result(site, fragments, result_offset, result)
}
