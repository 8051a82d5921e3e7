//! A TAP device: an Ethernet interface of the kernel whose wire is a file
//! descriptor. What the kernel sends out of the interface is read from the
//! fd, one frame a read (no preamble, no FCS, no padding); what is written to
//! the fd arrives at the kernel as if received.

use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

use crate::error::HarnessError;
use crate::namespace::ip;
use crate::sys::{self, IfReq};

/// The largest MTU the kernel's tun driver takes (65535 less the Ethernet
/// header).
pub const TAP_MAX_MTU: usize = 65521;
/// The smallest MTU the kernel takes for an IPv4 interface.
pub const TAP_MIN_MTU: usize = 68;

/// How to make a TAP: its name, MTU and the kernel side's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TapConfig {
    /// Interface name, 1..=15 bytes.
    pub name: String,
    /// The interface's MTU, `TAP_MIN_MTU..=TAP_MAX_MTU`.
    pub mtu: usize,
    /// The kernel's own address on the TAP (the node's *target*).
    pub kernel_ip: Ipv4Addr,
    /// Prefix length of `kernel_ip`'s subnet, `1..=30`.
    pub prefix_len: u8,
    /// Leave IPv6 on. Off by default: the kernel would otherwise send router
    /// solicitations and MLD reports of its own, which the node drops and
    /// counts, so counters would depend on timing.
    pub ipv6: bool,
}

impl TapConfig {
    /// `name` with MTU 1500 and the kernel at `kernel_ip`/24, IPv6 off.
    pub fn new(name: &str, kernel_ip: Ipv4Addr) -> Self {
        TapConfig { name: name.to_string(), mtu: 1500, kernel_ip, prefix_len: 24, ipv6: false }
    }

    /// Checks every field; the error names the field and its valid range.
    pub fn validate(&self) -> Result<(), HarnessError> {
        sys::check_ifname(&self.name).map_err(|d| HarnessError::invalid("TAP name", d))?;
        if !(TAP_MIN_MTU..=TAP_MAX_MTU).contains(&self.mtu) {
            return Err(HarnessError::invalid(
                "TAP mtu",
                format!("{} is outside {TAP_MIN_MTU}..={TAP_MAX_MTU}", self.mtu),
            ));
        }
        if !(1..=30).contains(&self.prefix_len) {
            return Err(HarnessError::invalid("TAP prefix_len", format!("{} is outside 1..=30", self.prefix_len)));
        }
        Ok(())
    }
}

/// An open TAP device of the namespace it was made or attached in.
///
/// The fd is non-blocking. A TAP made by [`Tap::create`] vanishes when this
/// is dropped; one attached by [`Tap::attach`] stays (it is persistent).
#[derive(Debug)]
pub struct Tap {
    fd: OwnedFd,
    name: String,
}

impl Tap {
    /// Makes a TAP in the calling thread's namespace, sets its MTU, brings
    /// it up and gives the kernel `cfg.kernel_ip` on it (by running `ip`;
    /// a failing command is an error that names it).
    pub fn create(cfg: &TapConfig) -> Result<Tap, HarnessError> {
        cfg.validate()?;
        let tap = Tap::open(&cfg.name)?;
        let name = tap.name.clone();
        if !cfg.ipv6 {
            disable_ipv6(&name)?;
        }
        let mtu = cfg.mtu.to_string();
        ip(&["link", "set", "dev", &name, "mtu", &mtu, "up"])?;
        let addr = format!("{}/{}", cfg.kernel_ip, cfg.prefix_len);
        ip(&["addr", "add", &addr, "dev", &name])?;
        Ok(tap)
    }

    /// Opens an existing TAP (e.g. one made by `ip tuntap add NAME mode tap`)
    /// of the calling thread's namespace; its addresses and state are left as
    /// they are.
    pub fn attach(name: &str) -> Result<Tap, HarnessError> {
        sys::check_ifname(name).map_err(|d| HarnessError::invalid("TAP name", d))?;
        sys::ifindex(name).map_err(|e| HarnessError::Tun {
            step: format!(
                "no interface {name:?} in this network namespace (make it with `ip tuntap add {name} mode tap`)"
            ),
            source: e,
        })?;
        Tap::open(name)
    }

