//! `isspacep` on the CPU with every kind of address a kernel can come by, each asked all five
//! forms (ISA 7.8 section 9.7.8.16). Expected answers follow section 6.4.1.1: a generic
//! address is global unless it lies in the `.const`, `.local` or `.shared` window, and the
//! `.param` window lies inside the `.global` one, so exactly one of `.global`, `.shared`,
//! `.local` and `.const` holds for every address, and `.param` holds for a kernel parameter's
//! address besides `.global`. The kernels also meet at a barrier between taking the addresses
//! and asking, in the body (work-item loops; LLVM coroutines under `PTXR_CPU_WAITS=coroutines`)
//! and inside a `.func` (stackful coroutines), so that the addresses live across waits.

use ptxr_tests::{cpu_llvm_ir, cpu_waits_forced_to_coroutines, llvm_function, run, run_ok, Buffer, Launch};

/// The answers for one address, one bit per form, in this order.
const FORMS: [&str; 5] = ["global", "shared", "local", "const", "param"];

/// Bits of `FORMS` that hold for each address the kernel asks about, in the kernel's order.
const EXPECTED: [(&str, &[&str]); 7] = [
    ("a `.local` array", &["local"]),
    ("a `.shared` variable", &["shared"]),
    ("a `.global` variable", &["global"]),
    ("a launch buffer", &["global"]),
    ("a `malloc` block", &["global"]),
    ("a `.const` variable", &["const"]),
    ("a kernel parameter", &["global", "param"]),
];

const WORDS: usize = 8;

const WAIT_FOR_THE_BLOCK: &str = ".func wait_for_the_block()\n{\n    bar.sync 0;\n    ret;\n}";

/// Where the kernel meets the other threads between taking the addresses and asking.
#[derive(Clone, Copy, Debug)]
enum Wait {
    None,
    InTheBody,
    InAFunc,
}

/// A kernel that stores, for each address of `EXPECTED`, the mask of the forms that held, at
/// word `tid * WORDS + index` of `output`; then `ld`s through the parameter's generic address
/// into the last word, which must read the parameter's value back.
fn kernel(wait: Wait) -> String {
    // The `.func` is declared only where it is called: a `.func` that waits anywhere in the
    // module turns every kernel's threads into stackful coroutines.
    let (waiting, function) = match wait {
        Wait::None => ("", ""),
        Wait::InTheBody => ("    bar.sync 0;\n", ""),
        Wait::InAFunc => ("    call.uni wait_for_the_block;\n", WAIT_FOR_THE_BLOCK),
    };
    let mut asks = String::new();
    for (index, _) in EXPECTED.iter().enumerate() {
        asks.push_str("    mov.u32 %r2, 0;\n");
        for (bit, form) in FORMS.iter().enumerate() {
            asks.push_str(&format!(
                "    isspacep.{form} %p1, %rd{};\n    selp.u32 %r3, {}, 0, %p1;\n    or.b32 %r2, %r2, %r3;\n",
                10 + index,
                1 << bit
            ));
        }
        asks.push_str(&format!("    st.global.u32 [%rd3+{}], %r2;\n", 4 * index));
    }
    format!(
        r#"
.version 8.3
.target sm_90
.address_size 64
.const .align 4 .u32 constants[2] = {{100, 200}};
.global .align 4 .u32 counters[4];
.extern .func (.param .b64 func_retval0) malloc(.param .b64 size);
{function}
.visible .entry test(.param .u64 output)
{{
    .reg .u32 %r<8>;
    .reg .u64 %rd<20>;
    .reg .pred %p<2>;
    .local .align 8 .b32 scratch[4];
    .shared .align 4 .b32 tile[64];
    ld.param.u64 %rd1, [output];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd2, %r0, {bytes};
    add.u64 %rd3, %rd1, %rd2;
    st.local.u32 [scratch+4], %r0;
    mov.u64 %rd10, scratch;
    cvta.local.u64 %rd10, %rd10;
    add.u64 %rd10, %rd10, 4;
    mov.u64 %rd11, tile;
    cvta.shared.u64 %rd11, %rd11;
    mul.wide.u32 %rd4, %r0, 4;
    add.u64 %rd11, %rd11, %rd4;
    mov.u64 %rd12, counters;
    cvta.global.u64 %rd12, %rd12;
    add.u64 %rd12, %rd12, 12;
    add.u64 %rd13, %rd3, 28;
    {{
    .param .b64 size;
    .param .b64 func_retval0;
    st.param.b64 [size], 16;
    call.uni (func_retval0), malloc, (size);
    ld.param.b64 %rd14, [func_retval0];
    }}
    mov.u64 %rd15, constants;
    cvta.const.u64 %rd15, %rd15;
    add.u64 %rd15, %rd15, 4;
    mov.u64 %rd16, output;
    cvta.param.u64 %rd16, %rd16;
{waiting}{asks}    ld.u64 %rd5, [%rd16];
    sub.u64 %rd5, %rd5, %rd1;
    cvt.u32.u64 %r4, %rd5;
    st.global.u32 [%rd3+28], %r4;
    ret;
}}
"#,
        bytes = 4 * WORDS,
    )
}

