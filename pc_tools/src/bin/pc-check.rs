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
such interface; the same with stdout closed (the reports are then dropped).";

fn main() {
    let args = pc_tools::args_or_exit("pc-check");
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
    let status = pc_tools::nic::run(&args, &mut out, &mut std::io::stderr(), &pc_tools::nic::check);
    std::process::exit(status);
}
