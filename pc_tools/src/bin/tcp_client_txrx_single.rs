//! `tcp_client_txrx_single [--server] <server IP> <server port> <bytelen> <pattern> <buffer> [options]`
//! (see pc_tools/README.md).

use pc_tools::app::Job;
use pc_tools::args::{self, TxRxArgs};
use pc_tools::transfer::Plan;

fn job(a: TxRxArgs) -> Job {
    let t = &a.transfer;
    Job {
        tool: "tcp_client_txrx_single",
        dir: "duplex",
        complete: "full-duplex test complete",
        role: a.role,
        plan: Plan {
            tx_len: t.bytelen,
            rx_len: t.bytelen,
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
    let argv = pc_tools::args_or_exit("tcp_client_txrx_single");
    std::process::exit(pc_tools::main_with("tcp_client_txrx_single", args::TXRX_USAGE, &argv, args::parse_txrx, job));
}
