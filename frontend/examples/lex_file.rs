//! Lexes one PTX file, for profiling the lexer alone:
//! `valgrind --tool=callgrind --toggle-collect='lex_file::lex_and_drop*' lex_file FILE`.
//! With a count after the file, lexes it that many times and prints the best time per MB (for
//! A/B comparisons of two builds on a busy machine, where the best of many short runs is the
//! steadiest figure: the thread's CPU time, as the bench reads it, is too coarse for runs of a
//! few milliseconds).

use std::time::{Duration, Instant};

fn main() {
    let mut arguments = std::env::args().skip(1);
    let path = arguments.next().expect("usage: lex_file FILE [REPEATS]");
    let repeats: usize = arguments.next().map_or(1, |count| count.parse().expect("REPEATS is a number"));
    let source = std::fs::read_to_string(path).expect("cannot read the file");
    let mut best = Duration::MAX;
    let mut tokens = 0;
    for _ in 0..repeats {
        let before = Instant::now();
        tokens = lex_and_drop(&source);
        best = best.min(before.elapsed());
    }
    println!("{} bytes lexed: {tokens} tokens", source.len());
    if repeats > 1 {
        println!("best of {repeats}: {:.3} ms/MB", best.as_secs_f64() * 1e3 / (source.len() as f64 / 1e6));
    }
}

/// The lexer and the drop of its tokens, as the bench times them.
#[inline(never)]
fn lex_and_drop(source: &str) -> usize {
    let (tokens, diagnostics) = ptxr_frontend::syntax::lex(source);
    assert!(diagnostics.is_empty(), "the file does not lex: {:?}", diagnostics.first());
    tokens.len()
}
