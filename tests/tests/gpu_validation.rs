//! Every kernel that ptxr compiles for a GPU target passes that vendor's checks: NVIDIA's
//! `ptxas` accepts the NVPTX output, `spirv-val` accepts the SPIR-V for the OpenCL environment
//! of its version, and the AMDGPU code object's metadata (read by `llvm-readelf`) lists every
//! kernel with its wave size and segment sizes.
//!
//! The kernels: the repository's PTX (examples, fixtures, benchmark kernels, the hand-written
//! kernels of `tests/fixtures/kernels`) and, when the
//! shared folder is beside the checkout, every execution test of `../shared/conformance`.
//! A kernel that a target reports as unsupported is skipped for that target (the coverage
//! table and the conformance runs account for those); every artefact that is produced is
//! checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::Code;
use ptxr_tests::vendor_checks::{code_object_notes, compile, run, spirv_environment, Compiled, Validators};
use ptxr_tests::{
    assertfail_call, llvm_readelf, printf_kernel, repository_root, string_global, validator, ASSERTFAIL_DECLARATION,
};

/// The PTX files to compile: the repository's, then the shared conformance kernels if present.
fn kernels() -> Vec<PathBuf> {
    let root = repository_root();
    let mut files = Vec::new();
    for folder in
        ["examples", "bench/kernels", "tests/fixtures/ptx", "tests/fixtures/kernels", "../shared/conformance/zluda/ptx"]
    {
        let Ok(entries) = std::fs::read_dir(root.join(folder)) else { continue };
        let mut found: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| path.extension().is_some_and(|extension| extension == "ptx"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

/// Compiles `path` for the three GPU targets and checks each artefact; returns the problems.
fn check(path: &Path, validators: &Validators, scratch: &Path) -> Vec<String> {
    let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let Ok(source) = std::fs::read_to_string(path) else { return vec![format!("{}: unreadable", path.display())] };
    let mut problems = Vec::new();
    for target in ["nvptx", "spirv", "amdgpu"] {
        match compile(&source, target) {
            Compiled::Artefact(artefact) => {
                if let Err(message) = validators.check(target, &name, &source, &artefact, scratch) {
                    problems.push(format!(
                        "{name} on {target}: {}",
                        message.lines().take(4).collect::<Vec<_>>().join(" | ")
                    ));
                }
            }
            Compiled::Unsupported(_) => {}
            Compiled::Rejected(message) => eprintln!("note: {name} is rejected before lowering: {message:.200}"),
        }
    }
    problems
}

#[test]
fn every_gpu_artefact_passes_the_vendors_checks() {
    let Some(validators) = Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-gpu-validation-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));

    let files = kernels();
    assert!(files.len() >= 8, "expected the repository's kernels, found {files:?}");
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get()).min(4);
    let problems: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = files
            .chunks(files.len().div_ceil(workers))
            .map(|chunk| {
                scope.spawn(|| chunk.iter().flat_map(|path| check(path, &validators, &scratch)).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| handle.join().unwrap_or_else(|_| vec!["a worker panicked".to_string()]))
            .collect()
    });
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        problems.is_empty(),
        "{} of {} kernels failed a vendor check:\n{}",
        problems.len(),
        files.len(),
        problems.join("\n")
    );
}

/// A kernel in which each thread loads its fragments, runs one `mma` form (`a`, `b`, `c`, `d`
/// registers), and stores D.
fn matrix_multiply_kernel(spelling: &str, [a, b, c, d]: [usize; 4]) -> String {
    let list = |name: &str, count: usize| (0..count).map(|i| format!("%{name}{i}")).collect::<Vec<_>>().join(", ");
    let mut body = String::new();
    for (offset, name) in (0..a + b + c)
        .zip(std::iter::repeat_n("a", a).chain(std::iter::repeat_n("b", b)).chain(std::iter::repeat_n("c", c)))
    {
        let index = match name {
            "a" => offset,
            "b" => offset - a,
            _ => offset - a - b,
        };
        body += &format!("    ld.global.b32 %{name}{index}, [%rd3+{}];\n", 4 * offset);
    }
    body += &format!(
        "    {spelling} {{{}}}, {{{}}}, {{{}}}, {{{}}};\n",
        list("d", d),
        list("a", a),
        list("b", b),
        list("c", c)
    );
    for i in 0..d {
        body += &format!("    st.global.b32 [%rd3+{}], %d{i};\n", 4 * i);
    }
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry matrix(.param .u64 data)\n{{\n    \
         .reg .b32 %a<{a}>;\n    .reg .b32 %b<{b}>;\n    .reg .b32 %c<{c}>;\n    .reg .b32 %d<{d}>;\n    \
         .reg .b32 %r1;\n    .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [data];\n    mov.u32 %r1, %tid.x;\n    \
         mul.wide.u32 %rd2, %r1, 64;\n    add.u64 %rd3, %rd1, %rd2;\n{body}    ret;\n}}\n"
    )
}

