//! Forms that only architecture-specific (`sm_90a`, `sm_100a`, ...) or family-specific
//! (`sm_100f`, ...) targets have: ptxas refuses them on the plain target of the same number
//! ("Instruction 'wgmma.fence' not supported on .target 'sm_90'"). Each row lists the
//! architecture numbers whose `a` and `f` targets have the form, as ptxas 12.9 (and 13's for
//! sm_110) answered for every `a`/`f` target from sm_90a to sm_121f.

/// The `a`/`f` targets that have a form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecificTargets {
    /// Every architecture- or family-specific target (all of them are sm_90a or later).
    Any,
    /// Those of these architecture numbers.
    Of(&'static [u32]),
}

pub struct ArchitectureSpecific {
    pub opcodes: &'static [&'static str],
    /// Each group must be matched by one of the instruction's modifiers.
    pub modifiers: &'static [&'static [&'static str]],
    pub targets: SpecificTargets,
    /// How the spec names the form, for messages.
    pub form: &'static str,
}

impl ArchitectureSpecific {
    /// Whether a module whose `.target` is `sm_{sm}` with `suffix` (`a`, `f` or none) has it.
    pub fn allows(&self, sm: Option<u32>, suffix: Option<char>) -> bool {
        match (suffix, self.targets) {
            (None, _) => false,
            (Some(_), SpecificTargets::Any) => true,
            // `wgmma` exists on sm_90a alone; there is no sm_90f.
            (Some(_), SpecificTargets::Of(numbers)) => sm.is_some_and(|sm| numbers.contains(&sm)),
        }
    }

    /// The targets to name in a diagnostic, for a module of `sm_{sm}`.
    pub fn required(&self, sm: Option<u32>) -> String {
        match self.targets {
            SpecificTargets::Any => match sm {
                Some(sm) if sm >= 100 => format!("sm_{sm}a or sm_{sm}f"),
                Some(sm) if sm >= 90 => format!("sm_{sm}a"),
                _ => "an architecture-specific target such as sm_90a".to_string(),
            },
            SpecificTargets::Of(numbers) => numbers
                .iter()
                .map(
                    |number| {
                        if *number >= 100 {
                            format!("sm_{number}a or sm_{number}f")
                        } else {
                            format!("sm_{number}a")
                        }
                    },
                )
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

#[rustfmt::skip]
pub const ARCHITECTURE_SPECIFIC: &[ArchitectureSpecific] = &[
    ArchitectureSpecific { opcodes: &["wgmma"], modifiers: &[], targets: SpecificTargets::Of(&[90]), form: "`wgmma`" },
    ArchitectureSpecific { opcodes: &["setmaxnreg"], modifiers: &[], targets: SpecificTargets::Any, form: "`setmaxnreg`" },
    ArchitectureSpecific { opcodes: &["tensormap"], modifiers: &[&["replace"]], targets: SpecificTargets::Any, form: "`tensormap.replace`" },
    ArchitectureSpecific { opcodes: &["redux"], modifiers: &[&["f32"]], targets: SpecificTargets::Of(&[100, 103]), form: "`redux.sync.min`/`.max` on `.f32`" },
    // ptxas 13.5: "Feature 'cvt.e2m1x2.f32' not supported on .target 'sm_100'" (and sm_90a,
    // sm_120); every `a`/`f` target from sm_100a to sm_121f has it.
    ArchitectureSpecific { opcodes: &["cvt"], modifiers: &[&["e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2"]], targets: SpecificTargets::Of(&[100, 101, 103, 110, 120, 121]), form: "`cvt` with `.e2m1x2`, `.e2m3x2`, `.e3m2x2` or `.ue8m0x2`" },
];

#[cfg(test)]
mod tests {
    use super::{SpecificTargets, ARCHITECTURE_SPECIFIC};

    #[test]
    fn rows_allow_what_ptxas_allows() {
        let wgmma = &ARCHITECTURE_SPECIFIC[0];
        assert!(wgmma.allows(Some(90), Some('a')));
        assert!(!wgmma.allows(Some(90), None));
        assert!(!wgmma.allows(Some(100), Some('a')));
        let setmaxnreg = &ARCHITECTURE_SPECIFIC[1];
        assert_eq!(setmaxnreg.targets, SpecificTargets::Any);
        assert!(setmaxnreg.allows(Some(120), Some('f')));
        assert!(!setmaxnreg.allows(Some(100), None));
        assert_eq!(setmaxnreg.required(Some(100)), "sm_100a or sm_100f");
        assert_eq!(wgmma.required(Some(100)), "sm_90a");
    }
}
