//! The SPIR-V launch arguments (docs/TARGETS.md, "The launch arguments"): what OpenCL does not
//! tell a kernel, `%gridid` (ISA 7.8 section 10.10), `%dynamic_smem_size` (10.31),
//! `%total_smem_size` (10.30) and where dynamic shared memory ends for `isspacep.shared`
//! (9.7.8.16), comes from one by-value `ulong8` argument after the PTX parameters, which only
//! the kernels of modules that need it take.
//!
//! Each kernel runs on the CPU and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on
//! SPIR-V through OpenCL; expected values come from the launch and the spec's definitions:
//! shared memory is the static variables (allocated in 16-byte units, where the dynamic part
//! begins) followed by the launch's dynamic bytes.

use ptxr_tests::vendor_checks::{compile, spirv_environment, spirv_val, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

/// Words each block's thread 0 writes.
const WORDS_PER_BLOCK: usize = 8;

/// Thread 0 of each block writes, at `out[8 * %ctaid.x]`: %dynamic_smem_size,
/// %total_smem_size, %gridid (two words, read in a `.func`, so that calls pass the launch
/// arguments on), then `isspacep.shared` as 0 or 1 of the dynamic part's first byte, of the
/// byte before the dynamic part's end, of its end, and of the static variable. 20 bytes of
/// static shared memory, written so that they are used.
const LAUNCH: &str = r#".version 7.8
.target sm_80
.address_size 64

.extern .shared .align 16 .b8 dynamic_part[];
.shared .align 4 .b32 static_part[5];

.func (.param .b64 id) launch_id()
{
    .reg .b64 %g;
    mov.u64 %g, %gridid;
    st.param.b64 [id], %g;
    ret;
}

.visible .entry launch(.param .u64 output)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .reg .pred %p<6>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [output];
    mov.u32 %r2, %ctaid.x;
    mul.wide.u32 %rd2, %r2, 32;
    add.u64 %rd1, %rd1, %rd2;
    mov.u32 %r3, %dynamic_smem_size;
    st.global.u32 [%rd1], %r3;
    mov.u32 %r4, %total_smem_size;
    st.global.u32 [%rd1+4], %r4;
    {
        .param .b64 id;
        call.uni (id), launch_id, ();
        ld.param.b64 %rd3, [id];
    }
    st.global.u64 [%rd1+8], %rd3;
    mov.u64 %rd4, dynamic_part;
    cvta.shared.u64 %rd5, %rd4;
    cvt.u64.u32 %rd6, %r3;
    add.u64 %rd7, %rd5, %rd6;
    add.u64 %rd8, %rd7, -1;
    mov.u64 %rd9, static_part;
    cvta.shared.u64 %rd10, %rd9;
    isspacep.shared %p2, %rd5;
    isspacep.shared %p3, %rd8;
    isspacep.shared %p4, %rd7;
    isspacep.shared %p5, %rd10;
    selp.u32 %r5, 1, 0, %p2;
    selp.u32 %r6, 1, 0, %p3;
    selp.u32 %r7, 1, 0, %p4;
    selp.u32 %r8, 1, 0, %p5;
    st.global.u32 [%rd1+16], %r5;
    st.global.u32 [%rd1+20], %r6;
    st.global.u32 [%rd1+24], %r7;
    st.global.u32 [%rd1+28], %r8;
    st.shared.u32 [static_part+16], %r3;
DONE:
    ret;
}
"#;

/// ptxr's shared memory allocation unit: the static part ends on a multiple of 16 bytes.
fn allocated(bytes: u32) -> u32 {
    bytes.div_ceil(16) * 16
}

fn launch_shape(shared_bytes: u32) -> Launch<'static> {
    Launch { grid: [3, 1, 1], block: [2, 1, 1], shared_bytes, ..Launch::default() }
}

fn buffers() -> Vec<Buffer> {
    vec![Buffer::zeroed("u32", WORDS_PER_BLOCK * 3)]
}

/// The grid id that every block of `words` wrote, checked to be one and not 0.
fn grid_id_of(words: &[u64], device: &str) -> u64 {
    let id = |block: &[u64]| block[2] | (block[3] << 32);
    let first = id(&words[..WORDS_PER_BLOCK]);
    assert_ne!(first, 0, "{device}: %gridid");
    for (index, block) in words.chunks(WORDS_PER_BLOCK).enumerate() {
        assert_eq!(id(block), first, "{device}: block {index}: one %gridid per launch");
    }
    first
}

