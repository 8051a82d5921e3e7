//! `vboard`: run the virtual board until interrupted (or for `--seconds`).

use std::io::Write;
use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::Parser;

/// The virtual board: the generated user logic, verilated, with its TOE on
/// this host's TCP stack (loopback only) and its registers over Etherbone/TCP
/// as LiteX's litex_server serves them.
///
/// Example: `vboard` in one terminal; `litex_cli --csr-csv build/sw/csr.csv --regs`
/// or `toe-console --connect 127.0.0.1:1234` in another; the PC tools against 127.0.0.1.
#[derive(Parser, Debug)]
#[command(name = "vboard", version, about, long_about = None)]
struct Args {
    /// Configuration file (TOML, as for `gen`); without it, the embedded default.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Etherbone/TCP port of the register bus (board 2 of --pair uses PORT+1), 1..=65535.
    #[arg(long, default_value_t = vboard::DEFAULT_PORT, value_parser = clap::value_parser!(u16).range(1..))]
    port: u16,
    /// Address of the FPGA side of the sessions (listen and connect from); must be in 127.0.0.0/8.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    bind: Ipv4Addr,
    /// Address the sessions connect to as clients; must be in 127.0.0.0/8.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    target: Ipv4Addr,
    /// Two boards joined by the simulated 200G link, each with its own register port.
    #[arg(long)]
    pair: bool,
    /// Folder of the verilated-model cache: the model is verilated there on first use (seconds
    /// to a minute) and loaded from there afterwards [default: $VBOARD_CACHE, else
    /// $XDG_CACHE_HOME/toe-vboard, else ~/.cache/toe-vboard].
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Verilate the model again even if it is cached.
    #[arg(long)]
    rebuild: bool,
    /// Stop after this many seconds (0 = run until interrupted).
    #[arg(long, default_value_t = 0, value_name = "S")]
    seconds: u64,
    /// Seconds an active open waits for the peer before `conn_error` (1..=3600).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=3600), value_name = "S")]
    connect_timeout: u64,
    /// Every session's stall_timeout written at start, in simulated ms (1..=65535; 0 = keep the
    /// design's 1000 ms, which is 1-2 hours of wall time here). The start-up line gives its wall time.
    #[arg(long, default_value_t = vboard::DEFAULT_STALL_TIMEOUT_MS, value_name = "MS")]
    stall_timeout: u32,
    /// Move the sessions' ports so that fpga_port0 = BASE (session N: BASE+N; the target ports
    /// move by as much), e.g. for a second virtual board on this host [default: the design's, 60000].
    #[arg(long, value_name = "BASE", value_parser = clap::value_parser!(u16).range(1..))]
    session_ports: Option<u16>,
    /// Close an Etherbone connection that sends nothing for S seconds (0 = never; 0..=86400).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(0..=86_400), value_name = "S")]
    idle_timeout: u64,
    /// Microseconds of wall time a trailing partial RX beat waits for more bytes before the TOE
    /// presents it (a socket shows no PSH): a latency test's round trip waits it once per
    /// partial message (1..=10000000).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=10_000_000), value_name = "US")]
    push_timeout_us: u64,
}

/// Prints a line on stdout; false once stdout is closed (`vboard | head -1`).
fn say(line: &str) -> bool {
    writeln!(std::io::stdout(), "{line}").is_ok()
}

/// Prints a line on stderr, dropping it when stderr is closed: the board
/// goes on serving whoever reads its registers.
fn warn(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            // One line: clap's first, which names the option and its valid values.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad command line").trim_start_matches("error: ");
            warn(&format!("vboard: error: {first} (vboard --help)"));
            return ExitCode::from(2);
        }
    };
    let mut opts = vboard::Options {
        config: args.config,
        port: args.port,
        bind: args.bind,
        target: args.target,
        pair: args.pair,
        rebuild: args.rebuild,
        connect_timeout: Duration::from_secs(args.connect_timeout),
        stall_timeout_ms: args.stall_timeout,
        session_ports: args.session_ports,
        idle_timeout: (args.idle_timeout > 0).then(|| Duration::from_secs(args.idle_timeout)),
        push_timeout: Duration::from_micros(args.push_timeout_us),
        ..vboard::Options::default()
    };
    if let Some(c) = args.cache {
        opts.cache = c;
    }
    let vb = match vboard::VirtualBoard::start(&opts, |line| warn(&format!("vboard: {line}"))) {
        Ok(vb) => vb,
        Err(e) => {
            warn(&format!("vboard: error: {e}"));
            return ExitCode::from(2);
        }
    };
    for (b, a) in vb.register_addrs().iter().enumerate() {
        let which = if opts.pair { format!("board {} ", b + 1) } else { String::new() };
        say(&format!(
            "vboard: {which}registers on Etherbone/TCP {a} (litex_cli --host {} --port {} ...)",
            a.ip(),
            a.port()
        ));
    }
    if !opts.pair {
        say(&format!("vboard: sessions listen on and connect from {}, connect to {}", opts.bind, opts.target));
    }
    if args.seconds > 0 {
        std::thread::sleep(Duration::from_secs(args.seconds));
        drop(vb);
    } else {
        vb.wait();
    }
    ExitCode::SUCCESS
}
