//! The user logic's Verilog: rust-hdl modules, the askama top around them,
//! and the top's port plan.
//!
//! The top is wiring only, derived from the typed port lists of the two
//! modules it instantiates (read from the blocks, not from their Verilog), so
//! nothing is listed twice:
//!
//! - the register file `<name>_regs` (from the register map): its
//!   `Group::Clock`, `Group::Bus` and `Group::ToeGlobal` ports become top
//!   ports; its `Group::RegisterSession(n)` ports become nets `s<n>_<x>`;
//!   its `Group::RegisterShared` ports (the TX prefix bank) become nets
//!   `shared_<x>` that every session takes; its `Group::Info` outputs have
//!   no consumer here;
//! - the session `<name>_session` (controller + datapath, rust-hdl), one per
//!   session: its `Group::RegisterSession(0)` port `<x>` joins the net of
//!   the register file's `Group::RegisterSession(n)` port `<x>`, its
//!   `Group::RegisterShared` port `<x>` the net `shared_<x>`; its
//!   `Group::ToeSession(0)` ports become the top's `Group::ToeSession(n)`
//!   ports (the TOE session interface, `docs/toe_interface.md`).
//!
//! The register file's bus ports keep their width on the top: the AXI4-Lite
//! address is the register master's 32 bits
//! ([`hdl::register_file::BUS_ADDRESS_BITS`]), not the map's span.
//!
//! The top's ports are handed downstream as one [`PortPlan`] ([`Rtl::plan`]):
//! the board top, the constraints, the testbench and the virtual board all
//! read it. A session port with no register-file partner, or a register-file
//! input nobody drives, is an error naming the port: the two definitions must
//! agree.

use askama::Template;
use config::ports::{range, Direction, Group, Port, PortPlan};

use crate::{GenError, GeneratedFile};

/// Folder of the Verilog inside the build folder.
pub const RTL_DIR: &str = "rtl";
/// The source list, in compile order, one path per line relative to the build
/// folder: lint, synthesis, the testbench and the vendor scripts all read it.
pub const FILELIST: &str = "rtl/files.f";

/// The session module's clock and reset and the top's ports that drive them.
const SESSION_CLOCKING: [(&str, &str); 2] = [("clock", "user_clk"), ("reset", "user_rst")];

/// The top's clock or reset that drives `port` (a `Group::Clock` port of
/// the session or datapath module, `what` naming the module in the error).
fn clock_net(port: &Port, what: &str) -> Result<String, GenError> {
    match SESSION_CLOCKING.iter().find(|(name, _)| *name == port.name) {
        Some((_, top)) => Ok(top.to_string()),
        None => Err(GenError::Hdl(hdl::verilog::HdlError(format!(
            "{what} clock port `{}` is neither `clock` nor `reset`",
            port.name
        )))),
    }
}

/// A comment and the declarations under it, in a module header.
pub(crate) struct PortGroup {
    pub(crate) comment: String,
    /// Declarations without separators (`output wire [1:0] x`).
    pub(crate) ports: Vec<String>,
    pub(crate) last: bool,
}

/// A net the template declares: `wire <range> <name>;`.
pub(crate) struct Wire {
    pub(crate) range: String,
    pub(crate) name: String,
}

/// One port connection of an instance: `.<port>(<net>)`.
pub(crate) struct Conn {
    pub(crate) port: String,
    pub(crate) net: String,
}

struct Unit {
    index: usize,
    conns: Vec<Conn>,
}

#[derive(Template)]
#[template(path = "top.v", escape = "none")]
struct TopTemplate<'a> {
    name: &'a str,
    data_width: usize,
    sessions: usize,
    regs_module: &'a str,
    session_module: &'a str,
    groups: Vec<PortGroup>,
    wires: Vec<Wire>,
    regs_conns: Vec<Conn>,
    units: Vec<Unit>,
    /// The open engine, when the design has it.
    engine: Option<EngineInstance>,
}

/// The engine's instance in the top.
struct EngineInstance {
    module: String,
    conns: Vec<Conn>,
}

#[derive(Template)]
#[template(path = "datapath_harness.v", escape = "none")]
struct HarnessTemplate<'a> {
    name: &'a str,
    data_width: usize,
    session_module: &'a str,
    sessions: usize,
    groups: Vec<PortGroup>,
    registered: Vec<Registered>,
    units: Vec<Unit>,
}

