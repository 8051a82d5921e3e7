//! The node's receiver: takes the MAC's frames (no `tready`: a MAC cannot
//! wait), decides each at its end in `net_model`'s check order, writes its
//! beats into the frame RAM and hands the transmitter a descriptor for each
//! answer.
//!
//! ```text
//!  s_t* --> 0 header bytes 0..41 (part-selects by beat index), byte position
//!  d1: the beat; its header is whole in hdr_reg (total length, bytes 16-17)
//!  d2: 14 + total length; the beat's byte count (tkeep is contiguous)
//!  d3: the beat's bytes inside the frame's end; its length so far
//!  d4: the bytes summed, the others zero (34 .. end, not 36-37)
//!  d5, d6: adder tree of the beat's 16-bit words, eight at a stage
//!  d7: the frame's ICMP sum at its last beat (cap)
//!     h0 .. h6 (from d1's last beat, in step): header checks, one flag per
//!     DropReason, the IPv4 header sum and the reply's header checksum
//!  d8: the ICMP sum's first folds    d9: flags and the answer's fields
//!  d10: decision: the first raised flag (one-hot), or the answer
//!  d1 -> d2 ... -> d10 --> writer: d10 meets the decision of its frame at its
//!             last beat: answer -> descriptor; drop -> rewind; full -> tx_buffer_full
//! ```
//!
//! Every stage has at most a few LUT levels (the synthesis estimate's
//! budget is 5): the sums are adder trees over registered stages, never a
//! chain over the beat's bytes. The writer writes each beat [`DELAY`] cycles
//! after it came, so a dropped frame's beats are given back (the write
//! pointer rewinds) before the next frame's first beat is written: frames
//! may come back to back, one per beat. A beat that meets a full RAM
//! (`tail` is the transmitter's) is not written, nor is the rest of its
//! frame; a frame that passed every check
//! is then dropped as `tx_buffer_full`, as is an answer the full
//! descriptor FIFO cannot take. ARP replies are built from the descriptor
//! alone, so an ARP frame's beats are always given back. A client-mode ARP
//! reply is awaited (`awaiting`, the ARP client's) unless the decision of
//! the cycle before took one already. A leaf because the per-byte work
//! (sum, byte count, placement) is loops, which rust-hdl's kernel language
//! lacks; `update` is its simulation model.

use rust_hdl::prelude::*;

use super::{
    b, byte_of, desc_field, fold, Desc, ADDR_BITS, DESC_BITS, DROP_REASONS, KIND_ARP_REPLY, KIND_ECHO, PTR_BITS,
};

/// Header bytes the checks and the answer read (Ethernet, ARP's 28, the
/// IPv4 header and ICMP's type, code and checksum: 0 .. 41).
const HDR_BYTES: usize = 42;

/// Reasons decided by the checks (all but `tx_buffer_full`).
const CHECKED: usize = DROP_REASONS - 1;

#[derive(LogicBlock)]
pub struct NetRx<const W: usize, const K: usize> {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: every frame in flight is dropped uncounted, the
    /// write pointer rewinds to 0, a frame still arriving is skipped to its end.
    pub reset: Signal<In, Bit>,
    // ---- Frames from the MAC (AXI4-Stream, no tready).
    /// Beat, byte 0 (first on the wire) in bits 7:0.
    pub s_tdata: Signal<In, Bits<W>>,
    /// Byte enables, contiguous from bit 0.
    pub s_tkeep: Signal<In, Bits<K>>,
    /// Last beat of a frame.
    pub s_tlast: Signal<In, Bit>,
    /// Beat valid.
    pub s_tvalid: Signal<In, Bit>,
    /// The MAC's frame error (bad FCS), on any beat of the frame.
    pub s_tuser: Signal<In, Bit>,
    // ---- Configuration.
    /// The node's MAC, first byte on the wire in bits 47:40.
    pub fpga_mac: Signal<In, Bits<48>>,
    /// The node's IPv4 address, first byte in bits 31:24.
    pub fpga_ip: Signal<In, Bits<32>>,
    /// The target's IPv4 address.
    pub target_ip: Signal<In, Bits<32>>,
    /// ARP mode (`toe_mode`): 0 client, 1 server, 2 fixed MAC.
    pub mode: Signal<In, Bits<2>>,
    /// Client mode is resolving: an ARP reply from target_ip is awaited.
    pub awaiting: Signal<In, Bit>,
    // ---- Frame RAM and descriptors.
    /// The transmitter's tail: RAM beats from it to the write pointer are in use.
    pub tail: Signal<In, Bits<PTR_BITS>>,
    /// The descriptor FIFO is full.
    pub fifo_full: Signal<In, Bit>,
    /// Write `ram_data` at `ram_addr`.
    pub ram_write: Signal<Out, Bit>,
    /// RAM word written.
    pub ram_addr: Signal<Out, Bits<ADDR_BITS>>,
    /// Beat written.
    pub ram_data: Signal<Out, Bits<W>>,
    /// Push `push_data` into the descriptor FIFO.
    pub push: Signal<Out, Bit>,
    /// The answer's descriptor (`crate::net::Desc`, packed).
    pub push_data: Signal<Out, Bits<DESC_BITS>>,
    // ---- Events (one-cycle pulses).
    /// A frame ended.
    pub frame_in: Signal<Out, Bit>,
    /// The frame was dropped: bit i is reason i of net_model's `DropReason::ALL`.
    pub dropped: Signal<Out, Bits<DROP_REASONS>>,
    /// An ARP request was answered (its reply is queued).
    pub arp_answered: Signal<Out, Bit>,
    /// An echo request was answered (its reply is queued).
    pub echo_answered: Signal<Out, Bit>,
    /// Server mode: target_ip's ARP request for fpga_ip teaches `learn_mac`.
    pub learn: Signal<Out, Bit>,
    /// Client mode: the awaited ARP reply came (`learn_mac` is the target's).
    pub resolved: Signal<Out, Bit>,
    /// The MAC learnt (with `learn` or `resolved`).
    pub learn_mac: Signal<Out, Bits<48>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
    _mtu: usize,
    _depth: usize,
    _s: State<W>,
}

/// A beat in the delay line.
#[derive(Clone, Copy, Default)]
struct Beat<const W: usize> {
    valid: bool,
    last: bool,
    data: Bits<W>,
}

