//! Every PTX file of the shared corpus (real compiler output) and of ZLUDA's conformance tests
//! parses without a single diagnostic and checks (including version and target gating) without
//! one, apart from the listed deprecation warnings; truncated and scrambled files parse without
//! panicking.
//!
//! The corpus lives in `../shared` beside the repository (the workspace root's parent), or beside
//! a folder that holds the repository (a worktree).

use std::path::{Path, PathBuf};

use ptxr_frontend::diagnostic::render;
use ptxr_frontend::syntax::parse;
use ptxr_frontend::Code;

/// The shared folder: `shared/` beside the repository or beside one of its parent folders.
fn shared() -> PathBuf {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    repository
        .ancestors()
        .skip(1)
        .map(|folder| folder.join("shared"))
        .find(|shared| shared.join("corpus").is_dir())
        .unwrap_or_else(|| repository.join("../shared"))
}

/// The folders whose `.ptx` files must all parse cleanly.
const FOLDERS: &[&str] = &[
    "conformance/zluda/ptx",
    "conformance/zluda/ptx/32",
    "corpus/clang",
    "corpus/nvcc",
    "corpus/triton",
    "corpus/numba",
];

fn ptx_files(folder: &str) -> Vec<PathBuf> {
    let path = shared().join(folder);
    let entries = std::fs::read_dir(&path).unwrap_or_else(|error| {
        panic!(
            "the shared PTX corpus is missing: cannot read {} ({error}); it must sit beside the repository",
            path.display()
        )
    });
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "ptx"))
        .collect();
    files.sort();
    files
}

fn all_files() -> Vec<PathBuf> {
    FOLDERS.iter().flat_map(|folder| ptx_files(folder)).collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()))
}

#[test]
fn corpus_parses_without_diagnostics() {
    let files = all_files();
    assert!(files.len() > 200, "expected the whole corpus, found {} files", files.len());
    let mut failures = String::new();
    let mut failed = 0;
    for path in &files {
        let source = read(path);
        let (module, diagnostics) = parse(&source);
        let name = path.strip_prefix(shared()).unwrap_or(path).display().to_string();
        if !diagnostics.is_empty() {
            failed += 1;
            failures.push_str(&format!("\n=== {name}: {} diagnostics\n", diagnostics.len()));
            for diagnostic in diagnostics.iter().take(5) {
                failures.push_str(&render(diagnostic, &name, &source, false));
            }
        } else if module.directives.is_empty() {
            failed += 1;
            failures.push_str(&format!("\n=== {name}: parsed to an empty module\n"));
        }
    }
    assert!(failed == 0, "{failed} of {} files failed to parse cleanly:{failures}", files.len());
}

/// The diagnostics real files are known to get: ZLUDA's `vote_ballot_nosync` uses `vote`
/// without `.sync` under `.version 7.0` and `.target sm_70`, deprecated since ISA 6.0 and
/// removed there from ISA 6.4 (ptxas 12.9 rejects it); ptxr reads it with a warning.
const EXPECTED: &[(&str, &[Code])] = &[("conformance/zluda/ptx/vote_ballot_nosync.ptx", &[Code::Deprecated])];

#[test]
fn corpus_checks_without_diagnostics() {
    let files = all_files();
    let mut failures = String::new();
    let mut failed = 0;
    for path in &files {
        let source = read(path);
        let (module, diagnostics) = ptxr_frontend::check_source(&source);
        let name = path.strip_prefix(shared()).unwrap_or(path).display().to_string();
        let codes: Vec<Code> = diagnostics.iter().map(|diagnostic| diagnostic.code).collect();
        let expected = EXPECTED.iter().find(|(file, _)| *file == name).map_or(&[][..], |(_, codes)| *codes);
        if module.is_none() || codes != expected {
            failed += 1;
            failures.push_str(&format!("\n=== {name}: {codes:?}, expected {expected:?}\n"));
            for diagnostic in diagnostics.iter().take(5) {
                failures.push_str(&render(diagnostic, &name, &source, false));
            }
        }
    }
    assert!(failed == 0, "{failed} of {} files did not check cleanly:{failures}", files.len());
}

/// Every prefix of a real file parses (with errors) and returns: no panic, no endless loop,
/// and every diagnostic points inside the text.
#[test]
fn every_prefix_of_a_real_file_parses() {
    let source = read(&shared().join("corpus/clang/saxpy.sm80.ptx"));
    for end in (0..=source.len()).filter(|&end| source.is_char_boundary(end)) {
        let prefix = &source[..end];
        let (_, diagnostics) = parse(prefix);
        for diagnostic in &diagnostics {
            for label in &diagnostic.labels {
                assert!(label.span.start <= label.span.end && label.span.end as usize <= prefix.len());
            }
        }
    }
}

