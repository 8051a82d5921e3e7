//! The session controller (`hdl::controller`) on one board, against a
//! scripted TOE (`testbench::scripted_toe`): the test decides exactly what
//! the TOE does and when (takes or holds off requests, raises and lowers
//! `established`, `peer_closed`, `conn_error`, reports the peer, sinks TX
//! beats and presents RX beats), so each of the controller's documented
//! behaviours that needs no second board is checked on its own. The board
//! is the product top `top64` (2 sessions of 64 bits), programmed and read
//! only through its registers with the console's operations; random parts
//! (register-bus timing) print their seed, `TB_SEED=<n>` replays.

use driver::regs;
use driver::regs::session::status::ErrorCause;
use rand::Rng;
use testbench::boards::{Board, Mode, Rig, SessionResult, SessionTest};
use testbench::scripted_toe::{Request, ScriptedToe};
use testbench::seed;

type Sim = Rig<ScriptedToe>;

/// The ports session 0 is programmed with.
const FPGA_PORT: u16 = 50_001;
const TARGET_PORT: u16 = 60_002;

/// The bound on the cycles from writing `ctrl.abort` to reading `busy` low.
/// The controller documents "a few cycles later"; this is the bound
/// `two_boards.rs` uses. It includes the register bus: the abort write's
/// crossing into the user clock and the status read that sees idle.
const ABORT_BOUND: u64 = 200;

/// One `top64` board served by a scripted TOE (every level low, `init_done` high).
fn sim(name: &str) -> Sim {
    let board = Board::new(&testbench::models::top64::top(), seed::from_env(name));
    let toe = ScriptedToe::for_board(&board);
    Rig::from_parts(vec![board], toe)
}

/// Programs session 0 with `t` and the test's ports.
fn setup(sim: &mut Sim, t: &SessionTest) {
    sim.program(0, 0, t);
    sim.ports(0, 0, FPGA_PORT, TARGET_PORT);
}

/// The open request session 0 presents for `t`.
fn open_request(t: &SessionTest) -> Request {
    Request { open: true, active: t.client, local_port: FPGA_PORT, remote_port: TARGET_PORT }
}

/// Runs one cycle at a time until `cond` holds on the TOE; the cycles it took.
fn run_until(sim: &mut Sim, max: u64, what: &str, cond: impl Fn(&ScriptedToe) -> bool) -> u64 {
    let start = sim.cycles();
    while !cond(&sim.toe) {
        assert!(sim.cycles() - start < max, "{what}: not within {max} cycles");
        sim.run(1);
    }
    sim.cycles() - start
}

/// Starts session 0 and lets the TOE take its open request at once.
fn start_and_take_open(sim: &mut Sim) {
    let opens = |t: &ScriptedToe| t.session(0).taken.iter().filter(|r| r.request.open).count();
    let before = opens(&sim.toe);
    sim.toe.session_mut(0).conn_req_ready = true;
    sim.start(0, 0);
    run_until(sim, 100, "open request taken", |t| opens(t) > before);
}

/// The connection opens: the peer as reported, `established` high.
fn establish(sim: &mut Sim, peer: (u16, u16, u8)) {
    let s = sim.toe.session_mut(0);
    (s.status.peer_port, s.status.peer_mss, s.status.peer_window_scale) = peer;
    s.status.established = true;
}

/// The TOE takes session 0's close request (if it has not yet), then
/// reports the connection fully closed (`established` low); the session
/// must go idle.
fn close_when_asked(sim: &mut Sim, max: u64) -> SessionResult {
    sim.toe.session_mut(0).conn_req_ready = true;
    run_until(sim, max, "close request taken", |t| t.session(0).taken.last().is_some_and(|r| !r.request.open));
    let s = sim.toe.session_mut(0);
    (s.status.established, s.tx_tready) = (false, false);
    assert!(sim.wait_idle(&[(0, 0)], 10, 500), "idle after the connection closed");
    sim.result(0, 0)
}

fn cause(r: &SessionResult) -> Option<ErrorCause> {
    ErrorCause::from_bits(r.error_cause)
}

fn no_violations(sim: &Sim) {
    assert!(sim.toe.session(0).violations.is_empty(), "{:?}", sim.toe.session(0).violations);
}

const PEER: (u16, u16, u8) = (40_000, 1_460, 7);

