//! Decoding generic syntax instructions into typed `ir::Instruction`s, one file per family.
//! `decode` dispatches on the opcode; each family reads its modifiers through `Modifiers` and
//! its operands through `Context`, which report every problem as a diagnostic.

mod arithmetic;
mod b128_type;
mod bit_manipulation;
mod bulk_copy;
mod cache;
mod call;
mod cluster;
mod comparison;
mod context;
mod control;
mod conversion_modifiers;
mod data_movement;
mod extended;
mod float;
mod half;
mod hint;
mod matrix;
mod mbarrier;
mod modifiers;
pub(in crate::check) mod opcodes;
mod packed_single;
mod sparse_matrix;
mod stack;
mod synchronization;
mod tensor_map;
mod texture;
mod tf32;
mod vector;
mod vector_width;
mod video;
mod warp_group_matrix;
mod warp_matrix;

pub use warp_matrix::decode as decode_warp_matrix;

pub use context::Context;

use super::name_map::short_key;
use crate::diagnostic::{Code, Diagnostic};
use crate::ir::Instruction;
use crate::syntax::ast;
use modifiers::Modifiers;

/// Decodes one instruction; `None` when it had errors (already reported).
pub fn decode(context: &mut Context, instruction: &ast::Instruction) -> Option<Instruction> {
    let opcode = instruction.opcode.node.as_str();
    let mut modifiers = Modifiers::new(&instruction.modifiers, &instruction.opcode);
    if b128_type::reports_misplaced(context, &modifiers, instruction) {
        return None;
    }
    if uses_operand_forms_not_decoded_yet(instruction) && !video::reads_selectors(opcode) {
        return accept_unlowered(context, &mut modifiers, instruction);
    }
    let decoded = decode_common(context, &mut modifiers, instruction);
    // Returned as it is rather than rebuilt as `Some(decoded?)`, which copies the instruction.
    if decoded.is_some() {
        modifiers.finish(context)?;
    }
    decoded
}

