//! The node's transmitter: sends the answers of the descriptor FIFO to the
//! MAC, each a stored frame replayed from the frame RAM under a header
//! overlay, or (ARP) the overlay alone, with no bubble while `m_tready`
//! stays high, between frames too.
//!
//! ```text
//!  head --load--> frame: overlay bank (bytes 0..63) + mask, RAM start, length
//!                  |
//!  issue: read_addr, the beat's overlay slice, tkeep, tlast --(RAM, 1 cycle)-->
//!  return: mask ? overlay byte : RAM byte --> out buffer (2 beats) --> m_t*
//!          an echo's last beat: tail = its end (the RAM beats are free)
//! ```
//!
//! The overlay of an echo reply: the requester's MAC, fpga_mac, IPv4 with
//! TOS 0, the total length, ID 0, DF, TTL 64, protocol 1, the fresh header
//! checksum, fpga_ip, the requester's IP, ICMP type 0 code 0 and the fresh
//! checksum (bytes 0..37); identifier, sequence and data come from the RAM,
//! and bytes below 64 at or past 14 + total length are zeros (the padding
//! to 60). An ARP reply or request is all overlay: the 42 bytes of the
//! packet and zeros to 60. A beat is read from the RAM only when the out
//! buffer will have room for it (buffered beats + the one in flight - the
//! one leaving <= 1), so the read never waits and `m_tready` stalls lose
//! nothing. A leaf because the per-byte choice is a loop, which rust-hdl's
//! kernel language lacks; `update` is its simulation model.

use rust_hdl::prelude::*;

use super::{b, byte_of, desc_field, Desc, ADDR_BITS, DESC_BITS, KIND_ARP_REPLY, KIND_ECHO, PTR_BITS};

#[derive(LogicBlock)]
pub struct NetTx<const W: usize, const K: usize> {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the frame being sent stops where it is (a MAC
    /// sees it cut short: reset is for a link that is down), the out
    /// buffer empties, the tail returns to 0.
    pub reset: Signal<In, Bit>,
    // ---- Configuration.
    /// The node's MAC, first byte on the wire in bits 47:40.
    pub fpga_mac: Signal<In, Bits<48>>,
    /// The node's IPv4 address, first byte in bits 31:24.
    pub fpga_ip: Signal<In, Bits<32>>,
    /// The target's IPv4 address (the ARP request's `tpa`).
    pub target_ip: Signal<In, Bits<32>>,
    // ---- Descriptors.
    /// The oldest descriptor (`crate::net::Desc`, packed).
    pub head: Signal<In, Bits<DESC_BITS>>,
    /// No descriptor waits.
    pub empty: Signal<In, Bit>,
    /// Take the head.
    pub pop: Signal<Out, Bit>,
    // ---- Frame RAM.
    /// RAM word read (its data comes a cycle later).
    pub read_addr: Signal<Out, Bits<ADDR_BITS>>,
    /// The word of the cycle before's `read_addr`.
    pub read_data: Signal<In, Bits<W>>,
    /// RAM beats before this pointer are free (sent or given back).
    pub tail: Signal<Out, Bits<PTR_BITS>>,
    // ---- Frames to the MAC (AXI4-Stream).
    /// Beat, byte 0 in bits 7:0.
    pub m_tdata: Signal<Out, Bits<W>>,
    /// Byte enables, contiguous from bit 0.
    pub m_tkeep: Signal<Out, Bits<K>>,
    /// Last beat of a frame.
    pub m_tlast: Signal<Out, Bit>,
    /// Beat valid.
    pub m_tvalid: Signal<Out, Bit>,
    /// The MAC takes the beat.
    pub m_tready: Signal<In, Bit>,
    // ---- Events.
    /// A frame's last beat was taken (one-cycle pulse).
    pub frame_out: Signal<Out, Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
    _depth: usize,
    _s: State<W, K>,
}

#[derive(Clone, Copy, Default)]
struct OutBeat<const W: usize, const K: usize> {
    data: Bits<W>,
    keep: Bits<K>,
    last: bool,
}

#[derive(Clone, Default)]
struct State<const W: usize, const K: usize> {
    active: bool,
    pos: u64,
    addr: u64,
    len: u64,
    kind: u64,
    end: u64,
    bank: Vec<u8>,
    mask: u64,
    inf_valid: bool,
    inf_ovl: Vec<u8>,
    inf_mask: u64,
    inf_keep: Bits<K>,
    inf_last: bool,
    inf_free: bool,
    inf_end: u64,
    entries: usize,
    e0: OutBeat<W, K>,
    e1: OutBeat<W, K>,
    tail: u64,
    frame_out: bool,
}

/// The cycle's handshakes (combinational).
struct Step {
    pop_out: bool,
    issue: bool,
    last_issue: bool,
    load: bool,
}

impl<const W: usize, const K: usize> NetTx<W, K> {
    /// The transmitter of a node whose frame RAM has `depth` beats.
    pub fn new(depth: usize) -> Self {
        assert!(W == 8 * K && depth.is_power_of_two() && depth <= 1 << ADDR_BITS, "NetTx: W {W} K {K} depth {depth}");
        NetTx {
            clock: Default::default(),
            reset: Default::default(),
            fpga_mac: Default::default(),
            fpga_ip: Default::default(),
            target_ip: Default::default(),
            head: Default::default(),
            empty: Default::default(),
            pop: Default::default(),
            read_addr: Default::default(),
            read_data: Default::default(),
            tail: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            frame_out: Default::default(),
            verilog_name: Default::default(),
            _depth: depth,
            _s: State { bank: vec![0; 64], inf_ovl: vec![0; 64], ..Default::default() },
        }
    }

