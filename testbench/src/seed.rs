//! Seeded randomness for tests: the seed is printed, and `TB_SEED=<n>`
//! replays a run exactly. The workspace's one implementation is
//! `testkit::seed`; the testbench's tests and binaries reach it here.

pub use testkit::seed::{from_env, rng};
