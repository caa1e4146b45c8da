//! Constructs whose SPIR-V lowering differs from the other GPUs' (`docs/TARGETS.md`): `.const`
//! variables in CrossWorkgroup memory, so that `cvta.const` works; function addresses as small
//! integer ids and indirect calls as a `switch` over the module's functions. Each kernel runs on
//! the CPU and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through
//! OpenCL; both must give the values of a model written here, and the SPIR-V must pass
//! `spirv-val`.

use ptxr_tests::vendor_checks::{compile, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// Runs `ptx` on the CPU and through OpenCL, checks that output buffer `output` holds
/// `expected` on both, and validates the SPIR-V.
fn check(ptx: &str, launch: &Launch<'_>, buffers: &[Buffer], output: usize, expected: &[u64]) {
    for (device, result) in opencl::run_everywhere(ptx, launch, buffers, OPENCL_CHILD) {
        assert_eq!(result[output], expected, "{device}");
    }
    let Compiled::Artefact(binary) = compile(ptx, "spirv") else { panic!("no SPIR-V for\n{ptx}") };
    if let Some(Err(message)) = spirv_val(&binary, &spirv_environment(&binary), "spirv-execution") {
        panic!("spirv-val: {message}\n{ptx}");
    }
}

/// `.const` data read by `ld.const`, by a generic load after `cvta.const`, and by `ld.const`
/// again after `cvta.to.const`: each thread sums the three reads of its element.
#[test]
fn const_variables_convert_to_and_from_generic_addresses() {
    let ptx = ".version 7.8
.target sm_80
.address_size 64
.const .align 4 .u32 table[4] = {7, 11, 13, 17};
.visible .entry test(.param .u64 output)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    mov.u64 %rd3, table;
    add.u64 %rd4, %rd3, %rd2;
    ld.const.u32 %r2, [%rd4];
    cvta.const.u64 %rd5, %rd4;
    ld.u32 %r3, [%rd5];
    cvta.to.const.u64 %rd6, %rd5;
    ld.const.u32 %r4, [%rd6];
    add.u32 %r5, %r2, %r3;
    add.u32 %r5, %r5, %r4;
    add.u64 %rd7, %rd1, %rd2;
    st.global.u32 [%rd7], %r5;
    ret;
}
";
    let table = [7u64, 11, 13, 17];
    let expected: Vec<u64> = table.iter().map(|value| 3 * value).collect();
    check(ptx, &Launch::threads(4), &[Buffer::zeroed("u32", 4)], 0, &expected);
}

