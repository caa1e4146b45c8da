//! CPU kernels that never wait but loop, which run iteration-major: a round of loop iterations of
//! every thread of the block at a time (`intrinsics/src/work_item_loops/iteration_major.rs`).
//! `PTXR_CPU_THREAD_ORDER=thread-major` runs the same tests with each thread's whole body in
//! turn. The loops here have trip counts that differ per thread, threads whose loops run zero
//! times, exits from inside a loop, nested loops, `.local` arrays and calls; expected
//! values come from models written here, never from ptxr's output. Which loops run in rounds
//! (`round_loops.rs`) is checked on the LLVM IR.

use ptxr_tests::{cpu_llvm_ir, llvm_function, run_ok, run_with_scalars_ok, Buffer, Launch, Random, Scalar};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

fn as_u32s(bits: &[u64]) -> Vec<u32> {
    bits.iter().map(|&bits| bits as u32).collect()
}

/// A grid-stride loop over `n` elements, `y[i] = 3 * y[i] + x[i]`, with the block's threads
/// numbered over x and y; each element is visited once, whatever the grid.
const GRID_STRIDE: &str = r#"
.visible .entry grid_stride(.param .u64 x, .param .u64 y, .param .u32 n)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [x];
    ld.param.u64 %rd2, [y];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %tid.y;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %ntid.y;
    mad.lo.u32 %r6, %r3, %r4, %r2;
    mul.lo.u32 %r7, %r4, %r5;
    mov.u32 %r8, %ctaid.x;
    mov.u32 %r9, %nctaid.x;
    mad.lo.u32 %r10, %r8, %r7, %r6;
    mul.lo.u32 %r11, %r7, %r9;
    setp.ge.u32 %p1, %r10, %r1;
    @%p1 bra DONE;
LOOP:
    mul.wide.u32 %rd4, %r10, 4;
    add.u64 %rd5, %rd1, %rd4;
    ld.global.u32 %r12, [%rd5];
    add.u64 %rd6, %rd2, %rd4;
    ld.global.u32 %r13, [%rd6];
    mad.lo.u32 %r14, %r13, 3, %r12;
    st.global.u32 [%rd6], %r14;
    add.u32 %r10, %r10, %r11;
    setp.lt.u32 %p2, %r10, %r1;
    @%p2 bra LOOP;
DONE:
    ret;
}
"#;

#[test]
fn grid_stride_loops_visit_every_element_once() {
    let ptx = format!("{HEADER}{GRID_STRIDE}");
    // (grid, block x, block y, n): n a multiple of the grid's threads, with a partial last
    // round, below one round (threads whose loop runs zero times), zero, and one.
    for (grid, block_x, block_y, n) in
        [(4u32, 32u32, 2u32, 1024u32), (3, 64, 1, 1000), (5, 16, 3, 100), (2, 8, 8, 0), (1, 7, 3, 1), (6, 33, 1, 5000)]
    {
        let len = n as usize + 9;
        let mut random = Random::new(u64::from(n) + u64::from(grid));
        let (x, y) = (random.u32s(len), random.u32s(len));
        let buffers = [Buffer::u32s(&x), Buffer::u32s(&y)];
        let launch = Launch { grid: [grid, 1, 1], block: [block_x, block_y, 1], ..Launch::default() };
        let result = run_with_scalars_ok(&ptx, &launch, &buffers, &[Scalar { ty: "u32", value: u64::from(n) }]);
        let expected: Vec<u32> = (0..len)
            .map(|index| if index < n as usize { y[index].wrapping_mul(3).wrapping_add(x[index]) } else { y[index] })
            .collect();
        assert_eq!(as_u32s(&result[1]), expected, "grid {grid}, block {block_x}x{block_y}, n {n}");
    }
}

/// Thread t runs `k` from `5t` below `3 * %ntid.x` in steps of `%ntid.x` (so two fifths of the
/// block run no iteration, the others one to three), folding `data[(t + k) % 64]` into a sum
/// through a `.func`; an element divisible by 16 ends the thread at once (`exit` inside the
/// loop) with the sum's complement.
const EARLY_EXITS: &str = r#"
.func (.reg .u32 mixed) mix(.reg .u32 sum, .reg .u32 value)
{
    mad.lo.u32 mixed, sum, 31, value;
    ret;
}

