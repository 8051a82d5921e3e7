//! The TOML configuration of the TOE user logic.
//!
//! `parse` turns configuration text into a validated [`Design`]; nothing else
//! in the workspace reads TOML. Every rejection is a [`ConfigError`] that names
//! the key and the valid range or form, so a user can fix the file without
//! reading this code.
//!
//! ```
//! let design = config::parse(config::DEFAULT_TOML).unwrap();
//! assert_eq!(design.sessions, 4);
//! assert_eq!(design.data_width, 1024);
//! assert_eq!(design.peak_mb_per_s(), 32_000.0);
//! ```

pub mod boards;
pub mod codes;
pub mod crossings;
pub mod ports;
mod resolve;
pub mod toml_reader;
mod variant;

pub use boards::names as board_names;
pub use resolve::{resolve, Origin, Resolved};
pub use variant::Variant;

use std::collections::BTreeSet;
use std::fmt;
use std::net::Ipv4Addr;

use sha2::{Digest, Sha256};
use toml::{Table, Value};
use toml_reader::{Missing, Section, Wording};

pub use codes::{LastPacketMode, ToeMode};

/// The embedded default configuration: the reference demo.
pub const DEFAULT_TOML: &str = include_str!("../default.toml");

/// The board the default configuration targets (`board.name` in
/// [`DEFAULT_TOML`]): the known-board list of tests that parse the default.
pub const DEFAULT_BOARD: &str = "agilex7-i-devkit";

/// The generator's name, as banners print it.
pub const TOOL: &str = "toe-user-logic gen";
/// The workspace version, shared by every crate and so by `gen`.
pub const TOOL_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Session count limits (the register map and the demo have four).
pub const MAX_SESSIONS: usize = 4;
/// Supported data widths in bits.
pub const DATA_WIDTHS: [usize; 5] = [64, 128, 256, 512, 1024];

/// [`DATA_WIDTHS`] as messages list them: "64, 128, 256, 512 or 1024".
pub fn data_widths_text() -> String {
    let (last, rest) = DATA_WIDTHS.split_last().expect("DATA_WIDTHS is not empty");
    let rest: Vec<String> = rest.iter().map(usize::to_string).collect();
    format!("{} or {last}", rest.join(", "))
}

/// The default configuration text with `sessions` sessions, its port lists
/// cut to match: the starting point for tests and for smaller designs.
pub fn default_toml_with_sessions(sessions: usize) -> String {
    let ports = |base: usize| (0..sessions).map(|i| (base + i).to_string()).collect::<Vec<_>>().join(", ");
    DEFAULT_TOML
        .replacen("sessions = 4", &format!("sessions = {sessions}"), 1)
        .replacen("[60000, 60001, 60002, 60003]", &format!("[{}]", ports(60000)), 1)
        .replacen("[61000, 61001, 61002, 61003]", &format!("[{}]", ports(61000)), 1)
}

/// A configuration that passed validation.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    /// Verilog identifier of the generated top module.
    pub name: String,
    /// Number of TCP sessions, 1..=4.
    pub sessions: usize,
    /// Stream data width in bits, one of [`DATA_WIDTHS`].
    pub data_width: usize,
    /// User (TOE data) clock in MHz.
    pub user_clock_mhz: f64,
    /// AXI4-Lite register clock in MHz.
    pub reg_clock_mhz: f64,
    /// Board name, one of the boards under `constraints/`.
    pub board: String,
    /// Which TCP offload engine the design holds.
    pub toe_core: ToeCore,
    /// Path of the licensed TOE core's netlist or IP, as written in the
    /// config; unused with [`ToeCore::Open`].
    pub toe_netlist: String,
    /// Reset values of the TOE parameter registers.
    pub defaults: ToeDefaults,
    /// First 16 hex digits of the SHA-256 of the canonical configuration.
    pub config_hash: String,
}

