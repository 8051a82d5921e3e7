//! `toe-console`: the demo's console. See `toe-console --help` and docs/console.md.

use std::cell::Cell;
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand};
use console::backend::{self, Target};
use console::identity::{self, Expect, Identity};
use console::input::InputError;
use console::latency_test::{self, LatencySpec};
use console::params::{self, Params};
use console::run::{self, Duplex, RunOptions, SessionSpec, Stop};
use console::{iperf3, menu, ops, regs};
use etherbone::RegisterBus;

#[derive(Parser)]
#[command(
    name = "toe-console",
    about = "The TOE demo's console: TOE parameters, half- and full-duplex tests, registers",
    long_about = "The TOE demo's console over one register bus. Without a subcommand it runs the interactive menu.\n\
                  It reads and checks the board's identity (info block) before anything else.\n\n\
                  Exit status: 0 success; 1 a failed test (verification error, refused, connection reset,\n\
                  peer closed, time limit, abort, a signal), a session still busy with an earlier test,\n\
                  or a failed register access; 2 an invalid command line or input. Output into a closed\n\
                  pipe (`regs | head -1`) ends the console quietly: status 0, except for `test`, whose\n\
                  sessions are aborted (status 1).",
    after_help = "Session spec of `test`: N:MODE:SIZE[:PACKET[:VERIFY[:SPEED[:CONN]]]]\n  \
                  N session 0..sessions-1; MODE half 0 disable, 1 send, 2 receive; full 0 disable, 1 full duplex;\n  \
                  SIZE transfer size 1..0xFFFF_FFFF_FFFF bytes (decimal or 0x hex); PACKET packet size, same range (8192);\n  \
                  VERIFY 1 incremental pattern sent and verified, 0 dummy data (1); SPEED max speed 1-100 % (100);\n  \
                  CONN 0 client (active open), 1 server (passive open) (1).\n\
                  Session spec of `test latency`: N:ROLE:REQUEST:RESPONSE:COUNT[:OUTSTANDING[:CONN]]\n  \
                  ROLE initiator (sends the requests, measures each round trip) or echo (answers each request);\n  \
                  REQUEST, RESPONSE sizes 1-65535 bytes; COUNT requests 1-0xFFFF_FFFF (an echo: those it answers);\n  \
                  OUTSTANDING requests in flight 1-16 (1); CONN as above (1).\n\
                  Examples:\n  \
                  toe-console --connect 127.0.0.1:1234 params show\n  \
                  toe-console --connect 127.0.0.1:1234 params set window_update_gap=32 fpga_port0=60010\n  \
                  toe-console --connect 127.0.0.1:1234 --json test half --session 0:1:0x100000 --session 1:2:1000000:8192:1:50\n  \
                  toe-console --connect 127.0.0.1:1234 test latency --session 0:initiator:64:64:10000 --plot rtt.svg\n  \
                  toe-console --connect 127.0.0.1:1234 abort --session 0   # end a test a killed console left running\n  \
                  toe-console --connect 127.0.0.1:1234 iperf3 -c 127.0.0.1 -n 10M -P 4   # FPGA sessions 0-3 as iperf3's streams\n\
                  A test is not started on a session still running one (status.busy); Ctrl-C, SIGTERM and SIGHUP\n\
                  abort every session of a running test before the console goes."
)]
struct Cli {
    /// Etherbone over TCP: the virtual board, or litex_server in front of a board (port 1-65535).
    #[arg(long, value_name = "HOST:PORT", group = "bus", value_parser = parse_connect)]
    connect: Option<String>,
    /// A PCIe BAR through /sys/bus/pci/devices/<BDF>/resource<BAR> (BAR 0 by default).
    #[arg(long, value_name = "BDF[/BAR]", group = "bus")]
    pcie: Option<String>,
    /// The XDMA driver's user-BAR device, e.g. /dev/xdma0_user.
    #[arg(long, value_name = "DEV", group = "bus")]
    xdma: Option<PathBuf>,
    /// Results and parameters as one JSON object on stdout (-J as iperf3 has it).
    #[arg(long, short = 'J', global = true)]
    json: bool,
    /// Expected session count (default: the console's design).
    #[arg(long, value_name = "N")]
    sessions: Option<usize>,
    /// Expected data width in bits (default: the console's design).
    #[arg(long, value_name = "BITS")]
    data_width: Option<u32>,
    /// Expected user clock in kHz (default: the console's design).
    #[arg(long, value_name = "KHZ")]
    clock_khz: Option<u32>,
    /// The --connect server is LiteX's litex_server: no error-register read after each access
    /// (it does not serve one), so an AXI error response goes unnoticed.
    #[arg(long, requires = "connect")]
    litex_server: bool,
    /// Longest wait for the Etherbone connection and each access, in seconds (1-3600).
    #[arg(long, value_name = "S", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=3600))]
    bus_timeout: u64,
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// TOE parameters (menu 0 and 1).
    Params {
        #[command(subcommand)]
        op: ParamsOp,
    },
    /// Run a test (menu 2 half duplex, menu 3 full duplex, menu 5 latency).
    Test {
        /// half, full or latency
        #[arg(value_parser = ["half", "full", "latency"])]
        duplex: String,
        /// One session: N:MODE:SIZE[:PACKET[:VERIFY[:SPEED[:CONN]]]], for latency
        /// N:ROLE:REQUEST:RESPONSE:COUNT[:OUTSTANDING[:CONN]] (repeat per session).
        #[arg(long = "session", value_name = "SPEC", required = true)]
        sessions: Vec<String>,
        /// Longest the test may take, connection included, in seconds (0-86400, 0 = no limit, as in the
        /// PC tools); then every session is aborted.
        #[arg(long, value_name = "S", default_value_t = 600,
              value_parser = clap::value_parser!(u64).range(0..=MAX_TIMEOUT_S))]
        timeout: u64,
        /// Progress every this many seconds (0.05-3600).
        #[arg(long, value_name = "S", default_value_t = 1.0, value_parser = parse_interval)]
        interval: f64,
        /// Check the sessions and print the recommended PC commands; start nothing.
        #[arg(long)]
        dry_run: bool,
        /// Open-ended, the iperf 2 way (half duplex only): a sending session (a client) sends for S
        /// seconds of the user clock (0.000001-86400), a receiving one (a server) takes any number of
        /// bytes until its peer closes; SIZE is then ignored and the PC commands are iperf's.
        #[arg(long, value_name = "S", value_parser = parse_duration)]
        duration: Option<f64>,
        /// Draw each session's MB/s over the board's time into FILE; for latency, every initiator's
        /// round-trip histogram on a log time axis with its percentiles (SVG, written when the test
        /// ends, whole or not at all).
        #[arg(long, value_name = "FILE", conflicts_with = "dry_run")]
        plot: Option<std::path::PathBuf>,
    },
    /// Every register of the map by name with its value.
    Regs,
    /// The open engine's network node (a design with toe.core = "open"): the target's MAC as ARP
    /// found it, and every counter (frames in and out, ARP, ICMP echoes, and each reason a frame
    /// was dropped); counters wrap at 2^32.
    Net,
    /// End the tests sessions are still running (`ctrl.abort`), such as one a killed console left
    /// behind; waits up to 5 s for each to be idle, and frees each session's claim (another console's
    /// `session.claim`, which a killed console leaves held).
    Abort {
        /// A session to abort (repeat); without it, every session still busy or claimed.
        #[arg(long = "session", value_name = "N")]
        sessions: Vec<String>,
    },
    /// End the sends of tests sessions are running, gracefully (`ctrl.stop`): the stream ends, the
    /// session closes and the test ends `done`; waits up to 5 s for each to be idle. A session running
    /// a latency test is refused by name, nothing written (`ctrl.stop` does not end one; `abort` does).
    Stop {
        /// A session to stop (repeat); without it, every session still busy.
        #[arg(long = "session", value_name = "N")]
        sessions: Vec<String>,
    },
    /// An iperf3 client whose data streams are FPGA sessions 0..P-1 (iperf3's flags and meanings;
    /// TCP only): the console speaks iperf3's control protocol to the server, the FPGA connects the
    /// streams to it (the TOE's target_ip must be the server) and sends, or receives with -R; the
    /// server's figures and the FPGA's are printed side by side, status 0 only when they agree per
    /// stream. The sessions' ports and test registers are put back afterwards.
    Iperf3 {
        /// The iperf3 server (`iperf3 -s`) to run the test against.
        #[arg(short = 'c', long = "client", value_name = "SERVER")]
        server: String,
        /// The server's port (1-65535).
        #[arg(short = 'p', long, value_name = "PORT", default_value_t = console::iperf3::DEFAULT_PORT,
              value_parser = clap::value_parser!(u16).range(1..))]
        port: u16,
        /// Seconds to send (1-86400): the FPGA's `duration`, or `ctrl.stop` after as long in wall
        /// time on a board slower than real time (default 10).
        #[arg(short = 't', long, value_name = "SECONDS", conflicts_with = "bytes",
              value_parser = clap::value_parser!(u64).range(1..=86_400))]
        time: Option<u64>,
        /// Bytes to send over all streams instead of a time (K, M, G: powers of 1024), after each
        /// stream's 37-byte cookie; 1..=2^48-1, and (without -R) each stream's share plus its cookie too.
        #[arg(short = 'n', long, value_name = "BYTES", value_parser = parse_bytes)]
        bytes: Option<u64>,
        /// Streams, one FPGA session each, sessions 0..P-1 (1..=sessions).
        #[arg(short = 'P', long, value_name = "N", default_value_t = 1)]
        parallel: usize,
        /// Reverse: the server sends, the FPGA receives.
        #[arg(short = 'R', long)]
        reverse: bool,
    },
    /// The interactive menu (the default).
    Menu,
}

