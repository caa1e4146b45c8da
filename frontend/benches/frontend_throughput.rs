//! Frontend throughput: lex, parse, parse plus check, and check alone of one large module built
//! from real kernels, in MB/s on one core, with the peak heap use as a multiple of the input size.
//!
//! Run with `cargo bench -p ptxr-frontend`. The module is built at run time by concatenating the
//! PTX files of `../shared/corpus` (beside the repository or one of its parents) until it reaches 20 MB; each copy has
//! its module-scope names (kernels, functions, globals) renamed so the module checks without
//! duplicate-name errors. Files that do not check cleanly under the common header are left out.
//! Without the shared corpus, the repository's own `examples/` and `tests/fixtures/ptx/` are used.

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::time::{Duration, Instant};

use ptxr_frontend::diagnostic::has_errors;
use ptxr_frontend::syntax::{ast, lex, parse, TokenKind};

/// Counts live and peak heap bytes, so the bench can report peak memory without an OS tool.
/// It counts only while `COUNTING` is set (the memory measurements): its atomic updates on
/// every allocation would otherwise be part of the measured throughput. Live bytes are signed,
/// as a block allocated before counting may be freed while counting.
struct CountingAllocator;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static PEAK_BYTES: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            record_growth(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(pointer, layout) };
        if COUNTING.load(Ordering::Relaxed) {
            LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged to the system allocator.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() && COUNTING.load(Ordering::Relaxed) {
            LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
            record_growth(new_size);
        }
        moved
    }
}

fn record_growth(size: usize) {
    if !COUNTING.load(Ordering::Relaxed) {
        return;
    }
    let live = LIVE_BYTES.fetch_add(size as isize, Ordering::Relaxed) + size as isize;
    PEAK_BYTES.fetch_max(live, Ordering::Relaxed);
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const TARGET_SIZE: usize = 20 * 1024 * 1024;
const HEADER: &str = ".version 8.5\n.target sm_90\n.address_size 64\n\n";

fn repository_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn ptx_files_under(folder: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    let mut paths: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            ptx_files_under(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "ptx") {
            files.push(path);
        }
    }
}

fn source_files() -> Vec<PathBuf> {
    let root = repository_root();
    let mut files = Vec::new();
    // `../shared/corpus` beside the repository, or beside a folder that holds the repository
    // (a worktree).
    for folder in root.ancestors().skip(1) {
        ptx_files_under(&folder.join("shared/corpus"), &mut files);
        if !files.is_empty() {
            break;
        }
    }
    if files.is_empty() {
        ptx_files_under(&root.join("examples"), &mut files);
        ptx_files_under(&root.join("tests/fixtures/ptx"), &mut files);
    }
    files
}

/// The names a module declares at module scope: its kernels, functions and global variables.
fn module_scope_names(module: &ast::Module) -> HashSet<String> {
    let mut names = HashSet::new();
    for directive in &module.directives {
        match directive {
            ast::Directive::Function(function) => {
                names.insert(function.name.node.to_string());
            }
            ast::Directive::Variable(variable) => {
                names.extend(variable.names.iter().map(|declared| declared.name.node.to_string()));
            }
            _ => {}
        }
    }
    names
}

/// The body of `source` (everything but its header directives) with every module-scope name
/// given the suffix `_copy{copy}`.
fn renamed_body(source: &str, names: &HashSet<String>, copy: usize) -> String {
    let (tokens, _) = lex(source);
    let mut body = String::with_capacity(source.len() + 1024);
    let mut written = 0;
    let mut skip_header_until = None;
    for (index, token) in tokens.iter().enumerate() {
        let start = token.span.start as usize;
        let end = token.span.end as usize;
        if let Some(until) = skip_header_until {
            if index < until {
                written = end;
                continue;
            }
            skip_header_until = None;
        }
        match token.kind {
            // `.version 7.8`, `.target sm_80, debug`, `.address_size 64`: the module gets one header.
            TokenKind::DotName("version") | TokenKind::DotName("address_size") => {
                skip_header_until = Some(index + 2);
                body.push_str(&source[written..start]);
                written = end;
            }
            TokenKind::DotName("target") => {
                let mut until = index + 2;
                while matches!(tokens.get(until).map(|token| token.kind), Some(TokenKind::Comma)) {
                    until += 2;
                }
                skip_header_until = Some(until);
                body.push_str(&source[written..start]);
                written = end;
            }
            TokenKind::Identifier(name) if names.contains(name) => {
                body.push_str(&source[written..end]);
                body.push_str(&format!("_copy{copy}"));
                written = end;
            }
            _ => {}
        }
    }
    body.push_str(&source[written..]);
    body.push('\n');
    body
}

