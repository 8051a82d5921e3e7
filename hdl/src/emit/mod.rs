//! The project's own Verilog writer for its blocks: one module per block
//! type, named after the Rust type, one file each.
//!
//! rust-hdl keeps describing, checking and simulating the blocks; this
//! module walks the same block tree (a rust-hdl `Probe`, [`tree`]) and prints
//! each block's `#[hdl_gen]` code through rust-hdl's own printer, then maps
//! its names and lays the module out as a person would:
//!
//! - module `<prefix>_<block>` (`RateLimiter` -> `toe_user_logic_rate_limiter`),
//!   its body written once however many instances use it;
//! - an instance per child block, `u_<field>`, ports connected by name; a
//!   child input fed straight from one of the parent's inputs or registers
//!   or from a sibling's output, and a parent output fed straight from a
//!   child output, are wired to it directly;
//! - constants upper case; a constant the instances of one block type differ
//!   in (a register word's address) is a module parameter that each instance
//!   sets ([`Tree::parameters`]), so the body is still written once;
//! - names and comments a caller knows better ([`Naming`]: the register file
//!   names each word after its register and notes its fields above it);
//! - a rust-hdl `DFF` child `x` becomes `reg x_reg` (its initial value as
//!   the declaration's) with its next value `x_next`, assigned in the
//!   module's clocked block, not a module of its own;
//! - ANSI ports under the banners of the Rust struct (`// ---- ...`), each
//!   with its doc's first sentence; the module opens with the Rust file's
//!   opening paragraph and diagram ([`docs`]);
//! - no `$` anywhere: `iface$field` is `iface_field`, an enum value
//!   `State::OpenReq` is the constant `STATE_OPEN_REQ`.
//!
//! rust-hdl's own writer (`ModuleDefines`) stays the reference the lockstep
//! test compares this one with, cycle by cycle.

pub mod docs;
pub mod module_name;
pub mod names;
pub mod sentence;
mod tree;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use rust_hdl::core::ast::Verilog;
use rust_hdl::core::atom::AtomKind;
use rust_hdl::core::verilog_gen::{verilog_combinatorial, verilog_link_extraction};
use rust_hdl::prelude::*;

pub use module_name::{ModuleName, MARK};

use crate::verilog::HdlError;
use tree::{AtomInfo, Node, Tree};

/// One generated module: its name (also its file's, `<name>.v`) and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    pub name: String,
    pub text: String,
}

impl Module {
    /// The module as a file on its own, framed as the build frames it
    /// ([`config::framed_verilog`]) but without the build's banner (for
    /// tests that lint or verilate modules outside a build).
    pub fn file_text(&self) -> String {
        config::framed_verilog(&self.text)
    }
}

/// The modules of `block`, children before their parents, the root last and
/// named `root`; every other module is `<prefix>_<block type>`. Runs
/// rust-hdl's checks first, as its own writer does.
pub fn emit<B: Block>(block: &mut B, root: &str, prefix: &str) -> Result<Vec<Module>, HdlError> {
    emit_named(block, root, prefix, &FieldNames)
}

/// Names and notes a caller knows better than the blocks' fields do. A field
/// is given by its path from the root block: `storage_slot$3` in the root,
/// `bus.check$1` in its child `bus`.
pub trait Naming {
    /// The Verilog stem of the field at `path`, when not the field's own:
    /// `s0_test_config_storage` for `storage_slot$3` is then the stem of
    /// that instance (`u_s0_test_config_storage`), flip-flop
    /// (`..._reg`), port, signal or constant.
    fn name(&self, path: &str) -> Option<String>;

    /// The comment above the instance of the child block at `path`, when it
    /// should say more than the instance's name.
    fn note(&self, _path: &str) -> Option<String> {
        None
    }
}

/// Every field named after itself.
pub struct FieldNames;

impl Naming for FieldNames {
    fn name(&self, _path: &str) -> Option<String> {
        None
    }
}

