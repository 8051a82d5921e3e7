//! The interactive menu, as the reference console behaves: 0 display the
//! TOE parameters, 1 change them and initialise the TOE, 2 half-duplex
//! test, 3 full-duplex test. Input is read a line at a time; during a test
//! Ctrl-C or any key aborts every session.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use etherbone::RegisterBus;

use crate::identity::Identity;
use crate::input::{self, InputError};
use crate::params::{self, Params};
use crate::run::{self, Duplex, RunOptions, SessionSpec};

/// Longest a menu test may run before the console aborts it.
const TEST_LIMIT: Duration = Duration::from_secs(3600);
const INIT_LIMIT: Duration = Duration::from_secs(2);

/// What the ping option of the reference does here.
pub const NO_PING: &str = "There is no ping test: the reference answers ICMP with a CPU inside the FPGA, which is not part of the user logic. \
Ping the FPGA's address through whatever answers ICMP on your platform (on the virtual board: the host's kernel, 127.0.0.1).";

fn menu_text(id: &Identity) -> String {
    format!(
        "\n+++ TOE user-logic console: {} session(s), {} bits at {} MHz (peak {:.0} MB/s per session) +++\n\
         [0] Display TOE parameters\n\
         [1] Reset TOE parameters\n\
         [2] Half-duplex test\n\
         [3] Full-duplex test\n\
         (no ping test: choose 4 to see why)  [q] Quit\n\
         Select: ",
        id.sessions,
        id.data_width,
        f64::from(id.user_clock_khz) / 1000.0,
        id.peak_mb_s()
    )
}

/// Reads one line; `None` at the end of input.
fn line(input: &mut dyn BufRead) -> Option<String> {
    let mut s = String::new();
    match input.read_line(&mut s) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(s.trim().to_string()),
    }
}

fn ask(input: &mut dyn BufRead, out: &mut dyn Write, prompt: &str) -> Option<String> {
    let _ = write!(out, "{prompt}");
    let _ = out.flush();
    line(input)
}

/// Runs the menu until `q` or the end of input.
pub fn run(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), String> {
    loop {
        let Some(choice) = ask(input, out, &menu_text(id)) else {
            return Ok(());
        };
        let r = match choice.as_str() {
            "0" => Params::read(bus, id.sessions).map(|p| {
                let _ = write!(out, "{}", p.display());
            }),
            "1" => reset_params(bus, id, input, out),
            "2" => test(bus, id, Duplex::Half, input, out),
            "3" => test(bus, id, Duplex::Full, input, out),
            "4" => {
                let _ = writeln!(out, "{NO_PING}");
                Ok(())
            }
            "q" | "Q" => return Ok(()),
            other => {
                let _ = writeln!(out, "{}: {other:?} is not a menu option", input::INVALID);
                Ok(())
            }
        };
        r.map_err(|e| e.0)?;
    }
}

fn reset_params(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), crate::OpError> {
    let mut p = Params::read(bus, id.sessions)?;
    let _ = write!(out, "{}", p.display());
    let Some(keep) = ask(input, out, "Press 'x' to keep these parameters, anything else to change them: ") else {
        return Ok(());
    };
    if keep != "x" && keep != "X" {
        let prompts: Vec<(String, String)> = {
            let mut v = vec![
                ("mode".to_string(), "Mode (0 Client, 1 Server, 2 Fixed-MAC)".to_string()),
                ("last_packet_mode".into(), "Last packet mode (0 DUP, 1 PSH, 2 normal)".into()),
                ("window_update_gap".into(), "Window update gap (0x000-0x3FF, x 1 KB)".into()),
                ("fpga_mac".into(), "FPGA MAC address (0x + 12 hex digits)".into()),
                ("fpga_ip".into(), "FPGA IP address".into()),
                ("target_mac".into(), "Target MAC address (0x + 12 hex digits)".into()),
                ("target_ip".into(), "Target IP address".into()),
            ];
            for s in 0..id.sessions {
                v.push((format!("fpga_port{s}"), format!("FPGA port of session {s} (0-65535)")));
                v.push((format!("target_port{s}"), format!("Target port of session {s} (0-65535)")));
            }
            v
        };
        for (key, prompt) in prompts {
            // The target MAC is used in fixed-MAC mode only: asked only then.
            if key == "target_mac" && p.mode != crate::regs::toe::toe_config::Mode::FixedMac.bits() {
                continue;
            }
            let current = current_value(&p, &key);
            let Some(v) = ask(input, out, &format!("{prompt} [{current}]: ")) else {
                return Ok(());
            };
            if let Err(e) = p.set(&key, &v) {
                let _ = writeln!(out, "{e}; {key} stays {current}");
            }
        }
        let _ = write!(out, "{}", p.display());
    }
    let _ = writeln!(out, "Initialising the TOE...");
    if params::apply_and_init(bus, &p, INIT_LIMIT)? {
        let _ = writeln!(out, "IP initialization complete");
    } else {
        let _ = writeln!(
            out,
            "IP initialization did not complete within {} s (toe_status.init_done stayed 0)",
            INIT_LIMIT.as_secs()
        );
    }
    Ok(())
}

fn current_value(p: &Params, key: &str) -> String {
    let v = p.json();
    let key_json = key.trim_end_matches(|c: char| c.is_ascii_digit());
    match (key_json, key.strip_prefix(key_json).and_then(|n| n.parse::<usize>().ok())) {
        ("fpga_port", Some(n)) => p.fpga_ports[n].to_string(),
        ("target_port", Some(n)) => p.target_ports[n].to_string(),
        _ => v[key].as_str().map(str::to_string).unwrap_or_else(|| v[key].to_string()),
    }
}

