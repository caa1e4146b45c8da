//! Execution of `brx.idx` (ISA 7.8 section 9.7.11.4) on the CPU: each thread branches through a
//! `.branchtargets` list by its own index, guarded or not, in a loop, and in a kernel whose
//! threads also meet at a barrier (the CPU then runs them as coroutines). The expected values are
//! the list's order, written out here; an index past the list goes on with the next
//! instruction, the behaviour ptxr defines for what PTX leaves undefined.

use ptxr_tests::{run_ok, Buffer, Launch, Random};

/// A kernel over `u32` words: each thread reads `%r1` from its word, runs `body`, and stores
/// `%r2` back. `with_barrier` puts a `bar.sync` before the store.
fn kernel(body: &str, with_barrier: bool) -> String {
    let barrier = if with_barrier { "bar.sync 0;\n" } else { "" };
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry test(.param .u64 data)\n{{\n\
         .reg .u32 %r<8>;\n.reg .u64 %rd<4>;\n.reg .pred %p<4>;\n\
         ld.param.u64 %rd1, [data];\nmov.u32 %r7, %tid.x;\nmul.wide.u32 %rd2, %r7, 4;\nadd.u64 %rd3, %rd1, %rd2;\n\
         ld.global.u32 %r1, [%rd3];\n{body}\n{barrier}st.global.u32 [%rd3], %r2;\nret;\n}}\n"
    )
}

fn run_words(ptx: &str, words: &[u32]) -> Vec<u32> {
    let result = run_ok(ptx, &Launch::threads(words.len() as u32), &[Buffer::u32s(words)]);
    result[0].iter().map(|&word| word as u32).collect()
}

/// Four cases in an order other than the list's, so a branch to the wrong one shows.
const FOUR_CASES: &str = "mov.u32 %r2, 99;\n\
    cases: .branchtargets CASE0, CASE1, CASE2, CASE3;\n\
    brx.idx %r1, cases;\n\
    bra.uni DONE;\n\
    CASE2: mov.u32 %r2, 12; bra.uni DONE;\n\
    CASE0: mov.u32 %r2, 10; bra.uni DONE;\n\
    CASE3: mov.u32 %r2, 13; bra.uni DONE;\n\
    CASE1: mov.u32 %r2, 11;\n\
    DONE:";

fn four_cases_model(index: u32) -> u32 {
    [10, 11, 12, 13].get(index as usize).copied().unwrap_or(99)
}

fn indices(seed: u64) -> Vec<u32> {
    let mut random = Random::new(seed);
    let mut words = vec![0, 1, 2, 3, 4, 5, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff];
    words.extend((0..55).map(|_| random.next_u32() % 6));
    words.extend((0..8).map(|_| random.next_u32()));
    words
}

#[test]
fn brx_idx_branches_to_the_listed_label_and_goes_on_past_the_list() {
    let words = indices(61);
    let expected: Vec<u32> = words.iter().map(|&index| four_cases_model(index)).collect();
    assert_eq!(run_words(&kernel(FOUR_CASES, false), &words), expected);
    // `.uni` promises a uniform index; it changes nothing here.
    assert_eq!(run_words(&kernel(&FOUR_CASES.replace("brx.idx", "brx.idx.uni"), false), &words), expected);
}

#[test]
fn a_guarded_brx_idx_branches_only_where_its_guard_holds() {
    let words = indices(62);
    // Odd thread indices take the branch; even ones fall through to `bra.uni DONE` with 99.
    let body = FOUR_CASES.replace("brx.idx", "and.b32 %r6, %r7, 1;\nsetp.ne.u32 %p1, %r6, 0;\n@%p1 brx.idx");
    let expected: Vec<u32> = words
        .iter()
        .enumerate()
        .map(|(thread, &index)| if thread % 2 == 1 { four_cases_model(index) } else { 99 })
        .collect();
    assert_eq!(run_words(&kernel(&body, false), &words), expected);
    let negated = body.replace("@%p1", "@!%p1");
    let expected: Vec<u32> = words
        .iter()
        .enumerate()
        .map(|(thread, &index)| if thread % 2 == 0 { four_cases_model(index) } else { 99 })
        .collect();
    assert_eq!(run_words(&kernel(&negated, false), &words), expected);
}

#[test]
fn brx_idx_drives_a_state_machine_loop_across_a_barrier() {
    // A state machine: state 0 adds 3 and goes to 1, state 1 doubles and goes to 2, state 2
    // subtracts 1 and goes to 0; it runs `%r1 % 16` steps from state 0, starting at 1. The
    // list names a label before its own `.branchtargets` line, and one label twice.
    let body = "mov.u32 %r2, 1;\nmov.u32 %r3, 0;\nand.b32 %r4, %r1, 15;\n\
        LOOP: setp.eq.u32 %p1, %r4, 0;\n@%p1 bra.uni DONE;\nsub.u32 %r4, %r4, 1;\n\
        states: .branchtargets STATE0, STATE1, STATE2, STATE0;\n\
        brx.idx %r3, states;\n\
        STATE1: shl.b32 %r2, %r2, 1; mov.u32 %r3, 2; bra.uni LOOP;\n\
        STATE0: add.u32 %r2, %r2, 3; mov.u32 %r3, 1; bra.uni LOOP;\n\
        STATE2: sub.u32 %r2, %r2, 1; mov.u32 %r3, 0; bra.uni LOOP;\n\
        DONE:";
    let words = indices(63);
    let model = |steps: u32| {
        let (mut value, mut state) = (1u32, 0);
        for _ in 0..steps % 16 {
            (value, state) = match state {
                0 => (value.wrapping_add(3), 1),
                1 => (value.wrapping_shl(1), 2),
                _ => (value.wrapping_sub(1), 0),
            };
        }
        value
    };
    let expected: Vec<u32> = words.iter().map(|&steps| model(steps)).collect();
    assert_eq!(run_words(&kernel(body, false), &words), expected);
    assert_eq!(run_words(&kernel(body, true), &words), expected);
}
