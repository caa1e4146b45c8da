//! Running a launch on an OpenCL device: `ptxr run --target spirv`. The driver compiles the
//! kernel to a SPIR-V module; here it is loaded with `clCreateProgramWithIL` on the chosen
//! device and launched as the launch spec says, and the result is the same [`LaunchReport`]
//! the CPU runtime gives, so the JSON output is identical.
//!
//! PTX kernels take their buffers as 64-bit addresses (`.param .u64`), which the SPIR-V module
//! turns into pointers. OpenCL's fine-grained buffer shared virtual memory (SVM, OpenCL 2.0)
//! gives allocations whose host address is the device address, so the buffers are SVM
//! allocations and each address parameter carries the allocation's address, exactly as on the
//! CPU. Devices without fine-grained buffer SVM are refused with a message saying so.
//!
//! The OpenCL library is loaded when first used (`opencl3`'s dynamic loading), so ptxr builds
//! and runs without one; a machine without an ICD loader or without any platform gets an error
//! that says what to install.
//!
//! [`LaunchReport`]: crate::LaunchReport

mod device;
mod launch;
mod svm;

pub use device::{list_devices, select_device, DeviceDescription, SelectedDevice};
