//! Execution tests on SPIR-V through an OpenCL runtime (in CI, Intel's CPU runtime from
//! scripts/setup-opencl.sh), for comparing a GPU target with the same models as the CPU.
//!
//! The library API documents one OpenCL launch per process (Intel's runtime carries its own
//! LLVM; see docs/ARCHITECTURE.md, "Not done yet"), so each launch runs in a child process: the
//! test binary itself, started on one test that serves it ([`serve_child`], which a test binary
//! using [`run_ok`] must call from a test of its own), with the kernel and its launch spec in a
//! scratch folder.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use ptxr_driver::launch::{launch_on, LaunchFiles, LaunchTarget};
use ptxr_runtime::LaunchSpec;

use crate::{buffers_from_json, launch_spec_json, Buffer, Launch};

/// The folder a child process launches from; set only in the child.
const CHILD: &str = "PTXR_TESTS_OPENCL_CHILD";
/// Starts the child's result JSON on stdout (the test harness prints its own lines too).
const MARKER: &str = "ptxr-tests-opencl-result:";
/// The file in the child's folder that says how many times to launch the kernel.
const LAUNCH_COUNT: &str = "launches";

/// Whether OpenCL launches can be tried: `OCL_ICD_VENDORS` names the platforms (as scripts/test.sh
/// and the README's set-up export it). Without it the tests skip, unless every validator is
/// required (`PTXR_REQUIRE_VALIDATORS=1`), which makes a missing platform a failure.
pub fn available() -> bool {
    if std::env::var_os("OCL_ICD_VENDORS").is_some() {
        return true;
    }
    if std::env::var("PTXR_REQUIRE_VALIDATORS").is_ok_and(|value| value == "1") {
        panic!("OpenCL is required (PTXR_REQUIRE_VALIDATORS=1) but OCL_ICD_VENDORS is not set: run scripts/setup-opencl.sh");
    }
    eprintln!("skipping the OpenCL runs: OCL_ICD_VENDORS is not set");
    false
}

/// Runs `ptx` compiled for SPIR-V on the first OpenCL device, with every kernel parameter bound,
/// in order, to one of `buffers`, and returns every buffer's bits afterwards; panics with the
/// failure. `child_test` is the name of the test in this binary that calls [`serve_child`].
pub fn run_ok(ptx: &str, launch_shape: &Launch<'_>, buffers: &[Buffer], child_test: &str) -> Vec<Vec<u64>> {
    run(ptx, launch_shape, buffers, child_test).unwrap_or_else(|failure| panic!("{failure}\n{ptx}"))
}

/// Where an execution test runs a kernel.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Device {
    /// ptxr's CPU target ([`crate::run_ok`]).
    Cpu,
    /// SPIR-V on the first OpenCL device, one launch per child process ([`run_ok`]).
    OpenCl,
}

/// Runs `ptx` on `device`, as [`crate::run_ok`] or [`run_ok`] does; `child_test` as for
/// [`run_ok`].
pub fn run_ok_on(
    device: Device,
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
    child_test: &str,
) -> Vec<Vec<u64>> {
    match device {
        Device::Cpu => crate::run_ok(ptx, launch_shape, buffers),
        Device::OpenCl => run_ok(ptx, launch_shape, buffers, child_test),
    }
}

/// Runs `ptx` on the CPU and, where OpenCL is set up ([`available`]), compiled for SPIR-V
/// through OpenCL, as [`crate::run_ok`] and [`run_ok`] do; returns each device's name (`cpu`,
/// `spirv`) and buffers, for comparing both with one model.
pub fn run_everywhere(
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
    child_test: &str,
) -> Vec<(&'static str, Vec<Vec<u64>>)> {
    let mut results = vec![("cpu", crate::run_ok(ptx, launch_shape, buffers))];
    if available() {
        results.push(("spirv", run_ok(ptx, launch_shape, buffers, child_test)));
    }
    results
}