/// [`emit`], with names and notes from `names`. The register file names its
/// slots after their registers this way. A module body is still written once
/// per block type, so the names inside a block used more than once must not
/// depend on the instance.
pub fn emit_named<B: Block>(
    block: &mut B,
    root: &str,
    prefix: &str,
    names: &dyn Naming,
) -> Result<Vec<Module>, HdlError> {
    block.connect_all();
    check_all(block).map_err(|e| HdlError(format!("rust-hdl check of `{root}` failed: {e:?}")))?;
    let tree = Tree::of(block, root);
    let parameters = tree.parameters();
    let mut out = Emitter { tree: &tree, prefix, names, parameters, modules: Vec::new(), paths: BTreeMap::new() };
    out.module(0, root, root, "")?;
    Ok(out.modules)
}

/// The direct child blocks of `block` (flip-flops aside): (instance field,
/// module name) as [`emit`] with `prefix` names them.
pub fn children<B: Block>(block: &mut B, prefix: &str) -> Vec<(String, String)> {
    block.connect_all();
    let tree = Tree::of(block, "root");
    tree.nodes[0]
        .children
        .iter()
        .map(|&c| &tree.nodes[c])
        .filter_map(|n| n.rust_type.as_ref().map(|t| (ident(&n.field), module_of(prefix, t))))
        .collect()
}

/// The module of a block of Rust type `rust_type`: `<prefix>_<snake case>`.
fn module_of(prefix: &str, rust_type: &str) -> String {
    format!("{prefix}_{}", module_name::snake_case(rust_type))
}

struct Emitter<'a> {
    tree: &'a Tree,
    prefix: &'a str,
    /// The caller's names ([`emit_named`]).
    names: &'a dyn Naming,
    /// Per block type, the constants its instances differ in: module
    /// parameters, set by each instance ([`Tree::parameters`]).
    parameters: BTreeMap<String, BTreeSet<String>>,
    modules: Vec<Module>,
    /// The instance path that first produced each module, for errors.
    paths: BTreeMap<String, String>,
}

/// A `DFF` child, inlined as `<name>_reg` / `<name>_next`.
struct Flop {
    /// The Rust field (`storage$3` in an array).
    field: String,
    /// Its Verilog stem (`storage_3`).
    name: String,
    width: usize,
    signed: bool,
    init: String,
}

/// A signal declared in the parent for an instance port that is not wired
/// straight to one of the parent's own signals.
struct Net {
    name: String,
    width: usize,
    signed: bool,
    /// Assigned in the parent's `always @(*)` block (an instance input).
    is_reg: bool,
}

/// One instance's port connections (port, net) and the [`Net`]s declared for it.
type Wiring = (Vec<(String, String)>, Vec<Net>);

/// A child block instance.
struct Instance<'n> {
    /// Its Verilog stem (`tx_limiter`, or the caller's name): the instance
    /// is `u_<field>`.
    field: String,
    module: String,
    node: &'n Node,
    /// The comment above it.
    note: String,
    /// The parameters it sets: (name, value).
    parameters: Vec<(String, String)>,
    /// Its module's Verilog name of each of its signals and constants.
    names: BTreeMap<String, String>,
}

/// What [`Emitter::module`] returns: the module's name, and its Verilog
/// name of each signal and constant by rust-hdl's name.
type Emitted = (String, BTreeMap<String, String>);

fn ident(field: &str) -> String {
    field.replace('$', "_")
}

/// A rust-hdl `DFF`: custom code `q <= d` over exactly `d`, `q`, `clock`.
fn as_flop(node: &Node) -> Option<Flop> {
    let Verilog::Custom(code) = &node.code else { return None };
    let mut names: Vec<&str> = node.atoms.iter().map(|a| a.name.as_str()).collect();
    names.sort_unstable();
    if node.rust_type.is_some()
        || !node.children.is_empty()
        || names != ["clock", "d", "q"]
        || !code.contains("q <= d;")
    {
        return None;
    }
    let q = node.atoms.iter().find(|a| a.name == "q")?;
    let init = code.split("q = ").nth(1)?.split(';').next()?.trim().to_string();
    Some(Flop {
        field: node.field.clone(),
        name: ident(&node.field),
        width: q.width,
        signed: q.signed,
        init: sized_literal(&init, q.width),
    })
}

/// rust-hdl initialises an enum-typed flip-flop with `64'h0` whatever its
/// width: the same value at the flip-flop's own width.
fn sized_literal(literal: &str, width: usize) -> String {
    if let Some((bits, digits)) = literal.split_once("'h") {
        if let (Ok(bits), Ok(value)) = (bits.parse::<usize>(), u128::from_str_radix(&digits.replace('_', ""), 16)) {
            if bits != width && (width >= 128 || value >> width == 0) {
                return format!("{width}'h{value:x}");
            }
        }
    }
    literal.to_string()
}

