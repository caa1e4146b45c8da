//! Where each `.shared` variable sits in a block's shared memory, for targets that give a block
//! one window of shared memory rather than one symbol per variable (the CPU runtime, and SPIR-V,
//! where OpenCL hands the window to the kernel as a `__local` argument).
//!
//! Static variables (module scope first, then each function's, in declaration order) are laid
//! out at their alignment; unsized `.extern .shared` arrays (dynamic shared memory) all start
//! at `dynamic_offset`, after the static ones, as CUDA places them.

use std::collections::HashMap;

use crate::syntax::ast::Linkage;
use crate::vocabulary::StateSpace;

use super::{Module, Variable};

/// Alignment of the dynamic part: CUDA's dynamic shared memory is at least 16-byte aligned.
const DYNAMIC_ALIGNMENT: u64 = 16;

/// A `.shared` variable: at module scope (an index into `Module::globals`), or inside a
/// function (function index, variable index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SharedVariable {
    Global(u32),
    Local { function: u32, variable: u32 },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SharedLayout {
    offsets: HashMap<SharedVariable, u64>,
    /// Bytes of static shared memory, rounded up to the dynamic part's alignment.
    pub static_bytes: u64,
    /// Whether the module has dynamic shared memory (unsized `.extern .shared` arrays).
    pub has_dynamic: bool,
}

impl SharedLayout {
    pub fn of(module: &Module) -> SharedLayout {
        let mut layout = SharedLayout::default();
        let mut end = 0u64;
        let mut dynamic = Vec::new();
        let mut place = |key: SharedVariable, variable: &Variable, end: &mut u64, dynamic: &mut Vec<SharedVariable>| {
            if variable.state_space != StateSpace::Shared {
                return;
            }
            if variable.array_length == Some(0)
                || (variable.linkage == Some(Linkage::Extern) && variable.array_length.is_none())
            {
                dynamic.push(key);
                return;
            }
            let align = u64::from(variable.align.unwrap_or(variable.ty.bytes()).max(1));
            let offset = end.div_ceil(align) * align;
            *end = offset + variable.size_bytes();
            layout.offsets.insert(key, offset);
        };
        for (index, variable) in module.globals.iter().enumerate() {
            place(SharedVariable::Global(index as u32), variable, &mut end, &mut dynamic);
        }
        for (function_index, function) in module.functions.iter().enumerate() {
            for (variable_index, variable) in function.variables.iter().enumerate() {
                let key = SharedVariable::Local { function: function_index as u32, variable: variable_index as u32 };
                place(key, variable, &mut end, &mut dynamic);
            }
        }
        layout.static_bytes = end.div_ceil(DYNAMIC_ALIGNMENT) * DYNAMIC_ALIGNMENT;
        layout.has_dynamic = !dynamic.is_empty();
        for key in dynamic {
            layout.offsets.insert(key, layout.static_bytes);
        }
        layout
    }

    /// Whether the module has no `.shared` variable at all.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// The variable's offset in the block's shared window; `None` if it is not `.shared`.
    pub fn offset(&self, variable: SharedVariable) -> Option<u64> {
        self.offsets.get(&variable).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::{SharedLayout, SharedVariable};
    use crate::check::check_source;

    #[test]
    fn static_variables_are_aligned_and_dynamic_arrays_follow_them() {
        let source = r#"
.version 7.0
.target sm_70
.address_size 64
.shared .b8 flag;
.extern .shared .align 16 .b8 dynamic[];
.visible .entry k()
{
    .shared .align 8 .u64 counters[3];
    .shared .u32 last;
    ret;
}
"#;
        let (module, diagnostics) = check_source(source);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let module = module.expect("checks");
        let layout = SharedLayout::of(&module);
        assert_eq!(layout.offset(SharedVariable::Global(0)), Some(0));
        let local = |name: &str| {
            let index =
                module.functions[0].variables.iter().position(|variable| variable.name == name).expect("declared");
            layout.offset(SharedVariable::Local { function: 0, variable: index as u32 })
        };
        assert_eq!(local("counters"), Some(8));
        assert_eq!(local("last"), Some(32));
        assert_eq!(layout.static_bytes, 48);
        assert_eq!(layout.offset(SharedVariable::Global(1)), Some(48));
    }
}
