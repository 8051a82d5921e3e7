//! `tap-node`: the model network node on a TAP, for people. See `--help`
//! and the crate docs.

use std::net::Ipv4Addr;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use clap::{Parser, ValueEnum};
use net_model::tcp::{EngineCounter, SessionCounter, TcpConfig};
use net_model::{ArpMode, Counter, NetNode, NodeConfig};
use tap_harness::pump::Faults;
use tap_harness::{
    in_private_namespace, ip, AnyNode, FrameNode, HarnessError, PcapWriter, Pump, PumpOptions, PumpStats, Receiver,
    ReceiverOptions, RtlNode, Tap, TapConfig,
};

const AFTER_HELP: &str = "\
Examples:
  tap-node -- ping -c 3 10.0.0.2                    ping the node from a private namespace
  tap-node --pcap run.pcap -- ping -c 3 10.0.0.2    and capture every frame; then: tcpdump -n -e -r run.pcap
  tap-node -- arping -c 3 -i tap0 10.0.0.2          ARP requests from arping
  tap-node --mtu 9000 -- ping -c 3 -s 8972 -M do 10.0.0.2
  tap-node -- bash                                  a shell in the namespace (exit it to see the counters)
  tap-node --tcp 1 -- tcpdatatest c t 10.0.0.2 5001 100000000 1 2
                                                    the kernel's TCP sends into a session of the TCP model,
                                                    which verifies every byte (the PC tools' tcpdatatest)
  tap-node --tcp 1 --loss 0.01 --pcap loss.pcap -- tcpdatatest c t 10.0.0.2 5001 10000000 1 2
                                                    the same through 1 % loss (seeded: --seed)

Attach to a TAP you made yourself (the node serves it until Ctrl-C or SIGTERM):
  ip netns add tn
  ip netns exec tn ip link set lo up
  ip netns exec tn ip tuntap add tap0 mode tap
  ip netns exec tn ip link set tap0 up
  ip netns exec tn ip addr add 10.0.0.1/24 dev tap0
  ip netns exec tn tap-node --attach tap0 &
  ip netns exec tn ping -c 3 10.0.0.2
  kill %1; ip netns del tn

Exit status: COMMAND's (128 + N if signal N ended it); 2 for bad arguments; 1 when the
namespace, the TAP or the node cannot be made.";

/// The model network node (Ethernet, ARP, IPv4, ICMP echo) on a TAP device
/// in a private network namespace, met by the Linux kernel.
///
/// Makes a private network namespace with a TAP in which the kernel is
/// --target-ip, runs the node (--fpga-ip) on the TAP's far side, runs
/// COMMAND in the namespace, prints the node's nonzero counters and exits
/// with COMMAND's status. With --attach it serves an existing TAP of the
/// namespace it was started in instead.
#[derive(Parser, Debug)]
#[command(name = "tap-node", version, after_help = AFTER_HELP)]
struct Args {
    /// How the node finds the target's MAC: client resolves it by ARP at
    /// init, server learns it from the target's ARP request, fixed uses
    /// --target-mac and sends no ARP.
    #[arg(long, value_enum, default_value_t = Mode::Server)]
    mode: Mode,

    /// The node's IPv4 address.
    #[arg(long, default_value = "10.0.0.2")]
    fpga_ip: Ipv4Addr,

    /// The kernel's address on the TAP: the node's target.
    #[arg(long, default_value = "10.0.0.1")]
    target_ip: Ipv4Addr,

    /// The node's MAC, unicast.
    #[arg(long, default_value = "02:00:5e:10:00:02", value_parser = parse_mac)]
    fpga_mac: [u8; 6],

    /// The target's MAC for --mode fixed [default: the TAP's own MAC; required with --attach].
    #[arg(long, value_parser = parse_mac)]
    target_mac: Option<[u8; 6]>,

    /// The node's IPv4 MTU, also the TAP's.
    #[arg(long, default_value_t = 1500, value_parser = clap::value_parser!(u16).range(576..=9000))]
    mtu: u16,

    /// Prefix length of the TAP's subnet (the kernel's address is --target-ip/N).
    #[arg(long, default_value_t = 24, value_parser = clap::value_parser!(u8).range(1..=30))]
    prefix_len: u8,

    /// Write every frame, both ways, to FILE (classic pcap; tcpdump -r FILE reads it).
    #[arg(long, value_name = "FILE")]
    pcap: Option<PathBuf>,

    /// Put the node's RTL behind the TAP instead of the model: its Verilog
    /// at this data width, verilated (a minute or two the first time, then
    /// cached in $TAP_NODE_CACHE, else target/tap-node-cache).
    #[arg(long, value_name = "WIDTH", value_parser = tap_harness::rtl::parse_width)]
    rtl: Option<usize>,

    /// Put TCP sessions in front of the model (the open engine's TCP, part
    /// 2): session s listens on --port + s, takes its stream as the user
    /// logic does, verifies the incremental pattern and closes when the
    /// peer closes, then listens again. The results are printed at the end.
    #[arg(long, value_name = "SESSIONS", value_parser = clap::value_parser!(u16).range(1..=64), conflicts_with = "rtl")]
    tcp: Option<u16>,

    /// The first TCP port the sessions of --tcp listen on.
    #[arg(long, default_value_t = 5001, value_parser = clap::value_parser!(u16).range(1..=65472))]
    port: u16,

    /// Lose this share of the kernel's frames (0.0 ..= 1.0), as netem's `loss`.
    #[arg(long, default_value_t = 0.0, value_name = "P", value_parser = parse_probability)]
    loss: f64,

    /// Hold back this share of the kernel's frames and deliver each after the next, as netem's `reorder`.
    #[arg(long, default_value_t = 0.0, value_name = "P", value_parser = parse_probability)]
    reorder: f64,

    /// Deliver this share of the kernel's frames twice, as netem's `duplicate`.
    #[arg(long, default_value_t = 0.0, value_name = "P", value_parser = parse_probability)]
    duplicate: f64,

    /// Flip one random bit in this share of the kernel's frames, as netem's `corrupt`.
    #[arg(long, default_value_t = 0.0, value_name = "P", value_parser = parse_probability)]
    corrupt: f64,

    /// Seed of --loss, --reorder, --duplicate and --corrupt: a seed replays a run.
    #[arg(long, default_value_t = 1)]
    seed: u64,

    /// The TAP to make in the private namespace.
    #[arg(long, default_value = "tap0", value_name = "NAME", value_parser = parse_ifname)]
    tap: String,

    /// Serve the existing TAP NAME of this namespace until Ctrl-C/SIGTERM (no COMMAND).
    #[arg(long, value_name = "NAME", value_parser = parse_ifname, conflicts_with = "tap")]
    attach: Option<String>,

    /// What to run in the namespace, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Mode {
    Client,
    Server,
    Fixed,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Client => "client",
            Mode::Server => "server",
            Mode::Fixed => "fixed-MAC",
        }
    }
}

