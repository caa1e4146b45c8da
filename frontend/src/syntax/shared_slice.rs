//! `SharedSlice`: an instruction's modifiers or operands, kept as a range of one buffer that the
//! instructions of a block share.
//!
//! As a `Vec` per list, every instruction of the tree cost two heap allocations, and freeing them
//! again when the tree was dropped: together the largest cost of parsing once the text was read.
//! The parser's fast path collects the lists of a whole block and moves them into one buffer per
//! kind at the block's end; each instruction keeps a reference-counted handle on it and its
//! range. A `SharedSlice` is as large as a `Vec` (24 bytes) and reads as a slice.
//!
//! The count is an `Rc`'s, not an `Arc`'s: a syntax tree is built, checked and dropped on one
//! thread, and the atomic increments and decrements of an `Arc` (two of each per instruction)
//! cost more time than their instruction count suggests.

use std::fmt;
use std::ops::{Deref, Range};
use std::rc::Rc;

pub struct SharedSlice<T> {
    /// `None` for an empty list, which holds no buffer.
    buffer: Option<Rc<[T]>>,
    start: u32,
    length: u32,
}

impl<T> SharedSlice<T> {
    /// The empty list.
    pub fn new() -> SharedSlice<T> {
        SharedSlice { buffer: None, start: 0, length: 0 }
    }

    /// The elements at `range` of `buffer` (a buffer of at most `u32::MAX` elements); an empty
    /// range holds no reference to the buffer.
    pub(in crate::syntax) fn part_of(buffer: &Rc<[T]>, range: Range<usize>) -> SharedSlice<T> {
        if range.is_empty() {
            return SharedSlice::new();
        }
        let (Ok(start), Ok(length)) = (u32::try_from(range.start), u32::try_from(range.len())) else {
            return SharedSlice::new();
        };
        SharedSlice { buffer: Some(Rc::clone(buffer)), start, length }
    }

    /// A list that will be the elements at `range` of a buffer not built yet (read as empty until
    /// [`SharedSlice::attach`] gives it one): the parser's fast path builds each instruction in
    /// its place in the block's statement list while the block's operands are still being read.
    pub(in crate::syntax) fn detached(range: Range<usize>) -> SharedSlice<T> {
        let (Ok(start), Ok(length)) = (u32::try_from(range.start), u32::try_from(range.len())) else {
            return SharedSlice::new();
        };
        SharedSlice { buffer: None, start, length }
    }

    /// Gives a [`SharedSlice::detached`] list its buffer, which starts at element `first` of the
    /// numbering its range was given in. A list that has a buffer already (one the combinator
    /// parser built) or is empty is left as it is.
    pub(in crate::syntax) fn attach(&mut self, buffer: &Rc<[T]>, first: usize) {
        if self.buffer.is_some() {
            return;
        }
        if self.length == 0 {
            self.start = 0;
            return;
        }
        match u32::try_from(first).ok().and_then(|first| self.start.checked_sub(first)) {
            Some(start) => {
                self.start = start;
                self.buffer = Some(Rc::clone(buffer));
            }
            None => *self = SharedSlice::new(),
        }
    }

    pub fn as_slice(&self) -> &[T] {
        match &self.buffer {
            Some(buffer) => {
                let start = self.start as usize;
                buffer.get(start..start + self.length as usize).unwrap_or_default()
            }
            None => &[],
        }
    }
}

/// Moves the elements of `list` from `from` on into a new buffer of exactly their number, with
/// one bulk copy; `list` keeps the elements before `from`. The parser's fast path moves each
/// block's modifiers and operands so: collecting them through `Vec::drain` moved them one at a
/// time, each through an `Option`, and that was most of the cost of ending a block.
pub(in crate::syntax) fn take_tail<T>(list: &mut Vec<T>, from: usize) -> Rc<[T]> {
    let from = from.min(list.len());
    let count = list.len() - from;
    let mut buffer = Rc::<[T]>::new_uninit_slice(count);
    // A buffer just allocated has no other reference; the element-wise move is a fallback that
    // never runs.
    let Some(target) = Rc::get_mut(&mut buffer) else {
        return list.drain(from..).collect();
    };
    // SAFETY: `from + count` is `list.len()`, so the source is `count` initialized elements of
    // `list`, and `target` is `count` uninitialized ones of a separate allocation. The length
    // is cut before the buffer is read, so each element moved is owned by the buffer alone.
    unsafe {
        std::ptr::copy_nonoverlapping(list.as_ptr().add(from), target.as_mut_ptr().cast::<T>(), count);
        list.set_len(from);
        buffer.assume_init()
    }
}

