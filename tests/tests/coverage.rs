//! Generates `docs/COVERAGE.md`: which PTX instruction forms ptxr compiles on which target.
//!
//! Each row of `SECTIONS` is one instruction form worth telling apart (`add.s32` and
//! `add.sat.s32`, `mul.lo` and `mul.wide`...), written as the body of a tiny but complete PTX
//! module that `module_source` builds. Every module is compiled with `compile_source` at -O0 for
//! the four targets, and each cell of the table records the outcome:
//!
//! - ✅ the target's natural artefact came back;
//! - ❌ every error is `Code::Unsupported` (a known gap);
//! - ⚠️ anything else: a frontend error on valid PTX, an LLVM failure, a panic. The first line of
//!   the message is listed under the table; these are bugs.
//!
//! Each row is compiled in a child process (this test binary again, running
//! `child_process_compiles_one_row`), because LLVM reports some errors by aborting the process;
//! such a crash becomes a ⚠️ with LLVM's message instead of ending the run.
//!
//! `PTXR_BLESS=1 cargo test -p ptxr-tests --test coverage` rewrites the committed file; without
//! it the test fails when the file is out of date. `every_row_is_valid_ptx` checks the snippets
//! themselves with NVIDIA's `ptxas` where it is installed, so that a ⚠️ is never the snippet's
//! fault.

use std::fmt::Write as _;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::Command;

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::{Code, Severity};
use ptxr_tests::{ptxas, repository_root};

/// One instruction form: the name shown in the table, declarations at module scope (textures,
/// `.shared` buffers, called functions), declarations inside the kernel (registers, `.local`
/// and `.param` variables), and the body that exercises the form. Declarations and bodies are
/// `;`-separated statements on one line; `module_source` puts each on its own line.
#[derive(Clone, Copy)]
struct Form {
    name: &'static str,
    module_scope: &'static str,
    declarations: &'static str,
    body: &'static str,
    /// The module's `.version` and `.target` lines: [`ISA_7_8_SM_80`] except for newer forms.
    header: &'static str,
}

/// The header of most rows; the forms that ISA 7.8 or sm_80 lack name theirs.
const ISA_7_8_SM_80: &str = ".version 7.8\n.target sm_80";
/// `elect.sync` needs ISA 8.0 and sm_90.
const ISA_8_0_SM_90: &str = ".version 8.0\n.target sm_90";
/// `tensormap.replace` needs ISA 8.3 and sm_90a (ptxas: "not supported on .target 'sm_90'").
const ISA_8_3_SM_90A: &str = ".version 8.3\n.target sm_90a";
/// 128-bit `atom.cas`/`atom.exch` need ISA 8.3 and sm_90.
const ISA_8_3_SM_90: &str = ".version 8.3\n.target sm_90";
/// Vector `atom`/`red` need ISA 8.1 and sm_90.
const ISA_8_1_SM_90: &str = ".version 8.1\n.target sm_90";
/// `wgmma` needs ISA 8.0 and sm_90a.
const ISA_8_0_SM_90A: &str = ".version 8.0\n.target sm_90a";
/// `stmatrix` needs ISA 7.8 and sm_90.
const ISA_7_8_SM_90: &str = ".version 7.8\n.target sm_90";
/// `min`/`max` of three `.f32` sources need ISA 8.8 and sm_100.
const ISA_8_8_SM_100: &str = ".version 8.8\n.target sm_100";
/// `cvt` with the 6- and 4-bit floats or `.ue8m0x2` needs ISA 8.6 and sm_100a (ptxas: "not supported on
/// .target 'sm_100'").
const ISA_8_6_SM_100A: &str = ".version 8.6\n.target sm_100a";

/// A row whose kernel needs nothing at module scope.
const fn form(name: &'static str, declarations: &'static str, body: &'static str) -> Form {
    Form { name, module_scope: "", declarations, body, header: ISA_7_8_SM_80 }
}

/// A row with module-scope declarations (`module_scope` is written verbatim, one per line).
const fn form_with(
    name: &'static str,
    module_scope: &'static str,
    declarations: &'static str,
    body: &'static str,
) -> Form {
    Form { name, module_scope, declarations, body, header: ISA_7_8_SM_80 }
}

/// Module-scope declarations shared by several rows.
const SHARED_TILE: &str = ".shared .align 16 .b8 tile[64];";
/// Room for two 16×16 `.f16` matrices, for `wmma` on `.shared`.
const WMMA_TILE: &str = ".shared .align 32 .b8 wtile[1024];";
const DYNAMIC_SHARED: &str = ".extern .shared .align 16 .b8 dynamic[];";
const TEXTURE: &str = ".global .texref tex;";
const SURFACE: &str = ".global .surfref surf;";
const TWICE: &str = ".func (.param .b32 result) twice(.param .b32 x)\n{\n    .reg .b32 %t<3>;\n    ld.param.b32 %t1, [x];\n    add.s32 %t2, %t1, %t1;\n    st.param.b32 [result], %t2;\n    ret;\n}";

// Register naming in the rows: %p .pred, %h .b16, %r .b32, %rl .b64, %f .f32, %fd .f64. The
// kernel itself declares %rd<3>: %rd1 is the parameter, %rd2 its global address.
const R4: &str = ".reg .b32 %r<4>";
const R6: &str = ".reg .b32 %r<6>";

