//! The network node's RTL (`hdl::net::node::NetNode`) against
//! `net_model::NetNode`, frame for frame: seeded random mixes of echo
//! requests (0 ..= mtu - 28 data bytes, some with Ethernet padding past
//! the IPv4 total length), ARP requests and frames bad for every check
//! (every `DropReason` but `tx_buffer_full`), fed with random idle gaps or
//! back to back, with a random `m_tready`. The frames sent must be the
//! model's, in its order, byte for byte, and the drop pulses summed per
//! reason the model's counters (as every other event pulse).
//!
//! Each mix runs twice: in rust-hdl's simulator (the blocks' Rust models)
//! and verilated (the Verilog that `hdl::emit` writes), at 64, 128, 256,
//! 512 and 1024 bits. The transmit buffer's overflow is kept out of these
//! runs (a frame is fed only when the RTL's frame RAM and descriptor FIFO
//! surely have room for its answer, so both sides answer it); it has its
//! own test, as has client-mode ARP. `TB_SEED=<n>` replays a run.

mod common;

use std::collections::VecDeque;
use std::net::Ipv4Addr;

use hdl::net::node::NetNode as Rtl;
use net_model::frames::{self, Ends};
use net_model::{ArpMode, Counter, DropReason, NetNode, NodeConfig};
use rand::Rng;
use rust_hdl::prelude::*;

const FPGA_MAC: [u8; 6] = [0x02, 0x00, 0x5e, 0x10, 0x00, 0x01];
const HOST_MAC: [u8; 6] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];
const FIXED_MAC: [u8; 6] = [0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee];
const FPGA_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
const HOST_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const OTHER_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 77);
const MTU: usize = 1500;

fn mac_u64(m: [u8; 6]) -> u64 {
    m.iter().fold(0, |v, &b| v << 8 | u64::from(b))
}

// ---------------------------------------------------------------- the DUTs

/// The node's outputs after a cycle.
#[derive(Clone, Debug, Default)]
struct Outs {
    tvalid: bool,
    tlast: bool,
    /// The kept bytes of the presented beat.
    bytes: Vec<u8>,
    frames_in: bool,
    frames_out: bool,
    arp_requests_answered: bool,
    arp_replies_received: bool,
    arp_requests_sent: bool,
    icmp_echoes_answered: bool,
    dropped: u32,
    init_done: bool,
    arp_failed: bool,
    target_mac: Option<u64>,
}

/// One beat into the node: K bytes, the kept count, tlast, tuser.
struct Beat<'a> {
    data: &'a [u8],
    kept: usize,
    last: bool,
    user: bool,
}

trait Dut {
    fn k(&self) -> usize;
    fn configure(&mut self, mode: u64, retry: u64, attempts: u64);
    fn drive(&mut self, rx: Option<&Beat>, tready: bool, init: bool, reset: bool);
    fn cycle(&mut self);
    fn outs(&self) -> Outs;
}

fn keep_count(keep: &[bool]) -> usize {
    keep.iter().take_while(|&&k| k).count()
}

/// The node in rust-hdl's simulator.
struct Sim<const W: usize, const K: usize>(Box<Rtl<W, K>>);

impl<const W: usize, const K: usize> Sim<W, K> {
    fn new() -> Self {
        let mut n = Box::new(Rtl::<W, K>::new(MTU).unwrap());
        n.connect_all();
        n.fpga_mac.next = bits(mac_u64(FPGA_MAC));
        n.fpga_ip.next = bits(u64::from(u32::from(FPGA_IP)));
        n.target_ip.next = bits(u64::from(u32::from(HOST_IP)));
        n.fixed_mac.next = bits(mac_u64(FIXED_MAC));
        hdl::sim::settle(n.as_mut());
        Sim(n)
    }
}

impl<const W: usize, const K: usize> Dut for Sim<W, K> {
    fn k(&self) -> usize {
        K
    }

    fn configure(&mut self, mode: u64, retry: u64, attempts: u64) {
        self.0.mode.next = bits(mode);
        self.0.arp_retry_cycles.next = bits(retry);
        self.0.arp_attempts.next = bits(attempts);
    }

    fn drive(&mut self, rx: Option<&Beat>, tready: bool, init: bool, reset: bool) {
        let n = &mut self.0;
        n.m_tready.next = tready;
        n.init.next = init;
        n.reset.next = reset;
        n.s_tvalid.next = rx.is_some();
        if let Some(b) = rx {
            let mut data = Bits::<W>::default();
            let mut keep = Bits::<K>::default();
            for j in 0..K {
                data.set_bits::<8>(8 * j, bits(u64::from(b.data[j])));
                keep = keep.replace_bit(j, j < b.kept);
            }
            n.s_tdata.next = data;
            n.s_tkeep.next = keep;
            n.s_tlast.next = b.last;
            n.s_tuser.next = b.user;
        }
        // The inputs settle before the edge: rust-hdl's simulator moves a
        // change one block level a pass, so an input changed with the clock
        // would reach some registers after the edge and others before it.
        hdl::sim::settle(n.as_mut());
    }

