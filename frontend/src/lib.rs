//! ptxr's frontend: PTX text to a checked module, with diagnostics. It knows nothing of LLVM and
//! does no I/O: callers hand it source text (or, for `binary`, a CUDA binary's bytes) and get back
//! data plus diagnostics.

pub mod binary;
pub mod diagnostic;
pub mod span;
pub mod syntax;
pub mod vocabulary;

pub use diagnostic::{Code, Diagnostic, Severity};
pub use span::{Span, Spanned};
pub mod check;
pub mod ir;

pub use check::{check, check_for, check_source, check_source_for};
