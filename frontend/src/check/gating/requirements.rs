//! The oldest PTX ISA version and `sm_` target of each instruction form, as data.
//!
//! Every row comes from the "PTX ISA notes" and "Target ISA notes" of one instruction in
//! `../shared/spec/ptx-isa-7.8-zh.md` (section numbers below), `ptx-extended-precision-integer.md`
//! or `ptx-half-precision-comparison.md`. A row applies to an instruction whose opcode is one of
//! `opcodes` and which has, for each group of `modifiers`, at least one modifier of that group
//! (written without its dot). A pattern that starts with `::` matches any modifier ending with
//! it, so `::cta` matches `shared::cta`.
//!
//! Where the notes only say "all other features need ISA x.y" for an instruction that existed
//! long before (`bar`, `membar`, `atom`, `call`, the texture and surface instructions), the
//! sentence summarises the newest forms, not the instruction, and no row is written for the
//! instruction as a whole: a wrong row would reject real PTX, a missing one only lets an old
//! module through. Their individual forms have rows where NVIDIA's notes name them (the Chinese
//! translation abridges those notes, and stops at ISA 7.8; sections marked "ISA 8.x" are from
//! NVIDIA's later notes), each confirmed against ptxas 12.9 in `tests/tests/gating.rs`.

use crate::ir::IsaVersion;

/// One instruction form and what it needs.
#[derive(Debug)]
pub struct Requirement {
    pub opcodes: &'static [&'static str],
    /// Each group must be matched by one of the instruction's modifiers.
    pub modifiers: &'static [&'static [&'static str]],
    /// The PTX ISA version that introduced the form.
    pub version: Option<IsaVersion>,
    /// The oldest `sm_` target that has it.
    pub sm: Option<u32>,
    /// How the spec names the form, for messages: "64-bit `add.cc`".
    pub form: &'static str,
    /// The spec section of the notes.
    pub section: &'static str,
    /// What the operands must look like for the row to apply, besides the modifiers.
    pub operands: Operands,
}

/// A condition on an instruction's operands, for forms that no modifier names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operands {
    /// Any operands.
    Any,
    /// `call` through a register: the operands end with a `.callprototype` or `.calltargets`
    /// label after the argument list (`call (r), %rd1, (a), prototype;`).
    IndirectCall,
    /// `mbarrier.arrive{_drop}` with a count but without `.noComplete`: the operands end with
    /// the count, a third operand.
    CompletingCount,
    /// `min`/`max` of three sources (`max.f32 d, a, b, c`).
    ThreeSources,
}

const ANY: Operands = Operands::Any;

const fn isa(major: u32, minor: u32) -> Option<IsaVersion> {
    Some(IsaVersion { major, minor })
}

const NONE: &[&[&str]] = &[];
const SIXTY_FOUR_BIT: &[&str] = &["u64", "s64"];
const THIRTY_TWO_BIT: &[&str] = &["u32", "s32"];
const HALF: &[&str] = &["f16", "f16x2"];
const BFLOAT: &[&str] = &["bf16", "bf16x2"];
const MEMORY: &[&str] = &["ld", "st"];
const ATOMIC: &[&str] = &["atom", "red"];
const MBARRIER: &[&str] = &["mbarrier"];

