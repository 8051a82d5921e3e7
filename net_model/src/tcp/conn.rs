//! One session's connection: RFC 9293's state machine for a receiver, its
//! receive buffer and what it owes the peer.

use std::collections::VecDeque;

use super::segment::{Header, SackBlocks, Segment, SynOptions};
use super::{PendingRst, RxBeat, SessionCounter, TcpConfig};
use crate::frame::tcp;

/// The connection states, named as RFC 9293 (section 3.3.2) names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

impl State {
    /// RFC 9293's name, e.g. `SYN-RECEIVED`.
    pub fn name(self) -> &'static str {
        match self {
            State::Closed => "CLOSED",
            State::Listen => "LISTEN",
            State::SynSent => "SYN-SENT",
            State::SynReceived => "SYN-RECEIVED",
            State::Established => "ESTABLISHED",
            State::FinWait1 => "FIN-WAIT-1",
            State::FinWait2 => "FIN-WAIT-2",
            State::CloseWait => "CLOSE-WAIT",
            State::Closing => "CLOSING",
            State::LastAck => "LAST-ACK",
            State::TimeWait => "TIME-WAIT",
        }
    }

    /// What `established` shows: the handshake is done and the connection
    /// is not closed both ways yet.
    fn shows_established(self) -> bool {
        matches!(self, State::Established | State::FinWait1 | State::FinWait2 | State::CloseWait)
    }

    /// Data from the peer is still taken.
    fn receives(self) -> bool {
        matches!(self, State::Established | State::FinWait1 | State::FinWait2)
    }
}

/// A connection request (`conn_req_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// `open` = 1: connect to `remote_port` (active) or listen on `local_port`.
    Open { active: bool, local_port: u16, remote_port: u16 },
    /// `open` = 0.
    Close,
}

/// The session's side of the interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionStatus {
    pub state: State,
    pub established: bool,
    pub peer_closed: bool,
    pub conn_error: bool,
    pub peer_port: u16,
    pub peer_mss: u16,
    pub peer_window_scale: u8,
}

/// `a < b` in sequence space (RFC 9293 section 3.4).
fn lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

fn le(a: u32, b: u32) -> bool {
    a == b || lt(a, b)
}

/// A run of bytes kept beyond a gap: what arrived out of order,
/// contiguous, waiting for the gap before it to fill.
#[derive(Clone, Debug)]
struct Island {
    start: u32,
    data: Vec<u8>,
    /// The run ends with the peer's FIN.
    fin: bool,
    /// The out-of-order segment count when a segment was last kept in this
    /// run: the SACK blocks go most recent first (RFC 2018 section 4).
    changed: u64,
}

impl Island {
    fn end(&self) -> u32 {
        self.start.wrapping_add(self.data.len() as u32)
    }
}

#[derive(Clone, Debug)]
pub(super) struct Conn {
    index: usize,
    // Fixed by the configuration.
    buffer_size: usize,
    our_window_scale: u8,
    mss: u16,
    gap_bytes: u32,
    ack_delay: u64,
    rto: u64,
    max_retries: u32,
    time_wait: u64,
    timestamp_cycles: u64,

    state: State,
    /// Opened with `active` = 0: a reset SYN-RECEIVED returns to LISTEN.
    passive: bool,
    conn_error: bool,
    local_port: u16,
    remote_port: u16,
    peer_mss: u16,
    peer_window_scale: u8,
    /// Both SYNs carried window scale: windows are shifted.
    scaling: bool,
    /// Both SYNs carried timestamps: every segment sent carries them.
    timestamps: bool,
    /// The peer's SYN permitted SACK: every ACK sent while islands hold
    /// bytes carries them as SACK blocks (RFC 2018).
    sack: bool,
    /// RFC 7323's TS.Recent: the TSval to echo.
    ts_recent: u32,
    /// The acknowledgment number of the last segment sent with ACK (Last.ACK.sent).
    last_ack_sent: u32,
    /// The highest SEG.SEQ + data length of an acceptable segment with
    /// text: RCV.NXT below it means a gap is known, and in-order data is
    /// ACKed at once.
    highest_seen: u32,