/// A module of at least [`TARGET_SIZE`] bytes made of renamed copies of the files that check.
fn large_module() -> (String, usize) {
    let mut usable = Vec::new();
    for path in source_files() {
        let Ok(source) = std::fs::read_to_string(&path) else { continue };
        if source.contains(".address_size 32") {
            continue;
        }
        let (module, diagnostics) = parse(&source);
        if has_errors(&diagnostics) {
            continue;
        }
        let names = module_scope_names(&module);
        let alone = format!("{HEADER}{}", renamed_body(&source, &names, 0));
        let (checked, diagnostics) = ptxr_frontend::check_source(&alone);
        // `PTXR_BENCH_VERBOSE=1` says which files are left out, and why.
        if checked.is_none() && std::env::var_os("PTXR_BENCH_VERBOSE").is_some() {
            let first_error =
                diagnostics.iter().find(|diagnostic| diagnostic.severity == ptxr_frontend::Severity::Error);
            eprintln!("left out {}: {:?}", path.display(), first_error.map(|diagnostic| &diagnostic.message));
        }
        if checked.is_some() {
            usable.push((source, names));
        }
    }
    assert!(!usable.is_empty(), "no PTX file checks cleanly: nothing to benchmark");
    let mut module = String::from(HEADER);
    let mut copies = 0;
    while module.len() < TARGET_SIZE {
        for (source, names) in &usable {
            module.push_str(&renamed_body(source, names, copies));
            copies += 1;
        }
    }
    (module, usable.len())
}

/// The time this thread has spent on a CPU (Linux: the first field of
/// `/proc/thread-self/schedstat`, in nanoseconds). On a machine shared with other work, wall
/// time also counts the time spent waiting for a core; this does not.
fn thread_cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanoseconds: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanoseconds))
}

/// The best wall time and the best CPU time of one phase.
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
}

/// Runs `work` until at least a second has passed (at least twice), and returns the best times.
fn best_time(wanted: bool, mut work: impl FnMut()) -> Timing {
    best_time_after(wanted, || (), |()| work())
}

/// [`best_time`] of `work` alone, each run on a fresh input from `setup` (not timed).
fn best_time_after<T>(wanted: bool, mut setup: impl FnMut() -> T, mut work: impl FnMut(T)) -> Timing {
    let mut best = Timing { wall: Duration::MAX, cpu: None };
    if !wanted {
        return best;
    }
    let started = Instant::now();
    let mut runs = 0;
    while runs < 2 || started.elapsed() < Duration::from_secs(1) {
        let input = setup();
        let (before, cpu_before) = (Instant::now(), thread_cpu_time());
        work(input);
        best.wall = best.wall.min(before.elapsed());
        if let (Some(cpu_before), Some(cpu_after)) = (cpu_before, thread_cpu_time()) {
            let cpu = cpu_after.saturating_sub(cpu_before);
            best.cpu = Some(best.cpu.map_or(cpu, |best| best.min(cpu)));
        }
        runs += 1;
    }
    best
}

fn megabytes_per_second(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64()
}

