//! The open engine's network node, part 1 (Ethernet II, ARP, IPv4, ICMP
//! echo): the RTL of `net_model::NetNode`, checked against it frame for
//! frame (`hdl/tests/net_node.rs`). Generic over the data width W (64 ..
//! 1024 bits, K = W / 8 keep bits) and the MTU (576 ..= 9000, a build
//! parameter: it sizes the frame RAM and bounds the oversize check).
//!
//! ```text
//!  MAC RX (no tready) ---> NetRx: header capture, byte count, ICMP sum (adder
//!                          tree, d2 .. d7), checks beside it -> flags (d9) ->
//!                          first raised flag (d10); beats delayed 10 cycles
//!                                     --> FrameRam (circular, in beats)
//!                                |  answer: descriptor           ^ tail (freed)
//!                                v                               |
//!  ArpClient --request--> DescFifo (8 descriptors) ---> NetTx: header overlay over the
//!  (timer, attempts,                                     stored frame, tkeep/tlast from the
//!   target MAC)                                          descriptor's length ---> MAC TX
//!  pulses: frames_in/out, answers, one per DropReason (net_model's order) ---> counters
//! ```
//!
//! How the blocks fit:
//! - [`rx::NetRx`] writes every beat into the frame RAM [`rx::DELAY`] cycles
//!   after it arrives, which is when the decision on its frame is known: a
//!   dropped frame's beats are given back by rewinding the write pointer
//!   before the next frame's first beat is written, so frames may come back
//!   to back, one per beat at 1024 bits. A frame that meets a full RAM stops
//!   being written; if it passed every check it is dropped as
//!   `tx_buffer_full`, never half-delivered.
//! - [`desc_fifo::DescFifo`] holds what the transmitter needs per answer
//!   ([`Desc`]); the ARP client's requests go into it when the receiver is
//!   not pushing, so frames leave in the order they were decided. A push
//!   waits a cycle in a register before its RAM write.
//! - Every path is within the synthesis estimate's 5 LUT levels at every
//!   width (`make synth-estimate` has a row per width).
//! - [`tx::NetTx`] replays a stored echo request with its first 64 bytes
//!   rewritten (ARP frames are overlay only) and frees its RAM beats.
//! - [`arp::ArpClient`] holds the ARP state: the mode, client-mode timer and
//!   attempts, `init_done`, `arp_failed`, the learnt target MAC.
//! - [`node::NetNode`] wires them and brings out the event pulses.
//!
//! Not built yet: the wiring into gen's top (`core = "open"`), the counters
//! in the register map, the verilated design on the TAP harness, and TCP
//! (part 2). The leaves are Verilog with a Rust simulation model (rust-hdl's
//! kernel language has no loops and no memories); the tests run the node
//! both in rust-hdl's simulator (the models) and verilated (the Verilog)
//! against `net_model`.

pub mod arp;
pub mod desc_fifo;
pub mod frame_ram;
pub mod node;
pub mod rx;
pub mod tx;

use crate::verilog::HdlError;

/// Bits of a frame-RAM pointer: 14 address bits and a wrap bit (the RAM
/// has at most 16,384 beats).
pub const PTR_BITS: usize = 15;
/// Bits of a frame-RAM address.
pub const ADDR_BITS: usize = 14;
/// Bits of a descriptor ([`Desc`]).
pub const DESC_BITS: usize = 173;
/// Descriptors the FIFO holds.
pub const DESC_DEPTH: usize = 8;

/// The smallest and largest MTU (`net_model::config`).
pub const MTU_MIN: usize = 576;
pub const MTU_MAX: usize = 9000;

/// Descriptor kinds.
pub const KIND_ECHO: u64 = 1;
pub const KIND_ARP_REPLY: u64 = 2;
pub const KIND_ARP_REQUEST: u64 = 3;

/// Number of drop reasons, in `net_model::DropReason::ALL`'s order; the
/// last, `tx_buffer_full`, is bit 20 of the drop pulses.
pub const DROP_REASONS: usize = 21;

/// Beats of the frame RAM at `k` bytes a beat: two frames of 14 + mtu
/// bytes, rounded up to a power of two.
pub fn ram_depth(k: usize, mtu: usize) -> usize {
    (2 * (14 + mtu)).div_ceil(k).next_power_of_two()
}

/// Checks the node's build parameters; the error names the field and its range.
pub fn check_params(w: usize, k: usize, mtu: usize) -> Result<(), HdlError> {
    if !config::DATA_WIDTHS.contains(&w) {
        return Err(HdlError(format!("unsupported data width {w}: use {}", config::data_widths_text())));
    }
    if k * 8 != w {
        return Err(HdlError(format!("K = {k} must be W / 8 = {}", w / 8)));
    }
    if !(MTU_MIN..=MTU_MAX).contains(&mtu) {
        return Err(HdlError(format!("mtu = {mtu} is out of range: {MTU_MIN} ..= {MTU_MAX}")));
    }
    Ok(())
}

/// One answer for the transmitter: where its request is stored and the
/// fields of its header overlay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Desc {
    /// [`KIND_ECHO`], [`KIND_ARP_REPLY`] or [`KIND_ARP_REQUEST`].
    pub kind: u64,
    /// First RAM beat of the stored request (pointer, wrap bit included).
    pub start: u64,
    /// The pointer after its last beat: the RAM's tail once it is sent.
    pub end: u64,
    /// Bytes of the frame sent (60 .. 14 + mtu).
    pub len: u64,
    /// Destination MAC (first byte on the wire in bits 47:40).
    pub mac: u64,
    /// Destination IPv4 address (ARP reply: the requester's, `tpa`).
    pub ip: u64,
    /// The echo reply's ICMP checksum.
    pub icmp_csum: u64,
    /// The echo reply's IPv4 header checksum.
    pub ip_csum: u64,
    /// The echo's IPv4 total length.
    pub total: u64,
}

