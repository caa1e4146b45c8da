//! `alloca`, `stacksave` and `stackrestore` (PTX ISA 7.3, sm_52) on the CPU and on SPIR-V
//! through OpenCL (where `OCL_ICD_VENDORS` names a platform): `alloca.type ptr,
//! size{, immAlign}` gives `size` bytes of the thread's stack at a `.local` address aligned to
//! `immAlign` (8 when not written), which `st.local`/`ld.local` use; `stackrestore` with the value
//! of an earlier `stacksave` frees what was allocated since. Each thread fills a block whose size
//! depends on its index and sums it back (a model in the test computes the sums), checks the
//! alignment, and allocates 16 KiB 4096 times between a save and a restore, whose addresses escape
//! (a volatile store), so that without the restore a thread would need 64 MiB of stack and
//! overflow it. The kernels run with and without a block
//! barrier between filling and summing, inside a `.func`, and in the kernel after calling a `.func`
//! that allocates (a module with a run-time-sized stack runs a waiting kernel's threads each on
//! a stack of its own: LLVM's coroutine frames cannot hold such allocations). NVPTX writes PTX's own `alloca`
//! (ptxas accepts it), AMDGPU compiles, and SPIR-V (SPV_INTEL_variable_length_array) passes
//! `spirv-val`.
//!
//! A thread whose allocations would take its stack past its bound fails the launch with a
//! message instead of crashing the process: a single allocation of 1 GiB, and 64 KiB blocks
//! allocated without a restore until they add up to more than any thread's stack, in the
//! kernel, in a `.func`, and in a kernel that waits at a barrier.

use ptxr_tests::vendor_checks::{compile, ptxas_accepts, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, run, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const THREADS: u32 = 32;

/// Words thread `tid` allocates and fills with `tid * 1000 + index`.
fn words(tid: u32) -> u32 {
    (tid % 5 + 1) * 6
}

/// The body shared by the kernel and the `.func`: `%rd4` is the thread's output slot,
/// `%r1` its index.
fn body(align: &str, barrier: bool) -> String {
    let wait = if barrier { "    bar.sync 0;\n" } else { "" };
    format!(
        r#"    stacksave.u64 %rd5;
    rem.u32 %r2, %r1, 5;
    add.u32 %r2, %r2, 1;
    mul.lo.u32 %r2, %r2, 6;
    mul.wide.u32 %rd6, %r2, 4;
    alloca.u64 %rd7{align};
    mov.u32 %r3, 0;
    mov.u64 %rd8, %rd7;
FILL:
    mad.lo.u32 %r4, %r1, 1000, %r3;
    st.local.u32 [%rd8], %r4;
    add.u64 %rd8, %rd8, 4;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r2;
    @%p1 bra FILL;
{wait}    mov.u32 %r3, 0;
    mov.u32 %r5, 0;
    mov.u64 %rd8, %rd7;
SUM:
    ld.local.u32 %r4, [%rd8];
    add.u32 %r5, %r5, %r4;
    add.u64 %rd8, %rd8, 4;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, %r2;
    @%p1 bra SUM;
    st.global.u32 [%rd4], %r5;
    cvt.u32.u64 %r6, %rd7;
    st.global.u32 [%rd4+4], %r6;
    stackrestore.u64 %rd5;
    mov.u32 %r3, 0;
AGAIN:
    stacksave.u64 %rd9;
    alloca.u64 %rd10, 16384, 16;
    st.local.u32 [%rd10+16380], %r3;
    ld.local.u32 %r4, [%rd10+16380];
    cvt.u32.u64 %r7, %rd10;
    st.volatile.global.u32 [%rd4+12], %r7;
    stackrestore.u64 %rd9;
    add.u32 %r3, %r3, 1;
    setp.lt.u32 %p1, %r3, 4096;
    @%p1 bra AGAIN;
    st.global.u32 [%rd4+8], %r4;
"#,
        align = format_args!(", %rd6{align}")
    )
}

const DECLARATIONS: &str = "    .reg .u32 %r<8>;\n    .reg .u64 %rd<12>;\n    .reg .pred %p<2>;\n";

/// Where the threads meet at a barrier.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Barrier {
    None,
    /// Between filling and summing, where the work is.
    AtTheWork,
    /// In the kernel, after calling a `.func` that does the work and never waits.
    AfterTheCall,
}

/// `in_function`: the work happens in a `.func` the kernel calls.
fn kernel(align: &str, barrier: Barrier, in_function: bool) -> String {
    let after_the_call = if barrier == Barrier::AfterTheCall { "    bar.sync 0;\n" } else { "" };
    let barrier = barrier == Barrier::AtTheWork;
    let prologue = "    mov.u32 %r1, %tid.x;\n    mul.wide.u32 %rd2, %r1, 16;\n    add.u64 %rd4, %rd1, %rd2;\n";
    let (function, call) = if in_function {
        (
            format!(
                ".func work(.param .u64 slot)\n{{\n{DECLARATIONS}    ld.param.u64 %rd4, [slot];\n    mov.u32 %r1, %tid.x;\n{}    ret;\n}}\n",
                body(align, barrier)
            ),
            format!("    {{ .param .u64 slot; st.param.u64 [slot], %rd4; call.uni work, (slot); }}\n{after_the_call}"),
        )
    } else {
        (String::new(), body(align, barrier))
    };
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n{function}.visible .entry stack(.param .u64 output)\n{{\n{DECLARATIONS}    ld.param.u64 %rd1, [output];\n    cvta.to.global.u64 %rd1, %rd1;\n{prologue}{call}    ret;\n}}\n"
    )
}

