//! Shared by the console's tests: the console binary and the PC tools as
//! processes with bounded waits, and virtual boards in-process.

#![allow(dead_code)]

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use vboard::pc::{free_port, Tools};
use vboard::{Options, VirtualBoard};

pub const CONSOLE: &str = env!("CARGO_BIN_EXE_toe-console");

/// Lines of the parameter screen (menu option 0, `params show`) of a board
/// holding [`set_known_parameters`]'s values.
pub const KNOWN_PARAMETER_LINES: &[&str] = &[
    "Window update gap : 16",
    "Last packet mode  : 0 DUP",
    "Mode              : 0 Client",
    "FPGA MAC address  : 0x000102030405",
    "FPGA IP           : 192.168.200.42",
    "Target IP         : 192.168.200.25",
    "session 0       : 60000 -> 61000",
    "session 3       : 60003 -> 61003",
];

/// Writes the parameters [`KNOWN_PARAMETER_LINES`] shows straight into the
/// registers (not through the console), so a test does not depend on the
/// virtual board's reset values (it may set its own at start).
pub fn set_known_parameters(addr: SocketAddr) {
    use console::{ops, regs};
    let mut bus = etherbone::Client::connect(addr, Duration::from_secs(5)).expect("Etherbone");
    let c = regs::toe::toe_config::MODE.set(0, 0).unwrap();
    let c = regs::toe::toe_config::LAST_PACKET_MODE.set(c, 0).unwrap();
    let c = regs::toe::toe_config::WINDOW_UPDATE_GAP.set(c, 16).unwrap();
    ops::write(&mut bus, regs::toe::TOE_CONFIG, c).unwrap();
    ops::write_wide(&mut bus, regs::toe::FPGA_MAC, 0x0001_0203_0405).unwrap();
    ops::write(&mut bus, regs::toe::FPGA_IP, u32::from(Ipv4Addr::new(192, 168, 200, 42))).unwrap();
    ops::write(&mut bus, regs::toe::TARGET_IP, u32::from(Ipv4Addr::new(192, 168, 200, 25))).unwrap();
    for s in 0..4 {
        ops::ports(&mut bus, s, 60000 + s as u16, 61000 + s as u16).unwrap();
    }
}

/// A process of the test run to its end (bounded): `input` on its stdin,
/// its stdout as given (`None`: piped and collected).
pub struct Run {
    pub code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

pub fn run_with(mut cmd: Command, input: &[u8], stdout: Option<Stdio>, limit: Duration) -> Run {
    use std::io::{Read, Write};
    use std::os::unix::process::ExitStatusExt;
    let collect = stdout.is_none();
    cmd.stdin(Stdio::piped()).stdout(stdout.unwrap_or_else(Stdio::piped)).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("the console starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        // The console may end before it reads everything.
        let _ = stdin.write_all(&input);
    });
    let out = collect.then(|| {
        let mut o = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = o.read_to_end(&mut b);
            b
        })
    });
    let mut e = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || {
        let mut b = String::new();
        let _ = e.read_to_string(&mut b);
        b
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let s = child.wait().expect("wait");
            panic!("{cmd:?} did not end within {limit:?} (killed: {s:?})");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let _ = feeder.join();
    Run {
        code: status.code(),
        signal: status.signal(),
        stdout: out.map(|t| t.join().unwrap()).unwrap_or_default(),
        stderr: err.join().unwrap(),
    }
}

/// A pipe whose read end is already closed: writing to it fails with
/// EPIPE (SIGPIPE, when not ignored).
pub fn closed_pipe() -> Stdio {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: fds is two writable ints; the read end is closed at once and
    // the write end handed to the Stdio, which owns it.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0, "pipe");
        libc::close(fds[0]);
        Stdio::from_raw_fd(fds[1])
    }
}

