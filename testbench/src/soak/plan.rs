//! What an iteration does: the plan's types (sessions, sides, faults, rounds)
//! and the kinds of fault the figures count. Drawing one from a seed is
//! `draw.rs`.

use std::fmt;

use crate::boards::BoardTiming;

/// The default product top, `top1024`: most iterations run on it.
pub const DEFAULT_MODEL: &str = "top1024";
/// The estimated cycles of one direction's transfer at the drawn speeds are
/// kept under this: sizes are cut (or speeds raised) to fit.
pub const CYCLE_BUDGET: u64 = 120_000;
/// Rounds of an iteration: tests one after the other on the same boards.
pub const ROUNDS: usize = 2;

/// What a session does on the two boards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    /// Test mode `disabled` on both boards; `start` is written and must do nothing.
    Disabled,
    /// Half duplex: board `from` sends, the other receives.
    Send { from: usize },
    /// Full duplex on both boards.
    FullDuplex,
}

/// One board's side of a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    pub transfer_size: u64,
    pub packet_size: u64,
    pub tx_percent: u8,
    pub rx_percent: u8,
    pub verify: bool,
    pub incremental: bool,
    /// Open-ended sessions only: the send stops `duration` cycles after
    /// `established` (0: no limit) ...
    pub duration: u64,
    /// ... or when the soak writes `ctrl.stop`, this many cycles after the
    /// clients started.
    pub stop_at: Option<u64>,
    /// Bytes of the plan's TX prefix bank ([`Plan::tx_prefix`]) this side's
    /// send begins with, in place of the stream's first bytes.
    pub prefix_length: u8,
}

/// A fault of one session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    None,
    /// The TOE flips bits `xor` of byte `offset` of the stream board `to` receives.
    Corrupt {
        to: usize,
        offset: u64,
        xor: u8,
    },
    /// Half duplex: the sender's size is smaller than the receiver's.
    PeerClosesEarly,
    /// Half duplex: the sender's size is larger than the receiver's.
    PeerSendsMore,
    /// The server is never started: the client's SYN is answered with RST.
    NobodyListening,
    /// `ctrl.abort` on board `board`, `at` cycles after the clients started.
    Abort {
        board: usize,
        at: u64,
    },
    /// A second `ctrl.start` on board `board` while its session is busy:
    /// `at` None while the server listens (before the clients start), else
    /// `at` cycles after the clients started, on a side still receiving.
    StartWhileBusy {
        board: usize,
        at: Option<u64>,
    },
}

/// One session of the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionPlan {
    pub session: usize,
    /// Bytes of the model's beat.
    pub beat: u64,
    pub usage: Use,
    /// The board that opens actively; the other listens.
    pub client: usize,
    pub sides: [Side; 2],
    pub fault: Fault,
    /// Both boards open-ended (`test_config.open_ended`): the sizes are
    /// ignored, each send ends at its side's `duration` or `stop_at`, and a
    /// receive takes what the peer sent until it closes.
    pub open: bool,
    /// The boards' TX prefix bank ([`Plan::tx_prefix`]), for the reference.
    pub tx_prefix: [u8; 64],
}

/// One iteration's plan.
#[derive(Clone, Debug)]
pub struct Plan {
    pub seed: u64,
    /// The product top both boards run (`models::TOP_MODELS`).
    pub model: &'static str,
    /// Written to the registers and taken by `toe_ctrl.init` on both boards.
    pub window_update_gap: u32,
    pub last_packet_mode: u32,
    /// Both boards' clocks and register-bus master timing.
    pub timing: BoardTiming,
    /// `ToeConfig::conn_req_ready_delay` of both TOEs (0: ready at once).
    pub conn_req_ready_delay: u64,
    /// The TX prefix bank both boards hold (`tx_prefix`): random bytes, so
    /// a verifying receiver sees each prefixed byte that differs from the
    /// pattern.
    pub tx_prefix: [u8; 64],
    /// Tests run one after the other on the same two boards: the sessions
    /// must be reusable after whatever the round before did to them.
    pub rounds: Vec<Round>,
}

/// One test of every session, on the boards of the round before.
#[derive(Clone, Debug)]
pub struct Round {
    /// A board whose TOE drops every SYN in this round (`TwoBoards::set_silent`).
    pub silent: Option<usize>,
    pub sessions: Vec<SessionPlan>,
}

/// The kinds of fault counted in the figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FaultKind {
    /// A corrupted byte the receiver verifies: must be reported with its record.
    Corrupt,
    /// A corrupted byte the receiver does not verify: must change nothing.
    CorruptUnverified,
    PeerClosesEarly,
    PeerSendsMore,
    NobodyListening,
    SilentPeer,
    /// An abort that reached its session while it ran: it must end `aborted`.
    Abort,
    /// An abort written after its session had ended: it must change nothing.
    AbortAfterEnd,
    StartWhileBusy,
    /// An open-ended session whose sends end at a `duration` (a mode, not a
    /// fault: both sides must end `done` with every byte sent received).
    OpenEndedDuration,
    /// An open-ended session whose sends end at a `ctrl.stop` at a random cycle.
    OpenEndedStop,
    /// A send that begins with bytes of the TX prefix bank (a mode: the
    /// receiver's record and count must be the reference's for those bytes).
    TxPrefix,
    ConnReqReadyDelay,
    SlowBus,
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            FaultKind::Corrupt => "corrupted byte, verified",
            FaultKind::CorruptUnverified => "corrupted byte, unverified",
            FaultKind::PeerClosesEarly => "peer closes early",
            FaultKind::PeerSendsMore => "peer sends more",
            FaultKind::NobodyListening => "nobody listening",
            FaultKind::SilentPeer => "silent peer TOE",
            FaultKind::Abort => "abort at a random cycle",
            FaultKind::AbortAfterEnd => "abort after the end",
            FaultKind::StartWhileBusy => "start while busy",
            FaultKind::OpenEndedDuration => "open-ended, duration",
            FaultKind::OpenEndedStop => "open-ended, stop",
            FaultKind::TxPrefix => "TX prefix",
            FaultKind::ConnReqReadyDelay => "conn_req_ready held low",
            FaultKind::SlowBus => "slow register bus",
        };
        f.write_str(name)
    }
}
