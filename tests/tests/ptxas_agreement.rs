//! The checker's semantic rules against NVIDIA's assembler: each case is a small kernel that
//! ptxas 12.9 accepts or rejects, and ptxr must give the same verdict (no error, or at least one
//! error). The expected verdicts were read from ptxas and are compared with it again where it is
//! installed (skipped otherwise, unless `PTXR_REQUIRE_VALIDATORS=1`). Version and target gating
//! has its own probes in `gating.rs`; error messages are in the `validate_err` snapshots.

use std::process::Command;

use ptxr_tests::ptxas;

/// One module: what goes before the kernel, the kernel's attributes, its body, and whether
/// ptxas accepts it.
struct Case {
    name: &'static str,
    module_scope: &'static str,
    attributes: &'static str,
    body: &'static str,
    accepted: bool,
    /// The `.version` and `.target` (also ptxas's `-arch`): ISA 7.8 for sm_80 but for forms
    /// that only a newer header has.
    header: (&'static str, &'static str),
}

const DEFAULT_HEADER: (&str, &str) = ("7.8", "sm_80");

const fn case(name: &'static str, body: &'static str, accepted: bool) -> Case {
    Case { name, module_scope: "", attributes: "", body, accepted, header: DEFAULT_HEADER }
}

const fn with_module(name: &'static str, module_scope: &'static str, body: &'static str, accepted: bool) -> Case {
    Case { name, module_scope, attributes: "", body, accepted, header: DEFAULT_HEADER }
}

const fn with_attributes(name: &'static str, attributes: &'static str, accepted: bool) -> Case {
    Case { name, module_scope: "", attributes, body: "", accepted, header: DEFAULT_HEADER }
}

/// A case under `.version version` and `.target target`.
const fn at(
    version: &'static str,
    target: &'static str,
    name: &'static str,
    body: &'static str,
    accepted: bool,
) -> Case {
    Case { name, module_scope: "", attributes: "", body, accepted, header: (version, target) }
}

const TWICE: &str =
    ".func (.param .b32 out) twice(.param .b32 in)\n{\n.reg .b32 %x;\nld.param.b32 %x, [in];\nadd.s32 %x, %x, %x;\n\
     st.param.b32 [out], %x;\nret;\n}\n";

