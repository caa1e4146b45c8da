//! Where `.b128` may be written. The PTX ISA manual (ISA 8.3, sm_90 for `atom`) gives `.b128` to
//! the data movement instructions `ld` (with `.nc`), `ldu`, `st` and `mov` (also packing and
//! unpacking `.b64`x2 or `.b32`x4), and to `atom.cas`/`atom.exch`; ISA 8.6 (sm_100) adds
//! `clusterlaunchcontrol`, whose `try_cancel` response is a 128-bit value (CUB's device-wide
//! scans and reductions for sm_100 and sm_120 read it with `query_cancel`); no other instruction's
//! syntax lists it (`red`, `st.async`, `shfl`, `cvt`, arithmetic and comparisons have none). The
//! family decoders read a type as any [`ScalarType`](crate::vocabulary::ScalarType) and check the
//! kinds and widths they compute on, which a 128-bit bit type slips through, so the opcodes are
//! checked here once, before any family reads the instruction. `atom` takes `.b128` only for
//! `.cas` and `.exch`, which its own type rule checks.

use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::ast;

use super::{Context, Modifiers};

/// Reports `.b128` on an instruction that does not take it; true when it did.
#[inline]
pub fn reports_misplaced(context: &mut Context, modifiers: &Modifiers, instruction: &ast::Instruction) -> bool {
    // A test of the modifiers' sketch: nearly every instruction has no `.b128`.
    if !modifiers.may_have("b128") {
        return false;
    }
    report_if_misplaced(context, instruction)
}

