//! Echo replies for random payloads at MTU 1500 and 9000, checked field by
//! field with the independent parser.

use rand::Rng;

use net_model::frames::{self, Ends};
use net_model::{ArpMode, Counter, NetNode};

use crate::parse::{self, Sent};
use crate::*;

fn echo_at_mtu(mtu: usize) {
    let mut c = cfg(ArpMode::Server);
    c.mtu = mtu;
    c.tx_buffer_bytes = net_model::config::default_tx_buffer_bytes(mtu);
    let mut n = NetNode::new(c).unwrap();
    n.init(0);
    let mut rng = seeded_inputs::seed::rng(&format!("echo at mtu {mtu}"));
    let rounds = 300u64;
    for i in 0..rounds {
        let len = match i {
            0 => 0,
            1 => mtu - 28,
            2 => 18, // 60-byte frame, no padding
            3 => 17, // one byte of padding
            _ => rng.gen_range(0..=mtu - 28),
        };
        let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let (id, seq): (u16, u16) = (rng.gen(), rng.gen());
        let mut src_mac: Mac = rng.gen();
        src_mac[0] &= 0xfe;
        let src_ip = Ipv4Addr::new(10, rng.gen(), rng.gen(), rng.gen_range(1..=254));
        let ends = Ends { src_mac, dst_mac: FPGA_MAC, src_ip, dst_ip: FPGA_IP };
        let request = frames::echo_request(ends, id, seq, &data);
        let now = 100 + i;
        n.receive(&request, false, now);
        let out = drain(&mut n, now);
        assert_eq!(out.len(), 1, "echo of {len} bytes: {} frames out", out.len());
        assert_eq!(out[0].len(), (42 + len).max(60), "echo of {len} bytes: frame length");
        let Sent::Echo(e) = parse::parse(&out[0], mtu).unwrap_or_else(|e| panic!("echo of {len} bytes: {e}")) else {
            panic!("echo of {len} bytes: the answer is not IPv4")
        };
        assert_eq!((e.eth_dst, e.eth_src), (src_mac, FPGA_MAC), "MACs");
        assert_eq!((e.src, e.dst), (FPGA_IP, src_ip), "IPs swapped");
        assert_eq!((e.tos, e.ip_id, e.flags_frag, e.ttl), (0, 0, 0x4000, 64), "IPv4 header: TOS 0, id 0, DF, TTL 64");
        assert_eq!((e.icmp_type, e.code, e.id, e.seq), (0, 0, id, seq), "ICMP header");
        assert!(e.data == data, "echo of {len} bytes: data differs");
    }
    for (c, want) in [(Counter::FramesIn, rounds), (Counter::FramesOut, rounds), (Counter::IcmpEchoesAnswered, rounds)]
    {
        assert_eq!(n.count(c), want, "{c}");
    }
    let dropped: u64 = net_model::DropReason::ALL.iter().map(|r| n.count(Counter::Dropped(*r))).sum();
    assert_eq!(dropped, 0);
}

#[test]
fn echo_replies_at_mtu_1500() {
    echo_at_mtu(1500);
}

#[test]
fn echo_replies_at_mtu_9000() {
    echo_at_mtu(9000);
}

/// A request and its reply written out byte by byte from the RFC 791/792
/// layouts (a Linux ping: id 0x0b0c, sequence 1, 8 bytes of data), with
/// checksums worked by hand: the node's reply must be these bytes exactly.
#[test]
fn known_request_gives_known_reply() {
    #[rustfmt::skip]
    let request: Vec<u8> = vec![
        // Ethernet: dst FPGA_MAC, src HOST_MAC, IPv4
        0x02, 0x00, 0x5e, 0x10, 0x00, 0x01, 0x02, 0x00, 0x5e, 0x10, 0x00, 0x02, 0x08, 0x00,
        // IPv4: 45 00, total 36, id 0x1c46, DF, TTL 64, ICMP, checksum, 10.0.0.1 -> 10.0.0.2
        0x45, 0x00, 0x00, 0x24, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x01, 0x0a, 0x91,
        0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
        // ICMP: echo request, checksum, id 0x0b0c, seq 1, data 01..08
        0x08, 0x00, 0xdc, 0xde, 0x0b, 0x0c, 0x00, 0x01,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        // padding to 60 bytes
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    #[rustfmt::skip]
    let reply: Vec<u8> = vec![
        0x02, 0x00, 0x5e, 0x10, 0x00, 0x02, 0x02, 0x00, 0x5e, 0x10, 0x00, 0x01, 0x08, 0x00,
        // IPv4: id 0, DF, TTL 64, 10.0.0.2 -> 10.0.0.1
        0x45, 0x00, 0x00, 0x24, 0x00, 0x00, 0x40, 0x00, 0x40, 0x01, 0x26, 0xd7,
        0x0a, 0x00, 0x00, 0x02, 0x0a, 0x00, 0x00, 0x01,
        // ICMP: echo reply; the checksum rises by 0x0800 with the type
        0x00, 0x00, 0xe4, 0xde, 0x0b, 0x0c, 0x00, 0x01,
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    ];
    assert_eq!(parse::ones_sum(&request[14..34]), 0xffff, "hand-worked request IPv4 checksum");
    assert_eq!(parse::ones_sum(&request[34..50]), 0xffff, "hand-worked request ICMP checksum");
    let mut n = node(ArpMode::Server);
    n.receive(&request, false, 1);
    assert_eq!(drain(&mut n, 1), vec![reply]);
}
