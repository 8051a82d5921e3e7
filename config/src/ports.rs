//! The port plan: the product top's ports as data.
//!
//! The assembly (`gen::rtl`) produces one [`PortPlan`] from the ports of the
//! blocks it joins and hands it to everything downstream: the top template,
//! the board top and its stubs, the constraints, the testbench and the TOE
//! model's binding. A consumer asks the plan which ports belong to which
//! group ([`Group`]) and looks a port up by its group and its name inside
//! that group ([`Port::local`]); nobody re-derives structure from port names
//! or from generated Verilog. Top-level names are formed here and nowhere
//! else ([`Group::top_name`]).

use std::fmt;

/// Direction of a port, seen from the module that declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    Input,
    Output,
}

impl Direction {
    /// The other direction: a port as its partner across a boundary sees it.
    pub fn flip(self) -> Direction {
        match self {
            Direction::Input => Direction::Output,
            Direction::Output => Direction::Input,
        }
    }

    /// The Verilog keyword, `input` or `output`.
    pub fn keyword(self) -> &'static str {
        match self {
            Direction::Input => "input",
            Direction::Output => "output",
        }
    }
}

/// What a port belongs to. The top's ports fall into the first four groups;
/// [`Group::RegisterSession`] and [`Group::Info`] describe the register
/// file's own ports, which the top joins to the sessions internally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Group {
    /// The user clock domain's clock and synchronous reset (`user_clk`, `user_rst`).
    Clock,
    /// The AXI4-Lite register slave with its own clock and reset (`s_axil_*`).
    Bus,
    /// TOE-wide parameters and initialisation (`toe_*`).
    ToeGlobal,
    /// The TOE session interface of one session (`toe<n>_*`,
    /// `docs/toe_interface.md`).
    ToeSession(usize),
    /// The register file's fields of one session (`s<n>_*`): nets between
    /// the register file and session `n`, not top ports.
    RegisterSession(usize),
    /// Design-wide register-file values every session takes (`shared_*`,
    /// the TX prefix bank): one net from the register file to all sessions,
    /// not top ports.
    RegisterShared,
    /// Design-wide register-file values with no consumer in the top
    /// (`info_*`, the cycle counter).
    Info,
    /// The session datapath of session `n` on the datapath test harness
    /// (`s<n>_*`): a testbench artefact, not a product port.
    Datapath(usize),
    /// A pin of the board top (reference clocks, transceiver and PCIe lanes):
    /// named by the board file, not by the user logic.
    Pin,
    /// The open engine's network port (`mac_*`): Ethernet II frames to and
    /// from the MAC as AXI4-Stream, in the user clock domain
    /// (`docs/open_engine.md`). Only a design with `toe.core = "open"` has it.
    Mac,
    /// The register file's `net` block (`net_*`): the open engine's
    /// counters and ARP state in, its ARP settings out; nets between the
    /// register file and the engine, not top ports.
    Net,
}

impl Group {
    /// The full name of the port `local` of this group, as the top (or, for
    /// register-file groups, the register file) declares it.
    pub fn top_name(self, local: &str) -> String {
        match self {
            Group::Clock | Group::Pin => local.to_string(),
            Group::Bus => format!("s_axil_{local}"),
            Group::ToeGlobal => format!("toe_{local}"),
            Group::ToeSession(s) => format!("toe{s}_{local}"),
            Group::RegisterSession(s) | Group::Datapath(s) => format!("s{s}_{local}"),
            Group::Info => format!("info_{local}"),
            Group::RegisterShared => format!("shared_{local}"),
            Group::Mac => format!("mac_{local}"),
            Group::Net => format!("net_{local}"),
        }
    }

    /// The session this group belongs to, if any.
    pub fn session(self) -> Option<usize> {
        match self {
            Group::ToeSession(s) | Group::RegisterSession(s) | Group::Datapath(s) => Some(s),
            _ => None,
        }
    }

    /// One line saying what the group is, for the comments of generated files.
    pub fn describe(self) -> String {
        match self {
            Group::Clock => "User clock domain".to_string(),
            Group::Bus => "Register bus: AXI4-Lite slave, s_axil_aclk domain".to_string(),
            Group::ToeGlobal => "TOE parameters and initialisation".to_string(),
            Group::ToeSession(s) => format!("TOE session interface, session {s}"),
            Group::RegisterSession(s) => format!("Register file, session {s}"),
            Group::Info => "Register file, design information".to_string(),
            Group::RegisterShared => "Register file, shared by the sessions".to_string(),
            Group::Datapath(s) => format!("Session {s}"),
            Group::Pin => "Board pins".to_string(),
            Group::Mac => "Network port: Ethernet II frames to and from the MAC (AXI4-Stream, user clock)".to_string(),
            Group::Net => "Register file, the open engine's network node".to_string(),
        }
    }
}

