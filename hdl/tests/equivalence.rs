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

/// A leaf's Verilog at a data width, as module `module`.
type LeafVerilog = fn(usize, &str) -> Result<String, hdl::verilog::HdlError>;

/// Proves, at every data width, the simulation form of the leaf `verilog`
/// writes (module `{prefix}_sim`, read with VERILATOR defined) equal to its
/// synthesis form (`{prefix}_syn`), for every input.
fn assert_forms_equal(what: &str, prefix: &str, verilog: LeafVerilog) {
    let dir = scratch().join(format!("{prefix}-forms"));
    std::fs::create_dir_all(&dir).unwrap();
    for width in config::DATA_WIDTHS {
        let sim = dir.join(format!("{prefix}_sim_{width}.v"));
        let syn = dir.join(format!("{prefix}_syn_{width}.v"));
        let sim_text = verilog(width, &format!("{prefix}_sim")).unwrap();
        assert!(sim_text.contains("`ifdef VERILATOR"), "{width} bits: no simulation form to prove");
        std::fs::write(&sim, sim_text).unwrap();
        std::fs::write(&syn, verilog(width, &format!("{prefix}_syn")).unwrap()).unwrap();
        if let Err(log) = yosys(&miter_script(&sim, &syn, prefix)) {
            panic!("{width} bits: the simulation form of {what} differs from the synthesis form:\n{log}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The miter is not vacuous: the simulation form of the leaf `verilog`
/// writes at `width` bits, with its first `from` replaced by `to`, fails it.
fn assert_miter_catches(what: &str, prefix: &str, verilog: LeafVerilog, width: usize, from: &str, to: &str) {
    let dir = scratch().join(format!("{prefix}-broken"));
    std::fs::create_dir_all(&dir).unwrap();
    let (sim, syn) = (dir.join(format!("{prefix}_sim.v")), dir.join(format!("{prefix}_syn.v")));
    let good = verilog(width, &format!("{prefix}_sim")).unwrap();
    let broken = good.replacen(from, to, 1);
    assert_ne!(good, broken, "`{from}` was not found in the simulation form of {what}");
    std::fs::write(&sim, broken).unwrap();
    std::fs::write(&syn, verilog(width, &format!("{prefix}_syn")).unwrap()).unwrap();
    assert!(yosys(&miter_script(&sim, &syn, prefix)).is_err(), "a broken {what} passed the miter");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn beat_check_simulation_form_is_the_synthesis_form() {
    assert_forms_equal("the byte check", "bc", hdl::verilog::beat_check_verilog);
}

/// The miter is not vacuous: a simulation form that counts one byte short
/// on a full beat fails it.
#[test]
fn the_miter_catches_a_simulation_form_that_differs() {
    assert_miter_catches("byte check", "bc", hdl::verilog::beat_check_verilog, 64, "count = 8'd8;", "count = 8'd7;");
}

#[test]
fn prefix_overlay_simulation_form_is_the_synthesis_form() {
    assert_forms_equal("the prefix overlay", "po", hdl::verilog::prefix_overlay_verilog);
}

/// The overlay's miter is not vacuous either: a simulation form whose short
/// branch is taken for one prefix byte too (it drops the beat's first
/// prefix byte) fails it.
#[test]
fn the_miter_catches_an_overlay_that_differs() {
    assert_miter_catches(
        "overlay",
        "po",
        hdl::verilog::prefix_overlay_verilog,
        256,
        "if (count == 8'd0)",
        "if (count <= 8'd1)",
    );
}

#[test]
fn pattern_at_simulation_form_is_the_synthesis_form() {
    assert_forms_equal("the pattern at any byte", "pa", hdl::verilog::pattern_at_verilog);
}

/// Its miter is not vacuous: a short branch also taken for a beat that
/// starts one word past a beat boundary fails it.
#[test]
fn the_miter_catches_a_pattern_that_differs() {
    assert_miter_catches(
        "pattern",
        "pa",
        hdl::verilog::pattern_at_verilog,
        128,
        "if (offset[3:0] == 4'd0)",
        "if (offset[1:0] == 2'd0)",
    );
}

#[test]
fn keep_count_simulation_form_is_the_synthesis_form() {
    assert_forms_equal("the keep count", "kc", hdl::verilog::keep_count_verilog);
}

/// Its miter is not vacuous: a full beat counted one byte short fails it.
#[test]
fn the_miter_catches_a_keep_count_that_differs() {
    assert_miter_catches("keep count", "kc", hdl::verilog::keep_count_verilog, 128, "count = 8'd16;", "count = 8'd15;");
}
