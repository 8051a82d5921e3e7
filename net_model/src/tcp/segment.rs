//! TCP segments: the checked view of a received one, and the builder of
//! the ones the engine sends (and the tests craft).

use std::net::Ipv4Addr;

use crate::checksum;
use crate::frame::{be16, eth, ipv4, tcp};
use crate::frames::{self, Ends};

/// Why a received segment cannot be read; each is an engine counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentError {
    /// Shorter than 20 bytes, a data offset below 5, or a header longer
    /// than the segment.
    Truncated,
    /// The checksum over the pseudo-header, the header and the data is wrong.
    Checksum,
}

/// A received segment whose shape and checksum were checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment<'a> {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    /// The control bits (`tcp::FIN` ... `tcp::ACK_FLAG`).
    pub flags: u8,
    /// The window field as sent (unscaled).
    pub window: u16,
    /// The MSS option, if present (taken from SYNs only).
    pub mss: Option<u16>,
    /// The window-scale option's shift, if present, capped at 14 (RFC 7323).
    pub window_scale: Option<u8>,
    /// The timestamps option (TSval, TSecr), if present (RFC 7323).
    pub timestamps: Option<(u32, u32)>,
    /// The SACK-permitted option is present (RFC 2018; taken from SYNs only).
    pub sack_permitted: bool,
    pub payload: &'a [u8],
}

impl Segment<'_> {
    /// Whether the control bit `flag` is set.
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// SEG.LEN: the data plus one for SYN and one for FIN.
    pub fn len(&self) -> u32 {
        self.payload.len() as u32 + u32::from(self.has(tcp::SYN)) + u32::from(self.has(tcp::FIN))
    }

    /// Carries neither data nor SYN nor FIN.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The ones' complement sum of the IPv4 pseudo-header (RFC 9293, section
/// 3.1): source, destination, zero and protocol, TCP length.
pub fn pseudo_header_sum(src: Ipv4Addr, dst: Ipv4Addr, tcp_len: usize) -> u32 {
    let mut p = [0u8; 12];
    p[0..4].copy_from_slice(&src.octets());
    p[4..8].copy_from_slice(&dst.octets());
    p[9] = ipv4::PROTOCOL_TCP;
    p[10..12].copy_from_slice(&(tcp_len as u16).to_be_bytes());
    checksum::sum(0, &p)
}

/// Reads the segment `bytes` (the IPv4 payload, total length applied) sent
/// from `src` to `dst`.
pub fn parse(src: Ipv4Addr, dst: Ipv4Addr, bytes: &[u8]) -> Result<Segment<'_>, SegmentError> {
    if bytes.len() < tcp::HEADER_LEN {
        return Err(SegmentError::Truncated);
    }
    let header_len = usize::from(bytes[tcp::DATA_OFFSET] >> 4) * 4;
    if header_len < tcp::HEADER_LEN || header_len > bytes.len() {
        return Err(SegmentError::Truncated);
    }
    if checksum::fold(checksum::sum(pseudo_header_sum(src, dst, bytes.len()), bytes)) != 0xffff {
        return Err(SegmentError::Checksum);
    }
    let Options { mss, window_scale, timestamps, sack_permitted } = options(&bytes[tcp::HEADER_LEN..header_len]);
    Ok(Segment {
        src_port: be16(bytes, tcp::SRC_PORT),
        dst_port: be16(bytes, tcp::DST_PORT),
        seq: be32(bytes, tcp::SEQ),
        ack: be32(bytes, tcp::ACK),
        flags: bytes[tcp::FLAGS],
        window: be16(bytes, tcp::WINDOW),
        mss,
        window_scale,
        timestamps,
        sack_permitted,
        payload: &bytes[header_len..],
    })
}

/// The options the engine reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Options {
    mss: Option<u16>,
    window_scale: Option<u8>,
    timestamps: Option<(u32, u32)>,
    sack_permitted: bool,
}

