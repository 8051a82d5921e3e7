//! Two implementations of one module in one model, driven with the same
//! seeded random stimulus and compared output by output, cycle by cycle.
//!
//! [`wrapper`] writes the Verilog that holds both: module `lockstep` with
//! the module's inputs as its own and each output `o` twice, `ref_o` from
//! the reference and `new_o` from the candidate. [`run`] drives it: every
//! cycle it draws the inputs, settles the model, compares every output pair
//! and then clocks it. The stimulus runs in phases of a few hundred cycles;
//! each phase draws for every input how often it changes and from which
//! range (one-bit inputs: always low, rare pulses, half the time, nearly
//! always high; buses: small values or any value), so a phase may hold a
//! reset low long enough for transfers to run, or pulse a start every few
//! cycles, and the run reaches states uniform noise would not.

use std::path::{Path, PathBuf};

use crate::model::{Model, Port};
use crate::{io, Error, ModelFns};

/// The one warning of rust-hdl's own Verilog writer, the lockstep tests'
/// reference, that [`WAIVERS`](crate::WAIVERS) no longer carries: it
/// initialises an enum-typed flip-flop with a 64-bit zero whatever the
/// flip-flop's width (the project's writer sizes it).
pub const REFERENCE_WAIVERS: &str = "\n// rust-hdl's own writer (the lockstep reference): an enum flip-flop's 64-bit zero.\n\
    lint_off -rule WIDTH -file \"*\" -match \"Operator ASSIGN expects * bits on the Assign RHS, but Assign RHS's CONST '64'h0' generates 64 bits.\"\n";

