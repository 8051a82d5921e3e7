//! The few system calls the harness needs, each wrapped once: an owned
//! socket, `struct ifreq`, poll.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// `struct ifreq`: the interface name and a 24-byte union, of which the
/// harness uses the flags, the index, the MTU and the hardware address.
#[repr(C)]
pub(crate) struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    data: [u8; 24],
}

impl IfReq {
    /// A request for interface `name` (at most 15 bytes, no NUL).
    pub(crate) fn new(name: &str) -> io::Result<Self> {
        check_ifname(name).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let mut req = IfReq { name: [0; libc::IFNAMSIZ], data: [0; 24] };
        req.name[..name.len()].copy_from_slice(name.as_bytes());
        Ok(req)
    }

    pub(crate) fn flags(&self) -> libc::c_short {
        libc::c_short::from_ne_bytes([self.data[0], self.data[1]])
    }

    pub(crate) fn set_flags(&mut self, flags: libc::c_short) {
        self.data[..2].copy_from_slice(&flags.to_ne_bytes());
    }

    pub(crate) fn int(&self) -> libc::c_int {
        libc::c_int::from_ne_bytes([self.data[0], self.data[1], self.data[2], self.data[3]])
    }

    /// The hardware address of a `sockaddr` (SIOCGIFHWADDR): family, then
    /// the six bytes.
    pub(crate) fn hwaddr(&self) -> [u8; 6] {
        let mut mac = [0; 6];
        mac.copy_from_slice(&self.data[2..8]);
        mac
    }

    pub(crate) fn name(&self) -> String {
        let end = self.name.iter().position(|&b| b == 0).unwrap_or(self.name.len());
        String::from_utf8_lossy(&self.name[..end]).into_owned()
    }
}

/// Why `name` cannot be an interface name, if it cannot.
pub(crate) fn check_ifname(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() >= libc::IFNAMSIZ {
        return Err(format!("{name:?} must be 1..=15 bytes long"));
    }
    if name.bytes().any(|b| b == 0 || b == b'/' || b.is_ascii_whitespace() || b == b':') {
        return Err(format!("{name:?} must not contain '/', ':', NUL or whitespace"));
    }
    Ok(())
}

/// An owned socket of the calling thread's network namespace.
pub(crate) struct Socket(OwnedFd);

impl Socket {
    pub(crate) fn new(domain: libc::c_int, ty: libc::c_int, protocol: libc::c_int) -> io::Result<Self> {
        // SAFETY: socket(2) takes integers; a non-negative result is a new fd we own.
        let fd = unsafe { libc::socket(domain, ty | libc::SOCK_CLOEXEC, protocol) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: fd is open and owned by nobody else.
        Ok(Socket(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    pub(crate) fn ioctl(&self, request: libc::c_ulong, req: &mut IfReq) -> io::Result<()> {
        ioctl(self.0.as_raw_fd(), request, req)
    }
}

/// ioctl(2) with a `struct ifreq`.
pub(crate) fn ioctl(fd: RawFd, request: libc::c_ulong, req: &mut IfReq) -> io::Result<()> {
    // SAFETY: every request the harness makes reads or writes one struct ifreq,
    // which `req` is, for the duration of the call.
    if unsafe { libc::ioctl(fd, request as _, req as *mut IfReq) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Waits at most `timeout` for `events` on `fd`; `Ok(true)` when they came.
/// An interrupted wait counts as a timeout, so callers simply loop.
pub(crate) fn poll_fd(fd: RawFd, events: libc::c_short, timeout: Duration) -> io::Result<bool> {
    let mut pfd = libc::pollfd { fd, events, revents: 0 };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd for the duration of the call.
    let n = unsafe { libc::poll(&mut pfd, 1, ms) };
    if n < 0 {
        let e = io::Error::last_os_error();
        return if e.kind() == io::ErrorKind::Interrupted { Ok(false) } else { Err(e) };
    }
    if n > 0 && pfd.revents & (libc::POLLERR | libc::POLLNVAL) != 0 {
        return Err(io::Error::other(format!("poll: revents {:#x}", pfd.revents)));
    }
    Ok(n > 0 && pfd.revents & events != 0)
}

/// The index of interface `name` in the calling thread's namespace.
pub(crate) fn ifindex(name: &str) -> io::Result<libc::c_int> {
    let sock = Socket::new(libc::AF_INET, libc::SOCK_DGRAM, 0)?;
    let mut req = IfReq::new(name)?;
    sock.ioctl(libc::SIOCGIFINDEX, &mut req)?;
    Ok(req.int())
}
