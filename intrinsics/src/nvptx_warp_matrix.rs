//! `wmma.load`, `wmma.store` and `wmma.mma` on NVPTX: LLVM's `llvm.nvvm.wmma.*` intrinsics,
//! which the back end prints as the same PTX instructions, so the fragments are the hardware's
//! and `--arch sm_70` takes the `.f16` forms (sm_72 the 8-bit integers, sm_80 `.bf16`,
//! `.tf32` and `.f64`, as gating checks).
//!
//! Intrinsic names: `llvm.nvvm.wmma.m16n16k16.load.a.row.stride.f16` (`.stride` when the PTX
//! has one; overloaded on the address's pointer type), `...store.d.col.f32`, and for `mma`
//! `llvm.nvvm.wmma.m16n16k16.mma.row.col.f32.f16` (D's and C's types on `.f16` inputs), or the
//! input type (`.s8`, `.bf16`, `.tf32`, `.f64` after its rounding), then `.satfinite`.

use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use ptxr_frontend::ir::{MatrixElement, WarpMatrixFragment, WarpMatrixMultiply};

use crate::{Site, Unsupported, WarpMatrixCollective};

fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("an LLVM builder operation ({error})") }
}

/// The intrinsic's name for one `wmma.mma` form.
fn multiply_name(operation: &WarpMatrixMultiply) -> String {
    let bit_operation = operation.bit_operation.map(|operation| operation.to_string()).unwrap_or_default();
    let mut name =
        format!("llvm.nvvm.wmma{}.mma{bit_operation}{}{}", operation.geometry, operation.a_layout, operation.b_layout);
    match operation.a {
        MatrixElement::F16 => name += &format!("{}{}", operation.d, operation.c),
        MatrixElement::F64 => {
            name += &format!("{}.f64", operation.rounding.map(|rounding| rounding.to_string()).unwrap_or_default())
        }
        other => name += &other.to_string(),
    }
    if operation.saturate {
        name += ".satfinite";
    }
    name
}

/// Calls intrinsic `name` (overloaded on `overloads`) with `arguments` bit-cast to its parameter
/// types; returns its result's registers (a struct's fields, or the one value).
fn call<'ctx>(
    site: &Site<'_, 'ctx>,
    name: &str,
    overloads: &[BasicTypeEnum<'ctx>],
    arguments: &[BasicValueEnum<'ctx>],
) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
    let unsupported = || Unsupported { what: format!("no LLVM intrinsic {name}") };
    let intrinsic = inkwell::intrinsics::Intrinsic::find(name).ok_or_else(unsupported)?;
    let declaration = intrinsic.get_declaration(site.module, overloads).ok_or_else(unsupported)?;
    let parameters = declaration.get_type().get_param_types();
    if parameters.len() != arguments.len() {
        return Err(Unsupported { what: format!("{name} with {} operands", arguments.len()) });
    }
    let arguments = arguments
        .iter()
        .zip(parameters)
        .map(|(argument, parameter)| {
            let parameter = match parameter {
                BasicMetadataTypeEnum::MetadataType(_) => return Err(unsupported()),
                other => BasicTypeEnum::try_from(other).map_err(|()| unsupported())?,
            };
            if argument.get_type() == parameter {
                return Ok(BasicMetadataValueEnum::from(*argument));
            }
            let cast = site.builder.build_bit_cast(*argument, parameter, "").map_err(llvm_error)?;
            Ok(cast.into())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let call = site.builder.build_call(declaration, &arguments, "").map_err(llvm_error)?;
    Ok(match call.try_as_basic_value().basic() {
        Some(BasicValueEnum::StructValue(structure)) => (0..structure.get_type().count_fields())
            .map(|index| site.builder.build_extract_value(structure, index, "").map_err(llvm_error))
            .collect::<Result<_, _>>()?,
        Some(single) => vec![single],
        None => Vec::new(),
    })
}

pub fn warp_matrix_collective<'ctx>(
    site: &Site<'_, 'ctx>,
    collective: &WarpMatrixCollective<'ctx>,
) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
    match collective {
        WarpMatrixCollective::Load { shape, address, stride } => {
            let matrix = ["a", "b", "c"][match shape.fragment {
                WarpMatrixFragment::A => 0,
                WarpMatrixFragment::B => 1,
                WarpMatrixFragment::C => 2,
            }];
            let strided = if stride.is_some() { ".stride" } else { "" };
            let name =
                format!("llvm.nvvm.wmma{}.load.{matrix}{}{strided}{}", shape.geometry, shape.layout, shape.element);
            let arguments = std::iter::once((*address).into()).chain(stride.map(Into::into)).collect::<Vec<_>>();
            call(site, &name, &[address.get_type().into()], &arguments)
        }
        WarpMatrixCollective::Store { shape, address, stride, registers } => {
            let strided = if stride.is_some() { ".stride" } else { "" };
            let name = format!("llvm.nvvm.wmma{}.store.d{}{strided}{}", shape.geometry, shape.layout, shape.element);
            let arguments = std::iter::once((*address).into())
                .chain(registers.iter().copied())
                .chain(stride.map(Into::into))
                .collect::<Vec<_>>();
            call(site, &name, &[address.get_type().into()], &arguments)
        }
        WarpMatrixCollective::MultiplyAccumulate { operation, a, b, c } => {
            let arguments = a.iter().chain(b).chain(c).copied().collect::<Vec<_>>();
            call(site, &multiply_name(operation), &[], &arguments)
        }
    }
}