/// Writes [`WAIVERS`](crate::WAIVERS) and [`REFERENCE_WAIVERS`] to
/// `dir/lockstep_waivers.vlt` (creating `dir`) and returns its path: the
/// Verilator configuration of a lockstep model.
pub fn write_waivers(dir: &Path) -> Result<PathBuf, Error> {
    std::fs::create_dir_all(dir).map_err(io(format!("cannot create {}", dir.display())))?;
    let path = dir.join("lockstep_waivers.vlt");
    // Tests build lockstep models side by side, each writing this file: a
    // write in place let another Verilator read it truncated (every waiver
    // lost). Each writer renames its own complete copy over it instead.
    let tmp = dir.join(format!("lockstep_waivers.vlt.{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::write(&tmp, format!("{}{REFERENCE_WAIVERS}", crate::WAIVERS))
        .map_err(io(format!("cannot write {}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(io(format!("cannot rename {} to {}", tmp.display(), path.display())))?;
    Ok(path)
}

/// Cycles a lockstep test runs: `LOCKSTEP_CYCLES`, else 100,000.
pub fn cycles() -> u64 {
    std::env::var("LOCKSTEP_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000)
}

/// A port of the compared module: name, input or output, width in bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortSpec {
    pub name: String,
    pub input: bool,
    pub width: usize,
}

/// The Verilog of module `lockstep`: `reference` and `candidate`, both with
/// the ports `ports`, side by side.
pub fn wrapper(reference: &str, candidate: &str, ports: &[PortSpec]) -> String {
    let decl = |p: &PortSpec, name: &str| {
        let range = if p.width == 1 { String::new() } else { format!("[{}:0] ", p.width - 1) };
        format!("    {} wire {range}{name}", if p.input { "input " } else { "output" })
    };
    let mut decls = Vec::new();
    for p in ports {
        if p.input {
            decls.push(decl(p, &p.name));
        } else {
            decls.push(decl(p, &format!("ref_{}", p.name)));
            decls.push(decl(p, &format!("new_{}", p.name)));
        }
    }
    let instance = |module: &str, inst: &str, side: &str| {
        let conns: Vec<String> = ports
            .iter()
            .map(|p| {
                let net = if p.input { p.name.clone() } else { format!("{side}_{}", p.name) };
                format!("        .{}({net})", p.name)
            })
            .collect();
        format!("    {module} {inst} (\n{}\n    );\n", conns.join(",\n"))
    };
    format!(
        "// The reference and the candidate side by side (verilate::lockstep).\n\
         module lockstep (\n{}\n);\n{}{}endmodule\n",
        decls.join(",\n"),
        instance(reference, "u_ref", "ref"),
        instance(candidate, "u_new", "new"),
    )
}

/// The first output that differed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub output: String,
    /// The two values, least significant word first.
    pub reference: Vec<u32>,
    pub candidate: Vec<u32>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex = |w: &[u32]| w.iter().rev().map(|x| format!("{x:08x}")).collect::<Vec<_>>().join("_");
        write!(
            f,
            "output `{}` differs in cycle {}: reference {} candidate {}",
            self.output,
            self.cycle,
            hex(&self.reference),
            hex(&self.candidate)
        )
    }
}

/// xorshift64*: the stimulus needs no more, and the seed says it all.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// How one input behaves during a phase.
#[derive(Clone, Copy)]
struct Habit {
    /// Chance in 1/1024 that the input takes a new value this cycle.
    change: u64,
    /// One bit: chance in 1/1024 of a one. Buses: the top of the range is
    /// `2^small - 1`, or the whole width when `small` is 0.
    level: u64,
    small: u32,
}

fn draw_habit(rng: &mut Rng, width: usize) -> Habit {
    let change = [0, 8, 128, 512, 1024][rng.below(5) as usize];
    if width == 1 {
        Habit { change: 1024, level: [0, 4, 64, 512, 1000, 1024][rng.below(6) as usize], small: 0 }
    } else {
        let small = if rng.below(2) == 0 { 0 } else { 1 + rng.below(12.min(width as u64)) as u32 };
        Habit { change, level: 0, small }
    }
}

/// Drives `cycles` cycles of the `lockstep` model `fns` whose module has
/// `ports`; `clocks` are the inputs toggled as clocks (each takes a rising
/// and a falling edge every cycle; with several, a random subset ticks each
/// cycle, so unrelated clocks drift). Inputs named in `rare` (resets) are
/// asserted in the first two cycles and then in about one cycle of a
/// thousand: high, or low for a name written `!name` (an active-low reset).
/// An input named in `choices` (an address bus) takes one of its listed
/// values three times in four when it changes, so the stimulus lands on
/// the few values that matter; in one phase in four (a focused phase) it
/// takes only listed values, so that a scenario needing every listed input
/// at once (a test that runs to its end: no abort, the link up) is
/// reached in most seeds, not one in a few. Returns the outputs that changed at least
/// once (what the stimulus reached), or the first mismatch.
pub fn run(
    fns: &'static ModelFns,
    ports: &[PortSpec],
    clocks: &[&str],
    rare: &[&str],
    choices: &[(&str, &[u64])],
    cycles: u64,
    seed: u64,
) -> Result<Vec<String>, Mismatch> {
    let mut model = Model::new(fns);
    // splitmix64 of the seed: nearby seeds give unrelated runs, and none is 0.
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    let mut rng = Rng((z ^ (z >> 31)) | 1);
    let clock_ports: Vec<Port> = clocks.iter().map(|c| model.port(c)).collect();
    let inputs: Vec<(&PortSpec, Port)> = ports
        .iter()
        .filter(|p| p.input && !clocks.contains(&p.name.as_str()))
        .map(|p| (p, model.port(&p.name)))
        .collect();
    let outputs: Vec<(&PortSpec, Port, Port)> = ports
        .iter()
        .filter(|p| !p.input)
        .map(|p| (p, model.port(&format!("ref_{}", p.name)), model.port(&format!("new_{}", p.name))))
        .collect();
    let mut habits: Vec<Habit> = Vec::new();
    let mut focused = false;
    let mut words = Vec::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut first: Vec<Vec<u32>> = vec![Vec::new(); outputs.len()];
    let mut changed = vec![false; outputs.len()];
    for cycle in 0..cycles {
        if cycle % 512 == 0 {
            habits = inputs.iter().map(|(p, _)| draw_habit(&mut rng, p.width)).collect();
            focused = rng.below(4) == 0;
        }
        for ((spec, port), habit) in inputs.iter().zip(&habits) {
            let name = spec.name.as_str();
            if let Some(high) = rare.iter().find_map(|r| match r.strip_prefix('!') {
                Some(low) if low == name => Some(false),
                None if *r == name => Some(true),
                _ => None,
            }) {
                let asserted = rng.below(1000) == 0 || cycle < 2;
                model.set(*port, u64::from(asserted == high));
                continue;
            }
            if cycle > 0 && rng.below(1024) >= habit.change {
                continue;
            }
            let listed = choices.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).filter(|v| !v.is_empty());
            if let Some(values) = listed.filter(|_| focused || rng.below(4) != 0) {
                model.set(*port, values[rng.below(values.len() as u64) as usize]);
            } else if spec.width == 1 {
                model.set(*port, u64::from(rng.below(1024) < habit.level));
            } else {
                words.clear();
                let n = spec.width.div_ceil(32);
                for i in 0..n {
                    let bits_here =
                        if habit.small == 0 { 32 } else { (habit.small as usize).saturating_sub(32 * i).min(32) };
                    let w = rng.next() as u32;
                    words.push(if bits_here >= 32 { w } else { w & ((1u32 << bits_here) - 1) });
                }
                model.set_wide(*port, &words);
            }
        }
        model.eval();
        for (i, (spec, r, c)) in outputs.iter().enumerate() {
            let n = spec.width.div_ceil(32);
            a.resize(n, 0);
            b.resize(n, 0);
            model.get_wide(*r, &mut a);
            model.get_wide(*c, &mut b);
            if a != b {
                return Err(Mismatch { cycle, output: spec.name.clone(), reference: a, candidate: b });
            }
            if cycle == 0 {
                first[i] = a.clone();
            } else if !changed[i] && first[i] != a {
                changed[i] = true;
            }
        }
        let ticking: Vec<Port> = if clock_ports.len() == 1 {
            clock_ports.clone()
        } else {
            let mut t: Vec<Port> = clock_ports.iter().copied().filter(|_| rng.below(4) != 0).collect();
            if t.is_empty() {
                t.push(clock_ports[rng.below(clock_ports.len() as u64) as usize]);
            }
            t
        };
        for &c in &ticking {
            model.set(c, 1);
        }
        model.eval();
        for &c in &ticking {
            model.set(c, 0);
        }
        model.eval();
    }
    Ok(outputs.iter().zip(changed).filter(|(_, c)| *c).map(|((spec, ..), _)| spec.name.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_doubles_every_output_and_shares_every_input() {
        let ports = [
            PortSpec { name: "clock".into(), input: true, width: 1 },
            PortSpec { name: "count".into(), input: false, width: 8 },
        ];
        let text = wrapper("old_counter", "counter", &ports);
        assert!(text.contains("input  wire clock"), "{text}");
        assert!(text.contains("output wire [7:0] ref_count") && text.contains("output wire [7:0] new_count"), "{text}");
        assert!(text.contains("old_counter u_ref (") && text.contains(".count(ref_count)"), "{text}");
        assert!(text.contains("counter u_new (") && text.contains(".count(new_count)"), "{text}");
    }
}
