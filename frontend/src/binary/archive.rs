//! Static libraries: `ar` archives of relocatable objects, the way CUDA libraries ship
//! `libfoo_static.a`. Each member that is an ELF object with fat binaries contributes its
//! modules; host-only members, cubins and clang offload objects are passed over.

use object::read::archive::ArchiveFile;

use super::container::{Budget, FatBinary};
use super::elf::{read_elf, ElfContents};
use super::error::BinaryError;
use super::read_sections;

/// `!<arch>\n`.
const ARCHIVE_MAGIC_BYTES: usize = 8;

/// The names of the members with fat binaries, and the fat binaries, in archive order.
pub fn read_archive(bytes: &[u8], budget: &mut Budget) -> Result<(Vec<String>, Vec<FatBinary>), BinaryError> {
    let malformed = |error: object::read::Error| BinaryError::malformed(format!("malformed archive: {error}"));
    let archive = ArchiveFile::parse(bytes).map_err(malformed)?;
    if archive.is_thin() {
        return Err(BinaryError::no_ptx(
            "the archive is thin: its members are separate files; give ptxr those objects instead",
        ));
    }
    let mut members = Vec::new();
    let mut modules: Vec<FatBinary> = Vec::new();
    let mut any_member = false;
    for member in archive.members() {
        let member = member.map_err(malformed)?;
        any_member = true;
        let name = String::from_utf8_lossy(member.name()).into_owned();
        let (start, _) = member.file_range();
        let data = member.data(bytes).map_err(malformed)?;
        if !data.starts_with(b"\x7fELF") {
            continue;
        }
        // An error inside a member names the member. The ELF reader's offsets are the member's
        // own and move to the whole file; the fat binaries are read with the member's start as
        // their base already.
        let named =
            |error: BinaryError| BinaryError { message: format!("archive member {name}: {}", error.message), ..error };
        let in_member = |error: BinaryError| {
            let offset = error.offset.map(|offset| start.saturating_add(offset));
            BinaryError { offset, ..named(error) }
        };
        let ElfContents::Host { sections, .. } = read_elf(data).map_err(in_member)? else { continue };
        if sections.is_empty() {
            continue;
        }
        let mut found = read_sections(&sections, start, modules.len() + 1, budget).map_err(named)?;
        for module in &mut found {
            module.member = Some(name.clone());
        }
        members.push(name);
        modules.extend(found);
    }
    // A symbol table cut short reads as an archive without members; only the bare magic is
    // really an empty archive.
    if !any_member && bytes.len() > ARCHIVE_MAGIC_BYTES {
        return Err(BinaryError::malformed("malformed archive: its members are truncated or unreadable"));
    }
    if modules.is_empty() {
        return Err(BinaryError::no_ptx("no member of the archive carries a fat binary: it has no CUDA kernels"));
    }
    Ok((members, modules))
}
