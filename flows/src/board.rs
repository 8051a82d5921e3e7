//! Board descriptions: `constraints/<name>.toml`, embedded by the
//! configuration's board catalogue (`config::boards`) and validated here with
//! the configuration's checked reader (`config::toml_reader`). Every rejection
//! names the file, the dotted key and the form the value must take.

use std::fmt;

use config::toml_reader::{Missing, Section, Wording};
use config::ConfigError;
use toml::Table;

/// Whose tools build the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// AMD (Xilinx): Vivado, XDC.
    Amd,
    /// Altera (Intel): Quartus Prime Pro, SDC + QSF.
    Intel,
}

impl Vendor {
    pub fn as_str(self) -> &'static str {
        match self {
            Vendor::Amd => "amd",
            Vendor::Intel => "intel",
        }
    }

    /// The vendor's implementation tool, as the README and messages name it.
    pub fn tool(self) -> &'static str {
        match self {
            Vendor::Amd => "Vivado",
            Vendor::Intel => "Quartus",
        }
    }
}

/// A clock input of the board: a differential pair (or the positive leg only
/// where the vendor assigns the pair by its positive pin, as Quartus does).
#[derive(Clone, Debug, PartialEq)]
pub struct BoardClock {
    /// Port name the board wrapper uses (`<port>_p` / `<port>_n`).
    pub port: String,
    pub freq_mhz: f64,
    pub pin_p: String,
    pub pin_n: Option<String>,
    /// None for transceiver reference clocks on AMD parts (dedicated pins).
    pub io_standard: Option<String>,
}

impl BoardClock {
    pub fn period_ns(&self) -> f64 {
        1000.0 / self.freq_mhz
    }
}

/// One transceiver lane of the Ethernet cage.
#[derive(Clone, Debug, PartialEq)]
pub struct Lane {
    /// Transceiver site or channel as the source names it.
    pub gt: String,
    pub tx_p: String,
    pub tx_n: String,
    pub rx_p: String,
    pub rx_n: String,
}

/// The Ethernet cage the demo uses.
#[derive(Clone, Debug, PartialEq)]
pub struct Qsfp {
    /// Cage name on the board (`qsfp0`, `qsfpdd0`).
    pub name: String,
    /// The Ethernet hard IP the cage's lanes use, as prose ("100G CMAC",
    /// "F-tile Ethernet Hard IP"): the README and the IP list name it.
    pub mac: String,
    /// The Ethernet line rate the board's design runs on the cage, Gb/s.
    pub line_rate_gbps: u32,
    /// Hard MAC site (AMD CMAC), where a source gives it.
    pub mac_site: Option<String>,
    pub refclk: BoardClock,
    /// I/O standard of the lane pins where the vendor wants one (Quartus).
    pub lane_io_standard: Option<String>,
    pub lanes: Vec<Lane>,
}

/// The Ethernet line rates a cage may run at, Gb/s (`qsfp.line_rate_gbps`).
pub const LINE_RATES_GBPS: &[i64] = &[10, 25, 40, 50, 100, 200, 400, 800];

/// How software reaches the AXI4-Lite register port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterKind {
    /// PCIe BAR through the XDMA IP's AXI4-Lite master (Alveo).
    PcieXdma,
    /// JTAG to Avalon Master Bridge, bridged to AXI4-Lite (dev kits).
    JtagAvalon,
}

impl RegisterKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RegisterKind::PcieXdma => "pcie-xdma",
            RegisterKind::JtagAvalon => "jtag-avalon",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pcie {
    pub lanes: u32,
    pub refclk: BoardClock,
    pub perst_port: String,
    pub perst_pin: String,
    pub perst_io_standard: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RegisterPath {
    pub kind: RegisterKind,
    /// Present when `kind` is `pcie-xdma`.
    pub pcie: Option<Pcie>,
}

/// A validated board description.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    pub name: String,
    /// `constraints/<name>.toml`, for messages.
    pub file: String,
    pub vendor: Vendor,
    pub description: String,
    pub part: String,
    pub family: String,
    pub speed_grade: String,
    /// Facts no public source gave: listed in the generated README.
    pub missing: Vec<String>,
    pub free_clock: BoardClock,
    pub qsfp: Qsfp,
    pub register_path: RegisterPath,
}