    fn cycle(&mut self) {
        hdl::sim::cycle(self.0.as_mut(), |n, c| n.clock.next = Clock::from(c));
    }

    fn outs(&self) -> Outs {
        let n = &self.0;
        let keep: Vec<bool> = (0..K).map(|j| n.m_tkeep.val().get_bit(j)).collect();
        let kept = keep_count(&keep);
        let data = n.m_tdata.val();
        Outs {
            tvalid: n.m_tvalid.val(),
            tlast: n.m_tlast.val(),
            bytes: (0..kept).map(|j| data.get_bits::<8>(8 * j).to_u64() as u8).collect(),
            frames_in: n.frames_in.val(),
            frames_out: n.frames_out.val(),
            arp_requests_answered: n.arp_requests_answered.val(),
            arp_replies_received: n.arp_replies_received.val(),
            arp_requests_sent: n.arp_requests_sent.val(),
            icmp_echoes_answered: n.icmp_echoes_answered.val(),
            dropped: n.dropped.val().to_u64() as u32,
            init_done: n.init_done.val(),
            arp_failed: n.arp_failed.val(),
            target_mac: n.target_known.val().then(|| n.target_mac.val().to_u64()),
        }
    }
}

/// The node's emitted Verilog, verilated.
struct Verilated {
    m: verilate::Model,
    k: usize,
    p: std::collections::HashMap<&'static str, verilate::Port>,
}

const PORTS: [&str; 31] = [
    "reset",
    "s_tdata",
    "s_tkeep",
    "s_tlast",
    "s_tvalid",
    "s_tuser",
    "m_tdata",
    "m_tkeep",
    "m_tlast",
    "m_tvalid",
    "m_tready",
    "fpga_mac",
    "fpga_ip",
    "target_ip",
    "fixed_mac",
    "mode",
    "arp_retry_cycles",
    "arp_attempts",
    "init",
    "init_done",
    "arp_failed",
    "target_mac",
    "target_known",
    "frames_in",
    "frames_out",
    "arp_requests_answered",
    "arp_replies_received",
    "arp_requests_sent",
    "icmp_echoes_answered",
    "dropped",
    "clock",
];

impl Verilated {
    fn new(width: usize) -> Self {
        let prefix = format!("dut{width}");
        let modules = hdl::net::node_modules(width, MTU, &prefix).unwrap();
        let top = format!("{prefix}_net_node");
        let fns = common::model(&top, &common::sources(&modules), &common::cache("net_node"));
        let mut m = verilate::Model::new(fns);
        m.set_clock("clock");
        let p = PORTS.iter().map(|&n| (n, m.port(n))).collect();
        let mut v = Verilated { m, k: width / 8, p };
        let fpga_mac = mac_u64(FPGA_MAC);
        v.set("fpga_mac", fpga_mac);
        v.set("fpga_ip", u64::from(u32::from(FPGA_IP)));
        v.set("target_ip", u64::from(u32::from(HOST_IP)));
        v.set("fixed_mac", mac_u64(FIXED_MAC));
        // Verilator's first evaluation sees no edge: an idle cycle first.
        v.m.cycle();
        v
    }

    fn set(&mut self, name: &str, value: u64) {
        let port = self.p[name];
        self.m.set(port, value);
    }

    fn get(&self, name: &str) -> u64 {
        self.m.get(self.p[name])
    }
}

impl Dut for Verilated {
    fn k(&self) -> usize {
        self.k
    }

    fn configure(&mut self, mode: u64, retry: u64, attempts: u64) {
        self.set("mode", mode);
        self.set("arp_retry_cycles", retry);
        self.set("arp_attempts", attempts);
    }

    fn drive(&mut self, rx: Option<&Beat>, tready: bool, init: bool, reset: bool) {
        self.set("m_tready", u64::from(tready));
        self.set("init", u64::from(init));
        self.set("reset", u64::from(reset));
        self.set("s_tvalid", u64::from(rx.is_some()));
        if let Some(b) = rx {
            let port = self.p["s_tdata"];
            self.m.set_bytes(port, b.data);
            let mut keep = vec![0u8; self.k / 8];
            for j in 0..b.kept {
                keep[j / 8] |= 1 << (j % 8);
            }
            let port = self.p["s_tkeep"];
            self.m.set_bytes(port, &keep);
            self.set("s_tlast", u64::from(b.last));
            self.set("s_tuser", u64::from(b.user));
        }
    }

    fn cycle(&mut self) {
        self.m.cycle();
    }