/// `start` with test mode `disabled` does nothing (no request, not busy);
/// a `start` while busy, first while the open request waits and again
/// mid-transfer, with new ports and a new size programmed, changes nothing:
/// the test runs to its end with the parameters of the first start.
#[test]
fn start_is_ignored_when_disabled_and_while_busy() {
    let mut sim = sim("start_ignored");
    let size = 4_000;
    let t = SessionTest::new(Mode::Send, size, true);
    setup(&mut sim, &t);
    let r = regs::session(0).unwrap();
    let disabled =
        regs::session::test_config::TEST_MODE.word(regs::session::test_config::TestMode::Disabled.bits()).unwrap();
    sim.write(0, r.test_config(), disabled);
    sim.toe.session_mut(0).conn_req_ready = true;
    sim.start(0, 0);
    sim.run(500);
    let res = sim.result(0, 0);
    assert!(!res.busy && !res.done && !res.error, "{res:?}");
    assert_eq!(sim.toe.session(0).presented_edges, 0, "disabled: no request presented");

    // Busy: the request waits for the TOE while software starts again.
    setup(&mut sim, &t);
    sim.toe.session_mut(0).conn_req_ready = false;
    sim.start(0, 0);
    run_until(&mut sim, 100, "open request", |t| t.session(0).presented.is_some());
    let mut other = SessionTest::new(Mode::FullDuplex, 2 * size, false);
    other.tx_percent = 50;
    sim.program(0, 0, &other);
    sim.ports(0, 0, FPGA_PORT + 1, TARGET_PORT + 1);
    sim.start(0, 0);
    sim.run(100);
    assert_eq!(sim.toe.session(0).presented, Some(open_request(&t)), "the first start's request");
    sim.toe.session_mut(0).conn_req_ready = true;
    run_until(&mut sim, 10, "open taken", |t| !t.session(0).taken.is_empty());
    establish(&mut sim, PEER);
    sim.toe.session_mut(0).tx_tready = true;
    run_until(&mut sim, 1_000, "half sent", |t| t.session(0).tx_bytes >= size / 2);
    sim.start(0, 0);
    let res = close_when_asked(&mut sim, 5_000);
    assert!(res.done && !res.error && res.closed, "{res:?}");
    assert_eq!((res.tx_bytes, res.rx_bytes), (size, 0), "the first start's size and mode");
    let s = sim.toe.session(0);
    assert_eq!(s.tx_bytes, size);
    assert_eq!(s.tx_mismatch, None);
    let taken: Vec<Request> = s.taken.iter().map(|r| r.request).collect();
    assert_eq!(taken, [open_request(&t), Request { open: false, ..open_request(&t) }], "one open, one close");
    no_violations(&sim);
}

/// An open request stays presented, unchanged, for as long as the TOE holds
/// `conn_req_ready` low (here 5,000 cycles), active for a client and passive
/// for a server, and is taken at the first edge with `conn_req_ready` high.
#[test]
fn an_open_request_waits_for_conn_req_ready_however_long() {
    const HOLD: u64 = 5_000;
    for client in [true, false] {
        let mut sim = sim(if client { "open_waits_client" } else { "open_waits_server" });
        let t = SessionTest::new(if client { Mode::Send } else { Mode::Receive }, 1_000, client);
        setup(&mut sim, &t);
        sim.start(0, 0);
        sim.run(HOLD);
        let s = sim.toe.session(0);
        assert_eq!(s.presented, Some(open_request(&t)), "client {client}");
        assert!(s.presented_for >= HOLD, "client {client}: presented for {} edges", s.presented_for);
        assert!(s.taken.is_empty());
        assert!(sim.result(0, 0).busy);
        let edge = sim.toe.cycle();
        sim.toe.session_mut(0).conn_req_ready = true;
        sim.run(1);
        let s = sim.toe.session(0);
        assert_eq!(s.taken.len(), 1, "client {client}: taken at the first ready edge");
        assert_eq!((s.taken[0].cycle, s.taken[0].request), (edge, open_request(&t)));
        sim.run(1);
        assert_eq!(sim.toe.session(0).presented, None, "valid falls once taken");
        no_violations(&sim);
    }
}

/// `conn_error` while the controller waits for `established` (the open
/// failed): `error`, cause `refused`, nothing sent, no elapsed time, and no
/// close request (there is no connection to close).
#[test]
fn conn_error_before_established_is_refused() {
    let mut sim = sim("conn_error_before_established");
    setup(&mut sim, &SessionTest::new(Mode::Send, 10_000, true));
    start_and_take_open(&mut sim);
    sim.run(300);
    sim.toe.session_mut(0).status.conn_error = true;
    assert!(sim.wait_idle(&[(0, 0)], 10, 500));
    let r = sim.result(0, 0);
    assert!(r.error && !r.done && !r.closed, "{r:?}");
    assert_eq!(cause(&r), Some(ErrorCause::Refused));
    assert_eq!((r.tx_bytes, r.elapsed), (0, 0));
    assert_eq!(sim.toe.session(0).taken.len(), 1, "no close request");
    no_violations(&sim);
}

/// `conn_error` on a running connection (a reset; `established` falls with
/// it): the controller stops the generator, presents a close request and
/// ends with cause `conn_reset`, not `refused` (which is a failed open only, as
/// `conn_error_before_established_is_refused` checks); the bytes counted are
/// those the TOE took.
#[test]
fn conn_error_while_running_is_conn_reset() {
    let mut sim = sim("conn_error_while_running");
    let size = 1 << 20;
    setup(&mut sim, &SessionTest::new(Mode::Send, size, true));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.session_mut(0).tx_tready = true;
    sim.run(500);
    let s = sim.toe.session_mut(0);
    (s.status.conn_error, s.status.established, s.tx_tready) = (true, false, false);
    run_until(&mut sim, 100, "close request", |t| t.session(0).closes() == 1);
    assert!(sim.wait_idle(&[(0, 0)], 10, 500));
    let r = sim.result(0, 0);
    println!("after a reset: {r:?}");
    assert!(r.error && !r.done, "{r:?}");
    assert_eq!(cause(&r), Some(ErrorCause::ConnReset), "a reset mid-transfer is not a refused open: {r:?}");
    assert!(r.elapsed > 0, "the timer ran from `established`: {r:?}");
    let sent = sim.toe.session(0).tx_bytes;
    assert!(sent > 0 && sent < size);
    assert_eq!(r.tx_bytes, sent);
    sim.run(200);
    assert_eq!(sim.toe.session(0).tx_bytes, sent, "the generator stopped");
    no_violations(&sim);
}