/// The PC tools, built once (a no-op when fresh) beside the console binary:
/// binaries of another package are not built for this one's tests.
pub fn tools() -> Tools {
    static BUILT: OnceLock<Result<Tools, String>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = Path::new(CONSOLE).parent().expect("target dir").to_path_buf();
            let profile = dir.file_name().and_then(|n| n.to_str()).unwrap_or("debug").to_string();
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "-q", "-p", "pc_tools", "--bins"]);
            if profile == "release" {
                cmd.arg("--release");
            }
            let out = cmd.output().map_err(|e| format!("cargo build -p pc_tools: {e}"))?;
            if !out.status.success() {
                return Err(format!("cargo build -p pc_tools failed: {}", String::from_utf8_lossy(&out.stderr)));
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

/// Points every session at free loopback ports and the PC at 127.0.0.1, so
/// the recommended commands run here as printed, and so boards of tests
/// running at once never share a session port: the reset ports (60000 and
/// up) are the same on every board, and inside Linux's ephemeral range too.
pub fn loopback_params(addr: SocketAddr, sessions: usize) -> Vec<u16> {
    let mut args: Vec<String> =
        vec!["params".into(), "set".into(), "fpga_ip=127.0.0.1".into(), "target_ip=127.0.0.1".into()];
    let mut fpga_ports = Vec::new();
    for s in 0..sessions {
        let p = free_port();
        fpga_ports.push(p);
        args.push(format!("fpga_port{s}={p}"));
        args.push(format!("target_port{s}={}", free_port()));
    }
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let f = console(addr, &a);
    assert_eq!(f.code, Some(0), "{}", f.all());
    assert!(f.stdout.iter().any(|l| l == "IP initialization complete"), "{}", f.all());
    fpga_ports
}

/// Starts a process of the test (a failure to start is a test failure).
pub fn spawn(cmd: Command) -> Proc {
    Proc::spawn(cmd).unwrap_or_else(|e| panic!("{e}"))
}

/// `toe-console --connect <addr> <args>`.
pub fn console_cmd(addr: std::net::SocketAddr, args: &[&str]) -> Command {
    let mut c = console_command();
    c.arg("--connect").arg(addr.to_string()).args(args);
    c
}

/// The console binary with SIGINT, SIGTERM and SIGHUP at their defaults, so
/// the tests that send them see the console's handlers however the tests
/// were launched: a script's background job or `nohup` starts them with
/// SIGINT or SIGHUP ignored, and the console rightly keeps an ignored
/// signal ignored.
pub fn console_command() -> Command {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(CONSOLE);
    // SAFETY: only async-signal-safe calls (signal) between fork and exec.
    unsafe {
        c.pre_exec(|| {
            for sig in console::run::STOP_SIGNALS {
                libc::signal(sig, libc::SIG_DFL);
            }
            Ok(())
        });
    }
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
        // Built with the others (`cargo build -p pc_tools --bins`); it has no --quiet.
        "tcp_latency" => {
            let mut c = Command::new(tools.tcpdatatest.with_file_name("tcp_latency"));
            c.args(words).args(["--json", "--timeout", "120"]);
            return c;
        }
        other => panic!("unknown PC tool {other:?} in {line:?}"),
    };
    let mut c = Command::new(exe);
    c.args(words).args(["--json", "--quiet", "--timeout", "120"]);
    c
}

/// The PC commands the console recommends for `args` (a command line
/// without `--dry-run`), from a dry run: (session, command).
pub fn recommended(addr: SocketAddr, args: &[&str]) -> Vec<(u64, String)> {
    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let d = console(addr, &dry);
    assert_eq!(d.code, Some(0), "{}", d.all());
    d.json()["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| (c["session"].as_u64().unwrap(), c["command"].as_str().unwrap().to_string()))
        .collect()
}

/// Runs the console with `args` then `extra` against a virtual board
/// started here, with the PC tools it recommends for `args` as each
/// session's peer, run the way a person would: every PC server (a command
/// `is_server` accepts) first, then the console, then each PC client once
/// its session listens. Panics unless the console exits 0 and prints a line
/// containing `complete` on stderr; returns its JSON and each tool's run.
pub fn run_beside_pc_tools(
    args: &[&str],
    extra: &[&str],
    is_server: impl Fn(&str) -> bool,
    complete: &str,
    limit: Duration,
) -> (serde_json::Value, Vec<(u64, vboard::pc::ToolRun)>) {
    use vboard::pc::{wait_listening, ToolProcess};
    let vb = board(false);
    let addr = vb.register_addrs()[0];
    let fpga_ports = loopback_params(addr, vb.design.sessions);
    let commands = recommended(addr, args);
    let tools = tools();
    let mut procs = Vec::new();
    for (s, c) in commands.iter().filter(|(_, c)| is_server(c)) {
        procs.push((*s, ToolProcess::spawn(pc_tool(&tools, c), true).expect("PC server")));
    }
    let all: Vec<&str> = args.iter().chain(extra).copied().collect();
    let con = spawn(console_cmd(addr, &all));
    for (s, c) in commands.iter().filter(|(_, c)| !is_server(c)) {
        assert!(wait_listening(fpga_ports[*s as usize], Duration::from_secs(30)), "session {s} does not listen");
        procs.push((*s, ToolProcess::spawn(pc_tool(&tools, c), false).expect("PC client")));
    }
    let runs: Vec<_> = procs.into_iter().map(|(s, p)| (s, p.finish(limit))).collect();
    let f = con.finish(limit);
    eprintln!("{}", f.all());
    assert_eq!(f.code, Some(0), "the console reports a failure: {}", f.all());
    assert!(f.stderr.iter().any(|l| l.contains(complete)), "{}", f.all());
    (f.json(), runs)
}
