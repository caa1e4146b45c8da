//! Decoding generic syntax instructions into typed `ir::Instruction`s, one file per family.
//! `decode` dispatches on the opcode; each family reads its modifiers through `Modifiers` and
//! its operands through `Context`, which report every problem as a diagnostic.

mod arithmetic;
mod bit_manipulation;
mod cache;
mod call;
mod comparison;
mod context;
mod control;
mod data_movement;
mod extended;
mod float;
mod half;
mod hint;
mod matrix;
mod mbarrier;
mod modifiers;
pub(in crate::check) mod opcodes;
mod stack;
mod synchronization;
mod tf32;
mod vector;
mod video;
mod warp_matrix;

pub use warp_matrix::decode as decode_warp_matrix;

pub use context::Context;

use crate::diagnostic::{Code, Diagnostic};
use crate::ir::Instruction;
use crate::syntax::ast;
use modifiers::Modifiers;

/// Decodes one instruction; `None` when it had errors (already reported).
pub fn decode(context: &mut Context, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = instruction.opcode.node.as_str();
    let mut modifiers = Modifiers::new(&instruction.modifiers, &instruction.opcode);
    if !video::reads_selectors(opcode) && uses_operand_forms_not_decoded_yet(instruction) {
        return accept_unlowered(context, &mut modifiers, instruction);
    }
    let decoded = match opcode {
        _ if half::is_half_precision(instruction) => half::decode(context, &mut modifiers, instruction),
        "mov" => data_movement::mov(context, &mut modifiers, instruction),
        "ld" | "ldu" => data_movement::load(context, &mut modifiers, instruction),
        "st" => data_movement::store(context, &mut modifiers, instruction),
        "cp" => cache::copy(context, &mut modifiers, instruction),
        "createpolicy" => cache::create_policy(context, &mut modifiers, instruction),
        "prefetch" | "prefetchu" => cache::prefetch(context, &mut modifiers, instruction),
        "isspacep" => cache::is_space(context, &mut modifiers, instruction),
        "cvta" => data_movement::cvta(context, &mut modifiers, instruction),
        "cvt" => data_movement::cvt(context, &mut modifiers, instruction),
        "add" | "sub" | "mul" | "min" | "max" | "div" | "rem" => {
            arithmetic::binary(context, &mut modifiers, instruction)
        }
        "mad" | "fma" => arithmetic::multiply_add(context, &mut modifiers, instruction),
        "sin" | "cos" | "lg2" | "ex2" | "tanh" | "rcp" | "sqrt" | "rsqrt" => {
            float::unary(context, &mut modifiers, instruction)
        }
        "copysign" => float::copysign(context, &mut modifiers, instruction),
        "and" | "or" | "xor" => arithmetic::logic(context, &mut modifiers, instruction),
        "lop3" => arithmetic::logic_table(context, &mut modifiers, instruction),
        "not" | "cnot" | "neg" | "abs" | "popc" | "clz" | "brev" => {
            arithmetic::unary(context, &mut modifiers, instruction)
        }
        "shl" | "shr" => arithmetic::shift(context, &mut modifiers, instruction),
        "addc" | "subc" => extended::add_subtract(context, &mut modifiers, instruction, false),
        "madc" => extended::multiply_add(context, &mut modifiers, instruction, false),
        "bfe" => bit_manipulation::bit_field_extract(context, &mut modifiers, instruction),
        "bfi" => bit_manipulation::bit_field_insert(context, &mut modifiers, instruction),
        "bfind" => bit_manipulation::find_most_significant_bit(context, &mut modifiers, instruction),
        "fns" => bit_manipulation::find_nth_set_bit(context, &mut modifiers, instruction),
        "bmsk" => bit_manipulation::bit_mask(context, &mut modifiers, instruction),
        "szext" => bit_manipulation::sign_or_zero_extend(context, &mut modifiers, instruction),
        "prmt" => bit_manipulation::permute(context, &mut modifiers, instruction),
        "shf" => bit_manipulation::funnel_shift(context, &mut modifiers, instruction),
        "mul24" | "mad24" => bit_manipulation::multiply_24(context, &mut modifiers, instruction),
        "sad" => bit_manipulation::sum_of_absolute_differences(context, &mut modifiers, instruction),
        "dp4a" | "dp2a" => bit_manipulation::dot_product(context, &mut modifiers, instruction),
        _ if video::is_scalar_video(opcode) => video::scalar(context, &mut modifiers, instruction),
        _ if video::is_simd_video(opcode) => video::simd(context, &mut modifiers, instruction),
        "setp" => comparison::setp(context, &mut modifiers, instruction),
        "testp" => comparison::testp(context, &mut modifiers, instruction),
        "set" => comparison::set(context, &mut modifiers, instruction),
        "selp" => comparison::selp(context, &mut modifiers, instruction),
        "slct" => comparison::slct(context, &mut modifiers, instruction),
        "bra" => control::branch(context, &mut modifiers, instruction),
        "brx" => control::branch_indexed(context, &mut modifiers, instruction),
        "ret" => control::return_(context, &mut modifiers, instruction),
        "exit" => control::exit(context, &mut modifiers, instruction),
        "call" => call::call(context, &mut modifiers, instruction),
        "trap" => call::trap(context, &mut modifiers, instruction),
        "nanosleep" => call::nanosleep(context, &mut modifiers, instruction),
        "brkpt" => hint::breakpoint(context, &mut modifiers, instruction),
        "pmevent" => hint::performance_event(context, &mut modifiers, instruction),
        "discard" | "applypriority" => hint::l2_cache(context, &mut modifiers, instruction),
        "griddepcontrol" => hint::grid_dependency(context, &mut modifiers, instruction),
        "alloca" | "stacksave" | "stackrestore" => stack::stack(context, &mut modifiers, instruction),
        "atom" | "red" => synchronization::atomic(context, &mut modifiers, instruction),
        "membar" | "fence" => synchronization::fence(context, &mut modifiers, instruction),
        "bar" | "barrier" => synchronization::barrier(context, &mut modifiers, instruction),
        "shfl" => synchronization::shuffle(context, &mut modifiers, instruction),
        "vote" => synchronization::vote(context, &mut modifiers, instruction),
        "match" => synchronization::match_(context, &mut modifiers, instruction),
        "redux" => synchronization::redux(context, &mut modifiers, instruction),
        "activemask" => synchronization::active_mask(context, &mut modifiers, instruction),
        "elect" => synchronization::elect(context, &mut modifiers, instruction),
        "mbarrier" => mbarrier::mbarrier(context, &mut modifiers, instruction),
        "mma" => matrix::mma(context, &mut modifiers, instruction),
        "ldmatrix" => matrix::ldmatrix(context, &mut modifiers, instruction),
        "stmatrix" => matrix::stmatrix(context, &mut modifiers, instruction),
        // Known to PTX, not decoded yet.
        _ if opcodes::is_ptx_opcode(opcode) => return accept_unlowered(context, &mut modifiers, instruction),
        _ => {
            let mut diagnostic = Diagnostic::error(Code::UnknownInstruction, format!("unknown instruction `{opcode}`"))
                .with_primary(instruction.opcode.span, "not a PTX instruction");
            if let Some(suggestion) = opcodes::closest(opcode) {
                diagnostic = diagnostic.with_help(format!("did you mean `{suggestion}`?"));
            }
            context.report(diagnostic);
            return None;
        }
    };
    // Returned as it is rather than rebuilt as `Some(decoded?)`, which copies the instruction.
    if decoded.is_some() {
        modifiers.finish(context)?;
    }
    decoded
}

