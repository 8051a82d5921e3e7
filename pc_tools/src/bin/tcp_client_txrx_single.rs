//! `tcp_client_txrx_single [--server] <server IP> <server port> <bytelen> <pattern> <buffer> [options]`
//! (see host/README.md).

use host::app::Job;
use host::args::{self, TxRxArgs};
use host::transfer::Plan;

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
    let argv: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(host::main_with("tcp_client_txrx_single", args::TXRX_USAGE, &argv, args::parse_txrx, job));
}
