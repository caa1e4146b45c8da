//! The checked module: what the semantic pass produces and the only thing lowering accepts.
//!
//! Names are resolved to handles (`VariableId`, `LabelId`, `FunctionId`), nested scopes are
//! flattened, and every instruction is decoded into a typed `Instruction` whose operands have been
//! checked against the instruction type. Spans stay beside the nodes for later diagnostics.

mod bulk_copy;
mod destinations;
mod hint;
mod instruction;
mod matrix;
mod module;
mod operand;
mod operations;
mod shared_layout;
mod spelling;
mod synchronization;
mod texture;
mod video;
mod warp_group_matrix;

pub use bulk_copy::{BulkCopyDirection, TensorMapField};
pub use hint::Hint;
pub use instruction::*;
pub use matrix::{
    BitOperation, MatrixElement, MatrixLayout, MatrixMultiply, MatrixShape, SparseMatrixA, WarpMatrixFragment,
    WarpMatrixGeometry, WarpMatrixMultiply, WarpMatrixShape, WarpMatrixTiling,
};
pub use module::*;
pub use operand::*;
pub use operations::*;
pub use shared_layout::{SharedLayout, SharedVariable};
pub use spelling::instruction_spelling;
pub use synchronization::*;
pub use texture::{
    surface_element_type, SurfaceBoundary, SurfaceReduction, TextureGeometry, TextureInstruction, TextureQuery,
};
pub use video::*;
pub use warp_group_matrix::{WarpGroupA, WarpGroupElement, WarpGroupMultiply, WarpGroupMultiplyAccumulate};