/// `-n BYTES`: a number with an optional K, M or G (powers of 1024), as iperf3 reads it.
fn parse_bytes(s: &str) -> Result<u64, String> {
    let (digits, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&s[..i], c.to_ascii_uppercase()),
        _ => (s, ' '),
    };
    let scale = match unit {
        ' ' => 1u64,
        'K' => 1 << 10,
        'M' => 1 << 20,
        'G' => 1 << 30,
        _ => return Err(format!("{s:?}: the unit is K, M or G")),
    };
    match digits.parse::<u64>().ok().and_then(|n| n.checked_mul(scale)) {
        Some(n) if (1..=0xFFFF_FFFF_FFFF).contains(&n) => Ok(n),
        _ => Err(format!("{s:?} is not a byte count in 1..=2^48-1 (K, M, G: powers of 1024)")),
    }
}

#[derive(Subcommand)]
enum ParamsOp {
    /// Show the parameters (menu 0).
    Show,
    /// Set parameters, then reset and initialise the TOE (menu 1).
    Set {
        /// KEY=VALUE: mode, last_packet_mode, window_update_gap, fpga_mac, fpga_ip, target_mac, target_ip, fpga_port<N>, target_port<N> (1-65535), stall_timeout (ms, every session; 0 never).
        #[arg(required = true)]
        assignments: Vec<String>,
        /// Write the parameters without initialising the TOE.
        #[arg(long)]
        no_init: bool,
    },
    /// Reset and initialise the TOE with the parameters it has.
    Init,
}