/// One port: its full name, its name inside its group, direction and width.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// Name as declared (`toe2_tx_tdata`).
    pub name: String,
    /// Name inside the group (`tx_tdata`): the same for every session.
    pub local: String,
    pub group: Group,
    pub direction: Direction,
    /// Width in bits, at least 1.
    pub width: usize,
}

impl Port {
    /// A port of `group` named `local` inside it.
    pub fn new(group: Group, local: &str, direction: Direction, width: usize) -> Port {
        Port { name: group.top_name(local), local: local.to_string(), group, direction, width }
    }

    /// The Verilog declaration without the trailing separator:
    /// `output wire [1023:0] toe0_tx_tdata`.
    pub fn declaration(&self) -> String {
        let dir = match self.direction {
            Direction::Input => "input ",
            Direction::Output => "output",
        };
        format!("{dir} wire {}{}", range(self.width), self.name)
    }
}

/// The open engine's network port (`toe.core = "open"`) as the top
/// declares it, [`Group::Mac`] (directions seen from the top, widths for
/// `data_width`): Ethernet II frames without preamble and FCS, as the
/// vendors' MAC IP presents them, AXI4-Stream in the user clock domain; RX
/// has no `tready` (a MAC cannot wait), `rx_tuser` marks a frame the MAC saw
/// bad (FCS). The one definition: the generator declares these ports and
/// the board top checks the plan against them.
pub fn mac_ports(data_width: usize) -> Vec<Port> {
    let (i, o) = (Direction::Input, Direction::Output);
    [
        ("rx_tdata", i, data_width),
        ("rx_tkeep", i, data_width / 8),
        ("rx_tlast", i, 1),
        ("rx_tvalid", i, 1),
        ("rx_tuser", i, 1),
        ("tx_tdata", o, data_width),
        ("tx_tkeep", o, data_width / 8),
        ("tx_tlast", o, 1),
        ("tx_tvalid", o, 1),
        ("tx_tready", i, 1),
    ]
    .into_iter()
    .map(|(local, direction, width)| Port::new(Group::Mac, local, direction, width))
    .collect()
}

/// `[msb:0] ` for a vector, empty for a single bit: the one place that writes
/// a Verilog range for a port or net of the generated files.
pub fn range(width: usize) -> String {
    if width <= 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

/// A port list was asked for a port it does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingPort {
    pub group: Group,
    pub local: String,
}

impl fmt::Display for MissingPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the port plan has no port `{}` ({:?})", self.group.top_name(&self.local), self.group)
    }
}

impl std::error::Error for MissingPort {}

/// The ports of one module, in declaration order, grouped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PortPlan {
    ports: Vec<Port>,
}

impl PortPlan {
    /// A plan of `ports` in declaration order.
    pub fn new(ports: Vec<Port>) -> PortPlan {
        PortPlan { ports }
    }

