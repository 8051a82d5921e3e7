//! Shared by the console's tests: the console binary and the PC tools as
//! processes with bounded waits, and virtual boards in-process.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use vboard::pc::Tools;
use vboard::{Options, VirtualBoard};

pub const CONSOLE: &str = env!("CARGO_BIN_EXE_toe-console");

/// Lines of the parameter screen (menu option 0, `params show`) of a board
/// at its reset values (the default configuration).
pub const RESET_PARAMETER_LINES: &[&str] = &[
    "Window update gap : 16",
    "Last packet mode  : 0 DUP",
    "Mode              : 0 Client",
    "FPGA MAC address  : 0x000102030405",
    "FPGA IP           : 192.168.200.42",
    "Target IP         : 192.168.200.25",
    "session 0       : 60000 -> 61000",
    "session 3       : 60003 -> 61003",
];

/// The PC tools, built once (a no-op when fresh) beside the console binary:
/// binaries of another package are not built for this one's tests.
pub fn tools() -> Tools {
    static BUILT: OnceLock<Result<Tools, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = Path::new(CONSOLE).parent().expect("target dir").to_path_buf();
            let profile = dir.file_name().and_then(|n| n.to_str()).unwrap_or("debug").to_string();
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "-q", "-p", "host", "--bins"]);
            if profile == "release" {
                cmd.arg("--release");
            }
            let out = cmd.output().map_err(|e| format!("cargo build -p host: {e}"))?;
            if !out.status.success() {
                return Err(format!("cargo build -p host failed: {}", String::from_utf8_lossy(&out.stderr)));
            }
            Ok(Tools { tcpdatatest: dir.join("tcpdatatest"), txrx: dir.join("tcp_client_txrx_single") })
        })
        .clone()
        .expect("the PC tools build")
}

pub fn board(pair: bool) -> VirtualBoard {
    VirtualBoard::start(&Options { port: 0, pair, ..Options::default() }, |l| eprintln!("vboard: {l}"))
        .expect("the virtual board starts")
}

pub use vboard::pc::{Finished, Proc};

/// Starts a process of the test (a failure to start is a test failure).
pub fn spawn(cmd: Command) -> Proc {
    Proc::spawn(cmd).unwrap_or_else(|e| panic!("{e}"))
}

/// `toe-console --connect <addr> <args>`.
pub fn console_cmd(addr: std::net::SocketAddr, args: &[&str]) -> Command {
    let mut c = Command::new(CONSOLE);
    c.arg("--connect").arg(addr.to_string()).args(args);
    c
}

/// Runs the console to its end (bounded).
pub fn console(addr: std::net::SocketAddr, args: &[&str]) -> Finished {
    spawn(console_cmd(addr, args)).finish(Duration::from_secs(300))
}

/// A recommended PC command as the console prints it, run with the tool
/// binaries, a JSON summary and a time-out.
pub fn pc_tool(tools: &Tools, line: &str) -> Command {
    let mut words = line.split_whitespace();
    let tool = words.next().expect("a tool name");
    let exe: PathBuf = match tool {
        "tcpdatatest" => tools.tcpdatatest.clone(),
        "tcp_client_txrx_single" => tools.txrx.clone(),
        other => panic!("unknown PC tool {other:?} in {line:?}"),
    };
    let mut c = Command::new(exe);
    c.args(words).args(["--json", "--quiet", "--timeout", "120"]);
    c
}
