//! The transmit buffer: whole frames only, in order; what does not fit is
//! dropped and counted.

use rand::Rng;

use net_model::frames;
use net_model::{ArpMode, Counter, DropReason, NetNode};

use crate::parse::{self, Sent};
use crate::*;

#[test]
fn exactly_the_answers_that_fit_are_sent_in_order() {
    let mut n = node(ArpMode::Server);
    let capacity = n.config().tx_buffer_bytes;
    assert_eq!(capacity, 4096);
    let mut rng = seeded_inputs::seed::rng("tx buffer full");
    let mut used = 0;
    let mut want = Vec::new();
    let mut full = 0;
    for seq in 0..40u16 {
        let len = match seq {
            0 => 1472, // two full frames (3028 bytes), then a third does not fit
            1 => 1472,
            2 => 1472,
            3 => 1026, // 1068 bytes: the buffer is exactly full
            4 => 0,    // so not even a 60-byte frame fits
            _ => rng.gen_range(0..=1472),
        };
        let frame_len = (42 + len).max(60);
        if used + frame_len <= capacity {
            used += frame_len;
            want.push(seq);
        } else {
            full += 1;
        }
        n.receive(&ping(seq, &vec![seq as u8; len]), false, 1);
        assert_eq!(n.tx_buffer_used(), used, "after echo {seq}");
    }
    assert_eq!(want[..3], [0, 1, 3]);
    assert!(full > 10, "the test must overflow the buffer ({full})");
    assert_eq!(n.count(Counter::Dropped(DropReason::TxBufferFull)), full);
    assert_eq!(n.count(Counter::IcmpEchoesAnswered), want.len() as u64);
    let sent: Vec<u16> = drain(&mut n, 2)
        .iter()
        .map(|f| match parse::parse(f, 1500) {
            Ok(Sent::Echo(e)) => {
                assert!(e.data.iter().all(|b| *b == e.seq as u8), "reply {} is not whole", e.seq);
                e.seq
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(sent, want);
    assert_eq!(n.tx_buffer_used(), 0);
    assert_echo_answered(&mut n, 3);
}

#[test]
fn an_arp_reply_that_does_not_fit_is_dropped() {
    let mut n = node(ArpMode::Server);
    n.receive(&ping(1, &[0; 1472]), false, 1);
    n.receive(&ping(2, &[0; 1472]), false, 1);
    n.receive(&ping(3, &[0; 1000]), false, 1);
    let before = snapshot(&n);
    n.receive(&frames::arp_request(HOST_MAC, HOST_IP, FPGA_IP), false, 1);
    assert_moved(&n, &before, &[(Counter::FramesIn, 1), (Counter::Dropped(DropReason::TxBufferFull), 1)]);
    assert_eq!(n.target_mac(), Some(HOST_MAC), "learning does not depend on the reply fitting");
    assert_eq!(drain(&mut n, 1).len(), 3);
}

#[test]
fn a_client_request_waits_for_room() {
    let mut c = cfg(ArpMode::Client);
    c.arp_retry_cycles = 100;
    let mut n = NetNode::new(c).unwrap();
    for seq in 0..3 {
        n.receive(&ping(seq, &[0; 1320]), false, 0);
    }
    assert_eq!(n.tx_frames_waiting(), 3, "3 * 1362 bytes fit in 4096, a 60-byte request more does not");
    n.init(10);
    assert_eq!(n.count(Counter::ArpRequestsSent), 0, "no room at init");
    assert!(n.transmit(50).is_some()); // room made after the tick of cycle 50
    assert_eq!(n.count(Counter::ArpRequestsSent), 0);
    assert!(n.transmit(60).is_some()); // the tick of 60 finds room
    assert_eq!(n.count(Counter::ArpRequestsSent), 1);
    let rest = drain(&mut n, 60);
    assert_eq!(rest.len(), 2);
    assert!(matches!(parse::parse(&rest[1], 1500), Ok(Sent::Arp(_))), "the request goes after the replies");
    assert_eq!(n.transmit(159), None);
    assert!(n.transmit(160).is_some(), "the retry wait starts when the request went in");
    let dropped: u64 = DropReason::ALL.iter().map(|r| n.count(Counter::Dropped(*r))).sum();
    assert_eq!(dropped, 0);
}
