//! The CUDA binary reader against NVIDIA's own tools: each fixture of
//! `tests/fixtures/binaries/` (built by nvcc 13.5) must list the entries that cuobjdump listed
//! and give exactly the PTX that cuobjdump extracted (`expected/`, recorded when the fixtures
//! were built). Then damaged copies: every truncation, absurd sizes in each header field, and a
//! few thousand random mutations with a fixed seed must give an error or a result, never a
//! panic, a hang, or memory out of proportion to the file.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::PathBuf;

use ptxr_frontend::binary::{
    best_ptx, cubin_kernels, ptx_kernels, read_binary, BinaryError, Compression, Container, CudaBinary, ElfKind,
    EntryKind, FAT_BINARY_MAGIC,
};
use ptxr_frontend::Code;

/// Tracks the bytes the current thread holds and their peak, so that a test can bound the
/// memory one read takes.
struct PeakAllocator;

thread_local! {
    static LIVE_BYTES: Cell<i64> = const { Cell::new(0) };
    static PEAK_BYTES: Cell<i64> = const { Cell::new(0) };
}

fn record(change: i64) {
    // `try_with`: the thread-locals may already be gone while the thread shuts down.
    let _ = LIVE_BYTES.try_with(|live| {
        live.set(live.get() + change);
        let _ = PEAK_BYTES.try_with(|peak| peak.set(peak.get().max(live.get())));
    });
}

unsafe impl GlobalAlloc for PeakAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size() as i64);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        record(-(layout.size() as i64));
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(pointer, layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size as i64 - layout.size() as i64);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(pointer, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: PeakAllocator = PeakAllocator;

/// `read_binary` and the peak of the bytes it held at once beyond what was held before.
fn read_measured(bytes: &[u8]) -> (Result<CudaBinary, BinaryError>, i64) {
    let before = LIVE_BYTES.with(Cell::get);
    PEAK_BYTES.with(|peak| peak.set(before));
    let result = read_binary(bytes);
    (result, PEAK_BYTES.with(Cell::get) - before)
}

const FIXTURES: [&str; 13] = [
    "libkernels.so",
    "libkernels.compress-all.so",
    "libkernels.lz4.so",
    "kernels.fatbin",
    "kernels.concat.fatbin",
    "kernels.sm_90a.fatbin",
    "kernels.lto.fatbin",
    "square",
    "kernels.o",
    "kernels.rdc.o",
    "kernels.clang.o",
    "libkernels_static.a",
    "kernels.sm_90.cubin",
];

fn fixture_directory() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/binaries")
}

