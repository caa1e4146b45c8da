//! Textures and surfaces in software (ISA 7.8 sections 9.7.9 and 9.7.10): a handle is the
//! global address of a ptxr texture descriptor (`ptxr_runtime::texture`), and `tex`, `tld4`,
//! `txq`, `suld`, `sust`, `sured` and `suq` become loads, stores, atomics and arithmetic on its
//! fields, the same code on every target that samples in software (`Target::textures`); NVPTX
//! keeps PTX's own instructions, as inline PTX (`native.rs`). The filtering arithmetic is that
//! of the CUDA C++ Programming Guide, appendix "Texture Fetching"; cube maps follow its section
//! "Cubemap Textures".
//!
//! One file per concept: `descriptor` (the handle and its fields), `addressing` (coordinates
//! to texel indices and weights, address modes), `texels` (reading and writing one channel in
//! its format), `sampling` (`tex`, `tld4`), `mipmap` (the levels `tex.level` reads), `cube` (the face and face coordinates of
//! `tex.cube`/`tex.acube`), `surface` (`suld`, `sust`, `sured`), `query` (`txq`, `suq`).

mod addressing;
mod cube;
mod descriptor;
mod mipmap;
mod native;
mod query;
mod sampling;
mod surface;
mod texels;

use ptxr_frontend::ir::{GuardedInstruction, TextureInstruction};
use ptxr_intrinsics::TextureLowering;

use crate::error::{LoweringError, LoweringResult};
use crate::function::FunctionLowering;

pub fn lower<'ctx>(
    lowering: &mut FunctionLowering<'_, 'ctx>,
    guarded: &GuardedInstruction,
    instruction: &TextureInstruction,
) -> LoweringResult<()> {
    // In independent mode, samplers come from `.samplerref` variables whose initializers
    // (`filter_mode = linear`, ...) the parser does not keep, so they cannot be honoured.
    if lowering.shared.ptx.target_names.iter().any(|name| name == "texmode_independent") {
        return Err(unsupported(lowering, guarded, "the independent texturing mode (`.target texmode_independent`)"));
    }
    if lowering.shared.target.textures() == TextureLowering::InlinePtx {
        return native::lower(lowering, guarded, instruction);
    }
    match instruction {
        TextureInstruction::Sample {
            geometry,
            result,
            coordinate,
            destinations,
            predicate,
            handle,
            sampler,
            coordinates,
            level,
            gradients,
        } => {
            if sampler.is_some() {
                return Err(unsupported(
                    lowering,
                    guarded,
                    "independent-mode samplers (`[texture, sampler, coordinates]`)",
                ));
            }
            sampling::sample(
                lowering,
                *geometry,
                *result,
                *coordinate,
                destinations,
                predicate.as_ref(),
                handle,
                coordinates,
                match (level, gradients) {
                    (Some(level), _) => Some(sampling::Detail::Level(level)),
                    (None, Some(gradients)) => {
                        if geometry.is_cube() {
                            return Err(unsupported(lowering, guarded, "gradients on a cube map (`.grad.cube`)"));
                        }
                        Some(sampling::Detail::Gradients(gradients))
                    }
                    (None, None) => None,
                },
            )
        }
        TextureInstruction::Gather {
            component,
            geometry,
            result,
            destinations,
            predicate,
            handle,
            sampler,
            coordinates,
        } => {
            if sampler.is_some() {
                return Err(unsupported(
                    lowering,
                    guarded,
                    "independent-mode samplers (`[texture, sampler, coordinates]`)",
                ));
            }
            sampling::gather(
                lowering,
                *component,
                *geometry,
                *result,
                destinations,
                predicate.as_ref(),
                handle,
                coordinates,
            )
        }
        TextureInstruction::QueryTexture { query, destination, handle, level } => {
            query::query(lowering, *query, destination, handle, level.as_ref())
        }
        TextureInstruction::QuerySurface { query, destination, handle } => {
            query::query(lowering, *query, destination, handle, None)
        }
        TextureInstruction::SurfaceLoad { geometry, bits, lanes, boundary, destinations, handle, coordinates } => {
            surface::load(lowering, guarded, *geometry, *bits, *lanes, *boundary, destinations, handle, coordinates)
        }
        TextureInstruction::SurfaceReduce {
            geometry,
            formatted,
            operation,
            ty,
            boundary,
            handle,
            coordinates,
            source,
        } => surface::reduce(
            lowering,
            guarded,
            *geometry,
            *formatted,
            *operation,
            *ty,
            *boundary,
            handle,
            coordinates,
            source,
        ),
        TextureInstruction::SurfaceStore {
            geometry,
            formatted,
            bits,
            lanes,
            boundary,
            handle,
            coordinates,
            sources,
        } => {
            let access = surface::Access { geometry: *geometry, bits: *bits, lanes: *lanes, boundary: *boundary };
            if *formatted {
                surface::store_formatted(lowering, guarded, access, handle, coordinates, sources)
            } else {
                surface::store(lowering, guarded, access, handle, coordinates, sources)
            }
        }
    }
}

/// The integer type of `bits` (8, 16, 32 or 64) bits.
fn integer_type(context: &inkwell::context::Context, bits: u32) -> inkwell::types::IntType<'_> {
    match bits {
        8 => context.i8_type(),
        16 => context.i16_type(),
        32 => context.i32_type(),
        _ => context.i64_type(),
    }
}

fn unsupported(lowering: &FunctionLowering<'_, '_>, guarded: &GuardedInstruction, what: &str) -> LoweringError {
    LoweringError::unsupported(
        &format!("`{}` with {what}", lowering.spelling(guarded)),
        lowering.target_name(),
        guarded.span,
    )
}
