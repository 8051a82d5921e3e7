//! The virtual board: the generated user-logic top, verilated, with its TOE
//! session interface on the host's real TCP stack and its AXI4-Lite register
//! bus served over Etherbone/TCP, as LiteX's `litex_server` serves a real
//! board's. The PC tools (`tcpdatatest`, `tcp_client_txrx_single`) talk to
//! it over loopback; LiteX's `litex_cli`/`RemoteClient`, the console's
//! register operations (`driver::ops`) and `toe-console` program it.
//!
//! ```text
//!  litex_cli / RemoteClient / tests --Etherbone/TCP :1234--> etherbone server --requests--+
//!                                                                                         v
//!                     +-------------------------- simulation thread ---------------------------+
//!                     |  AXI4-Lite master --> verilated top (register file + sessions)          |
//!                     |                          toe<s>_* ports <--> socket_toe (sockets) ------+--> 127.0.0.1 <--> tcpdatatest ...
//!                     +--------------------------------------------------------------------------+
//! ```
//!
//! With `--pair`, two boards are joined by the link model (`toe_model`)
//! instead, each with its own register port (`port`, `port + 1`): the
//! demo's FPGA-to-FPGA environment.
//!
//! Time: the boards count user-clock cycles (`elapsed` and the MB/s the
//! console computes from it are *simulated* time at the configured clock);
//! the PC tools measure wall-clock time; the log stamps every TOE event with
//! both (`[sim 22035.7 us | wall 9.312 s]`), and the stall timeout the board
//! writes at start is in simulated ms. See `docs/virtual_board.md`.

pub mod model;
pub mod pc;
pub mod sim;
pub mod startup;

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use board_sim::axil::Timing;
use board_sim::boards::{Board, BoardTiming, Rig};
use toe_model::{LinkConfig, ToeConfig, TwoBoards};

/// Default Etherbone port, as `litex_server`'s.
pub const DEFAULT_PORT: u16 = 1234;

/// What to simulate and where to serve it.
#[derive(Clone, Debug)]
pub struct Options {
    /// The configuration; `None` = the embedded default.
    pub config: Option<PathBuf>,
    /// Etherbone port of board 0 (board 1 of a pair uses the next); 0 = any free port.
    pub port: u16,
    /// Address of the FPGA side of every session (listen, and source of connects), loopback only.
    pub bind: Ipv4Addr,
    /// Address the sessions connect to as clients, loopback only.
    pub target: Ipv4Addr,
    /// Two boards joined by the link model instead of one on the host's stack.
    pub pair: bool,
    /// Folder of the verilated-model cache ([`model::default_cache`] by default).
    pub cache: PathBuf,
    /// Verilate the model again even if the cache has it.
    pub rebuild: bool,
    /// TOE connect timeout (an active open that gets no answer).
    pub connect_timeout: Duration,
    /// Every session's `stall_timeout` written at start, simulated ms
    /// (0 = the design's reset value): see [`DEFAULT_STALL_TIMEOUT_MS`].
    pub stall_timeout_ms: u32,
    /// Moves every session's FPGA and target port so that `fpga_port0` is
    /// this (written at start); `None` = the design's ports (60000-60003).
    pub session_ports: Option<u16>,
    /// Etherbone: a connection on which nothing arrives for this long is closed; `None` = never.
    pub idle_timeout: Option<Duration>,
    /// The host TOE's push timeout: how long a trailing partial RX beat
    /// waits for more bytes before it is presented ([`DEFAULT_PUSH_TIMEOUT`]).
    pub push_timeout: Duration,
}

/// The push timeout of the board's host TOE, wall clock. A socket shows
/// no PSH, so a trailing partial beat (a 64-byte request of a latency
/// test in a 128-byte beat) is presented when no new byte came for this
/// long: every round trip of a latency test on the board waits it once per
/// partial message. A bulk sender that pauses as long mid-stream gets a
/// partial beat there, which the verifier checks at its own offset; it
/// costs a beat's worth of bandwidth, no more.
pub const DEFAULT_PUSH_TIMEOUT: Duration = Duration::from_micros(200);

/// The stall timeout the board writes into every session at start, in
/// simulated ms. The board simulates about 35,000-100,000 user-clock cycles
/// per wall-clock second (far below 250 MHz), so the design's 1,000 ms would
/// be 1-2 hours of wall time. 20 ms (5 M cycles) fire after roughly 25-50 s
/// with a silent peer connected or while a console polls a listening
/// session (the simulation runs flat out), and after 2-3 minutes when a
/// session only listens and nobody reads the registers (it sleeps between
/// batches): long enough for a person to start the PC tool the console
/// recommends, short enough that no test waits for ever in practice.
/// Measured figures: `docs/virtual_board.md`.
pub const DEFAULT_STALL_TIMEOUT_MS: u32 = 20;

