//! `Word`: a name from the source (an opcode, a modifier, a register) kept inside the syntax
//! tree without a heap allocation when it is short, which nearly all are.
//!
//! The tree holds several such names per instruction; as `String`s they were most of the
//! parser's allocations, and allocating and freeing them was its largest cost. A `Word` is 16
//! bytes, aligned to one byte, and reads as a `&str`: names of up to 15 bytes (97% of those in
//! the corpus: registers, labels, opcodes, modifiers) are kept inline, longer ones on the heap.
//! At 16 bytes rather than a `String`'s 24, an operand of the tree is 48 bytes rather than 64,
//! and a modifier 24 rather than 32: the parser moves each of them twice and the checker reads
//! them, so their size is much of the cost of building and dropping the tree.

use std::borrow::Borrow;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::ptr::NonNull;

/// The longest name kept inline.
const INLINE: usize = 15;

/// How the bytes of a [`Word`] are read: the length of an inline name, or `Heap`. An enum
/// rather than a `u8`, so that the values it does not use make `Option<Word>` as small as a
/// `Word`.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Form {
    Inline0,
    Inline1,
    Inline2,
    Inline3,
    Inline4,
    Inline5,
    Inline6,
    Inline7,
    Inline8,
    Inline9,
    Inline10,
    Inline11,
    Inline12,
    Inline13,
    Inline14,
    Inline15,
    /// `bytes` holds a pointer to a `Box<str>`'s text (8 bytes, unaligned) and its length (the
    /// low 7 bytes of a `u64`, little-endian): the word owns that allocation.
    Heap,
}

/// The inline form of each length up to [`INLINE`].
const INLINE_FORMS: [Form; INLINE + 1] = [
    Form::Inline0,
    Form::Inline1,
    Form::Inline2,
    Form::Inline3,
    Form::Inline4,
    Form::Inline5,
    Form::Inline6,
    Form::Inline7,
    Form::Inline8,
    Form::Inline9,
    Form::Inline10,
    Form::Inline11,
    Form::Inline12,
    Form::Inline13,
    Form::Inline14,
    Form::Inline15,
];

pub struct Word {
    form: Form,
    /// For an inline word, its text in the first `form as usize` bytes (what follows is never
    /// read); for `Form::Heap`, where its text is.
    bytes: [u8; INLINE],
}

/// Where a heap word's bytes say its text is.
const POINTER_BYTES: usize = std::mem::size_of::<*mut u8>();
const LENGTH_BYTES: usize = INLINE - POINTER_BYTES;

impl Word {
    pub fn new(text: &str) -> Word {
        match INLINE_FORMS.get(text.len()) {
            Some(&form) => {
                let mut bytes = [0; INLINE];
                bytes[..text.len()].copy_from_slice(text.as_bytes());
                Word { form, bytes }
            }
            None => Word::on_heap(text),
        }
    }

    /// A word of more than [`INLINE`] bytes: its text in an allocation of its own.
    #[cold]
    #[inline(never)]
    fn on_heap(text: &str) -> Word {
        let length = text.len() as u64;
        let owned: Box<str> = text.into();
        let pointer = Box::into_raw(owned) as *mut u8;
        let mut bytes = [0; INLINE];
        // SAFETY: `bytes` has room for a pointer at its start; the write is unaligned, as the
        // array is.
        unsafe { std::ptr::write_unaligned(bytes.as_mut_ptr().cast::<*mut u8>(), pointer) };
        // Lengths fit in 7 bytes: a `str` is at most `isize::MAX` bytes, and real ones far less.
        bytes[POINTER_BYTES..].copy_from_slice(&length.to_le_bytes()[..LENGTH_BYTES]);
        Word { form: Form::Heap, bytes }
    }

