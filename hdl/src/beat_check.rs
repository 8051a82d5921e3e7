//! Per-byte checks of one received beat: which kept bytes differ from the
//! expected pattern, and how many bytes the beat carries.
//!
//! ```text
//!   data, expected (W) --XOR/OR per byte--+
//!   keep (K) ----------------------------AND--> byte_err[K]   (only bytes at index < room)
//!   room (8) --thermometer(i < room)-----+
//!   keep (K) --thermometer to count------------> count (8)
//! ```
//!
//! Each output bit depends on one byte of each input plus `room`, so the
//! compare is shallow (a byte compare and a constant compare, then an AND)
//! whatever the width; the OR-reduction over the beat is a separate pipeline
//! stage of the verifier. `count` reads `keep` as the contiguous code the
//! data conventions require: the index of its last set bit, plus one.
//! rust-hdl's kernel language cannot build a vector bit by bit, so this leaf
//! is Verilog with `update` as its simulation model.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BeatCheck<const W: usize, const K: usize> {
    pub data: Signal<In, Bits<W>>,
    pub expected: Signal<In, Bits<W>>,
    pub keep: Signal<In, Bits<K>>,
    /// Bytes of the beat that lie inside the transfer (saturated at 255).
    pub room: Signal<In, Bits<8>>,
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
            room: Default::default(),
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
        let room = self.room.val().index();
        let mut err = Bits::<K>::default();
        let mut count = 0u64;
        for i in 0..K {
            let wrong = data.get_bits::<8>(8 * i) != expected.get_bits::<8>(8 * i);
            let kept = keep.get_bit(i);
            err = err.replace_bit(i, kept && wrong && i < room);
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
        Verilog::Custom(format!(
            "\
integer i;
integer next;
always @(*) begin
    count = 8'd0;
    for (i = 0; i < {K}; i = i + 1) begin
        next = i + 1;
        byte_err[i] = keep[i] & (data[8*i +: 8] != expected[8*i +: 8]) & (i < {{24'd0, room}});
        if (keep[i] & ((i == {last}) || !keep[next % {K}])) count = count | next[7:0];
    end
end"
        , last = K - 1))
    }
}
