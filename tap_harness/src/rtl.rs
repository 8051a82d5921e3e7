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
//!
//! # Measuring in the node's cycles
//!
//! [`RtlNode::back_to_back`] and [`RtlNode::round_trip`] count clock cycles
//! of the model, never wall time, so their figures are exact and the same
//! on every machine. A beat is counted at the clock edge that takes it: a
//! request beat at the edge that samples `s_tvalid`, a reply beat at the
//! edge where `m_tvalid` and `m_tready` (always 1) are both high. Every
//! reply is checked byte for byte against `net_model::NetNode`'s reply to
//! the same request; a reply missing, extra or different is an error.
//!
//! The figures the design implies (`hdl::net`): the node stores a frame
//! whole before it answers. Its last beat, taken at edge k, is decided and
//! written with its descriptor pushed at edge k + 10 (the receiver's ten
//! stages, `hdl::net::rx::DELAY`); the descriptor FIFO writes it at k + 11,
//! the transmitter loads it at k + 12, the frame RAM returns the first beat
//! at k + 13, the out buffer holds it at k + 14 and the MAC takes it at
//! k + 15 ([`ANSWER_CYCLES_AFTER_LAST`]). A reply is as long as its
//! request, so for a request of B beats both `first_to_first` and
//! `last_to_last` are B + 14. The transmitter loads the next descriptor with
//! the last beat of the frame before, so replies leave back to back as the
//! requests came: N requests of B beats take N * B + B + 14 cycles, first
//! beat in to last beat out, both counted (N + 15 for one-beat frames).

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
/// Cycles from a request's last beat in to its reply's first beat out, as
/// the design's pipeline implies (module docs): the measuring tests hold
/// [`RtlNode::round_trip`] and [`RtlNode::back_to_back`] to it.
pub const ANSWER_CYCLES_AFTER_LAST: u64 = 15;
/// The most frames one [`RtlNode::back_to_back`] run takes.
pub const BACK_TO_BACK_MAX: u64 = 100_000;
/// Idle cycles a measurement waits, at most, for the node to fall quiet
/// before it starts (a frame of the largest MTU at 64 bits is 1,127 beats).
const SETTLE_LIMIT: u64 = 100_000;
/// The model thread simulates well over this many cycles a second at any
/// width; a measurement's wait for it is sized from its cycles at this rate.
const SLOWEST_CYCLES_PER_SECOND: u64 = 20_000;

/// What [`RtlNode::back_to_back`] measured: `frames` identical echo
/// requests fed with no idle beat between them, `m_tready` held at 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackToBack {
    /// Requests fed (and replies taken, each checked).
    pub frames: u64,
    /// Bytes of a request (and of its reply), without FCS.
    pub frame_bytes: usize,
    /// Beats a frame takes: ceil(frame_bytes / (W / 8)).
    pub beats: u64,
    /// Cycles from the first request beat in to the last reply beat out,
    /// both counted.
    pub cycles: u64,
    /// Cycles from the first reply's last beat out to the last reply's last
    /// beat out: `frames - 1` replies' worth once the pipeline is full.
    pub steady_cycles: u64,
}

impl BackToBack {
    /// Frames per cycle over the whole run.
    pub fn frames_per_cycle(&self) -> f64 {
        self.frames as f64 / self.cycles as f64
    }

    /// The wire's limit: the input rate, one frame per `beats` cycles.
    pub fn wire_frames_per_cycle(&self) -> f64 {
        1.0 / self.beats as f64
    }

    /// [`Self::frames_per_cycle`] against the wire's limit: below 1 by the
    /// pipeline's fixed latency over a run of `frames`.
    pub fn of_wire(&self) -> f64 {
        self.frames_per_cycle() / self.wire_frames_per_cycle()
    }

