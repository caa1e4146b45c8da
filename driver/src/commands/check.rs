//! `ptxr check FILE...`: the frontend alone, every file, every diagnostic.

use ptxr_frontend::diagnostic::has_errors;

use super::read_source;
use crate::cli::CheckArgs;
use crate::report::{print_diagnostics, print_error, ErrorFormat};

pub fn check(arguments: &CheckArgs, format: ErrorFormat) -> i32 {
    let mut failed = false;
    for path in &arguments.inputs {
        let source = match read_source(path) {
            Ok(source) => source,
            Err(message) => {
                print_error(&message, format);
                failed = true;
                continue;
            }
        };
        let (_, diagnostics) = ptxr_frontend::check_source(&source);
        print_diagnostics(&diagnostics, &path.display().to_string(), &source, format);
        failed |= has_errors(&diagnostics);
    }
    i32::from(failed)
}
