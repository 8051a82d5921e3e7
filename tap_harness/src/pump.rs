//! The wire between the TAP and a node: a thread that moves every frame
//! both ways, pads what the kernel sends to the Ethernet minimum, stamps each
//! frame with the node's clock, and records it in the pcap and the log.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::HarnessError;
use crate::pcap::PcapWriter;
use crate::tap::Tap;

/// A network node as the wire sees it: frames in as a vendor MAC presents
/// them (no preamble or FCS, at least 60 bytes), frames out when it has
/// one. `now` counts the node's clock cycles. Implemented for the plain-Rust
/// model (`net_model::NetNode`) and the verilated RTL ([`crate::RtlNode`]).
pub trait FrameNode {
    /// One frame from the wire, seen at `now`.
    fn receive(&mut self, frame: &[u8], now: u64);
    /// The next frame the node sends, if it has one at `now`.
    fn transmit(&mut self, now: u64) -> Option<Vec<u8>>;
    /// The node's counter `c` (the model's count, or the RTL's event
    /// pulses summed).
    fn count(&self, c: net_model::Counter) -> u64;
}

impl FrameNode for net_model::NetNode {
    fn receive(&mut self, frame: &[u8], now: u64) {
        net_model::NetNode::receive(self, frame, false, now);
    }

    fn transmit(&mut self, now: u64) -> Option<Vec<u8>> {
        net_model::NetNode::transmit(self, now)
    }

    fn count(&self, c: net_model::Counter) -> u64 {
        net_model::NetNode::count(self, c)
    }
}

/// The user clock of the reference design, 250 MHz.
pub const DEFAULT_CLOCK_HZ: u64 = 250_000_000;
/// The shortest Ethernet frame without FCS: shorter ones are padded with
/// zeros on the wire, as a NIC does, before the node sees them.
pub const MIN_FRAME: usize = 60;
/// A read buffer longer than any frame the TAP can hold.
const READ_BUFFER: usize = 65536;
/// Frames read from the TAP, or sent by the node, in one round before the
/// pump looks at the other side (and at the stop flag) again.
const BURST: usize = 64;
/// How long writing one frame to the TAP may wait for room.
const WRITE_WAIT: Duration = Duration::from_millis(100);

/// Which way a frame went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the kernel (or injected) into the node.
    ToNode,
    /// From the node to the kernel.
    FromNode,
}

/// One frame of the pump's log.
#[derive(Clone, Debug)]
pub struct LoggedFrame {
    pub direction: Direction,
    /// Handed in by [`Pump::inject`], below the padding, not read from the TAP.
    pub injected: bool,
    /// The frame as the node got it or sent it (frames from the kernel padded).
    pub bytes: Vec<u8>,
    /// Its length before padding.
    pub original_len: usize,
    /// Wall time (also the pcap's timestamp).
    pub at: SystemTime,
    /// The node's clock at that moment.
    pub now: u64,
}

impl LoggedFrame {
    /// The EtherType (bytes 12..14), if the frame is that long.
    pub fn ethertype(&self) -> Option<u16> {
        self.bytes.get(12..14).map(|b| u16::from_be_bytes([b[0], b[1]]))
    }
}

/// How the pump runs.
pub struct PumpOptions {
    /// The node's clock, Hz: `now` is wall time since start in these cycles.
    pub clock_hz: u64,
    /// Where to record every frame, both ways.
    pub pcap: Option<PcapWriter>,
    /// Keep every frame in memory for [`Pump::frames`] (tests); off for
    /// long runs.
    pub keep_log: bool,
    /// The longest the pump sleeps when nothing happens: it bounds the
    /// latency of injected frames, of the stop flag and of the node's timers.
    pub idle_wait: Duration,
    /// Faults on the frames from the kernel (none by default).
    pub faults: Faults,
}

impl Default for PumpOptions {
    fn default() -> Self {
        PumpOptions {
            clock_hz: DEFAULT_CLOCK_HZ,
            pcap: None,
            keep_log: true,
            idle_wait: Duration::from_millis(1),
            faults: Faults::default(),
        }
    }
}

