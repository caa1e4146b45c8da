//! `cargo bench -p ptxr-bench`: each workload's time on ptxr's CPU target against its
//! hand-written Rust version, measured in this process, as ratios (issue 4's targets: 2x for
//! kernels without synchronisation, 4x with barriers or warp operations).
//!
//! Each side of a measurement runs its workload repeatedly until the measured time adds up to
//! at least [`MINIMUM_MEASURED`] (issue 4: "sizes that take at least 100 ms"; the inputs stay a
//! few hundred megabytes, so that the whole benchmark fits in a few gigabytes): the number of
//! repetitions comes from one calibrating run per side, and the time printed is the measured
//! total divided by the repetitions. Only the computation is timed: the hand-written version's
//! allocations, and ptxr's compilation and buffer set-up, are not.
//!
//! `PTXR_BENCH_SCALE` multiplies the problem sizes (default 1); `PTXR_BENCH_RUNS` sets the
//! measurements per side (default 3; the fastest counts).

use std::path::Path;
use std::time::Duration;

use ptxr_bench::{launch_ptxr, worker_count, write_inputs, Measurement, Output, WORKLOADS};

/// The least time each side's measurement adds up to.
const MINIMUM_MEASURED: Duration = Duration::from_millis(100);

fn environment_number(name: &str, default: f64) -> f64 {
    std::env::var(name).ok().and_then(|value| value.parse().ok()).unwrap_or(default)
}

/// How many repetitions of a run that took `once` add up to [`MINIMUM_MEASURED`].
fn repetitions(once: Duration) -> u32 {
    let once = once.as_secs_f64().max(1e-6);
    (MINIMUM_MEASURED.as_secs_f64() / once).ceil().max(1.0) as u32
}

/// `repeats` runs of `run`: the last output, and the total time measured.
fn repeated(repeats: u32, mut run: impl FnMut() -> Result<Output, String>) -> Result<(Output, Duration), String> {
    let mut total = Duration::ZERO;
    let mut last = None;
    for _ in 0..repeats {
        let output = run()?;
        total += output.elapsed;
        last = Some(output);
    }
    last.map(|output| (output, total)).ok_or_else(|| "no run".to_string())
}

/// One workload's best times per run (hand-written, ptxr), the repetitions of each side, and
/// whether every ptxr output equalled the hand-written one.
struct Timing {
    baseline: Duration,
    ptxr: Duration,
    baseline_repeats: u32,
    ptxr_repeats: u32,
    agree: bool,
}

fn measure(measurement: &Measurement, scratch: &Path, runs: usize) -> Result<Timing, String> {
    write_inputs(measurement, scratch)?;
    let baseline = || Ok((measurement.baseline)());
    let ptxr = || launch_ptxr(measurement, scratch);
    // The calibrating runs also warm the caches and the page tables up.
    let (expected, baseline_once) = repeated(1, baseline)?;
    let (output, ptxr_once) = repeated(1, ptxr)?;
    let mut timing = Timing {
        baseline: Duration::MAX,
        ptxr: Duration::MAX,
        baseline_repeats: repetitions(baseline_once),
        ptxr_repeats: repetitions(ptxr_once),
        agree: output.bytes == expected.bytes,
    };
    for _ in 0..runs {
        let (expected, baseline_total) = repeated(timing.baseline_repeats, baseline)?;
        let (output, ptxr_total) = repeated(timing.ptxr_repeats, ptxr)?;
        timing.baseline = timing.baseline.min(baseline_total / timing.baseline_repeats);
        timing.ptxr = timing.ptxr.min(ptxr_total / timing.ptxr_repeats);
        timing.agree &= output.bytes == expected.bytes;
    }
    Ok(timing)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument picks workloads by name.
    let filters: Vec<String> = std::env::args().skip(1).filter(|argument| !argument.starts_with("--")).collect();
    let scale = environment_number("PTXR_BENCH_SCALE", 1.0);
    let runs = environment_number("PTXR_BENCH_RUNS", 3.0).max(1.0) as usize;
    println!("ptxr CPU target vs hand-written Rust ({} worker threads, scale {scale}, best of {runs})", worker_count());
    println!(
        "each side repeats its run until the measured time reaches {} ms; times are per run",
        MINIMUM_MEASURED.as_millis()
    );
    println!(
        "{:<14} {:>10} {:>6} {:>10} {:>6} {:>8} {:>7}  verdict",
        "workload", "rust ms", "runs", "ptxr ms", "runs", "ratio", "target"
    );
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
        let timing = match measure(&measurement, scratch.path(), runs) {
            Ok(timing) => timing,
            Err(error) => {
                println!("{:<14} failed: {error}", workload.name);
                failed = true;
                continue;
            }
        };
        let ratio = timing.ptxr.as_secs_f64() / timing.baseline.as_secs_f64();
        let target = if workload.synchronises { 4.0 } else { 2.0 };
        let verdict = match (timing.agree, ratio <= target) {
            (false, _) => "WRONG RESULT",
            (true, true) => "within target",
            (true, false) => "over target",
        };
        failed |= !timing.agree;
        println!(
            "{:<14} {:>10.1} {:>6} {:>10.1} {:>6} {:>7.2}x {:>6.0}x  {verdict}",
            workload.name,
            timing.baseline.as_secs_f64() * 1000.0,
            timing.baseline_repeats,
            timing.ptxr.as_secs_f64() * 1000.0,
            timing.ptxr_repeats,
            ratio,
            target
        );
    }
    if failed {
        std::process::exit(1);
    }
}
