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

/// `cvt` to `.tf32` in its three roundings, and with `.relu` (ISA 7.8 section 9.7.8.18).
const TF32_KERNEL: &str = r#"
.version 7.8
.target sm_90
.address_size 64
.visible .entry tf32(.param .u64 input, .param .u64 output)
{
    .reg .b32 %r<8>;
    .reg .f32 %f<2>;
    .reg .u64 %rd<6>;
    ld.param.u64 %rd1, [input];
    ld.param.u64 %rd2, [output];
    mov.u32 %r7, %tid.x;
    mul.wide.u32 %rd3, %r7, 4;
    add.u64 %rd4, %rd1, %rd3;
    mul.wide.u32 %rd3, %r7, 20;
    add.u64 %rd5, %rd2, %rd3;
    ld.global.f32 %f1, [%rd4];
    cvt.rna.tf32.f32 %r1, %f1;
    cvt.rn.tf32.f32 %r2, %f1;
    cvt.rz.tf32.f32 %r3, %f1;
    cvt.rn.relu.tf32.f32 %r4, %f1;
    cvt.rz.relu.tf32.f32 %r5, %f1;
    st.global.b32 [%rd5], %r1;
    st.global.b32 [%rd5+4], %r2;
    st.global.b32 [%rd5+8], %r3;
    st.global.b32 [%rd5+12], %r4;
    st.global.b32 [%rd5+16], %r5;
    ret;
}
"#;

/// The value of an `.f32` magnitude's bits, with the infinity's pattern read as 2^128, the
/// value that rounding to a wider exponent range would reach there.
fn magnitude_value(magnitude: u32) -> f64 {
    let exponent = (magnitude >> 23) as i32;
    let fraction = f64::from(magnitude & 0x7f_ffff);
    if exponent == 0 {
        fraction * 2f64.powi(-149)
    } else {
        (fraction + 8_388_608.0) * 2f64.powi(exponent - 150)
    }
}

#[derive(Clone, Copy)]
enum Tf32Rounding {
    NearestAway,
    NearestEven,
    Zero,
}

/// `.tf32` by its values: the two 10-fraction-bit neighbours of the magnitude and the distance
/// to each, compared exactly in f64 (every value involved is exact there).
fn tf32_model(bits: u32, rounding: Tf32Rounding, relu: bool) -> u32 {
    let sign = bits & 0x8000_0000;
    let magnitude = bits & 0x7fff_ffff;
    if magnitude > 0x7f80_0000 {
        return 0x7fff_ffff;
    }
    let below = magnitude & !0x1fff;
    let above = below + 0x2000;
    let result = if magnitude == below || magnitude == 0x7f80_0000 {
        magnitude
    } else {
        let exact = magnitude_value(magnitude);
        let to_below = exact - magnitude_value(below);
        let to_above = magnitude_value(above) - exact;
        match rounding {
            Tf32Rounding::Zero => below,
            _ if to_below < to_above => below,
            _ if to_above < to_below => above,
            Tf32Rounding::NearestAway => above,
            Tf32Rounding::NearestEven => {
                if below & 0x2000 == 0 {
                    below
                } else {
                    above
                }
            }
        }
    };
    if relu && sign != 0 {
        0
    } else {
        sign | result
    }
}

#[test]
fn conversions_to_tf32_round_to_ten_fraction_bits() {
    let mut random = Random::new(22);
    let mut inputs = random.u32_with_edges(800);
    for kept in [0x3f80_0000u32, 0x3f80_2000, 0x0000_0000, 0x0080_2000, 0x7f7f_e000, 0x4b00_6000] {
        for dropped in [0x1000, 0x0fff, 0x1001, 0x1fff, 0x0001] {
            inputs.push(kept | dropped);
            inputs.push(kept | dropped | 0x8000_0000);
        }
    }
    inputs.extend([0x7f7f_ffff, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_1234, 0x7f80_0001, 0x8000_0000]);
    while inputs.len() % 32 != 0 {
        inputs.push(random.next_u32());
    }
    let count = inputs.len();
    let result =
        run_ok(TF32_KERNEL, &Launch::threads(count as u32), &[Buffer::u32s(&inputs), Buffer::zeroed("u32", 5 * count)]);
    for (index, &bits) in inputs.iter().enumerate() {
        let expected = [
            tf32_model(bits, Tf32Rounding::NearestAway, false),
            tf32_model(bits, Tf32Rounding::NearestEven, false),
            tf32_model(bits, Tf32Rounding::Zero, false),
            tf32_model(bits, Tf32Rounding::NearestEven, true),
            tf32_model(bits, Tf32Rounding::Zero, true),
        ];
        let got: Vec<u32> = (0..5).map(|form| result[1][5 * index + form] as u32).collect();
        assert_eq!(got, expected, "cvt.{{rna, rn, rz, rn.relu, rz.relu}}.tf32.f32 of {bits:#010x}");
    }
}
