//! The node's RTL (`hdl::net::node::NetNode`, its emitted Verilog,
//! verilated) as a [`FrameNode`]: the kernel pings the design the FPGA
//! will hold, cycle by cycle, through the same wire as the model.
//!
//! ```text
//!  pump thread                      model thread (owns the Verilator model:
//!  RtlNode::receive(frame) ----->   a model stays on the thread that made it)
//!  RtlNode::transmit(now)  ----->     beats in at one a cycle (s_t*, no tready),
//!          <----- a frame or none     m_tready = 1, beats out gathered into frames,
//!                                     the event pulses summed into counters
//! ```
//!
//! Time is the RTL's own: the model is clocked while a frame goes in, and
//! on each [`FrameNode::transmit`] for as many cycles as the pump's clock
//! moved since the last call (at most [`MAX_IDLE_CYCLES`] at a time), so
//! the client-mode ARP timer runs in the node's cycles.

use std::net::Ipv4Addr;
use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use net_model::{Counter, DropReason, Mac, NodeConfig};
use verilate::{Model, Port, Source};

use crate::error::HarnessError;
use crate::pump::FrameNode;

/// Idle cycles one [`FrameNode::transmit`] runs at most: the pump calls it
/// after every frame and at least every millisecond, and a 1024-bit node
/// clocks about a cycle a microsecond, so more would slow every answer.
/// The client-mode ARP timer runs this many cycles a call.
pub const MAX_IDLE_CYCLES: u64 = 256;
/// Cycles the node may take from a frame's last beat in to its answer's
/// first beat out (its receive pipeline, the frame RAM, the transmitter);
/// the driver clocks this long after each frame so its answer is ready.
const ANSWER_CYCLES: u64 = 32;
/// The longest a call waits for the model thread.
const CALL_LIMIT: Duration = Duration::from_secs(60);

type Job = Box<dyn FnOnce(&mut Driver) + Send>;

/// The verilated node, run on a thread of its own.
pub struct RtlNode {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    width: usize,
}

impl RtlNode {
    /// Emits the node at `width` bits for `cfg.mtu`, verilates it (or takes
    /// it from `cache`, where the build is kept by the hash of its
    /// sources), sets its inputs from `cfg` and pulses `init`. `log` hears
    /// each build step.
    ///
    /// # Errors
    /// An unsupported width or MTU, or a Verilator build that fails.
    pub fn build(
        width: usize,
        cfg: &NodeConfig,
        cache: &Path,
        log: impl FnMut(&str) + Send + 'static,
    ) -> Result<Self, HarnessError> {
        cfg.validate().map_err(|e| HarnessError::Invalid { what: "node".into(), detail: e.to_string() })?;
        let prefix = format!("tap_node{width}");
        let modules = hdl::net::node_modules(width, cfg.mtu, &prefix)
            .map_err(|e| HarnessError::Invalid { what: "RTL node".into(), detail: e.0 })?;
        let top = format!("{prefix}_net_node");
        let sources: Vec<Source> =
            modules.iter().map(|m| Source { path: format!("{}.v", m.name).into(), contents: m.file_text() }).collect();
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (ready_tx, ready) = mpsc::channel::<Result<(), String>>();
        let (cache, cfg) = (cache.to_path_buf(), cfg.clone());
        let thread = std::thread::Builder::new()
            .name(format!("rtl-node{width}"))
            .spawn(move || {
                let mut log = log;
                let driver = Driver::start(&top, &sources, &cache, width, &cfg, &mut log);
                let mut driver = match driver {
                    Ok(d) => {
                        let _ = ready_tx.send(Ok(()));
                        d
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                for job in inbox {
                    job(&mut driver);
                }
            })
            .map_err(|e| HarnessError::io("cannot start the RTL node's thread", e))?;
        // A cold Verilator build of the 1024-bit node takes a minute or two.
        match ready.recv_timeout(Duration::from_secs(900)) {
            Ok(Ok(())) => Ok(RtlNode { jobs: Some(jobs), thread: Some(thread), width }),
            Ok(Err(e)) => Err(HarnessError::Invalid { what: format!("RTL node at {width} bits"), detail: e }),
            Err(_) => Err(HarnessError::Invalid {
                what: format!("RTL node at {width} bits"),
                detail: "not built within 900 s".into(),
            }),
        }
    }

    /// The data width the node was built at.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Runs `f` on the model's thread and returns what it returns.
    fn call<T: Send + 'static>(&self, f: impl FnOnce(&mut Driver) -> T + Send + 'static) -> T {
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move |d| {
            let _ = tx.send(f(d));
        });
        let sent = self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok());
        assert!(sent, "the RTL node's thread has ended");
        rx.recv_timeout(CALL_LIMIT)
            .unwrap_or_else(|e| panic!("the RTL node did not answer within {} s: {e}", CALL_LIMIT.as_secs()))
    }

    /// What the node's event pulses added up to for `c`.
    pub fn count(&self, c: Counter) -> u64 {
        self.call(move |d| d.counts[c.index()])
    }

    /// `init_done`.
    pub fn init_done(&self) -> bool {
        self.call(|d| d.m.bit(d.p.init_done))
    }

    /// `arp_failed`.
    pub fn arp_failed(&self) -> bool {
        self.call(|d| d.m.bit(d.p.arp_failed))
    }

    /// The target's MAC, once the node knows it (`target_known`).
    pub fn target_mac(&self) -> Option<Mac> {
        self.call(|d| d.m.bit(d.p.target_known).then(|| mac_of(d.m.get(d.p.target_mac))))
    }

    /// Cycles the node has been clocked.
    pub fn cycles(&self) -> u64 {
        self.call(|d| d.cycle)
    }
}

