//! `atom.add.noftz` on `.f16`, `.bf16`, `.f16x2` and `.bf16x2` (ISA 7.8 section 9.7.12.5) in
//! `.global` and `.shared` memory, on the CPU and, when an OpenCL platform is set up
//! (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL, where each is a loop of 32-bit
//! compare-and-swaps on the word that holds the value. The model is the `half` crate: each
//! lane's sum rounded to nearest even, subnormals kept (`.noftz`).
//!
//! Each thread adds its own addend to its own slot; neighbouring 16-bit slots share a word, so
//! the lanes that the swaps write back must be left as they were. Then every thread adds one
//! to a counter in the high half of a word, whose low half must not change: the sums there are
//! exact, so the final value and the multiset of returned values do not depend on the order.

use half::{bf16, f16};
use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions};
use ptxr_tests::vendor_checks::{self, spirv_environment};
use ptxr_tests::{opencl, Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

const THREADS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Half,
    Brain,
}

impl Format {
    /// The sum of two lanes, rounded to nearest even (exact in `f64`, or rounded there with more
    /// than twice the format's precision, which leaves the second rounding the only one).
    fn add(self, a: u16, b: u16) -> u16 {
        match self {
            Format::Half => f16::from_f64(f16::from_bits(a).to_f64() + f16::from_bits(b).to_f64()).to_bits(),
            Format::Brain => bf16::from_f64(bf16::from_bits(a).to_f64() + bf16::from_bits(b).to_f64()).to_bits(),
        }
    }

    fn is_nan(self, bits: u16) -> bool {
        match self {
            Format::Half => f16::from_bits(bits).is_nan(),
            Format::Brain => bf16::from_bits(bits).is_nan(),
        }
    }

    fn bits_of(self, value: f64) -> u16 {
        match self {
            Format::Half => f16::from_f64(value).to_bits(),
            Format::Brain => bf16::from_f64(value).to_bits(),
        }
    }

    /// Pairs whose sums round on a tie, cross into and out of the subnormals, overflow, and
    /// add signed zeros.
    fn edge_cases(self) -> Vec<(u16, u16)> {
        let (one, half_unit_of_one, largest) = match self {
            Format::Half => (0x3c00, 0x1000, 0x7bff),
            Format::Brain => (0x3f80, 0x3b80, 0x7f7f),
        };
        vec![
            (one, half_unit_of_one),
            (one + 1, half_unit_of_one),
            (one | 0x8000, half_unit_of_one | 0x8000),
            (0x0001, 0x0001),
            (0x8001, 0x0000),
            (largest, largest),
            (largest | 0x8000, largest | 0x8000),
            (0x8000, 0x8000),
            (0x8000, 0x0000),
            (one, one | 0x8000),
            (self.bits_of(0.1), self.bits_of(0.2)),
            (self.bits_of(-3.75), self.bits_of(1e-3)),
        ]
    }
}

/// One of the four types: its PTX name, format and lanes per element (1 or 2).
#[derive(Clone, Copy, Debug)]
struct Type {
    name: &'static str,
    format: Format,
    lanes: usize,
}

const TYPES: [Type; 4] = [
    Type { name: "f16", format: Format::Half, lanes: 1 },
    Type { name: "bf16", format: Format::Brain, lanes: 1 },
    Type { name: "f16x2", format: Format::Half, lanes: 2 },
    Type { name: "bf16x2", format: Format::Brain, lanes: 2 },
];

impl Type {
    fn bits(self) -> usize {
        16 * self.lanes
    }

