//! PC-side test tools of the TOE demo (reference sections 3.3 and 3.4):
//! `tcpdatatest` (one direction per connection) and `tcp_client_txrx_single`
//! (both directions at once), with a server side for board-less testing;
//! `tcp_latency` (request-response round trips, [`latency`]) and `pc-check`
//! ([`nic`]).
//!
//! The incremental pattern comes from the `pattern` crate, the workspace's
//! one implementation of it.

pub mod app;
pub mod args;
pub mod latency;
pub mod nic;
pub mod transfer;

use std::io::Write;

use args::{ArgError, Command};

/// The arguments after the program name, read as text by
/// [`args::utf8_args`] for all four tools; one that is not valid UTF-8 ends
/// the tool with one line on stderr and exit 2 (`std::env::args` would
/// panic).
pub fn args_or_exit(tool: &str) -> Vec<String> {
    args::utf8_args(std::env::args_os().skip(1)).unwrap_or_else(|e| {
        let _ = writeln!(std::io::stderr().lock(), "{tool}: error: {e} (see {tool} --help)");
        std::process::exit(transfer::exit::USAGE)
    })
}

/// Shared `main` of both binaries: parse, run, return the exit status.
pub fn main_with<T>(
    tool: &'static str,
    usage: &str,
    argv: &[String],
    parse: fn(&[String]) -> Result<Command<T>, ArgError>,
    job: fn(T) -> app::Job,
) -> i32 {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    match parse(argv) {
        Ok(Command::Help) => {
            let _ = writeln!(stdout.lock(), "{usage}");
            transfer::exit::OK
        }
        Err(e) => {
            let _ = writeln!(stderr.lock(), "{tool}: error: {e} (see {tool} --help)");
            transfer::exit::USAGE
        }
        Ok(Command::Run(a)) => {
            let job = job(a);
            app::run(&job, app::Sinks { out: &mut stdout.lock(), err: &mut stderr.lock() })
        }
    }
}
