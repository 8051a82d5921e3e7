//! Multi-gigabyte loopback transfers with verification, ignored in a plain
//! `cargo test`: `make test-pc-large` runs them (cargo test -p pc_tools --test
//! large -- --ignored multi_gigabyte; the tools are optimised in the test
//! build, see the workspace's Cargo.toml).
//! They cross the 2^32-byte offset, where a 32-bit byte counter would wrap.

mod common;

use common::*;

fn assert_ok(o: &Outcome, what: &str) {
    assert_eq!(o.code, 0, "{what}: exit {}\nstdout:\n{}\nstderr:\n{}", o.code, o.stdout, o.stderr);
}

/// 4 GiB + 3 bytes: past the 2^32 byte offset, odd tail.
const HALF_DUPLEX: &str = "0x1_0000_0003";
const HALF_DUPLEX_N: u64 = 0x1_0000_0003;

#[test]
#[ignore = "multi-gigabyte: run with make test-pc-large"]
fn multi_gigabyte_half_duplex_verified() {
    let (srv, port) = server(DATATEST, &["s", "t", "127.0.0.1", "0", HALF_DUPLEX, "1", "3", "--quiet"]);
    let cli = run(DATATEST, &["c", "r", "127.0.0.1", &port.to_string(), HALF_DUPLEX, "1", "3", "--quiet"]);
    let srv = srv.finish();
    assert_ok(&cli, "receiver");
    assert_ok(&srv, "sender");
    assert!(cli.stdout.contains(&format!("\nrx: {HALF_DUPLEX_N} bytes in ")), "{}", cli.stdout);
    assert!(cli.stdout.contains("pattern verified"), "{}", cli.stdout);
    println!("{}", cli.stdout.lines().find(|l| l.starts_with("rx:")).unwrap_or_default());
}

#[test]
#[ignore = "multi-gigabyte: run with make test-pc-large"]
fn multi_gigabyte_full_duplex_verified() {
    // 2 GiB + 1 each way (4 GiB over the connection in total).
    let n = (2u64 << 30) + 1;
    let (srv, port) = server(TXRX, &["--server", "127.0.0.1", "0", &n.to_string(), "1", "3", "--quiet"]);
    let cli = run(TXRX, &["127.0.0.1", &port.to_string(), &n.to_string(), "1", "3", "--quiet"]);
    let srv = srv.finish();
    assert_ok(&cli, "client");
    assert_ok(&srv, "server");
    for o in [&cli, &srv] {
        assert!(o.stdout.contains(&format!("\ntx: {n} bytes in ")), "{}", o.stdout);
        assert!(o.stdout.contains(&format!("\nrx: {n} bytes in ")), "{}", o.stdout);
    }
    println!(
        "{}",
        cli.stdout.lines().filter(|l| l.starts_with("tx:") || l.starts_with("rx:")).collect::<Vec<_>>().join("\n")
    );
}
