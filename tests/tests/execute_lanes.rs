//! `%laneid` and `%lanemask_*` on the CPU (ISA 7.8 chapter 10): lanes are the linear thread
//! index modulo 32, and each mask has bit i set for the lanes i in its relation to this lane.

use ptxr_tests::{run_ok, Buffer, Launch};

#[test]
fn lane_masks_follow_the_lane_id() {
    let ptx = r#".version 7.8
.target sm_80
.address_size 64
.visible .entry test(.param .u64 output)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 24;
    add.u64 %rd3, %rd1, %rd2;
    mov.u32 %r2, %laneid;
    st.global.u32 [%rd3], %r2;
    mov.u32 %r3, %lanemask_eq;
    st.global.u32 [%rd3+4], %r3;
    mov.u32 %r4, %lanemask_lt;
    st.global.u32 [%rd3+8], %r4;
    mov.u32 %r5, %lanemask_le;
    st.global.u32 [%rd3+12], %r5;
    mov.u32 %r6, %lanemask_gt;
    st.global.u32 [%rd3+16], %r6;
    mov.u32 %r7, %lanemask_ge;
    st.global.u32 [%rd3+20], %r7;
    ret;
}
"#;
    let threads = 80u32;
    let output = run_ok(ptx, &Launch::threads(threads), &[Buffer::zeroed("u32", threads as usize * 6)]);
    for thread in 0..threads as usize {
        let lane = (thread % 32) as u32;
        let bit = |i: u32| 1u64 << i;
        let mask = |keep: &dyn Fn(u32) -> bool| (0..32).filter(|&i| keep(i)).map(bit).sum::<u64>();
        let expected = [
            u64::from(lane),
            mask(&|i| i == lane),
            mask(&|i| i < lane),
            mask(&|i| i <= lane),
            mask(&|i| i > lane),
            mask(&|i| i >= lane),
        ];
        assert_eq!(&output[0][thread * 6..thread * 6 + 6], &expected, "thread {thread}");
    }
}