fn fixture(name: &str) -> Vec<u8> {
    let path = fixture_directory().join(name);
    std::fs::read(&path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

fn read_fixture(name: &str) -> CudaBinary {
    read_binary(&fixture(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// One line of `cuobjdump --list-elf --list-ptx`: `PTX file    1: libkernels.1.sm_80.ptx`.
struct Listed {
    kind: EntryKind,
    arch: String,
    file: String,
}

fn cuobjdump_listing(name: &str) -> Vec<Listed> {
    let path = fixture_directory().join("expected").join(format!("{name}.list.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    text.lines()
        .map(|line| {
            let (head, file) = line.split_once(": ").unwrap_or_else(|| panic!("unexpected line {line:?}"));
            let kind = if head.starts_with("PTX") { EntryKind::Ptx } else { EntryKind::Elf };
            // The architecture is the second-last dotted part of the name: NAME.N.sm_80.ptx.
            let arch = file.rsplit('.').nth(1).unwrap_or_else(|| panic!("no architecture in {line:?}"));
            Listed { kind, arch: arch.to_string(), file: file.to_string() }
        })
        .collect()
}

/// (kind, architecture) of every PTX and ELF entry in file order (what cuobjdump lists); a
/// cubin is one ELF entry.
fn entries_in_order(binary: &CudaBinary) -> Vec<(EntryKind, String)> {
    if let Container::Cubin { sm, .. } = binary.container {
        return vec![(EntryKind::Elf, format!("sm_{sm}"))];
    }
    let entries = binary.modules.iter().flat_map(|module| &module.entries);
    let listed = entries.filter(|entry| matches!(entry.kind, EntryKind::Ptx | EntryKind::Elf));
    listed.map(|entry| (entry.kind, entry.arch_name())).collect()
}

#[test]
fn every_fixture_lists_the_entries_cuobjdump_listed() {
    for name in FIXTURES {
        let expected: Vec<(EntryKind, String)> =
            cuobjdump_listing(name).iter().map(|listed| (listed.kind, listed.arch.clone())).collect();
        assert!(!expected.is_empty(), "{name}: empty cuobjdump listing");
        assert_eq!(entries_in_order(&read_fixture(name)), expected, "{name}");
    }
}

#[test]
fn every_fixture_gives_exactly_the_ptx_cuobjdump_extracted() {
    for name in FIXTURES {
        let binary = read_fixture(name);
        let ours: Vec<&str> = binary.ptx_entries().map(|(_, entry)| entry.ptx_text().unwrap_or_default()).collect();
        let theirs: Vec<String> = cuobjdump_listing(name)
            .iter()
            .filter(|listed| listed.kind == EntryKind::Ptx)
            .map(|listed| {
                let path = fixture_directory().join("expected").join(name).join(&listed.file);
                std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
            })
            .collect();
        assert_eq!(ours, theirs, "{name}");
        // The header's ISA version is the one the text declares.
        for (_, entry) in binary.ptx_entries() {
            let text = entry.ptx_text().unwrap_or_default();
            let declared = text.lines().find_map(|line| line.strip_prefix(".version ")).map(str::trim);
            assert_eq!(entry.isa_version.map(|version| version.to_string()).as_deref(), declared, "{name}");
        }
    }
}

#[test]
fn containers_compression_and_kernels_are_what_nvcc_was_asked_for() {
    let sections = |binary: &CudaBinary| match &binary.container {
        Container::Elf { kind, sections } => Some((*kind, sections.clone())),
        _ => None,
    };
    assert_eq!(sections(&read_fixture("libkernels.so")), Some((ElfKind::SharedObject, vec![".nv_fatbin"])));
    assert_eq!(sections(&read_fixture("square")), Some((ElfKind::Executable, vec![".nv_fatbin"])));
    assert_eq!(sections(&read_fixture("kernels.o")), Some((ElfKind::Relocatable, vec![".nv_fatbin"])));
    assert_eq!(sections(&read_fixture("kernels.rdc.o")), Some((ElfKind::Relocatable, vec!["__nv_relfatbin"])));
    assert_eq!(read_fixture("kernels.fatbin").container, Container::FatBinaryFile);
    let members = ["kernels.o", "kernels.rdc.o", "kernels.clang.o"].map(String::from).to_vec();
    let archive = read_fixture("libkernels_static.a");
    assert_eq!(archive.container, Container::Archive { members: members.clone() });
    let origins: Vec<_> = archive.modules.iter().map(|module| (module.member.clone(), module.section)).collect();
    let sections = [Some(".nv_fatbin"), Some("__nv_relfatbin"), Some(".nv_fatbin")];
    assert_eq!(origins, members.into_iter().map(Some).zip(sections).collect::<Vec<_>>());
    let kernels = ["mix_bits".to_string(), "scale_add".to_string()];
    assert_eq!(read_fixture("kernels.sm_90.cubin").container, Container::Cubin { sm: 90, kernels: kernels.to_vec() });

    // nvcc compresses PTX with Zstd by default, everything with -compress-all, and uses LZ4 for
    // -compress-mode=speed; -compress-mode=none stores everything plainly.
    let compressions = |name: &str| -> Vec<(EntryKind, Compression)> {
        let binary = read_fixture(name);
        binary.modules.iter().flat_map(|module| &module.entries).map(|entry| (entry.kind, entry.compression)).collect()
    };
    use Compression::{Lz4, None as Plain, Zstd};
    use EntryKind::{Elf, Ptx};
    assert_eq!(compressions("libkernels.so"), [(Elf, Plain), (Ptx, Zstd), (Elf, Plain)]);
    assert_eq!(compressions("libkernels.compress-all.so"), [(Elf, Zstd), (Ptx, Zstd), (Elf, Zstd)]);
    assert_eq!(compressions("libkernels.lz4.so"), [(Elf, Lz4), (Ptx, Lz4), (Elf, Lz4)]);
    assert_eq!(compressions("kernels.fatbin"), [(Ptx, Plain), (Elf, Plain)]);
    assert_eq!(compressions("kernels.rdc.o"), [(Ptx, Zstd)]);
    assert_eq!(compressions("kernels.lto.fatbin"), [(Ptx, Zstd), (EntryKind::LtoIr, Zstd)]);
    // -concat compresses the PTX for compute_75 and compute_80 as one payload; the single SASS
    // entry has nothing to share it with and stays plain.
    assert_eq!(compressions("kernels.concat.fatbin"), [(Elf, Plain), (Ptx, Zstd), (Ptx, Zstd)]);
    let concatenated = read_fixture("kernels.concat.fatbin");
    let parts: Vec<bool> = concatenated.modules[0].entries.iter().map(|entry| entry.concatenated).collect();
    assert_eq!(parts, [false, true, true]);
    // Portable PTX is preferred to PTX for one architecture (sm_90a).
    let specific = read_fixture("kernels.sm_90a.fatbin");
    let chosen = specific.chosen_ptx().unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(chosen.iter().map(|(_, entry)| entry.arch_name()).collect::<Vec<_>>(), ["sm_90"]);

    // Kernels in source order for PTX (src/kernels.cu), as symbols for SASS; the device-link
    // module of a library has none.
    for name in ["libkernels.so", "libkernels.compress-all.so", "libkernels.lz4.so"] {
        let binary = read_fixture(name);
        let module = &binary.modules[1];
        let ptx = best_ptx(module).unwrap_or_else(|| panic!("{name}: no PTX in module 2"));
        assert_eq!(
            (ptx.sm, ptx_kernels(ptx.ptx_text().unwrap_or_default())),
            (80, vec!["scale_add".into(), "mix_bits".into()])
        );
        let bytes = fixture(name);
        let sass = |entry: &ptxr_frontend::binary::Entry| cubin_kernels(&entry.contents(&bytes).unwrap_or_default());
        assert_eq!(sass(&module.entries[1]), kernels, "{name}");
        assert!(best_ptx(&binary.modules[0]).is_none() && sass(&binary.modules[0].entries[0]).is_empty());
        assert!(module.entries.iter().all(|entry| entry.is_64_bit()));
    }
    let square = read_fixture("square");
    let chosen = square.chosen_ptx().unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(chosen.len(), 1);
    assert_eq!(ptx_kernels(chosen[0].1.ptx_text().unwrap_or_default()), ["square"]);
}

#[test]
fn files_without_ptx_say_so() {
    let error = read_fixture("kernels.sm_90.cubin").chosen_ptx().err().unwrap_or_else(|| panic!("a cubin has PTX?"));
    assert_eq!(error.code, Code::NoPtx);
    assert!(error.message.contains("cubin") && error.message.contains("sm_90"), "{error}");
    // This test's own executable is an ELF file without fat binaries.
    let executable = std::env::current_exe().unwrap_or_else(|error| panic!("{error}"));
    let bytes = std::fs::read(executable).unwrap_or_else(|error| panic!("{error}"));
    let error = read_binary(&bytes).err().unwrap_or_else(|| panic!("the test binary has fat binaries?"));
    assert_eq!(error.code, Code::NoPtx);
    assert!(error.message.contains(".nv_fatbin or __nv_relfatbin"), "{error}");
    // clang's offload driver puts a cubin in .llvm.offloading, with no fat binary.
    let error = read_binary(&fixture("kernels.clang-offload.o")).err().unwrap_or_else(|| panic!("accepted"));
    assert_eq!(error.code, Code::NoPtx);
    assert!(error.message.contains(".llvm.offloading"), "{error}");
    // Neither ELF nor a fat binary, and the wrapper record that only points at one.
    assert_eq!(read_binary(b"hello").err().map(|error| error.code), Some(Code::InvalidBinary));
    let wrapper = [0xB1, 0x43, 0x62, 0x46, 1, 0, 0, 0];
    assert!(read_binary(&wrapper).err().is_some_and(|error| error.message.contains("wrapper")));
}

#[test]
fn every_truncation_is_an_error_with_an_offset_inside_the_file() {
    for name in FIXTURES {
        let bytes = fixture(name);
        // Every 5th length, and every length near the end where the section headers are.
        let lengths = (0..bytes.len()).filter(|length| length % 5 == 0 || bytes.len() - length < 200);
        for length in lengths {
            let (result, _) = read_measured(&bytes[..length]);
            // A cubin cut after its section headers is still a cubin, and an archive cut between
            // members is a smaller archive (with every module, when only the host-only member is
            // cut off); nothing else survives a cut.
            if name.ends_with(".cubin") {
                continue;
            }
            if let (true, Ok(smaller)) = (name.ends_with(".a"), &result) {
                assert!(smaller.modules.len() <= read_fixture(name).modules.len(), "{name} cut to {length}");
                continue;
            }
            let error = result.err().unwrap_or_else(|| panic!("{name} cut to {length} bytes was accepted"));
            assert!(error.offset.is_none_or(|offset| offset <= bytes.len() as u64), "{name}: {error}");
        }
    }
}

#[test]
fn zeros_after_the_last_entry_are_padding() {
    let mut padded = fixture("kernels.fatbin");
    let entries_bytes = u64::from_le_bytes(padded[8..16].try_into().unwrap_or_default());
    padded[8..16].copy_from_slice(&(entries_bytes + 24).to_le_bytes());
    padded.extend([0; 24]);
    let binary = read_binary(&padded).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(entries_in_order(&binary), entries_in_order(&read_fixture("kernels.fatbin")));
    // One non-zero byte in the padding makes it a (truncated) entry again.
    let last = padded.len() - 1;
    padded[last] = 1;
    assert!(invalid_message(&padded).contains("entry header needs"));
}

/// Where the first fat binary starts in a file.
fn first_fat_binary(bytes: &[u8]) -> usize {
    let magic = FAT_BINARY_MAGIC.to_le_bytes();
    bytes.windows(4).position(|window| window == magic).unwrap_or_else(|| panic!("no fat-binary magic"))
}

/// The file with `value` written over the field at `offset`.
fn with_field(bytes: &[u8], offset: usize, value: &[u8]) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    copy[offset..offset + value.len()].copy_from_slice(value);
    copy
}

fn invalid_message(bytes: &[u8]) -> String {
    match read_binary(bytes) {
        Ok(_) => panic!("a damaged file was accepted"),
        Err(error) => {
            assert_eq!(error.code, Code::InvalidBinary, "{error}");
            error.message
        }
    }
}

#[test]
fn absurd_sizes_and_flags_are_refused_before_anything_is_allocated() {
    // kernels.fatbin: header at 0, then the PTX entry at 16 (offsets from the container layout).
    let plain = fixture("kernels.fatbin");
    let entry = 16;
    assert!(invalid_message(&with_field(&plain, 8, &u64::MAX.to_le_bytes())).contains("bytes of entries"));
    assert!(invalid_message(&with_field(&plain, 4, &2u16.to_le_bytes())).contains("version 2"));
    assert!(invalid_message(&with_field(&plain, 6, &3u16.to_le_bytes())).contains("fixed bytes"));
    assert!(invalid_message(&with_field(&plain, entry + 4, &0u32.to_le_bytes())).contains("entry header declares"));
    assert!(invalid_message(&with_field(&plain, entry + 4, &u32::MAX.to_le_bytes())).contains("entry header declares"));
    assert!(invalid_message(&with_field(&plain, entry + 8, &u64::MAX.to_le_bytes())).contains("payload"));
    assert!(invalid_message(&with_field(&plain, entry + 40, &0xA011u64.to_le_bytes())).contains("both LZ4 and Zstd"));
    assert!(invalid_message(&with_field(&plain, 0, &0xBA55_ED51u32.to_le_bytes())).contains("magic"));
    // The PTX text itself must be UTF-8.
    let text_start = entry + 80;
    assert!(invalid_message(&with_field(&plain, text_start, &[0xff])).contains("UTF-8"));

    // libkernels.so: the second fat binary's first entry is Zstd-compressed PTX.
    let zstd = fixture("libkernels.so");
    let second = first_fat_binary(&zstd[first_fat_binary(&zstd) + 4..]) + first_fat_binary(&zstd) + 4;
    let ptx = second + 16;
    let declared = u64::from_le_bytes(zstd[ptx + 56..ptx + 64].try_into().unwrap_or_default());
    assert!(invalid_message(&with_field(&zstd, ptx + 56, &(1u64 << 40).to_le_bytes())).contains("refuses"));
    assert!(invalid_message(&with_field(&zstd, ptx + 56, &(declared + 1).to_le_bytes())).contains("decompresses to"));
    assert!(invalid_message(&with_field(&zstd, ptx + 56, &(declared - 1).to_le_bytes())).contains("decompresses to"));
    assert!(invalid_message(&with_field(&zstd, ptx + 16, &u32::MAX.to_le_bytes())).contains("compressed bytes"));
    let (result, peak) = read_measured(&with_field(&zstd, ptx + 56, &(1u64 << 29).to_le_bytes()));
    assert!(result.is_err() && peak < 64 << 20, "a Zstd entry claiming 512 MiB took {peak} bytes");

    // libkernels.lz4.so: LZ4 cannot expand a few hundred bytes to 512 MiB, so that is refused
    // without allocating it: at once for the PTX (second fat binary), and when the SASS (first
    // fat binary), which is left in the file, is asked for.
    let lz4 = fixture("libkernels.lz4.so");
    let sass = first_fat_binary(&lz4) + 16;
    let ptx = first_fat_binary(&lz4[sass..]) + sass + 16;
    let (result, peak) = read_measured(&with_field(&lz4, ptx + 56, &(1u64 << 29).to_le_bytes()));
    assert!(result.err().is_some_and(|error| error.message.contains("cannot decompress")));
    assert!(peak < 1 << 20, "a refused LZ4 entry took {peak} bytes");
    let damaged = with_field(&lz4, sass + 56, &(1u64 << 29).to_le_bytes());
    let binary = read_binary(&damaged).unwrap_or_else(|error| panic!("the PTX is intact: {error}"));
    let error = binary.modules[0].entries[0].contents(&damaged).err();
    assert!(error.is_some_and(|error| error.code == Code::InvalidBinary && error.message.contains("cannot decompress")));

    // kernels.concat.fatbin: a plain ELF entry, then the concatenated PTX entry, whose table
    // (count at 64, table size at 68, parts from 72) follows its fixed header.
    let concat = fixture("kernels.concat.fatbin");
    let field = |at: usize, width: usize| {
        concat[at..at + width].iter().rev().fold(0u64, |value, &byte| value << 8 | u64::from(byte))
    };
    let second = 16 + field(16 + 4, 4) as usize + field(16 + 8, 8) as usize;
    assert_eq!(field(second, 2), 0x100, "the second entry is the concatenated one");
    assert!(invalid_message(&with_field(&concat, second + 64, &u32::MAX.to_le_bytes())).contains("entries in"));
    assert!(invalid_message(&with_field(&concat, second + 68, &u32::MAX.to_le_bytes())).contains("declares"));
    assert!(invalid_message(&with_field(&concat, second + 68, &0u32.to_le_bytes())).contains("declares"));
    let first_part = second + 72;
    assert!(invalid_message(&with_field(&concat, first_part + 8, &u64::MAX.to_le_bytes())).contains("claims bytes"));
    assert!(invalid_message(&with_field(&concat, first_part + 4, &u32::MAX.to_le_bytes())).contains("claims bytes"));
    let both =
        with_field(&with_field(&concat, first_part + 4, &8u32.to_le_bytes()), first_part + 8, &u64::MAX.to_le_bytes());
    assert!(invalid_message(&both).contains("claims bytes"));
    assert!(invalid_message(&with_field(&concat, first_part + 20, &u32::MAX.to_le_bytes())).contains("options record"));
}

/// xorshift64*: a small deterministic generator, so every run mutates the same way.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound.max(1) as u64) as usize
    }
}

/// Values that stress size fields: zero, one, the type's extremes, just past them.
const INTERESTING: [u64; 9] = [0, 1, 0x40, 0x7fff_ffff, 0xffff_ffff, 0x1_0000_0000, 1 << 40, u64::MAX - 1, u64::MAX];

fn mutate(bytes: &[u8], random: &mut Random) -> Vec<u8> {
    let mut copy = bytes.to_vec();
    // Most mutations land in the fat binaries, where the reader does its own bounds checks; one
    // in five anywhere, so that ELF and archive headers get their share.
    let region = if random.below(5) == 0 {
        0..bytes.len()
    } else {
        let region_start = first_fat_binary(bytes);
        region_start..(region_start + 8192).min(bytes.len())
    };
    for _ in 0..1 + random.below(4) {
        let end = region.end.min(copy.len());
        if end <= region.start {
            break;
        }
        let at = region.start + random.below(end - region.start);
        match random.below(5) {
            0 => copy[at] ^= 1 << random.below(8),
            1 => copy[at] = random.next() as u8,
            2 => {
                let width = [2, 4, 8][random.below(3)];
                let value = INTERESTING[random.below(INTERESTING.len())].to_le_bytes();
                let end = (at + width).min(copy.len());
                copy[at..end].copy_from_slice(&value[..end - at]);
            }
            3 => {
                // Nudge a 32-bit field up or down a little.
                let end = (at + 4).min(copy.len());
                let mut field = [0; 4];
                field[..end - at].copy_from_slice(&copy[at..end]);
                let nudged = u32::from_le_bytes(field).wrapping_add(random.below(17) as u32).wrapping_sub(8);
                copy[at..end].copy_from_slice(&nudged.to_le_bytes()[..end - at]);
            }
            _ => copy.truncate(at),
        }
    }
    copy
}

#[test]
fn random_mutations_give_errors_or_results_without_panics_hangs_or_memory_blowups() {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut random = Random(0x5eed_fa7b_1a55_ed50);
        let mut outcomes = (0, 0);
        for round in 0..1000 {
            for name in FIXTURES.iter().filter(|name| !name.ends_with(".cubin")) {
                let original = fixture(name);
                let mutant = mutate(&original, &mut random);
                let (result, peak) = read_measured(&mutant);
                // The reader copies the file's entries and decompresses them: a few times the
                // file, plus what LZ4 may legitimately expand to (255 times), never more.
                let bound = 256 * mutant.len() as i64 + (1 << 20);
                assert!(peak <= bound, "{name}, round {round}: {peak} bytes for a {}-byte file", mutant.len());
                match result {
                    Ok(binary) => {
                        outcomes.0 += 1;
                        // What a listing does with a result must not panic either.
                        for module in &binary.modules {
                            let _ = best_ptx(module);
                            for entry in &module.entries {
                                match entry.kind {
                                    EntryKind::Ptx => drop(ptx_kernels(entry.ptx_text().unwrap_or_default())),
                                    _ => {
                                        // SASS is decompressed on demand, under the same bound.
                                        let before = LIVE_BYTES.with(Cell::get);
                                        PEAK_BYTES.with(|peak| peak.set(before));
                                        if let Ok(contents) = entry.contents(&mutant) {
                                            drop(cubin_kernels(&contents));
                                        }
                                        let peak = PEAK_BYTES.with(Cell::get) - before;
                                        assert!(peak <= bound, "{name}, round {round}: SASS took {peak} bytes");
                                    }
                                }
                            }
                        }
                        let _ = binary.chosen_ptx();
                    }
                    Err(error) => {
                        outcomes.1 += 1;
                        assert!(!error.message.is_empty());
                        assert!(error.offset.is_none_or(|offset| offset <= original.len() as u64), "{error}");
                    }
                }
            }
        }
        eprintln!("mutants accepted: {}, refused: {}", outcomes.0, outcomes.1);
        let _ = sender.send(outcomes);
    });
    // A generous limit: the 12000 reads take well under a second each; only a hang gets near it.
    let (accepted, refused) =
        receiver.recv_timeout(std::time::Duration::from_secs(300)).expect("the reader hangs (or panicked) on a mutant");
    // Both outcomes occur, so the mutations neither always miss nor always break the container.
    assert!(accepted > 0 && refused > 0, "accepted {accepted}, refused {refused}");
}
