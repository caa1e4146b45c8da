//! `.version`, `.target` and `.address_size`: each must appear once, in that order, before
//! anything else (ISA 7.8 section 11.1); `.address_size` defaults to 32 when absent.

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::IsaVersion;
use crate::span::Span;
use crate::syntax::ast::{Directive, Module};

/// What the module header says, after checking.
pub struct Header {
    pub version: IsaVersion,
    /// The `.version` directive, where version-gating diagnostics point; `None` when missing.
    pub version_span: Option<Span>,
    pub sm: Option<u32>,
    /// `a` for an architecture-specific target (`sm_90a`), `f` for a family-specific one
    /// (`sm_100f`), `None` for a plain one.
    pub sm_suffix: Option<char>,
    /// The `.target` directive, where target-gating diagnostics point; `None` when missing.
    pub target_span: Option<Span>,
    pub target_names: Vec<String>,
    pub address_size: u32,
}

/// The newest PTX ISA version that ptxr reads (nvcc 13.5 writes 9.5).
pub const NEWEST_VERSION: IsaVersion = IsaVersion { major: 9, minor: 9 };

pub fn check_header(module: &Module, diagnostics: &mut Vec<Diagnostic>) -> Header {
    let mut version: Option<(IsaVersion, Span)> = None;
    let mut targets: Option<(Vec<String>, Span)> = None;
    let mut address_size: Option<(u32, Span)> = None;
    for directive in &module.directives {
        match directive {
            Directive::Version { major, minor, span } => {
                let this = IsaVersion { major: *major, minor: *minor };
                if let Some((_, first)) = version {
                    diagnostics.push(
                        Diagnostic::error(Code::InvalidDirective, "`.version` appears more than once")
                            .with_primary(*span, "second `.version`")
                            .with_secondary(first, "first declared here"),
                    );
                } else {
                    if this > NEWEST_VERSION || this.major == 0 {
                        diagnostics.push(
                            Diagnostic::error(Code::InvalidDirective, format!("unknown PTX ISA version {this}"))
                                .with_primary(*span, format!("ptxr reads PTX ISA 1.0 to {NEWEST_VERSION}")),
                        );
                    }
                    version = Some((this, *span));
                }
            }
            Directive::Target { targets: names, span } => {
                if let Some((_, first)) = &targets {
                    diagnostics.push(
                        Diagnostic::error(Code::InvalidDirective, "`.target` appears more than once")
                            .with_primary(*span, "second `.target`")
                            .with_secondary(*first, "first declared here"),
                    );
                } else {
                    for name in names {
                        if !is_known_target_name(&name.node) {
                            diagnostics.push(
                                Diagnostic::error(Code::InvalidDirective, format!("unknown target `{}`", name.node))
                                    .with_primary(name.span, "not an `sm_` architecture or a target option")
                                    .with_help("targets look like `sm_80`, `sm_90a`, `texmode_independent`, `debug`"),
                            );
                        }
                    }
                    targets = Some((names.iter().map(|name| name.node.clone()).collect(), *span));
                }
            }
            Directive::AddressSize { bits, span } => {
                if *bits != 32 && *bits != 64 {
                    diagnostics.push(
                        Diagnostic::error(Code::InvalidDirective, format!("invalid address size {bits}"))
                            .with_primary(*span, "`.address_size` must be 32 or 64"),
                    );
                }
                address_size = Some((*bits, *span));
            }
            _ => {}
        }
    }
    let version_span = version.map(|(_, span)| span);
    let version = match version {
        Some((version, _)) => version,
        None => {
            let at = module.directives.first().map(directive_span).unwrap_or_default();
            diagnostics.push(
                Diagnostic::error(Code::InvalidDirective, "the module has no `.version` directive")
                    .with_primary(Span::new(at.start as usize, at.start as usize), "expected `.version` first")
                    .with_help("every PTX module starts with `.version M.m` and `.target sm_NN`"),
            );
            IsaVersion { major: 1, minor: 0 }
        }
    };
    let target_span = targets.as_ref().map(|(_, span)| *span);
    if targets.is_none() && version_span.is_some() {
        // Without `.target` the module says nothing of the machine it was written for, and
        // ptxas rejects it; the `.version` check above already covers a module with neither.
        let at = version_span.map_or(0, |span| span.end);
        diagnostics.push(
            Diagnostic::error(Code::InvalidDirective, "the module has no `.target` directive")
                .with_primary(Span { start: at, end: at }, "expected `.target` after `.version`")
                .with_help("add a target such as `.target sm_80` after the `.version` line"),
        );
    }
    let target_names = targets.map(|(names, _)| names).unwrap_or_default();
    let sm = target_names.iter().find_map(|name| sm_number(name));
    let sm_suffix = target_names
        .iter()
        .find(|name| sm_number(name).is_some())
        .and_then(|name| name.chars().last())
        .filter(|last| matches!(last, 'a' | 'f'));
    Header {
        version,
        version_span,
        sm,
        sm_suffix,
        target_span,
        target_names,
        address_size: address_size.map_or(32, |(bits, _)| bits),
    }
}

fn is_known_target_name(name: &str) -> bool {
    sm_number(name).is_some() || matches!(name, "texmode_unified" | "texmode_independent" | "debug" | "map_f64_to_f32")
}

/// `sm_80` is 80; `sm_90a` and `sm_100f` are 90 and 100 (the suffix only narrows portability).
fn sm_number(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("sm_").or_else(|| name.strip_prefix("compute_"))?;
    let digits = digits.trim_end_matches(['a', 'f']);
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

pub fn directive_span(directive: &Directive) -> Span {
    match directive {
        Directive::Version { span, .. }
        | Directive::Target { span, .. }
        | Directive::AddressSize { span, .. }
        | Directive::File { span, .. }
        | Directive::Section { span, .. }
        | Directive::Pragma { span, .. } => *span,
        Directive::Variable(variable) => variable.span,
        Directive::Function(function) => function.span,
    }
}

#[cfg(test)]
mod tests {
    use super::sm_number;

    #[test]
    fn reads_sm_numbers() {
        assert_eq!(sm_number("sm_80"), Some(80));
        assert_eq!(sm_number("sm_90a"), Some(90));
        assert_eq!(sm_number("sm_100f"), Some(100));
        assert_eq!(sm_number("sm_"), None);
        assert_eq!(sm_number("texmode_unified"), None);
    }
}
