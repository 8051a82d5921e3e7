//! Four leaves have two forms in one Verilog module: the one Verilator
//! compiles (`ifdef VERILATOR`) and the one synthesis reads. The verifier's
//! byte check takes a word-level branch for a beat with every byte kept and
//! inside the transfer; the generator's prefix overlay skips the bank's
//! shifts for a beat without prefix bytes; the pattern at any byte takes
//! the aligned pattern's wiring for a beat that starts at a multiple of the
//! beat; the byte count of a `tkeep` answers a full and an empty one
//! without its ORs. Simulation tests only ever run
//! the first form, so this proves them the same function with a yosys SAT
//! miter, at every data width.

use std::path::PathBuf;
use std::process::Command;

/// A scratch folder of this test process; each test works in a subfolder
/// of its own and removes only that, as the tests run in parallel.
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

/// The yosys script proving module `{prefix}_sim` of `sim` (read with
/// VERILATOR defined) and `{prefix}_syn` of `syn` (read without) equal for
/// every input.
fn miter_script(sim: &std::path::Path, syn: &std::path::Path, prefix: &str) -> String {
    format!(
        "read_verilog -sv -DVERILATOR {}; read_verilog -sv {}; proc; opt_clean; \
         miter -equiv -flatten -make_assert {prefix}_syn {prefix}_sim miter; hierarchy -top miter; \
         sat -verify -prove-asserts miter",
        sim.display(),
        syn.display()
    )
}

