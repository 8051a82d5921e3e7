//! The node's counters: one `u64` each, never reset by `init`. The RTL will
//! have one register field per counter, named by [`Counter::name`] and
//! documented by [`Counter::doc`]; [`Counter::ALL`] is their fixed order.

use std::fmt;

/// Why a received frame was dropped. A frame counts under exactly one
/// reason: the first check it fails, in the order of [`DropReason::ALL`]
/// (the order of the crate docs' receive diagram).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropReason {
    /// The MAC flagged the frame (`tuser`): bad FCS or a receive error.
    FrameError,
    /// Shorter than 60 bytes (64 with FCS).
    Runt,
    /// Longer than 14 + mtu bytes.
    Oversize,
    /// Destination MAC neither ours nor broadcast.
    NotOurMac,
    /// An 802.1Q or 802.1ad VLAN tag (EtherType 0x8100 or 0x88a8).
    VlanTag,
    /// EtherType neither IPv4 nor ARP.
    EtherTypeUnknown,
    /// ARP too short, or htype/ptype/hlen/plen/oper not Ethernet/IPv4 request or reply.
    ArpMalformed,
    /// ARP whose target address is not fpga_ip, or any ARP in fixed-MAC mode.
    ArpNotForUs,
    /// An ARP reply for us that no request in progress awaits.
    ArpReplyIgnored,
    /// IPv4 EtherType but version not 4.
    Ipv4Version,
    /// IHL below 5.
    Ipv4HeaderLength,
    /// IHL above 5: options are not taken.
    Ipv4Options,
    /// Total length below 20 or beyond the frame's end.
    Ipv4Length,
    /// Header checksum wrong.
    Ipv4Checksum,
    /// Destination address not fpga_ip.
    Ipv4NotForUs,
    /// A fragment (MF set or a nonzero offset).
    Ipv4Fragment,
    /// A protocol other than ICMP.
    Ipv4Protocol,
    /// ICMP message shorter than its 8-byte header.
    IcmpTruncated,
    /// ICMP checksum wrong.
    IcmpChecksum,
    /// ICMP other than an echo request (type 8, code 0).
    IcmpNotEchoRequest,
    /// The answer did not fit whole in the transmit buffer.
    TxBufferFull,
}

impl DropReason {
    /// Every reason, in the order the checks are made.
    pub const ALL: [DropReason; 21] = [
        DropReason::FrameError,
        DropReason::Runt,
        DropReason::Oversize,
        DropReason::NotOurMac,
        DropReason::VlanTag,
        DropReason::EtherTypeUnknown,
        DropReason::ArpMalformed,
        DropReason::ArpNotForUs,
        DropReason::ArpReplyIgnored,
        DropReason::Ipv4Version,
        DropReason::Ipv4HeaderLength,
        DropReason::Ipv4Options,
        DropReason::Ipv4Length,
        DropReason::Ipv4Checksum,
        DropReason::Ipv4NotForUs,
        DropReason::Ipv4Fragment,
        DropReason::Ipv4Protocol,
        DropReason::IcmpTruncated,
        DropReason::IcmpChecksum,
        DropReason::IcmpNotEchoRequest,
        DropReason::TxBufferFull,
    ];

