//! A scripted TOE for one board: the TOE side of the session interface
//! (`docs/toe_interface.md`) with no behaviour of its own, so a test decides
//! exactly what the TOE does and when. The test sets the levels each
//! session shows (`conn_req_ready`, `established`, `peer_closed`,
//! `conn_error`, the peer's port, MSS and window scale, `tx_tready`) and
//! queues RX beats (the incremental pattern of the `pattern` crate, or
//! corrupted bytes); the scripted TOE records what the user logic did: the
//! requests it presented and those taken, the TX bytes it sank (checked
//! against the pattern) and the RX bytes taken, with the cycles of each. It
//! serves one [`Board`] through [`Rig::from_parts`]; the session controller's
//! own tests (`tests/session.rs`) use it where the two-board model would
//! decide for them.
//!
//! [`Rig::from_parts`]: crate::boards::Rig::from_parts

use std::collections::VecDeque;

use toe_model::{GlobalOutputs, SessionInputs, SessionOutputs, SessionStatus};

use crate::boards::{Board, ToeSide};

/// A connection request as the user logic presented it (the interface
/// checker's type).
pub use toe_model::checker::Request;

/// A request the TOE took (`conn_req_valid` and `conn_req_ready` at one edge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Taken {
    /// The user cycle of the edge ([`ScriptedToe::cycle`]).
    pub cycle: u64,
    pub request: Request,
}

/// One RX beat waiting to be taken.
#[derive(Clone, Debug)]
struct Beat {
    data: Vec<u8>,
    last: bool,
}

/// One session of the scripted TOE: the levels the test sets (public
/// fields, driven from the next user-clock edge on) and what the TOE saw.
#[derive(Clone, Debug, Default)]
pub struct Script {
    // ---- What the TOE shows: set by the test.
    pub conn_req_ready: bool,
    /// The six status levels (`established`, `peer_closed`, `conn_error`,
    /// the peer's port, MSS and window scale).
    pub status: SessionStatus,
    pub tx_tready: bool,
    /// RX beats to present, in order; the head is shown until taken.
    rx: VecDeque<Beat>,
    /// Stream offset of the next byte [`Script::send_pattern`] queues.
    rx_queued: u64,

    // ---- What the TOE saw.
    /// The request shown at the last edge, if any.
    pub presented: Option<Request>,
    /// Edges in a row the current request has been shown with the same payload.
    pub presented_for: u64,
    /// Edges at which any request was shown.
    pub presented_edges: u64,
    /// Requests taken, in order.
    pub taken: Vec<Taken>,
    /// The cycle of the last edge at which `established` was driven high
    /// after being low (its rising edge as the user logic saw it).
    pub established_at: Option<u64>,
    /// TX bytes and beats taken, and the cycles of the first and last.
    pub tx_bytes: u64,
    pub tx_beats: u64,
    pub tx_first: Option<u64>,
    pub tx_last: Option<u64>,
    /// `tx_tlast` of the last TX beat taken.
    pub tx_last_tlast: bool,
    /// Every TX beat taken: its cycle and the stream offset of its first byte.
    pub tx_log: Vec<(u64, u64)>,
    /// The first TX byte that differed from the incremental pattern.
    pub tx_mismatch: Option<pattern::Mismatch>,
    /// RX bytes taken (as presented, corruption included) and the cycle of the last beat.
    pub rx_log: Vec<u8>,
    pub rx_last: Option<u64>,
    /// Broken interface rules: a request withdrawn or changed before it was
    /// taken, a TX beat sent while `established` is low.
    pub violations: Vec<String>,
    /// `established` as driven at the last edge.
    was_established: bool,
}

impl Script {
    /// Queues the next `len` bytes of the incremental pattern as RX beats of
    /// `beat_bytes`: full beats, the last one partial if `len` says so, with
    /// `tlast` on it (a push point).
    pub fn send_pattern(&mut self, len: u64, beat_bytes: usize) {
        let mut left = len;
        while left > 0 {
            let n = left.min(beat_bytes as u64) as usize;
            let mut data = vec![0; n];
            pattern::fill(&mut data, self.rx_queued);
            self.rx_queued += n as u64;
            left -= n as u64;
            self.rx.push_back(Beat { data, last: left == 0 });
        }
    }

    /// XORs `mask` into the queued byte at stream offset `offset` (it must
    /// be queued and not yet taken).
    pub fn corrupt(&mut self, offset: u64, mask: u8) {
        let mut start = self.rx_queued - self.rx.iter().map(|b| b.data.len() as u64).sum::<u64>();
        for beat in &mut self.rx {
            let end = start + beat.data.len() as u64;
            if (start..end).contains(&offset) {
                beat.data[(offset - start) as usize] ^= mask;
                return;
            }
            start = end;
        }
        panic!("byte {offset} is not queued");
    }

    /// RX beats queued and not yet taken.
    pub fn rx_pending(&self) -> usize {
        self.rx.len()
    }

    /// Bytes the user logic took on RX.
    pub fn rx_bytes(&self) -> u64 {
        self.rx_log.len() as u64
    }

    /// The close requests taken.
    pub fn closes(&self) -> usize {
        self.taken.iter().filter(|t| !t.request.open).count()
    }

    /// A taken open request starts a new connection: the stream counters
    /// start again (the levels stay what the test set).
    fn new_connection(&mut self) {
        self.rx.clear();
        self.rx_queued = 0;
        self.established_at = None;
        self.tx_bytes = 0;
        self.tx_beats = 0;
        self.tx_first = None;
        self.tx_last = None;
        self.tx_last_tlast = false;
        self.tx_log.clear();
        self.tx_mismatch = None;
        self.rx_log.clear();
        self.rx_last = None;
    }
}

