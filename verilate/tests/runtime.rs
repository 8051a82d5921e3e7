//! Models verilated at run time into a cache, loaded and clocked through the
//! raw entry points.
//!
//! Each test has its own cache in a temporary folder, so every first load
//! really runs Verilator and g++ (a few seconds each for these modules).

use std::path::Path;
use std::time::Instant;

use verilate::{load_cached, Error, Model, ModelFns, Source};

/// An 8-bit counter with enable, a 100-bit input echoed to an output (wide
/// `VlWide` ports), in a sub-folder of the sources.
const COUNTER: &str = "\
module counter(
    input clk,
    input rst,
    input en,
    output reg [7:0] count,
    input [99:0] wide_in,
    output [99:0] wide_out
);
    always @(posedge clk)
        if (rst) count <= 8'd0;
        else if (en) count <= count + 8'd1;
    assign wide_out = wide_in;
endmodule
";

/// A multiply-accumulate (16- and 32-bit inputs, 48-bit output) with a
/// truncation that Verilator refuses unless the waivers file waives WIDTH.
const MAC: &str = "\
module mac(
    input clk,
    input rst,
    input [15:0] a,
    input [31:0] b,
    output reg [47:0] acc,
    output [7:0] low
);
    always @(posedge clk)
        if (rst) acc <= 48'd0;
        else acc <= acc + a * b;
    assign low = a;
endmodule
";

const WAIVERS: &str = "`verilator_config\nlint_off -rule WIDTH\n";

fn counter_sources() -> Vec<Source> {
    vec![Source { path: "rtl/counter.v".into(), contents: COUNTER.into() }]
}

/// Loads, keeping the log lines (also printed, for `--nocapture`).
fn load(
    model: &str,
    top: &str,
    sources: &[Source],
    waivers: Option<&Path>,
    key: &str,
    root: &Path,
    rebuild: bool,
) -> (Result<&'static ModelFns, Error>, Vec<String>) {
    let mut lines = Vec::new();
    let start = Instant::now();
    let result = load_cached(model, top, sources, waivers, key, root, rebuild, &mut |l| {
        eprintln!("[{model}] {l}");
        lines.push(l.to_string());
    });
    eprintln!("[{model}] load_cached: {:.1} s", start.elapsed().as_secs_f64());
    (result, lines)
}

/// A live model addressed by port name, through the crate's [`Model`].
struct Raw(Model);

impl Raw {
    fn new(fns: &'static ModelFns) -> Self {
        Raw(Model::new(fns))
    }

    fn set(&mut self, name: &str, value: u64) {
        let p = self.0.port(name);
        self.0.set(p, value);
    }

    fn get(&self, name: &str) -> u64 {
        self.0.get(self.0.port(name))
    }

    /// A wide (`VlWide`) port: more than 64 bits, as many words as given.
    fn set_wide(&mut self, name: &str, words: &[u32]) {
        let p = self.0.port(name);
        assert!(p.width > 64 && p.words == words.len(), "{name}: {} bits in {} words", p.width, p.words);
        self.0.set_wide(p, words);
    }

    fn get_wide(&self, name: &str) -> Vec<u32> {
        let p = self.0.port(name);
        assert!(p.width > 64, "{name}: {} bits", p.width);
        let mut words = vec![0; p.words];
        self.0.get_wide(p, &mut words);
        words
    }

    fn eval(&mut self) {
        self.0.eval();
    }

    fn cycle(&mut self) {
        self.set("clk", 1);
        self.eval();
        self.set("clk", 0);
        self.eval();
    }
}

