//! The performance-tuning directives of functions (ISA 7.8 section 11.4): which kind of
//! function takes each, how many values, and which combinations conflict. ptxas rejects every
//! case reported here. `.noreturn` on a kernel is left alone although ptxas rejects it: ZLUDA's
//! conformance tests use it, and it changes nothing a kernel does.

use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::ast::{self, Directive, FunctionKind};

/// Directives that describe a launch, so only a kernel (`.entry`) takes them.
const KERNEL_ONLY: &[&str] = &[
    "maxntid",
    "reqntid",
    "minnctapersm",
    "maxnctapersm",
    "maxnreg",
    "reqnctapercluster",
    "explicitcluster",
    "maxclusterrank",
];

/// Directives whose values are counts that must be positive, and the most values each takes
/// (three for the dimensions x, y, z).
const COUNTS: &[(&str, usize)] = &[
    ("maxntid", 3),
    ("reqntid", 3),
    ("reqnctapercluster", 3),
    ("minnctapersm", 1),
    ("maxnctapersm", 1),
    ("maxnreg", 1),
    ("maxclusterrank", 1),
];

pub fn check_attributes(module: &ast::Module, diagnostics: &mut Vec<Diagnostic>) {
    for directive in &module.directives {
        let Directive::Function(function) = directive else { continue };
        for attribute in &function.attributes {
            check_attribute(function, attribute, diagnostics);
        }
        let named = |name: &str| function.attributes.iter().find(|attribute| attribute.name.node == name);
        if let (Some(maximum), Some(required)) = (named("maxntid"), named("reqntid")) {
            let (first, second) =
                if maximum.span.start < required.span.start { (maximum, required) } else { (required, maximum) };
            diagnostics.push(
                Diagnostic::error(Code::InvalidDirective, "`.maxntid` and `.reqntid` cannot both be given")
                    .with_primary(second.span, format!("`.{}` here", second.name.node))
                    .with_secondary(first.span, format!("`.{}` here", first.name.node))
                    .with_note("section 11.4.3: `.reqntid` cannot be used with `.maxntid`")
                    .with_help("keep `.reqntid` when the block size is exact, `.maxntid` when it is a bound"),
            );
        }
    }
}

fn check_attribute(function: &ast::Function, attribute: &ast::FunctionAttribute, diagnostics: &mut Vec<Diagnostic>) {
    let name = attribute.name.node.as_str();
    if function.kind == FunctionKind::Func && KERNEL_ONLY.contains(&name) {
        diagnostics.push(
            Diagnostic::error(Code::InvalidDirective, format!("`.{name}` applies to kernels only"))
                .with_primary(attribute.name.span, format!("`.{name}` on the `.func` `{}`", function.name.node))
                .with_note("section 11.4: performance-tuning directives describe a kernel's launch")
                .with_help("move it to the `.entry` that calls this function"),
        );
        return;
    }
    let Some(&(_, most)) = COUNTS.iter().find(|(counted, _)| *counted == name) else { return };
    if attribute.values.is_empty() || attribute.values.len() > most {
        let expected = if most == 1 { "one value".to_string() } else { format!("1 to {most} values") };
        diagnostics.push(
            Diagnostic::error(Code::InvalidDirective, format!("`.{name}` takes {expected}"))
                .with_primary(attribute.span, format!("{} values here", attribute.values.len())),
        );
    } else if attribute.values.contains(&0) {
        diagnostics.push(
            Diagnostic::error(Code::InvalidDirective, format!("`.{name}` needs values greater than zero"))
                .with_primary(attribute.span, "a zero here")
                .with_note("section 11.4: these directives give counts of threads, blocks or registers"),
        );
    }
}
