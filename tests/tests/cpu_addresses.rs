//! The CPU target's integer addresses reach LLVM as offsets from a base pointer
//! (`intrinsics/src/cpu_addresses.rs`): loops over them vectorise, and the values stay exact.
//! Expected values come from the wrapping model in the test.

use ptxr_tests::{llvm_function, run_ok, Buffer, Launch, Random};

/// Each thread walks its own row of `n` words with a pointer that `add.s64` advances, triples
/// each word in place and sums the originals: a loop that stores through an integer phi.
const ROW_SCALE: &str = r#"
.version 7.0
.target sm_80
.address_size 64

.visible .entry row_scale(.param .u64 data, .param .u64 sums, .param .u64 n)
{
    .reg .u32 %r<8>;
    .reg .u64 %rd<8>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [data];
    ld.param.u64 %rd2, [sums];
    ld.param.u64 %rd7, [n];
    ld.u32 %r1, [%rd7];
    mov.u32 %r2, %tid.x;
    mul.lo.u32 %r3, %r2, %r1;
    mul.wide.u32 %rd3, %r3, 4;
    add.u64 %rd4, %rd1, %rd3;
    mov.u32 %r4, 0;
    mov.u32 %r5, 0;
LOOP:
    ld.global.u32 %r6, [%rd4];
    add.u32 %r4, %r4, %r6;
    mul.lo.u32 %r7, %r6, 3;
    st.global.u32 [%rd4], %r7;
    add.u64 %rd4, %rd4, 4;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, %r1;
    @%p1 bra LOOP;
    mul.wide.u32 %rd5, %r2, 4;
    add.u64 %rd6, %rd2, %rd5;
    st.global.u32 [%rd6], %r4;
    ret;
}
"#;

#[test]
fn a_pointer_advanced_in_a_loop_vectorises() {
    // Without the pointer twin of `%rd4`'s phi, LLVM reports an "unsafe indirect dependence"
    // between the load and the store and keeps the row loop scalar.
    let description = ptxr_driver::target::describe("x86_64-unknown-linux-gnu", Some("x86-64-v3"), false)
        .unwrap_or_else(|error| panic!("{error}"));
    let options =
        ptxr_driver::CompileOptions { target: description, emit: Some(ptxr_lowering::Emit::LlvmIr), optimization: 3 };
    let bytes = ptxr_driver::compile_source(ROW_SCALE, "row_scale", &options)
        .unwrap_or_else(|failure| panic!("{failure:?}"))
        .bytes;
    let ir = String::from_utf8(bytes).unwrap_or_else(|error| panic!("{error}"));
    let entry = llvm_function(&ir, "row_scale");
    assert!(entry.contains("vector.body"), "no vectorised loop in\n{entry}");
    assert!(entry.contains("store <8 x i32>"), "no <8 x i32> stores in\n{entry}");
}

#[test]
fn rows_walked_by_an_advancing_pointer_are_exact() {
    // 37 threads of 45 words: neither divides by a vector width, so the loops' remainders run.
    let (threads, n) = (37usize, 45usize);
    let data = Random::new(11).u32s(threads * n);
    let result = run_ok(
        ROW_SCALE,
        &Launch::threads(threads as u32),
        &[Buffer::u32s(&data), Buffer::zeroed("u32", threads), Buffer::u32s(&[n as u32])],
    );
    for (index, word) in data.iter().enumerate() {
        assert_eq!(result[0][index] as u32, word.wrapping_mul(3), "data[{index}]");
    }
    for thread in 0..threads {
        let expected = data[thread * n..(thread + 1) * n].iter().fold(0u32, |sum, word| sum.wrapping_add(*word));
        assert_eq!(result[1][thread] as u32, expected, "sums[{thread}]");
    }
}