/// Resets the counter, counts 5 enabled cycles of 7, wraps past 255, and
/// echoes a 100-bit value.
fn check_counter(fns: &'static ModelFns) {
    let mut m = Raw::new(fns);
    m.set("rst", 1);
    m.cycle();
    m.set("rst", 0);
    assert_eq!(m.get("count"), 0);
    for i in 0..7 {
        m.set("en", u64::from(i % 3 != 2));
        m.cycle();
    }
    assert_eq!(m.get("count"), 5);
    m.set("en", 1);
    for _ in 0..300 {
        m.cycle();
    }
    assert_eq!(m.get("count"), (5 + 300) % 256);
    let value = [0xdead_beef, 0x0123_4567, 0x89ab_cdef, 0xf];
    m.set_wide("wide_in", &value);
    m.eval();
    assert_eq!(m.get_wide("wide_out"), value);

    // Bytes, byte 0 = bits 7:0: 13 bytes fill the 100 bits (the top 4 bits
    // of byte 12 are cut), fewer leave the rest zero, and a read of fewer
    // bytes than the port holds gives the low ones.
    let (inp, out) = (m.0.port("wide_in"), m.0.port("wide_out"));
    let bytes: Vec<u8> = (1..=13).map(|b| b * 17).collect();
    m.0.set_bytes(inp, &bytes);
    m.eval();
    assert_eq!(m.get_wide("wide_out"), [0x4433_2211, 0x8877_6655, 0xccbb_aa99, 0xd]);
    let mut back = vec![0u8; 13];
    m.0.get_bytes(out, &mut back);
    assert_eq!(back[..12], bytes[..12]);
    assert_eq!(back[12], 0xdd & 0x0f);
    m.0.set_bytes(inp, &bytes[..5]);
    m.eval();
    assert_eq!(m.get_wide("wide_out"), [0x4433_2211, 0x55, 0, 0]);
    let mut low = [0u8; 6];
    m.0.get_bytes(out, &mut low);
    assert_eq!(low, [0x11, 0x22, 0x33, 0x44, 0x55, 0]);
    // A port of at most 64 bits reads as bytes too.
    let mut count = [0u8; 1];
    m.0.get_bytes(m.0.port("count"), &mut count);
    assert_eq!(u64::from(count[0]), m.get("count"));
}

fn stamp_library(dir: &Path) -> String {
    let stamp = std::fs::read_to_string(dir.join("stamp")).unwrap();
    stamp.lines().find_map(|l| l.strip_prefix("library=")).unwrap().to_string()
}

/// Only the finished folder is left in the cache root: no `.tmp-` or `.old-`
/// (the keys' empty lock files, `.lock-<key>`, stay and are not listed).
fn cache_entries(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.starts_with(".lock-"))
        .collect();
    names.sort();
    names
}

#[test]
fn counter_built_at_run_time_counts_then_hits_the_cache_and_rebuilds() {
    let root = tempfile::tempdir().unwrap();
    let sources = counter_sources();

    let (fns, log) = load("counter", "counter", &sources, None, "k1", root.path(), false);
    let fns = fns.unwrap_or_else(|e| panic!("{e}"));
    assert!(log.iter().any(|l| l.contains("(not cached)")), "{log:?}");
    assert!(log.iter().any(|l| l.starts_with("verilating counter into ") && l.ends_with(" s")), "{log:?}");
    assert!(log.iter().any(|l| l.starts_with("compiling shared model ") && l.ends_with(" s")), "{log:?}");
    let names: Vec<_> = fns.ports.iter().map(|p| (p.name, p.kind, p.width, p.words, p.output)).collect();
    assert_eq!(
        names,
        [
            ("clk", 8, 1, 0, false),
            ("rst", 8, 1, 0, false),
            ("en", 8, 1, 0, false),
            ("count", 8, 8, 0, true),
            ("wide_in", 0, 100, 4, false),
            ("wide_out", 0, 100, 4, true)
        ]
    );
    check_counter(fns);
    let dir = root.path().join("k1");
    assert!(dir.join("src/rtl/counter.v").is_file());
    assert!(dir.join("obj/Vcounter.h").is_file());
    let first = stamp_library(&dir);
    assert_eq!(cache_entries(root.path()), ["k1"]);
    // The library exports its entry points and nothing else (no Verilator runtime).
    let nm = std::process::Command::new("nm").args(["-D", "--defined-only"]).arg(dir.join(&first)).output().unwrap();
    let mut exported: Vec<String> = String::from_utf8_lossy(&nm.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2).map(str::to_string))
        .collect();
    exported.sort();
    let mut want: Vec<String> =
        ["delete", "eval", "fall", "new", "port", "port_count", "port_info", "trace_dump", "trace_open"]
            .iter()
            .map(|e| format!("counter_{e}"))
            .collect();
    want.sort();
    assert_eq!(exported, want);

    // Again: a cache hit, no Verilator, the same library.
    let (again, log) = load("counter", "counter", &sources, None, "k1", root.path(), false);
    let again = again.unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(log, [format!("cache hit {}", dir.display())]);
    assert_eq!(stamp_library(&dir), first);
    check_counter(again);

    // Rebuild on request: Verilator runs again, a new library replaces the
    // folder, and the model loaded before keeps working.
    let (rebuilt, log) = load("counter", "counter", &sources, None, "k1", root.path(), true);
    let rebuilt = rebuilt.unwrap_or_else(|e| panic!("{e}"));
    assert!(log.iter().any(|l| l.contains("(rebuild requested)")), "{log:?}");
    assert!(log.iter().any(|l| l.starts_with("verilating counter into ")), "{log:?}");
    let second = stamp_library(&dir);
    assert_ne!(second, first);
    assert!(!dir.join(&first).exists());
    assert_eq!(cache_entries(root.path()), ["k1"]);
    check_counter(rebuilt);
    check_counter(fns);

    // Other sources under the same key are not served from the cache; a
    // failed build leaves the cached folder as it was.
    let mut broken = counter_sources();
    broken[0].contents.push_str("module oops(;\n");
    let (result, log) = load("counter", "counter", &broken, None, "k1", root.path(), false);
    assert!(log.iter().any(|l| l.contains("(other sources)")), "{log:?}");
    assert!(result.is_err());
    assert_eq!(stamp_library(&dir), second);
    assert_eq!(cache_entries(root.path()), ["k1"]);
    let (fns, log) = load("counter", "counter", &sources, None, "k1", root.path(), false);
    assert_eq!(log, [format!("cache hit {}", dir.display())]);
    check_counter(fns.unwrap_or_else(|e| panic!("{e}")));
}

