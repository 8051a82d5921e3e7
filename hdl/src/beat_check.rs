//! Per-byte checks of one received beat: which kept bytes differ from the
//! expected pattern, and how many bytes the beat carries.
//!
//! ```text
//!   data, expected (W) --XOR/OR per byte--+
//!   keep (K) ----------------------------AND--> byte_err[K]   (only bytes at index < room)
//!   in_transfer (K) --------------------------+
//!   keep (K) --thermometer to count------------> count (8)
//! ```
//!
//! Each output bit depends on one byte of each input plus `room`, so the
//! compare is shallow (a byte compare, then an AND)
//! whatever the width; the OR-reduction over the beat is a separate pipeline
//! stage of the verifier. `count` reads `keep` as the contiguous code the
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
    /// Byte i lies inside the transfer (from [`ByteMask`], a stage earlier).
    pub in_transfer: Signal<In, Bits<K>>,
    /// Byte i is kept, inside the transfer, and wrong.
    pub byte_err: Signal<Out, Bits<K>>,
    /// Bytes the beat carries.
    pub count: Signal<Out, Bits<8>>,
}

impl<const W: usize, const K: usize> BeatCheck<W, K> {
    pub fn new() -> Self {
        assert_eq!(K * 8, W, "BeatCheck: K must be W / 8");
        Self {
            data: Default::default(),
            expected: Default::default(),
            keep: Default::default(),
            in_transfer: Default::default(),
            byte_err: Default::default(),
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
        let in_transfer = self.in_transfer.val();
        let mut err = Bits::<K>::default();
        let mut count = 0u64;
        for i in 0..K {
            let wrong = data.get_bits::<8>(8 * i) != expected.get_bits::<8>(8 * i);
            let kept = keep.get_bit(i);
            err = err.replace_bit(i, kept && wrong && in_transfer.get_bit(i));
            if kept && (i + 1 == K || !keep.get_bit(i + 1)) {
                count |= (i + 1) as u64;
            }
        }
        self.byte_err.next = err;
        self.count.next = bits(count);
    }

    fn connect(&mut self) {
        self.byte_err.connect();
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
        // part-selects make yosys build shift multiplexers.
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
        Verilog::Custom(format!(
            "wire [{w}:0] diff;\nassign diff = data ^ expected;\nwire [{m}:0] nz;\nassign nz = {{{nz}}};\n\
             wire [{m}:0] last_kept;\nassign last_kept = keep & ~(keep >> 1);\n\
             always @(*) begin\n    byte_err = keep & nz & in_transfer;\n    count = {{{count}}};\nend",
            w = 8 * k - 1,
            m = k - 1,
            nz = nz.join(", "),
            count = count_bits.join(", "),
        ))
    }
}

/// `in_transfer[i] = i < room`: which bytes of a beat lie inside the transfer.
/// A leaf for the same reason as [`BeatCheck`]; its output is registered
/// before the compare uses it.
#[derive(LogicBlock)]
pub struct ByteMask<const K: usize> {
    /// Bytes of the beat inside the transfer, saturated at 255.
    pub room: Signal<In, Bits<8>>,
    pub in_transfer: Signal<Out, Bits<K>>,
}

impl<const K: usize> ByteMask<K> {
    pub fn new() -> Self {
        assert!(K <= 128, "ByteMask: K = {K} exceeds 128 bytes");
        Self { room: Default::default(), in_transfer: Default::default() }
    }
}

impl<const K: usize> Default for ByteMask<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const K: usize> Logic for ByteMask<K> {
    fn update(&mut self) {
        let room = self.room.val().index();
        let mut in_transfer = Bits::<K>::default();
        for i in 0..K.min(room) {
            in_transfer = in_transfer.replace_bit(i, true);
        }
        self.in_transfer.next = in_transfer;
    }

    fn connect(&mut self) {
        self.in_transfer.connect();
    }

    fn hdl(&self) -> Verilog {
        // Ones below bit `room`: a shift of K ones, whole-vector (a shift by
        // K or more leaves none, so every byte is inside).
        Verilog::Custom(format!("always @(*) begin\n    in_transfer = ~({{{K}{{1'b1}}}} << room);\nend"))
    }
}