    iss: u32,
    snd_una: u32,
    snd_nxt: u32,
    irs: u32,
    rcv_nxt: u32,

    /// Bytes received in order, not yet read.
    data: VecDeque<u8>,
    /// Stream offsets: bytes received in order, bytes read.
    received: u64,
    read: u64,
    /// Stream offsets where a push point ends a run of bytes, increasing.
    pushes: VecDeque<u64>,
    /// The stream offset of the peer's FIN, once received.
    fin_at: Option<u64>,
    /// Bytes kept beyond a gap: disjoint runs that do not touch, in
    /// sequence order, at most `max_islands`.
    islands: Vec<Island>,
    max_islands: usize,
    /// Out-of-order segments kept so far: the clock of `Island::changed`.
    kept: u64,

    syn_due: bool,
    fin_due: bool,
    fin_sent: bool,
    ack_now: bool,
    ack_at: Option<u64>,
    window_update_due: bool,
    unacked: u64,
    /// RCV.NXT + window of the last ACK sent.
    right_edge: u32,
    /// RCV.NXT and the window field of the last ACK sent.
    last_ack: Option<(u32, u16)>,
    /// The ACK owed answers an out-of-order segment: a duplicate ACK, which
    /// repeats the last window.
    dup_ack: bool,
    retry_at: Option<u64>,
    retries: u32,
    time_wait_until: u64,

    counters: [u64; SessionCounter::ALL.len()],
}

impl Conn {
    pub(super) fn new(index: usize, cfg: &TcpConfig, mss: u16) -> Self {
        Conn {
            index,
            buffer_size: cfg.rx_buffer_bytes,
            our_window_scale: cfg.window_scale(),
            mss,
            gap_bytes: cfg.window_update_gap_kb * 1024,
            ack_delay: cfg.ack_delay_cycles,
            rto: cfg.rto_cycles,
            max_retries: cfg.retries,
            time_wait: cfg.time_wait_cycles,
            timestamp_cycles: cfg.timestamp_cycles,
            state: State::Closed,
            passive: false,
            conn_error: false,
            local_port: 0,
            remote_port: 0,
            peer_mss: 0,
            peer_window_scale: 0,
            scaling: false,
            timestamps: false,
            sack: false,
            ts_recent: 0,
            last_ack_sent: 0,
            highest_seen: 0,
            iss: 0,
            snd_una: 0,
            snd_nxt: 0,
            irs: 0,
            rcv_nxt: 0,
            data: VecDeque::new(),
            received: 0,
            read: 0,
            pushes: VecDeque::new(),
            fin_at: None,
            islands: Vec::with_capacity(cfg.islands),
            max_islands: cfg.islands,
            kept: 0,
            syn_due: false,
            fin_due: false,
            fin_sent: false,
            ack_now: false,
            ack_at: None,
            window_update_due: false,
            unacked: 0,
            right_edge: 0,
            last_ack: None,
            dup_ack: false,
            retry_at: None,
            retries: 0,
            time_wait_until: 0,
            counters: [0; SessionCounter::ALL.len()],
        }
    }

    pub(super) fn count(&self, c: SessionCounter) -> u64 {
        self.counters[c as usize]
    }

    pub(super) fn bump(&mut self, c: SessionCounter, by: u64) {
        self.counters[c as usize] += by;
    }

    pub(super) fn status(&self) -> SessionStatus {
        SessionStatus {
            state: self.state,
            established: self.state.shows_established(),
            peer_closed: self.fin_at == Some(self.read),
            conn_error: self.conn_error,
            peer_port: self.remote_port,
            peer_mss: self.peer_mss,
            peer_window_scale: self.peer_window_scale,
        }
    }

    /// The connection of these ports (LISTEN and CLOSED have none).
    pub(super) fn owns(&self, local_port: u16, remote_port: u16) -> bool {
        !matches!(self.state, State::Closed | State::Listen)
            && self.local_port == local_port
            && self.remote_port == remote_port
    }

