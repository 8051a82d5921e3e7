//! Behaviour of the TOE + link model, driven by the ideal user logic of
//! `common` (the way the verilator glue drives it).

mod common;

use common::{half_duplex, Bench, Plan, RxRate};
use toe_model::{GlobalOutputs, LinkConfig, SessionOutputs, ToeConfig, TwoBoards};

const L: u64 = 250;
const BPC: f64 = 24_751.0 / 250.0; // 99.004 bytes per cycle

fn toe() -> [ToeConfig; 2] {
    [ToeConfig::default(), ToeConfig::default()]
}

fn open_plan(active: bool, local: u16, remote: u16, at: u64) -> Plan {
    Plan { open_at: Some(at), active, local_port: local, remote_port: remote, ..Plan::default() }
}

// ---------------------------------------------------------------- handshake

#[test]
fn active_passive_open_reports_peer_parameters() {
    let mut cfg = toe();
    cfg[1].mss = 9000;
    cfg[1].rx_buffer_bytes = 64 << 10; // 64 KB: shift 1
    let plans = [vec![open_plan(true, 60000, 61000, 10)], vec![open_plan(false, 61000, 0, 2)]];
    let mut bench = Bench::new(LinkConfig::default(), cfg, plans, "open");
    bench.run_to(10 + 4 * L);
    let (a, b) = (&bench.users[0][0], &bench.users[1][0]);
    assert_eq!(a.established_at, Some(10 + 2 * L), "active side after two latencies");
    assert_eq!(b.established_at, Some(10 + 3 * L), "passive side after the final ACK");
    assert_eq!(a.peer, (61000, 9000, 1));
    assert_eq!(b.peer, (60000, 8948, 5));
    assert_eq!(a.error_at, None);
    assert_eq!(b.error_at, None);
    bench.assert_clean();
}

#[test]
fn listener_matched_by_port_not_by_index() {
    // board 1 session 0 listens on 61001, session 1 on 61000.
    let plans = [
        vec![open_plan(true, 60000, 61000, 10), open_plan(true, 60001, 61001, 10)],
        vec![open_plan(false, 61001, 0, 1), open_plan(false, 61000, 0, 1)],
    ];
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "ports");
    bench.run_to(10 + 4 * L);
    assert_eq!(bench.users[1][0].peer.0, 60001);
    assert_eq!(bench.users[1][1].peer.0, 60000);
    assert_eq!(bench.users[0][0].peer.0, 61000);
    assert_eq!(bench.users[0][1].peer.0, 61001);
    bench.assert_clean();
}

#[test]
fn open_without_listener_is_refused() {
    let plans = [vec![open_plan(true, 60000, 61000, 10)], vec![open_plan(false, 61005, 0, 1)]];
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "refused");
    bench.run_to(10 + 10 * L);
    let a = &bench.users[0][0];
    assert_eq!(a.error_at, Some(10 + 2 * L));
    assert_eq!(a.established_at, None);
    assert_eq!(bench.users[1][0].established_at, None);
    assert_eq!(bench.users[1][0].error_at, None);
    assert_eq!(bench.tb.stats(1).rsts, 0, "RST answers are not counted as sent by the user");
    bench.assert_clean();
}

#[test]
fn silent_peer_times_out() {
    let mut cfg = toe();
    cfg[0].syn_timeout_cycles = 5_000;
    let plans = [vec![open_plan(true, 60000, 61000, 10)], vec![open_plan(false, 61000, 0, 1)]];
    let mut bench = Bench::new(LinkConfig::default(), cfg, plans, "silent");
    bench.tb.set_silent(1, true);
    bench.run_to(10 + 6_000);
    assert_eq!(bench.users[0][0].error_at, Some(10 + 5_000));
    assert_eq!(bench.users[0][0].established_at, None);
    assert_eq!(bench.users[1][0].established_at, None);
    bench.assert_clean();
}

