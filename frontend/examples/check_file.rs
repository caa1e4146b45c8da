//! Checks one PTX file, for profiling the semantic pass alone:
//! `valgrind --tool=callgrind --toggle-collect='check_file::check_and_drop*' check_file FILE`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: check_file FILE");
    let source = std::fs::read_to_string(path).expect("cannot read the file");
    let (tree, diagnostics) = ptxr_frontend::syntax::parse(&source);
    assert!(!ptxr_frontend::diagnostic::has_errors(&diagnostics), "the file does not parse");
    let checked = check_and_drop(tree);
    println!("{} bytes checked: {checked}", source.len());
}

/// The check and the drop of its result, as the bench times them.
#[inline(never)]
fn check_and_drop(tree: ptxr_frontend::syntax::ast::Module) -> bool {
    let (module, diagnostics) = ptxr_frontend::check(tree);
    assert!(!ptxr_frontend::diagnostic::has_errors(&diagnostics), "the file does not check: {:?}", diagnostics.first());
    module.is_some()
}
