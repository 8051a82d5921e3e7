//! Shared by the console's tests: the console binary and the PC tools as
//! processes with bounded waits, and virtual boards in-process.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use vboard::pc::{pump, Tools};
use vboard::{Options, VirtualBoard};

pub const CONSOLE: &str = env!("CARGO_BIN_EXE_toe-console");

/// The PC tools, built once (a no-op when fresh) beside the console binary:
/// binaries of another package are not built for this one's tests.
pub fn tools() -> Tools {
    static BUILT: OnceLock<Result<Tools, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = Path::new(CONSOLE)
                .parent()
                .expect("target dir")
                .to_path_buf();
            let profile = dir
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("debug")
                .to_string();
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "-q", "-p", "host", "--bins"]);
            if profile == "release" {
                cmd.arg("--release");
            }
            let out = cmd
                .output()
                .map_err(|e| format!("cargo build -p host: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "cargo build -p host failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            Ok(Tools {
                tcpdatatest: dir.join("tcpdatatest"),
                txrx: dir.join("tcp_client_txrx_single"),
            })
        })
        .clone()
        .expect("the PC tools build")
}

pub fn board(pair: bool) -> VirtualBoard {
    VirtualBoard::start(
        &Options {
            port: 0,
            pair,
            ..Options::default()
        },
        |l| eprintln!("vboard: {l}"),
    )
    .expect("the virtual board starts")
}

/// A running process whose output lines arrive on channels.
pub struct Proc {
    pub child: Child,
    pub out: mpsc::Receiver<String>,
    pub err: mpsc::Receiver<String>,
    pub what: String,
}

/// What a finished process printed.
#[derive(Debug)]
pub struct Finished {
    pub code: Option<i32>,
    pub stdout: Vec<String>,
    pub stderr: Vec<String>,
}

impl Finished {
    /// The last stdout line that is a JSON object.
    pub fn json(&self) -> serde_json::Value {
        self.stdout
            .iter()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or(serde_json::Value::Null)
    }
    pub fn all(&self) -> String {
        format!(
            "stdout:\n{}\nstderr:\n{}",
            self.stdout.join("\n"),
            self.stderr.join("\n")
        )
    }
}

impl Proc {
    pub fn spawn(mut cmd: Command) -> Proc {
        let what = format!("{cmd:?}");
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let out = pump(child.stdout.take().unwrap());
        let err = pump(child.stderr.take().unwrap());
        Proc {
            child,
            out,
            err,
            what,
        }
    }

    /// Waits for a stderr line containing `needle` (bounded); the lines seen.
    pub fn wait_stderr(&mut self, needle: &str, limit: Duration, seen: &mut Vec<String>) {
        let deadline = Instant::now() + limit;
        loop {
            match self.err.recv_timeout(Duration::from_millis(50)) {
                Ok(l) => {
                    let hit = l.contains(needle);
                    seen.push(l);
                    if hit {
                        return;
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    panic!("{} ended before printing {needle:?}: {seen:?}", self.what)
                }
                Err(mpsc::RecvTimeoutError::Timeout) => assert!(
                    Instant::now() < deadline,
                    "{} did not print {needle:?} within {limit:?}: {seen:?}",
                    self.what
                ),
            }
        }
    }

    /// Waits for the end (killing it after `limit`) and collects the output.
    pub fn finish(mut self, limit: Duration) -> Finished {
        let deadline = Instant::now() + limit;
        let code = loop {
            match self.child.try_wait().expect("try_wait") {
                Some(s) => break s.code(),
                None if Instant::now() > deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
                None => std::thread::sleep(Duration::from_millis(10)),
            }
        };
        let drain = |rx: &mpsc::Receiver<String>| {
            let mut v = Vec::new();
            while let Ok(l) = rx.recv_timeout(Duration::from_millis(300)) {
                v.push(l);
            }
            v
        };
        Finished {
            code,
            stdout: drain(&self.out),
            stderr: drain(&self.err),
        }
    }
}

/// `toe-console --connect <addr> <args>`.
pub fn console_cmd(addr: std::net::SocketAddr, args: &[&str]) -> Command {
    let mut c = Command::new(CONSOLE);
    c.arg("--connect").arg(addr.to_string()).args(args);
    c
}

/// Runs the console to its end (bounded).
pub fn console(addr: std::net::SocketAddr, args: &[&str]) -> Finished {
    Proc::spawn(console_cmd(addr, args)).finish(Duration::from_secs(300))
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
    c.args(words)
        .args(["--json", "--quiet", "--timeout", "120"]);
    c
}