    pub(super) fn listens_on(&self, port: u16) -> bool {
        self.state == State::Listen && self.local_port == port
    }

    pub(super) fn rx_available(&self) -> usize {
        self.data.len()
    }

    /// Free bytes of the receive buffer: the real window.
    fn free(&self) -> u32 {
        (self.buffer_size - self.data.len()) as u32
    }

    /// The window field to send.
    fn window_field(&self, syn: bool) -> u16 {
        let free = self.free();
        let scaled = if self.scaling && !syn { free >> self.our_window_scale } else { free };
        scaled.min(0xffff) as u16
    }

    /// The RST that aborts this connection now, if it is synchronised
    /// (`<SEQ=SND.NXT><CTL=RST>`, RFC 9293 3.10.5).
    fn abort_rst(&self) -> Option<PendingRst> {
        let synchronised = !matches!(self.state, State::Closed | State::Listen | State::SynSent | State::TimeWait);
        synchronised.then_some(PendingRst {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.snd_nxt,
            ack: None,
            session: Some(self.index),
        })
    }

    /// Forgets the connection: its buffer, its timers and what it owed.
    fn forget(&mut self, state: State) {
        self.owe_nothing();
        self.state = state;
        self.data.clear();
        self.received = 0;
        self.read = 0;
        self.pushes.clear();
        self.fin_at = None;
        self.fin_sent = false;
        self.unacked = 0;
        self.retries = 0;
        self.scaling = false;
        self.timestamps = false;
        self.sack = false;
        self.last_ack = None;
    }

    /// Ends the connection (CLOSED); `error` raises `conn_error`. The bytes
    /// not read yet stay readable, the FIN's push point with them.
    fn close_down(&mut self, error: bool) {
        self.owe_nothing();
        self.state = State::Closed;
        self.conn_error |= error;
    }

    /// Drops what the connection owed the peer (segments due, timers) and
    /// the bytes kept beyond a gap: common to forgetting and closing down.
    fn owe_nothing(&mut self) {
        self.islands.clear();
        self.syn_due = false;
        self.fin_due = false;
        self.ack_now = false;
        self.dup_ack = false;
        self.ack_at = None;
        self.window_update_due = false;
        self.retry_at = None;
    }

    pub(super) fn request(&mut self, req: Request, initialised: bool, now: u64) -> Option<PendingRst> {
        match req {
            Request::Close => {
                match self.state {
                    State::Listen | State::SynSent => self.forget(State::Closed),
                    State::SynReceived => {
                        // A close cancels a listen: the half-open connection is reset.
                        let rst = self.abort_rst();
                        self.forget(State::Closed);
                        return rst;
                    }
                    State::Established => {
                        self.state = State::FinWait1;
                        self.fin_due = true;
                    }
                    State::CloseWait => {
                        self.state = State::LastAck;
                        self.fin_due = true;
                    }
                    _ => {}
                }
                None
            }
            Request::Open { active, local_port, remote_port } => {
                let rst = self.abort_rst();
                self.forget(State::Closed);
                self.conn_error = false;
                self.peer_mss = 0;
                self.peer_window_scale = 0;
                self.local_port = local_port;
                self.passive = !active;
                if !initialised {
                    self.conn_error = true;
                    return rst;
                }
                if active {
                    self.remote_port = remote_port;
                    self.iss = (now as u32).wrapping_add((self.index as u32) << 24);
                    self.snd_una = self.iss;
                    self.snd_nxt = self.iss.wrapping_add(1);
                    self.state = State::SynSent;
                    self.syn_due = true;
                } else {
                    self.remote_port = 0;
                    self.state = State::Listen;
                }
                rst
            }
        }
    }

    /// Takes the peer's SYN: its sequence number and options.
    fn take_syn(&mut self, seg: &Segment) {
        self.irs = seg.seq;
        self.rcv_nxt = seg.seq.wrapping_add(1);
        self.peer_mss = seg.mss.unwrap_or(tcp::DEFAULT_MSS);
        self.peer_window_scale = seg.window_scale.unwrap_or(0);
        self.scaling = seg.window_scale.is_some();
        self.timestamps = seg.timestamps.is_some();
        self.sack = seg.sack_permitted;
        self.ts_recent = seg.timestamps.map_or(0, |(tsval, _)| tsval);
        self.highest_seen = self.rcv_nxt;
    }