/// Decodes the instructions whose decoder [`decode_common`] does not choose, by a `match` on the
/// opcode's text (some are longer than a [`short_key`], and some families are recognized by
/// a function rather than a list).
fn decode_rare(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    let opcode = instruction.opcode.node.as_str();
    match opcode {
        "cp" => cache::copy(context, modifiers, instruction),
        "createpolicy" => cache::create_policy(context, modifiers, instruction),
        "prefetch" | "prefetchu" => cache::prefetch(context, modifiers, instruction),
        "isspacep" => cache::is_space(context, modifiers, instruction),
        "mapa" => cluster::map_address(context, modifiers, instruction),
        "getctarank" => cluster::cta_rank(context, modifiers, instruction),
        "sin" | "cos" | "lg2" | "tanh" | "rsqrt" => float::unary(context, modifiers, instruction),
        "copysign" => float::copysign(context, modifiers, instruction),
        "cnot" | "brev" => arithmetic::unary(context, modifiers, instruction),
        "addc" | "subc" => extended::add_subtract(context, modifiers, instruction, false),
        "madc" => extended::multiply_add(context, modifiers, instruction, false),
        "bfe" => bit_manipulation::bit_field_extract(context, modifiers, instruction),
        "bfi" => bit_manipulation::bit_field_insert(context, modifiers, instruction),
        "bfind" => bit_manipulation::find_most_significant_bit(context, modifiers, instruction),
        "fns" => bit_manipulation::find_nth_set_bit(context, modifiers, instruction),
        "bmsk" => bit_manipulation::bit_mask(context, modifiers, instruction),
        "szext" => bit_manipulation::sign_or_zero_extend(context, modifiers, instruction),
        "prmt" => bit_manipulation::permute(context, modifiers, instruction),
        "shf" => bit_manipulation::funnel_shift(context, modifiers, instruction),
        "mul24" | "mad24" => bit_manipulation::multiply_24(context, modifiers, instruction),
        "sad" => bit_manipulation::sum_of_absolute_differences(context, modifiers, instruction),
        "dp4a" | "dp2a" => bit_manipulation::dot_product(context, modifiers, instruction),
        _ if video::is_scalar_video(opcode) => video::scalar(context, modifiers, instruction),
        _ if video::is_simd_video(opcode) => video::simd(context, modifiers, instruction),
        "testp" => comparison::testp(context, modifiers, instruction),
        "set" => comparison::set(context, modifiers, instruction),
        "slct" => comparison::slct(context, modifiers, instruction),
        "brx" => control::branch_indexed(context, modifiers, instruction),
        "trap" => call::trap(context, modifiers, instruction),
        "nanosleep" => call::nanosleep(context, modifiers, instruction),
        "brkpt" => hint::breakpoint(context, modifiers, instruction),
        "pmevent" => hint::performance_event(context, modifiers, instruction),
        "discard" | "applypriority" => hint::l2_cache(context, modifiers, instruction),
        "griddepcontrol" => hint::grid_dependency(context, modifiers, instruction),
        "alloca" | "stacksave" | "stackrestore" => stack::stack(context, modifiers, instruction),
        "membar" | "fence" => synchronization::fence(context, modifiers, instruction),
        "barrier" => synchronization::barrier(context, modifiers, instruction),
        "vote" => synchronization::vote(context, modifiers, instruction),
        "match" => synchronization::match_(context, modifiers, instruction),
        "redux" => synchronization::redux(context, modifiers, instruction),
        "activemask" => synchronization::active_mask(context, modifiers, instruction),
        "elect" => synchronization::elect(context, modifiers, instruction),
        "mbarrier" => mbarrier::mbarrier(context, modifiers, instruction),
        "tensormap" => tensor_map::tensor_map(context, modifiers, instruction),
        "mma" => matrix::mma(context, modifiers, instruction),
        "ldmatrix" => matrix::ldmatrix(context, modifiers, instruction),
        "stmatrix" => matrix::stmatrix(context, modifiers, instruction),
        "tex" => texture::tex(context, modifiers, instruction),
        "tld4" => texture::tld4(context, modifiers, instruction),
        "txq" | "suq" => texture::query(context, modifiers, instruction),
        "suld" => texture::suld(context, modifiers, instruction),
        "sust" => texture::sust(context, modifiers, instruction),
        "sured" => texture::sured(context, modifiers, instruction),
        "wgmma" => warp_group_matrix::wgmma(context, modifiers, instruction),
        // Known to PTX, not decoded yet.
        _ if opcodes::is_ptx_opcode(opcode) => accept_unlowered(context, modifiers, instruction),
        _ => {
            let mut diagnostic = Diagnostic::error(Code::UnknownInstruction, format!("unknown instruction `{opcode}`"))
                .with_primary(instruction.opcode.span, "not a PTX instruction");
            if let Some(suggestion) = opcodes::closest(opcode) {
                diagnostic = diagnostic.with_help(format!("did you mean `{suggestion}`?"));
            }
            context.report(diagnostic);
            None
        }
    }
}

/// Vector operands (`{a, b}`) outside `mov`, `ld`, `st`, `mma`, `wgmma`, `ldmatrix` and `stmatrix`, and bracketed lists are valid PTX
/// that the typed decoders do not read yet; such instructions are accepted and reported as
/// unsupported by lowering, never rejected as errors. Vector members (`%v.x`) are read by every
/// decoder through `Context`.
fn uses_operand_forms_not_decoded_yet(instruction: &ast::Instruction) -> bool {
    use crate::syntax::ast::OperandKind;
    // The opcode is compared only for an instruction with such an operand, which few have.
    let vectors_decoded = || {
        matches!(
            instruction.opcode.node.as_str(),
            "mov"
                | "ld"
                | "ldu"
                | "st"
                | "mma"
                | "ldmatrix"
                | "stmatrix"
                | "wmma"
                | "atom"
                | "red"
                | "tex"
                | "tld4"
                | "suld"
                | "sust"
                | "sured"
                | "wgmma"
        )
    };
    let lookups_decoded = || matches!(instruction.opcode.node.as_str(), "tex" | "tld4" | "suld" | "sust" | "sured");
    let lists_decoded = || instruction.opcode.node == "call";
    instruction.operands.iter().any(|operand| match &operand.kind {
        OperandKind::Vector(_) => !vectors_decoded(),
        OperandKind::List(_) => !lists_decoded(),
        OperandKind::Bracketed(_) => !lookups_decoded() && !is_bulk_tensor_copy(instruction),
        OperandKind::PredicatePair(first, _) if matches!(first.kind, OperandKind::Vector(_)) => !vectors_decoded(),
        _ => false,
    })
}

