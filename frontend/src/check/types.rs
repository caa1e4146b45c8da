//! Operand type rules (ISA 7.8 section 5.2 and the "operand size exceeding instruction-type
//! size" table): which register types an instruction of a given type may read and write.

use crate::vocabulary::{ScalarKind, ScalarType};

/// How strictly a register operand's type must match the instruction type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeRule {
    /// Same size, compatible kind (bit types match anything of their size).
    Exact,
    /// `ld`, `st`, `cvt` and `mov` from/to wider registers: a register at least as wide as the
    /// instruction type is also allowed (the value is truncated or extended).
    AllowWider,
}

/// Whether a register declared with `register` may be used where the instruction type is
/// `instruction`. Every register operand is asked: one bit of a table made at compile time from
/// [`fits`], rather than comparing the two types' kinds and sizes each time.
#[inline]
pub fn register_fits(instruction: ScalarType, register: ScalarType, rule: SizeRule) -> bool {
    let table = match rule {
        SizeRule::Exact => &FITS_EXACTLY,
        SizeRule::AllowWider => &FITS_OR_WIDER,
    };
    table[instruction as usize] >> (register as usize) & 1 != 0
}

/// [`fits`] for each instruction type: bit `r` of entry `i` tells whether a register of type
/// `ScalarType::ALL[r]` fits an instruction of type `ScalarType::ALL[i]`.
type FitsTable = [u32; ScalarType::ALL.len()];

const FITS_EXACTLY: FitsTable = fits_table(SizeRule::Exact);
const FITS_OR_WIDER: FitsTable = fits_table(SizeRule::AllowWider);

const fn fits_table(rule: SizeRule) -> FitsTable {
    let mut table = [0; ScalarType::ALL.len()];
    let mut instruction = 0;
    while instruction < ScalarType::ALL.len() {
        let mut register = 0;
        while register < ScalarType::ALL.len() {
            if fits(ScalarType::ALL[instruction], ScalarType::ALL[register], rule) {
                table[instruction] |= 1 << register;
            }
            register += 1;
        }
        instruction += 1;
    }
    table
}

/// The rule itself. A `const fn`, so kinds are compared with `matches!` rather than `==`.
const fn fits(instruction: ScalarType, register: ScalarType, rule: SizeRule) -> bool {
    if instruction as usize == register as usize {
        return true;
    }
    let (instruction_kind, register_kind) = (instruction.kind(), register.kind());
    if matches!(instruction_kind, ScalarKind::Pred) || matches!(register_kind, ScalarKind::Pred) {
        return false;
    }
    if matches!(rule, SizeRule::AllowWider) && register.bits() > instruction.bits() {
        // Wider registers hold the value in their low bits; floats in wider registers are only
        // allowed through bit-size registers.
        return !(matches!(instruction_kind, ScalarKind::Float) && matches!(register_kind, ScalarKind::Float));
    }
    if register.bits() != instruction.bits() {
        return false;
    }
    match instruction_kind {
        ScalarKind::Bit => true,
        ScalarKind::Unsigned | ScalarKind::Signed => {
            matches!(register_kind, ScalarKind::Bit | ScalarKind::Unsigned | ScalarKind::Signed)
        }
        ScalarKind::Float => matches!(register_kind, ScalarKind::Bit),
        ScalarKind::Pred => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{fits, register_fits, SizeRule};
    use crate::vocabulary::ScalarType;

    #[test]
    fn the_table_is_the_rule() {
        for (index, ty) in ScalarType::ALL.into_iter().enumerate() {
            assert_eq!(ty as usize, index, "{ty:?}");
        }
        for instruction in ScalarType::ALL {
            for register in ScalarType::ALL {
                for rule in [SizeRule::Exact, SizeRule::AllowWider] {
                    let expected = fits(instruction, register, rule);
                    assert_eq!(
                        register_fits(instruction, register, rule),
                        expected,
                        "{instruction:?} {register:?} {rule:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn bit_registers_hold_floats_of_their_size() {
        assert!(register_fits(ScalarType::F32, ScalarType::B32, SizeRule::Exact));
        assert!(!register_fits(ScalarType::F32, ScalarType::U32, SizeRule::Exact));
        assert!(!register_fits(ScalarType::F32, ScalarType::F64, SizeRule::Exact));
    }

    #[test]
    fn integers_of_one_size_mix() {
        assert!(register_fits(ScalarType::S32, ScalarType::U32, SizeRule::Exact));
        assert!(register_fits(ScalarType::U64, ScalarType::B64, SizeRule::Exact));
        assert!(!register_fits(ScalarType::S32, ScalarType::S64, SizeRule::Exact));
        assert!(register_fits(ScalarType::U8, ScalarType::U32, SizeRule::AllowWider));
        assert!(!register_fits(ScalarType::U32, ScalarType::U8, SizeRule::AllowWider));
    }

    #[test]
    fn predicates_only_match_predicates() {
        assert!(register_fits(ScalarType::Pred, ScalarType::Pred, SizeRule::Exact));
        assert!(!register_fits(ScalarType::B32, ScalarType::Pred, SizeRule::AllowWider));
    }
}
