//! The workloads: each builds its inputs at a given size, the launch of its PTX kernel, and its
//! hand-written Rust version; `run_ptxr` launches the kernel through the driver's library entry.

use std::path::Path;
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

use ptxr_driver::launch::{launch, LaunchFiles};
use ptxr_runtime::LaunchSpec;

use crate::baseline;

/// A kernel argument: a buffer's address or a scalar.
pub enum Argument {
    Buffer(&'static str),
    U32(u32),
    F32(f32),
}

/// One named device buffer with its element type and initial bytes (little-endian).
pub struct Buffer {
    pub name: &'static str,
    pub element: &'static str,
    pub bytes: Vec<u8>,
}

/// What one run produced: the output buffer's bytes and the time of the computation alone.
pub struct Output {
    pub bytes: Vec<u8>,
    pub elapsed: Duration,
}

/// One workload at one size.
pub struct Measurement {
    pub kernel: &'static str,
    pub ptx: &'static str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub buffers: Vec<Buffer>,
    pub arguments: Vec<Argument>,
    /// The buffer whose contents are the result.
    pub output: &'static str,
    /// The hand-written version: computes the output buffer's bytes, timing only the work.
    pub baseline: Box<dyn Fn() -> Output>,
}

pub struct Workload {
    pub name: &'static str,
    /// Whether the kernel synchronises threads (barriers or warp operations): issue 4 holds
    /// those to 4x the hand-written time, the others to 2x.
    pub synchronises: bool,
    /// Builds the workload; `scale` 1.0 is the benchmark size, tests use much less.
    pub build: fn(scale: f64) -> Measurement,
}

pub const WORKLOADS: &[Workload] = &[
    Workload { name: "vector_add", synchronises: false, build: vector_add },
    Workload { name: "saxpy", synchronises: false, build: saxpy },
    Workload { name: "block_reduce", synchronises: true, build: block_reduce },
    Workload { name: "matmul_tiled", synchronises: true, build: matmul_tiled },
    Workload { name: "warp_reduce", synchronises: true, build: warp_reduce },
    Workload { name: "histogram", synchronises: false, build: histogram },
];

/// A deterministic generator (SplitMix64) for inputs.
struct Inputs(u64);

impl Inputs {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut value = self.0;
        value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        value ^ (value >> 31)
    }

    fn u32s(&mut self, count: usize) -> Vec<u32> {
        (0..count).map(|_| (self.next() >> 32) as u32).collect()
    }

    /// Floats in [-1, 1) with few significant bits, so that sums stay well inside f32's range.
    fn f32s(&mut self, count: usize) -> Vec<f32> {
        (0..count).map(|_| ((self.next() >> 52) as f32 - 2048.0) / 2048.0).collect()
    }
}

fn scaled(base: usize, scale: f64, multiple: usize) -> usize {
    (((base as f64 * scale) as usize) / multiple).max(1) * multiple
}

fn f32_bytes(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

fn u32_bytes(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|value| value.to_le_bytes()).collect()
}

/// An output vector whose pages are already mapped, as the runtime's buffers are before it starts
/// the clock: a fresh `vec![0; n]` would take its page faults inside the timed work.
fn touched<T: Copy>(len: usize, value: T) -> Vec<T> {
    let mut values = Vec::with_capacity(len);
    values.resize(len, value);
    std::hint::black_box(&mut values);
    values
}

fn timed<T>(work: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let result = work();
    (result, start.elapsed())
}

fn blocks_for(threads: usize, block: usize) -> u32 {
    u32::try_from(threads.div_ceil(block)).unwrap_or(u32::MAX)
}

fn vector_add(scale: f64) -> Measurement {
    let n = scaled(1 << 25, scale, 256);
    let mut inputs = Inputs(1);
    let (a, b) = (inputs.f32s(n), inputs.f32s(n));
    let buffers = vec![
        Buffer { name: "a", element: "f32", bytes: f32_bytes(&a) },
        Buffer { name: "b", element: "f32", bytes: f32_bytes(&b) },
        Buffer { name: "c", element: "f32", bytes: vec![0; n * 4] },
    ];
    Measurement {
        kernel: "vector_add",
        ptx: include_str!("../../examples/vector_add.ptx"),
        grid: [blocks_for(n, 256), 1, 1],
        block: [256, 1, 1],
        buffers,
        arguments: vec![Argument::Buffer("a"), Argument::Buffer("b"), Argument::Buffer("c"), Argument::U32(n as u32)],
        output: "c",
        baseline: Box::new(move || {
            let mut c = touched(n, 0.0f32);
            let ((), elapsed) = timed(|| baseline::vector_add(&a, &b, &mut c));
            Output { bytes: f32_bytes(&c), elapsed }
        }),
    }
}

