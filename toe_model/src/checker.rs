//! The interface checker: the rules of `docs/toe_interface.md` that the user
//! logic must follow on one session, checked at every rising edge from the TOE
//! side. Both TOE implementations use it: the two-board model
//! ([`TwoBoards`](crate::TwoBoards)) and the host-socket TOE (`socket_toe`).
//!
//! One [`SessionChecker`] per session keeps what the rules need to remember
//! between edges (the request and the TX beat that wait for their ready, a
//! partial beat taken, whether "not open" was reported); the violations of
//! all sessions go to one [`ViolationLog`].
//!
//! The owner (the TOE) calls, per session and edge:
//!
//! 1. [`SessionChecker::edge`] with what the user logic shows just before the
//!    edge ([`SessionOutputs`]), the inputs the TOE drove for it
//!    ([`SessionInputs`]: `tx_tready`, `conn_req_ready`, `established`,
//!    `conn_error` are used) and whether a close request was taken on this
//!    connection (the owner keeps that flag anyway, it gates `tx_tready`);
//! 2. then performs the handshakes of the edge, and tells the checker the
//!    events only it sees: [`SessionChecker::open_request`] when it takes an
//!    open request, [`SessionChecker::connection_gone`] when the connection is
//!    dropped (fully closed, reset, cancelled, `toe_init`).
//!
//! The rules, each reported with the message given:
//!
//! * a TX beat shown with `tx_tvalid` and not taken (`tx_tready` low while
//!   established and not closed) must stay: "tx_tvalid dropped before
//!   tx_tready", "TX beat (data/keep/tlast) changed while tx_tvalid and not
//!   tx_tready"; except that a session giving the transfer up (`abort`, its
//!   watchdog) withdraws it in the cycle its close request appears;
//! * a beat has 1..=`beat_bytes` bytes: "TX beat of N bytes (1..=B allowed)";
//! * only the last beat of a transfer may be partial: "partial TX beat without
//!   tlast", and after a partial beat only the close may follow: "TX data after
//!   a partial beat (only the last beat of a transfer may be partial)";
//!   except for a session in a latency mode ([`SessionChecker::set_messages`]),
//!   where every message ends with its own partial `tlast` beat and the next
//!   message follows it;
//! * no `tx_tvalid` after the close request was taken ("tx_tvalid after its
//!   close request") or while not established ("tx_tvalid while not
//!   established"), reported once per open request. With
//!   [`SessionChecker::excusing_conn_error`] the second is not reported while
//!   `conn_error` is high (the beat was in flight when the connection died);
//! * a request shown with `conn_req_valid` and not taken must stay:
//!   "conn_req_valid dropped before conn_req_ready", "connection request
//!   changed while valid and not ready".
//!
//! ```
//! use toe_model::checker::{Place, SessionChecker, ViolationLog};
//! use toe_model::{SessionInputs, SessionOutputs};
//! let mut log = ViolationLog::new();
//! let mut chk = SessionChecker::new(Place::session(0), 8);
//! let beat = SessionOutputs { tx_tvalid: true, tx_data: vec![1; 8], ..Default::default() };
//! let waiting = SessionInputs { established: true, ..Default::default() };
//! chk.edge(&mut log, 0, &beat, &waiting, false); // not taken: it must stay
//! chk.edge(&mut log, 1, &SessionOutputs::default(), &waiting, false);
//! assert_eq!(log.list(), ["cycle 1: session 0: tx_tvalid dropped before tx_tready"]);
//! ```

use std::fmt;

use crate::{SessionInputs, SessionOutputs};

/// At most this many violation messages are stored (all are counted).
pub const MAX_VIOLATIONS: usize = 1000;

/// Where a violation happened, as it is written in the message:
/// `board B session S` (the two-board model) or `session S` (one TOE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The board, when the owner has more than one.
    pub board: Option<usize>,
    /// The session.
    pub session: usize,
}

