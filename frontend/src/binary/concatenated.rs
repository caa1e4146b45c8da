//! Concatenated entries (`nvcc -Xfatbin -concat`, CUDA 13): several entries whose payloads are
//! compressed together as one. The outer header (kind 0x100) is followed by a table:
//!
//! ```text
//! 64 u32 number of entries   68 u32 size of the table from offset 64 (these 8 bytes included)
//! 72 one entry header after another, each with its own options record; in them, field 4 is
//!    the payload's offset in the shared decompressed payload and field 8 its size
//! ```
//!
//! The table does not state each header's size; it follows from the options record
//! (`EntryHeader::size_from_options`), and the headers must fill the table exactly.

use super::decompress::Compression;
use super::entry::{Entry, EntryHeader, Payload, ENTRY_HEADER_BYTES};
use super::error::BinaryError;

/// Splits a concatenated entry whose header is `header` (the outer header and its table) and
/// whose shared payload, decompressed, is `shared`. `offset` is where the header is in the file.
pub fn split(
    header: &[u8],
    shared: &[u8],
    compression: Compression,
    offset: u64,
    stored_bytes: u64,
) -> Result<Vec<Entry>, BinaryError> {
    let table_error = |message: String| BinaryError::invalid(offset, format!("a concatenated entry's table {message}"));
    let count =
        super::bytes::u32_at(header, ENTRY_HEADER_BYTES).ok_or_else(|| table_error("is missing".to_string()))? as usize;
    let table_bytes = super::bytes::u32_at(header, ENTRY_HEADER_BYTES + 4)
        .ok_or_else(|| table_error("is missing".to_string()))? as usize;
    let table_end = ENTRY_HEADER_BYTES.saturating_add(table_bytes);
    if table_bytes < 8 || table_end > header.len() {
        return Err(table_error(format!("declares {table_bytes} bytes in a header of {} bytes", header.len())));
    }
    // Every header takes at least 64 bytes, which bounds the count before anything is allocated.
    if count > (table_bytes - 8) / ENTRY_HEADER_BYTES {
        return Err(table_error(format!("declares {count} entries in {table_bytes} bytes")));
    }
    let table = &header[..table_end];
    let mut entries = Vec::with_capacity(count);
    let mut at = ENTRY_HEADER_BYTES + 8;
    for _ in 0..count {
        let part = EntryHeader::read(table, at, offset)?;
        let size = part.size_from_options(table, at, offset)?;
        let start = part.size_or_offset as usize;
        let end = (start as u64).saturating_add(part.payload_bytes);
        if end > shared.len() as u64 {
            return Err(BinaryError::invalid(
                offset,
                format!(
                    "a concatenated entry's part claims bytes {start} to {end} of a payload of {} bytes",
                    shared.len()
                ),
            ));
        }
        let payload = Payload::Decompressed(shared[start..end as usize].to_vec());
        entries.push(part.into_entry(payload, compression, offset, stored_bytes, true)?);
        at += size;
    }
    if at != table_end {
        return Err(table_error(format!(
            "has {table_bytes} bytes but its {count} headers take {}",
            at - ENTRY_HEADER_BYTES
        )));
    }
    Ok(entries)
}
