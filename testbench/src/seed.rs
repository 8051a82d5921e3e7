//! Seeded randomness for tests: the seed is printed, and `TB_SEED=<n>`
//! replays a run exactly. The workspace's one implementation is
//! `seeded_inputs::seed`; the testbench's tests and binaries reach it here.

pub use seeded_inputs::seed::{from_env, rng};
