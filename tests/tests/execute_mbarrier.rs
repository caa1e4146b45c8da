//! `mbarrier` on the CPU (ISA 7.8 section 9.7.12.13): threads of a block meet through an
//! object in shared memory, waiting with `test_wait` spin loops or `try_wait`. Expected values
//! come from [`Model`], the section's phase, pending-count and expected-count rules written
//! here, or from the data the threads exchange, never from ptxr's output.

use ptxr_tests::{run, run_ok, Buffer, Launch, Random};

/// The object as the spec describes it: the current phase, the pending arrivals of the
/// current phase and the expected arrivals of each phase.
struct Model {
    phase: u32,
    pending: u32,
    expected: u32,
}

impl Model {
    /// `mbarrier.init` (section 9.7.12.13.6).
    fn init(count: u32) -> Model {
        Model { phase: 0, pending: count, expected: count }
    }

    /// An arrive-on operation of `count`, after lowering the expected count by `count` for
    /// `arrive_drop` (sections 9.7.12.13.5 and 9.7.12.13.9); returns the phase and pending
    /// count before it, what the state holds.
    fn arrive(&mut self, count: u32, drop: bool) -> (u32, u32) {
        let before = (self.phase, self.pending);
        if drop {
            self.expected -= count;
        }
        self.pending -= count;
        if self.pending == 0 {
            self.phase += 1;
            self.pending = self.expected;
        }
        before
    }

    /// `cp.async.mbarrier.arrive` once the thread's copies are complete (section 9.7.12.13.10):
    /// without `.noinc` (`increment`) the pending count is raised by one before the arrive-on
    /// operation of one; with `.noinc` it is that arrive-on operation alone.
    fn copy_arrive(&mut self, increment: bool) {
        if increment {
            self.pending += 1;
        }
        self.arrive(1, false);
    }

    /// `test_wait` on a state of phase `phase`: whether that phase has completed.
    fn complete(&self, phase: u32) -> bool {
        self.phase != phase
    }

    /// `test_wait.parity`: whether the phase of parity `parity` (the current or the preceding
    /// one) has completed.
    fn parity_complete(&self, parity: u32) -> bool {
        self.phase % 2 != parity
    }
}

fn header(sm: u32) -> String {
    format!(".version 7.8\n.target sm_{sm}\n.address_size 64\n")
}

/// Rounds of the phase kernel.
const ROUNDS: u32 = 5;

/// Every thread of the block (at most 128) writes a value for round i into a shared slot,
/// arrives, waits with `WAIT` until the round's phase completes, then adds its neighbour's
/// value of the round ((tid + 1) mod ntid). Two buffers alternate: a thread can be at most one
/// phase ahead, since a phase completes only once every thread arrived, after reading the
/// previous round. `WAIT` may use `%rd5` (the state of the round's arrival) and `%r7` (the
/// round's parity), and must fall through once the phase has completed.
const PHASES: &str = r#"
.visible .entry phases(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<30>;
    .reg .u64 %rd<20>;
    .reg .pred %p<6>;
    .shared .align 8 .b64 object;
    .shared .align 4 .u32 data[256];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INITIALISED;
    mbarrier.init.shared.b64 [object], %r2;
INITIALISED:
    bar.sync 0;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r3, [%rd4];
    add.u32 %r4, %r1, 1;
    rem.u32 %r4, %r4, %r2;
    mov.u32 %r5, 0;
    mov.u32 %r6, 0;
    mov.u32 %r20, data;
ROUND:
    and.b32 %r7, %r5, 1;
    mul.lo.u32 %r8, %r7, 128;
    add.u32 %r9, %r8, %r1;
    shl.b32 %r9, %r9, 2;
    add.u32 %r9, %r20, %r9;
    add.u32 %r10, %r5, 1;
    mul.lo.u32 %r11, %r3, %r10;
    add.u32 %r11, %r11, %r5;
    st.shared.u32 [%r9], %r11;
    mbarrier.arrive.shared.b64 %rd5, [object];
WAIT
    add.u32 %r12, %r8, %r4;
    shl.b32 %r12, %r12, 2;
    add.u32 %r12, %r20, %r12;
    ld.shared.u32 %r13, [%r12];
    add.u32 %r6, %r6, %r13;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p3, %r5, ROUNDS;
    @%p3 bra ROUND;
    add.u64 %rd6, %rd2, %rd3;
    st.global.u32 [%rd6], %r6;
    ret;
}
"#;

