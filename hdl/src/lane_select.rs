//! One 32-bit lane of a captured beat and its four byte flags, picked by
//! lane index, and the byte check of that lane: the verifier's record scan.
//!
//! ```text
//!   data (W), flags (K), lane --> word = data[32*lane +: 32], lane_flags = flags[4*lane +: 4]
//! ```
//!
//! A W/32:1 multiplexer (3 LUT levels at 1024 bits), registered by the
//! verifier before anything else uses it. It replaces shifting the whole
//! captured beat down a lane per scan step, which cost a 2:1 multiplexer in
//! front of every captured flip-flop. A lane index past the beat selects
//! zeros (the verifier never asks for one). A leaf
//! because rust-hdl's kernel language has no indexed part-select of a
//! computed width; `update` is its simulation model.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct LaneSelect<const W: usize, const K: usize> {
    // ---- Beat.
    /// Captured beat.
    pub data: Signal<In, Bits<W>>,
    /// One flag bit per byte of the beat.
    pub flags: Signal<In, Bits<K>>,
    /// Lane index, 0 .. W/32 - 1 (beyond that: zeros).
    pub lane: Signal<In, Bits<8>>,
    // ---- Selected lane.
    /// The lane's 32 bits.
    pub word: Signal<Out, Bits<32>>,
    /// The lane's 4 flag bits.
    pub lane_flags: Signal<Out, Bits<4>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> LaneSelect<W, K> {
    pub fn new() -> Self {
        assert!(W >= 64 && (W / 32).is_power_of_two() && W / 32 <= 256, "LaneSelect: W = {W}");
        assert_eq!(K * 8, W, "LaneSelect: K must be W / 8");
        Self {
            verilog_name: Default::default(),
            data: Default::default(),
            flags: Default::default(),
            lane: Default::default(),
            word: Default::default(),
            lane_flags: Default::default(),
        }
    }

    /// Bits of the lane index: log2(W/32).
    fn index_bits() -> usize {
        (W / 32).trailing_zeros() as usize
    }
}

impl<const W: usize, const K: usize> Default for LaneSelect<W, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const K: usize> Logic for LaneSelect<W, K> {
    fn update(&mut self) {
        let lane = self.lane.val().index();
        if lane < W / 32 {
            self.word.next = self.data.val().get_bits::<32>(32 * lane);
            self.lane_flags.next = self.flags.val().get_bits::<4>(4 * lane);
        } else {
            self.word.next = Bits::default();
            self.lane_flags.next = Bits::default();
        }
    }

    fn connect(&mut self) {
        self.word.connect();
        self.lane_flags.connect();
    }

    fn hdl(&self) -> Verilog {
        // The part-select's index is exactly log2(W) (log2(K)) bits wide, as
        // lint wants; the lane's upper bits only force zeros.
        let b = Self::index_bits();
        Verilog::Custom(format!(
            "wire off_beat;\nassign off_beat = |lane[7:{b}];\n\
             always @(*) begin\n    word = off_beat ? 32'd0 : data[{{lane[{top}:0], 5'd0}} +: 32];\n    \
             lane_flags = off_beat ? 4'd0 : flags[{{lane[{top}:0], 2'd0}} +: 4];\nend",
            top = b - 1
        ))
    }
}

/// Which bytes of one lane are kept, inside the transfer and wrong: the
/// record scan's byte check, on the lane [`LaneSelect`] picked (registered
/// in between). Bit b is byte `first + b` of the beat.
///
/// ```text
///   word ^ expected --OR per byte--+
///   keep[3:0] --------------------AND--> wrong[3:0]
///   first + b < room -------------+
/// ```
#[derive(LogicBlock, Default)]
pub struct LaneCheck {
    // ---- Lane.
    /// The lane's received word.
    pub word: Signal<In, Bits<32>>,
    /// The lane's expected word.
    pub expected: Signal<In, Bits<32>>,
    /// Byte enables of the lane.
    pub keep: Signal<In, Bits<4>>,
    /// Index of the lane's byte 0 in the beat (at most 124).
    pub first: Signal<In, Bits<8>>,
    /// Bytes of the beat inside the transfer, saturated at 255.
    pub room: Signal<In, Bits<8>>,
    // ---- Result.
    /// Bit b: byte first + b is kept, inside the transfer and wrong.
    pub wrong: Signal<Out, Bits<4>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl Logic for LaneCheck {
    fn update(&mut self) {
        let (word, expected, keep) = (self.word.val(), self.expected.val(), self.keep.val());
        let (first, room) = (self.first.val().index(), self.room.val().index());
        let mut wrong = Bits::<4>::default();
        for b in 0..4 {
            let differs = word.get_bits::<8>(8 * b) != expected.get_bits::<8>(8 * b);
            wrong = wrong.replace_bit(b, keep.get_bit(b) && differs && first + b < room);
        }
        self.wrong.next = wrong;
    }

    fn connect(&mut self) {
        self.wrong.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "wire [31:0] d;\nassign d = word ^ expected;\n\
             always @(*) begin\n    \
             wrong = keep & {|d[31:24], |d[23:16], |d[15:8], |d[7:0]}\n        \
             & {first + 8'd3 < room, first + 8'd2 < room, first + 8'd1 < room, first < room};\nend"
                .into(),
        )
    }
}
