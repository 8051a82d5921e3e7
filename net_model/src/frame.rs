//! Where every field the node reads or writes sits in a frame, as byte
//! offsets from the first byte of the destination MAC (a vendor MAC hands
//! frames over without preamble and without FCS). One place for the layout:
//! the node, the builders of [`crate::frames`] and, later, the RTL generator
//! use these names, not literal numbers.

/// Ethernet II (IEEE 802.3 with an EtherType): destination, source, type.
pub mod eth {
    /// Destination MAC, 6 bytes.
    pub const DST: usize = 0;
    /// Source MAC, 6 bytes.
    pub const SRC: usize = 6;
    /// EtherType, 2 bytes big-endian.
    pub const ETHERTYPE: usize = 12;
    /// Header length; the payload starts here.
    pub const HEADER_LEN: usize = 14;
    /// The shortest frame without FCS (64 bytes on the wire with it).
    pub const MIN_FRAME_LEN: usize = 60;
    /// EtherType of IPv4.
    pub const TYPE_IPV4: u16 = 0x0800;
    /// EtherType of ARP.
    pub const TYPE_ARP: u16 = 0x0806;
    /// EtherType of an IEEE 802.1Q VLAN tag.
    pub const TYPE_VLAN: u16 = 0x8100;
    /// EtherType of an IEEE 802.1ad service VLAN tag (QinQ).
    pub const TYPE_QINQ: u16 = 0x88a8;
    /// The broadcast address.
    pub const BROADCAST: crate::Mac = [0xff; 6];
}

/// ARP for Ethernet and IPv4 (RFC 826), offsets from the start of the
/// Ethernet payload.
pub mod arp {
    /// Hardware type, 2 bytes: 1 for Ethernet.
    pub const HTYPE: usize = 0;
    /// Protocol type, 2 bytes: 0x0800 for IPv4.
    pub const PTYPE: usize = 2;
    /// Hardware address length, 1 byte: 6.
    pub const HLEN: usize = 4;
    /// Protocol address length, 1 byte: 4.
    pub const PLEN: usize = 5;
    /// Operation, 2 bytes: 1 request, 2 reply.
    pub const OPER: usize = 6;
    /// Sender hardware address, 6 bytes.
    pub const SHA: usize = 8;
    /// Sender protocol address, 4 bytes.
    pub const SPA: usize = 14;
    /// Target hardware address, 6 bytes.
    pub const THA: usize = 18;
    /// Target protocol address, 4 bytes.
    pub const TPA: usize = 24;
    /// Length of the packet.
    pub const LEN: usize = 28;
    /// `HTYPE` of Ethernet.
    pub const HTYPE_ETHERNET: u16 = 1;
    /// `OPER` of a request.
    pub const OPER_REQUEST: u16 = 1;
    /// `OPER` of a reply.
    pub const OPER_REPLY: u16 = 2;
}

/// The IPv4 header (RFC 791), offsets from the start of the Ethernet payload.
pub mod ipv4 {
    /// Version (high nibble) and IHL in 32-bit words (low nibble).
    pub const VERSION_IHL: usize = 0;
    /// DSCP and ECN.
    pub const TOS: usize = 1;
    /// Total length of the packet, header included, 2 bytes.
    pub const TOTAL_LEN: usize = 2;
    /// Identification, 2 bytes.
    pub const ID: usize = 4;
    /// Flags (reserved, DF, MF) and the fragment offset, 2 bytes.
    pub const FLAGS_FRAG: usize = 6;
    /// Time to live.
    pub const TTL: usize = 8;
    /// Protocol of the payload.
    pub const PROTOCOL: usize = 9;
    /// Header checksum, 2 bytes.
    pub const CHECKSUM: usize = 10;
    /// Source address, 4 bytes.
    pub const SRC: usize = 12;
    /// Destination address, 4 bytes.
    pub const DST: usize = 16;
    /// Length of a header without options (IHL 5).
    pub const HEADER_LEN: usize = 20;
    /// The Don't Fragment flag in `FLAGS_FRAG`.
    pub const FLAG_DF: u16 = 0x4000;
    /// The More Fragments flag in `FLAGS_FRAG`.
    pub const FLAG_MF: u16 = 0x2000;
    /// The fragment offset in `FLAGS_FRAG`.
    pub const FRAG_OFFSET_MASK: u16 = 0x1fff;
    /// `PROTOCOL` of ICMP.
    pub const PROTOCOL_ICMP: u8 = 1;
    /// `PROTOCOL` of TCP (part 2).
    pub const PROTOCOL_TCP: u8 = 6;
    /// The TTL the node sends with.
    pub const TTL_SENT: u8 = 64;
}

