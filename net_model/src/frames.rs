//! Builders of the frames the node takes and sends, for the node itself, its
//! tests and the TAP harness (which also crafts bad frames: build a good one,
//! change a field, then [`fix_ipv4_checksum`] / [`fix_icmp_checksum`] if the
//! change should not be caught by a checksum).
//!
//! Every builder returns a whole Ethernet frame without FCS, padded with
//! zeros to the 60-byte minimum.

use std::net::Ipv4Addr;

use crate::checksum;
use crate::frame::{arp, eth, icmp, ipv4};
use crate::Mac;

/// `frame` padded with zeros to the 60-byte minimum (longer frames unchanged).
pub fn pad(mut frame: Vec<u8>) -> Vec<u8> {
    if frame.len() < eth::MIN_FRAME_LEN {
        frame.resize(eth::MIN_FRAME_LEN, 0);
    }
    frame
}

/// An Ethernet frame of `payload`, padded to the minimum.
pub fn ethernet(dst: Mac, src: Mac, ethertype: u16, payload: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity((eth::HEADER_LEN + payload.len()).max(eth::MIN_FRAME_LEN));
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    f.extend_from_slice(&ethertype.to_be_bytes());
    f.extend_from_slice(payload);
    pad(f)
}

/// The 28-byte ARP packet for Ethernet and IPv4.
pub fn arp_packet(oper: u16, sha: Mac, spa: Ipv4Addr, tha: Mac, tpa: Ipv4Addr) -> [u8; arp::LEN] {
    let mut p = [0; arp::LEN];
    p[arp::HTYPE..arp::HTYPE + 2].copy_from_slice(&arp::HTYPE_ETHERNET.to_be_bytes());
    p[arp::PTYPE..arp::PTYPE + 2].copy_from_slice(&eth::TYPE_IPV4.to_be_bytes());
    p[arp::HLEN] = 6;
    p[arp::PLEN] = 4;
    p[arp::OPER..arp::OPER + 2].copy_from_slice(&oper.to_be_bytes());
    p[arp::SHA..arp::SHA + 6].copy_from_slice(&sha);
    p[arp::SPA..arp::SPA + 4].copy_from_slice(&spa.octets());
    p[arp::THA..arp::THA + 6].copy_from_slice(&tha);
    p[arp::TPA..arp::TPA + 4].copy_from_slice(&tpa.octets());
    p
}

/// A broadcast ARP request from `sha`/`spa` asking for `tpa` (target
/// hardware address zero, as RFC 826 leaves it unknown).
pub fn arp_request(sha: Mac, spa: Ipv4Addr, tpa: Ipv4Addr) -> Vec<u8> {
    ethernet(eth::BROADCAST, sha, eth::TYPE_ARP, &arp_packet(arp::OPER_REQUEST, sha, spa, [0; 6], tpa))
}

/// An ARP reply from `sha`/`spa` to `tha`/`tpa`, sent to `tha`.
pub fn arp_reply(sha: Mac, spa: Ipv4Addr, tha: Mac, tpa: Ipv4Addr) -> Vec<u8> {
    ethernet(tha, sha, eth::TYPE_ARP, &arp_packet(arp::OPER_REPLY, sha, spa, tha, tpa))
}

