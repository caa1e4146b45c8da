//! Execution of `call` with PTX's `.param` calling sequence (ISA 7.8 section 9.7.12.6 and
//! ptx-abi.md), direct and indirect (through a register and a `.callprototype`), `trap` and
//! `nanosleep` on the CPU. Expected values are computed here from the
//! kernels' arithmetic.

use ptxr_tests::{run, run_ok, Buffer, Launch, Random};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

/// A kernel `test(input, output)` after `functions`, where each thread loads `input[i]` into
/// `%r1`, runs `body`, and stores `%r2` to `output[i]`.
fn kernel(functions: &str, body: &str) -> String {
    format!(
        "{HEADER}{functions}\n.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
         .reg .b32 %r<12>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n\
         ld.param.u64 %rd1, [input];\nld.param.u64 %rd2, [output];\nmov.u32 %r10, %tid.x;\n\
         mul.wide.u32 %rd3, %r10, 4;\nadd.u64 %rd4, %rd1, %rd3;\nadd.u64 %rd5, %rd2, %rd3;\n\
         ld.global.u32 %r1, [%rd4];\n{body}\nst.global.u32 [%rd5], %r2;\nret;\n}}\n"
    )
}

fn per_thread(ptx: &str, input: &[u32]) -> Vec<u32> {
    let result =
        run_ok(ptx, &Launch::threads(input.len() as u32), &[Buffer::u32s(input), Buffer::zeroed("u32", input.len())]);
    result[1].iter().map(|&bits| bits as u32).collect()
}

#[test]
fn the_param_calling_sequence_passes_arguments_and_results() {
    // `mix(a, b) = a * 3 + b`, called the way compilers call: arguments stored to `.param`
    // variables in a block, the result loaded from one.
    let functions = r#"
.func (.param .b32 result) mix (.param .b32 a, .param .b32 b)
{
    .reg .b32 %t<4>;
    ld.param.b32 %t1, [a];
    ld.param.b32 %t2, [b];
    mad.lo.u32 %t3, %t1, 3, %t2;
    st.param.b32 [result], %t3;
    ret;
}"#;
    let body = r#"
    {
    .param .b32 argument0;
    .param .b32 argument1;
    .param .b32 returned;
    st.param.b32 [argument0], %r1;
    st.param.b32 [argument1], %r10;
    call.uni (returned), mix, (argument0, argument1);
    ld.param.b32 %r2, [returned];
    }"#;
    let mut random = Random::new(2);
    let input: Vec<u32> = (0..64).map(|_| random.next_u32()).collect();
    let output = per_thread(&kernel(functions, body), &input);
    for (thread, (&value, &result)) in input.iter().zip(&output).enumerate() {
        assert_eq!(result, value.wrapping_mul(3).wrapping_add(thread as u32), "thread {thread}");
    }
}

#[test]
fn registers_immediates_several_results_and_byte_array_aggregates() {
    // `split` returns two registers; `sum8` takes an 8-byte aggregate as a .b8 array and adds
    // its two words; `twice` takes an immediate.
    let functions = r#"
.func (.reg .b32 low, .reg .b32 high) split (.reg .b64 value)
{
    mov.b64 {low, high}, value;
    ret;
}
.func (.param .b32 result) sum8 (.param .align 8 .b8 pair[8])
{
    .reg .b32 %s<4>;
    ld.param.b32 %s1, [pair];
    ld.param.b32 %s2, [pair+4];
    add.u32 %s3, %s1, %s2;
    st.param.b32 [result], %s3;
    ret;
}
.func (.reg .b32 out) twice (.reg .b32 x)
{
    shl.b32 out, x, 1;
    ret;
}"#;
    let body = r#"
    .reg .b32 %low, %high, %doubled;
    mul.wide.u32 %rd6, %r1, 0x10001;
    call (%low, %high), split, (%rd6);
    {
    .param .align 8 .b8 aggregate[8];
    .param .b32 summed;
    st.param.b32 [aggregate], %low;
    st.param.b32 [aggregate+4], %high;
    call (summed), sum8, (aggregate);
    ld.param.b32 %r3, [summed];
    }
    call (%doubled), twice, (21);
    add.u32 %r2, %r3, %doubled;"#;
    let mut random = Random::new(3);
    let input: Vec<u32> = (0..64).map(|_| random.next_u32()).collect();
    let output = per_thread(&kernel(functions, body), &input);
    for (&value, &result) in input.iter().zip(&output) {
        let wide = u64::from(value) * 0x10001;
        let expected = (wide as u32).wrapping_add((wide >> 32) as u32).wrapping_add(42);
        assert_eq!(result, expected, "input {value:#x}");
    }
}

