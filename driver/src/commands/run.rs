//! `ptxr run FILE.ptx --launch SPEC.json [--dump-dir DIR] [--target cpu|spirv] [--device D]`: the contract of
//! `../shared/conformance/LAUNCH_SPEC.md`. The result JSON goes to stdout only when the whole
//! launch succeeded; every error goes to stderr with a non-zero exit. The text of the kernel's
//! `printf` calls goes to stdout through a buffer flushed at the latest when the grid is done,
//! before the JSON (or the error).

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use ptxr_runtime::device_library::PrintfOutput;
use ptxr_runtime::LaunchSpec;

use super::{or_exit, read_source, report_failure};
use crate::cli::{RunArgs, RunTarget};
use crate::launch::{launch_on, LaunchFiles, LaunchTarget};
use crate::report::{print_diagnostics, ErrorFormat};

pub fn run(arguments: &RunArgs, format: ErrorFormat) -> i32 {
    run_or_exit_code(arguments, format).map_or_else(|code| code, |()| 0)
}

fn run_or_exit_code(arguments: &RunArgs, format: ErrorFormat) -> Result<(), i32> {
    let file_name = arguments.input.display().to_string();
    let source = or_exit(read_source(&arguments.input), format)?;
    let spec = match std::fs::read_to_string(&arguments.launch) {
        Err(error) => Err(format!("cannot read launch spec {}: {error}", arguments.launch.display())),
        Ok(text) => {
            LaunchSpec::from_json(&text).map_err(|error| format!("launch spec {}: {error}", arguments.launch.display()))
        }
    };
    let spec = or_exit(spec, format)?;
    let spec_directory = arguments.launch.parent().unwrap_or(Path::new("."));
    // CUDA's device printf writes to the process's stdout, buffered (as by CUDA's printf FIFO)
    // and flushed once the grid is done, before the result JSON or the error.
    let printf_stdout = Arc::new(Mutex::new(BufWriter::new(std::io::stdout())));
    let printf_output: PrintfOutput = printf_stdout.clone();
    let files = LaunchFiles {
        spec_directory,
        dump_directory: arguments.dump_dir.as_deref(),
        printf_output: Some(printf_output),
    };
    let target = match arguments.target {
        RunTarget::Cpu => LaunchTarget::Cpu,
        RunTarget::Spirv => LaunchTarget::OpenCl { device: arguments.device.as_deref() },
    };
    let launched = launch_on(&source, &file_name, &spec, &files, arguments.optimization.level, target);
    if let Ok(mut printed) = printf_stdout.lock() {
        let _ = printed.flush();
    }
    let (json, warnings) = launched.map_err(|failure| report_failure(&failure, &file_name, &source, format))?;
    print_diagnostics(&warnings, &file_name, &source, format);
    // A closed stdout (`ptxr run ... | head`) is the reader's choice, not an error.
    let _ = std::io::stdout().lock().write_all(json.as_bytes());
    Ok(())
}
