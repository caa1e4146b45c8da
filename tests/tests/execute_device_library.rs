//! Execution of CUDA's device library on the CPU (ptx-abi.md section 4.3): `vprintf` against
//! the text Rust's own formatting gives for the same values, `malloc`/`free` on the shared
//! device heap, `__assertfail`, and `trap` inside a called `.func`, which must end its caller
//! too. The kernels call these functions the way nvcc's output does: the format string in
//! `.global`, the arguments packed into a `.local` buffer, each aligned to its size.

use ptxr_tests::vendor_checks::{compile, Compiled, Validators};
use ptxr_tests::{run_printing, string_global, Buffer, Launch, Random, ASSERTFAIL_DECLARATION};

const HEADER: &str = ".version 7.8\n.target sm_80\n.address_size 64\n";

const VPRINTF: &str = ".extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 arguments);\n";
const MALLOC: &str = ".extern .func (.param .b64 pointer) malloc (.param .b64 size);\n\
                      .extern .func free (.param .b64 pointer);\n";

/// The `.param` sequence of a `vprintf` call with `format` (a `.global` name) and the argument
/// buffer at generic address `%buffer`; the status lands in `status`.
fn printf_call(format: &str, status: &str) -> String {
    format!(
        "{{\n\t.reg .b64 %format;\n\tcvta.global.u64 %format, {format};\n\t.param .b64 param0;\n\t\
         st.param.b64 [param0], %format;\n\t.param .b64 param1;\n\tst.param.b64 [param1], %buffer;\n\t\
         .param .b32 retval0;\n\tcall.uni (retval0), vprintf, (param0, param1);\n\tld.param.b32 {status}, [retval0];\n\t}}\n"
    )
}

#[test]
fn printf_formats_like_c_and_keeps_each_line_whole() {
    // Each thread prints its index, a derived unsigned value in hex and decimal, a double with
    // width and precision, a string and a 64-bit value: every argument kind of the promotion rules.
    let format = "thread %3d: %u %#x [%8.3f] %s %lld %c|%-4d|\n";
    let ptx = format!(
        "{HEADER}{VPRINTF}{}{}\
         .visible .entry test(.param .u64 output)\n{{\n\
         .local .align 8 .b8 depot[48];\n\
         .reg .b32 %r<6>;\n.reg .b64 %rd<8>;\n.reg .b64 %buffer, %local;\n.reg .f64 %fd1;\n\
         mov.u64 %local, depot;\ncvta.local.u64 %buffer, %local;\n\
         mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\nmad.lo.u32 %r1, %r1, %r2, %r3;\n\
         mul.lo.u32 %r2, %r1, 2654435761;\n\
         cvt.rn.f64.u32 %fd1, %r1;\nmul.f64 %fd1, %fd1, 0dBFF4000000000000;\n\
         cvt.u64.u32 %rd1, %r1;\nshl.b64 %rd1, %rd1, 40;\nneg.s64 %rd1, %rd1;\n\
         cvta.global.u64 %rd2, word;\n\
         st.local.u32 [%local], %r1;\nst.local.u32 [%local+4], %r2;\nst.local.u32 [%local+8], %r2;\n\
         st.local.f64 [%local+16], %fd1;\nst.local.u64 [%local+24], %rd2;\nst.local.u64 [%local+32], %rd1;\n\
         add.u32 %r4, %r3, 65;\nst.local.u32 [%local+40], %r4;\nst.local.u32 [%local+44], %r3;\n\
         {}\
         ld.param.u64 %rd3, [output];\nmul.wide.u32 %rd4, %r1, 4;\nadd.u64 %rd3, %rd3, %rd4;\n\
         st.global.u32 [%rd3], %r5;\nret;\n}}\n",
        string_global("format_text", format),
        string_global("word", "word"),
        printf_call("format_text", "%r5")
    );
    let blocks = 3;
    let threads = 32;
    let launch = Launch { grid: [blocks, 1, 1], block: [threads, 1, 1], ..Launch::default() };
    let count = (blocks * threads) as usize;
    let (text, result) = run_printing(&ptx, &launch, &[Buffer::zeroed("u32", count)]);
    let result = result.unwrap_or_else(|error| panic!("{error}\n{ptx}"));
    // vprintf returns the number of arguments it read.
    assert_eq!(result[0], vec![8; count]);
    let mut expected: Vec<String> = (0..count as u32)
        .map(|index| {
            let hashed = index.wrapping_mul(2_654_435_761);
            let hex = if hashed == 0 { "0".to_string() } else { format!("{hashed:#x}") };
            let double = f64::from(index) * -1.25;
            let wide = -(i64::from(index) << 40);
            let character = char::from(b'A' + (index % threads) as u8);
            let lane = index % threads;
            format!("thread {index:3}: {hashed} {hex} [{double:8.3}] word {wide} {character}|{lane:<4}|")
        })
        .collect();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    expected.sort();
    lines.sort();
    assert_eq!(lines, expected);
}

