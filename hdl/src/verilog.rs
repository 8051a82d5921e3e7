//! Verilog of rust-hdl blocks under a chosen module name.

use std::fmt;

use config::ports::{Direction, Group, Port};
use rust_hdl::core::atom::{Atom, AtomKind};
use rust_hdl::prelude::*;

use crate::beat_check::BeatCheck;
use crate::datapath::Datapath;
use crate::prefix_overlay::PrefixOverlay;
use crate::session::Session;

/// A block that rust-hdl cannot turn into sound Verilog.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HdlError(pub String);

impl fmt::Display for HdlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HdlError {}

/// The Verilog of `block` with its top module named `module` (rust-hdl names
/// it `top`; submodules are `module$child...`). Runs rust-hdl's checks first
/// (unconnected signals, logic loops, writes to inputs) and refuses a body
/// without code: a missing `#[hdl_gen]` silently emits an empty module.
pub fn block_verilog<B: Block>(block: &mut B, module: &str) -> Result<String, HdlError> {
    block.connect_all();
    check_all(block).map_err(|e| HdlError(format!("rust-hdl check of `{module}` failed: {e:?}")))?;
    let mut defines = ModuleDefines::default();
    block.accept(module, &mut defines);
    let text = defines.defines();
    let header = format!("module {module}(");
    let start = text.find(&header).ok_or_else(|| HdlError(format!("rust-hdl emitted no module `{module}`")))?;
    let body = &text[start..text[start..].find("endmodule").map_or(text.len(), |e| start + e)];
    if !body.contains("// Update code") && !body.contains("// Sub module instances") {
        return Err(HdlError(format!("module `{module}` has an empty body (is `#[hdl_gen]` missing?)")));
    }
    Ok(text)
}

/// Builds `$block::<W, K>` for a configured width (one of
/// [`config::DATA_WIDTHS`]; an arm per entry), with `default()` or the
/// constructor given, and returns what `$f` makes of it. A leaf with one
/// parameter names it: `Block<W>` (the data width) or `Block<K>` (the
/// bytes of a beat), built with `default()`.
macro_rules! by_width {
    ($width:expr, $block:ident<W>, $f:expr) => {
        match $width {
            64 => ($f)(&mut $block::<64>::default()),
            128 => ($f)(&mut $block::<128>::default()),
            256 => ($f)(&mut $block::<256>::default()),
            512 => ($f)(&mut $block::<512>::default()),
            1024 => ($f)(&mut $block::<1024>::default()),
            other => Err(HdlError(format!("unsupported data width {other}: use {}", config::data_widths_text()))),
        }
    };
    ($width:expr, $block:ident<K>, $f:expr) => {
        match $width {
            64 => ($f)(&mut $block::<8>::default()),
            128 => ($f)(&mut $block::<16>::default()),
            256 => ($f)(&mut $block::<32>::default()),
            512 => ($f)(&mut $block::<64>::default()),
            1024 => ($f)(&mut $block::<128>::default()),
            other => Err(HdlError(format!("unsupported data width {other}: use {}", config::data_widths_text()))),
        }
    };
    ($width:expr, $block:ident, $f:expr) => {
        by_width!($width, $block::default(), $f)
    };
    ($width:expr, $block:ident :: $ctor:ident ( $($arg:expr),* ), $f:expr) => {
        match $width {
            64 => ($f)(&mut $block::<64, 8>::$ctor($($arg),*)),
            128 => ($f)(&mut $block::<128, 16>::$ctor($($arg),*)),
            256 => ($f)(&mut $block::<256, 32>::$ctor($($arg),*)),
            512 => ($f)(&mut $block::<512, 64>::$ctor($($arg),*)),
            1024 => ($f)(&mut $block::<1024, 128>::$ctor($($arg),*)),
            other => Err(HdlError(format!("unsupported data width {other}: use {}", config::data_widths_text()))),
        }
    };
}

/// The per-session module `module` of the product for a data width of
/// `width` bits and a user clock of `user_clock_khz`: the session with its
/// datapath ([`Session`]); its ports face the register file and the TOE.
pub fn session_verilog(width: usize, user_clock_khz: u32, module: &str) -> Result<String, HdlError> {
    by_width!(width, Session::new(user_clock_khz), |b| block_verilog(b, module))
}

/// A user clock for building a session whose ports alone are wanted: the
/// clock sets a constant of the watchdog, never a port.
const ANY_CLOCK_KHZ: u32 = 250_000;