#[test]
fn beat_check_simulation_form_is_the_synthesis_form() {
    let dir = scratch().join("beat-check");
    std::fs::create_dir_all(&dir).unwrap();
    for width in config::DATA_WIDTHS {
        let sim = dir.join(format!("bc_sim_{width}.v"));
        let syn = dir.join(format!("bc_syn_{width}.v"));
        let sim_text = hdl::verilog::beat_check_verilog(width, "bc_sim").unwrap();
        assert!(sim_text.contains("`ifdef VERILATOR"), "{width} bits: no simulation form to prove");
        std::fs::write(&sim, sim_text).unwrap();
        std::fs::write(&syn, hdl::verilog::beat_check_verilog(width, "bc_syn").unwrap()).unwrap();
        if let Err(log) = yosys(&miter_script(&sim, &syn, "bc")) {
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
    assert!(yosys(&miter_script(&sim, &syn, "bc")).is_err(), "a broken simulation form passed the miter");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn prefix_overlay_simulation_form_is_the_synthesis_form() {
    let dir = scratch().join("overlay");
    std::fs::create_dir_all(&dir).unwrap();
    for width in config::DATA_WIDTHS {
        let sim = dir.join(format!("po_sim_{width}.v"));
        let syn = dir.join(format!("po_syn_{width}.v"));
        let sim_text = hdl::verilog::prefix_overlay_verilog(width, "po_sim").unwrap();
        assert!(sim_text.contains("`ifdef VERILATOR"), "{width} bits: no simulation form to prove");
        std::fs::write(&sim, sim_text).unwrap();
        std::fs::write(&syn, hdl::verilog::prefix_overlay_verilog(width, "po_syn").unwrap()).unwrap();
        if let Err(log) = yosys(&miter_script(&sim, &syn, "po")) {
            panic!("{width} bits: the simulation form of the prefix overlay differs from the synthesis form:\n{log}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The overlay's miter is not vacuous either: a simulation form whose short
/// branch is taken for one prefix byte too (it drops the beat's first
/// prefix byte) fails it.
#[test]
fn the_miter_catches_an_overlay_that_differs() {
    let dir = scratch().join("overlay-broken");
    std::fs::create_dir_all(&dir).unwrap();
    let (sim, syn) = (dir.join("po_sim.v"), dir.join("po_syn.v"));
    let good = hdl::verilog::prefix_overlay_verilog(256, "po_sim").unwrap();
    let broken = good.replacen("if (count == 8'd0)", "if (count <= 8'd1)", 1);
    assert_ne!(good, broken, "the short branch of the simulation form was not found");
    std::fs::write(&sim, broken).unwrap();
    std::fs::write(&syn, hdl::verilog::prefix_overlay_verilog(256, "po_syn").unwrap()).unwrap();
    assert!(yosys(&miter_script(&sim, &syn, "po")).is_err(), "a broken overlay passed the miter");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pattern_at_simulation_form_is_the_synthesis_form() {
    let dir = scratch().join("pattern-at");
    std::fs::create_dir_all(&dir).unwrap();
    for width in config::DATA_WIDTHS {
        let sim = dir.join(format!("pa_sim_{width}.v"));
        let syn = dir.join(format!("pa_syn_{width}.v"));
        let sim_text = hdl::verilog::pattern_at_verilog(width, "pa_sim").unwrap();
        assert!(sim_text.contains("`ifdef VERILATOR"), "{width} bits: no simulation form to prove");
        std::fs::write(&sim, sim_text).unwrap();
        std::fs::write(&syn, hdl::verilog::pattern_at_verilog(width, "pa_syn").unwrap()).unwrap();
        if let Err(log) = yosys(&miter_script(&sim, &syn, "pa")) {
            panic!(
                "{width} bits: the simulation form of the pattern at any byte differs from the synthesis form:\n{log}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Its miter is not vacuous: a short branch also taken for a beat that
/// starts one word past a beat boundary fails it.
#[test]
fn the_miter_catches_a_pattern_that_differs() {
    let dir = scratch().join("pattern-at-broken");
    std::fs::create_dir_all(&dir).unwrap();
    let (sim, syn) = (dir.join("pa_sim.v"), dir.join("pa_syn.v"));
    let good = hdl::verilog::pattern_at_verilog(128, "pa_sim").unwrap();
    let broken = good.replacen("if (offset[3:0] == 4'd0)", "if (offset[1:0] == 2'd0)", 1);
    assert_ne!(good, broken, "the short branch of the simulation form was not found");
    std::fs::write(&sim, broken).unwrap();
    std::fs::write(&syn, hdl::verilog::pattern_at_verilog(128, "pa_syn").unwrap()).unwrap();
    assert!(yosys(&miter_script(&sim, &syn, "pa")).is_err(), "a broken pattern passed the miter");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn keep_count_simulation_form_is_the_synthesis_form() {
    let dir = scratch().join("keep-count");
    std::fs::create_dir_all(&dir).unwrap();
    for width in config::DATA_WIDTHS {
        let sim = dir.join(format!("kc_sim_{width}.v"));
        let syn = dir.join(format!("kc_syn_{width}.v"));
        let sim_text = hdl::verilog::keep_count_verilog(width, "kc_sim").unwrap();
        assert!(sim_text.contains("`ifdef VERILATOR"), "{width} bits: no simulation form to prove");
        std::fs::write(&sim, sim_text).unwrap();
        std::fs::write(&syn, hdl::verilog::keep_count_verilog(width, "kc_syn").unwrap()).unwrap();
        if let Err(log) = yosys(&miter_script(&sim, &syn, "kc")) {
            panic!("{width} bits: the simulation form of the keep count differs from the synthesis form:\n{log}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Its miter is not vacuous: a full beat counted one byte short fails it.
#[test]
fn the_miter_catches_a_keep_count_that_differs() {
    let dir = scratch().join("keep-count-broken");
    std::fs::create_dir_all(&dir).unwrap();
    let (sim, syn) = (dir.join("kc_sim.v"), dir.join("kc_syn.v"));
    let good = hdl::verilog::keep_count_verilog(128, "kc_sim").unwrap();
    let broken = good.replacen("count = 8'd16;", "count = 8'd15;", 1);
    assert_ne!(good, broken, "the full beat's branch of the simulation form was not found");
    std::fs::write(&sim, broken).unwrap();
    std::fs::write(&syn, hdl::verilog::keep_count_verilog(128, "kc_syn").unwrap()).unwrap();
    assert!(yosys(&miter_script(&sim, &syn, "kc")).is_err(), "a broken keep count passed the miter");
    let _ = std::fs::remove_dir_all(&dir);
}
