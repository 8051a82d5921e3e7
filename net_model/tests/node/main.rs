//! The node against hand-built frames and an independent parser of what it
//! sends. One test binary, one module per behaviour.

mod arp;
mod config;
mod drops;
mod echo;
mod fuzz;
mod parse;
mod txbuf;

use std::net::Ipv4Addr;

use net_model::frames::{self, Ends};
use net_model::{ArpMode, Counter, Mac, NetNode, NodeConfig};

pub const FPGA_MAC: Mac = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x01];
pub const HOST_MAC: Mac = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x02];
pub const OTHER_MAC: Mac = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x03];
pub const FIXED_MAC: Mac = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x04];
pub const FPGA_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
pub const HOST_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
pub const OTHER_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 3);

pub fn cfg(mode: ArpMode) -> NodeConfig {
    let mut c = NodeConfig::new(FPGA_MAC, FPGA_IP, HOST_IP, mode);
    c.target_mac = FIXED_MAC;
    c
}

/// A node after `init(0)`, its transmit buffer drained (client mode's first request).
pub fn node(mode: ArpMode) -> NetNode {
    let mut n = NetNode::new(cfg(mode)).expect("valid config");
    n.init(0);
    drain(&mut n, 0);
    n
}

/// The host's echo request to the node.
pub fn ping(seq: u16, data: &[u8]) -> Vec<u8> {
    frames::echo_request(host_to_fpga(), 0x1234, seq, data)
}

pub fn host_to_fpga() -> Ends {
    Ends { src_mac: HOST_MAC, dst_mac: FPGA_MAC, src_ip: HOST_IP, dst_ip: FPGA_IP }
}

pub fn drain(n: &mut NetNode, now: u64) -> Vec<Vec<u8>> {
    std::iter::from_fn(|| n.transmit(now)).take(100_000).collect()
}

pub fn snapshot(n: &NetNode) -> Vec<u64> {
    Counter::ALL.iter().map(|c| n.count(*c)).collect()
}

/// Asserts that from `before` to now exactly the counters in `moved` moved, by the amounts given.
pub fn assert_moved(n: &NetNode, before: &[u64], moved: &[(Counter, u64)]) {
    for c in Counter::ALL {
        let want = moved.iter().filter(|(m, _)| *m == c).map(|(_, d)| d).sum::<u64>();
        assert_eq!(n.count(c) - before[c.index()], want, "counter {c} moved wrongly");
    }
}

/// Sends a good echo request at `now` and asserts the one reply to it.
pub fn assert_echo_answered(n: &mut NetNode, now: u64) {
    let before = snapshot(n);
    n.receive(&ping(777, b"still alive"), false, now);
    let out = drain(n, now);
    assert_eq!(out.len(), 1, "the good echo after was not answered");
    let parse::Sent::Echo(e) = parse::parse(&out[0], n.config().mtu).expect("reply parses") else {
        panic!("not an echo reply")
    };
    assert_eq!((e.seq, e.data.as_slice()), (777, &b"still alive"[..]));
    assert_moved(n, &before, &[(Counter::FramesIn, 1), (Counter::FramesOut, 1), (Counter::IcmpEchoesAnswered, 1)]);
}
