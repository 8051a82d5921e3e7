//! The node's descriptor FIFO: the answers the transmitter owes, in the
//! order they were decided (`crate::net::Desc`, packed), eight deep, in
//! distributed RAM.
//!
//! ```text
//!   push, push_data --(clock)--> pending --(clock)--> slot[wr] ... slot[rd] --> head, empty
//!   pop (takes the head) ------> rd += 1                                         full
//! ```
//!
//! A descriptor pushed waits a cycle in a register before it is written:
//! the receiver's push decision and the RAM's write port are not one path
//! (the synthesis estimate counts a distributed RAM's write as a path to its
//! read port). `full` counts it at once, `empty` once it is written, so the
//! head shows it two cycles after its push.
//!
//! A push into a full FIFO and a pop of an empty one are ignored (the
//! users check `full` and `empty`). A leaf because rust-hdl's kernel
//! language has no memories; `update` is its simulation model.

use rust_hdl::prelude::*;

use super::{DESC_BITS, DESC_DEPTH};

#[derive(LogicBlock, Default)]
pub struct DescFifo {
    // ---- Clock.
    /// User clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset: the FIFO empties (push and pop ignored).
    pub reset: Signal<In, Bit>,
    // ---- Write side.
    /// Put `push_data` at the tail at this edge (ignored when full).
    pub push: Signal<In, Bit>,
    /// The descriptor put.
    pub push_data: Signal<In, Bits<DESC_BITS>>,
    /// No room for another descriptor.
    pub full: Signal<Out, Bit>,
    // ---- Read side.
    /// Take the head at this edge (ignored when empty).
    pub pop: Signal<In, Bit>,
    /// The oldest descriptor (valid unless `empty`).
    pub head: Signal<Out, Bits<DESC_BITS>>,
    /// No descriptor held.
    pub empty: Signal<Out, Bit>,
    /// Names the Verilog module after this type (`crate::emit`).
    verilog_name: crate::emit::ModuleName<Self>,
    _slots: [Bits<DESC_BITS>; DESC_DEPTH],
    _rd: usize,
    _wr: usize,
    _count: usize,
    _ready: usize,
    _pending: Option<Bits<DESC_BITS>>,
}

impl Logic for DescFifo {
    fn update(&mut self) {
        if self.clock.pos_edge() && self.reset.val() {
            self._rd = 0;
            self._wr = 0;
            self._count = 0;
            self._ready = 0;
            self._pending = None;
        } else if self.clock.pos_edge() {
            let push = self.push.val() && self._count < DESC_DEPTH;
            let pop = self.pop.val() && self._ready > 0;
            if pop {
                self._rd = (self._rd + 1) % DESC_DEPTH;
                self._ready -= 1;
            }
            if let Some(d) = self._pending.take() {
                self._slots[self._wr] = d;
                self._wr = (self._wr + 1) % DESC_DEPTH;
                self._ready += 1;
            }
            if push {
                self._pending = Some(self.push_data.val());
            }
            self._count = self._count + usize::from(push) - usize::from(pop);
        }
        self.head.next = self._slots[self._rd];
        self.full.next = self._count == DESC_DEPTH;
        self.empty.next = self._ready == 0;
    }

    fn connect(&mut self) {
        self.head.connect();
        self.full.connect();
        self.empty.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "reg [{dm}:0] slot [0:{sm}];
reg [2:0] rd_reg = 3'd0;
reg [2:0] wr_reg = 3'd0;
// Held (written or pending), and written.
reg [3:0] count_reg = 4'd0;
reg [3:0] ready_reg = 4'd0;
reg pending_reg = 1'b0;
reg [{dm}:0] pending_data_reg = {desc_bits}'d0;
wire do_push = push && count_reg != 4'd{depth};
wire do_pop = pop && ready_reg != 4'd0;
always @(posedge clock) begin
    if (pending_reg) slot[wr_reg] <= pending_data_reg;
    pending_data_reg <= push_data;
    if (reset) begin
        rd_reg <= 3'd0;
        wr_reg <= 3'd0;
        count_reg <= 4'd0;
        ready_reg <= 4'd0;
        pending_reg <= 1'b0;
    end else begin
        pending_reg <= do_push;
        if (pending_reg) wr_reg <= wr_reg + 3'd1;
        if (do_pop) rd_reg <= rd_reg + 3'd1;
        count_reg <= count_reg + {{3'd0, do_push}} - {{3'd0, do_pop}};
        ready_reg <= ready_reg + {{3'd0, pending_reg}} - {{3'd0, do_pop}};
    end
end
always @(*) begin
    head = slot[rd_reg];
    full = count_reg == 4'd{depth};
    empty = ready_reg == 4'd0;
end",
            desc_bits = DESC_BITS,
            dm = DESC_BITS - 1,
            sm = DESC_DEPTH - 1,
            depth = DESC_DEPTH,
        ))
    }
}