    fn buffer_element(self) -> &'static str {
        if self.lanes == 1 {
            "b16"
        } else {
            "b32"
        }
    }

    /// Applies `lane` to each lane of two elements.
    fn lanewise(self, a: u64, b: u64, lane: impl Fn(u16, u16) -> u16) -> u64 {
        (0..self.lanes).fold(0, |result, index| {
            let shift = 16 * index;
            result | u64::from(lane((a >> shift) as u16, (b >> shift) as u16)) << shift
        })
    }

    fn add(self, a: u64, b: u64) -> u64 {
        self.lanewise(a, b, |a, b| self.format.add(a, b))
    }

    /// An element with every lane `value`, `value + 1`, ...
    fn splat(self, value: f64) -> u64 {
        (0..self.lanes).fold(0, |result, index| {
            result | u64::from(self.format.bits_of(value * (index + 1) as f64)) << (16 * index)
        })
    }

    /// The slots' values and addends: the edge cases, then random bits; no NaN, and no sum that
    /// is NaN (infinities of both signs).
    fn inputs(self, seed: u64) -> (Vec<u64>, Vec<u64>) {
        let mut random = Random::new(seed);
        let mut pairs: Vec<(u16, u16)> = self.format.edge_cases();
        while pairs.len() < THREADS * self.lanes {
            pairs.push((random.next_u32() as u16, random.next_u32() as u16));
        }
        // Clearing the exponent's top bit (bit 14 in both formats) leaves a finite value.
        let clean = |bits: u16| if self.format.is_nan(bits) { bits & 0xbfff } else { bits };
        let pairs: Vec<(u16, u16)> = pairs
            .into_iter()
            .map(|(a, b)| {
                let (a, b) = (clean(a), clean(b));
                if self.format.is_nan(self.format.add(a, b)) {
                    (a, 0)
                } else {
                    (a, b)
                }
            })
            .collect();
        let element = |lanes: &[(u16, u16)], pick: fn(&(u16, u16)) -> u16| {
            lanes.iter().enumerate().fold(0u64, |result, (index, pair)| result | u64::from(pick(pair)) << (16 * index))
        };
        let chunks: Vec<&[(u16, u16)]> = pairs.chunks(self.lanes).take(THREADS).collect();
        (
            chunks.iter().map(|lanes| element(lanes, |pair| pair.0)).collect(),
            chunks.iter().map(|lanes| element(lanes, |pair| pair.1)).collect(),
        )
    }

    fn kernel(self) -> String {
        let bytes = self.bits() / 8;
        let bits = self.bits();
        let name = self.name;
        let one = self.splat(1.0);
        // Scalars: the counter is the high half of a word (element 1); pairs: the whole word.
        let counter_offset = if self.lanes == 1 { 2 } else { 4 };
        let counter_initial = self.splat(0.5);
        format!(
            ".version 7.8\n.target sm_90\n.address_size 64\n\
             .visible .entry half_add(.param .u64 global_values, .param .u64 addends, .param .u64 global_olds,\n\
             .param .u64 shared_values, .param .u64 shared_olds, .param .u64 counters, .param .u64 counter_olds)\n{{\n\
             .shared .align 4 .b8 slots[{slots}];\n\
             .shared .align 4 .b8 shared_counter[8];\n\
             .reg .pred %first;\n.reg .b32 %thread;\n\
             .reg .b64 %offset, %base, %address, %shared_address;\n\
             .reg .b{bits} %value, %addend, %old, %one;\n\
             mov.u32 %thread, %tid.x;\n setp.eq.u32 %first, %thread, 0;\n mov.b{bits} %one, {one};\n\
             mul.wide.u32 %offset, %thread, {bytes};\n\
             ld.param.u64 %base, [addends];\n cvta.to.global.u64 %base, %base;\n add.u64 %address, %base, %offset;\n\
             ld.global.b{bits} %addend, [%address];\n\
             ld.param.u64 %base, [global_values];\n cvta.to.global.u64 %base, %base;\n add.u64 %address, %base, %offset;\n\
             atom.global.add.noftz.{name} %old, [%address], %addend;\n\
             ld.param.u64 %base, [global_olds];\n cvta.to.global.u64 %base, %base;\n add.u64 %address, %base, %offset;\n\
             st.global.b{bits} [%address], %old;\n\
             ld.param.u64 %base, [shared_values];\n cvta.to.global.u64 %base, %base;\n add.u64 %address, %base, %offset;\n\
             ld.global.b{bits} %value, [%address];\n\
             mov.u64 %shared_address, slots;\n add.u64 %shared_address, %shared_address, %offset;\n\
             st.shared.b{bits} [%shared_address], %value;\n\
             mov.b{bits} %value, {counter_initial};\n @%first st.shared.b{bits} [shared_counter+{counter_offset}], %value;\n\
             mov.b{bits} %value, 0;\n @%first st.shared.b{bits} [shared_counter], %value;\n\
             bar.sync 0;\n\
             atom.shared.add.noftz.{name} %old, [%shared_address], %addend;\n\
             ld.param.u64 %base, [shared_olds];\n cvta.to.global.u64 %base, %base;\n add.u64 %address, %base, %offset;\n\
             st.global.b{bits} [%address], %old;\n\
             ld.param.u64 %base, [counters];\n cvta.to.global.u64 %base, %base;\n\
             atom.global.add.noftz.{name} %old, [%base+{counter_offset}], %one;\n\
             mul.wide.u32 %offset, %thread, {double_bytes};\n\
             ld.param.u64 %base, [counter_olds];\n cvta.to.global.u64 %base, %base;\n add.u64 %address, %base, %offset;\n\
             st.global.b{bits} [%address], %old;\n\
             atom.shared.add.noftz.{name} %old, [shared_counter+{counter_offset}], %one;\n\
             st.global.b{bits} [%address+{bytes}], %old;\n\
             bar.sync 0;\n\
             mul.wide.u32 %offset, %thread, {bytes};\n\
             ld.shared.b{bits} %value, [%shared_address];\n\
             ld.param.u64 %base, [shared_values];\n cvta.to.global.u64 %base, %base;\n add.u64 %address, %base, %offset;\n\
             st.global.b{bits} [%address], %value;\n\
             @!%first bra DONE;\n\
             ld.param.u64 %base, [counters];\n cvta.to.global.u64 %base, %base;\n\
             ld.shared.b{bits} %value, [shared_counter];\n st.global.b{bits} [%base+{shared_counter_low}], %value;\n\
             ld.shared.b{bits} %value, [shared_counter+{counter_offset}];\n st.global.b{bits} [%base+{shared_counter_high}], %value;\n\
             DONE:\n ret;\n}}\n",
            slots = THREADS * bytes,
            double_bytes = 2 * bytes,
            shared_counter_low = 2 * bytes,
            shared_counter_high = 3 * bytes,
        )
    }
}