#[test]
fn syntax_error_is_an_error_with_verilators_complaint() {
    let root = tempfile::tempdir().unwrap();
    let sources = [Source { path: "broken.v".into(), contents: "module broken(input clk;\nendmodule\n".into() }];
    let (result, log) = load("broken", "broken", &sources, None, "bad", root.path(), false);
    let err = result.expect_err("a syntax error must not load");
    let message = err.to_string();
    assert!(matches!(err, Error::Verilator { .. }), "{message}");
    assert!(message.contains("verilator failed on top `broken`"), "{message}");
    assert!(message.contains("broken.v:1:24: syntax error"), "{message}");
    assert!(log.iter().any(|l| l.ends_with("(failed)")), "{log:?}");
    // Nothing half-built is left behind.
    assert!(cache_entries(root.path()).is_empty(), "{:?}", cache_entries(root.path()));
}

#[test]
fn two_models_in_one_process() {
    let root = tempfile::tempdir().unwrap();
    let waivers = root.path().join("waivers.vlt");
    std::fs::write(&waivers, WAIVERS).unwrap();
    let mac_sources = [Source { path: "mac.v".into(), contents: MAC.into() }];

    // Without its waiver, Verilator refuses the truncation.
    let (result, _) = load("mac", "mac", &mac_sources, None, "mac-nowaiver", root.path(), false);
    let message = result.expect_err("WIDTH is fatal").to_string();
    assert!(message.contains("%Warning-WIDTH"), "{message}");

    let (mac, _) = load("mac", "mac", &mac_sources, Some(&waivers), "mac", root.path(), false);
    let mac = mac.unwrap_or_else(|e| panic!("{e}"));
    let (counter, _) = load("counter", "counter", &counter_sources(), None, "counter", root.path(), false);
    let counter = counter.unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<_> = mac.ports.iter().map(|p| (p.name, p.kind, p.width)).collect();
    // Verilator declares the ports by storage size.
    assert_eq!(kinds, [("clk", 8, 1), ("rst", 8, 1), ("low", 8, 8), ("a", 16, 16), ("b", 32, 32), ("acc", 64, 48)]);

    // Both live at once, clocked in turn.
    let mut m = Raw::new(mac);
    let mut c = Raw::new(counter);
    m.set("rst", 1);
    m.cycle();
    m.set("rst", 0);
    c.set("rst", 1);
    c.cycle();
    c.set("rst", 0);
    c.set("en", 1);
    let mut expect: u64 = 0;
    for i in 0..20u64 {
        let (a, b) = (0xff00 + i, 0xffff_0000 + 3 * i);
        m.set("a", a);
        m.set("b", b);
        m.cycle();
        c.cycle();
        expect = (expect + a * b) & ((1 << 48) - 1);
        assert_eq!(m.get("acc"), expect, "cycle {i}");
        assert_eq!(m.get("low"), a & 0xff);
        assert_eq!(c.get("count"), i + 1);
    }
    drop(c);
    check_counter(counter);
}