impl From<Mode> for ArpMode {
    fn from(m: Mode) -> Self {
        match m {
            Mode::Client => ArpMode::Client,
            Mode::Server => ArpMode::Server,
            Mode::Fixed => ArpMode::FixedMac,
        }
    }
}

fn parse_mac(s: &str) -> Result<[u8; 6], String> {
    let bad = || format!("{s:?} is not a MAC: six hex bytes separated by ':', like 02:00:5e:10:00:02");
    let parts: Vec<&str> = s.split(':').collect();
    if parts.len() != 6 {
        return Err(bad());
    }
    let mut mac = [0u8; 6];
    for (byte, part) in mac.iter_mut().zip(parts) {
        if part.is_empty() || part.len() > 2 {
            return Err(bad());
        }
        *byte = u8::from_str_radix(part, 16).map_err(|_| bad())?;
    }
    Ok(mac)
}

fn parse_probability(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a probability: 0.0 ..= 1.0 (0.01 is 1 %)")),
    }
}

fn parse_ifname(s: &str) -> Result<String, String> {
    let ok = !s.is_empty() && s.len() <= 15 && !s.bytes().any(|b| b == b'/' || b == b':' || b.is_ascii_whitespace());
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!("{s:?} is not an interface name: 1..=15 bytes, no '/', ':' or whitespace"))
    }
}