/// Two functions of one signature and one of another. `apply` calls its argument, a function
/// address, through a prototype; the kernel picks `triple` or `mix` by the thread's parity,
/// round-trips the address through global memory, compares it with both, and calls it from the
/// kernel and from `apply`.
const INDIRECT_CALLS: &str = ".version 7.8
.target sm_80
.address_size 64
.func (.param .b32 result) triple (.param .b32 a, .param .b32 b)
{
    .reg .b32 %t<3>;
    ld.param.b32 %t1, [a];
    mul.lo.u32 %t2, %t1, 3;
    st.param.b32 [result], %t2;
    ret;
}
.func (.param .b32 result) mix (.param .b32 a, .param .b32 b)
{
    .reg .b32 %t<4>;
    ld.param.b32 %t1, [a];
    ld.param.b32 %t2, [b];
    xor.b32 %t3, %t1, %t2;
    st.param.b32 [result], %t3;
    ret;
}
.func (.param .b64 result) widen (.param .b32 a)
{
    .reg .b32 %t1;
    .reg .b64 %t2;
    ld.param.b32 %t1, [a];
    cvt.u64.u32 %t2, %t1;
    st.param.b64 [result], %t2;
    ret;
}
.func (.param .b32 result) apply (.param .b64 function, .param .b32 a)
{
    .reg .b32 %t<3>;
    .reg .b64 %f;
    ld.param.b64 %f, [function];
    ld.param.b32 %t1, [a];
    {
    .param .b32 argument0;
    .param .b32 argument1;
    .param .b32 returned;
    st.param.b32 [argument0], %t1;
    st.param.b32 [argument1], 5;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
    call (returned), %f, (argument0, argument1), prototype_0;
    ld.param.b32 %t2, [returned];
    }
    st.param.b32 [result], %t2;
    ret;
}
.visible .entry test(.param .u64 input, .param .u64 output, .param .u64 addresses)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    ld.param.u64 %rd3, [addresses];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 4;
    add.u64 %rd5, %rd1, %rd4;
    ld.global.u32 %r2, [%rd5];
    and.b32 %r3, %r1, 1;
    setp.eq.u32 %p1, %r3, 0;
    mov.u64 %rd6, triple;
    mov.u64 %rd7, mix;
    selp.b64 %rd8, %rd6, %rd7, %p1;
    mul.wide.u32 %rd9, %r1, 8;
    add.u64 %rd9, %rd3, %rd9;
    st.global.u64 [%rd9], %rd8;
    ld.global.u64 %rd10, [%rd9];
    {
    .param .b32 argument0;
    .param .b32 argument1;
    .param .b32 returned;
    st.param.b32 [argument0], %r2;
    st.param.b32 [argument1], %r1;
    targets_0 : .calltargets triple, mix;
    call (returned), %rd10, (argument0, argument1), targets_0;
    ld.param.b32 %r4, [returned];
    }
    {
    .param .b64 argument0;
    .param .b32 argument1;
    .param .b32 returned;
    st.param.b64 [argument0], %rd10;
    st.param.b32 [argument1], %r4;
    call.uni (returned), apply, (argument0, argument1);
    ld.param.b32 %r5, [returned];
    }
    setp.eq.u64 %p2, %rd10, %rd6;
    setp.ne.u64 %p3, %rd10, %rd7;
    selp.u32 %r6, 1, 0, %p2;
    selp.u32 %r7, 2, 0, %p3;
    or.b32 %r6, %r6, %r7;
    mul.wide.u32 %rd4, %r1, 8;
    add.u64 %rd11, %rd2, %rd4;
    st.global.u32 [%rd11], %r5;
    st.global.u32 [%rd11+4], %r6;
    ret;
}
";

#[test]
fn indirect_calls_reach_the_function_whose_address_was_taken() {
    let input: Vec<u32> = (0..64).map(|thread| thread * 0x0101_0101 + 7).collect();
    let mut expected = Vec::new();
    for (thread, &value) in input.iter().enumerate() {
        let even = thread % 2 == 0;
        // The kernel's call passes (value, thread), `apply`'s (first result, 5).
        let call = |a: u32, b: u32| if even { a.wrapping_mul(3) } else { a ^ b };
        expected.push(u64::from(call(call(value, thread as u32), 5)));
        // Bit 0: the address equals `triple`'s; bit 1: it differs from `mix`'s.
        expected.push(if even { 3 } else { 0 });
    }
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", 128), Buffer::zeroed("u64", 64)];
    check(INDIRECT_CALLS, &Launch::threads(64), &buffers, 1, &expected);
}

/// On SPIR-V a function address is the function's index plus one, so an indirect call through
/// null (or any value no function gave) names no function: the work-item stops as at `trap`, and
/// the launch fails with its own message. (On the CPU such a call would jump to the address.)
#[test]
fn an_indirect_call_of_no_function_fails_the_opencl_launch() {
    if !opencl::available() {
        return;
    }
    let ptx = INDIRECT_CALLS.replace("selp.b64 %rd8, %rd6, %rd7, %p1;", "selp.b64 %rd8, %rd6, 0, %p1;");
    let buffers = [Buffer::u32s(&[1; 64]), Buffer::zeroed("u32", 128), Buffer::zeroed("u64", 64)];
    let failure = opencl::run(&ptx, &Launch::threads(64), &buffers, OPENCL_CHILD).expect_err("a call through null");
    assert!(failure.contains("indirect call through an address that is no function"), "{failure}");
    // A call of a function whose type is not the call's is one of no function too.
    let ptx = INDIRECT_CALLS.replace("mov.u64 %rd7, mix;", "mov.u64 %rd7, widen;");
    let failure = opencl::run(&ptx, &Launch::threads(64), &buffers, OPENCL_CHILD).expect_err("a call of `widen`");
    assert!(failure.contains("indirect call through an address that is no function"), "{failure}");
}

