//! `mma.sp.sync.aligned` (ISA 7.8 section 9.7.13.5; ISA 7.1, sm_80): D = A·B + C where A is
//! structured-sparse, each lane giving only its non-zero elements of A, with the metadata
//! register `e` saying where each lies in its chunk of A's row and the constant sparsity
//! selector `f` naming the lanes of each group of four whose `e` counts.
//!
//! NVPTX has the instruction (`Target::native_sparse_matrix`, `llvm.nvvm.mma.sp.*`) for every
//! form. Elsewhere (the CPU, AMDGPU, SPIR-V) each lane rebuilds its fragment of the dense A by
//! index shuffles (`Target::warp_collective`) and the dense `mma` of the same shape and types
//! computes D, so that the sum's order and rounding are the dense form's on that target
//! (`matrix_by_shuffles.rs`, `runtime/src/cooperative/matrix.rs`).
//!
//! The layouts, with `g = lane / 4` and `t = lane % 4`:
//! - The non-zero half of A, an M×K/2 matrix, is spread over the lanes as the dense `mma` of
//!   shape `.m16n8k(K/2)` spreads its A: register `r`, element `j` (of `per` = 32 / bits to a
//!   register) of lane `4g + t` is row `g + 8·(r mod 2)`, column `t·per + j + 4·per·(r / 2)`.
//!   NVIDIA's manual gives this in text for each shape (rows `groupID` and `groupID + 8`,
//!   `firstcol = threadID_in_group * 4` on `.m16n8k16`), and for `.m16n8k32` on `.f16`
//!   LLVM's MLIR test `sparse-mma-2-4-f16.mlir` (run on sm_80), tilelang's
//!   `mma_sp_load_a_32x8_to_shared_16x32_layout` and an NVIDIA forum answer ("the layout of
//!   fragment A should be the same with m16n8k16 without sparsity") agree.
//!   On `.tf32` the manual's text says so too (`a0, a2` row `groupID`, `a1, a3` row
//!   `groupID + 8`, `firstcol = threadID_in_group * 2`, `+ 8` for `a2, a3`).
//! - `.f16`/`.bf16` (2:4): non-zero column `2c + s` of a row (s = 0, 1) lies in chunk `c`,
//!   dense columns `4c` to `4c + 3`, at the place that the chunk's two-bit index `s` names (the
//!   manual: "16 2-bit vectors" in a `.b32`). `.tf32` (1:2): non-zero column `c` lies in chunk
//!   `c`, dense columns `2c` and `2c + 1`, and its chunk's four bits are two indices of 16-bit
//!   halves: the manual's text calls 0b0100 (halves 0 and 1: the first element) and 0b1110
//!   (halves 2 and 3: the second) "the only meaningful values"; here the first index's high
//!   bit names the element.
//! - Metadata: four bits to a chunk (index 0 in the low two), the chunks of a row from bit 0
//!   up in 16-bit halves: the low half of a lane's `e` describes row `g`, the high half row
//!   `g + 8`. Where a row has four chunks (`.m16n8k16` on `.f16`/`.bf16`, `.m16n8k8` on
//!   `.tf32`) lane `4g + f` alone gives the group's metadata (the manual: "In a group of four
//!   consecutive threads, one or more threads store the metadata for the whole group"; four
//!   selector values); where it has eight (`.m16n8k32`, and `.m16n8k16` on `.tf32`) lanes
//!   `4g + 2f` and `4g + 2f + 1` give chunks 0 to 3 and 4 to 7. The eight-chunk layout is the
//!   MLIR test's (lane `4q + p`: row `q` in the low 16 bits, row `q + 8` in the high, columns
//!   `16p` to `16p + 15`, little-endian indices) and tilelang's (`ldmatrix_e` with
//!   `metadata_16bit_load_32x2_to_shared_16x2_layout_16bit` and `..._32bit`: 16-bit word
//!   `lane mod 2` of rows `lane / 4` and `lane / 4 + 8`, four bits a chunk on `.tf32` too);
//!   four chunks a row have the same halves in one lane.
//!
//! Forms whose metadata layout two sources do not pin (the 8-bit and 4-bit integers, where
//! tilelang's one mapping for `.m16n8k64` spreads a row's 64 bits over two lanes in whole
//! words, unlike the 16-bit halves above) are E0901 on these targets, naming the form.
//!
//! Metadata values that PTX calls undefined (both indices of a chunk equal: 0b0000, 0b0101,
//! 0b1010, 0b1111) give a defined result here: the place gets the chunk's second non-zero
//! element, and the chunk's other places are zero. The rebuilt A multiplies B's rows at its
//! zeros too, so an infinite or NaN element of B in such a row makes D NaN here, where hardware
//! that skips those rows may give a number (PTX does not say).

