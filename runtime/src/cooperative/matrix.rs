//! What the matrix collectives `mma.sync` and `ldmatrix.sync` compute once a warp's lanes have
//! met (ISA 7.8 sections 9.7.13.4.14 and 9.7.13.4.15). Each lane deposits the address of its
//! fragment buffer ([`crate::abi::matrix_fragments`]); the matrices are assembled from every
//! lane's fragments, and each lane's result is written back into its own buffer.
//!
//! Fragments follow one layout for every shape computed here. With `group = lane / 4` and
//! `thread = lane % 4`, a register holding `per` elements of `e` bits:
//!
//! - A (M×K, row-major): register `r`, element `j` is row `group + 8·(r mod 2)` (M = 16) or
//!   `group` (M = 8), column `thread·per + j + 4·per·kb` with `kb = r / 2` (M = 16) or `r`.
//! - B (K×N, column-major): register `r`, element `j` is row `thread·per + j + 4·per·r`,
//!   column `group`.
//! - C and D (M×N): element `i` is row `group + 8·(i / 2)`, column `thread·2 + i mod 2`.
//!
//! Arithmetic: `.f16`/`.bf16`/`.tf32` products are exact in `f64` and summed there, then
//! rounded once to D's type (nearest even); `.tf32` operands ignore their 13 low mantissa bits.
//! Integer products are summed exactly; D wraps to 32 bits, or saturates with `.satfinite`.

use half::{bf16, f16};

use super::warp::Deposit;
use crate::abi::{matrix_fragments as slot, matrix_operation as code, warp_collective};

/// One lane's fragment buffer.
pub type Fragments = [u32; slot::WORDS];

const WARP_SIZE: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    F16,
    Bf16,
    Tf32,
    F32,
    S8,
    U8,
    S32,
}

impl Element {
    fn decode(code: u32) -> Option<Element> {
        Some(match code {
            code::ELEMENT_F16 => Element::F16,
            code::ELEMENT_BF16 => Element::Bf16,
            code::ELEMENT_TF32 => Element::Tf32,
            code::ELEMENT_F32 => Element::F32,
            code::ELEMENT_S8 => Element::S8,
            code::ELEMENT_U8 => Element::U8,
            code::ELEMENT_S32 => Element::S32,
            _ => return None,
        })
    }

    fn bits(self) -> u32 {
        match self {
            Element::F16 | Element::Bf16 => 16,
            Element::Tf32 | Element::F32 | Element::S32 => 32,
            Element::S8 | Element::U8 => 8,
        }
    }

    /// Elements per 32-bit register.
    fn per_register(self) -> usize {
        (32 / self.bits()) as usize
    }

    /// The value of element `index` of a register, exactly.
    fn value(self, register: u32, index: usize) -> f64 {
        let bits = register >> (index as u32 * self.bits());
        match self {
            Element::F16 => f16::from_bits(bits as u16).to_f64(),
            Element::Bf16 => bf16::from_bits(bits as u16).to_f64(),
            Element::Tf32 => f64::from(f32::from_bits(bits & 0xffff_e000)),
            Element::F32 => f64::from(f32::from_bits(bits)),
            Element::S8 => f64::from(bits as u8 as i8),
            Element::U8 => f64::from(bits as u8),
            Element::S32 => f64::from(bits as i32),
        }
    }
}

/// One `mma` form, decoded from its [`crate::abi::matrix_operation`] code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    m: usize,
    n: usize,
    k: usize,
    d: Element,
    a: Element,
    b: Element,
    c: Element,
    saturate: bool,
}

impl Operation {
    pub fn decode(operation: u32) -> Option<Operation> {
        let (m, n, k) = match operation & 0xf {
            code::SHAPE_M8N8K16 => (8, 8, 16),
            code::SHAPE_M16N8K4 => (16, 8, 4),
            code::SHAPE_M16N8K8 => (16, 8, 8),
            code::SHAPE_M16N8K16 => (16, 8, 16),
            code::SHAPE_M16N8K32 => (16, 8, 32),
            _ => return None,
        };
        let element = |shift: u32| Element::decode((operation >> shift) & 0xf);
        Some(Operation {
            m,
            n,
            k,
            d: element(4)?,
            a: element(8)?,
            b: element(12)?,
            c: element(16)?,
            saturate: operation & code::SATURATE != 0,
        })
    }

