//! A mutation fuzz test of the whole frontend (lex, parse, check): real PTX files are mutated
//! with a fixed seed (byte flips, deletions, duplications, token shuffles, deep nesting) and
//! every mutant must come back with diagnostics inside the text, without a panic or a hang.
//!
//! A second test checks that the work grows linearly with the input, without timing: a
//! counting allocator counts the allocations (calls and bytes) made on the test's thread while
//! one input is processed, and the count for four times the input must stay within about four
//! times the count for the input. Most of the frontend's work allocates (tokens, tree nodes,
//! names, diagnostics), so quadratic behaviour shows up in the count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::{Path, PathBuf};

use ptxr_frontend::check_source;

/// Counts the allocations of the current thread, so tests running in parallel do not mix.
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    static ALLOCATED_BYTES: Cell<u64> = const { Cell::new(0) };
}

fn record(size: usize) {
    // `try_with`: the thread-local may already be gone while the thread shuts down.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
    let _ = ALLOCATED_BYTES.try_with(|bytes| bytes.set(bytes.get() + size as u64));
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(pointer, layout) }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(pointer, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The work of running the frontend on `source`: (allocations, allocated bytes).
fn work(source: &str) -> (u64, u64) {
    let before = (ALLOCATIONS.with(Cell::get), ALLOCATED_BYTES.with(Cell::get));
    let result = check_source(source);
    let after = (ALLOCATIONS.with(Cell::get), ALLOCATED_BYTES.with(Cell::get));
    drop(result);
    (after.0 - before.0, after.1 - before.1)
}

/// [`work`] on its own thread. A test must fail rather than hang, so a run that has not finished
/// after a generous two minutes (the inputs take milliseconds) is reported as a hang; this is
/// the only use of time in the test, and no result depends on speed.
fn work_with_watchdog(source: &str) -> (u64, u64) {
    let (sender, receiver) = std::sync::mpsc::channel();
    let source = source.to_string();
    std::thread::spawn(move || {
        let _ = sender.send(work(&source));
    });
    receiver.recv_timeout(std::time::Duration::from_secs(120)).expect("the frontend hangs on this input")
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

fn shared_corpus() -> Vec<PathBuf> {
    let repository = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut folders: Vec<PathBuf> = repository
        .ancestors()
        .skip(1)
        .map(|folder| folder.join("shared/corpus"))
        .filter(|corpus| corpus.is_dir())
        .take(1)
        .flat_map(|corpus| ["clang", "nvcc", "triton", "numba"].map(|folder| corpus.join(folder)))
        .collect();
    // Without the shared corpus, the repository's own kernels.
    folders.push(repository.join("examples"));
    let mut files: Vec<PathBuf> = folders
        .iter()
        .filter_map(|folder| std::fs::read_dir(folder).ok())
        .flatten()
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "ptx"))
        .collect();
    files.sort();
    files
}

/// Pieces of PTX that mutations insert: tokens that start or end constructs.
const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    ":",
    "@",
    "!",
    "%r1",
    "%p1",
    ".reg",
    ".b32",
    ".entry",
    ".func",
    ".global",
    "0x",
    "0f",
    "1.5e",
    "\"",
    "//",
    "/*",
    "*/",
    "<",
    ">",
    "?",
    "+",
    "-",
    "|",
    "_",
    "\u{e9}",
    "\0",
    ".version 7.8",
    ".target",
    "ld.global.u32",
    "$L__BB0_1",
    "mov.u32",
    "setp.eq.s32",
    "call",
    "ret;",
];

