//! `make demo`: the reference demo's FPGA-to-FPGA scenarios on two verilated
//! boards joined by the TOE/link model, printed as the console would report
//! them, next to the reference figures. `TB_SEED=<n>` replays a run (the seed
//! only shapes the register bus's timing).

fn main() {
    let seed = testbench::seed::from_env("demo");
    let mut worst: f64 = 0.0;
    let mut failures = 0;
    for sc in testbench::demo::scenarios() {
        let t = std::time::Instant::now();
        let out = testbench::demo::run(&sc, seed);
        print!("{}", testbench::demo::table(&sc, &out));
        println!("  ({:.1} s of simulation)\n", t.elapsed().as_secs_f64());
        for r in &out.rows {
            if let Some(q) = r.ratio() {
                worst = worst.max((q - 1.0).abs());
            }
            failures += usize::from(r.verification != "ok");
        }
        if !out.violations.is_empty() {
            println!("  interface violations: {:?}", out.violations);
            failures += out.violations.len();
        }
    }
    println!("largest deviation from a reference figure: {:.2} %; rows not verified ok: {failures}", worst * 100.0);
    if failures > 0 {
        std::process::exit(1);
    }
}