fn phases_kernel(sm: u32, wait: &str) -> String {
    format!("{}{}", header(sm), PHASES.replace("WAIT\n", wait).replace("ROUNDS", &ROUNDS.to_string()))
}

/// What thread `tid` of `threads` adds up: its neighbour's value of every round.
fn expected_phase_sums(input: &[u32], threads: usize) -> Vec<u64> {
    (0..threads)
        .map(|tid| {
            let neighbour = input[(tid + 1) % threads];
            let sum = (0..ROUNDS)
                .fold(0u32, |sum, round| sum.wrapping_add(neighbour.wrapping_mul(round + 1).wrapping_add(round)));
            u64::from(sum)
        })
        .collect()
}

fn check_phases(ptx: &str, what: &str) {
    let mut random = Random::new(41);
    for threads in [1usize, 33, 64, 128] {
        let input = random.u32s(threads);
        let result =
            run_ok(ptx, &Launch::threads(threads as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", threads)]);
        assert_eq!(result[1], expected_phase_sums(&input, threads), "{what}, {threads} threads");
    }
}

#[test]
fn test_wait_spin_loops_on_a_state_see_every_phase_complete() {
    let wait = "WAIT:\n    mbarrier.test_wait.shared.b64 %p2, [object], %rd5;\n    @!%p2 bra WAIT;\n";
    check_phases(&phases_kernel(80, wait), "test_wait on the state");
}

#[test]
fn test_wait_parity_spin_loops_with_nanosleep_follow_the_phase_parity() {
    // Section 9.7.12.13.11's example 2: the round's parity names its phase.
    let wait = "WAIT:\n    mbarrier.test_wait.parity.shared.b64 %p2, [object], %r7;\n    @!%p2 nanosleep.u32 20;\n    @!%p2 bra WAIT;\n";
    check_phases(&phases_kernel(80, wait), "test_wait.parity");
}

#[test]
fn try_wait_with_a_state_and_with_a_parity_waits_for_the_phase() {
    let state = "WAIT:\n    mbarrier.try_wait.shared.b64 %p2, [object], %rd5;\n    @!%p2 bra WAIT;\n";
    check_phases(&phases_kernel(90, state), "try_wait on the state");
    let parity = "WAIT:\n    mbarrier.try_wait.parity.shared::cta.b64 %p2, [object], %r7, 1000;\n    @!%p2 bra WAIT;\n";
    check_phases(&phases_kernel(90, parity), "try_wait.parity with a suspend-time hint");
}

#[test]
fn a_generic_address_of_the_object_works_as_the_shared_one() {
    let wait = "    cvta.shared.u64 %rd7, object;\nWAIT:\n    mbarrier.test_wait.b64 %p2, [%rd7], %rd5;\n    @!%p2 bra WAIT;\n";
    check_phases(&phases_kernel(80, wait), "test_wait on a generic address");
}

#[test]
fn a_wait_loop_inside_a_function_runs_on_the_stackful_scheme() {
    let wait = "    call wait_for, (%rd5);\n";
    let function = r#"
.func wait_for(.param .b64 state)
{
    .reg .b64 %rd<3>;
    .reg .pred %p<2>;
    ld.param.b64 %rd1, [state];
    mov.u64 %rd2, object;
WAIT:
    mbarrier.test_wait.shared.b64 %p1, [%rd2], %rd1;
    @!%p1 bra WAIT;
    ret;
}
"#;
    let kernel = phases_kernel(80, wait).replace(".shared .align 8 .b64 object;\n", "");
    let (head, body) = kernel.split_at(kernel.find(".visible").unwrap_or(0));
    let ptx = format!("{head}.shared .align 8 .b64 object;\n{function}{body}");
    check_phases(&ptx, "test_wait in a function");
}

/// One thread goes through counted arrivals, drops and tests; each result lands in its own
/// output slot.
const COUNTS: &str = r#"
.visible .entry counts(.param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<20>;
    .reg .pred %p<10>;
    .shared .align 8 .b64 object;
    ld.param.u64 %rd1, [output];
    mbarrier.init.shared.b64 [object], 5;
    mbarrier.arrive.noComplete.shared.b64 %rd2, [object], 2;
    mbarrier.pending_count.b64 %r1, %rd2;
    st.global.u32 [%rd1], %r1;
    mbarrier.arrive.noComplete.shared.b64 %rd3, [object], 1;
    mbarrier.pending_count.b64 %r1, %rd3;
    st.global.u32 [%rd1+4], %r1;
    mbarrier.test_wait.shared.b64 %p1, [object], %rd2;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd1+8], %r1;
    mbarrier.test_wait.parity.shared.b64 %p1, [object], 0;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd1+12], %r1;
    mbarrier.arrive.shared.b64 %rd4, [object], 2;
    mbarrier.test_wait.shared.b64 %p1, [object], %rd2;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd1+16], %r1;
    mbarrier.test_wait.parity.shared.b64 %p1, [object], 0;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd1+20], %r1;
    mbarrier.test_wait.parity.shared.b64 %p1, [object], 1;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd1+24], %r1;
    mbarrier.arrive_drop.noComplete.shared.b64 %rd5, [object], 1;
    mbarrier.pending_count.b64 %r1, %rd5;
    st.global.u32 [%rd1+28], %r1;
    mbarrier.arrive.noComplete.shared.b64 %rd6, [object], 2;
    mbarrier.pending_count.b64 %r1, %rd6;
    st.global.u32 [%rd1+32], %r1;
    mbarrier.arrive_drop.shared.b64 _, [object];
    mbarrier.arrive.shared.b64 %rd7, [object];
    mbarrier.arrive.noComplete.shared.b64 %rd8, [object], 1;
    mbarrier.pending_count.b64 %r1, %rd8;
    st.global.u32 [%rd1+36], %r1;
    mbarrier.test_wait.shared.b64 %p1, [object], %rd7;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd1+40], %r1;
    mbarrier.test_wait.shared.b64 %p1, [object], %rd8;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd1+44], %r1;
    mbarrier.pending_count.b64 %r1, %rd4;
    st.global.u32 [%rd1+48], %r1;
    mbarrier.inval.shared.b64 [object];
    ret;
}
"#;

