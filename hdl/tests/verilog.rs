//! The Verilog of every block is complete and named as asked.

#[test]
fn session_verilog_has_named_nonempty_modules_for_every_width() {
    for width in config::DATA_WIDTHS {
        let text = hdl::verilog::session_verilog(width, 250_000, "dut_session").unwrap();
        assert!(text.contains("module dut_session("), "width {width}");
        // rust-hdl's own writer, the lockstep test's reference, names children by path.
        assert!(text.contains("module dut_session$datapath$generator("), "width {width}");
        assert!(text.contains(&format!("[{}:0] toe_tx_tdata;", width - 1)), "width {width}");
        assert!(!text.contains("module top"), "width {width}: rust-hdl's default name leaked");
        let dp = hdl::verilog::datapath_verilog(width, "dut_dp").unwrap();
        assert!(dp.contains("module dut_dp$generator("), "width {width}");
        assert!(dp.contains(&format!("[{}:0] tx_tdata;", width - 1)), "width {width}");
    }
}

#[test]
fn unsupported_width_is_an_error_not_a_panic() {
    for e in [
        hdl::verilog::session_verilog(96, 250_000, "x").unwrap_err(),
        hdl::verilog::datapath_verilog(96, "x").unwrap_err(),
    ] {
        assert!(e.0.contains("unsupported data width 96"), "{e}");
        assert!(e.0.ends_with(&format!("use {}", config::data_widths_text())), "{e}");
    }
}

#[test]
fn every_configurable_width_has_a_by_width_arm() {
    for width in config::DATA_WIDTHS {
        hdl::verilog::datapath_verilog(width, "dp").unwrap_or_else(|e| panic!("width {width}: {e}"));
        hdl::verilog::session_verilog(width, 250_000, "s").unwrap_or_else(|e| panic!("width {width}: {e}"));
    }
}

#[test]
fn session_ports_come_typed_from_the_block() {
    use config::ports::{Direction, Group};
    let ports = hdl::verilog::session_ports(128).unwrap();
    let find = |n: &str| ports.iter().find(|p| p.name == n).unwrap_or_else(|| panic!("no port {n}: {ports:?}"));
    assert_eq!((find("clock").direction, find("clock").width), (Direction::Input, 1));
    assert_eq!((find("reg_transfer_size").direction, find("reg_transfer_size").width), (Direction::Input, 48));
    assert_eq!(
        (find("toe_tx_tdata").direction, find("toe_tx_tdata").width, find("toe_tx_tdata").group),
        (Direction::Output, 128, Group::ToeSession(0))
    );
    assert_eq!(find("toe_tx_tkeep").width, 16);
    assert_eq!(
        (find("reg_elapsed").direction, find("reg_elapsed").width, find("reg_elapsed").local.as_str()),
        (Direction::Output, 64, "elapsed")
    );
    assert!(ports.iter().all(|p| !p.name.contains('$')));
}

/// The project's own writer (`hdl::emit`): one module per block type, named
/// after it, children first, no `$` anywhere, every port documented.
#[test]
fn emitted_session_is_one_module_per_block_type_named_after_it() {
    for width in config::DATA_WIDTHS {
        let modules = hdl::verilog::session_modules(width, 250_000, "toe").unwrap();
        let names: Vec<&str> = modules.iter().map(|m| m.name.as_str()).collect();
        for block in ["rate_limiter", "traffic_generator", "data_verifier", "datapath", "watchdog", "session"] {
            assert!(names.contains(&format!("toe_{block}").as_str()), "width {width}: no toe_{block} in {names:?}");
        }
        assert_eq!(names.last(), Some(&"toe_session"), "width {width}: the session comes last");
        assert!(names.len() <= 40, "width {width}: {} modules", names.len());
        let mut seen = Vec::new();
        for m in &modules {
            assert!(!m.text.contains('$'), "width {width}: `$` in {}", m.name);
            assert_eq!(m.text.matches("\nmodule ").count(), 1, "width {width}: one module in {}", m.name);
            assert!(m.text.contains(&format!("\nmodule {} (", m.name)), "width {width}: {}", m.name);
            // Every instance is of a module already written, named u_<field>.
            for line in m.text.lines().filter(|l| l.trim_end().ends_with(" (") && l.contains(" u_")) {
                let module = line.split_whitespace().next().unwrap();
                assert!(seen.contains(&module.to_string()), "width {width}: {} uses {module} before it", m.name);
            }
            // Every port line carries its comment.
            let header = &m.text[m.text.find("\nmodule ").unwrap()..m.text.find(");\n").unwrap()];
            for line in
                header.lines().filter(|l| l.trim_start().starts_with("input") || l.trim_start().starts_with("output"))
            {
                assert!(line.contains("// "), "width {width}: {}: port without a comment: {line}", m.name);
            }
            seen.push(m.name.clone());
        }
        let limiter = modules.iter().find(|m| m.name == "toe_rate_limiter").unwrap();
        assert!(limiter.text.contains("reg [7:0] credit_reg = 8'h0;"), "{}", limiter.text);
        assert!(limiter.text.contains("always @(posedge clock) begin"), "{}", limiter.text);
        let datapath = modules.iter().find(|m| m.name == "toe_datapath").unwrap();
        for inst in ["toe_rate_limiter u_tx_limiter (", "toe_rate_limiter u_rx_limiter ("] {
            assert!(datapath.text.contains(inst), "width {width}: no `{inst}`");
        }
    }
}
