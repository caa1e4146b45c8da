//! PTX's opaque handle types (ISA 7.8 section 5.3): the type a texture, sampler or surface
//! variable is declared with.

use std::fmt;

/// `.texref`, `.samplerref` or `.surfref`. The checker keeps such variables as 64-bit `.tex`
/// variables; the opaque type says which kind of handle each one is, which a target that
/// declares them in its output (NVPTX) must repeat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpaqueType {
    /// `.texref` (and ISA 1.x's untyped `.tex` variables): a texture.
    Texture,
    /// `.samplerref`: a sampler of the independent texturing mode.
    Sampler,
    /// `.surfref`: a surface.
    Surface,
}

impl OpaqueType {
    /// Reads a type name without its dot (`texref`).
    pub fn from_ptx(name: &str) -> Option<OpaqueType> {
        match name {
            "texref" => Some(OpaqueType::Texture),
            "samplerref" => Some(OpaqueType::Sampler),
            "surfref" => Some(OpaqueType::Surface),
            _ => None,
        }
    }
}

impl fmt::Display for OpaqueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OpaqueType::Texture => ".texref",
            OpaqueType::Sampler => ".samplerref",
            OpaqueType::Surface => ".surfref",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::OpaqueType;

    #[test]
    fn each_opaque_type_reads_back_its_spelling() {
        for ty in [OpaqueType::Texture, OpaqueType::Sampler, OpaqueType::Surface] {
            assert_eq!(OpaqueType::from_ptx(&ty.to_string()[1..]), Some(ty));
        }
        assert_eq!(OpaqueType::from_ptx("tex"), None);
    }
}
