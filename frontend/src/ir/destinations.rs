//! The registers each checked instruction writes. The match is exhaustive, with no catch-all
//! arm, so that a new instruction variant has to say what it writes: passes that follow values
//! from their definitions (lowering's tracing of string constants) can then trust the answer.

use super::{CallOperand, Destination, Instruction};

impl Instruction {
    /// The registers and variables that the instruction writes, in operand order: every
    /// `Destination` (`_` sinks left out) and the variables that receive a call's results.
    /// Memory written through an address (`st`, `atom`, `red`, `cp.async`) is not a
    /// destination, and neither is the carry flag. `Unlowered` names none: lowering rejects it
    /// before anything could rely on the answer.
    pub fn destinations(&self) -> Vec<Destination> {
        match self {
            Instruction::Move { destination, .. }
            | Instruction::Load { destination, .. }
            | Instruction::Pack { destination, .. }
            | Instruction::CreatePolicy { destination }
            | Instruction::IsSpace { destination, .. }
            | Instruction::MapClusterAddress { destination, .. }
            | Instruction::ClusterRank { destination, .. }
            | Instruction::StackAllocate { destination, .. }
            | Instruction::StackSave { destination, .. }
            | Instruction::ConvertAddress { destination, .. }
            | Instruction::IntegerBinary { destination, .. }
            | Instruction::IntegerLanes { destination, .. }
            | Instruction::IntegerMultiplyAdd { destination, .. }
            | Instruction::FloatBinary { destination, .. }
            | Instruction::FusedMultiplyAdd { destination, .. }
            | Instruction::FloatUnary { destination, .. }
            | Instruction::CopySign { destination, .. }
            | Instruction::PackedSingle { destination, .. }
            | Instruction::Logic { destination, .. }
            | Instruction::Unary { destination, .. }
            | Instruction::Shift { destination, .. }
            | Instruction::CarryArithmetic { destination, .. }
            | Instruction::CarryMultiplyAdd { destination, .. }
            | Instruction::BitFieldExtract { destination, .. }
            | Instruction::FindMostSignificantBit { destination, .. }
            | Instruction::FindNthSetBit { destination, .. }
            | Instruction::BitMask { destination, .. }
            | Instruction::SignOrZeroExtend { destination, .. }
            | Instruction::Permute { destination, .. }
            | Instruction::FunnelShift { destination, .. }
            | Instruction::Multiply24 { destination, .. }
            | Instruction::SumOfAbsoluteDifferences { destination, .. }
            | Instruction::DotProduct { destination, .. }
            | Instruction::ConvertPack { destination, .. }
            | Instruction::TestProperty { destination, .. }
            | Instruction::Set { destination, .. }
            | Instruction::HalfBinary { destination, .. }
            | Instruction::HalfFusedMultiplyAdd { destination, .. }
            | Instruction::HalfUnary { destination, .. }
            | Instruction::HalfConvert { destination, .. }
            | Instruction::ConvertToTf32 { destination, .. }
            | Instruction::PackConvert { destination, .. }
            | Instruction::Float8Convert { destination, .. }
            | Instruction::Select { destination, .. }
            | Instruction::SelectBySign { destination, .. }
            | Instruction::Convert { destination, .. }
            | Instruction::Vote { destination, .. }
            | Instruction::Redux { destination, .. }
            | Instruction::ActiveMask { destination } => vec![*destination],
            Instruction::LogicTable { destination, predicate, .. } => {
                std::iter::once(*destination).chain(predicate.as_ref().map(|predicate| predicate.destination)).collect()
            }
            Instruction::BitFieldInsert(insert) => vec![insert.destination],
            Instruction::Texture(texture) => texture.destinations(),
            Instruction::Video(video) => vec![video.destination],
            Instruction::VideoSimd(video) => vec![video.destination],
            Instruction::SetPredicate { destination: first, complement: second, .. }
            | Instruction::PackedSetPredicate { low: first, high: second, .. }
            | Instruction::Match { destination: first, predicate: second, .. } => {
                std::iter::once(*first).chain(*second).collect()
            }
            Instruction::Shuffle(shuffle) => std::iter::once(shuffle.destination).chain(shuffle.in_range).collect(),
            Instruction::Elect { destination, predicate, .. } => {
                destination.iter().copied().chain([*predicate]).collect()
            }
            Instruction::LoadVector { destinations, .. } | Instruction::Unpack { destinations, .. } => {
                destinations.iter().flatten().copied().collect()
            }
            Instruction::MoveVector { destinations, .. }
            | Instruction::LoadMatrix { destinations, .. }
            | Instruction::WarpMatrixLoad { destinations, .. } => destinations.clone(),
            Instruction::MatrixMultiplyAccumulate { destinations, .. }
            | Instruction::WarpMatrixMultiplyAccumulate { destinations, .. } => destinations.to_vec(),
            Instruction::WarpGroupMultiplyAccumulate(multiply) => multiply.destinations.to_vec(),
            Instruction::MbarrierTestWait { destination, .. }
            | Instruction::MbarrierPendingCount { destination, .. } => {
                vec![*destination]
            }
            Instruction::VectorAtomic { destinations, .. } => destinations.clone().unwrap_or_default(),
            Instruction::Atomic { destination, .. }
            | Instruction::Barrier { destination, .. }
            | Instruction::MbarrierArrive { destination, .. } => destination.iter().copied().collect(),
            Instruction::Call { results, .. } | Instruction::CallIndirect { results, .. } => results
                .iter()
                .filter_map(|result| match result {
                    CallOperand::Variable { variable, span } => {
                        Some(Destination { register: *variable, member: None, span: *span })
                    }
                    CallOperand::Immediate(_) => None,
                })
                .collect(),
            Instruction::Store { .. }
            | Instruction::WarpMatrixStore { .. }
            | Instruction::StoreVector { .. }
            | Instruction::CopyAsync { .. }
            | Instruction::CopyAsyncGroup
            | Instruction::BulkCopy { .. }
            | Instruction::BulkReduce { .. }
            | Instruction::BulkPrefetch { .. }
            | Instruction::BulkTensorPrefetch { .. }
            | Instruction::BulkTensorCopy { .. }
            | Instruction::BulkCopyCommit
            | Instruction::BulkCopyWait { .. }
            | Instruction::TensorMapReplace { .. }
            | Instruction::TensorMapCopyFenceProxy { .. }
            | Instruction::TensorMapFence { .. }
            | Instruction::MbarrierTransaction { .. }
            | Instruction::Prefetch { .. }
            | Instruction::Branch { .. }
            | Instruction::BranchIndexed { .. }
            | Instruction::Return
            | Instruction::Exit
            | Instruction::Trap
            | Instruction::Hint(_)
            | Instruction::StackRestore { .. }
            | Instruction::Sleep { .. }
            | Instruction::Fence { .. }
            | Instruction::ProxyFence { .. }
            | Instruction::MbarrierInit { .. }
            | Instruction::MbarrierInvalidate { .. }
            | Instruction::CopyAsyncMbarrierArrive { .. }
            | Instruction::WarpSync { .. }
            | Instruction::StoreMatrix { .. }
            | Instruction::WarpGroupFence
            | Instruction::WarpGroupCommit
            | Instruction::WarpGroupWait { .. }
            | Instruction::Unlowered => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
