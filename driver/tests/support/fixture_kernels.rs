//! Running a fixture of `tests/fixtures/ptx/` through `ptxr run` and comparing its buffers with
//! a Rust model: the cases of `real_compilers_run.rs`, `library_kernels_run.rs` and
//! `library_primitives_run.rs`.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{ptxr, repository_file};

pub fn fixture(name: &str) -> PathBuf {
    repository_file("tests/fixtures/ptx").join(name)
}

/// What a buffer must hold after the grid.
pub enum Expected {
    /// Exactly these element bit patterns.
    Bits(Vec<u64>),
    /// `f32` values within a relative tolerance.
    F32Near(Vec<f32>, f32),
}

/// One kernel: the fixtures that hold it (one per compiler), its launch spec, and the model's
/// buffers.
pub struct Case {
    pub files: &'static [&'static str],
    pub spec: Value,
    pub expected: Vec<(&'static str, Expected)>,
}

/// Runs `file` with `spec` on `target` and returns the result JSON.
pub fn run(file: &str, spec: &Value, target: &str) -> Result<Value, String> {
    let directory = tempfile::tempdir().map_err(|error| error.to_string())?;
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).map_err(|error| error.to_string())?;
    let path = fixture(file);
    let path = path.to_string_lossy();
    let output = ptxr(&["run", path.as_ref(), "--launch", "spec.json", "--target", target], directory.path());
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    serde_json::from_slice(&output.stdout)
        .map_err(|error| format!("{error}: {}", String::from_utf8_lossy(&output.stdout)))
}

pub fn bits_of(result: &Value, buffer: &str) -> Vec<u64> {
    result["buffers"][buffer]["bits"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|bits| u64::from_str_radix(bits.as_str().unwrap_or_default().trim_start_matches("0x"), 16).unwrap_or(0))
        .collect()
}

/// The problems of one run against the model (empty when it matches).
pub fn compare(result: &Value, expected: &[(&str, Expected)]) -> Vec<String> {
    let mut problems = Vec::new();
    for (buffer, want) in expected {
        let actual = bits_of(result, buffer);
        match want {
            Expected::Bits(bits) => {
                if actual.len() != bits.len() {
                    problems.push(format!("`{buffer}` has {} elements, expected {}", actual.len(), bits.len()));
                } else if let Some(index) = (0..bits.len()).find(|&index| actual[index] != bits[index]) {
                    problems.push(format!(
                        "`{buffer}`[{index}] is {:#x}, the model says {:#x}",
                        actual[index], bits[index]
                    ));
                }
            }
            Expected::F32Near(values, tolerance) => {
                let actual: Vec<f32> = actual.iter().map(|&bits| f32::from_bits(bits as u32)).collect();
                if actual.len() != values.len() {
                    problems.push(format!("`{buffer}` has {} elements, expected {}", actual.len(), values.len()));
                } else if let Some(index) = (0..values.len())
                    .find(|&index| (actual[index] - values[index]).abs() > tolerance * values[index].abs().max(1e-30))
                {
                    problems
                        .push(format!("`{buffer}`[{index}] is {}, the model says {}", actual[index], values[index]));
                }
            }
        }
    }
    problems
}

/// A small deterministic generator (64-bit LCG, xorshift output), so the inputs are fixed.
pub struct Random(pub u64);

impl Random {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let value = self.0 ^ (self.0 >> 29);
        value.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (value >> 32)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// An integer in `low..=high`.
    pub fn integer(&mut self, low: i64, high: i64) -> i64 {
        low + (self.next_u64() % (high - low + 1) as u64) as i64
    }

    /// `count` integers in `low..=high`.
    pub fn integers(&mut self, count: usize, low: i64, high: i64) -> Vec<i64> {
        (0..count).map(|_| self.integer(low, high)).collect()
    }
}

pub fn f32_bits(values: &[f32]) -> Vec<u64> {
    values.iter().map(|value| u64::from(value.to_bits())).collect()
}

pub fn hex(bits: &[u64], digits: usize) -> Vec<String> {
    bits.iter().map(|bits| format!("0x{bits:0digits$x}")).collect()
}

/// Triton's two scratch pointers after a kernel's own parameters, for kernels that use neither.
pub fn with_scratch(mut args: Vec<Value>) -> Value {
    args.push(json!({ "type": "u64", "value": 0 }));
    args.push(json!({ "type": "u64", "value": 0 }));
    Value::Array(args)
}

/// A launch-spec argument naming a buffer.
pub fn buffer(name: &str) -> Value {
    json!({ "buffer": name })
}

/// A launch-spec `.s32` argument.
pub fn s32(value: impl Into<i64>) -> Value {
    json!({ "type": "s32", "value": value.into() })
}

/// Runs every case's files on `target`, but on SPIR-V the files of `not_on_spirv`; returns the
/// number of runs and the problems.
pub fn run_cases(cases: Vec<Case>, target: &str, not_on_spirv: &[&str]) -> (usize, Vec<String>) {
    let mut runs = 0;
    let mut problems = Vec::new();
    for case in cases {
        for file in case.files {
            if target == "spirv" && not_on_spirv.contains(file) {
                continue;
            }
            runs += 1;
            let kernel = case.spec["kernel"].as_str().unwrap_or("(the only kernel)");
            match run(file, &case.spec, target) {
                Err(message) => problems.push(format!("{file} {kernel} on {target}: failed: {message:.600}")),
                Ok(result) => problems.extend(
                    compare(&result, &case.expected)
                        .into_iter()
                        .map(|problem| format!("{file} {kernel} on {target}: {problem}")),
                ),
            }
        }
    }
    (runs, problems)
}
