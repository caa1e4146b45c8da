//! The vocabulary of atomics, barriers, fences and warp collectives (ISA 7.8 sections 8, 9.7.12
//! and 9.7.13): memory orderings and scopes, and the operations of each family.

use std::fmt;

/// `.relaxed`, `.acquire`, `.release`, `.acq_rel`, `.sc` (the memory-consistency model's
/// orderings, ISA 7.8 section 8.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryOrdering {
    Relaxed,
    Acquire,
    Release,
    AcquireRelease,
    SequentiallyConsistent,
}

impl MemoryOrdering {
    /// Every name [`MemoryOrdering::from_ptx`] reads.
    pub const NAMES: [&'static str; 5] = ["relaxed", "acquire", "release", "acq_rel", "sc"];

    pub fn from_ptx(name: &str) -> Option<MemoryOrdering> {
        Some(match name {
            "relaxed" => MemoryOrdering::Relaxed,
            "acquire" => MemoryOrdering::Acquire,
            "release" => MemoryOrdering::Release,
            "acq_rel" => MemoryOrdering::AcquireRelease,
            "sc" => MemoryOrdering::SequentiallyConsistent,
            _ => return None,
        })
    }
}

/// `.cta`, `.cluster`, `.gpu`, `.sys`: the set of threads an ordering or atomic is coherent
/// with. `membar.cta/.gl/.sys` are the older spellings of the first, third and fourth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryScope {
    Cta,
    Cluster,
    Gpu,
    System,
}

impl MemoryScope {
    /// Every name [`MemoryScope::from_ptx`] reads.
    pub const NAMES: [&'static str; 5] = ["cta", "cluster", "gpu", "gl", "sys"];

    pub fn from_ptx(name: &str) -> Option<MemoryScope> {
        Some(match name {
            "cta" => MemoryScope::Cta,
            "cluster" => MemoryScope::Cluster,
            "gpu" | "gl" => MemoryScope::Gpu,
            "sys" => MemoryScope::System,
            _ => return None,
        })
    }
}

impl fmt::Display for MemoryScope {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            MemoryScope::Cta => ".cta",
            MemoryScope::Cluster => ".cluster",
            MemoryScope::Gpu => ".gpu",
            MemoryScope::System => ".sys",
        })
    }
}

/// The read-modify-write operations of `atom` and `red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOperation {
    And,
    Or,
    Xor,
    /// `.cas`: `d = *a; *a = (*a == b) ? c : *a`.
    CompareAndSwap,
    /// `.exch`: `d = *a; *a = b`.
    Exchange,
    Add,
    /// `.inc`: `*a = (*a >= b) ? 0 : *a + 1` (unsigned).
    Increment,
    /// `.dec`: `*a = (*a == 0 || *a > b) ? b : *a - 1` (unsigned).
    Decrement,
    Minimum,
    Maximum,
}

impl AtomicOperation {
    pub fn from_ptx(name: &str) -> Option<AtomicOperation> {
        Some(match name {
            "and" => AtomicOperation::And,
            "or" => AtomicOperation::Or,
            "xor" => AtomicOperation::Xor,
            "cas" => AtomicOperation::CompareAndSwap,
            "exch" => AtomicOperation::Exchange,
            "add" => AtomicOperation::Add,
            "inc" => AtomicOperation::Increment,
            "dec" => AtomicOperation::Decrement,
            "min" => AtomicOperation::Minimum,
            "max" => AtomicOperation::Maximum,
            _ => return None,
        })
    }
}

/// What `bar`/`barrier` does besides waiting (ISA 7.8 section 9.7.12.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierOperation {
    /// `bar.sync`, `bar` (ISA 1.x), `barrier.sync`: arrive and wait.
    Sync,
    /// `bar.arrive`: arrive without waiting.
    Arrive,
    /// `bar.red.popc.u32`: wait, and count the threads whose predicate was true.
    ReducePopulationCount,
    /// `bar.red.and.pred`: wait, and AND the predicates.
    ReduceAnd,
    /// `bar.red.or.pred`: wait, and OR the predicates.
    ReduceOr,
}

/// `shfl` modes: where each lane reads its value from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleMode {
    Up,
    Down,
    Butterfly,
    Index,
}

impl ShuffleMode {
    pub fn from_ptx(name: &str) -> Option<ShuffleMode> {
        Some(match name {
            "up" => ShuffleMode::Up,
            "down" => ShuffleMode::Down,
            "bfly" => ShuffleMode::Butterfly,
            "idx" => ShuffleMode::Index,
            _ => return None,
        })
    }
}

/// `vote` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    /// `.uni`: true when the predicate is the same in every active lane.
    Uniform,
    /// `.ballot.b32`: a mask of the lanes whose predicate is true.
    Ballot,
}

impl VoteMode {
    pub fn from_ptx(name: &str) -> Option<VoteMode> {
        Some(match name {
            "all" => VoteMode::All,
            "any" => VoteMode::Any,
            "uni" => VoteMode::Uniform,
            "ballot" => VoteMode::Ballot,
            _ => return None,
        })
    }
}

/// `redux.sync` operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOperation {
    Add,
    Minimum,
    Maximum,
    And,
    Or,
    Xor,
}

impl ReduxOperation {
    pub fn from_ptx(name: &str) -> Option<ReduxOperation> {
        Some(match name {
            "add" => ReduxOperation::Add,
            "min" => ReduxOperation::Minimum,
            "max" => ReduxOperation::Maximum,
            "and" => ReduxOperation::And,
            "or" => ReduxOperation::Or,
            "xor" => ReduxOperation::Xor,
            _ => return None,
        })
    }
}

/// The proxy of `fence.proxy.PROXYKIND` (ISA 7.8 section 9.7.12.4 has `.alias`; ISA 8.0 added
/// the async proxy, through which `wgmma`, TMA and bulk copies reach memory, with an optional
/// state space).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProxyKind {
    /// `.alias`: virtual aliases of the same memory location.
    Alias,
    /// `.async`: the async proxy, in every state space.
    Async,
    /// `.async.global`.
    AsyncGlobal,
    /// `.async.shared::cta`.
    AsyncSharedCta,
    /// `.async.shared::cluster`.
    AsyncSharedCluster,
}

impl fmt::Display for ProxyKind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            ProxyKind::Alias => ".alias",
            ProxyKind::Async => ".async",
            ProxyKind::AsyncGlobal => ".async.global",
            ProxyKind::AsyncSharedCta => ".async.shared::cta",
            ProxyKind::AsyncSharedCluster => ".async.shared::cluster",
        })
    }
}

/// How `mbarrier` tests a phase (section 9.7.12.13.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarrierWait {
    /// `test_wait`: answers at once.
    Test,
    /// `try_wait`: may suspend the thread until the phase completes or a time limit passes.
    Try,
}
