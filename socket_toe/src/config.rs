//! What a [`HostToe`](crate::HostToe) is built from: the socket addresses and
//! timers ([`NetConfig`]), and why a configuration is refused ([`Error`]).

use std::fmt;
use std::net::Ipv4Addr;
use std::time::Duration;

/// Where the sockets live and how long the wall-clock timers are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetConfig {
    /// Local address: source address of active opens and the address passive
    /// opens listen on. Must be in 127.0.0.0/8. Default 127.0.0.1.
    pub bind: Ipv4Addr,
    /// The target (peer) address of active opens (`toe_target_ip` is not
    /// used). Must be in 127.0.0.0/8. Default 127.0.0.1.
    pub target: Ipv4Addr,
    /// An active open that has not completed after this long (wall clock)
    /// fails with `conn_error` (the board's SYN timeout). Default 2 s.
    pub connect_timeout: Duration,
    /// A trailing partial RX beat is delivered (with `rx_tlast`) when no new
    /// byte arrived for this long (wall clock) and the socket had nothing more
    /// to read. Default 5 ms.
    pub push_timeout: Duration,
    /// User-space TX buffer per session, bytes (at least one beat). Default 256 KiB.
    pub tx_buffer: usize,
    /// User-space RX buffer per session, bytes (at least one beat). Default 256 KiB.
    pub rx_buffer: usize,
    /// Appended to the event of a passive open whose port another socket
    /// holds (`EADDRINUSE`): how the user of this TOE moves the session's
    /// port (the virtual board names its option). Default empty.
    pub port_taken_hint: String,
}

impl Default for NetConfig {
    fn default() -> Self {
        Self {
            bind: Ipv4Addr::LOCALHOST,
            target: Ipv4Addr::LOCALHOST,
            connect_timeout: Duration::from_secs(2),
            push_timeout: Duration::from_millis(5),
            tx_buffer: 256 << 10,
            rx_buffer: 256 << 10,
            port_taken_hint: String::new(),
        }
    }
}

/// Why [`HostToe::new`](crate::HostToe::new) refused its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// `bind` or `target` (named by `field`) is outside 127.0.0.0/8.
    NotLoopback {
        /// `"bind"` or `"target"`.
        field: &'static str,
        /// The refused address.
        addr: Ipv4Addr,
    },
    /// Another argument is out of range (message says which).
    Config(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotLoopback { field, addr } => {
                write!(f, "NetConfig.{field} = {addr} is not a loopback address: socket_toe only uses 127.0.0.0/8")
            }
            Error::Config(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for Error {}
