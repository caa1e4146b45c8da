//! `%smid` and `%nsmid` on AMDGPU from the wave's hardware id registers (`s_getreg_b32`), whose
//! fields differ between generations. Which processor the module is built for is known only to
//! the target machine, so lowering calls two placeholder functions and
//! `Target::before_optimization` defines them for the machine's processor ([`define`]).
//!
//! `%smid` is the unit the block runs on, built from the register's fields as shader engine,
//! then shader array, then compute unit (GCN, CDNA) or workgroup processor (RDNA, where a
//! work-group runs on one WGP), and on gfx940 and later the accelerator complex die (XCC)
//! above them. `%nsmid` is the bound those field widths allow, so `%smid < %nsmid` always
//! holds; as the ISA allows (section 10.8), the numbers need not be contiguous. The layouts,
//! as AMD documents them (the ISA manuals and the register descriptions in ROCm's device
//! libraries and tools; the `hwreg` operand is LLVM's: id in bits 5:0, offset in 10:6, width
//! minus one in 15:11, and LLVM's assembler names each register read for the processor):
//!
//! | processors | register (`hwreg` id) | fields |
//! | --- | --- | --- |
//! | gfx6 to gfx9 | `HW_ID` (4) | CU 11:8, SH 12, SE 14:13 |
//! | gfx940 and later gfx9 | `HW_ID` (4), `XCC_ID` (20) | as gfx9, XCC 3:0 of `XCC_ID` |
//! | gfx10 | `HW_ID1` (23) | WGP 13:10, SA 16, SE 19:18 |
//! | gfx11 | `HW_ID1` (23) | WGP 13:10, SA 16, SE 20:18 |
//!
//! Other processors (gfx12, the `-generic` targets, whose members differ) keep one
//! multiprocessor: `%smid` 0, `%nsmid` 1.

use inkwell::attributes::AttributeLoc;
use inkwell::module::{Linkage, Module};
use inkwell::values::{FunctionValue, IntValue};

use crate::{function_or_declare, Site, Unsupported};

/// The placeholder for `%smid`, an `i32 ()`.
const SM_ID: &str = "ptxr.amdgpu.sm_id";
/// The placeholder for `%nsmid`, an `i32 ()`.
const SM_COUNT: &str = "ptxr.amdgpu.sm_count";

const HW_ID: u32 = 4;
const XCC_ID: u32 = 20;
const HW_ID1: u32 = 23;

/// A field of a hardware register: `bits` bits from bit `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Field {
    register: u32,
    offset: u32,
    bits: u32,
}

impl Field {
    /// The `hwreg` operand of `s_getreg_b32` for this field.
    fn hwreg(self) -> u64 {
        u64::from(self.register | (self.offset << 6) | ((self.bits - 1) << 11))
    }
}

/// The fields that make up `%smid` on a processor, most significant first (each shifted left
/// by the widths of those after it).
fn unit_fields(processor: &str) -> Option<Vec<Field>> {
    let number = processor.strip_prefix("gfx")?;
    if !number.chars().all(|character| character.is_ascii_alphanumeric()) {
        return None;
    }
    let field = |register, offset, bits| Field { register, offset, bits };
    // CU 11:8, SH 12 and SE 14:13 are contiguous: one field of 7 bits.
    let gcn = field(HW_ID, 8, 7);
    match number.len() {
        3 if matches!(&number[..1], "6" | "7" | "8") => Some(vec![gcn]),
        3 if number.starts_with('9') => {
            let with_xcc = number[1..].starts_with(|digit: char| digit.is_ascii_digit() && digit >= '4');
            Some(if with_xcc { vec![field(XCC_ID, 0, 4), gcn] } else { vec![gcn] })
        }
        4 if number.starts_with("10") => Some(vec![field(HW_ID1, 18, 2), field(HW_ID1, 16, 1), field(HW_ID1, 10, 4)]),
        4 if number.starts_with("11") => Some(vec![field(HW_ID1, 18, 3), field(HW_ID1, 16, 1), field(HW_ID1, 10, 4)]),
        _ => None,
    }
}

fn placeholder<'ctx>(site: &Site<'_, 'ctx>, name: &str) -> Result<IntValue<'ctx>, Unsupported> {
    let function = function_or_declare(site.module, name, || site.context.i32_type().fn_type(&[], false));
    let call = site
        .builder
        .build_call(function, &[], name)
        .map_err(|error| Unsupported { what: format!("{name} ({error})") })?;
    call.try_as_basic_value()
        .basic()
        .map(|value| value.into_int_value())
        .ok_or_else(|| Unsupported { what: format!("the result of {name}") })
}

