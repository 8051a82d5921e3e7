//! The interactive menu, as the reference console behaves: 0 display the
//! TOE parameters, 1 change them and initialise the TOE, 2 half-duplex
//! test, 3 full-duplex test; and 5, the latency test, which the reference
//! does not have. Input is read a line at a time; during a test
//! Ctrl-C or any key aborts every session.

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use etherbone::RegisterBus;

use crate::identity::Identity;
use crate::input::{self, InputError};
use crate::latency_test::{self, LatencySpec};
use crate::params::{self, Params};
use crate::run::{self, Duplex, RunOptions, SessionSpec, Stop};

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
         [5] Latency test (round trips measured in hardware)\n\
         (no ping test: choose 4 to see why)  [q] Quit\n\
         Select: ",
        id.sessions,
        id.data_width,
        f64::from(id.user_clock_khz) / 1000.0,
        id.peak_mb_s()
    )
}

/// What one read of the input gives.
enum Line {
    Text(String),
    /// A line that is not UTF-8 text, as the person would see it (each
    /// unreadable sequence shown as U+FFFD): an invalid input.
    NotText(String),
    /// The end of the input, or the output closed (nobody reads the prompts).
    End,
    /// Reading the input failed.
    Failed(std::io::Error),
}

impl Line {
    /// The text; an unreadable line is an invalid input for `what`; `None`
    /// at the end of the input.
    fn text(self, what: &str) -> Option<Result<String, InputError>> {
        match self {
            Line::Text(t) => Some(Ok(t)),
            Line::NotText(t) => Some(Err(not_text(what, &t))),
            Line::End | Line::Failed(_) => None,
        }
    }
}

/// An unreadable line said as the reference says any invalid input.
fn not_text(what: &str, seen: &str) -> InputError {
    InputError::Invalid { what: what.into(), input: seen.into(), form: "a line of text (this one is not UTF-8)".into() }
}

/// Reads one line, bytes first: bytes that are not UTF-8 are an invalid
/// input, not the end of the menu.
fn line(input: &mut dyn BufRead) -> Line {
    let mut b = Vec::new();
    match input.read_until(b'\n', &mut b) {
        Ok(0) => Line::End,
        Ok(_) => match String::from_utf8(b) {
            Ok(s) => Line::Text(s.trim().to_string()),
            Err(e) => Line::NotText(String::from_utf8_lossy(e.as_bytes()).trim().to_string()),
        },
        Err(e) => Line::Failed(e),
    }
}

/// Writes `prompt` and reads the answer; when the prompt cannot be written
/// (the output closed) the menu ends: nobody reads it.
fn ask_line(input: &mut dyn BufRead, out: &mut dyn Write, prompt: &str) -> Line {
    if write!(out, "{prompt}").and_then(|_| out.flush()).is_err() {
        return Line::End;
    }
    line(input)
}

/// [`ask_line`] for the questions: the text, an invalid input for `what`,
/// or `None` at the end.
fn ask(input: &mut dyn BufRead, out: &mut dyn Write, prompt: &str, what: &str) -> Option<Result<String, InputError>> {
    ask_line(input, out, prompt).text(what)
}

