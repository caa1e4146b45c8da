//! `printf("%s")` of a string chosen at run time, on the CPU and on SPIR-V (OpenCL's `printf`,
//! which takes only constant strings: `intrinsics/src/printf_strings.rs` branches to a `printf`
//! per string constant the address may be, or prints the string from memory a few `%c` at a
//! time). Each kernel's lines are compared with the text C's `printf` gives for the same
//! arguments, written here with Rust's formatting (`%-6s` is `{:<6}`, `%.2s` is `{:.2}`), and
//! `vprintf`'s result with the number of arguments the format reads.
//!
//! Each kernel (`printf_kernel`) runs one block of `THREADS` threads; thread `i` fills CUDA's
//! packed argument buffer (`depot`) as the case says, calls `vprintf` with the format `format`,
//! and stores its result at `output[i]`.

use serde_json::{json, Value};

mod support;
use support::{opencl_device_available, printf_kernel as kernel, ptxr, scratch, string_global};

const THREADS: usize = 6;

/// Runs `ptx` on `target` with `text` as the `text` buffer; the printed lines, sorted, and the
/// results of `vprintf`.
fn run(ptx: &str, text: &[u8], target: &str, level: &str) -> (Vec<String>, Vec<i64>) {
    let directory = scratch();
    let spec = json!({
        "grid": [1], "block": [THREADS],
        "buffers": {
            "output": { "type": "s32", "len": THREADS },
            "text": { "type": "u8", "data": text },
        },
        "args": [{ "buffer": "output" }, { "buffer": "text" }],
    });
    std::fs::write(directory.path().join("kernel.ptx"), ptx).unwrap_or_else(|error| panic!("{error}"));
    std::fs::write(directory.path().join("spec.json"), spec.to_string()).unwrap_or_else(|error| panic!("{error}"));
    let output = ptxr(&["run", "kernel.ptx", "--launch", "spec.json", "--target", target, level], directory.path());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{target} {level}: {}\n{ptx}", String::from_utf8_lossy(&output.stderr));
    let json_start = stdout.find("{\n").unwrap_or_else(|| panic!("{target}: no JSON in {stdout}"));
    let mut lines: Vec<String> = stdout[..json_start].lines().map(str::to_string).collect();
    lines.sort();
    let result: Value = serde_json::from_str(&stdout[json_start..]).unwrap_or_else(|error| panic!("{error}: {stdout}"));
    let returned =
        (0..THREADS).map(|thread| result["buffers"]["output"]["data"][thread].as_i64().unwrap_or(-2)).collect();
    (lines, returned)
}

/// Runs `ptx` on the CPU and, where there is an OpenCL device, on SPIR-V (at `-O0` too), and
/// checks both against `expected` (thread `i`'s line, without its newline) and `arguments`;
/// `spirv-val` checks the SPIR-V.
fn check(name: &str, ptx: &str, text: &[u8], expected: impl Fn(usize) -> String, arguments: i64) {
    let mut lines: Vec<String> = (0..THREADS).map(expected).collect();
    lines.sort();
    let mut runs = vec![("cpu", "-O2")];
    if opencl_device_available() {
        runs.extend([("spirv", "-O2"), ("spirv", "-O0")]);
    }
    for (target, level) in runs {
        let (printed, returned) = run(ptx, text, target, level);
        assert_eq!(printed, lines, "{name} on {target} {level}");
        assert_eq!(returned, vec![arguments; THREADS], "{name} on {target} {level}: vprintf's results");
    }
    for level in ["-O0", "-O2"] {
        validate_spirv(name, ptx, level);
    }
}

/// `spirv-val` accepts the module's SPIR-V (OpenCL's environment of its version).
fn validate_spirv(name: &str, ptx: &str, level: &str) {
    let directory = scratch();
    std::fs::write(directory.path().join("kernel.ptx"), ptx).unwrap_or_else(|error| panic!("{error}"));
    let output = ptxr(&["compile", "kernel.ptx", "--target", "spirv", level, "-o", "kernel.spv"], directory.path());
    assert!(output.status.success(), "{name} {level}: {}", String::from_utf8_lossy(&output.stderr));
    let spirv = std::fs::read(directory.path().join("kernel.spv")).unwrap_or_else(|error| panic!("{error}"));
    let environment = if spirv.get(4..8) == Some(&[0, 3, 1, 0][..]) { "spv1.3" } else { "opencl2.2" };
    let validation = std::process::Command::new("spirv-val")
        .args(["--target-env", environment, "kernel.spv"])
        .current_dir(directory.path())
        .output();
    match validation {
        Ok(validation) => assert!(
            validation.status.success(),
            "{name} {level}: spirv-val: {}",
            String::from_utf8_lossy(&validation.stderr)
        ),
        Err(_) if std::env::var("PTXR_REQUIRE_VALIDATORS").is_ok_and(|value| value == "1") => {
            panic!("spirv-val is required (PTXR_REQUIRE_VALIDATORS=1)")
        }
        Err(_) => eprintln!("skipping spirv-val: not installed"),
    }
}

