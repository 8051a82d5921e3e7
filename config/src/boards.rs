//! The board catalogue: every board file under `constraints/`, embedded when
//! this crate is built. The configuration checks `board.name` against it
//! ([`crate::parse`]); `flows` parses and validates a board's text.

include!(concat!(env!("OUT_DIR"), "/boards.rs"));

/// The names of the boards under `constraints/`, sorted.
pub fn names() -> Vec<&'static str> {
    FILES.iter().map(|(name, _, _)| *name).collect()
}

/// The board `name`'s file (as messages print it, `constraints/<name>.toml`)
/// and its TOML text; `None` for a board that does not exist.
pub fn file(name: &str) -> Option<(&'static str, &'static str)> {
    FILES.iter().find(|(n, _, _)| *n == name).map(|(_, file, text)| (*file, *text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_file_is_embedded_once_under_its_name() {
        let names = names();
        assert!(names.contains(&crate::DEFAULT_BOARD), "{names:?}");
        assert!(names.windows(2).all(|w| w[0] < w[1]), "sorted, no repeats: {names:?}");
        for name in names {
            let (file, text) = file(name).unwrap();
            assert_eq!(file, format!("constraints/{name}.toml"));
            assert!(text.contains(&format!("name = \"{name}\"")), "{file}");
        }
        assert_eq!(file("zedboard"), None);
    }
}
