//! The generated Rust accessors: the golden file of the default config is
//! compiled into this test (with warnings denied) and checked against the
//! register map; renders of other session counts are compiled with rustc.
//! No literal address appears here: every expected value comes from the map.
#![deny(warnings)]

use std::process::Command;

include!("golden/regmap_accessors.rs");

use regmap::{Access, RegisterMap};

fn design(sessions: usize) -> config::Design {
    config::parse(&config::default_toml_with_sessions(sessions)).unwrap()
}

fn default_map() -> RegisterMap {
    RegisterMap::for_design(&design(4))
}

#[test]
fn every_register_instance_matches_the_map() {
    let map = default_map();
    let instances = map.instances();
    assert_eq!(regs::ALL.len(), instances.len());
    for (generated, loc) in regs::ALL.iter().zip(&instances) {
        let id = regmap::register_id(&loc.block.name, &loc.register.name);
        assert_eq!(generated.id, id);
        assert_eq!(generated.instance, loc.instance, "{id}");
        assert_eq!(Some(generated.addr), loc.block.address(loc.instance, loc.register), "{id}");
        assert_eq!(generated.reset, loc.register.reset_for(loc.instance), "{id}");
        assert_eq!(generated.ro_mask, loc.register.mask_of(Access::Ro), "{id}");
        assert_eq!(generated.rw_mask, loc.register.mask_of(Access::Rw), "{id}");
        assert_eq!(generated.w1c_mask, loc.register.mask_of(Access::W1c), "{id}");
        assert_eq!(generated.wpulse_mask, loc.register.mask_of(Access::WPulse), "{id}");
        assert_eq!(generated.claim_mask, loc.register.mask_of(Access::Claim), "{id}");
        assert_eq!(generated.volatile_mask, loc.register.volatile_mask(), "{id}");
    }
    assert_eq!(regs::ADDRESS_BITS, map.address_bits());
}

#[test]
fn session_accessors_follow_the_stride() {
    let map = default_map();
    let block = map.block("session").unwrap();
    assert_eq!(regs::session::COUNT, block.instances());
    assert!(regs::session(regs::session::COUNT).is_none(), "no instance past the last session");
    for s in regs::Session::ALL {
        assert_eq!(regs::session(s.index()), Some(s));
        let status = block.register("status").unwrap();
        assert_eq!(Some(s.status().addr), block.address(s.index(), status));
        assert_eq!(s.transfer_size_lo().addr + 4, s.transfer_size_hi().addr);
        assert_eq!(s.tx_bytes().lo, s.tx_bytes_lo());
        assert_eq!(s.tx_bytes().width, 64);
        assert_eq!(s.err_offset().width, 48);
        let port = block.register("fpga_port").unwrap();
        assert_eq!(s.fpga_port().reset, port.reset_for(s.index()));
        assert_eq!(
            regs::session::fpga_port::PORT.get(s.fpga_port().reset),
            u32::from(design(4).defaults.fpga_ports[s.index()])
        );
    }
    let (s0, s1) = (regs::Session::ALL[0], regs::Session::ALL[1]);
    assert_eq!(s1.ctrl().addr - s0.ctrl().addr, regs::session::STRIDE);
    assert_eq!(regs::info::ID.reset, regs::ID_MAGIC);
    assert_eq!(regs::toe::TOE_CTRL.addr, map.find_register("toe_ctrl").map(|(b, r)| b.base + r.offset).unwrap());
}

