//! One representative of each GPU architecture family, for the kernels whose outcome depends on
//! the family: NVPTX from sm_50 (where LLVM's default PTX version is older than the warp
//! collectives' own) to sm_90a, each assembled by `ptxas` for its own `-arch`; AMDGPU from
//! gfx6 (no flat address space, no `ds_bpermute`) through gfx7, the wave64 generations 8 and 9
//! and the wave32 generations 10 to 12, each code object's metadata read back. A sweep of every
//! test kernel over every architecture found the failures these pin (docs/TARGETS.md,
//! "Architectures").

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::Code;
use ptxr_tests::vendor_checks::{code_object_notes, ptxas_accepts};

/// Every warp collective that PTX allows from sm_30 and that the checker does not gate to a
/// newer architecture (`match` is sm_70, `redux` sm_80): `activemask` needs PTX ISA 6.2, the
/// `.sync` forms 6.0.
const WARP_COLLECTIVES: &str = r#".version 6.4
.target sm_50
.address_size 64

.visible .entry collectives(.param .u64 output)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [output];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    activemask.b32 %r2;
    shfl.sync.bfly.b32 %r3|%p1, %r1, 1, 31, %r2;
    setp.ne.u32 %p2, %r3, 0;
    vote.sync.ballot.b32 %r4, %p2, %r2;
    bar.warp.sync %r2;
    add.u32 %r5, %r3, %r4;
    st.global.u32 [%rd2], %r5;
    ret;
}
"#;

/// `nanosleep` (sm_70, PTX ISA 6.3 for LLVM) and `ldmatrix` (sm_75, 6.5 for LLVM) in one
/// kernel each, for their oldest architectures.
const SLEEP: &str = r#".version 6.4
.target sm_70
.address_size 64

.visible .entry sleeps()
{
    nanosleep.u32 20;
    ret;
}
"#;

const LOAD_MATRIX: &str = r#".version 6.5
.target sm_75
.address_size 64

.visible .entry loads_a_matrix(.param .u64 output)
{
    .shared .align 16 .b8 tile[128];
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [output];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [tile];
    st.global.u32 [%rd2], %r2;
    ret;
}
"#;

/// Memory reached only through `.global` addresses, which every AMD generation has.
const GLOBAL_ONLY: &str = r#".version 6.4
.target sm_50
.address_size 64

.visible .entry global_only(.param .u64 output)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [output];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2];
    add.u32 %r2, %r1, 1;
    st.global.u32 [%rd2], %r2;
    ret;
}
"#;

/// A generic load and store of a pointer the kernel was given: the optimiser cannot tell which
/// state space it points into, so the accesses stay generic (flat on AMDGPU).
const GENERIC_ACCESS: &str = r#".version 6.4
.target sm_50
.address_size 64

.visible .entry generic_access(.param .u64 output)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [output];
    ld.u32 %r1, [%rd1];
    add.u32 %r2, %r1, 1;
    st.u32 [%rd1], %r2;
    ret;
}
"#;

fn compile_for(source: &str, target: &str, arch: &str) -> Result<Vec<u8>, Failure> {
    let description = describe(target, Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: None, optimization: 2 };
    compile_source(source, "kernel", &options).map(|compiled| compiled.bytes)
}

/// The E0901 messages of a failed compilation; panics on success or on any other failure.
fn unsupported_messages(result: Result<Vec<u8>, Failure>, what: &str) -> Vec<String> {
    match result {
        Err(Failure::Diagnostics(diagnostics)) => {
            assert!(
                diagnostics.iter().all(|diagnostic| diagnostic.code == Code::Unsupported),
                "{what}: {diagnostics:?}"
            );
            diagnostics.into_iter().map(|diagnostic| diagnostic.message).collect()
        }
        Err(failure) => panic!("{what}: not E0901: {failure:?}"),
        Ok(_) => panic!("{what}: compiled, but the processor cannot express it"),
    }
}

/// LLVM writes the oldest PTX version that knows an architecture (5.0 for sm_60, 6.1 for
/// sm_72), in which it cannot select `activemask` or the `.sync` collectives: the driver raises
/// the version, and ptxas takes the result at each architecture's own `-arch`.
#[test]
fn warp_collectives_compile_for_every_sm_from_sm_50() {
    for arch in ["sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_90a"] {
        let ptx = compile_for(WARP_COLLECTIVES, "nvptx", arch).unwrap_or_else(|failure| panic!("{arch}: {failure:?}"));
        let text = String::from_utf8_lossy(&ptx);
        assert!(text.contains(&format!(".target {arch}")), "{arch}: {text}");
        assert!(text.contains("activemask.b32") && text.contains("shfl.sync.bfly.b32"), "{arch}: {text}");
        if let Some(verdict) = ptxas_accepts(&ptx, arch, &format!("collectives-{arch}")) {
            verdict.unwrap_or_else(|message| panic!("ptxas -arch={arch}: {message}\n{text}"));
        }
    }
}

