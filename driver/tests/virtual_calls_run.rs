//! Indirect calls as C++ writes them (`tests/fixtures/ptx/src/virtual_calls.cu`): a table of
//! `__device__` function pointers, virtual functions through vtables of objects in `.local`
//! memory whose generic addresses are passed as `this`, and recursion, from nvcc (`-O3`, `-G`)
//! and clang. Each runs through `ptxr run` on the CPU, and on SPIR-V through OpenCL when a
//! device is there, against a Rust model of its source.

use serde_json::json;

mod support;
use support::fixture_kernels::{f32_bits, run_cases, Case, Expected, Random};
use support::opencl_device_available;

const FILES: &[&str] =
    &["virtual_calls.nvcc.sm80.ptx", "virtual_calls.nvcc.sm80.debug.ptx", "virtual_calls.clang.sm90.ptx"];

fn fibonacci(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fibonacci(n - 1) + fibonacci(n - 2)
    }
}

fn ackermann(m: u64, n: u64) -> u64 {
    match (m, n) {
        (0, n) => n + 1,
        (m, 0) => ackermann(m - 1, 1),
        (m, n) => ackermann(m - 1, ackermann(m, n - 1)),
    }
}

/// `apply_ops`: thread `i` applies `op_table[which % 3]` (twice, square, negate) twice to its
/// input, computes `fib(i % 16)` and `ackermann(i % 3, i % 5)`, and asks a `Square` (odd
/// `which`) or a `Rect` of width 3 for its area through a virtual call. Inputs are quarters
/// below 5 in magnitude, so every product is exact.
fn apply_ops(random: &mut Random) -> Case {
    let n = 100;
    let inputs: Vec<f32> = (0..n).map(|_| random.integer(-20, 20) as f32 / 4.0).collect();
    let which: Vec<i64> = random.integers(n, 0, 50);
    let operations: [fn(f32) -> f32; 3] = [|x| 2.0 * x, |x| x * x, |x| -x];
    let out: Vec<f32> = inputs
        .iter()
        .zip(&which)
        .map(|(&x, &which)| {
            let operation = operations[which as usize % 3];
            operation(operation(x))
        })
        .collect();
    let areas: Vec<f32> =
        inputs.iter().zip(&which).map(|(&x, &which)| if which & 1 == 1 { x * x } else { x * 3.0 }).collect();
    let fibonaccis: Vec<u64> = (0..n as u64).map(|i| fibonacci(i % 16)).collect();
    let ackermanns: Vec<u64> = (0..n as u64).map(|i| ackermann(i % 3, i % 5)).collect();
    Case {
        files: FILES,
        spec: json!({
            "kernel": "apply_ops", "grid": [2], "block": [64],
            "buffers": {
                "in": { "type": "f32", "data": inputs }, "which": { "type": "s32", "data": which },
                "out": { "type": "f32", "len": n }, "fibs": { "type": "s32", "len": n },
                "ack": { "type": "u64", "len": n }, "areas": { "type": "f32", "len": n },
            },
            "args": [
                { "buffer": "in" }, { "buffer": "which" }, { "buffer": "out" }, { "buffer": "fibs" },
                { "buffer": "ack" }, { "buffer": "areas" }, { "type": "s32", "value": n },
            ],
        }),
        expected: vec![
            ("out", Expected::Bits(f32_bits(&out))),
            ("fibs", Expected::Bits(fibonaccis)),
            ("ack", Expected::Bits(ackermanns)),
            ("areas", Expected::Bits(f32_bits(&areas))),
        ],
    }
}

/// nvcc's `-O3` build picks `this` (a `Square` or a `Rect` in the thread's `.local` depot) with
/// a `select` of two generic addresses before the virtual call. ptxr's SPIR-V gives the right
/// areas with Intel's OpenCL CPU runtime when its vectorizer is off
/// (`CL_CONFIG_CPU_VECTORIZER_MODE=1`, or work-groups of 8) and `Rect`'s area 0 or garbage when
/// it vectorizes work-groups of 16 or more: the runtime's vectorizer loses the per-work-item
/// private addresses of that select. The `-G` and clang builds run there.
const NOT_ON_SPIRV: &[&str] = &["virtual_calls.nvcc.sm80.ptx"];

#[test]
fn virtual_calls_match_their_model_on_the_cpu() {
    let (runs, problems) = run_cases(vec![apply_ops(&mut Random(0x5eed_0ca1))], "cpu", &[]);
    assert!(runs >= 3, "expected every fixture, ran {runs}");
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}

#[test]
fn virtual_calls_match_their_model_through_opencl() {
    if !opencl_device_available() {
        return;
    }
    let (runs, problems) = run_cases(vec![apply_ops(&mut Random(0x5eed_0ca1))], "spirv", NOT_ON_SPIRV);
    assert!(problems.is_empty(), "{} of {runs} runs differ from the model:\n{}", problems.len(), problems.join("\n"));
}
