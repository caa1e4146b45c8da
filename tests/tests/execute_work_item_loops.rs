//! The hard cases of CPU kernels that wait, run as compiled work-item loops (the default scheme
//! for kernels whose waits are all in the body; `PTXR_CPU_WAITS=coroutines` runs the same tests
//! on LLVM coroutines). Values cross waits in loops, waits sit in branches, threads exit, and
//! warps meet with partial masks. Expected values come from models written here (shuffles and
//! votes as ISA 7.8 sections 9.7.8.6 and 9.7.12 define them), never from ptxr's output.

use ptxr_tests::{cpu_llvm_ir, cpu_waits_forced_to_coroutines, run, run_ok, Buffer, Launch, Random};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

fn random_values(count: usize, seed: u64) -> Vec<u32> {
    Random::new(seed).u32s(count)
}

fn as_u32s(bits: &[u64]) -> Vec<u32> {
    bits.iter().map(|&bits| bits as u32).collect()
}

/// Each thread publishes a value in shared memory, and in every round reads its neighbour's
/// (thread t+1, wrapping) between two barriers; both its value and an accumulator are carried
/// across the barriers of every round.
const CARRIED_ACROSS_A_LOOP: &str = r#"
.visible .entry carried(.param .u64 input, .param .u64 output, .param .u64 settings)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    .shared .align 4 .u32 cells[256];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd6, [settings];
    ld.global.u32 %r9, [%rd6];
    mov.u32 %r1, %tid.x;
    mov.u32 %r12, %ntid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, cells;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r3, %r4;
    add.u32 %r6, %r1, 1;
    rem.u32 %r6, %r6, %r12;
    shl.b32 %r6, %r6, 2;
    add.u32 %r7, %r3, %r6;
    mov.u32 %r8, 0;
    mov.u32 %r10, 0;
LOOP:
    st.shared.u32 [%r5], %r2;
    bar.sync 0;
    ld.shared.u32 %r11, [%r7];
    bar.sync 0;
    xor.b32 %r13, %r10, %r8;
    mad.lo.u32 %r10, %r11, 3, %r13;
    add.u32 %r2, %r2, %r11;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p1, %r8, %r9;
    @%p1 bra LOOP;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r10;
    ret;
}
"#;

fn carried_model(input: &[u32], rounds: u32) -> Vec<u32> {
    let count = input.len();
    let mut values = input.to_vec();
    let mut accumulators = vec![0u32; count];
    for round in 0..rounds {
        let neighbours: Vec<u32> = (0..count).map(|thread| values[(thread + 1) % count]).collect();
        for thread in 0..count {
            accumulators[thread] = neighbours[thread].wrapping_mul(3).wrapping_add(accumulators[thread] ^ round);
            values[thread] = values[thread].wrapping_add(neighbours[thread]);
        }
    }
    accumulators
}

#[test]
fn values_carried_across_barriers_in_a_loop() {
    let ptx = format!("{HEADER}{CARRIED_ACROSS_A_LOOP}");
    for (threads, rounds) in [(256u32, 5u32), (96, 1), (37, 3)] {
        let input = random_values(threads as usize, u64::from(threads));
        let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", threads as usize), Buffer::u32s(&[rounds])];
        let result = run_ok(&ptx, &Launch::threads(threads), &buffers);
        assert_eq!(as_u32s(&result[1]), carried_model(&input, rounds), "{threads} threads, {rounds} rounds");
    }
}

/// A barrier inside an `if` that every thread of the block takes the same way (`settings[0]`).
const BARRIER_IN_A_UNIFORM_IF: &str = r#"
.visible .entry uniform_if(.param .u64 input, .param .u64 output, .param .u64 settings)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    .shared .align 4 .u32 cells[128];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd6, [settings];
    ld.global.u32 %r9, [%rd6];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    setp.eq.u32 %p1, %r9, 0;
    @%p1 bra OTHER;
    mov.u32 %r3, cells;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r3, %r4;
    xor.b32 %r4, %r4, 4;
    add.u32 %r7, %r3, %r4;
    st.shared.u32 [%r5], %r2;
    bar.sync 0;
    ld.shared.u32 %r11, [%r7];
    bra JOIN;
OTHER:
    mul.lo.u32 %r11, %r2, 7;
JOIN:
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r11;
    ret;
}
"#;

