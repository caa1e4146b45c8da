//! `mbarrier` (ISA 7.8 section 9.7.12.13): the operands read, the object's address formed,
//! and the rest left to the target, which knows where the object lives and how its threads
//! wait (`ptxr_intrinsics::mbarrier`).

use inkwell::values::IntValue;
use ptxr_frontend::ir::{Address, Destination, GuardedInstruction, Instruction, Operand};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};
use ptxr_intrinsics::mbarrier::Mbarrier;
use ptxr_intrinsics::Unsupported;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// Lowers one `mbarrier` instruction; `instruction` is one of the `Mbarrier*` variants.
pub fn lower<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    instruction: &Instruction,
) -> LoweringResult<()> {
    let object = |lowering: &FunctionLowering<'_, 'ctx>, state_space: StateSpace, address: &Address| {
        lowering.address(address, state_space)
    };
    let (operation, destination): (Mbarrier<'ctx>, Option<(&Destination, ScalarType)>) = match instruction {
        Instruction::MbarrierInit { state_space, address, count } => (
            Mbarrier::Init {
                state_space: *state_space,
                object: object(lowering, *state_space, address)?,
                count: lowering.read_int(count, ScalarType::U32)?,
            },
            None,
        ),
        Instruction::MbarrierInvalidate { state_space, address } => {
            (Mbarrier::Invalidate { state_space: *state_space, object: object(lowering, *state_space, address)? }, None)
        }
        Instruction::MbarrierArrive {
            drop,
            no_complete,
            state_space,
            destination,
            address,
            count,
            transaction_count,
        } => (
            Mbarrier::Arrive {
                state_space: *state_space,
                object: object(lowering, *state_space, address)?,
                drop: *drop,
                no_complete: *no_complete,
                count: read_optional(lowering, count.as_ref())?,
                transaction_count: read_optional(lowering, transaction_count.as_deref())?,
            },
            destination.as_ref().map(|destination| (destination, ScalarType::B64)),
        ),
        Instruction::MbarrierTestWait { wait, parity, state_space, destination, address, phase, suspend_time_hint } => {
            let phase_type = if *parity { ScalarType::U32 } else { ScalarType::B64 };
            (
                Mbarrier::TestWait {
                    state_space: *state_space,
                    object: object(lowering, *state_space, address)?,
                    wait: *wait,
                    parity: *parity,
                    phase: lowering.read_int(phase, phase_type)?,
                    suspend_time_hint: read_optional(lowering, suspend_time_hint.as_ref())?,
                },
                Some((destination, ScalarType::Pred)),
            )
        }
        Instruction::CopyAsyncMbarrierArrive { increment, state_space, address } => (
            Mbarrier::CopyAsyncArrive {
                state_space: *state_space,
                object: object(lowering, *state_space, address)?,
                increment: *increment,
            },
            None,
        ),
        Instruction::MbarrierTransaction { complete, state_space, address, count } => (
            Mbarrier::Transaction {
                state_space: *state_space,
                object: object(lowering, *state_space, address)?,
                complete: *complete,
                count: lowering.read_int(count, ScalarType::U32)?,
            },
            None,
        ),
        Instruction::MbarrierPendingCount { destination, state } => (
            Mbarrier::PendingCount { state: lowering.read_int(state, ScalarType::B64)? },
            Some((destination, ScalarType::U32)),
        ),
        _ => return Err(LoweringError::internal("not an `mbarrier` instruction", guarded.span)),
    };
    let target = lowering.target_name();
    let span = guarded.span;
    let spelling = lowering.spelling(guarded);
    let result =
        lowering.shared.target.mbarrier(&lowering.site(), &operation).map_err(|unsupported: Unsupported| {
            LoweringError::unsupported(&format!("`{spelling}` ({})", unsupported.what), target, span)
        })?;
    if let (Some((destination, ty)), Some(result)) = (destination, result) {
        lowering.write(destination, result.into(), ty)?;
    }
    Ok(())
}

fn read_optional<'ctx>(
    lowering: &FunctionLowering<'_, 'ctx>,
    operand: Option<&Operand>,
) -> LoweringResult<Option<IntValue<'ctx>>> {
    operand.map(|operand| lowering.read_int(operand, ScalarType::U32)).transpose()
}