/// Faults on the way from the kernel to the node, drawn per frame from a
/// seeded generator: what `tc qdisc ... netem loss / reorder / duplicate /
/// corrupt` does on the kernel's side of the TAP (the pump does it itself,
/// so it works on kernels without `sch_netem` and a seed replays a run).
/// Each is a probability, 0.0 ..= 1.0; frames handed in by
/// [`Pump::inject`] are never touched.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Faults {
    pub seed: u64,
    /// The frame is lost.
    pub loss: f64,
    /// The frame is held back and delivered after the next one (or after
    /// one idle wait if no other comes).
    pub reorder: f64,
    /// The frame is delivered twice.
    pub duplicate: f64,
    /// One random bit of the frame (header or data) is flipped.
    pub corrupt: f64,
}

impl Faults {
    fn any(&self) -> bool {
        self.loss > 0.0 || self.reorder > 0.0 || self.duplicate > 0.0 || self.corrupt > 0.0
    }
}

/// What the pump counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PumpStats {
    /// Frames read from the TAP.
    pub from_kernel: u64,
    /// Frames from the TAP shorter than 60 bytes, padded.
    pub padded: u64,
    /// Frames handed in by [`Pump::inject`].
    pub injected: u64,
    /// Frames the node sent, written to the TAP.
    pub to_kernel: u64,
    /// Frames the node sent that the TAP refused.
    pub tap_write_errors: u64,
    /// Frames the pcap could not take.
    pub pcap_errors: u64,
    /// The last of those errors.
    pub last_error: Option<String>,
    /// Frames from the kernel lost by [`Faults::loss`].
    pub lost: u64,
    /// Frames from the kernel held back and delivered late ([`Faults::reorder`]).
    pub reordered: u64,
    /// Frames from the kernel delivered twice ([`Faults::duplicate`]).
    pub duplicated: u64,
    /// Frames from the kernel with a bit flipped ([`Faults::corrupt`]).
    pub corrupted: u64,
}

/// The node's clock: cycles of `hz` since `start`.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    start: Instant,
    hz: u64,
}

impl Clock {
    /// A clock at 0 now.
    pub fn new(hz: u64) -> Self {
        Clock { start: Instant::now(), hz }
    }

    /// Cycles since the clock started.
    pub fn now(&self) -> u64 {
        let ns = self.start.elapsed().as_nanos();
        (ns * u128::from(self.hz) / 1_000_000_000) as u64
    }
}

/// What the pump thread hands back when it ends: the TAP and the capture.
type Parts = (Tap, Option<PcapWriter>);

struct Shared<N> {
    node: Mutex<N>,
    log: Mutex<Vec<LoggedFrame>>,
    inject: Mutex<VecDeque<Vec<u8>>>,
    stats: Mutex<PumpStats>,
    stop: AtomicBool,
    /// Set by the thread when it leaves its loop for a reason of its own.
    failed: Mutex<Option<String>>,
    clock: Clock,
    keep_log: bool,
}

/// A lock that survives a panic elsewhere: the data is plain and readable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running pump. Dropping it stops it.
pub struct Pump<N: FrameNode + Send + 'static> {
    shared: Arc<Shared<N>>,
    thread: Option<JoinHandle<Option<Parts>>>,
    tap_name: String,
}

/// What [`Pump::stop`] gives back.
pub struct Stopped<N> {
    pub node: N,
    pub tap: Tap,
    pub stats: PumpStats,
    pub log: Vec<LoggedFrame>,
}