#[rustfmt::skip]
pub const REQUIREMENTS: &[Requirement] = &[
    // 9.7.1: integer arithmetic.
    Requirement { opcodes: &["popc"], modifiers: NONE, version: None, sm: Some(20), form: "`popc`", section: "9.7.1.14", operands: ANY },
    Requirement { opcodes: &["clz"], modifiers: NONE, version: None, sm: Some(20), form: "`clz`", section: "9.7.1.15", operands: ANY },
    Requirement { opcodes: &["bfind"], modifiers: NONE, version: None, sm: Some(20), form: "`bfind`", section: "9.7.1.16", operands: ANY },
    Requirement { opcodes: &["fns"], modifiers: NONE, version: isa(6, 0), sm: Some(30), form: "`fns`", section: "9.7.1.17", operands: ANY },
    Requirement { opcodes: &["brev"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`brev`", section: "9.7.1.18", operands: ANY },
    Requirement { opcodes: &["bfe"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`bfe`", section: "9.7.1.19", operands: ANY },
    Requirement { opcodes: &["bfi"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`bfi`", section: "9.7.1.20", operands: ANY },
    Requirement { opcodes: &["szext"], modifiers: NONE, version: isa(7, 6), sm: Some(70), form: "`szext`", section: "9.7.1.21", operands: ANY },
    Requirement { opcodes: &["bmsk"], modifiers: NONE, version: isa(7, 6), sm: Some(70), form: "`bmsk`", section: "9.7.1.22", operands: ANY },
    Requirement { opcodes: &["dp4a"], modifiers: NONE, version: isa(5, 0), sm: Some(61), form: "`dp4a`", section: "9.7.1.23", operands: ANY },
    Requirement { opcodes: &["dp2a"], modifiers: NONE, version: isa(5, 0), sm: Some(61), form: "`dp2a`", section: "9.7.1.24", operands: ANY },
    // 9.7.2: extended precision (ptx-extended-precision-integer.md).
    Requirement { opcodes: &["add", "sub"], modifiers: &[&["cc"], THIRTY_TWO_BIT], version: isa(1, 2), sm: None, form: "32-bit `add.cc`/`sub.cc`", section: "9.7.2.1, 9.7.2.3", operands: ANY },
    Requirement { opcodes: &["add", "sub"], modifiers: &[&["cc"], SIXTY_FOUR_BIT], version: isa(4, 3), sm: Some(20), form: "64-bit `add.cc`/`sub.cc`", section: "9.7.2.1, 9.7.2.3", operands: ANY },
    Requirement { opcodes: &["addc", "subc"], modifiers: &[THIRTY_TWO_BIT], version: isa(1, 2), sm: None, form: "32-bit `addc`/`subc`", section: "9.7.2.2, 9.7.2.4", operands: ANY },
    Requirement { opcodes: &["addc", "subc"], modifiers: &[SIXTY_FOUR_BIT], version: isa(4, 3), sm: Some(20), form: "64-bit `addc`/`subc`", section: "9.7.2.2, 9.7.2.4", operands: ANY },
    Requirement { opcodes: &["mad"], modifiers: &[&["cc"], THIRTY_TWO_BIT], version: isa(3, 0), sm: Some(20), form: "32-bit `mad.cc`", section: "9.7.2.5", operands: ANY },
    Requirement { opcodes: &["mad"], modifiers: &[&["cc"], SIXTY_FOUR_BIT], version: isa(4, 3), sm: Some(20), form: "64-bit `mad.cc`", section: "9.7.2.5", operands: ANY },
    Requirement { opcodes: &["madc"], modifiers: &[THIRTY_TWO_BIT], version: isa(3, 0), sm: Some(20), form: "32-bit `madc`", section: "9.7.2.6", operands: ANY },
    Requirement { opcodes: &["madc"], modifiers: &[SIXTY_FOUR_BIT], version: isa(4, 3), sm: Some(20), form: "64-bit `madc`", section: "9.7.2.6", operands: ANY },
    // 9.7.3: floating point.
    Requirement { opcodes: &["testp"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`testp`", section: "9.7.3.1", operands: ANY },
    Requirement { opcodes: &["add"], modifiers: &[&["f64"]], version: None, sm: Some(13), form: "`add.f64`", section: "9.7.3.3", operands: ANY },
    Requirement { opcodes: &["add"], modifiers: &[&["rm", "rp"], &["f32"]], version: None, sm: Some(20), form: "`add.rm`/`add.rp` on `.f32`", section: "9.7.3.3", operands: ANY },
    Requirement { opcodes: &["fma"], modifiers: &[&["f64"]], version: isa(1, 4), sm: Some(13), form: "`fma.f64`", section: "9.7.3.6", operands: ANY },
    Requirement { opcodes: &["fma"], modifiers: &[&["f32"]], version: isa(2, 0), sm: Some(13), form: "`fma.f32`", section: "9.7.3.6", operands: ANY },
    Requirement { opcodes: &["mad"], modifiers: &[&["f64"]], version: None, sm: Some(13), form: "`mad.f64`", section: "9.7.3.7", operands: ANY },
    Requirement { opcodes: &["min", "max"], modifiers: &[&["NaN"]], version: isa(7, 0), sm: Some(80), form: "`min.NaN`/`max.NaN`", section: "9.7.3.11", operands: ANY },
    // ISA 8.0 (NVIDIA's notes): integer `min.relu`/`max.relu` on `.s32` and `.s16x2`, sm_90.
    Requirement { opcodes: &["min", "max"], modifiers: &[&["relu"], &["s32", "s16x2"]], version: isa(8, 0), sm: Some(90), form: "integer `min.relu`/`max.relu`", section: "9.7.1.10 (ISA 8.0)", operands: ANY },
    // ISA 8.8 (NVIDIA's notes): `min`/`max` of three `.f32` sources, sm_100 (ptxas 12.9: 'Feature
    // 'max.f32 with 3 input operands' requires PTX ISA .version 8.8 or later' and sm_100).
    Requirement { opcodes: &["min", "max"], modifiers: &[&["f32"]], version: isa(8, 8), sm: Some(100), form: "`min`/`max` of three `.f32` sources", section: "9.7.3.10, 9.7.3.11 (ISA 8.8)", operands: Operands::ThreeSources },
    // ISA 8.0 (NVIDIA's notes): `add`, `min`, `max` on the packed `.u16x2`/`.s16x2`, sm_90.
    Requirement { opcodes: &["add", "min", "max"], modifiers: &[&["u16x2", "s16x2"]], version: isa(8, 0), sm: Some(90), form: "packed 16-bit integer `add`/`min`/`max`", section: "9.7.1.1, 9.7.1.10 (ISA 8.0)", operands: ANY },
    // ptxas 12.9: "Feature '::cluster' requires .target sm_90 or higher" (and ISA 7.8).
    Requirement { opcodes: &["cvta"], modifiers: &[&["shared::cluster"]], version: isa(7, 8), sm: Some(90), form: "`cvta` on `.shared::cluster`", section: "9.7.8.16 (ISA 7.8)", operands: ANY },
    Requirement { opcodes: &["min", "max"], modifiers: &[&["xorsign"]], version: isa(7, 2), sm: Some(86), form: "`min.xorsign.abs`/`max.xorsign.abs`", section: "9.7.3.11", operands: ANY },
    // ptxas 12.9: "Feature '.bf16' requires .target sm_80 or higher", "Feature 'cvt.f16x2.f32'
    // requires .target sm_80", "Modifier '.relu' requires .target sm_80", and "Feature 'cvt with
    // .f16.bf16' requires .target sm_90" for `.bf16` with anything but `.f32`. (`cvt.bf16.bf16`
    // needs sm_90 too, but a row cannot ask for `.bf16` twice.)
    Requirement { opcodes: &["cvt"], modifiers: &[&["bf16", "bf16x2", "f16x2", "relu"]], version: None, sm: Some(80), form: "`cvt` on `.bf16`, `.bf16x2` and `.f16x2`, and `cvt.relu`", section: "9.7.8.18", operands: ANY },
    Requirement { opcodes: &["cvt"], modifiers: &[&["bf16"], &["f16", "f64", "u16", "u32", "u64", "s16", "s32", "s64"]], version: None, sm: Some(90), form: "`cvt` between `.bf16` and a type other than `.f32`", section: "9.7.8.18", operands: ANY },
    // ISA 8.6 (NVIDIA's notes): `add`, `sub`, `mul` and `fma` on `.f32x2`, sm_100.
    Requirement { opcodes: &["add", "sub", "mul", "fma"], modifiers: &[&["f32x2"]], version: isa(8, 6), sm: Some(100), form: "`.f32x2` arithmetic", section: "9.7.3 (ISA 8.6)", operands: ANY },
    Requirement { opcodes: &["cvt"], modifiers: &[&["tf32"]], version: isa(7, 0), sm: Some(80), form: "`cvt` to `.tf32`", section: "9.7.8.18", operands: ANY },
    Requirement { opcodes: &["cvt"], modifiers: &[&["tf32"], &["rn", "rz"]], version: isa(7, 8), sm: Some(90), form: "`cvt.rn`/`cvt.rz` to `.tf32`", section: "9.7.8.18", operands: ANY },
    // ISA 8.6 (NVIDIA's notes): `cvt` to and from the 6- and 4-bit floats and `.ue8m0x2`. ptxas 12.9 and 13.5
    // want an `a`/`f` target from sm_100a up ("Feature 'cvt.e2m1x2.f32' not supported on .target
    // 'sm_100'"), which `architecture_specific.rs` asks for beside this row.
    Requirement { opcodes: &["cvt"], modifiers: &[&["e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2"]], version: isa(8, 6), sm: Some(100), form: "`cvt` with `.e2m1x2`, `.e2m3x2`, `.e3m2x2` or `.ue8m0x2`", section: "9.7.8.21 (ISA 8.6)", operands: ANY },
    // 9.7.4: half precision (`sub` and `mul` share the notes of `add`).
    Requirement { opcodes: &["tanh"], modifiers: &[&["f32"]], version: isa(7, 0), sm: Some(75), form: "`tanh.approx.f32`", section: "9.7.3.22", operands: ANY },
    Requirement { opcodes: &["tanh", "ex2"], modifiers: &[HALF], version: isa(7, 0), sm: Some(75), form: "`tanh`/`ex2` on `.f16`", section: "9.7.4.9, 9.7.4.10", operands: ANY },
    Requirement { opcodes: &["tanh", "ex2"], modifiers: &[BFLOAT], version: isa(7, 8), sm: Some(90), form: "`tanh`/`ex2` on `.bf16`", section: "9.7.4.9, 9.7.4.10", operands: ANY },
    Requirement { opcodes: &["add", "sub", "mul"], modifiers: &[HALF], version: isa(4, 2), sm: Some(53), form: "half-precision arithmetic", section: "9.7.4.1", operands: ANY },
    Requirement { opcodes: &["add", "sub", "mul"], modifiers: &[BFLOAT], version: isa(7, 8), sm: Some(90), form: "`add`/`sub`/`mul` on `.bf16`", section: "9.7.4.1", operands: ANY },
    // 9.7.6: half-precision comparison (ptx-half-precision-comparison.md).
    Requirement { opcodes: &["set", "setp"], modifiers: &[HALF], version: isa(4, 2), sm: Some(53), form: "half-precision comparison", section: "9.7.6.1, 9.7.6.2", operands: ANY },
    Requirement { opcodes: &["set"], modifiers: &[&["u16", "u32", "s16", "s32"], HALF], version: isa(6, 5), sm: Some(53), form: "`set` with an integer result on `.f16`", section: "9.7.6.1", operands: ANY },
    Requirement { opcodes: &["set", "setp"], modifiers: &[BFLOAT], version: isa(7, 8), sm: Some(90), form: "`set`/`setp` on `.bf16`", section: "9.7.6.1, 9.7.6.2", operands: ANY },
    // 9.7.7: logic and shift.
    Requirement { opcodes: &["lop3"], modifiers: NONE, version: isa(4, 3), sm: Some(50), form: "`lop3`", section: "9.7.7.6", operands: ANY },
    // The predicate form is newer than the ISA 7.8 text: PTX ISA 8.2's notes for `lop3`.
    Requirement { opcodes: &["lop3"], modifiers: &[&["and", "or"]], version: isa(8, 2), sm: Some(50), form: "`lop3.BoolOp` with a predicate result", section: "9.7.7.6 (ISA 8.2)", operands: ANY },
    Requirement { opcodes: &["shf"], modifiers: NONE, version: isa(3, 1), sm: Some(32), form: "`shf`", section: "9.7.7.7", operands: ANY },
    // 9.7.8: data movement and conversion (`st` shares the notes of `ld`).
    Requirement { opcodes: &["mov"], modifiers: &[&["f64"]], version: None, sm: Some(13), form: "`mov.f64`", section: "9.7.8.3", operands: ANY },
    Requirement { opcodes: &["shfl"], modifiers: &[&["sync"]], version: isa(6, 0), sm: Some(30), form: "`shfl.sync`", section: "9.7.8.6", operands: ANY },
    Requirement { opcodes: &["prmt"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`prmt`", section: "9.7.8.7", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["volatile"]], version: isa(1, 1), sm: None, form: "`.volatile`", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["ca", "cg", "cs", "lu", "cv", "wb", "wt"]], version: isa(2, 0), sm: Some(20), form: "cache operators", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["relaxed", "acquire", "release", "weak"]], version: isa(6, 0), sm: Some(70), form: "the `.relaxed`, `.acquire`, `.release` and `.weak` qualifiers", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&[ "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate", "L2::evict_normal", "L2::evict_first", "L2::evict_last", ]], version: isa(7, 4), sm: Some(70), form: "eviction priorities", section: "9.7.8.2, 9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["L2::64B", "L2::128B"]], version: isa(7, 4), sm: Some(75), form: "`.level::prefetch_size`", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["L2::256B"]], version: isa(7, 4), sm: Some(80), form: "`.L2::256B`", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["L2::cache_hint"]], version: isa(7, 4), sm: Some(80), form: "`.L2::cache_hint`", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["cluster"]], version: isa(7, 8), sm: Some(90), form: "the `.cluster` scope", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["::cta"]], version: isa(7, 8), sm: Some(30), form: "the `::cta` sub-qualifier", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["::cluster"]], version: isa(7, 8), sm: Some(90), form: "the `::cluster` sub-qualifier", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["f64"]], version: None, sm: Some(13), form: "`.f64` loads and stores", section: "9.7.8.8", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["v8"], &["b32", "u32", "s32", "f32"]], version: isa(8, 8), sm: Some(100), form: "256-bit loads and stores (`.v8` of 32-bit elements)", section: "9.7.8.8 (ISA 8.8)", operands: ANY },
    Requirement { opcodes: MEMORY, modifiers: &[&["v4"], &["b64", "u64", "s64", "f64"]], version: isa(8, 8), sm: Some(100), form: "256-bit loads and stores (`.v4` of 64-bit elements)", section: "9.7.8.8 (ISA 8.8)", operands: ANY },
    Requirement { opcodes: &["ld", "ldu", "st", "mov"], modifiers: &[&["b128"]], version: isa(8, 3), sm: Some(70), form: "the `.b128` type", section: "5.2.2 (ISA 8.3)", operands: ANY },
    Requirement { opcodes: &["ld"], modifiers: &[&["global"], &["nc"]], version: isa(3, 1), sm: None, form: "`ld.global.nc`", section: "9.7.8.9", operands: ANY },
    Requirement { opcodes: &["ldu"], modifiers: NONE, version: isa(2, 0), sm: None, form: "`ldu`", section: "9.7.8.10", operands: ANY },
    Requirement { opcodes: &["ldu"], modifiers: &[&["f64"]], version: isa(2, 0), sm: Some(13), form: "`ldu.f64`", section: "9.7.8.10", operands: ANY },
    Requirement { opcodes: &["prefetch", "prefetchu"], modifiers: NONE, version: isa(2, 0), sm: None, form: "`prefetch`/`prefetchu`", section: "9.7.8.12", operands: ANY },
    Requirement { opcodes: &["prefetch"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`prefetch`", section: "9.7.8.12", operands: ANY },
    Requirement { opcodes: &["applypriority"], modifiers: NONE, version: isa(7, 4), sm: Some(80), form: "`applypriority`", section: "9.7.8.13", operands: ANY },
    Requirement { opcodes: &["discard"], modifiers: NONE, version: isa(7, 4), sm: Some(80), form: "`discard`", section: "9.7.8.14", operands: ANY },
    Requirement { opcodes: &["createpolicy"], modifiers: NONE, version: isa(7, 4), sm: Some(80), form: "`createpolicy`", section: "9.7.8.15", operands: ANY },
    Requirement { opcodes: &["isspacep", "cvta"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`isspacep`/`cvta`", section: "9.7.8.16, 9.7.8.17", operands: ANY },
    Requirement { opcodes: &["isspacep", "cvta"], modifiers: &[&["const"]], version: isa(3, 1), sm: Some(20), form: "the `.const` state space in `isspacep`/`cvta`", section: "9.7.8.16, 9.7.8.17", operands: ANY },
    Requirement { opcodes: &["isspacep", "cvta"], modifiers: &[&["param"]], version: isa(7, 7), sm: Some(70), form: "the `.param` state space in `isspacep`/`cvta`", section: "9.7.8.16, 9.7.8.17", operands: ANY },
    Requirement { opcodes: &["isspacep", "cvta"], modifiers: &[&["::cta"]], version: isa(7, 8), sm: Some(30), form: "the `::cta` sub-qualifier", section: "9.7.8.16, 9.7.8.17", operands: ANY },
    Requirement { opcodes: &["isspacep", "cvta"], modifiers: &[&["::cluster"]], version: isa(7, 8), sm: Some(90), form: "the `::cluster` sub-qualifier", section: "9.7.8.16, 9.7.8.17", operands: ANY },
    Requirement { opcodes: &["cvt"], modifiers: &[&["pack"]], version: isa(6, 5), sm: Some(72), form: "`cvt.pack`", section: "9.7.8.19", operands: ANY },
    Requirement { opcodes: &["cvt"], modifiers: &[&["pack"], &["u4", "s4", "u2", "s2"]], version: isa(6, 5), sm: Some(75), form: "`cvt.pack` to `.u4`, `.s4`, `.u2` or `.s2`", section: "9.7.8.19", operands: ANY },
    Requirement { opcodes: &["mapa"], modifiers: NONE, version: isa(7, 8), sm: Some(90), form: "`mapa`", section: "9.7.8.20", operands: ANY },
    Requirement { opcodes: &["getctarank"], modifiers: NONE, version: isa(7, 8), sm: Some(90), form: "`getctarank`", section: "9.7.8.21", operands: ANY },
    Requirement { opcodes: &["cp"], modifiers: &[&["async"]], version: isa(7, 0), sm: Some(80), form: "`cp.async`", section: "9.7.8.22", operands: ANY },
    Requirement { opcodes: &["cp"], modifiers: &[&["async"], &["L2::cache_hint", "L2::64B", "L2::128B", "L2::256B"]], version: isa(7, 4), sm: Some(80), form: "`cp.async` with cache hints", section: "9.7.8.22.1", operands: ANY },
    Requirement { opcodes: &["cp"], modifiers: &[&["async"], &["::cta"]], version: isa(7, 8), sm: Some(80), form: "the `::cta` sub-qualifier", section: "9.7.8.22.1", operands: ANY },
    // 9.7.9 and 9.7.11: textures and control flow.
    Requirement { opcodes: &["istypep"], modifiers: NONE, version: isa(4, 0), sm: Some(30), form: "`istypep`", section: "9.7.9.6", operands: ANY },
    Requirement { opcodes: &["tex"], modifiers: &[&["a1d", "a2d"]], version: isa(2, 3), sm: None, form: "texture arrays (`.a1d`, `.a2d`)", section: "9.7.9.3", operands: ANY },
    Requirement { opcodes: &["tex"], modifiers: &[&["cube", "acube"]], version: isa(3, 0), sm: None, form: "cubemap textures", section: "9.7.9.3", operands: ANY },
    Requirement { opcodes: &["tex"], modifiers: &[&["acube"]], version: isa(3, 0), sm: Some(20), form: "cubemap array textures (`.acube`)", section: "9.7.9.3", operands: ANY },
    Requirement { opcodes: &["tex"], modifiers: &[&["level", "grad"]], version: isa(3, 1), sm: None, form: "mipmapped `tex.level`/`tex.grad`", section: "9.7.9.3", operands: ANY },
    Requirement { opcodes: &["tex"], modifiers: &[&["2dms", "a2dms"]], version: isa(3, 2), sm: Some(30), form: "multi-sample textures (`.2dms`, `.a2dms`)", section: "9.7.9.3", operands: ANY },
    Requirement { opcodes: &["tld4"], modifiers: NONE, version: isa(2, 2), sm: Some(20), form: "`tld4`", section: "9.7.9.4", operands: ANY },
    Requirement { opcodes: &["tld4"], modifiers: &[&["a2d", "cube", "acube"]], version: isa(4, 3), sm: Some(30), form: "`tld4` on `.a2d`, `.cube` and `.acube`", section: "9.7.9.4", operands: ANY },
    Requirement { opcodes: &["txq"], modifiers: &[&["num_mipmap_levels"]], version: isa(4, 1), sm: None, form: "`txq.num_mipmap_levels`", section: "9.7.9.5", operands: ANY },
    Requirement { opcodes: &["txq"], modifiers: &[&["num_samples"]], version: isa(4, 1), sm: Some(30), form: "`txq.num_samples`", section: "9.7.9.5", operands: ANY },
    Requirement { opcodes: &["txq"], modifiers: &[&["level"]], version: isa(4, 3), sm: Some(30), form: "`txq.level`", section: "9.7.9.5", operands: ANY },
    // 9.7.10: surfaces.
    Requirement { opcodes: &["suld", "sust", "sured"], modifiers: &[&["a1d", "a2d"]], version: isa(3, 0), sm: None, form: "surface arrays (`.a1d`, `.a2d`)", section: "9.7.10.1, 9.7.10.2, 9.7.10.3", operands: ANY },
    Requirement { opcodes: &["sust"], modifiers: &[&["p"]], version: isa(2, 0), sm: Some(20), form: "`sust.p`", section: "9.7.10.2", operands: ANY },
    Requirement { opcodes: &["sured"], modifiers: NONE, version: isa(2, 0), sm: Some(20), form: "`sured`", section: "9.7.10.3", operands: ANY },
    Requirement { opcodes: &["sured"], modifiers: &[&["min", "max"], &["u64", "s64"]], version: isa(8, 1), sm: None, form: "64-bit `sured.b.min`/`.max` (as ptxas 12.9 says)", section: "9.7.10.3", operands: ANY },
    Requirement { opcodes: &["call"], modifiers: NONE, version: isa(2, 1), sm: Some(20), form: "indirect `call`", section: "9.7.11.5", operands: Operands::IndirectCall },
    Requirement { opcodes: &["brx"], modifiers: &[&["idx"]], version: isa(6, 0), sm: Some(30), form: "`brx.idx`", section: "9.7.11.4", operands: ANY },
    // 9.7.12: synchronisation (`red` shares the notes of `atom`).
    Requirement { opcodes: &["barrier"], modifiers: NONE, version: isa(6, 0), sm: Some(30), form: "`barrier`", section: "9.7.12.1", operands: ANY },
    Requirement { opcodes: &["bar", "barrier"], modifiers: &[&["cta"]], version: isa(7, 8), sm: Some(30), form: "the `.cta` qualifier of `bar`/`barrier`", section: "9.7.12.1", operands: ANY },
    Requirement { opcodes: &["bar"], modifiers: &[&["warp"]], version: isa(6, 0), sm: Some(30), form: "`bar.warp.sync`", section: "9.7.12.2", operands: ANY },
    Requirement { opcodes: &["bar"], modifiers: &[&["arrive", "red"]], version: isa(2, 0), sm: Some(20), form: "`bar.arrive`/`bar.red`", section: "9.7.12.1", operands: ANY },
    Requirement { opcodes: &["barrier"], modifiers: &[&["cluster"]], version: isa(7, 8), sm: Some(90), form: "`barrier.cluster`", section: "9.7.12.3", operands: ANY },
    // "The rest needs sm_20" in 9.7.12.4 is about `membar`: `fence` orders memory under the
    // model of chapter 8, which section 8.1 applies to sm_70 and later (ptxas 12.9 agrees).
    Requirement { opcodes: &["fence"], modifiers: NONE, version: isa(6, 0), sm: Some(70), form: "`fence`", section: "8.1, 9.7.12.4", operands: ANY },
    Requirement { opcodes: &["fence"], modifiers: &[&["proxy"]], version: isa(7, 5), sm: Some(70), form: "`fence.proxy`", section: "9.7.12.4", operands: ANY },
    Requirement { opcodes: &["membar"], modifiers: &[&["proxy"]], version: isa(7, 5), sm: Some(60), form: "`membar.proxy`", section: "9.7.12.4", operands: ANY },
    Requirement { opcodes: &["fence", "membar"], modifiers: &[&["cluster"]], version: isa(7, 8), sm: Some(90), form: "the `.cluster` scope", section: "9.7.12.4", operands: ANY },
    Requirement { opcodes: &["membar"], modifiers: &[&["sys"]], version: isa(2, 0), sm: Some(20), form: "`membar.sys`", section: "9.7.12.4", operands: ANY },
    Requirement { opcodes: &["fence"], modifiers: &[&["async", "mbarrier_init"]], version: isa(8, 0), sm: Some(90), form: "`fence.proxy.async` and `fence.mbarrier_init`", section: "9.7.12.4 (ISA 8.0)", operands: ANY },
    Requirement { opcodes: &["fence"], modifiers: &[&["tensormap::generic"]], version: isa(8, 3), sm: Some(90), form: "`fence.proxy.tensormap::generic`", section: "9.7.12.4 (ISA 8.3)", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["add"], &["noftz"], &["f16"]], version: isa(6, 3), sm: Some(70), form: "`atom.add.noftz.f16`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["cas"], &["b16"]], version: isa(6, 3), sm: Some(70), form: "`atom.cas.b16`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[BFLOAT], version: isa(7, 8), sm: Some(90), form: "atomics on `.bf16`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["L2::cache_hint"]], version: isa(7, 4), sm: Some(80), form: "`.L2::cache_hint`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["cluster", "::cluster"]], version: isa(7, 8), sm: Some(90), form: "clusters in atomics", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["add"], &["f32"]], version: isa(2, 0), sm: Some(20), form: "`atom.add.f32`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["and", "or", "xor", "min", "max"], &["b64", "u64", "s64"]], version: isa(3, 1), sm: Some(32), form: "64-bit `atom.and`/`.or`/`.xor`/`.min`/`.max`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["add"], &["f64"]], version: isa(5, 0), sm: Some(60), form: "`atom.add.f64`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["cta", "gpu", "sys"]], version: isa(5, 0), sm: Some(60), form: "scopes on atomics", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["add"], &["f16x2"]], version: isa(6, 2), sm: Some(60), form: "`atom.add.noftz.f16x2`", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["relaxed", "acquire", "release", "acq_rel"]], version: isa(6, 0), sm: Some(70), form: "memory orderings (`.sem`) on atomics", section: "9.7.12.5", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["v2", "v4", "v8"]], version: isa(8, 1), sm: Some(90), form: "vector atomics", section: "9.7.12.5 (ISA 8.1)", operands: ANY },
    Requirement { opcodes: ATOMIC, modifiers: &[&["b128"]], version: isa(8, 3), sm: Some(90), form: "128-bit `atom.cas`/`atom.exch`", section: "9.7.12.5 (ISA 8.3)", operands: ANY },
    Requirement { opcodes: &["vote"], modifiers: &[&["sync"]], version: isa(6, 0), sm: Some(30), form: "`vote.sync`", section: "9.7.12.8", operands: ANY },
    Requirement { opcodes: &["match"], modifiers: NONE, version: isa(6, 0), sm: Some(70), form: "`match.sync`", section: "9.7.12.9", operands: ANY },
    Requirement { opcodes: &["activemask"], modifiers: NONE, version: isa(6, 2), sm: Some(30), form: "`activemask`", section: "9.7.12.10", operands: ANY },
    Requirement { opcodes: &["redux"], modifiers: NONE, version: isa(7, 0), sm: Some(80), form: "`redux.sync`", section: "9.7.12.11", operands: ANY },
    // ptxas wants sm_100a/f or sm_103a/f ("not supported on .target 'sm_100'"): architecture_specific.rs.
    Requirement { opcodes: &["redux"], modifiers: &[&["f32"]], version: isa(8, 6), sm: Some(100), form: "`redux.sync.min`/`.max` on `.f32`", section: "9.7.12.11 (ISA 8.6)", operands: ANY },
    Requirement { opcodes: &["elect"], modifiers: NONE, version: isa(8, 0), sm: Some(90), form: "`elect.sync`", section: "9.7.12 (ISA 8.0)", operands: ANY },
    // The warp matrix instructions' target notes (PTX ISA 9.7.13): only the oldest `sm_` per
    // shape and type, so that an explicit `--arch` below it is E0302 rather than LLVM failing to
    // select the NVVM intrinsic.
    Requirement { opcodes: &["wmma"], modifiers: NONE, version: None, sm: Some(70), form: "`wmma`", section: "9.7.13.3", operands: ANY },
    // ISA 8.0 (NVIDIA's notes for section 9.7.15, "wgmma"): sm_90a.
    Requirement { opcodes: &["wgmma"], modifiers: NONE, version: isa(8, 0), sm: Some(90), form: "`wgmma`", section: "9.7.15 (ISA 8.0)", operands: ANY },
    // ptxas 12.9: "Feature 'WGMMA with mixed integer types' requires PTX ISA .version 8.4".
    Requirement { opcodes: &["wgmma"], modifiers: &[&["s8"], &["u8"]], version: isa(8, 4), sm: Some(90), form: "`wgmma` on mixed `.s8`/`.u8`", section: "9.7.15 (ISA 8.4)", operands: ANY },
    Requirement { opcodes: &["wmma"], modifiers: &[&["aligned"]], version: isa(6, 3), sm: Some(70), form: "`wmma` with `.aligned`", section: "9.7.13.3", operands: ANY },
    Requirement { opcodes: &["wmma"], modifiers: &[&["s8", "u8", "s32"]], version: isa(6, 3), sm: Some(72), form: "`wmma` on integers", section: "9.7.13.3", operands: ANY },
    Requirement { opcodes: &["wmma"], modifiers: &[&["s4", "u4", "b1"]], version: isa(6, 3), sm: Some(75), form: "`wmma` on `.s4`/`.u4`/`.b1`", section: "9.7.13.3", operands: ANY },
    Requirement { opcodes: &["wmma"], modifiers: &[&["bf16", "tf32", "f64", "m16n16k8", "m8n8k4"]], version: isa(7, 0), sm: Some(80), form: "`wmma` on `.bf16`, `.tf32` and `.f64`", section: "9.7.13.3", operands: ANY },
    Requirement { opcodes: &["wmma"], modifiers: &[&["and"]], version: isa(7, 1), sm: Some(80), form: "`wmma.mma.and.popc`", section: "9.7.13.3", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["m8n8k4"]], version: None, sm: Some(70), form: "`mma.m8n8k4`", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["m8n8k4"], &["f64"]], version: None, sm: Some(80), form: "`mma.m8n8k4` on `.f64`", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["m16n8k8", "m8n8k16", "m8n8k32"]], version: None, sm: Some(75), form: "`mma.m16n8k8`, `.m8n8k16`, `.m8n8k32`", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["m16n8k8"], &["bf16", "tf32"]], version: None, sm: Some(80), form: "`mma.m16n8k8` on `.bf16`/`.tf32`", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["m16n8k16", "m16n8k32", "m16n8k4", "m16n8k64", "m16n8k128", "m16n8k256"]], version: None, sm: Some(80), form: "`mma.m16n8k4`, `.m16n8k16` and larger", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["m8n8k128"]], version: None, sm: Some(75), form: "`mma.m8n8k128`", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["m16n8k4", "m16n8k8", "m16n8k16"], &["f64"]], version: isa(7, 8), sm: Some(90), form: "`mma.m16n8k4`, `.m16n8k8`, `.m16n8k16` on `.f64`", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["and"]], version: isa(7, 1), sm: Some(80), form: "`mma.and.popc`", section: "9.7.13.4", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["e4m3", "e5m2"]], version: isa(8, 4), sm: Some(89), form: "`mma` on `.e4m3`/`.e5m2`", section: "9.7.13.4 (ISA 8.4)", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["e4m3", "e5m2"], &["m16n8k16", "f16"]], version: isa(8, 7), sm: Some(89), form: "`mma.m16n8k16` and `.f16` accumulators on `.e4m3`/`.e5m2`", section: "9.7.13.4 (ISA 8.7)", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["sp"]], version: isa(7, 1), sm: Some(80), form: "`mma.sp`", section: "9.7.13.5", operands: ANY },
    Requirement { opcodes: &["mma"], modifiers: &[&["sp::ordered_metadata"]], version: isa(8, 5), sm: Some(80), form: "`mma.sp::ordered_metadata`", section: "9.7.13.5 (ISA 8.5)", operands: ANY },
    Requirement { opcodes: &["ldmatrix"], modifiers: NONE, version: None, sm: Some(75), form: "`ldmatrix`", section: "9.7.13.4.15", operands: ANY },
    Requirement { opcodes: &["stmatrix"], modifiers: NONE, version: isa(7, 8), sm: Some(90), form: "`stmatrix`", section: "9.7.13.4 (ISA 7.8)", operands: ANY },
    Requirement { opcodes: &["alloca", "stacksave", "stackrestore"], modifiers: NONE, version: isa(7, 3), sm: Some(52), form: "`alloca`, `stacksave`, `stackrestore`", section: "stack manipulation (ISA 7.3)", operands: ANY },
    Requirement { opcodes: &["nanosleep"], modifiers: NONE, version: None, sm: Some(70), form: "`nanosleep`", section: "9.7.18.2", operands: ANY },
    Requirement { opcodes: &["griddepcontrol"], modifiers: NONE, version: isa(7, 8), sm: Some(90), form: "`griddepcontrol`", section: "9.7.12.12", operands: ANY },
    Requirement { opcodes: MBARRIER, modifiers: NONE, version: isa(7, 0), sm: Some(80), form: "`mbarrier`", section: "9.7.12.13", operands: ANY },
    Requirement { opcodes: MBARRIER, modifiers: &[&["::cta"]], version: isa(7, 8), sm: Some(80), form: "the `::cta` sub-qualifier", section: "9.7.12.13", operands: ANY },
    Requirement { opcodes: MBARRIER, modifiers: &[&["parity"]], version: isa(7, 1), sm: Some(80), form: "`mbarrier.test_wait.parity`", section: "9.7.12.13.11", operands: ANY },
    Requirement { opcodes: MBARRIER, modifiers: &[&["try_wait"]], version: isa(7, 8), sm: Some(90), form: "`mbarrier.try_wait`", section: "9.7.12.13.11", operands: ANY },
    Requirement { opcodes: MBARRIER, modifiers: &[&["arrive", "arrive_drop"]], version: isa(7, 8), sm: Some(90), form: "a count on `mbarrier.arrive` without `.noComplete`", section: "9.7.12.13.8", operands: Operands::CompletingCount },
    Requirement { opcodes: MBARRIER, modifiers: &[&["release", "acquire"]], version: isa(8, 0), sm: None, form: "`mbarrier` with `.release`/`.acquire`", section: "9.7.12.15 (ISA 8.0)", operands: ANY },
    Requirement { opcodes: MBARRIER, modifiers: &[&["relaxed"]], version: isa(8, 6), sm: Some(90), form: "`mbarrier` with `.relaxed`", section: "9.7.12.15 (ISA 8.6)", operands: ANY },
    Requirement { opcodes: MBARRIER, modifiers: &[&["expect_tx", "complete_tx"]], version: isa(8, 0), sm: Some(90), form: "`mbarrier` transaction counts", section: "mbarrier.expect_tx (ISA 8.0)", operands: ANY },
    Requirement { opcodes: &["cp"], modifiers: &[&["bulk"]], version: isa(8, 0), sm: Some(90), form: "`cp.async.bulk`", section: "cp.async.bulk (ISA 8.0)", operands: ANY },
    // ptxas wants an `a` or `f` target ("not supported on .target 'sm_90'"): architecture_specific.rs.
    Requirement { opcodes: &["tensormap"], modifiers: NONE, version: isa(8, 3), sm: Some(90), form: "`tensormap`", section: "tensormap.replace (ISA 8.3)", operands: ANY },
];
