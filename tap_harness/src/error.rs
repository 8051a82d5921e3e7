//! The harness's one error type: every variant prints as one line that
//! names what was tried and why it failed.

use std::fmt;
use std::io;

/// What went wrong while making the namespace, the TAP, the capture or the
/// wire. `Display` is one line beginning `tap_harness: `.
#[derive(Debug)]
pub enum HarnessError {
    /// The private network namespace could not be made (`unshare`, or
    /// bringing `lo` up in it).
    Namespace { step: &'static str, source: io::Error },
    /// `/dev/net/tun` could not be opened, or `TUNSETIFF` failed.
    Tun { step: String, source: io::Error },
    /// An external command (`ip ...`) could not run or exited non-zero.
    Command { command: String, detail: String },
    /// A name or value given to the harness is not usable.
    Invalid { what: String, detail: String },
    /// Reading or writing the TAP, a socket or a file failed.
    Io { what: String, source: io::Error },
    /// Something awaited did not happen in time.
    Timeout { what: String, after: std::time::Duration },
    /// The pump thread stopped on its own: the reason.
    PumpFailed(String),
}

impl HarnessError {
    pub(crate) fn io(what: impl Into<String>, source: io::Error) -> Self {
        HarnessError::Io { what: what.into(), source }
    }

    pub(crate) fn invalid(what: impl Into<String>, detail: impl Into<String>) -> Self {
        HarnessError::Invalid { what: what.into(), detail: detail.into() }
    }
}

/// A hint for the errors a user fixes by running as root.
fn root_hint(e: &io::Error) -> &'static str {
    match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => " (run as root)",
        _ => "",
    }
}

impl fmt::Display for HarnessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HarnessError::Namespace { step, source } => write!(
                f,
                "tap_harness: cannot create a private network namespace: {step}: {}{}",
                os_text(source),
                root_hint(source)
            ),
            HarnessError::Tun { step, source } => {
                let hint = match source.raw_os_error() {
                    Some(libc::ENOENT) | Some(libc::ENODEV) => " (is the tun module loaded? modprobe tun)",
                    _ => root_hint(source),
                };
                write!(f, "tap_harness: {step}: {}{hint}", os_text(source))
            }
            HarnessError::Command { command, detail } => {
                write!(f, "tap_harness: `{command}` failed: {}", one_line(detail))
            }
            HarnessError::Invalid { what, detail } => write!(f, "tap_harness: {what}: {detail}"),
            HarnessError::Io { what, source } => write!(f, "tap_harness: {what}: {}", os_text(source)),
            HarnessError::Timeout { what, after } => {
                write!(f, "tap_harness: timed out after {:.1} s waiting for {what}", after.as_secs_f64())
            }
            HarnessError::PumpFailed(why) => write!(f, "tap_harness: the pump stopped: {}", one_line(why)),
        }
    }
}

impl std::error::Error for HarnessError {}

/// The OS's text for an error without Rust's " (os error N)" suffix, so the
/// line reads like the C tools' messages.
fn os_text(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Several lines of a tool's stderr folded into one.
pub(crate) fn one_line(s: &str) -> String {
    let parts: Vec<&str> = s.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if parts.is_empty() {
        "(no message)".to_string()
    } else {
        parts.join(" / ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespace_error_is_the_documented_line() {
        let e = HarnessError::Namespace {
            step: "unshare(CLONE_NEWNET)",
            source: io::Error::from_raw_os_error(libc::EPERM),
        };
        assert_eq!(
            e.to_string(),
            "tap_harness: cannot create a private network namespace: unshare(CLONE_NEWNET): \
             Operation not permitted (run as root)"
        );
    }

    #[test]
    fn command_errors_fold_stderr_into_one_line() {
        let e = HarnessError::Command {
            command: "ip link set dev x up".into(),
            detail: "exit status 1: Cannot find device \"x\"\n\n".into(),
        };
        assert_eq!(
            e.to_string(),
            "tap_harness: `ip link set dev x up` failed: exit status 1: Cannot find device \"x\""
        );
        assert!(!e.to_string().contains('\n'));
    }
}
