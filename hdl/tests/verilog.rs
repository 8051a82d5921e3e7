//! The Verilog of every block is complete and named as asked.

#[test]
fn session_verilog_has_named_nonempty_modules_for_every_width() {
    for width in config::DATA_WIDTHS {
        let text = hdl::verilog::session_verilog(width, 250_000, "dut_session").unwrap();
        assert!(text.contains("module dut_session("), "width {width}");
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
