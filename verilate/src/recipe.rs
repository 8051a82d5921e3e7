//! The steps of the recipe, shared by the build-time and the run-time paths.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{io, Error};

/// One port read from the verilated header, with its name owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortDecl {
    pub name: String,
    /// 8, 16, 32, 64 for scalars; 0 for VlWide.
    pub kind: u32,
    pub width: usize,
    /// 32-bit words of a wide port, 0 for a scalar.
    pub words: usize,
    pub output: bool,
    /// The port matters only at clock edges ([`VerilatedCode::mark_edge_only`]): an
    /// output no `eval()` without an edge changes, or an input no edge is
    /// taken from. False until marked.
    pub edge_only: bool,
}

/// One run of Verilator: `top` of `sources` into the model `V<model>` under `obj_dir`.
#[derive(Clone, Copy, Debug)]
pub struct Verilation<'a> {
    /// The model's name: a C identifier, the prefix of its entry points.
    pub model: &'a str,
    /// The top module.
    pub top: &'a str,
    pub sources: &'a [PathBuf],
    /// A Verilator configuration file (`.vlt`) passed before the sources.
    pub waivers: Option<&'a Path>,
    /// Verilator's `-Mdir`.
    pub obj_dir: &'a Path,
    /// Adds `--trace-fst`.
    pub trace: bool,
}

impl Verilation<'_> {
    /// `V<model>`: the class Verilator writes, and the name of its header.
    pub fn prefix(&self) -> String {
        format!("V{}", self.model)
    }

    /// The verilated header, once Verilator has run.
    pub fn header(&self) -> PathBuf {
        self.obj_dir.join(format!("{}.h", self.prefix()))
    }

    /// The command of the recipe, not yet run.
    pub fn command(&self) -> Command {
        let prefix = self.prefix();
        let mut cmd = Command::new("verilator");
        cmd.args(["--cc", "--build", "-j", "2", "-O3", "--x-assign", "fast", "--x-initial", "fast"])
            .args(["--prefix", &prefix, "--top-module", self.top, "-Mdir"])
            .arg(self.obj_dir)
            .args(["-CFLAGS", "-fPIC -O2"])
            // verilated.mk compiles the per-cycle code with its OPT_FAST,
            // -Os, after CFLAGS, so -Os won: -O2 simulates 1.3-1.4 x faster
            // (make bench's yardstick-shaped model) for about 4 % more
            // compile time.
            .args(["-MAKEFLAGS", "OPT_FAST=-O2"]);
        if let Some(waivers) = self.waivers {
            cmd.arg(waivers);
        }
        cmd.args(self.sources);
        if self.trace {
            cmd.arg("--trace-fst");
        }
        cmd
    }
}

fn verilator_missing(e: std::io::Error) -> Error {
    Error::ToolMissing { tool: "verilator", detail: e.to_string() }
}

