//! Workspace-level tests of ptxr: snapshots of the LLVM IR of each example on each target,
//! execution of the examples on the CPU with values computed by the tests themselves, external
//! validators on the GPU targets' output, and the generated coverage table. The tests live in
//! `tests/tests/`; this library holds what they share.
//!
//! Execution tests run small PTX kernels on the CPU through `run`/`run_ok` with buffers given
//! as element bit patterns, and compare with values computed by an independent Rust model of
//! the instruction (never with ptxr's own earlier output).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ptxr_driver::launch::{launch, LaunchFiles};
use ptxr_runtime::device_library::PrintfOutput;
use ptxr_runtime::LaunchSpec;

pub mod lane_kernel;
pub mod opencl;
mod ptx_text;
pub mod vendor_checks;

pub use ptx_text::{assertfail_call, printf_kernel, string_global, ASSERTFAIL_DECLARATION};

/// The repository root.
pub fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Reads a file of the repository as text.
pub fn read_repository_file(relative: &str) -> String {
    let path = repository_root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

/// An external validator (spirv-val, llvm-readelf, ptxas). `None` when it is not installed and
/// the run does not require validators; CI sets `PTXR_REQUIRE_VALIDATORS=1` so that a missing
/// tool fails instead of skipping.
pub fn validator(candidates: &[&str]) -> Option<PathBuf> {
    for candidate in candidates {
        let path = PathBuf::from(candidate);
        if path.is_absolute() && path.exists() {
            return Some(path);
        }
        if !path.is_absolute() {
            if let Ok(output) = std::process::Command::new("which").arg(candidate).output() {
                if output.status.success() {
                    return Some(PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()));
                }
            }
        }
    }
    if std::env::var("PTXR_REQUIRE_VALIDATORS").is_ok_and(|value| value == "1") {
        panic!(
            "validator {candidates:?} is required (PTXR_REQUIRE_VALIDATORS=1) but not installed; run scripts/setup.sh"
        );
    }
    eprintln!("skipping: validator {candidates:?} is not installed");
    None
}

/// NVIDIA's assembler: the copy fetched into `.cache`, else `ptxas` on the PATH (see [`validator`]).
pub fn ptxas() -> Option<PathBuf> {
    let cached = repository_root().join(".cache/ptxas-cu12/nvidia/cuda_nvcc/bin/ptxas");
    validator(&[cached.to_string_lossy().as_ref(), "ptxas"])
}

/// LLVM 22's `llvm-readelf` (see [`validator`]).
pub fn llvm_readelf() -> Option<PathBuf> {
    validator(&["/usr/lib/llvm-22/bin/llvm-readelf", "llvm-readelf-22"])
}

/// One device buffer: its PTX element type (`u32`, `f32`, `b64`, ...) and its elements' bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    pub element: &'static str,
    pub bits: Vec<u64>,
}

impl Buffer {
    pub fn new(element: &'static str, bits: Vec<u64>) -> Buffer {
        Buffer { element, bits }
    }

    /// `len` zeroed elements.
    pub fn zeroed(element: &'static str, len: usize) -> Buffer {
        Buffer { element, bits: vec![0; len] }
    }

    pub fn u32s(values: &[u32]) -> Buffer {
        Buffer::new("u32", values.iter().map(|&value| u64::from(value)).collect())
    }

    pub fn u64s(values: &[u64]) -> Buffer {
        Buffer::new("u64", values.to_vec())
    }

    pub fn f32s(values: &[f32]) -> Buffer {
        Buffer::new("f32", values.iter().map(|value| u64::from(value.to_bits())).collect())
    }

    pub fn f64s(values: &[f64]) -> Buffer {
        Buffer::new("f64", values.iter().map(|value| value.to_bits()).collect())
    }
}

/// A launch: the grid and block shape, dynamic shared memory, and the kernel to run.
#[derive(Clone, Debug)]
pub struct Launch<'a> {
    pub kernel: Option<&'a str>,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
}

impl Default for Launch<'_> {
    fn default() -> Self {
        Launch { kernel: None, grid: [1, 1, 1], block: [1, 1, 1], shared_bytes: 0 }
    }
}