impl<T> Default for SharedSlice<T> {
    fn default() -> SharedSlice<T> {
        SharedSlice::new()
    }
}

impl<T> Deref for SharedSlice<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

/// A list of its own (one allocation, as the `Vec` was): for the lists that the combinator
/// parser builds.
impl<T> From<Vec<T>> for SharedSlice<T> {
    fn from(list: Vec<T>) -> SharedSlice<T> {
        if list.is_empty() {
            return SharedSlice::new();
        }
        let length = list.len();
        SharedSlice::part_of(&Rc::from(list), 0..length)
    }
}

impl<T> Clone for SharedSlice<T> {
    fn clone(&self) -> SharedSlice<T> {
        SharedSlice { buffer: self.buffer.clone(), start: self.start, length: self.length }
    }
}

impl<T: PartialEq> PartialEq for SharedSlice<T> {
    fn eq(&self, other: &SharedSlice<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

/// Printed as a list, as the `Vec` it replaces was.
impl<T: fmt::Debug> fmt::Debug for SharedSlice<T> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), formatter)
    }
}

impl<'a, T> IntoIterator for &'a SharedSlice<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> std::slice::Iter<'a, T> {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_of_one_buffer_read_as_their_ranges() {
        let buffer: Rc<[u32]> = Rc::from(vec![1, 2, 3, 4, 5]);
        let first = SharedSlice::part_of(&buffer, 0..2);
        let second = SharedSlice::part_of(&buffer, 2..5);
        let empty = SharedSlice::part_of(&buffer, 5..5);
        assert_eq!(*first, [1, 2]);
        assert_eq!(*second, [3, 4, 5]);
        assert!(empty.is_empty());
        // The empty part holds no reference: the buffer is shared by the two others only.
        assert_eq!(Rc::strong_count(&buffer), 3);
        assert_eq!(second, SharedSlice::from(vec![3, 4, 5]));
        assert_eq!(format!("{second:?}"), format!("{:?}", vec![3, 4, 5]));
        assert_eq!(std::mem::size_of::<SharedSlice<u64>>(), std::mem::size_of::<Vec<u64>>());
    }

    /// Detached lists read as empty until attached, then as their range of the buffer, renumbered
    /// from the buffer's first element; lists that have a buffer, or are empty, stay as they are.
    #[test]
    fn detached_parts_read_as_their_range_once_attached() {
        let buffer: Rc<[u32]> = Rc::from(vec![10, 11, 12, 13]);
        let mut detached = SharedSlice::detached(7..9);
        assert!(detached.is_empty());
        detached.attach(&buffer, 5);
        assert_eq!(*detached, [12, 13]);
        let mut empty = SharedSlice::<u32>::detached(8..8);
        empty.attach(&buffer, 5);
        assert!(empty.is_empty());
        let mut own = SharedSlice::from(vec![1, 2]);
        own.attach(&buffer, 0);
        assert_eq!(*own, [1, 2]);
        // A range before the buffer's first element is a broken one: empty, not a panic.
        let mut before = SharedSlice::detached(1..3);
        before.attach(&buffer, 5);
        assert!(before.is_empty());
        assert_eq!(Rc::strong_count(&buffer), 2);
    }

    /// The tail moves into the buffer in order, once (a counted drop shows no element is dropped
    /// twice or left behind), and the list keeps its head; a tail from past the end is empty.
    #[test]
    fn a_taken_tail_moves_each_element_once() {
        let drops = std::rc::Rc::new(std::cell::Cell::new(0));
        struct Counted(u32, std::rc::Rc<std::cell::Cell<u32>>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.1.set(self.1.get() + 1);
            }
        }
        let mut list: Vec<Counted> = (0..5).map(|value| Counted(value, drops.clone())).collect();
        let tail = take_tail(&mut list, 2);
        assert_eq!(tail.iter().map(|counted| counted.0).collect::<Vec<_>>(), [2, 3, 4]);
        assert_eq!(list.iter().map(|counted| counted.0).collect::<Vec<_>>(), [0, 1]);
        assert_eq!(drops.get(), 0);
        drop(tail);
        assert_eq!(drops.get(), 3);
        assert!(take_tail(&mut list, 7).is_empty());
        assert_eq!(list.len(), 2);
        drop(list);
        assert_eq!(drops.get(), 5);
    }
}
