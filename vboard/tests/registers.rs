//! The register bus over Etherbone: an AXI error response from the board's
//! register file (SLVERR for an address the map does not decode) reaches
//! the client, and the bus keeps working afterwards.

use std::time::Duration;

use etherbone::{BusError, Client, RegisterBus};
use testbench::top1024_regs::regs;
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
