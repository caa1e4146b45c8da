//! Barriers and warp collectives as lowering hands them to a target: the operation with its
//! operands already read as LLVM integers, and what the target gives back.

use inkwell::values::{BasicValueEnum, IntValue, PointerValue};
use inkwell::IntPredicate;
use ptxr_frontend::ir::{
    BarrierOperation, MatrixMultiply, ReduxOperation, ShuffleMode, VoteMode, WarpGroupMultiply, WarpMatrixMultiply,
    WarpMatrixShape,
};

use crate::{Site, Unsupported};

/// One block-level barrier: `bar.sync`, `bar.arrive` or `bar.red`.
pub struct Barrier<'ctx> {
    pub operation: BarrierOperation,
    /// The barrier number (i32).
    pub barrier: IntValue<'ctx>,
    /// The number of threads that take part (i32); all of the block when `None`.
    pub thread_count: Option<IntValue<'ctx>>,
    /// The predicate a reduction combines (i1), already negated when the PTX said `!p`.
    pub predicate: Option<IntValue<'ctx>>,
}

/// One warp collective. Every value is an i32 unless stated; member masks are i32.
pub enum WarpCollective<'ctx> {
    /// `member_mask` is `None` for the forms without `.sync`: the lanes that arrive together.
    Shuffle {
        mode: ShuffleMode,
        value: IntValue<'ctx>,
        lane: IntValue<'ctx>,
        clamp: IntValue<'ctx>,
        member_mask: Option<IntValue<'ctx>>,
    },
    /// `predicate` is an i1; `member_mask` as for `Shuffle`.
    Vote {
        mode: VoteMode,
        predicate: IntValue<'ctx>,
        member_mask: Option<IntValue<'ctx>>,
    },
    /// `value` is an i32 or an i64.
    Match {
        all: bool,
        value: IntValue<'ctx>,
        member_mask: IntValue<'ctx>,
    },
    Redux {
        operation: ReduxOperation,
        signed: bool,
        value: IntValue<'ctx>,
        member_mask: IntValue<'ctx>,
    },
    ActiveMask,
    /// `bar.warp.sync`.
    Sync {
        member_mask: IntValue<'ctx>,
    },
}

/// What a collective produces: a value (i32, or i1 for `vote.all/any/uni`) and, for `shfl` and
/// `match.all`, a predicate (i1).
pub struct CollectiveResult<'ctx> {
    pub value: Option<IntValue<'ctx>>,
    pub predicate: Option<IntValue<'ctx>>,
}

/// PTX's `shfl` source lane for `lane` (i32, 0 to 31), as ISA 7.8 section 9.7.8.6 defines it
/// from the offset or index `b` and the packed clamp and segment mask `c`: the lane to read,
/// already replaced by `lane` itself when out of range, and whether it was in range (i1).
pub fn shuffle_source<'ctx>(
    site: &Site<'_, 'ctx>,
    mode: ShuffleMode,
    lane: IntValue<'ctx>,
    b: IntValue<'ctx>,
    c: IntValue<'ctx>,
) -> Result<(IntValue<'ctx>, IntValue<'ctx>), Unsupported> {
    let builder = site.builder;
    let failed =
        |error: inkwell::builder::BuilderError| Unsupported { what: format!("a shuffle's source lane ({error})") };
    let i32_type = site.context.i32_type();
    let constant = |value: u64| i32_type.const_int(value, false);
    let offset = builder.build_and(b, constant(0x1f), "").map_err(failed)?;
    let clamp_lane = builder.build_and(c, constant(0x1f), "").map_err(failed)?;
    let segment_shifted = builder.build_right_shift(c, constant(8), false, "").map_err(failed)?;
    let segment_mask = builder.build_and(segment_shifted, constant(0x1f), "").map_err(failed)?;
    let not_segment = builder.build_not(segment_mask, "").map_err(failed)?;
    let min_lane = builder.build_and(lane, segment_mask, "").map_err(failed)?;
    let clamp_part = builder.build_and(clamp_lane, not_segment, "").map_err(failed)?;
    let max_lane = builder.build_or(min_lane, clamp_part, "").map_err(failed)?;
    let (source, predicate) = match mode {
        ShuffleMode::Up => (builder.build_int_sub(lane, offset, "").map_err(failed)?, IntPredicate::SGE),
        ShuffleMode::Down => (builder.build_int_add(lane, offset, "").map_err(failed)?, IntPredicate::SLE),
        ShuffleMode::Butterfly => (builder.build_xor(lane, offset, "").map_err(failed)?, IntPredicate::SLE),
        ShuffleMode::Index => {
            let index = builder.build_and(offset, not_segment, "").map_err(failed)?;
            (builder.build_or(min_lane, index, "").map_err(failed)?, IntPredicate::SLE)
        }
    };
    let in_range = builder.build_int_compare(predicate, source, max_lane, "shfl.in_range").map_err(failed)?;
    let source = builder.build_select(in_range, source, lane, "shfl.lane").map_err(failed)?.into_int_value();
    Ok((source, in_range))
}

