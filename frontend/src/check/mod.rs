//! The semantic pass: syntax tree in, checked module (`crate::ir`) out, with diagnostics.
//!
//! It runs as a flat list of small steps: module directives, module-scope variables, function
//! signatures, then each body (scopes, labels, instruction decoding). Like the parser, it never
//! stops at the first error: every function is checked and every problem reported. A module is
//! returned only when no error was found, so lowering never sees an unchecked module.

mod attributes;
mod calls;
mod declarations;
mod decode;
mod directives;
mod function;
mod gating;
mod name_map;
mod parameters;
mod pragmas;
mod scope;
mod types;

use crate::diagnostic::{has_errors, Diagnostic};
use crate::ir;
use crate::syntax::ast;

pub use directives::NEWEST_VERSION;

/// Checks a parsed module. Returns the checked module when there are no errors, and every
/// diagnostic (errors and warnings) found on the way. The tree is consumed: each function body
/// is dropped as soon as it is checked, to bound the frontend's peak memory.
pub fn check(module: ast::Module) -> (Option<ir::Module>, Vec<Diagnostic>) {
    check_for(module, None)
}

/// [`check`], for a compilation to the NVIDIA architecture `sm_NN` when `compile_sm` is
/// `Some(NN)`: an instruction that needs a newer `sm_` than that is reported too (E0302),
/// although the module's own `.target` allows it.
pub fn check_for(mut module: ast::Module, compile_sm: Option<u32>) -> (Option<ir::Module>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let header = directives::check_header(&module, &mut diagnostics);
    let globals = declarations::module_variables(&module, &mut diagnostics);
    let signatures = function::collect_signatures(&module, &globals, &mut diagnostics);
    attributes::check_attributes(&module, &mut diagnostics);
    pragmas::check_module_pragmas(&module, &mut diagnostics);
    // Gating reads the bodies, so each function is gated before its body is checked and
    // dropped (while it is in the cache); its diagnostics keep their place after those of the
    // bodies and calls.
    let mut gating_diagnostics = Vec::new();
    let mut gate = gating::check_module(&module, &header, compile_sm, &mut gating_diagnostics);
    let bodies = function::Bodies { module: &mut module, gate: &mut gate, gating_diagnostics: &mut gating_diagnostics };
    let (functions, call_sites) = function::check_bodies(&header, &globals, signatures, bodies, &mut diagnostics);
    drop(module);
    calls::check_calls(&functions, &call_sites, &globals.variables, &mut diagnostics);
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
    check_source_for(source, None)
}

/// [`check_source`] for a compilation to `sm_NN` (see [`check_for`]).
pub fn check_source_for(source: &str, compile_sm: Option<u32>) -> (Option<ir::Module>, Vec<Diagnostic>) {
    let (syntax, mut diagnostics) = crate::syntax::parse(source);
    if has_errors(&diagnostics) {
        return (None, diagnostics);
    }
    let (module, check_diagnostics) = check_for(syntax, compile_sm);
    diagnostics.extend(check_diagnostics);
    (module, diagnostics)
}
