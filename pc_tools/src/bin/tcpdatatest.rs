//! `tcpdatatest <mode> <dir> <server IP> <server port> <bytelen> <pattern> <buffer> [options]`
//! (see pc_tools/README.md).

use pc_tools::app::Job;
use pc_tools::args::{self, DataTestArgs, Dir};
use pc_tools::transfer::Plan;

fn job(a: DataTestArgs) -> Job {
    let t = &a.transfer;
    let (tx_len, rx_len, dir) = match a.dir {
        Dir::Transmit => (t.bytelen, 0, "transmit"),
        Dir::Receive => (0, t.bytelen, "receive"),
    };
    Job {
        tool: "tcpdatatest",
        dir,
        complete: "half-duplex test complete",
        role: a.role,
        plan: Plan {
            tx_len,
            rx_len,
            pattern: t.pattern,
            buffer: t.buffer,
            timeout: a.options.timeout,
            corrupt: a.options.corrupt,
        },
        transfer: a.transfer,
        options: a.options,
    }
}

fn main() {
    let argv = pc_tools::args_or_exit("tcpdatatest");
    std::process::exit(pc_tools::main_with("tcpdatatest", args::DATATEST_USAGE, &argv, args::parse_datatest, job));
}