use std::collections::HashMap;

use inkwell::values::{BasicValueEnum, IntValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{GuardedInstruction, MatrixElement, MatrixMultiply, MatrixShape, Operand, SparseMatrixA};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_intrinsics::Unsupported;

use super::matrix::{fragment_words, multiply_accumulate_words, sparse_multiply_accumulate_values, unsupported};
use super::matrix_by_shuffles::Warp;
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// How a form's A is compressed and its metadata spread, for the forms whose layout is
/// established (see the module's documentation).
#[derive(Clone, Copy)]
struct Sparsity {
    /// Dense elements in a chunk.
    chunk: u32,
    /// Non-zero elements kept of each chunk.
    kept: u32,
    /// Lanes of a group that give the metadata of its two rows (one per four chunks of a row).
    metadata_lanes: u32,
    /// How many places a two-bit index counts per element: 1, or 2 on `.tf32`, whose indices
    /// name 16-bit halves (0b0100, indices 0 and 1: the first element; 0b1110: the second).
    halves: u32,
}

impl Sparsity {
    fn of(operation: &MatrixMultiply) -> Option<Sparsity> {
        match (operation.a, operation.shape) {
            (MatrixElement::F16 | MatrixElement::Bf16, MatrixShape::M16n8k16) => {
                Some(Sparsity { chunk: 4, kept: 2, metadata_lanes: 1, halves: 1 })
            }
            (MatrixElement::F16 | MatrixElement::Bf16, MatrixShape::M16n8k32) => {
                Some(Sparsity { chunk: 4, kept: 2, metadata_lanes: 2, halves: 1 })
            }
            (MatrixElement::Tf32, MatrixShape::M16n8k8) => {
                Some(Sparsity { chunk: 2, kept: 1, metadata_lanes: 1, halves: 2 })
            }
            (MatrixElement::Tf32, MatrixShape::M16n8k16) => {
                Some(Sparsity { chunk: 2, kept: 1, metadata_lanes: 2, halves: 2 })
            }
            _ => None,
        }
    }
}

/// D's registers of an `mma.sp`, as `fragment_register(operation.d)` values, not yet written.
pub(super) fn multiply_accumulate_values<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    operation: &MatrixMultiply,
    a: &[Operand],
    b: &[Operand],
    c: &[Operand],
    sparse: &SparseMatrixA,
) -> LoweringResult<Vec<BasicValueEnum<'ctx>>> {
    let metadata = lowering.read(&sparse.metadata, ScalarType::B32)?.into_int_value();
    if lowering.shared.target.native_sparse_matrix() {
        return sparse_multiply_accumulate_values(lowering, guarded, operation, a, b, c, metadata, sparse.selector);
    }
    let Some(sparsity) = Sparsity::of(operation) else {
        let what =
            format!("the metadata layout of `mma.sp{}` on `{}` is not established", operation.shape, operation.a);
        return Err(unsupported(lowering, guarded)(Unsupported { what }));
    };
    let warp = Warp::new(lowering, guarded)?;
    let compressed = fragment_words(lowering, a, operation.a)?;
    let dense = dense_a(&warp, operation, sparsity, &compressed, metadata, sparse.selector)?;
    multiply_accumulate_words(lowering, guarded, operation, &dense, b, c)
}

/// Where lane `4g + t` finds one element of its dense A, for each `t`.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Source {
    /// The register of the non-zero fragment that holds the chunk's non-zero elements.
    register: u32,
    /// The lane of the group that holds it.
    thread: u32,
    /// The place of the chunk's first non-zero element in that register.
    first: u32,
    /// The lane of the group (relative to the selected ones) whose `e` describes the chunk.
    metadata_lane: u32,
    /// The bit of that `e` where the chunk's four bits start.
    metadata_shift: u32,
    /// The element's place in its chunk.
    place: u32,
}

/// Where lane `4g + t` finds element `j` of register `register` of its dense A.
fn source(operation: &MatrixMultiply, sparsity: Sparsity, register: u32, j: u32, t: u32) -> Source {
    let per = 32 / operation.a.bits();
    let half = register % 2;
    let column = t * per + j + 4 * per * (register / 2);
    let chunk = column / sparsity.chunk;
    // The chunk's first non-zero element, in the non-zero half's columns.
    let kept_column = chunk * sparsity.kept;
    Source {
        register: half + 2 * (kept_column / (4 * per)),
        thread: (kept_column % (4 * per)) / per,
        first: kept_column % per,
        metadata_lane: chunk / 4,
        metadata_shift: 16 * half + 4 * (chunk % 4),
        place: column % sparsity.chunk,
    }
}