#[test]
fn a_barrier_inside_an_if_that_the_whole_block_takes() {
    let ptx = format!("{HEADER}{BARRIER_IN_A_UNIFORM_IF}");
    let input = random_values(128, 7);
    for flag in [0u32, 1] {
        let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", 128), Buffer::u32s(&[flag])];
        let result = run_ok(&ptx, &Launch { grid: [3, 1, 1], ..Launch::threads(128) }, &buffers);
        for thread in 0..128 {
            // Pairs of threads swap their values through shared memory.
            let expected = if flag != 0 { input[thread ^ 1] } else { input[thread].wrapping_mul(7) };
            assert_eq!(result[1][thread] as u32, expected, "flag {flag}, thread {thread}");
        }
    }
}

/// Every third thread exits after the first barrier; the others meet at two more barriers,
/// which count only the threads that have not exited.
const EXIT_BETWEEN_BARRIERS: &str = r#"
.visible .entry exits(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    .shared .align 4 .u32 cells[96];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r12, %ntid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, cells;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r3, %r4;
    add.u32 %r6, %r1, 1;
    rem.u32 %r6, %r6, %r12;
    shl.b32 %r6, %r6, 2;
    add.u32 %r7, %r3, %r6;
    st.shared.u32 [%r5], %r2;
    bar.sync 0;
    rem.u32 %r13, %r1, 3;
    setp.eq.u32 %p1, %r13, 0;
    @%p1 exit;
    ld.shared.u32 %r11, [%r7];
    add.u32 %r11, %r11, %r2;
    bar.sync 0;
    st.shared.u32 [%r5], %r11;
    bar.sync 0;
    ld.shared.u32 %r14, [%r7];
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r14;
    ret;
}
"#;