/// The TCP offload engine of a design (`toe.core`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToeCore {
    /// A licensed core outside the generated RTL: the generated top is the
    /// user logic, with the TOE session interface as its ports, and the
    /// board top instantiates the core (`toe.netlist`).
    Licensed,
    /// The project's own engine (`docs/open_engine.md`), inside the
    /// generated top, whose network port is the MAC's AXI4-Stream.
    Open {
        /// The largest IPv4 packet in bytes, [`MTU_RANGE`].
        mtu: usize,
    },
}

impl ToeCore {
    /// The configuration's spelling (`toe.core`).
    pub fn name(self) -> &'static str {
        match self {
            ToeCore::Licensed => "licensed",
            ToeCore::Open { .. } => "open",
        }
    }
}

/// The MTUs the open engine takes (`toe.mtu`): IPv4's minimum reassembly
/// size up to jumbo frames.
pub const MTU_RANGE: (usize, usize) = (576, 9000);

/// Reset values of the TOE parameter registers.
#[derive(Clone, Debug, PartialEq)]
pub struct ToeDefaults {
    pub mode: ToeMode,
    pub fpga_mac: [u8; 6],
    pub fpga_ip: Ipv4Addr,
    pub target_mac: [u8; 6],
    pub target_ip: Ipv4Addr,
    /// Window update gap in KB, 0..=1023.
    pub window_update_gap_kb: u16,
    pub last_packet_mode: LastPacketMode,
    /// FPGA port per session.
    pub fpga_ports: Vec<u16>,
    /// Target port per session.
    pub target_ports: Vec<u16>,
}

