//! The fat-binary container: a 16-byte header followed by entries, each a header and a payload
//! (PTX text or an ELF cubin for one architecture, possibly compressed).
//!
//! Header layout (little-endian), as nvcc writes it; entries are described in `entry.rs`:
//!
//! ```text
//! 0 u32 magic 0xBA55ED50   4 u16 version (1)   6 u16 header size   8 u64 size of the entries
//! ```
//!
//! Executables and libraries carry several fat binaries end to end in one section, aligned to 8
//! bytes with zeros between them. Every size is checked against the bytes that are really there
//! before it is used.

use super::bytes::{u16_at, u32_at, u64_at};
use super::concatenated;
use super::decompress::{decompress, Compression, MAX_ENTRY_BYTES};
use super::entry::{Entry, EntryHeader, EntryKind, Payload, ENTRY_HEADER_BYTES, KIND_CONCATENATED};
use super::error::BinaryError;

/// The first word of a fat binary.
pub const FAT_BINARY_MAGIC: u32 = 0xBA55_ED50;
/// The first word of the record in `.nvFatBinSegment` that points a CUDA runtime at a fat
/// binary in the process image.
pub const WRAPPER_MAGIC: u32 = 0x4662_43B1;

const HEADER_BYTES: usize = 16;
/// What one file's entries may decompress to as they are read (PTX and concatenated entries;
/// SASS waits in the file): four maximal entries.
const MAX_TOTAL_BYTES: u64 = 4 * MAX_ENTRY_BYTES;

/// One fat binary: the entries of one module (one translation unit or device link), which are
/// the same code for different architectures.
#[derive(Clone, Debug)]
pub struct FatBinary {
    /// 1-based, in file order across all the file's fat binaries.
    pub index: usize,
    /// Where its header starts in the file.
    pub offset: u64,
    /// The ELF section it came from; `None` in a standalone `.fatbin` file.
    pub section: Option<&'static str>,
    /// The archive member it came from, in a static library.
    pub member: Option<String>,
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
    section: Option<&'static str>,
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
        let (mut binary, end) = read_fat_binary(data, at, base, first_index + binaries.len(), budget)?;
        binary.section = section;
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
    let file_offset = |at: usize| base.saturating_add(at as u64);
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
    // Zeros after the last entry are padding, not an entry.
    while at < end && data[at..end].iter().any(|&byte| byte != 0) {
        let (read, next) = read_entry(&data[..end], at, base, budget)?;
        entries.extend(read);
        at = next;
    }
    Ok((FatBinary { index, offset: file_offset(start), section: None, member: None, entries }, end))
}

/// Reads the entry whose header starts at `start` (several, for a concatenated entry); `data`
/// ends where the fat binary ends.
fn read_entry(data: &[u8], start: usize, base: u64, budget: &mut Budget) -> Result<(Vec<Entry>, usize), BinaryError> {
    let offset = base.saturating_add(start as u64);
    let header = EntryHeader::read(data, start, offset)?;
    let header_bytes = header.size_or_offset as usize;
    let left = data.len() - start;
    if header_bytes < ENTRY_HEADER_BYTES || header_bytes > left {
        return Err(BinaryError::invalid(
            offset,
            format!(
                "an entry header declares {header_bytes} bytes; it needs at least {ENTRY_HEADER_BYTES} and the fat \
                 binary has {left} left"
            ),
        ));
    }
    let payload_start = start + header_bytes;
    let available = (data.len() - payload_start) as u64;
    let payload_bytes = header.payload_bytes;
    if payload_bytes > available {
        return Err(BinaryError::invalid(
            offset,
            format!("an entry declares a payload of {payload_bytes} bytes but the fat binary has {available} left"),
        ));
    }
    let payload_end = payload_start + payload_bytes as usize;
    let payload_offset = base.saturating_add(payload_start as u64);
    let compression = header.compression(offset)?;
    let (stored, declared) = match compression {
        Compression::None => (&data[payload_start..payload_end], payload_bytes),
        Compression::Lz4 | Compression::Zstd => {
            let compressed_bytes = header.compressed_bytes;
            if compressed_bytes > payload_bytes {
                return Err(BinaryError::invalid(
                    offset,
                    format!(
                        "an entry declares {compressed_bytes} compressed bytes in a payload of {payload_bytes} bytes"
                    ),
                ));
            }
            (&data[payload_start..payload_start + compressed_bytes as usize], header.decompressed_bytes)
        }
    };
    let stored_bytes = stored.len() as u64;
    let eager = header.kind_code == KIND_CONCATENATED || EntryKind::from_code(header.kind_code) == EntryKind::Ptx;
    if !eager {
        let payload = Payload::InFile { start: payload_offset, stored_bytes, declared };
        return Ok((vec![header.into_entry(payload, compression, offset, stored_bytes, false)?], payload_end));
    }
    let payload = decompress(compression, stored, declared, payload_offset)?;
    budget.spend(payload.len() as u64, offset)?;
    let entries = if header.kind_code == KIND_CONCATENATED {
        concatenated::split(&data[start..payload_start], &payload, compression, offset, stored_bytes)?
    } else {
        vec![header.into_entry(Payload::Decompressed(payload), compression, offset, stored_bytes, false)?]
    };
    Ok((entries, payload_end))
}
