//! Checking both sides of a session after a round against the reference
//! (exact without an abort, the invariants with one), and counting the
//! faults handled as the reference says.

use super::plan::{Fault, FaultKind, Round, SessionPlan, Use};
use super::reference::{expect, Record, Stream};
use super::run::{Outcome, ToeView};
use crate::boards::SessionResult;
use crate::demo;
use driver::regs::session::status::ErrorCause;

fn cause_name(c: Option<ErrorCause>) -> &'static str {
    c.map_or("(not started)", |c| if c == ErrorCause::None { "done" } else { c.name() })
}

/// The cause a result shows: `None` for a side that shows neither `done` nor `error`.
fn shown(r: &SessionResult) -> Option<ErrorCause> {
    match (r.done, r.error) {
        (false, false) => None,
        (true, false) => Some(ErrorCause::None),
        _ => Some(ErrorCause::from_bits(r.error_cause).unwrap_or(ErrorCause::None)),
    }
}

/// Checks both sides of session `p` against the reference; adds problems
/// and figures to `out`.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_session(
    round: &Round,
    p: &SessionPlan,
    results: &[SessionResult; 2],
    prev: &[SessionResult; 2],
    views: &[ToeView; 2],
    aborted_by_soak: [bool; 2],
    started_twice: bool,
    cycles: u64,
    out: &mut Outcome,
) {
    let s = p.session;
    let mut problems = Vec::new();
    // An abort that reached a running session makes the outcome depend on
    // timing; one written after its session ended must change nothing, so
    // the session is then checked exactly.
    let abort = match p.fault {
        Fault::Abort { board, .. } if shown(&results[board]) == Some(ErrorCause::Aborted) => Some(board),
        _ => None,
    };
    for b in 0..2 {
        let r = &results[b];
        let v = &views[b];
        let peer = &views[1 - b];
        let mut fail = |what: String| problems.push(format!("board {b} session {s}: {what}; read {r:?}"));
        if r.busy {
            continue; // reported as a hang
        }
        let got = shown(r);
        let exact = expect(round, p, b, [views[0].sent, views[1].sent]);
        if exact.cause.is_none() {
            // Never started (or disabled): the registers read as after the
            // round before, but for `done`/`error` (and so `error_cause`),
            // which the start of a disabled session clears.
            let mut want = prev[b];
            if p.usage == Use::Disabled {
                (want.done, want.error, want.error_cause) = (false, false, 0);
            }
            want.connected = r.connected;
            if *r != want {
                fail(format!("a session that was not started changed: it read {want:?}"));
            }
            continue;
        }
        out.bytes += r.tx_bytes;
        // Counters against the TOE model: exact for every side that ran.
        if r.tx_bytes != v.sent {
            fail(format!("tx_bytes {} but the TOE took {} bytes", r.tx_bytes, v.sent));
        }
        if r.rx_bytes != v.taken {
            fail(format!("rx_bytes {} but the TOE delivered {} bytes", r.rx_bytes, v.taken));
        }
        if v.taken > peer.sent {
            fail(format!("received {} bytes, the peer sent only {}", v.taken, peer.sent));
        }
        let loose = abort.is_some();
        if !loose {
            if got != exact.cause {
                fail(format!("ended {}, expected {}", cause_name(got), cause_name(exact.cause)));
                if exact.cause == Some(ErrorCause::None) && got.is_some() {
                    out.false_alarms += 1;
                }
            }
            if (r.tx_bytes, r.rx_bytes) != (exact.tx, exact.rx) {
                fail(format!("tx/rx bytes ({}, {}), expected ({}, {})", r.tx_bytes, r.rx_bytes, exact.tx, exact.rx));
            }
            if r.closed != exact.closed {
                fail(format!("closed {}, expected {}", r.closed, exact.closed));
            }
        } else {
            // An abort at a random cycle: the ends a side can see, and the invariants.
            // `refused`: the open failed (the aborted side cancelled it);
            // `conn_reset`: the connection was reset once open (the aborted side
            // cancelled a half-open one, or started again before its peer
            // closed).
            let mut allowed = vec![exact.cause, Some(ErrorCause::None), Some(ErrorCause::PeerClosed)];
            allowed.extend([Some(ErrorCause::Refused), Some(ErrorCause::ConnReset)]);
            if abort == Some(b) || aborted_by_soak[b] {
                allowed.push(Some(ErrorCause::Aborted));
            }
            if p.receives(b) {
                allowed.push(Some(ErrorCause::Verify));
            }
            if !allowed.contains(&got) {
                fail(format!("ended {} after an abort on board {abort:?}", cause_name(got)));
            }
            if got == Some(ErrorCause::None) && (r.tx_bytes, r.rx_bytes) != (exact.tx, exact.rx) {
                fail(format!(
                    "done with tx/rx bytes ({}, {}), expected ({}, {})",
                    r.tx_bytes, r.rx_bytes, exact.tx, exact.rx
                ));
            }
            if r.tx_bytes > exact.tx || r.rx_bytes > exact.rx {
                fail(format!(
                    "tx/rx bytes ({}, {}) above the sizes ({}, {})",
                    r.tx_bytes, r.rx_bytes, exact.tx, exact.rx
                ));
            }
            if got == Some(ErrorCause::PeerClosed) && !(p.receives(b) && r.rx_bytes < exact.rx) {
                fail("peer_closed without a short transfer".into());
            }
        }
        // The first-error record, from the pattern model and the bytes received.
        if p.receives(b) && got.is_some() {
            let short = got == Some(ErrorCause::PeerClosed);
            let (rec, count) = Stream { p, to: b }.record(r.rx_bytes, short);
            if loose && got == Some(ErrorCause::Verify) && !matches!(rec, Some(Record::Mismatch { .. })) {
                fail("verify without a mismatch in the bytes received".into());
            }
            if r.err_count != count {
                fail(format!("err_count {}, expected {count} (record {rec:?})", r.err_count));
            }
            match rec {
                None => {
                    if r.err_offset != 0 {
                        fail(format!("err_offset {} with no error expected", r.err_offset));
                    }
                }
                Some(Record::Mismatch { offset, expected, received }) => {
                    if (r.err_offset, r.err_expected, r.err_received) != (offset, expected, received) {
                        fail(format!(
                            "first error at {} expected {:#010x} received {:#010x}; the model says {offset} {expected:#010x} {received:#010x}",
                            r.err_offset, r.err_expected, r.err_received
                        ));
                    }
                }
                Some(rec) => {
                    if r.err_offset != rec.offset() {
                        fail(format!("err_offset {}, expected {rec:?}", r.err_offset));
                    }
                }
            }
        }
        if !p.receives(b) && (r.err_count, r.err_offset) != (0, 0) {
            fail("an error record on a side that receives nothing".into());
        }
        if got == Some(ErrorCause::None) && p.usage != Use::Disabled {
            let (fpga, _) = demo::ports(1 - b, s);
            if (r.peer_port, r.peer_mss, r.peer_window_scale) != (u32::from(fpga), 8948, 5) {
                fail(format!("peer port/MSS/window scale {} {} {}", r.peer_port, r.peer_mss, r.peer_window_scale));
            }
            // At most a beat a cycle moves each way, and the timer runs
            // inside the simulation.
            let beats = r.tx_bytes.max(r.rx_bytes).div_ceil(p.beat);
            if r.elapsed == 0 || r.elapsed + 2 < beats || r.elapsed > cycles {
                fail(format!("done with elapsed {} for {beats} beats in {cycles} cycles", r.elapsed));
            }
            // A send cut by its duration ran that long.
            let duration = p.sides[b].duration;
            if p.open && p.sends(b) && duration > 0 && r.elapsed < duration {
                fail(format!("an open-ended send of duration {duration} ended after {} cycles", r.elapsed));
            }
        }
        // `refused` is an open that failed, so the timer (which starts at
        // `established`) never ran; a reset once open is `conn_reset`.
        if got == Some(ErrorCause::Refused) && r.elapsed != 0 {
            fail(format!("refused with elapsed {}: a reset once established must be `conn_reset`", r.elapsed));
        }
    }
    // Figures: a fault handled as the reference says.
    if problems.is_empty() {
        let kind = match p.fault {
            Fault::Corrupt { to, .. } => Some(p.corrupt_kind(to)),
            Fault::PeerClosesEarly => Some(FaultKind::PeerClosesEarly),
            Fault::PeerSendsMore => Some(FaultKind::PeerSendsMore),
            Fault::NobodyListening => Some(FaultKind::NobodyListening),
            Fault::Abort { board, .. } if shown(&results[board]) == Some(ErrorCause::Aborted) => Some(FaultKind::Abort),
            Fault::Abort { .. } => {
                // Too late: counted as its own kind, which must change nothing.
                if let Some(i) = out.injected.iter().position(|k| *k == FaultKind::Abort) {
                    out.injected[i] = FaultKind::AbortAfterEnd;
                }
                Some(FaultKind::AbortAfterEnd)
            }
            Fault::StartWhileBusy { .. } if started_twice => Some(FaultKind::StartWhileBusy),
            _ => None,
        };
        out.handled.extend(kind);
        out.handled.extend(p.open_kind(round.silent));
        out.handled.extend(p.prefix_kind(round.silent));
        if round.silent == Some(p.server()) && p.usage != Use::Disabled && p.fault != Fault::NobodyListening {
            out.handled.push(FaultKind::SilentPeer);
        }
    }
    if !problems.is_empty() {
        problems
            .push(format!("session {s} both sides: board 0 {:?}; board 1 {:?}; TOE {views:?}", results[0], results[1]));
    }
    out.problems.extend(problems);
}
