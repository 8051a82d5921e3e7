//! The node's configuration, its defaults and its checks.

use std::fmt;
use std::net::Ipv4Addr;

use crate::frame::eth;
use crate::Mac;

/// How the node finds the target's MAC (the register file's `toe_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArpMode {
    /// `toe_mode` 0: `init` resolves target_ip with ARP requests.
    Client,
    /// `toe_mode` 1: the node learns the target's MAC from the target's own
    /// ARP request for fpga_ip.
    Server,
    /// `toe_mode` 2: the target's MAC is configured; no ARP frame is sent or taken.
    FixedMac,
}

impl ArpMode {
    /// The register value of the mode.
    pub fn toe_mode(self) -> u32 {
        match self {
            ArpMode::Client => 0,
            ArpMode::Server => 1,
            ArpMode::FixedMac => 2,
        }
    }

    /// The mode a `toe_mode` register value selects.
    pub fn from_toe_mode(value: u32) -> Result<Self, ConfigError> {
        match value {
            0 => Ok(ArpMode::Client),
            1 => Ok(ArpMode::Server),
            2 => Ok(ArpMode::FixedMac),
            v => Err(ConfigError(format!("toe_mode = {v} is out of range: 0 ..= 2 (0 client, 1 server, 2 fixed MAC)"))),
        }
    }
}

/// The smallest IPv4 MTU: every host must take 576-byte datagrams (RFC 791).
pub const MTU_MIN: usize = 576;
/// The largest IPv4 MTU: a jumbo frame of 9000 bytes of IP.
pub const MTU_MAX: usize = 9000;
/// The MTU of standard Ethernet.
pub const MTU_DEFAULT: usize = 1500;
/// 1 ms at the 250 MHz user clock.
pub const ARP_RETRY_CYCLES_DEFAULT: u64 = 250_000;
/// The RTL's retry timer is 32 bits wide (17 s at 250 MHz).
pub const ARP_RETRY_CYCLES_MAX: u64 = u32::MAX as u64;
/// ARP requests before client mode gives up.
pub const ARP_ATTEMPTS_DEFAULT: u32 = 8;
/// The attempt counter is 8 bits wide.
pub const ARP_ATTEMPTS_MAX: u32 = 255;
/// The transmit buffer is built of 4 KiB blocks (one 36 Kbit block RAM's data).
pub const TX_BUFFER_BLOCK: usize = 4096;
/// The largest transmit buffer: 1 MiB of on-chip memory.
pub const TX_BUFFER_MAX: usize = 1 << 20;

/// The node's configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeConfig {
    /// The node's own MAC.
    pub fpga_mac: Mac,
    /// The node's own IPv4 address.
    pub fpga_ip: Ipv4Addr,
    /// The one host the node talks to (the TCP peer of part 2).
    pub target_ip: Ipv4Addr,
    /// Used in FixedMac mode only.
    pub target_mac: Mac,
    /// How the target's MAC is found.
    pub mode: ArpMode,
    /// IPv4 MTU: the largest IP packet (total length) sent or taken, 576 ..= 9000, default 1500.
    pub mtu: usize,
    /// User-clock cycles between two ARP requests in client mode (default: 1 ms at 250 MHz = 250_000).
    pub arp_retry_cycles: u64,
    /// ARP requests sent in client mode before the node reports failure (default 8), 1 ..= 255.
    pub arp_attempts: u32,
    /// Bytes of the store-and-forward transmit buffer (frames waiting for
    /// the MAC): at least two frames of the largest size (2 * (14 + mtu));
    /// the default is that rounded up to whole 4 KiB blocks.
    pub tx_buffer_bytes: usize,
    /// The TCP engine (part 2); `None` drops TCP as any other protocol
    /// (`ipv4_protocol`), as the part-1 RTL does.
    pub tcp: Option<crate::tcp::TcpConfig>,
}

