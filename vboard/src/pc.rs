//! The demo's first environment (FPGA and PC, section 3 of the reference):
//! the PC tools against a board reached over Etherbone. Used by the tests
//! (`pc_tools/tests/virtual_board.rs`) and by `make demo-pc`.
//!
//! A *leg* is one session's test: what the FPGA does (send, receive, full
//! duplex), whether it is the client or the server, the size, and whether
//! both sides use the incremental pattern (verified) or dummy data. The PC
//! tool of each leg is the one the reference names: `tcpdatatest` for half
//! duplex, `tcp_client_txrx_single` for full duplex.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use driver::ops;
use driver::{Mode, SessionResult, SessionTest};
use etherbone::RegisterBus;

/// A board's registers over Etherbone: the client implements
/// `etherbone::RegisterBus`, which every console operation takes.
pub type Remote = etherbone::Client;

/// Connects to the board at `addr` (bounded wait).
pub fn connect(addr: SocketAddr) -> Result<Remote, String> {
    etherbone::Client::connect(addr, Duration::from_secs(5)).map_err(|e| format!("Etherbone {addr}: {e}"))
}

/// Where the PC tools are.
#[derive(Clone, Debug)]
pub struct Tools {
    pub tcpdatatest: PathBuf,
    pub txrx: PathBuf,
}

impl Tools {
    /// The tools beside the running executable (`target/<profile>/`).
    pub fn beside_exe() -> Result<Tools, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
        let dir = exe.parent().ok_or("the executable has no folder")?;
        let t = Tools { tcpdatatest: dir.join("tcpdatatest"), txrx: dir.join("tcp_client_txrx_single") };
        for p in [&t.tcpdatatest, &t.txrx] {
            if !p.exists() {
                return Err(format!(
                    "{} is missing: build the PC tools (cargo build --release -p pc_tools)",
                    p.display()
                ));
            }
        }
        Ok(t)
    }
}

/// One session's test.
#[derive(Clone, Copy, Debug)]
pub struct Leg {
    pub session: usize,
    /// What the FPGA does.
    pub mode: Mode,
    pub size: u64,
    /// The FPGA opens the connection (client); else it listens (server).
    pub fpga_client: bool,
    /// Incremental pattern on both sides, verified; else dummy data, not verified.
    pub incremental: bool,
    /// The FPGA's port (it listens there as a server, connects from it as a client).
    pub fpga_port: u16,
    /// The PC's port (it listens there when the FPGA is the client).
    pub pc_port: u16,
}

impl Leg {
    /// The FPGA's register settings for this leg.
    pub fn session_test(&self) -> SessionTest {
        let mut t = SessionTest::new(self.mode, self.size, self.fpga_client);
        t.verify = self.incremental;
        t.incremental = self.incremental;
        t
    }

    /// The PC tool's command line for this leg.
    pub fn command(&self, tools: &Tools, timeout_s: u64) -> Command {
        let pat = if self.incremental { "1" } else { "0" };
        let size = self.size.to_string();
        let (port, server) = if self.fpga_client { (self.pc_port, true) } else { (self.fpga_port, false) };
        let port = port.to_string();
        let mut cmd;
        match self.mode {
            Mode::FullDuplex => {
                cmd = Command::new(&tools.txrx);
                if server {
                    cmd.arg("--server");
                }
            }
            Mode::Send | Mode::Receive => {
                cmd = Command::new(&tools.tcpdatatest);
                cmd.arg(if server { "s" } else { "c" });
                // The PC does the opposite of the FPGA.
                cmd.arg(if self.mode == Mode::Send { "r" } else { "t" });
            }
        }
        cmd.args(["127.0.0.1", &port, &size, pat, "1", "--json", "--quiet", "--timeout", &timeout_s.to_string()]);
        cmd
    }
}

/// One connection of an iperf 2 CSV report (`-y C`): the ports it names
/// and the bytes it moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iperf2Report {
    /// The client's port (iperf prints the client's address first).
    pub src_port: u16,
    pub dst_port: u16,
    pub bytes: u64,
}

/// Bytes of a stream `iperf -s` (2.x) reads as its client's header and
/// leaves out of its count: the first 32-bit word, the header's flags. A
/// stream whose flags are 0 (the pattern's word 0) has no further header.
/// Seen with iperf 2.1.8 and plain sockets: 1,000,003 zero bytes are
/// reported as 999,999, 100 as 96.
pub const IPERF2_HEADER_BYTES: u64 = 4;

