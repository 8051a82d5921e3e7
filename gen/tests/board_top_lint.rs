//! The generated board top, with the user-logic files and both stubs, and the
//! top's simulation shell (`gen::sim_shell`), through `verilator --lint-only
//! -Wall` and the repository's waivers, for the default design and a
//! 1-session 64-bit design on every board. Skipped with a note when verilator is
//! not on PATH.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn verilator() -> Option<PathBuf> {
    std::env::var("PATH").unwrap_or_default().split(':').map(|d| Path::new(d).join("verilator")).find(|p| p.is_file())
}

fn lint(config_text: &str, what: &str) {
    let Some(verilator) = verilator() else {
        println!("note: verilator not on PATH: board top lint of {what} skipped (Debian: `apt-get install verilator`)");
        return;
    };
    let design = gen::parse_config(config_text).unwrap_or_else(|e| panic!("{what}: {e}"));
    let gen::Build { files, plan } = gen::build(&design).unwrap_or_else(|e| panic!("{what}: {e}"));
    // The testbench's and the virtual board's shell around the top lints with it.
    let shell = gen::sim_shell::sim_shell(&design, &plan).unwrap_or_else(|e| panic!("{what}: {e}"));
    let dir = tempfile::tempdir().unwrap();
    for f in files.iter().chain([&shell]) {
        let p = dir.path().join(&f.path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, &f.contents).unwrap();
    }
    let top = &design.name;
    let board = format!("rtl/{top}_board.v");
    // The core's place: the licensed TOE core, or with the open engine inside
    // the top, the board's Ethernet MAC.
    let core = match design.toe_core {
        config::ToeCore::Licensed => "toe",
        config::ToeCore::Open { .. } => "mac",
    };
    let stubs = [format!("rtl/stub/{top}_{core}.v"), format!("rtl/stub/{top}_platform.v")];
    let filelist = fs::read_to_string(dir.path().join("rtl/files.f")).unwrap();
    assert_eq!(
        filelist.lines().last(),
        Some(format!("rtl/{top}.v").as_str()),
        "{what}: the product top must stay last in files.f"
    );
    for f in stubs.iter().chain([&board]) {
        assert!(dir.path().join(f).is_file(), "{what}: {f} not generated");
        assert!(!filelist.contains(f.as_str()), "{what}: {f} must not be in rtl/files.f");
    }
    // The crossing constraints match the register file's instances: each
    // path's instances lead from the core to a module holding the register.
    let read = |module: &str| fs::read_to_string(dir.path().join(format!("rtl/{module}.v"))).unwrap();
    let c = hdl::register_file::crossings();
    for path in c.sync_flops.iter().chain(&c.to_user).chain(&c.to_bus) {
        let mut text = read(&format!("{top}_regs_core"));
        let parts: Vec<&str> = path.split('/').collect();
        let (reg, insts) = parts.split_last().unwrap();
        for inst in insts {
            let lines: Vec<&str> = text.lines().collect();
            let at = lines
                .iter()
                .position(|l| l.trim().ends_with(&format!(" {inst} (")))
                .unwrap_or_else(|| panic!("{what}: no instance {inst} of {path}"));
            // `<module> u_x (`, or `<module> #(` ... `) u_x (` with parameters.
            let module = lines[..=at]
                .iter()
                .rev()
                .find_map(|l| l.trim().split_once(' ').map(|(m, _)| m).filter(|m| m.starts_with(top.as_str())))
                .unwrap_or_else(|| panic!("{what}: no module for {inst}"));
            text = read(module);
        }
        assert!(text.contains(&format!(" {reg} = ")), "{what}: no register {path} in the register file");
    }
    let board_text = fs::read_to_string(dir.path().join(&board)).unwrap();
    assert!(
        board_text.contains("`default_nettype none") && board_text.contains(&design.banner()[0]),
        "{what}: prologue or banner"
    );
    assert!(
        board_text.contains(" u_user_logic (") && board_text.contains(&format!(" u_{core} (")),
        "{what}: instances"
    );
    // The register master's whole address reaches the register file.
    let bits = hdl::register_file::BUS_ADDRESS_BITS;
    assert_eq!(bits, flows::MASTER_ADDRESS_BITS, "the bus address is the register master's");
    let platform = fs::read_to_string(dir.path().join(&stubs[1])).unwrap();
    let regs = fs::read_to_string(dir.path().join(format!("rtl/{top}_regs.v"))).unwrap();
    let regs_ports = hdl::verilog::module_ports(&regs, &format!("{top}_regs")).unwrap();
    for name in ["awaddr", "araddr"] {
        let range = format!("[{}:0]", bits - 1);
        assert!(board_text.contains(&format!("wire {range} s_axil_{name};")), "{what}: s_axil_{name} {range}");
        assert!(platform.contains(&format!("output wire {range} m_axil_{name}")), "{what}: m_axil_{name} {range}");
        let port = regs_ports.iter().find(|p| p.0 == format!("s_axil_{name}"));
        assert_eq!(
            port.map(|p| (p.1, p.2)),
            Some((config::ports::Direction::Input, bits)),
            "{what}: regs s_axil_{name} {range}"
        );
    }
    let core_stub = fs::read_to_string(dir.path().join(&stubs[0])).unwrap();
    let marking = match design.toe_core {
        config::ToeCore::Licensed => "REPLACE WITH YOUR LICENSED CORE",
        config::ToeCore::Open { .. } => "YOU SUPPLY IT",
    };
    assert!(core_stub.contains("(* black_box *)") && core_stub.contains(marking), "{what}: {core} stub marking");

    let waivers = verilate::write_waivers(dir.path()).unwrap();
    // `verilator --lint-only -Wall` of the user logic's files, `extra` and top module `module`.
    let lint_top = |extra: &[&str], module: &str| {
        let out = Command::new(&verilator)
            .current_dir(dir.path())
            .args(["--lint-only", "-Wall"])
            .arg(&waivers)
            .args(["-f", "rtl/files.f"])
            .args(extra)
            .args(["--top-module", module])
            .output()
            .expect("verilator runs");
        assert!(
            out.status.success() && out.stderr.is_empty(),
            "{what}: verilator lint of {module} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    lint_top(&[stubs[0].as_str(), stubs[1].as_str(), board.as_str()], &format!("{top}_board"));
    lint_top(&[shell.path.as_str()], &gen::sim_shell::module(top));
}

#[test]
fn board_top_lints_clean_for_the_default_design() {
    lint(config::DEFAULT_TOML, "default design");
}

#[test]
fn board_top_lints_clean_for_one_session_of_64_bits_on_every_board() {
    for board in flows::board_names() {
        let text = config::Variant::default().sessions(1).data_width(64).board(board).to_toml();
        lint(&text, &format!("1 session x 64 bits on {board}"));
    }
}

#[test]
fn board_top_lints_clean_for_the_open_engine_at_64_and_1024_bits() {
    for width in [64, 1024] {
        let text = config::Variant::default().sessions(1).data_width(width).set("toe.core", "open").to_toml();
        lint(&text, &format!("open engine, 1 session x {width} bits"));
    }
}
