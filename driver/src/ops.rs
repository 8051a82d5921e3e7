//! The register operations, in the demo's terms, over any [`RegisterBus`]:
//! a board inside a simulation (`board_sim::boards::BoardBus`), a virtual or
//! real board over Etherbone ([`etherbone::Client`]), a PCIe BAR or the XDMA
//! user device (the console's `backend`).
//!
//! Every address and field comes from the typed accessors of the register
//! map ([`crate::regs`]). A design with fewer sessions has its session blocks
//! at the same addresses (the map places block s at BASE + s * STRIDE), so
//! the default design's accessors serve every design of up to 4 sessions.
//! Every operation returns an [`OpError`] naming the register and the bus's
//! error instead of panicking.

use std::fmt;

use etherbone::{BusError, RegisterBus};

use crate::regs;

/// A failed operation: what was being done and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpError(pub String);

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpError {}

pub type Result<T> = std::result::Result<T, OpError>;

/// Reads `reg`, naming it in the error.
pub fn read(bus: &mut (impl RegisterBus + ?Sized), reg: regs::Register) -> Result<u32> {
    bus.read32(reg.addr).map_err(|e| access_error("reading", reg, e))
}

/// Writes `reg`, naming it in the error.
pub fn write(bus: &mut (impl RegisterBus + ?Sized), reg: regs::Register, value: u32) -> Result<()> {
    bus.write32(reg.addr, value).map_err(|e| access_error("writing", reg, e))
}

fn access_error(what: &str, reg: regs::Register, e: BusError) -> OpError {
    let name = register_name(reg);
    OpError(format!("{what} register {name} at {:#06x}: {e}", reg.addr))
}

/// `session2.status`, `toe.toe_config`: the name a person reads in
/// `REGISTERS.md` (LiteX's csr.csv writes it `session2_status`).
pub fn register_name(reg: regs::Register) -> String {
    match reg.id.strip_prefix("session.") {
        Some(rest) => format!("session{}.{rest}", reg.instance),
        None => reg.id.to_string(),
    }
}

fn session(s: usize) -> Result<regs::Session> {
    regs::session(s).ok_or_else(|| {
        OpError(format!("session {s} does not exist: the register map has {} sessions", regs::session::COUNT))
    })
}

/// What the demo's console asks per session (sections 3.3, 3.4, 4.3, 4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Send,
    Receive,
    FullDuplex,
}

/// One session's test parameters, in the console's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionTest {
    pub mode: Mode,
    pub transfer_size: u64,
    pub packet_size: u64,
    pub verify: bool,
    /// Max speed, % of the design's peak (32,000 MB/s by default), per direction.
    pub tx_percent: u8,
    pub rx_percent: u8,
    /// Client (active open) or server (passive open).
    pub client: bool,
    /// Incremental pattern (true) or dummy data.
    pub incremental: bool,
    /// No size (`test_config.open_ended`): send until [`stop`] or
    /// `duration`, receive until the peer closes.
    pub open_ended: bool,
    /// User-clock cycles from `established` after which the send stops; 0: no limit.
    pub duration: u64,
    /// Bytes of the shared TX prefix ([`write_tx_prefix`]) the send begins
    /// with, in place of the stream's first bytes; 0..=64.
    pub prefix_length: u8,
    /// The send is the prefix alone (`test_config.prefix_only`).
    pub prefix_only: bool,
}

impl SessionTest {
    pub fn new(mode: Mode, transfer_size: u64, client: bool) -> Self {
        SessionTest {
            mode,
            transfer_size,
            packet_size: 8192,
            verify: true,
            tx_percent: 100,
            rx_percent: 100,
            client,
            incremental: true,
            open_ended: false,
            duration: 0,
            prefix_length: 0,
            prefix_only: false,
        }
    }
}

/// What the console reads back for a session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionResult {
    pub busy: bool,
    pub connected: bool,
    pub done: bool,
    pub error: bool,
    pub closed: bool,
    /// `status.sent`: this test's send has ended.
    pub sent: bool,
    pub error_cause: u32,
    pub tx_bytes: u64,
    pub rx_bytes: u64,
    pub elapsed: u64,
    pub err_count: u32,
    pub err_offset: u64,
    /// The first-error record's expected and received 32-bit words.
    pub err_expected: u32,
    pub err_received: u32,
    pub peer_port: u32,
    pub peer_mss: u32,
    pub peer_window_scale: u32,
}

