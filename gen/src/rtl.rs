//! The user logic's Verilog: rust-hdl modules and the askama top around them.
//!
//! The top is wiring only, derived from the port lists of the two modules it
//! instantiates, so nothing is listed twice:
//!
//! - the register file `<name>_regs` (from the register map): its bus ports
//!   (`s_axil_*`) and TOE parameters (`toe_*`) become top ports; its
//!   per-session ports `s<n>_<port>` become nets;
//! - the session `<name>_session` (controller + datapath, rust-hdl), one per
//!   session: a port `reg_<port>` joins the net `s<n>_<port>`, a port
//!   `toe_<port>` becomes the top port `toe<n>_<port>` (the TOE session
//!   interface, `docs/toe_interface.md`).
//!
//! A session port with no register-file partner, or a register-file input
//! nobody drives, is an error naming the port: the two definitions must agree.

use askama::Template;

use crate::{GenError, GeneratedFile};
use hdl::verilog::Port;

/// Folder of the Verilog inside the build folder.
pub const RTL_DIR: &str = "rtl";
/// The source list, in compile order, one path per line relative to the build
/// folder: lint, synthesis, the testbench and the vendor scripts all read it.
pub const FILELIST: &str = "rtl/files.f";

struct TopPort {
    direction: &'static str,
    range: String,
    name: String,
    port: Port,
}

struct PortGroup {
    comment: String,
    ports: Vec<TopPort>,
    last: bool,
}

struct Wire {
    range: String,
    name: String,
}

struct Conn {
    port: String,
    net: String,
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
}

struct HarnessPort {
    direction: &'static str,
    range: String,
    name: String,
}

#[derive(Template)]
#[template(path = "datapath_harness.v", escape = "none")]
struct HarnessTemplate<'a> {
    name: &'a str,
    data_width: usize,
    session_module: &'a str,
    sessions: Vec<usize>,
    ports: Vec<HarnessPort>,
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
    /// Input ports of the top.
    pub input_ports: Vec<String>,
    /// Every port of the top, in declaration order.
    pub top_ports: Vec<Port>,
}

fn range(width: usize) -> String {
    if width == 1 {
        String::new()
    } else {
        format!("[{}:0] ", width - 1)
    }
}

fn top_port(p: &Port, name: String) -> TopPort {
    TopPort {
        direction: if p.direction == "input" { "input " } else { "output" },
        range: range(p.width),
        port: Port { name: name.clone(), direction: p.direction, width: p.width },
        name,
    }
}

/// The session module, the register file and the top that joins them.
pub fn generate(design: &config::Design, map: &regmap::RegisterMap) -> Result<Rtl, GenError> {
    let session = session_module(design);
    let session_text = hdl::verilog::session_verilog(design.data_width, &session)?;
    let session_ports = hdl::verilog::module_ports(&session_text, &session)?;
    let regs = register_file_module(design);
    let regs_text = hdl::register_file::register_file_verilog(design, map, &regs)?;
    let regs_ports = hdl::verilog::module_ports(&regs_text, &regs)?;
    let top = top_template(design, &regs, &regs_ports, &session, &session_ports)?;
    let top_text = top.render().map_err(|e| GenError::Template(e.to_string()))?;
    let top_ports: Vec<Port> = top.groups.iter().flat_map(|g| g.ports.iter()).map(|p| p.port.clone()).collect();
    let input_ports = top_ports.iter().filter(|p| p.direction == "input").map(|p| p.name.clone()).collect();

    let session_path = format!("{RTL_DIR}/{session}.v");
    let regs_path = format!("{RTL_DIR}/{regs}.v");
    let top_path = format!("{RTL_DIR}/{}.v", design.name);
    // The top comes last: lint and the scripts take the last file's module as the top.
    let sources = vec![session_path.clone(), regs_path.clone(), top_path.clone()];
    let filelist = sources.iter().map(|s| format!("{s}\n")).collect();
    Ok(Rtl {
        files: vec![
            GeneratedFile { path: session_path, contents: design.verilog_file(&session_text) },
            GeneratedFile { path: regs_path, contents: design.verilog_file(&regs_text) },
            GeneratedFile { path: top_path, contents: design.verilog_file(&top_text) },
            GeneratedFile { path: FILELIST.to_string(), contents: filelist },
        ],
        sources,
        input_ports,
        top_ports,
    })
}

