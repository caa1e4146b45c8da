//! `mma.sp.sync.aligned` (ISA 7.8 section 9.7.13.5) on the CPU and, when an OpenCL platform is
//! set up (`OCL_ICD_VENDORS`), on SPIR-V through OpenCL: each lane loads its fragments and its
//! metadata register from an input buffer, the warp multiplies, and each lane stores its D
//! fragment. The model here builds a random 2:4-sparse dense A (every chunk of four keeps a
//! pair of places drawn from the six pairs), its non-zero half spread over the lanes as the
//! manual's tables say, and the metadata spread as NVIDIA's figures show it (the layout
//! `lowering/src/instructions/sparse_matrix.rs` documents with its sources); lanes that the
//! sparsity selector does not name hold random metadata, which must not count. The expected D
//! is C plus the dense products in order of k, exact in `f64`, rounded once to D's type with
//! the `half` crate: the dense `mma`'s arithmetic on these targets.
use half::{bf16, f16};
use ptxr_driver::target::describe;
use ptxr_driver::{compile_source, CompileOptions, Failure};
use ptxr_frontend::Code;
use ptxr_tests::lane_kernel::{per_lane_kernel, register_list};
use ptxr_tests::opencl::Device;
use ptxr_tests::{opencl, Buffer, Launch, Random};

/// The test that runs the child processes' OpenCL launches (see `ptxr_tests::opencl`).
const OPENCL_CHILD: &str = "opencl_child_process";

#[test]
fn opencl_child_process() {
    opencl::serve_child();
}

fn run_on(device: Device, ptx: &str, launch: &Launch<'_>, buffers: &[Buffer]) -> Vec<Vec<u64>> {
    opencl::run_ok_on(device, ptx, launch, buffers, OPENCL_CHILD)
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    F16,
    Bf16,
    Tf32,
    F32,
}

impl Kind {
    fn per_register(self) -> usize {
        match self {
            Kind::F16 | Kind::Bf16 => 2,
            Kind::Tf32 | Kind::F32 => 1,
        }
    }

    /// The bits of `value`, which is exact in this type; `.tf32` gets `noise` in the 13 low
    /// mantissa bits, which `mma` ignores.
    fn encode(self, value: f64, noise: u32) -> u32 {
        match self {
            Kind::F16 => u32::from(f16::from_f64(value).to_bits()),
            Kind::Bf16 => u32::from(bf16::from_f64(value).to_bits()),
            Kind::Tf32 => (value as f32).to_bits() | (noise & 0x1fff),
            Kind::F32 => (value as f32).to_bits(),
        }
    }

    /// A random non-zero value exact in this type: a small integer, or (`rounding`) one with
    /// random mantissa bits and an exponent near one, so that sums round.
    fn random(self, random: &mut Random, rounding: bool) -> f64 {
        let raw = random.next_u64();
        let sign = if raw & 1 == 0 { 1.0 } else { -1.0 };
        if !rounding {
            return sign * (1 + (raw >> 1) % 9) as f64;
        }
        let exponent = ((raw >> 1) % 12) as i32 - 8;
        let mantissa = match self {
            Kind::F16 | Kind::Tf32 | Kind::F32 => 1.0 + ((raw >> 8) % 1024) as f64 / 1024.0,
            Kind::Bf16 => 1.0 + ((raw >> 8) % 128) as f64 / 128.0,
        };
        sign * mantissa * 2f64.powi(exponent)
    }
}

struct Form {
    /// Without the sparsity selector, which each run appends.
    spelling: &'static str,
    k: usize,
    d: Kind,
    ab: Kind,
    c: Kind,
    rounding: bool,
}

/// The six pairs of places a chunk of four may keep (`.f16`, `.bf16`), as (first index, second
/// index).
const PAIRS: [(usize, usize); 6] = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)];

/// A chunk of four (two on `.tf32`) of a row of A.
struct Chunk {
    /// Each place that holds a non-zero element, and which of the chunk's kept elements.
    places: Vec<(usize, usize)>,
    /// The chunk's four bits of metadata.
    metadata: u32,
}