/// Runs the menu until `q` or the end of input. `bus_args` are the console's
/// bus options as typed, for the command a refusal recommends.
pub fn run(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    bus_args: &str,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), String> {
    loop {
        let choice = match ask_line(input, out, &menu_text(id)) {
            Line::Text(c) => c,
            Line::NotText(seen) => {
                let _ = writeln!(out, "{}: {seen:?} is not a menu option (the line is not UTF-8 text)", input::INVALID);
                continue;
            }
            Line::End => return Ok(()),
            Line::Failed(e) => return Err(format!("reading the menu's input: {e}")),
        };
        let r = match choice.as_str() {
            "0" => Params::read(bus, id.sessions).map(|p| {
                let _ = write!(out, "{}", p.display());
            }),
            "1" => reset_params(bus, id, input, out),
            "2" => test(bus, id, bus_args, Duplex::Half, input, out),
            "3" => test(bus, id, bus_args, Duplex::Full, input, out),
            "4" => {
                let _ = writeln!(out, "{NO_PING}");
                Ok(())
            }
            "5" => latency(bus, id, bus_args, input, out),
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
    let keep = match ask(input, out, "Press 'x' to keep these parameters, anything else to change them: ", "Answer") {
        None => return Ok(()),
        Some(Ok(k)) => k,
        Some(Err(e)) => {
            // Unreadable: not a choice to change anything.
            let _ = writeln!(out, "{e}\nOperation cancelled");
            return Ok(());
        }
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
                v.push((format!("fpga_port{s}"), format!("FPGA port of session {s} (1-65535)")));
                v.push((format!("target_port{s}"), format!("Target port of session {s} (1-65535)")));
            }
            v
        };
        for (key, prompt) in prompts {
            // The target MAC is used in fixed-MAC mode only: asked only then.
            if key == "target_mac" && p.mode != crate::regs::toe::toe_config::Mode::FixedMac.bits() {
                continue;
            }
            let current = current_value(&p, &key);
            // The field's name as `Params::set` says it: the prompt before its hint.
            let what = prompt.split(" (").next().unwrap_or(&prompt);
            let Some(v) = ask(input, out, &format!("{prompt} [{current}]: "), what) else {
                return Ok(());
            };
            if let Err(e) = v.and_then(|v| p.set(&key, &v)) {
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
    // The end of the input answers "" (an invalid input: cancelled).
    let mut get = |what: &str, prompt: &str| ask(input, out, prompt, what).unwrap_or(Ok(String::new()));
    let modes = if duplex == Duplex::Half { "0 disable, 1 send, 2 receive" } else { "0 disable, 1 full duplex" };
    let codes: &[u64] = if duplex == Duplex::Half { &[0, 1, 2] } else { &[0, 1] };
    let mode = input::code("Test mode", &get("Test mode", &format!("Session {s}: test mode ({modes}): "))?, codes)?;
    if mode == 0 {
        return Ok(None);
    }
    let size = input::number(
        "Transfer size",
        &get("Transfer size", &format!("Session {s}: transfer size in bytes (1-0xFFFF_FFFF_FFFF): "))?,
        1,
        run::MAX_SIZE,
    )?;
    let packet = if duplex == Duplex::Full || mode == 1 {
        input::number(
            "Packet size",
            &get("Packet size", &format!("Session {s}: packet size in bytes (1-0xFFFF_FFFF_FFFF): "))?,
            1,
            run::MAX_SIZE,
        )?
    } else {
        run::DEFAULT_PACKET
    };
    let verify = input::flag(
        "Data verification",
        &get(
            "Data verification",
            &format!("Session {s}: data verification (0 off: dummy data, 1 on: incremental pattern): "),
        )?,
    )?;
    let speed =
        input::number("Max speed", &get("Max speed", &format!("Session {s}: max speed in % (1-100): "))?, 1, 100)?
            as u8;
    let conn = input::code(
        "Connection mode",
        &get("Connection mode", &format!("Session {s}: mode (0 client: active open, 1 server: passive open): "))?,
        &[0, 1],
    )?;
    Ok(Some(SessionSpec::new(duplex, s, &run::Answers { mode, size, packet, verify, speed, conn })))
}

/// While it lives, a thread watches the terminal: any key requests
/// [`run::ABORT`] ([`Stop::User`]).
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
                        run::ABORT.request(Stop::User);
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

/// Asks every session's questions with `ask`; `None` when an answer
/// cancelled the operation or every session is disabled (said on `out`).
fn ask_sessions<T>(
    id: &Identity,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    mut ask: impl FnMut(usize, &mut dyn BufRead, &mut dyn Write) -> Result<Option<T>, InputError>,
) -> Option<Vec<T>> {
    let mut specs = Vec::new();
    for s in 0..id.sessions {
        match ask(s, input, out) {
            Ok(Some(spec)) => specs.push(spec),
            Ok(None) => {}
            Err(e) => {
                let _ = writeln!(out, "{e}\nOperation cancelled");
                return None;
            }
        }
    }
    if specs.is_empty() {
        let _ = writeln!(out, "Every session is disabled: nothing to test");
        return None;
    }
    Some(specs)
}

/// The recommended PC command of every session ([`run::pc_commands`]).
fn print_commands<S: run::PcPeer>(out: &mut dyn Write, p: &Params, specs: &[S]) {
    let _ = writeln!(out, "Recommended PC commands:");
    for (s, c) in run::pc_commands(p, specs) {
        let _ = writeln!(out, "  session {s}: {c}");
    }
}

/// Asks one session's latency questions; `Ok(None)`: disabled.
fn ask_latency_session(
    s: usize,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<Option<LatencySpec>, InputError> {
    // The end of the input answers "" (an invalid input: cancelled).
    let mut get = |what: &str, prompt: &str| ask(input, out, prompt, what).unwrap_or(Ok(String::new()));
    let role = input::code(
        "Role",
        &get("Role", &format!("Session {s}: role (0 disable, 1 initiator, 2 echo): "))?,
        &[0, 1, 2],
    )?;
    if role == 0 {
        return Ok(None);
    }
    let max = latency_test::MAX_MESSAGE;
    let request = input::number(
        "Request size",
        &get("Request size", &format!("Session {s}: request size in bytes (1-{max}): "))?,
        1,
        max,
    )?;
    let response = input::number(
        "Response size",
        &get("Response size", &format!("Session {s}: response size in bytes (1-{max}): "))?,
        1,
        max,
    )?;
    let what = if role == 1 { "requests to send" } else { "requests to answer" };
    let count = input::number(
        "Request count",
        &get("Request count", &format!("Session {s}: {what} (1-0xFFFF_FFFF): "))?,
        1,
        latency_test::MAX_COUNT,
    )?;
    let outstanding = input::number(
        "Requests in flight",
        &get(
            "Requests in flight",
            &format!("Session {s}: requests in flight at most (1-{}): ", latency_test::MAX_OUTSTANDING),
        )?,
        1,
        latency_test::MAX_OUTSTANDING,
    )?;
    let conn = input::code(
        "Connection mode",
        &get("Connection mode", &format!("Session {s}: mode (0 client: active open, 1 server: passive open): "))?,
        &[0, 1],
    )?;
    Ok(Some(LatencySpec::new(s, role == 1, (request, response), count, outstanding, conn)))
}

/// Menu 5: the latency test, asked session by session as menus 2 and 3.
fn latency(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    bus_args: &str,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), crate::OpError> {
    let Some(specs) = ask_sessions(id, input, out, ask_latency_session) else { return Ok(()) };
    let sessions: Vec<usize> = specs.iter().map(|s| s.session).collect();
    let busy = run::busy_among(bus, &sessions)?;
    if !busy.is_empty() {
        let _ = writeln!(out, "{}\nOperation cancelled", run::busy_message(&busy, bus_args));
        return Ok(());
    }
    let p = Params::read(bus, id.sessions)?;
    print_commands(out, &p, &specs);
    for s in &specs {
        let _ = writeln!(out, "{}", s.describe(p.fpga_ports[s.session], p.target_ports[s.session]));
    }
    let clients = specs.iter().any(|s| s.test.client);
    let report = run_menu_test(bus_args, clients, input, out, |opts, say| {
        latency_test::run(bus, &specs, id.user_clock_khz, opts, say)
    })?;
    let Some(report) = report else { return Ok(()) };
    let _ = write!(out, "{}", report.text());
    finish_menu_test(out, report.stopped.as_deref())
}

/// What menus 2, 3 and 5 share once the sessions are asked: "Press Enter"
/// before a client connects, then `run` with the key watch and the signals
/// aborting it, its lines on `out`. `Ok(None)`: the person did not proceed.
fn run_menu_test<R>(
    bus_args: &str,
    clients: bool,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    run: impl FnOnce(&RunOptions, &mut dyn FnMut(&str)) -> Result<R, crate::OpError>,
) -> Result<Option<R>, crate::OpError> {
    if clients {
        match ask_line(input, out, "Press Enter to proceed") {
            Line::Text(_) => {}
            Line::NotText(seen) => {
                let _ = writeln!(out, "{}\nOperation cancelled", not_text("Answer", &seen));
                return Ok(None);
            }
            Line::End | Line::Failed(_) => return Ok(None),
        }
    }
    let _ = writeln!(out, "Press any key or Ctrl-C to abort the test");
    let _ = out.flush();
    let opts = RunOptions {
        limit: Some(TEST_LIMIT),
        interval: Duration::from_secs(1),
        abort: &run::ABORT,
        bus_args,
        trace: false,
    };
    run::with_signals(|| {
        let _keys = KeyWatch::start();
        run(&opts, &mut |l| {
            if writeln!(out, "{l}").and_then(|_| out.flush()).is_err() {
                // Nobody reads the test any more: stop it cleanly.
                run::ABORT.request(Stop::OutputClosed);
            }
        })
    })
    .map(Some)
}

/// After a menu test's results: why it stopped early, and the console's
/// end when a signal asked for it.
fn finish_menu_test(out: &mut dyn Write, stopped: Option<&str>) -> Result<(), crate::OpError> {
    if let Some(why) = stopped {
        let _ = writeln!(out, "Test stopped: {why}");
    }
    match run::ABORT.requested() {
        // SIGTERM or SIGHUP: the sessions are aborted; now the console goes.
        Some(stop) if stop.ends_console() => {
            Err(crate::OpError(format!("{}: the test's sessions were aborted", stop.describe())))
        }
        _ => Ok(()),
    }
}

fn test(
    bus: &mut dyn RegisterBus,
    id: &Identity,
    bus_args: &str,
    duplex: Duplex,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> Result<(), crate::OpError> {
    let Some(specs) = ask_sessions(id, input, out, |s, input, out| ask_session(duplex, s, input, out)) else {
        return Ok(());
    };
    // Refused before the commands, so nobody starts a PC tool for it
    // (`run::run` checks again before it writes anything).
    let busy = run::busy_sessions(bus, &specs)?;
    if !busy.is_empty() {
        let _ = writeln!(out, "{}\nOperation cancelled", run::busy_message(&busy, bus_args));
        return Ok(());
    }
    let p = Params::read(bus, id.sessions)?;
    print_commands(out, &p, &specs);
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
    let clients = specs.iter().any(|s| s.test.client);
    let report = run_menu_test(bus_args, clients, input, out, |opts, say| {
        run::run(bus, duplex, &specs, id.user_clock_khz, opts, say)
    })?;
    let Some(report) = report else { return Ok(()) };
    let _ = write!(out, "{}", report.totals_text());
    finish_menu_test(out, report.stopped.as_deref())
}