#[test]
fn close_while_listening_cancels_and_open_clears_error() {
    let mut b1 = open_plan(false, 61000, 0, 1);
    b1.close_at = Some(5);
    let plans = [vec![open_plan(true, 60000, 61000, 10)], vec![b1]];
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "cancel");
    bench.run_to(10 + 3 * L);
    assert_eq!(bench.users[0][0].error_at, Some(10 + 2 * L), "listen was cancelled: refused");
    let b = &bench.users[1][0];
    assert_eq!((b.established_at, b.error_at), (None, None), "a cancelled listen raises nothing");

    // Listen again, then open again from board 0: the error clears and it connects.
    bench.users[1][0].plan.open_at = Some(bench.tb.cycle() + 1);
    let again = bench.tb.cycle() + 10;
    bench.users[0][0].plan.open_at = Some(again);
    bench.run_to(again + 2);
    assert!(!bench.users[0][0].inp.conn_error, "an open request clears conn_error");
    bench.run_to(again + 3 * L + 2);
    assert_eq!(bench.users[0][0].established_at, Some(again + 2 * L));
    bench.assert_clean();
}

#[test]
fn close_while_syn_pending_cancels() {
    let mut cfg = toe();
    cfg[0].syn_timeout_cycles = 2_000;
    let mut a = open_plan(true, 60000, 61000, 10);
    a.close_at = Some(100);
    let plans = [vec![a], vec![open_plan(false, 61000, 0, 1)]];
    let mut bench = Bench::new(LinkConfig::default(), cfg, plans, "cancel-syn");
    bench.run_to(5_000);
    let (a, b) = (&bench.users[0][0], &bench.users[1][0]);
    assert_eq!((a.established_at, a.error_at), (None, None));
    assert_eq!((b.established_at, b.error_at), (None, None), "the listener went back to listening");
    bench.assert_clean();
}

#[test]
fn close_with_nothing_open_has_no_effect() {
    let mut a = Plan { close_at: Some(5), ..Plan::default() };
    a.local_port = 1;
    let plans = [vec![a], vec![Plan::default()]];
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "close-idle");
    bench.run_to(100);
    let a = &bench.users[0][0];
    assert_eq!(a.close_taken_at, Some(5));
    assert_eq!((a.established_at, a.error_at, a.peer_closed_at), (None, None, None));
    bench.assert_clean();
}

#[test]
fn init_drops_connections_and_latches_parameters() {
    let mut cfg = toe();
    cfg[0].init_cycles = 500;
    let plans = [vec![open_plan(true, 60000, 61000, 10)], vec![open_plan(false, 61000, 0, 1)]];
    let mut bench = Bench::new(LinkConfig::default(), cfg, plans, "init");
    assert!(bench.tb.init_done(0), "initialised at power-up");
    bench.global[0].window_update_gap = 9;
    bench.step();
    assert_eq!(bench.tb.params(0).window_update_gap, 9, "levels followed before the first toe_init");
    bench.run_to(10 + 3 * L + 5);
    assert!(bench.users[0][0].inp.established && bench.users[1][0].inp.established);

    let init_at = bench.tb.cycle();
    bench.global[0] = GlobalOutputs { init: true, last_packet_mode: 2, window_update_gap: 3 };
    bench.step();
    assert!(!bench.tb.init_done(0));
    assert_eq!(bench.tb.params(0), GlobalOutputs { init: false, last_packet_mode: 2, window_update_gap: 3 });
    bench.global[0].window_update_gap = 7;
    bench.run_to(init_at + L + 5);
    assert_eq!(bench.tb.params(0).window_update_gap, 3, "parameters are latched at toe_init");
    let (a, b) = (&bench.users[0][0], &bench.users[1][0]);
    assert_eq!(a.established_fell_at, Some(init_at + 1));
    assert_eq!(a.error_at, Some(init_at + 1));
    assert_eq!(b.established_fell_at, Some(init_at + L), "the peer gets the RST");
    assert_eq!(b.error_at, Some(init_at + L));
    assert!(!bench.tb.init_done(0));
    bench.run_to(init_at + 500);
    assert!(bench.tb.init_done(0));
    bench.assert_clean();
}

