//! Atomics at constant offsets into `.global` and `.shared` variables (`[words+76]`), on the
//! CPU and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL,
//! against a model written here.
//!
//! LLVM 22's SPIR-V back end scaled such an offset by the atomic's value size when the atomic
//! sat outside the kernel's entry block (in a loop, after a branch), so the atomic hit another
//! address (`intrinsics/src/spirv_atomic_addresses.rs`). The kernel here does every
//! read-modify-write PTX has (`atom` and `red`, 32 and 64 bits, integers and floats, `cas` in
//! retry loops, `exch`, `inc`, `dec`) at offsets that are and are not multiples of 8, inside a
//! loop and outside it, through the variable's own state space and through a generic address,
//! on an array and on a scalar; plain loads and stores at constant offsets set up and read back
//! the shared words. Every operation's final value is independent of the order in which the
//! threads get there, and so is the sum of the values returned by the operations whose returned
//! values are a permutation of a fixed sequence (`add` of a constant, successful `cas`, `exch`
//! of a constant, `inc`, `dec`), which the test compares too.

use ptxr_tests::vendor_checks::{self, compile, spirv_environment, Compiled};
use ptxr_tests::{opencl, Buffer, Launch};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const THREADS: u32 = 64;
const ROUNDS: u32 = 3;
/// The 32-bit words of the array variables `words` (`.global`) and `shared_words` (`.shared`).
const WORDS: usize = 34;

/// The initial bits of word `index` of both arrays; the float slots hold 1.5f32 (offset 80) and
/// 0.25f64 (offset 88).
fn initial_word(index: usize) -> u32 {
    match index {
        20 => 1.5f32.to_bits(),
        22 => 0.25f64.to_bits() as u32,
        23 => (0.25f64.to_bits() >> 32) as u32,
        _ => (index as u32 + 1).wrapping_mul(0x9e37_79b9) >> 1,
    }
}

/// The initial value of the 64-bit scalar variables `pair` and `shared_pair`.
const INITIAL_PAIR: u64 = 0x0000_0005_0000_0003;

/// The instructions of one round of one thread on the array `array` and the scalar `scalar` of
/// state space `space` (`.global` or `.shared`). `%a` is `37 tid + 11 round`; every returned
/// value that the model can predict the sum of is added to `%sum`.
fn round_body(space: &str, array: &str, scalar: &str) -> String {
    let label = &space[1..];
    let sum32 = "cvt.u64.u32 %wide_old, %old;\n add.u64 %sum, %sum, %wide_old;\n";
    let sum64 = "add.u64 %sum, %sum, %wide_old;\n";
    let compare_and_swap_32 = |offset: u32, increment: u32| {
        format!(
            " ld{space}.u32 %old, [{array}+{offset}];\n\
             CAS_{label}_{offset}:\n add.u32 %new, %old, {increment};\n\
             atom{space}.cas.b32 %got, [{array}+{offset}], %old, %new;\n\
             setp.ne.u32 %retry, %got, %old;\n mov.u32 %old, %got;\n\
             @%retry bra CAS_{label}_{offset};\n {sum32}"
        )
    };
    format!(
        " atom{space}.add.u32 %old, [{array}], 1;\n {sum32}\
         {cas4}\
         cvt.u64.u32 %wide, %a;\n add.u64 %wide, %wide, 1;\n atom{space}.add.u64 %wide_old, [{array}+8], %wide;\n\
         ld{space}.u64 %wide_old, [{array}+16];\n\
         CAS64_{label}:\n add.u64 %wide_new, %wide_old, 0x100000003;\n\
         atom{space}.cas.b64 %wide_got, [{array}+16], %wide_old, %wide_new;\n\
         setp.ne.u64 %retry, %wide_got, %wide_old;\n mov.u64 %wide_old, %wide_got;\n\
         @%retry bra CAS64_{label};\n {sum64}\
         atom{space}.exch.b32 %old, [{array}+24], 7;\n {sum32}\
         rem.u32 %value, %a, 101;\n sub.s32 %value, %value, 50;\n atom{space}.min.s32 %old, [{array}+28], %value;\n\
         mul.lo.u32 %value, %a, 0x9E3779B1;\n atom{space}.max.u32 %old, [{array}+32], %value;\n\
         and.b32 %value, %a, 31;\n shl.b32 %value, %one, %value;\n not.b32 %value, %value;\n\
         atom{space}.and.b32 %old, [{array}+36], %value;\n\
         shr.u32 %value, %a, 2;\n and.b32 %value, %value, 31;\n shl.b32 %value, %one, %value;\n\
         atom{space}.or.b32 %old, [{array}+40], %value;\n\
         mul.lo.u32 %value, %a, 0x9E3779B9;\n atom{space}.xor.b32 %old, [{array}+44], %value;\n\
         atom{space}.inc.u32 %old, [{array}+48], 100;\n {sum32}\
         atom{space}.dec.u32 %old, [{array}+52], 50;\n {sum32}\
         rem.u32 %value, %a, 61;\n cvt.u64.u32 %wide, %value;\n sub.s64 %wide, %wide, 30;\n\
         mul.lo.s64 %wide, %wide, 1000000007;\n atom{space}.min.s64 %wide_old, [{array}+56], %wide;\n\
         cvt.u64.u32 %wide, %a;\n mul.lo.u64 %wide, %wide, 0x9E3779B97F4A7C15;\n\
         atom{space}.xor.b64 %wide_old, [{array}+64], %wide;\n\
         atom{space}.add.u32 %old, [{array}+72], %a;\n\
         atom{space}.exch.b64 %wide_old, [{array}+128], 0x123456789;\n {sum64}\
         {cas76}\
         atom{space}.add.f32 %single, [{array}+80], 0f3F800000;\n\
         red{space}.add.u32 [{array}+84], %thread;\n\
         atom{space}.add.f64 %double, [{array}+88], 0d3FE0000000000000;\n\
         atom.add.u32 %old, [{array}+100], 1;\n {sum32}\
         shr.u32 %value, %a, 3;\n and.b32 %value, %value, 31;\n shl.b32 %value, %one, %value;\n\
         red{space}.or.b32 [{array}+104], %value;\n\
         red{space}.min.u32 [{array}+108], %a;\n\
         cvt.u64.u32 %wide, %a;\n mul.lo.u64 %wide, %wide, 3;\n red{space}.add.u64 [{array}+112], %wide;\n\
         atom{space}.add.u32 %old, [{scalar}+4], 2;\n {sum32}",
        cas4 = compare_and_swap_32(4, 3),
        cas76 = compare_and_swap_32(76, 1),
    )
}

