//! `isspacep` on the CPU with every kind of address a kernel can come by, each asked all five
//! forms (ISA 7.8 section 9.7.8.16). Expected answers follow section 6.4.1.1: a generic
//! address is global unless it lies in the `.const`, `.local` or `.shared` window, and the
//! `.param` window lies inside the `.global` one, so exactly one of `.global`, `.shared`,
//! `.local` and `.const` holds for every address, and `.param` holds for a kernel parameter's
//! address besides `.global`. The kernel asks, or hands each address to a `.func` that asks
//! (and that also asks about its own parameter's and `.local` array's addresses). The kernels
//! also meet at a barrier between taking the addresses and asking, in the body (work-item
//! loops; LLVM coroutines under `PTXR_CPU_WAITS=coroutines`) and inside a `.func` (stackful
//! coroutines), so that the addresses live across waits.
//!
//! Where an OpenCL platform is set up (`OCL_ICD_VENDORS`), the same kernels run on SPIR-V too,
//! with the same expected answers: there a kernel's parameters are its own copies in private
//! memory, which it records in the launch arguments for `isspacep.param`, and the launch's
//! buffers come in a table the runner passes (docs/TARGETS.md, "The launch arguments on
//! SPIR-V").

use ptxr_tests::vendor_checks::{compile, Compiled, Validators};
use ptxr_tests::{cpu_llvm_ir, cpu_waits_forced_to_coroutines, llvm_function, opencl, run_ok, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// The answers for one address, one bit per form, in this order.
const FORMS: [&str; 5] = ["global", "shared", "local", "const", "param"];

/// Bits of `FORMS` that hold for each address the kernel asks about, in the kernel's order.
const EXPECTED: [(&str, &[&str]); 9] = [
    ("a `.local` array", &["local"]),
    ("a `.shared` variable", &["shared"]),
    ("a `.global` variable", &["global"]),
    ("a launch buffer", &["global"]),
    ("a `malloc` block", &["global"]),
    ("a `.const` variable", &["const"]),
    ("a kernel parameter", &["global", "param"]),
    ("the launch buffer's last byte", &["global"]),
    // Past the buffer's end lies no memory of the launch's: an address from none of the
    // windows that PTX's sources give reads as the thread's own.
    ("the address one past the launch buffer's end", &["local"]),
];

/// What only a `.func` can ask about: its own memory, which is the thread's `.local` memory
/// (section 5.1.6.4: a `.func` parameter whose address is taken is copied to the stack, "so
/// the address will be in the `.local` state space"). Words `EXPECTED.len()` and after.
const EXPECTED_IN_A_FUNC: [(&str, &[&str]); 2] =
    [("the `.func`'s own parameter", &["local"]), ("a `.local` array of the `.func`", &["local"])];

const WORDS: usize = 12;

/// The threads of every launch here, one block.
const THREADS: u32 = 64;

const WAIT_FOR_THE_BLOCK: &str = ".func wait_for_the_block()\n{\n    bar.sync 0;\n    ret;\n}";

/// Where the kernel meets the other threads between taking the addresses and asking.
#[derive(Clone, Copy, Debug)]
enum Wait {
    None,
    InTheBody,
    InAFunc,
}

/// Who asks: the kernel itself, or a `.func` that the kernel hands each address to.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Asker {
    Kernel,
    Func,
}

/// The five `isspacep` forms of the generic address in `address`, as a mask of `FORMS` in `%r2`.
fn ask_every_form(address: &str) -> String {
    let mut asks = String::from("    mov.u32 %r2, 0;\n");
    for (bit, form) in FORMS.iter().enumerate() {
        asks.push_str(&format!(
            "    isspacep.{form} %p1, {address};\n    selp.u32 %r3, {}, 0, %p1;\n    or.b32 %r2, %r2, %r3;\n",
            1 << bit
        ));
    }
    asks
}

