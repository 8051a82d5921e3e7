//! The open engine's network node (`toe.core = "open"`,
//! `docs/open_engine.md`), as the register file's `net` block shows it: the
//! ARP state and a counter for every event and every reason a frame is
//! dropped. The addresses are those of every open design (the block sits
//! above the fourth session's); `build.rs` takes them from the register map.
//! A design with the licensed core has no such block: its register file
//! answers SLVERR there, and [`read`] says so.

use etherbone::{BusError, RegisterBus};

use crate::ops::{OpError, Result};

/// The `net` block's addresses, from the register map (`build.rs`).
pub mod map {
    include!(concat!(env!("OUT_DIR"), "/net_map.rs"));
}

/// What the node's registers say, read at one moment (each counter wraps at
/// 2^32: take differences).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetState {
    /// The target's MAC is known (`resolved_mac`).
    pub target_known: bool,
    /// Client mode gave up: no ARP reply from the target.
    pub arp_failed: bool,
    /// The target's MAC as the node knows it, first byte on the wire first.
    pub resolved_mac: [u8; 6],
    /// Every counter by name, in the register map's order.
    pub counters: Vec<(&'static str, u32)>,
}

impl NetState {
    /// The counter `name`, if the node has one.
    pub fn counter(&self, name: &str) -> Option<u32> {
        self.counters.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }
}

/// Reads the node's registers. A design without the open engine answers
/// the first read with an error response: the error says so.
pub fn read(bus: &mut (impl RegisterBus + ?Sized)) -> Result<NetState> {
    let status = bus.read32(map::STATUS).map_err(|e| match e {
        BusError::Response { .. } => OpError(format!(
            "register {:#05x} (net.net_status) answered {e}: this design has no open engine (its network node's registers exist only with toe.core = \"open\")",
            map::STATUS
        )),
        other => OpError(format!("reading net.net_status at {:#05x}: {other}", map::STATUS)),
    })?;
    let read = |bus: &mut (dyn RegisterBus + '_), name: &str, addr: u32| {
        bus.read32(addr).map_err(|e| OpError(format!("reading net.{name} at {addr:#05x}: {e}")))
    };
    let bus: &mut dyn RegisterBus = &mut &mut *bus;
    // The low half first: reading it latches the high half.
    let lo = read(bus, "resolved_mac_lo", map::RESOLVED_MAC_LO)?;
    let hi = read(bus, "resolved_mac_hi", map::RESOLVED_MAC_HI)?;
    let mac = (u64::from(hi & 0xffff) << 32) | u64::from(lo);
    let mut counters = Vec::with_capacity(map::COUNTERS.len());
    for &(name, addr, _) in map::COUNTERS {
        counters.push((name, read(bus, name, addr)?));
    }
    Ok(NetState {
        target_known: status >> map::TARGET_KNOWN_BIT & 1 == 1,
        arp_failed: status >> map::ARP_FAILED_BIT & 1 == 1,
        resolved_mac: mac.to_be_bytes()[2..].try_into().expect("six bytes"),
        counters,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Registers by address; an address it does not hold answers SLVERR.
    #[derive(Default)]
    struct Bus(HashMap<u32, u32>);

    impl RegisterBus for Bus {
        fn read32(&mut self, addr: u32) -> std::result::Result<u32, BusError> {
            self.0.get(&addr).copied().ok_or(BusError::slverr(addr))
        }
        fn write32(&mut self, addr: u32, _: u32) -> std::result::Result<(), BusError> {
            Err(BusError::slverr(addr))
        }
    }

    #[test]
    fn reads_the_state_and_every_counter_at_its_address() {
        let mut bus = Bus::default();
        bus.0.insert(map::STATUS, 1 << map::TARGET_KNOWN_BIT);
        bus.0.insert(map::RESOLVED_MAC_LO, 0x1020_3040);
        bus.0.insert(map::RESOLVED_MAC_HI, 0xffff_0250);
        for (i, &(_, addr, _)) in map::COUNTERS.iter().enumerate() {
            bus.0.insert(addr, 1000 + i as u32);
        }
        let s = read(&mut bus).unwrap();
        assert!(s.target_known && !s.arp_failed);
        assert_eq!(s.resolved_mac, [0x02, 0x50, 0x10, 0x20, 0x30, 0x40], "bits 47:40 first; 63:48 ignored");
        assert_eq!(s.counters.len(), 27);
        assert_eq!(s.counter("frames_in"), Some(1000));
        assert_eq!(s.counter("icmp_echoes_answered"), Some(1005));
        assert_eq!(s.counter("dropped_frame_error"), Some(1006));
        assert_eq!(s.counter("nonsense"), None);
    }

    #[test]
    fn a_design_without_the_open_engine_is_told_so() {
        let e = read(&mut Bus::default()).unwrap_err().to_string();
        assert!(e.contains("no open engine") && e.contains("toe.core = \"open\""), "{e}");
        let mut bus = Bus::default();
        bus.0.insert(map::STATUS, 0);
        let e = read(&mut bus).unwrap_err().to_string();
        assert!(e.contains("net.resolved_mac_lo"), "a later failure names its register: {e}");
    }
}
