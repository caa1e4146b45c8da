//! The command line, declared with clap.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::report::ErrorFormat;

#[derive(Parser, Debug)]
#[command(
    name = "ptxr",
    version,
    about = "Compile NVIDIA PTX for NVPTX, AMDGPU, SPIR-V and CPUs, and run kernels on the host"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// How to print diagnostics.
    #[arg(long, value_enum, default_value_t = ErrorFormat::Human, global = true)]
    pub error_format: ErrorFormat,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Compile a PTX module, or the PTX of each module of a CUDA binary, for a target.
    Compile(CompileArgs),
    /// Compile a PTX module (or a CUDA binary's PTX) and run one kernel grid on the host or an OpenCL device (see LAUNCH_SPEC.md).
    Run(RunArgs),
    /// List the OpenCL devices that `ptxr run --target spirv --device N` can use.
    Devices,
    /// Parse and check PTX files without compiling them.
    Check(CheckArgs),
    /// List the fat-binary entries of a CUDA binary (executable, library, object, .fatbin, .cubin) and write out its PTX.
    Extract(ExtractArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EmitKind {
    /// Textual LLVM IR.
    Llvm,
    /// LLVM bitcode.
    Bc,
    /// Target assembly (PTX for nvptx).
    Asm,
    /// Object file (a SPIR-V binary for spirv; unlinked for amdgpu).
    Obj,
}

#[derive(Args, Debug)]
pub struct OptimizationArgs {
    /// Optimisation level: -O0 to -O3.
    #[arg(short = 'O', value_parser = clap::value_parser!(u8).range(0..=3), default_value_t = 2)]
    pub level: u8,
}

#[derive(Args, Debug)]
pub struct CompileArgs {
    /// The PTX file, or a CUDA binary (executable, library, object, .fatbin): then the best PTX of each of its modules.
    pub input: PathBuf,
    /// cpu, nvptx, amdgpu, spirv, or a target triple (x86_64-unknown-linux-gnu, amdgcn-amd-amdhsa, ...).
    #[arg(long, default_value = "cpu")]
    pub target: String,
    /// The processor: sm_NN (nvptx; by default the module's .target, at least sm_80), gfx90a (amdgpu default), a CPU name, or native.
    #[arg(long)]
    pub arch: Option<String>,
    /// What to write; by default the target's natural artefact (object, PTX, .spv, .hsaco).
    #[arg(long, value_enum)]
    pub emit: Option<EmitKind>,
    #[command(flatten)]
    pub optimization: OptimizationArgs,
    /// Output file (`-` for stdout); by default the input's name with the artefact's extension. For a CUDA binary: the
    /// directory that receives one STEM.MODULE.sm_NN.TARGET.EXT file per module (by default the current directory).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The PTX file, or a CUDA binary: then the module whose chosen PTX has the launch's kernel.
    pub input: PathBuf,
    /// The launch spec (JSON): LAUNCH_SPEC.md, plus `textures` bound to texture and surface object parameters (docs/TARGETS.md),
    /// aggregate arguments for struct parameters (`{"bytes": [...]}`, `{"fields": [...]}`, README)
    /// and `"cooperative": true` for a cooperative launch (grid-wide `this_grid().sync()`; CPU only).
    #[arg(long)]
    pub launch: PathBuf,
    /// Write each buffer to DIR/NAME.bin instead of printing its values.
    #[arg(long)]
    pub dump_dir: Option<PathBuf>,
    /// Where to run: cpu (the host, default) or spirv (an OpenCL device, given the module as SPIR-V).
    #[arg(long, value_enum, default_value_t = RunTarget::Cpu)]
    pub target: RunTarget,
    /// With --target spirv: the OpenCL device, as an index from `ptxr devices` or part of its name.
    #[arg(long, requires = "target")]
    pub device: Option<String>,
    #[command(flatten)]
    pub optimization: OptimizationArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RunTarget {
    /// The host CPU.
    Cpu,
    /// An OpenCL device that accepts SPIR-V.
    Spirv,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The PTX files.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct ExtractArgs {
    /// The CUDA binary: an executable, shared or static library, object file, .fatbin or .cubin.
    pub input: PathBuf,
    /// The directory for the PTX files (created if missing).
    #[arg(short = 'o', long = "output", default_value = ".")]
    pub output: PathBuf,
    /// Only list the entries; write nothing.
    #[arg(long)]
    pub list: bool,
}