fn top_template<'a>(
    design: &'a config::Design,
    regs: &'a str,
    regs_ports: &[Port],
    session: &'a str,
    session_ports: &[Port],
) -> Result<TopTemplate<'a>, GenError> {
    let clocking = ["user_clk", "user_rst"];
    let mismatch = |what: String| GenError::Hdl(hdl::verilog::HdlError(what));
    let mut clock_group = Vec::new();
    let mut bus_group = Vec::new();
    let mut toe_group = Vec::new();
    let mut wires = Vec::new();
    let mut regs_conns = Vec::new();
    for p in regs_ports {
        let session_group = (0..design.sessions).find(|s| p.name.starts_with(&format!("s{s}_")));
        if clocking.contains(&p.name.as_str()) {
            clock_group.push(top_port(p, p.name.clone()));
        } else if p.name.starts_with("s_axil_") {
            bus_group.push(top_port(p, p.name.clone()));
        } else if p.name.starts_with("toe_") {
            toe_group.push(top_port(p, p.name.clone()));
        } else if let Some(s) = session_group {
            let local = format!("reg_{}", &p.name[format!("s{s}_").len()..]);
            let partner = session_ports.iter().find(|q| q.name == local);
            let net = match partner {
                Some(q) if q.width != p.width || q.direction == p.direction => {
                    return Err(mismatch(format!(
                        "register file port `{}` ({} {}) does not fit session port `{local}` ({} {})",
                        p.name, p.direction, p.width, q.direction, q.width
                    )))
                }
                Some(_) => p.name.clone(),
                None if p.direction == "output" => format!("unused_{}", p.name),
                None => {
                    return Err(mismatch(format!(
                        "register file input `{}` has no session port `{local}` to drive it",
                        p.name
                    )))
                }
            };
            wires.push(Wire { range: range(p.width), name: net.clone() });
            regs_conns.push(Conn { port: p.name.clone(), net });
            continue;
        } else if p.direction == "output" {
            // Design-wide outputs nobody consumes here (the cycle counter).
            let net = format!("unused_{}", p.name);
            wires.push(Wire { range: range(p.width), name: net.clone() });
            regs_conns.push(Conn { port: p.name.clone(), net });
            continue;
        } else {
            return Err(mismatch(format!("register file input `{}` has nothing to drive it", p.name)));
        }
        regs_conns.push(Conn { port: p.name.clone(), net: p.name.clone() });
    }
    let mut units = Vec::new();
    let mut session_groups = Vec::new();
    for s in 0..design.sessions {
        let mut conns = Vec::new();
        let mut toe_ports = Vec::new();
        for q in session_ports {
            let net = match q.name.as_str() {
                "clock" => "user_clk".to_string(),
                "reset" => "user_rst".to_string(),
                name => {
                    if let Some(rest) = name.strip_prefix("toe_") {
                        let top_name = format!("toe{s}_{rest}");
                        toe_ports.push(top_port(q, top_name.clone()));
                        top_name
                    } else if let Some(rest) = name.strip_prefix("reg_") {
                        let net = format!("s{s}_{rest}");
                        if !regs_ports.iter().any(|p| p.name == net) {
                            return Err(mismatch(format!(
                                "session port `{name}` has no register file port `{net}`: add the field to the register map or rename the port"
                            )));
                        }
                        net
                    } else {
                        return Err(mismatch(format!(
                            "session port `{name}` is neither `reg_*` (register file) nor `toe_*` (TOE interface)"
                        )));
                    }
                }
            };
            conns.push(Conn { port: q.name.clone(), net });
        }
        units.push(Unit { index: s, conns });
        session_groups.push(PortGroup {
            comment: format!("TOE session interface, session {s}"),
            ports: toe_ports,
            last: false,
        });
    }
    let mut groups = vec![
        PortGroup { comment: "User clock domain".into(), ports: clock_group, last: false },
        PortGroup {
            comment: "Register bus: AXI4-Lite slave, s_axil_aclk domain".into(),
            ports: bus_group,
            last: false,
        },
        PortGroup { comment: "TOE parameters and initialisation".into(), ports: toe_group, last: false },
    ];
    groups.extend(session_groups);
    groups.retain(|g| !g.ports.is_empty());
    if let Some(g) = groups.last_mut() {
        g.last = true;
    }
    Ok(TopTemplate {
        name: &design.name,
        data_width: design.data_width,
        sessions: design.sessions,
        regs_module: regs,
        session_module: session,
        groups,
        wires,
        regs_conns,
        units,
    })
}

