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
/// `instruction`.
pub fn register_fits(instruction: ScalarType, register: ScalarType, rule: SizeRule) -> bool {
    if instruction == register {
        return true;
    }
    let (instruction_kind, register_kind) = (instruction.kind(), register.kind());
    if instruction_kind == ScalarKind::Pred || register_kind == ScalarKind::Pred {
        return false;
    }
    if rule == SizeRule::AllowWider && register.bits() > instruction.bits() {
        // Wider registers hold the value in their low bits; floats in wider registers are only
        // allowed through bit-size registers.
        return !(instruction_kind == ScalarKind::Float && register_kind == ScalarKind::Float);
    }
    if register.bits() != instruction.bits() {
        return false;
    }
    match instruction_kind {
        ScalarKind::Bit => true,
        ScalarKind::Unsigned | ScalarKind::Signed => {
            matches!(register_kind, ScalarKind::Bit | ScalarKind::Unsigned | ScalarKind::Signed)
        }
        ScalarKind::Float => register_kind == ScalarKind::Bit,
        ScalarKind::Pred => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{register_fits, SizeRule};
    use crate::vocabulary::ScalarType;

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
