//! The TCP engine, part 2: connections (RFC 9293) and the receive path, the
//! side of `docs/toe_interface.md` a receiving session sees. The data send
//! path with retransmission is part 3; this engine sends control segments
//! and pure ACKs only.
//!
//! # Where it sits
//!
//! TCP (protocol 6) to fpga_ip comes here after the node's IPv4 checks
//! ([`crate::NetNode`] with [`crate::NodeConfig::tcp`] set); the engine's
//! segments go into the node's transmit buffer, to the target's MAC.
//!
//! ```text
//!  IPv4 payload, protocol 6
//!   |  truncated (< 20, data offset < 5 or past the end) -> checksum (pseudo-header)
//!   |  -> not_from_target (source is not target_ip)                 engine counters
//!   v
//!  demultiplex: the session whose connection has these ports; else, for a
//!  SYN, the lowest session listening on the port; else no_connection: an RST
//!  answers (RFC 9293 3.10.7.1) unless the segment is an RST
//!   |
//!   v
//!  the session's state machine (RFC 9293 3.10.7, below)      session counters
//!   |  data in order -> receive buffer -> rx stream (read_rx / rx_beat)
//!   |  out of order -> an island (up to `islands` runs), or dropped; ACK at once
//!   |  duplicate, outside the window -> dropped, ACK at once
//!   v
//!  pending segments per session (SYN, SYN-ACK, FIN, ACK, window update)
//!  and a queue of RSTs, sent as the transmit buffer has room
//! ```
//!
//! # The receive path
//!
//! - Each session has a receive buffer of `rx_buffer_bytes`. The window
//!   advertised is its free space, shifted right by the engine's window
//!   scale once both SYNs carried the option (RFC 7323); a window that does
//!   not fit in 16 bits unscaled is advertised as 65535.
//! - A segment is acceptable by RFC 9293's test (3.10.7.4) against the free
//!   space. An unacceptable one is dropped and answered by an ACK at once:
//!   a *duplicate* if it ends at or before RCV.NXT (a retransmission, or a
//!   zero-window probe of one old byte), else *outside the window*.
//! - An acceptable segment that starts after RCV.NXT is *out of order*,
//!   answered by a duplicate ACK at once (it repeats the last window, so
//!   the sender counts it and retransmits fast, RFC 5681). Up to `islands`
//!   (1 ..= 8) runs of such bytes, the *islands*, are kept: disjoint, in
//!   sequence order, inside the window. A segment that lies wholly inside
//!   the window and overlaps or touches islands extends them (merging the
//!   ones it bridges), adding only its new bytes; one that touches none
//!   starts a new island if fewer than `islands` exist; any other is
//!   dropped (`out_of_order_dropped`). A FIN ends its island: a segment
//!   reaching past it, or a FIN before a kept byte, is dropped. When
//!   RCV.NXT reaches the first island, it (and a FIN that ended it) joins
//!   the stream, then the next if RCV.NXT now reaches it, and so on; one
//!   ACK acknowledges everything. If the peer's SYN permitted SACK, every
//!   ACK sent while islands hold bytes reports them as SACK blocks (RFC
//!   2018 section 4): first the island holding the segment most recently
//!   kept, then the others, most recently changed first; at most 3 blocks
//!   beside timestamps (40 option bytes), else 4. The sender resends the
//!   gaps alone and takes nothing it sent beyond the islands as delivered.
//! - A segment that starts at or before RCV.NXT and ends after it delivers
//!   its new bytes only (never a byte twice), up to the free space.
//! - ACKs: at once for every drop above, a FIN, a segment that carried
//!   old bytes with new ones, or one that fills a known gap; otherwise once
//!   the bytes not yet acknowledged reach two full segments (our MSS, less
//!   the 12 bytes of timestamps when in use), or `ack_delay_cycles` after
//!   the first of them. Every ACK but a duplicate one carries the window as
//!   it is, so the answer to a zero-window probe shows freed space.
//! - Window updates: when the user logic frees space and the window's right
//!   edge has moved `window_update_gap_kb` KiB past the one last advertised
//!   (`toe_window_update_gap`; 0 turns them off), a pure ACK goes at once.
//! - Push points: the end of a segment with PSH, and the FIN. [`TcpEngine::rx_beat`]
//!   gives a partial beat only at a push point, with `tlast`.
//! - `peer_closed` rises once the FIN was received and every byte before it
//!   was read.
//!
//! # Connections
//!
//! The states are RFC 9293's ([`State`]). Our SYN carries MSS (MTU - 40),
//! window scale, timestamps and SACK permitted; our SYN-ACK carries MSS
//! and, of the other three, those the peer's SYN offered. The peer's MSS (536 if absent) and
//! window scale are reported. With timestamps every segment carries them,
//! echoing TS.Recent, which follows only segments at the left edge of the
//! window (RFC 7323 section 4.3). SYN, SYN-ACK and FIN are sent again after
//! `rto_cycles`, doubling each time, at most `retries` times: then an
//! active open reports `conn_error`, a passive one returns to LISTEN, a
//! close in FIN-WAIT-1 gives up the connection with `conn_error`, one in
//! CLOSING or LAST-ACK (the peer's FIN is in) without it. TIME-WAIT lasts
//! `time_wait_cycles`. RSTs are checked as RFC 5961 says (exact sequence
//! number, else a challenge ACK); a SYN on a synchronised connection also
//! gets a challenge ACK. The initial sequence number is the low 32 bits of
//! the cycle counter plus the session number times 2^24.
//!
//! Not supported: SACK blocks from the peer (ignored: we send no data),
//! D-SACK (RFC 2883: a duplicate is not reported), reporting an island
//! beyond the 3 (or 4) blocks an ACK holds (the least recently changed go
//! unreported), PAWS (timestamps are echoed, not used to reject segments),
//! urgent data (the pointer is ignored), IPv4 options, more than `islands`
//! runs of out-of-order bytes, data on a SYN (dropped, the sender sends it
//! again), and sending data (part 3).