/// Checks one launch's words against the model for `shared_bytes` of dynamic shared memory.
fn check_launch(words: &[u64], shared_bytes: u32, device: &str) {
    grid_id_of(words, device);
    let window = u64::from(allocated(20) + shared_bytes);
    for (index, block) in words.chunks(WORDS_PER_BLOCK).enumerate() {
        assert_eq!(block[0], u64::from(shared_bytes), "{device}: block {index}: %dynamic_smem_size");
        assert_eq!(block[1], window, "{device}: block {index}: %total_smem_size");
        // The dynamic part starts at offset 32 of a window of `window` bytes: its first byte is
        // shared memory only when the launch gives it bytes, its last byte (or, without
        // dynamic bytes, the static part's last) always, the byte past its end never.
        let isspacep = [block[4], block[5], block[6], block[7]];
        assert_eq!(isspacep, [u64::from(shared_bytes > 0), 1, 0, 1], "{device}: block {index}: isspacep.shared");
    }
}

fn validate_spirv(ptx: &str) {
    let Compiled::Artefact(binary) = compile(ptx, "spirv") else { panic!("no SPIR-V for\n{ptx}") };
    if let Some(Err(message)) = spirv_val(&binary, &spirv_environment(&binary), "spirv-launch-arguments") {
        panic!("spirv-val: {message}\n{ptx}");
    }
}

#[test]
fn launch_registers_describe_the_launch() {
    for shared_bytes in [40, 0] {
        for (device, result) in opencl::run_everywhere(LAUNCH, &launch_shape(shared_bytes), &buffers(), OPENCL_CHILD) {
            check_launch(&result[0], shared_bytes, &format!("{device}, {shared_bytes} dynamic bytes"));
        }
    }
    validate_spirv(LAUNCH);
}

/// Section 10.10: `%gridid` tells the launches of a process apart. Two launches in one OpenCL
/// child process (the runner numbers them) and two on the CPU.
#[test]
fn every_launch_has_its_own_grid_id() {
    let cpu = [24, 24].map(|bytes| ptxr_tests::run_ok(LAUNCH, &launch_shape(bytes), &buffers()).remove(0));
    assert_ne!(grid_id_of(&cpu[0], "cpu"), grid_id_of(&cpu[1], "cpu"), "cpu: two launches share %gridid");
    if !opencl::available() {
        return;
    }
    let launches = opencl::run_in_one_process(LAUNCH, &launch_shape(24), &buffers(), OPENCL_CHILD, 2)
        .unwrap_or_else(|failure| panic!("{failure}"));
    for words in &launches {
        check_launch(&words[0], 24, "spirv");
    }
    assert_ne!(
        grid_id_of(&launches[0][0], "spirv"),
        grid_id_of(&launches[1][0], "spirv"),
        "spirv: two launches share %gridid"
    );
}

/// The type of each parameter of the SPIR-V kernel `name`: `ulong8` for a vector of eight 64-bit
/// integers (the launch arguments), `ulong` for a 64-bit integer, `other` for anything else.
fn kernel_parameter_types(binary: &[u8], name: &str) -> Vec<&'static str> {
    const ENTRY_POINT: u32 = 15;
    const TYPE_INT: u32 = 21;
    const TYPE_VECTOR: u32 = 23;
    const FUNCTION: u32 = 54;
    const FUNCTION_PARAMETER: u32 = 55;
    const FUNCTION_END: u32 = 56;
    let words: Vec<u32> =
        binary.chunks_exact(4).map(|bytes| u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])).collect();
    let mut instructions = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        assert!(count > 0 && at + count <= words.len(), "a malformed SPIR-V instruction at word {at}");
        instructions.push((words[at] & 0xffff, &words[at + 1..at + count]));
        at += count;
    }
    let literal = |operands: &[u32]| -> String {
        let bytes: Vec<u8> =
            operands.iter().flat_map(|word| word.to_le_bytes()).take_while(|&byte| byte != 0).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    let entry = instructions
        .iter()
        .find(|(opcode, operands)| *opcode == ENTRY_POINT && literal(&operands[2..]) == name)
        .map(|(_, operands)| operands[1])
        .unwrap_or_else(|| panic!("no kernel `{name}`"));
    let int_width = |id: u32| {
        instructions.iter().find(|(opcode, operands)| *opcode == TYPE_INT && operands[0] == id).map(|(_, o)| o[1])
    };
    let describe = |type_id: u32| -> &'static str {
        for (opcode, operands) in &instructions {
            if operands.first() != Some(&type_id) {
                continue;
            }
            match *opcode {
                TYPE_INT if operands[1] == 64 => return "ulong",
                TYPE_VECTOR if operands[2] == 8 && int_width(operands[1]) == Some(64) => return "ulong8",
                _ => {}
            }
        }
        "other"
    };
    let start = instructions
        .iter()
        .position(|(opcode, operands)| *opcode == FUNCTION && operands[1] == entry)
        .unwrap_or_else(|| panic!("no function for kernel `{name}`"));
    instructions[start + 1..]
        .iter()
        .take_while(|(opcode, _)| *opcode != FUNCTION_END)
        .filter(|(opcode, _)| *opcode == FUNCTION_PARAMETER)
        .map(|(_, operands)| describe(operands[0]))
        .collect()
}

