//! Per-byte checks of one received beat: which kept bytes differ from the
//! expected pattern, and how many bytes the beat carries.
//!
//! ```text
//!   data, expected (W) --XOR/OR per byte--+
//!   keep (K) ----------------------------AND--> byte_err[K]   (only bytes at index < room)
//!   room (8) --ones below bit room (K)--------+              --OR per lane--> lane_err[32]
//!   keep (K) & ~(ones below bit room) ---------OR per lane--> lane_over[32]
//!   keep (K) --thermometer to count------------> count (8)
//! ```
//!
//! Each output bit depends on one byte of each input plus `room`, so the
//! compare is shallow (a byte compare and a constant compare of `room`, then
//! an AND) whatever the width; the OR-reduction over the beat is the
//! verifier's next stage. `count` reads `keep` as the contiguous code the
//! data conventions require: the index of its last set bit, plus one.
//! rust-hdl's kernel language cannot build a vector bit by bit, so this leaf
//! is Verilog with `update` as its simulation model. The Verilog is written
//! a whole vector at a time (`keep & nz & in_transfer`), which Verilator
//! evaluates 64 bits a step; the bit-by-bit form it replaced cost a wide
//! read-modify-write per byte and most of the simulation's time. A yosys
//! SAT miter proved the two forms equivalent at 1024 bits.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BeatCheck<const W: usize, const K: usize> {
    pub data: Signal<In, Bits<W>>,
    pub expected: Signal<In, Bits<W>>,
    pub keep: Signal<In, Bits<K>>,
    /// Bytes of the beat inside the transfer, saturated at 255: byte i is
    /// checked only if i < room.
    pub room: Signal<In, Bits<8>>,
    /// Byte i is kept, inside the transfer, and wrong.
    pub byte_err: Signal<Out, Bits<K>>,
    /// Bit j: lane j (bytes 4j .. 4j+3) has a byte error; zero above the
    /// beat's W/32 lanes. The verifier reduces these 32 bits, not K, in the
    /// stage after, so its first-error hold stays shallow.
    pub lane_err: Signal<Out, Bits<32>>,
    /// Bit j: lane j has a kept byte at or past `room` (data beyond the
    /// transfer); zero above the beat's lanes.
    pub lane_over: Signal<Out, Bits<32>>,
    /// Bytes the beat carries.
    pub count: Signal<Out, Bits<8>>,
}

impl<const W: usize, const K: usize> BeatCheck<W, K> {
    pub fn new() -> Self {
        assert_eq!(K * 8, W, "BeatCheck: K must be W / 8");
        assert!(K <= 128, "BeatCheck: K = {K} exceeds the 8-bit room's 128 bytes");
        Self {
            data: Default::default(),
            expected: Default::default(),
            keep: Default::default(),
            room: Default::default(),
            byte_err: Default::default(),
            lane_err: Default::default(),
            lane_over: Default::default(),
            count: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize> Default for BeatCheck<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for BeatCheck<W, K> {
    fn update(&mut self) {
        let (data, expected, keep) = (self.data.val(), self.expected.val(), self.keep.val());
        let room = self.room.val().index();
        let mut err = Bits::<K>::default();
        let mut over = Bits::<K>::default();
        let mut count = 0u64;
        for i in 0..K {
            let wrong = data.get_bits::<8>(8 * i) != expected.get_bits::<8>(8 * i);
            let kept = keep.get_bit(i);
            err = err.replace_bit(i, kept && wrong && i < room);
            over = over.replace_bit(i, kept && i >= room);
            if kept && (i + 1 == K || !keep.get_bit(i + 1)) {
                count |= (i + 1) as u64;
            }
        }
        let (mut lane_err, mut lane_over) = (Bits::<32>::default(), Bits::<32>::default());
        for j in 0..W / 32 {
            lane_err = lane_err.replace_bit(j, err.get_bits::<4>(4 * j).any());
            lane_over = lane_over.replace_bit(j, over.get_bits::<4>(4 * j).any());
        }
        self.byte_err.next = err;
        self.lane_err.next = lane_err;
        self.lane_over.next = lane_over;
        self.count.next = bits(count);
    }

    fn connect(&mut self) {
        self.byte_err.connect();
        self.lane_err.connect();
        self.lane_over.connect();
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        // Word-level: Verilator evaluates a whole-vector expression a 64-bit
        // word at a time, where a bit-by-bit assignment costs a
        // read-modify-write of the wide vector per bit. Only the per-byte
        // OR (`nz`) needs one term per byte, and it is one concatenation.
        // count = (index of the last kept byte) + 1, from the one-hot edge
        // of the contiguous keep: bit j of count is the OR of the edges at
        // the positions i whose i + 1 has bit j set (a flat OR, no priority
        // chain). Constant part-selects only: loop variables and indexed
        // part-selects make yosys build shift multiplexers. The bytes inside
        // the transfer are the ones below bit `room`: a shift of K ones (a
        // shift by K or more leaves none, so every byte is inside).
        let k = K;
        let nz: Vec<String> = (0..K).rev().map(|i| format!("|diff[{}:{}]", 8 * i + 7, 8 * i)).collect();
        let mut count_bits = Vec::new();
        for j in (0..8).rev() {
            let mut mask = Bits::<K>::default();
            for i in 0..K {
                if (i + 1) >> j & 1 == 1 {
                    mask = mask.replace_bit(i, true);
                }
            }
            let mask: VerilogLiteral = mask.into();
            count_bits.push(format!("|(last_kept & {mask})"));
        }
        // lane_err, lane_over: one OR of four bytes per lane, zeros above
        // the lanes.
        let lanes = |v: &str| {
            let mut terms: Vec<String> = (0..W / 32).rev().map(|j| format!("|{v}[{}:{}]", 4 * j + 3, 4 * j)).collect();
            if W / 32 < 32 {
                terms.insert(0, format!("{}'d0", 32 - W / 32));
            }
            terms.join(", ")
        };
        Verilog::Custom(format!(
            "wire [{w}:0] diff;\nassign diff = data ^ expected;\nwire [{m}:0] nz;\nassign nz = {{{nz}}};\n\
             wire [{m}:0] in_transfer;\nassign in_transfer = ~({{{k}{{1'b1}}}} << room);\n\
             wire [{m}:0] last_kept;\nassign last_kept = keep & ~(keep >> 1);\n\
             wire [{m}:0] err;\nassign err = keep & nz & in_transfer;\n\
             wire [{m}:0] over;\nassign over = keep & ~in_transfer;\n\
             always @(*) begin\n    byte_err = err;\n    lane_err = {{{err_lanes}}};\n    \
             lane_over = {{{over_lanes}}};\n    count = {{{count}}};\nend",
            w = 8 * k - 1,
            m = k - 1,
            nz = nz.join(", "),
            err_lanes = lanes("err"),
            over_lanes = lanes("over"),
            count = count_bits.join(", "),
        ))
    }
}