/// `ask` answers for an address handed to it; `ask_own` for its own parameter's address and
/// for its own `.local` array, in the low and high halves of its result.
fn asking_funcs() -> String {
    format!(
        r#"
.func (.param .b32 mask) ask(.param .b64 address)
{{
    .reg .u32 %r<4>;
    .reg .u64 %rd<2>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [address];
{asks}    st.param.b32 [mask], %r2;
    ret;
}}
.func (.param .b64 masks) ask_own(.param .b64 unused)
{{
    .reg .u32 %r<6>;
    .reg .u64 %rd<4>;
    .reg .pred %p<2>;
    .local .align 4 .b32 own[2];
    st.local.u32 [own+4], 7;
    mov.u64 %rd1, unused;
    cvta.param.u64 %rd1, %rd1;
{own_parameter}    mov.u32 %r4, %r2;
    mov.u64 %rd1, own;
    cvta.local.u64 %rd1, %rd1;
    add.u64 %rd1, %rd1, 4;
{own_local}    mov.b64 %rd2, {{%r4, %r2}};
    st.param.b64 [masks], %rd2;
    ret;
}}
"#,
        asks = ask_every_form("%rd1"),
        own_parameter = ask_every_form("%rd1"),
        own_local = ask_every_form("%rd1"),
    )
}

/// A kernel that stores, for each address of `EXPECTED` (and with a `.func` asking, of
/// `EXPECTED_IN_A_FUNC`), the mask of the forms that held, at word `tid * WORDS + index` of
/// `output`; then `ld`s through the parameter's generic address, and `ld.param`s through its
/// `.param` address in a register, into the last word, which must read the parameter's value
/// back both times.
fn kernel(asker: Asker, wait: Wait) -> String {
    // The `.func` is declared only where it is called: a `.func` that waits anywhere in the
    // module turns every kernel's threads into stackful coroutines.
    let (waiting, waiting_function) = match wait {
        Wait::None => ("", ""),
        Wait::InTheBody => ("    bar.sync 0;\n", ""),
        Wait::InAFunc => ("    call.uni wait_for_the_block;\n", WAIT_FOR_THE_BLOCK),
    };
    let mut asks = String::new();
    // The buffer's last byte and its end, after the other addresses (`%rd10` and on).
    let buffer_bytes = 4 * WORDS * THREADS as usize;
    let buffer_ends =
        format!("    add.u64 %rd17, %rd1, {};\n    add.u64 %rd18, %rd1, {buffer_bytes};\n", buffer_bytes - 1);
    for (index, _) in EXPECTED.iter().enumerate() {
        let address = format!("%rd{}", 10 + index);
        match asker {
            Asker::Kernel => asks.push_str(&ask_every_form(&address)),
            Asker::Func => asks.push_str(&format!(
                "    {{\n    .param .b64 address;\n    .param .b32 mask;\n    st.param.b64 [address], {address};\n    \
                 call.uni (mask), ask, (address);\n    ld.param.b32 %r2, [mask];\n    }}\n"
            )),
        }
        asks.push_str(&format!("    st.global.u32 [%rd3+{}], %r2;\n", 4 * index));
    }
    let asking_functions = if asker == Asker::Func {
        let own = EXPECTED.len() * 4;
        asks.push_str(&format!(
            "    {{\n    .param .b64 unused;\n    .param .b64 masks;\n    st.param.b64 [unused], 0;\n    \
             call.uni (masks), ask_own, (unused);\n    ld.param.b64 %rd6, [masks];\n    }}\n    \
             st.global.u64 [%rd3+{own}], %rd6;\n"
        ));
        asking_funcs()
    } else {
        String::new()
    };
    format!(
        r#"
.version 8.3
.target sm_90
.address_size 64
.const .align 4 .u32 constants[2] = {{100, 200}};
.global .align 4 .u32 counters[4];
.extern .func (.param .b64 func_retval0) malloc(.param .b64 size);
{waiting_function}
{asking_functions}
.visible .entry test(.param .u64 output)
{{
    .reg .u32 %r<8>;
    .reg .u64 %rd<30>;
    .reg .pred %p<2>;
    .local .align 8 .b32 scratch[4];
    .shared .align 4 .b32 tile[64];
    ld.param.u64 %rd1, [output];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd2, %r0, {bytes};
    add.u64 %rd3, %rd1, %rd2;
    st.local.u32 [scratch+4], %r0;
    mov.u64 %rd10, scratch;
    cvta.local.u64 %rd10, %rd10;
    add.u64 %rd10, %rd10, 4;
    mov.u64 %rd11, tile;
    cvta.shared.u64 %rd11, %rd11;
    mul.wide.u32 %rd4, %r0, 4;
    add.u64 %rd11, %rd11, %rd4;
    mov.u64 %rd12, counters;
    cvta.global.u64 %rd12, %rd12;
    add.u64 %rd12, %rd12, 12;
    add.u64 %rd13, %rd3, 28;
    {{
    .param .b64 size;
    .param .b64 func_retval0;
    st.param.b64 [size], 16;
    call.uni (func_retval0), malloc, (size);
    ld.param.b64 %rd14, [func_retval0];
    }}
    mov.u64 %rd15, constants;
    cvta.const.u64 %rd15, %rd15;
    add.u64 %rd15, %rd15, 4;
    mov.u64 %rd16, output;
    cvta.param.u64 %rd16, %rd16;
{buffer_ends}{waiting}{asks}    ld.u64 %rd5, [%rd16];
    sub.u64 %rd5, %rd5, %rd1;
    mov.u64 %rd27, output;
    ld.param.u64 %rd28, [%rd27];
    sub.u64 %rd28, %rd28, %rd1;
    or.b64 %rd5, %rd5, %rd28;
    cvt.u32.u64 %r4, %rd5;
    st.global.u32 [%rd3+{last}], %r4;
    ret;
}}
"#,
        bytes = 4 * WORDS,
        last = 4 * (WORDS - 1),
    )
}

