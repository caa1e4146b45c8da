//! The gating tables and their diagnostics. Expected versions and targets are the ones the spec
//! states (section numbers beside each case), never read back from the table.

use super::deprecations::{DEPRECATED_DIRECTIVES, DEPRECATED_INSTRUCTIONS};
use super::requirements::REQUIREMENTS;
use crate::check::decode::opcodes::is_ptx_opcode;
use crate::diagnostic::{Code, Diagnostic, Severity};

/// A module with one kernel whose body is `body`, under the given `.version` and `.target`.
fn module(version: &str, target: &str, body: &str) -> String {
    // `.address_size` arrived with ISA 2.3.
    let (major, minor) = version.split_once('.').unwrap_or((version, "0"));
    let old = (major.parse::<u32>().unwrap_or(0), minor.parse::<u32>().unwrap_or(0)) < (2, 3);
    let address_size = if old { "" } else { ".address_size 64\n" };
    format!(
        ".version {version}\n.target {target}\n{address_size}\
         .visible .entry k()\n{{\n.reg .b16 %h<4>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
         .reg .f32 %f<4>;\n.reg .pred %p<4>;\n{body}\nret;\n}}\n"
    )
}

fn diagnostics(version: &str, target: &str, body: &str) -> Vec<Diagnostic> {
    crate::check_source(&module(version, target, body)).1
}

fn codes(version: &str, target: &str, body: &str) -> Vec<Code> {
    diagnostics(version, target, body).iter().map(|diagnostic| diagnostic.code).collect()
}

#[test]
fn every_row_names_a_ptx_opcode_and_a_requirement() {
    for requirement in REQUIREMENTS {
        assert!(!requirement.opcodes.is_empty(), "{requirement:?}");
        for opcode in requirement.opcodes {
            assert!(is_ptx_opcode(opcode), "`{opcode}` in {requirement:?} is not a PTX opcode");
        }
        assert!(requirement.version.is_some() || requirement.sm.is_some(), "{requirement:?} requires nothing");
        assert!(requirement.modifiers.iter().all(|group| !group.is_empty()), "{requirement:?} has an empty group");
        assert!(!requirement.form.is_empty() && !requirement.section.is_empty(), "{requirement:?}");
    }
    for deprecation in DEPRECATED_INSTRUCTIONS {
        assert!(is_ptx_opcode(deprecation.opcode), "{deprecation:?}");
    }
    assert!(!DEPRECATED_DIRECTIVES.is_empty());
}

/// ptx-extended-precision-integer.md: 64-bit `add.cc` needs ISA 4.3 and sm_20; 32-bit needs 1.2.
#[test]
fn sixty_four_bit_carry_needs_isa_4_3_and_sm_20() {
    let body = "add.cc.u64 %rd1, %rd2, %rd3;\naddc.u64 %rd1, %rd2, %rd3;";
    assert_eq!(codes("4.2", "sm_20", body), [Code::NeedsNewerVersion, Code::NeedsNewerVersion]);
    assert_eq!(codes("4.3", "sm_20", body), []);
    assert_eq!(codes("4.3", "sm_13", body), [Code::NeedsNewerTarget, Code::NeedsNewerTarget]);
    assert_eq!(codes("1.2", "sm_10", "add.cc.u32 %r1, %r2, %r3;"), []);
    assert_eq!(codes("1.1", "sm_10", "add.cc.u32 %r1, %r2, %r3;"), [Code::NeedsNewerVersion]);
}

/// ptx-half-precision-comparison.md: `setp` on `.bf16` needs ISA 7.8 and sm_90; on `.f16`
/// ISA 4.2 and sm_53.
#[test]
fn bf16_comparison_needs_isa_7_8_and_sm_90() {
    let body = "setp.eq.bf16 %p1, %h1, %h2;";
    assert_eq!(codes("7.8", "sm_90", body), []);
    assert_eq!(codes("7.8", "sm_80", body), [Code::NeedsNewerTarget]);
    assert_eq!(codes("7.0", "sm_80", body), [Code::NeedsNewerVersion, Code::NeedsNewerTarget]);
    assert_eq!(codes("4.2", "sm_53", "setp.eq.f16 %p1, %h1, %h2;"), []);
    assert_eq!(codes("4.1", "sm_52", "setp.eq.f16 %p1, %h1, %h2;"), [Code::NeedsNewerVersion, Code::NeedsNewerTarget]);
    assert_eq!(codes("4.2", "sm_52", "setp.eq.f16 %p1, %h1, %h2;"), [Code::NeedsNewerTarget]);
}

