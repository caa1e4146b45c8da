//! CUDA binaries: the PTX inside executables, shared objects, relocatable objects and standalone
//! fat binaries, and what a cubin holds (SASS only).
//!
//! Like the rest of the frontend this does no I/O: `read_binary` takes the file's bytes. PTX is
//! decompressed as it is read; SASS is left in the file until a listing asks for it. Every
//! offset and size in the file is checked before it is used, and decompression has fixed memory
//! limits (`decompress.rs`), so a truncated or hostile file gives a `BinaryError` (E0401), never
//! a panic or an unbounded allocation. The layout of the container is in `container.rs`,
//! `entry.rs` and `concatenated.rs`.

mod archive;
mod bytes;
mod concatenated;
mod container;
mod decompress;
mod elf;
mod entry;
mod error;
mod kernels;
mod select;

pub use container::{FatBinary, FAT_BINARY_MAGIC, WRAPPER_MAGIC};
pub use decompress::{Compression, MAX_ENTRY_BYTES};
pub use elf::{cubin_kernels, ElfKind, FAT_BINARY_SECTIONS};
pub use entry::{Entry, EntryKind, Payload};
pub use error::BinaryError;
pub use kernels::ptx_kernels;
pub use select::best_ptx;

use archive::read_archive;
use container::{read_fat_binaries, Budget};
use elf::{read_elf, ElfContents, FatBinarySection};

/// The fat binaries of an ELF file's sections, numbered from `first_index`; `base` is where the
/// ELF file starts in the file being read (an archive member's offset).
fn read_sections(
    sections: &[FatBinarySection<'_>],
    base: u64,
    first_index: usize,
    budget: &mut Budget,
) -> Result<Vec<FatBinary>, BinaryError> {
    let mut modules: Vec<FatBinary> = Vec::new();
    for section in sections {
        // A section without file contents (SHT_NOBITS) may claim any offset: saturate.
        let offset = base.saturating_add(section.offset);
        let index = first_index + modules.len();
        modules.extend(read_fat_binaries(section.data, offset, Some(section.name), index, budget)?);
    }
    Ok(modules)
}

const ELF_MAGIC: [u8; 4] = *b"\x7fELF";
const ARCHIVE_MAGIC: &[u8] = b"!<arch>\n";

/// What a file is, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryFormat {
    Elf,
    /// A static library (`ar` archive).
    Archive,
    FatBinary,
    /// A fat-binary wrapper record (the contents of `.nvFatBinSegment`): a pointer into a
    /// process image, with no fat binary of its own.
    Wrapper,
}

/// The binary format of `bytes` by its magic number, or `None` for anything else (PTX text).
pub fn detect(bytes: &[u8]) -> Option<BinaryFormat> {
    if bytes.starts_with(&ELF_MAGIC) {
        return Some(BinaryFormat::Elf);
    }
    if bytes.starts_with(ARCHIVE_MAGIC) {
        return Some(BinaryFormat::Archive);
    }
    match bytes.get(..4).and_then(|word| word.try_into().ok()).map(u32::from_le_bytes) {
        Some(FAT_BINARY_MAGIC) => Some(BinaryFormat::FatBinary),
        Some(WRAPPER_MAGIC) => Some(BinaryFormat::Wrapper),
        _ => None,
    }
}

/// What kind of file held the fat binaries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Container {
    /// A host ELF file, with the sections its fat binaries came from.
    Elf { kind: ElfKind, sections: Vec<&'static str> },
    /// A standalone `.fatbin` file.
    FatBinaryFile,
    /// A static library, with the names of the members that hold fat binaries.
    Archive { members: Vec<String> },
    /// A cubin: SASS for one architecture, no PTX.
    Cubin { sm: u32, kernels: Vec<String> },
}

impl Container {
    pub fn describe(&self) -> String {
        match self {
            Container::Elf { kind, sections } => {
                format!("{} (fat binaries in {})", kind.describe(), sections.join(", "))
            }
            Container::FatBinaryFile => "fat binary".to_string(),
            Container::Archive { members } => format!("static library (fat binaries in {})", members.join(", ")),
            Container::Cubin { sm, .. } => format!("cubin (SASS for sm_{sm})"),
        }
    }
}

