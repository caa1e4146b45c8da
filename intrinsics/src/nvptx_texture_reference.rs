//! NVPTX's own `.texref` and `.surfref` variables: LLVM's NVPTX back end declares a global as
//! `.global .texref NAME;` (or `.surfref`) when `!nvvm.annotations` marks it `"texture"` (or
//! `"surface"`), keeping its name, so that the instructions can name it and a CUDA host binds a
//! texture or surface to it by that name.

use inkwell::context::Context;
use inkwell::module::Module;
use inkwell::values::GlobalValue;
use ptxr_frontend::vocabulary::OpaqueType;

use crate::Unsupported;

/// The named metadata that the NVPTX back end reads per-global properties from.
const ANNOTATIONS: &str = "nvvm.annotations";

pub fn declare_texture_reference<'ctx>(
    context: &'ctx Context,
    module: &Module<'ctx>,
    global: GlobalValue<'ctx>,
    opaque: OpaqueType,
) -> Result<(), Unsupported> {
    let annotation = match opaque {
        OpaqueType::Texture => "texture",
        OpaqueType::Surface => "surface",
        // LLVM declares a sampler with an initializer, which ptxas refuses under the unified
        // texturing mode, the only one ptxr lowers texture instructions in.
        OpaqueType::Sampler => {
            return Err(Unsupported {
                what: "module-scope `.samplerref` variables (samplers of the independent texturing mode)".to_string(),
            })
        }
    };
    let node = context.metadata_node(&[
        global.as_pointer_value().into(),
        context.metadata_string(annotation).into(),
        context.i32_type().const_int(1, false).into(),
    ]);
    module
        .add_global_metadata(ANNOTATIONS, &node)
        .map_err(|error| Unsupported { what: format!("the `{opaque}` variable's annotation ({error})") })
}
