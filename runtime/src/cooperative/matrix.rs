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
//! `.f64` has one element to a register (`per` = 1) in two buffer words, low word first.
//! `.m8n8k4` on `.f16` is four separate 8×8×4 products, product `q` by lanes `4q..4q+3` (rows
//! 0 to 3 of C) and `16+4q..16+4q+3` (rows 4 to 7); see [`quad_pair_position`].
//!
//! Arithmetic: `.f16`/`.bf16`/`.tf32` products are exact in `f64` and summed there, then
//! rounded once to D's type (nearest even); `.tf32` operands ignore their 13 low mantissa bits.
//! Integer products are summed exactly; D wraps to 32 bits, or saturates with `.satfinite`.
//! `.s4`/`.u4` (`.m8n8k32`, `.m16n8k32`, `.m16n8k64`) pack eight elements to a register and
//! `.b1` (`.m8n8k128`, `.m16n8k128`, `.m16n8k256`) 32, the
//! first in the low bits; a `.b1` "product" is the XOR (`.xor.popc`) or AND (`.and.popc`) of
//! the two bits, so that the sum over k is the population count of the row's and column's.

use half::{bf16, f16};

use super::block::WARP_SIZE;
use super::warp::Deposit;
use crate::abi::{matrix_fragments as slot, matrix_operation as code, warp_collective};

/// One lane's fragment buffer.
pub type Fragments = [u32; slot::WORDS];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Element {
    F16,
    Bf16,
    Tf32,
    F32,
    S8,
    U8,
    S32,
    S4,
    U4,
    /// One bit; its products are `a ^ b` (`.xor.popc`) or `a & b` (`.and.popc`).
    B1,
    /// Only in the `.f64` forms, computed by [`multiply_accumulate_double`]: a register is two
    /// buffer words.
    F64,
    /// 8-bit floats, four to a register like `.s8`: [`float8_value`].
    E4m3,
    E5m2,
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
            code::ELEMENT_F64 => Element::F64,
            code::ELEMENT_S4 => Element::S4,
            code::ELEMENT_U4 => Element::U4,
            code::ELEMENT_B1 => Element::B1,
            code::ELEMENT_E4M3 => Element::E4m3,
            code::ELEMENT_E5M2 => Element::E5m2,
            _ => return None,
        })
    }

    fn bits(self) -> u32 {
        match self {
            Element::F16 | Element::Bf16 => 16,
            Element::Tf32 | Element::F32 | Element::S32 => 32,
            Element::S8 | Element::U8 | Element::E4m3 | Element::E5m2 => 8,
            Element::S4 | Element::U4 => 4,
            Element::B1 => 1,
            Element::F64 => 64,
        }
    }

    /// Elements per 32-bit register (an `.f64` takes a register of its own).
    fn per_register(self) -> usize {
        (32 / self.bits()).max(1) as usize
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
            // The low nibble, sign-extended from its bit 3.
            Element::S4 => f64::from(((bits as u8) << 4) as i8 >> 4),
            Element::U4 => f64::from(bits & 0xf),
            Element::B1 => f64::from(bits & 1),
            Element::E4m3 => float8_value(bits as u8, 3),
            Element::E5m2 => float8_value(bits as u8, 2),
            // Two words make one `.f64`: `multiply_accumulate_double` reads them itself.
            Element::F64 => f64::NAN,
        }
    }
}

