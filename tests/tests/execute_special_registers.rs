//! The special registers of ISA 7.8 chapter 10 that describe where and how a kernel runs rather
//! than which thread it is, on the CPU: `%smid`/`%nsmid` (sections 10.8, 10.9), `%gridid`
//! (10.10), `%dynamic_smem_size`/`%total_smem_size` (10.30, 10.31), `%envreg<32>` (10.27),
//! `%pm0..7` and `%pm0_64..7_64` (10.25, 10.26), `%reserved_smem_offset_*` (10.29) and the
//! cluster registers (10.11 to 10.17), which ptxr gives as a cluster of one CTA.
//!
//! Expected values come from the launch (its grid, its dynamic shared bytes) and the spec's
//! definitions, with ptxr's documented choices (ARCHITECTURE.md, "Special registers"): shared
//! memory is allocated in units of 16 bytes (CUDA's alignment of the dynamic part), no
//! environment register or performance counter is defined, no shared memory is reserved.

use ptxr_tests::{run_ok, Buffer, Launch};

/// Words each block writes, from its first thread.
const WORDS_PER_BLOCK: usize = 16;

/// Each block's thread 0 writes, at `out[WORDS_PER_BLOCK * linear block index]`: %smid,
/// %nsmid, %dynamic_smem_size, %total_smem_size, %gridid (two words), %envreg0, %envreg31,
/// %pm0, %pm7, %pm3_64 (two words), then the reserved window's begin, end, cap and the OR of
/// _0 and _1. 20 bytes of static shared memory and a dynamic array, both written so that
/// neither is unused.
const MACHINE: &str = r#".version 7.8
.target sm_90
.address_size 64

.extern .shared .align 4 .b8 dynamic_part[];
.shared .align 4 .b32 static_part[5];

.visible .entry machine(.param .u64 output)
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<8>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [output];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ctaid.y;
    mov.u32 %r4, %nctaid.x;
    mad.lo.u32 %r5, %r3, %r4, %r2;
    mul.lo.u32 %r5, %r5, 64;
    cvt.u64.u32 %rd2, %r5;
    add.u64 %rd1, %rd1, %rd2;
    mov.u32 %r6, %smid;
    st.global.u32 [%rd1], %r6;
    mov.u32 %r7, %nsmid;
    st.global.u32 [%rd1+4], %r7;
    mov.u32 %r8, %dynamic_smem_size;
    st.global.u32 [%rd1+8], %r8;
    mov.u32 %r9, %total_smem_size;
    st.global.u32 [%rd1+12], %r9;
    mov.u64 %rd3, %gridid;
    st.global.u64 [%rd1+16], %rd3;
    mov.u32 %r10, %envreg0;
    st.global.u32 [%rd1+24], %r10;
    mov.u32 %r11, %envreg31;
    st.global.u32 [%rd1+28], %r11;
    mov.u32 %r12, %pm0;
    st.global.u32 [%rd1+32], %r12;
    mov.u32 %r13, %pm7;
    st.global.u32 [%rd1+36], %r13;
    mov.u64 %rd4, %pm3_64;
    st.global.u64 [%rd1+40], %rd4;
    mov.u32 %r14, %reserved_smem_offset_begin;
    st.global.u32 [%rd1+48], %r14;
    mov.u32 %r15, %reserved_smem_offset_end;
    st.global.u32 [%rd1+52], %r15;
    mov.u32 %r16, %reserved_smem_offset_cap;
    st.global.u32 [%rd1+56], %r16;
    mov.u32 %r17, %reserved_smem_offset_0;
    mov.u32 %r18, %reserved_smem_offset_1;
    or.b32 %r17, %r17, %r18;
    st.global.u32 [%rd1+60], %r17;
    st.shared.u32 [static_part+16], %r6;
    st.shared.u32 [dynamic_part], %r6;
DONE:
    ret;
}
"#;

/// One block's words, as `u64`s of the `u32` buffer.
struct BlockWords<'a>(&'a [u64]);

impl BlockWords<'_> {
    fn word(&self, index: usize) -> u64 {
        self.0[index]
    }

    fn double_word(&self, index: usize) -> u64 {
        self.0[index] | (self.0[index + 1] << 32)
    }
}