impl Place {
    /// Session `s` of a single TOE: `session S`.
    pub fn session(s: usize) -> Self {
        Self { board: None, session: s }
    }

    /// Session `s` of board `b`: `board B session S`.
    pub fn board_session(b: usize, s: usize) -> Self {
        Self { board: Some(b), session: s }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(b) = self.board {
            write!(f, "board {b} ")?;
        }
        write!(f, "session {}", self.session)
    }
}

/// The violation log: messages `cycle C: <place>: what`, at most
/// [`MAX_VIOLATIONS`] kept, all counted.
#[derive(Clone, Debug, Default)]
pub struct ViolationLog {
    list: Vec<String>,
    total: u64,
}

impl ViolationLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records one violation (kept while fewer than [`MAX_VIOLATIONS`] are).
    pub fn push(&mut self, cycle: u64, place: Place, msg: impl fmt::Display) {
        self.total += 1;
        if self.list.len() < MAX_VIOLATIONS {
            self.list.push(format!("cycle {cycle}: {place}: {msg}"));
        }
    }

    /// The owner's `edge` got `got` session outputs for `sessions` sessions:
    /// reported (at `place`) unless they match.
    pub fn check_outputs_len(&mut self, cycle: u64, place: Place, got: usize, sessions: usize) {
        if got != sessions {
            self.push(cycle, place, format!("edge got {got} session outputs for {sessions} sessions"));
        }
    }

    /// The messages kept, oldest first.
    pub fn list(&self) -> &[String] {
        &self.list
    }

    /// Number of violations seen, including those not kept.
    pub fn total(&self) -> u64 {
        self.total
    }
}

/// A connection request as presented (`conn_req_open/active/local_port/remote_port`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    /// `conn_req_open`: open (true) or close.
    pub open: bool,
    /// `conn_req_active`: active open (true) or listen.
    pub active: bool,
    /// `conn_req_local_port`.
    pub local_port: u16,
    /// `conn_req_remote_port`.
    pub remote_port: u16,
}

impl Request {
    /// The request fields of what the user logic shows.
    pub fn of(o: &SessionOutputs) -> Self {
        Self {
            open: o.conn_req_open,
            active: o.conn_req_active,
            local_port: o.conn_req_local_port,
            remote_port: o.conn_req_remote_port,
        }
    }
}

/// The interface checker of one session; see the module documentation.
#[derive(Clone, Debug)]
pub struct SessionChecker {
    place: Place,
    beat_bytes: usize,
    excuse_conn_error: bool,
    /// The request shown and not taken at the previous edge.
    req_hold: Option<Request>,
    /// A TX beat was shown and not taken (while it had to wait) at the previous edge.
    tx_hold: bool,
    tx_hold_last: bool,
    tx_hold_data: Vec<u8>,
    /// A partial beat was taken in this connection (only the close may follow).
    after_partial: bool,
    /// The session sends messages (a latency mode): data may follow a
    /// partial `tlast` beat.
    messages: bool,
    /// TX while not open was reported (once per open request).
    not_open_reported: bool,
}

impl SessionChecker {
    /// The checker of the session at `place`, whose beats carry up to
    /// `beat_bytes` bytes.
    pub fn new(place: Place, beat_bytes: usize) -> Self {
        Self {
            place,
            beat_bytes,
            excuse_conn_error: false,
            req_hold: None,
            tx_hold: false,
            tx_hold_last: false,
            tx_hold_data: Vec::with_capacity(beat_bytes),
            after_partial: false,
            messages: false,
            not_open_reported: false,
        }
    }

    /// Does not report `tx_tvalid` while not established when the driven
    /// `conn_error` is high: the beat was in flight when the connection died
    /// (the user logic sees the reset a cycle after the TOE shows it). Both
    /// TOEs of the workspace (the model's, the host-stack one) use it.
    pub fn excusing_conn_error(mut self) -> Self {
        self.excuse_conn_error = true;
        self
    }

