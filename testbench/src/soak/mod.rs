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

/// Runs `iterations` iterations from `seed`; prints each failing
/// iteration's seed, plan and problems, and returns the figures.
pub fn soak(seed: u64, iterations: u64) -> Figures {
    let mut figures = Figures::default();
    let mut s = seed;
    for i in 0..iterations {
        let plan = Plan::draw(s);
        // A panic (a register access that never completes, say) is a
        // failure of this iteration, reported with its seed and plan.
        let o = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&plan))).unwrap_or_else(|e| {
            let what = e
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| e.downcast_ref::<&str>().copied())
                .unwrap_or("(no message)");
            Outcome {
                seed: s,
                injected: plan.faults(),
                problems: vec![format!("panicked: {what}")],
                ..Outcome::default()
            }
        });
        let ok = o.problems.is_empty();
        figures.add(&o, ok);
        if !ok {
            eprintln!("soak iteration {i}: seed {s} FAILED (replay: TB_SEED={s} make soak)");
            eprintln!("plan: {plan:#?}");
            for p in &o.problems {
                eprintln!("  {p}");
            }
        } else {
            eprintln!(
                "soak iteration {i}: seed {s} ok, {}, {} cycles, {} bytes, faults {:?}",
                plan.model, o.cycles, o.bytes, o.injected
            );
        }
        s = next_seed(s);
    }
    figures
}