#[test]
fn a_called_function_may_meet_the_block_at_a_barrier() {
    // The callee writes shared memory, waits at bar.sync, and reads a neighbour's value: the
    // calling thread is suspended inside the call like any other thread.
    let functions = r#"
.shared .align 4 .b32 exchange[64];
.func (.reg .b32 neighbour) swap_with_neighbour (.reg .b32 value, .reg .b32 thread)
{
    .reg .b32 %n<4>;
    .reg .b64 %a<3>;
    mul.wide.u32 %a1, thread, 4;
    mov.u64 %a2, exchange;
    add.u64 %a2, %a2, %a1;
    st.shared.b32 [%a2], value;
    bar.sync 0;
    xor.b32 %n1, thread, 1;
    mul.wide.u32 %a1, %n1, 4;
    mov.u64 %a2, exchange;
    add.u64 %a2, %a2, %a1;
    ld.shared.b32 neighbour, [%a2];
    ret;
}"#;
    let body = "    call (%r2), swap_with_neighbour, (%r1, %r10);";
    let input: Vec<u32> = (0..64).map(|value| value * 7 + 1).collect();
    let output = per_thread(&kernel(functions, body), &input);
    for (thread, &result) in output.iter().enumerate() {
        assert_eq!(result, input[thread ^ 1], "thread {thread}");
    }
}

#[test]
fn trap_stops_the_launch_with_an_error() {
    let body = "    setp.eq.u32 %p1, %r10, 5;\n    @%p1 trap;\n    mov.u32 %r2, 1;";
    let input = vec![0u32; 32];
    let error = run(&kernel("", body), &Launch::threads(32), &[Buffer::u32s(&input), Buffer::zeroed("u32", 32)])
        .expect_err("a trap fails the launch");
    assert!(error.contains("trap"), "{error}");
    // Without the trap taken, the same kernel runs.
    let body = "    setp.eq.u32 %p1, %r10, 500;\n    @%p1 trap;\n    mov.u32 %r2, 1;";
    assert_eq!(per_thread(&kernel("", body), &input), vec![1; 32]);
}

#[test]
fn nanosleep_returns() {
    let body = "    nanosleep.u32 1000;\n    nanosleep.u32 %r1;\n    add.u32 %r2, %r1, 1;";
    assert_eq!(per_thread(&kernel("", body), &[5, 6, 7]), vec![6, 7, 8]);
}