/// As [`run_ok`], but a launch that fails gives the child process's output, which holds the
/// failure's message, as the error.
pub fn run(
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
    child_test: &str,
) -> Result<Vec<Vec<u64>>, String> {
    let mut launches = run_in_one_process(ptx, launch_shape, buffers, child_test, 1)?;
    launches.pop().ok_or_else(|| "the OpenCL child process reported no launch".to_string())
}

/// As [`run`], but launches the kernel `launches` times, one after another in one child
/// process, for what must differ between the launches of a process (`%gridid`); gives each
/// launch's buffers.
pub fn run_in_one_process(
    ptx: &str,
    launch_shape: &Launch<'_>,
    buffers: &[Buffer],
    child_test: &str,
    launches: usize,
) -> Result<Vec<Vec<Vec<u64>>>, String> {
    let spec = launch_spec_json(launch_shape, buffers, &[]).to_string();
    run_spec_in_one_process(ptx, &spec, buffers.len(), child_test, launches)
}

/// Runs `ptx` with the launch spec `spec` (JSON text, which may use every field of
/// LAUNCH_SPEC.md, `textures` included) in a child process, as [`run_in_one_process`] does;
/// gives buffers `b0` to `b{buffer_count - 1}` of each launch.
pub fn run_spec_in_one_process(
    ptx: &str,
    spec: &str,
    buffer_count: usize,
    child_test: &str,
    launches: usize,
) -> Result<Vec<Vec<Vec<u64>>>, String> {
    static LAUNCHES: AtomicUsize = AtomicUsize::new(0);
    let folder = std::env::temp_dir().join(format!(
        "ptxr-tests-opencl-{}-{}",
        std::process::id(),
        LAUNCHES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&folder).unwrap_or_else(|error| panic!("{}: {error}", folder.display()));
    std::fs::write(folder.join("kernel.ptx"), ptx).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(folder.join("spec.json"), spec).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(folder.join(LAUNCH_COUNT), launches.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let executable = std::env::current_exe().unwrap_or_else(|error| panic!("{error}"));
    let output = Command::new(executable)
        .args(["--exact", child_test, "--nocapture", "--test-threads=1"])
        .env(CHILD, &folder)
        .output()
        .unwrap_or_else(|error| panic!("cannot start the OpenCL child process: {error}"));
    let _ = std::fs::remove_dir_all(&folder);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let results: Vec<&str> = stdout.split(MARKER).skip(1).map(|json| json.lines().next().unwrap_or_default()).collect();
    if results.len() != launches {
        return Err(format!(
            "the OpenCL launch failed (status {}):\n{}{}",
            output.status,
            stdout,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(results
        .into_iter()
        .map(|json| buffers_from_json(json, buffer_count).unwrap_or_else(|failure| panic!("{failure}\n{ptx}")))
        .collect())
}

/// In the child process of [`run_ok`], launches the kernel of its folder on OpenCL and prints
/// the result JSON after the marker, on one line; elsewhere does nothing.
pub fn serve_child() {
    let Some(folder) = std::env::var_os(CHILD).map(PathBuf::from) else { return };
    let read =
        |name: &str| std::fs::read_to_string(folder.join(name)).unwrap_or_else(|error| panic!("{name}: {error}"));
    let (ptx, spec) = (read("kernel.ptx"), read("spec.json"));
    let launches: usize = read(LAUNCH_COUNT).trim().parse().unwrap_or_else(|error| panic!("{LAUNCH_COUNT}: {error}"));
    let spec = LaunchSpec::from_json(&spec).unwrap_or_else(|error| panic!("{error}"));
    let files = LaunchFiles { spec_directory: &folder, dump_directory: None, printf_output: None };
    let target = LaunchTarget::OpenCl { device: None };
    for _ in 0..launches {
        match launch_on(&ptx, "kernel.ptx", &spec, &files, 2, target) {
            Ok((json, _)) => {
                let json: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|error| panic!("{error}"));
                println!("\n{MARKER}{json}");
            }
            Err(failure) => panic!("{failure:?}"),
        }
    }
}
