//! The TOE parameters (menu 0 and 1 of the reference console): read from
//! and written to the `toe` block and the sessions' port registers.

use std::fmt::Write as _;
use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use etherbone::RegisterBus;

use crate::input::{self, InputError};
use crate::ops::{self, OpError};
use crate::regs;
use regs::toe::toe_config as cfg;

/// The ports a person may give (a session's FPGA and target port): 0 is
/// not a port to listen on or connect to.
pub const PORT_MIN: u64 = 1;
pub const PORT_MAX: u64 = 65535;

/// Everything menu 1 sets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// 0 client, 1 server, 2 fixed MAC.
    pub mode: u32,
    /// 0 DUP, 1 PSH, 2 normal.
    pub last_packet_mode: u32,
    /// Window update gap in 1 KB units, 0..=1023.
    pub window_update_gap: u32,
    pub fpga_mac: u64,
    pub fpga_ip: Ipv4Addr,
    pub target_mac: u64,
    pub target_ip: Ipv4Addr,
    pub fpga_ports: Vec<u16>,
    pub target_ports: Vec<u16>,
    /// Every session's watchdog (`session.stall_timeout`), ms; 0 never.
    /// Not in the reference's menu: read from session 0, written to all.
    pub stall_timeout_ms: u32,
}

pub fn mode_name(mode: u32) -> &'static str {
    match cfg::Mode::from_bits(mode) {
        Some(cfg::Mode::Client) => "Client",
        Some(cfg::Mode::Server) => "Server",
        Some(cfg::Mode::FixedMac) => "Fixed-MAC",
        None => "unknown",
    }
}

pub fn last_packet_mode_name(m: u32) -> &'static str {
    match cfg::LastPacketMode::from_bits(m) {
        Some(cfg::LastPacketMode::Dup) => "DUP (duplicated last packet)",
        Some(cfg::LastPacketMode::Psh) => "PSH (last packet with the PSH flag)",
        Some(cfg::LastPacketMode::Normal) => "normal last packet",
        None => "unknown",
    }
}

