//! Inputs that are CUDA binaries rather than PTX text (executables, libraries, objects,
//! `.fatbin` and `.cubin` files): telling them apart by their magic number, reading them through
//! `ptxr_frontend::binary`, naming what comes out of them, and reporting their errors.

use std::path::Path;

use ptxr_frontend::binary::{detect, read_binary, BinaryError, CudaBinary, Entry, EntryKind, FatBinary};

use super::read_bytes;
use crate::report::{print_diagnostics, print_note, ErrorFormat};

/// A command's input file.
pub enum Input {
    Ptx(String),
    Binary(Vec<u8>),
}

/// Reads PTX text or a CUDA binary, told apart by the first bytes rather than the extension.
pub fn read_input(path: &Path) -> Result<Input, String> {
    let bytes = read_bytes(path)?;
    if detect(&bytes).is_some() {
        return Ok(Input::Binary(bytes));
    }
    String::from_utf8(bytes).map(Input::Ptx).map_err(|error| {
        format!(
            "{} is not UTF-8 text (invalid byte at offset {}) nor a CUDA binary (no ELF or fat-binary magic number)",
            path.display(),
            error.utf8_error().valid_up_to()
        )
    })
}

/// Prints a binary's error as a diagnostic and returns exit code 1.
pub fn report_binary_error(error: &BinaryError, file_name: &str, format: ErrorFormat) -> i32 {
    // There is no text to point into, so the message names the file.
    let mut diagnostic = error.to_diagnostic();
    diagnostic.message = format!("{file_name}: {}", diagnostic.message);
    print_diagnostics(&[diagnostic], file_name, "", format);
    1
}

/// Reads a CUDA binary, or prints why it cannot be read.
pub fn read_cuda_binary(bytes: &[u8], file_name: &str, format: ErrorFormat) -> Result<CudaBinary, i32> {
    read_binary(bytes).map_err(|error| report_binary_error(&error, file_name, format))
}

/// The PTX to compile for each module, or exit code 1 after saying why there is none.
pub fn chosen_ptx<'b>(
    binary: &'b CudaBinary,
    file_name: &str,
    format: ErrorFormat,
) -> Result<Vec<(&'b FatBinary, &'b Entry, &'b str)>, i32> {
    let chosen = binary.chosen_ptx().map_err(|error| report_binary_error(&error, file_name, format))?;
    Ok(chosen.into_iter().filter_map(|(module, entry)| entry.ptx_text().map(|text| (module, entry, text))).collect())
}

/// The file name without its last extension, as cuobjdump names what it extracts
/// (`libkernels.so` gives `libkernels`).
pub fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(|| "module".to_string(), |stem| stem.to_string_lossy().into_owned())
}

/// `STEM.MODULE.sm_NN.EXTENSION`: which fat binary, which architecture.
pub fn output_name(stem: &str, module: &FatBinary, entry: &Entry, extension: &str) -> String {
    format!("{stem}.{}.{}.{extension}", module.index, entry.arch_name())
}

/// How diagnostics name one PTX entry of a binary, in place of a file name.
pub fn entry_label(file_name: &str, module: &FatBinary, entry: &Entry) -> String {
    format!("{file_name} (fat binary {}, PTX for {})", module.index, entry.arch_name())
}

/// Says which PTX of `module` is compiled and what else the module offered, one group per kind:
/// `(the module also holds PTX for sm_75, SASS for sm_80, sm_90)`.
pub fn note_choice(file_name: &str, module: &FatBinary, entry: &Entry, format: ErrorFormat) {
    let version = entry.isa_version.map_or_else(String::new, |version| format!(", PTX ISA {version}"));
    // Groups in the order their kinds first appear in the module.
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for other in module.entries.iter().filter(|other| !std::ptr::eq(*other, entry)) {
        let kind = match other.kind {
            EntryKind::Ptx => "PTX".to_string(),
            EntryKind::Elf => "SASS".to_string(),
            EntryKind::LtoIr => "LTO-IR".to_string(),
            EntryKind::Other(code) => format!("entries of kind {code}"),
        };
        match groups.iter_mut().find(|(name, _)| *name == kind) {
            Some((_, archs)) => archs.push(other.arch_name()),
            None => groups.push((kind, vec![other.arch_name()])),
        }
    }
    let others: Vec<String> = groups.iter().map(|(kind, archs)| format!("{kind} for {}", archs.join(", "))).collect();
    let rest =
        if others.is_empty() { String::new() } else { format!(" (the module also holds {})", others.join("; ")) };
    print_note(
        &format!("{file_name}: fat binary {}: using the PTX for {}{version}{rest}", module.index, entry.arch_name()),
        format,
    );
}