#[test]
fn counted_arrivals_drops_and_pending_counts_follow_the_phase_rules() {
    let mut model = Model::init(5);
    let mut expected = Vec::new();
    let (phase_a, pending) = model.arrive(2, false);
    expected.push(pending);
    let (_, pending) = model.arrive(1, false);
    expected.push(pending);
    expected.push(u32::from(model.complete(phase_a)));
    expected.push(u32::from(model.parity_complete(0)));
    let (_, pending_d) = model.arrive(2, false);
    expected.push(u32::from(model.complete(phase_a)));
    expected.push(u32::from(model.parity_complete(0)));
    expected.push(u32::from(model.parity_complete(1)));
    let (_, pending) = model.arrive(1, true);
    expected.push(pending);
    let (_, pending) = model.arrive(2, false);
    expected.push(pending);
    model.arrive(1, true);
    let (phase_g, _) = model.arrive(1, false);
    let (phase_h, pending) = model.arrive(1, false);
    expected.push(pending);
    expected.push(u32::from(model.complete(phase_g)));
    expected.push(u32::from(model.complete(phase_h)));
    expected.push(pending_d);
    let result = run_ok(&format!("{}{COUNTS}", header(90)), &Launch::threads(1), &[Buffer::zeroed("u32", 13)]);
    let expected: Vec<u64> = expected.into_iter().map(u64::from).collect();
    assert_eq!(result[0], expected);
}