/// A random chunk of A's row: for each place that holds a non-zero element, the place and
/// which of the chunk's kept elements (0 or 1) it holds; and the chunk's four bits of
/// metadata. On `.tf32` (1:2) the indices name 16-bit halves: 0b0100 keeps the first
/// element, 0b1110 the second. With `repeated`, the metadata is one PTX leaves undefined (both
/// indices equal: 0b0000, 0b0101, 0b1010, 0b1111), and the chunk holds what ptxr documents for
/// it: `.f16`/`.bf16` the second kept element at the index's place; `.tf32` the kept element
/// at the element that the first index's high bit names.
fn random_chunk(ab: Kind, repeated: bool, random: &mut Random) -> Chunk {
    let raw = random.next_u64();
    match (ab, repeated) {
        (Kind::Tf32, false) => {
            let place = (raw % 2) as usize;
            Chunk { places: vec![(place, 0)], metadata: [0b0100, 0b1110][place] }
        }
        (Kind::Tf32, true) => {
            let index = (raw % 4) as usize;
            Chunk { places: vec![(index >> 1, 0)], metadata: (index | index << 2) as u32 }
        }
        (_, false) => {
            let (first, second) = PAIRS[(raw % 6) as usize];
            Chunk { places: vec![(first, 0), (second, 1)], metadata: (first | second << 2) as u32 }
        }
        (_, true) => {
            let index = (raw % 4) as usize;
            Chunk { places: vec![(index, 1)], metadata: (index | index << 2) as u32 }
        }
    }
}

/// Non-zero elements kept of each chunk.
fn kept_per_chunk(ab: Kind) -> usize {
    if ab == Kind::Tf32 {
        1
    } else {
        2
    }
}

/// Dense elements in a chunk.
fn chunk(ab: Kind) -> usize {
    if ab == Kind::Tf32 {
        2
    } else {
        4
    }
}

/// Row and column of element `i` of `lane`'s fragment of A's non-zero half (16 × k/2), as the
/// manual gives them. `.f16`/`.bf16`: on `.m16n8k16` `a0, a1` are row `groupID`, `a2, a3` row
/// `groupID + 8`, non-zero columns `2·threadID_in_group` and the next; `.m16n8k32` adds `a4`
/// to `a7` 8 columns on (the dense `.m16n8k16` table). `.tf32`: `a0` row `groupID`, `a1` row
/// `groupID + 8`, non-zero column `threadID_in_group`; `.m16n8k16` adds `a2, a3` 4 columns on.
fn a_table(ab: Kind, k: usize, lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    match (ab, k) {
        (Kind::Tf32, _) => (if i % 2 == 0 { group } else { group + 8 }, thread + 4 * (i / 2)),
        (_, 16) => (if i < 2 { group } else { group + 8 }, 2 * thread + (i & 1)),
        _ => (
            if matches!(i, 0 | 1 | 4 | 5) { group } else { group + 8 },
            2 * thread + (i & 1) + if i < 4 { 0 } else { 8 },
        ),
    }
}

/// B (k × 8), column `groupID`: `.f16`/`.bf16` `b0, b1` rows `2·threadID_in_group` and the
/// next, each further pair 8 rows on; `.tf32` `b_i` row `threadID_in_group + 4i`.
fn b_table(ab: Kind, lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    match ab {
        Kind::Tf32 => (thread + 4 * i, group),
        _ => (2 * thread + (i & 1) + 8 * (i / 2), group),
    }
}

fn accumulator_table(lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    (if i < 2 { group } else { group + 8 }, thread * 2 + (i & 1))
}

fn pack(registers: &mut [u32], kind: Kind, i: usize, bits: u32) {
    let per = kind.per_register();
    let width = 32 / per as u32;
    let mask = if width == 32 { u32::MAX } else { (1 << width) - 1 };
    registers[i / per] |= (bits & mask) << ((i % per) as u32 * width);
}

fn kernel(form: &Form, selector: u32, counts: [usize; 4]) -> String {
    kernel_with_counts(form.spelling, selector, counts)
}

/// A kernel whose lanes load A's, B's and C's registers and `e` (`counts` A, B, C and D
/// registers) from the input, run `spelling` with `selector`, and store D.
fn kernel_with_counts(spelling: &str, selector: u32, counts: [usize; 4]) -> String {
    let [a, b, c, d] = counts;
    let instruction = format!(
        "{spelling} {{{}}}, {{{}}}, {{{}}}, {{{}}}, %e0, {selector};",
        register_list("d", d),
        register_list("a", a),
        register_list("b", b),
        register_list("c", c)
    );
    per_lane_kernel(&[("a", a), ("b", b), ("c", c), ("e", 1)], d, &instruction)
}