    fn open(name: &str) -> Result<Tap, HarnessError> {
        let path = c"/dev/net/tun";
        // SAFETY: a NUL-terminated path and flags; a non-negative result is a new fd we own.
        let raw = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        if raw < 0 {
            return Err(HarnessError::Tun {
                step: "cannot open /dev/net/tun".into(),
                source: io::Error::last_os_error(),
            });
        }
        // SAFETY: raw is open and owned by nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut req =
            IfReq::new(name).map_err(|e| HarnessError::Tun { step: format!("TAP name {name:?}"), source: e })?;
        req.set_flags((libc::IFF_TAP | libc::IFF_NO_PI) as libc::c_short);
        sys::ioctl(fd.as_raw_fd(), libc::TUNSETIFF as libc::c_ulong, &mut req).map_err(|e| HarnessError::Tun {
            step: format!("TUNSETIFF (IFF_TAP | IFF_NO_PI) for {name:?}"),
            source: e,
        })?;
        Ok(Tap { fd, name: req.name() })
    }

    /// The interface's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kernel side's MAC address (what the kernel puts as source of the
    /// frames it sends on the TAP).
    pub fn mac(&self) -> Result<[u8; 6], HarnessError> {
        let mut req = IfReq::new(&self.name).map_err(|e| HarnessError::io("TAP name", e))?;
        sys::ioctl(self.fd.as_raw_fd(), libc::SIOCGIFHWADDR, &mut req)
            .map_err(|e| HarnessError::io(format!("SIOCGIFHWADDR on {}", self.name), e))?;
        Ok(req.hwaddr())
    }

    /// The interface's index in the calling thread's namespace.
    pub fn ifindex(&self) -> Result<i32, HarnessError> {
        sys::ifindex(&self.name).map_err(|e| HarnessError::io(format!("SIOCGIFINDEX {}", self.name), e))
    }

    /// Waits at most `timeout` for a frame to read; `Ok(true)` when one is there.
    pub fn wait_readable(&self, timeout: Duration) -> io::Result<bool> {
        sys::poll_fd(self.fd.as_raw_fd(), libc::POLLIN, timeout)
    }

    /// Reads one frame the kernel sent into `buf`; `Ok(None)` when there is
    /// none now. `buf` must hold the largest frame (MTU + 18).
    pub fn read_frame(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        // SAFETY: buf is valid for buf.len() bytes of writing.
        let n = unsafe { libc::read(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        Ok(Some(n as usize))
    }

    /// Hands one frame to the kernel as received on the interface. Waits at
    /// most `timeout` when the fd is momentarily not writable.
    pub fn write_frame(&self, frame: &[u8], timeout: Duration) -> io::Result<()> {
        loop {
            // SAFETY: frame is valid for frame.len() bytes of reading.
            let n = unsafe { libc::write(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len()) };
            if n >= 0 {
                return if n as usize == frame.len() {
                    Ok(())
                } else {
                    Err(io::Error::other(format!("short write: {n} of {} bytes", frame.len())))
                };
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::Interrupted => continue,
                io::ErrorKind::WouldBlock => {
                    if !sys::poll_fd(self.fd.as_raw_fd(), libc::POLLOUT, timeout)? {
                        return Err(io::Error::new(io::ErrorKind::TimedOut, "TAP not writable"));
                    }
                }
                _ => return Err(e),
            }
        }
    }
}

/// Switches IPv6 off on `name`. /proc/sys/net is the view of the calling
/// thread's namespace, so this touches only the TAP just made there.
fn disable_ipv6(name: &str) -> Result<(), HarnessError> {
    if !std::path::Path::new("/proc/sys/net/ipv6").exists() {
        return Ok(()); // a kernel without IPv6 sends none
    }
    let path = format!("/proc/sys/net/ipv6/conf/{name}/disable_ipv6");
    std::fs::write(&path, "1").map_err(|e| HarnessError::io(format!("writing 1 to {path}"), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_errors_name_the_field_and_range() {
        let mut c = TapConfig::new("tap0", Ipv4Addr::new(10, 0, 0, 1));
        assert!(c.validate().is_ok());
        c.mtu = 67;
        assert_eq!(c.validate().unwrap_err().to_string(), "tap_harness: TAP mtu: 67 is outside 68..=65521");
        c.mtu = 1500;
        c.name = "a-name-longer-than-15".into();
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "tap_harness: TAP name: \"a-name-longer-than-15\" must be 1..=15 bytes long"
        );
        c.name = "tap0".into();
        c.prefix_len = 31;
        assert_eq!(c.validate().unwrap_err().to_string(), "tap_harness: TAP prefix_len: 31 is outside 1..=30");
    }
}