/// A reset the TOE shows only by lowering `established` (no `conn_error`,
/// no `peer_closed`) while the test runs or waits for the peer's close ends
/// the test too: while running it is `conn_reset` like a `conn_error`, with the
/// bytes moved so far counted; once every byte moved (a receiver waiting for
/// the peer's FIN) the test is `done`. Never a wait for a close that cannot
/// come.
#[test]
fn established_falling_alone_ends_the_test() {
    for mode in [Mode::Send, Mode::Receive, Mode::FullDuplex] {
        let mut sim = sim("established_falls");
        let size = 1 << 20;
        setup(&mut sim, &SessionTest::new(mode, size, true));
        start_and_take_open(&mut sim);
        establish(&mut sim, PEER);
        sim.toe.session_mut(0).tx_tready = true;
        sim.toe.send_pattern(0, 3_000);
        sim.run(500);
        let s = sim.toe.session_mut(0);
        (s.status.established, s.tx_tready) = (false, false);
        assert!(sim.wait_idle(&[(0, 0)], 10, 500), "{mode:?}: idle after the reset");
        let r = sim.result(0, 0);
        assert!(r.error && !r.done, "{mode:?}: {r:?}");
        assert_eq!(cause(&r), Some(ErrorCause::ConnReset), "{mode:?}");
        assert_eq!(r.tx_bytes, sim.toe.session(0).tx_bytes, "{mode:?}");
        if mode != Mode::Send {
            assert_eq!(r.rx_bytes, 3_000, "{mode:?}");
        }
        no_violations(&sim);
    }

    // Every expected byte arrived; the receiver waits for the peer's FIN and gets a reset.
    let mut sim = sim("established_falls_waiting");
    let size = 4_000;
    setup(&mut sim, &SessionTest::new(Mode::Receive, size, false));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.send_pattern(0, size);
    run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
    sim.run(100);
    assert!(sim.result(0, 0).busy, "waiting for the peer's close");
    sim.toe.session_mut(0).status.established = false;
    assert!(sim.wait_idle(&[(0, 0)], 10, 500), "idle after the reset");
    let r = sim.result(0, 0);
    assert!(r.done && !r.error, "{r:?}");
    assert_eq!(r.rx_bytes, size);
    no_violations(&sim);
}

/// The peer closes (`peer_closed` after its last byte left on RX) before
/// every expected byte arrived: `error`, cause `peer_closed`, `rx_bytes` and
/// the short-transfer record at what the peer sent; the controller closes.
#[test]
fn the_peer_closing_before_every_expected_byte_is_peer_closed() {
    let mut sim = sim("peer_closes_early");
    let (expected, sent) = (10_000, 6_001);
    setup(&mut sim, &SessionTest::new(Mode::Receive, expected, false));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.send_pattern(0, sent);
    run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
    sim.toe.session_mut(0).status.peer_closed = true;
    let r = close_when_asked(&mut sim, 200);
    assert!(r.error && !r.done && r.closed, "{r:?}");
    assert_eq!(cause(&r), Some(ErrorCause::PeerClosed));
    assert_eq!((r.rx_bytes, r.err_offset), (sent, sent));
    assert_eq!(sim.toe.session(0).rx_bytes(), sent);
    no_violations(&sim);
}

/// Full duplex server: the peer half-closes right after its last expected
/// byte while our transmission is held up; the controller keeps sending,
/// closes when done and ends in `done`.
#[test]
fn a_half_close_after_every_expected_byte_in_full_duplex_is_done() {
    let mut sim = sim("half_close_full_duplex");
    let size = 8_000;
    setup(&mut sim, &SessionTest::new(Mode::FullDuplex, size, false));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.send_pattern(0, size);
    run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
    sim.toe.session_mut(0).status.peer_closed = true;
    sim.run(300);
    assert_eq!(sim.toe.session(0).closes(), 0, "the server still has to send");
    assert_eq!(sim.toe.session(0).tx_bytes, 0);
    assert!(sim.result(0, 0).busy);
    sim.toe.session_mut(0).tx_tready = true;
    let r = close_when_asked(&mut sim, 5_000);
    assert!(r.done && !r.error && r.closed, "{r:?}");
    assert_eq!((r.tx_bytes, r.rx_bytes, r.err_count), (size, size, 0));
    let s = sim.toe.session(0);
    assert_eq!((s.tx_bytes, s.tx_mismatch), (size, None));
    no_violations(&sim);
}

/// The peer sends more than `transfer_size`: cause `beyond_size`, the record
/// at the first byte too many.
#[test]
fn more_than_transfer_size_is_beyond_size() {
    let mut sim = sim("beyond_size");
    let size = 4_000;
    setup(&mut sim, &SessionTest::new(Mode::Receive, size, false));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.send_pattern(0, size + 64);
    run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
    sim.toe.session_mut(0).status.peer_closed = true;
    let r = close_when_asked(&mut sim, 200);
    assert!(r.error && !r.done, "{r:?}");
    assert_eq!(cause(&r), Some(ErrorCause::BeyondSize));
    assert_eq!(r.err_offset, size);
    no_violations(&sim);
}