/// Test harness (not part of the product): `sessions` copies of the session
/// datapath with plain ports `s<n>_<port>` in a top named `module`, so the
/// testbench can test the generator, verifier and rate limiters directly.
/// Returns the Verilog files in compile order, top last.
pub fn datapath_harness(design: &config::Design, module: &str) -> Result<Vec<GeneratedFile>, GenError> {
    let datapath = format!("{module}_datapath");
    let text = hdl::verilog::datapath_verilog(design.data_width, &datapath)?;
    let ports = hdl::verilog::module_ports(&text, &datapath)?
        .into_iter()
        .filter(|p| p.name != "clock" && p.name != "reset")
        .map(|p| HarnessPort {
            direction: if p.direction == "input" { "input " } else { "output" },
            range: range(p.width),
            name: p.name,
        })
        .collect();
    let top = HarnessTemplate {
        name: module,
        data_width: design.data_width,
        session_module: &datapath,
        sessions: (0..design.sessions).collect(),
        ports,
    }
    .render()
    .map_err(|e| GenError::Template(e.to_string()))?;
    Ok(vec![
        GeneratedFile { path: format!("{datapath}.v"), contents: design.verilog_file(&text) },
        GeneratedFile { path: format!("{module}.v"), contents: design.verilog_file(&top) },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(name: &str, direction: &'static str, width: usize) -> Port {
        Port { name: name.into(), direction, width }
    }

    fn wire(session: &[Port]) -> Result<String, String> {
        let design = config::parse(&config::default_toml_with_sessions(1), &crate::board_names()).unwrap();
        let regs = [
            port("user_clk", "input", 1),
            port("s0_start", "output", 1),
            port("s0_busy", "input", 1),
            port("s0_done", "output", 1),
        ];
        top_template(&design, "r", &regs, "s", session).map(|t| t.render().unwrap()).map_err(|e| e.to_string())
    }

    #[test]
    fn ports_are_wired_by_name_and_unconsumed_outputs_are_marked_unused() {
        let v = wire(&[
            port("clock", "input", 1),
            port("reg_start", "input", 1),
            port("reg_busy", "output", 1),
            port("toe_tx_tvalid", "output", 1),
        ])
        .unwrap();
        assert!(v.contains(".reg_start(s0_start)") && v.contains(".s0_start(s0_start)"), "{v}");
        assert!(v.contains(".s0_done(unused_s0_done)"), "{v}");
        assert!(v.contains("output wire toe0_tx_tvalid") && v.contains(".toe_tx_tvalid(toe0_tx_tvalid)"), "{v}");
    }

    #[test]
    fn a_mismatch_between_the_register_file_and_the_session_is_an_error_naming_the_port() {
        let e = wire(&[port("reg_start", "input", 1), port("reg_busy", "output", 1), port("reg_bogus", "input", 1)])
            .unwrap_err();
        assert!(e.contains("`reg_bogus`") && e.contains("s0_bogus"), "{e}");
        let e = wire(&[port("reg_start", "input", 2), port("reg_busy", "output", 1)]).unwrap_err();
        assert!(e.contains("`s0_start`") && e.contains("reg_start"), "{e}");
        let e = wire(&[port("reg_start", "input", 1)]).unwrap_err();
        assert!(e.contains("register file input `s0_busy`"), "{e}");
        let e = wire(&[port("reg_start", "input", 1), port("reg_busy", "output", 1), port("stray", "input", 1)])
            .unwrap_err();
        assert!(e.contains("`stray` is neither"), "{e}");
    }
}