    fn step(&self) -> Step {
        let s = &self._s;
        let pop_out = s.entries > 0 && self.m_tready.val();
        let room = s.entries + usize::from(s.inf_valid) <= 1 + usize::from(pop_out);
        let issue = s.active && room;
        let last_issue = issue && s.pos + K as u64 >= s.len;
        let load = !self.empty.val() && (!s.active || last_issue);
        Step { pop_out, issue, last_issue, load }
    }

    /// The overlay bank and mask of descriptor `d`.
    fn overlay(&self, d: &Desc) -> (Vec<u8>, u64) {
        let mac = self.fpga_mac.val().to_u64();
        let ip = self.fpga_ip.val().to_u64();
        let mut bank = vec![0u8; 64];
        let mut put = |at: usize, v: u64, n: usize| {
            for i in 0..n {
                bank[at + i] = (v >> (8 * (n - 1 - i))) as u8;
            }
        };
        if d.kind == KIND_ECHO {
            put(0, d.mac, 6);
            put(6, mac, 6);
            put(12, 0x0800, 2);
            put(14, 0x4500, 2);
            put(16, d.total, 2);
            put(20, 0x4000, 2);
            put(22, 0x4001, 2);
            put(24, d.ip_csum, 2);
            put(26, ip, 4);
            put(30, d.ip, 4);
            put(36, d.icmp_csum, 2);
            let mut mask = (1u64 << 38) - 1;
            for p in 38..64 {
                if p >= 14 + d.total {
                    mask |= 1 << p;
                }
            }
            (bank, mask)
        } else {
            let (dst, oper, tha, tpa) = if d.kind == KIND_ARP_REPLY {
                (d.mac, 2, d.mac, d.ip)
            } else {
                (0xffff_ffff_ffff, 1, 0, self.target_ip.val().to_u64())
            };
            put(0, dst, 6);
            put(6, mac, 6);
            put(12, 0x0806, 2);
            put(14, 0x0001_0800_0604, 6);
            put(20, oper, 2);
            put(22, mac, 6);
            put(28, ip, 4);
            put(32, tha, 6);
            put(38, tpa, 4);
            (bank, u64::MAX)
        }
    }
}

impl<const W: usize, const K: usize> Logic for NetTx<W, K> {
    fn update(&mut self) {
        let st = self.step();
        if self.clock.pos_edge() && self.reset.val() {
            let s = &mut self._s;
            s.active = false;
            s.inf_valid = false;
            s.entries = 0;
            s.tail = 0;
            s.frame_out = false;
        } else if self.clock.pos_edge() {
            let read = self.read_data.val();
            let s = &mut self._s;
            // The beat back from the RAM, into the out buffer.
            let mut ret = OutBeat { data: read, keep: s.inf_keep, last: s.inf_last };
            for j in 0..K.min(64) {
                if s.inf_mask >> j & 1 == 1 {
                    ret.data.set_bits::<8>(8 * j, b(u64::from(s.inf_ovl[j])));
                }
            }
            s.frame_out = st.pop_out && s.e0.last;
            match (s.inf_valid, st.pop_out, s.entries) {
                (true, true, 1) => s.e0 = ret,
                (true, true, _) => {
                    s.e0 = s.e1;
                    s.e1 = ret;
                }
                (true, false, 0) => s.e0 = ret,
                (true, false, _) => s.e1 = ret,
                (false, true, _) => s.e0 = s.e1,
                (false, false, _) => {}
            }
            s.entries = s.entries + usize::from(s.inf_valid) - usize::from(st.pop_out);
            if s.inf_valid && s.inf_free {
                s.tail = s.inf_end;
            }
            // The beat issued now.
            s.inf_valid = st.issue;
            if st.issue {
                for j in 0..K.min(64) {
                    let p = s.pos as usize + j;
                    s.inf_ovl[j] = if p < 64 { s.bank[p] } else { 0 };
                    s.inf_mask = if j == 0 { 0 } else { s.inf_mask };
                    if p < 64 && s.mask >> p & 1 == 1 {
                        s.inf_mask |= 1 << j;
                    }
                }
                let rem = s.len - s.pos;
                let mut keep = Bits::<K>::default();
                for j in 0..K.min(rem as usize) {
                    keep = keep.replace_bit(j, true);
                }
                s.inf_keep = keep;
                s.inf_last = st.last_issue;
                s.inf_free = st.last_issue && s.kind == KIND_ECHO;
                s.inf_end = s.end;
                s.pos += K as u64;
                s.addr = (s.addr + 1) & ((1 << PTR_BITS) - 1);
                if st.last_issue {
                    s.active = false;
                }
            }
            if st.load {
                let d = Desc::unpack(self.head.val());
                let (bank, mask) = self.overlay(&d);
                let s = &mut self._s;
                s.active = true;
                s.pos = 0;
                s.addr = d.start;
                s.len = d.len;
                s.kind = d.kind;
                s.end = d.end;
                s.bank = bank;
                s.mask = mask;
            }
        }
        let st = self.step();
        let s = &self._s;
        self.pop.next = st.load;
        self.read_addr.next = b(s.addr & (self._depth as u64 - 1));
        self.tail.next = b(s.tail);
        self.m_tdata.next = s.e0.data;
        self.m_tkeep.next = s.e0.keep;
        self.m_tlast.next = s.e0.last;
        self.m_tvalid.next = s.entries > 0;
        self.frame_out.next = s.frame_out;
        let _ = byte_of::<W>;
    }

