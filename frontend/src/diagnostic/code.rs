//! Stable diagnostic codes. A code never changes meaning once published; new situations get new
//! codes. E00xx: syntax; E01xx: names and declarations; E02xx: types and operands; E03xx: version
//! and target gating; E04xx: CUDA binaries and fat binaries; E09xx: lowering and targets. W-codes
//! are warnings.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Code {
    /// The text does not follow PTX syntax at this point.
    SyntaxError,
    /// A character that cannot start any PTX token.
    InvalidCharacter,
    /// A numeric literal that is malformed or out of range.
    InvalidLiteral,
    /// A string or block comment that runs to the end of the file.
    Unterminated,
    /// A name used but never declared.
    UndeclaredName,
    /// A name declared twice in the same scope.
    DuplicateDeclaration,
    /// A label used by a branch but not defined in the function.
    UndefinedLabel,
    /// The entry named on the command line or in a launch spec does not exist.
    UnknownKernel,
    /// An instruction opcode that PTX does not define.
    UnknownInstruction,
    /// A modifier that the instruction does not accept, or a missing required modifier.
    InvalidModifier,
    /// An instruction got the wrong number of operands.
    OperandCount,
    /// An operand of the wrong kind (register, immediate, address...).
    OperandKind,
    /// An operand whose type or size does not fit the instruction type.
    OperandType,
    /// A declaration with an invalid type, state space or size.
    InvalidDeclaration,
    /// A module directive (.version, .target, .address_size) that is missing, repeated or invalid.
    InvalidDirective,
    /// A feature that needs a newer PTX ISA version than the module declares.
    NeedsNewerVersion,
    /// A feature that needs a newer `sm_` target than the module declares.
    NeedsNewerTarget,
    /// A CUDA binary or fat binary that is truncated, corrupted or not what its headers claim.
    InvalidBinary,
    /// A CUDA binary that carries no PTX (only SASS, or no fat binary at all).
    NoPtx,
    /// A valid PTX construct that ptxr does not handle on the chosen target.
    Unsupported,
    /// A function declared without a body (`.extern .func f`) that the module calls or
    /// addresses, on a target that produces a complete program: neither the module nor ptxr
    /// defines it.
    UndefinedFunction,
    /// A failure inside LLVM (verifier or code generation): a bug in ptxr.
    InternalCompilerError,
    /// A deprecated form that is still accepted.
    Deprecated,
    /// Launch arguments after the kernel's last parameter, which the launch ignores.
    IgnoredArguments,
    /// An integer immediate wider than the instruction type, which keeps only its low bits.
    TruncatedImmediate,
    /// A kernel run on the host wrote past the end of a launch buffer (into its guard zone).
    BufferOverrun,
    /// `bar.arrive` or a counted barrier compiled for a processor whose waves hold two PTX warps
    /// (wave64 AMDGPU), where warps of one wave at different counted barriers can hang.
    CountedBarriersOnWave64,
    /// `mbarrier.test_wait`/`try_wait` compiled for a processor whose lanes of one wave cannot
    /// wait for each other in divergent code (AMDGPU).
    MbarrierWaitsInWaves,
    /// A wait for other threads of the block that is a polling loop on a target that does not
    /// promise forward progress between the work-items of a group (SPIR-V for OpenCL).
    WaitsWithoutForwardProgress,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::SyntaxError => "E0001",
            Code::InvalidCharacter => "E0002",
            Code::InvalidLiteral => "E0003",
            Code::Unterminated => "E0004",
            Code::UndeclaredName => "E0101",
            Code::DuplicateDeclaration => "E0102",
            Code::UndefinedLabel => "E0103",
            Code::UnknownKernel => "E0104",
            Code::UnknownInstruction => "E0201",
            Code::InvalidModifier => "E0202",
            Code::OperandCount => "E0203",
            Code::OperandKind => "E0204",
            Code::OperandType => "E0205",
            Code::InvalidDeclaration => "E0206",
            Code::InvalidDirective => "E0207",
            Code::NeedsNewerVersion => "E0301",
            Code::NeedsNewerTarget => "E0302",
            Code::InvalidBinary => "E0401",
            Code::NoPtx => "E0402",
            Code::Unsupported => "E0901",
            Code::UndefinedFunction => "E0902",
            Code::InternalCompilerError => "E0999",
            Code::Deprecated => "W0001",
            Code::IgnoredArguments => "W0002",
            Code::TruncatedImmediate => "W0003",
            Code::BufferOverrun => "W0901",
            Code::CountedBarriersOnWave64 => "W0902",
            Code::MbarrierWaitsInWaves => "W0903",
            Code::WaitsWithoutForwardProgress => "W0904",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}
