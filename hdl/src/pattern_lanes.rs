//! The incremental pattern of one beat, from the word index of its lane 0.
//!
//! ```text
//!   word[31:0] --> { word | (L-1), ..., word | 1, word | 0 } --> data[W-1:0]   (L = W/32 lanes)
//! ```
//!
//! Lane `i` of beat `n` holds `n * L + i` (ARCHITECTURE section 3). Beats start
//! at multiples of `L`, so `word + i == word | i` and the block is pure wiring:
//! a replication and constant bits. rust-hdl's kernel language has no
//! replication or bit-slice assignment, so this leaf is written as Verilog
//! (like rust-hdl's own `DFF`), with `update` as its simulation model; the
//! verilated tests check the Verilog against the `pattern` crate.

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct PatternLanes<const W: usize> {
    // ---- Input.
    /// Word index of lane 0; a multiple of W/32.
    pub word: Signal<In, Bits<32>>,
    // ---- Output.
    /// The beat: lane i = word + i.
    pub data: Signal<Out, Bits<W>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
}

impl<const W: usize> PatternLanes<W> {
    pub fn new() -> Self {
        assert!(W.is_multiple_of(32) && W >= 64, "PatternLanes: W = {W} must be a multiple of 32, at least 64");
        Self { verilog_name: Default::default(), word: Default::default(), data: Default::default() }
    }

    /// Lane `i`'s index in bits `32i + 31 .. 32i`: what the aligned beat
    /// ORs into the replicated word.
    pub(crate) fn lane_index() -> Bits<W> {
        let mut lanes = Bits::<W>::default();
        for i in 0..W / 32 {
            lanes.set_bits::<32>(32 * i, bits::<32>(i as u64));
        }
        lanes
    }
}

impl<const W: usize> Default for PatternLanes<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize> Logic for PatternLanes<W> {
    fn update(&mut self) {
        let mut data = Self::lane_index();
        let word = self.word.val();
        for i in 0..W / 32 {
            let lane = data.get_bits::<32>(32 * i) | word;
            data.set_bits::<32>(32 * i, lane);
        }
        self.data.next = data;
    }

    fn connect(&mut self) {
        self.data.connect();
    }

    fn hdl(&self) -> Verilog {
        let lane_index: VerilogLiteral = Self::lane_index().into();
        Verilog::Custom(format!("always @(*) data = {{{lanes}{{word}}}} | {lane_index};", lanes = W / 32))
    }
}