const CASES: &[Case] = &[
    // Operand size against the instruction type (section 5.2.2, 6.4.1).
    case("add.u32 with a .b64 source", "add.u32 %r1, %rd1, %r2;", false),
    case("add.u16 with a .b32 destination", "add.u16 %r1, %h1, %h2;", false),
    case("cvt.u32.u64 with a 32-bit source", "cvt.u32.u64 %r1, %r2;", false),
    case("cvt.f32.f16 from a .b32 register", "cvt.f32.f16 %f1, %r1;", true),
    case("add.f16 on .b32 registers", "add.f16 %r1, %r2, %r3;", false),
    case("ld.global.u32 into a .b64 register", "ld.global.u32 %rd1, [%rd2];", true),
    case("ld.global.u64 into a .b32 register", "ld.global.u64 %r1, [%rd2];", false),
    case("st.global.u32 from a .b64 register", "st.global.u32 [%rd1], %rd2;", true),
    case("mov.b32 from a .b64 register", "mov.b32 %r1, %rd1;", false),
    case("mov.b16 from a .b32 register", "mov.b16 %h1, %r1;", false),
    case("mov.u16 of %ctaid.x (ISA 1.x style)", "mov.u16 %h1, %ctaid.x;", true),
    case("mov.u64 of %tid.x", "mov.u64 %rd1, %tid.x;", false),
    case("mov.u32 of %tid without a member", "mov.u32 %r1, %tid;", false),
    case("mov.u32 of %tid.q", "mov.u32 %r1, %tid.q;", false),
    case("mov.u32 of %laneid", "mov.u32 %r1, %laneid;", true),
    case("add.u64 with %tid.x", "add.u64 %rd1, %tid.x, 1;", false),
    case("mov.u32 of %clock64", "mov.u32 %r1, %clock64;", false),
    case("mov.b64 of %clock64", "mov.b64 %rd1, %clock64;", true),
    case("shl.b64 by a 32-bit amount", "shl.b64 %rd1, %rd2, %r1;", true),
    case("mad.f32 without rounding on sm_80", "mad.f32 %f1, %f2, %f3, %f4;", false),
    case("mad.rn.f32", "mad.rn.f32 %f1, %f2, %f3, %f4;", true),
    case("mad.f64 without rounding", "mad.f64 %fd1, %fd2, %fd1, %fd2;", false),
    case("fma.f32 without rounding", "fma.f32 %f1, %f2, %f3, %f4;", false),
    case("cvt.rn.f32.f32", "cvt.rn.f32.f32 %f1, %f2;", false),
    case("cvt.rzi.f32.f32", "cvt.rzi.f32.f32 %f1, %f2;", true),
    case("cvt.rn.f64.f32", "cvt.rn.f64.f32 %fd1, %f1;", false),
    case("cvt.f64.f32", "cvt.f64.f32 %fd1, %f1;", true),
    case("cvt.rn.f32.f16", "cvt.rn.f32.f16 %f1, %h1;", false),
    case("cvt.rn.f16.f16", "cvt.rn.f16.f16 %h1, %h2;", false),
    case("cvt.rn.f32.s16 (an exact conversion still rounds)", "cvt.rn.f32.s16 %f1, %h1;", true),
    case("mov.f32 of an integer literal", "mov.f32 %f1, 1;", false),
    case("add.f32 with an integer literal", "add.f32 %f1, %f2, 1;", false),
    case("mov.f32 of a float literal", "mov.f32 %f1, 0f3F800000;", true),
    case("mov.u32 of a float literal", "mov.u32 %r1, 0f3F800000;", false),
    case("a float register as an address", "ld.global.u32 %r1, [%f1];", false),
    case("a special register as a destination", "mov.u32 %tid.x, %r1;", false),
    // min/max and binary arithmetic modifiers against the type (sections 9.7.1, 9.7.3).
    case("min.relu.s32 on sm_80 (ISA 8.0, sm_90; gating.rs probes it)", "min.relu.s32 %r1, %r2, %r3;", false),
    case("max.relu.u32", "max.relu.u32 %r1, %r2, %r3;", false),
    case("min.relu.s64", "min.relu.s64 %rd1, %rd2, %rd3;", false),
    case("max.relu.f32", "max.relu.f32 %f1, %f2, %f3;", false),
    case("min.ftz.s32", "min.ftz.s32 %r1, %r2, %r3;", false),
    case("min.ftz.relu.s32", "min.ftz.relu.s32 %r1, %r2, %r3;", false),
    case("min.ftz.f32", "min.ftz.f32 %f1, %f2, %f3;", true),
    case("min.ftz.f64", "min.ftz.f64 %fd1, %fd2, %fd1;", false),
    case("add.ftz.u32", "add.ftz.u32 %r1, %r2, %r3;", false),
    case("add.rn.ftz.f64", "add.rn.ftz.f64 %fd1, %fd2, %fd1;", false),
    case("div.rn.ftz.f64", "div.rn.ftz.f64 %fd1, %fd2, %fd1;", false),
    case("div.full.ftz.f32", "div.full.ftz.f32 %f1, %f2, %f3;", true),
    case("add.sat.f64", "add.sat.f64 %fd1, %fd2, %fd1;", false),
    case("mul.rn.sat.f32", "mul.rn.sat.f32 %f1, %f2, %f3;", true),
    case("min.sat.f32", "min.sat.f32 %f1, %f2, %f3;", false),
    case("div.rn.sat.f32", "div.rn.sat.f32 %f1, %f2, %f3;", false),
    case("add.relu.s32", "add.relu.s32 %r1, %r2, %r3;", false),
    // Packed 16-bit integers (ISA 8.0, sm_90): `add`, `min`, `max` on registers only, `.relu`
    // on the signed `min` and `max`, no `sub` (nvcc adds the negated lanes).
    at("8.0", "sm_90", "add.u16x2", "add.u16x2 %r1, %r2, %r3;", true),
    at("8.0", "sm_90", "min.s16x2.relu", "min.s16x2.relu %r1, %r2, %r3;", true),
    at("8.0", "sm_90", "max.relu.s16x2", "max.relu.s16x2 %r1, %r2, %r3;", true),
    at("8.0", "sm_90", "max.s32.relu with an immediate", "max.s32.relu %r1, %r2, 7;", true),
    at("8.0", "sm_90", "sub.s16x2", "sub.s16x2 %r1, %r2, %r3;", false),
    at("8.0", "sm_90", "max.relu.u16x2", "max.relu.u16x2 %r1, %r2, %r3;", false),
    at("8.0", "sm_90", "mul.lo.u16x2", "mul.lo.u16x2 %r1, %r2, %r3;", false),
    at("8.0", "sm_90", "min.ftz.s16x2", "min.ftz.s16x2 %r1, %r2, %r3;", false),
    at("8.0", "sm_90", "add.u16x2 with an immediate", "add.u16x2 %r1, %r2, 5;", false),
    at("8.0", "sm_90", "add.u16x2 into a .f32 register", "add.u16x2 %f1, %r2, %r3;", false),
    at("8.0", "sm_90", "add.u16x2 into a .b64 register", "add.u16x2 %rd1, %r2, %r3;", false),
    // `min`/`max` of three `.f32` sources (ISA 8.8, sm_100): `.ftz`, `.NaN`, `.abs`, no `.xorsign`.
    at("8.8", "sm_100", "max.f32 of three", "max.f32 %f1, %f2, %f3, %f4;", true),
    at("8.8", "sm_100", "min.ftz.NaN.f32 of three", "min.ftz.NaN.f32 %f1, %f2, %f3, 0f3F800000;", true),
    at("8.8", "sm_100", "max.xorsign.abs.f32 of three", "max.xorsign.abs.f32 %f1, %f2, %f3, %f4;", false),
    at("8.8", "sm_100", "max.sat.f32 of three", "max.sat.f32 %f1, %f2, %f3, %f4;", false),
    at("8.8", "sm_100", "max.s32 of three", "max.s32 %r1, %r2, %r3, %r1;", false),
    at("8.8", "sm_100", "max.f64 of three", "max.f64 %fd1, %fd2, %fd1, %fd2;", false),
    // fma/mad forms against the type (sections 9.7.3.6, 9.7.3.7, 9.7.4.4).
    case("mad.rn.f16", "mad.rn.f16 %h1, %h2, %h3, %h1;", false),
    case("mad.rn.f16x2", "mad.rn.f16x2 %r1, %r2, %r3, %r1;", false),
    case("fma.rn.f16x2", "fma.rn.f16x2 %r1, %r2, %r3, %r1;", true),
    case("fma.rn.relu.f16", "fma.rn.relu.f16 %h1, %h2, %h3, %h1;", true),
    case("fma.rn.relu.f32", "fma.rn.relu.f32 %f1, %f2, %f3, %f1;", false),
    case("mad.rn.relu.f32", "mad.rn.relu.f32 %f1, %f2, %f3, %f1;", false),
    case("mad.rn.relu.s32", "mad.rn.relu.s32 %r1, %r2, %r3, %r1;", false),
    case("fma.rn.sat.f32", "fma.rn.sat.f32 %f1, %f2, %f3, %f1;", true),
    // setp modifiers against the type (section 9.7.5.2).
    case("setp.lo.s32", "setp.lo.s32 %p1, %r1, %r2;", false),
    case("setp.lo.u32", "setp.lo.u32 %p1, %r1, %r2;", true),
    case("setp.eq.ftz.s32", "setp.eq.ftz.s32 %p1, %r1, %r2;", false),
    case("setp.eq.ftz.f64", "setp.eq.ftz.f64 %p1, %fd1, %fd2;", false),
    case("setp.lt.ftz.f32", "setp.lt.ftz.f32 %p1, %f1, %f2;", true),
    // atom/red .add on the half types is written .add.noftz.
    case("atom.global.add.f16 without .noftz", "atom.global.add.f16 %h1, [%rd1], %h2;", false),
    case("atom.global.add.noftz.f16", "atom.global.add.noftz.f16 %h1, [%rd1], %h2;", true),
    case("red.global.add.f16x2 without .noftz", "red.global.add.f16x2 [%rd1], %r2;", false),
    case("red.global.add.noftz.f16x2", "red.global.add.noftz.f16x2 [%rd1], %r2;", true),
    at("8.6", "sm_90", "atom.add.bf16 without .noftz", "atom.add.bf16 %h1, [%rd1], %h2;", false),
    at("8.6", "sm_90", "atom.add.noftz.bf16x2", "atom.add.noftz.bf16x2 %r1, [%rd1], %r2;", true),
    // Cache priorities of ld/st: .global and generic addresses, no cache operator beside an L1 one.
    case("ld.global.L1::evict_last", "ld.global.L1::evict_last.u32 %r1, [%rd1];", true),
    case("ld.global.nc.L1::no_allocate", "ld.global.nc.L1::no_allocate.u32 %r1, [%rd1];", true),
    case("ld.L1::evict_first.L2::cache_hint", "ld.L1::evict_first.L2::cache_hint.u32 %r1, [%rd1], %rd2;", true),
    case("ld.relaxed.gpu.global.L1::evict_last", "ld.relaxed.gpu.global.L1::evict_last.u32 %r1, [%rd1];", true),
    case("ld.global.cs.L1::evict_first", "ld.global.cs.L1::evict_first.u32 %r1, [%rd1];", false),
    case("st.global.wb.L1::no_allocate", "st.global.wb.L1::no_allocate.u32 [%rd1], %r1;", false),
    case("ld.volatile.global.L1::evict_last", "ld.volatile.global.L1::evict_last.u32 %r1, [%rd1];", false),
    case("ld.shared.L1::evict_last", "ld.shared.L1::evict_last.u32 %r1, [%rd1];", false),
    case("st.local.L1::evict_normal", "st.local.L1::evict_normal.u32 [%rd1], %r1;", false),
    case("ld.const.L2::cache_hint", "ld.const.L2::cache_hint.u32 %r1, [%rd1], %rd2;", false),
    case("st.shared.L2::cache_hint", "st.shared.L2::cache_hint.u32 [%rd1], %r1, %rd2;", false),
    case("st.global.L2::cache_hint", "st.global.L2::cache_hint.u32 [%rd1], %r1, %rd2;", true),
    case("ld.L2::cache_hint with a 32-bit policy", "ld.L2::cache_hint.u32 %r1, [%rd1], %r2;", false),
    at(
        "8.8",
        "sm_100",
        "ld.L2::evict_first.L2::cache_hint.u32",
        "ld.L2::evict_first.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
        false,
    ),
    at("8.8", "sm_100", "ld.global.L2::evict_last.u32", "ld.global.L2::evict_last.u32 %r1, [%rd1];", false),
    at(
        "8.8",
        "sm_100",
        "ld.global.L2::evict_first.v4.b64",
        "ld.global.L2::evict_first.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [%rd1];",
        true,
    ),
    // atom on .shared::cluster: the operation and type as on the other state spaces.
    at("8.0", "sm_90", "atom.shared::cluster.add.u32", "atom.shared::cluster.add.u32 %r1, [%rd1], %r2;", true),
    at("8.0", "sm_90", "atom.shared::cluster.inc.s32", "atom.shared::cluster.inc.s32 %r1, [%rd1], %r2;", false),
    at("8.0", "sm_90", "atom.shared::cluster.min.f16", "atom.shared::cluster.min.f16 %h1, [%rd1], %h2;", false),
    at("8.0", "sm_90", "red.shared::cluster.add.f16x2", "red.shared::cluster.add.f16x2 [%rd1], %r2;", false),
    at("8.0", "sm_90", "red.shared::cluster.add.noftz.f16x2", "red.shared::cluster.add.noftz.f16x2 [%rd1], %r2;", true),
    // set: .ftz on .f32/.f16 sources only, unsigned orderings on unsigned sources only.
    case("set.eq.ftz.u32.f32", "set.eq.ftz.u32.f32 %r1, %f2, %f3;", true),
    case("set.eq.ftz.u32.f16", "set.eq.ftz.u32.f16 %r1, %h2, %h3;", true),
    case("set.eq.ftz.u32.s32", "set.eq.ftz.u32.s32 %r1, %r2, %r3;", false),
    case("set.eq.ftz.u32.f64", "set.eq.ftz.u32.f64 %r1, %fd1, %fd2;", false),
    case("set.eq.ftz.u32.bf16", "set.eq.ftz.u32.bf16 %r1, %h2, %h3;", false),
    case("set.lo.u32.u16", "set.lo.u32.u16 %r1, %h2, %h3;", true),
    case("set.lo.u32.s32", "set.lo.u32.s32 %r1, %r2, %r3;", false),
    // redux.sync on .f32 (ISA 8.6, sm_100a): only .min and .max.
    at("8.6", "sm_100a", "redux.sync.min.f32", "redux.sync.min.f32 %f1, %f2, -1;", true),
    at("8.6", "sm_100a", "redux.sync.max.abs.NaN.f32", "redux.sync.max.abs.NaN.f32 %f1, %f2, -1;", true),
    at("8.6", "sm_100a", "redux.sync.add.f32", "redux.sync.add.f32 %f1, %f2, -1;", false),
    at("8.6", "sm_100a", "redux.sync.and.f32", "redux.sync.and.f32 %f1, %f2, -1;", false),
    at("8.6", "sm_90", "redux.sync.min.f32 on sm_90", "redux.sync.min.f32 %f1, %f2, -1;", false),
    at("8.5", "sm_90", "redux.sync.min.f32 under ISA 8.5", "redux.sync.min.f32 %f1, %f2, -1;", false),
    // Forms a sweep against ptxas 12.9 found ptxr refusing.
    case("isspacep.global on a 32-bit register", "isspacep.global %p1, %r1;", true),
    case("isspacep.shared on a 32-bit register", "isspacep.shared %p1, %r1;", true),
    case("isspacep.global on a .f32 register", "isspacep.global %p1, %f1;", false),
    case("isspacep.global on a 16-bit register", "isspacep.global %p1, %h1;", false),
    at("7.8", "sm_90", "isspacep.shared::cluster", "isspacep.shared::cluster %p1, %rd1;", true),
    at("7.8", "sm_90", "isspacep.shared::cluster on a 16-bit register", "isspacep.shared::cluster %p1, %h1;", false),
    at("8.0", "sm_90", "min.s16x2", "min.s16x2 %r1, %r2, %r3;", true),
    at("8.0", "sm_90", "max.u16x2", "max.u16x2 %r1, %r2, %r3;", true),
    at("8.0", "sm_90", "min.relu.s16x2", "min.relu.s16x2 %r1, %r2, %r3;", true),
    at("8.0", "sm_90", "max.relu.u16x2", "max.relu.u16x2 %r1, %r2, %r3;", false),
    at("8.0", "sm_90", "max.relu.s32", "max.relu.s32 %r1, %r2, %r3;", true),
    at("7.8", "sm_90", "min.s16x2 under ISA 7.8", "min.s16x2 %r1, %r2, %r3;", false),
    at("8.0", "sm_89", "min.u16x2 on sm_89", "min.u16x2 %r1, %r2, %r3;", false),
    case("fma.rz.bf16", "fma.rz.bf16 %h1, %h2, %h3, %h1;", true),
    case("fma.rm.bf16x2", "fma.rm.bf16x2 %r1, %r2, %r3, %r1;", true),
    case("fma.rp.relu.bf16x2", "fma.rp.relu.bf16x2 %r1, %r2, %r3, %r1;", true),
    case("fma.rp.f16", "fma.rp.f16 %h1, %h2, %h3, %h1;", false),
    case("fma.rz.f16x2", "fma.rz.f16x2 %r1, %r2, %r3, %r1;", false),
    case("fma.rz.ftz.bf16", "fma.rz.ftz.bf16 %h1, %h2, %h3, %h1;", false),
    case("fma.rz.sat.bf16", "fma.rz.sat.bf16 %h1, %h2, %h3, %h1;", false),
    case("fma.rni.bf16", "fma.rni.bf16 %h1, %h2, %h3, %h1;", false),
    case("setp.eq.f16x2 with one predicate", "setp.eq.f16x2 %p1, %r1, %r2;", true),
    case("setp.eq.and.f16x2 with one predicate", "setp.eq.and.f16x2 %p1, %r1, %r2, %p2;", true),
    at("7.8", "sm_90", "setp.lt.bf16x2 with one predicate", "setp.lt.bf16x2 %p1, %r1, %r2;", true),
    case("setp.eq.f16 with two predicates", "setp.eq.f16 %p1|%p2, %h1, %h2;", false),
    at("7.8", "sm_90", "cvta.shared::cluster", "cvta.shared::cluster.u64 %rd1, %rd2;", true),
    at("7.8", "sm_90", "cvta.to.shared::cluster", "cvta.to.shared::cluster.u64 %rd1, %rd2;", true),
    case("cvta.shared::cluster on sm_80", "cvta.shared::cluster.u64 %rd1, %rd2;", false),
    at("8.1", "sm_90", "%aggr_smem_size", "mov.u32 %r1, %aggr_smem_size;", true),
    at("8.0", "sm_90", "%aggr_smem_size under ISA 8.0", "mov.u32 %r1, %aggr_smem_size;", false),
    at("8.1", "sm_80", "%aggr_smem_size on sm_80", "mov.u32 %r1, %aggr_smem_size;", false),
    at("8.1", "sm_90", "%aggr_smem_size into a .b64", "mov.u64 %rd1, %aggr_smem_size;", false),
    // cvt's modifiers against its types (section 9.7.8.18); a sweep of every type pair, rounding,
    // .ftz, .sat and .relu against ptxas 12.9 found each rule.
    case("cvt.rn.u32.u16", "cvt.rn.u32.u16 %r1, %h1;", false),
    case("cvt.u32.u16", "cvt.u32.u16 %r1, %h1;", true),
    case("cvt.sat.u32.u16 (every value fits)", "cvt.sat.u32.u16 %r1, %h1;", false),
    case("cvt.sat.u32.s16", "cvt.sat.u32.s16 %r1, %h1;", true),
    case("cvt.sat.s32.u16 (every value fits)", "cvt.sat.s32.u16 %r1, %h1;", false),
    case("cvt.sat.s32.u32", "cvt.sat.s32.u32 %r1, %r2;", true),
    case("cvt.u32.f32 without a rounding", "cvt.u32.f32 %r1, %f1;", false),
    case("cvt.rn.u32.f32", "cvt.rn.u32.f32 %r1, %f1;", false),
    case("cvt.rzi.ftz.sat.u32.f32", "cvt.rzi.ftz.sat.u32.f32 %r1, %f1;", true),
    case("cvt.rzi.ftz.u32.f64", "cvt.rzi.ftz.u32.f64 %r1, %fd1;", false),
    case("cvt.f32.s32 without a rounding", "cvt.f32.s32 %f1, %r1;", false),
    case("cvt.rni.f32.s32", "cvt.rni.f32.s32 %f1, %r1;", false),
    case("cvt.rzi.f32.f64", "cvt.rzi.f32.f64 %f1, %fd1;", false),
    case("cvt.rni.f64.f64", "cvt.rni.f64.f64 %fd1, %fd2;", true),
    case("cvt.ftz.f64.f64", "cvt.ftz.f64.f64 %fd1, %fd2;", false),
    case("cvt.sat.f64.f64", "cvt.sat.f64.f64 %fd1, %fd2;", true),
    case("cvt.ftz.sat.f32.f16", "cvt.ftz.sat.f32.f16 %f1, %h1;", true),
    case("cvt.ftz.f64.f16", "cvt.ftz.f64.f16 %fd1, %h1;", false),
    case("cvt.rn.ftz.f32.bf16", "cvt.rn.ftz.f32.bf16 %f1, %h1;", true),
    case("cvt.sat.f32.bf16", "cvt.sat.f32.bf16 %f1, %h1;", false),
    case("cvt.rn.sat.bf16.f32", "cvt.rn.sat.bf16.f32 %h1, %f1;", false),
    case("cvt.rz.relu.bf16.f32", "cvt.rz.relu.bf16.f32 %h1, %f1;", true),
    case("cvt.rm.relu.bf16.f32", "cvt.rm.relu.bf16.f32 %h1, %f1;", false),
    case("cvt.rn.sat.relu.f16.f32", "cvt.rn.sat.relu.f16.f32 %h1, %f1;", false),
    case("cvt.rn.ftz.relu.f16.f32", "cvt.rn.ftz.relu.f16.f32 %h1, %f1;", false),
    case("cvt.rna.relu.f16.f32", "cvt.rna.relu.f16.f32 %h1, %f1;", false),
    case("cvt.rn.relu.f16.f64", "cvt.rn.relu.f16.f64 %h1, %fd1;", false),
    at("7.8", "sm_90", "cvt.rn.bf16.u8", "cvt.rn.bf16.u8 %h1, %h2;", false),
    at("7.8", "sm_90", "cvt.rn.bf16.u16", "cvt.rn.bf16.u16 %h1, %h2;", true),
    at("7.8", "sm_90", "cvt.rzi.s8.bf16", "cvt.rzi.s8.bf16 %h1, %h2;", false),
    at("7.8", "sm_90", "cvt.rzi.sat.s16.bf16", "cvt.rzi.sat.s16.bf16 %h1, %h2;", false),
    // cvt on .bf16: sm_80, and sm_90 with a type other than .f32.
    case("cvt.rn.bf16.f16 on sm_80", "cvt.rn.bf16.f16 %h1, %h2;", false),
    case("cvt.rn.bf16.f32 on sm_80", "cvt.rn.bf16.f32 %h1, %f1;", true),
    case("cvt.f32.bf16 on sm_80", "cvt.f32.bf16 %f1, %h1;", true),
    case("cvt.rzi.s32.bf16 on sm_80", "cvt.rzi.s32.bf16 %r1, %h1;", false),
    at("7.0", "sm_75", "cvt.f32.bf16 on sm_75", "cvt.f32.bf16 %f1, %h1;", false),
    at("7.0", "sm_75", "cvt.rn.relu.f16.f32 on sm_75", "cvt.rn.relu.f16.f32 %h1, %f1;", false),
    at("7.0", "sm_75", "cvt.rn.f16x2.f32 on sm_75", "cvt.rn.f16x2.f32 %r1, %f1, %f2;", false),
    // Architecture-specific forms: only on the `a`/`f` targets that have them.
    at("8.0", "sm_90", "wgmma.fence on sm_90", "wgmma.fence.sync.aligned;", false),
    at("8.0", "sm_90a", "wgmma.fence on sm_90a", "wgmma.fence.sync.aligned;", true),
    at("8.6", "sm_100a", "wgmma.fence on sm_100a", "wgmma.fence.sync.aligned;", false),
    at("8.0", "sm_90", "setmaxnreg on sm_90", "setmaxnreg.inc.sync.aligned.u32 64;", false),
    at("8.0", "sm_90a", "setmaxnreg on sm_90a", "setmaxnreg.inc.sync.aligned.u32 64;", true),
    at("8.8", "sm_100f", "setmaxnreg on sm_100f", "setmaxnreg.dec.sync.aligned.u32 64;", true),
    at("8.8", "sm_120", "setmaxnreg on sm_120", "setmaxnreg.dec.sync.aligned.u32 64;", false),
    at(
        "8.3",
        "sm_90",
        "tensormap.replace on sm_90",
        "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;",
        false,
    ),
    at(
        "8.3",
        "sm_90a",
        "tensormap.replace on sm_90a",
        "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;",
        true,
    ),
    at("8.6", "sm_100", "redux.sync.min.f32 on sm_100", "redux.sync.min.f32 %f1, %f2, -1;", false),
    at("8.8", "sm_103f", "redux.sync.min.f32 on sm_103f", "redux.sync.min.f32 %f1, %f2, -1;", true),
    at("8.8", "sm_120a", "redux.sync.min.f32 on sm_120a", "redux.sync.min.f32 %f1, %f2, -1;", false),
    // .b128 (ISA 8.3, sm_70), declared and used.
    at("8.3", "sm_70", ".reg .b128 under ISA 8.3", ".reg .b128 %q;\nmov.b128 %q, {%rd1, %rd2};", true),
    at("8.2", "sm_90", ".reg .b128 under ISA 8.2", ".reg .b128 %q;", false),
    at("8.3", "sm_60", ".reg .b128 on sm_60", ".reg .b128 %q;", false),
    // selp types (section 9.7.5.3).
    case("selp.f16", "selp.f16 %h1, %h2, %h3, %p1;", false),
    case("selp.bf16x2", "selp.bf16x2 %r1, %r2, %r3, %p1;", false),
    case("selp.b16", "selp.b16 %h1, %h2, %h3, %p1;", true),
    case("selp.f64", "selp.f64 %fd1, %fd2, %fd1, %p1;", true),
    // State spaces (section 5.1, 6.4.1).
    case("st.param to a kernel parameter", "st.param.u64 [p], %rd1;", false),
    case("ld.param of a kernel parameter", "ld.param.u64 %rd1, [p];", true),
    with_module("ld.local of a .global variable", ".global .u32 g;", "ld.local.u32 %r1, [g];", false),
    with_module("ld.global of a .shared variable", ".shared .u32 s;", "ld.global.u32 %r1, [s];", false),
    with_module("atom.shared on a .global variable", ".global .u32 g;", "atom.shared.add.u32 %r1, [g], 1;", false),
    // mbarrier operands and forms (section 9.7.12.13).
    with_module(
        "mbarrier.arrive on a .shared object",
        ".shared .b64 s;",
        "mbarrier.arrive.shared.b64 %rd1, [s];",
        true,
    ),
    with_module(
        "mbarrier.arrive with a 32-bit state",
        ".shared .b64 s;",
        "mbarrier.arrive.shared.b64 %r1, [s];",
        false,
    ),
    with_module("mbarrier.arrive.b32", ".shared .b64 s;", "mbarrier.arrive.shared.b32 %r1, [s];", false),
    with_module(
        "mbarrier.arrive_drop with a sink state",
        ".shared .b64 s;",
        "mbarrier.arrive_drop.shared.b64 _, [s];",
        true,
    ),
    with_module(
        "mbarrier.test_wait with a 32-bit state",
        ".shared .b64 s;",
        "mbarrier.test_wait.shared.b64 %p1, [s], %r1;",
        false,
    ),
    with_module(
        "mbarrier.test_wait.parity with a 64-bit parity",
        ".shared .b64 s;",
        "mbarrier.test_wait.parity.shared.b64 %p1, [s], %rd1;",
        false,
    ),
    // cp.async.mbarrier.arrive (section 9.7.12.13.10).
    with_module(
        "cp.async.mbarrier.arrive on a .shared object",
        ".shared .b64 s;",
        "cp.async.mbarrier.arrive.shared.b64 [s];",
        true,
    ),
    with_module(
        "cp.async.mbarrier.arrive.noinc through a generic address",
        ".shared .b64 s;",
        "cvta.shared.u64 %rd1, s;\ncp.async.mbarrier.arrive.noinc.b64 [%rd1];",
        true,
    ),
    with_module(
        "cp.async.mbarrier.arrive.noinc on .shared::cta",
        ".shared .b64 s;",
        "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [s];",
        true,
    ),
    with_module("cp.async.mbarrier.arrive.b32", ".shared .b64 s;", "cp.async.mbarrier.arrive.shared.b32 [s];", false),
    with_module(
        "cp.async.mbarrier.arrive on a .global object, generic form (undefined at run time)",
        ".global .b64 g;",
        "cp.async.mbarrier.arrive.b64 [g];",
        true,
    ),
    with_module(
        "cp.async.mbarrier.arrive.shared on a .global object",
        ".global .b64 g;",
        "cp.async.mbarrier.arrive.shared.b64 [g];",
        false,
    ),
    with_module(
        "cp.async.mbarrier.arrive with a destination",
        ".shared .b64 s;",
        "cp.async.mbarrier.arrive.shared.b64 %rd1, [s];",
        false,
    ),
    with_module(
        "mbarrier.test_wait into a .b32",
        ".shared .b64 s;",
        "mbarrier.test_wait.shared.b64 %r1, [s], %rd1;",
        false,
    ),
    with_module("mbarrier.init with a 64-bit count", ".shared .b64 s;", "mbarrier.init.shared.b64 [s], %rd1;", false),
    with_module("mbarrier.init.global", ".global .b64 g;", "mbarrier.init.global.b64 [g], 1;", false),
    with_module("generic mbarrier.init of a .global variable", ".global .b64 g;", "mbarrier.init.b64 [g], 1;", false),
    case("generic mbarrier.init through a register", "mbarrier.init.b64 [%rd1], 1;", true),
    with_module(
        "mbarrier.arrive.noComplete without a count",
        ".shared .b64 s;",
        "mbarrier.arrive.noComplete.shared.b64 %rd1, [s];",
        false,
    ),
    with_module(
        "mbarrier.test_wait.noComplete",
        ".shared .b64 s;",
        "mbarrier.test_wait.noComplete.shared.b64 %p1, [s], %rd1;",
        false,
    ),
    with_module("mbarrier.arrive.parity", ".shared .b64 s;", "mbarrier.arrive.parity.shared.b64 %rd1, [s];", false),
    case("mbarrier.pending_count into a .b64", "mbarrier.pending_count.b64 %rd1, %rd1;", false),
    case("mbarrier.pending_count.shared", "mbarrier.pending_count.shared.b64 %r1, %rd1;", false),
    with_module(
        "mbarrier.test_wait with a hint",
        ".shared .b64 s;",
        "mbarrier.test_wait.shared.b64 %p1, [s], %rd1, 5;",
        false,
    ),
    with_module("mbarrier without an operation", ".shared .b64 s;", "mbarrier.shared.b64 %p1, [s], %rd1;", false),
    case("mbarrier.arrive.cta without an ordering", "mbarrier.arrive.cta.shared::cta.b64 %rd1, [%rd2];", false),
    case("mbarrier.arrive.release without a scope", "mbarrier.arrive.release.shared::cta.b64 %rd1, [%rd2];", false),
    with_module("generic ld of a .global variable", ".global .u32 g;", "ld.u32 %r1, [g];", true),
    with_module("ld.shared::cta of a .shared variable", ".shared .u32 s;", "ld.shared::cta.u32 %r1, [s];", true),
    with_module("st.const", ".const .u32 c;", "st.const.u32 [c], %r1;", false),
    with_module("cvta.shared of a .global variable", ".global .u32 g;", "cvta.shared.u64 %rd1, g;", false),
    with_module("cvta.global of a .global variable", ".global .u32 g[4];", "cvta.global.u64 %rd1, g+4;", true),
    with_module(
        "a .shared variable inside a .func",
        ".func (.param .b32 out) keep(.param .b32 in)\n{\n.shared .u32 s;\n.reg .b32 %x;\nld.param.b32 %x, [in];\n\
         st.shared.u32 [s], %x;\nst.param.b32 [out], %x;\nret;\n}\n",
        "",
        true,
    ),
    with_module("a call of a .func", TWICE, ".param .b32 a;\n.param .b32 b;\ncall.uni (b), twice, (a);", true),
    with_module("a call of a kernel", ".visible .entry other()\n{\nret;\n}\n", "call.uni other;", false),
    // Memory access modifiers (sections 8.4, 9.7.8.8, 9.7.8.9, 9.7.12.4).
    case("st.global.lu", "st.global.lu.u32 [%rd1], %r1;", false),
    case("ld.global.lu", "ld.global.lu.u32 %r1, [%rd1];", true),
    case("ld.global.wb", "ld.global.wb.u32 %r1, [%rd1];", false),
    case("st.global.cs", "st.global.cs.u32 [%rd1], %r1;", true),
    case("st.global.nc", "st.global.nc.u32 [%rd1], %r1;", false),
    case("ld.global.L2::128B", "ld.global.L2::128B.u32 %r1, [%rd1];", true),
    case("generic ld.L2::64B", "ld.L2::64B.u32 %r1, [%rd1];", true),
    case("ld.global.nc.L2::256B", "ld.global.nc.L2::256B.u32 %r1, [%rd1];", true),
    case("ld.shared.L2::64B", "ld.shared.L2::64B.u32 %r1, [%rd1];", false),
    case("ld.const.L2::128B", "ld.const.L2::128B.u32 %r1, [%rd1];", false),
    case("st.global.L2::128B", "st.global.L2::128B.u32 [%rd1], %r1;", false),
    case("ldu.global.L2::64B", "ldu.global.L2::64B.u32 %r1, [%rd1];", false),
    case("ld.volatile.local", "ld.volatile.local.u32 %r1, [%rd1];", false),
    case("ld.volatile.global", "ld.volatile.global.u32 %r1, [%rd1];", true),
    case("ld.relaxed without a scope", "ld.relaxed.global.u32 %r1, [%rd1];", false),
    case("ld.relaxed.sys", "ld.relaxed.sys.global.u32 %r1, [%rd1];", true),
    case("ld.volatile.relaxed.gpu", "ld.volatile.relaxed.gpu.global.u32 %r1, [%rd1];", false),
    case("membar.gpu", "membar.gpu;", false),
    case("membar.gl", "membar.gl;", true),
    case("fence.sc.gl", "fence.sc.gl;", false),
    case("fence.sc.gpu", "fence.sc.gpu;", true),
    // Declarations (section 5.4).
    with_module(".shared variable with an initializer", ".shared .u32 s = 5;", "", false),
    with_module(".extern variable with an initializer", ".extern .global .u32 e = 1;", "", false),
    with_module(".common .global variable", ".common .global .u32 shared_counter;", "", true),
    with_module(".common .const variable", ".common .const .u32 shared_counter;", "", false),
    with_module(".global variable with an initializer", ".global .u32 g = 1;", "", true),
    with_module("unsized .shared array", ".shared .b8 buffer[];", "", false),
    with_module("unsized .extern .shared array", ".extern .shared .align 16 .b8 buffer[];", "", true),
    case(".reg .v4 .f64 (256 bits)", ".reg .v4 .f64 %quad;", false),
    case(".reg .v2 .f64 (128 bits)", ".reg .v2 .f64 %pair;", true),
    case(".reg .v4 .f16", ".reg .v4 .f16 %quad;", true),
    with_module(".align 0", ".global .align 0 .u32 g;", "", false),
    with_module("too many initializers", ".global .u8 g[2] = {1, 2, 3};", "", false),
    // Vector operands (section 6.4.3).
    case("ld.v2 with three destinations", "ld.global.v2.u32 {%r1, %r2, %r3}, [%rd1];", false),
    case("ld.v4 with two destinations", "ld.global.v4.u32 {%r1, %r2}, [%rd1];", false),
    // Immediates.
    case("barrier.sync.aligned", "barrier.sync.aligned 0;", true),
    case("bar.sync.aligned", "bar.sync.aligned 0;", false),
    case("bar.sync 16", "bar.sync 16;", false),
    case("bar.sync 15", "bar.sync 15;", true),
    case("bar.sync with 48 threads", "bar.sync 1, 48;", false),
    case("bar.sync with 64 threads", "bar.sync 1, 64;", true),
    case("add.u32 with an immediate over 32 bits (a warning)", "add.u32 %r1, %r2, 0x1ffffffff;", true),
    // Labels.
    case("a label as an operand", "L: add.u32 %r1, L, 1;", false),
    with_module("bra to a variable", ".global .u32 g;", "bra g;", false),
    case(
        "the same label in two sibling blocks",
        "{\nL: add.u32 %r1, %r2, 1;\n@%p1 bra L;\n}\n{\nL: add.u32 %r1, %r2, 1;\n@%p1 bra L;\n}",
        true,
    ),
    case(
        "a label shadowing one of the outer block",
        "L: add.u32 %r1, %r2, 1;\n{\nL: add.u32 %r1, %r2, 2;\n@%p1 bra L;\n}",
        true,
    ),
    case("bra into a nested block", "bra L;\n{\nL: add.u32 %r1, %r2, 1;\n}", false),
    case("bra to a label of a sibling block", "{\nL: add.u32 %r1, %r2, 1;\n}\n{\n@%p1 bra L;\n}", false),
    case("bra to a label of the enclosing block", "L: add.u32 %r1, %r2, 1;\n{\n@%p1 bra L;\n}", true),
    case("a label twice in one nested block", "{\nL: add.u32 %r1, %r2, 1;\nL: add.u32 %r1, %r2, 1;\n}", false),
    // Performance-tuning directives (section 11.4).
    with_attributes(".maxntid with .reqntid", ".maxntid 128, 1, 1 .reqntid 64, 1, 1", false),
    with_attributes(".reqntid 0", ".reqntid 0, 1, 1", false),
    with_attributes(".maxntid 256", ".maxntid 256, 1, 1", true),
    with_attributes(".minnctapersm without .maxntid", ".minnctapersm 4", true),
    with_module("module-scope .pragma \"nounroll\"", ".pragma \"nounroll\";", "", true),
    with_module("module-scope .pragma \"unroll\"", ".pragma \"unroll\";", "", false),
    case("function-scope .pragma \"unroll\" (a warning)", ".pragma \"unroll\";", true),
    // Function declarations (sections 5.1.6, 11.6).
    with_module(".extern .func with a body", ".extern .func helper()\n{\nret;\n}\n", "", false),
    with_module(
        "a prototype that disagrees with the definition",
        ".func helper(.param .b32 x);\n.func helper(.param .b64 x)\n{\nret;\n}\n",
        "",
        false,
    ),
    with_module(
        "a prototype that agrees with the definition",
        ".func helper(.param .b32 x);\n.func helper(.param .b32 y)\n{\nret;\n}\n",
        "",
        true,
    ),
    with_module("a .param .pred parameter", ".func helper(.param .pred x)\n{\nret;\n}\n", "", false),
    with_module("a .reg .pred parameter", ".func helper(.reg .pred x)\n{\nret;\n}\n", "", true),
    with_module("a .param .v4 .b64 parameter", ".func helper(.param .v4 .b64 x)\n{\nret;\n}\n", "", false),
    with_module(".ptr .align 3", ".func helper(.param .u64 .ptr .align 3 x)\n{\nret;\n}\n", "", false),
    with_module(".maxnreg on a .func", ".func helper() .maxnreg 32\n{\nret;\n}\n", "", false),
    // `sured`'s operation and type pairs, geometries and forms (section 9.7.10.3), and cube maps
    // (section 9.7.9.3), as ptxas 12.9 reads them.
    case("sured.b.add.u32", "sured.b.add.1d.u32.trap [%rd1, {%r1}], %r2;", true),
    case("sured.b.add.u64", "sured.b.add.2d.u64.zero [%rd1, {%r1, %r2}], %rd2;", true),
    case("sured.b.add.s64", "sured.b.add.1d.s64.trap [%rd1, {%r1}], %rd2;", false),
    case("sured.b.add.b32", "sured.b.add.1d.b32.trap [%rd1, {%r1}], %r2;", false),
    case("sured.b.min.s32", "sured.b.min.3d.s32.clamp [%rd1, {%r1, %r1, %r1, %r1}], %r2;", true),
    case("sured.b.min.b32", "sured.b.min.1d.b32.trap [%rd1, {%r1}], %r2;", false),
    case("sured.b.max.u64 under ISA 7.8", "sured.b.max.1d.u64.trap [%rd1, {%r1}], %rd2;", false),
    at("8.1", "sm_80", "sured.b.max.s64 under ISA 8.1", "sured.b.max.1d.s64.trap [%rd1, {%r1}], %rd2;", true),
    case("sured.b.and.b32", "sured.b.and.1d.b32.trap [%rd1, {%r1}], %r2;", true),
    case("sured.b.or.u32", "sured.b.or.1d.u32.trap [%rd1, {%r1}], %r2;", false),
    case("sured.b.and.b64", "sured.b.and.1d.b64.trap [%rd1, {%r1}], %rd2;", false),
    case("sured.p.min.b32", "sured.p.min.2d.b32.trap [%rd1, {%r1, %r2}], %r2;", true),
    case("sured.p.add.u32", "sured.p.add.1d.u32.trap [%rd1, {%r1}], %r2;", false),
    case("sured.b.add.a1d", "sured.b.add.a1d.u32.trap [%rd1, {%r1, %r1}], %r2;", false),
    case("tex.cube.v4.f32.f32", "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3, %f4}];", true),
    case("tex.acube.v4.s32.f32", "tex.acube.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %f2, %f3, %f4}];", true),
    case(
        "tex.cube with .s32 coordinates",
        "tex.cube.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2, %r3, %r4}];",
        false,
    ),
    case(
        "tex.cube with three coordinates",
        "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2, %f3}];",
        false,
    ),
    case("suld.b.cube", "suld.b.cube.b32.trap %r1, [%rd1, {%r1, %r1, %r1, %r1}];", false),
];