/// The top-level statements `a = b;` of an `always @(*)` body as printed by
/// rust-hdl: (line index, target, source).
fn plain_assignments(lines: &[String]) -> Vec<(usize, String, String)> {
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(stmt) = line.strip_prefix("    ") else { continue };
        if stmt.starts_with(' ') {
            continue;
        }
        let Some((lhs, rhs)) = stmt.strip_suffix(';').and_then(|s| s.split_once(" = ")) else { continue };
        let word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$');
        if word(lhs) && word(rhs) && !rhs.as_bytes()[0].is_ascii_digit() {
            found.push((i, lhs.to_string(), rhs.to_string()));
        }
    }
    found
}

impl<'a> Emitter<'a> {
    /// Emits the module of node `at` (and first its children's) and returns
    /// its name and the Verilog name of each of its signals and constants
    /// (by rust-hdl's name), which its parent's instance uses for the port
    /// and parameter names. `rel` is the node's path from the root for
    /// [`Naming`] (empty for the root, `bus.` for its child `bus`).
    fn module(&mut self, at: usize, name: &str, path: &str, rel: &str) -> Result<Emitted, HdlError> {
        let tree = self.tree;
        let node = &tree.nodes[at];
        let err = |what: String| HdlError(format!("`{path}`: {what}"));
        let names = self.names;
        // The Verilog stem of one of this block's fields or signals.
        let own = |field: &str| names.name(&format!("{rel}{field}")).unwrap_or_else(|| ident(field));
        let rust_type = node.rust_type.clone().ok_or_else(|| {
            err("a block without a `verilog_name: ModuleName<Self>` field (its Verilog would have no name)".into())
        })?;
        let parameters = self.parameters.get(&rust_type).cloned().unwrap_or_default();
        // Constants are upper case, as Verilog parameters are.
        let vnames: BTreeMap<&str, String> = node
            .atoms
            .iter()
            .map(|a| {
                let n = own(&a.name);
                (a.name.as_str(), if a.kind == AtomKind::Constant { n.to_uppercase() } else { n })
            })
            .collect();
        let vname = |n: &str| vnames.get(n).cloned().unwrap_or_else(|| ident(n));
        let doc =
            docs::find(&rust_type).ok_or_else(|| err(format!("no documentation table entry for `{rust_type}`")))?;

        // Children: flip-flops inline, blocks as instances.
        let mut flops = Vec::new();
        let mut instances = Vec::new();
        for &c in &node.children {
            let child = &tree.nodes[c];
            if let Some(mut flop) = as_flop(child) {
                flop.name = own(&child.field);
                flops.push(flop);
            } else if let Some(t) = &child.rust_type {
                let (module, child_names) = self.module(
                    c,
                    &module_of(self.prefix, t),
                    &format!("{path}.{}", child.field),
                    &format!("{rel}{}.", child.field),
                )?;
                let field = own(&child.field);
                let note = names.note(&format!("{rel}{}", child.field)).unwrap_or_else(|| field.clone());
                let set = self.parameters.get(t);
                let parameters = child
                    .atoms
                    .iter()
                    .filter(|a| a.kind == AtomKind::Constant && set.is_some_and(|s| s.contains(&a.name)))
                    .map(|a| (child_names[&a.name].clone(), a.literal.clone()))
                    .collect();
                instances.push(Instance { field, module, node: child, note, parameters, names: child_names });
            } else {
                return Err(err(format!(
                    "child `{}` is neither a flip-flop nor a block with a `ModuleName` field",
                    child.field
                )));
            }
        }

        let (always, custom) = match &node.code {
            Verilog::Combinatorial(code) => {
                if !verilog_link_extraction(code).is_empty() {
                    return Err(err("signal links are not supported".into()));
                }
                (Some(verilog_combinatorial(code)), None)
            }
            Verilog::Custom(text) => (None, Some(text.clone())),
            _ => return Err(err("neither `#[hdl_gen]` code nor custom Verilog".into())),
        };
        if custom.is_some() && !(flops.is_empty() && instances.is_empty()) {
            return Err(err("custom Verilog with child blocks".into()));
        }
        let mut lines: Vec<String> = always.as_deref().unwrap_or("").lines().map(str::to_string).collect();
        // How often each name occurs in the code: a copy `a = b;` is only
        // dropped for a direct connection when it is `a`'s one use.
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for id in names::identifiers(always.as_deref().unwrap_or("")) {
            *counts.entry(id).or_default() += 1;
        }
        let uses = |id: &str| counts.get(id).copied().unwrap_or(0);

        let ports: Vec<&AtomInfo> = node.atoms.iter().filter(|a| a.kind.is_parameter()).collect();
        let inputs: BTreeSet<&str> =
            ports.iter().filter(|a| a.kind == AtomKind::InputParameter).map(|a| a.name.as_str()).collect();
        let outputs: BTreeSet<&str> =
            ports.iter().filter(|a| a.kind == AtomKind::OutputParameter).map(|a| a.name.as_str()).collect();

        // Flip-flop clocks: `x$clock = <input>;`, the only write to it.
        let assigns = plain_assignments(&lines);
        let mut drop_lines = BTreeSet::new();
        let mut flop_clock = BTreeMap::new();
        for f in &flops {
            let stub = format!("{}$clock", f.field);
            let found = assigns.iter().find(|(_, lhs, rhs)| *lhs == stub && inputs.contains(rhs.as_str()));
            match found {
                Some((line, _, rhs)) if uses(&stub) == 1 => {
                    drop_lines.insert(*line);
                    flop_clock.insert(f.name.clone(), rhs.clone());
                }
                _ => return Err(err(format!("flip-flop `{}` is not clocked straight from an input port", f.field))),
            }
        }

        // Instance ports: wired straight to the parent's ports, or to
        // another instance's output, where the code only copies them, else
        // through `<field>_<port>` signals. Outputs first, so that an input
        // copied from a sibling's output knows that output's net.
        let mut rename: BTreeMap<String, String> = BTreeMap::new();
        // Per instance: its port connections (port, net), and the signals
        // declared for the ones not wired directly.
        let mut connections: Vec<Wiring> = Vec::new();
        let mut wire_outputs = BTreeSet::new();
        let mut output_nets: BTreeMap<String, String> = BTreeMap::new();
        let mut per_instance: Vec<(BTreeMap<String, String>, Vec<Net>)> = Vec::new();
        for inst in &instances {
            let mut nets = Vec::new();
            let mut chosen = BTreeMap::new();
            for p in inst.node.atoms.iter().filter(|a| a.kind == AtomKind::OutputParameter) {
                let stub = format!("{}${}", inst.node.field, p.name);
                let direct = assigns
                    .iter()
                    .find(|(_, lhs, rhs)| {
                        *rhs == stub && outputs.contains(lhs.as_str()) && !wire_outputs.contains(lhs) && uses(lhs) == 1
                    })
                    .map(|(line, lhs, _)| (*line, vname(lhs)));
                let net = match direct {
                    Some((line, to)) => {
                        drop_lines.insert(line);
                        wire_outputs.insert(to.clone());
                        to
                    }
                    None => {
                        let net = format!("{}_{}", inst.field, ident(&p.name));
                        nets.push(Net { name: net.clone(), width: p.width, signed: p.signed, is_reg: false });
                        net
                    }
                };
                output_nets.insert(stub, net.clone());
                chosen.insert(p.name.clone(), net);
            }
            per_instance.push((chosen, nets));
        }
        for (inst, (mut chosen, mut nets)) in instances.iter().zip(per_instance) {
            let mut conns = Vec::new();
            for p in inst.node.atoms.iter().filter(|a| a.kind.is_parameter()) {
                let stub = format!("{}${}", inst.node.field, p.name);
                if p.kind == AtomKind::InputParameter {
                    // An input fed from one of the parent's inputs or
                    // registers, or from a sibling's output (none of them is
                    // assigned in the code), is wired to it.
                    let steady = |rhs: &str| {
                        inputs.contains(rhs)
                            || output_nets.contains_key(rhs)
                            || rhs.strip_suffix("$q").is_some_and(|f| flops.iter().any(|flop| flop.field == f))
                    };
                    let direct =
                        assigns.iter().find(|(_, lhs, rhs)| *lhs == stub && steady(rhs)).filter(|_| uses(&stub) == 1);
                    let net = match direct {
                        Some((line, _, rhs)) => {
                            drop_lines.insert(*line);
                            match (output_nets.get(rhs), rhs.strip_suffix("$q")) {
                                (Some(net), _) => net.clone(),
                                (None, Some(f)) if !inputs.contains(rhs.as_str()) => format!("{}_reg", own(f)),
                                _ => vname(rhs),
                            }
                        }
                        None => {
                            let net = format!("{}_{}", inst.field, ident(&p.name));
                            nets.push(Net { name: net.clone(), width: p.width, signed: p.signed, is_reg: true });
                            net
                        }
                    };
                    chosen.insert(p.name.clone(), net);
                }
                let net = chosen[&p.name].clone();
                rename.insert(stub, net.clone());
                // The port as the child's module names it.
                conns.push((inst.names[&p.name].clone(), net));
            }
            connections.push((conns, nets));
        }
        lines = lines.into_iter().enumerate().filter(|(i, _)| !drop_lines.contains(i)).map(|(_, l)| l).collect();

        for f in &flops {
            rename.insert(format!("{}$d", f.field), format!("{}_next", f.name));
            rename.insert(format!("{}$q", f.field), format!("{}_reg", f.name));
        }
        for a in &node.atoms {
            if vnames[a.name.as_str()] != a.name {
                rename.insert(a.name.clone(), vnames[a.name.as_str()].clone());
            }
        }
        let mut enums_used = Vec::new();
        for e in &node.enums {
            rename.insert(e.rust.clone(), names::enum_constant(&e.rust));
        }
        let body_source = match &custom {
            Some(text) => text.clone(),
            None => lines.join("\n"),
        };
        let unknown = std::cell::RefCell::new(BTreeSet::new());
        let body = names::rename(&body_source, &|id| {
            if let Some(new) = rename.get(id) {
                return Some(new.clone());
            }
            if id.contains('$') {
                unknown.borrow_mut().insert(id.to_string());
            }
            None
        });
        if let Some(id) = unknown.borrow().iter().next() {
            return Err(err(format!("no Verilog name for `{id}`")));
        }
        let body_ids: BTreeSet<String> = names::identifiers(&body).into_iter().collect();
        for e in &node.enums {
            let name = names::enum_constant(&e.rust);
            if body_ids.contains(&name) {
                enums_used.push((name, e.value));
            }
        }

        // Declarations must not collide once the `$` is gone.
        let mut declared = BTreeSet::new();
        let mut declare = |n: &str| -> Result<(), HdlError> {
            if declared.insert(n.to_string()) {
                Ok(())
            } else {
                Err(err(format!("two signals are both named `{n}` in Verilog")))
            }
        };
        for a in &node.atoms {
            declare(&vnames[a.name.as_str()])?;
        }
        for f in &flops {
            declare(&format!("{}_reg", f.name))?;
            declare(&format!("{}_next", f.name))?;
        }
        for n in connections.iter().flat_map(|(_, nets)| nets) {
            declare(&n.name)?;
        }
        for (n, _) in &enums_used {
            declare(n)?;
        }
        for i in &instances {
            declare(&instance_name(&i.field))?;
        }
        let (params, consts): (Vec<&AtomInfo>, Vec<&AtomInfo>) =
            node.atoms.iter().filter(|a| a.kind == AtomKind::Constant).partition(|a| parameters.contains(&a.name));

        // The text.
        let mut t = String::new();
        let _ = writeln!(t, "// {name}: Rust block `{}` ({})\n//", doc.rust_name, doc.file);
        for line in doc.banner {
            let _ = writeln!(t, "//{}{line}", if line.is_empty() { "" } else { " " });
        }
        if params.is_empty() {
            let _ = writeln!(t, "module {name} (");
        } else {
            // Each instance sets every parameter; the default is zero.
            let _ = writeln!(t, "module {name} #(");
            let rows: Vec<(String, &str)> = params
                .iter()
                .map(|p| {
                    let decl =
                        format!("parameter {} {} = {}'h0", decl_type(p.width, false), vnames[p.name.as_str()], p.width);
                    let d = doc.ports.iter().find(|d| d.name == p.name).map_or("", |d| d.doc);
                    (decl.replace("  ", " "), d)
                })
                .collect();
            let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0) + 1;
            for (k, (decl, d)) in rows.iter().enumerate() {
                let decl = format!("{decl}{}", if k + 1 < rows.len() { "," } else { "" });
                if d.is_empty() {
                    let _ = writeln!(t, "    {decl}");
                } else {
                    let _ = writeln!(t, "    {decl:w$} // {d}");
                }
            }
            t.push_str(") (\n");
        }
        let port_lines = self.port_lines(&ports, &vnames, doc, &wire_outputs, custom.is_some(), &err)?;
        t.push_str(&port_lines);
        t.push_str(");\n");