/// `isspacep.shared` holds for generic addresses in the block's shared variables (the first
/// and the last byte of a `.shared` array, from `cvta.shared`) and not for a global buffer's or
/// a `.local` variable's. Each thread writes one word: bit i is the answer for address i.
#[test]
fn isspacep_shared_holds_inside_the_shared_variables_only() {
    let ptx = ".version 7.8
.target sm_80
.address_size 64
.shared .align 16 .b8 tile[64];
.visible .entry test(.param .u64 output)
{
    .local .align 4 .b32 scratch[2];
    .reg .pred %p<5>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, tile;
    cvta.shared.u64 %rd3, %rd2;
    add.u64 %rd4, %rd3, 63;
    mul.wide.u32 %rd5, %r1, 4;
    add.u64 %rd6, %rd1, %rd5;
    mov.u64 %rd7, scratch;
    cvta.local.u64 %rd8, %rd7;
    st.u32 [%rd8], %r1;
    isspacep.shared %p1, %rd3;
    isspacep.shared %p2, %rd4;
    isspacep.shared %p3, %rd6;
    isspacep.shared %p4, %rd8;
    selp.u32 %r2, 1, 0, %p1;
    selp.u32 %r3, 2, 0, %p2;
    selp.u32 %r4, 4, 0, %p3;
    selp.u32 %r5, 8, 0, %p4;
    or.b32 %r6, %r2, %r3;
    or.b32 %r6, %r6, %r4;
    or.b32 %r6, %r6, %r5;
    st.global.u32 [%rd6], %r6;
    ret;
}
";
    check(ptx, &Launch::threads(32), &[Buffer::zeroed("u32", 32)], 0, &[0b0011; 32]);
}

/// Counted barriers whose count is the whole block (a 32×2 block, count 64): each thread
/// stores its value into shared memory, meets the others at `bar.sync 1, 64`, and reads its
/// mirror image's value; `bar.red.popc` with a count counts the odd values. Thread `t`
/// writes `value[63 - t]` and the count. `count` is the `bar.sync`'s count, `%r9`, and
/// `reduction_count` the `bar.red`'s.
fn counted_barrier_kernel(count: u32, reduction_count: u32) -> String {
    format!(
        ".version 7.8
.target sm_80
.address_size 64
.shared .align 4 .b32 exchange[64];
.visible .entry test(.param .u64 input, .param .u64 output)
{{
    .reg .pred %p1;
    .reg .b32 %r<13>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %tid.y;
    mov.u32 %r3, %ntid.x;
    mad.lo.u32 %r4, %r2, %r3, %r1;
    mov.u32 %r9, {count};
    mov.u32 %r12, {reduction_count};
    mul.wide.u32 %rd3, %r4, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r5, [%rd4];
    mov.u32 %r6, exchange;
    shl.b32 %r7, %r4, 2;
    add.u32 %r8, %r6, %r7;
    st.shared.u32 [%r8], %r5;
    bar.sync 1, %r9;
    sub.u32 %r10, 63, %r4;
    shl.b32 %r10, %r10, 2;
    add.u32 %r10, %r6, %r10;
    ld.shared.u32 %r11, [%r10];
    and.b32 %r5, %r5, 1;
    setp.ne.u32 %p1, %r5, 0;
    bar.red.popc.u32 %r5, 2, %r12, %p1;
    mul.wide.u32 %rd5, %r4, 8;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r11;
    st.global.u32 [%rd6+4], %r5;
    ret;
}}
"
    )
}

#[test]
fn counted_barriers_of_the_whole_block_are_block_barriers() {
    let input: Vec<u32> = (0..64).map(|index| index * 7 + 3).collect();
    let odd = input.iter().filter(|value| *value % 2 == 1).count() as u64;
    let expected: Vec<u64> = (0..64).flat_map(|thread| [u64::from(input[63 - thread]), odd]).collect();
    let launch = Launch { block: [32, 2, 1], ..Launch::default() };
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", 128)];
    check(&counted_barrier_kernel(64, 64), &launch, &buffers, 1, &expected);
}