#[test]
fn printf_without_arguments_and_with_percent_signs() {
    let ptx = format!(
        "{HEADER}{VPRINTF}{}.visible .entry test(.param .u64 output)\n{{\n\
         .reg .b32 %r<2>;\n.reg .b64 %rd<3>;\n.reg .b64 %buffer;\nmov.u64 %buffer, 0;\n{}\
         ld.param.u64 %rd1, [output];\nst.global.u32 [%rd1], %r1;\nret;\n}}\n",
        string_global("plain", "100%% done\n"),
        printf_call("plain", "%r1")
    );
    let (text, result) = run_printing(&ptx, &Launch::threads(1), &[Buffer::zeroed("u32", 1)]);
    assert_eq!(result.expect("the launch runs")[0], vec![0]);
    assert_eq!(text, "100% done\n");
}

/// A kernel where every thread allocates `16 * tid + 8` bytes, fills them with its index, meets
/// the block at a barrier (so every block is live at once), sums its whole block back, stores
/// the sum and the address, and frees the block.
fn heap_kernel() -> String {
    format!(
        "{HEADER}{MALLOC}.visible .entry test(.param .u64 sums, .param .u64 addresses)\n{{\n\
         .reg .b32 %r<8>;\n.reg .b64 %rd<12>;\n.reg .pred %p<3>;\n\
         mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd1, %r1, 16;\nadd.u64 %rd1, %rd1, 8;\n\
         {{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd1;\n\t.param .b64 retval0;\n\t\
         call.uni (retval0), malloc, (param0);\n\tld.param.b64 %rd2, [retval0];\n\t}}\n\
         shr.u64 %rd3, %rd1, 2;\nmov.u64 %rd4, 0;\n\
         FILL:\nshl.b64 %rd5, %rd4, 2;\nadd.u64 %rd5, %rd2, %rd5;\nst.u32 [%rd5], %r1;\n\
         add.u64 %rd4, %rd4, 1;\nsetp.lt.u64 %p1, %rd4, %rd3;\n@%p1 bra FILL;\n\
         bar.sync 0;\n\
         mov.u64 %rd4, 0;\nmov.u32 %r2, 0;\n\
         SUM:\nshl.b64 %rd5, %rd4, 2;\nadd.u64 %rd5, %rd2, %rd5;\nld.u32 %r3, [%rd5];\nadd.u32 %r2, %r2, %r3;\n\
         add.u64 %rd4, %rd4, 1;\nsetp.lt.u64 %p1, %rd4, %rd3;\n@%p1 bra SUM;\n\
         ld.param.u64 %rd6, [sums];\nmul.wide.u32 %rd7, %r1, 4;\nadd.u64 %rd6, %rd6, %rd7;\nst.global.u32 [%rd6], %r2;\n\
         ld.param.u64 %rd8, [addresses];\nmul.wide.u32 %rd7, %r1, 8;\nadd.u64 %rd8, %rd8, %rd7;\nst.global.u64 [%rd8], %rd2;\n\
         {{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd2;\n\tcall.uni free, (param0);\n\t}}\n\
         ret;\n}}\n"
    )
}