    fn connect(&mut self) {
        self.pop.connect();
        self.read_addr.connect();
        self.tail.connect();
        self.m_tdata.connect();
        self.m_tkeep.connect();
        self.m_tlast.connect();
        self.m_tvalid.connect();
        self.frame_out.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog::<W, K>(self._depth))
    }
}

/// `bank[...] = value` for the `n` bytes of `value` (big-endian) from byte `at`.
fn put(at: usize, value: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            let (lo, hi) = (8 * (at + i), 8 * (at + i) + 7);
            let bit = 8 * (n - 1 - i);
            format!("        bank[{hi}:{lo}] = {value}[{}:{bit}];\n", bit + 7)
        })
        .collect()
}

fn verilog<const W: usize, const K: usize>(depth: usize) -> String {
    let ow = W.min(512);
    let ok = K.min(64);
    let slice = if W >= 512 {
        "    if (pos_reg == 16'd0) begin\n        slice_ovl = bank_reg;\n        slice_mask = mask_reg;\n    end\n"
            .to_string()
    } else {
        (0..512 / W)
            .map(|beat| {
                format!(
                    "    if (pos_reg == 16'd{}) begin\n        slice_ovl = bank_reg[{}:{}];\n        slice_mask = mask_reg[{}:{}];\n    end\n",
                    beat * K,
                    (beat + 1) * W - 1,
                    beat * W,
                    (beat + 1) * K - 1,
                    beat * K
                )
            })
            .collect()
    };
    let aw = depth.trailing_zeros().max(1) as usize;
    let addr = if aw < ADDR_BITS {
        format!("{{{}'d0, addr_reg[{}:0]}}", ADDR_BITS - aw, aw - 1)
    } else {
        format!("addr_reg[{}:0]", aw - 1)
    };
    let mut arp_bank = String::new();
    arp_bank.push_str(&put(0, "arp_dst", 6));
    arp_bank.push_str(&put(6, "fpga_mac", 6));
    // EtherType 0x0806; htype 1, ptype 0x0800, hlen 6, plen 4, oper's high byte.
    for (i, v) in [0x08u8, 0x06, 0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00].iter().enumerate() {
        arp_bank.push_str(&format!("        bank[{}:{}] = 8'h{v:02x};\n", 8 * (12 + i) + 7, 8 * (12 + i)));
    }
    arp_bank.push_str(&format!("        bank[{}:{}] = arp_oper;\n", 8 * 21 + 7, 8 * 21));
    arp_bank.push_str(&put(22, "fpga_mac", 6));
    arp_bank.push_str(&put(28, "fpga_ip", 4));
    arp_bank.push_str(&put(32, "arp_tha", 6));
    arp_bank.push_str(&put(38, "arp_tpa", 4));
    let mut echo_bank = String::new();
    echo_bank.push_str(&put(0, "head_mac", 6));
    echo_bank.push_str(&put(6, "fpga_mac", 6));
    for (i, v) in
        [(12usize, 0x08u8), (13, 0x00), (14, 0x45), (15, 0x00), (20, 0x40), (21, 0x00), (22, 0x40), (23, 0x01)]
    {
        echo_bank.push_str(&format!("        bank[{}:{}] = 8'h{v:02x};\n", 8 * i + 7, 8 * i));
    }
    echo_bank.push_str(&put(16, "head_total16", 2));
    echo_bank.push_str(&put(24, "head_ipcs", 2));
    echo_bank.push_str(&put(26, "fpga_ip", 4));
    echo_bank.push_str(&put(30, "head_ip", 4));
    echo_bank.push_str(&put(36, "head_icmp", 2));
    format!(
        "// The head descriptor's fields and its overlay.
wire  [1:0] head_kind = {d_kind};
wire [{pm}:0] head_start = {d_start};
wire [{pm}:0] head_end = {d_end};
wire [13:0] head_len = {d_len};
wire [47:0] head_mac = {d_mac};
wire [31:0] head_ip = {d_ip};
wire [15:0] head_icmp = {d_icmp};
wire [15:0] head_ipcs = {d_ipcs};
wire [14:0] head_total = {d_total};
wire [15:0] head_total16 = {{1'b0, head_total}};
wire [16:0] head_limit = {{2'd0, head_total}} + 17'd14;
wire        head_reply = head_kind == 2'd{arp_reply};
wire [47:0] arp_dst = head_reply ? head_mac : 48'hffffffffffff;
wire  [7:0] arp_oper = head_reply ? 8'h02 : 8'h01;
wire [47:0] arp_tha = head_reply ? head_mac : 48'd0;
wire [31:0] arp_tpa = head_reply ? head_ip : target_ip;
reg [511:0] bank;
reg  [63:0] mask;
integer p;
always @(*) begin
    bank = 512'd0;
    if (head_kind == 2'd{echo}) begin
{echo_bank}        mask = {{26'd0, {{38{{1'b1}}}}}};
        for (p = 38; p < 64; p = p + 1) begin
            if ({{11'd0, p[5:0]}} >= head_limit) mask[p] = 1'b1;
        end
    end else begin
{arp_bank}        mask = {{64{{1'b1}}}};
    end
end

// The frame being issued.
reg          active_reg = 1'b0;
reg   [15:0] pos_reg = 16'd0;
reg  [{pm}:0] addr_reg = {ptr}'d0;
reg   [13:0] len_reg = 14'd0;
reg    [1:0] kind_reg = 2'd0;
reg  [{pm}:0] end_reg = {ptr}'d0;
reg  [511:0] bank_reg = 512'd0;
reg   [63:0] mask_reg = 64'd0;
// The beat in flight (read from the RAM this cycle).
reg          inf_valid_reg = 1'b0;
reg  [{owm}:0] inf_ovl_reg = {ow}'d0;
reg  [{okm}:0] inf_mask_reg = {ok}'d0;
reg  [{km}:0] inf_keep_reg = {K}'d0;
reg          inf_last_reg = 1'b0;
reg          inf_free_reg = 1'b0;
reg  [{pm}:0] inf_end_reg = {ptr}'d0;
// The out buffer: e0 is presented, e1 behind it.
reg    [1:0] entries_reg = 2'd0;
reg  [{wm}:0] e0_data_reg = {W}'d0;
reg  [{km}:0] e0_keep_reg = {K}'d0;
reg          e0_last_reg = 1'b0;
reg  [{wm}:0] e1_data_reg = {W}'d0;
reg  [{km}:0] e1_keep_reg = {K}'d0;
reg          e1_last_reg = 1'b0;
reg  [{pm}:0] tail_reg = {ptr}'d0;
reg          frame_out_reg = 1'b0;

wire        pop_out = entries_reg != 2'd0 && m_tready;
wire  [2:0] committed = {{1'b0, entries_reg}} + {{2'd0, inf_valid_reg}};
wire        room = committed <= 3'd1 + {{2'd0, pop_out}};
wire        issue = active_reg && room;
wire [16:0] pos_next = {{1'b0, pos_reg}} + 17'd{K};
wire        last_issue = issue && pos_next >= {{3'd0, len_reg}};
wire        load = !empty && (!active_reg || last_issue);
wire [15:0] rem = {{2'd0, len_reg}} - pos_reg;

// The issued beat's overlay slice and keep.
reg [{owm}:0] slice_ovl;
reg [{okm}:0] slice_mask;
always @(*) begin
    slice_ovl = {ow}'d0;
    slice_mask = {ok}'d0;
{slice}end
wire [{km}:0] slice_keep = rem >= 16'd{K} ? {{{K}{{1'b1}}}} : ~({{{K}{{1'b1}}}} << rem[7:0]);

// The beat back from the RAM under its overlay.
reg [{wm}:0] ret_data;
integer j;
always @(*) begin
    ret_data = read_data;
    for (j = 0; j < {ok}; j = j + 1) begin
        if (inf_mask_reg[j]) ret_data[8*j +: 8] = inf_ovl_reg[8*j +: 8];
    end
end

always @(posedge clock) begin
    if (reset) begin
        active_reg <= 1'b0;
        inf_valid_reg <= 1'b0;
        entries_reg <= 2'd0;
        tail_reg <= {ptr}'d0;
        frame_out_reg <= 1'b0;
    end else begin
        frame_out_reg <= pop_out && e0_last_reg;
        if (inf_valid_reg && (entries_reg == 2'd0 || (pop_out && entries_reg == 2'd1))) begin
            e0_data_reg <= ret_data;
            e0_keep_reg <= inf_keep_reg;
            e0_last_reg <= inf_last_reg;
        end else if (pop_out) begin
            e0_data_reg <= e1_data_reg;
            e0_keep_reg <= e1_keep_reg;
            e0_last_reg <= e1_last_reg;
        end
        if (inf_valid_reg && (entries_reg == 2'd2 || (!pop_out && entries_reg == 2'd1))) begin
            e1_data_reg <= ret_data;
            e1_keep_reg <= inf_keep_reg;
            e1_last_reg <= inf_last_reg;
        end
        entries_reg <= entries_reg + {{1'b0, inf_valid_reg}} - {{1'b0, pop_out}};
        if (inf_valid_reg && inf_free_reg) tail_reg <= inf_end_reg;
        inf_valid_reg <= issue;
        if (issue) begin
            inf_ovl_reg <= slice_ovl;
            inf_mask_reg <= slice_mask;
            inf_keep_reg <= slice_keep;
            inf_last_reg <= last_issue;
            inf_free_reg <= last_issue && kind_reg == 2'd{echo};
            inf_end_reg <= end_reg;
            pos_reg <= pos_next[15:0];
            addr_reg <= addr_reg + {ptr}'d1;
            if (last_issue) active_reg <= 1'b0;
        end
        if (load) begin
            active_reg <= 1'b1;
            pos_reg <= 16'd0;
            addr_reg <= head_start;
            len_reg <= head_len;
            kind_reg <= head_kind;
            end_reg <= head_end;
            bank_reg <= bank;
            mask_reg <= mask;
        end
    end
end

always @(*) begin
    pop = load;
    read_addr = {addr};
    tail = tail_reg;
    m_tdata = e0_data_reg;
    m_tkeep = e0_keep_reg;
    m_tlast = e0_last_reg;
    m_tvalid = entries_reg != 2'd0;
    frame_out = frame_out_reg;
end",
        d_kind = desc_field("head", "kind"),
        d_start = desc_field("head", "start"),
        d_end = desc_field("head", "end"),
        d_len = desc_field("head", "len"),
        d_mac = desc_field("head", "mac"),
        d_ip = desc_field("head", "ip"),
        d_icmp = desc_field("head", "icmp_csum"),
        d_ipcs = desc_field("head", "ip_csum"),
        d_total = desc_field("head", "total"),
        pm = PTR_BITS - 1,
        ptr = PTR_BITS,
        arp_reply = KIND_ARP_REPLY,
        echo = KIND_ECHO,
        owm = ow - 1,
        okm = ok - 1,
        km = K - 1,
        wm = W - 1,
    )
}