fn counts(form: &Form) -> [usize; 4] {
    let per = form.ab.per_register();
    [
        16 * form.k / 2 / 32 / per,
        form.k * 8 / 32 / per,
        128 / 32 / form.c.per_register(),
        128 / 32 / form.d.per_register(),
    ]
}

/// The selectors a form takes: four where a row has four chunks (one lane of each group gives
/// the metadata), two where it has eight (a pair of lanes).
fn selectors(form: &Form) -> u32 {
    if form.k / chunk(form.ab) == 4 {
        4
    } else {
        2
    }
}

/// Runs `form` with sparsity selector `selector` on `warps` warps and checks every lane's D;
/// `repeated`: every chunk's metadata is one PTX leaves undefined ([`random_chunk`]).
fn check_on(device: Device, form: &Form, selector: u32, repeated: bool, warps: usize, seed: u64) {
    let k = form.k;
    let [a_count, b_count, c_count, d_count] = counts(form);
    let mut random = Random::new(seed);
    let mut input = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..warps {
        // Each chunk keeps a random pair (or element, on `.tf32`).
        let chunks: Vec<Vec<Chunk>> = (0..16)
            .map(|_| (0..k / chunk(form.ab)).map(|_| random_chunk(form.ab, repeated, &mut random)).collect())
            .collect();
        let mut a = vec![vec![0.0; k]; 16];
        let mut kept = vec![vec![0.0; k / 2]; 16];
        let per_chunk = kept_per_chunk(form.ab);
        for row in 0..16 {
            for (index, Chunk { places, .. }) in chunks[row].iter().enumerate() {
                for s in 0..per_chunk {
                    kept[row][per_chunk * index + s] = form.ab.random(&mut random, form.rounding);
                }
                for &(place, s) in places {
                    a[row][chunk(form.ab) * index + place] = kept[row][per_chunk * index + s];
                }
            }
        }
        let b: Vec<Vec<f64>> =
            (0..k).map(|_| (0..8).map(|_| form.ab.random(&mut random, form.rounding)).collect()).collect();
        let c: Vec<Vec<f64>> =
            (0..16).map(|_| (0..8).map(|_| form.c.random(&mut random, form.rounding)).collect()).collect();
        // A row's metadata: four bits a chunk, chunk 0 lowest.
        let row_metadata = |row: usize, range: std::ops::Range<usize>| -> u32 {
            range.enumerate().fold(0, |word, (n, index)| word | chunks[row][index].metadata << (4 * n))
        };
        for lane in 0..32 {
            let mut registers = vec![0u32; a_count + b_count + c_count + 1];
            for i in 0..16 * k / 2 / 32 {
                let (row, column) = a_table(form.ab, k, lane, i);
                let noise = random.next_u32();
                pack(&mut registers[..a_count], form.ab, i, form.ab.encode(kept[row][column], noise));
            }
            for i in 0..k * 8 / 32 {
                let (row, column) = b_table(form.ab, lane, i);
                let noise = random.next_u32();
                pack(&mut registers[a_count..a_count + b_count], form.ab, i, form.ab.encode(b[row][column], noise));
            }
            for i in 0..4 {
                let (row, column) = accumulator_table(lane, i);
                pack(
                    &mut registers[a_count + b_count..a_count + b_count + c_count],
                    form.c,
                    i,
                    form.c.encode(c[row][column], 0),
                );
            }
            // The selected lanes of group g give rows g (low half) and g + 8 (high half): with
            // four chunks a row lane 4g + f all four, with eight lane 4g + 2f + p chunks 4p to
            // 4p + 3. The other lanes hold noise.
            let (group, thread) = (lane / 4, lane % 4);
            let lanes = 4 / selectors(form) as usize;
            let metadata = if thread / lanes == selector as usize {
                let p = thread % lanes;
                let chunks = 4 * p..4 * p + 4;
                row_metadata(group, chunks.clone()) | row_metadata(group + 8, chunks) << 16
            } else {
                random.next_u32()
            };
            registers[a_count + b_count + c_count] = metadata;
            input.extend(registers);
            let mut d = vec![0u32; d_count];
            for i in 0..4 {
                let (row, column) = accumulator_table(lane, i);
                let sum = (0..k).fold(c[row][column], |sum, x| sum + a[row][x] * b[x][column]);
                let bits = match form.d {
                    Kind::F16 => u32::from(f16::from_f64(sum).to_bits()),
                    _ => (sum as f32).to_bits(),
                };
                pack(&mut d, form.d, i, bits);
            }
            expected.extend(d);
        }
    }
    let ptx = kernel(form, selector, counts(form));
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", expected.len())];
    let output = run_on(device, &ptx, &Launch::threads(32 * warps as u32), &buffers);
    for (index, (&got, &want)) in output[1].iter().zip(&expected).enumerate() {
        let (thread, register) = (index / d_count, index % d_count);
        assert_eq!(got, u64::from(want), "{} selector {selector}: thread {thread} d{register}", form.spelling);
    }
}

