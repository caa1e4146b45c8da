//! `mapa` and `getctarank` (ISA 7.8 sections 9.7.8.20, 9.7.8.21) on the CPU, where every CTA is a
//! cluster of one (ptxr launches no clusters): the CTA's rank is 0, `mapa` to rank 0 is the
//! address itself, and `mapa` to another rank (undefined by the ISA: no such CTA) is
//! documented to give the address itself too.

use ptxr_tests::{run_ok, Buffer, Launch};

/// Each thread writes 8 words at `out[8 * (ctaid.x * ntid.x + tid.x)]`: the differences
/// between `mapa`'s results and their inputs (generic `.u64`, `.shared::cluster` `.u64` and
/// `.u32`, rank from `%r_rank`), then `getctarank` of a generic, a `.shared::cluster` `.u32`
/// and `.u64` address and of a shared variable plus offset, then `%cluster_ctarank`.
const CLUSTER_ADDRESSES: &str = r#".version 7.8
.target sm_90
.address_size 64

.shared .align 8 .b64 tile[8];

.visible .entry addresses(.param .u64 output, .param .u32 rank)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<16>;
    ld.param.u64 %rd1, [output];
    ld.param.u32 %r1, [rank];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    mul.wide.u32 %rd2, %r5, 32;
    add.u64 %rd1, %rd1, %rd2;
    mul.wide.u32 %rd3, %r4, 8;
    mov.u64 %rd4, tile;
    add.u64 %rd4, %rd4, %rd3;
    cvta.shared.u64 %rd5, %rd4;
    mapa.u64 %rd6, %rd5, %r1;
    sub.u64 %rd7, %rd6, %rd5;
    cvt.u32.u64 %r6, %rd7;
    st.global.u32 [%rd1], %r6;
    mapa.shared::cluster.u64 %rd8, %rd4, %r1;
    sub.u64 %rd9, %rd8, %rd4;
    cvt.u32.u64 %r7, %rd9;
    st.global.u32 [%rd1+4], %r7;
    cvt.u32.u64 %r8, %rd4;
    mapa.shared::cluster.u32 %r9, %r8, %r1;
    sub.u32 %r9, %r9, %r8;
    st.global.u32 [%rd1+8], %r9;
    getctarank.u64 %r10, %rd5;
    st.global.u32 [%rd1+12], %r10;
    getctarank.shared::cluster.u32 %r11, %r8;
    st.global.u32 [%rd1+16], %r11;
    getctarank.shared::cluster.u64 %r12, %rd4;
    st.global.u32 [%rd1+20], %r12;
    getctarank.shared::cluster.u64 %r13, tile+8;
    st.global.u32 [%rd1+24], %r13;
    mov.u32 %r14, %cluster_ctarank;
    st.global.u32 [%rd1+28], %r14;
    // The mapped generic address still reaches this CTA's shared memory.
    st.u64 [%rd6], %rd2;
    ret;
}
"#;

fn run_with_rank(rank: u32) -> Vec<u64> {
    let launch = Launch { grid: [3, 1, 1], block: [4, 1, 1], ..Launch::default() };
    let threads = 12;
    let scalars = [ptxr_tests::Scalar { ty: "u32", value: u64::from(rank) }];
    ptxr_tests::run_with_scalars_ok(CLUSTER_ADDRESSES, &launch, &[Buffer::zeroed("u32", 8 * threads)], &scalars)
        .remove(0)
}

#[test]
fn rank_zero_maps_to_the_same_address_and_every_rank_is_zero() {
    let words = run_with_rank(0);
    assert_eq!(words.len(), 96);
    for (thread, values) in words.chunks(8).enumerate() {
        // The three `mapa` differences, four `getctarank` results and `%cluster_ctarank`: all 0.
        assert_eq!(values, [0; 8], "thread {thread}");
    }
}

#[test]
fn other_ranks_map_to_the_same_address_as_documented() {
    for rank in [1, 7, u32::MAX] {
        let words = run_with_rank(rank);
        assert!(words.iter().all(|&word| word == 0), "rank {rank}: {words:?}");
    }
}

#[test]
fn getctarank_of_a_shared_variable_is_zero() {
    // One thread; the rank (0) plus 5, so that a missing store cannot pass.
    let source = r#".version 7.8
.target sm_90
.address_size 64
.shared .align 4 .b32 word;
.visible .entry rank(.param .u64 output)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [output];
    mov.u64 %rd2, word;
    getctarank.shared::cluster.u64 %r1, %rd2;
    add.u32 %r1, %r1, 5;
    st.global.u32 [%rd1], %r1;
    ret;
}
"#;
    let result = run_ok(source, &Launch::threads(1), &[Buffer::zeroed("u32", 1)]);
    assert_eq!(result[0], [5]);
}
