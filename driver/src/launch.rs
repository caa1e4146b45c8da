//! `ptxr run` as a library call: compile a module for the host, launch one grid as a launch spec
//! says, and return the result JSON.

use std::path::Path;

use ptxr_frontend::ir;
use ptxr_lowering::Emit;
use ptxr_runtime::device_library::PrintfOutput;
use ptxr_runtime::opencl::select_device;
use ptxr_runtime::{prepare, BlockEntry, KernelSignature, LaunchSpec, ParamLayout};

use crate::pipeline::{check, pipeline_options, Failure};
use crate::target::describe;

/// Which kernel to launch: the one the spec names, or the module's only kernel.
fn choose_kernel<'m>(module: &'m ir::Module, requested: Option<&str>) -> Result<&'m ir::Function, String> {
    let kernels: Vec<&ir::Function> = module.kernels().collect();
    let names = || kernels.iter().map(|kernel| kernel.name.as_str()).collect::<Vec<_>>().join(", ");
    match requested {
        Some(name) => kernels
            .iter()
            .find(|kernel| kernel.name == name)
            .copied()
            .ok_or_else(|| format!("the module has no kernel `{name}` (its kernels: {})", names())),
        None => match kernels.as_slice() {
            [only] => Ok(only),
            [] => Err("the module has no kernel (.entry with a body)".to_string()),
            _ => Err(format!(
                "the module has several kernels ({}); name one with \"kernel\" in the launch spec",
                names()
            )),
        },
    }
}

fn signature(module: &ir::Module, kernel: &ir::Function) -> KernelSignature {
    let params = kernel
        .parameter_variables()
        .map(|variable| ParamLayout {
            name: variable.name.to_string(),
            size_bytes: variable.size_bytes() as u32,
            align_bytes: variable.align.unwrap_or(variable.element_bytes() as u32),
        })
        .collect();
    // The layout is module-wide (see `ir::SharedLayout`); its size always fits the u32 of the ABI
    // for real kernels, and an absurd one is refused when the runtime reserves it.
    let static_shared_bytes = u32::try_from(ir::SharedLayout::of(module).static_bytes).unwrap_or(u32::MAX);
    KernelSignature { name: kernel.name.clone(), params, static_shared_bytes }
}

/// Where the launch's inputs are and where its outputs go.
pub struct LaunchFiles<'a> {
    /// The folder that `file` buffers in the spec are relative to.
    pub spec_directory: &'a Path,
    /// `--dump-dir`: write buffers as raw files instead of JSON values.
    pub dump_directory: Option<&'a Path>,
    /// Where the kernel's `printf` text goes (`ptxr run`: buffered stdout); `None` drops it.
    pub printf_output: Option<PrintfOutput>,
}

/// Where a launch runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LaunchTarget<'a> {
    /// The host CPU: the module JIT-compiled, blocks spread over the cores.
    #[default]
    Cpu,
    /// An OpenCL device, given the module as SPIR-V: `device` is `--device` (an index or part of
    /// a name), or `None` for the first suitable device. Use one such launch per process:
    /// Intel's CPU runtime crashes when one process launches on it repeatedly while also
    /// compiling with LLVM 22 (see docs/ARCHITECTURE.md, "Not done yet").
    OpenCl { device: Option<&'a str> },
}

/// Compiles `source` for the host CPU and runs the grid that `spec` describes. Returns the
/// result JSON of LAUNCH_SPEC.md and the warnings (the checker's, lowering's, the launch's).
pub fn launch(
    source: &str,
    module_name: &str,
    spec: &LaunchSpec,
    files: &LaunchFiles<'_>,
    optimization: u8,
) -> Result<(String, Vec<ptxr_frontend::Diagnostic>), Failure> {
    launch_on(source, module_name, spec, files, optimization, LaunchTarget::Cpu)
}