fn report_if_misplaced(context: &mut Context, instruction: &ast::Instruction) -> bool {
    let Some(ty) = instruction.modifiers.iter().find(|modifier| modifier.node.as_str() == "b128") else {
        return false;
    };
    let opcode = instruction.opcode.node.as_str();
    let is_async_store =
        opcode == "st" && instruction.modifiers.iter().any(|modifier| modifier.node.as_str() == "async");
    if matches!(opcode, "ld" | "ldu" | "mov" | "atom" | "clusterlaunchcontrol") || (opcode == "st" && !is_async_store) {
        return false;
    }
    let spelling = if is_async_store { "st.async".to_string() } else { opcode.to_string() };
    let mut diagnostic = Diagnostic::error(Code::InvalidModifier, format!("`{spelling}` does not take type `.b128`"))
        .with_primary(ty.span, "expected a type of at most 64 bits")
        .with_note(
            "the PTX ISA manual gives `.b128` only to `ld`, `ldu`, `st`, `mov`, `atom.cas`, `atom.exch` and (ISA 8.6) `clusterlaunchcontrol`",
        );
    diagnostic = match opcode {
        "red" => diagnostic.with_help("use `atom.cas.b128` or `atom.exch.b128`, which return the old value"),
        _ => diagnostic.with_help("split the value into `.b64` halves with `mov.b128 {%low, %high}, %value` first"),
    };
    context.report(diagnostic);
    true
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Code;

    /// One kernel at ISA 8.3 for sm_90 (where every `.b128` form exists) whose body is `body`.
    fn diagnostics(body: &str) -> Vec<crate::diagnostic::Diagnostic> {
        let source = format!(
            ".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b128 %q<4>;\n.reg .b64 %rd<4>;\n.reg .b32 %r<5>;\n.reg .pred %p<2>;\n\
             .shared .align 16 .b8 tile[64];\n{body}\nret;\n}}\n"
        );
        crate::check_source(&source).1
    }

    /// The forms whose syntax in the manual lists `.b128` (ISA 8.3).
    #[test]
    fn data_movement_and_128_bit_atomics_take_b128() {
        for body in [
            "ld.global.b128 %q0, [%rd1];",
            "ld.global.nc.b128 %q0, [%rd1];",
            "ldu.global.b128 %q0, [%rd1];",
            "ld.shared.b128 %q0, [tile];",
            "st.shared.b128 [tile], %q0;",
            "st.global.b128 [%rd1+16], %q0;",
            "mov.b128 %q0, %q1;",
            "mov.b128 %q0, {%rd1, %rd2};",
            "mov.b128 {%rd1, %rd2}, %q0;",
            "mov.b128 %q0, {%r1, %r2, %r3, %r4};",
            "mov.b128 {%r1, %r2, %r3, %r4}, %q0;",
            "atom.global.cas.b128 %q0, [%rd1], %q1, %q2;",
            "atom.exch.b128 %q0, [%rd1], %q1;",
            "atom.shared.b128.cas %q0, [tile], %q1, %q2;",
            // ISA 8.6: the cancellation response of a cluster launch, as CUB's sm_100 scans write it.
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [tile], [tile+16];",
            "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %q0;",
            "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %r1, %q0;",
        ] {
            let found = diagnostics(body);
            assert!(found.is_empty(), "{body}: {found:?}");
        }
    }

    /// Instructions whose syntax in the manual has no `.b128`: one E0202 each, on the type,
    /// naming the instruction.
    #[test]
    fn every_other_instruction_rejects_b128_on_its_type() {
        for (body, opcode) in [
            ("and.b128 %q0, %q1, %q2;", "and"),
            ("or.b128 %q0, %q1, %q2;", "or"),
            ("xor.b128 %q0, %q1, %q2;", "xor"),
            ("not.b128 %q0, %q1;", "not"),
            ("add.b128 %q0, %q1, %q2;", "add"),
            ("shl.b128 %q0, %q1, 1;", "shl"),
            ("shr.b128 %q0, %q1, %r1;", "shr"),
            ("setp.eq.b128 %p1, %q0, %q1;", "setp"),
            ("selp.b128 %q0, %q1, %q2, %p1;", "selp"),
            ("cvt.u32.b128 %r1, %q0;", "cvt"),
            ("cvt.b128.u32 %q0, %r1;", "cvt"),
            ("shfl.sync.idx.b128 %q0, %q1, 1, 31, -1;", "shfl"),
            ("red.global.exch.b128 [%rd1], %q0;", "red"),
            ("st.async.shared::cluster.mbarrier::complete_tx::bytes.b128 [%rd1], %q0, [%rd2];", "st.async"),
        ] {
            let found = diagnostics(body);
            assert_eq!(found.len(), 1, "{body}: {found:?}");
            let diagnostic = &found[0];
            assert_eq!(diagnostic.code, Code::InvalidModifier, "{body}");
            assert_eq!(diagnostic.message, format!("`{opcode}` does not take type `.b128`"), "{body}");
            assert!(diagnostic.notes.iter().any(|note| note.contains("`atom.exch`")), "{body}: {diagnostic:?}");
        }
    }

    /// The manual's `red` has no compare-and-swap or exchange, on any type.
    #[test]
    fn red_has_no_compare_and_swap_or_exchange() {
        for (body, message) in [
            ("red.global.exch.b32 [%rd1], %r1;", "`red` has no `.exch` operation"),
            ("red.exch.b64 [%rd1], %rd2;", "`red` has no `.exch` operation"),
            ("red.shared.cas.b32 [tile], %r1, %r2;", "`red` has no `.cas` operation"),
            // `.shared::cluster` forms are accepted before they are decoded: not these.
            ("red.shared::cluster.exch.b32 [%rd1], %r1;", "`red` has no `.exch` operation"),
            ("red.release.cluster.shared::cluster.cas.b64 [%rd1], %rd2, %rd3;", "`red` has no `.cas` operation"),
        ] {
            let found = diagnostics(body);
            assert_eq!(found.len(), 1, "{body}: {found:?}");
            assert_eq!((found[0].code, found[0].message.as_str()), (Code::InvalidModifier, message), "{body}");
        }
        assert!(diagnostics("atom.global.exch.b32 %r0, [%rd1], %r1;").is_empty());
    }
}
