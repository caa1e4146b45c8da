//! Decompressing fat-binary entries (LZ4 blocks and Zstd frames) with fixed limits on memory.
//!
//! A hostile file may declare any size, so nothing is allocated from a declared size alone: LZ4
//! cannot expand a block more than 255 times, so a declared size beyond that bound is refused
//! before anything is allocated; Zstd is decoded as a stream that stops one byte past the
//! declared size. Every entry is at most `MAX_ENTRY_BYTES` once decompressed, and the output must
//! have exactly the declared size.

use std::io::Read;

use super::error::BinaryError;

/// The largest entry ptxr decompresses: far above any real PTX module, far below what would
/// exhaust a machine's memory.
pub const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// An LZ4 sequence of `n` bytes produces at most about `255 * n` bytes (a match length is
/// encoded in runs of 255), plus a short literal tail.
const LZ4_MAX_RATIO: u64 = 255;
const LZ4_SLACK: u64 = 64;

/// How an entry's payload is stored, from its flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Lz4,
    Zstd,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "uncompressed",
            Compression::Lz4 => "lz4",
            Compression::Zstd => "zstd",
        }
    }
}

/// Decompresses `stored` into exactly `declared` bytes. `offset` is where the stored bytes begin
/// in the file, for the error.
pub fn decompress(compression: Compression, stored: &[u8], declared: u64, offset: u64) -> Result<Vec<u8>, BinaryError> {
    if declared > MAX_ENTRY_BYTES {
        return Err(BinaryError::invalid(
            offset,
            format!(
                "an entry declares {declared} bytes once decompressed; ptxr refuses entries over {MAX_ENTRY_BYTES} bytes"
            ),
        ));
    }
    let output = match compression {
        Compression::None => return Ok(stored.to_vec()),
        Compression::Lz4 => lz4(stored, declared, offset)?,
        Compression::Zstd => zstd(stored, declared, offset)?,
    };
    if output.len() as u64 != declared {
        return Err(BinaryError::invalid(
            offset,
            format!(
                "a {} entry decompresses to {} bytes but its header declares {declared}",
                compression.name(),
                output.len()
            ),
        ));
    }
    Ok(output)
}

fn lz4(stored: &[u8], declared: u64, offset: u64) -> Result<Vec<u8>, BinaryError> {
    let bound = (stored.len() as u64).saturating_mul(LZ4_MAX_RATIO).saturating_add(LZ4_SLACK);
    if declared > bound {
        return Err(BinaryError::invalid(
            offset,
            format!(
                "an LZ4 entry of {} bytes cannot decompress to the {declared} bytes its header declares",
                stored.len()
            ),
        ));
    }
    // `declared` is at most MAX_ENTRY_BYTES here, so it fits in usize.
    let mut output = vec![0; declared as usize];
    let written = lz4_flex::block::decompress_into(stored, &mut output)
        .map_err(|error| BinaryError::invalid(offset, format!("corrupt LZ4 data: {error}")))?;
    output.truncate(written);
    Ok(output)
}

fn zstd(stored: &[u8], declared: u64, offset: u64) -> Result<Vec<u8>, BinaryError> {
    let mut source = stored;
    let decoder = ruzstd::decoding::StreamingDecoder::new(&mut source)
        .map_err(|error| BinaryError::invalid(offset, format!("corrupt Zstd data: {error}")))?;
    // Never reserve more than a small multiple of the input up front: the declared size is only
    // a claim until the data bears it out.
    let reserve = declared.min((stored.len() as u64).saturating_mul(16)) as usize;
    let mut output = Vec::with_capacity(reserve);
    decoder
        .take(declared.saturating_add(1))
        .read_to_end(&mut output)
        .map_err(|error| BinaryError::invalid(offset, format!("corrupt Zstd data: {error}")))?;
    Ok(output)
}

#[cfg(test)]
mod tests {
    use super::{decompress, Compression, MAX_ENTRY_BYTES};

    #[test]
    fn refuses_sizes_the_data_cannot_bear() {
        let error = decompress(Compression::Lz4, &[0x10, b'a'], 1 << 20, 0).err();
        assert!(error.is_some_and(|error| error.message.contains("cannot decompress")));
        let error = decompress(Compression::Zstd, &[0; 8], MAX_ENTRY_BYTES + 1, 0).err();
        assert!(error.is_some_and(|error| error.message.contains("refuses")));
    }

    #[test]
    fn lz4_literal_block_decompresses_to_its_declared_size_only() {
        // One sequence: token 0x30 (three literals, no match), then the literals.
        let block = [0x30, b'a', b'b', b'c'];
        assert_eq!(decompress(Compression::Lz4, &block, 3, 0).ok(), Some(b"abc".to_vec()));
        assert!(decompress(Compression::Lz4, &block, 4, 0).is_err());
        assert!(decompress(Compression::Lz4, &block, 2, 0).is_err());
    }
}
