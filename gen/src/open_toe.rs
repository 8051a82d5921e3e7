//! The open engine (`toe.core = "open"`, `docs/open_engine.md`) as one
//! module, `<name>_toe`, that the top instantiates in place of the licensed
//! core: the network node (`hdl::net`), a counter for every node event
//! (`hdl::open_toe::EventCounter`, one per `net_model::Counter`), and, while
//! the engine has no TCP (part 1), a refusal for every session's open
//! request (`hdl::open_toe::ConnRefuser`).
//!
//! ```text
//!  mac_rx_* --> u_node (<name>_net_node) --> mac_tx_*
//!  toe_init, toe_mode, toe_*_mac/ip, net_arp_* --> u_node --> toe_init_done, net_target_known, net_arp_failed, net_resolved_mac
//!  u_node event pulses --> u_count_<counter> (<name>_event_counter) --> net_<counter>
//!  toe<s>_conn_req_* --> u_refuse<s> (<name>_conn_refuser) --> toe<s>_conn_req_ready, toe<s>_conn_error
//! ```
//!
//! The engine's ports are the TOE side of the session interface (the
//! top's `toe_*` and `toe<s>_*` nets, flipped), the register file's `net`
//! block (flipped), the clock and reset, and the network port (`mac_*`,
//! [`Group::Mac`]). Everything is derived from the port lists of the blocks
//! it joins; the node's event ports are named as the model's counters.

use askama::Template;
use config::ports::{range, Direction, Group, Port, PortPlan};
use net_model::Counter;

use crate::rtl::{header_groups, Conn, PortGroup, Wire};
use crate::GenError;

/// Name of the open engine's module.
pub fn engine_module(design: &config::Design) -> String {
    format!("{}_toe", design.name)
}

/// The node's port each engine net drives or takes, by the node's port name:
/// (node port, engine net).
const NODE_WIRING: [(&str, &str); 21] = [
    ("clock", "user_clk"),
    ("reset", "user_rst"),
    ("s_tdata", "mac_rx_tdata"),
    ("s_tkeep", "mac_rx_tkeep"),
    ("s_tlast", "mac_rx_tlast"),
    ("s_tvalid", "mac_rx_tvalid"),
    ("s_tuser", "mac_rx_tuser"),
    ("m_tdata", "mac_tx_tdata"),
    ("m_tkeep", "mac_tx_tkeep"),
    ("m_tlast", "mac_tx_tlast"),
    ("m_tvalid", "mac_tx_tvalid"),
    ("m_tready", "mac_tx_tready"),
    ("fpga_mac", "toe_fpga_mac"),
    ("fpga_ip", "toe_fpga_ip"),
    ("target_ip", "toe_target_ip"),
    ("fixed_mac", "toe_target_mac"),
    ("mode", "toe_mode"),
    ("init", "toe_init"),
    ("init_done", "toe_init_done"),
    ("arp_retry_cycles", "net_arp_retry_cycles"),
    ("arp_attempts", "net_arp_attempts"),
];

/// Node status outputs that go to the register file's `net` block.
const NODE_STATUS: [(&str, &str); 3] =
    [("arp_failed", "net_arp_failed"), ("target_mac", "net_resolved_mac"), ("target_known", "net_target_known")];

/// The node's bus of drop pulses: bit i is `net_model::DropReason::ALL[i]`.
const NODE_DROPPED: &str = "dropped";

/// One instance in the engine.
pub(crate) struct Instance {
    comment: String,
    module: String,
    name: String,
    conns: Vec<Conn>,
}

/// An output held at zero: `assign <name> = <width>'d0;`.
struct Tie {
    name: String,
    width: usize,
}

#[derive(Template)]
#[template(path = "open_toe.v", escape = "none")]
struct EngineTemplate {
    name: String,
    sessions: usize,
    data_width: usize,
    mtu: usize,
    groups: Vec<PortGroup>,
    wires: Vec<Wire>,
    instances: Vec<Instance>,
    ties: Vec<Tie>,
    unused_width: usize,
    unused: Vec<String>,
}

/// The engine: its Verilog modules (the node's, the counter's and the
/// refuser's, then the engine itself, last) and its ports.
pub struct Engine {
    pub modules: Vec<hdl::emit::Module>,
    pub ports: Vec<Port>,
}

