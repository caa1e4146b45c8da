//! `alloca.type ptr, size{, immAlign}`, `stacksave.type d` and `stackrestore.type a` (ISA 7.3,
//! sm_52), whose operands all have the instruction's type, `.u32` or `.u64`.

use crate::check::types::SizeRule;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::{Instruction, Value};
use crate::syntax::ast;
use crate::vocabulary::ScalarType;

use super::{Context, Modifiers};

/// The alignment `alloca` guarantees when none is written, and the largest one it takes.
const DEFAULT_ALIGNMENT: u32 = 8;
const LARGEST_ALIGNMENT: i128 = 1 << 23;

pub fn stack(context: &mut Context, modifiers: &mut Modifiers, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = modifiers.opcode();
    let ty = modifiers.required_type(context)?;
    if !matches!(ty.node, ScalarType::U32 | ScalarType::U64) {
        context.report(
            Diagnostic::error(Code::InvalidModifier, format!("`{opcode}` does not take type `{}`", ty.node))
                .with_primary(ty.span, "expected `.u32` or `.u64`"),
        );
        return None;
    }
    let ty = ty.node;
    let operands = &instruction.operands;
    match opcode {
        "stacksave" => {
            context.expect_operand_count(instruction, 1)?;
            let destination = context.destination(&operands[0], ty, SizeRule::Exact)?;
            Some(Instruction::StackSave { ty, destination })
        }
        "stackrestore" => {
            context.expect_operand_count(instruction, 1)?;
            let source = context.source(&operands[0], ty, SizeRule::Exact)?;
            Some(Instruction::StackRestore { ty, source })
        }
        _ => {
            if operands.len() != 3 {
                context.expect_operand_count(instruction, 2)?;
            }
            let destination = context.destination(&operands[0], ty, SizeRule::Exact)?;
            let size = context.source(&operands[1], ty, SizeRule::Exact)?;
            let align = match operands.get(2) {
                None => DEFAULT_ALIGNMENT,
                Some(operand) => {
                    let value = context.source(operand, ScalarType::U32, SizeRule::Exact)?;
                    match value.value {
                        Value::Integer(immediate)
                            if immediate.get() > 0
                                && immediate.get() <= LARGEST_ALIGNMENT
                                && (immediate.get() as u64).is_power_of_two() =>
                        {
                            // The stack's own alignment, 8, is the least `alloca` gives.
                            (immediate.get() as u32).max(DEFAULT_ALIGNMENT)
                        }
                        _ => {
                            context.report(
                                Diagnostic::error(
                                    Code::OperandKind,
                                    "the alignment of `alloca` must be a constant power of two up to 2^23",
                                )
                                .with_primary(operand.span, "not a valid alignment"),
                            );
                            return None;
                        }
                    }
                }
            };
            Some(Instruction::StackAllocate { ty, destination, size, align })
        }
    }
}
