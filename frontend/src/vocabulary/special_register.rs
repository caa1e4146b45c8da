//! PTX special registers (ISA 7.8 chapter 10) that ptxr knows by name.

use std::fmt;

/// The `.x`/`.y`/`.z` component of a three-dimensional special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dimension {
    X,
    Y,
    Z,
}

impl Dimension {
    pub fn from_ptx(name: &str) -> Option<Dimension> {
        Some(match name {
            "x" => Dimension::X,
            "y" => Dimension::Y,
            "z" => Dimension::Z,
            _ => return None,
        })
    }

    pub fn index(self) -> u32 {
        match self {
            Dimension::X => 0,
            Dimension::Y => 1,
            Dimension::Z => 2,
        }
    }

    pub const ALL: [Dimension; 3] = [Dimension::X, Dimension::Y, Dimension::Z];
}

impl fmt::Display for Dimension {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Dimension::X => "x",
            Dimension::Y => "y",
            Dimension::Z => "z",
        })
    }
}

/// The relation of `%lanemask_*`: bit i is set when lane i is in that relation to this lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LaneRelation {
    Equal,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl fmt::Display for LaneRelation {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            LaneRelation::Equal => "eq",
            LaneRelation::Less => "lt",
            LaneRelation::LessOrEqual => "le",
            LaneRelation::Greater => "gt",
            LaneRelation::GreaterOrEqual => "ge",
        })
    }
}

/// Which `%reserved_smem_offset_*` register (ISA 7.8 section 10.29): the window of shared memory
/// reserved for NVIDIA's system software.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReservedSharedOffset {
    /// `_begin`: where the reserved window starts.
    Begin,
    /// `_end`: where it ends.
    End,
    /// `_cap`: its size.
    Capacity,
    /// `_0` and `_1`: offsets inside it.
    Slot(u8),
}