fn saxpy(scale: f64) -> Measurement {
    let n = scaled(1 << 25, scale, 256);
    let mut inputs = Inputs(2);
    let (x, y) = (inputs.f32s(n), inputs.f32s(n));
    let a = 1.5f32;
    let buffers = vec![
        Buffer { name: "x", element: "f32", bytes: f32_bytes(&x) },
        Buffer { name: "y", element: "f32", bytes: f32_bytes(&y) },
    ];
    Measurement {
        kernel: "saxpy",
        ptx: include_str!("../../examples/saxpy.ptx"),
        // A grid-stride loop: a fixed grid of 4096 blocks covers any n.
        grid: [4096.min(blocks_for(n, 256)), 1, 1],
        block: [256, 1, 1],
        buffers,
        arguments: vec![Argument::U32(n as u32), Argument::F32(a), Argument::Buffer("x"), Argument::Buffer("y")],
        output: "y",
        baseline: Box::new(move || {
            let mut result = y.clone();
            let ((), elapsed) = timed(|| baseline::saxpy(a, &x, &mut result));
            Output { bytes: f32_bytes(&result), elapsed }
        }),
    }
}

fn block_reduce(scale: f64) -> Measurement {
    // kernels/block_reduce.cu: 256 threads, 16 items each.
    const BLOCK_ITEMS: usize = 256 * 16;
    let blocks = scaled(1 << 13, scale, 1);
    let input = Inputs(3).u32s(blocks * BLOCK_ITEMS);
    let buffers = vec![
        Buffer { name: "input", element: "u32", bytes: u32_bytes(&input) },
        Buffer { name: "sums", element: "u32", bytes: vec![0; blocks * 4] },
    ];
    Measurement {
        kernel: "block_reduce",
        ptx: include_str!("../kernels/block_reduce.ptx"),
        grid: [blocks as u32, 1, 1],
        block: [256, 1, 1],
        buffers,
        arguments: vec![Argument::Buffer("input"), Argument::Buffer("sums")],
        output: "sums",
        baseline: Box::new(move || {
            let mut sums = touched(blocks, 0u32);
            let ((), elapsed) = timed(|| baseline::block_sums(&input, BLOCK_ITEMS, &mut sums));
            Output { bytes: u32_bytes(&sums), elapsed }
        }),
    }
}

fn matmul_tiled(scale: f64) -> Measurement {
    // kernels/matmul_tiled.cu: 16 x 16 tiles, one thread per element.
    let n = scaled(512, scale.sqrt(), 16);
    let mut inputs = Inputs(4);
    let (a, b) = (inputs.f32s(n * n), inputs.f32s(n * n));
    let buffers = vec![
        Buffer { name: "a", element: "f32", bytes: f32_bytes(&a) },
        Buffer { name: "b", element: "f32", bytes: f32_bytes(&b) },
        Buffer { name: "c", element: "f32", bytes: vec![0; n * n * 4] },
    ];
    let tiles = (n / 16) as u32;
    Measurement {
        kernel: "matmul_tiled",
        ptx: include_str!("../kernels/matmul_tiled.ptx"),
        grid: [tiles, tiles, 1],
        block: [16, 16, 1],
        buffers,
        arguments: vec![Argument::Buffer("a"), Argument::Buffer("b"), Argument::Buffer("c"), Argument::U32(n as u32)],
        output: "c",
        baseline: Box::new(move || {
            let mut c = touched(n * n, 0.0f32);
            let ((), elapsed) = timed(|| baseline::matmul_tiled(&a, &b, &mut c, n));
            Output { bytes: f32_bytes(&c), elapsed }
        }),
    }
}

fn warp_reduce(scale: f64) -> Measurement {
    let n = scaled(1 << 25, scale, 256);
    let input = Inputs(5).u32s(n);
    let buffers = vec![
        Buffer { name: "input", element: "u32", bytes: u32_bytes(&input) },
        Buffer { name: "sums", element: "u32", bytes: vec![0; n / 32 * 4] },
    ];
    Measurement {
        kernel: "warp_reduce",
        ptx: include_str!("../kernels/warp_reduce.ptx"),
        grid: [blocks_for(n, 256), 1, 1],
        block: [256, 1, 1],
        buffers,
        arguments: vec![Argument::Buffer("input"), Argument::Buffer("sums")],
        output: "sums",
        baseline: Box::new(move || {
            let mut sums = touched(n / 32, 0u32);
            let ((), elapsed) = timed(|| baseline::block_sums(&input, 32, &mut sums));
            Output { bytes: u32_bytes(&sums), elapsed }
        }),
    }
}

