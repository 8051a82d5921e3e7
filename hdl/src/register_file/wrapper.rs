//! The Verilog wrapper of the register file: a module with plain port names
//! around the core, pure wiring. rust-hdl cannot give a block a number of
//! ports that depends on the configuration, so the wrapper is written here
//! as text: it declares the port list of [`ports`] (the AXI4-Lite slave, the
//! user clock, and one group per block instance, `toe_*`, `info_*`, `s<n>_*`),
//! packs the user ports into the core's 32-bit slot words and back, and
//! instantiates the core. The port list is data first and text second, so
//! [`register_file_ports`](super::register_file_ports) hands downstream
//! exactly what the text declares.

use std::fmt::Write as _;

use config::ports::{range, Direction, Group, Port};

use super::axi_lite::bus_ports;
use super::core_module;
use super::layout::{Cat, Layout, Piece, PortKind, UserPort};

/// `{N'd0, a, M'd0, b}` for pieces `(lsb, width, expr)` of a 32-bit word.
fn word_of(mut parts: Vec<(u32, u32, String)>) -> String {
    parts.sort_by_key(|p| std::cmp::Reverse(p.0));
    let mut items = Vec::new();
    let mut top = 32;
    for (lsb, width, expr) in parts {
        if lsb + width < top {
            items.push(format!("{}'d0", top - lsb - width));
        }
        items.push(expr);
        top = lsb;
    }
    if top > 0 {
        items.push(format!("{top}'d0"));
    }
    format!("{{{}}}", items.join(", "))
}

fn slice(name: &str, lsb: u32, width: u32) -> String {
    if width == 1 {
        format!("{name}[{lsb}]")
    } else {
        format!("{name}[{}:{lsb}]", lsb + width - 1)
    }
}

/// The wrapper's ports in declaration order: the AXI4-Lite slave's, the user
/// clock and reset, then the user ports of the layout, each in its group.
/// The wrapper declares exactly these ([`wrapper`]).
pub(super) fn ports(layout: &Layout) -> Vec<Port> {
    let mut ports = bus_ports();
    ports.push(Port::new(Group::Clock, "user_clk", Direction::Input, 1));
    ports.push(Port::new(Group::Clock, "user_rst", Direction::Input, 1));
    for p in &layout.ports {
        let direction = if p.output { Direction::Output } else { Direction::Input };
        ports.push(Port::new(p.group, &p.local, direction, p.width as usize));
    }
    ports
}

/// The comment above the declarations of a group in the wrapper.
fn group_comment(group: Group) -> String {
    match group {
        Group::Bus => "    // AXI4-Lite slave, s_axil_aclk domain".to_string(),
        Group::Clock => "\n    // User clock domain: clock, synchronous reset".to_string(),
        other => format!("\n    // {} registers", other.top_name("").trim_end_matches('_')),
    }
}

/// How the core the wrapper instantiates is written: by the project's
/// writer (`hdl::emit`: module `<module>_core`, instance `u_core`, slot
/// ports named after their registers, `s0_test_config_value`) or by
/// rust-hdl's, the lockstep test's reference (module `<module>$core`,
/// instance `core`, slot ports `value$<k>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CoreWriter {
    Emit,
    RustHdl,
}

/// What the map says of the field (or wide value) behind `port`: the first
/// sentence of its description, on one line; a `w1c` field's set input says
/// so.
fn port_comment(map: &regmap::RegisterMap, port: &UserPort) -> String {
    let parts: Vec<&str> = port.source.split('.').collect();
    let block = map.block(parts[0]);
    let text = match parts[..] {
        [_, register, field] => {
            block.and_then(|b| b.register(register)).and_then(|r| r.field(field)).map(|f| f.description.clone())
        }
        [_, wide] => block.and_then(|b| b.wides.iter().find(|w| w.name == wide)).map(|w| w.description.clone()),
        _ => None,
    }
    .unwrap_or_default();
    let sentence = crate::emit::sentence::first_sentence(&text);
    if port.kind == PortKind::Set {
        format!("Sets `{}` (one-cycle pulse): {sentence}", port.name.trim_end_matches("_set"))
    } else {
        sentence
    }
}