impl SessionResult {
    /// MB/s as the console computes it: bytes * f_MHz / cycles.
    pub fn mb_s(&self, bytes: u64, user_clock_khz: u32) -> f64 {
        if self.elapsed == 0 {
            0.0
        } else {
            bytes as f64 * f64::from(user_clock_khz) / 1000.0 / self.elapsed as f64
        }
    }

    /// The error cause's name (`refused`, `verify`, ...).
    pub fn cause_name(&self) -> &'static str {
        regs::session::status::ErrorCause::from_bits(self.error_cause).map_or("unknown", |c| c.name())
    }
}

/// Reads a wide value: `_lo` first (it latches `_hi`), then `_hi`.
pub fn read_wide(bus: &mut (impl RegisterBus + ?Sized), wide: regs::Wide) -> Result<u64> {
    let lo = read(bus, wide.lo)?;
    let hi = read(bus, wide.hi)?;
    Ok(wide.join(lo, hi))
}

/// Writes a wide value: `_lo`, then `_hi`; `Err` when it does not fit.
pub fn write_wide(bus: &mut (impl RegisterBus + ?Sized), wide: regs::Wide, value: u64) -> Result<()> {
    let (lo, hi) = wide
        .split(value)
        .ok_or_else(|| OpError(format!("{value:#x} does not fit the {} bits of {}", wide.width, wide.id)))?;
    write(bus, wide.lo, lo)?;
    write(bus, wide.hi, hi)
}

/// The `id` register holds the map's magic and `info.sessions` the
/// session count: `Err` says which does not match.
pub fn check_identity(bus: &mut (impl RegisterBus + ?Sized), sessions: usize) -> Result<()> {
    let id = read(bus, regs::info::ID)?;
    if id != regs::ID_MAGIC {
        return Err(OpError(format!(
            "id register reads {id:#010x}, expected {:#010x}: not a TOE user-logic register file",
            regs::ID_MAGIC
        )));
    }
    let n = regs::info::sessions::COUNT.get(read(bus, regs::info::SESSIONS)?) as usize;
    if n != sessions {
        return Err(OpError(format!("info.sessions reads {n}, expected {sessions}")));
    }
    Ok(())
}

fn field(what: &str, f: regs::Field, word: u32, value: u32) -> Result<u32> {
    f.set(word, value)
        .ok_or_else(|| OpError(format!("{what} {value} is out of range: must be in {}..={}", f.min, f.max)))
}