/// Threads at or past `stay` leave the object with `arrive_drop` and exit; the others go
/// through three phases, each adding one to the round's shared counter before arriving and
/// reading the counter after the phase completes (every arrival's writes are then visible).
const DROPS: &str = r#"
.visible .entry drops(.param .u64 output, .param .u64 stay_pointer)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<6>;
    .shared .align 8 .b64 object;
    .shared .align 4 .u32 counters[3];
    ld.param.u64 %rd1, [output];
    ld.param.u64 %rd2, [stay_pointer];
    ld.global.u32 %r15, [%rd2];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INITIALISED;
    mbarrier.init.shared.b64 [object], %r2;
INITIALISED:
    bar.sync 0;
    setp.lt.u32 %p1, %r1, %r15;
    @%p1 bra STAY;
    mbarrier.arrive_drop.shared.b64 _, [object];
    exit;
STAY:
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
    mov.u32 %r10, counters;
ROUND:
    shl.b32 %r5, %r3, 2;
    add.u32 %r5, %r10, %r5;
    atom.shared.add.u32 %r6, [%r5], 1;
    mbarrier.arrive.shared.b64 %rd3, [object];
WAIT:
    mbarrier.test_wait.shared.b64 %p2, [object], %rd3;
    @!%p2 bra WAIT;
    ld.shared.u32 %r7, [%r5];
    add.u32 %r4, %r4, %r7;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p3, %r3, 3;
    @%p3 bra ROUND;
    mul.wide.u32 %rd4, %r1, 4;
    add.u64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r4;
    ret;
}
"#;

#[test]
fn arrive_drop_lowers_the_expected_count_of_later_phases() {
    let ptx = format!("{}{DROPS}", header(80));
    for (threads, stay) in [(64u32, 40u32), (64, 64), (96, 1), (32, 31)] {
        let result =
            run_ok(&ptx, &Launch::threads(threads), &[Buffer::zeroed("u32", threads as usize), Buffer::u32s(&[stay])]);
        let expected: Vec<u64> = (0..threads).map(|tid| if tid < stay { u64::from(3 * stay) } else { 0 }).collect();
        assert_eq!(result[0], expected, "{threads} threads, {stay} stay");
    }
}

/// Thread 0 arrives on an object expecting two arrivals and waits; nobody else arrives.
const NEVER_COMPLETES: &str = r#"
.visible .entry never(.param .u64 output)
{
    .reg .u64 %rd<4>;
    .reg .pred %p<2>;
    .shared .align 8 .b64 object;
    mbarrier.init.shared.b64 [object], 2;
    mbarrier.arrive.shared.b64 %rd1, [object];
WAIT
    ret;
}
"#;

#[test]
fn a_phase_that_can_never_complete_is_a_deadlock_not_a_hang() {
    for (sm, wait) in [
        (90, "WAIT:\n    mbarrier.try_wait.shared.b64 %p1, [object], %rd1;\n    @!%p1 bra WAIT;\n"),
        (80, "WAIT:\n    mbarrier.test_wait.shared.b64 %p1, [object], %rd1;\n    @!%p1 bra WAIT;\n"),
    ] {
        let ptx = format!("{}{}", header(sm), NEVER_COMPLETES.replace("WAIT\n", wait));
        for threads in [1, 3] {
            let failure = run(&ptx, &Launch::threads(threads), &[Buffer::zeroed("u32", 1)])
                .expect_err("a phase nobody completes must fail the launch");
            assert!(failure.contains("deadlock") && failure.contains("mbarrier"), "{failure}");
        }
    }
}