    /// Our TSval at `now`.
    fn tsval(&self, now: u64) -> u32 {
        (now / self.timestamp_cycles) as u32
    }

    /// A segment of this connection (or a SYN for this listener) at `now`.
    pub(super) fn segment(&mut self, seg: &Segment, now: u64) -> Option<PendingRst> {
        self.bump(SessionCounter::SegmentsIn, 1);
        match self.state {
            State::Closed => None,
            State::Listen => {
                // The demultiplexer gives a listener SYNs without ACK or RST only.
                self.remote_port = seg.src_port;
                self.take_syn(seg);
                self.iss = (now as u32).wrapping_add((self.index as u32) << 24);
                self.snd_una = self.iss;
                self.snd_nxt = self.iss.wrapping_add(1);
                self.state = State::SynReceived;
                self.syn_due = true;
                None
            }
            State::SynSent => self.syn_sent(seg),
            _ => self.synchronised(seg, now),
        }
    }

    /// RFC 9293 3.10.7.3.
    fn syn_sent(&mut self, seg: &Segment) -> Option<PendingRst> {
        let has_ack = seg.has(tcp::ACK_FLAG);
        if has_ack && !(lt(self.iss, seg.ack) && le(seg.ack, self.snd_nxt)) {
            return (!seg.has(tcp::RST)).then_some(self.rst_for(seg.ack));
        }
        if seg.has(tcp::RST) {
            if has_ack {
                self.bump(SessionCounter::RstsIn, 1);
                self.close_down(true);
            }
            return None;
        }
        if seg.has(tcp::SYN) {
            self.take_syn(seg);
            if has_ack {
                self.snd_una = seg.ack;
                self.state = State::Established;
                self.retry_at = None;
                self.retries = 0;
                self.syn_due = false;
                self.ack_now = true;
            } else {
                // Simultaneous open: our SYN-ACK answers.
                self.state = State::SynReceived;
                self.syn_due = true;
                self.retries = 0;
            }
        }
        None
    }

    /// `<SEQ=seq><CTL=RST>` to the peer.
    fn rst_for(&self, seq: u32) -> PendingRst {
        PendingRst { src_port: self.local_port, dst_port: self.remote_port, seq, ack: None, session: Some(self.index) }
    }