fn main() {
    let (module, files) = large_module();
    let bytes = module.len();
    println!("module: {:.1} MB from {files} files", bytes as f64 / 1e6);
    // `PTXR_BENCH_SAVE=path` writes the module there and stops, for profiling it with another
    // program (callgrind on a small binary that checks one file).
    if let Some(path) = std::env::var_os("PTXR_BENCH_SAVE") {
        std::fs::write(&path, &module).expect("cannot write the benchmark module");
        return;
    }

    let (module_tree, diagnostics) = parse(&module);
    assert!(!has_errors(&diagnostics), "the benchmark module does not parse: {:?}", diagnostics.first());
    let (checked, diagnostics) = ptxr_frontend::check(module_tree);
    assert!(checked.is_some(), "the benchmark module does not check: {:?}", diagnostics.first());
    drop(checked);

    // `PTXR_BENCH_ONLY=check` (or `lex`, `parse`, `check-alone`) measures one phase, for
    // profiling it alone.
    let only = std::env::var("PTXR_BENCH_ONLY").ok();
    let wanted = |phase: &str| only.as_deref().is_none_or(|only| only == phase);
    let lex_time = best_time(wanted("lex"), || {
        std::hint::black_box(lex(&module));
    });
    let parse_time = best_time(wanted("parse"), || {
        std::hint::black_box(parse(&module));
    });
    let check_time = best_time(wanted("check"), || {
        std::hint::black_box(ptxr_frontend::check_source(&module));
    });
    // The semantic pass alone, on a tree parsed before the clock starts (`check` consumes it).
    let check_alone_time = best_time_after(
        wanted("check-alone"),
        || parse(&module).0,
        |tree| {
            std::hint::black_box(ptxr_frontend::check(tree));
        },
    );
    for (phase, label, time) in [
        ("lex", "lex", lex_time),
        ("parse", "lex+parse", parse_time),
        ("check", "parse+check", check_time),
        ("check-alone", "check alone", check_alone_time),
    ] {
        if wanted(phase) {
            let cpu = time.cpu.map_or(String::new(), |cpu| {
                format!(" wall, {:7.1} MB/s of CPU time", megabytes_per_second(bytes, cpu))
            });
            println!("{label:12}  {:7.1} MB/s{cpu}", megabytes_per_second(bytes, time.wall));
        }
    }
    if let Some(cpu) = check_alone_time.cpu {
        println!("check alone:  {:7.2} ms/MB of CPU time", cpu.as_secs_f64() * 1e3 / (bytes as f64 / 1e6));
    }

    COUNTING.store(true, Ordering::Relaxed);
    let baseline = LIVE_BYTES.load(Ordering::Relaxed);
    let megabytes = |size: isize| size as f64 / 1e6;
    let ratio = |size: isize| size as f64 / bytes as f64;
    PEAK_BYTES.store(baseline, Ordering::Relaxed);
    let tokens = lex(&module);
    let token_bytes = LIVE_BYTES.load(Ordering::Relaxed) - baseline;
    drop(tokens);
    let tree = parse(&module);
    let tree_bytes = LIVE_BYTES.load(Ordering::Relaxed) - baseline;
    let parse_peak = PEAK_BYTES.load(Ordering::Relaxed) - baseline;
    let checked = ptxr_frontend::check(tree.0);
    let checked_bytes = LIVE_BYTES.load(Ordering::Relaxed) - baseline;
    drop(checked);
    PEAK_BYTES.store(baseline, Ordering::Relaxed);
    let result = ptxr_frontend::check_source(&module);
    let peak = PEAK_BYTES.load(Ordering::Relaxed) - baseline;
    drop(result);
    println!("tokens:       {:7.1} MB = {:5.2} x the input", megabytes(token_bytes), ratio(token_bytes));
    println!(
        "syntax tree:  {:7.1} MB = {:5.2} x the input (peak while parsing {:.2} x)",
        megabytes(tree_bytes),
        ratio(tree_bytes),
        ratio(parse_peak)
    );
    println!("checked IR:   {:7.1} MB = {:5.2} x the input", megabytes(checked_bytes), ratio(checked_bytes));
    println!(
        "peak memory of parse+check, beyond the input: {:.1} MB = {:.2} x the input",
        megabytes(peak),
        ratio(peak)
    );
}
