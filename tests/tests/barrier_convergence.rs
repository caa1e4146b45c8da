//! The optimiser keeps each `bar.sync` as one barrier on one path. On SPIR-V, OpenCL runtimes
//! match a work-group's barriers by program point (Intel's CPU runtime does), so a barrier that
//! jump threading copied into both arms of an `if (tid < stride)` left threads waiting at
//! different copies, and tree reductions read zeros; `bar.sync` is PTX's aligned barrier, which
//! every thread of a warp must reach at the same instruction. The barrier builtins and, on the
//! GPU targets, every `.func` (which may wait inside) are `convergent`, which forbids the copy.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_lowering::Emit;

/// Two halving steps of a tree reduction, each `if (tid < stride) s[tid] += s[tid + stride];`
/// followed by a barrier that every thread reaches, as clang and nvcc write it.
const TREE_STEPS: &str = r#"
.version 7.8
.target sm_80
.address_size 64
.visible .entry tree(.param .u64 out)
{
    .shared .align 4 .b8 partial[512];
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<3>;
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, partial;
    add.s32 %r4, %r3, %r2;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    setp.gt.u32 %p1, %r1, 63;
    @%p1 bra STEP2;
    ld.shared.u32 %r5, [%r4+256];
    ld.shared.u32 %r6, [%r4];
    add.s32 %r7, %r6, %r5;
    st.shared.u32 [%r4], %r7;
STEP2:
    bar.sync 0;
    setp.gt.u32 %p2, %r1, 31;
    @%p2 bra DONE;
    ld.shared.u32 %r8, [%r4+128];
    ld.shared.u32 %r9, [%r4];
    add.s32 %r10, %r9, %r8;
    st.shared.u32 [%r4], %r10;
DONE:
    bar.sync 0;
    setp.ne.s32 %p3, %r1, 0;
    @%p3 bra END;
    ld.shared.u32 %r11, [%r3];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r11;
END:
    ret;
}
"#;

#[test]
fn each_bar_sync_stays_one_barrier_after_optimisation() {
    let target = describe("spirv", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target, emit: Some(Emit::LlvmIr), optimization: 3 };
    let artifact = compile_source(TREE_STEPS, "tree", &options).unwrap_or_else(|failure| panic!("{failure:?}"));
    let ir = String::from_utf8_lossy(&artifact.bytes);
    let barrier_calls = ir.lines().filter(|line| line.contains("call") && line.contains("@_Z7barrierj")).count();
    assert_eq!(barrier_calls, 3, "{ir}");
    let declaration = ir.lines().find(|line| line.starts_with("declare") && line.contains("@_Z7barrierj"));
    assert!(declaration.is_some_and(|line| line.contains('#')), "the barrier has attributes: {ir}");
    assert!(ir.contains("convergent"), "{ir}");
}

/// A `.func` that waits at a barrier, called by a kernel.
const WAITING_FUNCTION: &str = r#"
.version 7.8
.target sm_80
.address_size 64
.func wait_here()
{
    bar.sync 0;
    ret;
}
.visible .entry caller()
{
    call.uni wait_here, ();
    ret;
}
"#;

#[test]
fn functions_are_convergent_on_every_gpu_target() {
    for target_name in ["nvptx", "amdgpu", "spirv"] {
        let target = describe(target_name, None, false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target, emit: Some(Emit::LlvmIr), optimization: 0 };
        let artifact =
            compile_source(WAITING_FUNCTION, "waiting", &options).unwrap_or_else(|failure| panic!("{failure:?}"));
        let ir = String::from_utf8_lossy(&artifact.bytes);
        let definition = ir
            .lines()
            .find(|line| line.starts_with("define") && line.contains("@wait_here("))
            .unwrap_or_else(|| panic!("{target_name}: no definition in\n{ir}"));
        let group = definition.split_whitespace().find(|word| word.starts_with('#')).unwrap_or("#none");
        let attributes = ir.lines().find(|line| line.starts_with(&format!("attributes {group} = ")));
        assert!(
            attributes.is_some_and(|line| line.contains("convergent")),
            "{target_name}: `{definition}` is not convergent in\n{ir}"
        );
    }
}