fn histogram(scale: f64) -> Measurement {
    let n = scaled(1 << 26, scale, 256);
    let mut inputs = Inputs(6);
    // Bytes from a skewed distribution (the minimum of two uniform bytes), so that some bins
    // are hot, as in real histograms.
    let input: Vec<u8> = (0..n)
        .map(|_| {
            let value = inputs.next();
            (value as u8).min((value >> 8) as u8)
        })
        .collect();
    let buffers = vec![
        Buffer { name: "input", element: "u8", bytes: input.clone() },
        Buffer { name: "bins", element: "u32", bytes: vec![0; 256 * 4] },
    ];
    Measurement {
        kernel: "histogram",
        ptx: include_str!("../kernels/histogram.ptx"),
        grid: [1024.min(blocks_for(n, 256)), 1, 1],
        block: [256, 1, 1],
        buffers,
        arguments: vec![Argument::Buffer("input"), Argument::Buffer("bins"), Argument::U32(n as u32)],
        output: "bins",
        baseline: Box::new(move || {
            let bins: Vec<AtomicU32> = (0..256).map(|_| AtomicU32::new(0)).collect();
            let ((), elapsed) = timed(|| baseline::histogram(&input, &bins));
            let counts: Vec<u32> = bins.iter().map(|bin| bin.load(std::sync::atomic::Ordering::Relaxed)).collect();
            Output { bytes: u32_bytes(&counts), elapsed }
        }),
    }
}

/// Launches the measurement's kernel on the CPU target through `ptxr_driver::launch` (inputs and
/// outputs through files, as `ptxr run --dump-dir` does with large buffers) and returns the
/// output buffer and the grid's time as the runtime reports it (`elapsed_ms`).
pub fn run_ptxr(measurement: &Measurement, scratch: &Path) -> Result<Output, String> {
    write_inputs(measurement, scratch)?;
    launch_ptxr(measurement, scratch)
}

/// Writes the measurement's buffers into `scratch`, where [`launch_ptxr`] reads them.
pub fn write_inputs(measurement: &Measurement, scratch: &Path) -> Result<(), String> {
    for buffer in &measurement.buffers {
        let file = format!("{}.in", buffer.name);
        std::fs::write(scratch.join(&file), &buffer.bytes).map_err(|error| format!("{file}: {error}"))?;
    }
    Ok(())
}

/// [`run_ptxr`] with the inputs already in `scratch` ([`write_inputs`]).
pub fn launch_ptxr(measurement: &Measurement, scratch: &Path) -> Result<Output, String> {
    let mut buffers = serde_json::Map::new();
    for buffer in &measurement.buffers {
        let file = format!("{}.in", buffer.name);
        buffers.insert(buffer.name.to_string(), serde_json::json!({ "type": buffer.element, "file": file }));
    }
    let arguments: Vec<serde_json::Value> = measurement
        .arguments
        .iter()
        .map(|argument| match argument {
            Argument::Buffer(name) => serde_json::json!({ "buffer": name }),
            Argument::U32(value) => serde_json::json!({ "type": "u32", "value": value }),
            Argument::F32(value) => serde_json::json!({ "type": "f32", "value": value }),
        })
        .collect();
    let spec = serde_json::json!({
        "kernel": measurement.kernel,
        "grid": measurement.grid,
        "block": measurement.block,
        "buffers": buffers,
        "args": arguments,
    });
    let spec = LaunchSpec::from_json(&spec.to_string()).map_err(|error| error.to_string())?;
    let dump = scratch.join("out");
    let files = LaunchFiles { spec_directory: scratch, dump_directory: Some(&dump), printf_output: None };
    // -O2, as `ptxr run` compiles by default.
    let (json, _warnings) = launch(measurement.ptx, "kernel.ptx", &spec, &files, 2)
        .map_err(|failure| format!("{} failed: {failure:?}", measurement.kernel))?;
    let report: serde_json::Value = serde_json::from_str(&json).map_err(|error| error.to_string())?;
    let elapsed_ms = report["elapsed_ms"].as_f64().ok_or("no elapsed_ms in the result")?;
    let output = dump.join(format!("{}.bin", measurement.output));
    let bytes = std::fs::read(&output).map_err(|error| format!("{}: {error}", output.display()))?;
    Ok(Output { bytes, elapsed: Duration::from_secs_f64(elapsed_ms / 1000.0) })
}
