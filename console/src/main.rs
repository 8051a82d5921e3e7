//! `toe-console`: the demo's console. See `toe-console --help` and docs/console.md.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use console::backend::{self, Target};
use console::identity::{self, Expect, Identity};
use console::input::InputError;
use console::params::{self, Params};
use console::run::{self, Duplex, RunOptions, SessionSpec};
use console::{menu, ops, regs};
use etherbone::RegisterBus;

#[derive(Parser)]
#[command(
    name = "toe-console",
    about = "The TOE demo's console: TOE parameters, half- and full-duplex tests, registers",
    long_about = "The TOE demo's console over one register bus. Without a subcommand it runs the interactive menu.\n\
                  It reads and checks the board's identity (info block) before anything else.\n\n\
                  Exit status: 0 success; 1 a failed test (verification error, refused, peer closed, time limit,\n\
                  abort) or a failed register access; 2 an invalid command line or input.",
    after_help = "Session spec of `test`: N:MODE:SIZE[:PACKET[:VERIFY[:SPEED[:CONN]]]]\n  \
                  N session 0..sessions-1; MODE half 0 disable, 1 send, 2 receive; full 0 disable, 1 full duplex;\n  \
                  SIZE transfer size 1..0xFFFF_FFFF_FFFF bytes (decimal or 0x hex); PACKET packet size, same range (8192);\n  \
                  VERIFY 1 incremental pattern sent and verified, 0 dummy data (1); SPEED max speed 1-100 % (100);\n  \
                  CONN 0 client (active open), 1 server (passive open) (1).\n\
                  Examples:\n  \
                  toe-console --connect 127.0.0.1:1234 params show\n  \
                  toe-console --connect 127.0.0.1:1234 params set window_update_gap=32 fpga_port0=60010\n  \
                  toe-console --connect 127.0.0.1:1234 --json test half --session 0:1:0x100000 --session 1:2:1000000:8192:1:50"
)]
struct Cli {
    /// Etherbone over TCP: the virtual board, or litex_server in front of a board.
    #[arg(long, value_name = "HOST:PORT", group = "bus")]
    connect: Option<String>,
    /// A PCIe BAR through /sys/bus/pci/devices/<BDF>/resource<BAR> (BAR 0 by default).
    #[arg(long, value_name = "BDF[/BAR]", group = "bus")]
    pcie: Option<String>,
    /// The XDMA driver's user-BAR device, e.g. /dev/xdma0_user.
    #[arg(long, value_name = "DEV", group = "bus")]
    xdma: Option<PathBuf>,
    /// Results and parameters as one JSON object on stdout.
    #[arg(long, global = true)]
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
    /// Longest wait for the Etherbone connection and each access, in seconds.
    #[arg(long, value_name = "S", default_value_t = 5)]
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
    /// Run a test (menu 2 half duplex, menu 3 full duplex).
    Test {
        /// half or full
        #[arg(value_parser = ["half", "full"])]
        duplex: String,
        /// One session: N:MODE:SIZE[:PACKET[:VERIFY[:SPEED[:CONN]]]] (repeat per session).
        #[arg(long = "session", value_name = "SPEC", required = true)]
        sessions: Vec<String>,
        /// Longest the test may take, connection included; then every session is aborted.
        #[arg(long, value_name = "S", default_value_t = 600)]
        timeout: u64,
        /// Progress every this many seconds.
        #[arg(long, value_name = "S", default_value_t = 1.0)]
        interval: f64,
        /// Check the sessions and print the recommended PC commands; start nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Every register of the map by name with its value.
    Regs,
    /// The interactive menu (the default).
    Menu,
}

#[derive(Subcommand)]
enum ParamsOp {
    /// Show the parameters (menu 0).
    Show,
    /// Set parameters, then reset and initialise the TOE (menu 1).
    Set {
        /// KEY=VALUE: mode, last_packet_mode, window_update_gap, fpga_mac, fpga_ip, target_mac, target_ip, fpga_port<N>, target_port<N>, stall_timeout (ms, every session; 0 never).
        #[arg(required = true)]
        assignments: Vec<String>,
        /// Write the parameters without initialising the TOE.
        #[arg(long)]
        no_init: bool,
    },
    /// Reset and initialise the TOE with the parameters it has.
    Init,
}

/// An error and the exit status it gets.
struct Fail(u8, String);

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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match real_main(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, msg)) => {
            eprintln!("toe-console: error: {msg}");
            ExitCode::from(code)
        }
    }
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
    let mut bus = backend::open(&target, Duration::from_secs(cli.bus_timeout)).map_err(|e| Fail(1, e))?;
    let id = identity::identify(&mut *bus, &expect)?;
    let json = cli.json;
    match cli.cmd.unwrap_or(Cmd::Menu) {
        Cmd::Regs => regs_cmd(&mut *bus, json),
        Cmd::Params { op } => params_cmd(&mut *bus, &id, op, json),
        Cmd::Test { duplex, sessions, timeout, interval, dry_run } => {
            let duplex = if duplex == "half" { Duplex::Half } else { Duplex::Full };
            let mut specs = Vec::new();
            for s in &sessions {
                specs.extend(SessionSpec::parse(duplex, id.sessions, s)?);
            }
            run::check_distinct(&specs)?;
            if specs.is_empty() {
                return Err(Fail(2, "every session is disabled (mode 0): nothing to test".into()));
            }
            if !(0.05..=3600.0).contains(&interval) {
                return Err(Fail(2, format!("--interval {interval}: must be 0.05..=3600 s")));
            }
            test_cmd(
                &mut *bus,
                &id,
                duplex,
                &specs,
                Duration::from_secs(timeout),
                Duration::from_secs_f64(interval),
                dry_run,
                json,
            )
        }
        Cmd::Menu => {
            menu::run(&mut *bus, &id, &mut std::io::stdin().lock(), &mut std::io::stdout()).map_err(|e| Fail(1, e))
        }
    }
}