mod conn;
pub mod segment;

use std::collections::VecDeque;
use std::fmt;
use std::net::Ipv4Addr;

use conn::Conn;
pub use conn::{Request, SessionStatus, State};
use segment::{Header, SackBlocks, Segment, SegmentError};

use crate::config::ConfigError;
use crate::frame::tcp;
use crate::Mac;

/// The engine's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpConfig {
    /// Sessions, 1 ..= 64.
    pub sessions: usize,
    /// Bytes of each session's receive buffer: a power of two, 4 KiB ..= 4 MiB.
    pub rx_buffer_bytes: usize,
    /// Longest wait before an ACK of data is sent, cycles (default 40 us at 250 MHz).
    pub ack_delay_cycles: u64,
    /// First retransmission wait of SYN, SYN-ACK and FIN, cycles (default 200 ms at 250 MHz).
    pub rto_cycles: u64,
    /// Retransmissions of SYN, SYN-ACK or FIN before giving up, 0 ..= 15 (default 5).
    pub retries: u32,
    /// Length of TIME-WAIT, cycles (default 1 ms at 250 MHz).
    pub time_wait_cycles: u64,
    /// `toe_window_update_gap`: a window update once the right edge moved
    /// this many KiB, 0 ..= 1023; 0 turns window updates off.
    pub window_update_gap_kb: u32,
    /// Cycles per tick of the timestamp clock (TSval), default 1 ms at 250 MHz.
    pub timestamp_cycles: u64,
    /// Islands of out-of-order bytes kept per session, 1 ..= 8 (default 4).
    pub islands: usize,
}