impl Iperf2Report {
    /// Parses one CSV line: timestamp, source address and port, destination
    /// address and port, transfer id, interval, bytes, bits per second.
    pub fn parse(line: &str) -> Option<Iperf2Report> {
        let f: Vec<&str> = line.trim().split(',').collect();
        if f.len() < 9 {
            return None;
        }
        Some(Iperf2Report { src_port: f[2].parse().ok()?, dst_port: f[4].parse().ok()?, bytes: f[7].parse().ok()? })
    }
}

/// A free loopback TCP port (the OS's choice; free when returned), never
/// one this process was given before: the OS may hand a port it just gave
/// out again once its listener is closed, and callers pick several ports
/// (a session's and its peer's, every session's) before anything binds them.
pub fn free_port() -> u16 {
    static GIVEN: Mutex<BTreeSet<u16>> = Mutex::new(BTreeSet::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..1000 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        if given.insert(port) {
            return port;
        }
    }
    panic!("free_port: the OS gave 1000 ports this process had already been given");
}

/// A child process whose stdout and stderr lines arrive on channels, so
/// every wait on it is bounded.
pub struct Proc {
    pub child: Child,
    out: mpsc::Receiver<String>,
    err: mpsc::Receiver<String>,
    /// The command line, for messages.
    pub what: String,
}

/// What a finished process printed.
#[derive(Clone, Debug)]
pub struct Finished {
    /// Exit status (None if killed).
    pub code: Option<i32>,
    pub stdout: Vec<String>,
    pub stderr: Vec<String>,
}

impl Finished {
    /// The last stdout line that is a JSON document (Null if none).
    pub fn json(&self) -> serde_json::Value {
        self.stdout.iter().rev().find_map(|l| serde_json::from_str(l).ok()).unwrap_or(serde_json::Value::Null)
    }

    /// Both outputs, for a failure message.
    pub fn all(&self) -> String {
        format!("stdout:\n{}\nstderr:\n{}", self.stdout.join("\n"), self.stderr.join("\n"))
    }
}

impl Proc {
    /// Starts `cmd` with no input and both outputs piped.
    pub fn spawn(mut cmd: Command) -> Result<Proc, String> {
        let what = format!("{cmd:?}");
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {what}: {e}"))?;
        let out = pump(child.stdout.take().expect("piped"));
        let err = pump(child.stderr.take().expect("piped"));
        Ok(Proc { child, out, err, what })
    }

