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
}
