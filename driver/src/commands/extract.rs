//! `ptxr extract BINARY [-o DIR] [--list]`: lists every entry of a CUDA binary's fat binaries
//! (kind, architecture, PTX ISA version, size, compression, kernels) on stdout and, without
//! `--list`, writes each PTX entry to `DIR/STEM.MODULE.sm_NN.ptx`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use ptxr_frontend::binary::{cubin_kernels, ptx_kernels, Compression, Container, CudaBinary, Entry, EntryKind};

use super::binary::{output_name, read_input, report_binary_error, stem, Input};
use super::or_exit;
use crate::cli::ExtractArgs;
use crate::output::write_atomically;
use crate::report::ErrorFormat;

pub fn extract(arguments: &ExtractArgs, format: ErrorFormat) -> i32 {
    extract_or_exit_code(arguments, format).map_or_else(|code| code, |()| 0)
}

fn extract_or_exit_code(arguments: &ExtractArgs, format: ErrorFormat) -> Result<(), i32> {
    let file_name = arguments.input.display().to_string();
    let bytes = match or_exit(read_input(&arguments.input), format)? {
        Input::Binary(bytes) => bytes,
        Input::Ptx(_) => {
            return or_exit(Err(format!("{file_name} is PTX text already, not a CUDA binary")), format);
        }
    };
    let binary =
        ptxr_frontend::binary::read_binary(&bytes).map_err(|error| report_binary_error(&error, &file_name, format))?;
    let names = if arguments.list {
        Vec::new()
    } else {
        // Say what the binary holds even when it holds no PTX, then fail.
        if let Err(error) = binary.chosen_ptx() {
            print_stdout(&listing(&file_name, &bytes, &binary, &[]));
            return Err(report_binary_error(&error, &file_name, format));
        }
        write_ptx(&binary, &stem(&arguments.input), &arguments.output, format)?
    };
    print_stdout(&listing(&file_name, &bytes, &binary, &names));
    Ok(())
}

/// Writes every PTX entry; returns the paths written, in entry order.
fn write_ptx(binary: &CudaBinary, stem: &str, directory: &Path, format: ErrorFormat) -> Result<Vec<String>, i32> {
    or_exit(
        std::fs::create_dir_all(directory).map_err(|error| format!("cannot create {}: {error}", directory.display())),
        format,
    )?;
    let mut taken = BTreeSet::new();
    let mut written = Vec::new();
    for (module, entry) in binary.ptx_entries() {
        let text = entry.ptx_text().unwrap_or_default();
        // Two PTX entries for one architecture in one module (different ISA versions) get `-2`, `-3`...
        let mut name = output_name(stem, module, entry, "ptx");
        let mut copy = 1;
        while !taken.insert(name.clone()) {
            copy += 1;
            name = format!("{stem}.{}.{}-{copy}.ptx", module.index, entry.arch_name());
        }
        let path = directory.join(&name);
        or_exit(write_atomically(&path, text.as_bytes()), format)?;
        written.push(path.display().to_string());
    }
    Ok(written)
}

/// The listing: one line per entry, under a line per fat binary. `bytes` is the file, where the
/// SASS whose kernels are listed still lies; `written` are the paths of the PTX entries, in
/// order, when they were written.
fn listing(file_name: &str, bytes: &[u8], binary: &CudaBinary, written: &[String]) -> String {
    let mut text = format!("{file_name}: {}\n", binary.container.describe());
    if let Container::Cubin { sm, kernels } = &binary.container {
        let _ = writeln!(text, "  ELF  sm_{sm}  kernels: {}", kernel_list(kernels));
        text.push_str("  a cubin holds SASS only: there is no PTX to extract\n");
        return text;
    }
    let mut written = written.iter();
    for module in &binary.modules {
        let section = module.section.map_or_else(String::new, |section| format!(" in {section}"));
        let member = module.member.as_ref().map_or_else(String::new, |member| format!(" of member {member}"));
        let _ = writeln!(text, "fat binary {} at offset {:#x}{section}{member}:", module.index, module.offset);
        for entry in &module.entries {
            let _ = writeln!(text, "  {}", entry_line(entry, bytes));
            if entry.kind == EntryKind::Ptx {
                if let Some(path) = written.next() {
                    let _ = writeln!(text, "    written to {path}");
                }
            }
        }
    }
    if binary.ptx_entries().next().is_none() {
        text.push_str("no PTX entries\n");
    }
    text
}

/// `PTX  sm_80  ISA 9.5  1614 bytes  zstd (518 bytes stored)  kernels: scale_add, mix_bits`.
/// The size is the PTX text's, without the NULs that pad it, or the payload's for other kinds.
fn entry_line(entry: &Entry, bytes: &[u8]) -> String {
    let (kind, version, size, kernels) = match entry.kind {
        EntryKind::Ptx => {
            let text = entry.ptx_text().unwrap_or_default();
            let version = entry.isa_version.map_or_else(String::new, |version| format!("ISA {version}  "));
            ("PTX".to_string(), version, text.len() as u64, kernel_list(&ptx_kernels(text)))
        }
        EntryKind::Elf => {
            // Damaged SASS does not stop the listing: ptxr never needs it.
            let kernels = match entry.contents(bytes) {
                Ok(contents) => kernel_list(&cubin_kernels(&contents)),
                Err(error) => format!("(the SASS cannot be read: {})", error.message),
            };
            ("ELF".to_string(), String::new(), entry.size, kernels)
        }
        EntryKind::LtoIr => ("LTO-IR".to_string(), String::new(), entry.size, kernel_list(&[])),
        EntryKind::Other(code) => (format!("kind {code}"), String::new(), entry.size, kernel_list(&[])),
    };
    let compression = match (entry.compression, entry.concatenated) {
        (Compression::None, _) => "uncompressed".to_string(),
        (compressed, false) => format!("{} ({} bytes stored)", compressed.name(), entry.stored_bytes),
        (compressed, true) => {
            format!("{}, concatenated ({} bytes stored with its neighbours)", compressed.name(), entry.stored_bytes)
        }
    };
    // nvcc has written 64-bit code only for years; the rare 32-bit entry is worth a word.
    let width = if entry.is_64_bit() { "" } else { "32-bit  " };
    format!("{kind}  {}  {width}{version}{size} bytes  {compression}  kernels: {kernels}", entry.arch_name())
}

/// How many kernel names one listing line shows; a library module can have hundreds.
const LISTED_KERNELS: usize = 16;

fn kernel_list(kernels: &[String]) -> String {
    match kernels.len() {
        0 => "(none)".to_string(),
        count if count <= LISTED_KERNELS => kernels.join(", "),
        count => format!("{} and {} more", kernels[..LISTED_KERNELS].join(", "), count - LISTED_KERNELS),
    }
}

fn print_stdout(text: &str) {
    // A closed stdout (`ptxr extract ... | head`) is the reader's choice, not an error.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