    /// RFC 9293 3.10.7.4, for every synchronised state.
    fn synchronised(&mut self, seg: &Segment, now: u64) -> Option<PendingRst> {
        // The peer's SYN again: our SYN-ACK was lost, send it at once.
        if self.state == State::SynReceived && seg.has(tcp::SYN) && !seg.has(tcp::ACK_FLAG) && seg.seq == self.irs {
            self.syn_due = true;
            return None;
        }

        // First: is the segment in the window?
        let wnd = self.free();
        let len = seg.len();
        let in_window = |s: u32| le(self.rcv_nxt, s) && lt(s, self.rcv_nxt.wrapping_add(wnd));
        let acceptable = match (len, wnd) {
            (0, 0) => seg.seq == self.rcv_nxt,
            (0, _) => in_window(seg.seq),
            (_, 0) => false,
            _ => in_window(seg.seq) || in_window(seg.seq.wrapping_add(len - 1)),
        };
        if !acceptable {
            if !seg.has(tcp::RST) {
                let old = le(seg.seq.wrapping_add(len), self.rcv_nxt);
                self.bump(if old { SessionCounter::Duplicate } else { SessionCounter::OutsideWindow }, 1);
                self.ack_now = true;
            }
            return None;
        }

        // RFC 7323 section 4.3: TS.Recent follows the segment that covers
        // the left edge of the window (never an out-of-order one).
        if let (true, Some((tsval, _))) = (self.timestamps, seg.timestamps) {
            if le(self.ts_recent, tsval) && le(seg.seq, self.last_ack_sent) {
                self.ts_recent = tsval;
            }
        }

        // Second: RST, taken only at exactly RCV.NXT (RFC 5961 section 3).
        if seg.has(tcp::RST) {
            if seg.seq != self.rcv_nxt {
                self.ack_now = true;
                return None;
            }
            self.bump(SessionCounter::RstsIn, 1);
            if self.state == State::SynReceived && self.passive {
                let port = self.local_port;
                self.forget(State::Listen);
                self.local_port = port;
            } else {
                let error = self.state.shows_established() || self.state == State::SynReceived;
                self.close_down(error);
            }
            return None;
        }

        // Fourth: a SYN here gets a challenge ACK (RFC 5961 section 4).
        if seg.has(tcp::SYN) {
            self.ack_now = true;
            return None;
        }

        // Fifth: the ACK.
        if !seg.has(tcp::ACK_FLAG) {
            return None;
        }
        if self.state == State::SynReceived {
            if !(lt(self.snd_una, seg.ack) && le(seg.ack, self.snd_nxt)) {
                return Some(self.rst_for(seg.ack));
            }
            self.state = State::Established;
            self.syn_due = false;
            self.retry_at = None;
            self.retries = 0;
        }
        if lt(self.snd_nxt, seg.ack) {
            self.ack_now = true;
            return None;
        }
        if lt(self.snd_una, seg.ack) {
            self.snd_una = seg.ack;
        }
        let fin_acked = self.fin_sent && self.snd_una == self.snd_nxt;
        if fin_acked {
            self.fin_due = false;
            self.retry_at = None;
            self.retries = 0;
            match self.state {
                State::FinWait1 => self.state = State::FinWait2,
                State::Closing => self.enter_time_wait(now),
                State::LastAck => {
                    self.close_down(false);
                    return None;
                }
                _ => {}
            }
        }

        // Seventh and eighth: the data and the FIN.
        if self.state.receives() && (!seg.payload.is_empty() || seg.has(tcp::FIN)) {
            self.take_text(seg, now);
        }
        None
    }

    /// In-order data into the buffer (new bytes only), the push point, the FIN.
    fn take_text(&mut self, seg: &Segment, now: u64) {
        // Whether a gap is known is decided before this segment moves the
        // mark: an in-order segment always ends past RCV.NXT, and counting
        // it made every segment "fill a gap" and be ACKed at once, so no ACK
        // was ever delayed.
        let gap_known = lt(self.rcv_nxt, self.highest_seen);
        let end = seg.seq.wrapping_add(seg.payload.len() as u32);
        if lt(self.highest_seen, end) {
            self.highest_seen = end;
        }
        if lt(self.rcv_nxt, seg.seq) {
            self.bump(SessionCounter::OutOfOrder, 1);
            self.ack_now = true;
            self.dup_ack = true;
            self.keep_out_of_order(seg);
            return;
        }
        // A gap is known (an out-of-order segment was seen): the sender is
        // recovering, so each segment that fills part of it is ACKed at once
        // (RFC 5681 section 4.2).
        let filling_gap = gap_known;
        let skip = self.rcv_nxt.wrapping_sub(seg.seq) as usize;
        let new = seg.payload.get(skip..).unwrap_or(&[]);
        let take = new.len().min(self.free() as usize);
        self.data.extend(&new[..take]);
        self.received += take as u64;
        self.rcv_nxt = self.rcv_nxt.wrapping_add(take as u32);
        self.bump(SessionCounter::BytesInOrder, take as u64);
        if skip > 0 || take < new.len() || (filling_gap && take > 0) {
            // Old bytes with the new, bytes past the window, or a gap being
            // filled: say where we are now.
            self.ack_now = true;
        }
        if take < new.len() {
            return; // the FIN, if any, lies past the window too
        }
        if seg.has(tcp::PSH) && take > 0 {
            self.pushes.push_back(self.received);
        }
        let mut fin = seg.has(tcp::FIN);
        // The gap before the first island is filled: it joins the stream,
        // then the next if RCV.NXT now reaches it, and so on. Their bytes
        // were taken inside the window, so they fit. The island a FIN ends
        // is the last (nothing is kept past a FIN).
        while self.islands.first().is_some_and(|i| le(i.start, self.rcv_nxt)) {
            let island = self.islands.remove(0);
            let skip = self.rcv_nxt.wrapping_sub(island.start) as usize;
            let joined = island.data.get(skip..).unwrap_or(&[]);
            self.data.extend(joined);
            self.received += joined.len() as u64;
            self.rcv_nxt = self.rcv_nxt.wrapping_add(joined.len() as u32);
            self.bump(SessionCounter::BytesInOrder, joined.len() as u64);
            self.ack_now = true;
            if island.fin {
                fin = true;
                break;
            }
        }
        if fin {
            self.rcv_nxt = self.rcv_nxt.wrapping_add(1);
            self.fin_at = Some(self.received);
            if self.pushes.back() != Some(&self.received) {
                self.pushes.push_back(self.received);
            }
            self.ack_now = true;
            match self.state {
                State::Established => self.state = State::CloseWait,
                State::FinWait1 => self.state = State::Closing,
                State::FinWait2 => self.enter_time_wait(now),
                _ => {}
            }
            return;
        }
        if take > 0 && !self.ack_now {
            self.unacked += take as u64;
            // A full segment is our MSS less the options the peer sends on
            // every segment (RFC 6691): 12 bytes of timestamps if in use.
            // Counting 2 * MSS made two full segments with timestamps
            // (2 * 1448 of MSS 1460) wait for the delayed-ACK timer.
            let full = u64::from(self.mss) - if self.timestamps { 12 } else { 0 };
            if self.unacked >= 2 * full {
                self.ack_now = true;
            } else if self.ack_at.is_none() {
                self.ack_at = Some(now + self.ack_delay);
            }
        }
    }