/// An error and the exit status it gets; an empty message ends quietly.
struct Fail(u8, String);

impl Fail {
    /// Standard output closed (`regs | head -1`): the reader took what it
    /// wanted; nothing more to say, nothing left half-done.
    fn output_closed() -> Fail {
        Fail(0, String::new())
    }
}

impl From<ops::OpError> for Fail {
    fn from(e: ops::OpError) -> Self {
        Fail(1, e.0)
    }
}

impl From<InputError> for Fail {
    fn from(e: InputError) -> Self {
        Fail(2, e.to_string())
    }
}

const INIT_LIMIT: Duration = Duration::from_secs(2);
/// The longest `--timeout`, as the PC tools' (`host`): a day.
const MAX_TIMEOUT_S: u64 = 86_400;
/// How long `abort` waits for a session to be idle.
const ABORT_WAIT: Duration = Duration::from_secs(5);

/// `--connect HOST:PORT`: a port 1-65535 is required (the virtual board
/// listens on 1234); checked here so a bad one is a bad command line.
fn parse_connect(s: &str) -> Result<String, String> {
    if let Ok(a) = s.parse::<SocketAddr>() {
        return if a.port() == 0 { Err("port 0 is not in 1..=65535".into()) } else { Ok(s.to_string()) };
    }
    let Some((host, port)) = s.rsplit_once(':') else {
        return Err("no port: expected HOST:PORT, e.g. 127.0.0.1:1234 (the virtual board's port)".into());
    };
    if host.is_empty() {
        return Err("no host: expected HOST:PORT, e.g. 127.0.0.1:1234".into());
    }
    if host.contains(':') {
        return Err("expected HOST:PORT, an IPv6 address in brackets ([::1]:1234)".into());
    }
    match port.parse::<u32>() {
        Ok(p) if (1..=65535).contains(&p) => Ok(s.to_string()),
        _ => Err(format!("port {port:?} is not in 1..=65535")),
    }
}

/// `--interval S`: 0.05 to 3600 seconds.
fn parse_duration(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.000_001..=86_400.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds in 0.000001..=86400")),
    }
}

