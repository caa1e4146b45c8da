//! `ptxr run FILE.ptx --launch SPEC.json [--dump-dir DIR]`: the contract of
//! `../shared/conformance/LAUNCH_SPEC.md`. The result JSON goes to stdout only when the whole
//! launch succeeded; every error goes to stderr with a non-zero exit.

use std::path::Path;

use ptxr_frontend::ir;
use ptxr_frontend::syntax::ast::FunctionKind;
use ptxr_runtime::{prepare, BlockEntry, KernelSignature, LaunchSpec, ParamLayout};

use super::{read_source, report_failure};
use crate::cli::RunArgs;
use crate::pipeline::{check, pipeline_options, Failure};
use crate::report::{print_diagnostics, print_error, ErrorFormat};
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
            _ => Err(format!("the module has several kernels ({}); name one with \"kernel\" in the launch spec", names())),
        },
    }
}

fn signature(kernel: &ir::Function) -> KernelSignature {
    let params = kernel
        .parameter_variables()
        .map(|variable| ParamLayout { name: variable.name.clone(), size_bytes: variable.size_bytes() as u32 })
        .collect();
    KernelSignature { name: kernel.name.clone(), params }
}

pub fn run(arguments: &RunArgs, format: ErrorFormat) -> i32 {
    let file_name = arguments.input.display().to_string();
    let source = match read_source(&arguments.input) {
        Ok(source) => source,
        Err(message) => {
            print_error(&message, format);
            return 1;
        }
    };
    let spec = match std::fs::read_to_string(&arguments.launch) {
        Err(error) => Err(format!("cannot read launch spec {}: {error}", arguments.launch.display())),
        Ok(text) => LaunchSpec::from_json(&text).map_err(|error| format!("launch spec {}: {error}", arguments.launch.display())),
    };
    let spec = match spec {
        Ok(spec) => spec,
        Err(message) => {
            print_error(&message, format);
            return 1;
        }
    };
    let (module, warnings) = match check(&source) {
        Ok(checked) => checked,
        Err(diagnostics) => return report_failure(&Failure::Diagnostics(diagnostics), &file_name, &source, format),
    };
    print_diagnostics(&warnings, &file_name, &source, format);
    let kernel = match choose_kernel(&module, spec.kernel_name()) {
        Ok(kernel) => kernel,
        Err(message) => {
            print_error(&message, format);
            return 1;
        }
    };
    debug_assert_eq!(kernel.kind, FunctionKind::Entry);
    let signature = signature(kernel);
    let spec_directory = arguments.launch.parent().map_or_else(|| Path::new(".").to_path_buf(), Path::to_path_buf);
    let host = match describe("cpu", None, true) {
        Ok(host) => host,
        Err(message) => {
            print_error(&message, format);
            return 1;
        }
    };
    let options = match pipeline_options(&host, arguments.optimization.level, &file_name) {
        Ok(options) => options,
        Err(failure) => return report_failure(&failure, &file_name, &source, format),
    };
    let outcome = ptxr_lowering::with_jit(&module, &options, |lookup| -> Result<String, String> {
        let address = lookup(&signature.name)?;
        if address == 0 {
            return Err(format!("the compiled kernel `{}` has no address", signature.name));
        }
        // SAFETY: the CPU target compiles every kernel entry with exactly BlockEntry's
        // signature (see ptxr_intrinsics' cpu module and ptxr_runtime::abi).
        let entry: BlockEntry = unsafe { std::mem::transmute::<usize, BlockEntry>(address) };
        let mut launch = prepare(&spec, &spec_directory, &signature).map_err(|error| error.to_string())?;
        // SAFETY: `entry` stays valid while the JIT module lives, which is for this closure.
        let report = unsafe { launch.run(entry) }.map_err(|error| error.to_string())?;
        report.to_json(arguments.dump_dir.as_deref()).map_err(|error| error.to_string())
    });
    match outcome {
        Ok(Ok(json)) => {
            // A closed stdout (`ptxr run ... | head`) is the reader's choice, not an error.
            let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), json.as_bytes());
            0
        }
        Ok(Err(message)) => {
            print_error(&message, format);
            1
        }
        Err(error) => report_failure(&Failure::from(error), &file_name, &source, format),
    }
}
