//! LLVM's fatal errors as ptxr errors. Some LLVM back ends stop the process on input they cannot
//! handle ("LLVM ERROR: Unable to meet SPIR-V requirements for this target") instead of
//! returning an error. Such a failure is a bug in ptxr (lowering should have reported the
//! construct as unsupported), but the user still deserves an error in ptxr's format and a
//! normal exit code rather than an abort signal.

use std::cell::RefCell;
use std::ffi::{c_char, CStr};

thread_local! {
    /// What this thread is asking LLVM to do, named in the message of a fatal error.
    static ACTIVITY: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `work` with `activity` ("code generation for spirv64v1.2-unknown-unknown") named in
/// any fatal LLVM error it meets.
pub(crate) fn during<T>(activity: String, work: impl FnOnce() -> T) -> T {
    let previous = ACTIVITY.with(|current| current.replace(Some(activity)));
    let result = work();
    ACTIVITY.with(|current| *current.borrow_mut() = previous);
    result
}

extern "C" fn report_and_exit(reason: *const c_char) {
    let reason = if reason.is_null() {
        "no reason given".into()
    } else {
        // SAFETY: LLVM passes a NUL-terminated message that lives for this call.
        unsafe { CStr::from_ptr(reason) }.to_string_lossy()
    };
    let activity = ACTIVITY.with(|current| current.borrow().clone()).unwrap_or_else(|| "LLVM".to_string());
    eprintln!(
        "error[E0999]: internal compiler error in {activity}: {reason}\n  = note: ptxr should have reported the \
         construct that LLVM could not handle as unsupported; please report this with the input file"
    );
    // LLVM's state is not to be trusted after a fatal error, so the process ends here; output
    // files are written through temporary files, so no partial output is left behind.
    std::process::exit(1);
}

/// Makes LLVM's fatal errors print an E0999 error naming what ptxr was doing, and exit with
/// status 1. Call it once, before using LLVM; the command-line driver does.
pub fn install_fatal_error_handler() {
    // SAFETY: the handler is a plain function that does not return into LLVM.
    unsafe { llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(report_and_exit)) };
}