/// The open engine of `design` (whose core must be open, MTU `mtu`), given
/// the register file's ports and the session module's: the engine takes the
/// flipped `toe_*`, `toe<s>_*` and `net_*` ports.
pub fn engine(
    design: &config::Design,
    mtu: usize,
    regs_ports: &[Port],
    session_ports: &[Port],
) -> Result<Engine, GenError> {
    let bad = |what: String| GenError::Hdl(hdl::verilog::HdlError(what));
    let name = engine_module(design);
    let node_module = format!("{}_net_node", design.name);
    let mut modules = hdl::net::node_modules(design.data_width, mtu, &design.name)?;
    let node_ports = hdl::net::node_ports(design.data_width, mtu)?;
    modules.extend(hdl::open_toe::modules(&design.name)?);

    // The engine's ports: clock and reset, then every top net it serves, flipped.
    let mut ports: Vec<Port> =
        ["user_clk", "user_rst"].iter().map(|n| Port::new(Group::Clock, n, Direction::Input, 1)).collect();
    let flipped = |p: &Port, group: Group| Port::new(group, &p.local, p.direction.flip(), p.width);
    ports.extend(regs_ports.iter().filter(|p| p.group == Group::ToeGlobal).map(|p| flipped(p, Group::ToeGlobal)));
    for s in 0..design.sessions {
        ports.extend(
            session_ports.iter().filter(|p| p.group == Group::ToeSession(0)).map(|p| flipped(p, Group::ToeSession(s))),
        );
    }
    ports.extend(regs_ports.iter().filter(|p| p.group == Group::Net).map(|p| flipped(p, Group::Net)));
    ports.extend(config::ports::mac_ports(design.data_width));
    let port = |name: &str| ports.iter().find(|p| p.name == name);

    // The node: every port wired by name, event pulses onto wires.
    let mut wires = Vec::new();
    let mut node_conns = Vec::new();
    for (np, direction, width) in &node_ports {
        let net = if let Some((_, net)) = NODE_WIRING.iter().chain(&NODE_STATUS).find(|(n, _)| n == np) {
            let p = port(net)
                .ok_or_else(|| bad(format!("node port `{np}` wants engine port `{net}`, which is missing")))?;
            if p.width != *width || p.direction != *direction {
                return Err(bad(format!(
                    "node port `{np}` ({} {width}) does not fit engine port `{net}` ({} {})",
                    direction.keyword(),
                    p.direction.keyword(),
                    p.width
                )));
            }
            net.to_string()
        } else if *direction == Direction::Output && (np == NODE_DROPPED || counter_named(np).is_some()) {
            let net = format!("event_{np}");
            wires.push(Wire { range: range(*width), name: net.clone() });
            net
        } else {
            return Err(bad(format!("node port `{np}` has no place in the engine")));
        };
        node_conns.push(Conn { port: np.clone(), net });
    }
    let dropped_width = node_ports.iter().find(|(n, _, _)| n == NODE_DROPPED).map_or(0, |p| p.2);
    if dropped_width != net_model::DropReason::ALL.len() {
        return Err(bad(format!(
            "the node's `{NODE_DROPPED}` has {dropped_width} bits, the model {} drop reasons",
            net_model::DropReason::ALL.len()
        )));
    }
    let mut instances = vec![Instance {
        comment: format!("Network node: Ethernet, ARP, IPv4, ICMP echo; MTU {mtu}."),
        module: node_module,
        name: "u_node".into(),
        conns: node_conns,
    }];

    // A counter per model counter, into the register file's `net` block.
    for counter in Counter::ALL {
        let event = match counter {
            Counter::Dropped(r) => format!("event_{NODE_DROPPED}[{}]", r.index()),
            other => {
                let event = format!("event_{}", other.name());
                if !wires.iter().any(|w| w.name == event) {
                    return Err(bad(format!("the node has no event port `{}` for counter `{other}`", other.name())));
                }
                event
            }
        };
        let count = format!("net_{}", counter.name());
        if port(&count).map(|p| (p.direction, p.width)) != Some((Direction::Output, hdl::open_toe::COUNTER_BITS)) {
            return Err(bad(format!(
                "the register file's `net` block has no {}-bit counter `{count}`",
                hdl::open_toe::COUNTER_BITS
            )));
        }
        instances.push(Instance {
            comment: counter.doc().to_string(),
            module: format!("{}_event_counter", design.name),
            name: format!("u_count_{}", counter.name()),
            conns: conns(&[("clock", "user_clk"), ("reset", "user_rst"), ("pulse", &event), ("count", &count)]),
        });
    }

    // Part 1 has no TCP: each session's open is refused, its streams idle.
    let mut ties = Vec::new();
    let mut unused = vec!["toe_last_packet_mode".to_string(), "toe_window_update_gap".to_string()];
    for s in 0..design.sessions {
        let net = |local: &str| Group::ToeSession(s).top_name(local);
        instances.push(Instance {
            comment: format!("Session {s}: no TCP yet, every open is refused."),
            module: format!("{}_conn_refuser", design.name),
            name: format!("u_refuse{s}"),
            conns: conns(&[
                ("clock", "user_clk"),
                ("reset", "user_rst"),
                ("req_valid", &net("conn_req_valid")),
                ("req_open", &net("conn_req_open")),
                ("req_ready", &net("conn_req_ready")),
                ("conn_error", &net("conn_error")),
            ]),
        });
        for p in ports.iter().filter(|p| p.group == Group::ToeSession(s)) {
            let driven = ["conn_req_ready", "conn_error"].contains(&p.local.as_str());
            let taken = ["conn_req_valid", "conn_req_open"].contains(&p.local.as_str());
            // Every other session input (the request's other fields, the
            // data the session offers, its RX ready) waits for TCP.
            match p.direction {
                Direction::Output if !driven => ties.push(Tie { name: p.name.clone(), width: p.width }),
                Direction::Input if !taken => unused.push(p.name.clone()),
                _ => {}
            }
        }
    }
    for u in &unused {
        if port(u).is_none_or(|p| p.direction != Direction::Input) {
            return Err(bad(format!("the engine has no input `{u}` to leave unused")));
        }
    }
    let unused_width = unused.iter().filter_map(|u| port(u)).map(|p| p.width).sum();

    let plan = PortPlan::new(ports.clone());
    let text = EngineTemplate {
        name: name.clone(),
        sessions: design.sessions,
        data_width: design.data_width,
        mtu,
        groups: header_groups(&plan),
        wires,
        instances,
        ties,
        unused_width,
        unused,
    }
    .render()
    .map_err(|e| GenError::Template(e.to_string()))?;
    modules.push(hdl::emit::Module { name, text });
    Ok(Engine { modules, ports })
}

/// The model's counter of this name, for the node's event ports.
fn counter_named(name: &str) -> Option<Counter> {
    Counter::ALL.into_iter().find(|c| c.name() == name)
}

fn conns(pairs: &[(&str, &str)]) -> Vec<Conn> {
    pairs.iter().map(|(port, net)| Conn { port: port.to_string(), net: net.to_string() }).collect()
}