    /// The replies' own rate against the wire's limit, from the first
    /// reply's end to the last's (1 when no reply waits for another); `None`
    /// for a run of one frame.
    pub fn steady_of_wire(&self) -> Option<f64> {
        (self.frames > 1).then(|| ((self.frames - 1) * self.beats) as f64 / self.steady_cycles as f64)
    }
}

/// What [`RtlNode::round_trip`] measured: one echo request on an idle node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundTrip {
    /// Bytes of the request (and of its reply).
    pub frame_bytes: usize,
    /// Beats of the request.
    pub beats: u64,
    /// Cycles from the request's first beat in to the reply's first beat out.
    pub first_to_first: u64,
    /// Cycles from the request's last beat in to the reply's last beat out.
    pub last_to_last: u64,
}

/// Where a verilated node is kept between runs of the binaries:
/// `$TAP_NODE_CACHE`, else `target/tap-node-cache`.
pub fn default_cache() -> std::path::PathBuf {
    std::env::var_os("TAP_NODE_CACHE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::PathBuf::from("target/tap-node-cache"))
}

/// A data width the node is built at (`config::DATA_WIDTHS`), from an
/// option's text; the error lists the widths.
pub fn parse_width(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(w) if config::DATA_WIDTHS.contains(&w) => Ok(w),
        _ => Err(format!("{s:?} is not a data width: use {}", config::data_widths_text())),
    }
}

type Job = Box<dyn FnOnce(&mut Driver) + Send>;

/// The verilated node, run on a thread of its own.
pub struct RtlNode {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    width: usize,
    /// What the node was built with: the model that checks its answers.
    cfg: NodeConfig,
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
        let (cache, node_cfg) = (cache.to_path_buf(), cfg.clone());
        let cfg = cfg.clone();
        let thread = std::thread::Builder::new()
            .name(format!("rtl-node{width}"))
            .spawn(move || {
                let mut log = log;
                let driver = Driver::start(&top, &sources, &cache, width, &node_cfg, &mut log);
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
            Ok(Ok(())) => Ok(RtlNode { jobs: Some(jobs), thread: Some(thread), width, cfg }),
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
        self.try_call(CALL_LIMIT, f).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Runs `f` on the model's thread; an error if the thread has ended or
    /// does not answer within `limit`.
    fn try_call<T: Send + 'static>(
        &self,
        limit: Duration,
        f: impl FnOnce(&mut Driver) -> T + Send + 'static,
    ) -> Result<T, HarnessError> {
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move |d| {
            let _ = tx.send(f(d));
        });
        let what = format!("the RTL node at {} bits", self.width);
        if self.jobs.as_ref().is_none_or(|j| j.send(job).is_err()) {
            return Err(HarnessError::invalid(what, "its model thread has ended"));
        }
        rx.recv_timeout(limit).map_err(|_| HarnessError::Timeout { what, after: limit })
    }

    /// `net_model::NetNode`'s answer to `request` on a node configured as
    /// this one: the reply the RTL's is checked against.
    fn model_reply(&self, request: &[u8]) -> Result<Vec<u8>, HarnessError> {
        let mut model =
            net_model::NetNode::new(self.cfg.clone()).map_err(|e| HarnessError::invalid("node", e.to_string()))?;
        model.init(0);
        model.receive(request, false, 0);
        let dropped = DropReason::ALL.into_iter().find(|&r| model.count(Counter::Dropped(r)) > 0);
        // Past a client-mode node's ARP request, the first IPv4 frame.
        if let Some(reply) = std::iter::from_fn(|| model.transmit(0)).find(|f| f.get(12..14) == Some(&[8, 0][..])) {
            return Ok(reply);
        }
        let why = dropped.map_or("no echo reply".to_string(), |r| format!("dropped as {}", r.name()));
        Err(HarnessError::invalid(
            "the request measured",
            format!("net_model does not answer it ({why}): give an echo request to {}", self.cfg.fpga_ip),
        ))
    }