fn mac_text(mac: &[u8; 6]) -> String {
    mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// A usage error: one line naming the option, exit status 2 (as clap's own).
fn usage(msg: &str) -> ExitCode {
    eprintln!("tap-node: {msg}");
    ExitCode::from(2)
}

/// Per TCP session: each connection's verified bytes and how it ended,
/// then the session's nonzero counters; then the engine's.
fn print_tcp(r: &Receiver) {
    let Some(tcp) = r.node().tcp() else { return };
    for s in 0..tcp.config().sessions {
        for (i, c) in r.finished(s).iter().enumerate() {
            let verdict = match (&c.mismatch, c.conn_error, c.peer_closed) {
                (Some(m), _, _) => format!("MISMATCH: {m}"),
                (None, true, _) => "reset".to_string(),
                (None, false, true) => "verified, closed by the peer".to_string(),
                (None, false, false) => "ended".to_string(),
            };
            eprintln!("tap-node: session {s} connection {i}: {} bytes, {verdict}", c.bytes);
        }
        let counts: Vec<String> = SessionCounter::ALL
            .iter()
            .map(|&c| (c, tcp.session_count(s, c)))
            .filter(|&(_, v)| v != 0)
            .map(|(c, v)| format!("{c} {v}"))
            .collect();
        if !counts.is_empty() {
            eprintln!("tap-node: session {s} ({}): {}", tcp.status(s).state.name(), counts.join(", "));
        }
    }
    for c in EngineCounter::ALL {
        let v = tcp.count(c);
        if v != 0 {
            eprintln!("  {:<32} {v}", c.name());
        }
    }
}

/// The last signal of those we catch (SIGINT, SIGTERM, SIGHUP), 0 if none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int) {
    SIGNAL.store(sig, Ordering::SeqCst);
}

/// Catches SIGINT, SIGTERM and SIGHUP into [`SIGNAL`]. A handler, not
/// SIG_IGN: COMMAND gets the default dispositions back at exec, so Ctrl-C
/// still reaches it while we live on to print the counters.
fn catch_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a handler that only stores an atomic.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as *const () as usize;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match (&args.attach, args.command.is_empty()) {
        (Some(_), false) => return usage("--attach NAME serves a TAP until Ctrl-C and takes no COMMAND"),
        (None, true) => {
            return usage("give a COMMAND after `--` (e.g. `tap-node -- ping -c 3 10.0.0.2`), or --attach NAME")
        }
        _ => {}
    }
    if let Some(msg) = check_subnet(&args) {
        return usage(&msg);
    }
    if args.attach.is_some() && matches!(args.mode, Mode::Fixed) && args.target_mac.is_none() {
        return usage("--mode fixed with --attach needs --target-mac (the MAC of the TAP's kernel side)");
    }
    // The node's configuration is checked before anything is made; the
    // target MAC of fixed mode is only a stand-in here.
    if let Err(msg) = node_config(&args, args.target_mac.unwrap_or([0x02, 0, 0, 0, 0, 1]))
        .and_then(|c| NetNode::new(c).map(|_| ()).map_err(|e| config_message(&e)))
    {
        return usage(&msg);
    }
    catch_signals();
    let result = match &args.attach {
        Some(name) => serve_attached(&args, name),
        None => in_private_namespace(|| run_command(&args)).and_then(|r| r),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(1)
        }
    }
}

