//! Command-line parsing of both tools: the demo's positional arguments,
//! validated one by one, plus optional `--` flags that may appear anywhere.
//!
//! Every error is one line naming the argument and its valid range; parsing
//! never panics on user input.

use std::ffi::OsString;
use std::fmt;
use std::net::IpAddr;
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

/// Largest transfer size the demo accepts (`0xFFFF_FFFF_FFFF`).
pub const MAX_BYTELEN: u64 = 0xFFFF_FFFF_FFFF;
/// Largest `--sessions` value: enough for every session of the TOE demo, few
/// enough threads for a small PC.
pub const MAX_SESSIONS: u16 = 64;
/// Largest `--timeout` value in seconds (one day).
pub const MAX_TIMEOUT_S: u64 = 86_400;
/// Timeout used when `--timeout` is not given.
pub const DEFAULT_TIMEOUT_S: u64 = 30;

/// Application buffer sizes selected by `<buffer>` 1..5.
pub const BUFFER_SIZES: [usize; 5] = [64 << 10, 128 << 10, 256 << 10, 512 << 10, 1 << 20];

/// A usage error: the one line printed after `error: `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgError {}

/// The command line's arguments after the program name, as text. All four
/// tools read their arguments through this: the first one that is not valid
/// UTF-8 is a usage error naming its position (1 = the first after the
/// program name), with its bytes shown (`\xFF` for each byte that is not
/// text), where `std::env::args` would panic.
pub fn utf8_args<I: IntoIterator<Item = OsString>>(args: I) -> Result<Vec<String>, ArgError> {
    args.into_iter()
        .enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|a| {
                let shown: String = a
                    .as_bytes()
                    .utf8_chunks()
                    .map(|c| {
                        let bad: String = c.invalid().iter().map(|b| format!("\\x{b:02X}")).collect();
                        format!("{}{bad}", c.valid())
                    })
                    .collect();
                ArgError(format!("argument {}: '{shown}' is not valid UTF-8 text", i + 1))
            })
        })
        .collect()
}

fn err<T>(msg: impl Into<String>) -> Result<T, ArgError> {
    Err(ArgError(msg.into()))
}

/// Who opens the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Connects to `<server IP>:<server port>` (demo mode `c`).
    Client,
    /// Listens on `<server IP>:<server port>` and serves one connection per session (mode `s`).
    Server,
}

/// Data direction of `tcpdatatest`, seen from this tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `t`: send `bytelen` bytes, then close the sending side.
    Transmit,
    /// `r`: receive until the peer closes; the count must equal `bytelen`.
    Receive,
}

/// Flags shared by both tools.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Connections on consecutive ports, run at the same time in one process.
    pub sessions: u16,
    /// Print a JSON summary on stdout; human-readable lines go to stderr.
    pub json: bool,
    /// No per-second progress lines.
    pub quiet: bool,
    /// Bound on connect, accept and every blocking read or write; `None` waits forever.
    pub timeout: Option<Duration>,
    /// Fault injection: flip the lowest bit of the byte at this stream
    /// offset of every sending session, so the peer's verification can be
    /// seen to catch it.
    pub corrupt: Option<u64>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            sessions: 1,
            json: false,
            quiet: false,
            timeout: Some(Duration::from_secs(DEFAULT_TIMEOUT_S)),
            corrupt: None,
        }
    }
}

/// The positional arguments both tools share (`<server IP> <server port>
/// <bytelen> <pattern> <buffer>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transfer {
    pub ip: IpAddr,
    pub port: u16,
    pub bytelen: u64,
    /// `<pattern>` 1: send the incremental pattern and verify it on receive.
    pub pattern: bool,
    /// Application buffer in bytes (from `<buffer>` 1..5).
    pub buffer: usize,
}

/// `tcpdatatest <mode> <dir> <server IP> <server port> <bytelen> <pattern> <buffer>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataTestArgs {
    pub role: Role,
    pub dir: Dir,
    pub transfer: Transfer,
    pub options: Options,
}

/// `tcp_client_txrx_single [--server] <server IP> <server port> <bytelen> <pattern> <buffer>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxRxArgs {
    pub role: Role,
    pub transfer: Transfer,
    pub options: Options,
}

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command<T> {
    Run(T),
    Help,
}

pub const DATATEST_POSITIONAL: &str = "<mode> <dir> <server IP> <server port> <bytelen> <pattern> <buffer>";
pub const TXRX_POSITIONAL: &str = "<server IP> <server port> <bytelen> <pattern> <buffer>";