    /// Feeds `frames` copies of the echo request `request` with no idle beat
    /// between them (`m_tready` = 1) into the node once it is quiet, and
    /// takes every reply, each checked against `net_model::NetNode`'s reply
    /// to the same request. Cycles as the module docs count them.
    ///
    /// # Errors
    /// `frames` outside 1 ..= [`BACK_TO_BACK_MAX`]; a request the model does
    /// not answer; a node that does not fall quiet; a reply missing, extra
    /// or different from the model's (the error says which, and the node's
    /// drop counters that moved).
    pub fn back_to_back(&self, request: &[u8], frames: u64) -> Result<BackToBack, HarnessError> {
        if !(1..=BACK_TO_BACK_MAX).contains(&frames) {
            return Err(HarnessError::invalid(
                "back_to_back",
                format!("frames = {frames} is out of range: 1 ..= {BACK_TO_BACK_MAX}"),
            ));
        }
        let reply = self.model_reply(request)?;
        let request = request.to_vec();
        let beats = request.len().div_ceil(self.width / 8) as u64;
        let limit = Self::limit_for(SETTLE_LIMIT + 2 * frames * beats);
        let what = format!("{frames} back-to-back echo requests of {} bytes", request.len());
        let run = self.try_call(limit, move |d| d.run(&request, frames, &reply))?;
        let run = run.map_err(|e| HarnessError::invalid(what, e))?;
        Ok(BackToBack {
            frames,
            frame_bytes: run.frame_bytes,
            beats,
            cycles: run.last_out_last - run.first_in + 1,
            steady_cycles: run.last_out_last - run.first_out_last,
        })
    }

    /// Feeds one echo request into the node once it is quiet and takes its
    /// reply (checked against `net_model::NetNode`'s): how long the node
    /// takes to answer, in its cycles.
    ///
    /// # Errors
    /// As [`Self::back_to_back`].
    pub fn round_trip(&self, request: &[u8]) -> Result<RoundTrip, HarnessError> {
        let reply = self.model_reply(request)?;
        let request = request.to_vec();
        let beats = request.len().div_ceil(self.width / 8) as u64;
        let what = format!("the round trip of an echo request of {} bytes", request.len());
        let run = self.try_call(Self::limit_for(SETTLE_LIMIT + 2 * beats), move |d| d.run(&request, 1, &reply))?;
        let run = run.map_err(|e| HarnessError::invalid(what, e))?;
        Ok(RoundTrip {
            frame_bytes: run.frame_bytes,
            beats,
            first_to_first: run.first_out_first - run.first_in,
            last_to_last: run.last_out_last - run.last_in,
        })
    }