/// A CUDA binary, read: its fat binaries in file order, every entry decompressed.
#[derive(Clone, Debug)]
pub struct CudaBinary {
    pub container: Container,
    pub modules: Vec<FatBinary>,
}

impl CudaBinary {
    /// Every PTX entry, with its module.
    pub fn ptx_entries(&self) -> impl Iterator<Item = (&FatBinary, &Entry)> {
        self.modules
            .iter()
            .flat_map(|module| module.entries.iter().map(move |entry| (module, entry)))
            .filter(|(_, entry)| entry.kind == EntryKind::Ptx)
    }

    /// The PTX to compile for each module that has some (`best_ptx`), or an E0402 error that
    /// says what the binary holds instead.
    pub fn chosen_ptx(&self) -> Result<Vec<(&FatBinary, &Entry)>, BinaryError> {
        let chosen: Vec<_> =
            self.modules.iter().filter_map(|module| best_ptx(module).map(|entry| (module, entry))).collect();
        if !chosen.is_empty() {
            return Ok(chosen);
        }
        let message = match &self.container {
            Container::Cubin { sm, .. } => {
                format!("the file is a cubin: SASS for sm_{sm} only, which holds no PTX to compile")
            }
            _ => {
                let mut sass: Vec<String> = self
                    .modules
                    .iter()
                    .flat_map(|module| &module.entries)
                    .filter(|entry| entry.kind == EntryKind::Elf)
                    .map(|entry| entry.arch_name())
                    .collect();
                sass.sort();
                sass.dedup();
                if sass.is_empty() {
                    "the file's fat binaries hold no PTX".to_string()
                } else {
                    format!("the file's fat binaries hold no PTX, only SASS for {}", sass.join(", "))
                }
            }
        };
        Err(BinaryError::no_ptx(message))
    }
}

/// Reads a CUDA binary: an ELF file (host executable, shared object, relocatable object, or
/// cubin), a static library of objects, or a standalone fat binary.
pub fn read_binary(bytes: &[u8]) -> Result<CudaBinary, BinaryError> {
    let mut budget = Budget::default();
    match detect(bytes) {
        Some(BinaryFormat::FatBinary) => Ok(CudaBinary {
            container: Container::FatBinaryFile,
            modules: read_fat_binaries(bytes, 0, None, 1, &mut budget)?,
        }),
        Some(BinaryFormat::Archive) => {
            let (members, modules) = read_archive(bytes, &mut budget)?;
            Ok(CudaBinary { container: Container::Archive { members }, modules })
        }
        Some(BinaryFormat::Elf) => match read_elf(bytes)? {
            ElfContents::Cubin { sm, kernels } => {
                Ok(CudaBinary { container: Container::Cubin { sm, kernels }, modules: Vec::new() })
            }
            ElfContents::Host { kind, sections, has_llvm_offloading } => {
                if sections.is_empty() && has_llvm_offloading {
                    return Err(BinaryError::no_ptx(format!(
                        "the {} carries its device code in .llvm.offloading (clang's offload driver): cubins or \
                         LLVM bitcode, which hold no PTX; compile the CUDA source with clang's --cuda-device-only \
                         -S to get PTX",
                        kind.describe()
                    )));
                }
                if sections.is_empty() {
                    return Err(BinaryError::no_ptx(format!(
                        "the {} has no {} section: it carries no CUDA kernels",
                        kind.describe(),
                        FAT_BINARY_SECTIONS.join(" or ")
                    )));
                }
                let names = sections.iter().map(|section| section.name).collect();
                let modules = read_sections(&sections, 0, 1, &mut budget)?;
                Ok(CudaBinary { container: Container::Elf { kind, sections: names }, modules })
            }
        },
        Some(BinaryFormat::Wrapper) => Err(BinaryError::invalid(
            0,
            "this is a fat-binary wrapper record (magic 0x466243b1, the contents of .nvFatBinSegment): it points \
             into a process image and holds no fat binary itself; give ptxr the executable or library",
        )),
        None => Err(BinaryError::invalid(0, "not an ELF file or a fat binary (no known magic number)")),
    }
}
