//! The TOML configuration of the TOE user logic.
//!
//! `parse` turns configuration text into a validated [`Design`]; nothing else
//! in the workspace reads TOML. Every rejection is a [`ConfigError`] that names
//! the key and the valid range or form, so a user can fix the file without
//! reading this code.
//!
//! ```
//! let design = config::parse(config::DEFAULT_TOML, &["alveo-u50"]).unwrap();
//! assert_eq!(design.sessions, 4);
//! assert_eq!(design.data_width, 1024);
//! assert_eq!(design.peak_mb_per_s(), 32_000.0);
//! ```

use std::collections::BTreeSet;
use std::fmt;
use std::net::Ipv4Addr;

use sha2::{Digest, Sha256};
use toml::{Table, Value};

/// The embedded default configuration: the reference demo.
pub const DEFAULT_TOML: &str = include_str!("../default.toml");

/// Session count limits (the register map and the demo have four).
pub const MAX_SESSIONS: usize = 4;
/// Supported data widths in bits.
pub const DATA_WIDTHS: [usize; 5] = [64, 128, 256, 512, 1024];

/// A configuration that passed validation.
#[derive(Clone, Debug, PartialEq)]
pub struct Design {
    /// Verilog identifier of the generated top module.
    pub name: String,
    /// Number of TCP sessions, 1..=4.
    pub sessions: usize,
    /// Stream data width in bits: 64, 128, 256, 512 or 1024.
    pub data_width: usize,
    /// User (TOE data) clock in MHz.
    pub user_clock_mhz: f64,
    /// AXI4-Lite register clock in MHz.
    pub reg_clock_mhz: f64,
    /// Board name, one of the boards under `constraints/`.
    pub board: String,
    /// Path of the TOE core's netlist or IP, as written in the config.
    pub toe_netlist: String,
    /// Reset values of the TOE parameter registers.
    pub defaults: ToeDefaults,
    /// First 16 hex digits of the SHA-256 of the canonical configuration.
    pub config_hash: String,
}

/// How the TOE finds its peer (reference demo, section 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToeMode {
    /// Resolves the target's MAC with ARP; the FPGA starts the ARP exchange.
    Client = 0,
    /// Waits for the peer's ARP request.
    Server = 1,
    /// Uses the configured target MAC, no ARP.
    FixedMac = 2,
}

/// How the TOE marks the last packet of a transmission (reference demo, 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastPacketMode {
    /// Sends the last packet twice, for a fast acknowledgement.
    Dup = 0,
    /// Sets PSH on the last packet.
    Psh = 1,
    /// No special treatment.
    Normal = 2,
}

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
    /// Register clock period in ns, for constraints.
    pub fn reg_clock_period_ns(&self) -> f64 {
        1000.0 / self.reg_clock_mhz
    }
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