impl<'a> Launch<'a> {
    /// `threads` threads in one block.
    pub fn threads(threads: u32) -> Launch<'a> {
        Launch { block: [threads, 1, 1], ..Launch::default() }
    }
}

fn element_digits(element: &str) -> usize {
    match element {
        "b8" | "u8" | "s8" => 2,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 4,
        "b32" | "u32" | "s32" | "f32" => 8,
        _ => 16,
    }
}

/// Runs `ptx` with every kernel parameter bound, in order, to the address of one of `buffers`,
/// and returns every buffer's bits after the grid has finished.
pub fn run(ptx: &str, launch_shape: &Launch<'_>, buffers: &[Buffer]) -> Result<Vec<Vec<u64>>, String> {
    run_with_printf(ptx, launch_shape, buffers, None)
}

/// `run`, with the kernel's `printf` text going to `printf_output`.
pub fn run_with_printf(
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
    printf_output: Option<PrintfOutput>,
) -> Result<Vec<Vec<u64>>, String> {
    launch_on_cpu(ptx, launch_shape, buffers, &[], printf_output)
}

/// The CPU launch behind `run_with_printf` and `run_with_scalars_ok`: the kernel parameters
/// bound to `buffers` and then to `scalars`, in order.
fn launch_on_cpu(
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
    scalars: &[Scalar],
    printf_output: Option<PrintfOutput>,
) -> Result<Vec<Vec<u64>>, String> {
    let spec = launch_spec_json(launch_shape, buffers, scalars);
    let spec = LaunchSpec::from_json(&spec.to_string()).map_err(|error| error.to_string())?;
    let root = repository_root();
    let files = LaunchFiles { spec_directory: &root, dump_directory: None, printf_output };
    let (json, _) = launch(ptx, "test.ptx", &spec, &files, 2).map_err(|failure| format!("{failure:?}"))?;
    buffers_from_json(&json, buffers.len())
}

/// Runs `ptx` like `run`; returns the text its `printf` calls wrote (also when the launch
/// failed) and the launch's outcome.
pub fn run_printing(
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
) -> (String, Result<Vec<Vec<u64>>, String>) {
    let text = Arc::new(Mutex::new(Vec::<u8>::new()));
    let output: PrintfOutput = text.clone();
    let result = run_with_printf(ptx, launch_shape, buffers, Some(output));
    let bytes = text.lock().map(|bytes| bytes.clone()).unwrap_or_default();
    (String::from_utf8_lossy(&bytes).into_owned(), result)
}

/// `run`, panicking with the failure: for tests.
pub fn run_ok(ptx: &str, launch_shape: &Launch<'_>, buffers: &[Buffer]) -> Vec<Vec<u64>> {
    run(ptx, launch_shape, buffers).unwrap_or_else(|failure| panic!("launch failed: {failure}\n{ptx}"))
}

/// A scalar kernel argument: its PTX type (`u32`, `f32`, ...) and its value.
#[derive(Clone, Copy, Debug)]
pub struct Scalar {
    pub ty: &'static str,
    pub value: u64,
}

/// `run_ok`, with the kernel parameters that follow the buffers' bound, in order, to `scalars`.
pub fn run_with_scalars_ok(
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
    scalars: &[Scalar],
) -> Vec<Vec<u64>> {
    launch_on_cpu(ptx, launch_shape, buffers, scalars, None)
        .unwrap_or_else(|failure| panic!("launch failed: {failure}\n{ptx}"))
}

/// The launch spec (LAUNCH_SPEC.md) that binds the kernel parameters, in order, to `buffers`,
/// named `b0`, `b1`, ..., and then to `scalars`.
fn launch_spec_json(launch_shape: &Launch<'_>, buffers: &[Buffer], scalars: &[Scalar]) -> serde_json::Value {
    let mut buffer_specs = serde_json::Map::new();
    let mut args = Vec::new();
    for (index, buffer) in buffers.iter().enumerate() {
        let name = format!("b{index}");
        let digits = element_digits(buffer.element);
        let bits: Vec<String> = buffer.bits.iter().map(|bits| format!("0x{bits:0digits$x}")).collect();
        buffer_specs.insert(name.clone(), serde_json::json!({ "type": buffer.element, "bits": bits }));
        args.push(serde_json::json!({ "buffer": name }));
    }
    for scalar in scalars {
        args.push(serde_json::json!({ "type": scalar.ty, "value": scalar.value }));
    }
    let mut spec = serde_json::json!({
        "grid": launch_shape.grid,
        "block": launch_shape.block,
        "shared_bytes": launch_shape.shared_bytes,
        "buffers": buffer_specs,
        "args": args,
    });
    if let Some(kernel) = launch_shape.kernel {
        spec["kernel"] = serde_json::json!(kernel);
    }
    spec
}