    /// Every port, in declaration order.
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// The ports of `group`, in declaration order.
    pub fn group(&self, group: Group) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(move |p| p.group == group)
    }

    /// The groups present, in order of first appearance.
    pub fn groups(&self) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        for p in &self.ports {
            if !groups.contains(&p.group) {
                groups.push(p.group);
            }
        }
        groups
    }

    /// The port `local` of `group`.
    pub fn get(&self, group: Group, local: &str) -> Result<&Port, MissingPort> {
        self.ports
            .iter()
            .find(|p| p.group == group && p.local == local)
            .ok_or_else(|| MissingPort { group, local: local.to_string() })
    }

    /// Number of sessions on the plan: TOE session interfaces on a product
    /// top, session datapaths on the datapath harness.
    pub fn sessions(&self) -> usize {
        self.groups().iter().filter(|g| matches!(g, Group::ToeSession(_) | Group::Datapath(_))).count()
    }

    /// The input ports, in declaration order.
    pub fn inputs(&self) -> impl Iterator<Item = &Port> {
        self.ports.iter().filter(|p| p.direction == Direction::Input)
    }

    /// The plan as text, one port a line (`output 1024 toe0_tx_tdata
    /// ToeSession(0) tx_tdata`): what a build script hands to the code it
    /// generates, read back by [`PortPlan::from_text`].
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for p in &self.ports {
            let group = match p.group {
                Group::Clock => "clock".to_string(),
                Group::Bus => "bus".to_string(),
                Group::ToeGlobal => "toe".to_string(),
                Group::ToeSession(s) => format!("toe_session:{s}"),
                Group::RegisterSession(s) => format!("register_session:{s}"),
                Group::Info => "info".to_string(),
                Group::RegisterShared => "register_shared".to_string(),
                Group::Datapath(s) => format!("datapath:{s}"),
                Group::Pin => "pin".to_string(),
                Group::Mac => "mac".to_string(),
                Group::Net => "net".to_string(),
            };
            out.push_str(&format!("{} {} {} {}\n", p.direction.keyword(), p.width, group, p.local));
        }
        out
    }

    /// Reads what [`PortPlan::to_text`] wrote.
    pub fn from_text(text: &str) -> Result<PortPlan, String> {
        let mut ports = Vec::new();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let bad = || format!("port plan line {}: `{line}` is not `<direction> <width> <group> <name>`", n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let [dir, width, group, local] = words[..] else { return Err(bad()) };
            let direction = match dir {
                "input" => Direction::Input,
                "output" => Direction::Output,
                _ => return Err(bad()),
            };
            let width: usize = width.parse().map_err(|_| bad())?;
            let index = |s: &str| s.parse::<usize>().map_err(|_| bad());
            let group = match group.split_once(':') {
                None if group == "clock" => Group::Clock,
                None if group == "bus" => Group::Bus,
                None if group == "toe" => Group::ToeGlobal,
                None if group == "info" => Group::Info,
                None if group == "register_shared" => Group::RegisterShared,
                None if group == "pin" => Group::Pin,
                None if group == "mac" => Group::Mac,
                None if group == "net" => Group::Net,
                Some(("toe_session", s)) => Group::ToeSession(index(s)?),
                Some(("register_session", s)) => Group::RegisterSession(index(s)?),
                Some(("datapath", s)) => Group::Datapath(index(s)?),
                _ => return Err(bad()),
            };
            ports.push(Port::new(group, local, direction, width));
        }
        Ok(PortPlan { ports })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> PortPlan {
        PortPlan::new(vec![
            Port::new(Group::Clock, "user_clk", Direction::Input, 1),
            Port::new(Group::Bus, "awaddr", Direction::Input, 11),
            Port::new(Group::ToeGlobal, "init", Direction::Output, 1),
            Port::new(Group::ToeSession(0), "tx_tdata", Direction::Output, 64),
            Port::new(Group::ToeSession(1), "tx_tdata", Direction::Output, 64),
            Port::new(Group::ToeSession(1), "established", Direction::Input, 1),
        ])
    }

    #[test]
    fn names_come_from_the_group() {
        let p = plan();
        assert_eq!(p.get(Group::ToeSession(1), "tx_tdata").unwrap().name, "toe1_tx_tdata");
        assert_eq!(p.get(Group::Bus, "awaddr").unwrap().name, "s_axil_awaddr");
        assert_eq!(p.get(Group::ToeGlobal, "init").unwrap().name, "toe_init");
        assert_eq!(Group::RegisterSession(3).top_name("start"), "s3_start");
        assert_eq!(
            p.get(Group::ToeSession(0), "established").unwrap_err().to_string(),
            "the port plan has no port `toe0_established` (ToeSession(0))"
        );
    }

    #[test]
    fn groups_and_sessions_follow_the_ports() {
        let p = plan();
        assert_eq!(p.sessions(), 2);
        assert_eq!(
            p.groups(),
            [Group::Clock, Group::Bus, Group::ToeGlobal, Group::ToeSession(0), Group::ToeSession(1)]
        );
        assert_eq!(p.group(Group::ToeSession(1)).count(), 2);
        assert_eq!(p.inputs().count(), 3);
    }

    #[test]
    fn declarations_and_ranges() {
        let p = plan();
        assert_eq!(p.ports()[3].declaration(), "output wire [63:0] toe0_tx_tdata");
        assert_eq!(p.ports()[0].declaration(), "input  wire user_clk");
        assert_eq!(range(1), "");
    }

    #[test]
    fn text_form_round_trips_and_rejects_garbage() {
        let mut ports = plan().ports().to_vec();
        ports.push(Port::new(Group::RegisterSession(3), "start", Direction::Output, 1));
        ports.push(Port::new(Group::Info, "cycle_count", Direction::Output, 64));
        ports.push(Port::new(Group::Datapath(2), "tx_start", Direction::Input, 1));
        ports.push(Port::new(Group::Pin, "qsfp_tx_p", Direction::Output, 4));
        ports.push(Port::new(Group::Mac, "rx_tuser", Direction::Input, 1));
        ports.push(Port::new(Group::Net, "frames_in", Direction::Input, 32));
        let p = PortPlan::new(ports);
        assert_eq!(PortPlan::from_text(&p.to_text()).unwrap(), p);
        for bad in
            ["input 1 clock", "inout 1 clock x", "input x clock y", "input 1 toe_session:a y", "input 1 nowhere y"]
        {
            let e = PortPlan::from_text(bad).unwrap_err();
            assert!(e.contains("line 1") && e.contains(bad), "{e}");
        }
    }
}
