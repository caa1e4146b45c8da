//! `wgmma` on NVPTX at sm_90a, the one processor that has it: `wgmma.fence`,
//! `wgmma.commit_group` and `wgmma.wait_group` are LLVM's `llvm.nvvm.wgmma.*` intrinsics, and
//! `wgmma.mma_async`, which LLVM 22 has no intrinsic for, is the instruction itself as inline
//! PTX. D's registers are outputs tied to inputs (C's `+f`/`+r`), so they stay the same PTX
//! registers from one `wgmma.mma_async` to the next and ptxas sees the accumulator chain that
//! it pipelines; the descriptors are `l` operands, A's registers `r`, and `scale-d` (a
//! predicate, which inline PTX cannot take) an `r` operand tested into a scratch predicate.
//!
//! The operand lists (PTX ISA 8.0, "wgmma.mma_async"): `.f16`/`.bf16` take `imm-scale-a`,
//! `imm-scale-b`, `imm-trans-a` (A from a descriptor only) and `imm-trans-b`; `.tf32` and the
//! 8-bit floats only the two scales; `.s8`/`.u8` none.

use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum};
use ptxr_frontend::ir::WarpGroupElement;

use crate::collective::{WarpGroupCollective, WarpGroupOperands, WarpGroupSource};
use crate::declare::call_intrinsic_or_void;
use crate::{Site, Unsupported};

fn llvm_error(error: impl std::fmt::Display) -> Unsupported {
    Unsupported { what: format!("an LLVM builder operation ({error})") }
}

pub fn warp_group_collective<'ctx>(
    site: &Site<'_, 'ctx>,
    collective: &WarpGroupCollective<'ctx>,
) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
    match collective {
        WarpGroupCollective::Fence => {
            call_intrinsic_or_void(site, "llvm.nvvm.wgmma.fence.sync.aligned", &[])?;
        }
        WarpGroupCollective::Commit => {
            call_intrinsic_or_void(site, "llvm.nvvm.wgmma.commit_group.sync.aligned", &[])?;
        }
        WarpGroupCollective::Wait { pending } => {
            let pending = site.context.i64_type().const_int(u64::from(*pending), false);
            call_intrinsic_or_void(site, "llvm.nvvm.wgmma.wait_group.sync.aligned", &[pending.into()])?;
        }
        WarpGroupCollective::MultiplyAccumulate(operands) => return multiply_accumulate(site, operands),
    }
    Ok(Vec::new())
}

/// The instruction's text, its operands numbered as `multiply_accumulate` binds them: D's
/// registers written, the same read, then A (a descriptor or four registers), B's descriptor,
/// `scale-d`.
fn text(operands: &WarpGroupOperands<'_>) -> String {
    let operation = operands.operation;
    let registers = operands.accumulator.len();
    let d = (0..registers).map(|index| format!("${index}")).collect::<Vec<_>>().join(", ");
    // The tied inputs are numbered too, after the outputs; the other inputs follow them.
    let first = 2 * registers;
    let (a, next) = match operands.a {
        WarpGroupSource::Descriptor(_) => (format!("${first}"), first + 1),
        WarpGroupSource::Registers(ref words) => {
            let list = (0..words.len()).map(|index| format!("${}", first + index)).collect::<Vec<_>>();
            (format!("{{{}}}", list.join(", ")), first + words.len())
        }
    };
    let (b, scale_d) = (format!("${next}"), format!("${}", next + 1));
    let scale = |negate: bool| if negate { "-1" } else { "1" };
    let flag = |set: bool| if set { "1" } else { "0" };
    let immediates = match operation.a {
        WarpGroupElement::F16 | WarpGroupElement::Bf16 => {
            let mut list = vec![scale(operands.negate_a), scale(operands.negate_b)];
            if matches!(operands.a, WarpGroupSource::Descriptor(_)) {
                list.push(flag(operands.transpose_a));
            }
            list.push(flag(operands.transpose_b));
            list
        }
        WarpGroupElement::S8 | WarpGroupElement::U8 => Vec::new(),
        _ => vec![scale(operands.negate_a), scale(operands.negate_b)],
    };
    let immediates: String = immediates.iter().map(|immediate| format!(", {immediate}")).collect();
    let satfinite = if operation.saturate { ".satfinite" } else { "" };
    format!(
        "{{\n\t.reg .pred %ptxr_scale_d;\n\tsetp.ne.b32 %ptxr_scale_d, {scale_d}, 0;\n\t\
         wgmma.mma_async.sync.aligned.m64n{}k{}{satfinite}{}{}{} {{{d}}}, {a}, {b}, %ptxr_scale_d{immediates};\n\t}}",
        operation.n,
        operation.a.k(),
        operation.d,
        operation.a,
        operation.b,
    )
}

