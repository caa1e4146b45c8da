//! PTX types as LLVM types.

use inkwell::context::Context;
use inkwell::types::{BasicTypeEnum, IntType};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_intrinsics::WideValues;

/// The LLVM type that holds a PTX value of `ty` in a register. Packed pairs (`.f16x2`) are
/// kept as 32-bit integers and unpacked by the instructions that read them; `.f16` and `.bf16`
/// are kept as their 16 bits, because every half-precision instruction works on the bits
/// (`instructions/half/`), the SPIR-V backend rejects LLVM's `bfloat` without an extension, and
/// LLVM's `half` would give a SPIR-V module the Float16 capability, which OpenCL's SPIR-V
/// environment allows only with `cl_khr_fp16`.
pub fn llvm_type(context: &Context, ty: ScalarType) -> BasicTypeEnum<'_> {
    match ty {
        ScalarType::Pred => context.bool_type().into(),
        ScalarType::F32 => context.f32_type().into(),
        ScalarType::F64 => context.f64_type().into(),
        _ => crate::types::integer_type(context, ty.bits()).into(),
    }
}

/// The LLVM type of a register or value of `ty` on a target that holds 128-bit values as
/// `wide` says: as [`llvm_type`], but `.b128` is `<2 x i64>` (low half first) on targets without
/// 128-bit integers.
pub fn value_type(context: &Context, ty: ScalarType, wide: WideValues) -> BasicTypeEnum<'_> {
    match wide {
        WideValues::Halves if ty.bits() == 128 => context.i64_type().vec_type(2).into(),
        _ => llvm_type(context, ty),
    }
}

/// The LLVM integer type of a width that PTX uses (1 to 128 bits).
pub fn integer_type(context: &Context, bits: u32) -> IntType<'_> {
    match bits {
        1 => context.bool_type(),
        8 => context.i8_type(),
        16 => context.i16_type(),
        32 => context.i32_type(),
        64 => context.i64_type(),
        _ => context.i128_type(),
    }
}