fn expected_mask(forms: &[&str]) -> u64 {
    FORMS.iter().enumerate().filter(|(_, form)| forms.contains(form)).map(|(bit, _)| 1 << bit).sum()
}

fn check(asker: Asker, wait: Wait) {
    let ptx = kernel(asker, wait);
    // The scheme each kernel runs under, so that the addresses do cross its waits.
    let scheme = match wait {
        Wait::None => None,
        Wait::InTheBody if cpu_waits_forced_to_coroutines() => Some("ptxr_run_resumable_block"),
        Wait::InTheBody => Some("ptxr_run_work_item_block"),
        Wait::InAFunc => Some("ptxr_run_cooperative_block"),
    };
    let ir = cpu_llvm_ir(&ptx, 2);
    let body = llvm_function(&ir, "test");
    match scheme {
        Some(scheme) => assert!(body.contains(scheme), "{wait:?}: {body}"),
        None => assert!(!body.contains("ptxr_run_"), "{wait:?}: {body}"),
    }
    let asked = match asker {
        Asker::Kernel => EXPECTED.to_vec(),
        Asker::Func => EXPECTED.iter().chain(&EXPECTED_IN_A_FUNC).copied().collect(),
    };
    let threads = THREADS;
    let buffers = [Buffer::zeroed("u32", threads as usize * WORDS)];
    for (device, output) in opencl::run_everywhere(&ptx, &Launch::threads(threads), &buffers, OPENCL_CHILD) {
        for thread in 0..threads as usize {
            let words = &output[0][thread * WORDS..][..WORDS];
            for (index, (address, forms)) in asked.iter().enumerate() {
                assert_eq!(
                    words[index],
                    expected_mask(forms),
                    "{device}: {asker:?} asking, {wait:?}, thread {thread}: {address} (bits: {FORMS:?})"
                );
            }
            // The parameter's generic address reads the parameter: the buffer's own address.
            assert_eq!(
                words[WORDS - 1],
                0,
                "{device}: {wait:?}, thread {thread}: `ld` through the parameter's address"
            );
        }
    }
}

#[test]
fn every_address_is_in_exactly_its_windows() {
    check(Asker::Kernel, Wait::None);
}

#[test]
fn addresses_keep_their_windows_across_a_barrier_in_the_body() {
    check(Asker::Kernel, Wait::InTheBody);
}

#[test]
fn addresses_keep_their_windows_across_a_barrier_in_a_func() {
    check(Asker::Kernel, Wait::InAFunc);
}

#[test]
fn a_func_finds_every_address_in_exactly_its_windows() {
    check(Asker::Func, Wait::None);
}

#[test]
fn a_func_finds_the_windows_of_addresses_taken_before_a_barrier_in_the_body() {
    check(Asker::Func, Wait::InTheBody);
}

#[test]
fn a_func_finds_the_windows_of_addresses_taken_before_a_barrier_in_a_func() {
    check(Asker::Func, Wait::InAFunc);
}

