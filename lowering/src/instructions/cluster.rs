//! `mapa` and `getctarank` (ISA 7.8 sections 9.7.8.20, 9.7.8.21): the operands read at the
//! instruction's width, the answer from the target (`Target::cluster_address`).

use ptxr_frontend::ir::{Destination, Operand};
use ptxr_frontend::vocabulary::ScalarType;
use ptxr_intrinsics::ClusterQuery;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

/// `mapa{.shared::cluster}.type d, a, b`.
pub fn map_address(
    lowering: &mut FunctionLowering<'_, '_>,
    shared_cluster: bool,
    ty: ScalarType,
    destination: &Destination,
    address: &Operand,
    rank: &Operand,
) -> LoweringResult<()> {
    let address_value = lowering.read_int(address, ty)?;
    let rank = lowering.read_int(rank, ScalarType::U32)?;
    let query = ClusterQuery::Map { shared_cluster, address: address_value, rank };
    let mapped =
        lowering.shared.target.cluster_address(&lowering.site(), query).map_err(|unsupported| {
            LoweringError::unsupported(&unsupported.what, lowering.target_name(), address.span)
        })?;
    lowering.write(destination, mapped.into(), ty)
}

/// `getctarank{.shared::cluster}.type d, a`.
pub fn cta_rank(
    lowering: &mut FunctionLowering<'_, '_>,
    shared_cluster: bool,
    ty: ScalarType,
    destination: &Destination,
    address: &Operand,
) -> LoweringResult<()> {
    let address_value = lowering.read_int(address, ty)?;
    let query = ClusterQuery::Rank { shared_cluster, address: address_value };
    let rank =
        lowering.shared.target.cluster_address(&lowering.site(), query).map_err(|unsupported| {
            LoweringError::unsupported(&unsupported.what, lowering.target_name(), address.span)
        })?;
    lowering.write(destination, rank.into(), ScalarType::U32)
}
