//! Arbitrary and mutated frames: nothing panics, every frame is accounted
//! for exactly once, and everything sent parses.

use rand::seq::SliceRandom;
use rand::Rng;

use net_model::frames::{self, Ends};
use net_model::{ArpMode, Counter, DropReason, NetNode};

use crate::parse;
use crate::*;

fn seeds(rng: &mut impl Rng) -> Vec<u8> {
    let data: Vec<u8> = (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect();
    let mut f = match rng.gen_range(0..5) {
        0 => frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP),
        1 => frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP),
        2 => frames::echo_reply(host_to_fpga(), 1, 2, &data),
        3 => frames::echo_request(Ends { dst_mac: [0xff; 6], ..host_to_fpga() }, 3, 4, &data),
        _ => ping(5, &data),
    };
    for _ in 0..rng.gen_range(0..4) {
        match rng.gen_range(0..6) {
            0 if !f.is_empty() => {
                let i = rng.gen_range(0..f.len());
                f[i] = rng.gen();
            }
            1 if !f.is_empty() => {
                let i = rng.gen_range(0..f.len());
                f[i] ^= 1 << rng.gen_range(0..8);
            }
            2 => f.truncate(rng.gen_range(0..=f.len())),
            3 => f.extend((0..rng.gen_range(0..64)).map(|_| rng.gen::<u8>())),
            4 => frames::fix_ipv4_checksum(&mut f),
            _ => frames::fix_icmp_checksum(&mut f),
        }
    }
    f
}

#[test]
fn arbitrary_frames_never_panic_and_are_accounted_for() {
    let mut rng = seeded_inputs::seed::rng("net_model fuzz");
    for mode in [ArpMode::Client, ArpMode::Server, ArpMode::FixedMac] {
        let mut c = cfg(mode);
        c.arp_retry_cycles = 50;
        let mut n = NetNode::new(c).unwrap();
        let mut now = 0;
        for i in 0..3000 {
            if i % 500 == 0 {
                n.init(now);
            }
            let frame: Vec<u8> = if rng.gen_bool(0.3) {
                let len = *[0usize, 1, 13, 14, 59, 60, 61, 1514, 1515, 9100].choose(&mut rng).unwrap();
                let len = if rng.gen_bool(0.5) { len } else { rng.gen_range(0..1600) };
                (0..len).map(|_| rng.gen()).collect()
            } else {
                seeds(&mut rng)
            };
            n.receive(&frame, rng.gen_bool(0.05), now);
            now += rng.gen_range(0..40);
            if rng.gen_bool(0.7) {
                for f in drain(&mut n, now) {
                    if let Err(e) = parse::parse(&f, 1500) {
                        panic!("{mode:?}: the node sent a bad frame ({e}): {f:02x?}");
                    }
                }
            }
        }
        let dropped: u64 = DropReason::ALL.iter().map(|r| n.count(Counter::Dropped(*r))).sum();
        let taken = n.count(Counter::ArpRequestsAnswered)
            + n.count(Counter::ArpRepliesReceived)
            + n.count(Counter::IcmpEchoesAnswered);
        assert_eq!(n.count(Counter::FramesIn), 3000, "{mode:?}");
        assert_eq!(dropped + taken, 3000, "{mode:?}: every frame once, as a drop or taken");
        assert!(n.count(Counter::IcmpEchoesAnswered) > 100, "{mode:?}: the mutations must leave good frames too");
        assert!(dropped > 1000, "{mode:?}: and bad ones");
    }
}