/// The keys of `params set`, in the order menu 1 asks for them.
pub fn keys(sessions: usize) -> Vec<String> {
    let mut k: Vec<String> = [
        "mode",
        "last_packet_mode",
        "window_update_gap",
        "fpga_mac",
        "fpga_ip",
        "target_mac",
        "target_ip",
        "stall_timeout",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for s in 0..sessions {
        k.push(format!("fpga_port{s}"));
        k.push(format!("target_port{s}"));
    }
    k
}

impl Params {
    /// Reads them from the board's registers.
    pub fn read(bus: &mut (impl RegisterBus + ?Sized), sessions: usize) -> Result<Params, OpError> {
        use regs::toe;
        let word = ops::read(bus, toe::TOE_CONFIG)?;
        let mut p = Params {
            mode: cfg::MODE.get(word),
            last_packet_mode: cfg::LAST_PACKET_MODE.get(word),
            window_update_gap: cfg::WINDOW_UPDATE_GAP.get(word),
            fpga_mac: ops::read_wide(bus, toe::FPGA_MAC)?,
            fpga_ip: Ipv4Addr::from(ops::read(bus, toe::FPGA_IP)?),
            target_mac: ops::read_wide(bus, toe::TARGET_MAC)?,
            target_ip: Ipv4Addr::from(ops::read(bus, toe::TARGET_IP)?),
            fpga_ports: Vec::new(),
            target_ports: Vec::new(),
            stall_timeout_ms: ops::read_stall_timeout(bus, 0)?,
        };
        for s in 0..sessions {
            let (f, t) = ops::read_ports(bus, s)?;
            p.fpga_ports.push(f);
            p.target_ports.push(t);
        }
        Ok(p)
    }

    /// Writes them to the board's registers (does not initialise the TOE).
    pub fn write(&self, bus: &mut (impl RegisterBus + ?Sized)) -> Result<(), OpError> {
        use regs::toe;
        let bad =
            |what: &str, v: u32, f: regs::Field| OpError(format!("{what} {v} is out of range {}..={}", f.min, f.max));
        let mut word = ops::read(bus, toe::TOE_CONFIG)?;
        word = cfg::MODE.set(word, self.mode).ok_or_else(|| bad("mode", self.mode, cfg::MODE))?;
        word = cfg::LAST_PACKET_MODE
            .set(word, self.last_packet_mode)
            .ok_or_else(|| bad("last packet mode", self.last_packet_mode, cfg::LAST_PACKET_MODE))?;
        word = cfg::WINDOW_UPDATE_GAP
            .set(word, self.window_update_gap)
            .ok_or_else(|| bad("window update gap", self.window_update_gap, cfg::WINDOW_UPDATE_GAP))?;
        ops::write(bus, toe::TOE_CONFIG, word)?;
        ops::write_wide(bus, toe::FPGA_MAC, self.fpga_mac)?;
        ops::write(bus, toe::FPGA_IP, u32::from(self.fpga_ip))?;
        ops::write_wide(bus, toe::TARGET_MAC, self.target_mac)?;
        ops::write(bus, toe::TARGET_IP, u32::from(self.target_ip))?;
        for (s, (f, t)) in self.fpga_ports.iter().zip(&self.target_ports).enumerate() {
            ops::ports(bus, s, *f, *t)?;
            ops::stall_timeout(bus, s, self.stall_timeout_ms)?;
        }
        Ok(())
    }

    /// Menu 0: eight parameters, nine in fixed-MAC mode (the target MAC).
    pub fn display(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "TOE parameters");
        let _ = writeln!(s, "  Window update gap : {} (x 1 KB; valid 0x000-0x3FF)", self.window_update_gap);
        let _ = writeln!(
            s,
            "  Last packet mode  : {} {}",
            self.last_packet_mode,
            last_packet_mode_name(self.last_packet_mode)
        );
        let _ = writeln!(s, "  Mode              : {} {}", self.mode, mode_name(self.mode));
        let _ = writeln!(s, "  FPGA MAC address  : {:#014x}", self.fpga_mac);
        let _ = writeln!(s, "  FPGA IP           : {}", self.fpga_ip);
        if self.mode == cfg::Mode::FixedMac.bits() {
            let _ = writeln!(s, "  Target MAC address: {:#014x}", self.target_mac);
        }
        let _ = writeln!(s, "  Target IP         : {}", self.target_ip);
        let _ = writeln!(s, "  Ports (FPGA -> Target)");
        for (i, (f, t)) in self.fpga_ports.iter().zip(&self.target_ports).enumerate() {
            let _ = writeln!(s, "    session {i}       : {f} -> {t}");
        }
        let _ = writeln!(s, "  Stall timeout     : {} ms (0 never; valid 0-65535)", self.stall_timeout_ms);
        s
    }

    /// The parameters as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "mode": self.mode, "mode_name": mode_name(self.mode),
            "last_packet_mode": self.last_packet_mode,
            "window_update_gap": self.window_update_gap,
            "fpga_mac": format!("{:#014x}", self.fpga_mac), "fpga_ip": self.fpga_ip.to_string(),
            "target_mac": format!("{:#014x}", self.target_mac), "target_ip": self.target_ip.to_string(),
            "fpga_ports": self.fpga_ports, "target_ports": self.target_ports,
            "stall_timeout": self.stall_timeout_ms,
        })
    }

    /// Sets one parameter from text, validated as menu 1 validates it.
    /// Ports must stay distinct among the sessions.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), InputError> {
        let port_of = |prefix: &str| key.strip_prefix(prefix).and_then(|n| n.parse::<usize>().ok());
        match key {
            "mode" => self.mode = input::code("Mode", value, &[0, 1, 2])? as u32,
            "last_packet_mode" => self.last_packet_mode = input::code("Last packet mode", value, &[0, 1, 2])? as u32,
            "window_update_gap" => self.window_update_gap = input::number("Window update gap", value, 0, 0x3FF)? as u32,
            "fpga_mac" => self.fpga_mac = input::mac("FPGA MAC address", value)?,
            "fpga_ip" => self.fpga_ip = input::ipv4("FPGA IP address", value)?,
            "target_mac" => self.target_mac = input::mac("Target MAC address", value)?,
            "target_ip" => self.target_ip = input::ipv4("Target IP address", value)?,
            "stall_timeout" => self.stall_timeout_ms = input::number("Stall timeout (ms)", value, 0, 0xFFFF)? as u32,
            _ => {
                let (list, n, what) = if let Some(n) = port_of("fpga_port") {
                    (&mut self.fpga_ports, n, "FPGA port")
                } else if let Some(n) = port_of("target_port") {
                    (&mut self.target_ports, n, "Target port")
                } else {
                    return Err(InputError::Invalid {
                        what: "parameter".into(),
                        input: key.into(),
                        form: format!("one of {}", keys(self.fpga_ports.len()).join(", ")),
                    });
                };
                if n >= list.len() {
                    return Err(InputError::OutOfRange {
                        what: format!("{what} session"),
                        input: n.to_string(),
                        range: format!("0-{}", list.len() - 1),
                    });
                }
                // Port 0 is no port: a board told to listen on it takes a
                // random one, and a peer cannot connect to it.
                let v = input::number(&format!("{what} of session {n}"), value, PORT_MIN, PORT_MAX)? as u16;
                if list.iter().enumerate().any(|(i, p)| i != n && *p == v) {
                    return Err(InputError::OutOfRange {
                        what: format!("{what} of session {n}"),
                        input: value.into(),
                        range: format!("{PORT_MIN}-{PORT_MAX}, distinct from the other sessions' ports"),
                    });
                }
                list[n] = v;
            }
        }
        Ok(())
    }
}

/// Writes the parameters, then resets and initialises the TOE with them,
/// waiting for `init_done` at most `limit`. `Ok(false)`: not done in time.
pub fn apply_and_init(bus: &mut (impl RegisterBus + ?Sized), p: &Params, limit: Duration) -> Result<bool, OpError> {
    p.write(bus)?;
    ops::start_init(bus)?;
    let deadline = Instant::now() + limit;
    loop {
        std::thread::sleep(Duration::from_millis(5));
        if ops::init_done(bus)? {
            return Ok(true);
        }
        if Instant::now() > deadline {
            return Ok(false);
        }
    }
}