/// Boards started at once with one configuration (here: threads; processes
/// take the same `flock`) build its model once: one builds, the others wait
/// for the key's lock and then hit the cache.
#[test]
fn concurrent_first_loads_build_the_model_once() {
    let root = tempfile::tempdir().unwrap();
    let sources = counter_sources();
    let logs: Vec<Vec<String>> = std::thread::scope(|s| {
        let loads: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let (fns, log) = load("counter", "counter", &sources, None, "shared", root.path(), false);
                    check_counter(fns.unwrap_or_else(|e| panic!("{e}")));
                    log
                })
            })
            .collect();
        loads.into_iter().map(|t| t.join().expect("a load panicked")).collect()
    });
    let count = |prefix: &str| logs.iter().filter(|log| log.iter().any(|l| l.starts_with(prefix))).count();
    assert_eq!((count("building"), count("cache hit")), (1, 2), "one build, two hits: {logs:?}");
}

/// A register on the rising edge of `clk`, one on the falling edge of
/// `nclk`, and an output that follows an input combinationally.
const EDGES: &str = "\
module edges(
    input clk,
    input nclk,
    input [7:0] d,
    output reg [7:0] q,
    output reg [7:0] nq,
    output [7:0] comb
);
    always @(posedge clk) q <= q + d;
    always @(negedge nclk) nq <= nq + d;
    assign comb = d ^ 8'h5a;
endmodule
";

/// `clk` may fall without an eval, `nclk` may not (its logic is on the
/// falling edge); `Model::fall` gives the same outputs as setting the clock
/// low and evaluating, whichever clock, and whether an input moved first.
#[test]
fn a_clock_with_only_rising_edge_logic_falls_without_an_eval() {
    let root = tempfile::tempdir().unwrap();
    let sources = vec![Source { path: "edges.v".into(), contents: EDGES.into() }];
    let (fns, _) = load("edges", "edges", &sources, None, "edges", root.path(), false);
    let fns = fns.unwrap_or_else(|e| panic!("{e}"));
    let obj = root.path().join("edges").join("obj");
    let header = std::fs::read_to_string(obj.join("Vedges.h")).unwrap();
    let ports = verilate::parse_ports(&header).unwrap();
    assert_eq!(verilate::VerilatedCode::read(&obj, "Vedges").unwrap().rising_only_clocks(&ports), ["clk"]);

    // The same random stimulus on two models: one lowers its clocks with
    // `fall`, the other with set + eval; every output equal after every step.
    let (mut fast, mut slow) = (Model::new(fns), Model::new(fns));
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for step in 0..2_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let clock = if x & 1 == 0 { "clk" } else { "nclk" };
        let move_input = x & 2 == 0;
        for m in [&mut fast, &mut slow] {
            let (c, d) = (m.port(clock), m.port("d"));
            m.set(d, (x >> 8) & 0xff);
            m.set(c, 1);
            m.eval();
            if move_input {
                // An input moved after the last eval: `fall` must evaluate.
                m.set(d, (x >> 16) & 0xff);
            }
        }
        let c = fast.port(clock);
        fast.fall(c);
        let c = slow.port(clock);
        slow.set(c, 0);
        slow.eval();
        for out in ["q", "nq", "comb"] {
            assert_eq!(
                fast.get(fast.port(out)),
                slow.get(slow.port(out)),
                "step {step}: `{out}` after {clock} fell (input moved: {move_input})"
            );
        }
    }
    assert_ne!(fast.get(fast.port("nq")), 0, "the falling-edge register never moved");
}

/// Registers, logic from registers only, and logic from inputs, narrow
/// and wide: the ports `VerilatedCode::mark_edge_only` tells apart.
const LAZY: &str = "\
module lazy(
    input clk,
    input en,
    input [7:0] d,
    input [99:0] w,
    output reg [7:0] q,
    output [7:0] q_plus_one,
    output [7:0] comb,
    output reg [99:0] wq,
    output [99:0] wcomb
);
    always @(posedge clk) if (en) q <= q + d;
    always @(posedge clk) wq <= w;
    assign q_plus_one = q + 8'd1;
    assign comb = d ^ q;
    assign wcomb = w ^ wq;
endmodule
";

/// The design above in plain Rust: inputs as last set, registers as the
/// last rising edge left them.
#[derive(Default)]
struct LazyRef {
    en: bool,
    d: u8,
    w: u128,
    q: u8,
    wq: u128,
}