/// The model's registers, as the Verilog names them.
#[derive(Clone, Default)]
struct State<const W: usize> {
    // Stage 0.
    skip: bool,
    mid: bool,
    pos: u64,
    hdr: Vec<u8>,
    err: bool,
    // Stage 1.
    d1: Beat<W>,
    d1_keep: u128,
    d1_count: u64,
    d1_pos: u64,
    d1_err: bool,
    acc: u64,
    // Stage 2.
    cap_valid: bool,
    cap_hdr: Vec<u8>,
    cap_len: u64,
    cap_sum: u64,
    cap_err: bool,
    // Stage 3.
    f_valid: bool,
    f_flags: u64,
    f_arp: bool,
    f_request: bool,
    f_from_target: bool,
    f_mac: u64,
    f_ip: u64,
    f_len: u64,
    f_total: u64,
    f_icmp: u64,
    f_ipcs: u64,
    // Stage 4.
    dv: bool,
    dropped: u64,
    kind: u64,
    learn: bool,
    resolved: bool,
    mac: u64,
    ip: u64,
    len: u64,
    total: u64,
    icmp: u64,
    ipcs: u64,
    // Stage 2 to stage 3: the captured frame, `EXTRA` cycles later (the
    // Verilog's pipelined sums take that much longer).
    capq: std::collections::VecDeque<Cap>,
    // Delay line (d2 .. d<DELAY>, the oldest last) and writer.
    dl: std::collections::VecDeque<Beat<W>>,
    wr: u64,
    start: u64,
    ovf: bool,
    // Event pulses.
    frame_in: bool,
    out_dropped: u64,
    arp_answered: bool,
    echo_answered: bool,
}

/// A captured frame on its way to the checks.
#[derive(Clone, Default)]
struct Cap {
    valid: bool,
    hdr: Vec<u8>,
    len: u64,
    sum: u64,
    err: bool,
}

/// Cycles the model's captured frame waits before its checks: the model
/// decides at d<DELAY> as the Verilog does.
const EXTRA: usize = DELAY - 4;

/// What the writer does in a cycle (combinational).
struct Write {
    ram_write: bool,
    ram_addr: u64,
    push: bool,
    desc: Desc,
    wr: u64,
    start: u64,
    ovf: bool,
    full_drop: bool,
}

impl<const W: usize> State<W> {
    fn fresh() -> Self {
        State {
            hdr: vec![0; 64],
            cap_hdr: vec![0; 64],
            capq: std::iter::repeat_with(|| Cap { hdr: vec![0; 64], ..Default::default() }).take(EXTRA).collect(),
            dl: std::iter::repeat_n(Beat::default(), DELAY - 1).collect(),
            ..Default::default()
        }
    }
}

impl<const W: usize, const K: usize> NetRx<W, K> {
    /// The MTU the oversize check uses.
    pub fn mtu(&self) -> usize {
        self._mtu
    }

    /// The receiver of a node with this MTU and a frame RAM of `depth` beats.
    pub fn new(mtu: usize, depth: usize) -> Self {
        assert!(W == 8 * K && depth.is_power_of_two() && depth <= 1 << ADDR_BITS, "NetRx: W {W} K {K} depth {depth}");
        NetRx {
            clock: Default::default(),
            reset: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tvalid: Default::default(),
            s_tuser: Default::default(),
            fpga_mac: Default::default(),
            fpga_ip: Default::default(),
            target_ip: Default::default(),
            mode: Default::default(),
            awaiting: Default::default(),
            tail: Default::default(),
            fifo_full: Default::default(),
            ram_write: Default::default(),
            ram_addr: Default::default(),
            ram_data: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            frame_in: Default::default(),
            dropped: Default::default(),
            arp_answered: Default::default(),
            echo_answered: Default::default(),
            learn: Default::default(),
            resolved: Default::default(),
            learn_mac: Default::default(),
            verilog_name: Default::default(),
            _mtu: mtu,
            _depth: depth,
            _s: State::fresh(),
        }
    }

    fn write(&self) -> Write {
        let s = &self._s;
        let ptr_mask = (1u64 << PTR_BITS) - 1;
        let full = (s.wr.wrapping_sub(self.tail.val().to_u64()) & ptr_mask) == self._depth as u64;
        let mut w = Write {
            ram_write: false,
            ram_addr: s.wr & (self._depth as u64 - 1),
            push: false,
            desc: Desc::default(),
            wr: s.wr,
            start: s.start,
            ovf: s.ovf,
            full_drop: false,
        };
        let d = *s.dl.back().expect("the delay line");
        if !d.valid {
            return w;
        }
        let can = !full && !s.ovf;
        w.ram_write = can;
        let wr1 = if can { (s.wr + 1) & ptr_mask } else { s.wr };
        if !d.last {
            w.wr = wr1;
            w.ovf = s.ovf || !can;
            return w;
        }
        let ovf = s.ovf || !can;
        let echo = s.dv && s.kind == KIND_ECHO;
        let arp = s.dv && s.kind == KIND_ARP_REPLY;
        let fifo_full = self.fifo_full.val();
        w.full_drop = (echo && (ovf || fifo_full)) || (arp && fifo_full);
        w.push = (echo || arp) && !w.full_drop;
        w.desc = Desc {
            kind: s.kind,
            start: s.start,
            end: wr1,
            len: s.len,
            mac: s.mac,
            ip: s.ip,
            icmp_csum: s.icmp,
            ip_csum: s.ipcs,
            total: s.total,
        };
        if echo && w.push {
            w.wr = wr1;
            w.start = wr1;
        } else {
            w.wr = s.start;
        }
        w.ovf = false;
        w
    }

    /// Stage 3: every check of net_model on a captured frame.
    fn flags(&mut self) {
        let s = &mut self._s;
        let cap = s.capq.pop_front().expect("the capture queue");
        s.capq.push_back(Cap {
            valid: s.cap_valid,
            hdr: s.cap_hdr.clone(),
            len: s.cap_len,
            sum: s.cap_sum,
            err: s.cap_err,
        });
        let h = &cap.hdr;
        let be16 = |i: usize| u64::from(h[i]) << 8 | u64::from(h[i + 1]);
        let be32 = |i: usize| be16(i) << 16 | be16(i + 2);
        let be48 = |i: usize| be16(i) << 32 | be32(i + 2);
        let fpga_mac = self.fpga_mac.val().to_u64();
        let fpga_ip = self.fpga_ip.val().to_u64();
        let mode = self.mode.val().to_u64();
        let ethertype = be16(12);
        let (arp, ipv4) = (ethertype == 0x0806, ethertype == 0x0800);
        let dst = be48(0);
        let oper = be16(20);
        let total = be16(16);
        let ihl = u64::from(h[14] & 0xf);
        let ip_sum: u64 = (0..10).map(|i| be16(14 + 2 * i)).sum();
        let mut v = [false; CHECKED];
        v[0] = cap.err;
        v[1] = cap.len < 60;
        v[2] = cap.len > 14 + self._mtu as u64;
        v[3] = dst != fpga_mac && dst != 0xffff_ffff_ffff;
        v[4] = ethertype == 0x8100 || ethertype == 0x88a8;
        v[5] = !arp && !ipv4 && !v[4];
        v[6] = arp && (be16(14) != 1 || be16(16) != 0x0800 || h[18] != 6 || h[19] != 4 || (oper != 1 && oper != 2));
        v[7] = arp && (mode == 2 || be32(38) != fpga_ip);
        v[8] = arp && oper == 2;
        v[9] = ipv4 && h[14] >> 4 != 4;
        v[10] = ipv4 && ihl < 5;
        v[11] = ipv4 && ihl > 5;
        v[12] = ipv4 && (total < 20 || total + 14 > cap.len);
        v[13] = ipv4 && fold(ip_sum) != 0xffff;
        v[14] = ipv4 && be32(30) != fpga_ip;
        v[15] = ipv4 && be16(20) & 0x3fff != 0;
        v[16] = ipv4 && h[23] != 1;
        v[17] = ipv4 && total < 28;
        v[18] = ipv4 && fold(cap.sum + be16(36)) != 0xffff;
        v[19] = ipv4 && (h[34] != 8 || h[35] != 0);
        s.f_valid = cap.valid;
        s.f_flags = v.iter().enumerate().fold(0, |f, (i, &x)| f | u64::from(x) << i);
        s.f_arp = arp;
        s.f_request = oper == 1;
        s.f_from_target = be32(28) == self.target_ip.val().to_u64();
        s.f_mac = if arp { be48(22) } else { be48(6) };
        s.f_ip = if arp { be32(28) } else { be32(26) };
        s.f_len = if arp { 60 } else { (14 + total).max(60) };
        s.f_total = total & 0x7fff;
        // The reply's ICMP sum is the request's without its type (8 -> 0):
        // an integer subtraction of the unfolded sum, so a message of all
        // zeros sums to 0 and its checksum is 0xffff, as net_model's.
        s.f_icmp = !fold(cap.sum.wrapping_sub(0x0800) & 0xffff_ffff) & 0xffff;
        let src_ip = be32(26);
        let ipcs = 0x4500
            + total
            + 0x4000
            + 0x4001
            + (fpga_ip >> 16)
            + (fpga_ip & 0xffff)
            + (src_ip >> 16)
            + (src_ip & 0xffff);
        s.f_ipcs = !fold(ipcs) & 0xffff;
    }