fn run_machine(grid: [u32; 3], shared_bytes: u32) -> Vec<u64> {
    let blocks = grid.iter().product::<u32>() as usize;
    let launch = Launch { grid, block: [4, 1, 1], shared_bytes, ..Launch::default() };
    let mut result = run_ok(MACHINE, &launch, &[Buffer::zeroed("u32", WORDS_PER_BLOCK * blocks)]);
    result.remove(0)
}

/// ptxr's shared memory allocation unit: the static part ends on a multiple of 16 bytes.
fn allocated(bytes: u32) -> u32 {
    bytes.div_ceil(16) * 16
}

#[test]
fn machine_registers_describe_the_launch() {
    let grid = [3, 2, 1];
    let shared_bytes = 24;
    let words = run_machine(grid, shared_bytes);
    let blocks = words.chunks(WORDS_PER_BLOCK).map(BlockWords).collect::<Vec<_>>();
    assert_eq!(blocks.len(), 6);
    let grid_id = blocks[0].double_word(4);
    assert_ne!(grid_id, 0, "%gridid");
    for (index, block) in blocks.iter().enumerate() {
        let (sm, sm_count) = (block.word(0), block.word(1));
        // Section 10.8: %smid lies in [0, %nsmid); ptxr never starts more workers than blocks.
        assert!(sm_count >= 1 && sm_count <= blocks.len() as u64, "block {index}: %nsmid {sm_count}");
        assert!(sm < sm_count, "block {index}: %smid {sm} of {sm_count}");
        assert_eq!(block.word(1), blocks[0].word(1), "block {index}: %nsmid is the launch's");
        assert_eq!(block.word(2), u64::from(shared_bytes), "block {index}: %dynamic_smem_size");
        // Section 10.30: static (20 bytes, allocated in 16-byte units) plus dynamic.
        assert_eq!(block.word(3), u64::from(allocated(20) + shared_bytes), "block {index}: %total_smem_size");
        assert_eq!(block.double_word(4), grid_id, "block {index}: one %gridid per launch");
        // No environment register, performance counter or reserved window is defined.
        for word in 6..16 {
            assert_eq!(block.word(word), 0, "block {index}: word {word}");
        }
    }
}

#[test]
fn every_launch_has_its_own_grid_id() {
    let first = run_machine([2, 1, 1], 0);
    let second = run_machine([2, 1, 1], 0);
    let id = |words: &[u64]| BlockWords(words).double_word(4);
    assert_ne!(id(&first), 0);
    assert_ne!(id(&second), 0);
    assert_ne!(id(&first), id(&second), "two launches share %gridid");
    // Without dynamic shared memory the total is the static part alone.
    assert_eq!(first[2], 0);
    assert_eq!(first[3], u64::from(allocated(20)));
}

/// Every thread writes, at `out[16 * linear thread index in the grid]`: %clusterid.xyz,
/// %nclusterid.xyz, %cluster_ctaid.xyz, %cluster_nctaid.xyz, %cluster_ctarank,
/// %cluster_nctarank, %is_explicit_cluster as 0 or 1, and %ctaid.y to compare with.
const CLUSTER: &str = r#".version 7.8
.target sm_90
.address_size 64

