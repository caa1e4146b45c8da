//! The result of one run and its JSON form, the output of `ptxr run` (see `LAUNCH_SPEC.md`):
//!
//! ```json
//! {
//!   "kernel": "add",
//!   "buffers": {
//!     "in": { "type": "u64", "data": [1, 2, 3], "bits": ["0x0000000000000001", "..."] }
//!   },
//!   "elapsed_ms": 0.41
//! }
//! ```
//!
//! The text is written by hand rather than through serde_json, so that every `u64` prints exactly
//! and floats keep the forms chosen in [`crate::element`]. Buffers are listed in the spec's order.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::element::ElementType;
use crate::error::RuntimeError;
use crate::launch::NamedBuffer;

/// The outcome of [`crate::PreparedLaunch::run`]: every buffer after the grid, and its time.
///
/// It shares the buffers with the launch rather than copying them (they can be gigabytes); the
/// launch cannot run again until the report is dropped.
pub struct LaunchReport {
    kernel: String,
    buffers: Vec<NamedBuffer>,
    elapsed: Duration,
}

impl LaunchReport {
    pub(crate) fn new(kernel: String, buffers: Vec<NamedBuffer>, elapsed: Duration) -> LaunchReport {
        LaunchReport { kernel, buffers, elapsed }
    }

    /// The buffers that the kernel wrote past the end of, with how many bytes of the guard zone
    /// after each changed (see [`crate::buffer::GUARD_BYTES`]).
    pub fn overruns(&self) -> Vec<(&str, usize)> {
        self.buffers
            .iter()
            .map(|buffer| (buffer.name.as_str(), buffer.memory.guard_bytes_changed()))
            .filter(|&(_, changed)| changed > 0)
            .collect()
    }

    pub fn kernel_name(&self) -> &str {
        &self.kernel
    }

    /// The time of the grid alone.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    pub fn elapsed_ms(&self) -> f64 {
        // One division, so that 410 µs is exactly the double nearest 0.41.
        self.elapsed.as_nanos() as f64 / 1e6
    }

    /// The named buffer's contents after the run (little-endian elements).
    pub fn buffer_bytes(&self, name: &str) -> Option<&[u8]> {
        self.buffers.iter().find(|buffer| buffer.name == name).map(|buffer| buffer.memory.as_slice())
    }

    /// The buffer names, element types and contents, in the spec's order.
    pub fn buffers(&self) -> impl Iterator<Item = (&str, ElementType, &[u8])> {
        self.buffers.iter().map(|buffer| (buffer.name.as_str(), buffer.element, buffer.memory.as_slice()))
    }

    /// The output JSON of the launch contract, ending in a newline. Each buffer has `type`,
    /// `data` and `bits`; with `dump_dir`, each buffer is instead written to `DIR/NAME.bin` (raw
    /// little-endian; the folder is created if needed) and listed as `type`, `len`, `file`.
    pub fn to_json(&self, dump_dir: Option<&Path>) -> Result<String, RuntimeError> {
        let mut out = String::with_capacity(self.estimated_json_bytes(dump_dir.is_some()));
        out.push_str("{\n  \"kernel\": ");
        write_string(&self.kernel, &mut out);
        out.push_str(",\n  \"buffers\": {");
        if let Some(folder) = dump_dir {
            std::fs::create_dir_all(folder).map_err(|source| RuntimeError::Io {
                context: "cannot create the dump folder".into(),
                path: folder.to_path_buf(),
                source,
            })?;
        }
        for (position, buffer) in self.buffers.iter().enumerate() {
            out.push_str(if position == 0 { "\n    " } else { ",\n    " });
            write_string(&buffer.name, &mut out);
            out.push_str(": { \"type\": ");
            write_string(buffer.element.name(), &mut out);
            let bytes = buffer.memory.as_slice();
            let element = buffer.element;
            match dump_dir {
                Some(folder) => {
                    let path = dump_file(folder, &buffer.name)?;
                    std::fs::write(&path, bytes).map_err(|source| RuntimeError::Io {
                        context: format!("buffer `{}`: cannot write", buffer.name),
                        path: path.clone(),
                        source,
                    })?;
                    let _ = write!(out, ", \"len\": {}, \"file\": ", bytes.len() / element.size_bytes());
                    write_string(&path.to_string_lossy(), &mut out);
                }
                None => {
                    out.push_str(", \"data\": [");
                    write_elements(element, bytes, &mut out, ElementType::write_value);
                    out.push_str("], \"bits\": [");
                    write_elements(element, bytes, &mut out, |element, bits, out| {
                        out.push('"');
                        element.write_hex(bits, out);
                        out.push('"');
                    });
                    out.push(']');
                }
            }
            out.push_str(" }");
        }
        out.push_str(if self.buffers.is_empty() { "},\n" } else { "\n  },\n" });
        let _ = writeln!(out, "  \"elapsed_ms\": {:?}\n}}", self.elapsed_ms());
        Ok(out)
    }

    fn estimated_json_bytes(&self, dumped: bool) -> usize {
        let per_buffer = |buffer: &NamedBuffer| {
            if dumped {
                100
            } else {
                // A value and its bits: up to ~24 characters each, plus separators.
                100 + buffer.memory.len() / buffer.element.size_bytes() * 56
            }
        };
        200 + self.buffers.iter().map(per_buffer).sum::<usize>()
    }
}

