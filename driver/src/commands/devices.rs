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
        let note = match (device.fine_grained_svm, device.system_svm) {
            (false, _) => " [no fine-grained buffer SVM: unusable by ptxr]",
            (true, false) => " [no fine-grained system SVM: no .address_size 32 kernels]",
            (true, true) => "",
        };
        println!("{}: {} ({}, {}){note}", device.index, device.name, device.platform, device.version);
    }
    0
}
