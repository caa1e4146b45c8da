//! Typed instructions of the checked module. Each variant names its PTX instruction family;
//! modifiers have become fields with closed enums (`operations.rs`), and operands have been
//! checked.

use crate::span::Span;
use crate::vocabulary::{ScalarType, StateSpace};

use super::operations::*;
use super::{
    Address, AtomicOperation, BarrierOperation, BulkCopyDirection, Destination, FunctionId, Hint, LabelId,
    MatrixMultiply, MbarrierWait, MemoryOrdering, MemoryScope, Operand, ProxyKind, ReduxOperation, SparseMatrixA,
    TensorMapField, VariableId, VideoInstruction, VideoSimdInstruction, VoteMode, WarpMatrixMultiply, WarpMatrixShape,
};

/// An instruction with its optional `@p`/`@!p` guard.
#[derive(Clone, Debug, PartialEq)]
pub struct GuardedInstruction {
    pub guard: Option<Guard>,
    pub instruction: Instruction,
    /// Where the opcode and its modifiers are written (`mad.lo.s32`), for diagnostics, which
    /// read the spelling back with [`super::instruction_spelling`].
    pub spelling: Span,
    pub span: Span,
}

/// 8 bytes, so that a statement with its guard and spans fits 128 bytes (moved without a call
/// to `memcpy`): the predicate is an index, as a `.pred` register is always a function's
/// (module scope declares no registers), and the guard keeps no span of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Guard {
    /// The `.pred` register: an index into the function's `variables`.
    pub predicate: u32,
    pub negated: bool,
}

impl Guard {
    /// The predicate register as a variable handle.
    pub fn predicate_id(self) -> VariableId {
        VariableId::Local(self.predicate)
    }
}