pub const DATATEST_USAGE: &str = "\
usage: tcpdatatest <mode> <dir> <server IP> <server port> <bytelen> <pattern> <buffer> [options]
  <mode>         c: connect to the server as client; s: listen and serve one connection per session
  <dir>          t: send <bytelen> bytes then close; r: receive until the peer closes, count must be <bytelen>
  <server IP>    IPv4 or IPv6 address (mode s: the address to listen on)
  <server port>  1-65535 (mode s: 0-65535, 0 picks a free port)
  <bytelen>      1 to 0xFFFF_FFFF_FFFF, decimal or 0x hex
  <pattern>      1: incremental pattern, verified on receive; 0: zeros, not verified
  <buffer>       1-5: application buffer of 64 KB, 128 KB, 256 KB, 512 KB, 1 MB
options:
  --sessions N   run N connections (1-64) on consecutive ports starting at <server port>
  --timeout S    seconds (0-86400, 0 = no limit) to wait for connect, accept and each read/write; default 30
  --quiet        no per-second progress lines
  --corrupt N    fault injection: flip the lowest bit of sent byte N (0 to <bytelen>-1; needs <pattern> 1)
  --json         print a JSON summary on stdout (other lines go to stderr)
  -h, --help     this text";

pub const TXRX_USAGE: &str = "\
usage: tcp_client_txrx_single [--server] <server IP> <server port> <bytelen> <pattern> <buffer> [options]
  sends and receives <bytelen> bytes at the same time on one connection, then closes
  <server IP>    IPv4 or IPv6 address (with --server: the address to listen on)
  <server port>  1-65535 (with --server: 0-65535, 0 picks a free port)
  <bytelen>      1 to 0xFFFF_FFFF_FFFF, decimal or 0x hex, in each direction
  <pattern>      1: send the incremental pattern and verify the received one; 0: zeros, not verified
  <buffer>       1-5: application buffer of 64 KB, 128 KB, 256 KB, 512 KB, 1 MB (one per direction)
options:
  --server       listen on <server IP>:<server port> and serve the full-duplex test (the board's side)
  --sessions N   run N connections (1-64) on consecutive ports starting at <server port>
  --timeout S    seconds (0-86400, 0 = no limit) to wait for connect, accept and each read/write; default 30
  --quiet        no per-second progress lines
  --corrupt N    fault injection: flip the lowest bit of sent byte N (0 to <bytelen>-1; needs <pattern> 1)
  --json         print a JSON summary on stdout (other lines go to stderr)
  -h, --help     this text";

/// Parses `tcpdatatest` arguments (without the program name).
pub fn parse_datatest<S: AsRef<str>>(args: &[S]) -> Result<Command<DataTestArgs>, ArgError> {
    let Some(split) = split(args, false)? else { return Ok(Command::Help) };
    let (pos, options, _) = split;
    if pos.len() != 7 {
        return err(format!("expected 7 arguments {DATATEST_POSITIONAL}, got {}", pos.len()));
    }
    let role = match pos[0] {
        "c" | "C" => Role::Client,
        "s" | "S" => Role::Server,
        other => return err(format!("argument <mode>: '{other}' is not valid; use c (client) or s (server)")),
    };
    let dir = match pos[1] {
        "t" | "T" => Dir::Transmit,
        "r" | "R" => Dir::Receive,
        other => return err(format!("argument <dir>: '{other}' is not valid; use t (transmit) or r (receive)")),
    };
    let transfer = parse_transfer(&pos[2..], role, options.sessions)?;
    if options.corrupt.is_some() && dir == Dir::Receive {
        return err("option --corrupt: only a sending test (<dir> t) has bytes to corrupt".to_string());
    }
    check_corrupt(&options, &transfer)?;
    Ok(Command::Run(DataTestArgs { role, dir, transfer, options }))
}

/// Parses `tcp_client_txrx_single` arguments (without the program name).
pub fn parse_txrx<S: AsRef<str>>(args: &[S]) -> Result<Command<TxRxArgs>, ArgError> {
    let Some(split) = split(args, true)? else { return Ok(Command::Help) };
    let (pos, options, server) = split;
    if pos.len() != 5 {
        return err(format!("expected 5 arguments {TXRX_POSITIONAL}, got {}", pos.len()));
    }
    let role = if server { Role::Server } else { Role::Client };
    let transfer = parse_transfer(&pos, role, options.sessions)?;
    check_corrupt(&options, &transfer)?;
    Ok(Command::Run(TxRxArgs { role, transfer, options }))
}

/// `--corrupt` must name a byte of the transfer, of a verified pattern.
fn check_corrupt(options: &Options, transfer: &Transfer) -> Result<(), ArgError> {
    match options.corrupt {
        Some(_) if !transfer.pattern => {
            err("option --corrupt: needs <pattern> 1 (dummy data is not verified)".to_string())
        }
        Some(n) if n >= transfer.bytelen => err(format!(
            "option --corrupt: '{n}' is out of range; valid range is 0 to {} (<bytelen> - 1)",
            transfer.bytelen - 1
        )),
        _ => Ok(()),
    }
}

type Split<'a> = (Vec<&'a str>, Options, bool);

