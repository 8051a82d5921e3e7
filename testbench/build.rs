//! Builds the verilated models the tests drive.
//!
//! For each model below: generate the Verilog with the `gen` library (the
//! same code as `cargo run -p gen`), verilate it into a static library, read
//! its port list from the generated `V<model>.h`, and render a C++ shim plus
//! the Rust port table (`models.rs` in OUT_DIR). Each model gets its own
//! `VerilatedContext`, so tests run in parallel. `TB_TRACE=1` at build time
//! adds FST tracing (see the README).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::{env, fs};

/// Config edits for two sessions of 64 bits, the narrowest bus.
const NARROW: &[(&str, &str)] = &[
    ("data_width = 1024", "data_width = 64"),
    ("sessions = 4", "sessions = 2"),
    ("[60000, 60001, 60002, 60003]", "[60000, 60001]"),
    ("[61000, 61001, 61002, 61003]", "[61000, 61001]"),
];

/// Product tops, exactly as `gen` writes them: (model name, config edits
/// applied to the default configuration).
const MODELS: &[(&str, &[(&str, &str)])] = &[
    // The default design: register file and 4 sessions of 1024 bits.
    ("top1024", &[]),
    // Two sessions of 64 bits: the controller and the top at the narrowest bus.
    ("top64", NARROW),
];

/// Datapath harnesses (`toe_gen::rtl::datapath_harness`): the sessions'
/// generators, verifiers and rate limiters with plain ports, no controller.
const HARNESS_MODELS: &[(&str, &[(&str, &str)])] = &[("dp1024", &[]), ("dp64", NARROW)];

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
    let text = config::DEFAULT_TOML
        .replacen("sessions = 4", "sessions = 2", 1)
        .replacen("[60000, 60001, 60002, 60003]", "[60000, 60001]", 1)
        .replacen("[61000, 61001, 61002, 61003]", "[61000, 61001]", 1);
    regfile_model("regfile_alt", &text, |map| {
        if let Some(r) = map.block_mut("toe").and_then(|b| b.register_mut("target_ip")) {
            r.offset = 0x80;
        }
    })
}

struct PortDecl {
    name: String,
    /// 8, 16, 32, 64 for scalars; 0 for VlWide.
    kind: u32,
    width: usize,
    words: usize,
    output: bool,
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("..");
    let waivers = root.join("scripts/verilator_waivers.vlt");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", waivers.display());
    println!("cargo:rerun-if-env-changed=TB_TRACE");
    let trace = env::var("TB_TRACE").map(|v| v == "1").unwrap_or(false);
    let vroot = verilator_root();
    let include = vroot.join("include");

    let mut rust = String::new();
    let mut shim_files = Vec::new();
    let mut archives = Vec::new();
    let mut add = |model: &str, top: &str, sources: &[PathBuf], summary: String, consts: String| {
        let dir = out.join(model);
        let prefix = format!("V{model}");
        let obj = dir.join("obj");
        let mut cmd = Command::new("verilator");
        cmd.args(["--cc", "--build", "-j", "2", "-O3", "--x-assign", "fast", "--x-initial", "fast"])
            .args(["--prefix", &prefix, "--top-module", top, "-Mdir"])
            .arg(&obj)
            .args(["-CFLAGS", "-fPIC -O2"])
            .arg(&waivers)
            .args(sources);
        if trace {
            cmd.arg("--trace-fst");
        }
        let status = cmd.status().expect("cannot run verilator: install it (make deps) or put it on PATH");
        assert!(status.success(), "verilator failed on model {model}");
        let archive = find_archive(&obj, &prefix);
        let lib = format!("{prefix}_model");
        fs::copy(&archive, obj.join(format!("lib{lib}.a"))).unwrap();
        archives.push((obj.clone(), lib));
        let ports = parse_ports(&fs::read_to_string(obj.join(format!("{prefix}.h"))).unwrap());
        let shim = obj.join(format!("{model}_shim.cpp"));
        fs::write(&shim, render_shim(model, &prefix, &ports, trace)).unwrap();
        shim_files.push((shim, obj));
        render_rust(&mut rust, model, &summary, &consts, &ports);
    };

