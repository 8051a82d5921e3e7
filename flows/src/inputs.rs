//! What the flows are rendered from besides the design and the board: the
//! generated top's module name, its sources, its clocks, its ports (the port
//! plan) and its clock-domain crossings, with the checks [`crate::render()`]
//! runs on them before anything is written.

use config::crossings::Crossings;
use config::ports::PortPlan;

use crate::board::FlowError;

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
                ClockPort { port: USER_CLOCK_PORT.to_string(), period_ns: design.user_clock_period_ns() },
                ClockPort { port: REG_CLOCK_PORT.to_string(), period_ns: design.reg_clock_period_ns() },
            ],
            ports: PortPlan::default(),
            crossings: Crossings::default(),
        }
    }

    /// The same inputs with the top's port plan (required by [`crate::render()`]).
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

    /// Each field well-formed, or the error naming it (the ports are checked
    /// where the board top places them).
    pub(crate) fn check(&self) -> Result<(), FlowError> {
        let bad = |field: &str, message: String| Err(FlowError::Inputs { field: field.to_string(), message });
        if self.top_module.is_empty() || self.top_module.chars().any(char::is_whitespace) {
            return bad(
                "top_module",
                format!("{:?} must be a non-empty module name without whitespace", self.top_module),
            );
        }
        if self.rtl_files.is_empty() {
            return bad("rtl_files", "must list at least one Verilog file".into());
        }
        for (i, f) in self.rtl_files.iter().enumerate() {
            if f.is_empty() || f.contains('\n') || f.starts_with('/') {
                return bad(
                    &format!("rtl_files[{i}]"),
                    format!("{f:?} must be a non-empty path relative to the build folder"),
                );
            }
        }
        if self.ports.ports().is_empty() {
            return bad("ports", "must list the top's ports: the board top is derived from them".into());
        }
        if self.clocks.is_empty() {
            return bad("clocks", "must list at least one clock port".into());
        }
        for (i, c) in self.clocks.iter().enumerate() {
            if c.port.is_empty() || c.port.chars().any(char::is_whitespace) {
                return bad(
                    &format!("clocks[{i}].port"),
                    format!("{:?} must be a port name without whitespace", c.port),
                );
            }
            if !(c.period_ns.is_finite() && c.period_ns > 0.0) {
                return bad(
                    &format!("clocks[{i}].period_ns"),
                    format!("{} must be a positive number of ns", c.period_ns),
                );
            }
            if self.clocks[..i].iter().any(|o| o.port == c.port) {
                return bad(&format!("clocks[{i}].port"), format!("{:?} appears twice: each clock port once", c.port));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_inputs_follow_the_design_clocks() {
        let d = config::parse(config::DEFAULT_TOML).unwrap();
        let i = FlowInputs::standard(&d, vec!["rtl/x.v".into()]);
        assert_eq!(i.top_module, "toe_user_logic");
        assert_eq!(i.clocks[0], ClockPort { port: "user_clk".into(), period_ns: 4.0 });
        assert_eq!(i.clocks[1].port, "s_axil_aclk");
    }
}
