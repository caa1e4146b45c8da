//! Execution of `elect.sync` (ISA 8.0) on the CPU target and, where OpenCL is set up, as SPIR-V
//! through OpenCL. The model, written here from the
//! ISA's definition: every lane of `membermask` gets the lane id of the leader, the lowest
//! active lane of `membermask`, and a predicate true on the leader only.

use ptxr_tests::{opencl, Buffer, Launch};

const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// Each thread whose bit of `input[thread]` is set takes part in `elect.sync` with the member
/// mask `input[thread]` and stores `d | p << 8`; the others store `0xdead`.
fn kernel(elect: &str) -> String {
    format!(
        r#".version 8.0
.target sm_90
.address_size 64
.visible .entry test(.param .u64 input, .param .u64 output)
{{
    .reg .u32 %r<10>;
    .reg .u64 %rd<10>;
    .reg .pred %p<4>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, %laneid;
    shr.b32 %r4, %r2, %r3;
    and.b32 %r4, %r4, 1;
    mov.u32 %r5, 0xdead;
    setp.eq.u32 %p1, %r4, 0;
    @%p1 bra DONE;
    mov.u32 %r6, 77;
    {elect}
    selp.u32 %r7, 256, 0, %p2;
    or.b32 %r5, %r6, %r7;
DONE:
    st.global.u32 [%rd5], %r5;
    ret;
}}
"#
    )
}

/// What each of `threads` threads stores when lane `l` of each warp uses `masks[warp]`.
fn model(masks: &[u32], sink: bool) -> Vec<u32> {
    masks
        .iter()
        .flat_map(|&mask| {
            (0..32).map(move |lane| {
                if mask >> lane & 1 == 0 {
                    return 0xdead;
                }
                let leader = mask.trailing_zeros();
                let d = if sink { 77 } else { leader };
                d | u32::from(lane == leader) << 8
            })
        })
        .collect()
}

/// Runs `elect` with lane `l` of warp `w` in `masks[w]` where bit `l` is set, on every device,
/// and compares each device's stores with the model.
fn check(elect: &str, masks: &[u32], sink: bool) {
    let input: Vec<u32> = masks.iter().flat_map(|&mask| std::iter::repeat_n(mask, 32)).collect();
    let launch = Launch { grid: [1, 1, 1], block: [input.len() as u32, 1, 1], ..Launch::default() };
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", input.len())];
    for (device, result) in opencl::run_everywhere(&kernel(elect), &launch, &buffers, OPENCL_CHILD) {
        let stored: Vec<u32> = result[1].iter().map(|&bits| bits as u32).collect();
        assert_eq!(stored, model(masks, sink), "{device}: {elect}");
    }
}

#[test]
fn the_lowest_lane_of_the_member_mask_is_elected_in_every_warp() {
    let masks = [0xffff_ffff, 0xffff_fff0, 0x00f0_f000, 0x8000_0000];
    check("elect.sync %r6|%p2, %r2;", &masks, false);
}

#[test]
fn a_sink_destination_keeps_only_the_predicate() {
    let masks = [0x0000_0006, 0xffff_ffff];
    check("elect.sync _|%p2, %r2;", &masks, true);
}

#[test]
fn an_immediate_member_mask_of_the_whole_warp() {
    let masks = [0xffff_ffff, 0xffff_ffff];
    check("elect.sync %r6|%p2, 0xffffffff;", &masks, false);
}