/// The kernel reaches the node directly only if both are in the TAP's subnet.
fn check_subnet(args: &Args) -> Option<String> {
    let mask = u32::MAX << (32 - u32::from(args.prefix_len));
    let (a, b) = (u32::from(args.fpga_ip), u32::from(args.target_ip));
    if a & mask != b & mask {
        return Some(format!(
            "--fpga-ip {} is outside the TAP's subnet {}/{} (--target-ip/--prefix-len): the kernel could not reach the node",
            args.fpga_ip,
            Ipv4Addr::from(b & mask),
            args.prefix_len
        ));
    }
    let host = !mask;
    for (opt, v) in [("--fpga-ip", a), ("--target-ip", b)] {
        if v & host == 0 || v & host == host {
            return Some(format!(
                "{opt} {} is the network or broadcast address of /{}",
                Ipv4Addr::from(v),
                args.prefix_len
            ));
        }
    }
    None
}

fn node_config(args: &Args, target_mac: [u8; 6]) -> Result<NodeConfig, String> {
    let mut cfg = NodeConfig::new(args.fpga_mac, args.fpga_ip, args.target_ip, args.mode.into());
    cfg.mtu = usize::from(args.mtu);
    cfg.tx_buffer_bytes = net_model::config::default_tx_buffer_bytes(cfg.mtu);
    cfg.target_mac = target_mac;
    cfg.tcp = args.tcp.map(|n| TcpConfig::new(usize::from(n)));
    cfg.validate().map_err(|e| config_message(&e))?;
    Ok(cfg)
}

/// The model's message (`field = value is ...`) with the option that sets the field.
fn config_message(e: &net_model::ConfigError) -> String {
    let msg = e.message();
    let field = msg.split(' ').next().unwrap_or("");
    format!("{msg} (--{})", field.replace('_', "-"))
}

/// Makes the node and its pump on `tap`; client mode starts its ARP.
fn start_node(args: &Args, tap: Tap, target_mac: [u8; 6]) -> Result<Pump<AnyNode>, HarnessError> {
    let cfg = node_config(args, target_mac).map_err(|m| HarnessError::Invalid { what: "node".into(), detail: m })?;
    let node = match args.rtl {
        None => {
            let mut node = NetNode::new(cfg)
                .map_err(|e| HarnessError::Invalid { what: "node".into(), detail: config_message(&e) })?;
            node.init(0);
            match args.tcp {
                None => AnyNode::Model(Box::new(node)),
                Some(_) => {
                    let opts = ReceiverOptions { port: args.port, reopen: true, ..ReceiverOptions::default() };
                    AnyNode::Tcp(Box::new(Receiver::new(node, opts, 0)))
                }
            }
        }
        Some(width) => {
            let cache = tap_harness::rtl::default_cache();
            eprintln!("tap-node: the node's RTL at {width} bits, verilated in {}", cache.display());
            AnyNode::Rtl(RtlNode::build(width, &cfg, &cache, |m| eprintln!("tap-node: {m}"))?)
        }
    };
    let pcap = args.pcap.as_deref().map(PcapWriter::create).transpose()?;
    let faults = Faults {
        seed: args.seed,
        loss: args.loss,
        reorder: args.reorder,
        duplicate: args.duplicate,
        corrupt: args.corrupt,
    };
    Pump::start(tap, node, PumpOptions { pcap, keep_log: false, faults, ..PumpOptions::default() })
}

