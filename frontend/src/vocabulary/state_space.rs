//! PTX state spaces (ISA 7.8 section 5.1).

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StateSpace {
    /// Registers (`.reg`).
    Reg,
    /// Special registers (`.sreg`), read-only and predefined.
    SpecialReg,
    /// Shared, read-only constant memory (`.const`).
    Const,
    /// Global memory (`.global`).
    Global,
    /// Per-thread memory (`.local`).
    Local,
    /// Kernel and function parameters (`.param`).
    Param,
    /// Memory shared by the threads of a CTA (`.shared`).
    Shared,
    /// Texture memory (`.tex`, deprecated).
    Tex,
    /// No explicit space: a generic address.
    Generic,
}

impl StateSpace {
    /// Every name [`StateSpace::from_ptx`] reads.
    pub const NAMES: [&'static str; 8] = ["reg", "sreg", "const", "global", "local", "param", "shared", "tex"];

    pub fn from_ptx(name: &str) -> Option<StateSpace> {
        Some(match name {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::SpecialReg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "shared" => StateSpace::Shared,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }

    pub fn as_ptx(self) -> &'static str {
        match self {
            StateSpace::Reg => ".reg",
            StateSpace::SpecialReg => ".sreg",
            StateSpace::Const => ".const",
            StateSpace::Global => ".global",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
            StateSpace::Shared => ".shared",
            StateSpace::Tex => ".tex",
            StateSpace::Generic => "generic",
        }
    }

    /// Every state space, for tables that must cover them all.
    pub const ALL: [StateSpace; 9] = [
        StateSpace::Reg,
        StateSpace::SpecialReg,
        StateSpace::Const,
        StateSpace::Global,
        StateSpace::Local,
        StateSpace::Param,
        StateSpace::Shared,
        StateSpace::Tex,
        StateSpace::Generic,
    ];
}

impl fmt::Display for StateSpace {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_ptx())
    }
}
