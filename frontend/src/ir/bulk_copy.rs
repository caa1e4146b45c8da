//! The bulk copies and the tensor memory accelerator of ISA 8.0 to 8.3 (sm_90): `cp.async.bulk`,
//! `cp.async.bulk.tensor`, their groups, and the tensor-map instructions that build and publish
//! a tensor map on the device (`tensormap.replace`, `tensormap.cp_fenceproxy`,
//! `fence.proxy.tensormap`).

use std::fmt;

/// A field of a tensor map that `tensormap.replace.tile.field` writes (PTX ISA 8.3,
/// "tensormap.replace"). The values are PTX's encodings, which ptxr's own 128-byte map keeps
/// as they are (docs/TARGETS.md, "Tensor maps").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorMapField {
    /// `.global_address`: the tensor's first byte (`.b64`, 16-byte aligned).
    GlobalAddress,
    /// `.rank`: the number of dimensions less one (`.b32`).
    Rank,
    /// `.box_dim`: the box's extent in elements along one dimension (`.b32`, with an ordinal).
    BoxDimension,
    /// `.global_dim`: the tensor's extent in elements along one dimension (`.b32`, ordinal).
    GlobalDimension,
    /// `.global_stride`: the distance in bytes between consecutive indices of dimension
    /// `ordinal + 1` (`.b64`, ordinal); dimension 0's stride is the element size.
    GlobalStride,
    /// `.element_stride`: the step between the box's elements along one dimension (`.b32`,
    /// ordinal).
    ElementStride,
    /// `.elemtype`: the element type's code (`.b32`).
    ElementType,
    /// `.interleave_layout` (`.b32`).
    InterleaveLayout,
    /// `.swizzle_mode`: none, 32, 64 or 128 bytes (`.b32`).
    SwizzleMode,
    /// `.swizzle_atomicity` (`.b32`, ISA 8.6).
    SwizzleAtomicity,
    /// `.fill_mode`: zeros or NaNs for the box's elements outside the tensor (`.b32`).
    FillMode,
}

impl TensorMapField {
    pub fn from_ptx(name: &str) -> Option<TensorMapField> {
        Some(match name {
            "global_address" => TensorMapField::GlobalAddress,
            "rank" => TensorMapField::Rank,
            "box_dim" => TensorMapField::BoxDimension,
            "global_dim" => TensorMapField::GlobalDimension,
            "global_stride" => TensorMapField::GlobalStride,
            "element_stride" => TensorMapField::ElementStride,
            "elemtype" => TensorMapField::ElementType,
            "interleave_layout" => TensorMapField::InterleaveLayout,
            "swizzle_mode" => TensorMapField::SwizzleMode,
            "swizzle_atomicity" => TensorMapField::SwizzleAtomicity,
            "fill_mode" => TensorMapField::FillMode,
            _ => return None,
        })
    }

    pub fn as_ptx(self) -> &'static str {
        match self {
            TensorMapField::GlobalAddress => "global_address",
            TensorMapField::Rank => "rank",
            TensorMapField::BoxDimension => "box_dim",
            TensorMapField::GlobalDimension => "global_dim",
            TensorMapField::GlobalStride => "global_stride",
            TensorMapField::ElementStride => "element_stride",
            TensorMapField::ElementType => "elemtype",
            TensorMapField::InterleaveLayout => "interleave_layout",
            TensorMapField::SwizzleMode => "swizzle_mode",
            TensorMapField::SwizzleAtomicity => "swizzle_atomicity",
            TensorMapField::FillMode => "fill_mode",
        }
    }

    /// Whether the field is one per dimension, chosen by an ordinal operand.
    pub fn has_ordinal(self) -> bool {
        matches!(
            self,
            TensorMapField::BoxDimension
                | TensorMapField::GlobalDimension
                | TensorMapField::GlobalStride
                | TensorMapField::ElementStride
        )
    }

    /// Whether the field takes a `.b64` value (the others take `.b32`).
    pub fn is_64_bit(self) -> bool {
        matches!(self, TensorMapField::GlobalAddress | TensorMapField::GlobalStride)
    }

    /// How many ordinals the field has: five dimensions, four strides (dimension 0 has none).
    pub fn ordinals(self) -> u32 {
        if self == TensorMapField::GlobalStride {
            4
        } else {
            5
        }
    }

    /// Whether the new value must be an immediate (the enumerated fields).
    pub fn takes_immediate(self) -> bool {
        matches!(
            self,
            TensorMapField::ElementType
                | TensorMapField::InterleaveLayout
                | TensorMapField::SwizzleMode
                | TensorMapField::SwizzleAtomicity
                | TensorMapField::FillMode
        )
    }
}

impl fmt::Display for TensorMapField {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_ptx())
    }
}

/// Which way a bulk copy goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BulkCopyDirection {
    /// `.shared::cluster.global`: completes on an mbarrier in the destination's CTA.
    GlobalToShared,
    /// `.global.shared::cta`: completes in a bulk async-group.
    SharedToGlobal,
    /// `.shared::cluster.shared::cta`: completes on an mbarrier.
    SharedToShared,
}
