//! `pc-check`: reads the PC-side network settings the reference demo's
//! section 2 recommends (jumbo frames, flow control off, interrupt
//! moderation off, the high-performance power plan) from the Linux kernel,
//! and says for each whether it matches. It never changes a setting;
//! `docs/pc_setup.md` gives the commands that do.
//!
//! Everything comes from the kernel directly, nothing from another tool's
//! text: the MTU, the CPU frequency governors and the interface's IRQs
//! from sysfs and procfs, flow control and interrupt moderation from the
//! ethtool ioctl (`SIOCETHTOOL` with `ETHTOOL_GPAUSEPARAM` and
//! `ETHTOOL_GCOALESCE`, the layouts of `<linux/ethtool.h>`).

use std::fmt;
use std::path::Path;

/// Whether a setting is what the reference recommends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Matches,
    Differs,
    /// The kernel or the driver does not report it.
    Unknown,
    /// Shown for information: the reference has no recommendation to compare with.
    Info,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Verdict::Matches => "matches",
            Verdict::Differs => "differs",
            Verdict::Unknown => "unknown",
            Verdict::Info => "-",
        })
    }
}

/// One setting as read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    pub name: &'static str,
    /// What the kernel reports, or why it could not be read.
    pub now: String,
    pub recommended: &'static str,
    pub verdict: Verdict,
}

/// An interface that cannot be checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NicError {
    /// Not a possible interface name (empty, over 15 bytes, `/`, `.` or `..`).
    BadName(String),
    /// No such interface; the ones present.
    Missing { name: String, present: Vec<String> },
}

impl fmt::Display for NicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NicError::BadName(n) => {
                write!(f, "{n:?} is not an interface name (1-15 bytes, no '/' or whitespace)")
            }
            NicError::Missing { name, present } => {
                write!(f, "no interface {name:?} (present: {})", present.join(", "))
            }
        }
    }
}

impl std::error::Error for NicError {}

/// The MTU the reference's 9014-byte jumbo frame carries (Windows counts the
/// 14-byte Ethernet header, Linux does not).
pub const JUMBO_MTU: u32 = 9000;

/// The interfaces present, sorted.
pub fn interfaces() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("/sys/class/net")
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned())).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// Reads every setting of interface `iface`.
pub fn check(iface: &str) -> Result<Vec<Setting>, NicError> {
    let valid = !iface.is_empty()
        && iface.len() <= 15
        && iface != "."
        && iface != ".."
        && !iface.contains(|c: char| c == '/' || c.is_whitespace() || c == '\0');
    if !valid {
        return Err(NicError::BadName(iface.to_string()));
    }
    let dir = Path::new("/sys/class/net").join(iface);
    if !dir.exists() {
        return Err(NicError::Missing { name: iface.to_string(), present: interfaces() });
    }
    Ok(vec![mtu(&dir), pause(iface), coalesce(iface), governors(), irqs(&dir)])
}

fn mtu(dir: &Path) -> Setting {
    let read = std::fs::read_to_string(dir.join("mtu")).map_err(|e| e.to_string());
    mtu_setting(read.as_deref().map(str::trim).map_err(String::as_str))
}

/// The MTU setting from the text of `/sys/class/net/<iface>/mtu`.
pub fn mtu_setting(read: Result<&str, &str>) -> Setting {
    let recommended = "9000 or more, for jumbo frames";
    match read.map(|t| t.parse::<u32>()) {
        Ok(Ok(m)) => Setting {
            name: "MTU",
            now: m.to_string(),
            recommended,
            verdict: if m >= JUMBO_MTU { Verdict::Matches } else { Verdict::Differs },
        },
        Ok(Err(_)) => Setting { name: "MTU", now: "unreadable".into(), recommended, verdict: Verdict::Unknown },
        Err(e) => Setting { name: "MTU", now: format!("not readable ({e})"), recommended, verdict: Verdict::Unknown },
    }
}

/// `SIOCETHTOOL` and the commands used (`<linux/sockios.h>`, `<linux/ethtool.h>`).
const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_GCOALESCE: u32 = 0x0e;
const ETHTOOL_GPAUSEPARAM: u32 = 0x12;

