//! LiteX's own tools from the project's `.venv/` (created by `make deps`
//! with the version pinned in `scripts/requirements-litex.txt`), for the
//! tests that prove our Etherbone against the real thing.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Python imports LiteX in well under a second here; generous for a loaded CI.
pub const PYTHON_TIMEOUT: Duration = Duration::from_secs(60);

/// The workspace root.
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The LiteX version `scripts/requirements-litex.txt` pins.
pub fn pinned_litex() -> String {
    let req = workspace().join("scripts/requirements-litex.txt");
    let text = std::fs::read_to_string(&req).unwrap_or_else(|e| panic!("{}: {e}", req.display()));
    text.lines()
        .find_map(|l| l.trim().strip_prefix("litex=="))
        .unwrap_or_else(|| panic!("{}: no litex==VERSION line", req.display()))
        .to_string()
}

/// `.venv/bin/<tool>`, after checking that the pinned LiteX is installed there.
pub fn venv_tool(tool: &str) -> PathBuf {
    let bin = workspace().join(".venv/bin");
    let python = bin.join("python");
    assert!(
        python.exists(),
        "{} is missing: run `make deps` (it creates .venv/ with LiteX from scripts/requirements-litex.txt)",
        python.display()
    );
    let out = run_bounded(
        Command::new(&python).args(["-c", "import importlib.metadata as m; print(m.version('litex'))"]),
        PYTHON_TIMEOUT,
    );
    let have = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let want = pinned_litex();
    assert!(
        out.status.success() && have == want,
        "LiteX {want} is not installed in .venv (found {have:?}; {}): run `make deps`",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    let path = bin.join(tool);
    assert!(path.exists(), "{} is missing: run `make deps`", path.display());
    path
}

/// Runs `cmd` to completion, killing it after `timeout`.
pub fn run_bounded(cmd: &mut Command, timeout: Duration) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let drain = |mut pipe: Box<dyn Read + Send>| {
        thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = pipe.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            let err = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
            panic!("{cmd:?} did not finish within {timeout:?}; stderr:\n{err}");
        }
        thread::sleep(Duration::from_millis(10));
    };
    Output { status, stdout: stdout.join().unwrap(), stderr: stderr.join().unwrap() }
}
