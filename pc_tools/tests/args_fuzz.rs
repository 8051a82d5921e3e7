//! Property tests of both tools' command lines: every argument list ends in
//! a valid command or one error line naming the argument, exit status 2 and
//! nothing on stdout; nothing panics.
//!
//! Inputs are random word lists (the tools' own flags and values, hostile
//! values, random text) and lists shaped like a real command line with some
//! slots hostile, so most get past the argument count. Only refused lists
//! run the binaries: an accepted one would start a transfer. The seed is
//! printed; `TB_SEED=<n>` replays a run.

mod common;

use common::*;
use pc_tools::args::{parse_datatest, parse_txrx};
use proptest::prelude::*;
use seeded_inputs::hostile::{arg_list, check_all, hostile_value, one_line, Outcome, Tally};

/// Inputs checked in process, per tool.
const PARSER_CASES: u32 = 4000;
/// Refused inputs also run through the binary, per tool.
const BINARY_CASES: u32 = 96;

const WORDS: &[&str] = &[
    "c",
    "s",
    "t",
    "r",
    "C",
    "T",
    "127.0.0.1",
    "::1",
    "0.0.0.0",
    "5000",
    "0",
    "65535",
    "65536",
    "100",
    "0x10",
    "0xFFFF_FFFF_FFFF",
    "1",
    "0",
    "2",
    "5",
    "6",
    "--server",
    "--sessions",
    "--timeout",
    "--corrupt",
    "--quiet",
    "--json",
    "--help",
    "-h",
    "--sessions=2",
    "--timeout=0",
    "--corrupt=3",
    "--",
    "-",
];

/// A slot of a command line: one of its valid values mostly, else hostile.
fn slot(valid: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![8 => proptest::sample::select(valid).prop_map(str::to_string), 1 => hostile_value()]
}

/// Positional slots of `tcp_client_txrx_single` (and the last five of `tcpdatatest`).
fn transfer_slots() -> impl Strategy<Value = Vec<String>> {
    (
        slot(&["127.0.0.1", "::1", "10.0.0.1"]),
        slot(&["5000", "1", "65535", "0"]),
        slot(&["1", "100", "0x1000", "0xFFFF_FFFF_FFFF"]),
        slot(&["0", "1"]),
        slot(&["1", "3", "5"]),
    )
        .prop_map(|(a, b, c, d, e)| vec![a, b, c, d, e])
}

/// Options with a value or without, to mix into a command line.
fn options() -> impl Strategy<Value = Vec<(usize, String)>> {
    let opt = prop_oneof![
        (slot(&["--sessions", "--timeout", "--corrupt"]), slot(&["1", "2", "64", "65", "0", "99"]))
            .prop_map(|(f, v)| format!("{f} {v}")),
        slot(&["--quiet", "--json", "--server", "--sessions=4", "--timeout=86401", "--corrupt=0"]),
    ];
    proptest::collection::vec((any::<usize>(), opt), 0..4)
}

fn shaped(head: Vec<String>, opts: Vec<(usize, String)>) -> Vec<String> {
    let mut words = head;
    for (at, opt) in opts {
        let at = at % (words.len() + 1);
        for (k, w) in opt.split(' ').enumerate() {
            words.insert(at + k, w.to_string());
        }
    }
    words
}

fn datatest_lists() -> impl Strategy<Value = Vec<String>> {
    let head = (slot(&["c", "s"]), slot(&["t", "r"]), transfer_slots()).prop_map(|(m, d, t)| {
        let mut v = vec![m, d];
        v.extend(t);
        v
    });
    prop_oneof![1 => arg_list(WORDS, 10), 3 => (head, options()).prop_map(|(h, o)| shaped(h, o))]
}

fn txrx_lists() -> impl Strategy<Value = Vec<String>> {
    prop_oneof![1 => arg_list(WORDS, 8), 3 => (transfer_slots(), options()).prop_map(|(h, o)| shaped(h, o))]
}

/// The parser's verdict on `args` as an outcome, or what is wrong with it.
fn parsed<T>(r: Result<pc_tools::args::Command<T>, pc_tools::args::ArgError>) -> Result<Outcome, String> {
    match r {
        Ok(_) => Ok(Outcome::Accepted),
        Err(e) => one_line(&e.to_string()).map(|()| Outcome::Refused),
    }
}

/// Runs `tool` on a refused list: exit 2, one line in the tool's form, empty stdout.
fn refused_by_binary(tool: &str, name: &str, args: &[String]) -> Result<(), String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(tool, &words);
    one_line(&o.stderr)?;
    if o.code != 2 || !o.stdout.is_empty() || !o.stderr.starts_with(&format!("{name}: error: ")) {
        return Err(format!("exit {}, stdout {:?}, stderr {:?}", o.code, o.stdout, o.stderr));
    }
    Ok(())
}

fn assert_both_outcomes(t: Tally) {
    assert!(
        t.accepted >= t.cases / 50,
        "only {} of {} lists were valid: the generator misses the valid side",
        t.accepted,
        t.cases
    );
    assert!(t.refused >= t.cases / 2, "only {} of {} lists were refused", t.refused, t.cases);
}

#[test]
fn tcpdatatest_parser_never_panics_and_errors_are_one_line() {
    assert_both_outcomes(check_all("tcpdatatest parser", PARSER_CASES, datatest_lists(), |a| {
        parsed(parse_datatest(a))
    }));
}

#[test]
fn tcp_client_txrx_single_parser_never_panics_and_errors_are_one_line() {
    assert_both_outcomes(check_all("tcp_client_txrx_single parser", PARSER_CASES, txrx_lists(), |a| {
        parsed(parse_txrx(a))
    }));
}

/// Runs `BINARY_CASES` lists that `parse` refuses through the binary `tool`.
fn binary_refuses<T>(
    tool: &str,
    name: &str,
    lists: impl Strategy<Value = Vec<String>>,
    parse: fn(&[String]) -> Result<pc_tools::args::Command<T>, pc_tools::args::ArgError>,
) {
    let refused = move |a: &Vec<String>| parsed(parse(a)) == Ok(Outcome::Refused);
    let t = check_all(&format!("{name} binary"), BINARY_CASES, lists.prop_filter("refused", refused), |a| {
        refused_by_binary(tool, name, a).map(|()| Outcome::Refused)
    });
    assert_eq!(t.refused, BINARY_CASES);
}

#[test]
fn refused_lists_exit_2_with_one_line_from_both_binaries() {
    binary_refuses(DATATEST, "tcpdatatest", datatest_lists(), parse_datatest);
    binary_refuses(TXRX, "tcp_client_txrx_single", txrx_lists(), parse_txrx);
}