/// Kernel parameters are shared by every thread of the grid (ISA 7.8 section 5.1.6.1): the
/// address one thread takes is the one its neighbour takes, and lies in the `.param` window for
/// the neighbour too, asked in a `.func`.
#[test]
fn a_kernel_parameter_has_one_address_for_every_thread() {
    let ptx = format!(
        r#"
.version 8.3
.target sm_90
.address_size 64
{asking}
.visible .entry test(.param .u64 output)
{{
    .reg .u32 %r<8>;
    .reg .u64 %rd<20>;
    .reg .pred %p<2>;
    .shared .align 8 .b64 taken[64];
    ld.param.u64 %rd1, [output];
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd2, %r0, 8;
    add.u64 %rd3, %rd1, %rd2;
    mov.u64 %rd4, output;
    cvta.param.u64 %rd4, %rd4;
    mov.u64 %rd5, taken;
    add.u64 %rd6, %rd5, %rd2;
    st.shared.u64 [%rd6], %rd4;
    bar.sync 0;
    add.u32 %r1, %r0, 1;
    and.b32 %r1, %r1, 63;
    mul.wide.u32 %rd7, %r1, 8;
    add.u64 %rd7, %rd5, %rd7;
    ld.shared.u64 %rd8, [%rd7];
    {{
    .param .b64 address;
    .param .b32 mask;
    st.param.b64 [address], %rd8;
    call.uni (mask), ask, (address);
    ld.param.b32 %r2, [mask];
    }}
    setp.eq.u64 %p1, %rd8, %rd4;
    selp.u32 %r3, 1, 0, %p1;
    mov.b64 %rd9, {{%r2, %r3}};
    st.global.u64 [%rd3], %rd9;
    ret;
}}
"#,
        asking = asking_funcs()
    );
    let threads = 64;
    let output = run_ok(&ptx, &Launch::threads(threads), &[Buffer::zeroed("u64", threads as usize)]);
    let expected = expected_mask(&["global", "param"]) | 1 << 32;
    for (thread, &word) in output[0].iter().enumerate() {
        assert_eq!(word, expected, "thread {thread}: (same address) << 32 | mask of {FORMS:?}");
    }
}