    // Product tops: the Verilog exactly as `gen` writes it.
    for (model, edits) in MODELS {
        let design = edited_design(model, edits);
        let dir = out.join(model);
        let _ = fs::remove_dir_all(&dir);
        let files = toe_gen::generate(&design).unwrap_or_else(|e| panic!("model {model}: {e}"));
        for f in &files {
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
        let consts = format!(
            "    pub const SESSIONS: usize = {};\n    pub const DATA_WIDTH: usize = {};\n",
            design.sessions, design.data_width
        );
        add(model, &design.name, &sources, summary, consts);
    }

    // Datapath harnesses.
    for (model, edits) in HARNESS_MODELS {
        let design = edited_design(model, edits);
        let dir = out.join(model);
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let files = toe_gen::rtl::datapath_harness(&design, model).unwrap_or_else(|e| panic!("model {model}: {e}"));
        let sources: Vec<PathBuf> = files
            .iter()
            .map(|f| {
                let p = dir.join(&f.path);
                fs::write(&p, &f.contents).unwrap();
                p
            })
            .collect();
        let summary = format!("datapath harness, {} session(s) of {} bits", design.sessions, design.data_width);
        let consts = format!(
            "    pub const SESSIONS: usize = {};\n    pub const DATA_WIDTH: usize = {};\n",
            design.sessions, design.data_width
        );
        add(model, model, &sources, summary, consts);
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
        add(model, &top, &[source], format!("block `{top}`, {width} bits"), consts);
    }

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .opt_level(2)
        .flag_if_supported("-faligned-new")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-sign-compare")
        .include(&include)
        .include(include.join("vltstd"))
        .file(include.join("verilated.cpp"))
        .file(include.join("verilated_threads.cpp"));
    if trace {
        build.file(include.join("verilated_fst_c.cpp")).define("VM_TRACE", "1").define("VM_TRACE_FST", "1");
    }
    for (shim, obj) in &shim_files {
        build.file(shim).include(obj);
    }
    build.compile("tb_shims");
    for (obj, lib) in &archives {
        println!("cargo:rustc-link-search=native={}", obj.display());
        println!("cargo:rustc-link-lib=static={lib}");
    }
    println!("cargo:rustc-link-lib=dylib=pthread");
    if trace {
        println!("cargo:rustc-link-lib=dylib=z");
    }
    let _ = writeln!(rust, "pub const TRACE_BUILT: bool = {trace};");
    fs::write(out.join("models.rs"), rust).unwrap();
}

/// The default configuration with `edits` applied, validated.
fn edited_design(model: &str, edits: &[(&str, &str)]) -> config::Design {
    let mut text = config::DEFAULT_TOML.to_string();
    for (from, to) in edits {
        assert!(text.contains(from), "model {model}: default config lacks {from:?}");
        text = text.replacen(from, to, 1);
    }
    toe_gen::parse_config(&text).unwrap_or_else(|e| panic!("model {model}: {e}"))
}

fn verilator_root() -> PathBuf {
    let out = Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output();
    match out {
        Ok(o) if o.status.success() => PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()),
        _ => {
            panic!("cannot run `verilator --getenv VERILATOR_ROOT`: install Verilator (make deps)")
        }
    }
}

/// Verilator 5.006 names the model archive `V<prefix>__ALL.a`, later versions `libV<prefix>.a`.
fn find_archive(obj: &Path, prefix: &str) -> PathBuf {
    for name in [format!("{prefix}__ALL.a"), format!("lib{prefix}.a")] {
        let p = obj.join(name);
        if p.exists() {
            return p;
        }
    }
    panic!("no model archive for {prefix} in {}", obj.display());
}

/// Reads `VL_IN8(&name,msb,lsb);`, `VL_OUTW(&name,msb,lsb,words);` and friends.
fn parse_ports(header: &str) -> Vec<PortDecl> {
    let mut ports = Vec::new();
    for line in header.lines().map(str::trim) {
        let Some(rest) = line.strip_prefix("VL_") else {
            continue;
        };
        let Some((macro_name, args)) = rest.split_once('(') else {
            continue;
        };
        let (output, kind) = match macro_name {
            "IN8" => (false, 8),
            "IN16" => (false, 16),
            "IN" => (false, 32),
            "IN64" => (false, 64),
            "INW" => (false, 0),
            "OUT8" => (true, 8),
            "OUT16" => (true, 16),
            "OUT" => (true, 32),
            "OUT64" => (true, 64),
            "OUTW" => (true, 0),
            _ => continue,
        };
        let args: Vec<&str> = args.trim_end_matches(");").split(',').collect();
        let name = args[0].trim_start_matches('&').to_string();
        let msb: usize = args[1].parse().unwrap();
        let words = if kind == 0 { args[3].parse().unwrap() } else { 0 };
        ports.push(PortDecl { name, kind, width: msb + 1, words, output });
    }
    assert!(!ports.is_empty(), "no ports found in the verilated header");
    ports
}