/// `transfer_size` 0 (REGISTERS.md): nothing to send or expect. A send test
/// opens the connection, presents no beat, closes and is `done`; a receive
/// test is `done` once the peer closes; a byte the peer sends anyway is
/// `beyond_size` at offset 0.
#[test]
fn a_zero_byte_test_opens_closes_and_is_done() {
    let mut send = sim("zero_send");
    setup(&mut send, &SessionTest::new(Mode::Send, 0, true));
    start_and_take_open(&mut send);
    establish(&mut send, PEER);
    send.toe.session_mut(0).tx_tready = true;
    let r = close_when_asked(&mut send, 500);
    assert!(r.done && !r.error && r.closed, "send: {r:?}");
    assert_eq!((r.tx_bytes, send.toe.session(0).tx_beats), (0, 0));
    no_violations(&send);

    for extra in [0, 1] {
        let mut sim = sim("zero_receive");
        setup(&mut sim, &SessionTest::new(Mode::Receive, 0, false));
        start_and_take_open(&mut sim);
        establish(&mut sim, PEER);
        sim.toe.send_pattern(0, extra);
        sim.run(300);
        assert_eq!(sim.toe.session(0).closes(), 0, "a receiver waits for the peer to close");
        assert!(sim.result(0, 0).busy);
        sim.toe.session_mut(0).status.peer_closed = true;
        let r = close_when_asked(&mut sim, 500);
        if extra == 0 {
            assert!(r.done && !r.error && r.closed, "receive: {r:?}");
            assert_eq!(r.rx_bytes, 0);
        } else {
            assert!(r.error && !r.done, "receive one byte too many: {r:?}");
            assert_eq!((cause(&r), r.err_offset), (Some(ErrorCause::BeyondSize), 0));
        }
        no_violations(&sim);
    }
}

/// One corrupted byte: cause `verify`, one error, and the first-error
/// record (offset, expected and received words) equal to what
/// `pattern::first_mismatch` finds in the bytes the TOE delivered; the
/// transfer still runs to its end.
#[test]
fn one_corrupted_byte_is_verify_with_its_first_error_record() {
    let mut sim = sim("corrupted_byte");
    let (size, offset) = (5_003, 2_345);
    setup(&mut sim, &SessionTest::new(Mode::Receive, size, false));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.send_pattern(0, size);
    sim.toe.session_mut(0).corrupt(offset, 0x40);
    run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
    sim.toe.session_mut(0).status.peer_closed = true;
    let r = close_when_asked(&mut sim, 200);
    let m = pattern::first_mismatch(&sim.toe.session(0).rx_log, 0).expect("the corruption was delivered");
    assert!(r.error && !r.done && r.closed, "{r:?}");
    assert_eq!(cause(&r), Some(ErrorCause::Verify));
    assert_eq!((r.err_offset, r.err_expected, r.err_received), (m.offset, m.expected, m.received));
    assert_eq!((r.rx_bytes, r.err_count), (size, 1));
    assert_eq!(m.offset, offset, "the TOE corrupted the byte it was told to");
    no_violations(&sim);
}

/// Writes `ctrl.abort` and polls `busy`: the cycles from the start of the
/// abort write to the read that saw the session idle.
fn abort_and_time(sim: &mut Sim) -> u64 {
    let t0 = sim.cycles();
    sim.abort(0, 0);
    let written = sim.cycles() - t0;
    while driver::ops::busy(&mut sim.bus(0), 0).unwrap() {
        assert!(sim.cycles() - t0 < 10 * ABORT_BOUND, "abort never ends the test");
    }
    let idle = sim.cycles() - t0;
    let close = sim.toe.session(0).taken.iter().rev().find(|r| !r.request.open).map(|r| r.cycle as i64 - t0 as i64);
    println!(
        "abort: write done after {written} cycles, close request taken at {close:?}, idle read after {idle} cycles"
    );
    idle
}

/// `abort` while listening (the passive open taken, `established` never
/// comes): a close request is presented and the session is idle within
/// [`ABORT_BOUND`] cycles, cause `aborted`, not `closed`.
#[test]
fn abort_while_listening_is_idle_within_the_bound() {
    let mut sim = sim("abort_while_listening");
    let t = SessionTest::new(Mode::Receive, 10_000, false);
    setup(&mut sim, &t);
    start_and_take_open(&mut sim);
    sim.run(1_000);
    let cycles = abort_and_time(&mut sim);
    assert!(cycles <= ABORT_BOUND, "idle {cycles} cycles after abort");
    let s = sim.toe.session(0);
    let taken: Vec<Request> = s.taken.iter().map(|r| r.request).collect();
    assert_eq!(taken, [open_request(&t), Request { open: false, ..open_request(&t) }]);
    let r = sim.result(0, 0);
    assert!(r.error && !r.done && !r.closed, "{r:?}");
    assert_eq!(cause(&r), Some(ErrorCause::Aborted));
    no_violations(&sim);
}

/// `abort` mid-transfer: the generator stops at once, a close request is
/// presented and the session is idle within [`ABORT_BOUND`] cycles without
/// waiting for the peer (`established` stays high), cause `aborted`.
#[test]
fn abort_mid_transfer_is_idle_within_the_bound() {
    let mut sim = sim("abort_mid_transfer");
    let size = 1 << 20;
    setup(&mut sim, &SessionTest::new(Mode::Send, size, true));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.session_mut(0).tx_tready = true;
    sim.run(2_000);
    let cycles = abort_and_time(&mut sim);
    assert!(cycles <= ABORT_BOUND, "idle {cycles} cycles after abort");
    assert_eq!(sim.toe.session(0).closes(), 1, "a close request");
    let r = sim.result(0, 0);
    assert!(r.error && !r.done, "{r:?}");
    assert_eq!(cause(&r), Some(ErrorCause::Aborted));
    let sent = sim.toe.session(0).tx_bytes;
    assert!(sent > 0 && sent < size);
    assert_eq!(r.tx_bytes, sent);
    sim.run(300);
    assert_eq!(sim.toe.session(0).tx_bytes, sent, "nothing sent after the abort");
    no_violations(&sim);
}

