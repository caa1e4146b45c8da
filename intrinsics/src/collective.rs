//! Barriers and warp collectives as lowering hands them to a target: the operation with its
//! operands already read as LLVM integers, and what the target gives back.

use inkwell::values::{IntValue, PointerValue};
use ptxr_frontend::ir::{BarrierOperation, MatrixMultiply, ReduxOperation, ShuffleMode, VoteMode};

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

/// A warp collective over matrix fragments (`mma.sync`, `ldmatrix.sync`): each lane hands over
/// its fragment buffer, laid out as `ptxr_runtime::abi::matrix_fragments` says, and finds its
/// result there afterwards. Lowering fills the operands' words and reads the result's; the
/// target makes the lanes meet.
pub enum MatrixCollective<'ctx> {
    MultiplyAccumulate {
        operation: MatrixMultiply,
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