    /// Stage 4: the first raised flag, or the answer.
    fn decide(&mut self) {
        let s = &mut self._s;
        let mode = self.mode.val().to_u64();
        // A reply taken by the decision of the cycle before is no longer awaited.
        let awaiting = self.awaiting.val() && !(s.dv && s.resolved);
        let mut flags = s.f_flags;
        if awaiting && s.f_from_target {
            flags &= !(1 << 8);
        }
        let drop = flags != 0;
        s.dv = s.f_valid;
        s.frame_in = s.f_valid;
        s.dropped = if s.f_valid { flags & flags.wrapping_neg() } else { 0 };
        let ok = s.f_valid && !drop;
        s.kind = match (ok, s.f_arp, s.f_request) {
            (false, _, _) => 0,
            (true, true, true) => KIND_ARP_REPLY,
            (true, true, false) => 0,
            (true, false, _) => KIND_ECHO,
        };
        s.learn = ok && s.f_arp && s.f_request && mode == 1 && s.f_from_target;
        s.resolved = ok && s.f_arp && !s.f_request;
        s.mac = s.f_mac;
        s.ip = s.f_ip;
        s.len = s.f_len;
        s.total = s.f_total;
        s.icmp = s.f_icmp;
        s.ipcs = s.f_ipcs;
    }

    /// Stages 0 to 2 at a clock edge.
    fn capture(&mut self) {
        let data = self.s_tdata.val();
        let keep = (0..K).fold(0u128, |k, j| k | u128::from(self.s_tkeep.val().get_bit(j)) << j);
        let (valid, last, user) = (self.s_tvalid.val(), self.s_tlast.val(), self.s_tuser.val());
        let s = &mut self._s;
        // The rest of a frame begun before or during reset is skipped.
        let skipped = s.skip;
        if valid && skipped {
            s.skip = !last;
        }
        let valid = valid && !skipped;
        // Stage 2 from stage 1 (d1 and the header as it stood after d1's beat).
        let total = u64::from(s.hdr[16]) << 8 | u64::from(s.hdr[17]);
        let hi = 14 + total;
        let mut beat_sum = 0;
        for j in 0..K {
            let p = s.d1_pos + j as u64;
            if s.d1_keep >> j & 1 == 1 && p >= 34 && p < hi && p != 36 && p != 37 {
                let byte = u64::from(byte_of(s.d1.data, j));
                beat_sum += if j % 2 == 0 { byte << 8 } else { byte };
            }
        }
        let base = if s.d1_pos == 0 { 0 } else { s.acc };
        s.cap_valid = s.d1.valid && s.d1.last;
        if s.d1.valid {
            s.acc = (base + beat_sum) & 0xffff_ffff;
            if s.d1.last {
                s.cap_hdr.clone_from(&s.hdr);
                s.cap_len = (s.d1_pos + s.d1_count).min(0xffff);
                s.cap_sum = s.acc;
                s.cap_err = s.d1_err;
            }
        }
        // Stage 1 from stage 0.
        let pos = if s.mid { s.pos } else { 0 };
        let err = (s.mid && s.err) || user;
        s.d1 = Beat { valid, last, data };
        s.d1_keep = keep;
        s.d1_count = u64::from(keep.count_ones());
        s.d1_pos = pos;
        s.d1_err = err;
        if valid {
            if !s.mid {
                s.hdr.iter_mut().for_each(|x| *x = 0);
            }
            if pos < 64 {
                for j in 0..K.min(64) {
                    s.hdr[pos as usize + j] = byte_of(data, j);
                }
            }
            s.pos = if last { 0 } else { (pos + K as u64).min(0xffff) };
            s.mid = !last;
            s.err = err && !last;
        }
    }
}

impl<const W: usize, const K: usize> Logic for NetRx<W, K> {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.reset.val() {
            let s = &self._s;
            // Registers without a valid bit need not keep their values: none
            // is read before a new frame's first beat sets it.
            let skip = if self.s_tvalid.val() { !self.s_tlast.val() } else { s.skip || s.mid };
            self._s = State { skip, ..State::fresh() };
        } else if self.clock.pos_edge() {
            let w = self.write();
            let dv = self._s.dv;
            let (dropped, kind) = (self._s.dropped, self._s.kind);
            self._s.out_dropped = if dv { dropped | u64::from(w.full_drop) << CHECKED } else { 0 };
            self._s.arp_answered = w.push && kind == KIND_ARP_REPLY;
            self._s.echo_answered = w.push && kind == KIND_ECHO;
            self._s.wr = w.wr;
            self._s.start = w.start;
            self._s.ovf = w.ovf;
            self.decide();
            self.flags();
            let d1 = self._s.d1;
            self._s.dl.pop_back();
            self._s.dl.push_front(d1);
            self.capture();
        }
        let w = self.write();
        self.ram_write.next = w.ram_write;
        self.ram_addr.next = b(w.ram_addr);
        self.ram_data.next = self._s.dl.back().expect("the delay line").data;
        self.push.next = w.push;
        self.push_data.next = w.desc.pack();
        self.frame_in.next = self._s.frame_in;
        self.dropped.next = b(self._s.out_dropped);
        self.arp_answered.next = self._s.arp_answered;
        self.echo_answered.next = self._s.echo_answered;
        self.learn.next = self._s.dv && self._s.learn;
        self.resolved.next = self._s.dv && self._s.resolved;
        self.learn_mac.next = b(self._s.mac);
    }

    fn connect(&mut self) {
        self.ram_write.connect();
        self.ram_addr.connect();
        self.ram_data.connect();
        self.push.connect();
        self.push_data.connect();
        self.frame_in.connect();
        self.dropped.connect();
        self.arp_answered.connect();
        self.echo_answered.connect();
        self.learn.connect();
        self.resolved.connect();
        self.learn_mac.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog::<W, K>(self._mtu, self._depth))
    }
}

