//! The rendered diagnostics of every file in `tests/fixtures/diagnostics/`, as insta snapshots.
//! Each file holds one deliberate mistake (its name says which); the snapshot shows the span,
//! the code and the message that a user sees. Lowering's warnings, which depend on the target,
//! have fixtures of their own that name it.

use std::path::PathBuf;

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_frontend::diagnostic::render_all;
use ptxr_tests::repository_root;

#[test]
fn every_bad_input_gets_its_diagnostic() {
    snapshot_directory("diagnostics", 10, Outcome::Errors);
}

/// Syntax errors: one mistake per file in `tests/fixtures/parse_err/`.
#[test]
fn every_parse_error_gets_its_diagnostic() {
    snapshot_directory("parse_err", 1, Outcome::Errors);
}

/// Name, type, operand, directive and version/target gating errors: one mistake per file in
/// `tests/fixtures/validate_err/`.
#[test]
fn every_validation_error_gets_its_diagnostic() {
    snapshot_directory("validate_err", 20, Outcome::Errors);
}

/// Deprecated and suspicious forms in `tests/fixtures/warnings/`: the module still checks, and
/// every diagnostic is a warning (so `ptxr check` exits 0).
#[test]
fn every_warning_is_reported_and_the_module_checks() {
    snapshot_directory("warnings", 4, Outcome::Warnings);
}

/// Warnings that only lowering for one processor can give, in `tests/fixtures/lowering_warnings/`:
/// each file's first line names the target and processor (`// target: amdgpu gfx90a`), or the
/// target alone (`// target: spirv`); the module compiles there, and every diagnostic is a
/// warning.
#[test]
fn every_lowering_warning_is_reported_and_the_module_compiles() {
    let (directory, paths) = ptx_fixtures("lowering_warnings");
    assert!(!paths.is_empty(), "expected the fixtures in {}", directory.display());
    for path in paths {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let source = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{error}"));
        let target_line = source.lines().next().and_then(|line| line.strip_prefix("// target: "));
        let Some((target, processor)) =
            target_line.map(|line| line.split_once(' ').map_or((line, None), |(target, cpu)| (target, Some(cpu))))
        else {
            panic!("{stem}: the first line must be `// target: KIND {{PROCESSOR}}`")
        };
        let description = describe(target, processor, false).unwrap_or_else(|error| panic!("{stem}: {error}"));
        let options = CompileOptions { target: description, emit: None, optimization: 0 };
        let artifact = compile_source(&source, &stem, &options).unwrap_or_else(|failure| panic!("{stem}: {failure:?}"));
        assert!(!artifact.warnings.is_empty(), "{stem}: no warnings");
        assert!(artifact.warnings.iter().all(|warning| !warning.is_error()), "{stem}: an error");
        let rendered = render_all(&artifact.warnings, &format!("{stem}.ptx"), &source, false);
        snapshot(format!("lowering_warnings__{stem}"), &source, rendered);
    }
}

/// What checking a fixture must give besides its snapshot.
#[derive(Clone, Copy, PartialEq)]
enum Outcome {
    /// No module, at least one error.
    Errors,
    /// A checked module and only warnings, at least one.
    Warnings,
}

/// Snapshots every `.ptx` file of `tests/fixtures/<folder>/`; the snapshots of the original
/// `diagnostics` folder keep their bare names, the others are prefixed with their folder.
fn snapshot_directory(folder: &str, minimum_count: usize, outcome: Outcome) {
    let (directory, paths) = ptx_fixtures(folder);
    assert!(paths.len() >= minimum_count, "expected the diagnostic fixtures in {}", directory.display());
    for path in paths {
        let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
        let name = if folder == "diagnostics" { stem.clone() } else { format!("{folder}__{stem}") };
        let source = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{error}"));
        let (module, diagnostics) = ptxr_frontend::check_source(&source);
        assert!(!diagnostics.is_empty(), "{name}: no diagnostics");
        match outcome {
            Outcome::Errors => assert!(module.is_none(), "{name}: expected errors, the module checked"),
            Outcome::Warnings => {
                assert!(module.is_some(), "{name}: expected only warnings, the module did not check");
                assert!(diagnostics.iter().all(|diagnostic| !diagnostic.is_error()), "{name}: an error");
            }
        }
        let file_name = format!("{stem}.ptx");
        let rendered = render_all(&diagnostics, &file_name, &source, false);
        snapshot(name, &source, rendered);
    }
}

/// The `.ptx` files of `tests/fixtures/<folder>/`, sorted, with the folder's path.
fn ptx_fixtures(folder: &str) -> (PathBuf, Vec<PathBuf>) {
    let directory = repository_root().join("tests/fixtures").join(folder);
    let mut paths: Vec<_> = std::fs::read_dir(&directory)
        .unwrap_or_else(|error| panic!("{}: {error}", directory.display()))
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "ptx"))
        .collect();
    paths.sort();
    (directory, paths)
}

/// The snapshot `name` of `rendered`, with the fixture's source as its description.
fn snapshot(name: String, source: &str, rendered: String) {
    insta::with_settings!({ description => source, omit_expression => true }, {
        insta::assert_snapshot!(name, rendered);
    });
}