/// The session datapath alone ([`Datapath`]: generator, verifier, rate
/// limiters, with plain start/abort ports): the testbench drives it directly
/// to test those blocks without a TOE.
pub fn datapath_verilog(width: usize, module: &str) -> Result<String, HdlError> {
    by_width!(width, Datapath, |b| block_verilog(b, module))
}

/// The verifier's byte check alone ([`BeatCheck`]) at `width` bits, for
/// the test that proves its simulation form equal to its synthesis form.
pub fn beat_check_verilog(width: usize, module: &str) -> Result<String, HdlError> {
    by_width!(width, BeatCheck, |b| block_verilog(b, module))
}

/// The byte count of a beat's `tkeep` alone
/// ([`KeepCount`](crate::keep_count::KeepCount)) for `width` bits of data,
/// for the test that proves its simulation form equal to its synthesis form.
pub fn keep_count_verilog(width: usize, module: &str) -> Result<String, HdlError> {
    use crate::keep_count::KeepCount;
    by_width!(width, KeepCount<K>, |b| block_verilog(b, module))
}

/// The generator's prefix overlay alone ([`PrefixOverlay`]) at `width`
/// bits, for the test that proves its simulation form equal to its
/// synthesis form.
pub fn prefix_overlay_verilog(width: usize, module: &str) -> Result<String, HdlError> {
    by_width!(width, PrefixOverlay<W>, |b| block_verilog(b, module))
}

/// The pattern at any byte alone ([`PatternAt`](crate::pattern_at::PatternAt))
/// at `width` bits, for the test that proves its simulation form equal to
/// its synthesis form.
pub fn pattern_at_verilog(width: usize, module: &str) -> Result<String, HdlError> {
    use crate::pattern_at::PatternAt;
    by_width!(width, PatternAt<W>, |b| block_verilog(b, module))
}

/// The pattern at any byte ([`PatternAt`](crate::pattern_at::PatternAt))
/// at `width` bits as the project's writer emits it, module
/// `<prefix>_pattern_at`: issue 29's message beats, verilated on its own by
/// its tests until a session holds it.
pub fn pattern_at_modules(width: usize, prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    use crate::pattern_at::PatternAt;
    let root = format!("{prefix}_pattern_at");
    by_width!(width, PatternAt<W>, |b| crate::emit::emit(b, &root, prefix))
}

/// The message ends of a receive stream ([`MessageEnds`](crate::message_ends::MessageEnds))
/// as the project's writer emits it, module `<prefix>_message_ends`, as
/// [`rtt_meter_modules`].
pub fn message_ends_modules(prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    let root = format!("{prefix}_message_ends");
    crate::emit::emit(&mut crate::message_ends::MessageEnds::default(), &root, prefix)
}

/// The latency modes' transmit stream ([`MessageSource`](crate::message_source::MessageSource))
/// at `width` bits as the project's writer emits it, root
/// `<prefix>_message_source`, children first, as [`rtt_meter_modules`].
pub fn message_source_modules(width: usize, prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    use crate::message_source::MessageSource;
    let root = format!("{prefix}_message_source");
    by_width!(width, MessageSource::new(), |b| crate::emit::emit(b, &root, prefix))
}

/// The latency modes' part of a session ([`RoundTrips`](crate::round_trips::RoundTrips))
/// at `width` bits as the project's writer emits it, root
/// `<prefix>_round_trips`, children first, as [`rtt_meter_modules`].
pub fn round_trips_modules(width: usize, prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    use crate::round_trips::RoundTrips;
    let root = format!("{prefix}_round_trips");
    by_width!(width, RoundTrips::new(), |b| crate::emit::emit(b, &root, prefix))
}

/// The round-trip meter ([`RttMeter`](crate::rtt_meter::RttMeter)) as the
/// project's writer emits it, root `<prefix>_rtt_meter`, children first:
/// issue 29's measurement, verilated on its own by its tests until a session
/// holds it.
pub fn rtt_meter_modules(prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    let root = format!("{prefix}_rtt_meter");
    crate::emit::emit(&mut crate::rtt_meter::RttMeter::default(), &root, prefix)
}

/// The round-trip histogram ([`RttHistogram`](crate::rtt_histogram::RttHistogram))
/// as the project's writer emits it, root `<prefix>_rtt_histogram`, as
/// [`rtt_meter_modules`].
pub fn rtt_histogram_modules(prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    let root = format!("{prefix}_rtt_histogram");
    crate::emit::emit(&mut crate::rtt_histogram::RttHistogram::default(), &root, prefix)
}