fn expected_mask(forms: &[&str]) -> u64 {
    FORMS.iter().enumerate().filter(|(_, form)| forms.contains(form)).map(|(bit, _)| 1 << bit).sum()
}

fn check(wait: Wait) {
    let ptx = kernel(wait);
    // The scheme each kernel runs under, so that the addresses do cross its waits.
    let scheme = match wait {
        Wait::None => None,
        Wait::InTheBody if cpu_waits_forced_to_coroutines() => Some("ptxr_run_resumable_block"),
        Wait::InTheBody => Some("ptxr_run_work_item_block"),
        Wait::InAFunc => Some("ptxr_run_cooperative_block"),
    };
    let ir = cpu_llvm_ir(&ptx, 2);
    let body = llvm_function(&ir, "test");
    match scheme {
        Some(scheme) => assert!(body.contains(scheme), "{wait:?}: {body}"),
        None => assert!(!body.contains("ptxr_run_"), "{wait:?}: {body}"),
    }
    let threads = 64;
    let output = run_ok(&ptx, &Launch::threads(threads), &[Buffer::zeroed("u32", threads as usize * WORDS)]);
    for thread in 0..threads as usize {
        let words = &output[0][thread * WORDS..][..WORDS];
        for (index, (address, forms)) in EXPECTED.iter().enumerate() {
            assert_eq!(words[index], expected_mask(forms), "{wait:?}, thread {thread}: {address} (bits: {FORMS:?})");
        }
        // The parameter's generic address reads the parameter: the buffer's own address.
        assert_eq!(words[WORDS - 1], 0, "{wait:?}, thread {thread}: `ld` through the parameter's address");
    }
}

#[test]
fn every_address_is_in_exactly_its_windows() {
    check(Wait::None);
}

#[test]
fn addresses_keep_their_windows_across_a_barrier_in_the_body() {
    check(Wait::InTheBody);
}

#[test]
fn addresses_keep_their_windows_across_a_barrier_in_a_func() {
    check(Wait::InAFunc);
}

#[test]
fn param_and_local_in_a_func_are_reported_unsupported() {
    // A `.func` does not receive the range of its kernel's parameter storage, so it could not
    // tell a kernel parameter's address from its own memory.
    for form in ["param", "local"] {
        let source = format!(
            r#"
.version 8.3
.target sm_90
.address_size 64
.func (.param .b32 answer) ask(.param .b64 address)
{{
    .reg .u64 %rd<2>;
    .reg .u32 %r<2>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [address];
    isspacep.{form} %p1, %rd1;
    selp.u32 %r1, 1, 0, %p1;
    st.param.b32 [answer], %r1;
    ret;
}}
.visible .entry test(.param .u64 output)
{{
    ret;
}}
"#
        );
        let error = run(&source, &Launch::threads(1), &[Buffer::zeroed("u32", 1)])
            .expect_err("isspacep in a .func must be refused");
        assert!(
            error.contains(&format!("unsupported: `isspacep.{form}` in a `.func`")) && error.contains("on cpu"),
            "{form}: {error}"
        );
    }
}