/// An input the harness registers before the datapath reads it
/// (`hdl::datapath::REGISTERED_INPUTS`): `reg` holds `input`.
struct Registered {
    reg: Wire,
    input: String,
}

/// Name of the per-session module of a design.
pub fn session_module(design: &config::Design) -> String {
    format!("{}_session", design.name)
}

/// Name of the register-file module of a design.
pub fn register_file_module(design: &config::Design) -> String {
    format!("{}_regs", design.name)
}

/// The Verilog files and what the rest of the build needs to know of them.
pub struct Rtl {
    pub files: Vec<GeneratedFile>,
    /// Source paths relative to the build folder, in compile order.
    pub sources: Vec<String>,
    /// Every port of the top, in declaration order, grouped.
    pub plan: PortPlan,
    /// The clock-domain crossings the constraints must cover.
    pub crossings: config::crossings::Crossings,
}

/// The module header's groups of `plan`, in order, each with its comment.
pub(crate) fn header_groups(plan: &PortPlan) -> Vec<PortGroup> {
    let mut groups: Vec<PortGroup> = plan
        .groups()
        .into_iter()
        .map(|g| PortGroup {
            comment: g.describe(),
            ports: plan.group(g).map(Port::declaration).collect(),
            last: false,
        })
        .collect();
    if let Some(g) = groups.last_mut() {
        g.last = true;
    }
    groups
}

/// The session module, the register file and the top that joins them.
pub fn generate(design: &config::Design, map: &regmap::RegisterMap) -> Result<Rtl, GenError> {
    let session = session_module(design);
    let session_modules = hdl::verilog::session_modules(design.data_width, design.user_clock_khz(), &design.name)?;
    let session_ports = hdl::verilog::session_ports(design.data_width)?;
    let regs = register_file_module(design);
    let regs_modules = hdl::register_file::register_file_modules(design, map, &regs, &design.name)?;
    let regs_ports = hdl::register_file::register_file_ports(design, map)?;
    let engine = match design.toe_core {
        config::ToeCore::Licensed => None,
        config::ToeCore::Open { mtu } => {
            Some(crate::open_toe::engine(design, mtu, regs_ports.ports(), &session_ports)?)
        }
    };
    let engine_ports = engine.as_ref().map(|e| e.ports.as_slice());
    let (top, plan) = top_template(design, &regs, regs_ports.ports(), &session, &session_ports, engine_ports)?;
    let top_text = top.render().map_err(|e| GenError::Template(e.to_string()))?;

    // One module a file, children first; the top comes last: lint and the
    // scripts take the last file's module as the top.
    let engine_modules = engine.map(|e| e.modules).unwrap_or_default();
    let mut files: Vec<GeneratedFile> = session_modules
        .iter()
        .chain(&regs_modules)
        .chain(&engine_modules)
        .map(|m| GeneratedFile { path: format!("{RTL_DIR}/{}.v", m.name), contents: design.verilog_file(&m.text) })
        .collect();
    files
        .push(GeneratedFile { path: format!("{RTL_DIR}/{}.v", design.name), contents: design.verilog_file(&top_text) });
    let sources: Vec<String> = files.iter().map(|f| f.path.clone()).collect();
    let filelist = sources.iter().map(|s| format!("{s}\n")).collect();
    files.push(GeneratedFile { path: FILELIST.to_string(), contents: filelist });
    Ok(Rtl { files, sources, plan, crossings: hdl::register_file::crossings() })
}