/// The wrapper `module` around the core: plain ports, pure wiring, each
/// field's port with what the map says of it.
pub(super) fn wrapper(layout: &Layout, map: &regmap::RegisterMap, module: &str, writer: CoreWriter) -> String {
    let ports = ports(layout);
    let mut v = String::new();
    let _ = writeln!(v, "// {module}: the register file, an AXI4-Lite slave in s_axil_aclk whose registers");
    let _ = writeln!(v, "// live in user_clk, generated from the register map (docs/register_file.md).");
    let _ = writeln!(v, "// Pure wiring: the core's 32-bit slot words to and from the fields' ports.");
    let _ = writeln!(v, "module {module} (");
    let mut group = None;
    let user: std::collections::BTreeMap<&str, &UserPort> = layout.ports.iter().map(|p| (p.name.as_str(), p)).collect();
    let decls: Vec<String> = ports
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let comma = if i + 1 < ports.len() { "," } else { "" };
            format!("{:6} wire {:7} {}{comma}", p.direction.keyword(), range(p.width), p.name)
        })
        .collect();
    let w = decls.iter().map(String::len).max().unwrap_or(0);
    for (p, decl) in ports.iter().zip(&decls) {
        if group != Some(p.group) {
            let _ = writeln!(v, "{}", group_comment(p.group));
            group = Some(p.group);
        }
        let comment = user.get(p.name.as_str()).map(|u| port_comment(map, u)).unwrap_or_default();
        if comment.is_empty() {
            let _ = writeln!(v, "    {}", decl.trim_end());
        } else {
            let _ = writeln!(v, "    {decl:w$} // {comment}");
        }
    }
    let _ = writeln!(v, ");");

    // Core outputs by slot, and the bits of each that reach a port.
    let kinds: [(&str, Cat, usize); 6] = [
        ("value", Cat::Storage, layout.storage.len()),
        ("pulse", Cat::Pulse, layout.pulse.len()),
        ("sticky", Cat::Sticky, layout.sticky.len()),
        ("set", Cat::Set, layout.sticky.len()),
        ("status", Cat::Status, layout.status.len()),
        ("latch_in", Cat::Latch, layout.latch.len()),
    ];
    // A slot word is named after its register, as the core names its port.
    let net = |name: &str, k: usize| layout.slot_name(&format!("{name}${k}")).unwrap_or_else(|| format!("{name}_{k}"));
    let _ = writeln!(v, "\n    wire [63:0] cycle_count;");
    for (name, cat, n) in kinds {
        let output = matches!(cat, Cat::Storage | Cat::Pulse | Cat::Sticky);
        for k in 0..n {
            if output {
                let _ = writeln!(v, "    wire [31:0] {};", net(name, k));
            } else {
                let mut parts = Vec::new();
                for (p, pieces) in layout.ports.iter().zip(&layout.pieces) {
                    for piece in pieces.iter().filter(|x| x.cat == cat && x.slot == k) {
                        let src = if p.kind == PortKind::Counter { "cycle_count" } else { p.name.as_str() };
                        let expr = if p.width == 1 && p.kind != PortKind::Counter {
                            src.to_string()
                        } else {
                            slice(src, piece.port_lsb, piece.width)
                        };
                        parts.push((piece.reg_lsb, piece.width, expr));
                    }
                }
                let _ = writeln!(v, "    wire [31:0] {} = {};", net(name, k), word_of(parts));
            }
        }
    }
    // Bits of a core output word that no port takes (a register's other
    // fields); Verilator's lint ignores signals named unused*.
    for (name, cat, n) in kinds.iter().take(3) {
        for k in 0..*n {
            let used: u32 = layout
                .pieces
                .iter()
                .flatten()
                .filter(|x| x.cat == *cat && x.slot == k)
                .fold(0, |m, x| m | (((1u64 << x.width) - 1) << x.reg_lsb) as u32);
            if used != u32::MAX {
                let _ = writeln!(v, "    wire unused_{0} = ^{0};", net(name, k));
            }
        }
    }

    let (core, instance) = match writer {
        CoreWriter::Emit => (core_module(module), "u_core"),
        CoreWriter::RustHdl => (format!("{module}$core"), "core"),
    };
    let _ = writeln!(v, "\n    {core} {instance} (");
    let mut conns: Vec<String> = Vec::new();
    // The core's bus and clock ports have the wrapper's names and widths:
    // the whole bus address reaches the core, which decodes every bit.
    for name in ports.iter().filter(|p| matches!(p.group, Group::Bus | Group::Clock)).map(|p| p.name.as_str()) {
        conns.push(format!("        .{name}({name})"));
    }
    conns.push("        .cycle_count(cycle_count)".into());
    for (name, _, n) in kinds {
        for k in 0..n {
            let port = match writer {
                CoreWriter::Emit => net(name, k),
                CoreWriter::RustHdl => format!("{name}${k}"),
            };
            conns.push(format!("        .{port}({})", net(name, k)));
        }
    }
    let _ = writeln!(v, "{}\n    );\n", conns.join(",\n"));
    for (p, pieces) in layout.ports.iter().zip(&layout.pieces) {
        if !p.output {
            continue;
        }
        if p.kind == PortKind::Counter {
            let _ = writeln!(v, "    assign {} = cycle_count;", p.name);
            continue;
        }
        let mut parts: Vec<&Piece> = pieces.iter().collect();
        parts.sort_by_key(|x| std::cmp::Reverse(x.port_lsb));
        let items: Vec<String> = parts
            .iter()
            .map(|x| {
                let wire = match x.cat {
                    Cat::Storage => "value",
                    Cat::Pulse => "pulse",
                    _ => "sticky",
                };
                slice(&net(wire, x.slot), x.reg_lsb, x.width)
            })
            .collect();
        let rhs = if items.len() == 1 { items[0].clone() } else { format!("{{{}}}", items.join(", ")) };
        let _ = writeln!(v, "    assign {} = {rhs};", p.name);
    }
    let _ = writeln!(v, "endmodule");
    v
}
