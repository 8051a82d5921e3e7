//! Builds the verilated models the tests drive.
//!
//! The models come from one list ([`models`]): for every width in
//! `config::DATA_WIDTHS` a datapath harness `dp<W>` and a product top
//! `top<W>`, plus the block-level models. For each: generate the Verilog
//! with the `gen` library (the same code as `cargo run -p gen`), then hand it
//! to the `verilate` crate's recipe ([`verilate::StaticModels`]): verilate it
//! into a static library, read its port list from the generated `V<model>.h`,
//! and render a C++ shim plus the Rust port table (`models.rs` in OUT_DIR).
//! Beside it, `matrix.rs` lists the width matrix for the tests
//! (`testbench::models::DATAPATH_MODELS`, `TOP_MODELS`). Each model gets its
//! own `VerilatedContext`, so tests run in parallel. `TB_TRACE=1` at build
//! time adds FST tracing (see the README).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs};

use config::Variant;
use verilate::{StaticModel, StaticModels};

/// What a model of the width matrix is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// A product top, exactly as `gen` writes it (register file, session
    /// controllers, datapaths): the two-board and session tests.
    Top,
    /// A datapath harness (`gen::rtl::datapath_harness`): the sessions'
    /// generators, verifiers and rate limiters with plain ports, no controller.
    Harness,
}

/// One model of the width matrix.
struct Spec {
    name: String,
    kind: Kind,
    variant: Variant,
    sessions: usize,
    data_width: usize,
}

/// The default design's sessions and width (`config::DEFAULT_TOML`).
fn default_shape() -> (usize, usize) {
    let d = variant_design("default", Variant::default());
    (d.sessions, d.data_width)
}

/// Sessions of the matrix's model of `kind` at `width`:
/// - the default width: the default design itself (4 sessions), so `top1024`
///   is the product the demo, the register accessors and the virtual board use;
/// - the narrowest width: 2 sessions (the session controller's tests and the
///   two-board test of two sessions run on `top64`);
/// - every other width: the least that its tests need, since each session
///   adds to the build time: a harness 2 (the harness tests drive sessions 0
///   and 1), a top 1.
fn sessions_of(kind: Kind, width: usize, default: (usize, usize)) -> usize {
    if width == default.1 {
        default.0
    } else if width == config::DATA_WIDTHS[0] {
        2
    } else {
        match kind {
            Kind::Harness => 2,
            Kind::Top => 1,
        }
    }
}

/// The width matrix: a harness `dp<W>` and a top `top<W>` for every width
/// `W` of `config::DATA_WIDTHS`, so adding a width adds both models.
fn models() -> Vec<Spec> {
    let default = default_shape();
    let mut specs = Vec::new();
    for kind in [Kind::Top, Kind::Harness] {
        for &width in &config::DATA_WIDTHS {
            let sessions = sessions_of(kind, width, default);
            let prefix = if kind == Kind::Top { "top" } else { "dp" };
            // Only the keys that change: the default width's models are the default design.
            let mut variant = Variant::default();
            if sessions != default.0 {
                variant = variant.sessions(sessions);
            }
            if width != default.1 {
                variant = variant.data_width(width);
            }
            specs.push(Spec { name: format!("{prefix}{width}"), kind, variant, sessions, data_width: width });
        }
    }
    specs
}

/// Block-level models: (model name, data width, builder of (top module, Verilog)).
/// A block model: its top module and its files (name, text), one module each.
type BlockBuilder = fn() -> Result<(String, Vec<(String, String)>), hdl::verilog::HdlError>;
const BLOCK_MODELS: &[(&str, usize, BlockBuilder)] = &[
    // The register file of the default design (4 sessions).
    ("regfile", 32, regfile_default),
    // Two sessions, and `toe.target_ip` moved in the map (tests/register_file.rs).
    ("regfile_alt", 32, regfile_alt),
];