/// Asks one session's questions; `Ok(None)`: disabled.
fn ask_session(
    duplex: Duplex,
    s: usize,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Option<SessionSpec>, InputError> {
    let mut get = |prompt: &str| ask(input, out, prompt).unwrap_or_default();
    let modes = if duplex == Duplex::Half { "0 disable, 1 send, 2 receive" } else { "0 disable, 1 full duplex" };
    let codes: &[u64] = if duplex == Duplex::Half { &[0, 1, 2] } else { &[0, 1] };
    let mode = input::code("Test mode", &get(&format!("Session {s}: test mode ({modes}): ")), codes)?;
    if mode == 0 {
        return Ok(None);
    }
    let size = input::number(
        "Transfer size",
        &get(&format!("Session {s}: transfer size in bytes (1-0xFFFF_FFFF_FFFF): ")),
        1,
        run::MAX_SIZE,
    )?;
    let packet = if duplex == Duplex::Full || mode == 1 {
        input::number(
            "Packet size",
            &get(&format!("Session {s}: packet size in bytes (1-0xFFFF_FFFF_FFFF): ")),
            1,
            run::MAX_SIZE,
        )?
    } else {
        run::DEFAULT_PACKET
    };
    let verify = input::flag(
        "Data verification",
        &get(&format!("Session {s}: data verification (0 off: dummy data, 1 on: incremental pattern): ")),
    )?;
    let speed = input::number("Max speed", &get(&format!("Session {s}: max speed in % (1-100): ")), 1, 100)? as u8;
    let conn = input::code(
        "Connection mode",
        &get(&format!("Session {s}: mode (0 client: active open, 1 server: passive open): ")),
        &[0, 1],
    )?;
    Ok(Some(SessionSpec::new(duplex, s, &run::Answers { mode, size, packet, verify, speed, conn })))
}

/// While it lives, a thread watches the terminal: any key sets [`run::ABORT`].
struct KeyWatch {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    saved: Option<libc::termios>,
}

impl KeyWatch {
    fn start() -> KeyWatch {
        // SAFETY: isatty/tcgetattr/tcsetattr on fd 0 with a zeroed termios filled by the call.
        let saved = unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::isatty(0) == 1 && libc::tcgetattr(0, &mut t) == 0 {
                let mut raw = t;
                // One key is enough: no line editing, no echo; Ctrl-C still raises SIGINT.
                raw.c_lflag &= !(libc::ICANON | libc::ECHO);
                raw.c_cc[libc::VMIN] = 1;
                raw.c_cc[libc::VTIME] = 0;
                libc::tcsetattr(0, libc::TCSANOW, &raw);
                Some(t)
            } else {
                None
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let thread = saved.map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    let mut fds = libc::pollfd { fd: 0, events: libc::POLLIN, revents: 0 };
                    // SAFETY: one valid pollfd.
                    if unsafe { libc::poll(&mut fds, 1, 100) } > 0 {
                        let mut b = [0u8; 16];
                        // SAFETY: b is writable.
                        unsafe { libc::read(0, b.as_mut_ptr().cast(), b.len()) };
                        run::ABORT.store(true, Ordering::SeqCst);
                    }
                }
            })
        });
        KeyWatch { stop, thread, saved }
    }
}

impl Drop for KeyWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        if let Some(t) = self.saved {
            // SAFETY: restores the settings read in start.
            unsafe { libc::tcsetattr(0, libc::TCSANOW, &t) };
        }
    }
}

fn test(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    duplex: Duplex,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), crate::OpError> {
    let mut specs = Vec::new();
    for s in 0..id.sessions {
        match ask_session(duplex, s, input, out) {
            Ok(Some(spec)) => specs.push(spec),
            Ok(None) => {}
            Err(e) => {
                let _ = writeln!(out, "{e}\nOperation cancelled");
                return Ok(());
            }
        }
    }
    if specs.is_empty() {
        let _ = writeln!(out, "Every session is disabled: nothing to test");
        return Ok(());
    }
    let p = Params::read(bus, id.sessions)?;
    let _ = writeln!(out, "Recommended PC commands:");
    for s in &specs {
        let _ = writeln!(
            out,
            "  session {}: {}",
            s.session,
            s.pc_command(p.fpga_ip, p.target_ip, p.fpga_ports[s.session], p.target_ports[s.session])
        );
    }
    for s in &specs {
        let t = &s.test;
        let _ = writeln!(
            out,
            "Session {}: {}, {} bytes, packet {} bytes, verification {}, max speed {} %, {} ({} -> {})",
            s.session,
            s.mode_name(),
            t.transfer_size,
            t.packet_size,
            if t.verify { "on" } else { "off" },
            s.speed,
            if t.client { "client (active open)" } else { "server (passive open)" },
            p.fpga_ports[s.session],
            p.target_ports[s.session]
        );
    }
    if specs.iter().any(|s| s.test.client) && ask(input, out, "Press Enter to proceed").is_none() {
        return Ok(());
    }
    let _ = writeln!(out, "Press any key or Ctrl-C to abort the test");
    let _ = out.flush();
    let opts = RunOptions { limit: TEST_LIMIT, interval: Duration::from_secs(1), abort: &run::ABORT };
    let report = run::with_sigint(|| {
        let _keys = KeyWatch::start();
        run::run(bus, duplex, &specs, id.user_clock_khz, &opts, &mut |l| {
            let _ = writeln!(out, "{l}");
            let _ = out.flush();
        })
    })?;
    let _ = write!(out, "{}", report.totals_text());
    if let Some(why) = &report.stopped {
        let _ = writeln!(out, "Test stopped: {why}");
    }
    Ok(())
}