/// Anything `flows` rejects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowError {
    /// A board file failed validation.
    Board { file: String, key: String, message: String },
    /// The name matches no file under `constraints/`.
    UnknownBoard { name: String, known: Vec<String> },
    /// The design or the flow inputs cannot be turned into scripts.
    Inputs { field: String, message: String },
    /// A template failed to render (a bug, not user input).
    Template(String),
}

impl fmt::Display for FlowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlowError::Board { file, key, message } if key.is_empty() => write!(f, "{file}: {message}"),
            FlowError::Board { file, key, message } => write!(f, "{file}: `{key}`: {message}"),
            FlowError::UnknownBoard { name, known } => {
                write!(f, "unknown board {name:?}; known boards: {}", known.join(", "))
            }
            FlowError::Inputs { field, message } => write!(f, "flow inputs: `{field}`: {message}"),
            FlowError::Template(e) => write!(f, "template rendering failed: {e}"),
        }
    }
}

impl std::error::Error for FlowError {}

/// The boards under `constraints/`, sorted: the configuration's catalogue.
pub use config::board_names;

/// Parses and validates the embedded board `name`.
pub fn load_board(name: &str) -> Result<Board, FlowError> {
    match config::boards::file(name) {
        Some((file, text)) => parse_board(name, file, text),
        None => Err(FlowError::UnknownBoard {
            name: name.to_string(),
            known: board_names().iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// Parses board text; `name` is the file stem the `name` key must equal and
/// `file` the path messages print.
pub fn parse_board(name: &str, file: &str, text: &str) -> Result<Board, FlowError> {
    read_board(name, file, text).map_err(|e| FlowError::Board {
        file: file.to_string(),
        key: e.key,
        message: e.message,
    })
}

/// How board file messages word a missing or unknown key.
const WORDING: Wording =
    Wording { key_list: "flows/README.md for the board file keys", missing: Missing::NameForm, found_separator: "; " };

fn read_board(name: &str, file: &str, text: &str) -> Result<Board, ConfigError> {
    let table: Table = text.parse().map_err(|e: toml::de::Error| ConfigError {
        key: String::new(),
        message: format!("malformed TOML: {}", e.to_string().trim_end()),
    })?;
    let mut root = Section::new(WORDING, table);

    let board_name = root.text("name", "the file's name without `.toml`")?;
    if board_name != name {
        return root.fail("name", format!("is {board_name:?} but the file is {file}: must be {name:?}"));
    }
    let vendor = match root.text("vendor", "\"amd\" or \"intel\"")?.as_str() {
        "amd" => Vendor::Amd,
        "intel" => Vendor::Intel,
        other => return root.fail("vendor", format!("{other:?} is not a vendor: use \"amd\" or \"intel\"")),
    };
    let description = root.text("description", "a one-line description")?;
    let part = root.word("part", "a part number such as \"xcu50-fsvh2104-2-e\"")?;
    let family = root.text("family", "the device family, e.g. \"Agilex 7\"")?;
    let speed_grade = root.word("speed_grade", "the speed grade, e.g. \"-2\"")?;
    let missing = root.strings("missing", "a list of strings (facts no public source gave; may be empty)")?;

    let mut clock = root.table("free_clock")?;
    let free_clock = clock.clock(true)?;
    clock.finish()?;

    let mut qsfp_t = root.table("qsfp")?;
    let qsfp_name = qsfp_t.identifier("name")?;
    let mac = qsfp_t.text("mac", "the Ethernet hard IP, e.g. \"100G CMAC\" or \"F-tile Ethernet Hard IP\"")?;
    let line_rate_gbps = qsfp_t.one_of("line_rate_gbps", LINE_RATES_GBPS)? as u32;
    let mac_site = qsfp_t.opt_word("mac_site", "a hard MAC site such as \"CMACE4_X0Y4\"")?;
    let mut refclk_t = qsfp_t.table("refclk")?;
    let refclk = refclk_t.clock(vendor == Vendor::Intel)?;
    refclk_t.finish()?;
    let lane_io_standard = qsfp_t.opt_io_standard("lane_io_standard")?;
    let lanes_t = qsfp_t.tables("lanes", 1, 8)?;
    let mut lanes = Vec::new();
    for mut lane in lanes_t {
        lanes.push(Lane {
            gt: lane.word("gt", "the transceiver site or channel, e.g. \"GTYE4_CHANNEL_X0Y28\"")?,
            tx_p: lane.pin("tx_p")?,
            tx_n: lane.pin("tx_n")?,
            rx_p: lane.pin("rx_p")?,
            rx_n: lane.pin("rx_n")?,
        });
        lane.finish()?;
    }
    qsfp_t.finish()?;

    let mut reg_t = root.table("register_path")?;
    let kind = match reg_t.text("kind", "\"pcie-xdma\" or \"jtag-avalon\"")?.as_str() {
        "pcie-xdma" if vendor == Vendor::Amd => RegisterKind::PcieXdma,
        "jtag-avalon" if vendor == Vendor::Intel => RegisterKind::JtagAvalon,
        other => {
            let valid = match vendor {
                Vendor::Amd => "\"pcie-xdma\" (the register path generated for amd boards)",
                Vendor::Intel => "\"jtag-avalon\" (the register path generated for intel boards)",
            };
            return reg_t.fail("kind", format!("{other:?} is not a register path for this vendor: use {valid}"));
        }
    };
    let pcie = if kind == RegisterKind::PcieXdma {
        let mut p = reg_t.table("pcie")?;
        let lanes = p.one_of("lanes", &[1, 2, 4, 8, 16])? as u32;
        let mut rc = p.table("refclk")?;
        let refclk = rc.clock(false)?;
        rc.finish()?;
        let perst_port = p.identifier("perst_port")?;
        let perst_pin = p.pin("perst_pin")?;
        let perst_io_standard = p.word("perst_io_standard", "an I/O standard such as \"LVCMOS18\"")?;
        p.finish()?;
        Some(Pcie { lanes, refclk, perst_port, perst_pin, perst_io_standard })
    } else {
        None
    };
    reg_t.finish()?;
    root.finish()?;

    Ok(Board {
        name: board_name,
        file: file.to_string(),
        vendor,
        description,
        part,
        family,
        speed_grade,
        missing,
        free_clock,
        qsfp: Qsfp { name: qsfp_name, mac, line_rate_gbps, mac_site, refclk, lane_io_standard, lanes },
        register_path: RegisterPath { kind, pcie },
    })
}

/// The board file's own checks on top of the shared reader.
trait BoardReads {
    /// A non-empty string; `form` says what it holds.
    fn text(&mut self, key: &str, form: &str) -> Result<String, ConfigError>;
    /// A string without whitespace or Tcl/XDC-special characters: it is
    /// written into scripts as a bare word.
    fn word(&mut self, key: &str, form: &str) -> Result<String, ConfigError>;
    fn opt_word(&mut self, key: &str, form: &str) -> Result<Option<String>, ConfigError>;
    fn identifier(&mut self, key: &str) -> Result<String, ConfigError>;
    /// A package pin: one to three capital letters then one or two digits.
    fn pin(&mut self, key: &str) -> Result<String, ConfigError>;
    fn opt_pin(&mut self, key: &str) -> Result<Option<String>, ConfigError>;
    fn opt_io_standard(&mut self, key: &str) -> Result<Option<String>, ConfigError>;
    /// A clock table; `single_ended_ok` allows omitting `pin_n`.
    fn clock(&mut self, single_ended_ok: bool) -> Result<BoardClock, ConfigError>;
}

impl BoardReads for Section {
    fn text(&mut self, key: &str, form: &str) -> Result<String, ConfigError> {
        let s = self.string(key, form)?;
        if s.trim().is_empty() {
            return self.fail(key, format!("is empty: must be {form}"));
        }
        Ok(s)
    }

    fn word(&mut self, key: &str, form: &str) -> Result<String, ConfigError> {
        let s = self.text(key, form)?;
        if s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
            Ok(s)
        } else {
            self.fail(key, format!("{s:?} has characters other than letters, digits, `-`, `_`, `.`: must be {form}"))
        }
    }

    fn opt_word(&mut self, key: &str, form: &str) -> Result<Option<String>, ConfigError> {
        if self.has(key) {
            self.word(key, form).map(Some)
        } else {
            Ok(None)
        }
    }

    fn identifier(&mut self, key: &str) -> Result<String, ConfigError> {
        let s = self.text(key, "a Verilog identifier (letters, digits, `_`)")?;
        if config::is_verilog_identifier(&s) {
            Ok(s)
        } else {
            self.fail(
                key,
                format!("{s:?} is not a Verilog identifier: use letters, digits and `_`, starting with a letter"),
            )
        }
    }

    fn pin(&mut self, key: &str) -> Result<String, ConfigError> {
        let s = self.text(key, "a package pin such as \"AW27\"")?;
        let letters = s.chars().take_while(|c| c.is_ascii_uppercase()).count();
        let digits = s.len() - letters;
        if (1..=3).contains(&letters) && (1..=2).contains(&digits) && s[letters..].chars().all(|c| c.is_ascii_digit()) {
            Ok(s)
        } else {
            self.fail(key, format!("{s:?} is not a package pin: use capital letters then digits, e.g. \"AW27\""))
        }
    }

    fn opt_pin(&mut self, key: &str) -> Result<Option<String>, ConfigError> {
        if self.has(key) {
            self.pin(key).map(Some)
        } else {
            Ok(None)
        }
    }

    fn opt_io_standard(&mut self, key: &str) -> Result<Option<String>, ConfigError> {
        if !self.has(key) {
            return Ok(None);
        }
        let s = self.text(key, "an I/O standard such as \"LVDS\"")?;
        // Quartus names include parentheses: "CURRENT MODE LOGIC (CML)".
        if s.chars().all(|c| c.is_ascii_alphanumeric() || " _.-/()".contains(c)) {
            Ok(Some(s))
        } else {
            self.fail(
                key,
                format!("{s:?} is not an I/O standard name: use letters, digits, spaces, `_`, `.`, `-`, `/`, `(`, `)`"),
            )
        }
    }

    fn clock(&mut self, single_ended_ok: bool) -> Result<BoardClock, ConfigError> {
        let port = self.identifier("port")?;
        let freq_mhz = self.float("freq_mhz", 1.0, 1000.0, "a frequency in MHz")?;
        let pin_p = self.pin("pin_p")?;
        let pin_n = if single_ended_ok { self.opt_pin("pin_n")? } else { Some(self.pin("pin_n")?) };
        let io_standard = self.opt_io_standard("io_standard")?;
        Ok(BoardClock { port, freq_mhz, pin_p, pin_n, io_standard })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u50_text() -> &'static str {
        config::boards::file("alveo-u50").map(|(_, text)| text).unwrap()
    }

    fn rejected(from: &str, to: &str) -> String {
        let text = u50_text();
        assert!(text.contains(from), "alveo-u50.toml lacks {from:?}");
        parse_board("alveo-u50", "constraints/alveo-u50.toml", &text.replacen(from, to, 1))
            .expect_err("board must be rejected")
            .to_string()
    }

    #[test]
    fn every_board_file_loads() {
        let names = board_names();
        assert_eq!(names, vec!["agilex7-f-devkit", "agilex7-i-devkit", "alveo-u250", "alveo-u50", "alveo-u55c"]);
        for name in names {
            let b = load_board(name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(b.name, name);
            assert!(!b.qsfp.lanes.is_empty());
        }
    }

    #[test]
    fn u50_facts_are_read() {
        let b = load_board("alveo-u50").unwrap();
        assert_eq!(b.vendor, Vendor::Amd);
        assert_eq!(b.part, "xcu50-fsvh2104-2-e");
        assert_eq!(b.free_clock.pin_p, "G17");
        assert_eq!(b.qsfp.refclk.freq_mhz, 161.1328125);
        assert_eq!(b.qsfp.lanes[3].gt, "GTYE4_CHANNEL_X0Y31");
        let pcie = b.register_path.pcie.unwrap();
        assert_eq!((pcie.lanes, pcie.perst_pin.as_str()), (16, "AW27"));
    }

    #[test]
    fn i_series_kit_facts_are_read() {
        let b = load_board("agilex7-i-devkit").unwrap();
        assert_eq!((b.vendor, b.part.as_str()), (Vendor::Intel, "AGIB027R29A1E2VR3"));
        assert_eq!((b.free_clock.pin_p.as_str(), b.free_clock.freq_mhz), ("AN61", 100.0));
        assert_eq!((b.qsfp.refclk.pin_p.as_str(), b.qsfp.refclk.freq_mhz), ("JD74", 156.25));
        assert_eq!((b.qsfp.mac.as_str(), b.qsfp.line_rate_gbps), ("F-tile Ethernet Hard IP", 200));
        assert_eq!(b.qsfp.lanes.len(), 8);
        let l7 = &b.qsfp.lanes[7];
        assert_eq!([&l7.tx_p, &l7.tx_n, &l7.rx_p, &l7.rx_n], ["JW77", "KB76", "KH80", "KE79"]);
        assert_eq!(b.register_path.kind, RegisterKind::JtagAvalon);
    }

    #[test]
    fn every_board_names_its_mac_and_line_rate() {
        let rates: Vec<(String, String, u32)> = board_names()
            .into_iter()
            .map(|n| load_board(n).unwrap())
            .map(|b| (b.name, b.qsfp.mac, b.qsfp.line_rate_gbps))
            .collect();
        let expect = [
            ("agilex7-f-devkit", "E-tile Hard IP for Ethernet", 100),
            ("agilex7-i-devkit", "F-tile Ethernet Hard IP", 200),
            ("alveo-u250", "100G CMAC", 100),
            ("alveo-u50", "100G CMAC", 100),
            ("alveo-u55c", "100G CMAC", 100),
        ];
        let expect: Vec<(String, String, u32)> =
            expect.iter().map(|(n, m, r)| (n.to_string(), m.to_string(), *r)).collect();
        assert_eq!(rates, expect);
    }

    #[test]
    fn unknown_board_lists_the_known_ones() {
        let e = load_board("zedboard").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown board \"zedboard\"; known boards: agilex7-f-devkit, agilex7-i-devkit, alveo-u250, alveo-u50, alveo-u55c"
        );
    }

    #[test]
    fn errors_name_file_key_and_form() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "part = \"xcu50-fsvh2104-2-e\"",
                "",
                "constraints/alveo-u50.toml: `part`: missing: must be a string, a part number such as \"xcu50-fsvh2104-2-e\"",
            ),
            (
                "part = \"xcu50-fsvh2104-2-e\"",
                "part = 50",
                "constraints/alveo-u50.toml: `part`: must be a string, a part number such as \"xcu50-fsvh2104-2-e\"; found integer",
            ),
            (
                "freq_mhz = 161.1328125",
                "freq_mhz = \"161\"",
                "constraints/alveo-u50.toml: `qsfp.refclk.freq_mhz`: must be a frequency in MHz, a number in 1..=1000; found string",
            ),
            (
                "pin_p = \"G17\"",
                "pin_p = \"G 17\"",
                "constraints/alveo-u50.toml: `free_clock.pin_p`: \"G 17\" is not a package pin: use capital letters then digits, e.g. \"AW27\"",
            ),
            (
                "vendor = \"amd\"",
                "vendor = \"xilinx\"",
                "constraints/alveo-u50.toml: `vendor`: \"xilinx\" is not a vendor: use \"amd\" or \"intel\"",
            ),
            (
                "lanes = 16",
                "lanes = 12",
                "constraints/alveo-u50.toml: `register_path.pcie.lanes`: 12 is not allowed: must be one of 1, 2, 4, 8, 16",
            ),
            (
                "tx_n = \"A41\"",
                "tx_n = \"A41\"\ntx_m = \"A42\"",
                "constraints/alveo-u50.toml: `qsfp.lanes[3].tx_m`: unknown key (see flows/README.md for the board file keys)",
            ),
            (
                "rx_p = \"J45\"",
                "",
                "constraints/alveo-u50.toml: `qsfp.lanes[0].rx_p`: missing: must be a string, a package pin such as \"AW27\"",
            ),
            (
                "kind = \"pcie-xdma\"",
                "kind = \"jtag-avalon\"",
                "constraints/alveo-u50.toml: `register_path.kind`: \"jtag-avalon\" is not a register path for this vendor: use \"pcie-xdma\" (the register path generated for amd boards)",
            ),
            (
                "name = \"alveo-u50\"",
                "name = \"alveo-u51\"",
                "constraints/alveo-u50.toml: `name`: is \"alveo-u51\" but the file is constraints/alveo-u50.toml: must be \"alveo-u50\"",
            ),
            (
                "port = \"clk_100mhz\"",
                "port = \"clk$100\"",
                "constraints/alveo-u50.toml: `free_clock.port`: \"clk$100\" is not a Verilog identifier: use letters, digits and `_`, starting with a letter",
            ),
            (
                "io_standard = \"LVDS\"               # [corundum] and",
                "io_standard = \"LVDS{\"               # [corundum] and",
                "constraints/alveo-u50.toml: `free_clock.io_standard`: \"LVDS{\" is not an I/O standard name: use letters, digits, spaces, `_`, `.`, `-`, `/`, `(`, `)`",
            ),
            (
                "line_rate_gbps = 100",
                "line_rate_gbps = 150",
                "constraints/alveo-u50.toml: `qsfp.line_rate_gbps`: 150 is not allowed: must be one of 10, 25, 40, 50, 100, 200, 400, 800",
            ),
            (
                "line_rate_gbps = 100",
                "line_rate_gbps = \"100G\"",
                "constraints/alveo-u50.toml: `qsfp.line_rate_gbps`: must be an integer, one of 10, 25, 40, 50, 100, 200, 400, 800; found string",
            ),
            (
                "mac = \"100G CMAC\"",
                "",
                "constraints/alveo-u50.toml: `qsfp.mac`: missing: must be a string, the Ethernet hard IP, e.g. \"100G CMAC\" or \"F-tile Ethernet Hard IP\"",
            ),
            (
                "mac = \"100G CMAC\"",
                "mac = \" \"",
                "constraints/alveo-u50.toml: `qsfp.mac`: is empty: must be the Ethernet hard IP, e.g. \"100G CMAC\" or \"F-tile Ethernet Hard IP\"",
            ),
            (
                "[register_path.pcie.refclk]",
                "[register_path.pcie.refclock]",
                "constraints/alveo-u50.toml: `register_path.pcie.refclk`: missing: must be a table `[register_path.pcie.refclk]`",
            ),
        ];
        for (from, to, expected) in cases {
            assert_eq!(&rejected(from, to), expected, "replacing {from:?} by {to:?}");
        }
    }

    #[test]
    fn malformed_toml_names_the_file() {
        let e = parse_board("x", "constraints/x.toml", "name = ").unwrap_err().to_string();
        assert!(e.starts_with("constraints/x.toml: malformed TOML"), "{e}");
    }
}