fn multiply_accumulate<'ctx>(
    site: &Site<'_, 'ctx>,
    operands: &WarpGroupOperands<'ctx>,
) -> Result<Vec<BasicValueEnum<'ctx>>, Unsupported> {
    let context = site.context;
    let registers = operands.accumulator.len();
    let letter = |value: &BasicValueEnum<'ctx>| if value.is_float_value() { "f" } else { "r" };
    // D: outputs, each tied to the input of the same number.
    let mut constraints: Vec<String> = operands.accumulator.iter().map(|value| format!("={}", letter(value))).collect();
    constraints.extend((0..registers).map(|index| index.to_string()));
    let mut inputs: Vec<BasicMetadataValueEnum<'ctx>> =
        operands.accumulator.iter().map(|value| (*value).into()).collect();
    match &operands.a {
        WarpGroupSource::Descriptor(descriptor) => {
            constraints.push("l".to_string());
            inputs.push((*descriptor).into());
        }
        WarpGroupSource::Registers(words) => {
            constraints.extend(words.iter().map(|_| "r".to_string()));
            inputs.extend(words.iter().map(|word| BasicMetadataValueEnum::from(*word)));
        }
    }
    constraints.push("l".to_string());
    inputs.push(operands.b.into());
    let scale_d =
        site.builder.build_int_z_extend(operands.scale_d, context.i32_type(), "scale_d").map_err(llvm_error)?;
    constraints.push("r".to_string());
    inputs.push(scale_d.into());

    let output_types: Vec<BasicTypeEnum<'ctx>> = operands.accumulator.iter().map(|value| value.get_type()).collect();
    let input_types: Vec<BasicMetadataTypeEnum<'ctx>> = inputs
        .iter()
        .map(|input| match input {
            BasicMetadataValueEnum::FloatValue(value) => value.get_type().into(),
            BasicMetadataValueEnum::IntValue(value) => value.get_type().into(),
            _ => context.i64_type().into(),
        })
        .collect();
    let function_type = context.struct_type(&output_types, false).fn_type(&input_types, false);
    let assembly = context.create_inline_asm(
        function_type,
        text(operands),
        format!("{},~{{memory}}", constraints.join(",")),
        true,
        false,
        None,
        false,
    );
    let call = site.builder.build_indirect_call(function_type, assembly, &inputs, "wgmma").map_err(llvm_error)?;
    let Some(BasicValueEnum::StructValue(result)) = call.try_as_basic_value().basic() else {
        return Err(Unsupported { what: "`wgmma.mma_async` as inline PTX (no result)".to_string() });
    };
    (0..registers as u32).map(|index| site.builder.build_extract_value(result, index, "").map_err(llvm_error)).collect()
}

#[cfg(test)]
mod tests {
    use super::text;
    use crate::collective::{WarpGroupOperands, WarpGroupSource};
    use inkwell::context::Context;
    use ptxr_frontend::ir::{WarpGroupElement, WarpGroupMultiply};

    /// The operand lists per type family, as PTX ISA 8.0's syntax has them.
    #[test]
    fn each_type_family_gets_its_immediates() {
        let context = Context::create();
        let i64_value = context.i64_type().const_zero();
        let word = context.i32_type().const_zero();
        let float = context.f32_type().const_zero();
        let operands = |a: WarpGroupElement, d: WarpGroupElement, source: WarpGroupSource<'_>| {
            let operation = WarpGroupMultiply { n: 8, d, a, b: a, saturate: false };
            let accumulator = vec![if d == WarpGroupElement::F32 { float.into() } else { word.into() }; 4];
            text(&WarpGroupOperands {
                operation,
                accumulator,
                a: source,
                b: i64_value,
                scale_d: context.bool_type().const_zero(),
                negate_a: true,
                negate_b: false,
                transpose_a: false,
                transpose_b: true,
            })
        };
        use WarpGroupElement::*;
        let half = operands(F16, F32, WarpGroupSource::Descriptor(i64_value));
        assert!(
            half.contains("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {$0, $1, $2, $3}, $8, $9, %ptxr_scale_d, -1, 1, 0, 1;"),
            "{half}"
        );
        assert!(half.contains("setp.ne.b32 %ptxr_scale_d, $10, 0;"), "{half}");
        let registers = operands(Bf16, F32, WarpGroupSource::Registers(vec![word; 4]));
        assert!(
            registers.contains("{$0, $1, $2, $3}, {$8, $9, $10, $11}, $12, %ptxr_scale_d, -1, 1, 1;"),
            "{registers}"
        );
        let tf32 = operands(Tf32, F32, WarpGroupSource::Descriptor(i64_value));
        assert!(tf32.contains(".m64n8k8.f32.tf32.tf32 {$0, $1, $2, $3}, $8, $9, %ptxr_scale_d, -1, 1;"), "{tf32}");
        let integer = operands(S8, S32, WarpGroupSource::Descriptor(i64_value));
        assert!(integer.contains(".m64n8k32.s32.s8.s8 {$0, $1, $2, $3}, $8, $9, %ptxr_scale_d;"), "{integer}");
    }
}