/// A kernel takes the launch arguments only where its module needs them: its PTX parameter,
/// the launch arguments, then the `__local` window. Kernels that need nothing of the launch,
/// with or without shared memory, dynamic or not (`isspacep.shared` without dynamic shared
/// memory, `isspacep.const`, and registers such as `%smid` need nothing), keep exactly their PTX
/// parameters and the window.
#[test]
fn only_modules_that_need_them_take_the_launch_arguments() {
    let binary = |ptx: &str| match compile(ptx, "spirv") {
        Compiled::Artefact(binary) => binary,
        _ => panic!("no SPIR-V for\n{ptx}"),
    };
    assert_eq!(kernel_parameter_types(&binary(LAUNCH), "launch"), ["ulong", "ulong8", "other"]);
    let kernel = |declarations: &str, body: &str| {
        format!(
            ".version 7.8\n.target sm_80\n.address_size 64\n{declarations}\n.visible .entry test(.param .u64 output)\n{{\n    \
             .reg .pred %p1;\n    .reg .b32 %r<3>;\n    .reg .b64 %rd<3>;\n    ld.param.u64 %rd1, [output];\n    \
             {body}\n    ret;\n}}\n"
        )
    };
    let dynamic = ".extern .shared .align 16 .b8 dynamic[];";
    let fixed = ".shared .align 16 .b8 tile[64];";
    let cases = [
        (kernel("", "mov.u32 %r1, %smid; st.global.u32 [%rd1], %r1;"), vec!["ulong"]),
        (
            kernel(fixed, "isspacep.shared %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1], %r1;"),
            vec!["ulong", "other"],
        ),
        (kernel(dynamic, "ld.shared.u32 %r1, [dynamic]; st.global.u32 [%rd1], %r1;"), vec!["ulong", "other"]),
        (kernel("", "mov.u64 %rd2, %gridid; st.global.u64 [%rd1], %rd2;"), vec!["ulong", "ulong8"]),
        (
            kernel(dynamic, "isspacep.shared %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1], %r1;"),
            vec!["ulong", "ulong8", "other"],
        ),
        // `.const` is the module's own variables; `.global`, `.local` and `.param` need the
        // launch's buffers or the kernel's parameter window.
        (kernel("", "isspacep.const %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1], %r1;"), vec!["ulong"]),
        (
            kernel("", "isspacep.global %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1], %r1;"),
            vec!["ulong", "ulong8"],
        ),
        (
            kernel(fixed, "isspacep.local %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1], %r1;"),
            vec!["ulong", "ulong8", "other"],
        ),
        (
            kernel("", "isspacep.param %p1, %rd1; selp.u32 %r1, 1, 0, %p1; st.global.u32 [%rd1], %r1;"),
            vec!["ulong", "ulong8"],
        ),
    ];
    for (ptx, expected) in cases {
        assert_eq!(kernel_parameter_types(&binary(&ptx), "test"), expected, "\n{ptx}");
        validate_spirv(&ptx);
    }
    // `%globaltimer` takes them too, and its module brings the clock calibration kernel.
    let timer = binary(&kernel("", "mov.u64 %rd2, %globaltimer; st.global.u64 [%rd1], %rd2;"));
    assert_eq!(kernel_parameter_types(&timer, "test"), ["ulong", "ulong8"]);
    assert_eq!(kernel_parameter_types(&timer, ptxr_runtime::abi::opencl::CLOCK_CALIBRATION_KERNEL), ["other"]);
}

