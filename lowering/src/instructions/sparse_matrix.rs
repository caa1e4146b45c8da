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
//!   `groupID + 8`, `firstcol = threadID_in_group * 2`, `+ 8` for `a2, a3`), on 8-bit
//!   `.m16n8k64` (`a0` to `a3` and `a8` to `a11` row `groupID`, the others `groupID + 8`,
//!   dense `firstcol = threadID_in_group * 8`, `+ 32` from `a8`), on 8-bit `.m16n8k32` (`a0` to
//!   `a3` row `groupID`, the others `groupID + 8`, dense `firstcol = threadID_in_group * 8`:
//!   the dense 8-bit `.m16n8k16` A) and on 4-bit `.m16n8k64` (`a0` to `a7` row `groupID`, the
//!   others `groupID + 8`, dense `firstcol = threadID_in_group * 16`: the dense 4-bit
//!   `.m16n8k32` A).
//! - `.f16`/`.bf16` and 8-bit integers (2:4): non-zero column `2c + s` of a row (s = 0, 1)
//!   lies in chunk `c`, dense columns `4c` to `4c + 3`, at the place that the chunk's two-bit
//!   index `s` names (the manual: "16 2-bit vectors" in a `.b32`, each pair "the indices of two
//!   non-zero elements from a 4-wide chunk"). `.tf32` (1:2): non-zero column `c` lies in chunk
//!   `c`, dense columns `2c` and `2c + 1`, and its chunk's four bits are two indices of 16-bit
//!   halves: the manual's text calls 0b0100 (halves 0 and 1: the first element) and 0b1110
//!   (halves 2 and 3: the second) "the only meaningful values"; here the first index's high
//!   bit names the element (CUTLASS's host `uncompress` reads them so too).
//! - Metadata: four bits to a chunk (index 0 in the low two), the chunks of a row from bit 0
//!   up. On `.f16`/`.bf16`/`.tf32` in 16-bit halves: the low half of a lane's `e` describes
//!   row `g`, the high half row `g + 8`. Where a row has four chunks (`.m16n8k16` on
//!   `.f16`/`.bf16`, `.m16n8k8` on `.tf32`) lane `4g + f` alone gives the group's metadata (the
//!   manual: "In a group of four consecutive threads, one or more threads store the metadata
//!   for the whole group"; four selector values); where it has eight (`.m16n8k32`, and
//!   `.m16n8k16` on `.tf32`) lanes `4g + 2f` and `4g + 2f + 1` give chunks 0 to 3 and 4 to 7.
//!   The eight-chunk layout is the MLIR test's (lane `4q + p`: row `q` in the low 16 bits, row
//!   `q + 8` in the high, columns `16p` to `16p + 15`, little-endian indices) and tilelang's
//!   (`ldmatrix_e` with `metadata_16bit_load_32x2_to_shared_16x2_layout_16bit` and
//!   `..._32bit`: 16-bit word `lane mod 2` of rows `lane / 4` and `lane / 4 + 8`, four bits a
//!   chunk on `.tf32` too); four chunks a row have the same halves in one lane.
//! - 8-bit `.m16n8k64` (sixteen chunks a row, selector 0): every lane gives a whole word, lane
//!   `4g + t` chunks `8·(t / 2)` to `8·(t / 2) + 7` of row `g + 8·(t mod 2)`. Two sources that
//!   run on sm_80 agree. Tilelang's `metadata_32bit_load_32x1_to_shared_16x2_layout_8bit`
//!   (32-bit word `(lane mod 4) / 2` of row `lane / 4 + 8·(lane mod 2)`). CUTLASS's sparse
//!   int8 GEMM (`SparseMma<16,8,64>` with `kMaxID2 = 1`, so 32-bit metadata elements of eight
//!   chunks, chunk 0 lowest as `host_uncompress.h` reads them): `reorder_meta` (rows in groups
//!   of 16, row `m` to `(m mod 8)·2 + (m mod 16) / 8`, then 2×2 blocks transposed), the
//!   `ColumnMajorInterleaved<2>` global layout copied as is to shared memory, and the warp's
//!   `ldmatrix.x4` in `SparseMmaTensorOpMetaTileIterator` give lane `l` of the M-tile's `mma`
//!   the element of row `l / 4 + 8·(l mod 2)`, column `(l mod 4) / 2`. (The same derivation
//!   gives the `.f16` `.m16n8k32` layout above, with 16-bit elements.)
//!
//! - 4-bit `.m16n8k128` (4:8 in pairs, sixteen chunks of eight a row, selector 0): the manual's
//!   "Sparse matrix storage" text makes `.s4`/`.u4` sparse at 4:8 granularity in pairs of
//!   adjacent elements: index `i` (0 or 1) of a chunk, of value `s`, names the pair at places
//!   `2s` and `2s + 1`, which holds the chunk's kept elements `2i` and `2i + 1`.
//!   Taken a pair (8 bits) at a time, a row is an 8-bit `.m16n8k64` row: the same sixteen chunks
//!   of four units, the same metadata bits. The A fragments agree too: the manual's text puts
//!   sparse `.m16n8k128` register `r` (`a0` to `a7`, ...) in row `groupID + 8·(r mod 2)` with 16
//!   dense columns from `threadID_in_group * 16` (`+ 64` from `a16`), eight non-zero 4-bit
//!   elements, which are the same bits as the 8-bit `.m16n8k64` register's four non-zero bytes
//!   (dense columns from `threadID_in_group * 8`, `+ 32`). CUTLASS's sparse int4 GEMM takes the
//!   metadata path of its int8 one unchanged: `SparseMma<16,8,128>` has the same `kMaxID2 = 1`
//!   (32-bit metadata elements, `reorder_meta` and the iterator keyed on that size alone), and
//!   `kElementsPerElementE = 128 / 4` non-zero 4-bit elements, one word per 64 dense columns
//!   as the 8-bit 16 per 32, so the same `ColumnMajorInterleaved<2>` tile and `ldmatrix.x4`
//!   load give lane `4g + t` the word of row `g + 8·(t mod 2)`, chunks `8·(t / 2)` on; its host
//!   `uncompress` reads 4-bit chunk `i` from bits `4i` with each index naming a pair
//!   (`ElementsPerE = 2`, steps of eight). NVIDIA's ptxas agrees: at sm_90 it computes 4-bit
//!   `.m16n8k128` as two 8-bit `.m16n8k64` (`IMMA.SP.16864.S8.S8`, on the low and on the high
//!   element of each pair) with the metadata register unchanged.
//!
//! - 8-bit `.m16n8k32` and 4-bit `.m16n8k64` (eight chunks a row, selector 0 or 1; the
//!   manual's "Sparse matrix storage": "A thread-pair within a group of four consecutive threads
//!   contributes the sparsity metadata. Hence, the sparsity selector must be either 0 (threads
//!   T0, T1) or 1 (threads T2, T3)"): lanes `4g + 2f` and `4g + 2f + 1` give whole words, of
//!   rows `g` and `g + 8`, chunk `c` at bit `4c`. That is the 8-bit `.m16n8k64` layout's pair of
//!   lanes for chunks 0 to 7, not the 16-bit halves of `.f16` `.m16n8k32`. The 4-bit form is
//!   the 8-bit one taken a pair of elements at a time, as `.m16n8k128` is `.m16n8k64`.
//!   The manual draws these layouts only in figures ("Sparse MMA .m16n8k32 metadata layout for
//!   .u8/.s8 type", `sparse-mma-metadata-16832-u8s8`, and `sparse-mma-metadata-16864-u4s4`),
//!   and neither CUTLASS nor tilelang issues these shapes. The layout here is NVIDIA's ptxas's
//!   (12.9 and 13.5, `cuobjdump -sass`): at sm_100 and later it assembles the ISA 7.1 `mma.sp`
//!   by a subroutine that turns the metadata into `::ordered_metadata` for `IMMA.SP.16832` with
//!   selector 0. It shuffles the words of lanes `4g + 2f` and `4g + 2f + 1` to the whole group;
//!   lane `4g + t` keeps byte `t` of each (two chunks), sorts each chunk's two indices and, where
//!   it swaps them, swaps that chunk's two kept bytes of A: the first word's byte with `a0` (row
//!   `g`, chunks `2t` and `2t + 1`), the second word's with `a1` (row `g + 8`). Read the same
//!   way, ptxas's subroutines for `.f16` `.m16n8k32` and 8-bit `.m16n8k64` give exactly the
//!   layouts above that two other sources each back. For 4 bits ptxas at sm_90 computes
//!   `.m16n8k64` as two 8-bit `.m16n8k32` (`IMMA.SP.16832.S8.S8`, on the low and on the high
//!   element of each pair) with the metadata register and the selector unchanged, and at sm_100
//!   it feeds those through the 8-bit subroutine. A second source agrees on 8 bits in part: the
//!   sparse int8 GEMM `kernels/gemm/igemm/igemm_sparse_tiled.cu` with its host
//!   `sparse_meta_int8.h` (a repository the search index does not name; its notes report runs,
//!   checked against a host model, on an RTX 3070 Ti) packs one word of eight chunks a row,
//!   chunk `c` at bit `4c`; its data
//!   gives rows `g` and `g + 8` one pattern, so it does not say which lane of the pair gives
//!   which row. So 8 bits rest on ptxas and that partial source, 4 bits on ptxas and the
//!   manual's text alone.
//!
//! Metadata values that PTX calls undefined (both indices of a chunk equal: 0b0000, 0b0101,
//! 0b1010, 0b1111) give a defined result here: the place gets the chunk's second non-zero
//! element (on 4-bit forms the pair gets the second kept pair), and the chunk's other places
//! are zero. The rebuilt A multiplies B's rows at its
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