impl LazyRef {
    fn rise(&mut self) {
        if self.en {
            self.q = self.q.wrapping_add(self.d);
        }
        self.wq = self.w;
    }
}

/// The first file named `name` under `dir`, depth first.
fn find_file(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_file(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

fn wide(v: u128) -> Vec<u32> {
    (0..4).map(|i| (v >> (32 * i)) as u32 & if i == 3 { 0xf } else { u32::MAX }).collect()
}

/// Data inputs and outputs set only at edges are marked `edge_only`, the
/// clock and outputs that follow inputs are not; and however sets, evals,
/// reads and cycles interleave, every read equals the plain-Rust model of
/// the design: a left-over `eval()` runs before a read that needs it and
/// at the next edge.
#[test]
fn evaluations_left_for_the_next_edge_never_show_in_a_read() {
    let root = tempfile::tempdir().unwrap();
    let sources = vec![Source { path: "lazy.v".into(), contents: LAZY.into() }];
    let (fns, _) = load("lazy", "lazy", &sources, None, "lazy", root.path(), false);
    let fns = fns.unwrap_or_else(|e| panic!("{e}"));
    let marked: Vec<(&str, bool)> = fns.ports.iter().map(|p| (p.name, p.edge_only)).collect();
    for (name, edge_only) in [
        ("clk", false),
        ("en", true),
        ("d", true),
        ("w", true),
        ("q", true),
        ("q_plus_one", true),
        ("comb", false),
        ("wq", true),
        ("wcomb", false),
    ] {
        assert!(marked.contains(&(name, edge_only)), "port {name}: edge_only should be {edge_only}; table {marked:?}");
    }

    // The shim's eval() skips the input-combinational region while the
    // inputs that region reads are as at the last full one: `d` and `w`
    // (`comb`, `wcomb`), not `en` (only the clocked region reads it).
    let shim = find_file(root.path(), "lazy_shim.cpp").expect("the lazy model's shim in the cache");
    let shim = std::fs::read_to_string(shim).unwrap();
    assert!(shim.contains("static void lazy_clocked_eval("), "no clocked eval in the shim:\n{shim}");
    let eval = shim.split("void lazy_eval(").nth(1).and_then(|f| f.split("\n}\n").next()).expect("lazy_eval");
    assert!(
        eval.contains("t->d)") && eval.contains("t->w.data()") && !eval.contains("t->en"),
        "compared inputs:\n{eval}"
    );

    let mut m = Model::new(fns);
    m.set_clock("clk");
    let p = |m: &Model, n: &str| m.port(n);
    let (en, d, w) = (p(&m, "en"), p(&m, "d"), p(&m, "w"));
    let (q, q1, comb, wq, wcomb) = (p(&m, "q"), p(&m, "q_plus_one"), p(&m, "comb"), p(&m, "wq"), p(&m, "wcomb"));
    let mut r = LazyRef::default();
    m.set(p(&m, "clk"), 0);
    m.eval();
    let seed: u64 = std::env::var("TB_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x2545_f491_4f6c_dd1d);
    eprintln!("lazy: seed {seed} (TB_SEED)");
    let mut x = seed | 1;
    let mut words = vec![0u32; 4];
    for step in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        match x % 8 {
            0 => {
                r.en = x & 0x100 != 0;
                m.set(en, u64::from(r.en));
            }
            1 => {
                r.d = (x >> 16) as u8;
                m.set(d, u64::from(r.d));
            }
            2 => {
                r.w = (u128::from(x) << 40 ^ u128::from(x.rotate_left(17))) & ((1 << 100) - 1);
                m.set_wide(w, &wide(r.w));
            }
            3 => m.eval(),
            4 | 5 => {
                m.cycle();
                r.rise();
            }
            _ => {}
        }
        let what = format!("step {step} (seed {seed})");
        assert_eq!(m.get(q), u64::from(r.q), "{what}: q");
        assert_eq!(m.get(q1), u64::from(r.q.wrapping_add(1)), "{what}: q_plus_one");
        assert_eq!(m.get(comb), u64::from(r.d ^ r.q), "{what}: comb");
        m.get_wide(wq, &mut words);
        assert_eq!(words, wide(r.wq), "{what}: wq");
        m.get_wide(wcomb, &mut words);
        assert_eq!(words, wide(r.w ^ r.wq), "{what}: wcomb");
    }
    assert_ne!(m.get(q), 0, "q never moved");
}