fn parse_interval(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.05..=3600.0).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds in 0.05..=3600")),
    }
}

/// Writes `text` to standard output without panicking: a closed pipe is
/// [`Fail::output_closed`], another failure an error.
fn emit(text: &str) -> Result<(), Fail> {
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes()).and_then(|_| o.flush()).map_err(|e| {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Fail::output_closed()
        } else {
            Fail(1, format!("writing to standard output: {e}"))
        }
    })
}

/// A line on standard error; a closed stderr is not worth a panic.
fn note(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match real_main(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, msg)) => {
            if !msg.is_empty() {
                note(&format!("toe-console: error: {msg}"));
            }
            ExitCode::from(code)
        }
    }
}

/// The bus and identity options as typed, for a command the console
/// recommends (`toe-console --connect 127.0.0.1:1234 abort --session 0`).
fn bus_args(cli: &Cli) -> String {
    let mut a = Vec::new();
    if let Some(c) = &cli.connect {
        a.push(format!("--connect {c}"));
        if cli.litex_server {
            a.push("--litex-server".into());
        }
    } else if let Some(p) = &cli.pcie {
        a.push(format!("--pcie {p}"));
    } else if let Some(d) = &cli.xdma {
        a.push(format!("--xdma {}", d.display()));
    }
    if let Some(n) = cli.sessions {
        a.push(format!("--sessions {n}"));
    }
    if let Some(w) = cli.data_width {
        a.push(format!("--data-width {w}"));
    }
    if let Some(k) = cli.clock_khz {
        a.push(format!("--clock-khz {k}"));
    }
    a.join(" ")
}

