//! `.pragma` strings at module scope (ISA 7.8 section 11.4.7 and the pragma strings of
//! chapter 11.5): `nounroll` is the only one that applies to a whole module. ptxas rejects any
//! other string there ("Pragma 'foo' not supported"), and the function-scope strings of later
//! ISAs (`used_bytes_mask`, `enable_smem_spilling`) outside a function. Inside a function an
//! unknown string only draws a warning from ptxas, so ptxr accepts it silently there.

use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::ast::{self, Directive};

/// Pragma strings that only make sense inside a function, by the word that starts them.
const FUNCTION_SCOPE: &[&str] = &["used_bytes_mask", "enable_smem_spilling"];

pub fn check_module_pragmas(module: &ast::Module, diagnostics: &mut Vec<Diagnostic>) {
    for directive in &module.directives {
        let Directive::Pragma { text, span } = directive else { continue };
        // The parser joins a directive's strings with ", ".
        for pragma in text.split(", ") {
            if pragma == "nounroll" {
                continue;
            }
            let word = pragma.split_whitespace().next().unwrap_or_default();
            let diagnostic = if FUNCTION_SCOPE.contains(&word) {
                Diagnostic::error(Code::InvalidDirective, format!("`.pragma \"{pragma}\"` applies inside a function"))
                    .with_primary(*span, "a function-scope pragma at module scope")
                    .with_help("move it into the body of the function it describes")
            } else {
                Diagnostic::error(Code::InvalidDirective, format!("unknown module-scope pragma \"{pragma}\""))
                    .with_primary(*span, "not a pragma that PTX defines for a module")
                    .with_note("`nounroll` is the pragma a module may carry (section 11.4.7)")
            };
            diagnostics.push(diagnostic);
        }
    }
}
