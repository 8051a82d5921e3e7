//! Writing the build folder all at once, and only over a folder gen wrote.
//!
//! Every folder gen writes holds [`MANIFEST`], the sorted list of the files
//! it wrote (no time, so the same configuration gives the same bytes). An
//! existing output path is replaced only when it is a folder gen wrote: one
//! holding the manifest, an empty folder, or a build folder of a gen older
//! than the manifest (see [`Existing`]). Anything else (a folder of other
//! files, a regular file, a symbolic link) is refused before anything is
//! written, so `--out` never deletes what gen did not write.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::{GenError, GeneratedFile};

/// The file at the top of every build folder that marks it as gen's own
/// and lists what gen wrote there.
pub const MANIFEST: &str = "gen-manifest.txt";

/// The first line of [`MANIFEST`] starts with this; gen trusts a manifest
/// only when it does.
const MANIFEST_MARK: &str = "# gen-manifest:";

/// The text of [`MANIFEST`] for `files`: two comment lines, then one
/// relative path per line in path order.
pub fn manifest(files: &[GeneratedFile]) -> String {
    let mut paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    let mut out = format!(
        "{MANIFEST_MARK} the files {} {} wrote in this folder.\n\
         # gen --out replaces this folder, and whatever else it holds, only while this file is here.\n",
        config::TOOL,
        config::TOOL_VERSION
    );
    for p in paths {
        out.push_str(p);
        out.push('\n');
    }
    out
}

/// What an output path holds before gen writes it.
#[derive(Debug, PartialEq, Eq)]
enum Existing {
    /// Nothing: the folder is created.
    Nothing,
    /// A folder gen may replace: it holds the manifest, or nothing, or it is
    /// the build folder of a gen older than the manifest (it has
    /// `rtl/files.f` and a Verilog file under `rtl/` with gen's banner).
    Replaceable,
}

/// Why `out` may not be written, in one line naming it and the option.
fn refuse(out: &Path, why: &str) -> GenError {
    GenError::Io(format!("refusing to write to --out {}: {why}", out.display()))
}

/// `out` without trailing separators and `.` components: the name gen
/// replaces. `link/` and `link/.` make the system follow a symbolic link
/// `link` to its folder, while gen renames the path's own last component:
/// every check and every rename works on this form, so what was checked is
/// what is moved.
fn plain(out: &Path) -> PathBuf {
    out.components().collect()
}

/// Checks `--out` as [`write_atomically`] will, before anything is
/// generated: a path gen may not replace is refused with the same line,
/// and nothing is written.
pub fn check_out(out: &Path) -> Result<(), GenError> {
    if out.file_name().and_then(|n| n.to_str()).is_none() {
        return Err(refuse(out, "it names no folder of its own; give a folder name such as build"));
    }
    inspect(out).map(|_| ())
}

/// What `out` holds, or why gen may not replace it ([`refuse`], naming
/// `out` as given).
fn inspect(out: &Path) -> Result<Existing, GenError> {
    let meta = match fs::symlink_metadata(plain(out)) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Nothing),
        Err(e) => return Err(GenError::Io(format!("cannot read {}: {e}", out.display()))),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        let why = if plain(out).as_os_str() == out.as_os_str() {
            "it is a symbolic link; give the folder itself, or a new path"
        } else {
            "it is a symbolic link (a trailing / or /. does not make it the folder: gen replaces the name itself); \
             give the folder itself, or a new path"
        };
        return Err(refuse(out, why));
    }
    if kind.is_file() {
        return Err(refuse(out, "it is a file, not a folder; give a new path or a folder gen wrote"));
    }
    if !kind.is_dir() {
        return Err(refuse(out, "it is neither a folder nor a file; give a new path or a folder gen wrote"));
    }
    let read_err = |e: io::Error| GenError::Io(format!("cannot read {}: {e}", out.display()));
    if fs::read_dir(out).map_err(read_err)?.next().is_none() || holds_manifest(out) || is_older_build(out) {
        return Ok(Existing::Replaceable);
    }
    Err(refuse(
        out,
        &format!(
            "the folder holds files gen did not write (it has no {MANIFEST}); \
             give a new or empty folder, or move its files away yourself"
        ),
    ))
}

/// `dir/MANIFEST` is a regular file that reads as gen's manifest.
fn holds_manifest(dir: &Path) -> bool {
    let path = dir.join(MANIFEST);
    let regular = fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
    regular && first_line(&path).is_some_and(|l| l.starts_with(MANIFEST_MARK))
}

/// A build folder written before gen wrote the manifest: `rtl/files.f` and a
/// Verilog file under `rtl/` opening with gen's banner (both from the very
/// first gen on).
fn is_older_build(dir: &Path) -> bool {
    let rtl = dir.join("rtl");
    if !fs::symlink_metadata(rtl.join("files.f")).is_ok_and(|m| m.file_type().is_file()) {
        return false;
    }
    let banner = format!("// Generated by {}", config::TOOL);
    let Ok(entries) = fs::read_dir(&rtl) else { return false };
    entries.filter_map(Result::ok).map(|e| e.path()).any(|p| {
        p.extension().is_some_and(|x| x == "v")
            && fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_file())
            && first_line(&p).is_some_and(|l| l.starts_with(&banner))
    })
}

/// The first line of a text file (read no further than needed).
fn first_line(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let mut line = String::new();
    io::BufReader::new(fs::File::open(path).ok()?).read_line(&mut line).ok()?;
    Some(line)
}

/// Folders created for the output's parent, removed again (deepest first,
/// only while empty) unless the write succeeded.
struct CreatedParents {
    dirs: Vec<PathBuf>,
}