fn check(ptx: &str, alignment: u64, case: &str) {
    let buffers = [Buffer::zeroed("u32", 4 * THREADS as usize)];
    for (device, result) in opencl::run_everywhere(ptx, &Launch::threads(THREADS), &buffers, OPENCL_CHILD) {
        for tid in 0..THREADS {
            let sum: u32 = (0..words(tid)).map(|index| tid * 1000 + index).sum();
            let slot = 4 * tid as usize;
            assert_eq!(result[0][slot], u64::from(sum), "{device}, {case}: thread {tid}'s sum");
            assert_eq!(
                result[0][slot + 1] % alignment,
                0,
                "{device}, {case}: thread {tid}'s block is not {alignment}-aligned"
            );
            assert_eq!(result[0][slot + 2], 4095, "{device}, {case}: thread {tid}'s last 16 KiB block");
        }
    }
}

#[test]
fn alloca_gives_each_thread_aligned_stack_memory_that_stackrestore_frees() {
    for (align, alignment) in [("", 8), (", 64", 64), (", 4", 8)] {
        for barrier in [Barrier::None, Barrier::AtTheWork, Barrier::AfterTheCall] {
            for in_function in [false, true] {
                let case = format!("align `{align}`, barrier {barrier:?}, in a .func {in_function}");
                check(&kernel(align, barrier, in_function), alignment, &case);
            }
        }
    }
}

fn artefact(source: &str, target: &str) -> Vec<u8> {
    match compile(source, target) {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("{target}: unsupported: {messages:?}"),
        Compiled::Rejected(message) => panic!("{target}: rejected: {message}"),
    }
}

#[test]
fn nvptx_writes_ptx_alloca_and_amdgpu_compiles() {
    let source = kernel(", 64", Barrier::AtTheWork, true);
    let ptx = String::from_utf8(artefact(&source, "nvptx")).expect("NVPTX output is PTX text");
    assert!(ptx.contains("alloca.u64"), "no `alloca` in\n{ptx}");
    assert!(ptx.contains("stackrestore.u64"), "no `stackrestore` in\n{ptx}");
    if let Some(verdict) = ptxas_accepts(ptx.as_bytes(), "sm_80", "stack") {
        verdict.unwrap_or_else(|error| panic!("ptxas: {error}\n{ptx}"));
    }
    assert!(!artefact(&source, "amdgpu").is_empty());
}

#[test]
fn spirv_with_a_run_time_sized_stack_passes_spirv_val() {
    for in_function in [false, true] {
        let source = kernel(", 64", Barrier::AtTheWork, in_function);
        let binary = artefact(&source, "spirv");
        if let Some(Err(message)) = spirv_val(&binary, &spirv_environment(&binary), "stack") {
            panic!("spirv-val: {message}\n{source}");
        }
    }
}

/// A kernel whose thread allocates `bytes` `times` times without a restore, writing the last
/// word of each block and its address (a volatile store, so that the allocation stays); with
/// `in_function`, a `.func` does it; with `barrier`, the threads meet at a barrier first.
fn overflowing_kernel(bytes: u64, times: u32, in_function: bool, barrier: bool) -> String {
    let wait = if barrier { "    bar.sync 0;\n" } else { "" };
    let work = format!(
        "    mov.u64 %rd2, {bytes};\n    mov.u32 %r1, 0;\nAGAIN:\n    alloca.u64 %rd3, %rd2;\n    add.u64 %rd4, %rd3, %rd2;\n    st.local.u32 [%rd4+-4], %r1;\n    st.volatile.global.u64 [sink], %rd3;\n    add.u32 %r1, %r1, 1;\n    setp.lt.u32 %p1, %r1, {times};\n    @%p1 bra AGAIN;\n"
    );
    let declarations = "    .reg .u32 %r<3>;\n    .reg .u64 %rd<6>;\n    .reg .pred %p<2>;\n";
    let (function, body) = if in_function {
        (format!(".func work()\n{{\n{declarations}{work}    ret;\n}}\n"), "    call.uni work, ();\n".to_string())
    } else {
        (String::new(), work)
    };
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n.global .u64 sink;\n{function}.visible .entry overflow(.param .u64 output)\n{{\n{declarations}{wait}{body}    ld.param.u64 %rd5, [output];\n    st.global.u32 [%rd5], 1;\n    ret;\n}}\n"
    )
}