#[test]
fn malloc_gives_disjoint_aligned_blocks_and_free_returns_them() {
    let threads = 64;
    let ptx = heap_kernel();
    // Twice in a row: freed blocks are reused, so the heap never runs out.
    for _ in 0..2 {
        let (_, result) = run_printing(
            &ptx,
            &Launch::threads(threads),
            &[Buffer::zeroed("u32", threads as usize), Buffer::zeroed("u64", threads as usize)],
        );
        let result = result.unwrap_or_else(|error| panic!("{error}"));
        let mut blocks: Vec<(u64, u64)> = Vec::new();
        for thread in 0..u64::from(threads) {
            let words = (16 * thread + 8) / 4;
            assert_eq!(result[0][thread as usize], thread * words, "thread {thread} read back another's data");
            let address = result[1][thread as usize];
            assert!(address != 0 && address % 16 == 0, "thread {thread}: address {address:#x}");
            blocks.push((address, address + 16 * thread + 8));
        }
        blocks.sort_unstable();
        for pair in blocks.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "overlapping blocks {pair:?}");
        }
    }
}

/// A kernel that asks for 2^40 bytes and stores the pointer it gets.
fn too_large_kernel() -> String {
    format!(
        "{HEADER}{MALLOC}.visible .entry test(.param .u64 output)\n{{\n.reg .b64 %rd<4>;\n\
         {{\n\t.param .b64 param0;\n\tst.param.b64 [param0], 1099511627776;\n\t.param .b64 retval0;\n\t\
         call.uni (retval0), malloc, (param0);\n\tld.param.b64 %rd1, [retval0];\n\t}}\n\
         ld.param.u64 %rd2, [output];\nst.global.u64 [%rd2], %rd1;\nret;\n}}\n"
    )
}

#[test]
fn malloc_returns_null_when_nothing_fits() {
    let (_, result) = run_printing(&too_large_kernel(), &Launch::threads(1), &[Buffer::new("u64", vec![u64::MAX])]);
    assert_eq!(result.expect("the launch runs")[0], vec![0]);
}

/// A module where a `.func` allocates and frees, beside `vprintf` and a `trap` that may stop
/// the kernel: the module's heap on AMDGPU and SPIR-V must live with the printf lowering and
/// SPIR-V's trap status kernel.
fn heap_in_a_function_kernel() -> String {
    format!(
        "{HEADER}{MALLOC}{VPRINTF}{}\
         .func (.param .b64 result) scratch (.param .b64 bytes)\n{{\n.reg .b64 %rd<4>;\n\
         ld.param.b64 %rd1, [bytes];\n\
         {{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd1;\n\t.param .b64 retval0;\n\t\
         call.uni (retval0), malloc, (param0);\n\tld.param.b64 %rd2, [retval0];\n\t}}\n\
         {{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd2;\n\tcall.uni free, (param0);\n\t}}\n\
         st.param.b64 [result], %rd2;\nret;\n}}\n\
         .visible .entry test(.param .u64 output)\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd<8>;\n.reg .pred %p1;\n\
         {{\n\t.param .b64 param0;\n\tst.param.b64 [param0], 48;\n\t.param .b64 retval0;\n\t\
         call.uni (retval0), scratch, (param0);\n\tld.param.b64 %rd1, [retval0];\n\t}}\n\
         ld.param.u64 %rd2, [output];\nst.global.u64 [%rd2], %rd1;\n\
         .reg .b64 %buffer;\nmov.u64 %buffer, 0;\n{}\
         setp.eq.u64 %p1, %rd1, 0;\n@%p1 trap;\nret;\n}}\n",
        string_global("message", "allocated\n"),
        printf_call("message", "%r1")
    )
}