fn module(case: &Case) -> String {
    format!(
        ".version {}\n.target {}\n.address_size 64\n{}\n.visible .entry k(.param .u64 p){}\n{{\n\
         .reg .b32 %r<5>; .reg .b64 %rd<5>; .reg .pred %p<3>; .reg .b16 %h<4>; .reg .f32 %f<5>;\n\
         .reg .f64 %fd<3>;\n{}\nret;\n}}\n",
        case.header.0, case.header.1, case.module_scope, case.attributes, case.body
    )
}

#[test]
fn ptxr_accepts_and_rejects_what_ptxas_does() {
    let mut disagreements = Vec::new();
    for case in CASES {
        let source = module(case);
        let (_, diagnostics) = ptxr_frontend::check_source(&source);
        let accepted = !diagnostics.iter().any(|diagnostic| diagnostic.is_error());
        if accepted != case.accepted {
            disagreements.push(format!("{}: ptxr accepts = {accepted}, ptxas accepts = {}", case.name, case.accepted));
        }
    }
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}

/// The expected verdicts are ptxas's own.
#[test]
fn the_expected_verdicts_are_ptxas_verdicts() {
    let Some(ptxas) = ptxas() else { return };
    let directory = std::env::temp_dir().join(format!("ptxr-agreement-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let file = directory.join("case.ptx");
    let mut disagreements = Vec::new();
    for case in CASES {
        std::fs::write(&file, module(case)).unwrap_or_else(|error| panic!("{error}"));
        let output = Command::new(&ptxas)
            .arg(format!("-arch={}", case.header.1))
            .arg("-o")
            .arg(file.with_extension("cubin"))
            .arg(&file)
            .output()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", ptxas.display()));
        if output.status.success() != case.accepted {
            disagreements.push(format!(
                "{}: ptxas accepts = {}, expected {}: {}",
                case.name,
                output.status.success(),
                case.accepted,
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&directory);
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}
