//! Where target code is emitted: the LLVM context, module, builder and current function.

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::{FunctionValue, VectorValue};

pub struct Site<'a, 'ctx> {
    pub context: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub builder: &'a Builder<'ctx>,
    pub function: FunctionValue<'ctx>,
    /// What the launch told the current function through the target's launch arguments
    /// (`Target::launch_arguments_type`), in modules that need them; `None` elsewhere.
    pub launch_arguments: Option<LaunchArguments<'ctx>>,
}

/// The launch arguments as a function received them, with what lowering knows at compile time
/// that registers read from them combine with.
#[derive(Clone, Copy)]
pub struct LaunchArguments<'ctx> {
    /// The parameter's value (of `Target::launch_arguments_type`).
    pub value: VectorValue<'ctx>,
    /// The bytes of the module's static `.shared` variables, rounded up to where the dynamic
    /// shared memory begins (`ir::SharedLayout::static_bytes`).
    pub static_shared_bytes: u64,
}
