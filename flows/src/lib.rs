//! Board descriptions and the generated vendor build flows of the TOE user
//! logic.
//!
//! ```text
//! constraints/<board>.toml --load_board--> Board ─┐
//! config::Design ──────────────────────────────────┼─render─> [(path, text)]
//! FlowInputs (top, RTL files, clocks, ────────────┘   vivado/*.tcl, *.xdc
//!   port plan, crossings)
//!                                                      quartus/*.tcl, *.sdc, *.qsf
//!                                                      README.md
//! ```
//!
//! The board's vendor gets the full board build; both vendors get the
//! out-of-context synthesis of the user logic (the other vendor's on the first
//! board of that vendor), so one configuration gives resource and timing
//! figures on AMD and Altera parts alike.
//!
//! ```
//! let design = config::parse(config::DEFAULT_TOML, &flows::board_names()).unwrap();
//! let board = flows::load_board(&design.board).unwrap();
//! use config::ports::{Direction::{Input, Output}, Group, Port, PortPlan};
//! let ports = PortPlan::new(vec![
//!     Port::new(Group::Clock, "user_clk", Input, 1),
//!     Port::new(Group::Clock, "user_rst", Input, 1),
//!     Port::new(Group::Bus, "aclk", Input, 1),
//!     Port::new(Group::Bus, "aresetn", Input, 1),
//!     Port::new(Group::ToeGlobal, "init", Output, 1),
//! ]);
//! let crossings = config::crossings::Crossings {
//!     sync_flops: vec!["req_sync/ff1".into(), "req_sync/ff2".into()],
//!     to_user: vec!["req_data".into()],
//!     to_bus: vec!["resp_data".into()],
//! };
//! let inputs = flows::FlowInputs::standard(&design, vec!["rtl/toe_user_logic.v".into()])
//!     .with_ports(ports)
//!     .with_crossings(crossings);
//! let files = flows::render(&design, &board, &inputs).unwrap();
//! assert!(files.iter().any(|(path, _)| path == "vivado/ooc_synth.tcl"));
//! ```

mod board;
mod board_top;
mod render;

use config::crossings::Crossings;
use config::ports::PortPlan;

pub use board::{
    board_names, load_board, parse_board, Board, BoardClock, FlowError, Lane, Pcie, Qsfp,
    RegisterKind, RegisterPath, Vendor,
};
pub use board_top::{BoardFiles, PLATFORM_INST};
pub use render::{render, TOE_INST, USER_INST};

/// A clock port of the generated top and its period.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockPort {
    pub port: String,
    pub period_ns: f64,
}

/// What the scripts build: the generated top, its sources, its clocks, its
/// ports and its clock-domain crossings.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowInputs {
    /// Module name of the generated top.
    pub top_module: String,
    /// Verilog sources, relative to the build folder ("rtl/toe_user_logic.v").
    pub rtl_files: Vec<String>,
    /// Every clock port of the top; all are asynchronous to each other.
    pub clocks: Vec<ClockPort>,
    /// Every port of the top, in declaration order: the board top
    /// (`rtl/<top>_board.v`) and the TOE core's black box are derived from
    /// it, each port placed by its [`Group`](config::ports::Group).
    pub ports: PortPlan,
    /// The register file's clock-domain crossings, which the constraints
    /// name. They are constrained when the top has both `user_clk` and
    /// `s_axil_aclk`; when they are empty (or either clock is missing) the
    /// constraints have no crossing section and declare the clocks
    /// asynchronous to each other instead, as for a top without a register
    /// crossing.
    pub crossings: Crossings,
}

/// Port of the user clock on the generated top.
pub const USER_CLOCK_PORT: &str = "user_clk";
/// Port of the AXI4-Lite register clock on the generated top.
pub const REG_CLOCK_PORT: &str = "s_axil_aclk";

impl FlowInputs {
    /// The generated top's standard clocks: `user_clk` from
    /// `user_clock_mhz` and `s_axil_aclk` from `reg_clock_mhz`.
    pub fn standard(design: &config::Design, rtl_files: Vec<String>) -> FlowInputs {
        FlowInputs {
            top_module: design.name.clone(),
            rtl_files,
            clocks: vec![
                ClockPort {
                    port: USER_CLOCK_PORT.to_string(),
                    period_ns: design.user_clock_period_ns(),
                },
                ClockPort {
                    port: REG_CLOCK_PORT.to_string(),
                    period_ns: design.reg_clock_period_ns(),
                },
            ],
            ports: PortPlan::default(),
            crossings: Crossings::default(),
        }
    }

    /// The same inputs with the top's port plan (required by [`render`]).
    pub fn with_ports(mut self, ports: PortPlan) -> FlowInputs {
        self.ports = ports;
        self
    }

    /// The same inputs with the top's clock-domain crossings (without them
    /// the constraints have no crossing section).
    pub fn with_crossings(mut self, crossings: Crossings) -> FlowInputs {
        self.crossings = crossings;
        self
    }
}

/// A Tcl word that stands for `s` literally: braced when that is enough,
/// otherwise every special character backslash-escaped. rust-hdl names such as
/// `iface$field` must reach Vivado and Quartus unsubstituted.
pub fn tcl_word(s: &str) -> String {
    let braceable = !s.is_empty()
        && !s
            .chars()
            .any(|c| matches!(c, '{' | '}' | '\\' | '\n' | '\r'));
    if braceable {
        return format!("{{{s}}}");
    }
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '/' || c == '-' => {
                out.push(c)
            }
            c => {
                out.push('\\');
                out.push(c);
            }
        }
    }
    if out.is_empty() {
        out.push_str("{}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcl_word_braces_dollar_names() {
        assert_eq!(tcl_word("iface$field"), "{iface$field}");
        assert_eq!(tcl_word("a[0]"), "{a[0]}");
        assert_eq!(
            tcl_word("True Differential Signaling"),
            "{True Differential Signaling}"
        );
        assert_eq!(tcl_word("odd{name"), "odd\\{name");
        assert_eq!(tcl_word("a$b}c"), "a\\$b\\}c");
        assert_eq!(tcl_word(""), "{}");
    }

    #[test]
    fn standard_inputs_follow_the_design_clocks() {
        let d = config::parse(config::DEFAULT_TOML, &board_names()).unwrap();
        let i = FlowInputs::standard(&d, vec!["rtl/x.v".into()]);
        assert_eq!(i.top_module, "toe_user_logic");
        assert_eq!(
            i.clocks[0],
            ClockPort {
                port: "user_clk".into(),
                period_ns: 4.0
            }
        );
        assert_eq!(i.clocks[1].port, "s_axil_aclk");
    }
}
