//! One fat-binary entry: its 64-byte header and, once read, its decompressed payload.
//!
//! Header layout (little-endian), as nvcc writes it:
//!
//! ```text
//!  0 u16 kind (1 PTX, 2 ELF, 8 LTO-IR, 0x100 concatenated)   2 u16 version    4 u32 header size (payload follows it)
//!  8 u64 payload size (padded)   16 u32 compressed size   20 u32 offset of the options record (0: none)
//! 24 u16 PTX ISA minor   26 u16 PTX ISA major   28 u32 sm version (80 for sm_80)
//! 40 u64 flags (0x1 64-bit, 0x2000 LZ4, 0x8000 Zstd, 0x100000 `a` target, 0x200000 `f` target)
//! 56 u64 decompressed size
//! ```
//!
//! When the options record is there, it is `u32 offset, u32 length` of the ptxas options text,
//! both from the start of the header, and the header ends after that text and its NUL, rounded
//! up to 8 bytes.

use std::borrow::Cow;

use super::bytes::{u16_at, u32_at, u64_at};
use super::decompress::{decompress, Compression};
use super::error::BinaryError;
use crate::ir::IsaVersion;

pub const ENTRY_HEADER_BYTES: usize = 64;
const FLAG_64_BIT: u64 = 0x1;
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;
/// Code for one architecture only (`sm_90a`).
const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
/// Code for one architecture family (`sm_100f`).
const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;
/// The kind of an entry that holds several entries compressed together (`nvcc -Xfatbin -concat`).
pub const KIND_CONCATENATED: u16 = 0x100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    Ptx,
    /// An ELF cubin: SASS, machine code for one architecture.
    Elf,
    /// NVVM IR for link-time optimisation (`code=lto_80`), which ptxr does not compile.
    LtoIr,
    /// A kind ptxr does not know (newer CUDA versions add some); listed and skipped.
    Other(u16),
}

impl EntryKind {
    pub fn from_code(code: u16) -> EntryKind {
        match code {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            8 => EntryKind::LtoIr,
            other => EntryKind::Other(other),
        }
    }
}

/// The fixed fields of an entry header.
pub struct EntryHeader {
    pub kind_code: u16,
    /// The header's size in a plain entry; the payload's offset in the shared payload of a
    /// concatenated one.
    pub size_or_offset: u32,
    pub payload_bytes: u64,
    pub compressed_bytes: u64,
    pub options_record: u32,
    pub isa_version: IsaVersion,
    pub sm: u32,
    pub flags: u64,
    pub decompressed_bytes: u64,
}

impl EntryHeader {
    /// Reads the fixed fields at `start`; `offset` is where that is in the file.
    pub fn read(data: &[u8], start: usize, offset: u64) -> Result<EntryHeader, BinaryError> {
        let left = data.len().saturating_sub(start);
        if left < ENTRY_HEADER_BYTES {
            return Err(BinaryError::invalid(
                offset,
                format!("an entry header needs {ENTRY_HEADER_BYTES} bytes but the fat binary has {left} left"),
            ));
        }
        let truncated = || BinaryError::invalid(offset, "the entry header is truncated");
        let minor = u16_at(data, start + 24).ok_or_else(truncated)?;
        let major = u16_at(data, start + 26).ok_or_else(truncated)?;
        Ok(EntryHeader {
            kind_code: u16_at(data, start).ok_or_else(truncated)?,
            size_or_offset: u32_at(data, start + 4).ok_or_else(truncated)?,
            payload_bytes: u64_at(data, start + 8).ok_or_else(truncated)?,
            compressed_bytes: u32_at(data, start + 16).ok_or_else(truncated)?.into(),
            options_record: u32_at(data, start + 20).ok_or_else(truncated)?,
            isa_version: IsaVersion { major: major.into(), minor: minor.into() },
            sm: u32_at(data, start + 28).ok_or_else(truncated)?,
            flags: u64_at(data, start + 40).ok_or_else(truncated)?,
            decompressed_bytes: u64_at(data, start + 56).ok_or_else(truncated)?,
        })
    }

    pub fn compression(&self, offset: u64) -> Result<Compression, BinaryError> {
        match (self.flags & FLAG_LZ4 != 0, self.flags & FLAG_ZSTD != 0) {
            (false, false) => Ok(Compression::None),
            (true, false) => Ok(Compression::Lz4),
            (false, true) => Ok(Compression::Zstd),
            (true, true) => {
                Err(BinaryError::invalid(offset, format!("an entry's flags {:#x} claim both LZ4 and Zstd", self.flags)))
            }
        }
    }

    /// The size of the whole header, fixed fields and options record, from the record itself:
    /// what a concatenated entry's table of headers does not state.
    pub fn size_from_options(&self, data: &[u8], start: usize, offset: u64) -> Result<usize, BinaryError> {
        if self.options_record == 0 {
            return Ok(ENTRY_HEADER_BYTES);
        }
        let record = start.saturating_add(self.options_record as usize);
        let malformed = || BinaryError::invalid(offset, "an entry's options record lies outside its header table");
        let text_offset = u32_at(data, record).ok_or_else(malformed)? as u64;
        let text_bytes = u32_at(data, record.saturating_add(4)).ok_or_else(malformed)? as u64;
        let end = text_offset.saturating_add(text_bytes).saturating_add(1);
        let size = end.div_ceil(8).saturating_mul(8);
        if size < ENTRY_HEADER_BYTES as u64 || size > data.len().saturating_sub(start) as u64 {
            return Err(malformed());
        }
        Ok(size as usize)
    }