/// The MSS, window-scale, timestamps and SACK-permitted options of an option list. Unknown
/// options are skipped by their length; a malformed list (a length below 2
/// or past the end) ends the walk, keeping what was read before it.
fn options(mut opts: &[u8]) -> Options {
    let mut found = Options::default();
    while let Some(&kind) = opts.first() {
        match kind {
            tcp::OPT_END => break,
            tcp::OPT_NOP => opts = &opts[1..],
            _ => {
                let Some(&len) = opts.get(1) else { break };
                let len = usize::from(len);
                if len < 2 || len > opts.len() {
                    break;
                }
                match (kind, len) {
                    (tcp::OPT_MSS, 4) => found.mss = Some(be16(opts, 2)),
                    (tcp::OPT_WINDOW_SCALE, 3) => found.window_scale = Some(opts[2].min(tcp::MAX_WINDOW_SCALE)),
                    (tcp::OPT_TIMESTAMPS, 10) => found.timestamps = Some((be32(opts, 2), be32(opts, 6))),
                    (tcp::OPT_SACK_PERMITTED, 2) => found.sack_permitted = true,
                    _ => {}
                }
                opts = &opts[len..];
            }
        }
    }
    found
}

fn be32(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

/// The fields of a segment to send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// On a SYN: the MSS and window-scale options.
    pub syn_options: Option<SynOptions>,
    /// The timestamps option (TSval, TSecr), once both SYNs carried it.
    pub timestamps: Option<(u32, u32)>,
    /// SACK blocks (RFC 2018): the runs of bytes kept beyond a gap, the
    /// one first that holds the segment the ACK answers.
    pub sack: SackBlocks,
}

/// The most SACK blocks an option list can hold: 4 alone (2 NOP + 2 + 4 * 8
/// = 36 of the 40 option bytes), 3 beside timestamps (12 + 2 NOP + 2 + 3 * 8
/// = 40).
pub const SACK_BLOCKS_MAX: usize = 4;

/// Up to [`SACK_BLOCKS_MAX`] SACK blocks (left edge, right edge), in the
/// order they are sent. A fixed array and a count, so [`Header`] stays `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlocks {
    blocks: [(u32, u32); SACK_BLOCKS_MAX],
    len: u8,
}

impl SackBlocks {
    /// No block: no SACK option is sent.
    pub const NONE: SackBlocks = SackBlocks { blocks: [(0, 0); SACK_BLOCKS_MAX], len: 0 };

    /// The blocks of `list`, in its order; panics past [`SACK_BLOCKS_MAX`].
    pub fn new(list: &[(u32, u32)]) -> Self {
        let mut b = SackBlocks::NONE;
        for &block in list {
            b.push(block);
        }
        b
    }

    /// Adds a block at the end; panics past [`SACK_BLOCKS_MAX`].
    pub fn push(&mut self, block: (u32, u32)) {
        assert!(usize::from(self.len) < SACK_BLOCKS_MAX, "more than {SACK_BLOCKS_MAX} SACK blocks");
        self.blocks[usize::from(self.len)] = block;
        self.len += 1;
    }

    /// The blocks, first first.
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.blocks[..usize::from(self.len)]
    }

    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The options the engine puts on its SYN and SYN-ACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SynOptions {
    pub mss: u16,
    /// Sent only when `Some` (on a SYN-ACK, only if the peer's SYN had one).
    pub window_scale: Option<u8>,
    /// SACK permitted (on a SYN-ACK, only if the peer's SYN had it).
    pub sack_permitted: bool,
}

