//! Constructs whose SPIR-V lowering differs from the other GPUs' (`docs/TARGETS.md`): `.const`
//! variables in CrossWorkgroup memory, so that `cvta.const` works; function addresses as small
//! integer ids and indirect calls as a `switch` over the module's functions. Each kernel runs on
//! the CPU and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through
//! OpenCL; both must give the values of a model written here, and the SPIR-V must pass
//! `spirv-val`.

use ptxr_tests::vendor_checks::{compile, run as run_validator, spirv_environment, Compiled};
use ptxr_tests::{opencl, run_ok, validator, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// Runs `ptx` on the CPU and through OpenCL, checks that output buffer `output` holds
/// `expected` on both, and validates the SPIR-V.
fn check(ptx: &str, launch: &Launch<'_>, buffers: &[Buffer], output: usize, expected: &[u64]) {
    let cpu = run_ok(ptx, launch, buffers);
    assert_eq!(cpu[output], expected, "cpu");
    if let Some(spirv_val) = validator(&["spirv-val"]) {
        let Compiled::Artefact(binary) = compile(ptx, "spirv") else { panic!("no SPIR-V for\n{ptx}") };
        let file = std::env::temp_dir().join(format!("ptxr-spirv-execution-{}.spv", std::process::id()));
        std::fs::write(&file, &binary).unwrap_or_else(|error| panic!("{error}"));
        let environment = spirv_environment(&binary);
        let verdict =
            run_validator(std::process::Command::new(spirv_val).args(["--target-env", &environment]).arg(&file));
        let _ = std::fs::remove_file(&file);
        if let Err(message) = verdict {
            panic!("spirv-val: {message}\n{ptx}");
        }
    }
    if opencl::available() {
        let spirv = opencl::run_ok(ptx, launch, buffers, OPENCL_CHILD);
        assert_eq!(spirv[output], expected, "spirv through OpenCL");
    }
}

/// `.const` data read by `ld.const`, by a generic load after `cvta.const`, and by `ld.const`
/// again after `cvta.to.const`: each thread sums the three reads of its element.
#[test]
fn const_variables_convert_to_and_from_generic_addresses() {
    let ptx = ".version 7.8
.target sm_80
.address_size 64
.const .align 4 .u32 table[4] = {7, 11, 13, 17};
.visible .entry test(.param .u64 output)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    mov.u64 %rd3, table;
    add.u64 %rd4, %rd3, %rd2;
    ld.const.u32 %r2, [%rd4];
    cvta.const.u64 %rd5, %rd4;
    ld.u32 %r3, [%rd5];
    cvta.to.const.u64 %rd6, %rd5;
    ld.const.u32 %r4, [%rd6];
    add.u32 %r5, %r2, %r3;
    add.u32 %r5, %r5, %r4;
    add.u64 %rd7, %rd1, %rd2;
    st.global.u32 [%rd7], %r5;
    ret;
}
";
    let table = [7u64, 11, 13, 17];
    let expected: Vec<u64> = table.iter().map(|value| 3 * value).collect();
    check(ptx, &Launch::threads(4), &[Buffer::zeroed("u32", 4)], 0, &expected);
}