/// Parses and validates configuration text. `boards` lists the board names
/// that exist (the ones under `constraints/`).
pub fn parse(text: &str, boards: &[&str]) -> Result<Design, ConfigError> {
    let root: Table = text.parse().map_err(|e: toml::de::Error| ConfigError {
        key: String::new(),
        message: format!("malformed TOML: {}", e.to_string().trim_end()),
    })?;
    let mut root = Section::new("", root);
    let mut design = root.section("design")?;
    let mut board = root.section("board")?;
    let mut toe = root.section("toe")?;
    let mut defaults = root.section("defaults")?;
    root.finish()?;

    let name = design.string("name")?;
    if !is_verilog_identifier(&name) {
        return err(
            "design.name",
            format!("{name:?} is not a Verilog identifier: use letters, digits and `_`, starting with a letter or `_`, no reserved word"),
        );
    }
    let sessions = design.integer("sessions", 1, MAX_SESSIONS as i64)? as usize;
    let data_width = design.integer("data_width", 64, 1024)? as usize;
    if !DATA_WIDTHS.contains(&data_width) {
        return err("design.data_width", format!("{data_width} is not supported: use 64, 128, 256, 512 or 1024"));
    }
    let user_clock_mhz = design.float("user_clock_mhz", 1.0, 1000.0)?;
    let reg_clock_mhz = design.float("reg_clock_mhz", 1.0, 1000.0)?;
    design.finish()?;

    let board_name = board.string("name")?;
    if !boards.contains(&board_name.as_str()) {
        let mut known: Vec<&str> = boards.to_vec();
        known.sort_unstable();
        return err("board.name", format!("unknown board {board_name:?}; known boards: {}", known.join(", ")));
    }
    board.finish()?;

    let toe_netlist = toe.string("netlist")?;
    if toe_netlist.is_empty() {
        return err("toe.netlist", "must name the TOE core's netlist or IP file (a non-empty path)");
    }
    toe.finish()?;

    let mode = match defaults.string("mode")?.as_str() {
        "client" => ToeMode::Client,
        "server" => ToeMode::Server,
        "fixed-mac" => ToeMode::FixedMac,
        other => return err("defaults.mode", format!("{other:?} is not a mode: use \"client\", \"server\" or \"fixed-mac\"")),
    };
    let fpga_mac = defaults.mac("fpga_mac")?;
    let fpga_ip = defaults.ipv4("fpga_ip")?;
    let target_mac = defaults.mac("target_mac")?;
    let target_ip = defaults.ipv4("target_ip")?;
    let window_update_gap_kb = defaults.integer("window_update_gap_kb", 0, 1023)? as u16;
    let last_packet_mode = match defaults.string("last_packet_mode")?.as_str() {
        "dup" => LastPacketMode::Dup,
        "psh" => LastPacketMode::Psh,
        "normal" => LastPacketMode::Normal,
        other => {
            return err("defaults.last_packet_mode", format!("{other:?} is not a last packet mode: use \"dup\", \"psh\" or \"normal\""))
        }
    };
    let fpga_ports = defaults.ports("fpga_ports", sessions)?;
    let target_ports = defaults.ports("target_ports", sessions)?;
    defaults.finish()?;

    let mut design = Design {
        name,
        sessions,
        data_width,
        user_clock_mhz,
        reg_clock_mhz,
        board: board_name,
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

/// The hash covers the validated values, not the text: comments and layout
/// do not change it, any value that reaches an output does.
fn hash(design: &Design) -> String {
    let canonical = format!("{:?}", Design { config_hash: String::new(), ..design.clone() });
    let digest = Sha256::digest(canonical.as_bytes());
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// A table being read: each read removes its key, `finish` rejects the rest.
struct Section {
    path: String,
    table: Table,
}

impl Section {
    fn new(path: &str, table: Table) -> Self {
        Section { path: path.to_string(), table }
    }

    fn key(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn take(&mut self, key: &str) -> Result<Value, ConfigError> {
        match self.table.remove(key) {
            Some(v) => Ok(v),
            None => err(&self.key(key), "missing (see `gen --print-default-config` for every key)"),
        }
    }

    fn section(&mut self, key: &str) -> Result<Section, ConfigError> {
        match self.take(key)? {
            Value::Table(t) => Ok(Section::new(&self.key(key), t)),
            other => err(&self.key(key), format!("must be a table `[{key}]`, found {}", other.type_str())),
        }
    }

    fn string(&mut self, key: &str) -> Result<String, ConfigError> {
        match self.take(key)? {
            Value::String(s) => Ok(s),
            other => err(&self.key(key), format!("must be a string, found {}", other.type_str())),
        }
    }

    fn integer(&mut self, key: &str, min: i64, max: i64) -> Result<i64, ConfigError> {
        let k = self.key(key);
        match self.take(key)? {
            Value::Integer(i) if (min..=max).contains(&i) => Ok(i),
            Value::Integer(i) => err(&k, format!("{i} is out of range: must be an integer in {min}..={max}")),
            other => err(&k, format!("must be an integer in {min}..={max}, found {}", other.type_str())),
        }
    }

    fn float(&mut self, key: &str, min: f64, max: f64) -> Result<f64, ConfigError> {
        let k = self.key(key);
        let v = match self.take(key)? {
            Value::Float(f) => f,
            Value::Integer(i) => i as f64,
            other => return err(&k, format!("must be a number in {min}..={max}, found {}", other.type_str())),
        };
        if v.is_finite() && (min..=max).contains(&v) {
            Ok(v)
        } else {
            err(&k, format!("{v} is out of range: must be a number in {min}..={max}"))
        }
    }

    fn mac(&mut self, key: &str) -> Result<[u8; 6], ConfigError> {
        let k = self.key(key);
        let text = self.string(key)?;
        parse_mac(&text).ok_or_else(|| ConfigError {
            key: k,
            message: format!("{text:?} is not a MAC address: use six hex bytes separated by `:`, e.g. \"00:01:02:03:04:05\""),
        })
    }

    fn ipv4(&mut self, key: &str) -> Result<Ipv4Addr, ConfigError> {
        let k = self.key(key);
        let text = self.string(key)?;
        text.parse().map_err(|_| ConfigError {
            key: k,
            message: format!("{text:?} is not an IPv4 address: use dotted decimal, e.g. \"192.168.200.42\""),
        })
    }

    fn ports(&mut self, key: &str, sessions: usize) -> Result<Vec<u16>, ConfigError> {
        let k = self.key(key);
        let form = format!("must be a list of {sessions} distinct ports (one per session), each an integer in 1..=65535");
        let items = match self.take(key)? {
            Value::Array(items) => items,
            other => return err(&k, format!("{form}, found {}", other.type_str())),
        };
        if items.len() != sessions {
            return err(&k, format!("has {} entries but design.sessions = {sessions}: {form}", items.len()));
        }
        let mut seen = BTreeSet::new();
        let mut ports = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let port = match item {
                Value::Integer(p) if (1..=65535).contains(p) => *p as u16,
                Value::Integer(p) => return err(&format!("{k}[{i}]"), format!("{p} is out of range: {form}")),
                other => return err(&format!("{k}[{i}]"), format!("{form}, found {}", other.type_str())),
            };
            if !seen.insert(port) {
                return err(&format!("{k}[{i}]"), format!("port {port} appears twice: {form}"));
            }
            ports.push(port);
        }
        Ok(ports)
    }

    fn finish(self) -> Result<(), ConfigError> {
        match self.table.keys().next() {
            None => Ok(()),
            Some(extra) => err(&self.key(extra), "unknown key (see `gen --print-default-config` for every key)"),
        }
    }
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
    "always", "and", "assign", "automatic", "begin", "bit", "buf", "case", "casex", "casez", "cell", "class", "config",
    "deassign", "default", "defparam", "design", "disable", "edge", "else", "end", "endcase", "endconfig",
    "endfunction", "endgenerate", "endmodule", "endprimitive", "endspecify", "endtable", "endtask", "event", "for",
    "force", "forever", "fork", "function", "generate", "genvar", "if", "initial", "inout", "input", "int",
    "integer", "interface", "join", "logic", "localparam", "module", "nand", "negedge", "nor", "not", "or",
    "output", "package", "parameter", "posedge", "primitive", "real", "reg", "release", "repeat", "signed",
    "specify", "supply0", "supply1", "table", "task", "time", "top", "tri", "unsigned", "wait", "while", "wire",
    "xor",
];

/// A plain Verilog identifier (no escaped names, no `$`). `top` is refused
/// because rust-hdl names its own generated top `top`.
pub fn is_verilog_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_');
    first_ok
        && name.len() <= 64
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !VERILOG_RESERVED.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOARDS: &[&str] = &["alveo-u50", "alveo-u250"];

    fn with(from: &str, to: &str) -> Result<Design, ConfigError> {
        assert!(DEFAULT_TOML.contains(from), "default config lacks {from:?}");
        parse(&DEFAULT_TOML.replacen(from, to, 1), BOARDS)
    }

    fn rejected(from: &str, to: &str) -> ConfigError {
        with(from, to).expect_err("config must be rejected")
    }

    #[test]
    fn default_reproduces_the_reference_demo() {
        let d = parse(DEFAULT_TOML, BOARDS).unwrap();
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
    fn hash_ignores_layout_and_follows_values() {
        let d = parse(DEFAULT_TOML, BOARDS).unwrap();
        let commented = format!("# extra comment\n{DEFAULT_TOML}");
        assert_eq!(parse(&commented, BOARDS).unwrap().config_hash, d.config_hash);
        let other = with("fpga_ip = \"192.168.200.42\"", "fpga_ip = \"192.168.200.43\"").unwrap();
        assert_ne!(other.config_hash, d.config_hash);
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
            ("name = \"alveo-u50\"", "name = \"zedboard\"", "board.name", "known boards: alveo-u250, alveo-u50"),
            ("netlist = \"toe/toe_core.edf\"", "netlist = \"\"", "toe.netlist", "non-empty"),
            ("mode = \"client\"", "mode = \"master\"", "defaults.mode", "\"fixed-mac\""),
            ("fpga_mac = \"00:01:02:03:04:05\"", "fpga_mac = \"00:01:02:03:04\"", "defaults.fpga_mac", "six hex bytes"),
            ("target_mac = \"55:44:33:22:11:00\"", "target_mac = \"55:44:33:22:11:0g\"", "defaults.target_mac", "six hex bytes"),
            ("fpga_ip = \"192.168.200.42\"", "fpga_ip = \"192.168.200.420\"", "defaults.fpga_ip", "IPv4"),
            ("window_update_gap_kb = 16", "window_update_gap_kb = 1024", "defaults.window_update_gap_kb", "0..=1023"),
            ("last_packet_mode = \"dup\"", "last_packet_mode = \"fin\"", "defaults.last_packet_mode", "\"psh\""),
            ("fpga_ports = [60000, 60001, 60002, 60003]", "fpga_ports = [60000, 60001, 60002]", "defaults.fpga_ports", "3 entries"),
            ("fpga_ports = [60000, 60001, 60002, 60003]", "fpga_ports = [60000, 60001, 60002, 60001]", "defaults.fpga_ports[3]", "appears twice"),
            ("target_ports = [61000, 61001, 61002, 61003]", "target_ports = [61000, 61001, 61002, 70000]", "defaults.target_ports[3]", "1..=65535"),
            ("target_ports = [61000, 61001, 61002, 61003]", "target_ports = 61000", "defaults.target_ports", "found integer"),
            ("sessions = 4", "sessions = 4\nsesions = 3", "design.sesions", "unknown key"),
            ("[toe]", "[toe]\nextra = 1", "toe.extra", "unknown key"),
        ];
        for (from, to, key, needle) in cases {
            let e = rejected(from, to);
            assert_eq!(&e.key, key, "{to}: {e}");
            assert!(e.to_string().contains(needle), "{to}: message {e:?} lacks {needle:?}");
        }
    }

    #[test]
    fn missing_key_and_section_are_named() {
        let e = rejected("window_update_gap_kb = 16    # 0..=1023\n", "");
        assert_eq!(e.key, "defaults.window_update_gap_kb");
        assert!(e.message.contains("missing"));
        let e = parse("[design]\nname = \"x\"\n", BOARDS).unwrap_err();
        assert_eq!(e.key, "board");
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
        let text = DEFAULT_TOML
            .replacen("sessions = 4", "sessions = 1", 1)
            .replacen("[60000, 60001, 60002, 60003]", "[60000]", 1)
            .replacen("[61000, 61001, 61002, 61003]", "[61000]", 1);
        let d = parse(&text, BOARDS).unwrap();
        assert_eq!(d.sessions, 1);
        assert_eq!(d.defaults.target_ports, vec![61000]);
    }
}
