//! `make demo-pc`: the reference demo's first environment (FPGA and PC,
//! section 3) on the virtual board, with the real PC tools on loopback,
//! programmed only over Etherbone. Prints one row per test like the
//! reference's tables and exits non-zero if any byte is unaccounted for.
//! A closed stdout (`demo-pc | head -3`) ends it quietly, exit 0.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use driver::{ops, regs, Mode};
use etherbone::RegisterBus;
use vboard::pc::{connect, free_port, run_legs, Leg, Tools};
use vboard::{Options, VirtualBoard};

/// Prints a line; false once stdout is closed.
fn say(line: &str) -> bool {
    writeln!(std::io::stdout(), "{line}").is_ok()
}

/// Prints a line on stderr, dropping it if stderr is closed.
fn warn(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

struct Row {
    name: &'static str,
    /// The PC tool whose figure is the row's PC MB/s, and which directions it adds.
    tool: &'static str,
    mode: Mode,
    sessions: usize,
    /// Sessions that send (the rest receive) in the mixed row.
    mixed_senders: Option<usize>,
}

fn main() -> ExitCode {
    let size: u64 = match std::env::var("DEMO_PC_BYTES") {
        Ok(s) => match s.parse() {
            Ok(n) if (1..=1u64 << 40).contains(&n) => n,
            _ => {
                warn(&format!("demo-pc: error: DEMO_PC_BYTES={s:?} must be an integer in 1..=2^40"));
                return ExitCode::from(2);
            }
        },
        Err(_) => 4 * 1024 * 1024 + 7,
    };
    let tools = match Tools::beside_exe() {
        Ok(t) => t,
        Err(e) => {
            warn(&format!("demo-pc: error: {e}"));
            return ExitCode::from(2);
        }
    };
    let vb = match VirtualBoard::start(&Options { port: 0, ..Options::default() }, |_| {}) {
        Ok(vb) => vb,
        Err(e) => {
            warn(&format!("demo-pc: error: {e}"));
            return ExitCode::from(2);
        }
    };
    let mut bus = match connect(vb.register_addrs()[0]) {
        Ok(b) => b,
        Err(e) => {
            warn(&format!("demo-pc: error: {e}"));
            return ExitCode::from(2);
        }
    };
    let khz = match bus.read32(regs::info::USER_CLOCK_KHZ.addr) {
        Ok(k) => k,
        Err(e) => {
            warn(&format!("demo-pc: error: reading the user clock: {e}"));
            return ExitCode::from(1);
        }
    };
    let sessions = vb.design.sessions;
    match ops::init_toe(&mut bus, 16, 0, 200, |_| std::thread::sleep(Duration::from_millis(5))) {
        Ok(true) => {}
        Ok(false) => {
            warn("demo-pc: error: the TOE did not report init_done within 1 s");
            return ExitCode::from(1);
        }
        Err(e) => {
            warn(&format!("demo-pc: error: {e}"));
            return ExitCode::from(1);
        }
    }
    let rows = [
        Row {
            name: "3.3 send (FPGA -> PC)",
            tool: "tcpdatatest c r (PC receives)",
            mode: Mode::Send,
            sessions: 1,
            mixed_senders: None,
        },
        Row {
            name: "3.3 send (FPGA -> PC)",
            tool: "tcpdatatest c r (PC receives)",
            mode: Mode::Send,
            sessions,
            mixed_senders: None,
        },
        Row {
            name: "3.3 receive (PC -> FPGA)",
            tool: "tcpdatatest c t (PC sends)",
            mode: Mode::Receive,
            sessions: 1,
            mixed_senders: None,
        },
        Row {
            name: "3.3 receive (PC -> FPGA)",
            tool: "tcpdatatest c t (PC sends)",
            mode: Mode::Receive,
            sessions,
            mixed_senders: None,
        },
        Row {
            name: "3.3 mixed (half send, half receive)",
            tool: "tcpdatatest c r + c t",
            mode: Mode::Send,
            sessions,
            mixed_senders: Some(sessions / 2),
        },
        Row {
            name: "3.4 full duplex",
            tool: "tcp_client_txrx_single (TX+RX)",
            mode: Mode::FullDuplex,
            sessions: 1,
            mixed_senders: None,
        },
        Row {
            name: "3.4 full duplex",
            tool: "tcp_client_txrx_single (TX+RX)",
            mode: Mode::FullDuplex,
            sessions,
            mixed_senders: None,
        },
    ];
    let header = [
        format!(
            "virtual board: design `{}`, {} session(s) of {} bits at {} MHz; {size} bytes per session and direction",
            vb.design.name, sessions, vb.design.data_width, vb.design.user_clock_mhz
        ),
        "PC MB/s: wall clock, as the PC tool named in the row measured it (tcpdatatest: the rate of the direction it ran;".into(),
        "  tcp_client_txrx_single: its send rate + its receive rate), summed over the sessions; bounded by the simulation's speed.".into(),
        "board MB/s: simulated time, the board's byte counters over `elapsed` (user-clock cycles), what the console shows,".into(),
        "  summed over the sessions; for full duplex it adds both directions (TX + RX), so one session shows up to 2 x 32,000.".into(),
        "cycles/s: the board's simulated user-clock cycles per wall-clock second over the row (`info.cycle_count`);".into(),
        format!(
            "  x {} B: that rate times a beat, what one session can move per wall-clock second at most.",
            vb.design.data_width / 8
        ),
        String::new(),
        format!(
            "{:<36} {:>8} {:>9}  {:<31} {:>9} {:>11} {:>9} {:>9}  {}",
            "test",
            "sessions",
            "verified",
            "PC MB/s measured by",
            "PC MB/s",
            "board MB/s",
            "cycles/s",
            format!("x {} B", vb.design.data_width / 8),
            "result"
        ),
    ];
    for line in &header {
        if !say(line) {
            return ExitCode::SUCCESS;
        }
    }
    let mut failed = 0;
    for row in &rows {
        let legs: Vec<Leg> = (0..row.sessions)
            .map(|s| {
                let mode = match row.mixed_senders {
                    Some(n) if s >= n => Mode::Receive,
                    _ => row.mode,
                };
                Leg {
                    session: s,
                    mode,
                    size,
                    fpga_client: false,
                    incremental: true,
                    fpga_port: free_port(),
                    pc_port: free_port(),
                }
            })
            .collect();
        let before = (ops::read_wide(&mut bus, regs::info::CYCLE_COUNT).ok(), std::time::Instant::now());
        let (pc, board, result) = match run_legs(&mut bus, &tools, &legs, Duration::from_secs(600)) {
            Ok(out) => {
                let errs: Vec<String> = out.iter().filter_map(|o| o.check().err()).collect();
                let pc: f64 = out.iter().map(|o| o.pc_mb_s()).sum();
                let board: f64 = out.iter().map(|o| o.board_mb_s(khz)).sum();
                (pc, board, if errs.is_empty() { "ok".to_string() } else { errs.join("; ") })
            }
            Err(e) => (0.0, 0.0, e),
        };
        if result != "ok" {
            failed += 1;
        }
        let verified = if result == "ok" { "yes" } else { "NO" };
        // The board's cycle rate over the row: 0 if the counter could not be read.
        let rate = match (before.0, ops::read_wide(&mut bus, regs::info::CYCLE_COUNT).ok()) {
            (Some(a), Some(b)) => b.wrapping_sub(a) as f64 / before.1.elapsed().as_secs_f64(),
            _ => 0.0,
        };
        let ceiling = rate * (vb.design.data_width / 8) as f64 / 1e6;
        let line = format!(
            "{:<36} {:>8} {:>9}  {:<31} {:>9.1} {:>11.1} {:>9.0} {:>9.1}  {}",
            row.name, row.sessions, verified, row.tool, pc, board, rate, ceiling, result
        );
        if !say(&line) {
            return ExitCode::SUCCESS;
        }
    }
    if failed > 0 {
        warn(&format!("demo-pc: {failed} test(s) failed"));
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}