impl Default for Options {
    fn default() -> Self {
        Options {
            config: None,
            port: DEFAULT_PORT,
            bind: Ipv4Addr::LOCALHOST,
            target: Ipv4Addr::LOCALHOST,
            pair: false,
            cache: model::default_cache(),
            rebuild: false,
            connect_timeout: Duration::from_secs(5),
            stall_timeout_ms: DEFAULT_STALL_TIMEOUT_MS,
            session_ports: None,
            idle_timeout: Some(etherbone::ServerOptions::DEFAULT_IDLE_TIMEOUT),
            push_timeout: DEFAULT_PUSH_TIMEOUT,
        }
    }
}

/// A running virtual board (or pair). Dropping it stops the simulation.
pub struct VirtualBoard {
    addrs: Vec<SocketAddr>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    servers: Vec<etherbone::ServerHandle>,
    pub design: config::Design,
    /// What the board wrote into its registers at start (the same for each board of a pair).
    pub startup: startup::Plan,
}

fn loopback_only(what: &str, addr: Ipv4Addr) -> Result<(), String> {
    if addr.is_loopback() {
        Ok(())
    } else {
        Err(format!(
            "{what} {addr} is not a loopback address: the virtual board only binds and connects on 127.0.0.0/8"
        ))
    }
}

/// Reads and validates the configuration (the embedded default without a file).
pub fn load_design(path: Option<&PathBuf>) -> Result<config::Design, String> {
    match path {
        None => gen::parse_config(config::DEFAULT_TOML).map_err(|e| format!("the default configuration: {e}")),
        Some(p) => {
            let text = config::read_file(p)?;
            gen::parse_config(&text).map_err(|e| format!("{}: {e}", p.display()))
        }
    }
}

impl VirtualBoard {
    /// Resolves the model (verilating it into the cache if needed), binds
    /// the register ports and starts the simulation thread. Every line the
    /// board prints goes to `log` (from the simulation thread too).
    pub fn start(opts: &Options, log: impl FnMut(String) + Send + 'static) -> Result<VirtualBoard, String> {
        let mut log = log;
        loopback_only("--bind", opts.bind)?;
        loopback_only("--target", opts.target)?;
        let design = load_design(opts.config.as_ref())?;
        let map = regmap::RegisterMap::for_design(&design);
        if opts.pair && opts.session_ports.is_some() {
            return Err("--session-ports moves the sessions' host sockets; --pair has none (its boards talk over the link model)".into());
        }
        let settings = startup::Settings {
            stall_timeout_ms: opts.stall_timeout_ms,
            addresses: (!opts.pair).then_some((opts.bind, opts.target)),
            session_ports: opts.session_ports,
        };
        let plan = startup::plan(&map, design.sessions, &settings)?;
        let boards = if opts.pair { 2 } else { 1 };
        let mut listeners = Vec::new();
        for b in 0..boards {
            let port = if opts.port == 0 {
                0
            } else {
                opts.port.checked_add(b as u16).ok_or("--port 65535: no room for the second board's port (PORT + 1)")?
            };
            let l = TcpListener::bind(SocketAddrV4::new(opts.bind, port)).map_err(|e| {
                let taken = if e.kind() == std::io::ErrorKind::AddrInUse {
                    " (another virtual board or litex_server? choose another with --port)"
                } else {
                    ""
                };
                format!("cannot listen for Etherbone on {}:{port}: {e}{taken}", opts.bind)
            })?;
            listeners.push(l);
        }
        if !opts.pair {
            for (s, port) in startup::fpga_ports(&map, design.sessions, &plan).into_iter().enumerate() {
                if let Err(e) = TcpListener::bind(SocketAddrV4::new(opts.bind, port)) {
                    if e.kind() == std::io::ErrorKind::AddrInUse {
                        log(format!(
                            "session {s}: port {port} on {} is taken (another virtual board?): a test that listens there will fail; move this board's session ports with --session-ports BASE",
                            opts.bind
                        ));
                    }
                }
            }
        }
        let resolved = model::resolve(&design, &opts.cache, opts.rebuild, &mut |line| log(format!("model: {line}")))?;
        log(format!(
            "design `{}`: {} session(s) of {} bits, user clock {} MHz, register clock {} MHz ({})",
            design.name,
            design.sessions,
            design.data_width,
            design.user_clock_mhz,
            design.reg_clock_mhz,
            resolved.origin
        ));
        // Every access at or above the map's span is refused by the server:
        // the top decodes only the map's address bits and would alias it.
        let span = 1u64 << map.address_bits();
        let addrs: Vec<SocketAddr> = listeners.iter().map(|l| l.local_addr().expect("bound listener")).collect();
        let mut servers = Vec::new();
        let mut ports = Vec::new();
        for l in listeners {
            let addr = l.local_addr().map_err(|e| format!("Etherbone listener: {e}"))?;
            let info = etherbone::ServerInfo::for_addr("CommVirtualBoard", addr)
                .map_err(|e| format!("Etherbone server: {e}"))?;
            let server_opts = etherbone::ServerOptions {
                idle_timeout: opts.idle_timeout,
                register_span: Some(span),
                ..etherbone::ServerOptions::default()
            };
            let (handle, rx) =
                etherbone::spawn_server_with(l, info, server_opts).map_err(|e| format!("Etherbone server: {e}"))?;
            servers.push(handle);
            ports.push(sim::BusPort::new(rx));
        }
        let net = socket_toe::NetConfig {
            bind: opts.bind,
            target: opts.target,
            connect_timeout: opts.connect_timeout,
            // See DEFAULT_PUSH_TIMEOUT.
            push_timeout: opts.push_timeout,
            port_taken_hint: "another virtual board? move this board's session ports with vboard --session-ports BASE, or set fpga_port<N> (toe-console params set)".into(),
            ..socket_toe::NetConfig::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        let top = resolved.top;
        let d = design.clone();
        let pair = opts.pair;
        let stop_sim = Arc::clone(&stop);
        let writes = plan.clone();
        let stall_ms = opts.stall_timeout_ms;
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
        let thread = std::thread::Builder::new()
            .name("vboard-sim".into())
            .spawn(move || {
                let timing = BoardTiming {
                    user_ps: (1e6 / d.user_clock_mhz).round() as u64,
                    bus_ps: (1e6 / d.reg_clock_mhz).round() as u64,
                    bus: Timing { max_delay: 0, ready_probability: 1.0 },
                };
                let mhz = d.user_clock_mhz;
                if pair {
                    let link = LinkConfig { user_clock_mhz: mhz.round() as u64, ..LinkConfig::default() };
                    let toe = ToeConfig::new(d.bytes_per_beat());
                    let mut rig = Rig::<TwoBoards>::with_timing(&top, 1, link, toe, timing);
                    if let Err(e) = start_up(&mut rig, &writes, stall_ms, mhz, &mut log) {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                    let _ = ready_tx.send(Ok(()));
                    sim::run(&mut rig, &mut ports, &stop_sim, mhz, &mut log);
                } else {
                    let board = Board::with_timing(&top, 1, timing);
                    let toe = match socket_toe::HostToe::new(board.sessions(), board.beat_bytes(), net) {
                        Ok(t) => t,
                        Err(e) => {
                            let _ = ready_tx.send(Err(format!("host TOE: {e}")));
                            return;
                        }
                    };
                    let mut rig = Rig::from_parts(vec![board], sim::HostSide(toe));
                    if let Err(e) = start_up(&mut rig, &writes, stall_ms, mhz, &mut log) {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                    let _ = ready_tx.send(Ok(()));
                    sim::run(&mut rig, &mut ports, &stop_sim, mhz, &mut log);
                }
            })
            .map_err(|e| format!("cannot start the simulation thread: {e}"))?;
        let mut vb = VirtualBoard { addrs, stop, thread: Some(thread), servers, design, startup: plan };
        match ready_rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(())) => Ok(vb),
            Ok(Err(e)) => Err(e),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                vb.stop_now();
                Err("the simulation thread stopped while starting (its message is above)".into())
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                vb.stop_now();
                Err("the simulation thread did not start within 60 s".into())
            }
        }
    }

