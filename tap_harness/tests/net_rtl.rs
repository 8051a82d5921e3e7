//! `net-rtl`: the node's Verilog as a build folder for the synthesis
//! estimate (scripts/synth-estimate.sh reads DIR/rtl/files.f, top last).

mod common;

use std::path::PathBuf;
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_net-rtl");

fn net_rtl(args: &[&str]) -> std::process::Output {
    common::run_bounded_bin(BIN, args, Duration::from_secs(60))
}

#[test]
fn writes_every_module_and_a_file_list_with_the_node_last() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("net-rtl-{}", std::process::id()));
    let out = net_rtl(&["--width", "128", "--mtu", "9000", "--out", dir.to_str().expect("utf-8 path")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "net128_9000_net_node\n");
    let list = std::fs::read_to_string(dir.join("rtl/files.f")).expect("files.f");
    let files: Vec<&str> = list.lines().collect();
    assert_eq!(files.last(), Some(&"rtl/net128_9000_net_node.v"), "{list}");
    let modules = hdl::net::node_modules(128, 9000, "net128_9000").expect("the node");
    assert_eq!(files.len(), modules.len(), "{list}");
    for (f, m) in files.iter().zip(&modules) {
        assert_eq!(*f, format!("rtl/{}.v", m.name));
        assert_eq!(std::fs::read_to_string(dir.join(f)).expect("a module file"), m.file_text(), "{f}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_options_name_the_field_and_fail() {
    let out = net_rtl(&["--width", "96", "--out", "/nonexistent"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"96\" is not a data width"));
    let out = net_rtl(&["--width", "64", "--mtu", "100", "--out", "/nonexistent"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mtu = 100 is out of range: 576 ..= 9000"));
}
