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
//! | gfx6 to gfx9, gfx9-generic | `HW_ID` (4) | CU 11:8, SH 12, SE 14:13 |
//! | gfx940 and later gfx9, gfx9-4-generic | `HW_ID` (4), `XCC_ID` (20) | as gfx9, XCC 3:0 of `XCC_ID` |
//! | gfx10, gfx10-1-generic, gfx10-3-generic | `HW_ID1` (23) | WGP 13:10, SA 16, SE 19:18 |
//! | gfx11, gfx11-generic | `HW_ID1` (23) | WGP 13:10, SA 16, SE 20:18 |
//! | gfx1200, gfx1201, gfx12-generic | `WAVE_HW_ID1` (23) | WGP 13:10, SA 16, SE 20:18 |
//!
//! gfx12's layout is AMD's own register description of GC 12.0 (`SQ_WAVE_HW_ID1` in
//! `gc_12_0_0_sh_mask.h` of Linux's amdgpu driver: `WGP_ID` mask 0x3C00, `SA_ID` 0x10000,
//! `SE_ID` 0x1C0000, the gfx11 positions); Triton's AMD profiler reads WGP and SA at the same
//! bits of `WAVE_HW_ID1` on gfx1250. LLVM 22 calls register 23 `HW_REG_WAVE_HW_ID1` on gfx12.
//!
//! A `-generic` processor's code runs on each of its members (LLVM's AMDGPUUsage, "Generic
//! Processors"), so it gets a layout only where every member has it: gfx9-generic is gfx900,
//! gfx902, gfx904, gfx906, gfx909 and gfx90c, all gfx9 without an XCC; gfx9-4-generic is
//! gfx940, gfx941, gfx942 and gfx950, all with `XCC_ID` (LLVM's assembler accepts
//! `HW_REG_XCC_ID` for gfx9-4-generic and refuses it for gfx9-generic); gfx10-1-generic
//! (gfx1010 to gfx1013) and gfx10-3-generic (gfx1030 to gfx1036) are gfx10; gfx11-generic
//! (gfx1100 to gfx1103, gfx1150 to gfx1153) is gfx11; gfx12-generic (gfx1200, gfx1201) is
//! gfx12.
//!
//! gfx1250 and gfx1251 keep one multiprocessor, `%smid` 0 and `%nsmid` 1: there the shader
//! engine is no longer in `WAVE_HW_ID1` (Triton reads it through `s_sendmsg_rtn`), and no
//! second source gives its layout.

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

/// The hardware id layouts of the table above.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// GCN and CDNA before gfx940: `HW_ID`.
    Gcn,
    /// gfx940 and later gfx9: the XCC of `XCC_ID` above the GCN fields.
    GcnWithXcc,
    /// gfx10: `HW_ID1` with a 2-bit shader engine.
    Gfx10,
    /// gfx11 and gfx12 (gfx1200, gfx1201): `HW_ID1` with a 3-bit shader engine.
    Gfx11,
}

/// The layout of `processor` (`gfx90a`, `gfx1201`, `gfx11-generic`, ...), or `None` where ptxr
/// knows none (gfx1250, gfx1251, names it does not know).
fn layout(processor: &str) -> Option<Layout> {
    let number = processor.strip_prefix("gfx")?;
    if let Some(family) = number.strip_suffix("-generic") {
        return match family {
            "9" => Some(Layout::Gcn),
            "9-4" => Some(Layout::GcnWithXcc),
            "10-1" | "10-3" => Some(Layout::Gfx10),
            "11" | "12" => Some(Layout::Gfx11),
            _ => None,
        };
    }
    if !number.chars().all(|character| character.is_ascii_alphanumeric()) {
        return None;
    }
    match number.len() {
        3 if matches!(&number[..1], "6" | "7" | "8") => Some(Layout::Gcn),
        3 if number.starts_with('9') => {
            let with_xcc = number[1..].starts_with(|digit: char| digit.is_ascii_digit() && digit >= '4');
            Some(if with_xcc { Layout::GcnWithXcc } else { Layout::Gcn })
        }
        4 if number.starts_with("10") => Some(Layout::Gfx10),
        4 if number.starts_with("11") || number.starts_with("120") => Some(Layout::Gfx11),
        _ => None,
    }
}

/// The fields that make up `%smid` on a processor, most significant first (each shifted left
/// by the widths of those after it).
fn unit_fields(processor: &str) -> Option<Vec<Field>> {
    let field = |register, offset, bits| Field { register, offset, bits };
    // CU 11:8, SH 12 and SE 14:13 are contiguous: one field of 7 bits.
    let gcn = field(HW_ID, 8, 7);
    let rdna = |engine_bits| vec![field(HW_ID1, 18, engine_bits), field(HW_ID1, 16, 1), field(HW_ID1, 10, 4)];
    Some(match layout(processor)? {
        Layout::Gcn => vec![gcn],
        Layout::GcnWithXcc => vec![field(XCC_ID, 0, 4), gcn],
        Layout::Gfx10 => rdna(2),
        Layout::Gfx11 => rdna(3),
    })
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
        assert_eq!(widths("gfx1151"), Some(8));
        assert_eq!(widths("gfx1200"), Some(8));
        assert_eq!(widths("gfx1201"), Some(8));
        assert_eq!(widths("gfx1250"), None);
        assert_eq!(widths("gfx1251"), None);
        assert_eq!(widths("gfx13-generic"), None);
        assert_eq!(widths("gfx10-3-"), None);
        assert_eq!(widths("sm_80"), None);
    }

    /// Each generic processor gets the layout of the generation all its members share.
    #[test]
    fn generic_processors_take_their_members_layout() {
        let cases = [
            ("gfx9-generic", "gfx906"),
            ("gfx9-4-generic", "gfx942"),
            ("gfx10-1-generic", "gfx1010"),
            ("gfx10-3-generic", "gfx1030"),
            ("gfx11-generic", "gfx1100"),
            ("gfx12-generic", "gfx1200"),
        ];
        for (generic, member) in cases {
            assert!(unit_fields(generic).is_some(), "{generic}");
            assert_eq!(unit_fields(generic), unit_fields(member), "{generic} against {member}");
        }
    }

    #[test]
    fn hwreg_operands_encode_id_offset_and_width_minus_one() {
        // hwreg(HW_REG_HW_ID, 8, 7) and hwreg(HW_REG_HW_ID1, 18, 3).
        assert_eq!(Field { register: HW_ID, offset: 8, bits: 7 }.hwreg(), 4 | (8 << 6) | (6 << 11));
        assert_eq!(Field { register: HW_ID1, offset: 18, bits: 3 }.hwreg(), 23 | (18 << 6) | (2 << 11));
    }
}