    fn outs(&self) -> Outs {
        let mut keep = vec![0u8; self.k / 8];
        self.m.get_bytes(self.p["m_tkeep"], &mut keep);
        let keep: Vec<bool> = (0..self.k).map(|j| keep[j / 8] >> (j % 8) & 1 == 1).collect();
        let mut data = vec![0u8; self.k];
        self.m.get_bytes(self.p["m_tdata"], &mut data);
        data.truncate(keep_count(&keep));
        Outs {
            tvalid: self.get("m_tvalid") == 1,
            tlast: self.get("m_tlast") == 1,
            bytes: data,
            frames_in: self.get("frames_in") == 1,
            frames_out: self.get("frames_out") == 1,
            arp_requests_answered: self.get("arp_requests_answered") == 1,
            arp_replies_received: self.get("arp_replies_received") == 1,
            arp_requests_sent: self.get("arp_requests_sent") == 1,
            icmp_echoes_answered: self.get("icmp_echoes_answered") == 1,
            dropped: self.get("dropped") as u32,
            init_done: self.get("init_done") == 1,
            arp_failed: self.get("arp_failed") == 1,
            target_mac: (self.get("target_known") == 1).then(|| self.get("target_mac")),
        }
    }
}

// ------------------------------------------------------------- the frames

fn ends_in() -> Ends {
    Ends { src_mac: HOST_MAC, dst_mac: FPGA_MAC, src_ip: HOST_IP, dst_ip: FPGA_IP }
}

fn random_data(rng: &mut impl Rng, max: usize) -> Vec<u8> {
    let n = match rng.gen_range(0..10) {
        0 => 0,
        1 => max,
        2 => rng.gen_range(0..=max),
        _ => rng.gen_range(0..=max.min(200)),
    };
    (0..n).map(|_| rng.gen()).collect()
}

fn echo(rng: &mut impl Rng, max_data: usize) -> Vec<u8> {
    let mut ends = ends_in();
    if rng.gen_ratio(1, 8) {
        ends.dst_mac = [0xff; 6];
    }
    if rng.gen_ratio(1, 4) {
        ends.src_ip = Ipv4Addr::new(192, 168, rng.gen(), rng.gen_range(1..255));
        ends.src_mac = [0x02, rng.gen(), rng.gen(), rng.gen(), rng.gen(), rng.gen()];
    }
    let data = random_data(rng, max_data);
    let mut f = frames::echo_request(ends, rng.gen(), rng.gen(), &data);
    // Ethernet padding or trailer past the IPv4 packet, not zeros, ignored
    // (the reply pads with zeros of its own).
    if rng.gen_ratio(1, 4) {
        let extra = rng.gen_range(0..40).min(14 + MTU - f.len());
        f.extend((0..extra).map(|_| rng.gen::<u8>()));
        let end = 14 + 28 + data.len();
        f[end..].iter_mut().for_each(|b| *b = rng.gen());
    }
    f
}

fn arp_request(rng: &mut impl Rng, from_target: bool) -> Vec<u8> {
    let (sha, spa) = if from_target {
        (HOST_MAC, HOST_IP)
    } else {
        ([0x02, rng.gen(), rng.gen(), rng.gen(), rng.gen(), rng.gen()], Ipv4Addr::new(10, 0, 0, rng.gen_range(3..200)))
    };
    frames::arp_request(sha, spa, FPGA_IP)
}