/// Runs ethtool command `words[0]` on `iface`, the kernel filling `words`
/// (a `struct ethtool_*` of u32 fields). Err: the errno's text.
fn ethtool(iface: &str, words: &mut [u32]) -> Result<(), String> {
    // SAFETY: ifreq is plain data; all zeroes is a valid value.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    req.ifr_ifru.ifru_data = words.as_mut_ptr().cast();
    // `check` allows names of at most 15 bytes: the last stays NUL.
    for (d, s) in req.ifr_name.iter_mut().zip(iface.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: a datagram socket only to carry the ioctl; closed below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    // SAFETY: req is a valid ifreq whose data points at `words`, which is at
    // least as large as the structure the command fills.
    let r = unsafe { libc::ioctl(fd, SIOCETHTOOL as _, &mut req as *mut libc::ifreq) };
    let err = std::io::Error::last_os_error();
    // SAFETY: fd came from socket() above.
    unsafe { libc::close(fd) };
    if r < 0 {
        Err(match err.raw_os_error() {
            Some(libc::EOPNOTSUPP) => "not supported by the driver".to_string(),
            _ => err.to_string(),
        })
    } else {
        Ok(())
    }
}

fn pause(iface: &str) -> Setting {
    let mut p = [0u32; 4];
    p[0] = ETHTOOL_GPAUSEPARAM;
    pause_setting(ethtool(iface, &mut p).map(|()| p))
}

/// Flow control from `struct ethtool_pauseparam` (cmd, autoneg, rx_pause, tx_pause).
pub fn pause_setting(read: Result<[u32; 4], String>) -> Setting {
    let recommended = "rx off, tx off";
    let onoff = |v: u32| if v != 0 { "on" } else { "off" };
    match read {
        Ok(p) => Setting {
            name: "flow control (pause frames)",
            now: format!("rx {}, tx {}, autoneg {}", onoff(p[2]), onoff(p[3]), onoff(p[1])),
            recommended,
            verdict: if p[2] == 0 && p[3] == 0 { Verdict::Matches } else { Verdict::Differs },
        },
        Err(e) => Setting { name: "flow control (pause frames)", now: e, recommended, verdict: Verdict::Unknown },
    }
}

/// Fields of `struct ethtool_coalesce` (23 u32s) this check reads.
const COALESCE_WORDS: usize = 23;
const RX_USECS: usize = 1;
const RX_FRAMES: usize = 2;
const ADAPTIVE_RX: usize = 10;

fn coalesce(iface: &str) -> Setting {
    let mut c = [0u32; COALESCE_WORDS];
    c[0] = ETHTOOL_GCOALESCE;
    coalesce_setting(ethtool(iface, &mut c).map(|()| c))
}

/// Interrupt moderation from `struct ethtool_coalesce`: off is adaptive RX
/// coalescing off and an RX delay of 0 us (at most one frame per interrupt
/// also counts as off).
pub fn coalesce_setting(read: Result<[u32; COALESCE_WORDS], String>) -> Setting {
    let recommended = "adaptive-rx off, rx-usecs 0";
    match read {
        Ok(c) => {
            let off = c[ADAPTIVE_RX] == 0 && (c[RX_USECS] == 0 || c[RX_FRAMES] == 1);
            Setting {
                name: "interrupt moderation",
                now: format!(
                    "adaptive-rx {}, rx-usecs {}, rx-frames {}",
                    if c[ADAPTIVE_RX] != 0 { "on" } else { "off" },
                    c[RX_USECS],
                    c[RX_FRAMES]
                ),
                recommended,
                verdict: if off { Verdict::Matches } else { Verdict::Differs },
            }
        }
        Err(e) => Setting { name: "interrupt moderation", now: e, recommended, verdict: Verdict::Unknown },
    }
}

/// The CPU frequency governors (`/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor`).
fn governors() -> Setting {
    let mut found: Vec<String> = std::fs::read_dir("/sys/devices/system/cpu")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| {
                    let n = e.file_name();
                    let n = n.to_string_lossy();
                    n.strip_prefix("cpu").is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                })
                .filter_map(|e| std::fs::read_to_string(e.path().join("cpufreq/scaling_governor")).ok())
                .map(|g| g.trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    governor_setting(&found)
}

/// The governor setting from every CPU's governor (none: no cpufreq, as in
/// most virtual machines).
pub fn governor_setting(governors: &[String]) -> Setting {
    let recommended = "performance, the reference's High Performance plan";
    if governors.is_empty() {
        return Setting {
            name: "CPU frequency governor",
            now: "not reported (no cpufreq: a virtual machine, or a fixed clock)".into(),
            recommended,
            verdict: Verdict::Unknown,
        };
    }
    let mut kinds = governors.to_vec();
    kinds.dedup();
    Setting {
        name: "CPU frequency governor",
        now: format!("{} on {} CPU(s)", kinds.join(" / "), governors.len()),
        recommended,
        verdict: if kinds == ["performance"] { Verdict::Matches } else { Verdict::Differs },
    }
}

/// The interface's interrupts (`device/msi_irqs`) and the CPUs each may
/// run on (`/proc/irq/<n>/smp_affinity_list`).
fn irqs(dir: &Path) -> Setting {
    let recommended = "one core per queue, not the cores the test runs on";
    let mut irqs: Vec<u32> = std::fs::read_dir(dir.join("device/msi_irqs"))
        .map(|d| d.filter_map(|e| e.ok()?.file_name().to_string_lossy().parse().ok()).collect())
        .unwrap_or_default();
    irqs.sort_unstable();
    if irqs.is_empty() {
        return Setting {
            name: "IRQ affinity",
            now: "no MSI interrupts of its own (a virtual or software interface)".into(),
            recommended,
            verdict: Verdict::Info,
        };
    }
    let shown: Vec<String> = irqs
        .iter()
        .take(8)
        .map(|n| {
            let cpus = std::fs::read_to_string(format!("/proc/irq/{n}/smp_affinity_list"))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|_| "?".into());
            format!("{n}->{cpus}")
        })
        .collect();
    let more = if irqs.len() > 8 { format!(" (+{} more)", irqs.len() - 8) } else { String::new() };
    Setting {
        name: "IRQ affinity",
        now: format!("{} IRQ(s): {}{more}", irqs.len(), shown.join(" ")),
        recommended,
        verdict: Verdict::Info,
    }
}

