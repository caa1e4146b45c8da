//! The vector forms of `atom` and `red` (the PTX ISA manual's "atom" and "red" sections, ISA
//! 8.1, sm_90): `.add` on `.v4`/`.v2` of `.f32`, `.add` on `.v8` of `.f16` and `.v2` of
//! `.bf16x2`, `.max` on `.v4` of `.bf16` and `.min` on `.v2` of `.f16x2`
//! (`tests/fixtures/kernels/vector_atomics.ptx`).
//!
//! Every thread of two blocks updates the same vectors, so each element must take every
//! thread's update on its own: the sums count every thread, the old values each `atom` returns
//! are every partial sum once, `.max` ignores a NaN operand and `.min` puts -0.0 below +0.0, as
//! `min`/`max` on these types do. The model is written here with the `half` crate; the kernel
//! runs on the CPU and, where OpenCL is set up (`OCL_ICD_VENDORS`), on SPIR-V. NVPTX's output
//! must pass ptxas for sm_90, AMDGPU's code objects must build, SPIR-V must pass spirv-val.

use half::{bf16, f16};
use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_tests::vendor_checks::{self, spirv_environment};
use ptxr_tests::{opencl, read_repository_file, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const BLOCKS: u32 = 2;
const THREADS_PER_BLOCK: u32 = 32;
const THREADS: usize = (BLOCKS * THREADS_PER_BLOCK) as usize;

fn kernel() -> String {
    read_repository_file("tests/fixtures/kernels/vector_atomics.ptx")
}

fn f16_bits(value: f32) -> u64 {
    u64::from(f16::from_f32(value).to_bits())
}

fn bf16_bits(value: f32) -> u64 {
    u64::from(bf16::from_f32(value).to_bits())
}

/// Each element's old values, sorted: element `lane` of thread `thread` is `olds[thread * lanes
/// + lane]`.
fn olds_of_element(olds: &[u64], lanes: usize, lane: usize) -> Vec<u64> {
    let mut element: Vec<u64> = olds.iter().skip(lane).step_by(lanes).copied().collect();
    element.sort_unstable();
    element
}

#[test]
fn each_element_of_a_vector_atomic_takes_every_thread_s_update() {
    let f16_hundred = f16_bits(100.0);
    let buffers = [
        Buffer::zeroed("f32", 4),
        Buffer::zeroed("f32", 4 * THREADS),
        Buffer::zeroed("f32", 2),
        Buffer::zeroed("b16", 8),
        Buffer::zeroed("b16", 8 * THREADS),
        Buffer::zeroed("b32", 2),
        Buffer::zeroed("b16", 4),
        Buffer::new("b32", vec![f16_hundred | (f16_hundred << 16); 2]),
    ];
    let launch = Launch { grid: [BLOCKS, 1, 1], block: [THREADS_PER_BLOCK, 1, 1], ..Launch::default() };
    let threads = THREADS as f32;
    for (device, result) in opencl::run_everywhere(&kernel(), &launch, &buffers, OPENCL_CHILD) {
        // `atom.global.v4.f32.add`: element j adds j + 1; its old values are k (j + 1), each k once.
        let sums: Vec<u64> = (1..=4).map(|step| u64::from((threads * step as f32).to_bits())).collect();
        assert_eq!(result[0], sums, "{device}: the .v4.f32 sums");
        for lane in 0..4 {
            let step = (lane + 1) as f32;
            let model: Vec<u64> = (0..THREADS).map(|count| u64::from((count as f32 * step).to_bits())).collect();
            assert_eq!(olds_of_element(&result[1], 4, lane), model, "{device}: the .v4.f32 old values of {lane}");
        }
        // `red.global.v2.f32.add` of {1.0, 0.5}.
        assert_eq!(
            result[2],
            vec![u64::from(threads.to_bits()), u64::from((threads * 0.5).to_bits())],
            "{device}: the .v2.f32 reduction"
        );
        // `atom.global.add.noftz.v8.f16`: element j adds j + 1, exact in binary16.
        let sums: Vec<u64> = (1..=8).map(|step| f16_bits(threads * step as f32)).collect();
        assert_eq!(result[3], sums, "{device}: the .v8.f16 sums");
        for lane in 0..8 {
            let step = (lane + 1) as f32;
            let mut model: Vec<u64> = (0..THREADS).map(|count| f16_bits(count as f32 * step)).collect();
            model.sort_unstable();
            assert_eq!(olds_of_element(&result[4], 8, lane), model, "{device}: the .v8.f16 old values of {lane}");
        }
        // `red.global.add.noftz.v2.bf16x2` of 1.0 in every lane.
        let lane_sum = bf16_bits(threads);
        assert_eq!(result[5], vec![lane_sum | (lane_sum << 16); 2], "{device}: the .v2.bf16x2 reduction");
        // `atom.global.max.noftz.v4.bf16`: thread t offers t + j to element j, and thread 5 a NaN
        // to element 0, which `max` ignores.
        let maxima: Vec<u64> = (0..4).map(|lane| bf16_bits((THREADS - 1 + lane) as f32)).collect();
        assert_eq!(result[6], maxima, "{device}: the .v4.bf16 maxima");
        // `red.global.min.noftz.v2.f16x2` on words of 100.0: the first word's low lane takes
        // t + 1 (least 1.0), its high lane +0.0 from every thread but thread 7's -0.0, which is
        // below it; the second word's lanes take 50 - t (least 50 - 63).
        let first = f16_bits(1.0) | (f16_bits(-0.0) << 16);
        let least = f16_bits(50.0 - (THREADS - 1) as f32);
        assert_eq!(result[7], vec![first, least | (least << 16)], "{device}: the .v2.f16x2 minima");
    }
}

fn compile(target: &str, arch: Option<&str>) -> Vec<u8> {
    let description = describe(target, arch, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: None, optimization: 2 };
    compile_source(&kernel(), "vector_atomics", &options)
        .unwrap_or_else(|failure| panic!("{target} {arch:?}: {failure:?}"))
        .bytes
}

#[test]
fn every_gpu_target_builds_the_vector_atomics_and_the_vendors_checks_accept_them() {
    // The kernel itself is valid PTX, as NVIDIA's assembler reads it.
    vendor_checks::ptxas_accepts(kernel().as_bytes(), "sm_90", "vector-atomics-source")
        .unwrap_or(Ok(()))
        .unwrap_or_else(|message| panic!("ptxas on the source: {message}"));
    let ptx = compile("nvptx", None);
    vendor_checks::ptxas_accepts(&ptx, "sm_90", "vector-atomics")
        .unwrap_or(Ok(()))
        .unwrap_or_else(|message| panic!("ptxas: {message}\n{}", String::from_utf8_lossy(&ptx)));
    for arch in ["gfx90a", "gfx1100"] {
        let code_object = compile("amdgpu", Some(arch));
        if let Some(notes) = vendor_checks::code_object_notes(&code_object, &format!("vector-atomics-{arch}")) {
            assert!(notes.contains("vector_atomics"), "{arch}: {notes}");
        }
    }
    let spirv = compile("spirv", None);
    vendor_checks::spirv_val(&spirv, &spirv_environment(&spirv), "vector-atomics")
        .unwrap_or(Ok(()))
        .unwrap_or_else(|message| panic!("spirv-val: {message}"));
}

/// The forms the manual does not list are errors, not unsupported forms: `.f32` only adds, and
/// only in `.v2`/`.v4`; vector atomics take no `.shared`.
#[test]
fn vector_atomics_outside_the_manual_s_forms_are_errors() {
    for (instruction, message) in [
        ("atom.global.v8.f32.add {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, [%rd1], {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1};", "`.v8` on `.f32`"),
        ("atom.global.v2.f32.max {%f1, %f1}, [%rd1], {%f1, %f1};", "`.v2` on `.f32`"),
        ("atom.shared.v2.f32.add {%f1, %f1}, [%rd1], {%f1, %f1};", "does not access `.shared`"),
        ("red.global.v2.u32.add [%rd1], {%r1, %r1};", "`.v2` on `.u32`"),
    ] {
        let source = format!(
            ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .f32 %f1;\n.reg .b32 %r1;\n.reg .b64 %rd1;\nld.param.u64 %rd1, [p];\n{instruction}\nret;\n}}\n"
        );
        let description = describe("cpu", None, false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target: description, emit: None, optimization: 0 };
        match compile_source(&source, "bad", &options) {
            Err(ptxr_driver::Failure::Diagnostics(diagnostics)) => assert!(
                diagnostics.iter().any(|diagnostic| diagnostic.message.contains(message)
                    && diagnostic.code == ptxr_frontend::Code::InvalidModifier),
                "{instruction}: {diagnostics:?}"
            ),
            other => panic!("{instruction}: expected an error, got {:?}", other.map(|artifact| artifact.bytes.len())),
        }
    }
}