/// On SPIR-V a counted `bar.red` whose count is not the block's stops the launch with its own
/// message (OpenCL's work-group reductions take the whole work-group); the CPU runs it.
#[test]
fn a_counted_reduction_of_part_of_the_block_fails_the_opencl_launch() {
    if !opencl::available() {
        return;
    }
    let launch = Launch { block: [32, 2, 1], ..Launch::default() };
    let buffers = [Buffer::u32s(&[1; 64]), Buffer::zeroed("u32", 128)];
    let failure =
        opencl::run(&counted_barrier_kernel(64, 32), &launch, &buffers, OPENCL_CHILD).expect_err("count 32 of 64");
    assert!(failure.contains("a barrier whose thread count is not the block's"), "{failure}");
}

/// `isspacep.const` holds for generic addresses in the module's `.const` variables (the first
/// and last byte of a module-scope table, and a `.const` variable of a function lowered after
/// the kernel, whose address `where` returns) and not for a global buffer's or a `.shared`
/// variable's. Each thread writes one word: bit i is the answer for address i.
#[test]
fn isspacep_const_holds_inside_the_const_variables_only() {
    let ptx = ".version 7.8
.target sm_80
.address_size 64
.const .align 4 .u32 table[4] = {7, 11, 13, 17};
.shared .align 4 .b32 tile[4];
.func (.param .b64 address) where ();
.visible .entry test(.param .u64 output)
{
    .reg .pred %p<6>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, table;
    cvta.const.u64 %rd3, %rd2;
    add.u64 %rd4, %rd3, 15;
    mul.wide.u32 %rd5, %r1, 4;
    add.u64 %rd6, %rd1, %rd5;
    mov.u64 %rd7, tile;
    cvta.shared.u64 %rd8, %rd7;
    {
    .param .b64 returned;
    call.uni (returned), where, ();
    ld.param.b64 %rd9, [returned];
    }
    isspacep.const %p1, %rd3;
    isspacep.const %p2, %rd4;
    isspacep.const %p3, %rd6;
    isspacep.const %p4, %rd8;
    isspacep.const %p5, %rd9;
    selp.u32 %r2, 1, 0, %p1;
    selp.u32 %r3, 2, 0, %p2;
    selp.u32 %r4, 4, 0, %p3;
    selp.u32 %r5, 8, 0, %p4;
    selp.u32 %r6, 16, 0, %p5;
    or.b32 %r7, %r2, %r3;
    or.b32 %r7, %r7, %r4;
    or.b32 %r7, %r7, %r5;
    or.b32 %r7, %r7, %r6;
    st.shared.u32 [tile], %r7;
    st.global.u32 [%rd6], %r7;
    ret;
}
.func (.param .b64 address) where ()
{
    .const .align 8 .u64 own = 5;
    .reg .b64 %a<3>;
    mov.u64 %a1, own;
    cvta.const.u64 %a2, %a1;
    st.param.b64 [address], %a2;
    ret;
}
";
    check(ptx, &Launch::threads(32), &[Buffer::zeroed("u32", 32)], 0, &[0b10011; 32]);
}