    /// How long to wait for a job of about `cycles` cycles.
    fn limit_for(cycles: u64) -> Duration {
        CALL_LIMIT + Duration::from_secs(cycles / SLOWEST_CYCLES_PER_SECOND)
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

/// The node behind a TAP, chosen at run time (`tap-node`, the kernel
/// tests): the model, the model with receiving TCP sessions in front of it
/// (`tap-node --tcp N`), or the node's RTL (`--rtl WIDTH`).
pub enum AnyNode {
    Model(Box<net_model::NetNode>),
    Tcp(Box<crate::Receiver>),
    Rtl(RtlNode),
}

impl FrameNode for AnyNode {
    fn receive(&mut self, frame: &[u8], now: u64) {
        match self {
            AnyNode::Model(n) => FrameNode::receive(n.as_mut(), frame, now),
            AnyNode::Tcp(r) => r.receive(frame, now),
            AnyNode::Rtl(n) => n.receive(frame, now),
        }
    }

    fn transmit(&mut self, now: u64) -> Option<Vec<u8>> {
        match self {
            AnyNode::Model(n) => FrameNode::transmit(n.as_mut(), now),
            AnyNode::Tcp(r) => r.transmit(now),
            AnyNode::Rtl(n) => n.transmit(now),
        }
    }

    fn count(&self, c: Counter) -> u64 {
        match self {
            AnyNode::Model(n) => n.count(c),
            AnyNode::Tcp(r) => r.count(c),
            AnyNode::Rtl(n) => n.count(c),
        }
    }
}

impl AnyNode {
    /// `init_done`.
    pub fn init_done(&self) -> bool {
        match self {
            AnyNode::Model(n) => n.init_done(),
            AnyNode::Tcp(r) => r.node().init_done(),
            AnyNode::Rtl(n) => n.init_done(),
        }
    }

    /// `arp_failed`.
    pub fn arp_failed(&self) -> bool {
        match self {
            AnyNode::Model(n) => n.arp_failed(),
            AnyNode::Tcp(r) => r.node().arp_failed(),
            AnyNode::Rtl(n) => n.arp_failed(),
        }
    }

    /// The target's MAC, once known.
    pub fn target_mac(&self) -> Option<Mac> {
        match self {
            AnyNode::Model(n) => n.target_mac(),
            AnyNode::Tcp(r) => r.node().target_mac(),
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
    /// sent, the event pulses) taken in. The beat on `m_t*` now is taken
    /// at the next edge (`m_tready` is 1): it says whether it is a frame's
    /// first and last.
    fn step(&mut self) -> Option<Sent> {
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
            let first = self.partial.is_empty();
            self.partial.extend_from_slice(&data[..kept]);
            let last = self.m.bit(self.p.m_tlast);
            if last {
                self.out.push_back(std::mem::take(&mut self.partial));
            }
            return Some(Sent { first, last });
        }
        None
    }

    /// Clocks the node idle up to the pump's `now`, at most [`MAX_IDLE_CYCLES`].
    fn idle_until(&mut self, now: u64) {
        let n = now.saturating_sub(self.cycle).min(MAX_IDLE_CYCLES);
        for _ in 0..n {
            self.step();
        }
    }

    /// Puts one beat of a frame on `s_t*` (valid until [`Self::idle_input`]).
    fn put_beat(&mut self, beat: &[u8], last: bool) {
        let mut data = vec![0u8; self.k];
        data[..beat.len()].copy_from_slice(beat);
        let mut keep = vec![0u8; self.k.div_ceil(8)];
        for j in 0..beat.len() {
            keep[j / 8] |= 1 << (j % 8);
        }
        self.m.set_bytes(self.p.s_tdata, &data);
        self.m.set_bytes(self.p.s_tkeep, &keep);
        self.m.set(self.p.s_tlast, u64::from(last));
        self.m.set(self.p.s_tuser, 0);
        self.m.set(self.p.s_tvalid, 1);
    }

    /// No beat on `s_t*`.
    fn idle_input(&mut self) {
        self.m.set(self.p.s_tvalid, 0);
        self.m.set(self.p.s_tlast, 0);
    }

    /// Feeds `frame` one beat a cycle, then clocks until its answer is out.
    fn feed(&mut self, frame: &[u8]) {
        let beats = frame.chunks(self.k).count();
        for (i, beat) in frame.chunks(self.k).enumerate() {
            self.put_beat(beat, i + 1 == beats);
            self.step();
        }
        self.idle_input();
        // The answer, as long as the frame, leaves one beat a cycle after the pipeline.
        for _ in 0..ANSWER_CYCLES + beats as u64 {
            self.step();
        }
    }

    /// Clocks the node idle until nothing has left it for [`ANSWER_CYCLES`]
    /// cycles in a row (what leaves goes to `out`, for the pump).
    fn settle(&mut self) -> Result<(), String> {
        let mut quiet = 0;
        for _ in 0..SETTLE_LIMIT {
            if quiet >= ANSWER_CYCLES && self.partial.is_empty() {
                return Ok(());
            }
            quiet = if self.step().is_some() { 0 } else { quiet + 1 };
        }
        Err(format!("the node was still sending after {SETTLE_LIMIT} idle cycles"))
    }

    /// `frames` copies of `request` back to back on a quiet node, every
    /// reply checked against `reply`: the edges (cycle numbers) of the
    /// first and last beats each way.
    fn run(&mut self, request: &[u8], frames: u64, reply: &[u8]) -> Result<Run, String> {
        if request.is_empty() {
            return Err("the request is empty".into());
        }
        self.settle()?;
        let before = self.counts.clone();
        let queued = self.out.len();
        let beats = request.chunks(self.k).count();
        let mut t = Run { frame_bytes: request.len(), ..Run::default() };
        // A beat seen after edge `cycle` is taken at edge `cycle + 1`.
        let take = |d: &Driver, sent: Option<Sent>, t: &mut Run| {
            if let Some(s) = sent {
                if s.first && t.replies == 0 {
                    t.first_out_first = d.cycle + 1;
                }
                if s.last {
                    t.replies += 1;
                    if t.replies == 1 {
                        t.first_out_last = d.cycle + 1;
                    }
                    t.last_out_last = d.cycle + 1;
                }
            }
        };
        for n in 0..frames {
            for (i, beat) in request.chunks(self.k).enumerate() {
                self.put_beat(beat, i + 1 == beats);
                let sent = self.step();
                if n == 0 && i == 0 {
                    t.first_in = self.cycle;
                }
                take(self, sent, &mut t);
            }
        }
        t.last_in = self.cycle;
        self.idle_input();
        // Every reply is out this long after the last request at the latest,
        // unless the node falls behind the wire.
        let drain = ANSWER_CYCLES + frames * beats as u64;
        let mut waited = 0;
        while t.replies < frames && waited < drain {
            let sent = self.step();
            take(self, sent, &mut t);
            waited += 1;
        }
        // One reply too many would leave within a frame's time.
        for _ in 0..ANSWER_CYCLES + beats as u64 {
            let sent = self.step();
            take(self, sent, &mut t);
        }
        let got: Vec<Vec<u8>> = self.out.drain(queued..).collect();
        let moved: Vec<String> = DropReason::ALL
            .into_iter()
            .filter_map(|r| {
                let i = Counter::Dropped(r).index();
                let n = self.counts[i] - before[i];
                (n > 0).then(|| format!("{} {n}", r.name()))
            })
            .collect();
        let drops =
            if moved.is_empty() { "no drop counted".to_string() } else { format!("dropped: {}", moved.join(", ")) };
        if got.len() as u64 != frames {
            return Err(format!(
                "{} replies came back for {frames} requests within {drain} cycles of the last request ({drops})",
                got.len()
            ));
        }
        for (i, f) in got.iter().enumerate() {
            if f != reply {
                let at = f.iter().zip(reply).position(|(a, b)| a != b).unwrap_or(f.len().min(reply.len()));
                let (a, b) = (f.get(at).map(|v| format!("{v:#04x}")), reply.get(at).map(|v| format!("{v:#04x}")));
                return Err(format!(
                    "reply {} of {frames} differs from net_model's at byte {at} of {} (RTL {}, model {})",
                    i + 1,
                    reply.len(),
                    a.unwrap_or_else(|| "none".into()),
                    b.unwrap_or_else(|| "none".into())
                ));
            }
        }
        Ok(t)
    }
}

/// A beat the node sent.
#[derive(Clone, Copy)]
struct Sent {
    first: bool,
    last: bool,
}

/// The edges of one [`Driver::run`]: `first_in` took the first request
/// beat, `last_in` the last; `first_out_first` the first reply's first
/// beat, `first_out_last` its last, `last_out_last` the last reply's last.
#[derive(Clone, Copy, Default)]
struct Run {
    frame_bytes: usize,
    replies: u64,
    first_in: u64,
    last_in: u64,
    first_out_first: u64,
    first_out_last: u64,
    last_out_last: u64,
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