.visible .entry cluster(.param .u64 output)
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ctaid.y;
    mov.u32 %r3, %nctaid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mov.u32 %r5, %ntid.x;
    mov.u32 %r6, %tid.x;
    mad.lo.u32 %r4, %r4, %r5, %r6;
    mul.lo.u32 %r4, %r4, 64;
    cvt.u64.u32 %rd2, %r4;
    add.u64 %rd1, %rd1, %rd2;
    mov.u32 %r7, %clusterid.x;
    st.global.u32 [%rd1], %r7;
    mov.u32 %r7, %clusterid.y;
    st.global.u32 [%rd1+4], %r7;
    mov.u32 %r7, %clusterid.z;
    st.global.u32 [%rd1+8], %r7;
    mov.u32 %r7, %nclusterid.x;
    st.global.u32 [%rd1+12], %r7;
    mov.u32 %r7, %nclusterid.y;
    st.global.u32 [%rd1+16], %r7;
    mov.u32 %r7, %nclusterid.z;
    st.global.u32 [%rd1+20], %r7;
    mov.u32 %r7, %cluster_ctaid.x;
    st.global.u32 [%rd1+24], %r7;
    mov.u32 %r7, %cluster_ctaid.y;
    st.global.u32 [%rd1+28], %r7;
    mov.u32 %r7, %cluster_ctaid.z;
    st.global.u32 [%rd1+32], %r7;
    mov.u32 %r7, %cluster_nctaid.x;
    st.global.u32 [%rd1+36], %r7;
    mov.u32 %r7, %cluster_nctaid.y;
    st.global.u32 [%rd1+40], %r7;
    mov.u32 %r7, %cluster_nctaid.z;
    st.global.u32 [%rd1+44], %r7;
    mov.u32 %r7, %cluster_ctarank;
    st.global.u32 [%rd1+48], %r7;
    mov.u32 %r7, %cluster_nctarank;
    st.global.u32 [%rd1+52], %r7;
    mov.pred %p1, %is_explicit_cluster;
    selp.u32 %r7, 1, 0, %p1;
    st.global.u32 [%rd1+56], %r7;
    st.global.u32 [%rd1+60], %r2;
    ret;
}
"#;

#[test]
fn every_cta_is_a_cluster_of_one() {
    let grid = [3, 2, 1];
    let threads = 2;
    let launch = Launch { grid, block: [threads, 1, 1], ..Launch::default() };
    let count = (grid.iter().product::<u32>() * threads) as usize;
    let words = run_ok(CLUSTER, &launch, &[Buffer::zeroed("u32", 16 * count)]).remove(0);
    for (thread, values) in words.chunks(16).enumerate() {
        let block = thread as u64 / u64::from(threads);
        let ctaid = [block % 3, block / 3, 0];
        let grid = grid.map(u64::from);
        // Section 10.12 to 10.17 for a launch without clusters: each CTA is its own cluster.
        let expected = [ctaid[0], ctaid[1], ctaid[2], grid[0], grid[1], grid[2], 0, 0, 0, 1, 1, 1, 0, 1, 0, ctaid[1]];
        assert_eq!(values, expected, "thread {thread}");
    }
}

/// A program's own register may start like a numbered special register (`%pmask`, `%envregs`):
/// only `%pm<N>` and `%envreg<N>` are reserved.
#[test]
fn registers_named_like_counters_are_the_programs_own() {
    let source = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry own(.param .u64 output)
{
    .reg .b32 %pmask;
    .reg .b32 %envregs;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %pmask, %pm3;
    add.u32 %pmask, %pmask, 7;
    mov.u32 %envregs, %envreg9;
    add.u32 %envregs, %envregs, %pmask;
    st.global.u32 [%rd1], %envregs;
    ret;
}
"#;
    let result = run_ok(source, &Launch::threads(1), &[Buffer::zeroed("u32", 1)]);
    assert_eq!(result[0], [7]);
}

/// `%aggr_smem_size` (ISA 8.1, sm_90): the CTA's shared memory with the reserved part, of which
/// ptxr reserves none, so it is `%total_smem_size`: static (20 bytes, in 16-byte units) plus
/// dynamic.
#[test]
fn aggregate_shared_size_is_static_plus_dynamic() {
    let ptx = r#".version 8.1
.target sm_90
.address_size 64
.extern .shared .align 4 .b8 dynamic_part[];
.shared .align 4 .b32 static_part[5];
.visible .entry aggregate(.param .u64 output)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %aggr_smem_size;
    mov.u32 %r2, %total_smem_size;
    st.global.u32 [%rd1], %r1;
    st.global.u32 [%rd1+4], %r2;
    st.shared.u32 [static_part+16], %r1;
    st.shared.u32 [dynamic_part], %r1;
    ret;
}
"#;
    let shared_bytes = 40;
    let launch = Launch { grid: [1, 1, 1], block: [1, 1, 1], shared_bytes, ..Launch::default() };
    let words = run_ok(ptx, &launch, &[Buffer::zeroed("u32", 2)]).remove(0);
    assert_eq!(words[0], u64::from(allocated(20) + shared_bytes), "%aggr_smem_size");
    assert_eq!(words[0], words[1], "%aggr_smem_size against %total_smem_size");
}
