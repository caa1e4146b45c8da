//! Every kernel that ptxr compiles for a GPU target passes that vendor's checks: NVIDIA's
//! `ptxas` accepts the NVPTX output, `spirv-val` accepts the SPIR-V for the OpenCL environment
//! of its version, and the AMDGPU code object's metadata (read by `llvm-readelf`) lists every
//! kernel with its wave size and segment sizes.
//!
//! The kernels: the repository's PTX (examples, fixtures, benchmark kernels) and, when the
//! shared folder is beside the checkout, every execution test of `../shared/conformance`.
//! A kernel that a target reports as unsupported is skipped for that target (the coverage
//! table and the conformance runs account for those); every artefact that is produced is
//! checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_tests::vendor_checks::{compile, run, spirv_environment, Compiled, Validators};
use ptxr_tests::{repository_root, validator};

/// The PTX files to compile: the repository's, then the shared conformance kernels if present.
fn kernels() -> Vec<PathBuf> {
    let root = repository_root();
    let mut files = Vec::new();
    for folder in ["examples", "bench/kernels", "tests/fixtures/ptx", "../shared/conformance/zluda/ptx"] {
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
    let Some(readelf) = validator(&["/usr/lib/llvm-22/bin/llvm-readelf", "llvm-readelf-22"]) else { return };
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
        .chain(loads.iter().map(|(spelling, matrices)| (*spelling, load_matrix_kernel(spelling, *matrices))));
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