impl NodeConfig {
    /// A configuration with the defaults: MTU 1500, ARP retry every
    /// 250_000 cycles, 8 attempts, the smallest transmit buffer for the MTU,
    /// and a zero `target_mac` (set it for [`ArpMode::FixedMac`]).
    pub fn new(fpga_mac: Mac, fpga_ip: Ipv4Addr, target_ip: Ipv4Addr, mode: ArpMode) -> Self {
        NodeConfig {
            fpga_mac,
            fpga_ip,
            target_ip,
            target_mac: [0; 6],
            mode,
            mtu: MTU_DEFAULT,
            arp_retry_cycles: ARP_RETRY_CYCLES_DEFAULT,
            arp_attempts: ARP_ATTEMPTS_DEFAULT,
            tx_buffer_bytes: default_tx_buffer_bytes(MTU_DEFAULT),
            tcp: None,
        }
    }

    /// The largest frame the node sends or takes: 14 + mtu bytes.
    pub fn max_frame_len(&self) -> usize {
        eth::HEADER_LEN + self.mtu
    }

    /// Checks every field; the error names the first field out of range and its valid range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_unicast_mac("fpga_mac", &self.fpga_mac)?;
        check_unicast_ip("fpga_ip", self.fpga_ip)?;
        check_unicast_ip("target_ip", self.target_ip)?;
        if self.target_ip == self.fpga_ip {
            return Err(ConfigError(format!(
                "target_ip = {} is fpga_ip: the target must be another host",
                self.target_ip
            )));
        }
        if self.mode == ArpMode::FixedMac {
            check_unicast_mac("target_mac", &self.target_mac)?;
        }
        check_range("mtu", self.mtu as u64, MTU_MIN as u64, MTU_MAX as u64, "")?;
        check_range("arp_retry_cycles", self.arp_retry_cycles, 1, ARP_RETRY_CYCLES_MAX, "")?;
        check_range("arp_attempts", u64::from(self.arp_attempts), 1, u64::from(ARP_ATTEMPTS_MAX), "")?;
        let least = 2 * self.max_frame_len();
        check_range(
            "tx_buffer_bytes",
            self.tx_buffer_bytes as u64,
            least as u64,
            TX_BUFFER_MAX as u64,
            " (at least two frames of 14 + mtu bytes)",
        )?;
        match &self.tcp {
            Some(tcp) => tcp.validate(),
            None => Ok(()),
        }
    }
}

/// The smallest transmit buffer for `mtu`, two whole frames, rounded up to 4 KiB blocks.
pub fn default_tx_buffer_bytes(mtu: usize) -> usize {
    (2 * (eth::HEADER_LEN + mtu)).div_ceil(TX_BUFFER_BLOCK) * TX_BUFFER_BLOCK
}

fn check_range(field: &str, value: u64, min: u64, max: u64, why: &str) -> Result<(), ConfigError> {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ConfigError(format!("{field} = {value} is out of range: {min} ..= {max}{why}")))
    }
}

fn check_unicast_mac(field: &str, mac: &Mac) -> Result<(), ConfigError> {
    if mac[0] & 1 == 1 || *mac == [0; 6] {
        Err(ConfigError(format!(
            "{field} = {} is not a unicast MAC: the group bit (bit 0 of the first byte) must be 0 and the MAC not all zero",
            fmt_mac(mac)
        )))
    } else {
        Ok(())
    }
}

fn check_unicast_ip(field: &str, ip: Ipv4Addr) -> Result<(), ConfigError> {
    if (1..=223).contains(&ip.octets()[0]) {
        Ok(())
    } else {
        Err(ConfigError(format!("{field} = {ip} is out of range: 1.0.0.0 ..= 223.255.255.255 (a unicast address)")))
    }
}

/// `aa:bb:cc:dd:ee:ff`.
pub fn fmt_mac(mac: &Mac) -> String {
    mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// A configuration field out of range; the message names the field and its valid range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError(String);

impl ConfigError {
    pub(crate) fn new(message: String) -> Self {
        ConfigError(message)
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}