/// Every statement of a body is as large as the largest variant, and is moved several times on
/// its way into the body, so the rare variants with many operands (`BitFieldInsert`, `Shuffle`,
/// the video instructions) are boxed, and so are the rare optional parts of common ones
/// (`setp`'s `combine`, `atom.cas`'s `swap`, `bar.red`'s predicate...): the largest inline
/// variants are then the three-source ones such as `FusedMultiplyAdd`.
#[derive(Clone, Debug, PartialEq)]
pub enum Instruction {
    /// `mov.type d, a`
    Move { ty: ScalarType, destination: Destination, source: Operand },
    /// `ld.space.type d, [a]` (and `ld.param`, `ld.global.nc`, `ldu`); `.relaxed`/`.acquire` with
    /// a scope make it an atomic load (`ordered`).
    Load {
        state_space: StateSpace,
        ty: ScalarType,
        volatile: bool,
        ordered: Option<OrderedAccess>,
        destination: Destination,
        address: Address,
    },
    /// `st.space.type [a], b`; `.relaxed`/`.release` with a scope make it an atomic store.
    Store {
        state_space: StateSpace,
        ty: ScalarType,
        volatile: bool,
        ordered: Option<OrderedAccess>,
        address: Address,
        source: Operand,
    },
    /// `ld.space.vN.type {d0, d1, ...}, [a]` (and `ldu`, `ld.global.nc`): `N` consecutive elements
    /// of `ty`, the first at `a`; `None` is a `_` sink, whose element is read and dropped.
    LoadVector {
        state_space: StateSpace,
        ty: ScalarType,
        volatile: bool,
        ordered: Option<OrderedAccess>,
        destinations: Vec<Option<Destination>>,
        address: Address,
    },
    /// `st.space.vN.type [a], {b0, b1, ...}`
    StoreVector {
        state_space: StateSpace,
        ty: ScalarType,
        volatile: bool,
        ordered: Option<OrderedAccess>,
        address: Address,
        sources: Vec<Operand>,
    },
    /// `mov.vN.type {d0, ...}, {a0, ...}`: every source is read before any destination is written,
    /// so the lists may permute the same registers.
    MoveVector { ty: ScalarType, destinations: Vec<Destination>, sources: Vec<Operand> },
    /// `mov.bN d, {a, b, ...}`: the elements packed into `d`, the first in the lowest bits.
    Pack { ty: ScalarType, destination: Destination, sources: Vec<Operand> },
    /// `mov.bN {d0, d1, ...}, a`: `a` split into equal elements, the lowest bits into `d0`; `None`
    /// is a `_` sink.
    Unpack { ty: ScalarType, destinations: Vec<Option<Destination>>, source: Operand },
    /// `cp.async.ca/.cg.shared.global [d], [a], copy_size{, source_size | ignore_source}`: copies
    /// `copy_size` bytes, of which those from `source_size` on (all when `ignore_source` is true)
    /// are zeros.
    CopyAsync {
        destination: Address,
        source: Address,
        copy_size: u32,
        source_size: Option<Box<Operand>>,
        ignore_source: Option<Box<Operand>>,
    },
    /// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`: ptxr completes each
    /// `cp.async` before the next instruction, so every group is already complete.
    CopyAsyncGroup,
    /// `cp.async.bulk.dst.src.completion [d], [a], size{, [mbar]}`: copies `size` bytes (a
    /// multiple of 16). A copy into shared memory completes `size` bytes of transactions on the
    /// mbarrier at `mbarrier`; one out of it joins the thread's current bulk async-group.
    BulkCopy {
        direction: BulkCopyDirection,
        destination: Address,
        source: Address,
        size: Operand,
        mbarrier: Option<Box<Address>>,
    },
    /// `cp.reduce.async.bulk.dst.src.completion.op.type [d], [a], size{, [mbar]}`: each
    /// `ty` element of the destination becomes `op(destination, source)`, an atomic update per
    /// element, as for `red`. `direction` is `SharedToGlobal` (a bulk async-group) or
    /// `SharedToShared` (completes `size` bytes on `mbarrier`).
    BulkReduce {
        direction: BulkCopyDirection,
        operation: AtomicOperation,
        ty: ScalarType,
        destination: Address,
        source: Address,
        size: Operand,
        mbarrier: Option<Box<Address>>,
    },
    /// `cp.async.bulk.tensor.Nd.dst.src{.tile}.completion`: the box at `coordinates` (innermost
    /// first, `dimensions` of them) of the tensor that the tensor map at `tensor_map` (a generic
    /// address) describes, copied between the tensor and the box's dense, swizzled image at
    /// `shared`. A load (`GlobalToShared`) completes the box's bytes on `mbarrier`; a store
    /// (`SharedToGlobal`) joins the bulk async-group and writes only the elements inside the
    /// tensor.
    BulkTensorCopy {
        direction: BulkCopyDirection,
        dimensions: u32,
        shared: Address,
        tensor_map: Address,
        coordinates: Vec<Operand>,
        mbarrier: Option<Box<Address>>,
    },
    /// `cp.async.bulk.prefetch.L2.global [a], size`: a hint that `size` bytes at `address`
    /// will be read; changes no value.
    BulkPrefetch { address: Address, size: Operand },
    /// `cp.async.bulk.prefetch.tensor.Nd.L2.global [map, {c...}]`: the same for a box.
    BulkTensorPrefetch { dimensions: u32, tensor_map: Address, coordinates: Vec<Operand> },
    /// `cp.async.bulk.commit_group`: closes the thread's current bulk async-group.
    BulkCopyCommit,
    /// `cp.async.bulk.wait_group{.read} n`: waits until at most `pending` of the thread's bulk
    /// async-groups are pending (with `read`, only their reads of the source).
    BulkCopyWait { pending: u32, read: bool },
    /// `tensormap.replace.tile.field.space.b1024.bN [a]{, ordinal}, value`: writes one field of
    /// the 1024-bit tensor map at `address` in `state_space` (`Global` or `Shared`).
    TensorMapReplace {
        field: TensorMapField,
        state_space: StateSpace,
        address: Address,
        ordinal: Option<u32>,
        value: Operand,
    },
    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned
    /// [d], [a], 128`: copies the 128-byte tensor map from shared to global memory, then a
    /// release fence between the generic and the tensor-map proxy at `scope`.
    TensorMapCopyFenceProxy { scope: MemoryScope, destination: Address, source: Address },
    /// `fence.proxy.tensormap::generic.release.scope` (`acquire` is `None`) and
    /// `fence.proxy.tensormap::generic.acquire.scope [a], 128`: orders the generic proxy's
    /// writes of a tensor map against the tensor-map proxy's reads of it.
    TensorMapFence { scope: MemoryScope, acquire: Option<Address> },
    /// `createpolicy.fractional/.range/.cvt.L2::*.b64 d, ...`: an opaque cache policy for
    /// `.L2::cache_hint` accesses, which ptxr lowers without the hint.
    CreatePolicy { destination: Destination },
    /// `prefetch{.space}.level [a]`, `prefetchu.L1 [a]`: a hint; only the address is evaluated.
    Prefetch { state_space: StateSpace, address: Address },
    /// `isspacep.space p, a`: whether the generic address `a` lies in `space`. `address_type`
    /// is the module's address type, or `.u32` for a 32-bit register in a 64-bit module, whose
    /// value is the address zero-extended. `shared_cluster`: `isspacep.shared::cluster` (ISA
    /// 7.8, sm_90), whether the address is in the shared memory of any CTA of the cluster
    /// (`state_space` is then `.shared`).
    IsSpace {
        state_space: StateSpace,
        shared_cluster: bool,
        destination: Destination,
        address: Operand,
        address_type: ScalarType,
    },
    /// `mapa{.shared::cluster}.type d, a, b`: the address in the cluster's CTA of rank `b` that
    /// corresponds to `a` (a `.shared::cluster` address, or a generic one without the space).
    MapClusterAddress {
        shared_cluster: bool,
        ty: ScalarType,
        destination: Destination,
        address: Operand,
        rank: Operand,
    },
    /// `getctarank{.shared::cluster}.type d, a`: the rank within the cluster of the CTA whose
    /// shared memory holds `a`; `d` is a `.u32`.
    ClusterRank { shared_cluster: bool, ty: ScalarType, destination: Destination, address: Operand },
    /// `cvta.space.size d, a` (to generic) and `cvta.to.space.size d, a` (from generic).
    /// `shared_cluster` is `.shared::cluster` (ISA 7.8, sm_90), with `state_space` `.shared`.
    ConvertAddress {
        direction: AddressConversion,
        state_space: StateSpace,
        shared_cluster: bool,
        size_bits: u32,
        destination: Destination,
        source: Operand,
    },
    /// `add`, `sub`, `mul.lo/.hi/.wide`, `min`, `max`, `div`, `rem` on integers.
    IntegerBinary {
        operation: IntegerBinaryOperation,
        ty: ScalarType,
        saturate: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
    },
    /// `add`, `min`, `max` on the packed `.u16x2`/`.s16x2` (ISA 8.0, sm_90), each 16-bit lane of
    /// the 32-bit operands computed alone and wrapping within its lane; and integer
    /// `min.relu`/`max.relu` on `.s32` and `.s16x2`, which turn each negative lane into 0.
    /// nvcc writes them for `__vadd2`/`__vsub2`/`__vmaxs2`-style SIMD and the DPX intrinsics.
    IntegerLanes {
        operation: IntegerBinaryOperation,
        lanes: IntegerLaneShape,
        relu: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
    },
    /// `mad.lo/.hi/.wide` on integers: `a * b + c` with the product's half chosen by `mode`.
    IntegerMultiplyAdd {
        mode: MultiplyMode,
        ty: ScalarType,
        saturate: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `add`, `sub`, `mul`, `div`, `min`, `max` on floats; `c` is the third source of
    /// `min`/`max` `.f32` with three (ISA 8.8), which compares all three.
    FloatBinary {
        operation: FloatBinaryOperation,
        ty: ScalarType,
        rounding: Option<RoundingMode>,
        flush_subnormals: bool,
        saturate: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    },
    /// `fma.rnd.type` and `mad.rnd.type` on floats: `a * b + c` rounded once.
    FusedMultiplyAdd {
        ty: ScalarType,
        rounding: RoundingMode,
        flush_subnormals: bool,
        saturate: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `sin`, `cos`, `lg2`, `ex2`, `tanh` (`.approx`), and `rcp`, `sqrt`, `rsqrt` (`.approx` or an
    /// IEEE rounding) on floats: `d = op(a)`.
    FloatUnary {
        operation: FloatUnaryOperation,
        ty: ScalarType,
        precision: FloatPrecision,
        flush_subnormals: bool,
        destination: Destination,
        a: Operand,
    },
    /// `add`, `sub`, `mul` `{.rnd}{.ftz}.f32x2` and `fma.rnd{.ftz}.f32x2` (ISA 8.6, sm_100): two
    /// `.f32` lanes in each `.b64` operand, bits 0 to 31 the first; each lane of `d` is the
    /// `.f32` instruction on that lane of the sources. `c` is `fma`'s addend.
    PackedSingle {
        operation: PackedSingleOperation,
        rounding: RoundingMode,
        flush_subnormals: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Option<Operand>,
    },
    /// `copysign.type d, a, b`: the magnitude of `b` with the sign of `a`.
    CopySign { ty: ScalarType, destination: Destination, a: Operand, b: Operand },
    /// `and`, `or`, `xor` on bits or predicates.
    Logic { operation: LogicOperation, ty: ScalarType, destination: Destination, a: Operand, b: Operand },
    /// `lop3.b32 d, a, b, c, immLut`: bit `i` of `d` is bit `4a + 2b + c` of `table`, taking the
    /// bits `a`, `b`, `c` at position `i` (the spec's `ta = 0xF0`, `tb = 0xCC`, `tc = 0xAA`).
    /// ISA 8.2's `lop3.BoolOp.b32 d|p, a, b, c, immLut, q` also sets `p = (d != 0) BoolOp q`.
    LogicTable {
        table: u8,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Operand,
        predicate: Option<Box<LogicTablePredicate>>,
    },
    /// `slct.dtype.s32 d, a, b, c` and `slct{.ftz}.dtype.f32 d, a, b, c`: `c >= 0 ? a : b`, with
    /// `c` of `condition_type` (`.s32` or `.f32`).
    SelectBySign {
        ty: ScalarType,
        condition_type: ScalarType,
        flush_subnormals: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `not`, `cnot`, `neg`, `abs`, `popc`, `clz`, `brev` (one source).
    Unary { operation: UnaryOperation, ty: ScalarType, flush_subnormals: bool, destination: Destination, a: Operand },
    /// `shl`, `shr` (arithmetic for signed types).
    Shift { operation: ShiftOperation, ty: ScalarType, destination: Destination, a: Operand, b: Operand },
    /// `add.cc`, `addc{.cc}`, `sub.cc`, `subc{.cc}` (`.u32 .s32 .u64 .s64`): addition or
    /// subtraction that reads and/or writes the carry flag `CC.CF`.
    CarryArithmetic {
        operation: CarryOperation,
        ty: ScalarType,
        carry_in: bool,
        carry_out: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
    },
    /// `mad.lo.cc`, `mad.hi.cc`, `madc.lo{.cc}`, `madc.hi{.cc}`: the chosen half of `a * b`,
    /// plus `c`, plus the carry flag for `madc`.
    CarryMultiplyAdd {
        high: bool,
        ty: ScalarType,
        carry_in: bool,
        carry_out: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `bfe.type d, a, b, c`: `c` bits of `a` from bit `b`, sign- or zero-extended.
    BitFieldExtract { ty: ScalarType, destination: Destination, source: Operand, position: Operand, length: Operand },
    /// `bfi.type f, a, b, c, d`: `b` with `d` bits from bit `c` replaced by the low bits of `a`.
    /// Boxed, like the other rare variants with many operands, so that they do not set the size
    /// of every checked instruction.
    BitFieldInsert(Box<BitFieldInsertInstruction>),
    /// `bfind{.shiftamt}.type d, a`: the position of the most significant non-sign bit.
    FindMostSignificantBit { ty: ScalarType, shift_amount: bool, destination: Destination, source: Operand },
    /// `fns.b32 d, mask, base, offset`: the position of the `offset`-th set bit from `base`.
    FindNthSetBit { destination: Destination, mask: Operand, base: Operand, offset: Operand },
    /// `bmsk.mode.b32 d, a, b`: `b` one bits starting at bit `a`.
    BitMask { wrap: bool, destination: Destination, position: Operand, width: Operand },
    /// `szext.mode.type d, a, b`: the low `b` bits of `a`, sign- (`.s32`) or zero- (`.u32`) extended.
    SignOrZeroExtend { ty: ScalarType, wrap: bool, destination: Destination, source: Operand, width: Operand },
    /// `prmt.b32{.mode} d, a, b, c`: bytes of `{b, a}` chosen by `c`.
    Permute { mode: PermuteMode, destination: Destination, a: Operand, b: Operand, selector: Operand },
    /// `shf.l.mode.b32 d, a, b, c` and `shf.r`: `{b, a}` shifted by `c`, one word kept.
    FunnelShift { left: bool, wrap: bool, destination: Destination, a: Operand, b: Operand, amount: Operand },
    /// `mul24.lo/.hi.type d, a, b` and (with `addend`) `mad24.lo/.hi{.sat}.type d, a, b, c`.
    Multiply24 {
        high: bool,
        ty: ScalarType,
        saturate: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        addend: Option<Operand>,
    },
    /// `sad.type d, a, b, c`: `c + |a - b|`.
    SumOfAbsoluteDifferences { ty: ScalarType, destination: Destination, a: Operand, b: Operand, c: Operand },
    /// `dp4a.atype.btype d, a, b, c` and `dp2a.mode.atype.btype d, a, b, c`.
    DotProduct {
        lanes: DotProductLanes,
        a_signed: bool,
        b_signed: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}`: `a` and `b` saturated to the narrow
    /// type (`bits` wide: 16, 8, 4 or 2; `signed` for `.s16`...`.s2`) and packed (`a` above
    /// `b`), above the low bits of `c` for the types narrower than 16 bits.
    ConvertPack { bits: u32, signed: bool, destination: Destination, a: Operand, b: Operand, c: Option<Box<Operand>> },
    /// Scalar video instructions (`vadd`, `vsub`, `vabsdiff`, `vmin`, `vmax`, `vshl`, `vshr`,
    /// `vset`, `vmad`) with their byte/half selectors, `.sat`, secondary operation or merge.
    Video(Box<VideoInstruction>),
    /// SIMD video instructions (`vadd2`, `vsub2`, `vavrg2`, `vabsdiff2`, `vmin2`, `vmax2`,
    /// `vset2` and the four-lane `...4` forms) with their lane selectors, `.sat`, and the
    /// accumulate (`.add`) or merge (`d.mask`) secondary operation.
    VideoSimd(Box<VideoSimdInstruction>),
    /// `testp.property.type p, a` (`.f32`, `.f64`).
    TestProperty { property: FloatProperty, ty: ScalarType, destination: Destination, source: Operand },
    /// `setp.cmp[.bool].type p[|q], a, b[, c]`
    SetPredicate {
        comparison: Comparison,
        ty: ScalarType,
        flush_subnormals: bool,
        destination: Destination,
        complement: Option<Destination>,
        a: Operand,
        b: Operand,
        combine: Option<Box<(LogicOperation, Operand, bool)>>,
    },
    /// `setp.cmp[.bool][.ftz].f16x2 p|q, a, b[, c]` (and `.bf16x2`): `p` gets the low lanes'
    /// comparison, `q` the high lanes'.
    PackedSetPredicate {
        comparison: Comparison,
        ty: ScalarType,
        flush_subnormals: bool,
        low: Destination,
        high: Option<Destination>,
        a: Operand,
        b: Operand,
        combine: Option<Box<(LogicOperation, Operand, bool)>>,
    },
    /// `set.cmp[.bool][.ftz].dtype.stype d, a, b[, c]`: all ones (integers) or 1.0 (floats) when
    /// the comparison holds, per lane for packed half types.
    Set {
        comparison: Comparison,
        destination_type: ScalarType,
        source_type: ScalarType,
        flush_subnormals: bool,
        destination: Destination,
        a: Operand,
        b: Operand,
        combine: Option<Box<(LogicOperation, Operand, bool)>>,
    },
    /// `add`, `sub`, `mul`, `min`, `max` on `.f16`, `.f16x2`, `.bf16`, `.bf16x2` (ISA 7.8
    /// section 9.7.4), rounded to nearest even once per lane.
    HalfBinary {
        operation: HalfBinaryOperation,
        ty: ScalarType,
        flush_subnormals: bool,
        saturation: HalfSaturation,
        destination: Destination,
        a: Operand,
        b: Operand,
    },
    /// `fma.rn[.ftz][.sat|.relu].type d, a, b, c` on the half types: `a * b + c` rounded once,
    /// by `rounding` (`.rz`, `.rm` and `.rp` on `.bf16`/`.bf16x2` only).
    HalfFusedMultiplyAdd {
        ty: ScalarType,
        rounding: RoundingMode,
        flush_subnormals: bool,
        saturation: HalfSaturation,
        destination: Destination,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `neg[.ftz].type d, a` and `abs[.ftz].type d, a` on the half types.
    HalfUnary {
        operation: HalfUnaryOperation,
        ty: ScalarType,
        flush_subnormals: bool,
        destination: Destination,
        a: Operand,
    },
    /// `cvt.rna.tf32.f32 d, a` and `cvt.{rn,rz}{.relu}.tf32.f32 d, a` (ISA 7.8 section
    /// 9.7.8.18): `a` rounded to 10 fraction bits, as the bits of an `.f32` whose low 13 bits are
    /// zero, in a `.b32` register.
    ConvertToTf32 { rounding: Tf32Rounding, relu: bool, destination: Destination, a: Operand },
    /// `cvt.frnd[.ftz][.sat|.relu][.satfinite].dtype.atype d, a` where either type is `.f16` or
    /// `.bf16` (ISA 7.8 section 9.7.8.18).
    HalfConvert {
        destination_type: ScalarType,
        source_type: ScalarType,
        rounding: RoundingMode,
        flush_subnormals: bool,
        saturation: HalfSaturation,
        satfinite: bool,
        destination: Destination,
        source: Operand,
    },
    /// `cvt.frnd[.relu][.satfinite].packed.f32 d, a, b`: `a` converted into the high half of `d`,
    /// `b` into the low half; `packed` is `.f16x2`, `.bf16x2`, `.e4m3x2` or `.e5m2x2`.
    PackConvert {
        format: PackedFormat,
        rounding: RoundingMode,
        relu: bool,
        satfinite: bool,
        destination: Destination,
        high: Operand,
        low: Operand,
    },
    /// `cvt.rn.satfinite[.relu].f8x2type.f16x2 d, a` and (PTX 9.x, which nvcc 13.5 writes for
    /// `__nv_fp8x2_e5m2(__nv_bfloat162)` at sm_100a) `.bf16x2` (`to_float8`), and
    /// `cvt.rn[.relu].f16x2.f8x2type d, a`: each lane of `a` converted, order kept. `wide` is
    /// the 16-bit side's format, `.f16x2` or `.bf16x2`.
    Float8Convert {
        format: PackedFormat,
        wide: PackedFormat,
        to_float8: bool,
        relu: bool,
        destination: Destination,
        source: Operand,
    },
    /// `brx.idx{.uni} index, targets`: a branch to `targets[index]`; an index past the list
    /// (undefined in PTX) goes on with the next instruction, as if no branch were taken.
    BranchIndexed { index: Operand, targets: Vec<LabelId> },
    /// `selp.type d, a, b, c`: `c ? a : b`.
    Select { ty: ScalarType, destination: Destination, a: Operand, b: Operand, predicate: Operand },
    /// `cvt.frnd/irnd.ftz.sat.dtype.atype d, a`
    Convert {
        destination_type: ScalarType,
        source_type: ScalarType,
        rounding: Option<RoundingMode>,
        flush_subnormals: bool,
        saturate: bool,
        destination: Destination,
        source: Operand,
    },
    /// `bra[.uni] label`
    Branch { target: LabelId },
    /// `ret[.uni]`
    Return,
    /// `exit`
    Exit,
    /// `call{.uni} (results), function, (arguments)`: a direct call of a `.func`. Results and
    /// arguments are whole variables (`.param` or `.reg`, scalars, vectors or byte arrays) or,
    /// for arguments, immediates; the callee's parameter types say how they are passed.
    Call { callee: FunctionId, results: Vec<CallOperand>, arguments: Vec<CallOperand> },
    /// `call (results), %target, (arguments), prototype`: a call through a register holding a
    /// function's address. The `.param` variables passed give the callee's signature, which the
    /// prototype (or `.calltargets` list) only restates.
    CallIndirect { target: Operand, results: Vec<CallOperand>, arguments: Vec<CallOperand> },
    /// `trap`: aborts the kernel with an error.
    Trap,
    /// `alloca.type ptr, size{, align}`: `size` bytes of the thread's stack, aligned to `align`
    /// (a power of two, 8 when not written), at the `.local` address `ptr`; freed when the
    /// function returns or by `stackrestore`.
    StackAllocate { ty: ScalarType, destination: Destination, size: Operand, align: u32 },
    /// `stacksave.type d`: the stack pointer, for a later `stackrestore`.
    StackSave { ty: ScalarType, destination: Destination },
    /// `stackrestore.type a`: sets the stack pointer to `a` from `stacksave`, freeing what was
    /// allocated since.
    StackRestore { ty: ScalarType, source: Operand },
    /// An instruction with no effect on values: `brkpt`, `pmevent`, `discard`, `applypriority`,
    /// `griddepcontrol`.
    Hint(Hint),
    /// `nanosleep.u32 t`: suspends the thread for about `t` nanoseconds (at most 1 ms).
    Sleep { nanoseconds: Operand },
    /// `atom.sem.scope.space.op.type d, [a], b{, c}` and (without `destination`) `red`.
    Atomic {
        operation: AtomicOperation,
        ty: ScalarType,
        state_space: StateSpace,
        ordering: MemoryOrdering,
        scope: MemoryScope,
        destination: Option<Destination>,
        address: Address,
        /// `b`: the operand, or for `.cas` the value compared with.
        value: Operand,
        /// `c` of `.cas`: the value stored when the comparison holds.
        swap: Option<Box<Operand>>,
    },
    /// `atom.sem.scope{.global}.op.vN.type d, [a], b` and (without `destinations`) `red`, the
    /// vector forms of ISA 8.1 (sm_90): `.add` on `.v2`/`.v4` of `.f32`, `.add`/`.min`/`.max` on
    /// `.v2`/`.v4`/`.v8` of `.f16`/`.bf16` and on `.v2`/`.v4` of `.f16x2`/`.bf16x2`. Each
    /// element is one atomic operation on its own element of memory; `state_space` is `Global`
    /// or `Generic`.
    VectorAtomic {
        operation: AtomicOperation,
        ty: ScalarType,
        state_space: StateSpace,
        ordering: MemoryOrdering,
        scope: MemoryScope,
        destinations: Option<Vec<Destination>>,
        address: Address,
        values: Vec<Operand>,
    },
    /// `membar.level`, `fence.sem.scope`: orders this thread's memory accesses.
    Fence { ordering: MemoryOrdering, scope: MemoryScope },
    /// `fence.proxy.alias`, `membar.proxy.alias`, `fence.proxy.async{.space}`: orders this
    /// thread's accesses through the generic proxy against those through another proxy.
    ProxyFence { proxy: ProxyKind },
    /// `mbarrier.init{.shared}.b64 [a], count`: phase 0, `count` expected and pending
    /// arrivals (section 9.7.12.13.6). `state_space` is `Shared` or `Generic`.
    MbarrierInit { state_space: StateSpace, address: Address, count: Operand },
    /// `mbarrier.inval{.shared}.b64 [a]` (section 9.7.12.13.7).
    MbarrierInvalidate { state_space: StateSpace, address: Address },
    /// `mbarrier.arrive{_drop}{.noComplete}{.shared}.b64 state, [a]{, count}`: an arrive-on
    /// operation of `count` (1 when absent), after lowering the expected count by `count` for
    /// `arrive_drop` (sections 9.7.12.13.8 and 9.7.12.13.9). `state` is the object before the
    /// arrival; `None` for `_`.
    MbarrierArrive {
        drop: bool,
        no_complete: bool,
        state_space: StateSpace,
        destination: Option<Destination>,
        address: Address,
        count: Option<Operand>,
        /// `.expect_tx`'s transaction count: added to the phase's pending transactions before
        /// the arrival (section "mbarrier.arrive", ISA 8.0).
        transaction_count: Option<Box<Operand>>,
    },
    /// `mbarrier.expect_tx{.shared}.b64 [a], count` (adds `count` to the current phase's
    /// pending transactions) and `mbarrier.complete_tx{.shared}.b64 [a], count` (`complete`:
    /// subtracts it, which may complete the phase).
    MbarrierTransaction { complete: bool, state_space: StateSpace, address: Address, count: Operand },
    /// `mbarrier.test_wait{.parity}` and `mbarrier.try_wait{.parity}` `{.shared}.b64 p, [a],
    /// phase{, suspendTimeHint}`: whether the phase that `phase` names (a state from
    /// `mbarrier.arrive`, or with `.parity` the phase's parity as a `.u32`) has completed
    /// (section 9.7.12.13.11).
    MbarrierTestWait {
        wait: MbarrierWait,
        parity: bool,
        state_space: StateSpace,
        destination: Destination,
        address: Address,
        phase: Operand,
        /// How long `try_wait` may suspend, in nanoseconds: a hint.
        suspend_time_hint: Option<Operand>,
    },
    /// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [a]` (section 9.7.12.13.10): an
    /// arrive-on operation once this thread's earlier `cp.async` copies are complete, which in
    /// ptxr (whose copies complete before `cp.async` returns) is at once. Without `.noinc`
    /// (`increment`) the pending count is first raised by one, so the pair leaves it unchanged.
    CopyAsyncMbarrierArrive { increment: bool, state_space: StateSpace, address: Address },
    /// `mbarrier.pending_count.b64 d, state`: the pending count before the arrival that gave
    /// `state` (section 9.7.12.13.13).
    MbarrierPendingCount { destination: Destination, state: Operand },
    /// `bar.sync a{, b}`, `bar.arrive a, b`, `bar.red.op d, a{, b}, {!}c`, `barrier.*`.
    Barrier {
        operation: BarrierOperation,
        /// `a`: the barrier's number, 0 to 15.
        barrier: Operand,
        /// `b`: how many threads take part; all of the block when absent.
        thread_count: Option<Operand>,
        /// The reduction's result (`.popc.u32` or `.pred`).
        destination: Option<Destination>,
        /// The reduction's input predicate and whether it is negated.
        predicate: Option<Box<(Operand, bool)>>,
    },
    /// `shfl{.sync}.mode.b32 d{|p}, a, b, c{, membermask}`
    /// Boxed: with two destinations and four operands it would be the largest variant.
    Shuffle(Box<ShuffleInstruction>),
    /// `vote{.sync}.mode.pred d, {!}a{, membermask}` and `vote{.sync}.ballot.b32`.
    Vote { mode: VoteMode, destination: Destination, predicate: Operand, negated: bool, member_mask: Option<Operand> },
    /// `match.any.sync.type d, a, membermask` and `match.all.sync.type d{|p}, a, membermask`.
    Match {
        all: bool,
        ty: ScalarType,
        destination: Destination,
        predicate: Option<Destination>,
        value: Operand,
        member_mask: Operand,
    },
    /// `redux.sync.op.type d, a, membermask`
    Redux { operation: ReduxOperation, ty: ScalarType, destination: Destination, value: Operand, member_mask: Operand },
    /// `activemask.b32 d`
    ActiveMask { destination: Destination },
    /// `bar.warp.sync membermask`
    WarpSync { member_mask: Operand },
    /// `elect.sync d|p, membermask` (ISA 8.0): every lane of `membermask` gets in `d` the lane id
    /// of the leader, the lowest active lane of `membermask`, and in `p` whether it is the leader;
    /// `destination` is `None` for a `_` sink.
    Elect { destination: Option<Destination>, predicate: Destination, member_mask: Operand },
    /// `mma.sync.aligned.shape.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`: each
    /// operand is the lane's fragment, a list of 32-bit registers (`.f32`/`.s32` elements, or
    /// narrower elements packed into `.b32`) in the spec's order. `mma.sp` has `sparse`, and its
    /// `a` holds only the non-zero half of A (half the registers of the dense form).
    MatrixMultiplyAccumulate {
        operation: MatrixMultiply,
        /// Boxed slices (16 bytes, not a `Vec`'s 24), like `WarpMatrixMultiplyAccumulate`'s:
        /// with four `Vec`s the variant was the largest.
        destinations: Box<[Destination]>,
        a: Box<[Operand]>,
        b: Box<[Operand]>,
        c: Box<[Operand]>,
        /// Boxed: rare, and inline it made every statement larger.
        sparse: Option<Box<SparseMatrixA>>,
    },
    /// `ldmatrix.sync.aligned.m8n8.num{.trans}{.shared}.b16 d, [a]`: `matrices` (1, 2 or 4)
    /// 8×8 matrices of 16-bit elements whose rows' addresses the lanes give, one `.b32`
    /// destination per matrix.
    LoadMatrix {
        matrices: u32,
        transpose: bool,
        state_space: StateSpace,
        destinations: Vec<Destination>,
        address: Address,
    },
    /// `stmatrix.sync.aligned.m8n8.num{.trans}{.shared}.b16 [a], r` (ISA 7.8): the mirror of
    /// `ldmatrix`, `matrices` 8×8 matrices of 16-bit elements, one `.b32` source per matrix,
    /// stored to the rows whose addresses the lanes give.
    StoreMatrix { matrices: u32, transpose: bool, state_space: StateSpace, address: Address, sources: Vec<Operand> },
    /// `wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride}`: the lane's
    /// fragment of the matrix at `address`, whose rows (`.row`) or columns (`.col`) are `stride`
    /// elements apart (the matrix's width or height without one), in the fragments `decode/warp_matrix.rs` chooses.
    WarpMatrixLoad { shape: WarpMatrixShape, destinations: Vec<Destination>, address: Address, stride: Option<Operand> },
    /// `wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}`: the lane's part
    /// of D, the inverse of `WarpMatrixLoad` of C.
    WarpMatrixStore { shape: WarpMatrixShape, address: Address, sources: Vec<Operand>, stride: Option<Operand> },
    /// `wmma.mma`: each operand is the lane's fragment (`WarpMatrixGeometry::registers`
    /// registers).
    WarpMatrixMultiplyAccumulate {
        operation: WarpMatrixMultiply,
        destinations: Box<[Destination]>,
        a: Vec<Operand>,
        b: Vec<Operand>,
        c: Vec<Operand>,
    },
    /// `tex`, `tld4`, `txq`, `suld`, `sust`, `suq` (ISA 7.8 sections 9.7.9 and 9.7.10).
    Texture(Box<super::TextureInstruction>),
    /// `wgmma.mma_async.sync.aligned` (ISA 8.0): the warp group's D = A·B + D, boxed (rare, and
    /// its operands are many).
    WarpGroupMultiplyAccumulate(Box<super::WarpGroupMultiplyAccumulate>),
    /// `wgmma.fence.sync.aligned`: orders the warp group's earlier register and shared-memory
    /// accesses before its next `wgmma.mma_async`.
    WarpGroupFence,
    /// `wgmma.commit_group.sync.aligned`: closes the group of the `wgmma.mma_async`s issued since
    /// the last one.
    WarpGroupCommit,
    /// `wgmma.wait_group.sync.aligned N`: waits until at most `pending` groups are unfinished.
    WarpGroupWait { pending: u32 },
    /// A valid PTX instruction that ptxr decodes but cannot lower yet; lowering reports it as
    /// unsupported on every target, naming the instruction as written (`GuardedInstruction::spelling`).
    Unlowered,
}

/// The memory-consistency qualifiers of a strong `ld`/`st` (ISA 7.8 section 8.4): an ordering
/// (`.relaxed`, `.acquire` for loads, `.release` for stores) and its scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderedAccess {
    pub ordering: MemoryOrdering,
    pub scope: MemoryScope,
}

/// An argument or result of `call`.
#[derive(Clone, Debug, PartialEq)]
pub enum CallOperand {
    /// A whole variable: passed with the callee's parameter type, its bytes reinterpreted.
    Variable { variable: VariableId, span: Span },
    /// An immediate argument, converted to the callee's parameter type.
    Immediate(Operand),
}

impl CallOperand {
    pub fn span(&self) -> Span {
        match self {
            CallOperand::Variable { span, .. } => *span,
            CallOperand::Immediate(operand) => operand.span,
        }
    }
}

impl Instruction {
    /// Whether the instruction reads or writes the carry flag `CC.CF`.
    pub fn uses_carry_flag(&self) -> bool {
        matches!(self, Instruction::CarryArithmetic { .. } | Instruction::CarryMultiplyAdd { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Destination, Value};
    use super::*;

    /// A statement of a body is moved several times while it is checked: the boxed rarities
    /// keep it at the size of the three-source instructions.
    #[test]
    fn a_checked_instruction_stays_small() {
        assert_eq!(std::mem::size_of::<Value>(), 16);
        assert_eq!(std::mem::size_of::<Operand>(), 24);
        assert_eq!(std::mem::size_of::<Destination>(), 20);
        assert_eq!(std::mem::size_of::<Option<Guard>>(), 8);
        assert_eq!(std::mem::size_of::<Instruction>(), 104);
        assert_eq!(std::mem::size_of::<GuardedInstruction>(), 128);
        assert_eq!(std::mem::size_of::<super::super::Statement>(), 128);
    }
}