#[test]
fn open_before_init_done_fails() {
    let mut cfg = toe();
    cfg[0].init_cycles = 100;
    let plans = [vec![open_plan(true, 60000, 61000, 10)], vec![open_plan(false, 61000, 0, 1)]];
    let mut bench = Bench::new(LinkConfig::default(), cfg, plans, "open-before-init");
    bench.global[0].init = true;
    bench.run_to(20);
    assert_eq!(bench.users[0][0].error_at, Some(11), "open before init done fails");
    // After init_done, a new open request clears the error and connects.
    bench.users[0][0].plan.open_at = Some(200);
    bench.run_to(200 + 2 * L + 2);
    let a = &bench.users[0][0];
    assert!(!a.inp.conn_error);
    assert_eq!(a.established_at, Some(200 + 2 * L));
    bench.assert_clean();
}

// ---------------------------------------------------------------- throughput

#[test]
fn one_session_full_rate() {
    let bytes = 20_000_037; // partial last beat
    let plans = half_duplex(1, bytes, &[RxRate::Full]);
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "one-session");
    let done = bench.run_until(400_000, |b| {
        b.users[0][0].established_fell_at.is_some() && b.users[1][0].established_fell_at.is_some()
    });
    assert!(done, "transfer and close finished");
    bench.assert_clean();
    let (tx, rx) = (&bench.users[0][0], &bench.users[1][0]);
    let cycles = (tx.tx_done_at.unwrap() - tx.tx_first_at.unwrap()) as f64;
    let rate = (bytes - 37) as f64 / cycles;
    eprintln!("one session: {rate:.4} bytes/cycle = {:.1} MB/s", rate * 250.0);
    assert!((rate / BPC - 1.0).abs() < 0.001, "rate {rate}");
    assert_eq!(rx.rx_off, bytes);
    // peer_closed rises only after the last byte was taken.
    assert!(rx.peer_closed_at.unwrap() > rx.rx_last_at.unwrap());
    assert_eq!(rx.rx_at_peer_closed, bytes);
    assert_eq!(bench.tb.stats(0).data_bytes, bytes);
    assert_eq!(bench.tb.stats(0).session_delivered, vec![bytes]);
    // Sender's established falls one latency after the receiver closed.
    let rx_close = rx.close_taken_at.unwrap();
    assert_eq!(rx.established_fell_at, Some(rx_close + 1));
    assert_eq!(tx.established_fell_at, Some(rx_close + L));
    assert!(tx.peer_closed_at.is_some());
}

#[test]
fn four_sessions_share_equally() {
    let plans = half_duplex(4, u64::MAX / 2, &[RxRate::Full; 4]);
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "four-sessions");
    bench.run_to(20_000);
    let s0 = bench.tb.stats(0).session_bytes;
    bench.run_to(220_000);
    let s1 = bench.tb.stats(0).session_bytes;
    let mut total = 0.0;
    for s in 0..4 {
        let rate = (s1[s] - s0[s]) as f64 / 200_000.0;
        total += rate;
        eprintln!("session {s}: {rate:.3} bytes/cycle = {:.0} MB/s", rate * 250.0);
        assert!((rate / (BPC / 4.0) - 1.0).abs() < 0.01, "session {s}: {rate}");
    }
    assert!((total / BPC - 1.0).abs() < 0.001, "total {total}");
    bench.assert_clean();
}

#[test]
fn four_sessions_three_slow_receivers_with_window_updates() {
    let slow = RxRate::Rate { num: 64, den: 10 }; // 5 % of 128 B/cycle = 6.4 B/cycle
    let plans = half_duplex(4, u64::MAX / 2, &[RxRate::Full, slow, slow, slow]);
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "slow-receivers");
    bench.run_to(150_000);
    let d0 = bench.tb.stats(0).session_delivered;
    bench.run_to(350_000);
    let st = bench.tb.stats(0);
    let rates: Vec<f64> = (0..4).map(|s| (st.session_delivered[s] - d0[s]) as f64 / 200_000.0).collect();
    eprintln!(
        "rates {rates:?} bytes/cycle, window updates {}, window stalls {}",
        st.window_updates, st.window_stall_cycles
    );
    for &r in &rates[1..] {
        assert!((r / 6.4 - 1.0).abs() < 0.01, "slow session {r}");
    }
    let rest = BPC - 3.0 * 6.4;
    assert!((rates[0] / rest - 1.0).abs() < 0.01, "session 0 {} vs {rest}", rates[0]);
    assert!(st.window_updates > 0 && st.window_stall_cycles > 0);
    bench.assert_clean();
}

