//! ARP in the three modes: resolution, retries, failure, learning, silence;
//! `init_done` per mode.

use net_model::frames;
use net_model::{ArpMode, Counter, DropReason, NetNode};

use crate::parse::{self, ArpSeen, Sent};
use crate::*;

fn client(retry: u64, attempts: u32) -> NetNode {
    let mut c = cfg(ArpMode::Client);
    c.arp_retry_cycles = retry;
    c.arp_attempts = attempts;
    NetNode::new(c).unwrap()
}

fn arp_of(f: &[u8]) -> ArpSeen {
    match parse::parse(f, 1500) {
        Ok(Sent::Arp(a)) => a,
        other => panic!("not an ARP frame: {other:?}"),
    }
}

/// The broadcast request for target_ip the client sends.
fn assert_request(f: &[u8]) {
    let want = ArpSeen {
        eth_dst: [0xff; 6],
        eth_src: FPGA_MAC,
        oper: 1,
        sha: FPGA_MAC,
        spa: FPGA_IP,
        tha: [0; 6],
        tpa: HOST_IP,
    };
    assert_eq!(arp_of(f), want);
    assert_eq!(f.len(), 60);
}

fn host_reply() -> Vec<u8> {
    frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP)
}

#[test]
fn init_done_is_never_before_the_first_init() {
    for mode in [ArpMode::Client, ArpMode::Server, ArpMode::FixedMac] {
        let mut n = NetNode::new(cfg(mode)).unwrap();
        assert!(!n.init_done(), "{mode:?}");
        assert_eq!(n.target_mac(), None, "{mode:?}");
        assert_eq!(n.transmit(1_000_000_000), None, "{mode:?}: sent before init");
        n.receive(&host_reply(), false, 1_000_000_001);
        assert!(!n.init_done(), "{mode:?}: a reply before init");
        n.init(1_000_000_002);
        assert_eq!(n.init_done(), mode != ArpMode::Client, "{mode:?}: init_done right after init");
    }
}

#[test]
fn client_resolves_and_stops_asking() {
    let mut n = client(1000, 8);
    n.init(500);
    assert!(!n.init_done() && !n.arp_failed());
    let out = drain(&mut n, 500);
    assert_eq!(out.len(), 1, "the first request goes at init");
    assert_request(&out[0]);
    let before = snapshot(&n);
    n.receive(&host_reply(), false, 1499);
    assert!(n.init_done() && !n.arp_failed());
    assert_eq!(n.target_mac(), Some(HOST_MAC));
    assert_moved(&n, &before, &[(Counter::FramesIn, 1), (Counter::ArpRepliesReceived, 1)]);
    assert!(drain(&mut n, 1_000_000).is_empty(), "asked again after resolving");
    assert_eq!(n.count(Counter::ArpRequestsSent), 1);
    // A second reply (to a retry the host answered late) is ignored.
    n.receive(&frames::arp_reply(OTHER_MAC, HOST_IP, FPGA_MAC, FPGA_IP), false, 1_000_001);
    assert_eq!(n.count(Counter::Dropped(DropReason::ArpReplyIgnored)), 1);
    assert_eq!(n.target_mac(), Some(HOST_MAC));
}

#[test]
fn client_retries_every_retry_cycles_then_fails() {
    let mut n = client(1000, 3);
    n.init(0);
    let mut sent_at = Vec::new();
    for now in 0..5000 {
        for f in drain(&mut n, now) {
            assert_request(&f);
            sent_at.push(now);
        }
        assert_eq!(n.arp_failed(), now >= 3000, "arp_failed at {now}");
    }
    assert_eq!(sent_at, [0, 1000, 2000]);
    assert_eq!(n.count(Counter::ArpRequestsSent), 3);
    assert!(!n.init_done());
    assert_eq!(n.target_mac(), None);
    // A reply after giving up does not resolve.
    n.receive(&host_reply(), false, 5000);
    assert!(!n.init_done() && n.arp_failed());
    assert_eq!(n.count(Counter::Dropped(DropReason::ArpReplyIgnored)), 1);
    // A later init tries again from the start.
    n.init(10_000);
    assert!(!n.arp_failed());
    assert_request(&n.transmit(10_000).expect("a request at the second init"));
    assert_eq!(n.transmit(10_999), None);
    assert_request(&n.transmit(11_000).expect("the retry"));
    n.receive(&host_reply(), false, 11_500);
    assert!(n.init_done() && !n.arp_failed());
    assert_eq!(n.count(Counter::ArpRequestsSent), 5);
}

