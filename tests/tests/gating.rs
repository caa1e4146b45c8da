//! Version and target gating against NVIDIA's assembler: for each probe, ptxr's verdict (E0301
//! for a `.version` too old, E0302 for a `.target` too old, nothing at the gate) must be what
//! ptxas 12.9 says ("requires PTX ISA .version", "requires .target"). ptxas is the independent
//! model here; skipped where it is not installed, unless `PTXR_REQUIRE_VALIDATORS=1`.

use std::process::Command;

use ptxr_frontend::Code;
use ptxr_tests::ptxas;

/// One instruction form at its gate: the ISA version and `sm_` target that introduced it, and an
/// older version and target just below.
struct Probe {
    instruction: &'static str,
    version: &'static str,
    sm: u32,
    older_version: &'static str,
    /// 0 where the form has no target gate of its own (texture arrays, mipmaps), or where ptxas
    /// does not gate the target although the spec does (`::cta` needs sm_30 by section 9.7.8.8;
    /// ptxas 12.9 accepts it on sm_20), so that case is not compared.
    older_sm: u32,
}

const PROBES: &[Probe] = &[
    // `.b128` (ISA 8.3, sm_70): a declaration of the type, and each instruction that names it.
    Probe { instruction: ".local .b128 wide;", version: "8.3", sm: 70, older_version: "8.2", older_sm: 60 },
    Probe { instruction: "mov.b128 %q0, {%rd1, %rd2};", version: "8.3", sm: 70, older_version: "8.2", older_sm: 60 },
    Probe { instruction: "ld.global.b128 %q0, [%rd1];", version: "8.3", sm: 70, older_version: "8.2", older_sm: 60 },
    Probe { instruction: "st.global.b128 [%rd1], %q0;", version: "8.3", sm: 70, older_version: "8.2", older_sm: 60 },
    Probe {
        instruction: "lop3.b32 %r1, %r2, %r3, %r1, 0x96;",
        version: "4.3",
        sm: 50,
        older_version: "4.2",
        older_sm: 35,
    },
    Probe {
        instruction: "dp4a.u32.u32 %r1, %r2, %r3, %r1;",
        version: "5.0",
        sm: 61,
        older_version: "4.3",
        older_sm: 60,
    },
    Probe { instruction: "szext.wrap.u32 %r1, %r2, %r3;", version: "7.6", sm: 70, older_version: "7.5", older_sm: 62 },
    Probe { instruction: "bmsk.clamp.b32 %r1, %r2, %r3;", version: "7.6", sm: 70, older_version: "7.5", older_sm: 62 },
    Probe {
        instruction: "shfl.sync.down.b32 %r1, %r2, 1, 31, 0xffffffff;",
        version: "6.0",
        sm: 30,
        older_version: "5.0",
        older_sm: 20,
    },
    Probe {
        instruction: "vote.sync.ballot.b32 %r1, %p1, 0xffffffff;",
        version: "6.0",
        sm: 30,
        older_version: "5.0",
        older_sm: 20,
    },
    Probe {
        instruction: "match.any.sync.b32 %r1, %r2, 0xffffffff;",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe { instruction: "activemask.b32 %r1;", version: "6.2", sm: 30, older_version: "6.1", older_sm: 20 },
    Probe {
        instruction: "redux.sync.add.u32 %r1, %r2, 0xffffffff;",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe {
        instruction: "elect.sync %r1|%p1, 0xffffffff;",
        version: "8.0",
        sm: 90,
        older_version: "7.8",
        older_sm: 89,
    },
    Probe {
        instruction: "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%rd1], {%r1, %r2};",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction:
            "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3}, %r0, 0;",
        version: "7.1",
        sm: 80,
        older_version: "7.0",
        older_sm: 75,
    },
    Probe {
        instruction:
            "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1}, {%r2, %r3}, {%f0, %f1, %f2, %f3}, %r0, 0;",
        version: "8.5",
        sm: 80,
        older_version: "8.4",
        older_sm: 75,
    },
    Probe { instruction: "min.NaN.f32 %f1, %f2, %f3;", version: "7.0", sm: 80, older_version: "6.5", older_sm: 75 },
    Probe {
        instruction: "min.xorsign.abs.f32 %f1, %f2, %f3;",
        version: "7.2",
        sm: 86,
        older_version: "7.1",
        older_sm: 80,
    },
    Probe { instruction: "max.relu.s32 %r1, %r2, %r3;", version: "8.0", sm: 90, older_version: "7.8", older_sm: 89 },
    Probe { instruction: "add.u16x2 %r1, %r2, %r3;", version: "8.0", sm: 90, older_version: "7.8", older_sm: 89 },
    Probe { instruction: "min.s16x2 %r1, %r2, %r3;", version: "8.0", sm: 90, older_version: "7.8", older_sm: 89 },
    Probe { instruction: "max.f32 %f1, %f2, %f3, %f1;", version: "8.8", sm: 100, older_version: "8.7", older_sm: 90 },
    Probe { instruction: "add.rn.bf16 %h1, %h2, %h3;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "mul.rn.bf16x2 %r1, %r2, %r3;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "add.f16 %h1, %h2, %h3;", version: "4.2", sm: 53, older_version: "4.1", older_sm: 52 },
    Probe { instruction: "setp.eq.f16 %p1, %h1, %h2;", version: "4.2", sm: 53, older_version: "4.1", older_sm: 52 },
    Probe { instruction: "set.eq.u32.f16 %r1, %h1, %h2;", version: "6.5", sm: 53, older_version: "6.4", older_sm: 52 },
    Probe {
        instruction: "setp.eq.bf16x2 %p1|%p2, %r1, %r2;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction: "ld.relaxed.gpu.global.u32 %r1, [%rd1];",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe {
        instruction: "st.release.gpu.global.u32 [%rd1], %r1;",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe {
        instruction: "ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe {
        instruction: "ld.global.L1::evict_last.u32 %r1, [%rd1];",
        version: "7.4",
        sm: 70,
        older_version: "7.3",
        older_sm: 62,
    },
    Probe {
        instruction: "ld.global.L2::64B.u32 %r1, [%rd1];",
        version: "7.4",
        sm: 75,
        older_version: "7.3",
        older_sm: 72,
    },
    Probe {
        instruction: "ld.global.L2::256B.u32 %r1, [%rd1];",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe { instruction: "ld.shared::cta.u32 %r1, [%rd1];", version: "7.8", sm: 30, older_version: "7.7", older_sm: 0 },
    Probe { instruction: "cvta.param.u64 %rd1, %rd2;", version: "7.7", sm: 70, older_version: "7.6", older_sm: 62 },
    Probe {
        instruction: "cvt.pack.sat.u8.s32.b32 %r1, %r2, %r3, %r1;",
        version: "6.5",
        sm: 72,
        older_version: "6.4",
        older_sm: 70,
    },
    Probe {
        instruction: "cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r1;",
        version: "6.5",
        sm: 75,
        older_version: "6.4",
        older_sm: 72,
    },
    Probe {
        instruction: "cp.async.ca.shared.global [%rd1], [%rd2], 4;",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe { instruction: "cp.async.commit_group;", version: "7.0", sm: 80, older_version: "6.5", older_sm: 75 },
    Probe {
        instruction: "atom.global.cas.b16 %h1, [%rd1], %h2, %h3;",
        version: "6.3",
        sm: 70,
        older_version: "6.2",
        older_sm: 62,
    },
    Probe {
        instruction: "atom.global.add.noftz.f16 %h1, [%rd1], %h2;",
        version: "6.3",
        sm: 70,
        older_version: "6.2",
        older_sm: 62,
    },
    Probe {
        instruction: "atom.global.add.noftz.bf16 %h1, [%rd1], %h2;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe { instruction: "fence.acq_rel.gpu;", version: "6.0", sm: 70, older_version: "5.0", older_sm: 62 },
    Probe { instruction: "fence.proxy.alias;", version: "7.5", sm: 70, older_version: "7.4", older_sm: 62 },
    Probe { instruction: "bar.warp.sync 0xffffffff;", version: "6.0", sm: 30, older_version: "5.0", older_sm: 20 },
    Probe { instruction: "barrier.sync 0;", version: "6.0", sm: 30, older_version: "5.0", older_sm: 20 },
    Probe {
        instruction: "mbarrier.init.shared.b64 [%rd1], 32;",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe {
        instruction: "mbarrier.try_wait.shared.b64 %p1, [%rd1], %rd2;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction: "mbarrier.test_wait.parity.shared.b64 %p1, [%rd1], %r1;",
        version: "7.1",
        sm: 80,
        older_version: "7.0",
        older_sm: 75,
    },
    Probe {
        instruction: "mbarrier.pending_count.b64 %r1, %rd1;",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe {
        instruction: "mbarrier.arrive.shared.b64 %rd1, [%rd2], %r1;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction: "mbarrier.arrive_drop.b64 %rd1, [%rd2], %r1;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction: "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [%rd2];",
        version: "8.0",
        sm: 80,
        older_version: "7.8",
        older_sm: 75,
    },
    Probe {
        instruction: "mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd1, [%rd2];",
        version: "8.6",
        sm: 90,
        older_version: "8.5",
        older_sm: 89,
    },
    Probe {
        instruction: "createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe { instruction: "griddepcontrol.wait;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "mapa.u64 %rd1, %rd2, %r1;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "isspacep.param %p1, %rd1;", version: "7.7", sm: 70, older_version: "7.6", older_sm: 62 },
    Probe { instruction: "fns.b32 %r1, %r2, %r3, 1;", version: "6.0", sm: 30, older_version: "5.0", older_sm: 20 },
    Probe {
        instruction: "shf.l.wrap.b32 %r1, %r2, %r3, %r1;",
        // shf came with ISA 3.1 and sm_32, but sm_32 itself needs ISA 4.0.
        version: "4.0",
        sm: 32,
        older_version: "3.0",
        older_sm: 30,
    },
    Probe { instruction: "barrier.cluster.arrive;", version: "7.8", sm: 90, older_version: "7.7", older_sm: 89 },
    Probe { instruction: "istypep.texref %p1, %rd1;", version: "4.0", sm: 30, older_version: "3.2", older_sm: 20 },
    Probe { instruction: "discard.global.L2 [%rd1], 128;", version: "7.4", sm: 80, older_version: "7.3", older_sm: 75 },
    Probe {
        instruction: "applypriority.global.L2::evict_normal [%rd1], 128;",
        version: "7.4",
        sm: 80,
        older_version: "7.3",
        older_sm: 75,
    },
    Probe {
        instruction: "red.global.add.noftz.bf16x2 [%rd1], %r1;",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
    Probe {
        instruction: "atom.global.add.f32 %f1, [%rd1], %f2;",
        version: "2.0",
        sm: 20,
        older_version: "1.5",
        older_sm: 13,
    },
    Probe {
        instruction: "atom.global.and.b64 %rd1, [%rd1], %rd2;",
        // Introduced with ISA 3.1 and sm_32, which itself needs ISA 4.0.
        version: "4.0",
        sm: 32,
        older_version: "3.0",
        older_sm: 30,
    },
    Probe {
        instruction: "atom.global.max.s64 %rd1, [%rd1], %rd2;",
        // Introduced with ISA 3.1 and sm_32, which itself needs ISA 4.0.
        version: "4.0",
        sm: 32,
        older_version: "3.0",
        older_sm: 30,
    },
    Probe {
        instruction: "atom.global.add.f64 %fd1, [%rd1], %fd2;",
        version: "5.0",
        sm: 60,
        older_version: "4.3",
        older_sm: 53,
    },
    Probe {
        instruction: "red.global.add.f64 [%rd1], %fd2;",
        version: "5.0",
        sm: 60,
        older_version: "4.3",
        older_sm: 53,
    },
    Probe {
        instruction: "atom.gpu.global.add.u32 %r1, [%rd1], %r2;",
        version: "5.0",
        sm: 60,
        older_version: "4.3",
        older_sm: 53,
    },
    Probe {
        instruction: "red.sys.global.add.u32 [%rd1], %r2;",
        version: "5.0",
        sm: 60,
        older_version: "4.3",
        older_sm: 53,
    },
    Probe {
        instruction: "atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;",
        version: "6.2",
        sm: 60,
        older_version: "6.1",
        older_sm: 53,
    },
    Probe {
        instruction: "atom.acq_rel.gpu.global.add.u32 %r1, [%rd1], %r2;",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe {
        instruction: "red.release.gpu.global.add.u32 [%rd1], %r2;",
        version: "6.0",
        sm: 70,
        older_version: "5.0",
        older_sm: 62,
    },
    Probe {
        instruction: "atom.global.v2.f32.add {%f1, %f2}, [%rd1], {%f2, %f3};",
        version: "8.1",
        sm: 90,
        older_version: "8.0",
        older_sm: 89,
    },
    Probe {
        instruction: "red.global.add.v4.f32 [%rd1], {%f0, %f1, %f2, %f3};",
        version: "8.1",
        sm: 90,
        older_version: "8.0",
        older_sm: 89,
    },
    Probe {
        instruction: "atom.global.cas.b128 %q0, [%rd1], %q0, %q1;",
        version: "8.3",
        sm: 90,
        older_version: "8.2",
        older_sm: 89,
    },
    Probe { instruction: "bar.arrive 1, 64;", version: "2.0", sm: 20, older_version: "1.5", older_sm: 13 },
    Probe { instruction: "bar.red.popc.u32 %r1, 1, %p1;", version: "2.0", sm: 20, older_version: "1.5", older_sm: 13 },
    Probe { instruction: "membar.sys;", version: "2.0", sm: 20, older_version: "1.5", older_sm: 13 },
    Probe { instruction: "membar.proxy.alias;", version: "7.5", sm: 60, older_version: "7.4", older_sm: 53 },
    Probe { instruction: "fence.proxy.async;", version: "8.0", sm: 90, older_version: "7.8", older_sm: 89 },
    Probe {
        instruction: "fence.mbarrier_init.release.cluster;",
        version: "8.0",
        sm: 90,
        older_version: "7.8",
        older_sm: 89,
    },
    Probe { instruction: "cp.async.bulk.commit_group;", version: "8.0", sm: 90, older_version: "7.8", older_sm: 89 },
    Probe {
        instruction: "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%rd2], 16;",
        version: "8.0",
        sm: 90,
        older_version: "7.8",
        older_sm: 89,
    },
    Probe {
        instruction: "mbarrier.complete_tx.shared::cta.b64 [%rd1], %r1;",
        version: "8.0",
        sm: 90,
        older_version: "7.8",
        older_sm: 89,
    },
    Probe {
        instruction: "mbarrier.arrive.expect_tx.shared::cta.b64 %rd2, [%rd1], %r1;",
        version: "8.0",
        sm: 90,
        older_version: "7.8",
        older_sm: 89,
    },
    Probe {
        instruction: "fence.proxy.tensormap::generic.release.gpu;",
        version: "8.3",
        sm: 90,
        older_version: "8.2",
        older_sm: 89,
    },
    Probe { instruction: "call %rd1, (%r1), prototype;", version: "2.1", sm: 20, older_version: "2.0", older_sm: 13 },
    Probe {
        instruction: "tex.a1d.v4.f32.s32 {%f0, %f1, %f2, %f3}, [t, {%r1, %r2}];",
        version: "2.3",
        sm: 20,
        older_version: "2.2",
        older_sm: 0,
    },
    Probe {
        instruction: "tex.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, {%f1, %f2, %f3, %f0}];",
        version: "3.0",
        sm: 20,
        older_version: "2.3",
        older_sm: 0,
    },
    Probe {
        instruction: "tex.acube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, {%r1, %f2, %f3, %f0}];",
        version: "3.0",
        sm: 20,
        older_version: "2.3",
        older_sm: 13,
    },
    Probe {
        instruction: "tex.level.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, {%f1, %f2}], %f3;",
        version: "3.1",
        sm: 30,
        older_version: "3.0",
        older_sm: 0,
    },
    Probe {
        instruction: "tex.2dms.v4.f32.s32 {%f0, %f1, %f2, %f3}, [t, {%r0, %r1, %r2, %r3}];",
        version: "3.2",
        sm: 30,
        older_version: "3.1",
        older_sm: 20,
    },
    Probe {
        instruction: "tld4.r.2d.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, {%f1, %f2}];",
        version: "2.2",
        sm: 20,
        older_version: "2.1",
        older_sm: 13,
    },
    Probe {
        instruction: "tld4.g.cube.v4.f32.f32 {%f0, %f1, %f2, %f3}, [t, {%f1, %f2, %f3, %f0}];",
        version: "4.3",
        sm: 30,
        older_version: "4.2",
        older_sm: 20,
    },
    Probe {
        instruction: "txq.num_mipmap_levels.b32 %r1, [t];",
        version: "4.1",
        sm: 30,
        older_version: "4.0",
        older_sm: 0,
    },
    Probe { instruction: "txq.num_samples.b32 %r1, [t];", version: "4.1", sm: 30, older_version: "4.0", older_sm: 20 },
    Probe {
        instruction: "txq.level.width.b32 %r1, [t], %r2;",
        version: "4.3",
        sm: 30,
        older_version: "4.2",
        older_sm: 20,
    },
    Probe {
        instruction: "suld.b.a1d.v4.b32.trap {%r0, %r1, %r2, %r3}, [s, {%r1, %r2}];",
        version: "3.0",
        sm: 30,
        older_version: "2.3",
        older_sm: 0,
    },
    Probe {
        instruction: "sust.p.1d.v4.b32.trap [s, {%r1}], {%r0, %r1, %r2, %r3};",
        version: "2.0",
        sm: 20,
        older_version: "1.5",
        older_sm: 13,
    },
    Probe {
        instruction: "sured.b.add.1d.trap.u32 [s, {%r1}], %r2;",
        version: "2.0",
        sm: 20,
        older_version: "1.5",
        older_sm: 13,
    },
    Probe {
        instruction: "ld.global.v4.u64 {%rd0, %rd1, %rd2, %rd3}, [%rd1];",
        version: "8.8",
        sm: 100,
        older_version: "8.7",
        older_sm: 90,
    },
    Probe {
        instruction: "st.global.v8.f32 [%rd1], {%f0, %f1, %f2, %f3, %f0, %f1, %f2, %f3};",
        version: "8.8",
        sm: 100,
        older_version: "8.7",
        older_sm: 90,
    },
    Probe {
        instruction:
            "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r1, %r2, %r3, %r1, %r2}, [%rd1];",
        version: "6.3",
        sm: 70,
        older_version: "6.2",
        older_sm: 62,
    },
    Probe {
        instruction:
            "wmma.load.c.sync.aligned.row.m32n8k16.global.f32 {%f1, %f2, %f3, %f1, %f2, %f3, %f1, %f2}, [%rd1];",
        version: "6.3",
        sm: 70,
        older_version: "6.2",
        older_sm: 62,
    },
    Probe {
        instruction: "wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {%r1, %r2}, [%rd1];",
        version: "6.3",
        sm: 72,
        older_version: "6.2",
        older_sm: 70,
    },
    Probe {
        instruction:
            "wmma.load.c.sync.aligned.row.m16n16k16.global.s32 {%r1, %r2, %r3, %r1, %r2, %r3, %r1, %r2}, [%rd1];",
        version: "6.3",
        sm: 72,
        older_version: "6.2",
        older_sm: 70,
    },
    Probe {
        instruction: "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r1}, [%rd1];",
        version: "6.3",
        sm: 75,
        older_version: "6.2",
        older_sm: 72,
    },
    Probe {
        instruction: "wmma.load.b.sync.aligned.col.m16n16k16.global.bf16 {%r1, %r2, %r3, %r1}, [%rd1];",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe {
        instruction:
            "wmma.load.c.sync.aligned.row.m16n16k8.global.f32 {%f1, %f2, %f3, %f1, %f2, %f3, %f1, %f2}, [%rd1];",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe {
        instruction:
            "wmma.mma.sync.aligned.row.col.m8n8k4.rz.f64.f64.f64.f64 {%fd1, %fd2}, {%fd1}, {%fd2}, {%fd3, %fd1};",
        version: "7.0",
        sm: 80,
        older_version: "6.5",
        older_sm: 75,
    },
    Probe {
        instruction:
            "wmma.mma.and.popc.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32 {%r1, %r2}, {%r3}, {%r1}, {%r2, %r3};",
        version: "7.1",
        sm: 80,
        older_version: "7.0",
        older_sm: 75,
    },
    Probe {
        instruction:
            "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%fd0, %fd1, %fd2, %fd3}, {%fd0, %fd1, %fd2, %fd3}, {%fd1, %fd2}, {%fd0, %fd1, %fd2, %fd3};",
        version: "7.8",
        sm: 90,
        older_version: "7.7",
        older_sm: 89,
    },
];

fn module(instruction: &str, version: &str, sm: u32) -> String {
    // `.address_size` arrived with ISA 2.3, `.b128` with 8.3, `.texref`/`.surfref` with 1.5:
    // each is declared only where a probe needs it, so that it gates nothing else.
    let address_size = if version_number(version) >= (2, 3) { ".address_size 64\n" } else { "" };
    let wide_registers = if instruction.contains("%q") { ".reg .b128 %q<2>;\n" } else { "" };
    let texture = if instruction.contains("[t,") || instruction.contains("[t]") { ".global .texref t;\n" } else { "" };
    let surface = if instruction.contains("[s,") || instruction.contains("[s]") { ".global .surfref s;\n" } else { "" };
    let prototype =
        if instruction.contains("prototype") { "prototype: .callprototype ()_ (.param .b32 _);\n" } else { "" };
    format!(
        ".version {version}\n.target sm_{sm}\n{address_size}{texture}{surface}.visible .entry k(.param .u64 p)\n{{\n\
         .reg .b32 %r<4>; .reg .b64 %rd<4>; .reg .pred %p<3>; .reg .b16 %h<4>; .reg .f32 %f<4>; .reg .f64 %fd<4>;\n\
         {wide_registers}{prototype}{instruction}\nret;\n}}\n"
    )
}

fn version_number(version: &str) -> (u32, u32) {
    let (major, minor) = version.split_once('.').unwrap_or((version, "0"));
    (major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
}

/// (version too old, target too old) as each tool sees it.
type Verdict = (bool, bool);

fn ptxr_verdict(source: &str) -> Verdict {
    let (_, diagnostics) = ptxr_frontend::check_source(source);
    let has = |code| diagnostics.iter().any(|diagnostic| diagnostic.code == code);
    (has(Code::NeedsNewerVersion), has(Code::NeedsNewerTarget))
}

fn ptxas_verdict(ptxas: &std::path::Path, source: &str, sm: u32, file: &std::path::Path) -> Verdict {
    std::fs::write(file, source).unwrap_or_else(|error| panic!("{error}"));
    // ptxas 12.9 compiles for sm_50 and later, and gates by the module's `.target`.
    let output = Command::new(ptxas)
        .arg(format!("-arch=sm_{}", sm.max(50)))
        .arg("-o")
        .arg(file.with_extension("cubin"))
        .arg(file)
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", ptxas.display()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let version_too_old = stderr.contains("requires PTX ISA .version") || stderr.contains("does not support .target");
    let target_too_old = stderr.contains("requires .target") || stderr.contains("not supported on .target");
    (version_too_old, target_too_old)
}

#[test]
fn gating_agrees_with_ptxas() {
    let Some(ptxas) = ptxas() else { return };
    let directory = std::env::temp_dir().join(format!("ptxr-gating-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let file = directory.join("probe.ptx");
    let mut disagreements = Vec::new();
    for probe in PROBES {
        let cases = [
            (probe.version, probe.sm, (false, false)),
            (probe.older_version, probe.sm, (true, false)),
            (probe.version, probe.older_sm, (false, true)),
        ];
        for (version, sm, expected) in cases {
            if sm == 0 {
                continue;
            }
            let source = module(probe.instruction, version, sm);
            let from_ptxas = ptxas_verdict(&ptxas, &source, sm, &file);
            let from_ptxr = ptxr_verdict(&source);
            if from_ptxas != expected || from_ptxr != from_ptxas {
                disagreements.push(format!(
                    "`{}` under .version {version}, sm_{sm}: ptxas (version, target) = {from_ptxas:?}, ptxr = {from_ptxr:?}",
                    probe.instruction
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&directory);
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}

/// Each `.target` at the PTX ISA version that introduced it (section 11.1.2's Target ISA notes)
/// and at the version just below, which ptxas rejects ("PTX .version 7.7 does not support
/// .target sm_90"): ptxr must give E0301 exactly where ptxas does. Only targets that ptxas 12.9
/// knows; modules without `.address_size` (ISA 2.3) so that the 1.x and 2.x rows are checked.
const TARGETS: &[(&str, &str, &str)] = &[
    ("sm_12", "1.2", "1.1"),
    ("sm_13", "1.2", "1.1"),
    ("sm_20", "2.0", "1.5"),
    ("sm_30", "3.0", "2.3"),
    ("sm_32", "4.0", "3.2"),
    ("sm_35", "3.1", "3.0"),
    ("sm_37", "4.1", "4.0"),
    ("sm_50", "4.0", "3.2"),
    ("sm_52", "4.1", "4.0"),
    ("sm_53", "4.2", "4.1"),
    ("sm_60", "5.0", "4.3"),
    ("sm_61", "5.0", "4.3"),
    ("sm_62", "5.0", "4.3"),
    ("sm_70", "6.0", "5.0"),
    ("sm_72", "6.1", "6.0"),
    ("sm_75", "6.3", "6.2"),
    ("sm_80", "7.0", "6.5"),
    ("sm_86", "7.1", "7.0"),
    ("sm_87", "7.4", "7.3"),
    ("sm_89", "7.8", "7.7"),
    ("sm_90", "7.8", "7.7"),
    ("sm_90a", "8.0", "7.8"),
    ("sm_100", "8.6", "8.5"),
    ("sm_100a", "8.6", "8.5"),
    ("sm_100f", "8.8", "8.7"),
    ("sm_101", "8.6", "8.5"),
    ("sm_103", "8.8", "8.7"),
    ("sm_103a", "8.8", "8.7"),
    ("sm_120", "8.7", "8.6"),
    ("sm_120a", "8.7", "8.6"),
    ("sm_120f", "8.8", "8.7"),
    ("sm_121", "8.8", "8.7"),
    ("compute_80", "7.0", "6.5"),
    ("sm_20,debug", "3.0", "2.3"),
    ("sm_20,texmode_independent", "2.0", "1.5"),
];

/// `.address_size` (ISA 2.3), at its version and just below, where ptxas says "Feature
/// '.address_size directive' requires PTX ISA .version 2.3 or later".
#[test]
fn address_size_needs_isa_2_3_as_in_ptxas() {
    let Some(ptxas) = ptxas() else { return };
    let directory = std::env::temp_dir().join(format!("ptxr-address-size-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let file = directory.join("module.ptx");
    for (version, expected) in [("2.3", false), ("2.2", true)] {
        let source =
            format!(".version {version}\n.target sm_20\n.address_size 64\n.visible .entry k()\n{{\nret;\n}}\n");
        std::fs::write(&file, &source).unwrap_or_else(|error| panic!("{error}"));
        let output = Command::new(&ptxas)
            .args(["-arch=sm_50", "-o"])
            .arg(file.with_extension("cubin"))
            .arg(&file)
            .output()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", ptxas.display()));
        let from_ptxas = String::from_utf8_lossy(&output.stderr).contains("requires PTX ISA .version");
        let (_, diagnostics) = ptxr_frontend::check_source(&source);
        let from_ptxr = diagnostics.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerVersion);
        assert_eq!((from_ptxas, from_ptxr), (expected, expected), ".address_size under .version {version}");
    }
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn target_versions_agree_with_ptxas() {
    let Some(ptxas) = ptxas() else { return };
    let directory = std::env::temp_dir().join(format!("ptxr-target-gating-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap_or_else(|error| panic!("{error}"));
    let file = directory.join("target.ptx");
    let mut disagreements = Vec::new();
    for (target, version, older_version) in TARGETS {
        for (version, expected) in [(version, false), (older_version, true)] {
            let source = format!(".version {version}\n.target {target}\n.visible .entry k()\n{{\nret;\n}}\n");
            std::fs::write(&file, &source).unwrap_or_else(|error| panic!("{error}"));
            // `-arch=sm_50`: ptxas reads the module whatever its `.target`, and gates the
            // version against that `.target`.
            let output = Command::new(&ptxas)
                .args(["-arch=sm_50", "-o"])
                .arg(file.with_extension("cubin"))
                .arg(&file)
                .output()
                .unwrap_or_else(|error| panic!("cannot run {}: {error}", ptxas.display()));
            let stderr = String::from_utf8_lossy(&output.stderr);
            let from_ptxas =
                stderr.contains("does not support .target") || stderr.contains("requires PTX ISA .version");
            let (_, diagnostics) = ptxr_frontend::check_source(&source);
            let from_ptxr = diagnostics.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerVersion);
            if from_ptxas != expected || from_ptxr != from_ptxas {
                disagreements.push(format!(
                    "`.target {target}` under .version {version}: ptxas rejects = {from_ptxas}, ptxr rejects = {from_ptxr}"
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&directory);
    assert!(disagreements.is_empty(), "{} disagreements:\n{}", disagreements.len(), disagreements.join("\n"));
}

/// A compilation for an architecture older than the module's `.target` (`ptxr compile --target
/// nvptx --arch sm_NN`) gates each probe at that architecture: E0302 naming the architecture
/// below the probe's gate (which ptxas confirms above), nothing at the gate; the module's own
/// `.target` is the probe's, so every case is the compiled architecture's doing.
#[test]
fn an_older_compiled_architecture_gates_like_an_older_target() {
    for probe in PROBES.iter().filter(|probe| probe.older_sm != 0) {
        let source = module(probe.instruction, probe.version, probe.sm);
        let (_, below) = ptxr_frontend::check_source_for(&source, Some(probe.older_sm));
        let expected = format!("but the module is compiled for sm_{}", probe.older_sm);
        assert!(
            below.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget
                && diagnostic.message.contains(&format!("needs sm_{} or later", probe.sm))
                && diagnostic.message.ends_with(&expected)),
            "`{}` compiled for sm_{}: {below:?}",
            probe.instruction,
            probe.older_sm
        );
        let (_, at) = ptxr_frontend::check_source_for(&source, Some(probe.sm));
        assert!(
            !at.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget),
            "`{}` compiled for sm_{}: {at:?}",
            probe.instruction,
            probe.sm
        );
    }
}
