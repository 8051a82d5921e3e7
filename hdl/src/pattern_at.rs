//! The incremental pattern of one beat that starts at any byte of the
//! stream: what the latency modes' generator sends and verifier expects,
//! where every message ends with a partial beat and the next one starts at
//! lane 0 with whatever stream offset it has reached (docs/latency.md).
//!
//! ```text
//!   offset[33:0] = { h, l, b }      h: the beat-aligned part of the word index
//!                                   l: lane of the first word (log2(L) bits), b: its byte
//!   word(i) = { l + i < L ? h : h + 1, (l + i) mod L }      i = 0 .. L
//!   lane i  = bytes b .. b + 3 of { word(i + 1), word(i) }  one 4:1 byte choice per byte
//!   --> data[W-1:0]   (L = W/32 lanes, byte j of the beat = pattern byte offset + j)
//! ```
//!
//! [`PatternLanes`](crate::PatternLanes) is the aligned case (`l = b = 0`),
//! pure wiring. Here the beat needs one increment of `h`, a small sum per
//! lane to pick `h` or `h + 1`, and a byte choice driven by two bits for
//! the whole beat: no 128-way byte rotator. The offset is taken modulo 2^34
//! (the pattern's words wrap at 2^32). A leaf written as Verilog because
//! rust-hdl's kernel language has no loops over lanes or part selects;
//! `update` is its simulation model, and the verilated tests check the
//! Verilog against the `pattern` crate.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PatternAt<const W: usize> {
    // ---- Input.
    /// Stream offset of the beat's first byte, modulo 2^34.
    pub offset: Signal<In, Bits<34>>,
    // ---- Output.
    /// The beat: byte j is pattern byte `offset + j`.
    pub data: Signal<Out, Bits<W>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize> PatternAt<W> {
    pub fn new() -> Self {
        assert!(
            W.is_multiple_of(32) && W >= 64 && (W / 32).is_power_of_two(),
            "PatternAt: W = {W} must be 32 times a power of two, at least 64"
        );
        Self { verilog_name: Default::default(), offset: Default::default(), data: Default::default() }
    }

    /// log2 of the lane count.
    const fn lane_bits() -> usize {
        (W / 32).trailing_zeros() as usize
    }
}

/// The model: the `W / 8` bytes of the pattern from stream offset `offset`
/// (modulo 2^34), lane `i` as the little-endian word of bytes `4i .. 4i + 3`.
pub fn lanes_at(offset: u64, lanes: usize) -> Vec<u32> {
    let offset = offset % (1 << 34);
    let (word, byte) = (offset / 4, offset % 4);
    (0..lanes as u64)
        .map(|i| {
            let pair = u64::from(word.wrapping_add(i) as u32) | u64::from(word.wrapping_add(i + 1) as u32) << 32;
            (pair >> (8 * byte)) as u32
        })
        .collect()
}

impl<const W: usize> Default for PatternAt<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for PatternAt<W> {
    fn update(&mut self) {
        let mut data = Bits::<W>::default();
        for (i, lane) in lanes_at(self.offset.val().to_u64(), W / 32).into_iter().enumerate() {
            data.set_bits::<32>(32 * i, bits(u64::from(lane)));
        }
        self.data.next = data;
    }

    fn connect(&mut self) {
        self.data.connect();
    }