    /// An acceptable segment beyond RCV.NXT, kept if it lies wholly inside
    /// the window and either overlaps or touches islands (extending them,
    /// merging those it bridges; only its new bytes are added) or there is
    /// room for a new island. A FIN ends its island: nothing is kept past
    /// it, and a FIN before a kept byte is not kept. Otherwise dropped. Its
    /// push point, if any, is not kept (the FIN is).
    fn keep_out_of_order(&mut self, seg: &Segment) {
        if !self.try_keep(seg) {
            self.bump(SessionCounter::OutOfOrderDropped, 1);
        }
    }

    fn try_keep(&mut self, seg: &Segment) -> bool {
        let (start, fin) = (seg.seq, seg.has(tcp::FIN));
        let end = start.wrapping_add(seg.payload.len() as u32);
        let window_end = self.rcv_nxt.wrapping_add(self.free());
        if !le(end, window_end) {
            return false;
        }
        // Islands are sorted, so a FIN can only end the last one.
        if let Some(last) = self.islands.last() {
            if last.fin && lt(last.end(), end) {
                return false; // past the FIN kept
            }
            if fin && lt(end, last.end()) {
                return false; // a FIN before bytes kept
            }
        }
        // The islands this segment overlaps or touches: a run of them.
        let first = self.islands.iter().position(|i| le(start, i.end()));
        let touching = match first {
            Some(a) => self.islands[a..].iter().take_while(|i| le(i.start, end)).count(),
            None => 0,
        };
        let at = first.unwrap_or(self.islands.len());
        if touching == 0 && self.islands.len() >= self.max_islands {
            return false;
        }
        self.kept += 1;
        if touching == 0 {
            let island = Island { start, data: seg.payload.to_vec(), fin, changed: self.kept };
            self.islands.insert(at, island);
            return true;
        }
        // One island from the first touched to the last: the segment's bytes
        // before it, each island with the segment's bytes between them, the
        // segment's bytes after the last.
        let mut merged: Vec<Island> = self.islands.drain(at..at + touching).collect();
        let mut island = merged.remove(0);
        if lt(start, island.start) {
            let mut data = seg.payload[..island.start.wrapping_sub(start) as usize].to_vec();
            data.extend_from_slice(&island.data);
            island.data = data;
            island.start = start;
        }
        for next in merged {
            let from = island.end().wrapping_sub(start) as usize;
            let to = next.start.wrapping_sub(start) as usize;
            island.data.extend_from_slice(&seg.payload[from..to]);
            island.data.extend_from_slice(&next.data);
            island.fin |= next.fin;
        }
        if lt(island.end(), end) {
            let from = island.end().wrapping_sub(start) as usize;
            island.data.extend_from_slice(&seg.payload[from..]);
        }
        island.fin |= fin;
        island.changed = self.kept;
        self.islands.insert(at, island);
        true
    }