/// Every `mbarrier` form (and `cp.async.mbarrier.arrive`) where no work-item polls for
/// another: the arrivals of a phase come before a block barrier and the tests after it, so
/// they need no forward progress between work-items, which OpenCL does not promise. Phase 0
/// expects two arrivals per thread: `cp.async.mbarrier.arrive.noinc` after each thread's
/// `cp.async` and `mbarrier.arrive` (`cp.async.mbarrier.arrive` without `.noinc` in between
/// changes nothing). Phase 1: every thread arrives with `.noComplete` and a count of one, then,
/// after a barrier, leaves with `arrive_drop`, which completes it; the pending counts of the
/// `.noComplete` states are added up in shared memory. Phase 2 expects one arrival per thread.
/// Each thread writes its neighbour's copied word, five tests and the sum.
const MBARRIER_WITHOUT_POLLING: &str = ".version 7.8
.target sm_90
.address_size 64
.visible .entry phases(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<12>;
    .reg .pred %p<8>;
    .shared .align 8 .b64 object;
    .shared .align 4 .u32 tile[128];
    .shared .align 4 .u32 total;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ntid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INITIALISED;
    shl.b32 %r3, %r2, 1;
    mbarrier.init.shared.b64 [object], %r3;
    st.shared.u32 [total], 0;
INITIALISED:
    bar.sync 0;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    mov.u32 %r10, tile;
    shl.b32 %r4, %r1, 2;
    add.u32 %r5, %r10, %r4;
    cp.async.ca.shared.global [%r5], [%rd4], 4;
    cp.async.mbarrier.arrive.noinc.shared.b64 [object];
    cp.async.mbarrier.arrive.shared.b64 [object];
    mbarrier.arrive.shared.b64 %rd5, [object];
    bar.sync 0;
    mbarrier.test_wait.shared.b64 %p2, [object], %rd5;
    mbarrier.try_wait.parity.shared.b64 %p3, [object], 0;
    mbarrier.test_wait.parity.shared.b64 %p4, [object], 1;
    add.u32 %r6, %r1, 1;
    rem.u32 %r6, %r6, %r2;
    shl.b32 %r6, %r6, 2;
    add.u32 %r6, %r10, %r6;
    ld.shared.u32 %r7, [%r6];
    bar.sync 0;
    mbarrier.arrive.noComplete.shared.b64 %rd6, [object], 1;
    mbarrier.pending_count.b64 %r8, %rd6;
    atom.shared.add.u32 %r9, [total], %r8;
    bar.sync 0;
    mbarrier.arrive_drop.shared.b64 _, [object];
    bar.sync 0;
    mbarrier.test_wait.shared.b64 %p5, [object], %rd6;
    mbarrier.arrive.shared.b64 %rd7, [object];
    bar.sync 0;
    mbarrier.try_wait.shared.b64 %p6, [object], %rd7;
    ld.shared.u32 %r11, [total];
    mul.wide.u32 %rd8, %r1, 28;
    add.u64 %rd9, %rd2, %rd8;
    st.global.u32 [%rd9], %r7;
    selp.u32 %r12, 1, 0, %p2;
    st.global.u32 [%rd9+4], %r12;
    selp.u32 %r12, 1, 0, %p3;
    st.global.u32 [%rd9+8], %r12;
    selp.u32 %r12, 1, 0, %p4;
    st.global.u32 [%rd9+12], %r12;
    selp.u32 %r12, 1, 0, %p5;
    st.global.u32 [%rd9+16], %r12;
    selp.u32 %r12, 1, 0, %p6;
    st.global.u32 [%rd9+20], %r12;
    st.global.u32 [%rd9+24], %r11;
    bar.sync 0;
    @%p1 bra DONE;
    mbarrier.inval.shared.b64 [object];
DONE:
    ret;
}
";

#[test]
fn mbarrier_phases_tested_after_a_block_barrier_run_on_opencl() {
    for threads in [1u32, 32, 48, 128] {
        let n = u64::from(threads);
        let input: Vec<u32> = (0..threads).map(|index| index * 7919 + 13).collect();
        // Phase 0 completes after the 2n arrivals, phase 1 (whose pending count starts at 2n)
        // after the n `.noComplete` arrivals, which saw pending counts 2n down to n + 1, and
        // the n drops; phase 2 expects n.
        let pending_sum: u64 = (n + 1..=2 * n).sum();
        let expected: Vec<u64> = (0..threads as usize)
            .flat_map(|tid| {
                let neighbour = u64::from(input[(tid + 1) % threads as usize]);
                [neighbour, 1, 1, 0, 1, 1, pending_sum]
            })
            .collect();
        let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", 7 * threads as usize)];
        check(MBARRIER_WITHOUT_POLLING, &Launch::threads(threads), &buffers, 1, &expected);
    }
}

