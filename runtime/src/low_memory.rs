//! Memory below 2 GiB for the sections of a JIT-compiled `.address_size 32` module, so that the
//! addresses of its `.global` and `.const` variables fit the module's 32-bit addresses, as the
//! launch's buffers do (`buffer::Placement::Below4GiB`).

/// One mapping per section, unmapped when the allocator is dropped.
#[derive(Debug, Default)]
pub struct LowSections {
    mappings: Vec<Mapping>,
}

#[derive(Debug)]
struct Mapping {
    address: *mut u8,
    len: usize,
    code: bool,
}

// SAFETY: the mappings are owned by the allocator alone; nothing else frees them.
unsafe impl Send for LowSections {}

impl LowSections {
    pub fn new() -> LowSections {
        LowSections::default()
    }

    /// A zeroed, page-aligned, writable block of at least `size` bytes below 4 GiB, or null.
    /// Alignments above a page are not needed by LLVM's sections and are refused (null).
    pub fn allocate(&mut self, size: usize, alignment: u32, code: bool) -> *mut u8 {
        if alignment as usize > 4096 {
            return std::ptr::null_mut();
        }
        match map_low(size.max(1)) {
            Some(address) => {
                self.mappings.push(Mapping { address, len: size.max(1), code });
                address
            }
            None => std::ptr::null_mut(),
        }
    }

    /// Makes code sections executable (and no longer writable), once LLVM has written them.
    pub fn finalize(&mut self) -> Result<(), String> {
        for mapping in self.mappings.iter().filter(|mapping| mapping.code) {
            // SAFETY: the range is one of our own mappings.
            let result =
                unsafe { libc::mprotect(mapping.address.cast(), mapping.len, libc::PROT_READ | libc::PROT_EXEC) };
            if result != 0 {
                return Err(format!("mprotect failed: {}", std::io::Error::last_os_error()));
            }
        }
        Ok(())
    }

    /// Unmaps every section.
    pub fn release(&mut self) {
        for mapping in self.mappings.drain(..) {
            // SAFETY: each mapping was made by `map_low` with this length and is unmapped once.
            unsafe { libc::munmap(mapping.address.cast(), mapping.len) };
        }
    }
}

impl Drop for LowSections {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn map_low(len: usize) -> Option<*mut u8> {
    let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_32BIT;
    // SAFETY: an anonymous private mapping touches no existing memory (no MAP_FIXED).
    let address = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) };
    if address == libc::MAP_FAILED {
        return None;
    }
    if address as usize + len > 1 << 32 {
        // SAFETY: the mapping made just above.
        unsafe { libc::munmap(address, len) };
        return None;
    }
    Some(address.cast())
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn map_low(_len: usize) -> Option<*mut u8> {
    None
}

#[cfg(test)]
mod tests {
    use super::LowSections;

    #[test]
    fn sections_lie_below_4_gib() {
        let mut sections = LowSections::new();
        let data = sections.allocate(100, 16, false);
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            assert!(!data.is_null());
            assert!((data as usize) + 100 <= 1 << 32);
        }
        sections.release();
    }
}
