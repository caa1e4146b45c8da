//! `mbarrier` on the GPU targets: NVPTX writes PTX's own instructions (the nvvm intrinsics,
//! inline PTX for the forms they do not select below sm_90, at the ISA version those need) and
//! ptxas accepts them; AMDGPU builds the object from LDS atomics, warning (W0903) that waits
//! within one wave can hang; SPIR-V builds it from OpenCL's work-group atomics, warning (W0904)
//! that OpenCL promises no forward progress to a work-item polling for others, and spirv-val
//! accepts every form.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, Artifact, CompileOptions, Failure};
use ptxr_frontend::Code;
use ptxr_tests::read_repository_file;
use ptxr_tests::vendor_checks::{self, code_object_notes};

fn compile(source: &str, target: &str, arch: Option<&str>) -> Result<Artifact, Failure> {
    let target = describe(target, arch, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target, emit: None, optimization: 2 };
    compile_source(source, "mbarrier", &options)
}

fn kernel(name: &str) -> String {
    read_repository_file(&format!("tests/fixtures/kernels/{name}.ptx"))
}

/// Runs ptxas on `ptx` for `arch`; `Ok` when ptxas is not installed.
fn ptxas_accepts(ptx: &[u8], arch: &str, name: &str) -> Result<(), String> {
    vendor_checks::ptxas_accepts(ptx, arch, &format!("mbarrier-{name}")).unwrap_or(Ok(()))
}

#[test]
fn nvptx_writes_every_form_and_ptxas_accepts_it() {
    for (name, arch, version, forms) in [
        (
            "mbarrier_sm80",
            "sm_80",
            ".version 7.1",
            &[
                "mbarrier.init.shared.b64",
                "mbarrier.init.b64",
                "mbarrier.arrive.noComplete.shared.b64",
                "mbarrier.arrive_drop.noComplete.b64",
                "mbarrier.arrive_drop.shared.b64",
                "mbarrier.pending_count.b64",
                "mbarrier.test_wait.shared.b64",
                "mbarrier.test_wait.parity.b64",
                "mbarrier.inval.shared.b64",
                "cp.async.mbarrier.arrive.shared.b64",
                "cp.async.mbarrier.arrive.b64",
                "cp.async.mbarrier.arrive.noinc.shared.b64",
                "cp.async.mbarrier.arrive.noinc.b64",
            ][..],
        ),
        (
            "mbarrier_sm90",
            "sm_90",
            ".version 7.8",
            &[
                "mbarrier.arrive.b64 %rd",
                "mbarrier.arrive_drop.b64 %rd",
                "mbarrier.try_wait.b64",
                "mbarrier.try_wait.parity.b64",
            ][..],
        ),
    ] {
        let compiled = compile(&kernel(name), "nvptx", None).unwrap_or_else(|failure| panic!("{name}: {failure:?}"));
        let text = String::from_utf8_lossy(&compiled.bytes);
        assert!(text.contains(version), "{name}: {text}");
        for form in forms {
            assert!(text.contains(form), "{name}: {form} in\n{text}");
        }
        ptxas_accepts(&compiled.bytes, arch, name).unwrap_or_else(|message| panic!("{name}: ptxas: {message}\n{text}"));
    }
}

#[test]
fn amdgpu_builds_the_object_from_workgroup_atomics_and_warns_about_waits_in_one_wave() {
    for name in ["mbarrier_sm80", "mbarrier_sm90"] {
        let source = kernel(name);
        for arch in ["gfx90a", "gfx1100"] {
            let compiled =
                compile(&source, "amdgpu", Some(arch)).unwrap_or_else(|failure| panic!("{name} {arch}: {failure:?}"));
            let hazards: Vec<_> =
                compiled.warnings.iter().filter(|warning| warning.code == Code::MbarrierWaitsInWaves).collect();
            assert_eq!(hazards.len(), 1, "{name} {arch}: {:?}", compiled.warnings);
            let span = hazards[0].primary_span().unwrap_or_else(|| panic!("no span"));
            assert!(source[span.start as usize..span.end as usize].starts_with("mbarrier.test_wait"), "{name} {arch}");
            if let Some(notes) = code_object_notes(&compiled.bytes, &format!("{name}-{arch}")) {
                assert!(notes.contains(&format!(".name:           {name}\n")), "{name} {arch}: {notes}");
                assert!(notes.contains(".group_segment_fixed_size: 8\n"), "the object is in LDS: {notes}");
            }
        }
    }
    let description = describe("amdgpu", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: Some(ptxr_lowering::Emit::LlvmIr), optimization: 0 };
    let ir =
        compile_source(&kernel("mbarrier_sm90"), "mbarrier", &options).unwrap_or_else(|failure| panic!("{failure:?}"));
    let ir = String::from_utf8_lossy(&ir.bytes);
    assert!(ir.contains("cmpxchg") && ir.contains("syncscope(\"workgroup\") acq_rel"), "{ir}");
    assert!(ir.contains("load atomic i64") && ir.contains("syncscope(\"workgroup\") acquire"), "{ir}");
    assert!(ir.contains("@llvm.amdgcn.s.sleep"), "try_wait polls with sleeps: {ir}");
}

#[test]
fn spirv_builds_the_object_from_workgroup_atomics_and_warns_about_polling() {
    for name in ["mbarrier_sm80", "mbarrier_sm90"] {
        let source = kernel(name);
        let compiled = compile(&source, "spirv", None).unwrap_or_else(|failure| panic!("{name}: {failure:?}"));
        let hazards: Vec<_> =
            compiled.warnings.iter().filter(|warning| warning.code == Code::WaitsWithoutForwardProgress).collect();
        assert_eq!(hazards.len(), 1, "{name}: {:?}", compiled.warnings);
        assert!(compiled.warnings.iter().all(|warning| warning.code != Code::MbarrierWaitsInWaves), "{name}");
        let span = hazards[0].primary_span().unwrap_or_else(|| panic!("no span"));
        assert!(source[span.start as usize..span.end as usize].starts_with("mbarrier.test_wait"), "{name}");
        // The object's 64-bit atomics need Int64Atomics: the universal rules of SPIR-V 1.2.
        let environment = vendor_checks::spirv_environment(&compiled.bytes);
        assert_eq!(environment, "spv1.2", "{name}");
        if let Some(Err(message)) = vendor_checks::spirv_val(&compiled.bytes, &environment, &format!("mbarrier-{name}"))
        {
            panic!("{name}: spirv-val: {message}");
        }
    }
    let description = describe("spirv", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: Some(ptxr_lowering::Emit::LlvmIr), optimization: 0 };
    let ir =
        compile_source(&kernel("mbarrier_sm90"), "mbarrier", &options).unwrap_or_else(|failure| panic!("{failure:?}"));
    let ir = String::from_utf8_lossy(&ir.bytes);
    assert!(ir.contains("cmpxchg") && ir.contains("syncscope(\"workgroup\") acq_rel"), "{ir}");
    // The object's acquiring loads reach SPIR-V as `atomicrmw or` of zero
    // (intrinsics/src/spirv_atomic_loads_stores.rs: LLVM's back end would write a plain OpLoad).
    assert!(ir.contains("atomicrmw or ptr addrspace(3) %0, i64 0 syncscope(\"workgroup\") acquire"), "{ir}");
    assert!(!ir.contains("load atomic"), "{ir}");
    assert!(ir.contains("mbarrier.poll"), "try_wait polls: {ir}");
}
