//! LiteX's own tools against a running virtual board: `RemoteClient` reads
//! the identity and design parameters and writes a test parameter back;
//! `litex_cli --csr-csv csr.csv --regs` lists every register of the map by
//! name with its reset value (or the value the board wrote at start). LiteX
//! comes from `.venv/` (`make deps`).

use std::process::Command;

use etherbone::litex::{run_bounded, venv_tool, PYTHON_TIMEOUT};
use vboard::{Options, VirtualBoard};

fn board() -> VirtualBoard {
    VirtualBoard::start(&Options { port: 0, ..Options::default() }, |l| eprintln!("vboard: {l}"))
        .expect("the virtual board starts")
}

const SCRIPT: &str = r#"
import json, sys
from litex.tools.litex_client import RemoteClient
a = json.loads(sys.argv[2])
bus = RemoteClient(host="127.0.0.1", port=int(sys.argv[1]), csr_csv=None, csr_data_width=32)
bus.open()
out = {"reads": [bus.read(x) for x in a["reads"]]}
bus.write(a["write"], a["value"])
out["back"] = bus.read(a["write"])
bus.close()
print(json.dumps(out))
"#;

#[test]
fn litex_remote_client_reads_the_identity_and_writes_a_parameter() {
    use driver::regs;
    let vb = board();
    let port = vb.register_addrs()[0].port();
    let d = &vb.design;
    let reads = [regs::info::ID, regs::info::SESSIONS, regs::info::DATA_WIDTH, regs::info::USER_CLOCK_KHZ];
    let fpga_port = regs::session(2).unwrap().fpga_port();
    let value = 54_321u32;
    let args = serde_json::json!({
        "reads": reads.iter().map(|r| r.addr).collect::<Vec<_>>(),
        "write": fpga_port.addr,
        "value": value,
    });
    let python = venv_tool("python");
    let out =
        run_bounded(Command::new(python).args(["-c", SCRIPT, &port.to_string(), &args.to_string()]), PYTHON_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "RemoteClient failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("the script's JSON");
    let got: Vec<u64> = v["reads"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect();
    let want = [u64::from(regs::ID_MAGIC), d.sessions as u64, d.data_width as u64, u64::from(d.user_clock_khz())];
    assert_eq!(got, want, "id, sessions, data width, user clock");
    assert_eq!(v["back"].as_u64(), Some(u64::from(value)), "the written port reads back");
}

#[test]
fn litex_cli_lists_every_register_with_its_reset_value() {
    let vb = board();
    let port = vb.register_addrs()[0].port();
    let map = regmap::RegisterMap::for_design(&vb.design);
    let dir = std::env::temp_dir().join(format!("vboard-litex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("csr.csv");
    std::fs::write(&csv, regmap::csr_csv(&map, &vb.design)).unwrap();
    let cli = venv_tool("litex_cli");
    let mut cmd = Command::new(cli);
    cmd.current_dir(&dir).args(["--port", &port.to_string(), "--csr-csv", csv.to_str().unwrap(), "--regs"]);
    let out = run_bounded(&mut cmd, PYTHON_TIMEOUT);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "litex_cli failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    // Lines: `0xADDRESS : 0xVALUE name`.
    let listed: Vec<(u32, u32, String)> = stdout
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let addr = u32::from_str_radix(w.next()?.strip_prefix("0x")?, 16).ok()?;
            w.next().filter(|c| *c == ":")?;
            let value = u32::from_str_radix(w.next()?.strip_prefix("0x")?, 16).ok()?;
            Some((addr, value, w.next()?.to_string()))
        })
        .collect();
    let mut expected = 0;
    for block in &map.blocks {
        for i in 0..block.instances() {
            for reg in &block.registers {
                expected += 1;
                let addr = block.address(i, reg).unwrap();
                let region = if block.repeat.is_some() { format!("{}{i}", block.name) } else { block.name.clone() };
                let name = format!("{region}_{}", reg.name);
                let (_, value, _) = listed
                    .iter()
                    .find(|(a, _, n)| *a == addr && *n == name)
                    .unwrap_or_else(|| panic!("litex_cli did not list {name} at {addr:#x}:\n{stdout}"));
                let stable = !reg.volatile_mask();
                // The board's start-up writes (stall timeout, loopback
                // addresses) replace some reset values.
                let expected = vb.startup.writes.iter().find(|w| w.addr == addr).map_or(reg.reset_for(i), |w| w.value);
                assert_eq!(
                    value & stable,
                    expected & stable,
                    "{name}: reset value or start-up write (volatile bits {:#x} ignored)",
                    !stable
                );
            }
        }
    }
    assert_eq!(listed.len(), expected, "one line per register of the map:\n{stdout}");
}
