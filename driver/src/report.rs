//! Printing diagnostics: ariadne reports for people (coloured on a terminal), or JSON lines for
//! tools (`--error-format json`).

use std::io::IsTerminal;

use ptxr_frontend::diagnostic::{render, Severity};
use ptxr_frontend::Diagnostic;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ErrorFormat {
    Human,
    Json,
}

/// Byte offset to 1-based line and column (in characters).
fn line_column(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..source.floor_char_boundary_compat(offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |text| text.chars().count()) + 1;
    (line, column)
}

trait FloorCharBoundary {
    fn floor_char_boundary_compat(&self, index: usize) -> usize;
}

impl FloorCharBoundary for str {
    fn floor_char_boundary_compat(&self, mut index: usize) -> usize {
        while index > 0 && !self.is_char_boundary(index) {
            index -= 1;
        }
        index
    }
}

/// One diagnostic as a JSON object.
pub fn to_json(diagnostic: &Diagnostic, file_name: &str, source: &str) -> serde_json::Value {
    let labels: Vec<serde_json::Value> = diagnostic
        .labels
        .iter()
        .map(|label| {
            let (line, column) = line_column(source, label.span.start as usize);
            serde_json::json!({
                "primary": label.primary,
                "message": label.message,
                "start": label.span.start,
                "end": label.span.end,
                "line": line,
                "column": column,
            })
        })
        .collect();
    serde_json::json!({
        "severity": match diagnostic.severity { Severity::Error => "error", Severity::Warning => "warning" },
        "code": diagnostic.code.as_str(),
        "message": diagnostic.message,
        "file": file_name,
        "labels": labels,
        "notes": diagnostic.notes,
        "help": diagnostic.help,
    })
}

/// Prints diagnostics on stderr in the chosen format.
pub fn print_diagnostics(diagnostics: &[Diagnostic], file_name: &str, source: &str, format: ErrorFormat) {
    match format {
        ErrorFormat::Human => {
            let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            for diagnostic in diagnostics {
                eprint!("{}", render(diagnostic, file_name, source, colour));
            }
        }
        ErrorFormat::Json => {
            for diagnostic in diagnostics {
                eprintln!("{}", to_json(diagnostic, file_name, source));
            }
        }
    }
}

/// Prints a note on stderr: something the user should know that is not a problem.
pub fn print_note(message: &str, format: ErrorFormat) {
    match format {
        ErrorFormat::Human => eprintln!("note: {message}"),
        ErrorFormat::Json => eprintln!("{}", serde_json::json!({ "severity": "note", "message": message })),
    }
}

/// Prints an error that has no place in the source.
pub fn print_error(message: &str, format: ErrorFormat) {
    match format {
        ErrorFormat::Human => eprintln!("error: {message}"),
        ErrorFormat::Json => eprintln!("{}", serde_json::json!({ "severity": "error", "message": message })),
    }
}

#[cfg(test)]
mod tests {
    use super::line_column;

    #[test]
    fn lines_and_columns_are_one_based() {
        let source = "ab\ncd\n";
        assert_eq!(line_column(source, 0), (1, 1));
        assert_eq!(line_column(source, 4), (2, 2));
        assert_eq!(line_column(source, 100), (3, 1));
    }
}
