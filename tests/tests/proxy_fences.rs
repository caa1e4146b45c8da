//! Bidirectional proxy fences (`fence.proxy.alias`, `membar.proxy.alias`,
//! `fence.proxy.async{.global, .shared::cta}`, as Triton writes them for sm_90) compile on every
//! target: NVPTX writes PTX's own fences (at the PTX ISA version they need), the others an
//! ordinary fence, since no async-proxy operation is lowered there. The other proxy fences
//! stay unsupported, named.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_tests::vendor_checks;
use ptxr_tests::{run_ok, Buffer, Launch};

/// Stores through shared memory across every bidirectional proxy fence.
const FENCES: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry fences(.param .u64 data)
{
    .shared .align 4 .b8 tile[4];
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [data];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [%rd2];
    mov.u32 %r2, tile;
    st.shared.u32 [%r2], %r1;
    fence.proxy.async.shared::cta;
    fence.proxy.async.global;
    fence.proxy.async;
    fence.proxy.alias;
    membar.proxy.alias;
    ld.shared.u32 %r3, [%r2];
    add.u32 %r3, %r3, 1;
    st.global.u32 [%rd2+4], %r3;
    ret;
}
"#;

fn compile(source: &str, target: &str) -> Result<Vec<u8>, Failure> {
    let target = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target, emit: None, optimization: 2 };
    compile_source(source, "fences", &options).map(|artifact| artifact.bytes)
}

#[test]
fn proxy_fences_run_on_the_cpu() {
    let result = run_ok(FENCES, &Launch::threads(1), &[Buffer::u32s(&[41, 0])]);
    assert_eq!(result[0], vec![41, 42]);
}

#[test]
fn proxy_fences_compile_for_every_gpu() {
    for target in ["amdgpu", "spirv"] {
        compile(FENCES, target).unwrap_or_else(|failure| panic!("{target}: {failure:?}"));
    }
    let ptx = compile(FENCES, "nvptx").unwrap_or_else(|failure| panic!("nvptx: {failure:?}"));
    let text = String::from_utf8_lossy(&ptx);
    for fence in
        ["fence.proxy.async.shared::cta;", "fence.proxy.async.global;", "fence.proxy.async;", "fence.proxy.alias;"]
    {
        assert!(text.contains(fence), "{fence} in\n{text}");
    }
    assert!(text.contains(".version 8.0"), "{text}");
    if let Some(Err(message)) = vendor_checks::ptxas_accepts(ptx.as_ref(), "sm_90", "proxy-fences") {
        panic!("{message}");
    }
}

#[test]
fn the_alias_fence_on_sm_80_is_written_at_ptx_7_5() {
    let source = FENCES
        .replace(".version 8.0", ".version 7.5")
        .replace(".target sm_90", ".target sm_80")
        .lines()
        .filter(|line| !line.contains("proxy.async"))
        .collect::<Vec<_>>()
        .join("\n");
    let ptx = compile(&source, "nvptx").unwrap_or_else(|failure| panic!("nvptx: {failure:?}"));
    let text = String::from_utf8_lossy(&ptx);
    assert!(text.contains(".version 7.5") && text.contains("fence.proxy.alias;"), "{text}");
}

#[test]
fn other_proxy_fences_are_reported_by_name() {
    // `fence.mbarrier_init` (ISA 8.0) orders `mbarrier.init` for the cluster's other CTAs.
    let source = FENCES.replace("fence.proxy.alias;", "fence.mbarrier_init.release.cluster;");
    for target in ["cpu", "nvptx", "amdgpu", "spirv"] {
        match compile(&source, target) {
            Err(Failure::Diagnostics(diagnostics)) => assert!(
                diagnostics.iter().any(|diagnostic| diagnostic.message.contains("fence.mbarrier_init")
                    && diagnostic.message.ends_with(&format!("on {target}"))),
                "{target}: {diagnostics:?}"
            ),
            other => panic!("{target}: expected E0901, got {:?}", other.map(|bytes| bytes.len())),
        }
    }
}
