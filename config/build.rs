//! Embeds every `constraints/*.toml` board file (the board catalogue), so
//! adding a board is adding a file: no list in the code to keep in step. The
//! configuration checks `board.name` against it; `flows` parses the texts.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dir = manifest.join("..").join("constraints");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut boards = Vec::new();
    if let Ok(entries) = fs::read_dir(&dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) == Some("toml") {
                println!("cargo:rerun-if-changed={}", path.display());
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
                let abs = fs::canonicalize(&path).expect("board file path");
                boards.push((stem, abs));
            }
        }
    }
    boards.sort();
    let mut out = String::from(
        "/// (board name, file name, TOML text), sorted by name.\npub static FILES: &[(&str, &str, &str)] = &[\n",
    );
    for (stem, abs) in &boards {
        out.push_str(&format!(
            "    ({stem:?}, \"constraints/{stem}.toml\", include_str!({:?})),\n",
            abs.display().to_string()
        ));
    }
    out.push_str("];\n");
    let dest = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("boards.rs");
    fs::write(dest, out).expect("write boards.rs");
}