/// The atomics done once per thread, outside the loop: on `.global` in the entry block, on
/// `.shared` after the barrier that follows the set-up.
fn once(space: &str, array: &str) -> String {
    format!(
        " atom{space}.add.u32 %old, [{array}+124], 5;\n cvt.u64.u32 %wide_old, %old;\n add.u64 %sum, %sum, %wide_old;\n\
         atom{space}.cas.b32 %old, [{array}+120], {initial}, 9;\n cvt.u64.u32 %wide_old, %old;\n add.u64 %sum, %sum, %wide_old;\n",
        initial = initial_word(30),
    )
}

fn kernel() -> String {
    let initial: Vec<String> = (0..WORDS).map(|index| initial_word(index).to_string()).collect();
    let shared_set_up: String = (0..WORDS)
        .map(|index| format!(" st.shared.u32 [shared_words+{}], {};\n", 4 * index, initial_word(index)))
        .collect();
    let copy_out = |space: &str, array: &str, scalar: &str, output: &str| -> String {
        let mut text = String::new();
        for index in 0..WORDS {
            text += &format!(
                " ld{space}.u32 %value, [{array}+{}];\n st.global.u32 [{output}+{}], %value;\n",
                4 * index,
                4 * index
            );
        }
        for index in 0..2 {
            let offset = 4 * (WORDS + index);
            text += &format!(
                " ld{space}.u32 %value, [{scalar}+{}];\n st.global.u32 [{output}+{offset}], %value;\n",
                4 * index
            );
        }
        text
    };
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n\
         .global .align 8 .b32 words[{WORDS}] = {{{initial}}};\n\
         .global .align 8 .b64 pair = {INITIAL_PAIR};\n\
         .visible .entry atomics(.param .u64 rounds_in, .param .u64 global_out, .param .u64 shared_out, .param .u64 olds_out)\n{{\n\
         .shared .align 8 .b32 shared_words[{WORDS}];\n\
         .shared .align 8 .b64 shared_pair;\n\
         .reg .pred %first, %retry, %more;\n\
         .reg .b32 %thread, %round, %rounds, %a, %value, %old, %new, %got, %one;\n\
         .reg .b64 %sum, %wide, %wide_old, %wide_new, %wide_got, %address, %global_out, %shared_out;\n\
         .reg .f32 %single;\n.reg .f64 %double;\n\
         mov.u32 %thread, %tid.x;\n mov.u32 %one, 1;\n mov.u64 %sum, 0;\n\
         {global_once}\
         setp.eq.u32 %first, %thread, 0;\n @!%first bra SHARED_READY;\n\
         {shared_set_up} st.shared.u64 [shared_pair], {INITIAL_PAIR};\n\
         SHARED_READY:\n bar.sync 0;\n\
         {shared_once}\
         ld.param.u64 %address, [rounds_in];\n cvta.to.global.u64 %address, %address;\n\
         ld.global.u32 %rounds, [%address];\n mov.u32 %round, 0;\n\
         LOOP:\n mul.lo.u32 %a, %thread, 37;\n mad.lo.u32 %a, %round, 11, %a;\n\
         {global_round}{shared_round}\
         add.u32 %round, %round, 1;\n setp.lt.u32 %more, %round, %rounds;\n @%more bra LOOP;\n\
         bar.sync 0;\n @!%first bra OLDS;\n\
         ld.param.u64 %global_out, [global_out];\n cvta.to.global.u64 %global_out, %global_out;\n\
         ld.param.u64 %shared_out, [shared_out];\n cvta.to.global.u64 %shared_out, %shared_out;\n\
         {global_copy}{shared_copy}\
         OLDS:\n ld.param.u64 %address, [olds_out];\n cvta.to.global.u64 %address, %address;\n\
         mul.wide.u32 %wide, %thread, 8;\n add.u64 %address, %address, %wide;\n st.global.u64 [%address], %sum;\n ret;\n}}\n",
        initial = initial.join(", "),
        global_once = once(".global", "words"),
        shared_once = once(".shared", "shared_words"),
        global_round = round_body(".global", "words", "pair"),
        shared_round = round_body(".shared", "shared_words", "shared_pair"),
        global_copy = copy_out(".global", "words", "pair", "%global_out"),
        shared_copy = copy_out(".shared", "shared_words", "shared_pair", "%shared_out"),
    )
}

