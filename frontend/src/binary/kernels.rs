//! The kernel names a listing shows for a PTX entry.

use crate::syntax::ast::{Directive, FunctionKind};

/// The `.entry` names of a PTX text, in the order they appear (declared or defined). Parsing
/// never fails, so a damaged text gives the kernels the parser could still find.
pub fn ptx_kernels(text: &str) -> Vec<String> {
    let (module, _) = crate::syntax::parse(text);
    module
        .directives
        .iter()
        .filter_map(|directive| match directive {
            Directive::Function(function) if function.kind == FunctionKind::Entry => Some(function.name.node.clone()),
            _ => None,
        })
        .collect()
}