/// The report for `iface`: a heading, one line per setting. The second
/// value is the exit status: 0 when every setting that could be read
/// matches, 1 when one differs.
pub fn report(iface: &str, settings: &[Setting]) -> (String, i32) {
    let mut s = format!(
        "pc-check: {iface}: the PC settings of the reference's section 2 (read only: nothing is changed; docs/pc_setup.md sets them)\n"
    );
    for st in settings {
        s.push_str(&format!("  {:<8} {:<28} {}; recommended: {}\n", st.verdict, st.name, st.now, st.recommended));
    }
    let differs = settings.iter().any(|st| st.verdict == Verdict::Differs);
    (s, i32::from(differs))
}

/// `pc-check IFACE...` once its arguments are known: each interface's
/// report (read by `check`) on `out`, each error on `err`; returns the exit
/// status, the worst of the reports' (0 or 1) and 2 for an interface that
/// cannot be checked. A report that cannot be written (a closed stdout,
/// `pc-check eth0 | head -1`) is dropped and changes nothing else: the
/// other interfaces are still checked and the status is the run's, as the
/// other PC tools treat a closed stdout.
pub fn run(
    ifaces: &[String],
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
    check: &dyn Fn(&str) -> Result<Vec<Setting>, NicError>,
) -> i32 {
    let mut status = 0;
    for iface in ifaces {
        match check(iface) {
            Ok(settings) => {
                let (text, s) = report(iface, &settings);
                let _ = out.write_all(text.as_bytes()).and_then(|_| out.flush());
                status = status.max(s);
            }
            Err(e) => {
                let _ = writeln!(err, "pc-check: error: {e}");
                status = 2;
            }
        }
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stdout whose reader has gone.
    struct Closed;

    impl std::io::Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    /// Issue 51, item 12: a closed stdout does not turn a failing run into
    /// a success; the interfaces after the unwritten report are still checked.
    #[test]
    fn a_closed_stdout_keeps_the_runs_exit_status() {
        let check = |iface: &str| -> Result<Vec<Setting>, NicError> {
            match iface {
                "jumbo0" => Ok(vec![mtu_setting(Ok("9000"))]),
                "small0" => Ok(vec![mtu_setting(Ok("1500"))]),
                _ => Err(NicError::Missing { name: iface.to_string(), present: vec![] }),
            }
        };
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut err = Vec::new();
        for (ifaces, status) in [
            (&["jumbo0"][..], 0),
            (&["small0"][..], 1),
            (&["jumbo0", "small0"][..], 1),
            (&["small0", "jumbo0"][..], 1),
            (&["jumbo0", "gone0"][..], 2),
        ] {
            assert_eq!(run(&names(ifaces), &mut Closed, &mut err, &check), status, "{ifaces:?}");
            let mut shown = Vec::new();
            assert_eq!(run(&names(ifaces), &mut shown, &mut err, &check), status, "{ifaces:?}, stdout open");
        }
        assert_eq!(String::from_utf8(err).unwrap(), "pc-check: error: no interface \"gone0\" (present: )\n".repeat(2));
    }

    #[test]
    fn mtu_is_jumbo_from_9000() {
        assert_eq!(mtu_setting(Ok("9000")).verdict, Verdict::Matches);
        assert_eq!(mtu_setting(Ok("65536")).verdict, Verdict::Matches);
        assert_eq!(mtu_setting(Ok("1500")).verdict, Verdict::Differs);
        assert_eq!(mtu_setting(Ok("x")).verdict, Verdict::Unknown);
        assert_eq!(mtu_setting(Err("gone")).verdict, Verdict::Unknown);
    }

    #[test]
    fn flow_control_matches_only_with_both_directions_off() {
        let v = |rx, tx| pause_setting(Ok([ETHTOOL_GPAUSEPARAM, 1, rx, tx])).verdict;
        assert_eq!(v(0, 0), Verdict::Matches);
        assert_eq!(v(1, 0), Verdict::Differs);
        assert_eq!(v(0, 1), Verdict::Differs);
        let s = pause_setting(Ok([ETHTOOL_GPAUSEPARAM, 0, 1, 0]));
        assert_eq!(s.now, "rx on, tx off, autoneg off");
        assert_eq!(pause_setting(Err("not supported by the driver".into())).verdict, Verdict::Unknown);
    }

    #[test]
    fn interrupt_moderation_is_off_without_adaptive_rx_and_delay() {
        let c = |adaptive, usecs, frames| {
            let mut w = [0u32; COALESCE_WORDS];
            (w[ADAPTIVE_RX], w[RX_USECS], w[RX_FRAMES]) = (adaptive, usecs, frames);
            coalesce_setting(Ok(w)).verdict
        };
        assert_eq!(c(0, 0, 0), Verdict::Matches);
        assert_eq!(c(0, 8, 1), Verdict::Matches);
        assert_eq!(c(1, 0, 0), Verdict::Differs);
        assert_eq!(c(0, 50, 64), Verdict::Differs);
    }

    #[test]
    fn governor_matches_only_when_every_cpu_runs_performance() {
        let g = |v: &[&str]| governor_setting(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>()).verdict;
        assert_eq!(g(&["performance", "performance"]), Verdict::Matches);
        assert_eq!(g(&["performance", "powersave"]), Verdict::Differs);
        assert_eq!(g(&[]), Verdict::Unknown);
    }

    #[test]
    fn names_that_cannot_be_interfaces_are_refused() {
        for bad in ["", "a/b", "..", ".", "sixteen_chars_xx", "a b"] {
            assert_eq!(check(bad), Err(NicError::BadName(bad.to_string())), "{bad:?}");
        }
    }
}