/// `bar.arrive` and `bar.sync` of part of the block, the software barrier: the threads of the
/// first `producers` warps (read from `input`) store a value each and `bar.arrive 1, b`, with
/// `b` their count plus 32; the one thread after them, a warp of its own that counts as 32,
/// `bar.sync 1, b` and sums every producer's value. Each thread writes its sum (0 for
/// producers). The waiting thread needs only arrivals from lower thread ids, which Intel's
/// CPU runtime, running the work-items of a group one after another, lets complete.
const PRODUCERS_AND_ONE_CONSUMER: &str = ".version 7.8
.target sm_80
.address_size 64
.shared .align 4 .u32 produced[64];
.visible .entry handoff(.param .u64 input, .param .u64 output)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd4, [input];
    ld.param.u64 %rd1, [output];
    ld.global.u32 %r10, [%rd4];
    mov.u32 %r1, %tid.x;
    mov.u32 %r4, produced;
    shl.b32 %r11, %r10, 5;
    add.u32 %r12, %r11, 32;
    setp.ge.u32 %p1, %r1, %r11;
    @%p1 bra CONSUME;
    shl.b32 %r5, %r1, 2;
    add.u32 %r5, %r4, %r5;
    mul.lo.u32 %r6, %r1, 5;
    add.u32 %r6, %r6, 2;
    st.shared.u32 [%r5], %r6;
    bar.arrive 1, %r12;
    mov.u32 %r7, 0;
    bra.uni DONE;
CONSUME:
    bar.sync 1, %r12;
    mov.u32 %r7, 0;
    mov.u32 %r8, 0;
    setp.eq.u32 %p2, %r11, 0;
    @%p2 bra DONE;
SUM:
    shl.b32 %r5, %r8, 2;
    add.u32 %r5, %r4, %r5;
    ld.shared.u32 %r9, [%r5];
    add.u32 %r7, %r7, %r9;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r11;
    @%p2 bra SUM;
DONE:
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}
";

#[test]
fn bar_arrive_producers_hand_over_to_a_consumer_through_the_software_barrier() {
    for producers in [0u32, 1, 2] {
        let threads = 32 * producers + 1;
        let produced: u64 = (0..u64::from(32 * producers)).map(|tid| tid * 5 + 2).sum();
        let expected: Vec<u64> = (0..threads).map(|tid| if tid < 32 * producers { 0 } else { produced }).collect();
        let buffers = [Buffer::u32s(&[producers]), Buffer::zeroed("u32", threads as usize)];
        check(PRODUCERS_AND_ONE_CONSUMER, &Launch::threads(threads), &buffers, 1, &expected);
    }
}

/// The opcodes of a SPIR-V binary's instructions, in order (each instruction's first word holds
/// its word count in the high half and its opcode in the low half, after the five-word header).
fn spirv_opcodes(binary: &[u8]) -> Vec<u32> {
    let words: Vec<u32> =
        binary.chunks_exact(4).map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])).collect();
    let mut opcodes = Vec::new();
    let mut index = 5;
    while let Some(&first) = words.get(index) {
        opcodes.push(first & 0xffff);
        index += ((first >> 16) as usize).max(1);
    }
    opcodes
}

/// `ld.acquire`/`ld.relaxed` and `st.release`/`st.relaxed` (libcu++'s `atomic_ref`, the status
/// words of a decoupled look-back scan) stay atomic in the SPIR-V: LLVM 22's back end writes an
/// atomic load or store as a plain `OpLoad`/`OpStore`, so ptxr gives it `OpAtomicOr` of zero and
/// `OpAtomicExchange`. Each thread publishes `3 * tid`, reads it back, adds 1, and again through
/// an `f32` view of the bits, adds 1.
#[test]
fn ordered_loads_and_stores_are_atomics_in_the_spirv() {
    let ptx = ".version 7.8
.target sm_80
.address_size 64
.visible .entry test(.param .u64 output)
{
    .reg .b32 %r<8>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    mul.lo.u32 %r2, %r1, 3;
    st.release.gpu.global.u32 [%rd3], %r2;
    ld.acquire.gpu.global.u32 %r3, [%rd3];
    add.u32 %r4, %r3, 1;
    st.relaxed.gpu.u32 [%rd3], %r4;
    ld.relaxed.gpu.global.f32 %f1, [%rd3];
    mov.b32 %r5, %f1;
    add.u32 %r6, %r5, 1;
    st.release.cta.global.u32 [%rd3], %r6;
    ret;
}
";
    let expected: Vec<u64> = (0..64).map(|thread| thread * 3 + 2).collect();
    check(ptx, &Launch::threads(64), &[Buffer::zeroed("u32", 64)], 0, &expected);
    let Compiled::Artefact(binary) = compile(ptx, "spirv") else { panic!("no SPIR-V") };
    let opcodes = spirv_opcodes(&binary);
    // OpAtomicExchange (229), OpAtomicOr (241); OpLoad (61) and OpStore (62) only for the parameter.
    let count = |opcode: u32| opcodes.iter().filter(|&&each| each == opcode).count();
    assert_eq!((count(229), count(241)), (3, 2), "atomic exchanges and ors in {opcodes:?}");
    assert!(count(62) == 0, "a plain OpStore is left: {opcodes:?}");
}

