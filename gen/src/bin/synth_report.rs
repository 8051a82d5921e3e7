//! Resource and logic-depth figures from a yosys `write_json` netlist
//! (`synth_xilinx -family xcup -flatten`), for `make synth-estimate`.
//!
//! `synth_report blocks FILE.v...` lists the modules worth a row: every
//! module except rust-hdl's one-register leaves. `synth_report row MODULE
//! NETLIST.json` prints one table row. `synth_report header` prints the header.
//!
//! The examples table has one row per example configuration, its whole top:
//! `synth_report example NAME CONFIG.toml NETLIST.json` reads the
//! configuration as `gen --config` does (the top module is `design.name`) and
//! prints the row; `synth_report example-header` prints its header.
//!
//! With `SYNTH_MAX_LEVELS` set (1..=64; `make synth-estimate` sets 5, the
//! issue-14 target for the whole top), a `row` or `example` deeper than that
//! is printed, then named on stderr, and the exit status is 3 (other errors:
//! 2), so the script can finish the table before it fails.
//!
//! Depth is counted on the mapped netlist: LUT and MUXF cells are one level
//! each, carry cells none (they are reported as the longest carry chain
//! instead), and flip-flops, block RAMs and DSPs end a path. With
//! `SYNTH_REPORT_PATH` set, a row also prints its deepest path (each cell
//! with the net it drives) and the depth as abc maps it, carry chains
//! cutting paths, with the deepest endpoints by that, and, with
//! `SYNTH_MAX_LEVELS` set, every register fed deeper than the budget with
//! the start of its deepest path. yosys's own
//! `ltp` miscounts through carry cells, hence this walk.

use std::collections::HashMap;
use std::process::ExitCode;

use serde_json::Value;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Lut,
    Muxf,
    Carry,
    Seq,
    Other,
}

fn kind(cell_type: &str) -> Kind {
    if cell_type.starts_with("LUT") {
        Kind::Lut
    } else if cell_type.starts_with("MUXF") {
        Kind::Muxf
    } else if cell_type.starts_with("CARRY") {
        Kind::Carry
    } else if cell_type.starts_with("FD")
        || cell_type.starts_with("RAMB")
        || cell_type.starts_with("DSP")
        || cell_type.starts_with("SRL")
    {
        Kind::Seq
    } else {
        Kind::Other
    }
}

struct Cell {
    name: String,
    /// The cell type (`LUT6`, `CARRY8`, `FDRE`...).
    ty: String,
    kind: Kind,
    inputs: Vec<u64>,
    carry_in: Vec<u64>,
    /// The first bit it drives.
    output: Option<u64>,
}

struct Netlist {
    cells: Vec<Cell>,
    /// The combinational (and carry) cell driving each bit.
    driver: HashMap<u64, usize>,
    /// The register, block RAM or DSP driving each bit.
    source: HashMap<u64, usize>,
    /// A name for each bit: the netlist's own name for it, one written in
    /// the RTL (no leading `$`) where there is one.
    net_names: HashMap<u64, String>,
    counts: HashMap<String, usize>,
}

fn bits(v: &Value) -> Vec<u64> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default()
}

fn load(path: &str, module: &str) -> Result<Netlist, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    parse(&text, path, module)
}