/// The bytes of each buffer of [`BUFFER_RANGES`]: 16 `u32`s, 5 `u32`s, 3 `u64`s.
const BUFFER_BYTES: [u64; 3] = [64, 20, 24];

/// Thread 0 asks `isspacep.global` of the first byte, the last byte and the end of each of its
/// three buffers (the launch's buffer table on SPIR-V lists all three), and stores the nine
/// answers as 0 or 1 into the first buffer, in that order.
const BUFFER_RANGES: &str = r#".version 7.8
.target sm_80
.address_size 64

.func (.param .b32 inside) is_global(.param .b64 address)
{
    .reg .b64 %a;
    .reg .pred %p;
    .reg .b32 %r;
    ld.param.u64 %a, [address];
    isspacep.global %p, %a;
    selp.u32 %r, 1, 0, %p;
    st.param.b32 [inside], %r;
    ret;
}

.visible .entry ranges(.param .u64 first, .param .u64 second, .param .u64 third)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;
    .reg .pred %p<12>;
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    ld.param.u64 %rd1, [first];
    ld.param.u64 %rd2, [second];
    ld.param.u64 %rd3, [third];
    isspacep.global %p2, %rd1;
    add.u64 %rd4, %rd1, 63;
    isspacep.global %p3, %rd4;
    add.u64 %rd4, %rd1, 64;
    isspacep.global %p4, %rd4;
    isspacep.global %p5, %rd2;
    add.u64 %rd4, %rd2, 19;
    isspacep.global %p6, %rd4;
    add.u64 %rd4, %rd2, 20;
    isspacep.global %p7, %rd4;
    add.u64 %rd4, %rd3, 23;
    isspacep.global %p9, %rd4;
    add.u64 %rd4, %rd3, 24;
    isspacep.global %p10, %rd4;
    {
        .param .b64 address;
        .param .b32 inside;
        st.param.b64 [address], %rd3;
        call.uni (inside), is_global, (address);
        ld.param.b32 %r8, [inside];
    }
    selp.u32 %r2, 1, 0, %p2;
    selp.u32 %r3, 1, 0, %p3;
    selp.u32 %r4, 1, 0, %p4;
    selp.u32 %r5, 1, 0, %p5;
    selp.u32 %r6, 1, 0, %p6;
    selp.u32 %r7, 1, 0, %p7;
    selp.u32 %r9, 1, 0, %p9;
    selp.u32 %r10, 1, 0, %p10;
    st.global.u32 [%rd1], %r2;
    st.global.u32 [%rd1+4], %r3;
    st.global.u32 [%rd1+8], %r4;
    st.global.u32 [%rd1+12], %r5;
    st.global.u32 [%rd1+16], %r6;
    st.global.u32 [%rd1+20], %r7;
    st.global.u32 [%rd1+24], %r8;
    st.global.u32 [%rd1+28], %r9;
    st.global.u32 [%rd1+32], %r10;
DONE:
    ret;
}
"#;

/// Section 9.7.8.16 and 6.4.1.1: every byte of every buffer the launch passes is global
/// memory, and the address past a buffer's end is not (the next allocation is no buffer of the
/// launch); asked in the kernel and, for the third buffer's first byte, in a `.func`.
#[test]
fn every_launch_buffer_is_global_to_its_last_byte() {
    let buffers = [Buffer::zeroed("u32", 16), Buffer::zeroed("u32", 5), Buffer::zeroed("u64", 3)];
    assert_eq!(BUFFER_BYTES, [16 * 4, 5 * 4, 3 * 8]);
    for (device, result) in opencl::run_everywhere(BUFFER_RANGES, &Launch::threads(2), &buffers, OPENCL_CHILD) {
        assert_eq!(result[0][..9], [1, 1, 0, 1, 1, 0, 1, 1, 0], "{device}: (first, last, end) of each buffer");
    }
    validate_spirv(BUFFER_RANGES);
}

