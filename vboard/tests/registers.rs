//! The register bus over Etherbone: an AXI error response from the board's
//! register file (SLVERR for an address the map does not decode) reaches
//! the client, and the bus keeps working afterwards.

use std::time::Duration;

use driver::regs;
use etherbone::{BusError, Client, RegisterBus};
use vboard::{Options, VirtualBoard};

/// An address inside the bus's 11-bit space that no block of the map covers.
fn undecoded() -> u32 {
    let map = regmap::RegisterMap::for_design(&vboard::load_design(None).unwrap());
    let covered = |a: u32| {
        map.blocks.iter().any(|b| {
            (0..b.instances()).any(|i| {
                let base = b.instance_base(i).unwrap();
                a >= base && a < base + b.size
            })
        })
    };
    (0x600..0x800).step_by(4).find(|a| !covered(*a)).expect("an undecoded address")
}

#[test]
fn an_axi_error_response_reaches_the_client_and_the_bus_goes_on() {
    let vb = VirtualBoard::start(&Options { port: 0, ..Options::default() }, |l| eprintln!("vboard: {l}")).unwrap();
    let addr = vb.register_addrs()[0];
    let bad = undecoded();
    let mut client = Client::connect(addr, Duration::from_secs(5)).unwrap();
    match client.read32(bad) {
        Err(e @ BusError::Response { .. }) => eprintln!("read {bad:#x}: {e}"),
        other => panic!("read of undecoded {bad:#x}: expected an error response, got {other:?}"),
    }
    match client.write32(bad, 1) {
        Err(BusError::Response { .. }) => {}
        other => panic!("write of undecoded {bad:#x}: expected an error response, got {other:?}"),
    }
    assert_eq!(client.read32(regs::info::ID.addr).unwrap(), regs::ID_MAGIC, "the bus works after the errors");
    // What a plain LiteX client sees: all ones, as a PCIe host would.
    let mut plain = Client::connect(addr, Duration::from_secs(5)).unwrap();
    plain.set_error_checks(false);
    assert_eq!(plain.read32(bad).unwrap(), etherbone::FAILED_READ_VALUE);
    assert_eq!(plain.read32(regs::info::SESSIONS.addr).unwrap(), vb.design.sessions as u32);
}

/// Every register of the map that software can write or that never changes
/// on its own, with its address and current value.
fn stable_registers(bus: &mut Client, design: &config::Design) -> Vec<(String, u32, u32)> {
    let map = regmap::RegisterMap::for_design(design);
    let mut out = Vec::new();
    for block in &map.blocks {
        for i in 0..block.instances() {
            for reg in &block.registers {
                let volatile = reg.volatile_mask() != 0;
                // Reading a wide value's low half latches its high half: skip both
                // when volatile, they are counters.
                if volatile {
                    continue;
                }
                let addr = block.address(i, reg).unwrap();
                let value = bus
                    .read32(addr)
                    .unwrap_or_else(|e| panic!("read {}{i}.{} at {addr:#x}: {e}", block.name, reg.name));
                out.push((format!("{}{i}.{}", block.name, reg.name), addr, value));
            }
        }
    }
    out
}

/// Issue 25, item 1: the register file decodes all 32 address bits and
/// answers SLVERR outside the map, and the board's Etherbone server refuses
/// every address at or above the map's span before it reaches the bus (so
/// the bus sees no access at all). 0x854 must not write `fpga_ip` (0x054), a sweep over
/// 0x700..0xAF8 must change nothing, 0x800 must not read the ID.
#[test]
fn addresses_outside_the_register_map_never_reach_a_register() {
    use etherbone::codec::{read_packet, Packet, Record, RecordFlags};
    use std::io::{Read, Write};

    let vb = VirtualBoard::start(&Options { port: 0, ..Options::default() }, |l| eprintln!("vboard: {l}")).unwrap();
    let addr = vb.register_addrs()[0];
    let span = 1u32 << regmap::RegisterMap::for_design(&vb.design).address_bits();
    assert_eq!(span, 0x800, "the default map spans 11 bits");
    let mut client = Client::connect(addr, Duration::from_secs(5)).unwrap();
    let before = stable_registers(&mut client, &vb.design);
    let fpga_ip = client.read32(regs::toe::FPGA_IP.addr).unwrap();
    assert_eq!(regs::toe::FPGA_IP.addr, 0x054);

    match client.write32(0x854, 0x0102_0304) {
        Err(BusError::Response { addr: 0x854, .. }) => {}
        other => panic!("write of 0x854: expected an error response, got {other:?}"),
    }
    assert_eq!(client.error_status().unwrap() & 1, 1, "the error bit of the write to 0x854");
    assert_eq!(client.read32(regs::toe::FPGA_IP.addr).unwrap(), fpga_ip, "0x854 left fpga_ip alone");
    match client.read32(0x800) {
        Err(BusError::Response { addr: 0x800, .. }) => {}
        other => panic!("read of 0x800: expected an error response, got {other:?}"),
    }
    let mut plain = Client::connect(addr, Duration::from_secs(5)).unwrap();
    plain.set_error_checks(false);
    assert_eq!(plain.read32(0x800).unwrap(), etherbone::FAILED_READ_VALUE, "0x800 is not the ID register");
    assert_eq!(plain.read32(0xffff_fffc).unwrap(), etherbone::FAILED_READ_VALUE);

    // A sweep of writes over 0x700..0xAF8 in one record, as LiteX sends a burst.
    let mut raw = std::net::TcpStream::connect(addr).unwrap();
    raw.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut line = [0u8; 128];
    let _ = raw.read(&mut line).unwrap();
    let zeros = vec![0u32; ((0xaf8 - 0x700) / 4) as usize];
    let n = zeros.len();
    raw.write_all(&Packet::new(vec![Record::writes(0x700, zeros)]).encode().unwrap()).unwrap();
    let status = Packet::new(vec![Record {
        flags: RecordFlags { rca: true, ..RecordFlags::default() },
        ..Record::reads([u64::from(etherbone::CONFIG_ERROR_LOW)])
    }]);
    raw.write_all(&status.encode().unwrap()).unwrap();
    let answer = read_packet(&mut raw).unwrap().expect("the error register");
    assert_eq!(answer.records[0].writes, vec![u32::MAX], "the last 32 of the {n} writes failed");

    let after = stable_registers(&mut client, &vb.design);
    for ((name, a, was), (_, _, now)) in before.iter().zip(&after) {
        assert_eq!(was, now, "{name} at {a:#05x} changed");
    }
    assert_eq!(client.read32(regs::info::ID.addr).unwrap(), regs::ID_MAGIC, "the bus works after the refusals");
}
