//! Seeded randomness for tests: the seed is printed, and `TB_SEED=<n>`
//! replays a run exactly.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Where the seed comes from when `TB_SEED` is not set.
#[derive(Clone, Copy, Debug)]
pub enum Unset {
    /// The clock: every run explores new ground.
    Clock,
    /// A fixed seed: every run is the same unless `TB_SEED` says otherwise.
    Fixed(u64),
}

/// A generator seeded from `TB_SEED` if set, else from the clock; the seed is
/// printed with `what` so a failing run can be replayed.
pub fn rng(what: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(from_env(what))
}

/// The seed itself (from `TB_SEED`, else the clock), printed with `what`.
pub fn from_env(what: &str) -> u64 {
    from_env_or(what, Unset::Clock)
}

/// The seed from `TB_SEED`, else as `unset` says, printed with `what`.
///
/// # Panics
/// When `TB_SEED` is set but is not an unsigned integer: a replay with a
/// mistyped seed must not silently run another seed.
pub fn from_env_or(what: &str, unset: Unset) -> u64 {
    let seed = match std::env::var("TB_SEED") {
        Ok(s) => s.trim().parse().unwrap_or_else(|_| panic!("TB_SEED={s:?} is not an unsigned integer")),
        Err(_) => match unset {
            Unset::Fixed(n) => n,
            Unset::Clock => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1),
        },
    };
    eprintln!("{what}: seed {seed} (replay with TB_SEED={seed})");
    seed
}