#[test]
fn gap_zero_with_slow_receiver_stalls_gap_sixteen_completes() {
    let slow = RxRate::Rate { num: 64, den: 10 };
    let bytes = 2_000_000;
    // gap 0: stalls once the window closed.
    let mut bench = Bench::new(LinkConfig::default(), toe(), half_duplex(1, bytes, &[slow]), "gap0");
    bench.global = [GlobalOutputs { init: false, last_packet_mode: 1, window_update_gap: 0 }; 2];
    bench.run_to(250_000);
    let at = bench.users[1][0].rx_off;
    bench.run_to(500_000);
    let rx = &bench.users[1][0];
    eprintln!("gap 0: stalled at {} of {bytes} bytes", rx.rx_off);
    assert_eq!(rx.rx_off, at, "no progress for 250k cycles");
    assert!(rx.rx_off < bytes && rx.rx_off >= 1 << 20);
    assert!(bench.tb.stats(0).window_stall_cycles > 200_000);
    bench.assert_clean();

    // gap 16: completes at the receiver's rate.
    let mut bench = Bench::new(LinkConfig::default(), toe(), half_duplex(1, bytes, &[slow]), "gap16");
    let done = bench.run_until(400_000, |b| b.users[1][0].peer_closed_at.is_some());
    assert!(done, "gap 16 completes");
    let rx = &bench.users[1][0];
    assert_eq!(rx.rx_off, bytes);
    let rate = bytes as f64 / (rx.rx_last_at.unwrap() - rx.rx_first_at.unwrap()) as f64;
    assert!((rate / 6.4 - 1.0).abs() < 0.01, "rate {rate}");
    bench.assert_clean();
}

#[test]
fn full_duplex_both_directions_at_line_rate() {
    let n = 2;
    let mut plans = half_duplex(n, u64::MAX / 2, &[RxRate::Full; 2]);
    for p in &mut plans[1] {
        p.tx_bytes = u64::MAX / 2;
    }
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "full-duplex");
    bench.run_to(10_000);
    let (a0, b0) = (bench.tb.stats(0).data_bytes, bench.tb.stats(1).data_bytes);
    bench.run_to(110_000);
    let (a1, b1) = (bench.tb.stats(0).data_bytes, bench.tb.stats(1).data_bytes);
    for r in [(a1 - a0) as f64 / 100_000.0, (b1 - b0) as f64 / 100_000.0] {
        assert!((r / BPC - 1.0).abs() < 0.001, "direction rate {r}");
    }
    bench.assert_clean();
}

#[test]
fn random_traffic_small_beats_intact() {
    for beat in [8usize, 16, 64, 128] {
        let mut cfg = toe();
        cfg[0] = ToeConfig::new(beat);
        cfg[1] = ToeConfig::new(beat);
        cfg[1].rx_buffer_bytes = 16 << 10;
        let sizes = [1u64, 1000, 77_777, 250_001];
        let mut plans =
            half_duplex(4, 0, &[RxRate::Random(0.7), RxRate::Random(0.2), RxRate::Full, RxRate::Random(0.5)]);
        for (s, p) in plans[0].iter_mut().enumerate() {
            p.tx_bytes = sizes[s];
            p.tx_gap = 0.3;
            p.close_after_tx = Some(s as u64 * 7);
        }
        let mut bench = Bench::new(LinkConfig::default(), cfg, plans, &format!("random-{beat}"));
        bench.global[0].last_packet_mode = (beat % 3) as u8;
        let done = bench.run_until(3_000_000, |b| b.users.iter().flatten().all(|u| u.established_fell_at.is_some()));
        assert!(done, "beat {beat}: all closed");
        bench.assert_clean();
        for (s, (u, &size)) in bench.users[1].iter().zip(&sizes).enumerate() {
            assert_eq!(u.rx_off, size, "beat {beat} session {s}");
            assert_eq!(u.rx_at_peer_closed, size);
        }
    }
}