/// The netlist of `module` in the yosys JSON `text` read from `path`.
fn parse(text: &str, path: &str, module: &str) -> Result<Netlist, String> {
    let json: Value = serde_json::from_str(text).map_err(|e| format!("{path}: not a yosys JSON netlist: {e}"))?;
    let m = json.get("modules").and_then(|m| m.get(module)).ok_or_else(|| format!("{path}: no module {module}"))?;
    let mut net = Netlist {
        cells: Vec::new(),
        driver: HashMap::new(),
        source: HashMap::new(),
        net_names: HashMap::new(),
        counts: HashMap::new(),
    };
    if let Some(names) = m.get("netnames").and_then(Value::as_object) {
        for (name, n) in names {
            let b = n.get("bits").map(bits).unwrap_or_default();
            let wide = b.len() > 1;
            for (i, bit) in b.into_iter().enumerate() {
                let written = |n: &str| !n.starts_with('$');
                let keep = net.net_names.get(&bit).is_some_and(|old| written(old) || !written(name));
                if !keep {
                    net.net_names.insert(bit, if wide { format!("{name}[{i}]") } else { name.clone() });
                }
            }
        }
    }
    if let Some(cells) = m.get("cells").and_then(Value::as_object) {
        for (name, cell) in cells {
            let ty = cell.get("type").and_then(Value::as_str).unwrap_or("?").to_string();
            let k = kind(&ty);
            *net.counts.entry(ty.clone()).or_default() += 1;
            let dirs = cell.get("port_directions").and_then(Value::as_object);
            let conns = cell.get("connections").and_then(Value::as_object);
            let (Some(dirs), Some(conns)) = (dirs, conns) else { continue };
            let index = net.cells.len();
            let mut c = Cell {
                name: name.clone(),
                ty: ty.clone(),
                kind: k,
                inputs: Vec::new(),
                carry_in: Vec::new(),
                output: None,
            };
            for (port, dir) in dirs {
                let b = bits(&conns[port]);
                if dir.as_str() == Some("output") {
                    c.output = c.output.or(b.first().copied());
                    let map = if k == Kind::Seq { &mut net.source } else { &mut net.driver };
                    for bit in b {
                        map.insert(bit, index);
                    }
                } else if k == Kind::Carry && (port == "CI" || port == "CI_TOP") {
                    c.carry_in.extend(b);
                } else {
                    c.inputs.extend(b);
                }
            }
            net.cells.push(c);
        }
    }
    Ok(net)
}

/// The bus a net's bit belongs to: `count_reg[3]` is `count_reg`.
fn bus_of(net: &str) -> &str {
    net.split_once('[').map_or(net, |(bus, _)| bus)
}

impl Netlist {
    /// LUT + MUXF levels of the logic driving `cell`'s output, carry cells transparent.
    fn level(&self, cell: usize, memo: &mut Vec<Option<u32>>) -> u32 {
        self.depth(cell, false, memo)
    }

    /// `cell`'s own level (1 for a LUT or MUXF) on top of the logic feeding it.
    fn depth(&self, cell: usize, cut: bool, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(l) = memo[cell] {
            return l;
        }
        let own = matches!(self.cells[cell].kind, Kind::Lut | Kind::Muxf) as u32;
        let d = own + self.feeding(cell, cut, memo);
        memo[cell] = Some(d);
        d
    }

    /// The deepest logic driving `cell`'s inputs. With `cut`, as abc maps
    /// it: a carry cell ends a path as a register does (abc maps the logic
    /// between them, and after mapping for depth lets every path grow to
    /// its deepest one; a path through a carry chain adds the levels on
    /// both sides).
    fn feeding(&self, cell: usize, cut: bool, memo: &mut Vec<Option<u32>>) -> u32 {
        let c = &self.cells[cell];
        let carry_in: &[u64] = if cut { &[] } else { &c.carry_in };
        c.inputs
            .iter()
            .chain(carry_in)
            .filter_map(|b| self.driver.get(b).copied())
            .filter(|&d| !cut || self.cells[d].kind != Kind::Carry)
            .map(|d| self.depth(d, cut, memo))
            .max()
            .unwrap_or(0)
    }

    /// Every endpoint with its depth as abc maps it ([`Self::feeding`] with `cut`),
    /// deepest first, once per net (its bits' deepest): registers, block
    /// RAMs and DSPs by the net they drive, carry cells as `carry NET`.
    fn cut_depths(&self) -> Vec<(u32, String)> {
        let mut memo = vec![None; self.cells.len()];
        let mut deepest: HashMap<String, u32> = HashMap::new();
        for (i, c) in self.cells.iter().enumerate() {
            if !matches!(c.kind, Kind::Seq | Kind::Carry) {
                continue;
            }
            let depth = self.feeding(i, true, &mut memo);
            let net = self.net_of(i);
            let net = bus_of(net);
            let name = if c.kind == Kind::Carry { format!("carry {net}") } else { net.to_string() };
            let e = deepest.entry(name).or_insert(0);
            *e = (*e).max(depth);
        }
        let mut out: Vec<(u32, String)> = deepest.into_iter().map(|(n, d)| (d, n)).collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        out
    }

