//! The `ptxr` driver: command line, file I/O, and the pipeline that runs the frontend, lowering
//! and LLVM for one target. It is the only crate (with the runtime's launch-spec files) that
//! reads or writes files and prints.

pub mod cli;
mod commands;
pub mod launch;
pub mod link;
pub mod output;
pub mod pipeline;
pub mod report;
pub mod target;

pub use commands::run_command_line;
pub use pipeline::{compile_source, Artifact, CompileOptions, Failure};