    fn enter_time_wait(&mut self, now: u64) {
        self.state = State::TimeWait;
        self.time_wait_until = now + self.time_wait;
        self.retry_at = None;
    }

    /// Timers at `now`: retransmissions, TIME-WAIT's end, the delayed ACK.
    pub(super) fn tick(&mut self, now: u64) {
        if self.state == State::TimeWait && now >= self.time_wait_until {
            self.state = State::Closed;
        }
        if let Some(at) = self.ack_at {
            if now >= at {
                self.ack_now = true;
                self.ack_at = None;
            }
        }
        let Some(at) = self.retry_at else { return };
        if now < at {
            return;
        }
        self.retry_at = None;
        if self.retries >= self.max_retries {
            match self.state {
                State::SynReceived if self.passive => {
                    let port = self.local_port;
                    self.forget(State::Listen);
                    self.local_port = port;
                }
                State::SynSent | State::SynReceived | State::FinWait1 => self.close_down(true),
                _ => self.close_down(false),
            }
            return;
        }
        self.retries += 1;
        self.bump(SessionCounter::Retransmits, 1);
        match self.state {
            State::SynSent | State::SynReceived => self.syn_due = true,
            State::FinWait1 | State::Closing | State::LastAck => self.fin_due = true,
            _ => {}
        }
    }

    /// The segment this connection owes the peer now, if any.
    pub(super) fn due(&self, now: u64) -> Option<Header> {
        // A duplicate ACK (the answer to an out-of-order segment) repeats
        // the last window unless a window update is due: the sender counts
        // it for fast retransmit only with the window unchanged (RFC 5681
        // section 2). Every other ACK carries the window as it is: the
        // answer to a zero-window probe must show the space reads freed, or
        // with window updates off (gap 0) the sender would never learn of it.
        let window = match self.last_ack {
            Some((ack, window)) if self.dup_ack && ack == self.rcv_nxt && !self.window_update_due => window,
            _ => self.window_field(false),
        };
        let base = Header {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.snd_nxt,
            ack: self.rcv_nxt,
            flags: tcp::ACK_FLAG,
            window,
            syn_options: None,
            timestamps: self.timestamps.then_some((self.tsval(now), self.ts_recent)),
            sack: self.sack_blocks(),
        };
        if self.syn_due {
            // A SYN offers window scale, timestamps and SACK; a SYN-ACK
            // answers with those the peer's SYN offered.
            let (flags, ack, window_scale, timestamps, sack_permitted) = match self.state {
                State::SynSent => (tcp::SYN, 0, Some(self.our_window_scale), Some((self.tsval(now), 0)), true),
                State::SynReceived => (
                    tcp::SYN | tcp::ACK_FLAG,
                    self.rcv_nxt,
                    self.scaling.then_some(self.our_window_scale),
                    base.timestamps,
                    self.sack,
                ),
                _ => return None,
            };
            return Some(Header {
                seq: self.iss,
                ack,
                flags,
                window: self.window_field(true),
                syn_options: Some(SynOptions { mss: self.mss, window_scale, sack_permitted }),
                timestamps,
                sack: SackBlocks::NONE,
                ..base
            });
        }
        if self.fin_due {
            // No data is sent in this part: the FIN sits right after the SYN.
            return Some(Header { seq: self.iss.wrapping_add(1), flags: tcp::FIN | tcp::ACK_FLAG, ..base });
        }
        let synchronised = !matches!(self.state, State::Closed | State::Listen | State::SynSent);
        (synchronised && (self.ack_now || self.window_update_due)).then_some(base)
    }

