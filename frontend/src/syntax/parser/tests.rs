//! Unit tests of the parser: trees of small inputs, error messages and recovery.

use super::parse;

#[test]
fn smoke() {
    let (module, diagnostics) = parse(".version 7.8\n.target sm_80\n.address_size 64\n");
    assert!(diagnostics.is_empty(), "{diagnostics:?}");
    assert_eq!(module.directives.len(), 3);
}