impl<N: FrameNode + Send + 'static> Pump<N> {
    /// Starts moving frames between `tap` and `node`. The node's clock
    /// starts at 0 now.
    pub fn start(tap: Tap, node: N, opts: PumpOptions) -> Result<Self, HarnessError> {
        if opts.clock_hz == 0 {
            return Err(HarnessError::invalid("clock_hz", "0 is outside 1..=u64::MAX"));
        }
        let f = opts.faults;
        for (field, p) in [
            ("faults.loss", f.loss),
            ("faults.reorder", f.reorder),
            ("faults.duplicate", f.duplicate),
            ("faults.corrupt", f.corrupt),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(HarnessError::invalid(field, format!("{p} is outside 0.0 ..= 1.0")));
            }
        }
        let shared = Arc::new(Shared {
            node: Mutex::new(node),
            log: Mutex::new(Vec::new()),
            inject: Mutex::new(VecDeque::new()),
            stats: Mutex::new(PumpStats::default()),
            stop: AtomicBool::new(false),
            failed: Mutex::new(None),
            clock: Clock::new(opts.clock_hz),
            keep_log: opts.keep_log,
        });
        let tap_name = tap.name().to_string();
        let s = Arc::clone(&shared);
        let idle_wait = opts.idle_wait;
        let pcap = opts.pcap;
        let faults = opts.faults;
        let thread = std::thread::Builder::new()
            .name(format!("pump-{tap_name}"))
            .spawn(move || {
                // A panic (in the node, most likely) is kept as the pump's
                // failure, so waiters report it instead of timing out.
                let ran =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&s, tap, pcap, idle_wait, faults)));
                ran.map_err(|p| fail(&s, panic_text(&*p))).ok()
            })
            .map_err(|e| HarnessError::io("cannot start the pump thread", e))?;
        Ok(Pump { shared, thread: Some(thread), tap_name })
    }

    /// The TAP's name.
    pub fn tap_name(&self) -> &str {
        &self.tap_name
    }

    /// The node's clock now.
    pub fn now(&self) -> u64 {
        self.shared.clock.now()
    }

    /// Runs `f` on the node (with the clock's `now`) between two frames.
    pub fn with_node<R>(&self, f: impl FnOnce(&mut N, u64) -> R) -> R {
        let mut node = lock(&self.shared.node);
        f(&mut node, self.shared.clock.now())
    }

    /// Hands `frame` to the node as the MAC would, below the padding: a
    /// frame shorter than 60 bytes stays short (runts).
    pub fn inject(&self, frame: Vec<u8>) {
        lock(&self.shared.inject).push_back(frame);
    }

    /// A copy of the log from entry `from` on (empty if the log is off).
    pub fn frames_from(&self, from: usize) -> Vec<LoggedFrame> {
        let log = lock(&self.shared.log);
        log.get(from..).map(<[LoggedFrame]>::to_vec).unwrap_or_default()
    }

    /// A copy of the whole log.
    pub fn frames(&self) -> Vec<LoggedFrame> {
        self.frames_from(0)
    }

    /// Entries in the log.
    pub fn frame_count(&self) -> usize {
        lock(&self.shared.log).len()
    }

    /// The pump's counts so far.
    pub fn stats(&self) -> PumpStats {
        lock(&self.shared.stats).clone()
    }

    /// Why the pump stopped on its own, if it did.
    pub fn failure(&self) -> Option<String> {
        lock(&self.shared.failed).clone()
    }

    /// Waits at most `timeout` until `cond` holds for the log; the error
    /// names `what`, or the pump's failure.
    pub fn wait_until(
        &self,
        timeout: Duration,
        what: &str,
        mut cond: impl FnMut(&[LoggedFrame]) -> bool,
    ) -> Result<(), HarnessError> {
        let deadline = Instant::now() + timeout;
        loop {
            if cond(&lock(&self.shared.log)) {
                return Ok(());
            }
            if let Some(why) = self.failure() {
                return Err(HarnessError::PumpFailed(why));
            }
            if Instant::now() >= deadline {
                return Err(HarnessError::Timeout { what: what.to_string(), after: timeout });
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Stops the thread (within one idle wait and one burst), flushes the
    /// pcap and gives back the node, the TAP, the counts and the log.
    pub fn stop(mut self) -> Result<Stopped<N>, HarnessError> {
        let halted = self.halt();
        let shared = Arc::clone(&self.shared);
        drop(self); // the thread is joined, so this leaves `shared` the only owner
        let (tap, pcap) = halted?;
        if let Some(mut pcap) = pcap {
            pcap.flush().map_err(|e| HarnessError::io(format!("pcap file {}", pcap.path().display()), e))?;
        }
        let shared =
            Arc::try_unwrap(shared).map_err(|_| HarnessError::PumpFailed("the pump's state is still shared".into()))?;
        if let Some(why) = shared.failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(HarnessError::PumpFailed(why));
        }
        let node = shared.node.into_inner().unwrap_or_else(|p| p.into_inner());
        let stats = shared.stats.into_inner().unwrap_or_else(|p| p.into_inner());
        let log = shared.log.into_inner().unwrap_or_else(|p| p.into_inner());
        Ok(Stopped { node, tap, stats, log })
    }

    fn halt(&mut self) -> Result<Parts, HarnessError> {
        self.shared.stop.store(true, Ordering::SeqCst);
        let Some(thread) = self.thread.take() else {
            return Err(HarnessError::PumpFailed("already stopped".into()));
        };
        match thread.join() {
            Ok(Some(parts)) => Ok(parts),
            _ => Err(HarnessError::PumpFailed(self.failure().unwrap_or_else(|| "the pump thread panicked".into()))),
        }
    }
}

impl<N: FrameNode + Send + 'static> Drop for Pump<N> {
    fn drop(&mut self) {
        if self.thread.is_some() {
            if let Ok((_, Some(mut pcap))) = self.halt() {
                let _ = pcap.flush();
            }
        }
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    let msg = p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned());
    match msg {
        Some(m) => format!("the pump thread panicked (the node?): {m}"),
        None => "the pump thread panicked (the node?)".into(),
    }
}

