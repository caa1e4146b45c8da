//! A `.local` variable's address in a 32-bit register of a 64-bit module, as LLVM writes it with
//! short `.local` pointers (Triton: `mov.b32 %SPL, __local_depot0;`, then `st.local [%SPL+8]`
//! and `cvta.local.u64` of the zero-extended address for `vprintf`), works on every target: where
//! `.local` pointers are 64-bit, the function's `.local` addresses are offsets into a window
//! from its first such variable (`FunctionLowering::local_window`).

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_tests::vendor_checks;
use ptxr_tests::{run_ok, Buffer, Launch};

/// Each thread stores x through the 32-bit address of `depot` (scalar and vector stores), reads
/// it back generically through `cvta.local.u64` of the zero-extended address, stores x + 1
/// through the 32-bit address of `second` (which may lie below `depot`) and reads it by name,
/// then converts the generic address back with `cvta.to.local` and reads its thread index.
/// out[i] = x + 1, out[32 + i] = i + x.
const LOCAL_WINDOW: &str = r#"
.version 7.8
.target sm_80
.address_size 64
.visible .entry window(.param .u64 data)
{
    .local .align 8 .b8 depot[32];
    .local .align 4 .b8 second[16];
    .reg .b32 %SPL;
    .reg .b32 %r<12>;
    .reg .b64 %rd<9>;
    mov.b32 %SPL, depot;
    ld.param.u64 %rd1, [data];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    st.local.u32 [%SPL+4], %r2;
    st.local.v2.b32 [%SPL+8], {%r1, %r2};
    add.u32 %r3, %SPL, 4;
    cvt.u64.u32 %rd5, %r3;
    cvta.local.u64 %rd6, %rd5;
    ld.u32 %r4, [%rd6];
    mov.u32 %r5, second;
    add.u32 %r6, %r4, 1;
    st.local.u32 [%r5], %r6;
    ld.local.u32 %r7, [second];
    cvta.to.local.u64 %rd7, %rd6;
    cvt.u32.u64 %r8, %rd7;
    ld.local.u32 %r9, [%r8+4];
    st.global.u32 [%rd4], %r7;
    add.u32 %r10, %r9, %r4;
    st.global.u32 [%rd4+128], %r10;
    ret;
}
"#;

#[test]
fn a_local_address_in_a_32_bit_register_runs_on_the_cpu() {
    let input: Vec<u32> = (0..32).map(|index| 1000 + index * 7).collect();
    let mut data = input.clone();
    data.extend([0; 32]);
    let result = run_ok(LOCAL_WINDOW, &Launch::threads(32), &[Buffer::u32s(&data)]);
    let mut expected: Vec<u64> = input.iter().map(|&value| u64::from(value + 1)).collect();
    expected.extend(input.iter().enumerate().map(|(index, &value)| index as u64 + u64::from(value)));
    assert_eq!(result[0], expected);
}

#[test]
fn a_local_address_in_a_32_bit_register_compiles_for_every_gpu() {
    for target_name in ["nvptx", "amdgpu", "spirv"] {
        let target = describe(target_name, None, false).unwrap_or_else(|error| panic!("{error}"));
        let options = CompileOptions { target, emit: None, optimization: 2 };
        let artifact = compile_source(LOCAL_WINDOW, "window", &options)
            .unwrap_or_else(|failure| panic!("{target_name}: {failure:?}"));
        assert!(!artifact.bytes.is_empty(), "{target_name}");
    }
}

#[test]
fn a_local_address_in_a_32_bit_register_assembles_with_ptxas() {
    let target = describe("nvptx", None, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target, emit: None, optimization: 0 };
    let artifact =
        compile_source(LOCAL_WINDOW, "window", &options).unwrap_or_else(|failure| panic!("nvptx: {failure:?}"));
    let Some(verdict) = vendor_checks::ptxas_accepts(&artifact.bytes, "sm_80", "local-addresses") else { return };
    if let Err(message) = verdict {
        panic!("{message}");
    }
}
