//! The end of a run of name bytes, or of a line, found eight bytes at a time.
//!
//! Names are most of PTX's bytes, in short runs: a name's bytes after its first are three on
//! average (`%r14`, `.u32`, `mov`). Read a byte at a time, each run costs a table lookup and a
//! branch per byte and, at its end, a branch the processor cannot predict (is this run two bytes
//! long, or three?). Here eight bytes are loaded as one `u64`, every byte is classified at once
//! by arithmetic on the word ("SWAR", SIMD within a register), and the run's length is the count
//! of its leading name bytes: no branch that depends on the length, for any run shorter than
//! eight bytes. That runs more instructions (about 35 per name, against 4 or 5 per byte) and
//! takes less time. Whitespace read the same way took more time: its runs are one or two bytes,
//! and the byte loop's branches over them are well predicted.
//!
//! The classification works on each byte's low seven bits, so that no sum carries into the
//! next byte: for a byte `v` below 0x80 and a bound `c` up to 0x80, `v + (0x80 - c)` is at most
//! 0xFF and has its high bit set exactly when `v >= c`. Bytes with their high bit set (UTF-8
//! beyond ASCII) are never name bytes, and are masked out at the end.

/// A byte of 0x01 in each of the eight lanes.
const ONES: u64 = 0x0101_0101_0101_0101;
/// The high bit of each lane.
const HIGH: u64 = ONES * 0x80;

/// Per lane of `low7` (each lane below 0x80): the high bit is set where the lane is at least
/// `bound`. The other bits of each lane are left as they fall; callers keep only [`HIGH`].
#[inline(always)]
const fn at_least(low7: u64, bound: u8) -> u64 {
    low7 + ONES * (0x80 - bound as u64)
}

/// Per lane of `low7`: the high bit set where `low` <= lane <= `high`.
#[inline(always)]
const fn within(low7: u64, low: u8, high: u8) -> u64 {
    at_least(low7, low) & !at_least(low7, high + 1)
}

/// The high bit of each lane of `word` (eight bytes of source, the first in the lowest lane) set
/// where the byte may continue a name: `[a-zA-Z0-9_$]`, as `is_identifier_continue` says.
#[inline(always)]
const fn name_bytes(word: u64) -> u64 {
    let low7 = word & !HIGH;
    // Setting bit 5 folds `A-Z` onto `a-z` and moves no other byte into `a-z`: the bytes that
    // become 0x61..=0x7A are exactly 0x41..=0x5A and 0x61..=0x7A.
    let letters = within(low7 | (ONES * 0x20), b'a', b'z');
    let digits = within(low7, b'0', b'9');
    let underscores = within(low7, b'_', b'_');
    let dollars = within(low7, b'$', b'$');
    (letters | digits | underscores | dollars) & !word & HIGH
}

/// How many of the lanes, from the lowest, have their high bit set in `mask` before the first
/// that has not: 0 to 8.
#[inline(always)]
const fn leading_lanes(mask: u64) -> usize {
    ((!mask & HIGH).trailing_zeros() / 8) as usize
}

/// The eight bytes from `at` as one little-endian word, or `None` within eight bytes of the end.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    // `first_chunk` tests the length once; `get(at..at + 8)` also tested `at + 8` for overflow.
    bytes.get(at..)?.first_chunk::<8>().map(|chunk| u64::from_le_bytes(*chunk))
}

