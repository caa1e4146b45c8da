//! `ptxr extract`, and `ptxr compile`/`ptxr run` given CUDA binaries (the fixtures of
//! `tests/fixtures/binaries/`, built by nvcc), as users see them: what is listed, which files are
//! written, which PTX is chosen, and clear errors with exit code 1 for files without PTX or
//! damaged files.

use std::path::{Path, PathBuf};

mod support;
use support::{ptxr, repository_file, scratch};

fn fixture(name: &str) -> String {
    let path = repository_file("tests/fixtures/binaries").join(name);
    path.to_string_lossy().into_owned()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn files_in(directory: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(directory)
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn extract_writes_the_ptx_cuobjdump_extracted_and_lists_every_entry() {
    let directory = scratch();
    let output = ptxr(&["extract", &fixture("libkernels.so"), "-o", "out"], directory.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let out = directory.path().join("out");
    assert_eq!(files_in(&out), ["libkernels.2.sm_80.ptx"]);
    let ours = std::fs::read_to_string(out.join("libkernels.2.sm_80.ptx")).unwrap_or_default();
    let theirs = std::fs::read_to_string(fixture("expected/libkernels.so/libkernels.1.sm_80.ptx")).unwrap_or_default();
    assert!(!theirs.is_empty());
    assert_eq!(ours, theirs);
    let listing = text(&output.stdout);
    let lines: Vec<&str> = listing.lines().collect();
    assert!(lines[0].ends_with("libkernels.so: ELF shared object (fat binaries in .nv_fatbin)"), "{listing}");
    assert!(lines[1].starts_with("fat binary 1 at offset 0x"), "{listing}");
    assert!(lines[2].starts_with("  ELF  sm_90  ") && lines[2].ends_with("uncompressed  kernels: (none)"), "{listing}");
    assert!(lines[4].starts_with("  PTX  sm_80  ISA 9.5  1614 bytes  zstd ("), "{listing}");
    assert!(lines[4].ends_with("kernels: scale_add, mix_bits"), "{listing}");
    assert_eq!(lines[5], "    written to out/libkernels.2.sm_80.ptx");
    assert!(lines[6].starts_with("  ELF  sm_90") && lines[6].ends_with("kernels: mix_bits, scale_add"), "{listing}");
}

#[test]
fn extract_list_writes_nothing_and_names_the_compression() {
    let directory = scratch();
    for (name, compression) in [
        ("libkernels.lz4.so", "lz4 ("),
        ("kernels.fatbin", "uncompressed"),
        ("kernels.rdc.o", "zstd ("),
        ("kernels.concat.fatbin", "zstd, concatenated ("),
    ] {
        let output = ptxr(&["extract", "--list", &fixture(name)], directory.path());
        assert!(output.status.success(), "{}", text(&output.stderr));
        let listing = text(&output.stdout);
        let ptx = listing.lines().find(|line| line.starts_with("  PTX")).unwrap_or_else(|| panic!("{listing}"));
        assert!(ptx.contains(compression), "{name}: {ptx}");
    }
    assert!(files_in(directory.path()).is_empty());
    // The entry flags' bit 0 says 64-bit (kernels.fatbin: first entry header at 16, flags at 40).
    let mut narrow = std::fs::read(fixture("kernels.fatbin")).unwrap_or_default();
    narrow[16 + 40] &= !1;
    std::fs::write(directory.path().join("narrow.fatbin"), &narrow).unwrap_or_default();
    let output = ptxr(&["extract", "--list", "narrow.fatbin"], directory.path());
    assert!(text(&output.stdout).contains("  PTX  sm_80  32-bit  ISA 9.5  "), "{}", text(&output.stdout));
}

#[test]
fn a_cubin_is_listed_but_has_no_ptx_to_extract_or_compile() {
    let directory = scratch();
    let cubin = fixture("kernels.sm_90.cubin");
    let output = ptxr(&["extract", "--list", &cubin], directory.path());
    assert!(output.status.success());
    assert!(text(&output.stdout).contains("a cubin holds SASS only: there is no PTX to extract"));
    let output = ptxr(&["extract", &cubin], directory.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("[E0402]"), "{}", text(&output.stderr));
    let output = ptxr(&["compile", &cubin, "-o", "out"], directory.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("cubin: SASS for sm_90 only"), "{}", text(&output.stderr));
    assert!(files_in(directory.path()).is_empty());
}

#[test]
fn compile_retargets_every_module_and_says_which_ptx_it_used() {
    let directory = scratch();
    let output = ptxr(
        &["compile", &fixture("libkernels.compress-all.so"), "--target", "cpu", "-o", "objects"],
        directory.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    let objects = directory.path().join("objects");
    assert_eq!(files_in(&objects), ["libkernels.compress-all.2.sm_80.cpu.o"]);
    let object = std::fs::read(objects.join("libkernels.compress-all.2.sm_80.cpu.o")).unwrap_or_default();
    assert!(object.starts_with(b"\x7fELF"));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("fat binary 2: using the PTX for sm_80, PTX ISA 9.5 (the module also holds SASS for sm_90)"),
        "{stderr}"
    );
    let output = ptxr(
        &["compile", &fixture("kernels.fatbin"), "--target", "nvptx", "--arch", "sm_90", "-o", "-"],
        directory.path(),
    );
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains(".entry scale_add"));
    let output = ptxr(&["compile", &fixture("kernels.concat.fatbin"), "-o", "objects"], directory.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("using the PTX for sm_80, PTX ISA 9.5 (the module also holds SASS for sm_90; PTX for sm_75)"),
        "{stderr}"
    );
    assert!(objects.join("kernels.concat.1.sm_80.cpu.o").exists());
}

#[test]
fn a_static_library_is_retargeted_member_by_member() {
    let directory = scratch();
    let output =
        ptxr(&["compile", &fixture("libkernels_static.a"), "--target", "spirv", "-o", "out"], directory.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let names = [
        "libkernels_static.1.sm_80.spirv.spv",
        "libkernels_static.2.sm_80.spirv.spv",
        "libkernels_static.3.sm_80.spirv.spv",
    ];
    assert_eq!(files_in(&directory.path().join("out")), names);
    let output = ptxr(&["extract", "--list", &fixture("libkernels_static.a")], directory.path());
    let listing = text(&output.stdout);
    assert!(
        listing.contains("static library (fat binaries in kernels.o, kernels.rdc.o, kernels.clang.o)"),
        "{listing}"
    );
    assert!(listing.contains(" in __nv_relfatbin of member kernels.rdc.o:"), "{listing}");
}

#[test]
fn run_launches_the_kernel_embedded_in_an_executable() {
    let directory = scratch();
    std::fs::write(
        directory.path().join("spec.json"),
        r#"{ "kernel": "square", "grid": [1], "block": [8],
             "buffers": { "v": { "type": "s32", "data": [3, -4, 5, 46341, 0, 0, 0, 7] } },
             "args": [{ "buffer": "v" }, { "type": "s32", "value": 7 }] }"#,
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let output = ptxr(&["run", &fixture("square"), "--launch", "spec.json"], directory.path());
    assert!(output.status.success(), "{}", text(&output.stderr));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| panic!("{error}"));
    // 46341 squared is 2147488281, which wraps to -2147479015 in 32 bits; index 7 is past n.
    let squares = [9, 16, 25, 46341i64 * 46341 - (1i64 << 32), 0, 0, 0, 7];
    assert_eq!(json["buffers"]["v"]["data"], serde_json::json!(squares));
    std::fs::write(directory.path().join("other.json"), r#"{ "kernel": "cube", "args": [] }"#).unwrap_or_default();
    let output = ptxr(&["run", &fixture("square"), "--launch", "other.json"], directory.path());
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    assert!(
        text(&output.stderr).contains("no kernel `cube` in its PTX (its kernels: square (fat binary 2))"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn damaged_binaries_are_diagnostics_with_exit_code_one() {
    let directory = scratch();
    let original = std::fs::read(fixture("libkernels.so")).unwrap_or_default();
    let path: PathBuf = directory.path().join("damaged.so");
    for length in [4, 64, original.len() / 2, original.len() - 1] {
        std::fs::write(&path, &original[..length]).unwrap_or_default();
        for command in [
            &["extract", "damaged.so"][..],
            &["compile", "damaged.so", "-o", "out"],
            &["extract", "--list", "damaged.so"],
        ] {
            let output = ptxr(command, directory.path());
            assert_eq!(output.status.code(), Some(1), "{command:?} at {length}");
            assert!(text(&output.stderr).contains("[E0401]"), "{}", text(&output.stderr));
        }
    }
    let output = ptxr(&["extract", "damaged.so", "--error-format", "json"], directory.path());
    let diagnostic: serde_json::Value =
        serde_json::from_str(text(&output.stderr).lines().next().unwrap_or_default()).unwrap_or_default();
    assert_eq!(diagnostic["code"], "E0401");
    assert!(!directory.path().join("out").exists() || files_in(&directory.path().join("out")).is_empty());
}