/// Compiles `source` for `target` and runs the grid that `spec` describes there. Returns the
/// result JSON of LAUNCH_SPEC.md and the warnings (the checker's, lowering's, the launch's).
pub fn launch_on(
    source: &str,
    module_name: &str,
    spec: &LaunchSpec,
    files: &LaunchFiles<'_>,
    optimization: u8,
    target: LaunchTarget<'_>,
) -> Result<(String, Vec<ptxr_frontend::Diagnostic>), Failure> {
    let (module, mut warnings) = check(source).map_err(Failure::Diagnostics)?;
    let kernel = choose_kernel(&module, spec.kernel_name()).map_err(Failure::Message)?;
    let signature = signature(&module, kernel);
    let ran = match target {
        LaunchTarget::Cpu => {
            run_on_cpu(Checked { module: &module, source }, module_name, spec, files, optimization, &signature)
        }
        LaunchTarget::OpenCl { device } => run_on_opencl(
            Checked { module: &module, source },
            module_name,
            spec,
            files,
            optimization,
            &signature,
            device,
        ),
    };
    let (json, ignored_arguments, overruns, lowering_warnings) =
        ran.map_err(|failure| crate::pipeline::after_warnings(&warnings, failure))?;
    warnings.extend(lowering_warnings);
    for (buffer, changed) in overruns {
        warnings.push(
            ptxr_frontend::Diagnostic::warning(
                ptxr_frontend::diagnostic::Code::BufferOverrun,
                format!("kernel `{}` wrote past the end of buffer `{buffer}`", kernel.name),
            )
            .with_primary(
                kernel.span,
                format!(
                    "{changed} byte(s) of the {}-byte guard zone after `{buffer}` changed",
                    ptxr_runtime::buffer::GUARD_BYTES
                ),
            )
            .with_help(
                "the buffer's contents are as the kernel left them; on a GPU these writes would have gone to whatever memory follows the allocation: check the launch's buffer sizes against the kernel's indexing",
            ),
        );
    }
    if ignored_arguments > 0 {
        let count = kernel.parameters.len();
        warnings.push(
            ptxr_frontend::Diagnostic::warning(
                ptxr_frontend::diagnostic::Code::IgnoredArguments,
                format!(
                    "the launch gives {ignored_arguments} argument(s) more than kernel `{}` has parameters",
                    kernel.name
                ),
            )
            .with_primary(
                kernel.span,
                format!("takes {count} parameter(s); the extra arguments were ignored, as cuLaunchKernel ignores them"),
            ),
        );
    }
    Ok((json, warnings))
}

/// A checked module with the text it was checked from, which lowering's diagnostics quote.
#[derive(Clone, Copy)]
struct Checked<'a> {
    module: &'a ir::Module,
    source: &'a str,
}

/// Buffers that a kernel wrote past the end of, with the guard-zone bytes that changed.
type Overruns = Vec<(String, usize)>;

