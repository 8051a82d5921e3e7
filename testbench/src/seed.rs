//! Seeded randomness for tests: the seed is printed, and `TB_SEED=<n>`
//! replays a run exactly.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A generator seeded from `TB_SEED` if set, else from the clock; the seed is
/// printed with `what` so a failing run can be replayed.
pub fn rng(what: &str) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(from_env(what))
}

/// The seed itself (from `TB_SEED`, else the clock), printed with `what`.
pub fn from_env(what: &str) -> u64 {
    let seed = match std::env::var("TB_SEED") {
        Ok(s) => s.parse().unwrap_or_else(|_| panic!("TB_SEED={s:?} is not an unsigned integer")),
        Err(_) => {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(1)
        }
    };
    eprintln!("{what}: seed {seed} (replay with TB_SEED={seed})");
    seed
}