/// The TCP segment of `header` and `payload` from `src` to `dst`, with its
/// checksum. The options, each present or not, in one fixed order that
/// keeps every option 4-byte aligned as RFC 7323's appendix A suggests:
/// MSS (4 bytes), NOP NOP timestamps (12), NOP window scale (4), NOP NOP
/// SACK permitted (4), NOP NOP SACK with its blocks (4 + 8 a block).
pub fn build(src: Ipv4Addr, dst: Ipv4Addr, header: &Header, payload: &[u8]) -> Vec<u8> {
    let mut s = vec![0u8; tcp::HEADER_LEN];
    s[tcp::SRC_PORT..tcp::SRC_PORT + 2].copy_from_slice(&header.src_port.to_be_bytes());
    s[tcp::DST_PORT..tcp::DST_PORT + 2].copy_from_slice(&header.dst_port.to_be_bytes());
    s[tcp::SEQ..tcp::SEQ + 4].copy_from_slice(&header.seq.to_be_bytes());
    s[tcp::ACK..tcp::ACK + 4].copy_from_slice(&header.ack.to_be_bytes());
    s[tcp::FLAGS] = header.flags;
    s[tcp::WINDOW..tcp::WINDOW + 2].copy_from_slice(&header.window.to_be_bytes());
    if let Some(o) = header.syn_options {
        s.extend_from_slice(&[tcp::OPT_MSS, 4]);
        s.extend_from_slice(&o.mss.to_be_bytes());
    }
    if let Some((tsval, tsecr)) = header.timestamps {
        s.extend_from_slice(&[tcp::OPT_NOP, tcp::OPT_NOP, tcp::OPT_TIMESTAMPS, 10]);
        s.extend_from_slice(&tsval.to_be_bytes());
        s.extend_from_slice(&tsecr.to_be_bytes());
    }
    if let Some(shift) = header.syn_options.and_then(|o| o.window_scale) {
        s.extend_from_slice(&[tcp::OPT_NOP, tcp::OPT_WINDOW_SCALE, 3, shift]);
    }
    if header.syn_options.is_some_and(|o| o.sack_permitted) {
        s.extend_from_slice(&[tcp::OPT_NOP, tcp::OPT_NOP, tcp::OPT_SACK_PERMITTED, 2]);
    }
    if !header.sack.is_empty() {
        let len = 2 + 8 * header.sack.len() as u8;
        s.extend_from_slice(&[tcp::OPT_NOP, tcp::OPT_NOP, tcp::OPT_SACK, len]);
        for (left, right) in header.sack.as_slice() {
            s.extend_from_slice(&left.to_be_bytes());
            s.extend_from_slice(&right.to_be_bytes());
        }
    }
    debug_assert!(s.len() <= tcp::HEADER_LEN + 40, "more than 40 option bytes");
    s[tcp::DATA_OFFSET] = ((s.len() / 4) as u8) << 4;
    s.extend_from_slice(payload);
    let c = !checksum::fold(checksum::sum(pseudo_header_sum(src, dst, s.len()), &s));
    s[tcp::CHECKSUM..tcp::CHECKSUM + 2].copy_from_slice(&c.to_be_bytes());
    s
}

