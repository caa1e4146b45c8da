//! Kernels whose threads wait, under both of the CPU runtime's schemes: LLVM coroutines when
//! every barrier and collective is in the kernel body, stackful coroutines when a `.func`
//! waits. Expected values come from models written here (sums and shuffles as ISA 7.8
//! sections 9.7.8.6 and 9.7.12 define them), never from ptxr's output.

use ptxr_tests::{cpu_llvm_ir, cpu_waits_forced_to_coroutines, llvm_function, run_ok, Buffer, Launch, Random};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

/// Threads at or past `count` leave at once; the others sum their block's inputs with a tree
/// in shared memory whose levels are separated by `bar.sync` (the barrier counts only threads
/// that have not exited). Thread 0 writes the sum.
const EARLY_EXIT_REDUCTION: &str = r#"
.visible .entry reduce(.param .u64 input, .param .u64 output, .param .u64 count_pointer)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .pred %p<4>;
    .shared .align 4 .u32 partial[128];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd6, [count_pointer];
    ld.global.u32 %r15, [%rd6];
    mov.u32 %r10, %tid.x;
    setp.ge.u32 %p3, %r10, %r15;
    @%p3 bra EXIT;
    mul.wide.u32 %rd3, %r10, 4;
    add.u64 %rd5, %rd1, %rd3;
    ld.global.u32 %r1, [%rd5];
    mov.u32 %r2, partial;
    shl.b32 %r3, %r10, 2;
    add.u32 %r4, %r2, %r3;
    st.shared.u32 [%r4], %r1;
    mov.u32 %r5, 64;
    bar.sync 0;
LEVEL:
    add.u32 %r14, %r10, %r5;
    setp.ge.u32 %p1, %r10, %r5;
    @%p1 bra SKIP;
    setp.ge.u32 %p1, %r14, %r15;
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
    setp.ne.u32 %p1, %r10, 0;
    @%p1 bra EXIT;
    ld.shared.u32 %r9, [partial];
    st.global.u32 [%rd2], %r9;
EXIT:
    ret;
}
"#;

#[test]
fn threads_that_exit_early_do_not_hold_up_barriers_in_a_loop() {
    let ptx = format!("{HEADER}{EARLY_EXIT_REDUCTION}");
    let mut random = Random::new(11);
    let input = random.u32s(128);
    for count in [128u32, 100, 33, 1] {
        let result = run_ok(
            &ptx,
            &Launch::threads(128),
            &[Buffer::u32s(&input), Buffer::zeroed("u32", 1), Buffer::u32s(&[count])],
        );
        let expected = input[..count as usize].iter().fold(0u32, |sum, &value| sum.wrapping_add(value));
        assert_eq!(result[1][0] as u32, expected, "sum of the first {count} inputs");
    }
}

/// Every thread keeps twelve registers and a `.local` array live across three barriers, each
/// round reading a neighbour's value from shared memory; the result is a fixed function of
/// the inputs that the test computes in the same rounds.
const MANY_LIVE_VALUES: &str = r#"
.visible .entry rounds(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<40>;
    .reg .u64 %rd<10>;
    .reg .pred %p1;
    .local .align 4 .u32 history[4];
    .shared .align 4 .u32 exchange[64];
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r30, exchange;
    shl.b32 %r31, %r1, 2;
    add.u32 %r32, %r30, %r31;
    add.u32 %r33, %r1, 1;
    and.b32 %r33, %r33, 63;
    shl.b32 %r33, %r33, 2;
    add.u32 %r33, %r30, %r33;
    mov.u32 %r3, 0;
    add.u32 %r10, %r2, 1;
    add.u32 %r11, %r2, 2;
    add.u32 %r12, %r2, 3;
    add.u32 %r13, %r2, 4;
    add.u32 %r14, %r2, 5;
    add.u32 %r15, %r2, 6;
    mul.lo.u32 %r16, %r2, 3;
    mul.lo.u32 %r17, %r2, 5;
    mul.lo.u32 %r18, %r2, 7;
    xor.b32 %r19, %r2, 0x5555;
    xor.b32 %r20, %r2, 0xaaaa;
    shl.b32 %r21, %r2, 1;
ROUND:
    st.shared.u32 [%r32], %r2;
    bar.sync 0;
    ld.shared.u32 %r4, [%r33];
    mul.wide.u32 %rd6, %r3, 4;
    mov.u64 %rd7, history;
    add.u64 %rd7, %rd7, %rd6;
    st.local.u32 [%rd7], %r4;
    bar.sync 0;
    add.u32 %r2, %r2, %r4;
    xor.b32 %r2, %r2, %r3;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, 3;
    @%p1 bra ROUND;
    ld.local.u32 %r5, [history];
    ld.local.u32 %r6, [history+4];
    ld.local.u32 %r7, [history+8];
    add.u32 %r2, %r2, %r5;
    add.u32 %r2, %r2, %r6;
    add.u32 %r2, %r2, %r7;
    add.u32 %r2, %r2, %r10;
    add.u32 %r2, %r2, %r11;
    add.u32 %r2, %r2, %r12;
    add.u32 %r2, %r2, %r13;
    add.u32 %r2, %r2, %r14;
    add.u32 %r2, %r2, %r15;
    add.u32 %r2, %r2, %r16;
    add.u32 %r2, %r2, %r17;
    add.u32 %r2, %r2, %r18;
    add.u32 %r2, %r2, %r19;
    add.u32 %r2, %r2, %r20;
    add.u32 %r2, %r2, %r21;
    st.global.u32 [%rd5], %r2;
    ret;
}
"#;