/// Vector operands (`{a, b}`) outside `mov`, `ld`, `st`, `mma`, `ldmatrix` and `stmatrix`, and bracketed lists are valid PTX
/// that the typed decoders do not read yet; such instructions are accepted and reported as
/// unsupported by lowering, never rejected as errors. Vector members (`%v.x`) are read by every
/// decoder through `Context`.
fn uses_operand_forms_not_decoded_yet(instruction: &ast::Instruction) -> bool {
    use crate::syntax::ast::OperandKind;
    let vectors_decoded = matches!(
        instruction.opcode.node.as_str(),
        "mov" | "ld" | "ldu" | "st" | "mma" | "ldmatrix" | "stmatrix" | "wmma"
    );
    let lists_decoded = instruction.opcode.node == "call";
    instruction.operands.iter().any(|operand| match &operand.kind {
        OperandKind::Vector(_) => !vectors_decoded,
        OperandKind::List(_) => !lists_decoded,
        OperandKind::Bracketed(_) => true,
        _ => false,
    })
}

/// Accepts a valid instruction form that is not decoded yet: names in its operands are still
/// resolved (so typos are reported) and lowering reports the instruction as unsupported.
fn accept_unlowered(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    context.resolve_names(&instruction.operands);
    modifiers.drop_all(|_| true);
    Some(Instruction::Unlowered)
}
