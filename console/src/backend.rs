//! Register-bus backends behind [`etherbone::RegisterBus`]:
//!
//! - Etherbone over TCP ([`etherbone::Client`]): the virtual board, or
//!   LiteX's `litex_server` in front of a real board;
//! - [`PcieBar`]: a PCIe BAR mapped from sysfs (`resource<N>`), 32-bit
//!   volatile loads and stores;
//! - [`Xdma`]: the XDMA driver's user character device, `pread`/`pwrite` of
//!   4 bytes at the register's offset.
//!
//! The last two are tested against a regular file standing in for the BAR;
//! they have not been run against hardware.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use etherbone::{BusError, RegisterBus};

use crate::regs;

/// Bytes the register map spans from address 0: the highest register's
/// address plus 4. A BAR smaller than this cannot hold the map.
pub fn map_extent() -> u64 {
    regs::ALL.iter().map(|r| u64::from(r.addr) + 4).max().unwrap_or(0)
}

/// Where the registers are, as the command line names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// `--connect HOST:PORT`; `error_checks` off for LiteX's own
    /// `litex_server`, which does not serve the error register (see
    /// [`etherbone::Client`]): failed accesses then go unnoticed.
    Etherbone { addr: String, error_checks: bool },
    /// `--pcie BDF[/BAR]`: the sysfs resource file.
    Pcie(PathBuf),
    /// `--xdma DEV`
    Xdma(PathBuf),
}

/// `0000:3b:00.0/2` -> `/sys/bus/pci/devices/0000:3b:00.0/resource2`; a
/// BDF without domain gets `0000:`; the BAR defaults to 0.
pub fn pcie_resource(spec: &str) -> Result<PathBuf, String> {
    let (bdf, bar) = match spec.split_once('/') {
        Some((b, n)) => (b, n),
        None => (spec, "0"),
    };
    let bar: u8 = bar
        .parse()
        .ok()
        .filter(|n| *n <= 5)
        .ok_or_else(|| format!("--pcie {spec}: BAR {bar:?} is not a BAR number 0..=5"))?;
    let full = if bdf.matches(':').count() == 1 { format!("0000:{bdf}") } else { bdf.to_string() };
    let hex = |s: &str, n: usize| s.len() == n && s.chars().all(|c| c.is_ascii_hexdigit());
    let ok = match full.split(':').collect::<Vec<_>>().as_slice() {
        [dom, bus, devfn] => match devfn.split_once('.') {
            Some((dev, f)) => {
                hex(dom, 4) && hex(bus, 2) && hex(dev, 2) && f.len() == 1 && matches!(f.as_bytes()[0], b'0'..=b'7')
            }
            None => false,
        },
        _ => false,
    };
    if !ok {
        return Err(format!(
            "--pcie {spec}: {bdf:?} is not a PCI address (DDDD:BB:DD.F or BB:DD.F, as `lspci -D` prints it)"
        ));
    }
    Ok(PathBuf::from(format!("/sys/bus/pci/devices/{}/resource{bar}", full.to_ascii_lowercase())))
}

/// Opens the backend; for Etherbone every wait is bounded by `timeout`.
pub fn open(target: &Target, timeout: Duration) -> Result<Box<dyn RegisterBus + Send>, String> {
    match target {
        Target::Etherbone { addr, error_checks } => etherbone::Client::connect(addr.as_str(), timeout)
            .map(|mut c| {
                c.set_error_checks(*error_checks);
                Box::new(c) as Box<dyn RegisterBus + Send>
            })
            .map_err(|e| format!("Etherbone {addr}: {e}")),
        Target::Pcie(path) => PcieBar::open(path).map(|b| Box::new(b) as Box<dyn RegisterBus + Send>),
        Target::Xdma(path) => Xdma::open(path).map(|b| Box::new(b) as Box<dyn RegisterBus + Send>),
    }
}

fn open_fd(path: &Path, what: &str) -> Result<(libc::c_int, u64, bool), String> {
    let c = CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("{what} {}: the path contains a NUL byte", path.display()))?;
    // SAFETY: a valid NUL-terminated path; the descriptor is owned by the caller.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDWR | libc::O_SYNC | libc::O_CLOEXEC) };
    if fd < 0 {
        let e = io::Error::last_os_error();
        let hint = match e.kind() {
            io::ErrorKind::NotFound => "no such file: check the address (`lspci -D`) and that the driver is loaded",
            io::ErrorKind::PermissionDenied => {
                "not readable and writable by this user: run as root or give the user access (udev rule or chmod)"
            }
            _ => "cannot open it",
        };
        return Err(format!("{what} {}: {hint} ({e})", path.display()));
    }
    // SAFETY: fd is open; st is plain data filled by fstat.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        let e = io::Error::last_os_error();
        unsafe { libc::close(fd) };
        return Err(format!("{what} {}: fstat: {e}", path.display()));
    }
    let regular = st.st_mode & libc::S_IFMT == libc::S_IFREG;
    Ok((fd, st.st_size as u64, regular))
}