/// The ICMP echo message (RFC 792), offsets from the start of the IPv4
/// payload.
pub mod icmp {
    /// Type: 8 echo request, 0 echo reply.
    pub const TYPE: usize = 0;
    /// Code: 0 for echo.
    pub const CODE: usize = 1;
    /// Checksum over the whole ICMP message, 2 bytes.
    pub const CHECKSUM: usize = 2;
    /// Identifier, 2 bytes.
    pub const ID: usize = 4;
    /// Sequence number, 2 bytes.
    pub const SEQ: usize = 6;
    /// Length of the echo header; the data starts here.
    pub const HEADER_LEN: usize = 8;
    /// `TYPE` of an echo request.
    pub const TYPE_ECHO_REQUEST: u8 = 8;
    /// `TYPE` of an echo reply.
    pub const TYPE_ECHO_REPLY: u8 = 0;
}

/// The TCP header (RFC 9293, section 3.1), offsets from the start of the
/// IPv4 payload.
pub mod tcp {
    /// Source port, 2 bytes.
    pub const SRC_PORT: usize = 0;
    /// Destination port, 2 bytes.
    pub const DST_PORT: usize = 2;
    /// Sequence number, 4 bytes.
    pub const SEQ: usize = 4;
    /// Acknowledgment number, 4 bytes.
    pub const ACK: usize = 8;
    /// Data offset in 32-bit words (high nibble) and reserved bits.
    pub const DATA_OFFSET: usize = 12;
    /// The control bits (CWR ECE URG ACK PSH RST SYN FIN, high to low).
    pub const FLAGS: usize = 13;
    /// Window, 2 bytes (scaled by the window-scale shift after the SYNs).
    pub const WINDOW: usize = 14;
    /// Checksum over the pseudo-header, the header and the data, 2 bytes.
    pub const CHECKSUM: usize = 16;
    /// Urgent pointer, 2 bytes (not used by the engine).
    pub const URGENT: usize = 18;
    /// Length of a header without options (data offset 5).
    pub const HEADER_LEN: usize = 20;
    /// The longest header: data offset 15.
    pub const MAX_HEADER_LEN: usize = 60;
    /// FIN: no more data from the sender.
    pub const FIN: u8 = 0x01;
    /// SYN: synchronise sequence numbers.
    pub const SYN: u8 = 0x02;
    /// RST: reset the connection.
    pub const RST: u8 = 0x04;
    /// PSH: push the data to the receiving application.
    pub const PSH: u8 = 0x08;
    /// ACK: the acknowledgment field is significant.
    pub const ACK_FLAG: u8 = 0x10;
    /// Option kind: end of the option list.
    pub const OPT_END: u8 = 0;
    /// Option kind: no operation (padding).
    pub const OPT_NOP: u8 = 1;
    /// Option kind: maximum segment size (length 4), SYN only.
    pub const OPT_MSS: u8 = 2;
    /// Option kind: window scale (length 3), SYN only (RFC 7323).
    pub const OPT_WINDOW_SCALE: u8 = 3;
    /// Option kind: SACK permitted (length 2), SYN only (RFC 2018).
    pub const OPT_SACK_PERMITTED: u8 = 4;
    /// Option kind: SACK blocks (length 2 + 8 per block: left edge, right edge; RFC 2018).
    pub const OPT_SACK: u8 = 5;
    /// Option kind: timestamps (length 10: TSval, TSecr; RFC 7323).
    pub const OPT_TIMESTAMPS: u8 = 8;
    /// The largest window-scale shift (RFC 7323, section 2.3).
    pub const MAX_WINDOW_SCALE: u8 = 14;
    /// The MSS assumed when a SYN carries none (RFC 9293, section 3.7.1).
    pub const DEFAULT_MSS: u16 = 536;
}

/// The big-endian 16-bit field at `at`.
pub(crate) fn be16(bytes: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([bytes[at], bytes[at + 1]])
}

/// The 6 bytes at `at` as a MAC.
pub(crate) fn mac_at(bytes: &[u8], at: usize) -> crate::Mac {
    let mut mac = [0; 6];
    mac.copy_from_slice(&bytes[at..at + 6]);
    mac
}

/// The 4 bytes at `at` as an IPv4 address.
pub(crate) fn ip_at(bytes: &[u8], at: usize) -> std::net::Ipv4Addr {
    std::net::Ipv4Addr::new(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3])
}