/// The strongest requirement is the one reported: `.bf16` (7.8) over half precision (4.2).
#[test]
fn one_error_per_instruction_names_the_newest_requirement() {
    let found = diagnostics("4.0", "sm_50", "setp.eq.bf16 %p1, %h1, %h2;");
    assert_eq!(found.len(), 2, "{found:#?}");
    assert!(found[0].message.contains("PTX ISA 7.8"), "{}", found[0].message);
    assert!(found[1].message.contains("sm_90"), "{}", found[1].message);
}

/// The labels: the instruction is primary, the directive secondary. `min.xorsign.abs`
/// (section 9.7.3.11) needs ISA 7.2 and sm_86.
#[test]
fn gating_errors_point_at_the_instruction_and_the_directive() {
    let source = module("7.0", "sm_80", "min.xorsign.abs.f32 %f1, %f2, %f3;");
    let (checked, found) = crate::check_source(&source);
    assert!(checked.is_none());
    let [version, target] = found.as_slice() else { panic!("{found:#?}") };
    let labels = |diagnostic: &Diagnostic| -> Vec<(String, bool)> {
        diagnostic.labels.iter().map(|label| (source[label.span.range()].to_string(), label.primary)).collect()
    };
    assert_eq!(version.code, Code::NeedsNewerVersion);
    assert_eq!(version.message, "`min.xorsign.abs.f32` needs PTX ISA 7.2 or later");
    assert_eq!(labels(version), [("min.xorsign.abs.f32".to_string(), true), (".version 7.0".to_string(), false)]);
    assert_eq!(target.code, Code::NeedsNewerTarget);
    assert_eq!(target.message, "`min.xorsign.abs.f32` needs sm_86 or later");
    assert_eq!(labels(target), [("min.xorsign.abs.f32".to_string(), true), (".target sm_80".to_string(), false)]);
}

/// `max.f32` with three sources (Triton 3.9's sm_120 reductions) needs ISA 8.8 and sm_100; with
/// two it needs neither.
#[test]
fn three_source_max_needs_isa_8_8_and_sm_100() {
    let body = "max.f32 %f0, %f1, %f2, %f3;";
    assert_eq!(codes("8.8", "sm_100", body), []);
    assert_eq!(codes("8.8", "sm_120a", body), []);
    assert_eq!(codes("8.7", "sm_100", body), [Code::NeedsNewerVersion]);
    assert_eq!(codes("8.8", "sm_90", body), [Code::NeedsNewerTarget]);
    assert_eq!(codes("7.0", "sm_80", "max.f32 %f0, %f1, %f2;"), []);
}

/// `.f32x2` arithmetic (Triton 3.9's sm_100 and sm_120 attention) needs ISA 8.6 and sm_100.
#[test]
fn f32x2_arithmetic_needs_isa_8_6_and_sm_100() {
    let body = "mul.f32x2 %rd0, %rd1, %rd2;\nfma.rn.ftz.f32x2 %rd0, %rd1, %rd2, %rd3;";
    assert_eq!(codes("8.6", "sm_100", body), []);
    // The third: `.target sm_100` itself needs ISA 8.6.
    assert_eq!(codes("8.5", "sm_100", body), [Code::NeedsNewerVersion; 3]);
    assert_eq!(codes("8.6", "sm_90", body), [Code::NeedsNewerTarget, Code::NeedsNewerTarget]);
}

/// Section 9.7.12.11: `redux.sync` needs ISA 7.0 and sm_80.
#[test]
fn redux_needs_sm_80() {
    let body = "redux.sync.add.u32 %r1, %r2, 0xffffffff;";
    assert_eq!(codes("7.0", "sm_80", body), []);
    let found = diagnostics("7.0", "sm_75", body);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].code, Code::NeedsNewerTarget);
    let source = module("7.0", "sm_75", body);
    let labels: Vec<(&str, bool)> =
        found[0].labels.iter().map(|label| (&source[label.span.range()], label.primary)).collect();
    assert_eq!(labels, [("redux.sync.add.u32", true), (".target sm_75", false)]);
}

/// `::cta` matches a suffixed state space (section 9.7.8.8: ISA 7.8).
#[test]
fn sub_qualifier_patterns_match_suffixes() {
    let body = "ld.shared::cta.u32 %r1, [%rd1];";
    assert_eq!(codes("7.8", "sm_80", body), []);
    assert_eq!(codes("7.7", "sm_80", body), [Code::NeedsNewerVersion]);
    assert_eq!(codes("7.7", "sm_80", "ld.shared.u32 %r1, [%rd1];"), []);
}

/// A target suffix (`sm_90a`) keeps the number's features.
#[test]
fn architecture_suffixes_keep_their_number() {
    assert_eq!(codes("8.0", "sm_90a", "setp.eq.bf16 %p1, %h1, %h2;"), []);
}