/// With `.address_size 32` the kernel uses the host's buffers in place (below 4 GiB), and the
/// table lists them there: the buffer's first and last bytes are global, its end is not.
const BUFFER_RANGES_32: &str = r#".version 7.8
.target sm_80
.address_size 32

.visible .entry ranges(.param .u32 output)
{
    .reg .b32 %r<8>;
    .reg .pred %p<4>;
    ld.param.u32 %r1, [output];
    isspacep.global %p1, %r1;
    add.u32 %r2, %r1, 15;
    isspacep.global %p2, %r2;
    add.u32 %r2, %r1, 16;
    isspacep.global %p3, %r2;
    selp.u32 %r4, 1, 0, %p1;
    selp.u32 %r5, 1, 0, %p2;
    selp.u32 %r6, 1, 0, %p3;
    st.global.u32 [%r1], %r4;
    st.global.u32 [%r1+4], %r5;
    st.global.u32 [%r1+8], %r6;
    ret;
}
"#;

#[test]
fn launch_buffers_of_32_bit_kernels_are_global() {
    for (device, result) in
        opencl::run_everywhere(BUFFER_RANGES_32, &Launch::threads(1), &[Buffer::zeroed("u32", 4)], OPENCL_CHILD)
    {
        assert_eq!(result[0], [1, 1, 0, 0], "{device}: (first, last, end) of the buffer");
    }
    validate_spirv(BUFFER_RANGES_32);
}

/// Reads `%globaltimer`, spins until it has advanced by 300 ms, and stores the first and last
/// reads and then both halves.
const TIMER: &str = r#".version 7.8
.target sm_80
.address_size 64

.visible .entry timer(.param .u64 output)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<7>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [output];
    mov.u64 %rd2, %globaltimer;
    add.u64 %rd3, %rd2, 300000000;
WAIT:
    mov.u64 %rd4, %globaltimer;
    setp.lt.u64 %p1, %rd4, %rd3;
    @%p1 bra WAIT;
    mov.u32 %r1, %globaltimer_hi;
    mov.u32 %r2, %globaltimer_lo;
    st.global.u64 [%rd1], %rd2;
    st.global.u64 [%rd1+8], %rd4;
    cvt.u64.u32 %rd5, %r1;
    st.global.u64 [%rd1+16], %rd5;
    cvt.u64.u32 %rd6, %r2;
    st.global.u64 [%rd1+24], %rd6;
    ret;
}
"#;

fn host_nanoseconds() -> u64 {
    let since_epoch =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_else(|error| panic!("{error}"));
    u64::try_from(since_epoch.as_nanos()).unwrap_or_else(|error| panic!("{error}"))
}

/// Section 10.28: `%globaltimer` counts nanoseconds. On SPIR-V the runner relates the device
/// clock to the host's clock (nanoseconds since the Unix epoch, as on the CPU), so every read
/// lies between the host's clock before and after the launch; 300 ms of the timer take at
/// least 300 ms of the host's (a timer that ran fast would end the wait early); the halves are
/// the low and high 32 bits of a read after the last.
#[test]
fn the_global_timer_counts_the_host_clocks_nanoseconds() {
    let mut runs = vec![("cpu", None)];
    if opencl::available() {
        runs.push(("spirv", Some(OPENCL_CHILD)));
    }
    for (device, child) in runs {
        let buffers = [Buffer::zeroed("u64", 4)];
        let before = host_nanoseconds();
        let result = match child {
            None => ptxr_tests::run_ok(TIMER, &Launch::threads(1), &buffers),
            Some(child) => opencl::run_ok(TIMER, &Launch::threads(1), &buffers, child),
        };
        let after = host_nanoseconds();
        let [first, second, high, low] = [result[0][0], result[0][1], result[0][2], result[0][3]];
        assert!(before <= first && first <= second && second <= after, "{device}: {before} {first} {second} {after}");
        assert!(second - first >= 300_000_000, "{device}: the wait ended after {} ns", second - first);
        assert!(
            after - before >= 300_000_000,
            "{device}: 300 ms of the timer took {} ns of the host's",
            after - before
        );
        let halves = (high << 32) | low;
        assert!(second <= halves && halves <= after, "{device}: {second} {halves} {after}");
    }
    validate_spirv(TIMER);
}
