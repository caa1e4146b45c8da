//! Execution of barriers, shared memory, warp collectives and atomics on the CPU target. The
//! expected values come from models written here from the ISA's definitions (ISA 7.8 sections
//! 9.7.8.6, 9.7.12 and 9.7.13), not from ptxr's runtime.

use ptxr_tests::{run, run_ok, Buffer, Launch, Random};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

/// Loads `input[global thread]` into %r1 and the output address of that thread into %rd4.
const PROLOGUE: &str = r#"
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r10, %tid.x;
    mov.u32 %r11, %ctaid.x;
    mov.u32 %r12, %ntid.x;
    mad.lo.u32 %r13, %r11, %r12, %r10;
    mul.wide.u32 %rd3, %r13, 4;
    add.u64 %rd5, %rd1, %rd3;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r1, [%rd5];
"#;

fn kernel(body: &str) -> String {
    format!("{HEADER}.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n{PROLOGUE}{body}\n    ret;\n}}\n")
}

fn run_per_thread(body: &str, threads: u32, blocks: u32, input: &[u32]) -> Vec<u32> {
    let launch = Launch { grid: [blocks, 1, 1], block: [threads, 1, 1], ..Launch::default() };
    let output = Buffer::zeroed("u32", input.len());
    let result = run_ok(&kernel(body), &launch, &[Buffer::u32s(input), output]);
    result[1].iter().map(|&bits| bits as u32).collect()
}

#[test]
fn block_tree_reduction_through_shared_memory_and_barriers() {
    // Each block of 256 threads sums its inputs: a tree over a static .shared array, with a
    // bar.sync between levels; thread 0 writes the block's sum to output[block * 256].
    let body = r#"
    .shared .align 4 .u32 partial[256];
    mov.u32 %r2, partial;
    shl.b32 %r3, %r10, 2;
    add.u32 %r4, %r2, %r3;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    mov.u32 %r5, 128;
LEVEL:
    setp.ge.u32 %p1, %r10, %r5;
    @%p1 bra SKIP;
    shl.b32 %r6, %r5, 2;
    add.u32 %r7, %r4, %r6;
    ld.shared.u32 %r8, [%r7];
    ld.shared.u32 %r9, [%r4];
    add.u32 %r9, %r9, %r8;
    st.shared.u32 [%r4], %r9;
SKIP:
    bar.sync 0;
    shr.u32 %r5, %r5, 1;
    setp.ne.u32 %p2, %r5, 0;
    @%p2 bra LEVEL;
    setp.ne.u32 %p3, %r10, 0;
    @%p3 bra DONE;
    ld.shared.u32 %r9, [partial];
    st.global.u32 [%rd4], %r9;
DONE:
"#;
    let mut random = Random::new(7);
    let input = random.u32s(256 * 6);
    let output = run_per_thread(body, 256, 6, &input);
    for block in 0..6 {
        let expected = input[block * 256..(block + 1) * 256].iter().fold(0u32, |sum, &value| sum.wrapping_add(value));
        assert_eq!(output[block * 256], expected, "block {block}");
    }
}

#[test]
fn dynamic_shared_memory_follows_static_variables() {
    // Each thread writes its input into dynamic shared memory reversed, then reads its own
    // slot after a barrier; a static variable before it must not overlap.
    let source = format!(
        "{HEADER}.extern .shared .align 16 .b8 dynamic[];\n.shared .u32 guard;\n.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n{PROLOGUE}{}\n    ret;\n}}\n",
        r#"
    mov.u32 %r2, dynamic;
    sub.u32 %r3, %r12, 1;
    sub.u32 %r3, %r3, %r10;
    shl.b32 %r3, %r3, 2;
    add.u32 %r3, %r2, %r3;
    st.shared.u32 [%r3], %r1;
    st.shared.u32 [guard], 0xdeadbeef;
    bar.sync 0;
    shl.b32 %r4, %r10, 2;
    add.u32 %r4, %r2, %r4;
    ld.shared.u32 %r5, [%r4];
    st.global.u32 [%rd4], %r5;
"#
    );
    let input: Vec<u32> = (0..64).map(|value| value * 3 + 1).collect();
    let launch = Launch { block: [64, 1, 1], shared_bytes: 256, ..Launch::default() };
    let result = run_ok(&source, &launch, &[Buffer::u32s(&input), Buffer::zeroed("u32", 64)]);
    let expected: Vec<u64> = (0..64).map(|thread| u64::from(input[63 - thread])).collect();
    assert_eq!(result[1], expected);
}

/// PTX's shfl.sync: the lane read by `lane` and whether it was in range (section 9.7.8.6).
fn shuffle_model(mode: &str, lane: i32, b: u32, c: u32) -> (i32, bool) {
    let bval = (b & 31) as i32;
    let cval = (c & 31) as i32;
    let segmask = ((c >> 8) & 31) as i32;
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, in_range) = match mode {
        "up" => (lane - bval, lane - bval >= max_lane),
        "down" => (lane + bval, lane + bval <= max_lane),
        "bfly" => (lane ^ bval, (lane ^ bval) <= max_lane),
        _ => {
            let j = min_lane | (bval & !segmask);
            (j, j <= max_lane)
        }
    };
    if in_range {
        (j, true)
    } else {
        (lane, false)
    }
}

