//! The one error type of the runtime. Every message names what is at fault (the spec field, the
//! buffer and element index, or the argument and kernel parameter), because the driver prints it as
//! is and a user must be able to find the mistake in the spec from the message alone.

use std::fmt;
use std::path::PathBuf;

/// Why a launch spec could not be read, prepared or run, or a report not written.
#[derive(Debug)]
#[non_exhaustive]
pub enum RuntimeError {
    /// The spec is not JSON, or its shape is wrong (unknown field, a string where a number goes).
    /// The message is serde_json's, with line and column.
    SpecSyntax { message: String },
    /// A top-level field of the spec (`grid`, `block`, `shared_bytes`, `kernel`) has a bad value.
    Field { field: &'static str, message: String },
    /// A buffer's declaration or contents are wrong, or its memory could not be reserved.
    Buffer { buffer: String, message: String },
    /// Entry `index` (counted from 0) of `args` does not fit the kernel's parameter.
    Argument { index: usize, message: String },
    /// `args` has a different length than the kernel's `.param` list.
    ArgumentCount { kernel: String, expected: usize, given: usize },
    /// Reading or writing a file failed; `context` says which file and why it was needed.
    Io { context: String, path: PathBuf, source: std::io::Error },
    /// The grid could not be started (no worker thread, no shared memory).
    Launch { message: String },
    /// The OpenCL runtime is missing, has no suitable device, or refused the module or launch.
    OpenCl { message: String },
    /// `PreparedLaunch::run` was called while a `LaunchReport` of an earlier run still shares the
    /// buffers; running would change memory that the report is reading.
    BuffersInUse,
}

impl RuntimeError {
    pub(crate) fn field(field: &'static str, message: impl Into<String>) -> RuntimeError {
        RuntimeError::Field { field, message: message.into() }
    }

    pub(crate) fn buffer(buffer: &str, message: impl Into<String>) -> RuntimeError {
        RuntimeError::Buffer { buffer: buffer.to_owned(), message: message.into() }
    }

    pub(crate) fn argument(index: usize, message: impl Into<String>) -> RuntimeError {
        RuntimeError::Argument { index, message: message.into() }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::SpecSyntax { message } => write!(formatter, "launch spec: {message}"),
            RuntimeError::Field { field, message } => write!(formatter, "{field}: {message}"),
            RuntimeError::Buffer { buffer, message } => {
                write!(formatter, "buffer `{buffer}`: {message}")
            }
            RuntimeError::Argument { index, message } => {
                write!(formatter, "args[{index}]: {message}")
            }
            RuntimeError::ArgumentCount { kernel, expected, given } => write!(
                formatter,
                "kernel `{kernel}` has {expected} parameter{} but `args` gives {given}",
                if *expected == 1 { "" } else { "s" }
            ),
            RuntimeError::Io { context, path, source } => {
                write!(formatter, "{context} `{}`: {source}", path.display())
            }
            RuntimeError::Launch { message } => {
                write!(formatter, "cannot launch the grid: {message}")
            }
            RuntimeError::OpenCl { message } => write!(formatter, "OpenCL: {message}"),
            RuntimeError::BuffersInUse => {
                formatter.write_str("cannot run again while a report of an earlier run still holds the buffers")
            }
        }
    }
}

impl std::error::Error for RuntimeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RuntimeError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_what_is_at_fault() {
        let error = RuntimeError::argument(2, "kernel parameter `n` is 4 bytes but a u64 value (8 bytes) was given");
        assert_eq!(error.to_string(), "args[2]: kernel parameter `n` is 4 bytes but a u64 value (8 bytes) was given");
        let error = RuntimeError::ArgumentCount { kernel: "add".into(), expected: 1, given: 3 };
        assert_eq!(error.to_string(), "kernel `add` has 1 parameter but `args` gives 3");
        let error = RuntimeError::buffer("in", "data[3]: 300 is out of range for u8 (0 to 255)");
        assert_eq!(error.to_string(), "buffer `in`: data[3]: 300 is out of range for u8 (0 to 255)");
    }
}