    /// The registers, block RAMs and DSPs fed by logic deeper than `over`
    /// levels (carry cells transparent), by bus: the deepest depth, the
    /// endpoint's net and the start of its deepest path, deepest first.
    fn deep_endpoints(&self, over: u32) -> Vec<(u32, String, String)> {
        let mut memo = vec![None; self.cells.len()];
        let mut deepest: HashMap<(String, String), u32> = HashMap::new();
        for (i, c) in self.cells.iter().enumerate() {
            if c.kind != Kind::Seq {
                continue;
            }
            let depth = self.feeding(i, false, &mut memo);
            if depth <= over {
                continue;
            }
            let start = self.path(i, &mut memo).pop().unwrap_or_default();
            let start = start.split_whitespace().last().unwrap_or_default();
            let e = deepest.entry((bus_of(self.net_of(i)).to_string(), bus_of(start).to_string())).or_insert(0);
            *e = (*e).max(depth);
        }
        let mut out: Vec<(u32, String, String)> = deepest.into_iter().map(|((n, s), d)| (d, n, s)).collect();
        out.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)).then_with(|| a.2.cmp(&b.2)));
        out
    }

    /// The name of the net `cell` drives.
    fn net_of(&self, cell: usize) -> &str {
        let c = &self.cells[cell];
        c.output.and_then(|b| self.net_names.get(&b)).map_or(c.name.as_str(), String::as_str)
    }

    /// Carry cells in the chain ending at `cell`.
    fn chain(&self, cell: usize, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(l) = memo[cell] {
            return l;
        }
        let mut longest = 0;
        for bit in &self.cells[cell].carry_in {
            if let Some(&d) = self.driver.get(bit) {
                if self.cells[d].kind == Kind::Carry {
                    longest = longest.max(self.chain(d, memo));
                }
            }
        }
        memo[cell] = Some(longest + 1);
        longest + 1
    }

    /// The deepest path ending at `cell`, from its end back: each cell's
    /// type and the net it drives, then what the path starts from (a
    /// register, block RAM or DSP and its output net, or an input port).
    fn path(&self, cell: usize, memo: &mut Vec<Option<u32>>) -> Vec<String> {
        let line = |c: usize| format!("{:<8} {}", self.cells[c].ty, self.net_of(c));
        let mut out = vec![line(cell)];
        let mut at = cell;
        loop {
            let c = &self.cells[at];
            let inputs = || c.inputs.iter().chain(&c.carry_in);
            let next = inputs().filter_map(|b| self.driver.get(b).copied()).max_by_key(|&d| self.level(d, memo));
            match next {
                Some(d) if self.level(d, memo) > 0 || self.cells[d].kind == Kind::Carry => {
                    out.push(line(d));
                    at = d;
                }
                _ => {
                    // The start: an input of the last cell not driven by logic.
                    let start = inputs().find(|b| !self.driver.contains_key(b));
                    if let Some(&b) = start {
                        let net = self.net_names.get(&b).map_or("?", String::as_str);
                        match self.source.get(&b) {
                            Some(&r) => out.push(format!("{:<8} {net}", self.cells[r].ty)),
                            None => out.push(format!("{:<8} {net}", "input")),
                        }
                    }
                    return out;
                }
            }
        }
    }

    fn count(&self, prefix: &str) -> usize {
        self.counts.iter().filter(|(t, _)| t.starts_with(prefix)).map(|(_, n)| n).sum()
    }
}

/// The figures of one mapped module.
#[derive(Debug, PartialEq)]
struct Figures {
    lut: usize,
    ff: usize,
    carry: usize,
    muxf: usize,
    /// RAMB36 equivalents (a RAMB18 counts half).
    bram: f64,
    dsp: usize,
    /// LUT + MUXF levels of the deepest register-to-register path.
    depth: u32,
    /// Carry cells of the longest carry chain.
    chain: u32,
}