/// `nanosleep` is E0302 below sm_70 (its Target ISA notes), and `nanosleep` and `ldmatrix`
/// compile from their oldest architectures up, where LLVM's default PTX version is older than
/// the intrinsics'.
#[test]
fn sleep_and_matrix_loads_compile_from_their_oldest_architecture() {
    match compile_for(SLEEP, "nvptx", "sm_60") {
        Err(Failure::Diagnostics(diagnostics)) => {
            assert!(
                diagnostics.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget
                    && diagnostic.message.starts_with("`nanosleep.u32` needs sm_70 or later")),
                "{diagnostics:?}"
            );
        }
        other => panic!("nanosleep on sm_60: {:?}", other.map(|bytes| String::from_utf8_lossy(&bytes).into_owned())),
    }
    for (source, arches) in [(SLEEP, &["sm_70", "sm_72", "sm_75", "sm_80"][..]), (LOAD_MATRIX, &["sm_75", "sm_80"][..])]
    {
        for arch in arches {
            let ptx = compile_for(source, "nvptx", arch).unwrap_or_else(|failure| panic!("{arch}: {failure:?}"));
            if let Some(verdict) = ptxas_accepts(&ptx, arch, &format!("oldest-{arch}")) {
                verdict.unwrap_or_else(|message| {
                    panic!("ptxas -arch={arch}: {message}\n{}", String::from_utf8_lossy(&ptx))
                });
            }
        }
    }
}

/// Each AMD family's code object names the kernel with the family's wave size: 64 up to gfx9,
/// 32 from gfx10 on; so do the `-generic` targets' (code object v6, which LLVM needs for them).
#[test]
fn every_amd_family_from_gfx6_compiles_global_memory_with_its_wave_size() {
    for (arch, wave) in [
        ("gfx600", 64),
        ("gfx700", 64),
        ("gfx803", 64),
        ("gfx900", 64),
        ("gfx90a", 64),
        ("gfx942", 64),
        ("gfx950", 64),
        ("gfx1010", 32),
        ("gfx1030", 32),
        ("gfx1100", 32),
        ("gfx1200", 32),
        ("gfx9-generic", 64),
        ("gfx12-generic", 32),
    ] {
        let code_object =
            compile_for(GLOBAL_ONLY, "amdgpu", arch).unwrap_or_else(|failure| panic!("{arch}: {failure:?}"));
        if let Some(notes) = code_object_notes(&code_object, &format!("families-{arch}")) {
            assert!(notes.contains(".name:           global_only\n"), "{arch}: {notes}");
            assert!(notes.contains(&format!(".wavefront_size: {wave}\n")), "{arch}: {notes}");
            assert!(notes.contains(&format!("amdgcn-amd-amdhsa--{arch}")), "{arch}: {notes}");
        }
    }
}

/// gfx6 has no flat address space: generic accesses the optimiser cannot resolve are E0901
/// naming the processor (LLVM would fail to select them); gfx7 has flat instructions.
#[test]
fn generic_accesses_are_unsupported_only_before_gfx7() {
    let messages = unsupported_messages(compile_for(GENERIC_ACCESS, "amdgpu", "gfx600"), "gfx600");
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert!(messages[0].starts_with("unsupported: generic addressing") && messages[0].ends_with("on amdgpu gfx600"));
    for arch in ["gfx700", "gfx803", "gfx1100"] {
        compile_for(GENERIC_ACCESS, "amdgpu", arch).unwrap_or_else(|failure| panic!("{arch}: {failure:?}"));
    }
}

/// Shuffles read other lanes through `ds_bpermute`, which gfx8 introduced: on gfx6 and gfx7
/// they are E0901 at the instruction (ballots, `vote` and `activemask`, are not); from gfx8 on
/// they compile.
#[test]
fn lane_reads_are_unsupported_only_before_gfx8() {
    for arch in ["gfx600", "gfx700"] {
        let messages = unsupported_messages(compile_for(WARP_COLLECTIVES, "amdgpu", arch), arch);
        assert_eq!(messages.len(), 1, "{arch}: {messages:?}");
        assert!(
            messages[0].starts_with("unsupported: `shfl.sync.bfly.b32`")
                && messages[0].ends_with(&format!("on amdgpu {arch}")),
            "{arch}: {messages:?}"
        );
    }
    for arch in ["gfx803", "gfx90a", "gfx1030", "gfx1100", "gfx1200"] {
        compile_for(WARP_COLLECTIVES, "amdgpu", arch).unwrap_or_else(|failure| panic!("{arch}: {failure:?}"));
    }
}