/// The scripted TOE of one board.
pub struct ScriptedToe {
    sessions: Vec<Script>,
    /// What `drive` showed for the coming edge.
    inputs: Vec<SessionInputs>,
    beat_bytes: usize,
    /// `toe_init_done`: high unless the test lowers it.
    pub init_done: bool,
    /// `toe_init` pulses seen.
    pub inits: u64,
    cycle: u64,
}

impl ScriptedToe {
    /// A TOE for `board`'s sessions, every level low, `init_done` high.
    pub fn for_board(board: &Board) -> Self {
        Self::new(board.sessions(), board.beat_bytes())
    }

    /// A TOE for `sessions` sessions of `beat_bytes` bytes a beat.
    pub fn new(sessions: usize, beat_bytes: usize) -> Self {
        ScriptedToe {
            sessions: vec![Script::default(); sessions],
            inputs: vec![SessionInputs::default(); sessions],
            beat_bytes,
            init_done: true,
            inits: 0,
            cycle: 0,
        }
    }

    /// Session `s`.
    pub fn session(&self, s: usize) -> &Script {
        &self.sessions[s]
    }

    /// Session `s`, to change what it shows.
    pub fn session_mut(&mut self, s: usize) -> &mut Script {
        &mut self.sessions[s]
    }

    /// Bytes of a stream beat.
    pub fn beat_bytes(&self) -> usize {
        self.beat_bytes
    }

    /// Queues the next `len` pattern bytes on session `s`'s RX ([`Script::send_pattern`]).
    pub fn send_pattern(&mut self, s: usize, len: u64) {
        let beat = self.beat_bytes;
        self.sessions[s].send_pattern(len, beat);
    }

    /// The user cycle of the coming edge: the same count as [`Rig::cycles`](crate::boards::Rig::cycles).
    pub fn cycle(&self) -> u64 {
        self.cycle
    }
}

impl ToeSide for ScriptedToe {
    fn drive(&mut self, _b: usize, _tx_tvalid: &[bool]) -> &[SessionInputs] {
        for (i, s) in self.inputs.iter_mut().zip(&self.sessions) {
            i.conn_req_ready = s.conn_req_ready;
            s.status.apply_to(i);
            i.tx_tready = s.tx_tready;
            i.rx_data.clear();
            match s.rx.front() {
                Some(beat) => {
                    i.rx_tvalid = true;
                    i.rx_tlast = beat.last;
                    i.rx_data.extend_from_slice(&beat.data);
                }
                None => {
                    i.rx_tvalid = false;
                    i.rx_tlast = false;
                }
            }
        }
        &self.inputs
    }

    fn init_done(&self, _b: usize) -> bool {
        self.init_done
    }

    fn edge(&mut self, _b: usize, global: GlobalOutputs, outs: &[SessionOutputs]) {
        let cycle = self.cycle;
        self.inits += u64::from(global.init);
        for (n, ((s, i), o)) in self.sessions.iter_mut().zip(&self.inputs).zip(outs).enumerate() {
            // Requests: valid must hold, with the same payload, until taken.
            let shown = o.conn_req_valid.then_some(Request {
                open: o.conn_req_open,
                active: o.conn_req_active,
                local_port: o.conn_req_local_port,
                remote_port: o.conn_req_remote_port,
            });
            if let Some(before) = s.presented {
                if shown != Some(before) {
                    s.violations.push(format!(
                        "cycle {cycle}, session {n}: request {before:?} changed to {shown:?} before it was taken"
                    ));
                }
            }
            match shown {
                Some(r) => {
                    s.presented_edges += 1;
                    s.presented_for = if s.presented == Some(r) { s.presented_for + 1 } else { 1 };
                    if i.conn_req_ready {
                        if r.open {
                            s.new_connection();
                        }
                        s.taken.push(Taken { cycle, request: r });
                        s.presented = None;
                    } else {
                        s.presented = Some(r);
                    }
                }
                None => {
                    s.presented = None;
                    s.presented_for = 0;
                }
            }
            if i.established && !s.was_established {
                s.established_at = Some(cycle);
            }
            s.was_established = i.established;
            // TX: a beat moves where tvalid and tready are both high.
            if o.tx_tvalid && i.tx_tready {
                if !i.established {
                    s.violations.push(format!("cycle {cycle}, session {n}: TX beat taken while not established"));
                }
                if s.tx_mismatch.is_none() {
                    s.tx_mismatch = pattern::first_mismatch(&o.tx_data, s.tx_bytes);
                }
                s.tx_log.push((cycle, s.tx_bytes));
                s.tx_bytes += o.tx_data.len() as u64;
                s.tx_beats += 1;
                s.tx_first.get_or_insert(cycle);
                s.tx_last = Some(cycle);
                s.tx_last_tlast = o.tx_tlast;
            }
            // RX: the head beat is taken where rx_tready is high.
            if i.rx_tvalid && o.rx_tready {
                let beat = s.rx.pop_front().expect("a beat was shown");
                s.rx_log.extend_from_slice(&beat.data);
                s.rx_last = Some(cycle);
            }
        }
    }

    fn tick(&mut self) {
        self.cycle += 1;
    }

    fn quiet(&self) -> bool {
        self.sessions.iter().all(|s| s.rx.is_empty())
    }
}