/// The register file of `text`'s design for `map_edit`'s map, as house-style files.
fn regfile_model(
    top: &str,
    text: &str,
    map_edit: fn(&mut regmap::RegisterMap),
) -> Result<(String, Vec<(String, String)>), hdl::verilog::HdlError> {
    let design = gen::parse_config(text).map_err(|e| hdl::verilog::HdlError(e.to_string()))?;
    let mut map = regmap::RegisterMap::for_design(&design);
    map_edit(&mut map);
    map.validate().map_err(|e| hdl::verilog::HdlError(e.to_string()))?;
    let modules = hdl::register_file::register_file_modules(&design, &map, top, top)?;
    Ok((top.to_string(), modules.iter().map(|m| (format!("{}.v", m.name), design.verilog_file(&m.text))).collect()))
}

fn regfile_default() -> Result<(String, Vec<(String, String)>), hdl::verilog::HdlError> {
    regfile_model("regfile", config::DEFAULT_TOML, |_| {})
}

fn regfile_alt() -> Result<(String, Vec<(String, String)>), hdl::verilog::HdlError> {
    regfile_model("regfile_alt", &Variant::default().sessions(2).to_toml(), |map| {
        if let Some(r) = map.block_mut("toe").and_then(|b| b.register_mut("target_ip")) {
            r.offset = 0x70;
        }
    })
}

/// A model whose Verilog is written, ready for Verilator.
struct Prepared {
    model: String,
    top: String,
    sources: Vec<PathBuf>,
    summary: String,
    consts: String,
    /// A rough measure of the verilation's work, to start the largest first.
    cost: usize,
}

/// Writes the Verilog of matrix model `spec` under `out/<model>`.
fn prepare(out: &Path, spec: &Spec) -> Prepared {
    let model = spec.name.as_str();
    let design = variant_design(model, spec.variant.clone());
    assert_eq!((design.sessions, design.data_width), (spec.sessions, spec.data_width), "model {model}");
    let dir = out.join(model);
    let _ = fs::remove_dir_all(&dir);
    match spec.kind {
        Kind::Top => {
            let build = gen::build(&design).unwrap_or_else(|e| panic!("model {model}: {e}"));
            for f in &build.files {
                let p = dir.join("build").join(&f.path);
                fs::create_dir_all(p.parent().unwrap()).unwrap();
                fs::write(&p, &f.contents).unwrap();
            }
            let mut sources: Vec<PathBuf> = fs::read_to_string(dir.join("build").join(gen::rtl::FILELIST))
                .unwrap()
                .lines()
                .map(|l| dir.join("build").join(l))
                .collect();
            // The model is the top in its simulation shell (resets registered,
            // `gen::sim_shell`): the same ports, far fewer evaluations.
            let shell =
                gen::sim_shell::sim_shell(&design, &build.plan).unwrap_or_else(|e| panic!("model {model}: {e}"));
            let path = dir.join(&shell.path);
            fs::write(&path, &shell.contents).unwrap();
            sources.push(path);
            // The configuration hash lets the virtual board find a built-in
            // model; the port plan says which port is which.
            let consts = format!(
                "    pub const SESSIONS: usize = {};\n    pub const DATA_WIDTH: usize = {};\n    pub const CONFIG_HASH: &str = {:?};\n{}",
                design.sessions,
                design.data_width,
                design.config_hash,
                plan_items(&build.plan)
            );
            let summary =
                format!("design `{}`, {} session(s) of {} bits", design.name, design.sessions, design.data_width);
            // A top carries the register file and a controller per session.
            let cost = 4 * design.sessions * design.data_width + 4096;
            Prepared { model: model.into(), top: gen::sim_shell::module(&design.name), sources, summary, consts, cost }
        }
        Kind::Harness => {
            fs::create_dir_all(&dir).unwrap();
            let harness = gen::rtl::datapath_harness(&design, model).unwrap_or_else(|e| panic!("model {model}: {e}"));
            let sources = harness
                .files
                .iter()
                .map(|f| {
                    let p = dir.join(&f.path);
                    fs::write(&p, &f.contents).unwrap();
                    p
                })
                .collect();
            let consts = format!(
                "    pub const SESSIONS: usize = {};\n    pub const DATA_WIDTH: usize = {};\n{}",
                design.sessions,
                design.data_width,
                plan_items(&harness.plan)
            );
            let summary = format!("datapath harness, {} session(s) of {} bits", design.sessions, design.data_width);
            let cost = design.sessions * design.data_width;
            Prepared { model: model.into(), top: model.into(), sources, summary, consts, cost }
        }
    }
}