fn render_shim(model: &str, prefix: &str, ports: &[PortDecl], trace: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// Generated by testbench/build.rs: C entry points of model {model}.");
    let _ = writeln!(s, "#include <cstdint>\n#include \"{prefix}.h\"\n#include \"verilated.h\"");
    if trace {
        let _ = writeln!(s, "#include \"verilated_fst_c.h\"");
    }
    let _ = writeln!(s, "namespace {{ struct Model {{ VerilatedContext* ctx; {prefix}* top; void* trace; }}; }}");
    let _ = writeln!(s, "extern \"C\" {{");
    let _ = writeln!(
        s,
        "void* {model}_new() {{ auto* m = new Model; m->ctx = new VerilatedContext; m->ctx->traceEverOn({t}); m->top = new {prefix}{{m->ctx, \"top\"}}; m->trace = nullptr; return m; }}",
        t = trace
    );
    let _ = writeln!(s, "void {model}_eval(void* p) {{ static_cast<Model*>(p)->top->eval(); }}");
    if trace {
        let _ = writeln!(s, "void {model}_trace_open(void* p, const char* path) {{ auto* m = static_cast<Model*>(p); auto* t = new VerilatedFstC; m->top->trace(t, 99); t->open(path); m->trace = t; }}");
        let _ = writeln!(s, "void {model}_trace_dump(void* p, uint64_t time) {{ auto* m = static_cast<Model*>(p); if (m->trace) static_cast<VerilatedFstC*>(m->trace)->dump(static_cast<uint64_t>(time)); }}");
        let _ = writeln!(s, "static void {model}_trace_close(Model* m) {{ if (m->trace) {{ auto* t = static_cast<VerilatedFstC*>(m->trace); t->close(); delete t; m->trace = nullptr; }} }}");
    } else {
        let _ = writeln!(s, "void {model}_trace_open(void*, const char*) {{}}");
        let _ = writeln!(s, "void {model}_trace_dump(void*, uint64_t) {{}}");
        let _ = writeln!(s, "static void {model}_trace_close(Model*) {{}}");
    }
    let _ = writeln!(s, "void {model}_delete(void* p) {{ auto* m = static_cast<Model*>(p); {model}_trace_close(m); m->top->final(); delete m->top; delete m->ctx; delete m; }}");
    let _ = writeln!(s, "void* {model}_port(void* p, unsigned index) {{\n    auto* t = static_cast<Model*>(p)->top;\n    switch (index) {{");
    for (i, port) in ports.iter().enumerate() {
        let expr = if port.kind == 0 { format!("t->{}.data()", port.name) } else { format!("&t->{}", port.name) };
        let _ = writeln!(s, "    case {i}: return static_cast<void*>({expr});");
    }
    let _ = writeln!(s, "    default: return nullptr;\n    }}\n}}\n}}");
    s
}

fn render_rust(s: &mut String, model: &str, summary: &str, consts: &str, ports: &[PortDecl]) {
    let _ = writeln!(s, "/// Model `{model}`: {summary}.");
    let _ = writeln!(s, "pub mod {model} {{");
    let _ = writeln!(s, "    extern \"C\" {{");
    for f in ["new() -> *mut core::ffi::c_void", "eval(p: *mut core::ffi::c_void)", "delete(p: *mut core::ffi::c_void)"]
    {
        let _ = writeln!(s, "        pub fn {model}_{f};");
    }
    let _ =
        writeln!(s, "        pub fn {model}_port(p: *mut core::ffi::c_void, index: u32) -> *mut core::ffi::c_void;");
    let _ =
        writeln!(s, "        pub fn {model}_trace_open(p: *mut core::ffi::c_void, path: *const core::ffi::c_char);");
    let _ = writeln!(s, "        pub fn {model}_trace_dump(p: *mut core::ffi::c_void, time: u64);");
    let _ = writeln!(s, "    }}");
    s.push_str(consts);
    let _ = writeln!(s, "    pub const PORTS: &[crate::verilated::PortInfo] = &[");
    for p in ports {
        let _ = writeln!(
            s,
            "        crate::verilated::PortInfo {{ name: {:?}, kind: {}, width: {}, words: {}, output: {} }},",
            p.name, p.kind, p.width, p.words, p.output
        );
    }
    let _ = writeln!(s, "    ];");
    let _ = writeln!(s, "    pub const FNS: crate::verilated::ModelFns = crate::verilated::ModelFns {{ name: {model:?}, new: {model}_new, eval: {model}_eval, delete: {model}_delete, port: {model}_port, trace_open: {model}_trace_open, trace_dump: {model}_trace_dump, ports: PORTS }};");
    let _ = writeln!(s, "}}");
}
