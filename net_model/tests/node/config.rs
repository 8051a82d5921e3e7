//! Each configuration field out of range: the exact message names the field and its range.

use std::net::Ipv4Addr;

use net_model::{ArpMode, NetNode, NodeConfig};

use crate::*;

#[test]
fn defaults_are_valid_and_documented() {
    let c = cfg(ArpMode::Client);
    assert_eq!((c.mtu, c.arp_retry_cycles, c.arp_attempts, c.tx_buffer_bytes), (1500, 250_000, 8, 4096));
    assert_eq!(c.validate(), Ok(()));
    assert_eq!(net_model::config::default_tx_buffer_bytes(9000), 20480);
    assert_eq!(net_model::config::default_tx_buffer_bytes(576), 4096);
    assert_eq!(net_model::config::default_tx_buffer_bytes(2034), 4096, "2 * 2048 is exactly one block");
}

/// A change to a valid configuration.
type Edit = Box<dyn Fn(&mut NodeConfig)>;

#[test]
fn each_field_out_of_range_is_named_with_its_range() {
    let edits: Vec<(Edit, &str)> = vec![
        (Box::new(|c| c.mtu = 100), "mtu = 100 is out of range: 576 ..= 9000"),
        (Box::new(|c| c.mtu = 9001), "mtu = 9001 is out of range: 576 ..= 9000"),
        (Box::new(|c| c.arp_retry_cycles = 0), "arp_retry_cycles = 0 is out of range: 1 ..= 4294967295"),
        (Box::new(|c| c.arp_retry_cycles = 1 << 32), "arp_retry_cycles = 4294967296 is out of range: 1 ..= 4294967295"),
        (Box::new(|c| c.arp_attempts = 0), "arp_attempts = 0 is out of range: 1 ..= 255"),
        (Box::new(|c| c.arp_attempts = 256), "arp_attempts = 256 is out of range: 1 ..= 255"),
        (
            Box::new(|c| c.tx_buffer_bytes = 3027),
            "tx_buffer_bytes = 3027 is out of range: 3028 ..= 1048576 (at least two frames of 14 + mtu bytes)",
        ),
        (
            Box::new(|c| {
                c.mtu = 9000;
                c.tx_buffer_bytes = 4096;
            }),
            "tx_buffer_bytes = 4096 is out of range: 18028 ..= 1048576 (at least two frames of 14 + mtu bytes)",
        ),
        (
            Box::new(|c| c.tx_buffer_bytes = (1 << 20) + 1),
            "tx_buffer_bytes = 1048577 is out of range: 3028 ..= 1048576 (at least two frames of 14 + mtu bytes)",
        ),
        (
            Box::new(|c| c.fpga_mac = [0x01, 0, 0x5e, 0, 0, 1]),
            "fpga_mac = 01:00:5e:00:00:01 is not a unicast MAC: the group bit (bit 0 of the first byte) must be 0 \
             and the MAC not all zero",
        ),
        (
            Box::new(|c| c.fpga_mac = [0; 6]),
            "fpga_mac = 00:00:00:00:00:00 is not a unicast MAC: the group bit (bit 0 of the first byte) must be 0 \
             and the MAC not all zero",
        ),
        (
            Box::new(|c| c.fpga_ip = Ipv4Addr::new(0, 0, 0, 0)),
            "fpga_ip = 0.0.0.0 is out of range: 1.0.0.0 ..= 223.255.255.255 (a unicast address)",
        ),
        (
            Box::new(|c| c.target_ip = Ipv4Addr::new(224, 0, 0, 1)),
            "target_ip = 224.0.0.1 is out of range: 1.0.0.0 ..= 223.255.255.255 (a unicast address)",
        ),
        (
            Box::new(|c| c.target_ip = Ipv4Addr::BROADCAST),
            "target_ip = 255.255.255.255 is out of range: 1.0.0.0 ..= 223.255.255.255 (a unicast address)",
        ),
        (Box::new(|c| c.target_ip = FPGA_IP), "target_ip = 10.0.0.2 is fpga_ip: the target must be another host"),
        (
            Box::new(|c| {
                c.mode = ArpMode::FixedMac;
                c.target_mac = [0xff; 6];
            }),
            "target_mac = ff:ff:ff:ff:ff:ff is not a unicast MAC: the group bit (bit 0 of the first byte) must be 0 \
             and the MAC not all zero",
        ),
    ];
    for (edit, want) in edits {
        let mut c = cfg(ArpMode::Client);
        edit(&mut c);
        assert_eq!(c.validate().unwrap_err().to_string(), want);
        assert_eq!(NetNode::new(c).unwrap_err().to_string(), want, "new checks too");
    }
    // target_mac only matters in fixed-MAC mode.
    let mut c = cfg(ArpMode::Server);
    c.target_mac = [0xff; 6];
    assert_eq!(c.validate(), Ok(()));
    // The ends of each range are valid.
    let mut c = cfg(ArpMode::Client);
    (c.mtu, c.arp_retry_cycles, c.arp_attempts, c.tx_buffer_bytes) = (9000, u64::from(u32::MAX), 255, 18028);
    assert_eq!(c.validate(), Ok(()));
    (c.mtu, c.arp_retry_cycles, c.arp_attempts, c.tx_buffer_bytes) = (576, 1, 1, 1 << 20);
    assert_eq!(c.validate(), Ok(()));
}

#[test]
fn toe_mode_values() {
    for m in [ArpMode::Client, ArpMode::Server, ArpMode::FixedMac] {
        assert_eq!(ArpMode::from_toe_mode(m.toe_mode()), Ok(m));
    }
    assert_eq!(
        ArpMode::from_toe_mode(3).unwrap_err().to_string(),
        "toe_mode = 3 is out of range: 0 ..= 2 (0 client, 1 server, 2 fixed MAC)"
    );
}