/// The pump thread: rounds of injected frames, kernel frames, node frames,
/// and a bounded wait when a round moved nothing.
fn run<N: FrameNode>(
    s: &Shared<N>,
    tap: Tap,
    mut pcap: Option<PcapWriter>,
    idle_wait: Duration,
    faults: Faults,
) -> Parts {
    let mut buf = vec![0u8; READ_BUFFER];
    let mut unflushed = false;
    let mut faulty = faults.any().then(|| FaultState { rng: ChaCha8Rng::seed_from_u64(faults.seed), held: None });
    while !s.stop.load(Ordering::SeqCst) {
        let mut moved = false;

        // After every frame in, the node's answers go out before the next
        // frame comes in: the MAC drains the transmit buffer at the line
        // rate the requests arrive at, so a burst the kernel queued at once
        // does not overflow a transmit buffer sized for two frames.
        let injected: Vec<Vec<u8>> = lock(&s.inject).drain(..).collect();
        for frame in injected {
            moved = true;
            lock(&s.stats).injected += 1;
            let len = frame.len();
            deliver(s, &mut pcap, &frame, len, true);
            drain(s, &tap, &mut pcap);
        }

        for _ in 0..BURST {
            match tap.read_frame(&mut buf) {
                Ok(Some(n)) => {
                    moved = true;
                    let mut frame = buf[..n].to_vec();
                    {
                        let mut st = lock(&s.stats);
                        st.from_kernel += 1;
                        if n < MIN_FRAME {
                            st.padded += 1;
                        }
                    }
                    if frame.len() < MIN_FRAME {
                        frame.resize(MIN_FRAME, 0);
                    }
                    match faulty.as_mut() {
                        None => {
                            deliver(s, &mut pcap, &frame, n, false);
                            drain(s, &tap, &mut pcap);
                        }
                        Some(f) => {
                            for (frame, n) in f.apply(&faults, s, frame, n) {
                                deliver(s, &mut pcap, &frame, n, false);
                                drain(s, &tap, &mut pcap);
                            }
                        }
                    }
                }
                Ok(None) => break,
                Err(e) => {
                    fail(s, format!("reading {}: {e}", tap.name()));
                    return (tap, pcap);
                }
            }
        }

        // A frame held back for reordering goes once nothing came after it.
        if !moved {
            if let Some((frame, n)) = faulty.as_mut().and_then(|f| f.held.take()) {
                moved = true;
                deliver(s, &mut pcap, &frame, n, false);
            }
        }

        // Frames due by time alone (client-mode ARP requests, TCP timers).
        moved |= drain(s, &tap, &mut pcap);

        if moved {
            unflushed = pcap.is_some();
        } else {
            if unflushed {
                if let Some(p) = pcap.as_mut() {
                    if let Err(e) = p.flush() {
                        pcap_error(s, &e);
                    }
                }
                unflushed = false;
            }
            if let Err(e) = tap.wait_readable(idle_wait) {
                fail(s, format!("waiting for {}: {e}", tap.name()));
                return (tap, pcap);
            }
        }
    }
    (tap, pcap)
}