    /// The islands as SACK blocks, so the sender retransmits only the gaps
    /// and treats nothing else as delivered (RFC 2018 section 4): the island
    /// holding the segment kept last first, then the others, most recently
    /// changed first; 3 beside timestamps (40 option bytes), else 4. An
    /// island of a FIN alone holds no byte and is not reported.
    fn sack_blocks(&self) -> SackBlocks {
        let mut blocks = SackBlocks::NONE;
        if !self.sack {
            return blocks;
        }
        let mut recent: Vec<&Island> = self.islands.iter().filter(|i| !i.data.is_empty()).collect();
        recent.sort_by_key(|i| std::cmp::Reverse(i.changed));
        let room = if self.timestamps { 3 } else { 4 };
        for i in recent.into_iter().take(room) {
            blocks.push((i.start, i.end()));
        }
        blocks
    }

    /// `h`, from [`Conn::due`], went out at `now`.
    pub(super) fn sent(&mut self, h: &Header, now: u64) {
        let is_syn = h.flags & tcp::SYN != 0;
        let is_fin = h.flags & tcp::FIN != 0;
        if h.flags & tcp::ACK_FLAG != 0 {
            self.bump(SessionCounter::AcksOut, 1);
            if !is_syn && !is_fin && !self.ack_now && self.window_update_due {
                self.bump(SessionCounter::WindowUpdates, 1);
            }
            self.ack_now = false;
            self.dup_ack = false;
            self.ack_at = None;
            self.window_update_due = false;
            self.unacked = 0;
            let scale = if self.scaling && !is_syn { self.our_window_scale } else { 0 };
            self.right_edge = self.rcv_nxt.wrapping_add(u32::from(h.window) << scale);
            self.last_ack = (!is_syn).then_some((self.rcv_nxt, h.window));
            self.last_ack_sent = h.ack;
        }
        if is_syn {
            self.syn_due = false;
            self.retry_at = Some(now + (self.rto << self.retries.min(16)));
        }
        if is_fin {
            self.fin_due = false;
            self.fin_sent = true;
            self.snd_nxt = self.iss.wrapping_add(2);
            self.retry_at = Some(now + (self.rto << self.retries.min(16)));
        }
    }

    /// Up to `max` bytes of the stream, stopping after a push point.
    pub(super) fn read(&mut self, max: usize, _now: u64) -> (Vec<u8>, bool) {
        let to_push = self.pushes.front().map(|p| (p - self.read) as usize);
        let n = max.min(self.data.len()).min(to_push.unwrap_or(usize::MAX));
        let at_push = n > 0 && to_push == Some(n);
        self.take(n, at_push)
    }

    /// The next beat: whole, or partial at a push point.
    pub(super) fn beat(&mut self, beat_bytes: usize, _now: u64) -> Option<RxBeat> {
        let to_push = self.pushes.front().map(|p| (p - self.read) as usize);
        let (n, last) = match to_push {
            Some(p) if p > 0 && p <= beat_bytes => (p, true),
            _ if self.data.len() >= beat_bytes => (beat_bytes, false),
            _ => return None,
        };
        let (data, _) = self.take(n, last);
        Some(RxBeat { data, last })
    }

    fn take(&mut self, n: usize, at_push: bool) -> (Vec<u8>, bool) {
        let bytes: Vec<u8> = self.data.drain(..n).collect();
        self.read += n as u64;
        while self.pushes.front().is_some_and(|&p| p <= self.read) {
            self.pushes.pop_front();
        }
        if n > 0 && self.state.receives() && self.gap_bytes > 0 {
            let edge = self.rcv_nxt.wrapping_add(self.advertisable());
            if edge.wrapping_sub(self.right_edge) as i32 >= self.gap_bytes as i32 {
                self.window_update_due = true;
            }
        }
        (bytes, at_push)
    }

    /// The window an ACK sent now would carry, in bytes.
    fn advertisable(&self) -> u32 {
        let scale = if self.scaling { self.our_window_scale } else { 0 };
        u32::from(self.window_field(false)) << scale
    }
}
