//! The checks of one received beat: which lanes hold a kept byte that
//! differs from the expected pattern, which hold a kept byte past the
//! transfer, and how many bytes the beat carries.
//!
//! ```text
//!   data ^ expected (W) --OR per byte--+
//!   keep (K) --------------------------AND--OR per lane--> lane_err[32]
//!   room (8) --ones below bit room (K)-+
//!   keep (K) & ~(ones below bit room) -----OR per lane--> lane_over[32]
//!   keep (K) --thermometer to count---------------------> count (8)
//! ```
//!
//! Lane j is bytes 4j .. 4j+3; lanes above the beat's W/32 read zero. Each
//! output bit depends on one lane of each input plus `room`, so the check is
//! shallow whatever the width (3 LUT levels at 1024 bits); the OR over the
//! lanes is the verifier's next stage. Which byte of a lane is wrong is
//! found later, by the verifier's record scan, from the captured beat.
//! `count` reads `keep` as the contiguous code the data conventions require:
//! the index of its last set bit, plus one.
//!
//! rust-hdl's kernel language cannot build a vector bit by bit, so this leaf
//! is Verilog with `update` as its simulation model. It has two forms of the
//! same function:
//! - synthesis (and lint with `-UVERILATOR`) reads vectors written a whole
//!   vector at a time (`keep & nz & in_transfer`): only the per-byte OR
//!   (`nz`) and the per-lane ORs need a term each;
//! - Verilator (`ifdef VERILATOR`) takes a short branch for a beat with every
//!   byte kept and inside the transfer, almost every beat: a lane is wrong
//!   when its 32 bits differ, nothing is past the transfer, the count is the
//!   beat. A second short branch takes a beat with no byte kept, which is
//!   what the inputs hold on every idle cycle (`tkeep` is zero between
//!   beats): all three outputs are zero. Without it an idle session ran the
//!   byte loop below three times a cycle, and an idle `dp1024` harness
//!   simulated at 0.22 M cycles/s instead of 1.7 M (issue 27). Other beats run the synthesis form's vectors with `nz` built by a
//!   loop, whose bit assignments keep Verilator's dataflow pass from
//!   hoisting the 128 byte ORs out of the branch. With the lane flags that
//!   replaced stored byte errors, this took the 1-session yardstick model from
//!   0.486 to 0.733 of the reference's speed (README, "Against the
//!   yardstick").
//!
//! Simulation tests only run the second form, so
//! `hdl/tests/equivalence.rs` proves the two equal with a yosys SAT miter at
//! every width (and that a broken simulation form fails it); `scripts/lint.sh`
//! lints both.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct BeatCheck<const W: usize, const K: usize> {
    // ---- Beat.
    /// Received beat.
    pub data: Signal<In, Bits<W>>,
    /// The pattern for the beat.
    pub expected: Signal<In, Bits<W>>,
    /// Byte enables of the beat.
    pub keep: Signal<In, Bits<K>>,
    /// Bytes of the beat inside the transfer, saturated at 255: byte i is
    /// checked only if i < room.
    pub room: Signal<In, Bits<8>>,
    // ---- Per lane.
    /// Bit j: lane j has a kept byte inside the transfer that is wrong.
    pub lane_err: Signal<Out, Bits<32>>,
    /// Bit j: lane j has a kept byte at or past `room` (data beyond the
    /// transfer).
    pub lane_over: Signal<Out, Bits<32>>,
    /// Bytes the beat carries.
    pub count: Signal<Out, Bits<8>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize, const K: usize> BeatCheck<W, K> {
    pub fn new() -> Self {
        assert_eq!(K * 8, W, "BeatCheck: K must be W / 8");
        assert!(K <= 128 && W >= 64, "BeatCheck: K = {K} must be 8 ..= 128 bytes");
        Self {
            verilog_name: Default::default(),
            data: Default::default(),
            expected: Default::default(),
            keep: Default::default(),
            room: Default::default(),
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
        let (mut lane_err, mut lane_over) = (Bits::<32>::default(), Bits::<32>::default());
        for i in 0..K {
            let wrong = data.get_bits::<8>(8 * i) != expected.get_bits::<8>(8 * i);
            let kept = keep.get_bit(i);
            if kept && wrong && i < room {
                lane_err = lane_err.replace_bit(i / 4, true);
            }
            if kept && i >= room {
                lane_over = lane_over.replace_bit(i / 4, true);
            }
        }
        self.lane_err.next = lane_err;
        self.lane_over.next = lane_over;
        self.count.next = bits(crate::keep_count::count_of(keep));
    }

    fn connect(&mut self) {
        self.lane_err.connect();
        self.lane_over.connect();
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        // count = (index of the last kept byte) + 1, from the one-hot edge
        // of the contiguous keep (`KeepCount`'s terms). The bytes inside
        // the transfer are the ones below bit `room`: a shift of K ones (a
        // shift by K or more leaves none, so every byte is inside).
        let lanes = W / 32;
        let nz: Vec<String> = (0..K).rev().map(|i| format!("|diff[{}:{}]", 8 * i + 7, 8 * i)).collect();
        // A 32-bit lane vector: `term(j)` for each lane j, highest first,
        // zeros above the beat's lanes.
        let lane_vector = |term: &dyn Fn(usize) -> String| {
            let mut terms: Vec<String> = (0..lanes).rev().map(term).collect();
            if lanes < 32 {
                terms.insert(0, format!("{}'d0", 32 - lanes));
            }
            terms.join(", ")
        };
        // One OR per lane of the byte vector `v`.
        let per_lane = |v: &str| lane_vector(&|j| format!("|{v}[{}:{}]", 4 * j + 3, 4 * j));
        // A lane of a full beat is wrong when its 32 bits differ.
        let word_lanes =
            lane_vector(&|j| format!("data[{hi}:{lo}] != expected[{hi}:{lo}]", hi = 32 * j + 31, lo = 32 * j));
        // The simulation form: a full beat takes the word-level branch; the
        // rest runs the synthesis form's vectors, `nz` built by a loop. The
        // loop's bit assignments keep Verilator's dataflow pass from
        // hoisting the per-byte ORs out of the branch, which it does with
        // the one-concatenation form, so a full beat never pays for them.
        let vectors = format!(
            "in_transfer = ~({{{k}{{1'b1}}}} << room);\n        \
             last_kept = keep & ~(keep >> 1);\n        err = keep & nz & in_transfer;\n        \
             over = keep & ~in_transfer;\n        lane_err = {{{err_lanes}}};\n        \
             lane_over = {{{over_lanes}}};\n        count = {{{count}}};",
            k = K,
            err_lanes = per_lane("err"),
            over_lanes = per_lane("over"),
            count = crate::keep_count::count_terms::<K>(),
        );
        Verilog::Custom(format!(
            "reg [{m}:0] nz;\nreg [{m}:0] in_transfer;\nreg [{m}:0] last_kept;\nreg [{m}:0] err;\nreg [{m}:0] over;\n\
             `ifdef VERILATOR\n\
             // Simulation form, the same function (see hdl/src/beat_check.rs).\n\
             integer i;\n\
             always @(*) begin\n    \
             nz = {{{k}{{1'b0}}}};\n    in_transfer = {{{k}{{1'b0}}}};\n    last_kept = {{{k}{{1'b0}}}};\n    \
             err = {{{k}{{1'b0}}}};\n    over = {{{k}{{1'b0}}}};\n    \
             if ((&keep) && room >= 8'd{k}) begin\n        \
             // Every byte kept and inside the transfer.\n        \
             lane_err = {{{word_lanes}}};\n        lane_over = 32'd0;\n        count = 8'd{k};\n    \
             end else if (keep == {k}'d0) begin\n        \
             // Nothing kept: nothing wrong, nothing past the transfer, no bytes.\n        \
             lane_err = 32'd0;\n        lane_over = 32'd0;\n        count = 8'd0;\n    \
             end else begin\n        \
             for (i = 0; i < {k}; i = i + 1) begin\n            nz[i] = data[8 * i +: 8] != expected[8 * i +: 8];\n        end\n        \
             {vectors}\n    \
             end\n\
             end\n\
             `else\n\
             wire [{w}:0] diff;\nassign diff = data ^ expected;\n\
             always @(*) begin\n    \
             nz = {{{nz}}};\n    {vectors_syn}\n\
             end\n\
             `endif",
            w = W - 1,
            m = K - 1,
            k = K,
            nz = nz.join(", "),
            word_lanes = word_lanes,
            vectors_syn = vectors.replace("\n        ", "\n    "),
        ))
    }
}