/// The top's template and port plan. With an engine (the open core's
/// ports, [`crate::open_toe::Engine::ports`]) the TOE interface and the
/// register file's `net` block are nets inside the top, joined to the engine
/// instance by name, and the engine's network port (`mac_*`) is the top's;
/// without one they are the top's ports (the licensed core sits outside).
fn top_template<'a>(
    design: &'a config::Design,
    regs: &'a str,
    regs_ports: &[Port],
    session: &'a str,
    session_ports: &[Port],
    engine_ports: Option<&[Port]>,
) -> Result<(TopTemplate<'a>, PortPlan), GenError> {
    let mismatch = |what: String| GenError::Hdl(hdl::verilog::HdlError(what));
    let mut top_ports = Vec::new();
    let mut wires = Vec::new();
    let mut regs_conns = Vec::new();
    let unused = |p: &Port, wires: &mut Vec<Wire>, regs_conns: &mut Vec<Conn>| {
        let net = format!("unused_{}", p.name);
        wires.push(Wire { range: range(p.width), name: net.clone() });
        regs_conns.push(Conn { port: p.name.clone(), net });
    };
    for p in regs_ports {
        match p.group {
            Group::ToeGlobal | Group::Net if engine_ports.is_some() => {
                wires.push(Wire { range: range(p.width), name: p.name.clone() });
                regs_conns.push(Conn { port: p.name.clone(), net: p.name.clone() });
            }
            Group::Clock | Group::Bus | Group::ToeGlobal => {
                top_ports.push(p.clone());
                regs_conns.push(Conn { port: p.name.clone(), net: p.name.clone() });
            }
            Group::RegisterSession(_) | Group::RegisterShared => {
                let partner_group = match p.group {
                    Group::RegisterShared => Group::RegisterShared,
                    _ => Group::RegisterSession(0),
                };
                let partner = session_ports.iter().find(|q| q.group == partner_group && q.local == p.local);
                match partner {
                    Some(q) if q.width != p.width || q.direction == p.direction => {
                        return Err(mismatch(format!(
                            "register file port `{}` ({} {}) does not fit session port `{}` ({} {})",
                            p.name,
                            p.direction.keyword(),
                            p.width,
                            q.name,
                            q.direction.keyword(),
                            q.width
                        )))
                    }
                    Some(_) => {
                        wires.push(Wire { range: range(p.width), name: p.name.clone() });
                        regs_conns.push(Conn { port: p.name.clone(), net: p.name.clone() });
                    }
                    None if p.direction == Direction::Output => unused(p, &mut wires, &mut regs_conns),
                    None => {
                        return Err(mismatch(format!(
                            "register file input `{}` has no session port `{}` to drive it",
                            p.name, p.local
                        )))
                    }
                }
            }
            // Design-wide outputs nobody consumes here (the cycle counter).
            _ if p.direction == Direction::Output => unused(p, &mut wires, &mut regs_conns),
            _ => return Err(mismatch(format!("register file input `{}` has nothing to drive it", p.name))),
        }
    }
    let mut units = Vec::new();
    for s in 0..design.sessions {
        let mut conns = Vec::new();
        for q in session_ports {
            let net = match q.group {
                Group::Clock => clock_net(q, "session")?,
                Group::ToeSession(_) => {
                    let top = Port::new(Group::ToeSession(s), &q.local, q.direction, q.width);
                    let name = top.name.clone();
                    match engine_ports {
                        Some(_) => wires.push(Wire { range: range(q.width), name: name.clone() }),
                        None => top_ports.push(top),
                    }
                    name
                }
                Group::RegisterSession(_) | Group::RegisterShared => {
                    let net = match q.group {
                        Group::RegisterShared => q.name.clone(),
                        _ => Group::RegisterSession(s).top_name(&q.local),
                    };
                    if !regs_ports.iter().any(|p| p.name == net) {
                        return Err(mismatch(format!(
                            "session port `{}` has no register file port `{net}`: add the field to the register map or rename the port",
                            q.name
                        )));
                    }
                    net
                }
                other => {
                    return Err(mismatch(format!(
                        "session port `{}` is in group {other:?}, which the top cannot wire",
                        q.name
                    )))
                }
            };
            conns.push(Conn { port: q.name.clone(), net });
        }
        units.push(Unit { index: s, conns });
    }
    let engine = match engine_ports {
        None => None,
        Some(ports) => {
            let mut conns = Vec::new();
            for p in ports {
                let net = match p.group {
                    Group::Clock => p.name.clone(),
                    Group::Mac => {
                        top_ports.push(p.clone());
                        p.name.clone()
                    }
                    _ if wires.iter().any(|w| w.name == p.name) => p.name.clone(),
                    other => {
                        return Err(mismatch(format!(
                            "engine port `{}` ({other:?}) has no net in the top: neither the register file nor a session has it",
                            p.name
                        )))
                    }
                };
                conns.push(Conn { port: p.name.clone(), net });
            }
            Some(EngineInstance { module: crate::open_toe::engine_module(design), conns })
        }
    };
    // Declared group by group: clocking, bus, TOE-wide, then session by session.
    top_ports.sort_by_key(|p| p.group);
    let plan = PortPlan::new(top_ports);
    let template = TopTemplate {
        name: &design.name,
        data_width: design.data_width,
        sessions: design.sessions,
        regs_module: regs,
        session_module: session,
        groups: header_groups(&plan),
        wires,
        regs_conns,
        units,
        engine,
    };
    Ok((template, plan))
}