const WORDS: [&str; 3] = ["zero", "one", "two"];

/// `%rd4` = the generic address of `zero`, `one` or `two` (thread index modulo 3), chosen by
/// two `selp`s.
const CHOOSE_OF_THREE: &str = "rem.u32 %r2, %r1, 3;\nsetp.eq.u32 %p1, %r2, 0;\nsetp.eq.u32 %p2, %r2, 1;\n\
    cvta.global.u64 %rd1, zero;\ncvta.global.u64 %rd2, one;\ncvta.global.u64 %rd3, two;\n\
    selp.b64 %rd5, %rd2, %rd3, %p2;\nselp.b64 %rd4, %rd1, %rd5, %p1;";

fn three_words() -> String {
    WORDS.iter().map(|word| string_global(word, word)).collect()
}

#[test]
fn a_string_chosen_by_selp_among_three_constants() {
    let ptx = kernel(
        &three_words(),
        "%d is %s\n",
        &format!("{CHOOSE_OF_THREE}\nst.local.u32 [%depot], %r1;\nst.local.u64 [%depot+8], %rd4;"),
    );
    check("selp of three", &ptx, b"", |thread| format!("{thread} is {}", WORDS[thread % 3]), 2);
}

#[test]
fn a_const_string_and_a_global_string() {
    // The `.const` word and the `.global` one, chosen by `selp`; then one of the module's
    // strings reached through an addition the trace does not follow (of `text[0]`, zero), which
    // the address comparison still finds.
    let globals = format!(
        "{}{}",
        string_global("global_word", "in .global"),
        string_global("constant_word", "in .const").replace(".global", ".const")
    );
    let body = "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\n\
        mov.u64 %rd1, constant_word;\ncvta.const.u64 %rd2, %rd1;\ncvta.global.u64 %rd3, global_word;\n\
        selp.b64 %rd4, %rd2, %rd3, %p1;\nst.local.u64 [%depot], %rd4;\n\
        cvta.to.global.u64 %rd6, %text;\nld.global.u8 %rd7, [%rd6];\nadd.u64 %rd8, %rd2, %rd7;\n\
        st.local.u64 [%depot+8], %rd8;";
    check(
        ".const and .global",
        &kernel(&globals, "<%s> <%s>\n", body),
        &[0],
        |thread| format!("<{}> <in .const>", if thread % 2 == 1 { "in .const" } else { "in .global" }),
        2,
    );
}

/// Stores `text` and its NUL into the thread's `built` array, a byte at a time, then the
/// thread's digit over byte `digit_at`.
fn build_in_local(text: &str, digit_at: usize) -> String {
    let mut body: String = text
        .bytes()
        .chain([0])
        .enumerate()
        .map(|(index, byte)| format!("st.local.u8 [built+{index}], {byte};\n"))
        .collect();
    body.push_str(&format!("add.u32 %r3, %r1, 48;\nst.local.u8 [built+{digit_at}], %r3;\n"));
    body
}

#[test]
fn a_string_built_at_run_time_in_local_memory() {
    // 19 bytes: printed in chunks of 8, 8 and 3 characters.
    let template = "run-time string #?!";
    let body = format!(
        "{}mov.u64 %rd1, built;\ncvta.local.u64 %rd2, %rd1;\n\
         st.local.u32 [%depot], %r1;\nst.local.u64 [%depot+8], %rd2;",
        build_in_local(template, 17)
    );
    check(
        "a .local string",
        &kernel("", "%d:%s|\n", &body),
        b"",
        |thread| format!("{thread}:run-time string #{thread}!|"),
        2,
    );
}

