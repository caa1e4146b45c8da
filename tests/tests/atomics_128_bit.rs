//! `atom.cas.b128` and `atom.exch.b128` (the PTX ISA manual's "atom" section, ISA 8.3, sm_90:
//! `.b128` only for `.cas` and `.exch`, on 16-byte aligned addresses).
//!
//! On the CPU they run against a model written with `u128` arithmetic: a compare-and-swap per
//! thread that succeeds or fails (with the old value returned either way), a 128-bit counter that
//! every thread of several blocks increments by a compare-and-swap loop (its halves change
//! together, so a torn update would show as a missing or repeated count), and a chain of
//! exchanges on one word. The same kernels run, with the same models, on SPIR-V through OpenCL
//! where a platform is set up (`OCL_ICD_VENDORS`): there `.b128` registers are two `i64` halves
//! and the atomics a lock loop (`intrinsics/src/wide_atomic_lock.rs`). NVPTX writes PTX's own
//! `atom.*.b128` at ISA 8.3, which ptxas accepts for sm_90; AMDGPU, which has no 16-byte atomic,
//! builds its code objects with a lock loop; tests check both lock loops' shape in the IR.

use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, Artifact, CompileOptions, Failure};
use ptxr_lowering::Emit;
use ptxr_tests::vendor_checks::{self, code_object_notes};
use ptxr_tests::{opencl, Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const THREADS: usize = 64;
const BLOCKS: usize = 4;

const HEADER: &str = ".version 8.3\n.target sm_90\n.address_size 64\n";

/// Each thread's compare-and-swap on its own slot, with the `.sem` and state space given.
fn compare_and_swap_kernel(instruction: &str) -> String {
    format!(
        "{HEADER}.visible .entry cas128(.param .u64 slots, .param .u64 expected, .param .u64 swaps, .param .u64 olds)\n{{\n\
         .reg .b128 %q<3>;\n.reg .b64 %rd<5>;\n.reg .b32 %r0;\n\
         mov.u32 %r0, %tid.x;\n mul.wide.u32 %rd0, %r0, 16;\n\
         ld.param.u64 %rd1, [slots];\n add.u64 %rd1, %rd1, %rd0;\n\
         ld.param.u64 %rd2, [expected];\n add.u64 %rd2, %rd2, %rd0;\n\
         ld.param.u64 %rd3, [swaps];\n add.u64 %rd3, %rd3, %rd0;\n\
         ld.param.u64 %rd4, [olds];\n add.u64 %rd4, %rd4, %rd0;\n\
         ld.global.b128 %q1, [%rd2];\n ld.global.b128 %q2, [%rd3];\n\
         {instruction} %q0, [%rd1], %q1, %q2;\n\
         st.global.b128 [%rd4], %q0;\n ret;\n}}\n"
    )
}

/// Every thread of the grid adds `2^64 + 1` to one 128-bit counter by a compare-and-swap loop
/// (through a generic address) and stores the value its successful swap replaced.
fn counter_kernel() -> String {
    format!(
        "{HEADER}.visible .entry counter128(.param .u64 counter, .param .u64 olds)\n{{\n\
         .reg .b128 %seen, %next, %old;\n.reg .b64 %rd<3>, %low, %high, %old_low, %old_high;\n\
         .reg .b32 %r<4>;\n.reg .pred %retry;\n\
         mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mad.lo.u32 %r3, %r1, %r2, %r0;\n\
         ld.param.u64 %rd1, [counter];\n\
         ld.param.u64 %rd2, [olds];\n mul.wide.u32 %rd0, %r3, 16;\n add.u64 %rd2, %rd2, %rd0;\n\
         ld.relaxed.gpu.global.b64 %low, [%rd1];\n ld.relaxed.gpu.global.b64 %high, [%rd1+8];\n\
         mov.b128 %seen, {{%low, %high}};\n\
         RETRY:\n\
         mov.b128 {{%low, %high}}, %seen;\n\
         add.cc.u64 %low, %low, 1;\n addc.u64 %high, %high, 1;\n\
         mov.b128 %next, {{%low, %high}};\n\
         atom.acq_rel.gpu.cas.b128 %old, [%rd1], %seen, %next;\n\
         mov.b128 {{%low, %high}}, %seen;\n mov.b128 {{%old_low, %old_high}}, %old;\n\
         setp.ne.b64 %retry, %low, %old_low;\n setp.ne.or.b64 %retry, %high, %old_high, %retry;\n\
         mov.b128 %seen, %old;\n\
         @%retry bra RETRY;\n\
         st.global.b128 [%rd2], %old;\n ret;\n}}\n"
    )
}

/// The counter of [`counter_kernel`] in a block's `.shared` memory: thread 0 sets it from
/// `counter`, every thread increments it, and thread 0 writes it back.
fn shared_counter_kernel() -> String {
    format!(
        "{HEADER}.visible .entry shared_counter128(.param .u64 counter)\n{{\n\
         .shared .align 16 .b8 word[16];\n\
         .reg .b128 %seen, %next, %old;\n.reg .b64 %rd1, %low, %high, %old_low, %old_high;\n\
         .reg .b32 %r0;\n.reg .pred %first, %retry;\n\
         mov.u32 %r0, %tid.x;\n setp.eq.u32 %first, %r0, 0;\n\
         ld.param.u64 %rd1, [counter];\n\
         @%first ld.global.b128 %seen, [%rd1];\n @%first st.shared.b128 [word], %seen;\n\
         bar.sync 0;\n\
         ld.shared.b128 %seen, [word];\n\
         RETRY:\n\
         mov.b128 {{%low, %high}}, %seen;\n\
         add.cc.u64 %low, %low, 1;\n addc.u64 %high, %high, 1;\n\
         mov.b128 %next, {{%low, %high}};\n\
         atom.shared.cas.b128 %old, [word], %seen, %next;\n\
         mov.b128 {{%low, %high}}, %seen;\n mov.b128 {{%old_low, %old_high}}, %old;\n\
         setp.ne.b64 %retry, %low, %old_low;\n setp.ne.or.b64 %retry, %high, %old_high, %retry;\n\
         mov.b128 %seen, %old;\n\
         @%retry bra RETRY;\n\
         bar.sync 0;\n\
         @%first ld.shared.b128 %seen, [word];\n @%first st.global.b128 [%rd1], %seen;\n ret;\n}}\n"
    )
}

/// Every thread of the grid exchanges its own value into one word and stores what it got back.
fn exchange_kernel() -> String {
    format!(
        "{HEADER}.visible .entry exchange128(.param .u64 word, .param .u64 values, .param .u64 olds)\n{{\n\
         .reg .b128 %q<2>;\n.reg .b64 %rd<4>;\n.reg .b32 %r<4>;\n\
         mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ctaid.x;\n mov.u32 %r2, %ntid.x;\n mad.lo.u32 %r3, %r1, %r2, %r0;\n\
         mul.wide.u32 %rd0, %r3, 16;\n\
         ld.param.u64 %rd1, [word];\n\
         ld.param.u64 %rd2, [values];\n add.u64 %rd2, %rd2, %rd0;\n\
         ld.param.u64 %rd3, [olds];\n add.u64 %rd3, %rd3, %rd0;\n\
         ld.global.b128 %q1, [%rd2];\n\
         atom.global.exch.b128 %q0, [%rd1], %q1;\n\
         st.global.b128 [%rd3], %q0;\n ret;\n}}\n"
    )
}

/// A `b64` buffer of 128-bit words, low half first (the little-endian layout of the targets).
fn words(values: &[u128]) -> Buffer {
    Buffer::new("b64", values.iter().flat_map(|&value| [value as u64, (value >> 64) as u64]).collect())
}

fn read_words(bits: &[u64]) -> Vec<u128> {
    bits.chunks(2).map(|pair| u128::from(pair[0]) | (u128::from(pair[1]) << 64)).collect()
}

fn random_words(random: &mut Random, count: usize) -> Vec<u128> {
    (0..count).map(|_| u128::from(random.next_u64()) | (u128::from(random.next_u64()) << 64)).collect()
}

#[test]
fn compare_and_swap_succeeds_where_the_word_matches_and_returns_the_old_value() {
    let mut random = Random::new(128);
    let values = random_words(&mut random, THREADS);
    // Every other thread expects a word that differs only in its high half, or only in its low
    // half: both halves take part in the comparison.
    let expected: Vec<u128> = values
        .iter()
        .enumerate()
        .map(|(slot, &value)| match slot % 4 {
            1 => value ^ (1 << 100),
            3 => value ^ 1,
            _ => value,
        })
        .collect();
    let swaps = random_words(&mut random, THREADS);
    let model: Vec<u128> =
        (0..THREADS).map(|slot| if values[slot] == expected[slot] { swaps[slot] } else { values[slot] }).collect();
    for instruction in ["atom.global.cas.b128", "atom.acquire.sys.cas.b128", "atom.release.cta.global.cas.b128"] {
        let buffers = [words(&values), words(&expected), words(&swaps), Buffer::zeroed("b64", 2 * THREADS)];
        let kernel = compare_and_swap_kernel(instruction);
        for (device, result) in
            opencl::run_everywhere(&kernel, &Launch::threads(THREADS as u32), &buffers, OPENCL_CHILD)
        {
            assert_eq!(read_words(&result[0]), model, "{device} {instruction}: the slots");
            assert_eq!(read_words(&result[3]), values, "{device} {instruction}: the old values");
        }
    }
}

/// Each thread's compare-and-swap of its slot against the immediate 0 (`atom.global.cas.b128 d,
/// [a], 0, c`): a constant expected value, which LLVM folds into the comparison.
fn compare_with_zero_kernel() -> String {
    format!(
        "{HEADER}.visible .entry cas128_zero(.param .u64 slots, .param .u64 swaps, .param .u64 olds)\n{{\n\
         .reg .b128 %q<2>;\n.reg .b64 %rd<4>;\n.reg .b32 %r0;\n\
         mov.u32 %r0, %tid.x;\n mul.wide.u32 %rd0, %r0, 16;\n\
         ld.param.u64 %rd1, [slots];\n add.u64 %rd1, %rd1, %rd0;\n\
         ld.param.u64 %rd2, [swaps];\n add.u64 %rd2, %rd2, %rd0;\n\
         ld.param.u64 %rd3, [olds];\n add.u64 %rd3, %rd3, %rd0;\n\
         ld.global.b128 %q1, [%rd2];\n\
         atom.global.cas.b128 %q0, [%rd1], 0, %q1;\n\
         st.global.b128 [%rd3], %q0;\n ret;\n}}\n"
    )
}

#[test]
fn compare_and_swap_with_an_immediate_zero_swaps_only_the_zero_slots() {
    let mut random = Random::new(130);
    // Slots 0 mod 3 are zero; 1 mod 3 are zero but for one bit of the high half; the others random.
    let values: Vec<u128> = random_words(&mut random, THREADS)
        .into_iter()
        .enumerate()
        .map(|(slot, value)| match slot % 3 {
            0 => 0,
            1 => 1 << 127,
            _ => value,
        })
        .collect();
    let swaps = random_words(&mut random, THREADS);
    let model: Vec<u128> =
        (0..THREADS).map(|slot| if values[slot] == 0 { swaps[slot] } else { values[slot] }).collect();
    let buffers = [words(&values), words(&swaps), Buffer::zeroed("b64", 2 * THREADS)];
    let launch = Launch::threads(THREADS as u32);
    for (device, result) in opencl::run_everywhere(&compare_with_zero_kernel(), &launch, &buffers, OPENCL_CHILD) {
        assert_eq!(read_words(&result[0]), model, "{device}: the slots");
        assert_eq!(read_words(&result[2]), values, "{device}: the old values");
    }
}

#[test]
fn a_128_bit_counter_counts_every_thread_of_the_grid_without_tearing() {
    let threads = THREADS * BLOCKS;
    // The low half carries into the high half after 100 increments.
    let initial: u128 = (5 << 64) | u128::from(u64::MAX - 99);
    let step: u128 = (1 << 64) | 1;
    let buffers = [words(&[initial]), Buffer::zeroed("b64", 2 * threads)];
    let launch = Launch { grid: [BLOCKS as u32, 1, 1], block: [THREADS as u32, 1, 1], ..Launch::default() };
    // Each thread's swap replaced one count: together they are every count from the initial
    // value on, each once.
    let mut model: Vec<u128> = (0..threads as u128).map(|count| initial.wrapping_add(step * count)).collect();
    model.sort_unstable();
    for (device, result) in opencl::run_everywhere(&counter_kernel(), &launch, &buffers, OPENCL_CHILD) {
        let counted = vec![initial.wrapping_add(step * threads as u128)];
        assert_eq!(read_words(&result[0]), counted, "{device}: the counter");
        let mut olds = read_words(&result[1]);
        olds.sort_unstable();
        assert_eq!(olds, model, "{device}: the values the swaps replaced");
    }
}

#[test]
fn a_128_bit_counter_in_shared_memory_counts_every_thread_of_the_block() {
    let initial: u128 = (u128::from(u64::MAX) << 64) | u128::from(u64::MAX - 9);
    let step: u128 = (1 << 64) | 1;
    let launch = Launch::threads(THREADS as u32);
    for (device, result) in
        opencl::run_everywhere(&shared_counter_kernel(), &launch, &[words(&[initial])], OPENCL_CHILD)
    {
        let counted = vec![initial.wrapping_add(step * THREADS as u128)];
        assert_eq!(read_words(&result[0]), counted, "{device}: the counter");
    }
}

#[test]
fn exchanges_form_one_chain_from_the_initial_value_to_the_last_thread_s() {
    let threads = THREADS * BLOCKS;
    let mut random = Random::new(129);
    let initial = random_words(&mut random, 1)[0];
    let values = random_words(&mut random, threads);
    let buffers = [words(&[initial]), words(&values), Buffer::zeroed("b64", 2 * threads)];
    let launch = Launch { grid: [BLOCKS as u32, 1, 1], block: [THREADS as u32, 1, 1], ..Launch::default() };
    for (device, result) in opencl::run_everywhere(&exchange_kernel(), &launch, &buffers, OPENCL_CHILD) {
        let last = read_words(&result[0])[0];
        let olds = read_words(&result[2]);
        // Every value but the last one written was handed back once, and so was the initial one.
        let mut handed_back = olds.clone();
        handed_back.push(last);
        handed_back.sort_unstable();
        let mut model = values.clone();
        model.push(initial);
        model.sort_unstable();
        assert_eq!(handed_back, model, "{device}: the old values and the last value");
        // Following the chain from the initial value visits every thread once.
        let by_old: std::collections::HashMap<u128, usize> =
            olds.iter().enumerate().map(|(thread, &old)| (old, thread)).collect();
        let mut current = initial;
        for _ in 0..threads {
            let thread = by_old[&current];
            current = values[thread];
        }
        assert_eq!(current, last, "{device}: the chain ends at the word's last value");
    }
}

fn compile(source: &str, target: &str, arch: Option<&str>, emit: Option<Emit>) -> Result<Artifact, Failure> {
    let target = describe(target, arch, false).unwrap_or_else(|error| panic!("{error}"));
    let options = CompileOptions { target, emit, optimization: 2 };
    compile_source(source, "atomics128", &options)
}

fn every_kernel() -> [String; 5] {
    [
        compare_and_swap_kernel("atom.acq_rel.gpu.global.cas.b128"),
        compare_with_zero_kernel(),
        counter_kernel(),
        exchange_kernel(),
        shared_counter_kernel(),
    ]
}

#[test]
fn nvptx_writes_ptx_s_own_128_bit_atomics_at_isa_8_3_and_ptxas_accepts_them() {
    for (index, source) in every_kernel().iter().enumerate() {
        // The kernels themselves are valid PTX, as NVIDIA's assembler reads it.
        vendor_checks::ptxas_accepts(source.as_bytes(), "sm_90", &format!("atomics128-source-{index}"))
            .unwrap_or(Ok(()))
            .unwrap_or_else(|message| panic!("{index}: ptxas on the source: {message}\n{source}"));
        for arch in ["sm_90", "sm_90a", "sm_100"] {
            let compiled = compile(source, "nvptx", Some(arch), None)
                .unwrap_or_else(|failure| panic!("{index} {arch}: {failure:?}"));
            let text = String::from_utf8_lossy(&compiled.bytes);
            assert!(text.contains(".b128 "), "{index} {arch}: no 128-bit atomic in\n{text}");
            assert!(!text.contains("__atomic"), "{index} {arch}: a library call in\n{text}");
            if arch != "sm_100" {
                assert!(text.contains(".version 8.3"), "{index} {arch}: {text}");
            }
            vendor_checks::ptxas_accepts(&compiled.bytes, arch, &format!("atomics128-{index}"))
                .unwrap_or(Ok(()))
                .unwrap_or_else(|message| panic!("{index} {arch}: ptxas: {message}\n{text}"));
        }
    }
}

#[test]
fn amdgpu_builds_code_objects_with_a_lock_loop_and_no_library_call() {
    for (index, source) in every_kernel().iter().enumerate() {
        for arch in ["gfx90a", "gfx1100"] {
            let compiled = compile(source, "amdgpu", Some(arch), None)
                .unwrap_or_else(|failure| panic!("{index} {arch}: {failure:?}"));
            let notes = code_object_notes(&compiled.bytes, &format!("atomics128-{index}-{arch}"));
            if let Some(notes) = notes {
                assert!(notes.contains(".name:") || notes.contains("amdhsa"), "{index} {arch}: {notes}");
            }
            let assembly = compile(source, "amdgpu", Some(arch), Some(Emit::Assembly))
                .unwrap_or_else(|failure| panic!("{index} {arch}: {failure:?}"));
            let text = String::from_utf8_lossy(&assembly.bytes);
            assert!(!text.contains("__atomic"), "{index} {arch}: a library call in\n{text}");
            assert!(text.contains("cmpswap"), "{index} {arch}: no lock taken in\n{text}");
        }
    }
}

/// The lock loop's shape, which no CPU run can check: the lock is taken by a `cmpxchg` with at
/// least acquire ordering, released by an atomic store inside the same iteration (before the
/// loop's back edge), and the exit test goes through the opaque `asm`.
#[test]
fn amdgpu_takes_and_releases_the_lock_within_one_iteration() {
    let source = compare_and_swap_kernel("atom.relaxed.gpu.global.cas.b128");
    let ir = compile(&source, "amdgpu", None, Some(Emit::LlvmIr)).unwrap_or_else(|failure| panic!("{failure:?}"));
    let text = String::from_utf8_lossy(&ir.bytes);
    let lines: Vec<&str> = text.lines().collect();
    let position = |needle: &str| {
        lines.iter().position(|line| line.contains(needle)).unwrap_or_else(|| panic!("no `{needle}` in\n{text}"))
    };
    let take = position("cmpxchg ptr addrspace(1)");
    assert!(lines[take].contains("syncscope(\"agent\") acquire"), "{}", lines[take]);
    let load = position("%wide.old = load i128");
    let store = position("store i128 %wide.new");
    let release = position("store atomic i32 0");
    assert!(lines[release].contains("syncscope(\"agent\") release"), "{}", lines[release]);
    let leave = position("128-bit atomic lock released");
    assert!(take < load && load < store && store < release && release < leave, "{text}");
    // The exit test and the back edge to the `cmpxchg` follow the release.
    let back_edge = lines[leave..].iter().any(|line| line.contains("br i1") && line.contains("%wide.try"));
    assert!(back_edge, "{text}");
    assert!(
        text.contains("@ptxr.wide_atomic_locks = internal addrspace(1) global [1024 x i32] zeroinitializer"),
        "{text}"
    );
}

/// SPIR-V's lock loop after optimisation, block by block: the lock taken by a `cmpxchg` at
/// device scope with at least acquire ordering; the 16 bytes read as `<2 x i64>` and, where both
/// halves match, written; the lock given back with release ordering; all before the loop's exit
/// test, which goes through the volatile slot, and its back edge. No `i128` anywhere, and every
/// kernel's module valid for OpenCL.
#[test]
fn spirv_takes_and_releases_the_lock_within_one_iteration_without_128_bit_integers() {
    let source = compare_and_swap_kernel("atom.relaxed.cta.global.cas.b128");
    let ir = compile(&source, "spirv", None, Some(Emit::LlvmIr)).unwrap_or_else(|failure| panic!("{failure:?}"));
    let text = String::from_utf8_lossy(&ir.bytes);
    assert!(!text.contains("i128"), "{text}");
    // Each labelled block's lines, up to the next label.
    let mut blocks: std::collections::HashMap<&str, Vec<&str>> = std::collections::HashMap::new();
    let mut label = "";
    for line in text.lines() {
        match line.split_once(':') {
            Some((name, _)) if !line.starts_with(' ') && name.starts_with("wide.") => label = name,
            _ if line.starts_with('}') => label = "",
            _ => blocks.entry(label).or_default().push(line),
        }
    }
    let block = |name: &str| blocks.get(name).unwrap_or_else(|| panic!("no block `{name}` in\n{text}"));
    let has = |name: &str, needles: &[&str]| {
        block(name).iter().any(|line| needles.iter().all(|needle| line.contains(needle)))
    };
    let branches_to = |name: &str, targets: &[&str]| {
        let last = block(name).iter().rev().find(|line| !line.trim().is_empty()).copied().unwrap_or_default();
        last.contains("br ") && targets.iter().all(|target| last.contains(&format!("%{target}")))
    };
    assert!(has("wide.try", &["cmpxchg", "%wide.lock", "syncscope(\"device\") acquire"]), "{text}");
    assert!(branches_to("wide.try", &["wide.critical", "wide.next"]), "{text}");
    assert!(has("wide.critical", &["load <2 x i64>"]), "{text}");
    assert!(branches_to("wide.critical", &["wide.write", "wide.release"]), "{text}");
    assert!(has("wide.write", &["store <2 x i64>"]), "{text}");
    assert!(branches_to("wide.write", &["wide.release"]), "{text}");
    assert!(has("wide.release", &["%wide.lock", "syncscope(\"device\") release"]), "{text}");
    assert!(branches_to("wide.release", &["wide.next"]), "{text}");
    assert!(has("wide.next", &["load volatile i8"]), "{text}");
    assert!(branches_to("wide.next", &["wide.try", "wide.done"]), "{text}");
    for (index, source) in every_kernel().iter().enumerate() {
        let compiled = compile(source, "spirv", None, None).unwrap_or_else(|failure| panic!("{index}: {failure:?}"));
        let environment = vendor_checks::spirv_environment(&compiled.bytes);
        vendor_checks::spirv_val(&compiled.bytes, &environment, &format!("atomics128-{index}"))
            .unwrap_or(Ok(()))
            .unwrap_or_else(|message| panic!("{index}: spirv-val: {message}"));
    }
}

/// `.b128` is only for data movement and `atom.cas`/`atom.exch` (ISA 8.3): arithmetic on it, such
/// as `and.b128`, is the checker's error on every target, before any lowering (where SPIR-V,
/// which holds `.b128` as two halves, would have no 128-bit integer to compute with).
#[test]
fn arithmetic_on_b128_is_a_checker_error_on_every_target() {
    let source = format!(
        "{HEADER}.visible .entry and128(.param .u64 word)\n{{\n.reg .b128 %q<2>;\n.reg .b64 %rd1;\n\
         ld.param.u64 %rd1, [word];\n ld.global.b128 %q0, [%rd1];\n and.b128 %q1, %q0, %q0;\n\
         st.global.b128 [%rd1], %q1;\n ret;\n}}\n"
    );
    for (target, arch) in [("cpu", None), ("spirv", None), ("nvptx", Some("sm_90")), ("amdgpu", None)] {
        match compile(&source, target, arch, None) {
            Err(Failure::Diagnostics(diagnostics)) => {
                assert!(
                    diagnostics.iter().any(|diagnostic| diagnostic.code == ptxr_frontend::Code::InvalidModifier
                        && diagnostic.message == "`and` does not take type `.b128`"),
                    "{target}: {diagnostics:?}"
                );
                assert!(
                    diagnostics.iter().all(|diagnostic| diagnostic.code != ptxr_frontend::Code::Unsupported),
                    "{target}: {diagnostics:?}"
                );
            }
            other => panic!("{target}: expected E0202, got {:?}", other.map(|artifact| artifact.bytes.len())),
        }
    }
}