    fn integer(&self) -> bool {
        self.d == Element::S32
    }

    /// Registers per lane of a `rows`×`columns` operand of `element`s.
    fn registers(rows: usize, columns: usize, element: Element) -> usize {
        rows * columns / WARP_SIZE / element.per_register()
    }
}

/// Row and column of element `j` of A's register `r` in `lane`'s fragment.
fn a_position(operation: &Operation, lane: usize, r: usize, j: usize) -> (usize, usize) {
    let per = operation.a.per_register();
    let (group, thread) = (lane / 4, lane % 4);
    let (row, k_block) = if operation.m == 16 { (group + 8 * (r % 2), r / 2) } else { (group, r) };
    (row, thread * per + j + 4 * per * k_block)
}

/// Row and column of element `j` of B's register `r` in `lane`'s fragment.
fn b_position(operation: &Operation, lane: usize, r: usize, j: usize) -> (usize, usize) {
    let per = operation.b.per_register();
    let (group, thread) = (lane / 4, lane % 4);
    (thread * per + j + 4 * per * r, group)
}

/// Row and column of element `i` of C's or D's fragment in `lane`.
fn accumulator_position(lane: usize, i: usize) -> (usize, usize) {
    let (group, thread) = (lane / 4, lane % 4);
    (group + 8 * (i / 2), thread * 2 + i % 2)
}

/// Every element of an operand, gathered from the lanes' fragments at `offset`.
fn gather(
    lanes: &[Fragments; WARP_SIZE],
    offset: usize,
    registers: usize,
    element: Element,
    columns: usize,
    position: impl Fn(usize, usize, usize) -> (usize, usize),
    matrix: &mut [f64],
) {
    for (lane, fragments) in lanes.iter().enumerate() {
        for r in 0..registers {
            for j in 0..element.per_register() {
                let (row, column) = position(lane, r, j);
                matrix[row * columns + column] = element.value(fragments[offset + r], j);
            }
        }
    }
}

/// Computes D = A·B + C for the warp: reads each lane's A, B and C fragments from `lanes` and
/// writes its D fragment there. Lanes that did not take part hold zeros.
pub fn multiply_accumulate(operation: &Operation, lanes: &mut [Fragments; WARP_SIZE]) {
    let (m, n, k) = (operation.m, operation.n, operation.k);
    let mut a = [0f64; 16 * 32];
    let mut b = [0f64; 32 * 8];
    let mut c = [0f64; 16 * 8];
    let a_registers = Operation::registers(m, k, operation.a);
    let b_registers = Operation::registers(k, n, operation.b);
    gather(lanes, slot::A, a_registers, operation.a, k, |lane, r, j| a_position(operation, lane, r, j), &mut a);
    gather(lanes, slot::B, b_registers, operation.b, n, |lane, r, j| b_position(operation, lane, r, j), &mut b);
    // C's fragment: elements `i` in order, `per` to a register.
    let per = operation.c.per_register();
    let accumulators = m * n / WARP_SIZE;
    for (lane, fragments) in lanes.iter().enumerate() {
        for i in 0..accumulators {
            let (row, column) = accumulator_position(lane, i);
            c[row * n + column] = operation.c.value(fragments[slot::C + i / per], i % per);
        }
    }
    let per = operation.d.per_register();
    for (lane, fragments) in lanes.iter_mut().enumerate() {
        fragments[slot::D..slot::D + accumulators.div_ceil(per)].fill(0);
        for i in 0..accumulators {
            let (row, column) = accumulator_position(lane, i);
            let bits = if operation.integer() {
                let sum = (0..k).fold(c[row * n + column] as i64, |sum, index| {
                    sum + a[row * k + index] as i64 * b[index * n + column] as i64
                });
                if operation.saturate {
                    sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
                } else {
                    sum as i32 as u32
                }
            } else {
                let sum =
                    (0..k).fold(c[row * n + column], |sum, index| sum + a[row * k + index] * b[index * n + column]);
                match operation.d {
                    Element::F16 => u32::from(f16::from_f64(sum).to_bits()),
                    _ => (sum as f32).to_bits(),
                }
            };
            fragments[slot::D + i / per] |= bits << ((i % per) as u32 * operation.d.bits());
        }
    }
}