// ---------------------------------------------------------------- last packet modes

/// One session sends `bytes` and closes `close_delay` cycles later; returns
/// the bench after both sides closed.
fn last_packet_run(mode: u8, bytes: u64, close_delay: u64, push_timeout: u64) -> Bench {
    let mut cfg = toe();
    cfg[1].push_timeout_cycles = push_timeout;
    let mut plans = half_duplex(1, bytes, &[RxRate::Full]);
    plans[0][0].close_after_tx = Some(close_delay);
    let mut bench = Bench::new(LinkConfig::default(), cfg, plans, &format!("mode-{mode}"));
    bench.global[0].last_packet_mode = mode;
    let done = bench.run_until(close_delay + 200_000, |b| b.users[0][0].established_fell_at.is_some());
    assert!(done);
    bench.assert_clean();
    assert_eq!(bench.users[1][0].rx_off, bytes);
    assert_eq!(bench.tb.stats(0).data_bytes, bytes);
    bench
}

const PARTIAL: u64 = 1000 * 128 + 50;

#[test]
fn mode_psh_delivers_trailing_partial_beat_at_once() {
    let bench = last_packet_run(1, PARTIAL, 20_000, 2_500);
    let (tx, rx) = (&bench.users[0][0], &bench.users[1][0]);
    assert_eq!(rx.partial_beats.len(), 1);
    let (at, len, last) = rx.partial_beats[0];
    assert_eq!((len, last), (50, true));
    assert!(at <= tx.tx_done_at.unwrap() + L + 2, "partial beat at {at}, last TX at {}", tx.tx_done_at.unwrap());
    assert_eq!(bench.tb.stats(0).dup_bytes, 0);
}

#[test]
fn mode_dup_sends_one_duplicate_segment() {
    let bench = last_packet_run(0, PARTIAL, 20_000, 2_500);
    let (tx, rx) = (&bench.users[0][0], &bench.users[1][0]);
    let st = bench.tb.stats(0);
    assert_eq!((st.dup_segments, st.dup_bytes), (1, 8948), "one duplicate of the last MSS segment");
    assert_eq!(rx.partial_beats.len(), 1);
    assert!(rx.partial_beats[0].0 <= tx.tx_done_at.unwrap() + L + 2);
    // A transfer of whole beats: the close is the last data, duplicated then.
    let bench = last_packet_run(0, 1000 * 128, 100, 2_500);
    let st = bench.tb.stats(0);
    assert_eq!((st.dup_segments, st.dup_bytes), (1, 8948));
    assert!(bench.users[1][0].partial_beats.is_empty());
    // A short transfer: the duplicate is the whole transfer.
    let bench = last_packet_run(0, 300, 100, 2_500);
    assert_eq!(bench.tb.stats(0).dup_bytes, 300);
}

#[test]
fn mode_dup_costs_link_time() {
    // Many short transfers would be slower with dup: check the credit is used,
    // by comparing the time to send two back-to-back transfers on two sessions.
    let mut times = Vec::new();
    for mode in [1u8, 0] {
        let mut plans = half_duplex(2, 20_000 + 50, &[RxRate::Full; 2]);
        plans[0][1].tx_bytes = 2_000_000;
        let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "dup-cost");
        bench.global[0].last_packet_mode = mode;
        assert!(bench.run_until(100_000, |b| b.users[0][1].tx_done_at.is_some()));
        bench.assert_clean();
        times.push(bench.users[0][1].tx_done_at.unwrap());
    }
    let extra = times[1] as f64 - times[0] as f64;
    eprintln!("dup delays the other session by {extra} cycles");
    assert!((extra - 8948.0 / BPC).abs() < 3.0, "the duplicate takes ~90 cycles of link time: {extra}");
}

