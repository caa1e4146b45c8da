//! Lowering failures: unsupported constructs (the user's PTX is fine, ptxr cannot express it on
//! this target yet) and internal errors (LLVM rejected what ptxr built: a bug in ptxr).

use ptxr_frontend::{Code, Diagnostic, Span};

/// A lowering failure, already shaped as the diagnostic the user will see.
#[derive(Debug)]
pub struct LoweringError {
    pub diagnostic: Diagnostic,
}

pub type LoweringResult<T> = Result<T, LoweringError>;

impl LoweringError {
    /// "unsupported: <what> on <target>", pointing at the construct.
    pub fn unsupported(what: &str, target: &str, span: Span) -> LoweringError {
        LoweringError {
            diagnostic: Diagnostic::error(Code::Unsupported, format!("unsupported: {what} on {target}"))
                .with_primary(span, format!("ptxr cannot lower this for {target} yet")),
        }
    }

    pub fn internal(message: impl std::fmt::Display, span: Span) -> LoweringError {
        LoweringError {
            diagnostic: Diagnostic::error(Code::InternalCompilerError, format!("internal compiler error: {message}"))
                .with_primary(span, "while lowering this")
                .with_note("this is a bug in ptxr; please report it with the PTX file"),
        }
    }
}

impl From<inkwell::builder::BuilderError> for LoweringError {
    fn from(error: inkwell::builder::BuilderError) -> LoweringError {
        LoweringError::internal(format!("LLVM builder: {error}"), Span::default())
    }
}
