//! The verifier's byte check has two forms in one Verilog module: the one
//! Verilator compiles (`ifdef VERILATOR`: a word-level branch for a beat
//! with every byte kept and inside the transfer) and the one synthesis
//! reads. Simulation tests only ever run the first, so this proves them the
//! same function with a yosys SAT miter, at every data width.

use std::path::PathBuf;
use std::process::Command;

/// A scratch folder of this test process.
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toe-equivalence-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a scratch folder");
    dir
}

/// Runs yosys on `script`; Ok(log) if it succeeded, Err(log) if it failed.
fn yosys(script: &str) -> Result<String, String> {
    let out = Command::new("yosys")
        .args(["-q", "-p", script])
        .output()
        .unwrap_or_else(|e| panic!("yosys could not be run ({e}): `make deps` installs it"));
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        Ok(log)
    } else {
        Err(log)
    }
}

/// The yosys script proving `sim` (read with VERILATOR defined) and `syn`
/// (read without) equal for every input.
fn miter_script(sim: &std::path::Path, syn: &std::path::Path) -> String {
    format!(
        "read_verilog -sv -DVERILATOR {}; read_verilog -sv {}; proc; opt_clean; \
         miter -equiv -flatten -make_assert bc_syn bc_sim miter; hierarchy -top miter; \
         sat -verify -prove-asserts miter",
        sim.display(),
        syn.display()
    )
}

#[test]
fn beat_check_simulation_form_is_the_synthesis_form() {
    let dir = scratch();
    for width in config::DATA_WIDTHS {
        let sim = dir.join(format!("bc_sim_{width}.v"));
        let syn = dir.join(format!("bc_syn_{width}.v"));
        let sim_text = hdl::verilog::beat_check_verilog(width, "bc_sim").unwrap();
        assert!(sim_text.contains("`ifdef VERILATOR"), "{width} bits: no simulation form to prove");
        std::fs::write(&sim, sim_text).unwrap();
        std::fs::write(&syn, hdl::verilog::beat_check_verilog(width, "bc_syn").unwrap()).unwrap();
        if let Err(log) = yosys(&miter_script(&sim, &syn)) {
            panic!("{width} bits: the simulation form of the byte check differs from the synthesis form:\n{log}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The miter is not vacuous: a simulation form that counts one byte short
/// on a full beat fails it.
#[test]
fn the_miter_catches_a_simulation_form_that_differs() {
    let dir = scratch().join("broken");
    std::fs::create_dir_all(&dir).unwrap();
    let (sim, syn) = (dir.join("bc_sim.v"), dir.join("bc_syn.v"));
    let good = hdl::verilog::beat_check_verilog(64, "bc_sim").unwrap();
    let broken = good.replacen("count = 8'd8;", "count = 8'd7;", 1);
    assert_ne!(good, broken, "the full-beat count of the simulation form was not found");
    std::fs::write(&sim, broken).unwrap();
    std::fs::write(&syn, hdl::verilog::beat_check_verilog(64, "bc_syn").unwrap()).unwrap();
    assert!(yosys(&miter_script(&sim, &syn)).is_err(), "a broken simulation form passed the miter");
    let _ = std::fs::remove_dir_all(&dir);
}