/// `peer_port`, `peer_mss` and `peer_window_scale` show what the TOE
/// reported when `established` rose, even after the TOE's levels change,
/// and the next test shows the next connection's.
#[test]
fn peer_registers_show_what_the_toe_reported_at_established() {
    let mut sim = sim("peer_registers");
    let t = SessionTest::new(Mode::Send, 800, true);
    for peer in [(54_321, 1_460, 7), (0xFFFF, 9_000, 14), (1, 536, 0)] {
        setup(&mut sim, &t);
        start_and_take_open(&mut sim);
        establish(&mut sim, peer);
        sim.run(5);
        establish(&mut sim, (peer.0 ^ 0x5555, peer.1 ^ 0x5555, peer.2 ^ 0x5));
        sim.toe.session_mut(0).tx_tready = true;
        let r = close_when_asked(&mut sim, 2_000);
        assert!(r.done && !r.error, "{r:?}");
        let want = (u32::from(peer.0), u32::from(peer.1), u32::from(peer.2));
        assert_eq!((r.peer_port, r.peer_mss, r.peer_window_scale), want);
        sim.toe.session_mut(0).conn_req_ready = false;
    }
    no_violations(&sim);
}

/// Runs a send test and a receive test whose TOE stalls in a fixed rhythm
/// (`on` cycles of data, then `off` cycles of none) and returns, for each,
/// `elapsed` and the cycles the TOE saw from the edge where `established`
/// rose to the edge of the last byte.
fn elapsed_against_the_toe(sim: &mut Sim, size: u64, on: u64, off: u64) -> [(u64, u64); 2] {
    let mut out = [(0, 0); 2];
    for (k, mode) in [Mode::Send, Mode::Receive].into_iter().enumerate() {
        let t = SessionTest::new(mode, size, mode == Mode::Send);
        setup(sim, &t);
        start_and_take_open(sim);
        establish(sim, PEER);
        let beat = sim.toe.beat_bytes() as u64;
        let moved = |t: &ScriptedToe| if mode == Mode::Send { t.session(0).tx_bytes } else { t.session(0).rx_bytes() };
        let mut queued = 0;
        while moved(&sim.toe) < size {
            // On: TX may move, and `on` beats of RX are offered; off: nothing moves.
            sim.toe.session_mut(0).tx_tready = mode == Mode::Send;
            if mode == Mode::Receive && queued < size {
                let n = (on * beat).min(size - queued);
                sim.toe.send_pattern(0, n);
                queued += n;
            }
            sim.run(on);
            sim.toe.session_mut(0).tx_tready = false;
            run_until(sim, 100, "RX beats taken", |t| t.session(0).rx_pending() == 0);
            sim.run(off);
        }
        sim.toe.session_mut(0).tx_tready = true;
        if mode == Mode::Receive {
            sim.toe.session_mut(0).status.peer_closed = true;
        }
        let r = close_when_asked(sim, 500);
        assert!(r.done && !r.error, "{mode:?}: {r:?}");
        let s = sim.toe.session(0);
        let last = if mode == Mode::Send { s.tx_last } else { s.rx_last }.unwrap();
        out[k] = (r.elapsed, last - s.established_at.unwrap());
        let s = sim.toe.session_mut(0);
        (s.status.peer_closed, s.conn_req_ready) = (false, false);
    }
    out
}

/// The cycles `elapsed` adds to the TOE's count (edges from the one where
/// `established` rose to the one that moved the last byte, both counted):
/// none on a send test; on a receive test the verifier's pipeline between
/// taking the last beat and reporting the transfer complete (3 cycles: the
/// beat registered, checked, then counted; it was 4 before the verifier lost
/// its mask stage).
const SEND_EXTRA: u64 = 0;
const RECEIVE_EXTRA: u64 = 3;

/// `elapsed` counts user cycles from `established` to the last byte: under
/// two different stall rhythms of the TOE it equals the edges the TOE saw
/// from the one where `established` rose to the one that moved the last
/// byte, both counted (the documented off-by-one: `last - established + 1`),
/// plus, on a receive test, the verifier's fixed completion latency.
#[test]
fn elapsed_counts_cycles_from_established_to_the_last_byte() {
    let mut sim = sim("elapsed");
    let a = elapsed_against_the_toe(&mut sim, 6_000, 100, 37);
    let b = elapsed_against_the_toe(&mut sim, 6_000, 50, 111);
    println!("(elapsed, last - established) send then receive: {a:?}, {b:?}");
    for run in [a, b] {
        let [(send, send_toe), (receive, receive_toe)] = run;
        assert_eq!(send, send_toe + 1 + SEND_EXTRA, "send");
        assert_eq!(receive, receive_toe + 1 + RECEIVE_EXTRA, "receive");
    }
    assert!(a[0].1 != b[0].1 && a[1].1 != b[1].1, "the rhythms give different times");
    no_violations(&sim);
}

/// Sets session 0's `stall_timeout` (taken at the next `start`).
fn set_stall_timeout(sim: &mut Sim, ms: u32) {
    sim.write(0, regs::session(0).unwrap().stall_timeout(), ms);
}

/// User-clock cycles of one millisecond, as the board reports its clock.
fn ms_cycles(sim: &mut Sim) -> u64 {
    u64::from(sim.user_clock_khz(0))
}