/// Command mode, on the namespace thread: the TAP, the node, COMMAND.
fn run_command(args: &Args) -> Result<u8, HarnessError> {
    let tap = Tap::create(&TapConfig {
        name: args.tap.clone(),
        mtu: usize::from(args.mtu),
        kernel_ip: args.target_ip,
        prefix_len: args.prefix_len,
        ipv6: false,
    })?;
    let kernel_mac = tap.mac()?;
    let fixed = matches!(args.mode, Mode::Fixed);
    if fixed {
        // The node takes no ARP in fixed-MAC mode: the kernel must know it.
        let (fpga_ip, fpga_mac) = (args.fpga_ip.to_string(), mac_text(&args.fpga_mac));
        ip(&["neigh", "replace", &fpga_ip, "lladdr", &fpga_mac, "dev", &args.tap, "nud", "permanent"])?;
    }
    let pump = start_node(args, tap, args.target_mac.unwrap_or(kernel_mac))?;
    eprintln!(
        "tap-node: node {} ({}) in {} mode on {}, the kernel is {}/{} ({}){}",
        args.fpga_ip,
        mac_text(&args.fpga_mac),
        args.mode.name(),
        args.tap,
        args.target_ip,
        args.prefix_len,
        mac_text(&kernel_mac),
        args.pcap.as_ref().map(|p| format!(", capture {}", p.display())).unwrap_or_default()
    );
    let mut child = match Command::new(&args.command[0]).args(&args.command[1..]).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("tap-node: cannot run `{}`: {e}", args.command[0]);
            finish(pump)?;
            return Ok(127);
        }
    };
    let mut forwarded = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => {}
            Err(e) => return Err(HarnessError::Io { what: format!("waiting for `{}`", args.command[0]), source: e }),
        }
        // Ctrl-C reaches COMMAND from the terminal by itself; a SIGTERM or
        // SIGHUP sent to us alone is passed on.
        let sig = SIGNAL.load(Ordering::SeqCst);
        if !forwarded && (sig == libc::SIGTERM || sig == libc::SIGHUP) {
            // SAFETY: kill(2) on our own child's pid.
            unsafe { libc::kill(child.id() as libc::pid_t, sig) };
            forwarded = true;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    finish(pump)?;
    use std::os::unix::process::ExitStatusExt;
    Ok(match (status.code(), status.signal()) {
        (Some(code), _) => code as u8,
        (None, Some(sig)) => (128 + sig) as u8,
        (None, None) => 1,
    })
}

/// Attach mode: serve `name` in this namespace until a signal.
fn serve_attached(args: &Args, name: &str) -> Result<u8, HarnessError> {
    let tap = Tap::attach(name)?;
    let kernel_mac = tap.mac()?;
    let pump = start_node(args, tap, args.target_mac.unwrap_or(kernel_mac))?;
    eprintln!(
        "tap-node: node {} ({}) in {} mode serving {name}; Ctrl-C or SIGTERM stops it",
        args.fpga_ip,
        mac_text(&args.fpga_mac),
        args.mode.name()
    );
    while SIGNAL.load(Ordering::SeqCst) == 0 {
        if let Some(why) = pump.failure() {
            return Err(HarnessError::PumpFailed(why));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    finish(pump)?;
    Ok(0)
}

/// Stops the pump and prints the node's nonzero counters (and the pump's
/// troubles, if any) on stderr.
fn finish(pump: Pump<AnyNode>) -> Result<(), HarnessError> {
    let stopped = pump.stop()?;
    print_counters(&stopped.node, &stopped.stats);
    Ok(())
}

fn print_counters(node: &AnyNode, stats: &PumpStats) {
    eprintln!("tap-node: node counters (nonzero):");
    for c in Counter::ALL {
        let v = node.count(c);
        if v != 0 {
            eprintln!("  {:<32} {v}", c.name());
        }
    }
    if let AnyNode::Tcp(r) = node {
        print_tcp(r);
    }
    if stats.tap_write_errors + stats.pcap_errors != 0 {
        eprintln!(
            "tap-node: {} frames the TAP refused, {} the pcap could not take; last: {}",
            stats.tap_write_errors,
            stats.pcap_errors,
            stats.last_error.as_deref().unwrap_or("-")
        );
    }
}
