//! `vboard`: run the virtual board until interrupted (or for `--seconds`).

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
    /// Etherbone/TCP port of the register bus (board 2 of --pair uses PORT+1); 0 = any free port.
    #[arg(long, default_value_t = vboard::DEFAULT_PORT)]
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
    /// Folder of the verilated-model cache [default: target/vboard-cache of the workspace].
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Verilate the model again even if it is built in or cached.
    #[arg(long)]
    rebuild: bool,
    /// Stop after this many seconds (0 = run until interrupted).
    #[arg(long, default_value_t = 0, value_name = "S")]
    seconds: u64,
    /// Seconds an active open waits for the peer before `conn_error` (1..=3600).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=3600), value_name = "S")]
    connect_timeout: u64,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut opts = vboard::Options {
        config: args.config,
        port: args.port,
        bind: args.bind,
        target: args.target,
        pair: args.pair,
        rebuild: args.rebuild,
        connect_timeout: Duration::from_secs(args.connect_timeout),
        ..vboard::Options::default()
    };
    if let Some(c) = args.cache {
        opts.cache = c;
    }
    let vb = match vboard::VirtualBoard::start(&opts, |line| eprintln!("vboard: {line}")) {
        Ok(vb) => vb,
        Err(e) => {
            eprintln!("vboard: error: {e}");
            return ExitCode::from(2);
        }
    };
    for (b, a) in vb.register_addrs().iter().enumerate() {
        let which = if opts.pair { format!("board {} ", b + 1) } else { String::new() };
        println!("vboard: {which}registers on Etherbone/TCP {a} (litex_cli --host {} --port {} ...)", a.ip(), a.port());
    }
    if !opts.pair {
        println!("vboard: sessions listen on and connect from {}, connect to {}", opts.bind, opts.target);
    }
    if args.seconds > 0 {
        std::thread::sleep(Duration::from_secs(args.seconds));
        drop(vb);
    } else {
        vb.wait();
    }
    ExitCode::SUCCESS
}
