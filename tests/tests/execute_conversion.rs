//! Execution of integer `cvt.sat` on the CPU: each value is clamped into the destination type's
//! range (ISA 7.8 section 9.7.8.21), computed here with Rust's own integer clamps.

use ptxr_tests::{run_ok, Buffer, Launch, Random};

const KERNEL: &str = r#"
.version 7.0
.target sm_70
.address_size 64
.visible .entry test(.param .u64 input, .param .u64 output)
{
    .reg .u32 %r<20>;
    .reg .u64 %rd<10>;
    .reg .u16 %h<3>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r10, %tid.x;
    mul.wide.u32 %rd3, %r10, 4;
    add.u64 %rd5, %rd1, %rd3;
    add.u64 %rd4, %rd2, %rd3;
    ld.global.u32 %r1, [%rd5];
    cvt.sat.u8.s32 %r2, %r1;
    cvt.sat.s8.u32 %r3, %r1;
    cvt.sat.u16.s32 %h1, %r1;
    cvt.u32.u16 %r4, %h1;
    and.b32 %r2, %r2, 255;
    shl.b32 %r3, %r3, 8;
    and.b32 %r3, %r3, 65280;
    shl.b32 %r4, %r4, 16;
    or.b32 %r2, %r2, %r3;
    or.b32 %r2, %r2, %r4;
    st.global.u32 [%rd4], %r2;
    ret;
}
"#;

fn model(value: u32) -> u32 {
    let unsigned_byte = (value as i32).clamp(0, 255) as u32;
    let signed_byte = value.min(127);
    let unsigned_half = (value as i32).clamp(0, 65535) as u32;
    unsigned_byte | (signed_byte << 8) | (unsigned_half << 16)
}

#[test]
fn saturating_integer_conversions_clamp_into_the_destination_range() {
    let mut random = Random::new(21);
    let mut inputs = random.u32_with_edges(120);
    inputs.extend([127, 128, 255, 256, 65535, 65536, (-1i32) as u32, (-129i32) as u32, i32::MIN as u32]);
    let count = inputs.len() as u32;
    let result = run_ok(KERNEL, &Launch::threads(count), &[Buffer::u32s(&inputs), Buffer::zeroed("u32", inputs.len())]);
    for (index, &value) in inputs.iter().enumerate() {
        assert_eq!(result[1][index] as u32, model(value), "cvt.sat of {value:#x}");
    }
}
