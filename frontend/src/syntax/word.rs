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

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Representation::Inline { length, bytes } => {
                let text = &bytes[..*length as usize];
                // SAFETY: `new` copied exactly these bytes from a `&str`, whole, so they are
                // valid UTF-8; nothing else writes them.
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
}