#[test]
fn indirect_calls_through_a_prototype_reach_the_chosen_function() {
    // Even threads call `triple`, odd ones `mix`, through a register holding the function's
    // address and the `.callprototype` that nvcc emits for a function pointer call.
    let functions = r#"
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
}"#;
    let body = r#"
    .reg .b64 %target, %first, %second;
    and.b32 %r3, %r10, 1;
    setp.eq.u32 %p1, %r3, 0;
    mov.u64 %first, triple;
    mov.u64 %second, mix;
    selp.b64 %target, %first, %second, %p1;
    {
    .param .b32 argument0;
    .param .b32 argument1;
    .param .b32 returned;
    st.param.b32 [argument0], %r1;
    st.param.b32 [argument1], %r10;
    prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
    call (returned), %target, (argument0, argument1), prototype_0;
    ld.param.b32 %r2, [returned];
    }
    {
    // The same call naming its possible targets instead of a prototype; it adds nothing
    // for the second argument 0 (`mix` gives a ^ 0, `triple` 3a).
    .param .b32 argument0;
    .param .b32 argument1;
    .param .b32 returned;
    st.param.b32 [argument0], %r2;
    st.param.b32 [argument1], 0;
    targets_0 : .calltargets triple, mix;
    call (returned), %target, (argument0, argument1), targets_0;
    ld.param.b32 %r2, [returned];
    }"#;
    let mut random = Random::new(5);
    let input: Vec<u32> = (0..64).map(|_| random.next_u32()).collect();
    let output = per_thread(&kernel(functions, body), &input);
    for (thread, (&value, &result)) in input.iter().zip(&output).enumerate() {
        let expected = if thread % 2 == 0 { value.wrapping_mul(9) } else { value ^ thread as u32 };
        assert_eq!(result, expected, "thread {thread}");
    }
}

#[test]
fn an_indirect_call_of_a_trapping_function_ends_the_caller() {
    let functions = r#"
.func stop (.param .b32 value)
{
    trap;
    ret;
}"#;
    let body = r#"
    .reg .b64 %target;
    mov.u64 %target, stop;
    mov.u32 %r2, 1;
    {
    .param .b32 argument;
    st.param.b32 [argument], %r1;
    prototype_1 : .callprototype _ (.param .b32 _);
    call %target, (argument), prototype_1;
    }"#;
    let input = vec![0u32; 4];
    let error = run(&kernel(functions, body), &Launch::threads(4), &[Buffer::u32s(&input), Buffer::zeroed("u32", 4)])
        .expect_err("the trap fails the launch");
    assert!(error.contains("trap"), "{error}");
}

/// `leave(v)` exits the thread when `v` is odd (ISA 7.8 section 9.7.12.10: `exit` ends the
/// thread, wherever it is); `outer(v)` calls it and then writes 7 to `marks[tid]`, which must
/// not happen after an exit.
const EXITING_FUNCTIONS: &str = r#"
.func leave(.reg .b32 %v)
{
    .reg .pred %odd;
    .reg .b32 %bit;
    and.b32 %bit, %v, 1;
    setp.ne.u32 %odd, %bit, 0;
    @%odd exit;
    ret;
}

.func outer(.reg .b32 %v, .reg .b64 %mark)
{
    .reg .b32 %seven;
    call.uni leave, (%v);
    mov.u32 %seven, 7;
    st.global.u32 [%mark], %seven;
    ret;
}
"#;

#[test]
fn exit_inside_a_function_ends_the_thread_not_just_the_function() {
    let mut random = Random::new(31);
    let input: Vec<u32> = (0..64).map(|_| random.next_u32()).collect();
    // Before the call %r2 is 1; after it 2. An odd input exits inside `leave`, two calls deep.
    for (name, waits) in [("one after another", ""), ("at a barrier after the call", "bar.sync 0;")] {
        let body = format!(
            "mov.u32 %r2, 1;\nst.global.u32 [%rd5], %r2;\nadd.u64 %rd6, %rd5, 256;\n\
             call.uni outer, (%r1, %rd6);\n{waits}\nmov.u32 %r2, 2;"
        );
        let ptx = kernel(EXITING_FUNCTIONS, &body);
        let result = run_ok(&ptx, &Launch::threads(64), &[Buffer::u32s(&input), Buffer::zeroed("u32", 128)]);
        for (thread, &value) in input.iter().enumerate() {
            let exits = value % 2 == 1;
            let (final_value, mark) = if exits { (1, 0) } else { (2, 7) };
            assert_eq!(result[1][thread] as u32, final_value, "{name}: thread {thread} (input {value:#x})");
            assert_eq!(result[1][64 + thread] as u32, mark, "{name}: mark of thread {thread}");
        }
    }
}