/// The figures of `net`, the mapped `module`; with `SYNTH_REPORT_PATH` set,
/// its deepest path, the depth with carry chains cut and the deepest
/// endpoints by it, on stderr.
fn figures(net: &Netlist, module: &str) -> Figures {
    let mut memo = vec![None; net.cells.len()];
    let deepest = (0..net.cells.len()).max_by_key(|&c| net.level(c, &mut memo));
    let depth = deepest.map(|c| net.level(c, &mut memo)).unwrap_or(0);
    if std::env::var("SYNTH_REPORT_PATH").is_ok() {
        if let Some(c) = deepest {
            gen::print_stderr(&format!("deepest path in {module} ({depth} levels), from its end back:"));
            for name in net.path(c, &mut memo) {
                gen::print_stderr(&format!("    {name}"));
            }
        }
        // As abc maps it, and its deepest endpoints: a path through a carry
        // chain is as deep as its two sides, and after mapping for depth abc
        // lets every side grow to its deepest one.
        let cut = net.cut_depths();
        let deepest = cut.first().map_or(0, |c| c.0);
        gen::print_stderr(&format!("with carry chains cut, as abc maps: {deepest} levels; the deepest endpoints:"));
        for (d, name) in cut.iter().take(12) {
            gen::print_stderr(&format!("    {d}  {name}"));
        }
        if let Ok(Some(budget)) = depth_budget(std::env::var("SYNTH_MAX_LEVELS").ok().as_deref()) {
            let deep = net.deep_endpoints(budget);
            gen::print_stderr(&format!("endpoints deeper than {budget} levels, by bus: {}", deep.len()));
            for (d, end, start) in deep.iter().take(24) {
                gen::print_stderr(&format!("    {d}  {end}  <-  {start}"));
            }
        }
    }
    let mut memo = vec![None; net.cells.len()];
    let chain = (0..net.cells.len())
        .filter(|&c| net.cells[c].kind == Kind::Carry)
        .map(|c| net.chain(c, &mut memo))
        .max()
        .unwrap_or(0);
    Figures {
        lut: net.count("LUT"),
        ff: net.count("FD"),
        carry: net.count("CARRY"),
        muxf: net.count("MUXF"),
        bram: net.count("RAMB36") as f64 + net.count("RAMB18") as f64 / 2.0,
        dsp: net.count("DSP"),
        depth,
        chain,
    }
}

/// A table row and the depth it reports.
#[derive(Debug)]
struct Row {
    text: String,
    depth: u32,
}

fn row(module: &str, path: &str) -> Result<Row, String> {
    let f = figures(&load(path, module)?, module);
    let text = format!(
        "| {module:<44} | {:>7} | {:>7} | {:>6} | {:>5} | {:>5.1} | {:>4} | {:>6} | {:>5} |",
        f.lut, f.ff, f.carry, f.muxf, f.bram, f.dsp, f.depth, f.chain
    );
    Ok(Row { text, depth: f.depth })
}

/// The depth budget, `SYNTH_MAX_LEVELS`: none when unset.
fn depth_budget(value: Option<&str>) -> Result<Option<u32>, String> {
    let Some(v) = value else { return Ok(None) };
    match v.trim().parse::<u32>() {
        Ok(n) if (1..=64).contains(&n) => Ok(Some(n)),
        _ => Err(format!("SYNTH_MAX_LEVELS must be an integer in 1..=64, not `{v}`")),
    }
}

/// Why `what`, `depth` levels deep, breaks the budget; `None` when it does not.
fn over_budget(what: &str, depth: u32, budget: Option<u32>) -> Option<String> {
    budget
        .filter(|&b| depth > b)
        .map(|b| format!("{what}: {depth} LUT levels, over the budget of {b} (SYNTH_MAX_LEVELS)"))
}

/// The examples table's row of example `name` (configuration `design`, whole top `f`).
fn format_example_row(name: &str, design: &config::Design, f: &Figures) -> String {
    format!(
        "| {name:<24} | {:>8} | {:>5} | {:>8} | {:>8} | {:>7} | {:>7} | {:>6} | {:>5.1} | {:>6} | {:>5} |",
        design.sessions,
        design.data_width,
        design.user_clock_mhz,
        format!("{:.0}", design.peak_mb_per_s()),
        f.lut,
        f.ff,
        f.carry,
        f.bram,
        f.depth,
        f.chain
    )
}

