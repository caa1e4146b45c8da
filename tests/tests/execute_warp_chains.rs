//! Warp chains of the CPU's work-item loops: regions that end at a shuffle or vote of whole
//! warps with constant operands run one warp at a time, on a private copy of the warp's state
//! (`intrinsics/src/work_item_loops/warps.rs`). These kernels mix such collectives with the
//! waits that end a chain (a barrier, shuffles whose operands are not constants), start chains
//! after a barrier, shuffle in a loop, and run in block shapes that take the chains (`ntid.x` a
//! multiple of 32, in one to three dimensions) and that do not. Expected values come from a
//! model of `shfl.sync` and `vote.sync` written here from ISA 7.8 sections 9.7.8.6 and 9.7.12,
//! never from ptxr's output.

use ptxr_tests::{run_ok, Buffer, Launch, Random};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

#[derive(Clone, Copy)]
enum Mode {
    Up,
    Down,
    Butterfly,
    Index,
}

/// `shfl.sync` over one warp of `values` (every lane a member): each lane's result and
/// predicate, with `b` the lane's own `b` operand (ISA 7.8 section 9.7.8.6's pseudocode).
fn shuffle(values: &[u32], mode: Mode, b: impl Fn(usize) -> u32, c: u32) -> Vec<(u32, bool)> {
    (0..values.len())
        .map(|lane| {
            let lane_bits = lane as i32;
            let b = (b(lane) & 0x1f) as i32;
            let clamp = (c & 0x1f) as i32;
            let segment_mask = ((c >> 8) & 0x1f) as i32;
            let max_lane = (lane_bits & segment_mask) | (clamp & !segment_mask);
            let min_lane = lane_bits & segment_mask;
            let (source, in_range) = match mode {
                Mode::Up => (lane_bits - b, lane_bits - b >= max_lane),
                Mode::Down => (lane_bits + b, lane_bits + b <= max_lane),
                Mode::Butterfly => (lane_bits ^ b, (lane_bits ^ b) <= max_lane),
                Mode::Index => {
                    let source = min_lane | (b & !segment_mask);
                    (source, source <= max_lane)
                }
            };
            let source = if in_range { source as usize } else { lane };
            (values[source], in_range)
        })
        .collect()
}

/// `vote.sync.ballot.b32` over one warp.
fn ballot(predicates: &[bool]) -> u32 {
    predicates.iter().enumerate().fold(0, |bits, (lane, &set)| bits | (u32::from(set) << lane))
}

/// Applies `per_warp` to each warp (32 consecutive threads) of `values`.
fn by_warps<T>(values: &[u32], per_warp: impl FnMut(&[u32]) -> Vec<T>) -> Vec<T> {
    values.chunks(32).flat_map(per_warp).collect()
}