/// 40 us at 250 MHz.
pub const ACK_DELAY_DEFAULT: u64 = 10_000;
/// 200 ms at 250 MHz: Linux's least retransmission time-out. A PC's ACK
/// of a SYN-ACK or a FIN can take milliseconds; a shorter first wait only
/// sends segments twice.
pub const RTO_DEFAULT: u64 = 50_000_000;
/// Retransmissions of a control segment: with 200 ms doubling, an active
/// open gives up after 12.6 s.
pub const RETRIES_DEFAULT: u32 = 5;
/// 1 ms at 250 MHz.
pub const TIME_WAIT_DEFAULT: u64 = 250_000;
/// 1 ms at 250 MHz: RFC 7323 asks for a tick of 1 ms ..= 1 s.
pub const TIMESTAMP_TICK_DEFAULT: u64 = 250_000;
/// 256 KiB a session.
pub const RX_BUFFER_DEFAULT: usize = 256 << 10;
/// The most sessions.
pub const SESSIONS_MAX: usize = 64;
/// Islands of out-of-order bytes a session keeps by default.
pub const ISLANDS_DEFAULT: usize = 4;
/// The most islands a session can keep.
pub const ISLANDS_MAX: usize = 8;
/// RSTs waiting for room in the transmit buffer; more are not sent.
pub const RST_QUEUE: usize = 4;

impl TcpConfig {
    /// `sessions` sessions with the defaults.
    pub fn new(sessions: usize) -> Self {
        TcpConfig {
            sessions,
            rx_buffer_bytes: RX_BUFFER_DEFAULT,
            ack_delay_cycles: ACK_DELAY_DEFAULT,
            rto_cycles: RTO_DEFAULT,
            retries: RETRIES_DEFAULT,
            time_wait_cycles: TIME_WAIT_DEFAULT,
            window_update_gap_kb: 8,
            timestamp_cycles: TIMESTAMP_TICK_DEFAULT,
            islands: ISLANDS_DEFAULT,
        }
    }

    /// Checks every field; the error names the first one out of range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        range("tcp.sessions", self.sessions as u64, 1, SESSIONS_MAX as u64)?;
        range("tcp.rx_buffer_bytes", self.rx_buffer_bytes as u64, 4096, 4 << 20)?;
        if !self.rx_buffer_bytes.is_power_of_two() {
            return Err(ConfigError::new(format!(
                "tcp.rx_buffer_bytes = {} is not a power of two: 4096, 8192, ... 4194304",
                self.rx_buffer_bytes
            )));
        }
        range("tcp.ack_delay_cycles", self.ack_delay_cycles, 1, u64::from(u32::MAX))?;
        range("tcp.rto_cycles", self.rto_cycles, 1, u64::from(u32::MAX))?;
        range("tcp.retries", u64::from(self.retries), 0, 15)?;
        range("tcp.time_wait_cycles", self.time_wait_cycles, 1, u64::from(u32::MAX))?;
        range("tcp.window_update_gap_kb", u64::from(self.window_update_gap_kb), 0, 1023)?;
        range("tcp.timestamp_cycles", self.timestamp_cycles, 1, u64::from(u32::MAX))?;
        range("tcp.islands", self.islands as u64, 1, ISLANDS_MAX as u64)
    }

    /// Our window-scale shift: the least that fits the buffer in 16 bits.
    pub fn window_scale(&self) -> u8 {
        let mut shift = 0;
        while (self.rx_buffer_bytes >> shift) > 0xffff {
            shift += 1;
        }
        shift
    }
}

fn range(field: &str, value: u64, min: u64, max: u64) -> Result<(), ConfigError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError::new(format!("{field} = {value} is out of range: {min} ..= {max}")))
    }
}

/// Counters of the engine as a whole: segments no session could take.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineCounter {
    /// Shorter than its header, or a data offset below 5 or past the end.
    Truncated,
    /// The checksum (with the pseudo-header) is wrong.
    Checksum,
    /// From an address other than target_ip.
    NotFromTarget,
    /// No connection and no listener for its ports: an RST answered (unless it was one).
    NoConnection,
    /// RSTs sent for segments of no connection.
    RstsOut,
    /// RSTs not sent because the RST queue was full.
    RstQueueFull,
}