fn set16(f: &mut [u8], at: usize, v: u16) {
    f[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

/// A frame that fails check `reason` (and no check before it), and its tuser.
fn bad(rng: &mut impl Rng, reason: DropReason) -> (Vec<u8>, bool) {
    use DropReason::*;
    let small = |rng: &mut dyn rand::RngCore| {
        let n = rng.gen_range(0..64);
        (0..n).map(|_| rng.gen()).collect::<Vec<u8>>()
    };
    let good = |rng: &mut dyn rand::RngCore| frames::echo_request(ends_in(), rng.gen(), rng.gen(), &small(rng));
    let mut f = good(rng);
    let mut user = false;
    match reason {
        FrameError => user = true,
        Runt => {
            let n = rng.gen_range(1..60);
            f.truncate(n);
        }
        Oversize => {
            let data: Vec<u8> = (0..MTU - 28 + rng.gen_range(1..20)).map(|_| rng.gen()).collect();
            f = frames::echo_request(ends_in(), 1, 2, &data);
        }
        NotOurMac => f[..6].copy_from_slice(&[0x02, 0, 0, 0, 0, rng.gen_range(2..200)]),
        VlanTag => set16(&mut f, 12, if rng.gen() { 0x8100 } else { 0x88a8 }),
        EtherTypeUnknown => set16(&mut f, 12, 0x86dd),
        ArpMalformed => {
            f = arp_request(rng, false);
            match rng.gen_range(0..5) {
                0 => set16(&mut f, 14, 6),
                1 => set16(&mut f, 16, 0x86dd),
                2 => f[18] = 8,
                3 => f[19] = 16,
                _ => set16(&mut f, 20, rng.gen_range(3..100)),
            }
        }
        ArpNotForUs => {
            f = frames::arp_request(HOST_MAC, HOST_IP, OTHER_IP);
        }
        ArpReplyIgnored => {
            f = frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP);
        }
        Ipv4Version => {
            f[14] = 0x65;
            frames::fix_ipv4_checksum(&mut f);
        }
        Ipv4HeaderLength => f[14] = 0x40 | rng.gen_range(0..5),
        Ipv4Options => {
            f[14] = 0x46;
            frames::fix_ipv4_checksum(&mut f);
        }
        Ipv4Length => {
            let total = if rng.gen() { rng.gen_range(0..20) } else { (f.len() - 14 + rng.gen_range(1..100)) as u16 };
            set16(&mut f, 16, total);
            frames::fix_ipv4_checksum(&mut f);
        }
        Ipv4Checksum => f[24] ^= 1 << rng.gen_range(0..8),
        Ipv4NotForUs => {
            f[30..34].copy_from_slice(&OTHER_IP.octets());
            frames::fix_ipv4_checksum(&mut f);
        }
        Ipv4Fragment => {
            set16(&mut f, 20, if rng.gen() { 0x2000 } else { rng.gen_range(1..0x2000) });
            frames::fix_ipv4_checksum(&mut f);
        }
        Ipv4Protocol => {
            f[23] = if rng.gen() { 6 } else { 17 };
            frames::fix_ipv4_checksum(&mut f);
        }
        IcmpTruncated => {
            set16(&mut f, 16, rng.gen_range(20..28));
            frames::fix_ipv4_checksum(&mut f);
        }
        IcmpChecksum => {
            let at = rng.gen_range(34..14 + 28);
            f[at] ^= 0x10;
        }
        IcmpNotEchoRequest => {
            f[34] = if rng.gen() { 0 } else { 13 };
            f[35] = rng.gen_range(0..2);
            if f[34] == 8 {
                f[35] = 1;
            }
            frames::fix_icmp_checksum(&mut f);
        }
        TxBufferFull => unreachable!("tested on its own"),
    }
    (f, user)
}

/// The echo request whose reply's ICMP sum is zero: identifier, sequence
/// and data all zero (the reply's checksum is 0xffff, not 0).
fn zero_echo(rng: &mut impl Rng) -> Vec<u8> {
    let data = vec![0u8; rng.gen_range(0..40)];
    frames::echo_request(ends_in(), 0, 0, &data)
}

// ------------------------------------------------------------------ the run

/// Sums of the event pulses.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    frames_in: u64,
    frames_out: u64,
    arp_requests_answered: u64,
    arp_replies_received: u64,
    arp_requests_sent: u64,
    icmp_echoes_answered: u64,
    dropped: [u64; 21],
}

impl Tally {
    fn add(&mut self, o: &Outs) {
        self.frames_in += u64::from(o.frames_in);
        self.frames_out += u64::from(o.frames_out);
        self.arp_requests_answered += u64::from(o.arp_requests_answered);
        self.arp_replies_received += u64::from(o.arp_replies_received);
        self.arp_requests_sent += u64::from(o.arp_requests_sent);
        self.icmp_echoes_answered += u64::from(o.icmp_echoes_answered);
        assert!(o.dropped.count_ones() <= 1, "two drop reasons at once: {:#x}", o.dropped);
        for (i, d) in self.dropped.iter_mut().enumerate() {
            *d += u64::from(o.dropped >> i & 1);
        }
    }

    fn of_model(m: &NetNode) -> Self {
        let mut dropped = [0; 21];
        for r in DropReason::ALL {
            dropped[r.index()] = m.count(Counter::Dropped(r));
        }
        Tally {
            frames_in: m.count(Counter::FramesIn),
            frames_out: m.count(Counter::FramesOut),
            arp_requests_answered: m.count(Counter::ArpRequestsAnswered),
            arp_replies_received: m.count(Counter::ArpRepliesReceived),
            arp_requests_sent: m.count(Counter::ArpRequestsSent),
            icmp_echoes_answered: m.count(Counter::IcmpEchoesAnswered),
            dropped,
        }
    }
}

/// Drives a DUT cycle by cycle: feeds frames, takes the frames it sends,
/// sums its pulses.
struct Bench<'a> {
    dut: &'a mut dyn Dut,
    /// The probability of `m_tready` in a cycle.
    ready: f64,
    cycle: u64,
    tally: Tally,
    sent: Vec<Vec<u8>>,
    partial: Vec<u8>,
    last_outs: Outs,
    /// Cycles `reset` stays high from the next step on.
    reset_left: u64,
}

impl<'a> Bench<'a> {
    fn new(dut: &'a mut dyn Dut, ready: f64) -> Self {
        let last_outs = dut.outs();
        Bench {
            dut,
            ready,
            cycle: 0,
            tally: Tally::default(),
            sent: Vec::new(),
            partial: Vec::new(),
            last_outs,
            reset_left: 0,
        }
    }