/// Constant shuffles of every mode with clamps and segments other than `0x1f`, a ballot, a
/// barrier (which ends the first chain; the second starts after it), a shuffle whose delta is
/// the same for the whole block but not a constant, and an index shuffle whose source differs
/// per lane (both completed by the runtime, between chains), then one more constant shuffle.
/// Each thread writes its value and the predicates of its shuffles.
const MIXED: &str = r#"
.visible .entry mixed(.param .u64 input, .param .u64 output, .param .u64 settings)
{
    .reg .u32 %r<60>;
    .reg .u64 %rd<20>;
    .reg .pred %p<10>;
    .shared .align 4 .u32 cells[1024];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd3, [settings];
    ld.global.u32 %r40, [%rd3];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %tid.z;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %ntid.y;
    mov.u32 %r6, %ntid.z;
    mad.lo.u32 %r7, %r3, %r5, %r2;
    mad.lo.u32 %r7, %r7, %r4, %r1;
    mul.lo.u32 %r8, %r4, %r5;
    mul.lo.u32 %r8, %r8, %r6;
    mov.u32 %r9, %ctaid.x;
    mad.lo.u32 %r10, %r9, %r8, %r7;
    mul.wide.u32 %rd4, %r10, 4;
    add.u64 %rd5, %rd1, %rd4;
    ld.global.u32 %r11, [%rd5];
    and.b32 %r12, %r7, 31;
    shfl.sync.down.b32 %r13|%p1, %r11, 5, 0x1c, -1;
    selp.u32 %r14, 1000, 0, %p1;
    add.u32 %r15, %r13, %r14;
    shfl.sync.up.b32 %r16|%p2, %r15, 2, 0x1800, -1;
    selp.u32 %r17, 77, 0, %p2;
    mad.lo.u32 %r18, %r15, 3, %r16;
    xor.b32 %r18, %r18, %r17;
    and.b32 %r19, %r18, 1;
    setp.ne.u32 %p3, %r19, 0;
    vote.sync.ballot.b32 %r20, %p3, -1;
    add.u32 %r21, %r18, %r20;
    shl.b32 %r22, %r7, 2;
    mov.u32 %r23, cells;
    add.u32 %r24, %r23, %r22;
    st.shared.u32 [%r24], %r21;
    bar.sync 0;
    add.u32 %r25, %r7, 33;
    rem.u32 %r25, %r25, %r8;
    shl.b32 %r25, %r25, 2;
    add.u32 %r25, %r23, %r25;
    ld.shared.u32 %r26, [%r25];
    xor.b32 %r27, %r21, %r26;
    shfl.sync.bfly.b32 %r28|%p4, %r27, 6, 0x1f, -1;
    add.u32 %r29, %r27, %r28;
    shfl.sync.idx.b32 %r30|%p5, %r29, 7, 0x081f, -1;
    add.u32 %r31, %r29, %r30;
    shfl.sync.down.b32 %r32|%p6, %r31, %r40, 0x1f, -1;
    add.u32 %r33, %r31, %r32;
    mul.lo.u32 %r34, %r12, 5;
    and.b32 %r34, %r34, 31;
    shfl.sync.idx.b32 %r35|%p7, %r33, %r34, 0x1f, -1;
    add.u32 %r36, %r33, %r35;
    shfl.sync.down.b32 %r37|%p8, %r36, 1, 0x1e, -1;
    add.u32 %r38, %r36, %r37;
    selp.u32 %r41, 1, 0, %p1;
    selp.u32 %r42, 2, 0, %p2;
    or.b32 %r41, %r41, %r42;
    selp.u32 %r42, 4, 0, %p4;
    or.b32 %r41, %r41, %r42;
    selp.u32 %r42, 8, 0, %p5;
    or.b32 %r41, %r41, %r42;
    selp.u32 %r42, 16, 0, %p6;
    or.b32 %r41, %r41, %r42;
    selp.u32 %r42, 32, 0, %p7;
    or.b32 %r41, %r41, %r42;
    selp.u32 %r42, 64, 0, %p8;
    or.b32 %r41, %r41, %r42;
    mul.wide.u32 %rd6, %r10, 8;
    add.u64 %rd7, %rd2, %rd6;
    st.global.v2.u32 [%rd7], {%r38, %r41};
    ret;
}
"#;

/// [`MIXED`] for one block of `input` (threads in linear order), with delta `delta`.
fn mixed_model(input: &[u32], delta: u32) -> Vec<(u32, u32)> {
    let threads = input.len();
    let down = by_warps(input, |warp| shuffle(warp, Mode::Down, |_| 5, 0x1c));
    let accumulators: Vec<u32> =
        down.iter().map(|&(value, in_range)| value.wrapping_add(if in_range { 1000 } else { 0 })).collect();
    let up = by_warps(&accumulators, |warp| shuffle(warp, Mode::Up, |_| 2, 0x1800));
    let mixed: Vec<u32> = (0..threads)
        .map(|thread| {
            let (value, in_range) = up[thread];
            accumulators[thread].wrapping_mul(3).wrapping_add(value) ^ if in_range { 77 } else { 0 }
        })
        .collect();
    let ballots = by_warps(&mixed, |warp| {
        let bits = ballot(&warp.iter().map(|value| value & 1 != 0).collect::<Vec<_>>());
        vec![bits; warp.len()]
    });
    let published: Vec<u32> = (0..threads).map(|thread| mixed[thread].wrapping_add(ballots[thread])).collect();
    let combined: Vec<u32> =
        (0..threads).map(|thread| published[thread] ^ published[(thread + 33) % threads]).collect();
    let butterfly = by_warps(&combined, |warp| shuffle(warp, Mode::Butterfly, |_| 6, 0x1f));
    let after_butterfly: Vec<u32> =
        (0..threads).map(|thread| combined[thread].wrapping_add(butterfly[thread].0)).collect();
    let index = by_warps(&after_butterfly, |warp| shuffle(warp, Mode::Index, |_| 7, 0x081f));
    let after_index: Vec<u32> =
        (0..threads).map(|thread| after_butterfly[thread].wrapping_add(index[thread].0)).collect();
    let uniform = by_warps(&after_index, |warp| shuffle(warp, Mode::Down, |_| delta, 0x1f));
    let after_uniform: Vec<u32> =
        (0..threads).map(|thread| after_index[thread].wrapping_add(uniform[thread].0)).collect();
    let per_lane = by_warps(&after_uniform, |warp| shuffle(warp, Mode::Index, |lane| (lane as u32 * 5) & 31, 0x1f));
    let after_per_lane: Vec<u32> =
        (0..threads).map(|thread| after_uniform[thread].wrapping_add(per_lane[thread].0)).collect();
    let last = by_warps(&after_per_lane, |warp| shuffle(warp, Mode::Down, |_| 1, 0x1e));
    (0..threads)
        .map(|thread| {
            let predicates = [
                down[thread].1,
                up[thread].1,
                butterfly[thread].1,
                index[thread].1,
                uniform[thread].1,
                per_lane[thread].1,
                last[thread].1,
            ];
            let bits = predicates.iter().enumerate().fold(0, |bits, (bit, &set)| bits | (u32::from(set) << bit));
            (after_per_lane[thread].wrapping_add(last[thread].0), bits)
        })
        .collect()
}

