//! `%clock64` and `%clock` (ISA 7.8 sections 10.17 and 10.18): a counter that PTX does not
//! define the rate of, so what a kernel may rely on is its order: two reads in program order
//! never go backwards (and it runs), and `%clock` is the low 32 bits of the same counter. Each thread reads
//! `%clock64`, spins, reads it again and reads `%clock`, on the CPU and, where OpenCL is set up,
//! on SPIR-V (`clock_read_device`, see `intrinsics/src/spirv_clock.rs`), whose module must pass
//! `spirv-val`.

use ptxr_tests::vendor_checks::{compile, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const THREADS: u32 = 64;

/// Thread `tid` writes its first `%clock64`, its second, and `%clock` at `3 * tid`.
const CLOCK: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry clock(.param .u64 output)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<7>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 24;
    add.u64 %rd1, %rd1, %rd2;
    mov.u64 %rd3, %clock64;
    mov.u32 %r2, 0;
SPIN:
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 1000;
    @%p1 bra SPIN;
    mov.u64 %rd4, %clock64;
    mov.u32 %r3, %clock;
    st.global.u64 [%rd1], %rd3;
    st.global.u64 [%rd1+8], %rd4;
    cvt.u64.u32 %rd5, %r3;
    st.global.u64 [%rd1+16], %rd5;
    ret;
}
"#;

#[test]
fn clock_reads_in_program_order_never_go_backwards() {
    let buffers = [Buffer::zeroed("u64", 3 * THREADS as usize)];
    for (device, result) in opencl::run_everywhere(CLOCK, &Launch::threads(THREADS), &buffers, OPENCL_CHILD) {
        let advanced = (0..THREADS as usize).filter(|&tid| result[0][3 * tid] < result[0][3 * tid + 1]).count();
        assert!(advanced > 0, "{device}: the clock stood still in every thread");
        for tid in 0..THREADS as usize {
            let [first, second, low] = [result[0][3 * tid], result[0][3 * tid + 1], result[0][3 * tid + 2]];
            assert!(first <= second, "{device}: thread {tid}: %clock64 went from {first} to {second}");
            // `%clock` was read after the second `%clock64`: its low bits, later (modulo 2^32).
            let ahead = (low as u32).wrapping_sub(second as u32);
            assert!(ahead < 1 << 31, "{device}: thread {tid}: %clock {low} is not after %clock64 {second}");
        }
    }
    let Compiled::Artefact(binary) = compile(CLOCK, "spirv") else { panic!("no SPIR-V for\n{CLOCK}") };
    if let Some(Err(message)) = spirv_val(&binary, &spirv_environment(&binary), "clock") {
        panic!("spirv-val: {message}");
    }
}
