//! PTX taken out of CUDA binaries (`tests/fixtures/binaries/`, built by nvcc) compiles for every
//! target and runs on the CPU with the values an independent model gives. That the extracted
//! text is exactly cuobjdump's is checked in `frontend/tests/binary_container.rs`.

use ptxr_driver::launch::{launch, LaunchFiles};
use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_frontend::binary::{read_binary, CudaBinary};
use ptxr_runtime::LaunchSpec;
use ptxr_tests::vendor_checks;
use ptxr_tests::{repository_root, Random};

fn read_fixture(name: &str) -> CudaBinary {
    let path = repository_root().join("tests/fixtures/binaries").join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
    read_binary(&bytes).unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// The one PTX module ptxr chooses from a fixture whose kernels are in one fat binary.
fn chosen_text(binary: &CudaBinary) -> String {
    let chosen = binary.chosen_ptx().unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(chosen.len(), 1, "one module with PTX");
    chosen[0].1.ptx_text().unwrap_or_default().to_string()
}

/// Runs `kernel` of `ptx` on the CPU with a launch spec in JSON; returns the named buffer's bits.
fn run(ptx: &str, spec: &serde_json::Value, buffer: &str) -> Vec<u64> {
    let spec = LaunchSpec::from_json(&spec.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let root = repository_root();
    let files = LaunchFiles { spec_directory: &root, dump_directory: None, printf_output: None };
    let (json, _) = launch(ptx, "extracted.ptx", &spec, &files, 2).unwrap_or_else(|failure| panic!("{failure:?}"));
    let output: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|error| panic!("{error}: {json}"));
    let bits = output["buffers"][buffer]["bits"].as_array().cloned().unwrap_or_default();
    bits.iter()
        .map(|bits| {
            u64::from_str_radix(bits.as_str().unwrap_or_default().trim_start_matches("0x"), 16).unwrap_or(u64::MAX)
        })
        .collect()
}

const FIXTURES_WITH_KERNELS: [&str; 10] = [
    "libkernels.so",
    "libkernels.compress-all.so",
    "libkernels.lz4.so",
    "kernels.fatbin",
    "kernels.concat.fatbin",
    "kernels.sm_90a.fatbin",
    "kernels.lto.fatbin",
    "kernels.o",
    "kernels.rdc.o",
    "kernels.clang.o",
];

#[test]
fn extracted_ptx_compiles_for_every_target() {
    for name in FIXTURES_WITH_KERNELS.iter().chain(&["square"]) {
        let text = chosen_text(&read_fixture(name));
        for target_name in ["cpu", "nvptx", "amdgpu", "spirv"] {
            let target = describe(target_name, None, false).unwrap_or_else(|error| panic!("{error}"));
            let options = CompileOptions { target, emit: None, optimization: 2 };
            let artifact = compile_source(&text, name, &options)
                .unwrap_or_else(|failure| panic!("{name} for {target_name}: {failure:?}"));
            assert!(!artifact.bytes.is_empty() && artifact.warnings.is_empty(), "{name}");
        }
    }
}

#[test]
fn scale_add_from_every_binary_computes_one_rounded_fma() {
    let mut random = Random::new(6);
    let n = 200u32;
    let x: Vec<f32> = (0..n).map(|_| f32::from_bits(random.next_u32() & 0x4fff_ffff)).collect();
    let y: Vec<f32> = (0..n).map(|_| f32::from_bits(random.next_u32() & 0xcfff_ffff)).collect();
    let a = 1.375f32;
    // nvcc contracted `a * x[i] + y[i]` into `fma.rn.f32` (the PTX in every fixture), which rounds
    // once: f32::mul_add. The last 8 elements lie past `n` and stay as they were.
    let mut expected: Vec<u64> = (0..n as usize).map(|i| u64::from(x[i].mul_add(a, y[i]).to_bits())).collect();
    let spec = |count: u32| {
        serde_json::json!({
            "kernel": "scale_add",
            "grid": [(count + 8).div_ceil(64)],
            "block": [64],
            "buffers": {
                "x": { "type": "f32", "bits": x.iter().map(|v| format!("0x{:08x}", v.to_bits())).collect::<Vec<_>>() },
                "y": { "type": "f32", "bits": y.iter().map(|v| format!("0x{:08x}", v.to_bits())).collect::<Vec<_>>() },
            },
            "args": [{ "buffer": "x" }, { "buffer": "y" }, { "type": "f32", "value": a }, { "type": "u32", "value": count }],
        })
    };
    let limit = n - 8;
    expected.truncate(limit as usize);
    expected.extend(y[limit as usize..].iter().map(|v| u64::from(v.to_bits())));
    for name in FIXTURES_WITH_KERNELS {
        let text = chosen_text(&read_fixture(name));
        assert_eq!(run(&text, &spec(limit), "y"), expected, "{name}");
    }
    // A static library: each member's module on its own.
    let archive = read_fixture("libkernels_static.a");
    let chosen = archive.chosen_ptx().unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(chosen.len(), 3);
    for (module, entry) in chosen {
        let text = entry.ptx_text().unwrap_or_default();
        assert_eq!(run(text, &spec(limit), "y"), expected, "libkernels_static.a, {:?}", module.member);
    }
}

#[test]
fn mix_bits_and_square_match_their_models() {
    let mut random = Random::new(7);
    let input = random.u32_with_edges(300);
    let n = input.len() as u32;
    let model = |i: usize| {
        let v = input[i].wrapping_mul(2_654_435_761);
        u64::from((v ^ (v >> 13)).wrapping_add(i as u32))
    };
    let expected: Vec<u64> = (0..input.len()).map(model).collect();
    let spec = serde_json::json!({
        "kernel": "mix_bits",
        "grid": [n.div_ceil(128)],
        "block": [128],
        "buffers": { "in": { "type": "u32", "data": input }, "out": { "type": "u32", "len": n } },
        "args": [{ "buffer": "in" }, { "buffer": "out" }, { "type": "u32", "value": n }],
    });
    let text = chosen_text(&read_fixture("libkernels.lz4.so"));
    assert_eq!(run(&text, &spec, "out"), expected);

    // The executable's kernel squares in place with 32-bit wrap-around.
    let values: Vec<i32> = vec![0, 1, -2, 46_341, -46_341, i32::MAX, i32::MIN, 12_345];
    let expected: Vec<u64> = values.iter().map(|v| u64::from(v.wrapping_mul(*v) as u32)).collect();
    let spec = serde_json::json!({
        "grid": [2], "block": [4],
        "buffers": { "v": { "type": "s32", "data": values } },
        "args": [{ "buffer": "v" }, { "type": "s32", "value": values.len() }],
    });
    let text = chosen_text(&read_fixture("square"));
    assert_eq!(run(&text, &spec, "v"), expected);
}

#[test]
fn ptx_retargeted_from_binaries_is_accepted_by_ptxas() {
    for name in ["libkernels.lz4.so", "kernels.concat.fatbin", "square"] {
        let text = chosen_text(&read_fixture(name));
        let target = describe("nvptx", Some("sm_90"), false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target, emit: None, optimization: 2 };
        let artifact = compile_source(&text, name, &options).unwrap_or_else(|failure| panic!("{name}: {failure:?}"));
        let Some(verdict) = vendor_checks::ptxas_accepts(&artifact.bytes, "sm_90", "binaries") else { return };
        if let Err(message) = verdict {
            panic!("{name}: {message}");
        }
    }
}
