//! ELF files: host executables, shared objects and relocatable objects, which carry fat binaries
//! in a section, and cubins (ELF for the CUDA machine), which hold SASS only.

use object::elf::{FileHeader32, FileHeader64, EM_CUDA, ET_DYN, ET_EXEC, ET_REL, SHT_SYMTAB, STT_FUNC};
use object::read::elf::{FileHeader, SectionHeader, Sym};
use object::Endianness;

use super::error::BinaryError;

/// Where nvcc puts fat binaries: `.nv_fatbin` in executables, libraries and whole-program
/// objects, `__nv_relfatbin` in objects compiled with relocatable device code (`-rdc=true`).
pub const FAT_BINARY_SECTIONS: [&str; 2] = [".nv_fatbin", "__nv_relfatbin"];

/// Where clang's new offload driver embeds device images.
const LLVM_OFFLOADING: &str = ".llvm.offloading";

/// `st_other` bit that marks a kernel (`.entry`) among a cubin's function symbols.
const STO_CUDA_ENTRY: u8 = 0x10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElfKind {
    Executable,
    SharedObject,
    Relocatable,
    Other,
}

impl ElfKind {
    pub fn describe(self) -> &'static str {
        match self {
            ElfKind::Executable => "ELF executable",
            ElfKind::SharedObject => "ELF shared object",
            ElfKind::Relocatable => "ELF relocatable object",
            ElfKind::Other => "ELF file",
        }
    }
}

/// One section that holds fat binaries.
pub struct FatBinarySection<'d> {
    pub name: &'static str,
    /// The section's offset in the file.
    pub offset: u64,
    pub data: &'d [u8],
}

pub enum ElfContents<'d> {
    Host {
        kind: ElfKind,
        sections: Vec<FatBinarySection<'d>>,
        /// Whether the file has clang's `.llvm.offloading` section (`--offload-new-driver`),
        /// whose images are cubins or LLVM bitcode, never PTX.
        has_llvm_offloading: bool,
    },
    /// SASS for one architecture, with the names of its kernels.
    Cubin { sm: u32, kernels: Vec<String> },
}

/// Reads an ELF file (32- or 64-bit, either byte order).
pub fn read_elf(data: &[u8]) -> Result<ElfContents<'_>, BinaryError> {
    match data.get(4) {
        Some(1) => read_elf_of::<FileHeader32<Endianness>>(data),
        Some(2) => read_elf_of::<FileHeader64<Endianness>>(data),
        _ => Err(BinaryError::invalid(4, "the ELF header is truncated or has an unknown class")),
    }
}

fn malformed(error: object::read::Error) -> BinaryError {
    BinaryError::malformed(format!("malformed ELF file: {error}"))
}

fn read_elf_of<Elf: FileHeader<Endian = Endianness>>(data: &[u8]) -> Result<ElfContents<'_>, BinaryError> {
    let header = Elf::parse(data).map_err(malformed)?;
    let endian = header.endian().map_err(malformed)?;
    let table = header.sections(endian, data).map_err(malformed)?;
    if header.e_machine(endian) == EM_CUDA {
        return Ok(ElfContents::Cubin { sm: cubin_sm(header.e_flags(endian)), kernels: cubin_kernels_of::<Elf>(data) });
    }
    let kind = match header.e_type(endian) {
        ET_EXEC => ElfKind::Executable,
        // A position-independent executable is ET_DYN too; only it asks for a program interpreter.
        ET_DYN if table.section_by_name(endian, b".interp").is_some() => ElfKind::Executable,
        ET_DYN => ElfKind::SharedObject,
        ET_REL => ElfKind::Relocatable,
        _ => ElfKind::Other,
    };
    let mut sections = Vec::new();
    for name in FAT_BINARY_SECTIONS {
        if let Some((_, section)) = table.section_by_name(endian, name.as_bytes()) {
            let offset: u64 = section.sh_offset(endian).into();
            let size: u64 = section.sh_size(endian).into();
            let bytes = section.data(endian, data).map_err(|_| {
                // The offset is the section header's claim, outside the file: it goes in the message.
                BinaryError::malformed(format!(
                    "section {name} claims {size} bytes at offset {offset:#x}, outside the file of {} bytes",
                    data.len()
                ))
            })?;
            sections.push(FatBinarySection { name, offset, data: bytes });
        }
    }
    let has_llvm_offloading = table.section_by_name(endian, LLVM_OFFLOADING.as_bytes()).is_some();
    Ok(ElfContents::Host { kind, sections, has_llvm_offloading })
}

/// The architecture of a cubin: bits 8 to 15 of its ELF flags (`0x5a` for sm_90).
fn cubin_sm(flags: u32) -> u32 {
    (flags >> 8) & 0xff
}

/// The kernels of a cubin (a fat binary's ELF entry or a `.cubin` file), sorted; none when the
/// ELF cannot be read.
pub fn cubin_kernels(data: &[u8]) -> Vec<String> {
    match data.get(4) {
        Some(1) => cubin_kernels_of::<FileHeader32<Endianness>>(data),
        Some(2) => cubin_kernels_of::<FileHeader64<Endianness>>(data),
        _ => Vec::new(),
    }
}

fn cubin_kernels_of<Elf: FileHeader<Endian = Endianness>>(data: &[u8]) -> Vec<String> {
    let symbols = || -> Result<Vec<String>, object::read::Error> {
        let header = Elf::parse(data)?;
        let endian = header.endian()?;
        let table = header.sections(endian, data)?;
        let symbols = table.symbols(endian, data, SHT_SYMTAB)?;
        let mut kernels = Vec::new();
        for symbol in symbols.iter() {
            if symbol.st_type() == STT_FUNC && symbol.st_other() & STO_CUDA_ENTRY != 0 {
                kernels.push(String::from_utf8_lossy(symbol.name(endian, symbols.strings())?).into_owned());
            }
        }
        kernels.sort();
        Ok(kernels)
    };
    symbols().unwrap_or_default()
}