#[test]
fn a_consumer_warp_waits_for_the_producer_warp_that_exits_after_arriving() {
    // The lowering-warning fixture: warp 0 stores 7 and arrives (32 arrivals complete phase 0),
    // warp 1 spins on `test_wait.parity` 0 and then reads the value.
    let ptx = ptxr_tests::read_repository_file("tests/fixtures/lowering_warnings/mbarrier_waits_on_amdgpu.ptx");
    for threads in [33, 64] {
        let result = run_ok(&ptx, &Launch::threads(threads), &[Buffer::zeroed("u32", 1)]);
        assert_eq!(result[0], [7], "{threads} threads");
    }
}

/// One thread: `cp.async` copies a word into shared memory, then `cp.async.mbarrier.arrive`
/// with and without `.noinc` (on the `.shared` object, through `.shared::cta` and through its
/// generic address) between ordinary arrivals. Writes the pending counts of three states, four
/// tests, and the copied word.
const COPY_ARRIVALS: &str = r#"
.visible .entry copy_arrivals(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<6>;
    .shared .align 8 .b64 object;
    .shared .align 4 .u32 tile[4];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    cvta.shared.u64 %rd9, object;
    mbarrier.init.shared.b64 [object], 2;
    cp.async.ca.shared.global [tile], [%rd1], 4;
    cp.async.mbarrier.arrive.shared.b64 [object];
    mbarrier.test_wait.parity.shared.b64 %p1, [object], 0;
    mbarrier.arrive.noComplete.shared.b64 %rd3, [object], 1;
    mbarrier.pending_count.b64 %r1, %rd3;
    cp.async.mbarrier.arrive.noinc.shared::cta.b64 [object];
    mbarrier.test_wait.shared.b64 %p2, [object], %rd3;
    cp.async.mbarrier.arrive.b64 [%rd9];
    mbarrier.arrive.shared.b64 %rd4, [object];
    mbarrier.pending_count.b64 %r2, %rd4;
    cp.async.mbarrier.arrive.noinc.b64 [%rd9];
    mbarrier.test_wait.shared.b64 %p3, [object], %rd4;
    mbarrier.arrive.shared.b64 %rd5, [object];
    mbarrier.pending_count.b64 %r3, %rd5;
    mbarrier.test_wait.parity.shared.b64 %p4, [object], 1;
    cp.async.wait_all;
    ld.shared.u32 %r4, [tile];
    selp.u32 %r5, 1, 0, %p1;
    selp.u32 %r6, 1, 0, %p2;
    selp.u32 %r7, 1, 0, %p3;
    selp.u32 %r8, 1, 0, %p4;
    st.global.u32 [%rd2], %r1;
    st.global.u32 [%rd2+4], %r2;
    st.global.u32 [%rd2+8], %r3;
    st.global.u32 [%rd2+12], %r5;
    st.global.u32 [%rd2+16], %r6;
    st.global.u32 [%rd2+20], %r7;
    st.global.u32 [%rd2+24], %r8;
    st.global.u32 [%rd2+28], %r4;
    mbarrier.inval.shared.b64 [object];
    ret;
}
"#;

#[test]
fn copy_arrivals_without_noinc_leave_the_phase_and_with_noinc_can_complete_it() {
    let mut model = Model::init(2);
    model.copy_arrive(true);
    let first = model.parity_complete(0);
    let (phase_a, pending_a) = model.arrive(1, false);
    model.copy_arrive(false);
    let second = model.complete(phase_a);
    model.copy_arrive(true);
    let (phase_b, pending_b) = model.arrive(1, false);
    model.copy_arrive(false);
    let third = model.complete(phase_b);
    let (_, pending_c) = model.arrive(1, false);
    let fourth = model.parity_complete(1);
    let copied = 0x5eed_1234u32;
    let expected: Vec<u64> = [pending_a, pending_b, pending_c]
        .into_iter()
        .chain([first, second, third, fourth].map(u32::from))
        .chain([copied])
        .map(u64::from)
        .collect();
    // The model's answers, spelt out: each arrival without `.noinc` leaves the pending count at
    // 2 (a plain arrival would have left 1), each one with it completes the phase that an
    // ordinary arrival left one short, so phases 0 and 1 complete.
    assert_eq!(expected, [2, 2, 2, 0, 1, 1, 1, u64::from(copied)]);
    let result = run_ok(
        &format!("{}{COPY_ARRIVALS}", header(80)),
        &Launch::threads(1),
        &[Buffer::u32s(&[copied]), Buffer::zeroed("u32", 8)],
    );
    assert_eq!(result[1], expected);
}