    /// The Etherbone address of each board.
    pub fn register_addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// Blocks until the simulation thread ends (it runs until stopped).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    fn stop_now(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for s in self.servers.drain(..) {
            s.stop();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// User-clock cycles the start-up runs flat out to measure the simulation's speed.
const SPEED_PROBE_CYCLES: u64 = 32_768;

/// Writes `plan` into every board through its own AXI4-Lite bus, before any
/// Etherbone request runs, and logs what it did; for the stall timeout also
/// roughly how long it is in wall time, from the speed measured here.
fn start_up<T: sim::Backend>(
    rig: &mut Rig<T>,
    plan: &startup::Plan,
    stall_ms: u32,
    user_clock_mhz: f64,
    log: &mut dyn FnMut(String),
) -> Result<(), String> {
    use etherbone::RegisterBus;
    for b in 0..rig.boards.len() {
        for w in &plan.writes {
            rig.bus(b)
                .write32(w.addr, w.value)
                .map_err(|e| format!("start-up write of {} = {}: {e}", w.name, w.value))?;
        }
    }
    for line in &plan.lines {
        log(line.clone());
    }
    if stall_ms != 0 {
        let t = Instant::now();
        rig.run(SPEED_PROBE_CYCLES);
        let flat_out = SPEED_PROBE_CYCLES as f64 / t.elapsed().as_secs_f64().max(1e-9);
        let cycles = f64::from(stall_ms) * user_clock_mhz * 1000.0;
        let busy_s = cycles / flat_out;
        let idle_s = cycles / sim::IDLE_CYCLES_PER_S;
        log(format!(
            "start-up: stall_timeout = {stall_ms} ms of simulated time in every session (--stall-timeout): about {} of wall time with a connection open (the simulation runs {:.0} cycles/s now), {} or more while a session only listens and nobody reads the registers",
            wall(busy_s),
            flat_out,
            wall(idle_s)
        ));
    }
    Ok(())
}

fn wall(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} min", s / 60.0)
    }
}

impl Drop for VirtualBoard {
    fn drop(&mut self) {
        self.stop_now();
    }
}