/// `ldmatrix`: each lane's registers, one per matrix, from the rows the lanes gave. Lane
/// `8·i + r` gives row `r` of matrix `i` (`rows[8·i + r]`, eight 16-bit elements); lane `l`
/// receives elements `(l / 4, 2·(l mod 4))` and the next column of each matrix (of its
/// transpose with `.trans`), the first in the low half.
pub fn load_matrices(matrices: usize, transpose: bool, rows: &[[u16; 8]; WARP_SIZE]) -> [[u32; 4]; WARP_SIZE] {
    let mut registers = [[0u32; 4]; WARP_SIZE];
    for (lane, lane_registers) in registers.iter_mut().enumerate() {
        let (row, column) = (lane / 4, 2 * (lane % 4));
        for (matrix, register) in lane_registers.iter_mut().enumerate().take(matrices) {
            let element = |row: usize, column: usize| {
                let (row, column) = if transpose { (column, row) } else { (row, column) };
                u32::from(rows[8 * matrix + row][column])
            };
            *register = element(row, column) | (element(row, column + 1) << 16);
        }
    }
    registers
}

/// Completes a matrix collective for the lanes of `group`, through the buffers whose addresses
/// they deposited. Returns false for a collective that is not a matrix one.
///
/// # Safety
///
/// Every deposit's `a` must be the address of its lane's [`Fragments`] buffer, valid and
/// unaliased until the lane resumes; for `ldmatrix`, the row address in the buffer of each lane
/// below `8·matrices` must point at 16 readable bytes. The compiler's code guarantees both.
pub(super) unsafe fn complete(collective: u32, group: &[Deposit]) -> bool {
    let buffer = |deposit: &Deposit| deposit.a as usize as *mut Fragments;
    match collective {
        warp_collective::MATRIX_MULTIPLY_ACCUMULATE => {
            let Some(operation) = group.first().and_then(|deposit| Operation::decode(deposit.b)) else { return true };
            let mut lanes = [[0u32; slot::WORDS]; WARP_SIZE];
            for deposit in group {
                // SAFETY: the caller guarantees the buffer (see above).
                lanes[deposit.lane as usize % WARP_SIZE] = unsafe { buffer(deposit).read() };
            }
            multiply_accumulate(&operation, &mut lanes);
            for deposit in group {
                // SAFETY: as above; only the D words change.
                let fragments = unsafe { &mut *buffer(deposit) };
                fragments[slot::D..].copy_from_slice(&lanes[deposit.lane as usize % WARP_SIZE][slot::D..]);
            }
            true
        }
        warp_collective::LOAD_MATRIX => {
            let Some(first) = group.first() else { return true };
            let matrices = (first.b & 0xff).min(4) as usize;
            let transpose = first.b & code::TRANSPOSE != 0;
            let mut rows = [[0u16; 8]; WARP_SIZE];
            for deposit in group.iter().filter(|deposit| (deposit.lane as usize) < 8 * matrices) {
                // SAFETY: the caller guarantees the buffer and the row's 16 bytes.
                let fragments = unsafe { &*buffer(deposit) };
                let address =
                    u64::from(fragments[slot::ROW_ADDRESS]) | (u64::from(fragments[slot::ROW_ADDRESS + 1]) << 32);
                let row = unsafe { (address as usize as *const [u16; 8]).read_unaligned() };
                rows[deposit.lane as usize % WARP_SIZE] = row;
            }
            let registers = load_matrices(matrices, transpose, &rows);
            for deposit in group {
                // SAFETY: the caller guarantees the buffer.
                let fragments = unsafe { &mut *buffer(deposit) };
                fragments[slot::LOADED..slot::LOADED + 4]
                    .copy_from_slice(&registers[deposit.lane as usize % WARP_SIZE]);
            }
            true
        }
        _ => false,
    }
}