.visible .entry early_exits(.param .u64 data, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd3, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r9, %ntid.x;
    mul.lo.u32 %r2, %r9, 3;
    mul.wide.u32 %rd4, %r1, 4;
    add.u64 %rd6, %rd3, %rd4;
    mul.lo.u32 %r3, %r1, 5;
    mov.u32 %r4, 0;
    setp.ge.u32 %p1, %r3, %r2;
    @%p1 bra FINISH;
LOOP:
    add.u32 %r5, %r1, %r3;
    and.b32 %r5, %r5, 63;
    mul.wide.u32 %rd7, %r5, 4;
    add.u64 %rd8, %rd1, %rd7;
    ld.global.u32 %r6, [%rd8];
    call (%r4), mix, (%r4, %r6);
    and.b32 %r7, %r6, 15;
    setp.eq.u32 %p2, %r7, 0;
    @%p2 bra STOP;
    add.u32 %r3, %r3, %r9;
    setp.lt.u32 %p3, %r3, %r2;
    @%p3 bra LOOP;
FINISH:
    st.global.u32 [%rd6], %r4;
    ret;
STOP:
    not.b32 %r8, %r4;
    st.global.u32 [%rd6], %r8;
    exit;
}
"#;

fn early_exits_model(data: &[u32], threads: usize) -> Vec<u32> {
    (0..threads)
        .map(|thread| {
            let mut sum = 0u32;
            for k in (5 * thread..3 * threads).step_by(threads) {
                let value = data[(thread + k) % 64];
                sum = sum.wrapping_mul(31).wrapping_add(value);
                if value % 16 == 0 {
                    return !sum;
                }
            }
            sum
        })
        .collect()
}

#[test]
fn threads_leave_loops_early_or_never_enter_them() {
    let ptx = format!("{HEADER}{EARLY_EXITS}");
    for (threads, seed) in [(128u32, 1u64), (45, 2), (256, 3), (1, 4)] {
        let data = Random::new(seed).u32s(64);
        let buffers = [Buffer::u32s(&data), Buffer::zeroed("u32", threads as usize)];
        let result = run_ok(&ptx, &Launch::threads(threads), &buffers);
        assert_eq!(as_u32s(&result[1]), early_exits_model(&data, threads as usize), "{threads} threads");
    }
}