/// A small deterministic generator, so the scrambled inputs are the same on every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

/// Random bytes, random pieces of PTX glued together, and real files with bytes deleted,
/// duplicated or replaced: all parse and return.
#[test]
fn garbage_never_panics() {
    let mut random = Random(0x9E37_79B9_7F4A_7C15);
    let alphabet: &[u8] = b" \n\t.%$_@!{}[]()<>,;:=+-*/|&^~?\"0123456789abcdefxXfFdDuU\\#\x00\xff";
    for _ in 0..2000 {
        let length = random.below(64);
        let bytes: Vec<u8> = (0..length).map(|_| alphabet[random.below(alphabet.len())]).collect();
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text);
    }

    let pieces = [
        ".version 7.8",
        ".target sm_80",
        ".entry",
        ".func",
        "k",
        "(",
        ")",
        "{",
        "}",
        ".reg",
        ".b32",
        "%r<4>",
        "%r1",
        ",",
        ";",
        "[",
        "]",
        "+",
        "-4",
        "0f3F800000",
        "@%p1",
        "@!",
        "bra",
        "$L1",
        ":",
        ".param",
        ".u64",
        ".ptr",
        ".align",
        "8",
        "=",
        "{1, 2}",
        ".loc 1 2 3",
        ".pragma \"x\"",
        "call",
        "_",
        "|",
        "é",
        "/*",
        "\"",
    ];
    for _ in 0..2000 {
        let count = random.below(24);
        let text: Vec<&str> = (0..count).map(|_| pieces[random.below(pieces.len())]).collect();
        let _ = parse(&text.join(" "));
    }

    let real = read(&shared().join("corpus/clang/vecadd.sm80.ptx")).into_bytes();
    for _ in 0..300 {
        let mut bytes = real.clone();
        for _ in 0..1 + random.below(8) {
            let at = random.below(bytes.len());
            match random.below(3) {
                0 => {
                    bytes.remove(at);
                }
                1 => bytes.insert(at, bytes[at]),
                _ => bytes[at] = alphabet[random.below(alphabet.len())],
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text);
    }
}

/// Parse speed on about 20 MB of corpus text (`PTXR_BENCH_MB` sets another size). Run with
/// `cargo test --release -p ptxr-frontend --test parse_corpus parse_speed -- --ignored --nocapture`.
#[test]
#[ignore]
fn parse_speed() {
    let mut sources: Vec<String> = all_files().iter().map(|path| read(path)).collect();
    sources.sort_by_key(|source| std::cmp::Reverse(source.len()));
    let corpus: usize = sources.iter().map(String::len).sum();
    let megabytes: f64 = std::env::var("PTXR_BENCH_MB").ok().and_then(|text| text.parse().ok()).unwrap_or(20.0);
    let rounds = ((megabytes * 1e6) as usize / corpus).max(1);
    let total = corpus * rounds;

    let start = std::time::Instant::now();
    let mut tokens = 0;
    for _ in 0..rounds {
        for source in &sources {
            tokens += ptxr_frontend::syntax::lex(source).0.len();
        }
    }
    let lex_seconds = start.elapsed().as_secs_f64();

    let start = std::time::Instant::now();
    let mut directives = 0;
    for _ in 0..rounds {
        for source in &sources {
            let (module, diagnostics) = parse(source);
            assert!(diagnostics.is_empty());
            directives += module.directives.len();
        }
    }
    let parse_seconds = start.elapsed().as_secs_f64();

    // The same text as one file: no per-file costs.
    let concatenated = sources.concat().repeat(rounds);
    let start = std::time::Instant::now();
    let (all_tokens, _) = ptxr_frontend::syntax::lex(&concatenated);
    let one_lex_seconds = start.elapsed().as_secs_f64();
    assert_eq!(all_tokens.len(), tokens);
    drop(all_tokens);
    let start = std::time::Instant::now();
    let (module, diagnostics) = parse(&concatenated);
    let one_parse_seconds = start.elapsed().as_secs_f64();
    assert!(diagnostics.is_empty());
    drop(module);
    let one_total_seconds = start.elapsed().as_secs_f64();

    let megabytes = total as f64 / 1e6;
    println!(
        "{megabytes:.1} MB as {} files x {rounds} ({tokens} tokens, {directives} directives): \
         lex {:.0} MB/s, lex+parse+drop {:.1} MB/s",
        sources.len(),
        megabytes / lex_seconds,
        megabytes / parse_seconds,
    );
    println!(
        "{megabytes:.1} MB as one file: lex {:.0} MB/s, lex+parse {:.1} MB/s, lex+parse+drop {:.1} MB/s",
        megabytes / one_lex_seconds,
        megabytes / one_parse_seconds,
        megabytes / one_total_seconds,
    );
}