#[test]
fn chains_of_constant_collectives_around_barriers_and_runtime_shuffles() {
    let ptx = format!("{HEADER}{MIXED}");
    // Chains in one, two and three dimensions (`ntid.x` a multiple of 32), and whole warps
    // whose rows are not (`ntid.x` 16 or 8): those take the block-wide loops.
    for (block, blocks, delta) in
        [([256, 1, 1], 3, 3u32), ([64, 2, 1], 2, 17), ([32, 3, 2], 2, 0), ([16, 4, 1], 2, 9), ([8, 4, 3], 1, 31)]
    {
        let threads = (block[0] * block[1] * block[2]) as usize;
        let count = threads * blocks;
        let input = Random::new(count as u64 + u64::from(delta)).u32s(count);
        let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", count * 2), Buffer::u32s(&[delta])];
        let launch = Launch { grid: [blocks as u32, 1, 1], block, ..Launch::default() };
        let result = run_ok(&ptx, &launch, &buffers);
        for (block_index, block_input) in input.chunks(threads).enumerate() {
            for (thread, (value, predicates)) in mixed_model(block_input, delta).into_iter().enumerate() {
                let global = block_index * threads + thread;
                let context = format!("block {block:?}, delta {delta}, block {block_index}, thread {thread}");
                assert_eq!(result[1][global * 2] as u32, value, "value, {context}");
                assert_eq!(result[1][global * 2 + 1] as u32, predicates, "predicates, {context}");
            }
        }
    }
}

/// A constant shuffle and a vote in a loop whose trip count comes from memory: the region
/// after the shuffle either loops back to it or leaves, so the chain is the first region alone.
const SHUFFLE_IN_A_LOOP: &str = r#"
.visible .entry looped(.param .u64 input, .param .u64 output, .param .u64 settings)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd6, [settings];
    ld.global.u32 %r9, [%rd6];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r10, [%rd4];
    mov.u32 %r8, 0;
    mov.u32 %r15, 0;
LOOP:
    shfl.sync.up.b32 %r11|%p2, %r10, 3, 0, -1;
    selp.u32 %r12, %r11, 5, %p2;
    mad.lo.u32 %r10, %r10, 7, %r12;
    setp.lt.u32 %p3, %r10, 0x80000000;
    vote.sync.any.pred %p3, %p3, -1;
    selp.u32 %r13, 1, 2, %p3;
    add.u32 %r15, %r15, %r13;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p1, %r8, %r9;
    @%p1 bra LOOP;
    add.u32 %r16, %r10, %r15;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r16;
    ret;
}
"#;

#[test]
fn a_constant_shuffle_and_a_vote_in_a_loop() {
    let ptx = format!("{HEADER}{SHUFFLE_IN_A_LOOP}");
    for (threads, rounds) in [(128u32, 4u32), (64, 1), (96, 7)] {
        let count = threads as usize;
        let input = Random::new(u64::from(rounds)).u32s(count);
        let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", count), Buffer::u32s(&[rounds])];
        let result = run_ok(&ptx, &Launch::threads(threads), &buffers);
        let mut values = input.clone();
        let mut counts = vec![0u32; count];
        for _ in 0..rounds {
            let up = by_warps(&values, |warp| shuffle(warp, Mode::Up, |_| 3, 0));
            for thread in 0..count {
                let (value, in_range) = up[thread];
                values[thread] = values[thread].wrapping_mul(7).wrapping_add(if in_range { value } else { 5 });
            }
            let any = by_warps(&values, |warp| vec![warp.iter().any(|&value| value < 0x8000_0000); warp.len()]);
            for thread in 0..count {
                counts[thread] += if any[thread] { 1 } else { 2 };
            }
        }
        for thread in 0..count {
            let expected = values[thread].wrapping_add(counts[thread]);
            assert_eq!(result[1][thread] as u32, expected, "{threads} threads, {rounds} rounds, thread {thread}");
        }
    }
}

