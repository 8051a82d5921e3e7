//! `make demo`: the reference demo's FPGA-to-FPGA scenarios on two verilated
//! boards joined by the TOE/link model, printed as the console would report
//! them, next to the reference figures. `TB_SEED=<n>` replays a run (the seed
//! only shapes the register bus's timing).
//!
//! Two time bases: the tables (cycles, MB/s) are simulated time at the
//! boards' user clock; the line after each table is the wall-clock time the
//! simulation took. A closed stdout (`make demo | head`) ends it quietly.
//!
//! Each scenario's MB/s per session over time is drawn into
//! `<DEMO_PLOTS>/<n>-<scenario>.svg` (`DEMO_PLOTS` defaults to
//! `target/demo-plots`); the folder is named before the first table. Last
//! comes the latency row (issue 29): 64-byte round trips beside the round
//! trip the link model's parameters give, its histogram in `latency.svg`.

use std::io::Write;
use std::path::PathBuf;

use testbench::boards::USER_PS;

/// Prints `text`; false once stdout is closed.
fn say(text: &str) -> bool {
    write!(std::io::stdout(), "{text}").is_ok()
}

/// The file name of scenario `n` (from 1) called `name`: `3-4-sessions-rx-of-1-3-at-5.svg`.
fn plot_name(n: usize, name: &str) -> String {
    let mut slug = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    format!("{n}-{}.svg", slug.trim_end_matches('-'))
}

fn main() {
    let seed = testbench::seed::from_env("demo");
    let plots = PathBuf::from(std::env::var_os("DEMO_PLOTS").unwrap_or_else(|| "target/demo-plots".into()));
    if let Err(e) = std::fs::create_dir_all(&plots) {
        eprintln!("demo: cannot make the plots' folder {} (DEMO_PLOTS): {e}", plots.display());
        std::process::exit(1);
    }
    let mhz = 1e6 / USER_PS as f64;
    if !say(&format!(
        "Simulated time: cycles, MB/s and the reference ratio are at the boards' {mhz:.0} MHz user clock, as the console computes them.\n\
         Wall clock: the \"wall clock\" line after each table is how long this host took to simulate it.\n\
         Plots: each scenario's MB/s per session over time goes to {}/.\n\n",
        plots.display()
    )) {
        return;
    }
    let mut worst: f64 = 0.0;
    let mut failures = 0;
    for (n, sc) in testbench::demo::scenarios().into_iter().enumerate() {
        let t = std::time::Instant::now();
        let out = testbench::demo::run(&sc, seed);
        let simulated_us = out.cycles as f64 * USER_PS as f64 / 1e6;
        let mut text = testbench::demo::table(&sc, &out);
        text += &format!(
            "  wall clock: {:.1} s to simulate {:.1} us of the boards' time\n",
            t.elapsed().as_secs_f64(),
            simulated_us
        );
        for r in &out.rows {
            if let Some(q) = r.ratio() {
                worst = worst.max((q - 1.0).abs());
            }
            failures += usize::from(r.verification != "ok");
        }
        let path = plots.join(plot_name(n + 1, sc.name));
        match testbench::demo::plot_svg(&sc, &out).and_then(|svg| plots::write(&path, &svg)) {
            Ok(()) => text += &format!("  plot: {}\n\n", path.display()),
            Err(e) => {
                text += &format!("  plot: {e}\n\n");
                failures += 1;
            }
        }
        if !out.violations.is_empty() {
            text += &format!("  interface violations: {:?}\n", out.violations);
            failures += out.violations.len();
        }
        if !say(&text) {
            std::process::exit(i32::from(failures > 0));
        }
    }
    // The latency row (issue 29): no reference figure, the link model's own.
    let t = std::time::Instant::now();
    let row = testbench::latency_demo::run(seed, toe_model::LinkConfig::default());
    let mut text = row.table();
    text += &format!("  wall clock: {:.1} s\n", t.elapsed().as_secs_f64());
    let path = plots.join("latency.svg");
    match row.plot_svg().and_then(|svg| plots::write(&path, &svg)) {
        Ok(()) => text += &format!("  plot: {}\n\n", path.display()),
        Err(e) => {
            text += &format!("  plot: {e}\n\n");
            failures += 1;
        }
    }
    if !row.ok() {
        text += &format!(
            "  FAILED: the round trips are not all the expected {} cycles, or a byte or the interface was wrong ({:?})\n",
            row.expected,
            &row.violations[..row.violations.len().min(3)]
        );
        failures += 1;
    }
    if !say(&text) {
        std::process::exit(i32::from(failures > 0));
    }
    let _ = say(&format!(
        "largest deviation from a reference figure: {:.2} %; rows not verified ok: {failures}\n",
        worst * 100.0
    ));
    if failures > 0 {
        std::process::exit(1);
    }
}
