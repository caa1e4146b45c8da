//! Special registers whose values ptxr fixes by its own launch model, the same on every target
//! that cannot read them from hardware (CPU, AMDGPU, SPIR-V); NVPTX reads them natively.
//!
//! - Clusters (ISA 7.8 sections 10.11 to 10.17): ptxr launches no clusters, so each CTA is a
//!   cluster of one: `%cluster_ctaid` = (0, 0, 0), `%cluster_nctaid` = (1, 1, 1), `%clusterid` =
//!   `%ctaid`, `%nclusterid` = `%nctaid`, `%cluster_ctarank` = 0, `%cluster_nctarank` = 1 and
//!   `%is_explicit_cluster` = false (the launch asked for no cluster).
//! - `%envreg<32>` (section 10.27): registers the driver defines; all read 0 here. (The CPU
//!   target reads `%envreg1`/`%envreg2` from its block context instead: a cooperative launch's
//!   grid workspace, `ptxr_runtime::grid_workspace`.)
//! - `%pm0..7` and `%pm0_64..7_64` (sections 10.25, 10.26): no performance counters are
//!   configured, so they read 0.
//! - `%reserved_smem_offset_*` (section 10.29): ptxr reserves no shared memory for system
//!   software: an empty window at offset 0, so begin = end = 0, cap = 0, and the offsets 0.

use inkwell::values::IntValue;
use ptxr_frontend::vocabulary::SpecialRegister;

use crate::{Site, Unsupported};

/// The fixed value of `register`; unsupported for registers this module does not fix (each
/// target's `special_register` sends only the fixed ones here). `read` reads another register
/// (`%ctaid`, `%nctaid`) the target's own way.
pub fn value<'ctx>(
    site: &Site<'_, 'ctx>,
    register: SpecialRegister,
    read: impl Fn(SpecialRegister) -> Result<IntValue<'ctx>, Unsupported>,
) -> Result<IntValue<'ctx>, Unsupported> {
    let i32_type = site.context.i32_type();
    match register {
        SpecialRegister::ClusterId(dimension) => read(SpecialRegister::CtaId(dimension)),
        SpecialRegister::ClusterCount(dimension) => read(SpecialRegister::CtaCount(dimension)),
        SpecialRegister::ClusterCtaId(_) | SpecialRegister::ClusterCtaRank => Ok(i32_type.const_zero()),
        SpecialRegister::ClusterCtaCount(_) | SpecialRegister::ClusterCtaRankCount => Ok(i32_type.const_int(1, false)),
        SpecialRegister::IsExplicitCluster => Ok(site.context.bool_type().const_zero()),
        SpecialRegister::EnvironmentRegister(_)
        | SpecialRegister::PerformanceCounter(_)
        | SpecialRegister::ReservedSharedOffset(_) => Ok(i32_type.const_zero()),
        SpecialRegister::PerformanceCounter64(_) => Ok(site.context.i64_type().const_zero()),
        _ => Err(Unsupported { what: format!("special register {register}") }),
    }
}
