//! The round-trip histogram's storage: 512 counts of 32 bits (464 used),
//! one write and two registered reads per cycle: read A serves the
//! histogram's own read-modify-write, read B software's index/data pair. A
//! block RAM per read port (two 18 Kb RAMs on an UltraScale+ part), so
//! software never waits on the measurement.
//!
//! ```text
//!   write, write_index, write_count --(clock)--> bin[write_index]
//!   read_a_index --(clock)--> read_a = bin[read_a_index]     (the value before this edge's write)
//!   read_b_index --(clock)--> read_b = bin[read_b_index]
//! ```
//!
//! A leaf because rust-hdl's kernel language has no memories; `update` is
//! its simulation model, and the verilated tests of the histogram check the
//! Verilog.

use rust_hdl::prelude::*;

/// Words of the RAM.
pub const BINS: usize = 512;

#[derive(LogicBlock)]
pub struct BucketRam {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    // ---- Write port.
    /// Store `write_count` in bin `write_index` at this edge.
    pub write: Signal<In, Bit>,
    /// The bin written.
    pub write_index: Signal<In, Bits<9>>,
    /// The count written.
    pub write_count: Signal<In, Bits<32>>,
    // ---- Read port A (the histogram's update).
    /// The bin read at this edge.
    pub read_a_index: Signal<In, Bits<9>>,
    /// Its count, from the edge after the index.
    pub read_a: Signal<Out, Bits<32>>,
    // ---- Read port B (software).
    /// The bin read at this edge.
    pub read_b_index: Signal<In, Bits<9>>,
    /// Its count, from the edge after the index.
    pub read_b: Signal<Out, Bits<32>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
    _bins: Vec<Bits<32>>,
}

impl Default for BucketRam {
    fn default() -> Self {
        BucketRam {
            clock: Default::default(),
            write: Default::default(),
            write_index: Default::default(),
            write_count: Default::default(),
            read_a_index: Default::default(),
            read_a: Default::default(),
            read_b_index: Default::default(),
            read_b: Default::default(),
            verilog_name: Default::default(),
            _bins: vec![Bits::default(); BINS],
        }
    }
}

impl Logic for BucketRam {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.read_a.next = self._bins[self.read_a_index.val().index()];
            self.read_b.next = self._bins[self.read_b_index.val().index()];
            if self.write.val() {
                self._bins[self.write_index.val().index()] = self.write_count.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_a.connect();
        self.read_b.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "reg [31:0] bin [0:511];\n\
             always @(posedge clock) begin\n    \
                 if (write) bin[write_index] <= write_count;\n    \
                 read_a <= bin[read_a_index];\n    \
                 read_b <= bin[read_b_index];\n\
             end"
            .into(),
        )
    }
}
