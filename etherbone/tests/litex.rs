//! LiteX's own client (`RemoteClient`, `litex_cli`), from the pinned LiteX in
//! `.venv/` (`make deps`), against the Rust server backed by a MemoryBus.

mod common;

use std::process::{Command, Output};

use common::start;
use etherbone::{AxiResp, MemoryBus, Op};

use etherbone::litex::{run_bounded, venv_tool, PYTHON_TIMEOUT};

fn check(out: &Output, what: &str) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{what} failed ({}):\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Drives `RemoteClient` and prints what it saw as JSON. The config-space
/// reads use LiteX's own record encoding (`rca = 1`).
const REMOTE_CLIENT_SCRIPT: &str = r#"
import json, sys
from litex.tools.litex_client import RemoteClient
from litex.tools.remote.etherbone import EtherbonePacket, EtherboneRecord, EtherboneReads

bus = RemoteClient(host="127.0.0.1", port=int(sys.argv[1]), csr_csv=None, csr_data_width=32)
bus.open()

def error_status():
    record = EtherboneRecord(4)
    record.rca = 1
    record.reads = EtherboneReads(addr_size=4, addrs=[0x4])
    record.rcount = 1
    packet = EtherbonePacket(32)
    packet.records = [record]
    packet.encode()
    bus.send_packet(bus.socket, packet)
    answer = EtherbonePacket(32, bus.receive_packet(bus.socket, 4))
    answer.decode()
    return answer.records.pop().writes.get_datas()[0]

out = {}
out["read"] = bus.read(0x100)
out["burst"] = bus.read(0x200, length=4)
bus.write(0x300, 0x12345678)
bus.write(0x400, [1, 2, 3])
out["readback"] = bus.read(0x300)
out["status_ok"] = error_status()
out["failed_read"] = bus.read(0xbad0)
out["status_after_failed_read"] = error_status()
bus.write(0xbad4, 5)
out["status_after_failed_write"] = error_status()
out["read_after"] = bus.read(0x100)
out["status_after_ok"] = error_status()
bus.close()
print(json.dumps(out))
"#;

#[test]
fn litex_remote_client_reads_writes_and_sees_errors() {
    let python = venv_tool("python");
    let mem = MemoryBus::new().with_error(0xbad0, AxiResp::SlvErr).with_error(0xbad4, AxiResp::DecErr);
    mem.poke(0x100, 0xcafe_f00d);
    for i in 0..4 {
        mem.poke(0x200 + 4 * i, 0xa0 + i);
    }
    let t = start(&mem);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("remote_client.py");
    std::fs::write(&script, REMOTE_CLIENT_SCRIPT).unwrap();
    // Run in an empty directory: RemoteClient picks up a csr.csv it finds there.
    let out = run_bounded(
        Command::new(&python).arg(&script).arg(t.addr().port().to_string()).current_dir(dir.path()),
        PYTHON_TIMEOUT,
    );
    let stdout = check(&out, "RemoteClient script");
    let v: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: RemoteClient script printed {stdout:?}"));

    assert_eq!(v["read"], 0xcafe_f00d_u32);
    assert_eq!(v["burst"], serde_json::json!([0xa0, 0xa1, 0xa2, 0xa3]));
    assert_eq!(v["readback"], 0x1234_5678);
    assert_eq!(mem.peek(0x300), Some(0x1234_5678));
    assert_eq!([mem.peek(0x400), mem.peek(0x404), mem.peek(0x408)], [Some(1), Some(2), Some(3)]);
    // A failed read answers all ones; the error shift register (newest access
    // in bit 0) tells the failed read and the failed posted write apart.
    assert_eq!(v["status_ok"], 0);
    assert_eq!(v["failed_read"], 0xffff_ffff_u32);
    assert_eq!(v["status_after_failed_read"], 0b1);
    assert_eq!(v["status_after_failed_write"], 0b11);
    assert_eq!(v["read_after"], 0xcafe_f00d_u32);
    assert_eq!(v["status_after_ok"], 0b110);
    assert_eq!(mem.peek(0xbad4), None);
    assert_eq!(t.server.bus_errors(), 2);
}

/// The two constants litex_cli's CSR builder insists on, and nothing else.
const CSR_CSV: &str = "\
constant,config_csr_data_width,32,,
constant,config_bus_address_width,32,,
";

#[test]
fn litex_cli_reads_and_writes() {
    let cli = venv_tool("litex_cli");
    let mem = MemoryBus::new().with_error(0xbad0, AxiResp::SlvErr);
    mem.poke(0x100, 0xcafe_f00d);
    mem.poke(0x104, 0x0bad_cafe);
    let t = start(&mem);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("csr.csv"), CSR_CSV).unwrap();
    let port = t.addr().port().to_string();
    let cli_run = |args: &[&str]| {
        let mut cmd = Command::new(&cli);
        cmd.args(["--csr-csv", "csr.csv", "--host", "127.0.0.1", "--port", &port]).args(args).current_dir(dir.path());
        check(&run_bounded(&mut cmd, PYTHON_TIMEOUT), &format!("litex_cli {}", args.join(" ")))
    };

    assert_eq!(cli_run(&["--read", "0x100"]), "0x00000100 : 0xcafef00d\n");
    assert_eq!(cli_run(&["--read", "0x100", "--length", "8"]), "0x00000100 : 0xcafef00d\n0x00000104 : 0x0badcafe\n");
    cli_run(&["--write", "0x500", "0xabcdef01"]);
    assert_eq!(mem.peek(0x500), Some(0xabcd_ef01));
    assert_eq!(cli_run(&["--read", "0x500"]), "0x00000500 : 0xabcdef01\n");
    assert_eq!(cli_run(&["--read", "0xbad0"]), "0x0000bad0 : 0xffffffff\n");
    // litex_cli 2024.12 formats each word both in hex and in binary, reading
    // it once for each: two bus reads per word (mind read-to-clear registers).
    let reads_of_bad = mem.log().iter().filter(|op| **op == Op::Read { addr: 0xbad0 }).count();
    assert_eq!(reads_of_bad, 2);
    assert_eq!(t.server.bus_errors(), 2);
}