/// The special registers SPIR-V reads (docs/TARGETS.md): each block's thread 0 writes 8 words
/// at `out[8 * ctaid.x]`: whether %smid < %nsmid, %clusterid.x, %nclusterid.x,
/// %cluster_nctarank, %cluster_ctarank + %cluster_ctaid.x + %is_explicit_cluster,
/// %envreg2 + %pm4 + %pm1_64 + %reserved_smem_offset_cap, `mapa` of a shared address minus
/// the address, and `getctarank` of it.
const SPECIAL_REGISTERS: &str = r#".version 7.8
.target sm_90
.address_size 64

.shared .align 4 .b32 word[4];

.visible .entry special_registers(.param .u64 output)
{
    .reg .b32 %r<24>;
    .reg .b64 %rd<12>;
    .reg .pred %p<3>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [output];
    mov.u32 %r2, %ctaid.x;
    mul.wide.u32 %rd2, %r2, 32;
    add.u64 %rd1, %rd1, %rd2;
    mov.u32 %r3, %smid;
    mov.u32 %r4, %nsmid;
    setp.lt.u32 %p2, %r3, %r4;
    selp.u32 %r5, 1, 0, %p2;
    st.global.u32 [%rd1], %r5;
    mov.u32 %r6, %clusterid.x;
    st.global.u32 [%rd1+4], %r6;
    mov.u32 %r7, %nclusterid.x;
    st.global.u32 [%rd1+8], %r7;
    mov.u32 %r8, %cluster_nctarank;
    st.global.u32 [%rd1+12], %r8;
    mov.u32 %r9, %cluster_ctarank;
    mov.u32 %r10, %cluster_ctaid.x;
    add.u32 %r9, %r9, %r10;
    mov.pred %p2, %is_explicit_cluster;
    selp.u32 %r11, 1, 0, %p2;
    add.u32 %r9, %r9, %r11;
    st.global.u32 [%rd1+16], %r9;
    mov.u32 %r12, %envreg2;
    mov.u32 %r13, %pm4;
    add.u32 %r12, %r12, %r13;
    mov.u64 %rd3, %pm1_64;
    cvt.u32.u64 %r14, %rd3;
    add.u32 %r12, %r12, %r14;
    mov.u32 %r15, %reserved_smem_offset_cap;
    add.u32 %r12, %r12, %r15;
    st.global.u32 [%rd1+20], %r12;
    mov.u64 %rd4, word;
    cvta.shared.u64 %rd5, %rd4;
    mapa.u64 %rd6, %rd5, 0;
    sub.u64 %rd7, %rd6, %rd5;
    cvt.u32.u64 %r16, %rd7;
    st.global.u32 [%rd1+24], %r16;
    getctarank.u64 %r17, %rd5;
    st.global.u32 [%rd1+28], %r17;
DONE:
    ret;
}
"#;

#[test]
fn special_registers_of_a_cluster_of_one_run_through_opencl() {
    let blocks = 3;
    let launch = Launch { grid: [blocks, 1, 1], block: [2, 1, 1], ..Launch::default() };
    let expected: Vec<u64> =
        (0..u64::from(blocks)).flat_map(|block| [1, block, u64::from(blocks), 1, 0, 0, 0, 0]).collect();
    check(SPECIAL_REGISTERS, &launch, &[Buffer::zeroed("u32", 8 * blocks as usize)], 0, &expected);
}