impl CreatedParents {
    /// Creates `parent` and its missing ancestors, remembering which.
    fn create(parent: &Path) -> Result<Self, GenError> {
        let mut missing = Vec::new();
        let mut at = Some(parent);
        while let Some(p) = at.filter(|p| !p.as_os_str().is_empty()) {
            if fs::symlink_metadata(p).is_ok() {
                break;
            }
            missing.push(p.to_path_buf());
            at = p.parent();
        }
        let mut created = CreatedParents { dirs: Vec::new() };
        for dir in missing.into_iter().rev() {
            fs::create_dir(&dir)
                .map_err(|e| GenError::Io(format!("cannot create the folder {}: {e}", dir.display())))?;
            created.dirs.push(dir);
        }
        if !fs::metadata(parent).is_ok_and(|m| m.is_dir()) {
            return Err(GenError::Io(format!("cannot write into {}: it is not a folder", parent.display())));
        }
        Ok(created)
    }

    fn keep(mut self) {
        self.dirs.clear();
    }
}

impl Drop for CreatedParents {
    fn drop(&mut self) {
        for dir in self.dirs.iter().rev() {
            let _ = fs::remove_dir(dir);
        }
    }
}

/// A generated path stays inside the build folder: relative, no `..`.
fn check_path(path: &str) -> Result<(), GenError> {
    let p = Path::new(path);
    let inside = !path.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
    if !inside {
        return Err(GenError::Io(format!("generated file path {path:?} is not a plain relative path")));
    }
    if path == MANIFEST {
        return Err(GenError::Io(format!("a generated file is named {MANIFEST}, the manifest's own name")));
    }
    Ok(())
}

/// Writes `files` and their [`MANIFEST`] into a fresh temporary folder beside
/// `out`, then renames it into place.
///
/// `out` must be new, an empty folder, or a folder gen wrote; anything else
/// is refused before anything is written. Missing parent folders are
/// created. The previous contents of `out` are replaced only when every file
/// was written; on any error `out` is left as it was and nothing else is
/// left behind (no temporary folder, no parent folder created for it).
pub fn write_atomically(out: &Path, files: &[GeneratedFile]) -> Result<(), GenError> {
    let io = |what: &str, path: &Path, e: io::Error| GenError::Io(format!("{what} {}: {e}", path.display()));
    let Some(base) = out.file_name().and_then(|n| n.to_str()) else {
        return Err(refuse(out, "it names no folder of its own; give a folder name such as build"));
    };
    for file in files {
        check_path(&file.path)?;
    }
    let existing = inspect(out)?;
    // Checked and moved as the same name (see `plain`).
    let out = &plain(out);
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let created = CreatedParents::create(&parent)?;
    // Removed with everything in it when it goes out of scope unkept.
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{base}.new-"))
        .tempdir_in(&parent)
        .map_err(|e| io("cannot create a temporary folder in", &parent, e))?;
    let manifest_file = GeneratedFile { path: MANIFEST.to_string(), contents: manifest(files) };
    for file in files.iter().chain(Some(&manifest_file)) {
        let path = staging.path().join(&file.path);
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| io("cannot create", dir, e))?;
        }
        fs::write(&path, &file.contents).map_err(|e| io("cannot write", &path, e))?;
    }
    // The previous folder is moved aside under a fresh name, so the new one
    // can be renamed into place, then removed.
    let old = match existing {
        Existing::Nothing => None,
        Existing::Replaceable => {
            let aside = tempfile::Builder::new()
                .prefix(&format!(".{base}.old-"))
                .tempdir_in(&parent)
                .map_err(|e| io("cannot create a temporary folder in", &parent, e))?
                .keep();
            // The empty placeholder only reserved the name.
            if let Err(e) = fs::remove_dir(&aside).and_then(|()| fs::rename(out, &aside)) {
                let _ = fs::remove_dir(&aside);
                return Err(io("cannot move aside", out, e));
            }
            Some(aside)
        }
    };
    if let Err(e) = fs::rename(staging.path(), out) {
        let restored = old.as_ref().map_or(Ok(()), |o| fs::rename(o, out));
        return Err(match restored {
            Ok(()) => io("cannot move into place", out, e),
            Err(r) => GenError::Io(format!(
                "cannot move into place {}: {e}; the previous build is in {}, which could not be moved back: {r}",
                out.display(),
                old.as_ref().map_or(String::new(), |o| o.display().to_string())
            )),
        });
    }
    // Renamed away: nothing left for the guard to remove.
    let _ = staging.keep();
    created.keep();
    if let Some(old) = old {
        fs::remove_dir_all(&old).map_err(|e| {
            GenError::Io(format!(
                "the new build is in {}, but the previous one could not be removed from {}: {e}",
                out.display(),
                old.display()
            ))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, contents: &str) -> GeneratedFile {
        GeneratedFile { path: path.to_string(), contents: contents.to_string() }
    }

    #[test]
    fn the_manifest_lists_the_files_in_path_order_and_nothing_of_the_moment() {
        let files = [file("rtl/b.v", "b"), file("README.md", "r"), file("rtl/a.v", "a")];
        let text = manifest(&files);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with(MANIFEST_MARK), "{text}");
        assert!(lines[0].contains(config::TOOL_VERSION), "{text}");
        assert_eq!(&lines[2..], ["README.md", "rtl/a.v", "rtl/b.v"]);
        assert_eq!(text, manifest(&[file("rtl/a.v", "x"), file("rtl/b.v", "y"), file("README.md", "z")]));
    }

    #[test]
    fn paths_outside_the_folder_and_the_manifest_name_are_refused() {
        for bad in ["", "/etc/passwd", "../x", "rtl/../../x", "./x", MANIFEST] {
            assert!(check_path(bad).is_err(), "{bad:?} accepted");
        }
        check_path("rtl/stub/x.v").unwrap();
    }
}
