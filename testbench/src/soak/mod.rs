//! The randomised two-board soak (issue 15, part 1): each iteration draws a
//! plan from a seed (what every session of two boards does, and which fault
//! is injected; the boards are `top1024` in most iterations, another top of
//! the width matrix in the others), runs it on two boards through the TOE model
//! ([`TwoBoardSim`](crate::boards::TwoBoardSim)) and checks every session's
//! outcome against a reference computed here in plain Rust from the plan and
//! the `pattern` crate, never from the hardware's own registers.
//!
//! ```text
//!  seed --> Plan::draw --> run(plan): round 0, round 1 on one TwoBoardSim --> SessionResult per side
//!              |                                                                 |
//!              +------> reference (expect, Stream::record) ----------------------+--> problems, figures
//! ```
//!
//! Each iteration runs two rounds of tests one after the other on the same
//! boards ([`Round`]), so a session must be reusable after any fault.
//!
//! What is exact and what is an invariant:
//! - Without an abort every figure follows from the plan: `done` or `error`
//!   and its cause, `tx_bytes`, `rx_bytes`, `closed`, and the first-error
//!   record (offset; expected and received words for a pattern mismatch;
//!   `err_count`) from the pattern model with the corruption applied.
//! - An `abort` at a random cycle makes the counters depend on timing: the
//!   aborted side ends `aborted` (or as without the abort, if it had ended
//!   already), the peer in one of the ends a peer can see (done, peer closed,
//!   refused before `established`, conn_reset after it), and the invariants hold: the counters equal what the TOE
//!   model saw taken and sent, nothing is received that was not sent, a
//!   `done` side moved every byte, and the first-error record is the one the
//!   pattern model gives for the bytes received.
//! - Every session is idle at the end; one still busy after its bound is a
//!   hang.
//!
//! The plan's sizes are bounded by a cycle budget ([`CYCLE_BUDGET`]) at the
//! speeds drawn, so an iteration is a few hundred thousand cycles at most.
//! Iteration `k + 1`'s seed is drawn from iteration `k`'s, so
//! `TB_SEED=<iteration seed>` replays one iteration alone (see
//! `docs/soak.md`).
//!
//! One job a file: `plan.rs` (the plan's types and the fault kinds),
//! `draw.rs` (drawing a plan from a seed), `reference.rs` (what a side must
//! end with), `run.rs` (running a plan on two boards), `check.rs` (checking
//! each session against the reference), `figures.rs` (the figures over many
//! iterations). The entry points [`soak()`] and [`next_seed()`] are here;
//! [`run()`] (one iteration) and the types are re-exported.

mod check;
mod draw;
mod figures;
mod plan;
mod reference;
mod run;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use figures::Figures;
pub use plan::{Fault, FaultKind, Plan, Round, SessionPlan, Side, Use, CYCLE_BUDGET, DEFAULT_MODEL, ROUNDS};
pub use reference::{expect, Expect, Record};
pub use run::{model, run, Outcome, ToeView};

/// The seed of the iteration after the one of `seed`.
pub fn next_seed(seed: u64) -> u64 {
    ChaCha8Rng::seed_from_u64(seed ^ 0x50a4_50a4_50a4_50a4).gen()
}

/// Worker threads of a soak run: `SOAK_JOBS` if set (at least 1), else the
/// machine's parallelism. Each iteration builds its own boards, and each
/// verilated model has its own context, so iterations run side by side.
pub fn jobs() -> usize {
    match std::env::var("SOAK_JOBS") {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&n| n >= 1)
            .unwrap_or_else(|| panic!("SOAK_JOBS={v:?}: expected a whole number of threads, 1 or more")),
        Err(_) => std::thread::available_parallelism().map_or(1, usize::from),
    }
}

/// One iteration: its plan and what it ended with. A panic (a register
/// access that never completes, say) is a failure of the iteration,
/// reported with its seed and plan.
fn iteration(seed: u64) -> (Plan, Outcome) {
    let plan = Plan::draw(seed);
    let o = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&plan))).unwrap_or_else(|e| {
        let what = e
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| e.downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        Outcome { seed, injected: plan.faults(), problems: vec![format!("panicked: {what}")], ..Outcome::default() }
    });
    (plan, o)
}

/// Prints iteration `i`'s line, and for a failure its plan and problems.
fn report(i: usize, plan: &Plan, o: &Outcome) {
    let s = o.seed;
    if o.problems.is_empty() {
        eprintln!(
            "soak iteration {i}: seed {s} ok, {}, {} cycles, {} bytes, faults {:?}",
            plan.model, o.cycles, o.bytes, o.injected
        );
    } else {
        // One write, so a failure's lines stay together beside other workers' output.
        let mut text =
            format!("soak iteration {i}: seed {s} FAILED (replay: TB_SEED={s} make soak)\nplan: {plan:#?}\n");
        for p in &o.problems {
            text.push_str(&format!("  {p}\n"));
        }
        eprint!("{text}");
    }
}

/// Runs `iterations` iterations from `seed` on `jobs` worker threads;
/// prints each iteration's line as it ends (a failing one with its seed,
/// plan and problems), and returns the figures. The seeds are the chain
/// of [`next_seed`] from `seed` whatever `jobs` is, and the figures are added
/// in iteration order, so a run's figures do not depend on `jobs`.
pub fn soak(seed: u64, iterations: u64, jobs: usize) -> Figures {
    let seeds: Vec<u64> =
        std::iter::successors(Some(seed), |&s| Some(next_seed(s))).take(iterations as usize).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(vec![None; seeds.len()]);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, seeds.len().max(1)) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&s) = seeds.get(i) else { break };
                let (plan, o) = iteration(s);
                report(i, &plan, &o);
                done.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[i] = Some(o);
            });
        }
    });
    let mut figures = Figures::default();
    for o in done.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_iter().flatten() {
        let ok = o.problems.is_empty();
        figures.add(&o, ok);
    }
    figures
}