fn example_row(name: &str, config_path: &str, netlist: &str) -> Result<Row, String> {
    let design = gen::read_config(std::path::Path::new(config_path))?;
    let f = figures(&load(netlist, &design.name)?, &design.name);
    Ok(Row { text: format_example_row(name, &design, &f), depth: f.depth })
}

fn example_header() -> String {
    let widths = [24, 8, 5, 8, 8, 7, 7, 6, 5, 6, 5];
    let names = ["example", "sessions", "width", "user MHz", "MB/s", "LUT", "FF", "CARRY", "BRAM", "levels", "carry"];
    let head: Vec<String> = names
        .iter()
        .zip(widths)
        .enumerate()
        .map(|(i, (n, w))| if i == 0 { format!(" {n:<w$} ") } else { format!(" {n:>w$} ") })
        .collect();
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(w + 2)).collect();
    format!("|{}|\n|{}|", head.join("|"), rule.join("|"))
}

fn header() -> String {
    format!(
        "| {:<44} | {:>7} | {:>7} | {:>6} | {:>5} | {:>5} | {:>4} | {:>6} | {:>5} |\n|{}|{}|{}|{}|{}|{}|{}|{}|{}|",
        "module",
        "LUT",
        "FF",
        "CARRY",
        "MUXF",
        "BRAM",
        "DSP",
        "levels",
        "carry",
        "-".repeat(46),
        "-".repeat(9),
        "-".repeat(9),
        "-".repeat(8),
        "-".repeat(7),
        "-".repeat(7),
        "-".repeat(6),
        "-".repeat(8),
        "-".repeat(7)
    )
}

