//! The block tree as the emitter needs it: every block instance with its
//! field name, Rust type, signals and code, read by one rust-hdl `Probe`
//! walk (the walk rust-hdl's own Verilog writer and the port plan use).

use std::collections::{BTreeMap, BTreeSet};

use rust_hdl::core::ast::Verilog;
use rust_hdl::core::atom::{is_atom_signed, Atom, AtomKind};
use rust_hdl::core::type_descriptor::{TypeDescriptor, TypeKind};
use rust_hdl::prelude::*;

use super::module_name::MARK;

/// One signal or constant of a block, named as rust-hdl's code refers to it
/// (`iface$field` inside an interface).
#[derive(Clone, Debug)]
pub struct AtomInfo {
    pub name: String,
    pub kind: AtomKind,
    pub width: usize,
    pub signed: bool,
    /// The value, for a constant.
    pub literal: String,
}

/// One variant of an enum a block's signals carry: `State::Idle` is 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnumValue {
    /// `State$Idle`, as rust-hdl's code writes it.
    pub rust: String,
    pub value: usize,
}

/// One block instance.
#[derive(Debug)]
pub struct Node {
    /// The field that holds it in its parent (`tx_limiter`, `storage$3` in
    /// an array); the caller's module name for the root.
    pub field: String,
    /// Its Rust type's name, from its [`ModuleName`](super::ModuleName)
    /// field (none for rust-hdl's own blocks, such as `DFF`).
    pub rust_type: Option<String>,
    pub code: Verilog,
    pub atoms: Vec<AtomInfo>,
    pub enums: Vec<EnumValue>,
    pub children: Vec<usize>,
}

/// All instances, the root first.
#[derive(Debug, Default)]
pub struct Tree {
    pub nodes: Vec<Node>,
    stack: Vec<usize>,
    namespace: Vec<String>,
}

impl Tree {
    pub fn of<B: Block>(block: &B, root: &str) -> Tree {
        let mut tree = Tree::default();
        block.accept(root, &mut tree);
        tree
    }

    /// Per block type, the constants whose values differ between its
    /// instances: the module's parameters, which each instance sets. A
    /// constant all instances agree on stays a `localparam`.
    pub fn parameters(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut values: BTreeMap<(&str, &str), BTreeSet<&str>> = BTreeMap::new();
        for node in &self.nodes {
            let Some(t) = &node.rust_type else { continue };
            for a in node.atoms.iter().filter(|a| a.kind == AtomKind::Constant) {
                values.entry((t, &a.name)).or_default().insert(&a.literal);
            }
        }
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for ((t, name), v) in values {
            if v.len() > 1 {
                out.entry(t.to_string()).or_default().insert(name.to_string());
            }
        }
        out
    }

    fn current(&mut self) -> &mut Node {
        let at = *self.stack.last().expect("a signal outside any block");
        &mut self.nodes[at]
    }
}

fn add_enums(out: &mut Vec<EnumValue>, descriptor: &TypeDescriptor) {
    match &descriptor.kind {
        TypeKind::Enum(labels) => {
            for (value, label) in labels.iter().enumerate() {
                let e = EnumValue { rust: label.replace("::", "$"), value };
                if !out.contains(&e) {
                    out.push(e);
                }
            }
        }
        TypeKind::Composite(fields) => fields.iter().for_each(|f| add_enums(out, &f.kind)),
        _ => {}
    }
}

impl Probe for Tree {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        let at = self.nodes.len();
        self.nodes.push(Node {
            field: name.to_string(),
            rust_type: None,
            code: node.hdl(),
            atoms: Vec::new(),
            enums: Vec::new(),
            children: Vec::new(),
        });
        if let Some(&parent) = self.stack.last() {
            self.nodes[parent].children.push(at);
        }
        self.stack.push(at);
        self.namespace.clear();
    }

    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        if let Some(rust_type) = name.strip_prefix(MARK) {
            self.current().rust_type = Some(rust_type.to_string());
        }
        self.namespace.push(name.to_string());
    }

    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let mut path = self.namespace.clone();
        path.push(name.to_string());
        let atom = AtomInfo {
            name: path.join("$"),
            kind: signal.kind(),
            width: signal.bits(),
            signed: is_atom_signed(signal),
            literal: signal.verilog().to_string(),
        };
        let descriptor = signal.descriptor();
        let parent = self.stack.len().checked_sub(2).map(|p| self.stack[p]);
        add_enums(&mut self.current().enums, &descriptor);
        // A parent's code compares its children's enum-typed ports too.
        if let Some(p) = parent {
            add_enums(&mut self.nodes[p].enums, &descriptor);
        }
        self.current().atoms.push(atom);
    }

    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        self.namespace.pop();
    }

    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.stack.pop();
    }
}