fn mutate(source: &str, random: &mut Random) -> String {
    let mut bytes = source.as_bytes().to_vec();
    let length = bytes.len().max(1);
    match random.below(7) {
        // Flip one byte to another printable or control byte.
        0 => {
            let at = random.below(length).min(bytes.len().saturating_sub(1));
            if let Some(byte) = bytes.get_mut(at) {
                *byte = random.below(128) as u8;
            }
        }
        // Delete a range.
        1 => {
            let start = random.below(length).min(bytes.len());
            let end = (start + random.below(200)).min(bytes.len());
            bytes.drain(start..end);
        }
        // Duplicate a range in place.
        2 => {
            let start = random.below(length).min(bytes.len());
            let end = (start + random.below(400)).min(bytes.len());
            let copy = bytes[start..end].to_vec();
            bytes.splice(start..start, copy);
        }
        // Insert a fragment.
        3 => {
            let at = random.below(length).min(bytes.len());
            let fragment = FRAGMENTS[random.below(FRAGMENTS.len())];
            bytes.splice(at..at, fragment.bytes());
        }
        // Swap two whitespace-separated words.
        4 => {
            let mut words: Vec<&str> = source.split(' ').collect();
            for _ in 0..4 {
                let (first, second) = (random.below(words.len()), random.below(words.len()));
                words.swap(first, second);
            }
            return words.join(" ");
        }
        // Deep nesting: a run of openers, operators or closers.
        5 => {
            let at = random.below(length).min(bytes.len());
            let piece = ["{", "(", "[", "-", "~", "!", "}", ")"][random.below(8)];
            let run = piece.repeat(1 + random.below(2000));
            bytes.splice(at..at, run.bytes());
        }
        // Truncate.
        _ => {
            let at = random.below(length).min(bytes.len());
            bytes.truncate(at);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs the frontend on one input and checks that every diagnostic points inside it.
fn check_one(source: &str, what: &str) {
    let (_, diagnostics) = check_source(source);
    for diagnostic in &diagnostics {
        for label in &diagnostic.labels {
            assert!(
                label.span.start <= label.span.end && label.span.end as usize <= source.len(),
                "{what}: diagnostic `{}` points outside the text ({:?}, length {})",
                diagnostic.message,
                label.span,
                source.len()
            );
        }
    }
}

#[test]
fn mutated_real_files_never_panic() {
    let files = shared_corpus();
    assert!(!files.is_empty(), "no PTX files to mutate");
    let mut random = Random(0x005E_ED0F_F0CC_AC1A);
    const MUTANTS: usize = 1500;
    for index in 0..MUTANTS {
        let path = &files[index % files.len()];
        let source = std::fs::read_to_string(path).unwrap_or_default();
        // Stack a few mutations so that later ones land in already-broken text.
        let mut mutant = source;
        for _ in 0..1 + random.below(3) {
            mutant = mutate(&mutant, &mut random);
        }
        let what = format!("mutant {index} of {}", path.display());
        let (sender, receiver) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            check_one(&mutant, &what);
            let _ = sender.send(());
        });
        // A panic drops the sender: it is reported through `join` below.
        if receiver.recv_timeout(std::time::Duration::from_secs(120)) == Err(std::sync::mpsc::RecvTimeoutError::Timeout)
        {
            panic!("the frontend hangs on mutant {index} of {}", path.display());
        }
        if let Err(panic) = thread.join() {
            std::panic::resume_unwind(panic);
        }
    }
}

/// Inputs built to stress one part of the frontend each, at size `n`.
fn stress_inputs(n: usize, real: &str) -> Vec<(&'static str, String)> {
    let body =
        |statements: &str| format!(".version 7.8\n.target sm_80\n.address_size 64\n.entry k() {{\n{statements}}}\n");
    vec![
        ("a real file repeated", real.repeat(n)),
        (
            "registers",
            body(&format!(
                ".reg .b32 %r<{n}>;\n{}",
                (0..n).map(|i| format!("add.s32 %r{i}, %r{i}, 1;\n")).collect::<String>()
            )),
        ),
        ("labels", body(&(0..n).map(|i| format!("$L{i}:\nbra $L{};\n", (i * 7) % n)).collect::<String>())),
        ("one long expression", body(&format!(".reg .b32 %r1;\nmov.b32 %r1, {};\n", vec!["1"; n].join(" + ")))),
        ("many errors", body(&"mov.u32 %r1 %r2;\n".repeat(n))),
        ("unclosed blocks", body(&"{ .reg .b32 %x;\n".repeat(n))),
        ("stray closers", "}\n".repeat(n)),
        ("garbage directives", ".bogus 1 2 3\n".repeat(n)),
        ("a long operand list", body(&format!("call f, ({});\n", vec!["%r1"; n].join(", ")))),
        (
            "nested blocks",
            body(&format!("{}{}", "{\n".repeat(n.min(200)), "}\n".repeat(n.min(200))).repeat(n / 200 + 1)),
        ),
        ("long tokens", body(&format!(".reg .b32 %{};\n", "r".repeat(n * 40)))),
        ("unterminated comment", format!("{}/*", "mov.u32 %r1, 1;\n".repeat(n))),
    ]
}

#[test]
fn work_grows_linearly() {
    let files = shared_corpus();
    let real = files
        .iter()
        .find(|path| path.file_name().is_some_and(|name| name.to_string_lossy().starts_with("saxpy")))
        .or(files.first())
        .and_then(|path| std::fs::read_to_string(path).ok())
        .unwrap_or_default();
    let n = 100;
    let small = stress_inputs(n, &real);
    let large = stress_inputs(4 * n, &real);
    let mut failures = Vec::new();
    for ((name, small), (_, large)) in small.iter().zip(&large) {
        let (small_count, small_bytes) = work_with_watchdog(small);
        let (large_count, large_bytes) = work_with_watchdog(large);
        eprintln!(
            "{name}: {small_count} allocations ({small_bytes} bytes) at n, {large_count} ({large_bytes} bytes) at 4n"
        );
        // Linear work is 4x; allow for fixed costs and vectors that double as they grow.
        let bound = |small: u64| 6 * small + 10_000;
        if large_count > bound(small_count) || large_bytes > 2 * bound(small_bytes) {
            failures.push(format!(
                "{name}: {small_count} allocations ({small_bytes} bytes) at n, {large_count} ({large_bytes} bytes) at 4n"
            ));
        }
    }
    assert!(failures.is_empty(), "superlinear work:\n{}", failures.join("\n"));
}
