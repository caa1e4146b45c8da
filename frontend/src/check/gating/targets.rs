//! The PTX ISA version that introduced each `.target` name: a module whose `.version` is older
//! than its target cannot have been written for it, and ptxas rejects it ("PTX .version 7.7
//! does not support .target sm_90").
//!
//! The rows are the Target ISA notes of section 11.1.2 (`.target`) of the PTX ISA; the Chinese
//! translation in `../shared/spec` stops at ISA 7.8 and leaves that section's notes out, so each
//! row was confirmed against ptxas 12.9 at its version and just below it
//! (`tests/tests/gating.rs`). `sm_88` and `sm_110` (ISA 9.0) are newer than ptxas 12.9 and come
//! from NVIDIA's notes alone. A name missing from the table is not gated.

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::IsaVersion;

use super::super::directives::Header;

const fn isa(major: u32, minor: u32) -> IsaVersion {
    IsaVersion { major, minor }
}

/// `sm_NN` (and `compute_NN`) numbers and the version that introduced the plain target.
#[rustfmt::skip]
const ARCHITECTURES: &[(u32, IsaVersion)] = &[
    (10, isa(1, 0)), (11, isa(1, 0)), (12, isa(1, 2)), (13, isa(1, 2)),
    (20, isa(2, 0)), (21, isa(2, 0)),
    (30, isa(3, 0)), (32, isa(4, 0)), (35, isa(3, 1)), (37, isa(4, 1)),
    (50, isa(4, 0)), (52, isa(4, 1)), (53, isa(4, 2)),
    (60, isa(5, 0)), (61, isa(5, 0)), (62, isa(5, 0)),
    (70, isa(6, 0)), (72, isa(6, 1)), (75, isa(6, 3)),
    (80, isa(7, 0)), (86, isa(7, 1)), (87, isa(7, 4)), (88, isa(9, 0)), (89, isa(7, 8)),
    (90, isa(7, 8)),
    (100, isa(8, 6)), (101, isa(8, 6)), (103, isa(8, 8)), (110, isa(9, 0)),
    (120, isa(8, 7)), (121, isa(8, 8)),
];

/// Architecture-specific (`a`) targets: the version that introduced each.
#[rustfmt::skip]
const ARCHITECTURE_SPECIFIC: &[(u32, IsaVersion)] = &[
    (90, isa(8, 0)), (100, isa(8, 6)), (101, isa(8, 6)), (103, isa(8, 8)), (110, isa(9, 0)),
    (120, isa(8, 7)), (121, isa(8, 8)),
];

/// Family-specific (`f`) targets all arrived with ISA 8.8, except `sm_110f` (9.0).
const FAMILY_SPECIFIC: &[(u32, IsaVersion)] =
    &[(100, isa(8, 8)), (101, isa(8, 8)), (103, isa(8, 8)), (110, isa(9, 0)), (120, isa(8, 8)), (121, isa(8, 8))];

/// Target options other than architectures (`texmode_unified` is the default and as old as
/// PTX; `map_f64_to_f32` is from ISA 1.0).
const OPTIONS: &[(&str, IsaVersion)] = &[("texmode_independent", isa(1, 5)), ("debug", isa(3, 0))];

/// The version that introduced the target `name`; `None` for a name the table does not know.
pub fn introduced(name: &str) -> Option<IsaVersion> {
    if let Some(&(_, version)) = OPTIONS.iter().find(|(option, _)| *option == name) {
        return Some(version);
    }
    let digits = name.strip_prefix("sm_").or_else(|| name.strip_prefix("compute_"))?;
    let (digits, table) = if let Some(digits) = digits.strip_suffix('a') {
        (digits, ARCHITECTURE_SPECIFIC)
    } else if let Some(digits) = digits.strip_suffix('f') {
        (digits, FAMILY_SPECIFIC)
    } else {
        (digits, ARCHITECTURES)
    };
    let number: u32 = digits.parse().ok()?;
    table.iter().find(|(sm, _)| *sm == number).map(|&(_, version)| version)
}

/// E0301 for every target name of `.target` that the module's `.version` predates.
pub fn check_header(header: &Header, diagnostics: &mut Vec<Diagnostic>) {
    // Without `.version` the header check has already reported the module; the 1.0 it assumes
    // would make every target look too new.
    let (Some(target_span), Some(version_span)) = (header.target_span, header.version_span) else { return };
    for name in &header.target_names {
        let Some(version) = introduced(name) else { continue };
        if version <= header.version {
            continue;
        }
        diagnostics.push(
            Diagnostic::error(
                Code::NeedsNewerVersion,
                format!("PTX ISA {} does not support `.target {name}`", header.version),
            )
            .with_primary(target_span, format!("`{name}` was introduced in PTX ISA {version}"))
            .with_secondary(version_span, format!("the module declares PTX ISA {}", header.version))
            .with_note("Target ISA notes of section 11.1.2")
            .with_help(format!("raise `.version` to {version} or later, or target an older architecture")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::introduced;
    use crate::ir::IsaVersion;

    fn version(major: u32, minor: u32) -> Option<IsaVersion> {
        Some(IsaVersion { major, minor })
    }

    /// Section 11.1.2's Target ISA notes: sm_90 and sm_89 came with 7.8, sm_90a with 8.0, sm_100
    /// with 8.6, sm_120 with 8.7, the `f` targets with 8.8.
    #[test]
    fn reads_the_suffixes_and_options() {
        assert_eq!(introduced("sm_90"), version(7, 8));
        assert_eq!(introduced("compute_90"), version(7, 8));
        assert_eq!(introduced("sm_90a"), version(8, 0));
        assert_eq!(introduced("sm_100f"), version(8, 8));
        assert_eq!(introduced("sm_120"), version(8, 7));
        assert_eq!(introduced("debug"), version(3, 0));
        assert_eq!(introduced("texmode_unified"), None);
        assert_eq!(introduced("sm_99"), None);
        assert_eq!(introduced("sm_89a"), None);
    }
}
