//! The randomised two-board soak (`testbench::soak`, `docs/soak.md`): random
//! session plans and faults on two `top1024` boards through the TOE model,
//! every outcome checked against the plain-Rust reference. The default run
//! is bounded for CI; `make soak ITER=<n>` runs more, `TB_SEED=<n> make soak`
//! replays one iteration.

use testbench::{seed, soak};

/// Iterations of the default `cargo test` run, sized to keep the test near a
/// minute on two cores in the test profile (see `docs/soak.md`).
const CI_ITERATIONS: u64 = 60;

#[test]
fn random_plans_and_faults_on_two_boards_end_as_the_reference_says() {
    let seed = seed::from_env("soak");
    let iterations = match std::env::var("ITER") {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("ITER={v:?} is not an unsigned integer")),
        Err(_) => CI_ITERATIONS,
    };
    let figures = soak::soak(seed, iterations);
    println!("{figures}");
    eprintln!("{figures}");
    assert!(figures.iterations == iterations && iterations > 0, "no iteration ran");
    assert!(
        figures.failed.is_empty(),
        "{} of {iterations} iterations differ from the reference (their seeds, plans and differences are printed above); replay one with TB_SEED=<seed> make soak",
        figures.failed.len()
    );
}