/// Appends each element of `bytes`, comma separated.
fn write_elements(
    element: ElementType,
    bytes: &[u8],
    out: &mut String,
    write_one: impl Fn(ElementType, u64, &mut String),
) {
    for (index, chunk) in bytes.chunks_exact(element.size_bytes()).enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        write_one(element, element.read_bits(chunk), out);
    }
}

/// `DIR/NAME.bin`, refusing names that would leave the folder or are not file names.
fn dump_file(folder: &Path, name: &str) -> Result<std::path::PathBuf, RuntimeError> {
    let usable = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0']);
    if !usable {
        return Err(RuntimeError::buffer(name, "its name cannot be a file name in the dump folder"));
    }
    Ok(folder.join(format!("{name}.bin")))
}

/// Appends `text` as a JSON string.
fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for character in text.chars() {
        match character {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            control if control < ' ' => {
                let _ = write!(out, "\\u{:04x}", control as u32);
            }
            other => out.push(other),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::buffer::{AlignedBuffer, Placement};

    fn buffer(name: &str, element: ElementType, bytes: &[u8]) -> NamedBuffer {
        let mut memory = AlignedBuffer::zeroed(bytes.len(), Placement::Anywhere).expect("memory");
        memory.as_mut_slice().copy_from_slice(bytes);
        NamedBuffer { name: name.into(), element, memory: Arc::new(memory) }
    }

    fn report(buffers: Vec<NamedBuffer>) -> LaunchReport {
        LaunchReport::new("add".into(), buffers, Duration::from_micros(410))
    }

    #[test]
    fn the_contract_shape() {
        let values: Vec<u8> = [1u64, 2, u64::MAX].iter().flat_map(|value| value.to_le_bytes()).collect();
        let floats: Vec<u8> =
            [0x7fc0_0001u32, 0x8000_0000, 0x4000_0000].iter().flat_map(|bits| bits.to_le_bytes()).collect();
        let text = report(vec![
            buffer("out", ElementType::U64, &values),
            buffer("f", ElementType::F32, &floats),
            buffer("empty", ElementType::U8, &[]),
        ])
        .to_json(None)
        .expect("no files involved");
        assert_eq!(
            text,
            r#"{
  "kernel": "add",
  "buffers": {
    "out": { "type": "u64", "data": [1, 2, 18446744073709551615], "bits": ["0x0000000000000001", "0x0000000000000002", "0xffffffffffffffff"] },
    "f": { "type": "f32", "data": ["NaN", -0.0, 2.0], "bits": ["0x7fc00001", "0x80000000", "0x40000000"] },
    "empty": { "type": "u8", "data": [], "bits": [] }
  },
  "elapsed_ms": 0.41
}
"#
        );
        let parsed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(parsed["buffers"]["out"]["data"][2].as_u64(), Some(u64::MAX));
        assert_eq!(parsed["buffers"]["f"]["bits"][0], "0x7fc00001");
    }

    #[test]
    fn no_buffers_and_odd_names() {
        let text = report(Vec::new()).to_json(None).expect("no files involved");
        assert_eq!(text, "{\n  \"kernel\": \"add\",\n  \"buffers\": {},\n  \"elapsed_ms\": 0.41\n}\n");
        let text = report(vec![buffer("a\"b\n", ElementType::S8, &[0xff])]).to_json(None).expect("no files involved");
        let parsed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(parsed["buffers"]["a\"b\n"]["data"][0], -1);
    }

    #[test]
    fn dump_dir_writes_files() {
        let folder = std::env::temp_dir().join(format!("ptxr-runtime-dump-{}", std::process::id()));
        let report = report(vec![buffer("out", ElementType::U16, &[1, 0, 2, 0])]);
        let text = report.to_json(Some(&folder)).expect("writes the dump");
        let parsed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        let entry = &parsed["buffers"]["out"];
        assert_eq!(entry["type"], "u16");
        assert_eq!(entry["len"], 2);
        let file = folder.join("out.bin");
        assert_eq!(entry["file"].as_str(), Some(&*file.to_string_lossy()));
        assert!(entry.get("data").is_none());
        assert_eq!(std::fs::read(&file).expect("dumped"), [1, 0, 2, 0]);
        let bad = LaunchReport::new("k".into(), vec![buffer("../x", ElementType::U8, &[1])], Duration::ZERO);
        let message = bad.to_json(Some(&folder)).map(|_| ()).expect_err("refused").to_string();
        assert_eq!(message, "buffer `../x`: its name cannot be a file name in the dump folder");
        std::fs::remove_dir_all(&folder).expect("clean up");
    }
}