/// Nested loops (`i` below 5, `j` below 3, then `m` below `i`; the first two counted in steps
/// of `%ntid.x` and `%ntid.y`), the first two reading global memory, accumulating into a
/// per-thread `.local` array that is read back after the loops.
const NESTED_WITH_LOCAL_ARRAY: &str = r#"
.visible .entry nested(.param .u64 data, .param .u64 output)
{
    .reg .u32 %r<24>;
    .reg .u64 %rd<12>;
    .reg .pred %p<4>;
    .local .align 4 .u32 cells[4];
    ld.param.u64 %rd9, [data];
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r11, %ntid.x;
    mad.lo.u32 %r1, %r2, %r11, %r1;
    mov.u32 %r12, 0;
    st.local.u32 [cells], %r12;
    st.local.u32 [cells+4], %r12;
    st.local.u32 [cells+8], %r12;
    st.local.u32 [cells+12], %r12;
    mov.u32 %r17, 0;
    mul.lo.u32 %r18, %r11, 5;
    mov.u32 %r21, %ntid.y;
    mul.lo.u32 %r20, %r21, 3;
    mov.u32 %r9, 0;
    mov.u64 %rd2, cells;
OUTER:
    div.u32 %r4, %r17, %r11;
    mov.u32 %r19, 0;
INNER:
    div.u32 %r5, %r19, %r21;
    mul.lo.u32 %r14, %r1, 7;
    mad.lo.u32 %r14, %r4, 3, %r14;
    add.u32 %r14, %r14, %r5;
    and.b32 %r14, %r14, 63;
    mul.wide.u32 %rd7, %r14, 4;
    add.u64 %rd8, %rd9, %rd7;
    ld.global.u32 %r15, [%rd8];
    xor.b32 %r15, %r15, %r5;
    add.u32 %r9, %r9, %r15;
    add.u32 %r19, %r19, %r21;
    setp.lt.u32 %p2, %r19, %r20;
    @%p2 bra INNER;
    mov.u32 %r16, 0;
    setp.eq.u32 %p1, %r4, 0;
    @%p1 bra THIRD_DONE;
THIRD:
    mul.lo.u32 %r6, %r16, %r1;
    add.u32 %r9, %r9, %r6;
    add.u32 %r16, %r16, 1;
    setp.lt.u32 %p1, %r16, %r4;
    @%p1 bra THIRD;
THIRD_DONE:
    and.b32 %r7, %r4, 3;
    mul.wide.u32 %rd3, %r7, 4;
    add.u64 %rd4, %rd2, %rd3;
    ld.local.u32 %r10, [%rd4];
    add.u32 %r10, %r10, %r9;
    st.local.u32 [%rd4], %r10;
    add.u32 %r17, %r17, %r11;
    setp.lt.u32 %p3, %r17, %r18;
    @%p3 bra OUTER;
    mul.wide.u32 %rd5, %r1, 16;
    add.u64 %rd6, %rd1, %rd5;
    ld.local.u32 %r13, [cells];
    st.global.u32 [%rd6], %r13;
    ld.local.u32 %r13, [cells+4];
    st.global.u32 [%rd6+4], %r13;
    ld.local.u32 %r13, [cells+8];
    st.global.u32 [%rd6+8], %r13;
    ld.local.u32 %r13, [cells+12];
    st.global.u32 [%rd6+12], %r13;
    ret;
}
"#;

fn nested_model(data: &[u32], threads: u32) -> Vec<u32> {
    (0..threads)
        .flat_map(|thread| {
            let mut cells = [0u32; 4];
            let mut sum = 0u32;
            for i in 0..5u32 {
                for j in 0..3u32 {
                    let index = thread.wrapping_mul(7).wrapping_add(i * 3).wrapping_add(j) & 63;
                    sum = sum.wrapping_add(data[index as usize] ^ j);
                }
                for m in 0..i {
                    sum = sum.wrapping_add(m.wrapping_mul(thread));
                }
                cells[(i & 3) as usize] = cells[(i & 3) as usize].wrapping_add(sum);
            }
            cells
        })
        .collect()
}

#[test]
fn nested_loops_with_local_arrays() {
    let ptx = format!("{HEADER}{NESTED_WITH_LOCAL_ARRAY}");
    let data = Random::new(9).u32s(64);
    for (block_x, block_y) in [(64u32, 1u32), (10, 5), (1, 1)] {
        let threads = block_x * block_y;
        let buffers = [Buffer::u32s(&data), Buffer::zeroed("u32", threads as usize * 4)];
        let launch = Launch { block: [block_x, block_y, 1], ..Launch::default() };
        let result = run_ok(&ptx, &launch, &buffers);
        assert_eq!(as_u32s(&result[1]), nested_model(&data, threads), "block {block_x}x{block_y}");
    }
}

/// A grid-stride histogram over `n` words: one global atomic increment per word, into 16 bins
/// (a loop with atomics keeps the thread-major order).
const HISTOGRAM: &str = r#"
.visible .entry histogram(.param .u64 input, .param .u64 bins, .param .u32 n)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<3>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [bins];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.u32 %r5, %r2, %r3, %r4;
    mov.u32 %r6, %nctaid.x;
    mul.lo.u32 %r7, %r6, %r3;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
LOOP:
    mul.wide.u32 %rd3, %r5, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r8, [%rd4];
    and.b32 %r9, %r8, 15;
    mul.wide.u32 %rd5, %r9, 4;
    add.u64 %rd6, %rd2, %rd5;
    atom.global.add.u32 %r10, [%rd6], 1;
    add.u32 %r5, %r5, %r7;
    setp.lt.u32 %p2, %r5, %r1;
    @%p2 bra LOOP;
