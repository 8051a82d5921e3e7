//! The private network namespace, and the external commands run in it.
//!
//! A network namespace belongs to a task, and on Linux a thread is a task:
//! `unshare(CLONE_NEWNET)` in a fresh thread moves only that thread. The
//! calling thread, the rest of the process and the host keep their own
//! namespace; every socket the thread opens, every thread it starts and
//! every process it spawns (`ip`, `ping`) lives in the new one. When the
//! thread ends and the last of those is gone, the kernel deletes the
//! namespace with its interfaces.

use std::io::{self, Read};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::error::HarnessError;

/// Runs `f` in a new thread inside a new, private network namespace whose
/// `lo` is up, and returns what `f` returns.
///
/// The namespace holds nothing else: no route to the host, no other
/// interface. A panic in `f` is resumed in the caller, so a failed assertion
/// inside reads as usual.
///
/// # Errors
/// One line when the namespace cannot be made, e.g. `tap_harness: cannot
/// create a private network namespace: unshare(CLONE_NEWNET): Operation not
/// permitted (run as root)`.
pub fn in_private_namespace<T: Send>(f: impl FnOnce() -> T + Send) -> Result<T, HarnessError> {
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("tap_harness-netns".into())
            .spawn_scoped(s, move || -> Result<T, HarnessError> {
                enter_private_namespace()?;
                Ok(f())
            })
            .map_err(|e| HarnessError::io("cannot start the namespace thread", e))?;
        match handle.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Moves the calling thread into a new network namespace and brings its
/// loopback up. Only for a thread that is to stay there: the namespace
/// cannot be left again.
pub fn enter_private_namespace() -> Result<(), HarnessError> {
    // SAFETY: unshare takes a flag word and touches no memory of ours.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(HarnessError::Namespace { step: "unshare(CLONE_NEWNET)", source: io::Error::last_os_error() });
    }
    set_link_up("lo").map_err(|source| HarnessError::Namespace { step: "bringing lo up (SIOCSIFFLAGS)", source })
}

/// The identity of the calling thread's network namespace (the target of
/// `/proc/thread-self/ns/net`, e.g. `net:[4026532281]`).
pub fn current_namespace_id() -> Result<String, HarnessError> {
    std::fs::read_link("/proc/thread-self/ns/net")
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| HarnessError::io("reading /proc/thread-self/ns/net", e))
}

/// Sets IFF_UP on an interface of the calling thread's namespace.
fn set_link_up(name: &str) -> io::Result<()> {
    let sock = crate::sys::Socket::new(libc::AF_INET, libc::SOCK_DGRAM, 0)?;
    let mut req = crate::sys::IfReq::new(name)?;
    sock.ioctl(libc::SIOCGIFFLAGS, &mut req)?;
    let flags = req.flags() | libc::IFF_UP as libc::c_short;
    req.set_flags(flags);
    sock.ioctl(libc::SIOCSIFFLAGS, &mut req)
}

/// What a bounded command left: its exit status and its output as text.
#[derive(Debug, Clone)]
pub struct CommandOutput {
    /// The command line, for messages.
    pub command: String,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl CommandOutput {
    /// `Ok(self)` when the command exited 0, else an error naming the
    /// command, its status and its stderr.
    pub fn checked(self) -> Result<Self, HarnessError> {
        if self.status.success() {
            Ok(self)
        } else {
            Err(HarnessError::Command {
                command: self.command,
                detail: format!("{}: {}{}", self.status, self.stderr, self.stdout),
            })
        }
    }
}

/// Runs `program args...` (stdin empty) and waits at most `limit` for it;
/// past that it is killed and the error says so. The exit status is
/// returned, not judged: see [`CommandOutput::checked`].
pub fn run_bounded(program: &str, args: &[&str], limit: Duration) -> Result<CommandOutput, HarnessError> {
    let command = std::iter::once(program).chain(args.iter().copied()).collect::<Vec<_>>().join(" ");
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| HarnessError::Command { command: command.clone(), detail: format!("cannot start: {e}") })?;
    // Readers drain the pipes while we wait, so a chatty command never
    // blocks on a full pipe.
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().expect("stdout is piped")));
    let err = reader(Box::new(child.stderr.take().expect("stderr is piped")));
    let deadline = Instant::now() + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(HarnessError::Command {
                    command,
                    detail: format!("still running after {} s; killed", limit.as_secs_f64()),
                });
            }
            Err(e) => return Err(HarnessError::Command { command, detail: format!("cannot wait for it: {e}") }),
        }
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok(CommandOutput { command, status, stdout, stderr })
}

/// The kernel's count of the statistic `name` (e.g. `TcpRetransSegs`) in
/// the calling thread's namespace, as `nstat -az NAME` reports it.
pub fn kernel_counter(name: &str) -> Result<u64, HarnessError> {
    let out = run_bounded("nstat", &["-az", name], Duration::from_secs(5))?.checked()?;
    out.stdout
        .lines()
        .find_map(|l| l.strip_prefix(name).and_then(|v| v.split_whitespace().next()?.parse().ok()))
        .ok_or_else(|| HarnessError::Command {
            command: format!("nstat -az {name}"),
            detail: format!("no {name} in its output: {}", out.stdout),
        })
}

/// A binary of the workspace's build (such as the PC tools' `tcpdatatest`)
/// that sits beside the running executable, or one folder up (a test's
/// executable is in `target/<profile>/deps`, the binaries in `target/<profile>`).
pub fn workspace_binary(name: &str) -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    exe.ancestors().skip(1).take(2).map(|dir| dir.join(name)).find(|p| p.exists())
}

/// Runs `ip args...` in the calling thread's namespace and requires exit 0.
pub fn ip(args: &[&str]) -> Result<CommandOutput, HarnessError> {
    run_bounded("ip", args, Duration::from_secs(10))?.checked()
}