    /// Whether the session sends messages (issue 29's latency modes): each
    /// message ends with a partial `tlast` beat (unless its size is a
    /// multiple of the beat) and the next follows it, so data after a partial
    /// beat is allowed. The owner sets it as the test it runs says.
    pub fn set_messages(&mut self, messages: bool) {
        self.messages = messages;
    }

    /// Where this session's violations are reported.
    pub fn place(&self) -> Place {
        self.place
    }

    /// Checks one rising edge. `o` is what the user logic shows just before
    /// it, `i` what the TOE drove for it, `close_taken` whether a close
    /// request was taken on this connection (TX is over). Call it before the
    /// owner's handshakes of this edge and before [`SessionChecker::open_request`]
    /// or [`SessionChecker::connection_gone`] for them. No allocation.
    pub fn edge(
        &mut self,
        log: &mut ViolationLog,
        cycle: u64,
        o: &SessionOutputs,
        i: &SessionInputs,
        close_taken: bool,
    ) {
        let place = self.place;
        let beat = self.beat_bytes;

        // --- TX stream ---
        if self.tx_hold {
            if !o.tx_tvalid {
                // Giving the transfer up (abort, the watchdog) withdraws the
                // beat in the cycle the close request appears.
                if !(o.conn_req_valid && !o.conn_req_open) {
                    log.push(cycle, place, "tx_tvalid dropped before tx_tready");
                }
            } else if o.tx_tlast != self.tx_hold_last || o.tx_data != self.tx_hold_data {
                log.push(cycle, place, "TX beat (data/keep/tlast) changed while tx_tvalid and not tx_tready");
            }
            self.tx_hold = false;
        }
        if o.tx_tvalid {
            let len = o.tx_data.len();
            if len == 0 || len > beat {
                log.push(cycle, place, format_args!("TX beat of {len} bytes (1..={beat} allowed)"));
            }
            if i.tx_tready {
                if len > 0 {
                    if self.after_partial && !self.messages {
                        log.push(
                            cycle,
                            place,
                            "TX data after a partial beat (only the last beat of a transfer may be partial)",
                        );
                    }
                    let partial = len < beat;
                    if partial && !o.tx_tlast {
                        log.push(cycle, place, "partial TX beat without tlast");
                    }
                    self.after_partial |= partial;
                }
            } else if close_taken {
                self.report_not_open(log, cycle, "tx_tvalid after its close request");
            } else if !i.established {
                if !(self.excuse_conn_error && i.conn_error) {
                    self.report_not_open(log, cycle, "tx_tvalid while not established");
                }
            } else {
                // Waiting for room: the beat must stay as it is.
                self.tx_hold = true;
                self.tx_hold_last = o.tx_tlast;
                self.tx_hold_data.clear();
                self.tx_hold_data.extend_from_slice(&o.tx_data);
            }
        }

        // --- connection request ---
        let req = Request::of(o);
        if let Some(held) = self.req_hold.take() {
            if !o.conn_req_valid {
                log.push(cycle, place, "conn_req_valid dropped before conn_req_ready");
            } else if held != req {
                log.push(cycle, place, "connection request changed while valid and not ready");
            }
        }
        if o.conn_req_valid && !i.conn_req_ready {
            self.req_hold = Some(req);
        }
    }

    fn report_not_open(&mut self, log: &mut ViolationLog, cycle: u64, msg: &str) {
        if !self.not_open_reported {
            self.not_open_reported = true;
            log.push(cycle, self.place, msg);
        }
    }

    /// The owner took an open request: a new connection starts. Forgets the
    /// previous one's partial beat, its "not open" report and a waiting beat.
    pub fn open_request(&mut self) {
        self.after_partial = false;
        self.not_open_reported = false;
        self.tx_hold = false;
    }

    /// The connection is gone (fully closed, reset, cancelled, `toe_init`):
    /// a TX beat that waited for room need not stay any more.
    pub fn connection_gone(&mut self) {
        self.tx_hold = false;
    }