/// The value of an 8-bit float with `mantissa_bits` (3: E4M3, bias 7; 2: E5M2, bias 15),
/// exactly. E5M2 keeps IEEE's top exponent for infinities and NaNs; E4M3 has no infinity, and
/// only its all-ones exponent and mantissa are NaN (the OCP 8-bit float formats that PTX's
/// `.e4m3` and `.e5m2` name).
fn float8_value(byte: u8, mantissa_bits: u32) -> f64 {
    let exponent_bits = 7 - mantissa_bits;
    let bias = (1i32 << (exponent_bits - 1)) - 1;
    let exponent_field = i32::from(byte >> mantissa_bits) & ((1 << exponent_bits) - 1);
    let mantissa = u32::from(byte) & ((1 << mantissa_bits) - 1);
    let top = exponent_field == (1 << exponent_bits) - 1;
    let magnitude = if mantissa_bits == 2 && top {
        if mantissa == 0 {
            f64::INFINITY
        } else {
            f64::NAN
        }
    } else if mantissa_bits == 3 && top && mantissa == 7 {
        f64::NAN
    } else if exponent_field == 0 {
        f64::from(mantissa) * 2f64.powi(1 - bias - mantissa_bits as i32)
    } else {
        f64::from(mantissa | 1 << mantissa_bits) * 2f64.powi(exponent_field - bias - mantissa_bits as i32)
    };
    if byte & 0x80 != 0 {
        -magnitude
    } else {
        magnitude
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
    /// `.b1`'s `.and.popc` rather than `.xor.popc`.
    bit_and: bool,
    /// `.m8n8k4`: four products by quad pairs, A `.row` or `.col`, B `.row` or `.col`.
    quad_pairs: bool,
    a_column_major: bool,
    b_row_major: bool,
}

impl Operation {
    pub fn decode(operation: u32) -> Option<Operation> {
        let element_code = |shift: u32| (operation >> shift) & 0xf;
        // `.m8n8k4` on `.f16` is four products by quad pairs; on `.f64` one by the whole warp.
        let quad_pairs = operation & 0xf == code::SHAPE_M8N8K4 && element_code(8) != code::ELEMENT_F64;
        let (m, n, k) = match operation & 0xf {
            code::SHAPE_M8N8K4 => (8, 8, 4),
            code::SHAPE_M8N8K16 => (8, 8, 16),
            code::SHAPE_M16N8K4 => (16, 8, 4),
            code::SHAPE_M16N8K8 => (16, 8, 8),
            code::SHAPE_M16N8K16 => (16, 8, 16),
            code::SHAPE_M16N8K32 => (16, 8, 32),
            code::SHAPE_M8N8K32 => (8, 8, 32),
            code::SHAPE_M8N8K128 => (8, 8, 128),
            code::SHAPE_M16N8K64 => (16, 8, 64),
            code::SHAPE_M16N8K128 => (16, 8, 128),
            code::SHAPE_M16N8K256 => (16, 8, 256),
            _ => return None,
        };
        let element = |shift: u32| Element::decode((operation >> shift) & 0xf);
        // `.f64` is all four operands or none, on shapes up to `.m16n8k16`.
        let doubles = [4, 8, 12, 16].map(|shift| element_code(shift) == code::ELEMENT_F64);
        if doubles.contains(&true) && (doubles.contains(&false) || k > 16) {
            return None;
        }
        Some(Operation {
            m,
            n,
            k,
            d: element(4)?,
            a: element(8)?,
            b: element(12)?,
            c: element(16)?,
            saturate: operation & code::SATURATE != 0,
            bit_and: operation & code::BIT_AND != 0,
            quad_pairs,
            a_column_major: operation & code::A_COLUMN_MAJOR != 0,
            b_row_major: operation & code::B_ROW_MAJOR != 0,
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

/// Which operand a position is asked for: A, B, or C or D with its element type (which decides
/// the layout).
#[derive(Clone, Copy)]
enum Operand {
    A,
    B,
    Accumulator(Element),
}

/// `.m8n8k4`'s tables: row and column of element `i` of `lane`'s fragment of `operand` in its
/// quad pair's 8×8×4 product. `high` is 4 for the lanes 16 to 31, which hold the second half.
fn quad_pair_position(operation: &Operation, operand: Operand, lane: usize, i: usize) -> (usize, usize) {
    let (high, thread) = (if lane >= 16 { 4 } else { 0 }, lane % 4);
    match operand {
        Operand::A if operation.a_column_major => (i + high, thread),
        Operand::A => (thread + high, i),
        Operand::B if operation.b_row_major => (thread, i + high),
        Operand::B => (i, thread + high),
        Operand::Accumulator(Element::F16) => (thread + high, i),
        Operand::Accumulator(_) => ((lane & 1) + (i & 2) + high, (i & 4) + (lane & 2) + (i & 1)),
    }
}

/// D's bits for one element: `c` plus the sum of the products, rounded (floats) or wrapped or
/// saturated (integers) to D's type.
fn accumulate(operation: &Operation, c: f64, products: impl Iterator<Item = (f64, f64)>) -> u32 {
    if operation.integer() {
        let product = |a: f64, b: f64| match operation.a {
            // Population count of the bits' XOR or AND: each bit pair adds its own.
            Element::B1 if !operation.bit_and => (a as i64) ^ (b as i64),
            _ => a as i64 * b as i64,
        };
        let sum = products.fold(c as i64, |sum, (a, b)| sum + product(a, b));
        if operation.saturate {
            sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
        } else {
            sum as i32 as u32
        }
    } else {
        let sum = products.fold(c, |sum, (a, b)| sum + a * b);
        match operation.d {
            Element::F16 => u32::from(f16::from_f64(sum).to_bits()),
            _ => (sum as f32).to_bits(),
        }
    }
}

/// `.m8n8k4`: each quad pair's product from its eight lanes' fragments.
fn multiply_accumulate_quad_pairs(operation: &Operation, lanes: &mut [Fragments; WARP_SIZE]) {
    let c_per = operation.c.per_register();
    let d_per = operation.d.per_register();
    for quad in 0..4 {
        let members = (4 * quad..4 * quad + 4).chain(16 + 4 * quad..16 + 4 * quad + 4);
        let (mut a, mut b, mut c) = ([[0f64; 4]; 8], [[0f64; 8]; 4], [[0f64; 8]; 8]);
        for lane in members.clone() {
            let fragments = &lanes[lane];
            for i in 0..4 {
                let (row, column) = quad_pair_position(operation, Operand::A, lane, i);
                a[row][column] = operation.a.value(fragments[slot::A + i / 2], i % 2);
                let (row, column) = quad_pair_position(operation, Operand::B, lane, i);
                b[row][column] = operation.b.value(fragments[slot::B + i / 2], i % 2);
            }
            for i in 0..8 {
                let (row, column) = quad_pair_position(operation, Operand::Accumulator(operation.c), lane, i);
                c[row][column] = operation.c.value(fragments[slot::C + i / c_per], i % c_per);
            }
        }
        for lane in members {
            let fragments = &mut lanes[lane];
            fragments[slot::D..slot::D + 8 / d_per].fill(0);
            for i in 0..8 {
                let (row, column) = quad_pair_position(operation, Operand::Accumulator(operation.d), lane, i);
                let bits = accumulate(operation, c[row][column], (0..4).map(|x| (a[row][x], b[x][column])));
                fragments[slot::D + i / d_per] |= bits << ((i % d_per) as u32 * operation.d.bits());
            }
        }
    }
}

/// `.f64` (`.m8n8k4`, and ISA 7.8's `.m16n8k4`, `.m16n8k8`, `.m16n8k16`; the manual's "Matrix
/// Fragments for mma.m16n8k4/k8/k16" with `.f64`, section 9.7.13.4): the fragments are the module's layout with one element
/// to a register ([`a_position`], [`b_position`], [`accumulator_position`]), so that for
/// `group = lane / 4` and `thread = lane % 4` register `r` of A is element (`group + 8·(r mod 2)`,
/// `thread + 4·(r / 2)`) when M = 16 (the manual's "col = i·2 + threadID_in_group" for even `i`
/// and "i·2 − 2 + threadID_in_group" for odd `i`), register `r` of B element (`thread + 4·r`,
/// `group`); each `.f64` is two buffer words, low word first. Each element of D is C's plus the
/// K products in order of `k`, each added by a fused multiply-add rounded to nearest even (PTX
/// does not say how the hardware rounds between the products; this order is the one a loop of
/// `fma.rn.f64` gives).
fn multiply_accumulate_double(operation: &Operation, lanes: &mut [Fragments; WARP_SIZE]) {
    let double = |fragments: &Fragments, word: usize| {
        f64::from_bits(u64::from(fragments[word]) | (u64::from(fragments[word + 1]) << 32))
    };
    let (m, n, k) = (operation.m, operation.n, operation.k);
    // The largest `.f64` shape is `.m16n8k16`.
    let (mut a, mut b, mut c) = ([[0f64; 16]; 16], [[0f64; 8]; 16], [[0f64; 8]; 16]);
    let (a_registers, b_registers, accumulators) = (m * k / WARP_SIZE, k * n / WARP_SIZE, m * n / WARP_SIZE);
    for (lane, fragments) in lanes.iter().enumerate() {
        for r in 0..a_registers {
            let (row, column) = a_position(operation, lane, r, 0);
            a[row][column] = double(fragments, slot::A + 2 * r);
        }
        for r in 0..b_registers {
            let (row, column) = b_position(operation, lane, r, 0);
            b[row][column] = double(fragments, slot::B + 2 * r);
        }
        for i in 0..accumulators {
            let (row, column) = accumulator_position(lane, i);
            c[row][column] = double(fragments, slot::C + 2 * i);
        }
    }
    for (lane, fragments) in lanes.iter_mut().enumerate() {
        for i in 0..accumulators {
            let (row, column) = accumulator_position(lane, i);
            let sum = (0..k).fold(c[row][column], |sum, x| a[row][x].mul_add(b[x][column], sum));
            let bits = sum.to_bits();
            fragments[slot::D + 2 * i] = bits as u32;
            fragments[slot::D + 2 * i + 1] = (bits >> 32) as u32;
        }
    }
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
    if operation.quad_pairs {
        return multiply_accumulate_quad_pairs(operation, lanes);
    }
    if operation.a == Element::F64 {
        return multiply_accumulate_double(operation, lanes);
    }
    let (m, n, k) = (operation.m, operation.n, operation.k);
    // The largest A and B: 16×256 and 256×8 (`.m16n8k256` on `.b1`).
    let mut a = [0f64; 16 * 256];
    let mut b = [0f64; 256 * 8];
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
            let products = (0..k).map(|index| (a[row * k + index], b[index * n + column]));
            let bits = accumulate(operation, c[row * n + column], products);
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

#[cfg(test)]
mod tests {
    //! An independent model: whole matrices filled from a seeded generator, spread over the
    //! lanes with the fragment tables of the manual written out per shape, the product computed
    //! with plain loops, and D read back through the same tables.

    use half::{bf16, f16};

    use super::{load_matrices, multiply_accumulate, Fragments, Operation};
    use crate::abi::{matrix_fragments as slot, matrix_operation as code};

    #[derive(Clone, Copy, PartialEq)]
    enum Kind {
        F16,
        Bf16,
        Tf32,
        F32,
        S8,
        U8,
        S32,
    }

    impl Kind {
        fn code(self) -> u32 {
            match self {
                Kind::F16 => code::ELEMENT_F16,
                Kind::Bf16 => code::ELEMENT_BF16,
                Kind::Tf32 => code::ELEMENT_TF32,
                Kind::F32 => code::ELEMENT_F32,
                Kind::S8 => code::ELEMENT_S8,
                Kind::U8 => code::ELEMENT_U8,
                Kind::S32 => code::ELEMENT_S32,
            }
        }

        fn per_register(self) -> usize {
            match self {
                Kind::F16 | Kind::Bf16 => 2,
                Kind::S8 | Kind::U8 => 4,
                _ => 1,
            }
        }

        /// The bits of `value` in this type, and the value the hardware computes with.
        fn encode(self, value: i64, noise: u32) -> (u32, i64) {
            match self {
                Kind::F16 => (u32::from(f16::from_f64(value as f64).to_bits()), value),
                Kind::Bf16 => (u32::from(bf16::from_f64(value as f64).to_bits()), value),
                // `.tf32` ignores the 13 low mantissa bits: noise there must not matter.
                Kind::Tf32 => ((value as f32).to_bits() | (noise & 0x1fff), value),
                Kind::F32 => ((value as f32).to_bits(), value),
                Kind::S8 => (value as i8 as u8 as u32, value),
                Kind::U8 => (value as u8 as u32, value),
                Kind::S32 => (value as i32 as u32, value),
            }
        }

        fn bits(self) -> u32 {
            32 / self.per_register() as u32
        }
    }

    /// A seeded xorshift generator.
    struct Generator(u64);

    impl Generator {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// A value of `kind` (small integers for the float kinds, so that sums are exact).
        fn value(&mut self, kind: Kind) -> i64 {
            let raw = self.next();
            match kind {
                Kind::F16 | Kind::Bf16 | Kind::Tf32 | Kind::F32 => (raw % 17) as i64 - 8,
                Kind::S8 => (raw % 256) as i64 - 128,
                Kind::U8 => (raw % 256) as i64,
                Kind::S32 => (raw % 2_000_001) as i64 - 1_000_000,
            }
        }
    }

    /// The manual's fragment tables for A: row and column of element `i` of `lane`'s fragment.
    fn spec_a(shape: (usize, usize, usize), kind: Kind, lane: usize, i: usize) -> (usize, usize) {
        let (group, thread) = (lane >> 2, lane % 4);
        match (shape, kind) {
            ((16, 8, 8), Kind::F16 | Kind::Bf16) => (if i < 2 { group } else { group + 8 }, thread * 2 + (i & 1)),
            ((16, 8, 16), Kind::F16 | Kind::Bf16) => {
                let row = if matches!(i, 0 | 1 | 4 | 5) { group } else { group + 8 };
                let column = if i < 4 { thread * 2 + (i & 1) } else { thread * 2 + (i & 1) + 8 };
                (row, column)
            }
            ((16, 8, 4), Kind::Tf32) => (if i == 0 { group } else { group + 8 }, thread),
            ((16, 8, 8), Kind::Tf32) => {
                (if i == 0 || i == 2 { group } else { group + 8 }, if i < 2 { thread } else { thread + 4 })
            }
            ((8, 8, 16), _) => (group, thread * 4 + i),
            ((16, 8, 16), _) => (if i < 4 { group } else { group + 8 }, thread * 4 + (i & 3)),
            ((16, 8, 32), _) => {
                let row = if i < 4 || (8..12).contains(&i) { group } else { group + 8 };
                let column = if i < 8 { thread * 4 + (i & 3) } else { thread * 4 + (i & 3) + 16 };
                (row, column)
            }
            _ => unreachable!("no table for this form"),
        }
    }

    /// The manual's fragment tables for B.
    fn spec_b(shape: (usize, usize, usize), kind: Kind, lane: usize, i: usize) -> (usize, usize) {
        let (group, thread) = (lane >> 2, lane % 4);
        let row = match (shape, kind) {
            ((16, 8, 8), Kind::F16 | Kind::Bf16) => thread * 2 + i,
            ((16, 8, 16), Kind::F16 | Kind::Bf16) => {
                if i < 2 {
                    thread * 2 + (i & 1)
                } else {
                    thread * 2 + (i & 1) + 8
                }
            }
            ((16, 8, 4), Kind::Tf32) => thread,
            ((16, 8, 8), Kind::Tf32) => {
                if i == 0 {
                    thread
                } else {
                    thread + 4
                }
            }
            ((8, 8, 16) | (16, 8, 16), _) => thread * 4 + i,
            ((16, 8, 32), _) => {
                if i < 4 {
                    thread * 4 + (i & 3)
                } else {
                    thread * 4 + (i & 3) + 16
                }
            }
            _ => unreachable!("no table for this form"),
        };
        (row, group)
    }

    /// The manual's table for C and D.
    fn spec_accumulator(m: usize, lane: usize, i: usize) -> (usize, usize) {
        let (group, thread) = (lane >> 2, lane % 4);
        if m == 8 {
            (group, thread * 2 + i)
        } else {
            (if i < 2 { group } else { group + 8 }, thread * 2 + (i & 1))
        }
    }

    struct Form {
        shape: (usize, usize, usize),
        shape_code: u32,
        d: Kind,
        a: Kind,
        b: Kind,
        c: Kind,
        saturate: bool,
    }

    fn place(fragments: &mut Fragments, offset: usize, kind: Kind, i: usize, bits: u32) {
        let per = kind.per_register();
        let mask = if kind.bits() == 32 { u32::MAX } else { (1 << kind.bits()) - 1 };
        fragments[offset + i / per] |= (bits & mask) << ((i % per) as u32 * kind.bits());
    }

    /// Runs one form on matrices from `seed` (C's values replaced by `c_value` when given) and
    /// compares every lane's D with the model.
    fn check(form: &Form, seed: u64, c_value: Option<&dyn Fn(usize, usize) -> i64>) {
        let (m, n, k) = form.shape;
        let mut generator = Generator(seed);
        let a: Vec<Vec<i64>> = (0..m).map(|_| (0..k).map(|_| generator.value(form.a)).collect()).collect();
        let b: Vec<Vec<i64>> = (0..k).map(|_| (0..n).map(|_| generator.value(form.b)).collect()).collect();
        let c: Vec<Vec<i64>> = (0..m)
            .map(|row| {
                (0..n).map(|column| c_value.map_or_else(|| generator.value(form.c), |f| f(row, column))).collect()
            })
            .collect();
        let mut lanes = [[0u32; slot::WORDS]; 32];
        for (lane, fragments) in lanes.iter_mut().enumerate() {
            for i in 0..m * k / 32 {
                let (row, column) = spec_a(form.shape, form.a, lane, i);
                let noise = generator.next() as u32;
                place(fragments, slot::A, form.a, i, form.a.encode(a[row][column], noise).0);
            }
            for i in 0..k * n / 32 {
                let (row, column) = spec_b(form.shape, form.b, lane, i);
                let noise = generator.next() as u32;
                place(fragments, slot::B, form.b, i, form.b.encode(b[row][column], noise).0);
            }
            for i in 0..m * n / 32 {
                let (row, column) = spec_accumulator(m, lane, i);
                place(fragments, slot::C, form.c, i, form.c.encode(c[row][column], 0).0);
            }
        }
        let operation_code =
            code::encode(form.shape_code, form.d.code(), form.a.code(), form.b.code(), form.c.code(), form.saturate);
        let operation = Operation::decode(operation_code).expect("a form the runtime computes");
        multiply_accumulate(&operation, &mut lanes);
        for (lane, fragments) in lanes.iter().enumerate() {
            for i in 0..m * n / 32 {
                let (row, column) = spec_accumulator(m, lane, i);
                let exact: i128 = i128::from(c[row][column])
                    + (0..k).map(|x| i128::from(a[row][x]) * i128::from(b[x][column])).sum::<i128>();
                let expected = match form.d {
                    Kind::S32 if form.saturate => exact.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32 as u32,
                    Kind::S32 => exact as i32 as u32,
                    Kind::F16 => u32::from(f16::from_f64(exact as f64).to_bits()),
                    _ => (exact as f32).to_bits(),
                };
                let per = form.d.per_register();
                let mask = if form.d.bits() == 32 { u32::MAX } else { (1 << form.d.bits()) - 1 };
                let got = (fragments[slot::D + i / per] >> ((i % per) as u32 * form.d.bits())) & mask;
                assert_eq!(got, expected, "lane {lane} d{i} (row {row}, column {column})");
            }
        }
    }

    fn form(shape: (usize, usize, usize), shape_code: u32, d: Kind, a: Kind, b: Kind, c: Kind) -> Form {
        Form { shape, shape_code, d, a, b, c, saturate: false }
    }

    #[test]
    fn half_precision_inputs_with_f32_and_f16_accumulators() {
        for (shape, shape_code) in [((16, 8, 8), code::SHAPE_M16N8K8), ((16, 8, 16), code::SHAPE_M16N8K16)] {
            // These shapes keep C's type in D.
            for kind in [Kind::F32, Kind::F16] {
                check(&form(shape, shape_code, kind, Kind::F16, Kind::F16, kind), 0x1234_5678, None);
            }
            check(&form(shape, shape_code, Kind::F32, Kind::Bf16, Kind::Bf16, Kind::F32), 0x9abc_def0, None);
        }
    }

    #[test]
    fn tf32_inputs_ignore_their_low_mantissa_bits() {
        check(&form((16, 8, 4), code::SHAPE_M16N8K4, Kind::F32, Kind::Tf32, Kind::Tf32, Kind::F32), 77, None);
        check(&form((16, 8, 8), code::SHAPE_M16N8K8, Kind::F32, Kind::Tf32, Kind::Tf32, Kind::F32), 78, None);
    }

    #[test]
    fn eight_bit_integers_of_either_signedness() {
        let shapes = [
            ((8, 8, 16), code::SHAPE_M8N8K16),
            ((16, 8, 16), code::SHAPE_M16N8K16),
            ((16, 8, 32), code::SHAPE_M16N8K32),
        ];
        for (shape, shape_code) in shapes {
            for (a, b) in [(Kind::S8, Kind::S8), (Kind::U8, Kind::S8), (Kind::S8, Kind::U8), (Kind::U8, Kind::U8)] {
                check(&form(shape, shape_code, Kind::S32, a, b, Kind::S32), 0xfeed_5eed, None);
            }
        }
    }

    #[test]
    fn integer_accumulators_wrap_or_saturate_with_satfinite() {
        // C near both ends of the s32 range: u8 products push past i32::MAX, s8 ones may go below.
        let edge = |row: usize, column: usize| {
            if (row + column) % 2 == 0 {
                i64::from(i32::MAX) - 1000
            } else {
                i64::from(i32::MIN) + 1000
            }
        };
        for saturate in [false, true] {
            for (a, b) in [(Kind::U8, Kind::U8), (Kind::S8, Kind::U8)] {
                let form = Form { saturate, ..form((16, 8, 32), code::SHAPE_M16N8K32, Kind::S32, a, b, Kind::S32) };
                check(&form, 0x5a5a_5a5a, Some(&edge));
            }
        }
    }

    /// The manual's `.m8n8k4` tables (section "Matrix Fragments for mma.m8n8k4 with .f16").
    fn spec_m8n8k4(operand: char, kind: Kind, layout_row: bool, lane: usize, i: usize) -> (usize, usize) {
        let low = lane < 16;
        let lane_row = if low { lane % 4 } else { lane % 4 + 4 };
        match (operand, layout_row, kind) {
            ('a', true, _) => (lane_row, i),
            ('a', false, _) => (if low { i % 4 } else { i % 4 + 4 }, lane % 4),
            ('b', true, _) => (lane % 4, if low { i } else { i + 4 }),
            ('b', false, _) => (i, lane_row),
            (_, _, Kind::F16) => (lane_row, i),
            _ => {
                let x = (lane & 0b1) + (i & 0b10);
                (if low { x } else { x + 4 }, (i & 0b100) + (lane & 0b10) + (i & 0b1))
            }
        }
    }

    #[test]
    fn m8n8k4_quad_pairs_compute_four_products_in_every_layout() {
        for (a_row, b_row) in [(true, false), (true, true), (false, false), (false, true)] {
            // `.m8n8k4` may widen `.f16` C to `.f32` D, not the other way.
            for (d, c) in [(Kind::F32, Kind::F32), (Kind::F16, Kind::F16), (Kind::F32, Kind::F16)] {
                let mut generator = Generator(0x0bad_cafe);
                let mut lanes = [[0u32; slot::WORDS]; 32];
                let mut products = Vec::new();
                for quad in 0..4 {
                    let a: Vec<Vec<i64>> =
                        (0..8).map(|_| (0..4).map(|_| generator.value(Kind::F16)).collect()).collect();
                    let b: Vec<Vec<i64>> =
                        (0..4).map(|_| (0..8).map(|_| generator.value(Kind::F16)).collect()).collect();
                    let c_matrix: Vec<Vec<i64>> =
                        (0..8).map(|_| (0..8).map(|_| generator.value(c)).collect()).collect();
                    for lane in (4 * quad..4 * quad + 4).chain(16 + 4 * quad..20 + 4 * quad) {
                        for i in 0..4 {
                            let (row, column) = spec_m8n8k4('a', Kind::F16, a_row, lane, i);
                            place(&mut lanes[lane], slot::A, Kind::F16, i, Kind::F16.encode(a[row][column], 0).0);
                            let (row, column) = spec_m8n8k4('b', Kind::F16, b_row, lane, i);
                            place(&mut lanes[lane], slot::B, Kind::F16, i, Kind::F16.encode(b[row][column], 0).0);
                        }
                        for i in 0..8 {
                            let (row, column) = spec_m8n8k4('c', c, true, lane, i);
                            place(&mut lanes[lane], slot::C, c, i, c.encode(c_matrix[row][column], 0).0);
                        }
                    }
                    products.push((a, b, c_matrix));
                }
                let layouts = if a_row { 0 } else { code::A_COLUMN_MAJOR } | if b_row { code::B_ROW_MAJOR } else { 0 };
                let operation_code =
                    code::encode(code::SHAPE_M8N8K4, d.code(), code::ELEMENT_F16, code::ELEMENT_F16, c.code(), false)
                        | layouts;
                multiply_accumulate(&Operation::decode(operation_code).expect("m8n8k4"), &mut lanes);
                for (lane, fragments) in lanes.iter().enumerate() {
                    let (a, b, c_matrix) = &products[(lane % 16) / 4];
                    for i in 0..8 {
                        let (row, column) = spec_m8n8k4('d', d, true, lane, i);
                        let exact = c_matrix[row][column] + (0..4).map(|x| a[row][x] * b[x][column]).sum::<i64>();
                        let expected = match d {
                            Kind::F16 => u32::from(f16::from_f64(exact as f64).to_bits()),
                            _ => (exact as f32).to_bits(),
                        };
                        let per = d.per_register();
                        let mask = if d.bits() == 32 { u32::MAX } else { 0xffff };
                        let got = (fragments[slot::D + i / per] >> ((i % per) as u32 * d.bits())) & mask;
                        assert_eq!(got, expected, "a_row {a_row} b_row {b_row} lane {lane} d{i}");
                    }
                }
            }
        }
    }

    #[test]
    fn ldmatrix_gives_each_lane_two_elements_of_each_matrix() {
        // Matrix i, row r, column c holds 1000·i + 10·r + c.
        let mut rows = [[0u16; 8]; 32];
        for (lane, row) in rows.iter_mut().enumerate() {
            for (column, element) in row.iter_mut().enumerate() {
                *element = (1000 * (lane / 8) + 10 * (lane % 8) + column) as u16;
            }
        }
        let matrix = |i: usize, r: usize, c: usize| (1000 * i + 10 * r + c) as u32;
        for matrices in [1, 2, 4] {
            for transpose in [false, true] {
                let registers = load_matrices(matrices, transpose, &rows);
                for (lane, lane_registers) in registers.iter().enumerate() {
                    for (i, &register) in lane_registers.iter().enumerate() {
                        // The manual: lane l holds row l/4, columns 2·(l mod 4) and the next.
                        let (row, column) = (lane / 4, 2 * (lane % 4));
                        let expected = if i >= matrices {
                            0
                        } else if transpose {
                            matrix(i, column, row) | matrix(i, column + 1, row) << 16
                        } else {
                            matrix(i, row, column) | matrix(i, row, column + 1) << 16
                        };
                        assert_eq!(register, expected, "x{matrices} trans {transpose} lane {lane} d{i}");
                    }
                }
            }
        }
    }

    #[test]
    fn forms_the_runtime_does_not_compute_do_not_decode() {
        assert!(Operation::decode(code::encode(
            11,
            code::ELEMENT_F32,
            code::ELEMENT_F16,
            code::ELEMENT_F16,
            code::ELEMENT_F32,
            false
        ))
        .is_none());
        assert!(Operation::decode(code::encode(
            code::SHAPE_M16N8K8,
            15,
            code::ELEMENT_F16,
            code::ELEMENT_F16,
            code::ELEMENT_F32,
            false
        ))
        .is_none());
    }
}
