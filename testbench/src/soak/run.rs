//! Running a plan: both rounds on two fresh boards of its model, with the
//! faults injected on time; every session is then checked (`check.rs`).

use toe_model::{LinkConfig, ToeConfig};

use super::check::check_session;
use super::plan::{Fault, FaultKind, Plan, Round, Use};
use crate::boards::{quick_toe, SessionResult, TwoBoardSim, QUICK_SYN_TIMEOUT};
use crate::demo;
use crate::models::{ModelInfo, TOP_MODELS};
use driver::regs;

/// What the TOE model saw of one side, for the invariants.
#[derive(Clone, Copy, Debug, Default)]
pub struct ToeView {
    /// Bytes the side's user logic took on RX.
    pub taken: u64,
    /// Bytes the side sent (taken on TX).
    pub sent: u64,
}

/// One iteration's outcome.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub seed: u64,
    pub cycles: u64,
    /// Bytes taken on TX by every session of both boards.
    pub bytes: u64,
    pub injected: Vec<FaultKind>,
    /// Faults whose effect the hardware reported as the reference says
    /// (a detected error with the right record, or no effect for a fault
    /// that must have none).
    pub handled: Vec<FaultKind>,
    /// Sessions that reported an error where the reference says `done`.
    pub false_alarms: u64,
    /// Sessions still busy after their bound.
    pub hangs: u64,
    /// What differs from the reference, one line each.
    pub problems: Vec<String>,
}

/// A timed action after the clients started.
#[derive(Clone, Copy, Debug)]
enum Action {
    Abort { b: usize, s: usize },
    Stop { b: usize, s: usize },
    StartWhileBusy { b: usize, s: usize },
}

/// The model of the width matrix named `name`.
pub fn model(name: &str) -> ModelInfo {
    *TOP_MODELS.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("no top model {name}"))
}

/// Runs `plan` on two fresh boards of its model and checks every session.
pub fn run(plan: &Plan) -> Outcome {
    let mut out = Outcome { seed: plan.seed, injected: plan.faults(), ..Outcome::default() };
    let info = model(plan.model);
    let toe = ToeConfig { conn_req_ready_delay: plan.conn_req_ready_delay, ..quick_toe(info.beat_bytes()) };
    let mut sim = TwoBoardSim::with_timing(&(info.top)(), plan.seed, LinkConfig::default(), toe, plan.timing);
    for b in 0..2 {
        sim.init_toe(b, plan.window_update_gap, plan.last_packet_mode);
        sim.write_tx_prefix(b, &plan.tx_prefix);
    }
    // What the registers read after the round before (the reset values first).
    let mut prev = vec![[SessionResult::default(); 2]; info.sessions];
    for (k, round) in plan.rounds.iter().enumerate() {
        let before = out.problems.len();
        prev = run_round(&mut sim, plan, round, &prev, &mut out);
        for p in &mut out.problems[before..] {
            *p = format!("round {k}: {p}");
        }
        // A corruption this round's data never reached must not hit the
        // next round; the silent TOE speaks again.
        for s in 0..info.sessions {
            for b in 0..2 {
                sim.toe.clear_corruptions(b, s);
            }
        }
        for b in 0..2 {
            sim.toe.set_silent(b, false);
        }
    }
    out.cycles = sim.cycles();
    out
}

