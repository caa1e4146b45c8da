//! The fat-binary container: a 16-byte header followed by entries, each a header and a payload
//! (PTX text or an ELF cubin for one architecture, possibly compressed).
//!
//! Layout (little-endian), as nvcc writes it:
//!
//! ```text
//! header   0 u32 magic 0xBA55ED50   4 u16 version (1)   6 u16 header size   8 u64 size of the entries
//! entry    0 u16 kind (1 PTX, 2 ELF)                      4 u32 header size (payload follows it)
//!          8 u64 payload size (padded)                   16 u32 compressed size
//!         24 u16 PTX ISA minor   26 u16 PTX ISA major    28 u32 sm version (80 for sm_80)
//!         40 u64 flags (0x1 64-bit, 0x2000 LZ4, 0x8000 Zstd)   56 u64 decompressed size
//! ```
//!
//! Executables and libraries carry several fat binaries end to end in one section, aligned to 8
//! bytes with zeros between them. Every size is checked against the bytes that are really there
//! before it is used.

use super::bytes::{u16_at, u32_at, u64_at};
use super::decompress::{decompress, Compression, MAX_ENTRY_BYTES};
use super::error::BinaryError;
use crate::ir::IsaVersion;

/// The first word of a fat binary.
pub const FAT_BINARY_MAGIC: u32 = 0xBA55_ED50;
/// The first word of the record in `.nvFatBinSegment` that points a CUDA runtime at a fat
/// binary in the process image.
pub const WRAPPER_MAGIC: u32 = 0x4662_43B1;

const HEADER_BYTES: usize = 16;
const ENTRY_HEADER_BYTES: usize = 64;
const FLAG_64_BIT: u64 = 0x1;
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;
/// Decompressed bytes one file may produce in all: four maximal entries.
const MAX_TOTAL_BYTES: u64 = 4 * MAX_ENTRY_BYTES;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Ptx,
    /// An ELF cubin: SASS, machine code for one architecture.
    Elf,
    /// A kind ptxr does not know (newer CUDA versions add some); listed and skipped.
    Other(u16),
}

impl EntryKind {
    fn from_code(code: u16) -> EntryKind {
        match code {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            other => EntryKind::Other(other),
        }
    }
}

/// One entry of a fat binary, decompressed.
#[derive(Clone, Debug)]
pub struct Entry {
    pub kind: EntryKind,
    /// The architecture number: 80 for PTX written for compute_80 or SASS for sm_80.
    pub sm: u32,
    /// The PTX ISA version of a PTX entry, from its header.
    pub isa_version: Option<IsaVersion>,
    pub flags: u64,
    pub compression: Compression,
    /// Where the entry's header starts in the file.
    pub offset: u64,
    /// The bytes the payload takes in the file (compressed, when it is).
    pub stored_bytes: u64,
    /// The payload, decompressed. PTX is padded with NULs.
    pub payload: Vec<u8>,
}

impl Entry {
    /// The PTX text of a PTX entry: the payload up to its first NUL. Checked to be UTF-8 when
    /// the entry was read.
    pub fn ptx_text(&self) -> Option<&str> {
        if self.kind != EntryKind::Ptx {
            return None;
        }
        std::str::from_utf8(until_nul(&self.payload)).ok()
    }

    pub fn is_64_bit(&self) -> bool {
        self.flags & FLAG_64_BIT != 0
    }
}

fn until_nul(payload: &[u8]) -> &[u8] {
    let end = payload.iter().position(|&byte| byte == 0).unwrap_or(payload.len());
    &payload[..end]
}

/// One fat binary: the entries of one module (one translation unit or device link), which are
/// the same code for different architectures.
#[derive(Clone, Debug)]
pub struct FatBinary {
    /// 1-based, in file order across all the file's fat binaries.
    pub index: usize,
    /// Where its header starts in the file.
    pub offset: u64,
    pub entries: Vec<Entry>,
}

/// Counts the decompressed bytes of one file against `MAX_TOTAL_BYTES`.
#[derive(Default)]
pub struct Budget {
    used: u64,
}

impl Budget {
    fn spend(&mut self, bytes: u64, offset: u64) -> Result<(), BinaryError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > MAX_TOTAL_BYTES {
            return Err(BinaryError::invalid(
                offset,
                format!("the file's entries decompress to more than {MAX_TOTAL_BYTES} bytes in all"),
            ));
        }
        Ok(())
    }
}

/// Reads every fat binary laid end to end in `data`: an ELF section or a whole `.fatbin` file.
/// `base` is the file offset of `data[0]`, and the binaries are numbered from `first_index`.
pub fn read_fat_binaries(
    data: &[u8],
    base: u64,
    first_index: usize,
    budget: &mut Budget,
) -> Result<Vec<FatBinary>, BinaryError> {
    let mut binaries = Vec::new();
    let mut at = 0;
    loop {
        // Zeros align the next fat binary; anything else must be one.
        while data.get(at) == Some(&0) {
            at += 1;
        }
        if at >= data.len() {
            return Ok(binaries);
        }
        let (binary, end) = read_fat_binary(data, at, base, first_index + binaries.len(), budget)?;
        binaries.push(binary);
        at = end;
    }
}