fn check_offset(addr: u32, len: u64) -> Result<usize, BusError> {
    if addr % 4 != 0 || u64::from(addr) + 4 > len {
        return Err(BusError::Protocol(format!(
            "register address {addr:#x} is not a 32-bit word inside the {len}-byte BAR"
        )));
    }
    Ok(addr as usize)
}

/// A PCIe BAR mapped from its sysfs `resource<N>` file (or any file standing in for it).
pub struct PcieBar {
    ptr: *mut u8,
    len: usize,
    fd: libc::c_int,
    path: PathBuf,
}

// SAFETY: the mapping is owned by this value alone; accesses go through &mut self.
unsafe impl Send for PcieBar {}

impl PcieBar {
    /// Maps the whole file; refuses one that is missing, not readable and
    /// writable, or smaller than the register map.
    pub fn open(path: &Path) -> Result<PcieBar, String> {
        let (fd, size, _) = open_fd(path, "PCIe BAR")?;
        let need = map_extent();
        if size < need {
            unsafe { libc::close(fd) };
            return Err(format!(
                "PCIe BAR {}: {size} bytes, too small for the register map ({need} bytes): wrong BAR or wrong device?",
                path.display()
            ));
        }
        // SAFETY: fd is open read-write, size is the file's size.
        let ptr = unsafe {
            libc::mmap(std::ptr::null_mut(), size as usize, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, fd, 0)
        };
        if ptr == libc::MAP_FAILED {
            let e = io::Error::last_os_error();
            unsafe { libc::close(fd) };
            return Err(format!("PCIe BAR {}: mmap: {e}", path.display()));
        }
        Ok(PcieBar { ptr: ptr.cast(), len: size as usize, fd, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl RegisterBus for PcieBar {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
        let off = check_offset(addr, self.len as u64)?;
        // SAFETY: off + 4 <= len, 4-byte aligned inside a page-aligned mapping.
        Ok(u32::from_le(unsafe { std::ptr::read_volatile(self.ptr.add(off).cast::<u32>()) }))
    }

    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        let off = check_offset(addr, self.len as u64)?;
        // SAFETY: as in read32.
        unsafe { std::ptr::write_volatile(self.ptr.add(off).cast::<u32>(), value.to_le()) };
        Ok(())
    }
}

impl Drop for PcieBar {
    fn drop(&mut self) {
        // SAFETY: ptr/len are the mapping made in open; fd is ours.
        unsafe {
            libc::munmap(self.ptr.cast(), self.len);
            libc::close(self.fd);
        }
    }
}

/// The XDMA driver's user-BAR character device (`/dev/xdma0_user`): each
/// access is a 4-byte `pread`/`pwrite` at the register's address.
pub struct Xdma {
    fd: libc::c_int,
    path: PathBuf,
}

impl Xdma {
    /// Opens the device; a regular file (a stand-in) smaller than the map is
    /// refused. A character device has no size to check: an access beyond
    /// the BAR fails when it is made.
    pub fn open(path: &Path) -> Result<Xdma, String> {
        let (fd, size, regular) = open_fd(path, "XDMA device")?;
        let need = map_extent();
        if regular && size < need {
            unsafe { libc::close(fd) };
            return Err(format!(
                "XDMA device {}: {size} bytes, too small for the register map ({need} bytes)",
                path.display()
            ));
        }
        Ok(Xdma { fd, path: path.to_path_buf() })
    }

    fn io_error(&self, what: &str, addr: u32, n: isize) -> BusError {
        let e = io::Error::last_os_error();
        let message = if n < 0 { e.to_string() } else { format!("{n} of 4 bytes") };
        BusError::Io {
            what: format!("{what} {} at {addr:#x}", self.path.display()),
            kind: if n < 0 { e.kind() } else { io::ErrorKind::UnexpectedEof },
            message,
        }
    }
}

impl RegisterBus for Xdma {
    fn read32(&mut self, addr: u32) -> Result<u32, BusError> {
        let mut b = [0u8; 4];
        // SAFETY: b is 4 writable bytes.
        let n = unsafe { libc::pread(self.fd, b.as_mut_ptr().cast(), 4, libc::off_t::from(addr)) };
        if n != 4 {
            return Err(self.io_error("pread", addr, n));
        }
        Ok(u32::from_le_bytes(b))
    }

    fn write32(&mut self, addr: u32, value: u32) -> Result<(), BusError> {
        let b = value.to_le_bytes();
        // SAFETY: b is 4 readable bytes.
        let n = unsafe { libc::pwrite(self.fd, b.as_ptr().cast(), 4, libc::off_t::from(addr)) };
        if n != 4 {
            return Err(self.io_error("pwrite", addr, n));
        }
        Ok(())
    }
}

impl Drop for Xdma {
    fn drop(&mut self) {
        // SAFETY: fd is ours.
        unsafe { libc::close(self.fd) };
    }
}
