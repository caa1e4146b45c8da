//! What goes wrong when reading a CUDA binary: a message and, when there is one, the byte offset
//! in the file where the reader found the problem. Binary files have no text to point into, so
//! the diagnostic carries the offset as a note instead of a labelled span.

use std::fmt;

use crate::diagnostic::{Code, Diagnostic};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BinaryError {
    pub code: Code,
    pub message: String,
    /// Offset from the start of the file.
    pub offset: Option<u64>,
}

impl BinaryError {
    /// A malformed file: truncated, corrupted, or with sizes its headers cannot hold (E0401).
    pub fn invalid(offset: u64, message: impl Into<String>) -> BinaryError {
        BinaryError { code: Code::InvalidBinary, message: message.into(), offset: Some(offset) }
    }

    /// A malformed file where no single offset is to blame (E0401).
    pub fn malformed(message: impl Into<String>) -> BinaryError {
        BinaryError { code: Code::InvalidBinary, message: message.into(), offset: None }
    }

    /// A well-formed file that carries no PTX (E0402).
    pub fn no_ptx(message: impl Into<String>) -> BinaryError {
        BinaryError { code: Code::NoPtx, message: message.into(), offset: None }
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        let diagnostic = Diagnostic::error(self.code, self.message.clone());
        match self.offset {
            Some(offset) => diagnostic.with_note(format!("at byte offset {offset:#x} of the file")),
            None => diagnostic,
        }
    }
}

impl fmt::Display for BinaryError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(offset) => write!(formatter, "{} (at byte offset {offset:#x})", self.message),
            None => formatter.write_str(&self.message),
        }
    }
}
