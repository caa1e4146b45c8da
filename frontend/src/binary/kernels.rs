//! The kernel names a listing shows for a PTX entry.
//!
//! A library's PTX can be hundreds of megabytes, so the names come from a scan for `.entry`
//! outside comments and strings rather than from the parser, whose syntax tree of such a module
//! would take gigabytes just to be listed.

/// The `.entry` names of a PTX text, declared or defined, in the order they appear.
pub fn ptx_kernels(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut kernels = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'/' if bytes.get(at + 1) == Some(&b'/') => at = skip_past(bytes, at + 2, b"\n"),
            b'/' if bytes.get(at + 1) == Some(&b'*') => at = skip_past(bytes, at + 2, b"*/"),
            b'"' => at = skip_string(bytes, at + 1),
            b'.' if bytes[at..].starts_with(b".entry") && !is_name_byte(bytes.get(at + 6)) => {
                at += 6;
                while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
                    at += 1;
                }
                let start = at;
                while is_name_byte(bytes.get(at)) {
                    at += 1;
                }
                if at > start {
                    kernels.push(text[start..at].to_string());
                }
            }
            byte if is_name_byte(Some(&byte)) => {
                // Skip the whole word, so that `x.entry` inside a longer name is not a directive.
                while is_name_byte(bytes.get(at)) {
                    at += 1;
                }
            }
            _ => at += 1,
        }
    }
    kernels
}

/// Letters, digits, `_`, `$` and `%`: the bytes of PTX identifiers (all ASCII, so a name never
/// ends inside a UTF-8 sequence).
fn is_name_byte(byte: Option<&u8>) -> bool {
    byte.is_some_and(|&byte| byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$' | b'%'))
}

fn skip_past(bytes: &[u8], from: usize, end: &[u8]) -> usize {
    bytes[from.min(bytes.len())..]
        .windows(end.len())
        .position(|window| window == end)
        .map_or(bytes.len(), |position| from + position + end.len())
}

fn skip_string(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::ptx_kernels;

    #[test]
    fn finds_entries_but_not_in_comments_strings_or_other_directives() {
        let text = ".version 9.5\n// .entry commented\n/* .entry\n blocked */ .visible .entry first(\n.param .u64 p)\n{ ret; }\n\
                    .file 1 \".entry in a string\"\n.entry\tsecond ()\n.func not_a_kernel()\n.extern .entry declared(.param .u32 x);\n\
                    .entry";
        assert_eq!(ptx_kernels(text), ["first", "second", "declared"]);
        assert!(ptx_kernels("/* unterminated .entry").is_empty());
        assert!(ptx_kernels(".entryish x").is_empty());
    }
}
