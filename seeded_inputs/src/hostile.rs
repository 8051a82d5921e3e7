//! Hostile input for the parsers' property tests, and a runner that seeds
//! proptest from [`crate::seed`] and counts what it ran.
//!
//! The inputs are built to reach past the first syntax check: besides
//! arbitrary text there are mutations of a valid file (lines deleted,
//! duplicated, swapped or truncated, values replaced by out-of-range or
//! wrongly typed ones, keys renamed) and sparse files of the valid file's
//! own keys with hostile values, so most inputs parse as TOML and exercise
//! the validation behind it.

use std::cell::RefCell;
use std::fmt::Debug;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

/// What a parser did with one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A valid result.
    Accepted,
    /// A clean error.
    Refused,
}

/// How many inputs a property test ran, and how they ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Inputs checked.
    pub cases: u32,
    /// Inputs that gave a valid result.
    pub accepted: u32,
    /// Inputs that gave a clean error.
    pub refused: u32,
}

/// Runs `check` on `cases` inputs drawn from `strategy`, seeded from
/// `TB_SEED` (else the clock; the seed is printed). `check` returns the
/// outcome, or a description of what went wrong; a wrong input is shrunk
/// and the test panics with it and the seed. Prints and returns the tally.
pub fn check_all<S>(
    what: &str,
    cases: u32,
    strategy: S,
    check: impl FnMut(&S::Value) -> Result<Outcome, String>,
) -> Tally
where
    S: Strategy,
    S::Value: Debug,
{
    let seed = crate::seed::from_env(what);
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        chunk.copy_from_slice(&seed.to_le_bytes());
    }
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let check = RefCell::new(check);
    let tally = RefCell::new(Tally::default());
    let result = runner.run(&strategy, |value| {
        let outcome = (check.borrow_mut())(&value).map_err(TestCaseError::fail)?;
        let mut t = tally.borrow_mut();
        t.cases += 1;
        match outcome {
            Outcome::Accepted => t.accepted += 1,
            Outcome::Refused => t.refused += 1,
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{what}: {e} (replay with TB_SEED={seed})");
    }
    let t = *tally.borrow();
    eprintln!("{what}: {} inputs, {} accepted, {} refused with a one-line error", t.cases, t.accepted, t.refused);
    t
}

/// `Ok(())` when `message` is what a user should see: one non-empty line
/// that is not a panic message.
pub fn one_line(message: &str) -> Result<(), String> {
    if message.trim().is_empty() {
        return Err("empty error message".into());
    }
    if message.trim_end_matches('\n').contains('\n') {
        return Err(format!("error message of more than one line: {message:?}"));
    }
    if message.contains("panicked") || message.contains("RUST_BACKTRACE") {
        return Err(format!("a panic: {message:?}"));
    }
    Ok(())
}

/// Values that are out of range, of the wrong type or malformed for some
/// key of a configuration, plus random integers, floats and strings.
pub fn hostile_value() -> impl Strategy<Value = String> {
    const FIXED: &[&str] = &[
        "0",
        "-1",
        "1",
        "2",
        "3",
        "4",
        "5",
        "63",
        "64",
        "100",
        "1023",
        "1024",
        "2048",
        "65535",
        "65536",
        "9223372036854775807",
        "-9223372036854775808",
        "0.0",
        "-0.0",
        "1e400",
        "nan",
        "inf",
        "-inf",
        "0.5",
        "1000.5",
        "true",
        "false",
        "\"\"",
        "\"x\"",
        "\"0\"",
        "\"server\"",
        "\"client\"",
        "\"fixed-mac\"",
        "\"dup\"",
        "\"psh\"",
        "\"192.168.1.1\"",
        "\"256.1.1.1\"",
        "\"00:01:02:03:04:05\"",
        "\"zz:01:02:03:04:05\"",
        "\"00:01:02:03:04\"",
        "\"alveo-u50\"",
        "\"../etc/passwd\"",
        "[]",
        "[1]",
        "[60000, 60000]",
        "[60000, 60001, 60002, 60003, 60004]",
        "[-1, 70000]",
        "[\"a\"]",
        "[[1]]",
        "{}",
        "{ a = 1 }",
        "1979-05-27",
        "1979-05-27T07:32:00Z",
    ];
    prop_oneof![
        4 => proptest::sample::select(FIXED).prop_map(str::to_string),
        1 => any::<i64>().prop_map(|n| n.to_string()),
        1 => any::<f64>().prop_map(|x| format!("{x:?}")),
        1 => "[ -~]{0,12}".prop_map(|s| format!("{s:?}")),
        1 => "[ -~]{0,12}",
    ]
}

/// One edit of a file's lines.
#[derive(Clone, Debug)]
enum Edit {
    Delete(Index),
    Duplicate(Index),
    Swap(Index, Index),
    /// Replace the value of a `key = value` line (any line: a non-key line gets ` = value` appended).
    Value(Index, String),
    /// Append a suffix to the key of a line.
    RenameKey(Index, String),
    Insert(Index, String),
    /// Cut the text at a byte (on a character boundary).
    Truncate(Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        1 => any::<Index>().prop_map(Edit::Delete),
        1 => any::<Index>().prop_map(Edit::Duplicate),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Edit::Swap(a, b)),
        5 => (any::<Index>(), hostile_value()).prop_map(|(i, v)| Edit::Value(i, v)),
        1 => (any::<Index>(), "[a-z_]{1,3}").prop_map(|(i, s)| Edit::RenameKey(i, s)),
        1 => (any::<Index>(), "[ -~]{0,24}").prop_map(|(i, s)| Edit::Insert(i, s)),
        1 => any::<Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for e in edits {
        if lines.is_empty() {
            lines.push(String::new());
        }
        let n = lines.len();
        match e {
            Edit::Delete(i) => {
                lines.remove(i.index(n));
            }
            Edit::Duplicate(i) => {
                let l = lines[i.index(n)].clone();
                lines.insert(i.index(n), l);
            }
            Edit::Swap(a, b) => lines.swap(a.index(n), b.index(n)),
            Edit::Value(i, v) => {
                let l = &mut lines[i.index(n)];
                *l = match l.split_once('=') {
                    Some((key, _)) => format!("{key}= {v}"),
                    None => format!("{l} = {v}"),
                };
            }
            Edit::RenameKey(i, s) => {
                let l = &mut lines[i.index(n)];
                if let Some((key, value)) = l.split_once('=') {
                    *l = format!("{}{s} ={value}", key.trim_end());
                }
            }
            Edit::Insert(i, s) => lines.insert(i.index(n + 1), s.clone()),
            Edit::Truncate(i) => {
                let joined = lines.join("\n");
                let mut cut = i.index(joined.len() + 1);
                while !joined.is_char_boundary(cut) {
                    cut -= 1;
                }
                lines = joined[..cut].lines().map(str::to_string).collect();
            }
        }
    }
    lines.join("\n") + "\n"
}

/// The `(table, key)` pairs of a flat TOML file such as the default
/// configuration: `[table]` headers and `key = value` lines.
fn keys_of(text: &str) -> Vec<(String, String)> {
    let mut table = String::new();
    let mut keys = Vec::new();
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("").trim();
        if let Some(name) = code.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            table = name.trim().to_string();
        } else if let Some((key, _)) = code.split_once('=') {
            keys.push((table.clone(), key.trim().to_string()));
        }
    }
    keys
}