        if !consts.is_empty() {
            t.push_str("\n    // Constants\n");
            for c in &consts {
                let _ = writeln!(t, "    localparam {} = {};", vnames[c.name.as_str()], c.literal);
            }
        }
        if !enums_used.is_empty() {
            t.push_str("\n    // States\n");
            for (n, v) in &enums_used {
                let _ = writeln!(t, "    localparam {n} = {v};");
            }
        }
        if !flops.is_empty() {
            t.push_str("\n    // Registers: <name>_reg and the value it takes at the next clock edge, <name>_next\n");
            let w = flops.iter().map(|f| decl_type(f.width, f.signed).len()).max().unwrap_or(0);
            let attributes = flop_attributes(&rust_type);
            for f in &flops {
                let ty = decl_type(f.width, f.signed);
                if let Some(a) = attributes {
                    let _ = writeln!(t, "    {a}");
                }
                let _ = writeln!(t, "    {} = {};", declaration("reg", &ty, w, &format!("{}_reg", f.name)), f.init);
                let _ = writeln!(t, "    {};", declaration("reg", &ty, w, &format!("{}_next", f.name)));
            }
        }
        let locals: Vec<&AtomInfo> = node.atoms.iter().filter(|a| a.kind == AtomKind::LocalSignal).collect();
        if !locals.is_empty() {
            t.push_str("\n    // Combinational signals\n");
            let w = locals.iter().map(|a| decl_type(a.width, a.signed).len()).max().unwrap_or(0);
            for a in &locals {
                let _ = writeln!(
                    t,
                    "    {};",
                    declaration("reg", &decl_type(a.width, a.signed), w, &vnames[a.name.as_str()])
                );
            }
        }
        for (inst, (conns, nets)) in instances.iter().zip(&connections) {
            let _ = writeln!(t, "\n    // {}", inst.note);
            let w = nets.iter().map(|n| decl_type(n.width, n.signed).len()).max().unwrap_or(0);
            for n in nets {
                let kind = if n.is_reg { "reg " } else { "wire" };
                let _ = writeln!(t, "    {};", declaration(kind, &decl_type(n.width, n.signed), w, &n.name));
            }
            if inst.parameters.is_empty() {
                let _ = writeln!(t, "    {} {} (", inst.module, instance_name(&inst.field));
            } else {
                let _ = writeln!(t, "    {} #(", inst.module);
                let pw = inst.parameters.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
                for (k, (p, v)) in inst.parameters.iter().enumerate() {
                    let comma = if k + 1 < inst.parameters.len() { "," } else { "" };
                    let _ = writeln!(t, "        .{p:pw$}({v}){comma}");
                }
                let _ = writeln!(t, "    ) {} (", instance_name(&inst.field));
            }
            let pw = conns.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
            for (k, (p, net)) in conns.iter().enumerate() {
                let comma = if k + 1 < conns.len() { "," } else { "" };
                let _ = writeln!(t, "        .{p:pw$}({net}){comma}");
            }
            t.push_str("    );\n");
        }
        if !body.trim().is_empty() {
            t.push('\n');
            for line in body.trim_end().lines() {
                if line.trim().is_empty() {
                    t.push('\n');
                } else {
                    let _ = writeln!(t, "    {line}");
                }
            }
        }
        let mut by_clock: BTreeMap<&String, Vec<&Flop>> = BTreeMap::new();
        for f in &flops {
            by_clock.entry(&flop_clock[&f.name]).or_default().push(f);
        }
        for (clock, fs) in by_clock {
            let _ = writeln!(t, "\n    always @(posedge {}) begin", vname(clock));
            let w = fs.iter().map(|f| f.name.len() + 4).max().unwrap_or(0);
            for f in fs {
                let _ = writeln!(t, "        {:w$} <= {}_next;", format!("{}_reg", f.name), f.name);
            }
            t.push_str("    end\n");
        }
        let _ = write!(t, "\nendmodule\n");

