//! Writing the build folder all at once.

use std::fs;
use std::path::Path;

use crate::{GenError, GeneratedFile};

/// Writes `files` into a fresh temporary folder beside `out`, then renames it
/// into place. The previous contents of `out` are replaced only when every
/// file was written; on any error `out` is left as it was.
pub fn write_atomically(out: &Path, files: &[GeneratedFile]) -> Result<(), GenError> {
    let io = |what: &str, path: &Path, e: std::io::Error| GenError::Io(format!("{what} {}: {e}", path.display()));
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::env::current_dir().map_err(|e| io("cannot read", Path::new("."), e))?,
    };
    fs::create_dir_all(&parent).map_err(|e| io("cannot create", &parent, e))?;
    let base = out.file_name().and_then(|n| n.to_str()).unwrap_or("build");
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{base}.new-"))
        .tempdir_in(&parent)
        .map_err(|e| io("cannot create a temporary folder in", &parent, e))?;
    for file in files {
        let path = staging.path().join(&file.path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| io("cannot create", dir, e))?;
        }
        fs::write(&path, &file.contents).map_err(|e| io("cannot write", &path, e))?;
    }
    let old = tempfile::Builder::new()
        .prefix(&format!(".{base}.old-"))
        .tempdir_in(&parent)
        .map_err(|e| io("cannot create a temporary folder in", &parent, e))?;
    let had_old = out.exists();
    if had_old {
        // The empty placeholder is replaced by the previous build folder.
        fs::remove_dir(old.path()).map_err(|e| io("cannot prepare", old.path(), e))?;
        fs::rename(out, old.path()).map_err(|e| io("cannot move aside", out, e))?;
    }
    let staged = staging.keep();
    if let Err(e) = fs::rename(&staged, out) {
        if had_old {
            let _ = fs::rename(old.path(), out);
        }
        let _ = fs::remove_dir_all(&staged);
        return Err(io("cannot move into place", out, e));
    }
    drop(old); // removes the previous build folder
    Ok(())
}
