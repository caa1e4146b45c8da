//! `ptxr devices`: the OpenCL devices that `ptxr run --target spirv` can use, one a line:
//! `INDEX: NAME (PLATFORM, VERSION)`, with a note on those that lack what ptxr needs.

use super::or_exit;
use crate::report::ErrorFormat;

pub fn devices(format: ErrorFormat) -> i32 {
    let listed = ptxr_runtime::opencl::list_devices().map_err(|error| error.to_string());
    let Ok(devices) = or_exit(listed, format) else {
        return 1;
    };
    if devices.is_empty() {
        println!("no OpenCL devices (an OpenCL loader is installed, but no platform; see scripts/setup-opencl.sh)");
    }
    for device in devices {
        let note = if device.fine_grained_svm { "" } else { " [no fine-grained buffer SVM: unusable by ptxr]" };
        println!("{}: {} ({}, {}){note}", device.index, device.name, device.platform, device.version);
    }
    0
}