#[test]
fn strings_in_global_memory_with_widths_and_precisions() {
    // Thread i prints the suffix of `alphabet` from byte i, five times: left- and
    // right-justified in 10, cut to 3, cut to 2 in 7, and plain.
    let body = "cvta.to.global.u64 %rd1, %text;\ncvt.u64.u32 %rd2, %r1;\nadd.u64 %rd3, %rd1, %rd2;\n\
        cvta.global.u64 %rd4, %rd3;\n\
        st.local.u64 [%depot], %rd4;\nst.local.u64 [%depot+8], %rd4;\nst.local.u64 [%depot+16], %rd4;\n\
        st.local.u64 [%depot+24], %rd4;\nst.local.u64 [%depot+32], %rd4;\nst.local.u32 [%depot+40], %r1;";
    let word = "alphabet";
    check(
        "global memory",
        &kernel("", "[%-10s][%10s][%.3s][%7.2s][%s] %d\n", body),
        b"alphabet\0",
        |thread| {
            let suffix = &word[thread..];
            format!("[{suffix:<10}][{suffix:>10}][{suffix:.3}][{suffix:>7.2}][{suffix}] {thread}")
        },
        6,
    );
}

#[test]
fn widths_and_precisions_of_strings_chosen_among_constants() {
    // Three `%s` of one `selp` between two words: 8 variants, each with its strings written
    // into the format.
    let globals = string_global("short", "ab") + &string_global("long", "a longer one");
    let body = "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\n\
        cvta.global.u64 %rd1, short;\ncvta.global.u64 %rd2, long;\nselp.b64 %rd3, %rd1, %rd2, %p1;\n\
        st.local.u64 [%depot], %rd3;\nst.local.u64 [%depot+8], %rd3;\nst.local.u64 [%depot+16], %rd3;";
    check(
        "widths of constants",
        &kernel(&globals, "%-6s|%6s|%.2s|\n", body),
        b"",
        |thread| {
            let word = if thread % 2 == 1 { "ab" } else { "a longer one" };
            format!("{word:<6}|{word:>6}|{word:.2}|")
        },
        3,
    );
}

#[test]
fn two_strings_chosen_at_run_time_in_one_call() {
    // One of three words and, reversed, one of the same three; then a word chosen among
    // constants beside a string from global memory, which no constant matches.
    let body = format!(
        "{CHOOSE_OF_THREE}\nst.local.u64 [%depot], %rd4;\n\
         selp.b64 %rd7, %rd2, %rd1, %p2;\nselp.b64 %rd6, %rd3, %rd7, %p1;\nst.local.u64 [%depot+8], %rd6;\n\
         st.local.u64 [%depot+16], %rd4;\ncvta.to.global.u64 %rd8, %text;\ncvta.global.u64 %rd8, %rd8;\n\
         st.local.u64 [%depot+24], %rd8;"
    );
    check(
        "two strings",
        &kernel(&three_words(), "%s+%s, %s/%s\n", &body),
        b"memory\0",
        |thread| {
            let first = WORDS[thread % 3];
            let second = ["two", "one", "zero"][thread % 3];
            format!("{first}+{second}, {first}/memory")
        },
        4,
    );
}

/// `%rd2` = null in odd threads, `word` in even ones.
const NULL_OR_WORD: &str = "and.b32 %r2, %r1, 1;\nsetp.eq.u32 %p1, %r2, 1;\ncvta.global.u64 %rd1, word;\n\
    selp.b64 %rd2, 0, %rd1, %p1;";

fn null_or_word(thread: usize) -> &'static str {
    if thread % 2 == 1 {
        "(null)"
    } else {
        "word"
    }
}

#[test]
fn a_null_string_prints_as_cuda_prints_it() {
    // Alone: one `printf` variant for null, one for each of the module's strings.
    let body = format!("{NULL_OR_WORD}\nst.local.u64 [%depot], %rd2;");
    check(
        "null",
        &kernel(&string_global("word", "word"), "[%s]\n", &body),
        b"",
        |thread| format!("[{}]", null_or_word(thread)),
        1,
    );
}

#[test]
fn a_null_string_with_widths_and_precisions_prints_in_pieces() {
    // Four times in one call: too many variants, so printed in pieces.
    let body = format!(
        "{NULL_OR_WORD}\nst.local.u64 [%depot], %rd2;\nst.local.u64 [%depot+8], %rd2;\n\
         st.local.u64 [%depot+16], %rd2;\nst.local.u64 [%depot+24], %rd2;"
    );
    check(
        "null in pieces",
        &kernel(&string_global("word", "word"), "%s|%8s|%-8s|%.2s\n", &body),
        b"",
        |thread| {
            let word = null_or_word(thread);
            format!("{word}|{word:>8}|{word:<8}|{word:.2}")
        },
        4,
    );
}
