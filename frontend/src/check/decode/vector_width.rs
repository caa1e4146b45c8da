//! How wide the vector of a `mov.vN`, `ld.vN`, `ldu.vN` or `st.vN` may be (section 5.4.2, and
//! the 256-bit loads and stores of ISA 8.8).

use crate::diagnostic::{Code, Diagnostic};
use crate::span::{Span, Spanned};
use crate::vocabulary::{ScalarType, StateSpace};

use super::Context;

/// Vector widths (section 5.4.2 and the `ld`/`st`/`mov`/`ldu` syntax): 2, 4 or 8 elements of a
/// non-predicate type of at most 64 bits, 128 bits in all. ISA 8.8 adds 256-bit loads and stores
/// (`.v8` of 32-bit and `.v4` of 64-bit elements, sm_100, which gating checks), to `.global`
/// memory only; ptxas 12.9 also takes them on generic addresses, which may point there.
/// `memory` is the state space of `ld`/`st`, `None` for `mov` and `ldu`.
pub fn check(
    context: &mut Context,
    opcode: &str,
    memory: Option<StateSpace>,
    ty: &Spanned<ScalarType>,
    lanes: u32,
    span: Span,
) -> Option<()> {
    let element = ty.node.bits();
    if ty.node == ScalarType::Pred {
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("`.v{lanes}` does not take elements of type `{}`", ty.node),
            )
            .with_primary(span, "invalid vector width for this type")
            .with_note("vectors hold 2, 4 or 8 elements of a non-predicate type"),
        );
        return None;
    }
    let bits = lanes * element;
    if bits <= 128 {
        return Some(());
    }
    let wide_form = bits == 256 && matches!(element, 32 | 64) && memory.is_some();
    if !wide_form {
        let note = if memory.is_some() {
            "ISA 8.8: `ld` and `st` of `.global` memory also take 256 bits, as `.v8` of 32-bit or `.v4` of 64-bit elements (sm_100)".to_string()
        } else {
            format!("section 5.4.2: a vector is at most 128 bits; only `ld` and `st` have 256-bit forms (ISA 8.8), not `{opcode}`")
        };
        context.report(
            Diagnostic::error(
                Code::InvalidModifier,
                format!("a `.v{lanes}{}` vector is {bits} bits; vectors are at most 128 bits", ty.node.as_ptx()),
            )
            .with_primary(span, format!("{lanes} elements of {element} bits"))
            .with_note(note)
            .with_help("use fewer or narrower elements, or several accesses"),
        );
        return None;
    }
    match memory {
        Some(StateSpace::Global | StateSpace::Generic) | None => Some(()),
        Some(space) => {
            context.report(
                Diagnostic::error(
                    Code::InvalidModifier,
                    format!("a 256-bit `{opcode}.v{lanes}{}` cannot access `{space}` memory", ty.node.as_ptx()),
                )
                .with_primary(span, format!("{lanes} elements of {element} bits"))
                .with_note("ISA 8.8: 256-bit loads and stores are only for `.global` memory (or generic addresses)")
                .with_help("split the access into two 128-bit halves"),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::{Code, Diagnostic};

    /// One kernel at `version` for `target` whose body is `body`, and its diagnostics.
    fn diagnostics(version: &str, target: &str, body: &str) -> Vec<Diagnostic> {
        let source = format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .b128 %q<4>;\n.reg .b64 %rd<9>;\n.reg .b32 %r<9>;\n.reg .f32 %f<9>;\n.reg .f64 %fd<9>;\n\
             .reg .b16 %h<9>;\n.shared .align 32 .b8 tile[256];\n{body}\nret;\n}}\n"
        );
        crate::check_source(&source).1
    }

    /// Up to 128 bits everywhere, and the 256-bit forms of ISA 8.8 on `.global` and generic
    /// addresses for sm_100 and later: ptxas 12.9 takes each of these.
    #[test]
    fn vectors_of_up_to_128_bits_and_the_256_bit_global_forms_check() {
        for (version, target, body) in [
            ("8.3", "sm_90", "ld.global.v2.b64 {%rd2, %rd3}, [%rd1];"),
            ("8.3", "sm_90", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];"),
            ("8.3", "sm_90", "ld.shared.v8.b16 {%h1, %h2, %h3, %h4, %h5, %h6, %h7, %h8}, [tile];"),
            ("8.3", "sm_90", "ldu.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1];"),
            ("8.3", "sm_90", "mov.v2.b64 {%rd2, %rd3}, {%rd1, %rd1};"),
            ("8.8", "sm_100", "ld.global.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];"),
            ("8.8", "sm_100", "ld.global.nc.v4.f64 {%fd1, %fd2, %fd3, %fd4}, [%rd1];"),
            ("8.8", "sm_100", "ld.global.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];"),
            ("8.8", "sm_100", "st.global.v8.f32 [%rd1], {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};"),
            ("8.8", "sm_100", "st.global.v4.u64 [%rd1], {%rd2, %rd3, %rd4, %rd5};"),
            ("8.8", "sm_100", "ld.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];"),
            ("8.8", "sm_120", "ld.global.relaxed.gpu.v8.s32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];"),
        ] {
            let found = diagnostics(version, target, &format!("ld.param.u64 %rd1, [p];\n{body}"));
            assert!(found.is_empty(), "{version} {target} {body}: {found:?}");
        }
    }

    /// More than 128 bits where no 256-bit form exists: one E0202 naming the width and the limit.
    /// ptxas 12.9: "Vector type too large, exceeds 128 bit limit", at any version and target.
    #[test]
    fn vectors_wider_than_128_bits_outside_the_256_bit_forms_are_errors() {
        for (body, message) in [
            ("ld.global.v2.b128 {%q0, %q1}, [%rd1];", "a `.v2.b128` vector is 256 bits; vectors are at most 128 bits"),
            ("st.global.v2.b128 [%rd1], {%q0, %q1};", "a `.v2.b128` vector is 256 bits; vectors are at most 128 bits"),
            (
                "ld.global.v4.b128 {%q0, %q1, %q2, %q3}, [%rd1];",
                "a `.v4.b128` vector is 512 bits; vectors are at most 128 bits",
            ),
            (
                "ld.global.v8.b64 {%rd1, %rd2, %rd3, %rd4, %rd5, %rd6, %rd7, %rd8}, [%rd1];",
                "a `.v8.b64` vector is 512 bits; vectors are at most 128 bits",
            ),
            (
                "ldu.global.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [%rd1];",
                "a `.v4.b64` vector is 256 bits; vectors are at most 128 bits",
            ),
            (
                "mov.v4.b64 {%rd2, %rd3, %rd4, %rd5}, {%rd1, %rd1, %rd1, %rd1};",
                "a `.v4.b64` vector is 256 bits; vectors are at most 128 bits",
            ),
        ] {
            for (version, target) in [("8.3", "sm_90"), ("8.8", "sm_100")] {
                let found = diagnostics(version, target, body);
                assert_eq!(found.len(), 1, "{version} {target} {body}: {found:?}");
                assert_eq!((found[0].code, found[0].message.as_str()), (Code::InvalidModifier, message), "{body}");
            }
        }
    }

    /// The 256-bit forms exist only for `.global` memory (and generic addresses); ptxas 12.9:
    /// "global state space expected for feature '256 bit wide load/store'".
    #[test]
    fn the_256_bit_forms_are_errors_outside_global_memory() {
        for (body, message) in [
            (
                "ld.shared.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [tile];",
                "a 256-bit `ld.v4.b64` cannot access `.shared` memory",
            ),
            (
                "st.shared.v8.b32 [tile], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};",
                "a 256-bit `st.v8.b32` cannot access `.shared` memory",
            ),
            ("ld.param.v4.b64 {%rd2, %rd3, %rd4, %rd5}, [p];", "a 256-bit `ld.v4.b64` cannot access `.param` memory"),
            (
                "ld.local.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];",
                "a 256-bit `ld.v8.f32` cannot access `.local` memory",
            ),
            (
                "ld.const.v8.b32 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1];",
                "a 256-bit `ld.v8.b32` cannot access `.const` memory",
            ),
        ] {
            let found = diagnostics("8.8", "sm_100", body);
            assert_eq!(found.len(), 1, "{body}: {found:?}");
            assert_eq!((found[0].code, found[0].message.as_str()), (Code::InvalidModifier, message), "{body}");
        }
    }
}
