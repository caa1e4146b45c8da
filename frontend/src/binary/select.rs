//! Which PTX of a module to compile: a fat binary often carries PTX for several virtual
//! architectures, and any one of them is the whole module.

use super::container::FatBinary;
use super::entry::{Entry, EntryKind};
use crate::check::NEWEST_VERSION;

/// The PTX entry to compile from `module`, among the entries whose ISA version ptxr reads:
/// portable PTX before PTX for one architecture or family (`sm_90a`, `sm_100f`, whose
/// specific instructions other hardware lacks), then the highest sm, then the highest ISA
/// version. When ptxr reads none of the versions, the newest entry, so that the checker names
/// the version it does not know. `None` when the module has no PTX.
pub fn best_ptx(module: &FatBinary) -> Option<&Entry> {
    let ptx = || module.entries.iter().filter(|entry| entry.kind == EntryKind::Ptx);
    let rank = |entry: &&Entry| (entry.arch_suffix.is_none(), entry.sm, entry.isa_version);
    ptx()
        .filter(|entry| entry.isa_version.is_some_and(|version| version <= NEWEST_VERSION))
        .max_by_key(rank)
        .or_else(|| ptx().max_by_key(rank))
}

#[cfg(test)]
mod tests {
    use super::best_ptx;
    use crate::binary::container::FatBinary;
    use crate::binary::decompress::Compression;
    use crate::binary::entry::{Entry, EntryKind, Payload};
    use crate::ir::IsaVersion;

    fn entry(kind: EntryKind, sm: u32, major: u32, minor: u32) -> Entry {
        Entry {
            kind,
            sm,
            arch_suffix: None,
            isa_version: (kind == EntryKind::Ptx).then_some(IsaVersion { major, minor }),
            flags: 1,
            compression: Compression::None,
            concatenated: false,
            offset: 0,
            stored_bytes: 0,
            size: 0,
            payload: Payload::Decompressed(Vec::new()),
        }
    }

    fn chosen(entries: Vec<Entry>) -> Option<(u32, Option<IsaVersion>)> {
        let module = FatBinary { index: 1, offset: 0, section: None, member: None, entries };
        best_ptx(&module).map(|entry| (entry.sm, entry.isa_version))
    }

    #[test]
    fn prefers_the_highest_sm_then_isa_that_ptxr_reads() {
        let version = |major, minor| Some(IsaVersion { major, minor });
        let entries = vec![
            entry(EntryKind::Ptx, 80, 9, 5),
            entry(EntryKind::Elf, 100, 1, 8),
            entry(EntryKind::Ptx, 90, 8, 0),
            entry(EntryKind::Ptx, 90, 9, 0),
            entry(EntryKind::Ptx, 120, 20, 0),
        ];
        assert_eq!(chosen(entries), Some((90, version(9, 0))));
        let mut specific = entry(EntryKind::Ptx, 100, 9, 0);
        specific.arch_suffix = Some('a');
        assert_eq!(chosen(vec![specific.clone(), entry(EntryKind::Ptx, 75, 9, 0)]), Some((75, version(9, 0))));
        assert_eq!(chosen(vec![specific]), Some((100, version(9, 0))));
        assert_eq!(chosen(vec![entry(EntryKind::Ptx, 120, 20, 0)]), Some((120, version(20, 0))));
        assert_eq!(chosen(vec![entry(EntryKind::Elf, 90, 1, 8)]), None);
    }
}