/// TOE parameters: window update gap (1 KB units) and last packet mode, then
/// `toe_ctrl.init`; polls `init_done` up to `polls` times, calling `wait`
/// between polls. `Ok(true)` when the TOE reported it initialised.
pub fn init_toe<R: RegisterBus>(
    bus: &mut R,
    window_update_gap: u32,
    last_packet_mode: u32,
    polls: u32,
    mut wait: impl FnMut(&mut R),
) -> Result<bool> {
    use regs::toe::toe_config as c;
    let mut word = read(bus, regs::toe::TOE_CONFIG)?;
    word = field("window update gap", c::WINDOW_UPDATE_GAP, word, window_update_gap)?;
    word = field("last packet mode", c::LAST_PACKET_MODE, word, last_packet_mode)?;
    write(bus, regs::toe::TOE_CONFIG, word)?;
    start_init(bus)?;
    for _ in 0..polls {
        wait(bus);
        if init_done(bus)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Writes `toe_ctrl.init`: the TOE resets and initialises with the parameters in the registers.
pub fn start_init(bus: &mut (impl RegisterBus + ?Sized)) -> Result<()> {
    write(bus, regs::toe::TOE_CTRL, regs::toe::toe_ctrl::INIT.word(1).expect("1 is a valid init"))
}

/// `toe_status.init_done`.
pub fn init_done(bus: &mut (impl RegisterBus + ?Sized)) -> Result<bool> {
    Ok(regs::toe::toe_status::INIT_DONE.get(read(bus, regs::toe::TOE_STATUS)?) == 1)
}

/// Programs session `s` (does not start it).
pub fn program(bus: &mut (impl RegisterBus + ?Sized), s: usize, t: &SessionTest) -> Result<()> {
    use regs::session::{speed, test_config};
    let r = session(s)?;
    let mode = match t.mode {
        Mode::Send => test_config::TestMode::Send,
        Mode::Receive => test_config::TestMode::Receive,
        Mode::FullDuplex => test_config::TestMode::FullDuplex,
    };
    let mut cfg = field("test mode", test_config::TEST_MODE, 0, mode.bits())?;
    cfg = field("verification", test_config::VERIFY, cfg, u32::from(t.verify))?;
    let pattern = if t.incremental { test_config::TxPattern::Incremental } else { test_config::TxPattern::Dummy };
    cfg = field("TX pattern", test_config::TX_PATTERN, cfg, pattern.bits())?;
    let conn = if t.client { test_config::ConnMode::Active } else { test_config::ConnMode::Passive };
    cfg = field("connection mode", test_config::CONN_MODE, cfg, conn.bits())?;
    cfg = field("open-ended", test_config::OPEN_ENDED, cfg, u32::from(t.open_ended))?;
    cfg = field("TX prefix length", test_config::PREFIX_LENGTH, cfg, u32::from(t.prefix_length))?;
    cfg = field("TX prefix only", test_config::PREFIX_ONLY, cfg, u32::from(t.prefix_only))?;
    let sp = field("TX max speed (%)", speed::TX_PERCENT, 0, u32::from(t.tx_percent))?;
    let sp = field("RX max speed (%)", speed::RX_PERCENT, sp, u32::from(t.rx_percent))?;
    write(bus, r.test_config(), cfg)?;
    write(bus, r.speed(), sp)?;
    write_wide(bus, r.transfer_size(), t.transfer_size)?;
    write_wide(bus, r.packet_size(), t.packet_size)?;
    write_wide(bus, r.duration(), t.duration)
}

/// One session's latency test (issue 29): the initiator's round trips or
/// the echo that answers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LatencyTest {
    /// Initiator (sends requests and measures) or echo (answers).
    pub initiator: bool,
    /// Request and response sizes in bytes, 1..=65,535.
    pub request_size: u32,
    pub response_size: u32,
    /// Requests the initiator sends, 1..=2^32-1 (the echo ignores it).
    pub request_count: u32,
    /// Requests unanswered at most, 1..=16.
    pub outstanding: u32,
    /// Client (active open) or server (passive open).
    pub client: bool,
    /// Check received data against the pattern.
    pub verify: bool,
    /// Max speed, % of the design's peak, per direction.
    pub tx_percent: u8,
    pub rx_percent: u8,
}

impl LatencyTest {
    pub fn new(initiator: bool, request_size: u32, response_size: u32, request_count: u32, client: bool) -> Self {
        LatencyTest {
            initiator,
            request_size,
            response_size,
            request_count,
            outstanding: 1,
            client,
            verify: true,
            tx_percent: 100,
            rx_percent: 100,
        }
    }
}

/// Programs session `s` for a latency test (does not start it).
pub fn program_latency(bus: &mut (impl RegisterBus + ?Sized), s: usize, t: &LatencyTest) -> Result<()> {
    use regs::session::{latency_sizes, request_count, speed, test_config};
    let r = session(s)?;
    let mode = if t.initiator { test_config::TestMode::Latency } else { test_config::TestMode::Echo };
    let mut cfg = field("test mode", test_config::TEST_MODE, 0, mode.bits())?;
    cfg = field("verification", test_config::VERIFY, cfg, u32::from(t.verify))?;
    let conn = if t.client { test_config::ConnMode::Active } else { test_config::ConnMode::Passive };
    cfg = field("connection mode", test_config::CONN_MODE, cfg, conn.bits())?;
    cfg = field("requests in flight", test_config::OUTSTANDING, cfg, t.outstanding)?;
    let sizes = field("request size", latency_sizes::REQUEST, 0, t.request_size)?;
    let sizes = field("response size", latency_sizes::RESPONSE, sizes, t.response_size)?;
    let count = field("request count", request_count::COUNT, 0, t.request_count)?;
    let sp = field("TX max speed (%)", speed::TX_PERCENT, 0, u32::from(t.tx_percent))?;
    let sp = field("RX max speed (%)", speed::RX_PERCENT, sp, u32::from(t.rx_percent))?;
    write(bus, r.test_config(), cfg)?;
    write(bus, r.speed(), sp)?;
    write(bus, r.latency_sizes(), sizes)?;
    write(bus, r.request_count(), count)
}

/// A session's round-trip results, as of its last snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LatencyResult {
    /// Round trips measured, and their moments in user-clock cycles.
    pub count: u32,
    pub min: u32,
    pub max: u32,
    pub last: u32,
    pub sum: u64,
    pub sum_sq: u128,
    pub jitter_sum: u64,
    /// Messages sent, received, owed (the echo's backlog).
    pub sent: u32,
    pub received: u32,
    pub owed: u32,
    pub in_flight: u32,
    /// A round trip could not be measured.
    pub fault: bool,
}