/// The ports of `module` as `text` (Verilog this workspace generated)
/// declares them: (name, direction, width) in declaration order. For tests
/// that check generated text against the typed port lists; nothing learns
/// structure from it.
pub fn module_ports(text: &str, module: &str) -> Result<Vec<(String, Direction, usize)>, HdlError> {
    let start = [format!("module {module}("), format!("module {module} (")]
        .iter()
        .find_map(|header| text.find(header.as_str()))
        .ok_or_else(|| HdlError(format!("no module `{module}` in the Verilog")))?;
    let end = start + text[start..].find("endmodule").unwrap_or(text.len() - start);
    let mut ports = Vec::new();
    for line in text[start..end].lines().map(|l| l.split("//").next().unwrap_or("").trim()) {
        // `input wire x;` (rust-hdl) or `input  wire [7:0] x,` (an ANSI header).
        let mut words = line.splitn(3, char::is_whitespace).filter(|w| !w.is_empty());
        let direction = match words.next() {
            Some("input") => Direction::Input,
            Some("output") => Direction::Output,
            _ => continue,
        };
        let rest = line[line.find(char::is_whitespace).unwrap_or(line.len())..].trim_start();
        let Some(rest) = rest.strip_prefix("wire").or_else(|| rest.strip_prefix("reg")) else { continue };
        let rest = rest.trim().trim_end_matches([';', ',']);
        let (width, name) = match rest.strip_prefix('[') {
            Some(range) => {
                let (msb, name) =
                    range.split_once(":0]").ok_or_else(|| HdlError(format!("unexpected port declaration `{line}`")))?;
                let msb: usize = msb.parse().map_err(|_| HdlError(format!("unexpected port range in `{line}`")))?;
                (msb + 1, name.trim())
            }
            None => (1, rest.trim()),
        };
        ports.push((name.to_string(), direction, width));
    }
    Ok(ports)
}