#[test]
fn mode_normal_waits_for_push_timeout_or_fin() {
    let bench = last_packet_run(2, PARTIAL, 20_000, 2_500);
    let (tx, rx) = (&bench.users[0][0], &bench.users[1][0]);
    assert_eq!(rx.partial_beats.len(), 1);
    let at = rx.partial_beats[0].0;
    let arrive = tx.tx_done_at.unwrap() + L;
    assert!(at >= arrive + 2_500 && at <= arrive + 2_502, "partial beat at {at}, arrival {arrive}");
    // With a long push timeout the FIN pushes it.
    let bench = last_packet_run(2, PARTIAL, 50, 1_000_000);
    let (tx, rx) = (&bench.users[0][0], &bench.users[1][0]);
    let at = rx.partial_beats[0].0;
    let fin = tx.close_taken_at.unwrap() + L;
    assert!(at >= fin && at <= fin + 2, "partial beat at {at}, FIN arrival {fin}");
    assert_eq!(tx.close_taken_at.unwrap(), tx.tx_done_at.unwrap() + 51);
}

// ---------------------------------------------------------------- faults and checks

#[test]
fn corrupt_flips_exactly_that_byte() {
    let mut plans = half_duplex(2, 100_000, &[RxRate::Full; 2]);
    plans[0][1].tx_bytes = 50_000;
    let mut bench = Bench::new(LinkConfig::default(), toe(), plans, "corrupt");
    bench.tb.corrupt(1, 0, 12_345, 0x5a);
    // Session 1 receives 50,000 bytes: this offset is never reached.
    bench.tb.corrupt(1, 1, 60_000, 0x01);
    assert!(bench.run_until(100_000, |b| b.users[1].iter().all(|u| u.peer_closed_at.is_some())));
    assert_eq!(bench.users[1][0].mismatches, vec![12_345]);
    assert!(bench.users[1][1].mismatches.is_empty());
    assert!(bench.tb.violations().is_empty());
    // The corruption that was applied is gone; the one never reached is
    // still pending until cleared.
    assert_eq!((bench.tb.clear_corruptions(1, 0), bench.tb.clear_corruptions(1, 1)), (0, 1));
    assert_eq!(bench.tb.clear_corruptions(1, 1), 0);
}

/// Steps the model with hand-written outputs for one session per board.
struct Raw {
    tb: TwoBoards,
    out: [SessionOutputs; 2],
}

impl Raw {
    fn connected() -> Self {
        let mut raw =
            Raw { tb: TwoBoards::new(1, LinkConfig::default(), ToeConfig::default()), out: Default::default() };
        raw.out[1] = SessionOutputs {
            conn_req_valid: true,
            conn_req_open: true,
            conn_req_local_port: 61000,
            ..Default::default()
        };
        raw.out[0] = SessionOutputs {
            conn_req_valid: true,
            conn_req_open: true,
            conn_req_active: true,
            conn_req_local_port: 60000,
            conn_req_remote_port: 61000,
            ..Default::default()
        };
        raw.step();
        raw.out[0].conn_req_valid = false;
        raw.out[1].conn_req_valid = false;
        for _ in 0..3 * L {
            raw.step();
        }
        raw
    }

    /// One cycle; returns board 0's tx_tready.
    fn step(&mut self) -> bool {
        let mut ready = false;
        for b in 0..2 {
            let inp = self.tb.drive(b, &[self.out[b].tx_tvalid]);
            if b == 0 {
                ready = inp[0].tx_tready;
            }
            self.out[b].rx_tready = true;
            self.tb.edge(b, GlobalOutputs::default(), std::slice::from_ref(&self.out[b]));
        }
        self.tb.tick();
        ready
    }

    fn present(&mut self, len: usize, last: bool, fill: u8) {
        self.out[0].tx_tvalid = true;
        self.out[0].tx_tlast = last;
        self.out[0].tx_data = vec![fill; len];
    }

    /// Presents full beats until one is refused (credit); leaves it presented.
    fn until_refused(&mut self) {
        self.present(128, false, 1);
        while self.step() {}
    }

    fn expect(&self, what: &str) {
        assert!(
            self.tb.violations().iter().any(|v| v.contains(what)),
            "expected {what:?} in {:#?}",
            self.tb.violations()
        );
    }
}

