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
//!  frame from the MAC (tdata ... tlast, tuser)          frames_in += 1
//!   |
//!   |  Ethernet     frame_error (tuser) -> runt (< 60) -> oversize (> 14 + mtu)
//!   |               -> not_our_mac (dst not fpga_mac, not broadcast)
//!   |               -> vlan_tag (0x8100, 0x88a8) -> ethertype_unknown
//!   |
//!   +-- 0x0806 ARP  arp_malformed (short; htype 1, ptype 0x0800, hlen 6, plen 4, oper 1|2)
//!   |               -> arp_not_for_us (tpa != fpga_ip, or fixed-MAC mode)
//!   |      request: [server: spa == target_ip teaches target_mac] -> reply ---------+
//!   |      reply:   arp_reply_ignored unless client mode is resolving and          |
//!   |               spa == target_ip -> target_mac, init_done                      |
//!   |                                                                              |
//!   +-- 0x0800 IPv4 ipv4_version -> ipv4_header_length (IHL < 5)                   |
//!                   -> ipv4_options (IHL > 5) -> ipv4_length (total < 20 or        |
//!                   beyond the frame) -> ipv4_checksum -> ipv4_not_for_us          |
//!                   -> ipv4_fragment (MF or offset) -> ipv4_protocol (not 1)       |
//!        ICMP       icmp_truncated (< 8) -> icmp_checksum                          |
//!                   -> icmp_not_echo_request (not type 8 code 0) -> echo reply ----+
//!                                                                                  |
//!  Transmit                                                                        v
//!   client-mode ARP timer: a request every arp_retry_cycles ---> pad to 60 bytes
//!   (arp_attempts of them, then arp_failed)                           |
//!                                                 whole frame fits?  no: tx_buffer_full
//!                                                          | yes         (the request's
//!                                               TX FIFO (tx_buffer_bytes)  ARP timer keeps
//!                                                          |               it due instead)
//!                                               transmit(now) -> MAC     frames_out += 1
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

pub use config::{ArpMode, ConfigError, NodeConfig};
pub use counters::{Counter, DropReason};
pub use node::NetNode;

/// An Ethernet MAC address, first byte first on the wire.
pub type Mac = [u8; 6];