fn many_live_values_model(input: &[u32]) -> Vec<u32> {
    let mut values = input.to_vec();
    let mut history = vec![[0u32; 3]; input.len()];
    for round in 0..3u32 {
        let neighbours: Vec<u32> = (0..values.len()).map(|thread| values[(thread + 1) % values.len()]).collect();
        for thread in 0..values.len() {
            history[thread][round as usize] = neighbours[thread];
            values[thread] = values[thread].wrapping_add(neighbours[thread]) ^ round;
        }
    }
    (0..input.len())
        .map(|thread| {
            let original = input[thread];
            let kept = [
                original.wrapping_add(1),
                original.wrapping_add(2),
                original.wrapping_add(3),
                original.wrapping_add(4),
                original.wrapping_add(5),
                original.wrapping_add(6),
                original.wrapping_mul(3),
                original.wrapping_mul(5),
                original.wrapping_mul(7),
                original ^ 0x5555,
                original ^ 0xaaaa,
                original << 1,
            ];
            history[thread].iter().chain(&kept).fold(values[thread], |sum, &value| sum.wrapping_add(value))
        })
        .collect()
}

#[test]
fn registers_and_local_arrays_survive_every_barrier() {
    let ptx = format!("{HEADER}{MANY_LIVE_VALUES}");
    let mut random = Random::new(5);
    let input = random.u32s(64);
    let result = run_ok(&ptx, &Launch::threads(64), &[Buffer::u32s(&input), Buffer::zeroed("u32", 64)]);
    let output: Vec<u32> = result[1].iter().map(|&bits| bits as u32).collect();
    assert_eq!(output, many_live_values_model(&input));
}

/// A warp sum by butterfly shuffles inside a `.func`: the thread waits inside a call.
const SHUFFLE_IN_A_FUNCTION: &str = r#"
.func (.reg .u32 %sum) warp_sum(.reg .u32 %value)
{
    .reg .u32 %t;
    mov.u32 %sum, %value;
    shfl.sync.bfly.b32 %t, %sum, 16, 31, -1;
    add.u32 %sum, %sum, %t;
    shfl.sync.bfly.b32 %t, %sum, 8, 31, -1;
    add.u32 %sum, %sum, %t;
    shfl.sync.bfly.b32 %t, %sum, 4, 31, -1;
    add.u32 %sum, %sum, %t;
    shfl.sync.bfly.b32 %t, %sum, 2, 31, -1;
    add.u32 %sum, %sum, %t;
    shfl.sync.bfly.b32 %t, %sum, 1, 31, -1;
    add.u32 %sum, %sum, %t;
    ret;
}
"#;

#[test]
fn a_function_that_shuffles_runs_on_stackful_threads() {
    let sums = per_thread_kernel("sums", "    call.uni (%r3), warp_sum, (%r2);\n    st.global.u32 [%rd5], %r3;");
    let ptx = format!("{HEADER}{SHUFFLE_IN_A_FUNCTION}{sums}");
    let ir = cpu_llvm_ir(&ptx, 0);
    assert!(llvm_function(&ir, "sums").contains("ptxr_run_cooperative_block"), "{ir}");

    let mut random = Random::new(9);
    let input = random.u32s(96);
    let result = run_ok(&ptx, &Launch::threads(96), &[Buffer::u32s(&input), Buffer::zeroed("u32", 96)]);
    for (thread, &bits) in result[1].iter().enumerate() {
        let warp = &input[thread / 32 * 32..thread / 32 * 32 + 32];
        let expected = warp.iter().fold(0u32, |sum, &value| sum.wrapping_add(value));
        assert_eq!(bits as u32, expected, "thread {thread}");
    }
}

/// A kernel `name(input, output)` whose thread reads `input[tid]` into %r2, runs `body` and
/// finds its output address in %rd5.
fn per_thread_kernel(name: &str, body: &str) -> String {
    format!(".visible .entry {name}(.param .u64 input, .param .u64 output)\n{{\n{PROLOGUE}{body}\n    ret;\n}}\n")
}

const PROLOGUE: &str = r#"    .reg .u32 %r<8>;
    .reg .u64 %rd<8>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
"#;

#[test]
fn only_kernels_that_wait_leave_the_plain_thread_loop() {
    // Two kernels in one module: `wait` shuffles in its body, `copy` never waits.
    let wait = per_thread_kernel("wait", "    shfl.sync.down.b32 %r3, %r2, 1, 31, -1;\n    st.global.u32 [%rd5], %r3;");
    let copy = per_thread_kernel("copy", "    add.u32 %r2, %r2, 1;\n    st.global.u32 [%rd5], %r2;");
    let ptx = format!("{HEADER}{wait}{copy}");
    let ir = cpu_llvm_ir(&ptx, 0);
    // Work-item loops by default; LLVM coroutines when the environment asks for them.
    let expected =
        if cpu_waits_forced_to_coroutines() { "ptxr_run_resumable_block" } else { "ptxr_run_work_item_block" };
    assert!(llvm_function(&ir, "wait").contains(expected), "{ir}");
    assert!(!llvm_function(&ir, "copy").contains("ptxr_run_"), "{ir}");

    let mut random = Random::new(4);
    let input = random.u32s(64);
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", 64)];
    let shuffled = run_ok(&ptx, &Launch { kernel: Some("wait"), ..Launch::threads(64) }, &buffers);
    let copied = run_ok(&ptx, &Launch { kernel: Some("copy"), ..Launch::threads(64) }, &buffers);
    for thread in 0..64 {
        // shfl.down by 1 with c = 31: the last lane of each warp keeps its own value.
        let expected = if thread % 32 == 31 { input[thread] } else { input[thread + 1] };
        assert_eq!(shuffled[1][thread] as u32, expected, "shfl.down thread {thread}");
        assert_eq!(copied[1][thread] as u32, input[thread].wrapping_add(1), "copy thread {thread}");
    }
}
