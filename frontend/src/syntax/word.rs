//! `Word`: a name from the source (an opcode, a modifier, a register) kept inside the syntax
//! tree without a heap allocation when it is short, which nearly all are.
//!
//! The tree holds several such names per instruction; as `String`s they were most of the
//! parser's allocations, and allocating and freeing them was its largest cost. A `Word` is as
//! large as a `String` (24 bytes) and reads as a `&str`.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// The longest name kept inline.
const INLINE: usize = 22;

#[derive(Clone)]
pub struct Word(Representation);

#[derive(Clone)]
enum Representation {
    /// The first `length` bytes of `bytes` are the UTF-8 text.
    Inline {
        length: u8,
        bytes: [u8; INLINE],
    },
    Heap(Box<str>),
}

impl Word {
    pub fn new(text: &str) -> Word {
        if text.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..text.len()].copy_from_slice(text.as_bytes());
            Word(Representation::Inline { length: text.len() as u8, bytes })
        } else {
            Word(Representation::Heap(text.into()))
        }
    }

    /// The word `source[start..end]`, for the parser's fast path: a short word is copied from
    /// a fixed-size window of the source (one or two vector moves) rather than by a call to
    /// `memcpy` for its exact length, which was most of the cost of making a word. The bytes
    /// after the word in the window are never read. An empty word when the range is not one of
    /// `source` on character boundaries.
    #[inline(always)]
    pub(in crate::syntax) fn from_source(source: &str, start: usize, end: usize) -> Word {
        let Some(text) = source.get(start..end) else { return Word::new("") };
        if text.len() <= INLINE {
            if let Some(window) = source.as_bytes().get(start..start + INLINE) {
                let mut bytes = [0; INLINE];
                bytes.copy_from_slice(window);
                return Word(Representation::Inline { length: text.len() as u8, bytes });
            }
        }
        Word::new(text)
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Representation::Inline { length, bytes } => {
                let text = &bytes[..*length as usize];
                // SAFETY: `new` and `from_source` copied these `length` bytes from a `&str`,
                // whole (a range on character boundaries), so they are valid UTF-8; nothing else
                // writes them.
                unsafe { std::str::from_utf8_unchecked(text) }
            }
            Representation::Heap(text) => text,
        }
    }
}

impl Deref for Word {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Word {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Word {
    fn from(text: &str) -> Word {
        Word::new(text)
    }
}

impl From<String> for Word {
    fn from(text: String) -> Word {
        Word::new(&text)
    }
}

impl From<&Word> for String {
    fn from(word: &Word) -> String {
        word.as_str().to_string()
    }
}

impl PartialEq for Word {
    fn eq(&self, other: &Word) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Word {}

impl PartialEq<str> for Word {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Word {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Word {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Word> for &str {
    fn eq(&self, other: &Word) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Word> for str {
    fn eq(&self, other: &Word) -> bool {
        self == other.as_str()
    }
}

impl Hash for Word {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl fmt::Debug for Word {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), formatter)
    }
}

impl fmt::Display for Word {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::Word;

    #[test]
    fn short_and_long_words_read_back() {
        for text in ["", "u32", "L2::cache_hint", "%r123", "a_name_of_exactly_22_b", "é", &"x".repeat(200)] {
            let word = Word::new(text);
            assert_eq!(word.as_str(), text);
            assert_eq!(word, text);
            assert_eq!(word.to_string(), text);
        }
        assert_eq!(std::mem::size_of::<Word>(), std::mem::size_of::<String>());
    }

    /// Words cut from a source read as their range, whether the window after them reaches past
    /// the end of the source, holds a long word or is not on character boundaries.
    #[test]
    fn words_from_a_source_read_as_their_range() {
        let source = format!("mov.u32 %r1, é{};", "x".repeat(40));
        for (start, end) in [(0, 3), (4, 7), (8, 11), (0, 0), (13, 15), (15, 55), (source.len() - 1, source.len())] {
            assert_eq!(Word::from_source(&source, start, end), source[start..end], "{start}..{end}");
        }
        // Not on a character boundary, reversed, or past the end: empty, not a panic.
        for (start, end) in [(13, 14), (5, 4), (0, source.len() + 1)] {
            assert_eq!(Word::from_source(&source, start, end), "");
        }
    }
}