    /// Builds the entry from its payload. PTX must be UTF-8 text.
    pub fn into_entry(
        self,
        payload: Payload,
        compression: Compression,
        offset: u64,
        stored_bytes: u64,
        concatenated: bool,
    ) -> Result<Entry, BinaryError> {
        let kind = EntryKind::from_code(self.kind_code);
        // Named as cuobjdump names them: SASS built for a family (`sm_100f`) is listed under its
        // plain architecture, since it is ordinary SASS for that one.
        let suffix = if self.flags & FLAG_ARCH_SPECIFIC != 0 {
            Some('a')
        } else if self.flags & FLAG_FAMILY_SPECIFIC != 0 && kind == EntryKind::Ptx {
            Some('f')
        } else {
            None
        };
        let size = match &payload {
            Payload::Decompressed(bytes) => bytes.len() as u64,
            Payload::InFile { declared, .. } => *declared,
        };
        let entry = Entry {
            kind,
            size,
            sm: self.sm,
            arch_suffix: suffix,
            isa_version: (kind == EntryKind::Ptx).then_some(self.isa_version),
            flags: self.flags,
            compression,
            concatenated,
            offset,
            stored_bytes,
            payload,
        };
        if let (EntryKind::Ptx, Payload::Decompressed(bytes)) = (kind, &entry.payload) {
            if let Err(error) = std::str::from_utf8(until_nul(bytes)) {
                return Err(BinaryError::invalid(
                    offset,
                    format!(
                        "the PTX entry for {} is not UTF-8 text (invalid byte {} bytes into the PTX)",
                        entry.arch_name(),
                        error.valid_up_to()
                    ),
                ));
            }
        }
        Ok(entry)
    }
}

/// Where an entry's payload is: decompressed when the entry was read (PTX, and every part of a
/// concatenated entry), or still in the file (SASS, which only a listing looks into and which
/// makes up most of a large library), to be decompressed on demand by `Entry::contents`.
#[derive(Clone, Debug)]
pub enum Payload {
    Decompressed(Vec<u8>),
    InFile {
        /// File offset of the stored bytes.
        start: u64,
        stored_bytes: u64,
        /// The size once decompressed, as the header declares it.
        declared: u64,
    },
}

/// One entry of a fat binary.
#[derive(Clone, Debug)]
pub struct Entry {
    pub kind: EntryKind,
    /// The architecture number: 80 for PTX written for compute_80 or SASS for sm_80.
    pub sm: u32,
    /// `a` for code that runs on this one architecture only, `f` for one family.
    pub arch_suffix: Option<char>,
    /// The PTX ISA version of a PTX entry, from its header.
    pub isa_version: Option<IsaVersion>,
    pub flags: u64,
    pub compression: Compression,
    /// Stored in a concatenated entry, compressed together with its neighbours.
    pub concatenated: bool,
    /// Where the entry's header starts in the file (the concatenated entry's, for its parts).
    pub offset: u64,
    /// The bytes the payload takes in the file (compressed, when it is; the whole shared
    /// payload for a part of a concatenated entry).
    pub stored_bytes: u64,
    /// The payload's size once decompressed (PTX with its padding NULs).
    pub size: u64,
    pub payload: Payload,
}

impl Entry {
    /// The PTX text of a PTX entry: the payload up to its first NUL. Checked to be UTF-8 when
    /// the entry was read.
    pub fn ptx_text(&self) -> Option<&str> {
        match (self.kind, &self.payload) {
            (EntryKind::Ptx, Payload::Decompressed(bytes)) => std::str::from_utf8(until_nul(bytes)).ok(),
            _ => None,
        }
    }

    /// The decompressed payload; `file` is the whole file the entry was read from, where a
    /// payload that was left in the file is decompressed now, with the usual limits.
    pub fn contents<'e>(&'e self, file: &[u8]) -> Result<Cow<'e, [u8]>, BinaryError> {
        match &self.payload {
            Payload::Decompressed(bytes) => Ok(Cow::Borrowed(bytes)),
            Payload::InFile { start, stored_bytes, declared } => {
                let range = usize::try_from(*start).ok().zip(usize::try_from(start.saturating_add(*stored_bytes)).ok());
                let stored = range.and_then(|(first, end)| file.get(first..end)).ok_or_else(|| {
                    BinaryError::invalid(self.offset, "the entry's payload lies outside the file it was read from")
                })?;
                decompress(self.compression, stored, *declared, *start).map(Cow::Owned)
            }
        }
    }

    pub fn is_64_bit(&self) -> bool {
        self.flags & FLAG_64_BIT != 0
    }

    /// `sm_80`, `sm_90a`, `sm_100f`: the architecture as cuobjdump names it.
    pub fn arch_name(&self) -> String {
        match self.arch_suffix {
            Some(suffix) => format!("sm_{}{suffix}", self.sm),
            None => format!("sm_{}", self.sm),
        }
    }
}

fn until_nul(payload: &[u8]) -> &[u8] {
    let end = payload.iter().position(|&byte| byte == 0).unwrap_or(payload.len());
    &payload[..end]
}