/// How a target computes the warp-level matrix instructions (`mma.sync`, `ldmatrix.sync`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixLowering {
    /// Through `Target::matrix_collective` and the lane's fragment buffer: the CPU's runtime
    /// meets the warp, NVPTX has the instructions themselves.
    Collective,
    /// Lowering builds each lane's results from index shuffles (`Target::warp_collective`) and,
    /// for `ldmatrix`, loads of its own: for GPUs with warp shuffles but no matrix instructions
    /// for PTX's fragments (`lowering/src/instructions/matrix_by_shuffles.rs`).
    Shuffles,
}

/// A warp collective over matrix fragments (`mma.sync`, `ldmatrix.sync`): each lane hands over
/// its fragment buffer, laid out as `ptxr_runtime::abi::matrix_fragments` says, and finds its
/// result there afterwards. Lowering fills the operands' words and reads the result's; the
/// target makes the lanes meet.
pub enum MatrixCollective<'ctx> {
    MultiplyAccumulate {
        operation: MatrixMultiply,
        fragments: PointerValue<'ctx>,
    },
    /// `mma.sp` on a target with its own instruction ([`crate::Target::native_sparse_matrix`]):
    /// the buffer's A holds the lane's non-zero half of A (half the dense form's registers);
    /// `metadata` is the lane's `e` (an `i32`) and `selector` the constant `f`.
    SparseMultiplyAccumulate {
        operation: MatrixMultiply,
        metadata: IntValue<'ctx>,
        selector: u32,
        fragments: PointerValue<'ctx>,
    },
    /// `row` is the address, in its state space, of the row this lane gives.
    Load {
        matrices: u32,
        transpose: bool,
        row: PointerValue<'ctx>,
        fragments: PointerValue<'ctx>,
    },
}

/// A `wmma` instruction on a target with its own (NVPTX's `wmma`): the lane's registers in
/// and out, as 32-bit integers, `.f32` or `.f64` values (ptxr's register types); the
/// fragments' layout is the target's.
pub enum WarpMatrixCollective<'ctx> {
    /// `wmma.load`: `address` in its state space, `stride` (an `i32`) when one is written.
    Load { shape: WarpMatrixShape, address: PointerValue<'ctx>, stride: Option<IntValue<'ctx>> },
    /// `wmma.store`.
    Store {
        shape: WarpMatrixShape,
        address: PointerValue<'ctx>,
        stride: Option<IntValue<'ctx>>,
        registers: Vec<BasicValueEnum<'ctx>>,
    },
    /// `wmma.mma`.
    MultiplyAccumulate {
        operation: WarpMatrixMultiply,
        a: Vec<BasicValueEnum<'ctx>>,
        b: Vec<BasicValueEnum<'ctx>>,
        c: Vec<BasicValueEnum<'ctx>>,
    },
}

/// `wgmma` as lowering hands it to a target with the instructions of its own
/// (`Target::native_warp_group_matrix`).
pub enum WarpGroupCollective<'ctx> {
    /// `wgmma.fence`.
    Fence,
    /// `wgmma.commit_group`.
    Commit,
    /// `wgmma.wait_group N`.
    Wait { pending: u32 },
    /// `wgmma.mma_async`.
    MultiplyAccumulate(WarpGroupOperands<'ctx>),
}

/// The operands of one `wgmma.mma_async`, read.
pub struct WarpGroupOperands<'ctx> {
    pub operation: WarpGroupMultiply,
    /// D's registers as they are before the instruction (`f32`, or `i32` for `.f16` pairs and
    /// `.s32`), which it reads and writes.
    pub accumulator: Vec<BasicValueEnum<'ctx>>,
    /// A's matrix descriptor (`i64`), or the thread's four `i32` registers of A.
    pub a: WarpGroupSource<'ctx>,
    /// B's matrix descriptor (`i64`).
    pub b: IntValue<'ctx>,
    /// `scale-d` (`i1`).
    pub scale_d: IntValue<'ctx>,
    pub negate_a: bool,
    pub negate_b: bool,
    pub transpose_a: bool,
    pub transpose_b: bool,
}

/// Where `wgmma.mma_async` reads A.
pub enum WarpGroupSource<'ctx> {
    Descriptor(IntValue<'ctx>),
    Registers(Vec<IntValue<'ctx>>),
}