/// Section 9.7.12.7: `vote` without `.sync` is deprecated since ISA 6.0 and removed from 6.4 on
/// sm_70; it stays a warning, and the module still checks.
#[test]
fn vote_without_sync_is_a_warning() {
    let source = module("7.0", "sm_70", "vote.ballot.b32 %r1, %p1;");
    let (checked, found) = crate::check_source(&source);
    assert!(checked.is_some(), "{found:#?}");
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!((found[0].severity, found[0].code), (Severity::Warning, Code::Deprecated));
    assert!(!found[0].notes.is_empty(), "the removal on sm_70 is noted");
    assert_eq!(codes("5.0", "sm_30", "vote.ballot.b32 %r1, %p1;"), []);
    assert_eq!(codes("7.0", "sm_70", "vote.sync.ballot.b32 %r1, %p1, 0xffffffff;"), []);
}

/// Section 11.4.5: `.maxnctapersm` is deprecated.
#[test]
fn maxnctapersm_is_a_warning() {
    let source = ".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k() .maxnctapersm 2\n{\nret;\n}\n";
    let (checked, found) = crate::check_source(source);
    assert!(checked.is_some(), "{found:#?}");
    assert_eq!(found.iter().map(|diagnostic| diagnostic.code).collect::<Vec<_>>(), [Code::Deprecated]);
}

/// A module without `.target` is an error (ptxas rejects it too).
#[test]
fn a_module_needs_a_target() {
    let (checked, found) = crate::check_source(".version 7.0\n.address_size 64\n.visible .entry k()\n{\nret;\n}\n");
    assert!(checked.is_none());
    assert_eq!(found.iter().map(|diagnostic| diagnostic.code).collect::<Vec<_>>(), [Code::InvalidDirective]);
}

/// Section 11.1.2: `sm_90` came with ISA 7.8, so an older `.version` cannot target it; the
/// error points at `.target` and names the `.version` line.
#[test]
fn a_target_newer_than_the_version_is_an_error() {
    assert_eq!(codes("7.8", "sm_90", ""), []);
    let found = diagnostics("7.7", "sm_90", "");
    assert_eq!(found.iter().map(|diagnostic| diagnostic.code).collect::<Vec<_>>(), [Code::NeedsNewerVersion]);
    assert!(found[0].message.contains("sm_90"), "{found:?}");
    assert_eq!(found[0].labels.len(), 2, "{found:?}");
    assert_eq!(codes("7.9", "sm_90a", ""), [Code::NeedsNewerVersion]);
    assert_eq!(codes("8.0", "sm_90a", ""), []);
}

/// Section 9.7.3.7: `mad.f32` without rounding is the sm_1x form, which ptxas still reads for
/// later targets up to PTX ISA 3.1 and rejects from 3.2 on.
#[test]
fn unrounded_mad_f32_is_read_up_to_isa_3_1() {
    let body = "mad.f32 %f1, %f2, %f3, %f1;";
    assert_eq!(codes("2.3", "sm_13", body), []);
    assert_eq!(codes("3.1", "sm_30", body), []);
    assert_eq!(codes("3.2", "sm_30", body), [Code::InvalidModifier]);
    assert_eq!(codes("7.8", "sm_80", body), [Code::InvalidModifier]);
}

/// ISA 8.6 (NVIDIA's notes, confirmed with ptxas 12.9 and 13.5): `cvt` with the 6- and 4-bit
/// floats or `.ue8m0x2` needs ISA 8.6 and an `a`/`f` target from sm_100a up: ptxas 13.5 refuses
/// it on plain sm_100 and sm_120 and on sm_90a.
#[test]
fn micro_float_conversions_need_isa_8_6_and_sm_100() {
    for body in [
        "cvt.rn.satfinite.e2m3x2.f32 %h1, %f1, %f2;",
        "cvt.rn.satfinite.relu.e3m2x2.f32 %h1, %f1, %f2;",
        "cvt.rn.f16x2.e3m2x2 %r1, %h1;",
        "cvt.rn.bf16x2.ue8m0x2 %r1, %h1;",
    ] {
        assert_eq!(codes("8.6", "sm_100a", body), [], "{body}");
        // (sm_100a itself needs ISA 8.6, so the older version is tried on sm_90.)
        assert_eq!(codes("8.5", "sm_90", body), [Code::NeedsNewerVersion, Code::NeedsNewerTarget], "{body}");
        assert_eq!(codes("8.6", "sm_90", body), [Code::NeedsNewerTarget], "{body}");
        assert_eq!(codes("8.6", "sm_100", body), [Code::NeedsNewerTarget], "{body}");
        assert_eq!(codes("8.8", "sm_120", body), [Code::NeedsNewerTarget], "{body}");
        assert_eq!(codes("8.8", "sm_120f", body), [], "{body}");
    }
}
