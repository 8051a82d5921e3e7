//! Renders the default design's typed register accessors into OUT_DIR
//! (the same text `gen` writes to `build/sw/regmap_accessors.rs`), plus the
//! design parameters a driver expects by default. No verilation: a lab PC
//! without Verilator builds the driver and the console.

use std::path::PathBuf;
use std::{env, fs};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let design = config::parse(config::DEFAULT_TOML).expect("the default configuration is valid");
    let map = regmap::RegisterMap::for_design(&design);
    fs::write(out.join("regmap_accessors.rs"), regmap::rust_accessors(&map, &design)).unwrap();
    let design_rs = format!(
        "/// Design `{name}` (configuration {hash}): what the accessors were generated for.\n\
         pub const NAME: &str = {name:?};\n\
         pub const SESSIONS: usize = {sessions};\n\
         pub const DATA_WIDTH: u32 = {width};\n\
         pub const USER_CLOCK_KHZ: u32 = {khz};\n",
        name = design.name,
        hash = design.config_hash,
        sessions = design.sessions,
        width = design.data_width,
        khz = design.user_clock_khz(),
    );
    fs::write(out.join("design.rs"), design_rs).unwrap();
    fs::write(out.join("net_map.rs"), net_map()).unwrap();
}

/// The `net` block of a design with the open engine (`toe.core = "open"`;
/// its addresses are the same for every such design): its registers as
/// constants, the counters in the model's order with their descriptions.
fn net_map() -> String {
    let text = config::Variant::default().set("toe.core", "open").to_toml();
    let design = config::parse(&text).expect("the default with the open core is valid");
    let map = regmap::RegisterMap::for_design(&design);
    let net = map.block("net").expect("an open design has the net block");
    let addr = |name: &str| net.base + net.register(name).unwrap_or_else(|| panic!("net.{name}")).offset;
    let shift = |reg: &str, field: &str| net.register(reg).unwrap().field(field).unwrap().lsb;
    let mut s = String::new();
    s += &format!("/// `net.net_status`.\npub const STATUS: u32 = {:#05x};\n", addr("net_status"));
    s += &format!(
        "/// `net.net_status.target_known`'s bit.\npub const TARGET_KNOWN_BIT: u32 = {};\n",
        shift("net_status", "target_known")
    );
    s += &format!(
        "/// `net.net_status.arp_failed`'s bit.\npub const ARP_FAILED_BIT: u32 = {};\n",
        shift("net_status", "arp_failed")
    );
    s += &format!(
        "/// `net.resolved_mac_lo` (reading it latches the high half).\npub const RESOLVED_MAC_LO: u32 = {:#05x};\n",
        addr("resolved_mac_lo")
    );
    s += &format!("/// `net.resolved_mac_hi`.\npub const RESOLVED_MAC_HI: u32 = {:#05x};\n", addr("resolved_mac_hi"));
    s += "/// Every counter: name, address, what it counts.\npub const COUNTERS: &[(&str, u32, &str)] = &[\n";
    let first = net.register("frames_in").expect("net.frames_in").offset;
    for r in net.registers.iter().filter(|r| r.offset >= first) {
        s += &format!("    ({:?}, {:#05x}, {:?}),\n", r.name, net.base + r.offset, r.description);
    }
    s += "];\n";
    s
}