impl fmt::Display for ReservedSharedOffset {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReservedSharedOffset::Begin => formatter.write_str("begin"),
            ReservedSharedOffset::End => formatter.write_str("end"),
            ReservedSharedOffset::Capacity => formatter.write_str("cap"),
            ReservedSharedOffset::Slot(index) => write!(formatter, "{index}"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SpecialRegister {
    /// `%tid`: the thread's index within its CTA.
    ThreadId(Dimension),
    /// `%ntid`: the CTA's size.
    ThreadCount(Dimension),
    /// `%ctaid`: the CTA's index within the grid.
    CtaId(Dimension),
    /// `%nctaid`: the grid's size in CTAs.
    CtaCount(Dimension),
    /// `%laneid`: the thread's lane within its warp.
    LaneId,
    /// `%warpid`: the warp's index within its CTA (an identifier, not stable over time).
    WarpId,
    /// `%nwarpid`: the maximum number of warps per CTA.
    WarpCount,
    /// `%lanemask_eq`, `_lt`, `_le`, `_gt`, `_ge`: the lanes of the warp in that relation to
    /// this thread's lane, as a 32-bit mask.
    LaneMask(LaneRelation),
    /// `%clock`: a 32-bit cycle counter.
    Clock,
    /// `%clock_hi`: the upper 32 bits of `%clock64`.
    ClockHigh,
    /// `%clock64`: a 64-bit cycle counter.
    Clock64,
    /// `%globaltimer`: a 64-bit nanosecond timer.
    GlobalTimer,
    /// `%globaltimer_lo`, `%globaltimer_hi`: its low and high 32 bits.
    GlobalTimerLow,
    GlobalTimerHigh,
    /// `%smid`: the multiprocessor running the thread, in `[0, %nsmid)`.
    SmId,
    /// `%nsmid`: the number of multiprocessor identifiers.
    SmCount,
    /// `%gridid`: a 64-bit identifier of the launch, telling launches apart.
    GridId,
    /// `%dynamic_smem_size`: the launch's dynamic shared memory per CTA, in bytes.
    DynamicSharedSize,
    /// `%total_smem_size`: the CTA's static and dynamic shared memory, in bytes.
    TotalSharedSize,
    /// `%aggr_smem_size` (ISA 8.1, sm_90): the CTA's shared memory in bytes, reserved shared
    /// memory included; ptxr reserves none, so it is `%total_smem_size`.
    AggregateSharedSize,
    /// `%envreg0` to `%envreg31`: read-only registers the driver defines.
    EnvironmentRegister(u8),
    /// `%pm0` to `%pm7`: 32-bit performance-monitoring counters.
    PerformanceCounter(u8),
    /// `%pm0_64` to `%pm7_64`: their 64-bit forms.
    PerformanceCounter64(u8),
    /// `%reserved_smem_offset_*`: the shared memory reserved for system software.
    ReservedSharedOffset(ReservedSharedOffset),
    /// `%clusterid`: the cluster's index within the grid.
    ClusterId(Dimension),
    /// `%nclusterid`: the grid's size in clusters.
    ClusterCount(Dimension),
    /// `%cluster_ctaid`: the CTA's index within its cluster.
    ClusterCtaId(Dimension),
    /// `%cluster_nctaid`: the cluster's size in CTAs.
    ClusterCtaCount(Dimension),
    /// `%cluster_ctarank`: the CTA's linear rank within its cluster.
    ClusterCtaRank,
    /// `%cluster_nctarank`: the number of CTAs in the cluster.
    ClusterCtaRankCount,
    /// `%is_explicit_cluster`: a predicate, true when the launch asked for clusters.
    IsExplicitCluster,
}

impl SpecialRegister {
    /// Whether `name` can be a name PTX reserves for a special register, by its length and its two
    /// bytes after `%`: every operand that names a register is asked, and a compiler's registers
    /// (`%r42`, `%rd7`, `%f3`, `%p1`, `%rs2`) fail here in a few instructions, where matching them
    /// against some forty names was a twentieth of the check. [`SpecialRegister::from_ptx`] and
    /// [`SpecialRegister::is_reserved_name`] ask it first, so it must accept every name they do.
    #[inline]
    pub fn may_be_reserved_name(name: &str) -> bool {
        match name.as_bytes() {
            [b'%', first, second, _, ..] => matches!(
                (first, second),
                (b't', b'i' | b'o')
                    | (b'n', b't' | b'c' | b'w' | b's')
                    | (b'c', b't' | b'l' | b'u')
                    | (b'l', b'a')
                    | (b'w', b'a')
                    | (b's', b'm')
                    | (b'g', b'r' | b'l')
                    | (b'd', b'y')
                    | (b'i', b's')
                    | (b'a', b'g')
                    | (b'r', b'e')
                    | (b'e', b'n')
                    | (b'p', b'm')
            ),
            _ => false,
        }
    }

    /// Reads the name (with `%`) and the optional `.x`/`.y`/`.z` member; `None` for names that
    /// are not special registers or that miss or misuse the dimension.
    pub fn from_ptx(name: &str, member: Option<&str>) -> Option<SpecialRegister> {
        if !SpecialRegister::may_be_reserved_name(name) {
            return None;
        }
        let dimension = member.and_then(Dimension::from_ptx);
        let with_dimension = |make: fn(Dimension) -> SpecialRegister| match (member, dimension) {
            (Some(_), Some(dimension)) => Some(make(dimension)),
            _ => None,
        };
        let scalar = |register: SpecialRegister| if member.is_none() { Some(register) } else { None };
        match name {
            "%tid" => with_dimension(SpecialRegister::ThreadId),
            "%ntid" => with_dimension(SpecialRegister::ThreadCount),
            "%ctaid" => with_dimension(SpecialRegister::CtaId),
            "%nctaid" => with_dimension(SpecialRegister::CtaCount),
            "%laneid" => scalar(SpecialRegister::LaneId),
            "%warpid" => scalar(SpecialRegister::WarpId),
            "%nwarpid" => scalar(SpecialRegister::WarpCount),
            "%lanemask_eq" => scalar(SpecialRegister::LaneMask(LaneRelation::Equal)),
            "%lanemask_lt" => scalar(SpecialRegister::LaneMask(LaneRelation::Less)),
            "%lanemask_le" => scalar(SpecialRegister::LaneMask(LaneRelation::LessOrEqual)),
            "%lanemask_gt" => scalar(SpecialRegister::LaneMask(LaneRelation::Greater)),
            "%lanemask_ge" => scalar(SpecialRegister::LaneMask(LaneRelation::GreaterOrEqual)),
            "%clock" => scalar(SpecialRegister::Clock),
            "%clock_hi" => scalar(SpecialRegister::ClockHigh),
            "%clock64" => scalar(SpecialRegister::Clock64),
            "%globaltimer" => scalar(SpecialRegister::GlobalTimer),
            "%globaltimer_lo" => scalar(SpecialRegister::GlobalTimerLow),
            "%globaltimer_hi" => scalar(SpecialRegister::GlobalTimerHigh),
            "%smid" => scalar(SpecialRegister::SmId),
            "%nsmid" => scalar(SpecialRegister::SmCount),
            "%gridid" => scalar(SpecialRegister::GridId),
            "%dynamic_smem_size" => scalar(SpecialRegister::DynamicSharedSize),
            "%total_smem_size" => scalar(SpecialRegister::TotalSharedSize),
            "%aggr_smem_size" => scalar(SpecialRegister::AggregateSharedSize),
            "%clusterid" => with_dimension(SpecialRegister::ClusterId),
            "%nclusterid" => with_dimension(SpecialRegister::ClusterCount),
            "%cluster_ctaid" => with_dimension(SpecialRegister::ClusterCtaId),
            "%cluster_nctaid" => with_dimension(SpecialRegister::ClusterCtaCount),
            "%cluster_ctarank" => scalar(SpecialRegister::ClusterCtaRank),
            "%cluster_nctarank" => scalar(SpecialRegister::ClusterCtaRankCount),
            "%is_explicit_cluster" => scalar(SpecialRegister::IsExplicitCluster),
            "%reserved_smem_offset_begin" => scalar(SpecialRegister::ReservedSharedOffset(ReservedSharedOffset::Begin)),
            "%reserved_smem_offset_end" => scalar(SpecialRegister::ReservedSharedOffset(ReservedSharedOffset::End)),
            "%reserved_smem_offset_cap" => {
                scalar(SpecialRegister::ReservedSharedOffset(ReservedSharedOffset::Capacity))
            }
            "%reserved_smem_offset_0" => scalar(SpecialRegister::ReservedSharedOffset(ReservedSharedOffset::Slot(0))),
            "%reserved_smem_offset_1" => scalar(SpecialRegister::ReservedSharedOffset(ReservedSharedOffset::Slot(1))),
            _ => {
                let numbered = |prefix: &str, suffix: &str, count: u8| {
                    let digits = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
                    // One spelling per number: `%pm01` is not `%pm1`.
                    let index: u8 = digits.parse().ok().filter(|_| digits == "0" || !digits.starts_with('0'))?;
                    (index < count).then_some(index)
                };
                if let Some(index) = numbered("%envreg", "", 32) {
                    scalar(SpecialRegister::EnvironmentRegister(index))
                } else if let Some(index) = numbered("%pm", "_64", 8) {
                    scalar(SpecialRegister::PerformanceCounter64(index))
                } else if let Some(index) = numbered("%pm", "", 8) {
                    scalar(SpecialRegister::PerformanceCounter(index))
                } else {
                    None
                }
            }
        }
    }

    /// The PTX ISA version that introduced the register, where it is newer than 7.0 (the oldest
    /// that LLVM's NVPTX back end writes): NVPTX must then ask for at least that version.
    pub fn isa_version(self) -> Option<(u32, u32)> {
        match self {
            SpecialRegister::ReservedSharedOffset(_) => Some((7, 6)),
            SpecialRegister::ClusterId(_)
            | SpecialRegister::ClusterCount(_)
            | SpecialRegister::ClusterCtaId(_)
            | SpecialRegister::ClusterCtaCount(_)
            | SpecialRegister::ClusterCtaRank
            | SpecialRegister::ClusterCtaRankCount
            | SpecialRegister::IsExplicitCluster => Some((7, 8)),
            SpecialRegister::AggregateSharedSize => Some((8, 1)),
            _ => None,
        }
    }

    /// The oldest `sm_` target that has the register, where newer than any ptxr compiles for
    /// without asking (ptxas 12.9: "Feature '%clusterid' requires .target sm_90 or higher").
    pub fn target_sm(self) -> Option<u32> {
        match self.isa_version() {
            Some((7, 6)) => Some(80),
            Some((7, 8) | (8, 1)) => Some(90),
            _ => None,
        }
    }

    /// Whether the register is a predicate (`%is_explicit_cluster`) rather than an integer.
    pub fn is_predicate(self) -> bool {
        self == SpecialRegister::IsExplicitCluster
    }

    /// Whether the register describes the thread's warp (`%laneid`, `%warpid`, `%nwarpid`,
    /// `%lanemask_*`), so that reading it needs warps as the warp collectives do.
    pub fn is_per_warp(self) -> bool {
        matches!(
            self,
            SpecialRegister::LaneId
                | SpecialRegister::WarpId
                | SpecialRegister::WarpCount
                | SpecialRegister::LaneMask(_)
        )
    }

    /// True for names that PTX reserves for special registers, known to ptxr or not.
    pub fn is_reserved_name(name: &str) -> bool {
        SpecialRegister::may_be_reserved_name(name)
            && matches!(
                name,
                "%tid"
                    | "%ntid"
                    | "%ctaid"
                    | "%nctaid"
                    | "%laneid"
                    | "%warpid"
                    | "%nwarpid"
                    | "%smid"
                    | "%nsmid"
                    | "%gridid"
                    | "%lanemask_eq"
                    | "%lanemask_le"
                    | "%lanemask_lt"
                    | "%lanemask_ge"
                    | "%lanemask_gt"
                    | "%clock"
                    | "%clock_hi"
                    | "%clock64"
                    | "%globaltimer"
                    | "%globaltimer_lo"
                    | "%globaltimer_hi"
                    | "%dynamic_smem_size"
                    | "%total_smem_size"
                    | "%is_explicit_cluster"
                    | "%clusterid"
                    | "%nclusterid"
                    | "%cluster_ctaid"
                    | "%cluster_nctaid"
                    | "%cluster_ctarank"
                    | "%cluster_nctarank"
                    | "%aggr_smem_size"
                    | "%reserved_smem_offset_begin"
                    | "%reserved_smem_offset_end"
                    | "%reserved_smem_offset_cap"
                    | "%reserved_smem_offset_0"
                    | "%reserved_smem_offset_1"
                    | "%current_graph_exec"
            )
            || ["%envreg", "%pm"].iter().any(|prefix| {
                // `%envreg<N>` and `%pm<N>{_64}` only: `%pmask` may be a register of the program.
                name.strip_prefix(prefix).is_some_and(|number| number.starts_with(|c: char| c.is_ascii_digit()))
            })
    }

    /// The register's value type: 64-bit for the 64-bit counters, 32-bit otherwise.
    pub fn bits(self) -> u32 {
        match self {
            SpecialRegister::Clock64
            | SpecialRegister::GlobalTimer
            | SpecialRegister::GridId
            | SpecialRegister::PerformanceCounter64(_) => 64,
            SpecialRegister::IsExplicitCluster => 1,
            _ => 32,
        }
    }
}

impl fmt::Display for SpecialRegister {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecialRegister::ThreadId(dimension) => write!(formatter, "%tid.{dimension}"),
            SpecialRegister::ThreadCount(dimension) => write!(formatter, "%ntid.{dimension}"),
            SpecialRegister::CtaId(dimension) => write!(formatter, "%ctaid.{dimension}"),
            SpecialRegister::CtaCount(dimension) => write!(formatter, "%nctaid.{dimension}"),
            SpecialRegister::LaneId => formatter.write_str("%laneid"),
            SpecialRegister::WarpId => formatter.write_str("%warpid"),
            SpecialRegister::WarpCount => formatter.write_str("%nwarpid"),
            SpecialRegister::LaneMask(relation) => write!(formatter, "%lanemask_{relation}"),
            SpecialRegister::Clock => formatter.write_str("%clock"),
            SpecialRegister::ClockHigh => formatter.write_str("%clock_hi"),
            SpecialRegister::Clock64 => formatter.write_str("%clock64"),
            SpecialRegister::GlobalTimer => formatter.write_str("%globaltimer"),
            SpecialRegister::GlobalTimerLow => formatter.write_str("%globaltimer_lo"),
            SpecialRegister::GlobalTimerHigh => formatter.write_str("%globaltimer_hi"),
            SpecialRegister::SmId => formatter.write_str("%smid"),
            SpecialRegister::SmCount => formatter.write_str("%nsmid"),
            SpecialRegister::GridId => formatter.write_str("%gridid"),
            SpecialRegister::DynamicSharedSize => formatter.write_str("%dynamic_smem_size"),
            SpecialRegister::TotalSharedSize => formatter.write_str("%total_smem_size"),
            SpecialRegister::AggregateSharedSize => formatter.write_str("%aggr_smem_size"),
            SpecialRegister::EnvironmentRegister(index) => write!(formatter, "%envreg{index}"),
            SpecialRegister::PerformanceCounter(index) => write!(formatter, "%pm{index}"),
            SpecialRegister::PerformanceCounter64(index) => write!(formatter, "%pm{index}_64"),
            SpecialRegister::ReservedSharedOffset(which) => write!(formatter, "%reserved_smem_offset_{which}"),
            SpecialRegister::ClusterId(dimension) => write!(formatter, "%clusterid.{dimension}"),
            SpecialRegister::ClusterCount(dimension) => write!(formatter, "%nclusterid.{dimension}"),
            SpecialRegister::ClusterCtaId(dimension) => write!(formatter, "%cluster_ctaid.{dimension}"),
            SpecialRegister::ClusterCtaCount(dimension) => write!(formatter, "%cluster_nctaid.{dimension}"),
            SpecialRegister::ClusterCtaRank => formatter.write_str("%cluster_ctarank"),
            SpecialRegister::ClusterCtaRankCount => formatter.write_str("%cluster_nctarank"),
            SpecialRegister::IsExplicitCluster => formatter.write_str("%is_explicit_cluster"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SpecialRegister;

    /// Every name section 10 reserves, as written there (the numbered families at both ends).
    const RESERVED: &[&str] = &[
        "%tid",
        "%ntid",
        "%ctaid",
        "%nctaid",
        "%laneid",
        "%warpid",
        "%nwarpid",
        "%smid",
        "%nsmid",
        "%gridid",
        "%lanemask_eq",
        "%lanemask_le",
        "%lanemask_lt",
        "%lanemask_ge",
        "%lanemask_gt",
        "%clock",
        "%clock_hi",
        "%clock64",
        "%globaltimer",
        "%globaltimer_lo",
        "%globaltimer_hi",
        "%dynamic_smem_size",
        "%total_smem_size",
        "%is_explicit_cluster",
        "%clusterid",
        "%nclusterid",
        "%cluster_ctaid",
        "%cluster_nctaid",
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%aggr_smem_size",
        "%reserved_smem_offset_begin",
        "%reserved_smem_offset_end",
        "%reserved_smem_offset_cap",
        "%reserved_smem_offset_0",
        "%reserved_smem_offset_1",
        "%current_graph_exec",
        "%envreg0",
        "%envreg31",
        "%pm0",
        "%pm7",
        "%pm0_64",
        "%pm7_64",
    ];

    #[test]
    fn the_filter_lets_every_reserved_name_through() {
        for name in RESERVED {
            assert!(SpecialRegister::may_be_reserved_name(name), "{name}");
            assert!(SpecialRegister::is_reserved_name(name), "{name}");
        }
        // And every register ptxr reads, spelled as it prints it.
        for name in RESERVED {
            for member in [None, Some("x"), Some("y"), Some("z")] {
                if let Some(register) = SpecialRegister::from_ptx(name, member) {
                    let spelled = register.to_string();
                    let bare = spelled.split('.').next().unwrap_or_default();
                    assert_eq!(bare, *name);
                }
            }
        }
        assert_eq!(
            SpecialRegister::from_ptx("%tid", Some("y")).map(|register| register.to_string()),
            Some("%tid.y".into())
        );
        assert_eq!(
            SpecialRegister::from_ptx("%pm3_64", None).map(|register| register.to_string()),
            Some("%pm3_64".into())
        );
    }

    #[test]
    fn the_filter_stops_compiler_registers() {
        for name in ["%r42", "%rd7", "%rs2", "%f3", "%fd1", "%p1", "%h4", "%hh0", "%r", "%p", "%pmask", "WARP_SZ"] {
            assert!(!SpecialRegister::is_reserved_name(name), "{name}");
            assert_eq!(SpecialRegister::from_ptx(name, None), None, "{name}");
        }
        for name in ["%r42", "%rd7", "%rs2", "%f3", "%fd1", "%p1", "%h4", "%hh0", "%r", "%p", "%tx", "_Z3foo"] {
            assert!(!SpecialRegister::may_be_reserved_name(name), "{name}");
        }
    }
}