/// The offset of the first line feed at or after `from`, or `None`: the end of a `//` comment.
/// Comments are a line in eight of nvcc's output, some 36 bytes each; eight bytes at a time,
/// finding their ends takes a fifth of the instructions of a byte loop.
#[inline(always)]
pub(super) fn find_line_feed(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(word) = word_at(bytes, at) {
        // A lane is zero where the byte is a line feed. Subtracting one from every lane sets
        // the high bit of each zero lane (and, by the borrow, perhaps of lanes above it, but never
        // below): the lowest lane so marked is the first line feed.
        let feeds = word ^ (ONES * u64::from(b'\n'));
        let zeros = feeds.wrapping_sub(ONES) & !feeds & HIGH;
        if zeros != 0 {
            return Some(at + (zeros.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    bytes.get(at..)?.iter().position(|&byte| byte == b'\n').map(|offset| at + offset)
}

/// The offset of the first byte from `from` on that is neither a name byte (by `name_bytes`)
/// nor, when eight bytes are no longer left, by `is_name_byte`; or the end of `bytes`.
#[inline(always)]
pub(super) fn end_of_name(bytes: &[u8], from: usize, is_name_byte: impl Fn(u8) -> bool) -> usize {
    end_of_run(bytes, from, name_bytes, is_name_byte)
}

/// The run of bytes that `lanes` marks, eight at a time while eight are left, then the tail a
/// byte at a time by `one`, which must agree with `lanes`.
#[inline(always)]
fn end_of_run(bytes: &[u8], from: usize, lanes: impl Fn(u64) -> u64, one: impl Fn(u8) -> bool) -> usize {
    let mut at = from;
    while let Some(word) = word_at(bytes, at) {
        let run = leading_lanes(lanes(word));
        at += run;
        if run < 8 {
            return at;
        }
    }
    while let Some(&byte) = bytes.get(at) {
        if !one(byte) {
            break;
        }
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane_bits(mask: u64) -> [bool; 8] {
        std::array::from_fn(|lane| mask >> (lane * 8 + 7) & 1 == 1)
    }

    /// Every byte value, in every lane, beside every kind of neighbour: the word's
    /// classification agrees with the byte-at-a-time definition.
    #[test]
    fn every_byte_in_every_lane_is_classified_as_one_at_a_time() {
        let is_name = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$';
        for byte in 0..=255u8 {
            for neighbour in [0u8, b' ', b'a', b'Z', b'9', 0x7F, 0x80, 0xFF, b'_', b'.'] {
                for lane in 0..8 {
                    let mut lanes = [neighbour; 8];
                    lanes[lane] = byte;
                    let word = u64::from_le_bytes(lanes);
                    let names = lane_bits(name_bytes(word));
                    for (index, &value) in lanes.iter().enumerate() {
                        assert_eq!(names[index], is_name(value), "name byte {value:#04x} in lane {index}");
                    }
                }
            }
        }
    }

    /// A line feed in every lane of the first word, in the tail, after other line feeds' lane
    /// neighbours (`\x0b`, `\x09` differ from it by one bit), after multi-byte characters,
    /// and none at all.
    #[test]
    fn line_feeds_are_found_in_words_and_tails() {
        for length in 0..20 {
            for filler in [b'x', 0x0B, 0x09, 0x8A, 0xFF] {
                let mut text = vec![filler; length];
                text.push(b'\n');
                text.extend_from_slice(b"\nabc\n");
                assert_eq!(find_line_feed(&text, 0), Some(length), "{text:?}");
                text.truncate(length);
                assert_eq!(find_line_feed(&text, 0), None, "{text:?}");
            }
        }
        assert_eq!(find_line_feed(b"ab\ncd", 3), None);
        assert_eq!(find_line_feed(b"ab\ncd", 6), None);
        assert_eq!(find_line_feed(b"ab\ncd", 7), None);
    }

    #[test]
    fn runs_end_at_the_first_other_byte_or_the_input() {
        let is_name = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$';
        // Shorter than a word, exactly a word, a word and a tail, two words.
        assert_eq!(end_of_name(b"r14", 0, is_name), 3);
        assert_eq!(end_of_name(b"abcdefgh", 0, is_name), 8);
        assert_eq!(end_of_name(b"abcdefghij", 0, is_name), 10);
        assert_eq!(end_of_name(b"abcdefghijklmnop", 0, is_name), 16);
        // Ending inside the first word, at its last lane, inside the tail.
        assert_eq!(end_of_name(b"%r14, %r15;", 1, is_name), 4);
        assert_eq!(end_of_name(b"abcdefg.xyzwvuts", 0, is_name), 7);
        assert_eq!(end_of_name(b"abcdefghi.", 0, is_name), 9);
        // At a multi-byte UTF-8 character, in the word and in the tail.
        assert_eq!(end_of_name("ab\u{e9}cdefghijk".as_bytes(), 0, is_name), 2);
        assert_eq!(end_of_name("abcdefghi\u{e9}".as_bytes(), 0, is_name), 9);
    }
}