/// The TOE holds `tx_tready` low for long stretches (up to 40,000 cycles,
/// far beyond any pipeline) and presents RX beats in bursts with gaps as
/// long, in full duplex: nothing is lost, nothing is duplicated, the test
/// ends `done` with both counters exact and the data checked on both sides.
/// The watchdog (its 1-second default) does not fire on a slow TOE.
#[test]
fn long_tx_stalls_and_bursty_rx_lose_nothing() {
    let mut sim = sim("long_stalls");
    let mut rng = seed::rng("long_stalls_plan");
    let size = 40_000;
    setup(&mut sim, &SessionTest::new(Mode::FullDuplex, size, true));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    let beat = sim.toe.beat_bytes() as u64;
    let mut queued = 0;
    let mut stretches = 0;
    while sim.toe.session(0).tx_bytes < size || sim.toe.session(0).rx_bytes() < size {
        assert!(stretches < 1_000, "the transfer makes no progress");
        stretches += 1;
        let s = sim.toe.session_mut(0);
        s.tx_tready = !s.tx_tready;
        let burst = rng.gen_range(1..=64) * beat;
        if queued < size && rng.gen_bool(0.5) {
            let n = burst.min(size - queued);
            sim.toe.send_pattern(0, n);
            queued += n;
        }
        let hold = if rng.gen_bool(0.3) { rng.gen_range(5_000..40_000) } else { rng.gen_range(1..200) };
        sim.run(hold);
    }
    sim.toe.session_mut(0).status.peer_closed = true;
    let r = close_when_asked(&mut sim, 1_000);
    assert!(r.done && !r.error, "{r:?}");
    assert_eq!((r.tx_bytes, r.rx_bytes, r.err_count), (size, size, 0));
    let s = sim.toe.session(0);
    assert_eq!((s.tx_bytes, s.tx_mismatch), (size, None), "every byte sent once, in order");
    println!("{stretches} stretches of tready and RX gaps over {} cycles", sim.cycles());
    no_violations(&sim);
}

/// A window that stays shut: the TOE stops taking TX beats for good. With
/// `stall_timeout` at 1 ms the test ends `stalled` one millisecond after the
/// last beat (within a few cycles; the bound below includes the register
/// reads that see it), having asked to close; the bytes the TOE took are
/// counted. The same with a TOE that then never takes the close: a second
/// millisecond later the request is given up and the session is idle.
#[test]
fn a_window_that_stays_shut_ends_the_test_stalled() {
    for toe_takes_the_close in [true, false] {
        let mut sim = sim(if toe_takes_the_close { "window_shut" } else { "window_shut_close_ignored" });
        let ms = ms_cycles(&mut sim);
        set_stall_timeout(&mut sim, 1);
        setup(&mut sim, &SessionTest::new(Mode::Send, 1 << 20, true));
        start_and_take_open(&mut sim);
        establish(&mut sim, PEER);
        sim.toe.session_mut(0).tx_tready = true;
        sim.run(1_000);
        sim.toe.session_mut(0).tx_tready = false;
        let shut = sim.toe.cycle();
        let sent = sim.toe.session(0).tx_bytes;
        sim.toe.session_mut(0).conn_req_ready = false;
        let waited = run_until(&mut sim, ms + 200, "close request after the stall", |t| t.session(0).presented_for > 0);
        let since = sim.toe.cycle() - shut;
        assert!((ms..ms + 10).contains(&since), "close requested {since} cycles after the last beat, 1 ms = {ms}");
        println!("window shut: close requested {since} cycles after the last beat ({waited} waited)");
        if toe_takes_the_close {
            let r = close_when_asked(&mut sim, 100);
            assert!(r.error && !r.done, "{r:?}");
            assert_eq!(cause(&r), Some(ErrorCause::Stalled));
            assert_eq!(r.tx_bytes, sent);
            no_violations(&sim);
        } else {
            assert!(sim.wait_idle(&[(0, 0)], 100, ms + 500), "idle a millisecond after the close was not taken");
            let r = sim.result(0, 0);
            assert_eq!(cause(&r), Some(ErrorCause::Stalled), "{r:?}");
            assert!(sim.toe.session(0).closes() == 0, "the close was never taken");
            let v = &sim.toe.session(0).violations;
            assert!(
                v.len() == 1 && v[0].contains("changed to None"),
                "the given-up request is the one violation: {v:?}"
            );
        }
        assert_eq!(sim.toe.session(0).tx_bytes, sent, "nothing sent after the stall");
    }
}

/// A peer that sends every expected byte and never closes: with
/// `stall_timeout` at 2 ms the receiver ends `stalled` two milliseconds
/// later, with every byte counted and verified, and closes. With
/// `stall_timeout` 0 (never) it waits: still busy 3 ms later, and done
/// when the peer finally closes.
#[test]
fn a_peer_that_never_closes_ends_the_test_stalled_unless_the_watchdog_is_off() {
    for timeout in [2, 0] {
        let mut sim = sim(&format!("peer_never_closes_{timeout}"));
        let ms = ms_cycles(&mut sim);
        set_stall_timeout(&mut sim, timeout);
        let size = 5_000;
        setup(&mut sim, &SessionTest::new(Mode::Receive, size, false));
        start_and_take_open(&mut sim);
        establish(&mut sim, PEER);
        sim.toe.send_pattern(0, size);
        run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
        let last = sim.toe.cycle();
        if timeout == 0 {
            sim.run(3 * ms);
            assert!(sim.result(0, 0).busy, "the watchdog is off: still waiting for the peer");
            sim.toe.session_mut(0).status.peer_closed = true;
            let r = close_when_asked(&mut sim, 1_000);
            assert!(r.done && r.rx_bytes == size, "{r:?}");
        } else {
            run_until(&mut sim, 2 * ms + 200, "close request after the stall", |t| t.session(0).presented_for > 0);
            let since = sim.toe.cycle() - last;
            assert!((2 * ms..2 * ms + 10).contains(&since), "stalled after {since} cycles, 1 ms = {ms}");
            let r = close_when_asked(&mut sim, 100);
            assert_eq!(cause(&r), Some(ErrorCause::Stalled), "{r:?}");
            assert_eq!((r.rx_bytes, r.err_count), (size, 0));
        }
        no_violations(&sim);
    }
}

