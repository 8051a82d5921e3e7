//! Resource and logic-depth figures from a yosys `write_json` netlist
//! (`synth_xilinx -family xcup -flatten`), for `make synth-estimate`.
//!
//! `synth_report blocks FILE.v...` lists the modules worth a row: every
//! module except rust-hdl's one-register leaves. `synth_report row MODULE
//! NETLIST.json` prints one table row. `synth_report header` prints the header.
//!
//! Depth is counted on the mapped netlist: LUT and MUXF cells are one level
//! each, carry cells none (they are reported as the longest carry chain
//! instead), and flip-flops, block RAMs and DSPs end a path. yosys's own
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
    kind: Kind,
    inputs: Vec<u64>,
    carry_in: Vec<u64>,
}

struct Netlist {
    cells: Vec<Cell>,
    driver: HashMap<u64, usize>,
    counts: HashMap<String, usize>,
}

fn bits(v: &Value) -> Vec<u64> {
    v.as_array().map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default()
}

fn load(path: &str, module: &str) -> Result<Netlist, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let json: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: not a yosys JSON netlist: {e}"))?;
    let m = json.get("modules").and_then(|m| m.get(module)).ok_or_else(|| format!("{path}: no module {module}"))?;
    let mut net = Netlist { cells: Vec::new(), driver: HashMap::new(), counts: HashMap::new() };
    if let Some(cells) = m.get("cells").and_then(Value::as_object) {
        for (name, cell) in cells {
            let ty = cell.get("type").and_then(Value::as_str).unwrap_or("?").to_string();
            let k = kind(&ty);
            *net.counts.entry(ty).or_default() += 1;
            let dirs = cell.get("port_directions").and_then(Value::as_object);
            let conns = cell.get("connections").and_then(Value::as_object);
            let (Some(dirs), Some(conns)) = (dirs, conns) else { continue };
            let index = net.cells.len();
            let mut c = Cell { name: name.clone(), kind: k, inputs: Vec::new(), carry_in: Vec::new() };
            for (port, dir) in dirs {
                let b = bits(&conns[port]);
                if dir.as_str() == Some("output") {
                    if k != Kind::Seq {
                        for bit in b {
                            net.driver.insert(bit, index);
                        }
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

impl Netlist {
    /// LUT + MUXF levels of the logic driving `cell`'s output, carry cells transparent.
    fn level(&self, cell: usize, memo: &mut Vec<Option<u32>>) -> u32 {
        if let Some(l) = memo[cell] {
            return l;
        }
        let c = &self.cells[cell];
        let own = matches!(c.kind, Kind::Lut | Kind::Muxf) as u32;
        let mut deepest = 0;
        for bit in c.inputs.iter().chain(&c.carry_in) {
            if let Some(&d) = self.driver.get(bit) {
                deepest = deepest.max(self.level(d, memo));
            }
        }
        memo[cell] = Some(own + deepest);
        own + deepest
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

    /// The cells of the deepest path ending at `cell`, deepest first.
    fn path(&self, cell: usize, memo: &mut Vec<Option<u32>>) -> Vec<String> {
        let mut out = vec![self.cells[cell].name.clone()];
        let mut at = cell;
        loop {
            let c = &self.cells[at];
            let next = c
                .inputs
                .iter()
                .chain(&c.carry_in)
                .filter_map(|b| self.driver.get(b).copied())
                .max_by_key(|&d| self.level(d, memo));
            match next {
                Some(d) if self.level(d, memo) > 0 || self.cells[d].kind == Kind::Carry => {
                    out.push(self.cells[d].name.clone());
                    at = d;
                }
                _ => return out,
            }
        }
    }

    fn count(&self, prefix: &str) -> usize {
        self.counts.iter().filter(|(t, _)| t.starts_with(prefix)).map(|(_, n)| n).sum()
    }
}

fn row(module: &str, path: &str) -> Result<String, String> {
    let net = load(path, module)?;
    let mut memo = vec![None; net.cells.len()];
    let deepest = (0..net.cells.len()).max_by_key(|&c| net.level(c, &mut memo));
    let depth = deepest.map(|c| net.level(c, &mut memo)).unwrap_or(0);
    if std::env::var("SYNTH_REPORT_PATH").is_ok() {
        if let Some(c) = deepest {
            eprintln!("deepest path in {module} ({depth} levels), from its end back:");
            for name in net.path(c, &mut memo) {
                eprintln!("    {name}");
            }
        }
    }
    let mut memo = vec![None; net.cells.len()];
    let chain = (0..net.cells.len())
        .filter(|&c| net.cells[c].kind == Kind::Carry)
        .map(|c| net.chain(c, &mut memo))
        .max()
        .unwrap_or(0);
    let bram = net.count("RAMB36") as f64 + net.count("RAMB18") as f64 / 2.0;
    Ok(format!(
        "| {module:<44} | {:>7} | {:>7} | {:>6} | {:>5} | {:>5.1} | {:>4} | {:>6} | {:>5} |",
        net.count("LUT"),
        net.count("FD"),
        net.count("CARRY"),
        net.count("MUXF"),
        bram,
        net.count("DSP"),
        depth,
        chain
    ))
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
    let result = match args.first().map(String::as_str) {
        Some("header") => Ok(header()),
        Some("row") if args.len() == 3 => row(&args[1], &args[2]),
        Some("blocks") => blocks(&args[1..]).map(|b| b.join("\n")),
        _ => Err("usage: synth_report header | row MODULE NETLIST.json | blocks FILE.v...".to_string()),
    };
    match result {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("synth_report: {e}");
            ExitCode::from(2)
        }
    }
}
