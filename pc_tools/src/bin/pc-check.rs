//! `pc-check IFACE...`: the PC network settings the reference recommends,
//! read from the kernel, one line each, never changed (see
//! `pc_tools::nic` and docs/pc_setup.md).

use std::io::Write;

const USAGE: &str = "\
usage: pc-check IFACE...
Reads, for each network interface named, the settings section 2 of the reference
recommends for the PC (MTU 9000 for jumbo frames, flow control off, interrupt
moderation off, the CPU frequency governor, the interface's IRQ affinity) from the
kernel and prints each with the recommendation and whether it matches. Nothing is
changed: docs/pc_setup.md gives the commands that set them.
Exit status: 0 every readable setting matches, 1 one differs, 2 bad usage or no
such interface.";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = std::io::stdout();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        let _ = writeln!(out, "{USAGE}");
        return;
    }
    if args.is_empty() || args.iter().any(|a| a.starts_with('-')) {
        let bad = args.iter().find(|a| a.starts_with('-'));
        let what = bad.map_or("no interface named".to_string(), |a| format!("unknown option {a}"));
        let _ = writeln!(std::io::stderr(), "pc-check: error: {what}\n{USAGE}");
        std::process::exit(2);
    }
    let mut status = 0;
    for iface in &args {
        match pc_tools::nic::check(iface) {
            Ok(settings) => {
                let (text, s) = pc_tools::nic::report(iface, &settings);
                // A closed stdout (`pc-check eth0 | head -1`) ends it quietly.
                if out.write_all(text.as_bytes()).is_err() {
                    return;
                }
                status = status.max(s);
            }
            Err(e) => {
                let _ = writeln!(std::io::stderr(), "pc-check: error: {e}");
                status = 2;
            }
        }
    }
    std::process::exit(status);
}