/// `verilator --getenv VERILATOR_ROOT`: its `include/` has `verilated.cpp`.
pub fn verilator_root() -> Result<PathBuf, Error> {
    let out = Command::new("verilator").arg("--getenv").arg("VERILATOR_ROOT").output().map_err(verilator_missing)?;
    if !out.status.success() {
        return Err(Error::ToolMissing {
            tool: "verilator",
            detail: format!(
                "`verilator --getenv VERILATOR_ROOT` failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        });
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// The first line of `verilator --version`, e.g. `Verilator 5.006 2023-01-22 rev (Debian 5.006-3)`.
pub fn verilator_version() -> Result<String, Error> {
    let out = Command::new("verilator").arg("--version").output().map_err(verilator_missing)?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().next().unwrap_or("").trim();
    if !out.status.success() || line.is_empty() {
        return Err(Error::ToolMissing {
            tool: "verilator",
            detail: format!("`verilator --version` failed: {}", String::from_utf8_lossy(&out.stderr).trim()),
        });
    }
    Ok(line.to_string())
}

/// The model archive Verilator built: 5.006 names it `V<prefix>__ALL.a`, later versions `libV<prefix>.a`.
pub fn find_archive(obj: &Path, prefix: &str) -> Result<PathBuf, Error> {
    for name in [format!("{prefix}__ALL.a"), format!("lib{prefix}.a")] {
        let p = obj.join(name);
        if p.exists() {
            return Ok(p);
        }
    }
    Err(Error::Invalid(format!("no model archive for {prefix} in {}", obj.display())))
}

/// Reads `VL_IN8(&name,msb,lsb);`, `VL_OUTW(&name,msb,lsb,words);` and friends, in header order.
pub fn parse_ports(header: &str) -> Result<Vec<PortDecl>, Error> {
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
        let bad = || Error::Invalid(format!("unreadable port declaration in the verilated header: {line}"));
        let args: Vec<&str> = args.trim_end_matches(");").split(',').map(str::trim).collect();
        if args.len() < if kind == 0 { 4 } else { 3 } {
            return Err(bad());
        }
        let name = args[0].trim_start_matches('&').to_string();
        let msb: usize = args[1].parse().map_err(|_| bad())?;
        let words = if kind == 0 { args[3].parse().map_err(|_| bad())? } else { 0 };
        ports.push(PortDecl { name, kind, width: msb + 1, words, output, edge_only: false });
    }
    if ports.is_empty() {
        return Err(Error::Invalid("no ports found in the verilated header".into()));
    }
    Ok(ports)
}

/// The code of a verilated model that the analyses below read, read once:
/// the root class's header, the model's code (`V<prefix>___024root__DepSet_*.cpp`,
/// cold files aside, in file order) and its input-combinational region
/// (the functions `V<prefix>___024root___eval_ico` calls, followed through
/// their calls, whitespace collapsed; None when one of them is not found,
/// another Verilator's layout).
pub struct VerilatedCode {
    root: String,
    code: String,
    ico: Option<String>,
    /// `V<prefix>___024root___eval`'s body as written (None if not found).
    eval: Option<String>,
    prefix: String,
}

/// A model's `eval()` without its input-combinational region
/// ([`VerilatedCode::clocked_eval`]), for [`render_shim`].
#[derive(Clone, Debug)]
pub struct ClockedEval {
    /// The body of Verilator's `_eval` with the region's loop cut out.
    body: String,
    /// The root's functions the body calls (`eval_act`, ...), suffixes only.
    callees: Vec<String>,
    /// The inputs the region reads: the shim keeps their values at each
    /// full `eval()` and takes the clocked one only while all are the same.
    pub inputs: Vec<PortDecl>,
}

/// The root functions a clocked `eval()` may call, each `void (root*)`:
/// the active and NBA regions and, under `VL_DEBUG`, their trigger dumps.
const CLOCKED_CALLEES: [&str; 5] =
    ["eval_triggers__act", "eval_act", "eval_nba", "dump_triggers__act", "dump_triggers__nba"];

impl VerilatedCode {
    /// Reads the model `prefix` verilated into `obj`.
    pub fn read(obj: &Path, prefix: &str) -> Result<Self, Error> {
        let root = read(&obj.join(format!("{prefix}___024root.h")))?;
        let stem = format!("{prefix}___024root__DepSet_");
        let mut code = String::new();
        let mut entries: Vec<_> = std::fs::read_dir(obj)
            .map_err(crate::io(format!("cannot list {}", obj.display())))?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.starts_with(&stem) && n.ends_with(".cpp") && !n.ends_with("__Slow.cpp"))
            .collect();
        entries.sort();
        for name in entries {
            code.push_str(&read(&obj.join(name))?);
        }
        let bodies = function_bodies(&code, prefix);
        let ico = ico_code(&bodies, prefix);
        let eval = bodies.get(&format!("{prefix}___024root___eval")).cloned();
        Ok(VerilatedCode { root, code, ico, eval, prefix: prefix.to_string() })
    }

    /// The model's `eval()` without its input-combinational region, for
    /// [`render_shim`]'s `eval` to run when no input that region reads has
    /// changed since the last full `eval()`: None when this Verilator's
    /// layout is not the one understood here.
    ///
    /// Verilator 5.006 runs that region at the start of every `eval()`,
    /// whatever changed (its only trigger is "first iteration"). It computes
    /// the logic fed by top-level inputs from the inputs and the state;
    /// the clocked region after it recomputes whatever a state change moves.
    /// So with those inputs as they were at the last full `eval()` (compared
    /// by value, [`ClockedEval::inputs`]), the region would write what is
    /// already there, and a clock edge needs only the rest. The rest is
    /// Verilator's own `_eval` with the region's loop cut out: the body
    /// must be one `while (__VicoContinue)` loop, preceded by its counter's
    /// reset and its flag's declaration, and nothing else may mention the
    /// region; the functions it calls are declared from their names.
    pub fn clocked_eval(&self, ports: &[PortDecl]) -> Option<ClockedEval> {
        let (ico, eval) = (self.ico.as_ref()?, self.eval.as_ref()?);
        let mut body = String::new();
        let mut rest = eval.as_str();
        // The flag's declaration and the counter's reset, then the loop.
        for line in ["CData/*0:0*/ __VicoContinue;\n", "vlSelf->__VicoIterCount = 0U;\n", "__VicoContinue = 1U;\n"] {
            let at = rest.find(line)?;
            body.push_str(&rest[..at]);
            rest = &rest[at + line.len()..];
        }
        let head = "while (__VicoContinue) {";
        let after_head = rest.trim_start().strip_prefix(head)?;
        body.push_str(&rest[..rest.len() - rest.trim_start().len()]);
        rest = after_head;
        // Skip to the loop's closing brace (no braces in its strings).
        let mut depth = 1usize;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        body.push_str(&rest[end? + 1..]);
        if body.contains("__Vico") || body.contains("_ico") {
            return None;
        }
        let fn_prefix = format!("{}___024root___", self.prefix);
        let mut callees: Vec<String> = body
            .split(&fn_prefix)
            .skip(1)
            .filter_map(|call| {
                let name: String = call.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                call[name.len()..].starts_with('(').then_some(name)
            })
            .collect();
        callees.sort();
        callees.dedup();
        if callees.iter().any(|c| !CLOCKED_CALLEES.contains(&c.as_str())) {
            return None;
        }
        let inputs = ports.iter().filter(|p| !p.output && mentioned(ico, &p.name, false)).cloned().collect();
        Some(ClockedEval { body, callees, inputs })
    }

    /// The one-bit inputs whose only event is their rising edge: the clocks
    /// [`render_shim`]'s `fall` may lower without an `eval()`.
    ///
    /// Verilator 5 keeps, per input used in an event control, the value it
    /// had at the last `eval()` (`__Vtrigrprev__TOP__<name>` in the root
    /// class) and compares it with the input's value to find edges. An input
    /// qualifies when every use of that member in the model's code is the
    /// rising-edge test `(~ (IData)(vlSelf->__Vtrigrprev__TOP__<name>))` or its
    /// update `= vlSelf-><name>;`: then a falling edge triggers nothing, and
    /// an `eval()` at it only recomputes what the inputs already settled. It
    /// must also not be read as data by the input-combinational logic, whose
    /// outputs a fall without an `eval()` would leave stale. A negative or
    /// any-edge use, a use as data, another Verilator's naming, or no such
    /// member leaves the input out, and `fall` falls back to an `eval()`.
    pub fn rising_only_clocks(&self, ports: &[PortDecl]) -> Vec<String> {
        let Some(ico) = &self.ico else { return Vec::new() };
        let mut clocks = Vec::new();
        for p in ports.iter().filter(|p| !p.output && p.width == 1) {
            let member = format!("__Vtrigrprev__TOP__{}", p.name);
            if !self.root.contains(&format!(" {member};")) {
                continue;
            }
            let uses = self.code.matches(&format!("vlSelf->{member}")).count();
            let rising = self.code.matches(&format!("(~ (IData)(vlSelf->{member}))")).count();
            let updates = self.code.matches(&format!("vlSelf->{member} = vlSelf->{};", p.name)).count();
            if rising > 0 && uses == rising + updates && !mentioned(ico, &p.name, false) {
                clocks.push(p.name.clone());
            }
        }
        clocks
    }

    /// Marks the ports that matter only at clock edges
    /// ([`PortDecl::edge_only`]), so that [`crate::Model`] may leave an
    /// `eval()` for the next edge:
    ///
    /// - an input is edge-only when no event control reads it (no
    ///   `__Vtrigrprev__TOP__<name>` member in the root class): changing it
    ///   triggers nothing, and an `eval()` after it only settles logic,
    ///   which the next edge's `eval()` does first anyway (Verilator 5 runs
    ///   the input-combinational region at the start of every `eval()`);
    /// - an output is edge-only when the input-combinational region never
    ///   writes it: only logic run at a clock edge sets it, so it reads
    ///   right without an `eval()` after inputs change. Every mention of it
    ///   there counts as a write but a plain read: a scalar in a cast,
    ///   `(IData)(vlSelf-><name>)`, or one word of a wide port that is not
    ///   assigned, `vlSelf-><name>[3U]`.
    ///
    /// A model with an event on anything but an input port (a derived
    /// clock) gets no port marked: an input change could then be an edge
    /// itself. So does a model whose input-combinational functions are not
    /// all found.
    pub fn mark_edge_only(&self, ports: &mut [PortDecl]) {
        let triggers: Vec<&str> = self
            .root
            .split("__Vtrigrprev__TOP__")
            .skip(1)
            .map(|rest| rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).next().unwrap_or(""))
            .collect();
        for p in ports.iter_mut() {
            p.edge_only = false;
        }
        if triggers.iter().any(|t| !ports.iter().any(|p| !p.output && p.name == *t)) {
            return;
        }
        let Some(ico) = &self.ico else { return };
        for p in ports.iter_mut() {
            p.edge_only = if p.output { !mentioned(ico, &p.name, true) } else { !triggers.contains(&p.name.as_str()) };
        }
    }
}

/// Every function `<prefix>___024root___*` defined in `code`: name -> body
/// as written (the lines between a definition line
/// `[VL_INLINE_OPT ]void <name>(...) {` and the line `}`).
fn function_bodies(code: &str, prefix: &str) -> std::collections::HashMap<String, String> {
    let fn_prefix = format!("{prefix}___024root___");
    let mut bodies = std::collections::HashMap::new();
    let mut current: Option<(String, String)> = None;
    for line in code.lines() {
        if let Some((name, body)) = current.as_mut() {
            if line == "}" {
                bodies.insert(std::mem::take(name), std::mem::take(body));
                current = None;
            } else {
                body.push_str(line);
                body.push('\n');
            }
            continue;
        }
        let head = line.strip_prefix("VL_INLINE_OPT ").unwrap_or(line);
        if let Some(name) = head.strip_prefix("void ").filter(|_| line.ends_with(") {")) {
            let name = name.split('(').next().unwrap_or("");
            if name.starts_with(&fn_prefix) {
                current = Some((name.to_string(), String::new()));
            }
        }
    }
    bodies
}

/// The bodies of the functions reachable from `<prefix>___024root___eval_ico`
/// among `bodies`, whitespace collapsed; None when one of them is not found.
fn ico_code(bodies: &std::collections::HashMap<String, String>, prefix: &str) -> Option<String> {
    let fn_prefix = format!("{prefix}___024root___");
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![format!("{fn_prefix}eval_ico")];
    let mut out = String::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let body = bodies.get(&name)?;
        for call in body.split(&fn_prefix).skip(1) {
            let callee: String = call.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if call[callee.len()..].starts_with('(') {
                todo.push(format!("{fn_prefix}{callee}"));
            }
        }
        out.push_str(body);
        out.push(' ');
    }
    Some(out.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Whether `code` (whitespace collapsed) mentions `vlSelf-><name>`; with
/// `reads_allowed`, other than as a plain read, which is how a write is
/// told apart without parsing C++: a scalar in a cast,
/// `(IData)(vlSelf-><name>)`, or one word of a wide port not assigned,
/// `vlSelf-><name>[3U]` not followed by `=` or a compound assignment. Any
/// other mention (a whole wide port handed to a `VL_` function, say) counts
/// as a write.
fn mentioned(code: &str, name: &str, reads_allowed: bool) -> bool {
    let member = format!("vlSelf->{name}");
    let mut rest = code;
    while let Some(at) = rest.find(&member) {
        let after = &rest[at + member.len()..];
        let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let cast = ["(CData)(", "(SData)(", "(IData)(", "(QData)("].iter().any(|c| rest[..at].ends_with(c))
            && after.starts_with(')');
        let word = after.strip_prefix('[').and_then(|a| a.split_once(']')).is_some_and(|(index, tail)| {
            let tail = tail.trim_start();
            let assigns =
                ["|=", "&=", "^=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>="].iter().any(|op| tail.starts_with(op))
                    || (tail.starts_with('=') && !tail.starts_with("=="));
            index.trim_end_matches('U').chars().all(|c| c.is_ascii_digit()) && !assigns
        });
        if whole && !(reads_allowed && (cast || word)) {
            return true;
        }
        rest = after;
    }
    false
}

/// The C++ shim: C entry points of `model` (class `prefix`), one
/// `VerilatedContext` per instance; with `trace`, FST tracing.
///
/// `int <model>_fall(model, index)` lowers clock input `index` and returns 1
/// when it is one of `rising_only` ([`VerilatedCode::rising_only_clocks`]) and the model is
/// not traced: it sets the input to 0 and Verilator's record of its last
/// value to 0, which is all an `eval()` at a falling edge changes besides
/// settling logic after data inputs moved, which the next edge's `eval()`
/// does first ([`crate::Model`] calls it only when no other clock moved).
/// Otherwise it does nothing and returns 0, and the caller lowers the clock
/// with an `eval()`. Verilator
/// 5.006 evaluates the input-combinational logic on every `eval()`, so the
/// falling edge's `eval()` cost as much as the rising edge's.
///
/// With `clocked` ([`VerilatedCode::clocked_eval`]; not traced),
/// `<model>_eval` keeps the values of the inputs the input-combinational
/// region reads at each full `eval()`, and while they are all the same
/// (compared by value, so a driver that writes an input's old value again
/// changes nothing) it runs the model's `eval()` without that region: an
/// edge then costs the clocked logic alone. The first `eval()` is always
/// full (it also runs Verilator's initial and settle code).
pub fn render_shim(
    model: &str,
    prefix: &str,
    ports: &[PortDecl],
    trace: bool,
    rising_only: &[String],
    clocked: Option<&ClockedEval>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// Generated by the verilate crate: C entry points of model {model}.");
    let _ = writeln!(s, "#include <cstdint>\n#include <cstring>\n#include \"{prefix}.h\"\n#include \"verilated.h\"");
    let fast: Vec<(usize, &PortDecl)> = if trace {
        Vec::new()
    } else {
        ports.iter().enumerate().filter(|(_, p)| rising_only.contains(&p.name)).collect()
    };
    let clocked = clocked.filter(|_| !trace);
    if !fast.is_empty() || clocked.is_some() {
        let _ = writeln!(s, "#include \"{prefix}___024root.h\"");
    }
    if trace {
        let _ = writeln!(s, "#include \"verilated_fst_c.h\"");
    }
    // The inputs' values at the last full eval(), one member each: their
    // declarations, the test that all are unchanged, and the copy after a
    // full eval().
    let (mut saved, mut unchanged, mut keep) = (String::new(), String::new(), String::new());
    if let Some(c) = clocked {
        let _ = writeln!(s, "#include \"{prefix}__Syms.h\"");
        for f in &c.callees {
            let _ = writeln!(s, "void {prefix}___024root___{f}({prefix}___024root* vlSelf);");
        }
        let _ = writeln!(s, "// Verilator's eval() of this model without its input-combinational region.");
        let _ = writeln!(s, "static void {model}_clocked_eval({prefix}___024root* vlSelf) {{\n{}}}", c.body);
        for (i, p) in c.inputs.iter().enumerate() {
            let n = &p.name;
            if p.kind == 0 {
                let _ = write!(saved, " uint32_t in{i}[{}];", p.words);
                let _ = write!(unchanged, "\n        && std::memcmp(m->in{i}, t->{n}.data(), sizeof m->in{i}) == 0");
                let _ = write!(keep, " std::memcpy(m->in{i}, t->{n}.data(), sizeof m->in{i});");
            } else {
                let _ = write!(saved, " uint64_t in{i};");
                let _ = write!(unchanged, "\n        && m->in{i} == static_cast<uint64_t>(t->{n})");
                let _ = write!(keep, " m->in{i} = t->{n};");
            }
        }
    }
    let _ = writeln!(
        s,
        "namespace {{ struct Model {{ VerilatedContext* ctx; {prefix}* top; void* trace; bool settled;{saved} }}; }}"
    );
    let _ = writeln!(s, "extern \"C\" {{");
    let _ = writeln!(
        s,
        "void* {model}_new() {{ auto* m = new Model; m->ctx = new VerilatedContext; m->ctx->traceEverOn({t}); m->top = new {prefix}{{m->ctx, \"top\"}}; m->trace = nullptr; m->settled = false; return m; }}",
        t = trace
    );
    if clocked.is_some() {
        let _ = writeln!(
            s,
            "void {model}_eval(void* p) {{\n    auto* m = static_cast<Model*>(p);\n    auto* t = m->top;\n    if (m->settled{unchanged}) {{\n        {model}_clocked_eval(t->rootp);\n        return;\n    }}\n    t->eval();\n   {keep}\n    m->settled = true;\n}}"
        );
    } else {
        let _ = writeln!(s, "void {model}_eval(void* p) {{ static_cast<Model*>(p)->top->eval(); }}");
    }
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
    let _ = writeln!(s, "int {model}_fall(void* p, unsigned index) {{");
    if fast.is_empty() {
        let _ = writeln!(s, "    (void)p; (void)index;\n    return 0;\n}}");
    } else {
        let _ = writeln!(s, "    auto* t = static_cast<Model*>(p)->top;\n    switch (index) {{");
        for (i, port) in &fast {
            let _ =
                writeln!(s, "    case {i}: t->{n} = 0; t->rootp->__Vtrigrprev__TOP__{n} = 0; return 1;", n = port.name);
        }
        let _ = writeln!(s, "    default: return 0;\n    }}\n}}");
    }
    let _ = writeln!(s, "void* {model}_port(void* p, unsigned index) {{\n    auto* t = static_cast<Model*>(p)->top;\n    switch (index) {{");
    for (i, port) in ports.iter().enumerate() {
        let expr = if port.kind == 0 { format!("t->{}.data()", port.name) } else { format!("&t->{}", port.name) };
        let _ = writeln!(s, "    case {i}: return static_cast<void*>({expr});");
    }
    let _ = writeln!(s, "    default: return nullptr;\n    }}\n}}\n}}");
    s
}

/// C entry points that describe the ports, appended to the shim of a shared
/// model so that the library carries its own port table:
/// `uint32_t <model>_port_count()` and
/// `const char* <model>_port_info(uint32_t index, uint32_t* kind, uint32_t* width, uint32_t* words, uint32_t* output, uint32_t* edge_only)`
/// (the name, or null past the last port).
pub fn render_port_table(model: &str, ports: &[PortDecl]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "// The port table of model {model}, in the order of {model}_port.");
    let _ = writeln!(
        s,
        "namespace {{ struct PortRow {{ const char* name; uint32_t kind, width, words, output, edge_only; }};\nconst PortRow {model}_ports[] = {{"
    );
    for p in ports {
        let _ = writeln!(
            s,
            "    {{{:?}, {}, {}, {}, {}, {}}},",
            p.name,
            p.kind,
            p.width,
            p.words,
            u32::from(p.output),
            u32::from(p.edge_only)
        );
    }
    let _ = writeln!(s, "}}; }}");
    let _ = writeln!(s, "extern \"C\" {{");
    let _ = writeln!(s, "uint32_t {model}_port_count() {{ return {}; }}", ports.len());
    let _ = writeln!(s, "const char* {model}_port_info(uint32_t i, uint32_t* kind, uint32_t* width, uint32_t* words, uint32_t* output, uint32_t* edge_only) {{");
    let _ = writeln!(s, "    if (i >= {}) return nullptr;", ports.len());
    let _ = writeln!(s, "    const PortRow& r = {model}_ports[i];");
    let _ = writeln!(
        s,
        "    *kind = r.kind; *width = r.width; *words = r.words; *output = r.output; *edge_only = r.edge_only;\n    return r.name;\n}}\n}}"
    );
    s
}

/// The Rust module of one statically linked model: `extern "C"` declarations
/// of its entry points, `consts` (lines of the module body), `PORTS` and
/// `FNS`. `types` is the path where `PortInfo` and `ModelFns` are seen from
/// the including crate (`crate::verilated` in the testbench); `traced` says
/// the model was verilated with `--trace-fst`.
pub fn render_rust(
    s: &mut String,
    model: &str,
    summary: &str,
    consts: &str,
    ports: &[PortDecl],
    types: &str,
    traced: bool,
) {
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
    let _ = writeln!(s, "        pub fn {model}_fall(p: *mut core::ffi::c_void, index: u32) -> i32;");
    let _ = writeln!(s, "    }}");
    s.push_str(consts);
    let _ = writeln!(s, "    pub const PORTS: &[{types}::PortInfo] = &[");
    for p in ports {
        let _ = writeln!(
            s,
            "        {types}::PortInfo {{ name: {:?}, kind: {}, width: {}, words: {}, output: {}, edge_only: {} }},",
            p.name, p.kind, p.width, p.words, p.output, p.edge_only
        );
    }
    let _ = writeln!(s, "    ];");
    let _ = writeln!(s, "    pub const FNS: {types}::ModelFns = {types}::ModelFns {{ name: {model:?}, new: {model}_new, eval: {model}_eval, delete: {model}_delete, port: {model}_port, trace_open: {model}_trace_open, trace_dump: {model}_trace_dump, fall: {model}_fall, traced: {traced}, ports: PORTS }};");
    let _ = writeln!(s, "}}");
}

/// Reads a file, saying which.
pub(crate) fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(io(format!("cannot read {}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "class Vm {\n  public:\n    VL_IN8(&clk,0,0);\n    VL_IN16(&a,9,0);\n    VL_IN(&b,31,0);\n    VL_OUT64(&c,40,0);\n    VL_INW(&w,99,0,4);\n    VL_OUTW(&o,99,0,4);\n    VL_OUT8(&q,7,0);\n};\n";

    #[test]
    fn parses_every_kind() {
        let ports = parse_ports(HEADER).unwrap();
        let got: Vec<_> = ports.iter().map(|p| (p.name.as_str(), p.kind, p.width, p.words, p.output)).collect();
        assert_eq!(
            got,
            [
                ("clk", 8, 1, 0, false),
                ("a", 16, 10, 0, false),
                ("b", 32, 32, 0, false),
                ("c", 64, 41, 0, true),
                ("w", 0, 100, 4, false),
                ("o", 0, 100, 4, true),
                ("q", 8, 8, 0, true)
            ]
        );
    }

    #[test]
    fn no_ports_is_an_error() {
        assert!(parse_ports("class Vm {};").is_err());
        assert!(parse_ports("VL_INW(&w,99,0);").is_err());
    }

    #[test]
    fn shim_and_table_name_every_port() {
        let mut ports = parse_ports(HEADER).unwrap();
        ports.iter_mut().filter(|p| p.name == "q").for_each(|p| p.edge_only = true);
        let shim = render_shim("m", "Vm", &ports, false, &["w".to_string()], None);
        assert!(shim.contains("case 4: return static_cast<void*>(t->w.data());"));
        assert!(shim.contains("case 6: return static_cast<void*>(&t->q);"));
        let table = render_port_table("m", &ports);
        assert!(table.contains("{\"o\", 0, 100, 4, 1, 0},"));
        assert!(table.contains("{\"q\", 8, 8, 0, 1, 1},"));
        assert!(table.contains("uint32_t m_port_count() { return 7; }"));
        let mut rust = String::new();
        render_rust(&mut rust, "m", "a test", "", &ports, "crate::verilated", false);
        assert!(
            rust.contains(
                "crate::verilated::PortInfo { name: \"w\", kind: 0, width: 100, words: 4, output: false, edge_only: false },"
            )
        );
    }
}