/// The spec's second example of section 9.7.12.13.10: every thread copies three words with
/// `cp.async`, each followed by `cp.async.mbarrier.arrive.noinc`, then arrives and spins on
/// `test_wait`; the object expects the block's threads four times over. Each thread then sums
/// its neighbour's three words, which the phase's completion makes visible. With `INCREMENT`
/// the arrivals are the first example's (without `.noinc`, the object expecting one arrival per
/// thread).
const COPY_ROUNDS: &str = r#"
.visible .entry copy_rounds(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<4>;
    .shared .align 8 .b64 object;
    .shared .align 4 .u32 tile[384];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INITIALISED;
    mul.lo.u32 %r3, %r2, EXPECTED_PER_THREAD;
    mbarrier.init.shared.b64 [object], %r3;
INITIALISED:
    bar.sync 0;
    mov.u32 %r10, tile;
    mov.u32 %r4, 0;
COPY:
    mad.lo.u32 %r5, %r4, %r2, %r1;
    mul.wide.u32 %rd3, %r5, 4;
    add.u64 %rd4, %rd1, %rd3;
    shl.b32 %r6, %r5, 2;
    add.u32 %r6, %r10, %r6;
    cp.async.ca.shared.global [%r6], [%rd4], 4;
    cp.async.mbarrier.arrive.NOINC.shared.b64 [object];
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, 3;
    @%p2 bra COPY;
    mbarrier.arrive.shared.b64 %rd5, [object];
WAIT:
    mbarrier.test_wait.shared.b64 %p3, [object], %rd5;
    @!%p3 bra WAIT;
    add.u32 %r7, %r1, 1;
    rem.u32 %r7, %r7, %r2;
    mov.u32 %r8, 0;
    mov.u32 %r4, 0;
SUM:
    mad.lo.u32 %r5, %r4, %r2, %r7;
    shl.b32 %r6, %r5, 2;
    add.u32 %r6, %r10, %r6;
    ld.shared.u32 %r9, [%r6];
    add.u32 %r8, %r8, %r9;
    add.u32 %r4, %r4, 1;
    setp.lt.u32 %p2, %r4, 3;
    @%p2 bra SUM;
    mul.wide.u32 %rd6, %r1, 4;
    add.u64 %rd7, %rd2, %rd6;
    st.global.u32 [%rd7], %r8;
    ret;
}
"#;

#[test]
fn copy_arrivals_of_every_thread_complete_the_phase_that_publishes_the_copies() {
    let mut random = Random::new(97);
    for (noinc, expected_per_thread) in [(".noinc", 4), ("", 1)] {
        let ptx = format!(
            "{}{}",
            header(80),
            COPY_ROUNDS.replace(".NOINC", noinc).replace("EXPECTED_PER_THREAD", &expected_per_thread.to_string())
        );
        for threads in [1usize, 32, 100, 128] {
            let input: Vec<u32> = random.u32s(3 * threads).into_iter().map(|value| value >> 4).collect();
            let expected: Vec<u64> = (0..threads)
                .map(|tid| {
                    let neighbour = (tid + 1) % threads;
                    (0..3).map(|round| u64::from(input[round * threads + neighbour])).sum::<u64>()
                })
                .collect();
            let result =
                run_ok(&ptx, &Launch::threads(threads as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", threads)]);
            assert_eq!(result[1], expected, "`{noinc}`, {threads} threads");
        }
    }
}