#[test]
fn fields_encode_and_decode_within_their_range() {
    use regs::session::{speed, status, test_config};
    let word = speed::TX_PERCENT.set(speed::RESET, 42).unwrap();
    assert_eq!(speed::TX_PERCENT.get(word), 42);
    assert_eq!(speed::RX_PERCENT.get(word), speed::RX_PERCENT.get(speed::RESET), "other fields kept");
    assert_eq!(speed::TX_PERCENT.word(0), None, "0 % is out of range");
    assert_eq!(speed::TX_PERCENT.word(101), None, "101 % is out of range");
    assert_eq!(speed::TX_PERCENT.word(100), Some(100));
    let mode = test_config::TEST_MODE.word(test_config::TestMode::FullDuplex.bits()).unwrap();
    assert_eq!(
        test_config::TestMode::from_bits(test_config::TEST_MODE.get(mode)),
        Some(test_config::TestMode::FullDuplex)
    );
    assert_eq!(status::ErrorCause::from_bits(15), None);
    let cause = status::ERROR_CAUSE.word(status::ErrorCause::Verify.bits()).unwrap();
    assert_eq!(cause >> status::ERROR_CAUSE.shift, 3);
    let mode_field = default_map().find_register("test_config").unwrap().1.field("test_mode").unwrap().clone();
    assert_eq!(test_config::TEST_MODE.mask, mode_field.mask());
}

#[test]
fn enum_values_carry_the_names_of_the_map() {
    use regs::session::{status, test_config};
    let map = default_map();
    let values = |reg: &str, field: &str| map.find_register(reg).unwrap().1.field(field).unwrap().enum_values.clone();
    for v in values("status", "error_cause") {
        assert_eq!(status::ErrorCause::from_bits(v.value).map(|c| c.name()), Some(v.name.as_str()));
    }
    for v in values("test_config", "test_mode") {
        assert_eq!(test_config::TestMode::from_bits(v.value).map(|c| c.name()), Some(v.name.as_str()));
    }
    assert_eq!(status::ErrorCause::PeerClosed.name(), "peer_closed");
}

#[test]
fn wide_values_join_and_split() {
    let s = regs::session(2).unwrap();
    let size = s.transfer_size();
    assert_eq!(size.split((1 << 48) - 1), Some((u32::MAX, 0xFFFF)));
    assert_eq!(size.split(1 << 48), None, "a 48-bit value rejects bit 48");
    assert_eq!(size.join(0x89AB_CDEF, 0x0123), 0x0123_89AB_CDEF);
    assert_eq!(size.join(0, 0xFFFF_FFFF), 0xFFFF << 32, "bits above the width are dropped");
    let mac = regs::toe::FPGA_MAC.reset();
    assert_eq!(mac.to_be_bytes()[2..], design(4).defaults.fpga_mac);
    assert_eq!(regs::info::CYCLE_COUNT.split(u64::MAX), Some((u32::MAX, u32::MAX)));
}

fn rustc_compiles(dir: &std::path::Path, crate_type: &str, source: &str) -> (bool, String) {
    let file = dir.join(format!("{crate_type}.rs"));
    std::fs::write(&file, source).unwrap();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let out = Command::new(rustc)
        .args(["--edition", "2021", "--crate-type", crate_type, "-D", "warnings", "--out-dir"])
        .arg(dir)
        .arg(&file)
        .output()
        .expect("rustc runs");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn accessors_of_every_session_count_compile_without_warnings() {
    for sessions in 1..=config::MAX_SESSIONS {
        let d = design(sessions);
        let map = RegisterMap::for_design(&d);
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("regmap_accessors.rs"), regmap::rust_accessors(&map, &d)).unwrap();
        // As a library with every item documented, and inside a private module
        // of a binary that uses one item (the rest must not warn as dead code).
        let lib = "//! Accessor check.\n#![deny(missing_docs)]\ninclude!(\"regmap_accessors.rs\");\n";
        let (ok, diagnostics) = rustc_compiles(dir.path(), "lib", lib);
        assert!(ok, "{sessions} session(s), lib:\n{diagnostics}");
        let bin = "mod generated {\n    include!(\"regmap_accessors.rs\");\n}\nfn main() {\n    assert!(generated::regs::session(0).is_some());\n}\n";
        let (ok, diagnostics) = rustc_compiles(dir.path(), "bin", bin);
        assert!(ok, "{sessions} session(s), bin:\n{diagnostics}");
    }
}