#[test]
fn threads_that_exit_between_barriers_no_longer_count() {
    let ptx = format!("{HEADER}{EXIT_BETWEEN_BARRIERS}");
    let count = 96;
    let input = random_values(count, 11);
    let result = run_ok(&ptx, &Launch::threads(count as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", count)]);
    let survives = |thread: usize| thread % 3 != 0;
    let published: Vec<u32> = (0..count)
        .map(
            |thread| {
                if survives(thread) {
                    input[(thread + 1) % count].wrapping_add(input[thread])
                } else {
                    input[thread]
                }
            },
        )
        .collect();
    for thread in 0..count {
        let expected = if survives(thread) { published[(thread + 1) % count] } else { 0 };
        assert_eq!(result[1][thread] as u32, expected, "thread {thread}");
    }
}

/// Five rounds of `shfl.bfly` with an offset computed in the loop (so the runtime resolves it)
/// and a `vote.ballot` (which the loops resolve) inside the same loop.
const COLLECTIVES_IN_A_LOOP: &str = r#"
.visible .entry butterflies(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r10, [%rd4];
    mov.u32 %r8, 0;
    mov.u32 %r15, 0;
LOOP:
    shl.b32 %r12, 1, %r8;
    shfl.sync.bfly.b32 %r11, %r10, %r12, 31, -1;
    add.u32 %r10, %r10, %r11;
    shr.u32 %r13, %r10, %r8;
    and.b32 %r13, %r13, 1;
    setp.ne.u32 %p2, %r13, 0;
    vote.sync.ballot.b32 %r14, %p2, -1;
    xor.b32 %r15, %r15, %r14;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p1, %r8, 5;
    @%p1 bra LOOP;
    add.u32 %r16, %r10, %r15;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r16;
    ret;
}
"#;

#[test]
fn shuffles_and_votes_inside_a_loop() {
    let ptx = format!("{HEADER}{COLLECTIVES_IN_A_LOOP}");
    let count = 128;
    let input = random_values(count, 13);
    let result = run_ok(&ptx, &Launch::threads(count as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", count)]);
    let mut values = input.clone();
    let mut ballots = vec![0u32; count];
    for round in 0..5 {
        let offset = 1usize << round;
        let previous = values.clone();
        for thread in 0..count {
            values[thread] = previous[thread].wrapping_add(previous[thread ^ offset]);
        }
        for warp in 0..count / 32 {
            let ballot =
                (0..32).fold(0u32, |ballot, lane| ballot | (((values[warp * 32 + lane] >> round) & 1) << lane));
            for lane in 0..32 {
                ballots[warp * 32 + lane] ^= ballot;
            }
        }
    }
    for thread in 0..count {
        assert_eq!(result[1][thread] as u32, values[thread].wrapping_add(ballots[thread]), "thread {thread}");
    }
}

/// Even warps shuffle; odd warps never reach the shuffle.
const COLLECTIVE_IN_SOME_WARPS: &str = r#"
.visible .entry some_warps(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    shr.u32 %r13, %r1, 5;
    and.b32 %r13, %r13, 1;
    setp.ne.u32 %p1, %r13, 0;
    @%p1 bra SKIP;
    shfl.sync.down.b32 %r11, %r2, 1, 31, -1;
    bra JOIN;
SKIP:
    mul.lo.u32 %r11, %r2, 5;
JOIN:
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r11;
    ret;
}
"#;

#[test]
fn a_collective_in_a_branch_that_only_some_warps_take() {
    let ptx = format!("{HEADER}{COLLECTIVE_IN_SOME_WARPS}");
    let count = 128;
    let input = random_values(count, 17);
    let result = run_ok(&ptx, &Launch::threads(count as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", count)]);
    for thread in 0..count {
        let expected = match (thread / 32 % 2, thread % 32) {
            (1, _) => input[thread].wrapping_mul(5),
            (_, 31) => input[thread],
            _ => input[thread + 1],
        };
        assert_eq!(result[1][thread] as u32, expected, "thread {thread}");
    }
}

/// The low half of each warp shuffles and votes with member mask 0x0000ffff; the high half
/// takes the other branch.
const PARTIAL_MEMBER_MASK: &str = r#"
.visible .entry half_warps(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    and.b32 %r13, %r1, 31;
    setp.ge.u32 %p1, %r13, 16;
    @%p1 bra HIGH;
    shfl.sync.idx.b32 %r11, %r2, 3, 31, 0x0000ffff;
    and.b32 %r14, %r2, 1;
    setp.ne.u32 %p2, %r14, 0;
    vote.sync.ballot.b32 %r15, %p2, 0x0000ffff;
    xor.b32 %r11, %r11, %r15;
    bra JOIN;
HIGH:
    not.b32 %r11, %r2;
JOIN:
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r11;
    ret;
}
"#;

#[test]
fn collectives_with_a_partial_member_mask() {
    let ptx = format!("{HEADER}{PARTIAL_MEMBER_MASK}");
    let count = 64;
    let input = random_values(count, 19);
    let result = run_ok(&ptx, &Launch::threads(count as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", count)]);
    for thread in 0..count {
        let (warp, lane) = (thread / 32 * 32, thread % 32);
        let expected = if lane >= 16 {
            !input[thread]
        } else {
            let ballot = (0..16).fold(0u32, |ballot, other| ballot | ((input[warp + other] & 1) << other));
            input[warp + 3] ^ ballot
        };
        assert_eq!(result[1][thread] as u32, expected, "thread {thread}");
    }
}

/// Half of the block waits at barrier 1, the other half at barrier 2: neither barrier can
/// ever complete.
const SPLIT_BARRIERS: &str = r#"
.visible .entry split(.param .u64 output)
{
    .reg .u32 %r<4>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra FIRST;
    bar.sync 2;
    bra END;
FIRST:
    bar.sync 1;
END:
    ret;
}
"#;

#[test]
fn barriers_that_can_never_complete_are_a_deadlock() {
    let ptx = format!("{HEADER}{SPLIT_BARRIERS}");
    let failure = run(&ptx, &Launch::threads(64), &[Buffer::zeroed("u32", 1)]).expect_err("the launch must fail");
    assert!(failure.contains("deadlock"), "{failure}");
}

#[test]
fn the_loops_between_barriers_vectorise() {
    // A region without branches between two barriers: LLVM's loop vectoriser must turn its
    // loop over the threads into vector code, which the scoped noalias metadata on the
    // per-thread state allows.
    let ptx = format!(
        "{HEADER}{}",
        r#"
.visible .entry scale(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<12>;
    .reg .u64 %rd<8>;
    .shared .align 4 .u32 cells[1024];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, cells;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r3, %r4;
    mul.lo.u32 %r6, %r2, 3;
    st.shared.u32 [%r5], %r6;
    bar.sync 0;
    ld.shared.u32 %r7, [%r5];
    add.u32 %r8, %r7, %r2;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r8;
    ret;
}
"#
    );
    if cpu_waits_forced_to_coroutines() {
        // The coroutine scheme has no region loops to look at.
    } else {
        let ir = cpu_llvm_ir(&ptx, 3);
        let start = ir.find("@scale.regions(").unwrap_or_else(|| panic!("no region function in\n{ir}"));
        let regions = &ir[start..];
        assert!(regions.contains("vector.body"), "{regions}");
        assert!(regions.contains("x i32>"), "{regions}");
    }

    let input = random_values(256, 23);
    let result = run_ok(&ptx, &Launch::threads(256), &[Buffer::u32s(&input), Buffer::zeroed("u32", 256)]);
    for thread in 0..256 {
        assert_eq!(result[1][thread] as u32, input[thread].wrapping_mul(4), "thread {thread}");
    }
}