/// The same kernels on NVPTX and AMDGPU, where each form is the target's own test (`isspacep`,
/// the apertures, the kernarg segment): NVPTX writes `isspacep.param` and `cvta.param` (PTX
/// ISA 7.7, so an sm_80 module is raised from its default 7.0) and ptxas accepts the result;
/// AMDGPU code objects list the kernel; spirv-val accepts the SPIR-V, which the tests above
/// run through OpenCL.
#[test]
fn the_kernels_compile_and_validate_for_nvptx_amdgpu_and_spirv() {
    let Some(validators) = Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-isspacep-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let mut problems = Vec::new();
    for asker in [Asker::Kernel, Asker::Func] {
        let source = kernel(asker, Wait::InTheBody).replace(".target sm_90", ".target sm_80");
        for target in ["nvptx", "amdgpu", "spirv"] {
            let name = format!("isspacep_{asker:?}_{target}");
            match compile(&source, target) {
                Compiled::Artefact(artefact) => {
                    if target == "nvptx" {
                        let text = String::from_utf8_lossy(&artefact);
                        for needed in [".version 7.7", "isspacep.param", "cvta.param", "mov.b64 %rd"] {
                            if !text.contains(needed) {
                                problems.push(format!("{name}: no `{needed}` in\n{text}"));
                            }
                        }
                    }
                    if let Err(message) = validators.check(target, &name, &source, &artefact, &scratch) {
                        problems.push(format!("{name}: {message}"));
                    }
                }
                Compiled::Unsupported(messages) => problems.push(format!("{name}: unsupported {messages:?}")),
                Compiled::Rejected(message) => problems.push(format!("{name}: rejected {message}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `isspacep.shared::cluster` (ISA 7.8, sm_90), which nvcc writes for libcu++'s atomics under
/// `-G`: ptxr launches clusters of one CTA, so on the CPU it holds exactly for the block's own
/// shared memory; NVPTX keeps PTX's instruction, which ptxas accepts.
#[test]
fn shared_cluster_holds_for_the_blocks_own_shared_memory() {
    let ptx = ".version 7.8\n.target sm_90\n.address_size 64\n.shared .align 4 .b32 cell[4];\n\
        .visible .entry test(.param .u64 output)\n{\n.local .align 4 .b32 own[2];\n\
        .reg .b64 %rd<8>;\n.reg .pred %p<4>;\n.reg .b32 %r<4>;\n\
        ld.param.u64 %rd1, [output];\nmov.u64 %rd2, cell;\ncvta.shared.u64 %rd3, %rd2;\nadd.u64 %rd3, %rd3, 12;\n\
        mov.u64 %rd4, own;\ncvta.local.u64 %rd5, %rd4;\n\
        isspacep.shared::cluster %p1, %rd3;\nisspacep.shared::cluster %p2, %rd1;\nisspacep.shared::cluster %p3, %rd5;\n\
        selp.u32 %r1, 1, 0, %p1;\nselp.u32 %r2, 2, 0, %p2;\nselp.u32 %r3, 4, 0, %p3;\n\
        or.b32 %r1, %r1, %r2;\nor.b32 %r1, %r1, %r3;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
    let result = run_ok(ptx, &Launch::threads(1), &[Buffer::zeroed("u32", 1)]);
    assert_eq!(result[0], [1], "shared, global, local: only the shared address is in the cluster's shared memory");
    let Compiled::Artefact(nvptx) = compile(ptx, "nvptx") else { panic!("no NVPTX for isspacep.shared::cluster") };
    let text = String::from_utf8_lossy(&nvptx);
    assert!(text.contains("isspacep.shared::cluster"), "NVPTX keeps PTX's instruction:\n{text}");
    if let Some(verdict) = ptxr_tests::vendor_checks::ptxas_accepts(&nvptx, "sm_90", "isspacep-shared-cluster") {
        verdict.unwrap_or_else(|message| panic!("ptxas: {message}"));
    }
}

/// A 32-bit register in a 64-bit module (ptxas 12.9 takes it, and assembles the 32-bit form of
/// its query, `QSPC` without `.E`): the answer is that of the register's value zero-extended,
/// for a generic `.shared` and `.global` address cut to 32 bits, and for values with the top bit
/// set (a `.s32` register must not be sign-extended).
#[test]
fn a_32_bit_register_is_the_address_zero_extended() {
    let mut body = String::new();
    for (index, space) in FORMS.iter().enumerate() {
        body.push_str(&format!(
            "isspacep.{space} %p1, %narrow;\nselp.u32 %r1, 1, 0, %p1;\nshl.b32 %r1, %r1, {index};\nor.b32 %bits32, %bits32, %r1;\n\
             isspacep.{space} %p1, %wide;\nselp.u32 %r1, 1, 0, %p1;\nshl.b32 %r1, %r1, {index};\nor.b32 %bits64, %bits64, %r1;\n"
        ));
    }
    let ptx = format!(
        r#".version 7.8
.target sm_80
.address_size 64
.shared .align 4 .b32 shared_word;
.global .align 4 .b32 global_word;
.visible .entry narrow(.param .u64 output)
{{
    .reg .b32 %r<3>;
    .reg .s32 %narrow;
    .reg .b32 %bits32;
    .reg .b32 %bits64;
    .reg .b64 %rd<6>;
    .reg .b64 %wide;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [output];
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd2, %r2, 8;
    add.u64 %rd1, %rd1, %rd2;
    cvta.shared.u64 %rd3, shared_word;
    cvta.global.u64 %rd4, global_word;
    setp.eq.u32 %p1, %r2, 0;
    selp.b64 %rd5, %rd3, %rd4, %p1;
    cvt.u32.u64 %narrow, %rd5;
    setp.eq.u32 %p1, %r2, 2;
    @%p1 mov.s32 %narrow, -16;
    setp.eq.u32 %p1, %r2, 3;
    @%p1 mov.s32 %narrow, 0;
    cvt.u64.u32 %wide, %narrow;
    mov.b32 %bits32, 0;
    mov.b32 %bits64, 0;
{body}    st.global.u32 [%rd1], %bits32;
    st.global.u32 [%rd1+4], %bits64;
    st.shared.u32 [shared_word], %r2;
    st.global.u32 [global_word], %r2;
    ret;
}}
"#
    );
    let words = run_ok(&ptx, &Launch::threads(4), &[Buffer::zeroed("u32", 8)]).remove(0);
    for thread in 0..4 {
        assert_eq!(words[2 * thread], words[2 * thread + 1], "thread {thread}: 32-bit and zero-extended answers");
    }
}
