//! Socket helpers: opening non-blocking sockets, the peer's MSS and window
//! scale, and the wording of socket errors.

use std::fmt;
use std::io;
use std::net::SocketAddrV4;

use socket2::{Domain, Protocol, SockAddr, Socket, Type};

/// `peer_mss` and `peer_window_scale` from TCP_INFO.
#[cfg(target_os = "linux")]
pub(crate) fn peer_info(sock: &Socket) -> (u16, u8) {
    use std::os::fd::AsRawFd;
    // SAFETY: tcp_info is plain old data; getsockopt writes at most `len` bytes into it.
    unsafe {
        let mut info: libc::tcp_info = std::mem::zeroed();
        let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
        let r = libc::getsockopt(
            sock.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        );
        if r != 0 {
            return (0, 0);
        }
        // `__u8 tcpi_snd_wscale : 4, tcpi_rcv_wscale : 4;`: the first
        // bit-field takes the low bits on little-endian targets.
        let v = info.tcpi_snd_rcv_wscale;
        let ws = if cfg!(target_endian = "little") { v & 0x0F } else { v >> 4 };
        (info.tcpi_snd_mss.min(u16::MAX as u32) as u16, ws)
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn peer_info(_sock: &Socket) -> (u16, u8) {
    (0, 0)
}

/// The event text for a socket error on an open connection.
pub(crate) fn io_failure(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe => {
            format!("connection reset by peer ({e})")
        }
        _ => format!("connection failed: {e}"),
    }
}

/// The event text for an active open that failed (at `connect()` or while
/// it was pending).
pub(crate) fn connect_failure(remote: impl fmt::Display, e: &io::Error) -> String {
    if e.kind() == io::ErrorKind::ConnectionRefused {
        format!("connect to {remote} refused")
    } else {
        format!("connect to {remote} failed: {e}")
    }
}

pub(crate) fn busy_port(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::AddrInUse | io::ErrorKind::AddrNotAvailable)
}

/// A non-blocking TCP socket bound to `local` with SO_REUSEADDR.
pub(crate) fn bound_socket(local: SocketAddrV4) -> io::Result<Socket> {
    let sock = Socket::new(Domain::IPV4, Type::STREAM, Some(Protocol::TCP))?;
    sock.set_reuse_address(true)?;
    sock.set_nonblocking(true)?;
    sock.bind(&SockAddr::from(local))?;
    Ok(sock)
}

/// Starts a non-blocking connect from `local` to `remote`.
pub(crate) fn start_connect(local: SocketAddrV4, remote: SocketAddrV4) -> io::Result<Socket> {
    let sock = bound_socket(local)?;
    match sock.connect(&SockAddr::from(remote)) {
        Ok(()) => Ok(sock),
        Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => Ok(sock),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    use super::connect_failure;

    /// A refusal reads as such; any other error is quoted.
    #[test]
    fn connect_failure_wording() {
        let refused = io::Error::from(io::ErrorKind::ConnectionRefused);
        assert_eq!(connect_failure("127.0.0.1:5000", &refused), "connect to 127.0.0.1:5000 refused");
        let other = io::Error::other("boom");
        assert_eq!(connect_failure("?", &other), "connect to ? failed: boom");
    }
}