    /// Waits up to `limit` for a stderr line containing `needle`; the lines
    /// before it are dropped.
    pub fn wait_stderr(&mut self, needle: &str, limit: Duration) -> Result<(), String> {
        let deadline = Instant::now() + limit;
        loop {
            match self.err.recv_timeout(Duration::from_millis(50)) {
                Ok(line) if line.contains(needle) => return Ok(()),
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!("{} ended before printing {needle:?}", self.what))
                }
                Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() > deadline => {
                    return Err(format!("{} did not print {needle:?} within {limit:?}", self.what))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Waits up to `limit` for a stdout line for which `pick` gives a value;
    /// the lines before it are dropped.
    pub fn wait_stdout<T>(&mut self, limit: Duration, mut pick: impl FnMut(&str) -> Option<T>) -> Result<T, String> {
        let deadline = Instant::now() + limit;
        loop {
            match self.out.recv_timeout(Duration::from_millis(50)) {
                Ok(line) => {
                    if let Some(v) = pick(&line) {
                        return Ok(v);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(format!("{} ended before printing the line waited for", self.what))
                }
                Err(mpsc::RecvTimeoutError::Timeout) if Instant::now() > deadline => {
                    return Err(format!("{} did not print the line waited for within {limit:?}", self.what))
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Waits for the end, killing the process after `limit`, and collects its output.
    pub fn finish(mut self, limit: Duration) -> Finished {
        let deadline = Instant::now() + limit;
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if Instant::now() > deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(_) => break None,
            }
        };
        Finished { code: status.and_then(|s| s.code()), stdout: drain(&self.out), stderr: drain(&self.err) }
    }

    /// Kills the process at once.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A PC tool started for a leg.
pub struct ToolProcess(Proc);

/// What a PC tool reported.
#[derive(Clone, Debug)]
pub struct ToolRun {
    /// Exit status (None if killed).
    pub exit: Option<i32>,
    /// Its `--json` summary (Null if it printed none).
    pub json: serde_json::Value,
    pub stderr: String,
}

impl ToolRun {
    /// Bytes and MB/s (wall clock) of a direction (`"tx"` or `"rx"`) summed over the tool's sessions.
    /// A session whose time was too short for a rate (`mb_per_s` null, under
    /// 1 ms) adds its bytes and no rate, so the byte check still sees it.
    pub fn direction(&self, dir: &str) -> Option<(u64, f64)> {
        let s = self.json.get("sessions")?.as_array()?;
        let mut bytes = 0;
        let mut rate = 0.0;
        for sess in s {
            let d = sess.get(dir)?;
            bytes += d.get("bytes")?.as_u64()?;
            rate += d.get("mb_per_s").and_then(|v| v.as_f64()).unwrap_or(0.0);
        }
        Some((bytes, rate))
    }

    pub fn ok(&self) -> bool {
        self.exit == Some(0) && self.json.get("ok").and_then(|v| v.as_bool()) == Some(true)
    }
}

/// The lines of a child's pipe, on a channel, read by a thread of their own
/// (ends with the pipe).
pub fn pump(r: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(r).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

impl ToolProcess {
    /// Starts `cmd`; a server is not returned before it printed `listening on`.
    pub fn spawn(cmd: Command, server: bool) -> Result<ToolProcess, String> {
        let mut p = Proc::spawn(cmd)?;
        if server {
            if let Err(e) = p.wait_stderr("listening on", Duration::from_secs(10)) {
                p.kill();
                return Err(e);
            }
        }
        Ok(ToolProcess(p))
    }

    /// Waits for the tool to end, killing it after `limit`.
    pub fn finish(self, limit: Duration) -> ToolRun {
        let f = self.0.finish(limit);
        ToolRun { exit: f.code, json: f.json(), stderr: f.stderr.join("\n") }
    }

    /// Kills the tool at once.
    pub fn kill(self) {
        self.0.kill();
    }
}

fn drain(rx: &mpsc::Receiver<String>) -> Vec<String> {
    let mut v = Vec::new();
    // The pump threads end with the pipes; give them a moment to deliver.
    while let Ok(l) = rx.recv_timeout(Duration::from_millis(300)) {
        v.push(l);
    }
    v
}

/// Waits until something listens on loopback TCP `port` (the board's
/// session after its passive open), reading the kernel's socket table, so a
/// PC client never races the board's `listen()`. Probing with a connection
/// instead would take the session's one connection. False after `limit`.
pub fn wait_listening(port: u16, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let needle = format!(":{port:04X} ");
    loop {
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            if let Ok(text) = std::fs::read_to_string(table) {
                // Columns: sl local_address rem_address st ...; st 0A = LISTEN.
                let listening = text.lines().skip(1).any(|l| {
                    let mut cols = l.split_whitespace().skip(1);
                    let local = cols.next().unwrap_or("");
                    let state = cols.nth(1).unwrap_or("");
                    format!("{local} ").ends_with(&needle) && state == "0A"
                });
                if listening {
                    return true;
                }
            }
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Programs and starts the FPGA side of `leg`.
pub fn start_fpga(bus: &mut impl RegisterBus, leg: &Leg) -> Result<(), ops::OpError> {
    ops::program(bus, leg.session, &leg.session_test())?;
    ops::ports(bus, leg.session, leg.fpga_port, leg.pc_port)?;
    ops::start(bus, leg.session)
}

/// Polls `status.busy` of `sessions` until all are idle; `Ok(false)` after `limit`.
pub fn wait_idle(bus: &mut impl RegisterBus, sessions: &[usize], limit: Duration) -> Result<bool, ops::OpError> {
    let deadline = Instant::now() + limit;
    loop {
        let mut busy = false;
        for &s in sessions {
            busy |= ops::busy(bus, s)?;
        }
        if !busy {
            return Ok(true);
        }
        if Instant::now() > deadline {
            return Ok(false);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One leg's outcome: what the board's registers say and what the tool said.
#[derive(Clone, Debug)]
pub struct LegOutcome {
    pub leg: Leg,
    pub fpga: SessionResult,
    pub tool: ToolRun,
}

impl LegOutcome {
    /// Every byte accounted for: the board's counters equal the size in each
    /// direction it used, no verification error, `done`; the tool succeeded
    /// and moved the same bytes. `Err` says what differs.
    pub fn check(&self) -> Result<(), String> {
        let l = &self.leg;
        let f = &self.fpga;
        let (tx, rx) = match l.mode {
            Mode::Send => (l.size, 0),
            Mode::Receive => (0, l.size),
            Mode::FullDuplex => (l.size, l.size),
        };
        if !(f.done && !f.error && !f.busy) {
            return Err(format!("session {}: the board did not end in done: {f:?}", l.session));
        }
        if (f.tx_bytes, f.rx_bytes) != (tx, rx) || f.err_count != 0 {
            return Err(format!(
                "session {}: board counters tx {} rx {} errors {}, expected tx {tx} rx {rx} errors 0",
                l.session, f.tx_bytes, f.rx_bytes, f.err_count
            ));
        }
        if !self.tool.ok() {
            return Err(format!(
                "session {}: the PC tool failed (exit {:?}): {}",
                l.session, self.tool.exit, self.tool.stderr
            ));
        }
        let pc_rx = self.tool.direction("rx").map(|d| d.0).unwrap_or(0);
        let pc_tx = self.tool.direction("tx").map(|d| d.0).unwrap_or(0);
        if (pc_tx, pc_rx) != (rx, tx) {
            return Err(format!(
                "session {}: the PC tool moved tx {pc_tx} rx {pc_rx}, the board rx {rx} tx {tx}",
                l.session
            ));
        }
        Ok(())
    }

    /// MB/s (wall clock) the PC tool measured, summed over its directions.
    pub fn pc_mb_s(&self) -> f64 {
        ["tx", "rx"].iter().filter_map(|d| self.tool.direction(d)).map(|d| d.1).sum()
    }

    /// MB/s in simulated time from the board's `elapsed`, over its directions.
    pub fn board_mb_s(&self, user_clock_khz: u32) -> f64 {
        self.fpga.mb_s(self.fpga.tx_bytes + self.fpga.rx_bytes, user_clock_khz)
    }
}

/// Runs `legs` at once: FPGA servers are started before their PC clients,
/// PC servers before their FPGA clients; then waits for every tool and
/// session (bounded by `limit`) and reads the results.
pub fn run_legs(
    bus: &mut impl RegisterBus,
    tools: &Tools,
    legs: &[Leg],
    limit: Duration,
) -> Result<Vec<LegOutcome>, String> {
    let timeout_s = limit.as_secs().max(1);
    let mut procs = Vec::new();
    for leg in legs.iter().filter(|l| l.fpga_client) {
        procs.push((leg.session, ToolProcess::spawn(leg.command(tools, timeout_s), true)?));
    }
    for leg in legs {
        start_fpga(bus, leg).map_err(|e| e.to_string())?;
    }
    for leg in legs.iter().filter(|l| !l.fpga_client) {
        if !wait_listening(leg.fpga_port, Duration::from_secs(10)) {
            return Err(format!(
                "session {}: the board does not listen on port {} 10 s after start",
                leg.session, leg.fpga_port
            ));
        }
        procs.push((leg.session, ToolProcess::spawn(leg.command(tools, timeout_s), false)?));
    }
    let mut runs: Vec<(usize, ToolRun)> = procs.into_iter().map(|(s, p)| (s, p.finish(limit))).collect();
    let sessions: Vec<usize> = legs.iter().map(|l| l.session).collect();
    // A session whose tool failed may wait for a peer that never comes:
    // give the others time, then abort the rest and say why.
    let failed: Vec<String> = runs
        .iter()
        .filter(|(_, r)| !r.ok())
        .map(|(s, r)| format!("session {s}: tool exit {:?}: {}", r.exit, r.stderr))
        .collect();
    let grace = if failed.is_empty() { limit } else { Duration::from_secs(5) };
    if !wait_idle(bus, &sessions, grace).map_err(|e| e.to_string())? {
        for &s in &sessions {
            ops::abort(bus, s).map_err(|e| e.to_string())?;
        }
        let _ = wait_idle(bus, &sessions, Duration::from_secs(5));
        return Err(format!("sessions {sessions:?} still busy after {grace:?} (aborted); {}", failed.join("; ")));
    }
    let mut out = Vec::new();
    for leg in legs {
        let pos = runs.iter().position(|(s, _)| *s == leg.session).expect("a tool per leg");
        let (_, tool) = runs.swap_remove(pos);
        out.push(LegOutcome { leg: *leg, fpga: ops::result(bus, leg.session).map_err(|e| e.to_string())?, tool });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ports asked for one after another are all different, though each
    /// listener is closed before the next is asked for.
    #[test]
    fn free_ports_never_repeat_in_a_process() {
        let ports: Vec<u16> = (0..3000).map(|_| free_port()).collect();
        let distinct: BTreeSet<u16> = ports.iter().copied().collect();
        assert_eq!(distinct.len(), ports.len(), "free_port gave a port twice");
    }
}
