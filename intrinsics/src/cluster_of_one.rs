//! `mapa` and `getctarank` (ISA 7.8 sections 9.7.8.20, 9.7.8.21) where every CTA is a cluster
//! of one, as on every target that ptxr launches without clusters (CPU, AMDGPU, SPIR-V; see
//! `fixed_special_register.rs` for the cluster registers).
//!
//! The only CTA in the cluster has rank 0, so `getctarank` gives 0 and `mapa` to rank 0 gives
//! the address itself. `mapa` to any other rank names a CTA that does not exist, which the ISA
//! leaves undefined; ptxr then gives the address itself too, so that the result is still an
//! address of this CTA's shared memory rather than a wild pointer.

use inkwell::values::IntValue;

use crate::{Site, Unsupported};

/// What a cluster instruction asks of an address (`a`), at its `.u32`/`.u64` width.
#[derive(Clone, Copy, Debug)]
pub enum ClusterQuery<'ctx> {
    /// `mapa{.shared::cluster}.type d, a, b`: `a` mapped into the CTA of rank `b` (an i32).
    Map { shared_cluster: bool, address: IntValue<'ctx>, rank: IntValue<'ctx> },
    /// `getctarank{.shared::cluster}.type d, a`: the rank (an i32) of the CTA holding `a`.
    Rank { shared_cluster: bool, address: IntValue<'ctx> },
}

/// The answer for a cluster of one CTA.
pub fn answer<'ctx>(site: &Site<'_, 'ctx>, query: ClusterQuery<'ctx>) -> Result<IntValue<'ctx>, Unsupported> {
    Ok(match query {
        ClusterQuery::Map { address, .. } => address,
        ClusterQuery::Rank { .. } => site.context.i32_type().const_zero(),
    })
}