        if let Some(existing) = self.modules.iter().find(|m| m.name == name) {
            if existing.text != t {
                return Err(HdlError(format!(
                    "`{path}` and `{}` are both `{name}` but differ (other constants?)",
                    self.paths[name]
                )));
            }
        } else {
            self.paths.insert(name.to_string(), path.to_string());
            self.modules.push(Module { name: name.to_string(), text: t });
        }
        let own_names = vnames.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        Ok((name.to_string(), own_names))
    }

    fn port_lines(
        &self,
        ports: &[&AtomInfo],
        vnames: &BTreeMap<&str, String>,
        doc: &docs::BlockDoc,
        wire_outputs: &BTreeSet<String>,
        custom: bool,
        err: &dyn Fn(String) -> HdlError,
    ) -> Result<String, HdlError> {
        let mut rows = Vec::new();
        for p in ports {
            let name = vnames[p.name.as_str()].clone();
            // An element of a `Vec` of ports (`value$3`) has its field's doc.
            let field = match p.name.rsplit_once('$') {
                Some((field, index)) if index.bytes().all(|b| b.is_ascii_digit()) => field,
                _ => p.name.as_str(),
            };
            let d = doc
                .ports
                .iter()
                .find(|d| d.name == field)
                .ok_or_else(|| err(format!("port `{}` has no doc comment entry in {}", p.name, doc.file)))?;
            let dir = match p.kind {
                AtomKind::InputParameter => "input  wire",
                AtomKind::OutputParameter if custom || !wire_outputs.contains(&name) => "output reg ",
                AtomKind::OutputParameter | AtomKind::OutputPassthrough => "output wire",
                _ => "inout  wire",
            };
            let ty = format!("{dir} {}", decl_type(p.width, p.signed)).trim_end().to_string();
            rows.push((d.group, ty, name, d.doc));
        }
        let tw = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
        let nw = rows.iter().map(|r| r.2.len()).max().unwrap_or(0) + 1;
        let mut t = String::new();
        let mut group = None;
        for (k, (g, ty, name, d)) in rows.iter().enumerate() {
            if group != Some(*g) {
                let _ = writeln!(
                    t,
                    "{}    // {}",
                    if group.is_some() { "\n" } else { "" },
                    if g.is_empty() { "Ports" } else { g }
                );
                group = Some(*g);
            }
            let sep = if k + 1 < rows.len() { "," } else { "" };
            let named = format!("{name}{sep}");
            if d.is_empty() {
                let _ = writeln!(t, "    {ty:tw$} {named}");
            } else {
                let _ = writeln!(t, "    {ty:tw$} {named:nw$} // {d}");
            }
        }
        Ok(t)
    }
}