/// Separates positional arguments from flags. `None` means help was asked for.
fn split<S: AsRef<str>>(args: &[S], allow_server: bool) -> Result<Option<Split<'_>>, ArgError> {
    let mut pos = Vec::new();
    let mut options = Options::default();
    let mut server = false;
    let valid = if allow_server {
        "--server, --sessions N, --timeout S, --corrupt N, --quiet, --json, --help"
    } else {
        "--sessions N, --timeout S, --corrupt N, --quiet, --json, --help"
    };
    let mut it = args.iter().map(AsRef::as_ref);
    while let Some(arg) = it.next() {
        if !arg.starts_with('-') || arg == "-" {
            pos.push(arg);
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (arg, None),
        };
        let mut value = |what: &str| -> Result<&str, ArgError> {
            match inline {
                Some(v) => Ok(v),
                None => it.next().ok_or_else(|| ArgError(format!("option {name}: missing value {what}"))),
            }
        };
        match name {
            "-h" | "--help" => return Ok(None),
            "--quiet" | "-q" => options.quiet = true,
            "--json" => options.json = true,
            "--server" if allow_server => server = true,
            "--sessions" => {
                let v = value("N (1-64)")?;
                options.sessions = match v.parse::<u16>() {
                    Ok(n) if (1..=MAX_SESSIONS).contains(&n) => n,
                    _ => {
                        return err(format!(
                            "option --sessions: '{v}' is out of range; valid range is 1 to {MAX_SESSIONS}"
                        ))
                    }
                };
            }
            "--timeout" => {
                let v = value("S (0-86400)")?;
                options.timeout = match v.parse::<u64>() {
                    Ok(0) => None,
                    Ok(s) if s <= MAX_TIMEOUT_S => Some(Duration::from_secs(s)),
                    _ => {
                        return err(format!(
                            "option --timeout: '{v}' is out of range; valid range is 0 (no limit) to {MAX_TIMEOUT_S} seconds"
                        ))
                    }
                };
            }
            "--corrupt" => {
                let v = value("N (a byte offset)")?;
                options.corrupt = match parse_number(v) {
                    Some(n) => Some(n),
                    None => {
                        return err(format!(
                            "option --corrupt: '{v}' is not a number; use a byte offset, decimal or 0x hex"
                        ))
                    }
                };
            }
            _ => return err(format!("unknown option '{arg}'; valid options are {valid}")),
        }
    }
    Ok(Some((pos, options, server)))
}

fn parse_transfer(pos: &[&str], role: Role, sessions: u16) -> Result<Transfer, ArgError> {
    let ip: IpAddr = match pos[0].parse() {
        Ok(ip) => ip,
        Err(_) => return err(format!("argument <server IP>: '{}' is not an IPv4 or IPv6 address", pos[0])),
    };
    let min_port = if role == Role::Server { 0 } else { 1 };
    let port = match pos[1].parse::<u32>() {
        Ok(p) if p >= min_port && p <= 65535 => p as u16,
        _ => {
            return err(format!(
                "argument <server port>: '{}' is out of range; valid range is {min_port} to 65535",
                pos[1]
            ))
        }
    };
    if port != 0 && u32::from(port) + u32::from(sessions) - 1 > 65535 {
        return err(format!(
            "argument <server port>: {port} with --sessions {sessions} runs past port 65535; valid range is {min_port} to {}",
            65536 - u32::from(sessions)
        ));
    }
    let bytelen = parse_bytelen(pos[2])?;
    let pattern = match pos[3] {
        "1" => true,
        "0" => false,
        other => {
            return err(format!(
                "argument <pattern>: '{other}' is not valid; use 1 (incremental, verified) or 0 (dummy)"
            ))
        }
    };
    let buffer = match pos[4].parse::<usize>() {
        Ok(n) if (1..=5).contains(&n) => BUFFER_SIZES[n - 1],
        _ => {
            return err(format!(
                "argument <buffer>: '{}' is out of range; valid range is 1 to 5 (64 KB, 128 KB, 256 KB, 512 KB, 1 MB)",
                pos[4]
            ))
        }
    };
    Ok(Transfer { ip, port, bytelen, pattern, buffer })
}

