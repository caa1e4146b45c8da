//! The subcommands. Each returns the process exit code; diagnostics are printed on the way.

mod binary;
mod check;
mod compile;
mod devices;
mod extract;
mod run;

use std::path::Path;

use clap::Parser;

use crate::cli::{Cli, Command};
use crate::pipeline::Failure;
use crate::report::{print_diagnostics, print_error, ErrorFormat};

/// Parses the command line and runs the subcommand; returns the exit code.
pub fn run_command_line() -> i32 {
    let cli = Cli::parse();
    match &cli.command {
        Command::Compile(arguments) => compile::compile(arguments, cli.error_format),
        Command::Run(arguments) => run::run(arguments, cli.error_format),
        Command::Check(arguments) => check::check(arguments, cli.error_format),
        Command::Devices => devices::devices(cli.error_format),
        Command::Extract(arguments) => extract::extract(arguments, cli.error_format),
    }
}

/// The largest input ptxr reads: spans are 32-bit byte offsets.
const MAX_INPUT_BYTES: u64 = u32::MAX as u64;

/// Reads a PTX file as text, with a clear error for missing, huge or non-UTF-8 files.
pub fn read_source(path: &Path) -> Result<String, String> {
    String::from_utf8(read_bytes(path)?).map_err(|error| {
        format!(
            "{} is not UTF-8 text (invalid byte at offset {}); is it a binary?",
            path.display(),
            error.utf8_error().valid_up_to()
        )
    })
}

/// The bytes of an input file, refusing one larger than [`MAX_INPUT_BYTES`] before reading it.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, String> {
    let metadata = std::fs::metadata(path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    if metadata.len() > MAX_INPUT_BYTES {
        return Err(format!("{} is larger than 4 GiB", path.display()));
    }
    std::fs::read(path).map_err(|error| format!("cannot read {}: {error}", path.display()))
}

/// The value of `result`, or exit code 1 after printing its error: commands use it with `?`
/// inside a closure or function returning `Result<i32, i32>`.
pub fn or_exit<T>(result: Result<T, String>, format: ErrorFormat) -> Result<T, i32> {
    result.map_err(|message| {
        print_error(&message, format);
        1
    })
}

/// Prints a failure and returns exit code 1.
pub fn report_failure(failure: &Failure, file_name: &str, source: &str, format: ErrorFormat) -> i32 {
    match failure {
        Failure::Diagnostics(diagnostics) => print_diagnostics(diagnostics, file_name, source, format),
        Failure::Message(message) => print_error(message, format),
    }
    1
}