#[test]
fn allocating_past_the_stack_fails_the_launch_with_a_message() {
    let buffers = [Buffer::zeroed("u32", 1)];
    let launch = Launch::threads(THREADS);
    // One gigabyte at once, and 64 KiB 4096 times (256 MiB): more than any thread's stack.
    for (bytes, times) in [(1u64 << 30, 1), (64 << 10, 4096)] {
        for in_function in [false, true] {
            for barrier in [false, true] {
                let ptx = overflowing_kernel(bytes, times, in_function, barrier);
                let case = format!("{times} x {bytes} bytes, in a .func {in_function}, barrier {barrier}");
                match run(&ptx, &launch, &buffers) {
                    Ok(_) => panic!("cpu, {case}: the launch succeeded"),
                    Err(message) => assert!(message.contains("`alloca` needed more stack"), "cpu, {case}: {message}"),
                }
                if opencl::available() {
                    match opencl::run(&ptx, &launch, &buffers, OPENCL_CHILD) {
                        Ok(_) => panic!("spirv, {case}: the launch succeeded"),
                        Err(message) => assert!(message.contains("`alloca` needed more"), "spirv, {case}: {message}"),
                    }
                }
            }
        }
    }
    // Within the bound, the same kernels run.
    for in_function in [false, true] {
        for barrier in [false, true] {
            let ptx = overflowing_kernel(1 << 10, 16, in_function, barrier);
            for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
                assert_eq!(result[0], [1], "{device}: in a .func {in_function}, barrier {barrier}");
            }
        }
    }
}

#[test]
fn malformed_stack_instructions_are_diagnostics() {
    for (body, wanted) in [
        ("alloca.u64 %rd1, 16, 3;", "power of two"),
        ("alloca.u64 %rd1, 16, 16777216;", "power of two"),
        ("alloca.u64 %rd1, 16, %r1;", "power of two"),
        ("alloca.s64 %rd1, 16;", "does not take type"),
        ("stacksave.u32 %rd1;", ""),
        ("stackrestore.u64;", "operand"),
    ] {
        let source = format!(
            ".version 7.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{{\n    .reg .u32 %r<2>;\n    .reg .u64 %rd<2>;\n    mov.u32 %r1, 16;\n    {body}\n    ret;\n}}\n"
        );
        match compile(&source, "cpu") {
            Compiled::Rejected(message) => assert!(message.contains(wanted), "`{body}`: {message}"),
            _ => panic!("`{body}` was accepted"),
        }
    }
    let old = ".version 7.2\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n    .reg .u64 %rd<2>;\n    stacksave.u64 %rd1;\n    ret;\n}\n";
    assert!(matches!(compile(old, "cpu"), Compiled::Rejected(_)), "ISA 7.2 took `stacksave`");
}

/// The private stack needs sub-groups of one work-item on Intel's CPU runtime; a module whose
/// warps are sub-groups of 32 (here through `%laneid`) gets E0901 saying so.
#[test]
fn spirv_refuses_the_stack_beside_sub_groups_of_32() {
    let source = kernel("", Barrier::None, false).replace("    ret;\n}\n", "    mov.u32 %r7, %laneid;\n    ret;\n}\n");
    assert!(source.contains("%laneid"));
    match compile(&source, "spirv") {
        Compiled::Unsupported(messages) => {
            assert!(messages.iter().any(|message| message.contains("sub-groups of 32")), "{messages:?}")
        }
        _ => panic!("SPIR-V compiled the stack beside sub-groups of 32"),
    }
    assert!(matches!(compile(&source, "cpu"), Compiled::Artefact(_)));
}

/// A `.func` that allocates 64 KiB, called 64 times (4 MiB in all): its allocations are freed
/// when it returns, so the thread never holds more than one call's.
#[test]
fn a_function_gives_back_its_allocations_when_it_returns() {
    let ptx = ".version 7.8\n.target sm_80\n.address_size 64\n.global .u64 sink;\n.func work()\n{\n    .reg .u64 %rd<3>;\n    mov.u64 %rd1, 65536;\n    alloca.u64 %rd2, %rd1;\n    st.local.u32 [%rd2+65532], 1;\n    st.volatile.global.u64 [sink], %rd2;\n    ret;\n}\n.visible .entry calls(.param .u64 output)\n{\n    .reg .u32 %r<3>;\n    .reg .u64 %rd<2>;\n    .reg .pred %p<2>;\n    mov.u32 %r1, 0;\nAGAIN:\n    call.uni work, ();\n    add.u32 %r1, %r1, 1;\n    setp.lt.u32 %p1, %r1, 64;\n    @%p1 bra AGAIN;\n    ld.param.u64 %rd1, [output];\n    st.global.u32 [%rd1], %r1;\n    ret;\n}\n";
    let buffers = [Buffer::zeroed("u32", 1)];
    for (device, result) in opencl::run_everywhere(ptx, &Launch::threads(THREADS), &buffers, OPENCL_CHILD) {
        assert_eq!(result[0], [64], "{device}");
    }
}