/// Butterfly sums within 16-lane halves, with the member mask of the lanes that exist: a block
/// of 48 threads has a last warp of 16, so the chains (which need whole warps) are not taken.
const PARTIAL_WARP: &str = r#"
.visible .entry partial(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r10, [%rd4];
    and.b32 %r3, %r1, -32;
    sub.u32 %r4, %r2, %r3;
    min.u32 %r4, %r4, 32;
    mov.u32 %r5, -1;
    setp.lt.u32 %p1, %r4, 32;
    shl.b32 %r6, 1, %r4;
    sub.u32 %r6, %r6, 1;
    selp.b32 %r5, %r6, %r5, %p1;
    shfl.sync.bfly.b32 %r11, %r10, 1, 0x1f, %r5;
    add.u32 %r10, %r10, %r11;
    shfl.sync.bfly.b32 %r11, %r10, 2, 0x1f, %r5;
    add.u32 %r10, %r10, %r11;
    shfl.sync.bfly.b32 %r11, %r10, 4, 0x1f, %r5;
    add.u32 %r10, %r10, %r11;
    shfl.sync.bfly.b32 %r11, %r10, 8, 0x1f, %r5;
    add.u32 %r10, %r10, %r11;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r10;
    ret;
}
"#;

#[test]
fn a_block_whose_last_warp_is_partial() {
    let ptx = format!("{HEADER}{PARTIAL_WARP}");
    let count = 48;
    let input = Random::new(48).u32s(count);
    let result = run_ok(&ptx, &Launch::threads(count as u32), &[Buffer::u32s(&input), Buffer::zeroed("u32", count)]);
    for (thread, &value) in result[1].iter().enumerate() {
        let half = thread & !15;
        let expected = input[half..half + 16].iter().fold(0u32, |sum, &value| sum.wrapping_add(value));
        assert_eq!(value as u32, expected, "thread {thread}");
    }
}

/// The benchmark's warp reduction (`bench/kernels/warp_reduce.cu`): five constant
/// `shfl.sync.down` steps, then lane 0 stores its warp's sum.
const WARP_SUM: &str = r#"
.visible .entry warp_sum(.param .u64 input, .param .u64 sums)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [sums];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mul.wide.u32 %rd3, %r4, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    shfl.sync.down.b32 %r6, %r5, 16, 31, -1;
    add.u32 %r5, %r5, %r6;
    shfl.sync.down.b32 %r6, %r5, 8, 31, -1;
    add.u32 %r5, %r5, %r6;
    shfl.sync.down.b32 %r6, %r5, 4, 31, -1;
    add.u32 %r5, %r5, %r6;
    shfl.sync.down.b32 %r6, %r5, 2, 31, -1;
    add.u32 %r5, %r5, %r6;
    shfl.sync.down.b32 %r6, %r5, 1, 31, -1;
    add.u32 %r5, %r5, %r6;
    and.b32 %r7, %r1, 31;
    setp.ne.u32 %p1, %r7, 0;
    @%p1 bra DONE;
    shr.u32 %r8, %r4, 5;
    mul.wide.u32 %rd5, %r8, 4;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r5;
DONE:
    ret;
}
"#;

#[test]
fn a_warp_reduction_runs_as_vector_permutations() {
    let ptx = format!("{HEADER}{WARP_SUM}");
    if !ptxr_tests::cpu_waits_forced_to_coroutines() {
        // The whole body is one chain: each shuffle one permutation of the warp's 32 values
        // (`<32 x i64>` deposits, or `<32 x i32>` where LLVM narrows them).
        let ir = ptxr_tests::cpu_llvm_ir(&ptx, 2);
        let regions = ptxr_tests::llvm_function(&ir, "warp_sum.regions");
        let permutations = regions.matches("> poison, <32 x i32> <i32 1, i32 2, i32 3").count();
        assert_eq!(permutations, 1, "the last shuffle (down by 1) as one permutation:\n{regions}");
    }
    for threads in [256u32, 96, 32] {
        let count = threads as usize * 4;
        let input = Random::new(u64::from(threads)).u32s(count);
        let launch = Launch { grid: [4, 1, 1], ..Launch::threads(threads) };
        let result = run_ok(&ptx, &launch, &[Buffer::u32s(&input), Buffer::zeroed("u32", count / 32)]);
        for (warp, values) in input.chunks(32).enumerate() {
            let expected = values.iter().fold(0u32, |sum, &value| sum.wrapping_add(value));
            assert_eq!(result[1][warp] as u32, expected, "{threads} threads, warp {warp}");
        }
    }
}