impl Drop for RtlNode {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl FrameNode for RtlNode {
    fn receive(&mut self, frame: &[u8], now: u64) {
        let frame = frame.to_vec();
        self.call(move |d| {
            d.idle_until(now);
            d.feed(&frame);
        });
    }

    fn transmit(&mut self, now: u64) -> Option<Vec<u8>> {
        self.call(move |d| {
            if d.out.is_empty() {
                d.idle_until(now);
            }
            d.out.pop_front()
        })
    }

    fn count(&self, c: Counter) -> u64 {
        RtlNode::count(self, c)
    }
}

/// Either node behind a TAP: the model or its RTL, chosen at run time
/// (`tap-node --rtl WIDTH`, the kernel tests).
pub enum AnyNode {
    Model(Box<net_model::NetNode>),
    Rtl(RtlNode),
}

impl FrameNode for AnyNode {
    fn receive(&mut self, frame: &[u8], now: u64) {
        match self {
            AnyNode::Model(n) => FrameNode::receive(n.as_mut(), frame, now),
            AnyNode::Rtl(n) => n.receive(frame, now),
        }
    }

    fn transmit(&mut self, now: u64) -> Option<Vec<u8>> {
        match self {
            AnyNode::Model(n) => FrameNode::transmit(n.as_mut(), now),
            AnyNode::Rtl(n) => n.transmit(now),
        }
    }

    fn count(&self, c: Counter) -> u64 {
        match self {
            AnyNode::Model(n) => n.count(c),
            AnyNode::Rtl(n) => n.count(c),
        }
    }
}

impl AnyNode {
    /// `init_done`.
    pub fn init_done(&self) -> bool {
        match self {
            AnyNode::Model(n) => n.init_done(),
            AnyNode::Rtl(n) => n.init_done(),
        }
    }

    /// `arp_failed`.
    pub fn arp_failed(&self) -> bool {
        match self {
            AnyNode::Model(n) => n.arp_failed(),
            AnyNode::Rtl(n) => n.arp_failed(),
        }
    }

    /// The target's MAC, once known.
    pub fn target_mac(&self) -> Option<Mac> {
        match self {
            AnyNode::Model(n) => n.target_mac(),
            AnyNode::Rtl(n) => n.target_mac(),
        }
    }
}

/// The ports the driver touches.
struct Ports {
    s_tdata: Port,
    s_tkeep: Port,
    s_tlast: Port,
    s_tvalid: Port,
    s_tuser: Port,
    m_tdata: Port,
    m_tkeep: Port,
    m_tlast: Port,
    m_tvalid: Port,
    m_tready: Port,
    init: Port,
    init_done: Port,
    arp_failed: Port,
    target_mac: Port,
    target_known: Port,
    /// The single-bit event pulses, with the counter each adds to.
    events: Vec<(Port, Counter)>,
    dropped: Port,
}

/// The model and what the driver keeps between calls; lives on the model's thread.
struct Driver {
    m: Model,
    p: Ports,
    /// Bytes a beat.
    k: usize,
    cycle: u64,
    counts: Vec<u64>,
    /// The frame being sent, beat by beat.
    partial: Vec<u8>,
    /// Whole frames sent, not yet handed to the pump.
    out: std::collections::VecDeque<Vec<u8>>,
}

impl Driver {
    fn start(
        top: &str,
        sources: &[Source],
        cache: &Path,
        width: usize,
        cfg: &NodeConfig,
        log: &mut dyn FnMut(&str),
    ) -> Result<Self, String> {
        std::fs::create_dir_all(cache).map_err(|e| format!("creating {}: {e}", cache.display()))?;
        let waivers = verilate::write_waivers(cache).map_err(|e| e.to_string())?;
        let fns = verilate::load_cached(top, top, sources, Some(&waivers), top, cache, false, log)
            .map_err(|e| e.to_string())?;
        let mut m = Model::new(fns);
        m.set_clock("clock");
        let port = |m: &Model, name: &str| m.try_port(name).ok_or_else(|| format!("the node has no port `{name}`"));
        let events = [
            ("frames_in", Counter::FramesIn),
            ("frames_out", Counter::FramesOut),
            ("arp_requests_answered", Counter::ArpRequestsAnswered),
            ("arp_replies_received", Counter::ArpRepliesReceived),
            ("arp_requests_sent", Counter::ArpRequestsSent),
            ("icmp_echoes_answered", Counter::IcmpEchoesAnswered),
        ];
        let p = Ports {
            s_tdata: port(&m, "s_tdata")?,
            s_tkeep: port(&m, "s_tkeep")?,
            s_tlast: port(&m, "s_tlast")?,
            s_tvalid: port(&m, "s_tvalid")?,
            s_tuser: port(&m, "s_tuser")?,
            m_tdata: port(&m, "m_tdata")?,
            m_tkeep: port(&m, "m_tkeep")?,
            m_tlast: port(&m, "m_tlast")?,
            m_tvalid: port(&m, "m_tvalid")?,
            m_tready: port(&m, "m_tready")?,
            init: port(&m, "init")?,
            init_done: port(&m, "init_done")?,
            arp_failed: port(&m, "arp_failed")?,
            target_mac: port(&m, "target_mac")?,
            target_known: port(&m, "target_known")?,
            events: events.iter().map(|&(n, c)| port(&m, n).map(|p| (p, c))).collect::<Result<_, _>>()?,
            dropped: port(&m, "dropped")?,
        };
        let set = |m: &mut Model, name: &str, v: u64| port(m, name).map(|p| m.set(p, v));
        set(&mut m, "fpga_mac", mac_value(cfg.fpga_mac))?;
        set(&mut m, "fpga_ip", ip_value(cfg.fpga_ip))?;
        set(&mut m, "target_ip", ip_value(cfg.target_ip))?;
        set(&mut m, "fixed_mac", mac_value(cfg.target_mac))?;
        set(&mut m, "mode", u64::from(cfg.mode.toe_mode()))?;
        set(&mut m, "arp_retry_cycles", cfg.arp_retry_cycles)?;
        set(&mut m, "arp_attempts", u64::from(cfg.arp_attempts))?;
        m.set(p.m_tready, 1);
        let mut d = Driver {
            m,
            p,
            k: width / 8,
            cycle: 0,
            counts: vec![0; Counter::COUNT],
            partial: Vec::new(),
            out: Default::default(),
        };
        // Verilator's first evaluation sees no edge: an idle cycle, then `init`.
        d.step();
        d.m.set(d.p.init, 1);
        d.step();
        d.m.set(d.p.init, 0);
        Ok(d)
    }

