//! `ptxr run FILE --launch SPEC.json [--dump-dir DIR] [--target cpu|spirv] [--device D]`: the contract of
//! `../shared/conformance/LAUNCH_SPEC.md`. The result JSON goes to stdout only when the whole
//! launch succeeded; every error goes to stderr with a non-zero exit. The text of the kernel's
//! `printf` calls goes to stdout through a buffer flushed at the latest when the grid is done,
//! before the JSON (or the error). FILE is PTX text or a CUDA binary; for a binary, the kernel
//! is looked for in the chosen PTX of each module.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use ptxr_frontend::binary::{ptx_kernels, Entry, FatBinary};
use ptxr_runtime::device_library::PrintfOutput;
use ptxr_runtime::LaunchSpec;

use super::binary::{chosen_ptx, entry_label, note_choice, read_cuda_binary, read_input, Input};
use super::{or_exit, report_failure};
use crate::cli::{RunArgs, RunTarget};
use crate::launch::{launch_on, LaunchFiles, LaunchTarget};
use crate::report::{print_diagnostics, ErrorFormat};

pub fn run(arguments: &RunArgs, format: ErrorFormat) -> i32 {
    run_or_exit_code(arguments, format).map_or_else(|code| code, |()| 0)
}

fn run_or_exit_code(arguments: &RunArgs, format: ErrorFormat) -> Result<(), i32> {
    let file_name = arguments.input.display().to_string();
    let input = or_exit(read_input(&arguments.input), format)?;
    let spec = match std::fs::read_to_string(&arguments.launch) {
        Err(error) => Err(format!("cannot read launch spec {}: {error}", arguments.launch.display())),
        Ok(text) => {
            LaunchSpec::from_json(&text).map_err(|error| format!("launch spec {}: {error}", arguments.launch.display()))
        }
    };
    let spec = or_exit(spec, format)?;
    match input {
        Input::Ptx(source) => run_source(arguments, &source, &file_name, &spec, format),
        Input::Binary(bytes) => {
            let binary = read_cuda_binary(&bytes, &file_name, format)?;
            let chosen = chosen_ptx(&binary, &file_name, format)?;
            let (module, entry, text) = or_exit(module_with_kernel(&chosen, spec.kernel_name(), &file_name), format)?;
            note_choice(&file_name, module, entry, format);
            run_source(arguments, text, &entry_label(&file_name, module, entry), &spec, format)
        }
    }
}

/// The module whose chosen PTX defines `kernel` (the launch spec's), or the only module with
/// PTX when the spec names none.
fn module_with_kernel<'b>(
    chosen: &[(&'b FatBinary, &'b Entry, &'b str)],
    kernel: Option<&str>,
    file_name: &str,
) -> Result<(&'b FatBinary, &'b Entry, &'b str), String> {
    let with_kernels: Vec<_> =
        chosen.iter().map(|&(module, entry, text)| (module, entry, text, ptx_kernels(text))).collect();
    let candidates: Vec<_> = match kernel {
        Some(kernel) => with_kernels.iter().filter(|(.., kernels)| kernels.iter().any(|name| name == kernel)).collect(),
        None => with_kernels.iter().collect(),
    };
    if let [(module, entry, text, _)] = candidates.as_slice() {
        return Ok((module, entry, text));
    }
    let kernels: Vec<String> = with_kernels
        .iter()
        .flat_map(|(module, .., kernels)| {
            kernels.iter().map(move |kernel| format!("{kernel} (fat binary {})", module.index))
        })
        .collect();
    let problem = match (kernel, candidates.len()) {
        (Some(kernel), 0) => format!("{file_name} has no kernel `{kernel}` in its PTX"),
        (Some(kernel), _) => format!("several fat binaries of {file_name} define kernel `{kernel}`"),
        (None, _) => {
            format!("{file_name} has PTX in several fat binaries; name the kernel with \"kernel\" in the launch spec")
        }
    };
    Err(format!("{problem} (its kernels: {})", kernels.join(", ")))
}

/// Compiles and launches one PTX module; `file_name` names it in diagnostics.
fn run_source(
    arguments: &RunArgs,
    source: &str,
    file_name: &str,
    spec: &LaunchSpec,
    format: ErrorFormat,
) -> Result<(), i32> {
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
    let launched = launch_on(source, file_name, spec, &files, arguments.optimization.level, target);
    if let Ok(mut printed) = printf_stdout.lock() {
        let _ = printed.flush();
    }
    let (json, warnings) = launched.map_err(|failure| report_failure(&failure, file_name, source, format))?;
    print_diagnostics(&warnings, file_name, source, format);
    // A closed stdout (`ptxr run ... | head`) is the reader's choice, not an error.
    let _ = std::io::stdout().lock().write_all(json.as_bytes());
    Ok(())
}