    /// The word `source[start..end]`, for the parser's fast path: a short word is copied from
    /// a fixed-size window of the source (one or two moves) rather than by a call to `memcpy`
    /// for its exact length, which was most of the cost of making a word. The bytes after the
    /// word in the window are never read. An empty word when the range is not one of `source` on
    /// character boundaries.
    #[inline(always)]
    pub(in crate::syntax) fn from_source(source: &str, start: usize, end: usize) -> Word {
        let bytes = source.as_bytes();
        // The common case checked by hand, in fewer steps than `str::get`: a short range whose
        // window lies inside the source (so that its end does too), starting and ending on
        // character boundaries (a byte that is not a UTF-8 continuation byte, or the end).
        if let (Some(&form), Some(window)) =
            (INLINE_FORMS.get(end.wrapping_sub(start)), bytes.get(start..start.wrapping_add(INLINE)))
        {
            let is_boundary = |byte: u8| (byte as i8) >= -0x40;
            if is_boundary(window[0]) && bytes.get(end).is_none_or(|&byte| is_boundary(byte)) {
                let mut inline = [0; INLINE];
                inline.copy_from_slice(window);
                return Word { form, bytes: inline };
            }
        }
        source.get(start..end).map_or_else(|| Word::new(""), Word::new)
    }

    /// For a heap word, where its text is and how long it is.
    #[inline]
    fn heap_parts(&self) -> (NonNull<u8>, usize) {
        // SAFETY: a heap word's first bytes hold the pointer `on_heap` wrote there.
        let pointer = unsafe { std::ptr::read_unaligned(self.bytes.as_ptr().cast::<*mut u8>()) };
        let mut length = [0; 8];
        length[..LENGTH_BYTES].copy_from_slice(&self.bytes[POINTER_BYTES..]);
        // `on_heap` stored the pointer of a `Box`, which is never null; a dangling one stands in
        // for the impossible null so that nothing here can fail.
        (NonNull::new(pointer).unwrap_or(NonNull::dangling()), u64::from_le_bytes(length) as usize)
    }

    pub fn as_str(&self) -> &str {
        if self.form == Form::Heap {
            let (pointer, length) = self.heap_parts();
            // SAFETY: `on_heap` stored the pointer and length of a `Box<str>` that this word owns
            // until it is dropped, so they are valid UTF-8 for as long as `self` is borrowed.
            return unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(pointer.as_ptr(), length)) };
        }
        let text = &self.bytes[..self.form as usize];
        // SAFETY: `new` and `from_source` copied these `form as usize` bytes from a `&str`,
        // whole (a range on character boundaries), so they are valid UTF-8; nothing else
        // writes them.
        unsafe { std::str::from_utf8_unchecked(text) }
    }
}

impl Drop for Word {
    fn drop(&mut self) {
        if self.form == Form::Heap {
            let (pointer, length) = self.heap_parts();
            let text = std::ptr::slice_from_raw_parts_mut(pointer.as_ptr(), length) as *mut str;
            // SAFETY: the pointer and length are those of the `Box<str>` that `on_heap` gave up
            // to this word, which owns it alone (cloning makes a new one) and frees it once.
            drop(unsafe { Box::from_raw(text) });
        }
    }
}

impl Clone for Word {
    fn clone(&self) -> Word {
        match self.form {
            Form::Heap => Word::on_heap(self.as_str()),
            form => Word { form, bytes: self.bytes },
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
        for text in ["", "u32", "L2::cache_hint", "%r123", "exactly_15_byte", "exactly_16_bytes", "é", &"x".repeat(200)]
        {
            let word = Word::new(text);
            assert_eq!(word.as_str(), text);
            assert_eq!(word, text);
            assert_eq!(word.to_string(), text);
            let copy = word.clone();
            drop(word);
            assert_eq!(copy.as_str(), text);
        }
        assert_eq!(std::mem::size_of::<Word>(), 16);
        assert_eq!(std::mem::size_of::<Option<Word>>(), 16);
    }

    /// Words cut from a source read as their range, whether the window after them reaches past
    /// the end of the source, holds a long word or is not on character boundaries.
    #[test]
    fn words_from_a_source_read_as_their_range() {
        let source = format!("mov.u32 %r1, é{};", "x".repeat(40));
        for (start, end) in
            [(0, 3), (4, 7), (8, 11), (0, 0), (13, 15), (15, 30), (15, 31), (15, 55), (source.len() - 1, source.len())]
        {
            assert_eq!(Word::from_source(&source, start, end), source[start..end], "{start}..{end}");
        }
        // Not on a character boundary, reversed, or past the end: empty, not a panic.
        for (start, end) in [(13, 14), (14, 16), (14, 20), (5, 4), (0, source.len() + 1)] {
            assert_eq!(Word::from_source(&source, start, end), "");
        }
    }
}
