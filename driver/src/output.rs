//! Atomic output: the artefact is written to a temporary file beside the destination and renamed
//! over it only when complete, so a failed compilation never leaves a partial file at `-o`.

use std::io::Write;
use std::path::Path;

pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut file = tempfile::NamedTempFile::new_in(directory)
        .map_err(|error| format!("cannot create a file in {}: {error}", directory.display()))?;
    file.write_all(bytes).map_err(|error| format!("cannot write {}: {error}", path.display()))?;
    file.persist(path).map_err(|error| format!("cannot write {}: {}", path.display(), error.error))?;
    Ok(())
}