/// One space's words (the array's, then the scalar's two) as the model updates them.
struct Memory([u32; WORDS + 2]);

impl Memory {
    fn initial() -> Memory {
        let mut words = [0; WORDS + 2];
        for (index, word) in words.iter_mut().enumerate().take(WORDS) {
            *word = initial_word(index);
        }
        words[WORDS] = INITIAL_PAIR as u32;
        words[WORDS + 1] = (INITIAL_PAIR >> 32) as u32;
        Memory(words)
    }

    /// Applies `update` to the 32-bit word at byte `offset` and returns the old value.
    fn update32(&mut self, offset: usize, update: impl FnOnce(u32) -> u32) -> u32 {
        let old = self.0[offset / 4];
        self.0[offset / 4] = update(old);
        old
    }

    /// Applies `update` to the 64-bit word at byte `offset` and returns the old value.
    fn update64(&mut self, offset: usize, update: impl FnOnce(u64) -> u64) -> u64 {
        let old = u64::from(self.0[offset / 4]) | u64::from(self.0[offset / 4 + 1]) << 32;
        let new = update(old);
        self.0[offset / 4] = new as u32;
        self.0[offset / 4 + 1] = (new >> 32) as u32;
        old
    }
}

/// The model: the final words of both spaces and the sum of the predictable returned values.
fn model() -> (Memory, Memory, u64) {
    let mut spaces = [Memory::initial(), Memory::initial()];
    let mut sum = 0u64;
    let mut add = |value: u64| sum = sum.wrapping_add(value);
    for memory in &mut spaces {
        for _ in 0..THREADS {
            add(u64::from(memory.update32(124, |old| old.wrapping_add(5))));
            let initial = initial_word(30);
            add(u64::from(memory.update32(120, |old| if old == initial { 9 } else { old })));
        }
    }
    for round in 0..ROUNDS {
        for tid in 0..THREADS {
            let a = tid.wrapping_mul(37).wrapping_add(round.wrapping_mul(11));
            for memory in &mut spaces {
                add(u64::from(memory.update32(0, |old| old.wrapping_add(1))));
                add(u64::from(memory.update32(4, |old| old.wrapping_add(3))));
                memory.update64(8, |old| old.wrapping_add(u64::from(a) + 1));
                add(memory.update64(16, |old| old.wrapping_add(0x1_0000_0003)));
                add(u64::from(memory.update32(24, |_| 7)));
                memory.update32(28, |old| (old as i32).min((a % 101) as i32 - 50) as u32);
                memory.update32(32, |old| old.max(a.wrapping_mul(0x9e37_79b1)));
                memory.update32(36, |old| old & !(1 << (a % 32)));
                memory.update32(40, |old| old | 1 << ((a >> 2) % 32));
                memory.update32(44, |old| old ^ a.wrapping_mul(0x9e37_79b9));
                add(u64::from(memory.update32(48, |old| if old >= 100 { 0 } else { old + 1 })));
                add(u64::from(memory.update32(52, |old| if old == 0 || old > 50 { 50 } else { old - 1 })));
                let signed = (i64::from(a % 61) - 30) * 1_000_000_007;
                memory.update64(56, |old| (old as i64).min(signed) as u64);
                memory.update64(64, |old| old ^ u64::from(a).wrapping_mul(0x9e37_79b9_7f4a_7c15));
                memory.update32(72, |old| old.wrapping_add(a));
                add(memory.update64(128, |_| 0x1_2345_6789));
                add(u64::from(memory.update32(76, |old| old.wrapping_add(1))));
                memory.update32(80, |old| (f32::from_bits(old) + 1.0).to_bits());
                memory.update32(84, |old| old.wrapping_add(tid));
                memory.update64(88, |old| (f64::from_bits(old) + 0.5).to_bits());
                add(u64::from(memory.update32(100, |old| old.wrapping_add(1))));
                memory.update32(104, |old| old | 1 << ((a >> 3) % 32));
                memory.update32(108, |old| old.min(a));
                memory.update64(112, |old| old.wrapping_add(u64::from(a) * 3));
                add(u64::from(memory.update32(4 * WORDS + 4, |old| old.wrapping_add(2))));
            }
        }
    }
    let [global, shared] = spaces;
    (global, shared, sum)
}

