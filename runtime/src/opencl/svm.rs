//! Fine-grained buffer SVM allocations, freed when dropped. Each is followed by a zeroed guard
//! zone of [`GUARD_BYTES`], as the CPU's buffers are (`crate::buffer`): a kernel that writes a
//! little past its buffer would otherwise corrupt the OpenCL runtime's heap, in the process.

use std::ffi::c_void;

use opencl3::context::Context;
use opencl3::memory::{svm_alloc, svm_free, CL_MEM_READ_WRITE, CL_MEM_SVM_FINE_GRAIN_BUFFER};

use crate::buffer::GUARD_BYTES;
use crate::error::RuntimeError;

/// One allocation that host and device address alike.
pub struct SvmBuffer<'c> {
    context: &'c Context,
    pointer: *mut c_void,
    len: usize,
}

impl<'c> SvmBuffer<'c> {
    /// `bytes` copied into a new allocation, then the zeroed guard zone.
    pub fn with_contents(context: &'c Context, name: &str, bytes: &[u8]) -> Result<SvmBuffer<'c>, RuntimeError> {
        let len = bytes.len() + GUARD_BYTES;
        // SAFETY: a plain allocation call on a live context; alignment 0 asks for the device's
        // largest data type's alignment.
        let pointer = unsafe { svm_alloc(context.get(), CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, len, 0) }
            .map_err(|code| RuntimeError::OpenCl {
                message: format!(
                    "cannot allocate {len} bytes of shared virtual memory for buffer `{name}` (error {code})"
                ),
            })?;
        if pointer.is_null() {
            return Err(RuntimeError::OpenCl {
                message: format!("the OpenCL device gave no memory for buffer `{name}` ({len} bytes)"),
            });
        }
        // SAFETY: the allocation is `len` bytes, fine-grained, so the host may write it
        // directly, and nothing else uses it yet.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), pointer.cast::<u8>(), bytes.len());
            std::ptr::write_bytes(pointer.cast::<u8>().add(bytes.len()), 0, GUARD_BYTES);
        }
        Ok(SvmBuffer { context, pointer, len })
    }

    pub fn address(&self) -> u64 {
        self.pointer as u64
    }

    pub fn pointer(&self) -> *mut c_void {
        self.pointer
    }

    /// Copies the allocation's first `out.len()` bytes out (after the kernel has finished); an
    /// `out` with the host buffer's guard zone takes what the kernel wrote past the end.
    pub fn copy_to(&self, out: &mut [u8]) {
        let count = out.len().min(self.len);
        // SAFETY: fine-grained SVM is host-readable once the device's commands have completed.
        unsafe { std::ptr::copy_nonoverlapping(self.pointer.cast::<u8>(), out.as_mut_ptr(), count) };
    }
}

impl Drop for SvmBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by svm_alloc on this context and freed once.
        unsafe {
            let _ = svm_free(self.context.get(), self.pointer);
        }
    }
}