/// The rows, grouped by the section of the PTX ISA 7.8 manual that defines them.
const SECTIONS: &[(&str, &[Form])] = &[
    (
        "9.7.1 Integer arithmetic",
        &[
            form("add.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; add.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("add.sat.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; add.sat.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("add.u16", ".reg .b16 %h<4>", "ld.global.u16 %h1, [%rd2]; ld.global.u16 %h2, [%rd2+2]; add.u16 %h3, %h1, %h2; st.global.u16 [%rd2], %h3"),
            form("add.s16x2", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; add.s16x2 %r3, %r1, %r2; st.global.u32 [%rd2], %r3").with_header(ISA_8_0_SM_90),
            form("max.relu.s16x2", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; max.relu.s16x2 %r3, %r1, %r2; st.global.u32 [%rd2], %r3").with_header(ISA_8_0_SM_90),
            form("min.relu.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; min.relu.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3").with_header(ISA_8_0_SM_90),
            form("sub.s64", ".reg .b64 %rl<4>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; sub.s64 %rl3, %rl1, %rl2; st.global.u64 [%rd2], %rl3"),
            form("mul.lo.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; mul.lo.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("mul.hi.u32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; mul.hi.u32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("mul.wide.s32", ".reg .b32 %r<3>; .reg .b64 %rl<2>", "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; mul.wide.s32 %rl1, %r1, %r2; st.global.u64 [%rd2], %rl1"),
            form("mad.lo.s32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; mad.lo.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("mad.hi.sat.s32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; mad.hi.sat.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("mad.wide.u32", ".reg .b32 %r<3>; .reg .b64 %rl<3>", "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u64 %rl1, [%rd2+8]; mad.wide.u32 %rl2, %r1, %r2, %rl1; st.global.u64 [%rd2], %rl2"),
            form("mul.hi.s64", ".reg .b64 %rl<4>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; mul.hi.s64 %rl3, %rl1, %rl2; st.global.u64 [%rd2], %rl3"),
            form("mul24.lo.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; mul24.lo.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("mul24.hi.u32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; mul24.hi.u32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("mad24.hi.sat.s32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; mad24.hi.sat.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("sad.u32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; sad.u32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("sad.s64", ".reg .b64 %rl<5>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; ld.global.u64 %rl3, [%rd2+16]; sad.s64 %rl4, %rl1, %rl2, %rl3; st.global.u64 [%rd2], %rl4"),
            form("div.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; div.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("div.u64", ".reg .b64 %rl<4>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; div.u64 %rl3, %rl1, %rl2; st.global.u64 [%rd2], %rl3"),
            form("rem.u32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; rem.u32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("abs.s32", R4, "ld.global.u32 %r1, [%rd2]; abs.s32 %r2, %r1; st.global.u32 [%rd2], %r2"),
            form("neg.s32", R4, "ld.global.u32 %r1, [%rd2]; neg.s32 %r2, %r1; st.global.u32 [%rd2], %r2"),
            form("min.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; min.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("max.u64", ".reg .b64 %rl<4>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; max.u64 %rl3, %rl1, %rl2; st.global.u64 [%rd2], %rl3"),
            form("popc.b32", R4, "ld.global.u32 %r1, [%rd2]; popc.b32 %r2, %r1; st.global.u32 [%rd2], %r2"),
            form("clz.b64", ".reg .b32 %r<2>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; clz.b64 %r1, %rl1; st.global.u32 [%rd2], %r1"),
            form("popc.b64", ".reg .b32 %r<2>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; popc.b64 %r1, %rl1; st.global.u32 [%rd2], %r1"),
            form("brev.b32", R4, "ld.global.u32 %r1, [%rd2]; brev.b32 %r2, %r1; st.global.u32 [%rd2], %r2"),
            form("brev.b64", ".reg .b64 %rl<3>", "ld.global.u64 %rl1, [%rd2]; brev.b64 %rl2, %rl1; st.global.u64 [%rd2], %rl2"),
            form("bfind.u32", R4, "ld.global.u32 %r1, [%rd2]; bfind.u32 %r2, %r1; st.global.u32 [%rd2], %r2"),
            form("bfind.shiftamt.s64", ".reg .b32 %r<2>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; bfind.shiftamt.s64 %r1, %rl1; st.global.u32 [%rd2], %r1"),
            form("fns.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; fns.b32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("bfe.u32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; bfe.u32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("bfe.s64", ".reg .b32 %r<4>; .reg .b64 %rl<5>", "ld.global.u64 %rl1, [%rd2]; ld.global.u32 %r1, [%rd2+8]; ld.global.u32 %r2, [%rd2+12]; bfe.s64 %rl2, %rl1, %r1, %r2; st.global.u64 [%rd2], %rl2"),
            form("bfi.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; bfi.b32 %r5, %r1, %r2, %r3, 8; st.global.u32 [%rd2], %r5"),
            form("bfi.b64", ".reg .b32 %r<4>; .reg .b64 %rl<5>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; ld.global.u32 %r1, [%rd2+16]; bfi.b64 %rl3, %rl1, %rl2, %r1, 12; st.global.u64 [%rd2], %rl3"),
            form("szext.wrap.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; szext.wrap.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("szext.clamp.u32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; szext.clamp.u32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("bmsk.clamp.b32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; bmsk.clamp.b32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("bmsk.wrap.b32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; bmsk.wrap.b32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("dp4a.u32.u32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; dp4a.u32.u32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("dp2a.lo.s32.s32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; dp2a.lo.s32.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("dp4a.s32.u32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; dp4a.s32.u32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("dp2a.hi.u32.s32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; dp2a.hi.u32.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
        ],
    ),
    (
        "9.7.2 Extended-precision integer arithmetic",
        &[
            form("add.cc.u32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; add.cc.u32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("addc.u32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; add.cc.u32 %r3, %r1, %r2; addc.u32 %r4, %r2, %r1; st.global.u32 [%rd2], %r3; st.global.u32 [%rd2+4], %r4"),
            form("subc.cc.u64", ".reg .b64 %rl<6>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; sub.cc.u64 %rl3, %rl1, %rl2; subc.cc.u64 %rl4, %rl2, %rl1; subc.u64 %rl5, 0, 0; st.global.u64 [%rd2], %rl3; st.global.u64 [%rd2+8], %rl4; st.global.u64 [%rd2+16], %rl5"),
            form("madc.hi.u32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; mad.lo.cc.u32 %r4, %r1, %r2, %r3; madc.hi.u32 %r5, %r1, %r2, 0; st.global.u32 [%rd2], %r4; st.global.u32 [%rd2+4], %r5"),
            form("add.cc.s64 / addc.cc.s64", ".reg .b64 %rl<5>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; add.cc.s64 %rl3, %rl1, %rl2; addc.cc.s64 %rl4, %rl1, %rl2; st.global.u64 [%rd2], %rl3; st.global.u64 [%rd2+8], %rl4"),
            form("mad.hi.cc.u64 / madc.lo.u64", ".reg .b64 %rl<6>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; ld.global.u64 %rl3, [%rd2+16]; mad.hi.cc.u64 %rl4, %rl1, %rl2, %rl3; madc.lo.u64 %rl5, %rl1, %rl2, %rl3; st.global.u64 [%rd2], %rl4; st.global.u64 [%rd2+8], %rl5"),
        ],
    ),
    (
        "9.7.3 Floating point",
        &[
            form("testp.notanumber.f32", ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .f32 %f<2>", "ld.global.f32 %f1, [%rd2]; testp.notanumber.f32 %p1, %f1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("testp.subnormal.f64", ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .f64 %fd<2>", "ld.global.f64 %fd1, [%rd2]; testp.subnormal.f64 %p1, %fd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("copysign.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; copysign.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("add.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; add.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("add.rz.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; add.rz.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("add.ftz.sat.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; add.ftz.sat.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("sub.f64", ".reg .f64 %fd<4>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; sub.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd2], %fd3"),
            form("mul.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; mul.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("mul.rn.f64", ".reg .f64 %fd<4>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; mul.rn.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd2], %fd3"),
            form("fma.rn.f32", ".reg .f32 %f<5>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; ld.global.f32 %f3, [%rd2+8]; fma.rn.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd2], %f4"),
            form("fma.rn.f64", ".reg .f64 %fd<5>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; ld.global.f64 %fd3, [%rd2+16]; fma.rn.f64 %fd4, %fd1, %fd2, %fd3; st.global.f64 [%rd2], %fd4"),
            form("fma.rz.f32", ".reg .f32 %f<5>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; ld.global.f32 %f3, [%rd2+8]; fma.rz.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd2], %f4"),
            form("fma.rp.f64", ".reg .f64 %fd<5>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; ld.global.f64 %fd3, [%rd2+16]; fma.rp.f64 %fd4, %fd1, %fd2, %fd3; st.global.f64 [%rd2], %fd4"),
            form("mad.rn.f32", ".reg .f32 %f<5>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; ld.global.f32 %f3, [%rd2+8]; mad.rn.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd2], %f4"),
            form("div.rn.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; div.rn.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("div.approx.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; div.approx.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("div.full.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; div.full.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("div.rn.f64", ".reg .f64 %fd<4>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; div.rn.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd2], %fd3"),
            form("abs.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; abs.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("neg.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; neg.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("min.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; min.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("max.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; max.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("min.NaN.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; min.NaN.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("max.f64", ".reg .f64 %fd<4>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; max.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd2], %fd3"),
            form("rcp.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; rcp.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("rcp.rn.f64", ".reg .f64 %fd<3>", "ld.global.f64 %fd1, [%rd2]; rcp.rn.f64 %fd2, %fd1; st.global.f64 [%rd2], %fd2"),
            form("max.NaN.f32 of three", ".reg .f32 %f<5>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; ld.global.f32 %f3, [%rd2+8]; max.NaN.f32 %f4, %f1, %f2, %f3; st.global.f32 [%rd2], %f4").with_header(ISA_8_8_SM_100),
            form("sqrt.rn.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; sqrt.rn.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("sqrt.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; sqrt.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("rsqrt.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; rsqrt.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("sin.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; sin.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("cos.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; cos.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("lg2.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; lg2.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("ex2.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; ex2.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("tanh.approx.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; tanh.approx.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("mul.rp.f64", ".reg .f64 %fd<4>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; mul.rp.f64 %fd3, %fd1, %fd2; st.global.f64 [%rd2], %fd3"),
            form("div.rm.f32", ".reg .f32 %f<4>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; div.rm.f32 %f3, %f1, %f2; st.global.f32 [%rd2], %f3"),
            form("rcp.rz.f64", ".reg .f64 %fd<3>", "ld.global.f64 %fd1, [%rd2]; rcp.rz.f64 %fd2, %fd1; st.global.f64 [%rd2], %fd2"),
            form("sqrt.rp.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; sqrt.rp.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("rsqrt.approx.f64", ".reg .f64 %fd<3>", "ld.global.f64 %fd1, [%rd2]; rsqrt.approx.f64 %fd2, %fd1; st.global.f64 [%rd2], %fd2"),
        ],
    ),
    (
        "9.7.4 Half precision",
        &[
            form("add.f16", ".reg .b16 %h<4>", "ld.global.b16 %h1, [%rd2]; ld.global.b16 %h2, [%rd2+2]; add.f16 %h3, %h1, %h2; st.global.b16 [%rd2], %h3"),
            form("add.f16x2", R4, "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; add.f16x2 %r3, %r1, %r2; st.global.b32 [%rd2], %r3"),
            form("fma.rn.f16x2", R6, "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.b32 %r3, [%rd2+8]; fma.rn.f16x2 %r4, %r1, %r2, %r3; st.global.b32 [%rd2], %r4"),
            form("neg.f16", ".reg .b16 %h<3>", "ld.global.b16 %h1, [%rd2]; neg.f16 %h2, %h1; st.global.b16 [%rd2], %h2"),
            form("max.bf16", ".reg .b16 %h<4>", "ld.global.b16 %h1, [%rd2]; ld.global.b16 %h2, [%rd2+2]; max.bf16 %h3, %h1, %h2; st.global.b16 [%rd2], %h3"),
            form("sub.ftz.sat.f16", ".reg .b16 %h<5>", "ld.global.b16 %h1, [%rd2+0]; ld.global.b16 %h2, [%rd2+2]; sub.ftz.sat.f16 %h4, %h1, %h2; st.global.b16 [%rd2], %h4"),
            form("mul.rn.ftz.f16x2", ".reg .b32 %r<5>", "ld.global.b32 %r1, [%rd2+0]; ld.global.b32 %r2, [%rd2+4]; mul.rn.ftz.f16x2 %r4, %r1, %r2; st.global.b32 [%rd2], %r4"),
            form("fma.rn.relu.bf16x2", ".reg .b32 %r<5>", "ld.global.b32 %r1, [%rd2+0]; ld.global.b32 %r2, [%rd2+4]; ld.global.b32 %r3, [%rd2+8]; fma.rn.relu.bf16x2 %r4, %r1, %r2, %r3; st.global.b32 [%rd2], %r4"),
            form("fma.rn.sat.f16", ".reg .b16 %h<5>", "ld.global.b16 %h1, [%rd2+0]; ld.global.b16 %h2, [%rd2+2]; ld.global.b16 %h3, [%rd2+4]; fma.rn.sat.f16 %h4, %h1, %h2, %h3; st.global.b16 [%rd2], %h4"),
            form("fma.rz.bf16, fma.rm.relu.bf16x2", ".reg .b16 %h<5>; .reg .b32 %r<3>", "ld.global.b16 %h1, [%rd2+0]; ld.global.b16 %h2, [%rd2+2]; fma.rz.bf16 %h3, %h1, %h2, %h1; st.global.b16 [%rd2], %h3; ld.global.b32 %r1, [%rd2+4]; fma.rm.relu.bf16x2 %r2, %r1, %r1, %r1; st.global.b32 [%rd2+4], %r2"),
            form("min.s16x2, max.u16x2, max.relu.s16x2, min.relu.s32", ".reg .b32 %r<4>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; min.s16x2 %r3, %r1, %r2; max.u16x2 %r3, %r3, %r1; max.relu.s16x2 %r3, %r3, %r2; min.relu.s32 %r3, %r3, %r1; st.global.b32 [%rd2], %r3").with_header(ISA_8_0_SM_90),
            form("setp.lt.f16x2 p (one predicate)", ".reg .b32 %r<4>; .reg .pred %p<2>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; setp.lt.f16x2 %p1, %r1, %r2; selp.u32 %r3, 1, 0, %p1; st.global.u32 [%rd2], %r3"),
            form("fma.rn.bf16", ".reg .b16 %h<5>", "ld.global.b16 %h1, [%rd2+0]; ld.global.b16 %h2, [%rd2+2]; ld.global.b16 %h3, [%rd2+4]; fma.rn.bf16 %h4, %h1, %h2, %h3; st.global.b16 [%rd2], %h4"),
            form("abs.bf16x2", ".reg .b32 %r<5>", "ld.global.b32 %r1, [%rd2+0]; abs.bf16x2 %r4, %r1; st.global.b32 [%rd2], %r4"),
            form("min.NaN.f16x2", ".reg .b32 %r<5>", "ld.global.b32 %r1, [%rd2+0]; ld.global.b32 %r2, [%rd2+4]; min.NaN.f16x2 %r4, %r1, %r2; st.global.b32 [%rd2], %r4"),
            form("max.NaN.bf16", ".reg .b16 %h<5>", "ld.global.b16 %h1, [%rd2+0]; ld.global.b16 %h2, [%rd2+2]; max.NaN.bf16 %h4, %h1, %h2; st.global.b16 [%rd2], %h4"),
            form("tanh.approx.f16x2", R4, "ld.global.b32 %r1, [%rd2]; tanh.approx.f16x2 %r2, %r1; st.global.b32 [%rd2], %r2"),
            form("ex2.approx.f16", ".reg .b16 %h<3>", "ld.global.b16 %h1, [%rd2]; ex2.approx.f16 %h2, %h1; st.global.b16 [%rd2], %h2"),
            form("tanh.approx.bf16", ".reg .b16 %h<3>", "ld.global.b16 %h1, [%rd2]; tanh.approx.bf16 %h2, %h1; st.global.b16 [%rd2], %h2").with_header(ISA_7_8_SM_90),
            form("ex2.approx.ftz.bf16x2", R4, "ld.global.b32 %r1, [%rd2]; ex2.approx.ftz.bf16x2 %r2, %r1; st.global.b32 [%rd2], %r2").with_header(ISA_7_8_SM_90),
            form("setp.lt.f16x2 p|q", ".reg .pred %p<3>; .reg .b32 %r<5>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; setp.lt.f16x2 %p1|%p2, %r1, %r2; selp.u32 %r3, 1, 0, %p1; selp.u32 %r4, 1, 0, %p2; st.global.u32 [%rd2], %r3; st.global.u32 [%rd2+4], %r4"),
            form("setp.gtu.and.f16", ".reg .pred %p<3>; .reg .b16 %h<3>; .reg .b32 %r<2>", "ld.global.b16 %h1, [%rd2]; ld.global.b16 %h2, [%rd2+2]; setp.ne.b16 %p1, %h1, 0; setp.gtu.and.f16 %p2, %h1, %h2, %p1; selp.u32 %r1, 1, 0, %p2; st.global.u32 [%rd2], %r1"),
            form("set.gtu.u32.f16x2", ".reg .b32 %r<5>", "ld.global.b32 %r1, [%rd2+0]; ld.global.b32 %r2, [%rd2+4]; set.gtu.u32.f16x2 %r4, %r1, %r2; st.global.b32 [%rd2], %r4"),
            form("set.gt.f16x2.f16x2", ".reg .b32 %r<5>", "ld.global.b32 %r1, [%rd2+0]; ld.global.b32 %r2, [%rd2+4]; set.gt.f16x2.f16x2 %r4, %r1, %r2; st.global.b32 [%rd2], %r4"),
            form("set.lt.u16.f16", ".reg .b16 %h<4>", "ld.global.b16 %h1, [%rd2]; ld.global.b16 %h2, [%rd2+2]; set.lt.u16.f16 %h3, %h1, %h2; st.global.b16 [%rd2], %h3"),
        ],
    ),
    (
        "9.7.5 Comparison and selection",
        &[
            form("set.lt.u32.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; set.lt.u32.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("setp.lt.s32", ".reg .pred %p<2>; .reg .b32 %r<4>", "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; setp.lt.s32 %p1, %r1, %r2; selp.u32 %r3, 1, 0, %p1; st.global.u32 [%rd2], %r3"),
            form("setp.lt.s32 p|q", ".reg .pred %p<3>; .reg .b32 %r<5>", "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; setp.lt.s32 %p1|%p2, %r1, %r2; selp.u32 %r3, 1, 0, %p1; selp.u32 %r4, 1, 0, %p2; st.global.u32 [%rd2], %r3; st.global.u32 [%rd2+4], %r4"),
            form("setp.gtu.f32", ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; setp.gtu.f32 %p1, %f1, %f2; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("setp.eq.and.u32", ".reg .pred %p<3>; .reg .b32 %r<4>", "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; setp.ne.u32 %p1, %r1, 0; setp.eq.and.u32 %p2, %r1, %r2, %p1; selp.u32 %r3, 1, 0, %p2; st.global.u32 [%rd2], %r3"),
            form("setp.lt.f16", ".reg .pred %p<2>; .reg .b16 %h<3>; .reg .b32 %r<2>", "ld.global.b16 %h1, [%rd2]; ld.global.b16 %h2, [%rd2+2]; setp.lt.f16 %p1, %h1, %h2; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("selp.f32", ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .f32 %f<4>", "ld.global.u32 %r1, [%rd2]; ld.global.f32 %f1, [%rd2+4]; ld.global.f32 %f2, [%rd2+8]; setp.ne.u32 %p1, %r1, 0; selp.f32 %f3, %f1, %f2, %p1; st.global.f32 [%rd2], %f3"),
            form("slct.u32.s32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; slct.u32.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("slct.ftz.f64.f32", ".reg .f32 %f<2>; .reg .f64 %fd<4>", "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; ld.global.f32 %f1, [%rd2+16]; slct.ftz.f64.f32 %fd3, %fd1, %fd2, %f1; st.global.f64 [%rd2], %fd3"),
        ],
    ),
    (
        "9.7.7 Logic and shift",
        &[
            form("and.b32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; and.b32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("or.pred", ".reg .pred %p<4>; .reg .b32 %r<4>", "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; setp.ne.u32 %p1, %r1, 0; setp.ne.u32 %p2, %r2, 0; or.pred %p3, %p1, %p2; selp.u32 %r3, 1, 0, %p3; st.global.u32 [%rd2], %r3"),
            form("xor.b64", ".reg .b64 %rl<4>", "ld.global.u64 %rl1, [%rd2]; ld.global.u64 %rl2, [%rd2+8]; xor.b64 %rl3, %rl1, %rl2; st.global.u64 [%rd2], %rl3"),
            form("not.b32", R4, "ld.global.u32 %r1, [%rd2]; not.b32 %r2, %r1; st.global.u32 [%rd2], %r2"),
            form("cnot.b32", R4, "ld.global.u32 %r1, [%rd2]; cnot.b32 %r2, %r1; st.global.u32 [%rd2], %r2"),
            form("lop3.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; lop3.b32 %r4, %r1, %r2, %r3, 0x80; st.global.u32 [%rd2], %r4"),
            form("shf.l.wrap.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; shf.l.wrap.b32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("shf.r.clamp.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; shf.r.clamp.b32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("shl.b32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; shl.b32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("shr.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; shr.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("shr.u64", ".reg .b32 %r<2>; .reg .b64 %rl<3>", "ld.global.u64 %rl1, [%rd2]; ld.global.u32 %r1, [%rd2+8]; shr.u64 %rl2, %rl1, %r1; st.global.u64 [%rd2], %rl2"),
        ],
    ),
    (
        "9.7.8 Data movement and conversion",
        &[
            form("mov.u32", R4, "ld.global.u32 %r1, [%rd2]; mov.u32 %r2, %r1; st.global.u32 [%rd2+4], %r2"),
            form("mov.f32 (immediate)", ".reg .f32 %f<2>", "mov.f32 %f1, 0f3FC00000; st.global.f32 [%rd2], %f1"),
            form("mov.u64 (variable address)", ".reg .b64 %rl<2>", "mov.u64 %rl1, tile; st.global.u64 [%rd2], %rl1").with_module_scope(SHARED_TILE),
            form("mov.u32 (32-bit .shared address)", R4, "ld.global.u32 %r1, [%rd2]; mov.u32 %r2, tile; st.shared.u32 [%r2+4], %r1; ld.shared.u32 %r3, [%r2+4]; st.global.u32 [%rd2+4], %r3").with_module_scope(SHARED_TILE),
            form("mov.b32 {a,b} (pack)", ".reg .b16 %h<3>; .reg .b32 %r<2>", "ld.global.b16 %h1, [%rd2]; ld.global.b16 %h2, [%rd2+2]; mov.b32 %r1, {%h1, %h2}; st.global.b32 [%rd2+4], %r1"),
            form("mov.b64 {a,b} (unpack)", ".reg .b32 %r<3>; .reg .b64 %rl<2>", "ld.global.b64 %rl1, [%rd2]; mov.b64 {%r1, %r2}, %rl1; st.global.b32 [%rd2], %r2; st.global.b32 [%rd2+4], %r1"),
            form("mov.b64 {a,b,c,d} (unpack, sink)", ".reg .b16 %h<4>; .reg .b64 %rl<2>", "ld.global.b64 %rl1, [%rd2]; mov.b64 {%h1, _, %h2, %h3}, %rl1; st.global.b16 [%rd2], %h3"),
            form("mov.b128 {a,b} (pack, unpack)", ".reg .b64 %rl<3>; .reg .b128 %q<2>", "ld.global.v2.b64 {%rl1, %rl2}, [%rd2]; mov.b128 %q1, {%rl2, %rl1}; mov.b128 {%rl1, %rl2}, %q1; st.global.v2.b64 [%rd2], {%rl1, %rl2}").with_header(ISA_8_3_SM_90),
            form("mov.b128 {a,b,c,d} (unpack)", ".reg .b32 %r<5>; .reg .b128 %q<2>", "ld.global.b128 %q1, [%rd2]; mov.b128 {%r1, %r2, %r3, %r4}, %q1; st.global.v4.b32 [%rd2], {%r4, %r3, %r2, %r1}").with_header(ISA_8_3_SM_90),
            form("mov.v2.u32", R4, "ld.global.v2.u32 {%r1, %r2}, [%rd2]; mov.v2.u32 {%r1, %r2}, {%r2, %r1}; st.global.v2.u32 [%rd2], {%r1, %r2}"),
            form("vector register members (%v.x)", ".reg .v4 .u32 %v", "ld.global.v4.u32 %v, [%rd2]; add.u32 %v.x, %v.y, %v.w; st.global.v4.u32 [%rd2], %v"),
            form("mov.u64 (variable+offset)", ".reg .b64 %rl<2>", "mov.u64 %rl1, table+8; st.global.u64 [%rd2], %rl1").with_module_scope(".global .align 8 .u64 table[4];"),
            form("st.u64 (register+offset)", ".reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; st.global.u64 [%rd2+8], %rl1 + 1"),
            form("initializer with generic(x)+8", ".reg .b64 %rl<3>", "ld.global.u64 %rl1, [pointer]; ld.u64 %rl2, [%rl1]; st.global.u64 [%rd2], %rl2").with_module_scope(".global .align 8 .u64 table[4] = {1, 2, 3, 4};\n.global .align 8 .u64 pointer = generic(table)+8;"),
            form(".global in a function", ".global .align 4 .u32 lookup[2] = {3, 5}; .reg .b32 %r<2>", "ld.global.u32 %r1, [lookup+4]; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %tid.x", ".reg .b32 %r<2>", "mov.u32 %r1, %tid.x; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %ntid.y", ".reg .b32 %r<2>", "mov.u32 %r1, %ntid.y; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %ctaid.x", ".reg .b32 %r<2>", "mov.u32 %r1, %ctaid.x; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %nctaid.z", ".reg .b32 %r<2>", "mov.u32 %r1, %nctaid.z; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %laneid", ".reg .b32 %r<2>", "mov.u32 %r1, %laneid; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %warpid", ".reg .b32 %r<2>", "mov.u32 %r1, %warpid; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %lanemask_lt", ".reg .b32 %r<2>", "mov.u32 %r1, %lanemask_lt; st.global.u32 [%rd2], %r1"),
            form("mov.u64 %clock64", ".reg .b64 %rl<2>", "mov.u64 %rl1, %clock64; st.global.u64 [%rd2], %rl1"),
            form("mov.u64 %globaltimer", ".reg .b64 %rl<2>", "mov.u64 %rl1, %globaltimer; st.global.u64 [%rd2], %rl1"),
            form("mov.u32 %globaltimer_hi", ".reg .b32 %r<2>", "mov.u32 %r1, %globaltimer_hi; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %clock_hi", ".reg .b32 %r<2>", "mov.u32 %r1, %clock_hi; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %smid", ".reg .b32 %r<2>", "mov.u32 %r1, %smid; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %dynamic_smem_size", ".reg .b32 %r<2>", "mov.u32 %r1, %dynamic_smem_size; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %cluster_ctarank", ".reg .b32 %r<2>", "mov.u32 %r1, %cluster_ctarank; st.global.u32 [%rd2], %r1").with_header(ISA_7_8_SM_90),
            form("mov.u32 %nsmid", ".reg .b32 %r<2>", "mov.u32 %r1, %nsmid; st.global.u32 [%rd2], %r1"),
            form("mov.u64 %gridid", ".reg .b64 %rl<2>", "mov.u64 %rl1, %gridid; st.global.u64 [%rd2], %rl1"),
            form("mov.u32 %total_smem_size", ".reg .b32 %r<2>", "mov.u32 %r1, %total_smem_size; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %aggr_smem_size", ".reg .b32 %r<2>", "mov.u32 %r1, %aggr_smem_size; st.global.u32 [%rd2], %r1").with_header(ISA_8_1_SM_90),
            form("mov.u32 %envreg0", ".reg .b32 %r<2>", "mov.u32 %r1, %envreg0; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %pm0", ".reg .b32 %r<2>", "mov.u32 %r1, %pm0; st.global.u32 [%rd2], %r1"),
            form("mov.u64 %pm0_64", ".reg .b64 %rl<2>", "mov.u64 %rl1, %pm0_64; st.global.u64 [%rd2], %rl1"),
            form("mov.u32 %reserved_smem_offset_begin", ".reg .b32 %r<2>", "mov.u32 %r1, %reserved_smem_offset_begin; st.global.u32 [%rd2], %r1"),
            form("mov.u32 %clusterid.x", ".reg .b32 %r<2>", "mov.u32 %r1, %clusterid.x; st.global.u32 [%rd2], %r1").with_header(ISA_7_8_SM_90),
            form("mov.pred %is_explicit_cluster", ".reg .pred %p<2>; .reg .b32 %r<2>", "mov.pred %p1, %is_explicit_cluster; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1").with_header(ISA_7_8_SM_90),
            form("shfl.sync.down.b32", R4, "ld.global.u32 %r1, [%rd2]; shfl.sync.down.b32 %r2, %r1, 1, 0x1f, 0xffffffff; st.global.u32 [%rd2], %r2"),
            form("shfl.sync.idx.b32 d|p", ".reg .pred %p<2>; .reg .b32 %r<4>", "ld.global.u32 %r1, [%rd2]; shfl.sync.idx.b32 %r2|%p1, %r1, 0, 0x1f, 0xffffffff; selp.u32 %r3, 1, 0, %p1; st.global.u32 [%rd2], %r2; st.global.u32 [%rd2+4], %r3"),
            form("prmt.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; prmt.b32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("prmt.b32.f4e", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; prmt.b32.f4e %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("prmt.b32.rc16", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; prmt.b32.rc16 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("ld.global.f32", ".reg .f32 %f<2>", "ld.global.f32 %f1, [%rd2]; st.global.f32 [%rd2+4], %f1"),
            form("ld.global.u8", ".reg .b32 %r<2>", "ld.global.u8 %r1, [%rd2]; st.global.u32 [%rd2+4], %r1"),
            form("ld.global.v4.f32", ".reg .f32 %f<6>", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2]; add.f32 %f5, %f1, %f4; st.global.f32 [%rd2], %f5"),
            form("ld.global.v2.u64 {a, _}", ".reg .b64 %rl<2>", "ld.global.v2.u64 {%rl1, _}, [%rd2]; st.global.u64 [%rd2+16], %rl1"),
            form("ld.global.L2::cache_hint.u32", ".reg .b32 %r<2>; .reg .b64 %rl<2>", "createpolicy.fractional.L2::evict_last.b64 %rl1, 1.0; ld.global.L2::cache_hint.u32 %r1, [%rd2], %rl1; st.global.u32 [%rd2+4], %r1"),
            form("ld.global.nc.f32", ".reg .f32 %f<2>", "ld.global.nc.f32 %f1, [%rd2]; st.global.f32 [%rd2+4], %f1"),
            form("ldu.global.f32", ".reg .f32 %f<2>", "ldu.global.f32 %f1, [%rd2]; st.global.f32 [%rd2+4], %f1"),
            form("ld.volatile.global.u32", ".reg .b32 %r<2>", "ld.volatile.global.u32 %r1, [%rd2]; st.global.u32 [%rd2+4], %r1"),
            form("ld.acquire.gpu.global.u32", ".reg .b32 %r<2>", "ld.acquire.gpu.global.u32 %r1, [%rd2]; st.global.u32 [%rd2+4], %r1"),
            form("ld.relaxed.sys.global.v2.f32", ".reg .f32 %f<3>", "ld.relaxed.sys.global.v2.f32 {%f1, %f2}, [%rd2]; st.global.f32 [%rd2+8], %f2"),
            form("ld.u32 (generic)", ".reg .b32 %r<2>", "ld.u32 %r1, [%rd1]; st.global.u32 [%rd2+4], %r1"),
            form("ld.shared.u32", ".reg .b32 %r<2>", "ld.shared.u32 %r1, [tile+4]; st.global.u32 [%rd2], %r1").with_module_scope(SHARED_TILE),
            form("ld.shared.u32 (dynamic .extern .shared [])", ".reg .b32 %r<2>", "ld.shared.u32 %r1, [dynamic+4]; st.global.u32 [%rd2], %r1").with_module_scope(DYNAMIC_SHARED),
            form("ld.local.u32", ".local .align 4 .b32 scratch[4]; .reg .b32 %r<3>", "ld.global.u32 %r1, [%rd2]; st.local.u32 [scratch+4], %r1; ld.local.u32 %r2, [scratch+4]; st.global.u32 [%rd2+4], %r2"),
            form("ld.shared.b128, st.shared.b128", ".reg .b128 %q<3>", "ld.global.b128 %q1, [%rd2]; st.shared.b128 [tile], %q1; ld.shared.b128 %q2, [tile]; st.global.b128 [%rd2+16], %q2").with_module_scope(SHARED_TILE).with_header(ISA_8_3_SM_90),
            form("ld.const.u32", ".reg .b32 %r<2>", "ld.const.u32 %r1, [table+8]; st.global.u32 [%rd2], %r1").with_module_scope(".const .align 4 .b32 table[4] = {1, 2, 3, 4};"),
            form("ld.param.u64", ".reg .b64 %rl<2>", "ld.param.u64 %rl1, [p]; st.global.u64 [%rd2], %rl1"),
            form("st.global.f32", ".reg .f32 %f<2>", "mov.f32 %f1, 0f40000000; st.global.f32 [%rd2], %f1"),
            form("st.global.v2.u32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; st.global.v2.u32 [%rd2+8], {%r1, %r2}"),
            form("st.shared.u32", R4, "ld.global.u32 %r1, [%rd2]; st.shared.u32 [tile], %r1").with_module_scope(SHARED_TILE),
            form("st.release.gpu.global.u32", R4, "ld.global.u32 %r1, [%rd2]; st.release.gpu.global.u32 [%rd2+4], %r1"),
            form("prefetch.global.L2", "", "prefetch.global.L2 [%rd2]"),
            form("prefetchu.L1", "", "prefetchu.L1 [%rd1]"),
            form("createpolicy.fractional.L2::evict_last.b64", ".reg .b64 %rl<2>", "createpolicy.fractional.L2::evict_last.b64 %rl1, 0.5; st.global.u64 [%rd2], %rl1"),
            form("discard.global.L2", "", "discard.global.L2 [%rd2], 128"),
            form("applypriority.global.L2::evict_normal", "", "applypriority.global.L2::evict_normal [%rd2], 128"),
            form("isspacep.global", ".reg .pred %p<2>; .reg .b32 %r<2>", "isspacep.global %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("isspacep.shared", ".reg .pred %p<2>; .reg .b32 %r<2>", "isspacep.shared %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("isspacep.shared (dynamic .extern .shared [])", ".reg .pred %p<2>; .reg .b32 %r<2>", "isspacep.shared %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1").with_module_scope(DYNAMIC_SHARED),
            form("isspacep.shared::cluster", ".reg .pred %p<2>; .reg .b32 %r<2>", "isspacep.shared::cluster %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1").with_header(ISA_8_0_SM_90),
            form("isspacep.local", ".reg .pred %p<2>; .reg .b32 %r<2>", "isspacep.local %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("isspacep.param", ".reg .pred %p<2>; .reg .b32 %r<2>", "isspacep.param %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("isspacep.global (32-bit register)", ".reg .pred %p<2>; .reg .b32 %r<3>", "cvt.u32.u64 %r2, %rd1; isspacep.global %p1, %r2; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1"),
            form("cvta.shared::cluster.u64, cvta.to.shared::cluster.u64", ".reg .b64 %rl<3>", "cvta.to.shared::cluster.u64 %rl1, %rd2; cvta.shared::cluster.u64 %rl2, %rl1; st.global.u64 [%rd2], %rl2").with_header(ISA_7_8_SM_90),
            form("cvta.to.global.u64", ".reg .b64 %rl<2>", "cvta.to.global.u64 %rl1, %rd1; st.global.u64 [%rl1+8], %rl1"),
            form("cvta.shared.u64", ".reg .b64 %rl<2>", "cvta.shared.u64 %rl1, tile; st.global.u64 [%rd2], %rl1").with_module_scope(SHARED_TILE),
            form("cvta.const.u64", ".reg .b64 %rl<3>", "mov.u64 %rl1, table; cvta.const.u64 %rl2, %rl1; st.global.u64 [%rd2], %rl2").with_module_scope(".const .align 4 .b32 table[4] = {1, 2, 3, 4};"),
            form("cvta.local.u64", ".local .align 4 .b32 scratch[4]; .reg .b64 %rl<3>", "mov.u64 %rl1, scratch; cvta.local.u64 %rl2, %rl1; st.u32 [%rl2], 1; st.global.u64 [%rd2], %rl2"),
            form("mapa.u64", ".reg .b64 %rl<2>", "mapa.u64 %rl1, %rd2, 0; st.global.u64 [%rd2], %rl1").with_header(ISA_7_8_SM_90),
            form("getctarank.u64", ".reg .b32 %r<2>", "getctarank.u64 %r1, %rd2; st.global.u32 [%rd2], %r1").with_header(ISA_7_8_SM_90),
            form("cvt.rn.f32.s32", ".reg .b32 %r<2>; .reg .f32 %f<2>", "ld.global.u32 %r1, [%rd2]; cvt.rn.f32.s32 %f1, %r1; st.global.f32 [%rd2], %f1"),
            form("cvt.rzi.s32.f32", ".reg .b32 %r<2>; .reg .f32 %f<2>", "ld.global.f32 %f1, [%rd2]; cvt.rzi.s32.f32 %r1, %f1; st.global.u32 [%rd2], %r1"),
            form("cvt.rm.f32.f64", ".reg .f32 %f<2>; .reg .f64 %fd<2>", "ld.global.f64 %fd1, [%rd2]; cvt.rm.f32.f64 %f1, %fd1; st.global.f32 [%rd2], %f1"),
            form("cvt.rp.f32.s64", ".reg .f32 %f<2>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; cvt.rp.f32.s64 %f1, %rl1; st.global.f32 [%rd2], %f1"),
            form("cvt.rni.f32.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; cvt.rni.f32.f32 %f2, %f1; st.global.f32 [%rd2], %f2"),
            form("cvt.f64.f32", ".reg .f32 %f<2>; .reg .f64 %fd<2>", "ld.global.f32 %f1, [%rd2]; cvt.f64.f32 %fd1, %f1; st.global.f64 [%rd2], %fd1"),
            form("cvt.rn.f32.f64", ".reg .f32 %f<2>; .reg .f64 %fd<2>", "ld.global.f64 %fd1, [%rd2]; cvt.rn.f32.f64 %f1, %fd1; st.global.f32 [%rd2], %f1"),
            form("cvt.sat.u8.s32", ".reg .b16 %h<2>; .reg .b32 %r<2>", "ld.global.u32 %r1, [%rd2]; cvt.sat.u8.s32 %h1, %r1; st.global.u8 [%rd2], %h1"),
            form("cvt.s64.s32", ".reg .b32 %r<2>; .reg .b64 %rl<2>", "ld.global.u32 %r1, [%rd2]; cvt.s64.s32 %rl1, %r1; st.global.u64 [%rd2], %rl1"),
            form("cvt.u32.u64", ".reg .b32 %r<2>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; cvt.u32.u64 %r1, %rl1; st.global.u32 [%rd2], %r1"),
            form("cvt.rn.f16.f32", ".reg .b16 %h<2>; .reg .f32 %f<2>", "ld.global.f32 %f1, [%rd2]; cvt.rn.f16.f32 %h1, %f1; st.global.b16 [%rd2], %h1"),
            form("cvt.f32.f16", ".reg .b16 %h<2>; .reg .f32 %f<2>", "ld.global.b16 %h1, [%rd2]; cvt.f32.f16 %f1, %h1; st.global.f32 [%rd2], %f1"),
            form("cvt.rn.f16x2.f32", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; cvt.rn.f16x2.f32 %r1, %f1, %f2; st.global.b32 [%rd2], %r1"),
            form("cvt.rz.relu.bf16x2.f32", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; cvt.rz.relu.bf16x2.f32 %r1, %f1, %f2; st.global.b32 [%rd2], %r1"),
            form("cvt.rm.bf16.f32", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.f32 %f1, [%rd2]; cvt.rm.bf16.f32 %h1, %f1; st.global.b16 [%rd2], %h1"),
            form("cvt.rn.relu.f16.f32", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.f32 %f1, [%rd2]; cvt.rn.relu.f16.f32 %h1, %f1; st.global.b16 [%rd2], %h1"),
            form("cvt.rn.f16.f64", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.f64 %fd1, [%rd2]; cvt.rn.f16.f64 %h1, %fd1; st.global.b16 [%rd2], %h1"),
            form("cvt.rn.f16.s64", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; cvt.rn.f16.s64 %h1, %rl1; st.global.b16 [%rd2], %h1"),
            form("cvt.rpi.s32.f16", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.b16 %h1, [%rd2]; cvt.rpi.s32.f16 %r1, %h1; st.global.u32 [%rd2], %r1"),
            form("cvt.f32.bf16", ".reg .b32 %r<2>; .reg .b16 %h<2>; .reg .f32 %f<3>; .reg .f64 %fd<2>; .reg .b64 %rl<2>", "ld.global.b16 %h1, [%rd2]; cvt.f32.bf16 %f1, %h1; st.global.f32 [%rd2], %f1"),
            form("cvt.pack.sat.s16.s32", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; cvt.pack.sat.s16.s32 %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("cvt.pack.sat.u8.s32.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; cvt.pack.sat.u8.s32.b32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("cvt.rna.tf32.f32", ".reg .f32 %f<2>; .reg .b32 %r<2>", "ld.global.f32 %f1, [%rd2]; cvt.rna.tf32.f32 %r1, %f1; st.global.b32 [%rd2], %r1"),
            form("cvt.rz.relu.tf32.f32", ".reg .f32 %f<2>; .reg .b32 %r<2>", "ld.global.f32 %f1, [%rd2]; cvt.rz.relu.tf32.f32 %r1, %f1; st.global.b32 [%rd2], %r1").with_header(ISA_7_8_SM_90),
            form("cvt.rn.satfinite.e2m1x2.f32", ".reg .b8 %c<2>; .reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; cvt.rn.satfinite.e2m1x2.f32 %c1, %f1, %f2; st.global.b8 [%rd2], %c1").with_header(ISA_8_6_SM_100A),
            form("cvt.rn.satfinite.relu.e3m2x2.f32", ".reg .b16 %h<2>; .reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2]; ld.global.f32 %f2, [%rd2+4]; cvt.rn.satfinite.relu.e3m2x2.f32 %h1, %f1, %f2; st.global.b16 [%rd2], %h1").with_header(ISA_8_6_SM_100A),
            form("cvt.rn.f16x2.e2m3x2", ".reg .b16 %h<2>; .reg .b32 %r<2>", "ld.global.b16 %h1, [%rd2]; cvt.rn.f16x2.e2m3x2 %r1, %h1; st.global.b32 [%rd2], %r1").with_header(ISA_8_6_SM_100A),
            form("cvt.rn.bf16x2.ue8m0x2", ".reg .b16 %h<2>; .reg .b32 %r<2>", "ld.global.b16 %h1, [%rd2]; cvt.rn.bf16x2.ue8m0x2 %r1, %h1; st.global.b32 [%rd2], %r1").with_header(ISA_8_6_SM_100A),
            form("cvt.pack.sat.u4.s32.b32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; cvt.pack.sat.u4.s32.b32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form(
                "cp.async.ca.shared.global",
                ".reg .b32 %r<2>",
                "cp.async.ca.shared.global [tile], [%rd2], 16; cp.async.commit_group; cp.async.wait_group 0; ld.shared.u32 %r1, [tile]; st.global.u32 [%rd2+16], %r1",
            )
            .with_module_scope(SHARED_TILE),
            form(
                "cp.async.cg.shared.global (src-size)",
                ".reg .b32 %r<3>",
                "ld.global.u32 %r1, [%rd2]; cp.async.cg.shared.global [tile], [%rd2], 16, %r1; cp.async.wait_all; ld.shared.u32 %r2, [tile]; st.global.u32 [%rd2+16], %r2",
            )
            .with_module_scope(SHARED_TILE),
        ],
    ),
    (
        "9.7.9 Texture",
        &[
            form_with("tex.2d.v4.f32.f32", TEXTURE, ".reg .f32 %f<7>", "ld.global.f32 %f5, [%rd2]; ld.global.f32 %f6, [%rd2+4]; tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}]; st.global.f32 [%rd2], %f1"),
            form_with("tld4.r.2d.v4.f32.f32", TEXTURE, ".reg .f32 %f<7>", "ld.global.f32 %f5, [%rd2]; ld.global.f32 %f6, [%rd2+4]; tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f6}]; st.global.f32 [%rd2], %f1"),
            form_with("txq.width.b32", TEXTURE, ".reg .b32 %r<2>", "txq.width.b32 %r1, [tex]; st.global.u32 [%rd2], %r1"),
            form("tex.3d.v4.s32.s32 (texture object)", ".reg .b32 %r<6>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; ld.global.u32 %r5, [%rd2+8]; tex.3d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [%rl1, {%r5, %r5, %r5, %r5}]; st.global.u32 [%rd2], %r1"),
            form_with("tex.a2d.v4.u32.f32", TEXTURE, ".reg .b32 %r<6>; .reg .f32 %f<2>", "ld.global.u32 %r5, [%rd2]; ld.global.f32 %f1, [%rd2+4]; tex.a2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [tex, {%r5, %f1, %f1, %f1}]; st.global.u32 [%rd2], %r1"),
            form_with("tex.cube.v4.f32.f32", TEXTURE, ".reg .f32 %f<7>", "ld.global.f32 %f5, [%rd2]; tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tex, {%f5, %f5, %f5, %f5}]; st.global.f32 [%rd2], %f1"),
            form("tex.acube.v4.f32.f32 (texture object)", ".reg .b32 %r<2>; .reg .b64 %rl<2>; .reg .f32 %f<7>", "ld.global.u64 %rl1, [%rd2]; ld.global.u32 %r1, [%rd2+8]; ld.global.f32 %f5, [%rd2+12]; tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rl1, {%r1, %f5, %f5, %f5}]; st.global.f32 [%rd2], %f1"),
        ],
    ),
    (
        "9.7.10 Surface",
        &[
            form_with("suld.b.1d.b32.trap", SURFACE, R4, "ld.global.u32 %r1, [%rd2]; suld.b.1d.b32.trap %r2, [surf, {%r1}]; st.global.u32 [%rd2], %r2"),
            form_with("sust.b.1d.b32.trap", SURFACE, R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; sust.b.1d.b32.trap [surf, {%r1}], %r2"),
            form_with("suq.width.b32", SURFACE, ".reg .b32 %r<2>", "suq.width.b32 %r1, [surf]; st.global.u32 [%rd2], %r1"),
            form_with("suld.b.a1d.v2.b64.clamp", SURFACE, ".reg .b32 %r<2>; .reg .b64 %rl<3>", "ld.global.u32 %r1, [%rd2]; suld.b.a1d.v2.b64.clamp {%rl1, %rl2}, [surf, {%r1, %r1}]; st.global.u64 [%rd2], %rl1"),
            form_with("sust.p.2d.v4.b32.zero", SURFACE, R4, "ld.global.u32 %r1, [%rd2]; sust.p.2d.v4.b32.zero [surf, {%r1, %r1}], {%r1, %r1, %r1, %r1}"),
            form("suld.b.2d.v4.b32.zero, sust.b.2d.b32.clamp (surface object)", ".reg .b32 %r<6>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; ld.global.u32 %r5, [%rd2+8]; suld.b.2d.v4.b32.zero {%r1, %r2, %r3, %r4}, [%rl1, {%r5, %r5}]; sust.b.2d.b32.clamp [%rl1, {%r5, %r5}], %r2; st.global.u32 [%rd2], %r1"),
            form_with("sured.b.add.1d.u32.trap", SURFACE, R4, "ld.global.u32 %r1, [%rd2]; sured.b.add.1d.u32.trap [surf, {%r1}], %r1"),
            form("sured.p.min.2d.b32.zero (surface object)", ".reg .b32 %r<2>; .reg .b64 %rl<2>", "ld.global.u64 %rl1, [%rd2]; ld.global.u32 %r1, [%rd2+8]; sured.p.min.2d.b32.zero [%rl1, {%r1, %r1}], %r1"),
        ],
    ),
    (
        "9.7.11 Control flow",
        &[
            form("@p guard", ".reg .pred %p<2>; .reg .b32 %r<3>", "ld.global.u32 %r1, [%rd2]; mov.u32 %r2, 7; setp.ne.u32 %p1, %r1, 0; @%p1 add.s32 %r2, %r1, 1; st.global.u32 [%rd2], %r2"),
            form("bra", ".reg .pred %p<2>; .reg .b32 %r<2>", "ld.global.u32 %r1, [%rd2]; setp.eq.u32 %p1, %r1, 0; @%p1 bra SKIP; add.s32 %r1, %r1, 1; SKIP: st.global.u32 [%rd2], %r1"),
            form("bra.uni", ".reg .b32 %r<2>", "ld.global.u32 %r1, [%rd2]; bra.uni NEXT; NEXT: st.global.u32 [%rd2+4], %r1"),
            form(
                "brx.idx",
                ".reg .b32 %r<3>",
                "ld.global.u32 %r1, [%rd2]; and.b32 %r1, %r1, 1; targets: .branchtargets CASE0, CASE1; brx.idx %r1, targets; CASE0: mov.u32 %r2, 10; bra.uni DONE; CASE1: mov.u32 %r2, 20; DONE: st.global.u32 [%rd2], %r2",
            ),
            form(
                "@p brx.idx.uni",
                ".reg .pred %p<2>; .reg .b32 %r<3>",
                "ld.global.u32 %r1, [%rd2]; mov.u32 %r2, 0; setp.lt.u32 %p1, %r1, 2; targets: .branchtargets CASE0, CASE1; @%p1 brx.idx.uni %r1, targets; bra.uni DONE; CASE0: mov.u32 %r2, 10; bra.uni DONE; CASE1: mov.u32 %r2, 20; DONE: st.global.u32 [%rd2], %r2",
            ),
            form_with(
                "call",
                TWICE,
                ".param .b32 argument; .param .b32 answer; .reg .b32 %r<3>",
                "ld.global.u32 %r1, [%rd2]; st.param.b32 [argument], %r1; call (answer), twice, (argument); ld.param.b32 %r2, [answer]; st.global.u32 [%rd2], %r2",
            ),
            form_with(
                "call (indirect, .callprototype)",
                TWICE,
                ".param .b32 argument; .param .b32 answer; .reg .b32 %r<3>; .reg .b64 %rl<2>",
                "ld.global.u32 %r1, [%rd2]; mov.u64 %rl1, twice; st.param.b32 [argument], %r1; prototype: .callprototype (.param .b32 _) _ (.param .b32 _); call (answer), %rl1, (argument), prototype; ld.param.b32 %r2, [answer]; st.global.u32 [%rd2], %r2",
            ),
            form("ret", ".reg .pred %p<2>; .reg .b32 %r<2>", "ld.global.u32 %r1, [%rd2]; setp.eq.u32 %p1, %r1, 0; @%p1 ret; st.global.u32 [%rd2], 1"),
            form("exit", ".reg .pred %p<2>; .reg .b32 %r<2>", "ld.global.u32 %r1, [%rd2]; setp.eq.u32 %p1, %r1, 0; @%p1 exit; st.global.u32 [%rd2], 1"),
        ],
    ),
    (
        "9.7.12 Parallel synchronization and communication",
        &[
            form("bar.sync", R4, "ld.global.u32 %r1, [%rd2]; st.shared.u32 [tile], %r1; bar.sync 0; ld.shared.u32 %r2, [tile+4]; st.global.u32 [%rd2], %r2").with_module_scope(SHARED_TILE),
            form("barrier.sync.aligned", R4, "ld.global.u32 %r1, [%rd2]; st.shared.u32 [tile], %r1; barrier.sync.aligned 0; ld.shared.u32 %r2, [tile+4]; st.global.u32 [%rd2], %r2").with_module_scope(SHARED_TILE),
            form("bar.red.popc.u32", ".reg .pred %p<2>; .reg .b32 %r<3>", "ld.global.u32 %r1, [%rd2]; setp.ne.u32 %p1, %r1, 0; bar.red.popc.u32 %r2, 0, %p1; st.global.u32 [%rd2], %r2"),
            form("bar.red.and.pred", ".reg .pred %p<3>; .reg .b32 %r<3>", "ld.global.u32 %r1, [%rd2]; setp.ne.u32 %p1, %r1, 0; bar.red.and.pred %p2, 0, %p1; selp.u32 %r2, 1, 0, %p2; st.global.u32 [%rd2], %r2"),
            form("bar.sync a, b (thread count)", R4, "ld.global.u32 %r1, [%rd2]; st.shared.u32 [tile], %r1; bar.sync 1, 32; ld.shared.u32 %r2, [tile+4]; st.global.u32 [%rd2], %r2").with_module_scope(SHARED_TILE),
            form("bar.arrive", ".reg .pred %p<2>; .reg .b32 %r<4>", "ld.global.u32 %r1, [%rd2]; mov.u32 %r3, %tid.x; setp.lt.u32 %p1, %r3, 32; @%p1 st.shared.u32 [tile], %r1; @%p1 bar.arrive 1, 64; @!%p1 bar.sync 1, 64; ld.shared.u32 %r2, [tile]; st.global.u32 [%rd2], %r2").with_module_scope(SHARED_TILE),
            form("bar.warp.sync", R4, "ld.global.u32 %r1, [%rd2]; bar.warp.sync 0xffffffff; st.global.u32 [%rd2+4], %r1"),
            form("membar.gl", R4, "ld.global.u32 %r1, [%rd2]; membar.gl; st.global.u32 [%rd2+4], %r1"),
            form("fence.acq_rel.gpu", R4, "ld.global.u32 %r1, [%rd2]; fence.acq_rel.gpu; st.global.u32 [%rd2+4], %r1"),
            form("fence.proxy.alias", R4, "ld.global.u32 %r1, [%rd2]; fence.proxy.alias; st.global.u32 [%rd2+4], %r1"),
            form("griddepcontrol.launch_dependents", "", "griddepcontrol.launch_dependents").with_header(ISA_8_0_SM_90),
            form("griddepcontrol.wait", R4, "griddepcontrol.wait; ld.global.u32 %r1, [%rd2]; st.global.u32 [%rd2+4], %r1").with_header(ISA_8_0_SM_90),
            form("atom.global.add.u32", R4, "ld.global.u32 %r1, [%rd2+4]; atom.global.add.u32 %r2, [%rd2], %r1; st.global.u32 [%rd2+8], %r2"),
            form("atom.global.cas.b32", R6, "ld.global.u32 %r1, [%rd2+4]; ld.global.u32 %r2, [%rd2+8]; atom.global.cas.b32 %r3, [%rd2], %r1, %r2; st.global.u32 [%rd2+12], %r3"),
            form("atom.global.cas.b16", ".reg .b16 %h<4>", "ld.global.b16 %h1, [%rd2+2]; ld.global.b16 %h2, [%rd2+4]; atom.global.cas.b16 %h3, [%rd2], %h1, %h2; st.global.b16 [%rd2+6], %h3"),
            form("atom.global.exch.b64", ".reg .b64 %rl<3>", "ld.global.u64 %rl1, [%rd2+8]; atom.global.exch.b64 %rl2, [%rd2], %rl1; st.global.u64 [%rd2+16], %rl2"),
            form("atom.global.cas.b128", ".reg .b128 %q<4>", "ld.global.b128 %q1, [%rd2+16]; ld.global.b128 %q2, [%rd2+32]; atom.global.cas.b128 %q3, [%rd2], %q1, %q2; st.global.b128 [%rd2+48], %q3").with_header(ISA_8_3_SM_90),
            form("atom.global.exch.b128", ".reg .b128 %q<3>", "ld.global.b128 %q1, [%rd2+16]; atom.global.exch.b128 %q2, [%rd2], %q1; st.global.b128 [%rd2+32], %q2").with_header(ISA_8_3_SM_90),
            form("atom.global.v2.f32.add", ".reg .f32 %f<5>", "ld.global.v2.f32 {%f1, %f2}, [%rd2+8]; atom.global.v2.f32.add {%f3, %f4}, [%rd2], {%f1, %f2}; st.global.v2.f32 [%rd2+16], {%f3, %f4}").with_header(ISA_8_1_SM_90),
            form("red.global.v4.f32.add", ".reg .f32 %f<5>", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+16]; red.global.v4.f32.add [%rd2], {%f1, %f2, %f3, %f4}").with_header(ISA_8_1_SM_90),
            form("atom.global.add.f32", ".reg .f32 %f<3>", "ld.global.f32 %f1, [%rd2+4]; atom.global.add.f32 %f2, [%rd2], %f1; st.global.f32 [%rd2+8], %f2"),
            form("atom.global.add.noftz.f16", ".reg .b16 %h<3>", "ld.global.b16 %h1, [%rd2+2]; atom.global.add.noftz.f16 %h2, [%rd2], %h1; st.global.b16 [%rd2+4], %h2"),
            form("atom.global.add.noftz.f16x2", R4, "ld.global.b32 %r1, [%rd2+4]; atom.global.add.noftz.f16x2 %r2, [%rd2], %r1; st.global.b32 [%rd2+8], %r2"),
            form("atom.global.inc.u32", R4, "ld.global.u32 %r1, [%rd2+4]; atom.global.inc.u32 %r2, [%rd2], %r1; st.global.u32 [%rd2+8], %r2"),
            form("atom.global.dec.u32", R4, "ld.global.u32 %r1, [%rd2+4]; atom.global.dec.u32 %r2, [%rd2], %r1; st.global.u32 [%rd2+8], %r2"),
            form("atom.shared.max.s32", R4, "ld.global.u32 %r1, [%rd2]; atom.shared.max.s32 %r2, [tile], %r1; st.global.u32 [%rd2+4], %r2").with_module_scope(SHARED_TILE),
            form("red.global.add.u32", R4, "ld.global.u32 %r1, [%rd2+4]; red.global.add.u32 [%rd2], %r1"),
            form("vote.sync.ballot.b32", ".reg .pred %p<2>; .reg .b32 %r<3>", "ld.global.u32 %r1, [%rd2]; setp.ne.u32 %p1, %r1, 0; vote.sync.ballot.b32 %r2, %p1, 0xffffffff; st.global.u32 [%rd2], %r2"),
            form("vote.sync.all.pred", ".reg .pred %p<3>; .reg .b32 %r<3>", "ld.global.u32 %r1, [%rd2]; setp.ne.u32 %p1, %r1, 0; vote.sync.all.pred %p2, %p1, 0xffffffff; selp.u32 %r2, 1, 0, %p2; st.global.u32 [%rd2], %r2"),
            form("match.any.sync.b32", R4, "ld.global.u32 %r1, [%rd2]; match.any.sync.b32 %r2, %r1, 0xffffffff; st.global.u32 [%rd2], %r2"),
            form("activemask.b32", ".reg .b32 %r<2>", "activemask.b32 %r1; st.global.u32 [%rd2], %r1"),
            form("redux.sync.add.u32", R4, "ld.global.u32 %r1, [%rd2]; redux.sync.add.u32 %r2, %r1, 0xffffffff; st.global.u32 [%rd2], %r2"),
            form("elect.sync d|p", ".reg .pred %p<2>; .reg .b32 %r<3>", "elect.sync %r1|%p1, 0xffffffff; selp.u32 %r2, 256, 0, %p1; or.b32 %r2, %r2, %r1; st.global.u32 [%rd2], %r2").with_header(ISA_8_0_SM_90),
            form("elect.sync _|p", ".reg .pred %p<2>; .reg .b32 %r<2>", "elect.sync _|%p1, 0xffffffff; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1").with_header(ISA_8_0_SM_90),
            form_with(
                "mbarrier.init/arrive/test_wait",
                ".shared .align 8 .b64 barrier_object;",
                ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rl<2>",
                "mbarrier.init.shared.b64 [barrier_object], 1; mbarrier.arrive.shared.b64 %rl1, [barrier_object]; mbarrier.test_wait.shared.b64 %p1, [barrier_object], %rl1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1",
            ),
            form_with(
                "mbarrier.arrive.noComplete/pending_count",
                ".shared .align 8 .b64 barrier_object;",
                ".reg .b32 %r<2>; .reg .b64 %rl<2>",
                "mbarrier.init.shared.b64 [barrier_object], 3; mbarrier.arrive.noComplete.shared.b64 %rl1, [barrier_object], 2; mbarrier.pending_count.b64 %r1, %rl1; st.global.u32 [%rd2], %r1",
            ),
            form_with(
                "mbarrier.arrive_drop/test_wait.parity/inval",
                ".shared .align 8 .b64 barrier_object;",
                ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rl<2>",
                "mbarrier.init.shared.b64 [barrier_object], 2; mbarrier.arrive_drop.shared.b64 _, [barrier_object]; mbarrier.arrive.shared.b64 %rl1, [barrier_object]; mbarrier.test_wait.parity.shared.b64 %p1, [barrier_object], 0; mbarrier.inval.shared.b64 [barrier_object]; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1",
            ),
            form_with(
                "cp.async.mbarrier.arrive{.noinc}",
                ".shared .align 8 .b64 barrier_object;",
                ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rl<2>",
                "mbarrier.init.shared.b64 [barrier_object], 2; cp.async.mbarrier.arrive.shared.b64 [barrier_object]; cp.async.mbarrier.arrive.noinc.shared.b64 [barrier_object]; mbarrier.arrive.shared.b64 %rl1, [barrier_object]; mbarrier.test_wait.shared.b64 %p1, [barrier_object], %rl1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1",
            ),
            form_with(
                "mbarrier.arrive.expect_tx/complete_tx",
                ".shared .align 8 .b64 barrier_object;",
                ".reg .pred %p<2>; .reg .b32 %r<2>",
                "mbarrier.init.shared::cta.b64 [barrier_object], 1; mbarrier.arrive.expect_tx.shared::cta.b64 _, [barrier_object], 16; mbarrier.complete_tx.shared::cta.b64 [barrier_object], 16; mbarrier.test_wait.parity.shared::cta.b64 %p1, [barrier_object], 0; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd2], %r1",
            )
            .with_header(ISA_8_0_SM_90),
            form_with(
                "cp.async.bulk (global, shared, mbarrier, bulk_group)",
                ".shared .align 128 .b8 bulk_tile[64];\n.shared .align 8 .b64 barrier_object;",
                ".reg .pred %p<2>",
                "mbarrier.init.shared::cta.b64 [barrier_object], 1; mbarrier.arrive.expect_tx.shared::cta.b64 _, [barrier_object], 32; cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [bulk_tile], [%rd2], 32, [barrier_object]; WAIT: mbarrier.try_wait.parity.shared::cta.b64 %p1, [barrier_object], 0; @!%p1 bra WAIT; cp.async.bulk.global.shared::cta.bulk_group [%rd2+32], [bulk_tile], 32; cp.async.bulk.commit_group; cp.async.bulk.wait_group 0",
            )
            .with_header(ISA_8_0_SM_90),
            form_with(
                "tensormap.replace/cp_fenceproxy, cp.async.bulk.tensor.2d",
                ".shared .align 128 .b8 map[128];\n.shared .align 1024 .b8 bulk_tile[1024];\n.shared .align 8 .b64 barrier_object;",
                ".reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rl<2>",
                "cvta.global.u64 %rl1, %rd2; tensormap.replace.tile.global_address.shared::cta.b1024.b64 [map], %rl1; tensormap.replace.tile.rank.shared::cta.b1024.b32 [map], 1; tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [map], 0, 8; tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [map], 1, 4; tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [map], 0, 8; tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [map], 1, 4; tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [map], 0, 32; tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [map], 0, 1; tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [map], 1, 1; tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [map], 2; tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [map], 1; tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd2+128], [map], 128; fence.proxy.tensormap::generic.acquire.gpu [%rl1+128], 128; add.u64 %rl1, %rl1, 128; mov.u32 %r1, 0; mbarrier.init.shared::cta.b64 [barrier_object], 1; mbarrier.arrive.expect_tx.shared::cta.b64 _, [barrier_object], 128; cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [bulk_tile], [%rl1, {%r1, %r1}], [barrier_object]; WAIT: mbarrier.try_wait.parity.shared::cta.b64 %p1, [barrier_object], 0; @!%p1 bra WAIT; cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rl1, {%r1, %r1}], [bulk_tile]; cp.async.bulk.commit_group; cp.async.bulk.wait_group.read 0",
            )
            .with_header(ISA_8_3_SM_90A),
            form_with(
                "cp.reduce.async.bulk.add.u32",
                SHARED_TILE,
                "",
                "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd2], [tile], 64; cp.async.bulk.commit_group; cp.async.bulk.wait_group 0",
            )
            .with_header(ISA_8_0_SM_90),
        ],
    ),
    (
        "9.7.13 Warp-level matrix multiply-accumulate",
        &[
            form(
                "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32",
                ".reg .b32 %r<4>; .reg .f32 %f<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.b32 %r3, [%rd2+8]; ld.global.f32 %f1, [%rd2+12]; mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2}, {%r3}, {%f1, %f1, %f1, %f1}; st.global.f32 [%rd2], %f5",
            ),
            form(
                "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                ".reg .b32 %r<4>; .reg .f32 %f<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.f32 %f1, [%rd2+12]; mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2, %r1, %r2}, {%r1, %r2}, {%f1, %f1, %f1, %f1}; st.global.f32 [%rd2], %f5",
            ),
            form(
                "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                ".reg .b32 %r<4>; .reg .f32 %f<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.f32 %f1, [%rd2+12]; mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2, %r1, %r2}, {%r1, %r2}, {%f1, %f1, %f1, %f1}; st.global.f32 [%rd2], %f5",
            ),
            form(
                "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32",
                ".reg .b32 %r<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.b32 %r3, [%rd2+8]; mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r5, %r6, %r7, %r8}, {%r1, %r2, %r1, %r2}, {%r1, %r2}, {%r3, %r3, %r3, %r3}; st.global.b32 [%rd2], %r5",
            ),
            form(
                "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32",
                ".reg .b32 %r<4>; .reg .f32 %f<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.f32 %f1, [%rd2+12]; mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, {%r1, %r2}, {%r1, %r2}, {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}; st.global.f32 [%rd2], %f5",
            ),
            form(
                "mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32",
                ".reg .b32 %r<6>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sync.aligned.m8n8k16.row.col.s32.u8.s8.s32 {%r3, %r4}, {%r1}, {%r2}, {%r1, %r2}; st.global.b32 [%rd2], %r4",
            ),
            form(
                "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
                ".reg .f64 %fd<6>",
                "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd3, %fd4}, {%fd1}, {%fd2}, {%fd1, %fd2}; st.global.f64 [%rd2], %fd4",
            ),
            form(
                "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64",
                ".reg .f64 %fd<8>",
                "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%fd3, %fd4, %fd5, %fd6}, {%fd1, %fd2}, {%fd1}, {%fd1, %fd2, %fd1, %fd2}; st.global.f64 [%rd2], %fd6",
            )
            .with_header(ISA_7_8_SM_90),
            form(
                "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64",
                ".reg .f64 %fd<8>",
                "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%fd3, %fd4, %fd5, %fd6}, {%fd1, %fd2, %fd1, %fd2}, {%fd1, %fd2}, {%fd1, %fd2, %fd1, %fd2}; st.global.f64 [%rd2], %fd6",
            )
            .with_header(ISA_7_8_SM_90),
            form(
                "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64",
                ".reg .f64 %fd<8>",
                "ld.global.f64 %fd1, [%rd2]; ld.global.f64 %fd2, [%rd2+8]; mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%fd3, %fd4, %fd5, %fd6}, {%fd1, %fd2, %fd1, %fd2, %fd1, %fd2, %fd1, %fd2}, {%fd1, %fd2, %fd1, %fd2}, {%fd1, %fd2, %fd1, %fd2}; st.global.f64 [%rd2], %fd6",
            )
            .with_header(ISA_7_8_SM_90),
            form(
                "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
                ".reg .b32 %r<6>; .reg .f32 %f<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.f32 %f1, [%rd2+12]; mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2, %r1, %r2}, {%r1, %r2, %r1, %r2}, {%f1, %f1, %f1, %f1}, %r2, 0; st.global.f32 [%rd2], %f5",
            ),
            form(
                "mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
                ".reg .b32 %r<6>; .reg .f32 %f<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.f32 %f1, [%rd2+12]; mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2}, {%r1, %r2}, {%f1, %f1, %f1, %f1}, %r2, 3; st.global.f32 [%rd2], %f5",
            ),
            form(
                "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32",
                ".reg .b32 %r<6>; .reg .f32 %f<9>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; ld.global.f32 %f1, [%rd2+12]; mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32 {%f5, %f6, %f7, %f8}, {%r1, %r2, %r1, %r2}, {%r1, %r2, %r1, %r2}, {%f1, %f1, %f1, %f1}, %r2, 1; st.global.f32 [%rd2], %f5",
            ),
            form(
                "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%r3, %r4, %r5, %r6}, {%r1, %r2}, {%r1, %r2}, {%r1, %r2, %r1, %r2}, %r2, 1; st.global.b32 [%rd2], %r6",
            ),
            form(
                "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32 {%r3, %r4, %r5, %r6}, {%r1, %r2, %r1, %r2}, {%r1, %r2, %r1, %r2}, {%r1, %r2, %r1, %r2}, %r2, 0; st.global.b32 [%rd2], %r6",
            ),
            form(
                "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32 {%r3, %r4, %r5, %r6}, {%r1, %r2}, {%r1, %r2}, {%r1, %r2, %r1, %r2}, %r2, 1; st.global.b32 [%rd2], %r6",
            ),
            form(
                "mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32 {%r3, %r4, %r5, %r6}, {%r1, %r2, %r1, %r2}, {%r1, %r2, %r1, %r2}, {%r1, %r2, %r1, %r2}, %r2, 0; st.global.b32 [%rd2], %r6",
            ),
            form(
                "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.u4.s32",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sync.aligned.m8n8k32.row.col.satfinite.s32.s4.u4.s32 {%r3, %r4}, {%r1}, {%r2}, {%r1, %r2}; st.global.b32 [%rd2], %r4",
            ),
            form(
                "mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32 {%r3, %r4, %r5, %r6}, {%r1, %r2, %r1, %r2}, {%r1, %r2}, {%r1, %r2, %r1, %r2}; st.global.b32 [%rd2], %r6",
            ),
            form(
                "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r3, %r4}, {%r1}, {%r2}, {%r1, %r2}; st.global.b32 [%rd2], %r4",
            ),
            form(
                "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc",
                ".reg .b32 %r<7>",
                "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%r3, %r4, %r5, %r6}, {%r1, %r2, %r1, %r2}, {%r1, %r2}, {%r1, %r2, %r1, %r2}; st.global.b32 [%rd2], %r6",
            ),
            form(
                "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
                ".reg .b32 %r<6>",
                "ld.global.b32 %r1, [%rd2]; st.shared.b32 [tile], %r1; ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r2, %r3, %r4, %r5}, [tile]; st.global.b32 [%rd2], %r5",
            )
            .with_module_scope(SHARED_TILE),
            form("stmatrix.sync.aligned.m8n8.x1.shared.b16", ".reg .b32 %r<4>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; stmatrix.sync.aligned.m8n8.x1.shared.b16 [tile], {%r1}; bar.warp.sync 0xffffffff; ld.shared.b32 %r3, [tile+4]; st.global.b32 [%rd2], %r3")
                .with_module_scope(SHARED_TILE)
                .with_header(ISA_7_8_SM_90),
            form("stmatrix.sync.aligned.m8n8.x2.shared.b16", ".reg .b32 %r<4>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; stmatrix.sync.aligned.m8n8.x2.shared.b16 [tile], {%r1, %r2}; bar.warp.sync 0xffffffff; ld.shared.b32 %r3, [tile+4]; st.global.b32 [%rd2], %r3")
                .with_module_scope(SHARED_TILE)
                .with_header(ISA_7_8_SM_90),
            form("stmatrix.sync.aligned.m8n8.x4.shared.b16", ".reg .b32 %r<4>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; stmatrix.sync.aligned.m8n8.x4.shared.b16 [tile], {%r1, %r2, %r1, %r2}; bar.warp.sync 0xffffffff; ld.shared.b32 %r3, [tile+4]; st.global.b32 [%rd2], %r3")
                .with_module_scope(SHARED_TILE)
                .with_header(ISA_7_8_SM_90),
            form("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16", ".reg .b32 %r<4>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [tile], {%r1}; bar.warp.sync 0xffffffff; ld.shared.b32 %r3, [tile+4]; st.global.b32 [%rd2], %r3")
                .with_module_scope(SHARED_TILE)
                .with_header(ISA_7_8_SM_90),
            form("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", ".reg .b32 %r<4>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [tile], {%r1, %r2}; bar.warp.sync 0xffffffff; ld.shared.b32 %r3, [tile+4]; st.global.b32 [%rd2], %r3")
                .with_module_scope(SHARED_TILE)
                .with_header(ISA_7_8_SM_90),
            form("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16", ".reg .b32 %r<4>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [tile], {%r1, %r2, %r1, %r2}; bar.warp.sync 0xffffffff; ld.shared.b32 %r3, [tile+4]; st.global.b32 [%rd2], %r3")
                .with_module_scope(SHARED_TILE)
                .with_header(ISA_7_8_SM_90),
            form("stmatrix.sync.aligned.m8n8.x4.b16 (generic address)", ".reg .b32 %r<4>; .reg .b64 %rl<2>", "ld.global.b32 %r1, [%rd2]; ld.global.b32 %r2, [%rd2+4]; mov.u64 %rl1, tile; cvta.shared.u64 %rl1, %rl1; stmatrix.sync.aligned.m8n8.x4.b16 [%rl1], {%r1, %r2, %r1, %r2}; bar.warp.sync 0xffffffff; ld.shared.b32 %r3, [tile+4]; st.global.b32 [%rd2], %r3")
                .with_module_scope(SHARED_TILE)
                .with_header(ISA_7_8_SM_90),
            form_with(
                "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 (stride)",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "mov.u32 %r1, 24; wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd2], %r1; st.global.b32 [%rd2], %r8",
            ),
            form_with(
                "wmma.load.b.sync.aligned.col.m16n16k16.f16 (generic)",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.b.sync.aligned.col.m16n16k16.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd1]; st.global.b32 [%rd2], %r16",
            ),
            form_with(
                "wmma.load.c/store.d.sync.aligned.col.m16n16k16.shared.f16",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.c.sync.aligned.col.m16n16k16.shared.f16 {%r17, %r18, %r19, %r20}, [wtile]; wmma.store.d.sync.aligned.col.m16n16k16.shared.f16 [wtile+512], {%r17, %r18, %r19, %r20}; ld.shared.b32 %r1, [wtile+512]; st.global.b32 [%rd2], %r1",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd2]; wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2]; wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2]; wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}; mov.u32 %r1, 20; wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, %r1",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd2]; wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2]; wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {%r17, %r18, %r19, %r20}, [%rd2]; wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16 {%r21, %r22, %r23, %r24}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%r17, %r18, %r19, %r20}; wmma.store.d.sync.aligned.row.m16n16k16.global.f16 [%rd2], {%r21, %r22, %r23, %r24}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 (mixed C and D)",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd2]; wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2]; wmma.load.c.sync.aligned.row.m16n16k16.global.f16 {%r17, %r18, %r19, %r20}, [%rd2]; wmma.mma.sync.aligned.row.col.m16n16k16.f32.f16 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%r17, %r18, %r19, %r20}; wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m32n8k16.f32.f32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.a.sync.aligned.row.m32n8k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd2]; wmma.load.b.sync.aligned.col.m32n8k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2]; wmma.load.c.sync.aligned.row.m32n8k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2]; wmma.mma.sync.aligned.row.col.m32n8k16.f32.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}; wmma.store.d.sync.aligned.row.m32n8k16.global.f32 [%rd2], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m8n32k16.f32.f32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.a.sync.aligned.row.m8n32k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd2]; wmma.load.b.sync.aligned.col.m8n32k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2]; wmma.load.c.sync.aligned.row.m8n32k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2]; wmma.mma.sync.aligned.row.col.m8n32k16.f32.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}; wmma.store.d.sync.aligned.row.m8n32k16.global.f32 [%rd2], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32.satfinite",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .s32 %s<17>",
                "wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {%r1, %r2}, [%rd2]; wmma.load.b.sync.aligned.col.m16n16k16.global.s8 {%r3, %r4}, [%rd2]; wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {%s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8}, [%rd2]; wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32.satfinite {%s9, %s10, %s11, %s12, %s13, %s14, %s15, %s16}, {%r1, %r2}, {%r3, %r4}, {%s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8}; wmma.store.d.sync.aligned.row.m16n16k16.global.s32 [%rd2], {%s9, %s10, %s11, %s12, %s13, %s14, %s15, %s16}",
            ),
            form_with(
                "wmma.mma.sync.aligned.col.row.m32n8k16.s32.u8.u8.s32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .s32 %s<17>",
                "wmma.load.a.sync.aligned.col.m32n8k16.global.u8 {%r1, %r2, %r3, %r4}, [%rd2]; wmma.load.b.sync.aligned.row.m32n8k16.global.u8 {%r5}, [%rd2]; wmma.load.c.sync.aligned.col.m32n8k16.global.s32 {%s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8}, [%rd2]; wmma.mma.sync.aligned.col.row.m32n8k16.s32.u8.u8.s32 {%s9, %s10, %s11, %s12, %s13, %s14, %s15, %s16}, {%r1, %r2, %r3, %r4}, {%r5}, {%s1, %s2, %s3, %s4, %s5, %s6, %s7, %s8}; wmma.store.d.sync.aligned.col.m32n8k16.global.s32 [%rd2], {%s9, %s10, %s11, %s12, %s13, %s14, %s15, %s16}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m8n32k16.f32.bf16.bf16.f32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.a.sync.aligned.row.m8n32k16.global.bf16 {%r1, %r2}, [%rd2]; wmma.load.b.sync.aligned.col.m8n32k16.global.bf16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2]; wmma.load.c.sync.aligned.row.m8n32k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2]; wmma.mma.sync.aligned.row.col.m8n32k16.f32.bf16.bf16.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r1, %r2}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}; wmma.store.d.sync.aligned.row.m8n32k16.global.f32 [%rd2], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .f32 %f<17>",
                "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%r1, %r2, %r3, %r4}, [%rd2]; wmma.load.b.sync.aligned.row.m16n16k8.global.tf32 {%r5, %r6, %r7, %r8}, [%rd2]; wmma.load.c.sync.aligned.row.m16n16k8.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2]; wmma.mma.sync.aligned.row.row.m16n16k8.f32.tf32.tf32.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, %r8}, {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}; wmma.store.d.sync.aligned.row.m16n16k8.global.f32 [%rd2], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m8n8k4.rn.f64.f64.f64.f64",
                WMMA_TILE,
                ".reg .f64 %fd<7>",
                "wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%fd1}, [%rd2]; wmma.load.b.sync.aligned.col.m8n8k4.global.f64 {%fd2}, [%rd2]; wmma.load.c.sync.aligned.row.m8n8k4.global.f64 {%fd3, %fd4}, [%rd2]; wmma.mma.sync.aligned.row.col.m8n8k4.rn.f64.f64.f64.f64 {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4}; wmma.store.d.sync.aligned.row.m8n8k4.global.f64 [%rd2], {%fd5, %fd6}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m8n8k4.rz.f64.f64.f64.f64",
                WMMA_TILE,
                ".reg .f64 %fd<7>",
                "wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%fd1}, [%rd2]; wmma.load.b.sync.aligned.col.m8n8k4.global.f64 {%fd2}, [%rd2]; wmma.load.c.sync.aligned.row.m8n8k4.global.f64 {%fd3, %fd4}, [%rd2]; wmma.mma.sync.aligned.row.col.m8n8k4.rz.f64.f64.f64.f64 {%fd5, %fd6}, {%fd1}, {%fd2}, {%fd3, %fd4}; wmma.store.d.sync.aligned.row.m8n8k4.global.f64 [%rd2], {%fd5, %fd6}",
            ),
            form_with(
                "wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .s32 %s<17>",
                "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r1}, [%rd2]; wmma.load.b.sync.aligned.col.m8n8k32.global.s4 {%r2}, [%rd2]; wmma.load.c.sync.aligned.row.m8n8k32.global.s32 {%s1, %s2}, [%rd2]; wmma.mma.sync.aligned.row.col.m8n8k32.s32.s4.s4.s32 {%s3, %s4}, {%r1}, {%r2}, {%s1, %s2}; wmma.store.d.sync.aligned.row.m8n8k32.global.s32 [%rd2], {%s3, %s4}",
            ),
            form_with(
                "wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .s32 %s<17>",
                "wmma.load.a.sync.aligned.row.m8n8k128.global.b1 {%r1}, [%rd2]; wmma.load.b.sync.aligned.col.m8n8k128.global.b1 {%r2}, [%rd2]; wmma.load.c.sync.aligned.row.m8n8k128.global.s32 {%s1, %s2}, [%rd2]; wmma.mma.xor.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%s3, %s4}, {%r1}, {%r2}, {%s1, %s2}; wmma.store.d.sync.aligned.row.m8n8k128.global.s32 [%rd2], {%s3, %s4}",
            ),
            form_with(
                "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32",
                WMMA_TILE,
                ".reg .b32 %r<25>; .reg .s32 %s<17>",
                "wmma.load.a.sync.aligned.row.m8n8k128.global.b1 {%r1}, [%rd2]; wmma.load.b.sync.aligned.col.m8n8k128.global.b1 {%r2}, [%rd2]; wmma.load.c.sync.aligned.row.m8n8k128.global.s32 {%s1, %s2}, [%rd2]; wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%s3, %s4}, {%r1}, {%r2}, {%s1, %s2}; wmma.store.d.sync.aligned.row.m8n8k128.global.s32 [%rd2], {%s3, %s4}",
            ),
        ],
    ),
    (
        "9.7.15 Warp-group matrix multiply-accumulate (ISA 8.0)",
        &[
            form(
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
                ".reg .pred %p<2>; .reg .b32 %r<5>; .reg .f32 %f<5>",
                "setp.ne.u64 %p1, %rd2, 0; wgmma.fence.sync.aligned; wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd2, %rd2, %p1, 1, -1, 0, 1; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; st.global.f32 [%rd2], %f1",
            )
            .with_header(ISA_8_0_SM_90A),
            form(
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 (A in registers)",
                ".reg .pred %p<2>; .reg .b32 %r<5>; .reg .f32 %f<5>",
                "setp.ne.u64 %p1, %rd2, 0; ld.global.b32 %r1, [%rd2]; wgmma.fence.sync.aligned; wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%f1, %f2, %f3, %f4}, {%r1, %r1, %r1, %r1}, %rd2, %p1, -1, 1, 1; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; st.global.f32 [%rd2], %f1",
            )
            .with_header(ISA_8_0_SM_90A),
            form(
                "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",
                ".reg .pred %p<2>; .reg .b32 %r<5>; .reg .f32 %f<5>",
                "setp.ne.u64 %p1, %rd2, 0; wgmma.fence.sync.aligned; wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%f1, %f2, %f3, %f4}, %rd2, %rd2, %p1, 1, 1; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; st.global.f32 [%rd2], %f1",
            )
            .with_header(ISA_8_0_SM_90A),
            form(
                "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2",
                ".reg .pred %p<2>; .reg .b32 %r<5>; .reg .f32 %f<5>",
                "setp.ne.u64 %p1, %rd2, 0; wgmma.fence.sync.aligned; wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e5m2 {%r1, %r2}, %rd2, %rd2, 0, 1, 1; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; st.global.b32 [%rd2], %r1",
            )
            .with_header(ISA_8_0_SM_90A),
            form(
                "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8.satfinite",
                ".reg .pred %p<2>; .reg .b32 %r<5>; .reg .f32 %f<5>",
                "setp.ne.u64 %p1, %rd2, 0; wgmma.fence.sync.aligned; wgmma.mma_async.sync.aligned.m64n8k32.satfinite.s32.s8.s8 {%r1, %r2, %r3, %r4}, %rd2, %rd2, %p1; wgmma.commit_group.sync.aligned; wgmma.wait_group.sync.aligned 0; st.global.b32 [%rd2], %r1",
            )
            .with_header(ISA_8_0_SM_90A),
        ],
    ),
    (
        "9.7.14 Video",
        &[
            form("vadd.s32.s32.s32.sat", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; vadd.s32.s32.s32.sat %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("vsub.s32.u32.s32.sat.min (byte selectors)", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vsub.s32.u32.s32.sat.min %r4, %r1.b1, %r2.b3, %r3; st.global.u32 [%rd2], %r4"),
            form("vabsdiff.u32.u32.u32 d.h1 (merge)", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vabsdiff.u32.u32.u32 %r4.h1, %r1.h0, %r2.h1, %r3; st.global.u32 [%rd2], %r4"),
            form("vmin.s32.s32.s32.max", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vmin.s32.s32.s32.max %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vmax.u32.s32.u32.sat d.b2 (merge)", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vmax.u32.s32.u32.sat %r4.b2, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vshl.s32.s32.u32.sat.wrap", R4, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; vshl.s32.s32.u32.sat.wrap %r3, %r1, %r2; st.global.u32 [%rd2], %r3"),
            form("vshr.u32.u32.u32.clamp.add", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vshr.u32.u32.u32.clamp.add %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vset.s32.u32.lt.add", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vset.s32.u32.lt.add %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vmad.s32.s32.s32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vmad.s32.s32.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vmad.u32.u32.u32.sat -a, b, c (negated product)", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vmad.u32.u32.u32.sat %r4, -%r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vmad.s32.s32.u32.shr7 a, b, -c (negated c)", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vmad.s32.s32.u32.shr7 %r4, %r1, %r2.h1, -%r3; st.global.u32 [%rd2], %r4"),
            form("vadd2.u32.u32.u32.sat", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vadd2.u32.u32.u32.sat %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vavrg4.u32.u32.u32", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vavrg4.u32.u32.u32 %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
            form("vsub2.s32.s32.s32 d.h1 (selectors)", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vsub2.s32.s32.s32 %r4.h1, %r1.h21, %r2.h03, %r3; st.global.u32 [%rd2], %r4"),
            form("vset4.s32.u32.lt.add", R6, "ld.global.u32 %r1, [%rd2]; ld.global.u32 %r2, [%rd2+4]; ld.global.u32 %r3, [%rd2+8]; vset4.s32.u32.lt.add %r4, %r1, %r2, %r3; st.global.u32 [%rd2], %r4"),
        ],
    ),
    (
        "9.7.15 Miscellaneous",
        &[
            form("trap", ".reg .pred %p<2>; .reg .b32 %r<2>", "ld.global.u32 %r1, [%rd2]; setp.eq.u32 %p1, %r1, 0; @%p1 trap; st.global.u32 [%rd2], %r1"),
            form("nanosleep.u32", R4, "ld.global.u32 %r1, [%rd2]; nanosleep.u32 %r1; st.global.u32 [%rd2+4], %r1"),
            form("brkpt", ".reg .pred %p<2>; .reg .b32 %r<2>", "ld.global.u32 %r1, [%rd2]; setp.eq.u32 %p1, %r1, 0; @%p1 brkpt; st.global.u32 [%rd2+4], %r1"),
            form("pmevent", "", "pmevent 7"),
            form("pmevent.mask", "", "pmevent.mask 0x8001"),
            form("alloca.u64", ".reg .b64 %rl<3>; .reg .b32 %r<2>", "ld.global.u64 %rl1, [%rd2]; alloca.u64 %rl2, %rl1; st.local.u32 [%rl2], 1; ld.local.u32 %r1, [%rl2]; st.global.u32 [%rd2], %r1"),
            form("alloca.u64 (immAlign)", ".reg .b64 %rl<3>; .reg .b32 %r<2>", "ld.global.u64 %rl1, [%rd2]; alloca.u64 %rl2, %rl1, 64; st.local.u32 [%rl2], 1; ld.local.u32 %r1, [%rl2]; st.global.u32 [%rd2], %r1"),
            form("stacksave.u64 / stackrestore.u64", ".reg .b64 %rl<4>; .reg .b32 %r<2>", "ld.global.u64 %rl1, [%rd2]; stacksave.u64 %rl3; alloca.u64 %rl2, %rl1; st.local.u32 [%rl2], 1; ld.local.u32 %r1, [%rl2]; stackrestore.u64 %rl3; st.global.u32 [%rd2], %r1"),
            form_with(
                "vprintf",
                ".extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 arguments); .global .align 1 .b8 text[4] = {37, 100, 10, 0};",
                ".local .align 4 .b8 depot[4]; .param .b64 format_argument; .param .b64 buffer_argument; .param .b32 status; .reg .b32 %r<3>; .reg .b64 %rl<3>",
                "ld.global.u32 %r1, [%rd2]; mov.u64 %rl1, depot; st.local.u32 [%rl1], %r1; cvta.local.u64 %rl1, %rl1; cvta.global.u64 %rl2, text; st.param.b64 [format_argument], %rl2; st.param.b64 [buffer_argument], %rl1; call.uni (status), vprintf, (format_argument, buffer_argument); ld.param.b32 %r2, [status]; st.global.u32 [%rd2], %r2",
            ),
            form_with(
                "malloc / free",
                ".extern .func (.param .b64 pointer) malloc (.param .b64 size); .extern .func free (.param .b64 pointer);",
                ".param .b64 size; .param .b64 pointer; .param .b64 freed; .reg .b32 %r<2>; .reg .b64 %rl<2>",
                "ld.global.u32 %r1, [%rd2]; st.param.b64 [size], 64; call.uni (pointer), malloc, (size); ld.param.b64 %rl1, [pointer]; st.u32 [%rl1], %r1; st.param.b64 [freed], %rl1; call.uni free, (freed); st.global.u32 [%rd2], %r1",
            ),
            form_with(
                "__assertfail",
                ".extern .func __assertfail (.param .b64 message, .param .b64 file, .param .b32 line, .param .b64 function, .param .b64 char_size); .global .align 1 .b8 text[2] = {63, 0};",
                ".param .b64 message; .param .b64 file; .param .b32 line; .param .b64 function; .param .b64 char_size; .reg .pred %p<2>; .reg .b32 %r<2>; .reg .b64 %rl<2>",
                "ld.global.u32 %r1, [%rd2]; setp.ne.u32 %p1, %r1, 0; @%p1 bra DONE; cvta.global.u64 %rl1, text; st.param.b64 [message], %rl1; st.param.b64 [file], %rl1; st.param.b32 [line], 1; st.param.b64 [function], %rl1; st.param.b64 [char_size], 1; call.uni __assertfail, (message, file, line, function, char_size); DONE: st.global.u32 [%rd2], %r1",
            ),
        ],
    ),
];

impl Form {
    const fn with_module_scope(self, module_scope: &'static str) -> Form {
        Form { module_scope, ..self }
    }

    const fn with_header(self, header: &'static str) -> Form {
        Form { header, ..self }
    }
}

/// The complete PTX module of one row: its header (`.version 7.8`, `.target sm_80` for most),
/// `.address_size 64` and
/// one kernel `k(.param .u64 p)` that loads its parameter, converts it to a global address in
/// `%rd2`, runs the row's body and returns.
fn module_source(form: &Form) -> String {
    let mut source = format!("{}\n.address_size 64\n\n", form.header);
    if !form.module_scope.is_empty() {
        source.push_str(form.module_scope);
        source.push_str("\n\n");
    }
    source.push_str(".visible .entry k(.param .u64 p)\n{\n    .reg .b64 %rd<3>;\n");
    for statement in statements(form.declarations) {
        source.push_str(&format!("    {statement};\n"));
    }
    source.push_str("\n    ld.param.u64 %rd1, [p];\n    cvta.to.global.u64 %rd2, %rd1;\n");
    for statement in statements(form.body) {
        // Labels stand at the start of their line, like nvcc and clang write them.
        match statement.split_once(": ") {
            Some((label, rest)) if !label.contains(char::is_whitespace) && !rest.starts_with('.') => {
                source.push_str(&format!("{label}:\n    {rest};\n"));
            }
            _ => source.push_str(&format!("    {statement};\n")),
        }
    }
    source.push_str("    ret;\n}\n");
    source
}

fn statements(text: &str) -> impl Iterator<Item = &str> {
    text.split(';').map(str::trim).filter(|statement| !statement.is_empty())
}

/// The columns: short name and the target handed to `describe` (a fixed CPU triple, so that the
/// table does not depend on the host).
const TARGETS: [(&str, &str); 4] =
    [("cpu", "x86_64-unknown-linux-gnu"), ("nvptx", "nvptx"), ("amdgpu", "amdgpu"), ("spirv", "spirv")];

enum Outcome {
    Compiles,
    Unsupported,
    /// The first line of what went wrong.
    Broken(String),
}

/// Compiles one module for one target in this process.
fn compile(source: &str, target: &str) -> Outcome {
    let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: None, optimization: 0 };
    let result = catch_unwind(AssertUnwindSafe(|| compile_source(source, "coverage", &options)));
    match result {
        Ok(Ok(artifact)) if artifact.bytes.is_empty() => Outcome::Broken("an empty artefact".to_string()),
        Ok(Ok(_)) => Outcome::Compiles,
        Ok(Err(Failure::Diagnostics(diagnostics))) => {
            let errors: Vec<_> =
                diagnostics.iter().filter(|diagnostic| diagnostic.severity == Severity::Error).collect();
            if !errors.is_empty() && errors.iter().all(|diagnostic| diagnostic.code == Code::Unsupported) {
                Outcome::Unsupported
            } else if let Some(error) = errors.iter().find(|diagnostic| diagnostic.code != Code::Unsupported) {
                Outcome::Broken(format!("{}: {}", error.code, first_line(&error.message)))
            } else {
                Outcome::Broken("failed without an error diagnostic".to_string())
            }
        }
        Ok(Err(Failure::Message(message))) => Outcome::Broken(first_line(&message)),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|text| (*text).to_string()))
                .unwrap_or_default();
            Outcome::Broken(format!("panic: {}", first_line(&message)))
        }
    }
}

/// The first line, with temporary paths (which change from run to run) replaced.
fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("").trim();
    let temporary = std::env::temp_dir().to_string_lossy().trim_end_matches('/').to_string();
    line.split(' ')
        .map(|word| if word.contains(&format!("{temporary}/")) { "<temporary file>" } else { word })
        .collect::<Vec<_>>()
        .join(" ")
}

fn all_forms() -> impl Iterator<Item = (&'static str, &'static Form)> {
    SECTIONS.iter().flat_map(|(section, forms)| forms.iter().map(move |form| (*section, form)))
}

/// The environment variable that makes this test binary a child compiling one row:
/// `"<row index> <first column>"`.
const CHILD: &str = "PTXR_COVERAGE_CHILD";
/// The marker before each outcome on the child's standard output.
const MARKER: &str = "ptxr-coverage-outcome:";

/// The child's side: compiles the row that `PTXR_COVERAGE_CHILD` names for the targets from the
/// given column on, printing each outcome as soon as it is known. A no-op in ordinary runs.
#[test]
fn child_process_compiles_one_row() {
    let Ok(request) = std::env::var(CHILD) else { return };
    let numbers: Vec<usize> = request
        .split(' ')
        .map(|number| number.parse().unwrap_or_else(|error| panic!("{CHILD}={request}: {error}")))
        .collect();
    let [row, first_column] = numbers[..] else { panic!("{CHILD}={request}: expected `<row> <first column>`") };
    let (_, form) = all_forms().nth(row).unwrap_or_else(|| panic!("{CHILD}={request}: no such row"));
    let source = module_source(form);
    for (column, (_, target)) in TARGETS.iter().enumerate().skip(first_column) {
        let outcome = match compile(&source, target) {
            Outcome::Compiles => "compiles".to_string(),
            Outcome::Unsupported => "unsupported".to_string(),
            Outcome::Broken(message) => format!("broken {message}"),
        };
        println!("\n{MARKER} {column} {outcome}");
        std::io::Write::flush(&mut std::io::stdout()).unwrap_or(());
    }
}

/// Compiles one row in child processes: LLVM reports some errors by aborting the process
/// (`LLVM ERROR: ...`), and one crash must not take the whole table with it. After a crash the
/// next child starts at the column after the one that crashed.
fn compile_row(row: usize) -> [Outcome; 4] {
    let mut outcomes: [Option<Outcome>; 4] = Default::default();
    let mut first_column = 0;
    while first_column < TARGETS.len() {
        let executable = std::env::current_exe().unwrap_or_else(|error| panic!("{error}"));
        let output = Command::new(executable)
            .args(["--exact", "child_process_compiles_one_row", "--nocapture", "--test-threads=1"])
            .env(CHILD, format!("{row} {first_column}"))
            .env_remove("PTXR_BLESS")
            .output()
            .unwrap_or_else(|error| panic!("cannot run the coverage child process: {error}"));
        let stdout = String::from_utf8_lossy(&output.stdout);
        for line in stdout.lines() {
            let Some((_, reported)) = line.split_once(MARKER) else { continue };
            let Some((column, outcome)) = reported.trim().split_once(' ') else { continue };
            let Ok(column) = column.parse::<usize>() else { continue };
            outcomes[column] = Some(match outcome {
                "compiles" => Outcome::Compiles,
                "unsupported" => Outcome::Unsupported,
                _ => Outcome::Broken(outcome.strip_prefix("broken ").unwrap_or(outcome).to_string()),
            });
        }
        let Some(crashed) = (first_column..TARGETS.len()).find(|column| outcomes[*column].is_none()) else { break };
        outcomes[crashed] = Some(Outcome::Broken(crash_reason(&output)));
        first_column = crashed + 1;
    }
    outcomes.map(|outcome| outcome.unwrap_or_else(|| Outcome::Broken("not compiled".to_string())))
}

/// Why a child died without reporting: LLVM's message on standard error, and the exit status.
fn crash_reason(output: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reason = stderr
        .lines()
        .find(|line| line.contains("LLVM ERROR") || line.contains("Assertion") || line.contains("error"))
        .map(first_line)
        .unwrap_or_default();
    let status = exit_status(output.status);
    if reason.is_empty() {
        format!("crash: {status}")
    } else {
        format!("crash: {reason} ({status})")
    }
}

/// `exit status 1` or `signal 6`, without the "core dumped" that depends on the machine.
fn exit_status(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("signal {signal}");
        }
    }
    status.to_string()
}

/// Compiles every row for every target, a child process per row, several rows at a time.
fn outcomes() -> Vec<[Outcome; 4]> {
    let rows = all_forms().count();
    let threads = std::thread::available_parallelism().map_or(4, |count| count.get()).clamp(1, 16);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<(usize, [Outcome; 4])> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let next = &next;
                scope.spawn(move || {
                    let mut done = Vec::new();
                    loop {
                        let row = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if row >= rows {
                            break;
                        }
                        done.push((row, compile_row(row)));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap_or_else(|_| panic!("a coverage thread panicked")))
            .collect()
    });
    results.sort_by_key(|(row, _)| *row);
    results.into_iter().map(|(_, outcomes)| outcomes).collect()
}

fn render(outcomes: &[[Outcome; 4]]) -> String {
    let total = outcomes.len();
    let mut markdown = String::new();
    markdown.push_str("# PTX instruction coverage\n\n");
    markdown.push_str(
        "<!-- Generated by `cargo test -p ptxr-tests --test coverage` (tests/tests/coverage.rs). Do not edit by hand. -->\n\n",
    );
    markdown.push_str(
        "This file is generated by `cargo test -p ptxr-tests --test coverage` from the rows in\n\
         `tests/tests/coverage.rs`, and that test fails when it is out of date. After changing ptxr or\n\
         the rows, regenerate it with\n\n\
         ```sh\n\
         PTXR_BLESS=1 cargo test -p ptxr-tests --test coverage\n\
         ```\n\n",
    );
    markdown.push_str(
        "Each row is one PTX instruction form, written as a small complete module (`.version 7.8`,\n\
         `.target sm_80` unless the form is newer, `.address_size 64`, one kernel that loads its inputs from global memory,\n\
         runs the instruction and stores the result). The module is compiled with `compile_source` at\n\
         -O0 for each target: `cpu` (x86_64-unknown-linux-gnu object), `nvptx` (PTX for sm_80),\n\
         `amdgpu` (gfx90a code object) and `spirv` (SPIR-V 1.2 binary). Sections follow chapter 9.7 of\n\
         the PTX ISA 7.8 manual; special registers (chapter 10) appear as `mov` rows.\n\n",
    );
    markdown.push_str(
        "Legend: ✅ compiles to the target's artefact · ❌ reported as unsupported on that target ·\n\
         ⚠️ fails in another way, a bug (numbered notes below the table)\n\n",
    );
    markdown.push_str("| Section | Form | cpu | nvptx | amdgpu | spirv |\n| --- | --- | :-: | :-: | :-: | :-: |\n");
    let mut notes = Vec::new();
    let mut counts = [0usize; 4];
    let mut previous_section = "";
    for ((section, form), row) in all_forms().zip(outcomes) {
        let section_cell = if section == previous_section { "" } else { section };
        previous_section = section;
        let mut cells = Vec::new();
        for (column, outcome) in row.iter().enumerate() {
            cells.push(match outcome {
                Outcome::Compiles => {
                    counts[column] += 1;
                    "✅".to_string()
                }
                Outcome::Unsupported => "❌".to_string(),
                Outcome::Broken(message) => {
                    notes.push(format!("`{}` on {}: {}", form.name, TARGETS[column].0, message));
                    format!("⚠️ ({})", notes.len())
                }
            });
        }
        writeln!(markdown, "| {} | `{}` | {} |", section_cell, form.name.replace('|', "\\|"), cells.join(" | "))
            .unwrap_or(());
    }
    markdown.push('\n');
    for (column, (name, _)) in TARGETS.iter().enumerate() {
        writeln!(markdown, "- {name}: {} of {total} forms", counts[column]).unwrap_or(());
    }
    if !notes.is_empty() {
        markdown.push_str("\n## Failures other than \"unsupported\"\n\n");
        for (number, note) in notes.iter().enumerate() {
            writeln!(markdown, "{}. {}", number + 1, note).unwrap_or(());
        }
    }
    markdown
}

fn coverage_path() -> PathBuf {
    repository_root().join("docs/COVERAGE.md")
}

#[test]
fn coverage_table_is_up_to_date() {
    let rendered = render(&outcomes());
    let path = coverage_path();
    if std::env::var("PTXR_BLESS").is_ok_and(|value| value == "1") {
        std::fs::write(&path, &rendered).unwrap_or_else(|error| panic!("cannot write {}: {error}", path.display()));
        eprintln!("wrote {}", path.display());
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == rendered {
        return;
    }
    let fresh = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("COVERAGE.md");
    std::fs::write(&fresh, &rendered).unwrap_or_else(|error| panic!("cannot write {}: {error}", fresh.display()));
    let mut hint = String::new();
    let committed_lines: Vec<&str> = committed.lines().collect();
    let rendered_lines: Vec<&str> = rendered.lines().collect();
    let mut shown = 0;
    for index in 0..committed_lines.len().max(rendered_lines.len()) {
        let (old, new) = (committed_lines.get(index), rendered_lines.get(index));
        if old != new {
            writeln!(
                hint,
                "  line {}:\n    - {}\n    + {}",
                index + 1,
                old.unwrap_or(&"<none>"),
                new.unwrap_or(&"<none>")
            )
            .unwrap_or(());
            shown += 1;
            if shown == 10 {
                hint.push_str("  ...\n");
                break;
            }
        }
    }
    panic!(
        "docs/COVERAGE.md is out of date (or missing). Regenerate it with\n\n    PTXR_BLESS=1 cargo test -p ptxr-tests --test coverage\n\n\
         The table as generated now is in {}; `diff docs/COVERAGE.md {}` shows every change. First differences:\n{hint}",
        fresh.display(),
        fresh.display(),
    );
}

/// The snippets are valid PTX: NVIDIA's assembler accepts every module, so a ⚠️ in the table is
/// ptxr's fault and not the row's. Skipped where `ptxas` is not installed.
#[test]
fn every_row_is_valid_ptx() {
    let Some(ptxas) = ptxas() else { return };
    let directory = std::env::temp_dir().join(format!("ptxr-coverage-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let forms: Vec<(usize, &Form)> = all_forms().map(|(_, form)| form).enumerate().collect();
    let rejected: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = forms
            .chunks(forms.len().div_ceil(8))
            .map(|chunk| {
                let (ptxas, directory) = (&ptxas, &directory);
                scope.spawn(move || {
                    let mut rejected = Vec::new();
                    for (index, form) in chunk {
                        let file = directory.join(format!("row{index}.ptx"));
                        std::fs::write(&file, module_source(form)).unwrap_or_else(|error| panic!("{error}"));
                        // The row's own `.target`: ptxas rejects one above its `-arch`.
                        let arch = form.header.rsplit(".target ").next().unwrap_or("sm_80");
                        let output = Command::new(ptxas)
                            .args([format!("-arch={arch}").as_str(), "-o"])
                            .arg(directory.join(format!("row{index}.cubin")))
                            .arg(&file)
                            .output()
                            .unwrap_or_else(|error| panic!("cannot run {}: {error}", ptxas.display()));
                        if !output.status.success() {
                            rejected.push(format!(
                                "`{}`: {}",
                                form.name,
                                String::from_utf8_lossy(&output.stderr).trim()
                            ));
                        }
                    }
                    rejected
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap_or_else(|_| panic!("a ptxas thread panicked")))
            .collect()
    });
    let _ = std::fs::remove_dir_all(&directory);
    assert!(rejected.is_empty(), "ptxas rejects {} coverage rows:\n{}", rejected.len(), rejected.join("\n"));
}
