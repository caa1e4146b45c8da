//! The closed PTX vocabulary shared by the syntax tree, the checked module and lowering.
//! Each enum's `Display` prints the PTX spelling, and `from_ptx` reads it (without the dot).

mod opaque_type;
mod scalar_type;
mod special_register;
mod state_space;

pub use opaque_type::OpaqueType;
pub use scalar_type::{ScalarKind, ScalarType};
pub use special_register::{Dimension, LaneRelation, ReservedSharedOffset, SpecialRegister};
pub use state_space::StateSpace;