fn half_precision_forms() -> Vec<Form> {
    use Kind::{Bf16, F16, F32};
    let form = |spelling, k, d, ab, c, rounding| Form { spelling, k, d, ab, c, rounding };
    vec![
        form("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, F32, F16, F32, true),
        form("mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, F16, F16, F16, false),
        form("mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, F32, Bf16, F32, true),
        form("mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32", 32, F32, F16, F32, true),
        form("mma.sp.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16", 32, F16, F16, F16, false),
        form("mma.sp.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32", 32, F32, Bf16, F32, true),
    ]
}

fn tf32_forms() -> Vec<Form> {
    use Kind::{Tf32, F32};
    vec![
        Form {
            spelling: "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
            k: 8,
            d: F32,
            ab: Tf32,
            c: F32,
            rounding: true,
        },
        Form {
            spelling: "mma.sp.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32",
            k: 16,
            d: F32,
            ab: Tf32,
            c: F32,
            rounding: true,
        },
    ]
}

fn every_selector(device: Device, forms: &[Form], seed: u64) {
    for (index, form) in forms.iter().enumerate() {
        for selector in 0..selectors(form) {
            check_on(device, form, selector, false, 2, seed + 100 * index as u64 + u64::from(selector));
        }
    }
}

#[test]
fn mma_sp_f16_and_bf16_with_every_selector() {
    every_selector(Device::Cpu, &half_precision_forms(), 0);
}

#[test]
fn spirv_mma_sp_f16_and_bf16_with_every_selector() {
    if opencl::available() {
        every_selector(Device::OpenCl, &half_precision_forms(), 0);
    }
}

#[test]
fn mma_sp_tf32_with_every_selector() {
    every_selector(Device::Cpu, &tf32_forms(), 5000);
}

#[test]
fn spirv_mma_sp_tf32_with_every_selector() {
    if opencl::available() {
        every_selector(Device::OpenCl, &tf32_forms(), 5000);
    }
}

/// An integer form (`.s32` accumulators): A and B are 8-bit (`.m16n8k32`, `.m16n8k64`) or 4-bit
/// (`.m16n8k64`, `.m16n8k128`), signed or not.
struct IntegerForm {
    spelling: &'static str,
    k: usize,
    bits: u32,
    a_signed: bool,
    b_signed: bool,
    saturate: bool,
}

impl IntegerForm {
    /// Dense elements in a chunk: four units, a unit being an 8-bit element or a pair of
    /// 4-bit ones.
    fn chunk(&self) -> usize {
        4 * (8 / self.bits) as usize
    }

    /// Registers of A's non-zero half and of B (each `k·bits / 128`).
    fn registers(&self) -> usize {
        self.k * self.bits as usize / 128
    }

    /// The selectors the form takes (the manual's "Sparse matrix storage"): with sixteen chunks
    /// a row all four lanes of a group give metadata (0); with eight a pair does (0: lanes 0
    /// and 1, 1: lanes 2 and 3).
    fn selectors(&self) -> u32 {
        if self.k / self.chunk() == 16 {
            1
        } else {
            2
        }
    }
}

/// How the test spreads the metadata over the selected lanes.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Spread {
    /// As `lowering/src/instructions/sparse_matrix.rs` documents: the `lanes` selected lanes
    /// of group `g`, lane `h + 2q` (relative), give the whole word of row `g + 8h`, chunks `8q`
    /// to `8q + 7`.
    Documented,
    /// The same words with rows `g` and `g + 8` swapped between the lanes of each pair.
    RowsSwapped,
    /// Sixteen-bit halves as on `.f16` `.m16n8k32`: lane `p` (relative) gives chunks `4p` to
    /// `4p + 3` of row `g` in its low half and of row `g + 8` in its high half.
    Halves,
}

/// A random element of a `bits`-bit integer type, as its value.
fn random_element(bits: u32, signed: bool, random: &mut Random) -> i64 {
    let raw = i64::from(random.next_u32() & ((1 << bits) - 1));
    if signed && raw >= 1 << (bits - 1) {
        raw - (1 << bits)
    } else {
        raw
    }
}

/// A random accumulator: small, or within `span` of either end of `.s32`, so that adding the
/// products (of `bits`-bit elements, each up to 2^(2·bits)) often leaves the range.
fn random_accumulator(bits: u32, random: &mut Random) -> i64 {
    let span = 1i64 << (2 * bits);
    let raw = random.next_u64();
    let offset = ((raw >> 2) % span as u64) as i64;
    match raw % 3 {
        0 => offset - span / 2,
        1 => i64::from(i32::MAX) - offset,
        _ => i64::from(i32::MIN) + offset,
    }
}

/// Runs an integer form with sparsity selector `selector` on `warps` warps, the metadata
/// spread as `spread` says, and returns how many of D's registers differ from the exact sum,
/// wrapped to 32 bits or, with `.satfinite`, clamped (with [`Spread::Documented`] it asserts
/// that none does). A row is `k / chunk` chunks, each keeping two of its four units, a unit
/// being an 8-bit element (2:4) or a pair of adjacent 4-bit ones (4:8 in pairs, the manual's
/// "Sparse matrix storage"). A's non-zero half (16 × k/2) is spread as the manual's text says,
/// `per` = 32 / bits elements to a register: register `r`, element `j` of lane `4g + t` is row
/// `g + 8·(r mod 2)`, non-zero column `per·t + j + 4·per·(r / 2)` (8-bit: dense columns from
/// `threadID_in_group * 8`, `+ 32` on `.m16n8k64`; 4-bit: from `threadID_in_group * 16`,
/// `+ 64` on `.m16n8k128`). B (k × 8): register `r`, element `j` is row `per·t + j + 4·per·r`,
/// column `g`. The metadata: four bits a chunk, chunk 0 lowest, index `s` naming unit `s`,
/// given by the lanes the selector names as [`Spread`] says (the documented layout: CUTLASS's
/// sm_80 sparse GEMMs and, on 8 bits, tilelang for sixteen chunks a row; ptxas's own
/// assembly for eight; see `lowering/src/instructions/sparse_matrix.rs`); the other lanes hold
/// random words, which must not count.
fn integer_mismatches_on(
    device: Device,
    form: &IntegerForm,
    selector: u32,
    spread: Spread,
    warps: usize,
    seed: u64,
) -> usize {
    let k = form.k;
    let bits = form.bits;
    let per = (32 / bits) as usize;
    // Elements in a unit that one index names, in a chunk, and kept of a chunk.
    let unit = (8 / bits) as usize;
    let chunk = form.chunk();
    let kept_per_chunk = 2 * unit;
    let registers_ab = form.registers();
    // Lanes of a group that each selector value names.
    let lanes = 4 / form.selectors() as usize;
    let mut random = Random::new(seed);
    let mut input = Vec::new();
    let mut expected = Vec::new();
    // Sums beyond `.s32`, which D wraps or clamps: the data must have some.
    let mut overflows = 0;
    // The index pairs the chunks keep: every one of the six must come up.
    let mut seen = std::collections::HashSet::new();
    for _ in 0..warps {
        let pairs: Vec<Vec<(usize, usize)>> =
            (0..16).map(|_| (0..k / chunk).map(|_| PAIRS[(random.next_u64() % 6) as usize]).collect()).collect();
        seen.extend(pairs.iter().flatten().copied());
        let kept: Vec<Vec<i64>> =
            (0..16).map(|_| (0..k / 2).map(|_| random_element(bits, form.a_signed, &mut random)).collect()).collect();
        let mut a = vec![vec![0i64; k]; 16];
        for row in 0..16 {
            for (index, &(first, second)) in pairs[row].iter().enumerate() {
                for p in 0..unit {
                    a[row][chunk * index + unit * first + p] = kept[row][kept_per_chunk * index + p];
                    a[row][chunk * index + unit * second + p] = kept[row][kept_per_chunk * index + unit + p];
                }
            }
        }
        let b: Vec<Vec<i64>> =
            (0..k).map(|_| (0..8).map(|_| random_element(bits, form.b_signed, &mut random)).collect()).collect();
        let c: Vec<Vec<i64>> =
            (0..16).map(|_| (0..8).map(|_| random_accumulator(bits, &mut random)).collect()).collect();
        // Row `row`'s metadata for `count` chunks from `from`, the first in the low four bits.
        let row_metadata = |row: usize, from: usize, count: usize| -> u32 {
            (0..count).fold(0, |word, n| {
                let (first, second) = pairs[row][from + n];
                word | ((first | second << 2) as u32) << (4 * n)
            })
        };
        let mask = (1u32 << bits) - 1;
        for lane in 0..32 {
            let (group, thread) = (lane / 4, lane % 4);
            let mut registers = vec![0u32; 2 * registers_ab + 4 + 1];
            for r in 0..registers_ab {
                for j in 0..per {
                    let shift = bits * j as u32;
                    let row = group + 8 * (r % 2);
                    let a_element = kept[row][per * thread + j + 4 * per * (r / 2)] as u32 & mask;
                    registers[r] |= a_element << shift;
                    let b_element = b[per * thread + j + 4 * per * r][group] as u32 & mask;
                    registers[registers_ab + r] |= b_element << shift;
                }
            }
            for i in 0..4 {
                let (row, column) = accumulator_table(lane, i);
                registers[2 * registers_ab + i] = c[row][column] as i32 as u32;
            }
            let relative = thread % lanes;
            let (half, quarter) = (relative % 2, relative / 2);
            registers[2 * registers_ab + 4] = if thread / lanes != selector as usize {
                random.next_u32()
            } else {
                match spread {
                    Spread::Documented => row_metadata(group + 8 * half, 8 * quarter, 8),
                    Spread::RowsSwapped => row_metadata(group + 8 * (1 - half), 8 * quarter, 8),
                    Spread::Halves => {
                        row_metadata(group, 4 * relative, 4) | row_metadata(group + 8, 4 * relative, 4) << 16
                    }
                }
            };
            input.extend(registers);
            for i in 0..4 {
                let (row, column) = accumulator_table(lane, i);
                let sum = (0..k).fold(c[row][column], |sum, x| sum + a[row][x] * b[x][column]);
                overflows += usize::from(i32::try_from(sum).is_err());
                let d =
                    if form.saturate { sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 } else { sum as i32 };
                expected.push(d as u32);
            }
        }
    }
    assert!(overflows > 0, "{}: no sum leaves `.s32`", form.spelling);
    assert_eq!(seen.len(), PAIRS.len(), "{}: not every index pair", form.spelling);
    let ptx = kernel_with_counts(form.spelling, selector, [registers_ab, registers_ab, 4, 4]);
    let buffers = [Buffer::u32s(&input), Buffer::zeroed("u32", expected.len())];
    let output = run_on(device, &ptx, &Launch::threads(32 * warps as u32), &buffers);
    let mut mismatches = 0;
    for (index, (&got, &want)) in output[1].iter().zip(&expected).enumerate() {
        if spread == Spread::Documented {
            assert_eq!(
                got,
                u64::from(want),
                "{} selector {selector}: thread {} d{}",
                form.spelling,
                index / 4,
                index % 4
            );
        }
        mismatches += usize::from(got != u64::from(want));
    }
    mismatches
}

/// Checks `forms` with every selector each takes.
fn check_integers_on(device: Device, forms: &[IntegerForm], seed: u64) {
    for (index, form) in forms.iter().enumerate() {
        for selector in 0..form.selectors() {
            let seed = seed + 10 * index as u64 + u64::from(selector);
            integer_mismatches_on(device, form, selector, Spread::Documented, 2, seed);
        }
    }
}

fn integer_forms() -> Vec<IntegerForm> {
    let form =
        |spelling, a_signed, b_signed, saturate| IntegerForm { spelling, k: 64, bits: 8, a_signed, b_signed, saturate };
    vec![
        form("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32", true, true, false),
        form("mma.sp.sync.aligned.m16n8k64.row.col.s32.u8.s8.s32", false, true, false),
        form("mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32", true, false, true),
        form("mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u8.u8.s32", false, false, true),
    ]
}

/// The 8-bit forms of eight chunks a row.
fn integer_k32_forms() -> Vec<IntegerForm> {
    let form =
        |spelling, a_signed, b_signed, saturate| IntegerForm { spelling, k: 32, bits: 8, a_signed, b_signed, saturate };
    vec![
        form("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", true, true, false),
        form("mma.sp.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32", true, false, false),
        form("mma.sp.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32", false, false, false),
        form("mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32", true, true, true),
        form("mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32", false, true, true),
        form("mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32", false, false, true),
    ]
}

fn four_bit_forms() -> Vec<IntegerForm> {
    let form = |spelling, a_signed, b_signed, saturate| IntegerForm {
        spelling,
        k: 128,
        bits: 4,
        a_signed,
        b_signed,
        saturate,
    };
    vec![
        form("mma.sp.sync.aligned.m16n8k128.row.col.s32.s4.s4.s32", true, true, false),
        form("mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.s4.s32", false, true, false),
        form("mma.sp.sync.aligned.m16n8k128.row.col.s32.u4.u4.s32", false, false, false),
        form("mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.s4.s4.s32", true, true, true),
        form("mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.s4.u4.s32", true, false, true),
        form("mma.sp.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.u4.s32", false, false, true),
    ]
}

/// The 4-bit forms of eight chunks a row.
fn four_bit_k64_forms() -> Vec<IntegerForm> {
    let form =
        |spelling, a_signed, b_signed, saturate| IntegerForm { spelling, k: 64, bits: 4, a_signed, b_signed, saturate };
    vec![
        form("mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32", true, true, false),
        form("mma.sp.sync.aligned.m16n8k64.row.col.s32.u4.s4.s32", false, true, false),
        form("mma.sp.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32", false, false, false),
        form("mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.s4.s32", true, true, true),
        form("mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s4.u4.s32", true, false, true),
        form("mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32", false, false, true),
    ]
}

#[test]
fn mma_sp_8_bit_integers() {
    check_integers_on(Device::Cpu, &integer_forms(), 7000);
}

#[test]
fn spirv_mma_sp_8_bit_integers() {
    if opencl::available() {
        check_integers_on(Device::OpenCl, &integer_forms(), 7000);
    }
}

#[test]
fn mma_sp_8_bit_integers_of_eight_chunks_a_row_with_every_selector() {
    check_integers_on(Device::Cpu, &integer_k32_forms(), 7200);
}

#[test]
fn spirv_mma_sp_8_bit_integers_of_eight_chunks_a_row_with_every_selector() {
    if opencl::available() {
        check_integers_on(Device::OpenCl, &integer_k32_forms(), 7200);
    }
}

#[test]
fn mma_sp_4_bit_integers() {
    check_integers_on(Device::Cpu, &four_bit_forms(), 7500);
}

#[test]
fn spirv_mma_sp_4_bit_integers() {
    if opencl::available() {
        check_integers_on(Device::OpenCl, &four_bit_forms(), 7500);
    }
}

#[test]
fn mma_sp_4_bit_integers_of_eight_chunks_a_row_with_every_selector() {
    check_integers_on(Device::Cpu, &four_bit_k64_forms(), 7700);
}

#[test]
fn spirv_mma_sp_4_bit_integers_of_eight_chunks_a_row_with_every_selector() {
    if opencl::available() {
        check_integers_on(Device::OpenCl, &four_bit_k64_forms(), 7700);
    }
}

/// The data of the tests above tells the documented layout of eight chunks a row from its
/// neighbours: the pair's words with their rows swapped, or spread in 16-bit halves as on
/// `.f16` `.m16n8k32`, give a different D, for either selector.
#[test]
fn mma_sp_integers_of_eight_chunks_a_row_tell_the_metadata_layouts_apart() {
    let forms = [&integer_k32_forms()[0], &four_bit_k64_forms()[0]];
    for (index, form) in forms.into_iter().enumerate() {
        for selector in 0..form.selectors() {
            for spread in [Spread::RowsSwapped, Spread::Halves] {
                let seed = 7900 + 10 * index as u64 + u64::from(selector);
                let mismatches = integer_mismatches_on(Device::Cpu, form, selector, spread, 1, seed);
                assert!(
                    mismatches > 64,
                    "{} selector {selector} {spread:?}: {mismatches} of 128 differ",
                    form.spelling
                );
            }
        }
    }
}

/// Every form compiles for every GPU target, each artefact passing its vendor's check (ptxas
/// at sm_80, spirv-val, the AMDGPU code object's notes on gfx90a and gfx1100); below sm_80
/// NVPTX says E0302.
#[test]
fn mma_sp_forms_compile_for_the_gpus() {
    let Some(validators) = ptxr_tests::vendor_checks::Validators::find() else { return };
    let scratch = std::env::temp_dir().join(format!("ptxr-mma-sp-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap_or_else(|error| panic!("{error}"));
    let floats = half_precision_forms().into_iter().chain(tf32_forms());
    let mut sources: Vec<(&str, String)> =
        floats.map(|form| (form.spelling, kernel(&form, selectors(&form) - 1, counts(&form)))).collect();
    let integers =
        integer_forms().into_iter().chain(integer_k32_forms()).chain(four_bit_forms()).chain(four_bit_k64_forms());
    sources.extend(integers.map(|form| {
        let registers = form.registers();
        (form.spelling, kernel_with_counts(form.spelling, form.selectors() - 1, [registers, registers, 4, 4]))
    }));
    for (index, (spelling, source)) in sources.iter().enumerate() {
        for target in ["nvptx", "spirv"] {
            let ptxr_tests::vendor_checks::Compiled::Artefact(artefact) =
                ptxr_tests::vendor_checks::compile(source, target)
            else {
                panic!("{} does not compile for {target}", spelling)
            };
            if target == "nvptx" {
                let text = String::from_utf8_lossy(&artefact);
                assert!(text.contains("mma.sp.sync.aligned"), "{}:\n{text}", spelling);
            }
            let name = format!("mma-sp{index}");
            if let Err(message) = validators.check(target, &name, source, &artefact, &scratch) {
                panic!("{} on {target}: {message}", spelling);
            }
        }
        // Wave64 and wave32 processors: the shuffles cross a 32-lane warp within either.
        for processor in ["gfx90a", "gfx1100"] {
            let target = describe("amdgpu", Some(processor), false).unwrap_or_else(|error| panic!("{error}"));
            let options = CompileOptions { target, emit: None, optimization: 2 };
            let artefact = compile_source(source, "kernel", &options)
                .unwrap_or_else(|failure| panic!("{} on {processor}: {failure:?}", spelling));
            let name = format!("mma-sp{index}-{processor}");
            if let Err(message) = validators.check("amdgpu", &name, source, &artefact.bytes, &scratch) {
                panic!("{} on {processor}: {message}", spelling);
            }
        }
        let sm75 = describe("nvptx", Some("sm_75"), false).unwrap_or_else(|error| panic!("{error}"));
        match compile_source(source, "kernel", &CompileOptions { target: sm75, emit: None, optimization: 2 }) {
            Err(Failure::Diagnostics(diagnostics)) => assert!(
                diagnostics.iter().any(|diagnostic| diagnostic.code == Code::NeedsNewerTarget),
                "{} on sm_75: {diagnostics:?}",
                spelling
            ),
            other => panic!("{} on sm_75: {:?}", spelling, other.map(|_| ())),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Metadata that PTX leaves undefined (both indices of a chunk equal) gives the result
/// `lowering/src/instructions/sparse_matrix.rs` documents, on the CPU and on SPIR-V.
#[test]
fn mma_sp_repeated_indices_give_the_documented_result() {
    let forms = [&half_precision_forms()[0], &half_precision_forms()[5], &tf32_forms()[1]];
    for device in [Device::Cpu, Device::OpenCl] {
        if device == Device::OpenCl && !opencl::available() {
            continue;
        }
        for (index, form) in forms.iter().enumerate() {
            check_on(device, form, 0, true, 1, 9000 + index as u64);
        }
    }
}