/// `%smid`: a call that [`define`] gives its body.
pub(crate) fn sm_id<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    placeholder(site, SM_ID)
}

/// `%nsmid`: a call that [`define`] gives its body.
pub(crate) fn sm_count<'ctx>(site: &Site<'_, 'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    placeholder(site, SM_COUNT)
}

/// Gives the placeholders that `module` calls their bodies for `processor`: internal and
/// always inlined, so that the optimiser leaves `s_getreg_b32` reads (or constants) in place.
pub(crate) fn define(module: &Module<'_>, processor: &str) -> Result<(), String> {
    let fields = unit_fields(processor);
    for (name, body) in [(SM_ID, Body::Unit), (SM_COUNT, Body::Count)] {
        let Some(function) = module.get_function(name) else { continue };
        if function.count_basic_blocks() > 0 {
            continue;
        }
        build(module, function, fields.as_deref(), body)
            .map_err(|error| format!("defining {name} for {processor}: {error}"))?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Body {
    Unit,
    Count,
}

fn build(module: &Module<'_>, function: FunctionValue<'_>, fields: Option<&[Field]>, body: Body) -> Result<(), String> {
    let failed = |error: inkwell::builder::BuilderError| error.to_string();
    let context = module.get_context();
    let i32_type = context.i32_type();
    function.set_linkage(Linkage::Internal);
    let always_inline =
        context.create_enum_attribute(inkwell::attributes::Attribute::get_named_enum_kind_id("alwaysinline"), 0);
    function.add_attribute(AttributeLoc::Function, always_inline);
    let builder = context.create_builder();
    builder.position_at_end(context.append_basic_block(function, "entry"));
    let total_bits: u32 = fields.map_or(0, |fields| fields.iter().map(|field| field.bits).sum());
    let value = match (body, fields) {
        (Body::Count, _) => i32_type.const_int(1u64 << total_bits, false),
        (Body::Unit, None) => i32_type.const_zero(),
        (Body::Unit, Some(fields)) => {
            let get_register = inkwell::intrinsics::Intrinsic::find("llvm.amdgcn.s.getreg")
                .and_then(|intrinsic| intrinsic.get_declaration(module, &[]))
                .ok_or("no llvm.amdgcn.s.getreg")?;
            let mut unit = i32_type.const_zero();
            for field in fields {
                let read = builder
                    .build_call(get_register, &[i32_type.const_int(field.hwreg(), false).into()], "")
                    .map_err(failed)?
                    .try_as_basic_value()
                    .basic()
                    .ok_or("s_getreg_b32 gave no value")?
                    .into_int_value();
                let width = i32_type.const_int(u64::from(field.bits), false);
                let shifted = builder.build_left_shift(unit, width, "").map_err(failed)?;
                unit = builder.build_or(shifted, read, "").map_err(failed)?;
            }
            unit
        }
    };
    builder.build_return(Some(&value)).map_err(failed)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fields_cover_each_generation_and_no_other() {
        let widths = |processor: &str| unit_fields(processor).map(|fields| fields.iter().map(|f| f.bits).sum::<u32>());
        assert_eq!(widths("gfx803"), Some(7));
        assert_eq!(widths("gfx90a"), Some(7));
        assert_eq!(widths("gfx942"), Some(11));
        assert_eq!(widths("gfx950"), Some(11));
        assert_eq!(widths("gfx1030"), Some(7));
        assert_eq!(widths("gfx1100"), Some(8));
        assert_eq!(widths("gfx1200"), None);
        assert_eq!(widths("gfx9-generic"), None);
        assert_eq!(widths("gfx10-3-generic"), None);
    }

    #[test]
    fn hwreg_operands_encode_id_offset_and_width_minus_one() {
        // hwreg(HW_REG_HW_ID, 8, 7) and hwreg(HW_REG_HW_ID1, 18, 3).
        assert_eq!(Field { register: HW_ID, offset: 8, bits: 7 }.hwreg(), 4 | (8 << 6) | (6 << 11));
        assert_eq!(Field { register: HW_ID1, offset: 18, bits: 3 }.hwreg(), 23 | (18 << 6) | (2 << 11));
    }
}
