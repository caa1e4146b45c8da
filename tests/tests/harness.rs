//! The execution harness itself: buffers go in and come back bit for bit.

use ptxr_tests::{run_ok, Buffer, Launch};

#[test]
fn copies_a_buffer_element_per_thread() {
    let ptx = r#"
.version 7.0
.target sm_50
.address_size 64
.visible .entry copy(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<3>;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    add.u32 %r2, %r2, 1;
    st.global.u32 [%rd5], %r2;
    ret;
}
"#;
    let input = Buffer::u32s(&[0, 1, 0xffff_ffff, 41]);
    let output = Buffer::zeroed("u32", 4);
    let result = run_ok(ptx, &Launch::threads(4), &[input, output]);
    assert_eq!(result[0], vec![0, 1, 0xffff_ffff, 41]);
    assert_eq!(result[1], vec![1, 2, 0, 42]);
}
