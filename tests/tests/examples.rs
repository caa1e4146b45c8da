//! The shipped examples through every target: IR snapshots, CPU execution against values that
//! the test computes itself, and the vendors' validators on the GPU artefacts.

use ptxr_driver::launch::{launch, LaunchFiles};
use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_lowering::Emit;
use ptxr_runtime::LaunchSpec;
use ptxr_tests::{read_repository_file, repository_root, vendor_checks};

/// Every example PTX file: the shipped examples (clang 22) and the nvcc 13.5 fixtures.
const EXAMPLES: [&str; 4] = [
    "examples/vector_add.ptx",
    "examples/saxpy.ptx",
    "tests/fixtures/ptx/vector_add.nvcc.sm80.ptx",
    "tests/fixtures/ptx/saxpy.nvcc.sm80.ptx",
];

/// The targets, with a fixed CPU triple so that snapshots do not depend on the host.
const TARGETS: [(&str, &str); 4] =
    [("cpu", "x86_64-unknown-linux-gnu"), ("nvptx", "nvptx"), ("amdgpu", "amdgpu"), ("spirv", "spirv")];

fn compile(path: &str, target: &str, emit: Option<Emit>, optimization: u8) -> Vec<u8> {
    let source = read_repository_file(path);
    let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit, optimization };
    match compile_source(&source, "example", &options) {
        Ok(artifact) => artifact.bytes,
        Err(failure) => panic!("{path} does not compile for {target}: {failure:?}"),
    }
}

fn snapshot_name(path: &str, target: &str) -> String {
    let stem = path.rsplit('/').next().unwrap_or(path).trim_end_matches(".ptx").replace('.', "_");
    format!("{stem}__{target}")
}

#[test]
fn llvm_ir_of_every_example_on_every_target() {
    for path in EXAMPLES {
        for (name, target) in TARGETS {
            // -O0 keeps the IR close to the PTX it came from: one alloca per register.
            let ir = String::from_utf8(compile(path, target, Some(Emit::LlvmIr), 0))
                .unwrap_or_else(|error| panic!("{error}"));
            insta::with_settings!({ description => format!("{path} lowered for {name} at -O0"), omit_expression => true }, {
                insta::assert_snapshot!(snapshot_name(path, name), ir);
            });
        }
    }
}

/// Runs a launch spec on the host and returns the named buffer's values as f32.
fn run_and_read(path: &str, spec: &serde_json::Value, buffer: &str) -> Vec<f32> {
    let source = read_repository_file(path);
    let spec = LaunchSpec::from_json(&spec.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let root = repository_root();
    let files = LaunchFiles { spec_directory: &root, dump_directory: None, printf_output: None };
    let (json, _) = launch(&source, path, &spec, &files, 2).unwrap_or_else(|failure| panic!("{path}: {failure:?}"));
    let output: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|error| panic!("{error}: {json}"));
    let bits = output["buffers"][buffer]["bits"].as_array().unwrap_or_else(|| panic!("no bits for {buffer}: {json}"));
    bits.iter()
        .map(|bits| {
            let text = bits.as_str().unwrap_or_default().trim_start_matches("0x");
            f32::from_bits(u32::from_str_radix(text, 16).unwrap_or_else(|error| panic!("{error}")))
        })
        .collect()
}

/// Deterministic, varied f32 inputs, including negative values and values of different scale.
fn inputs(count: usize, seed: u32) -> Vec<f32> {
    let mut state = seed;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((state >> 8) as f32 / (1u32 << 24) as f32 - 0.5) * 1000.0
        })
        .collect()
}

#[test]
fn vector_add_runs_on_the_cpu() {
    // More threads (4 x 256) than elements, so the bounds check matters; c starts non-zero so
    // that writes past n would show.
    let n = 1000usize;
    let (a, b) = (inputs(n, 1), inputs(n, 2));
    for path in ["examples/vector_add.ptx", "tests/fixtures/ptx/vector_add.nvcc.sm80.ptx"] {
        let spec = serde_json::json!({
            "grid": [4], "block": [256],
            "buffers": {
                "a": { "type": "f32", "data": a },
                "b": { "type": "f32", "data": b },
                "c": { "type": "f32", "data": vec![7.0f32; n + 24] },
            },
            "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "c" }, { "type": "s32", "value": n }],
        });
        let c = run_and_read(path, &spec, "c");
        for index in 0..n {
            assert_eq!(c[index].to_bits(), (a[index] + b[index]).to_bits(), "{path}: c[{index}]");
        }
        assert!(c[n..].iter().all(|value| *value == 7.0), "{path}: wrote past n");
    }
}