/// (field offset, width) of the packed descriptor, low bits first.
pub const DESC_FIELDS: [(&str, usize, usize); 9] = [
    ("start", 0, 15),
    ("end", 15, 15),
    ("len", 30, 14),
    ("mac", 44, 48),
    ("ip", 92, 32),
    ("icmp_csum", 124, 16),
    ("ip_csum", 140, 16),
    ("total", 156, 15),
    ("kind", 171, 2),
];

impl Desc {
    fn values(&self) -> [u64; 9] {
        [self.start, self.end, self.len, self.mac, self.ip, self.icmp_csum, self.ip_csum, self.total, self.kind]
    }

    /// Packed as [`DESC_FIELDS`] says.
    pub fn pack(&self) -> rust_hdl::prelude::Bits<DESC_BITS> {
        let mut b = rust_hdl::prelude::Bits::<DESC_BITS>::default();
        for ((_, at, width), v) in DESC_FIELDS.iter().zip(self.values()) {
            for i in 0..*width {
                b = b.replace_bit(at + i, v >> i & 1 == 1);
            }
        }
        b
    }

    /// Unpacked.
    pub fn unpack(b: rust_hdl::prelude::Bits<DESC_BITS>) -> Self {
        let f = |n: usize| {
            let (_, at, width) = DESC_FIELDS[n];
            (0..width).fold(0u64, |v, i| v | u64::from(b.get_bit(at + i)) << i)
        };
        Desc {
            start: f(0),
            end: f(1),
            len: f(2),
            mac: f(3),
            ip: f(4),
            icmp_csum: f(5),
            ip_csum: f(6),
            total: f(7),
            kind: f(8),
        }
    }
}

/// The Verilog part-select of descriptor field `name` of vector `v`.
pub fn desc_field(v: &str, name: &str) -> String {
    let (_, at, width) = DESC_FIELDS.iter().find(|f| f.0 == name).copied().expect("a descriptor field");
    format!("{v}[{}:{at}]", at + width - 1)
}

/// Ones'-complement fold of an unfolded sum (RFC 1071's end-around carry).
pub fn fold(mut acc: u64) -> u64 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc
}

/// A Bits value from at most 64 bits.
pub(crate) fn b<const N: usize>(v: u64) -> rust_hdl::prelude::Bits<N> {
    rust_hdl::prelude::bits(v)
}

/// The byte `j` of a beat.
pub(crate) fn byte_of<const W: usize>(data: rust_hdl::prelude::Bits<W>, j: usize) -> u8 {
    data.get_bits::<8>(8 * j).index() as u8
}

/// Runs `$body` with `$node` bound to a `NetNode` of `$width` bits and MTU
/// `$mtu` (its `?` on the MTU's check returns from the caller): the one
/// place the node's widths map to its const parameters.
macro_rules! with_node {
    ($width:expr, $mtu:expr, |$node:ident| $body:expr) => {
        match $width {
            64 => {
                let mut $node = node::NetNode::<64, 8>::new($mtu)?;
                $body
            }
            128 => {
                let mut $node = node::NetNode::<128, 16>::new($mtu)?;
                $body
            }
            256 => {
                let mut $node = node::NetNode::<256, 32>::new($mtu)?;
                $body
            }
            512 => {
                let mut $node = node::NetNode::<512, 64>::new($mtu)?;
                $body
            }
            1024 => {
                let mut $node = node::NetNode::<1024, 128>::new($mtu)?;
                $body
            }
            other => Err(HdlError(format!("unsupported data width {other}: use {}", config::data_widths_text()))),
        }
    };
}

/// The modules of the node at `width` bits and `mtu`, root `<prefix>_net_node`.
pub fn node_modules(width: usize, mtu: usize, prefix: &str) -> Result<Vec<crate::emit::Module>, HdlError> {
    let root = format!("{prefix}_net_node");
    with_node!(width, mtu, |n| crate::emit::emit(&mut n, &root, prefix))
}

/// The ports of the node (`node_modules`'s root) at `width` bits and this
/// MTU: (name, direction, width), in declaration order.
pub fn node_ports(width: usize, mtu: usize) -> Result<Vec<(String, config::ports::Direction, usize)>, HdlError> {
    with_node!(width, mtu, |n| Ok(crate::verilog::block_ports(&mut n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_descriptor_packs_and_unpacks() {
        let d = Desc {
            kind: 3,
            start: 0x7abc,
            end: 0x1234,
            len: 9014,
            mac: 0x0211_2233_4455,
            ip: 0xc0a8_0001,
            icmp_csum: 0xbeef,
            ip_csum: 0x1234,
            total: 9000,
        };
        assert_eq!(Desc::unpack(d.pack()), d);
        let last = DESC_FIELDS[8];
        assert_eq!(last.1 + last.2, DESC_BITS);
    }

    #[test]
    fn ram_holds_two_frames() {
        assert_eq!(ram_depth(8, 1500), 512);
        assert_eq!(ram_depth(128, 1500), 32);
        assert_eq!(ram_depth(8, 9000), 4096);
        assert!(check_params(96, 12, 1500).unwrap_err().0.contains("unsupported data width 96"));
        assert_eq!(check_params(64, 8, 100).unwrap_err().0, "mtu = 100 is out of range: 576 ..= 9000");
    }
}
