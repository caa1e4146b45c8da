//! The forms the spec marks as deprecated, as data. They are still read, with a warning
//! (W0001), so `ptxr check` exits 0 on them.
//!
//! Section 9.7.8.5 says `shfl` without `.sync` was deprecated in PTX ISA 6.0 and is no longer
//! supported from ISA 6.4 on `sm_70` and later; 9.7.12.7 marks `vote` without `.sync` as
//! deprecated the same way (ptxas 12.9 rejects both there with "Instruction 'vote' without
//! '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4"). ptxr can
//! still compile them for every target (all lanes take part, as in `.sync` with a full mask), so
//! they stay warnings, naming the removal, rather than errors: ZLUDA's `vote_ballot_nosync`
//! test uses exactly that form. Section 11.4.5 marks the `.maxnctapersm` directive deprecated.

use crate::ir::IsaVersion;

/// An instruction form that lacks a modifier its replacement has.
#[derive(Debug)]
pub struct DeprecatedInstruction {
    pub opcode: &'static str,
    /// The modifier whose absence makes the form deprecated.
    pub missing: &'static str,
    /// The PTX ISA version that deprecated it; older modules get no warning.
    pub since: IsaVersion,
    /// From this ISA version, on this `sm_` target and later, ptxas no longer accepts it.
    pub removed: Option<(IsaVersion, u32)>,
    pub replacement: &'static str,
    pub section: &'static str,
}

pub const DEPRECATED_INSTRUCTIONS: &[DeprecatedInstruction] = &[
    DeprecatedInstruction {
        opcode: "shfl",
        missing: "sync",
        since: IsaVersion { major: 6, minor: 0 },
        removed: Some((IsaVersion { major: 6, minor: 4 }, 70)),
        replacement: "shfl.sync",
        section: "9.7.8.5",
    },
    DeprecatedInstruction {
        opcode: "vote",
        missing: "sync",
        since: IsaVersion { major: 6, minor: 0 },
        removed: Some((IsaVersion { major: 6, minor: 4 }, 70)),
        replacement: "vote.sync",
        section: "9.7.12.7",
    },
];

/// A function directive the spec marks deprecated, and what replaces it.
#[derive(Debug)]
pub struct DeprecatedDirective {
    /// Without its dot, as `ast::FunctionAttribute::name` holds it.
    pub name: &'static str,
    pub replacement: &'static str,
    pub section: &'static str,
}

pub const DEPRECATED_DIRECTIVES: &[DeprecatedDirective] =
    &[DeprecatedDirective { name: "maxnctapersm", replacement: ".minnctapersm", section: "11.4.5" }];
