//! Finding OpenCL devices and choosing one for `--device`.

use opencl3::device::{Device, CL_DEVICE_SVM_FINE_GRAIN_BUFFER, CL_DEVICE_SVM_FINE_GRAIN_SYSTEM, CL_DEVICE_TYPE_ALL};
use opencl3::error_codes::{ClError, CL_DEVICE_NOT_FOUND, CL_PLATFORM_NOT_FOUND_KHR, DLOPEN_RUNTIME_LOAD_FAILED};
use opencl3::platform::get_platforms;
use opencl3::types::cl_device_id;

use crate::error::RuntimeError;

/// What ptxr tells users about a device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceDescription {
    /// The position in [`list_devices`]: what `--device N` names.
    pub index: usize,
    pub platform: String,
    pub name: String,
    /// The OpenCL version string of the device (`OpenCL 3.0 ...`).
    pub version: String,
    /// Whether the device has fine-grained buffer SVM, which ptxr needs.
    pub fine_grained_svm: bool,
    /// Whether the device has fine-grained system SVM (any host address is a device address),
    /// which `.address_size 32` kernels need: their buffers must lie below 4 GiB.
    pub system_svm: bool,
}

/// A device chosen for a launch.
pub struct SelectedDevice {
    pub(crate) id: cl_device_id,
    pub description: DeviceDescription,
}

/// Where to get an OpenCL runtime when there is none: said with every "not found" error.
const INSTALL_HELP: &str = "ptxr needs an OpenCL runtime that accepts SPIR-V: on Debian, `apt-get install \
     ocl-icd-libopencl1` and a platform such as Intel's CPU runtime (`bash scripts/setup-opencl.sh` \
     installs it into .cache/ and prints the OCL_ICD_VENDORS folder to export)";

fn opencl_error(what: &str, error: ClError) -> RuntimeError {
    if error.0 == DLOPEN_RUNTIME_LOAD_FAILED {
        return RuntimeError::OpenCl {
            message: format!("cannot load the OpenCL library (libOpenCL.so); {INSTALL_HELP}"),
        };
    }
    if error.0 == CL_PLATFORM_NOT_FOUND_KHR {
        return RuntimeError::OpenCl { message: format!("no OpenCL platform is installed; {INSTALL_HELP}") };
    }
    RuntimeError::OpenCl { message: format!("{what}: {error}") }
}

/// Every device of every platform, in platform order.
fn devices() -> Result<Vec<(cl_device_id, DeviceDescription)>, RuntimeError> {
    let platforms = get_platforms().map_err(|error| opencl_error("cannot list the OpenCL platforms", error))?;
    let mut found = Vec::new();
    for platform in platforms {
        let platform_name = platform.name().unwrap_or_else(|_| "an unnamed platform".to_string());
        let ids = match platform.get_devices(CL_DEVICE_TYPE_ALL) {
            Ok(ids) => ids,
            // A platform with no device of any type is not an error for the others.
            Err(error) if error.0 == CL_DEVICE_NOT_FOUND => continue,
            Err(error) => return Err(opencl_error(&format!("cannot list the devices of {platform_name}"), error)),
        };
        for id in ids {
            let device = Device::new(id);
            let capabilities = device.svm_capabilities().unwrap_or(0);
            let fine_grained_svm = capabilities & CL_DEVICE_SVM_FINE_GRAIN_BUFFER != 0;
            let system_svm = capabilities & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM != 0;
            let description = DeviceDescription {
                index: found.len(),
                platform: platform_name.clone(),
                name: device.name().unwrap_or_default().trim().to_string(),
                version: device.version().unwrap_or_default().trim().to_string(),
                fine_grained_svm,
                system_svm,
            };
            found.push((id, description));
        }
    }
    Ok(found)
}

/// The OpenCL devices of this machine (an empty list when there is a loader but no platform).
pub fn list_devices() -> Result<Vec<DeviceDescription>, RuntimeError> {
    Ok(devices()?.into_iter().map(|(_, description)| description).collect())
}

/// The device `selector` names: an index into [`list_devices`], or a case-insensitive part of a
/// device's or platform's name. Without a selector, the first device that has fine-grained
/// buffer SVM.
pub fn select_device(selector: Option<&str>) -> Result<SelectedDevice, RuntimeError> {
    let devices = devices()?;
    if devices.is_empty() {
        return Err(RuntimeError::OpenCl { message: format!("no OpenCL device found; {INSTALL_HELP}") });
    }
    let listing = || {
        devices
            .iter()
            .map(|(_, device)| format!("  {}: {} ({}, {})", device.index, device.name, device.platform, device.version))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let chosen = match selector {
        None => devices.iter().find(|(_, device)| device.fine_grained_svm).or(devices.first()),
        Some(text) => match text.parse::<usize>() {
            Ok(index) => devices.get(index),
            Err(_) => {
                let wanted = text.to_lowercase();
                devices.iter().find(|(_, device)| {
                    device.name.to_lowercase().contains(&wanted) || device.platform.to_lowercase().contains(&wanted)
                })
            }
        },
    };
    let Some((id, description)) = chosen else {
        return Err(RuntimeError::OpenCl {
            message: format!(
                "no OpenCL device matches `{}`; the devices are:\n{}",
                selector.unwrap_or_default(),
                listing()
            ),
        });
    };
    if !description.fine_grained_svm {
        return Err(RuntimeError::OpenCl {
            message: format!(
                "OpenCL device {} ({}) has no fine-grained buffer SVM, which ptxr needs to pass PTX's \
                 64-bit buffer addresses; the devices are:\n{}",
                description.index,
                description.name,
                listing()
            ),
        });
    }
    Ok(SelectedDevice { id: *id, description: description.clone() })
}