/// `abort` when the TOE never takes the close request (and the watchdog is
/// off): the session gives the request up after one millisecond and is idle,
/// cause `aborted`; the given-up request is the TOE's broken contract, the
/// one violation the scripted TOE records. Without that bound the session
/// would wait for ever.
#[test]
fn abort_is_idle_within_a_millisecond_when_the_toe_never_takes_the_close() {
    let mut sim = sim("abort_close_ignored");
    let ms = ms_cycles(&mut sim);
    set_stall_timeout(&mut sim, 0);
    setup(&mut sim, &SessionTest::new(Mode::Send, 1 << 20, true));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.session_mut(0).tx_tready = true;
    sim.run(1_000);
    sim.toe.session_mut(0).conn_req_ready = false;
    let t0 = sim.cycles();
    sim.abort(0, 0);
    assert!(sim.wait_idle(&[(0, 0)], 50, ms + ABORT_BOUND), "idle within 1 ms of abort");
    let idle = sim.cycles() - t0;
    println!("abort with the close never taken: idle after {idle} cycles (1 ms = {ms})");
    assert!(idle >= ms, "the request was given up after {idle} cycles, before a millisecond");
    let r = sim.result(0, 0);
    assert_eq!(cause(&r), Some(ErrorCause::Aborted), "{r:?}");
    assert_eq!(sim.toe.session(0).closes(), 0);
    let v = &sim.toe.session(0).violations;
    assert!(v.len() == 1 && v[0].contains("changed to None"), "{v:?}");
    // The session runs again.
    sim.toe.session_mut(0).violations.clear();
    sim.toe.session_mut(0).status.established = false;
    sim.run(10);
    setup(&mut sim, &SessionTest::new(Mode::Send, 1_000, true));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    let r = close_when_asked(&mut sim, 5_000);
    assert!(r.done && r.tx_bytes == 1_000, "{r:?}");
    no_violations(&sim);
}

/// Session 0's test `t`, open-ended (`test_config.open_ended`).
fn open_ended(mut t: SessionTest) -> SessionTest {
    t.open_ended = true;
    t
}

/// An open-ended send ignores `transfer_size` and runs until `ctrl.stop`:
/// with the TOE holding `tx_tready` low when the stop is written, exactly
/// two beats follow once it rises (the beat already presented, which
/// AXI4-Stream forbids changing, then one whole beat marked `tlast`); the
/// session closes, and the test is `done` with `tx_bytes` equal to what the
/// TOE took, all of it the pattern.
#[test]
fn stop_ends_an_open_ended_send_on_a_tlast_beat_and_the_test_is_done() {
    let mut sim = sim("stop_open_send");
    let size = 100;
    setup(&mut sim, &open_ended(SessionTest::new(Mode::Send, size, true)));
    start_and_take_open(&mut sim);
    establish(&mut sim, PEER);
    sim.toe.session_mut(0).tx_tready = true;
    sim.run(2_000);
    sim.toe.session_mut(0).tx_tready = false;
    sim.run(5);
    let before = sim.toe.session(0).tx_beats;
    assert!(before * 8 > 10 * size, "the size is ignored: {before} beats sent");
    assert_eq!(sim.toe.session(0).closes(), 0, "an open-ended send runs on");
    assert!(sim.result(0, 0).busy);
    sim.stop(0, 0);
    sim.run(50);
    assert_eq!(sim.toe.session(0).tx_beats, before, "no beat moves while tx_tready is low");
    sim.toe.session_mut(0).tx_tready = true;
    let r = close_when_asked(&mut sim, 500);
    assert!(r.done && !r.error && r.closed, "{r:?}");
    let s = sim.toe.session(0);
    assert_eq!(s.tx_beats - before, 2, "the presented beat, then the stop's beat");
    assert!(s.tx_last_tlast, "the stream ends on a tlast beat");
    assert_eq!((r.tx_bytes, s.tx_mismatch), (s.tx_bytes, None));
    assert!(s.tx_last.unwrap() < s.taken.last().unwrap().cycle, "no beat after the close");
    no_violations(&sim);
}

/// `elapsed` at the end of a send cut by `duration`, beyond `duration`:
/// the send ends 4 cycles after `elapsed` reached it (the compare is
/// registered, so is the stop, the generator loads the stop's beat at the
/// next edge and the TOE takes it at the one after), and `elapsed` counts
/// one more than the edges the TOE saw (`last - established + 1`, as
/// `elapsed_counts_cycles_from_established_to_the_last_byte` checks).
const DURATION_EXTRA: u64 = 5;