    /// One clock cycle: the edge, then what it put on the outputs (a beat
    /// sent, the event pulses) taken in.
    fn step(&mut self) {
        self.m.cycle();
        self.cycle += 1;
        for &(port, c) in &self.p.events {
            if self.m.bit(port) {
                self.counts[c.index()] += 1;
            }
        }
        let dropped = self.m.get(self.p.dropped);
        for r in DropReason::ALL {
            if dropped >> r.index() & 1 == 1 {
                self.counts[Counter::Dropped(r).index()] += 1;
            }
        }
        if self.m.bit(self.p.m_tvalid) {
            let mut keep = vec![0u8; self.k.div_ceil(8)];
            self.m.get_bytes(self.p.m_tkeep, &mut keep);
            let kept = (0..self.k).take_while(|&j| keep[j / 8] >> (j % 8) & 1 == 1).count();
            let mut data = vec![0u8; self.k];
            self.m.get_bytes(self.p.m_tdata, &mut data);
            self.partial.extend_from_slice(&data[..kept]);
            if self.m.bit(self.p.m_tlast) {
                self.out.push_back(std::mem::take(&mut self.partial));
            }
        }
    }

    /// Clocks the node idle up to the pump's `now`, at most [`MAX_IDLE_CYCLES`].
    fn idle_until(&mut self, now: u64) {
        let n = now.saturating_sub(self.cycle).min(MAX_IDLE_CYCLES);
        for _ in 0..n {
            self.step();
        }
    }

    /// Feeds `frame` one beat a cycle, then clocks until its answer is out.
    fn feed(&mut self, frame: &[u8]) {
        let beats = frame.chunks(self.k).count();
        for (i, beat) in frame.chunks(self.k).enumerate() {
            let mut data = vec![0u8; self.k];
            data[..beat.len()].copy_from_slice(beat);
            let mut keep = vec![0u8; self.k.div_ceil(8)];
            for j in 0..beat.len() {
                keep[j / 8] |= 1 << (j % 8);
            }
            self.m.set_bytes(self.p.s_tdata, &data);
            self.m.set_bytes(self.p.s_tkeep, &keep);
            self.m.set(self.p.s_tlast, u64::from(i + 1 == beats));
            self.m.set(self.p.s_tuser, 0);
            self.m.set(self.p.s_tvalid, 1);
            self.step();
        }
        self.m.set(self.p.s_tvalid, 0);
        self.m.set(self.p.s_tlast, 0);
        // The answer, as long as the frame, leaves one beat a cycle after the pipeline.
        for _ in 0..ANSWER_CYCLES + beats as u64 {
            self.step();
        }
    }
}

fn mac_value(m: Mac) -> u64 {
    m.iter().fold(0, |v, &b| v << 8 | u64::from(b))
}

fn mac_of(v: u64) -> Mac {
    let b = v.to_be_bytes();
    [b[2], b[3], b[4], b[5], b[6], b[7]]
}

fn ip_value(ip: Ipv4Addr) -> u64 {
    u64::from(u32::from(ip))
}