/// An IPv4 packet without options: TOS 0, identification 0, DF set, TTL 64,
/// a valid header checksum.
pub fn ipv4_packet(src: Ipv4Addr, dst: Ipv4Addr, protocol: u8, payload: &[u8]) -> Vec<u8> {
    let total = ipv4::HEADER_LEN + payload.len();
    let mut p = vec![0; ipv4::HEADER_LEN];
    p[ipv4::VERSION_IHL] = 0x45;
    // Saturates for payloads beyond 65515 bytes, which no node takes anyway.
    let total16 = u16::try_from(total).unwrap_or(u16::MAX);
    p[ipv4::TOTAL_LEN..ipv4::TOTAL_LEN + 2].copy_from_slice(&total16.to_be_bytes());
    p[ipv4::FLAGS_FRAG..ipv4::FLAGS_FRAG + 2].copy_from_slice(&ipv4::FLAG_DF.to_be_bytes());
    p[ipv4::TTL] = ipv4::TTL_SENT;
    p[ipv4::PROTOCOL] = protocol;
    p[ipv4::SRC..ipv4::SRC + 4].copy_from_slice(&src.octets());
    p[ipv4::DST..ipv4::DST + 4].copy_from_slice(&dst.octets());
    let c = checksum::checksum(&p);
    p[ipv4::CHECKSUM..ipv4::CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
    p.extend_from_slice(payload);
    p
}

/// An ICMP echo message (`icmp::TYPE_ECHO_REQUEST` or `TYPE_ECHO_REPLY`)
/// with a valid checksum.
pub fn icmp_echo(kind: u8, id: u16, seq: u16, data: &[u8]) -> Vec<u8> {
    let mut m = vec![0; icmp::HEADER_LEN];
    m[icmp::TYPE] = kind;
    m[icmp::ID..icmp::ID + 2].copy_from_slice(&id.to_be_bytes());
    m[icmp::SEQ..icmp::SEQ + 2].copy_from_slice(&seq.to_be_bytes());
    m.extend_from_slice(data);
    let c = checksum::checksum(&m);
    m[icmp::CHECKSUM..icmp::CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
    m
}

/// Addresses of one direction of an IPv4 exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ends {
    /// Source MAC.
    pub src_mac: Mac,
    /// Destination MAC.
    pub dst_mac: Mac,
    /// Source IPv4 address.
    pub src_ip: Ipv4Addr,
    /// Destination IPv4 address.
    pub dst_ip: Ipv4Addr,
}

/// A whole frame of an ICMP echo request.
pub fn echo_request(ends: Ends, id: u16, seq: u16, data: &[u8]) -> Vec<u8> {
    echo(ends, icmp::TYPE_ECHO_REQUEST, id, seq, data)
}

/// A whole frame of an ICMP echo reply.
pub fn echo_reply(ends: Ends, id: u16, seq: u16, data: &[u8]) -> Vec<u8> {
    echo(ends, icmp::TYPE_ECHO_REPLY, id, seq, data)
}

/// A whole frame of an ICMP echo message of type `ty`.
fn echo(ends: Ends, ty: u8, id: u16, seq: u16, data: &[u8]) -> Vec<u8> {
    let msg = icmp_echo(ty, id, seq, data);
    ethernet(
        ends.dst_mac,
        ends.src_mac,
        eth::TYPE_IPV4,
        &ipv4_packet(ends.src_ip, ends.dst_ip, ipv4::PROTOCOL_ICMP, &msg),
    )
}

/// Rewrites the IPv4 header checksum of an IPv4 frame (IHL as the header
/// says, clipped to the frame); a frame too short for a header is left alone.
pub fn fix_ipv4_checksum(frame: &mut [u8]) {
    let Some(ip) = frame.get_mut(eth::HEADER_LEN..) else { return };
    let ihl = usize::from(ip.first().copied().unwrap_or(0) & 0xf) * 4;
    let len = ihl.clamp(ipv4::HEADER_LEN, ip.len().max(ipv4::HEADER_LEN));
    if ip.len() < len {
        return;
    }
    ip[ipv4::CHECKSUM] = 0;
    ip[ipv4::CHECKSUM + 1] = 0;
    let c = checksum::checksum(&ip[..len]);
    ip[ipv4::CHECKSUM..ipv4::CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
}

/// Rewrites the ICMP checksum of an IPv4 frame without options, over the
/// message the total length says (clipped to the frame); a frame too short
/// for an ICMP header is left alone.
pub fn fix_icmp_checksum(frame: &mut [u8]) {
    let start = eth::HEADER_LEN + ipv4::HEADER_LEN;
    if frame.len() < start + icmp::HEADER_LEN {
        return;
    }
    let total = usize::from(u16::from_be_bytes([frame[eth::HEADER_LEN + 2], frame[eth::HEADER_LEN + 3]]));
    let end = (eth::HEADER_LEN + total).clamp(start + icmp::HEADER_LEN, frame.len());
    let m = &mut frame[start..end];
    m[icmp::CHECKSUM] = 0;
    m[icmp::CHECKSUM + 1] = 0;
    let c = checksum::checksum(m);
    m[icmp::CHECKSUM..icmp::CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
}
