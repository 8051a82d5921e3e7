//! Every drop reason: the exact counter moves, nothing is sent, and the next
//! good echo is answered. Then frames that fail several checks count under
//! the first.

use net_model::frames::{self, Ends};
use net_model::{ArpMode, Counter, DropReason, NetNode};

use crate::*;

/// A good echo request changed by `edit`; the IPv4 header checksum is fixed
/// afterwards unless `keep_checksum`.
fn ping_edited(edit: impl FnOnce(&mut Vec<u8>), fix: bool) -> Vec<u8> {
    let mut f = ping(1, b"abcdefgh");
    edit(&mut f);
    if fix {
        frames::fix_ipv4_checksum(&mut f);
    }
    f
}

fn arp_edited(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut f = frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP);
    edit(&mut f);
    f
}

/// An echo request with 4 bytes of options (IHL 6), all checksums valid.
fn ping_with_options() -> Vec<u8> {
    let mut f = ping(1, b"abcdefgh");
    f.splice(34..34, [1, 1, 1, 0]); // NOP, NOP, NOP, end of options
    f[14] = 0x46;
    let total = u16::from_be_bytes([f[16], f[17]]) + 4;
    f[16..18].copy_from_slice(&total.to_be_bytes());
    frames::fix_ipv4_checksum(&mut f);
    f
}

struct Case {
    what: &'static str,
    reason: DropReason,
    mode: ArpMode,
    frame: Vec<u8>,
    frame_error: bool,
}

fn case(what: &'static str, reason: DropReason, frame: Vec<u8>) -> Case {
    Case { what, reason, mode: ArpMode::Server, frame, frame_error: false }
}

fn cases() -> Vec<Case> {
    use DropReason::*;
    let mtu = cfg(ArpMode::Server).mtu;
    let oversize_data = vec![0x5a; mtu - 28 + 1];
    vec![
        Case { frame_error: true, ..case("good echo with tuser", FrameError, ping(1, b"x")) },
        case("59 bytes", Runt, ping(1, b"")[..59].to_vec()),
        case("empty", Runt, Vec::new()),
        case("echo of mtu - 27 data bytes", Oversize, ping(1, &oversize_data)),
        case("another unicast MAC", NotOurMac, ping_edited(|f| f[..6].copy_from_slice(&OTHER_MAC), false)),
        case("multicast MAC", NotOurMac, ping_edited(|f| f[..6].copy_from_slice(&[1, 0, 0x5e, 0, 0, 1]), false)),
        case("802.1Q", VlanTag, ping_edited(|f| f[12..14].copy_from_slice(&[0x81, 0x00]), false)),
        case("802.1ad", VlanTag, ping_edited(|f| f[12..14].copy_from_slice(&[0x88, 0xa8]), false)),
        case("IPv6", EtherTypeUnknown, ping_edited(|f| f[12..14].copy_from_slice(&[0x86, 0xdd]), false)),
        case("ARP htype 6", ArpMalformed, arp_edited(|f| f[15] = 6)),
        case("ARP ptype 0x86dd", ArpMalformed, arp_edited(|f| f[16..18].copy_from_slice(&[0x86, 0xdd]))),
        case("ARP hlen 8", ArpMalformed, arp_edited(|f| f[18] = 8)),
        case("ARP plen 16", ArpMalformed, arp_edited(|f| f[19] = 16)),
        case("ARP oper 3", ArpMalformed, arp_edited(|f| f[21] = 3)),
        case("ARP oper 0", ArpMalformed, arp_edited(|f| f[21] = 0)),
        case("ARP request for another IP", ArpNotForUs, frames::arp_request(HOST_MAC, HOST_IP, OTHER_IP)),
        Case {
            mode: ArpMode::FixedMac,
            ..case(
                "ARP request for fpga_ip, fixed-MAC mode",
                ArpNotForUs,
                frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP),
            )
        },
        Case {
            mode: ArpMode::FixedMac,
            ..case("ARP reply, fixed-MAC mode", ArpNotForUs, frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP))
        },
        case("ARP reply, server mode", ArpReplyIgnored, frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP)),
        Case {
            mode: ArpMode::Client,
            ..case(
                "ARP reply, client mode already resolved",
                ArpReplyIgnored,
                frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP),
            )
        },
        case("version 6", Ipv4Version, ping_edited(|f| f[14] = 0x65, true)),
        case("IHL 4", Ipv4HeaderLength, ping_edited(|f| f[14] = 0x44, true)),
        case("IHL 0", Ipv4HeaderLength, ping_edited(|f| f[14] = 0x40, true)),
        case("IHL 6 with options", Ipv4Options, ping_with_options()),
        case("total length 19", Ipv4Length, ping_edited(|f| f[16..18].copy_from_slice(&19u16.to_be_bytes()), true)),
        case("total length beyond the frame", Ipv4Length, {
            let f = ping(1, &[7; 100]);
            f[..f.len() - 1].to_vec()
        }),
        case("header checksum off by one", Ipv4Checksum, ping_edited(|f| f[25] ^= 1, false)),
        case("to another IP", Ipv4NotForUs, {
            let ends = Ends { dst_ip: OTHER_IP, ..host_to_fpga() };
            frames::echo_request(ends, 1, 1, b"abcdefgh")
        }),
        case("MF set", Ipv4Fragment, ping_edited(|f| f[20] |= 0x20, true)),
        case("offset 1", Ipv4Fragment, ping_edited(|f| f[21] = 1, true)),
        case("last fragment, offset 0x1000", Ipv4Fragment, ping_edited(|f| f[20] = 0x50, true)),
        case("TCP", Ipv4Protocol, ping_edited(|f| f[23] = 6, true)),
        case("UDP", Ipv4Protocol, ping_edited(|f| f[23] = 17, true)),
        case("ICMP of 7 bytes", IcmpTruncated, ping_edited(|f| f[16..18].copy_from_slice(&27u16.to_be_bytes()), true)),
        case("ICMP of 0 bytes", IcmpTruncated, ping_edited(|f| f[16..18].copy_from_slice(&20u16.to_be_bytes()), true)),
        case("ICMP checksum off by one", IcmpChecksum, ping_edited(|f| f[37] ^= 1, false)),
        case("ICMP data changed", IcmpChecksum, ping_edited(|f| f[45] ^= 0x80, false)),
        case("echo reply", IcmpNotEchoRequest, frames::echo_reply(host_to_fpga(), 1, 1, b"abcdefgh")),
        case("echo request code 1", IcmpNotEchoRequest, {
            let mut f = ping(1, b"abcdefgh");
            f[35] = 1;
            frames::fix_icmp_checksum(&mut f);
            f
        }),
        case("destination unreachable", IcmpNotEchoRequest, {
            let mut f = ping(1, b"abcdefgh");
            f[34] = 3;
            frames::fix_icmp_checksum(&mut f);
            f
        }),
    ]
}