/// The attributes the vendor tools read on every flip-flop of a block of
/// type `rust_type`: a synchroniser's are `ASYNC_REG` (Vivado) and
/// synchroniser identification (Quartus).
fn flop_attributes(rust_type: &str) -> Option<&'static str> {
    (rust_type == module_name::rust_type_name::<crate::cdc::SyncBit>()).then_some(crate::cdc::SYNCHRONISER_ATTRIBUTES)
}

/// The Verilog name of the instance of child block `field`.
pub fn instance_name(field: &str) -> String {
    format!("u_{}", ident(field))
}

/// The Verilog name of the register of flip-flop field `field`.
pub fn register_name(field: &str) -> String {
    format!("{}_reg", ident(field))
}

/// `reg [7:0] name` with the type padded to `w` columns, `reg name` when no
/// declaration of the group has a type.
fn declaration(kind: &str, ty: &str, w: usize, name: &str) -> String {
    if w == 0 {
        format!("{} {name}", kind.trim_end())
    } else {
        format!("{kind} {ty:w$} {name}")
    }
}

/// `[7:0]` or `signed [7:0]`, empty for one unsigned bit.
fn decl_type(width: usize, signed: bool) -> String {
    let range = config::ports::range(width);
    if signed { format!("signed {range}") } else { range }.trim_end().to_string()
}