#[test]
fn shuffles_match_the_isa_model_for_every_mode_width_and_offset() {
    let mut random = Random::new(11);
    for mode in ["up", "down", "bfly", "idx"] {
        for width in [32u32, 16, 8, 4] {
            for offset in [0u32, 1, 3, 7, 13, 31] {
                let c = if mode == "up" { (32 - width) << 8 } else { ((32 - width) << 8) | 0x1f };
                let body = format!(
                    "    shfl.sync.{mode}.b32 %r2|%p1, %r1, {offset}, {c}, 0xffffffff;\n    selp.u32 %r3, 1, 0, %p1;\n    shl.b32 %r3, %r3, 31;\n    xor.b32 %r2, %r2, %r3;\n    st.global.u32 [%rd4], %r2;"
                );
                // Values below 2^31, so that the predicate travels in the top bit.
                let input: Vec<u32> = (0..64).map(|_| random.next_u32() >> 1).collect();
                let output = run_per_thread(&body, 64, 1, &input);
                for (thread, &actual) in output.iter().enumerate() {
                    let warp = thread / 32 * 32;
                    let (source, in_range) = shuffle_model(mode, (thread % 32) as i32, offset, c);
                    let expected = input[warp + source as usize] | (u32::from(in_range) << 31);
                    assert_eq!(actual, expected, "{mode} width {width} offset {offset} thread {thread}");
                }
            }
        }
    }
}

#[test]
fn votes_ballots_matches_and_reductions_per_warp() {
    let mut random = Random::new(3);
    let input: Vec<u32> = (0..96).map(|_| random.next_u32() % 4).collect();
    let body =
        |instruction: &str| format!("    setp.eq.u32 %p1, %r1, 0;\n{instruction}\n    st.global.u32 [%rd4], %r2;");
    let warps: Vec<&[u32]> = input.chunks(32).collect();
    let ballot_of = |warp: &[u32]| {
        warp.iter().enumerate().filter(|(_, &value)| value == 0).fold(0u32, |mask, (lane, _)| mask | (1 << lane))
    };

    let ballot = run_per_thread(&body("    vote.sync.ballot.b32 %r2, %p1, 0xffffffff;"), 96, 1, &input);
    let any = run_per_thread(
        &body("    vote.sync.any.pred %p2, !%p1, 0xffffffff;\n    selp.u32 %r2, 1, 0, %p2;"),
        96,
        1,
        &input,
    );
    let all = run_per_thread(
        &body("    vote.sync.all.pred %p2, %p1, 0xffffffff;\n    selp.u32 %r2, 1, 0, %p2;"),
        96,
        1,
        &input,
    );
    let matches = run_per_thread(&body("    match.any.sync.b32 %r2, %r1, 0xffffffff;"), 96, 1, &input);
    let sums = run_per_thread(&body("    redux.sync.add.u32 %r2, %r1, 0xffffffff;"), 96, 1, &input);
    let maxima = run_per_thread(&body("    redux.sync.max.s32 %r2, %r1, 0xffffffff;"), 96, 1, &input);
    for (warp_index, warp) in warps.iter().enumerate() {
        for lane in 0..32 {
            let thread = warp_index * 32 + lane;
            assert_eq!(ballot[thread], ballot_of(warp), "ballot thread {thread}");
            assert_eq!(any[thread], u32::from(warp.iter().any(|&value| value != 0)), "any thread {thread}");
            assert_eq!(all[thread], u32::from(warp.iter().all(|&value| value == 0)), "all thread {thread}");
            let same = warp
                .iter()
                .enumerate()
                .filter(|(_, &value)| value == warp[lane])
                .fold(0u32, |mask, (other, _)| mask | (1 << other));
            assert_eq!(matches[thread], same, "match thread {thread}");
            assert_eq!(sums[thread], warp.iter().sum::<u32>(), "redux.add thread {thread}");
            assert_eq!(maxima[thread], *warp.iter().max().unwrap_or(&0), "redux.max thread {thread}");
        }
    }
}

