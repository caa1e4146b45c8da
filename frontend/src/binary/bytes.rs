//! Little-endian fields read from a byte slice with every access bounds-checked, so that a
//! truncated or hostile file gives `None` instead of a panic.

/// The `N` bytes at `at`, if the slice holds them.
fn array<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    let end = at.checked_add(N)?;
    data.get(at..end)?.try_into().ok()
}

pub fn u16_at(data: &[u8], at: usize) -> Option<u16> {
    array(data, at).map(u16::from_le_bytes)
}

pub fn u32_at(data: &[u8], at: usize) -> Option<u32> {
    array(data, at).map(u32::from_le_bytes)
}

pub fn u64_at(data: &[u8], at: usize) -> Option<u64> {
    array(data, at).map(u64::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::{u16_at, u32_at, u64_at};

    #[test]
    fn reads_little_endian_fields_inside_the_slice_only() {
        let data = [0x50, 0xed, 0x55, 0xba, 1, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(u32_at(&data, 0), Some(0xBA55_ED50));
        assert_eq!(u16_at(&data, 4), Some(1));
        assert_eq!(u64_at(&data, 4), Some(1));
        assert_eq!(u64_at(&data, 5), None);
        assert_eq!(u32_at(&data, usize::MAX - 1), None);
    }
}
