//! The vector forms of `atom` and `red` (the PTX ISA manual's "atom" and "red" sections, ISA
//! 8.1, sm_90): `.add` on `.v2`/`.v4` of `.f32`, and `.add`/`.min`/`.max` on `.v2`/`.v4`/`.v8`
//! of `.f16`/`.bf16` and `.v2`/`.v4` of `.f16x2`/`.bf16x2`, in `.global` or generic memory.
//!
//! Each element is one atomic operation on its own element of memory, at consecutive addresses:
//! an `.add` is the scalar `atom.add` of that type on that element (so each target builds it as
//! its scalar form), a `.min`/`.max` a compare-and-swap loop on the word that holds the element
//! (no scalar form of it exists on these types). The manual promises no atomicity of the vector
//! as a whole, and none is given: another thread may see some elements updated and others not.

use ptxr_frontend::ir::{
    Address, AtomicOperation, Destination, GuardedInstruction, MemoryOrdering, MemoryScope, Operand,
};
use ptxr_frontend::vocabulary::{ScalarType, StateSpace};

use super::half::{self, LaneUpdate};
use super::synchronization;
use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

#[allow(clippy::too_many_arguments)]
pub fn vector_atomic(
    lowering: &mut FunctionLowering<'_, '_>,
    guarded: &GuardedInstruction,
    operation: AtomicOperation,
    ty: ScalarType,
    state_space: StateSpace,
    ordering: MemoryOrdering,
    scope: MemoryScope,
    destinations: Option<&[Destination]>,
    address: &Address,
    values: &[Operand],
) -> LoweringResult<()> {
    for (index, value) in values.iter().enumerate() {
        let element = Address { offset: address.offset + index as i64 * i64::from(ty.bytes()), ..address.clone() };
        let destination = destinations.and_then(|destinations| destinations.get(index));
        let update = match operation {
            AtomicOperation::Add => {
                synchronization::atomic(
                    lowering,
                    guarded,
                    operation,
                    ty,
                    state_space,
                    ordering,
                    scope,
                    destination,
                    &element,
                    value,
                    None,
                )?;
                continue;
            }
            AtomicOperation::Minimum => LaneUpdate::Minimum,
            AtomicOperation::Maximum => LaneUpdate::Maximum,
            AtomicOperation::And
            | AtomicOperation::Or
            | AtomicOperation::Xor
            | AtomicOperation::CompareAndSwap
            | AtomicOperation::Exchange
            | AtomicOperation::Increment
            | AtomicOperation::Decrement => {
                return Err(LoweringError::internal("a vector atomic other than `.add`, `.min`, `.max`", guarded.span));
            }
        };
        let pointer = lowering.address(&element, state_space)?;
        let scope_name = lowering.shared.target.sync_scope(scope);
        let bits = lowering.read(value, ty)?.into_int_value();
        let old =
            half::update_by_compare_and_swap(lowering, update, ty, pointer, bits, ordering, scope_name, guarded.span)?;
        if let Some(destination) = destination {
            lowering.write(destination, old.into(), ty)?;
        }
    }
    Ok(())
}