/// Header byte `i` of vector `v` (byte i in bits 8i+7:8i).
fn hb(v: &str, i: usize) -> String {
    format!("{v}[{}:{}]", 8 * i + 7, 8 * i)
}

/// The big-endian field of `n` bytes at byte `i` of vector `v`.
fn be(v: &str, i: usize, n: usize) -> String {
    let bytes: Vec<String> = (i..i + n).map(|k| hb(v, k)).collect();
    format!("{{{}}}", bytes.join(", "))
}

/// Beats between a beat's arrival and the writer (`d<DELAY>`): the decision
/// on its frame is known then (see the module's diagram).
pub const DELAY: usize = 10;

/// Beats of a frame that hold header bytes (0 .. 41) at K bytes a beat.
fn header_beats(k: usize) -> usize {
    HDR_BYTES.div_ceil(k)
}

/// The K-bit mask of the bytes of beat `beat` (of a frame) that may be
/// summed: at byte 34 or after, not the checksum field (36, 37).
fn low_mask(k: usize, beat: usize) -> u128 {
    (0..k)
        .filter(|j| {
            let p = beat * k + j;
            p >= 34 && p != 36 && p != 37
        })
        .fold(0, |m, j| m | 1 << j)
}

/// Bits that hold 0 ..= v.
fn bits_for(v: usize) -> usize {
    (usize::BITS - v.leading_zeros()) as usize
}

/// `(a + b) + (c + d) ...` of `terms` zero-extended to `width` bits.
fn sum_of(terms: &[String], widths: &[usize], width: usize) -> String {
    let ext: Vec<String> = terms
        .iter()
        .zip(widths)
        .map(|(t, &w)| if w < width { format!("{{{}'d0, {t}}}", width - w) } else { t.clone() })
        .collect();
    // Pairs first: an adder tree, not a chain.
    let mut level = ext;
    while level.len() > 1 {
        level = level
            .chunks(2)
            .map(|c| if c.len() == 2 { format!("({} + {})", c[0], c[1]) } else { c[0].clone() })
            .collect();
    }
    level.pop().unwrap_or_else(|| format!("{width}'d0"))
}