/// The bits of buffers `b0` to `b{count - 1}` in a launch's result JSON.
pub fn buffers_from_json(json: &str, count: usize) -> Result<Vec<Vec<u64>>, String> {
    let output: serde_json::Value = serde_json::from_str(json).map_err(|error| format!("{error}: {json}"))?;
    (0..count)
        .map(|index| {
            let bits = output["buffers"][format!("b{index}")]["bits"]
                .as_array()
                .ok_or_else(|| format!("no bits for buffer b{index}: {json}"))?;
            bits.iter()
                .map(|bits| {
                    let text = bits.as_str().unwrap_or_default().trim_start_matches("0x");
                    u64::from_str_radix(text, 16).map_err(|error| format!("{error}: {text}"))
                })
                .collect()
        })
        .collect()
}

/// A small deterministic generator (64-bit LCG with an xorshift output) for property tests:
/// the suite stays reproducible without a dependency.
#[derive(Clone, Debug)]
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Random {
        Random(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let mut value = self.0;
        value ^= value >> 33;
        value = value.wrapping_mul(0xff51_afd7_ed55_8ccd);
        value ^ (value >> 33)
    }

    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// `count` values of `next_u32`.
    pub fn u32s(&mut self, count: usize) -> Vec<u32> {
        (0..count).map(|_| self.next_u32()).collect()
    }

    /// Random values mixed with the edge values every family must get right.
    pub fn u32_with_edges(&mut self, count: usize) -> Vec<u32> {
        let edges = [0, 1, 2, 31, 32, 33, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff];
        let mut values: Vec<u32> = edges.to_vec();
        values.extend((edges.len()..count).map(|_| self.next_u32()));
        values.truncate(count.max(edges.len()));
        values
    }

    pub fn u64_with_edges(&mut self, count: usize) -> Vec<u64> {
        let edges =
            [0, 1, 63, 64, 65, 0x7fff_ffff_ffff_ffff, 0x8000_0000_0000_0000, 0xffff_ffff_ffff_ffff, 0xffff_ffff];
        let mut values: Vec<u64> = edges.to_vec();
        values.extend((edges.len()..count).map(|_| self.next_u64()));
        values.truncate(count.max(edges.len()));
        values
    }
}

/// The LLVM IR module of `ptx` compiled for x86-64 at `optimization` (what the CPU runtime
/// runs); panics when the compilation fails.
pub fn cpu_llvm_ir(ptx: &str, optimization: u8) -> String {
    let description = ptxr_driver::target::describe("x86_64-unknown-linux-gnu", None, false)
        .unwrap_or_else(|error| panic!("{error}"));
    let options =
        ptxr_driver::CompileOptions { target: description, emit: Some(ptxr_lowering::Emit::LlvmIr), optimization };
    let artifact = ptxr_driver::compile_source(ptx, "cpu", &options).unwrap_or_else(|failure| panic!("{failure:?}"));
    String::from_utf8(artifact.bytes).unwrap_or_else(|error| panic!("{error}"))
}

/// The text of the LLVM function `name` in the module `ir`, from its name to its closing brace.
pub fn llvm_function<'a>(ir: &'a str, name: &str) -> &'a str {
    let start = ir.find(&format!("@{name}(")).unwrap_or_else(|| panic!("no @{name} in\n{ir}"));
    let end = ir[start..].find("\n}\n").map_or(ir.len(), |end| start + end);
    &ir[start..end]
}

/// Whether this run forces LLVM coroutines on CPU kernels that wait in their body
/// (`PTXR_CPU_WAITS=coroutines`) instead of the default work-item loops.
pub fn cpu_waits_forced_to_coroutines() -> bool {
    std::env::var("PTXR_CPU_WAITS").is_ok_and(|value| value == "coroutines")
}