#[test]
fn a_reply_at_the_end_of_the_last_wait_is_too_late() {
    let mut n = client(100, 1);
    n.init(0);
    drain(&mut n, 0);
    n.receive(&host_reply(), false, 100);
    assert!(n.arp_failed() && !n.init_done());
    let mut n = client(100, 1);
    n.init(0);
    drain(&mut n, 0);
    n.receive(&host_reply(), false, 99);
    assert!(!n.arp_failed() && n.init_done());
}

#[test]
fn a_late_transmit_call_sends_one_request_and_restarts_the_wait() {
    let mut n = client(1000, 8);
    n.init(0);
    drain(&mut n, 0);
    assert_eq!(drain(&mut n, 7777).len(), 1, "one request, not the seven missed");
    assert_eq!(n.transmit(8776), None);
    assert!(n.transmit(8777).is_some());
}

#[test]
fn client_ignores_replies_from_others_and_answers_requests() {
    let mut n = client(1000, 8);
    n.init(0);
    drain(&mut n, 0);
    n.receive(&frames::arp_reply(OTHER_MAC, OTHER_IP, FPGA_MAC, FPGA_IP), false, 1);
    assert!(!n.init_done());
    assert_eq!(n.count(Counter::Dropped(DropReason::ArpReplyIgnored)), 1);
    // Client mode learns from replies only: the target's request is answered but teaches nothing.
    n.receive(&frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP), false, 2);
    assert!(!n.init_done());
    let out = drain(&mut n, 2);
    let want = ArpSeen {
        eth_dst: HOST_MAC,
        eth_src: FPGA_MAC,
        oper: 2,
        sha: FPGA_MAC,
        spa: FPGA_IP,
        tha: HOST_MAC,
        tpa: HOST_IP,
    };
    assert_eq!(arp_of(&out[0]), want);
    assert_eq!(n.count(Counter::ArpRequestsAnswered), 1);
}

#[test]
fn server_learns_from_the_targets_request() {
    let mut n = NetNode::new(cfg(ArpMode::Server)).unwrap();
    n.init(0);
    assert!(n.init_done(), "server mode is done at init");
    assert_eq!(n.target_mac(), None);
    // Another host's request is answered but teaches nothing.
    n.receive(&frames::arp_request(OTHER_MAC, OTHER_IP, FPGA_IP), false, 1);
    assert_eq!(n.target_mac(), None);
    let want = ArpSeen {
        eth_dst: OTHER_MAC,
        eth_src: FPGA_MAC,
        oper: 2,
        sha: FPGA_MAC,
        spa: FPGA_IP,
        tha: OTHER_MAC,
        tpa: OTHER_IP,
    };
    assert_eq!(arp_of(&n.transmit(1).unwrap()), want);
    // The target's request for another address teaches nothing either.
    n.receive(&frames::arp_request(HOST_MAC, HOST_IP, OTHER_IP), false, 2);
    assert_eq!(n.target_mac(), None);
    n.receive(&frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP), false, 3);
    assert_eq!(n.target_mac(), Some(HOST_MAC));
    assert_eq!(arp_of(&n.transmit(3).unwrap()).eth_dst, HOST_MAC);
    assert_eq!(n.count(Counter::ArpRequestsAnswered), 2);
    assert_eq!(n.count(Counter::ArpRequestsSent), 0);
    assert!(drain(&mut n, 1 << 40).is_empty(), "server mode never asks");
    // init forgets what was learnt, keeps the counters.
    n.init(1 << 41);
    assert_eq!(n.target_mac(), None);
    assert!(n.init_done());
    assert_eq!(n.count(Counter::ArpRequestsAnswered), 2);
}

#[test]
fn fixed_mac_sends_no_arp_and_takes_none() {
    let mut n = NetNode::new(cfg(ArpMode::FixedMac)).unwrap();
    n.init(0);
    assert!(n.init_done());
    assert_eq!(n.target_mac(), Some(FIXED_MAC));
    n.receive(&frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP), false, 1);
    n.receive(&host_reply(), false, 2);
    assert!(drain(&mut n, 1 << 40).is_empty());
    assert_eq!(n.count(Counter::Dropped(DropReason::ArpNotForUs)), 2);
    assert_eq!(n.target_mac(), Some(FIXED_MAC));
    assert_echo_answered(&mut n, 1 << 40);
}

/// Time near the end of u64 does not overflow: the last wait ends at u64::MAX.
#[test]
fn time_near_the_end_of_u64() {
    let mut n = client(1000, 2);
    n.init(u64::MAX - 10);
    assert_eq!(drain(&mut n, u64::MAX - 10).len(), 1);
    assert_eq!(drain(&mut n, u64::MAX).len(), 1, "the retry at the saturated due time");
    n.receive(&host_reply(), false, u64::MAX);
    assert!(!n.init_done() && n.arp_failed());
}
