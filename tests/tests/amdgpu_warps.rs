//! PTX's 32-lane warps on AMDGPU: every warp collective and `%laneid` compile for wave64
//! (gfx9) and wave32 (gfx10 and later) architectures into code objects whose metadata gives
//! the wave size, and the wave64 lowering reads and ballots within the warp's half of the
//! wave (`intrinsics/src/amdgpu_warp.rs`). No AMD GPU runs here, so the checks are the code
//! object's notes (llvm-readelf) and the IR.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_lowering::Emit;
use ptxr_tests::vendor_checks::code_object_notes;

/// One kernel with every kind of warp collective.
const WARP_KERNEL: &str = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry warps(.param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<4>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %laneid;
    mov.u32 %r3, %lanemask_lt;
    shfl.sync.down.b32 %r4|%p1, %r1, 1, 0x1f, 0xffffffff;
    setp.lt.u32 %p2, %r2, 7;
    vote.sync.ballot.b32 %r5, %p2, 0xffffffff;
    vote.sync.all.pred %p3, %p2, 0xffffffff;
    match.any.sync.b32 %r6, %r2, 0xffffffff;
    redux.sync.add.u32 %r7, %r1, 0xffffffff;
    redux.sync.min.s32 %r8, %r1, 0xffffffff;
    activemask.b32 %r9;
    bar.warp.sync 0xffffffff;
    add.u32 %r10, %r4, %r5;
    add.u32 %r10, %r10, %r6;
    add.u32 %r10, %r10, %r7;
    add.u32 %r10, %r10, %r8;
    add.u32 %r10, %r10, %r9;
    add.u32 %r10, %r10, %r3;
    selp.u32 %r11, 1, 0, %p3;
    add.u32 %r10, %r10, %r11;
    selp.u32 %r12, 1, 0, %p1;
    add.u32 %r10, %r10, %r12;
    mov.u32 %r13, %warpid;
    mov.u32 %r14, %nwarpid;
    add.u32 %r10, %r10, %r13;
    add.u32 %r10, %r10, %r14;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r10;
    ret;
}
"#;

fn compile(arch: &str, emit: Option<Emit>, optimization: u8) -> Vec<u8> {
    let description = describe("amdgpu", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit, optimization };
    match compile_source(WARP_KERNEL, "warps", &options) {
        Ok(artifact) => artifact.bytes,
        Err(failure) => panic!("the warp kernel does not compile for {arch}: {failure:?}"),
    }
}

#[test]
fn warp_collectives_compile_for_wave64_and_wave32() {
    for (arch, wave) in [("gfx90a", 64), ("gfx942", 64), ("gfx1030", 32), ("gfx1100", 32)] {
        let Some(notes) = code_object_notes(&compile(arch, None, 2), &format!("amdgpu-warps-{arch}")) else { return };
        assert!(notes.contains(".name:           warps"), "{arch}: kernel missing:\n{notes}");
        assert!(notes.contains(&format!(".wavefront_size: {wave}")), "{arch}: not wave{wave}:\n{notes}");
    }
}

#[test]
fn wave64_reads_and_ballots_stay_in_the_warps_half() {
    let ir = String::from_utf8(compile("gfx90a", Some(Emit::LlvmIr), 0)).unwrap_or_else(|error| panic!("{error}"));
    // The wave lane from both mbcnt halves; the warp's start is its bit 5.
    assert!(ir.contains("@llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)"), "{ir}");
    assert!(ir.contains("@llvm.amdgcn.mbcnt.hi(i32 -1"), "{ir}");
    assert!(ir.contains("and i32 %") && ir.contains(", 32"), "{ir}");
    // Ballots of the whole wave shifted down by the warp's start; lane reads by byte address.
    assert!(ir.contains("@llvm.amdgcn.ballot.i64"), "{ir}");
    assert!(ir.contains("lshr i64"), "{ir}");
    // shfl (1), match.any (32), and redux twice (32 each): 97 lane reads.
    assert_eq!(ir.matches("call i32 @llvm.amdgcn.ds.bpermute").count(), 97, "{ir}");
    assert!(ir.contains("fence syncscope(\"wavefront\") acq_rel"), "{ir}");
    // %warpid is the linear thread index over 32, %nwarpid the block's threads rounded up.
    assert!(ir.contains("%warpid = lshr i32 %thread.linear, 5"), "{ir}");
    assert!(ir.contains("%nwarpid = lshr i32"), "{ir}");
    assert!(ir.contains("@llvm.amdgcn.wave.barrier"), "{ir}");
}