    /// Stable snake_case name, and the name of the counter under [`Counter::name`].
    pub fn name(self) -> &'static str {
        self.table().0
    }

    /// One line saying what the reason covers.
    pub fn doc(self) -> &'static str {
        self.table().2
    }

    /// Position in [`DropReason::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// (name, counter name, doc).
    fn table(self) -> (&'static str, &'static str, &'static str) {
        match self {
            DropReason::FrameError => {
                ("frame_error", "dropped_frame_error", "the MAC flagged the frame (tuser): bad FCS")
            }
            DropReason::Runt => ("runt", "dropped_runt", "shorter than 60 bytes (64 with FCS)"),
            DropReason::Oversize => ("oversize", "dropped_oversize", "longer than 14 + mtu bytes"),
            DropReason::NotOurMac => {
                ("not_our_mac", "dropped_not_our_mac", "destination MAC neither fpga_mac nor broadcast")
            }
            DropReason::VlanTag => ("vlan_tag", "dropped_vlan_tag", "VLAN-tagged (EtherType 0x8100 or 0x88a8)"),
            DropReason::EtherTypeUnknown => {
                ("ethertype_unknown", "dropped_ethertype_unknown", "EtherType neither IPv4 (0x0800) nor ARP (0x0806)")
            }
            DropReason::ArpMalformed => (
                "arp_malformed",
                "dropped_arp_malformed",
                "ARP too short or not Ethernet/IPv4 (htype 1, ptype 0x0800, hlen 6, plen 4, oper 1 or 2)",
            ),
            DropReason::ArpNotForUs => (
                "arp_not_for_us",
                "dropped_arp_not_for_us",
                "ARP target address not fpga_ip, or any ARP in fixed-MAC mode",
            ),
            DropReason::ArpReplyIgnored => (
                "arp_reply_ignored",
                "dropped_arp_reply_ignored",
                "ARP reply to fpga_ip that no resolution in progress awaits (or not from target_ip)",
            ),
            DropReason::Ipv4Version => ("ipv4_version", "dropped_ipv4_version", "IPv4 EtherType but version not 4"),
            DropReason::Ipv4HeaderLength => ("ipv4_header_length", "dropped_ipv4_header_length", "IPv4 IHL below 5"),
            DropReason::Ipv4Options => ("ipv4_options", "dropped_ipv4_options", "IPv4 IHL above 5 (options not taken)"),
            DropReason::Ipv4Length => {
                ("ipv4_length", "dropped_ipv4_length", "IPv4 total length below 20 or beyond the end of the frame")
            }
            DropReason::Ipv4Checksum => ("ipv4_checksum", "dropped_ipv4_checksum", "IPv4 header checksum wrong"),
            DropReason::Ipv4NotForUs => ("ipv4_not_for_us", "dropped_ipv4_not_for_us", "IPv4 destination not fpga_ip"),
            DropReason::Ipv4Fragment => {
                ("ipv4_fragment", "dropped_ipv4_fragment", "IPv4 fragment (MF set or nonzero fragment offset)")
            }
            DropReason::Ipv4Protocol => ("ipv4_protocol", "dropped_ipv4_protocol", "IPv4 protocol other than ICMP (1)"),
            DropReason::IcmpTruncated => {
                ("icmp_truncated", "dropped_icmp_truncated", "ICMP message shorter than its 8-byte header")
            }
            DropReason::IcmpChecksum => ("icmp_checksum", "dropped_icmp_checksum", "ICMP checksum wrong"),
            DropReason::IcmpNotEchoRequest => (
                "icmp_not_echo_request",
                "dropped_icmp_not_echo_request",
                "ICMP other than echo request (type 8, code 0)",
            ),
            DropReason::TxBufferFull => {
                ("tx_buffer_full", "dropped_tx_buffer_full", "the answer did not fit whole in the transmit buffer")
            }
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every counter the node keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Frames handed to `receive`, good or bad.
    FramesIn,
    /// Frames handed out by `transmit`.
    FramesOut,
    /// ARP requests for fpga_ip answered (the reply went into the transmit buffer).
    ArpRequestsAnswered,
    /// ARP replies from target_ip that resolved its MAC (client mode).
    ArpRepliesReceived,
    /// ARP requests for target_ip sent (client mode).
    ArpRequestsSent,
    /// ICMP echo requests answered (the reply went into the transmit buffer).
    IcmpEchoesAnswered,
    /// Received frames dropped for this reason.
    Dropped(DropReason),
}

const PLAIN: usize = 6;

impl Counter {
    /// How many counters there are.
    pub const COUNT: usize = PLAIN + DropReason::ALL.len();

    /// Every counter in register order: the six event counters, then one per
    /// drop reason in the order of [`DropReason::ALL`].
    pub const ALL: [Counter; Counter::COUNT] = {
        let mut all = [Counter::FramesIn; Counter::COUNT];
        all[1] = Counter::FramesOut;
        all[2] = Counter::ArpRequestsAnswered;
        all[3] = Counter::ArpRepliesReceived;
        all[4] = Counter::ArpRequestsSent;
        all[5] = Counter::IcmpEchoesAnswered;
        let mut i = 0;
        while i < DropReason::ALL.len() {
            all[PLAIN + i] = Counter::Dropped(DropReason::ALL[i]);
            i += 1;
        }
        all
    };

    /// Position in [`Counter::ALL`].
    pub fn index(self) -> usize {
        match self {
            Counter::FramesIn => 0,
            Counter::FramesOut => 1,
            Counter::ArpRequestsAnswered => 2,
            Counter::ArpRepliesReceived => 3,
            Counter::ArpRequestsSent => 4,
            Counter::IcmpEchoesAnswered => 5,
            Counter::Dropped(r) => PLAIN + r.index(),
        }
    }

    /// Stable snake_case name (the register field's name).
    pub fn name(self) -> &'static str {
        match self {
            Counter::FramesIn => "frames_in",
            Counter::FramesOut => "frames_out",
            Counter::ArpRequestsAnswered => "arp_requests_answered",
            Counter::ArpRepliesReceived => "arp_replies_received",
            Counter::ArpRequestsSent => "arp_requests_sent",
            Counter::IcmpEchoesAnswered => "icmp_echoes_answered",
            Counter::Dropped(r) => r.table().1,
        }
    }

    /// One line saying what the counter counts.
    pub fn doc(self) -> &'static str {
        match self {
            Counter::FramesIn => "frames received from the MAC, good or bad",
            Counter::FramesOut => "frames handed to the MAC",
            Counter::ArpRequestsAnswered => "ARP requests for fpga_ip answered",
            Counter::ArpRepliesReceived => "ARP replies from target_ip that resolved its MAC (client mode)",
            Counter::ArpRequestsSent => "ARP requests for target_ip sent (client mode)",
            Counter::IcmpEchoesAnswered => "ICMP echo requests answered",
            Counter::Dropped(r) => r.doc(),
        }
    }
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The counter values, indexed by [`Counter::index`].
#[derive(Clone, Debug)]
pub(crate) struct Counters([u64; Counter::COUNT]);

impl Counters {
    pub(crate) fn new() -> Self {
        Counters([0; Counter::COUNT])
    }

    pub(crate) fn bump(&mut self, c: Counter) {
        let v = &mut self.0[c.index()];
        *v = v.wrapping_add(1);
    }

    pub(crate) fn get(&self, c: Counter) -> u64 {
        self.0[c.index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn all_is_in_index_order_and_names_are_unique_snake_case() {
        for (i, c) in Counter::ALL.iter().enumerate() {
            assert_eq!(c.index(), i, "{c:?}");
        }
        for (i, r) in DropReason::ALL.iter().enumerate() {
            assert_eq!(r.index(), i, "{r:?}");
            assert_eq!(Counter::Dropped(*r).name(), format!("dropped_{}", r.name()));
        }
        let names: HashSet<_> = Counter::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names.len(), Counter::COUNT);
        for c in Counter::ALL {
            assert!(c.name().bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'), "{c}");
            assert!(!c.doc().is_empty() && !c.doc().contains('\n'), "{c}");
        }
    }
}