/// The seeded fault generator and the frame it holds back.
struct FaultState {
    rng: ChaCha8Rng,
    held: Option<(Vec<u8>, usize)>,
}

impl FaultState {
    /// What becomes of one frame from the kernel (`n` bytes before
    /// padding): the frames to deliver now, in order.
    fn apply<N>(&mut self, f: &Faults, s: &Shared<N>, mut frame: Vec<u8>, n: usize) -> Vec<(Vec<u8>, usize)> {
        let mut out = Vec::new();
        if self.rng.gen_bool(f.loss) {
            lock(&s.stats).lost += 1;
            return out;
        }
        if self.rng.gen_bool(f.corrupt) {
            let at = self.rng.gen_range(0..n.max(1));
            frame[at] ^= 1 << self.rng.gen_range(0..8);
            lock(&s.stats).corrupted += 1;
        }
        let copies = if self.rng.gen_bool(f.duplicate) {
            lock(&s.stats).duplicated += 1;
            2
        } else {
            1
        };
        if self.held.is_none() && self.rng.gen_bool(f.reorder) {
            lock(&s.stats).reordered += 1;
            self.held = Some((frame.clone(), n));
            for _ in 1..copies {
                out.push((frame.clone(), n));
            }
            return out;
        }
        for _ in 0..copies {
            out.push((frame.clone(), n));
        }
        out.extend(self.held.take());
        out
    }
}

/// Moves the node's frames to the TAP, at most a burst; `true` if any went.
fn drain<N: FrameNode>(s: &Shared<N>, tap: &Tap, pcap: &mut Option<PcapWriter>) -> bool {
    let mut moved = false;
    for _ in 0..BURST {
        let now = s.clock.now();
        let Some(frame) = lock(&s.node).transmit(now) else { break };
        moved = true;
        // Logged before the kernel has it: whoever sees the kernel react
        // finds the frame in the log already.
        let len = frame.len();
        record(s, pcap, Direction::FromNode, false, &frame, len, SystemTime::now(), now);
        let written = tap.write_frame(&frame, WRITE_WAIT);
        let mut st = lock(&s.stats);
        match written {
            Ok(()) => st.to_kernel += 1,
            Err(e) => {
                st.tap_write_errors += 1;
                st.last_error = Some(format!("writing a {len}-byte frame to {}: {e}", tap.name()));
            }
        }
    }
    moved
}

fn deliver<N: FrameNode>(s: &Shared<N>, pcap: &mut Option<PcapWriter>, frame: &[u8], len: usize, injected: bool) {
    let now = s.clock.now();
    record(s, pcap, Direction::ToNode, injected, frame, len, SystemTime::now(), now);
    lock(&s.node).receive(frame, now);
}

#[allow(clippy::too_many_arguments)]
fn record<N>(
    s: &Shared<N>,
    pcap: &mut Option<PcapWriter>,
    direction: Direction,
    injected: bool,
    frame: &[u8],
    original_len: usize,
    at: SystemTime,
    now: u64,
) {
    if let Some(p) = pcap.as_mut() {
        if let Err(e) = p.write_frame(at, frame) {
            pcap_error(s, &e);
        }
    }
    if s.keep_log {
        lock(&s.log).push(LoggedFrame { direction, injected, bytes: frame.to_vec(), original_len, at, now });
    }
}

fn pcap_error<N>(s: &Shared<N>, e: &std::io::Error) {
    let mut st = lock(&s.stats);
    st.pcap_errors += 1;
    st.last_error = Some(format!("pcap: {e}"));
}

fn fail<N>(s: &Shared<N>, why: String) {
    *lock(&s.failed) = Some(why);
}