/// The lane's dense A registers (`i32`s) from the warp's non-zero halves and metadata.
fn dense_a<'ctx>(
    warp: &Warp<'_, '_, 'ctx>,
    operation: &MatrixMultiply,
    sparsity: Sparsity,
    compressed: &[IntValue<'ctx>],
    metadata: IntValue<'ctx>,
    selector: u32,
) -> LoweringResult<Vec<IntValue<'ctx>>> {
    let builder = warp.builder();
    let bits = operation.a.bits();
    let per = 32 / bits;
    let mask = (1u64 << bits) - 1;
    let thread = warp.and(warp.lane, 3)?;
    let group = warp.and(warp.lane, 0x1c)?;
    // The selected lanes' metadata, shuffled once per lane of the group that gives it.
    let mut metadata_words: HashMap<u32, IntValue<'ctx>> = HashMap::new();
    let mut dense = Vec::new();
    for register in 0..operation.a_registers() {
        let sources: Vec<[Source; 4]> =
            (0..per).map(|j| [0, 1, 2, 3].map(|t| source(operation, sparsity, register, j, t))).collect();
        // Every element of a dense register lies in one chunk, whose non-zero elements one
        // register of one lane holds, the same register for every lane.
        let first = sources[0];
        let uniform = sources.iter().all(|by_thread| {
            by_thread.iter().zip(&first).all(|(this, lane)| {
                this.register == first[0].register
                    && (this.thread, this.first, this.metadata_lane, this.metadata_shift)
                        == (lane.thread, lane.first, lane.metadata_lane, lane.metadata_shift)
            })
        });
        let metadata_lane = first[0].metadata_lane;
        if !uniform || first.iter().any(|lane| lane.metadata_lane != metadata_lane) {
            return Err(LoweringError::internal("an `mma.sp` chunk spread over registers", warp.guarded.span));
        }
        let holder = warp.or(group, by_thread(warp, thread, first.map(|lane| lane.thread))?)?;
        let word = warp.shuffle(warp.word(compressed, first[0].register as usize)?, holder)?;
        let metadata_word = match metadata_words.get(&metadata_lane) {
            Some(word) => *word,
            None => {
                let giver = warp.or(group, warp.i32(u64::from(sparsity.metadata_lanes * selector + metadata_lane)))?;
                let word = warp.shuffle(metadata, giver)?;
                metadata_words.insert(metadata_lane, word);
                word
            }
        };
        let shift = by_thread(warp, thread, first.map(|lane| lane.metadata_shift))?;
        let field = warp.and(builder.build_right_shift(metadata_word, shift, false, "")?, 0xf)?;
        let mut value = warp.i32(0);
        for (j, by_thread_sources) in sources.iter().enumerate() {
            let place = by_thread(warp, thread, by_thread_sources.map(|lane| lane.place))?;
            // The chunk's non-zero elements, later ones winning where indices repeat.
            let mut element = warp.i32(0);
            for kept in 0..sparsity.kept {
                let index = warp.and(warp.shift_right(field, u64::from(2 * kept))?, 3)?;
                let index = if sparsity.halves == 2 { warp.shift_right(index, 1)? } else { index };
                let here = builder.build_int_compare(IntPredicate::EQ, index, place, "")?;
                let shift = u64::from(bits * (first[0].first + kept));
                let nonzero = warp.and(warp.shift_right(word, shift)?, mask)?;
                element = builder.build_select(here, nonzero, element, "")?.into_int_value();
            }
            value = warp.or(value, warp.shift_left(element, u64::from(bits) * j as u64)?)?;
        }
        dense.push(value);
    }
    Ok(dense)
}

/// `values[t]` for the lane's `thread` (an `i32` from 0 to 3): a constant where they agree.
fn by_thread<'ctx>(
    warp: &Warp<'_, '_, 'ctx>,
    thread: IntValue<'ctx>,
    values: [u32; 4],
) -> LoweringResult<IntValue<'ctx>> {
    let mut value = warp.i32(u64::from(values[0]));
    if values.iter().all(|other| *other == values[0]) {
        return Ok(value);
    }
    for (t, other) in values.iter().enumerate().skip(1) {
        let this = warp.builder().build_int_compare(IntPredicate::EQ, thread, warp.i32(t as u64), "")?;
        value = warp.builder().build_select(this, warp.i32(u64::from(*other)), value, "")?.into_int_value();
    }
    Ok(value)
}
