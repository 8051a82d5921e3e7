//! `tcp-bench`: the kernel's TCP stack sends into the open engine's TCP
//! model through the TAP (`tcpdatatest c t`), with no fault and with each of
//! netem's faults drawn by the pump; prints the wall-clock rate, the
//! kernel's retransmissions and the engine's counters. See `--help`;
//! `make bench` runs it.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use net_model::tcp::{SessionCounter, TcpConfig};
use net_model::{ArpMode, NetNode, NodeConfig};
use tap_harness::pump::Faults;
use tap_harness::{
    in_private_namespace, kernel_counter, run_bounded, workspace_binary, HarnessError, Pump, PumpOptions, Receiver,
    ReceiverOptions, Tap, TapConfig,
};

const AFTER_HELP: &str = "\
For each row: a private network namespace with a TAP (the kernel 10.0.0.1, the model 10.0.0.2),
one TCP session of the model listening on 5001 and verifying every byte, the pump drawing the
row's faults on the kernel's frames from --seed, and `tcpdatatest c t 10.0.0.2 5001 BYTES 1 2`.
The rate is wall-clock (the model runs as fast as the host lets it; the RTL's rate in its own
cycles comes with its RTL). The kernel's retransmissions are nstat's TcpRetransSegs.

Run as root. Exit status: 0; 1 when a transfer fails or a byte differs; 2 for bad arguments.";

/// The open engine's TCP model, met by the kernel's TCP stack through a TAP
/// with each fault: one Markdown table.
#[derive(Parser, Debug)]
#[command(name = "tcp-bench", version, after_help = AFTER_HELP)]
struct Args {
    /// Bytes per transfer.
    #[arg(long, default_value_t = 32 << 20, value_parser = clap::value_parser!(u64).range(1..=1 << 36))]
    bytes: u64,

    /// Seed of the faults.
    #[arg(long, default_value_t = 1)]
    seed: u64,

    /// The PC tools' tcpdatatest [default: beside this binary].
    #[arg(long, value_name = "PATH")]
    tcpdatatest: Option<PathBuf>,
}

/// The rows: a name and the faults.
fn rows(seed: u64) -> Vec<(&'static str, Faults)> {
    let f = Faults { seed, ..Faults::default() };
    vec![
        ("no fault", f),
        ("1 % loss", Faults { loss: 0.01, ..f }),
        ("5 % reordering", Faults { reorder: 0.05, ..f }),
        ("1 % duplication", Faults { duplicate: 0.01, ..f }),
        ("1 % corruption", Faults { corrupt: 0.01, ..f }),
        ("all four", Faults { loss: 0.01, reorder: 0.05, duplicate: 0.01, corrupt: 0.01, ..f }),
    ]
}

/// What one row measured.
struct Row {
    seconds: f64,
    retransmitted: u64,
    counts: Vec<u64>,
}

const COLUMNS: [SessionCounter; 5] = [
    SessionCounter::OutOfOrder,
    SessionCounter::OutOfOrderDropped,
    SessionCounter::Duplicate,
    SessionCounter::AcksOut,
    SessionCounter::WindowUpdates,
];

fn run_row(tool: &str, bytes: u64, faults: Faults) -> Result<Row, String> {
    let run = || -> Result<Row, String> {
        let e = |e: HarnessError| e.to_string();
        let tap = Tap::create(&TapConfig::new("tap0", Ipv4Addr::new(10, 0, 0, 1))).map_err(e)?;
        let mut cfg = NodeConfig::new(
            [0x02, 0x00, 0x5e, 0x10, 0x00, 0x02],
            Ipv4Addr::new(10, 0, 0, 2),
            Ipv4Addr::new(10, 0, 0, 1),
            ArpMode::Server,
        );
        cfg.tcp = Some(TcpConfig::new(1));
        let mut node = NetNode::new(cfg).map_err(|e| e.to_string())?;
        node.init(0);
        let receiver = Receiver::new(node, ReceiverOptions::default(), 0);
        let pump =
            Pump::start(tap, receiver, PumpOptions { faults, keep_log: false, ..PumpOptions::default() }).map_err(e)?;
        let before = kernel_counter("TcpRetransSegs").map_err(e)?;
        let start = Instant::now();
        let out = run_bounded(
            tool,
            &["c", "t", "10.0.0.2", "5001", &bytes.to_string(), "1", "2", "--quiet", "--timeout", "60"],
            Duration::from_secs(600),
        )
        .map_err(e)?;
        let seconds = start.elapsed().as_secs_f64();
        if !out.status.success() {
            return Err(format!("tcpdatatest: {}: {}{}", out.status, out.stdout, out.stderr));
        }
        let retransmitted = kernel_counter("TcpRetransSegs").map_err(e)? - before;
        let deadline = Instant::now() + Duration::from_secs(20);
        while pump.with_node(|r, _| r.finished(0).is_empty()) {
            if Instant::now() > deadline {
                return Err("the session did not finish its connection within 20 s".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let r = pump.stop().map_err(e)?.node;
        let got = &r.finished(0)[0];
        if got.bytes != bytes || got.mismatch.is_some() || !got.peer_closed {
            return Err(format!("the session received {got:?}, not {bytes} verified bytes"));
        }
        Ok(Row { seconds, retransmitted, counts: COLUMNS.iter().map(|&c| r.session_count(0, c)).collect() })
    };
    in_private_namespace(run).map_err(|e| e.to_string())?
}

fn main() -> ExitCode {
    let args = Args::parse();
    let tool = args.tcpdatatest.clone().or_else(|| workspace_binary("tcpdatatest")).unwrap_or_default();
    if !tool.exists() {
        eprintln!(
            "tcp-bench: {} is missing: build it with `cargo build --release -p pc_tools` (or give --tcpdatatest)",
            tool.display()
        );
        return ExitCode::from(2);
    }
    let tool = tool.to_string_lossy().into_owned();
    println!(
        "### The open engine's TCP model, the kernel sending (tcpdatatest c t, {} bytes, seed {})",
        args.bytes, args.seed
    );
    println!();
    let names: Vec<&str> = COLUMNS.iter().map(|c| c.name()).collect();
    println!("| faults | MB/s (wall) | kernel retransmissions | {} |", names.join(" | "));
    println!("|---|---|---|{}", "---|".repeat(COLUMNS.len()));
    for (name, faults) in rows(args.seed) {
        match run_row(&tool, args.bytes, faults) {
            Ok(row) => {
                let counts: Vec<String> = row.counts.iter().map(|c| c.to_string()).collect();
                println!(
                    "| {name} | {:.1} | {} | {} |",
                    args.bytes as f64 / row.seconds / 1e6,
                    row.retransmitted,
                    counts.join(" | ")
                );
            }
            Err(why) => {
                eprintln!("tcp-bench: {name}: {why}");
                return ExitCode::from(1);
            }
        }
    }
    ExitCode::SUCCESS
}
