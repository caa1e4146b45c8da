//! `NameMap`: the hash map the checker keys by names (registers, labels, functions, globals).
//!
//! Every operand of every instruction is looked up by name, and the standard SipHash (made to
//! resist hash flooding from untrusted keys) was a tenth of the checker's time. FxHash's mixing
//! step, a word at a time, is several times faster on short names; a flood of colliding names
//! can only slow down one compile.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map from names to `V`, hashed with [`NameHasher`].
pub type NameMap<K, V> = HashMap<K, V, BuildHasherDefault<NameHasher>>;

#[derive(Default)]
pub struct NameHasher(u64);

/// FxHash's multiplier.
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl NameHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for NameHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.mix(u64::from_le_bytes(word));
        }
        let mut tail = [0; 8];
        let rest = chunks.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        self.mix(u64::from_le_bytes(tail) ^ bytes.len() as u64);
    }

    /// `str`'s `Hash` ends every name with a `0xff` byte (so that `("a", "b")` and `("ab", "")`
    /// differ); one multiply is enough for it.
    #[inline]
    fn write_u8(&mut self, byte: u8) {
        self.mix(u64::from(byte));
    }

    /// A key that is a number (gating's opcodes by their [`short_key`]) is one word: mixed
    /// once, rather than through `write`'s loop over its eight bytes.
    #[inline]
    fn write_u64(&mut self, word: u64) {
        self.mix(word);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A name of up to 7 bytes as one number (its bytes and its length), so that comparing two such
/// names is one comparison rather than a call to `memcmp`; `None` for a longer name.
/// A `const fn`, so that names known in advance (opcodes) can be `match` patterns. One arm per
/// length, whose bytes are read at known places: a loop over the bytes, or `copy_from_slice`
/// (a call to `memcpy` for a length not known here), cost several times as much, and every
/// operand and opcode is keyed so.
pub const fn short_key(name: &str) -> Option<u64> {
    let bytes = name.as_bytes();
    let key = match *bytes {
        [] => 0,
        [a] => a as u64,
        [a, b] => u64::from_le_bytes([a, b, 0, 0, 0, 0, 0, 0]),
        [a, b, c] => u64::from_le_bytes([a, b, c, 0, 0, 0, 0, 0]),
        [a, b, c, d] => u64::from_le_bytes([a, b, c, d, 0, 0, 0, 0]),
        [a, b, c, d, e] => u64::from_le_bytes([a, b, c, d, e, 0, 0, 0]),
        [a, b, c, d, e, f] => u64::from_le_bytes([a, b, c, d, e, f, 0, 0]),
        [a, b, c, d, e, f, g] => u64::from_le_bytes([a, b, c, d, e, f, g, 0]),
        _ => return None,
    };
    Some(key | (bytes.len() as u64) << 56)
}

#[cfg(test)]
mod tests {
    use super::{short_key, NameMap};

    #[test]
    fn short_keys_tell_names_apart() {
        let names = ["", "a", "a\0", "ab", "ba", "%r", "%rd", "rn", "global", "seven_b"];
        for first in names {
            for second in names {
                assert_eq!(short_key(first) == short_key(second), first == second, "{first:?} {second:?}");
            }
        }
        assert_eq!(short_key("8_bytes_"), None);
    }

    #[test]
    fn names_of_every_length_are_found() {
        let names: Vec<String> = (0..200).map(|length| format!("%r{}", "x".repeat(length))).collect();
        let map: NameMap<&str, usize> = names.iter().enumerate().map(|(index, name)| (name.as_str(), index)).collect();
        for (index, name) in names.iter().enumerate() {
            assert_eq!(map.get(name.as_str()), Some(&index));
        }
        assert_eq!(map.get("%q"), None);
    }
}
