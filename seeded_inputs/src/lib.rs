//! Test support shared by the workspace's tests (a dev-dependency only).
//!
//! - [`seed`]: one seed per test run, printed, replayed with `TB_SEED=<n>`.
//! - [`hostile`]: generators of hostile input for the parsers' property
//!   tests (mutated configuration text, random argument lists) and a runner
//!   that seeds proptest from [`seed`] and counts what it ran.

pub mod hostile;
pub mod seed;