/// Runs one round on `sim` and checks it; `prev` are the registers after the
/// round before. Returns the registers after this round.
fn run_round(
    sim: &mut TwoBoardSim,
    plan: &Plan,
    round: &Round,
    prev: &[[SessionResult; 2]],
    out: &mut Outcome,
) -> Vec<[SessionResult; 2]> {
    out.injected.extend(round.faults());
    let info = model(plan.model);
    let beat = info.beat_bytes() as u64;
    let seen = sim.toe.violations().len();
    let disabled = regs::session::test_config::TEST_MODE.word(0).expect("0 is a test mode");
    for p in &round.sessions {
        for b in 0..2 {
            sim.program(b, p.session, &p.test(b));
            if p.usage == Use::Disabled {
                sim.write(b, regs::session(p.session).expect("session").test_config(), disabled);
            }
            let (fpga, target) = demo::ports(b, p.session);
            sim.ports(b, p.session, fpga, target);
        }
        if let Fault::Corrupt { to, offset, xor } = p.fault {
            sim.toe.corrupt(to, p.session, offset, xor);
        }
    }
    if let Some(b) = round.silent {
        sim.toe.set_silent(b, true);
    }
    // Servers listen first (a disabled session is started on both boards).
    for p in &round.sessions {
        let server = p.server();
        if p.fault != Fault::NobodyListening {
            sim.start(server, p.session);
        }
        if p.usage == Use::Disabled {
            sim.start(p.client, p.session);
        }
    }
    // Sessions that got their second `start`.
    let mut started_twice = Vec::new();
    for p in &round.sessions {
        if let Fault::StartWhileBusy { board, at: None } = p.fault {
            start_raw(sim, board, p.session);
            started_twice.push(p.session);
        }
    }
    // The listen requests are taken after the TOE's ready delay.
    sim.run(plan.conn_req_ready_delay + 200);
    for p in &round.sessions {
        if p.usage != Use::Disabled {
            sim.start(p.client, p.session);
        }
    }
    let t0 = sim.cycles();
    let mut actions: Vec<(u64, Action)> = Vec::new();
    for p in &round.sessions {
        match p.fault {
            Fault::Abort { board, at } => actions.push((at, Action::Abort { b: board, s: p.session })),
            Fault::StartWhileBusy { board, at: Some(at) } => {
                actions.push((at, Action::StartWhileBusy { b: board, s: p.session }))
            }
            _ => {}
        }
        if p.open {
            for (b, side) in p.sides.iter().enumerate() {
                if let (true, Some(at)) = (p.sends(b), side.stop_at) {
                    actions.push((at, Action::Stop { b, s: p.session }));
                }
            }
        }
    }
    actions.sort_by_key(|a| a.0);
    for (at, action) in actions {
        let now = sim.cycles() - t0;
        if at > now {
            sim.run(at - now);
        }
        match action {
            Action::Abort { b, s } => sim.abort(b, s),
            Action::Stop { b, s } => sim.stop(b, s),
            Action::StartWhileBusy { b, s } => {
                // Only while the side is sure to stay busy until the write
                // lands: a good part of its data still to come.
                let p = &round.sessions[s];
                let left = p.sides[b].transfer_size.saturating_sub(sim.toe.rx_taken(b, s));
                if left > beat * 2_000 {
                    start_raw(sim, b, s);
                    started_twice.push(s);
                } else if let Some(i) = out.injected.iter().position(|k| *k == FaultKind::StartWhileBusy) {
                    // Too late to be sure the session is still busy: not injected.
                    out.injected.remove(i);
                }
            }
        }
    }
    // Phase 1: every session that must end on its own.
    let mut first = Vec::new();
    let mut maybe_listening = Vec::new();
    for p in &round.sessions {
        if p.usage == Use::Disabled {
            continue;
        }
        let client_aborted = matches!(p.fault, Fault::Abort { board, .. } if board == p.client);
        for b in 0..2 {
            let server = b == p.server();
            if server && p.fault == Fault::NobodyListening {
                continue;
            }
            if server && (round.silent == Some(b) || client_aborted) {
                maybe_listening.push((b, p.session));
            } else {
                first.push((b, p.session));
            }
        }
    }
    let bound = 3 * round.longest() + QUICK_SYN_TIMEOUT + 4 * plan.conn_req_ready_delay + 50_000;
    let mut hung: Vec<(usize, usize)> = Vec::new();
    if !sim.wait_idle(&first, 500, bound) {
        hung.extend(still_busy(sim, &first));
    }
    // Phase 2: a server whose client gave up (silent TOE, abort during the
    // handshake) goes on listening: the soak aborts it. Any other server
    // must end by itself.
    let mut aborted_by_soak = Vec::new();
    if !maybe_listening.is_empty() {
        sim.run(2_000);
        for &(b, s) in &maybe_listening {
            let r = sim.result(b, s);
            if r.busy && !r.connected && r.tx_bytes == 0 && r.rx_bytes == 0 {
                sim.abort(b, s);
                aborted_by_soak.push((b, s));
            }
        }
        if !sim.wait_idle(&maybe_listening, 500, bound) {
            hung.extend(still_busy(sim, &maybe_listening));
        }
    }
    // Bytes still on the link or in a TOE's receive buffer reach sessions
    // that are idle already (an aborted receiver goes on taking what its
    // peer sent): let them land, so the counters and the TOE agree.
    let settle = 2 * bound;
    let end = sim.cycles() + settle;
    loop {
        sim.run(4_000);
        let buffered: usize =
            (0..2).flat_map(|b| (0..info.sessions).map(move |s| (b, s))).map(|(b, s)| sim.toe.rx_buffered(b, s)).sum();
        if buffered == 0 {
            break;
        }
        if sim.cycles() >= end {
            out.problems
                .push(format!("{buffered} received bytes still wait in the TOEs {settle} cycles after the end"));
            break;
        }
    }
    out.hangs += hung.len() as u64;
    for (b, s) in &hung {
        out.problems.push(format!("hang: board {b} session {s} still busy after {bound} cycles"));
    }
    let results: Vec<[SessionResult; 2]> =
        round.sessions.iter().map(|p| [sim.result(0, p.session), sim.result(1, p.session)]).collect();
    for v in sim.toe.violations().iter().skip(seen) {
        out.problems.push(format!("TOE interface violation: {v}"));
    }
    let cycles = sim.cycles();
    for (p, results) in round.sessions.iter().zip(&results) {
        let views =
            [0, 1].map(|b| ToeView { taken: sim.toe.rx_taken(b, p.session), sent: sim.toe.tx_sent(b, p.session) });
        let aborted = [0, 1].map(|b| aborted_by_soak.contains(&(b, p.session)));
        let twice = started_twice.contains(&p.session);
        check_session(round, p, results, &prev[p.session], &views, aborted, twice, cycles, out);
    }
    results
}

/// Writes `ctrl.start` alone (no clearing of `done`/`error`): the second
/// start of the fault "start while busy".
fn start_raw(sim: &mut TwoBoardSim, b: usize, s: usize) {
    let start = regs::session::ctrl::START.word(1).expect("1 bit");
    sim.write(b, regs::session(s).expect("session").ctrl(), start);
}

fn still_busy(sim: &mut TwoBoardSim, list: &[(usize, usize)]) -> Vec<(usize, usize)> {
    list.iter().copied().filter(|&(b, s)| sim.result(b, s).busy).collect()
}
