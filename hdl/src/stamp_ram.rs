//! The round-trip meter's queue storage: 16 cycle stamps of 40 bits, one
//! written per cycle, one read asynchronously (a distributed RAM, 40 LUTs
//! as RAM on a UltraScale+ part, no block RAM).
//!
//! ```text
//!   write, write_index, write_stamp --(clock)--> slot[write_index]
//!   read_index ----------------------------------> read_stamp = slot[read_index]
//! ```
//!
//! A slot written at an edge reads its new value after that edge; a read of
//! the slot being written reads the old value until then. A leaf because
//! rust-hdl's kernel language has no memories; `update` is its simulation
//! model, and the verilated tests of the meter check the Verilog.

use rust_hdl::prelude::*;

/// Slots, and the bits of an index.
pub const SLOTS: usize = 16;

#[derive(LogicBlock, Default)]
pub struct StampRam {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    // ---- Write port.
    /// Store `write_stamp` in slot `write_index` at this edge.
    pub write: Signal<In, Bit>,
    /// The slot written.
    pub write_index: Signal<In, Bits<4>>,
    /// The stamp written.
    pub write_stamp: Signal<In, Bits<40>>,
    // ---- Read port (asynchronous).
    /// The slot read.
    pub read_index: Signal<In, Bits<4>>,
    /// Its stamp.
    pub read_stamp: Signal<Out, Bits<40>>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
    _slots: [Bits<40>; SLOTS],
}

impl Logic for StampRam {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.write.val() {
            self._slots[self.write_index.val().index()] = self.write_stamp.val();
        }
        self.read_stamp.next = self._slots[self.read_index.val().index()];
    }

    fn connect(&mut self) {
        self.read_stamp.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "reg [39:0] slot [0:15];\n\
             always @(posedge clock) begin\n    \
                 if (write) slot[write_index] <= write_stamp;\n\
             end\n\
             always @(*) read_stamp = slot[read_index];"
                .into(),
        )
    }
}
