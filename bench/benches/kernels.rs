//! `cargo bench -p ptxr-bench`: each workload's time on ptxr's CPU target against its
//! hand-written Rust version, measured in this process, as ratios (issue 4's targets: 2x for
//! kernels without synchronisation, 4x with barriers or warp operations).
//!
//! `PTXR_BENCH_SCALE` multiplies the problem sizes (default 1); `PTXR_BENCH_RUNS` sets the runs
//! per side (default 3; the fastest counts).

use std::time::Duration;

use ptxr_bench::{run_ptxr, worker_count, WORKLOADS};

fn environment_number(name: &str, default: f64) -> f64 {
    std::env::var(name).ok().and_then(|value| value.parse().ok()).unwrap_or(default)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks workloads by name.
    let filters: Vec<String> = std::env::args().skip(1).filter(|argument| !argument.starts_with("--")).collect();
    let scale = environment_number("PTXR_BENCH_SCALE", 1.0);
    let runs = environment_number("PTXR_BENCH_RUNS", 3.0).max(1.0) as usize;
    println!("ptxr CPU target vs hand-written Rust ({} worker threads, scale {scale}, best of {runs})", worker_count());
    println!("{:<14} {:>12} {:>12} {:>8} {:>7}  verdict", "workload", "rust ms", "ptxr ms", "ratio", "target");
    let mut failed = false;
    for workload in WORKLOADS {
        if !filters.is_empty() && !filters.iter().any(|filter| workload.name.contains(filter.as_str())) {
            continue;
        }
        let measurement = (workload.build)(scale);
        let scratch = match tempfile::tempdir() {
            Ok(scratch) => scratch,
            Err(error) => {
                eprintln!("no temporary folder: {error}");
                std::process::exit(1);
            }
        };
        let mut best_baseline = Duration::MAX;
        let mut best_ptxr = Duration::MAX;
        let mut agree = true;
        for _ in 0..runs {
            let expected = (measurement.baseline)();
            best_baseline = best_baseline.min(expected.elapsed);
            match run_ptxr(&measurement, scratch.path()) {
                Ok(ptxr) => {
                    best_ptxr = best_ptxr.min(ptxr.elapsed);
                    agree &= ptxr.bytes == expected.bytes;
                }
                Err(error) => {
                    println!("{:<14} failed: {error}", workload.name);
                    failed = true;
                    agree = false;
                    break;
                }
            }
        }
        if best_ptxr == Duration::MAX {
            continue;
        }
        let ratio = best_ptxr.as_secs_f64() / best_baseline.as_secs_f64();
        let target = if workload.synchronises { 4.0 } else { 2.0 };
        let verdict = match (agree, ratio <= target) {
            (false, _) => "WRONG RESULT",
            (true, true) => "within target",
            (true, false) => "over target",
        };
        failed |= !agree;
        println!(
            "{:<14} {:>12.1} {:>12.1} {:>7.2}x {:>6.0}x  {verdict}",
            workload.name,
            best_baseline.as_secs_f64() * 1000.0,
            best_ptxr.as_secs_f64() * 1000.0,
            ratio,
            target
        );
    }
    if failed {
        std::process::exit(1);
    }
}