/// `cp.async.bulk.tensor`, whose `[tensorMap, {coordinates}]` operand `bulk_copy.rs` reads.
fn is_bulk_tensor_copy(instruction: &ast::Instruction) -> bool {
    instruction.opcode.node == "cp" && instruction.modifiers.iter().any(|modifier| modifier.node == "tensor")
}

/// The opcode as a [`short_key`]: a `match` on these is one integer switch, where a `match` on
/// the texts compares them one arm after another.
const fn key(opcode: &str) -> u64 {
    match short_key(opcode) {
        Some(key) => key,
        None => 0,
    }
}

/// Decodes an instruction, choosing the decoder of the opcodes that make up nearly all of real
/// code by one switch on the opcode's key (half-precision forms first, as they are decoded by
/// `half.rs`), and the others through [`decode_rare`]'s `match` on the text. The caller
/// finishes the modifiers.
fn decode_common(
    context: &mut Context,
    modifiers: &mut Modifiers,
    instruction: &ast::Instruction,
) -> Option<Instruction> {
    const MOV: u64 = key("mov");
    const LD: u64 = key("ld");
    const LDU: u64 = key("ldu");
    const ST: u64 = key("st");
    const CVTA: u64 = key("cvta");
    const CVT: u64 = key("cvt");
    const ADD: u64 = key("add");
    const SUB: u64 = key("sub");
    const MUL: u64 = key("mul");
    const MIN: u64 = key("min");
    const MAX: u64 = key("max");
    const DIV: u64 = key("div");
    const REM: u64 = key("rem");
    const MAD: u64 = key("mad");
    const FMA: u64 = key("fma");
    const AND: u64 = key("and");
    const OR: u64 = key("or");
    const XOR: u64 = key("xor");
    const LOP3: u64 = key("lop3");
    const NOT: u64 = key("not");
    const NEG: u64 = key("neg");
    const ABS: u64 = key("abs");
    const POPC: u64 = key("popc");
    const CLZ: u64 = key("clz");
    const SHL: u64 = key("shl");
    const SHR: u64 = key("shr");
    const SETP: u64 = key("setp");
    const SELP: u64 = key("selp");
    const BRA: u64 = key("bra");
    const RET: u64 = key("ret");
    const EXIT: u64 = key("exit");
    const CALL: u64 = key("call");
    const ATOM: u64 = key("atom");
    const RED: u64 = key("red");
    const BAR: u64 = key("bar");
    const SHFL: u64 = key("shfl");
    const RCP: u64 = key("rcp");
    const SQRT: u64 = key("sqrt");
    const EX2: u64 = key("ex2");
    let half = || half::is_half_precision(instruction);
    match key(instruction.opcode.node.as_str()) {
        MOV => data_movement::mov(context, modifiers, instruction),
        LD | LDU => data_movement::load(context, modifiers, instruction),
        ST => data_movement::store(context, modifiers, instruction),
        CVTA => data_movement::cvta(context, modifiers, instruction),
        CVT => data_movement::cvt(context, modifiers, instruction),
        ADD | SUB | MUL | MIN | MAX | FMA | NEG | ABS | SETP if half() => half::decode(context, modifiers, instruction),
        ADD | SUB | MUL | FMA if packed_single::is_packed_single(instruction) => {
            packed_single::decode(context, modifiers, instruction)
        }
        ADD | SUB | MUL | MIN | MAX | DIV | REM => arithmetic::binary(context, modifiers, instruction),
        MAD | FMA => arithmetic::multiply_add(context, modifiers, instruction),
        AND | OR | XOR => arithmetic::logic(context, modifiers, instruction),
        LOP3 => arithmetic::logic_table(context, modifiers, instruction),
        NOT | NEG | ABS | POPC | CLZ => arithmetic::unary(context, modifiers, instruction),
        SHL | SHR => arithmetic::shift(context, modifiers, instruction),
        SETP => comparison::setp(context, modifiers, instruction),
        SELP => comparison::selp(context, modifiers, instruction),
        RCP | SQRT | EX2 => float::unary(context, modifiers, instruction),
        BRA => control::branch(context, modifiers, instruction),
        RET => control::return_(context, modifiers, instruction),
        EXIT => control::exit(context, modifiers, instruction),
        CALL => call::call(context, modifiers, instruction),
        ATOM | RED => synchronization::atomic(context, modifiers, instruction),
        BAR => synchronization::barrier(context, modifiers, instruction),
        SHFL => synchronization::shuffle(context, modifiers, instruction),
        _ => decode_rare(context, modifiers, instruction),
    }
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