    /// One cycle with `rx` (or none) and `init`; `reset` high while
    /// `reset_left` lasts. After a reset cycle no event pulse is pending, the
    /// frame being sent is cut short (its bytes are forgotten) and the
    /// pulses are summed afresh.
    fn step(&mut self, rng: &mut impl Rng, rx: Option<&Beat>, init: bool) {
        let tready = rng.gen_bool(self.ready);
        let o = &self.last_outs;
        if o.tvalid && tready {
            self.partial.extend_from_slice(&o.bytes);
            if o.tlast {
                self.sent.push(std::mem::take(&mut self.partial));
            }
        }
        let reset = self.reset_left > 0;
        self.reset_left = self.reset_left.saturating_sub(1);
        self.dut.drive(rx, tready, init, reset);
        self.dut.cycle();
        self.cycle += 1;
        self.last_outs = self.dut.outs();
        let o = self.last_outs.clone();
        if reset {
            let mut quiet = Tally::default();
            quiet.add(&o);
            assert_eq!(quiet, Tally::default(), "cycle {}: an event pulse after a reset cycle", self.cycle);
            assert!(!o.tvalid && !o.init_done && o.target_mac.is_none(), "cycle {}: not idle after reset", self.cycle);
            self.tally = Tally::default();
            self.partial.clear();
        } else {
            self.tally.add(&o);
        }
    }

    /// Feeds `frame` beat by beat, `gap` says whether an idle cycle follows each beat.
    fn feed(&mut self, rng: &mut impl Rng, frame: &[u8], user: bool, gaps: bool) {
        self.feed_reset(rng, frame, user, gaps, None);
    }

    /// As `feed`, with `reset` high for `cycles` from beat `at` on (`at` =
    /// the beats: after the last), then idle cycles while it lasts.
    fn feed_reset(&mut self, rng: &mut impl Rng, frame: &[u8], user: bool, gaps: bool, reset: Option<(usize, u64)>) {
        let k = self.dut.k();
        let beats = frame.len().div_ceil(k);
        for (i, chunk) in frame.chunks(k).enumerate() {
            if let Some((at, cycles)) = reset {
                if at == i {
                    self.reset_left = cycles;
                }
            }
            let mut data = chunk.to_vec();
            // Bytes past tkeep are garbage, as a MAC may leave them.
            data.resize_with(k, || rng.gen());
            let last = i + 1 == beats;
            let beat = Beat { data: &data, kept: chunk.len(), last, user: user && (last || rng.gen_ratio(1, 4)) };
            self.step(rng, Some(&beat), false);
            match reset {
                Some((at, cycles)) if last && at >= beats => self.reset_left = cycles,
                _ => {}
            }
            while gaps && rng.gen_ratio(1, 3) {
                self.step(rng, None, false);
            }
        }
        while self.reset_left > 0 {
            self.step(rng, None, false);
        }
    }