/// A test harness (not part of the product): its Verilog files in compile
/// order (top last) and its port plan.
pub struct Harness {
    pub files: Vec<GeneratedFile>,
    pub plan: PortPlan,
}

/// Test harness (not part of the product): `sessions` copies of the session
/// datapath with plain ports `s<n>_<port>` (`Group::Datapath(n)`) in a top
/// named `module`, so the testbench can test the generator, verifier and rate
/// limiters directly.
pub fn datapath_harness(design: &config::Design, module: &str) -> Result<Harness, GenError> {
    let datapath = format!("{module}_datapath");
    let modules = hdl::verilog::datapath_modules(design.data_width, module)?;
    let ports = hdl::verilog::datapath_ports(design.data_width)?;
    let mut top_ports: Vec<Port> =
        SESSION_CLOCKING.iter().map(|(_, top)| Port::new(Group::Clock, top, Direction::Input, 1)).collect();
    let mut units = Vec::new();
    let mut registered = Vec::new();
    for s in 0..design.sessions {
        let mut conns = Vec::new();
        for p in &ports {
            let net = match p.group {
                Group::Clock => clock_net(p, "datapath")?,
                _ => {
                    let top = Port::new(Group::Datapath(s), &p.local, p.direction, p.width);
                    let name = top.name.clone();
                    top_ports.push(top);
                    if hdl::datapath::REGISTERED_INPUTS.contains(&p.local.as_str()) {
                        let reg = Wire { range: range(p.width), name: format!("{name}_reg") };
                        let net = reg.name.clone();
                        registered.push(Registered { reg, input: name });
                        net
                    } else {
                        name
                    }
                }
            };
            conns.push(Conn { port: p.name.clone(), net });
        }
        units.push(Unit { index: s, conns });
    }
    let plan = PortPlan::new(top_ports);
    let top = HarnessTemplate {
        name: module,
        data_width: design.data_width,
        session_module: &datapath,
        sessions: design.sessions,
        groups: header_groups(&plan),
        registered,
        units,
    }
    .render()
    .map_err(|e| GenError::Template(e.to_string()))?;
    Ok(Harness {
        files: modules
            .iter()
            .map(|m| GeneratedFile { path: format!("{}.v", m.name), contents: design.verilog_file(&m.text) })
            .chain(std::iter::once(GeneratedFile { path: format!("{module}.v"), contents: design.verilog_file(&top) }))
            .collect(),
        plan,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(group: Group, local: &str, direction: Direction, width: usize) -> Port {
        Port::new(group, local, direction, width)
    }

    /// A session port as the session module declares it (`reg_<x>`, `toe_<x>`).
    fn sess(group: Group, local: &str, direction: Direction, width: usize) -> Port {
        let prefix = match group {
            Group::RegisterSession(_) => "reg_",
            Group::ToeSession(_) => "toe_",
            _ => "",
        };
        Port { name: format!("{prefix}{local}"), local: local.into(), group, direction, width }
    }

    fn wire(session: &[Port]) -> Result<(String, PortPlan), String> {
        let design = config::parse(&config::default_toml_with_sessions(1)).unwrap();
        let regs = [
            reg(Group::Clock, "user_clk", Direction::Input, 1),
            reg(Group::RegisterSession(0), "start", Direction::Output, 1),
            reg(Group::RegisterSession(0), "busy", Direction::Input, 1),
            reg(Group::RegisterSession(0), "done", Direction::Output, 1),
        ];
        top_template(&design, "r", &regs, "s", session, None)
            .map(|(t, plan)| (t.render().unwrap(), plan))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn ports_are_wired_by_group_and_unconsumed_outputs_are_marked_unused() {
        let (v, plan) = wire(&[
            sess(Group::Clock, "clock", Direction::Input, 1),
            sess(Group::RegisterSession(0), "start", Direction::Input, 1),
            sess(Group::RegisterSession(0), "busy", Direction::Output, 1),
            sess(Group::ToeSession(0), "tx_tvalid", Direction::Output, 1),
        ])
        .unwrap();
        assert!(v.contains(".reg_start(s0_start)") && v.contains(".s0_start(s0_start)"), "{v}");
        assert!(v.contains(".s0_done(unused_s0_done)"), "{v}");
        assert!(v.contains("output wire toe0_tx_tvalid") && v.contains(".toe_tx_tvalid(toe0_tx_tvalid)"), "{v}");
        assert!(v.contains(".clock(user_clk)"), "{v}");
        let names: Vec<&str> = plan.ports().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["user_clk", "toe0_tx_tvalid"]);
        assert_eq!(plan.get(Group::ToeSession(0), "tx_tvalid").unwrap().direction, Direction::Output);
    }

    #[test]
    fn a_mismatch_between_the_register_file_and_the_session_is_an_error_naming_the_port() {
        let start = |w| sess(Group::RegisterSession(0), "start", Direction::Input, w);
        let busy = sess(Group::RegisterSession(0), "busy", Direction::Output, 1);
        let e =
            wire(&[start(1), busy.clone(), sess(Group::RegisterSession(0), "bogus", Direction::Input, 1)]).unwrap_err();
        assert!(e.contains("`reg_bogus`") && e.contains("s0_bogus"), "{e}");
        let e = wire(&[start(2), busy.clone()]).unwrap_err();
        assert!(e.contains("`s0_start`") && e.contains("reg_start"), "{e}");
        let e = wire(&[start(1)]).unwrap_err();
        assert!(e.contains("register file input `s0_busy`"), "{e}");
        let e = wire(&[start(1), busy, sess(Group::Clock, "stray", Direction::Input, 1)]).unwrap_err();
        assert!(e.contains("`stray` is neither"), "{e}");
    }

    /// The Verilog `gen` writes declares exactly the plan's ports, in order,
    /// for the top and the datapath harness, at every session count.
    #[test]
    fn the_written_top_has_exactly_the_ports_of_the_plan() {
        for sessions in 1..=config::MAX_SESSIONS {
            let design = config::parse(&config::default_toml_with_sessions(sessions)).unwrap();
            let map = regmap::RegisterMap::for_design(&design);
            let rtl = generate(&design, &map).unwrap();
            let top = rtl.files.iter().find(|f| f.path == format!("{RTL_DIR}/{}.v", design.name)).unwrap();
            let typed: Vec<_> = rtl.plan.ports().iter().map(|p| (p.name.clone(), p.direction, p.width)).collect();
            assert_eq!(hdl::verilog::module_ports(&top.contents, &design.name).unwrap(), typed, "{sessions} sessions");
            assert_eq!(rtl.plan.sessions(), sessions);
            // The top's bus address is the register master's whole address,
            // whatever the map's span: the board top wires it through.
            for local in ["awaddr", "araddr"] {
                let width = rtl.plan.get(Group::Bus, local).unwrap().width;
                assert_eq!(width, hdl::register_file::BUS_ADDRESS_BITS, "{sessions} sessions: {local}");
                assert_eq!(width, flows::MASTER_ADDRESS_BITS, "{sessions} sessions: {local}");
                assert!(map.address_bits() < width as u32);
            }
            let harness = datapath_harness(&design, "dp").unwrap();
            let typed: Vec<_> = harness.plan.ports().iter().map(|p| (p.name.clone(), p.direction, p.width)).collect();
            assert_eq!(
                hdl::verilog::module_ports(&harness.files.last().unwrap().contents, "dp").unwrap(),
                typed,
                "harness, {sessions} sessions"
            );
            assert_eq!(harness.plan.sessions(), sessions);
            // The bank reaches each datapath through a register, as in the product.
            let text = &harness.files.last().unwrap().contents;
            for s in 0..sessions {
                assert!(
                    text.contains(&format!("s{s}_tx_prefix_reg <= s{s}_tx_prefix;")),
                    "{sessions} sessions:\n{text}"
                );
                assert!(text.contains(&format!(".tx_prefix(s{s}_tx_prefix_reg)")), "{sessions} sessions:\n{text}");
            }
        }
    }
}

/// The whole top against rust-hdl's writer: the product's `rtl/` as `gen`
/// writes it, beside a reference top rendered from the same template around
/// rust-hdl's session and register file, in one Verilator model; the same
/// seeded random stimulus into both (the bus on its own drifting clock,
/// addresses mostly mapped ones), every output compared every cycle
/// (`verilate::lockstep`). `LOCKSTEP_CYCLES` sets the cycles (default
/// 100,000), `TB_SEED` replays a seed.
#[cfg(test)]
mod lockstep {
    use super::*;
    use verilate::lockstep::{self, PortSpec};
    use verilate::Source;

    #[test]
    fn the_whole_top_is_cycle_equivalent_to_rust_hdls_writer() {
        let design = crate::parse_config(config::DEFAULT_TOML).unwrap();
        let map = regmap::RegisterMap::for_design(&design);
        let rtl = generate(&design, &map).unwrap();
        let mut sources: Vec<Source> = rtl
            .sources
            .iter()
            .map(|path| {
                let f = rtl.files.iter().find(|f| &f.path == path).unwrap();
                Source { path: path.into(), contents: f.contents.clone() }
            })
            .collect();

        // The reference: the same template around rust-hdl's blocks.
        let reference = config::Design { name: "reference_top".into(), ..design.clone() };
        let session_text =
            hdl::verilog::session_verilog(design.data_width, design.user_clock_khz(), "ref_session").unwrap();
        let regs_text = hdl::register_file::register_file_reference_verilog(&design, &map, "ref_regs").unwrap();
        let session_ports = hdl::verilog::session_ports(design.data_width).unwrap();
        let regs_ports = hdl::register_file::register_file_ports(&design, &map).unwrap();
        let (top, plan) =
            top_template(&reference, "ref_regs", regs_ports.ports(), "ref_session", &session_ports, None).unwrap();
        assert_eq!(plan, rtl.plan, "the reference top has the product's ports");
        for (path, text) in
            [("ref_session.v", session_text), ("ref_regs.v", regs_text), ("reference_top.v", top.render().unwrap())]
        {
            sources.push(Source { path: path.into(), contents: reference.verilog_file(&text) });
        }
        let ports: Vec<PortSpec> = rtl
            .plan
            .ports()
            .iter()
            .map(|p| PortSpec { name: p.name.clone(), input: p.direction == Direction::Input, width: p.width })
            .collect();
        sources.push(Source {
            path: "lockstep.v".into(),
            contents: lockstep::wrapper("reference_top", &design.name, &ports),
        });

        let cache = std::env::temp_dir().join("toe-gen-lockstep");
        let waivers = lockstep::write_waivers(&cache).unwrap();
        let fns = verilate::load_cached(
            "ls_top",
            "lockstep",
            &sources,
            Some(&waivers),
            "top-default",
            &cache,
            false,
            &mut |m| eprintln!("whole top: {m}"),
        )
        .unwrap_or_else(|e| panic!("building the whole-top lockstep model: {e}"));

        let name = |g: Group, local: &str| rtl.plan.get(g, local).unwrap().name.clone();
        let (aclk, aresetn) = (name(Group::Bus, "aclk"), format!("!{}", name(Group::Bus, "aresetn")));
        let (user_clk, user_rst) = (name(Group::Clock, "user_clk"), name(Group::Clock, "user_rst"));
        let mapped: Vec<u64> =
            hdl::register_file::Layout::new(&map).unwrap().mapped.iter().map(|&a| u64::from(a)).collect();
        let (awaddr, araddr) = (name(Group::Bus, "awaddr"), name(Group::Bus, "araddr"));
        let cycles = lockstep::cycles();
        let seed = seeded_inputs::seed::from_env("whole top");
        let moved = lockstep::run(
            fns,
            &ports,
            &[&aclk, &user_clk],
            &[&aresetn, &user_rst],
            &[(&awaddr, &mapped), (&araddr, &mapped)],
            cycles,
            seed,
        )
        .unwrap_or_else(|m| panic!("whole top: {m} (TB_SEED={seed})"));
        let outputs = ports.iter().filter(|p| !p.input).count();
        eprintln!("whole top: {cycles} cycles, every output equal; {} of {outputs} outputs moved", moved.len());
        if cycles >= 10_000 {
            // The bus, a register output and a session output: the wiring
            // between the register file, the sessions and the top's ports.
            // What the blocks do inside is the block-level lockstep's
            // (hdl/tests/lockstep.rs), whose stimulus reaches it directly.
            for must in
                [name(Group::Bus, "rvalid"), name(Group::ToeGlobal, "fpga_ip"), name(Group::ToeSession(0), "rx_tready")]
            {
                assert!(moved.contains(&must), "whole top: the stimulus never moved `{must}` (TB_SEED={seed})");
            }
        }
    }
}