/// A sparse file: some of `valid`'s own keys (and now and then an unknown
/// one) with hostile values, grouped under their tables.
fn sparse(valid: &'static str) -> impl Strategy<Value = String> {
    let keys = keys_of(valid);
    let entry = (proptest::sample::select(keys), hostile_value(), proptest::bool::weighted(0.05));
    proptest::collection::vec(entry, 0..6).prop_map(|entries| {
        let mut tables: Vec<(String, Vec<String>)> = Vec::new();
        for ((table, key), value, unknown) in entries {
            let key = if unknown { format!("{key}_x") } else { key };
            let line = format!("{key} = {value}");
            match tables.iter_mut().find(|(t, _)| *t == table) {
                Some((_, lines)) => lines.push(line),
                None => tables.push((table, vec![line])),
            }
        }
        tables.into_iter().map(|(t, lines)| format!("[{t}]\n{}\n", lines.join("\n"))).collect::<Vec<_>>().join("\n")
    })
}

/// Configuration text built to probe a parser whose valid input includes
/// `valid`: arbitrary text, `valid` with one to four edits, and sparse files
/// of `valid`'s keys with hostile values.
pub fn config_text(valid: &'static str) -> impl Strategy<Value = String> {
    prop_oneof![
        1 => "\\PC{0,200}",
        1 => proptest::collection::vec(any::<u8>(), 0..200).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        4 => proptest::collection::vec(edit(), 1..5).prop_map(move |edits| apply(valid, &edits)),
        4 => sparse(valid),
    ]
}

/// Argument lists of up to `max` words, each drawn from `words` (the
/// tool's own flags and plausible values), from hostile values, or random.
pub fn arg_list(words: &'static [&'static str], max: usize) -> impl Strategy<Value = Vec<String>> {
    let word = prop_oneof![
        6 => proptest::sample::select(words).prop_map(str::to_string),
        2 => hostile_value(),
        1 => "-{0,2}[a-z-]{0,10}(=[ -~]{0,6})?",
        1 => "\\PC{0,12}",
    ];
    proptest::collection::vec(word, 0..=max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;

    #[test]
    fn edits_apply_as_described() {
        let text = "[a]\nx = 1\ny = 2\n";
        let i = |k: usize, n: usize| {
            // an Index that picks position k of n
            let mut runner = TestRunner::deterministic();
            loop {
                let idx = any::<Index>().new_tree(&mut runner).unwrap().current();
                if idx.index(n) == k {
                    return idx;
                }
            }
        };
        assert_eq!(apply(text, &[Edit::Delete(i(1, 3))]), "[a]\ny = 2\n");
        assert_eq!(apply(text, &[Edit::Value(i(2, 3), "7".into())]), "[a]\nx = 1\ny = 7\n");
        assert_eq!(apply(text, &[Edit::RenameKey(i(1, 3), "q".into())]), "[a]\nxq = 1\ny = 2\n");
        assert_eq!(apply(text, &[Edit::Swap(i(0, 3), i(2, 3))]), "y = 2\nx = 1\n[a]\n");
        assert_eq!(apply(text, &[Edit::Duplicate(i(0, 3))]), "[a]\n[a]\nx = 1\ny = 2\n");
    }

    #[test]
    fn keys_are_read_with_their_tables() {
        let keys = keys_of("# c\n[design]\nname = \"t\"  # n\n\n[board]\nname = \"b\"\n");
        assert_eq!(keys, vec![("design".into(), "name".into()), ("board".into(), "name".into())]);
    }

    #[test]
    fn one_line_refuses_empty_multi_line_and_panic_messages() {
        assert!(one_line("design.sessions: 5 is out of range 1..=4").is_ok());
        assert!(one_line("").is_err());
        assert!(one_line("a\nb").is_err());
        assert!(one_line("thread 'main' panicked at src/lib.rs").is_err());
    }
}
