//! `atom.cas.b16` (ISA 7.8 section 9.7.12.5) in `.global` and `.shared` memory, on the CPU
//! and, when an OpenCL platform is set up (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL, which
//! has no 16-bit atomics: there it is a loop of 32-bit compare-and-swaps on the word that holds
//! the value (`lowering/src/instructions/word_atomic.rs`).
//!
//! Each thread swaps its own slot, every other one with the wrong expected value; neighbouring
//! slots share a word, so what one thread writes back must leave the other's half alone. Then
//! every thread increments a counter in the high half of a word by a compare-and-swap loop,
//! which must count every thread and leave the low half as it was.

use ptxr_tests::{opencl, Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const THREADS: usize = 64;
const COUNTER_LOW: u64 = 0xbeef;
const COUNTER_INITIAL: u64 = 0xfff0;

/// One space's part of the kernel: the swap of the thread's slot at `%slot` (its old value
/// stored at `%old_address`), and the counter at `[COUNTER+2]`.
fn space_body(space: &str, counter: &str) -> String {
    let label = &space[1..];
    format!(
        " atom{space}.cas.b16 %old, [%slot], %expected, %swap;\n st.global.b16 [%old_address], %old;\n\
         ld{space}.b16 %seen, [{counter}+2];\n\
         RETRY_{label}:\n add.u16 %next, %seen, 1;\n\
         atom{space}.cas.b16 %old, [{counter}+2], %seen, %next;\n\
         setp.ne.b16 %retry, %old, %seen;\n mov.b16 %seen, %old;\n @%retry bra RETRY_{label};\n"
    )
}

fn kernel() -> String {
    let load = |parameter: &str, target: &str| {
        format!(" ld.param.u64 %base, [{parameter}];\n cvta.to.global.u64 %base, %base;\n add.u64 {target}, %base, %offset;\n")
    };
    format!(
        ".version 7.8\n.target sm_80\n.address_size 64\n\
         .global .align 4 .b16 global_counter[2] = {{{COUNTER_LOW}, {COUNTER_INITIAL}}};\n\
         .visible .entry cas16(.param .u64 global_slots, .param .u64 expected, .param .u64 swaps,\n\
         .param .u64 global_olds, .param .u64 shared_slots, .param .u64 shared_olds, .param .u64 counters)\n{{\n\
         .shared .align 4 .b16 slots[{THREADS}];\n.shared .align 4 .b16 shared_counter[2];\n\
         .reg .pred %first, %retry;\n.reg .b32 %thread;\n\
         .reg .b64 %offset, %base, %address, %slot, %old_address;\n\
         .reg .b16 %expected, %swap, %old, %seen, %next, %value;\n\
         mov.u32 %thread, %tid.x;\n setp.eq.u32 %first, %thread, 0;\n mul.wide.u32 %offset, %thread, 2;\n\
         {expected}ld.global.b16 %expected, [%address];\n\
         {swaps}ld.global.b16 %swap, [%address];\n\
         {shared_in}ld.global.b16 %value, [%address];\n\
         mov.u64 %slot, slots;\n add.u64 %slot, %slot, %offset;\n st.shared.b16 [%slot], %value;\n\
         mov.b16 %value, {COUNTER_LOW};\n @%first st.shared.b16 [shared_counter], %value;\n\
         mov.b16 %value, {COUNTER_INITIAL};\n @%first st.shared.b16 [shared_counter+2], %value;\n\
         bar.sync 0;\n\
         {global_slot}{global_olds}{global_body}\
         {shared_olds}{shared_body}\
         bar.sync 0;\n\
         ld.shared.b16 %value, [%slot];\n{shared_out} st.global.b16 [%address], %value;\n\
         @!%first bra DONE;\n\
         ld.param.u64 %base, [counters];\n cvta.to.global.u64 %base, %base;\n\
         ld.global.b16 %value, [global_counter];\n st.global.b16 [%base], %value;\n\
         ld.global.b16 %value, [global_counter+2];\n st.global.b16 [%base+2], %value;\n\
         ld.shared.b16 %value, [shared_counter];\n st.global.b16 [%base+4], %value;\n\
         ld.shared.b16 %value, [shared_counter+2];\n st.global.b16 [%base+6], %value;\n\
         DONE:\n ret;\n}}\n",
        expected = load("expected", "%address"),
        swaps = load("swaps", "%address"),
        shared_in = load("shared_slots", "%address"),
        global_slot = load("global_slots", "%slot_global"),
        global_olds = load("global_olds", "%old_address"),
        shared_olds = load("shared_olds", "%old_address"),
        shared_out = load("shared_slots", "%address"),
        global_body = space_body(".global", "global_counter").replace("[%slot]", "[%slot_global]"),
        shared_body = space_body(".shared", "shared_counter"),
    )
    .replace(".reg .b64 %offset,", ".reg .b64 %slot_global, %offset,")
}

#[test]
fn sixteen_bit_compare_and_swap_equals_the_model_on_the_cpu_and_on_spirv() {
    let mut random = Random::new(16);
    let values: Vec<u64> = (0..THREADS).map(|_| u64::from(random.next_u32() as u16)).collect();
    let expected: Vec<u64> =
        values.iter().enumerate().map(|(slot, &value)| if slot % 2 == 0 { value } else { value ^ 1 }).collect();
    let swaps: Vec<u64> = (0..THREADS).map(|_| u64::from(random.next_u32() as u16)).collect();
    let buffers = [
        Buffer::new("b16", values.clone()),
        Buffer::new("b16", expected.clone()),
        Buffer::new("b16", swaps.clone()),
        Buffer::zeroed("b16", THREADS),
        Buffer::new("b16", values.clone()),
        Buffer::zeroed("b16", THREADS),
        Buffer::zeroed("b16", 4),
    ];
    // The model: a slot takes its swap value where it held the expected one.
    let swapped: Vec<u64> =
        (0..THREADS).map(|slot| if values[slot] == expected[slot] { swaps[slot] } else { values[slot] }).collect();
    let counted = (COUNTER_INITIAL + THREADS as u64) & 0xffff;
    let ptx = kernel();
    let launch = Launch::threads(THREADS as u32);
    for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
        assert_eq!(result[0], swapped, "{device}: the global slots");
        assert_eq!(result[3], values, "{device}: the global swaps' old values");
        assert_eq!(result[4], swapped, "{device}: the shared slots");
        assert_eq!(result[5], values, "{device}: the shared swaps' old values");
        assert_eq!(result[6], vec![COUNTER_LOW, counted, COUNTER_LOW, counted], "{device}: the counters");
    }
}
