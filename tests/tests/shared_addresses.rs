//! A `.shared` variable's address in a 32-bit register, as nvcc and Triton write it
//! (`mov.u32 %r, sdata;` then `ld.shared`/`st.shared`/`atom.shared` on `[%r]`), works on every
//! target: on NVPTX, where LLVM's shared pointers are 64-bit, the address is truncated and
//! extended back, which keeps every bit because the shared window is far below 4 GiB.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_tests::vendor_checks;
use ptxr_tests::{run_ok, Buffer, Launch};

/// Reverses 32 words through a shared tile addressed by 32-bit registers, and counts the
/// threads with an atomic on a second shared variable's 32-bit address.
const REVERSE_THROUGH_SHARED: &str = r#"
.version 7.8
.target sm_80
.address_size 64
.visible .entry reverse(.param .u64 data)
{
    .shared .align 4 .b8 tile[128];
    .shared .align 4 .u32 count;
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [data];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    mov.u32 %r3, tile;
    shl.b32 %r4, %r1, 2;
    add.s32 %r5, %r3, %r4;
    st.shared.u32 [%r5], %r2;
    mov.u32 %r9, count;
    atom.shared.add.u32 %r10, [%r9], 1;
    bar.sync 0;
    sub.s32 %r6, 124, %r4;
    add.s32 %r7, %r3, %r6;
    ld.shared.u32 %r8, [%r7];
    st.global.u32 [%rd4], %r8;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.shared.u32 %r11, [%r9];
    st.global.u32 [%rd2+128], %r11;
DONE:
    ret;
}
"#;

#[test]
fn a_shared_address_in_a_32_bit_register_runs_on_the_cpu() {
    let input: Vec<u32> = (0..32).map(|index| 1000 + index * 7).collect();
    let mut data = input.clone();
    data.push(0);
    let result = run_ok(REVERSE_THROUGH_SHARED, &Launch::threads(32), &[Buffer::u32s(&data)]);
    let mut expected: Vec<u64> = input.iter().rev().map(|&value| u64::from(value)).collect();
    expected.push(32);
    assert_eq!(result[0], expected);
}

#[test]
fn a_shared_address_in_a_32_bit_register_compiles_for_every_gpu() {
    for target_name in ["nvptx", "amdgpu", "spirv"] {
        let target = describe(target_name, None, false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target, emit: None, optimization: 2 };
        let artifact = compile_source(REVERSE_THROUGH_SHARED, "reverse", &options)
            .unwrap_or_else(|failure| panic!("{target_name}: {failure:?}"));
        assert!(!artifact.bytes.is_empty(), "{target_name}");
    }
}

#[test]
fn a_shared_address_in_a_32_bit_register_assembles_with_ptxas() {
    let target = describe("nvptx", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target, emit: None, optimization: 0 };
    let artifact = compile_source(REVERSE_THROUGH_SHARED, "reverse", &options)
        .unwrap_or_else(|failure| panic!("nvptx: {failure:?}"));
    let Some(verdict) = vendor_checks::ptxas_accepts(&artifact.bytes, "sm_80", "shared-addresses") else { return };
    if let Err(message) = verdict {
        panic!("{message}");
    }
    // The shared accesses stay in the shared state space (not generic loads through a
    // converted pointer), as nvcc's own output has them.
    let ptx = String::from_utf8_lossy(&artifact.bytes);
    assert!(ptx.contains("st.shared.u32") || ptx.contains("st.shared.b32"), "{ptx}");
    assert!(ptx.contains("atom.shared.add.u32"), "{ptx}");
}