impl EngineCounter {
    /// Every engine counter, in register order.
    pub const ALL: [EngineCounter; 6] = [
        EngineCounter::Truncated,
        EngineCounter::Checksum,
        EngineCounter::NotFromTarget,
        EngineCounter::NoConnection,
        EngineCounter::RstsOut,
        EngineCounter::RstQueueFull,
    ];

    /// Stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            EngineCounter::Truncated => "tcp_truncated",
            EngineCounter::Checksum => "tcp_checksum",
            EngineCounter::NotFromTarget => "tcp_not_from_target",
            EngineCounter::NoConnection => "tcp_no_connection",
            EngineCounter::RstsOut => "tcp_rsts_out",
            EngineCounter::RstQueueFull => "tcp_rst_queue_full",
        }
    }
}

/// Counters of one session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SessionCounter {
    /// Segments demultiplexed to the session.
    SegmentsIn,
    /// Data bytes taken in order into the receive buffer.
    BytesInOrder,
    /// Segments that started after RCV.NXT (kept in an island, or not).
    OutOfOrder,
    /// Out-of-order segments not kept: outside the window, past a FIN
    /// kept, or neither joining an island nor room for a new one.
    OutOfOrderDropped,
    /// Segments dropped because they ended at or before RCV.NXT.
    Duplicate,
    /// Segments dropped because they lay beyond the window.
    OutsideWindow,
    /// RSTs received that reset the connection.
    RstsIn,
    /// RSTs the session sent (an abort or a re-open over a live connection).
    RstsOut,
    /// Segments sent with ACK (SYN-ACK, ACK, FIN, window updates).
    AcksOut,
    /// Pure ACKs sent because the user logic freed receive space.
    WindowUpdates,
    /// SYN, SYN-ACK and FIN sent again after a time-out.
    Retransmits,
}

impl SessionCounter {
    /// Every session counter, in register order.
    pub const ALL: [SessionCounter; 11] = [
        SessionCounter::SegmentsIn,
        SessionCounter::BytesInOrder,
        SessionCounter::OutOfOrder,
        SessionCounter::OutOfOrderDropped,
        SessionCounter::Duplicate,
        SessionCounter::OutsideWindow,
        SessionCounter::RstsIn,
        SessionCounter::RstsOut,
        SessionCounter::AcksOut,
        SessionCounter::WindowUpdates,
        SessionCounter::Retransmits,
    ];

    /// Stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            SessionCounter::SegmentsIn => "segments_in",
            SessionCounter::BytesInOrder => "bytes_in_order",
            SessionCounter::OutOfOrder => "out_of_order",
            SessionCounter::OutOfOrderDropped => "out_of_order_dropped",
            SessionCounter::Duplicate => "duplicate",
            SessionCounter::OutsideWindow => "outside_window",
            SessionCounter::RstsIn => "rsts_in",
            SessionCounter::RstsOut => "rsts_out",
            SessionCounter::AcksOut => "acks_out",
            SessionCounter::WindowUpdates => "window_updates",
            SessionCounter::Retransmits => "retransmits",
        }
    }
}

impl fmt::Display for SessionCounter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One beat of a session's `rx` stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxBeat {
    /// The bytes of the beat, first byte first (`tkeep` is their count).
    pub data: Vec<u8>,
    /// The beat ends at a push point.
    pub last: bool,
}

/// Where the engine's segments go: the node's transmit buffer.
pub trait SegmentSink {
    /// Takes `frame` whole, or returns `false` (no room: try again later).
    fn offer(&mut self, frame: Vec<u8>) -> bool;
}

