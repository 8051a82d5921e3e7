//! An independent parser of what the node sends: explicit byte positions
//! from the RFC layouts and its own checksum, so a shared mistake in the
//! crate's `frame` constants or `checksum` module cannot hide.

use std::net::Ipv4Addr;

use net_model::Mac;

#[derive(Debug, PartialEq, Eq)]
pub struct ArpSeen {
    pub eth_dst: Mac,
    pub eth_src: Mac,
    pub oper: u16,
    pub sha: Mac,
    pub spa: Ipv4Addr,
    pub tha: Mac,
    pub tpa: Ipv4Addr,
}

#[derive(Debug, PartialEq, Eq)]
pub struct EchoSeen {
    pub eth_dst: Mac,
    pub eth_src: Mac,
    pub tos: u8,
    pub ip_id: u16,
    pub flags_frag: u16,
    pub ttl: u8,
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub icmp_type: u8,
    pub code: u8,
    pub id: u16,
    pub seq: u16,
    pub data: Vec<u8>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Sent {
    Arp(ArpSeen),
    Echo(EchoSeen),
}

/// Ones' complement sum of big-endian words, folded: an intact header or
/// message with its checksum in place sums to 0xffff.
pub fn ones_sum(bytes: &[u8]) -> u16 {
    let mut total: u64 = 0;
    for (i, b) in bytes.iter().enumerate() {
        total += if i % 2 == 0 { u64::from(*b) * 256 } else { u64::from(*b) };
    }
    while total >> 16 != 0 {
        total = (total & 0xffff) + (total >> 16);
    }
    total as u16
}

fn mac(b: &[u8]) -> Mac {
    b[..6].try_into().unwrap()
}

fn ip(b: &[u8]) -> Ipv4Addr {
    Ipv4Addr::new(b[0], b[1], b[2], b[3])
}

fn w(b: &[u8], at: usize) -> u16 {
    (u16::from(b[at]) << 8) | u16::from(b[at + 1])
}

/// Parses a frame the node sent; every rule a receiver would apply is an error here.
pub fn parse(f: &[u8], mtu: usize) -> Result<Sent, String> {
    if f.len() < 60 || f.len() > 14 + mtu {
        return Err(format!("frame of {} bytes is outside 60 ..= {}", f.len(), 14 + mtu));
    }
    let eth_dst = mac(&f[0..]);
    let eth_src = mac(&f[6..]);
    match w(f, 12) {
        0x0806 => {
            let a = &f[14..];
            if w(a, 0) != 1 || w(a, 2) != 0x0800 || a[4] != 6 || a[5] != 4 {
                return Err(format!("ARP header {:02x?}", &a[..6]));
            }
            if a[28..].iter().any(|b| *b != 0) {
                return Err("ARP padding not zero".into());
            }
            Ok(Sent::Arp(ArpSeen {
                eth_dst,
                eth_src,
                oper: w(a, 6),
                sha: mac(&a[8..]),
                spa: ip(&a[14..]),
                tha: mac(&a[18..]),
                tpa: ip(&a[24..]),
            }))
        }
        0x0800 => {
            let p = &f[14..];
            if p[0] != 0x45 {
                return Err(format!("version/IHL {:#04x}", p[0]));
            }
            let total = usize::from(w(p, 2));
            if total < 28 || total > p.len() {
                return Err(format!("total length {total} in a payload of {}", p.len()));
            }
            if f.len() > 60 && total != p.len() {
                return Err(format!("{} bytes beyond total length {total} in a frame over 60 bytes", p.len() - total));
            }
            if p[total..].iter().any(|b| *b != 0) {
                return Err("padding not zero".into());
            }
            if ones_sum(&p[..20]) != 0xffff {
                return Err(format!("IPv4 header checksum wrong: sum {:#06x}", ones_sum(&p[..20])));
            }
            if p[9] != 1 {
                return Err(format!("protocol {}", p[9]));
            }
            let m = &p[20..total];
            if ones_sum(m) != 0xffff {
                return Err(format!("ICMP checksum wrong: sum {:#06x}", ones_sum(m)));
            }
            Ok(Sent::Echo(EchoSeen {
                eth_dst,
                eth_src,
                tos: p[1],
                ip_id: w(p, 4),
                flags_frag: w(p, 6),
                ttl: p[8],
                src: ip(&p[12..]),
                dst: ip(&p[16..]),
                icmp_type: m[0],
                code: m[1],
                id: w(m, 4),
                seq: w(m, 6),
                data: m[8..].to_vec(),
            }))
        }
        t => Err(format!("EtherType {t:#06x}")),
    }
}

/// RFC 1071's example, so the parser's own checksum is known good too.
#[test]
fn ones_sum_matches_rfc1071_example() {
    assert_eq!(ones_sum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7]), 0xddf2);
}