#[test]
fn the_heap_kernels_compile_for_amdgpu_and_spirv_and_pass_the_vendors_checks() {
    // AMDGPU and SPIR-V bring their own heap (`intrinsics/src/device_heap.rs`); its execution is
    // tested in `execute_device_heap.rs`.
    let validators = Validators::find();
    let scratch = std::env::temp_dir().join(format!("ptxr-device-library-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let kernels =
        [("heap", heap_kernel()), ("too_large", too_large_kernel()), ("function", heap_in_a_function_kernel())];
    for (name, ptx) in &kernels {
        for target in ["amdgpu", "spirv"] {
            let artefact = match compile(ptx, target) {
                Compiled::Artefact(artefact) => artefact,
                Compiled::Unsupported(messages) => panic!("{name} on {target}: {messages:?}"),
                Compiled::Rejected(message) => panic!("{name} on {target}: {message}"),
            };
            if let Some(validators) = &validators {
                validators
                    .check(target, name, ptx, &artefact, &scratch)
                    .unwrap_or_else(|message| panic!("{name}: {message}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn a_failed_assertion_stops_the_launch_with_cudas_message() {
    let ptx = format!(
        "{HEADER}{ASSERTFAIL_DECLARATION}{VPRINTF}{}{}{}{}\
         .visible .entry test(.param .u64 output)\n{{\n\
         .reg .b32 %r<3>;\n.reg .b64 %rd<8>;\n.reg .b64 %buffer, %local;\n.reg .pred %p1;\n\
         .local .align 4 .b8 depot[4];\nmov.u64 %local, depot;\ncvta.local.u64 %buffer, %local;\n\
         mov.u32 %r1, %tid.x;\nsetp.ne.u32 %p1, %r1, 5;\n@%p1 bra FINE;\n\
         cvta.global.u64 %rd1, message;\ncvta.global.u64 %rd2, file;\ncvta.global.u64 %rd3, function;\n\
         {{\n\t.param .b64 param0;\n\tst.param.b64 [param0], %rd1;\n\t.param .b64 param1;\n\tst.param.b64 [param1], %rd2;\n\t\
         .param .b32 param2;\n\tst.param.b32 [param2], 42;\n\t.param .b64 param3;\n\tst.param.b64 [param3], %rd3;\n\t\
         .param .b64 param4;\n\tst.param.b64 [param4], 1;\n\t\
         call.uni __assertfail, (param0, param1, param2, param3, param4);\n\t}}\n\
         FINE:\nst.local.u32 [%local], %r1;\n{}\
         ret;\n}}\n",
        string_global("message", "index != 5"),
        string_global("file", "kernel.cu"),
        string_global("function", "void test(int *)"),
        string_global("after", "after %d\n"),
        printf_call("after", "%r2")
    );
    let (text, result) = run_printing(&ptx, &Launch::threads(8), &[Buffer::zeroed("u32", 1)]);
    let error = result.expect_err("the assertion fails the launch");
    assert!(
        error.contains("thread (5, 0, 0): kernel.cu:42: void test(int *): Assertion `index != 5` failed."),
        "{error}"
    );
    // The asserting thread went no further; the block's other threads finished.
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["after 0", "after 1", "after 2", "after 3", "after 4", "after 6", "after 7"]);
}

#[test]
fn trap_in_a_called_function_ends_its_callers() {
    // `check` traps on 5; `middle` calls it and prints afterwards; the kernel prints after
    // `middle` returns. Thread 5 must print neither line: the trap ends every caller.
    let ptx = format!(
        "{HEADER}{VPRINTF}{}{}\
         .func check (.param .b32 value)\n{{\n.reg .b32 %v;\n.reg .pred %q;\nld.param.b32 %v, [value];\n\
         setp.eq.u32 %q, %v, 5;\n@%q trap;\nret;\n}}\n\
         .func (.param .b32 result) middle (.param .b32 value)\n{{\n.reg .b32 %m<3>;\n.reg .b64 %buffer, %local;\n\
         .local .align 4 .b8 depot[4];\nmov.u64 %local, depot;\ncvta.local.u64 %buffer, %local;\n\
         ld.param.b32 %m1, [value];\n{{\n\t.param .b32 argument;\n\tst.param.b32 [argument], %m1;\n\t\
         call.uni check, (argument);\n\t}}\nst.local.u32 [%local], %m1;\n{}\
         st.param.b32 [result], %m1;\nret;\n}}\n\
         .visible .entry test(.param .u64 output)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<3>;\n.reg .b64 %buffer, %local;\n\
         .local .align 4 .b8 depot[4];\nmov.u64 %local, depot;\ncvta.local.u64 %buffer, %local;\n\
         mov.u32 %r1, %tid.x;\n{{\n\t.param .b32 argument;\n\tst.param.b32 [argument], %r1;\n\t.param .b32 returned;\n\t\
         call.uni (returned), middle, (argument);\n\tld.param.b32 %r2, [returned];\n\t}}\n\
         st.local.u32 [%local], %r2;\n{}ret;\n}}\n",
        string_global("in_middle", "middle %d\n"),
        string_global("in_kernel", "kernel %d\n"),
        printf_call("in_middle", "%m2"),
        printf_call("in_kernel", "%r3")
    );
    let (text, result) = run_printing(&ptx, &Launch::threads(8), &[Buffer::zeroed("u32", 1)]);
    let error = result.expect_err("the trap fails the launch");
    assert!(error.contains("trap"), "{error}");
    let lines: Vec<&str> = text.lines().collect();
    // Threads before the trapping one ran whole; the trapping one printed nothing.
    for thread in 0..5 {
        for line in [format!("middle {thread}"), format!("kernel {thread}")] {
            assert!(lines.contains(&line.as_str()), "{line} is missing: {lines:?}");
        }
    }
    assert!(!lines.iter().any(|line| line.ends_with(" 5")), "thread 5 went on after the trap: {lines:?}");
    // Later threads of the block stop at their next call that may trap (the launch has failed),
    // but never leave a callee without ending its caller.
    for thread in 6..8 {
        if lines.contains(&format!("kernel {thread}").as_str()) {
            assert!(lines.contains(&format!("middle {thread}").as_str()), "{lines:?}");
        }
    }
}

#[test]
fn printf_of_random_integers_matches_rusts_formatting() {
    // A property test: random 32- and 64-bit values through `%d %u %x %o %lld %llx`.
    let mut random = Random::new(41);
    let count = 64;
    let values: Vec<u64> = (0..count).map(|_| random.next_u64()).collect();
    let format = "%d %u %x %o %lld %llx\n";
    let ptx = format!(
        "{HEADER}{VPRINTF}{}.visible .entry test(.param .u64 input, .param .u64 output)\n{{\n\
         .local .align 8 .b8 depot[32];\n.reg .b32 %r<6>;\n.reg .b64 %rd<8>;\n.reg .b64 %buffer, %local;\n\
         mov.u64 %local, depot;\ncvta.local.u64 %buffer, %local;\n\
         mov.u32 %r1, %tid.x;\nld.param.u64 %rd1, [input];\nmul.wide.u32 %rd2, %r1, 8;\nadd.u64 %rd1, %rd1, %rd2;\n\
         ld.global.u64 %rd3, [%rd1];\ncvt.u32.u64 %r2, %rd3;\n\
         st.local.u32 [%local], %r2;\nst.local.u32 [%local+4], %r2;\nst.local.u32 [%local+8], %r2;\n\
         st.local.u32 [%local+12], %r2;\nst.local.u64 [%local+16], %rd3;\nst.local.u64 [%local+24], %rd3;\n{}\
         ret;\n}}\n",
        string_global("format_text", format),
        printf_call("format_text", "%r3")
    );
    let (text, result) =
        run_printing(&ptx, &Launch::threads(count as u32), &[Buffer::u64s(&values), Buffer::zeroed("u32", 1)]);
    result.unwrap_or_else(|error| panic!("{error}"));
    let lines: Vec<&str> = text.lines().collect();
    let expected: Vec<String> = values
        .iter()
        .map(|&value| {
            let low = value as u32;
            format!("{} {low} {low:x} {low:o} {} {value:x}", low as i32, value as i64)
        })
        .collect();
    // One block runs its threads in order.
    assert_eq!(lines, expected);
}

#[test]
fn thirty_two_bit_modules_allocate_below_4_gib_and_print_32_bit_pointers() {
    // With `.address_size 32` pointers are `.b32`: the heap lies below 4 GiB, and `%s` reads a
    // 4-byte pointer from the argument buffer (here a heap block, as `.local` addresses of the
    // CPU's thread stacks do not fit 32 bits).
    let ptx = format!(
        ".version 7.8\n.target sm_80\n.address_size 32\n\
         .extern .func (.param .b32 pointer) malloc (.param .b32 size);\n\
         .extern .func free (.param .b32 pointer);\n\
         .extern .func (.param .b32 status) vprintf (.param .b32 format, .param .b32 arguments);\n\
         {}{}.visible .entry test(.param .u32 output)\n{{\n.reg .b32 %r<8>;\n\
         {{\n\t.param .b32 param0;\n\tst.param.b32 [param0], 8;\n\t.param .b32 retval0;\n\t\
         call.uni (retval0), malloc, (param0);\n\tld.param.b32 %r1, [retval0];\n\t}}\n\
         cvta.global.u32 %r2, word;\nst.u32 [%r1], %r2;\nst.u32 [%r1+4], 5;\ncvta.global.u32 %r3, format_text;\n\
         {{\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r3;\n\t.param .b32 param1;\n\tst.param.b32 [param1], %r1;\n\t\
         .param .b32 retval0;\n\tcall.uni (retval0), vprintf, (param0, param1);\n\tld.param.b32 %r4, [retval0];\n\t}}\n\
         ld.u32 %r5, [%r1+4];\nld.param.u32 %r6, [output];\nst.global.u32 [%r6], %r1;\nst.global.u32 [%r6+4], %r5;\n\
         st.global.u32 [%r6+8], %r4;\n\
         {{\n\t.param .b32 param0;\n\tst.param.b32 [param0], %r1;\n\tcall.uni free, (param0);\n\t}}\nret;\n}}\n",
        string_global("word", "word"),
        string_global("format_text", "%s|%d\n")
    );
    let (text, result) = run_printing(&ptx, &Launch::threads(1), &[Buffer::zeroed("u32", 3)]);
    let result = result.unwrap_or_else(|error| panic!("{error}\n{ptx}"));
    assert_ne!(result[0][0], 0, "malloc gave no block");
    assert_eq!(result[0][0] % 16, 0);
    assert_eq!(result[0][1..], [5, 2]);
    assert_eq!(text, "word|5\n");
}

#[test]
fn the_address_of_a_device_library_function_is_reported() {
    let ptx = format!(
        "{HEADER}{VPRINTF}.visible .entry test(.param .u64 output)\n{{\n.reg .b64 %rd<3>;\n\
         mov.u64 %rd1, vprintf;\nld.param.u64 %rd2, [output];\nst.global.u64 [%rd2], %rd1;\nret;\n}}\n"
    );
    let (_, result) = run_printing(&ptx, &Launch::threads(1), &[Buffer::zeroed("u64", 1)]);
    let error = result.expect_err("no address to take");
    assert!(error.contains("unsupported: the address of `vprintf` on cpu"), "{error}");
}

#[test]
fn the_address_of_a_device_library_function_in_an_initializer_is_reported() {
    // A table of function pointers (nvcc's `-rdc=true` output) naming `vprintf`, whose calls
    // are lowered in place: there is no function to point at.
    let ptx = format!(
        "{HEADER}{VPRINTF}.visible .global .align 8 .u64 table[1] = {{vprintf}};\n\
         .visible .entry test(.param .u64 output)\n{{\n.reg .b64 %rd<3>;\n\
         ld.global.u64 %rd1, [table];\nld.param.u64 %rd2, [output];\nst.global.u64 [%rd2], %rd1;\nret;\n}}\n"
    );
    let (_, result) = run_printing(&ptx, &Launch::threads(1), &[Buffer::zeroed("u64", 1)]);
    let error = result.expect_err("no address to store");
    assert!(error.contains("unsupported: the address of `vprintf` on cpu"), "{error}");
}

#[test]
fn trap_in_a_function_called_by_a_kernel_with_barriers_ends_the_thread() {
    // The kernel meets at a barrier, so its threads are coroutines; thread 3's callee traps, and
    // thread 3 must neither print nor reach the second barrier's side.
    let ptx = format!(
        "{HEADER}{VPRINTF}{}\
         .func check (.param .b32 value)\n{{\n.reg .b32 %v;\n.reg .pred %q;\nld.param.b32 %v, [value];\n\
         setp.eq.u32 %q, %v, 3;\n@%q trap;\nret;\n}}\n\
         .visible .entry test(.param .u64 output)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %buffer, %local;\n\
         .local .align 4 .b8 depot[4];\nmov.u64 %local, depot;\ncvta.local.u64 %buffer, %local;\n\
         mov.u32 %r1, %tid.x;\nbar.sync 0;\n{{\n\t.param .b32 argument;\n\tst.param.b32 [argument], %r1;\n\t\
         call.uni check, (argument);\n\t}}\nst.local.u32 [%local], %r1;\n{}bar.sync 0;\nret;\n}}\n",
        string_global("after", "after %d\n"),
        printf_call("after", "%r2")
    );
    let (text, result) = run_printing(&ptx, &Launch::threads(8), &[Buffer::zeroed("u32", 1)]);
    let error = result.expect_err("the trap fails the launch");
    assert!(error.contains("trap"), "{error}");
    assert!(!text.lines().any(|line| line == "after 3"), "thread 3 went on: {text}");
    assert!(text.lines().any(|line| line == "after 0"), "thread 0 ran before the trap: {text}");
}