impl Design {
    /// Bytes per beat.
    pub fn bytes_per_beat(&self) -> usize {
        self.data_width / 8
    }
    /// Peak user bandwidth in MB/s (10^6 bytes/s): `W/8 * f_user`.
    pub fn peak_mb_per_s(&self) -> f64 {
        self.bytes_per_beat() as f64 * self.user_clock_mhz
    }
    /// User clock in kHz, as the design-parameter register reports it.
    pub fn user_clock_khz(&self) -> u32 {
        (self.user_clock_mhz * 1000.0).round() as u32
    }
    /// User clock period in ns, for constraints.
    pub fn user_clock_period_ns(&self) -> f64 {
        1000.0 / self.user_clock_mhz
    }
    /// The lines every generated file opens with, without comment markers:
    /// tool and version, and the configuration hash. Never a time, so the same
    /// configuration gives the same bytes.
    pub fn banner(&self) -> [String; 2] {
        [
            format!(
                "Generated by {TOOL} {} for design `{}`, configuration {}.",
                TOOL_VERSION, self.name, self.config_hash
            ),
            "Do not edit: change the configuration and run `cargo run -p gen`.".to_string(),
        ]
    }
    /// A generated Verilog file: the banner as comments, then the house
    /// prologue (`resetall`, `timescale 1ns / 1ps`, `default_nettype none`),
    /// `body`, and the epilogue that restores the defaults for whatever file
    /// a tool reads next.
    pub fn verilog_file(&self, body: &str) -> String {
        let mut out = String::new();
        for line in self.banner() {
            out.push_str("// ");
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(&framed_verilog(body));
        out
    }

    /// Register clock period in ns, for constraints.
    pub fn reg_clock_period_ns(&self) -> f64 {
        1000.0 / self.reg_clock_mhz
    }
}

/// `body` between the house prologue (`resetall`, `timescale 1ns / 1ps`,
/// `default_nettype none`) and the epilogue that restores the defaults:
/// a generated Verilog file without its banner ([`Design::verilog_file`]
/// adds that).
pub fn framed_verilog(body: &str) -> String {
    format!(
        "`resetall\n`timescale 1ns / 1ps\n`default_nettype none\n\n{}\n\n`resetall\n`default_nettype wire\n",
        body.trim_matches('\n')
    )
}

/// A rejected configuration: which key, and what it must be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// Dotted key (`design.sessions`), or empty for a syntax error.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.key.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "`{}`: {}", self.key, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

fn err<T>(key: &str, message: impl Into<String>) -> Result<T, ConfigError> {
    Err(ConfigError { key: key.to_string(), message: message.into() })
}

/// The largest configuration file [`read_file`] reads: 1 MiB, far above
/// any real configuration (the default is a few kB).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// The text of the configuration file `path`, the one reader of every
/// `--config` (gen, yardstick, synth_report, the virtual board): at most
/// [`MAX_FILE_BYTES`] read, so a larger file, or an endless one such as
/// `/dev/urandom`, is refused without reading further; UTF-8 only. Each
/// error is one line naming the file.
pub fn read_file(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let origin = path.display();
    let cannot = |e: std::io::Error| format!("cannot read {origin}: {e}");
    let mut bytes = Vec::new();
    std::fs::File::open(path).and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)).map_err(cannot)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(format!(
            "{origin}: larger than {MAX_FILE_BYTES} bytes (1 MiB), the limit of a configuration file: not read"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{origin}: not UTF-8 text (byte {} is not valid UTF-8); a configuration is a TOML file, UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Parses and validates configuration text laid over the embedded default
/// ([`resolve`]: keys the text leaves out keep the default's value).
/// `board.name` must name a board of the catalogue ([`boards`]).
pub fn parse(text: &str) -> Result<Design, ConfigError> {
    parse_table(resolve(text)?.table)
}

/// How configuration messages word a missing or unknown key.
const WORDING: Wording = Wording {
    key_list: "`gen --print-default-config` for every key",
    missing: Missing::SeeKeyList,
    found_separator: ", ",
};

/// Validates a resolved configuration table ([`resolve`]).
fn parse_table(root: Table) -> Result<Design, ConfigError> {
    let mut root = Section::new(WORDING, root);
    let mut design = root.table("design")?;
    let mut board = root.table("board")?;
    let mut toe = root.table("toe")?;
    let mut defaults = root.table("defaults")?;
    root.finish()?;

    let name = design.string("name", "")?;
    if let Some(problem) = verilog_identifier_problem(&name) {
        return err("design.name", problem);
    }
    let sessions = design.integer("sessions", 1, MAX_SESSIONS as i64)? as usize;
    let widths = (DATA_WIDTHS[0] as i64, DATA_WIDTHS[DATA_WIDTHS.len() - 1] as i64);
    let data_width = design.integer("data_width", widths.0, widths.1)? as usize;
    if !DATA_WIDTHS.contains(&data_width) {
        return err("design.data_width", format!("{data_width} is not supported: use {}", data_widths_text()));
    }
    let user_clock_mhz = design.float("user_clock_mhz", 1.0, 1000.0, "")?;
    let reg_clock_mhz = design.float("reg_clock_mhz", 1.0, 1000.0, "")?;
    design.finish()?;

    let board_name = board.string("name", "")?;
    if boards::file(&board_name).is_none() {
        return err(
            "board.name",
            format!("unknown board {board_name:?}; known boards: {}", boards::names().join(", ")),
        );
    }
    board.finish()?;

    let core = toe.string("core", "")?;
    let toe_netlist = toe.string("netlist", "")?;
    let mtu = toe.integer("mtu", MTU_RANGE.0 as i64, MTU_RANGE.1 as i64)? as usize;
    let toe_core = match core.as_str() {
        "licensed" => ToeCore::Licensed,
        "open" => ToeCore::Open { mtu },
        other => return toe.fail("core", format!("{other:?} is not a TOE core: use \"licensed\" or \"open\"")),
    };
    if toe_core == ToeCore::Licensed && toe_netlist.is_empty() {
        return err("toe.netlist", "must name the TOE core's netlist or IP file (a non-empty path)");
    }
    toe.finish()?;

    // The configuration spells the map's value names with `-` (`fixed-mac`).
    let mode = code_by_name(&mut defaults, "mode", "a mode", |m: ToeMode| m.name().replace('_', "-"))?;
    let fpga_mac = mac(&mut defaults, "fpga_mac")?;
    let fpga_ip = ipv4(&mut defaults, "fpga_ip")?;
    let target_mac = mac(&mut defaults, "target_mac")?;
    let target_ip = ipv4(&mut defaults, "target_ip")?;
    let window_update_gap_kb = defaults.integer("window_update_gap_kb", 0, 1023)? as u16;
    let last_packet_mode =
        code_by_name(&mut defaults, "last_packet_mode", "a last packet mode", |m: LastPacketMode| {
            m.name().to_string()
        })?;
    let fpga_ports = ports(&mut defaults, "fpga_ports", sessions)?;
    let target_ports = ports(&mut defaults, "target_ports", sessions)?;
    defaults.finish()?;

    let mut design = Design {
        name,
        sessions,
        data_width,
        user_clock_mhz,
        reg_clock_mhz,
        board: board_name,
        toe_core,
        toe_netlist,
        defaults: ToeDefaults {
            mode,
            fpga_mac,
            fpga_ip,
            target_mac,
            target_ip,
            window_update_gap_kb,
            last_packet_mode,
            fpga_ports,
            target_ports,
        },
        config_hash: String::new(),
    };
    design.config_hash = hash(&design);
    Ok(design)
}

/// The code of table `T` whose configuration spelling (`spell`) is the value
/// of `key`; the error lists every spelling.
fn code_by_name<T: codes::CodeTable + Copy>(
    section: &mut Section,
    key: &str,
    what: &str,
    spell: impl Fn(T) -> String,
) -> Result<T, ConfigError> {
    let text = section.string(key, "")?;
    if let Some(code) = T::ALL.iter().copied().find(|c| spell(*c) == text) {
        return Ok(code);
    }
    let names: Vec<String> = T::ALL.iter().map(|c| format!("{:?}", spell(*c))).collect();
    let (last, rest) = names.split_last().expect("a code table is not empty");
    section.fail(key, format!("{text:?} is not {what}: use {} or {last}", rest.join(", ")))
}

/// The hash covers the validated values, not the text: comments and layout
/// do not change it, any value that reaches an output does.
///
/// The canonical form is the design's `Debug` text without the hash. A
/// licensed-core design leaves `toe_core` (and the open core's MTU) out of it,
/// so its hash is the one it had before `toe.core` existed: the hash a
/// bitstream reports (`info.config_hash`) still names its configuration.
fn hash(design: &Design) -> String {
    let mut canonical = format!("{:?}", Design { config_hash: String::new(), ..design.clone() });
    if design.toe_core == ToeCore::Licensed {
        canonical = canonical.replacen("toe_core: Licensed, ", "", 1);
    }
    let digest = Sha256::digest(canonical.as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// A MAC address `key`: six hex bytes separated by `:`.
fn mac(section: &mut Section, key: &str) -> Result<[u8; 6], ConfigError> {
    let text = section.string(key, "")?;
    match parse_mac(&text) {
        Some(mac) => Ok(mac),
        None => section.fail(
            key,
            format!("{text:?} is not a MAC address: use six hex bytes separated by `:`, e.g. \"00:01:02:03:04:05\""),
        ),
    }
}

/// An IPv4 address `key` in dotted decimal.
fn ipv4(section: &mut Section, key: &str) -> Result<Ipv4Addr, ConfigError> {
    let text = section.string(key, "")?;
    match text.parse() {
        Ok(ip) => Ok(ip),
        Err(_) => {
            section.fail(key, format!("{text:?} is not an IPv4 address: use dotted decimal, e.g. \"192.168.200.42\""))
        }
    }
}

/// The port list `key`: one distinct port per session.
fn ports(section: &mut Section, key: &str, sessions: usize) -> Result<Vec<u16>, ConfigError> {
    let form = format!("a list of {sessions} distinct ports (one per session), each an integer in 1..=65535");
    let items = section.array(key, &form)?;
    if items.len() != sessions {
        return section
            .fail(key, format!("has {} entries but design.sessions = {sessions}: must be {form}", items.len()));
    }
    let mut seen = BTreeSet::new();
    let mut ports = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let entry = format!("{key}[{i}]");
        let port = match item {
            Value::Integer(p) if (1..=65535).contains(p) => *p as u16,
            Value::Integer(p) => return section.fail(&entry, format!("{p} is out of range: must be {form}")),
            other => return section.wrong_type(&entry, &form, other),
        };
        if !seen.insert(port) {
            return section.fail(&entry, format!("port {port} appears twice: must be {form}"));
        }
        ports.push(port);
    }
    Ok(ports)
}

fn parse_mac(text: &str) -> Option<[u8; 6]> {
    let mut mac = [0u8; 6];
    let mut parts = text.split(':');
    for byte in mac.iter_mut() {
        let part = parts.next()?;
        if part.len() != 2 {
            return None;
        }
        *byte = u8::from_str_radix(part, 16).ok()?;
    }
    parts.next().is_none().then_some(mac)
}

/// Words that cannot name a Verilog module (IEEE 1364-2005 keywords plus the
/// SystemVerilog ones a lint pass would trip over).
const VERILOG_RESERVED: &[&str] = &[
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "bit",
    "buf",
    "case",
    "casex",
    "casez",
    "cell",
    "class",
    "config",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "edge",
    "else",
    "end",
    "endcase",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endprimitive",
    "endspecify",
    "endtable",
    "endtask",
    "event",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "if",
    "initial",
    "inout",
    "input",
    "int",
    "integer",
    "interface",
    "join",
    "logic",
    "localparam",
    "module",
    "nand",
    "negedge",
    "nor",
    "not",
    "or",
    "output",
    "package",
    "parameter",
    "posedge",
    "primitive",
    "real",
    "reg",
    "release",
    "repeat",
    "signed",
    "specify",
    "supply0",
    "supply1",
    "table",
    "task",
    "time",
    "top",
    "tri",
    "unsigned",
    "wait",
    "while",
    "wire",
    "xor",
];

/// Longest module name accepted: 64 characters, which every Verilog tool
/// the flows use takes (a longer name also makes long instance paths).
pub const MAX_IDENTIFIER_LEN: usize = 64;

/// A plain Verilog identifier (no escaped names, no `$`). `top` is refused
/// because rust-hdl names its own generated top `top`.
pub fn is_verilog_identifier(name: &str) -> bool {
    verilog_identifier_problem(name).is_none()
}

/// Why `name` cannot name the generated module, naming the one rule it
/// breaks (characters, length, reserved word); `None` when it can.
pub fn verilog_identifier_problem(name: &str) -> Option<String> {
    let Some(first) = name.chars().next() else {
        return Some(
            "the name is empty: give a Verilog identifier (letters, digits and `_`, starting with a letter or `_`)"
                .into(),
        );
    };
    if !(first.is_ascii_alphabetic() || first == '_') {
        return Some(format!("{name:?} starts with {first:?}: a Verilog identifier starts with a letter or `_`"));
    }
    if let Some((at, c)) = name.chars().enumerate().find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_')) {
        return Some(format!(
            "{name:?} has {c:?} at character {}: a Verilog identifier has only letters, digits and `_`",
            at + 1
        ));
    }
    // Only ASCII is left, so bytes are characters.
    if name.len() > MAX_IDENTIFIER_LEN {
        return Some(format!(
            "{name:?} is {} characters long: a module name has at most {MAX_IDENTIFIER_LEN} characters",
            name.len()
        ));
    }
    if name == "top" {
        return Some("\"top\" is reserved: rust-hdl names its own generated top `top`; choose another name".into());
    }
    if VERILOG_RESERVED.contains(&name) {
        return Some(format!("{name:?} is a reserved word of Verilog or SystemVerilog: choose another name"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(from: &str, to: &str) -> Result<Design, ConfigError> {
        assert!(DEFAULT_TOML.contains(from), "default config lacks {from:?}");
        parse(&DEFAULT_TOML.replacen(from, to, 1))
    }

    fn rejected(from: &str, to: &str) -> ConfigError {
        with(from, to).expect_err("config must be rejected")
    }

    #[test]
    fn default_reproduces_the_reference_demo() {
        let d = parse(DEFAULT_TOML).unwrap();
        assert_eq!(d.name, "toe_user_logic");
        assert_eq!((d.sessions, d.data_width), (4, 1024));
        assert_eq!(d.user_clock_khz(), 250_000);
        assert_eq!(d.peak_mb_per_s(), 32_000.0);
        assert_eq!(d.defaults.fpga_mac, [0, 1, 2, 3, 4, 5]);
        assert_eq!(d.defaults.target_ip, Ipv4Addr::new(192, 168, 200, 25));
        assert_eq!(d.defaults.fpga_ports, vec![60000, 60001, 60002, 60003]);
        assert_eq!(d.defaults.last_packet_mode, LastPacketMode::Dup);
        assert_eq!(d.config_hash.len(), 16);
    }

    #[test]
    fn default_board_is_the_board_the_default_names() {
        let table: Table = DEFAULT_TOML.parse().unwrap();
        let named = table["board"]["name"].as_str().unwrap();
        assert_eq!(named, DEFAULT_BOARD, "DEFAULT_BOARD must follow board.name in default.toml");
        assert_eq!(parse(DEFAULT_TOML).unwrap().board, DEFAULT_BOARD);
    }

    #[test]
    fn hash_ignores_layout_and_follows_values() {
        let d = parse(DEFAULT_TOML).unwrap();
        let commented = format!("# extra comment\n{DEFAULT_TOML}");
        assert_eq!(parse(&commented).unwrap().config_hash, d.config_hash);
        let other = with("fpga_ip = \"192.168.200.42\"", "fpga_ip = \"192.168.200.43\"").unwrap();
        assert_ne!(other.config_hash, d.config_hash);
    }

    #[test]
    fn the_open_core_takes_its_mtu_and_needs_no_netlist() {
        let d = parse(DEFAULT_TOML).unwrap();
        assert_eq!(d.toe_core, ToeCore::Licensed);
        let open = with("core = \"licensed\"", "core = \"open\"").unwrap();
        assert_eq!(open.toe_core, ToeCore::Open { mtu: 1500 });
        assert_ne!(open.config_hash, d.config_hash, "the core reaches every output");
        let text =
            DEFAULT_TOML.replacen("core = \"licensed\"", "core = \"open\"", 1).replacen("mtu = 1500", "mtu = 9000", 1);
        let jumbo = parse(&text.replacen("netlist = \"toe/toe_core.v\"", "netlist = \"\"", 1)).unwrap();
        assert_eq!(jumbo.toe_core, ToeCore::Open { mtu: 9000 });
        assert_ne!(jumbo.config_hash, open.config_hash);
    }

    /// A licensed-core design hashes as it did before `toe.core` existed:
    /// the default's hash is the one its bitstreams report.
    #[test]
    fn a_licensed_design_keeps_its_hash() {
        assert_eq!(parse(DEFAULT_TOML).unwrap().config_hash, "57d39e780ecc15a3");
        // The open core's MTU reaches no output of a licensed design.
        assert_eq!(with("mtu = 1500", "mtu = 9000").unwrap().config_hash, "57d39e780ecc15a3");
    }

    #[test]
    fn each_bad_value_names_its_key_and_range() {
        let cases: &[(&str, &str, &str, &str)] = &[
            ("sessions = 4", "sessions = 5", "design.sessions", "1..=4"),
            ("sessions = 4", "sessions = 0", "design.sessions", "1..=4"),
            ("sessions = 4", "sessions = \"4\"", "design.sessions", "found string"),
            ("data_width = 1024", "data_width = 100", "design.data_width", "64, 128, 256, 512 or 1024"),
            ("data_width = 1024", "data_width = 2048", "design.data_width", "64..=1024"),
            ("user_clock_mhz = 250.0", "user_clock_mhz = 0.5", "design.user_clock_mhz", "1..=1000"),
            ("user_clock_mhz = 250.0", "user_clock_mhz = nan", "design.user_clock_mhz", "1..=1000"),
            ("name = \"toe_user_logic\"", "name = \"1abc\"", "design.name", "Verilog identifier"),
            ("name = \"toe_user_logic\"", "name = \"a$b\"", "design.name", "Verilog identifier"),
            ("name = \"toe_user_logic\"", "name = \"module\"", "design.name", "reserved"),
            (
                "name = \"agilex7-i-devkit\"",
                "name = \"zedboard\"",
                "board.name",
                "known boards: agilex7-f-devkit, agilex7-i-devkit, alveo-u250, alveo-u50, alveo-u55c",
            ),
            ("netlist = \"toe/toe_core.v\"", "netlist = \"\"", "toe.netlist", "non-empty"),
            ("core = \"licensed\"", "core = \"tcp\"", "toe.core", "use \"licensed\" or \"open\""),
            ("mtu = 1500", "mtu = 575", "toe.mtu", "576..=9000"),
            ("mtu = 1500", "mtu = 9001", "toe.mtu", "576..=9000"),
            ("mode = \"client\"", "mode = \"master\"", "defaults.mode", "\"fixed-mac\""),
            ("fpga_mac = \"00:01:02:03:04:05\"", "fpga_mac = \"00:01:02:03:04\"", "defaults.fpga_mac", "six hex bytes"),
            (
                "target_mac = \"55:44:33:22:11:00\"",
                "target_mac = \"55:44:33:22:11:0g\"",
                "defaults.target_mac",
                "six hex bytes",
            ),
            ("fpga_ip = \"192.168.200.42\"", "fpga_ip = \"192.168.200.420\"", "defaults.fpga_ip", "IPv4"),
            ("window_update_gap_kb = 16", "window_update_gap_kb = 1024", "defaults.window_update_gap_kb", "0..=1023"),
            ("last_packet_mode = \"dup\"", "last_packet_mode = \"fin\"", "defaults.last_packet_mode", "\"psh\""),
            (
                "fpga_ports = [60000, 60001, 60002, 60003]",
                "fpga_ports = [60000, 60001, 60002]",
                "defaults.fpga_ports",
                "3 entries",
            ),
            (
                "fpga_ports = [60000, 60001, 60002, 60003]",
                "fpga_ports = [60000, 60001, 60002, 60001]",
                "defaults.fpga_ports[3]",
                "appears twice",
            ),
            (
                "target_ports = [61000, 61001, 61002, 61003]",
                "target_ports = [61000, 61001, 61002, 70000]",
                "defaults.target_ports[3]",
                "1..=65535",
            ),
            (
                "target_ports = [61000, 61001, 61002, 61003]",
                "target_ports = 61000",
                "defaults.target_ports",
                "found integer",
            ),
            ("sessions = 4", "sessions = 4\nsesions = 3", "design.sesions", "unknown key"),
            ("[toe]", "[toe]\nextra = 1", "toe.extra", "unknown key"),
        ];
        for (from, to, key, needle) in cases {
            let e = rejected(from, to);
            assert_eq!(&e.key, key, "{to}: {e}");
            assert!(e.to_string().contains(needle), "{to}: message {e:?} lacks {needle:?}");
        }
    }

    /// Each broken rule of `design.name` has its own message (issue 25, item 11).
    #[test]
    fn a_bad_design_name_is_told_which_rule_it_breaks() {
        let long = "a".repeat(65);
        let cases: &[(&str, String)] = &[
            (&long, format!("{long:?} is 65 characters long: a module name has at most 64 characters")),
            ("1abc", "\"1abc\" starts with '1': a Verilog identifier starts with a letter or `_`".into()),
            ("a$b", "\"a$b\" has '$' at character 2: a Verilog identifier has only letters, digits and `_`".into()),
            (
                "my-top",
                "\"my-top\" has '-' at character 3: a Verilog identifier has only letters, digits and `_`".into(),
            ),
            (
                "",
                "the name is empty: give a Verilog identifier (letters, digits and `_`, starting with a letter or `_`)"
                    .into(),
            ),
            ("module", "\"module\" is a reserved word of Verilog or SystemVerilog: choose another name".into()),
            ("top", "\"top\" is reserved: rust-hdl names its own generated top `top`; choose another name".into()),
        ];
        for (name, message) in cases {
            let e = rejected("name = \"toe_user_logic\"", &format!("name = {name:?}"));
            assert_eq!(e.to_string(), format!("`design.name`: {message}"), "{name:?}");
        }
        let longest = "a".repeat(64);
        assert_eq!(with("name = \"toe_user_logic\"", &format!("name = {longest:?}")).unwrap().name, longest);
    }

    /// Port 0 is no port a person can use (issue 25, item 9).
    #[test]
    fn port_zero_is_refused_naming_the_entry_and_the_range() {
        let e = rejected("fpga_ports = [60000, 60001, 60002, 60003]", "fpga_ports = [60000, 0, 60002, 60003]");
        assert_eq!(
            e.to_string(),
            "`defaults.fpga_ports[1]`: 0 is out of range: must be a list of 4 distinct ports (one per session), each an integer in 1..=65535"
        );
        let e = rejected("target_ports = [61000, 61001, 61002, 61003]", "target_ports = [0, 61001, 61002, 61003]");
        assert_eq!(e.key, "defaults.target_ports[0]");
        assert!(e.message.starts_with("0 is out of range") && e.message.ends_with("1..=65535"), "{e}");
        with("target_ports = [61000, 61001, 61002, 61003]", "target_ports = [1, 65535, 2, 3]").unwrap();
    }

    #[test]
    fn a_file_overrides_the_default_and_keeps_every_check() {
        // Keys left out keep the default's value.
        let d = parse("[design]\nsessions = 2\n").unwrap();
        assert_eq!((d.sessions, d.data_width, d.board.as_str()), (2, 1024, DEFAULT_BOARD));
        assert_eq!(
            (d.defaults.fpga_ports.clone(), d.defaults.target_ports.clone()),
            (vec![60000, 60001], vec![61000, 61001])
        );
        let full = parse(&default_toml_with_sessions(2)).unwrap();
        assert_eq!(d.config_hash, full.config_hash, "same values, same hash");
        // A port list the file gives must match sessions exactly.
        let e = parse("[design]\nsessions = 2\n[defaults]\nfpga_ports = [1, 2, 3]\n").unwrap_err();
        assert_eq!(e.key, "defaults.fpga_ports");
        assert!(e.message.contains("has 3 entries but design.sessions = 2"), "{e}");
        // Unknown keys and sections are still named.
        let e = parse("[design]\nsesions = 2\n").unwrap_err();
        assert_eq!(e.key, "design.sesions");
        let e = parse("[desing]\nsessions = 2\n").unwrap_err();
        assert_eq!(e.key, "desing");
        // Bad values keep their messages.
        let e = parse("[design]\nsessions = 9\n").unwrap_err();
        assert_eq!(e.key, "design.sessions");
    }

    #[test]
    fn malformed_toml_is_reported_with_its_line() {
        let e = rejected("sessions = 4", "sessions = = 4");
        assert!(e.key.is_empty());
        assert!(e.message.starts_with("malformed TOML"), "{e}");
        assert!(e.message.contains("line"), "{e}");
    }

    #[test]
    fn fewer_sessions_take_shorter_port_lists() {
        let d = parse(&default_toml_with_sessions(1)).unwrap();
        assert_eq!(d.sessions, 1);
        assert_eq!(d.defaults.target_ports, vec![61000]);
        let d = parse(&default_toml_with_sessions(3)).unwrap();
        assert_eq!(d.defaults.fpga_ports, vec![60000, 60001, 60002]);
        assert_eq!(default_toml_with_sessions(4), DEFAULT_TOML);
    }
}