    fn hdl(&self) -> Verilog {
        let (lanes, lb) = (W / 32, Self::lane_bits());
        let upper = 32 - lb;
        let lane_index: VerilogLiteral = crate::pattern_lanes::PatternLanes::<W>::lane_index().into();
        // The general form: the beat's words, then each lane's 4:1 byte choice.
        let general = format!(
            "for (i = 0; i <= {lanes}; i = i + 1) begin\n    \
                 sum = {{1'b0, l}} + i[{lb}:0];\n    \
                 words[32 * i +: 32] = {{sum[{lb}] ? h_plus_1 : h, sum[{lm}:0]}};\n\
             end\n\
             for (i = 0; i < {lanes}; i = i + 1) begin\n    \
                 data[32 * i +: 32] = words[32 * i + {{27'd0, b, 3'b000}} +: 32];\n\
             end",
            lm = lb - 1,
        );
        let indent = |text: &str, by: &str| text.lines().map(|l| format!("{by}{l}")).collect::<Vec<_>>().join("\n");
        // The simulation form takes a short branch for a beat that starts at
        // a multiple of W/8, almost every beat of a throughput test: the
        // aligned pattern's wiring (`PatternLanes`), so Verilator does not
        // build the beat's words. The words and the sum are set in both
        // branches, so the branch is a branch and not a choice between two
        // values computed first. `hdl/tests/equivalence.rs` proves the two
        // forms equal.
        Verilog::Custom(format!(
            "// The word index of lane 0 is {{h, l}}; the beat's words are h's and h + 1's.\n\
             wire [{uh}:0] h = offset[33:{lo}];\n\
             wire [{uh}:0] h_plus_1 = h + {upper}'d1;\n\
             wire [{lm}:0] l = offset[{lt}:2];\n\
             wire [1:0] b = offset[1:0];\n\
             // Words 0 .. {lanes} of the beat; lane i is 4 bytes of words i and i + 1.\n\
             reg [{wt}:0] words;\n\
             reg [{lb}:0] sum;\n\
             integer i;\n\
             `ifdef VERILATOR\n\
             // Simulation form, the same function (see hdl/src/pattern_at.rs).\n\
             always @(*) begin\n    \
                 if (offset[{lt}:0] == {lt1}'d0) begin\n        \
                     words = {{{wn}{{1'b0}}}};\n        \
                     sum = {lb1}'d0;\n        \
                     data = {{{lanes}{{offset[33:2]}}}} | {lane_index};\n    \
                 end else begin\n\
             {general_sim}\n    \
                 end\n\
             end\n\
             `else\n\
             always @(*) begin\n\
             {general_syn}\n\
             end\n\
             `endif",
            uh = upper - 1,
            lo = 2 + lb,
            lm = lb - 1,
            lt = lb + 1,
            lt1 = lb + 2,
            lb1 = lb + 1,
            wn = 32 * (lanes + 1),
            wt = 32 * (lanes + 1) - 1,
            general_sim = indent(&general, "        "),
            general_syn = indent(&general, "    "),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model against the pattern's definition, byte by byte, at offsets
    /// on both sides of the 2^34 wrap.
    #[test]
    fn the_model_is_the_pattern() {
        for offset in (0..300).chain((1u64 << 34) - 150..(1u64 << 34) + 150) {
            let lanes = lanes_at(offset, 4);
            let bytes: Vec<u8> = lanes.iter().flat_map(|w| w.to_le_bytes()).collect();
            let want: Vec<u8> = (0..16).map(|j| byte_of((offset + j) % (1 << 34))).collect();
            assert_eq!(bytes, want, "offset {offset}");
        }
    }

    /// The block as rust-hdl simulates it (what `make bench`'s rust-hdl
    /// datapath runs) gives the model's beat at offsets of all 34 bits.
    #[test]
    fn the_simulated_block_gives_the_models_beat() {
        let mut b = PatternAt::<128>::new();
        b.connect_all();
        for offset in [0u64, 5, 1 << 32, (1 << 34) - 3] {
            b.offset.next = bits(offset);
            crate::sim::settle(&mut b);
            let want: Vec<u32> = lanes_at(offset, 4);
            let got: Vec<u32> = (0..4).map(|i| b.data.val().get_bits::<32>(32 * i).to_u64() as u32).collect();
            assert_eq!(got, want, "offset {offset}");
        }
    }

    /// The pattern's definition (the `pattern` crate is not a dependency of
    /// the blocks): byte `b % 4` of the little-endian word `b / 4`.
    fn byte_of(b: u64) -> u8 {
        ((b / 4) as u32).to_le_bytes()[(b % 4) as usize]
    }
}