/// Session `s`'s round-trip results: a snapshot (`ctrl.snapshot`), then
/// the registers it filled, so they are one consistent set.
pub fn latency_result(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<LatencyResult> {
    use regs::session::{ctrl, latency_status};
    let r = session(s)?;
    write(bus, r.ctrl(), ctrl::SNAPSHOT.word(1).expect("1 is a valid snapshot"))?;
    let status = read(bus, r.latency_status())?;
    let sum_sq = [r.rtt_sum_sq_0(), r.rtt_sum_sq_1(), r.rtt_sum_sq_2()]
        .into_iter()
        .enumerate()
        .try_fold(0u128, |acc, (k, reg)| Ok::<u128, OpError>(acc | u128::from(read(bus, reg)?) << (32 * k)))?;
    Ok(LatencyResult {
        count: read(bus, r.rtt_count())?,
        min: read(bus, r.rtt_min())?,
        max: read(bus, r.rtt_max())?,
        last: read(bus, r.rtt_last())?,
        sum: read_wide(bus, r.rtt_sum())?,
        sum_sq,
        jitter_sum: read_wide(bus, r.rtt_jitter_sum())?,
        sent: read(bus, r.msg_sent())?,
        received: read(bus, r.msg_received())?,
        owed: read(bus, r.msg_owed())?,
        in_flight: latency_status::IN_FLIGHT.get(status),
        fault: latency_status::FAULT.get(status) == 1,
    })
}

/// Session `s`'s round-trip histogram: every bucket's count, bucket 0 first
/// (`crate latency`'s buckets; round trips in user-clock cycles).
pub fn latency_histogram(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<Vec<u32>> {
    use regs::session::hist_index;
    let r = session(s)?;
    let buckets = hist_index::BUCKET.max + 1;
    let mut counts = Vec::with_capacity(buckets as usize);
    for b in 0..buckets {
        write(bus, r.hist_index(), field("histogram bucket", hist_index::BUCKET, 0, b)?)?;
        counts.push(read(bus, r.hist_count())?);
    }
    Ok(counts)
}

/// The `tx_prefix` bank's registers, word 0 first.
fn tx_prefix_words() -> Vec<regs::Register> {
    let mut words: Vec<regs::Register> = regs::ALL.iter().copied().filter(|r| r.id.starts_with("tx_prefix.")).collect();
    words.sort_by_key(|r| r.addr);
    words
}

/// Writes `bytes` to the start of the shared TX prefix bank (the rest
/// becomes zeros); each session sends its `prefix_length` first bytes. The
/// bank is write-only: software keeps its own copy.
pub fn write_tx_prefix(bus: &mut (impl RegisterBus + ?Sized), bytes: &[u8]) -> Result<()> {
    let words = tx_prefix_words();
    if bytes.len() > 4 * words.len() {
        return Err(OpError(format!(
            "a TX prefix of {} bytes does not fit: the bank holds 0..={} bytes",
            bytes.len(),
            4 * words.len()
        )));
    }
    for (k, reg) in words.into_iter().enumerate() {
        let mut word = [0u8; 4];
        for (i, b) in word.iter_mut().enumerate() {
            *b = bytes.get(4 * k + i).copied().unwrap_or(0);
        }
        write(bus, reg, u32::from_le_bytes(word))?;
    }
    Ok(())
}

/// Sets session `s`'s ports: the board listens on / connects from
/// `fpga_port` and connects to `target_port`.
pub fn ports(bus: &mut (impl RegisterBus + ?Sized), s: usize, fpga_port: u16, target_port: u16) -> Result<()> {
    let r = session(s)?;
    write(bus, r.fpga_port(), u32::from(fpga_port))?;
    write(bus, r.target_port(), u32::from(target_port))
}

/// Session `s`'s FPGA and target ports.
pub fn read_ports(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<(u16, u16)> {
    use regs::session::{fpga_port, target_port};
    let r = session(s)?;
    let f = fpga_port::PORT.get(read(bus, r.fpga_port())?) as u16;
    let t = target_port::PORT.get(read(bus, r.target_port())?) as u16;
    Ok((f, t))
}

/// Session `s`'s watchdog (`stall_timeout`), ms.
pub fn read_stall_timeout(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<u32> {
    Ok(regs::session::stall_timeout::MS.get(read(bus, session(s)?.stall_timeout())?))
}

/// Sets session `s`'s watchdog (`stall_timeout`, taken at the next start), ms, 0..=65535.
pub fn stall_timeout(bus: &mut (impl RegisterBus + ?Sized), s: usize, ms: u32) -> Result<()> {
    let f = regs::session::stall_timeout::MS;
    let word =
        f.set(0, ms).ok_or_else(|| OpError(format!("stall timeout {ms} ms is out of range {}..={}", f.min, f.max)))?;
    write(bus, session(s)?.stall_timeout(), word)
}

/// Session `s`'s claim (`claim.owner`): 0 when free, else the tag of the
/// software that holds it.
pub fn claim_owner(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<u32> {
    Ok(regs::session::claim::OWNER.get(read(bus, session(s)?.claim())?))
}

/// Claims session `s` for `tag` (nonzero): writes it to `claim.owner` and
/// reads it back. The register file takes the write only while the claim
/// is free, so of several masters writing at once exactly one reads its own
/// tag. `Ok(Ok(()))` when `tag` holds the session (also when it already
/// did), `Ok(Err(owner))` with the holder's tag when another does.
pub fn claim(bus: &mut (impl RegisterBus + ?Sized), s: usize, tag: u32) -> Result<std::result::Result<(), u32>> {
    if tag == 0 {
        return Err(OpError("a claim tag must not be 0 (0 frees the claim)".into()));
    }
    write(bus, session(s)?.claim(), tag)?;
    let owner = claim_owner(bus, s)?;
    Ok(if owner == tag { Ok(()) } else { Err(owner) })
}

/// Frees session `s`'s claim, whoever holds it (writes 0 to `claim.owner`).
pub fn free_claim(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<()> {
    write(bus, session(s)?.claim(), 0)
}

/// Clears `done`/`error` of session `s` and starts it.
pub fn start(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<()> {
    start_all(bus, &[s])
}

/// Starts `sessions` as close together as the bus allows: every sticky
/// `done`/`error` is cleared first, then the `ctrl.start` writes follow,
/// all of them sent at once (`RegisterBus::write32_all`: over Etherbone one
/// TCP write), so sessions that share the link begin within a few bus
/// writes of each other, not a network round trip apart each: a session
/// that starts first has the link to itself until the next one starts, and
/// its rate shows it.
pub fn start_all(bus: &mut (impl RegisterBus + ?Sized), sessions: &[usize]) -> Result<()> {
    use regs::session::{ctrl, status};
    let clear = status::DONE.word(1).expect("1 bit") | status::ERROR.word(1).expect("1 bit");
    let start = ctrl::START.word(1).expect("1 bit");
    let mut writes = Vec::with_capacity(2 * sessions.len());
    for &s in sessions {
        writes.push((session(s)?.status(), clear));
    }
    for &s in sessions {
        writes.push((session(s)?.ctrl(), start));
    }
    let words: Vec<(u32, u32)> = writes.iter().map(|(r, v)| (r.addr, *v)).collect();
    bus.write32_all(&words).map_err(|e| {
        let failed = match &e {
            BusError::Response { addr, .. } => writes.iter().find(|(r, _)| r.addr == *addr).map(|w| w.0),
            _ => None,
        };
        match failed {
            Some(reg) => access_error("writing", reg, e),
            None => OpError(format!("starting session(s) {sessions:?}: {e}")),
        }
    })
}

/// Writes `ctrl.abort` of session `s`.
pub fn abort(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<()> {
    let r = session(s)?;
    write(bus, r.ctrl(), regs::session::ctrl::ABORT.word(1).expect("1 bit"))
}

/// Writes `ctrl.stop` of session `s`: its send ends gracefully and the
/// test ends `done`.
pub fn stop(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<()> {
    let r = session(s)?;
    write(bus, r.ctrl(), regs::session::ctrl::STOP.word(1).expect("1 bit"))
}

/// `status.busy` of session `s`.
pub fn busy(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<bool> {
    let r = session(s)?;
    Ok(regs::session::status::BUSY.get(read(bus, r.status())?) == 1)
}

/// Session `s`'s byte counters and the `elapsed` they go with, as
/// `(elapsed, tx_bytes, rx_bytes)`. The counters have no common snapshot
/// and the board runs on between register reads, so `elapsed` is read
/// just before and just after the two counters and the mean taken: the
/// counters were read in between.
pub fn counters(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<(u64, u64, u64)> {
    let r = session(s)?;
    let before = read_wide(bus, r.elapsed())?;
    let tx = read_wide(bus, r.tx_bytes())?;
    let rx = read_wide(bus, r.rx_bytes())?;
    let after = read_wide(bus, r.elapsed())?;
    Ok((before + after.saturating_sub(before) / 2, tx, rx))
}

/// Reads session `s`'s status, counters and peer information.
pub fn result(bus: &mut (impl RegisterBus + ?Sized), s: usize) -> Result<SessionResult> {
    use regs::session::status;
    let r = session(s)?;
    let st = read(bus, r.status())?;
    Ok(SessionResult {
        busy: status::BUSY.get(st) == 1,
        connected: status::CONNECTED.get(st) == 1,
        done: status::DONE.get(st) == 1,
        error: status::ERROR.get(st) == 1,
        closed: status::CLOSED.get(st) == 1,
        sent: status::SENT.get(st) == 1,
        error_cause: status::ERROR_CAUSE.get(st),
        tx_bytes: read_wide(bus, r.tx_bytes())?,
        rx_bytes: read_wide(bus, r.rx_bytes())?,
        elapsed: read_wide(bus, r.elapsed())?,
        err_count: read(bus, r.err_count())?,
        err_offset: read_wide(bus, r.err_offset())?,
        err_expected: read(bus, r.err_expected())?,
        err_received: read(bus, r.err_received())?,
        peer_port: read(bus, r.peer_port())?,
        peer_mss: read(bus, r.peer_mss())?,
        peer_window_scale: read(bus, r.peer_window_scale())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bus that records every write, and the sizes of the batches given
    /// to `write32_all`.
    #[derive(Default)]
    struct Recorder(Vec<(u32, u32)>, Vec<usize>);

    impl RegisterBus for Recorder {
        fn read32(&mut self, _addr: u32) -> std::result::Result<u32, BusError> {
            Ok(0)
        }
        fn write32(&mut self, addr: u32, value: u32) -> std::result::Result<(), BusError> {
            self.0.push((addr, value));
            Ok(())
        }
        fn write32_all(&mut self, writes: &[(u32, u32)]) -> std::result::Result<(), BusError> {
            self.1.push(writes.len());
            self.0.extend_from_slice(writes);
            Ok(())
        }
    }

    #[test]
    fn start_all_clears_every_session_before_the_first_start() {
        let mut bus = Recorder::default();
        start_all(&mut bus, &[0, 1, 2]).unwrap();
        let ctrl: Vec<u32> = (0..3).map(|s| session(s).unwrap().ctrl().addr).collect();
        let status: Vec<u32> = (0..3).map(|s| session(s).unwrap().status().addr).collect();
        let addrs: Vec<u32> = bus.0.iter().map(|w| w.0).collect();
        assert_eq!(addrs, [status, ctrl.clone()].concat(), "the three starts follow each other");
        assert_eq!(bus.1, [6], "one batch: no round trip between the starts");
        let start = regs::session::ctrl::START.word(1).unwrap();
        assert!(bus.0[3..].iter().all(|&(_, v)| v == start));
    }

    #[test]
    fn the_tx_prefix_fills_the_bank_little_endian_and_a_longer_one_is_refused() {
        let mut bus = Recorder::default();
        let cookie: Vec<u8> = (1..=37).collect();
        write_tx_prefix(&mut bus, &cookie).unwrap();
        assert_eq!(bus.0.len(), 16, "every word of the bank is written");
        assert_eq!(bus.0[0], (regs::tx_prefix::TX_PREFIX_0.addr, 0x0403_0201));
        assert_eq!(bus.0[9], (regs::tx_prefix::TX_PREFIX_9.addr, 0x0000_0025), "byte 36 and zeros after it");
        assert!(bus.0.windows(2).all(|w| w[1].0 == w[0].0 + 4));
        let mut bus = Recorder::default();
        let e = write_tx_prefix(&mut bus, &[0; 65]).unwrap_err();
        assert!(e.0.contains("65 bytes") && e.0.contains("0..=64"), "{e}");
        assert!(bus.0.is_empty(), "nothing is written");
    }
}