#[test]
fn vector_add_runs_in_place_on_the_cpu() {
    // c is a: the thread loop's run-time overlap check must send the block down the scalar
    // path (or the vector path must give the same values).
    let n = 1000usize;
    let (a, b) = (inputs(n, 5), inputs(n, 6));
    for path in ["examples/vector_add.ptx", "tests/fixtures/ptx/vector_add.nvcc.sm80.ptx"] {
        let spec = serde_json::json!({
            "grid": [4], "block": [256],
            "buffers": { "a": { "type": "f32", "data": a }, "b": { "type": "f32", "data": b } },
            "args": [{ "buffer": "a" }, { "buffer": "b" }, { "buffer": "a" }, { "type": "s32", "value": n }],
        });
        let c = run_and_read(path, &spec, "a");
        for index in 0..n {
            assert_eq!(c[index].to_bits(), (a[index] + b[index]).to_bits(), "{path}: a[{index}]");
        }
    }
}

#[test]
fn vector_add_thread_loop_vectorises_on_the_cpu() {
    // PTX addresses are integers (`add.s64` of a parameter and `mul.wide`): unless they reach
    // LLVM as offsets from the parameter's pointer (`cpu_addresses.rs`), the loop vectoriser
    // cannot bound the accesses and the thread loop stays scalar. x86-64-v3 has the masked
    // loads and stores that the `tid < n` guard needs.
    let description =
        describe("x86_64-unknown-linux-gnu", Some("x86-64-v3"), false).unwrap_or_else(|error| panic!("{error}"));
    for path in ["examples/vector_add.ptx", "tests/fixtures/ptx/vector_add.nvcc.sm80.ptx"] {
        let options = CompileOptions { target: description.clone(), emit: Some(Emit::LlvmIr), optimization: 3 };
        let bytes = compile_source(&read_repository_file(path), "example", &options)
            .unwrap_or_else(|failure| panic!("{path}: {failure:?}"))
            .bytes;
        let ir = String::from_utf8(bytes).unwrap_or_else(|error| panic!("{error}"));
        let entry = ptxr_tests::llvm_function(&ir, "vector_add");
        assert!(entry.contains("vector.body:"), "{path}: no vectorised loop in\n{entry}");
        assert!(entry.contains("@llvm.masked.load.v8f32"), "{path}: no <8 x float> loads in\n{entry}");
        assert!(entry.contains("@llvm.masked.store.v8f32"), "{path}: no <8 x float> store in\n{entry}");
        // The buffers may overlap: the vector path runs only after a run-time check.
        assert!(entry.contains("diff.check"), "{path}: no overlap check in\n{entry}");
    }
}

#[test]
fn saxpy_runs_on_the_cpu_with_a_grid_stride_loop() {
    // 8 x 128 threads for 5000 elements: every thread loops four or five times.
    let n = 5000usize;
    let alpha = 2.5f32;
    let (x, y) = (inputs(n, 3), inputs(n, 4));
    for path in ["examples/saxpy.ptx", "tests/fixtures/ptx/saxpy.nvcc.sm80.ptx"] {
        let spec = serde_json::json!({
            "grid": [8], "block": [128],
            "buffers": { "x": { "type": "f32", "data": x }, "y": { "type": "f32", "data": y } },
            "args": [{ "type": "s32", "value": n }, { "type": "f32", "value": alpha }, { "buffer": "x" }, { "buffer": "y" }],
        });
        let result = run_and_read(path, &spec, "y");
        for index in 0..n {
            // fma.rn.f32 rounds once: f32::mul_add is exactly that.
            let expected = alpha.mul_add(x[index], y[index]);
            assert_eq!(result[index].to_bits(), expected.to_bits(), "{path}: y[{index}]");
        }
    }
}

#[test]
fn spirv_output_passes_spirv_val() {
    for path in EXAMPLES {
        let binary = compile(path, "spirv", None, 2);
        let Some(verdict) = vendor_checks::spirv_val(&binary, "opencl2.2", "examples") else { return };
        if let Err(message) = verdict {
            panic!("{path}: spirv-val: {message}");
        }
    }
}

#[test]
fn amdgpu_code_object_lists_its_kernel() {
    for (path, kernel) in [("examples/vector_add.ptx", "vector_add"), ("examples/saxpy.ptx", "saxpy")] {
        let code_object = compile(path, "amdgpu", None, 2);
        let Some(notes) = vendor_checks::code_object_notes(&code_object, "examples") else { return };
        assert!(notes.contains(&format!(".name:           {kernel}")), "{path}: kernel missing from notes:\n{notes}");
        assert!(
            notes.contains(&format!(".symbol:         {kernel}.kd")),
            "{path}: kernel descriptor missing:\n{notes}"
        );
        assert!(notes.contains("amdhsa.version"), "{path}: not an HSA code object:\n{notes}");
    }
}

#[test]
fn nvptx_output_is_accepted_by_ptxas() {
    for path in EXAMPLES {
        let ptx = compile(path, "nvptx", None, 2);
        let Some(verdict) = vendor_checks::ptxas_accepts(&ptx, "sm_80", "examples-nvptx") else { return };
        if let Err(message) = verdict {
            panic!("{path}: ptxas rejected ptxr's PTX: {message}");
        }
    }
}