fn regs_cmd(bus: &mut dyn RegisterBus, json: bool) -> Result<(), Fail> {
    let mut rows = Vec::new();
    for r in regs::ALL {
        let readable = r.readable_mask() != 0;
        let v = if readable { Some(ops::read(bus, r)?) } else { None };
        rows.push((ops::register_name(r), r.addr, v));
    }
    if json {
        let v: Vec<serde_json::Value> =
            rows.iter().map(|(n, a, v)| serde_json::json!({"name": n, "addr": a, "value": v})).collect();
        println!("{}", serde_json::json!({ "registers": v }));
    } else {
        for (n, a, v) in rows {
            match v {
                Some(v) => println!("{a:#06x}  {n:<32} {v:#010x}"),
                None => println!("{a:#06x}  {n:<32} (write-only)"),
            }
        }
    }
    Ok(())
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
    if json {
        let mut v = p.json();
        v["init_done"] = serde_json::json!(init_done);
        println!("{v}");
    } else {
        print!("{}", p.display());
        match init_done {
            Some(true) => println!("IP initialization complete"),
            Some(false) => {}
            None => {}
        }
    }
    if init_done == Some(false) {
        return Err(Fail(
            1,
            format!(
                "TOE initialization did not complete within {} s (toe_status.init_done stayed 0)",
                INIT_LIMIT.as_secs()
            ),
        ));
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn test_cmd(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    duplex: Duplex,
    specs: &[SessionSpec],
    limit: Duration,
    interval: Duration,
    dry_run: bool,
    json: bool,
) -> Result<(), Fail> {
    let p = Params::read(bus, id.sessions)?;
    let commands: Vec<(usize, String)> = specs
        .iter()
        .map(|s| (s.session, s.pc_command(p.fpga_ip, p.target_ip, p.fpga_ports[s.session], p.target_ports[s.session])))
        .collect();
    let commands_json: Vec<serde_json::Value> =
        commands.iter().map(|(s, c)| serde_json::json!({"session": s, "command": c})).collect();
    if dry_run {
        if json {
            println!("{}", serde_json::json!({ "commands": commands_json }));
        } else {
            for (s, c) in &commands {
                println!("session {s}: {c}");
            }
        }
        return Ok(());
    }
    let mut say = |l: &str| {
        // With --json, stdout carries only the result object.
        if json {
            eprintln!("{l}");
        } else {
            println!("{l}");
            let _ = std::io::stdout().flush();
        }
    };
    say("Recommended PC commands:");
    for (s, c) in &commands {
        say(&format!("  session {s}: {c}"));
    }
    let opts = RunOptions { limit, interval, abort: &run::ABORT };
    let report = run::with_sigint(|| run::run(bus, duplex, specs, id.user_clock_khz, &opts, &mut say))?;
    if json {
        let mut v = report.json();
        v["commands"] = serde_json::Value::Array(commands_json);
        println!("{v}");
    } else {
        print!("{}", report.totals_text());
    }
    if report.ok() {
        Ok(())
    } else {
        let mut why: Vec<String> = report
            .outcomes
            .iter()
            .filter_map(|o| o.failure.as_ref().map(|f| format!("session {}: {f}", o.spec.session)))
            .collect();
        if let Some(s) = &report.stopped {
            why.insert(0, s.clone());
        }
        Err(Fail(1, format!("test failed: {}", why.join("; "))))
    }
}