fn check(ty: Type, device: &str, result: &[Vec<u64>], values: &[u64], addends: &[u64], counters: &[u64]) {
    let context = format!("{device}, atom.add.noftz.{}", ty.name);
    for (slot, (&value, &addend)) in values.iter().zip(addends).enumerate() {
        let sum = ty.add(value, addend);
        let show = format!("{value:#x} + {addend:#x}");
        assert_eq!(result[0][slot], sum, "{context}: global slot {slot}: {show}");
        assert_eq!(result[2][slot], value, "{context}: global old value of slot {slot}");
        assert_eq!(result[3][slot], sum, "{context}: shared slot {slot}: {show}");
        assert_eq!(result[4][slot], value, "{context}: shared old value of slot {slot}");
    }
    // The counters: [global low, global high, shared low, shared high]; the low halves of the
    // scalars' words stay as they were.
    let (one, initial) = (ty.splat(1.0), ty.splat(0.5));
    let mut expected_olds = Vec::with_capacity(THREADS);
    let mut total = initial;
    for _ in 0..THREADS {
        expected_olds.push(total);
        total = ty.add(total, one);
    }
    assert_eq!(result[5][0], counters[0], "{context}: the global counter's neighbour");
    assert_eq!(result[5][1], total, "{context}: the global counter");
    assert_eq!(result[5][2], 0, "{context}: the shared counter's neighbour");
    assert_eq!(result[5][3], total, "{context}: the shared counter");
    for (counter, column) in [("global", 0), ("shared", 1)] {
        let mut olds: Vec<u64> = result[6].iter().skip(column).step_by(2).copied().collect();
        olds.sort_unstable();
        let mut expected = expected_olds.clone();
        expected.sort_unstable();
        assert_eq!(olds, expected, "{context}: the values the {counter} counter's adds returned");
    }
}

#[test]
fn half_precision_atomic_adds_round_to_nearest_even_on_the_cpu_and_on_spirv() {
    for (seed, ty) in TYPES.into_iter().enumerate() {
        let (values, addends) = ty.inputs(seed as u64 + 1);
        let counters = vec![0x1234 & ((1 << ty.bits()) - 1), ty.splat(0.5), 0, 0];
        let element = ty.buffer_element();
        let buffers = [
            Buffer::new(element, values.clone()),
            Buffer::new(element, addends.clone()),
            Buffer::zeroed(element, THREADS),
            Buffer::new(element, values.clone()),
            Buffer::zeroed(element, THREADS),
            Buffer::new(element, counters.clone()),
            Buffer::zeroed(element, 2 * THREADS),
        ];
        let ptx = ty.kernel();
        let launch = Launch::threads(THREADS as u32);
        for (device, result) in opencl::run_everywhere(&ptx, &launch, &buffers, OPENCL_CHILD) {
            check(ty, device, &result, &values, &addends, &counters);
        }
    }
}

/// The loops build no `half` or `bfloat` value and no 16-bit atomic, so the SPIR-V passes
/// `spirv-val` for OpenCL 2.2 (no Float16 or Int16 capability) at -O0, where nothing would
/// remove an unused conversion, as at -O2.
#[test]
fn half_precision_atomic_adds_pass_spirv_val_for_opencl() {
    for ty in TYPES {
        for optimization in [0, 2] {
            let description = describe("spirv", None, false).unwrap_or_else(|error| panic!("{error}"));
            let options = CompileOptions { target: description, emit: None, optimization };
            let binary = compile_source(&ty.kernel(), "half_atomics", &options)
                .unwrap_or_else(|failure| panic!("{}, -O{optimization}: {failure:?}", ty.name))
                .bytes;
            let environment = spirv_environment(&binary);
            let name = format!("half-atomics-{}", ty.name);
            if let Some(Err(message)) = vendor_checks::spirv_val(&binary, &environment, &name) {
                panic!("{}, -O{optimization}: spirv-val {environment}: {message}", ty.name);
            }
        }
    }
}