/// Writes block model `model`'s Verilog under `out/<model>`.
fn prepare_block(out: &Path, model: &str, width: usize, build: BlockBuilder) -> Prepared {
    let dir = out.join(model);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let (top, files) = build().unwrap_or_else(|e| panic!("model {model}: {e}"));
    let sources: Vec<PathBuf> = files
        .iter()
        .map(|(name, text)| {
            let p = dir.join(name);
            fs::write(&p, text).unwrap();
            p
        })
        .collect();
    let consts = format!("    pub const DATA_WIDTH: usize = {width};\n");
    let summary = format!("block `{top}`, {width} bits");
    Prepared { model: model.into(), top, sources, summary, consts, cost: 1024 }
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    // The waivers come with the verilate crate: a change rebuilds it and so reruns this.
    let waivers = verilate::write_waivers(&out).unwrap_or_else(|e| panic!("{e}"));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=TB_TRACE");
    let trace = env::var("TB_TRACE").map(|v| v == "1").unwrap_or(false);

    let specs = models();
    let mut prepared: Vec<Prepared> = specs.iter().map(|s| prepare(&out, s)).collect();
    prepared.extend(BLOCK_MODELS.iter().map(|(model, width, build)| prepare_block(&out, model, *width, *build)));
    let started = std::time::Instant::now();
    let mut models = StaticModels::new(&out, Some(&waivers), trace, "crate::verilated");
    let list: Vec<StaticModel> = prepared
        .iter()
        .map(|p| StaticModel {
            model: &p.model,
            top: &p.top,
            sources: &p.sources,
            summary: &p.summary,
            consts: &p.consts,
            cost: p.cost,
        })
        .collect();
    // Two at a time: one model's single-threaded verilation overlaps another's C++ compile.
    models.add_all(&list, 2);
    eprintln!("verilated {} models in {:.1} s", prepared.len(), started.elapsed().as_secs_f64());

    // The Verilator runtime and every shim in one static library; the model
    // archives follow it on the link line (`finish`).
    let started = std::time::Instant::now();
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
    eprintln!("compiled the runtime and shims in {:.1} s", started.elapsed().as_secs_f64());
    models.finish(&out.join("models.rs"));
    fs::write(out.join("matrix.rs"), matrix_table(&specs)).unwrap();
}

/// The width matrix as the tests see it (`testbench::models`): the models'
/// modules and the descriptor tables `DATAPATH_MODELS` and `TOP_MODELS`,
/// narrowest first.
fn matrix_table(specs: &[Spec]) -> String {
    let mut s = String::new();
    for spec in specs {
        let _ = writeln!(s, "pub use crate::generated::{};", spec.name);
    }
    for (kind, table, what) in
        [(Kind::Harness, "DATAPATH_MODELS", "Datapath harnesses"), (Kind::Top, "TOP_MODELS", "Product tops")]
    {
        let _ = writeln!(s, "/// {what}, one per width of `config::DATA_WIDTHS`, narrowest first.");
        let _ = writeln!(s, "pub const {table}: &[ModelInfo] = &[");
        for spec in specs.iter().filter(|m| m.kind == kind) {
            let _ = writeln!(
                s,
                "    ModelInfo {{ name: {:?}, sessions: {}, data_width: {}, top: {}::top }},",
                spec.name, spec.sessions, spec.data_width, spec.name
            );
        }
        let _ = writeln!(s, "];");
    }
    s
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
    gen::parse_config(&variant.to_toml()).unwrap_or_else(|e| panic!("model {model}: {e}"))
}