/// The one `mma` form on `.f64` registers.
const DOUBLE_MATRIX_MULTIPLY: &str = "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64";

/// A kernel in which each thread loads its `.f64` fragments, runs `DOUBLE_MATRIX_MULTIPLY` and
/// stores D.
fn double_matrix_multiply_kernel() -> String {
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry matrix(.param .u64 data)\n{{\n    \
         .reg .f64 %fd<7>;\n    .reg .b32 %r1;\n    .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [data];\n    \
         mov.u32 %r1, %tid.x;\n    mul.wide.u32 %rd2, %r1, 32;\n    add.u64 %rd3, %rd1, %rd2;\n    \
         ld.global.f64 %fd1, [%rd3];\n    ld.global.f64 %fd2, [%rd3+8];\n    ld.global.f64 %fd3, [%rd3+16];\n    \
         ld.global.f64 %fd4, [%rd3+24];\n    {DOUBLE_MATRIX_MULTIPLY} {{%fd5, %fd6}}, {{%fd1}}, {{%fd2}}, {{%fd3, %fd4}};\n    \
         st.global.f64 [%rd3], %fd5;\n    st.global.f64 [%rd3+8], %fd6;\n    ret;\n}}\n"
    )
}

/// A kernel in which each thread stores a row to shared memory and runs one `ldmatrix` form.
fn load_matrix_kernel(spelling: &str, matrices: usize) -> String {
    let list = (0..matrices).map(|i| format!("%d{i}")).collect::<Vec<_>>().join(", ");
    let address = if spelling.contains(".shared") { "%r3" } else { "%rd4" };
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.shared .align 16 .b8 rows[512];\n\
         .visible .entry matrix(.param .u64 data)\n{{\n    .reg .b32 %d<{matrices}>;\n    .reg .b32 %r<4>;\n    \
         .reg .b64 %rd<5>;\n    ld.param.u64 %rd1, [data];\n    mov.u32 %r1, %tid.x;\n    mov.u32 %r2, rows;\n    \
         mad.lo.u32 %r3, %r1, 16, %r2;\n    st.shared.b32 [%r3], %r1;\n    cvt.u64.u32 %rd2, %r3;\n    \
         cvta.shared.u64 %rd4, %rd2;\n    {spelling} {{{list}}}, [{address}];\n    \
         st.global.b32 [%rd1], %d0;\n    ret;\n}}\n"
    )
}