/// The addresses the engine sends with, fixed at the node's `init`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addresses {
    pub fpga_mac: Mac,
    pub fpga_ip: Ipv4Addr,
    pub target_ip: Ipv4Addr,
    /// `None` until the node knows the target's MAC (`toe_init_done`).
    pub target_mac: Option<Mac>,
}

/// An RST waiting for room, with everything it needs (its connection may be gone).
#[derive(Clone, Copy, Debug)]
struct PendingRst {
    src_port: u16,
    dst_port: u16,
    seq: u32,
    /// `Some`: RST+ACK with this acknowledgment number.
    ack: Option<u32>,
    /// The session that sends it; `None` for a segment of no connection.
    session: Option<usize>,
}

/// The TCP engine: sessions, their connections and receive buffers.
#[derive(Clone, Debug)]
pub struct TcpEngine {
    cfg: TcpConfig,
    mss: u16,
    conns: Vec<Conn>,
    rsts: VecDeque<PendingRst>,
    counters: Vec<u64>,
    /// The session served first at the next [`TcpEngine::poll`] (round robin).
    next_session: usize,
}

impl TcpEngine {
    /// An engine for an IPv4 MTU of `mtu`, every session CLOSED.
    pub fn new(cfg: TcpConfig, mtu: usize) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let mss = (mtu - 40) as u16;
        let conns = (0..cfg.sessions).map(|s| Conn::new(s, &cfg, mss)).collect();
        Ok(TcpEngine {
            cfg,
            mss,
            conns,
            rsts: VecDeque::new(),
            counters: vec![0; EngineCounter::ALL.len()],
            next_session: 0,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// The MSS this engine announces: MTU - 40.
    pub fn mss(&self) -> u16 {
        self.mss
    }

    /// An engine counter.
    pub fn count(&self, c: EngineCounter) -> u64 {
        self.counters[c as usize]
    }

    /// A session counter.
    pub fn session_count(&self, session: usize, c: SessionCounter) -> u64 {
        self.conns[session].count(c)
    }

    /// A connection request from session `session` (`conn_req_valid` and
    /// `_ready` high at `now`). `initialised` is `toe_init_done`.
    pub fn request(&mut self, session: usize, req: Request, initialised: bool, now: u64) {
        if let Some(rst) = self.conns[session].request(req, initialised, now) {
            self.queue_rst(rst);
        }
    }

    /// What session `session` shows the user logic.
    pub fn status(&self, session: usize) -> SessionStatus {
        self.conns[session].status()
    }

    /// Bytes waiting in session `session`'s receive buffer.
    pub fn rx_available(&self, session: usize) -> usize {
        self.conns[session].rx_available()
    }

    /// Takes up to `max` bytes of session `session`'s stream, stopping
    /// after a push point; `(bytes, ends_at_push)`.
    pub fn read_rx(&mut self, session: usize, max: usize, now: u64) -> (Vec<u8>, bool) {
        self.conns[session].read(max, now)
    }

    /// The next `rx` beat of `beat_bytes` (W/8) for session `session`, if one
    /// can go: a full beat, or a partial one ending at a push point.
    pub fn rx_beat(&mut self, session: usize, beat_bytes: usize, now: u64) -> Option<RxBeat> {
        self.conns[session].beat(beat_bytes, now)
    }

    /// A checked IPv4 payload of protocol 6 from `src` (to fpga_ip) at `now`.
    pub fn receive(&mut self, src: Ipv4Addr, addrs: &Addresses, payload: &[u8], now: u64) {
        let seg = match segment::parse(src, addrs.fpga_ip, payload) {
            Ok(seg) => seg,
            Err(SegmentError::Truncated) => return self.bump(EngineCounter::Truncated),
            Err(SegmentError::Checksum) => return self.bump(EngineCounter::Checksum),
        };
        if src != addrs.target_ip {
            return self.bump(EngineCounter::NotFromTarget);
        }
        match self.demultiplex(&seg) {
            Some(s) => {
                if let Some(rst) = self.conns[s].segment(&seg, now) {
                    self.queue_rst(rst);
                }
            }
            None => self.no_connection(&seg),
        }
    }

    /// Sends what is due at `now` (timers, pending ACKs, SYNs, FINs, RSTs)
    /// while `sink` has room; what does not fit stays due.
    pub fn poll(&mut self, now: u64, addrs: &Addresses, sink: &mut dyn SegmentSink) {
        for conn in &mut self.conns {
            conn.tick(now);
        }
        let Some(target_mac) = addrs.target_mac else { return };
        let ends = crate::frames::Ends {
            src_mac: addrs.fpga_mac,
            dst_mac: target_mac,
            src_ip: addrs.fpga_ip,
            dst_ip: addrs.target_ip,
        };
        while let Some(rst) = self.rsts.front().copied() {
            let (flags, ack) = match rst.ack {
                Some(ack) => (tcp::RST | tcp::ACK_FLAG, ack),
                None => (tcp::RST, 0),
            };
            let h = Header {
                src_port: rst.src_port,
                dst_port: rst.dst_port,
                seq: rst.seq,
                ack,
                flags,
                window: 0,
                syn_options: None,
                timestamps: None,
                sack: SackBlocks::NONE,
            };
            if !sink.offer(segment::frame(ends, &h, &[])) {
                return;
            }
            self.rsts.pop_front();
        }
        let n = self.conns.len();
        for i in 0..n {
            let s = (self.next_session + i) % n;
            while let Some(h) = self.conns[s].due(now) {
                if !sink.offer(segment::frame(ends, &h, &[])) {
                    self.next_session = s;
                    return;
                }
                self.conns[s].sent(&h, now);
            }
        }
        self.next_session = (self.next_session + 1) % n;
    }

    /// The session a segment belongs to: its connection by ports, else the
    /// lowest session listening on the port for a SYN.
    fn demultiplex(&self, seg: &Segment) -> Option<usize> {
        let connected = self.conns.iter().position(|c| c.owns(seg.dst_port, seg.src_port));
        connected.or_else(|| {
            let opens = seg.has(tcp::SYN) && !seg.has(tcp::ACK_FLAG) && !seg.has(tcp::RST);
            opens.then(|| self.conns.iter().position(|c| c.listens_on(seg.dst_port))).flatten()
        })
    }

    /// RFC 9293 3.10.7.1: a segment of no connection is answered by an RST
    /// (unless it is one): `<SEQ=SEG.ACK><CTL=RST>` if it had ACK, else
    /// `<SEQ=0><ACK=SEG.SEQ+SEG.LEN><CTL=RST,ACK>`.
    fn no_connection(&mut self, seg: &Segment) {
        self.bump(EngineCounter::NoConnection);
        if seg.has(tcp::RST) {
            return;
        }
        let rst = if seg.has(tcp::ACK_FLAG) {
            PendingRst { src_port: seg.dst_port, dst_port: seg.src_port, seq: seg.ack, ack: None, session: None }
        } else {
            PendingRst {
                src_port: seg.dst_port,
                dst_port: seg.src_port,
                seq: 0,
                ack: Some(seg.seq.wrapping_add(seg.len())),
                session: None,
            }
        };
        if self.queue_rst(rst) {
            self.bump(EngineCounter::RstsOut);
        }
    }

    fn queue_rst(&mut self, rst: PendingRst) -> bool {
        if self.rsts.len() >= RST_QUEUE {
            self.bump(EngineCounter::RstQueueFull);
            return false;
        }
        self.rsts.push_back(rst);
        if let Some(s) = rst.session {
            self.conns[s].bump(SessionCounter::RstsOut, 1);
        }
        true
    }

    fn bump(&mut self, c: EngineCounter) {
        self.counters[c as usize] += 1;
    }
}