/// How a form's A is compressed and its metadata spread (see the module's documentation).
#[derive(Clone, Copy)]
struct Sparsity {
    /// Dense elements in a chunk.
    chunk: u32,
    /// Non-zero elements kept of each chunk.
    kept: u32,
    /// What a chunk's two-bit index names.
    index: IndexUnit,
    /// Which lanes of a group give which chunks' metadata.
    metadata: MetadataLayout,
}

/// What a chunk's two-bit index names.
#[derive(Clone, Copy, PartialEq, Eq)]
enum IndexUnit {
    /// A place of the chunk (2:4): index `s` places the chunk's kept element `s`.
    Element,
    /// A 16-bit half of a `.tf32` chunk of two (1:2): 0b0100 (indices 0 and 1) keeps the first
    /// element, 0b1110 the second; the first index's high bit names the element.
    Half,
    /// A pair of adjacent 4-bit elements of a chunk of eight (4:8 in pairs): index `i` of value
    /// `s` places the chunk's kept elements `2i` and `2i + 1` at places `2s` and `2s + 1`.
    Pair,
}

impl IndexUnit {
    /// Dense elements that one index places.
    fn elements(self) -> u32 {
        if self == IndexUnit::Pair {
            2
        } else {
            1
        }
    }
}

/// Which lanes of a group give which chunks' metadata.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MetadataLayout {
    /// Each selected lane gives 16-bit halves: the low half row `g`, the high half row `g + 8`,
    /// four chunks each; `lanes` lanes of the group (one per four chunks of a row) are selected.
    Halves { lanes: u32 },
    /// Each selected lane gives a whole word, eight chunks of one row: of the `lanes` lanes
    /// (relative to the selected ones) lane `h + 2q` gives row `g + 8·h`, chunks `8q` to
    /// `8q + 7`. Sixteen chunks a row: all four lanes (selector 0); eight: a pair.
    Words { lanes: u32 },
}

