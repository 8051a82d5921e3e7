//! Builds the verilated models the tests drive.
//!
//! For each model below: generate the Verilog with the `gen` library (the
//! same code as `cargo run -p gen`), then hand it to the `verilate` crate's
//! recipe ([`verilate::StaticModels`]): verilate it into a static library,
//! read its port list from the generated `V<model>.h`, and render a C++ shim
//! plus the Rust port table (`models.rs` in OUT_DIR). Each model gets its own
//! `VerilatedContext`, so tests run in parallel. `TB_TRACE=1` at build time
//! adds FST tracing (see the README).

use std::path::PathBuf;
use std::{env, fs};

use config::Variant;
use verilate::StaticModels;

/// Two sessions of 64 bits, the narrowest bus.
fn narrow() -> Variant {
    Variant::default().sessions(2).data_width(64)
}

/// Product tops, exactly as `gen` writes them: (model name, configuration).
const MODELS: &[(&str, fn() -> Variant)] = &[
    // The default design: register file and 4 sessions of 1024 bits.
    ("top1024", Variant::default),
    // Two sessions of 64 bits: the controller and the top at the narrowest bus.
    ("top64", narrow),
];

/// Datapath harnesses (`toe_gen::rtl::datapath_harness`): the sessions'
/// generators, verifiers and rate limiters with plain ports, no controller.
const HARNESS_MODELS: &[(&str, fn() -> Variant)] = &[("dp1024", Variant::default), ("dp64", narrow)];

/// Block-level models: (model name, data width, builder of (top module, Verilog)).
type BlockBuilder = fn() -> Result<(String, String), hdl::verilog::HdlError>;
const BLOCK_MODELS: &[(&str, usize, BlockBuilder)] = &[
    // The register file of the default design (4 sessions).
    ("regfile", 32, regfile_default),
    // Two sessions, and `toe.target_ip` moved in the map (tests/register_file.rs).
    ("regfile_alt", 32, regfile_alt),
];

/// The register file of `text`'s design for `map_edit`'s map, as a house-style file.
fn regfile_model(
    top: &str,
    text: &str,
    map_edit: fn(&mut regmap::RegisterMap),
) -> Result<(String, String), hdl::verilog::HdlError> {
    let design = toe_gen::parse_config(text).map_err(|e| hdl::verilog::HdlError(e.to_string()))?;
    let mut map = regmap::RegisterMap::for_design(&design);
    map_edit(&mut map);
    map.validate().map_err(|e| hdl::verilog::HdlError(e.to_string()))?;
    let body = hdl::register_file::register_file_verilog(&design, &map, top)?;
    Ok((top.to_string(), design.verilog_file(&body)))
}

fn regfile_default() -> Result<(String, String), hdl::verilog::HdlError> {
    regfile_model("regfile", config::DEFAULT_TOML, |_| {})
}

fn regfile_alt() -> Result<(String, String), hdl::verilog::HdlError> {
    regfile_model("regfile_alt", &Variant::default().sessions(2).to_toml(), |map| {
        if let Some(r) = map.block_mut("toe").and_then(|b| b.register_mut("target_ip")) {
            r.offset = 0x80;
        }
    })
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let waivers = root.join("scripts/verilator_waivers.vlt");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", waivers.display());
    println!("cargo:rerun-if-env-changed=TB_TRACE");
    let trace = env::var("TB_TRACE").map(|v| v == "1").unwrap_or(false);
    let mut models = StaticModels::new(&out, Some(&waivers), trace, "crate::verilated");

    // Product tops: the Verilog exactly as `gen` writes it.
    for (model, variant) in MODELS {
        let design = variant_design(model, variant());
        let dir = out.join(model);
        let _ = fs::remove_dir_all(&dir);
        let build = toe_gen::build(&design).unwrap_or_else(|e| panic!("model {model}: {e}"));
        for f in &build.files {
            let p = dir.join("build").join(&f.path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, &f.contents).unwrap();
        }
        let sources: Vec<PathBuf> = fs::read_to_string(dir.join("build").join(toe_gen::rtl::FILELIST))
            .unwrap()
            .lines()
            .map(|l| dir.join("build").join(l))
            .collect();
        let summary = format!("design `{}`, {} session(s) of {} bits", design.name, design.sessions, design.data_width);
        // The configuration hash lets the virtual board find a built-in model;
        // the port plan says which port is which.
        let consts = format!(
            "    pub const SESSIONS: usize = {};\n    pub const DATA_WIDTH: usize = {};\n    pub const CONFIG_HASH: &str = {:?};\n{}",
            design.sessions,
            design.data_width,
            design.config_hash,
            plan_items(&build.plan)
        );
        models.add(model, &design.name, &sources, &summary, &consts);
    }

    // Datapath harnesses.
    for (model, variant) in HARNESS_MODELS {
        let design = variant_design(model, variant());
        let dir = out.join(model);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let harness = toe_gen::rtl::datapath_harness(&design, model).unwrap_or_else(|e| panic!("model {model}: {e}"));
        let sources: Vec<PathBuf> = harness
            .files
            .iter()
            .map(|f| {
                let p = dir.join(&f.path);
                fs::write(&p, &f.contents).unwrap();
                p
            })
            .collect();
        let summary = format!("datapath harness, {} session(s) of {} bits", design.sessions, design.data_width);
        let consts = format!(
            "    pub const SESSIONS: usize = {};\n    pub const DATA_WIDTH: usize = {};\n{}",
            design.sessions,
            design.data_width,
            plan_items(&harness.plan)
        );
        models.add(model, model, &sources, &summary, &consts);
    }

    // Block-level models: one rust-hdl block (or test assembly) on its own.
    for (model, width, build) in BLOCK_MODELS {
        let dir = out.join(model);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let (top, text) = build().unwrap_or_else(|e| panic!("model {model}: {e}"));
        let source = dir.join(format!("{top}.v"));
        fs::write(&source, text).unwrap();
        let consts = format!("    pub const DATA_WIDTH: usize = {width};\n");
        models.add(model, &top, &[source], &format!("block `{top}`, {width} bits"), &consts);
    }

    // The Verilator runtime and every shim in one static library; the model
    // archives follow it on the link line (`finish`).
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .flag_if_supported("-faligned-new")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-sign-compare")
        .includes(models.include_dirs())
        .files(models.cpp_files());
    for (name, value) in models.defines() {
        build.define(name, value);
    }
    build.compile("tb_shims");
    models.finish(&out.join("models.rs"));
}

/// The module items that carry a model's port plan: the text `gen` produced
/// and `plan()`, which reads it back.
fn plan_items(plan: &config::ports::PortPlan) -> String {
    format!(
        "    /// The top's ports, as `gen` planned them ([`config::ports::PortPlan::to_text`]).\n    pub const PORT_PLAN: &str = {:?};\n    /// The top's port plan.\n    pub fn plan() -> config::ports::PortPlan {{\n        config::ports::PortPlan::from_text(PORT_PLAN).expect(\"build.rs wrote a valid plan\")\n    }}\n    /// The model with its port plan.\n    pub fn top() -> crate::verilated::Top {{\n        crate::verilated::Top::new(&FNS, plan())\n    }}\n",
        plan.to_text()
    )
}

/// The design of `variant`, validated.
fn variant_design(model: &str, variant: Variant) -> config::Design {
    toe_gen::parse_config(&variant.to_toml()).unwrap_or_else(|e| panic!("model {model}: {e}"))
}