#[test]
fn violations_are_reported() {
    // tvalid dropped before tready.
    let mut raw = Raw::connected();
    assert!(raw.tb.violations().is_empty());
    raw.until_refused();
    raw.out[0].tx_tvalid = false;
    raw.out[0].tx_data.clear();
    raw.step();
    raw.expect("tx_tvalid dropped before tx_tready");
    assert_eq!(raw.tb.violations().len(), 1);

    // Payload changed while valid.
    let mut raw = Raw::connected();
    raw.until_refused();
    raw.present(128, false, 2);
    raw.step();
    raw.expect("changed while tx_tvalid");

    // Partial beat without tlast, then data after a partial beat.
    let mut raw = Raw::connected();
    raw.present(100, false, 0);
    while !raw.step() {}
    raw.expect("partial TX beat without tlast");
    raw.present(128, true, 0);
    while !raw.step() {}
    raw.expect("after a partial beat");

    // TX data while not established / after close.
    let mut raw = Raw { tb: TwoBoards::new(1, LinkConfig::default(), ToeConfig::default()), out: Default::default() };
    raw.present(128, false, 0);
    raw.step();
    raw.step();
    raw.expect("tx_tvalid while not established");
    assert_eq!(raw.tb.violations().len(), 1, "reported once");
    let mut raw = Raw::connected();
    raw.out[0].conn_req_valid = true;
    raw.out[0].conn_req_open = false; // close
    raw.step();
    raw.out[0].conn_req_valid = false;
    raw.present(128, true, 0);
    raw.step();
    raw.expect("after its close request");
}

/// A new open on a session whose connection is still open (the user logic
/// aborted and restarts) resets the old connection: the peer gets
/// `conn_error` one latency later, and the new open proceeds (here it is
/// refused: nobody listens on its port any more).
#[test]
fn open_on_a_busy_session_resets_the_old_connection() {
    let mut raw = Raw::connected();
    assert!(raw.tb.drive(1, &[false])[0].established);
    raw.out[0].conn_req_valid = true;
    raw.out[0].conn_req_open = true;
    raw.step();
    raw.out[0].conn_req_valid = false;
    for _ in 0..L + 1 {
        raw.step();
    }
    let peer = raw.tb.drive(1, &[false])[0].clone();
    assert!(peer.conn_error && !peer.established, "{peer:?}");
    for _ in 0..L {
        raw.step();
    }
    let own = raw.tb.drive(0, &[false])[0].clone();
    assert!(own.conn_error && !own.established, "the new open is refused: {own:?}");
    assert!(raw.tb.violations().is_empty(), "{:?}", raw.tb.violations());
}

#[test]
fn conn_req_ready_delay_and_request_checks() {
    let cfg = ToeConfig { conn_req_ready_delay: 3, ..ToeConfig::default() };
    let mut tb = TwoBoards::new(1, LinkConfig::default(), cfg.clone());
    let req =
        SessionOutputs { conn_req_valid: true, conn_req_open: true, conn_req_local_port: 61000, ..Default::default() };
    let idle = SessionOutputs::default();
    let mut readies = Vec::new();
    let mut taken = false;
    for _ in 0..5 {
        let ready = tb.drive(1, &[false])[0].conn_req_ready;
        readies.push(ready);
        tb.drive(0, &[false]);
        let r = if taken { &idle } else { &req };
        taken |= ready;
        tb.edge(1, GlobalOutputs::default(), std::slice::from_ref(r));
        tb.edge(0, GlobalOutputs::default(), std::slice::from_ref(&idle));
        tb.tick();
    }
    assert_eq!(readies, vec![false, false, false, true, false]);
    assert!(tb.violations().is_empty(), "{:?}", tb.violations());

    // Dropping the request before ready is a violation.
    let mut tb = TwoBoards::new(1, LinkConfig::default(), cfg);
    for r in [&req, &idle] {
        tb.drive(0, &[false]);
        tb.edge(0, GlobalOutputs::default(), std::slice::from_ref(r));
        tb.drive(1, &[false]);
        tb.edge(1, GlobalOutputs::default(), std::slice::from_ref(&idle));
        tb.tick();
    }
    assert!(tb.violations().iter().any(|v| v.contains("conn_req_valid dropped")), "{:?}", tb.violations());
}
