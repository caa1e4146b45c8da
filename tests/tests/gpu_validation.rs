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
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::diagnostic::Code;
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

/// The `.entry` names of a PTX module.
fn entry_names(ptx: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (index, _) in ptx.match_indices(".entry") {
        let rest = ptx[index + ".entry".len()..].trim_start();
        let name: String = rest
            .chars()
            .take_while(|&character| character.is_ascii_alphanumeric() || "_$".contains(character))
            .collect();
        if !name.is_empty() {
            names.push(name);
        }
    }
    names
}

enum Compiled {
    Artefact(Vec<u8>),
    Unsupported,
    /// Not a target's limit: the frontend rejects the file, which other tests cover.
    Rejected(String),
}

fn compile(source: &str, target: &str) -> Compiled {
    let description = describe(target, None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target: description, emit: None, optimization: 2 };
    match compile_source(source, "kernel", &options) {
        Ok(artifact) => Compiled::Artefact(artifact.bytes),
        Err(Failure::Diagnostics(diagnostics))
            if diagnostics.iter().any(|diagnostic| diagnostic.code == Code::Unsupported) =>
        {
            Compiled::Unsupported
        }
        Err(failure) => Compiled::Rejected(format!("{failure:?}")),
    }
}

/// The `.target` of a PTX text (ptxr's NVPTX output names the architecture it was built for).
fn ptx_target(ptx: &str) -> String {
    ptx.lines()
        .find_map(|line| line.trim().strip_prefix(".target"))
        .and_then(|rest| rest.trim().split(|character: char| character == ',' || character.is_whitespace()).next())
        .unwrap_or("sm_52")
        .to_string()
}

/// The `spirv-val` environment for a module: OpenCL 2.2 for SPIR-V 1.2 and older. spirv-tools
/// has no OpenCL environment for SPIR-V 1.3 (the sub-group version ptxr picks for warp
/// collectives); those modules get the universal rules of their SPIR-V version. A module that
/// declared the `Float16` capability would fail here: OpenCL grants it only through the
/// `cl_khr_fp16` device extension, and ptxr keeps `.f16` values as integers so as not to need it.
fn spirv_environment(binary: &[u8]) -> String {
    let word = |index: usize| {
        binary
            .get(index * 4..index * 4 + 4)
            .map_or(0, |bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    };
    let (major, minor) = ((word(1) >> 16) & 0xff, (word(1) >> 8) & 0xff);
    if (major, minor) <= (1, 2) {
        "opencl2.2".to_string()
    } else {
        format!("spv{major}.{minor}")
    }
}

fn run(command: &mut Command) -> Result<String, String> {
    let output = command.output().map_err(|error| error.to_string())?;
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    if output.status.success() {
        Ok(text)
    } else {
        Err(text)
    }
}

struct Validators {
    ptxas: PathBuf,
    spirv_val: PathBuf,
    readelf: PathBuf,
}

/// Compiles `path` for the three GPU targets and checks each artefact; returns the problems.
fn check(path: &Path, validators: &Validators, scratch: &Path) -> Vec<String> {
    let name = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
    let Ok(source) = std::fs::read_to_string(path) else { return vec![format!("{}: unreadable", path.display())] };
    let mut problems = Vec::new();
    let mut fail = |target: &str, message: String| {
        problems.push(format!("{name} on {target}: {}", message.lines().take(4).collect::<Vec<_>>().join(" | ")))
    };
    if let Compiled::Artefact(ptx) = compile(&source, "nvptx") {
        let file = scratch.join(format!("{name}.ptx"));
        std::fs::write(&file, &ptx).unwrap_or_else(|error| panic!("{error}"));
        let architecture = ptx_target(&String::from_utf8_lossy(&ptx));
        // Compile-only: a module may call `.extern` functions that another object defines.
        let result = run(Command::new(&validators.ptxas)
            .arg(format!("-arch={architecture}"))
            .arg("--compile-only")
            .arg("-o")
            .arg(scratch.join(format!("{name}.cubin")))
            .arg(&file));
        if let Err(message) = result {
            fail("nvptx (ptxas)", message);
        }
    }
    if let Compiled::Artefact(binary) = compile(&source, "spirv") {
        let file = scratch.join(format!("{name}.spv"));
        std::fs::write(&file, &binary).unwrap_or_else(|error| panic!("{error}"));
        let environment = spirv_environment(&binary);
        if let Err(message) = run(Command::new(&validators.spirv_val).args(["--target-env", &environment]).arg(&file)) {
            fail(&format!("spirv (spirv-val {environment})"), message);
        }
    }
    match compile(&source, "amdgpu") {
        Compiled::Artefact(code_object) => {
            let file = scratch.join(format!("{name}.hsaco"));
            std::fs::write(&file, &code_object).unwrap_or_else(|error| panic!("{error}"));
            match run(Command::new(&validators.readelf).arg("--notes").arg(&file)) {
                Err(message) => fail("amdgpu (llvm-readelf)", message),
                Ok(notes) => {
                    for kernel in entry_names(&source) {
                        if !notes.contains(&format!(".name:           {kernel}\n")) {
                            fail("amdgpu", format!("kernel {kernel} is missing from the metadata"));
                        }
                    }
                    for field in [".wavefront_size:", ".group_segment_fixed_size:", ".private_segment_fixed_size:"] {
                        if !notes.contains(field) {
                            fail("amdgpu", format!("no {field} in the metadata"));
                        }
                    }
                }
            }
        }
        Compiled::Unsupported => {}
        Compiled::Rejected(message) => eprintln!("note: {name} is rejected before lowering: {message:.200}"),
    }
    problems
}

#[test]
fn every_gpu_artefact_passes_the_vendors_checks() {
    let cached_ptxas = repository_root().join(".cache/ptxas-cu12/nvidia/cuda_nvcc/bin/ptxas");
    let Some(ptxas) = validator(&[cached_ptxas.to_string_lossy().as_ref(), "ptxas"]) else { return };
    let Some(spirv_val) = validator(&["spirv-val"]) else { return };
    let Some(readelf) = validator(&["/usr/lib/llvm-22/bin/llvm-readelf", "llvm-readelf-22"]) else { return };
    let validators = Validators { ptxas, spirv_val, readelf };
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