#[test]
fn partial_member_masks_and_block_barrier_reductions() {
    // Only even lanes take part in the ballot; every thread takes part in bar.red.
    let input: Vec<u32> = (0..64).map(|value| value % 3).collect();
    let body = r#"
    and.b32 %r5, %r10, 1;
    setp.ne.u32 %p3, %r5, 0;
    mov.u32 %r2, 0;
    @%p3 bra ODD;
    setp.eq.u32 %p1, %r1, 0;
    vote.sync.ballot.b32 %r2, %p1, 0x55555555;
ODD:
    setp.eq.u32 %p1, %r1, 2;
    bar.red.popc.u32 %r6, 0, %p1;
    bar.red.or.pred %p2, 0, %p1;
    selp.u32 %r7, 1, 0, %p2;
    shl.b32 %r6, %r6, 8;
    shl.b32 %r7, %r7, 16;
    or.b32 %r2, %r2, %r6;
    or.b32 %r2, %r2, %r7;
    st.global.u32 [%rd4], %r2;
"#;
    let output = run_per_thread(body, 64, 1, &input);
    let twos = input.iter().filter(|&&value| value == 2).count() as u32;
    for thread in 0..64usize {
        let warp = &input[thread / 32 * 32..thread / 32 * 32 + 32];
        let ballot = if thread % 2 == 0 {
            (0..32).step_by(2).filter(|&lane| warp[lane] == 0).fold(0u32, |mask, lane| mask | (1 << lane))
        } else {
            0
        };
        // The ballot's high lanes would collide with the packed counts; keep them apart.
        let expected = (ballot & 0xff) | (twos << 8) | (u32::from(twos > 0) << 16);
        assert_eq!(output[thread] & 0x1_ffff, expected & 0x1_ffff, "thread {thread}");
    }
}

#[test]
fn histogram_with_global_atomics_across_blocks() {
    // 8 blocks of 128 threads (on several cores) add 1 to bin `input % 16` of the output.
    let body = r#"
    and.b32 %r2, %r1, 15;
    mul.wide.u32 %rd6, %r2, 4;
    add.u64 %rd7, %rd2, %rd6;
    atom.global.add.u32 %r3, [%rd7], 1;
"#;
    let mut random = Random::new(5);
    let input = random.u32s(1024);
    let launch = Launch { grid: [8, 1, 1], block: [128, 1, 1], ..Launch::default() };
    let result = run_ok(&kernel(body), &launch, &[Buffer::u32s(&input), Buffer::zeroed("u32", 1024)]);
    let mut expected = vec![0u64; 1024];
    for value in &input {
        expected[(value % 16) as usize] += 1;
    }
    assert_eq!(result[1], expected);
}

#[test]
fn atomic_operations_follow_their_definitions() {
    // One thread applies each operation to memory word i (starting at input[i]) with operand
    // b = 5 and records the old value; the model applies the ISA's definitions.
    let operations = [
        ("atom.global.exch.b32", 0),
        ("atom.global.add.u32", 1),
        ("atom.global.min.s32", 2),
        ("atom.global.max.u32", 3),
        ("atom.global.inc.u32", 4),
        ("atom.global.dec.u32", 5),
        ("atom.global.and.b32", 6),
        ("atom.global.or.b32", 7),
        ("atom.global.xor.b32", 8),
    ];
    let mut random = Random::new(9);
    for starting in [0u32, 4, 5, 6, 0xffff_fffb, 0x8000_0000] {
        let mut body = String::new();
        for (instruction, index) in operations {
            body.push_str(&format!(
                "    add.u64 %rd6, %rd2, {offset};\n    {instruction} %r2, [%rd6], 5;\n    add.u64 %rd7, %rd2, {old};\n    st.global.u32 [%rd7], %r2;\n",
                offset = index * 4,
                old = 64 + index * 4
            ));
        }
        body.push_str("    add.u64 %rd6, %rd2, 36;\n    atom.global.cas.b32 %r2, [%rd6], %r1, 77;\n    st.global.u32 [%rd2+100], %r2;\n");
        let compare_with = if random.next_u32() % 2 == 0 { starting } else { starting ^ 1 };
        let output = Buffer::new("u32", vec![u64::from(starting); 32]);
        let launch = Launch::threads(1);
        let result = run_ok(&kernel(&body), &launch, &[Buffer::u32s(&[compare_with]), output]);
        let old = starting;
        let b = 5u32;
        let expected_new = [
            b,
            old.wrapping_add(b),
            (old as i32).min(b as i32) as u32,
            old.max(b),
            if old >= b { 0 } else { old + 1 },
            if old == 0 || old > b { b } else { old - 1 },
            old & b,
            old | b,
            old ^ b,
        ];
        for (index, &new) in expected_new.iter().enumerate() {
            assert_eq!(result[1][index] as u32, new, "operation {index} from {starting:#x}");
            assert_eq!(result[1][16 + index] as u32, old, "old value of operation {index}");
        }
        let swapped = if compare_with == old { 77 } else { old };
        assert_eq!(result[1][9] as u32, swapped, "cas from {starting:#x} comparing with {compare_with:#x}");
        assert_eq!(result[1][25] as u32, old, "cas old value");
    }
}

#[test]
fn a_collective_that_can_never_complete_stops_the_launch() {
    // Lane 0 waits for lane 1 in a shuffle while lane 1 waits at the block barrier.
    let body = r#"
    setp.ne.u32 %p1, %r10, 0;
    @%p1 bra OTHERS;
    shfl.sync.idx.b32 %r2, %r1, 1, 31, 3;
    bra DONE;
OTHERS:
    bar.sync 0;
DONE:
"#;
    let launch = Launch::threads(2);
    let failure = run(&kernel(body), &launch, &[Buffer::u32s(&[1, 2]), Buffer::zeroed("u32", 2)])
        .expect_err("the launch must fail");
    assert!(failure.contains("deadlock"), "{failure}");
}