fn verilog<const W: usize, const K: usize>(mtu: usize, depth: usize) -> String {
    let h = "cap_hdr_reg";
    let hb_bits = 8 * HDR_BYTES;
    let nb = header_beats(K);
    let mut t = String::new();
    // ---------------------------------------------------------------- stage 0
    let placement: String = (0..nb)
        .map(|beat| {
            let top = ((beat + 1) * W).min(hb_bits) - 1;
            format!("    if (bidx_now == 3'd{beat}) hdr_next[{top}:{}] = s_tdata[{}:0];\n", beat * W, top - beat * W)
        })
        .collect();
    t.push_str(&format!(
        "// Stage 0: the beat's place in its frame (byte position, beat index up
// to {nb}: the beats with header bytes), the header so far.
wire [15:0] pos_now = mid_reg ? pos_reg : 16'd0;
wire  [2:0] bidx_now = mid_reg ? bidx_reg : 3'd0;
wire        err_now = (mid_reg && err_reg) || s_tuser;
reg  [{hm}:0] hdr_next;
always @(*) begin
    hdr_next = mid_reg ? hdr_reg : {hb_bits}'d0;
{placement}end
reg         mid_reg = 1'b0;
reg  [15:0] pos_reg = 16'd0;
reg   [2:0] bidx_reg = 3'd0;
reg         err_reg = 1'b0;
reg [{hm}:0] hdr_reg = {hb_bits}'d0;
// The rest of a frame begun before or during reset is skipped.
reg         skip_reg = 1'b0;
wire        in_valid = s_tvalid && !skip_reg && !reset;
wire [16:0] pos_step = {{1'b0, pos_now}} + 17'd{K};
always @(posedge clock) begin
    if (reset) begin
        mid_reg <= 1'b0;
        err_reg <= 1'b0;
        skip_reg <= s_tvalid ? !s_tlast : skip_reg || mid_reg;
    end else begin
        if (s_tvalid && skip_reg) skip_reg <= !s_tlast;
        if (in_valid) begin
            hdr_reg <= hdr_next;
            pos_reg <= s_tlast ? 16'd0 : (pos_step[16] ? 16'hffff : pos_step[15:0]);
            bidx_reg <= s_tlast ? 3'd0 : (bidx_now == 3'd{nb} ? 3'd{nb} : bidx_now + 3'd1);
            mid_reg <= !s_tlast;
            err_reg <= err_now && !s_tlast;
        end
    end
end
",
        hm = hb_bits - 1,
    ));
    // ------------------------------------------------- the beat's delay line
    let wm = W - 1;
    let km = K - 1;
    t.push_str(&format!(
        "
// The beat's delay line, d1 .. d{DELAY}: d{DELAY} meets its frame's decision
// at the writer. Only the valid bits are reset (the data are shift registers).
reg          d1_valid_reg = 1'b0;
reg          d1_last_reg = 1'b0;
reg  [{wm}:0] d1_data_reg = {W}'d0;
always @(posedge clock) begin
    d1_valid_reg <= in_valid;
    d1_last_reg <= s_tlast;
    d1_data_reg <= s_tdata;
end
"
    ));
    for n in 2..=DELAY {
        t.push_str(&format!(
            "reg          d{n}_valid_reg = 1'b0;
reg          d{n}_last_reg = 1'b0;
reg  [{wm}:0] d{n}_data_reg = {W}'d0;
always @(posedge clock) begin
    d{n}_valid_reg <= !reset && d{p}_valid_reg;
    d{n}_last_reg <= d{p}_last_reg;
    d{n}_data_reg <= d{p}_data_reg;
end
",
            p = n - 1
        ));
    }
    // ------------------------------------------- the sum and the byte count
    let cw = bits_for(K);
    let count_bits: Vec<String> = (0..cw)
        .map(|bit| {
            let terms: Vec<String> = (0..K)
                .filter(|j| (j + 1) >> bit & 1 == 1)
                .map(|j| {
                    if j + 1 < K {
                        format!("(d1_keep_reg[{j}] && !d1_keep_reg[{}])", j + 1)
                    } else {
                        format!("d1_keep_reg[{j}]")
                    }
                })
                .collect();
            format!("assign cnt_now[{bit}] = {};\n", terms.join("\n                    || "))
        })
        .collect();
    let lows: String =
        (0..nb).map(|beat| format!("        3'd{beat}: low = {K}'h{:x};\n", low_mask(K, beat))).collect();
    let words = K / 2;
    let word = |i: usize| format!("{{md_reg[{}:{}], md_reg[{}:{}]}}", 16 * i + 7, 16 * i, 16 * i + 15, 16 * i + 8);
    let n1 = words.div_ceil(8);
    let t1: String = (0..n1)
        .map(|g| {
            let terms: Vec<String> = (8 * g..(8 * g + 8).min(words)).map(word).collect();
            let widths = vec![16; terms.len()];
            format!("    t1_{g}_reg <= {};\n", sum_of(&terms, &widths, 19))
        })
        .collect();
    let t1_regs: String = (0..n1).map(|g| format!("reg  [18:0] t1_{g}_reg = 19'd0;\n")).collect();
    let t2_terms: Vec<String> = (0..n1).map(|g| format!("t1_{g}_reg")).collect();
    let t2 = sum_of(&t2_terms, &vec![19; n1], 22);
    let rw = bits_for(K);
    let rem8 = if rw < 8 { format!("{{{}'d0, rem3_reg}}", 8 - rw) } else { "rem3_reg".to_string() };
    let ctl = |n: usize| format!("reg          c{n}_first_reg = 1'b0;\n");
    t.push_str(&format!(
        "
// d1: the beat's keep, position, beat index and error.
reg  [{km}:0] d1_keep_reg = {K}'d0;
reg   [15:0] d1_pos_reg = 16'd0;
reg    [2:0] d1_bidx_reg = 3'd0;
reg          d1_err_reg = 1'b0;
always @(posedge clock) begin
    d1_keep_reg <= s_tkeep;
    d1_pos_reg <= pos_now;
    d1_bidx_reg <= bidx_now;
    d1_err_reg <= err_now;
end
// d2: the frame's end (14 + total length: the header of d1 is whole), the
// beat's byte count (tkeep is contiguous: the place of its last one).
wire [{cwm}:0] cnt_now;
{count_bits}reg   [16:0] end2_reg = 17'd0;
reg  [{cwm}:0] cnt2_reg = {cw}'d0;
reg  [{km}:0] d2_keep_reg = {K}'d0;
reg   [15:0] d2_pos_reg = 16'd0;
reg    [2:0] d2_bidx_reg = 3'd0;
{c2}always @(posedge clock) begin
    end2_reg <= 17'd14 + {{1'b0, hdr_reg[135:128], hdr_reg[143:136]}};
    cnt2_reg <= cnt_now;
    d2_keep_reg <= d1_keep_reg;
    d2_pos_reg <= d1_pos_reg;
    d2_bidx_reg <= d1_bidx_reg;
    c2_first_reg <= d1_pos_reg == 16'd0;
    c2_err_reg <= d1_err_reg;
end
// d3: the bytes of the beat inside the frame's end (0 .. K), its length so far.
wire [17:0] rem_diff = {{1'b0, end2_reg}} - {{2'd0, d2_pos_reg}};
wire [16:0] len_sum = {{1'b0, d2_pos_reg}} + {{{cpad}'d0, cnt2_reg}};
reg  [{rwm}:0] rem3_reg = {rw}'d0;
reg  [{km}:0] d3_keep_reg = {K}'d0;
reg    [2:0] d3_bidx_reg = 3'd0;
{c3}reg          c3_err_reg = 1'b0;
reg   [15:0] c3_len_reg = 16'd0;
always @(posedge clock) begin
    rem3_reg <= rem_diff[17] ? {rw}'d0 : rem_diff[16:0] >= 17'd{K} ? {rw}'d{K} : rem_diff[{rwm}:0];
    d3_keep_reg <= d2_keep_reg;
    d3_bidx_reg <= d2_bidx_reg;
    c3_first_reg <= c2_first_reg;
    c3_err_reg <= c2_err_reg;
    c3_len_reg <= len_sum[16] ? 16'hffff : len_sum[15:0];
end
// d4: the bytes summed (kept, inside 34 .. 14 + total length, not the
// checksum field), the others zero.
reg  [{km}:0] low;
always @(*) begin
    case (d3_bidx_reg)
{lows}        default: low = {{{K}{{1'b1}}}};
    endcase
end
reg  [{wm}:0] md_next;
integer j;
always @(*) begin
    for (j = 0; j < {K}; j = j + 1) begin
        md_next[8*j +: 8] = d3_keep_reg[j] && low[j] && {rem8} > j[7:0] ? d3_data_reg[8*j +: 8] : 8'd0;
    end
end
reg  [{wm}:0] md_reg = {W}'d0;
{c4}always @(posedge clock) begin
    md_reg <= md_next;
    c4_first_reg <= c3_first_reg;
end
// d5, d6: the beat's sum, an adder tree of its {words} 16-bit words, eight at a stage.
{t1_regs}reg   [21:0] t2_reg = 22'd0;
{c5}{c6}always @(posedge clock) begin
{t1}    t2_reg <= {t2};
    c5_first_reg <= c4_first_reg;
    c6_first_reg <= c5_first_reg;
end
// d7: the frame's sum so far; at its last beat the ICMP sum.
reg  [31:0] acc_reg = 32'd0;
wire [31:0] acc_now = (c6_first_reg ? 32'd0 : acc_reg) + {{10'd0, t2_reg}};
reg         cap_valid_reg = 1'b0;
reg  [31:0] cap_sum_reg = 32'd0;
always @(posedge clock) begin
    cap_valid_reg <= !reset && d6_valid_reg && d6_last_reg;
    if (d6_valid_reg) begin
        acc_reg <= acc_now;
        if (d6_last_reg) cap_sum_reg <= acc_now;
    end
end
",
        cwm = cw - 1,
        cpad = 17 - cw,
        rwm = rw - 1,
        c2 = "reg          c2_first_reg = 1'b0;\nreg          c2_err_reg = 1'b0;\n",
        c3 = ctl(3),
        c4 = ctl(4),
        c5 = ctl(5),
        c6 = ctl(6),
        count_bits = count_bits.concat(),
    ));
    let ip_words: Vec<String> = (0..10).map(|i| be(h, 14 + 2 * i, 2)).collect();
    // MF and the fragment offset: the low 14 bits of bytes 20-21, as a
    // plain concatenation (a part-select of a concatenation is not Verilog).
    let frag = format!("{{{h}[{}:{}], {}}}", 8 * 20 + 5, 8 * 20, hb(h, 21));
    let ip_p0 = sum_of(&ip_words[0..4], &[16; 4], 18);
    let ip_p1 = sum_of(&ip_words[4..8], &[16; 4], 18);
    let ip_p2 = sum_of(&ip_words[8..10], &[16; 2], 17);
    // The bundle of a frame's header results carried from h4 to h6.
    let bundle = "flags ipv4 arp request from_target mac ip len total ipcs field";
    let widths = [CHECKED, 1, 1, 1, 1, 48, 32, 14, 15, 16, 16];
    let names: Vec<&str> = bundle.split(' ').collect();
    let mut carry = String::new();
    for n in 5..=6 {
        // h6's field is not read (h5's meets the sum).
        let names: Vec<&str> = names.iter().copied().filter(|&x| n == 5 || x != "field").collect();
        for (name, w) in names.iter().zip(widths) {
            carry.push_str(&format!("reg  [{}:0] h{n}_{name}_reg = {w}'d0;\n", w - 1));
        }
        carry.push_str("always @(posedge clock) begin\n");
        for name in &names {
            carry.push_str(&format!("    h{n}_{name}_reg <= h{}_{name}_reg;\n", n - 1));
        }
        carry.push_str("end\n");
    }
    t.push_str(&format!(
        "
// h0 .. h4: the header of a frame whose last beat is in d<n+2>: its checks,
// one flag per reason (bit = its index), and the answer's fields; the sums
// (the IPv4 header's, the reply's header checksum) are adder trees over
// the stages. h1 .. h6 shift every cycle: only the frame's own stage is read.
reg [{hm}:0] {h} = {hb_bits}'d0;
always @(posedge clock) begin
    if (d1_valid_reg && d1_last_reg) {h} <= hdr_reg;
end
wire [15:0] ethertype = {et};
wire [15:0] oper = {oper};
wire [15:0] total = {total};
wire  [3:0] ihl = {h}[115:112];
wire [31:0] src_ip = {src_ip};
reg         h1_arp_reg = 1'b0, h1_ipv4_reg = 1'b0, h1_vlan_reg = 1'b0;
reg         h1_dst_me_reg = 1'b0, h1_dst_bc_reg = 1'b0, h1_arp_bad_reg = 1'b0, h1_tpa_me_reg = 1'b0;
reg         h1_oper1_reg = 1'b0, h1_oper2_reg = 1'b0, h1_ver_bad_reg = 1'b0, h1_ihl_lt5_reg = 1'b0;
reg         h1_ihl_gt5_reg = 1'b0, h1_total_lt20_reg = 1'b0, h1_total_lt28_reg = 1'b0, h1_ipdst_bad_reg = 1'b0;
reg         h1_frag_reg = 1'b0, h1_proto_bad_reg = 1'b0, h1_icmp_bad_reg = 1'b0, h1_from_target_reg = 1'b0;
reg         h1_mode2_reg = 1'b0;
reg  [16:0] h1_end_reg = 17'd0;
reg  [17:0] h1_p0_reg = 18'd0, h1_p1_reg = 18'd0, h1_q0_reg = 18'd0;
reg  [16:0] h1_p2_reg = 17'd0, h1_q1_reg = 17'd0;
reg  [47:0] h1_mac_reg = 48'd0;
reg  [31:0] h1_ip_reg = 32'd0;
reg  [14:0] h1_total_reg = 15'd0;
reg  [15:0] h1_field_reg = 16'd0;
always @(posedge clock) begin
    h1_arp_reg <= ethertype == 16'h0806;
    h1_ipv4_reg <= ethertype == 16'h0800;
    h1_vlan_reg <= ethertype == 16'h8100 || ethertype == 16'h88a8;
    h1_dst_me_reg <= {dst} == fpga_mac;
    h1_dst_bc_reg <= {dst} == 48'hffffffffffff;
    h1_arp_bad_reg <= {htype} != 16'h0001 || {ptype} != 16'h0800 || {hlen} != 8'd6 || {plen} != 8'd4
                      || (oper != 16'd1 && oper != 16'd2);
    h1_tpa_me_reg <= {tpa} == fpga_ip;
    h1_oper1_reg <= oper == 16'd1;
    h1_oper2_reg <= oper == 16'd2;
    h1_ver_bad_reg <= {h}[119:116] != 4'd4;
    h1_ihl_lt5_reg <= ihl < 4'd5;
    h1_ihl_gt5_reg <= ihl > 4'd5;
    h1_total_lt20_reg <= total < 16'd20;
    h1_total_lt28_reg <= total < 16'd28;
    h1_ipdst_bad_reg <= {ip_dst} != fpga_ip;
    h1_frag_reg <= {frag} != 14'd0;
    h1_proto_bad_reg <= {proto} != 8'd1;
    h1_icmp_bad_reg <= {icmp_type} != 8'd8 || {icmp_code} != 8'd0;
    h1_from_target_reg <= {spa} == target_ip;
    h1_mode2_reg <= mode == 2'd2;
    h1_end_reg <= {{1'b0, total}} + 17'd14;
    h1_p0_reg <= {ip_p0};
    h1_p1_reg <= {ip_p1};
    h1_p2_reg <= {ip_p2};
    // The reply's header checksum: 0x4500 + 0x4000 + 0x4001 = 0xc501, its
    // total length, fpga_ip and the requester's address.
    h1_q0_reg <= ({{2'd0, total}} + 18'h0c501) + ({{2'd0, fpga_ip[31:16]}} + {{2'd0, fpga_ip[15:0]}});
    h1_q1_reg <= {{1'b0, src_ip[31:16]}} + {{1'b0, src_ip[15:0]}};
    h1_mac_reg <= ethertype == 16'h0806 ? {sha} : {src_mac};
    h1_ip_reg <= ethertype == 16'h0806 ? {spa} : src_ip;
    h1_total_reg <= total[14:0];
    h1_field_reg <= {icmp_field};
end
// h2: the flags (13 and 18 later: the checksums), with the frame's length
// and error from c3 (its last beat).
wire [{cm}:0] flags2;
assign flags2[0] = c3_err_reg;
assign flags2[1] = c3_len_reg < 16'd60;
assign flags2[2] = c3_len_reg > 16'd{max_len};
assign flags2[3] = !h1_dst_me_reg && !h1_dst_bc_reg;
assign flags2[4] = h1_vlan_reg;
assign flags2[5] = !h1_arp_reg && !h1_ipv4_reg && !h1_vlan_reg;
assign flags2[6] = h1_arp_reg && h1_arp_bad_reg;
assign flags2[7] = h1_arp_reg && (h1_mode2_reg || !h1_tpa_me_reg);
assign flags2[8] = h1_arp_reg && h1_oper2_reg;
assign flags2[9] = h1_ipv4_reg && h1_ver_bad_reg;
assign flags2[10] = h1_ipv4_reg && h1_ihl_lt5_reg;
assign flags2[11] = h1_ipv4_reg && h1_ihl_gt5_reg;
assign flags2[12] = h1_ipv4_reg && (h1_total_lt20_reg || h1_end_reg > {{1'b0, c3_len_reg}});
assign flags2[13] = 1'b0;
assign flags2[14] = h1_ipv4_reg && h1_ipdst_bad_reg;
assign flags2[15] = h1_ipv4_reg && h1_frag_reg;
assign flags2[16] = h1_ipv4_reg && h1_proto_bad_reg;
assign flags2[17] = h1_ipv4_reg && h1_total_lt28_reg;
assign flags2[18] = 1'b0;
assign flags2[19] = h1_ipv4_reg && h1_icmp_bad_reg;
reg  [{cm}:0] h2_flags_reg = {checked}'d0;
reg         h2_ipv4_reg = 1'b0, h2_arp_reg = 1'b0, h2_request_reg = 1'b0, h2_from_target_reg = 1'b0;
reg  [47:0] h2_mac_reg = 48'd0;
reg  [31:0] h2_ip_reg = 32'd0;
reg  [13:0] h2_len_reg = 14'd0;
reg  [14:0] h2_total_reg = 15'd0;
reg  [15:0] h2_field_reg = 16'd0;
reg  [19:0] h2_ip_sum_reg = 20'd0, h2_ipcs_sum_reg = 20'd0;
always @(posedge clock) begin
    h2_flags_reg <= flags2;
    h2_ipv4_reg <= h1_ipv4_reg;
    h2_arp_reg <= h1_arp_reg;
    h2_request_reg <= h1_oper1_reg;
    h2_from_target_reg <= h1_from_target_reg;
    h2_mac_reg <= h1_mac_reg;
    h2_ip_reg <= h1_ip_reg;
    h2_len_reg <= h1_arp_reg || h1_end_reg < 17'd60 ? 14'd60 : h1_end_reg[13:0];
    h2_total_reg <= h1_total_reg;
    h2_field_reg <= h1_field_reg;
    h2_ip_sum_reg <= ({{2'd0, h1_p0_reg}} + {{2'd0, h1_p1_reg}}) + {{3'd0, h1_p2_reg}};
    h2_ipcs_sum_reg <= {{2'd0, h1_q0_reg}} + {{3'd0, h1_q1_reg}};
end
// h3: the sums' first fold; h4: the IPv4 header check (a fold is 0xffff
// when the first fold is 0x0ffff or 0x1fffe), the reply's header checksum.
reg  [{cm}:0] h3_flags_reg = {checked}'d0;
reg         h3_ipv4_reg = 1'b0, h3_arp_reg = 1'b0, h3_request_reg = 1'b0, h3_from_target_reg = 1'b0;
reg  [47:0] h3_mac_reg = 48'd0;
reg  [31:0] h3_ip_reg = 32'd0;
reg  [13:0] h3_len_reg = 14'd0;
reg  [14:0] h3_total_reg = 15'd0;
reg  [15:0] h3_field_reg = 16'd0;
reg  [16:0] h3_ip_fold_reg = 17'd0, h3_ipcs_fold_reg = 17'd0;
always @(posedge clock) begin
    h3_flags_reg <= h2_flags_reg;
    h3_ipv4_reg <= h2_ipv4_reg;
    h3_arp_reg <= h2_arp_reg;
    h3_request_reg <= h2_request_reg;
    h3_from_target_reg <= h2_from_target_reg;
    h3_mac_reg <= h2_mac_reg;
    h3_ip_reg <= h2_ip_reg;
    h3_len_reg <= h2_len_reg;
    h3_total_reg <= h2_total_reg;
    h3_field_reg <= h2_field_reg;
    h3_ip_fold_reg <= {{1'b0, h2_ip_sum_reg[15:0]}} + {{13'd0, h2_ip_sum_reg[19:16]}};
    h3_ipcs_fold_reg <= {{1'b0, h2_ipcs_sum_reg[15:0]}} + {{13'd0, h2_ipcs_sum_reg[19:16]}};
end
wire        ip_sum_ok = h3_ip_fold_reg == 17'h0ffff || h3_ip_fold_reg == 17'h1fffe;
wire [15:0] ipcs_fold = h3_ipcs_fold_reg[15:0] + {{15'd0, h3_ipcs_fold_reg[16]}};
reg  [{cm}:0] h4_flags_reg = {checked}'d0;
reg         h4_ipv4_reg = 1'b0, h4_arp_reg = 1'b0, h4_request_reg = 1'b0, h4_from_target_reg = 1'b0;
reg  [47:0] h4_mac_reg = 48'd0;
reg  [31:0] h4_ip_reg = 32'd0;
reg  [13:0] h4_len_reg = 14'd0;
reg  [14:0] h4_total_reg = 15'd0;
reg  [15:0] h4_ipcs_reg = 16'd0, h4_field_reg = 16'd0;
always @(posedge clock) begin
    h4_flags_reg <= h3_flags_reg | ({{{cm}'d0, h3_ipv4_reg && !ip_sum_ok}} << 13);
    h4_ipv4_reg <= h3_ipv4_reg;
    h4_arp_reg <= h3_arp_reg;
    h4_request_reg <= h3_request_reg;
    h4_from_target_reg <= h3_from_target_reg;
    h4_mac_reg <= h3_mac_reg;
    h4_ip_reg <= h3_ip_reg;
    h4_len_reg <= h3_len_reg;
    h4_total_reg <= h3_total_reg;
    h4_ipcs_reg <= ~ipcs_fold;
    h4_field_reg <= h3_field_reg;
end
// h5, h6: carried to meet the ICMP sum.
{carry}
// u: the ICMP sum's first folds, with its checksum field (the check) and
// less the request's type 8 (the reply's: an integer subtraction of the
// unfolded sum, so an all-zero message gets 0xffff as net_model's does).
wire [31:0] icmp_all = cap_sum_reg + {{16'd0, h5_field_reg}};
wire [31:0] reply_sum = cap_sum_reg - 32'h0800;
reg         u_valid_reg = 1'b0;
reg  [16:0] u_icmp_reg = 17'd0, u_reply_reg = 17'd0;
always @(posedge clock) begin
    u_valid_reg <= !reset && cap_valid_reg;
    u_icmp_reg <= {{1'b0, icmp_all[15:0]}} + {{1'b0, icmp_all[31:16]}};
    u_reply_reg <= {{1'b0, reply_sum[15:0]}} + {{1'b0, reply_sum[31:16]}};
end

// f: every flag of net_model's checks and the answer's fields.
wire        icmp_ok = u_icmp_reg == 17'h0ffff || u_icmp_reg == 17'h1fffe;
wire [15:0] reply_fold = u_reply_reg[15:0] + {{15'd0, u_reply_reg[16]}};
reg         f_valid_reg = 1'b0;
reg  [{cm}:0] f_flags_reg = {checked}'d0;
reg         f_arp_reg = 1'b0;
reg         f_request_reg = 1'b0;
reg         f_from_target_reg = 1'b0;
reg  [47:0] f_mac_reg = 48'd0;
reg  [31:0] f_ip_reg = 32'd0;
reg  [13:0] f_len_reg = 14'd0;
reg  [14:0] f_total_reg = 15'd0;
reg  [15:0] f_icmp_reg = 16'd0;
reg  [15:0] f_ipcs_reg = 16'd0;
always @(posedge clock) begin
    f_valid_reg <= !reset && u_valid_reg;
    f_flags_reg <= h6_flags_reg | ({{{cm}'d0, h6_ipv4_reg[0] && !icmp_ok}} << 18);
    f_arp_reg <= h6_arp_reg[0];
    f_request_reg <= h6_request_reg[0];
    f_from_target_reg <= h6_from_target_reg[0];
    f_mac_reg <= h6_mac_reg;
    f_ip_reg <= h6_ip_reg;
    f_len_reg <= h6_len_reg;
    f_total_reg <= h6_total_reg;
    f_icmp_reg <= ~reply_fold;
    f_ipcs_reg <= h6_ipcs_reg;
end
",
        h = h,
        hm = hb_bits - 1,
        et = be(h, 12, 2),
        dst = be(h, 0, 6),
        oper = be(h, 20, 2),
        total = be(h, 16, 2),
        icmp_field = be(h, 36, 2),
        cm = CHECKED - 1,
        checked = CHECKED,
        max_len = 14 + mtu,
        htype = be(h, 14, 2),
        ptype = be(h, 16, 2),
        hlen = hb(h, 18),
        plen = hb(h, 19),
        tpa = be(h, 38, 4),
        ip_dst = be(h, 30, 4),
        proto = hb(h, 23),
        icmp_type = hb(h, 34),
        icmp_code = hb(h, 35),
        src_ip = be(h, 26, 4),
        spa = be(h, 28, 4),
        sha = be(h, 22, 6),
        src_mac = be(h, 6, 6),
    ));
    t.push_str(&tail_verilog(depth));
    t
}

/// The decision (the first raised flag) and the writer, at d<DELAY>.
fn tail_verilog(depth: usize) -> String {
    let d = DELAY;
    format!(
        "
// The decision: the first raised flag (one-hot), or the answer. A reply
// taken by the decision of the cycle before is no longer awaited.
wire         still_awaiting = awaiting && !(dv_reg && resolved_reg);
wire [{cm}:0] live = f_flags_reg & ~({{{cm}'d0, still_awaiting && f_from_target_reg}} << 8);
wire         ok = f_valid_reg && live == {checked}'d0;
reg          dv_reg = 1'b0;
reg  [{cm}:0] drop_reg = {checked}'d0;
reg    [1:0] kind_reg = 2'd0;
reg          learn_reg = 1'b0;
reg          resolved_reg = 1'b0;
reg   [47:0] mac_reg = 48'd0;
reg   [31:0] ip_reg = 32'd0;
reg   [13:0] len_reg = 14'd0;
reg   [14:0] total_reg = 15'd0;
reg   [15:0] icmp_reg = 16'd0;
reg   [15:0] ipcs_reg = 16'd0;
reg          frame_in_reg = 1'b0;
always @(posedge clock) begin
    dv_reg <= !reset && f_valid_reg;
    frame_in_reg <= !reset && f_valid_reg;
    drop_reg <= f_valid_reg ? live & (~live + {checked}'d1) : {checked}'d0;
    kind_reg <= !ok ? 2'd0 : !f_arp_reg ? 2'd{echo} : f_request_reg ? 2'd{arp} : 2'd0;
    learn_reg <= ok && f_arp_reg && f_request_reg && mode == 2'd1 && f_from_target_reg;
    resolved_reg <= ok && f_arp_reg && !f_request_reg;
    mac_reg <= f_mac_reg;
    ip_reg <= f_ip_reg;
    len_reg <= f_len_reg;
    total_reg <= f_total_reg;
    icmp_reg <= f_icmp_reg;
    ipcs_reg <= f_ipcs_reg;
end

// The writer, at d{d}.
reg [{pm}:0] wr_reg = {ptr}'d0;
reg [{pm}:0] start_reg = {ptr}'d0;
reg          ovf_reg = 1'b0;
wire [{pm}:0] used = wr_reg - tail;
wire         can = !(used == {ptr}'d{depth}) && !ovf_reg;
wire [{pm}:0] wr_next1 = can ? wr_reg + {ptr}'d1 : wr_reg;
wire         is_echo = dv_reg && kind_reg == 2'd{echo};
wire         is_arp_reply = dv_reg && kind_reg == 2'd{arp};
wire         full_drop = d{d}_valid_reg && d{d}_last_reg
                         && ((is_echo && (ovf_reg || !can || fifo_full)) || (is_arp_reply && fifo_full));
wire         do_push = d{d}_valid_reg && d{d}_last_reg && (is_echo || is_arp_reply) && !full_drop;
always @(*) begin
    ram_write = d{d}_valid_reg && can;
    ram_addr = {{{addr_pad}wr_reg[{am}:0]}};
    ram_data = d{d}_data_reg;
    push = do_push;
    push_data = {desc_bits}'d0;
    {d_start} = start_reg;
    {d_end} = wr_next1;
    {d_len} = len_reg;
    {d_mac} = mac_reg;
    {d_ip} = ip_reg;
    {d_icmp} = icmp_reg;
    {d_ipcs} = ipcs_reg;
    {d_total} = total_reg;
    {d_kind} = kind_reg;
    frame_in = frame_in_reg;
    dropped = out_dropped_reg;
    arp_answered = arp_answered_reg;
    echo_answered = echo_answered_reg;
    learn = dv_reg && learn_reg;
    resolved = dv_reg && resolved_reg;
    learn_mac = mac_reg;
end
reg [{dm}:0] out_dropped_reg = {drops}'d0;
reg          arp_answered_reg = 1'b0;
reg          echo_answered_reg = 1'b0;
always @(posedge clock) begin
    out_dropped_reg <= dv_reg && !reset ? {{full_drop, drop_reg}} : {drops}'d0;
    arp_answered_reg <= !reset && do_push && kind_reg == 2'd{arp};
    echo_answered_reg <= !reset && do_push && kind_reg == 2'd{echo};
    if (reset) begin
        wr_reg <= {ptr}'d0;
        start_reg <= {ptr}'d0;
        ovf_reg <= 1'b0;
    end else if (d{d}_valid_reg) begin
        if (!d{d}_last_reg) begin
            wr_reg <= wr_next1;
            ovf_reg <= ovf_reg || !can;
        end else begin
            ovf_reg <= 1'b0;
            if (do_push && is_echo) begin
                wr_reg <= wr_next1;
                start_reg <= wr_next1;
            end else begin
                wr_reg <= start_reg;
            end
        end
    end
end",
        cm = CHECKED - 1,
        checked = CHECKED,
        echo = KIND_ECHO,
        arp = KIND_ARP_REPLY,
        pm = PTR_BITS - 1,
        ptr = PTR_BITS,
        am = depth.trailing_zeros().max(1) - 1,
        addr_pad = if (depth.trailing_zeros().max(1) as usize) < ADDR_BITS {
            format!("{}'d0, ", ADDR_BITS - depth.trailing_zeros().max(1) as usize)
        } else {
            String::new()
        },
        desc_bits = DESC_BITS,
        d_start = desc_field("push_data", "start"),
        d_end = desc_field("push_data", "end"),
        d_len = desc_field("push_data", "len"),
        d_mac = desc_field("push_data", "mac"),
        d_ip = desc_field("push_data", "ip"),
        d_icmp = desc_field("push_data", "icmp_csum"),
        d_ipcs = desc_field("push_data", "ip_csum"),
        d_total = desc_field("push_data", "total"),
        d_kind = desc_field("push_data", "kind"),
        dm = DROP_REASONS - 1,
        drops = DROP_REASONS,
    )
}