DONE:
    ret;
}
"#;

#[test]
fn grid_stride_atomics_count_every_element() {
    let ptx = format!("{HEADER}{HISTOGRAM}");
    for (grid, block, n) in [(8u32, 64u32, 10_000u32), (3, 100, 299), (2, 32, 0)] {
        let input = Random::new(u64::from(n)).u32s(n.max(1) as usize);
        let mut expected = vec![0u32; 16];
        for &value in &input[..n as usize] {
            expected[(value & 15) as usize] += 1;
        }
        let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", 16)];
        let launch = Launch { grid: [grid, 1, 1], block: [block, 1, 1], ..Launch::default() };
        let result = run_with_scalars_ok(&ptx, &launch, &buffers, &[Scalar { ty: "u32", value: u64::from(n) }]);
        assert_eq!(as_u32s(&result[1]), expected, "grid {grid}, block {block}, n {n}");
    }
}

/// Loops with a thread-uniform trip structure that touch memory run in rounds; a kernel
/// without a loop, a loop whose bound each thread loads, one that walks the thread's own row
/// with a constant step, a loop of arithmetic alone and one with atomics keep the plain loop
/// nest.
#[test]
fn only_uniform_loops_that_touch_memory_run_in_rounds() {
    const OTHERS: &str = r#"
.visible .entry straight(.param .u64 output)
{
    .reg .u32 %r<4>;
    .reg .u64 %rd<4>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}

.visible .entry loaded_bound(.param .u64 limits, .param .u64 output)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<6>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [limits];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    add.u64 %rd5, %rd2, %rd3;
    mov.u32 %r3, 0;
LOOP:
    st.global.u32 [%rd5], %r3;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r2;
    @%p1 bra LOOP;
    ret;
}

.visible .entry row(.param .u64 data, .param .u64 output)
{
    .reg .u32 %r<10>;
    .reg .u64 %rd<8>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 64;
    add.u64 %rd4, %rd1, %rd3;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    ld.global.u32 %r4, [%rd4];
    add.u32 %r2, %r2, %r4;
    add.u64 %rd4, %rd4, 4;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, 16;
    @%p1 bra LOOP;
    mul.wide.u32 %rd5, %r1, 4;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r2;
    ret;
}

.visible .entry arithmetic(.param .u64 output)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
LOOP:
    mad.lo.u32 %r2, %r2, 31, %r1;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, 100;
    @%p1 bra LOOP;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"#;
    let ir = cpu_llvm_ir(&format!("{HEADER}{GRID_STRIDE}{OTHERS}"), 2);
    let thread_major = std::env::var("PTXR_CPU_THREAD_ORDER").is_ok_and(|order| order == "thread-major");
    assert_eq!(ir.contains("@grid_stride.regions("), !thread_major, "{ir}");
    assert_eq!(llvm_function(&ir, "grid_stride").contains("ptxr_run_work_item_block"), !thread_major, "{ir}");
    for kernel in ["straight", "loaded_bound", "row", "arithmetic"] {
        assert!(!ir.contains(&format!("@{kernel}.regions(")), "{kernel}: {ir}");
        assert!(!llvm_function(&ir, kernel).contains("ptxr_run_work_item_block"), "{kernel}: {ir}");
    }
    let histogram = cpu_llvm_ir(&format!("{HEADER}{HISTOGRAM}"), 2);
    assert!(!histogram.contains("@histogram.regions("), "{histogram}");
    for (ptx, kernel) in [(EARLY_EXITS, "early_exits"), (NESTED_WITH_LOCAL_ARRAY, "nested")] {
        let ir = cpu_llvm_ir(&format!("{HEADER}{ptx}"), 2);
        assert_eq!(ir.contains(&format!("@{kernel}.regions(")), !thread_major, "{kernel}: {ir}");
    }
}