/// The JIT-compiled module on the host's cores: the result JSON, the count of ignored
/// arguments, the buffers written past their end and lowering's warnings.
fn run_on_cpu(
    checked: Checked<'_>,
    module_name: &str,
    spec: &LaunchSpec,
    files: &LaunchFiles<'_>,
    optimization: u8,
    signature: &KernelSignature,
) -> Result<(String, usize, Overruns, Vec<ptxr_frontend::Diagnostic>), Failure> {
    let host = describe("cpu", None, true).map_err(Failure::Message)?;
    let options = pipeline_options(&host, optimization, module_name)?;
    let mut ignored_arguments = 0;
    let mut overruns = Vec::new();
    let (json, warnings) =
        ptxr_lowering::with_jit(checked.module, checked.source, &options, |lookup| -> Result<String, String> {
            let address = lookup(&signature.name)?;
            if address == 0 {
                return Err(format!("the compiled kernel `{}` has no address", signature.name));
            }
            // SAFETY: the CPU target compiles every kernel entry with exactly BlockEntry's
            // signature (see ptxr_intrinsics' cpu module and ptxr_runtime::abi).
            let entry: BlockEntry = unsafe { std::mem::transmute::<usize, BlockEntry>(address) };
            let mut prepared = prepare(spec, files.spec_directory, signature).map_err(|error| error.to_string())?;
            for (name, descriptor) in prepared.texture_references() {
                let address =
                    lookup(name).map_err(|_| format!("the module has no `.texref` or `.surfref` `{name}`"))?;
                if address == 0 {
                    return Err(format!("the module's `.texref` or `.surfref` `{name}` has no address"));
                }
                // SAFETY: a `.texref`/`.surfref` variable is a writable global of exactly a
                // descriptor's size (lowering's `declare_texture_reference`), and the grid has
                // not started.
                unsafe { std::ptr::copy_nonoverlapping(descriptor.as_ptr(), address as *mut u8, descriptor.len()) };
            }
            ignored_arguments = prepared.ignored_arguments();
            if let Some(output) = &files.printf_output {
                prepared.set_printf_output(output.clone());
            }
            // SAFETY: `entry` stays valid while the JIT module lives, which is for this closure.
            let report = unsafe { prepared.run(entry) }.map_err(|error| {
                // Cooperative groups' grid sync traps when a plain launch leaves its workspace
                // address (%envreg1, %envreg2) at 0, as CUDA does; say how to launch it.
                let reads_grid_workspace = ["%envreg1", "%envreg2"].iter().any(|name| checked.source.contains(name));
                if !spec.cooperative && reads_grid_workspace {
                    format!(
                        "{error} (the kernel reads a cooperative launch's grid workspace from %envreg1/%envreg2, \
                         as cooperative groups' this_grid().sync() does, and traps without one: add \
                         \"cooperative\": true to the launch spec)"
                    )
                } else {
                    error.to_string()
                }
            })?;
            overruns = report.overruns().into_iter().map(|(name, changed)| (name.to_string(), changed)).collect();
            report.to_json(files.dump_directory).map_err(|error| error.to_string())
        })?;
    let json = json.map_err(Failure::Message)?;
    Ok((json, ignored_arguments, overruns, warnings))
}

/// The module as SPIR-V on an OpenCL device: the result JSON, the count of ignored arguments
/// the buffers written past their end (their SVM allocations have guard zones too) and
/// lowering's warnings.
fn run_on_opencl(
    checked: Checked<'_>,
    module_name: &str,
    spec: &LaunchSpec,
    files: &LaunchFiles<'_>,
    optimization: u8,
    signature: &KernelSignature,
    device: Option<&str>,
) -> Result<(String, usize, Overruns, Vec<ptxr_frontend::Diagnostic>), Failure> {
    // Refused before compiling, so that no device is needed to learn it.
    if spec.cooperative {
        return Err(Failure::Message(ptxr_runtime::grid_workspace::unsupported_on_opencl().to_string()));
    }
    let spirv_target = describe("spirv", None, false).map_err(Failure::Message)?;
    let module = checked.module;
    let spirv_target = crate::target::for_module(&spirv_target, module);
    let options = pipeline_options(&spirv_target, optimization, module_name)?;
    // OpenCL builds the module as it is, with nothing linked in.
    let undefined = ptxr_lowering::undefined_functions(module);
    if !undefined.is_empty() {
        return Err(Failure::Diagnostics(undefined));
    }
    let compiled = ptxr_lowering::compile(module, checked.source, &options, Emit::Object)?;
    let spirv = compiled.bytes;
    // The spec is checked (and its buffers read) before looking for a device, so that its
    // mistakes are reported the same way on every target.
    let mut prepared =
        prepare(spec, files.spec_directory, signature).map_err(|error| Failure::Message(error.to_string()))?;
    if let Some((name, _)) = prepared.texture_references().first() {
        return Err(Failure::Message(format!(
            "binding a texture to the `.texref` `{name}` by name is done only with --target cpu; pass a texture object (`{{ \"texture\": NAME }}`) instead"
        )));
    }
    let device = select_device(device).map_err(|error| Failure::Message(error.to_string()))?;
    let takes_launch_arguments = ptxr_lowering::kernels_take_launch_arguments(module, spirv_target.kind);
    let report = prepared
        .run_opencl(&device, &spirv, takes_launch_arguments)
        .map_err(|error| Failure::Message(error.to_string()))?;
    let json = report.to_json(files.dump_directory).map_err(|error| Failure::Message(error.to_string()))?;
    let overruns = report.overruns().into_iter().map(|(name, changed)| (name.to_string(), changed)).collect();
    Ok((json, prepared.ignored_arguments(), overruns, compiled.warnings))
}