/// Collects the ports of the top block: the parameters (inputs and outputs)
/// of the outermost scope, in declaration order.
struct PortProbe {
    depth: usize,
    ports: Vec<(String, Direction, usize)>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let direction = match signal.kind() {
            AtomKind::InputParameter => Direction::Input,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => Direction::Output,
            _ => return,
        };
        self.ports.push((name.to_string(), direction, signal.bits()));
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// The ports of `block` as rust-hdl declares them (name, direction, width),
/// in declaration order, read from the block itself, not from its Verilog.
pub fn block_ports<B: Block>(block: &mut B) -> Vec<(String, Direction, usize)> {
    block.connect_all();
    let mut probe = PortProbe { depth: 0, ports: Vec::new() };
    block.accept("top", &mut probe);
    probe.ports
}

/// The session datapath's child blocks ([`Datapath`]: generator, limiters,
/// verifier) at `width` bits as the project's writer names them: (instance
/// field, module), the modules named with `prefix` as [`datapath_modules`]
/// names them. Read from the block's hierarchy, not from its Verilog.
pub fn datapath_children(width: usize, prefix: &str) -> Result<Vec<(String, String)>, HdlError> {
    by_width!(width, Datapath, |b| Ok::<_, HdlError>(crate::emit::children(b, prefix)))
}

/// The ports of the session module ([`Session`]) at `width` bits,
/// grouped by what they face: `Group::Clock` (`clock`, `reset`),
/// `Group::RegisterSession(0)` (its `reg_<x>` ports, local name `<x>`) and
/// `Group::ToeSession(0)` (its `toe_<x>` ports). `name` is the port's name on
/// the session module; the assembly renames per session.
pub fn session_ports(width: usize) -> Result<Vec<Port>, HdlError> {
    let ports = by_width!(width, Session::new(ANY_CLOCK_KHZ), |b| Ok::<_, HdlError>(block_ports(b)))?;
    ports
        .into_iter()
        .map(|(name, direction, width)| {
            let (group, local) = if name == "clock" || name == "reset" {
                (Group::Clock, name.as_str())
            } else if let Some(local) = name.strip_prefix("reg_") {
                (Group::RegisterSession(0), local)
            } else if let Some(local) = name.strip_prefix("shared_") {
                (Group::RegisterShared, local)
            } else if let Some(local) = name.strip_prefix("toe_") {
                (Group::ToeSession(0), local)
            } else {
                return Err(HdlError(format!(
                    "session port `{name}` is neither `clock`/`reset`, `reg_*` (register file), `shared_*` (register file, every session) nor `toe_*` (TOE interface)"
                )));
            };
            Ok(Port { local: local.to_string(), name: name.clone(), group, direction, width })
        })
        .collect()
}

/// The ports of the session datapath ([`Datapath`]) at `width` bits: `clock`
/// and `reset` in `Group::Clock`, every other port in `Group::Datapath(0)`
/// under its own name.
pub fn datapath_ports(width: usize) -> Result<Vec<Port>, HdlError> {
    let ports = by_width!(width, Datapath, |b| Ok::<_, HdlError>(block_ports(b)))?;
    Ok(ports
        .into_iter()
        .map(|(name, direction, width)| {
            let group = if name == "clock" || name == "reset" { Group::Clock } else { Group::Datapath(0) };
            Port { local: name.clone(), name, group, direction, width }
        })
        .collect())
}

/// The per-session modules of the product, one per block type, from the
/// project's own writer ([`crate::emit`]): the session is `<prefix>_session`,
/// its blocks `<prefix>_<block>`; children before parents.
pub fn session_modules(width: usize, user_clock_khz: u32, prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    let root = format!("{prefix}_session");
    by_width!(width, Session::new(user_clock_khz), |b| crate::emit::emit(b, &root, prefix))
}

/// The session datapath's modules ([`Datapath`] as `<prefix>_datapath`),
/// from the project's own writer.
pub fn datapath_modules(width: usize, prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    let root = format!("{prefix}_datapath");
    by_width!(width, Datapath, |b| crate::emit::emit(b, &root, prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The datapath's children are its fields, each an instance `u_<field>`
    /// of a module the writer emits.
    #[test]
    fn datapath_children_are_modules_of_its_verilog() {
        let children = datapath_children(64, "d").unwrap();
        let fields: Vec<&str> = children.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["generator", "tx_limiter", "rx_limiter", "verifier", "round_trips"]);
        let modules = datapath_modules(64, "d").unwrap();
        let datapath = &modules.last().unwrap().text;
        for (field, module) in &children {
            assert!(modules.iter().any(|m| &m.name == module), "{module}");
            assert!(datapath.contains(&format!("{module} u_{field} (")), "{field}");
        }
        assert!(datapath_children(96, "d").is_err());
    }

    /// The session's watchdog, elapsed timer and peer latch are child
    /// blocks, each a module of its own with a body.
    #[test]
    fn session_children_are_its_datapath_watchdog_timer_and_peer_latch() {
        let modules = session_modules(64, ANY_CLOCK_KHZ, "s").unwrap();
        let session = &modules.last().unwrap().text;
        for (module, field) in [
            ("s_datapath", "datapath"),
            ("s_watchdog", "watchdog"),
            ("s_elapsed_timer", "timer"),
            ("s_peer_latch", "peer"),
        ] {
            assert!(session.contains(&format!("{module} u_{field} (")), "no instance u_{field} of {module}");
            let text = &modules.iter().find(|m| m.name == module).unwrap_or_else(|| panic!("no module {module}")).text;
            assert!(text.contains("always @("), "{module} has an empty body");
        }
    }

    /// The typed port lists and the Verilog rust-hdl writes for the same
    /// block agree, name for name, at every width.
    #[test]
    fn probed_ports_are_the_declared_ports() {
        for &width in config::DATA_WIDTHS.iter() {
            let text = session_verilog(width, ANY_CLOCK_KHZ, "s").unwrap();
            let typed: Vec<_> =
                session_ports(width).unwrap().into_iter().map(|p| (p.name, p.direction, p.width)).collect();
            assert_eq!(typed, module_ports(&text, "s").unwrap(), "session at {width} bits");
            let text = datapath_verilog(width, "d").unwrap();
            let typed: Vec<_> =
                datapath_ports(width).unwrap().into_iter().map(|p| (p.name, p.direction, p.width)).collect();
            assert_eq!(typed, module_ports(&text, "d").unwrap(), "datapath at {width} bits");
        }
    }

    #[test]
    fn session_ports_are_grouped_by_what_they_face() {
        let ports = session_ports(64).unwrap();
        let find = |name: &str| ports.iter().find(|p| p.name == name).unwrap();
        assert_eq!((find("reg_start").group, find("reg_start").local.as_str()), (Group::RegisterSession(0), "start"));
        let tdata = find("toe_tx_tdata");
        assert_eq!(
            (tdata.group, tdata.local.as_str(), tdata.direction, tdata.width),
            (Group::ToeSession(0), "tx_tdata", Direction::Output, 64)
        );
        assert_eq!(find("clock").group, Group::Clock);
    }
}