/// Modules of the files that are not rust-hdl's register leaves (`q <= d;`).
fn blocks(files: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("cannot read {f}: {e}"))?;
        for chunk in text.split("\nmodule ").skip(1) {
            let name = chunk.split(['(', ' ', '\n']).next().unwrap_or("").to_string();
            let body = chunk.split("endmodule").next().unwrap_or("");
            if !name.is_empty() && !body.contains("q <= d;") {
                out.push(name);
            }
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let budget = match depth_budget(std::env::var("SYNTH_MAX_LEVELS").ok().as_deref()) {
        Ok(b) => b,
        Err(e) => {
            gen::print_stderr(&format!("synth_report: {e}"));
            return ExitCode::from(2);
        }
    };
    let plain = |text: String| Row { text, depth: 0 };
    let (result, what) = match args.first().map(String::as_str) {
        Some("header") => (Ok(plain(header())), ""),
        Some("row") if args.len() == 3 => (row(&args[1], &args[2]), args[1].as_str()),
        Some("blocks") => (blocks(&args[1..]).map(|b| plain(b.join("\n"))), ""),
        Some("example-header") => (Ok(plain(example_header())), ""),
        Some("example") if args.len() == 4 => (example_row(&args[1], &args[2], &args[3]), args[1].as_str()),
        _ => (
            Err("usage: synth_report header | row MODULE NETLIST.json | blocks FILE.v... \
                 | example-header | example NAME CONFIG.toml NETLIST.json"
                .to_string()),
            "",
        ),
    };
    match result {
        Ok(row) => {
            // A reader that closed early (`| head -1`) ends the output quietly.
            if let Err(e) = gen::print_stdout(&format!("{}\n", row.text)) {
                gen::print_stderr(&format!("synth_report: {e}"));
                return ExitCode::FAILURE;
            }
            match over_budget(what, row.depth, budget) {
                Some(why) => {
                    gen::print_stderr(&format!("synth_report: {why}"));
                    ExitCode::from(3)
                }
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            gen::print_stderr(&format!("synth_report: {e}"));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A register -> 2 LUTs -> a 2-cell carry chain -> LUT -> MUXF -> register
    /// path, a side register fed by the third LUT, a RAMB18 and a DSP; bits as
    /// yosys writes them (numbers, and "0"/"1" strings for constants).
    const NETLIST: &str = r#"{ "modules": { "dut": { "cells": {
        "ff0":  { "type": "FDRE",     "port_directions": { "C": "input", "D": "input", "Q": "output" },
                  "connections": { "C": [1], "D": [11], "Q": [2] } },
        "lut1": { "type": "LUT2",     "port_directions": { "I0": "input", "I1": "input", "O": "output" },
                  "connections": { "I0": [2], "I1": [3], "O": [4] } },
        "lut2": { "type": "LUT1",     "port_directions": { "I0": "input", "O": "output" },
                  "connections": { "I0": [4], "O": [5] } },
        "c0":   { "type": "CARRY8",   "port_directions": { "S": "input", "CI": "input", "CO": "output" },
                  "connections": { "S": [5], "CI": ["0"], "CO": [7] } },
        "c1":   { "type": "CARRY8",   "port_directions": { "S": "input", "CI": "input", "O": "output" },
                  "connections": { "S": [3], "CI": [7], "O": [8] } },
        "lut3": { "type": "LUT1",     "port_directions": { "I0": "input", "O": "output" },
                  "connections": { "I0": [8], "O": [9] } },
        "mux":  { "type": "MUXF7",    "port_directions": { "I0": "input", "I1": "input", "S": "input", "O": "output" },
                  "connections": { "I0": [9], "I1": [9], "S": [2], "O": [11] } },
        "ff1":  { "type": "FDRE",     "port_directions": { "C": "input", "D": "input", "Q": "output" },
                  "connections": { "C": [1], "D": [9], "Q": [12] } },
        "ram":  { "type": "RAMB18E2", "port_directions": { "CLK": "input" }, "connections": { "CLK": [1] } },
        "dsp":  { "type": "DSP48E2",  "port_directions": { "CLK": "input" }, "connections": { "CLK": [1] } }
    }, "netnames": {
        "count_reg":   { "bits": [2] },
        "$count_reg":  { "bits": [2] },
        "count_next":  { "bits": [11] },
        "partial":     { "bits": [4] },
        "$carry_out":  { "bits": [8] },
        "sum":         { "bits": [9, 12] }
    } } } }"#;

    fn fixture() -> Figures {
        figures(&parse(NETLIST, "fixture.json", "dut").unwrap(), "dut")
    }

    #[test]
    fn figures_count_cells_and_walk_levels_with_carry_cells_transparent() {
        let want = Figures { lut: 3, ff: 2, carry: 2, muxf: 1, bram: 0.5, dsp: 1, depth: 4, chain: 2 };
        assert_eq!(fixture(), want);
    }

    /// The deepest path names the nets it runs through and the register it
    /// starts from; with carry chains cut (as abc maps), the register
    /// behind the chain is 2 deep, not 4.
    #[test]
    fn the_deepest_path_is_named_and_abcs_depth_cuts_carry_chains() {
        let net = parse(NETLIST, "fixture.json", "dut").unwrap();
        let mut memo = vec![None; net.cells.len()];
        let end = (0..net.cells.len()).max_by_key(|&c| net.level(c, &mut memo)).unwrap();
        assert_eq!(
            net.path(end, &mut memo),
            [
                "MUXF7    count_next",
                "LUT1     sum[0]",
                "CARRY8   $carry_out",
                "CARRY8   c0",
                "LUT1     lut2",
                "LUT2     partial",
                "FDRE     count_reg",
            ]
        );
        let cut = net.cut_depths();
        let cut: Vec<(u32, &str)> = cut.iter().map(|(d, n)| (*d, n.as_str())).collect();
        assert_eq!(
            cut,
            [(2, "carry c0"), (2, "count_reg"), (1, "sum"), (0, "carry $carry_out"), (0, "dsp"), (0, "ram")]
        );
    }

    /// Over a budget, every register fed deeper is named with the start
    /// of its deepest path, by bus; none within it.
    #[test]
    fn endpoints_over_a_budget_are_named_with_their_start() {
        let net = parse(NETLIST, "fixture.json", "dut").unwrap();
        let deep = |over| -> Vec<(u32, String, String)> { net.deep_endpoints(over) };
        let row = |d: u32, end: &str, start: &str| (d, end.to_string(), start.to_string());
        assert_eq!(deep(2), [row(4, "count_reg", "count_reg"), row(3, "sum", "count_reg")]);
        assert_eq!(deep(3), [row(4, "count_reg", "count_reg")]);
        assert!(deep(4).is_empty());
    }

    #[test]
    fn a_module_row_and_an_example_row_carry_the_figures() {
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("net.json");
        std::fs::write(&net, NETLIST).unwrap();
        let module_row = row("dut", net.to_str().unwrap()).unwrap().text;
        let cells: Vec<&str> = module_row.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells, ["dut", "3", "2", "2", "1", "0.5", "1", "4", "2"]);
        assert_eq!(module_row.len(), header().lines().next().unwrap().len(), "header and row line up");

        let cfg = dir.path().join("two_narrow.toml");
        std::fs::write(&cfg, "[design]\nname = \"dut\"\nsessions = 2\ndata_width = 256\nuser_clock_mhz = 156.25\n")
            .unwrap();
        let row = example_row("two_narrow", cfg.to_str().unwrap(), net.to_str().unwrap()).unwrap().text;
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(cells, ["two_narrow", "2", "256", "156.25", "5000", "3", "2", "2", "0.5", "4", "2"]);
        let header = example_header();
        let lines: Vec<&str> = header.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), row.len(), "header and row line up:\n{header}\n{row}");
        assert_eq!(lines[1].len(), row.len());
        let names: Vec<&str> = lines[0].trim_matches('|').split('|').map(str::trim).collect();
        assert_eq!(names.len(), cells.len());
        assert_eq!(names[0], "example");
    }

    #[test]
    fn a_row_deeper_than_the_budget_is_named_and_one_within_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let net = dir.path().join("net.json");
        std::fs::write(&net, NETLIST).unwrap();
        let depth = row("dut", net.to_str().unwrap()).unwrap().depth;
        assert_eq!(depth, 4);
        assert_eq!(over_budget("dut", depth, None), None);
        assert_eq!(over_budget("dut", depth, Some(4)), None);
        assert_eq!(
            over_budget("dut", depth, Some(3)).unwrap(),
            "dut: 4 LUT levels, over the budget of 3 (SYNTH_MAX_LEVELS)"
        );
        assert_eq!(depth_budget(None), Ok(None));
        assert_eq!(depth_budget(Some("5")), Ok(Some(5)));
        for bad in ["0", "65", "five", ""] {
            let e = depth_budget(Some(bad)).unwrap_err();
            assert_eq!(e, format!("SYNTH_MAX_LEVELS must be an integer in 1..=64, not `{bad}`"));
        }
    }

    #[test]
    fn a_bad_netlist_or_config_is_an_error_naming_the_file() {
        let e = parse("{ not json", "broken.json", "top").err().unwrap();
        assert!(e.starts_with("broken.json: not a yosys JSON netlist"), "{e}");
        let e = parse(NETLIST, "fixture.json", "other").err().unwrap();
        assert_eq!(e, "fixture.json: no module other");
        let e = load("/nonexistent/net.json", "top").err().unwrap();
        assert!(e.starts_with("cannot read /nonexistent/net.json"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let cfg = dir.path().join("bad.toml");
        std::fs::write(&cfg, "[design]\nsessions = 9\n").unwrap();
        let e = example_row("bad", cfg.to_str().unwrap(), "unused.json").unwrap_err();
        assert!(e.starts_with(&format!("{}: ", cfg.display())) && e.contains("design.sessions"), "{e}");
        // The netlist lacks the example's top (the default name, toe_user_logic).
        std::fs::write(&cfg, "[design]\nsessions = 1\n").unwrap();
        let net = dir.path().join("net.json");
        std::fs::write(&net, NETLIST).unwrap();
        let e = example_row("one", cfg.to_str().unwrap(), net.to_str().unwrap()).unwrap_err();
        assert_eq!(e, format!("{}: no module toe_user_logic", net.display()));
    }
}