fn run(c: &Case, n: &mut NetNode) {
    let before = snapshot(n);
    n.receive(&c.frame, c.frame_error, 10);
    assert_moved(n, &before, &[(Counter::FramesIn, 1), (Counter::Dropped(c.reason), 1)]);
    assert_eq!(n.transmit(10), None, "{}: something was sent", c.what);
}

#[test]
fn each_reason_moves_its_counter_only_and_sends_nothing() {
    let cases = cases();
    for c in &cases {
        let mut n = node(c.mode);
        assert!(n.init_done() || c.mode == ArpMode::Client, "{}", c.what);
        if c.mode == ArpMode::Client {
            n.receive(&frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP), false, 1);
            assert!(n.init_done());
        }
        run(c, &mut n);
        assert_echo_answered(&mut n, 20);
    }
    // Every reason but the transmit buffer's (txbuf.rs) has a case here.
    for r in DropReason::ALL.iter().filter(|r| **r != DropReason::TxBufferFull) {
        assert!(cases.iter().any(|c| c.reason == *r), "no case for {r}");
    }
}

/// The good frames the cases are made from are answered: each case fails
/// for the one change made to it.
#[test]
fn the_unchanged_frames_are_taken() {
    let mut n = node(ArpMode::Server);
    let before = snapshot(&n);
    n.receive(&ping(1, b"abcdefgh"), false, 1);
    n.receive(&frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP), false, 1);
    assert_eq!(drain(&mut n, 1).len(), 2);
    let moved = [
        (Counter::FramesIn, 2),
        (Counter::FramesOut, 2),
        (Counter::IcmpEchoesAnswered, 1),
        (Counter::ArpRequestsAnswered, 1),
    ];
    assert_moved(&n, &before, &moved);
}

/// A frame that fails several checks counts under the first in the order.
#[test]
fn the_first_failed_check_names_the_reason() {
    use DropReason::*;
    let bad_everything = {
        // Runt, not our MAC, unknown EtherType.
        let mut f = ping(1, b"")[..40].to_vec();
        f[..6].copy_from_slice(&OTHER_MAC);
        f[12] = 0x12;
        f
    };
    let not_for_us_and_bad_checksum = {
        let ends = Ends { dst_ip: OTHER_IP, ..host_to_fpga() };
        let mut f = frames::echo_request(ends, 1, 1, b"abcdefgh");
        f[24] ^= 0xff;
        f
    };
    let fragment_of_tcp = ping_edited(
        |f| {
            f[20] |= 0x20;
            f[23] = 6;
        },
        true,
    );
    let truncated_reply = {
        let mut f = frames::echo_reply(host_to_fpga(), 1, 1, b"");
        f[16..18].copy_from_slice(&27u16.to_be_bytes());
        frames::fix_ipv4_checksum(&mut f);
        f
    };
    let cases = [
        (FrameError, bad_everything.clone(), true),
        (Runt, bad_everything, false),
        (
            Oversize,
            ping_edited(
                |f| {
                    f.extend(vec![0; 1500]);
                    f[..6].copy_from_slice(&OTHER_MAC);
                },
                false,
            ),
            false,
        ),
        (Ipv4Checksum, not_for_us_and_bad_checksum, false),
        (Ipv4Fragment, fragment_of_tcp, false),
        (IcmpTruncated, truncated_reply, false),
        (
            ArpMalformed,
            arp_edited(|f| {
                f[18] = 8; // hlen
                f[41] = 99; // tpa
            }),
            false,
        ),
    ];
    for (reason, frame, err) in cases {
        let mut n = node(ArpMode::Server);
        let before = snapshot(&n);
        n.receive(&frame, err, 1);
        assert_moved(&n, &before, &[(Counter::FramesIn, 1), (Counter::Dropped(reason), 1)]);
    }
}

/// Bytes after the IPv4 total length are Ethernet padding: taken, and not echoed.
#[test]
fn trailing_padding_is_ignored() {
    let mut n = node(ArpMode::Server);
    let mut f = ping(9, b"abc");
    assert_eq!(f.len(), 60);
    f[45..].fill(0xee);
    f.extend([0xee; 40]);
    n.receive(&f, false, 1);
    let out = drain(&mut n, 1);
    let parse::Sent::Echo(e) = parse::parse(&out[0], 1500).unwrap() else { panic!("not an echo") };
    assert_eq!(e.data, b"abc");
}
