//! Plain-Rust model of the open TCP engine's network node, part 1: Ethernet
//! II, ARP (RFC 826), IPv4 (RFC 791) and ICMP echo (RFC 792). Its RTL will be
//! checked against this model frame for frame; until then the Linux kernel
//! pings the model through a TAP device (`tap_harness`).
//!
//! Frames arrive as a vendor MAC presents them: no preamble, no FCS, `tuser`
//! set when the FCS was bad. Time is counted in user-clock cycles (`now`),
//! never decreasing; it drives only client-mode ARP retries.
//!
//! # Receive: the checks, in order
//!
//! ```text
//!  frame from the MAC (tdata ... tlast, tuser)                frames_in += 1
//!   |
//!   |  frame      frame_error (tuser) -> runt (< 60) -> oversize (> 14 + mtu)
//!   |  Ethernet   -> not_our_mac (dst neither fpga_mac nor broadcast)
//!   |             -> vlan_tag (0x8100, 0x88a8) -> ethertype_unknown
//!   |
//!   +-- 0x0806 ARP   arp_malformed (short; htype 1, ptype 0x0800, hlen 6,
//!   |                plen 4, oper 1 or 2) -> arp_not_for_us (tpa != fpga_ip,
//!   |                or fixed-MAC mode)
//!   |     request:   [server: spa == target_ip teaches target_mac] ------> ARP reply
//!   |     reply:     arp_reply_ignored unless client mode is resolving
//!   |                and spa == target_ip; then target_mac, init_done
//!   |
//!   +-- 0x0800 IPv4  ipv4_version -> ipv4_header_length (IHL < 5)
//!                    -> ipv4_options (IHL > 5) -> ipv4_length (total < 20 or
//!                    beyond the frame) -> ipv4_checksum -> ipv4_not_for_us
//!                    -> ipv4_fragment (MF or offset) -> ipv4_protocol (not 1)
//!         ICMP       icmp_truncated (< 8) -> icmp_checksum
//!                    -> icmp_not_echo_request (not type 8 code 0) -> echo reply
//!
//!  ARP reply, echo reply ------------------+
//!  client-mode ARP timer: a request at  ---+--> pad to 60 --> fits whole in the
//!  init, then arp_retry_cycles after the         bytes         FIFO (tx_buffer_bytes)?
//!  last; after arp_attempts, arp_failed                          |yes         |no
//!                                                                v            v
//!                         MAC <-- transmit(now) <-- FIFO      answer: dropped, tx_buffer_full
//!                                 frames_out += 1             request: stays due, next tick
//! ```
//!
//! A dropped frame counts under exactly one [`DropReason`]: the first check
//! it fails, in the order of [`DropReason::ALL`] (the diagram, left to right,
//! top to bottom). The order is the one a streaming parser meets the layers
//! in: the frame as a whole, then Ethernet, then ARP or IPv4, then ICMP.
//! Within a layer the shape comes first, then its integrity (the checksum),
//! then what the verified fields mean (address, fragment, protocol, type):
//! a field behind a bad checksum is not trusted enough to name the reason.
//! `tuser` and the frame length are only known at `tlast`, so the RTL
//! stores the frame, raises every flag as it streams, and picks the first
//! raised flag of this order at `tlast`; the model checks the same order.
//! Bytes beyond an IPv4 packet's total length are Ethernet padding and ignored.
//!
//! The order, as numbered register fields will have it: 1 frame_error,
//! 2 runt, 3 oversize, 4 not_our_mac, 5 vlan_tag, 6 ethertype_unknown,
//! 7 arp_malformed, 8 arp_not_for_us, 9 arp_reply_ignored, 10 ipv4_version,
//! 11 ipv4_header_length, 12 ipv4_options, 13 ipv4_length, 14 ipv4_checksum,
//! 15 ipv4_not_for_us, 16 ipv4_fragment, 17 ipv4_protocol, 18 icmp_truncated,
//! 19 icmp_checksum, 20 icmp_not_echo_request, 21 tx_buffer_full (the answer
//! of a frame that passed every check). A frame error comes first because
//! nothing in a frame with a bad FCS can be believed. An ARP packet "too
//! short" cannot reach the ARP checks (a frame past the runt check carries
//! at least 46 bytes), but the check stays so the order does not depend on
//! the runt limit.
//!
//! # Answers
//!
//! - ARP request for fpga_ip (client and server mode): a reply from fpga_mac
//!   to the requester's sender hardware address (Ethernet destination and
//!   `tha` both). Fixed-MAC mode sends no ARP frame and drops every ARP.
//! - ICMP echo request to fpga_ip: an echo reply to the request's source MAC
//!   with the addresses swapped, type 0, identifier, sequence and data byte
//!   for byte, a fresh ICMP checksum; the IPv4 header is TOS 0,
//!   identification 0, DF set (RFC 6864: an atomic datagram needs no unique
//!   identification), TTL 64, a fresh header checksum.
//! - A frame shorter than 60 bytes is padded with zeros to 60.
//! - The transmit buffer holds whole frames (their padded length counts);
//!   an answer that does not fit is dropped and counted under
//!   [`DropReason::TxBufferFull`], never half-sent. A client-mode ARP
//!   request that does not fit is not a drop: it stays due and goes as soon
//!   as it fits (its retry wait starts then).
//!
//! # The target and `init`
//!
//! [`NetNode::init`] (`toe_init`) forgets the target's MAC and any
//! resolution in progress and keeps the counters. Client mode then sends a
//! broadcast request for target_ip at once and every `arp_retry_cycles`
//! after the previous one, until a reply from target_ip arrives
//! ([`NetNode::init_done`]) or `arp_attempts` requests each waited
//! `arp_retry_cycles` unanswered ([`NetNode::arp_failed`]). A reply that
//! arrives at the very cycle the wait ends is too late. Client mode learns
//! the MAC from replies only, not from the target's own requests. Server mode
//! is done at once and learns the MAC from every ARP request of target_ip for
//! fpga_ip; fixed-MAC mode is done at once with the configured MAC. Before
//! the first `init` the node already answers ARP and echo requests (they need
//! no target), but `init_done` is false.
//!
//! # Example
//!
//! ```
//! use std::net::Ipv4Addr;
//! use net_model::frames::{self, Ends};
//! use net_model::{ArpMode, Counter, NetNode, NodeConfig};
//!
//! let (fpga_mac, host_mac) = ([0x02, 0, 0, 0, 0, 1], [0x02, 0, 0, 0, 0, 2]);
//! let (fpga_ip, host_ip) = (Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 0, 0, 1));
//! let mut node = NetNode::new(NodeConfig::new(fpga_mac, fpga_ip, host_ip, ArpMode::Server))?;
//! node.init(0);
//! assert!(node.init_done());
//!
//! let ends = Ends { src_mac: host_mac, dst_mac: fpga_mac, src_ip: host_ip, dst_ip: fpga_ip };
//! node.receive(&frames::echo_request(ends, 1, 1, b"ping"), false, 10);
//! let reply = node.transmit(11).expect("an echo reply");
//! assert_eq!(&reply[..6], &host_mac);
//! assert_eq!(node.count(Counter::IcmpEchoesAnswered), 1);
//! # Ok::<(), net_model::ConfigError>(())
//! ```
//!
//! # Part 2 (TCP)
//!
//! Protocol 6 to fpga_ip from target_ip will go to the TCP engine instead of
//! [`DropReason::Ipv4Protocol`], with its own checks and counters after the
//! IPv4 ones (TCP checksum over the pseudo-header, port, connection state);
//! the engine's segments to target_mac will share the transmit buffer with
//! the node's answers, and `init_done` will gate opening connections.

pub mod checksum;
pub mod config;
pub mod counters;
pub mod frame;
pub mod frames;
pub mod node;
pub mod tcp;

pub use config::{ArpMode, ConfigError, NodeConfig};
pub use counters::{Counter, DropReason};
pub use node::NetNode;

/// An Ethernet MAC address, first byte first on the wire.
pub type Mac = [u8; 6];
