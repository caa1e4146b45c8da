//! The semantic pass: syntax tree in, checked module (`crate::ir`) out, with diagnostics.
//!
//! It runs as a flat list of small steps: module directives, module-scope variables, function
//! signatures, then each body (scopes, labels, instruction decoding). Like the parser, it never
//! stops at the first error: every function is checked and every problem reported. A module is
//! returned only when no error was found, so lowering never sees an unchecked module.

mod calls;
mod declarations;
mod decode;
mod directives;
mod function;
mod gating;
mod name_map;
mod scope;
mod types;

use crate::diagnostic::{has_errors, Diagnostic};
use crate::ir;
use crate::syntax::ast;

pub use directives::NEWEST_VERSION;

/// Checks a parsed module. Returns the checked module when there are no errors, and every
/// diagnostic (errors and warnings) found on the way. The tree is consumed: each function body
/// is dropped as soon as it is checked, to bound the frontend's peak memory.
pub fn check(mut module: ast::Module) -> (Option<ir::Module>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let header = directives::check_header(&module, &mut diagnostics);
    let globals = declarations::module_variables(&module, &mut diagnostics);
    let signatures = function::collect_signatures(&module, &globals, &mut diagnostics);
    // Gating reads the bodies, so it runs before they are dropped; its diagnostics keep their
    // place after those of the bodies and calls.
    let mut gating_diagnostics = Vec::new();
    gating::check_module(&module, &header, &mut gating_diagnostics);
    let functions = function::check_bodies(&header, &globals, signatures, &mut module, &mut diagnostics);
    drop(module);
    calls::check_calls(&functions, &globals.variables, &mut diagnostics);
    diagnostics.extend(gating_diagnostics);
    if has_errors(&diagnostics) {
        return (None, diagnostics);
    }
    let module = ir::Module {
        version: header.version,
        sm: header.sm,
        target_names: header.target_names,
        address_size: header.address_size,
        globals: globals.variables,
        functions,
    };
    (Some(module), diagnostics)
}

/// Parses and checks PTX source text: the whole frontend in one call.
pub fn check_source(source: &str) -> (Option<ir::Module>, Vec<Diagnostic>) {
    let (syntax, mut diagnostics) = crate::syntax::parse(source);
    if has_errors(&diagnostics) {
        return (None, diagnostics);
    }
    let (module, check_diagnostics) = check(syntax);
    diagnostics.extend(check_diagnostics);
    (module, diagnostics)
}