fn buffers() -> Vec<Buffer> {
    vec![
        Buffer::u32s(&[ROUNDS]),
        Buffer::zeroed("u32", WORDS + 2),
        Buffer::zeroed("u32", WORDS + 2),
        Buffer::zeroed("u64", THREADS as usize),
    ]
}

fn check(device: &str, result: &[Vec<u64>]) {
    let (global, shared, sum) = model();
    let words = |memory: &Memory| memory.0.iter().map(|&word| u64::from(word)).collect::<Vec<u64>>();
    for (space, expected, got) in [(".global", words(&global), &result[1]), (".shared", words(&shared), &result[2])] {
        for (index, (expected, got)) in expected.iter().zip(got.iter()).enumerate() {
            assert_eq!(got, expected, "{device}: {space} byte offset {}: {got:#x}, expected {expected:#x}", 4 * index);
        }
    }
    let returned = result[3].iter().fold(0u64, |total, &value| total.wrapping_add(value));
    assert_eq!(returned, sum, "{device}: the sum of the returned values");
}

#[test]
fn atomics_at_constant_offsets_equal_the_model_on_the_cpu_and_on_spirv() {
    let ptx = kernel();
    let launch = Launch::threads(THREADS);
    for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers(), OPENCL_CHILD) {
        check(device, &result);
    }
}

/// `spirv-val` on the kernel's SPIR-V, with the universal rules of its SPIR-V version, which
/// `spirv_environment` picks for it: OpenCL 2.2's environment refuses the Int64Atomics
/// capability of the 64-bit atomics (OpenCL grants it through the `cl_khr_int64_base_atomics`
/// extension, which Intel's runtime has).
#[test]
fn the_kernel_passes_spirv_val() {
    let binary = match compile(&kernel(), "spirv") {
        Compiled::Artefact(bytes) => bytes,
        Compiled::Unsupported(messages) => panic!("unsupported on spirv: {messages:?}"),
        Compiled::Rejected(message) => panic!("{message}"),
    };
    assert_eq!(spirv_environment(&binary), "spv1.2", "the module is SPIR-V 1.2 with 64-bit atomics");
    if let Some(Err(message)) = vendor_checks::spirv_val(&binary, "spv1.2", "atomic-offsets") {
        panic!("spirv-val spv1.2: {message}");
    }
}