/// Every check of the command line that does not need the board, run
/// before the bus is opened, so a bad flag is status 2 whether the board
/// answers or not. The board's figures they use (sessions, user clock) are
/// `expect`'s, which `identify` then insists the board has; what needs the
/// board itself (its ports for `params set`, a session's busy state) is
/// checked once it is open.
fn check_flags(cmd: &Option<Cmd>, expect: &Expect) -> Result<(), Fail> {
    match cmd {
        Some(Cmd::Iperf3 { server, port, time: _, bytes, parallel, reverse }) => {
            if *parallel == 0 || *parallel > expect.sessions {
                return Err(Fail(2, format!("-P {parallel} is not in 1..={} (the board's sessions)", expect.sessions)));
            }
            if let Some(n) = *bytes {
                let args = iperf3::Args {
                    server: server.clone(),
                    port: *port,
                    amount: iperf3::Amount::Bytes(n),
                    parallel: *parallel,
                    reverse: *reverse,
                };
                iperf3::check_bytes(&args).map_err(|e| Fail(2, e))?;
            }
        }
        Some(Cmd::Test { duplex, sessions, duration, plot, .. }) => {
            if let Some(path) = plot {
                plots::check_path(path).map_err(|e| Fail(2, e))?;
            }
            plan_test(duplex, sessions, *duration, expect)?;
        }
        Some(Cmd::Abort { sessions } | Cmd::Stop { sessions }) => {
            for s in sessions {
                console::input::number("Session", s, 0, expect.sessions as u64 - 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// What `test` runs: its sessions' specs as given, checked against the
/// design the console expects (which `identify` then requires the board to
/// be), so every check needs no bus.
enum TestPlan {
    Latency(Vec<LatencySpec>),
    Throughput(Duplex, Vec<SessionSpec>),
}

fn plan_test(duplex: &str, sessions: &[String], duration: Option<f64>, expect: &Expect) -> Result<TestPlan, Fail> {
    if duplex == "latency" {
        if duration.is_some() {
            return Err(Fail(2, "--duration is for the throughput tests (half), not latency".into()));
        }
        let mut specs = Vec::new();
        for s in sessions {
            specs.push(LatencySpec::parse(expect.sessions, s)?);
        }
        run::check_distinct(&specs.iter().map(|s| s.session).collect::<Vec<_>>())?;
        return Ok(TestPlan::Latency(specs));
    }
    let duplex = if duplex == "half" { Duplex::Half } else { Duplex::Full };
    let mut specs = Vec::new();
    for s in sessions {
        specs.extend(SessionSpec::parse(duplex, expect.sessions, s)?);
    }
    run::check_distinct(&specs.iter().map(|s| s.session).collect::<Vec<_>>())?;
    if let Some(seconds) = duration {
        for s in &mut specs {
            s.open_ended(seconds, expect.user_clock_khz).map_err(|e| Fail(2, e))?;
        }
    }
    if specs.is_empty() {
        return Err(Fail(2, "every session is disabled (mode 0): nothing to test".into()));
    }
    Ok(TestPlan::Throughput(duplex, specs))
}

fn real_main(cli: Cli) -> Result<(), Fail> {
    let target = if let Some(a) = &cli.connect {
        Target::Etherbone { addr: a.clone(), error_checks: !cli.litex_server }
    } else if let Some(p) = &cli.pcie {
        Target::Pcie(backend::pcie_resource(p).map_err(|e| Fail(2, e))?)
    } else if let Some(d) = &cli.xdma {
        Target::Xdma(d.clone())
    } else {
        return Err(Fail(2, "no register bus: give --connect HOST:PORT, --pcie BDF[/BAR] or --xdma DEV".into()));
    };
    let def = Expect::default();
    let expect = Expect {
        sessions: cli.sessions.unwrap_or(def.sessions),
        data_width: cli.data_width.unwrap_or(def.data_width),
        user_clock_khz: cli.clock_khz.unwrap_or(def.user_clock_khz),
    };
    check_flags(&cli.cmd, &expect)?;
    let bus_args = bus_args(&cli);
    let mut bus = backend::open(&target, Duration::from_secs(cli.bus_timeout)).map_err(|e| Fail(1, e))?;
    let id = identity::identify(&mut *bus, &expect)?;
    let json = cli.json;
    match cli.cmd.unwrap_or(Cmd::Menu) {
        Cmd::Regs => regs_cmd(&mut *bus, json),
        Cmd::Net => net_cmd(&mut *bus, json),
        Cmd::Params { op } => params_cmd(&mut *bus, &id, op, json),
        Cmd::Abort { sessions } => abort_cmd(&mut *bus, &id, &session_list(&sessions, &id)?, json),
        Cmd::Stop { sessions } => stop_cmd(&mut *bus, &id, &session_list(&sessions, &id)?, &bus_args, json),
        Cmd::Test { duplex, sessions, timeout, interval, dry_run, duration, plot } => {
            // The flags were checked before the bus was opened (`check_flags`).
            // 0: no limit, as the PC tools' --timeout 0.
            let limit = (timeout > 0).then(|| Duration::from_secs(timeout));
            let out = TestOutput { dry_run, json, plot: plot.as_deref() };
            let opts = RunOptions {
                limit,
                interval: Duration::from_secs_f64(interval),
                abort: &run::ABORT,
                bus_args: &bus_args,
                trace: plot.is_some(),
            };
            match plan_test(&duplex, &sessions, duration, &expect)? {
                TestPlan::Latency(specs) => {
                    latency_cmd(&mut *bus, &id, &specs, &RunOptions { trace: false, ..opts }, &out)
                }
                TestPlan::Throughput(duplex, specs) => test_cmd(&mut *bus, &id, duplex, &specs, &opts, &out),
            }
        }
        Cmd::Iperf3 { server, port, time, bytes, parallel, reverse } => {
            let amount = match (time, bytes) {
                (_, Some(n)) => iperf3::Amount::Bytes(n),
                (Some(t), None) => iperf3::Amount::Time(t),
                (None, None) => iperf3::Amount::Time(iperf3::DEFAULT_TIME_S),
            };
            let args = iperf3::Args { server, port, amount, parallel, reverse };
            iperf3_cmd(&mut *bus, &id, &args, &bus_args, json)
        }
        Cmd::Menu => menu::run(&mut *bus, &id, &bus_args, &mut std::io::stdin().lock(), &mut std::io::stdout())
            .map_err(|e| Fail(1, e)),
    }
}

fn iperf3_cmd(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    args: &iperf3::Args,
    bus_args: &str,
    json: bool,
) -> Result<(), Fail> {
    let mut say = |l: &str| {
        if json {
            note(l);
        } else {
            let _ = emit(&format!("{l}\n"));
        }
    };
    let report =
        run::with_signals(|| iperf3::run(bus, id, args, bus_args, &run::ABORT, &mut say)).map_err(|e| Fail(1, e))?;
    let text = if json { format!("{}\n", report.json()) } else { report.text() };
    let shown = emit(&text);
    // Status 0 only when the server's count is the FPGA's, per stream.
    let why = report.failures();
    if !why.is_empty() {
        return Err(Fail(1, format!("test failed: {}", why.join("; "))));
    }
    shown
}

fn regs_cmd(bus: &mut dyn RegisterBus, json: bool) -> Result<(), Fail> {
    let mut rows = Vec::new();
    for r in regs::ALL {
        let readable = r.readable_mask() != 0;
        let v = if readable { Some(ops::read(bus, r)?) } else { None };
        rows.push((ops::register_name(r), r.addr, v));
    }
    let mut text = String::new();
    if json {
        let v: Vec<serde_json::Value> =
            rows.iter().map(|(n, a, v)| serde_json::json!({"name": n, "addr": a, "value": v})).collect();
        text = format!("{}\n", serde_json::json!({ "registers": v }));
    } else {
        for (n, a, v) in rows {
            text += &match v {
                Some(v) => format!("{a:#06x}  {n:<32} {v:#010x}\n"),
                None => format!("{a:#06x}  {n:<32} (write-only)\n"),
            };
        }
    }
    emit(&text)
}

fn net_cmd(bus: &mut dyn RegisterBus, json: bool) -> Result<(), Fail> {
    let state = driver::net::read(bus)?;
    let mac = state.resolved_mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":");
    let text = if json {
        let counters: serde_json::Map<String, serde_json::Value> =
            state.counters.iter().map(|&(n, v)| (n.to_string(), v.into())).collect();
        let net = serde_json::json!({
            "target_known": state.target_known,
            "arp_failed": state.arp_failed,
            "resolved_mac": mac,
            "counters": counters,
        });
        format!("{}\n", serde_json::json!({ "net": net }))
    } else {
        let target = match (state.target_known, state.arp_failed) {
            (true, _) => format!("known, {mac}"),
            (false, true) => "unknown: ARP failed (no reply from target_ip)".to_string(),
            (false, false) => "unknown".to_string(),
        };
        let mut text = format!("target MAC: {target}\n");
        for (name, value) in &state.counters {
            text += &format!("{name:<32} {value:>10}\n");
        }
        text
    };
    emit(&text)
}

fn params_cmd(bus: &mut dyn RegisterBus, id: &Identity, op: ParamsOp, json: bool) -> Result<(), Fail> {
    let mut p = Params::read(bus, id.sessions)?;
    let init = match op {
        ParamsOp::Show => false,
        ParamsOp::Init => true,
        ParamsOp::Set { assignments, no_init } => {
            // Every assignment is checked before anything is written.
            for a in &assignments {
                let (k, v) = a.split_once('=').ok_or_else(|| {
                    Fail(
                        2,
                        InputError::Invalid { what: "assignment".into(), input: a.clone(), form: "KEY=VALUE".into() }
                            .to_string(),
                    )
                })?;
                p.set(k.trim(), v.trim())?;
            }
            p.write(bus)?;
            !no_init
        }
    };
    let mut init_done = None;
    if init {
        let done = params::apply_and_init(bus, &p, INIT_LIMIT)?;
        init_done = Some(done);
    }
    let text = if json {
        let mut v = p.json();
        v["init_done"] = serde_json::json!(init_done);
        format!("{v}\n")
    } else {
        let mut t = p.display();
        if init_done == Some(true) {
            t += "IP initialization complete\n";
        }
        t
    };
    // The parameters are written whatever happens to the output.
    let shown = emit(&text);
    if init_done == Some(false) {
        return Err(Fail(
            1,
            format!(
                "TOE initialization did not complete within {} s (toe_status.init_done stayed 0)",
                INIT_LIMIT.as_secs()
            ),
        ));
    }
    shown
}

/// The `--session N` arguments of `abort` and `stop`: checked against the
/// design's sessions, each once, in the order given.
fn session_list(args: &[String], id: &Identity) -> Result<Vec<usize>, Fail> {
    let mut list = Vec::new();
    for s in args {
        let n = console::input::number("Session", s, 0, id.sessions as u64 - 1)? as usize;
        if !list.contains(&n) {
            list.push(n);
        }
    }
    Ok(list)
}

/// `stop`: `ctrl.stop` to the named sessions (or every busy one), then up
/// to [`ABORT_WAIT`] for each to end. A session running a latency test is
/// refused by name before anything is written ([`run::latency_among`]):
/// `ctrl.stop` does not end one.
fn stop_cmd(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    sessions: &[usize],
    bus_args: &str,
    json: bool,
) -> Result<(), Fail> {
    let list: Vec<usize> = if sessions.is_empty() { (0..id.sessions).collect() } else { sessions.to_vec() };
    let latency = run::latency_among(bus, &list)?;
    if !latency.is_empty() {
        return Err(Fail(1, run::stop_refusal(&latency, bus_args)));
    }
    let mut was_busy = Vec::new();
    for &s in &list {
        let busy = ops::busy(bus, s)?;
        if busy {
            ops::stop(bus, s)?;
        }
        was_busy.push((s, busy));
    }
    let until = Instant::now() + ABORT_WAIT;
    let mut lines = Vec::new();
    let mut rows = Vec::new();
    for &(s, busy) in &was_busy {
        while busy && ops::busy(bus, s)? && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        let r = ops::result(bus, s)?;
        rows.push(
            serde_json::json!({"session": s, "was_busy": busy, "busy": r.busy, "done": r.done, "tx_bytes": r.tx_bytes}),
        );
        lines.push(match (busy, r.busy) {
            (false, _) if sessions.is_empty() => continue,
            (false, _) => format!("session {s}: not running a test, nothing to stop\n"),
            (true, false) if r.done => format!("session {s}: stopped, done, {} bytes sent\n", r.tx_bytes),
            (true, false) => format!("session {s}: ended with an error ({})\n", run::cause_text(&r)),
            (true, true) => format!(
                "session {s}: stop written, still busy after {} s (a receive ends when the peer closes)\n",
                ABORT_WAIT.as_secs()
            ),
        });
    }
    let text = if json {
        format!("{}\n", serde_json::json!({ "sessions": rows }))
    } else if lines.is_empty() {
        "no session is running a test: nothing to stop\n".to_string()
    } else {
        lines.concat()
    };
    emit(&text)
}

/// `abort`: writes `ctrl.abort` to each of `sessions` still busy (every
/// busy session when none is given), waits for them to be idle, and frees
/// each one's claim (`session.claim`).
fn abort_cmd(bus: &mut dyn RegisterBus, id: &Identity, sessions: &[usize], json: bool) -> Result<(), Fail> {
    let list: Vec<usize> = if sessions.is_empty() { (0..id.sessions).collect() } else { sessions.to_vec() };
    let mut was_busy = Vec::new();
    for &s in &list {
        let busy = ops::busy(bus, s)?;
        if busy {
            ops::abort(bus, s)?;
        }
        was_busy.push((s, busy));
    }
    let until = Instant::now() + ABORT_WAIT;
    let mut still = Vec::new();
    for &(s, busy) in &was_busy {
        if !busy {
            continue;
        }
        while ops::busy(bus, s)? {
            if Instant::now() > until {
                still.push(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    // A claim (`session.claim`) is freed too: a console killed with SIGKILL
    // leaves its own, and the next console's refusal names this command.
    let mut freed = Vec::new();
    for &s in &list {
        let owner = ops::claim_owner(bus, s)?;
        if owner != 0 {
            ops::free_claim(bus, s)?;
            freed.push((s, owner));
        }
    }
    let claim_of = |s: usize| freed.iter().find(|f| f.0 == s).map(|f| f.1);
    let text = if json {
        let v: Vec<serde_json::Value> = was_busy
            .iter()
            .map(|&(s, b)| {
                serde_json::json!({"session": s, "was_busy": b, "busy": still.contains(&s), "claim_freed": claim_of(s)})
            })
            .collect();
        format!("{}\n", serde_json::json!({ "sessions": v }))
    } else {
        // Every session named, or (none named) every one that was busy or claimed.
        let shown: Vec<&(usize, bool)> =
            was_busy.iter().filter(|(s, b)| *b || claim_of(*s).is_some() || !sessions.is_empty()).collect();
        if shown.is_empty() {
            "no session is running a test: nothing to abort\n".to_string()
        } else {
            let mut text = String::new();
            for (s, b) in shown {
                text += &match (*b, still.contains(s)) {
                    (false, _) => format!("session {s}: not running a test, nothing to abort\n"),
                    (true, false) => format!("session {s}: aborted, now idle\n"),
                    (true, true) => format!("session {s}: aborted, still busy after {} s\n", ABORT_WAIT.as_secs()),
                };
                if let Some(owner) = claim_of(*s) {
                    text += &format!("session {s}: claim {owner:#010x} freed\n");
                }
            }
            text
        }
    };
    let shown = emit(&text);
    if !still.is_empty() {
        let l: Vec<String> = still.iter().map(usize::to_string).collect();
        return Err(Fail(
            1,
            format!("session(s) {} still busy {} s after abort (status.busy = 1)", l.join(", "), ABORT_WAIT.as_secs()),
        ));
    }
    shown
}

/// What `test` prints and writes besides running: only the PC commands
/// (`--dry-run`), JSON instead of text, a plot file.
#[derive(Clone, Copy)]
struct TestOutput<'a> {
    dry_run: bool,
    json: bool,
    plot: Option<&'a std::path::Path>,
}

/// The part every test shares: the recommended PC commands (`commands`,
/// session and command line), alone with `--dry-run` (then `Ok(None)`),
/// else printed before `run` runs the test with a `say` for its lines
/// (standard error with `--json`, so standard output carries only the
/// result). Returns the test's report and the commands as JSON.
fn with_commands<R>(
    commands: &[(usize, String)],
    out: &TestOutput,
    run: impl FnOnce(&mut dyn FnMut(&str)) -> Result<R, ops::OpError>,
) -> Result<Option<(R, serde_json::Value)>, Fail> {
    let json = out.json;
    let commands_json = serde_json::Value::Array(
        commands.iter().map(|(s, c)| serde_json::json!({"session": s, "command": c})).collect(),
    );
    if out.dry_run {
        let text = if json {
            format!("{}\n", serde_json::json!({ "commands": commands_json }))
        } else {
            commands.iter().map(|(s, c)| format!("session {s}: {c}\n")).collect()
        };
        return emit(&text).map(|()| None);
    }
    // Standard output closed: before the test nothing starts, during it
    // every session is aborted; either way the test failed.
    let closed = Cell::new(false);
    let mut say = |l: &str| {
        // With --json, stdout carries only the result object.
        if json {
            note(l);
        } else if emit(&format!("{l}\n")).is_err() {
            closed.set(true);
            run::ABORT.request(Stop::OutputClosed);
        }
    };
    say("Recommended PC commands:");
    for (s, c) in commands {
        say(&format!("  session {s}: {c}"));
    }
    if closed.get() {
        return Err(Fail(1, "standard output closed before the test started: nothing was started".into()));
    }
    let report = run::with_signals(|| run(&mut say))?;
    Ok(Some((report, commands_json)))
}

/// Writes `svg` (drawn by `draw`) to `--plot`'s file, if one was given.
fn write_plot(out: &TestOutput, draw: impl FnOnce() -> Result<String, String>) -> Result<(), Fail> {
    let Some(path) = out.plot else { return Ok(()) };
    draw().and_then(|svg| plots::write(path, &svg)).map_err(|e| Fail(1, e))?;
    if !out.json {
        let _ = emit(&format!("Plot: {}\n", path.display()));
    }
    Ok(())
}

/// A test's exit: when it passed, `plot` (the `--plot` write) and then
/// `shown` (the result printed); else status 1 with `why`, a failed plot
/// reported on a line of its own before it, so that neither error hides
/// the other.
fn verdict(shown: Result<(), Fail>, plot: Result<(), Fail>, why: Vec<String>) -> Result<(), Fail> {
    if why.is_empty() {
        return plot.and(shown);
    }
    if let Err(Fail(_, message)) = plot {
        note(&format!("toe-console: error: {message}"));
    }
    Err(Fail(1, format!("test failed: {}", why.join("; "))))
}

fn test_cmd(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    duplex: Duplex,
    specs: &[SessionSpec],
    opts: &RunOptions,
    out: &TestOutput,
) -> Result<(), Fail> {
    let commands = run::pc_commands(&Params::read(bus, id.sessions)?, specs);
    let run = |say: &mut dyn FnMut(&str)| run::run(bus, duplex, specs, id.user_clock_khz, opts, say);
    let Some((report, commands_json)) = with_commands(&commands, out, run)? else { return Ok(()) };
    let shown = if out.json {
        let mut v = report.json();
        v["commands"] = commands_json;
        emit(&format!("{v}\n"))
    } else {
        emit(&report.totals_text())
    };
    let plot = write_plot(out, || console::plot::svg(&report));
    verdict(shown, plot, report.failures())
}

/// `test latency`: the latency test ([`latency_test`]).
fn latency_cmd(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    specs: &[LatencySpec],
    opts: &RunOptions,
    out: &TestOutput,
) -> Result<(), Fail> {
    let commands = run::pc_commands(&Params::read(bus, id.sessions)?, specs);
    let run = |say: &mut dyn FnMut(&str)| latency_test::run(bus, specs, id.user_clock_khz, opts, say);
    let Some((report, commands_json)) = with_commands(&commands, out, run)? else { return Ok(()) };
    let shown = if out.json {
        let mut v = report.json();
        v["commands"] = commands_json;
        emit(&format!("{v}\n"))
    } else {
        emit(&report.text())
    };
    let plot = write_plot(out, || report.plot_svg());
    verdict(shown, plot, report.failures())
}
