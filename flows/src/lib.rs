//! Board descriptions and the generated vendor build flows of the TOE user
//! logic.
//!
//! ```text
//! constraints/<board>.toml --load_board--> Board ─┐
//! config::Design ──────────────────────────────────┼─render─> [(path, text)]
//! FlowInputs (top, RTL files, clock ports) ────────┘   vivado/*.tcl, *.xdc
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
//! let port = |name: &str, direction, width| flows::TopPort { name: name.into(), direction, width };
//! let ports = vec![
//!     port("user_clk", flows::Direction::Input, 1),
//!     port("user_rst", flows::Direction::Input, 1),
//!     port("s_axil_aclk", flows::Direction::Input, 1),
//!     port("s_axil_aresetn", flows::Direction::Input, 1),
//!     port("toe_init", flows::Direction::Output, 1),
//! ];
//! let inputs = flows::FlowInputs::standard(&design, vec!["rtl/toe_user_logic.v".into()]).with_ports(ports);
//! let files = flows::render(&design, &board, &inputs).unwrap();
//! assert!(files.iter().any(|(path, _)| path == "vivado/ooc_synth.tcl"));
//! ```

mod board;
mod board_top;
mod render;

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

/// What the scripts build: the generated top, its sources and its clocks.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowInputs {
    /// Module name of the generated top.
    pub top_module: String,
    /// Verilog sources, relative to the build folder ("rtl/toe_user_logic.v").
    pub rtl_files: Vec<String>,
    /// Every clock port of the top; all are asynchronous to each other.
    pub clocks: Vec<ClockPort>,
    /// Every port of the top, in declaration order: the board top
    /// (`rtl/<top>_board.v`) and the TOE core's black box are derived from it.
    pub top_ports: Vec<TopPort>,
}

/// Direction of a port of the generated top.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Input,
    Output,
}

/// A port of the generated top.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopPort {
    pub name: String,
    pub direction: Direction,
    pub width: usize,
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
            top_ports: Vec::new(),
        }
    }

    /// The same inputs with the top's port list (required by [`render`]).
    pub fn with_ports(mut self, top_ports: Vec<TopPort>) -> FlowInputs {
        self.top_ports = top_ports;
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
