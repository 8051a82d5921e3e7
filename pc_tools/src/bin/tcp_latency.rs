//! `tcp_latency <mode> <role> <server IP> <server port> <request> <response> <count> [options]`
//! (see pc_tools/README.md).

fn main() {
    let argv = pc_tools::args_or_exit("tcp_latency");
    let code = pc_tools::latency::main(&argv, &mut std::io::stdout().lock(), &mut std::io::stderr().lock());
    std::process::exit(code);
}