impl MetadataLayout {
    /// Lanes of a group that each selector value names.
    fn lanes(self) -> u32 {
        match self {
            MetadataLayout::Halves { lanes } | MetadataLayout::Words { lanes } => lanes,
        }
    }

    /// The lane of the group (relative to the selected ones) whose `e` describes `chunk` of the
    /// row in `half` (0: row `g`, 1: row `g + 8`), and the bit where the chunk's four bits start.
    fn place(self, half: u32, chunk: u32) -> (u32, u32) {
        match self {
            MetadataLayout::Halves { .. } => (chunk / 4, 16 * half + 4 * (chunk % 4)),
            MetadataLayout::Words { .. } => (half + 2 * (chunk / 8), 4 * (chunk % 8)),
        }
    }
}

impl Sparsity {
    fn of(operation: &MatrixMultiply) -> Option<Sparsity> {
        use MatrixElement::{Bf16, Tf32, F16, S4, S8, U4, U8};
        let halves = |lanes| MetadataLayout::Halves { lanes };
        let words = |lanes| MetadataLayout::Words { lanes };
        let (chunk, kept, index, metadata) = match (operation.a, operation.shape) {
            (F16 | Bf16, MatrixShape::M16n8k16) => (4, 2, IndexUnit::Element, halves(1)),
            (F16 | Bf16, MatrixShape::M16n8k32) => (4, 2, IndexUnit::Element, halves(2)),
            (Tf32, MatrixShape::M16n8k8) => (2, 1, IndexUnit::Half, halves(1)),
            (Tf32, MatrixShape::M16n8k16) => (2, 1, IndexUnit::Half, halves(2)),
            (S8 | U8, MatrixShape::M16n8k32) => (4, 2, IndexUnit::Element, words(2)),
            (S8 | U8, MatrixShape::M16n8k64) => (4, 2, IndexUnit::Element, words(4)),
            (S4 | U4, MatrixShape::M16n8k64) => (8, 4, IndexUnit::Pair, words(2)),
            (S4 | U4, MatrixShape::M16n8k128) => (8, 4, IndexUnit::Pair, words(4)),
            _ => return None,
        };
        Some(Sparsity { chunk, kept, index, metadata })
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
    // Every form the checker accepts has a layout; this names any other.
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
    let (metadata_lane, metadata_shift) = sparsity.metadata.place(half, chunk);
    Source {
        register: half + 2 * (kept_column / (4 * per)),
        thread: (kept_column % (4 * per)) / per,
        first: kept_column % per,
        metadata_lane,
        metadata_shift,
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
                let giver =
                    warp.or(group, warp.i32(u64::from(sparsity.metadata.lanes() * selector + metadata_lane)))?;
                let word = warp.shuffle(metadata, giver)?;
                metadata_words.insert(metadata_lane, word);
                word
            }
        };
        let shift = by_thread(warp, thread, first.map(|lane| lane.metadata_shift))?;
        // Where the chunk's first non-zero element starts in `word`: on 8-bit forms the lanes
        // of a group differ (a register of non-zero elements holds two chunks' pairs).
        let first_bit = by_thread(warp, thread, first.map(|lane| bits * lane.first))?;
        let field = warp.and(builder.build_right_shift(metadata_word, shift, false, "")?, 0xf)?;
        let mut value = warp.i32(0);
        // Dense elements an index places: the place's unit, and where in the unit it lies.
        let unit = sparsity.index.elements();
        for (j, by_thread_sources) in sources.iter().enumerate() {
            let place = by_thread(warp, thread, by_thread_sources.map(|lane| lane.place / unit))?;
            let within = by_thread(warp, thread, by_thread_sources.map(|lane| bits * (lane.place % unit)))?;
            // The chunk's non-zero elements, later ones winning where indices repeat.
            let mut element = warp.i32(0);
            let indices = if sparsity.index == IndexUnit::Half { 1 } else { 2 };
            for s in 0..indices {
                let index = warp.and(warp.shift_right(field, u64::from(2 * s))?, 3)?;
                let (index, kept) = match sparsity.index {
                    IndexUnit::Element | IndexUnit::Pair => (index, s),
                    IndexUnit::Half => (warp.shift_right(index, 1)?, 0),
                };
                let here = builder.build_int_compare(IntPredicate::EQ, index, place, "")?;
                let unit_start = builder.build_int_add(first_bit, warp.i32(u64::from(bits * unit * kept)), "")?;
                let at = builder.build_int_add(unit_start, within, "")?;
                let nonzero = warp.and(builder.build_right_shift(word, at, false, "")?, mask)?;
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