/// Parses `<bytelen>`: decimal, or hex with a `0x` prefix; `_` separators allowed
/// (the demo writes `0xFFFF_FFFF_FFFF`).
pub fn parse_bytelen(text: &str) -> Result<u64, ArgError> {
    let range = "valid range is 1 to 0xFFFF_FFFF_FFFF (281474976710655), decimal or 0x hex";
    match number(text) {
        Number::NotANumber => err(format!("argument <bytelen>: '{text}' is not a number; {range}")),
        Number::Value(n) if (1..=MAX_BYTELEN).contains(&n) => Ok(n),
        _ => err(format!("argument <bytelen>: '{text}' is out of range; {range}")),
    }
}

/// A number as the demo writes it: decimal, or hex with a `0x` prefix, `_` separators allowed.
enum Number {
    Value(u64),
    TooLarge,
    NotANumber,
}

fn number(text: &str) -> Number {
    let cleaned: String = text.chars().filter(|&c| c != '_').collect();
    let (digits, radix) = match cleaned.strip_prefix("0x").or_else(|| cleaned.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (cleaned.as_str(), 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return Number::NotANumber;
    }
    // Digits only, so the one possible parse error is overflow.
    u64::from_str_radix(digits, radix).map_or(Number::TooLarge, Number::Value)
}

/// `number` for an option value: `None` if it is not a number (too large for u64 reads as `u64::MAX`).
pub fn parse_number(text: &str) -> Option<u64> {
    match number(text) {
        Number::Value(n) => Some(n),
        Number::TooLarge => Some(u64::MAX),
        Number::NotANumber => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_that_is_not_utf8_is_a_usage_error_naming_its_position() {
        use std::os::unix::ffi::OsStringExt;
        let os = |b: &[u8]| OsString::from_vec(b.to_vec());
        assert_eq!(utf8_args([os(b"c"), os(b"r")]), Ok(vec!["c".to_string(), "r".to_string()]));
        let e = utf8_args([os(b"c"), os(b"a\xffb\xfe"), os(b"\xff")]).unwrap_err();
        assert_eq!(e.0, "argument 2: 'a\\xFFb\\xFE' is not valid UTF-8 text");
    }

    fn dt(line: &str) -> Result<Command<DataTestArgs>, ArgError> {
        parse_datatest(&line.split_whitespace().collect::<Vec<_>>())
    }

    fn dt_err(line: &str) -> String {
        dt(line).expect_err(line).0
    }

    #[test]
    fn demo_positional_form_parses() {
        let Command::Run(a) = dt("c r 192.168.7.42 60000 0x1000 1 5").unwrap() else { panic!("not run") };
        assert_eq!(a.role, Role::Client);
        assert_eq!(a.dir, Dir::Receive);
        assert_eq!(a.transfer.ip, "192.168.7.42".parse::<IpAddr>().unwrap());
        assert_eq!(a.transfer.port, 60000);
        assert_eq!(a.transfer.bytelen, 4096);
        assert!(a.transfer.pattern);
        assert_eq!(a.transfer.buffer, 1 << 20);
        assert_eq!(a.options, Options::default());
        let Command::Run(a) = dt("s t ::1 0 1 0 1 --sessions=4 --quiet --json --timeout 0").unwrap() else {
            panic!("not run")
        };
        assert_eq!((a.role, a.dir, a.transfer.pattern, a.transfer.buffer), (Role::Server, Dir::Transmit, false, 65536));
        assert_eq!(a.options, Options { sessions: 4, json: true, quiet: true, timeout: None, corrupt: None });
        assert_eq!(dt("--help").unwrap(), Command::Help);
    }

    #[test]
    fn bytelen_accepts_decimal_and_hex_up_to_48_bits() {
        assert_eq!(parse_bytelen("1"), Ok(1));
        assert_eq!(parse_bytelen("1000003"), Ok(1_000_003));
        assert_eq!(parse_bytelen("0xFFFF_FFFF_FFFF"), Ok(MAX_BYTELEN));
        assert_eq!(parse_bytelen("0Xff"), Ok(255));
        assert_eq!(parse_bytelen("281474976710655"), Ok(MAX_BYTELEN));
        for bad in ["0", "0x0", "281474976710656", "0x1000000000000", "99999999999999999999999"] {
            let e = parse_bytelen(bad).unwrap_err().0;
            assert!(e.contains("is out of range") && e.contains("1 to 0xFFFF_FFFF_FFFF"), "{bad}: {e}");
        }
        for bad in ["", "0x", "12k", "-5", "1.5", "0xZZ"] {
            let e = parse_bytelen(bad).unwrap_err().0;
            assert!(e.contains("is not a number"), "{bad}: {e}");
        }
    }

    #[test]
    fn each_bad_argument_is_named_with_its_range() {
        assert_eq!(dt_err("c r 127.0.0.1 5000 100 1"), format!("expected 7 arguments {DATATEST_POSITIONAL}, got 6"));
        assert_eq!(
            dt_err("x r 127.0.0.1 5000 100 1 1"),
            "argument <mode>: 'x' is not valid; use c (client) or s (server)"
        );
        assert_eq!(
            dt_err("c q 127.0.0.1 5000 100 1 1"),
            "argument <dir>: 'q' is not valid; use t (transmit) or r (receive)"
        );
        assert_eq!(
            dt_err("c r 300.1.1.1 5000 100 1 1"),
            "argument <server IP>: '300.1.1.1' is not an IPv4 or IPv6 address"
        );
        assert_eq!(
            dt_err("c r 127.0.0.1 0 100 1 1"),
            "argument <server port>: '0' is out of range; valid range is 1 to 65535"
        );
        assert_eq!(
            dt_err("s r 127.0.0.1 65536 100 1 1"),
            "argument <server port>: '65536' is out of range; valid range is 0 to 65535"
        );
        assert!(dt_err("c r 127.0.0.1 65535 100 1 1 --sessions 2")
            .contains("runs past port 65535; valid range is 1 to 65534"));
        assert_eq!(
            dt_err("c r 127.0.0.1 5000 100 2 1"),
            "argument <pattern>: '2' is not valid; use 1 (incremental, verified) or 0 (dummy)"
        );
        assert_eq!(
            dt_err("c r 127.0.0.1 5000 100 1 6"),
            "argument <buffer>: '6' is out of range; valid range is 1 to 5 (64 KB, 128 KB, 256 KB, 512 KB, 1 MB)"
        );
        assert!(dt_err("c r 127.0.0.1 5000 100 1 0").starts_with("argument <buffer>: '0' is out of range"));
        assert_eq!(
            dt_err("c r 127.0.0.1 5000 100 1 1 --sessions 0"),
            "option --sessions: '0' is out of range; valid range is 1 to 64"
        );
        assert_eq!(
            dt_err("c r 127.0.0.1 5000 100 1 1 --sessions 65"),
            "option --sessions: '65' is out of range; valid range is 1 to 64"
        );
        assert!(dt_err("c r 127.0.0.1 5000 100 1 1 --timeout -1").starts_with("option --timeout: '-1' is out of range"));
        assert_eq!(dt_err("c r 127.0.0.1 5000 100 1 1 --timeout"), "option --timeout: missing value S (0-86400)");
        assert_eq!(
            dt_err("c t 127.0.0.1 5000 100 1 1 --corrupt 100"),
            "option --corrupt: '100' is out of range; valid range is 0 to 99 (<bytelen> - 1)"
        );
        assert_eq!(
            dt_err("c t 127.0.0.1 5000 100 1 1 --corrupt x1"),
            "option --corrupt: 'x1' is not a number; use a byte offset, decimal or 0x hex"
        );
        assert_eq!(
            dt_err("c t 127.0.0.1 5000 100 0 1 --corrupt 5"),
            "option --corrupt: needs <pattern> 1 (dummy data is not verified)"
        );
        assert_eq!(
            dt_err("c r 127.0.0.1 5000 100 1 1 --corrupt 5"),
            "option --corrupt: only a sending test (<dir> t) has bytes to corrupt"
        );
        assert!(dt_err("c r 127.0.0.1 5000 100 1 1 --server").starts_with("unknown option '--server'"));
    }

    #[test]
    fn txrx_takes_five_arguments_and_a_server_flag() {
        let a = |line: &str| parse_txrx(&line.split_whitespace().collect::<Vec<_>>());
        let Command::Run(c) = a("127.0.0.1 4000 0x10 1 3").unwrap() else { panic!("not run") };
        assert_eq!((c.role, c.transfer.bytelen, c.transfer.buffer), (Role::Client, 16, 256 << 10));
        let Command::Run(s) = a("--server 127.0.0.1 0 7 0 2").unwrap() else { panic!("not run") };
        assert_eq!((s.role, s.transfer.port, s.transfer.pattern), (Role::Server, 0, false));
        assert_eq!(a("127.0.0.1 4000 16 1").unwrap_err().0, format!("expected 5 arguments {TXRX_POSITIONAL}, got 4"));
    }
}