    fn idle(&mut self, rng: &mut impl Rng, cycles: u64) {
        for _ in 0..cycles {
            self.step(rng, None, false);
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Mix {
    /// Idle gaps between frames and inside them.
    Gaps,
    /// Back to back, no idle cycle.
    BackToBack,
}

/// One seeded run: `frames` random frames into the DUT and the model.
fn lockstep(dut: &mut dyn Dut, mode: ArpMode, mix: Mix, frames: usize, what: &str) {
    lockstep_resets(dut, mode, mix, frames, 0, what);
}

/// As `lockstep`, and with `resets` > 0 about one frame in `resets` meets a
/// reset of 1 to 3 cycles at a random beat of it (its first, its last or
/// after it): the frames sent before are a prefix of the model's, then the
/// node must answer as a fresh model does (the frame met by reset is
/// dropped whole, uncounted; `init` again, as after configuration).
fn lockstep_resets(dut: &mut dyn Dut, mode: ArpMode, mix: Mix, frames: usize, resets: u32, what: &str) {
    let mut rng = seeded_inputs::seed::rng(what);
    let mut cfg = NodeConfig::new(FPGA_MAC, FPGA_IP, HOST_IP, mode);
    cfg.target_mac = FIXED_MAC;
    let mut model = NetNode::new(cfg.clone()).unwrap();
    let mut reset_count = 0;
    dut.configure(u64::from(mode.toe_mode()), 1000, 3);
    let k = dut.k();
    let depth = hdl::net::ram_depth(k, MTU);
    let ready = [1.0, 0.9, 0.5, 0.2][rng.gen_range(0..4)];
    let mut bench = Bench::new(dut, ready);
    bench.idle(&mut rng, 2);
    bench.step(&mut rng, None, true);
    model.init(bench.cycle);
    bench.idle(&mut rng, 2);
    let mut expected: VecDeque<Vec<u8>> = VecDeque::new();
    // RAM beats of each answer not yet seen leaving the RTL (0 for ARP).
    let mut held: VecDeque<usize> = VecDeque::new();
    let mut seen = 0;
    let max_data = MTU - 28;
    let mut next_bad = rng.gen_range(0..20);
    for n in 0..frames {
        let (frame, user) = match rng.gen_range(0..20) {
            0..=6 => (echo(&mut rng, max_data), false),
            7..=8 => {
                let from_target = rng.gen_ratio(1, 2);
                (arp_request(&mut rng, from_target), false)
            }
            9 => (zero_echo(&mut rng), false),
            _ => {
                // The reasons in turn, so every one is reached in a run
                // (drawn at random, one was missed now and then).
                let reason = DropReason::ALL[next_bad % 20];
                next_bad += 1;
                bad(&mut rng, reason)
            }
        };
        // Keep the transmit side from overflowing: the answer must surely
        // fit in the RTL's RAM and FIFO (the model's buffer is drained at once).
        let mut probe = model.clone();
        probe.receive(&frame, user, bench.cycle);
        let answered = probe.tx_frames_waiting() > model.tx_frames_waiting();
        let is_arp = frame.get(12..14) == Some(&[0x08, 0x06]);
        let need = if answered && !is_arp { frame.len().div_ceil(k) } else { 0 };
        let mut waited = 0;
        loop {
            while seen < bench.sent.len() {
                seen += 1;
                held.pop_front();
            }
            if held.iter().sum::<usize>() + need <= depth && held.len() < 6 {
                break;
            }
            bench.step(&mut rng, None, false);
            waited += 1;
            assert!(
                waited < 100_000,
                "{what}: the RTL sent nothing for 100,000 cycles ({} frames owed, {} sent; RTL {:?}, model {:?})",
                held.len(),
                bench.sent.len(),
                bench.tally,
                Tally::of_model(&model)
            );
        }
        let gaps = matches!(mix, Mix::Gaps) && rng.gen_ratio(1, 4);
        if resets > 0 && rng.gen_ratio(1, resets) {
            let at = rng.gen_range(0..=frame.len().div_ceil(k));
            let cycles = rng.gen_range(1..=3);
            bench.feed_reset(&mut rng, &frame, user, gaps, Some((at, cycles)));
            reset_count += 1;
            for (i, got) in bench.sent.iter().enumerate() {
                assert_eq!(Some(got), expected.get(i), "{what}: frame {i} before reset {reset_count}");
            }
            bench.sent.clear();
            expected.clear();
            held.clear();
            seen = 0;
            model = NetNode::new(cfg.clone()).unwrap();
            let pause = rng.gen_range(0..3);
            bench.idle(&mut rng, pause);
            bench.step(&mut rng, None, true);
            model.init(bench.cycle);
            bench.idle(&mut rng, 2);
            continue;
        }
        model.receive(&frame, user, bench.cycle);
        while let Some(f) = model.transmit(bench.cycle) {
            held.push_back(if f[12..14] == [0x08, 0x06] { 0 } else { need });
            expected.push_back(f);
        }
        bench.feed(&mut rng, &frame, user, gaps);
        if matches!(mix, Mix::Gaps) {
            let gap = rng.gen_range(0..6);
            bench.idle(&mut rng, gap);
        }
        let _ = n;
    }
    // Drain: everything owed leaves, then nothing more.
    let mut waited = 0;
    while bench.sent.len() < expected.len() {
        bench.step(&mut rng, None, false);
        waited += 1;
        if waited == 200_000 {
            for (i, (got, want)) in bench.sent.iter().zip(&expected).enumerate() {
                assert_eq!(got, want, "{what}: frame {i} of {}", expected.len());
            }
        }
        assert!(
            waited < 200_000,
            "{what}: {} of {} frames sent; RTL {:?}, model {:?}",
            bench.sent.len(),
            expected.len(),
            bench.tally,
            Tally::of_model(&model)
        );
    }
    bench.idle(&mut rng, 50);
    assert_eq!(bench.sent.len(), expected.len(), "{what}: frames sent");
    for (i, (got, want)) in bench.sent.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "{what}: frame {i} of {}", expected.len());
    }
    assert_eq!(bench.tally, Tally::of_model(&model), "{what}: counters");
    if resets > 0 {
        assert!(reset_count > 0, "{what}: no reset in the run");
        return;
    }
    // The mix reached every reason but the buffer's, and both answers.
    for r in &DropReason::ALL[..20] {
        if frames >= 200 {
            assert!(bench.tally.dropped[r.index()] > 0 || mode == ArpMode::FixedMac, "{what}: no {r} drop");
        }
    }
    assert!(bench.tally.icmp_echoes_answered > 0, "{what}: no echo answered");
    if mode != ArpMode::FixedMac {
        assert!(bench.tally.arp_requests_answered > 0, "{what}: no ARP answered");
    }
    let o = bench.dut.outs();
    assert!(o.init_done, "{what}: init_done");
    let want_mac = model.target_mac().map(mac_u64);
    assert_eq!(o.target_mac, want_mac, "{what}: target MAC");
}

/// The frames per run: rust-hdl's simulator is slow at wide beats.
fn frames_for(width: usize) -> usize {
    match width {
        64 | 128 => 300,
        256 | 512 => 250,
        _ => 200,
    }
}

fn sim_run<const W: usize, const K: usize>() {
    for (mode, mix) in
        [(ArpMode::Server, Mix::Gaps), (ArpMode::Server, Mix::BackToBack), (ArpMode::FixedMac, Mix::BackToBack)]
    {
        let mut dut = Sim::<W, K>::new();
        lockstep(&mut dut, mode, mix, frames_for(W), &format!("net_node sim {W} {mode:?} {mix:?}"));
    }
}

#[test]
fn rust_hdl_simulation_matches_the_model_at_64_bits() {
    sim_run::<64, 8>();
}

#[test]
fn rust_hdl_simulation_matches_the_model_at_128_bits() {
    sim_run::<128, 16>();
}

#[test]
fn rust_hdl_simulation_matches_the_model_at_256_bits() {
    sim_run::<256, 32>();
}

#[test]
fn rust_hdl_simulation_matches_the_model_at_512_bits() {
    sim_run::<512, 64>();
}

#[test]
fn rust_hdl_simulation_matches_the_model_at_1024_bits() {
    sim_run::<1024, 128>();
}

#[test]
fn verilated_verilog_matches_the_model_at_every_width() {
    for width in config::DATA_WIDTHS {
        for (mode, mix) in
            [(ArpMode::Server, Mix::Gaps), (ArpMode::Server, Mix::BackToBack), (ArpMode::FixedMac, Mix::Gaps)]
        {
            let mut dut = Verilated::new(width);
            lockstep(&mut dut, mode, mix, 600, &format!("net_node verilated {width} {mode:?} {mix:?}"));
        }
    }
}

/// The transmit buffer full: with `m_tready` low, echo requests of the
/// largest size fill the frame RAM (two frames) and ARP requests the
/// descriptor FIFO; every answer that does not fit is dropped as
/// `tx_buffer_full`, and what does fit leaves whole once `m_tready` rises:
/// each frame sent is the model's reply to one answered request, in order.
fn overflow(dut: &mut dyn Dut, what: &str) {
    let mut rng = seeded_inputs::seed::rng(what);
    dut.configure(1, 1000, 3);
    let mut bench = Bench::new(dut, 0.0);
    bench.step(&mut rng, None, true);
    let mut model = NetNode::new(NodeConfig::new(FPGA_MAC, FPGA_IP, HOST_IP, ArpMode::Server)).unwrap();
    let mut replies = Vec::new();
    let mut fed = 0;
    for round in 0..2 {
        for _ in 0..6 {
            let data: Vec<u8> = (0..MTU - 28 - rng.gen_range(0..3)).map(|_| rng.gen()).collect();
            let f = frames::echo_request(ends_in(), rng.gen(), rng.gen(), &data);
            model.receive(&f, false, 0);
            replies.push(model.transmit(0).expect("the model answers"));
            bench.feed(&mut rng, &f, false, false);
            fed += 1;
        }
        for _ in 0..12 {
            let f = arp_request(&mut rng, false);
            model.receive(&f, false, 0);
            replies.push(model.transmit(0).expect("the model answers"));
            bench.feed(&mut rng, &f, false, round == 1);
            fed += 1;
        }
        bench.idle(&mut rng, 20);
    }
    assert!(bench.sent.is_empty(), "{what}: sent with tready low");
    bench.ready = 1.0;
    bench.idle(&mut rng, 5_000);
    let t = &bench.tally;
    let full = t.dropped[DropReason::TxBufferFull.index()];
    let answered = t.icmp_echoes_answered + t.arp_requests_answered;
    assert_eq!(t.frames_in, fed, "{what}");
    assert_eq!(answered + full, fed, "{what}: every frame answered or dropped as tx_buffer_full");
    assert!(full >= 10 && t.icmp_echoes_answered >= 2, "{what}: {t:?}");
    assert_eq!(bench.sent.len() as u64, answered, "{what}: frames sent");
    assert_eq!(t.frames_out, answered, "{what}");
    // The frames sent are the replies to some of the requests, in order, whole.
    let mut next = 0;
    for (i, f) in bench.sent.iter().enumerate() {
        let at = replies[next..]
            .iter()
            .position(|r| r == f)
            .unwrap_or_else(|| panic!("{what}: frame {i} ({} bytes) is no reply owed after reply {next}", f.len()));
        next += at + 1;
    }
}

/// Client mode: at `init` a broadcast request for target_ip, another every
/// `arp_retry_cycles`, `arp_failed` after the last; after a second `init`
/// the target's reply resolves its MAC (`init_done`), and replies nobody
/// awaits are ignored. Counters and frames as the model's.
fn client(dut: &mut dyn Dut, what: &str) {
    let mut rng = seeded_inputs::seed::rng(what);
    let (retry, attempts) = (300, 3);
    dut.configure(0, retry, attempts);
    let mut cfg = NodeConfig::new(FPGA_MAC, FPGA_IP, HOST_IP, ArpMode::Client);
    cfg.arp_retry_cycles = retry;
    cfg.arp_attempts = attempts as u32;
    let mut model = NetNode::new(cfg).unwrap();
    let mut bench = Bench::new(dut, 0.7);
    bench.idle(&mut rng, 3);
    assert!(!bench.last_outs.init_done, "{what}: init_done before init");
    bench.step(&mut rng, None, true);
    model.init(bench.cycle);
    let mut expected = Vec::new();
    for _ in 0..(attempts + 1) * retry + 50 {
        bench.step(&mut rng, None, false);
        expected.extend(model.transmit(bench.cycle));
    }
    assert!(bench.last_outs.arp_failed && model.arp_failed(), "{what}: arp_failed");
    assert!(!bench.last_outs.init_done, "{what}: init_done after failure");
    assert_eq!(expected.len(), attempts as usize);
    assert_eq!(bench.sent, expected, "{what}: the requests");
    assert_eq!(expected[0], frames::arp_request(FPGA_MAC, FPGA_IP, HOST_IP));
    // A second init, a reply from another host (ignored), the target's
    // reply (resolves), the target's reply again (ignored).
    bench.step(&mut rng, None, true);
    model.init(bench.cycle);
    bench.idle(&mut rng, 40);
    for f in [
        frames::arp_reply([0x02, 9, 9, 9, 9, 9], OTHER_IP, FPGA_MAC, FPGA_IP),
        frames::arp_reply(HOST_MAC, HOST_IP, FPGA_MAC, FPGA_IP),
        frames::arp_reply(FIXED_MAC, HOST_IP, FPGA_MAC, FPGA_IP),
    ] {
        model.receive(&f, false, bench.cycle);
        bench.feed(&mut rng, &f, false, true);
        bench.idle(&mut rng, 10);
        expected.extend(std::iter::from_fn(|| model.transmit(bench.cycle)));
    }
    bench.idle(&mut rng, 2 * retry);
    expected.extend(std::iter::from_fn(|| model.transmit(bench.cycle)));
    assert!(bench.last_outs.init_done && model.init_done(), "{what}: init_done");
    assert!(!bench.last_outs.arp_failed, "{what}: arp_failed after init");
    assert_eq!(bench.last_outs.target_mac, Some(mac_u64(HOST_MAC)), "{what}: the target's MAC");
    assert_eq!(bench.sent, expected, "{what}: frames");
    assert_eq!(bench.tally, Tally::of_model(&model), "{what}: counters");
}

#[test]
fn a_full_transmit_buffer_drops_whole_answers() {
    overflow(&mut Sim::<64, 8>::new(), "net overflow sim 64");
    overflow(&mut Sim::<1024, 128>::new(), "net overflow sim 1024");
    overflow(&mut Verilated::new(256), "net overflow verilated 256");
}

#[test]
fn client_mode_resolves_retries_and_fails_as_the_model() {
    client(&mut Sim::<64, 8>::new(), "net client sim 64");
    client(&mut Sim::<1024, 128>::new(), "net client sim 1024");
    client(&mut Verilated::new(128), "net client verilated 128");
}

/// A reset at random points of a mix (mid-frame in, mid-frame out, between
/// frames, a frame starting under reset): afterwards the node answers the
/// next frames exactly as a fresh model does, counters included, and no
/// pulse is pending after a reset cycle (`Bench::step`).
#[test]
fn a_reset_mid_traffic_leaves_a_fresh_node() {
    for (mode, mix) in [(ArpMode::Server, Mix::Gaps), (ArpMode::FixedMac, Mix::BackToBack)] {
        lockstep_resets(&mut Sim::<64, 8>::new(), mode, mix, 120, 12, &format!("net reset sim 64 {mode:?} {mix:?}"));
    }
    lockstep_resets(&mut Sim::<512, 64>::new(), ArpMode::Server, Mix::BackToBack, 80, 10, "net reset sim 512");
    for width in config::DATA_WIDTHS {
        for (mode, mix) in [(ArpMode::Server, Mix::BackToBack), (ArpMode::Server, Mix::Gaps)] {
            let what = format!("net reset verilated {width} {mode:?} {mix:?}");
            lockstep_resets(&mut Verilated::new(width), mode, mix, 300, 12, &what);
        }
    }
}
