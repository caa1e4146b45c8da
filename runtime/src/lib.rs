//! ptxr's runtime: runs one grid of a kernel compiled for the host CPU, as `ptxr run KERNEL.ptx
//! --launch SPEC.json` does. It reads the launch spec (the contract in the conformance folder's
//! `LAUNCH_SPEC.md`), allocates and fills the buffers, packs the kernel parameters, spreads the
//! blocks over the machine's cores, and writes the result JSON. It knows nothing of LLVM or of
//! the other ptxr crates: the driver compiles the kernel and hands over a [`BlockEntry`].
//!
//! ```text
//! let spec = LaunchSpec::from_json(&text)?;                 // syntax, schema, values
//! let mut launch = prepare(&spec, spec_dir, &signature)?;   // args vs .params, buffers
//! let report = unsafe { launch.run(entry) }?;               // the grid, timed
//! print!("{}", report.to_json(dump_dir)?);
//! ```
//!
//! Memory is little-endian, like PTX; the runtime assumes a little-endian host.

pub mod abi;
pub mod aggregate_spec;
pub mod buffer;
pub mod cooperative;
pub mod device_library;
pub mod element;
pub mod error;
pub mod grid_workspace;
pub mod launch;
pub mod low_memory;
pub mod opencl;
pub mod report;
pub mod spec;
pub mod stack_floor;
pub mod texture;
pub mod texture_spec;

pub use abi::{block_context_field, BlockContext, BlockEntry};
pub use element::{ElementKind, ElementType, ValueError};
pub use error::RuntimeError;
pub use launch::{prepare, KernelSignature, ParamLayout, PreparedLaunch};
pub use report::LaunchReport;
pub use spec::{ArgumentSpec, BufferContents, BufferSpec, LaunchSpec};