/// A whole Ethernet frame of a TCP segment, padded to the minimum.
pub fn frame(ends: Ends, header: &Header, payload: &[u8]) -> Vec<u8> {
    let segment = build(ends.src_ip, ends.dst_ip, header, payload);
    frames::ethernet(
        ends.dst_mac,
        ends.src_mac,
        eth::TYPE_IPV4,
        &frames::ipv4_packet(ends.src_ip, ends.dst_ip, ipv4::PROTOCOL_TCP, &segment),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
    const B: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

    fn header(flags: u8) -> Header {
        Header {
            src_port: 5001,
            dst_port: 40000,
            seq: 7,
            ack: 9,
            flags,
            window: 1024,
            syn_options: None,
            timestamps: None,
            sack: SackBlocks::NONE,
        }
    }

    #[test]
    fn a_built_segment_reads_back_field_for_field() {
        let h = Header {
            syn_options: Some(SynOptions { mss: 1460, window_scale: Some(7), sack_permitted: true }),
            timestamps: Some((0x0102_0304, 0xa0b0_c0d0)),
            ..header(tcp::SYN | tcp::ACK_FLAG)
        };
        let bytes = build(A, B, &h, b"hello");
        assert_eq!(
            bytes[tcp::DATA_OFFSET] >> 4,
            11,
            "MSS (4) + timestamps (12) + window scale (4) + SACK permitted (4) = 24 option bytes"
        );
        let s = parse(A, B, &bytes).expect("a valid segment");
        assert_eq!((s.src_port, s.dst_port, s.seq, s.ack, s.window), (5001, 40000, 7, 9, 1024));
        assert_eq!((s.mss, s.window_scale), (Some(1460), Some(7)));
        assert_eq!(s.timestamps, Some((0x0102_0304, 0xa0b0_c0d0)));
        assert!(s.sack_permitted);
        let block = build(A, B, &Header { sack: SackBlocks::new(&[(100, 200)]), ..header(tcp::ACK_FLAG) }, &[]);
        assert_eq!(&block[tcp::HEADER_LEN..], &[1, 1, 5, 10, 0, 0, 0, 100, 0, 0, 0, 200]);
        // Three blocks beside timestamps, in the order given: 40 option bytes, the most.
        let h = Header {
            timestamps: Some((1, 2)),
            sack: SackBlocks::new(&[(300, 400), (100, 200), (0x0102_0304, 0x0506_0708)]),
            ..header(tcp::ACK_FLAG)
        };
        let three = build(A, B, &h, &[]);
        assert_eq!(three[tcp::DATA_OFFSET] >> 4, 15, "20 + 12 + 28 = 60 header bytes");
        assert_eq!(
            &three[tcp::HEADER_LEN + 12..],
            &[1, 1, 5, 26, 0, 0, 1, 44, 0, 0, 1, 144, 0, 0, 0, 100, 0, 0, 0, 200, 1, 2, 3, 4, 5, 6, 7, 8]
        );
        assert_eq!(parse(A, B, &three).map(|s| s.timestamps), Ok(Some((1, 2))), "the peer's SACK is skipped");
        let four = SackBlocks::new(&[(1, 2), (3, 4), (5, 6), (7, 8)]);
        let four = build(A, B, &Header { sack: four, ..header(tcp::ACK_FLAG) }, &[]);
        assert_eq!(&four[tcp::HEADER_LEN..tcp::HEADER_LEN + 4], &[1, 1, 5, 34]);
        assert_eq!(four.len(), tcp::HEADER_LEN + 36);
        assert_eq!(s.payload, b"hello");
        assert_eq!(s.len(), 5 + 1, "SYN counts one");
    }

    #[test]
    fn the_checksum_covers_the_pseudo_header() {
        let bytes = build(A, B, &header(tcp::ACK_FLAG), b"x");
        assert!(parse(A, B, &bytes).is_ok());
        // The same bytes claimed from another source fail: the addresses are summed.
        assert_eq!(parse(Ipv4Addr::new(10, 0, 0, 3), B, &bytes), Err(SegmentError::Checksum));
        let mut bad = bytes.clone();
        bad[tcp::HEADER_LEN] ^= 1;
        assert_eq!(parse(A, B, &bad), Err(SegmentError::Checksum));
    }

    #[test]
    fn a_hand_summed_segment_matches() {
        // A 20-byte ACK from 10.0.0.1:1 to 10.0.0.2:2, seq 0, ack 0, window 0,
        // summed by hand: pseudo-header 0x0a00+0x0001+0x0a00+0x0002+0x0006+0x0014 = 0x141d,
        // header 0x0001+0x0002+0x5010 = 0x5013; total 0x6430, checksum !0x6430 = 0x9bcf.
        let h = Header {
            src_port: 1,
            dst_port: 2,
            seq: 0,
            ack: 0,
            flags: tcp::ACK_FLAG,
            window: 0,
            syn_options: None,
            timestamps: None,
            sack: SackBlocks::NONE,
        };
        let bytes = build(A, B, &h, &[]);
        assert_eq!(be16(&bytes, tcp::CHECKSUM), 0x9bcf);
    }

    #[test]
    fn short_or_inconsistent_headers_are_truncated() {
        let bytes = build(A, B, &header(tcp::ACK_FLAG), &[]);
        assert_eq!(parse(A, B, &bytes[..19]), Err(SegmentError::Truncated));
        let mut low = bytes.clone();
        low[tcp::DATA_OFFSET] = 4 << 4;
        assert_eq!(parse(A, B, &low), Err(SegmentError::Truncated));
        let mut long = bytes;
        long[tcp::DATA_OFFSET] = 6 << 4;
        assert_eq!(parse(A, B, &long), Err(SegmentError::Truncated));
    }

    #[test]
    fn unknown_options_are_skipped_and_a_big_shift_is_capped() {
        // SACK-permitted (4, 2), timestamps (8, 10: 1, 2), window scale 15, MSS 9000.
        let opts = [4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 3, 3, 15, 2, 4, 0x23, 0x28, 0];
        let want = Options { mss: Some(9000), window_scale: Some(14), timestamps: Some((1, 2)), sack_permitted: true };
        assert_eq!(options(&opts), want);
        assert_eq!(options(&[2, 1, 0, 0]), Options::default(), "a length below 2 ends the walk");
        assert_eq!(options(&[1, 1, 2]), Options::default(), "an option cut short ends the walk");
    }
}