    /// A partial beat was taken in this connection (only the close may follow).
    pub fn after_partial(&self) -> bool {
        self.after_partial
    }

    /// A TX beat waits: it must be shown unchanged at the next edge.
    pub fn tx_waiting(&self) -> bool {
        self.tx_hold
    }

    /// A request waits: it must be shown unchanged at the next edge.
    pub fn request_waiting(&self) -> bool {
        self.req_hold.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEAT: usize = 8;

    /// One session's checker and log, and the inputs it is driven with.
    struct T {
        log: ViolationLog,
        chk: SessionChecker,
        cycle: u64,
    }

    fn t() -> T {
        T { log: ViolationLog::new(), chk: SessionChecker::new(Place::session(0), BEAT), cycle: 0 }
    }

    /// Established, `tx_tready` and `conn_req_ready` as given.
    fn ins(established: bool, tx_tready: bool, conn_req_ready: bool) -> SessionInputs {
        SessionInputs { established, tx_tready, conn_req_ready, ..Default::default() }
    }

    /// Taking inputs: established, ready for both.
    fn ready() -> SessionInputs {
        ins(true, true, true)
    }

    /// Established, TX not ready (window/buffer full).
    fn busy() -> SessionInputs {
        ins(true, false, true)
    }

    fn idle() -> SessionOutputs {
        SessionOutputs::default()
    }

    fn beat(len: usize, last: bool, fill: u8) -> SessionOutputs {
        SessionOutputs { tx_tvalid: true, tx_tlast: last, tx_data: vec![fill; len], ..Default::default() }
    }

    fn req(open: bool, active: bool, local: u16, remote: u16) -> SessionOutputs {
        SessionOutputs {
            conn_req_valid: true,
            conn_req_open: open,
            conn_req_active: active,
            conn_req_local_port: local,
            conn_req_remote_port: remote,
            ..Default::default()
        }
    }

    impl T {
        fn edge(&mut self, o: &SessionOutputs, i: &SessionInputs) -> &mut Self {
            self.edge_closed(o, i, false)
        }

        fn edge_closed(&mut self, o: &SessionOutputs, i: &SessionInputs, closed: bool) -> &mut Self {
            self.chk.edge(&mut self.log, self.cycle, o, i, closed);
            self.cycle += 1;
            self
        }

        fn clean(&self) {
            assert!(self.log.list().is_empty(), "{:#?}", self.log.list());
            assert_eq!(self.log.total(), 0);
        }

        /// Exactly one violation, containing `what`.
        fn one(&self, what: &str) {
            assert_eq!(self.log.list().len(), 1, "{:#?}", self.log.list());
            assert!(self.log.list()[0].contains(what), "expected {what:?}: {:#?}", self.log.list());
        }
    }

    #[test]
    fn tvalid_dropped_before_tready() {
        let mut x = t();
        x.edge(&beat(8, false, 1), &busy()).edge(&idle(), &busy());
        x.one("tx_tvalid dropped before tx_tready");
        assert_eq!(x.log.list()[0], "cycle 1: session 0: tx_tvalid dropped before tx_tready");

        // Held until taken, then dropped: fine.
        let mut x = t();
        x.edge(&beat(8, false, 1), &busy())
            .edge(&beat(8, false, 1), &busy())
            .edge(&beat(8, false, 1), &ready())
            .edge(&idle(), &ready());
        x.clean();

        // Withdrawn in the cycle a close request appears (the transfer given
        // up): fine; withdrawn with an open request shown instead: not.
        let mut x = t();
        x.edge(&beat(8, false, 1), &busy()).edge(&req(false, true, 1, 2), &busy());
        x.clean();
        let mut x = t();
        x.edge(&beat(8, false, 1), &busy()).edge(&req(true, true, 1, 2), &busy());
        x.one("tx_tvalid dropped before tx_tready");
    }

    #[test]
    fn tx_beat_changed_while_waiting() {
        let mut x = t();
        x.edge(&beat(8, false, 1), &busy()).edge(&beat(8, false, 2), &ready());
        x.one("TX beat (data/keep/tlast) changed while tx_tvalid and not tx_tready");
        let mut x = t();
        x.edge(&beat(8, false, 1), &busy()).edge(&beat(8, true, 1), &ready());
        x.one("changed while tx_tvalid");
        let mut x = t();
        x.edge(&beat(8, true, 1), &busy()).edge(&beat(4, true, 1), &ready());
        x.one("changed while tx_tvalid");

        let mut x = t();
        x.edge(&beat(8, true, 1), &busy())
            .edge(&beat(8, true, 1), &busy())
            .edge(&beat(8, true, 1), &ready())
            // A new beat after the taken one may differ.
            .edge(&beat(8, false, 2), &ready());
        x.clean();
    }

    #[test]
    fn beat_length_in_range() {
        for (len, bad) in [(0, true), (1, false), (BEAT, false), (BEAT + 1, true)] {
            let mut x = t();
            x.edge(&beat(len, true, 0), &ready());
            if bad {
                x.one(&format!("TX beat of {len} bytes (1..={BEAT} allowed)"));
            } else {
                x.clean();
            }
        }
        // Also checked while not ready (the beat is shown).
        let mut x = t();
        x.edge(&beat(0, true, 0), &busy());
        x.one("TX beat of 0 bytes");
    }

    #[test]
    fn partial_beat_needs_tlast() {
        let mut x = t();
        x.edge(&beat(5, false, 0), &ready());
        x.one("partial TX beat without tlast");
        // Not reported while it waits, only when taken.
        let mut x = t();
        x.edge(&beat(5, false, 0), &busy());
        x.clean();

        let mut x = t();
        x.edge(&beat(8, false, 0), &ready()).edge(&beat(5, true, 0), &ready());
        x.clean();
        assert!(x.chk.after_partial());
    }

    /// In a latency mode a message ends with a partial `tlast` beat and the
    /// next message follows; a partial beat still needs its `tlast`.
    #[test]
    fn messages_may_follow_a_partial_tlast_beat() {
        let mut x = t();
        x.chk.set_messages(true);
        x.edge(&beat(5, true, 0), &ready()).edge(&beat(8, false, 0), &ready()).edge(&beat(3, true, 0), &ready());
        x.clean();
        x.edge(&beat(3, false, 0), &ready());
        x.one("partial TX beat without tlast");
    }

    #[test]
    fn data_after_a_partial_beat() {
        let mut x = t();
        x.edge(&beat(5, true, 0), &ready()).edge(&beat(8, true, 0), &ready());
        x.one("TX data after a partial beat (only the last beat of a transfer may be partial)");

        // Full beats with tlast in between are fine; an open request starts anew.
        let mut x = t();
        x.edge(&beat(8, true, 0), &ready()).edge(&beat(8, false, 0), &ready()).edge(&beat(3, true, 0), &ready());
        x.chk.open_request();
        assert!(!x.chk.after_partial());
        x.edge(&beat(8, true, 0), &ready());
        x.clean();
    }

    #[test]
    fn tvalid_after_close_reported_once() {
        let mut x = t();
        for _ in 0..3 {
            x.edge_closed(&beat(8, true, 0), &ins(true, false, true), true);
        }
        x.one("tx_tvalid after its close request");
        assert!(!x.chk.tx_waiting(), "a refused beat after the close does not wait");
        // Still "after the close" once the connection fell.
        let mut x = t();
        x.edge_closed(&beat(8, true, 0), &ins(false, false, true), true);
        x.one("tx_tvalid after its close request");

        // Before the close, or not shown: fine.
        let mut x = t();
        x.edge(&beat(8, true, 0), &ready()).edge_closed(&idle(), &ins(true, false, true), true).edge_closed(
            &idle(),
            &ins(false, false, true),
            true,
        );
        x.clean();
    }

    #[test]
    fn tvalid_while_not_established_once_per_open() {
        let mut x = t();
        for _ in 0..3 {
            x.edge(&beat(8, false, 0), &ins(false, false, true));
        }
        x.one("tx_tvalid while not established");
        x.chk.open_request();
        x.edge(&beat(8, false, 0), &ins(false, false, true));
        assert_eq!(x.log.total(), 2, "re-armed by the open request");

        let mut x = t();
        x.edge(&idle(), &ins(false, false, true)).edge(&beat(8, false, 0), &busy()).edge(&beat(8, false, 0), &ready());
        x.clean();
    }

    #[test]
    fn conn_error_excuse_is_a_policy() {
        let err = SessionInputs { conn_error: true, ..ins(false, false, true) };
        let mut x = t();
        x.edge(&beat(8, false, 0), &err);
        x.one("tx_tvalid while not established");

        let mut x = t();
        x.chk = SessionChecker::new(Place::session(0), BEAT).excusing_conn_error();
        x.edge(&beat(8, false, 0), &err).edge(&beat(8, false, 0), &err);
        x.clean();
        // Without conn_error it is reported all the same.
        x.edge(&beat(8, false, 0), &ins(false, false, true));
        x.one("tx_tvalid while not established");
    }

    #[test]
    fn connection_gone_releases_a_waiting_beat() {
        let mut x = t();
        x.edge(&beat(8, false, 1), &busy());
        assert!(x.chk.tx_waiting());
        x.chk.connection_gone();
        assert!(!x.chk.tx_waiting());
        x.edge(&idle(), &ins(false, false, true));
        x.clean();

        let mut x = t();
        x.edge(&beat(8, false, 1), &busy());
        x.chk.open_request();
        x.edge(&idle(), &ins(false, false, true));
        x.clean();
    }

    #[test]
    fn conn_req_valid_dropped_before_ready() {
        let mut x = t();
        x.edge(&req(true, true, 1, 2), &ins(false, false, false)).edge(&idle(), &ins(false, false, false));
        x.one("conn_req_valid dropped before conn_req_ready");

        let mut x = t();
        x.edge(&req(true, true, 1, 2), &ins(false, false, false))
            .edge(&req(true, true, 1, 2), &ins(false, false, true))
            .edge(&idle(), &ins(false, false, true));
        x.clean();
        assert!(!x.chk.request_waiting());
    }

    #[test]
    fn request_changed_while_not_ready() {
        for changed in [req(false, true, 1, 2), req(true, false, 1, 2), req(true, true, 3, 2), req(true, true, 1, 3)] {
            let mut x = t();
            x.edge(&req(true, true, 1, 2), &ins(false, false, false)).edge(&changed, &ins(false, false, true));
            x.one("connection request changed while valid and not ready");
        }
        // The TX fields may change meanwhile; a taken request may be followed by another.
        let mut x = t();
        x.edge(&req(true, true, 1, 2), &ins(false, false, false));
        assert!(x.chk.request_waiting());
        let mut same = req(true, true, 1, 2);
        same.rx_tready = true;
        x.edge(&same, &ins(false, false, true)).edge(&req(false, false, 0, 0), &ins(false, false, true));
        x.clean();
    }

    #[test]
    fn log_keeps_max_and_counts_all() {
        let mut log = ViolationLog::new();
        let place = Place::board_session(1, 2);
        for c in 0..MAX_VIOLATIONS as u64 + 5 {
            log.push(c, place, "x");
        }
        assert_eq!(log.list().len(), MAX_VIOLATIONS);
        assert_eq!(log.total(), MAX_VIOLATIONS as u64 + 5);
        assert_eq!(log.list()[3], "cycle 3: board 1 session 2: x");

        let mut log = ViolationLog::new();
        log.check_outputs_len(7, Place::session(0), 2, 2);
        assert_eq!(log.total(), 0);
        log.check_outputs_len(7, Place::session(0), 1, 2);
        assert_eq!(log.list(), ["cycle 7: session 0: edge got 1 session outputs for 2 sessions"]);
    }
}