/// `duration` ends the send that many cycles after `established`, whether
/// the test is open-ended or sized (a size it does not reach): the test is
/// `done`, `elapsed` is `duration + DURATION_EXTRA`, and with `tx_tready`
/// always high every cycle in between moved a beat. A stop written before
/// the connection is established sends nothing at all.
#[test]
fn duration_ends_the_send_that_many_cycles_after_established() {
    let mut sim = sim("duration");
    let duration = 3_001;
    for open in [true, false] {
        let mut t = SessionTest::new(Mode::Send, 1 << 40, true);
        (t.open_ended, t.duration) = (open, duration);
        setup(&mut sim, &t);
        start_and_take_open(&mut sim);
        sim.toe.session_mut(0).tx_tready = true;
        establish(&mut sim, PEER);
        let r = close_when_asked(&mut sim, 2 * duration);
        assert!(r.done && !r.error, "open {open}: {r:?}");
        assert_eq!(r.elapsed, duration + DURATION_EXTRA, "open {open}");
        let s = sim.toe.session(0);
        assert_eq!(r.elapsed, s.tx_last.unwrap() - s.established_at.unwrap() + 1, "open {open}");
        assert_eq!(s.tx_beats, s.tx_last.unwrap() - s.tx_first.unwrap() + 1, "open {open}: a beat every cycle");
        assert_eq!((r.tx_bytes, s.tx_bytes, s.tx_mismatch), (s.tx_beats * 8, s.tx_beats * 8, None), "open {open}");
        assert!(s.tx_last_tlast, "open {open}");
        let s = sim.toe.session_mut(0);
        (s.conn_req_ready, s.tx_tready) = (false, false);
    }

    setup(&mut sim, &open_ended(SessionTest::new(Mode::Send, 4_000, true)));
    sim.toe.session_mut(0).conn_req_ready = true;
    sim.start(0, 0);
    sim.stop(0, 0);
    sim.toe.session_mut(0).tx_tready = true;
    establish(&mut sim, PEER);
    let r = close_when_asked(&mut sim, 500);
    assert!(r.done && !r.error, "{r:?}");
    assert_eq!((r.tx_bytes, sim.toe.session(0).tx_beats), (0, 0), "stopped before established: nothing sent");
    no_violations(&sim);
}

/// An open-ended receive takes any number of bytes (here more than
/// `transfer_size`, ending on a partial beat) and is `done` when the peer
/// closes; a corrupted byte is still a verification error with its record.
#[test]
fn an_open_ended_receive_takes_every_byte_until_the_peer_closes() {
    let mut sim = sim("open_receive");
    let (size, sent) = (1_000, 6_001);
    for corrupt in [None, Some(5_000)] {
        setup(&mut sim, &open_ended(SessionTest::new(Mode::Receive, size, false)));
        let closes = sim.toe.session(0).closes();
        start_and_take_open(&mut sim);
        establish(&mut sim, PEER);
        sim.toe.send_pattern(0, sent);
        if let Some(offset) = corrupt {
            sim.toe.session_mut(0).corrupt(offset, 0x10);
        }
        run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
        sim.run(100);
        assert_eq!(sim.toe.session(0).closes(), closes, "{corrupt:?}: the receiver waits for the peer's close");
        sim.toe.session_mut(0).status.peer_closed = true;
        let r = close_when_asked(&mut sim, 200);
        assert_eq!(r.rx_bytes, sent, "{corrupt:?}");
        let s = sim.toe.session(0);
        let last = s.rx_last.unwrap() - s.established_at.unwrap();
        assert!(r.elapsed > last + 100, "{corrupt:?}: elapsed {} runs to the peer's close", r.elapsed);
        match corrupt {
            None => assert!(r.done && !r.error && r.closed && r.err_count == 0, "{r:?}"),
            Some(offset) => {
                assert!(r.error && !r.done, "{r:?}");
                assert_eq!((cause(&r), r.err_count, r.err_offset), (Some(ErrorCause::Verify), 1, offset));
            }
        }
        let s = sim.toe.session_mut(0);
        (s.status.peer_closed, s.conn_req_ready) = (false, false);
    }
    no_violations(&sim);
}

/// Open-ended full duplex: the session closes its direction when its send
/// ends (a half-close, one close request) and receives on; the test ends
/// `done` once the peer closes and the connection is down, with every byte
/// counted both ways. A server and a client behave alike, so two
/// open-ended peers never wait for each other's close.
#[test]
fn open_ended_full_duplex_half_closes_when_its_send_ends_and_receives_on() {
    let mut sim = sim("open_full_duplex");
    for client in [false, true] {
        setup(&mut sim, &open_ended(SessionTest::new(Mode::FullDuplex, 64, client)));
        start_and_take_open(&mut sim);
        establish(&mut sim, PEER);
        sim.toe.session_mut(0).tx_tready = true;
        sim.toe.send_pattern(0, 3_000);
        sim.run(500);
        let closes = sim.toe.session(0).closes();
        sim.stop(0, 0);
        run_until(&mut sim, 200, "half-close taken", |t| t.session(0).closes() == closes + 1);
        sim.toe.send_pattern(0, 5_000);
        run_until(&mut sim, 5_000, "RX drained", |t| t.session(0).rx_pending() == 0);
        sim.run(100);
        let r = sim.result(0, 0);
        assert!(r.busy && !r.done && !r.closed, "client {client}: receiving goes on after the half-close: {r:?}");
        sim.toe.session_mut(0).status.peer_closed = true;
        sim.run(50);
        let s = sim.toe.session_mut(0);
        (s.status.established, s.tx_tready) = (false, false);
        assert!(sim.wait_idle(&[(0, 0)], 10, 500), "client {client}: idle after the connection closed");
        let r = sim.result(0, 0);
        assert!(r.done && !r.error && r.closed, "client {client}: {r:?}");
        let s = sim.toe.session(0);
        assert_eq!(s.closes(), closes + 1, "client {client}: one close request");
        assert_eq!((r.rx_bytes, r.err_count), (8_000, 0), "client {client}");
        assert_eq!((r.tx_bytes, s.tx_mismatch), (s.tx_bytes, None), "client {client}");
        assert!(
            r.elapsed > s.rx_last.unwrap() - s.established_at.unwrap(),
            "client {client}: elapsed covers both ways"
        );
        let s = sim.toe.session_mut(0);
        (s.status.peer_closed, s.conn_req_ready) = (false, false);
    }
    no_violations(&sim);
}
