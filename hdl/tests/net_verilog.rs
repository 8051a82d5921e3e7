//! The network node's Verilog (`hdl::net`, through `hdl::emit`): every
//! module has a body, names its Rust block, and `verilator --lint-only
//! -Wall` is clean at every data width, in both the simulation and the
//! synthesis reading (`-UVERILATOR`); skipped with a printed reason when
//! Verilator is not installed.

mod common;

use std::process::Command;

const BLOCKS: [&str; 6] = ["net_rx", "frame_ram", "desc_fifo", "net_tx", "arp_client", "net_node"];

fn verilator_present() -> bool {
    let found = Command::new("verilator").arg("--version").output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: verilator is not installed (make deps installs it)");
    }
    found
}

#[test]
fn every_module_has_a_body_and_its_banner() {
    for width in config::DATA_WIDTHS {
        let modules = hdl::net::node_modules(width, 1500, "dut").unwrap();
        let names: Vec<&str> = modules.iter().map(|m| m.name.as_str()).collect();
        for block in BLOCKS {
            assert!(names.contains(&format!("dut_{block}").as_str()), "width {width}: no dut_{block} in {names:?}");
        }
        assert_eq!(names.last(), Some(&"dut_net_node"), "width {width}: the node comes last");
        for m in &modules {
            assert!(!m.text.contains('$'), "width {width}: `$` in {}", m.name);
            let body = &m.text[m.text.find(");\n").unwrap()..m.text.find("endmodule").unwrap()];
            // A leaf's body is its Verilog; the node's its instances.
            assert!(body.contains("always @(") || body.contains(" u_"), "width {width}: {} has an empty body", m.name);
            assert!(m.text.contains("hdl/src/net/"), "width {width}: {} does not name its Rust file", m.name);
        }
        let node = modules.iter().find(|m| m.name == "dut_net_node").unwrap();
        for inst in ["u_rx", "u_ram", "u_fifo", "u_tx", "u_arp"] {
            assert!(node.text.contains(&format!(" {inst} (")), "width {width}: no {inst} in the node");
        }
    }
}

#[test]
fn bad_parameters_are_errors_naming_the_field() {
    assert_eq!(hdl::net::node_modules(64, 575, "x").unwrap_err().0, "mtu = 575 is out of range: 576 ..= 9000");
    assert!(hdl::net::node_modules(96, 1500, "x").unwrap_err().0.starts_with("unsupported data width 96"));
}

fn lint_both_forms(top: &str, sources: &[verilate::Source], tag: &str) {
    common::lint(top, sources, &common::cache("net_lint").join(tag));
    // The synthesis reading: the same files without VERILATOR defined.
    let dir = common::cache("net_lint").join(format!("{tag}-syn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for s in sources {
        let f = dir.join(&s.path);
        std::fs::write(&f, &s.contents).unwrap();
        files.push(f);
    }
    let waivers = verilate::write_waivers(&dir).unwrap();
    let out = Command::new("verilator")
        .args(["--lint-only", "-Wall", "-UVERILATOR", "--top-module", top])
        .arg(&waivers)
        .args(&files)
        .output()
        .expect("verilator runs");
    let _ = std::fs::remove_dir_all(&dir);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !log.contains("%Warning"), "{top} (-UVERILATOR):\n{log}");
}

#[test]
fn verilator_lint_is_clean_at_every_width_and_mtu() {
    if !verilator_present() {
        return;
    }
    for width in config::DATA_WIDTHS {
        for mtu in [1500, 9000] {
            let modules = hdl::net::node_modules(width, mtu, "dut").unwrap();
            let sources = common::sources(&modules);
            lint_both_forms("dut_net_node", &sources, &format!("w{width}-m{mtu}"));
        }
    }
}

/// yosys, a second Verilog front end, reads the node at every width and
/// elaborates it: Verilator accepts forms Verilog does not have (a
/// part-select of a concatenation, `{a, b}[13:0]`), which the vendor tools
/// and `make synth-estimate` refuse.
#[test]
fn yosys_reads_and_elaborates_the_node_at_every_width() {
    if !Command::new("yosys").arg("-V").output().is_ok_and(|o| o.status.success()) {
        panic!("yosys is not installed (make deps installs it)");
    }
    for width in config::DATA_WIDTHS {
        let modules = hdl::net::node_modules(width, 1500, "dut").unwrap();
        let sources = common::sources(&modules);
        let dir = common::cache("net_yosys").join(format!("{width}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut files = Vec::new();
        for s in &sources {
            std::fs::write(dir.join(&s.path), &s.contents).unwrap();
            files.push(s.path.display().to_string());
        }
        let script = format!("read_verilog -sv {}; hierarchy -check -top dut_net_node", files.join(" "));
        let out = Command::new("yosys").args(["-q", "-p", &script]).current_dir(&dir).output().unwrap();
        assert!(
            out.status.success(),
            "width {width}: yosys refused the node:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