/// Reads the fat binary at `start`; returns it and where it ends.
fn read_fat_binary(
    data: &[u8],
    start: usize,
    base: u64,
    index: usize,
    budget: &mut Budget,
) -> Result<(FatBinary, usize), BinaryError> {
    let file_offset = |at: usize| base + at as u64;
    let truncated = || BinaryError::invalid(file_offset(start), "the fat-binary header is truncated");
    let magic = u32_at(data, start).ok_or_else(truncated)?;
    if magic != FAT_BINARY_MAGIC {
        return Err(BinaryError::invalid(
            file_offset(start),
            format!("expected a fat-binary header (magic {FAT_BINARY_MAGIC:#010x}), found {magic:#010x}"),
        ));
    }
    let version = u16_at(data, start + 4).ok_or_else(truncated)?;
    let header_bytes = u16_at(data, start + 6).ok_or_else(truncated)? as usize;
    let entries_bytes = u64_at(data, start + 8).ok_or_else(truncated)?;
    if version != 1 {
        return Err(BinaryError::invalid(
            file_offset(start),
            format!("fat-binary version {version} is not known to ptxr (it reads version 1)"),
        ));
    }
    if header_bytes < HEADER_BYTES {
        return Err(BinaryError::invalid(
            file_offset(start),
            format!("the fat-binary header declares {header_bytes} bytes, less than its {HEADER_BYTES} fixed bytes"),
        ));
    }
    let entries_start = start + header_bytes;
    let available = data.len().saturating_sub(entries_start) as u64;
    if entries_start > data.len() || entries_bytes > available {
        return Err(BinaryError::invalid(
            file_offset(start),
            format!(
                "the fat binary declares {entries_bytes} bytes of entries but only {available} bytes follow its header"
            ),
        ));
    }
    // entries_bytes <= available, which came from a usize.
    let end = entries_start + entries_bytes as usize;
    let mut entries = Vec::new();
    let mut at = entries_start;
    while at < end {
        let (entry, next) = read_entry(&data[..end], at, base, budget)?;
        entries.push(entry);
        at = next;
    }
    Ok((FatBinary { index, offset: file_offset(start), entries }, end))
}

/// Reads the entry whose header starts at `start`; `data` ends where the fat binary ends.
fn read_entry(data: &[u8], start: usize, base: u64, budget: &mut Budget) -> Result<(Entry, usize), BinaryError> {
    let offset = base + start as u64;
    if data.len() - start < ENTRY_HEADER_BYTES {
        return Err(BinaryError::invalid(
            offset,
            format!(
                "an entry header needs {ENTRY_HEADER_BYTES} bytes but the fat binary has {} left",
                data.len() - start
            ),
        ));
    }
    // The header is in bounds, so these reads cannot fail; `?` keeps that a checked claim.
    let field_error = || BinaryError::invalid(offset, "the entry header is truncated");
    let kind = EntryKind::from_code(u16_at(data, start).ok_or_else(field_error)?);
    let header_bytes = u32_at(data, start + 4).ok_or_else(field_error)? as usize;
    let payload_bytes = u64_at(data, start + 8).ok_or_else(field_error)?;
    let compressed_bytes = u32_at(data, start + 16).ok_or_else(field_error)? as u64;
    let minor = u16_at(data, start + 24).ok_or_else(field_error)?;
    let major = u16_at(data, start + 26).ok_or_else(field_error)?;
    let sm = u32_at(data, start + 28).ok_or_else(field_error)?;
    let flags = u64_at(data, start + 40).ok_or_else(field_error)?;
    let decompressed_bytes = u64_at(data, start + 56).ok_or_else(field_error)?;

    if header_bytes < ENTRY_HEADER_BYTES || header_bytes > data.len() - start {
        return Err(BinaryError::invalid(
            offset,
            format!(
                "an entry header declares {header_bytes} bytes; it needs at least {ENTRY_HEADER_BYTES} and the fat binary has {} left",
                data.len() - start
            ),
        ));
    }
    let payload_start = start + header_bytes;
    let available = (data.len() - payload_start) as u64;
    if payload_bytes > available {
        return Err(BinaryError::invalid(
            offset,
            format!("an entry declares a payload of {payload_bytes} bytes but the fat binary has {available} left"),
        ));
    }
    let payload_end = payload_start + payload_bytes as usize;
    let payload_offset = base + payload_start as u64;
    let compression = match (flags & FLAG_LZ4 != 0, flags & FLAG_ZSTD != 0) {
        (false, false) => Compression::None,
        (true, false) => Compression::Lz4,
        (false, true) => Compression::Zstd,
        (true, true) => {
            return Err(BinaryError::invalid(offset, format!("an entry's flags {flags:#x} claim both LZ4 and Zstd")));
        }
    };
    let (stored, declared) = match compression {
        Compression::None => (&data[payload_start..payload_end], payload_bytes),
        Compression::Lz4 | Compression::Zstd => {
            if compressed_bytes > payload_bytes {
                return Err(BinaryError::invalid(
                    offset,
                    format!(
                        "an entry declares {compressed_bytes} compressed bytes in a payload of {payload_bytes} bytes"
                    ),
                ));
            }
            (&data[payload_start..payload_start + compressed_bytes as usize], decompressed_bytes)
        }
    };
    let payload = decompress(compression, stored, declared, payload_offset)?;
    budget.spend(payload.len() as u64, offset)?;
    let entry = Entry {
        kind,
        sm,
        isa_version: (kind == EntryKind::Ptx).then_some(IsaVersion { major: major.into(), minor: minor.into() }),
        flags,
        compression,
        offset,
        stored_bytes: stored.len() as u64,
        payload,
    };
    if kind == EntryKind::Ptx {
        if let Err(error) = std::str::from_utf8(until_nul(&entry.payload)) {
            return Err(BinaryError::invalid(
                payload_offset,
                format!("a PTX entry is not UTF-8 text (invalid byte {} bytes into the PTX)", error.valid_up_to()),
            ));
        }
    }
    Ok((entry, payload_end))
}