/// `mma` of every shape and type family that ptxr computes, and every `ldmatrix` form, compile
/// on SPIR-V (checked by spirv-val) and on AMDGPU for wave64 and wave32 processors (checked by
/// the code object's metadata): they are built from warp shuffles there.
#[test]
fn matrix_instructions_compile_and_validate_on_amdgpu_and_spirv() {
    let Some(spirv_val) = validator(&["spirv-val"]) else { return };
    let Some(readelf) = llvm_readelf() else { return };
    let multiplies = [
        ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", [4, 2, 4, 4]),
        ("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", [4, 2, 2, 2]),
        ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", [4, 2, 4, 4]),
        ("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", [2, 1, 2, 2]),
        ("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", [2, 1, 4, 4]),
        ("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", [2, 1, 4, 4]),
        ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", [4, 2, 4, 4]),
        ("mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", [1, 1, 2, 2]),
        ("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.s8.s32", [2, 1, 4, 4]),
        ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", [4, 2, 4, 4]),
        ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", [2, 2, 8, 8]),
        ("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f16", [2, 2, 4, 8]),
        ("mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16", [2, 2, 4, 4]),
    ];
    let loads = [
        ("ldmatrix.sync.aligned.m8n8.x1.shared.b16", 1),
        ("ldmatrix.sync.aligned.m8n8.x2.trans.b16", 2),
        ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", 4),
        ("ldmatrix.sync.aligned.m8n8.x4.b16", 4),
    ];
    let kernels = multiplies
        .iter()
        .map(|(spelling, counts)| (*spelling, matrix_multiply_kernel(spelling, *counts)))
        .chain(loads.iter().map(|(spelling, matrices)| (*spelling, load_matrix_kernel(spelling, *matrices))))
        .chain([(DOUBLE_MATRIX_MULTIPLY, double_matrix_multiply_kernel())]);
    let scratch = std::env::temp_dir().join(format!("ptxr-matrix-validation-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let mut problems = Vec::new();
    for (spelling, source) in kernels {
        let options = |target: &str, arch: Option<&str>| CompileOptions {
            target: describe(target, arch, false).unwrap_or_else(|error| panic!("{error}")),
            emit: None,
            optimization: 2,
        };
        match compile_source(&source, "matrix", &options("spirv", None)) {
            Ok(artifact) => {
                let file = scratch.join("matrix.spv");
                std::fs::write(&file, &artifact.bytes).unwrap_or_else(|error| panic!("{error}"));
                let environment = spirv_environment(&artifact.bytes);
                if let Err(message) = run(Command::new(&spirv_val).args(["--target-env", &environment]).arg(&file)) {
                    problems.push(format!("{spelling} on spirv: {message}"));
                }
            }
            Err(failure) => problems.push(format!("{spelling} on spirv: {failure:?}")),
        }
        for processor in ["gfx90a", "gfx942", "gfx1030", "gfx1100"] {
            match compile_source(&source, "matrix", &options("amdgpu", Some(processor))) {
                Ok(artifact) => {
                    let file = scratch.join(format!("matrix.{processor}.hsaco"));
                    std::fs::write(&file, &artifact.bytes).unwrap_or_else(|error| panic!("{error}"));
                    match run(Command::new(&readelf).arg("--notes").arg(&file)) {
                        Ok(notes)
                            if notes.contains(".name:           matrix\n") && notes.contains(".wavefront_size:") => {}
                        Ok(notes) => problems.push(format!("{spelling} on {processor}: no kernel in {notes:.300}")),
                        Err(message) => problems.push(format!("{spelling} on {processor}: {message}")),
                    }
                }
                Err(failure) => problems.push(format!("{spelling} on {processor}: {failure:?}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `elect.sync` and every `stmatrix` form compile for each GPU target (a ballot; shuffles and
/// stores) and pass its vendor's check: ptxas at sm_90, spirv-val, the code object's metadata.
#[test]
fn elect_and_stmatrix_pass_the_vendors_checks() {
    let Some(validators) = Validators::find() else { return };
    let source = ptxr_tests::read_repository_file("tests/fixtures/kernels/elect_and_stmatrix.ptx");
    let scratch = std::env::temp_dir().join(format!("ptxr-elect-stmatrix-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let mut problems = Vec::new();
    for target in ["nvptx", "spirv", "amdgpu"] {
        match compile(&source, target) {
            Compiled::Artefact(artefact) => {
                if let Err(message) = validators.check(target, "elect_and_stmatrix", &source, &artefact, &scratch) {
                    problems.push(format!("{target}: {message}"));
                }
            }
            Compiled::Unsupported(messages) => problems.push(format!("{target}: unsupported {messages:?}")),
            Compiled::Rejected(message) => problems.push(format!("{target}: rejected {message}")),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Compiles `source` for `target` at `optimization`, as the natural artefact or LLVM IR text.
fn compile_with(source: &str, target: &str, emit: Option<ptxr_lowering::Emit>, optimization: u8) -> Vec<u8> {
    let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit, optimization };
    match compile_source(source, "kernel", &options) {
        Ok(artifact) => artifact.bytes,
        Err(failure) => panic!("{target}: {failure:?}\n{source}"),
    }
}

/// `exit` two calls deep (`leave` exits, `outer` calls it, the kernel calls `outer`), as the
/// execution tests run it on the CPU and through OpenCL.
const EXIT_IN_A_FUNCTION: &str = r#".version 7.8
.target sm_80
.address_size 64

.func (.reg .b32 %out) leave(.reg .b32 %v)
{
    .reg .pred %odd;
    mov.u32 %out, 5;
    setp.ne.u32 %odd, %v, 0;
    @%odd exit;
    mov.u32 %out, 6;
    ret;
}

.func outer(.reg .b32 %v, .reg .b64 %mark)
{
    .reg .b32 %got;
    call.uni (%got), leave, (%v);
    st.global.u32 [%mark], %got;
    ret;
}

.visible .entry test(.param .u64 output)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 1;
    call.uni outer, (%r2, %rd1);
    st.global.u32 [%rd1+4], %r1;
    ret;
}
"#;

/// On AMDGPU `exit` in a `.func` returns, so lowering keeps a per-thread stop flag: the code
/// object is valid, and in the `-O0` IR every call of a function that may exit is followed by a
/// test of the flag that returns (from `outer`, then from the kernel), and `leave` sets it.
#[test]
fn exit_inside_a_function_leaves_every_caller_on_amdgpu() {
    let ir = String::from_utf8(compile_with(EXIT_IN_A_FUNCTION, "amdgpu", Some(ptxr_lowering::Emit::LlvmIr), 0))
        .unwrap_or_else(|error| panic!("{error}"));
    let lines: Vec<&str> = ir.lines().collect();
    let calls: Vec<usize> = (0..lines.len())
        .filter(|&index| {
            lines[index].contains("call ") && (lines[index].contains("@leave(") || lines[index].contains("@outer("))
        })
        .collect();
    assert_eq!(calls.len(), 2, "{ir}");
    for &index in &calls {
        assert!(lines[index].contains("ptr addrspace(5) %thread.stopped"), "the flag is passed: {}", lines[index]);
        let after = lines[index + 1..(index + 5).min(lines.len())].join("\n");
        assert!(
            after.contains("load i32, ptr addrspace(5) %thread.stopped"),
            "no test after {}:\n{after}",
            lines[index]
        );
    }
    assert!(ir.contains("store i32 1, ptr addrspace(5) %thread.stopped"), "{ir}");

    let code_object = compile_with(EXIT_IN_A_FUNCTION, "amdgpu", None, 2);
    let Some(notes) = code_object_notes(&code_object, "exit-in-a-function") else { return };
    assert!(notes.contains(".name:           test\n"), "{notes}");
}

/// Every barrier form on AMDGPU: block reductions (`bar.red.popc`, `.and`, `.or`) and a
/// producer-consumer pair on a counted barrier (`bar.arrive 3, 64` by warp 0, `bar.sync 3, 64`
/// by warp 1).
const BARRIERS: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry barriers(.param .u64 input, .param .u64 output)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<12>;
    .reg .pred %p<4>;
    .shared .u32 slot[4];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r10, %tid.x;
    mul.wide.u32 %rd3, %r10, 4;
    add.u64 %rd5, %rd1, %rd3;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r1, [%rd5];
    setp.ne.u32 %p1, %r1, 0;
    bar.red.popc.u32 %r2, 0, %p1;
    bar.red.and.pred %p2, 1, %p1;
    bar.red.or.pred %p3, 2, !%p1;
    selp.u32 %r3, 1, 0, %p2;
    selp.u32 %r4, 2, 0, %p3;
    add.u32 %r2, %r2, %r3;
    add.u32 %r2, %r2, %r4;
    setp.lt.u32 %p1, %r10, 32;
    @!%p1 bra CONSUMER;
    st.shared.u32 [slot], %r10;
    bar.arrive 3, 64;
    bra DONE;
CONSUMER:
    bar.sync 3, 64;
    ld.shared.u32 %r5, [slot];
    add.u32 %r2, %r2, %r5;
DONE:
    st.global.u32 [%rd4], %r2;
    ret;
}
"#;

/// `bar.red` and counted barriers on AMDGPU (`intrinsics/src/amdgpu_barrier.rs`): code objects
/// for wave64 and wave32 list the kernel; the reductions meet at two `s_barrier`s each around
/// an LDS add, the counted barrier's state is cleared at kernel entry before an `s_barrier`,
/// and `bar.sync 3, 64` waits with `s_sleep`. SPIR-V builds the same software barrier.
#[test]
fn barrier_reductions_and_counted_barriers_compile_for_amdgpu() {
    let assembly = String::from_utf8(compile_with(BARRIERS, "amdgpu", Some(ptxr_lowering::Emit::Assembly), 2))
        .unwrap_or_else(|error| panic!("{error}"));
    // One at entry for the counted barrier's reset, two for each of the three reductions.
    assert_eq!(assembly.matches("s_barrier").count(), 7, "{assembly}");
    assert!(assembly.contains("s_sleep 1"), "{assembly}");
    assert!(assembly.contains("ds_add_rtn_u32"), "the arrival reads the count it adds to: {assembly}");

    let ir = String::from_utf8(compile_with(BARRIERS, "amdgpu", Some(ptxr_lowering::Emit::LlvmIr), 0))
        .unwrap_or_else(|error| panic!("{error}"));
    let kernel = &ir[ir.find("define amdgpu_kernel").unwrap_or_else(|| panic!("{ir}"))..];
    let first_call = kernel.find("call ").unwrap_or_else(|| panic!("{kernel}"));
    assert!(kernel[first_call..].starts_with("call void @ptxr.barrier.reset()"), "the reset comes first: {kernel}");

    for (arch, wave) in [("gfx90a", "64"), ("gfx942", "64"), ("gfx1030", "32"), ("gfx1100", "32")] {
        let description = describe("amdgpu", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target: description, emit: None, optimization: 2 };
        let code_object =
            compile_source(BARRIERS, "barriers", &options).unwrap_or_else(|error| panic!("{arch}: {error:?}"));
        // W0902 exactly where the waves hold two warps, at the first counted barriers
        // (`bar.arrive 3, 64`); the code object's wavefront size below says which those are.
        let hazards: Vec<_> =
            code_object.warnings.iter().filter(|warning| warning.code == Code::CountedBarriersOnWave64).collect();
        if wave == "64" {
            assert_eq!(hazards.len(), 1, "{arch}: {:?}", code_object.warnings);
            let span = hazards[0].primary_span().unwrap_or_else(|| panic!("{arch}: no span"));
            assert_eq!(&BARRIERS[span.start as usize..span.end as usize], "bar.arrive 3, 64;", "{arch}");
            assert!(!hazards[0].is_error());
        } else {
            assert!(code_object.warnings.is_empty(), "{arch}: {:?}", code_object.warnings);
        }
        if let Some(notes) = code_object_notes(&code_object.bytes, &format!("barriers-{arch}")) {
            assert!(notes.contains(".name:           barriers\n"), "{arch}: {notes}");
            assert!(notes.contains(&format!(".wavefront_size: {wave}\n")), "{arch}: {notes}");
        }
    }

    // SPIR-V: the same software barrier in OpenCL local memory, with W0904 (OpenCL promises no
    // forward progress to the polling work-items), cleared at entry before OpenCL's barrier.
    let description = describe("spirv", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: Some(ptxr_lowering::Emit::LlvmIr), optimization: 0 };
    let compiled = compile_source(BARRIERS, "barriers", &options).unwrap_or_else(|error| panic!("{error:?}"));
    let hazards: Vec<_> =
        compiled.warnings.iter().filter(|warning| warning.code == Code::WaitsWithoutForwardProgress).collect();
    assert_eq!(hazards.len(), 1, "{:?}", compiled.warnings);
    let ir = String::from_utf8_lossy(&compiled.bytes);
    assert!(ir.contains("@ptxr.barrier.counted = internal addrspace(3) global"), "{ir}");
    assert!(ir.contains("atomicrmw add ptr addrspace(3)") && ir.contains("syncscope(\"workgroup\") acq_rel"), "{ir}");
    let kernel = &ir[ir.find("define spir_kernel").unwrap_or_else(|| panic!("{ir}"))..];
    let first_call = kernel.find("call ").unwrap_or_else(|| panic!("{kernel}"));
    assert!(kernel[first_call..].starts_with("call spir_func void @ptxr.barrier.reset()"), "{kernel}");
}

/// `nanosleep` of a register, as spin loops back off.
const SLEEP: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry sleeps(.param .u64 output)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mul.lo.u32 %r2, %r1, 100;
    nanosleep.u32 %r2;
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;

/// `nanosleep` on AMDGPU polls the 100 MHz real-time counter (`s_memrealtime`, or the
/// real-time message from gfx11 on), sleeping `s_sleep 1` between polls while far from the end
/// (`intrinsics/src/amdgpu_sleep.rs`); the delay is bounded by PTX's millisecond.
#[test]
fn nanosleep_waits_on_the_real_time_counter_on_amdgpu() {
    for (arch, counter) in
        [("gfx90a", "s_memrealtime"), ("gfx1030", "s_memrealtime"), ("gfx1100", "MSG_RTN_GET_REALTIME")]
    {
        let description = describe("amdgpu", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
        let options =
            CompileOptions { target: description, emit: Some(ptxr_lowering::Emit::Assembly), optimization: 2 };
        let assembly = compile_source(SLEEP, "sleeps", &options).unwrap_or_else(|error| panic!("{arch}: {error:?}"));
        let assembly = String::from_utf8_lossy(&assembly.bytes);
        assert!(assembly.matches(counter).count() >= 2, "{arch}: the start and each poll read the counter: {assembly}");
        assert!(assembly.contains("s_sleep 1"), "{arch}: {assembly}");
    }
    let ir = String::from_utf8(compile_with(SLEEP, "amdgpu", Some(ptxr_lowering::Emit::LlvmIr), 0))
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(ir.contains("i64 1000000"), "the millisecond bound: {ir}");
    assert!(ir.contains("udiv i64") && ir.contains(", 10"), "10 ns ticks: {ir}");

    let Some(notes) = code_object_notes(&compile_with(SLEEP, "amdgpu", None, 2), "sleep") else { return };
    assert!(notes.contains(".name:           sleeps\n"), "{notes}");
}

/// A kernel that prints `i=%d x=%f w=%s:%llx\n` from CUDA's packed buffer (an `int`, a
/// `double`, the address of `word`, a 64-bit integer) and, in thread 99, fails an assertion.
fn printing_kernel(format_address: &str) -> String {
    let vprintf = ".extern .func (.param .b32 func_retval0) vprintf (.param .b64 vprintf_param_0, .param .b64 \
                   vprintf_param_1);\n";
    let assertion = assertfail_call(7);
    let strings = [
        string_global("format", "i=%d x=%f w=%s:%llx\n"),
        string_global("word", "word"),
        string_global("message", "index != input"),
        string_global("file", "kernel.cu"),
        string_global("function", "void test()"),
    ]
    .concat();
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n{vprintf}{ASSERTFAIL_DECLARATION}{strings}
.visible .entry test(.param .u64 output, .param .u64 format_parameter)
{{
    .local .align 8 .b8 depot[32];
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    .reg .f64 %fd<2>;
    .reg .pred %p<2>;
    mov.u64 %rd10, depot;
    cvta.local.u64 %rd11, %rd10;
    mov.u32 %r1, %tid.x;
    st.local.u32 [%rd10], %r1;
    cvt.rn.f64.u32 %fd1, %r1;
    st.local.f64 [%rd10+8], %fd1;
    cvta.global.u64 %rd5, word;
    st.local.u64 [%rd10+16], %rd5;
    cvt.u64.u32 %rd6, %r1;
    st.local.u64 [%rd10+24], %rd6;
    {format_address}
    {{
    .param .b64 param0;
    st.param.b64 [param0], %rd1;
    .param .b64 param1;
    st.param.b64 [param1], %rd11;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r2, [retval0];
    }}
    ld.param.u64 %rd2, [output];
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r2;
    setp.ne.u32 %p1, %r1, 99;
    @%p1 bra DONE;
    {assertion}
DONE:
    ret;
}}
"
    )
}

/// `vprintf` and `__assertfail` on AMDGPU go through LLVM's OpenCL printf
/// (`intrinsics/src/amdgpu_printf.rs`): the code object lists each format in `amdhsa.printf`
/// with the buffer size of each argument (ISA-independent facts of the format: `%d` an `int`,
/// `%f` a `double`, `%llx` 8 bytes, `%s` of a constant written into the format, `:` as `\72`),
/// and the kernel takes the hidden printf buffer; the assertion prints CUDA's message with the
/// block and thread, then traps. A format that is not a traced constant is unsupported.
#[test]
fn printf_and_assertions_reach_the_code_object_metadata_on_amdgpu() {
    let kernel = printing_kernel("cvta.global.u64 %rd1, format;");
    let assembly = String::from_utf8(compile_with(&kernel, "amdgpu", Some(ptxr_lowering::Emit::Assembly), 2))
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(assembly.contains("s_trap 2"), "the failed assertion traps: {assembly}");
    for level in [0, 2] {
        let code_object = compile_with(&kernel, "amdgpu", None, level);
        if let Some(notes) = code_object_notes(&code_object, &format!("printf-{level}")) {
            assert!(notes.contains("value_kind:     hidden_printf_buffer"), "-O{level}: {notes}");
            let formats: Vec<&str> =
                notes.lines().skip_while(|line| !line.starts_with("amdhsa.printf:")).skip(1).take(2).collect();
            let without_id =
                |entry: &str| entry.trim().trim_start_matches("- '").split_once(':').map(|(_, rest)| rest.to_string());
            let mut entries: Vec<String> = formats.iter().filter_map(|entry| without_id(entry)).collect();
            entries.sort();
            assert_eq!(
                entries,
                vec![
                    r"3:4:8:8:i=%d x=%f w=word\72%lx\n'".to_string(),
                    r"7:4:4:4:4:4:4:4:kernel.cu\72%u\72 void test()\72 block\72 [%u,%u,%u], thread\72 [%u,%u,%u] Assertion `index != input` failed.\n'".to_string(),
                ],
                "-O{level}: {notes}"
            );
        }
    }

    let untraced = printing_kernel("ld.param.u64 %rd1, [format_parameter];");
    let description = describe("amdgpu", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: None, optimization: 2 };
    let Err(Failure::Diagnostics(diagnostics)) = compile_source(&untraced, "kernel", &options) else {
        panic!("a format from a parameter compiled")
    };
    assert!(
        diagnostics.iter().any(|diagnostic| diagnostic.message
            == "unsupported: `vprintf` with a format string that is not a constant .global or .const array on amdgpu"),
        "{diagnostics:?}"
    );
}

/// numba (NVVM) keeps `print`'s format and its `%s` strings in `.const`, not `.global`, zeroes
/// the argument buffer before storing into it, and stores its results through generic
/// addresses computed from the kernel's parameters: traced there too, the zero store not
/// counted as a second value, and the generic store known to miss the buffer, they reach the
/// code object's `amdhsa.printf` as nvcc's do.
#[test]
fn printf_formats_in_const_space_reach_the_code_object_metadata_on_amdgpu() {
    let kernel = printing_kernel("mov.u64 %rd7, format;\n    cvta.const.u64 %rd1, %rd7;")
        .replace(".global .align 1 .b8 format[", ".const .align 1 .b8 format[")
        .replace(".global .align 1 .b8 word[", ".const .align 1 .b8 word[")
        .replace(
            "cvta.global.u64 %rd5, word;",
            "mov.u64 %rd8, 0;\n    st.local.u64 [%rd10+16], %rd8;\n    cvta.const.u64 %rd5, word;",
        )
        .replace("st.global.u32 [%rd4], %r2;", "st.u32 [%rd4], %r2;");
    assert!(kernel.contains("st.u32 [%rd4], %r2;"));
    assert!(kernel.contains(".const .align 1 .b8 format[") && kernel.contains(".const .align 1 .b8 word["));
    let code_object = compile_with(&kernel, "amdgpu", None, 2);
    let Some(notes) = code_object_notes(&code_object, "printf-const") else { return };
    assert!(notes.contains(r"i=%d x=%f w=word\72%lx\n"), "{notes}");
}

/// The `amdhsa.printf` formats of a code object, each without its number, sorted.
fn printf_formats(notes: &str) -> Vec<String> {
    let mut formats: Vec<String> = notes
        .lines()
        .skip_while(|line| !line.starts_with("amdhsa.printf:"))
        .skip(1)
        .take_while(|line| line.starts_with("  - '"))
        .filter_map(|line| line.trim().trim_start_matches("- '").trim_end_matches('\'').split_once(':'))
        .map(|(_, rest)| rest.to_string())
        .collect();
    formats.sort();
    formats
}

/// `%s` of an address chosen at run time on AMDGPU (`intrinsics/src/printf_strings.rs`): a
/// `selp` among three string constants is three `printf` variants, each listed in
/// `amdhsa.printf` with its string written into the format and the `%d` its only argument
/// (`1:4:`); an address that lowering cannot trace is compared with the module's strings and
/// null (a variant each: the format itself, `(null)`), and otherwise printed in pieces: the
/// text before the `%s` with its argument, the string by `%c` one to eight at a time, `(null)`
/// for null, then the rest. Each code object builds for wave64 and wave32 processors, and the
/// IR branches over the variants.
#[test]
fn printf_strings_chosen_at_run_time_reach_the_code_object_metadata_on_amdgpu() {
    let words: String = ["zero", "one", "two"].iter().map(|word| string_global(word, word)).collect();
    let chosen = printf_kernel(
        &words,
        "%d is %s\n",
        "rem.u32 %r2, %r1, 3;\nsetp.eq.u32 %p1, %r2, 0;\nsetp.eq.u32 %p2, %r2, 1;\n\
         cvta.global.u64 %rd1, zero;\ncvta.global.u64 %rd2, one;\ncvta.global.u64 %rd3, two;\n\
         selp.b64 %rd5, %rd2, %rd3, %p2;\nselp.b64 %rd4, %rd1, %rd5, %p1;\n\
         st.local.u32 [%depot], %r1;\nst.local.u64 [%depot+8], %rd4;",
    );
    let from_memory = printf_kernel(
        "",
        "%d=%s|\n",
        "cvta.to.global.u64 %rd1, %text;\ncvta.global.u64 %rd2, %rd1;\n\
         st.local.u32 [%depot], %r1;\nst.local.u64 [%depot+8], %rd2;",
    );
    let characters: Vec<String> =
        (1..=8).map(|count| format!("{count}:{}{}", "4:".repeat(count), "%c".repeat(count))).collect();
    let mut expected_from_memory: Vec<String> = [
        // The format itself and null, as variants; the pieces; null in pieces.
        r"1:4:%d=%%d=%%s|\n|\n",
        r"1:4:%d=(null)|\n",
        r"1:4:%d=",
        r"0:|\n",
        r"0:(null)",
    ]
    .iter()
    .map(|format| format.to_string())
    .chain(characters)
    .collect();
    expected_from_memory.sort();
    for (kernel, expected, name) in [
        (&chosen, vec![r"1:4:%d is one\n", r"1:4:%d is two\n", r"1:4:%d is zero\n"], "chosen"),
        (&from_memory, expected_from_memory.iter().map(String::as_str).collect(), "from-memory"),
    ] {
        let ir = String::from_utf8(compile_with(kernel, "amdgpu", Some(ptxr_lowering::Emit::LlvmIr), 0))
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(ir.contains("switch i32 %printf.variant"), "{name}: the variants' switch: {ir}");
        assert_eq!(ir.contains("printf.from_memory:"), name == "from-memory", "{name}: {ir}");
        for arch in ["gfx90a", "gfx1100"] {
            for level in [0, 2] {
                let description = describe("amdgpu", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
                let options = CompileOptions { target: description, emit: None, optimization: level };
                let code_object =
                    compile_source(kernel, "kernel", &options).unwrap_or_else(|error| panic!("{arch}: {error:?}"));
                let Some(notes) = code_object_notes(&code_object.bytes, &format!("printf-{name}-{arch}-{level}"))
                else {
                    return;
                };
                assert_eq!(printf_formats(&notes), expected, "{name} on {arch} -O{level}: {notes}");
            }
        }
    }
}

/// `isspacep.const` and `isspacep.global` on AMDGPU, where constant memory is global memory:
/// `.const` is the module's `.const` variables by address range, and `.global` excludes them
/// besides the LDS and scratch apertures. Both compare with the `.const` table's address in
/// the IR, and wave64 and wave32 code objects list the kernel.
#[test]
fn isspacep_const_compiles_for_amdgpu() {
    let source = ".version 7.8\n.target sm_80\n.address_size 64\n\
        .const .align 4 .u32 table[4] = {7, 11, 13, 17};\n\
        .visible .entry spaces(.param .u64 output)\n{\n    .reg .pred %p<3>;\n    .reg .b32 %r<3>;\n    \
        .reg .b64 %rd<4>;\n    ld.param.u64 %rd1, [output];\n    mov.u64 %rd2, table;\n    \
        cvta.const.u64 %rd3, %rd2;\n    isspacep.const %p1, %rd3;\n    isspacep.global %p2, %rd1;\n    \
        selp.u32 %r1, 1, 0, %p1;\n    selp.u32 %r2, 2, 0, %p2;\n    or.b32 %r1, %r1, %r2;\n    \
        st.global.u32 [%rd1], %r1;\n    ret;\n}\n";
    let ir = String::from_utf8(compile_with(source, "amdgpu", Some(ptxr_lowering::Emit::LlvmIr), 0))
        .unwrap_or_else(|error| panic!("{error}"));
    // Both instructions compare the address with the table's generic address.
    let comparisons = ir.matches("ptrtoint (ptr addrspacecast (ptr addrspace(4) @table to ptr) to i64)").count();
    assert_eq!(comparisons, 2, "{ir}");
    for arch in ["gfx90a", "gfx1100"] {
        let description = describe("amdgpu", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target: description, emit: None, optimization: 2 };
        let code_object =
            compile_source(source, "spaces", &options).unwrap_or_else(|error| panic!("{arch}: {error:?}"));
        if let Some(notes) = code_object_notes(&code_object.bytes, &format!("spaces-{arch}")) {
            assert!(notes.contains(".name:           spaces\n"), "{arch}: {notes}");
        }
    }
}

/// Kernel parameters' addresses and `isspacep.param` on AMDGPU: a kernel's parameters stay in
/// the kernarg segment, where LLVM places each explicit argument at the next multiple of its
/// ABI alignment (`n`: i32 at 0; `blob`: `[12 x i8]` at 4; `half`: i16 at 16; `output`: i64 at
/// 24), so `mov` of a parameter's name is the segment's address plus that offset, and
/// `isspacep.param` (in the kernel and in a `.func`) tests the explicit arguments,
/// `[kernarg.segment.ptr, implicitarg.ptr)`. The code object's metadata must list the same
/// offsets as the model.
#[test]
fn kernel_parameter_addresses_and_isspacep_param_compile_for_amdgpu() {
    let source = ".version 7.8\n.target sm_80\n.address_size 64\n\
        .func (.param .b32 answer) ask(.param .b64 address)\n{\n    .reg .pred %p<2>;\n    .reg .b32 %r<2>;\n    \
        .reg .b64 %rd<2>;\n    ld.param.u64 %rd1, [address];\n    isspacep.param %p1, %rd1;\n    \
        selp.u32 %r1, 1, 0, %p1;\n    st.param.b32 [answer], %r1;\n    ret;\n}\n\
        .visible .entry spaces(.param .u32 n, .param .align 8 .b8 blob[12], .param .u16 half, .param .u64 output)\n{\n    \
        .reg .pred %p<3>;\n    .reg .b32 %r<6>;\n    .reg .b64 %rd<8>;\n    ld.param.u64 %rd1, [output];\n    \
        mov.u64 %rd2, n;\n    mov.u64 %rd3, blob;\n    ld.param.u32 %r1, [%rd3+8];\n    mov.u64 %rd4, half;\n    \
        cvta.param.u64 %rd5, %rd4;\n    isspacep.param %p1, %rd5;\n    selp.u32 %r2, 2, 0, %p1;\n    \
        {\n    .param .b64 address;\n    .param .b32 answer;\n    st.param.b64 [address], %rd5;\n    \
        call.uni (answer), ask, (address);\n    ld.param.b32 %r3, [answer];\n    }\n    \
        add.u32 %r1, %r1, %r2;\n    add.u32 %r1, %r1, %r3;\n    st.global.u32 [%rd1], %r1;\n    \
        st.global.u64 [%rd1+8], %rd2;\n    ret;\n}\n";
    let model = [("n", 0), ("blob", 4), ("half", 16), ("output", 24)];
    let ir = String::from_utf8(compile_with(source, "amdgpu", Some(ptxr_lowering::Emit::LlvmIr), 0))
        .unwrap_or_else(|error| panic!("{error}"));
    let kernel = ptxr_tests::llvm_function(&ir, "spaces");
    // The three taken addresses, each the segment's address plus the parameter's offset.
    for (name, offset) in &model[..3] {
        let gep = "getelementptr inbounds i8, ptr %";
        assert!(
            kernel.lines().any(|line| line.contains(gep) && line.ends_with(&format!(", i64 {offset}"))),
            "`{name}` at kernarg offset {offset}: {kernel}"
        );
    }
    let function = ptxr_tests::llvm_function(&ir, "ask");
    for intrinsic in ["@llvm.amdgcn.kernarg.segment.ptr()", "@llvm.amdgcn.implicitarg.ptr()"] {
        assert!(function.contains(intrinsic), "`isspacep.param` in a `.func` reads {intrinsic}: {function}");
    }
    for arch in ["gfx90a", "gfx1100"] {
        let description = describe("amdgpu", Some(arch), false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target: description, emit: None, optimization: 2 };
        let code_object =
            compile_source(source, "spaces", &options).unwrap_or_else(|error| panic!("{arch}: {error:?}"));
        if let Some(notes) = code_object_notes(&code_object.bytes, &format!("param-spaces-{arch}")) {
            for (name, offset) in model {
                let listed = format!(".name:           {name}\n        .offset:         {offset}\n");
                assert!(notes.contains(&listed), "{arch}: `{name}` at {offset}: {notes}");
            }
        }
    }
}
